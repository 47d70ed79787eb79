//! Issue 16's yardstick: a newcomer's sign/verify/decrypt program is no
//! longer with numcrypt than with RustCrypto's `rsa` for the same job.
//! The two programs are `examples/newcomer_numcrypt.rs` and
//! `examples/newcomer_rustcrypto.rs`; CI runs both and compares what they
//! print, and this test compares their size.

/// Lines of code and their non-blank characters, without comments and
/// blank lines, and without the one line only this workspace needs (it
/// names RustCrypto's crate `rustcrypto_rsa`).
fn size(path: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let code: Vec<&str> = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or("").trim())
        .filter(|line| !line.is_empty() && *line != "use rustcrypto_rsa as rsa;")
        .collect();
    let chars = code
        .iter()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).count())
        .sum();
    (code.len(), chars)
}

#[test]
fn numcrypt_program_is_no_longer_than_rustcrypto_rsa() {
    let ours = size("examples/newcomer_numcrypt.rs");
    let theirs = size("examples/newcomer_rustcrypto.rs");
    println!("numcrypt: {} lines, {} characters", ours.0, ours.1);
    println!(
        "RustCrypto rsa 0.9: {} lines, {} characters",
        theirs.0, theirs.1
    );
    assert!(ours.0 > 10, "the program is read: {ours:?}");
    assert!(ours.0 <= theirs.0, "lines: {ours:?} vs {theirs:?}");
    assert!(ours.1 <= theirs.1, "characters: {ours:?} vs {theirs:?}");
}
