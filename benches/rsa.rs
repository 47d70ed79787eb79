//! RSA: numcrypt against the fastest peers: AWS-LC (aws-lc-rs), OpenSSL
//! (libcrypto through the `openssl` crate), ring, graviola and RustCrypto's
//! `rsa` 0.9, every peer in the same criterion group so that ratios come
//! from one run.
//!
//! The keys are `benches/keys/rsa{2048,3072,4096}.pk8.der`, made by
//! `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:<bits>` and
//! `openssl pkcs8 -topk8 -nocrypt -outform DER`, loaded into every library
//! from the same PKCS#8 bytes.
//!
//! Groups (benchmark id `<group>/<bits>/<peer>`):
//! - `rsa_sign`: RSASSA-PKCS1-v1_5 with SHA-256 of a 32-byte message, at
//!   2048, 3072 and 4096 bits. Every peer does the same work: hash, pad,
//!   CRT private operation with base blinding, and a check of the result
//!   against the public key (numcrypt: blinding pair squared per use,
//!   refreshed every 32, and the check `s^e = m`; AWS-LC and OpenSSL:
//!   `BN_BLINDING` and the same check; ring and graviola blind every
//!   signature afresh; RustCrypto: fresh blinding from `OsRng` and
//!   `rsa_decrypt_and_check`). Before timing, every peer's signature is
//!   checked to be the same bytes.
//! - `rsa_sign_interleaved/<bits>` (printed lines, with the wall-time
//!   groups): numcrypt, AWS-LC, OpenSSL, ring and graviola in turn, one
//!   signature each a round; each one's median and numcrypt's ratio to
//!   each peer, also paired (the median over the rounds of the peer's
//!   time ÷ numcrypt's in that round: the figure a machine whose speed
//!   drifts between seconds disturbs least; `common::interleaved`).
//!   `rsa_sign_blocks/<bits>`: the same with nine signatures in a row a
//!   turn, the first untimed, so that each finds its code and data warm,
//!   as on a server that signs with one library. A filter given to the
//!   bench, read as plain text, must occur in the line's name.
//! - `rsa_verify`: the same signatures verified (public exponent 65537);
//!   `rsa_verify_interleaved/<bits>` (printed lines) takes the peers in
//!   turn, one verification each a round, as `rsa_sign_interleaved`.
//! - `rsa_blinding`: what blinding costs numcrypt: `sign_pkcs1v15` against
//!   the same signature unblinded (a hidden benchmark hook), and one
//!   refresh of the blinding pair, which a signature pays once every 32.
//! - `rsa_multi_prime`: PKCS#1 v1.5 signing as in `rsa_sign` with OpenSSL's
//!   multi-prime keys (`benches/keys/rsa{3072,4096}-3primes.pk8.der`,
//!   `rsa4096-4primes.pk8.der`, made with `-pkeyopt rsa_keygen_primes:K`)
//!   beside the two-prime keys of the same size, numcrypt and OpenSSL (the
//!   one peer that signs with such keys), ids `<bits>/<K>p/<peer>`;
//!   signatures checked equal to OpenSSL's first.
//! - `rsa_keygen`: one 2048-bit key, e = 65537, one thread. numcrypt
//!   `KeyGen` (FIPS 186-5 B.3.3, MR64 on p and q), and on every core;
//!   AWS-LC `rsa::KeyPair::generate`; OpenSSL `Rsa::generate`; graviola
//!   `SigningKey::generate`; RustCrypto `RsaPrivateKey::new`. Times vary by
//!   an order of magnitude from one key to the next, so the group takes many
//!   flat samples: quote the median.
//!
//! Every group runs twice: wall time, and (x86_64) rdtsc cycles (groups
//! suffixed `_cycles`); with IFMA off (`NUMCRYPT_DISABLE=ifma` and
//! `OPENSSL_ia32cap=":~0x200000"`, which OpenSSL and AWS-LC read) the
//! groups are suffixed `_noifma` (see `common::group_name`). Run with
//! `cargo bench --bench rsa`, or `python3 benches/rsa_targets.py`, which
//! runs both settings and prints the table of ratios.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::interleaved::{compared_rounds, filter_allows, take_turns};
use common::{group_name, is_wall_time, openssl_peer};
use criterion::measurement::Measurement;
use criterion::{Criterion, SamplingMode};
use numcrypt::rsa::bench_hooks::{refresh_blinding, sign_pkcs1v15_unblinded};
use numcrypt::rsa::{HashAlg, KeyGen, RsaPrivateKey};
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private, Public};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rustcrypto_rsa::pkcs1::DecodeRsaPrivateKey;
use rustcrypto_rsa::signature::{RandomizedSigner, SignatureEncoding, Verifier};

