//! Slice kernels on the fastest backend: the mpn layer.
//!
//! Every multi-precision operation in this crate bottoms out in one of
//! these functions. They work on little-endian slices of [`Limb`]s and are
//! constant time in the *values* of their operands (lengths are public).
//! Each runs on the backend [`selection`](crate::backend::selection) chose
//! (detected once, at run time, or at compile time when the target features
//! are enabled); the backends themselves ([`Portable`], `Adx` on x86_64
//! with BMI2 and ADX, `Aarch64`) are public so that tests and benches can
//! force a path. The contract each backend implements is [`Kernels`]; the
//! word and slice arithmetic below it is re-exported here.

use crate::Limb;
use crate::backend::dispatch;

pub use crate::backend::slice_kernels::*;
pub use crate::ops::add::{
    add_assign, add_limb_assign, add_n, cnd_add_assign, cnd_sub_assign, sub_assign,
    sub_limb_assign, sub_n,
};
pub use crate::ops::div::submul_1;
pub use crate::ops::kernels::{
    KARATSUBA_MAX_LIMBS, KARATSUBA_MIN_LIMBS, Kernels, MontModulus, SQR_MIN_LIMBS,
    mont_inverse_limb,
};
pub use crate::ops::trial::SmallFactorLanes;
pub use crate::ops::word::{adc, mac, mask_from_bit, sbb};

/// [`Kernels::mul_1`] on the fastest backend.
pub fn mul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    dispatch!(k => k.mul_1(r, a, b))
}

/// [`Kernels::addmul_1`] on the fastest backend.
pub fn addmul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    dispatch!(k => k.addmul_1(r, a, b))
}

/// [`Kernels::mul`] on the fastest backend.
pub fn mul(r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    dispatch!(k => k.mul(r, a, b))
}

/// [`Kernels::sqr`] on the fastest backend.
pub fn sqr(r: &mut [Limb], a: &[Limb]) {
    dispatch!(k => k.sqr(r, a))
}

/// [`Kernels::mont_redc`] on the fastest backend.
pub fn mont_redc(r: &mut [Limb], t: &mut [Limb], m: MontModulus) {
    dispatch!(k => k.mont_redc(r, t, m))
}

/// [`Kernels::mont_mul`] on the fastest backend.
pub fn mont_mul(r: &mut [Limb], a: &[Limb], b: &[Limb], m: MontModulus, wide: &mut [Limb]) {
    dispatch!(k => k.mont_mul(r, a, b, m, wide))
}

/// [`Kernels::mont_mul_unrolled`] on the fastest backend: `false` when it
/// has no unrolled kernel for this length.
pub fn mont_mul_unrolled(r: &mut [Limb], a: &[Limb], b: &[Limb], m: MontModulus) -> bool {
    dispatch!(k => k.mont_mul_unrolled(r, a, b, m))
}

/// [`Kernels::mont_sqr`] on the fastest backend.
pub fn mont_sqr(r: &mut [Limb], a: &[Limb], m: MontModulus, wide: &mut [Limb]) {
    dispatch!(k => k.mont_sqr(r, a, m, wide))
}

/// Trial division by the primes of many products, eight at once: 1 when
/// one of them divides `x` (little-endian limbs, at most 4160 bits, in
/// `d = ⌈64·len/52⌉` digits of 52 bits; each block's `powers` at least `d`
/// long), else 0. Each lane's product gives a residue (a few IFMA
/// instructions a digit for the eight), and each prime `p` divides it
/// exactly when its product with `p⁻¹ mod 2^64` is below the limit.
///
/// AVX-512 IFMA and DQ only: `None` on CPUs without them, or with IFMA
/// turned off (`NUMCRYPT_DISABLE=ifma`), and the caller's scalar remainders
/// run. Constant time in `x`.
pub fn small_factor_52x8(x: &[Limb], blocks: &[SmallFactorLanes<'_>]) -> Option<u64> {
    let digits = (64 * x.len()).div_ceil(52);
    let fits =
        |b: &SmallFactorLanes<'_>| digits <= b.powers.len() && b.inverses.len() == b.limits.len();
    if digits > SMALL_FACTOR_MAX_DIGITS || !blocks.iter().all(fits) {
        return None;
    }
    crate::backend::small_factor_52x8(x, blocks)
}

/// The most digits [`small_factor_52x8`] takes: 4160 bits.
pub const SMALL_FACTOR_MAX_DIGITS: usize = 80;

/// Whether [`small_factor_52x8`] runs here (and so whether trial division
/// by many more primes is cheap).
pub fn has_small_factor_52x8() -> bool {
    crate::backend::has_small_factor_52x8()
}
