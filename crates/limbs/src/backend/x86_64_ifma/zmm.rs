//! The 512-bit (zmm) kernels: intrinsics, modulo `m' = m·k0`.
//!
//! The arithmetic runs modulo `m' = m·k0`, where `k0 = −m⁻¹ mod 2^52`: a
//! multiple of `m` whose lowest digit is `2^52 − 1`, so that the Montgomery
//! quotient digit `q_i` is the low digit itself, with no multiplication
//! (congruences modulo `m'` hold modulo `m`, and the result is reduced
//! modulo `m` on the way out). A residue is held as `N = ⌈(64n + 54)/52⌉`
//! digits, eight to a vector (`V = ⌈N/8⌉` vectors, the digits above `N`
//! zero), so that `4m' < R' = 2^(52N)`.
//!
//! # The multiplication loop
//! Digit `i` of `b` is one iteration (operand scanning). The accumulator's
//! lane `j` holds position `i + j`; it takes the low halves of `a·b_i` and
//! `m·q_i`, shifts down one lane (`valignq`), then takes the high halves,
//! which belong one position up. The serial part, `q_i` from the lowest
//! position, runs in general-purpose registers on a copy of that position:
//! the vector only supplies lane 1 (position `i + 1`, read at the start of
//! the iteration), and the scalar code adds the contributions of `b_i` and
//! `q_i` to it itself. The products go to fresh registers and are added to
//! the accumulator once, which keeps the loop-carried chain short (two
//! additions and a shift an iteration): the design for cores that issue
//! two 512-bit IFMA a cycle, where the chain, not the multiplier, is the
//! limit. Lanes accumulate unnormalised (below `2^62` for any supported
//! size) and are carried once, at the end, with a carry-lookahead over the
//! lane masks instead of a ripple.
//!
//! # The square
//! [`ams`] takes each product of digits in two different vectors once,
//! doubled, in the same loop: 3V + 1 IFMA a row on average against 4V, the
//! quotients and the result AMM's (its docstring has the algorithm).

use core::arch::x86_64::*;

use super::{DIGIT_BITS, Ifma, LANES, Lanes, MASK52, radix};
use crate::backend::barrier::value_barrier;
use crate::ops::montmul::ExpJob;
use zeroize::Zeroize;

use crate::backend::radix::{
    Column, DigitLayout, Digits, Elem, LimbMontgomery, ModulusToLoad, VectorMontMul, run_on_stack,
    with_vector_count,
};

/// Largest vector count (128 digits: moduli up to 103 limbs, 6592 bits,
/// which covers the CRT halves of RSA up to 13184 bits). Larger moduli use
/// the limb kernels, which keeps the stack table below 40 KiB.
const MAX_VECTORS: usize = 16;
/// Largest vector count of two interleaved exponentiations (moduli up to
/// 51 limbs); the stack then holds at most as much as for one
/// `MAX_VECTORS` modulus.
const PAIR_MAX_VECTORS: usize = 8;

/// `(digits, vectors)` for an `n`-limb modulus, if these kernels take
/// `interleave` exponentiations of it: room for `4m'`, where `m' = m·k0`
/// has up to `64n + 52` bits.
pub(super) fn shape(n: usize, interleave: usize) -> Option<(usize, usize)> {
    let digits = (64 * n + 54).div_ceil(52);
    let vectors = digits.div_ceil(LANES);
    let max = match interleave {
        1 => MAX_VECTORS,
        2 => PAIR_MAX_VECTORS,
        _ => 0,
    };
    (n >= super::MIN_LIMBS && vectors <= max).then_some((digits, vectors))
}

/// [`super::run`] on these kernels, for a size they take.
pub(super) fn run<const K: usize>(
    limbs: &dyn LimbMontgomery,
    ifma: Ifma,
    (digits, vectors): (usize, usize),
    square: bool,
    job: ExpJob<'_, '_, '_, K>,
) -> bool {
    with_vector_count!(vectors, [3 4 5 6 7 8 9 10 11 12 13 14 15 16], |V| {
        let mut arith = Amm::<V, K> {
            _ifma: ifma,
            m: [[[0; LANES]; V]; K],
            digits,
            square,
            doubled: [[[0; LANES]; V]; K],
        };
        run_on_stack::<LANES, V, K, _>(limbs, &mut arith, digits, job)
    })
    .is_some()
}