const MESSAGE: &[u8; 32] = b"numcrypt rsa benchmark message..";

/// One key in each library's own types.
struct Keys {
    bits: u32,
    numcrypt: RsaPrivateKey,
    aws_lc: aws_lc_rs::signature::RsaKeyPair,
    openssl: PKey<Private>,
    openssl_public: PKey<Public>,
    ring: ring::signature::RsaKeyPair,
    graviola: graviola::signing::rsa::SigningKey,
    rustcrypto: rustcrypto_rsa::pkcs1v15::SigningKey<rustcrypto_rsa::sha2::Sha256>,
}

impl Keys {
    fn new(bits: u32) -> Self {
        let pkcs8 = common::key_file(&format!("rsa{bits}.pk8.der"));
        let numcrypt = RsaPrivateKey::from_pkcs8_der(&pkcs8).expect("numcrypt key");
        assert_eq!(numcrypt.public_key().bits(), bits);
        let openssl = PKey::private_key_from_der(&pkcs8).expect("openssl key");
        let spki = numcrypt.public_key().to_public_key_der().expect("spki");
        let openssl_public = PKey::public_key_from_der(&spki).expect("openssl public key");
        let pkcs1 = numcrypt.to_pkcs1_der().expect("pkcs1");
        let rc = rustcrypto_rsa::RsaPrivateKey::from_pkcs1_der(&pkcs1).expect("rustcrypto key");
        Self {
            bits,
            numcrypt,
            aws_lc: aws_lc_rs::signature::RsaKeyPair::from_pkcs8(&pkcs8).expect("aws-lc key"),
            openssl,
            openssl_public,
            ring: ring::signature::RsaKeyPair::from_pkcs8(&pkcs8).expect("ring key"),
            graviola: graviola::signing::rsa::SigningKey::from_pkcs8_der(&pkcs8)
                .expect("graviola key"),
            rustcrypto: rustcrypto_rsa::pkcs1v15::SigningKey::new(rc),
        }
    }

    fn sign_aws_lc(&self, rng: &aws_lc_rs::rand::SystemRandom) -> Vec<u8> {
        let mut sig = vec![0; self.aws_lc.public_modulus_len()];
        self.aws_lc
            .sign(
                &aws_lc_rs::signature::RSA_PKCS1_SHA256,
                rng,
                MESSAGE,
                &mut sig,
            )
            .expect("aws-lc sign");
        sig
    }

    fn sign_openssl(&self) -> Vec<u8> {
        let mut signer =
            openssl::sign::Signer::new(MessageDigest::sha256(), &self.openssl).unwrap();
        signer.update(MESSAGE).unwrap();
        signer.sign_to_vec().unwrap()
    }

    fn sign_ring(&self, rng: &ring::rand::SystemRandom) -> Vec<u8> {
        let mut sig = vec![0; self.ring.public().modulus_len()];
        self.ring
            .sign(&ring::signature::RSA_PKCS1_SHA256, rng, MESSAGE, &mut sig)
            .expect("ring sign");
        sig
    }

    fn sign_graviola(&self) -> Vec<u8> {
        let mut sig = vec![0; self.graviola.modulus_len_bytes()];
        self.graviola
            .sign_pkcs1_sha256(&mut sig, MESSAGE)
            .expect("graviola sign");
        sig
    }

    fn sign_rustcrypto(&self) -> Vec<u8> {
        self.rustcrypto
            .sign_with_rng(&mut rustcrypto_rsa::rand_core::OsRng, MESSAGE)
            .to_vec()
    }
}

