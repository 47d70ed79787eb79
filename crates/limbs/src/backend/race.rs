//! A race between backends whose order changes with the machine's load (a
//! row of `preference` that names two or three racers): the process times
//! them on its own exponentiations and runs the fastest.
//!
//! Why: where another program keeps the core's sibling hardware thread
//! busy, a kernel that computes its quotients in scalar code slows by up
//! to a fifth and one that keeps them in the vector unit does not
//! (benches/RESULTS.md, "A race between kernels"); no fixed order wins in
//! both states. Each exponentiation of a racing size is timed (two clock
//! reads; a batch's passes or pairs at once); the leader runs, and
//! one in 64 runs another, in turn, so that every time stays current.
//!
//! What it sees: durations of constant-time exponentiations, which do not
//! depend on their operands (`.ci/ct-check`), and of variable-time ones to
//! public exponents: the machine's doing. What it steers: which of two or
//! three kernels runs. Builds without `std` (no clock) and audit builds
//! (whose instruction counts must not depend on timings) do not race: the
//! row's first backend runs.

use super::Exponentiation;

/// The exponentiations of a size that explore more often, at first.
#[cfg(feature = "std")]
pub(crate) const EARLY: u32 = 256;

/// Past the first [`EARLY`], one exponentiation in this many runs a
/// backend that is behind.
#[cfg(feature = "std")]
pub(crate) const EXPLORE: u32 = 64;

/// The most backends a row races.
pub(crate) const MAX_RACERS: usize = 3;

/// The backends that race at one size and shape, the row's order first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Racers {
    backends: [Exponentiation; MAX_RACERS],
    len: usize,
}

impl Racers {
    /// The first `len` of `order` (at most [`MAX_RACERS`]); `None` for
    /// fewer than two.
    pub(crate) fn of(mut order: impl Iterator<Item = Exponentiation>, len: usize) -> Option<Self> {
        let mut backends = [Exponentiation::LimbKernels; MAX_RACERS];
        let mut n = 0;
        while n < len.min(MAX_RACERS) {
            let Some(e) = order.next() else { break };
            backends[n] = e;
            n += 1;
        }
        (n >= 2).then_some(Racers { backends, len: n })
    }

    /// The racers, the row's order first.
    pub fn backends(&self) -> &[Exponentiation] {
        &self.backends[..self.len]
    }
}

#[cfg(all(feature = "std", not(feature = "ct-audit")))]
mod timed {
    extern crate std;

