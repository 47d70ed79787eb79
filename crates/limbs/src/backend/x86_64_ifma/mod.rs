//! Montgomery exponentiation with AVX-512 IFMA, in radix 2^52.
//!
//! `vpmadd52luq`/`vpmadd52huq` multiply four (256-bit registers) or eight
//! (512-bit) pairs of 52-bit digits and add the low (or high) 52 bits of
//! each 104-bit product to a 64-bit lane: eight to sixteen 52×52-bit
//! products a cycle against one 64×64-bit `mulx`, which is why OpenSSL 3
//! and AWS-LC use them for RSA.
//!
//! A residue is held as `N` digits of 52 bits, with room for four times the
//! modulus (`R' = 2^(52N)`). Multiplication is the "almost" Montgomery
//! multiplication (AMM) of Gueron and Krasnov: inputs below twice the
//! modulus give `a·b·R'⁻¹` below twice the modulus, with no final
//! subtraction; a limb Montgomery reduction ends the exponentiation. Only
//! whole exponentiations run here, converted in and out by
//! [`super::radix`].
//!
//! Two kernel families ([`Variant`]), one a variant of
//! [`Exponentiation`](crate::backend::Exponentiation) each:
//! - `ymm` ([`Exponentiation::Ifma256`](crate::backend::Exponentiation::Ifma256)): generated assembly on 256-bit
//!   registers, modulo `m` itself, the accumulation inside the IFMA
//!   instructions (OpenSSL's schedule, with a scalar look-ahead for the
//!   quotient digits), digits held strided (`radix::DigitLayout::Strided`) so
//!   that the accumulator's shift is mostly a renaming of registers: the
//!   fewest instructions per digit, for cores whose IFMA throughput is the
//!   limit, such as Zen 4, which runs a 512-bit operation as two 256-bit
//!   halves. Pairs of 5 to 12 vectors (RSA-2048's to RSA-4096's CRT
//!   halves) square with a dedicated square, about three quarters of the
//!   products (`NUMCRYPT_DISABLE=ifma-square` turns it off, for
//!   comparisons).
//!   For pairs the same kernels also come with the quotient digits in the
//!   vector unit, no scalar work at all
//!   ([`Exponentiation::Ifma256VectorQuotient`](crate::backend::Exponentiation::Ifma256VectorQuotient)):
//!   faster where scalar `mulx` and `imul` share the IFMA ports (Intel),
//!   slower where they do not (AMD).
//! - `zmm` ([`Exponentiation::Ifma512`](crate::backend::Exponentiation::Ifma512)): intrinsics on 512-bit registers,
//!   modulo `m·k0` so that no multiplication sits on the quotient's chain,
//!   the products summed outside the accumulator: the shortest chains, for
//!   cores with full-width units, such as Zen 5. Squares run on a dedicated
//!   square at every size (`NUMCRYPT_DISABLE=ifma-square` turns it off too).
//!
//! The backend chooses between them by measurement (`backend::preference`).
//! Both run two independent exponentiations in one loop (RSA's CRT halves),
//! which fills one's serial latency with the other's products, as OpenSSL's
//! `ossl_rsaz_mod_exp_avx512_x2` does.
//!
//! # Constant time
//! Loops run over public counts; no branch or address depends on a digit.
//! The table lookup reads every entry and selects with masks. IFMA
//! instructions have data-independent latency on the CPUs that implement
//! them. `.ci/ct-check` counts the instructions of both variants natively
//! (valgrind does not emulate AVX-512).

use core::arch::x86_64::*;

use super::radix::{Column, DigitLayout, Digits};
use crate::Limb;
use crate::backend::radix::LimbMontgomery;
use crate::ops::montmul::ExpJob;
use crate::ops::trial::SmallFactorLanes;
use zeroize::Zeroize;

mod ymm;
mod zmm;

cpufeatures::new!(avx512_ifma, "avx512f", "avx512vl", "avx512ifma", "bmi2");

const DIGIT_BITS: u32 = 52;
const MASK52: u64 = (1 << DIGIT_BITS) - 1;
/// Digits of 52 bits, in the layout a kernel family chooses.
const fn radix(layout: DigitLayout) -> Digits {
    Digits {
        bits: DIGIT_BITS,
        layout,
    }
}
/// Digits per 512-bit vector.
const LANES: usize = 8;
/// One 512-bit vector of digits.
type Lanes = [u64; LANES];

/// Smallest modulus, in limbs, that exponentiates here. At 8 limbs (512
/// bits, two vectors) the unrolled `mulx` Montgomery kernel is still faster
/// than the AMM plus conversions; from 16 limbs IFMA wins at every size
/// (benches/RESULTS.md).
pub(crate) const MIN_LIMBS: usize = 16;

/// The AVX-512 IFMA exponentiation backend. A value exists only on a CPU
/// with AVX-512F, AVX-512VL, AVX-512IFMA and BMI2: [`Ifma::detect`] is the
/// only way to get one.
#[derive(Clone, Copy, Debug)]
pub struct Ifma(());

