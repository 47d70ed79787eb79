//! The integer types primes are generated in.

use numcrypt_limbs::{Uint, Unsigned};

use crate::Error;

mod sealed {
    pub trait Sealed {}
}

/// An integer type a prime can be generated in: [`Uint<LIMBS>`](Uint)
/// (any fixed width) or, with the `alloc` feature,
/// [`BoxedUint`](numcrypt_limbs::BoxedUint) (width chosen at run time).
pub trait PrimeInt: Unsigned + Send + Sync + sealed::Sealed {
    /// Zero, at a width that holds `bits` bits: the type's own width for
    /// `Uint` (an error if `bits` exceeds it), the smallest whole number of
    /// limbs for `BoxedUint` (an error above [`MAX_PRIME_BITS`](crate::MAX_PRIME_BITS)).
    fn zero_for_bits(bits: u32) -> Result<Self, Error>;
}

impl<const LIMBS: usize> sealed::Sealed for Uint<LIMBS> {}

impl<const LIMBS: usize> PrimeInt for Uint<LIMBS> {
    fn zero_for_bits(bits: u32) -> Result<Self, Error> {
        if bits > Self::BITS {
            return Err(Error::BitsTooLarge { max: Self::BITS });
        }
        Ok(Self::ZERO)
    }
}

#[cfg(feature = "alloc")]
impl sealed::Sealed for numcrypt_limbs::BoxedUint {}

#[cfg(feature = "alloc")]
impl PrimeInt for numcrypt_limbs::BoxedUint {
    fn zero_for_bits(bits: u32) -> Result<Self, Error> {
        if bits > crate::MAX_PRIME_BITS {
            return Err(Error::BitsTooLarge {
                max: crate::MAX_PRIME_BITS,
            });
        }
        Ok(Self::zero_with_bits(bits))
    }
}
