//! CPU-specific code, and the one place that decides which of it runs.
//!
//! The only place in numcrypt with `unsafe`: inline assembly and intrinsics,
//! each block with its `// SAFETY:` argument. Each backend is tested against
//! the portable code in the same test run.
//!
//! - `x86_64_adx`: the slice and field kernels with `mulx`/`adcx`/`adox`
//!   (BMI2 and ADX).
//! - `x86_64_base`: field kernels in x86_64's baseline instructions, which
//!   every x86_64 CPU runs: nothing to detect or choose (Goldilocks).
//! - `x86_64_ifma`: whole exponentiations in radix 2^52 with AVX-512 IFMA,
//!   in two variants: 256-bit registers ([`Exponentiation::Ifma256`]) and
//!   512-bit ones ([`Exponentiation::Ifma512`]).
//! - `x86_64_avx2`: whole exponentiations in radix 2^28 with AVX2
//!   ([`Exponentiation::Avx2`]) and with AVX-512F on 512-bit registers
//!   ([`Exponentiation::Avx512`]), and the 256-bit table lookup.
//! - `x86_64_mb`: multi-buffer ("vertical") exponentiations, one digit of
//!   several independent numbers in each register, for batches: eight
//!   lanes of radix 2^52 with AVX-512 IFMA ([`Exponentiation::IfmaBatch`]),
//!   four of radix 2^28 with AVX2 ([`Exponentiation::Avx2Batch`]), four
//!   or eight of radix 2^52 on the FMA units ([`Exponentiation::FmaBatch`],
//!   [`Exponentiation::Fma512Batch`]), eight of radix 2^28 with AVX-512F
//!   and no IFMA ([`Exponentiation::Avx512Batch`]).
//! - `radix`: what the exponentiations in a radix of their own share (the
//!   conversions in and out).
//! - `aarch64`: the slice kernels with `mul`/`umulh`, and whole
//!   exponentiations in radix 2^28 with NEON ([`Exponentiation::Neon`]).
//!
//! # The choice
//! [`selection`] makes it, once per process, from three things:
//! 1. what the CPU has (CPUID, through `cpufeatures`);
//! 2. the environment variable `NUMCRYPT_DISABLE` (read under the `std`
//!    feature only): a comma-separated list of `adx`, `avx2` (AVX2
//!    exponentiation, the batch kernels included), `ifma` (every IFMA
//!    kernel), `ifma256`, `ifma512`, `ifma-batch`, `avx2-batch`,
//!    `fma-batch` (both FMA batch kernels), `fma512-batch`, `fma-pair`,
//!    `avx512-batch`, `avx512-radix28`, `ifma-square` (the IFMA kernels'
//!    dedicated squares, 256- and 512-bit), `avx2-square` (those of the
//!    radix-2^28 kernels, AVX2's and AVX-512F's),
//!    `batch` (every batch kernel),
//!    `avx512` (every AVX-512 kernel: IFMA, and AVX-512F's in radix 2^28),
//!    `neon`, each of which turns that backend off (and `race`, which
//!    turns the races between backends off: see below)
//!    for the whole process, as `OPENSSL_ia32cap` does for OpenSSL and
//!    AWS-LC; unknown words are ignored;
//! 3. for the exponentiation, which backend is fastest on this CPU at each
//!    modulus size and shape: `preference`'s table of measured CPUs, or,
//!    on a CPU (or a size) nobody measured, a calibration that times the
//!    backends on public inputs the first time a size is needed (with
//!    `std`); and for NEON's field kernels, `neon_rule`. Where a row names
//!    backends whose order changes with the machine's load, they race
//!    (`race`, with `std`): each exponentiation is timed and the fastest
//!    runs.
//!
//! Everything else asks [`selection`]: the slice and field kernels'
//! `dispatch!`, the exponentiations, and the benches, which print it.

use core::fmt;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::Limb;
use crate::ops::montmul::ExpJob;

pub use cpu::Cpu;
pub use race::Racers;

/// The shape that stands for a batch where the selection and
/// `time_variant_rounds` (with `std`) take a number of exponentiations at once
/// (1, 2 or this): eight, run as many a pass as a batch kernel has lanes,
/// or in pairs on any other backend.
pub const BATCH: usize = 8;

/// The shape that stands for one exponentiation to a short public exponent
/// (at most [`SHORT_EXPONENT_BITS`] bits, as RSA's `e`), where the selection
/// and `time_variant_rounds` take a number of exponentiations at once. A
/// backend in a radix of its own pays a conversion in and out (about five
/// multiplications) that a full-width exponent hides and seventeen squarings
/// do not.
pub const SHORT_EXPONENT: usize = 9;

/// The longest exponent [`SHORT_EXPONENT`] stands for: RSA's `e = 65537`
/// and below (benches/RESULTS.md, "Short public exponents": past it the
/// conversions weigh little).
pub const SHORT_EXPONENT_BITS: u32 = 17;
#[cfg(feature = "std")]
pub use preference::{
    ChoiceVerdict, PairedRatio, SelectionCheck, check_choice, selection_check, time_variant_rounds,
};

/// How much slower than the fastest backend the selection's choice may run
/// at a size before a selection check (`numcrypt speed --variants`, the
/// `exp_variants` bench; `check_choice` with `std`) flags it: issue 34's
/// 3 %.
pub const SELECTION_TOLERANCE: f64 = 1.03;

/// The slice-kernel backends of this architecture, by name: tests and
/// benches force a path with them ([`kernels`](crate::kernels) re-exports
/// them).
pub mod slice_kernels {
    #[cfg(target_arch = "aarch64")]
    pub use super::aarch64::Aarch64;
    pub use super::portable::Portable;
    #[cfg(target_arch = "x86_64")]
    pub use super::x86_64_adx::Adx;
}

#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
))]
pub(crate) mod radix;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_adx;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_base;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_ifma;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64_mb;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;

pub(crate) mod barrier;
pub(crate) mod cpu;
pub(crate) mod portable;
pub(crate) mod preference;
pub(crate) mod race;
#[cfg(feature = "ct-audit")]
pub(crate) mod valgrind;

/// The slice kernels (and the field kernels built on them) that run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimbKernels {
    /// Portable Rust.
    Portable,
    /// x86_64 `mulx`/`adcx`/`adox` assembly.
    Adx,
    /// aarch64 `mul`/`umulh` assembly.
    Aarch64,
}

