//! Pseudo-Mersenne primes `p = 2^K − C` on saturated 64-bit limbs.

use core::fmt;

use numcrypt_limbs::kernels::{adc, add_limb_assign, mac, sub_limb_assign};
use numcrypt_limbs::{Limb, Uint, fixed};
use subtle::Choice;

use crate::backend::{Backend, sealed};

/// Arithmetic modulo the pseudo-Mersenne prime `p = 2^K − C` on `N`
/// saturated 64-bit limbs (`64(N − 1) < K ≤ 64 N`, `C` small and odd).
///
/// Elements are kept modulo `p' = 2^(64 N − K) · p = 2^(64 N) − C'` with
/// `C' = C · 2^(64 N − K)`: any value below `2^(64 N)` is a valid
/// representation, the high half of a product folds into the low half with
/// one row of multiplications by `C'`
/// ([`fixed::pm_mul`](numcrypt_limbs::fixed::pm_mul): `mulx`/`adcx`/`adox`
/// assembly at 4, 6, 7, 8 and 9 limbs on x86_64), and the least residue is
/// only computed for encoding and comparison. `2^521 − 1` takes its own
/// kernel, [`fixed::p521_mul`](numcrypt_limbs::fixed::p521_mul), which
/// reduces at bit 521 with shifts (its results are below `2^523`, so in the
/// same representation).
///
/// Bounds: tight and loose are both "below `2^(64 N)`". An addition folds
/// its carry back in (`2^(64 N) ≡ C'`), so [`LooseFp::reduce`](crate::LooseFp::reduce) is free.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct PseudoMersenne<const N: usize, const K: u32, const C: u64>;

impl<const N: usize, const K: u32, const C: u64> PseudoMersenne<N, K, C> {
    /// `C' = C · 2^(64 N − K)`, the fold constant.
    pub const FOLD: Limb = {
        assert!(N >= 2 && K > 64 * (N as u32 - 1) && K <= 64 * N as u32);
        assert!(C & 1 == 1 && C < 1 << 32);
        let shift = 64 * N as u32 - K;
        assert!(
            shift < 63 && C < 1 << (63 - shift),
            "C' must stay below 2^63"
        );
        C << shift
    };

    /// `2^521 − 1` (P-521's prime) on nine limbs, which has its own product
    /// kernel ([`fixed::p521_mul`]: the reduction is shifts, not a row of
    /// multiplications by `C'`).
    const IS_P521: bool = N == 9 && K == 521 && C == 1;

    /// `a` as nine limbs, when this is [`Self::IS_P521`] (so `N` is 9).
    #[inline]
    fn p521_limbs(a: &[Limb; N]) -> Option<&[Limb; 9]> {
        if Self::IS_P521 {
            <&[Limb; 9]>::try_from(&a[..]).ok()
        } else {
            None
        }
    }

    /// A result of the P-521 kernels back as `N` limbs (`N` is 9 there).
    #[inline]
    fn from_p521(r: [Limb; 9]) -> [Limb; N] {
        let mut out = [0; N];
        out.copy_from_slice(&r);
        out
    }

    const P: [Limb; N] = {
        let mut p = [Limb::MAX; N];
        let top_bits = K - 64 * (N as u32 - 1);
        p[N - 1] = if top_bits == 64 {
            Limb::MAX
        } else {
            (1 << top_bits) - 1
        };
        p[0] -= C - 1;
        p
    };
}

/// The least residue of `v < 2^(64 N)` modulo `p = 2^k − c`: two folds at
/// bit `k` (`2^k ≡ c`), then one conditional subtraction. Constant time.
pub(crate) fn canonicalize<const N: usize>(
    mut v: [Limb; N],
    k: u32,
    c: Limb,
    p: &[Limb; N],
) -> [Limb; N] {
    debug_assert!(k > 64 * (N as u32 - 1) && k <= 64 * N as u32);
    if k < 64 * N as u32 {
        let bit = k - 64 * (N as u32 - 1); // 1..=63
        for _ in 0..2 {
            // hi = v >> k, below 2^(64 N − k).
            let hi = v[N - 1] >> bit;
            v[N - 1] &= (1 << bit) - 1;
            let (lo, h) = mac(0, hi, c, 0);
            let mut carry;
            (v[0], carry) = adc(v[0], lo, 0);
            (v[1], carry) = adc(v[1], h, carry);
            for x in v.iter_mut().skip(2) {
                (*x, carry) = adc(*x, 0, carry);
            }
        }
    }
    // v < 2p now: subtract p if that does not go negative.
    let (d, borrow) = fixed::sub(&v, p);
    fixed::select(&d, &v, Choice::from(borrow as u8))
}

