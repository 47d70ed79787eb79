//! Shared helpers for the end-to-end tests: running `numcrypt` and
//! `openssl`, checking their exit statuses, and a scratch directory per
//! test.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// Runs the `numcrypt` binary.
pub fn numcrypt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_numcrypt"))
        .args(args)
        .output()
        .expect("run numcrypt")
}

/// Runs the `openssl` command.
pub fn openssl(args: &[&str]) -> Output {
    Command::new("openssl")
        .args(args)
        .output()
        .expect("run openssl")
}

/// Whether there is an `openssl` command to test against.
pub fn have_openssl() -> bool {
    Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// [`have_openssl`], saying that `test` is skipped when there is none.
pub fn openssl_or_skip(test: &str) -> bool {
    let found = have_openssl();
    if !found {
        println!("{test}: skipped: no openssl command");
    }
    found
}

/// `out`, after checking that it succeeded (`what` names it otherwise).
pub fn ok(out: Output, what: &str) -> Output {
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The exit status.
pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exit code")
}

/// On Unix, that only its owner can read the (private key) file at `path`.
pub fn assert_owner_only(path: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o077,
            0,
            "{path}: private key readable by others (mode {mode:o})"
        );
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// `bytes` as UTF-8 text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A fresh directory for one test, named after the test file and `name`.
pub fn scratch(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "cli-{}-{name}-{}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The path of `file` in `dir`, as an argument.
pub fn p(dir: &Path, file: &str) -> String {
    dir.join(file).to_str().unwrap().to_owned()
}

/// An openssl-made 2048-bit RSA key and its public key (SPKI PEM), as
/// `<stem>.pem` and `<stem>.pub` in `dir`.
pub fn openssl_rsa_key(dir: &Path, stem: &str) -> (String, String) {
    let (key, public) = (
        p(dir, &format!("{stem}.pem")),
        p(dir, &format!("{stem}.pub")),
    );
    ok(
        openssl(&[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
            &key,
        ]),
        "openssl genpkey",
    );
    ok(
        openssl(&["pkey", "-in", &key, "-pubout", "-out", &public]),
        "openssl pubout",
    );
    (key, public)
}
