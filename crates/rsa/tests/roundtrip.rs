//! Round trips and rejections at several key sizes, checked where it
//! matters against num-bigint (the raw RSA operation) rather than the
//! crate's own output; typed errors for bad input; key formats; `Debug`.

use std::sync::OnceLock;

use num_bigint::BigUint;
use numcrypt_rsa::pss::SaltLength;
use numcrypt_rsa::{BoxedUint, Error, HashAlg, KeyGen, RsaPrivateKey, RsaPublicKey, pkcs1v15, pss};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use signature::{Keypair, RandomizedSigner, Signer, Verifier};

const HASHES: [HashAlg; 4] = [
    HashAlg::Sha224,
    HashAlg::Sha256,
    HashAlg::Sha384,
    HashAlg::Sha512,
];

fn big(x: &BoxedUint) -> BigUint {
    BigUint::from_bytes_be(&x.to_be_bytes())
}

fn boxed(x: &BigUint) -> BoxedUint {
    BoxedUint::from_be_slice_auto(&x.to_bytes_be())
}

/// Keys shared by the tests: 2048 and 3072 bits from `KeyGen`, and a
/// 2049-bit key with unbalanced primes (1025 and 1024 bits), built from
/// components with `d` computed by num-bigint: its modulus has one more
/// limb than twice the smaller prime's, and `modBits − 1` is a multiple of
/// 8 (PSS's short-encoding case).
fn keys() -> &'static [RsaPrivateKey] {
    static KEYS: OnceLock<Vec<RsaPrivateKey>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(0x0052_5341);
        let mut keys = vec![
            KeyGen::new(2048).generate(&mut rng).unwrap(),
            KeyGen::new(3072).generate(&mut rng).unwrap(),
        ];
        loop {
            let p: BoxedUint =
                numcrypt_prime::PrimeGen::new(numcrypt_prime::PrimeKind::Prime, 1025)
                    .generate(&mut rng)
                    .unwrap();
            let q: BoxedUint =
                numcrypt_prime::PrimeGen::new(numcrypt_prime::PrimeKind::Prime, 1024)
                    .generate(&mut rng)
                    .unwrap();
            let (bp, bq) = (big(&p), big(&q));
            let n = &bp * &bq;
            let e = BigUint::from(65537u32);
            let phi = (&bp - 1u8) * (&bq - 1u8);
            let Some(d) = e.modinv(&phi) else { continue };
            assert_eq!(n.bits(), 2049);
            keys.push(
                RsaPrivateKey::from_components(&boxed(&n), &boxed(&e), &boxed(&d), &p, &q).unwrap(),
            );
            break;
        }
        keys
    })
}

/// `x^e mod n` with num-bigint: the independent public operation.
fn raw_public(key: &RsaPublicKey, x: &[u8]) -> Vec<u8> {
    let r = BigUint::from_bytes_be(x).modpow(&big(key.e()), &big(key.n()));
    let mut out = r.to_bytes_be();
    while out.len() < key.size() {
        out.insert(0, 0);
    }
    out
}

