//! Multi-buffer ("vertical") exponentiation: one digit of `L` independent
//! numbers in each vector register, `L` exponentiations at once, each lane
//! with its own modulus, base, exponent and Montgomery constant (all of
//! one digit count).
//!
//! The horizontal backends (`x86_64_ifma`, `x86_64_avx2`) spread one
//! number's digits over a vector's lanes: every multiplication then
//! shifts the accumulator across lanes, and the quotient digit of each
//! step is a serial chain through one lane. Here lane `k` of vector `j`
//! is digit `j` of number `k` ([`DigitLayout::Lanes`]): each vector
//! operation does the same work for all `L` numbers, nothing moves between
//! lanes, and the accumulator's shift by one digit is a renaming of
//! registers. The multiplier is then busy with useful products all the
//! time, which is how Intel's multi-buffer library (ipp-crypto's
//! `crypto_mb`) signs eight RSA messages a pass. The price is that `L`
//! exponentiations must be ready at once: the batch APIs above
//! (`MontyParams::pow_bounded_batch`) collect them.
//!
//! - [`ifma`]: AVX-512 IFMA, eight lanes of 52-bit digits
//!   ([`Exponentiation::IfmaBatch`](crate::backend::Exponentiation::IfmaBatch)).
//! - [`avx2`]: AVX2, four lanes of 28-bit digits
//!   ([`Exponentiation::Avx2Batch`](crate::backend::Exponentiation::Avx2Batch)).
//!
//! Both multiply with the almost-Montgomery multiplication of
//! [`super::radix`] (inputs and outputs below twice the modulus) and have a
//! dedicated square; the conversions in and out and the exponentiation
//! itself are the shared ones (`radix::run_on_stack_with`, `ops::pow`).
//!
//! # Constant time
//! Loop counts and addresses depend on the digit count only; no branch or
//! address depends on a digit or an exponent. The table lookup reads every
//! entry and selects each lane's digits with a mask computed from that
//! lane's window, in vector arithmetic. The instructions used (IFMA,
//! `vpmuludq`, vector additions, shifts, logic and moves) have
//! data-independent timing on the CPUs that have them.

pub(crate) mod avx2;
pub(crate) mod ifma;

use crate::backend::radix::{DigitLayout, Digits};

/// Digits of `bits` bits, lane `k` of vector `j` holding digit `j` of value
/// `k` (`lanes` values to an element).
const fn lanes(bits: u32, lanes: usize) -> Digits {
    Digits {
        bits,
        layout: DigitLayout::Lanes { lanes },
    }
}