/// AMM modulo `K` moduli `m' = m·k0` at once, `V` vectors each.
struct Amm<const V: usize, const K: usize> {
    /// Proof that the CPU has what [`amm`] needs.
    _ifma: Ifma,
    /// The digits of each `m'`; the lowest is `2^52 − 1`.
    m: Elem<LANES, V, K>,
    /// `N`, the digit count (at most `8V`).
    digits: usize,
    /// Whether squares run on [`ams`] rather than [`amm`].
    square: bool,
    /// The square's doubled digits, which its rows read one at a time.
    doubled: Elem<LANES, V, K>,
}

impl<const V: usize, const K: usize> Amm<V, K> {
    /// `r[k] = a[k]·b[k]·R'⁻¹ mod m'[k]`, below `2m'[k]`, for `a[k]`, `b[k]`
    /// below `2m'[k]`.
    fn amm_elems(&self, r: &mut Elem<LANES, V, K>, a: &Elem<LANES, V, K>, b: &Elem<LANES, V, K>) {
        // SAFETY: `self._ifma` proves the CPU has AVX512F and AVX512-IFMA, the
        // features `amm` is compiled for. It reads and writes only through the
        // references it is given.
        unsafe { amm(r, a, b, &self.m, self.digits) }
    }

    /// `r[k] = a[k]²·R'⁻¹ mod m'[k]`, as [`amm_elems`](Self::amm_elems) with
    /// `b = a`.
    fn ams_elems(&mut self, r: &mut Elem<LANES, V, K>, a: &Elem<LANES, V, K>) {
        // SAFETY: as in `amm_elems`.
        unsafe { ams(r, a, &mut self.doubled, &self.m, self.digits) }
    }
}

/// The slice `x` (of `8VK` words) as an element; a length mismatch is a bug.
fn elem<const V: usize, const K: usize>(x: &[u64]) -> &Elem<LANES, V, K> {
    let lanes: &[[Lanes; V]] = x.as_chunks::<LANES>().0.as_chunks::<V>().0;
    lanes.try_into().expect("element of 8VK digits")
}

impl<const V: usize, const K: usize> VectorMontMul for Amm<V, K> {
    const WORDS: usize = V * LANES;
    const VALUES: usize = K;
    const RADIX: Digits = radix(DigitLayout::Contiguous);

    fn load_modulus(&mut self, k: usize, modulus: ModulusToLoad<'_>) {
        modulus.split_multiple(Self::RADIX, self.m[k].as_flattened_mut());
    }

    fn wipe(&mut self) {
        self.m.as_flattened_mut().as_flattened_mut().zeroize();
        self.doubled.as_flattened_mut().as_flattened_mut().zeroize();
    }

    fn amm(&mut self, out: &mut [u64], a: &[u64], b: &[u64]) {
        let lanes: &mut [[Lanes; V]] = out.as_chunks_mut::<LANES>().0.as_chunks_mut::<V>().0;
        let out: &mut Elem<LANES, V, K> = lanes.try_into().expect("element of 8VK digits");
        self.amm_elems(out, elem(a), elem(b));
    }

    fn amm_sqr(&mut self, out: &mut [u64], a: &[u64]) {
        if !self.square {
            return self.amm(out, a, a);
        }
        let lanes: &mut [[Lanes; V]] = out.as_chunks_mut::<LANES>().0.as_chunks_mut::<V>().0;
        let out: &mut Elem<LANES, V, K> = lanes.try_into().expect("element of 8VK digits");
        self.ams_elems(out, elem(a));
    }

