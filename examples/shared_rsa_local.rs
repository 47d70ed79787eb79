//! A shared RSA key among three parties on this machine (threads talking
//! over in-process channels; `TlsTransport` and `numcrypt shared-rsa` for
//! separate machines): no party ever holds `p`, `q` or `d`, yet any two of
//! them make an ordinary RSA signature that any verifier accepts.
//!
//! ```text
//! cargo run --release --features shared-rsa --example shared_rsa_local -- [BITS]
//! ```

use std::error::Error;

use numcrypt::rand::{OsRng, UnwrapErr};
use numcrypt::shared_rsa::{
    HashAlg, KeyGenConfig, MemoryNetwork, combine, encode_pkcs1v15, generate_key,
};

const PARTIES: usize = 3;

fn main() -> Result<(), Box<dyn Error>> {
    let bits = match std::env::args().nth(1) {
        Some(b) => b.parse()?,
        None => 2048,
    };
    let config = KeyGenConfig::new(bits);
    let started = std::time::Instant::now();
    let outputs = std::thread::scope(|s| {
        let parties: Vec<_> = MemoryNetwork::new(PARTIES)
            .into_iter()
            .map(|transport| {
                let config = &config;
                // Each party draws from its own operating-system generator.
                s.spawn(move || generate_key(&transport, config, &mut UnwrapErr(OsRng)))
            })
            .collect();
        parties
            .into_iter()
            .map(|p| p.join().expect("a party panicked"))
            .collect::<Result<Vec<_>, _>>()
    })?;
    println!(
        "{PARTIES} parties made a {bits}-bit key in {:.2?} ({} candidate moduli tried)",
        started.elapsed(),
        outputs[0].stats.candidates
    );

    let public = outputs[0].share.public_key();
    let message = b"signed by two of three, known to none";
    let em = encode_pkcs1v15(public, HashAlg::Sha256, message)?;
    // Any threshold + 1 parties sign: here parties 1 and 3, each with a
    // proof that it used its share.
    let partials = [&outputs[0], &outputs[2]]
        .iter()
        .map(|out| out.share.sign_partial(&mut UnwrapErr(OsRng), &em))
        .collect::<Result<Vec<_>, _>>()?;
    let signature = combine(public, &em, &partials)?;
    // An ordinary PKCS#1 v1.5 signature under an ordinary public key.
    let rsa = public.rsa_public_key()?;
    rsa.verify_pkcs1v15(HashAlg::Sha256, message, &signature)?;
    println!("the combined signature verifies under the shared public key:");
    print!("{}", rsa.to_public_key_pem()?);
    Ok(())
}
