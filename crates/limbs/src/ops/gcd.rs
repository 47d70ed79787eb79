//! Greatest common divisors, modular inverses and the Jacobi symbol.

use core::cmp::Ordering;

use subtle::{Choice, ConditionallySelectable, ConstantTimeLess};

use crate::Limb;
use crate::backend::barrier::value_barrier;
use crate::kernels::mul;
use crate::ops::add::{add_limb_assign, cnd_sub_assign, sub_assign};
use crate::ops::ct;
use crate::ops::div::{div_rem_vartime, div_rem_vartime_scratch, significant_limbs};
use crate::ops::kernels::mont_inverse_limb;
use crate::ops::shift::{self, shr_vartime, shr1_with};

/// Bits per digit of the signed representation [`inv_mod_odd`] works in:
/// 62, so that a divstep matrix entry (at most `2^62` in magnitude) times a
/// digit fits an `i128` with room for three such sums.
const DIGIT_BITS: u32 = 62;
const DIGIT_MASK: u64 = (1 << DIGIT_BITS) - 1;

/// Digits of [`DIGIT_BITS`] for an `n`-limb value with the two extra bits
/// the ranges below need (`d` and `e` lie in `(−2m, m)`).
const fn digits(n: usize) -> usize {
    (Limb::BITS as usize * n + 2).div_ceil(DIGIT_BITS as usize)
}

/// Limbs of scratch space [`inv_mod_odd`] needs for operands of at most
/// `n` limbs.
pub(crate) const fn inv_mod_odd_scratch(n: usize) -> usize {
    5 * digits(n)
}

/// Constant-time modular inverse for an odd modulus: Bernstein and Yang's
/// safegcd ("Fast constant-time gcd computation and modular inversion",
/// 2019), in the form libsecp256k1's `modinv64` uses (62 divsteps on the
/// low words, then one matrix update of the full-width values).
///
/// Writes `out = x^-1 mod m` and returns true when `gcd(x, m) = 1`; otherwise
/// `out` is meaningless and the result is false. Requires `m` odd and above
/// 1, with `out` as wide as `m`; `x` may have any width and need not be
/// below `m`. The running time depends only on the widths.
///
/// Invariants: `f ≡ d·x` and `g ≡ e·x (mod m)`, from `(f, g, d, e) =
/// (m, x, 0, 1)`. Each divstep keeps `gcd(f, g)`; after the number of steps
/// the paper's Theorem 11.2 bounds (for `f² + 4g² ≤ 5·2^(2b)`, which the
/// widths give with `b` bits), `g = 0` and `f = ±gcd(x, m)`, so the inverse
/// is `±d`. Values are held in signed base-2^62 digits, the top digit
/// carrying the sign; `d` and `e` stay in `(−2m, m)`.
pub(crate) fn inv_mod_odd(
    out: &mut [Limb],
    x: &[Limb],
    m: &[Limb],
    scratch: &mut [Limb],
) -> Choice {
    let width = m.len().max(x.len());
    let len = digits(width);
    let (f, rest) = scratch[..5 * len].split_at_mut(len);
    let (g, rest) = rest.split_at_mut(len);
    let (d, rest) = rest.split_at_mut(len);
    let (e, modulus) = rest.split_at_mut(len);
    to_digits(f, m);
    to_digits(g, x);
    to_digits(modulus, m);
    d.fill(0);
    e.fill(0);
    e[0] = 1;
    let m_inv = mont_inverse_limb(m[0]).wrapping_neg() & DIGIT_MASK;

    let bits = Limb::BITS as usize * width;
    let steps = if bits < 46 {
        (49 * bits + 80) / 17
    } else {
        (49 * bits + 57) / 17
    };
    let mut delta = 1;
    for _ in 0..steps.div_ceil(DIGIT_BITS as usize) {
        let t = divsteps(&mut delta, f[0], g[0]);
        update_de(d, e, &t, modulus, m_inv);
        update_fg(f, g, &t);
    }

    // f = ±gcd(x, m): the inverse exists iff f = 1 or f = −1 (canonical
    // digits: all below 2^62 but the signed top one).
    let top = len - 1;
    let mut not_one = f[0] ^ 1;
    let mut not_minus_one = f[0] ^ DIGIT_MASK;
    for (i, &digit) in f.iter().enumerate().skip(1) {
        not_one |= digit;
        not_minus_one |= digit ^ if i == top { Limb::MAX } else { DIGIT_MASK };
    }
    let f_negative = ((f[top] as i64) >> 63) as Limb;
    // d from (−2m, m) to [0, m), negated when f = −1.
    add_masked(d, modulus, ((d[top] as i64) >> 63) as Limb);
    negate_masked(d, f_negative);
    add_masked(d, modulus, ((d[top] as i64) >> 63) as Limb);
    from_digits(out, d);
    ct::is_zero(&[not_one]) | ct::is_zero(&[not_minus_one])
}

