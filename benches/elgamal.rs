//! ElGamal: encryption and decryption per group, and the question the
//! 2^k − c group exists for: how much does a pseudo-Mersenne reduction
//! save over Montgomery's on the same job?
//!
//! Groups (benchmark id `<group>/<id>/<variant>`):
//! - `elgamal_encrypt`, `elgamal_decrypt`: textbook ElGamal of a 32-byte
//!   message in every named group (`encrypt_message`: encoding, `g^r`,
//!   `y^r`; `decrypt_message`: subgroup checks, `c1^(q−x)`, decoding), all
//!   exponents uniform in `[1, q − 1]`, constant time.
//! - `elgamal_hybrid` (ffdhe2048): `seal` and `open` of 1 KiB.
//! - `elgamal_batch` (ffdhe2048, ffdhe3072): eight SHA-256 signatures with
//!   one key, `SecretKey::sign_batch` (the eight `g^k` as one batch)
//!   against `sign` eight times, and eight messages decrypted,
//!   `decrypt_message_batch` against `decrypt_message` eight times; the
//!   batches' outputs checked equal to the single operations' first (no
//!   peer has ElGamal).
//! - `elgamal_pm2048_job`: the decryption's exponentiation `c^(q−x)`
//!   (2047-bit exponent) modulo `p = 2^2048 − 1942289`, done five ways:
//!   - `field_pseudo_mersenne`: `numcrypt-field`'s
//!     `Fp<PseudoMersenne<32, 2048, 1942289>>::pow_vartime` (mulx
//!     products, the high half folded in with one row of multiplications
//!     by `c`);
//!   - `field_montgomery`: `Fp<Monty<_, 32>>::pow_vartime` modulo the same
//!     prime: the same exponentiation code (4-bit fixed windows, time
//!     independent of the base), Montgomery reduction instead;
//!   - `field_montgomery_random_prime`: the same, modulo a random 2048-bit
//!     safe prime (from `openssl prime -generate -safe`), as a control;
//!   - `limbs_montgomery_mulx`: `MontyParams::pow_bounded` on the limb
//!     kernels (the crate's path on CPUs without AVX-512 IFMA);
//!   - `limbs_montgomery_ifma`: `MontyParams::pow_bounded` as this crate
//!     runs it here (the AVX-512 IFMA backend on this CPU).
//!
//! Every group runs twice: wall time, and (x86_64 only) rdtsc reference
//! cycles (groups suffixed `_cycles`).
//!
//! Run with `cargo bench --bench elgamal`; `python3 benches/summarize_dlog.py`
//! prints the tables.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::group_name;
use criterion::measurement::Measurement;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use numcrypt::elgamal::sha2::Sha256;
use numcrypt::elgamal::{NamedGroup, SecretKey};
use numcrypt::field::{Fp, Monty, MontyModulus, PseudoMersenne};
use numcrypt::limbs::backend::Exponentiation;
use numcrypt::limbs::{BoxedUint, Limb, MontyForm, MontyParams, U2048, Unsigned};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// Big-endian 64-bit words to little-endian limbs.
const fn le<const N: usize>(be: [Limb; N]) -> [Limb; N] {
    let mut r = [0; N];
    let mut i = 0;
    while i < N {
        r[i] = be[N - 1 - i];
        i += 1;
    }
    r
}

const C: u64 = 1942289;

/// `2^2048 − 1942289` for the Montgomery backend.
struct Pm2048;
impl MontyModulus<32> for Pm2048 {
    const NAME: &'static str = "2^2048 - 1942289";
    const MODULUS: [Limb; 32] = {
        let mut m = [Limb::MAX; 32];
        m[0] = Limb::MAX - (C - 1);
        m
    };
}

