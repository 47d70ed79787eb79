//! Keys, signing and verification: round trips at every size and hash,
//! an independent num-bigint check of the verification equation, and the
//! typed errors for bad keys, signatures and encodings.

use crate::common::{big, boxed};
use num_bigint::BigUint;
use numcrypt_common::Error as CommonError;
use numcrypt_dsa::{
    BoxedUint, DomainParameters, Error, ParameterSizes, Signature, SigningKey, VerifyingKey,
};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};
use std::sync::Mutex;

/// The parameters of each size, from a seed of that size: the same every
/// time, so generated once per test binary and shared by the tests.
fn params(sizes: ParameterSizes) -> DomainParameters {
    static MADE: Mutex<Vec<(ParameterSizes, DomainParameters)>> = Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, params)) = made.iter().find(|(s, _)| *s == sizes) {
        return params.clone();
    }
    let mut rng = ChaCha20Rng::seed_from_u64(sizes.l() as u64 + sizes.n() as u64);
    let params = DomainParameters::generate(sizes, &mut rng).expect("parameters");
    made.push((sizes, params.clone()));
    params
}

/// FIPS 186-4 section 4.7, written independently with num-bigint.
fn reference_verify(key: &VerifyingKey, digest: &[u8], sig: &Signature) -> bool {
    let p = big(key.params().p());
    let q = big(key.params().q());
    let g = big(key.params().g());
    let y = big(key.y());
    let (r, s) = (big(sig.r()), big(sig.s()));
    let zero = BigUint::from(0u32);
    if r == zero || s == zero || r >= q || s >= q {
        return false;
    }
    let n = q.bits() as usize;
    let mut z = BigUint::from_bytes_be(digest);
    if digest.len() * 8 > n {
        z >>= digest.len() * 8 - n;
    }
    let w = s.modinv(&q).unwrap();
    let u1 = &z * &w % &q;
    let u2 = &r * &w % &q;
    let v = g.modpow(&u1, &p) * y.modpow(&u2, &p) % &p % &q;
    v == r
}

#[test]
fn sign_and_verify_at_every_size_and_hash() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for sizes in [
        ParameterSizes::L2048N224,
        ParameterSizes::L2048N256,
        ParameterSizes::L3072N256,
    ] {
        let params = params(sizes);
        let key = SigningKey::generate(&params, &mut rng).unwrap();
        let public = key.verifying_key();
        // y = g^x, x in [1, q − 1].
        let (p, q) = (big(params.p()), big(params.q()));
        let x = big(key.x());
        assert!(x > BigUint::from(0u32) && x < q);
        assert_eq!(big(public.y()), big(params.g()).modpow(&x, &p));

        let msg = b"attack at dawn";
        macro_rules! check {
            ($h:ty) => {{
                let sig = key.sign::<$h>(msg).unwrap();
                let digest = <$h>::digest(msg);
                assert!(reference_verify(public, &digest, &sig));
                public.verify::<$h>(msg, &sig).unwrap();
                assert_eq!(key.sign::<$h>(msg).unwrap(), sig, "deterministic");
                public.verify_der::<$h>(msg, &sig.to_der()).unwrap();
                public
                    .verify_p1363::<$h>(msg, &sig.to_p1363(params.scalar_len()).unwrap())
                    .unwrap();
                assert_eq!(
                    public.verify::<$h>(b"attack at dusk", &sig),
                    Err(Error::InvalidSignature)
                );
                // Hedged: random additional data, a different valid signature.
                let hedged = key.sign_hedged::<$h, _>(&mut rng, msg).unwrap();
                assert_ne!(hedged, sig);
                assert!(reference_verify(public, &digest, &hedged));
                public.verify::<$h>(msg, &hedged).unwrap();
            }};
        }
        check!(Sha224);
        check!(Sha256);
        check!(Sha384);
        check!(Sha512);
    }
}

#[test]
fn out_of_range_and_tampered_signatures_are_refused() {
    let params = params(ParameterSizes::L2048N256);
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let key = SigningKey::generate(&params, &mut rng).unwrap();
    let public = key.verifying_key();
    let msg = b"message";
    let sig = key.sign::<Sha256>(msg).unwrap();
    let q = big(params.q());
    let (r, s) = (big(sig.r()), big(sig.s()));
    for (bad_r, bad_s) in [
        (BigUint::from(0u32), s.clone()),
        (r.clone(), BigUint::from(0u32)),
        (&r + &q, s.clone()),
        (r.clone(), &s + &q),
        (q.clone(), s.clone()),
        (r.clone(), q.clone()),
    ] {
        let bad = Signature::from_components(boxed(&bad_r), boxed(&bad_s));
        assert_eq!(
            public.verify::<Sha256>(msg, &bad),
            Err(Error::SignatureOutOfRange)
        );
        assert!(!reference_verify(public, &Sha256::digest(msg), &bad));
    }
    // Flipping any bit of r or s gives an invalid signature.
    for bit in [0u64, 17, 100, 255] {
        let flipped = Signature::from_components(
            boxed(&(&r ^ (BigUint::from(1u32) << bit))),
            sig.s().clone(),
        );
        assert!(public.verify::<Sha256>(msg, &flipped).is_err());
        let flipped = Signature::from_components(
            sig.r().clone(),
            boxed(&(&s ^ (BigUint::from(1u32) << bit))),
        );
        assert!(public.verify::<Sha256>(msg, &flipped).is_err());
    }
    // Another key's signature does not verify.
    let other = SigningKey::generate(&params, &mut rng).unwrap();
    assert_eq!(
        public.verify::<Sha256>(msg, &other.sign::<Sha256>(msg).unwrap()),
        Err(Error::InvalidSignature)
    );
}

