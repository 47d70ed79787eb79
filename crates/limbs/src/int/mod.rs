//! The integer types: [`Uint`](crate::Uint) (width fixed at compile time)
//! and `BoxedUint` (width chosen at run time), both getting their
//! arithmetic from the one [`Unsigned`](crate::Unsigned) trait; `SecretUint`
//! for secrets; the width helpers.

#[cfg(feature = "alloc")]
pub(crate) mod boxed;
#[cfg(feature = "rand_core")]
pub(crate) mod random;
#[cfg(feature = "alloc")]
pub(crate) mod secret;
pub(crate) mod uint;
pub(crate) mod unsigned;
pub(crate) mod width;