    use core::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering::Relaxed};
    use std::time::Instant;

    use super::super::{BATCH, SHORT_EXPONENT};
    use super::{EARLY, EXPLORE, Exponentiation, MAX_RACERS, Racers};

    /// One exponentiation in this many among a size's first [`EARLY`]
    /// runs a backend that is behind (later one in [`EXPLORE`]), so that a
    /// first time taken on a cold cache or in a burst is soon replaced.
    pub(super) const EXPLORE_EARLY: u32 = 8;

    /// A slower time weighs this fraction (1/n) of a racer's running mean.
    const WEIGHT: u64 = 8;

    /// The largest modulus that races, in limbs (no row races past 103).
    const MAX_LIMBS: usize = 128;

    /// The shapes that race, in the cells' order: one constant-time
    /// exponentiation, a pair, one variable-time to a short exponent, a
    /// batch.
    const SHAPES: [usize; 4] = [1, 2, SHORT_EXPONENT, BATCH];

    /// The state of one size and shape.
    pub(super) struct Cell {
        /// Exponentiations started.
        started: AtomicU32,
        /// Which racer leads.
        leader: AtomicU8,
        /// Each racer's running mean, in nanoseconds (per 64 exponent bits
        /// where the exponent's length varies); 0 until it first ran.
        cost: [AtomicU64; MAX_RACERS],
    }

    impl Cell {
        pub(super) const fn new() -> Self {
            Cell {
                started: AtomicU32::new(0),
                leader: AtomicU8::new(0),
                cost: [const { AtomicU64::new(0) }; MAX_RACERS],
            }
        }

        pub(super) fn leader(&self, racers: usize) -> usize {
            usize::from(self.leader.load(Relaxed)) % racers
        }

        /// Which of `racers` runs next: each once first, then the leader,
        /// and every [`EXPLORE`]th time (early on, every
        /// [`EXPLORE_EARLY`]th) one of the others, in turn.
        pub(super) fn pick(&self, racers: usize) -> usize {
            let started = self.started.fetch_add(1, Relaxed);
            if let Some(unrun) = (0..racers).find(|&i| self.cost[i].load(Relaxed) == 0) {
                return unrun;
            }
            let leader = self.leader(racers);
            let every = match started < EARLY {
                true => EXPLORE_EARLY,
                false => EXPLORE,
            };
            match started % every == every - 1 {
                true => {
                    let turn = (started / every) as usize % (racers - 1);
                    (leader + 1 + turn) % racers
                }
                false => leader,
            }
        }

        /// Counts a run of racer `which` that took `sample`, and hands the
        /// lead to the fastest when it is faster than the leader by more
        /// than 1/64 (level racers do not swap on every run).
        pub(super) fn record(&self, racers: usize, which: usize, sample: u64) {
            let old = self.cost[which].load(Relaxed);
            // Noise only ever adds time: a run faster than the mean moves
            // it three quarters of the way there; a slower one counts as at
            // most a quarter
            // slower, with a weight of 1/8 (a preempted run moves it by
            // 1/32, a machine that stays slower as far in a few runs).
            let new = match old {
                0 => sample,
                _ if sample < old => (old + 3 * sample) / 4,
                _ => (old * (WEIGHT - 1) + sample.min(old + old / 4)) / WEIGHT,
            };
            let new = new.max(1);
            self.cost[which].store(new, Relaxed);
            let cost = |i: usize| self.cost[i].load(Relaxed);
            let leader = self.leader(racers);
            let fastest = (0..racers)
                .filter(|&i| cost(i) != 0)
                .min_by_key(|&i| cost(i))
                .unwrap_or(leader);
            if cost(fastest).saturating_mul(65) < cost(leader).saturating_mul(64) {
                self.leader.store(fastest as u8, Relaxed);
            }
        }
    }

    static CELLS: [Cell; SHAPES.len() * (MAX_LIMBS + 1)] =
        [const { Cell::new() }; SHAPES.len() * (MAX_LIMBS + 1)];

    fn cell(nlimbs: usize, interleave: usize) -> Option<&'static Cell> {
        let shape = SHAPES.iter().position(|&s| s == interleave)?;
        (nlimbs <= MAX_LIMBS).then(|| &CELLS[shape * (MAX_LIMBS + 1) + nlimbs])
    }

    /// Times one exponentiation of a racing size ([`start`]).
    #[must_use]
    pub(crate) struct Lap(Option<Timing>);

    struct Timing {
        cell: &'static Cell,
        racers: usize,
        which: usize,
        interleave: usize,
        start: Instant,
    }

    impl Lap {
        /// A lap that records nothing (a size that does not race).
        pub(crate) const fn idle() -> Self {
            Lap(None)
        }

        /// Ends the lap of an exponentiation of `nlimbs`-limb moduli to
        /// `exp_bits`-bit exponents and counts its time for its backend.
        /// Constant-time exponentiations to short exponents, whose fixed
        /// costs (the table, the conversions) weigh more, are not counted.
        pub(crate) fn finish(self, nlimbs: usize, exp_bits: u32) {
            self.finish_shared(nlimbs, exp_bits, 1);
        }

        /// [`finish`](Self::finish) for a lap that ran `exponentiations` at
        /// once (a batch's passes or its pairs), each counted at its share
        /// of the time.
        pub(crate) fn finish_shared(self, nlimbs: usize, exp_bits: u32, exponentiations: usize) {
            let Lap(Some(t)) = self else {
                return;
            };
            let Some(share) = u64::try_from(exponentiations).ok().filter(|&n| n > 0) else {
                return;
            };
            let nanos = u64::try_from(t.start.elapsed().as_nanos()).unwrap_or(u64::MAX) / share;
            let sample = match t.interleave {
                SHORT_EXPONENT => nanos,
                _ if (exp_bits as usize) < 16 * nlimbs => return,
                _ => nanos.saturating_mul(64) / u64::from(exp_bits),
            };
            t.cell.record(t.racers, t.which, sample);
        }
    }

    /// Which of `racers` runs an exponentiation of `nlimbs`-limb moduli,
    /// `interleave` at once ([`Cell::pick`]), with the lap that times it.
    pub(crate) fn start(nlimbs: usize, interleave: usize, racers: Racers) -> (Exponentiation, Lap) {
        let backends = racers.backends();
        match cell(nlimbs, interleave) {
            Some(cell) => {
                let which = cell.pick(backends.len());
                let timing = Timing {
                    cell,
                    racers: backends.len(),
                    which,
                    interleave,
                    start: Instant::now(),
                };
                (backends[which], Lap(Some(timing)))
            }
            None => (backends[0], Lap::idle()),
        }
    }

    /// The racer that leads now.
    pub(crate) fn leader(nlimbs: usize, interleave: usize, racers: Racers) -> Exponentiation {
        let backends = racers.backends();
        cell(nlimbs, interleave).map_or(backends[0], |cell| backends[cell.leader(backends.len())])
    }
}

