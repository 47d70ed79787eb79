//! Addition and subtraction of limb slices, plain and masked, constant
//! time in the values (the lengths are public). Each function states the
//! lengths it expects; a length that breaks the contract is a bug in the
//! calling code and panics.

use crate::Limb;
use crate::backend::barrier::value_barrier;
use crate::ops::word::{adc, mask_from_bit, sbb};

/// `r = a + b`; returns the carry (0 or 1). All three have the same length.
#[inline]
pub fn add_n(r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len());
    let mut carry = 0;
    for i in 0..r.len() {
        (r[i], carry) = adc(a[i], b[i], carry);
    }
    carry
}

/// `r += b`; returns the carry. `r` and `b` have the same length.
#[inline]
pub fn add_assign(r: &mut [Limb], b: &[Limb]) -> Limb {
    assert_eq!(r.len(), b.len());
    let mut carry = 0;
    for (ri, &bi) in r.iter_mut().zip(b) {
        (*ri, carry) = adc(*ri, bi, carry);
    }
    carry
}

/// `r += c` for a single limb `c`, propagating through all of `r` (constant
/// time: every limb is touched); returns the carry.
#[inline]
pub fn add_limb_assign(r: &mut [Limb], c: Limb) -> Limb {
    let mut carry = c;
    for ri in r.iter_mut() {
        (*ri, carry) = adc(*ri, carry, 0);
    }
    carry
}

/// `r = a - b`; returns the borrow (0 or 1). All three have the same length.
#[inline]
pub fn sub_n(r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len());
    let mut borrow = 0;
    for i in 0..r.len() {
        (r[i], borrow) = sbb(a[i], b[i], borrow);
    }
    borrow
}

/// `r -= b`; returns the borrow. `r` and `b` have the same length.
#[inline]
pub fn sub_assign(r: &mut [Limb], b: &[Limb]) -> Limb {
    assert_eq!(r.len(), b.len());
    let mut borrow = 0;
    for (ri, &bi) in r.iter_mut().zip(b) {
        (*ri, borrow) = sbb(*ri, bi, borrow);
    }
    borrow
}

/// `r -= c` for a single limb, through all of `r`; returns the borrow.
#[inline]
pub fn sub_limb_assign(r: &mut [Limb], c: Limb) -> Limb {
    let mut borrow = c;
    for ri in r.iter_mut() {
        (*ri, borrow) = sbb(*ri, borrow, 0);
    }
    borrow
}

/// `r += b & mask`: adds `b` when `mask` is all ones, nothing when it is zero,
/// in the same time either way. Returns the carry (0 when `mask` is zero).
#[inline]
pub fn cnd_add_assign(r: &mut [Limb], b: &[Limb], mask: Limb) -> Limb {
    assert_eq!(r.len(), b.len());
    let mask = value_barrier(mask);
    let mut carry = 0;
    for (ri, &bi) in r.iter_mut().zip(b) {
        (*ri, carry) = adc(*ri, bi & mask, carry);
    }
    carry
}

/// `r -= b & mask`, constant time; returns the borrow.
#[inline]
pub fn cnd_sub_assign(r: &mut [Limb], b: &[Limb], mask: Limb) -> Limb {
    assert_eq!(r.len(), b.len());
    let mask = value_barrier(mask);
    let mut borrow = 0;
    for (ri, &bi) in r.iter_mut().zip(b) {
        (*ri, borrow) = sbb(*ri, bi & mask, borrow);
    }
    borrow
}

/// Brings `(hi : r)`, known to be below `2 m`, into `[0, m)` with one
/// constant-time conditional subtraction.
#[inline]
pub fn final_subtract(r: &mut [Limb], hi: Limb, m: &[Limb]) {
    let borrow = sub_assign(r, m);
    // Keep the difference unless it went negative without an overflow limb.
    let undo = borrow & !hi & 1;
    cnd_add_assign(r, m, mask_from_bit(undo));
}
