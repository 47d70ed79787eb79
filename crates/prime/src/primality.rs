//! MR64: the misuse-resistant primality test.

use numcrypt_limbs::Unsigned;
use rand_core::CryptoRng;
use subtle::Choice;

use crate::mr::{BaseSource, HashBases, MR64_ROUNDS, MillerRabin, RngBases};
use crate::small::is_prime_u64;
use crate::table::{
    BARRETT, LANE_DIGITS, LANE_PRIMES, ODD_PRIMES, PRODUCT_COUNT, PRODUCTS, TRIAL, TRIAL_INVERSES,
    TRIAL_LANE_VIEWS, TRIAL_LANES, TRIAL_LEN, trial_division_primes,
};
use numcrypt_limbs::kernels::{
    SmallFactorLanes, has_small_factor_52x8 as small_factor_52x8_runs, small_factor_52x8,
};

/// The key under which [`is_prime`] derives its bases from `n`: public and
/// fixed, so that the answer is a function of `n` alone.
const PUBLIC_KEY: [u8; 32] = [0; 32];

/// Whether `n` is prime: MR64, the test of Massimo and Paterson ("A
/// Performant, Misuse-Resistant API for Primality Testing", CCS 2020), with
/// bases derived from `n` by SHA-256, so that it needs no random numbers and
/// gives the same answer every time.
///
/// - `n < 2^64`: exact (deterministic Miller–Rabin), variable time.
/// - Otherwise: trial division by the first `r` odd primes, `r` from the
///   paper's Table 4 (64 up to 512 bits, 128 up to 1024, 384 up to 2048,
///   768 up to 3072, 1024 beyond), then 64 Miller–Rabin rounds. Primes are
///   always reported prime. A composite is reported prime with probability
///   at most `2^-128` over the bases, whoever chose it: see the
///   [crate documentation](crate#where-the-bases-come-from).
///
/// Constant time: for `n >= 2^64` the running time depends only on the
/// number of significant limbs of `n` (its size, rounded up to 64 bits),
/// not on its value (except when `v2(n - 1) > 32`, see
/// [`is_prime_vartime`]'s faster twin for public numbers). Safe for secret
/// numbers, such as the primes of an imported RSA key.
pub fn is_prime<U: Unsigned>(n: &U) -> bool {
    let limbs = n.significant_limbs();
    if limbs == 1 {
        return is_prime_u64(n.as_ref()[0]);
    }
    let mut bases = HashBases::new(&PUBLIC_KEY, &n.as_ref()[..limbs]);
    mr64_ct(n, limbs, &mut bases).into()
}

/// Whether `n` is prime: the same test and the same bases as [`is_prime`],
/// so always the same answer, in variable time: trial division stops at
/// the first factor and Miller–Rabin at the first witness, and the
/// exponentiations use sliding windows. For public numbers only.
pub fn is_prime_vartime<U: Unsigned>(n: &U) -> bool {
    let limbs = n.significant_limbs();
    if limbs == 1 {
        return is_prime_u64(n.as_ref()[0]);
    }
    let mut bases = HashBases::new(&PUBLIC_KEY, &n.as_ref()[..limbs]);
    mr64_vartime(n, limbs, &mut bases)
}

/// Whether `n` is prime: MR64 as in [`is_prime`], with bases drawn from
/// `rng` instead of derived from `n` (so two calls may in principle
/// disagree on a composite, with probability at most `2^-128`). Constant
/// time in the same sense as [`is_prime`].
pub fn is_prime_with_rng<U: Unsigned, R: CryptoRng + ?Sized>(n: &U, rng: &mut R) -> bool {
    let limbs = n.significant_limbs();
    if limbs == 1 {
        return is_prime_u64(n.as_ref()[0]);
    }
    mr64_ct(n, limbs, &mut RngBases(rng)).into()
}

/// MR64 on `n >= 2^64` held in `limbs` significant limbs, constant time.
pub(crate) fn mr64_ct<U: Unsigned>(n: &U, limbs: usize, bases: &mut impl BaseSource) -> Choice {
    let r = trial_division_primes(64 * limbs as u32);
    let has_factor = small_factor_ct(&n.as_ref()[..limbs], r);
    // Miller–Rabin needs an odd modulus; an even n is rejected by the mask.
    let odd = n.is_odd();
    let mut m = n.clone();
    m.as_mut()[0] |= 1;
    let mr = MillerRabin::new(&m, limbs).expect("odd and at least 2^64");
    let pass = mr.rounds_ct(bases, MR64_ROUNDS);
    odd & !has_factor & pass
}

/// MR64 on `n >= 2^64`, variable time.
fn mr64_vartime<U: Unsigned>(n: &U, limbs: usize, bases: &mut impl BaseSource) -> bool {
    if !bool::from(n.is_odd()) {
        return false;
    }
    let r = trial_division_primes(64 * limbs as u32);
    if small_factor_vartime(&n.as_ref()[..limbs], r) {
        return false;
    }
    match MillerRabin::new(n, limbs) {
        Some(mr) => mr.rounds_vartime(bases, MR64_ROUNDS),
        None => false,
    }
}

