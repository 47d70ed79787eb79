//! Prime fields `GF(p)` for moduli fixed at compile time, constant time,
//! `no_std`, on the kernels of `numcrypt-limbs`.
//!
//! ```
//! use numcrypt_field::{Fp25519, FpP256};
//!
//! let a = Fp25519::from_u64(7);
//! let b = Fp25519::from_u64(5);
//! let c = (a + b) * a.square(); // (7 + 5) · 49
//! assert_eq!(c, Fp25519::from_u64(588));
//! assert_eq!((a * a.invert().unwrap()), Fp25519::ONE);
//!
//! // Canonical encodings; a value ≥ p is refused.
//! let mut bytes = [0u8; FpP256::BYTES];
//! FpP256::from_u64(2).write_be_bytes(&mut bytes)?;
//! assert_eq!(FpP256::from_be_bytes(&bytes)?, FpP256::from_u64(2));
//! assert!(FpP256::from_be_bytes(&[0xff; 32]).is_err());
//! # Ok::<(), numcrypt_field::Error>(())
//! ```
//!
//! # Elements and backends
//! [`Fp<B>`] is an element; the backend `B` fixes the prime, the
//! representation and the reduction:
//! - [`PseudoMersenne<N, K, C>`](PseudoMersenne): `p = 2^K − C` on `N`
//!   saturated 64-bit limbs, the high half of a product folded in with one
//!   row of multiplications by `C · 2^(64N − K)` (`mulx`/`adcx`/`adox`
//!   assembly from [`numcrypt_limbs::fixed`] on x86_64); `2^521 − 1` is
//!   reduced at bit 521 with shifts instead;
//! - [`Unsaturated<N, R, L, K, C>`](Unsaturated): the same primes on `N`
//!   limbs of `R` bits (5×51, 9×58: fiat-crypto's representation), portable
//!   Rust; `2^521 − 1` multiplies by a three-way Karatsuba split;
//! - [`Goldilocks`]: `2^448 − 2^224 − 1` on eight 56-bit limbs, by one
//!   level of Karatsuba on `φ = 2^224` and the golden-ratio reduction
//!   `φ² ≡ φ + 1`;
//! - [`Monty<M, N>`](Monty): Montgomery multiplication, for any odd prime.
//!
//! [`fields`] lists the provided fields ([`Fp25519`], [`Fp521`],
//! [`FpP256`], …) with the representation that measured fastest here; any
//! `2^K − C` is one type alias away, and any other prime needs a
//! [`MontyModulus`] impl.
//!
//! # Lazy reduction, bounded by types
//! `a + b`, `a − b` and `−a` skip the reduction where the representation
//! has headroom, so their result is a [`LooseFp`], not an [`Fp`]. A
//! `LooseFp` goes straight into `*` or [`square`](LooseFp::square) (whose
//! carry bounds are proved for loose inputs, and which return a tight
//! [`Fp`]), or back through [`reduce`](LooseFp::reduce); it has no `+`, `−`
//! or negation, so a second addition on an unreduced value does not
//! compile:
//!
//! ```compile_fail
//! use numcrypt_field::Fp521;
//! let x = Fp521::ONE;
//! let y = (x + x) + x; // error[E0369]: cannot add `Fp521` to `LooseFp<…>`
//! ```
//!
//! Some implementations count additions at run time instead, and fail (or
//! throw) when a counter passes the limit the multiplier can absorb. That
//! turns a bound proved once into a check made on every call, which fires
//! only on the inputs and code paths a test happened to reach. Here there
//! is no counter and nothing to check: the only values that exist are tight
//! ones (any number of `*`) and loose ones that are one addition away from
//! tight, each backend proves (by constant assertions on its limb widths)
//! that its multiplication accepts every loose value, and code that would
//! add twice is rejected by the compiler before it can run.
//!
//! # Constant time
//! Every operation is constant time in the values of its operands: no
//! branch or memory index depends on them. Exponentiations
//! ([`invert`](Fp::invert), [`sqrt`](Fp::sqrt),
//! [`legendre`](Fp::legendre)) use exponents derived from `p`, which is
//! public; [`Fp::pow_vartime`] takes any public exponent. Decoding reveals
//! only whether the input was valid. `Fp` is `Copy` and cannot zeroize on
//! drop: call [`zeroize`](zeroize::Zeroize::zeroize) on copies that held
//! secrets.
//!
//! # Representations, by measurement and model
//! Each field type uses the representation that was fastest on a chain of
//! dependent operations (what a scalar multiplication does), measured on
//! AMD EPYC Zen 4 and Zen 5 and, where there is no machine, modelled on
//! aarch64 (llvm-mca's core models of the instructions the crate
//! executes); `benches/RESULTS.md` has the tables and the commands. Five
//! 51-bit limbs for [`Fp25519`], whose carries then run two steps deep
//! instead of through a serial chain; six 56-bit limbs for [`Fp336`] and
//! nine 58-bit limbs for [`Fp521`]; for [`Fp414`] eight 52-bit limbs on
//! aarch64 and seven saturated ones elsewhere ([`ByArch`]: the one field
//! whose choice differs between architectures); saturated limbs with the
//! `mulx`/`adcx`/`adox` kernels for the other `2^k − c` primes; and
//! [`Goldilocks`]' Karatsuba for [`FpGoldilocks`] (Montgomery
//! multiplication, [`FpGoldilocksMonty`], was slower at both operations).
//! The other representations ([`Fp25519Saturated`], [`Fp521Saturated`],
//! …) are provided and tested like the defaults.
#![no_std]
#![forbid(unsafe_code)]

mod backend;
mod by_arch;
mod element;
mod error;
pub mod fields;
mod goldilocks;
mod monty;
mod pm;
mod sqrt;
mod unsat;

#[cfg(test)]
extern crate std;
#[cfg(test)]
mod tests;

pub use backend::Backend;
pub use by_arch::{ByArch, Pick};
pub use element::{Fp, LooseFp};
pub use error::Error;
pub use fields::*;
pub use goldilocks::Goldilocks;
pub use monty::{Monty, MontyModulus};
pub use numcrypt_limbs::{Limb, Uint};
pub use pm::PseudoMersenne;
pub use subtle;
pub use unsat::Unsaturated;
