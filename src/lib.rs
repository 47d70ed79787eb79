//! numcrypt: number-theoretic public-key cryptography.
//!
//! This facade re-exports the member crates behind features of the same
//! name: [`limbs`] (constant-time multi-precision arithmetic) and [`prime`]
//! (MR64 primality testing and prime generation).
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "limbs")]
pub use numcrypt_limbs as limbs;

#[cfg(feature = "prime")]
pub use numcrypt_prime as prime;

// The README's examples are compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
