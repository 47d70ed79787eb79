//! Shared helpers for the differential tests: strategies biased towards edge
//! values, and num-bigint references for what num-bigint lacks.
#![allow(dead_code)]

use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, Zero};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// One limb: usually random, often an edge value.
fn limb() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => any::<u64>(),
        1 => Just(0u64),
        1 => Just(1u64),
        1 => Just(u64::MAX),
        1 => 0u64..16,
        1 => Just(1u64 << 63),
    ]
}

/// `n` limbs, sometimes all zero or all ones, or with zero high limbs.
pub fn limbs_strategy(n: usize) -> impl Strategy<Value = Vec<u64>> {
    prop_oneof![
        6 => prop::collection::vec(limb(), n),
        1 => Just(vec![0u64; n]),
        1 => Just(vec![u64::MAX; n]),
        1 => (0..n, prop::collection::vec(any::<u64>(), n)).prop_map(move |(keep, mut v)| {
            v[keep + 1..].fill(0);
            v
        }),
    ]
}

/// Forces an odd modulus greater than one.
pub fn make_odd_modulus(mut v: Vec<u64>) -> Vec<u64> {
    v[0] |= 1;
    if v[0] == 1 && v[1..].iter().all(|&x| x == 0) {
        v[0] = 3;
    }
    v
}

pub fn to_big(limbs: &[u64]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

pub fn from_big_limbs(x: &BigUint, n: usize) -> Vec<u64> {
    let mut digits = x.to_u64_digits();
    assert!(digits.len() <= n, "reference value too wide");
    digits.resize(n, 0);
    digits
}

pub fn seeded_rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// Modular inverse by the extended Euclidean algorithm on signed integers.
pub fn reference_inverse(a: &BigUint, m: &BigUint) -> Option<BigUint> {
    if m <= &BigUint::one() {
        return None;
    }
    let m_int = BigInt::from_biguint(Sign::Plus, m.clone());
    let a_int = BigInt::from_biguint(Sign::Plus, a % m);
    let egcd = a_int.extended_gcd(&m_int);
    if !egcd.gcd.is_one() {
        return None;
    }
    let x = egcd.x.mod_floor(&m_int);
    x.to_biguint()
}

/// Jacobi symbol by the textbook algorithm (quadratic reciprocity on
/// remainders), independent of the library's binary algorithm.
pub fn reference_jacobi(a: &BigUint, n: &BigUint) -> i8 {
    assert!(n.is_odd());
    let mut a = a % n;
    let mut n = n.clone();
    let mut t = 1i8;
    while !a.is_zero() {
        while a.is_even() {
            a >>= 1;
            let r = (&n % 8u32).to_u32_digits().first().copied().unwrap_or(0);
            if r == 3 || r == 5 {
                t = -t;
            }
        }
        std::mem::swap(&mut a, &mut n);
        let a4 = (&a % 4u32).to_u32_digits().first().copied().unwrap_or(0);
        let n4 = (&n % 4u32).to_u32_digits().first().copied().unwrap_or(0);
        if a4 == 3 && n4 == 3 {
            t = -t;
        }
        a %= &n;
    }
    if n.is_one() { t } else { 0 }
}
