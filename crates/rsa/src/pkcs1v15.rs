//! RSASSA-PKCS1-v1_5 signatures (RFC 8017 §8.2) and RSAES-PKCS1-v1_5
//! decryption with implicit rejection (draft-irtf-cfrg-rsa-guidance), with
//! [`SigningKey`] and [`VerifyingKey`] for the `signature` crate's traits.

use alloc::vec;
use alloc::vec::Vec;

use hmac::{Hmac, KeyInit, Mac};
use numcrypt_limbs::{Limb, SecretUint};
use rand_core::TryCryptoRng;
use sha2::Sha256;
use subtle::{
    Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeGreater, ConstantTimeLess,
};
use zeroize::Zeroizing;

use crate::hash::RsaHash;
use crate::private::Mode;
use crate::rng::{Draws, MAX_DRAWS};
use crate::{Error, HashAlg, RsaPrivateKey, RsaPublicKey};

/// EMSA-PKCS1-v1_5 (RFC 8017 §9.2): `00 01 FF…FF 00 DigestInfo`, `k`
/// bytes, for the `digest` of a message under `hash`: the message
/// representative that RSASSA-PKCS1-v1_5 raises to `d` (public, so that
/// other signers, such as the shared-RSA parties, encode exactly as this
/// crate verifies). Errors: [`Error::InvalidLength`] for a digest of the
/// wrong length for `hash`, and
/// [`Error::MessageTooLong`] when `k` is too small.
pub fn encode(hash: HashAlg, digest: &[u8], k: usize) -> Result<Vec<u8>, Error> {
    hash.check_digest(digest)?;
    let t = hash.digest_info(digest)?;
    if k < t.len() + 11 {
        return Err(Error::MessageTooLong {
            max: k.saturating_sub(11),
        });
    }
    let mut em = vec![0xff; k];
    em[0] = 0;
    em[1] = 1;
    em[k - t.len() - 1] = 0;
    em[k - t.len()..].copy_from_slice(&t);
    Ok(em)
}

