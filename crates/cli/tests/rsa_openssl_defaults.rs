//! `numcrypt rsa` with what `openssl` makes by default, in both directions:
//! PKCS#1 v1.5 encryption, OAEP with SHA-1 and with an MGF1 hash of its
//! own and binary labels, PSS with any salt length and MGF1 hash, SHA-1
//! signatures, RSA-PSS keys, password-protected keys, and errors that say
//! what a refused key file is.

use crate::common::{
    code, numcrypt, ok, openssl, openssl_or_skip, openssl_rsa_key, p, scratch, text,
};

/// Appends `-pkeyopt opt` for each of `opts`.
fn pkeyopts<'a>(args: &mut Vec<&'a str>, opts: &'a [String]) {
    for o in opts {
        args.push("-pkeyopt");
        args.push(o);
    }
}

#[test]
fn encryption_with_openssl_defaults() {
    if !openssl_or_skip("encryption_with_openssl_defaults") {
        return;
    }
    let dir = scratch("enc");
    let (key, public) = openssl_rsa_key(&dir, "k");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"\x00binary\xffmessage").unwrap();
    let (nc, oc) = (p(&dir, "n.ct"), p(&dir, "o.ct"));
    // Each case: numcrypt's flags, openssl's -pkeyopt options.
    let cases: [(&[&str], &[&str]); 5] = [
        (&["--padding", "pkcs1"], &[]),
        (&[], &["rsa_padding_mode:oaep"]),
        (
            &[
                "--hash",
                "sha256",
                "--mgf1-hash",
                "sha1",
                "--label-hex",
                "00ff10",
            ],
            &[
                "rsa_padding_mode:oaep",
                "rsa_oaep_md:sha256",
                "rsa_mgf1_md:sha1",
                "rsa_oaep_label:00ff10",
            ],
        ),
        (
            &[
                "--hash",
                "sha384",
                "--mgf1-hash",
                "sha512",
                "--label",
                "text",
            ],
            &[
                "rsa_padding_mode:oaep",
                "rsa_oaep_md:sha384",
                "rsa_mgf1_md:sha512",
                "rsa_oaep_label:74657874",
            ],
        ),
        (
            &["--hash", "sha1"],
            &["rsa_padding_mode:oaep", "rsa_oaep_md:sha1"],
        ),
    ];
    for (flags, opts) in cases {
        let opts: Vec<String> = opts.iter().map(|o| o.to_string()).collect();
        let mut args = vec![
            "rsa", "encrypt", "--pub", &public, "--in", &msg, "--out", &nc,
        ];
        args.extend(flags);
        ok(numcrypt(&args), "numcrypt encrypt");
        let mut args = vec!["pkeyutl", "-decrypt", "-inkey", &key, "-in", &nc];
        pkeyopts(&mut args, &opts);
        assert_eq!(
            ok(openssl(&args), "openssl decrypt").stdout,
            std::fs::read(&msg).unwrap(),
            "{flags:?}"
        );
        let mut args = vec![
            "pkeyutl", "-encrypt", "-pubin", "-inkey", &public, "-in", &msg, "-out", &oc,
        ];
        pkeyopts(&mut args, &opts);
        ok(openssl(&args), "openssl encrypt");
        let mut args = vec!["rsa", "decrypt", "--key", &key, "--in", &oc];
        args.extend(flags);
        assert_eq!(
            ok(numcrypt(&args), "numcrypt decrypt").stdout,
            std::fs::read(&msg).unwrap(),
            "{flags:?}"
        );
    }
    // Implicit rejection: a ciphertext that is not one (a value below n
    // whose padding is wrong) decrypts to pseudorandom bytes, the same each
    // time, without an error.
    let mut bogus = vec![0u8; 256];
    for (i, b) in bogus.iter_mut().enumerate().skip(1) {
        *b = (i * 37 % 251) as u8;
    }
    std::fs::write(&nc, &bogus).unwrap();
    let decrypt_bogus = || {
        let args = [
            "rsa",
            "decrypt",
            "--key",
            &key,
            "--padding",
            "pkcs1",
            "--in",
            &nc,
        ];
        ok(numcrypt(&args), "implicit rejection").stdout
    };
    let first = decrypt_bogus();
    assert!(first.len() <= 256 - 11);
    assert_eq!(first, decrypt_bogus());
    // OAEP's flags with PKCS#1 v1.5 padding: a usage error naming them.
    let out = numcrypt(&[
        "rsa",
        "decrypt",
        "--key",
        &key,
        "--padding",
        "pkcs1",
        "--hash",
        "sha256",
        "--in",
        &oc,
    ]);
    assert_eq!(code(&out), 2);
    assert!(text(&out.stderr).contains("--padding oaep only"));
    let out = numcrypt(&[
        "rsa",
        "decrypt",
        "--key",
        &key,
        "--label-hex",
        "0g",
        "--in",
        &oc,
    ]);
    assert!(
        text(&out.stderr).contains("--label-hex"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn pss_and_sha1_signatures() {
    if !openssl_or_skip("pss_and_sha1_signatures") {
        return;
    }
    let dir = scratch("pss");
    let (key, public) = openssl_rsa_key(&dir, "k");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"pss message").unwrap();
    let (ns, os) = (p(&dir, "n.sig"), p(&dir, "o.sig"));
    // numcrypt's flags, openssl's -sigopt options, openssl's digest flag.
    let cases: [(&[&str], &[&str], &str); 4] = [
        (
            &["--scheme", "pss", "--salt-len", "max"],
            &["rsa_padding_mode:pss", "rsa_pss_saltlen:max"],
            "-sha256",
        ),
        (
            &[
                "--scheme",
                "pss",
                "--hash",
                "sha384",
                "--mgf1-hash",
                "sha1",
                "--salt-len",
                "17",
            ],
            &[
                "rsa_padding_mode:pss",
                "rsa_mgf1_md:sha1",
                "rsa_pss_saltlen:17",
            ],
            "-sha384",
        ),
        (
            &[
                "--scheme",
                "pss",
                "--hash",
                "sha512",
                "--mgf1-hash",
                "sha256",
                "--salt-len",
                "digest",
            ],
            &[
                "rsa_padding_mode:pss",
                "rsa_mgf1_md:sha256",
                "rsa_pss_saltlen:digest",
            ],
            "-sha512",
        ),
        (
            &["--scheme", "pss", "--salt-len", "0"],
            &["rsa_padding_mode:pss", "rsa_pss_saltlen:0"],
            "-sha256",
        ),
    ];
    for (flags, sigopts, dgst) in cases {
        let mut args = vec!["rsa", "sign", "--key", &key, "--in", &msg, "--out", &ns];
        args.extend(flags);
        ok(numcrypt(&args), "numcrypt sign");
        let mut args = vec!["dgst", dgst, "-verify", &public, "-signature", &ns];
        for o in sigopts {
            args.extend(["-sigopt", o]);
        }
        args.push(&msg);
        assert!(
            text(&ok(openssl(&args), "openssl verify").stdout).contains("Verified OK"),
            "{flags:?}"
        );
        let mut args = vec!["dgst", dgst, "-sign", &key, "-out", &os];
        for o in sigopts {
            args.extend(["-sigopt", o]);
        }
        args.push(&msg);
        ok(openssl(&args), "openssl sign");
        // numcrypt reads the salt length from the signature by default.
        let mut args = vec![
            "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &os,
        ];
        args.extend(flags.iter().filter(|f| {
            !f.starts_with("--salt") && f.parse::<u32>().is_err() && **f != "max" && **f != "digest"
        }));
        assert_eq!(
            text(&ok(numcrypt(&args), "numcrypt verify").stdout),
            "Verified OK\n",
            "{args:?}"
        );
    }
    // SHA-1: openssl's signature verifies; signing needs --allow-sha1, and
    // then gives openssl's bytes (PKCS#1 v1.5 is deterministic).
    ok(
        openssl(&["dgst", "-sha1", "-sign", &key, "-out", &os, &msg]),
        "openssl sha1",
    );
    ok(
        numcrypt(&[
            "rsa", "verify", "--pub", &public, "--hash", "sha1", "--in", &msg, "--sig", &os,
        ]),
        "verify sha1",
    );
    let out = numcrypt(&["rsa", "sign", "--key", &key, "--hash", "sha1", "--in", &msg]);
    assert_eq!(code(&out), 2);
    assert!(text(&out.stderr).contains("--allow-sha1"));
    ok(
        numcrypt(&[
            "rsa",
            "sign",
            "--key",
            &key,
            "--hash",
            "sha1",
            "--allow-sha1",
            "--in",
            &msg,
            "--out",
            &ns,
        ]),
        "sign sha1",
    );
    assert_eq!(std::fs::read(&ns).unwrap(), std::fs::read(&os).unwrap());
}

#[test]
fn rsa_pss_keys() {
    if !openssl_or_skip("rsa_pss_keys") {
        return;
    }
    let dir = scratch("pss-keys");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"restricted").unwrap();
    let (ns, os) = (p(&dir, "n.sig"), p(&dir, "o.sig"));
    let restricted = [
        "-pkeyopt",
        "rsa_pss_keygen_md:sha384",
        "-pkeyopt",
        "rsa_pss_keygen_mgf1_md:sha256",
        "-pkeyopt",
        "rsa_pss_keygen_saltlen:24",
    ];
    for (name, opts, dgst) in [
        ("free", &[][..], "-sha256"),
        ("restricted", &restricted[..], "-sha384"),
    ] {
        let (key, public) = (
            p(&dir, &format!("{name}.pem")),
            p(&dir, &format!("{name}.pub")),
        );
        let mut args = vec![
            "genpkey",
            "-algorithm",
            "RSA-PSS",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
            &key,
        ];
        args.extend(opts);
        ok(openssl(&args), "openssl genpkey RSA-PSS");
        ok(
            openssl(&["pkey", "-in", &key, "-pubout", "-out", &public]),
            "pubout",
        );
        // The public key numcrypt writes is openssl's, parameters included.
        let ours = ok(
            numcrypt(&["rsa", "pubkey", "--in", &key]),
            "numcrypt pubkey",
        )
        .stdout;
        assert_eq!(ours, std::fs::read(&public).unwrap(), "{name}");
        // PSS by default, with the key's parameters, both ways.
        ok(
            numcrypt(&["rsa", "sign", "--key", &key, "--in", &msg, "--out", &ns]),
            "numcrypt sign",
        );
        let v = ok(
            openssl(&["dgst", dgst, "-verify", &public, "-signature", &ns, &msg]),
            "openssl verify",
        );
        assert!(text(&v.stdout).contains("Verified OK"), "{name}");
        ok(
            openssl(&["dgst", dgst, "-sign", &key, "-out", &os, &msg]),
            "openssl sign",
        );
        ok(
            numcrypt(&[
                "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &os,
            ]),
            "numcrypt verify",
        );
        // No PKCS#1 v1.5 and no encryption with an RSA-PSS key.
        for args in [
            vec![
                "rsa", "sign", "--key", &key, "--scheme", "pkcs1v15", "--in", &msg,
            ],
            vec!["rsa", "encrypt", "--pub", &public, "--in", &msg],
        ] {
            assert_eq!(code(&numcrypt(&args)), 2, "{name} {args:?}");
        }
    }
    // The restriction: another hash, or a shorter salt, is refused.
    let key = p(&dir, "restricted.pem");
    for flags in [["--hash", "sha256"], ["--salt-len", "20"]] {
        let mut args = vec!["rsa", "sign", "--key", &key, "--in", &msg];
        args.extend(flags);
        let out = numcrypt(&args);
        assert_eq!(code(&out), 2, "{flags:?}");
        assert!(
            text(&out.stderr).contains("RSA-PSS key"),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn password_protected_keys() {
    if !openssl_or_skip("password_protected_keys") {
        return;
    }
    let dir = scratch("passwords");
    let (key, public) = openssl_rsa_key(&dir, "k");
    let expected_pub = std::fs::read(&public).unwrap();
    let pubkey = |file: &str, passin: &[&str]| {
        let mut args = vec!["rsa", "pubkey", "--in", file];
        args.extend(passin);
        numcrypt(&args)
    };
    // What openssl writes: genpkey -aes256 (PBKDF2), pkcs8 -v2 aes-256-cbc,
    // pkcs8 -scrypt in DER.
    let (a, b, c) = (p(&dir, "a.pem"), p(&dir, "b.pem"), p(&dir, "c.der"));
    ok(
        openssl(&[
            "pkey",
            "-in",
            &key,
            "-aes256",
            "-passout",
            "pass:secret",
            "-out",
            &a,
        ]),
        "pkey -aes256",
    );
    ok(
        openssl(&[
            "pkcs8",
            "-topk8",
            "-v2",
            "aes-256-cbc",
            "-in",
            &key,
            "-passout",
            "pass:secret",
            "-out",
            &b,
        ]),
        "pkcs8 -v2",
    );
    ok(
        openssl(&[
            "pkcs8",
            "-topk8",
            "-scrypt",
            "-in",
            &key,
            "-passout",
            "pass:secret",
            "-outform",
            "DER",
            "-out",
            &c,
        ]),
        "pkcs8 -scrypt",
    );
    let pwfile = p(&dir, "pw");
    std::fs::write(&pwfile, "secret\nignored\n").unwrap();
    let file_source = format!("file:{pwfile}");
    for file in [&a, &b, &c] {
        for passin in [
            &["--passin", "pass:secret"][..],
            &["--passin", &file_source],
        ] {
            assert_eq!(
                ok(pubkey(file, passin), "pubkey --passin").stdout,
                expected_pub,
                "{file} {passin:?}"
            );
        }
        let out = pubkey(file, &[]);
        assert_eq!(code(&out), 2);
        assert!(
            text(&out.stderr).contains("an encrypted private key: give its password with --passin"),
            "{}",
            text(&out.stderr)
        );
        let out = pubkey(file, &["--passin", "pass:wrong"]);
        assert_eq!(code(&out), 2);
        assert!(text(&out.stderr).contains("cannot decrypt the key"));
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_numcrypt"))
        .args([
            "rsa",
            "pubkey",
            "--in",
            &a,
            "--passin",
            "env:NUMCRYPT_TEST_PASSWORD",
        ])
        .env("NUMCRYPT_TEST_PASSWORD", "secret")
        .output()
        .unwrap();
    assert_eq!(ok(out, "env:").stdout, expected_pub);
    // What numcrypt writes with --passout, openssl reads with -passin, for
    // each scheme.
    let params = p(&dir, "dsa.params");
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
        "dsa params",
    );
    for keygen in [
        vec!["rsa", "keygen"],
        vec!["dsa", "keygen", "--params", &params],
        vec!["elgamal", "keygen"],
    ] {
        let out = p(&dir, &format!("{}.pem", keygen[0]));
        let mut args = keygen.clone();
        args.extend(["--passout", "pass:pw", "--out", &out]);
        ok(numcrypt(&args), "keygen --passout");
        assert!(
            std::fs::read_to_string(&out)
                .unwrap()
                .starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        );
        ok(
            openssl(&["pkey", "-in", &out, "-passin", "pass:pw", "-noout"]),
            "openssl reads it",
        );
        assert_ne!(
            code(&openssl(&[
                "pkey",
                "-in",
                &out,
                "-passin",
                "pass:nope",
                "-noout"
            ])),
            0
        );
        let scheme = keygen[0];
        ok(
            numcrypt(&[scheme, "pubkey", "--in", &out, "--passin", "pass:pw"]),
            "numcrypt reads it",
        );
    }
}

#[test]
fn errors_say_what_the_file_is() {
    if !openssl_or_skip("errors_say_what_the_file_is") {
        return;
    }
    let dir = scratch("what");
    let (key, public) = openssl_rsa_key(&dir, "k");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"m").unwrap();
    let (ec, ed) = (p(&dir, "ec.pem"), p(&dir, "ed.pem"));
    ok(
        openssl(&[
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-out",
            &ec,
        ]),
        "ec",
    );
    ok(
        openssl(&["genpkey", "-algorithm", "ed25519", "-out", &ed]),
        "ed25519",
    );
    let ec_der = p(&dir, "ec.der");
    ok(
        openssl(&[
            "pkcs8", "-topk8", "-nocrypt", "-in", &ec, "-outform", "DER", "-out", &ec_der,
        ]),
        "ec der",
    );
    for (args, says) in [
        (
            vec!["rsa", "sign", "--key", &ec, "--in", &msg],
            "an EC private key, not an RSA key",
        ),
        (
            vec!["rsa", "sign", "--key", &ec_der, "--in", &msg],
            "an EC private key, not an RSA key",
        ),
        (
            vec!["rsa", "sign", "--key", &public, "--in", &msg],
            "an RSA public key, not a private key",
        ),
        (
            vec!["dsa", "sign", "--key", &ed, "--in", &msg],
            "an Ed25519 private key, not a DSA key",
        ),
        (
            vec!["elgamal", "decrypt", "--key", &key, "--in", &msg],
            "an RSA private key, not an ElGamal",
        ),
        (
            vec!["rsa", "verify", "--pub", &ec, "--in", &msg, "--sig", &msg],
            "an EC private key, not an RSA key",
        ),
    ] {
        let out = numcrypt(&args);
        assert_eq!(code(&out), 2, "{args:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}