impl Ifma {
    /// The backend, if this CPU has what it needs (detected once and
    /// cached; free when the target features are enabled at compile time).
    #[inline]
    pub fn detect() -> Option<Self> {
        if avx512_ifma::init_get().1 {
            Some(Ifma(()))
        } else {
            None
        }
    }
}

/// The two kernel families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Variant {
    /// 256-bit registers, generated assembly.
    Ymm,
    /// The same for pairs, the quotient digits in the vector unit.
    YmmVectorQuotient,
    /// 512-bit registers, intrinsics.
    Zmm,
}

/// Whether `variant` takes `interleave` exponentiations modulo `n`-limb
/// moduli (whatever the CPU).
pub(crate) fn takes(variant: Variant, n: usize, interleave: usize) -> bool {
    match variant {
        Variant::Ymm => ymm::shape(n, interleave, false).is_some(),
        Variant::YmmVectorQuotient => ymm::shape(n, interleave, true).is_some(),
        Variant::Zmm => zmm::shape(n, interleave).is_some(),
    }
}

/// Which dedicated squares run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Squares {
    /// None: the multiplication squares.
    Off,
    /// Every one there is for the shape; pairs of 10 to 12 vectors on the
    /// 256-bit kernels, which have two forms, in two phases or in one loop
    /// (`tools/gen_ifma_x86_64.py`).
    On { two_phase_pairs: bool },
}

/// Runs `job` on `variant`'s arithmetic: converts the bases (limb
/// Montgomery form) into the AMM domain, runs the exponentiation there on
/// elements that hold all `K` values, and converts the results back, fully
/// reduced (the conversions on `limbs`); squares run on the dedicated
/// squares `squares` names where `variant` has one for the shape. Returns
/// `false`, having done nothing, when the CPU lacks IFMA or `variant` does
/// not take the size (see [`takes`]).
pub(crate) fn run<const K: usize>(
    limbs: &dyn LimbMontgomery,
    variant: Variant,
    squares: Squares,
    job: ExpJob<'_, '_, '_, K>,
) -> bool {
    let (Some(ifma), Some(n)) = (Ifma::detect(), job.nlimbs()) else {
        return false;
    };
    match variant {
        Variant::Ymm | Variant::YmmVectorQuotient => {
            let vector_quotient = variant == Variant::YmmVectorQuotient;
            let squares = if vector_quotient {
                Squares::Off
            } else {
                squares
            };
            ymm::shape(n, K, vector_quotient)
                .is_some_and(|shape| ymm::run(limbs, ifma, shape, squares, job))
        }
        Variant::Zmm => {
            let square = squares != Squares::Off;
            zmm::shape(n, K).is_some_and(|shape| zmm::run(limbs, ifma, shape, square, job))
        }
    }
}

impl Ifma {
    /// Constant-time `out = table[index]`'s `L·V` words in `column`, `L`
    /// lanes to a vector (4 or 8): every entry is read and masked.
    fn lookup<const L: usize, const V: usize>(
        self,
        out: &mut [u64],
        table: &[u64],
        column: Column,
        index: u64,
    ) {
        // SAFETY: `self` proves the CPU has AVX-512F and VL, the features
        // `lookup_vectors` is compiled for; it reads `table` and writes `out`
        // only through the slices it is given.
        unsafe { lookup_vectors::<L, V>(out, table, column, index) }
    }
}

cpufeatures::new!(avx512_dq, "avx512dq");

/// Whether the CPU has AVX-512DQ (detected once).
pub(crate) fn has_avx512_dq() -> bool {
    avx512_dq::init_get().1
}