/// An implementation of constant-time modular exponentiation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Exponentiation {
    /// Montgomery multiplication on the slice kernels ([`LimbKernels`]).
    LimbKernels,
    /// Radix 2^52 with AVX-512 IFMA on 256-bit (ymm) registers, generated
    /// assembly; moduli of 16 to 51 limbs, 16 to 38 limbs for two
    /// interleaved exponentiations.
    Ifma256,
    /// [`Ifma256`](Self::Ifma256) for two interleaved exponentiations only,
    /// each quotient digit computed in the vector unit rather than by
    /// scalar code (which shares the IFMA ports on Intel cores); 16 to 38
    /// limbs.
    Ifma256VectorQuotient,
    /// Radix 2^52 with AVX-512 IFMA on 512-bit (zmm) registers; moduli of
    /// 16 to 103 limbs, 16 to 51 for two interleaved exponentiations.
    Ifma512,
    /// Radix 2^28 with AVX2, generated assembly; moduli of 16 to 45 limbs
    /// (two exponentiations of a pair run one multiplication after the
    /// other).
    Avx2,
    /// Radix 2^28 with aarch64 NEON (`umlal`); moduli of 16 to 64 limbs
    /// (two exponentiations of a pair run one multiplication after the
    /// other).
    Neon,
    /// Multi-buffer: eight exponentiations at once, each in a lane of
    /// 512-bit registers, radix 2^52 with AVX-512 IFMA, generated assembly;
    /// moduli of 16, 24, 32 and 48 limbs (1024 to 3072 bits). For
    /// batches ([`MontyParams::pow_bounded_batch`](crate::MontyParams::pow_bounded_batch)).
    IfmaBatch,
    /// Multi-buffer: four exponentiations at once, each in a lane of
    /// 256-bit registers, radix 2^28 with AVX2, generated assembly; moduli
    /// of 16, 24 and 32 limbs. For batches.
    Avx2Batch,
    /// Multi-buffer: eight exponentiations at once, each in a lane of
    /// 512-bit registers, radix 2^28 with AVX-512F and no IFMA (the
    /// [`Avx2Batch`](Self::Avx2Batch) kernels on zmm registers); moduli of
    /// 16, 24 and 32 limbs. For batches where IFMA is missing or off.
    Avx512Batch,
    /// Multi-buffer: four exponentiations at once, each in a lane of
    /// 256-bit registers, radix 2^52 on the FMA units (AVX2 and FMA3: each
    /// digit product split exactly by two FMAs rounding down), generated
    /// assembly; moduli of 16, 24 and 32 limbs. For batches where IFMA is
    /// missing or off.
    FmaBatch,
    /// Multi-buffer: eight exponentiations at once, each in a lane of
    /// 512-bit registers, radix 2^52 on the FMA units with AVX-512F (the
    /// [`FmaBatch`](Self::FmaBatch) kernels on zmm registers); moduli of
    /// 16, 24 and 32 limbs. For batches where IFMA is missing or off.
    Fma512Batch,
    /// Multi-buffer on 128-bit registers: two exponentiations at once, the
    /// [`FmaBatch`](Self::FmaBatch) kernels with two lanes; moduli of 16,
    /// 24 and 32 limbs. For pairs (a CRT's two halves) where the vector
    /// units are 128 bits wide, so that four lanes run no faster a lane
    /// than two.
    FmaPair,
    /// Radix 2^28 with AVX-512F on 512-bit (zmm) registers: the
    /// [`Avx2`](Self::Avx2) algorithm with eight digits a vector, and a
    /// pair's two multiplications interleaved in one kernel; moduli of 16
    /// to 45 limbs, 16 to 41 for two at once. For CPUs with AVX-512F and
    /// no IFMA (or IFMA off).
    Avx512,
    /// Not a kernel: a pair's two exponentiations one after the other, each
    /// on what [`Selection::exponentiation`] chooses for its size alone;
    /// for pairs (and batches, in pairs) only. Where one exponentiation at
    /// a time fills the multiplier, interleaving two only adds register
    /// pressure.
    Apart,
}

impl Exponentiation {
    /// Every implementation, in a fixed order (the calibration's cache
    /// numbers them by it).
    pub const ALL: [Self; 14] = [
        Self::LimbKernels,
        Self::Ifma256,
        Self::Ifma256VectorQuotient,
        Self::Ifma512,
        Self::Avx2,
        Self::Neon,
        Self::IfmaBatch,
        Self::Avx2Batch,
        Self::Apart,
        Self::Avx512Batch,
        Self::Avx512,
        Self::FmaBatch,
        Self::Fma512Batch,
        Self::FmaPair,
    ];

    /// Whether this implementation can run `interleave` exponentiations
    /// at once modulo `nlimbs`-limb moduli in this process: the CPU has it,
    /// `NUMCRYPT_DISABLE` does not name it, and it takes the size. For the
    /// single kernels `interleave` is 1 or 2, for the batch kernels their
    /// [`lanes`](Self::lanes); [`BATCH`] asks for a batch, which a batch
    /// kernel runs in passes of its lanes and any other backend in pairs;
    /// [`SHORT_EXPONENT`] asks for one exponentiation.
    pub fn available(self, nlimbs: usize, interleave: usize) -> bool {
        let interleave = match (interleave, self.lanes()) {
            (BATCH, 1) => 2,
            (BATCH, lanes) => lanes,
            (SHORT_EXPONENT, _) => 1,
            _ => interleave,
        };
        let selection = selection();
        match self {
            Self::LimbKernels => nlimbs > 0 && (1..=2).contains(&interleave),
            Self::Ifma256 | Self::Ifma256VectorQuotient | Self::Ifma512 => {
                selection.ifma_usable(self) && ifma_takes(self, nlimbs, interleave)
            }
            Self::Avx2 => {
                selection.avx2_usable() && avx2_takes(nlimbs) && (1..=2).contains(&interleave)
            }
            Self::Avx512 => selection.avx512_usable() && avx512_takes(nlimbs, interleave),
            Self::Neon => {
                selection.neon_usable() && neon_takes(nlimbs) && (1..=2).contains(&interleave)
            }
            Self::IfmaBatch
            | Self::Avx2Batch
            | Self::Avx512Batch
            | Self::FmaBatch
            | Self::Fma512Batch
            | Self::FmaPair => {
                selection.batch_usable(self)
                    && batch_takes(self, nlimbs)
                    && interleave == self.lanes()
            }
            Self::Apart => nlimbs > 0 && interleave == 2,
        }
    }

    /// Whether this runs a pair's two exponentiations in one pass (as one
    /// job of a kernel in a radix of its own), rather than one after the
    /// other.
    pub(crate) fn interleaves(self) -> bool {
        !matches!(self, Self::LimbKernels | Self::Apart)
    }

    /// Exponentiations one pass runs: the lanes of a batch kernel, 1 for the
    /// others.
    pub const fn lanes(self) -> usize {
        match self {
            Self::IfmaBatch | Self::Avx512Batch | Self::Fma512Batch => 8,
            Self::Avx2Batch | Self::FmaBatch => 4,
            Self::FmaPair => 2,
            Self::LimbKernels
            | Self::Ifma256
            | Self::Ifma256VectorQuotient
            | Self::Ifma512
            | Self::Avx2
            | Self::Avx512
            | Self::Neon
            | Self::Apart => 1,
        }
    }