impl RsaPrivateKey {
    /// Signs `msg` with RSASSA-PKCS1-v1_5 and `hash` (the signature is
    /// deterministic; `rng` feeds the blinding). SHA-1 is
    /// [`Error::WeakHash`] (see [`SigningKey::try_new_allowing_sha1`]); an RSA-PSS key
    /// is [`Error::KeyRestricted`].
    pub fn sign_pkcs1v15<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.sign_pkcs1v15_prehashed(rng, hash, &hash.digest(msg))
    }

    /// Signs a message given by its `hash` digest.
    pub fn sign_pkcs1v15_prehashed<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.sign_pkcs1v15_in(Some(rng), hash, digest, Mode::default(), false)
    }

    /// What signing with `hash` needs of the key, whatever the message:
    /// SHA-1 only if `allow_sha1`, at least 2048 bits, not an RSA-PSS key.
    pub(crate) fn pkcs1v15_signing_preconditions(
        &self,
        hash: HashAlg,
        allow_sha1: bool,
    ) -> Result<(), Error> {
        if hash.is_sha1() && !allow_sha1 {
            return Err(Error::WeakHash);
        }
        self.check_private_size()?;
        self.public_key().check_not_pss_only()
    }

    /// [`sign_pkcs1v15`](Self::sign_pkcs1v15) without blinding (see
    /// [`bench_hooks`](crate::bench_hooks)).
    #[cfg(feature = "insecure-bench-hooks")]
    pub(crate) fn sign_pkcs1v15_unblinded(
        &self,
        hash: HashAlg,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.sign_pkcs1v15_in(
            None::<&mut crate::private::NoRng>,
            hash,
            &hash.digest(msg),
            Mode::unblinded(),
            false,
        )
    }

    fn sign_pkcs1v15_in<R: TryCryptoRng + ?Sized>(
        &self,
        rng: Option<&mut R>,
        hash: HashAlg,
        digest: &[u8],
        mode: Mode,
        allow_sha1: bool,
    ) -> Result<Vec<u8>, Error> {
        self.pkcs1v15_signing_preconditions(hash, allow_sha1)?;
        let m = self.pkcs1v15_representative(hash, digest)?;
        let s = self.private_op(rng, &m, mode)?;
        Ok(self.public_key().i2osp(&s)?.to_vec())
    }

    /// The integer a signature on `digest` raises to `d`: EMSA-PKCS1-v1_5
    /// at `n`'s width. Errors as for [`encode`].
    pub(crate) fn pkcs1v15_representative(
        &self,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<SecretUint, Error> {
        let em = encode(hash, digest, self.size())?;
        let nl = self.public_key().n().as_words().len();
        // EM starts 00 01, so it is below 2^(8k − 15) < n.
        SecretUint::from_be_slice(&em, nl as u32 * Limb::BITS)
            .ok()
            .ok_or(Error::OutOfRange)
    }

    /// Decrypts an RSAES-PKCS1-v1_5 ciphertext with implicit rejection
    /// (draft-irtf-cfrg-rsa-guidance, as OpenSSL 3.2 and later do): when
    /// the padding is wrong, the result is a pseudorandom message derived
    /// from the ciphertext and the key, not an error, so there is no
    /// padding error for an attacker to time (Bleichenbacher, Marvin).
    ///
    /// The padding check and the choice between the real and the synthetic
    /// message are constant time, with no early return; the synthetic
    /// message is computed on every call. Its length is drawn as the draft
    /// says, so the output length does not tell the cases apart either.
    /// Only public problems are errors: a ciphertext of the wrong length
    /// ([`Error::InvalidLength`]) or not below `n` ([`Error::OutOfRange`]).
    ///
    /// A protocol must still treat the output as unauthenticated (a wrong
    /// ciphertext, or the wrong key, gives a wrong message, not a failure).
    pub fn decrypt_pkcs1v15<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        self.check_private_size()?;
        self.public_key().check_not_pss_only()?;
        let c = self.public_key().read_input(ciphertext)?;
        let m = self.private_op(Some(rng), &c, Mode::default())?;
        let em = self.public_key().i2osp(&m)?;
        Ok(implicit_rejection_unpad(&em, &self.kdk_key, ciphertext))
    }

    /// Decrypts an RSAES-PKCS1-v1_5 ciphertext whose message has a length
    /// the protocol fixes (TLS 1.2's RSA key exchange, RFC 5246 §7.4.7.1:
    /// a 48-byte premaster secret), in constant time: the message if the
    /// padding is right and the message is exactly `expected_len` bytes,
    /// and otherwise `expected_len` bytes the attacker cannot tell from it.
    /// Nothing about the plaintext decides the output's length or an
    /// error, so a caller has no length to check (a check of its own would
    /// rebuild the padding oracle this avoids).
    ///
    /// The stand-in bytes are the draft-irtf-cfrg-rsa-guidance synthetic
    /// message cut to `expected_len` (the last `expected_len` bytes of its
    /// `PRF(KDK, "message")` stream, as
    /// [`decrypt_pkcs1v15`](Self::decrypt_pkcs1v15) uses for its own
    /// lengths), not fresh random bytes as RFC 5246 and OpenSSL's TLS
    /// padding mode draw: a pseudorandom function of the ciphertext under
    /// a key derived from `d` is as unpredictable to the attacker, needs no
    /// generator, and gives a repeated ciphertext the same answer, so
    /// repeating one tells nothing either. For TLS, overwrite the first two
    /// bytes with `ClientHello.client_version` rather than comparing them
    /// (RFC 5246's advice against a version oracle).
    ///
    /// Errors are public facts only: a ciphertext of the wrong length
    /// ([`Error::InvalidLength`]) or not below `n` ([`Error::OutOfRange`]),
    /// and an `expected_len` above `k − 11`, which no padding fits
    /// ([`Error::MessageTooLong`]).
    pub fn decrypt_pkcs1v15_fixed_len<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        ciphertext: &[u8],
        expected_len: usize,
    ) -> Result<Zeroizing<Vec<u8>>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        self.check_private_size()?;
        self.public_key().check_not_pss_only()?;
        let k = self.size();
        let max = k - 11;
        if expected_len > max {
            return Err(Error::MessageTooLong { max });
        }
        let c = self.public_key().read_input(ciphertext)?;
        let m = self.private_op(Some(rng), &c, Mode::default())?;
        let em = self.public_key().i2osp(&m)?;
        let (_, synthetic) = synthetic_stream(&self.kdk_key, ciphertext, k);
        let (good, zero_index) = parse_type2(&em);
        let index = k - expected_len;
        let good = good & (zero_index + 1).ct_eq(&(index as u32));
        Ok(select_tail(&em, &synthetic, index, good))
    }
}

