//! Modular exponentiation algorithms on Montgomery-form elements: written
//! once over [`MontMul`], they run on whatever backend they are handed and
//! choose none (`monty` chooses, from `backend::selection`).

use zeroize::Zeroize;

use crate::Limb;
use crate::ops::ct;
use crate::ops::montmul::{MAX_VALUES, MAX_WINDOW, MontMul};

/// Scratch the exponentiations need, in multiples of the modulus' limb
/// count: a table for any window up to [`MAX_WINDOW`], two temporaries and
/// a double-width product.
pub(crate) const POW_SCRATCH_MULTIPLE: usize = (1 << MAX_WINDOW) + 4;

/// Window for the fixed-window constant-time exponentiation: the cost is
/// about `bits` squarings, `bits / w` multiplications, `2^w` table entries
/// and `bits / w` full-table scans; these thresholds minimise the sum.
pub(crate) const fn window_ct(exp_bits: u32) -> u32 {
    window_for(exp_bits, &[(24, 2), (96, 3), (320, 4), (1280, 5)])
}

/// Window for the sliding-window exponentiation (odd powers only, so the
/// table has `2^(w-1)` entries).
const fn window_vartime(exp_bits: u32) -> u32 {
    window_for(exp_bits, &[(20, 1), (60, 3), (240, 4), (800, 5)])
}

