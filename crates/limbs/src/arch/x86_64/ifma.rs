//! Montgomery exponentiation with AVX-512 IFMA, in radix 2^52.
//!
//! `vpmadd52luq`/`vpmadd52huq` multiply eight pairs of 52-bit digits and add
//! the low (or high) 52 bits of each 104-bit product to a 64-bit lane. On
//! this project's Zen 5 they issue two per cycle, sixteen 52×52-bit products
//! per cycle against one 64×64-bit `mulx`, which is why OpenSSL 3 and
//! AWS-LC use them for RSA.
//!
//! A residue modulo an `n`-limb `m` is held as `N = ⌈(64n + 2)/52⌉` digits
//! of 52 bits, eight to a vector (`V = ⌈N/8⌉` vectors, the digits above `N`
//! zero), so that `4m < R' = 2^(52N)`. Multiplication is the "almost"
//! Montgomery multiplication (AMM) of Gueron and Krasnov: inputs below `2m`
//! give `a·b·R'⁻¹ mod m` below `2m`, with no final subtraction; the one
//! subtraction happens when the result leaves this representation.
//!
//! Only whole exponentiations run here: converting into and out of radix
//! 2^52 costs about three multiplications, which an exponentiation
//! amortises and a single multiplication does not.
//!
//! # The multiplication loop
//! Digit `i` of `b` is one iteration (operand scanning). The accumulator's
//! lane `j` holds position `i + j`; it takes the low halves of `a·b_i` and
//! `m·q_i`, shifts down one lane (`valignq`), then takes the high halves,
//! which belong one position up. The serial part, `q_i = t_i·(−m⁻¹) mod
//! 2^52` from the lowest position, runs in general-purpose registers on a
//! copy of that position: the vector only supplies lane 1 (position `i + 1`,
//! read before `q_i` is known), and the scalar code adds `q_i`'s
//! contributions to it itself, so no vector latency sits between one `q` and
//! the next. Lanes accumulate unnormalised (below `2^62` for any supported
//! size) and are carried once, at the end, with a carry-lookahead over the
//! lane masks instead of a ripple.
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
use crate::kernels::{self, final_subtract};

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

