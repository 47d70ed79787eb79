//! The library against the `openssl` command line: any `Digest` (SHA-3
//! here) through `HashAlg::of` and the `signature` traits, PSS and OAEP with
//! an MGF1 hash of their own, PKCS#1 v1.5 encryption, and RSA-PSS keys read
//! and written as openssl does. Skipped when there is no `openssl`.

use numcrypt_rsa::pss::{self, SaltLength};
use numcrypt_rsa::signature::{Keypair, RandomizedDigestSigner, RandomizedSigner, Verifier};
use numcrypt_rsa::{HashAlg, KeyAlgorithm, RsaPrivateKey, RsaPublicKey, oaep, pkcs1v15};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha3::{Digest, Sha3_256, Sha3_384};

use crate::common::{openssl, path, setup};

#[test]
fn any_digest_signs_as_openssl() {
    let Some((dir, key_file)) = setup("sha3", "RSA", &[]) else {
        return;
    };
    let key = RsaPrivateKey::from_pem(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
    let msg = b"SHA-3 through HashAlg::of";
    let msg_file = path(&dir, "msg");
    std::fs::write(&msg_file, msg).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let sha3 = HashAlg::of::<Sha3_256>();
    assert!(matches!(sha3, HashAlg::Other(_)));
    assert_eq!(HashAlg::of::<sha2::Sha256>(), HashAlg::Sha256);

    // PKCS#1 v1.5 is deterministic: openssl's bytes, by the inherent
    // method and by DigestSigner over the digest type.
    let expected = openssl(&["dgst", "-sha3-256", "-sign", &key_file, &msg_file]).unwrap();
    assert_eq!(key.sign_pkcs1v15(&mut rng, sha3, msg).unwrap(), expected);
    let signer = pkcs1v15::SigningKey::try_new(key.clone(), HashAlg::Sha256).unwrap();
    let sig = signer.sign_digest_with_rng(&mut rng, |d: &mut Sha3_256| d.update(msg));
    assert_eq!(sig.as_bytes(), &expected[..]);
    let verifier = pkcs1v15::VerifyingKey::new(key.public_key().clone(), sha3);
    verifier.verify(msg, &sig).unwrap();

    // PSS with SHA3-384 and MGF1-SHA-256, verified by openssl.
    let params = pss::Params::new(HashAlg::of::<Sha3_384>())
        .mgf1_hash(HashAlg::Sha256)
        .salt_len(SaltLength::Bytes(20));
    let signer = pss::SigningKey::try_with_params(key.clone(), params).unwrap();
    let sig = signer.sign_with_rng(&mut rng, msg);
    signer.verifying_key().verify(msg, &sig).unwrap();
    let sig_file = path(&dir, "pss.sig");
    std::fs::write(&sig_file, sig.as_bytes()).unwrap();
    let pub_file = path(&dir, "pub.pem");
    openssl(&["pkey", "-in", &key_file, "-pubout", "-out", &pub_file]).unwrap();
    let out = openssl(&[
        "dgst",
        "-sha3-384",
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_mgf1_md:sha256",
        "-sigopt",
        "rsa_pss_saltlen:20",
        "-verify",
        &pub_file,
        "-signature",
        &sig_file,
        &msg_file,
    ])
    .unwrap();
    assert_eq!(out, b"Verified OK\n");

    // OAEP with SHA-256 labels and MGF1-SHA-1, and PKCS#1 v1.5, decrypted
    // by openssl.
    let public = key.public_key();
    let label = [0u8, 1, 2, 0xff];
    let params = oaep::Params::new(HashAlg::Sha256)
        .mgf1_hash(HashAlg::Sha1)
        .label(&label);
    let ct_file = path(&dir, "ct");
    std::fs::write(
        &ct_file,
        public.encrypt_oaep_with(&mut rng, &params, msg).unwrap(),
    )
    .unwrap();
    let plain = openssl(&[
        "pkeyutl",
        "-decrypt",
        "-inkey",
        &key_file,
        "-in",
        &ct_file,
        "-pkeyopt",
        "rsa_padding_mode:oaep",
        "-pkeyopt",
        "rsa_oaep_md:sha256",
        "-pkeyopt",
        "rsa_mgf1_md:sha1",
        "-pkeyopt",
        "rsa_oaep_label:000102ff",
    ])
    .unwrap();
    assert_eq!(plain, msg);
    std::fs::write(&ct_file, public.encrypt_pkcs1v15(&mut rng, msg).unwrap()).unwrap();
    let plain = openssl(&["pkeyutl", "-decrypt", "-inkey", &key_file, "-in", &ct_file]).unwrap();
    assert_eq!(plain, msg);
}

#[test]
fn rsa_pss_keys_as_openssl_writes_them() {
    let opts = [
        "-pkeyopt",
        "rsa_pss_keygen_md:sha512",
        "-pkeyopt",
        "rsa_pss_keygen_mgf1_md:sha256",
        "-pkeyopt",
        "rsa_pss_keygen_saltlen:40",
    ];
    for (name, opts) in [("pss-free", &[][..]), ("pss-restricted", &opts[..])] {
        let Some((dir, key_file)) = setup(name, "RSA-PSS", opts) else {
            return;
        };
        let der = openssl(&["pkey", "-in", &key_file, "-outform", "DER"]).unwrap();
        let pub_der = openssl(&["pkey", "-in", &key_file, "-pubout", "-outform", "DER"]).unwrap();
        let key = RsaPrivateKey::from_der(&der).unwrap();
        // Written back byte for byte as openssl wrote them.
        assert_eq!(&key.to_pkcs8_der().unwrap()[..], &der[..], "{name}");
        assert_eq!(
            key.public_key().to_public_key_der().unwrap(),
            pub_der,
            "{name}"
        );
        let public = RsaPublicKey::from_der(&pub_der).unwrap();
        assert_eq!(&public, key.public_key());
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        assert_eq!(
            key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"m"),
            Err(numcrypt_rsa::Error::KeyRestricted)
        );
        let params = match public.algorithm() {
            KeyAlgorithm::RsaPss(None) => pss::Params::new(HashAlg::Sha256),
            KeyAlgorithm::RsaPss(Some(r)) => {
                assert_eq!(r.hash, HashAlg::Sha512);
                assert_eq!(r.mgf1_hash, HashAlg::Sha256);
                assert_eq!(r.min_salt_len, 40);
                let short = r.params().salt_len(SaltLength::Bytes(39));
                assert_eq!(
                    key.sign_pss_prehashed_with(&mut rng, &short, &[0; 64]),
                    Err(numcrypt_rsa::Error::KeyRestricted)
                );
                r.params()
            }
            KeyAlgorithm::Rsa => panic!("{name}: read as an rsaEncryption key"),
        };
        let digest = params.hash.digest(b"restricted message");
        let sig = key
            .sign_pss_prehashed_with(&mut rng, &params, &digest)
            .unwrap();
        let (digest_file, sig_file) = (path(&dir, "digest"), path(&dir, "sig"));
        std::fs::write(&digest_file, &digest).unwrap();
        std::fs::write(&sig_file, &sig).unwrap();
        let md = format!("digest:{}", params.hash);
        let out = openssl(&[
            "pkeyutl",
            "-verify",
            "-inkey",
            &key_file,
            "-in",
            &digest_file,
            "-sigfile",
            &sig_file,
            "-pkeyopt",
            &md,
        ])
        .unwrap();
        assert!(
            String::from_utf8_lossy(&out).contains("Verified Successfully"),
            "{name}"
        );
    }
}

