//! The field-kernel contract: fixed-width operations on arrays of `N`
//! limbs, each with a default on the slice kernels ([`Kernels`]) that a
//! backend overrides at the sizes it has unrolled code for. The free
//! functions of [`fixed`](crate::fixed) run the one the CPU has.

use crate::Limb;
use crate::ops::kernels::{Kernels, MontModulus};
use crate::ops::word::{adc, mac};

/// The largest `c` the pseudo-Mersenne kernels accept (`c < 2^63`), which
/// bounds the overflow of each fold.
pub const PM_MAX_C: Limb = 1 << 63;

/// Fixed-width field kernels on a backend. Every method has a slice-kernel
/// default; backends override the sizes they have unrolled code for.
pub trait FieldKernels: Kernels {
    /// The full product `a · b`, as `(low half, high half)`.
    fn mul_wide<const N: usize>(self, a: &[Limb; N], b: &[Limb; N]) -> ([Limb; N], [Limb; N]) {
        if N <= SMALL {
            return mul_wide_small(a, b);
        }
        let mut t = [[0; N]; 2];
        self.mul(t.as_flattened_mut(), a, b);
        (t[0], t[1])
    }

    /// The full square `a²`, as `(low half, high half)`.
    fn sqr_wide<const N: usize>(self, a: &[Limb; N]) -> ([Limb; N], [Limb; N]) {
        if N <= SMALL {
            return mul_wide_small(a, a);
        }
        let mut t = [[0; N]; 2];
        self.sqr(t.as_flattened_mut(), a);
        (t[0], t[1])
    }

    /// `a · b mod (2^(64 N) − c)` as a value below `2^(64 N)` (congruent, not
    /// necessarily the least residue). `c` is below [`PM_MAX_C`], `N >= 2`.
    fn pm_mul<const N: usize>(self, a: &[Limb; N], b: &[Limb; N], c: Limb) -> [Limb; N] {
        let (lo, hi) = self.mul_wide(a, b);
        pm_fold(self, lo, &hi, c)
    }

    /// `a² mod (2^(64 N) − c)`, as [`pm_mul`](FieldKernels::pm_mul).
    fn pm_sqr<const N: usize>(self, a: &[Limb; N], c: Limb) -> [Limb; N] {
        let (lo, hi) = self.sqr_wide(a);
        pm_fold(self, lo, &hi, c)
    }

    /// `a · b mod (2^521 − 1)` for any nine-limb operands, as a value below
    /// `2^576` (congruent, not necessarily the least residue). The default
    /// reduces modulo `2^576 − 2^55 = 2^55 · (2^521 − 1)` with
    /// [`pm_mul`](FieldKernels::pm_mul).
    fn p521_mul(self, a: &[Limb; 9], b: &[Limb; 9]) -> [Limb; 9] {
        self.pm_mul(a, b, P521_FOLD)
    }

    /// `a² mod (2^521 − 1)`, as [`p521_mul`](FieldKernels::p521_mul).
    fn p521_sqr(self, a: &[Limb; 9]) -> [Limb; 9] {
        self.pm_sqr(a, P521_FOLD)
    }

    /// Montgomery multiplication `a · b · 2^(−64 N) mod m`, fully reduced:
    /// `m` odd, `m_inv = −m⁻¹ mod 2^64`, `a · b < m · 2^(64 N)`.
    fn monty_mul<const N: usize>(
        self,
        a: &[Limb; N],
        b: &[Limb; N],
        m: &[Limb; N],
        m_inv: Limb,
    ) -> [Limb; N] {
        let mut r = [0; N];
        let m = MontModulus::with_inverse(m, m_inv);
        // The unrolled kernels need no scratch: skip its zeroing for them.
        if !self.mont_mul_unrolled(&mut r, a, b, m) {
            let mut wide = [[0; N]; 2];
            self.mont_mul(&mut r, a, b, m, wide.as_flattened_mut());
        }
        r
    }

    /// Montgomery squaring `a² · 2^(−64 N) mod m`, fully reduced, under the
    /// requirements of [`monty_mul`](FieldKernels::monty_mul) with `b = a`.
    /// The default multiplies.
    fn monty_sqr<const N: usize>(self, a: &[Limb; N], m: &[Limb; N], m_inv: Limb) -> [Limb; N] {
        self.monty_mul(a, a, m, m_inv)
    }
}

/// `2^576 ≡ 2^55 mod (2^521 − 1)`: the fold constant of P-521's prime on
/// nine limbs.
pub(crate) const P521_FOLD: Limb = 1 << 55;

/// Up to this many limbs, products are plain Rust (`u128` column sums, fully
/// unrolled), which beats any slice kernel's entry and exit.
pub(crate) const SMALL: usize = 3;

/// The full product by columns in Rust, for the smallest sizes.
#[inline(always)]
pub(crate) fn mul_wide_small<const N: usize>(
    a: &[Limb; N],
    b: &[Limb; N],
) -> ([Limb; N], [Limb; N]) {
    let mut t = [[0; N]; 2];
    let flat = t.as_flattened_mut();
    for i in 0..N {
        let mut carry = 0;
        for j in 0..N {
            (flat[i + j], carry) = mac(flat[i + j], a[i], b[j], carry);
        }
        flat[i + N] = carry;
    }
    (t[0], t[1])
}

/// `lo + hi · c mod (2^(64 N) − c)`, below `2^(64 N)`: the high half folded
/// in with one `addmul_1` row, then its overflow limb folded the same way,
/// then a last carry (possible only when the value is below `2^127`) added
/// as `c` by a mask.
#[inline]
pub(crate) fn pm_fold<K: Kernels, const N: usize>(
    k: K,
    mut r: [Limb; N],
    hi: &[Limb; N],
    c: Limb,
) -> [Limb; N] {
    debug_assert!(N >= 2 && c < PM_MAX_C);
    let top = if N <= SMALL {
        let mut carry = 0;
        for (x, &h) in r.iter_mut().zip(hi) {
            (*x, carry) = mac(*x, h, c, carry);
        }
        carry
    } else {
        k.addmul_1(&mut r, hi, c)
    };
    // top <= c, so top * c < 2^126 spans two limbs.
    let (t0, t1) = mac(0, top, c, 0);
    let (x, carry) = adc(r[0], t0, 0);
    r[0] = x;
    let (x, mut carry) = adc(r[1], t1, carry);
    r[1] = x;
    for limb in r.iter_mut().skip(2) {
        (*limb, carry) = adc(*limb, 0, carry);
    }
    // A carry out means r < top * c < 2^126 now, so r + c cannot carry past
    // the second limb.
    let (x, carry) = adc(r[0], c & carry.wrapping_neg(), 0);
    r[0] = x;
    r[1] = r[1].wrapping_add(carry);
    r
}
