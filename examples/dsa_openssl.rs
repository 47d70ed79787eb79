//! DSA with a key and a signature made by `openssl` (`examples/data`),
//! through the `signature` and `pkcs8` crates' traits, as code written for
//! RustCrypto's crates would use it.
//!
//! ```text
//! cargo run --release --example dsa_openssl
//! ```

use std::error::Error;
use std::path::{Path, PathBuf};

use numcrypt::dsa::{Signature, SigningKey, VerifyingKey};
use numcrypt::pkcs8::DecodePrivateKey;
use numcrypt::rand::OsRng;
use numcrypt::signature::{Keypair, RandomizedSigner, Signer, Verifier};
use numcrypt::spki::DecodePublicKey;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/data")
        .join(name)
}

fn main() -> Result<(), Box<dyn Error>> {
    let key = <SigningKey as DecodePrivateKey>::read_pkcs8_pem_file(data("dsa-2048-256.pem"))?;
    let public =
        <VerifyingKey as DecodePublicKey>::read_public_key_pem_file(data("dsa-2048-256.pub.pem"))?;
    assert_eq!(Keypair::verifying_key(&key), public);
    let sizes = public.params().sizes();
    println!(
        "read openssl's DSA key, (L, N) = ({}, {})",
        sizes.l(),
        sizes.n()
    );

    // `openssl dgst -sha256 -sign`: the plain Verifier hashes with SHA-256,
    // the hash FIPS 186-4 pairs with N = 256.
    let message = std::fs::read(data("message.txt"))?;
    let theirs = Signature::try_from(std::fs::read(data("message.dsa-sha256.sig"))?.as_slice())?;
    // (`Verifier::verify` by its full name: `VerifyingKey::verify::<D>`
    // takes the hash as a type parameter.)
    Verifier::verify(&public, &message, &theirs)?;
    println!("openssl's signature verifies");

    // RFC 6979: the same message gives the same signature...
    let ours: Signature = key.try_sign(&message)?;
    assert_eq!(key.try_sign(&message)?, ours);
    // ...unless fresh randomness is mixed in (RFC 6979 section 3.6).
    let hedged: Signature = key.try_sign_with_rng(&mut OsRng, &message)?;
    assert_ne!(hedged, ours);
    for sig in [&ours, &hedged] {
        Verifier::verify(&public, &message, sig)?;
    }
    assert!(Verifier::verify(&public, b"another message", &ours).is_err());
    println!("numcrypt's deterministic and hedged signatures verify");
    Ok(())
}
