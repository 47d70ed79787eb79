//! The small-prime tables, computed at compile time: the odd primes used by
//! trial division and by the generation sieve, their Barrett constants, and
//! products of consecutive primes that fit a limb.

use numcrypt_limbs::kernels::SmallFactorLanes;

/// Number of odd primes in the table (3, 5, 7, …, 1742539): the
/// generation sieve may use all of them.
pub(crate) const PRIMES_LEN: usize = 131_072;

/// Number of leading primes with precomputed Barrett constants and
/// products: trial division uses at most 1024 of them, and the sieve's
/// residues for larger primes are computed with products built at run time.
pub(crate) const TABLE_LEN: usize = 8192;

/// The first [`PRIMES_LEN`] odd primes, computed at compile time (a sieve of
/// Eratosthenes to 1.75 million, which takes the interpreter a few seconds).
#[allow(long_running_const_eval)]
pub(crate) static ODD_PRIMES: [u32; PRIMES_LEN] = odd_primes();

/// `floor(2^64 / p)` for each of the first [`TABLE_LEN`] primes: Barrett
/// reduction of any `u64`.
pub(crate) static BARRETT: [u64; TABLE_LEN] = barrett(&ODD_PRIMES);

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

/// Trial division for the fresh candidates of a FIPS 186-5 search, of
/// `bits` bits: where [`numcrypt_limbs::kernels::small_factor_52x8`] runs
/// and the candidates fit its digits, 512 primes (rounded up to whole
/// blocks of eight products) up to 1024 bits and 1024 above (each prime
/// removes the candidates it divides before their exponentiation, and
/// the kernel tests eight products of primes for about what one costs
/// alone: measured, benches/RESULTS.md). Elsewhere 384 up to 1024 bits,
/// where a candidate's Fermat test costs more than on IFMA and the
/// scalar remainders of more primes pay for themselves (measured on Zen
/// 3, RESULTS), and MR64's count above.
pub(crate) fn fips_trial_primes(bits: u32) -> usize {
    let lanes =
        bits as usize <= 52 * LANE_DIGITS && numcrypt_limbs::kernels::has_small_factor_52x8();
    match (lanes, bits) {
        (true, 0..=1024) => whole_lane_blocks(512),
        (true, _) => TRIAL_LEN,
        (false, 0..=1024) => 384,
        (false, _) => trial_division_primes(bits),
    }
}

/// The fewest primes, at least `r`, that fill whole blocks of
/// [`TRIAL_LANES`] (so that no block's limits need cutting).
fn whole_lane_blocks(r: usize) -> usize {
    TRIAL_LANES
        .iter()
        .map(|b| b.end)
        .find(|&end| end >= r)
        .unwrap_or(TRIAL_LEN)
}

/// An odd modulus below `2^64` (a product of table primes) with its
/// Montgomery constants, for constant-time remainders of long numbers.
#[derive(Clone, Copy)]
pub(crate) struct Modulus64 {
    pub(crate) m: u64,
    /// `-m^-1 mod 2^64`.
    neg_inv: u64,
    /// `2^64 mod m` and `2^128 mod m`: Montgomery forms of 1 and of `2^64`.
    r1: u64,
    r2: u64,
}

impl Modulus64 {
    /// The constants for the odd `m > 1` (public).
    pub(crate) const fn new(m: u64) -> Self {
        // Newton's iteration doubles the correct low bits of the inverse.
        let mut inv: u64 = 1;
        let mut k = 0;
        while k < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inv)));
            k += 1;
        }
        let r1 = ((u64::MAX % m) + 1) % m;
        let r2 = ((r1 as u128 * r1 as u128) % m as u128) as u64;
        Modulus64 {
            m,
            neg_inv: inv.wrapping_neg(),
            r1,
            r2,
        }
    }

    /// `a mod m` for the little-endian limbs `a`, constant time in `a`.
    pub(crate) fn rem_ct(&self, a: &[u64]) -> u64 {
        let (m, neg_inv) = (self.m, self.neg_inv);
        // Folding from the bottom, acc = a * 2^(-64 len) mod m.
        let mut acc: u64 = 0;
        for &limb in a {
            acc = redc(acc as u128 + limb as u128, m, neg_inv);
        }
        // Multiply back by 2^(64 len): a Montgomery product with the
        // Montgomery form of 2^(64 len), by square-and-multiply on the public
        // length.
        let mut pow = self.r1;
        let mut base = self.r2;
        let mut e = a.len();
        while e > 0 {
            if e & 1 == 1 {
                pow = redc(pow as u128 * base as u128, m, neg_inv);
            }
            base = redc(base as u128 * base as u128, m, neg_inv);
            e >>= 1;
        }
        redc(acc as u128 * pow as u128, m, neg_inv)
    }
}