/// The implicit-rejection depadding of draft-irtf-cfrg-rsa-guidance (the
/// algorithm OpenSSL 3.2's `ossl_rsa_padding_check_PKCS1_type_2` runs):
///
/// 1. `KDK = HMAC-SHA256(SHA256(d), C)`, the ciphertext at `k` bytes.
/// 2. The synthetic message: `k` bytes of `PRF(KDK, "message")`; its
///    length: the last of 128 candidates from `PRF(KDK, "length")` (16
///    bits each, masked to the bit length of `k − 10`) that is below
///    `k − 10`, and the message is the last that many bytes.
/// 3. The real message, if `EM = 00 02 PS 00 M` with at least 8 bytes of
///    non-zero `PS`; otherwise the synthetic one. Constant time.
pub(crate) fn implicit_rejection_unpad(
    em: &[u8],
    kdk_key: &[u8; 32],
    ciphertext: &[u8],
) -> Zeroizing<Vec<u8>> {
    let k = em.len();
    let (kdk, synthetic) = synthetic_stream(kdk_key, ciphertext, k);
    let candidates = prf(&kdk, b"length", 256);
    let max_sep_offset = (k - 10) as u32;
    let mut mask = max_sep_offset;
    for shift in [1, 2, 4, 8] {
        mask |= mask >> shift;
    }
    let mut synthetic_len = 0u32;
    for pair in candidates.chunks_exact(2) {
        let candidate = u32::from(u16::from_be_bytes([pair[0], pair[1]])) & mask;
        synthetic_len.conditional_assign(&candidate, candidate.ct_lt(&max_sep_offset));
    }
    let synthetic_index = k as u32 - synthetic_len;
    let (good, zero_index) = parse_type2(em);
    let msg_index = u32::conditional_select(&synthetic_index, &(zero_index + 1), good);
    // The output's length is public (and says nothing: see above).
    let msg_index = numcrypt_limbs::ct_audit::declassified(msg_index) as usize;
    select_tail(em, &synthetic, msg_index, good)
}

/// The draft's synthetic message stream for `ciphertext`: the key
/// `KDK = HMAC-SHA256(SHA256(d), C)` and `k` bytes of
/// `PRF(KDK, "message")`, whose last `L` bytes are the synthetic message
/// of length `L`.
fn synthetic_stream(
    kdk_key: &[u8; 32],
    ciphertext: &[u8],
    k: usize,
) -> (Zeroizing<[u8; 32]>, Zeroizing<Vec<u8>>) {
    let kdk = Zeroizing::new(hmac_sha256(kdk_key, &[ciphertext]));
    let stream = prf(&kdk, b"message", k);
    (kdk, stream)
}

/// Whether `em` is `00 02 PS 00 M` with at least 8 bytes of non-zero `PS`,
/// and the index of the zero after `PS` (0 if there is none), in constant
/// time.
fn parse_type2(em: &[u8]) -> (Choice, u32) {
    let mut good = em[0].ct_eq(&0) & em[1].ct_eq(&2);
    let mut found_zero = Choice::from(0);
    let mut zero_index = 0u32;
    for (i, &b) in em.iter().enumerate().skip(2) {
        let is_zero = b.ct_eq(&0);
        zero_index.conditional_assign(&(i as u32), !found_zero & is_zero);
        found_zero |= is_zero;
    }
    // PS has at least 8 bytes (and a zero was found: otherwise the index
    // is 0 and fails this too).
    good &= zero_index.ct_gt(&9);
    (good, zero_index)
}

/// `em[index..]` if `good`, else `synthetic[index..]`, reading both buffers
/// at every position so that the memory access does not tell which.
fn select_tail(em: &[u8], synthetic: &[u8], index: usize, good: Choice) -> Zeroizing<Vec<u8>> {
    let out = em[index..]
        .iter()
        .zip(&synthetic[index..])
        .map(|(&real, &fake)| u8::conditional_select(&fake, &real, good))
        .collect();
    Zeroizing::new(out)
}

