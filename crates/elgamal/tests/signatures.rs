//! ElGamal signatures: round trips, an independent num-bigint check of the
//! verification equation, and the forgeries the range checks exist for.

use crate::common::{big, boxed, key};
use num_bigint::BigUint;
use num_integer::Integer;
use numcrypt_elgamal::{Error, NamedGroup, SecretKey, Signature};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::{Digest, Sha256, Sha384, Sha512};

/// `g^h ≡ y^r r^s (mod p)`, nothing else checked.
fn equation_holds(key: &SecretKey, h: &BigUint, r: &BigUint, s: &BigUint) -> bool {
    let g = key.group();
    let (p, base, y) = (big(g.p()), big(g.g()), big(key.public_key().y()));
    base.modpow(h, &p) == y.modpow(r, &p) * r.modpow(s, &p) % &p
}

#[test]
fn signatures_verify_here_and_by_the_equation() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for group in [
        NamedGroup::Ffdhe2048,
        NamedGroup::Modp3072,
        NamedGroup::PseudoMersenne2048,
    ] {
        let key = key(group, 2);
        let public = key.public_key();
        let p = big(key.group().p());
        let msg = b"sign me";
        macro_rules! check {
            ($h:ty) => {{
                let sig = key.sign::<$h>(msg).unwrap();
                let h = BigUint::from_bytes_be(&<$h>::digest(msg));
                let (r, s) = (big(sig.r()), big(sig.s()));
                assert!(r >= BigUint::from(1u32) && r < p);
                assert!(s < &p - 1u32);
                // k was coprime to p − 1, so s is well defined; the
                // equation holds independently of our verifier.
                assert!(equation_holds(&key, &h, &r, &s), "{group}");
                public.verify::<$h>(msg, &sig).unwrap();
                assert_eq!(key.sign::<$h>(msg).unwrap(), sig, "deterministic");
                let hedged = key.sign_hedged::<$h, _>(&mut rng, msg).unwrap();
                assert_ne!(hedged, sig);
                public.verify::<$h>(msg, &hedged).unwrap();
                assert_eq!(
                    public.verify::<$h>(b"sign you", &sig),
                    Err(Error::InvalidSignature)
                );
                let der = sig.to_der();
                assert_eq!(Signature::from_der(&der).unwrap(), sig);
                public.verify_der::<$h>(msg, &der).unwrap();
            }};
        }
        check!(Sha256);
        check!(Sha384);
        check!(Sha512);
    }
}

/// Batch signing: every signature satisfies the equation (num-bigint) and
/// equals single signing's, at its message's place, for batches of 1 to
/// 20 (several passes of a batch kernel, partial ones last), at a size
/// the batch kernels take (2048 bits) and one they do not (3072).
#[test]
fn batches_sign_as_single_signing_does() {
    for (group, most) in [(NamedGroup::Ffdhe2048, 20), (NamedGroup::Modp3072, 3)] {
        let key = key(group, 4);
        let messages: Vec<Vec<u8>> = (0..most)
            .map(|i| format!("batch {i}").into_bytes())
            .collect();
        for count in [1, 2, 3, 7, 8, 9, 16, 20]
            .into_iter()
            .filter(|&c| c <= most)
        {
            let batch: Vec<&[u8]> = messages[..count].iter().map(|m| m.as_slice()).collect();
            let signatures = key.sign_batch::<Sha256>(&batch).unwrap();
            assert_eq!(signatures.len(), count);
            for (i, (msg, sig)) in batch.iter().zip(&signatures).enumerate() {
                let h = BigUint::from_bytes_be(&Sha256::digest(msg));
                let what = format!("{group}, message {i} of {count}");
                assert!(
                    equation_holds(&key, &h, &big(sig.r()), &big(sig.s())),
                    "{what}"
                );
                assert_eq!(sig, &key.sign::<Sha256>(msg).unwrap(), "{what}");
            }
        }
        assert_eq!(key.sign_batch::<Sha256>(&[]).unwrap(), Vec::new());
    }
}

