//! The contract between [`Fp`](crate::Fp) and a representation.

use core::fmt::Debug;

use numcrypt_limbs::{Limb, Unsigned};

/// A representation of the elements of one prime field and its arithmetic:
/// [`Monty`](crate::Monty), [`PseudoMersenne`](crate::PseudoMersenne) or
/// [`Unsaturated`](crate::Unsaturated).
/// [`Fp<B>`](crate::Fp) is the element type; this trait is how it reaches
/// the limbs, and it is sealed: the carry bounds below are proved for these
/// implementations only.
///
/// # The two bounds
/// A representation has a *tight* bound, which every
/// [`Fp`](crate::Fp) meets, and a *loose* one, which every
/// [`LooseFp`](crate::LooseFp) meets (tight implies loose):
/// - `add`, `sub` and `neg` take tight operands and give a loose result;
/// - `mul` and `square` take loose operands and give a tight result;
/// - `reduce` takes a loose value to a tight one.
///
/// Each implementation documents its bounds; for some (the saturated
/// pseudo-Mersenne ones) the two coincide and the distinction costs nothing.
pub trait Backend: sealed::Sealed + Copy + Debug + Default + Eq + Send + Sync + 'static {
    /// Canonical limbs: the width of the least residue.
    const LIMBS: usize;
    /// The representation of an element.
    type Repr: Copy + Debug + Send + Sync + 'static + AsRef<[Limb]> + AsMut<[Limb]>;
    /// A short name for `Debug` output.
    const NAME: &'static str;
    /// The least-residue integer type: `Uint<LIMBS>`.
    type Uint: Copy + Debug + Unsigned;
    /// The modulus `p`.
    const MODULUS: Self::Uint;
    /// Bit length of `p`.
    const BITS: u32;
    /// The representation of 0.
    const ZERO: Self::Repr;
    /// The representation of 1.
    const ONE: Self::Repr;

    /// The representation of `x < p` (tight).
    fn from_canonical(x: &Self::Uint) -> Self::Repr;
    /// The least residue of a tight `a`.
    fn to_canonical(a: &Self::Repr) -> Self::Uint;
    /// `a + b`: tight operands, loose result.
    fn add(a: &Self::Repr, b: &Self::Repr) -> Self::Repr;
    /// `a − b`: tight operands, loose result.
    fn sub(a: &Self::Repr, b: &Self::Repr) -> Self::Repr;
    /// `−a`: tight operand, loose result.
    fn neg(a: &Self::Repr) -> Self::Repr;
    /// A loose `a` brought within the tight bound.
    fn reduce(a: &Self::Repr) -> Self::Repr;
    /// `a · b`: loose operands, tight result.
    fn mul(a: &Self::Repr, b: &Self::Repr) -> Self::Repr;
    /// `a²`: loose operand, tight result.
    fn square(a: &Self::Repr) -> Self::Repr;
    /// `k · a` for a small `k`: tight operand, tight result.
    fn mul_small(a: &Self::Repr, k: u32) -> Self::Repr;

    /// Test hooks: the largest tight and loose representations (every limb
    /// at its bound), and the residue a representation stands for.
    #[cfg(test)]
    #[allow(missing_docs)]
    fn tight_max() -> Self::Repr;
    #[cfg(test)]
    #[allow(missing_docs)]
    fn loose_max() -> Self::Repr;
    #[cfg(test)]
    #[allow(missing_docs)]
    fn value(a: &Self::Repr) -> num_bigint::BigUint;
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Compile-time helpers on little-endian limb arrays (for the constants a
/// backend derives from its modulus).
pub(crate) mod konst {
    use numcrypt_limbs::Limb;

    /// Bit length.
    pub(crate) const fn bits<const N: usize>(a: &[Limb; N]) -> u32 {
        let mut i = N;
        while i > 0 {
            i -= 1;
            if a[i] != 0 {
                return i as u32 * 64 + 64 - a[i].leading_zeros();
            }
        }
        0
    }

    /// `a >= b`.
    pub(crate) const fn geq<const N: usize>(a: &[Limb; N], b: &[Limb; N]) -> bool {
        let mut i = N;
        while i > 0 {
            i -= 1;
            if a[i] != b[i] {
                return a[i] > b[i];
            }
        }
        true
    }

    /// `a − b` (wrapping).
    pub(crate) const fn sub<const N: usize>(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        let mut r = [0; N];
        let mut borrow = 0u64;
        let mut i = 0;
        while i < N {
            let (d, b1) = a[i].overflowing_sub(b[i]);
            let (d, b2) = d.overflowing_sub(borrow);
            r[i] = d;
            borrow = (b1 | b2) as u64;
            i += 1;
        }
        r
    }

    /// `2 a mod m` for `a < m`.
    pub(crate) const fn double_mod<const N: usize>(a: &[Limb; N], m: &[Limb; N]) -> [Limb; N] {
        let mut r = [0; N];
        let mut i = 0;
        while i < N {
            r[i] = (a[i] << 1) | if i > 0 { a[i - 1] >> 63 } else { 0 };
            i += 1;
        }
        let overflow = a[N - 1] >> 63 == 1;
        if overflow || geq(&r, m) {
            sub(&r, m)
        } else {
            r
        }
    }

    /// `2^e mod m` for odd `m > 1`, by doubling.
    pub(crate) const fn pow2_mod<const N: usize>(e: u32, m: &[Limb; N]) -> [Limb; N] {
        let mut r = [0; N];
        r[0] = 1;
        let mut i = 0;
        while i < e {
            r = double_mod(&r, m);
            i += 1;
        }
        r
    }

    /// `⌊2^(bits(m) + 63) / m⌋`, below `2^64` for `m` not a power of two:
    /// the reciprocal of Barrett's reduction of `k · x` (`x < m`, small `k`).
    pub(crate) const fn barrett_mu<const N: usize>(m: &[Limb; N]) -> Limb {
        // Long division of 2^(L+63) by m, one quotient bit at a time; the
        // remainder stays below m, so it fits N limbs plus one bit.
        let l = bits(m);
        let mut rem = [0; N];
        let mut q: Limb = 0;
        let mut i = 0;
        while i <= l + 63 {
            // rem = 2 rem + (bit of 2^(L+63)), then subtract m if it fits.
            let top = rem[N - 1] >> 63;
            let mut j = N;
            while j > 0 {
                j -= 1;
                rem[j] = (rem[j] << 1) | if j > 0 { rem[j - 1] >> 63 } else { 0 };
            }
            if i == 0 {
                rem[0] |= 1;
            }
            let fits = top == 1 || geq(&rem, m);
            if fits {
                rem = sub(&rem, m);
            }
            q = (q << 1) | fits as Limb;
            i += 1;
        }
        q
    }
}
