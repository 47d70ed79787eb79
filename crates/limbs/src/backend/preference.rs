//! Which exponentiation backend runs, by CPU, modulus size and shape (one
//! exponentiation; a pair of two, as RSA's CRT halves; a batch, on a
//! multi-buffer kernel or in pairs): measurements as data, and a
//! calibration where there are none.
//!
//! [`KNOWN`] holds, for each CPU the project has timed every backend on
//! (or modelled, for lack of the hardware), the backends from fastest to
//! slowest at each size and shape; the selection takes the first one that
//! can run (`NUMCRYPT_DISABLE` may have turned the fastest off). Where no
//! row applies — another CPU, or a size or shape nobody timed — a process
//! built with `std` times every backend that can run, on public inputs
//! from a fixed seed, the first time it needs that size and shape, and
//! keeps the fastest for the process ([`calibrate`]), racing it against
//! the runner-up where that came within 10 % (`race`). Without `std` there
//! is no clock: [`UNMEASURED`]. A modelled row stands until someone
//! measures the CPU: it rests on a study of the core (and, for Neoverse
//! N1, on AWS-LC's choice on that hardware), where a calibration at first
//! use could be misled by an emulator or a noisy neighbour.
//!
//! Why both: a table costs nothing at run time and chooses the same on
//! every run, which the timing tests and any comparison of figures need; a
//! calibration adapts to CPUs nobody here has seen, for a few milliseconds
//! once per size, and measures rather than guesses from a family number.
//! Rows cover the sizes around their measurements (the order changes
//! slowly with the size): a row measured at 1536 bits covers 21 to 28
//! limbs. A hypervisor can report another model than the hardware's (this
//! project's Sapphire Rapids guest says family 6 model 0xa7, a desktop
//! Rocket Lake's number), so a row can also require AMX.

use core::ops::RangeInclusive;

use super::Exponentiation::{
    self, Apart, Avx2, Avx2Batch, Avx512, Avx512Batch, Fma512Batch, FmaBatch, FmaPair, Ifma256,
    Ifma256VectorQuotient, Ifma512, IfmaBatch, LimbKernels, Neon,
};
use super::{BATCH, Cpu, SHORT_EXPONENT};

/// What a row rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Every backend timed on this CPU (`benches/RESULTS.md`).
    Measured,
    /// `llvm-mca`'s model of the kernels, for lack of the hardware.
    Modelled,
}

/// The shapes a row covers.
const ONE: u8 = 1;
const PAIR: u8 = 2;
const BOTH: u8 = ONE | PAIR;
/// In a batch's order, a backend other than a batch kernel stands for
/// running the batch in pairs.
const BATCHES: u8 = 4;
/// One exponentiation to a short public exponent ([`SHORT_EXPONENT`]); a
/// CPU with no row for it takes its order for one.
const SHORT: u8 = 8;
/// Not shapes: the row's first two (or three) backends that can run trade
/// places with the machine's load (some slow more than others when the
/// core's sibling thread is busy), so a process with a clock races them on
/// its own exponentiations (`race`). Any shape.
const RACE_TWO: u8 = 2 << 4;
const RACE_THREE: u8 = 3 << 4;
/// With a race: only where the row's first backend cannot run (turned
/// off, or missing on this CPU), the next ones racing. A first backend far
/// ahead of the others (the IFMA batch kernel) would otherwise race them,
/// and each racer runs once before the race settles.
const RACE_WITHOUT_FIRST: u8 = 1 << 7;

/// The backends from fastest to slowest for some sizes and shapes.
pub(crate) struct Row {
    limbs: RangeInclusive<usize>,
    /// The shapes, and how many backends race ([`RACE_TWO`]).
    shapes: u8,
    pub(crate) fastest_first: &'static [Exponentiation],
}

impl Row {
    /// How many of the first backends that can run race (see
    /// [`RACE_TWO`]): 0, 2 or 3.
    pub(crate) fn racers(&self) -> usize {
        usize::from((self.shapes >> 4) & 7)
    }

    /// Whether they race only where the first backend cannot run
    /// ([`RACE_WITHOUT_FIRST`]).
    pub(crate) fn races_only_without_first(&self) -> bool {
        self.shapes & RACE_WITHOUT_FIRST != 0
    }
}

/// A CPU, or a family of them, with what was found there.
pub(crate) struct Known {
    /// Its name in `benches/RESULTS.md`.
    pub(crate) name: &'static str,
    vendor: &'static str,
    family: u32,
    /// The models (part numbers on aarch64) it covers; empty: all.
    models: &'static [u32],
    /// Only CPUs with AMX (see the module documentation).
    needs_amx: bool,
    pub(crate) source: Source,
    rows: &'static [Row],
    /// Whether the 256-bit IFMA kernels square pairs of 10 to 12 vectors
    /// (RSA-4096's CRT halves up to 2496 bits) in two phases rather than in
    /// AMM's loop (`tools/gen_ifma_x86_64.py` makes both there).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64 CPUs only
    pub(crate) two_phase_pair_squares: bool,
    /// What a pass of the batch kernel its batch order ranks first costs,
    /// in exponentiations in pairs, rounded up: a batch's last pass of
    /// fewer operands runs them in pairs ([`UNMEASURED_PASS`] where batches
    /// were not timed).
    pub(crate) pass_in_pairs: usize,
}

impl Known {
    fn matches(&self, cpu: &Cpu) -> bool {
        cpu.vendor() == self.vendor
            && cpu.family() == self.family
            && (self.models.is_empty() || self.models.contains(&cpu.model()))
            && (!self.needs_amx || cpu.has_amx())
    }

    /// The order for `nlimbs`-limb moduli, `interleave` at once, if a row
    /// covers them.
    #[cfg(test)]
    pub(crate) fn order(
        &self,
        nlimbs: usize,
        interleave: usize,
    ) -> Option<&'static [Exponentiation]> {
        self.row(nlimbs, interleave).map(|row| row.fastest_first)
    }

    /// The row for `nlimbs`-limb moduli, `interleave` at once, if one
    /// covers them.
    pub(crate) fn row(&self, nlimbs: usize, interleave: usize) -> Option<&'static Row> {
        let shape = match interleave {
            1 => ONE,
            2 => PAIR,
            BATCH => BATCHES,
            SHORT_EXPONENT => SHORT,
            _ => return None,
        };
        let rows: &'static [Row] = self.rows;
        let row = |shape: u8| {
            rows.iter()
                .find(|row| row.limbs.contains(&nlimbs) && row.shapes & shape != 0)
        };
        match shape {
            SHORT => row(SHORT).or_else(|| row(ONE)),
            _ => row(shape),
        }
    }
}

/// Where nothing was measured and nothing can calibrate: the IFMA kernels
/// (256-bit first, as OpenSSL and AWS-LC run on every CPU; a pair
/// interleaved where they take it, else apart), then the limb kernels;
/// never AVX2 or NEON, which lose to the limb kernels on several cores
/// (crates/limbs/README.md, "CPU selection").
pub(crate) const UNMEASURED: &[Exponentiation] = &[Ifma256, Ifma512, Apart, LimbKernels];

