//! Primes for RSA: Gordon's strong primes and FIPS 186-5 appendix B.3.3.

use numcrypt_limbs::ct_audit::declassify_choice;
use numcrypt_limbs::{MontyParams, Unsigned};
use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

use crate::Error;
#[cfg(not(feature = "std"))]
use crate::control::Inline;
use crate::control::{Control, Flow, Progress, ProgressFn};
use crate::generate::{Kind, Sequence, Tuning, final_test, search};
use crate::int::PrimeInt;
use crate::mr::{HashBases, MR64_ROUNDS, MillerRabin};
use crate::primality::small_factor_ct;
use crate::sqrt2::sqrt2_floor;
use crate::table::fips_trial_primes;

/// Survivors of trial division a work item of the FIPS search tests: one
/// pass of the eight-lane batch exponentiation (two of the four-lane one),
/// so that no pass runs short.
#[cfg(feature = "std")]
const ITEM: usize = crate::mr::ROUNDS_AT_ONCE;

/// Smallest bit length a [`PrimeKind::Strong`](crate::PrimeKind::Strong) search accepts.
pub const MIN_STRONG_PRIME_BITS: u32 = 160;

/// Gordon's algorithm with each search split over `threads` workers.
pub(crate) fn strong_prime<U: PrimeInt, R: CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
    threads: usize,
    progress: ProgressFn<'_>,
) -> Result<U, Error> {
    if bits < MIN_STRONG_PRIME_BITS {
        return Err(Error::BitsTooSmall {
            min: MIN_STRONG_PRIME_BITS,
        });
    }
    let zero = U::zero_for_bits(bits)?;
    let mut total = Progress::default();
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let result = loop {
        let sbits = bits / 2 - 16;
        let mut s = aux_prime(&zero, sbits, rng, threads, &mut total, progress)?;
        let mut t = aux_prime(&zero, bits / 2 - 32, rng, threads, &mut total, progress)?;
        let one = zero.like_u64(1);
        let two = zero.like_u64(2);
        // r = 2 i t + 1 for i from a random 16-bit start.
        let i0 = zero.like_u64((rng.next_u64() & 0x7fff) | 0x8000);
        let step_r = t.shl_vartime(1);
        let start_r = i0.wrapping_mul(&step_r).wrapping_add(&one);
        let rbits = bits / 2 - 32 + 18;
        let found = sub_search(
            rbits, &start_r, &step_r, &key, threads, &mut total, progress,
        );
        let mut r = match found {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(e) => break Err(e),
        };
        // p0 = 2 (s^(r-2) mod r) s - 1, in constant time.
        let params = MontyParams::new(r.clone())?;
        let r_minus_2 = r.wrapping_sub(&two);
        let mut u = params.from_monty(&params.pow(&params.to_monty(&s), &r_minus_2));
        let p0 = u.wrapping_mul(&s).shl_vartime(1).wrapping_sub(&one);
        let rs2 = r.wrapping_mul(&s).shl_vartime(1);
        // j between jmin = ceil((3·2^(bits-2) - p0) / 2rs) and about half-way
        // to the top of the range, so the search has room to run.
        let low = zero.like_u64(3).shl_vartime(bits - 2);
        let (jmin, rem) = low.wrapping_sub(&p0).div_rem(&rs2)?;
        let round_up = zero.like_u64(u64::from(!bool::from(rem.is_zero())));
        let jmin = jmin.wrapping_add(&round_up);
        // The offset is drawn below a bound that depends only on the sizes:
        // with 2rs < 2^(rbits + sbits + 1), the range's span
        // 2^(bits-2) / 2rs is at least twice 2^(bits - 4 - rbits - sbits),
        // and a bound computed from r and s would leak their size.
        let offset_bound = one.shl_vartime(bits - 4 - rbits - sbits);
        let offset = U::random_below(rng, &offset_bound)?;
        let start = p0.wrapping_add(&jmin.wrapping_add(&offset).wrapping_mul(&rs2));
        let found = sub_search(bits, &start, &rs2, &key, threads, &mut total, progress);
        for v in [&mut s, &mut t, &mut r, &mut u] {
            v.as_mut().zeroize();
        }
        // A prime, or an error, ends the search; nothing found tries again.
        if let Some(outcome) = found.transpose() {
            break outcome;
        }
    };
    key.zeroize();
    result
}

