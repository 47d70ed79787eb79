//! `numcrypt speed`: operations per second, as `openssl speed` prints them.
//!
//! Every run prints the CPU and every backend choice first (what a figure
//! depends on), then one table per family. Each figure runs its operation
//! for `--seconds` on each of `--threads` threads (at least once each) and
//! gives the mean time an operation and the operations a second of all the
//! threads together. The keys are fixed: the RSA keys are the benches'
//! (made by `openssl genpkey`), DSA's parameters and the other keys come
//! from a fixed seed, so that two runs time the same work. `--variants`
//! times every exponentiation backend the CPU has at each size, marking the
//! one chosen: what to paste into a bug report about speed. It runs the
//! backends in turn, round by round (`backend::selection_check`, as the
//! benches' selection check does), so that a shared machine's slow
//! stretches hit every backend alike, and judges the choice by the rounds'
//! ratios: a ratio within a round holds where medians of separate times
//! drift apart.

use std::fmt::Write as _;
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use numcrypt_dsa::sha2::Sha256;
use numcrypt_dsa::{DomainParameters, ParameterSizes};
use numcrypt_elgamal::NamedGroup;
use numcrypt_field::{Fp448, Fp521, Fp25519, FpGoldilocks, FpP256, FpP384};
use numcrypt_limbs::backend::{self, ChoiceVerdict, Exponentiation};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams};
use numcrypt_rsa::{HashAlg, KeyGen, RsaPrivateKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// `numcrypt speed`'s arguments.
#[derive(Args)]
pub struct SpeedArgs {
    /// What to time (default: all of them).
    #[arg(value_enum)]
    algorithms: Vec<Algorithm>,
    /// Seconds a measurement (each runs at least one operation a thread).
    #[arg(long, default_value_t = 1.0, value_parser = positive_seconds)]
    seconds: f64,
    /// Threads running each operation at once; the rates are their sum.
    #[arg(long, default_value = "1")]
    threads: NonZeroUsize,
    /// Time every exponentiation backend this CPU has, at each size, and
    /// mark the one chosen, instead of the tables.
    #[arg(long)]
    variants: bool,
    /// With `--variants`: rounds of every backend in turn, each backend's
    /// median shown and the choice compared with it round by round
    /// (`--seconds` and `--threads` do not apply).
    #[arg(long, default_value = "21", requires = "variants")]
    rounds: NonZeroUsize,
    /// Also time signing in batches of this many messages (1 to 64: RSA's
    /// `sign_pkcs1v15_batch`, DSA's and ElGamal's `sign_batch`): the
    /// `batch` columns count signatures, not calls.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
    batch: Option<u16>,
}

/// What `numcrypt speed` can time.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Algorithm {
    /// RSA key generation, PKCS#1 v1.5 signing and verification (SHA-256) at 2048 bits.
    Rsa2048,
    /// The same at 3072 bits.
    Rsa3072,
    /// The same at 4096 bits.
    Rsa4096,
    /// Constant-time modular exponentiation, full-width exponent, 1024 to 4096 bits.
    Modexp,
    /// DSA (2048, 256) and (3072, 256) signing and verification, SHA-256.
    Dsa,
    /// ElGamal in ffdhe2048: signing, verification, decryption.
    Elgamal,
    /// Prime fields: multiplication and squaring, each waiting for the last.
    Field,
}

const ALL: [Algorithm; 7] = [
    Algorithm::Rsa2048,
    Algorithm::Rsa3072,
    Algorithm::Rsa4096,
    Algorithm::Modexp,
    Algorithm::Dsa,
    Algorithm::Elgamal,
    Algorithm::Field,
];

/// The modulus sizes the exponentiation tables and `--variants` show.
const MODEXP_BITS: [u32; 5] = [1024, 1536, 2048, 3072, 4096];

/// What every test signs.
const MESSAGE: &[u8] = b"numcrypt speed: the message every signature is over";

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(format!(
            "{s:?}: seconds must be a number above 0, at most 3600"
        )),
    }
}