/// The same for batches: the batch kernels, modelled within 1.2 (IFMA) and
/// 1.9 (AVX2) of their multiplier's bound on every x86_64 core model
/// (`tools/mca_mb_x86_64.py`) where the single kernels sit at 1.15 to 4;
/// the AVX2 ones on zmm registers before them (as many lane products a
/// cycle as on ymm on Zen 4 and 5, 1.33 times on Sapphire Rapids, twice on
/// Skylake-SP to Ice Lake: benches/RESULTS.md, "AVX-512F without IFMA");
/// the FMA units' kernels before AVX2's (0.80 to 0.94 of their cycles in
/// every core model, `tools/mca_mb_x86_64.py`), their zmm form first.
pub(crate) const UNMEASURED_BATCH: &[Exponentiation] = &[
    IfmaBatch,
    Fma512Batch,
    Avx512Batch,
    FmaBatch,
    Avx2Batch,
    LimbKernels,
];

/// A batch kernel's pass in exponentiations in pairs where no row says:
/// about four on Sapphire Rapids at every size, either batch kernel
/// (benches/RESULTS.md, "Batches"), the only full-width CPU whose batches
/// were timed.
pub(crate) const UNMEASURED_PASS: usize = 4;

/// The same for [`Known::two_phase_pair_squares`]: two phases, the form
/// measured faster on the one CPU that timed both (Zen 4).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64 CPUs only
pub(crate) const UNMEASURED_TWO_PHASE_PAIR_SQUARES: bool = true;

/// Zen 4's order for pairs of 21 to 38 limbs, whose first two race, and
/// from 29 limbs (where a busy neighbour puts `Apart` ahead) three.
const ZEN4_PAIRS: &[Exponentiation] = &[
    Ifma256,
    Ifma256VectorQuotient,
    Apart,
    Ifma512,
    Avx512,
    Avx2,
    LimbKernels,
];