/// RFC 8017's DigestInfo prefixes (§9.2 note 1), written out independently
/// of the crate's DER encoder.
fn digest_info_prefix(hash: HashAlg) -> &'static str {
    match hash {
        HashAlg::Sha224 => "302d300d06096086480165030402040500041c",
        HashAlg::Sha256 => "3031300d060960864801650304020105000420",
        HashAlg::Sha384 => "3041300d060960864801650304020205000430",
        HashAlg::Sha512 => "3051300d060960864801650304020305000440",
        _ => unreachable!(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// PKCS#1 v1.5: the signature, raised to e by num-bigint, is the
    /// encoding RFC 8017 prescribes; it verifies; a changed message or
    /// signature does not.
    #[test]
    fn pkcs1v15_sign_verify(msg in proptest::collection::vec(any::<u8>(), 0..200), which in 0usize..3, h in 0usize..4, seed in any::<u64>()) {
        let key = &keys()[which];
        let public = key.public_key();
        let hash = HASHES[h];
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let sig = key.sign_pkcs1v15(&mut rng, hash, &msg).unwrap();
        prop_assert_eq!(sig.len(), public.size());
        let em = raw_public(public, &sig);
        let t = [hex::decode(digest_info_prefix(hash)).unwrap(), hash.digest(&msg)].concat();
        let mut expected = vec![0u8, 1];
        expected.resize(public.size() - t.len() - 1, 0xff);
        expected.push(0);
        expected.extend_from_slice(&t);
        prop_assert_eq!(em, expected);
        prop_assert!(public.verify_pkcs1v15(hash, &msg, &sig).is_ok());
        let mut other = msg.clone();
        other.push(1);
        prop_assert_eq!(public.verify_pkcs1v15(hash, &other, &sig), Err(Error::InvalidSignature));
        let mut bad = sig.clone();
        let at = seed as usize % bad.len();
        bad[at] ^= 1 << (seed % 8);
        prop_assert!(public.verify_pkcs1v15(hash, &msg, &bad).is_err());
        let wrong_hash = HASHES[(h + 1) % 4];
        prop_assert_eq!(public.verify_pkcs1v15(wrong_hash, &msg, &sig), Err(Error::InvalidSignature));
    }

    /// PSS at every salt length choice: verifies with the same choice and
    /// with `Auto`; a changed message, signature or salt length does not.
    #[test]
    fn pss_sign_verify(msg in proptest::collection::vec(any::<u8>(), 0..200), which in 0usize..3, h in 0usize..4, salt in 0usize..4, seed in any::<u64>()) {
        let key = &keys()[which];
        let public = key.public_key();
        let hash = HASHES[h];
        let salt = [SaltLength::Digest, SaltLength::Max, SaltLength::Bytes(0), SaltLength::Bytes(17)][salt];
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let sig = key.sign_pss(&mut rng, hash, &msg, salt).unwrap();
        // The encoding ends in 0xbc (RFC 8017 §9.1.1 step 12), per num-bigint.
        prop_assert_eq!(*raw_public(public, &sig).last().unwrap(), 0xbc);
        prop_assert!(public.verify_pss(hash, &msg, &sig, salt).is_ok());
        prop_assert!(public.verify_pss(hash, &msg, &sig, SaltLength::Auto).is_ok());
        let mut other = msg.clone();
        other.push(0);
        prop_assert_eq!(public.verify_pss(hash, &other, &sig, salt), Err(Error::InvalidSignature));
        let mut bad = sig.clone();
        let at = seed as usize % bad.len();
        bad[at] ^= 1 << (seed % 8);
        prop_assert!(public.verify_pss(hash, &msg, &bad, salt).is_err());
        prop_assert!(public.verify_pss(hash, &msg, &sig, SaltLength::Bytes(1)).is_err());
        // Two signatures of one message differ (random salt), unless the salt is empty.
        let again = key.sign_pss(&mut rng, hash, &msg, salt).unwrap();
        prop_assert_eq!(again == sig, salt == SaltLength::Bytes(0));
    }

    /// OAEP round trip with labels; the wrong label, hash, or a changed
    /// ciphertext gives the one `Decryption` error.
    #[test]
    fn oaep_round_trip(len in 0usize..190, label in proptest::collection::vec(any::<u8>(), 0..40), which in 0usize..3, h in 0usize..4, seed in any::<u64>()) {
        let key = &keys()[which];
        let public = key.public_key();
        let hash = HASHES[h];
        let len = len.min(public.oaep_max_message_len(hash));
        let msg: Vec<u8> = (0..len).map(|i| (i as u64 ^ seed) as u8).collect();
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let ct = public.encrypt_oaep(&mut rng, hash, &label, &msg).unwrap();
        prop_assert_eq!(&key.decrypt_oaep(&mut rng, hash, &label, &ct).unwrap()[..], &msg[..]);
        let mut other_label = label.clone();
        other_label.push(b'x');
        prop_assert_eq!(key.decrypt_oaep(&mut rng, hash, &other_label, &ct).unwrap_err(), Error::Decryption);
        prop_assert_eq!(key.decrypt_oaep(&mut rng, HASHES[(h + 1) % 4], &label, &ct).unwrap_err(), Error::Decryption);
        let mut bad = ct.clone();
        let i = 1 + seed as usize % (bad.len() - 1);
        bad[i] ^= 0x40;
        match key.decrypt_oaep(&mut rng, hash, &label, &bad) {
            Err(Error::Decryption) | Err(Error::OutOfRange) => {}
            other => prop_assert!(false, "tampered ciphertext: {:?}", other),
        }
    }

    /// PKCS#1 v1.5 decryption of a ciphertext made with num-bigint from a
    /// hand-built `00 02 PS 00 M` block returns M; breaking the block's
    /// second byte gives no error but a message the key and ciphertext
    /// determine, of another length or content (compared from 8 bytes on:
    /// the implicit-rejection message is random of a random length, so it
    /// is empty for about one bad ciphertext in 246 at 2048 bits).
    #[test]
    fn pkcs1v15_decrypt(len in 0usize..200, which in 0usize..3, seed in any::<u64>()) {
        let key = &keys()[which];
        let public = key.public_key();
        let k = public.size();
        let len = len.min(k - 11);
        let msg: Vec<u8> = (0..len).map(|i| ((i as u64 * 7) ^ seed) as u8).collect();
        let mut em = vec![0u8, 2];
        em.extend((0..k - len - 3).map(|i| 1 + ((i as u64 + seed) % 255) as u8));
        em.push(0);
        em.extend_from_slice(&msg);
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let ct = raw_public(public, &em);
        prop_assert_eq!(&key.decrypt_pkcs1v15(&mut rng, &ct).unwrap()[..], &msg[..]);
        em[1] = 3;
        let bad = raw_public(public, &em);
        let synthetic = key.decrypt_pkcs1v15(&mut rng, &bad).unwrap();
        prop_assert_eq!(&key.decrypt_pkcs1v15(&mut rng, &bad).unwrap(), &synthetic);
        if msg.len() >= 8 {
            prop_assert_ne!(&synthetic[..], &msg[..]);
        }
        prop_assert!(synthetic.len() <= k - 11);
    }
}

#[test]
fn signature_traits() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let key = keys()[0].clone();
    let signer = pkcs1v15::SigningKey::try_new(key.clone(), HashAlg::Sha256).unwrap();
    let verifier = signer.verifying_key();
    let sig = signer.sign(b"through Signer (OS randomness for blinding)");
    verifier
        .verify(b"through Signer (OS randomness for blinding)", &sig)
        .unwrap();
    let sig2 = signer.sign_with_rng(&mut rng, b"through Signer (OS randomness for blinding)");
    assert_eq!(sig, sig2, "PKCS#1 v1.5 is deterministic");
    assert!(verifier.verify(b"other", &sig).is_err());

    let signer = pss::SigningKey::try_new(key, HashAlg::Sha512).unwrap();
    let verifier = signer.verifying_key();
    let sig = signer.sign_with_rng(&mut rng, b"pss");
    verifier.verify(b"pss", &sig).unwrap();
    verifier.verify(b"pss", &signer.sign(b"pss")).unwrap();
    assert!(verifier.verify(b"psst", &sig).is_err());
}

