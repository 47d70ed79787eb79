//! The multi-threaded search (feature `std`): the single-threaded search's
//! work split over threads, with the same result. The argument is in the
//! crate documentation, "Multi-threaded search".

use core::num::NonZeroUsize;
use core::ops::ControlFlow;
use std::format;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread;

use subtle::Choice;
use zeroize::Zeroize;

use crate::Error;
use crate::control::{
    Cancelled, Control, FINAL_CHUNK, FinalRounds, Flow, ItemSearch, Progress, ProgressFn,
};

/// The cores the operating system offers this process (1 if it cannot say).
fn available_cores() -> usize {
    thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// The most worker threads a search accepts: [`THREADS_PER_CORE`](crate::THREADS_PER_CORE)
/// per available core, and at least 16 (more only cost memory and
/// switching).
pub fn max_threads() -> usize {
    (crate::THREADS_PER_CORE * available_cores()).max(16)
}

/// The number of workers for `threads` (`None`: one per available core),
/// checked against [`max_threads`].
pub(crate) fn thread_count(threads: Option<NonZeroUsize>) -> Result<usize, Error> {
    let n = threads.map_or_else(available_cores, NonZeroUsize::get);
    if n > max_threads() {
        return Err(Error::TooManyThreads { max: max_threads() });
    }
    Ok(n)
}

/// What the workers of one search share.
struct Shared<E> {
    threads: usize,
    /// The next item to hand out.
    next: AtomicU64,
    /// The smallest item with an outcome so far (`u64::MAX`: none yet).
    best: AtomicU64,
    cancelled: AtomicBool,
    outcome: Mutex<Option<(u64, E)>>,
    /// The counts of all workers, as last published.
    candidates: AtomicU64,
    tests: AtomicU64,
    finalists: AtomicU64,
    /// How many final candidates are being tested on every thread: while
    /// any is, the workers wait at their next report or check.
    testing: Mutex<usize>,
    tested: Condvar,
}

/// Locks `m`; a worker that panicked cannot have left it half-written.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<E: Zeroize> Shared<E> {
    /// Whether the work on `item` is no longer needed.
    fn stop(&self, item: u64) -> bool {
        self.cancelled.load(Ordering::Relaxed) || self.best.load(Ordering::Acquire) < item
    }

    /// Waits while a final candidate is being tested on every thread.
    fn wait_for_final_tests(&self) {
        let testing = lock(&self.testing);
        drop(
            self.tested
                .wait_while(testing, |n| *n > 0)
                .unwrap_or_else(|p| p.into_inner()),
        );
    }

    /// Keeps `e` if `item` is the earliest with an outcome.
    fn record(&self, item: u64, mut e: E) {
        let mut slot = lock(&self.outcome);
        match slot.as_mut() {
            Some((earlier, _)) if *earlier < item => e.zeroize(),
            _ => {
                if let Some((_, mut old)) = slot.replace((item, e)) {
                    old.zeroize();
                }
            }
        }
        self.best.fetch_min(item, Ordering::AcqRel);
    }

    fn totals(&self) -> Progress {
        Progress {
            candidates: self.candidates.load(Ordering::Relaxed),
            tests: self.tests.load(Ordering::Relaxed),
            finalists: self.finalists.load(Ordering::Relaxed),
        }
    }
}

/// A worker's [`Control`]: publishes its counts to the others; on the
/// calling thread it also reports everyone's counts to the caller.
struct Worker<'s, 'p, E> {
    shared: &'s Shared<E>,
    /// This worker's counts as last published.
    published: Progress,
    /// For the calling thread: the counts before the search, and the
    /// caller's callback.
    base: Progress,
    progress: Option<ProgressFn<'p>>,
}

impl<E: Zeroize> Worker<'_, '_, E> {
    fn publish(&mut self, counts: &Progress) {
        let s = self.shared;
        let p = &self.published;
        s.candidates
            .fetch_add(counts.candidates - p.candidates, Ordering::Relaxed);
        s.tests.fetch_add(counts.tests - p.tests, Ordering::Relaxed);
        s.finalists
            .fetch_add(counts.finalists - p.finalists, Ordering::Relaxed);
        self.published = *counts;
    }

