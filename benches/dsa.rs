//! DSA: numcrypt against OpenSSL 3 (through the `openssl` crate), every
//! peer in the same criterion group so that ratios come from one run.
//!
//! Groups (benchmark id `<group>/<L>_<N>/<peer>`):
//! - `dsa_sign`: one signature over a 32-byte message with SHA-256, DER
//!   output, same key for both peers (ours, imported into OpenSSL with
//!   `Dsa::from_private_components`). numcrypt: `SigningKey::sign` (RFC
//!   6979 `k`, constant time in `x` and `k`). OpenSSL: `Signer` with
//!   SHA-256 (random `k`, blinded, constant-time exponentiation).
//! - `dsa_sign_batch`: eight signatures over eight messages with one key:
//!   numcrypt's `SigningKey::sign_batch` (the eight `g^k` as one batch:
//!   eight lanes a pass on AVX-512 IFMA), numcrypt's `sign` eight times,
//!   and OpenSSL's eight times; the batch's signatures checked equal to
//!   single signing's first.
//! - `dsa_verify`: verification of that DER signature. numcrypt:
//!   `VerifyingKey::verify_der` (two sliding-window exponentiations on the
//!   AVX-512 IFMA backend where the CPU has it); OpenSSL: `Verifier`.
//! - `dsa_verify_multiexp` (2048/256 only): the `g^u1 · y^u2 mod p` step
//!   alone, as two `pow_vartime` calls (what `verify` does), as a
//!   constant-time `pow_bounded_pair` (interleaved on the IFMA backend)
//!   and as one simultaneous Straus–Shamir exponentiation (4-bit windows,
//!   tables of 16 powers of each base) built on `MontyParams::mul`/`square`:
//!   the measurements behind the choice.
//! - `dsa_paramgen` (2048/256): FIPS 186-4 A.1.1.2 parameter generation
//!   with a generator, seed drawn from a ChaCha20 stream. numcrypt:
//!   `DomainParameters::generate` (verifiable `g`, A.2.3); OpenSSL:
//!   `Dsa::generate_params(2048)` (which makes (2048, 256) parameters by
//!   FIPS 186-4 with SHA-256, `g` by A.2.1). Flat sampling, one generation
//!   per sample, so the reported median is the median generation time.
//!
//! Every group runs twice: wall time, and (x86_64 only) rdtsc reference
//! cycles (groups suffixed `_cycles`).
//!
//! Run with `cargo bench --bench dsa`; `python3 benches/summarize_dlog.py`
//! prints the tables.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{group_name, openssl_peer};
use criterion::measurement::Measurement;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use numcrypt::dsa::sha2::Sha256;
use numcrypt::dsa::{DomainParameters, ParameterSizes, SigningKey};
use numcrypt::limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use openssl::bn::BigNum;
use openssl::dsa::Dsa;
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::sign::{Signer, Verifier};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const MESSAGE: &[u8; 32] = b"numcrypt dsa benchmark message!!";

fn bn(x: &BoxedUint) -> BigNum {
    BigNum::from_slice(&x.to_be_bytes()).unwrap()
}

struct Peers {
    id: String,
    ours: SigningKey,
    theirs: PKey<Private>,
}

/// One key per size, shared by both peers.
fn peers(sizes: ParameterSizes) -> Peers {
    let mut rng = ChaCha20Rng::seed_from_u64(sizes.l() as u64 * 1000 + sizes.n() as u64);
    let params = DomainParameters::generate(sizes, &mut rng).unwrap();
    let ours = SigningKey::generate(&params, &mut rng).unwrap();
    let dsa = Dsa::from_private_components(
        bn(params.p()),
        bn(params.q()),
        bn(params.g()),
        bn(ours.x()),
        bn(ours.verifying_key().y()),
    )
    .unwrap();
    Peers {
        id: format!("{}_{}", sizes.l(), sizes.n()),
        ours,
        theirs: PKey::from_dsa(dsa).unwrap(),
    }
}

