//! Montgomery exponentiation with NEON in radix 2^28, for the aarch64 cores
//! whose 64-bit scalar multiplier is slow (the rule is `neon_rule` in
//! `backend`; the model behind it is `tools/mca_aarch64.py`).
//!
//! `umlal` multiplies two pairs of 32-bit values into 64-bit lanes and adds
//! them to an accumulator; Neoverse N1 issues one a cycle, where its scalar
//! pipe takes about three cycles for each of `mul` and `umulh`. With 28-bit
//! digits a lane sums a whole column of products without overflowing, so
//! the vector side takes every product and the scalar side only the
//! carries and the quotient digits.
//!
//! The multiplication is an almost-Montgomery multiplication (AMM, as in
//! [`super::super::radix`]) in product-scanning form: column `k` sums
//! `a_i·b_(k−i)` and `q_i·m'_(k−i)` over `i`, four digits of each operand a
//! turn (`ldr q` of four digits, `umlal` on the low pair, `umlal2` on the
//! high pair), with `b` and `m'` stored reversed so that both operands of a
//! column run upwards in memory. The arithmetic runs modulo `m' = m·k0`,
//! `k0 = −m⁻¹ mod 2^28`, whose lowest digit is `2^28 − 1`: the quotient
//! digit of column `k < N` is the column's low digit itself, and adding
//! `q_k·m'_0` to the column adds `q_k` to its carry, with no multiplication
//! on the chain. The previous column's quotient digit times `m'_1` is added
//! by the scalar side, so that a column's vector sums never wait for the
//! column before (that digit is stored for later columns only after).
//!
//! Digits are 32-bit words here and 64-bit words in the exponentiation's
//! elements (`radix`'s contiguous layout); each multiplication narrows its
//! operands into zero-padded 32-bit buffers first, which costs `O(N)`
//! beside the `O(N²)` products.
//!
//! # Constant time
//! The loop counts and addresses depend on the column index and the digit
//! count only; no branch or address depends on a digit. The instructions
//! (`ldr`, `umlal`/`umlal2`, `add`, `umov`, `mul`, `adds`, `cset`/`cinc`,
//! `extr`, `and`) are on Arm's data-independent-timing list, which holds
//! while `PSTATE.DIT` is set (the exponentiations hold the guard). The table
//! lookup reads every entry and selects with masks.

use core::arch::asm;

use zeroize::Zeroize;

use crate::backend::radix::{
    Aligned, Column, DigitLayout, Digits, LimbMontgomery, ModulusToLoad, VectorMontMul,
    run_on_stack, with_vector_count,
};
use crate::ops::ct;
use crate::ops::montmul::ExpJob;

const DIGIT_BITS: u32 = 28;
const MASK28: u64 = (1 << DIGIT_BITS) - 1;
/// Digits per 128-bit vector of 32-bit digits (the unit of the digit
/// count and of the inner loop).
const LANES: usize = 4;
/// Smallest and largest moduli, in limbs, that exponentiate here: 1024 to
/// 4096 bits. Below, the unrolled scalar kernels need no conversion; above,
/// a lane's column sum could overflow.
const MIN_LIMBS: usize = 16;
const MAX_LIMBS: usize = 64;
/// Zero digits on each side of an operand, so that a column's first and
/// last four-digit steps may reach past the operand.
const PAD: usize = LANES;
/// Digits of a padded operand buffer at the largest size: `(64·64 + 30) /
/// 28` rounded up to whole vectors (148), and the padding.
const BUFFER: usize = 148 + 2 * PAD;

/// `(digits, vectors)` for an `n`-limb modulus, if it exponentiates here:
/// room for `4m'`, `m'` of up to `64n + 28` bits, in whole vectors.
fn shape(n: usize) -> Option<(usize, usize)> {
    let digits = (64 * n + 30)
        .div_ceil(DIGIT_BITS as usize)
        .next_multiple_of(LANES);
    (MIN_LIMBS..=MAX_LIMBS)
        .contains(&n)
        .then_some((digits, digits / LANES))
}

/// Whether these kernels take exponentiations modulo `n`-limb moduli (one
/// or two at a time).
pub(crate) fn takes(n: usize) -> bool {
    shape(n).is_some()
}

