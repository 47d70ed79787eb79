//! Replays the checked-in cargo-fuzz corpora of every target
//! (`fuzz/corpus/<target>/`) through
//! the same checks the fuzzer runs, so that CI exercises every saved input
//! without libFuzzer or a nightly toolchain.

#[path = "../fuzz/src/differential.rs"]
mod differential;
#[path = "../fuzz/src/dlog_parsers.rs"]
mod dlog_parsers;
#[path = "../fuzz/src/is_prime.rs"]
mod is_prime;
#[path = "../fuzz/src/rsa.rs"]
mod rsa;
#[path = "../fuzz/src/shared_rsa.rs"]
mod shared_rsa;

use std::fs;
use std::path::PathBuf;

#[test]
fn differential_corpus() {
    replay("differential", differential::check);
}

#[test]
fn is_prime_corpus() {
    replay("is_prime", is_prime::check);
}

#[test]
fn dlog_parsers_corpus() {
    replay("dlog_parsers", dlog_parsers::check);
}

#[test]
fn rsa_parsers_corpus() {
    replay("rsa_parsers", rsa::parsers);
}

#[test]
fn rsa_differential_corpus() {
    replay("rsa_differential", rsa::differential);
}

#[test]
fn shared_rsa_parsers_corpus() {
    replay("shared_rsa_parsers", shared_rsa::check);
}

fn replay(target: &str, check: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no corpus files", dir.display());
    // Run every file, then report all failures together.
    let mut failed = Vec::new();
    for path in &files {
        let data = fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        if std::panic::catch_unwind(|| check(&data)).is_err() {
            eprintln!(
                "corpus file {} failed (panic message above)",
                path.display()
            );
            failed.push(path.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} corpus files failed:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
    println!(
        "replayed {} corpus files from {}",
        files.len(),
        dir.display()
    );
}
