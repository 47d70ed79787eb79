//! Random primes and safe primes by incremental sieving.

use core::ops::ControlFlow;
use core::sync::atomic::{AtomicUsize, Ordering};

use numcrypt_limbs::Unsigned;
use rand_core::CryptoRng;
use zeroize::Zeroize;

use crate::Error;
use crate::int::PrimeInt;
use crate::mr::{HashBases, MR64_ROUNDS, MillerRabin};
use crate::sieve::{Sieve, WINDOW, sieve_primes};
use crate::small::is_prime_u64;

/// Smallest bit length [`generate_prime`] accepts (3 = `0b11` is the only
/// 2-bit prime with both top bits set).
pub const MIN_PRIME_BITS: u32 = 2;

/// Smallest bit length [`generate_safe_prime`] accepts (59 = 2·29 + 1 is the
/// smallest safe prime with its top two bits set above 7).
pub const MIN_SAFE_PRIME_BITS: u32 = 6;

/// Overrides the 64 final rounds when non-zero: only for reproducing the
/// paper's Table 5 (the cost of MR64 against average-case round counts).
static FINAL_ROUNDS_OVERRIDE: AtomicUsize = AtomicUsize::new(0);

/// Sets the number of Miller–Rabin rounds on a final candidate for every
/// later search (0 restores MR64). Only for the Table 5 benchmark: fewer
/// rounds give no `2^-128` guarantee against chosen inputs.
#[doc(hidden)]
pub fn set_final_rounds_for_benchmark(rounds: usize) {
    FINAL_ROUNDS_OVERRIDE.store(rounds, Ordering::Relaxed);
}

fn final_rounds() -> usize {
    match FINAL_ROUNDS_OVERRIDE.load(Ordering::Relaxed) {
        0 => MR64_ROUNDS,
        r => r,
    }
}

/// Candidates below this many bits are searched with exact 64-bit
/// arithmetic instead of the sieve.
const SIEVE_MIN_BITS: u32 = 64;

/// How far a search has got, as reported to a progress callback (like
/// OpenSSL's `BN_GENCB`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Candidates examined by the sieve.
    pub candidates: u64,
    /// Miller–Rabin rounds run (sieve survivors get one; a final candidate
    /// gets 64, twice for a safe prime).
    pub tests: u64,
    /// Candidates that passed the sieve and the first Miller–Rabin round and
    /// went on to the full MR64.
    pub finalists: u64,
}

/// A progress callback: return `ControlFlow::Break(())` to cancel the
/// search (which then fails with [`Error::Cancelled`]).
pub type ProgressFn<'a> = &'a mut dyn FnMut(&Progress) -> ControlFlow<()>;

/// A random prime of exactly `bits` bits with its top two bits set (so the
/// product of two has exactly `2 bits` bits).
///
/// The search: a random odd start, then its successors `start + 2i` in
/// order. A sieve of up to 8192 small primes, updated by addition, rejects
/// most composites in windows of 128 candidates; each survivor gets one
/// Miller–Rabin round to base 2, and the first that passes gets the full
/// MR64 (64 rounds, bases derived from the candidate under a random key, as
/// in [`is_prime`](crate::is_prime)). A failure at either stage moves on to
/// the next survivor: the search never starts again from scratch (except
/// in the astronomically unlikely case that it runs past `2^bits`).
///
/// Constant time (for `bits >= 64`): the sieve, the residues and every
/// Miller–Rabin round are constant time in the candidates. What the running
/// time reveals is how many windows were sieved and how many survivors were
/// tested before the prime, which is how far the prime lies from a random
/// start; and, with probability `2^-32` per tested candidate, `v2(c - 1)`.
/// Below 64 bits the search is exact and variable time: such primes are no
/// secrets.
///
/// `bits` must be at least [`MIN_PRIME_BITS`] and fit `U`.
pub fn generate_prime<U: PrimeInt, R: CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
) -> Result<U, Error> {
    generate_prime_with_progress(bits, rng, &mut |_| ControlFlow::Continue(()))
}

/// [`generate_prime`] with a progress callback, called after each window of
/// candidates and each Miller–Rabin test.
pub fn generate_prime_with_progress<U: PrimeInt, R: CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
    progress: ProgressFn<'_>,
) -> Result<U, Error> {
    search(Kind::Prime, bits, rng, progress)
}

