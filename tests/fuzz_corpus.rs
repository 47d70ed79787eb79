//! Replays the checked-in cargo-fuzz corpus of the `differential` target
//! (`fuzz/corpus/differential/`) through the same check the fuzzer runs, so
//! that CI exercises every saved input without libFuzzer or a nightly
//! toolchain.

#[path = "../fuzz/src/differential.rs"]
mod differential;

use std::fs;
use std::path::PathBuf;

#[test]
fn differential_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/differential");
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
        if std::panic::catch_unwind(|| differential::check(&data)).is_err() {
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
