//! `numcrypt shared-rsa …` end to end: the demo, each party's `identity`
//! in its own folder, `init` from their certificates and five `party`
//! processes on loopback (mutual TLS), then `sign` at three and `combine`,
//! checked with `openssl`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn numcrypt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_numcrypt"))
        .args(args)
        .output()
        .expect("run numcrypt")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "numcrypt-cli-shared-rsa-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn demo_generates_signs_and_verifies() {
    let out = numcrypt(&[
        "shared-rsa",
        "demo",
        "--parties",
        "3",
        "--bits",
        "512",
        "--runs",
        "2",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("candidates") && stdout.contains("biprimality tests"),
        "{stdout}"
    );
    assert!(stdout.contains("verified under (N, e)"), "{stdout}");
    assert!(stdout.contains("median of 2"), "{stdout}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("demo: all parties agree") && stderr.contains("demo: biprime found"),
        "progress on standard error: {stderr}"
    );
    // An improvement switched off still works.
    let out = numcrypt(&[
        "shared-rsa",
        "demo",
        "--bits",
        "512",
        "--no-distributed-sieving",
        "--no-parallel-trial-division",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("sieving off"));
    // Bad sizes are usage errors.
    let out = numcrypt(&["shared-rsa", "demo", "--bits", "500"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("key size"));
}

/// A base port with `n` free ports above it (party i listens on base + i).
fn free_base_port(n: u16) -> u16 {
    for attempt in 0..200u16 {
        let base = 20_000 + (std::process::id() as u16 % 1000) * 30 + attempt * 7;
        let listeners: Vec<_> = (1..=n)
            .map(|i| TcpListener::bind(("127.0.0.1", base + i)))
            .collect();
        if listeners.iter().all(Result::is_ok) {
            return base;
        }
    }
    panic!("no {n} free consecutive ports");
}

/// Each of `n` parties makes its identity in its own folder
/// (`dir/party-<i>`), then `init` writes their `party.toml` from the
/// certificates alone; returns `init`'s output.
fn identities_then_init(
    dir: &Path,
    n: usize,
    bits: &str,
    base_port: &str,
    extra: &[&str],
) -> Output {
    for i in 1..=n {
        let folder = dir.join(format!("party-{i}"));
        let out = numcrypt(&[
            "shared-rsa",
            "identity",
            "--index",
            &i.to_string(),
            "--out",
            s(&folder),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("secret"),
            "{}",
            text(&out.stdout)
        );
    }
    let certs: Vec<PathBuf> = (1..=n)
        .map(|i| dir.join(format!("party-{i}")).join("tls-cert.pem"))
        .collect();
    let mut args = vec![
        "shared-rsa",
        "init",
        "--host",
        "127.0.0.1",
        "--base-port",
        base_port,
        "--bits",
        bits,
        "--out",
        s(dir),
    ];
    args.extend(extra);
    args.extend(certs.iter().map(|c| s(c)));
    numcrypt(&args)
}

/// The deployment, on one machine: each of five parties makes its
/// identity in its own folder, `init` assembles the deployment from their
/// certificates with threshold 2, the five `party` processes start in
/// reverse order, three parties sign, party 1's public.pem combines,
/// openssl verifies; two partial signatures are refused, a faulty one is
/// named, a forged one blames nobody.
#[test]
fn identities_init_five_parties_then_any_three_sign() {
    let dir = temp_dir("init");
    let base = free_base_port(5);
    let base_port = base.to_string();
    let out = identities_then_init(&dir, 5, "1024", &base_port, &["--threshold", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("fingerprints"),
        "{}",
        text(&out.stdout)
    );
    let party = |i: usize| dir.join(format!("party-{i}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(party(1).join("tls-key.pem"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the TLS key is secret");
    }
    // No step wrote a private key outside its own party's folder, and init
    // wrote none at all.
    let toml = std::fs::read_to_string(party(2).join("party.toml")).unwrap();
    assert!(
        !toml.contains("PRIVATE KEY") && !toml.contains("ca ="),
        "{toml}"
    );
    let cert = |i: usize| party(i).join("tls-cert.pem");
    // A second init over the same folder is refused, and so are
    // certificates in the wrong order.
    let again = numcrypt(&[
        "shared-rsa",
        "init",
        "--base-port",
        &base_port,
        "--out",
        s(&dir),
        s(&cert(1)),
        s(&cert(2)),
        s(&cert(3)),
    ]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    let elsewhere = dir.join("elsewhere");
    let swapped = numcrypt(&[
        "shared-rsa",
        "init",
        "--base-port",
        &base_port,
        "--out",
        s(&elsewhere),
        s(&cert(2)),
        s(&cert(1)),
        s(&cert(3)),
    ]);
    assert_eq!(swapped.status.code(), Some(2));
    assert!(
        text(&swapped.stderr).contains("not party 1's certificate"),
        "{}",
        text(&swapped.stderr)
    );

    let handles: Vec<_> = (1..=5)
        .rev()
        .map(|i| {
            let config = party(i).join("party.toml");
            Command::new(env!("CARGO_BIN_EXE_numcrypt"))
                .args(["shared-rsa", "party", "--config", s(&config)])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for h in handles {
        let out = h.wait_with_output().unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stdout}{stderr}");
        assert!(
            stdout.contains("share written") && stdout.contains("any 3 parties sign"),
            "{stdout}"
        );
        assert!(
            stderr.contains("all parties agree") && stderr.contains("biprime found"),
            "{stderr}"
        );
    }
    let public = party(1).join("public.pem");
    for i in 2..=5 {
        assert_eq!(
            std::fs::read(&public).unwrap(),
            std::fs::read(party(i).join("public.pem")).unwrap(),
            "every party writes the same public key"
        );
    }
    let msg = dir.join("message.txt");
    std::fs::write(&msg, b"signed by three of five parties").unwrap();

    for (scheme, extra, openssl_opts) in [
        ("pkcs1v15", vec![], vec![]),
        (
            "pss",
            vec!["--salt", "00112233445566778899aabbccddeeff"],
            vec![
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:16",
            ],
        ),
    ] {
        let partial = |i: usize| dir.join(format!("partial-{scheme}-{i}.pem"));
        for i in [1, 3, 4, 5] {
            let share = party(i).join("share.pem");
            let identity = party(i).join("tls-key.pem");
            let mut args = vec![
                "shared-rsa",
                "sign",
                "--key",
                s(&share),
                "--identity-key",
                s(&identity),
                "--in",
                s(&msg),
                "--scheme",
                scheme,
            ];
            args.extend(&extra);
            let part = partial(i);
            args.extend(["--out", s(&part)]);
            let out = numcrypt(&args);
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
        let sig = dir.join(format!("sig-{scheme}.bin"));
        let combine = |parts: &[PathBuf], out_file: Option<&Path>| {
            let mut args = vec![
                "shared-rsa",
                "combine",
                "--key",
                s(&public),
                "--in",
                s(&msg),
                "--scheme",
                scheme,
            ];
            args.extend(&extra);
            if let Some(o) = out_file {
                args.extend(["--out", s(o)]);
            }
            args.extend(parts.iter().map(|p| s(p)));
            numcrypt(&args)
        };
        let out = combine(&[partial(1), partial(3), partial(5)], Some(&sig));
        assert!(out.status.success(), "{}", text(&out.stderr));
        let mut cmd = Command::new("openssl");
        cmd.args([
            "dgst",
            "-sha256",
            "-verify",
            s(&public),
            "-signature",
            s(&sig),
        ]);
        cmd.args(&openssl_opts).arg(s(&msg));
        let out = cmd.output().expect("openssl runs");
        assert!(
            out.status.success(),
            "openssl: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );

        // Two partial signatures are refused, clearly.
        let out = combine(&[partial(1), partial(5)], None);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("needs 3 parties"),
            "{}",
            text(&out.stderr)
        );

        // Party 5 signs a wrong value as its own: the combiner names it;
        // with party 4's too, it signs anyway and warns.
        let public_key = numcrypt_shared_rsa::SharedPublicKey::from_pem(
            &std::fs::read_to_string(&public).unwrap(),
        )
        .unwrap();
        let pem = std::fs::read_to_string(partial(5)).unwrap();
        let mut p = numcrypt_shared_rsa::PartialSignature::from_pem(&pem).unwrap();
        p.value = numcrypt_limbs::BoxedUint::from_u64(12345, 1);
        let forged = p.clone();
        let key = std::fs::read_to_string(party(5).join("tls-key.pem")).unwrap();
        let key = numcrypt_shared_rsa::IdentityKey::from_pem(&key).unwrap();
        p.sign_identity(&public_key, &key).unwrap();
        let bad = dir.join("partial-bad.pem");
        std::fs::write(&bad, p.to_pem().unwrap()).unwrap();
        let out = combine(&[partial(1), partial(3), bad.clone()], None);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("faulty: party 5"),
            "{}",
            text(&out.stderr)
        );
        let out = combine(&[bad, partial(1), partial(3), partial(4)], Some(&sig));
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("party 5"),
            "{}",
            text(&out.stderr)
        );
        // Someone else's forgery in party 5's name (its old signature no
        // longer covers it): nobody is blamed.
        let forged_file = dir.join("partial-forged.pem");
        std::fs::write(&forged_file, forged.to_pem().unwrap()).unwrap();
        let out = combine(&[partial(1), partial(3), forged_file], None);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("not blamed") && !stderr.contains("faulty"),
            "{stderr}"
        );
    }

    // Input errors exit with status 2: a public key as a share, an ordinary
    // SPKI alone as the combiner's key, PSS without a salt.
    let out = numcrypt(&["shared-rsa", "sign", "--key", s(&public), "--in", s(&msg)]);
    assert_eq!(out.status.code(), Some(2));
    let spki_only = dir.join("spki.pem");
    let spki = std::fs::read_to_string(&public).unwrap();
    let end = "-----END PUBLIC KEY-----\n";
    std::fs::write(&spki_only, &spki[..spki.find(end).unwrap() + end.len()]).unwrap();
    let some_partial = dir.join("partial-pkcs1v15-1.pem");
    let out = numcrypt(&[
        "shared-rsa",
        "combine",
        "--key",
        s(&spki_only),
        "--in",
        s(&msg),
        s(&some_partial),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("public_key"),
        "the way out: {}",
        text(&out.stderr)
    );
    let share = party(1).join("share.pem");
    let identity = party(1).join("tls-key.pem");
    let out = numcrypt(&[
        "shared-rsa",
        "sign",
        "--key",
        s(&share),
        "--identity-key",
        s(&identity),
        "--in",
        s(&msg),
        "--scheme",
        "pss",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--salt"));
    // Without its identity key, or with another party's, a party cannot sign.
    let out = numcrypt(&["shared-rsa", "sign", "--key", s(&share), "--in", s(&msg)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--identity-key"),
        "{}",
        text(&out.stderr)
    );
    let other = party(2).join("tls-key.pem");
    let out = numcrypt(&[
        "shared-rsa",
        "sign",
        "--key",
        s(&share),
        "--identity-key",
        s(&other),
        "--in",
        s(&msg),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not this party's"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bad value fails at once, before any connection (the issue's
/// `threads = 0` waited 20 s).
#[test]
fn a_bad_party_file_fails_before_connecting() {
    let dir = temp_dir("validate");
    let base = free_base_port(3).to_string();
    let out = identities_then_init(&dir, 3, "512", &base, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let config = dir.join("party-2").join("party.toml");
    let text_before = std::fs::read_to_string(&config).unwrap();
    for (change, expect) in [
        ("threads = 0\n", "threads"),
        ("threshold = 2\n", "threshold"),
        ("timeout_secs = 0\n", "timeout_secs"),
    ] {
        let edited = text_before.replacen("threshold = 1\n", "", 1);
        let edited = edited.replacen("key_share", &format!("{change}key_share"), 1);
        std::fs::write(&config, edited).unwrap();
        let start = Instant::now();
        let out = numcrypt(&["shared-rsa", "party", "--config", s(&config)]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{change}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(expect),
            "{change}: {}",
            text(&out.stderr)
        );
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{change}: {:?}",
            start.elapsed()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn party_with_a_bad_config_fails_cleanly() {
    let dir = temp_dir("bad-config");
    let path = dir.join("party.toml");
    std::fs::write(
        &path,
        "index = 4\nbits = 512\nkey_share = \"s.pem\"\ncertificate = \"c.pem\"\n\
         private_key = \"k.pem\"\nparty = []\n",
    )
    .unwrap();
    let out = numcrypt(&["shared-rsa", "party", "--config", s(&path)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("index"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
