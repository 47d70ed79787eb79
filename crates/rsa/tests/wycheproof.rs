//! Project Wycheproof's RSA vectors: every test case of every group is
//! checked against its expected result (`valid`, `invalid`, or
//! `acceptable`, where either outcome is allowed).

use std::collections::BTreeMap;

use crate::common::{hex, vectors_dir};
use numcrypt_rsa::{
    BoxedUint, Error, HashAlg, RsaPrivateKey, RsaPublicKey, pkcs1v15, pss::SaltLength,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::Value;

fn big(v: &Value) -> BoxedUint {
    BoxedUint::from_be_slice_auto(&hex(v.as_str().expect("hex string")))
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_else(|| panic!("missing {key}"))
}

/// Counts outcomes per expected result, and fails on any mismatch.
#[derive(Default)]
struct Tally {
    seen: BTreeMap<String, usize>,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, test: &Value, accepted: bool, detail: &str) {
        let id = test["tcId"].as_u64().unwrap();
        let expected = s(test, "result");
        *self.seen.entry(expected.to_owned()).or_default() += 1;
        let ok = match expected {
            "valid" => accepted,
            "invalid" => !accepted,
            "acceptable" => true,
            other => panic!("tcId {id}: unknown result {other}"),
        };
        if !ok {
            self.failures.push(format!(
                "tcId {id} ({}; {:?}): expected {expected}, got {} {detail}",
                s(test, "comment"),
                test["flags"],
                if accepted { "accepted" } else { "rejected" }
            ));
        }
    }

    fn finish(self, name: &str, total: u64) {
        let counted: usize = self.seen.values().sum();
        assert_eq!(counted as u64, total, "{name}: numberOfTests");
        assert!(
            self.failures.is_empty(),
            "{name}:\n{}",
            self.failures.join("\n")
        );
        println!("{name}: {total} tests, {:?}", self.seen);
    }
}