    /// Publishes the counts and, on the calling thread, passes everyone's
    /// to the caller's callback, which may cancel.
    fn report_now(&mut self, counts: &Progress) -> ControlFlow<()> {
        self.publish(counts);
        if let Some(progress) = self.progress.as_mut() {
            let totals = self.base.plus(&self.shared.totals());
            if progress(&totals).is_break() {
                self.shared.cancelled.store(true, Ordering::Relaxed);
            }
        }
        if self.shared.cancelled.load(Ordering::Relaxed) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl<E: Zeroize + Send> Control for Worker<'_, '_, E> {
    fn report(&mut self, counts: &Progress) -> ControlFlow<()> {
        let flow = self.report_now(counts);
        self.shared.wait_for_final_tests();
        flow
    }

    fn abandon(&self, item: u64) -> bool {
        self.shared.wait_for_final_tests();
        self.shared.stop(item)
    }

    /// The final rounds on every thread: this one and `threads - 1`
    /// helpers started for them, while the other workers wait at their
    /// next report or check. A final candidate is almost always the
    /// prime, so its rounds come before the other workers' windows; none
    /// of their work is dropped, so the result stays the same.
    fn final_rounds(&mut self, job: &FinalRounds<'_>, counts: &mut Progress) -> Flow<Choice> {
        let (item, rounds, per_round, round) = (job.item, job.rounds, job.per_round, job.round);
        let shared = self.shared;
        *lock(&shared.testing) += 1;
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let all = AtomicBool::new(true);
        let stopped = AtomicBool::new(false);
        // Takes rounds until none is left; `keep_going` is asked after each.
        let share = |keep_going: &mut dyn FnMut(usize) -> bool| {
            loop {
                if shared.stop(item) {
                    stopped.store(true, Ordering::Relaxed);
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= rounds {
                    break;
                }
                all.fetch_and(bool::from(round(i)), Ordering::Relaxed);
                let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                if !keep_going(finished) {
                    stopped.store(true, Ordering::Relaxed);
                    break;
                }
            }
        };
        let before = *counts;
        thread::scope(|s| {
            for _ in 1..shared.threads {
                let helper = || {
                    let _dit = numcrypt_limbs::DataIndependentTiming::enable();
                    share(&mut |_| true)
                };
                if thread::Builder::new().spawn_scoped(s, helper).is_err() {
                    break;
                }
            }
            // This thread reports every few rounds (on the calling thread,
            // to the caller's callback, which may cancel).
            let mut mine = 0;
            share(&mut |finished| {
                mine += 1;
                if mine % FINAL_CHUNK != 0 {
                    return true;
                }
                let mut now = before;
                now.tests += finished as u64 * per_round;
                self.report_now(&now).is_continue()
            });
        });
        *lock(&shared.testing) -= 1;
        shared.tested.notify_all();
        counts.tests += done.load(Ordering::Relaxed) as u64 * per_round;
        if stopped.load(Ordering::Relaxed) {
            Flow::Stop
        } else {
            Flow::Done(Choice::from(all.load(Ordering::Relaxed) as u8))
        }
    }
}

/// [`crate::generate::first_in_order`] on `threads` workers: items are
/// handed out in increasing order, one worker each, and the outcome of the
/// smallest item that has one is returned, which is what the loop over the
/// items in order returns.
pub(crate) fn first_in_order<S, E: Zeroize + Send>(
    search: &ItemSearch<'_, S, E>,
    counts: &mut Progress,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Option<(u64, E)>, Cancelled> {
    let (threads, end, new_state, work) =
        (search.threads, search.end, search.new_state, search.work);
    let shared = Shared {
        threads,
        next: AtomicU64::new(0),
        best: AtomicU64::new(u64::MAX),
        cancelled: AtomicBool::new(false),
        outcome: Mutex::new(None),
        candidates: AtomicU64::new(0),
        tests: AtomicU64::new(0),
        finalists: AtomicU64::new(0),
        testing: Mutex::new(0),
        tested: Condvar::new(),
    };
    let base = *counts;
    // The caller hears once before any worker starts. Its reports come
    // from this thread only, and another worker can find the prime before
    // this one first reports: without this, a search cancelled at its first
    // report could still end with a prime, where the serial search (which
    // reports after sieving its first window, before any test) is
    // cancelled.
    if progress(&base).is_break() {
        return Err(Cancelled);
    }
    let run = |ctl: &mut Worker<'_, '_, E>| {
        let mut state = new_state();
        let mut local = Progress::default();
        loop {
            let item = shared.next.fetch_add(1, Ordering::Relaxed);
            if item >= end || ctl.abandon(item) {
                break;
            }
            match work(&mut state, item, &mut local, ctl) {
                Flow::Next => {}
                Flow::Done(e) => {
                    shared.record(item, e);
                    break;
                }
                Flow::Stop => break,
            }
        }
        ctl.publish(&local);
    };
    thread::scope(|s| {
        for t in 1..threads {
            let worker = || {
                let _dit = numcrypt_limbs::DataIndependentTiming::enable();
                run(&mut Worker {
                    shared: &shared,
                    published: Progress::default(),
                    base,
                    progress: None,
                })
            };
            let started = thread::Builder::new()
                .name(format!("numcrypt-prime-{t}"))
                .spawn_scoped(s, worker);
            if started.is_err() {
                // Fewer workers give the same result, only later.
                break;
            }
        }
        run(&mut Worker {
            shared: &shared,
            published: Progress::default(),
            base,
            progress: Some(progress),
        });
    });
    *counts = base.plus(&shared.totals());
    let mut outcome = shared
        .outcome
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    if shared.cancelled.load(Ordering::Relaxed) {
        if let Some((_, e)) = outcome.as_mut() {
            e.zeroize();
        }
        return Err(Cancelled);
    }
    Ok(outcome)
}