    /// A short name, as the benches print it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::LimbKernels => "limb kernels",
            Self::Ifma256 => "AVX-512 IFMA, 256-bit registers",
            Self::Ifma256VectorQuotient => "AVX-512 IFMA, 256-bit, vector quotient",
            Self::Ifma512 => "AVX-512 IFMA, 512-bit registers",
            Self::Avx2 => "AVX2, radix 2^28",
            Self::Avx512 => "AVX-512F, radix 2^28",
            Self::Neon => "NEON, radix 2^28",
            Self::IfmaBatch => "AVX-512 IFMA, 8 lanes",
            Self::Avx2Batch => "AVX2, 4 lanes",
            Self::Avx512Batch => "AVX-512F, 8 lanes",
            Self::FmaBatch => "FMA, 4 lanes",
            Self::Fma512Batch => "FMA, 8 lanes (AVX-512F)",
            Self::FmaPair => "FMA, 2 lanes",
            Self::Apart => "apart, each on the single choice",
        }
    }

    /// [`name`](Self::name) as a racer of `interleave` at once: in a
    /// batch's race a backend without lanes stands for pairs, on the pair
    /// choice.
    pub const fn racer_name(self, interleave: usize) -> &'static str {
        match interleave == BATCH && self.lanes() == 1 {
            true => "pairs, on the pair choice",
            false => self.name(),
        }
    }
}

/// Runs `$body` with `$k` bound to the slice kernels [`selection`] chose.
macro_rules! dispatch {
    ($k:ident => $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        if let Some($k) = $crate::backend::adx() {
            return $body;
        }
        // Every aarch64 CPU has what the `Aarch64` backend needs.
        #[cfg(target_arch = "aarch64")]
        let $k = $crate::backend::aarch64::Aarch64::new();
        #[cfg(not(target_arch = "aarch64"))]
        let $k = $crate::backend::portable::Portable;
        $body
    }};
}
pub(crate) use dispatch;

/// The `mulx`/`adx` backend, if [`selection`] chose it.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn adx() -> Option<x86_64_adx::Adx> {
    match selection().limb_kernels() {
        LimbKernels::Adx => x86_64_adx::Adx::detect(),
        _ => None,
    }
}

#[cfg(target_arch = "x86_64")]
fn ifma_variant(e: Exponentiation) -> Option<x86_64_ifma::Variant> {
    match e {
        Exponentiation::Ifma256 => Some(x86_64_ifma::Variant::Ymm),
        Exponentiation::Ifma256VectorQuotient => Some(x86_64_ifma::Variant::YmmVectorQuotient),
        Exponentiation::Ifma512 => Some(x86_64_ifma::Variant::Zmm),
        _ => None,
    }
}

#[cfg(target_arch = "x86_64")]
fn ifma_takes(e: Exponentiation, nlimbs: usize, interleave: usize) -> bool {
    ifma_variant(e).is_some_and(|v| x86_64_ifma::takes(v, nlimbs, interleave))
}

#[cfg(not(target_arch = "x86_64"))]
fn ifma_takes(_: Exponentiation, _: usize, _: usize) -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn avx2_takes(nlimbs: usize) -> bool {
    x86_64_avx2::takes(nlimbs)
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_takes(_: usize) -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn avx512_takes(nlimbs: usize, interleave: usize) -> bool {
    x86_64_avx2::zmm::takes(nlimbs, interleave)
}

#[cfg(not(target_arch = "x86_64"))]
fn avx512_takes(_: usize, _: usize) -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn batch_takes(e: Exponentiation, nlimbs: usize) -> bool {
    match e {
        Exponentiation::IfmaBatch => x86_64_mb::ifma::takes(nlimbs),
        Exponentiation::Avx2Batch => x86_64_mb::avx2::takes(nlimbs),
        Exponentiation::Avx512Batch => x86_64_mb::avx512::takes(nlimbs),
        Exponentiation::FmaBatch => x86_64_mb::fma::takes(nlimbs),
        Exponentiation::Fma512Batch => x86_64_mb::fma512::takes(nlimbs),
        Exponentiation::FmaPair => x86_64_mb::fma128::takes(nlimbs),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn batch_takes(_: Exponentiation, _: usize) -> bool {
    false
}

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
fn neon_takes(nlimbs: usize) -> bool {
    aarch64::neon::takes(nlimbs)
}

#[cfg(not(all(target_arch = "aarch64", target_feature = "neon")))]
fn neon_takes(_: usize) -> bool {
    false
}

/// Runs `job` on `backend` (one of the implementations in a radix of their
/// own, which must take the size: see [`Exponentiation::available`]),
/// converting in and out (see `radix`). Returns `false`, having done
/// nothing, if it cannot (always, for [`Exponentiation::LimbKernels`] and
/// [`Exponentiation::Apart`]). The
/// conversions run on the slice kernels [`selection`] chose.
pub(crate) fn run_exponentiation<const K: usize>(
    backend: Exponentiation,
    job: ExpJob<'_, '_, '_, K>,
) -> bool {
    if matches!(backend, Exponentiation::LimbKernels | Exponentiation::Apart) {
        return false;
    }
    run_vector_exponentiation(backend, job)
}

#[cfg(target_arch = "x86_64")]
fn run_vector_exponentiation<const K: usize>(
    backend: Exponentiation,
    job: ExpJob<'_, '_, '_, K>,
) -> bool {
    dispatch!(k => match (backend, ifma_variant(backend)) {
        (_, Some(variant)) => x86_64_ifma::run(&k, variant, selection().ifma_squares(), job),
        (Exponentiation::Avx2, None) => x86_64_avx2::run(&k, selection().avx2_squares(), job),
        (Exponentiation::Avx512, None) => x86_64_avx2::zmm::run(&k, selection().avx2_squares(), job),
        (Exponentiation::IfmaBatch, None) => x86_64_mb::ifma::run(&k, job),
        (Exponentiation::Avx2Batch, None) => x86_64_mb::avx2::run(&k, job),
        (Exponentiation::Avx512Batch, None) => x86_64_mb::avx512::run(&k, job),
        (Exponentiation::FmaBatch, None) => x86_64_mb::fma::run(&k, job),
        (Exponentiation::Fma512Batch, None) => x86_64_mb::fma512::run(&k, job),
        (Exponentiation::FmaPair, None) => x86_64_mb::fma128::run(&k, job),
        _ => false,
    })
}

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
fn run_vector_exponentiation<const K: usize>(
    backend: Exponentiation,
    job: ExpJob<'_, '_, '_, K>,
) -> bool {
    backend == Exponentiation::Neon && dispatch!(k => aarch64::neon::run(&k, job))
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
)))]
fn run_vector_exponentiation<const K: usize>(_: Exponentiation, _: ExpJob<'_, '_, '_, K>) -> bool {
    false
}