#[test]
fn key_formats_round_trip() {
    for key in keys() {
        let public = key.public_key();
        let der = key.to_pkcs8_der().unwrap();
        assert_eq!(&RsaPrivateKey::from_pkcs8_der(&der).unwrap(), key);
        assert_eq!(&RsaPrivateKey::from_der(&der).unwrap(), key);
        let der = key.to_pkcs1_der().unwrap();
        assert_eq!(&RsaPrivateKey::from_pkcs1_der(&der).unwrap(), key);
        assert_eq!(&RsaPrivateKey::from_der(&der).unwrap(), key);
        for pem in [key.to_pkcs8_pem().unwrap(), key.to_pkcs1_pem().unwrap()] {
            assert_eq!(&RsaPrivateKey::from_pem(&pem).unwrap(), key);
        }
        assert!(
            key.to_pkcs8_pem()
                .unwrap()
                .starts_with("-----BEGIN PRIVATE KEY-----\n")
        );
        assert!(
            key.to_pkcs1_pem()
                .unwrap()
                .starts_with("-----BEGIN RSA PRIVATE KEY-----\n")
        );
        // The wrong reader for a label is an encoding error.
        assert!(matches!(
            RsaPrivateKey::from_pkcs1_pem(&key.to_pkcs8_pem().unwrap()),
            Err(Error::Encoding(_))
        ));
        for der in [
            public.to_public_key_der().unwrap(),
            public.to_pkcs1_der().unwrap(),
        ] {
            assert_eq!(&RsaPublicKey::from_der(&der).unwrap(), public);
        }
        for pem in [
            public.to_public_key_pem().unwrap(),
            public.to_pkcs1_pem().unwrap(),
        ] {
            assert_eq!(&RsaPublicKey::from_pem(&pem).unwrap(), public);
        }
        // The format crates' traits agree.
        use pkcs8::{DecodePrivateKey, EncodePrivateKey};
        use spki::{DecodePublicKey, EncodePublicKey};
        let doc = EncodePrivateKey::to_pkcs8_der(key).unwrap();
        assert_eq!(
            &<RsaPrivateKey as DecodePrivateKey>::from_pkcs8_der(doc.as_bytes()).unwrap(),
            key
        );
        let doc = EncodePublicKey::to_public_key_der(public).unwrap();
        assert_eq!(
            &<RsaPublicKey as DecodePublicKey>::from_public_key_der(doc.as_bytes()).unwrap(),
            public
        );
    }
}

