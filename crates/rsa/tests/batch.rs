//! Batched RSA against the `openssl` command line: PKCS#1 v1.5 batches of
//! 1 to 20 messages byte for byte equal to openssl's signatures (2048
//! bits; a batch of 9 at 3072 and 4096), PSS batches verified by openssl,
//! OAEP and PKCS#1 v1.5 ciphertexts made by openssl decrypted in a batch
//! with bad ones among them (each failing alone), and a batch across keys.
//! Skipped when there is no `openssl`.

use std::process::Command;

use numcrypt_rsa::pss::SaltLength;
use numcrypt_rsa::{Error, HashAlg, KeyAlgorithm, RsaPrivateKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use tempfile::TempDir;

fn have_openssl() -> bool {
    Command::new("openssl").arg("version").output().is_ok()
}

fn openssl(args: &[&str]) -> Vec<u8> {
    let out = Command::new("openssl").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The benches' key of `bits` (PKCS#8 DER), loaded, and its file.
fn bench_key(bits: u32) -> (RsaPrivateKey, String) {
    let file = format!(
        "{}/../../benches/keys/rsa{bits}.pk8.der",
        env!("CARGO_MANIFEST_DIR")
    );
    let key = RsaPrivateKey::from_pkcs8_der(&std::fs::read(&file).unwrap()).unwrap();
    (key, file)
}

fn scratch() -> TempDir {
    tempfile::Builder::new()
        .prefix("numcrypt-rsa-batch-")
        .tempdir()
        .unwrap()
}

fn path(dir: &TempDir, file: &str) -> String {
    dir.path().join(file).display().to_string()
}

/// `count` messages of different lengths (the empty one included).
fn messages(count: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| (0..i * 37).map(|j| (i * 7 + j) as u8).collect())
        .collect()
}

/// openssl's RSASSA-PKCS1-v1_5 SHA-256 signature of each message.
fn openssl_signatures(dir: &TempDir, key_file: &str, msgs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    msgs.iter()
        .map(|m| {
            let msg_file = path(dir, "msg");
            std::fs::write(&msg_file, m).unwrap();
            openssl(&[
                "dgst", "-sha256", "-keyform", "DER", "-sign", key_file, &msg_file,
            ])
        })
        .collect()
}

#[test]
fn pkcs1v15_batches_of_1_to_20_equal_openssl() {
    if !have_openssl() {
        println!("skipped: no openssl command");
        return;
    }
    let dir = scratch();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (key, key_file) = bench_key(2048);
    let msgs = messages(20);
    let expected = openssl_signatures(&dir, &key_file, &msgs);
    for count in 1..=20 {
        let batch: Vec<&[u8]> = msgs[..count].iter().map(Vec::as_slice).collect();
        let sigs = key
            .sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, &batch)
            .unwrap();
        assert_eq!(sigs, expected[..count], "batch of {count}");
    }
    for bits in [3072, 4096] {
        let (key, key_file) = bench_key(bits);
        let msgs = messages(9);
        let expected = openssl_signatures(&dir, &key_file, &msgs);
        let batch: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
        let sigs = key
            .sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, &batch)
            .unwrap();
        assert_eq!(sigs, expected, "{bits} bits");
    }
}

/// Per-request results: a digest of the wrong length fails alone; the
/// call's own errors (SHA-1, an RSA-PSS key) fail it before any work.
#[test]
fn pkcs1v15_batch_each_fails_bad_requests_alone() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let (key, _) = bench_key(2048);
    let good = HashAlg::Sha256.digest(b"good");
    let digests: [&[u8]; 3] = [&good, &good[..31], &good];
    let results = key
        .sign_pkcs1v15_prehashed_batch_each(&mut rng, HashAlg::Sha256, &digests)
        .unwrap();
    let single = key
        .sign_pkcs1v15_prehashed(&mut rng, HashAlg::Sha256, &good)
        .unwrap();
    assert_eq!(results[0].as_ref().unwrap(), &single);
    assert!(matches!(results[1], Err(Error::InvalidLength { .. })));
    assert_eq!(results[2].as_ref().unwrap(), &single);
    assert_eq!(
        key.sign_pkcs1v15_batch(&mut rng, HashAlg::Sha1, &[b"m"]),
        Err(Error::WeakHash)
    );
    let pss_only = key.clone().with_algorithm(KeyAlgorithm::RsaPss(None));
    assert_eq!(
        pss_only.sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, &[b"m"]),
        Err(Error::KeyRestricted)
    );
    assert_eq!(
        key.sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, &[]),
        Ok(Vec::new())
    );
}

#[test]
fn pss_batch_verified_by_openssl() {
    if !have_openssl() {
        println!("skipped: no openssl command");
        return;
    }
    let dir = scratch();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let (key, key_file) = bench_key(2048);
    let msgs = messages(10);
    let batch: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    let sigs = key
        .sign_pss_batch(&mut rng, HashAlg::Sha256, &batch, SaltLength::Digest)
        .unwrap();
    let pub_file = path(&dir, "pub.pem");
    openssl(&[
        "pkey", "-inform", "DER", "-in", &key_file, "-pubout", "-out", &pub_file,
    ]);
    for (i, (m, sig)) in msgs.iter().zip(&sigs).enumerate() {
        let (msg_file, sig_file) = (path(&dir, "msg"), path(&dir, "sig"));
        std::fs::write(&msg_file, m).unwrap();
        std::fs::write(&sig_file, sig).unwrap();
        let out = openssl(&[
            "dgst",
            "-sha256",
            "-sigopt",
            "rsa_padding_mode:pss",
            "-sigopt",
            "rsa_pss_saltlen:32",
            "-verify",
            &pub_file,
            "-signature",
            &sig_file,
            &msg_file,
        ]);
        assert_eq!(out, b"Verified OK\n", "signature {i}");
    }
}

