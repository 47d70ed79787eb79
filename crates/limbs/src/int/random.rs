//! Random limbs from a `rand_core::CryptoRng`.

use rand_core::CryptoRng;

use crate::Limb;

/// Fills `out` with a uniformly random value below `2^bits` (bits beyond the
/// width are ignored).
pub(crate) fn fill_bits<R: CryptoRng + ?Sized>(rng: &mut R, out: &mut [Limb], bits: u32) {
    let full = (bits / Limb::BITS) as usize;
    let rem = bits % Limb::BITS;
    for (i, limb) in out.iter_mut().enumerate() {
        *limb = if i < full {
            rng.next_u64()
        } else if i == full && rem > 0 {
            rng.next_u64() & ((1 << rem) - 1)
        } else {
            0
        };
    }
}
