//! Constant-time multi-precision arithmetic for public-key cryptography.
//!
//! - [`kernels`]: the slice kernels (add, sub, `mul_1`/`addmul_1`/`submul_1`,
//!   schoolbook multiplication, dedicated squaring, Montgomery
//!   multiply/square/reduce), with a portable backend and, on x86_64 with
//!   BMI2/ADX, a `mulx`/`adcx`/`adox` assembly backend chosen at run time
//!   (on aarch64, a `mul`/`umulh` one, always).
//!   Everything else is built on them. The assembly in `backend/` is the only
//!   code in numcrypt that is allowed `unsafe_code`.
//! - [`fixed`]: array kernels for prime fields (full products, reduction
//!   modulo `2^(64 N) − c`, Montgomery multiplication), unrolled in assembly
//!   at the sizes fields use.
//! - [`Uint<LIMBS>`]: fixed width, `Copy`, on the stack, with aliases
//!   [`U256`] … [`U8192`]; [`BoxedUint`] (feature `alloc`): width chosen at
//!   run time. Both get their arithmetic from the one [`Unsigned`] trait.
//! - [`MontyParams`]/[`MontyForm`]: Montgomery arithmetic and constant-time
//!   exponentiation modulo an odd modulus, for either type.
//!
//! # Constant time
//! Every function is constant time in the values it is given — no branch or
//! memory index depends on them — unless its name ends in `_vartime`, which
//! is for public values only. Widths (limb counts) are always public, and so
//! is the `exp_bits` given to [`MontyParams::pow_bounded`]. Errors reveal
//! only what they report (for example that a modulus is even).
//!
//! ```
//! use numcrypt_limbs::{MontyParams, U256, Unsigned};
//!
//! let m: U256 = "0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff".parse()?;
//! let params = MontyParams::new(m)?;
//! let base = params.to_monty(&U256::from_u64(3));
//! let exp = m.wrapping_sub(&U256::from_u64(1));
//! // Fermat: 3^(m-1) = 1 for the prime m.
//! assert_eq!(params.from_monty(&params.pow(&base, &exp)), U256::ONE);
//! # Ok::<(), numcrypt_limbs::Error>(())
//! ```
#![no_std]
// `unsafe_code` is denied everywhere but `backend`, which holds the assembly.
#![deny(unsafe_code)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[allow(unsafe_code)]
pub mod backend;
pub mod ct_audit;
mod error;
pub mod fixed;
mod int;
pub mod kernels;
mod monty;
mod ops;

pub use backend::DataIndependentTiming;
pub use error::Error;
#[cfg(feature = "alloc")]
pub use int::boxed::BoxedUint;
#[cfg(feature = "alloc")]
pub use int::secret::SecretUint;
pub use int::uint::*;
pub use int::unsigned::Unsigned;
pub use int::width::limbs_for_bits;
pub use monty::{MontyForm, MontyParams, PowOperand};

/// A machine word of a multi-precision integer, least significant first.
pub type Limb = u64;

#[cfg(feature = "rand_core")]
pub use rand_core;
pub use subtle;
