//! The incremental sieve: which of the candidates `start + j·step` have a
//! small prime factor, a window of candidates at a time, in constant time.
//!
//! The primes below the window length can divide several candidates of a
//! window; they are walked candidate by candidate, their residues advanced
//! by addition. Every larger prime divides at most one candidate per window,
//! so for each the sieve keeps only the offset of the next candidate it
//! divides: a window costs a few operations per prime instead of one per
//! prime and candidate. That is what makes tens of thousands of sieve
//! primes affordable, and more sieve primes mean fewer Miller–Rabin rounds
//! on candidates that have a factor just beyond the table.
//!
//! Everything here is constant time in the start, the step and the
//! offsets: no branch and no memory address depends on them. A hit is
//! recorded with masks over all the words of a window, and the shifts by a
//! secret amount are register shifts, whose timing does not depend on the
//! amount.

use numcrypt_limbs::Unsigned;
use zeroize::Zeroize;

use crate::table::{BARRETT, ODD_PRIMES, barrett_mu, reduce_u64, residues_ct};

/// Candidates per window: 128 for a prime search, whose result is usually
/// a few windows from the start, so that a parallel search has windows to
/// share; 512 for a safe-prime search, which sieves hundreds of thousands
/// of candidates, and where a longer window halves the cost per candidate
/// of the primes above it (their work per window hardly grows with it).
const SHORT_WINDOW: usize = 128;
const LONG_WINDOW: usize = 512;
const MAX_WORDS: usize = LONG_WINDOW / 64;

/// The odd primes below the window length are walked (30 below 128, 96
/// below 512); the rest are tracked by offset.
const MAX_WALKED: usize = odd_primes_below(LONG_WINDOW as u32);

const fn odd_primes_below(n: u32) -> usize {
    let mut count = 0;
    let mut c = 3;
    while c < n {
        let mut d = 3;
        let mut prime = true;
        while d * d <= c {
            if c % d == 0 {
                prime = false;
            }
            d += 2;
        }
        count += prime as usize;
        c += 2;
    }
    count
}

/// Skips of up to this many windows step the offsets window by window.
const SKIP_BY_STEPPING: u64 = 8;

/// The most sieve primes a search can use: the whole table with `alloc`
/// (the offsets live on the heap), 2048 without (on the stack).
#[cfg(feature = "alloc")]
pub(crate) const MAX_SIEVE_PRIMES: usize = crate::table::PRIMES_LEN;
#[cfg(not(feature = "alloc"))]
pub(crate) const MAX_SIEVE_PRIMES: usize = 2048;

/// Number of table primes the sieve uses for candidates of `bits` bits,
/// chosen by measurement (`examples/tune_sieve.rs`; `benches/RESULTS.md` has the
/// figures). More primes mean fewer survivors but a longer set-up (the
/// residues of the start) and more work per window. A safe-prime search
/// sieves a few hundred times more candidates per result than a prime
/// search and tests each survivor with a full exponentiation, so it pays
/// to sieve much deeper.
pub(crate) fn sieve_primes(bits: u32, safe: bool, tuned: Option<usize>) -> usize {
    let k = match tuned {
        Some(k) => k,
        None if safe => match bits {
            0..=640 => 16_384,
            641..=1536 => 65_536,
            _ => 131_072,
        },
        None => match bits {
            0..=640 => 2048,
            641..=1536 => 8192,
            1537..=2560 => 16_384,
            _ => 32_768,
        },
    };
    k.clamp(MAX_WALKED, MAX_SIEVE_PRIMES)
}

/// The step between candidates, as the sieve needs to know it.
#[derive(Clone, Copy)]
pub(crate) enum Step<'a, U> {
    /// A public step below 256 (2 for a prime search, 6 for a safe-prime
    /// search over `q ≡ 5 mod 6`).
    Public(u64),
    /// A secret multi-precision step (Gordon's `2t` and `2rs`).
    Secret(&'a U),
}

/// The offsets of the primes above the window, one per prime (two for a
/// safe-prime search: the next candidate `q` the prime divides, and the
/// next whose `2q + 1` it divides, interleaved).
struct Offsets {
    #[cfg(feature = "alloc")]
    buf: alloc::vec::Vec<u32>,
    #[cfg(not(feature = "alloc"))]
    buf: [u32; 2 * MAX_SIEVE_PRIMES],
    len: usize,
}

