//! `numcrypt dsa …`: FIPS 186-4 parameters, keys and signatures, in the
//! formats the `openssl` command line reads and writes.
//!
//! Exit status: 0 on success, 1 when `verify` finds the signature invalid,
//! 2 on a usage or input error (one line on standard error).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use numcrypt_dsa::{
    DomainParameters, GenerationOptions, GeneratorMethod, ParameterSizes, Signature, SigningKey,
    VerifyingKey,
};

use crate::files::{
    KeyFiles, PubkeyArgs, Status, digest_file, exit, hash, read, read_text, rng, verdict,
    write_private_key,
};
use crate::files::{KeyOut, SignFiles, VerifyFiles};
use crate::output::write_public;

#[derive(Subcommand)]
pub enum DsaCommand {
    /// Generates domain parameters by FIPS 186-4 A.1.1.2 (a `DSA
    /// PARAMETERS` PEM block, as `openssl dsaparam` writes, followed by the
    /// seed and counter that make them verifiable).
    Params {
        /// Bit length of p (FIPS 186-4's L; openssl's dsa_paramgen_bits):
        /// 2048 or 3072.
        #[arg(long, default_value_t = 2048)]
        bits: u32,
        /// Bit length of q (FIPS 186-4's N; openssl's
        /// dsa_paramgen_q_bits): 224 or 256 with --bits 2048, 256 with
        /// --bits 3072.
        #[arg(long, default_value_t = 256)]
        qbits: u32,
        /// The hash for the seed expansion (at least N bits; default: the
        /// shortest SHA-2 that has them).
        #[arg(long)]
        hash: Option<String>,
        /// Make g by FIPS 186-4 A.2.1 (as OpenSSL does) instead of the
        /// verifiable A.2.3.
        #[arg(long)]
        unverifiable_g: bool,
        /// Write the parameters here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Generates a private key (PKCS#8 PEM, as `openssl gendsa` writes)
    /// after validating the parameters (primality, and the seed when the
    /// file has it).
    Keygen {
        /// The parameters (PEM, from `numcrypt dsa params` or `openssl
        /// dsaparam`).
        #[arg(long)]
        params: PathBuf,
        #[command(flatten)]
        out: KeyOut,
    },
    Pubkey(PubkeyArgs),
    /// Signs a file (DER by default, as `openssl dgst -sign` writes), with
    /// k by RFC 6979.
    Sign {
        #[command(flatten)]
        args: SignatureArgs,
        /// Mix fresh randomness into k (RFC 6979 section 3.6): signatures
        /// differ each time.
        #[arg(long)]
        randomized: bool,
        #[command(flatten)]
        files: SignFiles,
    },
    /// Verifies a signature: exit status 0 and "Verified OK" if it is
    /// valid, 1 and "Verification failure" if not.
    Verify {
        #[command(flatten)]
        args: SignatureArgs,
        #[command(flatten)]
        files: VerifyFiles,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// RFC 3279 Dss-Sig-Value (openssl's).
    Der,
    /// IEEE P1363: r ‖ s, each ⌈N/8⌉ bytes.
    P1363,
}

#[derive(clap::Args)]
pub struct SignatureArgs {
    /// The message hash: sha224, sha256, sha384 or sha512 (verify also
    /// takes sha1, for old signatures).
    #[arg(long, default_value = "sha256")]
    hash: String,
    /// The signature encoding.
    #[arg(long, value_enum, default_value = "der")]
    format: Format,
}

/// Runs a `dsa` subcommand.
pub fn run(command: DsaCommand) -> ExitCode {
    exit(match command {
        DsaCommand::Params {
            bits,
            qbits,
            hash,
            unverifiable_g,
            out,
        } => params(bits, qbits, hash.as_deref(), unverifiable_g, out.as_deref()),
        DsaCommand::Keygen { params, out } => keygen(&params, &out),
        DsaCommand::Pubkey(args) => KEYS.write_public_key(&args),
        DsaCommand::Sign {
            args,
            randomized,
            files,
        } => sign(&args, randomized, &files),
        DsaCommand::Verify { args, files } => {
            return verify(&files.public, &args, &files.input, &files.sig);
        }
    })
}

fn load_params(path: &Path) -> Result<DomainParameters, String> {
    DomainParameters::from_pem(&read_text(path)?).map_err(|e| format!("{}: {e}", path.display()))
}

/// Private keys in PKCS#8 (or OpenSSL's traditional PEM), public keys in
/// SubjectPublicKeyInfo.
const KEYS: KeyFiles<SigningKey, VerifyingKey, numcrypt_dsa::Error> = KeyFiles {
    private_pem: SigningKey::from_pem,
    private_der: SigningKey::from_pkcs8_der,
    public_pem: VerifyingKey::from_public_key_pem,
    public_der: VerifyingKey::from_public_key_der,
    public_half: |key| key.verifying_key().clone(),
    public_to_pem: |key| key.to_public_key_pem(),
    not_text: "not a PEM file",
    algorithms: &["DSA"],
    expected: "a DSA key",
};

fn params(
    bits: u32,
    qbits: u32,
    hash_name: Option<&str>,
    unverifiable_g: bool,
    out: Option<&Path>,
) -> Result<(), String> {
    let sizes = ParameterSizes::new(bits, qbits)
        .map_err(|e| format!("--bits {bits} --qbits {qbits}: {e}"))?;
    let mut options = GenerationOptions::new(sizes);
    if let Some(name) = hash_name {
        options.hash = hash("--hash", name)?;
        if options.hash.output_bits() < qbits {
            return Err(format!(
                "--hash {name}: its {} bits are fewer than --qbits {qbits} (FIPS 186-4 needs at least N)",
                options.hash.output_bits()
            ));
        }
    }
    if unverifiable_g {
        options.generator = GeneratorMethod::Unverifiable;
    }
    let status = Status::new();
    let params = DomainParameters::generate_with(&options, &mut rng()?, &mut |p| {
        status.update(&format!(
            "seeds {}, candidates p {}, primality tests {}",
            p.seeds, p.p_candidates, p.prime_tests
        ));
        ControlFlow::Continue(())
    });
    status.clear();
    let params = params.map_err(|e| format!("--bits {bits} --qbits {qbits}: {e}"))?;
    write_public(out, params.to_pem().as_bytes())
}

fn keygen(params_path: &Path, out: &KeyOut) -> Result<(), String> {
    let target = out.out.open()?;
    let params = load_params(params_path)?;
    params
        .validate()
        .map_err(|e| format!("{}: {e}", params_path.display()))?;
    let key = SigningKey::generate(&params, &mut rng()?)
        .map_err(|e| format!("{}: {e}", params_path.display()))?;
    write_private_key(target, &key, &out.passout)
}

fn sign(args: &SignatureArgs, randomized: bool, files: &SignFiles) -> Result<(), String> {
    let SignFiles { key, input, out } = files;
    let hash = hash("--hash", &args.hash)?;
    let key = KEYS.load_key(key)?;
    let digest = digest_file(hash, input)?;
    let sig = if randomized {
        key.sign_prehash_named_hedged(&mut rng()?, hash, &digest)
    } else {
        key.sign_prehash_named(hash, &digest)
    }
    .map_err(|e| e.to_string())?;
    let bytes = match args.format {
        Format::Der => sig.to_der(),
        Format::P1363 => sig
            .to_p1363(key.params().scalar_len())
            .map_err(|e| e.to_string())?,
    };
    write_public(out.as_deref(), &bytes)
}

fn verify(public: &Path, args: &SignatureArgs, input: &Path, sig: &Path) -> ExitCode {
    verdict((|| {
        let hash = hash("--hash", &args.hash)?;
        let key = KEYS.load_public(public)?;
        let digest = digest_file(hash, input)?;
        let bytes = read(sig)?;
        let parsed = match args.format {
            Format::Der => Signature::from_der(&bytes),
            Format::P1363 => Signature::from_p1363(&bytes, key.params().scalar_len()),
        }
        .map_err(numcrypt_dsa::Error::from);
        // A malformed signature is an invalid one (exit 1), as in openssl.
        Ok(parsed.and_then(|sig| key.verify_prehash(&digest, &sig)))
    })())
}
