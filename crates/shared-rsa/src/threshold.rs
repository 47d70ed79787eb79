//! Threshold sharing of `d` over the integers: any `t + 1` of the `n`
//! parties sign, any `t` learn nothing.
//!
//! Key generation leaves `d` shared additively, `d = d_1 + … + d_n` (the
//! public correction folded into party 1's share). Each party then shares
//! its `d_i` again, with a polynomial of degree `t` over the integers, and
//! every party keeps the sum of what it received: a share of `d` on one
//! polynomial of degree `t` ("sum-to-poly", after Frankel, MacKenzie and
//! Yung; the integer sharing as in Rabin's and Shoup's threshold RSA).
//!
//! With `Δ = n!`, party `i` draws `g_i(x) = Δ·d_i + a_1 x + … + a_t x^t`
//! with coefficients uniform in `[0, A)` and sends `g_i(j)` to party `j`,
//! which keeps `f(j) = Σ_i g_i(j)`; so `f(0) = Δ·d`. For any set `S` of
//! `t + 1` parties the integers `λ'_j = Δ·Π_{k∈S, k≠j} x_k/(x_k − x_j)`
//! (Lagrange coefficients at 0 times `Δ`; `x_j = j + 1`) give
//! `Σ_{j∈S} λ'_j f(j) = Δ²·d`. Signing: party `j` publishes
//! `s_j = m^(Δ·f(j))`; the combiner computes `M = Π (s_j²)^λ'_j =
//! m^(2Δ³ d)` (squares, because what a partial signature's proof shows is
//! `s_j²`: see the `sign` module), then, with `e` prime to `2Δ³` and
//! `a e + b·2Δ³ = 1`, the signature `y = m^a M^b` (`y^e = m`).
//!
//! # What signing shows a coalition
//! Nothing it could not compute from the signature `y = m^d` itself: for
//! any `t` parties `S` and another party `j`, the integers `Δ·ℓ_k(j)`
//! (Lagrange coefficients at `j` of the points `{0} ∪ S`) give
//! `s_j = y^(Δ·ℓ_0(j)·Δ) · Π_{k∈S} m^(Δ·ℓ_k(j)·f(k))`, since `f(0) = Δ·d`.
//! The extra `Δ` in `s_j` is what makes that an integer combination (it
//! is Shoup's `x^(2Δ s_i)`); without it `s_j` would be a `Δ`-th root of
//! such a value, which the coalition cannot compute.
//!
//! # What `t` parties learn
//! Their own shares `f(j)`: `t` values of each `g_i`. Scaling the secret by
//! `Δ` makes every polynomial with the same values at those `t` points and
//! another secret differ by one with integer coefficients no larger than
//! `Δ·|d_i − d'_i|·n^t`, so with `A` that much times `2^128` the views for
//! any two secrets are within `t·2^-128` of each other (without the
//! scaling `g_i(j) mod j` would be `d_i mod j`). They learn nothing about
//! `d` beyond the public key; `t + 1` of them hold it (they can compute
//! `Δ²·d`, hence `d`): choose `t` as large as the parties' availability
//! allows (key generation needs `n ≥ 2t + 1` in any case).
//!
//! # An absent party
//! Nothing happens to its share: it signs nothing, and nobody reconstructs
//! it. A party that lost its share for good leaves the key usable by the
//! others, with one spare fewer.

use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use rand_core::CryptoRng;
use zeroize::Zeroizing;

use crate::Error;

/// Statistical hiding of the integer sharing, in bits.
const HIDING_BITS: u32 = 128;

