//! Modular exponentiation on Montgomery-form limb slices.

use crate::Limb;
use crate::ct;
use crate::kernels::{Kernels, dispatch};

/// Largest window either exponentiation uses; the constant-time table then
/// has 64 entries.
pub(crate) const MAX_WINDOW: u32 = 6;

/// Scratch the exponentiations need, in multiples of the modulus' limb
/// count: a table for any window up to [`MAX_WINDOW`] and four temporaries.
pub(crate) const POW_SCRATCH_MULTIPLE: usize = (1 << MAX_WINDOW) + 4;

/// Window for the fixed-window constant-time exponentiation: the cost is
/// about `bits` squarings, `bits / w` multiplications, `2^w` table entries
/// and `bits / w` full-table scans; these thresholds minimise the sum.
pub(crate) const fn window_ct(exp_bits: u32) -> u32 {
    match exp_bits {
        0..=24 => 2,
        25..=96 => 3,
        97..=320 => 4,
        321..=1280 => 5,
        _ => MAX_WINDOW,
    }
}

/// Window for the sliding-window exponentiation (odd powers only, so the
/// table has `2^(w-1)` entries).
const fn window_vartime(exp_bits: u32) -> u32 {
    match exp_bits {
        0..=20 => 1,
        21..=60 => 3,
        61..=240 => 4,
        241..=800 => 5,
        _ => MAX_WINDOW,
    }
}

/// Bits `[pos, pos + width)` of `exp` (zero beyond its end); `width <= 63`.
/// Positions are public; the value read is not branched on.
#[inline]
fn window_bits(exp: &[Limb], pos: u32, width: u32) -> Limb {
    let limb = (pos / Limb::BITS) as usize;
    let offset = pos % Limb::BITS;
    let mut v = exp.get(limb).copied().unwrap_or(0) >> offset;
    if offset + width > Limb::BITS {
        v |= exp.get(limb + 1).copied().unwrap_or(0) << (Limb::BITS - offset);
    }
    v & ((1 << width) - 1)
}

/// Whether bit `pos` of `exp` is set (variable time: for public exponents).
#[inline]
fn bit_vartime(exp: &[Limb], pos: u32) -> bool {
    window_bits(exp, pos, 1) == 1
}

/// Everything an exponentiation needs to know about the modulus.
pub(crate) struct MontyCtx<'a> {
    pub(crate) m: &'a [Limb],
    pub(crate) m_inv: Limb,
    /// `R mod m`, the Montgomery form of 1.
    pub(crate) one: &'a [Limb],
}

/// Fills `table` (entries of `n` limbs) with `first · step^i`, the same
/// sequence of multiplications whatever the values.
fn fill_powers<K: Kernels>(
    k: K,
    table: &mut [Limb],
    first: &[Limb],
    step: &[Limb],
    ctx: &MontyCtx<'_>,
    wide: &mut [Limb],
) {
    let n = ctx.m.len();
    table[..n].copy_from_slice(first);
    for i in 1..table.len() / n {
        let (done, next) = table.split_at_mut(i * n);
        k.mont_mul(
            &mut next[..n],
            &done[(i - 1) * n..],
            step,
            ctx.m,
            ctx.m_inv,
            wide,
        );
    }
}

/// Constant-time fixed-window exponentiation: `out = base^e` in Montgomery
/// form, where `e` is the low `exp_bits` bits of `exp`.
///
/// The sequence of operations and memory addresses depends only on `n` and
/// `exp_bits`: every window does `w` squarings, one full-table scan and one
/// multiplication, including windows of zeros.
pub(crate) fn pow_ct(
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    exp_bits: u32,
    ctx: &MontyCtx<'_>,
    scratch: &mut [Limb],
) {
    dispatch!(k => pow_ct_with(k, out, base, exp, exp_bits, ctx, scratch))
}