impl Offsets {
    fn new(len: usize) -> Self {
        Offsets {
            #[cfg(feature = "alloc")]
            buf: alloc::vec![0; len],
            #[cfg(not(feature = "alloc"))]
            buf: [0; 2 * MAX_SIEVE_PRIMES],
            len,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [u32] {
        &mut self.buf[..self.len]
    }
}

impl Drop for Offsets {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

/// The sieve over `start + j·step`, positioned at a window.
pub(crate) struct Sieve {
    safe: bool,
    /// The window length, and the number of walked primes (those below it).
    len: usize,
    walked: usize,
    /// Residues of the window's first candidate, and of the step, modulo
    /// the walked primes.
    residues: [u32; MAX_WALKED],
    steps: [u32; MAX_WALKED],
    /// How many primes above the window are tracked.
    large: usize,
    offsets: Offsets,
}

impl Drop for Sieve {
    fn drop(&mut self) {
        self.residues.zeroize();
        self.steps.zeroize();
    }
}

/// Survivors of one window, one bit per candidate (1 = survivor).
#[derive(Clone, Copy)]
pub(crate) struct Survivors([u64; MAX_WORDS]);

impl Zeroize for Survivors {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

/// All ones when `x < y`, else 0 (both below `2^31`), without a branch.
#[inline(always)]
fn mask_lt(x: u32, y: u32) -> u32 {
    ((x.wrapping_sub(y) as i32) >> 31) as u32
}

/// `a·b mod p` for `a, b < p < 2^32`, constant time.
#[inline(always)]
fn mul_mod(a: u32, b: u32, p: u32, mu: u64) -> u32 {
    reduce_u64(a as u64 * b as u64, p, mu) as u32
}

impl Sieve {
    /// A sieve over `start + j·step` using the first `k` table primes (at
    /// least the walked ones), for a prime search or, with `safe`, a
    /// safe-prime search over `q` (a candidate is hit when a prime divides
    /// `q` or `2q + 1`). Constant time in `start` and a secret step.
    ///
    /// A prime above the window that divides the step would give every
    /// candidate the same residue; the callers' steps (2, 6, and products
    /// of large primes) never have one, and if one did, the sieve would
    /// drop the larger primes altogether (less sieving, still correct).
    pub(crate) fn new<U: Unsigned>(start: &U, step: Step<'_, U>, k: usize, safe: bool) -> Self {
        let len = if safe { LONG_WINDOW } else { SHORT_WINDOW };
        let walked = odd_primes_below(len as u32);
        let k = k.clamp(MAX_WALKED, MAX_SIEVE_PRIMES);
        let mut start_res = Offsets::new(k);
        residues_ct(start.as_ref(), start_res.as_mut_slice(), k);
        let mut step_res = Offsets::new(k);
        match step {
            Step::Public(s) => {
                for (i, r) in step_res.as_mut_slice().iter_mut().enumerate() {
                    *r = (s % ODD_PRIMES[i] as u64) as u32;
                }
            }
            Step::Secret(s) => residues_ct(s.as_ref(), step_res.as_mut_slice(), k),
        }
        let (start_res, step_res) = (start_res.as_mut_slice(), step_res.as_mut_slice());
        let mut sieve = Sieve {
            safe,
            len,
            walked,
            residues: [0; MAX_WALKED],
            steps: [0; MAX_WALKED],
            large: k - walked,
            offsets: Offsets::new((k - walked) * (1 + safe as usize)),
        };
        sieve.residues[..walked].copy_from_slice(&start_res[..walked]);
        sieve.steps[..walked].copy_from_slice(&step_res[..walked]);

        let mut divides_step = 0u32;
        let offsets = sieve.offsets.as_mut_slice();
        for i in walked..k {
            let p = ODD_PRIMES[i];
            let mu = barrett_mu(p);
            let (r, s) = (start_res[i], step_res[i]);
            divides_step |= mask_lt(s, 1);
            let inv = match step {
                Step::Public(s) => public_inverse(s, p),
                Step::Secret(_) => inverse_ct(s, p, mu),
            };
            // The first j with r + j·s ≡ 0, and (safe) with 2(r + j·s) + 1 ≡ 0.
            let minus_r = p - r - (p & !mask_lt(0, r)); // (p - r) mod p
            let j = i - walked;
            if safe {
                offsets[2 * j] = mul_mod(minus_r, inv, p, mu);
                let half = reduce_u64((p / 2) as u64 + minus_r as u64, p, mu) as u32;
                offsets[2 * j + 1] = mul_mod(half, inv, p, mu);
            } else {
                offsets[j] = mul_mod(minus_r, inv, p, mu);
            }
        }
        start_res.zeroize();
        step_res.zeroize();
        // Public: only a step with a small factor is divisible by a sieve
        // prime, and the secret steps (strong primes' 2t and 2rs, for
        // primes t, r, s of hundreds of bits) never have one.
        if numcrypt_limbs::ct_audit::declassified(divides_step) != 0 {
            sieve.large = 0;
        }
        sieve
    }

    /// The number of candidates per window.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Advances by `m` windows without evaluating them. Constant time in
    /// the residues and offsets (`m` is public).
    pub(crate) fn skip_windows(&mut self, m: u64) {
        match self.len {
            SHORT_WINDOW => self.skip_windows_of::<SHORT_WINDOW>(m),
            _ => self.skip_windows_of::<LONG_WINDOW>(m),
        }
    }

    fn skip_windows_of<const W: usize>(&mut self, m: u64) {
        if m == 0 {
            return;
        }
        let count = m * W as u64;
        for i in 0..self.walked {
            let (p, mu) = (ODD_PRIMES[i], BARRETT[i]);
            let advance = reduce_u64(reduce_u64(count, p, mu) * self.steps[i] as u64, p, mu);
            self.residues[i] = reduce_u64(self.residues[i] as u64 + advance, p, mu) as u32;
        }
        let per_prime = 1 + self.safe as usize;
        let large = &ODD_PRIMES[self.walked..self.walked + self.large];
        let offsets = self.offsets.as_mut_slice();
        if m <= SKIP_BY_STEPPING {
            // A parallel search mostly skips the few windows other workers
            // took: stepping is cheaper than a division per prime.
            for _ in 0..m {
                for (o, &p) in offsets.chunks_exact_mut(per_prime).zip(large) {
                    for x in o {
                        *x = step_past_window::<W>(*x, p);
                    }
                }
            }
            return;
        }
        for (o, &p) in offsets.chunks_exact_mut(per_prime).zip(large) {
            // (m·W) mod p: public values, so plain division will do.
            let c = (count % p as u64) as u32;
            for x in o {
                *x = x.wrapping_sub(c).wrapping_add(p & mask_lt(*x, c));
            }
        }
    }

    /// Evaluates the next window of candidates and advances past them. The
    /// work is the same whatever the residues and offsets.
    pub(crate) fn window(&mut self) -> Survivors {
        match (self.len, self.safe) {
            (SHORT_WINDOW, false) => self.window_of::<SHORT_WINDOW, false>(),
            (SHORT_WINDOW, true) => self.window_of::<SHORT_WINDOW, true>(),
            (_, false) => self.window_of::<LONG_WINDOW, false>(),
            (_, true) => self.window_of::<LONG_WINDOW, true>(),
        }
    }

    fn window_of<const W: usize, const SAFE: bool>(&mut self) -> Survivors {
        let mut hits = [0u32; LONG_WINDOW];
        walk::<SAFE>(
            &mut self.residues[..self.walked],
            &self.steps[..self.walked],
            &mut hits[..W],
        );
        let mut out = [0u64; MAX_WORDS];
        for (j, &h) in hits[..W].iter().enumerate() {
            // h is 0 or 1; a survivor has no hit.
            out[j / 64] |= ((h ^ 1) as u64) << (j % 64);
        }
        hits.zeroize();
        let mut marked = [0u64; MAX_WORDS];
        let large = &ODD_PRIMES[self.walked..self.walked + self.large];
        let offsets = self.offsets.as_mut_slice();
        if SAFE {
            for (o, &p) in offsets.chunks_exact_mut(2).zip(large) {
                o[0] = mark::<W>(o[0], p, &mut marked);
                o[1] = mark::<W>(o[1], p, &mut marked);
            }
        } else {
            for (o, &p) in offsets.iter_mut().zip(large) {
                *o = mark::<W>(*o, p, &mut marked);
            }
        }
        for (o, m) in out.iter_mut().zip(&marked) {
            *o &= !m;
        }
        marked.zeroize();
        Survivors(out)
    }
}

/// Records the candidate at offset `o < p` if it lies in this window of
/// `W` (a prime above the window hits it at most once), and returns the
/// offset from the next window.
#[inline(always)]
fn mark<const W: usize>(o: u32, p: u32, marked: &mut [u64; MAX_WORDS]) -> u32 {
    let bit = 1u64 << (o % 64);
    let word = o / 64;
    for (w, m) in marked[..W / 64].iter_mut().enumerate() {
        // All ones when the offset falls in word w (never when o >= W).
        let here = mask_lt(word ^ w as u32, 1) as i32 as i64 as u64;
        *m |= bit & here;
    }
    step_past_window::<W>(o, p)
}

/// `(o - W) mod p` for `o < p` and `p > W`.
#[inline(always)]
fn step_past_window<const W: usize>(o: u32, p: u32) -> u32 {
    o.wrapping_sub(W as u32)
        .wrapping_add(p & mask_lt(o, W as u32))
}

/// The walked primes over one window: for each candidate, records whether
/// any prime hits it, then steps every residue. Branch-free.
#[inline(never)]
fn walk<const SAFE: bool>(res: &mut [u32], steps: &[u32], hits: &mut [u32]) {
    let n = res.len().min(steps.len());
    let (res, steps, primes) = (&mut res[..n], &steps[..n], &ODD_PRIMES[..n]);
    for hit in hits.iter_mut() {
        let mut h = 0u32;
        for i in 0..n {
            let r = res[i];
            let p = primes[i];
            h |= (r == 0) as u32;
            if SAFE {
                h |= (r == p >> 1) as u32;
            }
            // r + step < 2p: subtract p unless that goes negative.
            let x = r + steps[i];
            let t = x.wrapping_sub(p);
            res[i] = t.wrapping_add(p & ((t as i32) >> 31) as u32);
        }
        *hit |= h;
    }
}

/// `s^-1 mod p` for a public `s < 256` not divisible by `p` (and 0 when it
/// is): `(1 + c·p)/s` for the `c < s` that makes it whole.
fn public_inverse(s: u64, p: u32) -> u32 {
    debug_assert!(s < 256);
    let p = p as u64;
    (0..s)
        .map(|c| 1 + c * p)
        .find(|x| x % s == 0)
        .map_or(0, |x| ((x / s) % p) as u32)
}

/// `s^-1 mod p` by Fermat's little theorem, constant time in `s` (0 when
/// `p` divides `s`).
fn inverse_ct(s: u32, p: u32, mu: u64) -> u32 {
    let e = p - 2;
    let mut acc = 1u32;
    for bit in (0..32 - e.leading_zeros()).rev() {
        acc = mul_mod(acc, acc, p, mu);
        // The exponent is public; the base is not.
        if (e >> bit) & 1 == 1 {
            acc = mul_mod(acc, s, p, mu);
        }
    }
    acc
}

impl Survivors {
    /// The lowest surviving position, removed from the set; `None` when
    /// none is left. Constant time apart from that last fact.
    pub(crate) fn take_first(&mut self) -> Option<u32> {
        let mut index = 0u32;
        let mut found = 0u32;
        for (w, &word) in self.0.iter().enumerate() {
            let nonzero = !mask_lt(word.count_ones(), 1);
            let here = w as u32 * 64 + word.trailing_zeros();
            index |= here & nonzero & !found;
            found |= nonzero;
        }
        // Whether a survivor is left is public (see `PrimeKind::Prime`).
        if numcrypt_limbs::ct_audit::declassified(found) == 0 {
            return None;
        }
        for (w, word) in self.0.iter_mut().enumerate() {
            let is_word = mask_lt((w as u32) ^ (index / 64), 1) as i32 as i64 as u64;
            *word &= !((1u64 << (index % 64)) & is_word);
        }
        Some(index)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use numcrypt_limbs::{U256, Unsigned};
    use std::vec::Vec;

    /// The survivors of `windows` windows by division, for the first `k`
    /// primes, and the sieve's, compared window by window (with a skip of
    /// `gap` windows after the second).
    fn compare(start: &U256, step: &U256, public: Option<u64>, k: usize, safe: bool, gap: u64) {
        let s = public.map_or(Step::Secret(step), Step::Public);
        let mut sieve = Sieve::new(start, s, k, safe);
        let len = sieve.len();
        let mut base = 0u64;
        for w in 0..4 {
            let mut surv = sieve.window();
            let mut expect = [0u64; MAX_WORDS];
            for j in 0..len {
                let idx = U256::from_u64(base + j as u64);
                let q = start.wrapping_add(&idx.wrapping_mul(step));
                let p2 = q.shl_vartime(1).wrapping_add(&U256::ONE);
                let clean = ODD_PRIMES[..k].iter().all(|&p| {
                    q.rem_limb_vartime(p as u64).unwrap() != 0
                        && (!safe || p2.rem_limb_vartime(p as u64).unwrap() != 0)
                });
                expect[j / 64] |= (clean as u64) << (j % 64);
            }
            assert_eq!(surv.0, expect, "window {w}, k {k}, safe {safe}");
            let mut order = Vec::new();
            while let Some(j) = surv.take_first() {
                order.push(j);
            }
            let want: Vec<u32> = (0..len as u32)
                .filter(|&j| expect[j as usize / 64] >> (j % 64) & 1 == 1)
                .collect();
            assert_eq!(order, want);
            base += len as u64;
            if w == 1 {
                sieve.skip_windows(gap);
                base += gap * len as u64;
            }
        }
    }

    #[test]
    fn survivors_are_the_candidates_without_small_factors() {
        let start = U256::from_words([0x1234_5678_9abc_def1, 0xfeed, 0, 1 << 62]);
        // q ≡ 5 mod 6, as a safe-prime search starts.
        let start6 = start.wrapping_add(&U256::from_u64(4));
        assert_eq!(start6.rem_limb_vartime(6).unwrap(), 5);
        let secret = U256::from_words([0x9e37_79b9_7f4a_7c16, 0x1, 0, 0]);
        for safe in [false, true] {
            for (k, gap) in [(MAX_WALKED, 0), (MAX_WALKED + 1, 1), (700, 3), (3000, 40)] {
                compare(&start, &U256::from_u64(2), Some(2), k, safe, gap);
                compare(&start6, &U256::from_u64(6), Some(6), k, safe, gap);
                compare(&start, &secret, None, k, safe, gap);
            }
        }
    }

    #[test]
    fn a_large_prime_dividing_the_step_drops_the_large_primes() {
        let start = U256::from_words([0x1234_5678_9abc_def1, 0xfeed, 0, 1 << 62]);
        let step = U256::from_u64(2 * ODD_PRIMES[200] as u64);
        let mut sieve = Sieve::new(&start, Step::Secret(&step), 500, false);
        assert_eq!(sieve.large, 0);
        // Still exact for the walked primes (those below the window).
        let surv = sieve.window();
        for j in 0..sieve.len() {
            let c = start.wrapping_add(&U256::from_u64(j as u64).wrapping_mul(&step));
            let clean = ODD_PRIMES[..sieve.walked]
                .iter()
                .all(|&p| c.rem_limb_vartime(p as u64).unwrap() != 0);
            assert_eq!(surv.0[j / 64] >> (j % 64) & 1 == 1, clean, "{j}");
        }
    }

    #[test]
    fn inverses() {
        for &p in ODD_PRIMES.iter().step_by(997) {
            let mu = barrett_mu(p);
            for s in [1u32, 2, 6, 255, p - 1, p / 3 + 1] {
                if s % p == 0 {
                    assert_eq!(inverse_ct(0, p, mu), 0);
                    continue;
                }
                let inv = inverse_ct(s % p, p, mu);
                assert_eq!(
                    s as u64 % p as u64 * inv as u64 % p as u64,
                    1,
                    "{s} mod {p}"
                );
                if s < 256 {
                    assert_eq!(public_inverse(s as u64, p), inv);
                }
            }
        }
    }
}
