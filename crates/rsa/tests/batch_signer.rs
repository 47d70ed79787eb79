//! The self-batching signer under many threads: every caller gets the
//! signature of its own message (checked against single signing, which
//! tests/batch.rs checks against openssl, and against the public key),
//! nothing is lost or repeated, requests do form batches, and a lone
//! caller signs at once.

use std::sync::{Arc, Barrier};

use numcrypt_rsa::batch_signer::{BatchSigner, MAX_BATCH};
use numcrypt_rsa::{Error, HashAlg, RsaPrivateKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn bench_key(bits: u32) -> RsaPrivateKey {
    let file = format!(
        "{}/../../benches/keys/rsa{bits}.pk8.der",
        env!("CARGO_MANIFEST_DIR")
    );
    RsaPrivateKey::from_pkcs8_der(&std::fs::read(file).unwrap()).unwrap()
}

fn message(thread: usize, i: usize) -> Vec<u8> {
    format!("thread {thread} message {i}").into_bytes()
}

#[test]
fn many_threads_each_get_their_own_signature() {
    let key = bench_key(2048);
    let (threads, per_thread) = (16, 12);
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    // The expected signatures, one at a time.
    let expected: Vec<Vec<Vec<u8>>> = (0..threads)
        .map(|t| {
            (0..per_thread)
                .map(|i| {
                    key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, &message(t, i))
                        .unwrap()
                })
                .collect()
        })
        .collect();
    let signer = Arc::new(BatchSigner::new(key.clone(), HashAlg::Sha256).unwrap());
    let start = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (signer, start) = (Arc::clone(&signer), Arc::clone(&start));
            std::thread::spawn(move || {
                let mut rng = ChaCha20Rng::seed_from_u64(100 + t as u64);
                start.wait();
                (0..per_thread)
                    .map(|i| signer.sign(&mut rng, &message(t, i)).unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for (t, handle) in handles.into_iter().enumerate() {
        let got = handle.join().unwrap();
        assert_eq!(got, expected[t], "thread {t}");
        for (i, sig) in got.iter().enumerate() {
            key.public_key()
                .verify_pkcs1v15(HashAlg::Sha256, &message(t, i), sig)
                .unwrap();
        }
    }
    let stats = signer.stats();
    assert_eq!(stats.requests, (threads * per_thread) as u64);
    // Sixteen threads on however many cores: some requests shared a batch.
    assert!(stats.batches < stats.requests, "{stats:?}");
    assert!(stats.batches * MAX_BATCH as u64 >= stats.requests);
}

#[test]
fn a_lone_caller_signs_at_once_and_errors_are_its_own() {
    let key = bench_key(2048);
    let signer = BatchSigner::new(key.clone(), HashAlg::Sha256).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for i in 0..3 {
        let sig = signer.sign(&mut rng, &message(0, i)).unwrap();
        let single = key
            .sign_pkcs1v15(&mut rng, HashAlg::Sha256, &message(0, i))
            .unwrap();
        assert_eq!(sig, single);
    }
    let stats = signer.stats();
    assert_eq!((stats.requests, stats.batches), (3, 3));
    assert!(matches!(
        signer.sign_prehashed(&mut rng, &[0u8; 31]),
        Err(Error::InvalidLength { .. })
    ));
    assert_eq!(
        BatchSigner::new(key, HashAlg::Sha1).unwrap_err(),
        Error::WeakHash
    );
}

/// Requests with different schemes share batches (a TLS server signs with
/// whatever each peer asks for, one batch at a time): PKCS#1 v1.5 signatures are the bytes of
/// single signing, PSS ones verify (salts are random), each under its own
/// scheme; a scheme the key refuses fails that request alone.
#[test]
fn requests_of_different_schemes_share_batches() {
    use numcrypt_rsa::batch_signer::SignatureScheme;
    use numcrypt_rsa::pss::{Params, SaltLength};
    let key = bench_key(2048);
    let schemes = [
        SignatureScheme::Pkcs1v15(HashAlg::Sha256),
        SignatureScheme::Pss(Params::new(HashAlg::Sha256)),
        SignatureScheme::Pkcs1v15(HashAlg::Sha384),
        SignatureScheme::Pss(Params::new(HashAlg::Sha512)),
    ];
    // One batch at a time: eight threads' requests share batches when
    // they overlap, which the scheduler does not promise (under load a
    // thread may sign all its requests inside one time slice): rounds
    // until one shares, every round checked.
    let signer = BatchSigner::with_scheme(key.clone(), schemes[1]).unwrap();
    let signer = Arc::new(signer.max_concurrent_batches(1));
    let threads = 8;
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let public = key.public_key();
    let mut rounds = 0;
    while rounds == 0 || (signer.stats().batches == signer.stats().requests && rounds < 20) {
        rounds += 1;
        let start = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (signer, start) = (Arc::clone(&signer), Arc::clone(&start));
                std::thread::spawn(move || {
                    let mut rng = ChaCha20Rng::seed_from_u64(200 * rounds + t as u64);
                    start.wait();
                    (0..6)
                        .map(|i| {
                            let scheme = schemes[(t + i) % schemes.len()];
                            let digest = scheme.hash().digest(&message(t, i));
                            signer.sign_prehashed_with(&mut rng, scheme, &digest)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for (t, handle) in handles.into_iter().enumerate() {
            for (i, sig) in handle.join().unwrap().into_iter().enumerate() {
                let (msg, sig) = (message(t, i), sig.unwrap());
                match schemes[(t + i) % schemes.len()] {
                    SignatureScheme::Pkcs1v15(hash) => {
                        assert_eq!(sig, key.sign_pkcs1v15(&mut rng, hash, &msg).unwrap());
                    }
                    SignatureScheme::Pss(params) => {
                        public
                            .verify_pss(params.hash, &msg, &sig, SaltLength::Digest)
                            .unwrap();
                        let other = if params.hash == HashAlg::Sha256 {
                            HashAlg::Sha512
                        } else {
                            HashAlg::Sha256
                        };
                        assert!(
                            public
                                .verify_pss(other, &msg, &sig, SaltLength::Digest)
                                .is_err()
                        );
                    }
                }
            }
        }
    }
    let stats = signer.stats();
    let signed = rounds * threads as u64 * 6;
    assert_eq!(stats.requests, signed);
    assert!(stats.batches < stats.requests, "{stats:?}");
    // SHA-1 is refused for that request only, before any work.
    let sha1 = SignatureScheme::Pkcs1v15(HashAlg::Sha1);
    let digest = HashAlg::Sha1.digest(b"legacy");
    assert_eq!(
        signer.sign_prehashed_with(&mut rng, sha1, &digest),
        Err(Error::WeakHash)
    );
    assert_eq!(signer.stats().requests, signed);
    assert!(signer.sign(&mut rng, b"after").is_ok());
}
