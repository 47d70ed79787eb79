//! RSAES-PKCS1-v1_5 decryption with implicit rejection against the known
//! answers of draft-irtf-cfrg-rsa-guidance (as carried by OpenSSL's test
//! suite): valid ciphertexts give their message, invalid ones the exact
//! synthetic message the draft's algorithm derives.

mod common;

use common::hex;
use numcrypt_rsa::{Error, RsaPrivateKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const VECTORS: &str = include_str!("data/implicit_rejection_2048.txt");

enum Expected {
    Message(Vec<u8>),
    WrongLength,
}

struct Case {
    comment: String,
    input: Vec<u8>,
    expected: Expected,
}

fn parse() -> (RsaPrivateKey, Vec<Case>) {
    let begin = VECTORS.find("-----BEGIN").unwrap();
    let end = VECTORS.find("-----END RSA PRIVATE KEY-----").unwrap() + 29;
    let key = RsaPrivateKey::from_pkcs1_pem(&VECTORS[begin..end]).expect("key");
    let mut cases = Vec::new();
    let mut comment = String::new();
    let mut input = None;
    for line in VECTORS[end..].lines().map(str::trim) {
        if let Some(c) = line.strip_prefix('#') {
            comment = c.trim().to_owned();
        } else if let Some(v) = line.strip_prefix("Input =") {
            input = Some(hex(v.trim()));
        } else if let Some(v) = line.strip_prefix("Output =") {
            let v = v.trim();
            let msg = match v.strip_prefix('"') {
                Some(quoted) => quoted.trim_end_matches('"').as_bytes().to_vec(),
                None => hex(v),
            };
            cases.push(Case {
                comment: comment.clone(),
                input: input.take().expect("Input before Output"),
                expected: Expected::Message(msg),
            });
        } else if line == "Result = LENGTH" {
            cases.push(Case {
                comment: comment.clone(),
                input: input.take().expect("Input before Result"),
                expected: Expected::WrongLength,
            });
        }
    }
    (key, cases)
}

#[test]
fn draft_known_answers() {
    let (key, cases) = parse();
    assert_eq!(cases.len(), 17);
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for case in &cases {
        let got = key.decrypt_pkcs1v15(&mut rng, &case.input);
        match &case.expected {
            Expected::Message(m) => {
                assert_eq!(got.as_ref().map(|v| &v[..]), Ok(&m[..]), "{}", case.comment)
            }
            Expected::WrongLength => assert_eq!(
                got.unwrap_err(),
                Error::InvalidLength {
                    expected: 256,
                    actual: case.input.len()
                },
                "{}",
                case.comment
            ),
        }
    }
}

/// The synthetic message depends on the private exponent: the same
/// ciphertext under a different key (same modulus size) decrypts to
/// something else.
#[test]
fn synthetic_message_is_keyed() {
    let (key, cases) = parse();
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let other = numcrypt_rsa::KeyGen::new(2048).generate(&mut rng).unwrap();
    let bad = cases
        .iter()
        .find(|c| {
            c.comment
                .contains("negative test that generates an 11 byte")
        })
        .unwrap();
    let mine = key.decrypt_pkcs1v15(&mut rng, &bad.input).unwrap();
    // Reduce the ciphertext below the other modulus if needed.
    let theirs = match other.decrypt_pkcs1v15(&mut rng, &bad.input) {
        Ok(m) => m,
        Err(Error::OutOfRange) => return,
        Err(e) => panic!("{e:?}"),
    };
    assert_ne!(mine, theirs);
}
