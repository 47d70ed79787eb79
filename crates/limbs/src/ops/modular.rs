//! Modular addition and subtraction on limb slices, constant time.
//! Inputs are below the modulus `m`; so are outputs.

use crate::Limb;
use crate::ops::add::{add_assign, cnd_add_assign, sub_assign};
use crate::ops::word::{mask_from_bit, sbb};

/// `a = (a + b) mod m`.
pub(crate) fn add_mod(a: &mut [Limb], b: &[Limb], m: &[Limb]) {
    let carry = add_assign(a, b);
    let borrow = sub_assign(a, m);
    // The sum was below m exactly when subtracting m borrowed without a carry.
    cnd_add_assign(a, m, mask_from_bit(borrow & (carry ^ 1)));
}

/// `a = (a - b) mod m`.
pub(crate) fn sub_mod(a: &mut [Limb], b: &[Limb], m: &[Limb]) {
    let borrow = sub_assign(a, b);
    cnd_add_assign(a, m, mask_from_bit(borrow));
}

/// `a = (-a) mod m`.
pub(crate) fn neg_mod(a: &mut [Limb], m: &[Limb]) {
    let mut borrow = 0;
    for x in a.iter_mut() {
        (*x, borrow) = sbb(0, *x, borrow);
    }
    // 0 - a borrows exactly when a ≠ 0; then add m back.
    cnd_add_assign(a, m, mask_from_bit(borrow));
}