/// A random safe prime `p = 2q + 1` (with `q` prime) of exactly `bits` bits,
/// top two bits set.
///
/// The search runs over `q` as [`generate_prime`] does, with a joint sieve
/// that rejects `q` when a small prime divides `q` or `2q + 1`; survivors
/// get a base-2 round on `q`, then on `p`, and the first pair to pass both
/// gets MR64 on `q` and on `p`. Constant time in the same sense as
/// [`generate_prime`]. `bits` must be at least [`MIN_SAFE_PRIME_BITS`].
pub fn generate_safe_prime<U: PrimeInt, R: CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
) -> Result<U, Error> {
    generate_safe_prime_with_progress(bits, rng, &mut |_| ControlFlow::Continue(()))
}

/// [`generate_safe_prime`] with a progress callback.
pub fn generate_safe_prime_with_progress<U: PrimeInt, R: CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
    progress: ProgressFn<'_>,
) -> Result<U, Error> {
    search(Kind::Safe, bits, rng, progress)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Prime,
    Safe,
}

fn check_bits<U: PrimeInt>(kind: Kind, bits: u32) -> Result<U, Error> {
    let min = match kind {
        Kind::Prime => MIN_PRIME_BITS,
        Kind::Safe => MIN_SAFE_PRIME_BITS,
    };
    if bits < min {
        return Err(Error::BitsTooSmall { min });
    }
    U::zero_for_bits(bits)
}

fn search<U: PrimeInt, R: CryptoRng + ?Sized>(
    kind: Kind,
    bits: u32,
    rng: &mut R,
    progress: ProgressFn<'_>,
) -> Result<U, Error> {
    let zero = check_bits::<U>(kind, bits)?;
    // For a safe prime the search runs over q, one bit shorter.
    let cbits = if kind == Kind::Safe { bits - 1 } else { bits };
    if cbits < SIEVE_MIN_BITS {
        let v = search_small(kind, cbits, rng);
        return Ok(zero.like_u64(v));
    }
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let mut state = Progress::default();
    let result = loop {
        let mut start = random_start(&zero, cbits, rng);
        let two = start.like_u64(2);
        let found = search_from(kind, cbits, &start, &two, &key, 0, 1, &mut state, progress);
        start.as_mut().zeroize();
        match found {
            Outcome::Found(p) => break Ok(p),
            Outcome::Cancelled => break Err(Error::Cancelled),
            Outcome::Exhausted => continue,
        }
    };
    key.zeroize();
    result
}

/// A random odd value of exactly `bits` bits with its top two bits set.
pub(crate) fn random_start<U: Unsigned, R: CryptoRng + ?Sized>(
    zero: &U,
    bits: u32,
    rng: &mut R,
) -> U {
    let mut x = zero.clone();
    let words = x.as_mut();
    for w in words.iter_mut().take(bits.div_ceil(64) as usize) {
        *w = rng.next_u64();
    }
    let top = (bits - 1) as usize;
    let last = top / 64;
    words[last] &= u64::MAX >> (63 - top % 64);
    words[last] |= 1 << (top % 64);
    let second = top - 1;
    words[second / 64] |= 1 << (second % 64);
    words[0] |= 1;
    x
}

pub(crate) enum Outcome<U> {
    Found(U),
    /// Ran past `2^bits`: start again elsewhere.
    Exhausted,
    Cancelled,
}

/// Searches `start + i step` (`step` even) window by window, visiting windows
/// `first, first + stride, …` (a single-threaded search has `first = 0` and
/// `stride = 1`); `stop` (for the parallel search) says to give up on
/// windows at or beyond a given index. Returns the first prime (for
/// `Kind::Safe`, the first `p = 2q + 1`) in the visited windows.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_from<U: Unsigned>(
    kind: Kind,
    cbits: u32,
    start: &U,
    step: &U,
    key: &[u8; 32],
    first: u64,
    stride: u64,
    state: &mut Progress,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Outcome<U> {
    search_windows(
        kind,
        cbits,
        start,
        step,
        key,
        first,
        stride,
        state,
        progress,
        &|_| false,
    )
    .map_or(Outcome::Exhausted, |r| r)
}

