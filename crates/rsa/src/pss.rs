//! RSASSA-PSS signatures (RFC 8017 §8.1), with the MGF1 hash free to differ
//! from the message hash, RSA-PSS keys' restrictions, and
//! [`SigningKey`]/[`VerifyingKey`] for the `signature` crate's traits.

use alloc::vec;
use alloc::vec::Vec;

use numcrypt_limbs::{Limb, SecretUint};
use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::hash::RsaHash;
use crate::private::Mode;
use crate::public::KeyAlgorithm;
pub use crate::public::PssRestriction;
use crate::rng::Draws;
use crate::{Error, HashAlg, RsaPrivateKey, RsaPublicKey};
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

/// PSS's parameters: the message hash, the MGF1 hash (the message hash
/// unless set) and the salt length (the digest's length unless set).
///
/// ```
/// use numcrypt_rsa::{HashAlg, pss::{Params, SaltLength}};
/// // OpenSSL's `-sigopt rsa_padding_mode:pss -sigopt rsa_mgf1_md:sha1
/// // -sigopt rsa_pss_saltlen:max` with `-sha256`:
/// let params = Params::new(HashAlg::Sha256)
///     .mgf1_hash(HashAlg::Sha1)
///     .salt_len(SaltLength::Max);
/// # let _ = params;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// The message hash.
    pub hash: HashAlg,
    /// The hash MGF1 runs on.
    pub mgf1_hash: HashAlg,
    /// The salt length.
    pub salt_len: SaltLength,
}

impl Params {
    /// `hash` for the message and MGF1, a salt as long as the digest.
    pub fn new(hash: HashAlg) -> Self {
        Self {
            hash,
            mgf1_hash: hash,
            salt_len: SaltLength::Digest,
        }
    }

    /// MGF1 over `hash` instead of the message hash.
    pub fn mgf1_hash(self, hash: HashAlg) -> Self {
        Self {
            mgf1_hash: hash,
            ..self
        }
    }

    /// The salt length.
    pub fn salt_len(self, salt_len: SaltLength) -> Self {
        Self { salt_len, ..self }
    }

    /// Checks these parameters against an RSA-PSS key's restriction: the
    /// same hashes, and a fixed salt length no shorter than its minimum
    /// (an `Auto` salt is checked after it is read from the signature).
    fn check_against(&self, algorithm: KeyAlgorithm, em_len: usize) -> Result<(), Error> {
        let KeyAlgorithm::RsaPss(Some(r)) = algorithm else {
            return Ok(());
        };
        if self.hash != r.hash || self.mgf1_hash != r.mgf1_hash {
            return Err(Error::KeyRestricted);
        }
        match self.salt_len {
            SaltLength::Auto => Ok(()),
            other if other.for_signing(self.hash, em_len)? < r.min_salt_len => {
                Err(Error::KeyRestricted)
            }
            _ => Ok(()),
        }
    }

    /// These parameters for a digest made with `hash` (the `signature`
    /// traits' `DigestSigner` and `DigestVerifier`, whose digest type
    /// chooses the hash): `hash` for the message, and for MGF1 too when
    /// MGF1 used the message hash (as OpenSSL's `rsa_mgf1_md` follows the
    /// digest unless set); the salt length as it was.
    fn for_digest(&self, hash: HashAlg) -> Self {
        if hash == self.hash {
            return *self;
        }
        let mgf1_hash = if self.mgf1_hash == self.hash {
            hash
        } else {
            self.mgf1_hash
        };
        Self {
            hash,
            mgf1_hash,
            salt_len: self.salt_len,
        }
    }
}

impl From<HashAlg> for Params {
    fn from(hash: HashAlg) -> Self {
        Self::new(hash)
    }
}

