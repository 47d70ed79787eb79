//! The small-prime tables, computed at compile time: the odd primes used by
//! trial division and by the generation sieve, their Barrett constants, and
//! products of consecutive primes that fit a limb.

/// Number of odd primes in the table (3, 5, 7, …, 84047).
pub(crate) const TABLE_LEN: usize = 8192;

/// The first [`TABLE_LEN`] odd primes.
pub(crate) static ODD_PRIMES: [u32; TABLE_LEN] = odd_primes();

/// `floor(2^64 / p)` for each prime: Barrett reduction of any `u64`.
pub(crate) static BARRETT: [u64; TABLE_LEN] = barrett();

/// Trial division for MR64 uses the first `r` odd primes, from Table 4 of
/// Massimo & Paterson: the `r` that minimises the expected cost of MR64 on
/// random odd inputs of that size.
pub(crate) const fn trial_division_primes(bits: u32) -> usize {
    match bits {
        0..=512 => 64,
        513..=1024 => 128,
        1025..=2048 => 384,
        2049..=3072 => 768,
        _ => 1024,
    }
}

/// Products of consecutive odd primes from the table, each below `2^64`:
/// one multi-precision remainder per product instead of one per prime.
/// Product `g` covers the primes with indices `start[g]..start[g + 1]`.
pub(crate) struct Products {
    pub(crate) product: [u64; PRODUCT_SLOTS],
    /// `-product^-1 mod 2^64`, for Montgomery reduction.
    pub(crate) neg_inv: [u64; PRODUCT_SLOTS],
    /// `2^64 mod product` and `2^128 mod product`: Montgomery forms of 1
    /// and of `2^64`.
    pub(crate) r1: [u64; PRODUCT_SLOTS],
    pub(crate) r2: [u64; PRODUCT_SLOTS],
    pub(crate) start: [u16; PRODUCT_SLOTS + 1],
    pub(crate) count: usize,
}

/// The products covering the whole table.
pub(crate) static PRODUCTS: Products = products();

const PRODUCT_SLOTS: usize = TABLE_LEN;

const fn odd_primes() -> [u32; TABLE_LEN] {
    // A sieve of Eratosthenes over odd numbers below LIMIT (the 8193rd prime
    // is 84053, so 84100 suffices).
    const LIMIT: usize = 84_100;
    let mut composite = [false; LIMIT];
    let mut out = [0u32; TABLE_LEN];
    let mut count = 0;
    let mut n = 3;
    while n < LIMIT && count < TABLE_LEN {
        if !composite[n] {
            out[count] = n as u32;
            count += 1;
            let mut m = n * n;
            while m < LIMIT {
                composite[m] = true;
                m += 2 * n;
            }
        }
        n += 2;
    }
    assert!(count == TABLE_LEN, "sieve limit too small");
    out
}

const fn barrett() -> [u64; TABLE_LEN] {
    let primes = odd_primes();
    let mut out = [0u64; TABLE_LEN];
    let mut i = 0;
    while i < TABLE_LEN {
        // p is odd, so floor((2^64 - 1) / p) = floor(2^64 / p).
        out[i] = u64::MAX / primes[i] as u64;
        i += 1;
    }
    out
}

const fn products() -> Products {
    let primes = odd_primes();
    let mut product = [0u64; PRODUCT_SLOTS];
    let mut neg_inv = [0u64; PRODUCT_SLOTS];
    let mut r1 = [0u64; PRODUCT_SLOTS];
    let mut r2 = [0u64; PRODUCT_SLOTS];
    let mut start = [0u16; PRODUCT_SLOTS + 1];
    let mut count = 0;
    let mut i = 0;
    while i < TABLE_LEN {
        start[count] = i as u16;
        let mut prod: u64 = 1;
        while i < TABLE_LEN {
            match prod.checked_mul(primes[i] as u64) {
                Some(p) => {
                    prod = p;
                    i += 1;
                }
                None => break,
            }
        }
        product[count] = prod;
        // Newton's iteration doubles the correct low bits of the inverse.
        let mut inv: u64 = 1;
        let mut k = 0;
        while k < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(prod.wrapping_mul(inv)));
            k += 1;
        }
        neg_inv[count] = inv.wrapping_neg();
        r1[count] = ((u64::MAX % prod) + 1) % prod;
        r2[count] = ((r1[count] as u128 * r1[count] as u128) % prod as u128) as u64;
        count += 1;
    }
    start[count] = TABLE_LEN as u16;
    Products {
        product,
        neg_inv,
        r1,
        r2,
        start,
        count,
    }
}

/// Residues of `a` modulo the first `k` table primes, written to
/// `out[..k]`: one Montgomery pass over `a` per product of primes, then a
/// Barrett reduction per prime. Constant time in `a`.
pub(crate) fn residues_ct(a: &[u64], out: &mut [u32], k: usize) {
    let t = &PRODUCTS;
    let mut g = 0;
    while g < t.count && (t.start[g] as usize) < k {
        let r = rem_product_ct(a, g);
        let end = (t.start[g + 1] as usize).min(k);
        for i in t.start[g] as usize..end {
            out[i] = reduce_u64(r, ODD_PRIMES[i], BARRETT[i]) as u32;
        }
        g += 1;
    }
}

