//! `examples/https_server.rs` as its README shows it: given a certificate
//! and key made by `openssl req`, it serves a page that `curl --cacert`
//! fetches; bad files are refused with a message naming them.
//!
//! The example binary is the one cargo built beside this test (`cargo
//! test` builds the examples; `cargo test --test https_server` alone does
//! not, and then the test says so and fails). Skipped, with a note, where
//! `openssl` or `curl` is not installed.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use common::have;

fn example() -> PathBuf {
    // target/<profile>/deps/<this test> → target/<profile>/examples/
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/https_server");
    assert!(
        path.exists(),
        "{} is missing: build the examples (`cargo test -p numcrypt-rustls` builds them)",
        path.display()
    );
    path
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn curl_fetches_the_page() {
    if !have("openssl") || !have("curl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out",
            "cert.pem",
        ])
        .args([
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ])
        .current_dir(dir.path())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let mut server = Server(
        Command::new(example())
            .arg("--cert")
            .arg(&cert)
            .arg("--key")
            .arg(&key)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("https://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    for _ in 0..2 {
        let out = Command::new("curl")
            .args(["--silent", "--show-error", "--max-time", "20", "--cacert"])
            .arg(&cert)
            .arg(url)
            .output()
            .unwrap();
        let page = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "curl: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            page.contains("this handshake was signed by numcrypt"),
            "{page}"
        );
    }
}

#[test]
fn bad_files_are_named() {
    if !have("openssl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.pem"), "").unwrap();
    std::fs::write(
        d.join("garbage.pem"),
        "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let status = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out",
            "cert.pem",
        ])
        .args(["-days", "2", "-subj", "/CN=localhost"])
        .current_dir(d)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let other_key = common::data("rsa3072.pem");
    let run = |cert: &str, key: &std::path::Path| {
        let out = Command::new(example())
            .arg("--cert")
            .arg(d.join(cert))
            .arg("--key")
            .arg(key)
            .args(["--port", "0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run("missing.pem", &d.join("key.pem"));
    assert!(
        err.contains("missing.pem") && err.contains("cannot read certificates"),
        "{err}"
    );
    let err = run("empty.pem", &d.join("key.pem"));
    assert!(err.contains("empty.pem: no CERTIFICATE"), "{err}");
    let err = run("garbage.pem", &d.join("key.pem"));
    assert!(err.contains("garbage.pem"), "{err}");
    let err = run("cert.pem", &d.join("cert.pem")); // a certificate where the key belongs
    assert!(err.contains("cert.pem: cannot read a private key"), "{err}");
    let err = run("cert.pem", &other_key); // the wrong key
    assert!(
        err.contains("rsa3072.pem: not the private key of the certificate in"),
        "{err}"
    );
    let err = run("cert.pem", &common::data("rsa1024.pem")); // a key numcrypt refuses
    assert!(
        err.contains("rsa1024.pem: ") && err.contains("numcrypt refused the RSA private key"),
        "{err}"
    );
    let usage = Command::new(example()).output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--cert is required"));
}