/// A random 2048-bit safe prime (`openssl prime -generate -bits 2048 -safe`).
struct RandomSafe2048;
impl MontyModulus<32> for RandomSafe2048 {
    const NAME: &'static str = "random safe prime";
    const MODULUS: [Limb; 32] = le([
        0xf29e2c1520e85616,
        0xdced50a6bafa9e6d,
        0x38c6e6cc0dcadec3,
        0x3de66fc62a361f97,
        0x857e482cd87cf788,
        0xb57284c6203242a5,
        0xa91d1d3f50dbc2cf,
        0x808133196603815d,
        0x33c4adc1fcab99fc,
        0xf0896a6f6687f93b,
        0xc011e8dd29f553ea,
        0x3246528b7538f729,
        0xa95fc697672ac138,
        0x0833ff2da28abae2,
        0xe098e46e9e77b115,
        0xdf29c420f61b8796,
        0x71b134edee27ad76,
        0xd2da55bc6db97834,
        0x8cf51e0c337896b8,
        0x7219293bd5fc8a18,
        0xfa0c145239b42e6a,
        0xb1f100732f416c65,
        0x309965e8df2d1505,
        0x4d8ffaddf134a3c9,
        0xc16498545c0b7f0c,
        0x0d8c6186b46e9b55,
        0x34d0229afdcb4c80,
        0x7096b20c85a645ed,
        0x94c520ccb778e595,
        0x3671a935c52ec516,
        0xdbc8622d0bdab452,
        0xf910cdef8ee847bf,
    ]);
}

type FpPm = Fp<PseudoMersenne<32, 2048, C>>;
type FpMontySame = Fp<Monty<Pm2048, 32>>;
type FpMontyRandom = Fp<Monty<RandomSafe2048, 32>>;

fn configure<M: Measurement>(g: &mut BenchmarkGroup<'_, M>, samples: usize, millis: u64) {
    g.sample_size(samples)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(millis));
}

fn bench_encrypt_decrypt<M: Measurement>(c: &mut Criterion<M>) {
    let mut enc = c.benchmark_group(group_name::<M>("elgamal_encrypt"));
    configure(&mut enc, 10, 1500);
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let msg = [0xa5u8; 32];
    let keys: Vec<SecretKey> = NamedGroup::ALL
        .into_iter()
        .map(|g| SecretKey::generate(&g.group(), &mut rng).unwrap())
        .collect();
    for key in &keys {
        let name = key.group().name().unwrap();
        let id = format!("{}/{name}/numcrypt", name.bits());
        enc.bench_function(id, |b| {
            b.iter(|| {
                key.public_key()
                    .encrypt_message(&mut rng, black_box(&msg))
                    .unwrap()
            })
        });
    }
    enc.finish();
    let mut dec = c.benchmark_group(group_name::<M>("elgamal_decrypt"));
    configure(&mut dec, 10, 1500);
    for key in &keys {
        let name = key.group().name().unwrap();
        let ct = key.public_key().encrypt_message(&mut rng, &msg).unwrap();
        assert_eq!(&key.decrypt_message(&ct).unwrap()[..], &msg);
        let id = format!("{}/{name}/numcrypt", name.bits());
        dec.bench_function(id, |b| {
            b.iter(|| key.decrypt_message(black_box(&ct)).unwrap())
        });
    }
    dec.finish();
}

fn bench_hybrid<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("elgamal_hybrid"));
    configure(&mut g, 20, 1500);
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let key = SecretKey::generate(&NamedGroup::Ffdhe2048.group(), &mut rng).unwrap();
    let msg = vec![0x3cu8; 1024];
    let sealed = key.public_key().seal(&mut rng, &msg, b"").unwrap();
    g.bench_function("2048/seal_1KiB/numcrypt", |b| {
        b.iter(|| {
            key.public_key()
                .seal(&mut rng, black_box(&msg), b"")
                .unwrap()
        })
    });
    g.bench_function("2048/open_1KiB/numcrypt", |b| {
        b.iter(|| key.open(black_box(&sealed), b"").unwrap())
    });
    g.finish();
}

