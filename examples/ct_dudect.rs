//! A statistical timing test in the manner of dudect (Reparaz, Balasch and
//! Verbauwhede, 2017) for the exponentiation kernels: valgrind cannot run
//! AVX-512 IFMA, so this is the constant-time evidence for it, and a second
//! opinion on the mulx/adx kernels beside `.ci/ct-memcheck`.
//!
//! ```text
//! cargo run --release --example ct_dudect [-- SECONDS_PER_TEST]
//! ```
//!
//! Each test times one operation on two classes of inputs, interleaved at
//! random: a fixed input (a zero base and a zero exponent, the values most
//! likely to take a shortcut) and fresh uniform ones. Samples above the
//! 95th percentile of a pilot run are dropped (interrupts, migrations), and
//! Welch's t statistic compares the classes. The resolution is the
//! difference, as a fraction of the mean, that would have given |t| = 4.5;
//! a test samples until it is 0.5 % (where a 1 % difference gives |t| near
//! 9) or its time is up, and passes when |t| < 4.5 with a resolution of at
//! most 1 %. A test that fails is measured once more on fresh samples and
//! the second run decides: a real leak fails both, while a burst of noise
//! from a shared machine's neighbours rarely repeats (one such single
//! failure was seen in CI). The control, a variable-time exponentiation
//! on the same inputs, must fail: it shows the test can see a leak.
//!
//! `.ci/ct-dudect` runs it (in CI too).

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use numcrypt_limbs::backend::{self, Exponentiation, LimbKernels};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

/// |t| at or above this is a leak (dudect's threshold).
const T_LIMIT: f64 = 4.5;
/// The resolution (the difference, as a fraction of the mean, that would
/// just reach |t| = 4.5) a test must reach: 1 %, as issue 17 asks.
const RESOLUTION: f64 = 0.01;
/// The resolution at which a test stops early: at half a percent, a 1 %
/// difference would give |t| near 9, seen with near certainty rather than
/// by a coin toss.
const TARGET_RESOLUTION: f64 = 0.005;
/// Samples between checks of the stopping rule.
const BATCH: usize = 200;
/// Samples in the pilot run that sets the cropping threshold.
const PILOT: usize = 200;

/// Running mean and variance of one class (Welford).
#[derive(Default)]
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

    fn variance_of_mean(&self) -> f64 {
        self.m2 / (self.n - 1.0) / self.n
    }
}

/// One class's inputs: a base and an exponent for each of one or two moduli.
type Inputs = Vec<(MontyForm<BoxedUint>, BoxedUint)>;

/// Runs the operation once on the moduli and inputs.
type Operation = Box<dyn Fn(&[MontyParams<BoxedUint>], &Inputs)>;

/// An operation under test, on the inputs of either class.
struct Test<'a> {
    name: String,
    moduli: &'a [MontyParams<BoxedUint>],
    run: Operation,
}

struct Outcome {
    t: f64,
    resolution: f64,
    samples: usize,
    mean_us: f64,
}

fn random_inputs(moduli: &[MontyParams<BoxedUint>], rng: &mut ChaCha20Rng) -> Inputs {
    moduli
        .iter()
        .map(|p| {
            let m = p.modulus();
            let base = BoxedUint::random_below(rng, m).expect("non-zero modulus");
            let exp = BoxedUint::random_bits(rng, m.bits_precision(), m.nlimbs());
            (p.to_monty(&base), exp)
        })
        .collect()
}

fn fixed_inputs(moduli: &[MontyParams<BoxedUint>]) -> Inputs {
    moduli
        .iter()
        .map(|p| (p.zero(), p.modulus().zero_like()))
        .collect()
}

