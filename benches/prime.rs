//! Primality testing and prime generation: numcrypt against OpenSSL (through
//! the `openssl` crate), crypto-primes 0.7 and GMP (through rug), every peer
//! in the same criterion group so that ratios come from one run.
//!
//! Groups (benchmark id `<group>/<bits>/<peer>`):
//! - `prime_gen`: one random prime of `bits` bits (top two bits set).
//!   numcrypt `PrimeGen` (`PrimeKind::Prime`, `Uint`) (constant time; sieve of 2048 to
//!   32768 primes by size, one base-2 round per survivor, MR64 on the final
//!   candidate);
//!   OpenSSL `BN_generate_prime_ex` (`BigNum::generate_prime`, safe = 0:
//!   sieve of 128 primes at 1024 bits, restarts from a fresh random number
//!   whenever a candidate fails, 64 rounds on the final candidate at these
//!   sizes); crypto-primes `random_prime` (`Flavor::Any`: Baillie–PSW only);
//!   GMP `mpz_nextprime` from a random start (not a generation API with the
//!   same guarantees: a reference point). Each iteration draws a new prime
//!   (numcrypt and crypto-primes from a ChaCha20 stream with a fixed seed,
//!   OpenSSL from its DRBG), so the samples spread widely: the group runs
//!   many flat samples and the figure to quote is the median.
//! - `safe_prime_gen`: one safe prime `p = 2q + 1`. numcrypt
//!   `PrimeKind::Safe` (joint sieve, MR64 on q and p) against OpenSSL
//!   `BN_generate_prime_ex` with safe = 1 (64 alternating rounds on p and q).
//!   40 samples at 512 bits, 20 at 1024, 10 at 2048 (where OpenSSL takes
//!   about 20 s per prime).
//! - `is_prime`: a fixed random 2048-bit prime (so every round runs).
//!   numcrypt `is_prime_vartime` (MR64, hash-derived bases) and `is_prime`
//!   (the same, constant time); OpenSSL `BN_check_prime`, called as
//!   `BN_is_prime_fasttest_ex(checks = 0, trial division = 1)`, which is
//!   what `BN_check_prime` does (64 rounds up to 2048 bits), and the same
//!   with `checks = 128`; GMP `mpz_probab_prime_p(n, 64)` (Baillie–PSW plus
//!   40 random-base rounds in GMP 6.2); crypto-primes `is_prime`
//!   (Baillie–PSW).
//! - `table5`: the paper's Table 5: numcrypt prime generation with MR64 on
//!   the final candidate (`mr64`) and with the average-case round counts of
//!   OpenSSL 1.1.1's `BN_prime_checks_for_size` (`mrac`: 5 rounds at 512 and
//!   1024 bits, 4 at 2048 and 3072). An iteration generates a fixed set of
//!   primes (64 at 512 bits, 32 at 1024, 16 at 2048 and 3072, from fixed
//!   seeds), the same for both variants, so they differ only in the final
//!   rounds; 10 samples each. `benches/summarize_prime.py` prints the time
//!   per prime and the overhead.
//!
//! Every group runs twice: wall time, and (x86_64) rdtsc cycles (groups
//! suffixed `_cycles`). Run with a filter, for example
//! `cargo bench --bench prime -- 'prime_gen/1024'`, then
//! `python3 benches/summarize_prime.py`.

mod common;

use std::hint::black_box;
use std::ops::ControlFlow;
use std::time::Duration;

use common::{group_name, openssl_peer};
use criterion::measurement::Measurement;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use numcrypt::limbs::{U2048, Uint};
use numcrypt::prime::bench_hooks::{Kind, Tuning, generate_tuned};
use numcrypt::prime::{self as nprime, PrimeInt};
use openssl::bn::{BigNum, BigNumContext};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rug::Integer;
use rug::integer::Order;

/// Many short flat samples: prime generation times vary by an order of
/// magnitude from one prime to the next.
fn configure<M: Measurement>(g: &mut BenchmarkGroup<'_, M>, samples: usize, secs: u64) {
    g.sample_size(samples)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(secs));
}

