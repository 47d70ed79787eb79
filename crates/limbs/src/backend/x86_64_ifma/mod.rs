//! Montgomery exponentiation with AVX-512 IFMA, in radix 2^52.
//!
//! `vpmadd52luq`/`vpmadd52huq` multiply eight pairs of 52-bit digits and add
//! the low (or high) 52 bits of each 104-bit product to a 64-bit lane. On
//! this project's Zen 5 they issue two per cycle, sixteen 52×52-bit products
//! per cycle against one 64×64-bit `mulx`, which is why OpenSSL 3 and
//! AWS-LC use them for RSA.
//!
//! The arithmetic runs modulo `m' = m·k0`, where `k0 = −m⁻¹ mod 2^52`: a
//! multiple of `m` whose lowest digit is `2^52 − 1`, so that the Montgomery
//! quotient digit `q_i` is the low digit itself, with no multiplication
//! (congruences modulo `m'` hold modulo `m`, and the result is reduced
//! modulo `m` on the way out). A residue is held as `N = ⌈(64n + 54)/52⌉`
//! digits of 52 bits, eight to a vector (`V = ⌈N/8⌉` vectors, the digits
//! above `N` zero), so that `4m' < R' = 2^(52N)`. Multiplication is the
//! "almost" Montgomery multiplication (AMM) of Gueron and Krasnov: inputs
//! below `2m'` give `a·b·R'⁻¹ mod m'` below `2m'`, with no final
//! subtraction; a limb Montgomery reduction modulo `m` ends the
//! exponentiation.
//!
//! Only whole exponentiations run here: converting into and out of radix
//! 2^52 costs about three multiplications, which an exponentiation
//! amortises and a single multiplication does not.
//!
//! # The multiplication loop
//! Digit `i` of `b` is one iteration (operand scanning). The accumulator's
//! lane `j` holds position `i + j`; it takes the low halves of `a·b_i` and
//! `m·q_i`, shifts down one lane (`valignq`), then takes the high halves,
//! which belong one position up. The serial part, `q_i` from the lowest
//! position, runs in general-purpose registers on a copy of that position:
//! the vector only supplies lane 1 (position `i + 1`, read at the start of
//! the iteration), and the scalar code adds the contributions of `b_i` and
//! `q_i` to it itself. Lanes accumulate unnormalised (below `2^62` for any
//! supported size) and are carried once, at the end, with a carry-lookahead
//! over the lane masks instead of a ripple.
//!
//! One multiplication still waits on that chain (the broadcast of `q_i`,
//! the products, the shift and the extraction of the next lane) for about
//! twice as long as its twelve IFMA instructions take at 1024 bits. So the
//! kernel also runs two independent multiplications in one loop
//! ([`pow_pair`], RSA's CRT halves), which fills the wait with the other's
//! work, as OpenSSL's `ossl_rsaz_mod_exp_avx512_x2` does.
//!
//! # Constant time
//! Loops run over public counts; no branch or address depends on a digit.
//! The table lookup reads every entry and selects with masks. IFMA
//! instructions have data-independent latency on the CPUs that implement
//! them. (Valgrind does not emulate AVX-512, so `.ci/ct-check` cannot count
//! this path; it is constant time by construction.)

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::Limb;
use crate::algorithms::pow::{self, MontMul, MontyCtx};
use crate::kernels;

cpufeatures::new!(avx512_ifma, "avx512f", "avx512ifma");

const DIGIT_BITS: u32 = 52;
const MASK52: u64 = (1 << DIGIT_BITS) - 1;
/// Digits per vector.
const LANES: usize = 8;
/// One vector of digits.
type Lanes = [u64; LANES];

/// Smallest modulus, in limbs, that exponentiates here. At 8 limbs (512
/// bits, two vectors) the unrolled `mulx` Montgomery kernel is still faster
/// than the AMM plus conversions (124 against about 170 rdtsc cycles per
/// multiplication); from 16 limbs IFMA wins at every size (see the README).
pub(crate) const MIN_LIMBS: usize = 16;
/// Largest vector count (128 digits: moduli up to 103 limbs, 6592 bits, which covers
/// the CRT halves of RSA up to 13184 bits). Larger moduli use the limb
/// kernels, which keeps the stack table below 40 KiB.
const MAX_VECTORS: usize = 16;
/// Largest vector count [`pow_pair`] takes (moduli up to 51 limbs, 3264 bits;
/// measured to win at 3, 4 and 6 vectors, the CRT halves of RSA-2048, 3072
/// and 4096). The stack then holds at most as much as for one
/// `MAX_VECTORS` modulus.
const PAIR_MAX_VECTORS: usize = 8;
/// Largest window: a table of 32 entries.
const MAX_WINDOW: u32 = 5;
/// Scratch elements: the table and two temporaries.
const SCRATCH_ELEMS: usize = (1 << MAX_WINDOW) + 2;