    fn lookup_value(&self, out: &mut [u64], table: &[u64], column: Column, index: u64) {
        self._ifma.lookup::<LANES, V>(out, table, column, index);
    }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn load(x: &Lanes) -> __m512i {
    // SAFETY: an unaligned 64-byte load from a reference to exactly 64
    // bytes.
    unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn store(x: &mut Lanes, v: __m512i) {
    // SAFETY: an unaligned 64-byte store to a reference to exactly 64 bytes.
    unsafe { _mm512_storeu_si512(x.as_mut_ptr().cast(), v) }
}

/// The `K` values of an element `[[Lanes; V]; K]`, in registers (a macro:
/// a function returns them through the stack, closures are not inlined).
macro_rules! load_elem {
    ($x:expr) => {{
        let mut out = [[_mm512_setzero_si512(); V]; K];
        for (out, x) in out.iter_mut().zip($x) {
            for (out, x) in out.iter_mut().zip(x) {
                *out = load(x);
            }
        }
        out
    }};
}

/// Writes the accumulators to `r`, carried into 52-bit digits, with the
/// lowest position (lane 0, held in `s` during the loop) put back.
#[target_feature(enable = "avx512f")]
#[inline]
fn finish<const V: usize, const K: usize>(
    r: &mut Elem<LANES, V, K>,
    acc: [[__m512i; V]; K],
    s: [u64; K],
) {
    for ((r, mut acc), s) in r.iter_mut().zip(acc).zip(s) {
        acc[0] = _mm512_mask_set1_epi64(acc[0], 1, s as i64);
        normalize(&mut acc);
        for (o, x) in r.iter_mut().zip(acc) {
            store(o, x);
        }
    }
}

/// The AMM kernel, `K` independent multiplications interleaved:
/// `r[k] = a[k]·b[k]·2^(−52·digits) mod m[k]`, below `2m[k]`, for `a[k]`,
/// `b[k]` below `2m[k]`; every digit below `2^52`, the digits from
/// `digits` on zero (in `a` and `m`; `b`'s are not read),
/// `4m[k] < 2^(52·digits)`, `m[k] ≡ −1 mod 2^52` (so `q_i` is the low
/// digit itself), `digits > 2`.
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm<const V: usize, const K: usize>(
    r: &mut Elem<LANES, V, K>,
    a: &Elem<LANES, V, K>,
    b: &Elem<LANES, V, K>,
    m: &Elem<LANES, V, K>,
    digits: usize,
) {
    let zero = _mm512_setzero_si512();
    let (av, mv) = (load_elem!(a), load_elem!(m));
    // Lane j of `acc[k]` holds position i + j (lane 0 is stale: `s[k]`
    // holds it).
    let mut acc = [[zero; V]; K];
    let mut s = [0u64; K];
    for i in 0..digits {
        let mut bv = [zero; K];
        let mut qv = [zero; K];
        for k in 0..K {
            let bi = b[k][i / LANES][i % LANES];
            let (a0, a1, m1) = (a[k][0][0], a[k][0][1], m[k][0][1]);
            let next = lane_1(acc[k][0]) + (a1.wrapping_mul(bi) & MASK52);
            let q;
            (q, s[k]) = quotient(s[k] as u128 + a0 as u128 * bi as u128, next, m1);
            bv[k] = _mm512_set1_epi64(bi as i64);
            qv[k] = _mm512_set1_epi64(q as i64);
        }
        // The products go to fresh registers and then one addition into
        // `acc`: accumulating in the multiplications would put two IFMA
        // latencies on `acc`'s loop-carried chain.
        for k in 0..K {
            for v in 0..V {
                let lo = _mm512_madd52lo_epu64(zero, av[k][v], bv[k]);
                let lo = _mm512_madd52lo_epu64(lo, mv[k][v], qv[k]);
                acc[k][v] = _mm512_add_epi64(acc[k][v], lo);
            }
        }
        for acc in acc.iter_mut() {
            for v in 0..V {
                let up = if v + 1 < V { acc[v + 1] } else { zero };
                acc[v] = _mm512_alignr_epi64::<1>(up, acc[v]);
            }
        }
        for k in 0..K {
            for v in 0..V {
                let hi = _mm512_madd52hi_epu64(zero, av[k][v], bv[k]);
                let hi = _mm512_madd52hi_epu64(hi, mv[k][v], qv[k]);
                acc[k][v] = _mm512_add_epi64(acc[k][v], hi);
            }
        }
    }
    finish(r, acc, s);
}

/// Position `i + 1` as the earlier iterations left it (lane 1 of the
/// accumulator's lowest vector): read before an iteration's vector work, so
/// that only scalar code sits between one quotient and the next.
#[target_feature(enable = "avx512f")]
#[inline]
fn lane_1(acc: __m512i) -> u64 {
    _mm_extract_epi64::<1>(_mm512_castsi512_si128(acc)) as u64
}

/// The serial step of a row: from `t`, position `i` with the row's product
/// there, and `next`, position `i + 1` with the row's low product there,
/// the quotient digit `q` and position `i + 1` after the reduction by it.
#[inline]
fn quotient(t: u128, next: u64, m1: u64) -> (u64, u64) {
    // With m ≡ −1 mod 2^52, q = t mod 2^52 and (t + m_0·q)/2^52 is
    // ⌊t/2^52⌋ + q.
    let q = t as u64 & MASK52;
    let s = (t >> DIGIT_BITS) as u64 + q + next + (m1.wrapping_mul(q) & MASK52);
    (q, s)
}

/// The dedicated square (AMS): [`amm`] with `b = a`, taking each product of
/// two digits in different vectors once.
///
/// Row `i` (digit `a_i`, in vector `w = ⌊i/8⌋`) meets vector `v` at
/// positions `i + 8v + l`, lane `l`, wherever `v` is, so it may skip vectors:
/// it multiplies `a_i` by vector `w` (a pair in one vector meets in both
/// rows, as in `a·b`) and `d_i` by the vectors above, none below. `d_i =
/// 2·a_i mod 2^52 + t_(i−1)` is the doubled digit with `t_j`, the bit that
/// `2·a_j` carries out, carried in from the row before (`a` is below `2m' <
/// 2^(52N − 1)`, so the top digit carries none). What `t_(i−1)` adds to the
/// vectors above `w` is what row `i − 1` lost from them; when row `i − 1`
/// sits in the vector below (`i = 8w`), its loss in vector `w` is added
/// back as vector `w` masked by `t_(i−1)`. Every position has all its
/// products by the row that retires it, so the quotients, and the result,
/// are AMM's. `2(V − w) + 2V` IFMA a row against `4V`; the rows of vector
/// 0 take the scalar code of [`amm`], the others none of its products.
#[target_feature(enable = "avx512f,avx512ifma")]
fn ams<const V: usize, const K: usize>(
    r: &mut Elem<LANES, V, K>,
    a: &Elem<LANES, V, K>,
    d: &mut Elem<LANES, V, K>,
    m: &Elem<LANES, V, K>,
    digits: usize,
) {
    let zero = _mm512_setzero_si512();
    let (av, mv) = (load_elem!(a), load_elem!(m));
    // The doubled digits d_j, each lane with the top bit of the digit below
    // (lane 7 of the vector below, for lane 0), for the rows to broadcast:
    // 2·a_j + t_(j−1), whose low 52 bits, all that IFMA reads, are d_j.
    for k in 0..K {
        for v in 0..V {
            let below = if v > 0 { av[k][v - 1] } else { zero };
            let t =
                _mm512_srli_epi64::<{ DIGIT_BITS - 1 }>(_mm512_alignr_epi64::<7>(av[k][v], below));
            let twice = _mm512_add_epi64(av[k][v], av[k][v]);
            store(&mut d[k][v], _mm512_add_epi64(twice, t));
        }
    }
    let mut acc = [[zero; V]; K];
    let mut s = [0u64; K];
    let rows = Rows {
        a,
        d,
        m,
        av: &av,
        mv: &mv,
        digits,
    };
    // One block of rows per vector `w`, a const each, so that every vector
    // index in a block is static and the registers stay registers.
    macro_rules! blocks {
        ($($w:literal)*) => {$(
            if $w < V {
                rows.block::<$w>(&mut acc, &mut s);
            }
        )*};
    }
    const { assert!(MAX_VECTORS == 16) };
    blocks!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    finish(r, acc, s);
}

/// What [`ams`]'s rows read: the operand and the moduli, in memory and in
/// registers.
struct Rows<'a, const V: usize, const K: usize> {
    a: &'a Elem<LANES, V, K>,
    /// The doubled digits `d_j`.
    d: &'a Elem<LANES, V, K>,
    m: &'a Elem<LANES, V, K>,
    av: &'a [[__m512i; V]; K],
    mv: &'a [[__m512i; V]; K],
    digits: usize,
}

impl<const V: usize, const K: usize> Rows<'_, V, K> {
    /// The rows of the digits in vector `W` (`W < V`).
    #[target_feature(enable = "avx512f,avx512ifma")]
    #[inline]
    fn block<const W: usize>(&self, acc: &mut [[__m512i; V]; K], s: &mut [u64; K]) {
        let zero = _mm512_setzero_si512();
        let (a, d, m, av, mv) = (self.a, self.d, self.m, self.av, self.mv);
        // The lanes that take vector W back in the block's first row: all
        // if the digit below the block carried a bit out of its doubling.
        let carried = core::array::from_fn::<u8, K, _>(|k| match W {
            0 => 0,
            _ => 0u8.wrapping_sub((a[k][W - 1][LANES - 1] >> (DIGIT_BITS - 1)) as u8),
        });
        for i in LANES * W..self.digits.min(LANES * (W + 1)) {
            let mut bv = [zero; K];
            let mut dv = [zero; K];
            let mut qv = [zero; K];
            for k in 0..K {
                let (ai, di) = (a[k][W][i % LANES], d[k][W][i % LANES]);
                let (q, next) = if W == 0 {
                    let next = lane_1(acc[k][0]) + (a[k][0][1].wrapping_mul(ai) & MASK52);
                    quotient(
                        s[k] as u128 + a[k][0][0] as u128 * ai as u128,
                        next,
                        m[k][0][1],
                    )
                } else {
                    quotient(s[k] as u128, lane_1(acc[k][0]), m[k][0][1])
                };
                // Through the barrier, or the optimiser runs the K serial
                // steps as one in vector registers, lengthening the chain.
                let q = value_barrier(q);
                s[k] = value_barrier(next);
                bv[k] = _mm512_set1_epi64(ai as i64);
                dv[k] = _mm512_set1_epi64(di as i64);
                qv[k] = _mm512_set1_epi64(q as i64);
            }
            let by = |k: usize, v: usize| if v == W { bv[k] } else { dv[k] };
            for k in 0..K {
                for v in 0..V {
                    let lo = if v >= W {
                        let lo = _mm512_madd52lo_epu64(zero, av[k][v], by(k, v));
                        _mm512_madd52lo_epu64(lo, mv[k][v], qv[k])
                    } else {
                        _mm512_madd52lo_epu64(zero, mv[k][v], qv[k])
                    };
                    acc[k][v] = _mm512_add_epi64(acc[k][v], lo);
                }
                if W > 0 && i == LANES * W {
                    acc[k][W] = _mm512_mask_add_epi64(acc[k][W], carried[k], acc[k][W], av[k][W]);
                }
            }
            for acc in acc.iter_mut() {
                for v in 0..V {
                    let up = if v + 1 < V { acc[v + 1] } else { zero };
                    acc[v] = _mm512_alignr_epi64::<1>(up, acc[v]);
                }
            }
            for k in 0..K {
                for v in 0..V {
                    let hi = if v >= W {
                        let hi = _mm512_madd52hi_epu64(zero, av[k][v], by(k, v));
                        _mm512_madd52hi_epu64(hi, mv[k][v], qv[k])
                    } else {
                        _mm512_madd52hi_epu64(zero, mv[k][v], qv[k])
                    };
                    acc[k][v] = _mm512_add_epi64(acc[k][v], hi);
                }
            }
        }
    }
}