/// crypto-primes' `random_prime` at a concrete width.
macro_rules! crypto_primes_gen {
    ($l:literal) => {
        |rng: &mut ChaCha20Rng, bits: u32| {
            let p: crypto_bigint::Uint<$l> =
                crypto_primes::random_prime(rng, crypto_primes::Flavor::Any, bits);
            p
        }
    };
}

fn prime_gen_at<M: Measurement, const L: usize, P>(
    g: &mut BenchmarkGroup<'_, M>,
    bits: u32,
    crypto_primes_gen: impl Fn(&mut ChaCha20Rng, u32) -> P,
) where
    Uint<L>: PrimeInt,
{
    let mut rng = ChaCha20Rng::seed_from_u64(0x7072_696d_6573 ^ bits as u64);
    g.bench_function(format!("{bits}/numcrypt_generate_prime"), |b| {
        b.iter(|| {
            nprime::PrimeGen::new(nprime::PrimeKind::Prime, bits)
                .generate::<Uint<L>, _>(&mut rng)
                .expect("prime")
        })
    });
    let mut rng = ChaCha20Rng::seed_from_u64(0x7072_696d_6573 ^ bits as u64);
    g.bench_function(format!("{bits}/crypto-primes_random_prime"), |b| {
        b.iter(|| crypto_primes_gen(&mut rng, bits))
    });
    let mut p = BigNum::new().expect("bignum");
    g.bench_function(
        format!("{bits}/{}_BN_generate_prime_ex", openssl_peer()),
        |b| {
            b.iter(|| {
                p.generate_prime(bits as i32, false, None, None)
                    .expect("openssl prime")
            })
        },
    );
    let mut rng = ChaCha20Rng::seed_from_u64(0x0067_6d70 ^ bits as u64);
    g.bench_function(format!("{bits}/gmp_mpz_nextprime_ref"), |b| {
        b.iter(|| {
            let words: Vec<u64> = (0..L).map(|_| rng.next_u64()).collect();
            let mut x = Integer::from_digits(&words, Order::Lsf);
            x.set_bit(bits - 1, true);
            x.set_bit(bits - 2, true);
            x.next_prime()
        })
    });
}

fn bench_prime_gen<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("prime_gen"));
    configure(&mut g, 60, 20);
    prime_gen_at::<M, 8, _>(&mut g, 512, crypto_primes_gen!(8));
    prime_gen_at::<M, 16, _>(&mut g, 1024, crypto_primes_gen!(16));
    prime_gen_at::<M, 32, _>(&mut g, 2048, crypto_primes_gen!(32));
    g.finish();
}

fn safe_at<M: Measurement, const L: usize>(g: &mut BenchmarkGroup<'_, M>, bits: u32, samples: usize)
where
    Uint<L>: PrimeInt,
{
    g.sample_size(samples);
    let mut rng = ChaCha20Rng::seed_from_u64(0x7361_6665 ^ bits as u64);
    g.bench_function(format!("{bits}/numcrypt_generate_safe_prime"), |b| {
        b.iter(|| {
            nprime::PrimeGen::new(nprime::PrimeKind::Safe, bits)
                .generate::<Uint<L>, _>(&mut rng)
                .expect("safe prime")
        })
    });
    let mut p = BigNum::new().expect("bignum");
    g.bench_function(
        format!("{bits}/{}_BN_generate_prime_ex_safe", openssl_peer()),
        |b| {
            b.iter(|| {
                p.generate_prime(bits as i32, true, None, None)
                    .expect("openssl safe prime")
            })
        },
    );
}

/// Fewer samples at 2048 bits, where OpenSSL takes about 20 s per safe
/// prime (criterion also spends one on warming up).
fn bench_safe_prime_gen<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("safe_prime_gen"));
    configure(&mut g, 10, 5);
    safe_at::<M, 8>(&mut g, 512, 40);
    safe_at::<M, 16>(&mut g, 1024, 20);
    safe_at::<M, 32>(&mut g, 2048, 10);
    g.finish();
}

