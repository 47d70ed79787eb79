//! The `openssl` command line and scratch files for the integration tests
//! of several crates (DSA and ElGamal), included by their `tests/common`
//! modules with `#[path]` so that the helpers have one home.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh scratch directory under the target directory, named after the
/// package, the test file and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "{}-{}-{name}",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_CRATE_NAME")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the `openssl` command.
pub fn openssl(args: &[&str]) -> Output {
    Command::new("openssl")
        .args(args)
        .output()
        .expect("the openssl command line")
}

/// Runs the `openssl` command, which must succeed.
pub fn ok(args: &[&str]) -> Output {
    let out = openssl(args);
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `openssl pkey`: the public key of the private key in `key`, written to
/// `public`.
pub fn pubout(key: &Path, public: &Path) {
    ok(&["pkey", "-in", path(key), "-pubout", "-out", path(public)]);
}

/// `openssl genpkey`: a new `algorithm` key (with the option `opt`)
/// written to `out`.
pub fn genpkey(algorithm: &str, opt: &str, out: &Path) {
    ok(&[
        "genpkey",
        "-algorithm",
        algorithm,
        "-pkeyopt",
        opt,
        "-out",
        path(out),
    ]);
}

pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}