/// Carries every lane into 52-bit digits. The top lane's carry is zero
/// (the value is below `2^(52·8V)`).
#[target_feature(enable = "avx512f")]
fn normalize<const V: usize>(acc: &mut [__m512i; V]) {
    let mask = _mm512_set1_epi64(MASK52 as i64);
    let zero = _mm512_setzero_si512();
    // Pass 1: each lane's bits above 52 (below 2^12) move one lane up.
    let mut carries = [zero; V];
    for (c, x) in carries.iter_mut().zip(acc.iter()) {
        *c = _mm512_srli_epi64::<52>(*x);
    }
    for v in 0..V {
        let below = if v > 0 { carries[v - 1] } else { zero };
        let digit = _mm512_and_si512(acc[v], mask);
        acc[v] = _mm512_add_epi64(digit, _mm512_alignr_epi64::<7>(carries[v], below));
    }
    // Lanes are now below 2^52 + 2^12: at most one more carry each, which
    // ripples through lanes of all ones. With g the lanes that overflow and
    // p those equal to 2^52 − 1 (never both), the lanes that receive a carry
    // are ((g << 1) + p) ^ p, an integer addition over the lane bits.
    let words = V.div_ceil(8);
    let mut g = [0u64; MAX_VECTORS.div_ceil(8)];
    let mut p = [0u64; MAX_VECTORS.div_ceil(8)];
    for (v, x) in acc.iter().enumerate() {
        g[v / 8] |= (_mm512_cmpgt_epu64_mask(*x, mask) as u64) << (8 * (v % 8));
        p[v / 8] |= (_mm512_cmpeq_epu64_mask(*x, mask) as u64) << (8 * (v % 8));
    }
    let mut shifted_in = 0;
    let mut carry = 0;
    let mut receive = [0u64; MAX_VECTORS.div_ceil(8)];
    for w in 0..words {
        let shifted = (g[w] << 1) | shifted_in;
        shifted_in = g[w] >> 63;
        let (sum, c1) = shifted.overflowing_add(p[w]);
        let (sum, c2) = sum.overflowing_add(carry);
        carry = (c1 | c2) as u64;
        receive[w] = sum ^ p[w];
    }
    let one = _mm512_set1_epi64(1);
    for (v, x) in acc.iter_mut().enumerate() {
        let k = (receive[v / 8] >> (8 * (v % 8))) as u8;
        *x = _mm512_and_si512(_mm512_mask_add_epi64(*x, k, *x, one), mask);
    }
}