/// The CPUs the project has measured or modelled (`benches/RESULTS.md`
/// has the figures under each name).
pub(crate) const KNOWN: &[Known] = &[
    Known {
        // Measured on a KVM guest reporting family 0x17 model 0x01 (QEMU's
        // `EPYC` model on Zen 1 hardware: 128-bit vector units, so AVX2's
        // ymm instructions run as two halves and lose to `mulx`): the limb
        // kernels one at a time and to `e`; pairs on the FMA units' kernel
        // with two lanes where it has kernels (1024 to 2048 bits), racing
        // the limb kernels (a busy neighbour slowed the vector kernels
        // twice as much as `mulx`), else on the limb kernels (interleaved,
        // level with apart); batches on the FMA units' four-lane kernel,
        // then in pairs, AVX2's batch kernel last; a pass of the FMA kernel
        // costs under four exponentiations in pairs (benches/RESULTS.md,
        // "Zen 1"). The APUs (0x11) and Zen+ (0x08, 0x18) have the same
        // core; Zen 2's models (256-bit units) are not covered and
        // calibrate.
        name: "AMD Zen 1",
        vendor: "AuthenticAMD",
        family: 0x17,
        models: &[0x01, 0x08, 0x11, 0x18],
        needs_amx: false,
        source: Source::Measured,
        rows: &[
            Row {
                limbs: 1..=40,
                shapes: PAIR | RACE_TWO,
                fastest_first: &[FmaPair, LimbKernels, Apart, Avx2],
            },
            Row {
                limbs: 1..=103,
                shapes: BOTH | SHORT,
                fastest_first: &[LimbKernels, Apart, Avx2],
            },
            Row {
                limbs: 1..=103,
                shapes: BATCHES,
                fastest_first: &[FmaBatch, LimbKernels, Avx2Batch],
            },
        ],
        two_phase_pair_squares: UNMEASURED_TWO_PHASE_PAIR_SQUARES,
        pass_in_pairs: 4,
    },
    Known {
        // Measured on an EPYC of model 0x01 (`speed --variants`, paired
        // rounds): the limb kernels, since their window rows' zero
        // register and 24-limb square, ahead of AVX2 for 2048-bit moduli
        // and for 1024-bit pairs (interleaved; AVX2 takes 1.03 to 1.08
        // times their time), and since their direct calls for 1024-bit
        // moduli one at a time too; behind AVX2 at 1536 bits;
        // batches on the AVX2 batch kernel, which races the FMA units'
        // (modelled ahead: 0.80 to 0.89 of its cycles in `llvm-mca`'s
        // `znver3`, not measured here); to a short public exponent the
        // limb kernels (AVX2's conversions cost about five
        // multiplications). The models: Milan, Chagall, Vermeer,
        // Rembrandt and Cezanne.
        name: "AMD Zen 3",
        vendor: "AuthenticAMD",
        family: 0x19,
        models: &[0x01, 0x08, 0x21, 0x44, 0x50],
        needs_amx: false,
        source: Source::Measured,
        rows: &[
            Row {
                limbs: 1..=20,
                shapes: BOTH,
                fastest_first: &[LimbKernels, Apart, Avx2],
            },
            Row {
                limbs: 21..=28,
                shapes: ONE,
                fastest_first: &[Avx2, LimbKernels],
            },
            Row {
                limbs: 21..=28,
                shapes: PAIR,
                fastest_first: &[Apart, Avx2, LimbKernels],
            },
            Row {
                limbs: 29..=36,
                shapes: PAIR,
                fastest_first: &[LimbKernels, Apart, Avx2],
            },
            Row {
                limbs: 29..=103,
                shapes: ONE,
                fastest_first: &[LimbKernels, Avx2],
            },
            Row {
                limbs: 37..=103,
                shapes: PAIR,
                fastest_first: &[Apart, LimbKernels, Avx2],
            },
            Row {
                limbs: 1..=103,
                shapes: BATCHES | RACE_TWO,
                fastest_first: &[FmaBatch, Avx2Batch, LimbKernels],
            },
            Row {
                limbs: 1..=103,
                shapes: SHORT,
                fastest_first: &[LimbKernels, Avx2],
            },
        ],
        two_phase_pair_squares: UNMEASURED_TWO_PHASE_PAIR_SQUARES,
        pass_in_pairs: 7,
    },
    Known {
        // Measured on Zen 4 (every backend, `speed --variants`, and pairs at
        // most limb counts from 16 to 45): the 256-bit IFMA kernels at every RSA
        // size (Zen 4 runs a 512-bit operation as two halves), pairs interleaved
        // up to 2432 bits (the dedicated squares put the scalar quotient
        // 6 to 11 % ahead of the vector one and of apart from 2112 bits, where
        // it was 3 to 7 % behind; pairs of 10 to 12 vectors square in two
        // phases, 0.88 to 0.98 of the one loop's time), apart above; batches
        // on the IFMA batch kernel. With IFMA off: AVX2 up to 1280 bits and
        // AVX-512F's radix-2^28 kernels above (both with their dedicated
        // squares), pairs interleaved on them or apart (level); for
        // batches the FMA units' lanes of 52-bit digits, eight on zmm and
        // four on ymm (0.57 to 0.78 and 0.79 to 0.86 of AVX2's four lanes'
        // time a lane; the ymm kernel slows the most when a neighbour is
        // busy), then AVX-512F's eight lanes and AVX2's four: the first
        // three race. A pass of a batch kernel costs about
        // as much as three signatures one at a time.
        // Zen 3 models not listed above take this row (it skips what they
        // lack). Where a busy neighbour reorders them, the first two or
        // three race: the scalar quotient's pairs slow by up to a fifth
        // beside one, the vector quotient's and apart's less; one
        // exponentiation of 1536 bits and one to `e` swap 256- and 512-bit
        // IFMA. To a short public exponent: IFMA
        // (Zen 4's RSA verification at 0.6 of AWS-LC's time, whose `mulx`
        // kernels are level with the limb kernels), else up to 1280 bits
        // the limb kernels (0.85 of AVX-512F's radix-2^28 kernels' time at
        // 1024 bits, and measured ahead of AVX2 on Zen 3), from 1344 to
        // 2880 bits AVX-512F's (0.90 to 0.97 of the limb kernels' time at
        // 1536 and 2048 bits in five runs with IFMA off), the limb kernels
        // above, where AVX-512F's stop.
        name: "AMD Zen 4",
        vendor: "AuthenticAMD",
        family: 0x19,
        models: &[],
        needs_amx: false,
        source: Source::Measured,
        rows: &[
            Row {
                limbs: 1..=20,
                shapes: PAIR | RACE_TWO,
                fastest_first: &[
                    Ifma256,
                    Ifma256VectorQuotient,
                    Ifma512,
                    Avx2,
                    Apart,
                    Avx512,
                    LimbKernels,
                ],
            },
            Row {
                limbs: 21..=28,
                shapes: PAIR | RACE_TWO,
                fastest_first: ZEN4_PAIRS,
            },
            Row {
                limbs: 29..=38,
                shapes: PAIR | RACE_THREE,
                fastest_first: ZEN4_PAIRS,
            },
            Row {
                limbs: 39..=103,
                shapes: PAIR,
                fastest_first: &[Apart, Ifma512, Ifma256, Avx512, Avx2, LimbKernels],
            },
            Row {
                limbs: 1..=20,
                shapes: ONE | RACE_TWO,
                fastest_first: &[Ifma256, Ifma512, Avx2, Avx512, LimbKernels],
            },
            Row {
                limbs: 21..=28,
                shapes: ONE | RACE_TWO,
                fastest_first: &[Ifma256, Ifma512, Avx512, Avx2, LimbKernels],
            },
            Row {
                limbs: 29..=103,
                shapes: ONE,
                fastest_first: &[Ifma256, Ifma512, Avx512, Avx2, LimbKernels],
            },
            Row {
                limbs: 1..=103,
                shapes: BATCHES | RACE_THREE | RACE_WITHOUT_FIRST,
                fastest_first: &[
                    IfmaBatch,
                    Fma512Batch,
                    FmaBatch,
                    Avx512Batch,
                    Avx2Batch,
                    LimbKernels,
                ],
            },
            Row {
                limbs: 21..=28,
                shapes: SHORT | RACE_TWO,
                fastest_first: &[Ifma256, Ifma512, Avx512, LimbKernels, Avx2],
            },
            Row {
                limbs: 29..=103,
                shapes: SHORT,
                fastest_first: &[Ifma256, Ifma512, Avx512, LimbKernels, Avx2],
            },
            Row {
                limbs: 1..=103,
                shapes: SHORT,
                fastest_first: &[Ifma256, Ifma512, LimbKernels, Avx2, Avx512],
            },
        ],
        two_phase_pair_squares: true,
        pass_in_pairs: 7,
    },
    Known {
        // Measured on Zen 5 (full-width AVX-512): the 512-bit kernels, and
        // AVX2 over the limb kernels with IFMA off.
        name: "AMD Zen 5",
        vendor: "AuthenticAMD",
        family: 0x1a,
        models: &[],
        needs_amx: false,
        source: Source::Measured,
        rows: &[Row {
            limbs: 1..=103,
            shapes: BOTH,
            fastest_first: &[Ifma512, Ifma256, Avx2, Apart, LimbKernels],
        }],
        two_phase_pair_squares: UNMEASURED_TWO_PHASE_PAIR_SQUARES,
        pass_in_pairs: UNMEASURED_PASS,
    },
    Known {
        // Measured as RSA's CRT pairs only (issue 34): the 512-bit pair
        // ahead at 1536 bits, the 256-bit one at 1024 and 2048; with IFMA
        // off AVX2 ahead at 1536 and 2048 bits, behind at 1024. One
        // exponentiation at a time calibrates. Pairs of 10 to 12 vectors
        // square in one loop, in 0.87 to 0.92 of two phases' time in
        // `llvm-mca`'s model of this core (modelled, not measured).
        name: "Intel Ice Lake-SP",
        vendor: "GenuineIntel",
        family: 6,
        models: &[0x6a, 0x6c],
        needs_amx: false,
        source: Source::Measured,
        rows: &[
            Row {
                limbs: 1..=20,
                shapes: PAIR,
                fastest_first: &[Ifma256, Ifma512, Apart, LimbKernels, Avx2],
            },
            Row {
                limbs: 21..=28,
                shapes: PAIR,
                fastest_first: &[Ifma512, Ifma256, Avx2, Apart, LimbKernels],
            },
            Row {
                limbs: 29..=36,
                shapes: PAIR,
                fastest_first: &[Ifma256, Ifma512, Avx2, Apart, LimbKernels],
            },
        ],
        two_phase_pair_squares: false,
        pass_in_pairs: UNMEASURED_PASS,
    },
    Known {
        // Measured on a KVM guest reporting family 6 model 0xa7 with AMX
        // and AVX512-FP16 (Sapphire Rapids' features): the 256-bit IFMA
        // kernels except at 1536 bits one at a time (512-bit, by a hair).
        // Pairs: the 256-bit kernels with the quotient in the vector unit
        // wherever they run (16 to 38 limbs; 5 to 11 % ahead of the next),
        // apart above. With IFMA off, AVX-512F's radix-2^28 kernels ahead
        // of the limb kernels from 1536 bits (7 to 12 %; a pair runs apart,
        // on them, as fast as interleaved), behind at 1024; AVX2 last.
        // Batches: the IFMA batch kernel ahead of IFMA pairs, and with IFMA
        // off the AVX-512F batch kernel, then the FMA units' (added later,
        // zmm and ymm: the ymm ones at 0.82 to 0.92 of AVX2's batch cycles
        // in `llvm-mca`'s model of this core; not timed here). The squares came later: pairs of 10
        // to 12 vectors square in one loop, in 0.86 to 0.93 of two phases'
        // time in `llvm-mca`'s model (modelled, not measured).
        name: "Intel Xeon, Sapphire Rapids class",
        vendor: "GenuineIntel",
        family: 6,
        models: &[0xa7],
        needs_amx: true,
        source: Source::Measured,
        rows: &[
            Row {
                limbs: 16..=16,
                shapes: PAIR,
                fastest_first: &[
                    Ifma256VectorQuotient,
                    Ifma256,
                    Ifma512,
                    Apart,
                    LimbKernels,
                    Avx512,
                    Avx2,
                ],
            },
            Row {
                limbs: 17..=38,
                shapes: PAIR,
                fastest_first: &[
                    Ifma256VectorQuotient,
                    Ifma256,
                    Ifma512,
                    Apart,
                    Avx512,
                    LimbKernels,
                    Avx2,
                ],
            },
            Row {
                limbs: 21..=28,
                shapes: ONE,
                fastest_first: &[Ifma512, Ifma256, Avx512, LimbKernels, Avx2],
            },
            Row {
                limbs: 40..=103,
                shapes: PAIR,
                fastest_first: &[Apart, Ifma512, Ifma256, Avx512, LimbKernels, Avx2],
            },
            Row {
                limbs: 17..=103,
                shapes: BOTH,
                fastest_first: &[Ifma256, Ifma512, Avx512, Apart, LimbKernels, Avx2],
            },
            Row {
                limbs: 1..=16,
                shapes: BOTH,
                fastest_first: &[Ifma256, Ifma512, Apart, LimbKernels, Avx512, Avx2],
            },
            Row {
                limbs: 1..=103,
                shapes: BATCHES,
                fastest_first: &[
                    IfmaBatch,
                    Ifma256,
                    Ifma512,
                    Avx512Batch,
                    Fma512Batch,
                    FmaBatch,
                    Avx2Batch,
                    LimbKernels,
                    Avx2,
                ],
            },
        ],
        two_phase_pair_squares: false,
        pass_in_pairs: 4,
    },
    Known {
        // Modelled (llvm-mca 19, `tools/mca_aarch64.py`): NEON about twice
        // as fast as the scalar kernels on Neoverse N1, whose scalar
        // multiplier issues a `mul` or `umulh` every third cycle.
        name: "Arm Neoverse N1",
        vendor: "Arm",
        family: 0x41,
        models: &[0xd0c],
        needs_amx: false,
        source: Source::Modelled,
        rows: &[Row {
            limbs: 1..=64,
            shapes: BOTH,
            fastest_first: &[Neon, LimbKernels],
        }],
        two_phase_pair_squares: UNMEASURED_TWO_PHASE_PAIR_SQUARES,
        pass_in_pairs: UNMEASURED_PASS,
    },
];

