//! `numcrypt rsa …`: keys, signatures and encryption, in the formats and
//! with the defaults of the `openssl` command line.
//!
//! Exit status: 0 on success, 1 when `verify` finds the signature invalid,
//! 2 on a usage or input error (one line on standard error).

use std::num::NonZeroUsize;
use std::path::Path;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use numcrypt_rsa::pss::SaltLength;
use numcrypt_rsa::signature::hazmat::RandomizedPrehashSigner;
use numcrypt_rsa::{HashAlg, KeyAlgorithm, KeyGen, RsaPrivateKey, RsaPublicKey};
use numcrypt_rsa::{oaep, pkcs1v15, pss};

use crate::files::{DecryptFiles, EncryptFiles, KeyOut, SignFiles, VerifyFiles};
use crate::files::{
    KeyFiles, PubkeyArgs, digest_file, exit, hash, read, rng, verdict, write_private_key,
};
use crate::output::{write_all, write_public};

#[derive(Subcommand)]
pub enum RsaCommand {
    /// Generates a private key (PKCS#8 PEM, as `openssl genpkey` writes).
    ///
    /// FIPS 186-5 key generation: probable primes with 64 Miller-Rabin
    /// rounds each, e = 65537 unless given.
    Keygen {
        /// Modulus size in bits: even, 2048 to 16384 (1024 with
        /// --allow-weak-key).
        #[arg(long, default_value_t = 2048)]
        bits: u32,
        /// The public exponent: odd, above 65536, below 2^33 (decimal, or
        /// hexadecimal with 0x).
        #[arg(long, default_value_t = numcrypt_rsa::DEFAULT_PUBLIC_EXPONENT,
              value_parser = crate::numbers::parse_u64)]
        exponent: u64,
        /// Allow sizes from 1024 bits (insecure: signing and decrypting
        /// with such a key need --allow-weak-key again).
        #[arg(long = "allow-weak-key", alias = "allow-weak")]
        allow_weak: bool,
        /// Threads for the prime search (default: every available core).
        #[arg(long)]
        threads: Option<NonZeroUsize>,
        #[command(flatten)]
        out: KeyOut,
    },
    Pubkey(PubkeyArgs),
    /// Signs a file (the raw signature, as `openssl dgst -sign` writes).
    Sign {
        #[command(flatten)]
        scheme: SchemeArgs,
        /// Allow --hash sha1 (refused otherwise: SHA-1 collisions are
        /// practical; verifying SHA-1 signatures needs no flag).
        #[arg(long)]
        allow_sha1: bool,
        #[command(flatten)]
        weak: WeakKeyArg,
        #[command(flatten)]
        files: SignFiles,
    },
    /// Verifies a signature: exit status 0 and "Verified OK" if it is
    /// valid, 1 and "Verification failure" if not.
    Verify {
        #[command(flatten)]
        scheme: SchemeArgs,
        #[command(flatten)]
        files: VerifyFiles,
    },
    /// Encrypts a file with RSAES-OAEP (or, for old peers, PKCS#1 v1.5):
    /// at most the key size minus 2·hash size + 2 bytes (OAEP) or minus 11
    /// bytes (pkcs1).
    Encrypt {
        #[command(flatten)]
        padding: PaddingArgs,
        #[command(flatten)]
        files: EncryptFiles,
    },
    /// Decrypts an RSAES-OAEP or PKCS#1 v1.5 ciphertext (what `openssl
    /// pkeyutl -encrypt` writes, with or without -pkeyopt
    /// rsa_padding_mode:oaep).
    ///
    /// With --padding pkcs1 the decryption uses implicit rejection: a wrong
    /// key or a damaged ciphertext gives pseudorandom bytes, not an error
    /// (an error would be the oracle of Bleichenbacher's attack), so check
    /// the message's integrity by other means.
    Decrypt {
        #[command(flatten)]
        padding: PaddingArgs,
        #[command(flatten)]
        weak: WeakKeyArg,
        #[command(flatten)]
        files: DecryptFiles,
    },
}

/// `--allow-weak-key` of the commands that sign or decrypt.
#[derive(clap::Args)]
pub struct WeakKeyArg {
    /// Allow a private key of 1024 to 2047 bits (refused otherwise: such
    /// keys are within reach of a well-funded attacker; verifying with
    /// them needs no flag). For old data and systems that cannot change.
    #[arg(long)]
    allow_weak_key: bool,
}