/// The window of the first `(longest exponent, window)` row that takes
/// `exp_bits`, [`MAX_WINDOW`] past the last.
const fn window_for(exp_bits: u32, rows: &[(u32, u32)]) -> u32 {
    let mut i = 0;
    while i < rows.len() {
        if exp_bits <= rows[i].0 {
            return rows[i].1;
        }
        i += 1;
    }
    MAX_WINDOW
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

/// Where a constant-time exponentiation reads its exponents' windows: one
/// exponent, or `K` exponents run at once (one per value of an element),
/// each value's window in its own word (the lookup of
/// [`MontMul::lookup`] takes them so).
pub(crate) trait Windows {
    /// How many exponents (values of an element).
    fn count(&self) -> usize;
    /// The windows `[pos, pos + width)` into `out[..count]`; `width <= 63`.
    fn window(&self, pos: u32, width: u32, out: &mut [Limb]);
}

impl Windows for [Limb] {
    fn count(&self) -> usize {
        1
    }
    fn window(&self, pos: u32, width: u32, out: &mut [Limb]) {
        out[0] = window_bits(self, pos, width);
    }
}

impl Windows for [&[Limb]] {
    fn count(&self) -> usize {
        self.len()
    }
    fn window(&self, pos: u32, width: u32, out: &mut [Limb]) {
        for (o, exp) in out.iter_mut().zip(self) {
            *o = window_bits(exp, pos, width);
        }
    }
}

/// Whether bit `pos` of `exp` is set (variable time: for public exponents).
#[inline]
fn bit_vartime(exp: &[Limb], pos: u32) -> bool {
    window_bits(exp, pos, 1) == 1
}

/// Fills `table` with `first · step^i` in entry `i` (`entry_len` words,
/// written by `store`), the same sequence of multiplications whatever the
/// values; `work` holds two elements.
fn fill_powers<A: MontMul + ?Sized>(
    arith: &mut A,
    table: &mut [Limb],
    entry_len: usize,
    (first, step): (&[Limb], &[Limb]),
    work: [&mut [Limb]; 2],
    store: impl Fn(&A, &mut [Limb], &[Limb]),
) {
    let [mut power, mut next] = work;
    power.copy_from_slice(first);
    let mut entries = table.chunks_exact_mut(entry_len);
    if let Some(entry) = entries.next() {
        store(arith, entry, power);
    }
    for entry in entries {
        arith.mul(next, power, step);
        store(arith, entry, next);
        core::mem::swap(&mut power, &mut next);
    }
}

/// Constant-time fixed-window exponentiation on `arith`: `out = base^e`,
/// where `e` is the low `exp_bits` bits of `exp` (of each exponent, for
/// each value of the elements). `base`, `one` and `out` are elements in
/// `arith`'s representation; `scratch` holds `2^w + 2` elements for the
/// window `w` (at most [`MontMul::max_window`]).
///
/// The sequence of operations and memory addresses depends only on the
/// element length and `exp_bits`: every window does `w` squarings, one
/// full-table scan and one multiplication, including windows of zeros.
pub(crate) fn pow_ct<A: MontMul + ?Sized, E: Windows + ?Sized>(
    arith: &mut A,
    out: &mut [Limb],
    base: &[Limb],
    exp: &E,
    exp_bits: u32,
    one: &[Limb],
    scratch: &mut [Limb],
) {
    let n = arith.elem_len();
    let w = window_ct(exp_bits).min(arith.max_window());
    let entry_len = arith.entry_len();
    let (table, rest) = scratch.split_at_mut((1 << w) * entry_len);
    let (entry, rest) = rest.split_at_mut(n);
    let tmp = &mut rest[..n];

    let store = |arith: &A, entry: &mut [Limb], x: &[Limb]| arith.store_entry(entry, x);
    fill_powers(
        arith,
        table,
        entry_len,
        (one, base),
        [&mut *entry, &mut *tmp],
        store,
    );

    if exp_bits == 0 {
        out.copy_from_slice(one);
        return;
    }
    let windows = exp_bits.div_ceil(w);
    let top_width = exp_bits - (windows - 1) * w;
    // The accumulator alternates between `out` and `tmp` instead of being
    // copied back after every operation; where it ends depends only on the
    // (public) number of operations.
    let (mut acc, mut next) = (out, tmp);
    let mut index = [0 as Limb; MAX_VALUES];
    let index = &mut index[..exp.count()];
    exp.window((windows - 1) * w, top_width, index);
    arith.lookup(acc, table, index);
    for j in (0..windows - 1).rev() {
        for _ in 0..w {
            arith.sqr(next, acc);
            core::mem::swap(&mut acc, &mut next);
        }
        exp.window(j * w, w, index);
        arith.lookup(entry, table, index);
        arith.mul(next, acc, entry);
        core::mem::swap(&mut acc, &mut next);
    }
    index.zeroize();
    // One copy if an odd number of operations left the result in `tmp`.
    if (windows - 1) * (w + 1) % 2 == 1 {
        next.copy_from_slice(acc);
    }
}

/// Variable-time sliding-window exponentiation for public exponents, on
/// `arith`: `out = base^exp` (one exponent for every value of the
/// elements: the exponent alone steers the window). Only odd powers are
/// tabulated; `scratch` as for [`pow_ct`].
pub(crate) fn pow_vartime<A: MontMul + ?Sized>(
    arith: &mut A,
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    one: &[Limb],
    scratch: &mut [Limb],
) {
    let n = arith.elem_len();
    let bits = ct::bit_length(exp);
    if bits == 0 {
        out.copy_from_slice(one);
        return;
    }
    let w = window_vartime(bits).min(arith.max_window());
    let entries = 1usize << (w - 1);
    let (table, rest) = scratch.split_at_mut(entries * n);
    let (square, rest) = rest.split_at_mut(n);
    let tmp = &mut rest[..n];

    // table[i] = base^(2i + 1), elements as they are.
    arith.sqr(square, base);
    let copy = |_: &A, entry: &mut [Limb], x: &[Limb]| entry.copy_from_slice(x);
    fill_powers(
        arith,
        table,
        n,
        (base, square),
        [&mut *out, &mut *tmp],
        copy,
    );
    out.copy_from_slice(one);

    let mut started = false;
    let mut i = bits as i64 - 1;
    // The accumulator alternates between `out` and `tmp`, as in `pow_ct_with`.
    let (mut acc, mut next) = (out, tmp);
    let mut swapped = false;
    while i >= 0 {
        if !bit_vartime(exp, i as u32) {
            if started {
                arith.sqr(next, acc);
                core::mem::swap(&mut acc, &mut next);
                swapped = !swapped;
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
                arith.sqr(next, acc);
                core::mem::swap(&mut acc, &mut next);
                swapped = !swapped;
            }
            arith.mul(next, acc, entry);
            core::mem::swap(&mut acc, &mut next);
            swapped = !swapped;
        } else {
            acc.copy_from_slice(entry);
            started = true;
        }
        i = low - 1;
    }
    if swapped {
        next.copy_from_slice(acc);
    }
}
