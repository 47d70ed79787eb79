//! Table 3 of Massimo and Paterson at a smaller scale: composites
//! `n = (2x+1)(4x+1)` with both factors prime (`x` odd, so `2x+1 ≡ 3 mod 4`)
//! have close to the maximum share of strong liars, `φ(n)/4`. For each such
//! `n`, Miller–Rabin rounds with uniformly random bases run until one finds
//! a witness; the table gives how many rounds that took, beside the bound
//! `P(more than k rounds) <= 4^-k`.
//!
//! `cargo run --release -p numcrypt-prime --example table3 -- [COUNT] [XBITS]`
//! (default 2000 numbers with 96-bit `x`). The factors come from numcrypt's
//! `is_prime`; the rounds are computed with num-bigint, independently of
//! numcrypt's Miller–Rabin.

use num_bigint::BigUint;
use num_traits::One;
use numcrypt_limbs::BoxedUint;
use numcrypt_prime::is_prime_vartime;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

fn random_below(rng: &mut ChaCha20Rng, bound: &BigUint) -> BigUint {
    let words = bound.bits().div_ceil(64) as usize + 2;
    let bytes: Vec<u8> = (0..words)
        .flat_map(|_| rng.next_u64().to_le_bytes())
        .collect();
    BigUint::from_bytes_le(&bytes) % bound
}

/// One round: true when `a` is a strong liar for `n`.
fn liar(n: &BigUint, a: &BigUint) -> bool {
    let one = BigUint::one();
    let n1 = n - &one;
    let s = n1.trailing_zeros().unwrap_or(0);
    let d = &n1 >> s;
    let mut x = a.modpow(&d, n);
    if x == one || x == n1 {
        return true;
    }
    for _ in 1..s {
        x = &x * &x % n;
        if x == n1 {
            return true;
        }
    }
    false
}

fn is_prime(n: &BigUint) -> bool {
    is_prime_vartime(&BoxedUint::from_be_slice_auto(&n.to_bytes_be()))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).map_or(2000, |s| s.parse().expect("count"));
    let xbits: u32 = args.get(2).map_or(96, |s| s.parse().expect("bits"));
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut histogram = [0usize; 65];
    let mut found = 0;
    while found < count {
        let words: Vec<u64> = (0..xbits.div_ceil(64)).map(|_| rng.next_u64()).collect();
        let mut x = BigUint::from_slice(
            &words
                .iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect::<Vec<_>>(),
        ) % (BigUint::one() << xbits);
        x.set_bit(u64::from(xbits) - 1, true);
        x.set_bit(0, true);
        let (p, q) = (&x * 2u8 + 1u8, &x * 4u8 + 1u8);
        if !is_prime(&p) || !is_prime(&q) {
            continue;
        }
        found += 1;
        let n = &p * &q;
        let range = &n - 3u8;
        let mut rounds = 1;
        while rounds <= 64 && liar(&n, &(random_below(&mut rng, &range) + 2u8)) {
            rounds += 1;
        }
        histogram[rounds.min(64)] += 1;
    }
    let n_bits = 3 * xbits + 3;
    println!("{count} numbers n = (2x+1)(4x+1), x odd of {xbits} bits (n of about {n_bits} bits)");
    println!();
    println!("| rounds to a witness | numbers | share | share needing more | bound 4^-k |");
    println!("|---|---|---|---|---|");
    let mut remaining = count;
    for (k, &h) in histogram.iter().enumerate().skip(1) {
        if h == 0 && remaining == 0 {
            break;
        }
        remaining -= h;
        println!(
            "| {k} | {h} | {:.4} | {:.5} | {:.5} |",
            h as f64 / count as f64,
            remaining as f64 / count as f64,
            0.25f64.powi(k as i32)
        );
    }
}