#[test]
fn malformed_encodings() {
    let key = &keys()[0];
    let der = key.to_pkcs8_der().unwrap();
    for cut in [0, 1, 10, der.len() / 2, der.len() - 1] {
        assert!(
            RsaPrivateKey::from_pkcs8_der(&der[..cut]).is_err(),
            "truncated at {cut}"
        );
    }
    let mut trailing = der.to_vec();
    trailing.push(0);
    assert!(matches!(
        RsaPrivateKey::from_pkcs8_der(&trailing),
        Err(Error::Encoding(_))
    ));
    assert!(
        RsaPrivateKey::from_pem(
            "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n"
        )
        .is_err()
    );
    assert_eq!(
        RsaPrivateKey::from_pem(
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"
        )
        .unwrap_err(),
        Error::EncryptedKey
    );
    // An SPKI with another algorithm (id-ecPublicKey, P-256).
    let ec = hex::decode(
        "3059301306072a8648ce3d020106082a8648ce3d03010703420004\
        6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296\
        4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
    )
    .unwrap();
    assert_eq!(
        RsaPublicKey::from_public_key_der(&ec).unwrap_err(),
        Error::UnsupportedKeyFormat
    );
}

#[test]
fn inconsistent_private_keys() {
    let key = &keys()[0];
    let n = key.public_key().n().clone();
    let e = key.public_key().e().clone();
    let d = key.d();
    let (p, q) = key.primes();
    let (dp, dq, qinv) = key.crt_values();
    let one = BoxedUint::from_u64(1, 1);
    let bump = |x: &BoxedUint| boxed(&(big(x) + 2u8));
    let crt =
        |n: &BoxedUint,
         e: &BoxedUint,
         d: &BoxedUint,
         p: &BoxedUint,
         q: &BoxedUint,
         dp: &BoxedUint,
         dq: &BoxedUint,
         qi: &BoxedUint| { RsaPrivateKey::from_crt_components(n, e, d, p, q, dp, dq, qi) };
    assert!(crt(&n, &e, &d, &p, &q, &dp, &dq, &qinv).is_ok());
    assert_eq!(
        crt(&n, &e, &d, &bump(&p), &q, &dp, &dq, &qinv).unwrap_err(),
        Error::InconsistentKey,
        "p·q ≠ n"
    );
    assert_eq!(
        crt(&n, &e, &bump(&d), &p, &q, &dp, &dq, &qinv).unwrap_err(),
        Error::InconsistentKey,
        "d"
    );
    assert_eq!(
        crt(&n, &e, &d, &p, &q, &bump(&dp), &dq, &qinv).unwrap_err(),
        Error::InconsistentKey,
        "dP"
    );
    assert_eq!(
        crt(&n, &e, &d, &p, &q, &dp, &bump(&dq), &qinv).unwrap_err(),
        Error::InconsistentKey,
        "dQ"
    );
    assert_eq!(
        crt(&n, &e, &d, &p, &q, &dp, &dq, &bump(&qinv)).unwrap_err(),
        Error::InconsistentKey,
        "qInv"
    );
    assert_eq!(
        crt(&n, &boxed(&BigUint::from(3u8)), &d, &p, &q, &dp, &dq, &qinv).unwrap_err(),
        Error::InconsistentKey,
        "e"
    );
    assert_eq!(
        crt(&n, &e, &d, &one, &n, &dp, &dq, &qinv).unwrap_err(),
        Error::InconsistentKey,
        "p = 1"
    );
    assert_eq!(
        RsaPrivateKey::from_components(&n, &e, &d, &p, &bump(&q)).unwrap_err(),
        Error::InconsistentKey
    );
    assert_eq!(
        RsaPrivateKey::from_exponents_vartime(&n, &e, &bump(&d)).unwrap_err(),
        Error::InconsistentKey
    );
    let recovered = RsaPrivateKey::from_exponents_vartime(&n, &e, &d).unwrap();
    assert_eq!(&recovered, key);
    // n = p·q with a composite factor: a trial operation catches it.
    let r: BoxedUint = numcrypt_prime::PrimeGen::new(numcrypt_prime::PrimeKind::Prime, 512)
        .generate(&mut ChaCha20Rng::seed_from_u64(3))
        .unwrap();
    let s: BoxedUint = numcrypt_prime::PrimeGen::new(numcrypt_prime::PrimeKind::Prime, 512)
        .generate(&mut ChaCha20Rng::seed_from_u64(4))
        .unwrap();
    let t: BoxedUint = numcrypt_prime::PrimeGen::new(numcrypt_prime::PrimeKind::Prime, 1024)
        .generate(&mut ChaCha20Rng::seed_from_u64(5))
        .unwrap();
    let (br, bs, bt) = (big(&r), big(&s), big(&t));
    let composite = &br * &bs;
    let phi_fake = (&composite - 1u8) * (&bt - 1u8);
    if let Some(d) = BigUint::from(65537u32).modinv(&phi_fake) {
        let n = &composite * &bt;
        assert_eq!(
            RsaPrivateKey::from_components(&boxed(&n), &e, &boxed(&d), &boxed(&composite), &t)
                .unwrap_err(),
            Error::InconsistentKey
        );
    }
}

