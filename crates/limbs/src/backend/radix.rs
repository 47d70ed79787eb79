//! Exponentiation in a radix of the backend's own: what the vector
//! backends (`x86_64_ifma`, radix 2^52; `x86_64_avx2` and `aarch64::neon`,
//! radix 2^28) share.
//!
//! Such a backend holds a residue as digits of fewer than 64 bits in a
//! layout of its own, multiplies with an "almost" Montgomery
//! multiplication (AMM: inputs below twice the modulus give a product
//! below twice the modulus, with no final subtraction; `R' = 2^(bits·N)`
//! for `N` digits), and runs whole exponentiations: converting into and out
//! of the radix costs about three multiplications, which an exponentiation
//! amortises and a single multiplication does not. [`exponentiate`] does
//! the conversions around the exponentiation the algorithms hand it.

use zeroize::Zeroize;

use crate::Limb;
use crate::ops::ct;
use crate::ops::kernels::{Kernels, MontModulus};
use crate::ops::montmul::{ExpJob, MontMul};

/// Largest window of these backends: a table of 32 entries, which keeps
/// their stack below about 40 KiB at the largest sizes.
const MAX_WINDOW: u32 = 5;
/// Scratch elements an exponentiation needs: the table and two
/// temporaries.
const SCRATCH_ELEMS: usize = (1 << MAX_WINDOW) + 2;

/// Where one value sits in a table whose entries hold several side by
/// side: entries of `stride` words, the value `offset` words into each.
#[derive(Clone, Copy)]
pub(crate) struct Column {
    pub(crate) stride: usize,
    pub(crate) offset: usize,
}

/// Storage on a 64-byte boundary: a vector load that crosses a cache line
/// costs twice as much, and the kernels load every operand every digit.
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

/// A radix and where digit `j` of a residue sits among its words.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Digits {
    /// Bits per digit.
    pub(crate) bits: u32,
    pub(crate) layout: DigitLayout,
}

/// Where digit `j` of a residue sits among its words.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DigitLayout {
    /// Word `j`.
    Contiguous,
    /// Lane `j / vectors` of vector `j % vectors`, `lanes` lanes to a
    /// vector: the layout in which moving every digit down one position
    /// renames vectors instead of shifting each of them.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64's kernels only
    Strided { vectors: usize, lanes: usize },
    /// The multi-buffer ("vertical") layout: the values of an element
    /// share its vectors, digit `j` of value `k` in lane `k` of vector `j`
    /// (word `j·lanes + k`), so that one vector operation works on one
    /// digit of every value.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64's kernels only
    Lanes { lanes: usize },
}

impl Digits {
    /// The word of an element that holds digit `j` of value `k`, the
    /// element's values being `words` words each.
    fn word(self, k: usize, j: usize, words: usize) -> usize {
        match self.layout {
            DigitLayout::Contiguous => k * words + j,
            DigitLayout::Strided { vectors, lanes } => {
                k * words + (j % vectors) * lanes + j / vectors
            }
            DigitLayout::Lanes { lanes } => j * lanes + k,
        }
    }

    fn mask(self) -> u64 {
        (1 << self.bits) - 1
    }

    /// Digit `j` of `d` is bits `[bits·j, bits·(j + 1))` of `x` (zero past
    /// its end): `d` holds one value (of a layout that keeps a value's
    /// words together).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // x86_64's kernels only
    pub(crate) fn split(self, x: &[Limb], d: &mut [u64]) {
        self.split_value(x, d, 0, d.len());
    }

    /// [`split`](Self::split) into value `k` of `elem`, whose values are
    /// `words` words each.
    pub(crate) fn split_value(self, x: &[Limb], elem: &mut [u64], k: usize, words: usize) {
        for j in 0..words {
            let bit = j * self.bits as usize;
            let (limb, offset) = (bit / 64, (bit % 64) as u32);
            let lo = x.get(limb).copied().unwrap_or(0) >> offset;
            let hi = match offset {
                0 => 0,
                _ => x.get(limb + 1).copied().unwrap_or(0) << (64 - offset),
            };
            elem[self.word(k, j, words)] = (lo | hi) & self.mask();
        }
    }

