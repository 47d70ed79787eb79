//! `numcrypt elgamal …` end to end: keys that `openssl pkey` reads (and
//! OpenSSL's Diffie–Hellman keys used here), hybrid encryption, signatures,
//! and the exit statuses 0, 1 and 2.

use crate::common::{assert_owner_only, code, numcrypt, ok, openssl, p, scratch};

#[test]
fn keys_encryption_and_signatures() {
    let dir = scratch("round-trip");
    let (key, public) = (p(&dir, "key.pem"), p(&dir, "pub.pem"));
    let (msg, ct, back, sig) = (
        p(&dir, "msg"),
        p(&dir, "ct"),
        p(&dir, "back"),
        p(&dir, "sig"),
    );
    let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&msg, &data).unwrap();
    for group in ["ffdhe2048", "modp3072", "pm2048"] {
        ok(
            numcrypt(&[
                "elgamal", "keygen", "--group", group, "--out", &key, "--force",
            ]),
            "keygen",
        );
        assert_owner_only(&key);
        ok(
            openssl(&["pkey", "-in", &key, "-check", "-noout"]),
            "openssl checks the key",
        );
        ok(
            numcrypt(&["elgamal", "pubkey", "--in", &key, "--out", &public]),
            "pubkey",
        );
        let theirs = ok(openssl(&["pkey", "-in", &key, "-pubout"]), "openssl pubout");
        assert_eq!(theirs.stdout, std::fs::read(&public).unwrap());

        ok(
            numcrypt(&[
                "elgamal", "encrypt", "--pub", &public, "--aad", "v1", "--in", &msg, "--out", &ct,
            ]),
            "encrypt",
        );
        ok(
            numcrypt(&[
                "elgamal", "decrypt", "--key", &key, "--aad", "v1", "--in", &ct, "--out", &back,
                "--force",
            ]),
            "decrypt",
        );
        assert_eq!(std::fs::read(&back).unwrap(), data, "{group}");
        // Wrong associated data, or a modified ciphertext: an input error.
        let out = numcrypt(&[
            "elgamal", "decrypt", "--key", &key, "--aad", "v2", "--in", &ct,
        ]);
        assert_eq!(code(&out), 2);
        let mut bytes = std::fs::read(&ct).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&ct, &bytes).unwrap();
        assert_eq!(
            code(&numcrypt(&[
                "elgamal", "decrypt", "--key", &key, "--aad", "v1", "--in", &ct
            ])),
            2
        );

        ok(
            numcrypt(&[
                "elgamal", "sign", "--key", &key, "--in", &msg, "--out", &sig,
            ]),
            "sign",
        );
        let out = ok(
            numcrypt(&[
                "elgamal", "verify", "--pub", &public, "--in", &msg, "--sig", &sig,
            ]),
            "verify",
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "Verified OK\n");
        let out = numcrypt(&[
            "elgamal", "verify", "--pub", &public, "--in", &ct, "--sig", &sig,
        ]);
        assert_eq!(code(&out), 1);
        let out = numcrypt(&[
            "elgamal", "verify", "--pub", &public, "--hash", "sha512", "--in", &msg, "--sig", &sig,
        ]);
        assert_eq!(code(&out), 1);
    }
}