#[test]
fn bad_public_keys() {
    let key = &keys()[0];
    let n = key.public_key().n().clone();
    let e = key.public_key().e().clone();
    let even = boxed(&(big(&n) + 1u8));
    assert_eq!(
        RsaPublicKey::new(&even, &e).unwrap_err(),
        Error::EvenModulus
    );
    let tiny = boxed(&BigUint::from(3233u32));
    assert_eq!(
        RsaPublicKey::new(&tiny, &e).unwrap_err(),
        Error::KeyTooSmall {
            bits: 12,
            min: 1024
        }
    );
    let huge = boxed(&((BigUint::from(1u8) << 16384u32) + 1u8));
    assert_eq!(
        RsaPublicKey::new(&huge, &e).unwrap_err(),
        Error::KeyTooLarge {
            bits: 16385,
            max: 16384
        }
    );
    for bad_e in [0u32, 1, 2, 65536] {
        assert_eq!(
            RsaPublicKey::new(&n, &boxed(&BigUint::from(bad_e))).unwrap_err(),
            Error::InvalidExponent,
            "{bad_e}"
        );
    }
    // e = n is above the 33-bit cap, which is checked first.
    assert_eq!(
        RsaPublicKey::new(&n, &n).unwrap_err(),
        Error::PublicExponentTooLarge {
            bits: 2048,
            max: 33
        },
        "e = n"
    );
    assert!(RsaPublicKey::new(&n, &boxed(&BigUint::from(3u8))).is_ok());
}