/// One measurement: the mean time an operation took on a thread, and the
/// operations a second of all threads together.
#[derive(Clone, Copy)]
struct Rate {
    seconds_per_op: f64,
    per_second: f64,
}

/// Runs `op` for `seconds` (at least once) on each of `threads` threads.
fn measure<F: Fn() + Sync>(threads: NonZeroUsize, seconds: f64, op: F) -> Rate {
    let budget = Duration::from_secs_f64(seconds);
    let run = || {
        let start = Instant::now();
        let mut count = 0u64;
        loop {
            op();
            count += 1;
            let spent = start.elapsed();
            if spent >= budget {
                return (count, spent.as_secs_f64());
            }
        }
    };
    let results: Vec<(u64, f64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.get()).map(|_| s.spawn(run)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, f64::INFINITY)))
            .collect()
    });
    let per_second: f64 = results.iter().map(|&(n, t)| n as f64 / t).sum();
    let ops: u64 = results.iter().map(|&(n, _)| n).sum();
    let busy: f64 = results.iter().map(|&(_, t)| t).sum();
    Rate {
        seconds_per_op: busy / ops.max(1) as f64,
        per_second,
    }
}

/// A table with a name column and, per operation, a time and a rate.
struct Table {
    ops: Vec<&'static str>,
    rows: Vec<(String, Vec<Rate>)>,
}

impl Table {
    fn new(ops: &[&'static str]) -> Self {
        Self {
            ops: ops.to_vec(),
            rows: Vec::new(),
        }
    }

    fn print(&self) {
        let name_width = self.rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let mut line = format!("{:name_width$}", "");
        for op in &self.ops {
            let _ = write!(line, " {op:>12}");
        }
        for op in &self.ops {
            let _ = write!(line, " {:>12}", format!("{op}/s"));
        }
        outln!("{line}");
        for (name, rates) in &self.rows {
            let mut line = format!("{name:name_width$}");
            for r in rates {
                let _ = write!(line, " {:>12}", format_seconds(r.seconds_per_op));
            }
            for r in rates {
                let _ = write!(line, " {:>12.1}", r.per_second);
            }
            outln!("{line}");
        }
        outln!();
    }
}

/// A time in the unit that gives it four or five digits: `1.219 s`,
/// `235.1 µs`, `12.3 ns`.
fn format_seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.2} µs", s * 1e6)
    } else {
        format!("{:.2} ns", s * 1e9)
    }
}

/// The exponentiation backend the selection takes for `bits`-bit moduli,
/// one at a time and as a CRT pair.
fn choices(bits: u32) -> String {
    let limbs = bits.div_ceil(64) as usize;
    let one = backend::selection().exponentiation(limbs, 1);
    let pair = backend::selection().exponentiation(limbs, 2);
    format!("{bits}: {} / {}", one.name(), pair.name())
}

