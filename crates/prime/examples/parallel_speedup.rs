//! Wall time of the multi-threaded search against one thread, on the same
//! seeds (so the same primes: the example checks that they agree).
//!
//! `cargo run --release -p numcrypt-prime --features std --example parallel_speedup -- [BITS] [COUNT] [safe] [THREADS]`
//! (default: 1024-bit primes, 20 of them, 1 and 2 threads). The integer
//! type is the fixed-width `Uint` at 512, 1024 and 2048 bits, `BoxedUint`
//! otherwise.

use std::num::NonZeroUsize;
use std::time::Instant;

use numcrypt_limbs::{BoxedUint, Uint};
use numcrypt_prime::{PrimeGen, PrimeInt, PrimeKind};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bits: u32 = args.get(1).map_or(1024, |s| s.parse().expect("bits"));
    let count: u64 = args.get(2).map_or(20, |s| s.parse().expect("count"));
    let safe = args.get(3).is_some_and(|s| s == "safe");
    let most: usize = args
        .get(if safe { 4 } else { 3 })
        .map_or(2, |s| s.parse().expect("threads"));
    let kind = if safe { "safe primes" } else { "primes" };
    println!("{count} {bits}-bit {kind}, the same seeds for each thread count");
    let mut first = None;
    for threads in 1..=most {
        let (secs, primes) = match bits {
            512 => run::<Uint<8>>(bits, count, safe, threads),
            1024 => run::<Uint<16>>(bits, count, safe, threads),
            2048 => run::<Uint<32>>(bits, count, safe, threads),
            _ => run::<BoxedUint>(bits, count, safe, threads),
        };
        let (one_thread, want) = first.get_or_insert((secs, primes.clone()));
        assert_eq!(&primes, want, "{threads} threads found other primes");
        println!(
            "threads {threads}: {secs:.2} s ({:.2}x one thread)",
            *one_thread / secs
        );
    }
}

fn run<U: PrimeInt>(bits: u32, count: u64, safe: bool, threads: usize) -> (f64, Vec<String>) {
    let threads = NonZeroUsize::new(threads);
    let start = Instant::now();
    let primes = (0..count)
        .map(|seed| {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let p: U = if safe {
                PrimeGen::new(PrimeKind::Safe, bits)
                    .threads(threads)
                    .generate(&mut rng)
            } else {
                PrimeGen::new(PrimeKind::Prime, bits)
                    .threads(threads)
                    .generate(&mut rng)
            }
            .expect("generate");
            format!("{:x?}", p.as_ref())
        })
        .collect();
    (start.elapsed().as_secs_f64(), primes)
}