    /// `x = Σ d_j·2^(bits·j) mod 2^(64·len)` for the digits `d_j` of value
    /// `k` of `elem` (values of `words` words), returning the bits above
    /// (at most one limb's worth). A digit may exceed the radix (the AVX2
    /// kernels leave them carried only partly): the carries are propagated
    /// on the way, without a branch.
    fn join_value(self, elem: &[u64], k: usize, words: usize, x: &mut [Limb]) -> Limb {
        x.fill(0);
        let len = x.len();
        let mut above = 0;
        let mut carry = 0;
        for j in 0..=words {
            let digit = match j < words {
                true => elem[self.word(k, j, words)],
                false => 0,
            };
            let value = digit + carry;
            let digit = value & self.mask();
            carry = value >> self.bits;
            let bit = j * self.bits as usize;
            let (limb, offset) = (bit / 64, (bit % 64) as u32);
            let parts = [
                digit << offset,
                if offset + self.bits > 64 {
                    digit >> (64 - offset)
                } else {
                    0
                },
            ];
            for (i, part) in parts.into_iter().enumerate() {
                match x.get_mut(limb + i) {
                    Some(l) => *l |= part,
                    None if limb + i == len => above |= part,
                    None => {}
                }
            }
        }
        above
    }
}

/// The arithmetic of a backend in a radix of its own: an element holds
/// `VALUES` values of `WORDS` words each, one per modulus, and one call
/// multiplies them all. [`MontMul`] follows, with this module's window and
/// the value-by-value table lookup; [`run_on_stack`] runs an exponentiation
/// on it.
pub(crate) trait VectorMontMul {
    /// Words of one value.
    const WORDS: usize;
    /// Values in an element (the moduli run at once).
    const VALUES: usize;
    /// The radix and layout of the values.
    const RADIX: Digits;
    /// Takes modulus `k` in: its digits, and what the kernels derive from
    /// it.
    fn load_modulus(&mut self, k: usize, modulus: ModulusToLoad<'_>);
    /// Forgets every modulus (RSA's are secret).
    fn wipe(&mut self);
    /// `out = a·b·R'⁻¹` for every value, below twice its modulus, for `a`
    /// and `b` below twice theirs; `out` does not alias `a` or `b`.
    fn amm(&mut self, out: &mut [u64], a: &[u64], b: &[u64]);
    /// `out = a²·R'⁻¹`, as [`amm`](Self::amm) with `b = a` (the default),
    /// for backends with a dedicated square.
    fn amm_sqr(&mut self, out: &mut [u64], a: &[u64]) {
        self.amm(out, a, a);
    }
    /// The largest window of an exponentiation (its table and two
    /// temporaries are [`run_on_stack`]'s `S` elements).
    const WINDOW: u32 = MAX_WINDOW;
    /// Words of a table entry ([`MontMul::entry_len`]).
    fn entry_len(&self) -> usize {
        Self::VALUES * Self::WORDS
    }
    /// Writes element `x` to a table entry ([`MontMul::store_entry`]).
    fn store_entry(&self, entry: &mut [u64], x: &[u64]) {
        entry.copy_from_slice(x);
    }
    /// Constant-time `out = table[index]`'s value in `column` (`WORDS`
    /// words), reading every entry; a layout that keeps each value's
    /// words together (every one but [`DigitLayout::Lanes`], whose
    /// backends select whole elements in [`lookup`](Self::lookup)).
    fn lookup_value(&self, out: &mut [u64], table: &[u64], column: Column, index: u64) {
        ct::lookup_strided(out, table, column.stride, column.offset, index);
    }
    /// Constant-time `out = table[index]` for a whole element, value `k`'s
    /// entry being `index[k]`, reading every entry: value by value
    /// ([`lookup_value`](Self::lookup_value)) unless a backend whose
    /// values share vectors selects them all at once.
    fn lookup(&self, out: &mut [u64], table: &[u64], index: &[u64]) {
        for (k, (out, &index)) in out.chunks_exact_mut(Self::WORDS).zip(index).enumerate() {
            let column = Column {
                stride: Self::VALUES * Self::WORDS,
                offset: k * Self::WORDS,
            };
            self.lookup_value(out, table, column, index);
        }
    }
}

impl<T: VectorMontMul> MontMul for T {
    fn elem_len(&self) -> usize {
        T::VALUES * T::WORDS
    }

    fn max_window(&self) -> u32 {
        T::WINDOW
    }

    fn mul(&mut self, out: &mut [u64], a: &[u64], b: &[u64]) {
        self.amm(out, a, b);
    }

    fn sqr(&mut self, out: &mut [u64], a: &[u64]) {
        self.amm_sqr(out, a);
    }

