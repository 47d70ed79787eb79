//! Input, output and randomness for the key subcommands (`rsa`, `dsa`,
//! `elgamal`): files or standard streams, key files in PEM or DER, secrets
//! written with mode 0600, errors as one line for standard error.

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
            // openssl's exact line on standard output; the reason beside it
            // on standard error.
            println!("Verification failure");
            eprintln!("numcrypt: {e}");
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

/// How a scheme's key files are read: PEM (by the file's first bytes) or
/// DER, private or public keys.
pub struct KeyFiles<S, P, E> {
    pub private_pem: fn(&str) -> Result<S, E>,
    pub private_der: fn(&[u8]) -> Result<S, E>,
    pub public_pem: fn(&str) -> Result<P, E>,
    pub public_der: fn(&[u8]) -> Result<P, E>,
    /// The public key of a private key.
    pub public_half: fn(&S) -> P,
    /// The error for a file that looks like PEM but is not UTF-8 (after
    /// the file's name).
    pub not_text: &'static str,
}

impl<S, P, E: std::fmt::Display> KeyFiles<S, P, E> {
    /// The private key in the file at `path`.
    pub fn load_private(&self, path: &Path) -> Result<S, String> {
        let data = read(path)?;
        self.parse(path, &data, self.private_pem, self.private_der)?
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The public key in the file at `path`; a private key file gives its
    /// public half. A file that is neither is reported with the public key
    /// error.
    pub fn load_public(&self, path: &Path) -> Result<P, String> {
        let data = read(path)?;
        let key = match self.parse(path, &data, self.public_pem, self.public_der)? {
            Err(e) => match self.parse(path, &data, self.private_pem, self.private_der) {
                Ok(Ok(private)) => Ok((self.public_half)(&private)),
                _ => Err(e),
            },
            public => public,
        };
        key.map_err(|e| format!("{}: {e}", path.display()))
    }

    /// `data`, read from `path`, parsed by `pem` if it looks like PEM and
    /// by `der` otherwise; the outer error is a PEM file that is not text.
    fn parse<K>(
        &self,
        path: &Path,
        data: &[u8],
        pem: fn(&str) -> Result<K, E>,
        der: fn(&[u8]) -> Result<K, E>,
    ) -> Result<Result<K, E>, String> {
        if is_pem(data) {
            let text = std::str::from_utf8(data)
                .map_err(|_| format!("{}: {}", path.display(), self.not_text))?;
            Ok(pem(text))
        } else {
            Ok(der(data))
        }
    }
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
