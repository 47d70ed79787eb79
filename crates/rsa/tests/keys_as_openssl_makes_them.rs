//! Keys as people have them, against the `openssl` command line: OpenSSL's
//! multi-prime keys (`rsa_keygen_primes`, PKCS#8 and PKCS#1) sign and
//! decrypt as openssl does and are written back byte for byte; 1024-bit
//! keys do so only with the opt-in. Skipped when there is no `openssl`.

use numcrypt_rsa::pss::{self, SaltLength};
use numcrypt_rsa::signature::RandomizedSigner;
use numcrypt_rsa::{Error, HashAlg, RsaPrivateKey, oaep, pkcs1v15};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use tempfile::TempDir;

use crate::common::{openssl, path, setup};

/// An openssl key of `bits` bits and `primes` primes, with its public key
/// file, or `None` without openssl.
fn openssl_key(name: &str, bits: u32, primes: usize) -> Option<(TempDir, String, String)> {
    let (bits, primes) = (
        format!("rsa_keygen_bits:{bits}"),
        format!("rsa_keygen_primes:{primes}"),
    );
    let (dir, key) = setup(name, "RSA", &["-pkeyopt", &bits, "-pkeyopt", &primes])?;
    let public = path(&dir, "pub.pem");
    openssl(&["pkey", "-in", &key, "-pubout", "-out", &public])?;
    Some((dir, key, public))
}

/// `key` (read from openssl's `key_file`) signs PKCS#1 v1.5 with openssl's
/// bytes, signs PSS that openssl verifies, and decrypts what openssl
/// encrypted, OAEP and PKCS#1 v1.5.
fn signs_and_decrypts_as_openssl(name: &str, dir: &TempDir, key: &RsaPrivateKey, files: [&str; 2]) {
    let [key_file, pub_file] = files;
    let mut rng = ChaCha20Rng::seed_from_u64(35);
    let msg = format!("signed by a {name} key");
    let msg_file = path(dir, "msg");
    std::fs::write(&msg_file, &msg).unwrap();
    for (hash, flag) in [(HashAlg::Sha256, "-sha256"), (HashAlg::Sha512, "-sha512")] {
        let expected = openssl(&["dgst", flag, "-sign", key_file, &msg_file]).unwrap();
        let ours = key.sign_pkcs1v15(&mut rng, hash, msg.as_bytes()).unwrap();
        assert_eq!(ours, expected, "{name}: PKCS#1 v1.5 {hash}");
        let signer = pkcs1v15::SigningKey::try_new(key.clone(), hash).unwrap();
        let sig = signer.sign_with_rng(&mut rng, msg.as_bytes());
        assert_eq!(sig.as_bytes(), &expected[..], "{name}: SigningKey {hash}");
    }
    let sig = key
        .sign_pss(&mut rng, HashAlg::Sha384, msg.as_bytes(), SaltLength::Max)
        .unwrap();
    let sig_file = path(dir, "pss.sig");
    std::fs::write(&sig_file, &sig).unwrap();
    let verified = openssl(&[
        "dgst",
        "-sha384",
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_pss_saltlen:auto",
        "-verify",
        pub_file,
        "-signature",
        &sig_file,
        &msg_file,
    ])
    .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&verified).trim(),
        "Verified OK",
        "{name}"
    );
    let signer = pss::SigningKey::try_new(key.clone(), HashAlg::Sha256).unwrap();
    signer.sign_with_rng(&mut rng, msg.as_bytes());

    let secret = format!("a secret for the {name} key");
    let secret_file = path(dir, "secret");
    std::fs::write(&secret_file, &secret).unwrap();
    let encrypt = |opts: &[&str]| {
        let mut args = vec!["pkeyutl", "-encrypt", "-pubin", "-inkey", pub_file];
        args.extend(opts);
        args.extend(["-in", &secret_file]);
        openssl(&args).unwrap()
    };
    let ct = encrypt(&[
        "-pkeyopt",
        "rsa_padding_mode:oaep",
        "-pkeyopt",
        "rsa_oaep_md:sha256",
    ]);
    let params = oaep::Params::new(HashAlg::Sha256);
    let plain = key.decrypt_oaep_with(&mut rng, &params, &ct).unwrap();
    assert_eq!(&plain[..], secret.as_bytes(), "{name}: OAEP");
    let ct = encrypt(&[]);
    let plain = key.decrypt_pkcs1v15(&mut rng, &ct).unwrap();
    assert_eq!(&plain[..], secret.as_bytes(), "{name}: PKCS#1 v1.5");
}