/// Runs `numcrypt speed`.
pub fn run(args: &SpeedArgs) -> Result<(), String> {
    let most = numcrypt_prime::max_threads();
    if args.threads.get() > most {
        return Err(format!(
            "--threads {}: at most {most} here (4 per available core, at least 16)",
            args.threads
        ));
    }
    outln!("{}", backend::selection());
    outln!("exponentiation by modulus size (one / a CRT pair of two):");
    for bits in MODEXP_BITS {
        outln!("  {}", choices(bits));
    }
    if args.variants {
        outln!(
            "{} rounds of every backend in turn, one thread, the median counting \
             (a race: a block of 64 runs a round, their mean)\n",
            args.rounds
        );
        variants(args.rounds.get());
        return Ok(());
    }
    outln!(
        "{} thread{}, {} s a measurement\n",
        args.threads,
        if args.threads.get() == 1 { "" } else { "s" },
        args.seconds
    );
    let wanted: Vec<Algorithm> = if args.algorithms.is_empty() {
        ALL.to_vec()
    } else {
        args.algorithms.clone()
    };
    if let Some(n) = args.batch {
        outln!("batch: {n} messages a batch signing call, figures per signature");
    }
    let mut rsa = match args.batch {
        Some(_) => Table::new(&["keygen", "sign", "verify", "batch"]),
        None => Table::new(&["keygen", "sign", "verify"]),
    };
    for (alg, bits) in [
        (Algorithm::Rsa2048, 2048),
        (Algorithm::Rsa3072, 3072),
        (Algorithm::Rsa4096, 4096),
    ] {
        if wanted.contains(&alg) {
            rsa.rows
                .push((format!("rsa {bits} bits"), rsa_rates(args, bits)?));
        }
    }
    if !rsa.rows.is_empty() {
        rsa.print();
    }
    if wanted.contains(&Algorithm::Modexp) {
        modexp(args);
    }
    if wanted.contains(&Algorithm::Dsa) {
        dsa(args)?;
    }
    if wanted.contains(&Algorithm::Elgamal) {
        elgamal(args)?;
    }
    if wanted.contains(&Algorithm::Field) {
        fields(args);
    }
    Ok(())
}

/// The benches' RSA key of `bits` bits (made by `openssl genpkey`).
fn rsa_key(bits: u32) -> Result<RsaPrivateKey, String> {
    let der: &[u8] = match bits {
        2048 => include_bytes!("../../../benches/keys/rsa2048.pk8.der"),
        3072 => include_bytes!("../../../benches/keys/rsa3072.pk8.der"),
        _ => include_bytes!("../../../benches/keys/rsa4096.pk8.der"),
    };
    RsaPrivateKey::from_pkcs8_der(der).map_err(|e| format!("the built-in {bits}-bit key: {e}"))
}

fn rsa_rates(args: &SpeedArgs, bits: u32) -> Result<Vec<Rate>, String> {
    let key = rsa_key(bits)?;
    let public = key.public_key();
    let sig = key
        .sign_pkcs1v15(&mut getrandom::SysRng, HashAlg::Sha256, MESSAGE)
        .map_err(|e| format!("rsa {bits}: {e}"))?;
    public
        .verify_pkcs1v15(HashAlg::Sha256, MESSAGE, &sig)
        .map_err(|e| format!("rsa {bits}: {e}"))?;
    let keygen = measure(args.threads, args.seconds, || {
        let _ = black_box(KeyGen::new(bits).generate(&mut getrandom::SysRng));
    });
    let sign = measure(args.threads, args.seconds, || {
        let _ = black_box(key.sign_pkcs1v15(&mut getrandom::SysRng, HashAlg::Sha256, MESSAGE));
    });
    let verify = measure(args.threads, args.seconds, || {
        let _ = black_box(public.verify_pkcs1v15(HashAlg::Sha256, MESSAGE, &sig));
    });
    let mut rates = vec![keygen, sign, verify];
    if let Some(n) = args.batch {
        let sign_batch = |msgs: &[&[u8]]| {
            key.sign_pkcs1v15_batch(&mut getrandom::SysRng, HashAlg::Sha256, msgs)
                .map_err(|e| format!("rsa {bits} batch: {e}"))
        };
        let verify = |m: &[u8], sig: &Vec<u8>| {
            public
                .verify_pkcs1v15(HashAlg::Sha256, m, sig)
                .map_err(|e| format!("rsa {bits} batch: {e}"))
        };
        rates.push(batch_rate(args, n, sign_batch, verify)?);
    }
    Ok(rates)
}