fn openssl_sign(key: &PKey<Private>) -> Vec<u8> {
    let mut signer = Signer::new(MessageDigest::sha256(), key).unwrap();
    signer.update(MESSAGE).unwrap();
    signer.sign_to_vec().unwrap()
}

fn openssl_verify(key: &PKey<Private>, sig: &[u8]) -> bool {
    let mut verifier = Verifier::new(MessageDigest::sha256(), key).unwrap();
    verifier.update(MESSAGE).unwrap();
    verifier.verify(sig).unwrap()
}

fn all_sizes() -> Vec<Peers> {
    [
        ParameterSizes::L2048N224,
        ParameterSizes::L2048N256,
        ParameterSizes::L3072N256,
    ]
    .into_iter()
    .map(peers)
    .collect()
}

fn configure<M: Measurement>(g: &mut BenchmarkGroup<'_, M>) {
    g.sample_size(40)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500));
}

fn bench_sign<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("dsa_sign"));
    configure(&mut g);
    for p in all_sizes() {
        // Each peer's signature verifies under the other.
        let ours = p.ours.sign::<Sha256>(MESSAGE).unwrap().to_der();
        assert!(openssl_verify(&p.theirs, &ours));
        let theirs = openssl_sign(&p.theirs);
        p.ours
            .verifying_key()
            .verify_der::<Sha256>(MESSAGE, &theirs)
            .unwrap();

        g.bench_function(format!("{}/numcrypt", p.id), |b| {
            b.iter(|| {
                black_box(&p.ours)
                    .sign::<Sha256>(black_box(MESSAGE))
                    .unwrap()
                    .to_der()
            })
        });
        g.bench_function(format!("{}/{}", p.id, openssl_peer()), |b| {
            b.iter(|| openssl_sign(black_box(&p.theirs)))
        });
    }
    g.finish();
}

fn bench_sign_batch<M: Measurement>(c: &mut Criterion<M>) {
    const BATCH: usize = 8;
    let mut g = c.benchmark_group(group_name::<M>("dsa_sign_batch"));
    configure(&mut g);
    g.throughput(Throughput::Elements(BATCH as u64));
    let messages: Vec<Vec<u8>> = (0..BATCH)
        .map(|i| format!("numcrypt dsa batch message {i}").into_bytes())
        .collect();
    let messages: Vec<&[u8]> = messages.iter().map(|m| m.as_slice()).collect();
    for p in all_sizes() {
        let batch = p.ours.sign_batch::<Sha256>(&messages).unwrap();
        for (m, sig) in messages.iter().zip(&batch) {
            assert_eq!(sig, &p.ours.sign::<Sha256>(m).unwrap());
        }
        g.bench_function(format!("{}/numcrypt_batch", p.id), |b| {
            b.iter(|| black_box(&p.ours).sign_batch::<Sha256>(black_box(&messages)))
        });
        g.bench_function(format!("{}/numcrypt", p.id), |b| {
            b.iter(|| {
                for m in &messages {
                    black_box(black_box(&p.ours).sign::<Sha256>(m).unwrap());
                }
            })
        });
        g.bench_function(format!("{}/{}", p.id, openssl_peer()), |b| {
            b.iter(|| {
                for _ in 0..BATCH {
                    black_box(openssl_sign(black_box(&p.theirs)));
                }
            })
        });
    }
    g.finish();
}

fn bench_verify<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("dsa_verify"));
    configure(&mut g);
    for p in all_sizes() {
        let sig = p.ours.sign::<Sha256>(MESSAGE).unwrap().to_der();
        let public = p.ours.verifying_key();
        g.bench_function(format!("{}/numcrypt", p.id), |b| {
            b.iter(|| {
                public
                    .verify_der::<Sha256>(black_box(MESSAGE), black_box(&sig))
                    .unwrap()
            })
        });
        g.bench_function(format!("{}/{}", p.id, openssl_peer()), |b| {
            b.iter(|| assert!(openssl_verify(black_box(&p.theirs), black_box(&sig))))
        });
    }
    g.finish();
}

