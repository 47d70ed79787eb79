//! MR64: the misuse-resistant primality test.

use numcrypt_limbs::Unsigned;
use rand_core::CryptoRng;
use subtle::{Choice, ConstantTimeEq};

use crate::mr::{BaseSource, HashBases, MR64_ROUNDS, MillerRabin, RngBases};
use crate::small::is_prime_u64;
use crate::table::{
    BARRETT, ODD_PRIMES, PRODUCT_COUNT, PRODUCTS, TABLE_LEN, reduce_u64, trial_division_primes,
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
/// all), constant time: one remainder per product of primes.
pub(crate) fn small_factor_ct(a: &[u64], r: usize) -> Choice {
    debug_assert!(r <= TABLE_LEN);
    let t = &PRODUCTS;
    let mut hit = Choice::from(0);
    let mut g = 0;
    while g < PRODUCT_COUNT && (t.start[g] as usize) < r {
        let rem = t.moduli[g].rem_ct(a);
        for i in t.start[g] as usize..(t.start[g + 1] as usize).min(r) {
            hit |= reduce_u64(rem, ODD_PRIMES[i], BARRETT[i]).ct_eq(&0);
        }
        g += 1;
    }
    hit
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
