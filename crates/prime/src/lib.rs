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
//! - [`PrimeGen`]: constant-time generation of primes, safe primes, strong
//!   primes (Gordon) and FIPS 186-5 B.3.3's RSA primes, with a progress
//!   callback and a cancellation flag; with the `std` feature, on several
//!   threads, which return the same primes: see
//!   [Multi-threaded search](#multi-threaded-search).
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
//!
//! # Multi-threaded search
//! With the `std` feature, [`PrimeGen::threads`] runs a search on
//! `threads` workers, the calling thread included (`None`: as many as
//! `std::thread::available_parallelism` reports; if the system refuses to
//! start a thread, the search runs on those it started).
//!
//! **It returns the same prime as the single-threaded search for the
//! same generator state**, so the distribution of results is exactly that
//! of a single-threaded search. The threads split that search's own work
//! instead of running searches of their own. The caller's generator is used
//! as the single-threaded function uses it, on the calling thread (a key
//! for the final bases, then a random start), and the candidates
//! `start, start + 2, …` are cut into windows (128 candidates; 512 for safe
//! primes) that the workers take in increasing order. A worker that finds a
//! prime in window `w` publishes `w`; the others drop windows after `w` but
//! finish those before it, whose primes would come first. The answer is the
//! first prime of the first window that holds one: the single-threaded
//! answer. Gordon's four searches are split the same way. FIPS 186-5's fresh
//! random candidates are drawn and trial-divided in order on the calling
//! thread, in batches that hold 48 survivors, which are tested in parallel,
//! eight at a time; the first acceptable one in drawing order
//! wins, and the rest of its batch starts the search for `q`, as the
//! single-threaded order would (the generator ends further advanced, by as
//! many candidates as the last batch held beyond `q`: that number depends
//! on how many primes the trial division uses, which depends on the CPU,
//! so a generator's later draws may differ between CPUs; the primes drawn
//! do not).
//!
//! The alternative, independent searches from per-thread starts with the
//! first to finish winning, changes the distribution: a search that starts
//! close below a prime finishes first, so the winner leans towards primes
//! that follow short gaps, unlike one search (which favours primes after
//! long gaps, the usual bias of incremental search). Splitting one search
//! avoids the question.
//!
//! The 64 rounds on a final candidate (one that passed the sieve and a
//! Fermat test to base 2: almost always the prime) run on every thread: helpers take
//! rounds while the other workers wait at their next survivor. Round `i`
//! uses the `i`-th bases of the candidate's base stream whichever thread
//! runs it, and the waiting workers drop nothing, so this too leaves the
//! result unchanged.
//!
//! What the threads change is only the time taken and the work done beyond
//! the result: a worker busy with a later window stops at its next
//! survivor, and a final test on a later window at its next round. The
//! progress callback runs on the calling thread only (it need not be
//! `Send`) and sees the counts of all workers; when it asks to stop, every
//! worker stops at that same granularity and the search fails with
//! [`Error::Cancelled`]. The split pays most when a search spans many
//! windows (safe primes, large primes); a 1024-bit prime is usually found
//! within four windows of 128, whose survivors one worker tests in order.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod bpsw;
mod builder;
mod control;
mod error;
mod generate;
mod int;
mod mr;
#[cfg(feature = "std")]
mod parallel;
mod primality;
mod rsa;
mod sieve;
mod small;
mod sqrt2;
mod table;

pub use bpsw::is_prime_bpsw_vartime;
pub use builder::{PrimeGen, PrimeKind, RsaPrimes};
pub use control::{Progress, ProgressFn};
pub use error::Error;
pub use generate::{MIN_PRIME_BITS, MIN_SAFE_PRIME_BITS};
pub use int::PrimeInt;
#[cfg(feature = "std")]
pub use parallel::max_threads;
pub use primality::{is_prime, is_prime_vartime, is_prime_with_rng};
pub use rsa::MIN_STRONG_PRIME_BITS;

/// The largest prime a search makes at run-time widths (`BoxedUint`):
/// 16384 bits, as the largest RSA modulus (a larger request is
/// [`Error::BitsTooLarge`] before any work).
pub const MAX_PRIME_BITS: u32 = 16384;

/// Worker threads allowed per available core ([`max_threads`]).
pub const THREADS_PER_CORE: usize = 4;

/// Settings the library never uses, for benchmarks and tuning runs only
/// (feature `insecure-bench-hooks`, which nothing in production should
/// enable): fewer final Miller–Rabin rounds than MR64, or another sieve
/// size. Each call takes its settings; nothing global changes.
#[cfg(feature = "insecure-bench-hooks")]
pub mod bench_hooks {
    use rand_core::CryptoRng;

    use crate::generate::search;
    pub use crate::generate::{Kind, Tuning};
    use crate::{Error, PrimeInt, ProgressFn};

    /// A [`PrimeKind::Prime`] or [`PrimeKind::Safe`] search (`kind`) with
    /// `tuning`.
    ///
    /// [`PrimeKind::Prime`]: crate::PrimeKind::Prime
    /// [`PrimeKind::Safe`]: crate::PrimeKind::Safe
    pub fn generate_tuned<U: PrimeInt, R: CryptoRng + ?Sized>(
        kind: Kind,
        bits: u32,
        rng: &mut R,
        tuning: Tuning,
        progress: ProgressFn<'_>,
    ) -> Result<U, Error> {
        search(kind, bits, rng, 1, tuning, progress)
    }
}