fn bench_sign_batch<M: Measurement>(c: &mut Criterion<M>) {
    const BATCH: usize = 8;
    let mut g = c.benchmark_group(group_name::<M>("elgamal_batch"));
    configure(&mut g, 10, 2000);
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let messages: Vec<Vec<u8>> = (0..BATCH)
        .map(|i| format!("numcrypt elgamal batch message {i}").into_bytes())
        .collect();
    let messages: Vec<&[u8]> = messages.iter().map(|m| m.as_slice()).collect();
    for group in [NamedGroup::Ffdhe2048, NamedGroup::Ffdhe3072] {
        let key = SecretKey::generate(&group.group(), &mut rng).unwrap();
        let batch = key.sign_batch::<Sha256>(&messages).unwrap();
        for (m, sig) in messages.iter().zip(&batch) {
            assert_eq!(sig, &key.sign::<Sha256>(m).unwrap());
        }
        let id = format!("{}/{group}", group.bits());
        g.bench_function(format!("{id}/sign_batch"), |b| {
            b.iter(|| black_box(&key).sign_batch::<Sha256>(black_box(&messages)))
        });
        g.bench_function(format!("{id}/sign"), |b| {
            b.iter(|| {
                for m in &messages {
                    black_box(black_box(&key).sign::<Sha256>(m).unwrap());
                }
            })
        });
        let cts: Vec<_> = messages
            .iter()
            .map(|m| key.public_key().encrypt_message(&mut rng, m).unwrap())
            .collect();
        let plain = key.decrypt_message_batch(&cts);
        for ((m, ct), p) in messages.iter().zip(&cts).zip(&plain) {
            assert_eq!(&p.as_ref().unwrap()[..], *m);
            assert_eq!(&key.decrypt_message(ct).unwrap()[..], *m);
        }
        g.bench_function(format!("{id}/decrypt_batch"), |b| {
            b.iter(|| black_box(&key).decrypt_message_batch(black_box(&cts)))
        });
        g.bench_function(format!("{id}/decrypt"), |b| {
            b.iter(|| {
                for ct in &cts {
                    black_box(black_box(&key).decrypt_message(ct).unwrap());
                }
            })
        });
    }
    g.finish();
}

fn bench_pm2048_job<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("elgamal_pm2048_job"));
    configure(&mut g, 20, 2000);
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    // A key and a ciphertext's c1 in the pm2048 group: the job is c1^(q − x).
    let key = SecretKey::generate(&NamedGroup::PseudoMersenne2048.group(), &mut rng).unwrap();
    let group = key.group();
    let c1 = key
        .public_key()
        .encrypt_message(&mut rng, b"job")
        .unwrap()
        .c1()
        .clone();
    let e = group.q().wrapping_sub(key.x());
    let e_words: Vec<Limb> = e.as_words().to_vec();
    let c1_uint = U2048::try_from(&c1).unwrap();

    let pm = FpPm::from_uint(&c1_uint).unwrap();
    let mont = FpMontySame::from_uint(&c1_uint).unwrap();
    let params = MontyParams::new(group.p().clone()).unwrap();
    let base = params.to_monty(&c1);
    let bits = group.q().bits_vartime();
    // The same answer every way (the random-prime control aside).
    let expected = params.from_monty(&params.pow_bounded(&base, &e, bits));
    let limb_kernels = |base: &MontyForm<BoxedUint>| {
        params
            .pow_bounded_on(Exponentiation::LimbKernels, base, &e, bits)
            .expect("the limb kernels run everywhere")
    };
    assert_eq!(
        BoxedUint::from(pm.pow_vartime(&e_words).to_uint()),
        expected
    );
    assert_eq!(
        BoxedUint::from(mont.pow_vartime(&e_words).to_uint()),
        expected
    );
    assert_eq!(params.from_monty(&limb_kernels(&base)), expected);
    // Any base below the other prime will do for the control.
    let mut below = c1_uint.to_words();
    below[31] >>= 1;
    let random = FpMontyRandom::from_uint(&U2048::from_words(below)).unwrap();

    g.bench_function("2048/field_pseudo_mersenne", |b| {
        b.iter(|| black_box(&pm).pow_vartime(black_box(&e_words)))
    });
    g.bench_function("2048/field_montgomery", |b| {
        b.iter(|| black_box(&mont).pow_vartime(black_box(&e_words)))
    });
    g.bench_function("2048/field_montgomery_random_prime", |b| {
        b.iter(|| black_box(&random).pow_vartime(black_box(&e_words)))
    });
    g.bench_function("2048/limbs_montgomery_mulx", |b| {
        b.iter(|| limb_kernels(black_box(&base)))
    });
    g.bench_function("2048/limbs_montgomery_ifma", |b| {
        b.iter(|| params.pow_bounded(black_box(&base), black_box(&e), bits))
    });
    g.finish();
}

common::time_and_cycles_main!(
    bench_encrypt_decrypt,
    bench_hybrid,
    bench_sign_batch,
    bench_pm2048_job
);
