//! Kernels in x86_64's baseline instructions (one-operand `mul`, no BMI2,
//! ADX or AVX): every x86_64 CPU runs them, so they need no detection and
//! take no branch to choose them, and `NUMCRYPT_DISABLE` does not apply.
//! They exist where assembly of this kind beats what the compiler makes of
//! the portable code (benches/RESULTS.md, "Goldilocks without BMI2").

#[path = "gen/goldilocks.rs"]
pub(crate) mod goldilocks;