/// Fills `out` with random non-zero bytes: the zeros are redrawn together,
/// in at most [`MAX_DRAWS`] rounds (a working generator needs a second
/// round with probability about `len/256`, a third with far less), so a
/// generator stuck on zero gives [`Error::Rng`] instead of an endless loop.
fn fill_nonzero<R: TryCryptoRng + ?Sized>(rng: &mut R, out: &mut [u8]) -> Result<(), Error> {
    let mut draws = Draws::new(rng);
    draws.fill(out)?;
    let mut spare = Zeroizing::new(vec![0u8; out.len()]);
    for _ in 0..MAX_DRAWS {
        let zeros = out.iter().filter(|&&b| b == 0).count();
        if zeros == 0 {
            return Ok(());
        }
        draws.fill(&mut spare[..zeros])?;
        for (b, &fresh) in out.iter_mut().filter(|b| **b == 0).zip(spare.iter()) {
            *b = fresh;
        }
    }
    Err(draws.give_up())
}

fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts keys of any length.
    let mut mac = match <Hmac<Sha256> as KeyInit>::new_from_slice(key) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}

/// The draft's PRF: `HMAC-SHA256(KDK, I || label || bitlen)` for
/// `I = 0, 1, …` (both 16-bit big-endian), concatenated and cut to `len`
/// bytes.
fn prf(kdk: &[u8; 32], label: &[u8], len: usize) -> Zeroizing<Vec<u8>> {
    let bits = ((len * 8) as u16).to_be_bytes();
    let mut out = Zeroizing::new(Vec::with_capacity(len + 32));
    let mut i: u16 = 0;
    while out.len() < len {
        out.extend_from_slice(&hmac_sha256(kdk, &[&i.to_be_bytes(), label, &bits]));
        i += 1;
    }
    out.truncate(len);
    out
}

impl RsaPublicKey {
    /// The longest message [`encrypt_pkcs1v15`](Self::encrypt_pkcs1v15)
    /// takes: `k − 11` bytes.
    pub fn pkcs1v15_max_message_len(&self) -> usize {
        self.size().saturating_sub(11)
    }

    /// Encrypts `msg` with RSAES-PKCS1-v1_5 (`00 02 PS 00 M`, `PS` at least
    /// 8 random non-zero bytes from `rng`): for peers that read nothing
    /// else, such as `openssl pkeyutl -decrypt` without options. New
    /// designs should use OAEP: PKCS#1 v1.5 decryption is the scheme of
    /// Bleichenbacher's and Marvin's attacks on every decryptor that is
    /// not implicit-rejection.
    ///
    /// Errors: [`Error::MessageTooLong`], [`Error::KeyTooSmall`] below 2048
    /// bits, [`Error::KeyRestricted`] for an RSA-PSS key.
    pub fn encrypt_pkcs1v15<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.check_encryption_size()?;
        self.check_not_pss_only()?;
        let k = self.size();
        let max = self.pkcs1v15_max_message_len();
        if msg.len() > max {
            return Err(Error::MessageTooLong { max });
        }
        let mut em = Zeroizing::new(vec![0u8; k]);
        em[1] = 2;
        let ps_end = k - msg.len() - 1;
        fill_nonzero(rng, &mut em[2..ps_end])?;
        em[ps_end + 1..].copy_from_slice(msg);
        let nl = self.n().as_words().len();
        // EM starts with a zero byte, so it is below n.
        let m = SecretUint::from_be_slice(&em, nl as u32 * Limb::BITS)
            .ok()
            .ok_or(Error::OutOfRange)?;
        Ok(self.i2osp(&self.public_op(&m))?.to_vec())
    }

    /// Verifies an RSASSA-PKCS1-v1_5 signature on `msg` with `hash`.
    ///
    /// The expected encoding is built and compared whole (no parsing of the
    /// signature's padding, so no BER leniency and no room for Bleichenbacher's
    /// 2006 forgery). Errors: [`Error::InvalidLength`] (the signature is not
    /// [`size`](Self::size) bytes), [`Error::OutOfRange`] (not below `n`),
    /// [`Error::InvalidSignature`].
    pub fn verify_pkcs1v15(
        &self,
        hash: HashAlg,
        msg: &[u8],
        signature: &[u8],
    ) -> Result<(), Error> {
        self.verify_pkcs1v15_prehashed(hash, &hash.digest(msg), signature)
    }

    /// Verifies a signature on a message given by its `hash` digest.
    pub fn verify_pkcs1v15_prehashed(
        &self,
        hash: HashAlg,
        digest: &[u8],
        signature: &[u8],
    ) -> Result<(), Error> {
        self.check_not_pss_only()?;
        let k = self.size();
        let expected = encode(hash, digest, k)?;
        let s = self.read_input(signature)?;
        let em = self.i2osp(&self.public_op(&s))?;
        if bool::from(em.as_slice().ct_eq(&expected)) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// A private key with the hash to sign with, for the `signature` crate's
/// [`RandomizedSigner`](signature::RandomizedSigner),
/// [`RandomizedDigestSigner`](signature::RandomizedDigestSigner) (any
/// digest with an object identifier),
/// [`RandomizedPrehashSigner`](signature::hazmat::RandomizedPrehashSigner)
/// and, with the `getrandom` feature (blinding from the operating system),
/// [`Signer`](signature::Signer) and [`DigestSigner`](signature::DigestSigner).
///
/// It is made only for a key and hash that can sign
/// ([`try_new`](Self::try_new)), so `Signer::sign` fails (and, as that
/// trait's method must, panics) only when the operating system's generator
/// does or a fault is detected; `try_sign` returns those as errors.
///
/// ```
/// use numcrypt_rsa::{HashAlg, KeyGen, pkcs1v15};
/// use signature::{Keypair, RandomizedSigner, Verifier};
/// # use rand_core::SeedableRng;
/// # let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(2);
/// let signing_key = pkcs1v15::SigningKey::try_new(KeyGen::new(2048).generate(&mut rng)?, HashAlg::Sha256)?;
/// let signature = signing_key.sign_with_rng(&mut rng, b"message");
/// signing_key.verifying_key().verify(b"message", &signature).expect("valid");
/// # Ok::<(), numcrypt_rsa::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SigningKey {
    key: RsaPrivateKey,
    hash: HashAlg,
    allow_sha1: bool,
}