#[test]
fn range_checks_stop_bleichenbachers_forgeries() {
    let key = key(NamedGroup::Ffdhe2048, 3);
    let public = key.public_key();
    let group = key.group();
    let (p, q) = (big(group.p()), big(group.q()));
    let p1 = &p - 1u32;

    // 1. Without the bound r < p, one signature gives a signature on any
    // message: u = h'/h mod (p − 1), s' = s u, r' ≡ r u (mod p − 1) and
    // r' ≡ r (mod p).
    // h must be invertible modulo p − 1 = 2q: take a message whose hash is odd.
    let msg: Vec<u8> = (0u8..)
        .map(|i| vec![b'm', i])
        .find(|m| BigUint::from_bytes_be(&Sha256::digest(m)).is_odd())
        .unwrap();
    let msg = msg.as_slice();
    let target = b"anything at all".as_slice();
    let h = BigUint::from_bytes_be(&Sha256::digest(msg));
    let h2 = BigUint::from_bytes_be(&Sha256::digest(target));
    let sig = key.sign::<Sha256>(msg).unwrap();
    let (r, s) = (big(sig.r()), big(sig.s()));
    let u = &h2 * h.modinv(&p1).unwrap() % &p1;
    let s2 = &s * &u % &p1;
    let ru = &r * &u % &p1;
    // r' = r + p·t with r + p t ≡ ru (mod p − 1): since p ≡ 1 (mod p − 1),
    // t ≡ ru − r (mod p − 1).
    let t = (&ru + &p1 - (&r % &p1)) % &p1;
    let r2 = &r + &p * &t;
    assert!(r2 >= p);
    assert!(equation_holds(&key, &h2, &r2, &s2), "the forgery is real");
    assert_eq!(
        public.verify::<Sha256>(target, &Signature::from_components(boxed(&r2), boxed(&s2))),
        Err(Error::SignatureOutOfRange)
    );

    // 2. With g = 2, log_2(q) is known: q² = 1/4, so q^(q−1) = 2, and
    // (r, s) = (q, (q − 1) h) verifies for every h because y^q = 1.
    assert_eq!(q.modpow(&(&q - 1u32), &p), BigUint::from(2u32));
    let s_forged = (&q - 1u32) * &h2 % &p1;
    assert!(
        equation_holds(&key, &h2, &q, &s_forged),
        "the trapdoor is real"
    );
    assert_eq!(
        public.verify::<Sha256>(
            target,
            &Signature::from_components(boxed(&q), boxed(&s_forged))
        ),
        Err(Error::SignatureOutOfRange)
    );

    // 3. The plain bounds: r ∈ [1, p − 1], s ∈ [0, p − 2].
    for (r, s) in [
        (BigUint::from(0u32), s.clone()),
        (p.clone(), s.clone()),
        (r.clone(), p1.clone()),
        (r.clone(), p.clone()),
        (p1.clone(), s.clone()), // ≡ 0 (mod q) as well
    ] {
        assert_eq!(
            public.verify::<Sha256>(msg, &Signature::from_components(boxed(&r), boxed(&s))),
            Err(Error::SignatureOutOfRange)
        );
    }
    // s = 0 is in range (and fails the equation).
    assert_eq!(
        public.verify::<Sha256>(
            msg,
            &Signature::from_components(sig.r().clone(), boxed(&BigUint::from(0u32)))
        ),
        Err(Error::InvalidSignature)
    );
}

#[test]
fn malformed_signatures_are_typed_errors() {
    let key = key(NamedGroup::Ffdhe2048, 4);
    let der = key.sign::<Sha256>(b"m").unwrap().to_der();
    let mut trailing = der.clone();
    trailing.push(0);
    for bad in [&trailing[..], &der[..der.len() - 1], &[], &[0x30, 0x00]] {
        assert_eq!(
            Signature::from_der(bad).map_err(Error::from).unwrap_err(),
            Error::MalformedSignature
        );
    }
    assert_eq!(
        key.public_key().verify_der::<Sha256>(b"m", &trailing),
        Err(Error::MalformedSignature)
    );
}

/// The `signature` crate's traits: SHA-256 for the plain ones, any hash
/// for the digest ones; every signature satisfies the equation.
#[test]
fn signature_traits() {
    use signature::{
        DigestSigner, DigestVerifier, Keypair, RandomizedDigestSigner, RandomizedSigner, Signer,
        Verifier,
    };
    fn zeroized_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    zeroized_on_drop::<SecretKey>();

    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let key = key(NamedGroup::Ffdhe2048, 4);
    let public = Keypair::verifying_key(&key);
    assert_eq!(&public, key.public_key());
    let msg = b"through the traits";
    let hash = |digest: &[u8]| BigUint::from_bytes_be(digest);
    let holds =
        |sig: &Signature, h: &BigUint| equation_holds(&key, h, &big(sig.r()), &big(sig.s()));

    let sig: Signature = Signer::sign(&key, msg);
    assert!(holds(&sig, &hash(&Sha256::digest(msg))));
    assert_eq!(sig, key.sign::<Sha256>(msg).unwrap());
    Verifier::verify(&public, msg, &sig).unwrap();
    assert!(Verifier::verify(&public, b"other", &sig).is_err());

    let hedged: Signature = RandomizedSigner::sign_with_rng(&key, &mut rng, msg);
    assert_ne!(hedged, sig);
    assert!(holds(&hedged, &hash(&Sha256::digest(msg))));

    let write = |d: &mut Sha512| Digest::update(d, msg);
    let sig512: Signature = key.sign_digest(write);
    assert!(holds(&sig512, &hash(&Sha512::digest(msg))));
    let hedged512: Signature = key.sign_digest_with_rng(&mut rng, write);
    assert!(holds(&hedged512, &hash(&Sha512::digest(msg))));
    for s in [&sig512, &hedged512] {
        public
            .verify_digest(
                |d: &mut Sha512| {
                    Digest::update(d, msg);
                    Ok(())
                },
                s,
            )
            .unwrap();
        assert!(Verifier::verify(&public, msg, s).is_err(), "not SHA-256");
    }
    // The DER encoding travels through SignatureEncoding.
    let bytes: Box<[u8]> = sig.clone().into();
    assert_eq!(Signature::try_from(&bytes[..]).unwrap(), sig);
}
