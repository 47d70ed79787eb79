//! Batched RSA signing against single signing: numcrypt's
//! `sign_pkcs1v15_batch` at batch sizes 1 to 8, and its self-batching
//! `BatchSigner` under 1 to 16 threads, against aws-lc-rs (the fastest
//! single signer on the CPUs measured) and numcrypt signing one message at
//! a time, with the same key (`benches/keys/rsa{2048,3072,4096}.pk8.der`)
//! and the same messages.
//!
//! Groups (throughput in signatures: criterion prints time per batch and
//! signatures per second):
//! - `rsa_sign_batch`: `<bits>/aws-lc` and `<bits>/numcrypt` sign one
//!   message per iteration; `<bits>/numcrypt_batch<n>` signs `n` distinct
//!   messages in one `sign_pkcs1v15_batch` call (RSASSA-PKCS1-v1_5 with
//!   SHA-256, each signature blinded and checked as a single one is).
//!   Before timing, every batch's signatures are checked equal to
//!   aws-lc-rs's signatures of the same messages.
//! - `rsa_sign_threads` (2048 bits, wall time only): rounds of 256
//!   signatures (the time given is a round's) split among `t` threads
//!   (t = 1, 2, 4, 8, 16), started once a sample, calling, each for its own
//!   messages, aws-lc-rs single signing (`aws-lc/<t>`), numcrypt single
//!   signing (`numcrypt/<t>`), or one shared `BatchSigner`
//!   (`numcrypt_batch_signer/<t>`). The signer's outputs are checked
//!   against aws-lc-rs's first.
//!
//! Run with `cargo bench --bench rsa_batch`; `NUMCRYPT_DISABLE=ifma` (with
//! `OPENSSL_ia32cap=":~0x200000"`) measures the AVX2 batch kernel, groups
//! suffixed `_noifma`.

mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::group_name;
use criterion::measurement::{Measurement, WallTime};
use criterion::{Criterion, Throughput};
use numcrypt::rsa::batch_signer::BatchSigner;
use numcrypt::rsa::{HashAlg, RsaPrivateKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const MAX_BATCH: usize = 8;
const THREAD_WORK: usize = 256;

struct Key {
    bits: u32,
    numcrypt: RsaPrivateKey,
    aws_lc: aws_lc_rs::signature::RsaKeyPair,
}

impl Key {
    fn new(bits: u32) -> Self {
        let pkcs8 = common::key_file(&format!("rsa{bits}.pk8.der"));
        Self {
            bits,
            numcrypt: RsaPrivateKey::from_pkcs8_der(&pkcs8).expect("numcrypt key"),
            aws_lc: aws_lc_rs::signature::RsaKeyPair::from_pkcs8(&pkcs8).expect("aws-lc key"),
        }
    }

    fn sign_aws_lc(&self, rng: &aws_lc_rs::rand::SystemRandom, msg: &[u8]) -> Vec<u8> {
        let mut sig = vec![0; self.aws_lc.public_modulus_len()];
        self.aws_lc
            .sign(&aws_lc_rs::signature::RSA_PKCS1_SHA256, rng, msg, &mut sig)
            .expect("aws-lc sign");
        sig
    }
}

/// `count` distinct 32-byte messages.
fn messages(count: usize) -> Vec<[u8; 32]> {
    (0..count)
        .map(|i| {
            let mut m = *b"numcrypt rsa batch message ....#";
            m[28..].copy_from_slice(&(i as u32).to_le_bytes());
            m
        })
        .collect()
}

fn bench_batch<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("rsa_sign_batch"));
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let aws_rng = aws_lc_rs::rand::SystemRandom::new();
    let msgs = messages(MAX_BATCH);
    let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    for bits in [2048, 3072, 4096] {
        let k = Key::new(bits);
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let expected: Vec<Vec<u8>> = refs.iter().map(|m| k.sign_aws_lc(&aws_rng, m)).collect();
        for n in 1..=MAX_BATCH {
            let sigs = k
                .numcrypt
                .sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, &refs[..n])
                .unwrap();
            assert_eq!(sigs, expected[..n], "batch of {n} differs from aws-lc");
        }
        let bits = k.bits;
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("{bits}/aws-lc"), |b| {
            b.iter(|| k.sign_aws_lc(&aws_rng, black_box(refs[0])))
        });
        g.bench_function(format!("{bits}/numcrypt"), |b| {
            b.iter(|| {
                k.numcrypt
                    .sign_pkcs1v15(&mut rng, HashAlg::Sha256, black_box(refs[0]))
                    .unwrap()
            })
        });
        for n in 1..=MAX_BATCH {
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(format!("{bits}/numcrypt_batch{n}"), |b| {
                b.iter(|| {
                    k.numcrypt
                        .sign_pkcs1v15_batch(&mut rng, HashAlg::Sha256, black_box(&refs[..n]))
                        .unwrap()
                })
            });
        }
    }
    g.finish();
}