fn pow_ct_with<K: Kernels>(
    k: K,
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    exp_bits: u32,
    ctx: &MontyCtx<'_>,
    scratch: &mut [Limb],
) {
    let n = ctx.m.len();
    let w = window_ct(exp_bits);
    let entries = 1usize << w;
    let (table, rest) = scratch.split_at_mut(entries * n);
    let (entry, rest) = rest.split_at_mut(n);
    let (tmp, rest) = rest.split_at_mut(n);
    let wide = &mut rest[..2 * n];

    fill_powers(k, table, ctx.one, base, ctx, wide);

    if exp_bits == 0 {
        out.copy_from_slice(ctx.one);
        return;
    }
    let windows = exp_bits.div_ceil(w);
    let top_width = exp_bits - (windows - 1) * w;
    // The accumulator alternates between `out` and `tmp` instead of being
    // copied back after every operation; where it ends depends only on the
    // (public) number of operations.
    let (mut acc, mut next) = (out, tmp);
    ct::lookup(acc, table, window_bits(exp, (windows - 1) * w, top_width));
    for j in (0..windows - 1).rev() {
        for _ in 0..w {
            k.mont_sqr(next, acc, ctx.m, ctx.m_inv, wide);
            core::mem::swap(&mut acc, &mut next);
        }
        ct::lookup(entry, table, window_bits(exp, j * w, w));
        k.mont_mul(next, acc, entry, ctx.m, ctx.m_inv, wide);
        core::mem::swap(&mut acc, &mut next);
    }
    // One copy if an odd number of operations left the result in `tmp`.
    if (windows - 1) * (w + 1) % 2 == 1 {
        next.copy_from_slice(acc);
    }
}

/// Variable-time sliding-window exponentiation for public exponents:
/// `out = base^exp` in Montgomery form. Only odd powers are tabulated.
pub(crate) fn pow_vartime(
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    ctx: &MontyCtx<'_>,
    scratch: &mut [Limb],
) {
    dispatch!(k => pow_vartime_with(k, out, base, exp, ctx, scratch))
}

fn pow_vartime_with<K: Kernels>(
    k: K,
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    ctx: &MontyCtx<'_>,
    scratch: &mut [Limb],
) {
    let n = ctx.m.len();
    let bits = ct::bit_length(exp);
    out.copy_from_slice(ctx.one);
    if bits == 0 {
        return;
    }
    let w = window_vartime(bits);
    let entries = 1usize << (w - 1);
    let (table, rest) = scratch.split_at_mut(entries * n);
    let (square, rest) = rest.split_at_mut(n);
    let (tmp, rest) = rest.split_at_mut(n);
    let wide = &mut rest[..2 * n];

    // table[i] = base^(2i + 1)
    k.mont_sqr(square, base, ctx.m, ctx.m_inv, wide);
    fill_powers(k, table, base, square, ctx, wide);

    let mut started = false;
    let mut i = bits as i64 - 1;
    while i >= 0 {
        if !bit_vartime(exp, i as u32) {
            if started {
                k.mont_sqr(tmp, out, ctx.m, ctx.m_inv, wide);
                out.copy_from_slice(tmp);
            }
            i -= 1;
            continue;
        }
        // The longest window of at most w bits ending (at the bottom) in a 1.
        let mut low = (i - w as i64 + 1).max(0);
        while !bit_vartime(exp, low as u32) {
            low += 1;
        }
        let width = (i - low + 1) as u32;
        let value = window_bits(exp, low as u32, width) as usize;
        let entry = &table[(value >> 1) * n..][..n];
        if started {
            for _ in 0..width {
                k.mont_sqr(tmp, out, ctx.m, ctx.m_inv, wide);
                out.copy_from_slice(tmp);
            }
            k.mont_mul(tmp, out, entry, ctx.m, ctx.m_inv, wide);
            out.copy_from_slice(tmp);
        } else {
            out.copy_from_slice(entry);
            started = true;
        }
        i = low - 1;
    }
}
