//! `numcrypt rsa …`: keys, signatures and OAEP, in the formats the
//! `openssl` command line reads and writes.
//!
//! Exit status: 0 on success, 1 when `verify` finds the signature invalid,
//! 2 on a usage or input error (one line on standard error).

use std::fs;
use std::io::Read;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use numcrypt_rsa::pss::SaltLength;
use numcrypt_rsa::{HashAlg, KeyGen, RsaPrivateKey, RsaPublicKey};
use zeroize::Zeroizing;

use crate::files::{KeyFiles, exit, read, rng, verdict, write};

#[derive(Subcommand)]
pub enum RsaCommand {
    /// Generates a private key (PKCS#8 PEM, as `openssl genpkey` writes).
    ///
    /// FIPS 186-5 key generation: probable primes with 64 Miller-Rabin
    /// rounds each, e = 65537 unless given.
    Keygen {
        /// Modulus size in bits: even, 2048 to 16384 (1024 with
        /// --allow-weak).
        #[arg(long, default_value_t = 2048)]
        bits: u32,
        /// The public exponent: odd, above 65536, below 2^64 (decimal, or
        /// hexadecimal with 0x).
        #[arg(long, default_value_t = numcrypt_rsa::DEFAULT_PUBLIC_EXPONENT,
              value_parser = crate::numbers::parse_u64)]
        exponent: u64,
        /// Allow sizes from 1024 bits (insecure; numcrypt only verifies
        /// with such keys).
        #[arg(long)]
        allow_weak: bool,
        /// Threads for the prime search (default: every available core).
        #[arg(long)]
        threads: Option<NonZeroUsize>,
        /// Write the key here (mode 0600 on Unix) instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Writes the public key of a private key (SubjectPublicKeyInfo PEM, as
    /// `openssl pkey -pubout` writes).
    Pubkey {
        /// The private key (PKCS#8 or PKCS#1, PEM or DER).
        #[arg(long = "in")]
        input: PathBuf,
        /// Write the public key here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Signs a file (the raw signature, as `openssl dgst -sign` writes).
    Sign {
        /// The private key (PKCS#8 or PKCS#1, PEM or DER).
        #[arg(long)]
        key: PathBuf,
        #[command(flatten)]
        scheme: SchemeArgs,
        /// The file to sign (- for standard input).
        #[arg(long = "in")]
        input: PathBuf,
        /// Write the signature here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Verifies a signature: exit status 0 and "Verified OK" if it is
    /// valid, 1 and "Verification failure" if not.
    Verify {
        /// The public key (SubjectPublicKeyInfo or PKCS#1, PEM or DER; a
        /// private key also works).
        #[arg(long = "pub")]
        public: PathBuf,
        #[command(flatten)]
        scheme: SchemeArgs,
        /// The signed file (- for standard input).
        #[arg(long = "in")]
        input: PathBuf,
        /// The signature.
        #[arg(long)]
        sig: PathBuf,
    },
    /// Encrypts a file with RSAES-OAEP.
    Encrypt {
        /// The public key (SubjectPublicKeyInfo or PKCS#1, PEM or DER).
        #[arg(long = "pub")]
        public: PathBuf,
        #[command(flatten)]
        oaep: OaepArgs,
        /// The file to encrypt (- for standard input); at most the key size
        /// minus 2·hash size + 2 bytes.
        #[arg(long = "in")]
        input: PathBuf,
        /// Write the ciphertext here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Decrypts an RSAES-OAEP ciphertext.
    Decrypt {
        /// The private key (PKCS#8 or PKCS#1, PEM or DER).
        #[arg(long)]
        key: PathBuf,
        #[command(flatten)]
        oaep: OaepArgs,
        /// The ciphertext (- for standard input).
        #[arg(long = "in")]
        input: PathBuf,
        /// Write the plaintext here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Scheme {
    /// RSASSA-PKCS1-v1_5 (openssl's default).
    Pkcs1v15,
    /// RSASSA-PSS with MGF1 over the same hash.
    Pss,
}

#[derive(clap::Args)]
pub struct SchemeArgs {
    /// The signature scheme.
    #[arg(long, value_enum, default_value = "pkcs1v15")]
    scheme: Scheme,
    /// The hash: sha224, sha256, sha384 or sha512.
    #[arg(long, default_value = "sha256")]
    hash: String,
    /// PSS salt length: digest, max, a number of bytes, or (verify only)
    /// auto, which accepts any.
    #[arg(long, default_value = "digest")]
    salt_len: String,
}

#[derive(clap::Args)]
pub struct OaepArgs {
    /// The hash for OAEP and MGF1: sha224, sha256, sha384 or sha512.
    #[arg(long, default_value = "sha256")]
    hash: String,
    /// The OAEP label, as text (openssl takes it in hex:
    /// -pkeyopt rsa_oaep_label:HEX).
    #[arg(long, default_value = "")]
    label: String,
}

/// Runs an `rsa` subcommand.
pub fn run(command: RsaCommand) -> ExitCode {
    let result = match command {
        RsaCommand::Keygen {
            bits,
            exponent,
            allow_weak,
            threads,
            out,
        } => keygen(bits, exponent, allow_weak, threads, out.as_deref()),
        RsaCommand::Pubkey { input, out } => pubkey(&input, out.as_deref()),
        RsaCommand::Sign {
            key,
            scheme,
            input,
            out,
        } => sign(&key, &scheme, &input, out.as_deref()),
        RsaCommand::Verify {
            public,
            scheme,
            input,
            sig,
        } => return verify(&public, &scheme, &input, &sig),
        RsaCommand::Encrypt {
            public,
            oaep,
            input,
            out,
        } => encrypt(&public, &oaep, &input, out.as_deref()),
        RsaCommand::Decrypt {
            key,
            oaep,
            input,
            out,
        } => decrypt(&key, &oaep, &input, out.as_deref()),
    };
    exit(result)
}

/// Private keys in PKCS#8 or PKCS#1, public keys in SubjectPublicKeyInfo or
/// PKCS#1.
const KEYS: KeyFiles<RsaPrivateKey, RsaPublicKey, numcrypt_rsa::Error> = KeyFiles {
    private_pem: RsaPrivateKey::from_pem,
    private_der: RsaPrivateKey::from_der,
    public_pem: RsaPublicKey::from_pem,
    public_der: RsaPublicKey::from_der,
    public_half: |key| key.public_key().clone(),
    not_text: "not UTF-8 PEM",
};

/// The digest of a file (or standard input), read in pieces.
fn digest(hash: HashAlg, path: &Path) -> Result<Vec<u8>, String> {
    let mut hasher = hash.hasher();
    let mut reader: Box<dyn Read> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?)
    };
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

fn hash(name: &str) -> Result<HashAlg, String> {
    name.parse().map_err(|e| format!("--hash {name:?}: {e}"))
}

fn salt_len(text: &str) -> Result<SaltLength, String> {
    text.parse().map_err(|_| {
        format!("--salt-len {text:?}: expected digest, max, auto or a number of bytes")
    })
}

fn keygen(
    bits: u32,
    exponent: u64,
    allow_weak: bool,
    threads: Option<NonZeroUsize>,
    out: Option<&Path>,
) -> Result<(), String> {
    if allow_weak && bits < numcrypt_rsa::MIN_PRIVATE_MODULUS_BITS {
        eprintln!(
            "numcrypt: warning: a {bits}-bit RSA key is too small to be secure; numcrypt will only verify with it"
        );
    }
    let key = KeyGen::new(bits)
        .public_exponent(exponent)
        .allow_weak_key_size(allow_weak)
        .threads(threads)
        .generate(&mut rng()?)
        .map_err(|e| match e {
            numcrypt_rsa::Error::InvalidExponent => {
                format!("--exponent {exponent}: {e} (odd, above 65536, below 2^64)")
            }
            _ => format!("--bits {bits}: {e}"),
        })?;
    let pem = key.to_pkcs8_pem().map_err(|e| e.to_string())?;
    write(out, pem.as_bytes(), true)
}

fn pubkey(input: &Path, out: Option<&Path>) -> Result<(), String> {
    let key = KEYS.load_private(input)?;
    let pem = key
        .public_key()
        .to_public_key_pem()
        .map_err(|e| e.to_string())?;
    write(out, pem.as_bytes(), false)
}

fn sign(key: &Path, args: &SchemeArgs, input: &Path, out: Option<&Path>) -> Result<(), String> {
    let hash = hash(&args.hash)?;
    let salt = salt_len(&args.salt_len)?;
    let key = KEYS.load_private(key)?;
    let digest = digest(hash, input)?;
    let mut rng = rng()?;
    let sig = match args.scheme {
        Scheme::Pkcs1v15 => key.sign_pkcs1v15_prehashed(&mut rng, hash, &digest),
        Scheme::Pss => key.sign_pss_prehashed(&mut rng, hash, &digest, salt),
    }
    .map_err(|e| e.to_string())?;
    write(out, &sig, false)
}

fn verify(public: &Path, args: &SchemeArgs, input: &Path, sig: &Path) -> ExitCode {
    verdict((|| {
        let hash = hash(&args.hash)?;
        let salt = salt_len(&args.salt_len)?;
        let key = KEYS.load_public(public)?;
        let digest = digest(hash, input)?;
        let sig = read(sig)?;
        Ok::<_, String>(match args.scheme {
            Scheme::Pkcs1v15 => key.verify_pkcs1v15_prehashed(hash, &digest, &sig),
            Scheme::Pss => key.verify_pss_prehashed(hash, &digest, &sig, salt),
        })
    })())
}

fn encrypt(public: &Path, args: &OaepArgs, input: &Path, out: Option<&Path>) -> Result<(), String> {
    let hash = hash(&args.hash)?;
    let key = KEYS.load_public(public)?;
    let ct = key
        .encrypt_oaep(&mut rng()?, hash, args.label.as_bytes(), &read(input)?)
        .map_err(|e| e.to_string())?;
    write(out, &ct, false)
}

fn decrypt(key: &Path, args: &OaepArgs, input: &Path, out: Option<&Path>) -> Result<(), String> {
    let hash = hash(&args.hash)?;
    let key = KEYS.load_private(key)?;
    let msg = key
        .decrypt_oaep(&mut rng()?, hash, args.label.as_bytes(), &read(input)?)
        .map_err(|e| e.to_string())?;
    write(out, &msg, true)
}