impl Keys {
    /// Every peer's signature of [`MESSAGE`] is numcrypt's (PKCS#1 v1.5 is
    /// deterministic): checked before any of them is timed.
    fn check_signatures_agree(
        &self,
        aws_rng: &aws_lc_rs::rand::SystemRandom,
        ring_rng: &ring::rand::SystemRandom,
    ) {
        let ours = self
            .numcrypt
            .sign_pkcs1v15(&mut ChaCha20Rng::seed_from_u64(0), HashAlg::Sha256, MESSAGE)
            .unwrap();
        assert_eq!(
            ours,
            self.sign_aws_lc(aws_rng),
            "AWS-LC's signature differs"
        );
        assert_eq!(ours, self.sign_openssl(), "OpenSSL's signature differs");
        assert_eq!(ours, self.sign_ring(ring_rng), "ring's signature differs");
        assert_eq!(ours, self.sign_graviola(), "graviola's signature differs");
        assert_eq!(
            ours,
            self.sign_rustcrypto(),
            "RustCrypto's signature differs"
        );
    }
}

fn all_keys() -> Vec<Keys> {
    [2048, 3072, 4096].into_iter().map(Keys::new).collect()
}

fn bench_sign<M: Measurement>(c: &mut Criterion<M>, keys: &[Keys]) {
    let mut g = c.benchmark_group(group_name::<M>("rsa_sign"));
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let aws_rng = aws_lc_rs::rand::SystemRandom::new();
    let ring_rng = ring::rand::SystemRandom::new();
    for k in keys {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        k.check_signatures_agree(&aws_rng, &ring_rng);
        let bits = k.bits;
        g.bench_function(format!("{bits}/numcrypt"), |b| {
            b.iter(|| {
                k.numcrypt
                    .sign_pkcs1v15(&mut rng, HashAlg::Sha256, black_box(MESSAGE))
                    .unwrap()
            })
        });
        g.bench_function(format!("{bits}/aws-lc"), |b| {
            b.iter(|| k.sign_aws_lc(&aws_rng))
        });
        g.bench_function(format!("{bits}/{}", openssl_peer()), |b| {
            b.iter(|| k.sign_openssl())
        });
        g.bench_function(format!("{bits}/ring"), |b| {
            b.iter(|| k.sign_ring(&ring_rng))
        });
        g.bench_function(format!("{bits}/graviola"), |b| b.iter(|| k.sign_graviola()));
        g.bench_function(format!("{bits}/rustcrypto"), |b| {
            b.iter(|| k.sign_rustcrypto())
        });
    }
    g.finish();
}