impl WeakKeyArg {
    /// The `--key` private key, opted in if the flag is given; without
    /// it, a weak key is refused here, with the flag named.
    fn load(&self, key: &crate::files::KeyIn) -> Result<RsaPrivateKey, String> {
        let loaded = KEYS.load_key(key)?;
        if self.allow_weak_key {
            return Ok(loaded.allow_weak_key());
        }
        let bits = loaded.public_key().bits();
        if bits < numcrypt_rsa::MIN_PRIVATE_MODULUS_BITS {
            return Err(format!(
                "{}: a {bits}-bit RSA key is below {} bits, too weak to sign or decrypt with; \
                 add --allow-weak-key to use it anyway",
                key.path.display(),
                numcrypt_rsa::MIN_PRIVATE_MODULUS_BITS
            ));
        }
        Ok(loaded)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scheme {
    /// RSASSA-PKCS1-v1_5 (openssl's default for RSA keys).
    Pkcs1v15,
    /// RSASSA-PSS (the only scheme of RSA-PSS keys).
    Pss,
}

#[derive(clap::Args)]
pub struct SchemeArgs {
    /// The signature scheme [default: pkcs1v15; pss for an RSA-PSS key].
    #[arg(long, value_enum)]
    scheme: Option<Scheme>,
    /// The message hash: sha1 (verify only, unless --allow-sha1), sha224,
    /// sha256, sha384 or sha512 [default: sha256, or an RSA-PSS key's].
    #[arg(long)]
    hash: Option<String>,
    /// PSS: the hash MGF1 runs on [default: --hash, or an RSA-PSS key's].
    #[arg(long)]
    mgf1_hash: Option<String>,
    /// PSS: the salt length: digest, max, a number of bytes, or (verify
    /// only) auto, which reads it from the signature [default: digest when
    /// signing (an RSA-PSS key's minimum if it has one), auto when
    /// verifying, as openssl].
    #[arg(long)]
    salt_len: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Padding {
    /// RSAES-OAEP.
    Oaep,
    /// RSAES-PKCS1-v1_5 (openssl pkeyutl's default and its name for it;
    /// `pkcs1v15` also accepted); decrypted here with implicit rejection.
    #[value(alias = "pkcs1v15")]
    Pkcs1,
}

#[derive(clap::Args)]
pub struct PaddingArgs {
    /// The padding.
    #[arg(long, value_enum, default_value = "oaep")]
    padding: Padding,
    /// OAEP: the label hash: sha1, sha224, sha256, sha384 or sha512
    /// [default: sha1, as openssl pkeyutl].
    #[arg(long)]
    hash: Option<String>,
    /// OAEP: the hash MGF1 runs on [default: --hash].
    #[arg(long)]
    mgf1_hash: Option<String>,
    /// OAEP: the label, as text.
    #[arg(long, conflicts_with = "label_hex")]
    label: Option<String>,
    /// OAEP: the label in hexadecimal (openssl's -pkeyopt
    /// rsa_oaep_label:HEX).
    #[arg(long)]
    label_hex: Option<String>,
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
        } => keygen(bits, exponent, allow_weak, threads, &out),
        RsaCommand::Pubkey(args) => KEYS.write_public_key(&args),
        RsaCommand::Sign {
            scheme,
            allow_sha1,
            weak,
            files,
        } => sign(&scheme, allow_sha1, &weak, &files),
        RsaCommand::Verify { scheme, files } => {
            return verify(&files.public, &scheme, &files.input, &files.sig);
        }
        RsaCommand::Encrypt { padding, files } => encrypt(&padding, &files),
        RsaCommand::Decrypt {
            padding,
            weak,
            files,
        } => decrypt(&padding, &weak, &files),
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
    public_to_pem: |key| key.to_public_key_pem(),
    not_text: "not UTF-8 PEM",
    algorithms: &["RSA", "RSA-PSS"],
    expected: "an RSA key",
};

fn optional_hash(flag: &str, name: Option<&String>) -> Result<Option<HashAlg>, String> {
    name.map(|n| hash(flag, n)).transpose()
}

fn salt_len(text: &str) -> Result<SaltLength, String> {
    text.parse().map_err(|_| {
        format!("--salt-len {text:?}: expected digest, max, auto or a number of bytes")
    })
}

/// What a signature command does: the scheme and, for PSS, its parameters,
/// from the flags and the key's restrictions (an RSA-PSS key's parameters
/// are the defaults, as in openssl).
enum Signing {
    Pkcs1v15(HashAlg),
    Pss(pss::Params),
}

impl SchemeArgs {
    fn resolve(&self, key: &RsaPublicKey, verifying: bool) -> Result<Signing, String> {
        let restriction = match key.algorithm() {
            KeyAlgorithm::Rsa => None,
            KeyAlgorithm::RsaPss(r) => Some(r),
        };
        let scheme = match (self.scheme, restriction) {
            (Some(Scheme::Pkcs1v15), Some(_)) => {
                return Err(
                    "--scheme pkcs1v15: the key is an RSA-PSS key, which signs with PSS only"
                        .into(),
                );
            }
            (Some(scheme), _) => scheme,
            (None, Some(_)) => Scheme::Pss,
            (None, None) => Scheme::Pkcs1v15,
        };
        let restricted = restriction.flatten();
        let hash = optional_hash("--hash", self.hash.as_ref())?
            .or(restricted.map(|r| r.hash))
            .unwrap_or(HashAlg::Sha256);
        if scheme == Scheme::Pkcs1v15 {
            if self.mgf1_hash.is_some() || self.salt_len.is_some() {
                return Err("--mgf1-hash and --salt-len apply to --scheme pss only".into());
            }
            return Ok(Signing::Pkcs1v15(hash));
        }
        let mgf1_hash = optional_hash("--mgf1-hash", self.mgf1_hash.as_ref())?
            .or(restricted.map(|r| r.mgf1_hash))
            .unwrap_or(hash);
        let salt = match (&self.salt_len, restricted) {
            (Some(text), _) => salt_len(text)?,
            (None, _) if verifying => SaltLength::Auto,
            (None, Some(r)) => SaltLength::Bytes(r.min_salt_len),
            (None, None) => SaltLength::Digest,
        };
        if salt == SaltLength::Auto && !verifying {
            return Err(
                "--salt-len auto: for verifying only (sign with digest, max or a number)".into(),
            );
        }
        Ok(Signing::Pss(
            pss::Params::new(hash).mgf1_hash(mgf1_hash).salt_len(salt),
        ))
    }
}

impl Signing {
    fn hash(&self) -> HashAlg {
        match self {
            Signing::Pkcs1v15(hash) => *hash,
            Signing::Pss(params) => params.hash,
        }
    }
}

/// The OAEP parameters of the flags, the label borrowed from `label`.
fn oaep_params<'a>(args: &PaddingArgs, label: &'a [u8]) -> Result<oaep::Params<'a>, String> {
    let hash = optional_hash("--hash", args.hash.as_ref())?.unwrap_or(HashAlg::Sha1);
    let mgf1_hash = optional_hash("--mgf1-hash", args.mgf1_hash.as_ref())?.unwrap_or(hash);
    Ok(oaep::Params::new(hash).mgf1_hash(mgf1_hash).label(label))
}