/// The entry of [`KNOWN`] for `cpu`, by index.
pub(crate) fn known(cpu: &Cpu) -> Option<usize> {
    KNOWN.iter().position(|k| k.matches(cpu))
}

/// Whether this build can time backends: a clock (`std`), and not an
/// audit build, whose instruction counts must not depend on timings.
pub(crate) const CAN_CALIBRATE: bool = cfg!(all(feature = "std", not(feature = "ct-audit")));

#[cfg(feature = "std")]
pub use calibration::{
    ChoiceVerdict, PairedRatio, SelectionCheck, check_choice, selection_check, time_variant_rounds,
};
#[cfg(all(feature = "std", not(feature = "ct-audit")))]
pub(crate) use calibration::{calibrate, calibrated_racers};

/// The calibration: every backend that can run, timed on public inputs.
#[cfg(feature = "std")]
mod calibration {
    extern crate std;

    use core::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};
    use std::vec::Vec;

    use super::super::{BATCH, Exponentiation, Racers, SELECTION_TOLERANCE, SHORT_EXPONENT};
    use crate::{BoxedUint, MontyParams};

    /// Every backend, in the order the cache numbers them.
    const ALL: [Exponentiation; Exponentiation::ALL.len()] = Exponentiation::ALL;

    /// The shapes the cache holds, in its order.
    const SHAPES: [usize; 4] = [1, 2, BATCH, SHORT_EXPONENT];

    /// The sizes the cache holds; past them nothing but the limb kernels
    /// takes a modulus.
    const MAX_LIMBS: usize = 128;

    /// Exponent bits a timed run takes: long enough that the conversions
    /// in and out weigh little, short enough that timing every backend at
    /// 4096 bits stays within milliseconds.
    const EXP_BITS: u32 = 256;

    /// Timed runs a backend (after one untimed): the median counts.
    const RUNS: usize = 5;

    /// The choice per size and shape: 0 if not made yet, else one more
    /// than its index in [`ALL`].
    static CHOSEN: [AtomicU8; SHAPES.len() * (MAX_LIMBS + 1)] =
        [const { AtomicU8::new(0) }; SHAPES.len() * (MAX_LIMBS + 1)];

    /// The runner-up per size and shape where it came within
    /// [`RACE_WITHIN`] of the choice (it races it: `race`), as [`CHOSEN`];
    /// set before the choice.
    static RUNNER_UP: [AtomicU8; SHAPES.len() * (MAX_LIMBS + 1)] =
        [const { AtomicU8::new(0) }; SHAPES.len() * (MAX_LIMBS + 1)];

    /// How close a calibration's runner-up must come to race the fastest:
    /// five runs at one moment cannot tell closer backends apart, nor say
    /// which a busy neighbour will favour.
    const RACE_WITHIN: f64 = 1.10;

    /// One calibration at a time: two at once would time each other.
    static TIMING: Mutex<()> = Mutex::new(());

    /// The fastest backend that can run `interleave` (1, 2 or [`BATCH`])
    /// exponentiations modulo `nlimbs`-limb moduli, or one to a short
    /// exponent ([`SHORT_EXPONENT`]), timed the first time it is asked for
    /// and remembered for the process.
    #[cfg_attr(feature = "ct-audit", allow(dead_code))] // audit builds never calibrate
    pub(crate) fn calibrate(nlimbs: usize, interleave: usize) -> Exponentiation {
        let Some(shape) = SHAPES.iter().position(|&s| s == interleave) else {
            return Exponentiation::LimbKernels;
        };
        if nlimbs > MAX_LIMBS {
            return Exponentiation::LimbKernels;
        }
        // A pair may run apart on the single choice, a batch on the pair's
        // choice: either may calibrate in turn, so they are made before this
        // calibration holds the lock.
        if interleave == 2 || interleave == BATCH {
            super::super::selection().exponentiation(nlimbs, 1);
        }
        if interleave == BATCH {
            super::super::selection().exponentiation(nlimbs, 2);
        }
        let slot = &CHOSEN[shape * (MAX_LIMBS + 1) + nlimbs];
        if let Some(&e) = ALL.get(usize::from(slot.load(Ordering::Acquire)).wrapping_sub(1)) {
            return e;
        }
        let _one_at_a_time = TIMING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&e) = ALL.get(usize::from(slot.load(Ordering::Acquire)).wrapping_sub(1)) {
            return e;
        }
        let mut timed = time_variants(nlimbs, interleave, EXP_BITS, RUNS);
        timed.sort_by_key(|&(_, t)| t);
        let fastest = timed
            .first()
            .map_or(Exponentiation::LimbKernels, |&(e, _)| e);
        let number = |e: Exponentiation| ALL.iter().position(|&a| a == e).unwrap_or(0) as u8 + 1;
        if let [(_, t0), (second, t1), ..] = timed[..]
            && interleave != BATCH
            && t1.as_secs_f64() <= t0.as_secs_f64() * RACE_WITHIN
        {
            RUNNER_UP[shape * (MAX_LIMBS + 1) + nlimbs].store(number(second), Ordering::Relaxed);
        }
        slot.store(number(fastest), Ordering::Release);
        fastest
    }

    /// The calibration's choice and its runner-up, where that came within
    /// [`RACE_WITHIN`] of it: they race (`race`).
    #[cfg_attr(feature = "ct-audit", allow(dead_code))] // audit builds never race
    pub(crate) fn calibrated_racers(nlimbs: usize, interleave: usize) -> Option<Racers> {
        let first = calibrate(nlimbs, interleave);
        let shape = SHAPES.iter().position(|&s| s == interleave)?;
        let runner_up = RUNNER_UP.get(shape * (MAX_LIMBS + 1) + nlimbs)?;
        let second = *ALL.get(usize::from(runner_up.load(Ordering::Relaxed)).wrapping_sub(1))?;
        Racers::of([first, second].into_iter(), 2)
    }

    /// Every backend that can run `interleave` (1, 2 or [`BATCH`])
    /// exponentiations modulo `nlimbs`-limb moduli here, with the median of
    /// `runs` timed runs ([`time_variant_rounds`]): what the calibration
    /// compares (with 256-bit exponents).
    pub(super) fn time_variants(
        nlimbs: usize,
        interleave: usize,
        exp_bits: u32,
        runs: usize,
    ) -> Vec<(Exponentiation, Duration)> {
        time_variant_rounds(nlimbs, interleave, exp_bits, runs)
            .into_iter()
            .map(|(e, mut t)| {
                t.sort_unstable();
                (e, t.get(t.len() / 2).copied().unwrap_or_default())
            })
            .collect()
    }

    /// Every backend that can run `interleave` (1, 2 or [`BATCH`])
    /// exponentiations modulo `nlimbs`-limb moduli here, with its time in
    /// each of `runs` rounds (after one untimed), on public inputs from a
    /// fixed seed: random odd moduli of full width, bases below them,
    /// `exp_bits`-bit exponents. A batch is eight exponentiations: passes
    /// of a batch kernel's lanes, or pairs on any other backend.
    /// [`SHORT_EXPONENT`] times one variable-time exponentiation to 65537
    /// (`exp_bits` does not apply). The
    /// backends run in turn, round by round, so that a burst of noise hits
    /// them alike, and round `k` of two backends can be compared
    /// ([`check_choice`]: what the selection checks use). A size only one
    /// backend takes is not timed (its times are empty).
    pub fn time_variant_rounds(
        nlimbs: usize,
        interleave: usize,
        exp_bits: u32,
        runs: usize,
    ) -> Vec<(Exponentiation, Vec<Duration>)> {
        rounds(nlimbs, interleave, exp_bits, runs, false).0
    }

    /// [`time_variant_rounds`] with, in the same rounds, the selection's
    /// own path (`pow_bounded`, `pow_bounded_pair`, `pow_bounded_batch`,
    /// `pow_vartime`: a race where this size has one), after 256 untimed
    /// runs of it (past its race's first, more exploring runs): its times
    /// second, each the mean of a block of [`SELECTION_BLOCK`] runs.
    fn time_selection_rounds(
        nlimbs: usize,
        interleave: usize,
        exp_bits: u32,
        runs: usize,
    ) -> (Vec<(Exponentiation, Vec<Duration>)>, Vec<Duration>) {
        rounds(nlimbs, interleave, exp_bits, runs, true)
    }

    /// Runs of the selection's path before its timed rounds: a process
    /// that has run a while, past its race's first, more exploring runs.
    const SELECTION_WARM_UP: usize = super::super::race::EARLY as usize;

    /// Runs of the selection's path a round, timed together. A race runs
    /// a backend behind once in this many and can hand over the lead only
    /// then: with one run a round, its leader would be the one the warm-up
    /// left, whatever the load did since, and its time would leave out
    /// what exploring costs. A block of this many is what a process running
    /// the race gets.
    const SELECTION_BLOCK: u32 = super::super::race::EXPLORE;

    /// The rounds of both: `None` in the candidates is the selection's path.
    fn rounds(
        nlimbs: usize,
        interleave: usize,
        exp_bits: u32,
        runs: usize,
        with_selection: bool,
    ) -> (Vec<(Exponentiation, Vec<Duration>)>, Vec<Duration>) {
        let mut candidates: Vec<Option<Exponentiation>> = ALL
            .into_iter()
            .filter(|&e| e.available(nlimbs, interleave))
            .map(Some)
            .collect();
        if candidates.len() < 2 {
            let timed = candidates.into_iter().flatten().map(|e| (e, Vec::new()));
            return (timed.collect(), Vec::new());
        }
        if with_selection {
            candidates.push(None);
        }
        let mut state = 0x6a09_e667_f3bc_c908_u64 ^ nlimbs as u64;
        let mut word = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut operand = || {
            let mut m: Vec<u64> = (0..nlimbs).map(|_| word()).collect();
            m[0] |= 1;
            m[nlimbs - 1] |= 1 << 63;
            let base: Vec<u64> = (0..nlimbs).map(|_| word() >> 1).collect();
            let exp: Vec<u64> = (0..nlimbs).map(|_| word()).collect();
            let params = MontyParams::new(BoxedUint::from_words(m)).ok()?;
            let base = params.to_monty(&BoxedUint::from_words(base));
            Some((params, base, BoxedUint::from_words(exp)))
        };
        let count = if interleave == BATCH { BATCH } else { 2 };
        let Some(operands) = (0..count).map(|_| operand()).collect::<Option<Vec<_>>>() else {
            return (Vec::new(), Vec::new());
        };
        let operands: Vec<_> = operands
            .iter()
            .map(|(p, b, e)| (p, b, e.as_ref()))
            .collect();
        let mut out = std::vec![operands[0].0.zero(); count];
        let exp_bits = exp_bits.min(nlimbs as u32 * 64);
        let mut run = |e: Option<Exponentiation>| -> Duration {
            let start = Instant::now();
            let ran = match (interleave, e) {
                (1, None) => {
                    let (p, b, x) = operands[0];
                    let _ = core::hint::black_box(p.pow_bounded(b, &x, exp_bits));
                    true
                }
                (2, None) => {
                    let pair = [operands[0], operands[1]];
                    let _ = core::hint::black_box(MontyParams::pow_bounded_pair(pair, exp_bits));
                    true
                }
                (SHORT_EXPONENT, None) => {
                    let (p, b, _) = operands[0];
                    let _ = core::hint::black_box(p.pow_vartime(b, &[65537]));
                    true
                }
                (_, None) => MontyParams::pow_bounded_batch(&operands, exp_bits, &mut out).is_ok(),
                (SHORT_EXPONENT, Some(e)) => {
                    let (p, b, _) = operands[0];
                    p.pow_on_vartime(e, b, &[65537]).is_some()
                }
                (1, Some(e)) => {
                    let (p, b, x) = operands[0];
                    p.pow_bounded_on(e, b, &x, exp_bits).is_some()
                }
                (2, Some(e)) => {
                    let pair = [operands[0], operands[1]];
                    MontyParams::pow_bounded_pair_on(e, pair, exp_bits).is_some()
                }
                (_, Some(e)) => {
                    MontyParams::pow_bounded_batch_on(e, &operands, exp_bits, &mut out).is_ok()
                }
            };
            match ran {
                true => start.elapsed(),
                false => Duration::MAX,
            }
        };
        if with_selection {
            for _ in 0..SELECTION_WARM_UP {
                run(None);
            }
        }
        let mut run = |e: Option<Exponentiation>| match e {
            Some(_) => run(e),
            None => {
                let mut total = Duration::ZERO;
                for _ in 0..SELECTION_BLOCK {
                    match run(None) {
                        Duration::MAX => return Duration::MAX,
                        t => total += t,
                    }
                }
                total / SELECTION_BLOCK
            }
        };
        let runs = runs.max(1);
        let mut times = std::vec![Vec::with_capacity(runs); candidates.len()];
        for round in 0..=runs {
            for (i, &e) in candidates.iter().enumerate() {
                let t = run(e);
                if round > 0 {
                    times[i].push(t);
                }
            }
        }
        let selection = match with_selection {
            true => times.pop().unwrap_or_default(),
            false => Vec::new(),
        };
        let timed = candidates.into_iter().flatten().zip(times).collect();
        (timed, selection)
    }

    /// One backend's time ÷ another's, round by round: the median of the
    /// rounds' ratios and a confidence interval for it of at least 95 %
    /// (order statistics of the ratios: distribution-free; with fewer than
    /// six rounds, the range). A slow stretch of a shared machine slows
    /// both sides of a round, so the ratio holds where two medians of
    /// separate times drift apart.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct PairedRatio {
        /// The median of the rounds' ratios.
        pub median: f64,
        /// The interval's lower end.
        pub low: f64,
        /// The interval's upper end.
        pub high: f64,
    }

    impl PairedRatio {
        /// `a[k] ÷ b[k]` over the rounds both timed; `None` without one.
        pub fn of(a: &[Duration], b: &[Duration]) -> Option<Self> {
            let mut r: Vec<f64> = a
                .iter()
                .zip(b)
                .filter(|(x, y)| !y.is_zero() && **x != Duration::MAX && **y != Duration::MAX)
                .map(|(x, y)| x.as_secs_f64() / y.as_secs_f64())
                .collect();
            if r.is_empty() {
                return None;
            }
            r.sort_unstable_by(f64::total_cmp);
            let n = r.len();
            // The interval [r_(j), r_(n+1-j)] (1-based) misses the median
            // with probability 2·P(Bin(n, 1/2) < j): the largest j that
            // keeps that at most 5 %, at least 1.
            let mut j = 1;
            let mut below = 0.5f64.powi(n as i32); // P(X < 1) = P(X = 0)
            let mut term = below;
            for k in 1..n {
                term *= (n - k + 1) as f64 / k as f64; // P(X = k)
                if 2.0 * (below + term) > 0.05 {
                    break;
                }
                below += term;
                j = k + 1;
            }
            let j = j.min(n.div_ceil(2));
            let median = if n % 2 == 1 {
                r[n / 2]
            } else {
                (r[n / 2 - 1] + r[n / 2]) / 2.0
            };
            Some(PairedRatio {
                median,
                low: r[j - 1],
                high: r[n - j],
            })
        }
    }

    /// A selection check's verdict on one size and shape: the choice
    /// against every other backend, by [`PairedRatio`]s of the choice's
    /// time ÷ the other's and [`SELECTION_TOLERANCE`].
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum ChoiceVerdict {
        /// Nothing else takes this size (or nothing was timed).
        Alone,
        /// Within the tolerance of every other backend: every interval's
        /// upper end at most the tolerance.
        Within,
        /// Slower than `than` by more than the tolerance: the interval's
        /// lower end above it.
        NotFastest {
            /// The faster backend.
            than: Exponentiation,
            /// The choice's time ÷ its time.
            ratio: PairedRatio,
        },
        /// Neither: an interval holds the tolerance (more rounds narrow it).
        Undecided {
            /// The backend whose interval reaches highest.
            than: Exponentiation,
            /// The choice's time ÷ its time.
            ratio: PairedRatio,
        },
    }

    /// The verdict on `chosen` among `rounds` ([`time_variant_rounds`]).
    pub fn check_choice(
        rounds: &[(Exponentiation, Vec<Duration>)],
        chosen: Exponentiation,
    ) -> ChoiceVerdict {
        let Some((_, mine)) = rounds.iter().find(|(e, _)| *e == chosen) else {
            return ChoiceVerdict::Alone;
        };
        check_times(mine, rounds.iter().filter(|(e, _)| *e != chosen))
    }

    /// The verdict on the times `mine`, taken in the same rounds as every
    /// backend's of `rounds` (the selection's own path, from
    /// [`time_selection_rounds`]), against each of them.
    fn check_selection(
        rounds: &[(Exponentiation, Vec<Duration>)],
        mine: &[Duration],
    ) -> ChoiceVerdict {
        check_times(mine, rounds.iter())
    }

    /// The selection check at one size and shape ([`selection_check`]).
    pub struct SelectionCheck {
        /// What the selection runs there: its choice, or where the size
        /// races, the racer that leads after the rounds.
        pub chosen: Exponentiation,
        /// The racers, where the size races.
        pub racers: Option<Racers>,
        /// Every backend that can run the size and shape, with its times,
        /// round by round (a lone backend's are empty).
        pub timed: Vec<(Exponentiation, Vec<Duration>)>,
        /// The selection's times in the same rounds: its own path where the
        /// size races, else its choice's; `None` when its choice did not
        /// run.
        pub mine: Option<Vec<Duration>>,
        /// The selection against every backend, round by round.
        pub verdict: ChoiceVerdict,
    }

    /// Times every backend that can run `interleave` (1, 2, [`BATCH`] or
    /// [`SHORT_EXPONENT`]) exponentiations modulo `nlimbs`-limb moduli
    /// to `exp_bits`-bit exponents, `runs` rounds in turn, with the
    /// selection's own path beside them where the size races, and checks
    /// the selection against each, round by round: what `numcrypt speed
    /// --variants` and the `exp_variants` bench print.
    pub fn selection_check(
        nlimbs: usize,
        interleave: usize,
        exp_bits: u32,
        runs: usize,
    ) -> SelectionCheck {
        let selection = super::super::selection();
        let racers = selection.racers(nlimbs, interleave);
        let (timed, raced) = match racers {
            Some(_) => time_selection_rounds(nlimbs, interleave, exp_bits, runs),
            None => (
                time_variant_rounds(nlimbs, interleave, exp_bits, runs),
                Vec::new(),
            ),
        };
        let chosen = match interleave {
            BATCH => selection.batch_exponentiation(nlimbs),
            _ => selection.exponentiation(nlimbs, interleave),
        };
        let (mine, verdict) = match racers {
            Some(_) => {
                let verdict = check_selection(&timed, &raced);
                (Some(raced), verdict)
            }
            None => (
                timed
                    .iter()
                    .find(|(e, _)| *e == chosen)
                    .map(|(_, t)| t.clone()),
                check_choice(&timed, chosen),
            ),
        };
        SelectionCheck {
            chosen,
            racers,
            timed,
            mine,
            verdict,
        }
    }

    fn check_times<'a>(
        mine: &[Duration],
        rounds: impl Iterator<Item = &'a (Exponentiation, Vec<Duration>)>,
    ) -> ChoiceVerdict {
        let others = rounds.filter_map(|(e, t)| Some((*e, PairedRatio::of(mine, t)?)));
        let mut slower: Option<(Exponentiation, PairedRatio)> = None;
        let mut highest: Option<(Exponentiation, PairedRatio)> = None;
        for (e, r) in others {
            if slower.is_none_or(|(_, s)| r.low > s.low) {
                slower = Some((e, r));
            }
            if highest.is_none_or(|(_, h)| r.high > h.high) {
                highest = Some((e, r));
            }
        }
        match (slower, highest) {
            (Some((than, ratio)), _) if ratio.low > SELECTION_TOLERANCE => {
                ChoiceVerdict::NotFastest { than, ratio }
            }
            (_, Some((than, ratio))) if ratio.high > SELECTION_TOLERANCE => {
                ChoiceVerdict::Undecided { than, ratio }
            }
            (_, Some(_)) => ChoiceVerdict::Within,
            _ => ChoiceVerdict::Alone,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(vendor: &[u8; 12], family: u32, model: u32, amx: bool) -> Cpu {
        Cpu {
            vendor: *vendor,
            family,
            model,
            brand: [0; 48],
            amx,
        }
    }

    #[test]
    fn rows_of_a_cpu_do_not_hide_each_other() {
        // A row wholly behind an earlier one that covers its sizes and
        // shapes would never apply.
        for k in KNOWN {
            for (i, later) in k.rows.iter().enumerate() {
                let hidden = k.rows[..i].iter().any(|earlier| {
                    earlier.limbs.contains(later.limbs.start())
                        && earlier.limbs.contains(later.limbs.end())
                        && earlier.shapes & later.shapes == later.shapes
                });
                assert!(!hidden, "{}: row {i} is never reached", k.name);
                assert!(!later.fastest_first.is_empty(), "{}: row {i}", k.name);
            }
        }
    }

    #[cfg(feature = "std")]
    const ALL_BACKENDS: [Exponentiation; Exponentiation::ALL.len()] = Exponentiation::ALL;

    #[cfg(feature = "std")]
    #[test]
    fn time_variants_times_every_backend_that_runs() {
        for (n, k) in [(16, 1), (24, 2), (8, 1), (32, SHORT_EXPONENT)] {
            let times = calibration::time_variants(n, k, 64, 2);
            let runs: std::vec::Vec<Exponentiation> = ALL_BACKENDS
                .into_iter()
                .filter(|e| e.available(n, k))
                .collect();
            let timed: std::vec::Vec<Exponentiation> = times.iter().map(|&(e, _)| e).collect();
            assert_eq!(timed, runs, "{n} limbs, {k} at once");
            if runs.len() > 1 {
                assert!(times.iter().all(|&(_, t)| t > std::time::Duration::ZERO));
            }
        }
        assert!(calibration::time_variants(0, 1, 64, 2).is_empty());
        // A batch: every batch kernel and every backend that runs pairs.
        let times = calibration::time_variants(16, BATCH, 64, 1);
        let runs: std::vec::Vec<Exponentiation> = ALL_BACKENDS
            .into_iter()
            .filter(|&e| e.available(16, BATCH))
            .collect();
        let timed: std::vec::Vec<Exponentiation> = times.iter().map(|&(e, _)| e).collect();
        assert_eq!(timed, runs);
        assert!(runs.contains(&LimbKernels));
    }

    #[cfg(feature = "std")]
    #[test]
    fn paired_ratios_take_the_order_statistics_of_the_sign_test() {
        use std::time::Duration;
        let ms = |v: &[u64]| -> std::vec::Vec<Duration> {
            v.iter().map(|&x| Duration::from_millis(x)).collect()
        };
        // Ratios 1 to n in a scrambled order, against a steady other side:
        // the sign test's 95 % ranks (tables: 2 and 10 of 11, 6 and 16 of
        // 21); with five rounds the range (2/32 is over 5 %).
        for (n, low, high) in [(11u64, 2.0, 10.0), (21, 6.0, 16.0), (5, 1.0, 5.0)] {
            let a: std::vec::Vec<u64> = (0..n).map(|k| (k * 2 % n) + 1).collect();
            let r = PairedRatio::of(&ms(&a), &ms(&std::vec![1; n as usize])).unwrap();
            assert_eq!(
                (r.low, r.median, r.high),
                (low, (n + 1) as f64 / 2.0, high),
                "{n}"
            );
        }
        // A round that did not run is left out; nothing timed, no ratio.
        let r = PairedRatio::of(&[Duration::MAX, Duration::from_millis(2)], &ms(&[1, 1]));
        assert_eq!(r.map(|r| r.median), Some(2.0));
        assert_eq!(PairedRatio::of(&[], &[]), None);
    }

    #[cfg(feature = "std")]
    #[test]
    fn a_choice_is_judged_by_its_intervals() {
        use std::time::Duration;
        let rounds = |chosen: &[u64], other: &[u64]| {
            let us = |v: &[u64]| v.iter().map(|&x| Duration::from_micros(x)).collect();
            std::vec![(LimbKernels, us(chosen)), (Exponentiation::Avx2, us(other))]
        };
        // The other backend's time drifts by a half between rounds; the
        // choice stays 10 % behind it, round by round.
        let drift = [
            1000, 1500, 1100, 1400, 1200, 1300, 1000, 1500, 1100, 1400, 1200,
        ];
        let behind: std::vec::Vec<u64> = drift.iter().map(|t| t * 11 / 10).collect();
        let level: std::vec::Vec<u64> = drift.iter().map(|t| t + 5).collect();
        assert!(matches!(
            check_choice(&rounds(&behind, &drift), LimbKernels),
            ChoiceVerdict::NotFastest { than: Exponentiation::Avx2, ratio } if ratio.low > 1.09
        ));
        assert_eq!(
            check_choice(&rounds(&level, &drift), LimbKernels),
            ChoiceVerdict::Within
        );
        // Within in most rounds, 10 % behind in a few: the interval holds 3 %.
        let mixed: std::vec::Vec<u64> = drift
            .iter()
            .enumerate()
            .map(|(k, t)| if k % 3 == 0 { t * 11 / 10 } else { *t })
            .collect();
        assert!(matches!(
            check_choice(&rounds(&mixed, &drift), LimbKernels),
            ChoiceVerdict::Undecided { .. }
        ));
        // The other way round the choice is the faster: within.
        assert_eq!(
            check_choice(&rounds(&drift, &behind), LimbKernels),
            ChoiceVerdict::Within
        );
        assert_eq!(
            check_choice(&rounds(&drift, &[]), LimbKernels),
            ChoiceVerdict::Alone
        );
        assert_eq!(
            check_choice(&rounds(&drift, &drift), Exponentiation::Ifma512),
            ChoiceVerdict::Alone
        );
    }

    #[cfg(all(feature = "std", not(feature = "ct-audit")))]
    #[test]
    fn a_calibration_is_made_once_and_runs() {
        // Sizes no row covers on any CPU here: past every vector kernel,
        // and an odd size; and batches (calibrated where a row covers them
        // too: this calls the calibration itself).
        for (n, k) in [
            (104, 1),
            (21, 2),
            (16, BATCH),
            (20, BATCH),
            (21, SHORT_EXPONENT),
        ] {
            let first = calibrate(n, k);
            assert!(first.available(n, k), "{first:?} at {n} limbs");
            assert_eq!(calibrate(n, k), first, "remembered");
            // A runner-up close enough races the choice; never in batches.
            if let Some(racers) = calibrated_racers(n, k) {
                assert_ne!(k, BATCH);
                let [a, b] = racers.backends() else {
                    panic!("{racers:?}")
                };
                assert_eq!(*a, first);
                assert!(a != b && b.available(n, k), "{racers:?}");
            }
        }
        assert_eq!(calibrate(104, 1), LimbKernels);
        assert_eq!(calibrated_racers(104, 1), None);
        assert_eq!(calibrate(16, 3), LimbKernels);
    }

    #[test]
    fn the_measured_choices() {
        let order = |c: &Cpu, n, k| known(c).and_then(|i| KNOWN[i].order(n, k)).map(|o| o[0]);
        let zen3 = cpu(b"AuthenticAMD", 0x19, 0x01, false);
        let zen4 = cpu(b"AuthenticAMD", 0x19, 0x11, false);
        let zen5 = cpu(b"AuthenticAMD", 0x1a, 0x02, false);
        let icx = cpu(b"GenuineIntel", 6, 0x6a, false);
        let spr_guest = cpu(b"GenuineIntel", 6, 0xa7, true);
        let rocket_lake = cpu(b"GenuineIntel", 6, 0xa7, false);
        assert_eq!(order(&zen4, 32, 2), Some(Ifma256));
        assert_eq!(order(&zen5, 32, 2), Some(Ifma512));
        // Zen 4's pairs up to 38 limbs race the scalar quotient against the
        // vector one; one exponentiation races up to 28 limbs; batches race
        // where the IFMA batch kernel is off.
        let racers = |c: &Cpu, n, k| {
            known(c)
                .and_then(|i| KNOWN[i].row(n, k))
                .map_or(0, Row::racers)
        };
        for (n, k, racing) in [
            (16, 2, 2),
            (24, 2, 2),
            (32, 2, 3),
            (38, 2, 3),
            (39, 2, 0),
            (16, 1, 2),
            (24, 1, 2),
            (32, 1, 0),
            (24, SHORT_EXPONENT, 2),
            (16, SHORT_EXPONENT, 0),
            (16, BATCH, 3),
            (32, BATCH, 3),
        ] {
            assert_eq!(racers(&zen4, n, k), racing, "{n} limbs, {k}");
        }
        let without_first = |c: &Cpu, n, k| {
            known(c)
                .and_then(|i| KNOWN[i].row(n, k))
                .is_some_and(Row::races_only_without_first)
        };
        assert!(without_first(&zen4, 16, BATCH));
        assert!(!without_first(&zen4, 16, 2));
        // Zen 3's batches: the FMA units' kernel (modelled) races AVX2's.
        assert_eq!(racers(&zen3, 16, BATCH), 2);
        assert_eq!(racers(&spr_guest, 16, 2), 0);
        assert_eq!(order(&icx, 24, 2), Some(Ifma512));
        assert_eq!(order(&icx, 32, 2), Some(Ifma256));
        // Ice Lake's single exponentiations were never timed: calibrated.
        assert_eq!(order(&icx, 32, 1), None);
        assert_eq!(order(&spr_guest, 24, 2), Some(Ifma256VectorQuotient));
        assert_eq!(order(&spr_guest, 24, 1), Some(Ifma512));
        assert_eq!(order(&spr_guest, 32, 1), Some(Ifma256));
        assert_eq!(order(&spr_guest, 16, 2), Some(Ifma256VectorQuotient));
        assert_eq!(order(&spr_guest, 32, 2), Some(Ifma256VectorQuotient));
        assert_eq!(order(&spr_guest, 39, 2), Some(Ifma256));
        // Where scalar work does not share the IFMA ports, the scalar
        // quotient (Zen 4, with the dedicated squares from 20 limbs).
        assert_eq!(order(&zen4, 16, 2), Some(Ifma256));
        assert_eq!(order(&zen4, 33, 2), Some(Ifma256));
        assert_eq!(order(&zen4, 38, 2), Some(Ifma256));
        assert_eq!(order(&zen4, 39, 2), Some(Apart));
        assert_eq!(order(&spr_guest, 48, 2), Some(Apart));
        assert_eq!(order(&spr_guest, 16, BATCH), Some(IfmaBatch));
        assert_eq!(order(&zen4, 48, 2), Some(Apart));
        assert_eq!(order(&zen4, 16, BATCH), Some(IfmaBatch));
        assert_eq!(order(&zen5, 16, BATCH), None, "calibrated");
        assert_eq!(known(&rocket_lake), None);
        assert_eq!(known(&cpu(b"GenuineIntel", 6, 0xad, true)), None);
        let before = |a, b, c: &Cpu, n, k| {
            let o = known(c).and_then(|i| KNOWN[i].order(n, k)).unwrap();
            let at = |e| o.iter().position(|&x| x == e).unwrap();
            at(a) < at(b)
        };
        // AVX2 after the limb kernels where it lost, before them where it won.
        let ahead = |e, c: &Cpu, n, k| before(e, LimbKernels, c, n, k);
        assert!(ahead(Avx2, &zen4, 16, 1));
        assert!(ahead(Avx2, &zen5, 32, 2));
        assert!(ahead(Avx2, &icx, 24, 2));
        assert!(!ahead(Avx2, &icx, 16, 2));
        assert!(!ahead(Avx2, &spr_guest, 32, 2));
        // The same for AVX-512F in radix 2^28 on Sapphire Rapids: ahead
        // from 1536 bits, behind at 1024.
        assert!(ahead(Avx512, &spr_guest, 24, 1));
        assert!(ahead(Avx512, &spr_guest, 32, 2));
        assert!(!ahead(Avx512, &spr_guest, 16, 1));
        assert!(!ahead(Avx512, &spr_guest, 16, 2));
        // On Zen 4 with IFMA off: AVX2 up to 1280 bits, AVX-512F above (both
        // with their dedicated squares).
        assert!(before(Avx2, Avx512, &zen4, 20, 1));
        for n in [21, 32, 45] {
            assert!(before(Avx512, Avx2, &zen4, n, 1));
        }
        // With IFMA off, Zen 4's batch kernels race, the FMA units' first.
        assert!(before(Fma512Batch, FmaBatch, &zen4, 16, BATCH));
        assert!(before(FmaBatch, Avx512Batch, &zen4, 16, BATCH));
        assert!(before(Avx512Batch, Avx2Batch, &zen4, 16, BATCH));
        assert!(before(Avx2Batch, LimbKernels, &zen4, 16, BATCH));
        // To a short public exponent with IFMA off, the limb kernels up to
        // 1280 bits, AVX-512F's kernels above.
        assert!(before(LimbKernels, Avx512, &zen4, 16, SHORT_EXPONENT));
        for n in [24, 32] {
            assert!(before(Avx512, LimbKernels, &zen4, n, SHORT_EXPONENT));
        }
        // To a short public exponent on Zen 3 and 4: IFMA, else the limb
        // kernels ahead of AVX2's conversions, at every size AVX2 takes;
        // where no row says, the order for one.
        for n in [16, 24, 32, 45] {
            assert_eq!(order(&zen4, n, SHORT_EXPONENT), Some(Ifma256));
            assert!(before(LimbKernels, Avx2, &zen4, n, SHORT_EXPONENT));
            assert!(before(Avx2, LimbKernels, &zen4, n, 1));
        }
        // Zen 3 (no AVX-512): the limb kernels for 1024- and 2048-bit
        // moduli, AVX2 for 1536-bit ones.
        assert_eq!(order(&zen3, 16, 2), Some(LimbKernels));
        assert_eq!(order(&zen3, 16, 1), Some(LimbKernels));
        assert_eq!(order(&zen3, 24, 2), Some(Apart));
        assert_eq!(order(&zen3, 24, 1), Some(Avx2));
        assert_eq!(order(&zen3, 32, 2), Some(LimbKernels));
        assert_eq!(order(&zen3, 32, 1), Some(LimbKernels));
        assert_eq!(order(&zen3, 16, BATCH), Some(FmaBatch));
        assert!(before(Avx2Batch, LimbKernels, &zen3, 16, BATCH));
        assert_eq!(order(&zen3, 16, SHORT_EXPONENT), Some(LimbKernels));
        // Zen 1 (128-bit vector units): the limb kernels for every shape
        // but batches, which the FMA units' kernel runs, then pairs, and
        // pairs of 1024 to 2048 bits, which its two-lane form runs; Zen 2
        // (another family 0x17 model) calibrates.
        let zen1 = cpu(b"AuthenticAMD", 0x17, 0x01, false);
        for n in [16, 24, 32, 48, 64] {
            for k in [1, 2, SHORT_EXPONENT] {
                let first = match (n, k) {
                    (16 | 24 | 32, 2) => FmaPair,
                    _ => LimbKernels,
                };
                assert_eq!(order(&zen1, n, k), Some(first), "{n} limbs, {k}");
            }
        }
        assert!(before(LimbKernels, Avx2, &zen1, 24, 2));
        let zen1_pairs = known(&zen1).and_then(|i| KNOWN[i].row(24, 2)).unwrap();
        assert_eq!(zen1_pairs.racers(), 2);
        assert_eq!(order(&zen1, 16, BATCH), Some(FmaBatch));
        assert!(before(LimbKernels, Avx2Batch, &zen1, 32, BATCH));
        assert_eq!(known(&cpu(b"AuthenticAMD", 0x17, 0x31, false)), None);
        let ones = |c: &Cpu, n| known(c).and_then(|i| KNOWN[i].order(n, 1));
        let shorts = |c: &Cpu, n| known(c).and_then(|i| KNOWN[i].order(n, SHORT_EXPONENT));
        assert_eq!(shorts(&spr_guest, 24), ones(&spr_guest, 24));
        assert_eq!(shorts(&zen5, 32), ones(&zen5, 32));
    }
}