/// `--batch`'s column: calls of `sign_batch` on `n` distinct messages,
/// whose signatures `verify` checks first, timed per signature.
fn batch_rate<S>(
    args: &SpeedArgs,
    n: u16,
    sign_batch: impl Fn(&[&[u8]]) -> Result<Vec<S>, String> + Sync,
    verify: impl Fn(&[u8], &S) -> Result<(), String>,
) -> Result<Rate, String> {
    let msgs: Vec<Vec<u8>> = (0..n)
        .map(|i| [MESSAGE, &i.to_le_bytes()].concat())
        .collect();
    let msgs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    for (m, sig) in msgs.iter().zip(sign_batch(&msgs)?) {
        verify(m, &sig)?;
    }
    let calls = measure(args.threads, args.seconds, || {
        let _ = black_box(sign_batch(&msgs));
    });
    Ok(Rate {
        seconds_per_op: calls.seconds_per_op / f64::from(n),
        per_second: calls.per_second * f64::from(n),
    })
}

/// A random odd modulus of `bits` bits with its top bit set, a base below
/// it and a full-width exponent: public values from a fixed seed (one of
/// several for each size).
fn modexp_inputs(
    bits: u32,
    seed: u64,
) -> (MontyParams<BoxedUint>, MontyForm<BoxedUint>, BoxedUint) {
    let mut rng = ChaCha20Rng::seed_from_u64(u64::from(bits) << 8 | seed);
    let limbs = bits.div_ceil(64) as usize;
    let mut m = BoxedUint::random_bits(&mut rng, bits, limbs);
    m.as_mut()[0] |= 1;
    m.as_mut()[limbs - 1] |= 1 << 63;
    let params = MontyParams::new(m).expect("an odd modulus above 1");
    let base = BoxedUint::random_bits(&mut rng, bits - 1, limbs);
    let exp = BoxedUint::random_bits(&mut rng, bits, limbs);
    let base = params.to_monty(&base);
    (params, base, exp)
}

fn modexp(args: &SpeedArgs) {
    let mut table = Table::new(&["modexp"]);
    for bits in MODEXP_BITS {
        let (params, base, exp) = modexp_inputs(bits, 0);
        let rate = measure(args.threads, args.seconds, || {
            black_box(params.pow(&base, &exp));
        });
        table.rows.push((format!("modexp {bits} bits"), vec![rate]));
    }
    table.print();
}

