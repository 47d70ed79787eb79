//! Exact primality for integers below `2^64` (deterministic Miller–Rabin).

/// Bases that make Miller–Rabin exact below 3.3·10^24 (Sorenson and Webster
/// 2015), and so for every `u64`.
const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((a as u128 * b as u128) % m as u128) as u64
}

fn pow_mod(mut b: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1 % m;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b, m);
        }
        b = mul_mod(b, b, m);
        e >>= 1;
    }
    r
}

/// Whether `n` is prime, exactly (variable time).
pub(crate) fn is_prime_u64(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    if n < 41 * 41 {
        return true;
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn agrees_with_trial_division_below_100000() {
        let slow = |n: u64| {
            n >= 2
                && (2..)
                    .take_while(|d| d * d <= n)
                    .all(|d| !n.is_multiple_of(d))
        };
        for n in 0..100_000 {
            assert_eq!(is_prime_u64(n), slow(n), "{n}");
        }
    }

    #[test]
    fn large_known_values() {
        assert!(is_prime_u64(u64::MAX - 58)); // 2^64 - 59, the largest u64 prime
        assert!(!is_prime_u64(u64::MAX));
        // 3825123056546413051 is a strong pseudoprime to bases 2..=23.
        assert!(!is_prime_u64(3_825_123_056_546_413_051));
        // 2^61 - 1 is a Mersenne prime.
        assert!(is_prime_u64((1 << 61) - 1));
    }
}
