//! Primality testing and prime generation on `numcrypt-limbs`, for every
//! width it offers ([`Uint<LIMBS>`](numcrypt_limbs::Uint) and, with the
//! `alloc` feature, [`BoxedUint`](numcrypt_limbs::BoxedUint)).
//!
//! - [`is_prime`]: MR64, the misuse-resistant test of Massimo and Paterson
//!   ("A Performant, Misuse-Resistant API for Primality Testing", CCS 2020,
//!   the design of OpenSSL 3's `BN_check_prime`): trial division by the
//!   first `r` odd primes (`r` from their Table 4), then 64 Miller–Rabin
//!   rounds. One input, one answer, no parameters. Constant time, so it is
//!   safe on secret numbers; [`is_prime_vartime`] gives the same answers
//!   faster for public ones, and [`is_prime_with_rng`] draws its bases from
//!   a caller's generator. Exact below `2^64`.
//! - [`is_prime_bpsw_vartime`]: Baillie–PSW, with its honest caveat (no
//!   known counterexample, no proven bound).
//! - [`generate_prime`], [`generate_safe_prime`],
//!   [`generate_strong_prime`] (Gordon) and [`generate_rsa_primes_fips`]
//!   (FIPS 186-5 B.3.3): constant-time generation, with progress callbacks
//!   (`*_with_progress`).
//!
//! # Where the bases come from
//! [`is_prime`] derives its 64 bases from `n` itself: base `i` is
//! `X_i mod n` (0 mapped to 1), where `X_i` is `2·64k` bits of SHA-256 in
//! counter mode over a fixed domain string and the `k` significant limbs of
//! `n`. It needs no random number generator, cannot be handed a bad one,
//! and answers the same way every time (for any width holding `n`).
//!
//! Why that keeps the `2^-128` bound against an adversary who chooses `n`:
//! for an odd composite `n > 9`, at most `φ(n)/4` of the residues modulo `n`
//! are strong liars (Rabin 1980), and 1 and `n − 1` are among them. A base
//! drawn uniformly from `[0, n)` with 0 replaced by 1 is a liar with
//! probability at most `(φ(n)/4 + 1)/n <= 1/4` once trial division has
//! removed `n < 16`, and `X_i mod n` is within `2^-128` of that
//! distribution (`X_i < 2^(128k)` and `n < 2^(64k)`, so the statistical
//! distance is below `2^-64k`, and `k >= 2` here). Modelling SHA-256 as a random oracle, each `n` the adversary
//! tries has its own independent bases, so a given composite passes with
//! probability at most `4^-64 = 2^-128` (plus `64·2^-128` for the
//! reduction), and an adversary who evaluates the hash `q` times succeeds
//! with probability at most about `q·2^-128`: finding a composite that
//! passes is a `2^128` search. This is the paper's bound with the
//! randomness moved from the verifier's generator into the hash; what is
//! lost is only that the bound is per hash query rather than per call.
//! Generation uses the same derivation under a secret random key drawn
//! from the caller's generator, so its bases are unpredictable as well.
//!
//! # Constant time
//! Functions are constant time in the values of their inputs unless their
//! names end in `_vartime`; sizes (limb counts, requested bit lengths) are
//! public. The exceptions, all documented at the functions: values below
//! `2^64` take exact variable-time paths; a Miller–Rabin round always does
//! at least 32 squarings after its exponentiation, so its time reveals
//! `s = v2(n − 1)` only when `s > 32`; and a search reveals how many
//! candidates it examined and tested, which is how far the prime lies from
//! a random starting point.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod bpsw;
mod error;
mod int;
mod mr;
mod primality;
mod rsa;
mod small;
mod table;

pub use bpsw::is_prime_bpsw_vartime;
pub use error::Error;
pub use int::PrimeInt;
pub use primality::{is_prime, is_prime_vartime, is_prime_with_rng};
pub use rsa::{
    MIN_STRONG_PRIME_BITS, generate_rsa_primes_fips, generate_strong_prime,
    generate_strong_prime_with_progress,
};
mod generate;
mod sieve;

#[doc(hidden)]
pub use generate::set_final_rounds_for_benchmark;
pub use generate::{
    MIN_PRIME_BITS, MIN_SAFE_PRIME_BITS, Progress, ProgressFn, generate_prime,
    generate_prime_with_progress, generate_safe_prime, generate_safe_prime_with_progress,
};
#[doc(hidden)]
pub use sieve::set_sieve_primes_for_tuning;