/// A key openssl encrypted (PBES2, PBKDF2 and AES-256-CBC) is named as such
/// by `from_pem`, and `from_pkcs8_encrypted_pem` decrypts it into the same
/// key.
#[test]
fn encrypted_keys_through_the_pkcs8_traits() {
    use numcrypt_rsa::der::Decode;
    use numcrypt_rsa::pkcs8::PrivateKeyInfoRef;
    let Some((dir, key_file)) = setup("encrypted", "RSA", &[]) else {
        return;
    };
    let locked = path(&dir, "locked.pem");
    openssl(&[
        "pkcs8",
        "-topk8",
        "-v2",
        "aes-256-cbc",
        "-in",
        &key_file,
        "-passout",
        "pass:secret",
        "-out",
        &locked,
    ])
    .unwrap();
    let plain = RsaPrivateKey::from_pem(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
    let pem = std::fs::read_to_string(&locked).unwrap();
    assert_eq!(
        RsaPrivateKey::from_pem(&pem),
        Err(numcrypt_rsa::Error::EncryptedKey)
    );
    let key = RsaPrivateKey::from_pkcs8_encrypted_pem(&pem, "secret").unwrap();
    assert_eq!(key, plain);
    // The pkcs8 trait's method (which bounds nothing) reads it too.
    use numcrypt_rsa::pkcs8::DecodePrivateKey;
    assert_eq!(
        <RsaPrivateKey as DecodePrivateKey>::from_pkcs8_encrypted_pem(&pem, "secret").unwrap(),
        plain
    );
    // And back: what pkcs8 encrypts (scrypt), openssl decrypts to the same
    // key.
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let der = key.to_pkcs8_der().unwrap();
    let ours = PrivateKeyInfoRef::from_der(&der)
        .unwrap()
        .encrypt_with_rng(&mut rng, "pw")
        .unwrap()
        .to_pem("ENCRYPTED PRIVATE KEY", Default::default())
        .unwrap();
    let ours_file = path(&dir, "ours.pem");
    std::fs::write(&ours_file, ours.as_bytes()).unwrap();
    let der = openssl(&[
        "pkey", "-in", &ours_file, "-passin", "pass:pw", "-outform", "DER",
    ])
    .unwrap();
    // (openssl writes plain RSA keys in DER as PKCS#1.)
    assert_eq!(RsaPrivateKey::from_der(&der).unwrap(), key);
}

/// PSS through the `DigestSigner`/`DigestVerifier` traits with a digest
/// other than the key's hash (SHA-384 on a SHA-256 key) uses MGF1 with the
/// digest's hash, as openssl does, in both directions:
/// `openssl dgst -sha384 -sigopt rsa_padding_mode:pss` verifies our
/// signature, and `VerifyingKey::new` (salt length read from the signature
/// by default) verifies openssl's, made with its default, longest salt.
#[test]
fn pss_digest_traits_interoperate_with_openssl_sha384() {
    use numcrypt_rsa::signature::DigestVerifier;
    let Some((dir, key_file)) = setup("pss-sha384", "RSA", &[]) else {
        return;
    };
    let key = RsaPrivateKey::from_pem(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
    let msg = b"PSS with SHA-384 through the digest traits";
    let (msg_file, sig_file, pub_file) =
        (path(&dir, "msg"), path(&dir, "sig"), path(&dir, "pub.pem"));
    std::fs::write(&msg_file, msg).unwrap();
    openssl(&["pkey", "-in", &key_file, "-pubout", "-out", &pub_file]).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(38);
    let signer = pss::SigningKey::try_new(key.clone(), HashAlg::Sha256).unwrap();
    let sig = signer.sign_digest_with_rng(&mut rng, |d: &mut sha2::Sha384| d.update(msg));
    std::fs::write(&sig_file, sig.as_bytes()).unwrap();
    let pss_verify = [
        "dgst",
        "-sha384",
        "-sigopt",
        "rsa_padding_mode:pss",
        "-verify",
        &pub_file,
        "-signature",
        &sig_file,
        &msg_file,
    ];
    assert_eq!(openssl(&pss_verify).unwrap(), b"Verified OK\n");

    let theirs = openssl(&[
        "dgst",
        "-sha384",
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sign",
        &key_file,
        &msg_file,
    ])
    .unwrap();
    let theirs = numcrypt_rsa::Signature::from(theirs);
    let verifier = pss::VerifyingKey::new(key.public_key().clone(), HashAlg::Sha256);
    verifier
        .verify_digest(
            |d: &mut sha2::Sha384| {
                d.update(msg);
                Ok(())
            },
            &theirs,
        )
        .unwrap();
    // The MGF1 hash matters: with MGF1 kept at SHA-256 it would not verify.
    let pinned = pss::VerifyingKey::with_params(
        key.public_key().clone(),
        pss::Params::new(HashAlg::Sha384)
            .mgf1_hash(HashAlg::Sha256)
            .salt_len(SaltLength::Auto),
    );
    assert!(pinned.verify(msg, &theirs).is_err());
    pss::VerifyingKey::new(key.public_key().clone(), HashAlg::Sha384)
        .verify(msg, &theirs)
        .unwrap();
}

/// An RSA-PSS key whose minimum salt length does not fit a byte (300,
/// which `openssl genpkey` writes): read, written back byte for byte, and
/// it signs with that salt in a way openssl verifies.
#[test]
fn rsa_pss_keys_with_long_salts() {
    let opts = [
        "-pkeyopt",
        "rsa_keygen_bits:3072",
        "-pkeyopt",
        "rsa_pss_keygen_md:sha256",
        "-pkeyopt",
        "rsa_pss_keygen_mgf1_md:sha256",
        "-pkeyopt",
        "rsa_pss_keygen_saltlen:300",
    ];
    let Some((dir, key_file)) = setup("pss-salt-300", "RSA-PSS", &opts) else {
        return;
    };
    let der = openssl(&["pkey", "-in", &key_file, "-outform", "DER"]).unwrap();
    let key = RsaPrivateKey::from_der(&der).unwrap();
    assert_eq!(&key.to_pkcs8_der().unwrap()[..], &der[..]);
    let KeyAlgorithm::RsaPss(Some(r)) = key.public_key().algorithm() else {
        panic!("not read as a restricted RSA-PSS key");
    };
    assert_eq!(r.min_salt_len, 300);
    let mut rng = ChaCha20Rng::seed_from_u64(300);
    let digest = HashAlg::Sha256.digest(b"long salt");
    let sig = key
        .sign_pss_prehashed_with(&mut rng, &r.params(), &digest)
        .unwrap();
    let (digest_file, sig_file) = (path(&dir, "digest"), path(&dir, "sig"));
    std::fs::write(&digest_file, &digest).unwrap();
    std::fs::write(&sig_file, &sig).unwrap();
    let out = openssl(&[
        "pkeyutl",
        "-verify",
        "-inkey",
        &key_file,
        "-in",
        &digest_file,
        "-sigfile",
        &sig_file,
        "-pkeyopt",
        "digest:sha256",
    ])
    .unwrap();
    assert!(String::from_utf8_lossy(&out).contains("Verified Successfully"));
}
