//! Random primes and safe primes by incremental sieving, and the search
//! loop that every generator shares (on one thread, or split over several
//! by the `parallel` module).

use core::ops::ControlFlow;

use numcrypt_limbs::Unsigned;
use rand_core::CryptoRng;
use subtle::Choice;
use zeroize::Zeroize;

use crate::Error;
use crate::control::{
    Cancelled, Control, FinalRounds, Flow, Inline, ItemSearch, Progress, ProgressFn,
};
use crate::int::PrimeInt;
use crate::mr::{HashBases, MR64_ROUNDS, MillerRabin, ROUNDS_AT_ONCE};
use crate::sieve::{Sieve, Step, sieve_primes};
use crate::small::is_prime_u64;
use crate::table::Modulus64;

/// Smallest bit length a [`PrimeKind::Prime`](crate::PrimeKind::Prime) search accepts (3 = `0b11` is the only
/// 2-bit prime with both top bits set).
pub const MIN_PRIME_BITS: u32 = 2;

/// Smallest bit length a [`PrimeKind::Safe`](crate::PrimeKind::Safe) search accepts (59 = 2·29 + 1 is the
/// smallest safe prime with its top two bits set above 7).
pub const MIN_SAFE_PRIME_BITS: u32 = 6;

/// How a search is run: the library always uses [`Tuning::DEFAULT`]; other
/// settings reach it only through the `insecure-bench-hooks` feature's
/// [`bench_hooks`](crate::bench_hooks), for measurements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Miller–Rabin rounds on a final candidate (64: MR64). Fewer give no
    /// `2^-128` guarantee against chosen inputs.
    pub final_rounds: usize,
    /// Table primes the sieve uses (`None`: the tuned default for the size).
    pub sieve_primes: Option<usize>,
}

impl Tuning {
    /// MR64 and the tuned sieve.
    pub const DEFAULT: Tuning = Tuning {
        final_rounds: MR64_ROUNDS,
        sieve_primes: None,
    };
}

/// Candidates below this many bits are searched with exact 64-bit
/// arithmetic instead of the sieve.
const SIEVE_MIN_BITS: u32 = 64;

/// The two searches the sieve runs (the builder's other kinds are built
/// on them).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A random prime.
    Prime,
    /// A random safe prime.
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

