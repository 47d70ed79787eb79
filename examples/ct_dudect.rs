//! A statistical timing test in the manner of dudect (Reparaz, Balasch and
//! Verbauwhede, 2017) for the exponentiation kernels, the batch kernels
//! (every lane fixed against every lane random) included: valgrind cannot
//! run AVX-512 IFMA, so this is the constant-time evidence for it, and a
//! second opinion on the mulx/adx and AVX2 kernels beside
//! `.ci/ct-memcheck`.
//!
//! ```text
//! cargo run --release --example ct_dudect [-- [--budget SECONDS] [--only TEXT]]
//! ```
//!
//! # What a test measures
//! Each test times one constant-time operation on two classes of inputs,
//! interleaved in a random order: a fixed input (a zero base and a zero
//! exponent, the values most likely to take a shortcut) and fresh uniform
//! ones. The exponents are bounded (`pow_bounded_on`): the window loop, the
//! table and its full scans, the conversions in and out are the code a
//! full-width exponent runs, with fewer windows, so a test collects several
//! times more samples a second than on the whole exponent.
//!
//! # The statistic
//! A shared machine's noise is bursty and one-sided (a neighbour or an
//! interrupt only ever adds time) and drifts over seconds (the other core's
//! load, the clock). So the samples come in batches of [`BATCH`], half of
//! each class in a random order, a few milliseconds long; in each batch each
//! class is summarised by its trimmed mean (the mean of its fastest
//! fraction: [`KEEP`] gives three fractions, the dudect crops made per
//! class), and the test is Student's t on the batches' differences, fixed
//! minus random, for each fraction. Drift cancels within a batch, a burst
//! spoils one batch's trimmed tail at most, and since each class is trimmed
//! by its own order statistics, a leak that moves a class's times by δ
//! moves the difference by δ, so the statistic's standard error `se` gives
//! the test's power directly: its resolution, `4.5 · se / mean`, is the
//! smallest leak (as a fraction of the mean time) that would reach
//! |t| = 4.5. The fastest fraction sees a shift through the noise best; the
//! widest sees a slow path that only some inputs take.
//!
//! # Verdicts
//! A leak is a fraction whose |t| reaches [`T_LIMIT`] with a difference of
//! at least [`SMALLEST_LEAK`] (0.1 %) of the operation's time. Below that,
//! the values alone move the time: on Zen 4 the 8-lane IFMA batch runs
//! 0.02 to 0.05 % longer with a window table of zeros than with a random
//! one, through the same instructions and addresses (a zero exponent in
//! both classes; `benches/RESULTS.md`, "Zeros and the clock"). That is the
//! CPU's doing (its power management, most likely, as in Hertzbleed),
//! which no constant-time code controls and a quiet machine resolves.
//! Finer software leaks are for the exact checks: instruction counts
//! (`.ci/ct-check`, the IFMA kernels included) and memcheck
//! (`.ci/ct-memcheck`).
//! A constant-time test passes when no fraction leaks and its best
//! resolution is at most [`RESOLUTION`] (1 %); it stops early at
//! [`TARGET_RESOLUTION`], where a 1 % leak would give |t| near 9. One that
//! leaks is measured again on fresh samples and the second
//! run decides (a real leak fails both; a burst of noise rarely repeats).
//! One that cannot reach 1 % within its share of the budget is INCONCLUSIVE,
//! which fails as a leak does, saying so: a test too noisy to see a leak
//! must not pass. The budget is shared: tests that conclude early leave
//! their time to the rest, and a last round gives what is left to the
//! inconclusive and the measured-again.
//!
//! Two controls must fail, or the test itself fails: the variable-time
//! exponentiation on the same inputs (a gross leak), and a planted leak: the
//! mulx/adx (or portable) constant-time exponentiation followed, when the
//! exponent's lowest bit is set, by a dummy loop lasting 1 % of the
//! operation's time. Half of the random inputs take the loop and none of the
//! fixed ones, so the planted leak moves the random class's mean by half a
//! percent: below the 1 % the tests promise to see.
//!
//! `.ci/ct-dudect` runs it (in CI too); `benches/RESULTS.md` has its runs.

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use numcrypt_limbs::backend::{self, Exponentiation, LimbKernels};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

