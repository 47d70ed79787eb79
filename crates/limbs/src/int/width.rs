//! Widths: how many limbs a size takes. (Moving a value between widths
//! and into byte strings of a chosen length are `BoxedUint`'s `resize`,
//! `at_width`, `to_be_bytes_len` and `to_be_bytes_minimal_vartime`.)

use crate::Limb;

/// Limbs needed for `bits` bits (at least one).
pub const fn limbs_for_bits(bits: u32) -> usize {
    let n = bits.div_ceil(Limb::BITS) as usize;
    if n == 0 { 1 } else { n }
}
