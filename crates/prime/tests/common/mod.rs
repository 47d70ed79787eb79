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

/// Whether `n` (odd, > 3) is a strong probable prime to base `a`: the
/// textbook test with num-bigint, independent of numcrypt.
pub fn ref_strong_probable_prime(n: &BigUint, a: u32) -> bool {
    let one = BigUint::one();
    let n1 = n - &one;
    let s = n1.trailing_zeros().unwrap();
    let d = &n1 >> s;
    let mut x = BigUint::from(a).modpow(&d, n);
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

/// The first `count` primes (2, 3, 5, …).
pub fn first_primes(count: usize) -> Vec<u32> {
    (2u32..)
        .filter(|&n| (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0))
        .take(count)
        .collect()
}

/// The Legendre symbol `(x/a)` for an odd prime `a`: 0, 1 or -1.
fn legendre(x: u64, a: u64) -> i32 {
    let x = x % a;
    if x == 0 {
        return 0;
    }
    let r = BigUint::from(x).modpow(&BigUint::from((a - 1) / 2), &BigUint::from(a));
    if r == BigUint::one() { 1 } else { -1 }
}

/// An Arnault number (F. Arnault, "Constructing Carmichael numbers which
/// are strong pseudoprimes to several bases", J. Symbolic Computation 20,
/// 1995): `n = p1·p2·p3` with `p_i = k_i (p1 - 1) + 1` all prime, a
/// Carmichael number that is a strong pseudoprime to every base in
/// `bases` (primes, starting with 2). Returns `n` and its factors.
///
/// Why it fools those bases: every `p_i ≡ 3 (mod 4)`, so `n - 1 = 2d` with
/// `d` odd, and `p_i - 1 = 2 d_i` divides `n - 1` (Korselt), so
/// `a^d ≡ (a/p_i)^(d/d_i) = (a/p_i) (mod p_i)` by Euler's criterion. When
/// the Legendre symbols `(a/p_i)` agree for the three factors, `a^d ≡ ±1
/// (mod n)`: `a` is a strong liar. The conditions, all on `p1`:
/// - Korselt for `p2` and `p3`: `k3·p1 ≡ -1 (mod k2)` and
///   `k2·p1 ≡ -1 (mod k3)` (`k2`, `k3` coprime, and coprime to the bases);
/// - base 2: `p1 ≡ 3 or 7 (mod 8)` with `k2 ≡ k3 ≡ 1 (mod 4)` puts all
///   three factors in the same class modulo 8, so `(2/p_i)` agree;
/// - an odd base `a`: with every `p_i ≡ 3 (mod 4)`, quadratic reciprocity
///   gives `(a/p_i) = ±(p_i/a)` with the same sign for the three, and
///   `p_i ≡ k_i (p1 - 1) + 1 (mod a)`, so `p1 mod a` is drawn from the
///   residues `r` where `(r/a)`, `((k2(r-1)+1)/a)` and `((k3(r-1)+1)/a)`
///   are equal and non-zero (`r = 1` always qualifies).
///
/// The residues are combined by the Chinese remainder theorem, and
/// `p1 = r0 + t·M` is tried for random `t` until all three are prime.
pub fn arnault(rng: &mut ChaCha20Rng, bases: &[u32], k2: u64, k3: u64) -> (BigUint, [BigUint; 3]) {
    assert_eq!(bases[0], 2);
    assert!(k2 % 4 == 1 && k3 % 4 == 1);
    assert_eq!(num_integer::gcd(k2, k3), 1);
    // Congruences (residue, modulus) for p1.
    let inv = |x: u64, m: u64| -> u64 { (1..m).find(|y| x * y % m == 1).unwrap() };
    let mut congruences = vec![
        (k2 - inv(k3 % k2, k2), k2),
        (k3 - inv(k2 % k3, k3), k3),
        (
            if rng.next_u32().is_multiple_of(2) {
                3
            } else {
                7
            },
            8,
        ),
    ];
    for &a in &bases[1..] {
        let a = a as u64;
        assert!(
            !k2.is_multiple_of(a) && !k3.is_multiple_of(a),
            "k2, k3 must be coprime to the bases"
        );
        let good: Vec<u64> = (1..a)
            .filter(|&r| {
                let l = legendre(r, a);
                l != 0 && legendre(k2 * (r - 1) + 1, a) == l && legendre(k3 * (r - 1) + 1, a) == l
            })
            .collect();
        congruences.push((good[rng.next_u32() as usize % good.len()], a));
    }
    let (mut r0, mut m) = (BigUint::zero(), BigUint::one());
    for (r, q) in congruences {
        // r0 + m·x ≡ r (mod q).
        let q_big = BigUint::from(q);
        let have = (&r0 % &q_big).to_u64().unwrap();
        let minv = inv((&m % &q_big).to_u64().unwrap(), q);
        let x = (r + q - have) % q * minv % q;
        r0 += &m * x;
        m *= q;
    }
    loop {
        let p1 = &r0 + &m * rand_bits(rng, 32);
        let p2 = (&p1 - 1u8) * k2 + 1u8;
        let p3 = (&p1 - 1u8) * k3 + 1u8;
        if ref_is_prime(&p1) && ref_is_prime(&p2) && ref_is_prime(&p3) {
            return (&p1 * &p2 * &p3, [p1, p2, p3]);
        }
    }
}