/// `(digits, vectors)` for an `n`-limb modulus, if this backend takes it.
fn shape(n: usize) -> Option<(usize, usize)> {
    let digits = (64 * n + 2).div_ceil(DIGIT_BITS as usize);
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
    with_backend(
        out,
        base,
        ctx,
        &mut |arith: &mut dyn MontMul,
              out: &mut [u64],
              base: &[u64],
              one: &[u64],
              scratch: &mut [u64]| {
            pow::pow_ct_with(arith, out, base, exp, exp_bits, one, scratch)
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
    with_backend(
        out,
        base,
        ctx,
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

/// Converts `base` (limb Montgomery form) into the AMM domain, runs `f`
/// there, and converts its result back into `out`, fully reduced.
fn with_backend(
    out: &mut [Limb],
    base: &[Limb],
    ctx: &MontyCtx<'_>,
    f: &mut Exponentiation<'_>,
) -> bool {
    let (Some(ifma), Some(r2)) = (Ifma::detect(), ctx.r2) else {
        return false;
    };
    let Some((digits, vectors)) = shape(ctx.m.len()) else {
        return false;
    };
    macro_rules! sizes {
        ($($v:literal)*) => {
            match vectors {
                $($v => run::<$v>(ifma, digits, out, base, ctx, r2, f),)*
                _ => return false,
            }
        };
    }
    sizes!(3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    true
}

fn run<const V: usize>(
    ifma: Ifma,
    digits: usize,
    out: &mut [Limb],
    base: &[Limb],
    ctx: &MontyCtx<'_>,
    r2: &[Limb],
    f: &mut Exponentiation<'_>,
) {
    let n = ctx.m.len();
    let mut m = [[0; LANES]; V];
    limbs_to_digits(ctx.m, m.as_flattened_mut());
    let mut arith = Amm {
        _ifma: ifma,
        m,
        // -m^-1 mod 2^52 is -m^-1 mod 2^64, truncated.
        k0: ctx.m_inv & MASK52,
        digits,
    };

    let mut scratch = [[[0; LANES]; V]; SCRATCH_ELEMS];
    let mut elems = [[[0; LANES]; V]; 5];
    {
        let [one_limbs, factor, one, x, y] = &mut elems;
        // The factor that takes the limbs' Montgomery form x·R to x·R':
        // 2^(2·52N − 64n) mod m, made by one limb Montgomery multiplication
        // of 2^(2·52N − 128n) (below 2^108) by R² mod m. Its limbs borrow the
        // start of the scratch.
        let limbs = scratch.as_flattened_mut().as_flattened_mut();
        let (power, rest) = limbs.split_at_mut(n);
        let (product, rest) = rest.split_at_mut(n);
        let wide = &mut rest[..2 * n];
        let e = 2 * DIGIT_BITS as usize * digits - 128 * n;
        power[e / 64] = 1 << (e % 64);
        kernels::mont_mul(product, power, r2, ctx.m, ctx.m_inv, wide);
        limbs_to_digits(product, factor.as_flattened_mut());
        limbs.zeroize();

        limbs_to_digits(ctx.one, one_limbs.as_flattened_mut());
        limbs_to_digits(base, y.as_flattened_mut());
        arith.amm(one, one_limbs, factor); // R' mod m: the AMM form of 1
        arith.amm(x, y, factor); // base·R' mod m
        f(
            &mut arith,
            y.as_flattened_mut(),
            x.as_flattened(),
            one.as_flattened(),
            scratch.as_flattened_mut().as_flattened_mut(),
        );
        // y·R' → y·R (below 2m), then one conditional subtraction.
        arith.amm(x, y, one_limbs);
        let hi = digits_to_limbs(x.as_flattened(), out);
        final_subtract(out, hi, ctx.m);
    }
    scratch.as_flattened_mut().as_flattened_mut().zeroize();
    elems.as_flattened_mut().as_flattened_mut().zeroize();
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

/// AMM modulo one modulus, `V` vectors wide.
struct Amm<const V: usize> {
    /// Proof that the CPU has what [`amm`] needs.
    _ifma: Ifma,
    m: [Lanes; V],
    /// `-m^-1 mod 2^52`.
    k0: u64,
    /// `N`, the digit count (at most `8V`).
    digits: usize,
}

impl<const V: usize> Amm<V> {
    /// `r = a·b·R'⁻¹ mod m`, below `2m`, for `a`, `b` below `2m`.
    fn amm(&self, r: &mut [Lanes; V], a: &[Lanes; V], b: &[Lanes; V]) {
        // SAFETY: `self._ifma` proves the CPU has AVX512F and AVX512-IFMA, the
        // features `amm` is compiled for. It reads and writes only through the
        // references it is given.
        unsafe { amm(r, a, b, &self.m, self.k0, self.digits) }
    }
}

/// The slice `x` (of `8V` words) as vectors; a length mismatch is a bug.
fn lanes<const V: usize>(x: &[u64]) -> &[Lanes; V] {
    x.as_chunks::<LANES>()
        .0
        .try_into()
        .expect("element of 8V digits")
}

impl<const V: usize> MontMul for Amm<V> {
    fn elem_len(&self) -> usize {
        V * LANES
    }

    fn max_window(&self) -> u32 {
        MAX_WINDOW
    }

    fn mul(&mut self, out: &mut [u64], a: &[u64], b: &[u64]) {
        let out: &mut [Lanes; V] = out
            .as_chunks_mut::<LANES>()
            .0
            .try_into()
            .expect("element of 8V digits");
        self.amm(out, lanes(a), lanes(b));
    }

    fn sqr(&mut self, out: &mut [u64], a: &[u64]) {
        self.mul(out, a, a);
    }

    fn lookup(&self, out: &mut [u64], table: &[u64], index: u64) {
        // SAFETY: `self._ifma` proves the CPU has AVX512F, the feature
        // `lookup` is compiled for; it reads `table` and writes `out` only
        // through the slices it is given.
        unsafe { lookup::<V>(out, table, index) }
    }
}

/// Constant-time `out = table[index]` over entries of `V` vectors: every
/// entry is read and masked (see `ct::lookup` for the mask).
#[target_feature(enable = "avx512f")]
fn lookup<const V: usize>(out: &mut [u64], table: &[u64], index: u64) {
    let index = core::hint::black_box(index);
    let mut acc = [_mm512_setzero_si512(); V];
    for (i, entry) in table.chunks_exact(V * LANES).enumerate() {
        let mask = 0u64.wrapping_sub(((i as u64 ^ index).wrapping_sub(1)) >> 63);
        let mask = _mm512_set1_epi64(mask as i64);
        for (a, e) in acc.iter_mut().zip(lanes::<V>(entry)) {
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

/// The AMM kernel: `r = a·b·2^(−52·digits) mod m`, below `2m`, for `a`, `b`
/// below `2m`; every digit below `2^52`, the digits from `digits` on zero
/// (in `a` and `m`; `b`'s are not read), `4m < 2^(52·digits)`,
/// `k0 = −m⁻¹ mod 2^52`, `digits > 2` (so `m[1]` is a digit of `m`).
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm<const V: usize>(
    r: &mut [Lanes; V],
    a: &[Lanes; V],
    b: &[Lanes; V],
    m: &[Lanes; V],
    k0: u64,
    digits: usize,
) {
    let zero = _mm512_setzero_si512();
    let mut av = [zero; V];
    let mut mv = [zero; V];
    for v in 0..V {
        av[v] = load(&a[v]);
        mv[v] = load(&m[v]);
    }
    let b = b.as_flattened();
    let (a0, m0, m1) = (a[0][0], m[0][0], m[0][1]);
    // Lane j of `acc` holds position i + j (lane 0 is stale: `s` holds it).
    let mut acc = [zero; V];
    let mut s: u64 = 0;
    for &bi in &b[..digits] {
        let bv = _mm512_set1_epi64(bi as i64);
        for (x, &y) in acc.iter_mut().zip(&av) {
            *x = _mm512_madd52lo_epu64(*x, y, bv);
        }
        // Position i + 1 before q_i's share, which the scalar code adds.
        let next = _mm_extract_epi64::<1>(_mm512_castsi512_si128(acc[0])) as u64;
        let t = s as u128 + a0 as u128 * bi as u128;
        let q = (t as u64).wrapping_mul(k0) & MASK52;
        let t = t + m0 as u128 * q as u128; // ≡ 0 mod 2^52
        s = (t >> DIGIT_BITS) as u64 + next + (m1.wrapping_mul(q) & MASK52);
        let qv = _mm512_set1_epi64(q as i64);
        for (x, &y) in acc.iter_mut().zip(&mv) {
            *x = _mm512_add_epi64(*x, _mm512_madd52lo_epu64(zero, y, qv));
        }
        for v in 0..V {
            let up = if v + 1 < V { acc[v + 1] } else { zero };
            acc[v] = _mm512_alignr_epi64::<1>(up, acc[v]);
        }
        for ((x, &ya), &ym) in acc.iter_mut().zip(&av).zip(&mv) {
            let hi = _mm512_madd52hi_epu64(_mm512_madd52hi_epu64(zero, ya, bv), ym, qv);
            *x = _mm512_add_epi64(*x, hi);
        }
    }
    acc[0] = _mm512_mask_set1_epi64(acc[0], 1, s as i64);
    normalize(&mut acc);
    for (o, x) in r.iter_mut().zip(acc) {
        store(o, x);
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
