//! Input and randomness for the key subcommands (`rsa`, `dsa`, `elgamal`):
//! files or standard input, key files in PEM or DER (password protected or
//! not), errors as one line for standard error that say what a refused key
//! file is. Outputs are `output`'s.

use std::fs;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pkcs8::der::pem::{LineEnding, PemLabel};
use pkcs8::der::{Decode, asn1::ObjectIdentifier};
use pkcs8::{EncryptedPrivateKeyInfoRef, PrivateKeyInfoRef};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use spki::SubjectPublicKeyInfoRef;
use zeroize::Zeroizing;

use numcrypt_common::encrypted_key;

use crate::output::{Output, SecretOut, write_all, write_public};

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
            outln!("Verified OK");
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            // openssl's exact line on standard output; the reason beside it
            // on standard error.
            outln!("Verification failure");
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

/// A reader of `path` (`-`: standard input).
pub fn open_input(path: &Path) -> Result<Box<dyn Read>, String> {
    if path == Path::new("-") {
        Ok(Box::new(std::io::stdin().lock()))
    } else {
        let file = fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Box::new(file))
    }
}

/// The most [`read`] takes: key, parameter, signature and configuration
/// files, and RSA messages and ciphertexts, are far smaller. Messages to
/// sign or verify are streamed ([`digest_file`]), and ElGamal files are
/// encrypted in chunks, so they have no limit.
pub const MAX_READ: usize = 1 << 20;

/// The whole of `path` (`-`: standard input), zeroized when dropped; an
/// error, before more is read, if it holds more than [`MAX_READ`] bytes.
pub fn read(path: &Path) -> Result<Zeroizing<Vec<u8>>, String> {
    let data = read_up_to(&mut open_input(path)?, MAX_READ + 1, path)?;
    if data.len() > MAX_READ {
        return Err(format!(
            "{}: larger than {} MiB, the most numcrypt reads for a key, signature or RSA message",
            path.display(),
            MAX_READ >> 20
        ));
    }
    Ok(data)
}

/// The hash named by `name` for `flag`.
pub fn hash(flag: &str, name: &str) -> Result<numcrypt_rsa::HashAlg, String> {
    name.parse().map_err(|e| format!("{flag} {name:?}: {e}"))
}

