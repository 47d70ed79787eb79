//! The provider's parts against the base providers': which keys numcrypt
//! loads and which go to the base, the scheme a key picks, signatures
//! checked by aws-lc-rs, verification verdicts against webpki's aws-lc-rs
//! (and ring) algorithms on valid, damaged and edge-case inputs, and the
//! verification tables against the base's.

use std::collections::HashSet;

use crate::common::*;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{self as aws, KeyPair as _, RsaKeyPair};
use numcrypt_rsa::der::Decode;
use numcrypt_rsa::{RsaPrivateKey, pkcs8::PrivateKeyInfoRef};
use numcrypt_rustls::RsaSigningKey;
use rustls::SignatureScheme;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{
    PrivateKeyDer, PrivatePkcs1KeyDer, SignatureVerificationAlgorithm, alg_id,
};
use rustls::sign::SigningKey;

const RSA_SCHEMES: [SignatureScheme; 6] = [
    SignatureScheme::RSA_PKCS1_SHA256,
    SignatureScheme::RSA_PKCS1_SHA384,
    SignatureScheme::RSA_PKCS1_SHA512,
    SignatureScheme::RSA_PSS_SHA256,
    SignatureScheme::RSA_PSS_SHA384,
    SignatureScheme::RSA_PSS_SHA512,
];

fn numcrypt_key(name: &str) -> std::sync::Arc<dyn SigningKey> {
    numcrypt_rustls::provider()
        .key_provider
        .load_private_key(key_der(name))
        .unwrap()
}

fn aws_key(name: &str) -> std::sync::Arc<dyn SigningKey> {
    rustls::crypto::aws_lc_rs::default_provider()
        .key_provider
        .load_private_key(key_der(name))
        .unwrap()
}

/// The PKCS#1 `RSAPrivateKey` inside a fixture's PKCS#8.
fn pkcs1_der(name: &str) -> PrivateKeyDer<'static> {
    let PrivateKeyDer::Pkcs8(pkcs8) = key_der(name) else {
        panic!()
    };
    let info = PrivateKeyInfoRef::from_der(pkcs8.secret_pkcs8_der()).unwrap();
    PrivateKeyDer::Pkcs1(PrivatePkcs1KeyDer::from(
        info.private_key.as_bytes().to_vec(),
    ))
}

/// The `numcrypt_rustls::Error` inside a rustls error.
fn numcrypt_error(e: &rustls::Error) -> numcrypt_rustls::Error {
    match e {
        rustls::Error::Other(other) => *other.0.downcast_ref().expect("numcrypt's error"),
        _ => panic!("not numcrypt's: {e:?}"),
    }
}