/// The AVX-512 IFMA exponentiation backend. A value exists only on a CPU
/// with AVX512F and AVX512-IFMA: [`Ifma::detect`] is the only way to get one.
#[derive(Clone, Copy, Debug)]
pub struct Ifma(());

impl Ifma {
    /// The backend, if this CPU supports AVX512F and AVX512-IFMA (detected
    /// once and cached; free when the target features are enabled at
    /// compile time).
    #[inline]
    pub fn detect() -> Option<Self> {
        if avx512_ifma::init_get().1 {
            Some(Ifma(()))
        } else {
            None
        }
    }
}

/// `(digits, vectors)` for an `n`-limb modulus, if this backend takes it:
/// room for `4m'`, where `m' = m·k0` has up to `64n + 52` bits.
fn shape(n: usize) -> Option<(usize, usize)> {
    let digits = (64 * n + DIGIT_BITS as usize + 2).div_ceil(DIGIT_BITS as usize);
    let vectors = digits.div_ceil(LANES);
    (n >= MIN_LIMBS && vectors <= MAX_VECTORS).then_some((digits, vectors))
}

/// Whether [`pow`] and [`pow_vartime`] take an `n`-limb modulus on this CPU.
pub(crate) fn handles(n: usize) -> bool {
    Ifma::detect().is_some() && shape(n).is_some()
}

/// Constant-time exponentiation (see [`pow::pow_ct`]) on the IFMA backend.
/// Returns `false`, having done nothing, when the CPU lacks IFMA or the
/// modulus size is not one this backend takes.
pub(crate) fn pow(
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    exp_bits: u32,
    ctx: &MontyCtx<'_>,
) -> bool {
    with_backend::<1>(
        [out],
        [base],
        [ctx],
        &mut |arith: &mut dyn MontMul,
              out: &mut [u64],
              base: &[u64],
              one: &[u64],
              scratch: &mut [u64]| {
            pow::pow_ct_with(arith, out, base, exp, exp_bits, one, scratch)
        },
    )
}

