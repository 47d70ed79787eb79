//! `numcrypt elgamal …` end to end: keys that `openssl pkey` reads (and
//! OpenSSL's Diffie–Hellman keys used here), hybrid encryption, signatures,
//! and the exit statuses 0, 1 and 2.

mod common;

use common::{assert_owner_only, code, numcrypt, ok, openssl, p, scratch};

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
            numcrypt(&["elgamal", "keygen", "--group", group, "--out", &key]),
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
                "elgamal", "decrypt", "--key", &key, "--in", &ct, "--out", &back,
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