/// Runs `f`, an exponentiation, on this backend's arithmetic for the `K`
/// moduli of `ctxs` (of one limb count), as the x86_64 vector backends'
/// `run` do. Returns `false`, having done nothing, when the size has no
/// kernel (see [`takes`]).
pub(crate) fn run<const K: usize>(limbs: &dyn LimbMontgomery, job: ExpJob<'_, '_, '_, K>) -> bool {
    let Some((digits, vectors)) = job.nlimbs().and_then(shape) else {
        return false;
    };
    with_vector_count!(
        vectors,
        [10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37],
        |V| {
            let mut arith = Amm::<V, K> {
                m_rev: Aligned([[0; BUFFER]; K]),
                m1: [0; K],
                operands: Aligned([[0; BUFFER]; 3]),
                digits,
            };
            run_on_stack::<LANES, V, K, _>(limbs, &mut arith, digits, job)
        }
    )
    .is_some()
}

/// AMM modulo `K` moduli `m' = m·k0`, one after the other (the vector
/// side's throughput bounds a multiplication, so interleaving two would
/// gain nothing).
struct Amm<const V: usize, const K: usize> {
    /// The digits of each `m'`, highest first, padded: digit `j` at
    /// `PAD + N − 1 − j`.
    m_rev: Aligned<[[u32; BUFFER]; K]>,
    /// Digit 1 of each `m'`.
    m1: [u64; K],
    /// A multiplication's `a` (digit `i` at `PAD + i`), `b` reversed (as
    /// `m_rev`) and quotient digits (as `a`).
    operands: Aligned<[[u32; BUFFER]; 3]>,
    /// `N`, the digit count (`4V`).
    digits: usize,
}

impl<const V: usize, const K: usize> VectorMontMul for Amm<V, K> {
    const WORDS: usize = V * LANES;
    const VALUES: usize = K;
    const RADIX: Digits = Digits {
        bits: DIGIT_BITS,
        layout: DigitLayout::Contiguous,
    };

    fn load_modulus(&mut self, k: usize, modulus: ModulusToLoad<'_>) {
        let n = self.digits;
        let mut m_digits = [0u64; BUFFER];
        modulus.split_multiple(Self::RADIX, &mut m_digits[..n]);
        let m_rev = &mut self.m_rev.0[k];
        m_rev.fill(0);
        for (j, &d) in m_digits[..n].iter().enumerate() {
            m_rev[PAD + n - 1 - j] = d as u32;
        }
        self.m1[k] = m_digits[1];
        m_digits.zeroize();
    }

    fn wipe(&mut self) {
        self.m_rev.0.as_flattened_mut().zeroize();
        self.m1.zeroize();
        self.operands.0.as_flattened_mut().zeroize();
    }

    fn amm(&mut self, out: &mut [u64], a: &[u64], b: &[u64]) {
        let len = V * LANES;
        for k in 0..K {
            let (r, a, b) = (&mut out[k * len..][..len], &a[k * len..], &b[k * len..]);
            self.amm_one(k, r, &a[..len], Some(&b[..len]));
        }
    }

    fn amm_sqr(&mut self, out: &mut [u64], a: &[u64]) {
        let len = V * LANES;
        for k in 0..K {
            let (r, a) = (&mut out[k * len..][..len], &a[k * len..]);
            self.amm_one(k, r, &a[..len], None);
        }
    }

    fn lookup_value(&self, out: &mut [u64], table: &[u64], column: Column, index: u64) {
        ct::lookup_strided(out, table, column.stride, column.offset, index);
    }
}

/// Masks that keep the first `0..=3` and all four digits of a vector.
static MASKS: [[u32; LANES]; LANES + 1] = [
    [0, 0, 0, 0],
    [!0, 0, 0, 0],
    [!0, !0, 0, 0],
    [!0, !0, !0, 0],
    [!0; LANES],
];