fn bench_verify<M: Measurement>(c: &mut Criterion<M>, keys: &[Keys]) {
    let mut g = c.benchmark_group(group_name::<M>("rsa_verify"));
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for k in keys {
        let sig = k.sign_openssl();
        let public = k.numcrypt.public_key();
        let pkcs1 = public.to_pkcs1_der().expect("pkcs1 public key");
        let aws_lc = aws_lc_rs::signature::UnparsedPublicKey::new(
            &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
            pkcs1.clone(),
        );
        let ring = ring::signature::UnparsedPublicKey::new(
            &ring::signature::RSA_PKCS1_2048_8192_SHA256,
            pkcs1.clone(),
        );
        let graviola = graviola::signing::rsa::VerifyingKey::from_pkcs1_der(&pkcs1)
            .expect("graviola public key");
        // `new` (with the DigestInfo prefix), not `From`, which is unprefixed in 0.9.
        let rc_verifier =
            rustcrypto_rsa::pkcs1v15::VerifyingKey::<rustcrypto_rsa::sha2::Sha256>::new(
                k.rustcrypto.as_ref().to_public_key(),
            );
        let rc_sig = rustcrypto_rsa::pkcs1v15::Signature::try_from(sig.as_slice()).unwrap();
        let openssl_verify = || {
            let mut v =
                openssl::sign::Verifier::new(MessageDigest::sha256(), &k.openssl_public).unwrap();
            v.update(MESSAGE).unwrap();
            v.verify(&sig).unwrap()
        };
        assert!(
            public
                .verify_pkcs1v15(HashAlg::Sha256, MESSAGE, &sig)
                .is_ok()
        );
        assert!(aws_lc.verify(MESSAGE, &sig).is_ok());
        assert!(openssl_verify());
        assert!(ring.verify(MESSAGE, &sig).is_ok());
        assert!(graviola.verify_pkcs1_sha256(&sig, MESSAGE).is_ok());
        assert!(rc_verifier.verify(MESSAGE, &rc_sig).is_ok());
        let bits = k.bits;
        let line = format!("rsa_verify_interleaved/{bits}");
        if is_wall_time::<M>() && filter_allows(&line) {
            let openssl = openssl_peer();
            let names = ["numcrypt", "aws-lc", openssl.as_str(), "ring", "graviola"];
            let mut verify = |peer: usize| {
                let ok = match peer {
                    0 => public
                        .verify_pkcs1v15(HashAlg::Sha256, MESSAGE, &sig)
                        .is_ok(),
                    1 => aws_lc.verify(MESSAGE, &sig).is_ok(),
                    2 => openssl_verify(),
                    3 => ring.verify(MESSAGE, &sig).is_ok(),
                    _ => graviola.verify_pkcs1_sha256(&sig, MESSAGE).is_ok(),
                };
                assert!(black_box(ok));
            };
            let rounds = 2000 / (bits as usize / 1024).pow(2);
            let times = take_turns(names.len(), rounds, 1, &mut verify);
            println!(
                "{line}: {} (medians of {rounds} rounds)",
                compared_rounds(&names, &times)
            );
        }
        g.bench_function(format!("{bits}/numcrypt"), |b| {
            b.iter(|| {
                public
                    .verify_pkcs1v15(HashAlg::Sha256, black_box(MESSAGE), &sig)
                    .unwrap()
            })
        });
        g.bench_function(format!("{bits}/aws-lc"), |b| {
            b.iter(|| aws_lc.verify(black_box(MESSAGE), &sig).unwrap())
        });
        g.bench_function(format!("{bits}/{}", openssl_peer()), |b| {
            b.iter(|| assert!(openssl_verify()))
        });
        g.bench_function(format!("{bits}/ring"), |b| {
            b.iter(|| ring.verify(black_box(MESSAGE), &sig).unwrap())
        });
        g.bench_function(format!("{bits}/graviola"), |b| {
            b.iter(|| {
                graviola
                    .verify_pkcs1_sha256(&sig, black_box(MESSAGE))
                    .unwrap()
            })
        });
        g.bench_function(format!("{bits}/rustcrypto"), |b| {
            b.iter(|| rc_verifier.verify(black_box(MESSAGE), &rc_sig).unwrap())
        });
    }
    g.finish();
}

fn bench_blinding<M: Measurement>(c: &mut Criterion<M>, keys: &[Keys]) {
    let mut g = c.benchmark_group(group_name::<M>("rsa_blinding"));
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for k in keys {
        let bits = k.bits;
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let unblinded = sign_pkcs1v15_unblinded(&k.numcrypt, HashAlg::Sha256, MESSAGE).unwrap();
        assert_eq!(
            unblinded,
            k.numcrypt
                .sign_pkcs1v15(&mut rng, HashAlg::Sha256, MESSAGE)
                .unwrap()
        );
        g.bench_function(format!("{bits}/numcrypt_blinded"), |b| {
            b.iter(|| {
                k.numcrypt
                    .sign_pkcs1v15(&mut rng, HashAlg::Sha256, black_box(MESSAGE))
                    .unwrap()
            })
        });
        g.bench_function(format!("{bits}/numcrypt_unblinded"), |b| {
            b.iter(|| {
                sign_pkcs1v15_unblinded(&k.numcrypt, HashAlg::Sha256, black_box(MESSAGE)).unwrap()
            })
        });
        g.bench_function(format!("{bits}/numcrypt_refresh"), |b| {
            b.iter(|| refresh_blinding(&k.numcrypt, &mut rng).unwrap())
        });
    }
    g.finish();
}

/// A key file of `benches/keys` in numcrypt's and OpenSSL's types.
fn numcrypt_and_openssl_key(file: &str) -> (RsaPrivateKey, PKey<Private>) {
    let pkcs8 = common::key_file(file);
    (
        RsaPrivateKey::from_pkcs8_der(&pkcs8).expect("numcrypt key"),
        PKey::private_key_from_der(&pkcs8).expect("openssl key"),
    )
}

