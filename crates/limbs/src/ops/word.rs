//! Word arithmetic: one limb's add, subtract and multiply-accumulate with
//! their carries, the bottom of every operation (constant time).

use crate::Limb;

/// `a + b + carry`, returning `(sum, carry_out)`; `carry` must be 0 or 1.
#[inline(always)]
pub const fn adc(a: Limb, b: Limb, carry: Limb) -> (Limb, Limb) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as Limb, (t >> Limb::BITS) as Limb)
}

/// `a - b - borrow`, returning `(difference, borrow_out)`; `borrow` must be 0 or 1.
#[inline(always)]
pub const fn sbb(a: Limb, b: Limb, borrow: Limb) -> (Limb, Limb) {
    let t = (a as u128).wrapping_sub(b as u128 + borrow as u128);
    (t as Limb, (t >> (2 * Limb::BITS - 1)) as Limb)
}

/// `acc + a * b + carry`, returning `(low, high)`. Never overflows 128 bits.
#[inline(always)]
pub const fn mac(acc: Limb, a: Limb, b: Limb, carry: Limb) -> (Limb, Limb) {
    let t = acc as u128 + (a as u128) * (b as u128) + carry as u128;
    (t as Limb, (t >> Limb::BITS) as Limb)
}

/// An all-ones mask when `bit` is 1, zero when it is 0; `bit` must be 0 or 1.
#[inline(always)]
pub const fn mask_from_bit(bit: Limb) -> Limb {
    bit.wrapping_neg()
}
