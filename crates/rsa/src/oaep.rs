//! RSAES-OAEP (RFC 8017 §7.1), with the MGF1 hash free to differ from the
//! label hash.

use alloc::vec;
use alloc::vec::Vec;

use numcrypt_limbs::{Limb, SecretUint};
use rand_core::TryCryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::hash::RsaHash;
use crate::private::Mode;
use crate::rng::Draws;
use crate::{Error, HashAlg, RsaPrivateKey, RsaPublicKey};

/// OAEP's parameters: the label hash, the MGF1 hash (the label hash unless
/// set) and the label (empty unless set).
///
/// ```
/// use numcrypt_rsa::{HashAlg, oaep::Params};
/// // What `openssl pkeyutl -pkeyopt rsa_padding_mode:oaep` uses by default.
/// let openssl_default = Params::new(HashAlg::Sha1);
/// let params = Params::new(HashAlg::Sha256).mgf1_hash(HashAlg::Sha1).label(b"context");
/// # let _ = (openssl_default, params);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params<'a> {
    /// The hash of the label, whose length also shapes the padding.
    pub hash: HashAlg,
    /// The hash MGF1 runs on.
    pub mgf1_hash: HashAlg,
    /// The label bound to the ciphertext.
    pub label: &'a [u8],
}

impl<'a> Params<'a> {
    /// `hash` for the label and MGF1, an empty label.
    pub fn new(hash: HashAlg) -> Self {
        Self {
            hash,
            mgf1_hash: hash,
            label: &[],
        }
    }

    /// MGF1 over `hash` instead of the label hash.
    pub fn mgf1_hash(self, hash: HashAlg) -> Self {
        Self {
            mgf1_hash: hash,
            ..self
        }
    }

    /// The label (any bytes; decryption needs the same).
    pub fn label(self, label: &'a [u8]) -> Self {
        Self { label, ..self }
    }
}

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
    /// bits, [`Error::KeyRestricted`] for an RSA-PSS key.
    pub fn encrypt_oaep<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        label: &[u8],
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.encrypt_oaep_with(rng, &Params::new(hash).label(label), msg)
    }

    /// Encrypts `msg` with RSAES-OAEP and any [`Params`].
    pub fn encrypt_oaep_with<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        params: &Params<'_>,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.check_encryption_size()?;
        self.check_not_pss_only()?;
        let hash = params.hash;
        let k = self.size();
        let h_len = hash.output_len();
        let max = self.oaep_max_message_len(hash);
        // A hash so long that not even the empty message fits (k < 2·hLen + 2).
        if msg.len() > max || k < 2 * h_len + 2 {
            return Err(Error::MessageTooLong { max });
        }
        // EM = 00 || maskedSeed || maskedDB, DB = lHash || PS || 01 || M.
        let mut em = Zeroizing::new(vec![0u8; k]);
        let (seed, db) = em[1..].split_at_mut(h_len);
        db[..h_len].copy_from_slice(&hash.digest(params.label));
        let db_len = db.len();
        db[db_len - msg.len() - 1] = 1;
        db[db_len - msg.len()..].copy_from_slice(msg);
        Draws::new(rng).fill(seed)?;
        params.mgf1_hash.mgf1_xor(seed, db);
        params.mgf1_hash.mgf1_xor(db, seed);
        let nl = self.n().as_words().len();
        // EM starts with a zero byte, so it is below n.
        let m = SecretUint::from_be_slice(&em, nl as u32 * Limb::BITS)
            .ok()
            .ok_or(Error::OutOfRange)?;
        Ok(self.i2osp(&self.public_op(&m))?.to_vec())
    }
}

impl RsaPrivateKey {
    /// Decrypts an RSAES-OAEP ciphertext (`hash` and `label` as used to
    /// encrypt). The padding is checked in constant time, and every way it
    /// can be wrong gives the same [`Error::Decryption`] (no Manger oracle).
    /// A ciphertext of the wrong length is [`Error::InvalidLength`], one not
    /// below `n` [`Error::OutOfRange`] (both public).
    pub fn decrypt_oaep<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        label: &[u8],
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        self.decrypt_oaep_with(rng, &Params::new(hash).label(label), ciphertext)
    }

    /// Decrypts an RSAES-OAEP ciphertext made with `params`.
    pub fn decrypt_oaep_with<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        params: &Params<'_>,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        self.check_private_size()?;
        self.public_key().check_not_pss_only()?;
        let hash = params.hash;
        let k = self.size();
        let h_len = hash.output_len();
        if k < 2 * h_len + 2 {
            return Err(Error::Decryption);
        }
        let c = self.public_key().read_input(ciphertext)?;
        let m = self.private_op(Some(rng), &c, Mode::default())?;
        let mut em = self.public_key().i2osp(&m)?;
        let l_hash = hash.digest(params.label);
        let y = em[0];
        let (seed, db) = em[1..].split_at_mut(h_len);
        params.mgf1_hash.mgf1_xor(db, seed);
        params.mgf1_hash.mgf1_xor(seed, db);
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
        // Validity is reported, and the message's length is the output's.
        if !numcrypt_limbs::ct_audit::declassify_choice(good) {
            return Err(Error::Decryption);
        }
        let index = numcrypt_limbs::ct_audit::declassified(index) as usize;
        Ok(Zeroizing::new(db[index + 1..].to_vec()))
    }
}
