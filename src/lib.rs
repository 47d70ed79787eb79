//! numcrypt: number-theoretic public-key cryptography.
//!
//! This facade re-exports the member crates behind features of the same
//! name: [`limbs`] (constant-time multi-precision arithmetic), [`prime`]
//! (MR64 primality testing and prime generation), [`field`] (prime
//! fields with pseudo-Mersenne and Montgomery reductions), [`rsa`]
//! (RSA: keys, PKCS#1 v1.5 and PSS signatures, OAEP), [`dsa`] (FIPS
//! 186-4 DSA) and [`elgamal`] (ElGamal encryption, KEM and signatures);
//! with the `shared-rsa` feature (not a default: it brings a TLS stack),
//! also `shared_rsa` (Boneh–Franklin shared RSA key generation and
//! threshold signing).
//!
//! The crates are `no_std`; the default feature `std` lets the
//! exponentiations race and calibrate their backends on the machine that
//! runs them (see [`limbs::backend`]). Without it each size runs the first
//! backend of the CPU's measured row, or a fixed guess on other CPUs.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "limbs")]
pub use numcrypt_limbs as limbs;

#[cfg(feature = "prime")]
pub use numcrypt_prime as prime;

#[cfg(feature = "field")]
pub use numcrypt_field as field;

#[cfg(feature = "rsa")]
pub use numcrypt_rsa as rsa;

#[cfg(feature = "dsa")]
pub use numcrypt_dsa as dsa;

#[cfg(feature = "elgamal")]
pub use numcrypt_elgamal as elgamal;

#[cfg(feature = "shared-rsa")]
pub use numcrypt_shared_rsa as shared_rsa;

/// The RustCrypto crates whose traits numcrypt's keys and signatures
/// implement (`signature`'s signers and verifiers; `pkcs8`, `spki` and
/// `pkcs1`'s key codecs), at the versions they implement.
#[cfg(feature = "rsa")]
pub use numcrypt_rsa::{der, pkcs1, pkcs8, signature, spki};

/// Random number generators.
///
/// Make keys, signatures and ciphertexts with [`OsRng`](crate::rand::OsRng),
/// the operating system's generator; seeded generators (such as
/// `rand_chacha`'s) belong in tests, where the same seed must give the
/// same key.
#[cfg(feature = "getrandom")]
pub mod rand {
    pub use getrandom::SysRng;
    pub use rand_core::{CryptoRng, TryCryptoRng, UnwrapErr};

    /// The operating system's generator (getrandom's [`SysRng`]), as the
    /// fallible [`TryCryptoRng`] it is: numcrypt's RSA takes it as it is,
    /// and if the operating system cannot supply randomness the operation
    /// returns `rsa::Error::Rng` rather than panicking. The functions that
    /// take an infallible [`CryptoRng`] (prime generation, DSA, ElGamal,
    /// shared RSA) take `UnwrapErr(OsRng)`, which panics instead.
    pub use getrandom::SysRng as OsRng;
}

// The README's examples are compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