fn bench_is_prime<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("is_prime"));
    g.sample_size(15)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(4));
    let bits = 2048;
    let mut rng = ChaCha20Rng::seed_from_u64(0x0069_7370_7269_6d65);
    let n: U2048 = nprime::PrimeGen::new(nprime::PrimeKind::Prime, bits)
        .generate(&mut rng)
        .expect("prime");
    let bytes = n.to_be_bytes_vec();
    let on = BigNum::from_slice(&bytes).expect("bignum");
    let gn = Integer::from_digits(n.as_words(), Order::Lsf);
    let cn = crypto_bigint::U2048::from_words(n.to_words());
    let mut ctx = BigNumContext::new().expect("ctx");
    assert!(nprime::is_prime_vartime(&n) && nprime::is_prime(&n));
    assert!(on.is_prime_fasttest(0, &mut ctx, true).expect("openssl"));
    assert!(crypto_primes::is_prime(crypto_primes::Flavor::Any, &cn));
    g.bench_function(format!("{bits}/numcrypt_is_prime_vartime"), |b| {
        b.iter(|| nprime::is_prime_vartime(black_box(&n)))
    });
    g.bench_function(format!("{bits}/numcrypt_is_prime_ct"), |b| {
        b.iter(|| nprime::is_prime(black_box(&n)))
    });
    g.bench_function(format!("{bits}/{}_BN_check_prime", openssl_peer()), |b| {
        b.iter(|| on.is_prime_fasttest(0, &mut ctx, true).expect("openssl"))
    });
    g.bench_function(
        format!("{bits}/{}_BN_check_prime_128_rounds", openssl_peer()),
        |b| b.iter(|| on.is_prime_fasttest(128, &mut ctx, true).expect("openssl")),
    );
    g.bench_function(format!("{bits}/gmp_mpz_probab_prime_p_64"), |b| {
        b.iter(|| black_box(&gn).is_probably_prime(64))
    });
    g.bench_function(format!("{bits}/crypto-primes_is_prime_bpsw"), |b| {
        b.iter(|| crypto_primes::is_prime(crypto_primes::Flavor::Any, black_box(&cn)))
    });
    g.finish();
}

/// OpenSSL 1.1.1's `BN_prime_checks_for_size`: average-case rounds for a
/// 2^-80 (below 1300 bits) to 2^-128 error on random candidates.
fn mrac_rounds(bits: u32) -> usize {
    match bits {
        3747.. => 3,
        1345.. => 4,
        476.. => 5,
        400.. => 6,
        347.. => 7,
        308.. => 8,
        55.. => 27,
        _ => 34,
    }
}

/// Table 5 at one size: each iteration generates the same `count` primes
/// (fixed seeds) with MR64 and with average-case rounds, so the two do the
/// same sieving and survivor rounds and differ only in the final rounds; the
/// time per prime is the iteration time over `count` (criterion's
/// throughput, which `summarize_prime.py` divides by).
fn table5_at<M: Measurement, const L: usize>(
    g: &mut BenchmarkGroup<'_, M>,
    bits: u32,
    count: u64,
    samples: usize,
) where
    Uint<L>: PrimeInt,
{
    g.sample_size(samples)
        .throughput(Throughput::Elements(count));
    for (name, rounds) in [
        ("mr64", Tuning::DEFAULT.final_rounds),
        ("mrac", mrac_rounds(bits)),
    ] {
        let tuning = Tuning {
            final_rounds: rounds,
            ..Tuning::DEFAULT
        };
        g.bench_function(format!("{bits}/numcrypt_{name}"), |b| {
            b.iter(|| {
                for seed in 0..count {
                    let mut rng = ChaCha20Rng::seed_from_u64((0x7461_626c_6535 << 16) ^ seed);
                    let prime: Uint<L> =
                        generate_tuned(Kind::Prime, bits, &mut rng, tuning, &mut |_| {
                            ControlFlow::Continue(())
                        })
                        .expect("prime");
                    black_box(prime);
                }
            });
        });
    }
}

fn bench_table5<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("table5"));
    configure(&mut g, 10, 10);
    table5_at::<M, 8>(&mut g, 512, 64, 10);
    table5_at::<M, 16>(&mut g, 1024, 32, 10);
    table5_at::<M, 32>(&mut g, 2048, 16, 10);
    table5_at::<M, 48>(&mut g, 3072, 16, 10);
    g.finish();
}

common::time_and_cycles_main!(
    bench_prime_gen,
    bench_safe_prime_gen,
    bench_is_prime,
    bench_table5
);
