//! Eight exponentiations at once with AVX-512F and no IFMA: the AVX2 batch
//! kernels' 28-bit digits and arithmetic (`vpmuludq`) on 512-bit registers,
//! digit `j` of the eight numbers in one register, for the CPUs with
//! AVX-512F and without IFMA (Skylake-SP, Cascade Lake) and those run with
//! IFMA turned off.
//!
//! The digit counts, the contract and the algorithm are [`super::avx2`]'s
//! (`tools/gen_mb_avx2_x86_64.py --zmm 10` writes `gen/avx512.rs`); the
//! table lookup is the IFMA batch's, which has the same eight 64-bit lanes.

use super::ifma::lookup;
use super::{AmmKernel, AmsKernel, LaneAmm, avx2};
use crate::backend::radix::{LimbMontgomery, run_on_stack_with};
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
    let (Some(avx512), Some(n)) = (Avx512::detect(), job.nlimbs()) else {
        return false;
    };
    let Some(digits) = avx2::digits(n).filter(|_| K == LANES) else {
        return false;
    };
    let Some((amm, ams)) = generated::kernels(digits) else {
        return false;
    };
    macro_rules! sizes {
        ($($d:literal => $window:literal),*) => {
            match digits {
                $($d => {
                    let mut arith = LaneAmm::<_, LANES, { avx2::DIGIT_BITS }, $d, $window, SCRATCH>::new(
                        avx512, amm, ams, lookup::<$d>,
                    );
                    const S: usize = (1 << $window) + 2;
                    run_on_stack_with::<1, $d, K, S, _>(limbs, &mut arith, $d, job);
                    true
                })*
                _ => false,
            }
        };
    }
    // The window: 5, as the AVX2 kernels'; the table of eight lanes is
    // twice theirs, at most 148 KiB (2048 bits), on the stack.
    sizes!(37 => 5, 55 => 5, 74 => 5)
}

/// Scratch vectors the kernels use, at the largest size.
const SCRATCH: usize = generated::scratch_vectors(74);
