//! `numcrypt dsa …` end to end against the real `openssl` command line, in
//! each direction: parameters and keys made by one load in the other, and
//! signatures made by one verify in the other; exit statuses 0, 1 and 2.

use crate::common::{assert_owner_only, code, numcrypt, ok, openssl, p, scratch, text};

#[test]
fn numcrypt_keys_and_signatures_work_in_openssl() {
    let dir = scratch("ours");
    let (params, key, public) = (
        p(&dir, "params.pem"),
        p(&dir, "key.pem"),
        p(&dir, "pub.pem"),
    );
    let (msg, sig) = (p(&dir, "msg"), p(&dir, "sig"));
    std::fs::write(&msg, b"a message for DSA\n").unwrap();
    ok(
        numcrypt(&[
            "dsa", "params", "--bits", "2048", "--qbits", "256", "--out", &params,
        ]),
        "params",
    );
    let text = ok(
        openssl(&["dsaparam", "-in", &params, "-noout", "-text"]),
        "dsaparam",
    );
    assert!(String::from_utf8_lossy(&text.stdout).contains("(2048 bit)"));
    ok(
        openssl(&["pkeyparam", "-in", &params, "-check", "-noout"]),
        "pkeyparam -check",
    );
    ok(
        numcrypt(&["dsa", "keygen", "--params", &params, "--out", &key]),
        "keygen",
    );
    assert_owner_only(&key);
    ok(
        openssl(&["pkey", "-in", &key, "-check", "-noout"]),
        "pkey -check",
    );
    ok(
        numcrypt(&["dsa", "pubkey", "--in", &key, "--out", &public]),
        "pubkey",
    );
    let theirs = ok(openssl(&["pkey", "-in", &key, "-pubout"]), "pubout");
    assert_eq!(theirs.stdout, std::fs::read(&public).unwrap());
    for hash in ["sha224", "sha256", "sha384", "sha512"] {
        ok(
            numcrypt(&[
                "dsa", "sign", "--key", &key, "--hash", hash, "--in", &msg, "--out", &sig,
            ]),
            "sign",
        );
        ok(
            openssl(&[
                "dgst",
                &format!("-{hash}"),
                "-verify",
                &public,
                "-signature",
                &sig,
                &msg,
            ]),
            "openssl verifies numcrypt's signature",
        );
        ok(
            openssl(&[
                "dgst",
                &format!("-{hash}"),
                "-sign",
                &key,
                "-out",
                &sig,
                &msg,
            ]),
            "openssl sign",
        );
        let out = ok(
            numcrypt(&[
                "dsa", "verify", "--pub", &public, "--hash", hash, "--in", &msg, "--sig", &sig,
            ]),
            "numcrypt verifies openssl's signature",
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "Verified OK\n");
    }
    // Deterministic by default, different each time with --randomized.
    let sign = |extra: &[&str]| {
        let mut args = vec!["dsa", "sign", "--key", &key, "--in", &msg];
        args.extend_from_slice(extra);
        ok(numcrypt(&args), "sign").stdout
    };
    assert_eq!(sign(&[]), sign(&[]));
    assert_ne!(sign(&["--randomized"]), sign(&["--randomized"]));
    // P1363 signatures: 64 bytes at N = 256.
    let raw = sign(&["--format", "p1363"]);
    assert_eq!(raw.len(), 64);
    std::fs::write(&sig, &raw).unwrap();
    ok(
        numcrypt(&[
            "dsa", "verify", "--pub", &public, "--format", "p1363", "--in", &msg, "--sig", &sig,
        ]),
        "p1363 verify",
    );
    // The private key works as a public key too.
    ok(
        numcrypt(&[
            "dsa", "verify", "--pub", &key, "--format", "p1363", "--in", &msg, "--sig", &sig,
        ]),
        "verify with the private key file",
    );
}

