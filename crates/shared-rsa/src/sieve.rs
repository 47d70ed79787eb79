//! The numbers the parties agree on before the protocol starts: the sieve
//! modulus `M` (distributed sieving), the trial-division table for `N`,
//! the prime field for computing `N`, and the range the primes are drawn
//! from. All of it is public and computed identically by every party.

use std::sync::{Mutex, OnceLock};

use numcrypt_limbs::{BoxedUint, Limb, Unsigned, kernels};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::Error;
use crate::arith::{Elem, Ring, random_small};

/// Odd primes up to `bound` (sieve of Eratosthenes).
pub(crate) fn odd_primes_up_to(bound: u32) -> Vec<u32> {
    let bound = bound as usize;
    if bound < 3 {
        return Vec::new();
    }
    let mut composite = vec![false; bound + 1];
    let mut primes = Vec::new();
    let mut i = 3;
    while i <= bound {
        if !composite[i] {
            primes.push(i as u32);
            let mut j = i * i;
            while j <= bound {
                composite[j] = true;
                j += 2 * i;
            }
        }
        i += 2;
    }
    primes
}

/// The product of `primes`.
fn product(primes: &[u32]) -> BoxedUint {
    let mut limbs: Vec<Limb> = vec![1];
    for &p in primes {
        let src = limbs.clone();
        let carry = kernels::mul_1(&mut limbs, &src, Limb::from(p));
        if carry != 0 {
            limbs.push(carry);
        }
    }
    BoxedUint::from_words(limbs)
}

/// Distributed sieving: `M`, the product of the odd primes `ℓ` with
/// `n < ℓ <= B`, and what it takes to draw a uniform unit modulo `M` in
/// constant time.
///
/// Primes up to `n` are left out because Shamir sharing modulo `M` needs
/// the differences of the evaluation points `1..=n` to be units.
pub(crate) struct SieveModulus {
    ring: Ring,
    primes: Vec<u32>,
    /// `e_ℓ · R mod M`, where `e_ℓ ≡ 1 (mod ℓ)` and `≡ 0` modulo the other
    /// primes (the CRT basis, in Montgomery form's representation).
    basis: Vec<BoxedUint>,
}

impl SieveModulus {
    /// The sieve for primes in `(n, bound]`.
    pub(crate) fn new(n: usize, bound: u32) -> Result<Self, Error> {
        let primes: Vec<u32> = odd_primes_up_to(bound)
            .into_iter()
            .filter(|&p| p as usize > n)
            .collect();
        if primes.is_empty() {
            return Err(Error::InvalidConfig(format!(
                "sieve bound {bound} leaves no prime above the party count {n}"
            )));
        }
        let m = product(&primes);
        let ring = Ring::new(m.clone(), n)?;
        let width = ring.modulus().nlimbs();
        let basis = primes
            .iter()
            .map(|&l| {
                let l_big = BoxedUint::from_u64(u64::from(l), width);
                let cofactor = m.div_rem_vartime(&l_big)?.0.resize(width)?;
                let c_mod_l = cofactor.rem_limb_vartime(u64::from(l))?;
                let inv = inverse_mod_small(c_mod_l, u64::from(l));
                let e = cofactor.mul_mod(&BoxedUint::from_u64(inv, width), ring.modulus())?;
                Ok(ring.elem(&e).as_montgomery().clone())
            })
            .collect::<Result<_, Error>>()?;
        Ok(Self {
            ring,
            primes,
            basis,
        })
    }

    /// `Z_M`.
    pub(crate) fn ring(&self) -> &Ring {
        &self.ring
    }

    /// The largest sieving prime.
    pub(crate) fn largest_prime(&self) -> u32 {
        self.primes.last().copied().unwrap_or(0)
    }

    /// A uniformly random unit modulo `M`, in constant time: `Σ r_ℓ e_ℓ`
    /// with each `r_ℓ` uniform in `[1, ℓ)` (bias below `ℓ / 2^64` each).
    pub(crate) fn random_unit<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> Elem {
        let n = self.ring.modulus().nlimbs();
        // Σ r_ℓ (e_ℓ R mod M) < (#primes · B) · M < M · 2^64n.
        let mut acc: Zeroizing<Vec<Limb>> = Zeroizing::new(vec![0; 2 * n]);
        for (&l, e) in self.primes.iter().zip(&self.basis) {
            let r = 1 + random_small(rng, u64::from(l) - 1);
            let carry = kernels::addmul_1(&mut acc[..n], e.as_words(), r);
            kernels::add_limb_assign(&mut acc[n..], carry);
        }
        let mut unit = Zeroizing::new(BoxedUint::zero(n));
        kernels::mont_redc(unit.as_mut(), &mut acc, self.ring.params().mont_modulus());
        self.ring.elem(&unit)
    }
}

