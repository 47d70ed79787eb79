//! Project Wycheproof's DSA verification vectors (DER and P1363), every
//! test case checked against its expected result.

use std::path::PathBuf;

use numcrypt_dsa::{BoxedUint, VerifyingKey};
use serde_json::Value;
use sha2::Sha256;

/// The vectors folder: `$NUMCRYPT_VECTORS`, or `../shared/vectors` beside
/// the repository; `None` (and one line saying so) when absent.
fn vectors_dir(test: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("NUMCRYPT_VECTORS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors"),
    };
    let dir = dir.join("wycheproof");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "{test}: skipped: no Wycheproof vectors at {} (set NUMCRYPT_VECTORS)",
            dir.display()
        );
        None
    }
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("hex in the vector file")
}

/// Wycheproof's integers are big-endian two's complement hex; the key
/// values are all positive.
fn big(s: &str) -> BoxedUint {
    let even = if s.len() % 2 == 1 {
        format!("0{s}")
    } else {
        s.to_string()
    };
    BoxedUint::from_be_slice_auto(&unhex(&even))
}

#[derive(Default, Debug)]
struct Tally {
    valid: usize,
    invalid: usize,
    acceptable_accepted: usize,
    acceptable_rejected: usize,
}

fn run(file: &str, p1363: bool) -> Option<Tally> {
    let dir = vectors_dir(file)?;
    let text = std::fs::read_to_string(dir.join(file)).expect("vector file");
    let json: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(json["algorithm"], "DSA");
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for group in json["testGroups"].as_array().expect("groups") {
        assert_eq!(group["sha"], "SHA-256", "only SHA-256 groups are expected");
        let der = unhex(group["publicKeyDer"].as_str().expect("key DER"));
        let key = VerifyingKey::from_public_key_der(&der).expect("the group's public key");
        // The DER parser agrees with the group's listed values.
        let listed = &group["publicKey"];
        for (name, value) in [
            ("p", key.params().p()),
            ("q", key.params().q()),
            ("g", key.params().g()),
            ("y", key.y()),
        ] {
            assert_eq!(*value, big(listed[name].as_str().expect("value")), "{name}");
        }
        // So does the PEM form.
        let pem = group["publicKeyPem"].as_str().expect("key PEM");
        assert_eq!(
            VerifyingKey::from_public_key_pem(pem).expect("PEM key"),
            key
        );

        for test in group["tests"].as_array().expect("tests") {
            let id = test["tcId"].as_u64().expect("tcId");
            let msg = unhex(test["msg"].as_str().expect("msg"));
            let sig = unhex(test["sig"].as_str().expect("sig"));
            let outcome = if p1363 {
                key.verify_p1363::<Sha256>(&msg, &sig)
            } else {
                key.verify_der::<Sha256>(&msg, &sig)
            };
            match (test["result"].as_str().expect("result"), outcome) {
                ("valid", Ok(())) => tally.valid += 1,
                ("invalid", Err(_)) => tally.invalid += 1,
                ("acceptable", Ok(())) => tally.acceptable_accepted += 1,
                ("acceptable", Err(_)) => tally.acceptable_rejected += 1,
                (expected, got) => failures.push(format!(
                    "tcId {id} ({}): expected {expected}, got {got:?}",
                    test["comment"]
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{file}:\n{}", failures.join("\n"));
    let declared = json["numberOfTests"].as_u64().expect("count") as usize;
    let seen = tally.valid + tally.invalid + tally.acceptable_accepted + tally.acceptable_rejected;
    assert_eq!(seen, declared, "{file}: every test case ran");
    println!("{file}: {tally:?}");
    Some(tally)
}

#[test]
fn wycheproof_dsa_2048_224_sha256_der() {
    if let Some(t) = run("dsa_2048_224_sha256_test.json", false) {
        assert_eq!((t.valid, t.invalid), (80, 283));
        // The one "acceptable" case is r encoded without its leading zero
        // (a negative INTEGER in strict DER): refused.
        assert_eq!(t.acceptable_rejected, 1);
    }
}

#[test]
fn wycheproof_dsa_2048_256_sha256_der() {
    if let Some(t) = run("dsa_2048_256_sha256_test.json", false) {
        assert_eq!((t.valid, t.invalid), (82, 283));
        assert_eq!(t.acceptable_rejected, 1);
    }
}

#[test]
fn wycheproof_dsa_2048_224_sha256_p1363() {
    if let Some(t) = run("dsa_2048_224_sha256_p1363_test.json", true) {
        assert_eq!((t.valid, t.invalid), (79, 58));
    }
}