    fn entry_len(&self) -> usize {
        VectorMontMul::entry_len(self)
    }

    fn store_entry(&self, entry: &mut [u64], x: &[u64]) {
        VectorMontMul::store_entry(self, entry, x);
    }

    fn lookup(&self, out: &mut [u64], table: &[u64], index: &[u64]) {
        VectorMontMul::lookup(self, out, table, index);
    }
}

/// Runs `job` on `arith` (with no moduli in yet), whose values are `V`
/// vectors of `L` lanes, the table and temporaries in this stack frame:
/// takes the moduli in, [`exponentiate`]s, and wipes them.
pub(crate) fn run_on_stack<const L: usize, const V: usize, const K: usize, A: VectorMontMul>(
    limbs: &dyn LimbMontgomery,
    arith: &mut A,
    digits: usize,
    job: ExpJob<'_, '_, '_, K>,
) {
    run_on_stack_with::<L, V, K, SCRATCH_ELEMS, A>(limbs, arith, digits, job);
}

/// [`run_on_stack`] with `S` scratch elements, at least `2^A::WINDOW + 2`
/// (the table and two temporaries).
pub(crate) fn run_on_stack_with<
    const L: usize,
    const V: usize,
    const K: usize,
    const S: usize,
    A: VectorMontMul,
>(
    limbs: &dyn LimbMontgomery,
    arith: &mut A,
    digits: usize,
    job: ExpJob<'_, '_, '_, K>,
) {
    const { assert!(S >= (1 << A::WINDOW) + 2, "scratch for the window") };
    let zero: Elem<L, V, K> = [[[0; L]; V]; K];
    let mut scratch = Aligned([zero; S]);
    let mut elems = Aligned([zero; 4]);
    let words = scratch
        .0
        .as_flattened_mut()
        .as_flattened_mut()
        .as_flattened_mut();
    for (k, ctx) in job.ctxs.iter().enumerate() {
        let (m, words) = (ctx.m, &mut *words);
        arith.load_modulus(k, ModulusToLoad { m, limbs, words });
    }
    let [factor, one, x, y] = &mut elems.0;
    let elems = [factor, one, x, y].map(|e| e.as_flattened_mut().as_flattened_mut());
    exponentiate(limbs, arith, A::RADIX, digits, V * L, job, elems, words);
    arith.wipe();
}

/// One element of a vector backend: `K` values (the moduli run at once)
/// of `V` vectors of `L` lanes.
pub(crate) type Elem<const L: usize, const V: usize, const K: usize> = [[[u64; L]; V]; K];

/// `$body` with the constant `$V` set to `$count`, if `$count` is one of
/// the literals listed (`None` otherwise): how a run-time vector count
/// picks the kernels monomorphised for it.
macro_rules! with_vector_count {
    ($count:expr, [$($v:literal)*], |$V:ident| $body:expr) => {
        match $count {
            $($v => {
                const $V: usize = $v;
                Some($body)
            })*
            _ => None,
        }
    };
}
pub(crate) use with_vector_count;

/// Runs an exponentiation on a backend's arithmetic: `arith` holds the
/// moduli already; elements are `K` values of `words` words holding
/// `digits` significant digits of `radix` (congruences modulo `arith`'s
/// moduli hold modulo the job's moduli: `arith` may work modulo a
/// multiple). Converts the job's bases (limb Montgomery form) in, runs its
/// exponentiation on elements that hold all `K` values, and converts the
/// results back, fully reduced, with the limb Montgomery operations of
/// `limbs`. `elems` are four spare elements, `scratch` holds
/// the table and two temporaries; both are wiped before returning.
#[allow(clippy::too_many_arguments)]
fn exponentiate<const K: usize>(
    limbs: &dyn LimbMontgomery,
    arith: &mut dyn MontMul,
    radix: Digits,
    digits: usize,
    words: usize,
    job: ExpJob<'_, '_, '_, K>,
    elems: [&mut [u64]; 4],
    scratch: &mut [u64],
) {
    let ExpJob {
        outs,
        bases,
        ctxs,
        f,
    } = job;
    let n = ctxs[0].m.limbs().len();
    let [factor, one, x, y] = elems;
    for (k, ctx) in ctxs.iter().enumerate() {
        // The limb work borrows the start of the scratch.
        let (power, rest) = scratch.split_at_mut(n);
        let (product, rest) = rest.split_at_mut(n);
        let wide = &mut rest[..2 * n];
        // The factor that takes the limbs' Montgomery form x·R to x·R'
        // (mod m): R'²·R⁻¹ = 2^(2·bits·N − 64n) mod m, made by one limb
        // Montgomery multiplication of 2^(2·bits·N − 128n) by R² mod m.
        let e = 2 * radix.bits as usize * digits - 128 * n;
        power.fill(0);
        power[e / 64] = 1 << (e % 64);
        limbs.mont_mul(product, power, ctx.r2, ctx.m, wide);
        radix.split_value(product, factor, k, words);
        scratch[..4 * n].zeroize();
        radix.split_value(ctx.one, one, k, words);
        radix.split_value(bases[k], y, k, words);
    }
    let one_limbs = &mut scratch[..K * words];
    one_limbs.copy_from_slice(one);
    arith.mul(one, one_limbs, factor); // ≡ R': the AMM form of 1
    arith.mul(x, y, factor); // ≡ base·R'
    f(arith, y, x, one, scratch);
    // y ≡ base^e·R', below twice the modulus: times R² mod m gives
    // ≡ base^e·R², below m·R, which a limb Montgomery reduction takes to
    // base^e·R mod m.
    for (k, ctx) in ctxs.iter().enumerate() {
        radix.split_value(ctx.r2, factor, k, words);
    }
    arith.mul(x, y, factor);
    for ((k, out), ctx) in outs.into_iter().enumerate().zip(ctxs) {
        let wide = &mut scratch[..2 * n];
        wide.fill(0);
        let above = radix.join_value(x, k, words, &mut wide[..n + 1]);
        debug_assert_eq!(above, 0);
        limbs.mont_redc(out, wide, ctx.m);
    }
    scratch.zeroize();
    for e in [factor, one, x, y] {
        e.zeroize();
    }
}

/// A modulus as [`VectorMontMul::load_modulus`] takes it, with the slice
/// kernels and the scratch (at least `n + 1` limbs, wiped after use) that
/// deriving a multiple of it needs.
pub(crate) struct ModulusToLoad<'a> {
    pub(crate) m: MontModulus<'a>,
    limbs: &'a dyn LimbMontgomery,
    words: &'a mut [Limb],
}

