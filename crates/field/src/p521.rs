//! `2^521 − 1` in whichever of its two representations is faster on this
//! architecture ([`fixed::P521_UNSATURATED`]): the backend of
//! [`Fp521`](crate::Fp521).

use core::fmt;

use numcrypt_limbs::{Limb, Uint, fixed};

use crate::backend::{Backend, sealed};
use crate::{PseudoMersenne, Unsaturated};

type Unsat = Unsaturated<9, 58, 9, 521, 1>;
type Sat = PseudoMersenne<9, 521, 1>;

/// `2^521 − 1` on nine 58-bit limbs ([`Unsaturated`]) where
/// [`fixed::P521_UNSATURATED`] says they are the faster (x86_64), on nine
/// saturated limbs ([`PseudoMersenne`]) elsewhere. Both keep nine limbs, so
/// the choice is a constant the compiler folds: every operation is the
/// chosen backend's own.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct P521;

/// `$f` of the chosen backend.
macro_rules! chosen {
    ($f:ident($($x:expr),*)) => {
        if fixed::P521_UNSATURATED {
            Unsat::$f($($x),*)
        } else {
            Sat::$f($($x),*)
        }
    };
}

impl fmt::Debug for P521 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::NAME)
    }
}

impl sealed::Sealed for P521 {}

impl Backend for P521 {
    const LIMBS: usize = 9;
    type Repr = [Limb; 9];
    const NAME: &'static str = if fixed::P521_UNSATURATED {
        "2^521 - 1 (nine 58-bit limbs)"
    } else {
        "2^521 - 1 (nine saturated limbs)"
    };
    type Uint = Uint<9>;
    const MODULUS: Uint<9> = Sat::MODULUS;
    const BITS: u32 = 521;
    const ZERO: [Limb; 9] = [0; 9];
    const ONE: [Limb; 9] = if fixed::P521_UNSATURATED {
        Unsat::ONE
    } else {
        Sat::ONE
    };

    fn from_canonical(x: &Uint<9>) -> [Limb; 9] {
        chosen!(from_canonical(x))
    }

    fn to_canonical(a: &[Limb; 9]) -> Uint<9> {
        chosen!(to_canonical(a))
    }

    #[inline(always)]
    fn add(a: &[Limb; 9], b: &[Limb; 9]) -> [Limb; 9] {
        chosen!(add(a, b))
    }

    #[inline(always)]
    fn sub(a: &[Limb; 9], b: &[Limb; 9]) -> [Limb; 9] {
        chosen!(sub(a, b))
    }

    #[inline(always)]
    fn neg(a: &[Limb; 9]) -> [Limb; 9] {
        chosen!(neg(a))
    }

    #[inline(always)]
    fn reduce(a: &[Limb; 9]) -> [Limb; 9] {
        chosen!(reduce(a))
    }

    #[inline(always)]
    fn mul(a: &[Limb; 9], b: &[Limb; 9]) -> [Limb; 9] {
        chosen!(mul(a, b))
    }

    #[inline(always)]
    fn square(a: &[Limb; 9]) -> [Limb; 9] {
        chosen!(square(a))
    }

    #[inline(always)]
    fn mul_small(a: &[Limb; 9], k: u32) -> [Limb; 9] {
        chosen!(mul_small(a, k))
    }

    #[cfg(test)]
    fn tight_max() -> [Limb; 9] {
        chosen!(tight_max())
    }

    #[cfg(test)]
    fn loose_max() -> [Limb; 9] {
        chosen!(loose_max())
    }

    #[cfg(test)]
    fn value(a: &[Limb; 9]) -> num_bigint::BigUint {
        chosen!(value(a))
    }
}
