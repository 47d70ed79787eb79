//! ElGamal hybrid encryption of a file: a fresh key in an RFC 7919 group,
//! the file sealed to its public key (KEM + HKDF-SHA256 +
//! ChaCha20-Poly1305), written out, read back and opened; a ciphertext
//! changed by one bit is refused.
//!
//! ```text
//! cargo run --release --example elgamal_file -- [FILE]
//! ```
//!
//! Without `FILE` it seals its own source.

use std::error::Error;
use std::path::PathBuf;

use numcrypt::elgamal::{NamedGroup, SecretKey};
use numcrypt::rand::{OsRng, UnwrapErr};

fn main() -> Result<(), Box<dyn Error>> {
    let input = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(file!()));
    let plain = std::fs::read(&input)?;
    let mut rng = UnwrapErr(OsRng);
    let key = SecretKey::generate(&NamedGroup::Ffdhe2048.group(), &mut rng)?;
    // The file name as associated data: the ciphertext opens only for it.
    let aad = input
        .file_name()
        .map(|n| n.as_encoded_bytes().to_vec())
        .unwrap_or_default();

    let sealed = key.public_key().seal(&mut rng, &plain, &aad)?;
    let out = std::env::temp_dir().join(format!("numcrypt-elgamal-{}.sealed", std::process::id()));
    std::fs::write(&out, &sealed)?;
    println!(
        "sealed {} ({} bytes) into {} ({} bytes)",
        input.display(),
        plain.len(),
        out.display(),
        sealed.len()
    );

    let opened = key.open(&std::fs::read(&out)?, &aad)?;
    assert_eq!(opened[..], plain[..]);
    println!("opened: {} bytes, equal to the input", opened.len());

    let mut tampered = sealed.clone();
    let last = tampered.len() - 1;
    tampered[last] ^= 1;
    let refused = key
        .open(&tampered, &aad)
        .expect_err("a changed ciphertext must not open");
    println!("one bit changed: refused ({refused})");
    assert!(key.open(&sealed, b"another name").is_err());
    std::fs::remove_file(&out)?;
    Ok(())
}