/// The most primes trial division uses (the first of the table).
pub(crate) const TRIAL_LEN: usize = 1024;

/// Limbs a trial remainder folds at once: one block of a 1024-bit
/// candidate.
const FOLD: usize = 16;

/// One product of consecutive primes among the first [`TRIAL_LEN`], with
/// what a remainder of a long number needs to run as independent
/// multiplications instead of [`Modulus64::rem_ct`]'s chain of reductions
/// (trial division runs on every candidate of a search).
#[derive(Clone, Copy)]
pub(crate) struct TrialProduct {
    m: u64,
    /// `-m^-1 mod 2^64`.
    neg_inv: u64,
    /// `2^(64 i + 128) mod m` for `i < FOLD`.
    pow: [u64; FOLD],
    /// The primes' indices: `start..end`.
    pub(crate) start: u16,
    pub(crate) end: u16,
}

impl TrialProduct {
    const fn new(primes: &[u32], start: usize, end: usize) -> Self {
        let mut m: u64 = 1;
        let mut i = start;
        while i < end {
            m *= primes[i] as u64;
            i += 1;
        }
        let mont = Modulus64::new(m);
        let mut pow = [0u64; FOLD];
        pow[0] = mont.r2;
        let mut i = 1;
        while i < FOLD {
            pow[i] = ((pow[i - 1] as u128 * mont.r1 as u128) % m as u128) as u64;
            i += 1;
        }
        TrialProduct {
            m,
            neg_inv: mont.neg_inv,
            pow,
            start: start as u16,
            end: end as u16,
        }
    }

    /// `a mod m` for the little-endian limbs `a`, constant time in `a`: a
    /// block of [`FOLD`] limbs as a sum of products by `2^(64 i + 128)`,
    /// two reductions, and Horner's rule across blocks.
    pub(crate) fn rem_ct(&self, a: &[u64]) -> u64 {
        let (m, neg_inv) = (self.m, self.neg_inv);
        let add_mod = |x: u64, y: u64| {
            let sum = x as u128 + y as u128;
            let less = sum.wrapping_sub(m as u128);
            // `less` is negative (bit 127 set) exactly when sum < m.
            let keep = 0u128.wrapping_sub(less >> 127);
            ((less & !keep) | (sum & keep)) as u64
        };
        // 2^(64 FOLD) in Montgomery form, 2^(64 FOLD + 64) mod m.
        let step = self.pow[FOLD - 1];
        let mut acc = 0u64;
        for block in a.chunks(FOLD).rev() {
            // block · 2^128 = lo + 2^64 hi, each sum below 2^68 < m 2^64.
            let (mut lo, mut hi) = (0u128, 0u128);
            for (&limb, &pow) in block.iter().zip(&self.pow) {
                let t = limb as u128 * pow as u128;
                lo += t as u64 as u128;
                hi += t >> 64;
            }
            let value = add_mod(
                redc(redc(lo, m, neg_inv) as u128, m, neg_inv),
                redc(hi, m, neg_inv),
            );
            acc = add_mod(redc(acc as u128 * step as u128, m, neg_inv), value);
        }
        acc
    }
}

/// The products that cover the first [`TRIAL_LEN`] primes.
pub(crate) static TRIAL: [TrialProduct; TRIAL_COUNT] = trial_products(&ODD_PRIMES);

/// How many products [`TRIAL`] holds.
pub(crate) const TRIAL_COUNT: usize = product_ends(&ODD_PRIMES, TRIAL_LEN).1;

/// `p^-1 mod 2^64` for each of the first [`TRIAL_LEN`] primes: `p` divides
/// `x` exactly when `x p^-1 mod 2^64 <= floor((2^64 − 1) / p)`, one
/// multiplication.
pub(crate) static TRIAL_INVERSES: [u64; TRIAL_LEN] = inverses(&ODD_PRIMES);

