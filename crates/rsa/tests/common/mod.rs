//! What the integration tests share: the vectors folder, hex, and the
//! `openssl` command line.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use tempfile::TempDir;

/// The folder of shared conformance vectors: `NUMCRYPT_VECTORS`, or
/// `../shared/vectors` beside the repository. `None` (after printing one
/// line saying the test is skipped) when it does not exist.
pub fn vectors_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("NUMCRYPT_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors")
        });
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "{test}: skipped: no vectors folder at {} (set NUMCRYPT_VECTORS)",
            dir.display()
        );
        None
    }
}

pub fn hex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// What `openssl args` writes to standard output; `None` when there is no
/// `openssl` command, a test failure when it fails.
pub fn openssl(args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("openssl").args(args).output().ok()?;
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

/// A scratch folder (removed when dropped: it holds private keys) and an
/// openssl-made key of `algorithm` with `opts` (2048 bits unless they say
/// otherwise: openssl takes the last `rsa_keygen_bits`), or `None` without
/// openssl.
pub fn setup(name: &str, algorithm: &str, opts: &[&str]) -> Option<(TempDir, String)> {
    let dir = tempfile::Builder::new()
        .prefix(&format!("numcrypt-rsa-{name}-"))
        .tempdir()
        .unwrap();
    let key = path(&dir, "key.pem");
    let mut args = vec![
        "genpkey",
        "-algorithm",
        algorithm,
        "-pkeyopt",
        "rsa_keygen_bits:2048",
    ];
    args.extend(opts);
    args.extend(["-out", &key]);
    if Command::new("openssl").arg("version").output().is_err() {
        println!("{name}: skipped: no openssl command");
        return None;
    }
    openssl(&args)?;
    Some((dir, key))
}

pub fn path(dir: &TempDir, file: &str) -> String {
    dir.path().join(file).display().to_string()
}