#[test]
fn rsa_keys_load_into_numcrypt_and_others_into_the_base() {
    let provider = numcrypt_rustls::provider();
    let load = |der| provider.key_provider.load_private_key(der);
    let is_ours =
        |key: &std::sync::Arc<dyn SigningKey>| format!("{key:?}").starts_with("RsaSigningKey");

    for name in [
        "rsa2048.pem",
        "rsa3072.pem",
        "rsa4096.pem",
        "pss.pem",
        "pss-sha256.pem",
    ] {
        let key = load(key_der(name)).unwrap();
        assert!(is_ours(&key), "{name}: {key:?}");
        assert_eq!(key.algorithm(), rustls::SignatureAlgorithm::RSA);
    }
    // PKCS#1, and its SubjectPublicKeyInfo is the PKCS#8's (aws-lc-rs's).
    let pkcs1 = load(pkcs1_der("rsa2048.pem")).unwrap();
    assert!(is_ours(&pkcs1));
    assert_eq!(pkcs1.public_key(), aws_key("rsa2048.pem").public_key());

    for (name, algorithm) in [
        ("ec-p256.pem", rustls::SignatureAlgorithm::ECDSA),
        ("ec-p256-sec1.pem", rustls::SignatureAlgorithm::ECDSA),
        ("ed25519.pem", rustls::SignatureAlgorithm::ED25519),
    ] {
        let key = load(key_der(name)).unwrap();
        assert!(!is_ours(&key), "{name}: {key:?}");
        assert_eq!(key.algorithm(), algorithm, "{name}");
        assert_eq!(key.public_key(), aws_key(name).public_key(), "{name}");
    }

    // Refused RSA keys: numcrypt's reason, typed; never the base's.
    let too_small = load(key_der("rsa1024.pem")).unwrap_err();
    assert_eq!(
        numcrypt_error(&too_small),
        numcrypt_rustls::Error::Key(numcrypt_rsa::Error::WeakKey {
            bits: 1024,
            min: 2048
        })
    );
    // The library's opt-in, carried by the key, lets the same key sign.
    let weak = RsaPrivateKey::from_pem(&key_pem("rsa1024.pem")).unwrap();
    assert!(RsaSigningKey::new(weak.clone()).is_err());
    assert!(RsaSigningKey::new(weak.allow_weak_key()).is_ok());
    let large_e = load(key_der("rsa2048-e34bits.pem")).unwrap_err();
    assert_eq!(
        numcrypt_error(&large_e),
        numcrypt_rustls::Error::Key(numcrypt_rsa::Error::PublicExponentTooLarge {
            bits: 34,
            max: 33
        })
    );
    let no_scheme = load(key_der("pss-mgf1-sha1.pem")).unwrap_err();
    assert_eq!(
        numcrypt_error(&no_scheme),
        numcrypt_rustls::Error::NoTlsScheme
    );
    let PrivateKeyDer::Pkcs1(good) = pkcs1_der("rsa2048.pem") else {
        panic!()
    };
    let mut damaged = good.secret_pkcs1_der().to_vec();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 1; // a bit of some private value: inconsistent
    let damaged = load(PrivateKeyDer::Pkcs1(damaged.into())).unwrap_err();
    assert!(matches!(
        numcrypt_error(&damaged),
        numcrypt_rustls::Error::Key(_)
    ));

    // Not a PKCS#8 structure at all: the base's refusal.
    let junk = PrivateKeyDer::Pkcs8(vec![0x30, 0x03, 0x02, 0x01, 0x00].into());
    assert!(matches!(load(junk).unwrap_err(), rustls::Error::General(_)));
}

#[test]
fn rsa_pss_keys_offer_what_their_parameters_allow() {
    let schemes = |name: &str| {
        RsaSigningKey::new(RsaPrivateKey::from_pem(&key_pem(name)).unwrap())
            .unwrap()
            .schemes()
            .to_vec()
    };
    use SignatureScheme::*;
    // rsa_pss_pss_sha256/384/512: RFC 8446's code points for RSA-PSS keys.
    let (pss_pss_256, pss_pss_384, pss_pss_512) = (0x0809.into(), 0x080a.into(), 0x080b.into());
    assert_eq!(
        schemes("rsa2048.pem"),
        [
            RSA_PSS_SHA512,
            RSA_PSS_SHA384,
            RSA_PSS_SHA256,
            RSA_PKCS1_SHA512,
            RSA_PKCS1_SHA384,
            RSA_PKCS1_SHA256
        ]
    );
    assert_eq!(
        schemes("pss.pem"),
        [
            pss_pss_512,
            pss_pss_384,
            pss_pss_256,
            RSA_PSS_SHA512,
            RSA_PSS_SHA384,
            RSA_PSS_SHA256
        ]
    );
    assert_eq!(schemes("pss-sha256.pem"), [pss_pss_256, RSA_PSS_SHA256]);

    let restricted = numcrypt_key("pss-sha256.pem");
    assert_eq!(
        restricted.choose_scheme(&RSA_SCHEMES).unwrap().scheme(),
        RSA_PSS_SHA256
    );
    let with_pss_pss = [&RSA_SCHEMES[..], &[pss_pss_512, pss_pss_256]].concat();
    assert_eq!(
        restricted.choose_scheme(&with_pss_pss).unwrap().scheme(),
        pss_pss_256
    );
    assert!(
        numcrypt_key("rsa2048.pem")
            .choose_scheme(&[pss_pss_256])
            .is_none()
    );
    assert!(
        restricted
            .choose_scheme(&[RSA_PSS_SHA384, RSA_PKCS1_SHA256])
            .is_none()
    );
    assert!(
        numcrypt_key("pss.pem")
            .choose_scheme(&RSA_SCHEMES[..3])
            .is_none()
    );
}

