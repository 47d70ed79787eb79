//! Interoperability with the `openssl` command line, both ways: parameters
//! and keys made by one are read by the other, and signatures made by one
//! verify in the other (`openssl dsaparam`, `gendsa`, `pkey`,
//! `dgst -sha256 -sign/-verify`).

use std::path::Path;

use crate::common::{genpkey, ok, openssl, path, pubout, read, scratch};
use numcrypt_dsa::{DomainParameters, Error, ParameterSizes, Signature, SigningKey, VerifyingKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::{Sha224, Sha256, Sha384, Sha512};

/// The `openssl dgst` arguments that sign `msg` with `key` into `sig`
/// (`hash_flag`: `-sha256`, …).
fn sign_args<'a>(hash_flag: &'a str, key: &'a Path, sig: &'a Path, msg: &'a Path) -> [&'a str; 7] {
    [
        "dgst",
        hash_flag,
        "-sign",
        path(key),
        "-out",
        path(sig),
        path(msg),
    ]
}

/// The `openssl dgst` arguments that verify `sig` on `msg` under `public`.
fn verify_args<'a>(
    hash_flag: &'a str,
    public: &'a Path,
    sig: &'a Path,
    msg: &'a Path,
) -> [&'a str; 7] {
    [
        "dgst",
        hash_flag,
        "-verify",
        path(public),
        "-signature",
        path(sig),
        path(msg),
    ]
}

#[test]
fn openssl_parameters_and_keys_work_here() {
    let dir = scratch("theirs");
    let msg = dir.join("msg");
    std::fs::write(&msg, b"interoperable message\n").unwrap();
    for (bits, qbits) in [(2048, 224), (2048, 256), (3072, 256)] {
        let params_pem = dir.join(format!("params-{bits}-{qbits}.pem"));
        ok(&[
            "genpkey",
            "-genparam",
            "-algorithm",
            "DSA",
            "-pkeyopt",
            &format!("dsa_paramgen_bits:{bits}"),
            "-pkeyopt",
            &format!("dsa_paramgen_q_bits:{qbits}"),
            "-out",
            path(&params_pem),
        ]);
        let params = DomainParameters::from_pem(&read(&params_pem)).expect("their parameters");
        assert_eq!(params.sizes(), ParameterSizes::new(bits, qbits).unwrap());
        params.validate().expect("p and q prime");

        let key_pem = dir.join(format!("key-{bits}.pem"));
        ok(&["gendsa", "-out", path(&key_pem), path(&params_pem)]);
        let key = SigningKey::from_pem(&read(&key_pem)).expect("their PKCS#8 key");
        assert_eq!(key.params(), &params);
        // Their public key is ours, byte for byte.
        let pub_pem = dir.join(format!("pub-{bits}.pem"));
        pubout(&key_pem, &pub_pem);
        let theirs = VerifyingKey::from_public_key_pem(&read(&pub_pem)).unwrap();
        assert_eq!(&theirs, key.verifying_key());
        assert_eq!(
            key.verifying_key().to_public_key_pem().unwrap(),
            read(&pub_pem)
        );
        // And their traditional format.
        let trad = dir.join(format!("trad-{bits}.pem"));
        ok(&[
            "pkey",
            "-in",
            path(&key_pem),
            "-traditional",
            "-out",
            path(&trad),
        ]);
        assert!(read(&trad).starts_with("-----BEGIN DSA PRIVATE KEY-----"));
        assert_eq!(SigningKey::from_pem(&read(&trad)).unwrap(), key);

        // Their signatures verify here, ours there.
        for hash in ["sha224", "sha256", "sha384", "sha512"] {
            let sig_path = dir.join(format!("sig-{bits}-{hash}"));
            ok(&sign_args(&format!("-{hash}"), &key_pem, &sig_path, &msg));
            let their_sig = std::fs::read(&sig_path).unwrap();
            let m = std::fs::read(&msg).unwrap();
            let result = match hash {
                "sha224" => theirs.verify_der::<Sha224>(&m, &their_sig),
                "sha256" => theirs.verify_der::<Sha256>(&m, &their_sig),
                "sha384" => theirs.verify_der::<Sha384>(&m, &their_sig),
                _ => theirs.verify_der::<Sha512>(&m, &their_sig),
            };
            result.unwrap_or_else(|e| panic!("OpenSSL's {hash} signature: {e}"));

            let ours = match hash {
                "sha224" => key.sign::<Sha224>(&m),
                "sha256" => key.sign::<Sha256>(&m),
                "sha384" => key.sign::<Sha384>(&m),
                _ => key.sign::<Sha512>(&m),
            }
            .unwrap();
            std::fs::write(&sig_path, ours.to_der()).unwrap();
            ok(&verify_args(&format!("-{hash}"), &pub_pem, &sig_path, &msg));
            // A tampered signature is refused there too.
            let mut bad = ours.to_der();
            let last = bad.len() - 1;
            bad[last] ^= 1;
            std::fs::write(&sig_path, bad).unwrap();
            let out = openssl(&verify_args(&format!("-{hash}"), &pub_pem, &sig_path, &msg));
            assert!(!out.status.success());
        }
    }
}

