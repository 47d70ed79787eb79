//! A tour of numcrypt, one crate at a time: the backend this CPU gets,
//! constant-time modular exponentiation, a prime found with progress, prime
//! field arithmetic, RSA, DSA and ElGamal. Every key and signature comes
//! from the operating system's generator (`numcrypt::rand::OsRng`): RSA
//! takes it as it is (a failure of it is an error), the others as
//! `UnwrapErr(OsRng)` (a failure panics).
//!
//! ```text
//! cargo run --release --example tour
//! ```

use std::error::Error;
use std::io::Write;
use std::ops::ControlFlow;

use numcrypt::dsa::{DomainParameters, ParameterSizes, SigningKey};
use numcrypt::elgamal::{NamedGroup, SecretKey};
use numcrypt::field::Fp25519;
use numcrypt::limbs::{MontyParams, U2048, Unsigned, backend};
use numcrypt::prime::{PrimeGen, PrimeKind, is_prime};
use numcrypt::rand::{OsRng, UnwrapErr};
use numcrypt::rsa::{HashAlg, KeyGen, RsaPublicKey, pss::SaltLength};
use numcrypt::signature::{Signer, Verifier};

fn main() -> Result<(), Box<dyn Error>> {
    let mut rng = UnwrapErr(OsRng);

    // numcrypt-limbs: the kernels this CPU gets (NUMCRYPT_DISABLE turns
    // some off), and a constant-time exponentiation.
    println!("backend: {}", backend::selection());
    let m = U2048::MAX.shr_vartime(1); // 2^2047 − 1
    let params = MontyParams::new(m)?;
    let two = params.to_monty(&U2048::from_u64(2));
    let x = params.from_monty(&params.pow(&two, &U2048::from_u64(2048)));
    assert_eq!(x, U2048::from_u64(2)); // 2^2047 ≡ 1
    println!("limbs: 2^2048 mod (2^2047 − 1) = 2, in constant time");

    // numcrypt-prime: a 1024-bit prime, with a dot per progress report.
    print!("prime: searching");
    let p: numcrypt::limbs::U1024 = PrimeGen::new(PrimeKind::Prime, 1024)
        .progress(&mut |_| {
            print!(".");
            let _ = std::io::stdout().flush();
            ControlFlow::Continue(())
        })
        .generate(&mut rng)?;
    assert!(is_prime(&p));
    println!(" found one with {} bits", p.bits_vartime());

    // numcrypt-field: GF(2^255 − 19), every operation constant time.
    let a = Fp25519::from_u64(7);
    assert_eq!(a * a.invert().expect("7 is invertible"), Fp25519::ONE);
    let root = Fp25519::from_u64(4).sqrt().expect("4 is a square");
    assert_eq!(root.square(), Fp25519::from_u64(4));
    println!("field: 7 · 7⁻¹ = 1 and √4² = 4 in GF(2^255 − 19)");

    // numcrypt-rsa: a key, PSS and PKCS#1 v1.5 signatures, OAEP.
    let key = KeyGen::new(2048).generate(&mut OsRng)?;
    let public: &RsaPublicKey = key.public_key();
    let sig = key.sign_pss(&mut OsRng, HashAlg::Sha256, b"tour", SaltLength::Digest)?;
    public.verify_pss(HashAlg::Sha256, b"tour", &sig, SaltLength::Digest)?;
    let ct = public.encrypt_oaep(&mut OsRng, HashAlg::Sha256, b"", b"a secret")?;
    assert_eq!(
        &key.decrypt_oaep(&mut OsRng, HashAlg::Sha256, b"", &ct)?[..],
        b"a secret"
    );
    println!(
        "rsa: a {}-bit key signed (PSS) and decrypted (OAEP)",
        public.bits()
    );
    println!("{}", public.to_public_key_pem()?.trim_end());

    // numcrypt-dsa: FIPS 186-4 parameters, RFC 6979 signatures through the
    // `signature` traits.
    let params = DomainParameters::generate(ParameterSizes::L2048N256, &mut rng)?;
    let dsa = SigningKey::generate(&params, &mut rng)?;
    let dsa_sig = dsa.try_sign(b"tour")?;
    Verifier::verify(dsa.verifying_key(), b"tour", &dsa_sig)?;
    println!("dsa: (2048, 256) parameters generated, a signature verified");

    // numcrypt-elgamal: hybrid encryption in an RFC 7919 group.
    let eg = SecretKey::generate(&NamedGroup::Ffdhe2048.group(), &mut rng)?;
    let sealed = eg.public_key().seal(&mut rng, b"any length at all", b"")?;
    assert_eq!(&eg.open(&sealed, b"")?[..], b"any length at all");
    println!(
        "elgamal: sealed and opened {} bytes in ffdhe2048",
        sealed.len()
    );
    Ok(())
}
