//! The job of `newcomer_numcrypt`, written against RustCrypto's `rsa` 0.9
//! as its documentation shows: the comparison for program length, and a
//! second implementation whose output CI compares.

use rustcrypto_rsa as rsa; // only this workspace's name for it: not counted

use rsa::pkcs1v15::{Signature, SigningKey};
use rsa::pkcs8::DecodePrivateKey;
use rsa::rand_core::OsRng;
use rsa::sha2::Sha256;
use rsa::signature::{Keypair, SignatureEncoding, Signer, Verifier};
use rsa::{Oaep, RsaPrivateKey};
use std::fs::{read, read_to_string};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/");
    let key = RsaPrivateKey::from_pkcs8_pem(&read_to_string(format!("{dir}rsa-2048.pem"))?)?;
    let message = read(format!("{dir}message.txt"))?;

    let signing_key = SigningKey::<Sha256>::new(key.clone());
    let signature = signing_key.sign(&message);
    signing_key.verifying_key().verify(&message, &signature)?;
    let theirs = read(format!("{dir}message.sha256.sig"))?;
    signing_key
        .verifying_key()
        .verify(&message, &Signature::try_from(theirs.as_slice())?)?;

    let ciphertext = read(format!("{dir}secret.oaep-sha256"))?;
    let secret = key.decrypt_blinded(&mut OsRng, Oaep::new::<Sha256>(), &ciphertext)?;
    println!("signature {}", hex::encode(signature.to_bytes()));
    println!("secret {}", String::from_utf8_lossy(&secret));
    Ok(())
}