impl<const V: usize, const K: usize> Amm<V, K> {
    /// `r = a·b·2^(−28N) mod m'_k`, below `2m'`, for `a` and `b` below
    /// `2m'` with digits below `2^28` (`b = None`: `a²`); `r`'s digits are
    /// below `2^28` too.
    ///
    /// A square takes each product `a_i·a_j`, `i < j`, once, against a
    /// doubled operand (`2a`, 29-bit digits), and the column's middle
    /// square `a_(k/2)²` in the scalar term: three quarters of a
    /// multiplication's products.
    fn amm_one(&mut self, k: usize, r: &mut [u64], a: &[u64], b: Option<&[u64]>) {
        let n = self.digits;
        let [a_buf, b_rev, q] = &mut self.operands.0;
        // The padding is never written, so it stays zero; `q` is cleared
        // because a column reads the digits it does not have yet as zero.
        for i in 0..n {
            a_buf[PAD + i] = a[i] as u32;
            b_rev[PAD + n - 1 - i] = match b {
                Some(b) => b[i] as u32,
                None => 2 * a[i] as u32,
            };
        }
        q[PAD..PAD + n].fill(0);
        let m_rev = &self.m_rev.0[k];
        let m1 = self.m1[k];
        let (mut carry, mut q_prev) = (0, 0);
        for col in 0..2 * n - 1 {
            // Column `col` pairs a_i with b_(col−i) (and q_i with m'_(col−i))
            // for lo ≤ i ≤ hi; whole vectors from the one holding `lo`, the
            // padding's zeros making up the products outside the range.
            let lo = col.saturating_sub(n - 1);
            let hi = col.min(n - 1);
            let first = lo - lo % LANES;
            let steps = (hi - first) / LANES + 1;
            // A square's a·a products stop at the middle of the column:
            // `count` digits from `first`, the last vector masked.
            let (count, middle) = match b {
                Some(_) => (LANES * steps, 0),
                None => {
                    let middle = if col % 2 == 0 {
                        a[col / 2] * a[col / 2]
                    } else {
                        0
                    };
                    // The i with i < col − i.
                    (col.div_ceil(2) - first, middle)
                }
            };
            let both = count.div_ceil(LANES).max(1) - 1;
            let rev = PAD + n - 1 + first - col;
            let (digit, carry_out) = column(
                [
                    &a_buf[PAD + first..],
                    &b_rev[rev..],
                    &q[PAD + first..],
                    &m_rev[rev..],
                ],
                Steps {
                    both,
                    mask: &MASKS[count - LANES * both],
                    rest: steps - both - 1,
                },
                carry,
                q_prev * m1 + middle,
            );
            if (1..=n).contains(&col) {
                q[PAD + col - 1] = q_prev as u32;
            }
            if col < n {
                // The quotient digit; adding q·m'_0 = q·2^28 − q to the
                // column clears its low digit and adds q to the carry.
                (q_prev, carry) = (digit, carry_out + digit);
            } else {
                (r[col - n], q_prev, carry) = (digit, 0, carry_out);
            }
        }
        r[n - 1] = carry;
    }
}

/// A column's steps (four digits of each operand a step): `both` with all
/// four operands, one with the first operand masked, then `rest` with the
/// last two only.
struct Steps {
    both: usize,
    mask: &'static [u32; LANES],
    rest: usize,
}

