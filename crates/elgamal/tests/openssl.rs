//! Key formats against the `openssl` command line, both ways, and the KEM's
//! shared value against OpenSSL's Diffie–Hellman derivation.

use crate::common::{genpkey, ok, path, pubout, read, scratch};
use hkdf::Hkdf;
use numcrypt_elgamal::{Error, Group, NamedGroup, PublicKey, SecretKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::Sha256;

#[test]
fn our_keys_in_openssl() {
    let dir = scratch("ours");
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for group in [
        NamedGroup::Ffdhe2048,
        NamedGroup::Modp2048,
        NamedGroup::PseudoMersenne2048,
    ] {
        let key = SecretKey::generate(&group.group(), &mut rng).unwrap();
        let key_pem = dir.join(format!("{group}.pem"));
        std::fs::write(&key_pem, key.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
        let text =
            String::from_utf8(ok(&["pkey", "-in", path(&key_pem), "-text", "-noout"]).stdout)
                .unwrap();
        if group != NamedGroup::PseudoMersenne2048 {
            let openssl_name = if group == NamedGroup::Modp2048 {
                "modp_2048"
            } else {
                "ffdhe2048"
            };
            assert!(text.contains(&format!("GROUP: {openssl_name}")), "{text}");
        }
        ok(&["pkey", "-in", path(&key_pem), "-check", "-noout"]);
        // OpenSSL derives the same public key, byte for byte.
        let pub_pem = dir.join(format!("{group}-pub.pem"));
        pubout(&key_pem, &pub_pem);
        assert_eq!(
            read(&pub_pem),
            key.public_key().to_public_key_pem().unwrap()
        );
        assert_eq!(
            &PublicKey::from_public_key_pem(&read(&pub_pem)).unwrap(),
            key.public_key()
        );
        assert_eq!(SecretKey::from_pkcs8_pem(&read(&key_pem)).unwrap(), key);

        // The KEM's shared value is OpenSSL's Diffie–Hellman value between
        // our key and the encapsulation (as a public key).
        let (enc, shared) = key.public_key().encapsulate(&mut rng).unwrap();
        let peer = PublicKey::new(
            key.group().clone(),
            numcrypt_elgamal::BoxedUint::from_be_slice_auto(&enc),
        )
        .unwrap();
        let peer_pem = dir.join(format!("{group}-peer.pem"));
        std::fs::write(&peer_pem, peer.to_public_key_pem().unwrap()).unwrap();
        let z_path = dir.join(format!("{group}-z.bin"));
        ok(&[
            "pkeyutl",
            "-derive",
            "-inkey",
            path(&key_pem),
            "-peerkey",
            path(&peer_pem),
            "-out",
            path(&z_path),
        ]);
        // OpenSSL drops leading zero bytes; the KEM hashes all 256.
        let unpadded = std::fs::read(&z_path).unwrap();
        let mut z = vec![0u8; 256 - unpadded.len()];
        z.extend_from_slice(&unpadded);
        let mut y_bytes = vec![0u8; 256];
        let yb = key.public_key().y().to_be_bytes();
        y_bytes.copy_from_slice(&yb[yb.len() - 256..]);
        let mut expected = [0u8; 32];
        Hkdf::<Sha256>::new(None, &z)
            .expand_multi_info(&[b"numcrypt-elgamal-kem-v1", &enc, &y_bytes], &mut expected)
            .unwrap();
        assert_eq!(shared.as_bytes(), &expected, "{group}");
    }
}

#[test]
fn openssl_keys_here() {
    let dir = scratch("theirs");
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for (algorithm, opt, group) in [
        ("DHX", "dh_param:ffdhe2048", NamedGroup::Ffdhe2048),
        ("DHX", "dh_param:ffdhe3072", NamedGroup::Ffdhe3072),
        ("DH", "group:ffdhe2048", NamedGroup::Ffdhe2048),
        ("DH", "group:modp_2048", NamedGroup::Modp2048),
    ] {
        let key_pem = dir.join(format!("{algorithm}-{group}.pem"));
        genpkey(algorithm, opt, &key_pem);
        let key = SecretKey::from_pkcs8_pem(&read(&key_pem)).expect("their key");
        assert_eq!(key.group().name(), Some(group));
        let pub_pem = dir.join(format!("{algorithm}-{group}-pub.pem"));
        pubout(&key_pem, &pub_pem);
        let public = PublicKey::from_public_key_pem(&read(&pub_pem)).expect("their public key");
        assert_eq!(&public, key.public_key());
        // Their key works for everything here.
        let sealed = public.seal(&mut rng, b"to an OpenSSL key", b"").unwrap();
        assert_eq!(&key.open(&sealed, b"").unwrap()[..], b"to an OpenSSL key");
        let sig = key.sign::<Sha256>(b"signed").unwrap();
        public.verify::<Sha256>(b"signed", &sig).unwrap();
    }
}

#[test]
fn explicit_groups_and_foreign_keys() {
    let dir = scratch("explicit");
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    // A group that is not named travels with its p, g, q.
    let named = NamedGroup::Ffdhe2048;
    let explicit = Group::new(named.p(), {
        let mut four = named.p().clone();
        four.as_mut().fill(0);
        four.as_mut()[0] = 4;
        four
    })
    .unwrap();
    assert_eq!(explicit.name(), None);
    let key = SecretKey::generate(&explicit, &mut rng).unwrap();
    let key_pem = dir.join("explicit.pem");
    std::fs::write(&key_pem, key.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
    ok(&["pkey", "-in", path(&key_pem), "-check", "-noout"]);
    let back = SecretKey::from_pkcs8_pem(&read(&key_pem)).unwrap();
    assert_eq!(back, key);
    assert_eq!(Group::from_der(&explicit.to_der()).unwrap(), explicit);

    // RSA and DSA keys are refused with a typed error.
    for (algorithm, opt) in [
        ("RSA", "rsa_keygen_bits:1024"),
        ("EC", "ec_paramgen_curve:P-256"),
    ] {
        let foreign = dir.join(format!("{algorithm}.pem"));
        genpkey(algorithm, opt, &foreign);
        assert_eq!(
            SecretKey::from_pkcs8_pem(&read(&foreign)).unwrap_err(),
            Error::UnsupportedAlgorithm
        );
    }
    assert_eq!(
        SecretKey::from_pkcs8_pem("garbage").unwrap_err(),
        Error::Encoding
    );
    let pub_pem = key.public_key().to_public_key_pem().unwrap();
    assert_eq!(
        SecretKey::from_pkcs8_pem(&pub_pem).unwrap_err(),
        Error::UnsupportedAlgorithm
    );
    let mut der = key.public_key().to_public_key_der().unwrap();
    der.push(0);
    assert_eq!(
        PublicKey::from_public_key_der(&der).unwrap_err(),
        Error::Encoding
    );
}

/// `pkcs8` and `spki`'s traits read OpenSSL's X9.42 keys and write them
/// back byte for byte.
#[test]
fn pkcs8_and_spki_traits_on_openssl_keys() {
    use pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
    use spki::{DecodePublicKey, EncodePublicKey};

    let dir = scratch("traits");
    let key_pem = dir.join("dhx.pem");
    genpkey("DHX", "dh_param:ffdhe2048", &key_pem);
    let pub_pem = dir.join("dhx-pub.pem");
    pubout(&key_pem, &pub_pem);
    let key = <SecretKey as DecodePrivateKey>::from_pkcs8_pem(&read(&key_pem)).unwrap();
    let public = <PublicKey as DecodePublicKey>::from_public_key_pem(&read(&pub_pem)).unwrap();
    assert_eq!(&public, key.public_key());
    assert_eq!(
        EncodePrivateKey::to_pkcs8_pem(&key, LineEnding::LF)
            .unwrap()
            .as_str(),
        read(&key_pem)
    );
    assert_eq!(
        EncodePublicKey::to_public_key_pem(&public, LineEnding::LF).unwrap(),
        read(&pub_pem)
    );
    let rsa = dir.join("rsa.pem");
    genpkey("RSA", "rsa_keygen_bits:1024", &rsa);
    assert!(matches!(
        <SecretKey as DecodePrivateKey>::from_pkcs8_pem(&read(&rsa)),
        Err(pkcs8::Error::PublicKey(spki::Error::OidUnknown { .. }))
    ));
}