/// `g^a · y^b` by Straus's simultaneous exponentiation with 4-bit windows.
fn straus(
    m: &MontyParams<BoxedUint>,
    g: &MontyForm<BoxedUint>,
    y: &MontyForm<BoxedUint>,
    a: &BoxedUint,
    b: &BoxedUint,
) -> MontyForm<BoxedUint> {
    let table = |base: &MontyForm<BoxedUint>| {
        let mut t = vec![m.one(), base.clone()];
        for i in 2..16 {
            t.push(m.mul(&t[i - 1], base));
        }
        t
    };
    let (tg, ty) = (table(g), table(y));
    let bits = a.bits_vartime().max(b.bits_vartime()).div_ceil(4) * 4;
    let nibble = |x: &BoxedUint, i: u32| {
        (0..4).fold(0usize, |acc, j| {
            acc | ((x.bit_vartime(i + j) as usize) << j)
        })
    };
    let mut acc = m.one();
    for w in (0..bits / 4).rev() {
        for _ in 0..4 {
            acc = m.square(&acc);
        }
        let (i, j) = (nibble(a, 4 * w), nibble(b, 4 * w));
        if i != 0 {
            acc = m.mul(&acc, &tg[i]);
        }
        if j != 0 {
            acc = m.mul(&acc, &ty[j]);
        }
    }
    acc
}

fn bench_multiexp<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("dsa_verify_multiexp"));
    configure(&mut g);
    let p = peers(ParameterSizes::L2048N256);
    let params = p.ours.params();
    let m = MontyParams::new(params.p().clone()).unwrap();
    let gm = m.to_monty(params.g());
    let ym = m.to_monty(p.ours.verifying_key().y());
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let u1 = BoxedUint::random_below(&mut rng, params.q()).unwrap();
    let u2 = BoxedUint::random_below(&mut rng, params.q()).unwrap();
    let two_pows =
        |u1: &BoxedUint, u2: &BoxedUint| m.mul(&m.pow_vartime(&gm, u1), &m.pow_vartime(&ym, u2));
    let pair = |u1: &BoxedUint, u2: &BoxedUint| {
        let [a, b] =
            MontyParams::pow_bounded_pair([(&m, &gm, u1.as_ref()), (&m, &ym, u2.as_ref())], 256);
        m.mul(&a, &b)
    };
    assert_eq!(two_pows(&u1, &u2), straus(&m, &gm, &ym, &u1, &u2));
    assert_eq!(two_pows(&u1, &u2), pair(&u1, &u2));
    g.bench_function("2048_256/pow_bounded_pair", |b| {
        b.iter(|| pair(black_box(&u1), black_box(&u2)))
    });
    g.bench_function("2048_256/two_pow_vartime", |b| {
        b.iter(|| two_pows(black_box(&u1), black_box(&u2)))
    });
    g.bench_function("2048_256/straus_mul_square", |b| {
        b.iter(|| straus(&m, &gm, &ym, black_box(&u1), black_box(&u2)))
    });
    g.finish();
}

fn bench_paramgen<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("dsa_paramgen"));
    // About 0.1–1 s per generation with a geometric spread: one generation
    // per sample, many samples, and the median.
    g.sample_size(60)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_millis(1));
    let theirs = Dsa::generate_params(2048).unwrap();
    assert_eq!((theirs.p().num_bits(), theirs.q().num_bits()), (2048, 256));
    let mut rng = ChaCha20Rng::seed_from_u64(2048);
    g.bench_function("2048_256/numcrypt", |b| {
        b.iter(|| DomainParameters::generate(ParameterSizes::L2048N256, &mut rng).unwrap())
    });
    g.bench_function(format!("2048_256/{}", openssl_peer()), |b| {
        b.iter(|| Dsa::generate_params(2048).unwrap())
    });
    g.finish();
}

common::time_and_cycles_main!(
    bench_sign,
    bench_sign_batch,
    bench_verify,
    bench_multiexp,
    bench_paramgen
);
