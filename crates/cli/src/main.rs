//! `numcrypt`: the command line.
//!
//! Exit status: 0 on success, 2 on a usage or input error (one line on
//! standard error saying what was wrong).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use numcrypt_limbs::{BoxedUint, MontyParams};

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
    /// than 1 (Montgomery arithmetic).
    Modexp {
        /// The base (any size; it is reduced modulo the modulus).
        base: String,
        /// The exponent (any size; the time depends only on its width).
        exp: String,
        /// The modulus: odd, greater than 1.
        modulus: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(output) => {
            println!("{output}");
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
    }
}

fn parse(name: &str, text: &str) -> Result<BoxedUint, String> {
    text.parse::<BoxedUint>()
        .map_err(|e| format!("{name} {text:?}: {e}"))
}

fn modexp(base: &str, exp: &str, modulus: &str) -> Result<String, String> {
    let b = parse("base", base)?;
    let e = parse("exponent", exp)?;
    let m = parse("modulus", modulus)?;
    let params = MontyParams::new(m).map_err(|e| format!("modulus {modulus:?}: {e}"))?;
    let result = params.from_monty(&params.pow(&params.to_monty(&b), &e));
    let hex = modulus.starts_with("0x") || modulus.starts_with("0X");
    Ok(if hex {
        format!("{result:#x}")
    } else {
        format!("{result}")
    })
}