/// `a^-1 mod p` for a small prime `p` and `a` not divisible by it (public).
fn inverse_mod_small(a: u64, p: u64) -> u64 {
    let (mut r0, mut r1) = (i128::from(p), i128::from(a % p));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    t0.rem_euclid(i128::from(p)) as u64
}

/// Trial division of the public `N` by the primes the sieve did not cover,
/// grouped so that each group's product `q < 2^56` takes one pass over `N`'s
/// limbs: `Σ N_k · (2^(64k) mod q)` fits a `u128` for up to 128 limbs.
pub(crate) struct TrialDivision {
    groups: Vec<TrialGroup>,
    /// `2^(64k) mod q` for every group, `limbs` entries each.
    powers: Vec<u64>,
    limbs: usize,
}

struct TrialGroup {
    q: u64,
    primes: Vec<u32>,
}

impl TrialDivision {
    /// Division by `primes` (each below `2^28`) of moduli of `limbs` limbs.
    pub(crate) fn new(primes: &[u32], limbs: usize) -> Self {
        let mut groups = Vec::new();
        let mut current = TrialGroup {
            q: 1,
            primes: Vec::new(),
        };
        for &p in primes {
            let p64 = u64::from(p);
            if current.q.checked_mul(p64).is_none_or(|v| v >= 1 << 56) {
                groups.push(std::mem::replace(
                    &mut current,
                    TrialGroup {
                        q: 1,
                        primes: Vec::new(),
                    },
                ));
            }
            current.q *= p64;
            current.primes.push(p);
        }
        if !current.primes.is_empty() {
            groups.push(current);
        }
        let mut powers = Vec::with_capacity(groups.len() * limbs);
        for g in &groups {
            let q = u128::from(g.q);
            let step = (1u128 << 64) % q;
            let mut x = 1u128 % q;
            for _ in 0..limbs {
                powers.push(x as u64);
                x = x * step % q;
            }
        }
        Self {
            groups,
            powers,
            limbs,
        }
    }

    /// Whether one of the primes of the groups `mine` selects divides the
    /// public `n` (variable time: `n` is public).
    pub(crate) fn has_factor_vartime(&self, n: &BoxedUint, mine: impl Fn(usize) -> bool) -> bool {
        let words = &n.as_words()[..n.nlimbs().min(self.limbs)];
        for (i, g) in self.groups.iter().enumerate() {
            if !mine(i) {
                continue;
            }
            let powers = &self.powers[i * self.limbs..i * self.limbs + words.len()];
            let acc: u128 = words
                .iter()
                .zip(powers)
                .map(|(&w, &p)| u128::from(w) * u128::from(p))
                .sum();
            let r = (acc % u128::from(g.q)) as u64;
            if g.primes.iter().any(|&p| r.is_multiple_of(u64::from(p))) {
                return true;
            }
        }
        false
    }
}

/// `⌈2^64 / √2⌉`: `p >= c · 2^(h − 64)` makes `p >= 2^h / √2`, so a product
/// of two such primes below `2^h` has exactly `2h` bits.
const INV_SQRT2_CEIL: u64 = 13_043_817_825_332_782_213;

/// Where each party's prime shares are drawn from, for primes of `h` bits:
/// `p = offset + Σ_i (u_i + M (4 ρ_i + c_i))` with `ρ_i < rho_bound`, the
/// public `offset` (a multiple of `4M`) held by the party with the
/// `3 mod 4` role. Then `2^h / √2 <= p < 2^h`.
pub(crate) struct PrimeRange {
    pub(crate) offset: BoxedUint,
    pub(crate) rho_bound: BoxedUint,
    /// The width (limbs) of prime shares.
    pub(crate) limbs: usize,
}

impl PrimeRange {
    /// The range for primes of `h` bits with sieve modulus `m` (1 without
    /// sieving) and `n` parties; [`Error::InvalidConfig`] when `M` leaves
    /// fewer than `min_rho_bits` bits of `ρ_i`.
    pub(crate) fn new(h: u32, m: &BoxedUint, n: usize, min_rho_bits: u32) -> Result<Self, Error> {
        let limbs = h.div_ceil(64) as usize + 1;
        let m = m.resize(limbs)?;
        let top = BoxedUint::from_u64(1, limbs).shl_vartime(h);
        let min = BoxedUint::from_u64(INV_SQRT2_CEIL, limbs).shl_vartime(h - 64);
        let four_m = m.shl_vartime(2);
        let (mut k, rem) = min.div_rem_vartime(&four_m)?;
        if !bool::from(rem.is_zero()) {
            k = k.wrapping_add(&BoxedUint::from_u64(1, limbs));
        }
        let offset = k.wrapping_mul(&four_m);
        let too_small = || {
            Error::InvalidConfig(format!(
                "the sieve modulus ({} bits) leaves too little room for {h}-bit primes; lower the sieve bound",
                m.bits_vartime()
            ))
        };
        if m.bits_vartime() + 2 >= h || offset >= top {
            return Err(too_small());
        }
        let width = top.wrapping_sub(&offset);
        let n_m = m.wrapping_mul(&BoxedUint::from_u64(n as u64, limbs));
        let per_party = width.div_rem_vartime(&n_m)?.0;
        let rho_bound = per_party
            .checked_sub(&BoxedUint::from_u64(1, limbs))
            .into_option()
            .ok_or_else(too_small)?
            .shr_vartime(2);
        if rho_bound.bits_vartime() < min_rho_bits.max(1) {
            return Err(too_small());
        }
        Ok(Self {
            offset,
            rho_bound,
            limbs,
        })
    }
}