/// Every backend variant this CPU has, at each size, one exponentiation at
/// a time, as a CRT pair of two and as a batch of eight (full-width
/// exponents), and one to RSA's `e` (`rounds` interleaved runs): each
/// one's median, and the selection's choice (`*`) against it round by
/// round; a size where the choice is more than 3 % slower than another
/// backend is flagged, and one the rounds cannot decide is named.
fn variants(rounds: usize) {
    outln!(
        "{:>6} {:>5} {:>12} {:>12} {:>9} {:>22}  backend (* the selection's choice; a pair is two of that size, as RSA's CRT; a batch eight, each timed as one; e one to e = 65537, as RSA's verification)",
        "bits",
        "shape",
        "time",
        "ops/s",
        "÷ fastest",
        "choice ÷ this (95 %)"
    );
    let (mut flagged, mut undecided) = (Vec::new(), Vec::new());
    for bits in MODEXP_BITS {
        let limbs = bits as usize / 64;
        for (shape, k) in [
            ("one", 1),
            ("pair", 2),
            ("batch", backend::BATCH),
            ("e", backend::SHORT_EXPONENT),
        ] {
            let backend::SelectionCheck {
                chosen,
                racers,
                timed,
                mine,
                verdict,
            } = backend::selection_check(limbs, k, bits, rounds);
            let Some(mine) = mine else {
                flagged.push(format!(
                    "{bits} bits, {shape}: {} did not run",
                    chosen.name()
                ));
                continue;
            };
            if timed.len() < 2 {
                // Nothing to compare: not timed.
                outln!(
                    "{bits:>6} {shape:>5} {:>12} {:>12} {:>9} {:>22} * {}",
                    "-",
                    "-",
                    "-",
                    "",
                    chosen.name()
                );
                continue;
            }
            // A batch's time is per exponentiation.
            let per = if k == backend::BATCH { k as f64 } else { 1.0 };
            let median = |t: &[Duration]| {
                let mut t = t.to_vec();
                t.sort_unstable();
                t[t.len() / 2].as_secs_f64() / per
            };
            let fastest = timed
                .iter()
                .map(|(_, t)| median(t))
                .fold(f64::INFINITY, f64::min);
            for (variant, t) in &timed {
                let (mark, paired) = match backend::PairedRatio::of(&mine, t) {
                    _ if *variant == chosen && racers.is_none() => ("*", String::new()),
                    Some(r) => (" ", format!("{:.2} ({:.2}–{:.2})", r.median, r.low, r.high)),
                    None => (" ", String::new()),
                };
                let t = median(t);
                outln!(
                    "{bits:>6} {shape:>5} {:>12} {:>12.1} {:>9.2} {paired:>22} {mark} {}",
                    format_seconds(t),
                    1.0 / t,
                    t / fastest,
                    variant.name()
                );
            }
            let choice = match racers {
                Some(racers) => {
                    let names: Vec<_> = racers.backends().iter().map(|e| e.racer_name(k)).collect();
                    format!("the race of {}", names.join(", "))
                }
                None => chosen.name().to_owned(),
            };
            if racers.is_some() {
                let t = median(&mine);
                outln!(
                    "{bits:>6} {shape:>5} {:>12} {:>12.1} {:>9.2} {:>22} * {choice} (leading: {})",
                    format_seconds(t),
                    1.0 / t,
                    t / fastest,
                    "",
                    chosen.name()
                );
            }
            let at = |than: Exponentiation, r: backend::PairedRatio| {
                format!(
                    "{bits} bits, {shape}: {choice} takes {:.2}× the time of {} (95 %: {:.2}–{:.2})",
                    r.median,
                    than.name(),
                    r.low,
                    r.high
                )
            };
            match verdict {
                ChoiceVerdict::NotFastest { than, ratio } => flagged.push(at(than, ratio)),
                ChoiceVerdict::Undecided { than, ratio } => undecided.push(at(than, ratio)),
                ChoiceVerdict::Within | ChoiceVerdict::Alone => {}
            }
        }
    }
    if flagged.is_empty() && undecided.is_empty() {
        outln!(
            "\nselection check: ok (at every size the choice is within 3 % of every other backend, round by round, 95 % intervals)"
        );
    }
    for (verdict, why, lines) in [
        (
            "NOT THE FASTEST",
            "more than 3 % slower, round by round, 95 % intervals",
            flagged,
        ),
        (
            "undecided",
            "an interval holds 3 %; more --rounds narrow it",
            undecided,
        ),
    ] {
        if !lines.is_empty() {
            outln!(
                "\nselection check: {verdict} at {} sizes ({why}):",
                lines.len()
            );
            for line in lines {
                outln!("  {line}");
            }
        }
    }
}

fn dsa(args: &SpeedArgs) -> Result<(), String> {
    let mut table = match args.batch {
        Some(_) => Table::new(&["sign", "verify", "batch"]),
        None => Table::new(&["sign", "verify"]),
    };
    for (sizes, name) in [
        (ParameterSizes::L2048N256, "dsa 2048/256"),
        (ParameterSizes::L3072N256, "dsa 3072/256"),
    ] {
        let mut rng = ChaCha20Rng::seed_from_u64(sizes.l() as u64);
        let err = |e: numcrypt_dsa::Error| format!("{name}: {e}");
        let params = DomainParameters::generate(sizes, &mut rng).map_err(err)?;
        let key = numcrypt_dsa::SigningKey::generate(&params, &mut rng).map_err(err)?;
        let public = key.verifying_key();
        let sig = key.sign::<Sha256>(MESSAGE).map_err(err)?;
        public.verify::<Sha256>(MESSAGE, &sig).map_err(err)?;
        let sign = measure(args.threads, args.seconds, || {
            let _ = black_box(key.sign::<Sha256>(MESSAGE));
        });
        let verify = measure(args.threads, args.seconds, || {
            let _ = black_box(public.verify::<Sha256>(MESSAGE, &sig));
        });
        let mut rates = vec![sign, verify];
        if let Some(n) = args.batch {
            let sign_batch = |msgs: &[&[u8]]| key.sign_batch::<Sha256>(msgs).map_err(err);
            let verify = |m: &[u8], sig: &_| public.verify::<Sha256>(m, sig).map_err(err);
            rates.push(batch_rate(args, n, sign_batch, verify)?);
        }
        table.rows.push((name.to_owned(), rates));
    }
    table.print();
    Ok(())
}