#[test]
fn openssl_dh_keys_work_here() {
    let dir = scratch("openssl");
    let (key, public) = (p(&dir, "key.pem"), p(&dir, "pub.pem"));
    let (msg, ct, back) = (p(&dir, "msg"), p(&dir, "ct"), p(&dir, "back"));
    std::fs::write(&msg, b"to an openssl key").unwrap();
    for (algorithm, opt) in [("DHX", "dh_param:ffdhe3072"), ("DH", "group:modp_2048")] {
        ok(
            openssl(&[
                "genpkey",
                "-algorithm",
                algorithm,
                "-pkeyopt",
                opt,
                "-out",
                &key,
            ]),
            "genpkey",
        );
        ok(
            openssl(&["pkey", "-in", &key, "-pubout", "-out", &public]),
            "pubout",
        );
        ok(
            numcrypt(&[
                "elgamal", "encrypt", "--pub", &public, "--in", &msg, "--out", &ct,
            ]),
            "encrypt",
        );
        ok(
            numcrypt(&[
                "elgamal", "decrypt", "--key", &key, "--in", &ct, "--out", &back, "--force",
            ]),
            "decrypt",
        );
        assert_eq!(std::fs::read(&back).unwrap(), b"to an openssl key");
    }
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("errors");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"x").unwrap();
    for args in [
        vec!["elgamal", "keygen", "--group", "ffdhe1024"],
        vec!["elgamal", "keygen", "--bits", "1024"],
        vec!["elgamal", "encrypt", "--pub", "/nonexistent", "--in", &msg],
        vec!["elgamal", "encrypt", "--pub", &msg, "--in", &msg],
        vec!["elgamal", "decrypt", "--key", &msg, "--in", &msg],
        vec![
            "elgamal", "sign", "--key", &msg, "--in", &msg, "--hash", "sha1",
        ],
        vec![
            "elgamal", "verify", "--pub", &msg, "--in", &msg, "--sig", &msg,
        ],
    ] {
        let out = numcrypt(&args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

/// Files of several chunks stream through in both directions, and a file
/// cut at a chunk boundary, or with a chunk moved, is refused, with no
/// `--out` file left behind.
#[test]
fn files_stream_in_chunks_and_truncation_is_detected() {
    const CHUNK: usize = 64 * 1024;
    const SEALED_CHUNK: usize = CHUNK + 16;
    let dir = scratch("stream");
    let (key, public) = (p(&dir, "key.pem"), p(&dir, "pub.pem"));
    ok(numcrypt(&["elgamal", "keygen", "--out", &key]), "keygen");
    ok(
        numcrypt(&["elgamal", "pubkey", "--in", &key, "--out", &public]),
        "pubkey",
    );
    let (msg, ct, back) = (p(&dir, "msg"), p(&dir, "ct"), p(&dir, "back"));
    // 8 bytes of magic and a 256-byte encapsulation (ffdhe2048) come first.
    let header = 8 + 256;
    for len in [0, CHUNK, 3 * CHUNK + 17] {
        let data: Vec<u8> = (0..len).map(|i| (i * 13 % 251) as u8).collect();
        std::fs::write(&msg, &data).unwrap();
        ok(
            numcrypt(&[
                "elgamal", "encrypt", "--pub", &public, "--in", &msg, "--out", &ct,
            ]),
            "encrypt",
        );
        let sealed = std::fs::read(&ct).unwrap();
        let chunks = len.div_ceil(CHUNK).max(1);
        assert_eq!(sealed.len(), header + len + 16 * chunks, "{len}");
        ok(
            numcrypt(&[
                "elgamal", "decrypt", "--key", &key, "--in", &ct, "--out", &back, "--force",
            ]),
            "decrypt",
        );
        assert_eq!(std::fs::read(&back).unwrap(), data, "{len}");
    }
    // The last file (4 chunks): cut after its third chunk, or with its first
    // two chunks swapped.
    let sealed = std::fs::read(&ct).unwrap();
    let cut = &sealed[..header + 3 * SEALED_CHUNK];
    let mut swapped = sealed.clone();
    let (first, second) = (
        header..header + SEALED_CHUNK,
        header + SEALED_CHUNK..header + 2 * SEALED_CHUNK,
    );
    let a = sealed[first.clone()].to_vec();
    swapped[first.start..first.end].copy_from_slice(&sealed[second.clone()]);
    swapped[second].copy_from_slice(&a);
    for bad in [cut.to_vec(), swapped] {
        std::fs::write(&ct, &bad).unwrap();
        let _ = std::fs::remove_file(&back);
        let out = numcrypt(&[
            "elgamal", "decrypt", "--key", &key, "--in", &ct, "--out", &back, "--force",
        ]);
        assert_eq!(code(&out), 2);
        assert!(String::from_utf8_lossy(&out.stderr).contains("decryption failed"));
        assert!(
            !std::path::Path::new(&back).exists(),
            "a partial output was left"
        );
    }
}

/// Files in the one-piece format earlier versions wrote (`PublicKey::seal`)
/// still decrypt.
#[test]
fn one_piece_files_still_decrypt() {
    use numcrypt_elgamal::SecretKey;
    use rand_core::SeedableRng;
    let dir = scratch("one-piece");
    let (key, ct) = (p(&dir, "key.pem"), p(&dir, "ct"));
    ok(numcrypt(&["elgamal", "keygen", "--out", &key]), "keygen");
    let secret = SecretKey::from_pkcs8_pem(&std::fs::read_to_string(&key).unwrap()).unwrap();
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
    let sealed = secret
        .public_key()
        .seal(&mut rng, b"an older file", b"v0")
        .unwrap();
    std::fs::write(&ct, sealed).unwrap();
    let out = ok(
        numcrypt(&[
            "elgamal", "decrypt", "--key", &key, "--aad", "v0", "--in", &ct,
        ]),
        "decrypt",
    );
    assert_eq!(out.stdout, b"an older file");
}
