//! Independent references for the tests: num-bigint Miller–Rabin, the
//! `openssl prime` command, and generators of hard composites.
#![allow(dead_code)]

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use numcrypt_limbs::BoxedUint;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

/// Primality by num-bigint: trial division below 1000, then 40 Miller–Rabin
/// rounds with bases from a fixed-seed ChaCha (independent of numcrypt).
pub fn ref_is_prime(n: &BigUint) -> bool {
    if n < &BigUint::from(2u8) {
        return false;
    }
    for p in 2u32..1000 {
        if (n % p).is_zero() {
            return n == &BigUint::from(p);
        }
    }
    let one = BigUint::one();
    let n1 = n - &one;
    let s = n1.trailing_zeros().unwrap();
    let d = &n1 >> s;
    let mut rng = ChaCha20Rng::seed_from_u64(0x5eed);
    'bases: for _ in 0..40 {
        let a = rand_below(&mut rng, &(&n1 - 2u8)) + 2u8;
        let mut x = a.modpow(&d, n);
        if x == one || x == n1 {
            continue;
        }
        for _ in 1..s {
            x = &x * &x % n;
            if x == n1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

pub fn to_boxed(n: &BigUint) -> BoxedUint {
    let hex = format!("{n:#x}");
    hex.parse().unwrap()
}

pub fn from_boxed(n: &BoxedUint) -> BigUint {
    BigUint::from_bytes_be(&n.to_be_bytes())
}

pub fn big(s: &str) -> BigUint {
    s.parse().unwrap()
}

/// A random prime of `bits` bits by rejection with the reference test.
pub fn ref_random_prime(rng: &mut ChaCha20Rng, bits: u64) -> BigUint {
    loop {
        let mut c = rand_bits(rng, bits);
        c.set_bit(bits - 1, true);
        c.set_bit(0, true);
        if ref_is_prime(&c) {
            return c;
        }
    }
}

/// n = (2x + 1)(4x + 1) with both factors prime and x of `bits` bits: the
/// composites with the most strong liars (close to the 1/4 bound), as in
/// Table 3 of Massimo and Paterson.
pub fn two_x_four_x(rng: &mut ChaCha20Rng, bits: u64) -> (BigUint, BigUint, BigUint) {
    loop {
        let mut x = rand_bits(rng, bits);
        x.set_bit(bits - 1, true);
        // x odd makes 2x+1 ≡ 3 mod 4, the case with liar rate near 1/4.
        x.set_bit(0, true);
        let p = &x * 2u8 + 1u8;
        let q = &x * 4u8 + 1u8;
        if ref_is_prime(&p) && ref_is_prime(&q) {
            return (&p * &q, p, q);
        }
    }
}

/// A Chernick Carmichael number (6k+1)(12k+1)(18k+1), all three prime,
/// with k of about `bits` bits.
pub fn chernick(rng: &mut ChaCha20Rng, bits: u64) -> BigUint {
    loop {
        let k = rand_bits(rng, bits);
        let f = [&k * 6u8 + 1u8, &k * 12u8 + 1u8, &k * 18u8 + 1u8];
        if f.iter().all(ref_is_prime) {
            return f.iter().product();
        }
    }
}

/// Whether the `openssl` command line is available.
pub fn have_openssl() -> bool {
    std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `openssl prime` on each number (hex): its verdicts.
pub fn openssl_prime(ns: &[BigUint]) -> Vec<bool> {
    ns.iter()
        .map(|n| {
            let out = std::process::Command::new("openssl")
                .args(["prime", "-hex", &format!("{n:x}")])
                .output()
                .expect("run openssl prime");
            let text = String::from_utf8(out.stdout).unwrap();
            if text.contains("is not prime") {
                false
            } else {
                assert!(text.contains("is prime"), "openssl said: {text}");
                true
            }
        })
        .collect()
}

pub fn to_u64(n: &BigUint) -> Option<u64> {
    n.to_u64()
}

pub fn is_odd(n: &BigUint) -> bool {
    n.is_odd()
}

/// A uniformly random value below `2^bits`.
pub fn rand_bits(rng: &mut ChaCha20Rng, bits: u64) -> BigUint {
    let words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.next_u64()).collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let n = BigUint::from_bytes_le(&bytes);
    n % (BigUint::one() << bits)
}

/// A uniformly random value below `bound` (rejection sampling).
pub fn rand_below(rng: &mut ChaCha20Rng, bound: &BigUint) -> BigUint {
    loop {
        let c = rand_bits(rng, bound.bits());
        if &c < bound {
            return c;
        }
    }
}
