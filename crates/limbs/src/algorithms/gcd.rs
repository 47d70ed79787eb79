//! Greatest common divisors, modular inverses and the Jacobi symbol.

use core::cmp::Ordering;

use subtle::{Choice, ConditionallySelectable, ConstantTimeLess};

use super::div::{div_rem_vartime, div_rem_vartime_scratch, significant_limbs};
use super::shift::{shr_vartime, shr1_with};
use crate::Limb;
use crate::ct;
use crate::kernels::{
    adc, add_limb_assign, cnd_add_assign, cnd_sub_assign, mask_from_bit, mul, sub_assign,
};

/// Limbs of scratch space [`inv_mod_odd`] needs for an `n`-limb modulus.
pub(crate) const fn inv_mod_odd_scratch(n: usize) -> usize {
    3 * n
}

/// Constant-time modular inverse for an odd modulus (Möller's binary
/// algorithm, as in GMP's `mpn_sec_invert` and Nettle).
///
/// Writes `out = x^-1 mod m` and returns true when `gcd(x, m) = 1`; otherwise
/// `out` is meaningless and the result is false. Requires `m` odd and
/// `x < m`, all `n` limbs. The running time depends only on `n` and the bit
/// length of `m` (public).
///
/// Invariants: `a ≡ u·x` and `b ≡ v·x (mod m)`, `b` odd. Each step makes `a`
/// even (subtracting `b`, swapping first if `a < b`) and halves it, so
/// `bits(a) + bits(b)` falls by at least one per step until `a = 0`;
/// `2·bits(m)` steps always suffice, and then `b = gcd(x, m)`.
pub(crate) fn inv_mod_odd(
    out: &mut [Limb],
    x: &[Limb],
    m: &[Limb],
    scratch: &mut [Limb],
) -> Choice {
    let n = m.len();
    let (a, rest) = scratch[..3 * n].split_at_mut(n);
    let (b, u) = rest.split_at_mut(n);
    let v = out;
    a.copy_from_slice(x);
    b.copy_from_slice(m);
    u.fill(0);
    u[0] = 1;
    v.fill(0);

    // `m`'s bit length is public (see `Unsigned::inv_mod`), even when `m`
    // is secret.
    let steps = 2 * crate::ct_audit::declassified(ct::bit_length(m));
    for _ in 0..steps {
        let odd = a[0] & 1;
        // a -= b when a is odd; a borrow means a < b, and we swap roles.
        let swap = cnd_sub_assign(a, b, mask_from_bit(odd));
        cnd_add_assign(b, a, mask_from_bit(swap)); // b = old a
        cnd_negate(a, mask_from_bit(swap)); // a = old b - old a
        ct::swap_if(u, v, Choice::from(swap as u8));
        let borrow = cnd_sub_assign(u, v, mask_from_bit(odd));
        cnd_add_assign(u, m, mask_from_bit(borrow));
        // a is even now: halve it, and u modulo m.
        shr1_with(a, 0);
        let u_odd = u[0] & 1;
        let carry = cnd_add_assign(u, m, mask_from_bit(u_odd));
        shr1_with(u, carry);
    }
    // b = gcd(x, m); the inverse exists iff it is 1.
    b[0] ^= 1;
    ct::is_zero(b)
}

/// Two's-complement negation of `a` when `mask` is all ones.
fn cnd_negate(a: &mut [Limb], mask: Limb) {
    let mut carry = mask & 1;
    for x in a.iter_mut() {
        (*x, carry) = adc(*x ^ mask, 0, carry);
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
    super::shift::shift_ct(u, k, true, tmp);
    super::shift::shift_ct(v, k, true, tmp);
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
    super::shift::shift_ct(out, k, false, tmp);
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
    super::shift::shl_vartime(out, shift);
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