impl PssRestriction {
    /// The parameters a signature under this restriction uses by default:
    /// its hashes and its minimum salt length (as OpenSSL signs).
    pub fn params(&self) -> Params {
        Params::new(self.hash)
            .mgf1_hash(self.mgf1_hash)
            .salt_len(SaltLength::Bytes(self.min_salt_len))
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
    Ok(encode(&Params::new(hash), digest, salt, em_bits))
}

/// [`encode_checked`] for callers that have checked the lengths.
fn encode(params: &Params, digest: &[u8], salt: &[u8], em_bits: u32) -> Zeroizing<Vec<u8>> {
    let h_len = params.hash.output_len();
    let em_len = em_bits.div_ceil(8) as usize;
    let h = params.hash.digest_parts(&[&[0u8; 8], digest, salt]);
    let db_len = em_len - h_len - 1;
    let mut em = Zeroizing::new(vec![0u8; em_len]);
    // DB = PS || 0x01 || salt, then masked in place.
    em[db_len - salt.len() - 1] = 1;
    em[db_len - salt.len()..db_len].copy_from_slice(salt);
    params.mgf1_hash.mgf1_xor(&h, &mut em[..db_len]);
    em[0] &= 0xff >> (8 * em_len as u32 - em_bits);
    em[db_len..em_len - 1].copy_from_slice(&h);
    em[em_len - 1] = 0xbc;
    em
}

/// EMSA-PSS-VERIFY (RFC 8017 §9.1.2): the salt length if the encoding is
/// valid; `salt_len` `None` accepts any. Everything here is public, so it
/// may exit early.
fn verify_encoding(
    params: &Params,
    digest: &[u8],
    em: &[u8],
    em_bits: u32,
    salt_len: Option<usize>,
) -> Option<usize> {
    let h_len = params.hash.output_len();
    let em_len = em.len();
    if em_len < h_len + 2 || em[em_len - 1] != 0xbc {
        return None;
    }
    let top_bits = 8 * em_len as u32 - em_bits;
    let db_len = em_len - h_len - 1;
    let (masked_db, rest) = em.split_at(db_len);
    let h = &rest[..h_len];
    if masked_db[0] & !(0xff >> top_bits) != 0 {
        return None;
    }
    let mut db = masked_db.to_vec();
    params.mgf1_hash.mgf1_xor(h, &mut db);
    db[0] &= 0xff >> top_bits;
    // DB = 00…00 01 salt.
    let one = db.iter().position(|&b| b != 0)?;
    if db[one] != 1 {
        return None;
    }
    let salt = &db[one + 1..];
    if salt_len.is_some_and(|s| s != salt.len()) {
        return None;
    }
    let expected = params.hash.digest_parts(&[&[0u8; 8], digest, salt]);
    bool::from(expected.as_slice().ct_eq(h)).then_some(salt.len())
}

impl RsaPrivateKey {
    /// Signs `msg` with RSASSA-PSS, `hash` for the message and MGF1, and a
    /// random salt of `salt_len` from `rng` (which also feeds the blinding).
    /// SHA-1 is [`Error::WeakHash`]; an RSA-PSS key whose parameters differ
    /// is [`Error::KeyRestricted`].
    pub fn sign_pss<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        msg: &[u8],
        salt_len: SaltLength,
    ) -> Result<Vec<u8>, Error> {
        self.sign_pss_prehashed(rng, hash, &hash.digest(msg), salt_len)
    }

    /// Signs a message given by its `hash` digest with RSASSA-PSS.
    pub fn sign_pss_prehashed<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
        salt_len: SaltLength,
    ) -> Result<Vec<u8>, Error> {
        let params = Params::new(hash).salt_len(salt_len);
        self.sign_pss_prehashed_with(rng, &params, digest)
    }

    /// Signs a message given by its digest with RSASSA-PSS and any
    /// [`Params`] (an MGF1 hash of its own, for instance).
    pub fn sign_pss_prehashed_with<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        params: &Params,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.sign_pss_in(rng, params, digest, false)
    }

    /// What signing with `params` needs of the key, whatever the message:
    /// SHA-1 only if `allow_sha1`, at least 2048 bits, an RSA-PSS key's
    /// restrictions met, and a salt that fits. The salt length.
    pub(crate) fn pss_signing_preconditions(
        &self,
        params: &Params,
        allow_sha1: bool,
    ) -> Result<usize, Error> {
        if params.hash.is_sha1() && !allow_sha1 {
            return Err(Error::WeakHash);
        }
        self.check_private_size()?;
        let em_len = (self.public_key().bits() - 1).div_ceil(8) as usize;
        params.check_against(self.public_key().algorithm(), em_len)?;
        params.salt_len.for_signing(params.hash, em_len)
    }

    fn sign_pss_in<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        params: &Params,
        digest: &[u8],
        allow_sha1: bool,
    ) -> Result<Vec<u8>, Error> {
        let s_len = self.pss_signing_preconditions(params, allow_sha1)?;
        let m = self.pss_representative(rng, params, s_len, digest)?;
        let s = self.private_op(Some(rng), &m, Mode::default())?;
        Ok(self.public_key().i2osp(&s)?.to_vec())
    }

    /// The integer a PSS signature on `digest` raises to `d`: EMSA-PSS
    /// with a fresh salt of `s_len` bytes from `rng`, at `n`'s width.
    /// Errors: a digest of the wrong length, a generator that fails.
    pub(crate) fn pss_representative<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        params: &Params,
        s_len: usize,
        digest: &[u8],
    ) -> Result<SecretUint, Error> {
        params.hash.check_digest(digest)?;
        let em_bits = self.public_key().bits() - 1;
        let mut salt = Zeroizing::new(vec![0u8; s_len]);
        Draws::new(&mut *rng).fill(&mut salt)?;
        let em = encode(params, digest, &salt, em_bits);
        let nl = self.public_key().n().as_words().len();
        // EM has em_bits = modBits − 1 bits, so it is below n.
        SecretUint::from_be_slice(&em, nl as u32 * Limb::BITS)
            .ok()
            .ok_or(Error::OutOfRange)
    }
}

