//! RSAES-PKCS1-v1_5 decryption with implicit rejection against the known
//! answers of draft-irtf-cfrg-rsa-guidance (as carried by OpenSSL's test
//! suite): valid ciphertexts give their message, invalid ones the exact
//! synthetic message the draft's algorithm derives.

use crate::common::hex;
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

/// The TLS shape, `decrypt_pkcs1v15_fixed_len`, on the same known answers:
/// asked for the length of each case's expected output, it gives exactly
/// that output (the real message where the padding is valid, the draft's
/// synthetic message of that length where it is not); asked for any other
/// length, the last that many bytes of the draft's synthetic stream for
/// the ciphertext, computed here independently (HMAC-SHA256 from the
/// `hmac` and `sha2` crates, from the key's `d`).
#[test]
fn fixed_length_decryption_known_answers() {
    let (key, cases) = parse();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let k = key.size();
    let stream = |c: &[u8]| synthetic_stream(&key, c);
    let mut valid = 0;
    for case in &cases {
        let Expected::Message(m) = &case.expected else {
            assert_eq!(
                key.decrypt_pkcs1v15_fixed_len(&mut rng, &case.input, 48)
                    .unwrap_err(),
                Error::InvalidLength {
                    expected: k,
                    actual: case.input.len()
                }
            );
            continue;
        };
        let got = key
            .decrypt_pkcs1v15_fixed_len(&mut rng, &case.input, m.len())
            .unwrap();
        assert_eq!(&got[..], &m[..], "{}", case.comment);
        let s = stream(&case.input);
        let is_synthetic = s.ends_with(m);
        valid += usize::from(!is_synthetic);
        // Any other length: the stream's tail, whether the padding was valid.
        for len in [0, 1, m.len() + 1, 48, k - 11] {
            if len == m.len() || len > k - 11 {
                continue;
            }
            let got = key
                .decrypt_pkcs1v15_fixed_len(&mut rng, &case.input, len)
                .unwrap();
            assert_eq!(&got[..], &s[k - len..], "{} at {len}", case.comment);
        }
    }
    assert!(valid >= 5, "the known answers include valid paddings");
    // An impossible length is a public error.
    assert_eq!(
        key.decrypt_pkcs1v15_fixed_len(&mut rng, &cases[0].input, k - 10)
            .unwrap_err(),
        Error::MessageTooLong { max: k - 11 }
    );
}

/// The draft's synthetic message stream for ciphertext `c`:
/// `KDK = HMAC-SHA256(SHA-256(d), c)`, then `k` bytes of
/// `HMAC-SHA256(KDK, i ‖ "message" ‖ 8k)` for `i = 0, 1, …`.
fn synthetic_stream(key: &RsaPrivateKey, c: &[u8]) -> Vec<u8> {
    use hmac::{Hmac, KeyInit, Mac};
    use sha2::{Digest, Sha256};
    let k = key.size();
    let d = key.d().to_be_bytes();
    let d = &d[d.len() - k..];
    let mac = |key: &[u8], parts: &[&[u8]]| {
        let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap();
        for p in parts {
            m.update(p);
        }
        m.finalize().into_bytes().to_vec()
    };
    let kdk = mac(&Sha256::digest(d), &[c]);
    let bits = ((k * 8) as u16).to_be_bytes();
    let mut out = Vec::new();
    for i in 0u16.. {
        if out.len() >= k {
            break;
        }
        out.extend(mac(&kdk, &[&i.to_be_bytes(), b"message", &bits]));
    }
    out.truncate(k);
    out
}