#[test]
fn bad_signatures_and_ciphertexts() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let key = &keys()[0];
    let public = key.public_key();
    let k = public.size();
    let sig = key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"m").unwrap();
    let mut long = vec![0u8];
    long.extend_from_slice(&sig);
    assert_eq!(
        public.verify_pkcs1v15(HashAlg::Sha256, b"m", &long),
        Err(Error::InvalidLength {
            expected: k,
            actual: k + 1
        })
    );
    assert_eq!(
        public.verify_pkcs1v15(HashAlg::Sha256, b"m", &sig[1..]),
        Err(Error::InvalidLength {
            expected: k,
            actual: k - 1
        })
    );
    assert_eq!(
        public.verify_pkcs1v15(HashAlg::Sha256, b"m", &[]),
        Err(Error::InvalidLength {
            expected: k,
            actual: 0
        })
    );
    let n_bytes = public.n().to_be_bytes();
    let n_bytes = &n_bytes[n_bytes.len() - k..];
    assert_eq!(
        public.verify_pkcs1v15(HashAlg::Sha256, b"m", n_bytes),
        Err(Error::OutOfRange)
    );
    assert_eq!(
        public.verify_pss(HashAlg::Sha256, b"m", &vec![0xff; k], SaltLength::Digest),
        Err(Error::OutOfRange)
    );
    assert_eq!(
        public.verify_pss(HashAlg::Sha256, b"m", &vec![0; k], SaltLength::Digest),
        Err(Error::InvalidSignature)
    );
    assert_eq!(
        key.decrypt_oaep(&mut rng, HashAlg::Sha256, b"", &sig[1..])
            .unwrap_err(),
        Error::InvalidLength {
            expected: k,
            actual: k - 1
        }
    );
    assert_eq!(
        key.decrypt_oaep(&mut rng, HashAlg::Sha256, b"", n_bytes)
            .unwrap_err(),
        Error::OutOfRange
    );
    assert_eq!(
        key.decrypt_pkcs1v15(&mut rng, n_bytes).unwrap_err(),
        Error::OutOfRange
    );
    assert_eq!(
        key.decrypt_pkcs1v15(&mut rng, &long).unwrap_err(),
        Error::InvalidLength {
            expected: k,
            actual: k + 1
        }
    );
    let max = public.oaep_max_message_len(HashAlg::Sha256);
    assert_eq!(max, k - 66);
    assert_eq!(
        public
            .encrypt_oaep(&mut rng, HashAlg::Sha256, b"", &vec![1; max + 1])
            .unwrap_err(),
        Error::MessageTooLong { max }
    );
    assert_eq!(
        key.sign_pss(&mut rng, HashAlg::Sha512, b"m", SaltLength::Bytes(k))
            .unwrap_err(),
        Error::InvalidSaltLength
    );
    assert_eq!(
        key.sign_pkcs1v15_prehashed(&mut rng, HashAlg::Sha256, &[0; 31])
            .unwrap_err(),
        Error::InvalidLength {
            expected: 32,
            actual: 31
        }
    );
    assert_eq!(
        "md5".parse::<HashAlg>().map_err(Error::from),
        Err(Error::UnsupportedHash)
    );
    assert_eq!(
        key.sign_pkcs1v15(&mut rng, HashAlg::Sha1, b"m")
            .unwrap_err(),
        Error::WeakHash
    );
    assert_eq!(
        key.sign_pss(&mut rng, HashAlg::Sha1, b"m", SaltLength::Digest)
            .unwrap_err(),
        Error::WeakHash
    );
    assert_eq!("md5".parse::<SaltLength>(), Err(Error::InvalidSaltLength));
}