impl ModulusToLoad<'_> {
    /// The digits in `radix` of `m' = m·k0`, where `k0 = −m⁻¹ mod
    /// 2^bits`: a multiple of `m` whose lowest digit is `2^bits − 1`, so
    /// that the Montgomery quotient digit is the low digit itself, with no
    /// multiplication on its chain (congruences modulo `m'` hold modulo
    /// `m`).
    pub(crate) fn split_multiple(self, radix: Digits, d: &mut [u64]) {
        let words = d.len();
        self.split_multiple_value(radix, d, 0, words);
    }

    /// [`split_multiple`](Self::split_multiple) into value `k` of `elem`,
    /// whose values are `words` words each.
    pub(crate) fn split_multiple_value(
        self,
        radix: Digits,
        elem: &mut [u64],
        k: usize,
        words: usize,
    ) {
        let n = self.m.limbs().len();
        let m_prime = &mut self.words[..n + 1];
        let k0 = self.m.m_inv() & radix.mask();
        m_prime[n] = self.limbs.mul_1(&mut m_prime[..n], self.m.limbs(), k0);
        radix.split_value(m_prime, elem, k, words);
        m_prime.zeroize();
    }
}

/// The limb Montgomery operations an exponentiation in a radix of its own
/// needs around the exponentiation (its conversions in and out), on the
/// slice kernels the selection chose. A trait object, so that the vector
/// backends are compiled once and not once per slice-kernel backend.
pub(crate) trait LimbMontgomery {
    /// [`Kernels::mul_1`].
    fn mul_1(&self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb;
    /// [`Kernels::mont_mul`].
    fn mont_mul(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], m: MontModulus, wide: &mut [Limb]);
    /// [`Kernels::mont_redc`].
    fn mont_redc(&self, r: &mut [Limb], t: &mut [Limb], m: MontModulus);
}

impl<K: Kernels> LimbMontgomery for K {
    fn mul_1(&self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
        Kernels::mul_1(*self, r, a, b)
    }

    fn mont_mul(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], m: MontModulus, wide: &mut [Limb]) {
        Kernels::mont_mul(*self, r, a, b, m, wide);
    }

    fn mont_redc(&self, r: &mut [Limb], t: &mut [Limb], m: MontModulus) {
        Kernels::mont_redc(*self, r, t, m);
    }
}
