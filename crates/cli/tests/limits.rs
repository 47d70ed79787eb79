//! Inputs beyond the documented limits are refused at once, with one line
//! naming the argument and the limit and exit status 2, before any work:
//! each of these ran without end (or aborted) before the limits existed.

use std::time::{Duration, Instant};

use crate::common::*;

/// Runs `numcrypt args`, insisting on a quick exit 2 whose message contains
/// every one of `needles`.
fn refused(args: &[&str], needles: &[&str]) {
    let start = Instant::now();
    let out = numcrypt(args);
    let took = start.elapsed();
    let stderr = text(&out.stderr);
    let shown: Vec<String> = args.iter().map(|a| a.chars().take(20).collect()).collect();
    assert_eq!(code(&out), 2, "{shown:?}: {stderr}");
    assert!(took < Duration::from_secs(5), "{shown:?} took {took:?}");
    assert_eq!(stderr.lines().count(), 1, "{shown:?}: one line: {stderr}");
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{shown:?}: {needle:?} not in {stderr}"
        );
    }
}

#[test]
fn numbers_larger_than_16384_bits_are_refused() {
    let huge = "7".repeat(100_000);
    refused(&["is-prime", &huge], &["number", "16384 bits"]);
    refused(&["modexp", "2", &huge, "97"], &["exponent", "16384 bits"]);
    refused(&["modexp", &huge, "3", "97"], &["base", "16384 bits"]);
    // Just over the limit in few characters: 2^16384 + 1.
    let over = format!("0x1{}1", "0".repeat(4095));
    refused(&["modexp", "2", "3", &over], &["modulus", "16384 bits"]);
    // The limit itself is accepted.
    let at = format!("0x{}", "f".repeat(4096));
    let out = numcrypt(&["modexp", "2", "3", &at]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
}

#[test]
fn prime_sizes_and_thread_counts_are_bounded() {
    refused(&["prime", "--bits", "100000"], &["--bits 100000", "16384"]);
    refused(&["prime", "--bits", "4294967295"], &["--bits", "16384"]);
    refused(
        &["prime", "--bits", "64", "--threads", "100000"],
        &["--threads 100000", "per available core"],
    );
    refused(
        &["rsa", "keygen", "--threads", "100000"],
        &["--threads 100000", "per available core"],
    );
}

#[test]
fn oversized_files_are_refused_before_they_are_read_whole() {
    let dir = scratch("big-files");
    let big = p(&dir, "big.pem");
    std::fs::write(&big, vec![b'A'; (1 << 20) + 1]).unwrap();
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"message").unwrap();
    refused(
        &["rsa", "sign", "--key", &big, "--in", &msg],
        &["big.pem", "larger than 1 MiB"],
    );
    refused(
        &["rsa", "verify", "--pub", &big, "--in", &msg, "--sig", &msg],
        &["big.pem", "larger than 1 MiB"],
    );
}

#[test]
fn shared_rsa_durations_are_bounded() {
    let dir = scratch("timeouts");
    let config = dir.join("party.toml");
    std::fs::write(
        &config,
        "index = 1\nbits = 512\ntimeout_secs = 9223372036854775807\nkey_share = \"s.pem\"\n\
         certificate = \"c.pem\"\nprivate_key = \"k.pem\"\n\
         [[party]]\nindex = 1\naddress = \"127.0.0.1:1\"\n",
    )
    .unwrap();
    refused(
        &["shared-rsa", "party", "--config", config.to_str().unwrap()],
        &["timeout_secs", "86400"],
    );
}