#[cfg(not(all(feature = "std", not(feature = "ct-audit"))))]
mod timed {
    use super::{Exponentiation, Racers};

    /// Nothing races without a clock: a lap records nothing.
    pub(crate) struct Lap;

    impl Lap {
        pub(crate) const fn idle() -> Self {
            Lap
        }

        pub(crate) fn finish(self, _nlimbs: usize, _exp_bits: u32) {}

        pub(crate) fn finish_shared(self, _nlimbs: usize, _exp_bits: u32, _exponentiations: usize) {
        }
    }

    pub(crate) fn start(
        _nlimbs: usize,
        _interleave: usize,
        racers: Racers,
    ) -> (Exponentiation, Lap) {
        (racers.backends()[0], Lap)
    }

    pub(crate) fn leader(_nlimbs: usize, _interleave: usize, racers: Racers) -> Exponentiation {
        racers.backends()[0]
    }
}

pub(crate) use timed::{Lap, leader, start};

#[cfg(all(test, feature = "std", not(feature = "ct-audit")))]
mod tests {
    use super::timed::{Cell, EXPLORE_EARLY};
    use super::{EARLY, EXPLORE};

    /// Which racer each of `n` runs takes, each run recorded with the time
    /// `cost[which]`.
    fn run(cell: &Cell, n: usize, cost: &[u64]) -> std::vec::Vec<usize> {
        (0..n)
            .map(|_| {
                let which = cell.pick(cost.len());
                cell.record(cost.len(), which, cost[which]);
                which
            })
            .collect()
    }

    #[test]
    fn the_fastest_leads_and_the_others_run_now_and_then() {
        extern crate std;
        let cell = Cell::new();
        // Each runs once first; then the fastest (1) leads, and the other
        // runs one time in EXPLORE_EARLY, then one in EXPLORE.
        let ran = run(&cell, EARLY as usize, &[110, 100]);
        assert_eq!(&ran[..2], &[0, 1]);
        assert_eq!(cell.leader(2), 1);
        let behind = ran[2..].iter().filter(|&&w| w == 0).count();
        assert_eq!(behind, (EARLY / EXPLORE_EARLY) as usize, "{ran:?}");
        let ran = run(&cell, 2 * EXPLORE as usize, &[110, 100]);
        let behind = ran.iter().filter(|&&w| w == 0).count();
        assert_eq!(behind, 2, "{ran:?}");
        // The machine changes: 1 slows by a fifth, 0 does not. The lead
        // passes within a few runs, and 1 runs only to be timed.
        let ran = run(&cell, 2 * EXPLORE as usize, &[110, 132]);
        assert_eq!(cell.leader(2), 0);
        let behind = ran[8..].iter().filter(|&&w| w == 1).count();
        assert_eq!(behind, 2, "{ran:?}");
        // Three racers: those behind take turns.
        let cell = Cell::new();
        run(&cell, EARLY as usize, &[120, 100, 130]);
        let ran = run(&cell, 4 * EXPLORE as usize, &[120, 100, 130]);
        assert_eq!(cell.leader(3), 1);
        let count = |k| ran.iter().filter(|&&w| w == k).count();
        assert_eq!((count(0), count(2)), (2, 2), "{ran:?}");
    }

    #[test]
    fn a_slow_first_time_is_soon_replaced() {
        extern crate std;
        // Racer 0's first run took twice its time (a cold cache): racer 1,
        // a tenth slower, leads until 0 runs again, a few runs later.
        let cell = Cell::new();
        cell.record(2, 0, cell_pick_then(&cell, 0, 200));
        let ran = run(&cell, 2 * EXPLORE_EARLY as usize, &[100, 110]);
        assert_eq!(cell.leader(2), 0, "{ran:?}");
    }

    /// `cell.pick(2)`, checked to be `which`, and `nanos` to record for it.
    fn cell_pick_then(cell: &Cell, which: usize, nanos: u64) -> u64 {
        assert_eq!(cell.pick(2), which);
        nanos
    }

    #[test]
    fn level_racers_do_not_swap_and_outliers_weigh_little() {
        extern crate std;
        let cell = Cell::new();
        run(&cell, 4, &[1000, 1010]);
        assert_eq!(cell.leader(2), 0);
        // Within 1/64 of each other: the lead stays.
        run(&cell, 1000, &[1000, 995]);
        assert_eq!(cell.leader(2), 0);
        // One preempted run (a thousand times as long) of the leader does
        // not hand the lead to a racer 10 % slower.
        let cell = Cell::new();
        run(&cell, 4, &[1000, 1100]);
        cell.record(2, 0, 1_000_000);
        assert_eq!(cell.leader(2), 0);
    }
}