/// |t| at or above this is a leak (dudect's threshold).
const T_LIMIT: f64 = 4.5;
/// The smallest difference, as a fraction of the mean, called a leak
/// however large its |t| (see "Verdicts" above).
const SMALLEST_LEAK: f64 = 0.001;
/// The resolution (the leak, as a fraction of the mean, that would just
/// reach |t| = 4.5) a constant-time test must reach.
const RESOLUTION: f64 = 0.01;
/// The resolution at which a constant-time test stops early.
const TARGET_RESOLUTION: f64 = 0.005;
/// Samples a batch, half of each class.
const BATCH: usize = 64;
/// Batches before any verdict: enough for Student's t on their differences
/// to be near normal.
const MIN_BATCHES: usize = 24;
/// The fractions of each class kept, fastest first, in each batch.
const KEEP: [f64; 3] = [0.25, 0.5, 0.9];
/// The planted leak's dummy loop, as a fraction of the operation's time.
const PLANTED_LEAK: f64 = 0.01;
/// The whole run's default budget, seconds (`--budget`).
const DEFAULT_BUDGET: f64 = 420.0;
/// The share of the budget the first round hands out; the rest goes to the
/// tests that are inconclusive or measured again.
const FIRST_ROUND: f64 = 0.75;

/// Running mean and variance (Welford).
#[derive(Clone, Copy, Default)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    fn standard_error(&self) -> f64 {
        (self.m2 / (self.n - 1.0) / self.n).sqrt()
    }
}

/// One test's evidence so far: each kept fraction's batch differences, and
/// the time (the mean of each batch's classes' faster halves: the
/// operation's time without the noise).
#[derive(Clone, Copy, Default)]
struct Evidence {
    differences: [Moments; KEEP.len()],
    time: Moments,
    samples: usize,
    seconds: f64,
}

impl Evidence {
    /// `(t, resolution, difference)` of each kept fraction, the last two
    /// as fractions of the mean time.
    fn stats(&self) -> [(f64, f64, f64); KEEP.len()] {
        self.differences.map(|d| {
            let se = d.standard_error();
            (
                d.mean / se,
                T_LIMIT * se / self.time.mean,
                d.mean / self.time.mean,
            )
        })
    }

    fn enough(&self) -> bool {
        self.differences[0].n >= MIN_BATCHES as f64
    }

    /// The largest |t| (with its sign) and its fraction's difference.
    fn t(&self) -> (f64, f64) {
        self.stats()
            .into_iter()
            .map(|(t, _, difference)| (t, difference))
            .max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()))
            .unwrap_or((0.0, 0.0))
    }

    /// The best resolution of the kept fractions.
    fn resolution(&self) -> f64 {
        self.stats()
            .into_iter()
            .map(|(_, r, _)| r)
            .fold(f64::INFINITY, f64::min)
    }

    fn leaks(&self) -> bool {
        self.enough()
            && self
                .stats()
                .into_iter()
                .any(|(t, _, difference)| t.abs() >= T_LIMIT && difference.abs() >= SMALLEST_LEAK)
    }

    fn resolved(&self, resolution: f64) -> bool {
        self.enough() && self.resolution() <= resolution
    }
}

/// One class's inputs: a base and an exponent for each modulus.
type Inputs = Vec<(MontyForm<BoxedUint>, BoxedUint)>;

/// Runs the operation once on the moduli and inputs.
type Operation = Box<dyn Fn(&[MontyParams<BoxedUint>], &Inputs)>;

/// What a test must show.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// No leak, at a resolution of at most 1 %.
    ConstantTime,
    /// A leak: the controls.
    Leak,
}

/// An operation under test, on the inputs of either class.
struct Test<'a> {
    name: String,
    moduli: &'a [MontyParams<BoxedUint>],
    exp_bits: u32,
    expect: Expect,
    run: Operation,
}

