//! RSAES-OAEP (RFC 8017 §7.1) with MGF1 over the same hash.

use alloc::vec;
use alloc::vec::Vec;

use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::private::Mode;
use crate::uint::SecretUint;
use crate::{Error, HashAlg, RsaPrivateKey, RsaPublicKey};

impl RsaPublicKey {
    /// The longest message [`encrypt_oaep`](Self::encrypt_oaep) takes with
    /// `hash`: `k − 2·hLen − 2` bytes.
    pub fn oaep_max_message_len(&self, hash: HashAlg) -> usize {
        self.size().saturating_sub(2 * hash.output_len() + 2)
    }

    /// Encrypts `msg` with RSAES-OAEP: `hash` for the label and MGF1, the
    /// `label` bound to the ciphertext (empty for none; decryption needs
    /// the same one), the seed from `rng`.
    ///
    /// Errors: [`Error::MessageTooLong`], [`Error::KeyTooSmall`] below 2048
    /// bits.
    pub fn encrypt_oaep<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        label: &[u8],
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.check_encryption_size()?;
        let k = self.size();
        let h_len = hash.output_len();
        let max = self.oaep_max_message_len(hash);
        if msg.len() > max {
            return Err(Error::MessageTooLong { max });
        }
        // EM = 00 || maskedSeed || maskedDB, DB = lHash || PS || 01 || M.
        let mut em = Zeroizing::new(vec![0u8; k]);
        let (seed, db) = em[1..].split_at_mut(h_len);
        db[..h_len].copy_from_slice(&hash.digest(label));
        let db_len = db.len();
        db[db_len - msg.len() - 1] = 1;
        db[db_len - msg.len()..].copy_from_slice(msg);
        rng.fill_bytes(seed);
        hash.mgf1_xor(seed, db);
        hash.mgf1_xor(db, seed);
        let nl = self.n().as_words().len();
        // EM starts with a zero byte, so it is below n.
        let m = SecretUint::from_be_bytes(&em, nl).ok_or(Error::OutOfRange)?;
        Ok(self.public_op(&m).to_be_bytes(k).to_vec())
    }
}

impl RsaPrivateKey {
    /// Decrypts an RSAES-OAEP ciphertext (`hash` and `label` as used to
    /// encrypt). The padding is checked in constant time, and every way it
    /// can be wrong gives the same [`Error::Decryption`] (no Manger oracle).
    /// A ciphertext of the wrong length is [`Error::InvalidLength`], one not
    /// below `n` [`Error::OutOfRange`] (both public).
    pub fn decrypt_oaep<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        label: &[u8],
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.check_private_size()?;
        let k = self.size();
        let h_len = hash.output_len();
        if k < 2 * h_len + 2 {
            return Err(Error::Decryption);
        }
        let c = self.public_key().read_input(ciphertext)?;
        let m = self.private_op(Some(rng), &c, Mode::default())?;
        let mut em = m.to_be_bytes(k);
        let l_hash = hash.digest(label);
        let y = em[0];
        let (seed, db) = em[1..].split_at_mut(h_len);
        hash.mgf1_xor(db, seed);
        hash.mgf1_xor(seed, db);
        let mut good = y.ct_eq(&0) & db[..h_len].ct_eq(&l_hash);
        // After lHash: zeros, then 01, then the message. Scan it all.
        let mut looking = Choice::from(1);
        let mut index = 0u32;
        let mut bad_byte = Choice::from(0);
        for (i, &b) in db.iter().enumerate().skip(h_len) {
            let (is0, is1) = (b.ct_eq(&0), b.ct_eq(&1));
            index.conditional_assign(&(i as u32), looking & is1);
            bad_byte |= looking & !is0 & !is1;
            looking &= !is1;
        }
        good &= !looking & !bad_byte;
        if !bool::from(good) {
            return Err(Error::Decryption);
        }
        Ok(Zeroizing::new(db[index as usize + 1..].to_vec()))
    }
}