/// A random prime of `bits` bits at the width of `zero`, adding its counts
/// to `total`.
fn aux_prime<U: PrimeInt, R: CryptoRng + ?Sized>(
    zero: &U,
    bits: u32,
    rng: &mut R,
    threads: usize,
    total: &mut Progress,
    progress: ProgressFn<'_>,
) -> Result<U, Error> {
    let base = *total;
    let mut last = Progress::default();
    let v: U = search(Kind::Prime, bits, rng, threads, Tuning::DEFAULT, &mut |p| {
        last = *p;
        progress(&base.plus(p))
    })?;
    *total = base.plus(&last);
    let mut out = zero.clone();
    let k = v.nlimbs().min(out.nlimbs());
    out.as_mut()[..k].copy_from_slice(&v.as_ref()[..k]);
    let mut v = v;
    v.as_mut().zeroize();
    Ok(out)
}

/// The first prime in `start + i step` (`None` if the sequence runs out),
/// adding its counts to `total`.
fn sub_search<U: PrimeInt>(
    bits: u32,
    start: &U,
    step: &U,
    key: &[u8; 32],
    threads: usize,
    total: &mut Progress,
    progress: ProgressFn<'_>,
) -> Result<Option<U>, Error> {
    let seq = Sequence {
        kind: Kind::Prime,
        cbits: bits,
        start,
        step,
        public_step: None,
        key,
        tuning: Tuning::DEFAULT,
    };
    seq.run(threads, total, progress)
}

/// FIPS 186-5 B.3.3 with the candidates tested on `threads` workers,
/// reporting to `progress` (counts summed over both primes).
pub(crate) fn fips_primes<U: PrimeInt, R: CryptoRng + ?Sized>(
    nlen: u32,
    e: u64,
    rng: &mut R,
    threads: usize,
    progress: ProgressFn<'_>,
) -> Result<(U, U), Error> {
    if nlen < 2048 || !nlen.is_multiple_of(2) {
        return Err(Error::BitsTooSmall { min: 2048 });
    }
    if e.is_multiple_of(2) || e <= 1 << 16 {
        return Err(Error::InvalidExponent);
    }
    let half = nlen / 2;
    let zero = U::zero_for_bits(half)?;
    let mut least = zero.clone();
    sqrt2_floor(half, least.as_mut());
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let fips = Fips {
        zero,
        half,
        least,
        limbs: half.div_ceil(64) as usize,
        e,
        key,
    };
    let mut pending = Pending::new();
    let mut counts = Progress::default();
    let mut search = |other: Option<&U>, rng: &mut R, pending: &mut Pending<U>| {
        fips.prime(rng, other, threads, pending, &mut counts, &mut *progress)
    };
    let result = match search(None, rng, &mut pending) {
        Ok(mut p) => match search(Some(&p), rng, &mut pending) {
            Ok(q) => Ok((p, q)),
            Err(e) => {
                p.as_mut().zeroize();
                Err(e)
            }
        },
        Err(e) => Err(e),
    };
    pending.zeroize();
    let mut fips = fips;
    fips.key.zeroize();
    result
}

/// The fixed parameters of one FIPS 186-5 B.3.3 generation.
struct Fips<U> {
    zero: U,
    half: u32,
    /// `floor(√2·2^(half − 1))`: a candidate must be above it.
    least: U,
    limbs: usize,
    e: u64,
    key: [u8; 32],
}

/// Candidates drawn for one prime but not examined, which come first for
/// the next (only the parallel search draws ahead).
struct Pending<U> {
    #[cfg(feature = "std")]
    candidates: std::collections::VecDeque<U>,
    #[cfg(not(feature = "std"))]
    _none: core::marker::PhantomData<U>,
}

impl<U> Pending<U> {
    fn new() -> Self {
        Pending {
            #[cfg(feature = "std")]
            candidates: std::collections::VecDeque::new(),
            #[cfg(not(feature = "std"))]
            _none: core::marker::PhantomData,
        }
    }
}

impl<U: Unsigned> Zeroize for Pending<U> {
    fn zeroize(&mut self) {
        #[cfg(feature = "std")]
        for c in self.candidates.iter_mut() {
            c.as_mut().zeroize();
        }
    }
}

impl<U: PrimeInt> Fips<U> {
    /// The next random candidate: `half` bits, odd, and at least
    /// `√2·2^(half-1)` (so that `pq` has exactly `nlen` bits). B.3.3 goes
    /// back for a fresh string when a candidate is too small (steps 4.3 and
    /// 5.4) without counting it against the `5·nlen/2` budget, which about
    /// 70 % of uniform `half`-bit strings are; counting them made about one
    /// generation in twenty fail at 2048 bits. A too-small string is
    /// discarded before anything secret touches it, so redrawing reveals
    /// nothing about the prime kept.
    fn draw<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> U {
        loop {
            let mut c = self.zero.clone();
            for w in c.as_mut().iter_mut().take(self.limbs) {
                *w = rng.next_u64();
            }
            let mut c = c.shr_vartime(64 * self.limbs as u32 - self.half);
            c.as_mut()[0] |= 1;
            if declassify_choice(self.big_enough(&c)) {
                return c;
            }
            c.as_mut().zeroize();
        }
    }