const fn trial_products(primes: &[u32]) -> [TrialProduct; TRIAL_COUNT] {
    let (ends, count) = product_ends(primes, TRIAL_LEN);
    let mut out = [TrialProduct {
        m: 0,
        neg_inv: 0,
        pow: [0; FOLD],
        start: 0,
        end: 0,
    }; TRIAL_COUNT];
    let mut g = 0;
    while g < count {
        out[g] = TrialProduct::new(primes, ends[g] as usize, ends[g + 1] as usize);
        g += 1;
    }
    out
}

const fn inverses(primes: &[u32]) -> [u64; TRIAL_LEN] {
    let mut out = [0u64; TRIAL_LEN];
    let mut i = 0;
    while i < TRIAL_LEN {
        out[i] = Modulus64::new(primes[i] as u64).neg_inv.wrapping_neg();
        i += 1;
    }
    out
}

/// Digits of 52 bits the lane tables ([`TRIAL_LANES`]) cover: candidates of
/// up to 2080 bits (the primes of RSA keys up to 4096 bits).
pub(crate) const LANE_DIGITS: usize = 40;

/// Eight consecutive products of primes below `2^52`, among the first
/// [`TRIAL_LEN`], as [`numcrypt_limbs::kernels::small_factor_52x8`] takes
/// them.
pub(crate) struct TrialLanes {
    /// `2^(52(j + 1)) mod m` for digit `j`, in each lane.
    pub(crate) powers: [[u64; 8]; LANE_DIGITS],
    pub(crate) m: [u64; 8],
    /// `−m⁻¹ mod 2^52`.
    pub(crate) neg_inv: [u64; 8],
    /// Row `k` holds the `k`-th prime of each lane's product: `p⁻¹ mod
    /// 2^64`, `⌊(2^64 − 1)/p⌋ + 1` (0 where a lane has fewer primes; the
    /// lanes past the last product, whose modulus is 3, have none), and
    /// the prime's index in the table.
    pub(crate) inverses: [[u64; 8]; LANE_PRIMES],
    pub(crate) limits: [[u64; 8]; LANE_PRIMES],
    pub(crate) index: [[u16; 8]; LANE_PRIMES],
    /// The rows in use; the block's primes have indices `first..end`.
    pub(crate) rows: usize,
    pub(crate) first: usize,
    pub(crate) end: usize,
}

/// The most primes in one product below `2^52` (3·5·…·41).
pub(crate) const LANE_PRIMES: usize = 12;

/// The blocks of products below `2^52` that cover the first [`TRIAL_LEN`]
/// primes.
pub(crate) static TRIAL_LANES: [TrialLanes; TRIAL_LANE_BLOCKS] = trial_lanes(&ODD_PRIMES);

/// [`TRIAL_LANES`] as the kernel takes them, each block's primes all
/// counted: built once, not for every candidate.
pub(crate) static TRIAL_LANE_VIEWS: [SmallFactorLanes<'static>; TRIAL_LANE_BLOCKS] = lane_views();

const fn lane_views() -> [SmallFactorLanes<'static>; TRIAL_LANE_BLOCKS] {
    const NONE: SmallFactorLanes<'static> = SmallFactorLanes {
        powers: &[],
        modulus: &[0; 8],
        neg_inv: &[0; 8],
        inverses: &[],
        limits: &[],
    };
    let mut out = [NONE; TRIAL_LANE_BLOCKS];
    let mut i = 0;
    while i < TRIAL_LANE_BLOCKS {
        let block = &TRIAL_LANES[i];
        out[i] = SmallFactorLanes {
            powers: &block.powers,
            modulus: &block.m,
            neg_inv: &block.neg_inv,
            inverses: block.inverses.split_at(block.rows).0,
            limits: block.limits.split_at(block.rows).0,
        };
        i += 1;
    }
    out
}

const LANE_PRODUCTS: usize = product_ends_below(&ODD_PRIMES, TRIAL_LEN, 1 << 52).1;
pub(crate) const TRIAL_LANE_BLOCKS: usize = LANE_PRODUCTS.div_ceil(8);

