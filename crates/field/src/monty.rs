//! Montgomery representation, for any odd prime: saturated 64-bit limbs,
//! `x` held as `x · 2^(64 N) mod p`.

use core::fmt;
use core::marker::PhantomData;

use numcrypt_limbs::kernels::{mac, mont_inverse_limb, sbb};
use numcrypt_limbs::{Limb, Uint, fixed};

use crate::backend::{Backend, konst, sealed};

/// A prime modulus for [`Monty`], given as little-endian limbs.
pub trait MontyModulus<const N: usize>: 'static + Send + Sync {
    /// A short name for `Debug` output.
    const NAME: &'static str;
    /// The modulus: an odd prime with a non-zero top limb and at least 65
    /// bits.
    const MODULUS: [Limb; N];
}

/// Montgomery arithmetic modulo the prime `M::MODULUS` on `N` saturated
/// limbs, for primes with no special shape (and the NIST primes, whose
/// shape buys less than the `mulx` kernels give).
///
/// Multiplication is [`fixed::mont_mul`]: on x86_64 with BMI2/ADX a fully
/// unrolled `mulx`/`adcx`/`adox` CIOS at 4, 6, 7, 8 and 9 limbs, the slice
/// kernels otherwise.
///
/// Bounds: tight is `[0, p)`. Loose is `[0, 2p)` when `4p < 2^(64 N)`
/// (two spare bits: a product of two loose values is below `p · 2^(64 N)`,
/// as Montgomery reduction requires, and additions skip their conditional
/// subtraction), and `[0, p)` otherwise.
pub struct Monty<M, const N: usize>(PhantomData<M>);

impl<M: MontyModulus<N>, const N: usize> Monty<M, N> {
    const M_INV: Limb = mont_inverse_limb(M::MODULUS[0]);
    /// `2^(64 N) mod p`: the representation of 1.
    const R1: [Limb; N] = konst::pow2_mod(64 * N as u32, &M::MODULUS);
    /// `2^(128 N) mod p`: multiplying by it converts into Montgomery form.
    const R2: [Limb; N] = konst::pow2_mod(128 * N as u32, &M::MODULUS);
    /// Whether loose values may reach `2p` (see the type's docs).
    const LAZY: bool = M::MODULUS[N - 1] < 1 << 62;
    const MU: Limb = konst::barrett_mu(&M::MODULUS);
    const P_BITS: u32 = konst::bits(&M::MODULUS);
    const CHECKS: () =
        assert!(M::MODULUS[0] & 1 == 1 && konst::bits(&M::MODULUS) > 64 * N as u32 - 64 && N >= 2);

    #[inline]
    fn mont_mul(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        fixed::mont_mul(a, b, &M::MODULUS, Self::M_INV)
    }
}

impl<M, const N: usize> Clone for Monty<M, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, const N: usize> Copy for Monty<M, N> {}
impl<M, const N: usize> Default for Monty<M, N> {
    fn default() -> Self {
        Self(PhantomData)
    }
}
impl<M, const N: usize> PartialEq for Monty<M, N> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<M, const N: usize> Eq for Monty<M, N> {}
impl<M: MontyModulus<N>, const N: usize> fmt::Debug for Monty<M, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Monty<{}>", M::NAME)
    }
}

impl<M: MontyModulus<N>, const N: usize> sealed::Sealed for Monty<M, N> {}

impl<M: MontyModulus<N>, const N: usize> Backend for Monty<M, N> {
    const LIMBS: usize = N;
    type Repr = [Limb; N];
    const NAME: &'static str = M::NAME;
    type Uint = Uint<N>;
    const MODULUS: Uint<N> = Uint::from_words(M::MODULUS);
    const BITS: u32 = {
        let () = Self::CHECKS;
        Self::P_BITS
    };
    const ZERO: [Limb; N] = [0; N];
    const ONE: [Limb; N] = Self::R1;

    #[inline]
    fn from_canonical(x: &Uint<N>) -> [Limb; N] {
        Self::mont_mul(x.as_words(), &Self::R2)
    }

    #[inline]
    fn to_canonical(a: &[Limb; N]) -> Uint<N> {
        let mut one = [0; N];
        one[0] = 1;
        Uint::from_words(Self::mont_mul(a, &one))
    }

    #[inline]
    fn add(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        let (s, carry) = fixed::add(a, b);
        if Self::LAZY {
            s
        } else {
            fixed::reduce_once(&s, carry, &M::MODULUS)
        }
    }