/// A random prime or safe prime, the search split over `threads` workers
/// (1: all on the calling thread). The result depends only on what is
/// drawn from `rng`, not on `threads`.
pub(crate) fn search<U: PrimeInt, R: CryptoRng + ?Sized>(
    kind: Kind,
    bits: u32,
    rng: &mut R,
    threads: usize,
    tuning: Tuning,
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
    let mut counts = Progress::default();
    let result = loop {
        let mut start = random_start(&zero, cbits, rng);
        let step = match kind {
            Kind::Prime => 2,
            Kind::Safe => {
                // Round up to q ≡ 5 (mod 6): add 2·((1 + q mod 3) mod 3),
                // in constant time (a remainder by the constant 3 compiles
                // to a multiplication).
                let r3 = Modulus64::new(3).rem_ct(start.as_ref());
                let add = 2 * ((1 + r3) % 3);
                start = start.wrapping_add(&start.like_u64(add));
                6
            }
        };
        let seq = Sequence {
            kind,
            cbits,
            start: &start,
            step: &start.like_u64(step),
            public_step: Some(step),
            key: &key,
            tuning,
        };
        let found = seq.run(threads, &mut counts, progress);
        start.as_mut().zeroize();
        // A prime, or an error, ends the search; nothing found tries again.
        if let Some(outcome) = found.transpose() {
            break outcome;
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

/// One candidate sequence `start + j·step` (`step` even), searched for its
/// first prime (for [`Kind::Safe`]: the first `q` with `q` and `2q + 1`
/// prime) below `2^cbits`.
pub(crate) struct Sequence<'a, U> {
    pub(crate) kind: Kind,
    pub(crate) cbits: u32,
    pub(crate) start: &'a U,
    pub(crate) step: &'a U,
    /// The step, when it is a public small number (2 or 6).
    pub(crate) public_step: Option<u64>,
    /// The key of the final candidates' Miller–Rabin bases.
    pub(crate) key: &'a [u8; 32],
    pub(crate) tuning: Tuning,
}

/// What the search of a sequence found in a window.
pub(crate) enum Event<U: Unsigned> {
    /// The first prime in the window (for [`Kind::Safe`], `p = 2q + 1`).
    Found(U),
    /// The sequence ran past `2^cbits`: start again elsewhere.
    Exhausted,
}

impl<U: Unsigned> Zeroize for Event<U> {
    fn zeroize(&mut self) {
        if let Event::Found(p) = self {
            p.as_mut().zeroize();
        }
    }
}

/// Runs `work` on the items `0, 1, 2, … < end` in order, or split over
/// `threads` workers, and returns the first item's outcome: the same
/// either way. `counts` carries the progress counts in and out.
pub(crate) fn first_in_order<S, E: Zeroize + Send>(
    search: &ItemSearch<'_, S, E>,
    counts: &mut Progress,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Option<(u64, E)>, Cancelled> {
    #[cfg(feature = "std")]
    if search.threads > 1 {
        return crate::parallel::first_in_order(search, counts, progress);
    }
    let (end, new_state, work) = (search.end, search.new_state, search.work);
    let mut ctl = Inline::new(progress);
    let mut state = new_state();
    for item in 0..end {
        match work(&mut state, item, counts, &mut ctl) {
            Flow::Next => {}
            Flow::Done(e) => return Ok(Some((item, e))),
            Flow::Stop => break,
        }
    }
    if ctl.cancelled {
        Err(Cancelled)
    } else {
        Ok(None)
    }
}

/// A worker's sieve, built on first use and moved to each window it is
/// given.
pub(crate) struct SieveAt {
    sieve: Option<Sieve>,
    next: u64,
}

impl<U: PrimeInt> Sequence<'_, U> {
    /// The sequence's first prime: `Ok(None)` when it ran out first (start
    /// again elsewhere). `threads` workers split the windows; the result is
    /// the one a single thread would find.
    pub(crate) fn run(
        &self,
        threads: usize,
        counts: &mut Progress,
        progress: ProgressFn<'_>,
    ) -> Result<Option<U>, Error> {
        // Candidates must stay below 2^cbits (checked for each); this bound
        // only stops a search that has run for 2^40 windows.
        let windows = 1u64 << (self.cbits - 2).min(40);
        let new_state = || SieveAt {
            sieve: None,
            next: 0,
        };
        let work = |at: &mut SieveAt, w: u64, counts: &mut Progress, ctl: &mut dyn Control| {
            self.window(at, w, counts, ctl)
        };
        let search = ItemSearch {
            threads,
            end: windows,
            new_state: &new_state,
            work: &work,
        };
        let found = first_in_order(&search, counts, progress);
        match found {
            Err(Cancelled) => Err(Error::Cancelled),
            Ok(Some((_, Event::Found(p)))) => {
                // A last report with the final counts; too late to cancel.
                let _ = progress(counts);
                Ok(Some(p))
            }
            Ok(Some((_, Event::Exhausted))) | Ok(None) => Ok(None),
        }
    }

    /// Sieves window `w` and tests its survivors in order.
    fn window(
        &self,
        at: &mut SieveAt,
        w: u64,
        counts: &mut Progress,
        ctl: &mut dyn Control,
    ) -> Flow<Event<U>> {
        let safe = self.kind == Kind::Safe;
        let sieve = at.sieve.get_or_insert_with(|| {
            let step = match self.public_step {
                Some(s) => Step::Public(s),
                None => Step::Secret(self.step),
            };
            let primes = sieve_primes(self.cbits, safe, self.tuning.sieve_primes);
            Sieve::new(self.start, step, primes, safe)
        });
        sieve.skip_windows(w - at.next);
        at.next = w + 1;
        let len = sieve.len() as u64;
        let mut survivors = sieve.window();
        counts.candidates += len;
        if ctl.report(counts).is_break() {
            survivors.zeroize();
            return Flow::Stop;
        }
        let limbs = self.cbits.div_ceil(64) as usize;
        while let Some(j) = survivors.take_first() {
            if ctl.abandon(w) {
                survivors.zeroize();
                return Flow::Stop;
            }
            let index = self.start.like_u64(w * len + j as u64);
            let (advance, high) = index.widening_mul(self.step);
            let (mut c, carry) = self.start.carrying_add(&advance, 0);
            // Past 2^cbits (a secret-dependent event, but one with
            // probability about 2^-50 even at 64 bits): start again.
            let past_end = Choice::from((carry != 0) as u8)
                | !high.is_zero()
                | Choice::from((c.bits() > self.cbits) as u8);
            if numcrypt_limbs::ct_audit::declassify_choice(past_end) {
                c.as_mut().zeroize();
                survivors.zeroize();
                return Flow::Done(Event::Exhausted);
            }
            let verdict = self.test(&c, limbs, w, counts, ctl);
            c.as_mut().zeroize();
            match verdict {
                Flow::Next => {}
                Flow::Done(p) => {
                    survivors.zeroize();
                    return Flow::Done(Event::Found(p));
                }
                Flow::Stop => {
                    survivors.zeroize();
                    return Flow::Stop;
                }
            }
            if ctl.report(counts).is_break() {
                survivors.zeroize();
                return Flow::Stop;
            }
        }
        Flow::Next
    }

    /// Tests one sieve survivor `c` of window `w`: `Done` with the prime it
    /// yields, `Next` if it yields none.
    fn test(
        &self,
        c: &U,
        limbs: usize,
        w: u64,
        counts: &mut Progress,
        ctl: &mut dyn Control,
    ) -> Flow<U> {
        // The candidate is odd and at least 2^62, so this cannot fail.
        let Some(mr) = MillerRabin::new(c, limbs) else {
            return Flow::Next;
        };
        counts.tests += 1;
        if !mr.fermat_two_passes() {
            return Flow::Next;
        }
        let rounds = self.tuning.final_rounds;
        let qbases = HashBases::new(self.key, &c.as_ref()[..limbs]);
        match self.kind {
            Kind::Prime => {
                counts.finalists += 1;
                match final_test(&[(&mr, &qbases)], rounds, w, counts, ctl) {
                    Flow::Done(()) => Flow::Done(c.clone()),
                    Flow::Next => Flow::Next,
                    Flow::Stop => Flow::Stop,
                }
            }
            Kind::Safe => {
                let mut p = c.shl_vartime(1).wrapping_add(&c.like_u64(1));
                let plimbs = (self.cbits + 1).div_ceil(64) as usize;
                let Some(mrp) = MillerRabin::new(&p, plimbs) else {
                    return Flow::Next;
                };
                counts.tests += 1;
                if !mrp.fermat_two_passes() {
                    p.as_mut().zeroize();
                    return Flow::Next;
                }
                counts.finalists += 1;
                let pbases = HashBases::new(self.key, &p.as_ref()[..plimbs]);
                match final_test(&[(&mr, &qbases), (&mrp, &pbases)], rounds, w, counts, ctl) {
                    Flow::Done(()) => Flow::Done(p),
                    other => {
                        p.as_mut().zeroize();
                        match other {
                            Flow::Stop => Flow::Stop,
                            _ => Flow::Next,
                        }
                    }
                }
            }
        }
    }
}

/// `rounds` constant-time Miller–Rabin rounds on each of the given moduli
/// with its bases, through the worker's [`Control`] (which may spread them
/// over threads). `Done` when every round passed.
pub(crate) fn final_test<U: PrimeInt>(
    tests: &[(&MillerRabin<U>, &HashBases)],
    rounds: usize,
    item: u64,
    counts: &mut Progress,
    ctl: &mut dyn Control,
) -> Flow<()> {
    // Unit i is rounds AT·i to AT·i + AT − 1 (AT = ROUNDS_AT_ONCE, run as
    // one batch of exponentiations), with the bases of those rounds in
    // each stream whichever thread runs it: the same bases as running the
    // rounds in order.
    const AT: usize = ROUNDS_AT_ONCE;
    let units = rounds.div_ceil(AT);
    let round = |i: usize| {
        let mut all = Choice::from(1);
        for (mr, bases) in tests {
            let mut b = (*bases).clone();
            b.skip_limbs(AT * i * mr.limbs_per_base());
            all &= mr.rounds_ct(&mut b, (rounds - AT * i).min(AT));
        }
        // Declassified: a unit's failure ends the candidate's rounds, which
        // reveals only that the discarded candidate is composite.
        Choice::from(numcrypt_limbs::ct_audit::declassified(all.unwrap_u8()))
    };
    let per_unit = (AT * tests.len()) as u64;
    let job = FinalRounds {
        item,
        rounds: units,
        per_round: per_unit,
        round: &round,
    };
    let flow = ctl.final_rounds(&job, counts);
    if matches!(flow, Flow::Done(_)) {
        // The last unit may hold fewer than AT rounds per test.
        counts.tests -= ((units * AT - rounds) * tests.len()) as u64;
    }
    match flow {
        Flow::Done(all) if bool::from(all) => Flow::Done(()),
        Flow::Done(_) | Flow::Next => Flow::Next,
        Flow::Stop => Flow::Stop,
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
