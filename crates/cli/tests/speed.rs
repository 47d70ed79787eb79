//! `numcrypt speed`, briefly: what it prints first, a table of each kind,
//! `--variants`' check, and its refusals.

use crate::common::{code, numcrypt, text};

/// Rows of a table: the operation's name, then a time and a rate per column.
fn rows<'a>(out: &'a str, prefix: &str) -> Vec<&'a str> {
    out.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn tables_after_the_cpu_and_the_choices() {
    let out = numcrypt(&["speed", "rsa2048", "modexp", "field", "--seconds", "0.01"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    let first = lines.next().unwrap();
    assert!(first.starts_with("CPU: "), "{first}");
    assert!(first.contains("limb kernels: "), "{first}");
    assert!(first.contains("exponentiation: "), "{first}");
    assert!(stdout.contains("exponentiation by modulus size (one / a CRT pair of two):"));
    for bits in [1024, 1536, 2048, 3072, 4096] {
        assert!(stdout.contains(&format!("  {bits}: ")), "{bits}: {stdout}");
    }
    // Keygen, sign and verify: a time and a rate each, all positive.
    let rsa = rows(&stdout, "rsa 2048 bits");
    assert_eq!(rsa.len(), 1, "{stdout}");
    let numbers: Vec<f64> = rsa[0]
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(numbers.len() >= 4, "{}", rsa[0]);
    assert!(numbers.iter().all(|&x| x > 0.0), "{}", rsa[0]);
    assert_eq!(rows(&stdout, "modexp ").len(), 5, "{stdout}");
    assert_eq!(rows(&stdout, "field ").len(), 6, "{stdout}");
    assert!(rows(&stdout, "dsa").is_empty(), "only what was asked for");
}

#[test]
fn batch_columns_for_every_signature_that_batches() {
    let out = numcrypt(&[
        "speed",
        "dsa",
        "elgamal",
        "--batch",
        "3",
        "--seconds",
        "0.01",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("batch: 3 messages a batch signing call"),
        "{stdout}"
    );
    // A header with a batch column, and each row with one more time and
    // rate than without it: sign, verify and batch for DSA; sign, verify,
    // decrypt and batch for ElGamal.
    for (prefix, columns) in [
        ("dsa 2048/256", 3),
        ("dsa 3072/256", 3),
        ("elgamal ffdhe2048", 4),
    ] {
        let row = rows(&stdout, prefix);
        assert_eq!(row.len(), 1, "{prefix}: {stdout}");
        let numbers: Vec<f64> = row[0]
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        assert!(numbers.len() >= 2 * columns, "{}", row[0]);
        assert!(numbers.iter().all(|&x| x > 0.0), "{}", row[0]);
    }
    assert_eq!(
        stdout.matches("batch/s").count(),
        2,
        "two headers: {stdout}"
    );
}

#[test]
fn variants_mark_the_choice_and_check_it() {
    let out = numcrypt(&["speed", "--variants", "--rounds", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // Each size and shape marks exactly one variant, and the limb kernels
    // run at every one of them.
    for bits in ["1024", "1536", "2048", "3072", "4096"] {
        for shape in ["one", "pair", "e"] {
            let lines: Vec<&str> = stdout
                .lines()
                .filter(|l| {
                    let mut w = l.split_whitespace();
                    w.next() == Some(bits) && w.next() == Some(shape)
                })
                .collect();
            assert_eq!(
                lines.iter().filter(|l| l.contains(" * ")).count(),
                1,
                "{bits} {shape}: {stdout}"
            );
            assert!(
                lines.iter().any(|l| l.ends_with("limb kernels")),
                "{bits} {shape}: {stdout}"
            );
            // Where several ran, every other one carries the choice's
            // time ÷ its own, round by round: "median (low–high)".
            if lines.len() > 1 {
                for l in lines.iter().filter(|l| !l.contains(" * ")) {
                    assert!(l.contains('(') && l.contains('–'), "{l}");
                }
            }
        }
    }
    // One round is too few to judge: only that the check ran and said
    // something.
    assert!(stdout.contains("selection check: "), "{stdout}");
}

#[test]
fn refusals() {
    let out = numcrypt(&["speed", "--threads", "100000", "field"]);
    assert_eq!(code(&out), 2, "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--threads"));
    let out = numcrypt(&["speed", "--seconds", "0", "field"]);
    assert_eq!(code(&out), 2);
    let out = numcrypt(&["speed", "rsa1024"]);
    assert_eq!(code(&out), 2);
}
