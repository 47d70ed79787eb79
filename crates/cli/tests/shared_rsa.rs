//! `numcrypt shared-rsa …` end to end: the demo, three `party` processes
//! on loopback TCP, then `sign` and `combine`, checked with `openssl`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// Three party configurations on free loopback ports.
fn write_configs(dir: &Path) -> Vec<PathBuf> {
    let ports: Vec<u16> = (0..3)
        .map(|_| {
            TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port()
        })
        .collect();
    let key = |i: usize, j: usize| format!("{:02x}{:02x}{}", i.min(j), i.max(j), "ab".repeat(30));
    (1..=3)
        .map(|me| {
            let mut c = format!(
                "index = {me}\nbits = 512\ntimeout_secs = 30\nkey_share = \"share-{me}.pem\"\n\
                 public_key = \"public-{me}.pem\"\nshared_public_key = \"shared-public-{me}.pem\"\n"
            );
            for j in 1..=3 {
                c += &format!(
                    "[[party]]\nindex = {j}\naddress = \"127.0.0.1:{}\"\n",
                    ports[j - 1]
                );
                if j != me {
                    c += &format!("psk = \"{}\"\n", key(me, j));
                }
            }
            let path = dir.join(format!("party-{me}.toml"));
            std::fs::write(&path, c).unwrap();
            path
        })
        .collect()
}

#[test]
fn parties_sign_and_combine_with_files() {
    let dir = temp_dir("parties");
    let configs = write_configs(&dir);
    let handles: Vec<_> = configs
        .iter()
        .map(|c| {
            Command::new(env!("CARGO_BIN_EXE_numcrypt"))
                .args(["shared-rsa", "party", "--config", s(c)])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        let out = h.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        assert!(text(&out.stdout).contains("share written"));
        let me = i + 1;
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&format!("party {me}: all parties agree"))
                && stderr.contains(&format!("party {me}: biprime found")),
            "progress on standard error: {stderr}"
        );
    }
    let public = dir.join("public-1.pem");
    for i in 2..=3 {
        assert_eq!(
            std::fs::read(&public).unwrap(),
            std::fs::read(dir.join(format!("public-{i}.pem"))).unwrap(),
            "every party writes the same public key"
        );
    }
    let msg = dir.join("message.txt");
    std::fs::write(&msg, b"signed by three parties").unwrap();

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
        let mut partials = Vec::new();
        for i in 1..=3 {
            let part = dir.join(format!("partial-{scheme}-{i}.pem"));
            let share = dir.join(format!("share-{i}.pem"));
            let mut args = vec![
                "shared-rsa",
                "sign",
                "--key",
                s(&share),
                "--in",
                s(&msg),
                "--scheme",
                scheme,
            ];
            args.extend(&extra);
            args.extend(["--out", s(&part)]);
            let out = numcrypt(&args);
            assert!(out.status.success(), "{}", text(&out.stderr));
            partials.push(part);
        }
        let sig = dir.join(format!("sig-{scheme}.bin"));
        // Whoever combines needs the shared public key, not a share.
        let key = dir.join("shared-public-2.pem");
        let mut args = vec![
            "shared-rsa",
            "combine",
            "--key",
            s(&key),
            "--in",
            s(&msg),
            "--scheme",
            scheme,
        ];
        args.extend(&extra);
        args.extend(["--out", s(&sig)]);
        args.extend(partials.iter().map(|p| s(p)));
        let out = numcrypt(&args);
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

        // A corrupted partial signature: the combiner names its party (a
        // key share serves as the public key too).
        let info = dir.join("share-1.pem");
        let bad = dir.join("partial-bad.pem");
        let pem = std::fs::read_to_string(&partials[2]).unwrap();
        let mut p = numcrypt_shared_rsa::PartialSignature::from_pem(&pem).unwrap();
        p.value = numcrypt_limbs::BoxedUint::from_u64(12345, 1);
        std::fs::write(&bad, p.to_pem().unwrap()).unwrap();
        let mut args = vec![
            "shared-rsa",
            "combine",
            "--key",
            s(&info),
            "--in",
            s(&msg),
            "--scheme",
            scheme,
        ];
        args.extend(&extra);
        args.extend([s(&partials[0]), s(&partials[1]), s(&bad)]);
        let out = numcrypt(&args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("party 3"),
            "{}",
            text(&out.stderr)
        );
    }

    // Input errors exit with status 2.
    let out = numcrypt(&["shared-rsa", "sign", "--key", s(&public), "--in", s(&msg)]);
    assert_eq!(out.status.code(), Some(2));
    let some_partial = dir.join("partial-pkcs1v15-1.pem");
    let out = numcrypt(&[
        "shared-rsa",
        "combine",
        "--key",
        s(&public),
        "--in",
        s(&msg),
        s(&some_partial),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("shared_public_key"),
        "an ordinary public key is refused with the way out: {}",
        text(&out.stderr)
    );
    let share = dir.join("share-1.pem");
    let out = numcrypt(&[
        "shared-rsa",
        "sign",
        "--key",
        s(&share),
        "--in",
        s(&msg),
        "--scheme",
        "pss",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--salt"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn party_with_a_bad_config_fails_cleanly() {
    let dir = temp_dir("bad-config");
    let path = dir.join("party.toml");
    std::fs::write(
        &path,
        "index = 4\nbits = 512\nkey_share = \"s.pem\"\nparty = []\n",
    )
    .unwrap();
    let out = numcrypt(&["shared-rsa", "party", "--config", s(&path)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("index"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