impl Test<'_> {
    fn random_inputs(&self, rng: &mut ChaCha20Rng) -> Inputs {
        self.moduli
            .iter()
            .map(|p| {
                let m = p.modulus();
                let base = BoxedUint::random_below(rng, m).expect("non-zero modulus");
                let exp = BoxedUint::random_bits(rng, self.exp_bits, m.nlimbs());
                (p.to_monty(&base), exp)
            })
            .collect()
    }

    fn fixed_inputs(&self) -> Inputs {
        self.moduli
            .iter()
            .map(|p| (p.zero(), p.modulus().zero_like()))
            .collect()
    }

    /// Nanoseconds for one run.
    fn time(&self, inputs: &Inputs) -> f64 {
        let start = Instant::now();
        (self.run)(self.moduli, inputs);
        start.elapsed().as_nanos() as f64
    }

    /// Adds batches to `evidence` until the test is decided or `seconds`
    /// have passed.
    fn measure(&self, evidence: &mut Evidence, rng: &mut ChaCha20Rng, seconds: f64) {
        let started = Instant::now();
        let fixed = self.fixed_inputs();
        loop {
            // The batch's inputs first, then the timings, in a random order.
            let mut batch: Vec<(usize, Inputs)> = (0..BATCH)
                .map(|i| match i % 2 {
                    0 => (0, fixed.clone()),
                    _ => (1, self.random_inputs(rng)),
                })
                .collect();
            for i in (1..batch.len()).rev() {
                batch.swap(i, rng.next_u32() as usize % (i + 1));
            }
            let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
            for (class, inputs) in &batch {
                times[*class].push(self.time(inputs));
            }
            for class in &mut times {
                class.sort_by(f64::total_cmp);
            }
            for (k, keep) in KEEP.iter().enumerate() {
                let [fixed, random] = times.each_ref().map(|t| trimmed_mean(t, *keep));
                evidence.differences[k].push(fixed - random);
            }
            let [fixed, random] = times.each_ref().map(|t| trimmed_mean(t, 0.5));
            evidence.time.push((fixed + random) / 2.0);
            evidence.samples += BATCH;
            let decided = match self.expect {
                Expect::ConstantTime => evidence.leaks() || evidence.resolved(TARGET_RESOLUTION),
                Expect::Leak => evidence.leaks(),
            };
            let spent = started.elapsed().as_secs_f64();
            if decided || spent > seconds {
                evidence.seconds += spent;
                return;
            }
        }
    }
}

/// The mean of the fastest `keep` of `sorted` (at least one sample).
fn trimmed_mean(sorted: &[f64], keep: f64) -> f64 {
    let n = ((sorted.len() as f64 * keep).round() as usize).clamp(1, sorted.len());
    sorted[..n].iter().sum::<f64>() / n as f64
}

/// A test's state between rounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    /// Constant time, resolved, no leak.
    Pass,
    /// A control that leaked, as it must.
    Caught,
    /// |t| reached the limit on a constant-time test.
    Leak,
    /// Neither resolved nor leaking: more samples needed.
    Inconclusive,
}

fn state(test: &Test<'_>, evidence: &Evidence) -> State {
    match test.expect {
        Expect::Leak if evidence.leaks() => State::Caught,
        Expect::Leak => State::Inconclusive,
        Expect::ConstantTime if evidence.leaks() => State::Leak,
        Expect::ConstantTime if evidence.resolved(RESOLUTION) => State::Pass,
        Expect::ConstantTime => State::Inconclusive,
    }
}

/// One line of the report.
fn print_row(test: &Test<'_>, evidence: &Evidence, verdict: &str) {
    let (t, difference) = evidence.t();
    println!(
        "{:>8} {:>9.1} {:>10.2}% {:>8.2} {:>9.3}% {:>6.0}s  {} {verdict}",
        evidence.samples,
        evidence.time.mean / 1000.0,
        evidence.resolution() * 100.0,
        t,
        difference * 100.0,
        evidence.seconds,
        test.name,
    );
}

/// A random odd modulus of `bits` bits, top bit set (public, as moduli are).
fn modulus(bits: u32, rng: &mut ChaCha20Rng) -> MontyParams<BoxedUint> {
    let limbs = bits.div_ceil(64) as usize;
    let mut m = BoxedUint::random_bits(rng, bits, limbs);
    let words = m.as_mut();
    words[0] |= 1;
    words[limbs - 1] |= 1 << 63;
    MontyParams::new(m).expect("odd")
}

/// A loop the optimiser keeps, `iterations` long.
fn spin(iterations: u64) {
    for i in 0..iterations {
        black_box(i);
    }
}

/// Iterations of [`spin`] that take `fraction` of `test`'s median time on
/// random inputs.
fn calibrate_spin(test: &Test<'_>, fraction: f64, rng: &mut ChaCha20Rng) -> u64 {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let op = median(
        (0..101)
            .map(|_| test.time(&test.random_inputs(rng)))
            .collect(),
    );
    const PROBE: u64 = 100_000;
    let per_iteration = median(
        (0..21)
            .map(|_| {
                let start = Instant::now();
                spin(PROBE);
                start.elapsed().as_nanos() as f64
            })
            .collect(),
    ) / PROBE as f64;
    (op * fraction / per_iteration).round() as u64
}

