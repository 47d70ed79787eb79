//! `numcrypt rsa …` end to end against the real `openssl` command line, in
//! each direction: keys made by one load in the other, signatures made by
//! one verify in the other, OAEP ciphertexts decrypt both ways.

use std::path::Path;

use crate::common::{
    assert_owner_only, numcrypt, ok, openssl, openssl_or_skip, openssl_rsa_key, p, scratch, text,
};

/// A numcrypt key and an openssl key (2048 bits), with their SPKI PEMs.
fn keys(dir: &Path) -> [(String, String); 2] {
    let (nk, npub) = (p(dir, "numcrypt.pem"), p(dir, "numcrypt.pub"));
    ok(
        numcrypt(&["rsa", "keygen", "--out", &nk]),
        "numcrypt keygen",
    );
    ok(
        numcrypt(&["rsa", "pubkey", "--in", &nk, "--out", &npub]),
        "numcrypt pubkey",
    );
    [(nk, npub), openssl_rsa_key(dir, "openssl")]
}

/// `--exponent` reads decimal and 0x hexadecimal, and its errors name it.
#[test]
fn keygen_exponent_in_either_base() {
    for (flag, e) in [("65539", 65539u32), ("0x10001", 65537)] {
        let out = numcrypt(&["rsa", "keygen", "--bits", "2048", "--exponent", flag]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let dir = scratch(&format!("exponent-{e}"));
        let key = p(&dir, "key.pem");
        std::fs::write(&key, &out.stdout).unwrap();
        let t = openssl(&["pkey", "-in", &key, "-noout", "-text"]);
        assert!(
            text(&t.stdout).contains(&format!("publicExponent: {e} ")),
            "{e}"
        );
    }
    let out = numcrypt(&["rsa", "keygen", "--exponent", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("numcrypt: error: --exponent 3: "));
    let out = numcrypt(&["rsa", "keygen", "--exponent", "0x1g"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--exponent"));
}

#[test]
fn keys_interoperate() {
    if !openssl_or_skip("keys_interoperate") {
        return;
    }
    let dir = scratch("keys");
    let [(nk, npub), (ok_, opub)] = keys(&dir);
    // openssl checks numcrypt's key (p, q prime, d·e ≡ 1, CRT values) and
    // derives the same public key, byte for byte.
    let check = ok(
        openssl(&["pkey", "-in", &nk, "-check", "-noout"]),
        "openssl pkey -check",
    );
    assert!(text(&check.stdout).contains("Key is valid"));
    let text_out = ok(
        openssl(&["pkey", "-in", &nk, "-text", "-noout"]),
        "openssl pkey -text",
    );
    assert!(text(&text_out.stdout).contains("Private-Key: (2048 bit, 2 primes)"));
    assert!(text(&text_out.stdout).contains("publicExponent: 65537"));
    let derived = ok(openssl(&["pkey", "-in", &nk, "-pubout"]), "openssl pubout");
    assert_eq!(derived.stdout, std::fs::read(&npub).unwrap());
    // numcrypt derives the same public key as openssl from openssl's key.
    let mine = ok(
        numcrypt(&["rsa", "pubkey", "--in", &ok_]),
        "numcrypt pubkey of openssl key",
    );
    assert_eq!(mine.stdout, std::fs::read(&opub).unwrap());
    // PKCS#1 ("traditional") PEM and DER keys load too.
    let trad = p(&dir, "trad.pem");
    ok(
        openssl(&["pkey", "-in", &ok_, "-traditional", "-out", &trad]),
        "openssl -traditional",
    );
    assert!(
        std::fs::read_to_string(&trad)
            .unwrap()
            .starts_with("-----BEGIN RSA PRIVATE KEY-----")
    );
    let der = p(&dir, "key.der");
    ok(
        openssl(&["pkey", "-in", &ok_, "-outform", "DER", "-out", &der]),
        "openssl DER",
    );
    for key in [&trad, &der] {
        let out = ok(numcrypt(&["rsa", "pubkey", "--in", key]), "numcrypt pubkey");
        assert_eq!(out.stdout, std::fs::read(&opub).unwrap(), "{key}");
    }
    // The private key file is not readable by others.
    assert_owner_only(&nk);
}

#[test]
fn signatures_interoperate() {
    if !openssl_or_skip("signatures_interoperate") {
        return;
    }
    let dir = scratch("sig");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"The quick brown fox jumps over the lazy dog\n").unwrap();
    for (key, public) in keys(&dir) {
        for hash in ["sha256", "sha384", "sha512"] {
            let dgst = format!("-{hash}");
            // PKCS#1 v1.5: deterministic, so both produce the same bytes.
            let (ns, os) = (p(&dir, "n.sig"), p(&dir, "o.sig"));
            ok(
                numcrypt(&[
                    "rsa", "sign", "--key", &key, "--hash", hash, "--in", &msg, "--out", &ns,
                ]),
                "numcrypt sign",
            );
            ok(
                openssl(&["dgst", &dgst, "-sign", &key, "-out", &os, &msg]),
                "openssl sign",
            );
            assert_eq!(
                std::fs::read(&ns).unwrap(),
                std::fs::read(&os).unwrap(),
                "{hash}"
            );
            let v = ok(
                openssl(&["dgst", &dgst, "-verify", &public, "-signature", &ns, &msg]),
                "openssl verify",
            );
            assert!(text(&v.stdout).contains("Verified OK"));
            let v = ok(
                numcrypt(&[
                    "rsa", "verify", "--pub", &public, "--hash", hash, "--in", &msg, "--sig", &os,
                ]),
                "numcrypt verify",
            );
            assert_eq!(text(&v.stdout), "Verified OK\n");

            // PSS, salt as long as the digest, through pkeyutl.
            let pss = [
                "-pkeyopt",
                "rsa_padding_mode:pss",
                "-pkeyopt",
                "rsa_pss_saltlen:digest",
            ];
            let digest = p(&dir, "digest");
            ok(
                openssl(&["dgst", &dgst, "-binary", "-out", &digest, &msg]),
                "openssl digest",
            );
            let md = format!("digest:{hash}");
            ok(
                numcrypt(&[
                    "rsa", "sign", "--key", &key, "--scheme", "pss", "--hash", hash, "--in", &msg,
                    "--out", &ns,
                ]),
                "numcrypt pss sign",
            );
            let mut args = vec![
                "pkeyutl", "-verify", "-pubin", "-inkey", &public, "-in", &digest, "-sigfile", &ns,
                "-pkeyopt", &md,
            ];
            args.extend(pss);
            let v = ok(openssl(&args), "openssl pss verify");
            assert!(text(&v.stdout).contains("Signature Verified Successfully"));
            let mut args = vec![
                "pkeyutl", "-sign", "-inkey", &key, "-in", &digest, "-out", &os, "-pkeyopt", &md,
            ];
            args.extend(pss);
            ok(openssl(&args), "openssl pss sign");
            ok(
                numcrypt(&[
                    "rsa", "verify", "--pub", &public, "--scheme", "pss", "--hash", hash, "--in",
                    &msg, "--sig", &os,
                ]),
                "numcrypt pss verify",
            );
            // openssl dgst's own PSS default (maximal salt) verifies with
            // --salt-len auto (and max), not with digest.
            ok(
                openssl(&[
                    "dgst",
                    &dgst,
                    "-sign",
                    &key,
                    "-sigopt",
                    "rsa_padding_mode:pss",
                    "-out",
                    &os,
                    &msg,
                ]),
                "openssl dgst pss",
            );
            for salt in ["auto", "max"] {
                ok(
                    numcrypt(&[
                        "rsa",
                        "verify",
                        "--pub",
                        &public,
                        "--scheme",
                        "pss",
                        "--salt-len",
                        salt,
                        "--hash",
                        hash,
                        "--in",
                        &msg,
                        "--sig",
                        &os,
                    ]),
                    "numcrypt verify max salt",
                );
            }
            // Without --salt-len the salt length is read from the
            // signature, as openssl does; a fixed one must match it.
            ok(
                numcrypt(&[
                    "rsa", "verify", "--pub", &public, "--scheme", "pss", "--hash", hash, "--in",
                    &msg, "--sig", &os,
                ]),
                "numcrypt verify auto salt",
            );
            let v = numcrypt(&[
                "rsa",
                "verify",
                "--pub",
                &public,
                "--scheme",
                "pss",
                "--salt-len",
                "digest",
                "--hash",
                hash,
                "--in",
                &msg,
                "--sig",
                &os,
            ]);
            assert_eq!(v.status.code(), Some(1));
        }
    }
}

#[test]
fn oaep_interoperates() {
    if !openssl_or_skip("oaep_interoperates") {
        return;
    }
    let dir = scratch("oaep");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"attack at dawn").unwrap();
    for (key, public) in keys(&dir) {
        for (hash, label) in [
            ("sha256", ""),
            ("sha256", "a label"),
            ("sha384", "x"),
            ("sha512", ""),
        ] {
            let mut opts = vec![
                "-pkeyopt".to_owned(),
                "rsa_padding_mode:oaep".to_owned(),
                "-pkeyopt".to_owned(),
                format!("rsa_oaep_md:{hash}"),
                "-pkeyopt".to_owned(),
                format!("rsa_mgf1_md:{hash}"),
            ];
            if !label.is_empty() {
                opts.push("-pkeyopt".to_owned());
                opts.push(format!("rsa_oaep_label:{}", hex::encode(label)));
            }
            let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
            let (nc, oc) = (p(&dir, "n.ct"), p(&dir, "o.ct"));
            ok(
                numcrypt(&[
                    "rsa", "encrypt", "--pub", &public, "--hash", hash, "--label", label, "--in",
                    &msg, "--out", &nc,
                ]),
                "numcrypt encrypt",
            );
            let mut args = vec!["pkeyutl", "-decrypt", "-inkey", &key, "-in", &nc];
            args.extend(&opts);
            let d = ok(openssl(&args), "openssl decrypt");
            assert_eq!(d.stdout, b"attack at dawn", "{hash} {label:?}");
            let mut args = vec![
                "pkeyutl", "-encrypt", "-pubin", "-inkey", &public, "-in", &msg, "-out", &oc,
            ];
            args.extend(&opts);
            ok(openssl(&args), "openssl encrypt");
            let d = ok(
                numcrypt(&[
                    "rsa", "decrypt", "--key", &key, "--hash", hash, "--label", label, "--in", &oc,
                ]),
                "numcrypt decrypt",
            );
            assert_eq!(d.stdout, b"attack at dawn", "{hash} {label:?}");
            // The wrong label: one line, exit 2, nothing on standard output.
            let d = numcrypt(&[
                "rsa", "decrypt", "--key", &key, "--hash", hash, "--label", "wrong", "--in", &oc,
            ]);
            assert_eq!(d.status.code(), Some(2));
            assert!(d.stdout.is_empty());
            assert_eq!(text(&d.stderr), "numcrypt: error: decryption failed\n");
        }
    }
}

#[test]
fn errors_and_exit_codes() {
    let dir = scratch("errors");
    let (key, public, msg, sig) = (
        p(&dir, "k.pem"),
        p(&dir, "k.pub"),
        p(&dir, "msg"),
        p(&dir, "sig"),
    );
    ok(numcrypt(&["rsa", "keygen", "--out", &key]), "keygen");
    ok(
        numcrypt(&["rsa", "pubkey", "--in", &key, "--out", &public]),
        "pubkey",
    );
    std::fs::write(&msg, b"m").unwrap();
    ok(
        numcrypt(&["rsa", "sign", "--key", &key, "--in", &msg, "--out", &sig]),
        "sign",
    );
    // Invalid: exit 1.
    std::fs::write(&msg, b"n").unwrap();
    let v = numcrypt(&[
        "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &sig,
    ]);
    assert_eq!(v.status.code(), Some(1));
    assert_eq!(text(&v.stdout), "Verification failure\n");
    assert_eq!(text(&v.stderr), "numcrypt: invalid signature\n");
    // A truncated signature: exit 1 too (it is a bad signature), saying why.
    let mut s = std::fs::read(&sig).unwrap();
    s.pop();
    std::fs::write(&sig, &s).unwrap();
    let v = numcrypt(&[
        "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &sig,
    ]);
    assert_eq!(v.status.code(), Some(1));
    assert_eq!(text(&v.stdout), "Verification failure\n");
    assert!(text(&v.stderr).contains("expected 256 bytes"));
    // Usage and input errors: exit 2, one line on standard error, nothing
    // on standard output.
    let missing = p(&dir, "missing");
    let garbage = p(&dir, "garbage.pem");
    std::fs::write(
        &garbage,
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    for args in [
        vec!["rsa", "sign", "--key", &missing, "--in", &msg],
        vec!["rsa", "sign", "--key", &garbage, "--in", &msg],
        vec!["rsa", "sign", "--key", &key, "--hash", "sha1", "--in", &msg],
        vec!["rsa", "sign", "--key", &key, "--hash", "md5", "--in", &msg],
        vec![
            "rsa",
            "sign",
            "--key",
            &key,
            "--scheme",
            "pss",
            "--salt-len",
            "9999",
            "--in",
            &msg,
        ],
        vec![
            "rsa", "verify", "--pub", &garbage, "--in", &msg, "--sig", &sig,
        ],
        vec![
            "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &missing,
        ],
        vec!["rsa", "keygen", "--bits", "1024"],
        vec!["rsa", "keygen", "--bits", "2047"],
        vec!["rsa", "keygen", "--exponent", "3"],
        vec!["rsa", "decrypt", "--key", &key, "--in", &msg],
    ] {
        let out = numcrypt(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("numcrypt: error: "), "{args:?}: {err}");
    }
    // clap's own usage errors also exit 2.
    for args in [
        vec!["rsa", "sign", "--in", &msg],
        vec![
            "rsa", "sign", "--key", &key, "--scheme", "raw", "--in", &msg,
        ],
    ] {
        assert_eq!(numcrypt(&args).status.code(), Some(2), "{args:?}");
    }
    // A weak key with the flag: a warning, and a key openssl reads as 1024 bits.
    let weak = p(&dir, "weak.pem");
    let out = ok(
        numcrypt(&[
            "rsa",
            "keygen",
            "--bits",
            "1024",
            "--allow-weak-key",
            "--out",
            &weak,
        ]),
        "weak keygen",
    );
    assert!(text(&out.stderr).contains("warning"));
    if openssl_or_skip("errors_and_exit_codes (weak key)") {
        let t = ok(
            openssl(&["pkey", "-in", &weak, "-text", "-noout"]),
            "openssl weak",
        );
        assert!(text(&t.stdout).contains("Private-Key: (1024 bit, 2 primes)"));
    }
    let out = numcrypt(&["rsa", "sign", "--key", &weak, "--in", &msg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("below 2048 bits"));
    assert!(text(&out.stderr).contains("add --allow-weak-key"));
    // The flag's old name still works for keygen.
    let out = numcrypt(&["rsa", "keygen", "--bits", "1024", "--allow-weak"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// OpenSSL's multi-prime keys (3 primes at 3072 bits, 4 at 4096), in each
/// file form numcrypt reads, sign as openssl signs (PKCS#1 v1.5, byte for
/// byte), sign PSS that openssl verifies, and decrypt what openssl
/// encrypted (OAEP and PKCS#1 v1.5); their public key is openssl's.
#[test]
fn multi_prime_keys_interoperate() {
    if !openssl_or_skip("multi_prime_keys_interoperate") {
        return;
    }
    let dir = scratch("multi-prime");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"signed with several primes").unwrap();
    for (bits, primes) in [(3072, 3), (4096, 4)] {
        let key = p(&dir, &format!("mp{bits}.pem"));
        ok(
            openssl(&[
                "genpkey",
                "-algorithm",
                "RSA",
                "-pkeyopt",
                &format!("rsa_keygen_bits:{bits}"),
                "-pkeyopt",
                &format!("rsa_keygen_primes:{primes}"),
                "-out",
                &key,
            ]),
            "openssl genpkey",
        );
        let t = ok(openssl(&["pkey", "-in", &key, "-text", "-noout"]), "text");
        assert!(text(&t.stdout).contains(&format!("({bits} bit, {primes} primes)")));
        let public = p(&dir, &format!("mp{bits}.pub"));
        ok(
            openssl(&["pkey", "-in", &key, "-pubout", "-out", &public]),
            "openssl pubout",
        );
        let (pkcs1_pem, pkcs1_der) = (p(&dir, "pkcs1.pem"), p(&dir, "pkcs1.der"));
        ok(
            openssl(&["pkey", "-in", &key, "-traditional", "-out", &pkcs1_pem]),
            "openssl traditional",
        );
        ok(
            openssl(&["pkey", "-in", &key, "-outform", "DER", "-out", &pkcs1_der]),
            "openssl DER",
        );
        let mine = ok(
            numcrypt(&["rsa", "pubkey", "--in", &key]),
            "numcrypt pubkey",
        );
        assert_eq!(mine.stdout, std::fs::read(&public).unwrap());
        let expected = ok(
            openssl(&["dgst", "-sha256", "-sign", &key, &msg]),
            "openssl sign",
        );
        for file in [&key, &pkcs1_pem, &pkcs1_der] {
            let sig = ok(
                numcrypt(&["rsa", "sign", "--key", file, "--in", &msg]),
                "numcrypt sign",
            );
            assert_eq!(sig.stdout, expected.stdout, "{bits}-bit, {file}");
        }
        let sig = p(&dir, "pss.sig");
        ok(
            numcrypt(&[
                "rsa", "sign", "--key", &key, "--scheme", "pss", "--hash", "sha384", "--in", &msg,
                "--out", &sig,
            ]),
            "numcrypt sign pss",
        );
        let v = ok(
            openssl(&[
                "dgst",
                "-sha384",
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:auto",
                "-verify",
                &public,
                "-signature",
                &sig,
                &msg,
            ]),
            "openssl verify pss",
        );
        assert_eq!(text(&v.stdout), "Verified OK\n");
        let ct = p(&dir, "ct");
        for (padding, opts) in [
            ("oaep", &["-pkeyopt", "rsa_padding_mode:oaep"][..]),
            ("pkcs1", &[][..]),
        ] {
            let mut args = vec![
                "pkeyutl", "-encrypt", "-pubin", "-inkey", &public, "-in", &msg, "-out", &ct,
            ];
            args.extend(opts);
            ok(openssl(&args), "openssl encrypt");
            let d = ok(
                numcrypt(&[
                    "rsa",
                    "decrypt",
                    "--key",
                    &key,
                    "--padding",
                    padding,
                    "--in",
                    &ct,
                ]),
                "numcrypt decrypt",
            );
            assert_eq!(
                d.stdout, b"signed with several primes",
                "{bits}-bit {padding}"
            );
        }
    }
}

/// A 1024-bit key (openssl's, two primes and three): refused for signing
/// and decryption with one line naming --allow-weak-key (exit 2, nothing
/// written); with the flag, it decrypts what openssl encrypted and signs
/// as openssl does. Verifying with its public key needs no flag.
#[test]
fn weak_keys_need_the_flag() {
    if !openssl_or_skip("weak_keys_need_the_flag") {
        return;
    }
    let dir = scratch("weak");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"legacy data").unwrap();
    for primes in [2, 3] {
        let (key, public) = (p(&dir, "weak.pem"), p(&dir, "weak.pub"));
        ok(
            openssl(&[
                "genpkey",
                "-algorithm",
                "RSA",
                "-pkeyopt",
                "rsa_keygen_bits:1024",
                "-pkeyopt",
                &format!("rsa_keygen_primes:{primes}"),
                "-out",
                &key,
            ]),
            "openssl genpkey",
        );
        ok(
            openssl(&["pkey", "-in", &key, "-pubout", "-out", &public]),
            "openssl pubout",
        );
        let ct = p(&dir, "ct");
        ok(
            openssl(&[
                "pkeyutl",
                "-encrypt",
                "-pubin",
                "-inkey",
                &public,
                "-pkeyopt",
                "rsa_padding_mode:oaep",
                "-in",
                &msg,
                "-out",
                &ct,
            ]),
            "openssl encrypt",
        );
        let out_file = p(&dir, "plain");
        for args in [
            vec![
                "rsa", "decrypt", "--key", &key, "--in", &ct, "--out", &out_file,
            ],
            vec!["rsa", "sign", "--key", &key, "--in", &msg],
        ] {
            let out = numcrypt(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(out.stdout.is_empty(), "{args:?}");
            let err = text(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("1024-bit RSA key"), "{err}");
            assert!(err.contains("--allow-weak-key"), "{err}");
        }
        assert!(!std::path::Path::new(&out_file).exists());
        let d = ok(
            numcrypt(&[
                "rsa",
                "decrypt",
                "--allow-weak-key",
                "--key",
                &key,
                "--in",
                &ct,
                "--out",
                &out_file,
            ]),
            "numcrypt decrypt --allow-weak-key",
        );
        assert!(d.stderr.is_empty());
        assert_eq!(std::fs::read(&out_file).unwrap(), b"legacy data");
        std::fs::remove_file(&out_file).unwrap();
        let expected = ok(
            openssl(&["dgst", "-sha256", "-sign", &key, &msg]),
            "openssl sign",
        );
        let sig = p(&dir, "sig");
        let out = ok(
            numcrypt(&[
                "rsa",
                "sign",
                "--allow-weak-key",
                "--key",
                &key,
                "--in",
                &msg,
                "--out",
                &sig,
            ]),
            "numcrypt sign --allow-weak-key",
        );
        assert!(out.stderr.is_empty());
        assert_eq!(std::fs::read(&sig).unwrap(), expected.stdout);
        let v = ok(
            numcrypt(&[
                "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &sig,
            ]),
            "numcrypt verify",
        );
        assert_eq!(text(&v.stdout), "Verified OK\n");
    }
}