/// `a mod PRODUCTS.product[g]`, constant time in `a`.
pub(crate) fn rem_product_ct(a: &[u64], g: usize) -> u64 {
    let p = PRODUCTS.product[g];
    let neg_inv = PRODUCTS.neg_inv[g];
    // Folding from the bottom, acc = a * 2^(-64 len) mod p.
    let mut acc: u64 = 0;
    for &limb in a {
        acc = redc(acc as u128 + limb as u128, p, neg_inv);
    }
    // Multiply back by 2^(64 len): a Montgomery product with the Montgomery
    // form of 2^(64 len), by square-and-multiply on the public length.
    let mut pow = PRODUCTS.r1[g];
    let mut base = PRODUCTS.r2[g];
    let mut e = a.len();
    while e > 0 {
        if e & 1 == 1 {
            pow = redc(pow as u128 * base as u128, p, neg_inv);
        }
        base = redc(base as u128 * base as u128, p, neg_inv);
        e >>= 1;
    }
    redc(acc as u128 * pow as u128, p, neg_inv)
}

/// Montgomery reduction `t * 2^-64 mod p` for odd `p` and `t < p * 2^64`,
/// without branches.
#[inline(always)]
fn redc(t: u128, p: u64, neg_inv: u64) -> u64 {
    let m = (t as u64).wrapping_mul(neg_inv);
    let mp = m as u128 * p as u128;
    // t + m p is divisible by 2^64 and below 2 p 2^64 < 2^129: keep the carry.
    let (sum, carry) = t.overflowing_add(mp);
    let u = (sum >> 64) | ((carry as u128) << 64);
    let v = u.wrapping_sub(p as u128);
    // v is negative (bit 127 set) exactly when u < p.
    let keep_u = 0u128.wrapping_sub(v >> 127);
    ((v & !keep_u) | (u & keep_u)) as u64
}

/// `x mod p` for any `x < 2^64`, without division or branches (Barrett with
/// `mu = floor(2^64 / p)`, then one masked correction).
#[inline(always)]
pub(crate) fn reduce_u64(x: u64, p: u32, mu: u64) -> u64 {
    let q = ((x as u128 * mu as u128) >> 64) as u64;
    // q is floor(x / p) or one less, so r < 2p < 2^33.
    let r = x - q * p as u64;
    let t = r.wrapping_sub(p as u64);
    // Bit 63 of t is set exactly when r < p.
    t.wrapping_add(p as u64 & 0u64.wrapping_sub(t >> 63))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn primes_are_the_odd_primes() {
        let is_prime = |n: u32| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0);
        let expected: Vec<u32> = (3..).filter(|&n| is_prime(n)).take(TABLE_LEN).collect();
        assert_eq!(ODD_PRIMES.to_vec(), expected);
        assert_eq!(ODD_PRIMES[1023], 8167); // the largest trial divisor
    }

    #[test]
    fn products_cover_the_table() {
        let t = &PRODUCTS;
        for g in 0..t.count {
            let range = t.start[g] as usize..t.start[g + 1] as usize;
            let expect: u128 = ODD_PRIMES[range].iter().map(|&p| p as u128).product();
            assert_eq!(t.product[g] as u128, expect);
            assert_eq!(t.product[g].wrapping_mul(t.neg_inv[g]), u64::MAX);
        }
        assert_eq!(t.start[t.count] as usize, TABLE_LEN);
        // The first 1024 primes (trial division) take few remainders.
        let groups = (0..t.count).filter(|&g| t.start[g] < 1024).count();
        assert!(groups < 300, "{groups} products");
    }

    #[test]
    fn residues_match_division() {
        let a = [
            0xdead_beef_0123_4567u64,
            u64::MAX,
            0,
            0x8000_0000_0000_0001,
            42,
        ];
        let mut out = [0u32; TABLE_LEN];
        residues_ct(&a, &mut out, TABLE_LEN);
        for (i, &p) in ODD_PRIMES.iter().enumerate() {
            let mut r: u128 = 0;
            for &limb in a.iter().rev() {
                r = ((r << 64) | limb as u128) % p as u128;
            }
            assert_eq!(out[i] as u128, r, "mod {p}");
        }
        let mut few = [0u32; 10];
        residues_ct(&a, &mut few, 10);
        assert_eq!(few[..], out[..10]);
    }

    #[test]
    fn barrett_reduction() {
        let xs = [
            0u64,
            1,
            2,
            3,
            84046,
            84047,
            84048,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            0x1234_5678_9abc_def0,
        ];
        for (&p, &mu) in ODD_PRIMES.iter().zip(BARRETT.iter()).step_by(7) {
            for &x in &xs {
                assert_eq!(reduce_u64(x, p, mu), x % p as u64, "{x} mod {p}");
            }
        }
    }
}