/// Bits of `x`, for small public values.
fn bit_length(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// Whether `e` is prime to `n!` (it has no prime factor up to `n`): what
/// taking the `e`-th root from `m^(Δ² d)` needs.
pub(crate) fn exponent_fits(e: u32, n: usize) -> bool {
    (2..=n as u32).all(|k| !e.is_multiple_of(k))
}

/// `Δ = n!`.
pub(crate) fn delta(n: usize) -> BoxedUint {
    (2..=n as u64).fold(BoxedUint::from_u64(1, 1), |acc, k| {
        let acc = acc.resize(acc.nlimbs() + 1).unwrap_or(acc);
        acc.wrapping_mul(&BoxedUint::from_u64(k, 1))
            .resize(acc.nlimbs())
            .unwrap_or_else(|_| unreachable!("n! fits one more limb per factor"))
    })
}

/// The public sizes of a threshold sharing for an `modulus_bits`-bit key
/// among `n` parties with threshold `t`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizes {
    /// Bits of each random coefficient (`A = 2^coefficient_bits`).
    pub(crate) coefficient_bits: u32,
    /// A bound on every share `f(j)`, in bits: the exponent length of a
    /// partial signature.
    pub(crate) share_bits: u32,
}

impl Sizes {
    pub(crate) fn new(modulus_bits: u32, n: usize, t: usize) -> Self {
        // d_i < 2^(bits + 2) (party 1's with the correction added).
        let secret_bits = modulus_bits + 2;
        let delta_bits = delta(n).bits_vartime();
        let point_bits = bit_length(n as u64); // x_j ≤ n
        let t32 = t as u32;
        let coefficient_bits =
            secret_bits + delta_bits + t32 * point_bits + bit_length(t as u64) + HIDING_BITS;
        // g(j) ≤ Δ d_i + t A n^t < 2^(coefficient_bits + t·point_bits + bits(t) + 1);
        // f(j) is a sum of n of them.
        let share_bits =
            coefficient_bits + t32 * point_bits + bit_length(t as u64) + 1 + bit_length(n as u64);
        Self {
            coefficient_bits,
            share_bits,
        }
    }

    /// Limbs that hold any share (and the intermediate sums).
    pub(crate) fn limbs(&self) -> usize {
        self.share_bits.div_ceil(64) as usize + 1
    }
}

/// Party `i`'s polynomial shares `g_i(1), …, g_i(n)` of its additive share
/// `d_i`, in constant time (the points and the sizes are public).
pub(crate) fn poly_shares<R: CryptoRng + ?Sized>(
    d_i: &BoxedUint,
    n: usize,
    t: usize,
    sizes: Sizes,
    rng: &mut R,
) -> Result<Vec<Zeroizing<BoxedUint>>, Error> {
    let width = sizes.limbs();
    let coefficients: Vec<Zeroizing<BoxedUint>> = (0..t)
        .map(|_| Zeroizing::new(BoxedUint::random_bits(rng, sizes.coefficient_bits, width)))
        .collect();
    let constant = Zeroizing::new(d_i.resize(width)?.wrapping_mul(&delta(n).resize(width)?));
    Ok((1..=n as u64)
        .map(|x| {
            let x = BoxedUint::from_u64(x, width);
            // Horner: ((a_t x + a_{t−1}) x + … + a_1) x + Δ d_i.
            let mut acc = Zeroizing::new(BoxedUint::zero(width));
            for a in coefficients.iter().rev() {
                *acc = acc.wrapping_add(a).wrapping_mul(&x);
            }
            Zeroizing::new(acc.wrapping_add(&constant))
        })
        .collect())
}

/// A signed integer: a magnitude and whether it is negative (public
/// values only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signed {
    pub(crate) negative: bool,
    pub(crate) magnitude: BoxedUint,
}

