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
//! need at least [`MIN_PRIVATE_MODULUS_BITS`] (2048), except that a
//! private key opted in with [`RsaPrivateKey::allow_weak_key`] signs and
//! decrypts from 1024 bits ([`Error::WeakKey`] without it). Any odd
//! `e >= 3` of at most [`MAX_PUBLIC_EXPONENT_BITS`] (33) bits is read,
//! checked before any arithmetic; generation uses `e = 65537` unless told
//! otherwise (FIPS 186-5: `2^16 < e`). An imported private key's parts are checked
//! against `n`'s size (`p`, `q`, `d` no wider than `n`, `dP` and `qInv`
//! than `p`, `dQ` than `q`, `p·q = n` at full width) before any arithmetic
//! on them, so a hostile file costs no more than its reading.
//!
//! # Multi-prime keys
//! Keys whose `n` is the product of more than two primes (RFC 8017 §3.2,
//! `openssl genpkey -pkeyopt rsa_keygen_primes:3`) are read and written in
//! PKCS#1 and PKCS#8 ([`OtherPrimeInfo`],
//! [`RsaPrivateKey::from_multi_prime_components`]), with at most
//! [`max_primes`] primes for their size, OpenSSL's limits
//! ([`Error::TooManyPrimes`]); every further prime and its CRT values get
//! the checks `p` and `q` get. Their private operation is the one below,
//! over every prime. Generation makes two-prime keys.
//!
//! # The private operation
//! In OpenSSL's order: blinding modulo `n`, CRT with Garner's
//! recombination on the blinded value, the fault check on the blinded
//! values, unblinding modulo `n`. The two constant-time exponentiations
//! modulo `p` and `q` run as one interleaved pass (the limbs crate's
//! fixed-window `pow`, on its AVX-512 IFMA backend where the CPU has one),
//! a multi-prime key's further primes two by two the same way (RFC 8017's
//! recombination adding each after Garner's step), the reductions modulo
//! the primes by Montgomery arithmetic rather than division, constant-time
//! arithmetic throughout.
//! - **Blinding** ([`blinding`](crate#blinding)): `x' = x·r^e mod n`
//!   before anything else, `m = m'·r^-1 mod n` after everything else.
//! - **The check**: the result leaves the function only if `m'^e ≡ x'`
//!   (variable time in the public `e` only). A fault in one CRT half would
//!   otherwise hand out a factor of `n` as `gcd(s^e − m, n)`; the operation
//!   fails with [`Error::FaultDetected`] instead.
//!
//! # Blinding
//! What it covers: everything between the two multiplications modulo the
//! public `n` sees `x' = x·r^e` (or values derived from it), never the
//! attacker's `x`: the reductions of `x'` modulo the secret primes, both
//! exponentiations, Garner's recombination of the halves and the check.
//! Those are where value-dependent power or electromagnetic leakage would
//! otherwise correlate with a chosen input (den Boer, Lemke and Wicke,
//! CHES 2002); constant time already rules out timing. What it does not
//! cover: `d` (the exponents are not blinded), and the pairs after a
//! refresh, which are the refreshed one squared: whoever learns one `r`
//! knows the next 31. Each key keeps a pair `(r^e, r^-1)` modulo `n` and
//! squares both after every use, drawing a fresh `r` from the caller's
//! generator every 32 uses (OpenSSL's scheme); the pair sits behind a
//! mutex (the standard library's with `std`) held only for the copy and
//! the squarings.
//!
//! # Generators
//! Every function that draws takes a `rand_core::TryCryptoRng` (any
//! `CryptoRng` is one), so the operating system's generator
//! (`getrandom::SysRng`) can be passed as it is. A generator that fails,
//! or that is stuck on one value (the same 64-bit word four times
//! running), ends the operation in [`Error::Rng`]; every loop that draws
//! gives up after a bounded number of tries. Nothing panics or hangs.
//!
//! # Implicit rejection
//! [`RsaPrivateKey::decrypt_pkcs1v15`] never reports a padding error: as in
//! draft-irtf-cfrg-rsa-guidance (and OpenSSL 3.2), a ciphertext with bad
//! padding decrypts to a pseudorandom message derived from the ciphertext
//! with HMAC-SHA256 under a key derived from `d`, chosen in constant time,
//! so a Bleichenbacher or Marvin attacker has no oracle to time.
//! [`RsaPrivateKey::decrypt_pkcs1v15_fixed_len`] is the TLS 1.2 shape: the
//! length is the caller's, and a bad ciphertext gives that many bytes of
//! the same synthetic stream.
//! [`RsaPublicKey::encrypt_pkcs1v15`] exists for peers that read nothing
//! else; new designs should use OAEP.
//!
//! # Hashes
//! [`HashAlg`] names SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512, and
//! [`HashAlg::of`] takes any other `Digest` with an object identifier
//! (`sha3::Sha3_256`, …); the `signature` traits' `DigestSigner` and
//! `DigestVerifier` take any such digest. SHA-1 verifies and serves OAEP
//! and MGF1, but signs only when asked for
//! ([`pkcs1v15::SigningKey::try_new_allowing_sha1`]). PSS and OAEP take their MGF1
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
//!   ([`KeyGen::threads`]), and the standard library's mutex for the
//!   blinding state (a spin lock without it). Without it the crate is
//!   `no_std` with `alloc`.
//! - `encryption` (default): password-protected PKCS#8 keys
//!   ([`RsaPrivateKey::from_pkcs8_encrypted_pem`]), their key derivation
//!   bounded by [`numcrypt_common::encrypted_key`]'s limits.
//! - `getrandom` (default): the `signature` crate's `Signer`, whose
//!   blinding and salts come from the operating system, since `Signer`
//!   takes no generator.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

mod batch;
#[cfg(feature = "std")]
pub mod batch_signer;
mod blinding;
mod encoding;
mod error;
mod hash;
mod keygen;
mod multi_prime;
pub mod oaep;
pub mod pkcs1v15;
mod prime_modulus;
mod private;
pub mod pss;
mod public;
mod rng;
mod signer;

pub use batch::BatchResults;
pub use error::Error;
pub use keygen::{DEFAULT_PUBLIC_EXPONENT, KeyGen};
pub use multi_prime::{MAX_PRIMES, OtherPrimeInfo, max_primes};
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

    use rand_core::TryCryptoRng;

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
    pub fn refresh_blinding<R: TryCryptoRng + ?Sized>(
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

/// The longest public exponent read or generated: 33 bits (`e < 2^33`),
/// the cap of BoringSSL, AWS-LC and RustCrypto's `rsa`. It bounds what a
/// key from someone else costs to use: a verification takes at most 32
/// squarings and 32 multiplications modulo `n`, where a 16383-bit `e`
/// would make each one about a thousand times dearer than `e = 65537`.
/// Keys in use have `e = 65537` (or 3, 17, …); BoringSSL and AWS-LC refuse
/// larger ones already, so nothing interoperable is lost. OpenSSL's rule
/// (64 bits, above 3072-bit moduli only) leaves a 2048-bit key's `e` free
/// up to 2047 bits.
pub const MAX_PUBLIC_EXPONENT_BITS: u32 = 33;

#[cfg(test)]
mod tests;