#[test]
fn decryption_batches_of_openssl_ciphertexts() {
    if !have_openssl() {
        println!("skipped: no openssl command");
        return;
    }
    let dir = scratch();
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let (key, key_file) = bench_key(2048);
    let pub_file = path(&dir, "pub.pem");
    openssl(&[
        "pkey", "-inform", "DER", "-in", &key_file, "-pubout", "-out", &pub_file,
    ]);
    let plain: Vec<Vec<u8>> = (0..9).map(|i| vec![i as u8 + 1; 5 + 3 * i]).collect();
    let encrypt = |m: &[u8], opts: &[&str]| {
        let msg_file = path(&dir, "m");
        std::fs::write(&msg_file, m).unwrap();
        let mut args = vec!["pkeyutl", "-encrypt", "-pubin", "-inkey", &pub_file];
        args.extend(opts);
        args.extend(["-in", &msg_file]);
        openssl(&args)
    };
    let oaep = [
        "-pkeyopt",
        "rsa_padding_mode:oaep",
        "-pkeyopt",
        "rsa_oaep_md:sha256",
        "-pkeyopt",
        "rsa_mgf1_md:sha256",
    ];
    let mut cts: Vec<Vec<u8>> = plain.iter().map(|m| encrypt(m, &oaep)).collect();
    // Bad requests among good ones: a wrong length, a value not below n,
    // a corrupted ciphertext.
    cts[2].pop();
    cts[5] = vec![0xff; 256];
    cts[7][100] ^= 1;
    let refs: Vec<&[u8]> = cts.iter().map(Vec::as_slice).collect();
    let out = key
        .decrypt_oaep_batch(&mut rng, HashAlg::Sha256, &[], &refs)
        .unwrap();
    for (i, (r, m)) in out.iter().zip(&plain).enumerate() {
        match i {
            2 => assert!(matches!(r, Err(Error::InvalidLength { .. }))),
            5 => assert_eq!(r.as_ref().unwrap_err(), &Error::OutOfRange),
            7 => assert_eq!(r.as_ref().unwrap_err(), &Error::Decryption),
            _ => assert_eq!(&r.as_ref().unwrap()[..], &m[..], "ciphertext {i}"),
        }
    }

    // PKCS#1 v1.5: the messages, and for a bad padding the synthetic
    // message the single call gives.
    let mut cts: Vec<Vec<u8>> = plain
        .iter()
        .map(|m| encrypt(m, &["-pkeyopt", "rsa_padding_mode:pkcs1"]))
        .collect();
    cts[4][50] ^= 0x80;
    cts[6].pop();
    let refs: Vec<&[u8]> = cts.iter().map(Vec::as_slice).collect();
    let out = key.decrypt_pkcs1v15_batch(&mut rng, &refs).unwrap();
    for (i, (r, m)) in out.iter().zip(&plain).enumerate() {
        let single = key.decrypt_pkcs1v15(&mut rng, &cts[i]);
        assert_eq!(r, &single, "ciphertext {i}");
        match i {
            4 => assert_ne!(&r.as_ref().unwrap()[..], &m[..]),
            6 => assert!(matches!(r, Err(Error::InvalidLength { .. }))),
            _ => assert_eq!(&r.as_ref().unwrap()[..], &m[..], "ciphertext {i}"),
        }
    }
}

/// Requests for different keys in one batch (two 2048-bit keys, a
/// 3072-bit one, an RSA-PSS key that refuses PKCS#1 v1.5): each signature
/// is openssl's, the restricted key's request fails alone.
#[test]
fn batch_across_keys() {
    if !have_openssl() {
        println!("skipped: no openssl command");
        return;
    }
    let dir = scratch();
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let (a, a_file) = bench_key(2048);
    let (b, b_file) = bench_key(3072);
    let other = numcrypt_rsa::KeyGen::new(2048)
        .generate(&mut ChaCha20Rng::seed_from_u64(6))
        .unwrap();
    let pss_only = a.clone().with_algorithm(KeyAlgorithm::RsaPss(None));
    let msgs = messages(11);
    let keys = [
        &a, &other, &b, &a, &pss_only, &other, &a, &b, &a, &other, &a,
    ];
    let requests: Vec<(&RsaPrivateKey, &[u8])> = keys
        .iter()
        .zip(&msgs)
        .map(|(k, m)| (*k, m.as_slice()))
        .collect();
    let out =
        RsaPrivateKey::sign_pkcs1v15_batch_keys(&mut rng, HashAlg::Sha256, &requests).unwrap();
    let expect_a = openssl_signatures(&dir, &a_file, &msgs);
    let expect_b = openssl_signatures(&dir, &b_file, &msgs);
    for (i, (r, key)) in out.iter().zip(keys).enumerate() {
        let sig = || r.as_ref().unwrap().clone();
        match i {
            4 => assert_eq!(r.as_ref().unwrap_err(), &Error::KeyRestricted),
            _ if std::ptr::eq(key, &a) => assert_eq!(sig(), expect_a[i], "request {i}"),
            _ if std::ptr::eq(key, &b) => assert_eq!(sig(), expect_b[i], "request {i}"),
            _ => {
                let single = other.sign_pkcs1v15(&mut rng, HashAlg::Sha256, &msgs[i]);
                assert_eq!(sig(), single.unwrap(), "request {i}");
            }
        }
    }
    assert_eq!(
        RsaPrivateKey::sign_pkcs1v15_batch_keys(&mut rng, HashAlg::Sha1, &requests),
        Err(Error::WeakHash)
    );
}
