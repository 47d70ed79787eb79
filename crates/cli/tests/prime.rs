//! `numcrypt is-prime` and `numcrypt prime` end to end, against num-bigint
//! and the `openssl prime` command.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::common::{have_openssl, numcrypt, openssl, text};
use num_bigint::BigUint;

fn numcrypt_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_numcrypt"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn numcrypt");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().expect("wait")
}

#[test]
fn is_prime_arguments() {
    let out = numcrypt(&[
        "is-prime",
        "2",
        "0x61",
        "170141183460469231731687303715884105727",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "2 prime\n0x61 prime\n170141183460469231731687303715884105727 prime\n"
    );
    let out = numcrypt(&["is-prime", "7", "561", "-7", "0", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "7 prime\n561 composite\n-7 composite\n0 composite\n1 composite\n"
    );
}

#[test]
fn is_prime_stdin() {
    let out = numcrypt_stdin(&["is-prime"], "13\n\n  0x1f  \n3317044064679887385961981\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "13 prime\n0x1f prime\n3317044064679887385961981 composite\n"
    );
    let out = numcrypt_stdin(&["is-prime"], "5\n11\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn is_prime_malformed_input() {
    for args in [
        &["is-prime", "12x"][..],
        &["is-prime", "7", ""],
        &["is-prime", "0x"],
        &["is-prime", "--5"],
    ] {
        let out = numcrypt(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    let out = numcrypt(&["is-prime", "7", "abc"]);
    assert!(text(&out.stderr).contains("\"abc\""));
    let out = numcrypt_stdin(&["is-prime"], "7\nnope\n11\n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "7 prime\n");
    assert!(text(&out.stderr).contains("\"nope\""));
}

#[test]
fn prime_generates_checked_primes() {
    let out = numcrypt(&["prime", "--bits", "256", "--count", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 3);
    // Not a terminal: no progress on stderr.
    assert!(out.stderr.is_empty());
    for l in &lines {
        let n: BigUint = l.parse().unwrap();
        assert_eq!(n.bits(), 256);
        assert!(n.bit(254));
    }
    // Cross-check with numcrypt is-prime and openssl.
    let mut args = vec!["is-prime"];
    args.extend(lines.iter().map(String::as_str));
    assert_eq!(numcrypt(&args).status.code(), Some(0));
    if have_openssl() {
        for l in &lines {
            let o = openssl(&["prime", l]);
            assert!(text(&o.stdout).contains("is prime"), "{l}");
        }
    }
}

#[test]
fn prime_safe_strong_and_hex() {
    let out = numcrypt(&["prime", "--bits", "128", "--safe", "--hex"]);
    assert_eq!(out.status.code(), Some(0));
    let line = text(&out.stdout);
    let hex = line.trim().strip_prefix("0x").expect("0x prefix");
    let p = BigUint::parse_bytes(hex.as_bytes(), 16).unwrap();
    assert_eq!(p.bits(), 128);
    let q: BigUint = &p >> 1u32;
    let out = numcrypt(&["is-prime", &p.to_string(), &q.to_string()]);
    assert_eq!(out.status.code(), Some(0));

    let out = numcrypt(&["prime", "--bits", "256", "--strong"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let p: BigUint = text(&out.stdout).trim().parse().unwrap();
    assert_eq!(p.bits(), 256);
}

/// `is-prime --hex` reads what `openssl prime -generate -hex` prints.
#[test]
fn is_prime_reads_openssl_hex() {
    if !have_openssl() {
        println!("is_prime_reads_openssl_hex: skipped: no openssl command");
        return;
    }
    let o = openssl(&["prime", "-generate", "-bits", "128", "-hex"]);
    let theirs = text(&o.stdout).trim().to_string();
    assert!(theirs.bytes().all(|b| b.is_ascii_hexdigit()), "{theirs}");
    let out = numcrypt(&["is-prime", "--hex", &theirs, &format!("0x{theirs}")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!("{theirs} prime\n0x{theirs} prime\n")
    );
    // Times three is composite; as a decimal it is malformed.
    let p = BigUint::parse_bytes(theirs.as_bytes(), 16).unwrap();
    let out = numcrypt(&["is-prime", "--hex", &format!("{:X}", p * 3u32)]);
    assert_eq!(out.status.code(), Some(1));
    if theirs.bytes().any(|b| b.is_ascii_alphabetic()) {
        assert_eq!(numcrypt(&["is-prime", &theirs]).status.code(), Some(2));
    }
}

#[test]
fn prime_threads() {
    for (threads, kind) in [
        ("1", None),
        ("3", None),
        ("2", Some("--safe")),
        ("4", Some("--strong")),
    ] {
        let mut args = vec![
            "prime",
            "--bits",
            "256",
            "--count",
            "2",
            "--threads",
            threads,
        ];
        args.extend(kind);
        let out = numcrypt(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let lines: Vec<BigUint> = text(&out.stdout)
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{args:?}");
        let mut check = lines.clone();
        if kind == Some("--safe") {
            check.extend(lines.iter().map(|p| p >> 1u32));
        }
        for n in &check {
            assert!(ref_is_prime(n), "{args:?}: {n}");
        }
        for n in &lines {
            assert_eq!(n.bits(), 256, "{args:?}");
            assert!(n.bit(254), "{args:?}");
        }
    }
    for bad in ["0", "-1", "x", ""] {
        let out = numcrypt(&["prime", "--bits", "64", "--threads", bad]);
        assert_eq!(out.status.code(), Some(2), "--threads {bad:?}");
        assert!(out.stdout.is_empty());
        let err = text(&out.stderr);
        assert!(
            bad == "-1" || err.contains("--threads"),
            "--threads {bad:?}: {err}"
        );
    }
}

/// Primality by num-bigint: trial division, then Miller–Rabin to the first
/// 20 prime bases (independent of numcrypt; ample for these random primes).
fn ref_is_prime(n: &BigUint) -> bool {
    let small = [
        2u32, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
    ];
    if small.iter().any(|&p| *n == BigUint::from(p)) {
        return true;
    }
    if small.iter().any(|&p| (n % p) == BigUint::from(0u8)) {
        return false;
    }
    let one = BigUint::from(1u8);
    let n1 = n - &one;
    let s = n1.trailing_zeros().unwrap_or(0);
    let d = &n1 >> s;
    small.iter().all(|&a| {
        let mut x = BigUint::from(a).modpow(&d, n);
        if x == one || x == n1 {
            return true;
        }
        for _ in 1..s {
            x = &x * &x % n;
            if x == n1 {
                return true;
            }
        }
        false
    })
}

#[test]
fn prime_bad_bits() {
    for args in [
        &["prime", "--bits", "1"][..],
        &["prime", "--bits", "5", "--safe"],
        &["prime", "--bits", "100", "--strong"],
        &["prime", "--bits", "x"],
        &["prime"],
        &["prime", "--bits", "64", "--safe", "--strong"],
    ] {
        let out = numcrypt(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let out = numcrypt(&["prime", "--bits", "1"]);
    let err = text(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("at least 2"), "{err}");
}
