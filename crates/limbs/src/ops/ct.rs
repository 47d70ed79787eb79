//! Constant-time helpers on limb slices: comparison, selection, table lookup.
//!
//! None of these branch on or index memory by the values of the limbs; the
//! lengths are public.

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use crate::Limb;
use crate::backend::barrier::value_barrier;
use crate::ops::word::sbb;

/// An all-ones limb if `c` is true, zero otherwise.
#[inline(always)]
pub(crate) fn mask(c: Choice) -> Limb {
    (c.unwrap_u8() as Limb).wrapping_neg()
}

/// `a == b` for slices of equal length.
pub(crate) fn eq(a: &[Limb], b: &[Limb]) -> Choice {
    debug_assert_eq!(a.len(), b.len());
    let mut diff = 0;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    diff.ct_eq(&0)
}

/// `a == 0`.
pub(crate) fn is_zero(a: &[Limb]) -> Choice {
    a.iter().fold(0, |acc, &x| acc | x).ct_eq(&0)
}

/// `a < b` for slices of equal length: the borrow out of `a - b`.
pub(crate) fn lt(a: &[Limb], b: &[Limb]) -> Choice {
    debug_assert_eq!(a.len(), b.len());
    let mut borrow = 0;
    for (&x, &y) in a.iter().zip(b) {
        (_, borrow) = sbb(x, y, borrow);
    }
    Choice::from(borrow as u8)
}

/// `dst = if c { src } else { dst }`.
pub(crate) fn assign_if(dst: &mut [Limb], src: &[Limb], c: Choice) {
    debug_assert_eq!(dst.len(), src.len());
    for (d, s) in dst.iter_mut().zip(src) {
        d.conditional_assign(s, c);
    }
}

/// Swaps `a` and `b` when `c` is true.
pub(crate) fn swap_if(a: &mut [Limb], b: &mut [Limb], c: Choice) {
    debug_assert_eq!(a.len(), b.len());
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        Limb::conditional_swap(x, y, c);
    }
}

/// Copies entry `index` of `table` (entries of `out.len()` limbs each) into
/// `out`, reading every entry so that the memory access pattern does not
/// depend on `index`.
pub(crate) fn lookup(out: &mut [Limb], table: &[Limb], index: Limb) {
    lookup_strided(out, table, out.len(), 0, index);
}

/// As [`lookup`], for a table whose entries are `stride` limbs and hold the
/// value `offset` limbs in (several values side by side).
///
/// The masks come from arithmetic rather than `subtle`'s per-call
/// optimisation barrier (which goes through memory and cost more than the
/// reads at 512 bits); a register-only barrier on each mask keeps the
/// compiler from knowing that it is 0 or all ones, so it cannot skip
/// entries (it did, without one: memcheck's audit found it).
pub(crate) fn lookup_strided(
    out: &mut [Limb],
    table: &[Limb],
    stride: usize,
    offset: usize,
    index: Limb,
) {
    let n = out.len();
    assert!(offset + n <= stride);
    out.fill(0);
    for (i, entry) in table.chunks_exact(stride).enumerate() {
        // i ^ index is below 2^63 (both are table positions), so subtracting
        // one sets the top bit exactly when they are equal.
        let m = (0 as Limb).wrapping_sub(((i as Limb ^ index).wrapping_sub(1)) >> (Limb::BITS - 1));
        let m = value_barrier(m);
        for (o, &e) in out.iter_mut().zip(&entry[offset..offset + n]) {
            *o |= e & m;
        }
    }
}

/// Bit length of `a` (position of the highest set bit plus one; 0 for zero),
/// in constant time.
pub(crate) fn bit_length(a: &[Limb]) -> u32 {
    let mut bits: u32 = 0;
    for (i, &limb) in a.iter().enumerate() {
        let limb_bits = Limb::BITS - limb.leading_zeros();
        // leading_zeros compiles to lzcnt/bsr on the targets we care about;
        // the selection below avoids a branch on the limb value.
        let candidate = i as u32 * Limb::BITS + limb_bits;
        bits.conditional_assign(&candidate, !limb.ct_eq(&0));
    }
    bits
}

/// Number of trailing zero bits of `a` (`a.len() * 64` for zero), constant time.
pub(crate) fn trailing_zeros(a: &[Limb]) -> u32 {
    let mut count: u32 = 0;
    let mut found = Choice::from(0);
    for (i, &limb) in a.iter().enumerate() {
        let nonzero = !limb.ct_eq(&0);
        let candidate = i as u32 * Limb::BITS + limb.trailing_zeros();
        count.conditional_assign(&candidate, nonzero & !found);
        found |= nonzero;
    }
    count.conditional_assign(&(a.len() as u32 * Limb::BITS), !found);
    count
}

/// Bit `index` of `a` as a `Choice`, reading every limb (the index is treated
/// as secret too). Out-of-range indices give 0.
pub(crate) fn bit(a: &[Limb], index: u32) -> Choice {
    let limb_index = (index / Limb::BITS) as Limb;
    let shift = index % Limb::BITS;
    let mut selected = 0;
    for (i, &limb) in a.iter().enumerate() {
        selected |= limb & mask((i as Limb).ct_eq(&limb_index));
    }
    Choice::from(((selected >> shift) & 1) as u8)
}
