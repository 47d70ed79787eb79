//! `numcrypt`: the command line.
//!
//! Exit status: 0 on success, 2 on a usage or input error (one line on
//! standard error saying what was wrong); `is-prime` exits 1 when a number
//! is composite, `rsa verify`, `dsa verify` and `elgamal verify` when a
//! signature is invalid.
#![forbid(unsafe_code)]

/// `println!` that ignores a closed standard output (`numcrypt … | head`):
/// the reader has what it wanted, which is no error (`println!` panics).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod dsa;
mod elgamal;
mod files;
mod numbers;
mod output;
mod proxy;
mod rsa;
mod shared_rsa;
mod speed;

use std::io::{IsTerminal, Write};
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use numcrypt_limbs::{BoxedUint, MontyParams, Unsigned};
use numcrypt_prime::{Error as PrimeError, PrimeGen, PrimeKind, Progress};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

#[derive(Parser)]
#[command(
    name = "numcrypt",
    version,
    about = "Number-theoretic public-key cryptography"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Modular exponentiation base^exp mod modulus, in constant time.
    ///
    /// Numbers are decimal, or hexadecimal with a 0x prefix; the result is
    /// printed in the modulus' base. The modulus must be odd and greater
    /// than 1 (Montgomery arithmetic). A negative base is taken modulo the
    /// modulus (-2 is modulus - 2); a negative exponent is an error.
    Modexp {
        /// The base (any size, negative too; it is reduced modulo the modulus).
        #[arg(allow_hyphen_values = true)]
        base: String,
        /// The exponent (any size; the time depends only on its width).
        #[arg(allow_hyphen_values = true)]
        exp: String,
        /// The modulus: odd, greater than 1.
        #[arg(allow_hyphen_values = true)]
        modulus: String,
    },
    /// Tests numbers for primality (MR64: error at most 2^-128 for any input).
    ///
    /// Numbers are decimal, or hexadecimal with a 0x prefix (with --hex:
    /// hexadecimal with or without it, as `openssl prime -hex` prints);
    /// negative numbers are composite. With no arguments, reads one number
    /// per line from standard input. Prints `<N> prime` or `<N> composite`
    /// for each. Exit status: 0 if all are prime, 1 if any is composite, 2
    /// on malformed input.
    IsPrime {
        /// The numbers are hexadecimal, 0x prefix optional.
        #[arg(long)]
        hex: bool,
        /// The numbers to test.
        #[arg(allow_hyphen_values = true)]
        numbers: Vec<String>,
    },
    /// Generates random primes, one per line.
    ///
    /// Primes have exactly BITS bits with the top two set. Progress goes to
    /// standard error when it is a terminal.
    Prime {
        /// Size of each prime in bits.
        #[arg(long)]
        bits: u32,
        /// Safe primes: p = 2q + 1 with q prime.
        #[arg(long, conflicts_with = "strong")]
        safe: bool,
        /// Strong primes (Gordon): p - 1, p + 1 and r - 1 (for the large
        /// factor r of p - 1) each have a large prime factor.
        #[arg(long)]
        strong: bool,
        /// How many primes to print.
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// Print in hexadecimal (0x prefix) instead of decimal.
        #[arg(long)]
        hex: bool,
        /// Worker threads for each search (default: every available core).
        /// The primes are the same for any number of threads; more only
        /// find them sooner.
        #[arg(long)]
        threads: Option<NonZeroUsize>,
    },
    /// RSA keys, signatures and encryption, interoperable with `openssl`.
    Rsa {
        #[command(subcommand)]
        command: rsa::RsaCommand,
    },
    /// DSA (FIPS 186-4) parameters, keys and signatures, interoperable
    /// with `openssl`.
    Dsa {
        #[command(subcommand)]
        command: dsa::DsaCommand,
    },
    /// ElGamal keys, hybrid encryption and signatures.
    Elgamal {
        #[command(subcommand)]
        command: elgamal::ElgamalCommand,
    },
    /// Shared RSA keys that no single machine holds (Boneh–Franklin among
    /// three or more parties), and threshold signing.
    SharedRsa {
        #[command(subcommand)]
        command: shared_rsa::SharedRsaCommand,
    },
    /// Operations a second, as `openssl speed` prints them: RSA, modexp,
    /// DSA, ElGamal and the prime fields, after the CPU and every backend
    /// choice.
    Speed(speed::SpeedArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = match cli.command {
        Command::IsPrime { numbers, hex } => return is_prime_command(&numbers, hex),
        Command::Prime {
            bits,
            safe,
            strong,
            count,
            hex,
            threads,
        } => return prime_command(bits, safe, strong, count, hex, threads),
        Command::Rsa { command } => return rsa::run(command),
        Command::Dsa { command } => return dsa::run(command),
        Command::Elgamal { command } => return elgamal::run(command),
        Command::SharedRsa { command } => return shared_rsa::run(command),
        Command::Speed(args) => {
            return match speed::run(&args) {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("numcrypt: error: {message}");
                    ExitCode::from(2)
                }
            };
        }
        other => other,
    };
    match run(command) {
        Ok(output) => {
            outln!("{output}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("numcrypt: error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<String, String> {
    match command {
        Command::Modexp { base, exp, modulus } => modexp(&base, &exp, &modulus),
        Command::IsPrime { .. }
        | Command::Prime { .. }
        | Command::Rsa { .. }
        | Command::Dsa { .. }
        | Command::Elgamal { .. }
        | Command::SharedRsa { .. }
        | Command::Speed(_) => {
            unreachable!("handled in main")
        }
    }
}

fn modexp(base: &str, exp: &str, modulus: &str) -> Result<String, String> {
    let b = numbers::parse_signed("base", base, false)?;
    let e = numbers::parse_unsigned("exponent", exp)?;
    let m = numbers::parse_unsigned("modulus", modulus)?;
    let params = MontyParams::new(m).map_err(|e| format!("modulus {modulus:?}: {e}"))?;
    let mut power = params.pow(&params.to_monty(&b.magnitude), &e);
    if b.negative && e.is_odd().into() {
        // (−b)^e = −(b^e) for odd e.
        power = params.neg(&power);
    }
    let result = params.from_monty(&power);
    let hex = modulus.starts_with("0x") || modulus.starts_with("0X");
    Ok(if hex {
        format!("{result:#x}")
    } else {
        format!("{result}")
    })
}

/// Primality of one number as written: `Ok(true)` for a prime, `Err` with
/// a message for malformed text. Negative numbers are composite.
fn classify(text: &str, hex: bool) -> Result<bool, String> {
    let n = numbers::parse_signed("number", text, hex)?;
    Ok(!n.negative && numcrypt_prime::is_prime_vartime(&n.magnitude))
}

fn is_prime_command(numbers: &[String], hex: bool) -> ExitCode {
    let mut all_prime = true;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut report = |text: &str, prime: bool| {
        let verdict = if prime { "prime" } else { "composite" };
        // A closed pipe is not an error worth reporting.
        let _ = writeln!(out, "{text} {verdict}");
    };
    if numbers.is_empty() {
        let mut input = std::io::stdin().lock();
        loop {
            let line = match numbers::read_line(&mut input) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(message) => {
                    eprintln!("numcrypt: error: {message}");
                    return ExitCode::from(2);
                }
            };
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            match classify(text, hex) {
                Ok(prime) => {
                    all_prime &= prime;
                    report(text, prime);
                }
                Err(message) => {
                    eprintln!("numcrypt: error: {message}");
                    return ExitCode::from(2);
                }
            }
        }
    } else {
        // Check every argument before printing anything.
        let mut verdicts = Vec::with_capacity(numbers.len());
        for text in numbers {
            match classify(text, hex) {
                Ok(prime) => verdicts.push(prime),
                Err(message) => {
                    eprintln!("numcrypt: error: {message}");
                    return ExitCode::from(2);
                }
            }
        }
        for (text, prime) in numbers.iter().zip(verdicts) {
            all_prime &= prime;
            report(text, prime);
        }
    }
    if all_prime {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn prime_command(
    bits: u32,
    safe: bool,
    strong: bool,
    count: u64,
    hex: bool,
    threads: Option<NonZeroUsize>,
) -> ExitCode {
    let mut seed = [0u8; 32];
    if let Err(e) = getrandom::fill(&mut seed) {
        eprintln!("numcrypt: error: no operating-system randomness: {e}");
        return ExitCode::from(2);
    }
    let mut rng = ChaCha20Rng::from_seed(seed);
    let show = std::io::stderr().is_terminal();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for i in 0..count {
        let mut progress = |p: &Progress| {
            if show {
                eprint!(
                    "\rprime {}/{count}: {} candidates, {} Miller-Rabin rounds",
                    i + 1,
                    p.candidates,
                    p.tests
                );
            }
            ControlFlow::Continue(())
        };
        let kind = if safe {
            PrimeKind::Safe
        } else if strong {
            PrimeKind::Strong
        } else {
            PrimeKind::Prime
        };
        let result: Result<BoxedUint, PrimeError> = PrimeGen::new(kind, bits)
            .threads(threads)
            .progress(&mut progress)
            .generate(&mut rng);
        if show {
            eprint!("\r\x1b[K");
        }
        let p = match result {
            Ok(p) => p,
            Err(e @ PrimeError::TooManyThreads { .. }) => {
                let n = threads.map_or(0, NonZeroUsize::get);
                eprintln!("numcrypt: error: --threads {n}: {e}");
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("numcrypt: error: --bits {bits}: {e}");
                return ExitCode::from(2);
            }
        };
        let line = if hex {
            format!("{p:#x}")
        } else {
            format!("{p}")
        };
        if writeln!(out, "{line}").is_err() {
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
}
