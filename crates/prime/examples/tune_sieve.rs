//! Measures prime generation time against the number of sieve primes, to
//! choose `sieve_primes` in `src/sieve.rs`.
//!
//! `cargo run --release -p numcrypt-prime --features insecure-bench-hooks --example tune_sieve -- [BITS] [SAMPLES] [safe] [K ...]`
//! (default 1024 bits, 60 samples per setting, sieve sizes 2048 to 131072;
//! `safe` for safe primes). The integer type is the fixed-width `Uint` the
//! benchmarks use at 512, 1024, 2048 and 3072 bits, `BoxedUint` otherwise.
//! Every setting runs the same seeds, so it finds the same primes and the
//! differences come from the sieve alone. Prints, for each number of sieve
//! primes, the median and mean time, the mean number of Miller–Rabin rounds
//! on sieve survivors, and the mean number of candidates sieved.

use std::ops::ControlFlow;
use std::time::Instant;

use numcrypt_limbs::{BoxedUint, Uint};
use numcrypt_prime::bench_hooks::{Kind, Tuning, generate_tuned};
use numcrypt_prime::{PrimeInt, Progress};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bits: u32 = args.get(1).map_or(1024, |s| s.parse().expect("bits"));
    let samples: usize = args.get(2).map_or(60, |s| s.parse().expect("samples"));
    let safe = args.get(3).is_some_and(|s| s == "safe");
    let first_k = if safe { 4 } else { 3 };
    let mut ks: Vec<usize> = args
        .iter()
        .skip(first_k)
        .map(|s| s.parse().expect("sieve primes"))
        .collect();
    if ks.is_empty() {
        ks = vec![2048, 4096, 8192, 16_384, 32_768, 65_536, 131_072];
    }
    println!(
        "{bits}-bit {}primes, {samples} samples per setting (the same seeds for each)",
        if safe { "safe " } else { "" }
    );
    println!("| sieve primes | median | mean | survivor rounds | candidates |");
    println!("|---|---|---|---|---|");
    for k in ks {
        let tuning = Tuning {
            sieve_primes: Some(k),
            ..Tuning::DEFAULT
        };
        let row = match bits {
            512 => measure::<Uint<8>>(bits, samples, safe, tuning),
            1024 => measure::<Uint<16>>(bits, samples, safe, tuning),
            2048 => measure::<Uint<32>>(bits, samples, safe, tuning),
            3072 => measure::<Uint<48>>(bits, samples, safe, tuning),
            _ => measure::<BoxedUint>(bits, samples, safe, tuning),
        };
        println!("| {k} | {row}");
    }
}

fn measure<U: PrimeInt>(bits: u32, samples: usize, safe: bool, tuning: Tuning) -> String {
    let mut times = Vec::new();
    let (mut rounds, mut cands) = (0u64, 0u64);
    for seed in 0..samples as u64 {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut last = Progress::default();
        let t = Instant::now();
        let mut report = |p: &Progress| {
            last = *p;
            ControlFlow::Continue(())
        };
        let kind = if safe { Kind::Safe } else { Kind::Prime };
        let _p: U = generate_tuned(kind, bits, &mut rng, tuning, &mut report).expect("generate");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        rounds += last.tests - if safe { 128 } else { 64 } * last.finalists;
        cands += last.candidates;
    }
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    format!(
        "{:.2} ms | {:.2} ms | {:.1} | {:.0} |",
        times[times.len() / 2],
        mean,
        rounds as f64 / samples as f64,
        cands as f64 / samples as f64
    )
}