/// Two constant-time exponentiations, `outs[k] = bases[k]^exps[k]` modulo
/// `ctxs[k].m`, run in lockstep: each iteration of the multiplication loop
/// does both moduli's work, so that one's latency chain (the serial `q_i`)
/// hides behind the other's products. The moduli must have the same limb
/// count, and small enough a vector count that two are faster than one
/// after the other (see [`PAIR_MAX_VECTORS`]); otherwise, or without
/// IFMA, this returns `false` having done nothing.
pub(crate) fn pow_pair(
    outs: [&mut [Limb]; 2],
    bases: [&[Limb]; 2],
    exps: [&[Limb]; 2],
    exp_bits: u32,
    ctxs: [&MontyCtx<'_>; 2],
) -> bool {
    let n = ctxs[0].m.len();
    if ctxs[1].m.len() != n || shape(n).is_none_or(|(_, v)| v > PAIR_MAX_VECTORS) {
        return false;
    }
    with_backend::<2>(
        outs,
        bases,
        ctxs,
        &mut |arith: &mut dyn MontMul,
              out: &mut [u64],
              base: &[u64],
              one: &[u64],
              scratch: &mut [u64]| {
            pow::pow_ct_with(arith, out, base, &exps, exp_bits, one, scratch)
        },
    )
}

/// Variable-time exponentiation (see [`pow::pow_vartime`]) on the IFMA
/// backend, for public exponents; `false` as for [`pow`].
pub(crate) fn pow_vartime(
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    ctx: &MontyCtx<'_>,
) -> bool {
    with_backend::<1>(
        [out],
        [base],
        [ctx],
        &mut |arith: &mut dyn MontMul,
              out: &mut [u64],
              base: &[u64],
              one: &[u64],
              scratch: &mut [u64]| {
            pow::pow_vartime_with(arith, out, base, exp, one, scratch)
        },
    )
}

/// An exponentiation run in radix 2^52: `(arith, out, base, one, scratch)`.
type Exponentiation<'a> = dyn FnMut(&mut dyn MontMul, &mut [u64], &[u64], &[u64], &mut [u64]) + 'a;

/// Converts the `K` bases (limb Montgomery form) into the AMM domain, runs
/// `f` there on elements that hold all `K`, and converts the results back
/// into `outs`, fully reduced. The moduli have the same limb count.
fn with_backend<const K: usize>(
    outs: [&mut [Limb]; K],
    bases: [&[Limb]; K],
    ctxs: [&MontyCtx<'_>; K],
    f: &mut Exponentiation<'_>,
) -> bool {
    let Some(ifma) = Ifma::detect() else {
        return false;
    };
    let mut r2s = [&[][..]; K];
    for (r2, ctx) in r2s.iter_mut().zip(ctxs) {
        match ctx.r2 {
            Some(x) => *r2 = x,
            None => return false,
        }
    }
    let Some((digits, vectors)) = shape(ctxs[0].m.len()) else {
        return false;
    };
    macro_rules! sizes {
        ($($v:literal)*) => {
            match vectors {
                $($v => run::<$v, K>(ifma, digits, outs, bases, ctxs, r2s, f),)*
                _ => return false,
            }
        };
    }
    sizes!(3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    true
}

/// `K` values of `V` vectors each: one AMM-domain element.
type Elem<const V: usize, const K: usize> = [[Lanes; V]; K];

fn run<const V: usize, const K: usize>(
    ifma: Ifma,
    digits: usize,
    outs: [&mut [Limb]; K],
    bases: [&[Limb]; K],
    ctxs: [&MontyCtx<'_>; K],
    r2s: [&[Limb]; K],
    f: &mut Exponentiation<'_>,
) {
    let n = ctxs[0].m.len();
    let zero: Elem<V, K> = [[[0; LANES]; V]; K];
    let mut scratch = [zero; SCRATCH_ELEMS];
    let mut elems = [zero; 4];
    let mut arith = Amm {
        _ifma: ifma,
        m: zero,
        digits,
    };
    {
        let [factor, one, x, y] = &mut elems;
        for k in 0..K {
            let ctx = ctxs[k];
            // The limb work borrows the start of the scratch.
            let limbs = scratch
                .as_flattened_mut()
                .as_flattened_mut()
                .as_flattened_mut();
            let (power, rest) = limbs.split_at_mut(n + 1);
            let (product, rest) = rest.split_at_mut(n);
            let wide = &mut rest[..2 * n];

            // m' = m·k0, k0 = −m⁻¹ mod 2^52, so that m' ≡ −1 mod 2^52.
            let k0 = ctx.m_inv & MASK52;
            power[n] = kernels::mul_1(&mut power[..n], ctx.m, k0);
            limbs_to_digits(power, arith.m[k].as_flattened_mut());
            power.fill(0);

            // The factor that takes the limbs' Montgomery form x·R to x·R'
            // (mod m): R'²·R⁻¹ = 2^(2·52N − 64n) mod m, made by one limb
            // Montgomery multiplication of 2^(2·52N − 128n) by R² mod m.
            let e = 2 * DIGIT_BITS as usize * digits - 128 * n;
            power[e / 64] = 1 << (e % 64);
            kernels::mont_mul(product, &power[..n], r2s[k], ctx.m, ctx.m_inv, wide);
            limbs_to_digits(product, factor[k].as_flattened_mut());
            // The end of `run` wipes the whole scratch; here only what the
            // limb work wrote (power, product, wide).
            limbs[..4 * n + 1].zeroize();

            limbs_to_digits(ctx.one, one[k].as_flattened_mut());
            limbs_to_digits(bases[k], y[k].as_flattened_mut());
        }
        let one_limbs = *one;
        arith.amm(one, &one_limbs, factor); // ≡ R': the AMM form of 1
        arith.amm(x, y, factor); // ≡ base·R'
        f(
            &mut arith,
            y.as_flattened_mut().as_flattened_mut(),
            x.as_flattened().as_flattened(),
            one.as_flattened().as_flattened(),
            scratch
                .as_flattened_mut()
                .as_flattened_mut()
                .as_flattened_mut(),
        );
        // y ≡ base^e·R', below 2m': times R² mod m gives ≡ base^e·R², below
        // 2m' < m·R, which a limb Montgomery reduction takes to base^e·R mod m.
        for (r2_digits, r2) in factor.iter_mut().zip(r2s) {
            limbs_to_digits(r2, r2_digits.as_flattened_mut());
        }
        arith.amm(x, y, factor);
        for ((out, x), ctx) in outs.into_iter().zip(&*x).zip(ctxs) {
            let limbs = scratch
                .as_flattened_mut()
                .as_flattened_mut()
                .as_flattened_mut();
            let wide = &mut limbs[..2 * n];
            wide.fill(0);
            let above = digits_to_limbs(x.as_flattened(), &mut wide[..n + 1]);
            debug_assert_eq!(above, 0);
            kernels::mont_redc(out, wide, ctx.m, ctx.m_inv);
        }
    }
    scratch
        .as_flattened_mut()
        .as_flattened_mut()
        .as_flattened_mut()
        .zeroize();
    elems
        .as_flattened_mut()
        .as_flattened_mut()
        .as_flattened_mut()
        .zeroize();
    arith.m.as_flattened_mut().as_flattened_mut().zeroize();
}

/// Digit `j` of `d` is bits `[52j, 52j + 52)` of `x` (zero past its end).
fn limbs_to_digits(x: &[Limb], d: &mut [u64]) {
    for (j, digit) in d.iter_mut().enumerate() {
        let bit = j * DIGIT_BITS as usize;
        let (limb, offset) = (bit / 64, (bit % 64) as u32);
        let lo = x.get(limb).copied().unwrap_or(0) >> offset;
        let hi = match offset {
            0 => 0,
            _ => x.get(limb + 1).copied().unwrap_or(0) << (64 - offset),
        };
        *digit = (lo | hi) & MASK52;
    }
}

/// `x = Σ d[j]·2^(52j) mod 2^(64·len)`, returning the bits above (at most
/// one limb's worth). Every `d[j]` is below `2^52`.
fn digits_to_limbs(d: &[u64], x: &mut [Limb]) -> Limb {
    x.fill(0);
    let len = x.len();
    let mut above = 0;
    for (j, &digit) in d.iter().enumerate() {
        let bit = j * DIGIT_BITS as usize;
        let (limb, offset) = (bit / 64, (bit % 64) as u32);
        let parts = [
            digit << offset,
            if offset > 12 {
                digit >> (64 - offset)
            } else {
                0
            },
        ];
        for (k, part) in parts.into_iter().enumerate() {
            match x.get_mut(limb + k) {
                Some(l) => *l |= part,
                None if limb + k == len => above |= part,
                None => {}
            }
        }
    }
    above
}

/// AMM modulo `K` moduli `m' = m·k0` at once, `V` vectors each.
struct Amm<const V: usize, const K: usize> {
    /// Proof that the CPU has what [`amm`] needs.
    _ifma: Ifma,
    /// The digits of each `m'`; the lowest is `2^52 − 1`.
    m: Elem<V, K>,
    /// `N`, the digit count (at most `8V`).
    digits: usize,
}

impl<const V: usize, const K: usize> Amm<V, K> {
    /// `r[k] = a[k]·b[k]·R'⁻¹ mod m'[k]`, below `2m'[k]`, for `a[k]`, `b[k]`
    /// below `2m'[k]`.
    fn amm(&self, r: &mut Elem<V, K>, a: &Elem<V, K>, b: &Elem<V, K>) {
        // SAFETY: `self._ifma` proves the CPU has AVX512F and AVX512-IFMA, the
        // features `amm` is compiled for. It reads and writes only through the
        // references it is given.
        unsafe { amm(r, a, b, &self.m, self.digits) }
    }
}

/// The slice `x` (of `8VK` words) as an element; a length mismatch is a bug.
fn elem<const V: usize, const K: usize>(x: &[u64]) -> &Elem<V, K> {
    let lanes: &[[Lanes; V]] = x.as_chunks::<LANES>().0.as_chunks::<V>().0;
    lanes.try_into().expect("element of 8VK digits")
}

impl<const V: usize, const K: usize> MontMul for Amm<V, K> {
    fn elem_len(&self) -> usize {
        K * V * LANES
    }

    fn max_window(&self) -> u32 {
        MAX_WINDOW
    }

    fn mul(&mut self, out: &mut [u64], a: &[u64], b: &[u64]) {
        let lanes: &mut [[Lanes; V]] = out.as_chunks_mut::<LANES>().0.as_chunks_mut::<V>().0;
        let out: &mut Elem<V, K> = lanes.try_into().expect("element of 8VK digits");
        self.amm(out, elem(a), elem(b));
    }

    fn sqr(&mut self, out: &mut [u64], a: &[u64]) {
        self.mul(out, a, a);
    }

    /// Value `k`'s entry is picked by bits `[32k, 32k + 32)` of `index`
    /// (see `pow::Windows`).
    fn lookup(&self, out: &mut [u64], table: &[u64], index: u64) {
        let len = V * LANES;
        for (k, out) in out.chunks_exact_mut(len).enumerate() {
            let index = (index >> (32 * k)) & 0xffff_ffff;
            // SAFETY: `self._ifma` proves the CPU has AVX512F, the feature
            // `lookup` is compiled for; it reads `table` and writes `out`
            // only through the slices it is given.
            unsafe { lookup::<V>(out, table, K * len, k * len, index) }
        }
    }
}

/// Constant-time `out = table[index][offset..offset + 8V]` over entries of
/// `stride` words: every entry is read and masked (see `ct::lookup` for the
/// mask).
#[target_feature(enable = "avx512f")]
fn lookup<const V: usize>(
    out: &mut [u64],
    table: &[u64],
    stride: usize,
    offset: usize,
    index: u64,
) {
    let index = core::hint::black_box(index);
    let mut acc = [_mm512_setzero_si512(); V];
    for (i, entry) in table.chunks_exact(stride).enumerate() {
        let mask = 0u64.wrapping_sub(((i as u64 ^ index).wrapping_sub(1)) >> 63);
        let mask = _mm512_set1_epi64(mask as i64);
        let entry: &[Lanes; V] = entry[offset..offset + V * LANES]
            .as_chunks::<LANES>()
            .0
            .try_into()
            .expect("entry of 8V digits");
        for (a, e) in acc.iter_mut().zip(entry) {
            *a = _mm512_or_si512(*a, _mm512_and_si512(load(e), mask));
        }
    }
    let out: &mut [Lanes; V] = out.as_chunks_mut::<LANES>().0.try_into().expect("element");
    for (o, a) in out.iter_mut().zip(acc) {
        store(o, a);
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

/// The AMM kernel, `K` independent multiplications interleaved:
/// `r[k] = a[k]·b[k]·2^(−52·digits) mod m[k]`, below `2m[k]`, for `a[k]`,
/// `b[k]` below `2m[k]`; every digit below `2^52`, the digits from
/// `digits` on zero (in `a` and `m`; `b`'s are not read),
/// `4m[k] < 2^(52·digits)`, `m[k] ≡ −1 mod 2^52` (so `q_i` is the low
/// digit itself), `digits > 2`.
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm<const V: usize, const K: usize>(
    r: &mut Elem<V, K>,
    a: &Elem<V, K>,
    b: &Elem<V, K>,
    m: &Elem<V, K>,
    digits: usize,
) {
    let zero = _mm512_setzero_si512();
    let mut av = [[zero; V]; K];
    let mut mv = [[zero; V]; K];
    for k in 0..K {
        for v in 0..V {
            av[k][v] = load(&a[k][v]);
            mv[k][v] = load(&m[k][v]);
        }
    }
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
            // Position i + 1 as the earlier iterations left it: read before
            // this iteration's vector work, so that only the scalar code
            // below sits between one q and the next.
            let next = _mm_extract_epi64::<1>(_mm512_castsi512_si128(acc[k][0])) as u64;
            let t = s[k] as u128 + a0 as u128 * bi as u128;
            // With m ≡ −1 mod 2^52, q = t mod 2^52 and (t + m_0·q)/2^52 is
            // ⌊t/2^52⌋ + q.
            let q = t as u64 & MASK52;
            s[k] = (t >> DIGIT_BITS) as u64
                + q
                + next
                + (a1.wrapping_mul(bi) & MASK52)
                + (m1.wrapping_mul(q) & MASK52);
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
    for ((r, mut acc), s) in r.iter_mut().zip(acc).zip(s) {
        acc[0] = _mm512_mask_set1_epi64(acc[0], 1, s as i64);
        normalize(&mut acc);
        for (o, x) in r.iter_mut().zip(acc) {
            store(o, x);
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