/// The search loop, with `stop(window)` checked before each window.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search_windows<U: Unsigned>(
    kind: Kind,
    cbits: u32,
    start: &U,
    step: &U,
    key: &[u8; 32],
    first: u64,
    stride: u64,
    state: &mut Progress,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
    stop: &dyn Fn(u64) -> bool,
) -> Option<Outcome<U>> {
    let k = sieve_primes(cbits, kind == Kind::Safe);
    let mut sieve = Sieve::new(start, step, k, kind == Kind::Safe);
    sieve.skip(first * WINDOW as u64);
    let limbs = cbits.div_ceil(64) as usize;
    let plimbs = if kind == Kind::Safe {
        (cbits + 1).div_ceil(64) as usize
    } else {
        limbs
    };
    // Candidates must stay below 2^cbits (checked for each); this bound only
    // stops a search that has run for 2^40 windows.
    let max_windows = 1u64 << (cbits - 2).min(40);
    let mut w = first;
    loop {
        if w >= max_windows {
            return Some(Outcome::Exhausted);
        }
        if stop(w) {
            return None;
        }
        let mut survivors = sieve.window();
        state.candidates += WINDOW as u64;
        if progress(state).is_break() {
            return Some(Outcome::Cancelled);
        }
        while let Some(j) = survivors.take_first() {
            let index = start.like_u64(w * WINDOW as u64 + j as u64);
            let (advance, high) = index.widening_mul(step);
            let (mut c, carry) = start.carrying_add(&advance, 0);
            // Past 2^cbits (a secret-dependent event, but one with
            // probability about 2^-50 even at 64 bits): start again.
            if c.bits() > cbits || carry != 0 || !bool::from(high.is_zero()) {
                c.as_mut().zeroize();
                survivors.zeroize();
                return Some(Outcome::Exhausted);
            }
            let verdict = test_candidate(kind, &c, limbs, plimbs, key, state);
            if verdict.is_some() {
                c.as_mut().zeroize();
            }
            match verdict {
                None => {}
                Some(p) => {
                    survivors.zeroize();
                    // A last report with the final counts; too late to cancel.
                    let _ = progress(state);
                    return Some(Outcome::Found(p));
                }
            }
            if progress(state).is_break() {
                return Some(Outcome::Cancelled);
            }
        }
        sieve.skip((stride - 1) * WINDOW as u64);
        w += stride;
    }
}

/// Tests one sieve survivor: the prime it yields, if any.
fn test_candidate<U: Unsigned>(
    kind: Kind,
    c: &U,
    limbs: usize,
    plimbs: usize,
    key: &[u8; 32],
    state: &mut Progress,
) -> Option<U> {
    // The candidate is odd and at least 2^62, so this cannot fail.
    let mr = MillerRabin::new(c, limbs)?;
    state.tests += 1;
    if !bool::from(mr.round_ct(&mr.two())) {
        return None;
    }
    match kind {
        Kind::Prime => {
            state.finalists += 1;
            let rounds = final_rounds();
            state.tests += rounds as u64;
            let mut bases = HashBases::new(key, &c.as_ref()[..limbs]);
            if bool::from(mr.rounds_ct(&mut bases, rounds)) {
                Some(c.clone())
            } else {
                None
            }
        }
        Kind::Safe => {
            let p = c.shl_vartime(1).wrapping_add(&c.like_u64(1));
            let mrp = MillerRabin::new(&p, plimbs)?;
            state.tests += 1;
            if !bool::from(mrp.round_ct(&mrp.two())) {
                return None;
            }
            state.finalists += 1;
            let rounds = final_rounds();
            state.tests += 2 * rounds as u64;
            let mut qb = HashBases::new(key, &c.as_ref()[..limbs]);
            let mut pb = HashBases::new(key, &p.as_ref()[..plimbs]);
            let ok = mr.rounds_ct(&mut qb, rounds) & mrp.rounds_ct(&mut pb, rounds);
            if bool::from(ok) { Some(p) } else { None }
        }
    }
}

/// The search below 64 bits: exact, variable time. For `Kind::Safe`, `bits`
/// is the size of `q` and the result is `2q + 1`.
fn search_small<R: CryptoRng + ?Sized>(kind: Kind, bits: u32, rng: &mut R) -> u64 {
    let lo = 3u64 << (bits - 2);
    let hi = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let span = hi - lo + 1;
    let mut c = lo + rng.next_u64() % span;
    let ok = |x: u64| match kind {
        Kind::Prime => is_prime_u64(x),
        Kind::Safe => is_prime_u64(x) && is_prime_u64(2 * x + 1),
    };
    // Every range searched here holds a solution (checked by the tests for
    // each size), so the cyclic scan ends.
    loop {
        if ok(c) {
            return if kind == Kind::Safe { 2 * c + 1 } else { c };
        }
        c = if c == hi { lo } else { c + 1 };
    }
}