/// For every offer (each subset of the RSA schemes, with ECDSA and EdDSA
/// mixed in, in either order), numcrypt's key picks what aws-lc-rs's and
/// ring's keys pick.
#[test]
fn scheme_choice_is_the_base_providers() {
    let ours = numcrypt_key("rsa2048.pem");
    let aws = aws_key("rsa2048.pem");
    let ring = rustls::crypto::ring::default_provider()
        .key_provider
        .load_private_key(key_der("rsa2048.pem"))
        .unwrap();
    for subset in 0u32..64 {
        let mut offer: Vec<_> = RSA_SCHEMES
            .iter()
            .enumerate()
            .filter(|(i, _)| subset >> i & 1 == 1)
            .map(|(_, &s)| s)
            .collect();
        offer.insert(offer.len() / 2, SignatureScheme::ECDSA_NISTP256_SHA256);
        offer.push(SignatureScheme::ED25519);
        for _ in 0..2 {
            let pick =
                |k: &std::sync::Arc<dyn SigningKey>| k.choose_scheme(&offer).map(|s| s.scheme());
            assert_eq!(pick(&ours), pick(&aws), "{offer:?}");
            assert_eq!(pick(&ours), pick(&ring), "{offer:?}");
            offer.reverse();
        }
    }
}

fn webpki_aws(scheme: SignatureScheme) -> &'static dyn SignatureVerificationAlgorithm {
    use webpki::aws_lc_rs::*;
    match scheme {
        SignatureScheme::RSA_PKCS1_SHA256 => RSA_PKCS1_2048_8192_SHA256,
        SignatureScheme::RSA_PKCS1_SHA384 => RSA_PKCS1_2048_8192_SHA384,
        SignatureScheme::RSA_PKCS1_SHA512 => RSA_PKCS1_2048_8192_SHA512,
        SignatureScheme::RSA_PSS_SHA256 => RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
        SignatureScheme::RSA_PSS_SHA384 => RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
        SignatureScheme::RSA_PSS_SHA512 => RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
        _ => unreachable!(),
    }
}

fn ours(scheme: SignatureScheme) -> &'static dyn SignatureVerificationAlgorithm {
    use numcrypt_rustls::algorithms::*;
    match scheme {
        SignatureScheme::RSA_PKCS1_SHA256 => RSA_PKCS1_2048_8192_SHA256,
        SignatureScheme::RSA_PKCS1_SHA384 => RSA_PKCS1_2048_8192_SHA384,
        SignatureScheme::RSA_PKCS1_SHA512 => RSA_PKCS1_2048_8192_SHA512,
        SignatureScheme::RSA_PSS_SHA256 => RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
        SignatureScheme::RSA_PSS_SHA384 => RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
        SignatureScheme::RSA_PSS_SHA512 => RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
        _ => unreachable!(),
    }
}

fn aws_encoding(scheme: SignatureScheme) -> &'static dyn aws::RsaEncoding {
    match scheme {
        SignatureScheme::RSA_PKCS1_SHA256 => &aws::RSA_PKCS1_SHA256,
        SignatureScheme::RSA_PKCS1_SHA384 => &aws::RSA_PKCS1_SHA384,
        SignatureScheme::RSA_PKCS1_SHA512 => &aws::RSA_PKCS1_SHA512,
        SignatureScheme::RSA_PSS_SHA256 => &aws::RSA_PSS_SHA256,
        SignatureScheme::RSA_PSS_SHA384 => &aws::RSA_PSS_SHA384,
        SignatureScheme::RSA_PSS_SHA512 => &aws::RSA_PSS_SHA512,
        _ => unreachable!(),
    }
}