/// Times `test` until the stopping rule says (or `seconds` run out).
fn measure(test: &Test<'_>, rng: &mut ChaCha20Rng, seconds: f64) -> Outcome {
    let fixed = fixed_inputs(test.moduli);
    let time = |inputs: &Inputs| {
        let start = Instant::now();
        (test.run)(test.moduli, inputs);
        start.elapsed().as_nanos() as f64
    };
    let mut pilot: Vec<f64> = (0..PILOT)
        .map(|i| match i % 2 {
            0 => time(&fixed),
            _ => time(&random_inputs(test.moduli, rng)),
        })
        .collect();
    pilot.sort_by(f64::total_cmp);
    let crop = pilot[PILOT * 95 / 100];

    let started = Instant::now();
    let mut classes = [Moments::default(), Moments::default()];
    let mut samples = 0;
    loop {
        for _ in 0..BATCH {
            let class = (rng.next_u32() & 1) as usize;
            let inputs = match class {
                0 => fixed.clone(),
                _ => random_inputs(test.moduli, rng),
            };
            let ns = time(&inputs);
            samples += 1;
            if ns <= crop {
                classes[class].push(ns);
            }
        }
        let [a, b] = &classes;
        if a.n < 2.0 || b.n < 2.0 {
            continue;
        }
        let se = (a.variance_of_mean() + b.variance_of_mean()).sqrt();
        let mean = (a.mean + b.mean) / 2.0;
        let outcome = Outcome {
            t: (a.mean - b.mean) / se,
            resolution: T_LIMIT * se / mean,
            samples,
            mean_us: mean / 1000.0,
        };
        let resolved = outcome.resolution <= TARGET_RESOLUTION;
        let decided = outcome.t.abs() >= T_LIMIT || resolved;
        if decided && samples >= 10 * BATCH || started.elapsed().as_secs_f64() > seconds {
            return outcome;
        }
    }
}

/// One line of the report.
fn print_row(outcome: &Outcome, name: &str, verdict: &str) {
    println!(
        "{:>10} {:>10.1} {:>10.2}% {:>8.2}  {name} {verdict}",
        outcome.samples,
        outcome.mean_us,
        outcome.resolution * 100.0,
        outcome.t,
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

fn main() -> ExitCode {
    let seconds: f64 = match std::env::args().nth(1).map(|s| s.parse()) {
        None => 60.0,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("usage: ct_dudect [SECONDS_PER_TEST]");
            return ExitCode::from(2);
        }
    };
    println!("{}", backend::selection());
    let mut rng = ChaCha20Rng::seed_from_u64(4_500);
    let one = [modulus(2048, &mut rng)];
    let pair = [modulus(1024, &mut rng), modulus(1024, &mut rng)];

    let mut tests = Vec::new();
    for kernel in [
        Exponentiation::LimbKernels,
        Exponentiation::Ifma256,
        Exponentiation::Ifma512,
        Exponentiation::Avx2,
    ] {
        let label = match kernel {
            Exponentiation::LimbKernels => match backend::selection().limb_kernels() {
                LimbKernels::Adx => "mulx/adx",
                LimbKernels::Portable => "portable",
                _ => "limb kernels",
            },
            other => other.name(),
        };
        if kernel.available(one[0].modulus().nlimbs(), 1) {
            tests.push(Test {
                name: format!("{label}: 2048-bit exponentiation"),
                moduli: &one,
                run: Box::new(move |m, x| {
                    black_box(m[0].pow_bounded_on(kernel, &x[0].0, &x[0].1, 2048));
                }),
            });
        }
        if kernel.available(pair[0].modulus().nlimbs(), 2) {
            tests.push(Test {
                name: format!("{label}: two 1024-bit exponentiations (RSA-2048's CRT halves)"),
                moduli: &pair,
                run: Box::new(move |m, x| {
                    let pair = [0, 1].map(|k| (&m[k], &x[k].0, x[k].1.as_ref()));
                    black_box(MontyParams::pow_bounded_pair_on(kernel, pair, 1024));
                }),
            });
        }
    }
    let control = Test {
        name: "control: variable-time 2048-bit exponentiation (must leak)".into(),
        moduli: &one,
        run: Box::new(|m, x| {
            black_box(m[0].pow_vartime(&x[0].0, &x[0].1));
        }),
    };

    println!(
        "{:>10} {:>10} {:>11} {:>8}  test (pass: |t| < {T_LIMIT}, resolution at most {}% of the mean)",
        "samples",
        "mean µs",
        "resolution",
        "t",
        RESOLUTION * 100.0
    );
    let mut failed = false;
    let passes = |outcome: &Outcome| outcome.t.abs() < T_LIMIT && outcome.resolution <= RESOLUTION;
    for test in &tests {
        let mut outcome = measure(test, &mut rng, seconds);
        if !passes(&outcome) {
            // A shared machine's neighbours can push one run over the line;
            // a leak shows again on fresh samples, so the second run decides.
            print_row(&outcome, &test.name, "(first run; measured again)");
            outcome = measure(test, &mut rng, seconds);
        }
        let pass = passes(&outcome);
        print_row(&outcome, &test.name, if pass { "ok" } else { "FAILED" });
        failed |= !pass;
    }
    let outcome = measure(&control, &mut rng, seconds);
    let leaked = outcome.t.abs() >= T_LIMIT;
    print_row(
        &outcome,
        &control.name,
        if leaked { "ok" } else { "FAILED" },
    );
    failed |= !leaked;
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