/// `Δ` times the Lagrange coefficients at `at` of the points `x_j = j + 1`
/// for the parties in `set` (0-based, distinct): integers (variable time,
/// public values).
pub(crate) fn lagrange_times_delta(set: &[usize], at: usize, n: usize) -> Vec<Signed> {
    let delta = delta(n);
    let x = |j: usize| j as i64 + 1;
    let at = at as i64;
    set.iter()
        .map(|&j| {
            let (mut num, mut den) = (delta.clone(), BoxedUint::from_u64(1, 1));
            let mut negative = false;
            for &k in set.iter().filter(|&&k| k != j) {
                let (a, b) = (at - x(k), x(j) - x(k));
                negative ^= (a < 0) ^ (b < 0);
                num = mul_small(&num, a.unsigned_abs());
                den = mul_small(&den, b.unsigned_abs());
            }
            // Δ·Π(at − x_k)/Π(x_j − x_k) is an integer: Π(x_j − x_k) over
            // distinct points of 1..=n divides n!.
            let magnitude = num
                .div_rem_vartime(&den)
                .map(|(q, _)| q)
                .unwrap_or_else(|_| unreachable!("distinct points: a non-zero denominator"));
            let negative = negative && !bool::from(magnitude.is_zero());
            Signed {
                negative,
                magnitude,
            }
        })
        .collect()
}

/// `x·k` for a small `k`, one limb wider.
fn mul_small(x: &BoxedUint, k: u64) -> BoxedUint {
    let wide = x
        .resize(x.nlimbs() + 1)
        .unwrap_or_else(|_| unreachable!("widening"));
    wide.wrapping_mul(&BoxedUint::from_u64(k, 1))
}

/// `Π (base_j²)^λ_j mod N` for signed exponents (variable time: public
/// values, combining partial signatures or verification values). `None`
/// if a base with a negative exponent is not invertible modulo `N`.
pub(crate) fn multi_pow_squares(
    params: &MontyParams<BoxedUint>,
    terms: &[(&BoxedUint, &Signed)],
) -> Option<MontyForm<BoxedUint>> {
    let mut acc = params.one();
    for (base, exp) in terms {
        let b = params.to_monty(base);
        let b = params.mul(&b, &b);
        let b = if exp.negative {
            params.invert(&b).ok()?
        } else {
            b
        };
        acc = params.mul(&acc, &params.pow_vartime(&b, &exp.magnitude));
    }
    Some(acc)
}

/// `2Δ^k`, the exponent `M = m^(2Δ^k·d)` carries when it combines squares
/// of values `m^(Δ^(k−2)·f(j))`: `k = 2` for verification values
/// (`w^f(j)`), `k = 3` for partial signatures (`m^(Δ·f(j))`).
pub(crate) fn two_delta_power(n: usize, k: u32) -> BoxedUint {
    let delta = delta(n);
    let width = (k as usize) * delta.nlimbs() + 1;
    let mut acc = BoxedUint::from_u64(2, width);
    let delta = delta
        .resize(width)
        .unwrap_or_else(|_| unreachable!("widening"));
    for _ in 0..k {
        acc = acc.wrapping_mul(&delta);
    }
    acc
}

/// From `M = m^(k·d)`, `k = 2Δ^j` ([`two_delta_power`]): the `y` with
/// `y^e = m`, as `m^a M^b` with `a e + b k = 1` (`e` odd and prime to `Δ`,
/// so to `k`). Variable time (public values). `None` if `m` is not
/// invertible or `e` shares a factor with `k`.
pub(crate) fn root_from_power(
    params: &MontyParams<BoxedUint>,
    m: &MontyForm<BoxedUint>,
    power: &MontyForm<BoxedUint>,
    e: u32,
    k: &BoxedUint,
) -> Option<MontyForm<BoxedUint>> {
    let e_big = BoxedUint::from_u64(u64::from(e), 1);
    // b = (k mod e)⁻¹ mod e, then a = (1 − b k)/e ≤ 0.
    let (_, r) = k.div_rem_vartime(&e_big).ok()?;
    let b = r.inv_mod_vartime(&e_big).ok()?;
    let b_k = k.resize(k.nlimbs() + 1).ok()?.wrapping_mul(&b);
    let one = BoxedUint::from_u64(1, b_k.nlimbs());
    let (minus_a, rem) = b_k.wrapping_sub(&one).div_rem_vartime(&e_big).ok()?;
    if !bool::from(rem.is_zero()) {
        return None;
    }
    let m_inv = params.invert(m).ok()?;
    Some(params.mul(
        &params.pow_vartime(&m_inv, &minus_a),
        &params.pow_vartime(power, &b),
    ))
}