impl RsaPublicKey {
    /// Verifies an RSASSA-PSS signature on `msg` (`hash` for the message
    /// and MGF1). Errors: [`Error::InvalidLength`], [`Error::OutOfRange`],
    /// [`Error::InvalidSignature`], [`Error::KeyRestricted`].
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
        let params = Params::new(hash).salt_len(salt_len);
        self.verify_pss_prehashed_with(&params, digest, signature)
    }

    /// Verifies a PSS signature on a message given by its digest, with any
    /// [`Params`]; [`SaltLength::Auto`] reads the salt length from the
    /// signature, as OpenSSL does by default.
    pub fn verify_pss_prehashed_with(
        &self,
        params: &Params,
        digest: &[u8],
        signature: &[u8],
    ) -> Result<(), Error> {
        params.hash.check_digest(digest)?;
        let s = self.read_input(signature)?;
        let em_bits = self.bits() - 1;
        let em_len = em_bits.div_ceil(8) as usize;
        params.check_against(self.algorithm(), em_len)?;
        let m = self.i2osp(&self.public_op(&s))?;
        // When modBits − 1 is a multiple of 8, EM is one byte shorter than
        // the modulus and that leading byte must be 0.
        let (lead, em) = m.split_at(self.size() - em_len);
        let salt = match params.salt_len {
            SaltLength::Auto => None,
            other => Some(other.for_signing(params.hash, em_len)?),
        };
        let min_salt = match self.algorithm() {
            KeyAlgorithm::RsaPss(Some(r)) => r.min_salt_len,
            _ => 0,
        };
        match verify_encoding(params, digest, em, em_bits, salt) {
            Some(found) if lead.iter().all(|&b| b == 0) && found >= min_salt => Ok(()),
            _ => Err(Error::InvalidSignature),
        }
    }
}

/// A private key with the [`Params`] to sign with, for the `signature`
/// crate's traits: [`RandomizedSigner`](signature::RandomizedSigner),
/// [`RandomizedDigestSigner`](signature::RandomizedDigestSigner) (any
/// digest with an object identifier: it replaces the parameters' hash, and
/// MGF1's too when that was the same hash),
/// [`RandomizedPrehashSigner`](signature::hazmat::RandomizedPrehashSigner)
/// and, with `getrandom` (salt and blinding from the operating system),
/// [`Signer`](signature::Signer) and [`DigestSigner`](signature::DigestSigner).
///
/// It is made only for a key and parameters that can sign
/// ([`try_new`](Self::try_new)), so `Signer::sign` fails (and, as that
/// trait's method must, panics) only when the operating system's generator
/// does or a fault is detected; `try_sign` returns those as errors.
#[derive(Clone, Debug)]
pub struct SigningKey {
    key: RsaPrivateKey,
    params: Params,
    allow_sha1: bool,
}