const fn trial_lanes(primes: &[u32]) -> [TrialLanes; TRIAL_LANE_BLOCKS] {
    const EMPTY: TrialLanes = TrialLanes {
        powers: [[0; 8]; LANE_DIGITS],
        m: [0; 8],
        neg_inv: [0; 8],
        inverses: [[0; 8]; LANE_PRIMES],
        limits: [[0; 8]; LANE_PRIMES],
        index: [[0; 8]; LANE_PRIMES],
        rows: 0,
        first: 0,
        end: 0,
    };
    let (ends, count) = product_ends_below(primes, TRIAL_LEN, 1 << 52);
    let mut out = [EMPTY; TRIAL_LANE_BLOCKS];
    let mut b = 0;
    while b < TRIAL_LANE_BLOCKS {
        let mut l = 0;
        while l < 8 {
            let g = 8 * b + l;
            let (first, last) = if g < count {
                (ends[g] as usize, ends[g + 1] as usize)
            } else {
                (TRIAL_LEN, TRIAL_LEN)
            };
            let mut m: u64 = 1;
            let mut i = first;
            while i < last {
                let k = i - first;
                let p = primes[i] as u64;
                m *= p;
                out[b].inverses[k][l] = Modulus64::new(p).neg_inv.wrapping_neg();
                out[b].limits[k][l] = u64::MAX / p + 1;
                out[b].index[k][l] = i as u16;
                i += 1;
            }
            if last - first > out[b].rows {
                out[b].rows = last - first;
            }
            if m == 1 {
                m = 3;
            }
            let radix = (1u128 << 52) % m as u128;
            let mut power = radix;
            let mut j = 0;
            while j < LANE_DIGITS {
                out[b].powers[j][l] = power as u64;
                power = power * radix % m as u128;
                j += 1;
            }
            out[b].m[l] = m;
            out[b].neg_inv[l] = Modulus64::new(m).neg_inv & ((1 << 52) - 1);
            if l == 0 {
                out[b].first = first;
            }
            out[b].end = last;
            l += 1;
        }
        b += 1;
    }
    out
}

/// Products of consecutive odd primes from the first [`TABLE_LEN`], each
/// below `2^64`: one multi-precision remainder per product instead of one
/// per prime. Product `g` covers the primes with indices
/// `start[g]..start[g + 1]`.
pub(crate) struct Products {
    pub(crate) moduli: [Modulus64; PRODUCT_COUNT],
    pub(crate) start: [u16; PRODUCT_COUNT + 1],
}

/// The products covering the first [`TABLE_LEN`] primes.
pub(crate) static PRODUCTS: Products = products(&ODD_PRIMES);

/// How many products [`PRODUCTS`] holds.
pub(crate) const PRODUCT_COUNT: usize = product_ends(&ODD_PRIMES, TABLE_LEN).1;