impl Ifma {
    /// [`crate::kernels::small_factor_52x8`] on this CPU: `None` without
    /// AVX-512DQ (which every IFMA CPU so far has).
    pub(crate) fn small_factor(self, x: &[Limb], blocks: &[SmallFactorLanes<'_>]) -> Option<u64> {
        if !has_avx512_dq() {
            return None;
        }
        let mut digits = [0u64; crate::kernels::SMALL_FACTOR_MAX_DIGITS];
        let digits = &mut digits[..(64 * x.len()).div_ceil(DIGIT_BITS as usize)];
        radix(DigitLayout::Contiguous).split(x, digits);
        // SAFETY: `self` proves the CPU has AVX-512F and IFMA, and the check
        // above AVX-512DQ, the features `small_factor_lanes` is compiled
        // for; it reads only the slices it is given.
        let hit = unsafe { small_factor_lanes(digits, blocks) };
        digits.zeroize();
        Some(hit)
    }
}

/// For each block, `v = Σ digits[j]·powers[j]` in each lane (the even and
/// odd digits in separate accumulators), one Montgomery step by a digit,
/// then `v·inverse < limit` for each row of primes: 1 when one holds,
/// else 0. The blocks' chains are independent, so one block's latency
/// overlaps the next one's work.
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
fn small_factor_lanes(digits: &[u64], blocks: &[SmallFactorLanes<'_>]) -> u64 {
    let zero = _mm512_setzero_si512();
    let mut hits: __mmask8 = 0;
    for lanes in blocks {
        let powers = lanes.powers;
        let (mut lo0, mut hi0, mut lo1, mut hi1) = (zero, zero, zero, zero);
        let pairs = digits.chunks_exact(2);
        let odd = pairs.remainder();
        for (d, row) in pairs.zip(powers.chunks_exact(2)) {
            let (d0, d1) = (
                _mm512_set1_epi64(d[0] as i64),
                _mm512_set1_epi64(d[1] as i64),
            );
            let (row0, row1) = (load512(&row[0]), load512(&row[1]));
            lo0 = _mm512_madd52lo_epu64(lo0, d0, row0);
            hi0 = _mm512_madd52hi_epu64(hi0, d0, row0);
            lo1 = _mm512_madd52lo_epu64(lo1, d1, row1);
            hi1 = _mm512_madd52hi_epu64(hi1, d1, row1);
        }
        if let [d] = odd {
            let (d, row) = (
                _mm512_set1_epi64(*d as i64),
                load512(&powers[digits.len() - 1]),
            );
            lo0 = _mm512_madd52lo_epu64(lo0, d, row);
            hi0 = _mm512_madd52hi_epu64(hi0, d, row);
        }
        let (lo, hi) = (_mm512_add_epi64(lo0, lo1), _mm512_add_epi64(hi0, hi1));
        let m = load512(lanes.modulus);
        // q = −lo·m⁻¹ mod 2^52, so lo + q·m is a multiple of 2^52.
        let q = _mm512_madd52lo_epu64(zero, lo, load512(lanes.neg_inv));
        let carry = _mm512_srli_epi64::<52>(_mm512_madd52lo_epu64(lo, q, m));
        let v = _mm512_add_epi64(_mm512_madd52hi_epu64(hi, q, m), carry);
        for (inverse, limit) in lanes.inverses.iter().zip(lanes.limits) {
            let t = _mm512_mullo_epi64(v, load512(inverse));
            hits |= _mm512_cmplt_epu64_mask(t, load512(limit));
        }
    }
    (hits != 0) as u64
}

/// `vpternlogq`'s truth table for `a | (b & c)`: one vector operation a
/// load instead of two, which leaves the scan bound by the loads.
const ACC_OR_ENTRY_AND_MASK: i32 = 0xf8;

/// [`Ifma::lookup`] (see `ct::lookup` for the mask): 512-bit registers for
/// `L = 8`, 256-bit for `L = 4`.
#[target_feature(enable = "avx512f,avx512vl")]
fn lookup_vectors<const L: usize, const V: usize>(
    out: &mut [u64],
    table: &[u64],
    column: Column,
    index: u64,
) {
    let Column { stride, offset } = column;
    let index = core::hint::black_box(index);
    let out = &mut out[..L * V];
    if L == 8 {
        let mut acc = [_mm512_setzero_si512(); V];
        for (i, entry) in table.chunks_exact(stride).enumerate() {
            let mask = _mm512_set1_epi64(entry_mask(i, index) as i64);
            let entry = &entry[offset..offset + 8 * V];
            for (a, e) in acc.iter_mut().zip(entry.chunks_exact(8)) {
                *a = _mm512_ternarylogic_epi64::<ACC_OR_ENTRY_AND_MASK>(*a, load512(e), mask);
            }
        }
        for (o, a) in out.chunks_exact_mut(8).zip(acc) {
            store512(o, a);
        }
    } else {
        let mut acc = [_mm256_setzero_si256(); V];
        for (i, entry) in table.chunks_exact(stride).enumerate() {
            let mask = _mm256_set1_epi64x(entry_mask(i, index) as i64);
            let entry = &entry[offset..offset + 4 * V];
            for (a, e) in acc.iter_mut().zip(entry.chunks_exact(4)) {
                *a = _mm256_ternarylogic_epi64::<ACC_OR_ENTRY_AND_MASK>(*a, load256(e), mask);
            }
        }
        for (o, a) in out.chunks_exact_mut(4).zip(acc) {
            store256(o, a);
        }
    }
}

/// All ones when `i == index`, else zero, without a branch.
#[inline]
fn entry_mask(i: usize, index: u64) -> u64 {
    0u64.wrapping_sub(((i as u64 ^ index).wrapping_sub(1)) >> 63)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn load512(x: &[u64]) -> __m512i {
    let x: &[u64; 8] = x.try_into().expect("eight words");
    // SAFETY: an unaligned 64-byte load from a reference to exactly 64
    // bytes.
    unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn store512(x: &mut [u64], v: __m512i) {
    let x: &mut [u64; 8] = x.try_into().expect("eight words");
    // SAFETY: an unaligned 64-byte store to a reference to exactly 64 bytes.
    unsafe { _mm512_storeu_si512(x.as_mut_ptr().cast(), v) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn load256(x: &[u64]) -> __m256i {
    let x: &[u64; 4] = x.try_into().expect("four words");
    // SAFETY: an unaligned 32-byte load from a reference to exactly 32
    // bytes.
    unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store256(x: &mut [u64], v: __m256i) {
    let x: &mut [u64; 4] = x.try_into().expect("four words");
    // SAFETY: an unaligned 32-byte store to a reference to exactly 32 bytes.
    unsafe { _mm256_storeu_si256(x.as_mut_ptr().cast(), v) }
}