impl SigningKey {
    /// `key`, signing with `hash`, if they can sign: otherwise
    /// [`Error::WeakKey`] (below 2048 bits, unless the key was opted in
    /// with [`RsaPrivateKey::allow_weak_key`]), [`Error::KeyRestricted`]
    /// (an RSA-PSS key), [`Error::WeakHash`] (SHA-1: see
    /// [`try_new_allowing_sha1`](Self::try_new_allowing_sha1)) or
    /// [`Error::MessageTooLong`] (a hash too long for the key).
    pub fn try_new(key: RsaPrivateKey, hash: HashAlg) -> Result<Self, Error> {
        Self::checked(key, hash, false)
    }

    /// [`try_new`](Self::try_new) with SHA-1 allowed as the message hash:
    /// only for systems that cannot verify anything else.
    pub fn try_new_allowing_sha1(key: RsaPrivateKey, hash: HashAlg) -> Result<Self, Error> {
        Self::checked(key, hash, true)
    }

    fn checked(key: RsaPrivateKey, hash: HashAlg, allow_sha1: bool) -> Result<Self, Error> {
        key.pkcs1v15_signing_preconditions(hash, allow_sha1)?;
        encode(hash, &vec![0; hash.output_len()], key.size())?;
        Ok(Self {
            key,
            hash,
            allow_sha1,
        })
    }

    fn hash(&self) -> HashAlg {
        self.hash
    }

    fn sign_prehashed<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        (hash, digest): (HashAlg, &[u8]),
    ) -> Result<Vec<u8>, Error> {
        self.key
            .sign_pkcs1v15_in(Some(rng), hash, digest, Mode::default(), self.allow_sha1)
    }
}

/// A public key with the hash to verify with, for the `signature` crate's
/// [`Verifier`](signature::Verifier),
/// [`DigestVerifier`](signature::DigestVerifier) (any digest with an
/// object identifier) and [`PrehashVerifier`](signature::hazmat::PrehashVerifier).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    key: RsaPublicKey,
    hash: HashAlg,
}

impl VerifyingKey {
    /// `key`, verifying with `hash`.
    pub fn new(key: RsaPublicKey, hash: HashAlg) -> Self {
        Self { key, hash }
    }

    /// The public key.
    pub fn key(&self) -> &RsaPublicKey {
        &self.key
    }

    fn hash(&self) -> HashAlg {
        self.hash
    }

    fn verify_prehashed(&self, hash: HashAlg, digest: &[u8], sig: &[u8]) -> Result<(), Error> {
        self.key.verify_pkcs1v15_prehashed(hash, digest, sig)
    }
}

crate::signer::signing_key_traits!(SigningKey, VerifyingKey, |k| {
    VerifyingKey::new(k.key.public_key().clone(), k.hash)
});
crate::signer::verifying_key_traits!(VerifyingKey);
