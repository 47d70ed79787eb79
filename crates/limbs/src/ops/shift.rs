//! Bit shifts on limb slices.

use subtle::Choice;

use crate::Limb;
use crate::ops::ct;

/// `shift` as whole limbs and remaining bits; `None`, with `a` cleared,
/// when it moves every bit out of `a`.
fn whole_limbs_and_bits(a: &mut [Limb], shift: u32) -> Option<(usize, u32)> {
    let limbs = (shift / Limb::BITS) as usize;
    if limbs >= a.len() {
        a.fill(0);
        return None;
    }
    Some((limbs, shift % Limb::BITS))
}

/// `a <<= shift` in place, variable time in `shift` only (constant time in
/// the value). Bits shifted past the top are lost; `shift >= 64 * len` clears `a`.
pub(crate) fn shl_vartime(a: &mut [Limb], shift: u32) {
    let n = a.len();
    let Some((limbs, bits)) = whole_limbs_and_bits(a, shift) else {
        return;
    };
    for i in (0..n).rev() {
        let lo = if i >= limbs { a[i - limbs] } else { 0 };
        let below = if i > limbs { a[i - limbs - 1] } else { 0 };
        a[i] = if bits == 0 {
            lo
        } else {
            (lo << bits) | (below >> (Limb::BITS - bits))
        };
    }
}

/// `a >>= shift` in place, variable time in `shift` only.
pub(crate) fn shr_vartime(a: &mut [Limb], shift: u32) {
    let n = a.len();
    let Some((limbs, bits)) = whole_limbs_and_bits(a, shift) else {
        return;
    };
    for i in 0..n {
        let hi = if i + limbs < n { a[i + limbs] } else { 0 };
        let above = if i + limbs + 1 < n {
            a[i + limbs + 1]
        } else {
            0
        };
        a[i] = if bits == 0 {
            hi
        } else {
            (hi >> bits) | (above << (Limb::BITS - bits))
        };
    }
}

/// `a <<= shift` (or `>>=` when `right`) in constant time in both the value and
/// `shift`: a barrel shifter that applies every power-of-two step and keeps
/// it only where `shift` has that bit. `tmp` has `a.len()` limbs.
pub(crate) fn shift_ct(a: &mut [Limb], shift: u32, right: bool, tmp: &mut [Limb]) {
    let total_bits = a.len() as u64 * Limb::BITS as u64;
    let mut step = 0;
    while (1u64 << step) < total_bits {
        tmp.copy_from_slice(a);
        if right {
            shr_vartime(tmp, 1 << step);
        } else {
            shl_vartime(tmp, 1 << step);
        }
        ct::assign_if(a, tmp, Choice::from(((shift >> step) & 1) as u8));
        step += 1;
    }
    // Any higher bit of `shift` means everything was shifted out.
    let overflow = ((shift as u64) >> step) != 0;
    let keep = !Choice::from(overflow as u8);
    let m = ct::mask(keep);
    for x in a.iter_mut() {
        *x &= m;
    }
}

/// `a >>= 1` with `top` (0 or 1) shifted in at the most significant bit.
#[inline]
pub(crate) fn shr1_with(a: &mut [Limb], top: Limb) {
    let mut carry = top;
    for x in a.iter_mut().rev() {
        let next = *x & 1;
        *x = (*x >> 1) | (carry << (Limb::BITS - 1));
        carry = next;
    }
}