/// The column sums `H_j` of `a·b` modulo `2^bits − c` on `N` limbs of
/// `radix` bits (the field crate's unsaturated representations, limbs
/// below `2^(radix + 2)`): `Σ H_j 2^(radix·j) ≡ a·b`, each below
/// `2^(2 radix + 8)`, from a kernel of this CPU's where the rule picks one
/// (NEON, on the cores [`neon_rule`] picks, for `2^255 − 19` on 5×51,
/// `2^336 − 3` on 6×56 and `2^521 − 1` on 9×58); `None` elsewhere, where
/// the caller's own columns are the faster.
#[inline]
pub(crate) fn pm_columns<const N: usize>(
    radix: u32,
    bits: u32,
    c: u64,
    a: &[Limb; N],
    b: &[Limb; N],
) -> Option<[u128; N]> {
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    if selection().neon_preferred() {
        use aarch64::{neon_field, neon_field_gen};
        return match (N, radix, bits, c) {
            (5, 51, 255, 19) => digit_pairs(a, b, 26, neon_field::mul_columns),
            (6, 56, 336, 3) => digit_pairs(a, b, 28, neon_field_gen::p336_columns),
            (9, 58, 521, 1) => digit_pairs(a, b, 29, neon_field_gen::p521_columns),
            _ => None,
        };
    }
    let _ = (radix, bits, c, a, b);
    None
}

/// Whether `2^414 − 17` is faster on eight 52-bit limbs than on seven
/// saturated ones on this architecture. aarch64: yes, in llvm-mca's models
/// of the nine cores modelled (the field crate's `tools/trace_aarch64.py`; on
/// Neoverse N1 the multiplication alone models slower, the square much
/// faster). x86_64: no, measured: with the `mulx` kernels the saturated
/// multiplication wins on a chain and the two come out even over a
/// ladder's mix (benches/RESULTS.md). Elsewhere not measured, and the
/// saturated limbs stay.
pub(crate) const P414_UNSATURATED: bool = cfg!(target_arch = "aarch64");

/// `a·b` (or `a²` for `b = None`) modulo `2^521 − 1` on nine 58-bit limbs,
/// carried to tight limbs, from this CPU's kernel where it has one (the
/// `mulx` kernels of the `Adx` backend: product scanning, each column
/// carried as it ends); `None` elsewhere, where the caller's own
/// columns serve.
#[inline]
pub(crate) fn p521_unsat(a: &[Limb; 9], b: Option<&[Limb; 9]>) -> Option<[Limb; 9]> {
    #[cfg(target_arch = "x86_64")]
    if let Some(cpu) = adx() {
        use x86_64_adx::field;
        return Some(match b {
            Some(b) => field::p521_unsat_mul(cpu, a, b),
            None => field::p521_unsat_sqr(cpu, a),
        });
    }
    let _ = (a, b);
    None
}

/// `a·b` (or `a²` for `b = None`) modulo Goldilocks `2^448 − 2^224 − 1` on
/// eight 56-bit limbs (each below `fixed::GOLDILOCKS_LOOSE`), carried: limbs
/// below `2^56`, but limbs 1 and 5 below `2^56 + 2^8`. From the x86_64
/// kernel, which every
/// x86_64 CPU runs (so on x86_64 this is always `Some`, and the caller's
/// fallback folds away); `None` elsewhere.
#[inline(always)]
pub(crate) fn goldilocks(a: &[Limb; 8], b: Option<&[Limb; 8]>) -> Option<[Limb; 8]> {
    #[cfg(target_arch = "x86_64")]
    return Some(match b {
        Some(b) => x86_64_base::goldilocks::mul(a, b),
        None => x86_64_base::goldilocks::sqr(a),
    });
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b);
        None
    }
}

/// The column sums `H_j` of `a·b` modulo Goldilocks `2^448 − 2^224 − 1` on
/// eight 56-bit limbs (each below `2^58`): `Σ H_j 2^(56j) ≡ a·b`, each below
/// `2^92`, from a kernel of this CPU's where the rule picks one (NEON, on
/// the cores [`neon_rule`] picks); `None` elsewhere.
#[inline]
pub(crate) fn goldilocks_columns(a: &[Limb; 8], b: &[Limb; 8]) -> Option<[u128; 8]> {
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    if selection().neon_preferred() {
        return digit_pairs(a, b, 28, aarch64::neon_field_gen::goldilocks_columns);
    }
    let _ = (a, b);
    None
}

/// A NEON field kernel's digit columns (`2N` of them, limb `j`'s at digits
/// `2j` and `2j + 1`, the second `shift` bits up) as `N` limb columns;
/// `None` if the kernel is not for `N` limbs.
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
#[inline(always)]
fn digit_pairs<const N: usize, const M: usize, const D: usize>(
    a: &[Limb; N],
    b: &[Limb; N],
    shift: u32,
    kernel: impl Fn(&[Limb; M], &[Limb; M]) -> [u64; D],
) -> Option<[u128; N]> {
    let a = <&[Limb; M]>::try_from(&a[..]).ok()?;
    let b = <&[Limb; M]>::try_from(&b[..]).ok()?;
    let h = kernel(a, b);
    Some(core::array::from_fn(|j| {
        h[2 * j] as u128 + ((h[2 * j + 1] as u128) << shift)
    }))
}

/// Data-independent timing, switched on for as long as this guard lives,
/// where the CPU has a switch for it: `PSTATE.DIT` on aarch64 CPUs with
/// FEAT_DIT (Armv8.4 and later: Neoverse N2/V1/V2, Apple M1 and later, …),
/// as BoringSSL, AWS-LC and Go do. Dropping it restores the state it found
/// (so guards nest). Elsewhere it does nothing: x86_64 has no such switch
/// that user code can set (Intel's DOITM is a privileged MSR), and older
/// Arm cores make no promise either way.
///
/// Every secret operation in numcrypt holds one (the constant-time
/// exponentiations here; private-key operations, key and prime generation
/// above); hold one yourself around other code that handles secrets.
/// The flag is per thread, so the guard is neither `Send` nor `Sync`.
#[must_use = "data-independent timing is on only while the guard lives"]
pub struct DataIndependentTiming {
    #[cfg(target_arch = "aarch64")]
    restore: Option<aarch64::dit::Dit>,
    _per_thread: core::marker::PhantomData<*const ()>,
}

impl DataIndependentTiming {
    /// Switches data-independent timing on (where the CPU has a switch).
    #[inline]
    pub fn enable() -> Self {
        #[cfg(target_arch = "aarch64")]
        {
            // Set it only if it was clear, and then clear it again on drop.
            let restore = aarch64::dit::Dit::detect().filter(|&dit| !aarch64::dit::is_set(dit));
            if let Some(dit) = restore {
                aarch64::dit::set(dit, true);
            }
            Self {
                restore,
                _per_thread: core::marker::PhantomData,
            }
        }
        #[cfg(not(target_arch = "aarch64"))]
        Self {
            _per_thread: core::marker::PhantomData,
        }
    }

