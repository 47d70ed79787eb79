//! numcrypt: number-theoretic public-key cryptography.
//!
//! This facade re-exports the member crates behind features of the same
//! name: [`limbs`] (constant-time multi-precision arithmetic), [`prime`]
//! (MR64 primality testing and prime generation) and [`field`] (prime
//! fields with pseudo-Mersenne and Montgomery reductions).
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "limbs")]
pub use numcrypt_limbs as limbs;

#[cfg(feature = "prime")]
pub use numcrypt_prime as prime;

#[cfg(feature = "field")]
pub use numcrypt_field as field;

// The README's examples are compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