#[cfg(test)]
mod tests {
    use num_bigint::{BigInt, BigUint, Sign};
    use num_integer::Integer;
    use num_traits::{One, Zero};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    use super::*;
    use crate::{KeyGenConfig, KeyGenOutput, MemoryNetwork, generate_key};

    fn big(x: &BoxedUint) -> BigUint {
        BigUint::from_bytes_be(&x.to_be_bytes())
    }

    /// The secrecy bound is `min(t, ⌊(n − 1)/2⌋)`, not `⌊(n − 1)/2⌋`
    /// (issue 36, finding 7): with `n = 5` and `t = 1`, the shares of any
    /// two parties give `Δ²·d`, so `e·Δ²·d − Δ²`, a multiple of `φ(N)`,
    /// and from it `p` and `q`. Checked with num-bigint against the factor
    /// shares the parties kept.
    #[test]
    fn any_t_plus_1_parties_factor_n() {
        let outputs: Vec<KeyGenOutput> = std::thread::scope(|s| {
            let handles: Vec<_> = MemoryNetwork::new(5)
                .into_iter()
                .enumerate()
                .map(|(i, transport)| {
                    s.spawn(move || {
                        let mut config = KeyGenConfig::new(512);
                        config.threshold = Some(1);
                        config.retain_factor_shares = true;
                        let mut rng = ChaCha20Rng::seed_from_u64(70 + i as u64);
                        generate_key(&transport, &config, &mut rng)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        });
        let public = outputs[0].share.public_key();
        assert_eq!(public.threshold(), 1);
        let n = big(public.n());
        let factor = |f: fn(&crate::keygen::FactorShares) -> &BoxedUint| -> BigUint {
            outputs
                .iter()
                .map(|o| big(f(o.factor_shares.as_ref().unwrap())))
                .sum()
        };
        let (p, q) = (factor(|s| &s.p), factor(|s| &s.q));
        assert_eq!(&p * &q, n);
        let phi = BigInt::from((&p - 1u32) * (&q - 1u32));
        let delta = BigInt::from(big(&delta(5)));
        let e = BigInt::from(public.e());

        for set in [[0, 1], [1, 3], [2, 4]] {
            // Σ λ'_j f(j) = Δ²·d, from these two parties' shares alone.
            let lambdas = lagrange_times_delta(&set, 0, 5);
            let delta2_d: BigInt = set
                .iter()
                .zip(&lambdas)
                .map(|(&j, l)| {
                    let sign = if l.negative { Sign::Minus } else { Sign::Plus };
                    BigInt::from_biguint(sign, big(&l.magnitude))
                        * BigInt::from(big(outputs[j].share.exponent()))
                })
                .sum();
            let multiple = &e * &delta2_d - &delta * &delta;
            assert!(!multiple.is_zero());
            assert!(multiple.is_multiple_of(&phi), "parties {set:?}");

            // A multiple of φ(N) factors N: write it 2^s·r with r odd; for
            // some g, a power g^(2^i·r) is a square root of 1 other than ±1.
            let multiple = multiple.magnitude().clone();
            let s = multiple.trailing_zeros().unwrap();
            let r = &multiple >> s;
            let minus_one = &n - 1u32;
            let found = (2u32..100).find_map(|g| {
                let mut x = BigUint::from(g).modpow(&r, &n);
                for _ in 0..s {
                    let y = x.modpow(&BigUint::from(2u32), &n);
                    if y.is_one() && x != minus_one && !x.is_one() {
                        return Some((&x - 1u32).gcd(&n));
                    }
                    x = y;
                }
                None
            });
            let f = found.expect("a multiple of φ(N) factors N");
            assert!(f == p || f == q, "parties {set:?} found {f}");
        }
    }
}