impl PaddingArgs {
    /// The label's bytes (`--label` or `--label-hex`).
    fn label(&self) -> Result<Vec<u8>, String> {
        match (&self.label, &self.label_hex) {
            (Some(text), _) => Ok(text.as_bytes().to_vec()),
            (None, Some(hex_text)) => {
                hex::decode(hex_text).map_err(|e| format!("--label-hex {hex_text:?}: {e}"))
            }
            (None, None) => Ok(Vec::new()),
        }
    }

    /// Refuses OAEP's flags with PKCS#1 v1.5 padding.
    fn check_pkcs1(&self) -> Result<(), String> {
        let oaep_only = self.hash.is_some()
            || self.mgf1_hash.is_some()
            || self.label.is_some()
            || self.label_hex.is_some();
        if oaep_only {
            return Err(
                "--hash, --mgf1-hash, --label and --label-hex apply to --padding oaep only".into(),
            );
        }
        Ok(())
    }
}

fn keygen(
    bits: u32,
    exponent: u64,
    allow_weak: bool,
    threads: Option<NonZeroUsize>,
    out: &KeyOut,
) -> Result<(), String> {
    let target = out.out.open()?;
    if allow_weak && bits < numcrypt_rsa::MIN_PRIVATE_MODULUS_BITS {
        eprintln!(
            "numcrypt: warning: a {bits}-bit RSA key is too small to be secure; \
             numcrypt signs and decrypts with it only with --allow-weak-key"
        );
    }
    let key = KeyGen::new(bits)
        .public_exponent(exponent)
        .allow_weak_key_size(allow_weak)
        .threads(threads)
        .generate(&mut rng()?)
        .map_err(|e| match e {
            numcrypt_rsa::Error::InvalidExponent => {
                format!("--exponent {exponent}: {e} (odd, above 65536, below 2^33)")
            }
            numcrypt_rsa::Error::Prime(e @ numcrypt_prime::Error::TooManyThreads { .. }) => {
                format!("--threads {}: {e}", threads.map_or(0, NonZeroUsize::get))
            }
            _ => format!("--bits {bits}: {e}"),
        })?;
    write_private_key(target, &key, &out.passout)
}

