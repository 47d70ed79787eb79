//! Hostile key files are refused within a second, with one line on
//! standard error and exit status 2, before the work they would cost: a
//! 1 MiB PKCS#1 key whose `d` and `p` are 350 KB each (given where a public
//! key is expected, which a private key file may be), a public exponent of
//! 16383 bits, a multi-prime key with twenty thousand primes, and
//! encrypted keys asking for PBKDF2 with 2^31 iterations or scrypt with
//! `N = 2^30`. The encrypted ones run with the address space
//! capped at 512 MiB, so an attempt to allocate scrypt's memory would abort
//! the process instead of exiting 2.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::*;
use pkcs8::der::Encode;
use pkcs8::der::asn1::OctetStringRef;
use pkcs8::der::pem::LineEnding;
use pkcs8::pkcs5::pbes2;

/// Runs `numcrypt args` (under `ulimit -v` when `cap_kib` is given),
/// insisting on exit 2 within a second with one line containing every one
/// of `needles`.
fn refused_at_once(args: &[&str], cap_kib: Option<u64>, needles: &[&str]) {
    let start = Instant::now();
    let out = match cap_kib {
        None => numcrypt(args),
        Some(kib) => Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_numcrypt"))
            .args(args)
            .output()
            .expect("run numcrypt under ulimit"),
    };
    let took = start.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(code(&out), 2, "{args:?}: {stderr}");
    assert!(took < Duration::from_secs(1), "{args:?} took {took:?}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
    }
}

/// DER: a tag, a length, the contents.
fn tlv(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = contents.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(contents);
    out
}

/// A positive DER INTEGER.
fn integer(value: &[u8]) -> Vec<u8> {
    let mut v = vec![];
    if value[0] & 0x80 != 0 {
        v.push(0);
    }
    v.extend_from_slice(value);
    tlv(0x02, &v)
}

#[test]
fn a_one_mib_pkcs1_key_is_refused_within_a_second() {
    let dir = scratch("hostile-pkcs1");
    // n = 2^2047 + 1 (any odd 2048-bit number passes the public checks),
    // e = 65537, d and p of 350 KB each.
    let n = [&[0x80][..], &[0; 254], &[1]].concat();
    let big = |seed: u8| -> Vec<u8> {
        (0..350_000u32)
            .map(|i| (i as u8).wrapping_mul(29).wrapping_add(seed) | 1)
            .collect()
    };
    let body: Vec<u8> = [
        integer(&[0]),
        integer(&n),
        integer(&[1, 0, 1]),
        integer(&big(3)),
        integer(&big(5)),
        integer(&[3]),
        integer(&[1]),
        integer(&[1]),
        integer(&[1]),
    ]
    .concat();
    let der = tlv(0x30, &body);
    let pem = pkcs8::der::pem::encode_string("RSA PRIVATE KEY", LineEnding::LF, &der).unwrap();
    assert!(pem.len() > 900_000 && pem.len() < 1 << 20, "{}", pem.len());
    let key = p(&dir, "hostile.pem");
    std::fs::write(&key, pem).unwrap();
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"message").unwrap();
    let sig = p(&dir, "sig");
    std::fs::write(&sig, [0u8; 256]).unwrap();
    refused_at_once(
        &["rsa", "verify", "--pub", &key, "--in", &msg, "--sig", &sig],
        None,
        &["hostile.pem", "inconsistent RSA private key"],
    );
    refused_at_once(
        &["rsa", "sign", "--key", &key, "--in", &msg],
        None,
        &["hostile.pem", "inconsistent RSA private key"],
    );
}

#[test]
fn a_key_with_twenty_thousand_primes_is_refused_at_once() {
    let dir = scratch("many-primes");
    // A PKCS#1 key of version `multi` (1) with 20,000 `OtherPrimeInfo`s
    // after p and q: refused from the count, before any of them is used.
    let n = [&[0x80][..], &[0; 254], &[1]].concat();
    let other = tlv(
        0x30,
        &[integer(&[3]), integer(&[1]), integer(&[1])].concat(),
    );
    let others = tlv(0x30, &other.repeat(20_000));
    let body: Vec<u8> = [
        integer(&[1]),
        integer(&n),
        integer(&[1, 0, 1]),
        integer(&[3]),
        integer(&[3]),
        integer(&[3]),
        integer(&[1]),
        integer(&[1]),
        integer(&[1]),
        others,
    ]
    .concat();
    let der = tlv(0x30, &body);
    let pem = pkcs8::der::pem::encode_string("RSA PRIVATE KEY", LineEnding::LF, &der).unwrap();
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"message").unwrap();
    let sig = p(&dir, "sig");
    std::fs::write(&sig, [0u8; 256]).unwrap();
    for (file, contents) in [
        ("many-primes.pem", pem.as_bytes()),
        ("many-primes.der", &der),
    ] {
        let key = p(&dir, file);
        std::fs::write(&key, contents).unwrap();
        let needles = [file, "20002 primes", "at most 3"];
        refused_at_once(
            &["rsa", "sign", "--key", &key, "--in", &msg],
            None,
            &needles,
        );
        // As --pub, a PKCS#1 private key file gives its own refusal (DER
        // too, which has no label to say what it is).
        refused_at_once(
            &["rsa", "verify", "--pub", &key, "--in", &msg, "--sig", &sig],
            None,
            &needles,
        );
    }
}