/// The digest of a file (or standard input), read in pieces.
pub fn digest_file(hash: numcrypt_rsa::HashAlg, path: &Path) -> Result<Vec<u8>, String> {
    let mut hasher = hash.hasher();
    let mut reader = open_input(path)?;
    let mut buf = Zeroizing::new(vec![0u8; 1 << 16]);
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(hasher.finalize()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
}

/// Up to `len` bytes from `reader` (fewer only at the end of the input),
/// zeroized when dropped; `path` names the input in an error.
pub fn read_up_to(
    reader: &mut dyn Read,
    len: usize,
    path: &Path,
) -> Result<Zeroizing<Vec<u8>>, String> {
    let mut data = Zeroizing::new(Vec::with_capacity(len));
    reader
        .take(len as u64)
        .read_to_end(&mut data)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(data)
}

/// `path` as text (a PEM file), zeroized when dropped.
pub fn read_text(path: &Path) -> Result<Zeroizing<String>, String> {
    let data = read(path)?;
    let text =
        std::str::from_utf8(&data).map_err(|_| format!("{}: not a PEM file", path.display()))?;
    Ok(Zeroizing::new(text.to_owned()))
}

/// Whether `data` looks like PEM (otherwise it is taken as DER).
pub fn is_pem(data: &[u8]) -> bool {
    data.trim_ascii_start().starts_with(b"-----BEGIN")
}

/// The `--passin` flag of the commands that read a private key.
#[derive(clap::Args)]
pub struct PassIn {
    /// The password of an encrypted key (PKCS#8 `ENCRYPTED PRIVATE KEY`,
    /// as `openssl genpkey -aes256` writes): pass:TEXT, env:VAR, file:PATH
    /// (its first line) or stdin.
    #[arg(long, value_name = "SOURCE")]
    pub passin: Option<String>,
}

/// The `--passout` flag of the commands that write a private key.
#[derive(clap::Args)]
pub struct PassOut {
    /// Encrypt the key written with this password (PBES2: scrypt and
    /// AES-256-CBC, which `openssl pkey -passin` reads): pass:TEXT,
    /// env:VAR, file:PATH (its first line) or stdin.
    #[arg(long, value_name = "SOURCE")]
    pub passout: Option<String>,
}

/// The longest password read from standard input.
const PASSWORD_MAX: usize = 4096;

/// The password named by `source` (openssl's pass phrase arguments).
fn password(flag: &str, source: &str) -> Result<Zeroizing<String>, String> {
    let first_line = |text: &str| Zeroizing::new(text.lines().next().unwrap_or("").to_owned());
    if let Some(text) = source.strip_prefix("pass:") {
        Ok(Zeroizing::new(text.to_owned()))
    } else if let Some(var) = source.strip_prefix("env:") {
        let value = std::env::var(var)
            .map_err(|_| format!("{flag} env:{var}: no such environment variable"))?;
        Ok(Zeroizing::new(value))
    } else if let Some(path) = source.strip_prefix("file:") {
        Ok(first_line(&read_text(Path::new(path))?))
    } else if source == "stdin" {
        // Allocated once and bounded, so that no copy of the password is
        // left behind by a reallocation.
        let mut line = Zeroizing::new(Vec::with_capacity(PASSWORD_MAX + 1));
        std::io::BufRead::read_until(
            &mut std::io::stdin().lock().take(PASSWORD_MAX as u64),
            b'\n',
            &mut line,
        )
        .map_err(|e| format!("{flag} stdin: {e}"))?;
        let text = std::str::from_utf8(&line).map_err(|_| format!("{flag} stdin: not UTF-8"))?;
        Ok(first_line(text))
    } else {
        Err(format!(
            "{flag} {source:?}: expected pass:TEXT, env:VAR, file:PATH or stdin"
        ))
    }
}

/// Writes a private key as PKCS#8 PEM (`PRIVATE KEY`), or encrypted with
/// the `--passout` password (`ENCRYPTED PRIVATE KEY`).
pub fn write_private_key(
    out: Output,
    key: &impl pkcs8::EncodePrivateKey,
    passout: &PassOut,
) -> Result<(), String> {
    let der = key.to_pkcs8_der().map_err(|e| e.to_string())?;
    let info = PrivateKeyInfoRef::from_der(der.as_bytes()).map_err(|e| e.to_string())?;
    let pem = match &passout.passout {
        None => pkcs8::der::SecretDocument::try_from(info)
            .and_then(|doc| Ok(doc.to_pem(PrivateKeyInfoRef::PEM_LABEL, LineEnding::LF)?))
            .map_err(|e| e.to_string())?,
        Some(source) => {
            let password = password("--passout", source)?;
            info.encrypt_with_rng(&mut rng()?, password.as_bytes())
                .and_then(|doc| {
                    Ok(doc.to_pem(EncryptedPrivateKeyInfoRef::PEM_LABEL, LineEnding::LF)?)
                })
                .map_err(|e| format!("--passout: {e}"))?
        }
    };
    write_all(out, pem.as_bytes())
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
    /// A public key as SubjectPublicKeyInfo PEM.
    pub public_to_pem: fn(&P) -> Result<String, E>,
    /// The error for a file that looks like PEM but is not UTF-8 (after
    /// the file's name).
    pub not_text: &'static str,
    /// The key algorithms (as [`identify`] names them) the scheme reads,
    /// and how to name them in an error.
    pub algorithms: &'static [&'static str],
    pub expected: &'static str,
}

/// `--key` and `--passin`: the private key a command signs or decrypts
/// with.
#[derive(clap::Args)]
pub struct KeyIn {
    /// The private key, PEM or DER: PKCS#8 (encrypted or not) or the
    /// scheme's traditional form (PKCS#1 for RSA, OpenSSL's for DSA).
    #[arg(long = "key")]
    pub path: PathBuf,
    #[command(flatten)]
    pub passin: PassIn,
}

/// `--passout` and `--out`: where and how a command writes the private key
/// it makes.
#[derive(clap::Args)]
pub struct KeyOut {
    #[command(flatten)]
    pub passout: PassOut,
    #[command(flatten)]
    pub out: SecretOut,
}

