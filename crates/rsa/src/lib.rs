//! RSA on `numcrypt-limbs` and `numcrypt-prime`: key generation, the
//! private operation, PKCS#1 v1.5 and PSS signatures, OAEP, PKCS#1 v1.5
//! decryption with implicit rejection, and PKCS#1/PKCS#8/SPKI key formats.
//!
//! ```
//! use numcrypt_rsa::{HashAlg, KeyGen, RsaPrivateKey, RsaPublicKey, pss::SaltLength};
//! # use rand_core::SeedableRng;
//! # let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1); // any CryptoRng
//!
//! let key = KeyGen::new(2048).generate(&mut rng)?;
//! let public = key.public_key();
//!
//! let sig = key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"hello")?;
//! public.verify_pkcs1v15(HashAlg::Sha256, b"hello", &sig)?;
//!
//! let sig = key.sign_pss(&mut rng, HashAlg::Sha384, b"hello", SaltLength::Digest)?;
//! public.verify_pss(HashAlg::Sha384, b"hello", &sig, SaltLength::Digest)?;
//!
//! let ct = public.encrypt_oaep(&mut rng, HashAlg::Sha256, b"label", b"secret")?;
//! assert_eq!(&key.decrypt_oaep(&mut rng, HashAlg::Sha256, b"label", &ct)?[..], b"secret");
//!
//! // PKCS#8 PEM, as `openssl genpkey` writes; SPKI for the public key.
//! let pem = key.to_pkcs8_pem()?;
//! assert_eq!(RsaPrivateKey::from_pem(&pem)?, key);
//! let spki = public.to_public_key_pem()?;
//! assert_eq!(&RsaPublicKey::from_pem(&spki)?, public);
//! # Ok::<(), numcrypt_rsa::Error>(())
//! ```
//!
//! # Sizes
//! Public keys of [`MIN_MODULUS_BITS`] (1024) to [`MAX_MODULUS_BITS`]
//! (16384) bits are read and verify; signing, decryption and encryption
//! need at least [`MIN_PRIVATE_MODULUS_BITS`] (2048). Any odd `e >= 3` is
//! read; generation uses `e = 65537` unless told otherwise (FIPS 186-5:
//! `2^16 < e`).
//!
//! # The private operation
//! CRT with Garner's recombination: two constant-time exponentiations
//! modulo `p` and `q` (the limbs crate's fixed-window `pow`, on its AVX-512
//! IFMA backend where the CPU has one), the reductions modulo `p` and `q`
//! by Montgomery reduction rather than division, and constant-time
//! arithmetic throughout. Around it:
//! - **Blinding** of the base by `r^e` ([`blinding`](crate#blinding)),
//!   undone by `r^-1` afterwards.
//! - **The check**: the result `s` leaves the function only if
//!   `s^e mod n` equals the input (variable time in the public `e` only).
//!   A fault in one CRT half would otherwise hand out a factor of `n` as
//!   `gcd(s^e − m, n)`; the operation fails with
//!   [`Error::FaultDetected`] instead.
//!
//! # Blinding
//! Each key keeps a pair `(r^e, r^-1)` and squares both halves after every
//! use, drawing a fresh `r` from the caller's generator every 32 uses
//! (OpenSSL's scheme): a fresh pair costs about as much as a signature, a
//! squared one two Montgomery squarings. The pair sits behind a mutex held
//! only for the copy and the squarings.
//! What blinding adds to constant-time code: the arithmetic never sees the
//! attacker's input, so value-dependent power or electromagnetic leakage
//! says nothing about it. What it does not: it does not hide `d`, and the
//! 31 squarings after a refresh are predictable from the refreshed `r`.
//!
//! # Implicit rejection
//! [`RsaPrivateKey::decrypt_pkcs1v15`] never reports a padding error: as in
//! draft-irtf-cfrg-rsa-guidance (and OpenSSL 3.2), a ciphertext with bad
//! padding decrypts to a pseudorandom message derived from the ciphertext
//! with HMAC-SHA256 under a key derived from `d`, chosen in constant time,
//! so a Bleichenbacher or Marvin attacker has no oracle to time.
//! [`RsaPublicKey::encrypt_pkcs1v15`] exists for peers that read nothing
//! else; new designs should use OAEP.
//!
//! # Hashes
//! [`HashAlg`] names SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512, and
//! [`HashAlg::of`] takes any other `Digest` with an object identifier
//! (`sha3::Sha3_256`, …); the `signature` traits' `DigestSigner` and
//! `DigestVerifier` take any such digest. SHA-1 verifies and serves OAEP
//! and MGF1, but signs only when asked for
//! ([`pkcs1v15::SigningKey::allow_sha1`]). PSS and OAEP take their MGF1
//! hash separately ([`pss::Params`], [`oaep::Params`]).
//!
//! # RSA-PSS keys
//! Keys whose algorithm is `id-RSASSA-PSS` (`openssl genpkey -algorithm
//! RSA-PSS`) are read and written with their parameters
//! ([`KeyAlgorithm::RsaPss`]); they sign and verify PSS only, with the
//! parameters' hashes and at least their salt length
//! ([`Error::KeyRestricted`] otherwise).
//!
//! # Constant time and errors
//! Everything that touches a secret is constant time; signature
//! verification and the checks on public inputs (lengths, `x < n`) may
//! not be. Bad input is a typed [`Error`] and leaves nothing half-written.
//! Every secret is zeroized on drop, including the Montgomery parameters
//! modulo `p` and `q`; `Debug` prints only public values.
//!
//! # Features
//! - `std` (default): multi-threaded key generation
//!   ([`KeyGen::threads`]). Without it the crate is `no_std` with `alloc`.
//! - `getrandom` (default): the `signature` crate's `Signer`, whose
//!   blinding and salts come from the operating system, since `Signer`
//!   takes no generator.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod blinding;
mod encoding;
mod error;
mod hash;
mod keygen;
pub mod oaep;
pub mod pkcs1v15;
mod prime_modulus;
mod private;
pub mod pss;
mod public;
mod signer;