#[test]
fn a_huge_public_exponent_is_refused_at_once() {
    let dir = scratch("huge-e");
    // n = 2^16383 + 1, e = 2^16382 + 1: a 16383-bit e below a 16384-bit n.
    let n = [&[0x80][..], &[0; 2046], &[1]].concat();
    let e = [&[0x40][..], &[0; 2046], &[1]].concat();
    let der = tlv(0x30, &[integer(&n), integer(&e)].concat());
    let pem = pkcs8::der::pem::encode_string("RSA PUBLIC KEY", LineEnding::LF, &der).unwrap();
    let public = p(&dir, "huge-e.pem");
    std::fs::write(&public, pem).unwrap();
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"message").unwrap();
    let sig = p(&dir, "sig");
    std::fs::write(&sig, vec![1u8; 2048]).unwrap();
    refused_at_once(
        &[
            "rsa", "verify", "--pub", &public, "--in", &msg, "--sig", &sig,
        ],
        None,
        &["huge-e.pem", "exponent of 16383 bits", "maximum of 33"],
    );
}

/// An `ENCRYPTED PRIVATE KEY` with `kdf` around 48 arbitrary bytes.
fn encrypted_pem(kdf: pbes2::Kdf) -> String {
    let params = pbes2::Parameters {
        kdf,
        encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [7; 16] },
    };
    let der = pkcs8::EncryptedPrivateKeyInfoRef {
        encryption_algorithm: pkcs8::pkcs5::EncryptionScheme::Pbes2(params),
        encrypted_data: OctetStringRef::new(&[0x42; 48]).unwrap(),
    }
    .to_der()
    .unwrap();
    pkcs8::der::pem::encode_string("ENCRYPTED PRIVATE KEY", LineEnding::LF, &der).unwrap()
}

#[test]
fn costly_encrypted_keys_are_refused_before_deriving() {
    let dir = scratch("costly-kdf");
    let msg = p(&dir, "msg");
    std::fs::write(&msg, b"message").unwrap();
    // (pkcs5's constructor refuses such a count; its decoder does not.)
    let pbkdf2 = pbes2::Pbkdf2Params {
        salt: pbes2::Salt::try_from(&[1u8; 16][..]).unwrap(),
        iteration_count: 1 << 31,
        key_length: None,
        prf: pbes2::Pbkdf2Prf::HmacWithSha256,
    };
    let slow = p(&dir, "pbkdf2.pem");
    std::fs::write(&slow, encrypted_pem(pbkdf2.into())).unwrap();
    let scrypt = pbes2::ScryptParams {
        salt: pbes2::Salt::try_from(&[2u8; 16][..]).unwrap(),
        cost_parameter: 1 << 30,
        block_size: 8,
        parallelization: 1,
        key_length: None,
    };
    let hungry = p(&dir, "scrypt.pem");
    std::fs::write(&hungry, encrypted_pem(scrypt.into())).unwrap();
    let cap = Some(512 * 1024);
    for scheme in ["rsa", "dsa", "elgamal"] {
        let sign_or_decrypt: &[&str] = if scheme == "elgamal" {
            &["decrypt", "--in", &msg]
        } else {
            &["sign", "--in", &msg]
        };
        let args = |key: &str| -> Vec<String> {
            let mut a = vec![
                scheme.to_owned(),
                sign_or_decrypt[0].to_owned(),
                "--key".into(),
            ];
            a.push(key.to_owned());
            a.extend(["--passin".into(), "pass:pw".into()]);
            a.extend(sign_or_decrypt[1..].iter().map(|s| s.to_string()));
            a
        };
        let slow_args = args(&slow);
        let slow_args: Vec<&str> = slow_args.iter().map(String::as_str).collect();
        refused_at_once(
            &slow_args,
            cap,
            &[
                "pbkdf2.pem",
                "PBKDF2 iteration count, 2147483648",
                "10000000",
            ],
        );
        let hungry_args = args(&hungry);
        let hungry_args: Vec<&str> = hungry_args.iter().map(String::as_str).collect();
        refused_at_once(
            &hungry_args,
            cap,
            &["scrypt.pem", "1099511627776 bytes", "1073741824"],
        );
    }
}