struct Args {
    budget: f64,
    only: Option<String>,
}

fn parse_args() -> Option<Args> {
    let mut args = Args {
        budget: DEFAULT_BUDGET,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--budget" => args.budget = it.next()?.parse().ok().filter(|b: &f64| *b > 0.0)?,
            "--only" => args.only = Some(it.next()?),
            _ => return None,
        }
    }
    Some(args)
}

fn main() -> ExitCode {
    let Some(args) = parse_args() else {
        eprintln!("usage: ct_dudect [--budget SECONDS] [--only TEXT]");
        return ExitCode::from(2);
    };
    println!("{}", backend::selection());
    let mut rng = ChaCha20Rng::seed_from_u64(4_500);
    let one = [modulus(2048, &mut rng)];
    let pair = [modulus(1024, &mut rng), modulus(1024, &mut rng)];
    let batch: [_; 8] = core::array::from_fn(|_| modulus(1024, &mut rng));
    // The 2048-bit exponentiation keeps the largest window (6 bits, which
    // exponents above 1280 bits get) on an exponent of 1281 bits; the pair
    // is RSA-2048's CRT on its full 1024-bit exponents.
    const SINGLE_EXP_BITS: u32 = 1281;
    const PAIR_EXP_BITS: u32 = 1024;

    let limb_label = match backend::selection().limb_kernels() {
        LimbKernels::Adx => "mulx/adx",
        LimbKernels::Portable => "portable",
        _ => "limb kernels",
    };
    let mut tests = Vec::new();
    for kernel in [
        Exponentiation::LimbKernels,
        Exponentiation::Ifma256,
        Exponentiation::Ifma512,
        Exponentiation::Avx2,
        Exponentiation::Avx512,
    ] {
        let label = match kernel {
            Exponentiation::LimbKernels => limb_label,
            other => other.name(),
        };
        if kernel.available(one[0].modulus().nlimbs(), 1) {
            tests.push(Test {
                name: format!("{label}: 2048-bit modulus, {SINGLE_EXP_BITS}-bit exponent"),
                moduli: &one,
                exp_bits: SINGLE_EXP_BITS,
                expect: Expect::ConstantTime,
                run: Box::new(move |m, x| {
                    black_box(m[0].pow_bounded_on(kernel, &x[0].0, &x[0].1, SINGLE_EXP_BITS));
                }),
            });
        }
        if kernel.available(pair[0].modulus().nlimbs(), 2) {
            tests.push(Test {
                name: format!("{label}: two 1024-bit exponentiations (RSA-2048's CRT halves)"),
                moduli: &pair,
                exp_bits: PAIR_EXP_BITS,
                expect: Expect::ConstantTime,
                run: Box::new(move |m, x| {
                    let pair = [0, 1].map(|k| (&m[k], &x[k].0, x[k].1.as_ref()));
                    black_box(MontyParams::pow_bounded_pair_on(
                        kernel,
                        pair,
                        PAIR_EXP_BITS,
                    ));
                }),
            });
        }
    }
    // The batch kernels: one pass, every lane fixed (zero base and
    // exponent) against every lane random.
    for kernel in [
        Exponentiation::IfmaBatch,
        Exponentiation::Avx2Batch,
        Exponentiation::FmaBatch,
        Exponentiation::Fma512Batch,
        Exponentiation::Avx512Batch,
        Exponentiation::FmaPair,
    ] {
        let lanes = kernel.lanes();
        if !kernel.available(batch[0].modulus().nlimbs(), lanes) {
            continue;
        }
        tests.push(Test {
            name: format!(
                "{}: {lanes} 1024-bit exponentiations in one pass (a batch)",
                kernel.name()
            ),
            moduli: &batch[..lanes],
            exp_bits: PAIR_EXP_BITS,
            expect: Expect::ConstantTime,
            run: Box::new(move |m, x| {
                let operands: Vec<_> = m
                    .iter()
                    .zip(x)
                    .map(|(p, (base, exp))| (p, base, exp.as_ref()))
                    .collect();
                let mut out: Vec<_> = m.iter().map(|p| p.zero()).collect();
                MontyParams::pow_bounded_batch_on(kernel, &operands, PAIR_EXP_BITS, &mut out)
                    .expect("available");
                black_box(out);
            }),
        });
    }
    tests.push(Test {
        name: "control: variable-time exponentiation (must leak)".into(),
        moduli: &one,
        exp_bits: SINGLE_EXP_BITS,
        expect: Expect::Leak,
        run: Box::new(|m, x| {
            black_box(m[0].pow_vartime(&x[0].0, &x[0].1));
        }),
    });
    let planted_iterations = std::sync::Arc::new(AtomicU64::new(0));
    let iterations = planted_iterations.clone();
    tests.push(Test {
        name: format!(
            "control: {limb_label}, a {}% loop on an exponent bit (must leak)",
            PLANTED_LEAK * 100.0
        ),
        moduli: &one,
        exp_bits: SINGLE_EXP_BITS,
        expect: Expect::Leak,
        run: Box::new(move |m, x| {
            let kernel = Exponentiation::LimbKernels;
            black_box(m[0].pow_bounded_on(kernel, &x[0].0, &x[0].1, SINGLE_EXP_BITS));
            if x[0].1.as_ref()[0] & 1 == 1 {
                spin(iterations.load(Ordering::Relaxed));
            }
        }),
    });
    if let Some(only) = &args.only {
        tests.retain(|t| t.name.contains(only.as_str()));
    }
    if let Some(planted) = tests
        .iter()
        .find(|t| t.name.contains("loop on an exponent bit"))
    {
        let n = calibrate_spin(planted, PLANTED_LEAK, &mut rng);
        planted_iterations.store(n, Ordering::Relaxed);
    }

    println!(
        "{:>8} {:>9} {:>11} {:>8} {:>10} {:>7}  test (pass: |t| < {T_LIMIT} or a difference under {}%, with a resolution of at most {}%; controls must leak)",
        "samples",
        "mean µs",
        "resolution",
        "t",
        "difference",
        "time",
        SMALLEST_LEAK * 100.0,
        RESOLUTION * 100.0
    );
    let started = Instant::now();
    let remaining = |share: f64| (args.budget * share - started.elapsed().as_secs_f64()).max(0.0);
    let mut evidence = vec![Evidence::default(); tests.len()];
    let mut states = vec![State::Inconclusive; tests.len()];
    for (i, test) in tests.iter().enumerate() {
        let allowance = remaining(FIRST_ROUND) / (tests.len() - i) as f64;
        test.measure(&mut evidence[i], &mut rng, allowance);
        states[i] = state(test, &evidence[i]);
        if states[i] == State::Leak {
            print_row(test, &evidence[i], "(a leak; measured again)");
            // A leak shows again on fresh samples; a burst of noise rarely does.
            evidence[i] = Evidence::default();
        } else if states[i] == State::Inconclusive {
            print_row(
                test,
                &evidence[i],
                "(not yet conclusive; more samples at the end)",
            );
        }
    }
    // The last round: what is left, shared by those still undecided.
    let undecided: Vec<usize> = (0..tests.len())
        .filter(|&i| matches!(states[i], State::Leak | State::Inconclusive))
        .collect();
    for (j, &i) in undecided.iter().enumerate() {
        let allowance = remaining(1.0) / (undecided.len() - j) as f64;
        tests[i].measure(&mut evidence[i], &mut rng, allowance);
        states[i] = state(&tests[i], &evidence[i]);
    }

    let mut failed = 0;
    for (i, test) in tests.iter().enumerate() {
        let verdict = match (test.expect, states[i]) {
            (Expect::ConstantTime, State::Pass) | (Expect::Leak, State::Caught) => "ok",
            (Expect::ConstantTime, State::Leak) => {
                "FAILED: a leak (|t| and the difference over their limits twice)"
            }
            (Expect::ConstantTime, _) => {
                "FAILED: INCONCLUSIVE (no leak seen, but too noisy to see a 1% one in its time)"
            }
            (Expect::Leak, _) => "FAILED: the control's leak was not seen",
        };
        print_row(test, &evidence[i], verdict);
        failed += usize::from(verdict != "ok");
    }
    println!(
        "ct-dudect: {} of {} tests ok in {:.0} s",
        tests.len() - failed,
        tests.len(),
        started.elapsed().as_secs_f64()
    );
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