/// One column: `t = Σ x_i·y_i + Σ z_i·w_i + carry + extra` over the digits
/// `steps` covers (`x` and `y` for `both + 1` steps, the last `x` vector
/// masked; `z` and `w` for `both + 1 + rest`), returning `(t mod 2^28,
/// t >> 28)`.
///
/// Bounds: the digits are below `2^28` (`y`'s below `2^29` in a square,
/// whose `x·y` steps are at most half a column), and each of the eight
/// 64-bit lanes takes one product a step, at most 37 steps (4096 bits): a
/// lane stays below `2^61.4`, the four accumulators' sum below `2^63.4`;
/// `carry` is below `2^38` and `extra` below `2^58`, so `t` fits 65 bits.
#[inline(always)]
fn column(operands: [&[u32]; 4], steps: Steps, carry: u64, extra: u64) -> (u64, u64) {
    let [x, y, z, w] = operands;
    let Steps { both, mask, rest } = steps;
    let xy_words = LANES * (both + 1);
    let zw_words = LANES * (both + 1 + rest);
    assert!(x.len() >= xy_words && y.len() >= xy_words);
    assert!(z.len() >= zw_words && w.len() >= zw_words);
    let (digit, carry_out);
    // SAFETY: baseline AArch64 with NEON (this module is compiled only with
    // the `neon` target feature). The loops read 16 bytes a step from each
    // slice, `both + 1` steps from `x` and `y` and `both + 1 + rest` from `z`
    // and `w` (checked above against each slice's length), and 16 bytes
    // from `mask`, through pointers derived from them, and write no memory;
    // every register they change is declared; no stack.
    unsafe {
        asm!(
            "movi {s0:v}.2d, #0",
            "movi {s1:v}.2d, #0",
            "movi {s2:v}.2d, #0",
            "movi {s3:v}.2d, #0",
            "ldr {mask:q}, [{mp}]",
            "cbz {both}, 3f",
            "2:",
            "ldr {x:q}, [{xp}], #16",
            "ldr {y:q}, [{yp}], #16",
            "ldr {z:q}, [{zp}], #16",
            "ldr {w:q}, [{wp}], #16",
            "umlal {s0:v}.2d, {x:v}.2s, {y:v}.2s",
            "umlal2 {s1:v}.2d, {x:v}.4s, {y:v}.4s",
            "umlal {s2:v}.2d, {z:v}.2s, {w:v}.2s",
            "umlal2 {s3:v}.2d, {z:v}.4s, {w:v}.4s",
            "subs {both}, {both}, #1",
            "b.ne 2b",
            "3:",
            "ldr {x:q}, [{xp}]",
            "ldr {y:q}, [{yp}]",
            "ldr {z:q}, [{zp}], #16",
            "ldr {w:q}, [{wp}], #16",
            "and {x:v}.16b, {x:v}.16b, {mask:v}.16b",
            "umlal {s0:v}.2d, {x:v}.2s, {y:v}.2s",
            "umlal2 {s1:v}.2d, {x:v}.4s, {y:v}.4s",
            "umlal {s2:v}.2d, {z:v}.2s, {w:v}.2s",
            "umlal2 {s3:v}.2d, {z:v}.4s, {w:v}.4s",
            "cbz {rest}, 5f",
            "4:",
            "ldr {z:q}, [{zp}], #16",
            "ldr {w:q}, [{wp}], #16",
            "umlal {s2:v}.2d, {z:v}.2s, {w:v}.2s",
            "umlal2 {s3:v}.2d, {z:v}.4s, {w:v}.4s",
            "subs {rest}, {rest}, #1",
            "b.ne 4b",
            "5:",
            "add {s0:v}.2d, {s0:v}.2d, {s1:v}.2d",
            "add {s2:v}.2d, {s2:v}.2d, {s3:v}.2d",
            "add {s0:v}.2d, {s0:v}.2d, {s2:v}.2d",
            "mov {lo}, {s0:v}.d[0]",
            "mov {hi}, {s0:v}.d[1]",
            // The two lanes, the carry and the extra term into hi:lo.
            "adds {lo}, {lo}, {hi}",
            "cset {hi}, cs",
            "adds {lo}, {lo}, {carry}",
            "cinc {hi}, {hi}, cs",
            "adds {lo}, {lo}, {extra}",
            "cinc {hi}, {hi}, cs",
            "extr {carry}, {hi}, {lo}, #28",
            "and {lo}, {lo}, #0xfffffff",
            xp = inout(reg) x.as_ptr() => _,
            yp = inout(reg) y.as_ptr() => _,
            zp = inout(reg) z.as_ptr() => _,
            wp = inout(reg) w.as_ptr() => _,
            mp = in(reg) mask.as_ptr(),
            both = inout(reg) both => _,
            rest = inout(reg) rest => _,
            carry = inout(reg) carry => carry_out,
            extra = in(reg) extra,
            lo = out(reg) digit,
            hi = out(reg) _,
            s0 = out(vreg) _,
            s1 = out(vreg) _,
            s2 = out(vreg) _,
            s3 = out(vreg) _,
            x = out(vreg) _,
            y = out(vreg) _,
            z = out(vreg) _,
            w = out(vreg) _,
            mask = out(vreg) _,
            options(nostack, readonly),
        );
    }
    debug_assert!(digit <= MASK28);
    (digit, carry_out)
}