fn elgamal(args: &SpeedArgs) -> Result<(), String> {
    let err = |e: numcrypt_elgamal::Error| format!("elgamal: {e}");
    let group = NamedGroup::Ffdhe2048.group();
    let mut rng = ChaCha20Rng::seed_from_u64(2048);
    let key = numcrypt_elgamal::SecretKey::generate(&group, &mut rng).map_err(err)?;
    let public = key.public_key();
    let sig = key.sign::<Sha256>(MESSAGE).map_err(err)?;
    public.verify::<Sha256>(MESSAGE, &sig).map_err(err)?;
    let ct = public.encrypt_message(&mut rng, MESSAGE).map_err(err)?;
    let sign = measure(args.threads, args.seconds, || {
        let _ = black_box(key.sign::<Sha256>(MESSAGE));
    });
    let verify = measure(args.threads, args.seconds, || {
        let _ = black_box(public.verify::<Sha256>(MESSAGE, &sig));
    });
    let decrypt = measure(args.threads, args.seconds, || {
        let _ = black_box(key.decrypt_message(&ct));
    });
    let mut rates = vec![sign, verify, decrypt];
    let mut table = match args.batch {
        Some(_) => Table::new(&["sign", "verify", "decrypt", "batch"]),
        None => Table::new(&["sign", "verify", "decrypt"]),
    };
    if let Some(n) = args.batch {
        let sign_batch = |msgs: &[&[u8]]| key.sign_batch::<Sha256>(msgs).map_err(err);
        let verify = |m: &[u8], sig: &_| public.verify::<Sha256>(m, sig).map_err(err);
        rates.push(batch_rate(args, n, sign_batch, verify)?);
    }
    table.rows.push(("elgamal ffdhe2048".to_owned(), rates));
    table.print();
    Ok(())
}

/// Multiplications and squarings a second on a chain, each operation
/// waiting for the last (the latency a ladder or an inversion sees).
fn fields(args: &SpeedArgs) {
    /// Operations a timed chain.
    const CHAIN: usize = 1000;
    macro_rules! field_rates {
        ($ty:ty) => {{
            let x = <$ty>::from_u64(0x1234_5678_9abc_def1);
            let y = <$ty>::from_u64(0x0fed_cba9_8765_4321);
            let mul = measure(args.threads, args.seconds, || {
                let mut acc = black_box(x);
                for _ in 0..CHAIN {
                    acc *= y;
                }
                black_box(acc);
            });
            let sqr = measure(args.threads, args.seconds, || {
                let mut acc = black_box(x);
                for _ in 0..CHAIN {
                    acc = acc.square();
                }
                black_box(acc);
            });
            // A rate per operation, not per chain.
            [mul, sqr].map(|r| Rate {
                seconds_per_op: r.seconds_per_op / CHAIN as f64,
                per_second: r.per_second * CHAIN as f64,
            })
        }};
    }
    let mut table = Table::new(&["mul", "square"]);
    for (name, rates) in [
        ("2^255 - 19", field_rates!(Fp25519)),
        ("P-256", field_rates!(FpP256)),
        ("P-384", field_rates!(FpP384)),
        ("Goldilocks 2^448 - 2^224 - 1", field_rates!(FpGoldilocks)),
        ("2^448 - 203", field_rates!(Fp448)),
        ("2^521 - 1", field_rates!(Fp521)),
    ] {
        table.rows.push((format!("field {name}"), rates.to_vec()));
    }
    table.print();
}
