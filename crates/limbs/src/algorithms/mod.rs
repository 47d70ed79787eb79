//! Algorithms on limb slices, shared by [`Uint`](crate::Uint) and
//! `BoxedUint`: each is written once here, with its scratch space passed in
//! so that the fixed-width type can keep it on the stack.

pub(crate) mod div;
pub(crate) mod gcd;
pub(crate) mod modular;
pub(crate) mod pow;
pub(crate) mod radix;
pub(crate) mod shift;
