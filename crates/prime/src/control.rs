//! How a search is steered: the progress it reports, how the work on one
//! item ends, and what a worker consults (the single-thread and the
//! multi-threaded searches each implement [`Control`]).

use core::ops::ControlFlow;

use subtle::Choice;

/// On one thread, the final rounds run in chunks of this many units (a
/// pair of rounds each), with a progress report and a chance to stop
/// between chunks.
pub(crate) const FINAL_CHUNK: usize = 4;

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

impl Progress {
    pub(crate) fn plus(mut self, other: &Progress) -> Progress {
        self.candidates += other.candidates;
        self.tests += other.tests;
        self.finalists += other.finalists;
        self
    }
}

/// A progress callback: return `ControlFlow::Break(())` to cancel the
/// search (which then fails with [`Error::Cancelled`](crate::Error::Cancelled)).
pub type ProgressFn<'a> = &'a mut dyn FnMut(&Progress) -> ControlFlow<()>;

/// What the work on one item (a window of candidates, or a candidate)
/// came to.
pub(crate) enum Flow<E> {
    /// Nothing here: go on to the next item.
    Next,
    /// The item holds the search's outcome, if no earlier item does.
    Done(E),
    /// The work stopped: cancelled, or no longer needed.
    Stop,
}

/// The final Miller–Rabin rounds on a candidate of `item`: `round(i)` for
/// `i` in `0..rounds` (units of rounds, a pair each), each adding
/// `per_round` tests to the counts.
#[derive(Clone, Copy)]
pub(crate) struct FinalRounds<'a> {
    pub(crate) item: u64,
    pub(crate) rounds: usize,
    pub(crate) per_round: u64,
    pub(crate) round: &'a (dyn Fn(usize) -> Choice + Sync),
}

/// A search over the items `0, 1, 2, … < end`: each worker's state comes
/// from `new_state`, each item's outcome from `work`.
pub(crate) struct ItemSearch<'a, S, E> {
    /// Workers to split the items over (one: in order, on this thread;
    /// always one without `std`).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) threads: usize,
    pub(crate) end: u64,
    pub(crate) new_state: &'a (dyn Fn() -> S + Sync),
    #[allow(clippy::type_complexity)]
    pub(crate) work: &'a (dyn Fn(&mut S, u64, &mut Progress, &mut dyn Control) -> Flow<E> + Sync),
}

/// What a worker consults while it works on an item.
pub(crate) trait Control {
    /// Reports the worker's counts; `Break` means stop at once.
    fn report(&mut self, counts: &Progress) -> ControlFlow<()>;
    /// Whether the work on `item` is no longer needed (an earlier item
    /// already holds the outcome, or the search was cancelled).
    fn abandon(&self, item: u64) -> bool;

    /// Runs `job` (adding its tests to `counts`) and returns whether all
    /// its rounds passed, or `Stop`. On one thread: in chunks of
    /// [`FINAL_CHUNK`] with a report and a check between chunks; the
    /// parallel search spreads the rounds over all its threads.
    fn final_rounds(&mut self, job: &FinalRounds<'_>, counts: &mut Progress) -> Flow<Choice> {
        let (item, rounds, per_round, round) = (job.item, job.rounds, job.per_round, job.round);
        let mut all = Choice::from(1);
        for i in 0..rounds {
            if i > 0
                && i % FINAL_CHUNK == 0
                && (self.report(counts).is_break() || self.abandon(item))
            {
                return Flow::Stop;
            }
            all &= round(i);
            counts.tests += per_round;
        }
        Flow::Done(all)
    }
}

/// The search was cancelled by the progress callback.
pub(crate) struct Cancelled;

/// The single-thread control: the caller's callback, and nothing to
/// abandon.
pub(crate) struct Inline<'p> {
    progress: &'p mut dyn FnMut(&Progress) -> ControlFlow<()>,
    pub(crate) cancelled: bool,
}

impl<'p> Inline<'p> {
    pub(crate) fn new(progress: &'p mut dyn FnMut(&Progress) -> ControlFlow<()>) -> Self {
        Inline {
            progress,
            cancelled: false,
        }
    }
}

impl Control for Inline<'_> {
    fn report(&mut self, counts: &Progress) -> ControlFlow<()> {
        let flow = (self.progress)(counts);
        self.cancelled |= flow.is_break();
        flow
    }

    fn abandon(&self, _item: u64) -> bool {
        false
    }
}
