//! The field kernels ([`FieldKernels`]) with `mulx`/`adcx`/`adox`: the
//! generated products, squares and pseudo-Mersenne reductions of
//! `gen/field.rs` at the sizes fields use, chosen by the array's length.

use super::{Adx, P256, field, unrolled};
use crate::Limb;
use crate::fixed::kernels::{FieldKernels, PM_MAX_C, SMALL, mul_wide_small, pm_fold};
use crate::ops::kernels::Kernels;

/// Returns `$f($cpu, scratch, $a, …, c)` as an `N`-limb array, with `$a`, …
/// rebound as arrays of the literal size `$n`, when `N == $n` (a check
/// the compiler folds away); `$f_c32` instead when `c < 2^32` (`c` is the
/// modulus' constant, public, and a constant where the field calls in).
macro_rules! pm_at_size {
    ($n:literal, $cpu:ident, [$($x:ident),*], $c:ident, $f:path, $f_c32:path) => {
        if let ($(Ok($x),)*) = ($(<&[Limb; $n]>::try_from($x.as_slice()),)*) {
            let mut scratch = [0; $n];
            let r = if $c < 1 << 32 {
                $f_c32($cpu, &mut scratch, $($x,)* $c)
            } else {
                $f($cpu, &mut scratch, $($x,)* $c)
            };
            #[allow(clippy::useless_conversion)]
            return <[Limb; N]>::try_from(r.as_slice()).expect("N == size");
        }
    };
}

/// Returns `$f($cpu, lo, hi, $a, …)`'s halves as `N`-limb arrays, with
/// `$a`, … rebound as arrays of the literal size `$n`, when `N == $n`.
macro_rules! wide_at_size {
    ($n:literal, $cpu:ident, [$($x:ident),*], $f:path) => {
        if let ($(Ok($x),)*) = ($(<&[Limb; $n]>::try_from($x.as_slice()),)*) {
            let (mut lo, mut hi) = ([0; N], [0; N]);
            let lo_n: &mut [Limb; $n] = (&mut lo[..]).try_into().expect("N == size");
            let hi_n: &mut [Limb; $n] = (&mut hi[..]).try_into().expect("N == size");
            $f($cpu, lo_n, hi_n, $($x),*);
            return (lo, hi);
        }
    };
}

impl FieldKernels for Adx {
    #[inline]
    fn mul_wide<const N: usize>(self, a: &[Limb; N], b: &[Limb; N]) -> ([Limb; N], [Limb; N]) {
        if N <= SMALL {
            return mul_wide_small(a, b);
        }
        wide_at_size!(4, self, [a, b], field::mul_wide_4);
        wide_at_size!(6, self, [a, b], field::mul_wide_6);
        wide_at_size!(7, self, [a, b], field::mul_wide_7);
        wide_at_size!(8, self, [a, b], field::mul_wide_8);
        wide_at_size!(9, self, [a, b], field::mul_wide_9);
        let mut t = [[0; N]; 2];
        self.mul(t.as_flattened_mut(), a, b);
        (t[0], t[1])
    }

    #[inline]
    fn sqr_wide<const N: usize>(self, a: &[Limb; N]) -> ([Limb; N], [Limb; N]) {
        wide_at_size!(4, self, [a], field::sqr_wide_4);
        wide_at_size!(6, self, [a], field::sqr_wide_6);
        wide_at_size!(7, self, [a], field::sqr_wide_7);
        wide_at_size!(8, self, [a], field::sqr_wide_8);
        wide_at_size!(9, self, [a], field::sqr_wide_9);
        if N <= SMALL {
            return mul_wide_small(a, a);
        }
        let mut t = [[0; N]; 2];
        self.sqr(t.as_flattened_mut(), a);
        (t[0], t[1])
    }

    #[inline]
    fn pm_mul<const N: usize>(self, a: &[Limb; N], b: &[Limb; N], c: Limb) -> [Limb; N] {
        assert!(c < PM_MAX_C);
        pm_at_size!(4, self, [a, b], c, field::pm_mul_4, field::pm_mul_4_c32);
        pm_at_size!(6, self, [a, b], c, field::pm_mul_6, field::pm_mul_6_c32);
        pm_at_size!(7, self, [a, b], c, field::pm_mul_7, field::pm_mul_7_c32);
        pm_at_size!(8, self, [a, b], c, field::pm_mul_8, field::pm_mul_8_c32);
        pm_at_size!(9, self, [a, b], c, field::pm_mul_9, field::pm_mul_9_c32);
        let (lo, hi) = self.mul_wide(a, b);
        pm_fold(self, lo, &hi, c)
    }

    #[inline]
    fn pm_sqr<const N: usize>(self, a: &[Limb; N], c: Limb) -> [Limb; N] {
        assert!(c < PM_MAX_C);
        pm_at_size!(4, self, [a], c, field::pm_sqr_4, field::pm_sqr_4_c32);
        pm_at_size!(6, self, [a], c, field::pm_sqr_6, field::pm_sqr_6_c32);
        pm_at_size!(7, self, [a], c, field::pm_sqr_7, field::pm_sqr_7_c32);
        pm_at_size!(8, self, [a], c, field::pm_sqr_8, field::pm_sqr_8_c32);
        pm_at_size!(9, self, [a], c, field::pm_sqr_9, field::pm_sqr_9_c32);
        let (lo, hi) = self.sqr_wide(a);
        pm_fold(self, lo, &hi, c)
    }

    /// The product, then `t = A + 2^521 B + 2^1042 H ≡ A + B + H` in
    /// one carry chain (below `2^523`).
    #[inline]
    fn p521_mul(self, a: &[Limb; 9], b: &[Limb; 9]) -> [Limb; 9] {
        field::p521_mul(self, &mut [0; 9], a, b)
    }

    #[inline]
    fn p521_sqr(self, a: &[Limb; 9]) -> [Limb; 9] {
        field::p521_sqr(self, &mut [0; 9], a)
    }

    /// The unrolled square with its reduction in registers at 4 limbs
    /// (P-224, 256-bit primes; P-256's reduction by shifts and additions);
    /// elsewhere the multiplication, whose result leaves in registers: a
    /// square then a separate reduction, through memory, did not beat it
    /// on a chain at 6 to 9 limbs (benches/RESULTS.md).
    #[inline]
    fn monty_sqr<const N: usize>(self, a: &[Limb; N], m: &[Limb; N], m_inv: Limb) -> [Limb; N] {
        if let (Ok(a4), Ok(m4)) = (
            <&[Limb; 4]>::try_from(a.as_slice()),
            <&[Limb; 4]>::try_from(m.as_slice()),
        ) {
            // The modulus and m_inv are public: P-256's prime has a
            // reduction of its own, and m_inv = 1 (any m ≡ −1 mod 2^64)
            // needs no multiplication for the quotients.
            let r = if *m4 == P256 {
                unrolled::p256_sqr(self, a4, m4)
            } else if m_inv == 1 {
                unrolled::mont_sqr_4_minv1(self, a4, m4, m_inv)
            } else {
                unrolled::mont_sqr_4(self, a4, m4, m_inv)
            };
            return <[Limb; N]>::try_from(r.as_slice()).expect("N == 4");
        }
        self.monty_mul(a, a, m, m_inv)
    }
}
