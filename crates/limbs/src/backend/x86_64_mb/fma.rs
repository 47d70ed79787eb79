//! Four exponentiations at once on the floating-point multiplier: 52-bit
//! digits as doubles, digit `j` of the four numbers in one 256-bit
//! register, each 52×52-bit product split exactly into its high and low
//! halves by two FMAs rounding down (AVX2 and FMA3; no IFMA).
//!
//! A CPU without IFMA multiplies 52-bit digits on its FMA units, where
//! `vpmuludq` takes 28-bit digits: the kernels take about four-fifths of
//! the AVX2 batch kernels' time (benches/RESULTS.md, "Batches on the FMA
//! units"); [`super::fma512`] has them on zmm registers. They reduce modulo
//! `m' = m·k0` (`k0 = −m⁻¹ mod 2^52`), whose lowest digit makes each
//! quotient digit, for one digit more: a residue is `N = ⌈(64n + 54)/52⌉`
//! digits (room for `4m'`), 21 at 1024 bits, 31 at 1536, 41 at 2048. The
//! multiplication and the dedicated square are generated assembly
//! (`gen/fma.rs`, from `tools/gen_mb_fma_x86_64.py`, whose docstring has
//! the algorithm and the contract); the table lookup is the AVX2 batch's,
//! one digit a word.
//!
//! The kernels set MXCSR to round down while they run (and restore it).
//! Valgrind ignores MXCSR's rounding mode, which would make them compute
//! wrong results: [`Fma::detect`] runs their product sequence on a value
//! whose rounding shows, once, and the backend is available only where it
//! comes out right.

use core::sync::atomic::{AtomicU8, Ordering};

use super::avx2::lookup;
use super::{AmmKernel, AmsKernel, run_lanes};
use crate::backend::radix::LimbMontgomery;
use crate::ops::montmul::ExpJob;

#[path = "gen/fma.rs"]
mod generated;

cpufeatures::new!(avx2_fma, "avx2", "fma");

/// Proof that the CPU has AVX2 and FMA and rounds FMAs as MXCSR says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fma(());

/// [`Fma::detect`]'s answer: 0 until asked, then 1 (no) or 2 (yes).
static DETECTED: AtomicU8 = AtomicU8::new(0);

impl Fma {
    /// The proof, if this CPU has AVX2 and FMA and its FMAs round down
    /// under MXCSR's round-down mode (detected once and cached).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        let answer = match DETECTED.load(Ordering::Relaxed) {
            0 => {
                let yes = avx2_fma::init_get().1 && {
                    // SAFETY: the CPU has AVX2 and FMA (checked just above).
                    unsafe { rounds_down() }
                };
                let answer = if yes { 2 } else { 1 };
                DETECTED.store(answer, Ordering::Relaxed);
                answer
            }
            answer => answer,
        };
        (answer == 2).then_some(Fma(()))
    }
}

/// Whether `fma(3, 2^51 + 1, 2^104)` under round-down comes out as the
/// kernels need, `2^104 + 2^52` (to nearest it is `2^104 + 2^53`): the
/// kernels' MXCSR setting and product, on a value whose rounding shows.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
unsafe fn rounds_down() -> bool {
    let x = [3.0f64; 4];
    let y = [2_251_799_813_685_249.0f64; 4]; // 2^51 + 1
    let c = [f64::from_bits(0x4670_0000_0000_0000); 4]; // 2^104
    let mut h = [0u64; 4];
    let mut mxcsr = [0u32; 2];
    // SAFETY: the CPU has AVX2 and FMA (the caller's contract); the block
    // reads x, y and c, writes h and mxcsr (all live across it), declares
    // the registers it changes, uses no stack and restores MXCSR.
    unsafe {
        core::arch::asm!(
            "vstmxcsr [{m}]",
            "mov {t:e}, [{m}]",
            "and {t:e}, 0xffff9fff",
            "or {t:e}, 0x3f80",
            "mov [{m} + 4], {t:e}",
            "vldmxcsr [{m} + 4]",
            "vmovupd {v}, [{x}]",
            "vmovupd {w}, [{c}]",
            "vfmadd231pd {w}, {v}, [{y}]",
            "vldmxcsr [{m}]",
            "vmovupd [{h}], {w}",
            "vzeroupper",
            m = in(reg) mxcsr.as_mut_ptr(),
            x = in(reg) x.as_ptr(),
            y = in(reg) y.as_ptr(),
            c = in(reg) c.as_ptr(),
            h = in(reg) h.as_mut_ptr(),
            t = out(reg) _,
            v = out(ymm_reg) _,
            w = out(ymm_reg) _,
            options(nostack),
        );
    }
    h == [0x4670_0000_0000_0001; 4]
}

/// Lanes of a 256-bit register: the exponentiations a pass runs.
pub(crate) const LANES: usize = 4;
pub(super) const DIGIT_BITS: u32 = 52;

/// The digit count for an `n`-limb modulus, if a kernel takes it: the
/// smallest that holds `4m'`, `m' = m·k0` having up to `64n + 52` bits.
pub(super) fn digits(n: usize) -> Option<usize> {
    let digits = (64 * n + 54).div_ceil(DIGIT_BITS as usize);
    generated::kernels(digits).map(|_| digits)
}

/// Whether these kernels take moduli of `n` limbs (whatever the CPU).
pub(crate) fn takes(n: usize) -> bool {
    digits(n).is_some()
}

/// Runs `job`, `K` exponentiations modulo moduli of one limb count, on
/// these kernels. Returns `false`, having done nothing, when `K` is not
/// [`LANES`], the CPU cannot run them or no kernel takes the size.
pub(crate) fn run<const K: usize>(limbs: &dyn LimbMontgomery, job: ExpJob<'_, '_, '_, K>) -> bool {
    let (Some(proof), Some(digits)) = (Fma::detect(), job.nlimbs().and_then(digits)) else {
        return false;
    };
    // The window: 5, the table (32 entries of N vectors, one digit a word)
    // being at most 41 KiB (2048 bits).
    run_lanes!(
        K, limbs, job, proof, digits, generated::kernels(digits), lookup,
        lanes: LANES, bits: DIGIT_BITS, scratch: SCRATCH, m_prime: true,
        windows: [21 => 5, 31 => 5, 41 => 4],
    )
}

/// Scratch vectors the kernels use, at the largest size.
const SCRATCH: usize = generated::scratch_vectors(41);
