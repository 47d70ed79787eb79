//! `numcrypt elgamal …`: keys (X9.42 Diffie–Hellman PEM, which `openssl
//! pkey` reads), hybrid encryption (ElGamal KEM + HKDF-SHA256 +
//! ChaCha20-Poly1305) and ElGamal signatures.
//!
//! Exit status: 0 on success, 1 when `verify` finds the signature invalid,
//! 2 on a usage or input error (one line on standard error).

use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use numcrypt_elgamal::sha2::{Sha224, Sha256, Sha384, Sha512};
use numcrypt_elgamal::stream::{CHUNK_LEN, MAGIC, TAG_LEN};
use numcrypt_elgamal::{Group, NamedGroup, PublicKey, SecretKey, Signature};
use numcrypt_rsa::HashAlg;
use zeroize::Zeroizing;

use crate::files::{DecryptFiles, EncryptFiles, KeyOut, SignFiles, VerifyFiles};
use crate::files::{
    KeyFiles, MAX_READ, PubkeyArgs, Status, digest_file, exit, hash, open_input, read, read_up_to,
    rng, verdict, write_private_key,
};
use crate::output::{Output, write_all, write_public};

#[derive(Subcommand)]
pub enum ElgamalCommand {
    /// Generates a private key (PKCS#8 PEM) in a named group, or in a new
    /// safe-prime group of --bits bits (slow: a safe prime search).
    Keygen {
        /// The group: ffdhe2048 … ffdhe8192 (RFC 7919), modp2048 …
        /// modp8192 (RFC 3526), or pm2048 (2^2048 − 1942289).
        #[arg(long, default_value = "ffdhe2048", conflicts_with = "bits")]
        group: String,
        /// Make a new group with a safe prime of this many bits instead.
        #[arg(long)]
        bits: Option<u32>,
        #[command(flatten)]
        out: KeyOut,
    },
    Pubkey(PubkeyArgs),
    /// Encrypts a file of any length in bounded memory: a fresh ElGamal key
    /// agreement, then HKDF-SHA256 and ChaCha20-Poly1305 over 64 KiB
    /// chunks (the STREAM construction, as in age: reordered, dropped or
    /// truncated chunks are detected).
    Encrypt {
        /// Associated data, authenticated but not encrypted (as text).
        #[arg(long, default_value = "")]
        aad: String,
        #[command(flatten)]
        files: EncryptFiles,
    },
    /// Decrypts a file made by `encrypt`, chunk by chunk; fails if anything
    /// was changed, moved or cut off (and then writes no --out file).
    Decrypt {
        /// The associated data given to `encrypt`.
        #[arg(long, default_value = "")]
        aad: String,
        #[command(flatten)]
        files: DecryptFiles,
    },
    /// Signs a file with an ElGamal signature (DER: SEQUENCE { r, s }).
    /// Prefer `numcrypt dsa` for anything new.
    Sign {
        /// The message hash: sha224, sha256, sha384 or sha512.
        #[arg(long, default_value = "sha256")]
        hash: String,
        #[command(flatten)]
        files: SignFiles,
    },
    /// Verifies a signature: exit status 0 and "Verified OK" if it is
    /// valid, 1 and "Verification failure" if not.
    Verify {
        /// The message hash: sha224, sha256, sha384 or sha512.
        #[arg(long, default_value = "sha256")]
        hash: String,
        #[command(flatten)]
        files: VerifyFiles,
    },
}

/// Runs an `elgamal` subcommand.
pub fn run(command: ElgamalCommand) -> ExitCode {
    exit(match command {
        ElgamalCommand::Keygen { group, bits, out } => keygen(&group, bits, &out),
        ElgamalCommand::Pubkey(args) => KEYS.write_public_key(&args),
        ElgamalCommand::Encrypt { aad, files } => encrypt(&aad, &files),
        ElgamalCommand::Decrypt { aad, files } => decrypt(&aad, &files),
        ElgamalCommand::Sign { hash, files } => sign(&hash, &files),
        ElgamalCommand::Verify { hash, files } => {
            return verify(&files.public, &hash, &files.input, &files.sig);
        }
    })
}

/// Private keys in PKCS#8, public keys in SubjectPublicKeyInfo.
const KEYS: KeyFiles<SecretKey, PublicKey, numcrypt_elgamal::Error> = KeyFiles {
    private_pem: SecretKey::from_pkcs8_pem,
    private_der: SecretKey::from_pkcs8_der,
    public_pem: PublicKey::from_public_key_pem,
    public_der: PublicKey::from_public_key_der,
    public_half: |key| key.public_key().clone(),
    public_to_pem: |key| key.to_public_key_pem(),
    not_text: "not a PEM file",
    algorithms: &["DH"],
    expected: "an ElGamal (DH group) key",
};