impl<const N: usize, const K: u32, const C: u64> fmt::Debug for PseudoMersenne<N, K, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PseudoMersenne<2^{K} - {C}>")
    }
}

impl<const N: usize, const K: u32, const C: u64> sealed::Sealed for PseudoMersenne<N, K, C> {}

impl<const N: usize, const K: u32, const C: u64> Backend for PseudoMersenne<N, K, C> {
    const LIMBS: usize = N;
    type Repr = [Limb; N];
    const NAME: &'static str = "2^k - c";
    type Uint = Uint<N>;
    const MODULUS: Uint<N> = Uint::from_words(Self::P);
    const BITS: u32 = K;
    const ZERO: [Limb; N] = [0; N];
    const ONE: [Limb; N] = {
        let mut one = [0; N];
        one[0] = 1;
        one
    };

    #[inline]
    fn from_canonical(x: &Uint<N>) -> [Limb; N] {
        *x.as_words()
    }

    #[inline]
    fn to_canonical(a: &[Limb; N]) -> Uint<N> {
        Uint::from_words(canonicalize(*a, K, C, &Self::P))
    }

    #[inline]
    fn add(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        let (mut r, carry) = fixed::add(a, b);
        // 2^(64 N) ≡ C': fold the carry, then the (rare) second carry, after
        // which r < C' and adding C' cannot carry again.
        let c2 = add_limb_assign(&mut r, Self::FOLD & carry.wrapping_neg());
        r[0] = r[0].wrapping_add(Self::FOLD & c2.wrapping_neg());
        r
    }

    #[inline]
    fn sub(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        let (mut r, borrow) = fixed::sub(a, b);
        // A borrow added 2^(64 N) ≡ C': take C' away, twice at most (after a
        // second wrap r[0] >= 2^64 − C' > C').
        let b2 = sub_limb_assign(&mut r, Self::FOLD & borrow.wrapping_neg());
        r[0] = r[0].wrapping_sub(Self::FOLD & b2.wrapping_neg());
        r
    }

    #[inline]
    fn neg(a: &[Limb; N]) -> [Limb; N] {
        Self::sub(&[0; N], a)
    }

    #[inline]
    fn reduce(a: &[Limb; N]) -> [Limb; N] {
        *a
    }

    #[inline]
    fn mul(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        if let (Some(a), Some(b)) = (Self::p521_limbs(a), Self::p521_limbs(b)) {
            return Self::from_p521(fixed::p521_mul(a, b));
        }
        fixed::pm_mul(a, b, Self::FOLD)
    }

    #[inline]
    fn square(a: &[Limb; N]) -> [Limb; N] {
        if let Some(a) = Self::p521_limbs(a) {
            return Self::from_p521(fixed::p521_sqr(a));
        }
        fixed::pm_sqr(a, Self::FOLD)
    }

    #[inline]
    fn mul_small(a: &[Limb; N], k: u32) -> [Limb; N] {
        let mut r = [0; N];
        let mut top = 0;
        for i in 0..N {
            (r[i], top) = mac(0, a[i], k as Limb, top);
        }
        // top < 2^32, so top · C' < 2^95: two limbs, then at most one more
        // fold of C' (which cannot carry: r < 2^96 after a wrap).
        let (t0, t1) = mac(0, top, Self::FOLD, 0);
        let mut carry;
        (r[0], carry) = adc(r[0], t0, 0);
        (r[1], carry) = adc(r[1], t1, carry);
        for x in r.iter_mut().skip(2) {
            (*x, carry) = adc(*x, 0, carry);
        }
        let (x, c) = adc(r[0], Self::FOLD & carry.wrapping_neg(), 0);
        r[0] = x;
        r[1] = r[1].wrapping_add(c);
        r
    }

    #[cfg(test)]
    fn tight_max() -> [Limb; N] {
        [Limb::MAX; N]
    }

    #[cfg(test)]
    fn loose_max() -> [Limb; N] {
        [Limb::MAX; N]
    }

    #[cfg(test)]
    fn value(a: &[Limb; N]) -> num_bigint::BigUint {
        crate::tests::big(a) % crate::tests::big(&Self::P)
    }
}
