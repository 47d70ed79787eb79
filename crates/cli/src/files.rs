//! Input, output and randomness for the key subcommands (`dsa`,
//! `elgamal`): files or standard streams, secrets written with mode 0600,
//! errors as one line for standard error.

use std::fs;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use zeroize::Zeroizing;

/// Prints `message` as the one error line and returns exit status 2.
pub fn fail(message: &str) -> ExitCode {
    eprintln!("numcrypt: error: {message}");
    ExitCode::from(2)
}

/// Exit status 0 for `Ok`, 2 (with the error line) for `Err`.
pub fn exit(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(&message),
    }
}

/// Prints a verification verdict as `openssl dgst -verify` does: exit 0
/// with "Verified OK", 1 with "Verification failure", 2 for an input error.
pub fn verdict<E: std::fmt::Display>(checked: Result<Result<(), E>, String>) -> ExitCode {
    match checked {
        Ok(Ok(())) => {
            println!("Verified OK");
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            println!("Verification failure: {e}");
            ExitCode::from(1)
        }
        Err(message) => fail(&message),
    }
}

/// A ChaCha20 generator seeded from the operating system.
pub fn rng() -> Result<ChaCha20Rng, String> {
    let mut seed = Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut *seed).map_err(|e| format!("no operating-system randomness: {e}"))?;
    Ok(ChaCha20Rng::from_seed(*seed))
}

/// The whole of `path` (`-`: standard input), zeroized when dropped.
pub fn read(path: &Path) -> Result<Zeroizing<Vec<u8>>, String> {
    let mut data = Zeroizing::new(Vec::new());
    let result = if path == Path::new("-") {
        std::io::stdin().lock().read_to_end(&mut data).map(drop)
    } else {
        fs::File::open(path).and_then(|mut f| f.read_to_end(&mut data).map(drop))
    };
    result.map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(data)
}

/// `path` as text (a PEM file), zeroized when dropped.
pub fn read_text(path: &Path) -> Result<Zeroizing<String>, String> {
    let data = read(path)?;
    let text =
        std::str::from_utf8(&data).map_err(|_| format!("{}: not a PEM file", path.display()))?;
    Ok(Zeroizing::new(text.to_owned()))
}

/// Writes `data` to `path` (created with mode 0600 on Unix when `secret`),
/// or to standard output.
pub fn write(path: Option<&Path>, data: &[u8], secret: bool) -> Result<(), String> {
    let Some(path) = path else {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(data)
            .and_then(|()| out.flush())
            .map_err(|e| format!("standard output: {e}"));
    };
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = secret;
    options
        .open(path)
        .and_then(|mut f| f.write_all(data))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether `data` looks like PEM (otherwise it is taken as DER).
pub fn is_pem(data: &[u8]) -> bool {
    data.trim_ascii_start().starts_with(b"-----BEGIN")
}

/// Progress lines on standard error, only when it is a terminal.
pub struct Status {
    show: bool,
}

impl Status {
    pub fn new() -> Self {
        Self {
            show: std::io::stderr().is_terminal(),
        }
    }

    /// Overwrites the status line.
    pub fn update(&self, line: &str) {
        if self.show {
            eprint!("\r{line}");
        }
    }

    /// Clears the status line.
    pub fn clear(&self) {
        if self.show {
            eprint!("\r\x1b[K");
        }
    }
}