    /// Whether this CPU has a switch for data-independent timing.
    pub fn is_available() -> bool {
        #[cfg(target_arch = "aarch64")]
        return aarch64::dit::Dit::detect().is_some();
        #[cfg(not(target_arch = "aarch64"))]
        false
    }

    /// Whether the switch is on now, on this thread (`false` where there is
    /// no switch).
    pub fn is_enabled() -> bool {
        #[cfg(target_arch = "aarch64")]
        return aarch64::dit::Dit::detect().is_some_and(aarch64::dit::is_set);
        #[cfg(not(target_arch = "aarch64"))]
        false
    }
}

impl Drop for DataIndependentTiming {
    #[inline]
    fn drop(&mut self) {
        #[cfg(target_arch = "aarch64")]
        if let Some(dit) = self.restore {
            aarch64::dit::set(dit, false);
        }
    }
}

impl fmt::Debug for DataIndependentTiming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataIndependentTiming")
            .field("enabled", &Self::is_enabled())
            .finish()
    }
}

/// What `NUMCRYPT_DISABLE` turned off.
const DISABLE_ADX: u32 = 1;
const DISABLE_IFMA256: u32 = 1 << 1;
const DISABLE_IFMA512: u32 = 1 << 2;
const DISABLE_AVX2: u32 = 1 << 3;
const DISABLE_NEON: u32 = 1 << 4;
const DISABLE_IFMA_BATCH: u32 = 1 << 5;
const DISABLE_AVX2_BATCH: u32 = 1 << 6;
const DISABLE_AVX512_BATCH: u32 = 1 << 7;
const DISABLE_AVX512_RADIX28: u32 = 1 << 12;
const DISABLE_IFMA_SQUARE: u32 = 1 << 15;
const DISABLE_AVX2_SQUARE: u32 = 1 << 24;
const DISABLE_RACE: u32 = 1 << 25;
const DISABLE_FMA_BATCH: u32 = 1 << 26;
const DISABLE_FMA512_BATCH: u32 = 1 << 28;
const DISABLE_FMA_PAIR: u32 = 1 << 29;

/// What the CPU has.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64 CPUs only
const HAS_ADX: u32 = 1 << 8;
const HAS_IFMA: u32 = 1 << 9;
const HAS_AVX512: u32 = 1 << 10;
const HAS_AVX2: u32 = 1 << 11;
/// AVX2 and FMA, with FMAs that round as MXCSR says (`x86_64_mb::fma`).
const HAS_FMA: u32 = 1 << 27;
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))] // aarch64 CPUs only
const HAS_NEON: u32 = 1 << 13;
/// `neon_rule` prefers NEON's field kernels here.
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))] // aarch64 CPUs only
const PREFERS_NEON: u32 = 1 << 14;
/// One more than this CPU's index in `preference::KNOWN` (0: unknown).
const KNOWN_SHIFT: u32 = 16;
const KNOWN_MASK: u32 = 0xff << KNOWN_SHIFT;
/// Set once the rest is filled in.
const READY: u32 = 1 << 31;

// Every flag has a bit of its own, apart from the CPU's index.
const _: () = {
    let flags = [
        DISABLE_ADX,
        DISABLE_IFMA256,
        DISABLE_IFMA512,
        DISABLE_AVX2,
        DISABLE_NEON,
        DISABLE_IFMA_BATCH,
        DISABLE_AVX2_BATCH,
        DISABLE_AVX512_BATCH,
        DISABLE_AVX512_RADIX28,
        DISABLE_IFMA_SQUARE,
        DISABLE_AVX2_SQUARE,
        DISABLE_RACE,
        DISABLE_FMA_BATCH,
        DISABLE_FMA512_BATCH,
        DISABLE_FMA_PAIR,
        HAS_ADX,
        HAS_IFMA,
        HAS_AVX512,
        HAS_AVX2,
        HAS_FMA,
        HAS_NEON,
        PREFERS_NEON,
        KNOWN_MASK,
        READY,
    ];
    let mut seen = 0;
    let mut i = 0;
    while i < flags.len() {
        assert!(seen & flags[i] == 0, "two flags share a bit");
        seen |= flags[i];
        i += 1;
    }
};

/// The process' choice of backends: made once, on first use.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Selection(u32);

static SELECTION: AtomicU32 = AtomicU32::new(0);

/// The backends this process uses (see the module documentation).
#[inline]
pub fn selection() -> Selection {
    let cached = SELECTION.load(Ordering::Relaxed);
    if cached & READY != 0 {
        return Selection(cached);
    }
    // Every thread that gets here computes the same value.
    let bits = detect() | disabled() | READY;
    SELECTION.store(bits, Ordering::Relaxed);
    Selection(bits)
}

impl Selection {
    /// The slice kernels that run.
    pub fn limb_kernels(self) -> LimbKernels {
        #[cfg(target_arch = "x86_64")]
        if self.0 & HAS_ADX != 0 && self.0 & DISABLE_ADX == 0 {
            return LimbKernels::Adx;
        }
        #[cfg(target_arch = "aarch64")]
        return LimbKernels::Aarch64;
        #[allow(unreachable_code)]
        LimbKernels::Portable
    }

    /// The implementation that runs `interleave` (1 or 2) exponentiations
    /// modulo `nlimbs`-limb moduli, or one to a short public exponent
    /// ([`SHORT_EXPONENT`]): the first that can run of the order measured
    /// (or modelled) for this CPU at this size and shape; where there is
    /// none, the fastest of a calibration (with `std`), else the first that
    /// can run of `preference::UNMEASURED`. The limb kernels always can.
    ///
    /// Where this CPU's row races backends ([`racers`](Self::racers)), the
    /// one that leads now. ([`BATCH`] gives the batch order's entry, where
    /// a backend without lanes stands for pairs:
    /// [`batch_exponentiation`](Self::batch_exponentiation) resolves it.)
    pub fn exponentiation(self, nlimbs: usize, interleave: usize) -> Exponentiation {
        match self.racers(nlimbs, interleave) {
            Some(racers) => race::leader(nlimbs, interleave, racers),
            None => self.fixed_exponentiation(nlimbs, interleave),
        }
    }

    /// [`exponentiation`](Self::exponentiation) for one about to run, with
    /// the lap that times it where the size races (where, now and then, a
    /// racer behind runs instead: see `race`).
    pub(crate) fn exponentiation_to_run(
        self,
        nlimbs: usize,
        interleave: usize,
    ) -> (Exponentiation, race::Lap) {
        match self.racers(nlimbs, interleave) {
            Some(racers) => race::start(nlimbs, interleave, racers),
            None => (
                self.fixed_exponentiation(nlimbs, interleave),
                race::Lap::idle(),
            ),
        }
    }