#[test]
fn openssl_parameters_and_keys_work_here() {
    let dir = scratch("theirs");
    let (params, key, public) = (
        p(&dir, "params.pem"),
        p(&dir, "key.pem"),
        p(&dir, "pub.pem"),
    );
    let (msg, sig) = (p(&dir, "msg"), p(&dir, "sig"));
    std::fs::write(&msg, b"signed by numcrypt with an openssl key\n").unwrap();
    ok(openssl(&["dsaparam", "-out", &params, "2048"]), "dsaparam");
    // numcrypt validates OpenSSL's parameters and makes a key from them.
    ok(
        numcrypt(&["dsa", "keygen", "--params", &params, "--out", &key]),
        "keygen",
    );
    ok(
        openssl(&["pkey", "-in", &key, "-check", "-noout"]),
        "pkey -check",
    );
    // And uses OpenSSL's own keys.
    ok(openssl(&["gendsa", "-out", &key, &params]), "gendsa");
    ok(
        openssl(&["pkey", "-in", &key, "-pubout", "-out", &public]),
        "pubout",
    );
    let mine = ok(numcrypt(&["dsa", "pubkey", "--in", &key]), "pubkey");
    assert_eq!(mine.stdout, std::fs::read(&public).unwrap());
    ok(
        numcrypt(&["dsa", "sign", "--key", &key, "--in", &msg, "--out", &sig]),
        "sign",
    );
    ok(
        openssl(&[
            "dgst",
            "-sha256",
            "-verify",
            &public,
            "-signature",
            &sig,
            &msg,
        ]),
        "openssl verify",
    );
    // Older systems' SHA-1 signatures verify; numcrypt makes none.
    let sig1 = p(&dir, "sig-sha1");
    ok(
        openssl(&["dgst", "-sha1", "-sign", &key, "-out", &sig1, &msg]),
        "openssl sign -sha1",
    );
    ok(
        numcrypt(&[
            "dsa", "verify", "--pub", &public, "--hash", "sha1", "--in", &msg, "--sig", &sig1,
        ]),
        "verify --hash sha1",
    );
    let refused = numcrypt(&["dsa", "sign", "--key", &key, "--hash", "sha1", "--in", &msg]);
    assert_eq!(code(&refused), 2, "sign --hash sha1");
}

#[test]
fn exit_statuses() {
    let dir = scratch("status");
    let (params, key, public) = (
        p(&dir, "params.pem"),
        p(&dir, "key.pem"),
        p(&dir, "pub.pem"),
    );
    let (msg, sig) = (p(&dir, "msg"), p(&dir, "sig"));
    std::fs::write(&msg, b"original").unwrap();
    ok(
        openssl(&[
            "genpkey",
            "-genparam",
            "-algorithm",
            "DSA",
            "-pkeyopt",
            "dsa_paramgen_bits:2048",
            "-out",
            &params,
        ]),
        "params",
    );
    ok(openssl(&["gendsa", "-out", &key, &params]), "gendsa");
    ok(
        numcrypt(&["dsa", "pubkey", "--in", &key, "--out", &public]),
        "pubkey",
    );
    ok(
        numcrypt(&["dsa", "sign", "--key", &key, "--in", &msg, "--out", &sig]),
        "sign",
    );
    let verify = |msg: &str, sig: &str| {
        numcrypt(&["dsa", "verify", "--pub", &public, "--in", msg, "--sig", sig])
    };
    assert_eq!(code(&verify(&msg, &sig)), 0);
    // An invalid signature: 1.
    std::fs::write(&msg, b"modified").unwrap();
    let out = verify(&msg, &sig);
    assert_eq!(code(&out), 1);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Verification failure"));
    // A malformed signature is invalid too: 1.
    std::fs::write(&sig, b"\x30\x03\x02\x01").unwrap();
    assert_eq!(code(&verify(&msg, &sig)), 1);
    // Usage and input errors: 2, with one line on standard error.
    for args in [
        vec![
            "dsa",
            "verify",
            "--pub",
            "/nonexistent.pem",
            "--in",
            &msg,
            "--sig",
            &sig,
        ],
        vec![
            "dsa", "verify", "--pub", &public, "--in", &msg, "--sig", &sig, "--hash", "md5",
        ],
        vec!["dsa", "params", "--bits", "1024", "--qbits", "160"],
        vec!["dsa", "params", "--bits", "2048", "--qbits", "160"],
        vec!["dsa", "keygen", "--params", &msg],
        vec!["dsa", "sign", "--key", &public, "--in", &msg],
        vec!["dsa", "sign", "--key", &key],
    ] {
        let out = numcrypt(&args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    // A hash shorter than q is blamed on --hash, not on the sizes.
    let out = numcrypt(&["dsa", "params", "--hash", "sha224"]);
    assert_eq!(code(&out), 2);
    assert!(
        text(&out.stderr).starts_with("numcrypt: error: --hash sha224:"),
        "{}",
        text(&out.stderr)
    );
}