/// The smallest prime above `2^bits`, as `2^bits + c`: a table for common
/// sizes (each checked against `openssl prime` in the tests), a search with
/// MR64 otherwise (cached).
pub(crate) fn field_prime(bits: u32) -> BoxedUint {
    const TABLE: [(u32, u64); 7] = [
        (512, 75),
        (768, 183),
        (1024, 643),
        (1536, 75),
        (2048, 981),
        (3072, 813),
        (4096, 1761),
    ];
    let limbs = bits as usize / 64 + 1;
    let power = BoxedUint::from_u64(1, limbs).shl_vartime(bits);
    if let Some(&(_, c)) = TABLE.iter().find(|(b, _)| *b == bits) {
        return power.wrapping_add(&BoxedUint::from_u64(c, limbs));
    }
    static CACHE: OnceLock<Mutex<Vec<(u32, BoxedUint)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    if let Some((_, p)) = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(b, _)| *b == bits)
    {
        return p.clone();
    }
    let two = BoxedUint::from_u64(2, limbs);
    let mut candidate = power.wrapping_add(&BoxedUint::from_u64(1, limbs));
    while !numcrypt_prime::is_prime_vartime(&candidate) {
        candidate = candidate.wrapping_add(&two);
    }
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((bits, candidate.clone()));
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn random_units_are_units_and_cover_residues() {
        let sieve = SieveModulus::new(3, 60).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let mut seen_mod_5 = [0u32; 5];
        for _ in 0..400 {
            let u = sieve.ring().value(&sieve.random_unit(&mut rng));
            for &p in &sieve.primes {
                let r = u.rem_limb_vartime(u64::from(p)).unwrap();
                assert_ne!(r, 0, "divisible by {p}");
            }
            seen_mod_5[u.rem_limb_vartime(5).unwrap() as usize] += 1;
        }
        assert_eq!(seen_mod_5[0], 0);
        assert!(seen_mod_5[1..].iter().all(|&c| c > 60), "{seen_mod_5:?}");
    }

    #[test]
    fn trial_division_finds_small_factors() {
        let primes = odd_primes_up_to(5000);
        let td = TrialDivision::new(&primes, 8);
        let big: BoxedUint = "0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f"
            .parse()
            .unwrap(); // the secp256k1 prime: no small factor
        assert!(!td.has_factor_vartime(&big, |_| true));
        for &p in &[3u32, 4999, 4993, 1009] {
            let x = big
                .resize(8)
                .unwrap()
                .wrapping_mul(&BoxedUint::from_u64(u64::from(p), 8));
            assert!(td.has_factor_vartime(&x, |_| true), "{p}");
        }
    }

    #[test]
    fn prime_range_gives_full_size_products() {
        use num_bigint::BigUint;
        let big = |x: &BoxedUint| BigUint::from_bytes_be(&x.to_be_bytes());
        for (n, bound) in [(3usize, 100u32), (5, 150), (3, 2)] {
            let m = if bound > 2 {
                SieveModulus::new(n, bound)
                    .unwrap()
                    .ring()
                    .modulus()
                    .clone()
            } else {
                BoxedUint::from_u64(1, 1)
            };
            let range = PrimeRange::new(256, &m, n, 8).unwrap();
            let (offset, m_big) = (big(&range.offset), big(&m));
            assert_eq!(&offset % (4u32 * &m_big), BigUint::from(0u32));
            // The smallest p gives a 511-bit square; the largest stays below 2^256.
            assert_eq!((&offset * &offset).bits(), 512);
            let largest = &offset + BigUint::from(n) * &m_big * (4u32 * big(&range.rho_bound));
            assert!(largest.bits() <= 256);
        }
        // A sieve modulus as large as the primes leaves no room.
        let m = SieveModulus::new(3, 200).unwrap().ring().modulus().clone();
        assert!(PrimeRange::new(256, &m, 3, 1).is_err());
    }
}