    /// The backends that race for `interleave` (1, 2 or [`BATCH`])
    /// constant-time exponentiations modulo `nlimbs`-limb moduli, or one
    /// variable-time to a short exponent ([`SHORT_EXPONENT`]), if this
    /// CPU's row races them (its first two or three that can run, the
    /// row's order first; in a batch's order a backend without lanes
    /// stands for pairs; some rows race only where their first backend
    /// cannot run), or, where no row covers the size, if the calibration's
    /// runner-up came within 10 % of its choice (the two, the choice
    /// first; not for batches). A process with a clock (`std`, not an
    /// audit build) times them on its exponentiations and runs the
    /// fastest; elsewhere, and under `NUMCRYPT_DISABLE=race`, the first
    /// runs.
    pub fn racers(self, nlimbs: usize, interleave: usize) -> Option<Racers> {
        if !matches!(interleave, 1 | 2 | BATCH | SHORT_EXPONENT) || self.0 & DISABLE_RACE != 0 {
            return None;
        }
        let Some(row) = self.known().and_then(|k| k.row(nlimbs, interleave)) else {
            #[cfg(all(feature = "std", not(feature = "ct-audit")))]
            return preference::calibrated_racers(nlimbs, interleave);
            #[allow(unreachable_code)]
            return None;
        };
        if row.races_only_without_first()
            && row
                .fastest_first
                .first()
                .is_some_and(|e| e.available(nlimbs, interleave))
        {
            return None;
        }
        let runs = row
            .fastest_first
            .iter()
            .copied()
            .filter(|e| e.available(nlimbs, interleave));
        Racers::of(runs, row.racers())
    }

    /// The choice without a race: a row's first backend that can run, else
    /// a calibration's, else `UNMEASURED`'s (`UNMEASURED_BATCH`'s for a
    /// batch, whose order may name a backend without lanes for pairs).
    fn fixed_exponentiation(self, nlimbs: usize, interleave: usize) -> Exponentiation {
        let first_that_runs = |order: &[Exponentiation]| {
            order
                .iter()
                .copied()
                .find(|e| e.available(nlimbs, interleave))
                .unwrap_or(Exponentiation::LimbKernels)
        };
        if let Some(row) = self.known().and_then(|k| k.row(nlimbs, interleave)) {
            return first_that_runs(row.fastest_first);
        }
        #[cfg(all(feature = "std", not(feature = "ct-audit")))]
        return preference::calibrate(nlimbs, interleave);
        #[allow(unreachable_code)]
        first_that_runs(match interleave {
            BATCH => preference::UNMEASURED_BATCH,
            _ => preference::UNMEASURED,
        })
    }

    /// This CPU's entry in the table of measured and modelled CPUs.
    fn known(self) -> Option<&'static preference::Known> {
        let index = ((self.0 & KNOWN_MASK) >> KNOWN_SHIFT) as usize;
        index.checked_sub(1).map(|i| &preference::KNOWN[i])
    }

    /// How [`exponentiation`](Self::exponentiation) chooses on this CPU,
    /// in words, as `Display` prints it.
    fn write_basis(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let elsewhere = match preference::CAN_CALIBRATE {
            true => "calibrated at first use",
            false => "IFMA, else the limb kernels",
        };
        match self.known() {
            Some(k) => {
                let basis = match k.source {
                    preference::Source::Measured => "measured on",
                    preference::Source::Modelled => "modelled for",
                };
                write!(f, "choice {basis} {}; other sizes {elsewhere}", k.name)
            }
            None => write!(f, "choice {elsewhere}: no measurements of this CPU"),
        }
    }

    /// The implementation that runs a batch of exponentiations modulo
    /// `nlimbs`-limb moduli, as [`exponentiation`](Self::exponentiation)
    /// chooses for one or two: the first that can run of the order measured
    /// (or modelled) for batches on this CPU, else the fastest of a
    /// calibration (with `std`), else the first that can run of
    /// `preference::UNMEASURED_BATCH`. A batch kernel runs the batch as
    /// many a pass as it has lanes; any other backend in that order means
    /// the batch runs in pairs, on what `exponentiation(nlimbs, 2)` chooses.
    ///
    /// Where this CPU's row races batches ([`racers`](Self::racers)), the
    /// one that leads now.
    pub fn batch_exponentiation(self, nlimbs: usize) -> Exponentiation {
        self.batch_or_pairs(nlimbs, self.exponentiation(nlimbs, BATCH))
    }

    /// [`batch_exponentiation`](Self::batch_exponentiation) for a batch
    /// about to run, with the lap that times its passes (or pairs) where
    /// the size races.
    pub(crate) fn batch_exponentiation_to_run(self, nlimbs: usize) -> (Exponentiation, race::Lap) {
        let (choice, lap) = self.exponentiation_to_run(nlimbs, BATCH);
        (self.batch_or_pairs(nlimbs, choice), lap)
    }

    /// A batch kernel chosen, or for any other backend the pair choice
    /// (which it stands for in a batch's order).
    fn batch_or_pairs(self, nlimbs: usize, choice: Exponentiation) -> Exponentiation {
        match choice.lanes() > 1 {
            true => choice,
            false => self.exponentiation(nlimbs, 2),
        }
    }

    /// Operands below which a batch's last pass on a batch kernel runs in
    /// pairs instead: what a pass costs on this CPU, in exponentiations in
    /// pairs.
    pub(crate) fn pass_in_pairs(self) -> usize {
        self.known()
            .map_or(preference::UNMEASURED_PASS, |k| k.pass_in_pairs)
    }

    /// Whether the eight-lane trial division may run
    /// ([`crate::kernels::small_factor_52x8`]): AVX-512 IFMA, its 512-bit
    /// kernels not turned off.
    pub(crate) fn runs_small_factor(self) -> bool {
        self.0 & HAS_IFMA != 0 && self.0 & DISABLE_IFMA512 == 0
    }

    /// Which dedicated squares the IFMA kernels (256- and 512-bit) run:
    /// none under `NUMCRYPT_DISABLE=ifma-square` (the multiplication
    /// squares, for comparisons), else every one they have, pairs of 10 to
    /// 12 vectors in the form this CPU's row names.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn ifma_squares(self) -> x86_64_ifma::Squares {
        if self.0 & DISABLE_IFMA_SQUARE != 0 {
            return x86_64_ifma::Squares::Off;
        }
        x86_64_ifma::Squares::On {
            two_phase_pairs: self
                .known()
                .map_or(preference::UNMEASURED_TWO_PHASE_PAIR_SQUARES, |k| {
                    k.two_phase_pair_squares
                }),
        }
    }

    /// The same for the radix-2^28 kernels, AVX2's and AVX-512F's
    /// (`NUMCRYPT_DISABLE=avx2-square`).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64 CPUs only
    pub(crate) fn avx2_squares(self) -> bool {
        self.0 & DISABLE_AVX2_SQUARE == 0
    }

    fn ifma_usable(self, e: Exponentiation) -> bool {
        let off = match e {
            Exponentiation::Ifma256 | Exponentiation::Ifma256VectorQuotient => DISABLE_IFMA256,
            Exponentiation::Ifma512 => DISABLE_IFMA512,
            _ => return false,
        };
        self.0 & HAS_IFMA != 0 && self.0 & off == 0
    }

    fn batch_usable(self, e: Exponentiation) -> bool {
        match e {
            Exponentiation::IfmaBatch => self.0 & HAS_IFMA != 0 && self.0 & DISABLE_IFMA_BATCH == 0,
            Exponentiation::Avx2Batch => self.0 & HAS_AVX2 != 0 && self.0 & DISABLE_AVX2_BATCH == 0,
            Exponentiation::Avx512Batch => {
                self.0 & HAS_AVX512 != 0 && self.0 & DISABLE_AVX512_BATCH == 0
            }
            Exponentiation::FmaBatch => self.0 & HAS_FMA != 0 && self.0 & DISABLE_FMA_BATCH == 0,
            Exponentiation::Fma512Batch => {
                self.0 & HAS_FMA != 0
                    && self.0 & HAS_AVX512 != 0
                    && self.0 & DISABLE_FMA512_BATCH == 0
            }
            Exponentiation::FmaPair => self.0 & HAS_FMA != 0 && self.0 & DISABLE_FMA_PAIR == 0,
            _ => false,
        }
    }

    fn avx2_usable(self) -> bool {
        self.0 & HAS_AVX2 != 0 && self.0 & DISABLE_AVX2 == 0
    }

    fn avx512_usable(self) -> bool {
        self.0 & HAS_AVX512 != 0 && self.0 & DISABLE_AVX512_RADIX28 == 0
    }

    fn neon_usable(self) -> bool {
        self.0 & HAS_NEON != 0 && self.0 & DISABLE_NEON == 0
    }

    /// NEON is usable and the rule prefers it here.
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))] // aarch64 CPUs only
    fn neon_preferred(self) -> bool {
        self.0 & PREFERS_NEON != 0 && self.neon_usable()
    }
}