#[test]
fn malformed_encodings_are_typed_errors() {
    let params = params(ParameterSizes::L2048N224);
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let key = SigningKey::generate(&params, &mut rng).unwrap();
    let sig = key.sign::<Sha256>(b"m").unwrap();
    let der = sig.to_der();
    assert_eq!(Signature::from_der(&der).unwrap(), sig);
    let mut trailing = der.clone();
    trailing.push(0);
    let mut long_form = vec![0x30, 0x81, der[1]];
    long_form.extend_from_slice(&der[2..]);
    let mut padded = der.clone();
    // r with a superfluous leading zero byte.
    padded[1] += 1;
    padded[3] += 1;
    padded.insert(4, 0);
    for bad in [
        &trailing[..],
        &long_form,
        &padded,
        &der[..der.len() - 1],
        &[],
        &[0x30, 0x00],
    ] {
        assert_eq!(
            Signature::from_der(bad).unwrap_err(),
            CommonError::MalformedSignature
        );
    }
    let p1363 = sig.to_p1363(params.scalar_len()).unwrap();
    assert_eq!(p1363.len(), 56);
    assert_eq!(
        Signature::from_p1363(&p1363, params.scalar_len()).unwrap(),
        sig
    );
    assert_eq!(
        Signature::from_p1363(&p1363[1..], params.scalar_len()).unwrap_err(),
        CommonError::MalformedSignature
    );
    let huge = Signature::from_components(params.p().clone(), BoxedUint::from_u64(1, 1));
    assert_eq!(
        huge.to_p1363(params.scalar_len()).unwrap_err(),
        CommonError::SignatureOutOfRange
    );
}

#[test]
fn bad_keys_are_refused() {
    let params = params(ParameterSizes::L2048N256);
    let p = big(params.p());
    let q = big(params.q());
    for y in [
        BigUint::from(0u32),
        BigUint::from(1u32),
        &p - 1u32,
        p.clone(),
        &p + 2u32,
        BigUint::from(3u32), // order p − 1 or a divisor other than q
    ] {
        assert_eq!(
            VerifyingKey::new(params.clone(), boxed(&y)).unwrap_err(),
            Error::InvalidPublicKey,
            "y = {y}"
        );
    }
    for x in [BigUint::from(0u32), q.clone(), &q + 1u32, p.clone()] {
        assert_eq!(
            SigningKey::from_components(params.clone(), &boxed(&x)).unwrap_err(),
            Error::InvalidPrivateKey
        );
    }
    let x = &q - 1u32;
    let key = SigningKey::from_components(params.clone(), &boxed(&x)).unwrap();
    assert_eq!(big(key.verifying_key().y()), big(params.g()).modpow(&x, &p));
}

#[test]
fn key_encodings_round_trip() {
    let params = params(ParameterSizes::L2048N256);
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let key = SigningKey::generate(&params, &mut rng).unwrap();
    let pem = key.to_pkcs8_pem().unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"));
    let back = SigningKey::from_pem(&pem).unwrap();
    assert_eq!(back, key);
    assert_eq!(
        SigningKey::from_pkcs8_der(&key.to_pkcs8_der().unwrap()).unwrap(),
        key
    );
    let public = key.verifying_key();
    let pub_pem = public.to_public_key_pem().unwrap();
    assert_eq!(
        &VerifyingKey::from_public_key_pem(&pub_pem).unwrap(),
        public
    );
    let der = public.to_public_key_der().unwrap();
    assert_eq!(&VerifyingKey::from_public_key_der(&der).unwrap(), public);

    // Wrong labels, truncation and trailing data.
    assert_eq!(
        VerifyingKey::from_public_key_pem(&pem).unwrap_err(),
        Error::UnsupportedAlgorithm
    );
    assert_eq!(
        SigningKey::from_pem(&pub_pem).unwrap_err(),
        Error::UnsupportedAlgorithm
    );
    assert_eq!(
        VerifyingKey::from_public_key_der(&der[..der.len() - 3]).unwrap_err(),
        Error::Encoding
    );
    let mut long = der.clone();
    long.push(0);
    assert_eq!(
        VerifyingKey::from_public_key_der(&long).unwrap_err(),
        Error::Encoding
    );
    // An OID other than id-dsa: patch the last arc of 1.2.840.10040.4.1.
    let oid_at = der
        .windows(7)
        .position(|w| w == [0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01])
        .unwrap();
    let mut other = der.clone();
    other[oid_at + 6] = 0x03;
    assert_eq!(
        VerifyingKey::from_public_key_der(&other).unwrap_err(),
        Error::UnsupportedAlgorithm
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any message, any key: our signatures pass the independent check, and
    /// a one-byte change of the message fails ours.
    #[test]
    fn signatures_verify_independently(msg in proptest::collection::vec(any::<u8>(), 0..200), seed: u64, flip in 0usize..200) {
        let params = params(ParameterSizes::L2048N224);
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let key = SigningKey::generate(&params, &mut rng).unwrap();
        let sig = key.sign::<Sha256>(&msg).unwrap();
        prop_assert!(reference_verify(key.verifying_key(), &Sha256::digest(&msg), &sig));
        if !msg.is_empty() {
            let mut other = msg.clone();
            other[flip % msg.len()] ^= 1;
            prop_assert!(key.verifying_key().verify::<Sha256>(&other, &sig).is_err());
        }
    }
}