/// Whether one of the first `r` odd primes divides `a` (which exceeds them
/// all), constant time: one remainder per product of primes, then one
/// multiplication per prime; eight products at a time where
/// [`small_factor_52x8`] runs.
pub(crate) fn small_factor_ct(a: &[u64], r: usize) -> Choice {
    debug_assert!(r <= TRIAL_LEN);
    small_factor_lanes_ct(a, r).unwrap_or_else(|| small_factor_scalar_ct(a, r))
}

/// [`small_factor_ct`] one product of primes below `2^64` at a time.
fn small_factor_scalar_ct(a: &[u64], r: usize) -> Choice {
    let mut hits = 0u64;
    for product in TRIAL.iter().take_while(|t| (t.start as usize) < r) {
        let rem = product.rem_ct(a);
        for i in product.start as usize..(product.end as usize).min(r) {
            hits |= divides(rem, i);
        }
    }
    Choice::from(hits as u8)
}

/// [`small_factor_ct`] on the eight-lane kernel: `None` where it does not
/// run or `a` is too long for [`TRIAL_LANES`].
fn small_factor_lanes_ct(a: &[u64], r: usize) -> Option<Choice> {
    if (64 * a.len()).div_ceil(52) > LANE_DIGITS || !small_factor_52x8_runs() {
        return None;
    }
    let count = TRIAL_LANES.iter().take_while(|b| b.first < r).count();
    let blocks = &TRIAL_LANE_VIEWS[..count];
    let Some((last, whole)) = blocks.split_last() else {
        return Some(Choice::from(0));
    };
    let block = &TRIAL_LANES[count - 1];
    if block.end <= r {
        return small_factor_52x8(a, blocks).map(|hit| Choice::from(hit as u8));
    }
    // The block that holds the r-th prime tests only those before it.
    let mut cut = [[0u64; 8]; LANE_PRIMES];
    for ((cut, limits), index) in cut.iter_mut().zip(&block.limits).zip(&block.index) {
        for ((c, &limit), &i) in cut.iter_mut().zip(limits).zip(index) {
            *c = if (i as usize) < r { limit } else { 0 };
        }
    }
    let last = SmallFactorLanes {
        limits: &cut[..block.rows],
        ..*last
    };
    let whole = small_factor_52x8(a, whole)?;
    small_factor_52x8(a, &[last]).map(|hit| Choice::from((whole | hit) as u8))
}

/// 1 when the `i`-th odd prime divides `x`, else 0, without a branch: `x·p⁻¹
/// mod 2^64` is at most `⌊(2^64 − 1)/p⌋` exactly for the multiples of `p`.
#[inline(always)]
fn divides(x: u64, i: usize) -> u64 {
    (x.wrapping_mul(TRIAL_INVERSES[i]) <= BARRETT[i]) as u64
}

/// Whether one of the first `r` odd primes divides `a`, variable time.
pub(crate) fn small_factor_vartime(a: &[u64], r: usize) -> bool {
    let t = &PRODUCTS;
    let mut g = 0;
    while g < PRODUCT_COUNT && (t.start[g] as usize) < r {
        let p = t.moduli[g].m;
        let rem = a
            .iter()
            .rev()
            .fold(0u128, |acc, &x| ((acc << 64) | x as u128) % p as u128) as u64;
        let range = t.start[g] as usize..(t.start[g + 1] as usize).min(r);
        if ODD_PRIMES[range]
            .iter()
            .any(|&p| rem.is_multiple_of(p as u64))
        {
            return true;
        }
        g += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use num_bigint::BigUint;
    use num_traits::Zero;

    /// Trial division against num-bigint's remainders, for numbers with a
    /// factor among the trial primes (at the edges of the count asked for)
    /// and without.
    #[test]
    fn small_factors_match_num_bigint() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut lanes_ran = false;
        for len in [1usize, 8, 16, 17, 32, 64] {
            for round in 0..40 {
                let mut a: [u64; 64] = core::array::from_fn(|_| next());
                let a = &mut a[..len];
                a[len - 1] |= 1 << 63;
                let r = [1, 64, 128, 384, 1000, TRIAL_LEN][round % 6];
                // Half the numbers get a chosen factor: the last prime
                // counted, or the first one not counted.
                let factor = match round % 4 {
                    0 => Some(ODD_PRIMES[r - 1]),
                    1 if r < TRIAL_LEN => Some(ODD_PRIMES[r]),
                    _ => None,
                };
                let mut n = BigUint::from_slice(
                    &a.iter()
                        .flat_map(|&l| [l as u32, (l >> 32) as u32])
                        .collect::<std::vec::Vec<_>>(),
                );
                if let Some(p) = factor {
                    n -= &n % p;
                }
                let digits = n.to_u64_digits();
                let mut limbs = [0u64; 64];
                limbs[..digits.len()].copy_from_slice(&digits);
                let expected = ODD_PRIMES[..r].iter().any(|&p| (&n % p).is_zero());
                let a = &limbs[..len];
                let scalar = small_factor_scalar_ct(a, r);
                assert_eq!(bool::from(scalar), expected, "{len} limbs, r {r}");
                if let Some(hit) = small_factor_lanes_ct(a, r) {
                    assert_eq!(bool::from(hit), expected, "lanes: {len} limbs, r {r}");
                    lanes_ran = true;
                }
                assert_eq!(small_factor_vartime(a, r), expected, "{len} limbs, r {r}");
            }
        }
        assert_eq!(
            lanes_ran,
            small_factor_52x8_runs(),
            "the lanes ran where they can"
        );
    }
}