/// 1024-bit keys: generation needs the flag, the public key verifies
/// (signature made with num-bigint); signing and decryption need the key's
/// opt-in (`allow_weak_key`), and then sign as num-bigint does; encryption
/// to such a key stays refused.
#[test]
fn weak_keys_sign_and_decrypt_only_when_allowed() {
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let key = KeyGen::new(1024)
        .allow_weak_key_size(true)
        .generate(&mut rng)
        .unwrap();
    let public = key.public_key();
    let weak = Error::WeakKey {
        bits: 1024,
        min: 2048,
    };
    assert!(!key.allows_weak_key());
    assert_eq!(
        key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"m")
            .unwrap_err(),
        weak
    );
    assert_eq!(
        key.sign_pss(&mut rng, HashAlg::Sha256, b"m", SaltLength::Digest)
            .unwrap_err(),
        weak
    );
    assert_eq!(key.decrypt_pkcs1v15(&mut rng, &[1; 128]).unwrap_err(), weak);
    assert_eq!(
        key.decrypt_oaep(&mut rng, HashAlg::Sha256, b"", &[1; 128])
            .unwrap_err(),
        weak
    );
    assert!(weak.to_string().contains("allow_weak_key"));
    assert_eq!(
        public
            .encrypt_oaep(&mut rng, HashAlg::Sha256, b"", b"m")
            .unwrap_err(),
        Error::KeyTooSmall {
            bits: 1024,
            min: 2048,
        }
    );
    let t = [
        hex::decode(digest_info_prefix(HashAlg::Sha256)).unwrap(),
        HashAlg::Sha256.digest(b"m"),
    ]
    .concat();
    let mut em = vec![0u8, 1];
    em.resize(128 - t.len() - 1, 0xff);
    em.push(0);
    em.extend_from_slice(&t);
    let sig = BigUint::from_bytes_be(&em)
        .modpow(&big(&key.d()), &big(public.n()))
        .to_bytes_be();
    let mut sig_padded = vec![0u8; 128 - sig.len()];
    sig_padded.extend_from_slice(&sig);
    assert!(
        public
            .verify_pkcs1v15(HashAlg::Sha256, b"m", &sig_padded)
            .is_ok()
    );
    // Opted in: the same signature as num-bigint's; the opt-in survives a
    // clone; decryption runs (implicit rejection: a bad ciphertext gives
    // synthetic bytes, not an error).
    let allowed = key.clone().allow_weak_key();
    assert!(allowed.allows_weak_key() && allowed.clone().allows_weak_key());
    assert_eq!(
        allowed
            .sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"m")
            .unwrap(),
        sig_padded
    );
    assert!(allowed.decrypt_pkcs1v15(&mut rng, &[1; 128]).is_ok());
    assert_eq!(
        allowed
            .decrypt_oaep(&mut rng, HashAlg::Sha256, b"", &[1; 128])
            .unwrap_err(),
        Error::Decryption
    );
}

/// Keys can be shared between threads (the blinding state is behind a
/// mutex), and signing from several threads at once gives correct results.
#[test]
fn keys_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<RsaPrivateKey>();
    check::<RsaPublicKey>();
    check::<pkcs1v15::SigningKey>();
    check::<pss::VerifyingKey>();
    let key = &keys()[0];
    let expected = key
        .sign_pkcs1v15(
            &mut ChaCha20Rng::seed_from_u64(1),
            HashAlg::Sha256,
            b"threads",
        )
        .unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let expected = &expected;
            s.spawn(move || {
                let mut rng = ChaCha20Rng::seed_from_u64(t);
                for _ in 0..40 {
                    let sig = key
                        .sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"threads")
                        .unwrap();
                    assert_eq!(&sig, expected);
                }
            });
        }
    });
}

#[test]
fn debug_prints_no_secret() {
    let key = &keys()[0];
    let text = format!(
        "{key:?} {:?}",
        pkcs1v15::SigningKey::try_new(key.clone(), HashAlg::Sha256).unwrap()
    );
    let (p, q) = key.primes();
    for secret in [key.d(), p, q] {
        let hex = format!("{:x}", *secret);
        assert!(!text.contains(&hex[..32]), "Debug leaks a secret");
    }
    assert!(
        text.contains(&format!("{:x}", key.public_key().n())[..32]),
        "Debug shows the modulus"
    );
}