const fn odd_primes() -> [u32; PRIMES_LEN] {
    // A sieve of Eratosthenes over odd numbers below LIMIT (the table's last
    // prime is 1742539).
    const LIMIT: usize = 1_742_600;
    let mut composite = [false; LIMIT];
    let mut out = [0u32; PRIMES_LEN];
    let mut count = 0;
    let mut n = 3;
    while n < LIMIT && count < PRIMES_LEN {
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
    assert!(count == PRIMES_LEN, "sieve limit too small");
    out
}

const fn barrett(primes: &[u32]) -> [u64; TABLE_LEN] {
    let mut out = [0u64; TABLE_LEN];
    let mut i = 0;
    while i < TABLE_LEN {
        out[i] = barrett_mu(primes[i]);
        i += 1;
    }
    out
}

/// `floor(2^64 / p)` for an odd prime `p` (public).
pub(crate) const fn barrett_mu(p: u32) -> u64 {
    // p is odd, so floor((2^64 - 1) / p) = floor(2^64 / p).
    u64::MAX / p as u64
}

/// The end of the greedy product of primes starting at index `i` (below
/// `end`): the first index whose prime no longer fits, and the product.
const fn product_from(primes: &[u32], i: usize, end: usize) -> (usize, u64) {
    product_from_below(primes, i, end, u64::MAX)
}

/// [`product_from`] for products at most `limit`.
const fn product_from_below(primes: &[u32], i: usize, end: usize, limit: u64) -> (usize, u64) {
    let mut prod: u64 = 1;
    let mut j = i;
    while j < end {
        match prod.checked_mul(primes[j] as u64) {
            Some(p) if p <= limit => {
                prod = p;
                j += 1;
            }
            _ => break,
        }
    }
    (j, prod)
}

/// Where the products over `primes[..end]` end, and how many there are.
const fn product_ends(primes: &[u32], end: usize) -> ([u16; TABLE_LEN + 1], usize) {
    product_ends_below(primes, end, u64::MAX)
}

/// [`product_ends`] for products at most `limit`.
const fn product_ends_below(
    primes: &[u32],
    end: usize,
    limit: u64,
) -> ([u16; TABLE_LEN + 1], usize) {
    let mut start = [0u16; TABLE_LEN + 1];
    let mut count = 0;
    let mut i = 0;
    while i < end {
        start[count] = i as u16;
        i = product_from_below(primes, i, end, limit).0;
        count += 1;
    }
    start[count] = end as u16;
    (start, count)
}

const fn products(primes: &[u32]) -> Products {
    let (ends, count) = product_ends(primes, TABLE_LEN);
    let mut moduli = [Modulus64 {
        m: 0,
        neg_inv: 0,
        r1: 0,
        r2: 0,
    }; PRODUCT_COUNT];
    let mut start = [0u16; PRODUCT_COUNT + 1];
    let mut g = 0;
    while g < count {
        start[g] = ends[g];
        let (_, prod) = product_from(primes, ends[g] as usize, TABLE_LEN);
        moduli[g] = Modulus64::new(prod);
        g += 1;
    }
    start[count] = TABLE_LEN as u16;
    Products { moduli, start }
}

/// Residues of `a` modulo the first `k` table primes (`k <=` [`PRIMES_LEN`]),
/// written to `out[..k]`: one Montgomery pass over `a` per product of
/// primes, then a Barrett reduction per prime. Constant time in `a`. The
/// products of primes beyond the first [`TABLE_LEN`] are formed here (a few
/// milliseconds for the whole table).
pub(crate) fn residues_ct(a: &[u64], out: &mut [u32], k: usize) {
    let t = &PRODUCTS;
    let mut g = 0;
    while g < PRODUCT_COUNT && (t.start[g] as usize) < k {
        let r = t.moduli[g].rem_ct(a);
        let end = (t.start[g + 1] as usize).min(k);
        for i in t.start[g] as usize..end {
            out[i] = reduce_u64(r, ODD_PRIMES[i], BARRETT[i]) as u32;
        }
        g += 1;
    }
    let mut i = TABLE_LEN;
    while i < k {
        let (end, prod) = product_from(&ODD_PRIMES, i, k);
        let r = Modulus64::new(prod).rem_ct(a);
        for j in i..end {
            let p = ODD_PRIMES[j];
            out[j] = reduce_u64(r, p, barrett_mu(p)) as u32;
        }
        i = end;
    }
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
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn primes_are_the_odd_primes() {
        let is_prime = |n: u32| {
            n >= 2
                && (2..)
                    .take_while(|d| d * d <= n)
                    .all(|d| !n.is_multiple_of(d))
        };
        let expected: Vec<u32> = (3..).filter(|&n| is_prime(n)).take(PRIMES_LEN).collect();
        assert_eq!(ODD_PRIMES.to_vec(), expected);
        assert_eq!(ODD_PRIMES[1023], 8167); // the largest trial divisor
    }

    #[test]
    fn products_cover_the_table() {
        let t = &PRODUCTS;
        for g in 0..PRODUCT_COUNT {
            let range = t.start[g] as usize..t.start[g + 1] as usize;
            let expect: u128 = ODD_PRIMES[range].iter().map(|&p| p as u128).product();
            assert_eq!(t.moduli[g].m as u128, expect);
            assert_eq!(t.moduli[g].m.wrapping_mul(t.moduli[g].neg_inv), u64::MAX);
            // The next prime would not have fitted.
            let next = ODD_PRIMES[t.start[g + 1] as usize] as u128;
            assert!(g + 1 == PRODUCT_COUNT || expect * next > u64::MAX as u128);
        }
        assert_eq!(t.start[PRODUCT_COUNT] as usize, TABLE_LEN);
        // The first 1024 primes (trial division) take few remainders.
        let groups = (0..PRODUCT_COUNT).filter(|&g| t.start[g] < 1024).count();
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
        let mut out = vec![0u32; PRIMES_LEN];
        residues_ct(&a, &mut out, PRIMES_LEN);
        for (i, &p) in ODD_PRIMES.iter().enumerate() {
            let mut r: u128 = 0;
            for &limb in a.iter().rev() {
                r = ((r << 64) | limb as u128) % p as u128;
            }
            assert_eq!(out[i] as u128, r, "mod {p}");
        }
        // A prefix, also one that ends inside a product and one beyond the
        // precomputed products.
        for k in [10, 1001, TABLE_LEN + 7, 20_000] {
            let mut few = vec![0u32; k];
            residues_ct(&a, &mut few, k);
            assert_eq!(few[..], out[..k]);
        }
    }

    /// Trial remainders against u128 division, at lengths around the
    /// fold (16 limbs) and with extreme limbs; the products cover the
    /// trial primes in order.
    #[test]
    fn trial_remainders_match_division() {
        assert_eq!(TRIAL[0].start, 0);
        assert_eq!(TRIAL[TRIAL_COUNT - 1].end as usize, TRIAL_LEN);
        for pair in TRIAL.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for len in [1usize, 2, 15, 16, 17, 31, 32, 33, 48, 64] {
            for fill in 0..3 {
                let a: Vec<u64> = (0..len)
                    .map(|_| match fill {
                        0 => u64::MAX,
                        1 => next(),
                        _ => next() & 0xffff_0000_0000_ffff,
                    })
                    .collect();
                for t in TRIAL.iter() {
                    let mut r: u128 = 0;
                    for &limb in a.iter().rev() {
                        r = ((r << 64) | limb as u128) % t.m as u128;
                    }
                    assert_eq!(t.rem_ct(&a) as u128, r, "{len} limbs mod {}", t.m);
                }
            }
        }
    }

    /// The lane blocks: each lane's modulus is the product of its primes
    /// (3 for an empty lane), the primes run in order over all blocks, and
    /// the powers and inverses are what the kernel's contract asks.
    #[test]
    fn trial_lanes_cover_the_trial_primes() {
        let mut next = 0;
        for block in TRIAL_LANES.iter() {
            for l in 0..8 {
                let primes: Vec<u64> = (0..block.rows)
                    .filter(|&k| block.limits[k][l] != 0)
                    .map(|k| {
                        let i = block.index[k][l] as usize;
                        assert_eq!(i, next, "primes in order");
                        next += 1;
                        ODD_PRIMES[i] as u64
                    })
                    .collect();
                let m: u64 = primes.iter().product::<u64>().max(3);
                assert_eq!(block.m[l], m);
                assert!(m < 1 << 52);
                assert_eq!(
                    block.m[l].wrapping_mul(block.neg_inv[l]) & ((1 << 52) - 1),
                    (1 << 52) - 1
                );
                let mut power = 1u128;
                for row in &block.powers {
                    power = (power << 52) % m as u128;
                    assert_eq!(row[l] as u128, power);
                }
                for (k, &p) in primes.iter().enumerate() {
                    assert_eq!(p.wrapping_mul(block.inverses[k][l]), 1);
                    assert_eq!(block.limits[k][l], u64::MAX / p + 1);
                }
            }
            assert_eq!(block.end, next);
            assert!(block.first < block.end);
        }
        assert_eq!(next, TRIAL_LEN);
    }

    #[test]
    fn divisibility_by_inverse() {
        for (i, &p) in ODD_PRIMES[..TRIAL_LEN].iter().enumerate() {
            for x in [
                0u64,
                1,
                p as u64,
                2 * p as u64,
                (u64::MAX / p as u64) * p as u64,
                u64::MAX,
                1 << 63,
                12_345_678_901,
            ] {
                let divides = x.wrapping_mul(TRIAL_INVERSES[i]) <= BARRETT[i];
                assert_eq!(divides, x % p as u64 == 0, "{x} by {p}");
            }
        }
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
