//! The incremental sieve: residues of the current candidate modulo a table
//! of small primes, advanced by addition, evaluated a window of candidates at
//! a time in constant time.

use core::sync::atomic::{AtomicUsize, Ordering};

use numcrypt_limbs::Unsigned;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use crate::table::{BARRETT, ODD_PRIMES, TABLE_LEN, reduce_u64, residues_ct};

/// Candidates per window.
pub(crate) const WINDOW: usize = 128;
const WORDS: usize = WINDOW / 64;

/// Primes processed together, so that their residues, steps and moduli stay
/// in the L1 cache across the window.
const BLOCK: usize = 1024;

/// Overrides [`sieve_primes`] when non-zero (for the tuning example only).
static SIEVE_PRIMES_OVERRIDE: AtomicUsize = AtomicUsize::new(0);

/// Sets the number of sieve primes for every later search (0 restores the
/// tuned default). Only for measuring the trade-off: see
/// `examples/tune_sieve.rs`.
#[doc(hidden)]
pub fn set_sieve_primes_for_tuning(k: usize) {
    SIEVE_PRIMES_OVERRIDE.store(k.min(TABLE_LEN), Ordering::Relaxed);
}

/// Number of table primes the sieve uses for candidates of `bits` bits,
/// chosen by measurement (`examples/tune_sieve.rs`).
/// A safe-prime search sieves about 8 times more candidates per result
/// (both `q` and `2q + 1` must be prime), so the constant-time sieve's cost
/// per candidate weighs more and fewer primes pay.
pub(crate) fn sieve_primes(bits: u32, safe: bool) -> usize {
    let k = SIEVE_PRIMES_OVERRIDE.load(Ordering::Relaxed);
    if k != 0 {
        return k;
    }
    if safe {
        return match bits {
            0..=640 => 1024,
            641..=1536 => 2048,
            _ => 4096,
        };
    }
    match bits {
        0..=640 => 2048,
        _ => 8192,
    }
}

/// Residues of candidates `c, c + step, c + 2 step, …` modulo the first `k`
/// odd primes. A candidate survives when no prime divides it, and, for a
/// safe-prime search over `q`, when none divides `2q + 1` either (the joint
/// sieve: `q ≢ (p - 1)/2 mod p`).
pub(crate) struct Sieve {
    k: usize,
    safe: bool,
    residues: [u32; TABLE_LEN],
    steps: [u32; TABLE_LEN],
}

impl Drop for Sieve {
    fn drop(&mut self) {
        self.residues.zeroize();
        self.steps.zeroize();
    }
}

/// Survivors of one window, one bit per candidate (1 = survivor).
#[derive(Clone, Copy)]
pub(crate) struct Survivors([u64; WORDS]);

impl Zeroize for Survivors {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl Sieve {
    /// A sieve over `start + i * step`, constant time in both.
    pub(crate) fn new<U: Unsigned>(start: &U, step: &U, k: usize, safe: bool) -> Self {
        let mut sieve = Sieve {
            k: k.min(TABLE_LEN),
            safe,
            residues: [0; TABLE_LEN],
            steps: [0; TABLE_LEN],
        };
        residues_ct(start.as_ref(), &mut sieve.residues, sieve.k);
        residues_ct(step.as_ref(), &mut sieve.steps, sieve.k);
        sieve
    }

    /// Advances by `count` candidates at once (`count < 2^32`), constant time
    /// in the residues.
    pub(crate) fn skip(&mut self, count: u64) {
        for i in 0..self.k {
            let p = ODD_PRIMES[i];
            let mu = BARRETT[i];
            let c = reduce_u64(count, p, mu);
            let advance = reduce_u64(c * self.steps[i] as u64, p, mu);
            self.residues[i] = reduce_u64(self.residues[i] as u64 + advance, p, mu) as u32;
        }
    }