fn bench_multi_prime<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("rsa_multi_prime"));
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    for (bits, primes) in [(3072, 2), (3072, 3), (4096, 2), (4096, 3), (4096, 4)] {
        let file = match primes {
            2 => format!("rsa{bits}.pk8.der"),
            _ => format!("rsa{bits}-{primes}primes.pk8.der"),
        };
        let (key, openssl) = numcrypt_and_openssl_key(&file);
        assert_eq!(key.prime_count(), primes);
        let sign_openssl = || {
            let mut signer = openssl::sign::Signer::new(MessageDigest::sha256(), &openssl).unwrap();
            signer.update(MESSAGE).unwrap();
            signer.sign_to_vec().unwrap()
        };
        let ours = key
            .sign_pkcs1v15(&mut rng, HashAlg::Sha256, MESSAGE)
            .unwrap();
        assert_eq!(ours, sign_openssl(), "OpenSSL's signature differs");
        g.bench_function(format!("{bits}/{primes}p/numcrypt"), |b| {
            b.iter(|| {
                key.sign_pkcs1v15(&mut rng, HashAlg::Sha256, black_box(MESSAGE))
                    .unwrap()
            })
        });
        g.bench_function(format!("{bits}/{primes}p/openssl"), |b| {
            b.iter(sign_openssl)
        });
    }
    g.finish();
}

fn bench_keygen<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("rsa_keygen"));
    g.sample_size(30)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(20));
    let bits = 2048;
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    g.bench_function(format!("{bits}/numcrypt"), |b| {
        b.iter(|| KeyGen::new(bits).generate(&mut rng).unwrap())
    });
    g.bench_function(format!("{bits}/numcrypt_all_threads"), |b| {
        b.iter(|| KeyGen::new(bits).threads(None).generate(&mut rng).unwrap())
    });
    g.bench_function(format!("{bits}/aws-lc"), |b| {
        b.iter(|| aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).unwrap())
    });
    g.bench_function(format!("{bits}/{}", openssl_peer()), |b| {
        b.iter(|| openssl::rsa::Rsa::generate(bits).unwrap())
    });
    g.bench_function(format!("{bits}/graviola"), |b| {
        b.iter(|| {
            graviola::signing::rsa::SigningKey::generate(graviola::signing::rsa::KeySize::Rsa2048)
                .unwrap()
        })
    });
    g.bench_function(format!("{bits}/rustcrypto"), |b| {
        b.iter(|| {
            rustcrypto_rsa::RsaPrivateKey::new(&mut rustcrypto_rsa::rand_core::OsRng, bits as usize)
                .unwrap()
        })
    });
    g.finish();
}

/// The `rsa_sign_interleaved` and `rsa_sign_blocks` lines (see the top).
fn sign_interleaved(keys: &[Keys]) {
    let aws_rng = aws_lc_rs::rand::SystemRandom::new();
    let ring_rng = ring::rand::SystemRandom::new();
    let openssl = openssl_peer();
    let names = ["numcrypt", "aws-lc", openssl.as_str(), "ring", "graviola"];
    for k in keys {
        k.check_signatures_agree(&aws_rng, &ring_rng);
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut sign = |peer: usize| {
            let sig = match peer {
                0 => k
                    .numcrypt
                    .sign_pkcs1v15(&mut rng, HashAlg::Sha256, MESSAGE)
                    .unwrap(),
                1 => k.sign_aws_lc(&aws_rng),
                2 => k.sign_openssl(),
                3 => k.sign_ring(&ring_rng),
                _ => k.sign_graviola(),
            };
            black_box(sig);
        };
        // Fewer rounds for the larger keys, whose signatures take longer.
        let scale = (k.bits as usize / 1024).pow(2) / 4;
        for (line, rounds, block) in [
            ("rsa_sign_interleaved", 400 / scale, 1),
            ("rsa_sign_blocks", 60 / scale, 9),
        ] {
            let name = format!("{line}/{}", k.bits);
            if filter_allows(&name) {
                let times = take_turns(names.len(), rounds, block, &mut sign);
                println!(
                    "{name}: {} (medians of {rounds} rounds)",
                    compared_rounds(&names, &times)
                );
            }
        }
    }
}

fn benches<M: Measurement>(c: &mut Criterion<M>) {
    let keys = all_keys();
    if is_wall_time::<M>() {
        sign_interleaved(&keys);
    }
    bench_sign(c, &keys);
    bench_verify(c, &keys);
    bench_blinding(c, &keys);
    bench_multi_prime(c);
    bench_keygen(c);
}

common::time_and_cycles_main!(benches);