fn sign(
    args: &SchemeArgs,
    allow_sha1: bool,
    weak: &WeakKeyArg,
    files: &SignFiles,
) -> Result<(), String> {
    let SignFiles { key, input, out } = files;
    let key = weak.load(key)?;
    let signing = args.resolve(key.public_key(), false)?;
    if signing.hash() == HashAlg::Sha1 && !allow_sha1 {
        return Err(format!(
            "--hash sha1: {}; add --allow-sha1 to sign with it anyway",
            numcrypt_rsa::Error::WeakHash
        ));
    }
    let digest = digest_file(signing.hash(), input)?;
    let mut rng = rng()?;
    let key_error = |e: numcrypt_rsa::Error| format!("{}: {e}", files.key.path.display());
    let sig = match signing {
        Signing::Pkcs1v15(hash) => {
            let signer = if allow_sha1 {
                pkcs1v15::SigningKey::try_new_allowing_sha1(key, hash)
            } else {
                pkcs1v15::SigningKey::try_new(key, hash)
            }
            .map_err(key_error)?;
            signer.sign_prehash_with_rng(&mut rng, &digest)
        }
        Signing::Pss(params) => {
            let signer = if allow_sha1 {
                pss::SigningKey::try_with_params_allowing_sha1(key, params)
            } else {
                pss::SigningKey::try_with_params(key, params)
            }
            .map_err(key_error)?;
            signer.sign_prehash_with_rng(&mut rng, &digest)
        }
    }
    .map_err(|e| std::error::Error::source(&e).map_or_else(|| e.to_string(), |c| c.to_string()))?;
    write_public(out.as_deref(), sig.as_bytes())
}

fn verify(public: &Path, args: &SchemeArgs, input: &Path, sig: &Path) -> ExitCode {
    verdict((|| {
        let key = KEYS.load_public(public)?;
        let signing = args.resolve(&key, true)?;
        let digest = digest_file(signing.hash(), input)?;
        let sig = read(sig)?;
        Ok::<_, String>(match signing {
            Signing::Pkcs1v15(hash) => key.verify_pkcs1v15_prehashed(hash, &digest, &sig),
            Signing::Pss(params) => key.verify_pss_prehashed_with(&params, &digest, &sig),
        })
    })())
}

fn encrypt(args: &PaddingArgs, files: &EncryptFiles) -> Result<(), String> {
    let key = KEYS.load_public(&files.public)?;
    let msg = read(&files.input)?;
    let mut rng = rng()?;
    let ct = match args.padding {
        Padding::Oaep => {
            let label = args.label()?;
            key.encrypt_oaep_with(&mut rng, &oaep_params(args, &label)?, &msg)
        }
        Padding::Pkcs1 => {
            args.check_pkcs1()?;
            key.encrypt_pkcs1v15(&mut rng, &msg)
        }
    }
    .map_err(|e| e.to_string())?;
    write_public(files.out.as_deref(), &ct)
}

fn decrypt(args: &PaddingArgs, weak: &WeakKeyArg, files: &DecryptFiles) -> Result<(), String> {
    let out = files.out.open()?;
    let key = weak.load(&files.key)?;
    let ct = read(&files.input)?;
    let mut rng = rng()?;
    let msg = match args.padding {
        Padding::Oaep => {
            let label = args.label()?;
            key.decrypt_oaep_with(&mut rng, &oaep_params(args, &label)?, &ct)
        }
        Padding::Pkcs1 => {
            args.check_pkcs1()?;
            key.decrypt_pkcs1v15(&mut rng, &ct)
        }
    }
    .map_err(|e| e.to_string())?;
    write_all(out, &msg)
}