impl SigningKey {
    /// `key`, signing with `hash` (for MGF1 too) and a salt as long as the
    /// digest, if they can sign (see [`try_with_params`](Self::try_with_params)).
    pub fn try_new(key: RsaPrivateKey, hash: HashAlg) -> Result<Self, Error> {
        Self::try_with_params(key, Params::new(hash))
    }

    /// `key`, signing with `hash` and the given salt length.
    pub fn try_with_salt_len(
        key: RsaPrivateKey,
        hash: HashAlg,
        salt_len: SaltLength,
    ) -> Result<Self, Error> {
        Self::try_with_params(key, Params::new(hash).salt_len(salt_len))
    }

    /// `key`, signing with `params`, if they can sign: otherwise
    /// [`Error::WeakKey`] (below 2048 bits, unless the key was opted in
    /// with [`RsaPrivateKey::allow_weak_key`]), [`Error::KeyRestricted`]
    /// (an RSA-PSS key restricted to other parameters), [`Error::WeakHash`]
    /// (SHA-1: see [`try_with_params_allowing_sha1`](Self::try_with_params_allowing_sha1))
    /// or [`Error::InvalidSaltLength`] (a salt that does not fit).
    pub fn try_with_params(key: RsaPrivateKey, params: Params) -> Result<Self, Error> {
        Self::checked(key, params, false)
    }

    /// [`try_with_params`](Self::try_with_params) with SHA-1 allowed as the
    /// message hash: only for systems that cannot verify anything else.
    pub fn try_with_params_allowing_sha1(
        key: RsaPrivateKey,
        params: Params,
    ) -> Result<Self, Error> {
        Self::checked(key, params, true)
    }

    fn checked(key: RsaPrivateKey, params: Params, allow_sha1: bool) -> Result<Self, Error> {
        key.pss_signing_preconditions(&params, allow_sha1)?;
        Ok(Self {
            key,
            params,
            allow_sha1,
        })
    }

    /// The parameters it signs with.
    pub fn params(&self) -> &Params {
        &self.params
    }

    fn hash(&self) -> HashAlg {
        self.params.hash
    }

    fn sign_prehashed<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        (hash, digest): (HashAlg, &[u8]),
    ) -> Result<Vec<u8>, Error> {
        let params = self.params.for_digest(hash);
        self.key.sign_pss_in(rng, &params, digest, self.allow_sha1)
    }
}

/// A public key with the [`Params`] to verify with, for the `signature`
/// crate's [`Verifier`](signature::Verifier),
/// [`DigestVerifier`](signature::DigestVerifier) (as for
/// [`SigningKey`], the digest replaces the hash, and MGF1's when that was
/// the same) and [`PrehashVerifier`](signature::hazmat::PrehashVerifier).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    key: RsaPublicKey,
    params: Params,
}

impl VerifyingKey {
    /// `key`, verifying with `hash` (for MGF1 too) and any salt length,
    /// read from the signature ([`SaltLength::Auto`]): what OpenSSL,
    /// RustCrypto's `rsa` and `numcrypt rsa verify` do by default (OpenSSL
    /// signs with the longest salt that fits unless told otherwise).
    pub fn new(key: RsaPublicKey, hash: HashAlg) -> Self {
        Self::with_params(key, Params::new(hash).salt_len(SaltLength::Auto))
    }

    /// `key`, verifying with `hash` and the given salt length.
    pub fn with_salt_len(key: RsaPublicKey, hash: HashAlg, salt_len: SaltLength) -> Self {
        Self::with_params(key, Params::new(hash).salt_len(salt_len))
    }

    /// `key`, verifying with `params`.
    pub fn with_params(key: RsaPublicKey, params: Params) -> Self {
        Self { key, params }
    }

    /// The public key.
    pub fn key(&self) -> &RsaPublicKey {
        &self.key
    }

    fn hash(&self) -> HashAlg {
        self.params.hash
    }

    fn verify_prehashed(&self, hash: HashAlg, digest: &[u8], sig: &[u8]) -> Result<(), Error> {
        let params = self.params.for_digest(hash);
        self.key.verify_pss_prehashed_with(&params, digest, sig)
    }
}

crate::signer::signing_key_traits!(SigningKey, VerifyingKey, |k| {
    VerifyingKey::with_params(k.key.public_key().clone(), k.params)
});
crate::signer::verifying_key_traits!(VerifyingKey);