/// OpenSSL's multi-prime keys, as PKCS#8 and PKCS#1, PEM and DER: read
/// into the same key with all its primes, written back byte for byte as
/// openssl writes them, and used as openssl uses them. 3 primes at 2048
/// and 3072 bits, 4 at 4096 (the most OpenSSL makes at that size).
#[test]
fn multi_prime_keys_sign_and_decrypt_as_openssl() {
    for (bits, primes) in [(2048, 3), (3072, 3), (4096, 4)] {
        let name = format!("{bits}-bit {primes}-prime");
        let Some((dir, key_file, pub_file)) =
            openssl_key(&format!("multi-prime-{bits}"), bits, primes)
        else {
            return;
        };
        // (`pkey -outform DER` writes PKCS#1 for an RSA key.)
        let pkcs8_der = openssl(&[
            "pkcs8", "-topk8", "-nocrypt", "-in", &key_file, "-outform", "DER",
        ])
        .unwrap();
        let pkcs1_der = openssl(&["pkey", "-in", &key_file, "-outform", "DER"]).unwrap();
        let pkcs1_pem = openssl(&["pkey", "-in", &key_file, "-traditional"]).unwrap();
        let pkcs1_pem = String::from_utf8(pkcs1_pem).unwrap();
        assert!(pkcs1_pem.starts_with("-----BEGIN RSA PRIVATE KEY-----"));
        let key = RsaPrivateKey::from_pem(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
        assert_eq!(key.prime_count(), primes, "{name}");
        assert_eq!(key.other_primes().len(), primes - 2, "{name}");
        for other in [
            RsaPrivateKey::from_der(&pkcs8_der),
            RsaPrivateKey::from_der(&pkcs1_der),
            RsaPrivateKey::from_pkcs1_der(&pkcs1_der),
            RsaPrivateKey::from_pem(&pkcs1_pem),
        ] {
            assert_eq!(other.unwrap(), key, "{name}");
        }
        assert_eq!(&key.to_pkcs8_der().unwrap()[..], &pkcs8_der[..], "{name}");
        assert_eq!(&key.to_pkcs1_der().unwrap()[..], &pkcs1_der[..], "{name}");
        assert_eq!(&key.to_pkcs1_pem().unwrap()[..], &pkcs1_pem[..], "{name}");
        signs_and_decrypts_as_openssl(&name, &dir, &key, [&key_file, &pub_file]);
    }
}

/// OpenSSL's 1024-bit keys (two primes and three): read and their public
/// keys usable without asking, but signing and decryption are
/// `Error::WeakKey` until the key is opted in with `allow_weak_key`; then
/// they sign and decrypt as openssl does.
#[test]
fn weak_keys_sign_and_decrypt_as_openssl_with_the_opt_in() {
    for primes in [2, 3] {
        let name = format!("1024-bit {primes}-prime");
        let Some((dir, key_file, pub_file)) = openssl_key(&format!("weak-{primes}"), 1024, primes)
        else {
            return;
        };
        let key = RsaPrivateKey::from_pem(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(1024);
        let weak = Error::WeakKey {
            bits: 1024,
            min: 2048,
        };
        assert_eq!(
            key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"m")
                .unwrap_err(),
            weak
        );
        assert_eq!(key.decrypt_pkcs1v15(&mut rng, &[1; 128]).unwrap_err(), weak);
        assert_eq!(
            pkcs1v15::SigningKey::try_new(key.clone(), HashAlg::Sha256).unwrap_err(),
            weak
        );
        let key = key.allow_weak_key();
        signs_and_decrypts_as_openssl(&name, &dir, &key, [&key_file, &pub_file]);
    }
}
