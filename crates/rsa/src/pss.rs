//! RSASSA-PSS signatures (RFC 8017 §8.1) with MGF1 over the same hash, and
//! [`SigningKey`]/[`VerifyingKey`] for the `signature` crate's traits.

use alloc::vec;
use alloc::vec::Vec;

use rand_core::{CryptoRng, TryCryptoRng};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::private::Mode;
use crate::uint::SecretUint;
use crate::{Error, HashAlg, RsaPrivateKey, RsaPublicKey, Signature};

/// The PSS salt length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SaltLength {
    /// The digest's length (the default, and what RFC 8017 and TLS 1.3 use;
    /// OpenSSL's `rsa_pss_saltlen:digest`).
    #[default]
    Digest,
    /// The largest that fits: `emLen − hLen − 2` (OpenSSL's `max`).
    Max,
    /// Exactly this many bytes.
    Bytes(usize),
    /// Verification only: any salt length, read from the signature
    /// (OpenSSL's `auto`, its default when verifying). Signing with it uses
    /// [`Max`](Self::Max), as OpenSSL does.
    Auto,
}

impl SaltLength {
    /// The length to sign with, for an encoding of `em_len` bytes.
    fn for_signing(self, hash: HashAlg, em_len: usize) -> Result<usize, Error> {
        let h = hash.output_len();
        let max = em_len.checked_sub(h + 2).ok_or(Error::InvalidSaltLength)?;
        let s = match self {
            SaltLength::Digest => h,
            SaltLength::Max | SaltLength::Auto => max,
            SaltLength::Bytes(s) => s,
        };
        if s > max {
            return Err(Error::InvalidSaltLength);
        }
        Ok(s)
    }
}

impl core::str::FromStr for SaltLength {
    type Err = Error;

    /// `digest`, `max`, `auto` or a number of bytes (OpenSSL's names).
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "digest" => Ok(SaltLength::Digest),
            "max" => Ok(SaltLength::Max),
            "auto" => Ok(SaltLength::Auto),
            _ => s
                .parse()
                .map(SaltLength::Bytes)
                .map_err(|_| Error::InvalidSaltLength),
        }
    }
}

/// EMSA-PSS-ENCODE (RFC 8017 §9.1.1) of a message `digest` under `hash`
/// (MGF1 with the same hash) with `salt`, for `em_bits = modBits − 1`:
/// public, so that other signers (the shared-RSA parties) encode exactly as
/// this crate verifies. Errors: [`Error::InvalidSaltLength`] when the salt
/// and digest do not fit `em_bits`.
pub fn encode_checked(
    hash: HashAlg,
    digest: &[u8],
    salt: &[u8],
    em_bits: u32,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    hash.check_digest(digest)?;
    if (em_bits.div_ceil(8) as usize) < hash.output_len() + salt.len() + 2 {
        return Err(Error::InvalidSaltLength);
    }
    Ok(encode(hash, digest, salt, em_bits))
}

/// [`encode_checked`] for callers that have checked the lengths.
fn encode(hash: HashAlg, digest: &[u8], salt: &[u8], em_bits: u32) -> Zeroizing<Vec<u8>> {
    let h_len = hash.output_len();
    let em_len = em_bits.div_ceil(8) as usize;
    let h = hash.digest_parts(&[&[0u8; 8], digest, salt]);
    let db_len = em_len - h_len - 1;
    let mut em = Zeroizing::new(vec![0u8; em_len]);
    // DB = PS || 0x01 || salt, then masked in place.
    em[db_len - salt.len() - 1] = 1;
    em[db_len - salt.len()..db_len].copy_from_slice(salt);
    hash.mgf1_xor(&h, &mut em[..db_len]);
    em[0] &= 0xff >> (8 * em_len as u32 - em_bits);
    em[db_len..em_len - 1].copy_from_slice(&h);
    em[em_len - 1] = 0xbc;
    em
}

/// EMSA-PSS-VERIFY (RFC 8017 §9.1.2); `salt_len` `None` accepts any.
/// Everything here is public, so it may exit early.
fn verify_encoding(
    hash: HashAlg,
    digest: &[u8],
    em: &[u8],
    em_bits: u32,
    salt_len: Option<usize>,
) -> bool {
    let h_len = hash.output_len();
    let em_len = em.len();
    if em_len < h_len + 2 || em[em_len - 1] != 0xbc {
        return false;
    }
    let top_bits = 8 * em_len as u32 - em_bits;
    let db_len = em_len - h_len - 1;
    let (masked_db, rest) = em.split_at(db_len);
    let h = &rest[..h_len];
    if masked_db[0] & !(0xff >> top_bits) != 0 {
        return false;
    }
    let mut db = masked_db.to_vec();
    hash.mgf1_xor(h, &mut db);
    db[0] &= 0xff >> top_bits;
    // DB = 00…00 01 salt.
    let Some(one) = db.iter().position(|&b| b != 0) else {
        return false;
    };
    if db[one] != 1 {
        return false;
    }
    let salt = &db[one + 1..];
    if salt_len.is_some_and(|s| s != salt.len()) {
        return false;
    }
    let expected = hash.digest_parts(&[&[0u8; 8], digest, salt]);
    bool::from(expected.as_slice().ct_eq(h))
}

