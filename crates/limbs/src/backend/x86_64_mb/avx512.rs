//! Eight exponentiations at once with AVX-512F and no IFMA: the AVX2 batch
//! kernels' 28-bit digits and arithmetic (`vpmuludq`) on 512-bit registers,
//! digit `j` of the eight numbers in one register, for the CPUs with
//! AVX-512F and without IFMA (Skylake-SP, Cascade Lake) and those run with
//! IFMA turned off.
//!
//! The digit counts, the contract (modulo `m' = m·k0`) and the algorithm
//! are [`super::avx2`]'s (`tools/gen_mb_avx2_x86_64.py --zmm 10` writes
//! `gen/avx512.rs`); the table lookup is the IFMA batch's, which has the
//! same eight 64-bit lanes, reading entries of two digits a word.

use super::ifma::lookup;
use super::{AmmKernel, AmsKernel, avx2, run_lanes};
use crate::backend::radix::LimbMontgomery;
use crate::ops::montmul::ExpJob;

#[path = "gen/avx512.rs"]
mod generated;

cpufeatures::new!(avx512f_token, "avx512f");

/// Proof that the CPU has AVX-512F (and the OS saves the registers).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

impl Avx512 {
    /// The proof, if this CPU has AVX-512F (detected once and cached).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        avx512f_token::init_get().1.then_some(Avx512(()))
    }
}

/// Lanes of a 512-bit register: the exponentiations a pass runs.
pub(crate) const LANES: usize = 8;

/// Whether these kernels take moduli of `n` limbs (whatever the CPU).
pub(crate) fn takes(n: usize) -> bool {
    avx2::digits(n).is_some()
}

/// Runs `job`, `K` exponentiations modulo moduli of one limb count, on
/// these kernels. Returns `false`, having done nothing, when `K` is not
/// [`LANES`], the CPU lacks AVX-512F or no kernel takes the size.
pub(crate) fn run<const K: usize>(limbs: &dyn LimbMontgomery, job: ExpJob<'_, '_, '_, K>) -> bool {
    let (Some(proof), Some(digits)) = (Avx512::detect(), job.nlimbs().and_then(avx2::digits))
    else {
        return false;
    };
    // The window: 5 at 1024 bits, as the AVX2 kernels'; 4 above, which
    // measured level with 5 and keeps the stack frame (the table and the
    // temporaries, of eight lanes) at most 85 KiB (2048 bits), where 5
    // took 160.
    run_lanes!(
        K, limbs, job, proof, digits, generated::kernels(digits), lookup,
        lanes: LANES, bits: avx2::DIGIT_BITS, scratch: SCRATCH, m_prime: true,
        windows: [38 => 5, 56 => 4, 75 => 4],
    )
}

/// Scratch vectors the kernels use, at the largest size.
const SCRATCH: usize = generated::scratch_vectors(75);
