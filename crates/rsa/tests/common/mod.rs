//! What the integration tests share: the vectors folder and hex.

#![allow(dead_code)]

use std::path::PathBuf;

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