    /// Evaluates the next [`WINDOW`] candidates and advances past them. The
    /// work is the same whatever the residues.
    pub(crate) fn window(&mut self) -> Survivors {
        let mut hits = [0u32; WINDOW];
        let mut block = 0;
        while block < self.k {
            let end = (block + BLOCK).min(self.k);
            let res = &mut self.residues[block..end];
            let steps = &self.steps[block..end];
            let primes = &ODD_PRIMES[block..end];
            if self.safe {
                sieve_block::<true>(res, steps, primes, &mut hits);
            } else {
                sieve_block::<false>(res, steps, primes, &mut hits);
            }
            block = end;
        }
        let mut out = [0u64; WORDS];
        for (j, &h) in hits.iter().enumerate() {
            // h is 0 or 1; a survivor has no hit.
            out[j / 64] |= ((h ^ 1) as u64) << (j % 64);
        }
        hits.zeroize();
        Survivors(out)
    }
}

/// One block of primes over a window: for each candidate, records whether
/// any prime hits it, then steps every residue. Branch-free, so the
/// compiler vectorises the inner loop.
#[inline(never)]
fn sieve_block<const SAFE: bool>(
    res: &mut [u32],
    steps: &[u32],
    primes: &[u32],
    hits: &mut [u32; WINDOW],
) {
    let n = res.len().min(steps.len()).min(primes.len());
    let (res, steps, primes) = (&mut res[..n], &steps[..n], &primes[..n]);
    for hit in hits.iter_mut() {
        let mut h = 0u32;
        for i in 0..n {
            let r = res[i];
            let p = primes[i];
            h |= (r == 0) as u32;
            if SAFE {
                h |= (r == p >> 1) as u32;
            }
            // r + step < 2p < 2^18: subtract p unless that goes negative.
            let x = r + steps[i];
            let t = x.wrapping_sub(p);
            res[i] = t.wrapping_add(p & ((t as i32) >> 31) as u32);
        }
        *hit |= h;
    }
}

impl Survivors {
    /// The lowest surviving position, removed from the set; `None` when
    /// none is left. Constant time apart from that last fact.
    pub(crate) fn take_first(&mut self) -> Option<u32> {
        let mut index = 0u32;
        let mut found = Choice::from(0);
        for (w, word) in self.0.iter().enumerate() {
            let nonzero = !word.ct_eq(&0);
            let here = w as u32 * 64 + word.trailing_zeros();
            index.conditional_assign(&here, nonzero & !found);
            found |= nonzero;
        }
        if !bool::from(found) {
            return None;
        }
        for (w, word) in self.0.iter_mut().enumerate() {
            let is_word = (w as u32).ct_eq(&(index / 64));
            let bit = 1u64 << (index % 64);
            *word &= !u64::conditional_select(&0, &bit, is_word);
        }
        Some(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use numcrypt_limbs::{U256, Unsigned};

    #[test]
    fn survivors_are_the_candidates_without_small_factors() {
        for safe in [false, true] {
            let start = U256::from_words([0x1234_5678_9abc_def1, 0xfeed, 0, 1 << 62]);
            let step = U256::from_u64(2);
            let k = 500;
            let mut sieve = Sieve::new(&start, &step, k, safe);
            let mut c = start;
            for _ in 0..3 {
                let mut surv = sieve.window();
                let mut expect = [0u64; WORDS];
                for j in 0..WINDOW {
                    let q = c.wrapping_add(&U256::from_u64(2 * j as u64));
                    let p2 = q.shl_vartime(1).wrapping_add(&U256::ONE);
                    let clean = ODD_PRIMES[..k].iter().all(|&p| {
                        q.rem_limb_vartime(p as u64).unwrap() != 0
                            && (!safe || p2.rem_limb_vartime(p as u64).unwrap() != 0)
                    });
                    expect[j / 64] |= (clean as u64) << (j % 64);
                }
                assert_eq!(surv.0, expect);
                let mut order = Vec::new();
                while let Some(j) = surv.take_first() {
                    order.push(j);
                }
                let want: Vec<u32> = (0..WINDOW as u32)
                    .filter(|&j| expect[j as usize / 64] >> (j % 64) & 1 == 1)
                    .collect();
                assert_eq!(order, want);
                c = c.wrapping_add(&U256::from_u64(2 * WINDOW as u64));
            }
            // skip() lands where windows would.
            let mut a = Sieve::new(&start, &step, k, safe);
            let mut b = Sieve::new(&start, &step, k, safe);
            a.window();
            a.window();
            b.skip(2 * WINDOW as u64);
            assert_eq!(a.residues[..k], b.residues[..k]);
        }
    }

    extern crate std;
    use std::vec::Vec;
}