impl RsaPrivateKey {
    /// Signs `msg` with RSASSA-PSS, `hash` for the message and MGF1, and a
    /// random salt of `salt_len` from `rng` (which also feeds the blinding).
    pub fn sign_pss<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        msg: &[u8],
        salt_len: SaltLength,
    ) -> Result<Vec<u8>, Error> {
        self.sign_pss_prehashed(rng, hash, &hash.digest(msg), salt_len)
    }

    /// Signs a message given by its `hash` digest with RSASSA-PSS.
    pub fn sign_pss_prehashed<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
        salt_len: SaltLength,
    ) -> Result<Vec<u8>, Error> {
        self.check_private_size()?;
        hash.check_digest(digest)?;
        let em_bits = self.public_key().bits() - 1;
        let s_len = salt_len.for_signing(hash, em_bits.div_ceil(8) as usize)?;
        let mut salt = Zeroizing::new(vec![0u8; s_len]);
        rng.fill_bytes(&mut salt);
        let em = encode(hash, digest, &salt, em_bits);
        let nl = self.public_key().n().as_words().len();
        // EM has em_bits = modBits − 1 bits, so it is below n.
        let m = SecretUint::from_be_bytes(&em, nl).ok_or(Error::OutOfRange)?;
        let s = self.private_op(Some(rng), &m, Mode::default())?;
        Ok(s.to_be_bytes(self.size()).to_vec())
    }
}

impl RsaPublicKey {
    /// Verifies an RSASSA-PSS signature on `msg` (`hash` for the message
    /// and MGF1). Errors: [`Error::InvalidLength`], [`Error::OutOfRange`],
    /// [`Error::InvalidSignature`].
    pub fn verify_pss(
        &self,
        hash: HashAlg,
        msg: &[u8],
        signature: &[u8],
        salt_len: SaltLength,
    ) -> Result<(), Error> {
        self.verify_pss_prehashed(hash, &hash.digest(msg), signature, salt_len)
    }

    /// Verifies a PSS signature on a message given by its `hash` digest.
    pub fn verify_pss_prehashed(
        &self,
        hash: HashAlg,
        digest: &[u8],
        signature: &[u8],
        salt_len: SaltLength,
    ) -> Result<(), Error> {
        hash.check_digest(digest)?;
        let s = self.read_input(signature)?;
        let em_bits = self.bits() - 1;
        let em_len = em_bits.div_ceil(8) as usize;
        let m = self.public_op(&s).to_be_bytes(self.size());
        // When modBits − 1 is a multiple of 8, EM is one byte shorter than
        // the modulus and that leading byte must be 0.
        let (lead, em) = m.split_at(self.size() - em_len);
        let salt = match salt_len {
            SaltLength::Auto => None,
            other => Some(other.for_signing(hash, em_len)?),
        };
        if lead.iter().all(|&b| b == 0) && verify_encoding(hash, digest, em, em_bits, salt) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// A private key with the hash and salt length to sign with, for the
/// `signature` crate's [`RandomizedSigner`](signature::RandomizedSigner)
/// and (with `getrandom`, salt and blinding from the operating system)
/// [`Signer`](signature::Signer).
#[derive(Clone, Debug)]
pub struct SigningKey {
    key: RsaPrivateKey,
    hash: HashAlg,
    salt_len: SaltLength,
}

impl SigningKey {
    /// `key`, signing with `hash` and a salt as long as the digest.
    pub fn new(key: RsaPrivateKey, hash: HashAlg) -> Self {
        Self::with_salt_len(key, hash, SaltLength::Digest)
    }

    /// `key`, signing with `hash` and the given salt length.
    pub fn with_salt_len(key: RsaPrivateKey, hash: HashAlg, salt_len: SaltLength) -> Self {
        Self {
            key,
            hash,
            salt_len,
        }
    }

    /// The private key.
    pub fn key(&self) -> &RsaPrivateKey {
        &self.key
    }
}

/// A public key with the hash and salt length to verify with, for the
/// `signature` crate's [`Verifier`](signature::Verifier).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    key: RsaPublicKey,
    hash: HashAlg,
    salt_len: SaltLength,
}

impl VerifyingKey {
    /// `key`, verifying with `hash` and a salt as long as the digest.
    pub fn new(key: RsaPublicKey, hash: HashAlg) -> Self {
        Self::with_salt_len(key, hash, SaltLength::Digest)
    }

    /// `key`, verifying with `hash` and the given salt length.
    pub fn with_salt_len(key: RsaPublicKey, hash: HashAlg, salt_len: SaltLength) -> Self {
        Self {
            key,
            hash,
            salt_len,
        }
    }

    /// The public key.
    pub fn key(&self) -> &RsaPublicKey {
        &self.key
    }
}

// The private key zeroizes itself when dropped.
impl zeroize::ZeroizeOnDrop for SigningKey {}

impl signature::Keypair for SigningKey {
    type VerifyingKey = VerifyingKey;

    fn verifying_key(&self) -> VerifyingKey {
        VerifyingKey::with_salt_len(self.key.public_key().clone(), self.hash, self.salt_len)
    }
}

impl signature::RandomizedSigner<Signature> for SigningKey {
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        crate::signer::sign_with_rng(rng, |rng| {
            self.key.sign_pss(rng, self.hash, msg, self.salt_len)
        })
    }
}

#[cfg(feature = "getrandom")]
impl signature::Signer<Signature> for SigningKey {
    fn try_sign(&self, msg: &[u8]) -> Result<Signature, signature::Error> {
        crate::signer::sign_with_os_rng(|rng| self.key.sign_pss(rng, self.hash, msg, self.salt_len))
    }
}

impl signature::Verifier<Signature> for VerifyingKey {
    fn verify(&self, msg: &[u8], signature: &Signature) -> Result<(), signature::Error> {
        crate::signer::verified(self.key.verify_pss(
            self.hash,
            msg,
            signature.as_ref(),
            self.salt_len,
        ))
    }
}