/// The files of every `sign` subcommand.
#[derive(clap::Args)]
pub struct SignFiles {
    #[command(flatten)]
    pub key: KeyIn,
    /// The file to sign (- for standard input).
    #[arg(long = "in")]
    pub input: PathBuf,
    /// Write the signature here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The files of every `verify` subcommand.
#[derive(clap::Args)]
pub struct VerifyFiles {
    /// The public key (SubjectPublicKeyInfo PEM or DER, or the scheme's
    /// traditional form; a private key also works).
    #[arg(long = "pub")]
    pub public: PathBuf,
    /// The signed file (- for standard input).
    #[arg(long = "in")]
    pub input: PathBuf,
    /// The signature.
    #[arg(long)]
    pub sig: PathBuf,
}

/// The files of every `encrypt` subcommand.
#[derive(clap::Args)]
pub struct EncryptFiles {
    /// The public key (SubjectPublicKeyInfo PEM or DER, or the scheme's
    /// traditional form; a private key also works).
    #[arg(long = "pub")]
    pub public: PathBuf,
    /// The file to encrypt (- for standard input).
    #[arg(long = "in")]
    pub input: PathBuf,
    /// Write the ciphertext here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The files of every `decrypt` subcommand.
#[derive(clap::Args)]
pub struct DecryptFiles {
    #[command(flatten)]
    pub key: KeyIn,
    /// The ciphertext (- for standard input).
    #[arg(long = "in")]
    pub input: PathBuf,
    #[command(flatten)]
    pub out: SecretOut,
}

// The arguments of every algorithm's `pubkey` subcommand; clap shows the
// doc comment as the subcommand's help.
/// Writes the public key of a private key (SubjectPublicKeyInfo PEM, as
/// `openssl pkey -pubout` writes).
#[derive(clap::Args)]
pub struct PubkeyArgs {
    /// The private key (PEM or DER: what `sign --key` reads).
    #[arg(long = "in")]
    pub input: PathBuf,
    #[command(flatten)]
    pub passin: PassIn,
    /// Write the public key here instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl<S, P, E: std::fmt::Display> KeyFiles<S, P, E> {
    /// The private key `--key` names, decrypted with `--passin` if needed.
    pub fn load_key(&self, key: &KeyIn) -> Result<S, String> {
        self.load_private(&key.path, &key.passin)
    }

    /// `pubkey`: writes the public key of the private key in `args.input`
    /// (SubjectPublicKeyInfo PEM, as `openssl pkey -pubout` writes).
    pub fn write_public_key(&self, args: &PubkeyArgs) -> Result<(), String> {
        let public = (self.public_half)(&self.load_private(&args.input, &args.passin)?);
        let pem = (self.public_to_pem)(&public).map_err(|e| e.to_string())?;
        write_public(args.out.as_deref(), pem.as_bytes())
    }