/// The PKCS#1 `RSAPublicKey` of a fixture key (the subjectPublicKey a
/// certificate would carry); openssl's file for the key numcrypt does not
/// read (e = 2^33 + 1).
fn public_key(name: &str) -> Vec<u8> {
    match RsaPrivateKey::from_pem(&key_pem(name)) {
        Ok(key) => key.public_key().to_pkcs1_der().unwrap(),
        Err(_) => std::fs::read(data(&name.replace(".pem", ".pub.der"))).unwrap(),
    }
}

/// numcrypt's signatures through the provider's signing key, at every size
/// and scheme: aws-lc-rs's verification accepts them, and PKCS#1 v1.5
/// ones are aws-lc-rs's own signatures byte for byte.
#[test]
fn signatures_verify_under_aws_lc_rs() {
    let msg = b"the handshake transcript, or what stands for it here";
    for name in ["rsa2048.pem", "rsa3072.pem", "rsa4096.pem"] {
        let key = numcrypt_key(name);
        let PrivateKeyDer::Pkcs8(pkcs8) = key_der(name) else {
            panic!()
        };
        let aws_pair = RsaKeyPair::from_pkcs8(pkcs8.secret_pkcs8_der()).unwrap();
        let public = aws_pair.public_key().as_ref().to_vec();
        for scheme in RSA_SCHEMES {
            let signer = key.choose_scheme(&[scheme]).unwrap();
            assert_eq!(signer.scheme(), scheme);
            let sig = signer.sign(msg).unwrap();
            webpki_aws(scheme)
                .verify_signature(&public, msg, &sig)
                .unwrap_or_else(|_| panic!("{name} {scheme:?}"));
            if format!("{scheme:?}").contains("PKCS1") {
                let mut theirs = vec![0; aws_pair.public_modulus_len()];
                aws_pair
                    .sign(aws_encoding(scheme), &SystemRandom::new(), msg, &mut theirs)
                    .unwrap();
                assert_eq!(sig, theirs, "{name} {scheme:?}");
            }
        }
    }
    // RSA-PSS keys sign PSS that rsaEncryption verification accepts (the
    // key's type is the certificate's business, the arithmetic is RSA's).
    for (name, scheme) in [
        ("pss-sha256.pem", SignatureScheme::RSA_PSS_SHA256),
        ("pss.pem", SignatureScheme::RSA_PSS_SHA384),
    ] {
        let sig = numcrypt_key(name)
            .choose_scheme(&[scheme])
            .unwrap()
            .sign(msg)
            .unwrap();
        webpki_aws(scheme)
            .verify_signature(&public_key(name), msg, &sig)
            .unwrap();
    }
}