impl fmt::Display for Selection {
    /// One line: the CPU, the limb kernels, the exponentiation backend for
    /// RSA-2048's primes (16 limbs, interleaved), the one for batches of
    /// them, and what was disabled.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; limb kernels: ", Cpu::current())?;
        match self.limb_kernels() {
            LimbKernels::Portable => f.write_str("portable")?,
            LimbKernels::Adx => f.write_str("x86_64 mulx/adx")?,
            LimbKernels::Aarch64 => f.write_str("aarch64 mul/umulh")?,
        }
        write!(f, "; exponentiation: {}", self.exponentiation(16, 2).name())?;
        f.write_str(" (")?;
        self.write_basis(f)?;
        f.write_str(")")?;
        if self.0 & HAS_NEON != 0 {
            let rule = if self.0 & PREFERS_NEON != 0 {
                "NEON"
            } else {
                "limb kernels"
            };
            write!(f, " (field kernels: {rule})")?;
        }
        write!(f, "; batches: {}", self.batch_exponentiation(16).name())?;
        let off = [
            (DISABLE_ADX, "adx"),
            (DISABLE_AVX2, "avx2"),
            (DISABLE_IFMA256, "ifma256"),
            (DISABLE_IFMA512, "ifma512"),
            (DISABLE_NEON, "neon"),
            (DISABLE_IFMA_BATCH, "ifma-batch"),
            (DISABLE_AVX2_BATCH, "avx2-batch"),
            (DISABLE_AVX512_BATCH, "avx512-batch"),
            (DISABLE_FMA_BATCH, "fma-batch"),
            (DISABLE_FMA512_BATCH, "fma512-batch"),
            (DISABLE_FMA_PAIR, "fma-pair"),
            (DISABLE_AVX512_RADIX28, "avx512-radix28"),
            (DISABLE_IFMA_SQUARE, "ifma-square"),
            (DISABLE_AVX2_SQUARE, "avx2-square"),
            (DISABLE_RACE, "race"),
        ];
        let mut first = true;
        for (bit, name) in off {
            if self.0 & bit != 0 {
                f.write_str(if first { "; NUMCRYPT_DISABLE: " } else { "," })?;
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// [`crate::kernels::small_factor_52x8`] where a kernel runs (AVX-512
/// IFMA and DQ, IFMA not turned off), else `None`.
pub(crate) fn small_factor_52x8(
    x: &[crate::Limb],
    blocks: &[crate::ops::trial::SmallFactorLanes<'_>],
) -> Option<u64> {
    if !selection().runs_small_factor() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    return x86_64_ifma::Ifma::detect()?.small_factor(x, blocks);
    #[allow(unreachable_code)]
    {
        let _ = (x, blocks);
        None
    }
}

/// Whether [`small_factor_52x8`] runs here.
pub(crate) fn has_small_factor_52x8() -> bool {
    #[cfg(target_arch = "x86_64")]
    return selection().runs_small_factor() && x86_64_ifma::has_avx512_dq();
    #[allow(unreachable_code)]
    false
}

#[cfg(target_arch = "x86_64")]
fn detect() -> u32 {
    let mut bits = 0;
    if x86_64_adx::Adx::detect().is_some() {
        bits |= HAS_ADX;
    }
    if x86_64_ifma::Ifma::detect().is_some() {
        bits |= HAS_IFMA;
    }
    if x86_64_avx2::Avx2::detect().is_some() {
        bits |= HAS_AVX2;
    }
    if x86_64_mb::avx512::Avx512::detect().is_some() {
        bits |= HAS_AVX512;
    }
    if x86_64_mb::fma::Fma::detect().is_some() {
        bits |= HAS_FMA;
    }
    bits | known_bits()
}

/// This CPU's index in `preference::KNOWN`, as `Selection` keeps it.
fn known_bits() -> u32 {
    preference::known(&Cpu::current()).map_or(0, |i| (i as u32 + 1) << KNOWN_SHIFT)
}

/// Whether NEON's field kernels (and, where nothing can calibrate, its
/// exponentiation, `preference`'s modelled row) should replace the
/// `mul`/`umulh` limb kernels on an aarch64 core.
///
/// There is no aarch64 machine here, so the rule rests on llvm-mca 19's
/// scheduling models of both kernels (`tools/mca_aarch64.py`; the table
/// is in the README, "aarch64"): NEON is chosen where the model makes it
/// clearly faster at every size it takes, which is Neoverse N1 (Arm part
/// 0xd0c: AWS Graviton 2, Ampere Altra), whose scalar multiplier issues a
/// `mul` or `umulh` every third cycle. Every other core, and any core
/// whose `MIDR_EL1` cannot be read, keeps the limb kernels.
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))] // aarch64 CPUs only
pub(crate) fn neon_rule(cpu: &Cpu) -> bool {
    matches!((cpu.family(), cpu.model()), (0x41, 0xd0c))
}

#[cfg(target_arch = "aarch64")]
fn detect() -> u32 {
    if !cfg!(target_feature = "neon") {
        return 0;
    }
    match neon_rule(&Cpu::current()) {
        true => HAS_NEON | PREFERS_NEON | known_bits(),
        false => HAS_NEON | known_bits(),
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect() -> u32 {
    0
}

/// The `NUMCRYPT_DISABLE` bits (none without `std`).
#[cfg(feature = "std")]
fn disabled() -> u32 {
    let Some(value) = std::env::var_os("NUMCRYPT_DISABLE") else {
        return 0;
    };
    parse_disable(&value.to_string_lossy())
}

#[cfg(not(feature = "std"))]
fn disabled() -> u32 {
    0
}

/// Every AVX-512 kernel (`NUMCRYPT_DISABLE=avx512`).
const DISABLE_AVX512: u32 = DISABLE_IFMA256
    | DISABLE_IFMA512
    | DISABLE_IFMA_BATCH
    | DISABLE_AVX512_BATCH
    | DISABLE_FMA512_BATCH
    | DISABLE_AVX512_RADIX28;

#[cfg_attr(not(feature = "std"), allow(dead_code))]
fn parse_disable(list: &str) -> u32 {
    list.split(',').fold(0, |bits, word| {
        bits | match word.trim() {
            w if w.eq_ignore_ascii_case("adx") => DISABLE_ADX,
            w if w.eq_ignore_ascii_case("avx2") => {
                DISABLE_AVX2 | DISABLE_AVX2_BATCH | DISABLE_FMA_BATCH | DISABLE_FMA_PAIR
            }
            w if w.eq_ignore_ascii_case("ifma") => {
                DISABLE_IFMA256 | DISABLE_IFMA512 | DISABLE_IFMA_BATCH
            }
            w if w.eq_ignore_ascii_case("ifma256") => DISABLE_IFMA256,
            w if w.eq_ignore_ascii_case("ifma512") => DISABLE_IFMA512,
            w if w.eq_ignore_ascii_case("neon") => DISABLE_NEON,
            w if w.eq_ignore_ascii_case("ifma-batch") => DISABLE_IFMA_BATCH,
            w if w.eq_ignore_ascii_case("avx2-batch") => DISABLE_AVX2_BATCH,
            w if w.eq_ignore_ascii_case("avx512-batch") => DISABLE_AVX512_BATCH,
            w if w.eq_ignore_ascii_case("fma-batch") => DISABLE_FMA_BATCH | DISABLE_FMA512_BATCH,
            w if w.eq_ignore_ascii_case("fma512-batch") => DISABLE_FMA512_BATCH,
            w if w.eq_ignore_ascii_case("fma-pair") => DISABLE_FMA_PAIR,
            w if w.eq_ignore_ascii_case("avx512-radix28") => DISABLE_AVX512_RADIX28,
            w if w.eq_ignore_ascii_case("ifma-square") => DISABLE_IFMA_SQUARE,
            w if w.eq_ignore_ascii_case("avx2-square") => DISABLE_AVX2_SQUARE,
            w if w.eq_ignore_ascii_case("race") => DISABLE_RACE,
            w if w.eq_ignore_ascii_case("avx512") => DISABLE_AVX512,
            w if w.eq_ignore_ascii_case("batch") => {
                DISABLE_IFMA_BATCH
                    | DISABLE_AVX2_BATCH
                    | DISABLE_AVX512_BATCH
                    | DISABLE_FMA_BATCH
                    | DISABLE_FMA512_BATCH
            }
            _ => 0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disable_list() {
        assert_eq!(parse_disable(""), 0);
        assert_eq!(parse_disable("adx"), DISABLE_ADX);
        assert_eq!(
            parse_disable(" IFMA , adx"),
            DISABLE_ADX | DISABLE_IFMA256 | DISABLE_IFMA512 | DISABLE_IFMA_BATCH
        );
        assert_eq!(
            parse_disable("avx2"),
            DISABLE_AVX2 | DISABLE_AVX2_BATCH | DISABLE_FMA_BATCH | DISABLE_FMA_PAIR
        );
        assert_eq!(parse_disable("fma-pair"), DISABLE_FMA_PAIR);
        assert_eq!(
            parse_disable("batch"),
            DISABLE_IFMA_BATCH
                | DISABLE_AVX2_BATCH
                | DISABLE_AVX512_BATCH
                | DISABLE_FMA_BATCH
                | DISABLE_FMA512_BATCH
        );
        assert_eq!(
            parse_disable("fma-batch"),
            DISABLE_FMA_BATCH | DISABLE_FMA512_BATCH
        );
        assert_eq!(parse_disable("fma512-batch"), DISABLE_FMA512_BATCH);
        assert_eq!(
            parse_disable("avx512"),
            DISABLE_IFMA256
                | DISABLE_IFMA512
                | DISABLE_IFMA_BATCH
                | DISABLE_AVX512_BATCH
                | DISABLE_FMA512_BATCH
                | DISABLE_AVX512_RADIX28
        );
        assert_eq!(parse_disable("avx512-batch"), DISABLE_AVX512_BATCH);
        assert_eq!(parse_disable("avx512-radix28"), DISABLE_AVX512_RADIX28);
        assert_eq!(parse_disable("ifma-square"), DISABLE_IFMA_SQUARE);
        assert_eq!(parse_disable("avx2-square"), DISABLE_AVX2_SQUARE);
        assert_eq!(parse_disable("race"), DISABLE_RACE);
        assert_eq!(parse_disable("ifma-batch"), DISABLE_IFMA_BATCH);
        assert_eq!(
            parse_disable("ifma512,neon,bogus"),
            DISABLE_IFMA512 | DISABLE_NEON
        );
    }

    #[test]
    fn neon_rule_takes_neoverse_n1_only() {
        // MIDR_EL1 values: implementer, variant, architecture 0xf, part,
        // revision.
        let midr = |implementer: u64, part: u64| (implementer << 24) | (0xf << 16) | (part << 4);
        let n1 = Cpu::from_midr(midr(0x41, 0xd0c) | (3 << 20) | 1);
        assert!(neon_rule(&n1));
        assert_eq!(n1.vendor(), "Arm");
        assert_eq!(n1.name(), "Neoverse N1");
        for (implementer, part) in [(0x41, 0xd08), (0x41, 0xd49), (0x41, 0xd40), (0x41, 0xd4f)] {
            assert!(!neon_rule(&Cpu::from_midr(midr(implementer, part))));
        }
        // Apple's part numbers overlap Arm's; the implementer tells them apart.
        assert!(!neon_rule(&Cpu::from_midr(midr(0x61, 0xd0c))));
        assert!(!neon_rule(&Cpu::current()) || cfg!(target_arch = "aarch64"));
    }
}
