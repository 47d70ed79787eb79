//! The add, subtract and select of the slice kernels in array form, for
//! the prime fields: operands of `N` limbs by reference, results by value
//! (on the stack, fully unrolled at the sizes fields use). Constant time in
//! the values, as the slice forms they run.

use subtle::Choice;

use crate::Limb;
use crate::ops::{add as slices, ct};

/// `a + b`, and the carry out (0 or 1).
#[inline]
pub fn add<const N: usize>(a: &[Limb; N], b: &[Limb; N]) -> ([Limb; N], Limb) {
    let mut r = [0; N];
    let carry = slices::add_n(&mut r, a, b);
    (r, carry)
}

/// `a − b`, and the borrow out (0 or 1).
#[inline]
pub fn sub<const N: usize>(a: &[Limb; N], b: &[Limb; N]) -> ([Limb; N], Limb) {
    let mut r = [0; N];
    let borrow = slices::sub_n(&mut r, a, b);
    (r, borrow)
}

/// `a + (b & mask)` modulo `2^(64 N)`: `b` added when `mask` is all ones,
/// nothing when it is zero, in the same time either way.
#[inline]
pub fn add_masked<const N: usize>(a: &[Limb; N], b: &[Limb; N], mask: Limb) -> [Limb; N] {
    let mut r = *a;
    slices::cnd_add_assign(&mut r, b, mask);
    r
}

/// `(hi : a)`, known to be below `2 m`, brought below `m` by one
/// conditional subtraction.
#[inline]
pub fn reduce_once<const N: usize>(a: &[Limb; N], hi: Limb, m: &[Limb; N]) -> [Limb; N] {
    let mut r = *a;
    slices::final_subtract(&mut r, hi, m);
    r
}

/// `b` when `choice` is true, else `a`, for any fixed-width representation.
#[inline]
pub fn select<R: Copy + AsRef<[Limb]> + AsMut<[Limb]>>(a: &R, b: &R, choice: Choice) -> R {
    let mut r = *a;
    ct::assign_if(r.as_mut(), b.as_ref(), choice);
    r
}