/// A divstep matrix scaled by `2^62`: after the steps,
/// `2^62·(f', g') = (u·f + v·g, q·f + r·g)`.
struct Transition {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// 62 of Bernstein and Yang's divsteps on the low words of `f` (odd) and
/// `g`, without a branch:
/// `δ > 0` and `g` odd: `(δ, f, g) → (1 − δ, g, (g − f)/2)`;
/// `g` odd otherwise: `(1 + δ, f, (g + f)/2)`; `g` even: `(1 + δ, f, g/2)`.
/// Step `i` needs the low `64 − i` bits of `g` only, so the words suffice.
/// The arrangement is libsecp256k1's (`divsteps_59`): `g` takes `±f` before
/// `f` takes the old `g` as `f + (g − f)`, which keeps `g`'s dependency
/// chain at five operations a step.
fn divsteps(delta: &mut i64, mut f: u64, mut g: u64) -> Transition {
    let (mut u, mut v, mut q, mut r) = (1i64, 0i64, 0i64, 1i64);
    for _ in 0..DIGIT_BITS {
        // c1: δ > 0 (then f's row is subtracted, not added); c2: g odd.
        let mut c1 = delta.wrapping_neg() >> 63;
        let c2 = (g & 1).wrapping_neg() as i64;
        let x = ((f as i64 ^ c1).wrapping_sub(c1)) as u64;
        let y = (u ^ c1).wrapping_sub(c1);
        let z = (v ^ c1).wrapping_sub(c1);
        g = g.wrapping_add(x & c2 as u64);
        q = q.wrapping_add(y & c2);
        r = r.wrapping_add(z & c2);
        // A swap: δ > 0 and g odd.
        c1 &= c2;
        *delta = (*delta ^ c1).wrapping_sub(c1).wrapping_add(1);
        f = f.wrapping_add(g & c1 as u64);
        u = u.wrapping_add(q & c1);
        v = v.wrapping_add(r & c1);
        g >>= 1;
        u = u.wrapping_shl(1);
        v = v.wrapping_shl(1);
    }
    Transition { u, v, q, r }
}

/// `(f, g) ← (u·f + v·g, q·f + r·g) / 2^62`, exact by construction.
fn update_fg(f: &mut [Limb], g: &mut [Limb], t: &Transition) {
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let (f0, g0) = (f[0] as i64 as i128, g[0] as i64 as i128);
    let mut cf = u * f0 + v * g0;
    let mut cg = q * f0 + r * g0;
    debug_assert_eq!(cf as u64 & DIGIT_MASK, 0);
    debug_assert_eq!(cg as u64 & DIGIT_MASK, 0);
    cf >>= DIGIT_BITS;
    cg >>= DIGIT_BITS;
    for i in 1..f.len() {
        let (fi, gi) = (f[i] as i64 as i128, g[i] as i64 as i128);
        cf += u * fi + v * gi;
        cg += q * fi + r * gi;
        f[i - 1] = cf as u64 & DIGIT_MASK;
        g[i - 1] = cg as u64 & DIGIT_MASK;
        cf >>= DIGIT_BITS;
        cg >>= DIGIT_BITS;
    }
    let top = f.len() - 1;
    f[top] = cf as i64 as u64;
    g[top] = cg as i64 as u64;
}

/// `(d, e) ← (u·d + v·e, q·d + r·e) / 2^62 mod m`, keeping both in
/// `(−2m, m)`: a multiple of `m` makes the low digit vanish (`m_inv` is
/// `m^-1 mod 2^62`), and adding `m` times the matrix's row when `d` or `e`
/// is negative keeps the result above `−2m` (libsecp256k1's
/// `update_de_62`).
fn update_de(d: &mut [Limb], e: &mut [Limb], t: &Transition, modulus: &[Limb], m_inv: u64) {
    let top = d.len() - 1;
    let sd = value_barrier(((d[top] as i64) >> 63) as Limb) as i64;
    let se = value_barrier(((e[top] as i64) >> 63) as Limb) as i64;
    let mut md = (t.u & sd) + (t.v & se);
    let mut me = (t.q & sd) + (t.r & se);
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let (d0, e0) = (d[0] as i64 as i128, e[0] as i64 as i128);
    let mut cd = u * d0 + v * e0;
    let mut ce = q * d0 + r * e0;
    md -= (m_inv.wrapping_mul(cd as u64).wrapping_add(md as u64) & DIGIT_MASK) as i64;
    me -= (m_inv.wrapping_mul(ce as u64).wrapping_add(me as u64) & DIGIT_MASK) as i64;
    let (md, me) = (md as i128, me as i128);
    let m0 = modulus[0] as i128;
    cd += m0 * md;
    ce += m0 * me;
    debug_assert_eq!(cd as u64 & DIGIT_MASK, 0);
    debug_assert_eq!(ce as u64 & DIGIT_MASK, 0);
    cd >>= DIGIT_BITS;
    ce >>= DIGIT_BITS;
    for i in 1..d.len() {
        let (di, ei, mi) = (d[i] as i64 as i128, e[i] as i64 as i128, modulus[i] as i128);
        cd += u * di + v * ei + mi * md;
        ce += q * di + r * ei + mi * me;
        d[i - 1] = cd as u64 & DIGIT_MASK;
        e[i - 1] = ce as u64 & DIGIT_MASK;
        cd >>= DIGIT_BITS;
        ce >>= DIGIT_BITS;
    }
    d[top] = cd as i64 as u64;
    e[top] = ce as i64 as u64;
}

/// `a += m` when `mask` is all ones (signed digits, carried).
fn add_masked(a: &mut [Limb], m: &[Limb], mask: Limb) {
    // The barrier keeps the compiler from branching on the mask.
    let mask = value_barrier(mask);
    let top = a.len() - 1;
    let mut carry = 0i64;
    for (i, (x, &y)) in a.iter_mut().zip(m).enumerate() {
        let sum = (*x as i64) + ((y & mask) as i64) + carry;
        *x = if i == top {
            sum as u64
        } else {
            sum as u64 & DIGIT_MASK
        };
        carry = sum >> DIGIT_BITS;
    }
}

/// `a = −a` when `mask` is all ones (signed digits, carried).
fn negate_masked(a: &mut [Limb], mask: Limb) {
    let top = a.len() - 1;
    let mask = value_barrier(mask) as i64;
    let mut carry = 0i64;
    for (i, x) in a.iter_mut().enumerate() {
        let digit = ((*x as i64) ^ mask).wrapping_sub(mask) + carry;
        *x = if i == top {
            digit as u64
        } else {
            digit as u64 & DIGIT_MASK
        };
        carry = digit >> DIGIT_BITS;
    }
}

/// Base-2^62 digits of the non-negative `x` (`out` has [`digits`]`(x.len())`).
fn to_digits(out: &mut [Limb], x: &[Limb]) {
    for (i, digit) in out.iter_mut().enumerate() {
        let bit = i * DIGIT_BITS as usize;
        let (k, s) = (bit / 64, bit % 64);
        let low = x.get(k).map_or(0, |&w| w >> s);
        let high = match (s, x.get(k + 1)) {
            (0, _) | (_, None) => 0,
            (_, Some(&w)) => w << (64 - s),
        };
        *digit = (low | high) & DIGIT_MASK;
    }
}

/// The limbs of a value in `[0, 2^(64·out.len()))` held as non-negative
/// base-2^62 digits.
fn from_digits(out: &mut [Limb], digits: &[Limb]) {
    out.fill(0);
    for (i, &digit) in digits.iter().enumerate() {
        let bit = i * DIGIT_BITS as usize;
        let (k, s) = (bit / 64, bit % 64);
        if let Some(w) = out.get_mut(k) {
            *w |= digit << s;
        }
        if s > 64 - DIGIT_BITS as usize
            && let Some(w) = out.get_mut(k + 1)
        {
            *w |= digit >> (64 - s);
        }
    }
}

/// Limbs of scratch space [`inv_mod_vartime`] needs for an `n`-limb modulus.
pub(crate) const fn inv_mod_vartime_scratch(n: usize) -> usize {
    // y, m mod x, 2n-limb product, 2n-limb quotient, division scratch.
    2 * n + 4 * n + div_rem_vartime_scratch(2 * n, n) + inv_mod_odd_scratch(n)
}

/// Variable-time modular inverse for any modulus `m > 1`: `out = x^-1 mod m`,
/// returning false when none exists. Requires `x < m`, all `n` limbs.
///
/// Odd moduli use the binary algorithm directly. For even `m` (then `x` must
/// be odd), it inverts the other way round: with `y = m^-1 mod x`,
/// `(1 + m·(x − y)) / x` is an integer below `m` whose product with `x` is
/// `1 mod m`.
pub(crate) fn inv_mod_vartime(
    out: &mut [Limb],
    x: &[Limb],
    m: &[Limb],
    scratch: &mut [Limb],
) -> bool {
    let n = m.len();
    if m[0] & 1 == 1 {
        return bool::from(inv_mod_odd(out, x, m, scratch));
    }
    if x[0] & 1 == 0 {
        return false;
    }
    if significant_limbs(x) == 1 && x[0] == 1 {
        out.fill(0);
        out[0] = 1;
        return true;
    }
    let (y, rest) = scratch.split_at_mut(n);
    let (t, rest) = rest.split_at_mut(n);
    let (prod, rest) = rest.split_at_mut(2 * n);
    let (quot, rest) = rest.split_at_mut(2 * n);
    let (div_scratch, inv_scratch) = rest.split_at_mut(div_rem_vartime_scratch(2 * n, n));
    div_rem_vartime(&mut quot[..n], t, m, x, div_scratch); // t = m mod x
    if !bool::from(inv_mod_odd(y, t, x, inv_scratch)) {
        return false;
    }
    t.copy_from_slice(x);
    sub_assign(t, y); // x - y, non-zero since 0 < y < x
    mul(prod, m, t);
    add_limb_assign(prod, 1);
    // The division is exact; y receives the zero remainder.
    div_rem_vartime(quot, y, prod, x, div_scratch);
    out.copy_from_slice(&quot[..n]);
    true
}

/// Constant-time binary gcd: `out = gcd(a, b)`; `gcd(0, 0) = 0`. All `n`
/// limbs; `scratch` has `3 n`.
///
/// After removing the common power of two (found and shifted out in
/// constant time) and making `u` odd, each of `128 n` rounds does the same
/// work: when `v` is odd, swap so that `v >= u` and subtract `u`; then halve
/// `v`. Every round shrinks `bits(u) + bits(v)` by at least one until `v`
/// is zero, so `128 n` rounds always suffice.
pub(crate) fn gcd_ct(out: &mut [Limb], a: &[Limb], b: &[Limb], scratch: &mut [Limb]) {
    let n = a.len();
    let (u, rest) = scratch[..3 * n].split_at_mut(n);
    let (v, tmp) = rest.split_at_mut(n);
    let (za, zb) = (ct::trailing_zeros(a), ct::trailing_zeros(b));
    let k = u32::conditional_select(&zb, &za, za.ct_lt(&zb));
    u.copy_from_slice(a);
    v.copy_from_slice(b);
    shift::shift_ct(u, k, true, tmp);
    shift::shift_ct(v, k, true, tmp);
    // One of them is now odd (or both are zero): make it u.
    let u_even = !Choice::from((u[0] & 1) as u8);
    ct::swap_if(u, v, u_even);
    for _ in 0..2 * n as u32 * Limb::BITS {
        let v_odd = Choice::from((v[0] & 1) as u8);
        ct::swap_if(u, v, v_odd & ct::lt(v, u));
        cnd_sub_assign(v, u, ct::mask(v_odd));
        shr1_with(v, 0);
    }
    out.copy_from_slice(u);
    shift::shift_ct(out, k, false, tmp);
}

/// Variable-time binary gcd (Stein): `out = gcd(a, b)`; `gcd(0, 0) = 0`.
/// All `n` limbs; `scratch` has `2 n`.
pub(crate) fn gcd_vartime(out: &mut [Limb], a: &[Limb], b: &[Limb], scratch: &mut [Limb]) {
    let n = a.len();
    let (u, v) = scratch[..2 * n].split_at_mut(n);
    u.copy_from_slice(a);
    v.copy_from_slice(b);
    if bool::from(ct::is_zero(u)) {
        out.copy_from_slice(v);
        return;
    }
    if bool::from(ct::is_zero(v)) {
        out.copy_from_slice(u);
        return;
    }
    let shift = ct::trailing_zeros(u).min(ct::trailing_zeros(v));
    shr_vartime(u, ct::trailing_zeros(u));
    loop {
        shr_vartime(v, ct::trailing_zeros(v));
        if cmp_vartime(u, v) == Ordering::Greater {
            u.swap_with_slice(v);
        }
        sub_assign(v, u);
        if bool::from(ct::is_zero(v)) {
            break;
        }
    }
    out.copy_from_slice(u);
    shift::shl_vartime(out, shift);
}

/// Jacobi symbol `(a / m)` for odd `m > 0`, variable time: the binary
/// algorithm, using only subtraction, shifts and the reciprocity law.
/// All `n` limbs; `scratch` has `2 n`. Returns -1, 0 or 1.
///
/// Both values shrink as it runs, so every step works on their significant
/// limbs only, and the last stretch, once both fit a word, runs on `u64`s
/// (a full-width loop cost a third of shared RSA key generation).
pub(crate) fn jacobi_vartime(a: &[Limb], m: &[Limb], scratch: &mut [Limb]) -> i8 {
    let n = m.len();
    let (x, y) = scratch[..2 * n].split_at_mut(n);
    x.copy_from_slice(a);
    y.copy_from_slice(m);
    let (mut lx, mut ly) = (significant_limbs(x), significant_limbs(y));
    let mut t: i8 = 1;
    while lx > 0 {
        if lx == 1 && ly == 1 {
            return t * jacobi_word(x[0], y[0]);
        }
        let tz = ct::trailing_zeros(&x[..lx]);
        shr_vartime(&mut x[..lx], tz);
        lx = significant_limbs(&x[..lx]);
        // (2 / y) = -1 exactly when y ≡ 3 or 5 (mod 8).
        let y8 = y[0] & 7;
        if tz & 1 == 1 && (y8 == 3 || y8 == 5) {
            t = -t;
        }
        let len = lx.max(ly);
        if cmp_vartime(&x[..len], &y[..len]) == Ordering::Less {
            x[..len].swap_with_slice(&mut y[..len]);
            core::mem::swap(&mut lx, &mut ly);
            // Quadratic reciprocity for two odd numbers.
            if x[0] & 3 == 3 && y[0] & 3 == 3 {
                t = -t;
            }
        }
        sub_assign(&mut x[..len], &y[..len]);
        lx = significant_limbs(&x[..len]);
    }
    if ly == 1 && y[0] == 1 { t } else { 0 }
}

/// `(a / m)` for an odd single-word `m`, the same algorithm on words.
fn jacobi_word(mut a: Limb, mut m: Limb) -> i8 {
    let mut t: i8 = 1;
    a %= m;
    while a != 0 {
        let tz = a.trailing_zeros();
        a >>= tz;
        if tz & 1 == 1 && matches!(m & 7, 3 | 5) {
            t = -t;
        }
        if a < m {
            core::mem::swap(&mut a, &mut m);
            if a & 3 == 3 && m & 3 == 3 {
                t = -t;
            }
        }
        a -= m;
    }
    if m == 1 { t } else { 0 }
}

/// Compares two equal-length slices, variable time.
pub(crate) fn cmp_vartime(a: &[Limb], b: &[Limb]) -> Ordering {
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        match x.cmp(y) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    Ordering::Equal
}