#[test]
fn our_parameters_and_keys_work_in_openssl() {
    let dir = scratch("ours");
    let mut rng = ChaCha20Rng::seed_from_u64(99);
    let msg = dir.join("msg");
    std::fs::write(&msg, b"numcrypt signed this\n").unwrap();
    for sizes in [ParameterSizes::L2048N224, ParameterSizes::L2048N256] {
        let params = DomainParameters::generate(sizes, &mut rng).unwrap();
        let params_pem = dir.join(format!("params-{}.pem", sizes.n()));
        std::fs::write(&params_pem, params.to_pem()).unwrap();
        // OpenSSL reads the parameters (skipping the seed block) and finds
        // them valid.
        let text = ok(&["dsaparam", "-in", path(&params_pem), "-noout", "-text"]);
        assert!(String::from_utf8_lossy(&text.stdout).contains(&format!("({} bit)", sizes.l())));
        ok(&["pkeyparam", "-in", path(&params_pem), "-check", "-noout"]);

        // It makes a key from them that we can use.
        let their_key = dir.join(format!("their-key-{}.pem", sizes.n()));
        ok(&["gendsa", "-out", path(&their_key), path(&params_pem)]);
        let k = SigningKey::from_pem(&read(&their_key)).unwrap();
        assert_eq!(k.params(), &params);

        // Our key: OpenSSL checks it and derives the same public key.
        let key = SigningKey::generate(&params, &mut rng).unwrap();
        let key_pem = dir.join(format!("key-{}.pem", sizes.n()));
        std::fs::write(&key_pem, key.to_pkcs8_pem().unwrap().as_bytes()).unwrap();
        ok(&["pkey", "-in", path(&key_pem), "-check", "-noout"]);
        let pub_pem = dir.join(format!("pub-{}.pem", sizes.n()));
        pubout(&key_pem, &pub_pem);
        assert_eq!(
            read(&pub_pem),
            key.verifying_key().to_public_key_pem().unwrap()
        );
        ok(&[
            "pkey",
            "-pubin",
            "-in",
            path(&pub_pem),
            "-pubcheck",
            "-noout",
        ]);

        // Our signature verifies there; theirs here.
        let m = std::fs::read(&msg).unwrap();
        let sig_path = dir.join(format!("sig-{}", sizes.n()));
        std::fs::write(&sig_path, key.sign::<Sha256>(&m).unwrap().to_der()).unwrap();
        ok(&verify_args("-sha256", &pub_pem, &sig_path, &msg));
        ok(&sign_args("-sha256", &key_pem, &sig_path, &msg));
        let sig = Signature::from_der(&std::fs::read(&sig_path).unwrap()).unwrap();
        key.verifying_key().verify::<Sha256>(&m, &sig).unwrap();
        assert_eq!(
            key.verifying_key().verify::<Sha256>(b"other", &sig),
            Err(Error::InvalidSignature)
        );
    }
}

#[test]
fn openssl_dsaparam_default_parameters() {
    // `openssl dsaparam 2048` makes (2048, 224) parameters by FIPS 186-4.
    let dir = scratch("dsaparam");
    let params_pem = dir.join("params.pem");
    ok(&["dsaparam", "-out", path(&params_pem), "2048"]);
    let params = DomainParameters::from_pem(&read(&params_pem)).unwrap();
    assert_eq!(params.sizes(), ParameterSizes::L2048N224);
    params.validate().unwrap();
    // A non-DSA key is refused with a typed error.
    let rsa = dir.join("rsa.pem");
    genpkey("RSA", "rsa_keygen_bits:1024", &rsa);
    assert_eq!(
        SigningKey::from_pem(&read(&rsa)).unwrap_err(),
        Error::UnsupportedAlgorithm
    );
    let rsa_pub = dir.join("rsa-pub.pem");
    pubout(&rsa, &rsa_pub);
    assert_eq!(
        VerifyingKey::from_public_key_pem(&read(&rsa_pub)).unwrap_err(),
        Error::UnsupportedAlgorithm
    );
}

