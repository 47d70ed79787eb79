//! A newcomer's first program, written against numcrypt: read openssl's
//! RSA key, sign and verify a message (PKCS#1 v1.5, SHA-256), check
//! openssl's signature of it, open openssl's OAEP ciphertext.
//! `newcomer_rustcrypto` does the same job with RustCrypto's `rsa` 0.9; CI
//! checks that both print the same and that this one is no longer.

use numcrypt::rand::OsRng;
use numcrypt::rsa::{HashAlg, RsaPrivateKey, pkcs1v15::SigningKey};
use numcrypt::signature::{Keypair, Signer, Verifier};
use std::fs::{read, read_to_string};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/");
    let key = RsaPrivateKey::from_pem(&read_to_string(format!("{dir}rsa-2048.pem"))?)?;
    let message = read(format!("{dir}message.txt"))?;

    let signing_key = SigningKey::try_new(key.clone(), HashAlg::Sha256)?;
    let signature = signing_key.sign(&message);
    signing_key.verifying_key().verify(&message, &signature)?;
    let theirs = read(format!("{dir}message.sha256.sig"))?;
    signing_key
        .verifying_key()
        .verify(&message, &theirs.as_slice().try_into()?)?;

    let ciphertext = read(format!("{dir}secret.oaep-sha256"))?;
    let secret = key.decrypt_oaep(&mut OsRng, HashAlg::Sha256, b"", &ciphertext)?;
    println!("signature {}", hex::encode(signature.as_bytes()));
    println!("secret {}", String::from_utf8_lossy(&secret));
    Ok(())
}
