//! The portable Rust backend: always available, the reference the others
//! are tested against.

use crate::Limb;
use crate::fixed::kernels::FieldKernels;
use crate::ops::kernels::Kernels;
use crate::ops::word::mac;

/// The portable backend: Rust's `u128` arithmetic, no assembly.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl Kernels for Portable {
    #[inline]
    fn mul_1(self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
        assert_eq!(r.len(), a.len());
        let mut carry = 0;
        for (ri, &ai) in r.iter_mut().zip(a) {
            (*ri, carry) = mac(0, ai, b, carry);
        }
        carry
    }

    #[inline]
    fn addmul_1(self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
        assert_eq!(r.len(), a.len());
        let mut carry = 0;
        for (ri, &ai) in r.iter_mut().zip(a) {
            (*ri, carry) = mac(*ri, ai, b, carry);
        }
        carry
    }
}

impl FieldKernels for Portable {}
