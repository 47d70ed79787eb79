//! Division with remainder on limb slices.

use crate::Limb;
use crate::ops::add::{add_assign, cnd_add_assign, sub_assign};
use crate::ops::word::{mac, mask_from_bit, sbb};

/// Constant-time division: `r = a mod m` and, when `q` is given, `q = a / m`.
///
/// Bit-serial restoring division: one shift, one subtraction and one
/// conditional add-back per bit of `a`, whatever the values. `m` must be
/// non-zero (the result is meaningless otherwise, but still computed in the
/// same time); `r.len() == m.len()`, `q.len() == a.len()`.
pub(crate) fn div_rem_ct(mut q: Option<&mut [Limb]>, r: &mut [Limb], a: &[Limb], m: &[Limb]) {
    debug_assert_eq!(r.len(), m.len());
    r.fill(0);
    if let Some(q) = q.as_deref_mut() {
        debug_assert_eq!(q.len(), a.len());
        q.fill(0);
    }
    shift_in_bits(q, r, a, a.len() * Limb::BITS as usize, m);
}

/// Constant-time `r = a mod m` for an `m` whose number of significant limbs
/// `L` is public (an RSA modulus or prime of a known size): the time
/// depends on the lengths and on `L`, not on the values. The top `L − 1`
/// limbs of `a` are below `2^(64(L−1)) <= m`, so they are the remainder
/// after their bits with no reduction, and only the `64(len(a) − L + 1)`
/// bits below them go through [`div_rem_ct`]'s loop: 64 bits, not `64n`,
/// when `a` and `m` have the same length and `m`'s top limb is non-zero.
/// `m` must be non-zero; `r.len() == m.len()`.
pub(crate) fn rem_ct_public_len(r: &mut [Limb], a: &[Limb], m: &[Limb]) {
    debug_assert_eq!(r.len(), m.len());
    r.fill(0);
    let len = crate::ct_audit::declassified(significant_limbs_ct(m)).max(1);
    if a.len() < len {
        r[..a.len()].copy_from_slice(a);
        return;
    }
    let preset = len - 1;
    let bits = (a.len() - preset) * Limb::BITS as usize;
    r[..preset].copy_from_slice(&a[a.len() - preset..]);
    shift_in_bits(None, &mut r[..len], a, bits, &m[..len]);
}

/// The restoring division's loop over bits `bits − 1` down to 0 of `a`:
/// `r = (r·2^bits + a mod 2^bits) mod m` for `r < m`, setting the quotient's
/// bits in `q` when given.
fn shift_in_bits(mut q: Option<&mut [Limb]>, r: &mut [Limb], a: &[Limb], bits: usize, m: &[Limb]) {
    for i in (0..bits).rev() {
        let (limb, shift) = (i / Limb::BITS as usize, i % Limb::BITS as usize);
        let bit_in = (a[limb] >> shift) & 1;
        // r = 2r + bit; `top` is the bit shifted out of the slice.
        let mut carry = bit_in;
        for x in r.iter_mut() {
            let next = *x >> (Limb::BITS - 1);
            *x = (*x << 1) | carry;
            carry = next;
        }
        let top = carry;
        let borrow = sub_assign(r, m);
        // The subtraction stands when 2r + bit >= m, i.e. when the shifted
        // value overflowed the slice or the subtraction did not borrow.
        let keep = top | (borrow ^ 1);
        cnd_add_assign(r, m, mask_from_bit(keep ^ 1));
        if let Some(q) = q.as_deref_mut() {
            q[limb] |= keep << shift;
        }
    }
}

/// Limbs of scratch space [`div_rem_vartime`] needs.
pub(crate) const fn div_rem_vartime_scratch(a_len: usize, m_len: usize) -> usize {
    a_len + 1 + m_len
}

