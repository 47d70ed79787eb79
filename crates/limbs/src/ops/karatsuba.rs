//! Karatsuba multiplication on top of a backend's schoolbook product,
//! constant time (every branch depends on lengths only).
//!
//! With `a = a1·B + a0` and `b = b1·B + b0` (`B = 2^(64 h)`, `h = n / 2`):
//! `a·b = z2·B² + (z0 + z2 + (a0 − a1)(b1 − b0))·B + z0`, where `z0 = a0·b0`
//! and `z2 = a1·b1`: three half-size products instead of four. The middle
//! product is taken of absolute differences and its sign applied by a mask.

use zeroize::Zeroize;

use crate::Limb;
use crate::ops::add::{add_assign, add_limb_assign, add_n, sub_n};
use crate::ops::word::{adc, mask_from_bit};

/// Products of equal-length operands of at least this many limbs (and an
/// even count) split into Karatsuba halves; below it the schoolbook kernels
/// win, with these additions in Rust. Squaring does not split here: it
/// measured slower at every size up to 128 limbs (benches/RESULTS.md,
/// "Karatsuba"). The `mulx` backend takes one level of its own at 32, 48
/// and 64 limbs, products and squares, its additions in assembly.
pub const KARATSUBA_MIN_LIMBS: usize = 96;

/// Largest operand Karatsuba handles (8192 bits): its scratch lives on the
/// stack, sized for this; longer products use the schoolbook kernels.
pub const KARATSUBA_MAX_LIMBS: usize = 128;

/// Scratch for `n` limbs: one level takes `2 n` (the two differences and
/// the middle product), then the larger of the next level's and the `n`
/// limbs of the middle sum, so `4 n` bounds all levels together.
const fn scratch_limbs(n: usize) -> usize {
    4 * n
}

/// Whether `Kernels::mul` takes the Karatsuba path for `n`-limb operands.
pub(super) const fn applies(n: usize) -> bool {
    n >= KARATSUBA_MIN_LIMBS && n <= KARATSUBA_MAX_LIMBS && n.is_multiple_of(2)
}

/// `r = a * b` for `a.len() == b.len()` with [`applies`] true, the
/// products below the Karatsuba sizes by `basecase(r, a, b)`.
pub(super) fn mul(
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    basecase: &impl Fn(&mut [Limb], &[Limb], &[Limb]),
) {
    with_scratch(a.len(), |scratch| mul_rec(r, a, b, scratch, basecase));
}

/// Runs `f` with zeroed stack scratch for `n`-limb operands, wiped after
/// (it holds differences and partial products of the operands). The array
/// comes in two sizes so that the common sizes do not pay for clearing the
/// largest.
fn with_scratch(n: usize, f: impl FnOnce(&mut [Limb])) {
    fn run<const L: usize>(n: usize, f: impl FnOnce(&mut [Limb])) {
        let mut scratch = [0 as Limb; L];
        let used = &mut scratch[..scratch_limbs(n)];
        f(used);
        used.zeroize();
    }
    const SMALL: usize = scratch_limbs(KARATSUBA_MAX_LIMBS / 4);
    if scratch_limbs(n) <= SMALL {
        run::<SMALL>(n, f)
    } else {
        run::<{ scratch_limbs(KARATSUBA_MAX_LIMBS) }>(n, f)
    }
}

fn mul_rec(
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    scratch: &mut [Limb],
    basecase: &impl Fn(&mut [Limb], &[Limb], &[Limb]),
) {
    let n = a.len();
    if !applies(n) {
        return basecase(r, a, b);
    }
    let h = n / 2;
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    let (da, rest) = scratch.split_at_mut(h);
    let (db, rest) = rest.split_at_mut(h);
    let (z1, rest) = rest.split_at_mut(n);
    // (a0 - a1)(b1 - b0) is negative when exactly one difference is.
    let negative = abs_diff(da, a0, a1) ^ abs_diff(db, b1, b0);
    let (z0, z2) = r.split_at_mut(n);
    mul_rec(z0, a0, b0, rest, basecase);
    mul_rec(z2, a1, b1, rest, basecase);
    mul_rec(z1, da, db, rest, basecase);
    add_middle(r, z1, negative, rest);
}

/// `d = |x - y|`; returns an all-ones mask when `x < y`.
fn abs_diff(d: &mut [Limb], x: &[Limb], y: &[Limb]) -> Limb {
    let mask = mask_from_bit(sub_n(d, x, y));
    // Two's complement negation under the mask: (d ^ mask) + (mask & 1).
    let mut carry = mask & 1;
    for limb in d.iter_mut() {
        (*limb, carry) = adc(*limb ^ mask, 0, carry);
    }
    mask
}

/// Given `r = z2·B² + z0` (`r.len() == 2 n`), adds `(z0 + z2 ± z1)·B` with
/// `B = 2^(64 n / 2)`, subtracting `z1` when `negative` is all ones.
/// `scratch` holds at least `n` limbs.
fn add_middle(r: &mut [Limb], z1: &mut [Limb], negative: Limb, scratch: &mut [Limb]) {
    let n = z1.len();
    let h = n / 2;
    let mid = &mut scratch[..n];
    let c0 = add_n(mid, &r[..n], &r[n..]);
    // mid ± z1 as mid + (z1 ^ negative) + (negative & 1); the top limb takes
    // both carries, less the 2^(64 n) that the negation borrowed.
    let mut carry = negative & 1;
    for (m, &z) in mid.iter_mut().zip(z1.iter()) {
        (*m, carry) = adc(*m, z ^ negative, carry);
    }
    let top = c0.wrapping_add(carry).wrapping_sub(negative & 1);
    let c = add_assign(&mut r[h..h + n], mid);
    // The full product fits in r, so the last carry is zero.
    add_limb_assign(&mut r[h + n..], top + c);
}