/// The RustCrypto traits on OpenSSL's keys and signatures: `pkcs8` and
/// `spki` read and write what `openssl` does, the plain `Signer` and
/// `Verifier` use the hash OpenSSL uses by default for `N`, and the digest
/// traits any other.
#[test]
fn rustcrypto_traits_interoperate_with_openssl() {
    use pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
    use sha2::Digest;
    use signature::{DigestSigner, DigestVerifier, Keypair, RandomizedSigner, Signer, Verifier};
    use spki::{DecodePublicKey, EncodePublicKey};

    fn zeroized_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    zeroized_on_drop::<SigningKey>();

    let dir = scratch("traits");
    let msg = dir.join("msg");
    let m = b"signed through the signature traits\n";
    std::fs::write(&msg, m).unwrap();
    for (qbits, default_hash) in [(224, "-sha224"), (256, "-sha256")] {
        let key_pem = dir.join(format!("key-{qbits}.pem"));
        ok(&[
            "genpkey",
            "-paramfile",
            path(&{
                let params = dir.join(format!("params-{qbits}.pem"));
                ok(&[
                    "genpkey",
                    "-genparam",
                    "-algorithm",
                    "DSA",
                    "-pkeyopt",
                    "dsa_paramgen_bits:2048",
                    "-pkeyopt",
                    &format!("dsa_paramgen_q_bits:{qbits}"),
                    "-out",
                    path(&params),
                ]);
                params
            }),
            "-out",
            path(&key_pem),
        ]);
        let pub_pem = dir.join(format!("pub-{qbits}.pem"));
        pubout(&key_pem, &pub_pem);
        let key = <SigningKey as DecodePrivateKey>::from_pkcs8_pem(&read(&key_pem))
            .expect("DecodePrivateKey");
        let public = <VerifyingKey as DecodePublicKey>::from_public_key_pem(&read(&pub_pem))
            .expect("DecodePublicKey");
        assert_eq!(key.verifying_key(), &public);
        assert_eq!(Keypair::verifying_key(&key), public);
        // Written back, byte for byte what openssl wrote.
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

        // Signer: deterministic, verified by openssl with its default hash.
        let sig_path = dir.join(format!("sig-{qbits}"));
        let sig: Signature = Signer::sign(&key, m);
        assert_eq!(Signer::sign(&key, m), sig);
        std::fs::write(&sig_path, sig.to_der()).unwrap();
        ok(&verify_args(default_hash, &pub_pem, &sig_path, &msg));
        // RandomizedSigner: a different signature, still valid there.
        let mut rng = ChaCha20Rng::seed_from_u64(qbits as u64);
        let randomized: Signature = RandomizedSigner::sign_with_rng(&key, &mut rng, m);
        assert_ne!(randomized, sig);
        std::fs::write(&sig_path, randomized.to_der()).unwrap();
        ok(&verify_args(default_hash, &pub_pem, &sig_path, &msg));
        // DigestSigner with SHA-512, verified there with -sha512.
        let digest_sig: Signature = key.sign_digest(|d: &mut Sha512| Digest::update(d, m));
        std::fs::write(&sig_path, digest_sig.to_der()).unwrap();
        ok(&verify_args("-sha512", &pub_pem, &sig_path, &msg));

        // Theirs verify here: the default hash by Verifier, SHA-384 by
        // DigestVerifier; a different message does not.
        ok(&sign_args(default_hash, &key_pem, &sig_path, &msg));
        let theirs = Signature::try_from(std::fs::read(&sig_path).unwrap().as_slice()).unwrap();
        Verifier::verify(&public, m, &theirs).expect("their signature");
        assert!(Verifier::verify(&public, b"other", &theirs).is_err());
        ok(&sign_args("-sha384", &key_pem, &sig_path, &msg));
        let theirs = Signature::try_from(std::fs::read(&sig_path).unwrap().as_slice()).unwrap();
        public
            .verify_digest(
                |d: &mut Sha384| {
                    Digest::update(d, m);
                    Ok(())
                },
                &theirs,
            )
            .expect("their SHA-384 signature");
        assert!(Verifier::verify(&public, m, &theirs).is_err());
    }
    // Not a DSA key: the pkcs8 error names the algorithm's OID.
    let rsa = dir.join("rsa.pem");
    genpkey("RSA", "rsa_keygen_bits:1024", &rsa);
    assert!(matches!(
        <SigningKey as DecodePrivateKey>::from_pkcs8_pem(&read(&rsa)),
        Err(pkcs8::Error::PublicKey(spki::Error::OidUnknown { .. }))
    ));
}