/// Checks the Wycheproof file `{name}_test.json`: `check_group` checks
/// each test group's cases into the tally, which must then count
/// `numberOfTests` with no failure. Skipped (by `test`) without vectors.
fn run(test: &str, name: &str, mut check_group: impl FnMut(&Value, &mut Tally)) {
    let Some(dir) = vectors_dir(test) else {
        return;
    };
    let path = dir.join("wycheproof").join(format!("{name}_test.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let mut tally = Tally::default();
    for group in doc["testGroups"].as_array().unwrap() {
        check_group(group, &mut tally);
    }
    tally.finish(name, doc["numberOfTests"].as_u64().unwrap());
}

/// A test group's cases.
fn tests(group: &Value) -> &[Value] {
    group["tests"].as_array().unwrap()
}

/// A test group's public key, from its modulus and exponent.
fn public_key(group: &Value) -> RsaPublicKey {
    let key = &group["publicKey"];
    RsaPublicKey::new(&big(&key["modulus"]), &big(&key["publicExponent"])).expect("key")
}

fn hash_of(name: &str) -> Result<HashAlg, Error> {
    Ok(name.parse()?)
}

#[test]
fn pkcs1v15_verify() {
    run(
        "pkcs1v15_verify",
        "rsa_signature_2048_sha256",
        |group, tally| {
            let public = public_key(group);
            // The same key through its SubjectPublicKeyInfo encoding.
            let der = hex(s(group, "publicKeyDer"));
            assert_eq!(RsaPublicKey::from_public_key_der(&der).unwrap(), public);
            assert_eq!(public.to_public_key_der().unwrap(), der);
            let hash = hash_of(s(group, "sha")).unwrap();
            for test in tests(group) {
                let r = public.verify_pkcs1v15(hash, &hex(s(test, "msg")), &hex(s(test, "sig")));
                tally.check(test, r.is_ok(), &format!("{r:?}"));
            }
        },
    );
}

#[test]
fn pss_verify() {
    run(
        "pss_verify",
        "rsa_pss_2048_sha256_mgf1_32",
        |group, tally| {
            let public = public_key(group);
            let hash = hash_of(s(group, "sha")).unwrap();
            assert_eq!(
                hash_of(s(group, "mgfSha")).unwrap(),
                hash,
                "MGF1 uses the same hash here"
            );
            let salt = SaltLength::Bytes(group["sLen"].as_u64().unwrap() as usize);
            for test in tests(group) {
                let (msg, sig) = (hex(s(test, "msg")), hex(s(test, "sig")));
                let r = public.verify_pss(hash, &msg, &sig, salt);
                tally.check(test, r.is_ok(), &format!("{r:?}"));
                // Reading the salt length from the signature must agree on
                // valid signatures (their salt is 32 bytes).
                if r.is_ok() {
                    assert!(
                        public
                            .verify_pss(hash, &msg, &sig, SaltLength::Auto)
                            .is_ok()
                    );
                }
            }
        },
    );
}

/// Signature generation: the keys come as (n, e, d) only, so the primes are
/// recovered first; PKCS#1 v1.5 signatures are deterministic, so ours must
/// equal the vectors' byte for byte. SHA-1 groups (flagged `WeakHash`) are
/// refused by the inherent function with `WeakHash`, and signed through a
/// `SigningKey` that allows SHA-1, which must match the vectors too.
#[test]
fn pkcs1v15_sign() {
    use signature::hazmat::RandomizedPrehashSigner;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    run("pkcs1v15_sign", "rsa_pkcs1_2048_sig_gen", |group, tally| {
        let k = &group["privateKey"];
        let key = RsaPrivateKey::from_exponents_vartime(
            &big(&k["modulus"]),
            &big(&k["publicExponent"]),
            &big(&k["privateExponent"]),
        )
        .expect("primes recovered");
        let hash = hash_of(s(group, "sha")).expect("a named hash");
        for test in tests(group) {
            let msg = hex(s(test, "msg"));
            let sig = if hash == HashAlg::Sha1 {
                assert_eq!(
                    key.sign_pkcs1v15(&mut rng, hash, &msg),
                    Err(Error::WeakHash)
                );
                pkcs1v15::SigningKey::try_new_allowing_sha1(key.clone(), hash)
                    .expect("a key that signs")
                    .sign_prehash_with_rng(&mut rng, &hash.digest(&msg))
                    .expect("sign")
                    .as_bytes()
                    .to_vec()
            } else {
                key.sign_pkcs1v15(&mut rng, hash, &msg).expect("sign")
            };
            tally.check(test, sig == hex(s(test, "sig")), "");
        }
    });
}

fn private_key(group: &Value) -> RsaPrivateKey {
    let k = &group["privateKey"];
    let key = RsaPrivateKey::from_crt_components(
        &big(&k["modulus"]),
        &big(&k["publicExponent"]),
        &big(&k["privateExponent"]),
        &big(&k["prime1"]),
        &big(&k["prime2"]),
        &big(&k["exponent1"]),
        &big(&k["exponent2"]),
        &big(&k["coefficient"]),
    )
    .expect("key");
    // The same key through PKCS#8 DER and PEM.
    let der = hex(s(group, "privateKeyPkcs8"));
    assert_eq!(RsaPrivateKey::from_pkcs8_der(&der).unwrap(), key);
    assert_eq!(
        RsaPrivateKey::from_pem(s(group, "privateKeyPem")).unwrap(),
        key
    );
    key
}

#[test]
fn oaep_decrypt() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    run(
        "oaep_decrypt",
        "rsa_oaep_2048_sha256_mgf1sha256",
        |group, tally| {
            let key = private_key(group);
            let hash = hash_of(s(group, "sha")).unwrap();
            assert_eq!(hash_of(s(group, "mgfSha")).unwrap(), hash);
            for test in tests(group) {
                let r =
                    key.decrypt_oaep(&mut rng, hash, &hex(s(test, "label")), &hex(s(test, "ct")));
                let accepted = match &r {
                    Ok(m) => {
                        assert_eq!(&m[..], &hex(s(test, "msg"))[..], "tcId {}", test["tcId"]);
                        true
                    }
                    Err(_) => false,
                };
                tally.check(test, accepted, &format!("{:?}", r.as_ref().err()));
            }
        },
    );
}

/// PKCS#1 v1.5 decryption with implicit rejection: a valid ciphertext
/// decrypts to its message; a malformed one (wrong length, not below n) is
/// an error; one with bad padding is not an error but decrypts to a
/// synthetic message, which must differ from the encrypted one, be the
/// same every time, and depend on the ciphertext. (The synthetic messages
/// themselves are checked against the draft's known answers in
/// `implicit_rejection.rs`.)
#[test]
fn pkcs1v15_decrypt() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut synthetic = Vec::new();
    run("pkcs1v15_decrypt", "rsa_pkcs1_2048", |group, tally| {
        let key = private_key(group);
        for test in tests(group) {
            let (ct, msg) = (hex(s(test, "ct")), hex(s(test, "msg")));
            let flags = test["flags"].to_string();
            let accepted = match key.decrypt_pkcs1v15(&mut rng, &ct) {
                Ok(m) if m[..] == msg[..] => true,
                Ok(m) => {
                    assert!(
                        flags.contains("InvalidPkcs1Padding"),
                        "tcId {}: wrong message",
                        test["tcId"]
                    );
                    assert_eq!(
                        key.decrypt_pkcs1v15(&mut rng, &ct).unwrap(),
                        m,
                        "deterministic"
                    );
                    synthetic.push(m.to_vec());
                    false
                }
                Err(e) => {
                    assert!(
                        flags.contains("InvalidCiphertextFormat"),
                        "tcId {}: {e:?}",
                        test["tcId"]
                    );
                    assert!(
                        matches!(e, Error::InvalidLength { .. } | Error::OutOfRange),
                        "{e:?}"
                    );
                    false
                }
            };
            tally.check(test, accepted, "");
        }
    });
    // (Empty when the vectors are absent.)
    synthetic.sort();
    let n = synthetic.len();
    synthetic.dedup();
    assert_eq!(
        synthetic.len(),
        n,
        "different ciphertexts, different synthetic messages"
    );
}
