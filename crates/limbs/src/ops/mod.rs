//! Algorithms on limb slices, shared by [`Uint`](crate::Uint) and
//! `BoxedUint`: each is written once here, with its scratch space passed in
//! so that the fixed-width type can keep it on the stack.

pub(crate) mod add;
pub(crate) mod ct;
pub(crate) mod div;
pub(crate) mod gcd;
pub(crate) mod karatsuba;
pub(crate) mod kernels;
pub(crate) mod modular;
pub(crate) mod montmul;
pub(crate) mod pow;
pub(crate) mod radix;
pub(crate) mod shift;
pub(crate) mod trial;
pub(crate) mod word;
