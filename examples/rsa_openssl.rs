//! RSA with a key, a signature and a ciphertext made by `openssl`
//! (`examples/data`, see its README), through numcrypt's own API and the
//! `signature` crate's traits; what numcrypt signs is checked by `openssl`
//! when it is installed.
//!
//! ```text
//! cargo run --release --example rsa_openssl
//! ```

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

use numcrypt::rand::OsRng;
use numcrypt::rsa::{HashAlg, RsaPrivateKey, RsaPublicKey, pkcs1v15, pss};
use numcrypt::signature::{Keypair, RandomizedSigner, Signer, Verifier};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/data")
        .join(name)
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut rng = OsRng; // a failure of it is an error, not a panic
    let key = RsaPrivateKey::from_pem(&std::fs::read_to_string(data("rsa-2048.pem"))?)?;
    let public = RsaPublicKey::from_pem(&std::fs::read_to_string(data("rsa-2048.pub.pem"))?)?;
    assert_eq!(key.public_key(), &public);
    println!("read openssl's {}-bit key", public.bits());

    // `openssl dgst -sha256 -sign`: PKCS#1 v1.5, which is deterministic,
    // so numcrypt's signature is the same bytes.
    let message = std::fs::read(data("message.txt"))?;
    let theirs = std::fs::read(data("message.sha256.sig"))?;
    public.verify_pkcs1v15(HashAlg::Sha256, &message, &theirs)?;
    let signer = pkcs1v15::SigningKey::try_new(key.clone(), HashAlg::Sha256)?;
    let ours = signer.sign(&message); // blinding from the operating system
    assert_eq!(ours.as_bytes(), &theirs[..]);
    signer.verifying_key().verify(&message, &ours)?;
    println!("openssl's PKCS#1 v1.5 signature verifies, and numcrypt's is byte-equal");

    // PSS is randomized: openssl checks it instead.
    let pss_signer = pss::SigningKey::try_new(key.clone(), HashAlg::Sha256)?;
    let pss_sig = pss_signer.try_sign_with_rng(&mut rng, &message)?;
    pss_signer.verifying_key().verify(&message, &pss_sig)?;
    let dir = std::env::temp_dir().join(format!("numcrypt-rsa-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let sig_path = dir.join("message.pss.sig");
    std::fs::write(&sig_path, pss_sig.as_bytes())?;
    openssl_checks(&[
        "dgst",
        "-sha256",
        "-sigopt",
        "rsa_padding_mode:pss",
        "-verify",
        &data("rsa-2048.pub.pem").to_string_lossy(),
        "-signature",
        &sig_path.to_string_lossy(),
        &data("message.txt").to_string_lossy(),
    ]);

    // `openssl pkeyutl -encrypt` with OAEP and SHA-256, opened here; and a
    // ciphertext made here, opened by openssl.
    let secret = key.decrypt_oaep(
        &mut rng,
        HashAlg::Sha256,
        b"",
        &std::fs::read(data("secret.oaep-sha256"))?,
    )?;
    println!(
        "openssl's OAEP ciphertext: {:?}",
        String::from_utf8_lossy(&secret)
    );
    let sealed = public.encrypt_oaep(&mut rng, HashAlg::Sha256, b"", b"sealed by numcrypt")?;
    let sealed_path = dir.join("secret.oaep");
    std::fs::write(&sealed_path, sealed)?;
    openssl_checks(&[
        "pkeyutl",
        "-decrypt",
        "-inkey",
        &data("rsa-2048.pem").to_string_lossy(),
        "-pkeyopt",
        "rsa_padding_mode:oaep",
        "-pkeyopt",
        "rsa_oaep_md:sha256",
        "-pkeyopt",
        "rsa_mgf1_md:sha256",
        "-in",
        &sealed_path.to_string_lossy(),
    ]);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Runs `openssl args` and insists that it succeeds; says so and carries
/// on when `openssl` is not installed.
fn openssl_checks(args: &[&str]) {
    match Command::new("openssl").args(args).output() {
        Ok(out) => {
            assert!(out.status.success(), "openssl {}: {:?}", args[0], out);
            println!(
                "openssl {} agrees: {}",
                args[0],
                String::from_utf8_lossy(&out.stdout).trim()
            );
        }
        Err(_) => println!(
            "(openssl is not installed: `openssl {}` skipped)",
            args.join(" ")
        ),
    }
}
