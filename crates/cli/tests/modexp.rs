//! `numcrypt modexp` end to end, against num-bigint.

use std::process::Output;

use crate::common::numcrypt;
use num_bigint::BigUint;

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn decimal_in_decimal_out() {
    let (b, e, m) = (
        "123456789012345678901234567890",
        "98765432109876543210",
        "1000000000000000000000000000000000000000000000000000000000000000000000007",
    );
    let out = numcrypt(&["modexp", b, e, m]);
    assert!(out.status.success());
    let expect = BigUint::parse_bytes(b.as_bytes(), 10).unwrap().modpow(
        &BigUint::parse_bytes(e.as_bytes(), 10).unwrap(),
        &BigUint::parse_bytes(m.as_bytes(), 10).unwrap(),
    );
    assert_eq!(stdout(&out), expect.to_string());
}

#[test]
fn result_follows_the_modulus_base() {
    // RSA-style: a 1024-bit odd modulus in hex, a decimal base.
    let m_hex = format!("{:x}", (BigUint::from(1u8) << 1024u32) - 1105u32);
    let m = format!("0x{m_hex}");
    let out = numcrypt(&["modexp", "65537", "0xdeadbeefcafebabe0123456789", &m]);
    assert!(out.status.success());
    let modulus = BigUint::parse_bytes(m_hex.as_bytes(), 16).unwrap();
    let expect = BigUint::from(65537u32).modpow(
        &BigUint::parse_bytes(b"deadbeefcafebabe0123456789", 16).unwrap(),
        &modulus,
    );
    assert_eq!(stdout(&out), format!("{expect:#x}"));
    // And a hex modulus with a decimal base gives hex; the reverse gives decimal.
    let out = numcrypt(&["modexp", "0x10", "2", "1000001"]);
    assert_eq!(stdout(&out), "256");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    for args in [
        &["modexp", "2", "3", "10"][..], // even modulus
        &["modexp", "2", "3", "0"],      // zero modulus
        &["modexp", "2", "3", "1"],      // modulus one
        &["modexp", "2x", "3", "7"],     // bad digit
        &["modexp", "2", "", "7"],       // empty
        &["modexp", "2", "3"],           // missing argument
        &["nonsense"],
    ] {
        let out = numcrypt(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.trim().is_empty(), "{args:?}");
        if args.len() == 4 {
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        }
    }
}

#[test]
fn help_lists_modexp() {
    let out = numcrypt(&["--help"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("modexp"));
}

#[test]
fn negative_base_is_taken_modulo_the_modulus() {
    // (−b)^e mod m = (m − b mod m)^e mod m, computed by num-bigint.
    let m = BigUint::parse_bytes(b"1000000000000000000000000000057", 10).unwrap();
    for (b, e) in [
        ("2", "3"),
        ("2", "2"),
        ("123456789123456789", "65537"),
        ("0", "5"),
    ] {
        let out = numcrypt(&["modexp", &format!("-{b}"), e, &m.to_string()]);
        assert!(out.status.success(), "{b} {e}");
        let b = BigUint::parse_bytes(b.as_bytes(), 10).unwrap() % &m;
        let positive = (&m - b) % &m;
        let e = BigUint::parse_bytes(e.as_bytes(), 10).unwrap();
        assert_eq!(stdout(&out), positive.modpow(&e, &m).to_string());
    }
    // Negative exponents and moduli are errors naming the argument.
    for (args, named) in [
        (
            ["modexp", "2", "-3", "11"],
            "exponent \"-3\": must not be negative",
        ),
        (
            ["modexp", "2", "3", "-11"],
            "modulus \"-11\": must not be negative",
        ),
    ] {
        let out = numcrypt(&args);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(named),
            "{args:?}"
        );
    }
}

#[test]
fn a_closed_standard_output_is_not_a_panic() {
    // `numcrypt modexp … | head -c0`: the reader is gone before the result
    // is written. The result is simply not delivered (exit 0), where
    // `println!` used to panic (exit 101).
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_numcrypt"))
        .args(["modexp", "4", "13", "497"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