fn keygen(group_name: &str, bits: Option<u32>, out: &KeyOut) -> Result<(), String> {
    let target = out.out.open()?;
    let mut rng = rng()?;
    let group = match bits {
        Some(bits) => {
            let status = Status::new();
            let group = Group::generate_with_progress(bits, &mut rng, &mut |p| {
                status.update(&format!(
                    "safe prime: {} candidates, {} Miller-Rabin rounds",
                    p.candidates, p.tests
                ));
                ControlFlow::Continue(())
            });
            status.clear();
            group.map_err(|e| format!("--bits {bits}: {e}"))?
        }
        None => NamedGroup::from_name(group_name)
            .map_err(|e| format!("--group {group_name:?}: {e}"))?
            .group(),
    };
    let key = SecretKey::generate(&group, &mut rng).map_err(|e| e.to_string())?;
    write_private_key(target, &key, &out.passout)
}

fn encrypt(aad: &str, files: &EncryptFiles) -> Result<(), String> {
    let EncryptFiles { public, input, out } = files;
    let key = KEYS.load_public(public)?;
    let mut reader = open_input(input)?;
    let (header, mut sealer) = key
        .seal_stream(&mut rng()?, aad.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut writer = Output::public(out.as_deref())?;
    writer.write_all(&header).map_err(|e| writer.error(&e))?;
    // One chunk ahead, to know which is the last.
    let mut chunk = read_up_to(&mut reader, CHUNK_LEN, input)?;
    loop {
        let next = if chunk.len() == CHUNK_LEN {
            read_up_to(&mut reader, CHUNK_LEN, input)?
        } else {
            Zeroizing::new(Vec::new())
        };
        let last = next.is_empty();
        let sealed = sealer.seal_chunk(&chunk, last).map_err(|e| e.to_string())?;
        writer.write_all(&sealed).map_err(|e| writer.error(&e))?;
        if last {
            return writer.commit();
        }
        chunk = next;
    }
}

fn decrypt(aad: &str, files: &DecryptFiles) -> Result<(), String> {
    let DecryptFiles { key, input, out } = files;
    let mut writer = out.open()?;
    let key = KEYS.load_key(key)?;
    let mut reader = open_input(input)?;
    let in_error = |e: numcrypt_elgamal::Error| format!("{}: {e}", input.display());
    let mut header = read_up_to(&mut reader, key.stream_header_len(), input)?;
    if !header.starts_with(MAGIC) {
        // The one-piece format earlier versions wrote (`PublicKey::seal`),
        // read whole, so within the limit of files read whole.
        let rest = read_up_to(&mut reader, MAX_READ + 1 - header.len(), input)?;
        header.extend_from_slice(&rest);
        if header.len() > MAX_READ {
            return Err(format!(
                "{}: not a stream, and larger than {} MiB for the one-piece format",
                input.display(),
                MAX_READ >> 20
            ));
        }
        let plain = key.open(&header, aad.as_bytes()).map_err(in_error)?;
        return write_all(writer, &plain);
    }
    let mut opener = key.open_stream(&header, aad.as_bytes()).map_err(in_error)?;
    let full = CHUNK_LEN + TAG_LEN;
    let result = (|| {
        let mut chunk = read_up_to(&mut reader, full, input)?;
        loop {
            let next = if chunk.len() == full {
                read_up_to(&mut reader, full, input)?
            } else {
                Zeroizing::new(Vec::new())
            };
            let last = next.is_empty();
            let plain = opener.open_chunk(&chunk, last).map_err(in_error)?;
            writer.write_all(&plain).map_err(|e| writer.error(&e))?;
            if last {
                return Ok(());
            }
            chunk = next;
        }
    })();
    match result {
        Ok(()) => writer.commit(),
        // Dropping the writer removes its temporary file: nothing
        // unauthenticated stays behind. Standard output has had the chunks
        // that were authentic so far.
        Err(message) if out.out.is_none() => Err(format!(
            "{message} (the output so far is incomplete: discard it)"
        )),
        Err(message) => Err(message),
    }
}

fn sign(hash_name: &str, files: &SignFiles) -> Result<(), String> {
    let SignFiles { key, input, out } = files;
    let hash = hash("--hash", hash_name)?;
    let key = KEYS.load_key(key)?;
    let digest = digest_file(hash, input)?;
    let sig = match hash {
        HashAlg::Sha224 => key.sign_prehash::<Sha224>(&digest),
        HashAlg::Sha256 => key.sign_prehash::<Sha256>(&digest),
        HashAlg::Sha384 => key.sign_prehash::<Sha384>(&digest),
        HashAlg::Sha512 => key.sign_prehash::<Sha512>(&digest),
        _ => {
            return Err(format!(
                "--hash {hash}: signing takes sha224, sha256, sha384 or sha512"
            ));
        }
    }
    .map_err(|e| e.to_string())?;
    write_public(out.as_deref(), &sig.to_der())
}

fn verify(public: &Path, hash_name: &str, input: &Path, sig: &Path) -> ExitCode {
    verdict((|| {
        let hash = hash("--hash", hash_name)?;
        let key = KEYS.load_public(public)?;
        let digest = digest_file(hash, input)?;
        let bytes = read(sig)?;
        // A malformed signature is an invalid one (exit 1), as in openssl.
        Ok(Signature::from_der(&bytes)
            .map_err(numcrypt_elgamal::Error::from)
            .and_then(|sig| key.verify_prehash(&digest, &sig)))
    })())
}
