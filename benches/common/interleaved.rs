//! The interleaved comparisons' helpers (printed lines beside the
//! criterion groups): peers take turns, a round each, so that a shared
//! machine's drift between seconds hits all of them alike. Used by the
//! root benches (`common::interleaved`) and by numcrypt-rustls' handshake
//! bench (through `#[path]`), so it depends on nothing but `std` and
//! `numcrypt_limbs` (a dependency of both), whose `PairedRatio` the
//! selection check uses too.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use numcrypt_limbs::backend::PairedRatio;

/// Times `peers` in turn for `rounds` rounds: in each, peer `p` runs
/// `run(p)` `block` times in a row, the first untimed when `block > 1`
/// (each peer then finds its own code and data warm, as a server busy
/// with one library does). Returns `times[p][r]`, the time of one run.
pub fn take_turns(
    peers: usize,
    rounds: usize,
    block: usize,
    mut run: impl FnMut(usize),
) -> Vec<Vec<Duration>> {
    let mut times = vec![Vec::with_capacity(rounds); peers];
    for _ in 0..rounds {
        for (p, t) in times.iter_mut().enumerate() {
            if block > 1 {
                run(p);
            }
            let timed = block.saturating_sub(1).max(1);
            let started = Instant::now();
            for _ in 0..timed {
                run(p);
            }
            t.push(started.elapsed() / timed as u32);
        }
    }
    times
}

/// `numcrypt 299.1 µs, aws-lc-rs 319.5 µs (1.07×), …`: each peer's
/// time and the first one's ratio to each other (their time ÷ its time).
pub fn compared(names: &[&str], times: &[Duration]) -> String {
    let ours = times[0];
    let mut line = format!("{} {:.1} µs", names[0], micros(ours));
    for (peer, &theirs) in names.iter().zip(times).skip(1) {
        let ratio = theirs.as_secs_f64() / ours.as_secs_f64();
        line += &format!(", {peer} {:.1} µs ({ratio:.2}×)", micros(theirs));
    }
    line
}

/// [`compared`] for times taken in rounds (`rounds[p][r]`: peer `p`, round
/// `r`), with each peer's paired ratio as well: the median over the
/// rounds of its time ÷ the first one's in the same round, and a 95 %
/// interval for it (`PairedRatio`: the sign test's order statistics). The
/// peers of a round run within a millisecond or two, so the paired ratio
/// is the one a guest whose speed drifts between seconds leaves least
/// disturbed.
pub fn compared_rounds(names: &[&str], rounds: &[Vec<Duration>]) -> String {
    let ours = &rounds[0];
    let mut line = format!("{} {:.1} µs", names[0], micros(median(ours.clone())));
    for (peer, theirs) in names.iter().zip(rounds).skip(1) {
        let ratio = median(theirs.clone()).as_secs_f64() / median(ours.clone()).as_secs_f64();
        line += &format!(
            ", {peer} {:.1} µs ({ratio:.2}×",
            micros(median(theirs.clone()))
        );
        if let Some(p) = PairedRatio::of(theirs, ours) {
            line += &format!(
                ", paired {:.2}× (95 %: {:.2}–{:.2})",
                p.median, p.low, p.high
            );
        }
        line += ")";
    }
    line
}

/// The median (the upper one of an even count).
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// A duration in microseconds.
pub fn micros(t: Duration) -> f64 {
    t.as_secs_f64() * 1e6
}

/// Whether the command line's filter (criterion's free argument), read as
/// plain text, lets `name` run: no filter, or one that occurs in it.
pub fn filter_allows(name: &str) -> bool {
    // Criterion's options that take a value (`--profile-time 6`).
    const VALUED: [&str; 12] = [
        "--save-baseline",
        "--baseline",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--color",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if VALUED.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return name.contains(&arg);
        }
    }
    true
}