    #[inline]
    fn sub(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        if Self::LAZY {
            // a + (p − b): in (0, 2p).
            let (pb, _) = fixed::sub(&M::MODULUS, b);
            fixed::add(a, &pb).0
        } else {
            let (d, borrow) = fixed::sub(a, b);
            fixed::add_masked(&d, &M::MODULUS, borrow.wrapping_neg())
        }
    }

    #[inline]
    fn neg(a: &[Limb; N]) -> [Limb; N] {
        let (d, _) = fixed::sub(&M::MODULUS, a);
        if Self::LAZY {
            d // p − a in (0, p]
        } else {
            // p − 0 = p is not below p: map it to 0.
            let nonzero = a.iter().fold(0, |acc, &x| acc | x);
            let mask = ((nonzero | nonzero.wrapping_neg()) >> 63).wrapping_neg();
            let mut r = d;
            r.iter_mut().for_each(|x| *x &= mask);
            r
        }
    }

    #[inline]
    fn reduce(a: &[Limb; N]) -> [Limb; N] {
        if Self::LAZY {
            fixed::reduce_once(a, 0, &M::MODULUS)
        } else {
            *a
        }
    }

    #[inline]
    fn mul(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        Self::mont_mul(a, b)
    }

    #[inline]
    fn square(a: &[Limb; N]) -> [Limb; N] {
        fixed::mont_sqr(a, &M::MODULUS, Self::M_INV)
    }

    /// Barrett reduction of the `N + 1`-limb product `t = k·a < 2^32 · p`:
    /// with `L = bits(p)`, `q̂ = ⌊⌊t / 2^(L−1)⌋ · μ / 2^64⌋` for
    /// `μ = ⌊2^(L+63) / p⌋` is at most 2 below `⌊t / p⌋`, so `t − q̂ p` needs
    /// two conditional subtractions. (`k·(aR) = (ka)R`: the Montgomery form
    /// needs no special care.)
    #[inline]
    fn mul_small(a: &[Limb; N], k: u32) -> [Limb; N] {
        let k = k as Limb;
        let mut t = [0; N];
        let mut top = 0;
        for i in 0..N {
            (t[i], top) = mac(0, a[i], k, top);
        }
        // x = ⌊t / 2^(L−1)⌋ < 2^33.
        let shift = Self::P_BITS - 1;
        let (limb, bit) = ((shift / 64) as usize, shift % 64);
        let word = |i: usize| {
            if i < N {
                t[i]
            } else if i == N {
                top
            } else {
                0
            }
        };
        let x = (word(limb) >> bit)
            | if bit == 0 {
                0
            } else {
                word(limb + 1) << (64 - bit)
            };
        let q = ((x as u128 * Self::MU as u128) >> 64) as Limb;
        // t − q p, over N + 1 limbs.
        let mut carry = 0;
        let mut borrow = 0;
        for (ti, &mi) in t.iter_mut().zip(&M::MODULUS) {
            let (lo, hi) = mac(0, mi, q, carry);
            carry = hi;
            (*ti, borrow) = sbb(*ti, lo, borrow);
        }
        (top, _) = sbb(top, carry, borrow);
        // Now t < 3p: subtract p twice where it fits.
        for _ in 0..2 {
            let (d, b) = fixed::sub(&t, &M::MODULUS);
            let (new_top, b2) = sbb(top, 0, b);
            // keep = no borrow out of the N + 1 limbs
            let keep = (b2 ^ 1).wrapping_neg();
            for i in 0..N {
                t[i] = (d[i] & keep) | (t[i] & !keep);
            }
            top = (new_top & keep) | (top & !keep);
        }
        t
    }

    #[cfg(test)]
    fn tight_max() -> [Limb; N] {
        // p − 1 in Montgomery form is whatever; the largest representation
        // is p − 1 itself.
        fixed::sub(&M::MODULUS, &{
            let mut one = [0; N];
            one[0] = 1;
            one
        })
        .0
    }

    #[cfg(test)]
    fn loose_max() -> [Limb; N] {
        let pm1 = Self::tight_max();
        if Self::LAZY {
            fixed::add(&pm1, &M::MODULUS).0
        } else {
            pm1
        }
    }

    #[cfg(test)]
    fn value(a: &[Limb; N]) -> num_bigint::BigUint {
        let p = crate::tests::big(&M::MODULUS);
        let r = num_bigint::BigUint::from(1u8) << (64 * N);
        let r_inv = r.modinv(&p).expect("p odd");
        crate::tests::big(a) * r_inv % p
    }
}