/// `rounds` rounds of `THREAD_WORK` signatures split among `threads`
/// threads, each running `sign` on its own messages; the wall time. The
/// threads start once a sample, as a server's live long: their staggered
/// start and uneven end are paid once a sample, not once a round.
fn in_threads(
    threads: usize,
    rounds: u64,
    msgs: &[[u8; 32]],
    sign: &(dyn Fn(usize, &[u8]) + Sync),
) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                for _ in 0..rounds {
                    for m in msgs.iter().skip(t).step_by(threads) {
                        sign(t, m);
                    }
                }
            });
        }
    });
    start.elapsed()
}

fn bench_threads(c: &mut Criterion<WallTime>) {
    let mut g = c.benchmark_group(group_name::<WallTime>("rsa_sign_threads"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(THREAD_WORK as u64));
    let k = Key::new(2048);
    let aws_rng = aws_lc_rs::rand::SystemRandom::new();
    let msgs = messages(THREAD_WORK);
    let signer = Arc::new(BatchSigner::new(k.numcrypt.clone(), HashAlg::Sha256).unwrap());
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for m in &msgs[..4] {
        let sig = signer.sign(&mut rng, m).unwrap();
        assert_eq!(sig, k.sign_aws_lc(&aws_rng, m), "the batch signer differs");
    }
    for threads in [1, 2, 4, 8, 16] {
        g.bench_function(format!("aws-lc/{threads}"), |b| {
            b.iter_custom(|rounds| {
                in_threads(threads, rounds, &msgs, &|_, m| {
                    black_box(k.sign_aws_lc(&aws_rng, m));
                })
            })
        });
        g.bench_function(format!("numcrypt/{threads}"), |b| {
            b.iter_custom(|rounds| {
                in_threads(threads, rounds, &msgs, &|t, m| {
                    let mut rng = ChaCha20Rng::seed_from_u64(t as u64);
                    black_box(
                        k.numcrypt
                            .sign_pkcs1v15(&mut rng, HashAlg::Sha256, m)
                            .unwrap(),
                    );
                })
            })
        });
        let before = signer.stats();
        g.bench_function(format!("numcrypt_batch_signer/{threads}"), |b| {
            b.iter_custom(|rounds| {
                in_threads(threads, rounds, &msgs, &|t, m| {
                    let mut rng = ChaCha20Rng::seed_from_u64(t as u64);
                    black_box(signer.sign(&mut rng, m).unwrap());
                })
            })
        });
        let after = signer.stats();
        let (requests, batches) = (
            after.requests - before.requests,
            after.batches - before.batches,
        );
        println!(
            "batch signer, {threads} threads: {requests} requests in {batches} batches ({:.1} a batch)",
            requests as f64 / batches.max(1) as f64
        );
    }
    g.finish();
}

fn benches<M: Measurement + 'static>(c: &mut Criterion<M>) {
    bench_batch(c);
    // Threads in wall time only: cycles read on one core say nothing of
    // work spread over several.
    if let Some(c) = (c as &mut dyn std::any::Any).downcast_mut::<Criterion<WallTime>>() {
        bench_threads(c);
    }
}

common::time_and_cycles_main!(benches);