/// Variable-time schoolbook division (Knuth, TAOCP vol. 2, algorithm 4.3.1 D):
/// `q = a / m`, `r = a mod m`. For public operands only.
///
/// `m` must be non-zero; `q.len() == a.len()`, `r.len() == m.len()`, and
/// `scratch.len() >= div_rem_vartime_scratch(a.len(), m.len())`.
pub(crate) fn div_rem_vartime(
    q: &mut [Limb],
    r: &mut [Limb],
    a: &[Limb],
    m: &[Limb],
    scratch: &mut [Limb],
) {
    debug_assert!(q.len() == a.len() && r.len() == m.len());
    q.fill(0);
    r.fill(0);
    let d = significant_limbs(m);
    let an = significant_limbs(a);
    debug_assert!(d > 0, "division by zero reached a kernel");
    if an < d {
        r[..an].copy_from_slice(&a[..an]);
        return;
    }
    if d == 1 {
        let divisor = m[0] as u128;
        let mut rem: u128 = 0;
        for i in (0..an).rev() {
            let num = (rem << Limb::BITS) | a[i] as u128;
            q[i] = (num / divisor) as Limb;
            rem = num % divisor;
        }
        r[0] = rem as Limb;
        return;
    }

    // Normalise so that the divisor's top bit is set; quotient digit
    // estimates are then off by at most two.
    let s = m[d - 1].leading_zeros();
    let (un, rest) = scratch.split_at_mut(an + 1);
    let vn = &mut rest[..d];
    un[an] = shl_into(&mut un[..an], &a[..an], s);
    shl_into(vn, &m[..d], s);

    let b: u128 = 1 << Limb::BITS;
    let (v1, v2) = (vn[d - 1] as u128, vn[d - 2] as u128);
    for j in (0..=an - d).rev() {
        let num = ((un[j + d] as u128) << Limb::BITS) | un[j + d - 1] as u128;
        let mut qhat = num / v1;
        let mut rhat = num % v1;
        while qhat >= b || qhat * v2 > ((rhat << Limb::BITS) | un[j + d - 2] as u128) {
            qhat -= 1;
            rhat += v1;
            if rhat >= b {
                break;
            }
        }
        let borrow = submul_1(&mut un[j..j + d], vn, qhat as Limb);
        let (top, negative) = sbb(un[j + d], borrow, 0);
        un[j + d] = top;
        if negative != 0 {
            // The estimate was one too large: add the divisor back.
            qhat -= 1;
            let c = add_assign(&mut un[j..j + d], vn);
            un[j + d] = un[j + d].wrapping_add(c);
        }
        q[j] = qhat as Limb;
    }
    // The remainder is un[..d] shifted back.
    // un[d] is zero after the loop; un has at least d + 1 limbs.
    for i in 0..d {
        r[i] = if s == 0 {
            un[i]
        } else {
            (un[i] >> s) | (un[i + 1] << (Limb::BITS - s))
        };
    }
}

/// `dst = src << s` for `s < 64`, returning the bits shifted out.
fn shl_into(dst: &mut [Limb], src: &[Limb], s: u32) -> Limb {
    if s == 0 {
        dst.copy_from_slice(src);
        return 0;
    }
    let mut carry = 0;
    for (d, &x) in dst.iter_mut().zip(src) {
        *d = (x << s) | carry;
        carry = x >> (Limb::BITS - s);
    }
    carry
}

/// [`significant_limbs`] in constant time: for a secret whose length is
/// public (the caller reveals the result, not how it was found).
pub(crate) fn significant_limbs_ct(a: &[Limb]) -> usize {
    let mut len = 0;
    for (i, &x) in a.iter().enumerate() {
        // All ones when x != 0: (x | -x) has its top bit set exactly then.
        let nonzero = ((x | x.wrapping_neg()) >> (Limb::BITS - 1)).wrapping_neg() as usize;
        len = (len & !nonzero) | ((i + 1) & nonzero);
    }
    len
}

/// Number of limbs up to and including the highest non-zero one (variable time).
pub(crate) fn significant_limbs(a: &[Limb]) -> usize {
    a.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1)
}

/// `r = a mod m` for a single-limb `m > 0`, variable time.
pub(crate) fn rem_limb_vartime(a: &[Limb], m: Limb) -> Limb {
    let mut rem: u128 = 0;
    for &x in a.iter().rev() {
        rem = ((rem << Limb::BITS) | x as u128) % m as u128;
    }
    rem as Limb
}

/// `r -= a * b` for a single limb `b`; returns the limb to subtract from the
/// next position up (the "borrow limb"). `r.len() == a.len()`. Portable only:
/// it serves the variable-time long division.
#[inline]
pub fn submul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    assert_eq!(r.len(), a.len());
    let mut carry = 0;
    for (ri, &ai) in r.iter_mut().zip(a) {
        let (lo, hi) = mac(0, ai, b, carry);
        let (d, borrow) = sbb(*ri, lo, 0);
        *ri = d;
        carry = hi + borrow;
    }
    carry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_limbs_ct_matches_the_variable_time_count() {
        let cases: [&[Limb]; 7] = [
            &[],
            &[0],
            &[0, 0, 0],
            &[1, 0, 0],
            &[0, 0, Limb::MAX],
            &[5, 0, 1 << 63, 0],
            &[0, 1, 0, 0, 0],
        ];
        for a in cases {
            assert_eq!(significant_limbs_ct(a), significant_limbs(a), "{a:?}");
        }
    }
}
