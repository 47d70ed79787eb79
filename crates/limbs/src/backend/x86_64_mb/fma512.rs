//! Eight exponentiations at once on the floating-point multiplier with
//! AVX-512F: [`super::fma`]'s kernels on 512-bit registers (digit `j` of
//! the eight numbers in one register, 24 accumulators a block of columns),
//! for CPUs with AVX-512F and without IFMA, or with IFMA turned off.
//!
//! The digit counts, the contract (modulo `m' = m·k0`), the rounding they
//! need and its self-test are [`super::fma`]'s
//! (`tools/gen_mb_fma_x86_64.py --zmm 24` writes `gen/fma512.rs`); the
//! table lookup is the IFMA batch's, which has the same eight 64-bit lanes.
//! Where the core runs a 512-bit operation as two halves (Zen 4), a zmm
//! kernel issues half the instructions of the ymm one for the same
//! products, and the front end is what a busy sibling thread takes from
//! the ymm one (benches/RESULTS.md, "Batches on the FMA units").

use super::avx512::Avx512;
use super::fma::{DIGIT_BITS, Fma, digits};
use super::ifma::lookup;
use super::{AmmKernel, AmsKernel, run_lanes};
use crate::backend::radix::LimbMontgomery;
use crate::ops::montmul::ExpJob;

#[path = "gen/fma512.rs"]
mod generated;

/// Lanes of a 512-bit register: the exponentiations a pass runs.
pub(crate) const LANES: usize = 8;

/// Whether these kernels take moduli of `n` limbs (whatever the CPU).
pub(crate) fn takes(n: usize) -> bool {
    digits(n).and_then(generated::kernels).is_some()
}

/// Runs `job`, `K` exponentiations modulo moduli of one limb count, on
/// these kernels. Returns `false`, having done nothing, when `K` is not
/// [`LANES`], the CPU cannot run them or no kernel takes the size.
pub(crate) fn run<const K: usize>(limbs: &dyn LimbMontgomery, job: ExpJob<'_, '_, '_, K>) -> bool {
    let (Some(avx512), Some(fma), Some(digits)) = (
        Avx512::detect(),
        Fma::detect(),
        job.nlimbs().and_then(digits),
    ) else {
        return false;
    };
    // The window: 5 at 1024 bits, 4 above (the table of eight lanes being
    // then at most 42 KiB, at 2048 bits).
    run_lanes!(
        K, limbs, job, (avx512, fma), digits, generated::kernels(digits), lookup,
        lanes: LANES, bits: DIGIT_BITS, scratch: SCRATCH, m_prime: true,
        windows: [21 => 5, 31 => 4, 41 => 4],
    )
}

/// Scratch vectors the kernels use, at the largest size.
const SCRATCH: usize = generated::scratch_vectors(41);