/// Verdicts of numcrypt's algorithms equal webpki's on aws-lc-rs for valid
/// signatures, damaged ones, signatures under another scheme, and keys at
/// the edges (2047 bits, 1024 bits, e = 3, e = 2^33 − 1, e = 2^33 + 1).
#[test]
fn verification_verdicts_equal_webpki_on_aws_lc_rs() {
    let msg = b"signed message";
    let mut cases = 0;
    for name in [
        "rsa2048.pem",
        "rsa3072.pem",
        "rsa4096.pem",
        "rsa2047.pem",
        "rsa1024.pem",
        "rsa2048-e3.pem",
        "rsa2048-e33bits.pem",
        "rsa2048-e34bits.pem",
    ] {
        let public = public_key(name);
        for signed_as in RSA_SCHEMES {
            let sig = sign_raw(name, signed_as, msg);
            let mut variants = vec![sig.clone(), sig[..sig.len() - 1].to_vec(), Vec::new()];
            for i in [0, sig.len() / 2, sig.len() - 1] {
                let mut v = sig.clone();
                v[i] ^= 0x80;
                variants.push(v);
            }
            variants.push(vec![0xff; sig.len()]); // not below n
            variants.push([&[0u8][..], &sig].concat()); // one byte too long
            for v in &variants {
                for verified_as in RSA_SCHEMES {
                    for m in [&msg[..], b"another message"] {
                        let theirs = webpki_aws(verified_as)
                            .verify_signature(&public, m, v)
                            .is_ok();
                        let our = ours(verified_as).verify_signature(&public, m, v).is_ok();
                        assert_eq!(
                            our, theirs,
                            "{name}, signed {signed_as:?}, verified {verified_as:?}"
                        );
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 8 * 6 * 8 * 6 * 2); // keys, schemes signed, variants, schemes verified, messages
    // The edges held what webpki documents: valid signatures refused below
    // 2048 bits and above 33-bit exponents, accepted at e = 3 and 2^33 − 1;
    // webpki on ring rounds the modulus up to whole bytes (2047 → 2048).
    for (name, accepted, by_ring) in [
        ("rsa1024.pem", false, false),
        ("rsa2047.pem", false, true),
        ("rsa2048-e3.pem", true, true),
        ("rsa2048-e33bits.pem", true, true),
        ("rsa2048-e34bits.pem", false, false),
    ] {
        let (public, sig) = (
            public_key(name),
            sign_raw(name, SignatureScheme::RSA_PSS_SHA256, msg),
        );
        let verdict = ours(SignatureScheme::RSA_PSS_SHA256).verify_signature(&public, msg, &sig);
        assert_eq!(verdict.is_ok(), accepted, "{name}");
        let ring =
            webpki::ring::RSA_PSS_2048_8192_SHA256_LEGACY_KEY.verify_signature(&public, msg, &sig);
        assert_eq!(ring.is_ok(), by_ring, "{name}");
    }
    // Malformed public keys.
    let sig = sign_raw("rsa2048.pem", SignatureScheme::RSA_PKCS1_SHA256, msg);
    let good = public_key("rsa2048.pem");
    for bad in [
        Vec::new(),
        good[..good.len() - 1].to_vec(),
        [&good[..], &[0]].concat(),
    ] {
        for alg in [
            ours(SignatureScheme::RSA_PKCS1_SHA256),
            webpki_aws(SignatureScheme::RSA_PKCS1_SHA256),
        ] {
            assert!(alg.verify_signature(&bad, msg, &sig).is_err());
        }
    }
}

/// A signature under `scheme` of `msg` by the fixture key `name`:
/// numcrypt's where numcrypt reads the key and signs with it (2048 bits and
/// up); openssl's signature of "signed message" (PSS-SHA256) for the
/// others (1024 and 2047 bits, e = 2^33 + 1), and for their other schemes
/// and messages bytes that sign nothing (both verdicts must be refusals).
fn sign_raw(name: &str, scheme: SignatureScheme, msg: &[u8]) -> Vec<u8> {
    use numcrypt_rsa::HashAlg;
    use numcrypt_rsa::pss::SaltLength;
    use rand_core::SeedableRng;
    let key = RsaPrivateKey::from_pem(&key_pem(name)).ok();
    let Some(key) = key.filter(|k| k.public_key().bits() >= 2048) else {
        let openssls = std::fs::read(data(&name.replace(".pem", ".pss-sha256.sig"))).unwrap();
        if scheme == SignatureScheme::RSA_PSS_SHA256 && msg == b"signed message" {
            return openssls;
        }
        return vec![1; openssls.len()];
    };
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let hash = match scheme {
        SignatureScheme::RSA_PKCS1_SHA256 | SignatureScheme::RSA_PSS_SHA256 => HashAlg::Sha256,
        SignatureScheme::RSA_PKCS1_SHA384 | SignatureScheme::RSA_PSS_SHA384 => HashAlg::Sha384,
        _ => HashAlg::Sha512,
    };
    if format!("{scheme:?}").contains("PKCS1") {
        key.sign_pkcs1v15(&mut rng, hash, msg).unwrap()
    } else {
        key.sign_pss(&mut rng, hash, msg, SaltLength::Digest)
            .unwrap()
    }
}

/// The provider's verification tables are the base's with RSA replaced:
/// the same schemes in the same order, each scheme's first algorithm with
/// the base's identifiers, every `rsaEncryption` algorithm numcrypt's and
/// every other the base's own, plus the RSA-PSS key algorithms. Cipher
/// suites, key exchange and randomness are the base's.
fn check_tables(ours: &CryptoProvider, base: &CryptoProvider) {
    let (o, b) = (
        &ours.signature_verification_algorithms,
        &base.signature_verification_algorithms,
    );
    assert_eq!(o.supported_schemes(), b.supported_schemes());
    let ids = |alg: &&dyn SignatureVerificationAlgorithm| {
        (
            alg.public_key_alg_id().as_ref().to_vec(),
            alg.signature_alg_id().as_ref().to_vec(),
        )
    };
    let is_numcrypt =
        |alg: &&dyn SignatureVerificationAlgorithm| format!("{alg:?}").starts_with("numcrypt RSA");
    let same = |x: &&dyn SignatureVerificationAlgorithm,
                y: &&dyn SignatureVerificationAlgorithm| {
        std::ptr::addr_eq(
            *x as *const dyn SignatureVerificationAlgorithm,
            *y as *const dyn SignatureVerificationAlgorithm,
        )
    };
    for ((scheme, ours), (_, base)) in o.mapping.iter().zip(b.mapping) {
        assert!(ours.len() >= base.len());
        for (x, y) in ours.iter().zip(base.iter()) {
            assert_eq!(ids(x), ids(y), "{scheme:?}");
            if y.public_key_alg_id() == alg_id::RSA_ENCRYPTION {
                assert!(is_numcrypt(x), "{scheme:?}: {x:?}");
            } else {
                assert!(same(x, y), "{scheme:?}: {x:?}");
            }
        }
        // What is added: RSA-PSS keys' algorithms, for PSS schemes only.
        for x in &ours[base.len()..] {
            assert!(
                is_numcrypt(x) && x.public_key_alg_id() != alg_id::RSA_ENCRYPTION,
                "{scheme:?}"
            );
            assert!(format!("{scheme:?}").contains("PSS"));
        }
    }
    let ours_all: HashSet<_> = o.all.iter().map(ids).collect();
    let base_all: HashSet<_> = b.all.iter().map(ids).collect();
    assert!(ours_all.is_superset(&base_all));
    assert_eq!(ours_all.len(), base_all.len() + 6);
    assert_eq!(o.all.len(), ours_all.len());
    for alg in o.all {
        let rsa = alg.public_key_alg_id() == alg_id::RSA_ENCRYPTION;
        assert_eq!(
            is_numcrypt(alg),
            rsa || !b.all.iter().any(|y| same(alg, y)),
            "{alg:?}"
        );
    }
    assert_eq!(
        format!("{:?}", ours.cipher_suites),
        format!("{:?}", base.cipher_suites)
    );
    assert_eq!(
        format!("{:?}", ours.kx_groups),
        format!("{:?}", base.kx_groups)
    );
    assert_eq!(
        format!("{:?}", ours.secure_random),
        format!("{:?}", base.secure_random)
    );
    assert!(!ours.fips());
}

#[test]
fn tables_are_the_base_providers_with_numcrypt_rsa() {
    #[cfg(feature = "aws-lc-rs")]
    check_tables(
        &numcrypt_rustls::aws_lc_rs::provider(),
        &rustls::crypto::aws_lc_rs::default_provider(),
    );
    #[cfg(feature = "ring")]
    check_tables(
        &numcrypt_rustls::ring::provider(),
        &rustls::crypto::ring::default_provider(),
    );
}
