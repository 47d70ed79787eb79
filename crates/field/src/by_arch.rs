//! One field in whichever of two representations is the faster on this
//! architecture, where that differs between architectures.

use core::fmt;
use core::marker::PhantomData;

use crate::backend::{Backend, sealed};

/// The representation `A` where `A_HERE` (a constant of the limbs crate's,
/// the one place that knows the architecture, such as
/// [`numcrypt_limbs::fixed::P336_UNSATURATED`]), `B` elsewhere. Both have
/// the same limbs and the same modulus, so the choice is a constant the
/// compiler folds: every operation is the chosen backend's own, and so are
/// the bounds.
pub struct ByArch<A, B, const A_HERE: bool>(PhantomData<(A, B)>);

/// `$f` of the chosen backend.
macro_rules! chosen {
    ($f:ident($($x:expr),*)) => {
        if A_HERE {
            A::$f($($x),*)
        } else {
            B::$f($($x),*)
        }
    };
}

impl<A, B, const A_HERE: bool> Clone for ByArch<A, B, A_HERE> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, B, const A_HERE: bool> Copy for ByArch<A, B, A_HERE> {}

impl<A, B, const A_HERE: bool> Default for ByArch<A, B, A_HERE> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<A, B, const A_HERE: bool> PartialEq for ByArch<A, B, A_HERE> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<A, B, const A_HERE: bool> Eq for ByArch<A, B, A_HERE> {}

impl<A: Backend, B: Backend, const A_HERE: bool> fmt::Debug for ByArch<A, B, A_HERE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if A_HERE { A::NAME } else { B::NAME })
    }
}

impl<A, B, const A_HERE: bool> sealed::Sealed for ByArch<A, B, A_HERE> {}

impl<A, B, const A_HERE: bool> Backend for ByArch<A, B, A_HERE>
where
    A: Backend,
    B: Backend<Repr = A::Repr, Uint = A::Uint>,
{
    const LIMBS: usize = A::LIMBS;
    type Repr = A::Repr;
    const NAME: &'static str = if A_HERE { A::NAME } else { B::NAME };
    type Uint = A::Uint;
    const MODULUS: A::Uint = A::MODULUS;
    const BITS: u32 = A::BITS;
    const ZERO: A::Repr = if A_HERE { A::ZERO } else { B::ZERO };
    const ONE: A::Repr = if A_HERE { A::ONE } else { B::ONE };

    fn from_canonical(x: &A::Uint) -> A::Repr {
        chosen!(from_canonical(x))
    }

    fn to_canonical(a: &A::Repr) -> A::Uint {
        chosen!(to_canonical(a))
    }

    #[inline(always)]
    fn add(a: &A::Repr, b: &A::Repr) -> A::Repr {
        chosen!(add(a, b))
    }

    #[inline(always)]
    fn sub(a: &A::Repr, b: &A::Repr) -> A::Repr {
        chosen!(sub(a, b))
    }

    #[inline(always)]
    fn neg(a: &A::Repr) -> A::Repr {
        chosen!(neg(a))
    }

    #[inline(always)]
    fn reduce(a: &A::Repr) -> A::Repr {
        chosen!(reduce(a))
    }

    #[inline(always)]
    fn mul(a: &A::Repr, b: &A::Repr) -> A::Repr {
        chosen!(mul(a, b))
    }

    #[inline(always)]
    fn square(a: &A::Repr) -> A::Repr {
        chosen!(square(a))
    }

    #[inline(always)]
    fn mul_small(a: &A::Repr, k: u32) -> A::Repr {
        chosen!(mul_small(a, k))
    }

    #[cfg(test)]
    fn tight_max() -> A::Repr {
        chosen!(tight_max())
    }

    #[cfg(test)]
    fn loose_max() -> A::Repr {
        chosen!(loose_max())
    }

    #[cfg(test)]
    fn value(a: &A::Repr) -> num_bigint::BigUint {
        chosen!(value(a))
    }
}