    /// The private key in the file at `path`, decrypted with the `--passin`
    /// password if it is encrypted.
    pub fn load_private(&self, path: &Path, passin: &PassIn) -> Result<S, String> {
        let data = read(path)?;
        if let Some(encrypted) = encrypted_key(&data) {
            let Some(source) = &passin.passin else {
                return Err(format!(
                    "{}: an encrypted private key: give its password with --passin \
                     (pass:TEXT, env:VAR, file:PATH or stdin)",
                    path.display()
                ));
            };
            let password = password("--passin", source)?;
            // The key derivation's cost is checked before anything is derived.
            let der = encrypted_key::decrypt_der(&encrypted, password.as_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            return (self.private_der)(der.as_bytes())
                .map_err(|e| self.explain(path, &data, e, true));
        }
        self.parse(path, &data, self.private_pem, self.private_der)?
            .map_err(|e| self.explain(path, &data, e, true))
    }

    /// The public key in the file at `path`; a private key file gives its
    /// public half (and its own error, when it is refused). A file that is
    /// neither is reported with the public key error.
    pub fn load_public(&self, path: &Path) -> Result<P, String> {
        let data = read(path)?;
        let key = match self.parse(path, &data, self.public_pem, self.public_der)? {
            Err(e) => match self.parse(path, &data, self.private_pem, self.private_der) {
                Ok(Ok(private)) => Ok((self.public_half)(&private)),
                Ok(Err(refused))
                    if identify(&data)
                        .is_some_and(|k| !k.public && !k.encrypted && k.algorithm.is_some()) =>
                {
                    Err(refused)
                }
                _ => Err(e),
            },
            public => public,
        };
        key.map_err(|e| self.explain(path, &data, e, false))
    }

    /// The error line for a key file that did not parse: what the file is
    /// when it is not this scheme's (private, if `private`) key, the
    /// parser's error otherwise.
    fn explain(&self, path: &Path, data: &[u8], error: E, private: bool) -> String {
        let path = path.display();
        match identify(data) {
            Some(kind) if private && kind.public => {
                format!("{path}: {}, not a private key", kind.what)
            }
            Some(kind) if kind.encrypted => format!(
                "{path}: an encrypted private key: numcrypt reads it with --passin \
                 where a private key is expected; for a public key, give its public key file"
            ),
            Some(kind) if !kind.algorithm.is_some_and(|a| self.algorithms.contains(&a)) => {
                format!("{path}: {}, not {}", kind.what, self.expected)
            }
            _ => format!("{path}: {error}"),
        }
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

/// The DER of an `EncryptedPrivateKeyInfo`, if `data` is one (PEM or DER).
fn encrypted_key(data: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    if is_pem(data) {
        let text = std::str::from_utf8(data).ok()?;
        let (label, doc) = pkcs8::der::SecretDocument::from_pem(text).ok()?;
        (label == EncryptedPrivateKeyInfoRef::PEM_LABEL).then(|| doc.to_bytes())
    } else {
        EncryptedPrivateKeyInfoRef::from_der(data).ok()?;
        Some(Zeroizing::new(data.to_vec()))
    }
}

/// What a key file holds, as far as its PEM label or algorithm identifier
/// tells.
struct FileKind {
    /// The key algorithm (`"RSA"`, `"EC"`, …), if it is a key.
    algorithm: Option<&'static str>,
    encrypted: bool,
    public: bool,
    /// "an EC private key", "a certificate", …
    what: String,
}

/// Names a key file's contents, for an error that says what it is.
fn identify(data: &[u8]) -> Option<FileKind> {
    let kind = |algorithm: Option<&'static str>, what: String| FileKind {
        algorithm,
        encrypted: false,
        public: false,
        what,
    };
    let key = |algorithm: &'static str, role: &str| {
        let article = if algorithm.starts_with(['E', 'M', 'R', 'X']) {
            "an"
        } else {
            "a"
        };
        let what = match algorithm {
            "" => format!("a {role} key of an algorithm numcrypt does not know"),
            _ => format!("{article} {algorithm} {role} key"),
        };
        FileKind {
            public: role == "public",
            ..kind(Some(algorithm), what)
        }
    };
    let encrypted = || FileKind {
        algorithm: None,
        encrypted: true,
        public: false,
        what: "an encrypted private key".into(),
    };
    let der;
    let bytes = if is_pem(data) {
        let text = std::str::from_utf8(data).ok()?;
        let (label, doc) = pkcs8::der::Document::from_pem(text).ok()?;
        match label {
            "PRIVATE KEY" | "PUBLIC KEY" => {}
            "ENCRYPTED PRIVATE KEY" => {
                return Some(encrypted());
            }
            "RSA PRIVATE KEY" => return Some(key("RSA", "private")),
            "RSA PUBLIC KEY" => return Some(key("RSA", "public")),
            "EC PRIVATE KEY" => return Some(key("EC", "private")),
            "DSA PRIVATE KEY" => return Some(key("DSA", "private")),
            "CERTIFICATE" => return Some(kind(None, "a certificate, not a key".into())),
            "OPENSSH PRIVATE KEY" => {
                return Some(kind(
                    None,
                    "an OpenSSH private key (convert it with ssh-keygen -p -m PKCS8)".into(),
                ));
            }
            l if l.ends_with("PARAMETERS") => {
                return Some(kind(None, format!("{} (parameters), not a key", l)));
            }
            other => return Some(kind(None, format!("a PEM {other:?} block, not a key"))),
        }
        der = doc.as_bytes().to_vec();
        &der[..]
    } else {
        data
    };
    if let Ok(info) = PrivateKeyInfoRef::from_der(bytes) {
        return Some(key(algorithm_name(&info.algorithm.oid), "private"));
    }
    if let Ok(spki) = SubjectPublicKeyInfoRef::from_der(bytes) {
        return Some(key(algorithm_name(&spki.algorithm.oid), "public"));
    }
    if EncryptedPrivateKeyInfoRef::from_der(bytes).is_ok() {
        return Some(encrypted());
    }
    // A PKCS#1 `RSAPrivateKey` in DER has no label to name it.
    if numcrypt_rsa::pkcs1::RsaPrivateKeyRef::from_der(bytes).is_ok() {
        return Some(key("RSA", "private"));
    }
    None
}

/// The usual name of a key algorithm's object identifier (empty when
/// unknown).
fn algorithm_name(oid: &ObjectIdentifier) -> &'static str {
    match oid.to_string().as_str() {
        "1.2.840.113549.1.1.1" => "RSA",
        "1.2.840.113549.1.1.10" => "RSA-PSS",
        "1.2.840.10045.2.1" => "EC",
        "1.3.101.110" => "X25519",
        "1.3.101.111" => "X448",
        "1.3.101.112" => "Ed25519",
        "1.3.101.113" => "Ed448",
        "1.2.840.10040.4.1" => "DSA",
        "1.2.840.10046.2.1" | "1.2.840.113549.1.3.1" => "DH",
        "2.16.840.1.101.3.4.3.17" | "2.16.840.1.101.3.4.3.18" | "2.16.840.1.101.3.4.3.19" => {
            "ML-DSA"
        }
        "2.16.840.1.101.3.4.4.1" | "2.16.840.1.101.3.4.4.2" | "2.16.840.1.101.3.4.4.3" => "ML-KEM",
        _ => "",
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