pub use error::Error;
pub use keygen::{DEFAULT_PUBLIC_EXPONENT, KeyGen};
pub use numcrypt_common::hash::{HashAlg, Hasher, OidDigest, OtherHash};
pub use private::RsaPrivateKey;
pub use public::{KeyAlgorithm, RsaPublicKey};
pub use signer::Signature;

pub use numcrypt_limbs::BoxedUint;
pub use {der, pkcs1, pkcs8, signature, spki};

/// Operations the library never offers, for benchmarks only (feature
/// `insecure-bench-hooks`, which nothing in production should enable).
#[cfg(feature = "insecure-bench-hooks")]
pub mod bench_hooks {
    use alloc::vec::Vec;

    use rand_core::CryptoRng;

    use crate::{Error, HashAlg, RsaPrivateKey};

    /// A PKCS#1 v1.5 signature made without blinding, to measure what
    /// blinding costs. Still constant time and checked, but without the
    /// defence in depth that blinding gives.
    pub fn sign_pkcs1v15_unblinded(
        key: &RsaPrivateKey,
        hash: HashAlg,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        key.sign_pkcs1v15_unblinded(hash, msg)
    }

    /// Draws a fresh blinding pair into the key's state (as happens every
    /// 32 operations), to time a refresh.
    pub fn refresh_blinding<R: CryptoRng + ?Sized>(
        key: &RsaPrivateKey,
        rng: &mut R,
    ) -> Result<(), Error> {
        key.refresh_blinding(rng)
    }
}

/// The smallest modulus read: 1024 bits (public operations only).
pub const MIN_MODULUS_BITS: u32 = 1024;

/// The smallest modulus for signing, decryption and encryption: 2048 bits.
pub const MIN_PRIVATE_MODULUS_BITS: u32 = 2048;

/// The largest modulus: 16384 bits.
pub const MAX_MODULUS_BITS: u32 = 16384;

#[cfg(test)]
mod tests;