    /// `c >= √2·2^(half-1)`: `c` above its floor (a comparison, where
    /// squaring `c` cost a few percent of key generation).
    fn big_enough(&self, c: &U) -> Choice {
        self.least.ct_lt_value(c)
    }

    /// One prime: the first acceptable candidate in drawing order, from at
    /// most `5·half` candidates. `counts` carries the progress counts in
    /// and out.
    fn prime<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        other: Option<&U>,
        threads: usize,
        pending: &mut Pending<U>,
        counts: &mut Progress,
        progress: ProgressFn<'_>,
    ) -> Result<U, Error> {
        let budget = 5 * self.half as usize;
        // With `std`, on one thread too: the batches' Fermat tests run
        // several candidates at once.
        #[cfg(feature = "std")]
        return self.prime_batched(rng, other, threads, budget, pending, counts, progress);
        #[cfg(not(feature = "std"))]
        {
            let _ = (threads, &pending);
            self.prime_in_order(rng, other, budget, counts, progress)
        }
    }

    /// [`Fips::prime`] one candidate at a time, drawn as needed (without
    /// `std`, which has no room for candidates drawn ahead).
    #[cfg(not(feature = "std"))]
    fn prime_in_order<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        other: Option<&U>,
        budget: usize,
        counts: &mut Progress,
        progress: ProgressFn<'_>,
    ) -> Result<U, Error> {
        let mut ctl = Inline::new(progress);
        for i in 0..budget {
            counts.candidates += 1;
            let mut c = self.draw(rng);
            match self.acceptable(&c, other, i as u64, counts, &mut ctl) {
                Flow::Done(()) => return Ok(c),
                Flow::Stop => {
                    c.as_mut().zeroize();
                    return Err(Error::Cancelled);
                }
                Flow::Next => c.as_mut().zeroize(),
            }
            if ctl.report(counts).is_break() {
                return Err(Error::Cancelled);
            }
        }
        Err(Error::GenerationFailed)
    }

    /// [`Fips::prime`] with the candidates drawn in batches (after those
    /// left over from the previous prime) and sieved on this thread, and
    /// their survivors tested by `threads` workers, [`ITEM`] at a time
    /// ([`first_acceptable`](Self::first_acceptable)); the winner is the
    /// first acceptable candidate in drawing order, and the rest of its
    /// batch is left over for the next prime.
    #[cfg(feature = "std")]
    #[allow(clippy::too_many_arguments)]
    fn prime_batched<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        other: Option<&U>,
        threads: usize,
        budget: usize,
        pending: &mut Pending<U>,
        counts: &mut Progress,
        progress: ProgressFn<'_>,
    ) -> Result<U, Error> {
        use crate::control::{Cancelled, ItemSearch};
        use crate::generate::first_in_order;
        /// Survivors per batch: enough to keep the workers busy, few
        /// enough that waiting for the slowest at the end of a batch costs
        /// little; whole items.
        const BATCH: usize = 6 * ITEM;
        let wipe = |batch: &mut std::vec::Vec<U>| {
            for c in batch.iter_mut() {
                c.as_mut().zeroize();
            }
        };
        let mut tried = 0;
        while tried < budget {
            // Candidates until the survivors fill the batch's items, or
            // the budget ends.
            let mut batch: std::vec::Vec<U> = std::vec::Vec::new();
            let mut survivors: std::vec::Vec<usize> = std::vec::Vec::with_capacity(BATCH);
            while survivors.len() < BATCH && tried + batch.len() < budget {
                let c = pending.candidates.pop_front().unwrap_or_else(|| {
                    counts.candidates += 1;
                    self.draw(rng)
                });
                if self.survives_sieve(&c, other) {
                    survivors.push(batch.len());
                }
                batch.push(c);
            }
            let work = |_: &mut (), i: u64, counts: &mut Progress, ctl: &mut dyn Control| {
                let first = i as usize * ITEM;
                let item = &survivors[first..(first + ITEM).min(survivors.len())];
                match self.first_acceptable(&batch, item, i, counts, ctl) {
                    Flow::Done(j) => Flow::Done(j),
                    Flow::Next if ctl.report(counts).is_break() => Flow::Stop,
                    Flow::Next => Flow::Next,
                    Flow::Stop => Flow::Stop,
                }
            };
            let search = ItemSearch {
                threads,
                end: survivors.len().div_ceil(ITEM) as u64,
                new_state: &|| (),
                work: &work,
            };
            let found = first_in_order(&search, counts, &mut *progress);
            match found {
                Ok(Some((_, i))) => {
                    let rest = batch.split_off(i + 1);
                    let winner = batch.pop();
                    wipe(&mut batch);
                    pending.candidates.extend(rest);
                    return winner.ok_or(Error::GenerationFailed);
                }
                Ok(None) => {
                    tried += batch.len();
                    wipe(&mut batch);
                }
                Err(Cancelled) => {
                    wipe(&mut batch);
                    return Err(Error::Cancelled);
                }
            }
        }
        Err(Error::GenerationFailed)
    }

    /// Whether the candidate `c` (item `item` of a search) is kept: `Done`
    /// when it meets the size, distance and `e` conditions and passes
    /// MR64, with cheap tests first to reject composites early. Each check
    /// is constant time.
    #[cfg(not(feature = "std"))]
    fn acceptable(
        &self,
        c: &U,
        other: Option<&U>,
        item: u64,
        counts: &mut Progress,
        ctl: &mut dyn Control,
    ) -> Flow<()> {
        if !self.survives_sieve(c, other) {
            return Flow::Next;
        }
        let Some(mr) = MillerRabin::new(c, self.limbs) else {
            return Flow::Next;
        };
        counts.tests += 1;
        if !mr.fermat_two_passes() {
            return Flow::Next;
        }
        self.final_checks(c, &mr, item, counts, ctl)
    }

    /// The first of the candidates `batch[j]` for `j` in `survivors`
    /// (which passed [`survives_sieve`](Self::survives_sieve); item `item`
    /// of a search) that is kept, by its index in `batch`: the checks of
    /// `acceptable` after the sieve, in the same order for each, except
    /// that the Fermat tests of them all run as one batch
    /// ([`MillerRabin::fermat_two_batch`]), before the rest in order.
    #[cfg(feature = "std")]
    fn first_acceptable(
        &self,
        batch: &[U],
        survivors: &[usize],
        item: u64,
        counts: &mut Progress,
        ctl: &mut dyn Control,
    ) -> Flow<usize> {
        let tests: std::vec::Vec<(usize, MillerRabin<U>)> = survivors
            .iter()
            .filter_map(|&j| Some((j, MillerRabin::new(&batch[j], self.limbs)?)))
            .collect();
        counts.tests += tests.len() as u64;
        let each: std::vec::Vec<&MillerRabin<U>> = tests.iter().map(|(_, mr)| mr).collect();
        let verdicts = MillerRabin::fermat_two_batch(&each);
        for ((j, mr), passed) in tests.iter().zip(verdicts) {
            if !passed {
                continue;
            }
            match self.final_checks(&batch[*j], mr, item, counts, ctl) {
                Flow::Done(()) => return Flow::Done(*j),
                Flow::Next => {}
                Flow::Stop => return Flow::Stop,
            }
        }
        Flow::Next
    }

    /// The checks before any exponentiation, each constant time and its
    /// verdict declassified (a rejection reveals only that this candidate,
    /// which is then discarded, failed it): `|c − other| > 2^(half − 100)`
    /// for the second prime, and no small factor.
    fn survives_sieve(&self, c: &U, other: Option<&U>) -> bool {
        let (half, limbs) = (self.half, self.limbs);
        let one = c.like_u64(1);
        debug_assert!(
            bool::from(self.big_enough(c)),
            "draw() returns only big enough candidates"
        );
        if let Some(p) = other {
            // |c − p|, without revealing which of the two is larger.
            let mut diff = c.wrapping_sub(p);
            let negated = diff.wrapping_neg();
            let c_below = c.ct_lt_value(p);
            for (d, n) in diff.as_mut().iter_mut().zip(negated.as_ref()) {
                d.conditional_assign(n, c_below);
            }
            if !declassify_choice(one.shl_vartime(half - 100).ct_lt_value(&diff)) {
                return false;
            }
        }
        !declassify_choice(small_factor_ct(
            &c.as_ref()[..limbs],
            fips_trial_primes(half),
        ))
    }

    /// The checks after a passed Fermat test: `gcd(c − 1, e) = 1`, then
    /// MR64 (`Done` when both hold).
    fn final_checks(
        &self,
        c: &U,
        mr: &MillerRabin<U>,
        item: u64,
        counts: &mut Progress,
        ctl: &mut dyn Control,
    ) -> Flow<()> {
        // gcd(p - 1, e) = 1 exactly when p - 1 is invertible modulo odd e.
        let e = c.like_u64(self.e);
        // (`inv_mod`'s error is its declassified verdict.)
        let coprime = c
            .wrapping_sub(&c.like_u64(1))
            .rem(&e)
            .is_ok_and(|r| r.inv_mod(&e).is_ok());
        if !coprime {
            return Flow::Next;
        }
        counts.finalists += 1;
        let bases = HashBases::new(&self.key, &c.as_ref()[..self.limbs]);
        final_test(&[(mr, &bases)], MR64_ROUNDS, item, counts, ctl)
    }
}
