//! Goldilocks, `p = 2^448 − 2^224 − 1` (X448, Ed448), as its designer
//! multiplies it: eight 56-bit limbs, one level of Karatsuba on
//! `φ = 2^224`, and the "golden ratio" identity `φ² ≡ φ + 1` in place of a
//! modular reduction. On x86_64 the multiplication and the square are the
//! same algorithm in assembly ([`fixed::goldilocks_mul`]), which every
//! x86_64 CPU runs; on the aarch64 cores whose scalar multiplier is slow the
//! column sums come from NEON ([`fixed::goldilocks_columns`]), carried here;
//! elsewhere the portable code below runs.

use core::fmt;

use numcrypt_limbs::{Limb, Uint, fixed};
use subtle::Choice;

use crate::backend::{Backend, sealed};

/// Arithmetic modulo Goldilocks `p = φ² − φ − 1`, `φ = 2^224`, on eight
/// limbs of 56 bits: `a = a_lo + a_hi φ` with four limbs in each half.
///
/// A product is `L + H + (M − L) φ` for `L = a_lo b_lo`, `H = a_hi b_hi` and
/// `M = (a_lo + a_hi)(b_lo + b_hi)`: three 4×4 products (48 limb products
/// instead of 64, a square 30 instead of 36), and what lands at and above
/// `φ²` folds back at `φ` and `1` with additions alone. Column by column
/// (`X_k`: column `k` of a half product), low limb `j < 4` takes
/// `L_j + H_j + M_(j+4) − L_(j+4)` and high limb `j + 4` takes
/// `H_(j+4) + M_j − L_j + M_(j+4)`; `M_k − L_k` is a sum of cross products,
/// so neither goes negative. The limbs are carried as they are made, the
/// low and the high half side by side (what leaves limb 3 enters limb 4,
/// what leaves limb 7, at `2^448 ≡ 2^224 + 1`, enters limbs 0 and 4), which
/// measured faster on a chain of dependent operations than carrying all
/// columns at once after the product.
///
/// Bounds: tight limbs are below `2^56 + 2^14`, loose limbs below
/// `3·2^56 + 2^15`, which `a + b` and `a + 2p − b` of tight limbs meet; a
/// product's sums of loose limbs stay below `2^120`, so every carry fits a
/// word, which the x86_64 kernel counts on ([`fixed::goldilocks_mul`]).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Goldilocks;

/// Bits in a limb.
const RADIX: u32 = 56;
const MASK: Limb = (1 << RADIX) - 1;
/// The loose bound on a limb (exclusive): what `a + 2p − b` of tight limbs
/// can reach, and no more, so that a product's sums stay below `2^120`.
const LOOSE: Limb = fixed::GOLDILOCKS_LOOSE;
/// The tight bound on a limb (exclusive): a product's last carries into
/// limbs 1 and 5 add at most `2^14` to a 56-bit limb.
const TIGHT: Limb = (1 << RADIX) + (1 << 14);
/// `p` in the radix: every limb `2^56 − 1` but limb 4 (`φ`), one less.
const P_LIMBS: [Limb; 8] = [MASK, MASK, MASK, MASK, MASK - 1, MASK, MASK, MASK];
/// `p` on seven saturated limbs.
const P: [Limb; 7] = [
    Limb::MAX,
    Limb::MAX,
    Limb::MAX,
    0xffff_fffe_ffff_ffff,
    Limb::MAX,
    Limb::MAX,
    Limb::MAX,
];

/// `2p` in the radix, every limb at least the tight bound, so that
/// `a + 2p − b` never goes negative limb by limb.
const TWO_P: [Limb; 8] = {
    let mut t = [0; 8];
    let mut i = 0;
    while i < 8 {
        t[i] = 2 * P_LIMBS[i];
        assert!(t[i] >= TIGHT && t[i] + TIGHT <= LOOSE);
        i += 1;
    }
    assert!(2 * TIGHT <= LOOSE, "a sum of tight values is loose");
    t
};

/// Column `k` (0 to 6) of the product of two 4-limb vectors.
#[inline(always)]
fn product_col(x: &[Limb; 4], y: &[Limb; 4], k: usize) -> u128 {
    let mut c = 0;
    for p in 0..4 {
        if p <= k && k - p < 4 {
            c += x[p] as u128 * y[k - p] as u128;
        }
    }
    c
}

/// Column `k` (0 to 6) of a 4-limb square, `d` the doubled limbs: each
/// cross product once.
#[inline(always)]
fn square_col(x: &[Limb; 4], d: &[Limb; 4], k: usize) -> u128 {
    let mut c = 0;
    for p in 0..4 {
        let q = k.wrapping_sub(p);
        if p < q && q < 4 {
            c += d[p] as u128 * x[q] as u128;
        } else if p == q {
            c += x[p] as u128 * x[p] as u128;
        }
    }
    c
}

/// The halves of `a` and their sum: `[a_lo, a_hi, a_lo + a_hi]`, the sum
/// written out (built with `array::from_fn`, the square measured far
/// slower: benches/RESULTS.md, "Goldilocks and 2^521 − 1").
#[inline(always)]
fn halves(a: &[Limb; 8]) -> [[Limb; 4]; 3] {
    let lo = [a[0], a[1], a[2], a[3]];
    let hi = [a[4], a[5], a[6], a[7]];
    let sum = [lo[0] + hi[0], lo[1] + hi[1], lo[2] + hi[2], lo[3] + hi[3]];
    [lo, hi, sum]
}

/// The result from the half products' columns (`col(h, k)`: column `k` of
/// `L` for `h = 0`, of `H` for 1, of `M` for 2), carried as [`Goldilocks`]
/// describes. The sums stay below `2^120` for loose inputs (each is a sum
/// of products of limbs, so it is largest at the largest limbs, where it is
/// below `2^120`), so 128 bits hold every sum.
#[inline(always)]
fn combine_and_carry(col: impl Fn(usize, usize) -> u128) -> [Limb; 8] {
    let at = |h, k| if k < 7 { col(h, k) } else { 0 };
    let mut r = [0; 8];
    let (mut lo, mut hi) = (0u128, 0u128);
    for j in 0..4 {
        let (l, h, m) = (at(0, j), at(1, j), at(2, j));
        let (lk, hk, mk) = (at(0, j + 4), at(1, j + 4), at(2, j + 4));
        lo += l + h + (mk - lk);
        hi += hk + (m - l) + mk;
        r[j] = lo as Limb & MASK;
        r[j + 4] = hi as Limb & MASK;
        lo >>= RADIX;
        hi >>= RADIX;
    }
    // Out of limb 3 into limb 4; out of limb 7 into limbs 4 and 0. Each
    // carry is below 2^64, so one more step leaves at most 2^8 over.
    lo += hi + r[4] as u128;
    hi += r[0] as u128;
    r[4] = lo as Limb & MASK;
    r[0] = hi as Limb & MASK;
    r[5] += (lo >> RADIX) as Limb;
    r[1] += (hi >> RADIX) as Limb;
    r
}

impl Goldilocks {
    /// Carries columns below `2^112` (a loose value's limbs, a tight
    /// value's times a `u32`, or a CPU kernel's product) into tight limbs
    /// in two rounds, every limb at once in each: each column's low 56
    /// bits plus the next 56 bits of the column below (those of limb 7, at
    /// `2^448 ≡ 2^224 + 1`, go to limbs 0 and 4), then each sum's excess
    /// (at most 2) to the limb above.
    #[inline(always)]
    fn carry(c: [u128; 8]) -> [Limb; 8] {
        let lo = c.map(|x| x as Limb & MASK);
        let mid = c.map(|x| {
            debug_assert!(x >> (2 * RADIX) == 0);
            (x >> RADIX) as Limb
        });
        let mut s = lo;
        for i in 1..8 {
            s[i] += mid[i - 1];
        }
        s[0] += mid[7];
        s[4] += mid[7];
        let mut r = [0; 8];
        r[0] = s[0] & MASK;
        for i in 1..8 {
            r[i] = (s[i] & MASK) + (s[i - 1] >> RADIX);
        }
        let top = s[7] >> RADIX;
        r[0] += top;
        r[4] += top;
        r
    }

    /// [`Backend::mul`] in portable Rust.
    #[inline(always)]
    fn mul_portable(a: &[Limb; 8], b: &[Limb; 8]) -> [Limb; 8] {
        let (a, b) = (halves(a), halves(b));
        combine_and_carry(|h, k| product_col(&a[h], &b[h], k))
    }

    // The doubled halves written out rather than mapped: as the compiler had
    // left it, the square measured far slower on the bench's chain than the
    // same code alone (benches/RESULTS.md, "2^521 − 1 on nine 58-bit limbs").
    /// [`Backend::square`] in portable Rust.
    #[inline(always)]
    fn square_portable(a: &[Limb; 8]) -> [Limb; 8] {
        let a = halves(a);
        let d = [
            [2 * a[0][0], 2 * a[0][1], 2 * a[0][2], 2 * a[0][3]],
            [2 * a[1][0], 2 * a[1][1], 2 * a[1][2], 2 * a[1][3]],
            [2 * a[2][0], 2 * a[2][1], 2 * a[2][2], 2 * a[2][3]],
        ];
        combine_and_carry(|h, k| square_col(&a[h], &d[h], k))
    }

    /// Every limb below `2^56` and the value below `2^448` (three carry
    /// passes, the top's excess folded each time: the third leaves none),
    /// for a tight `a`.
    fn normalize(mut a: [Limb; 8]) -> [Limb; 8] {
        for _ in 0..3 {
            let mut carry = 0;
            for x in a.iter_mut() {
                let v = *x + carry;
                *x = v & MASK;
                carry = v >> RADIX;
            }
            a[0] += carry;
            a[4] += carry;
        }
        a
    }
}

impl fmt::Debug for Goldilocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Goldilocks<2^448 - 2^224 - 1, 8x56>")
    }
}

impl sealed::Sealed for Goldilocks {}

impl Backend for Goldilocks {
    const LIMBS: usize = 7;
    type Repr = [Limb; 8];
    const NAME: &'static str = "Goldilocks (8x56, Karatsuba)";
    type Uint = Uint<7>;
    const MODULUS: Uint<7> = Uint::from_words(P);
    const BITS: u32 = 448;
    const ZERO: [Limb; 8] = [0; 8];
    const ONE: [Limb; 8] = {
        let _ = TWO_P;
        [1, 0, 0, 0, 0, 0, 0, 0]
    };

    fn from_canonical(x: &Uint<7>) -> [Limb; 8] {
        let x = x.as_words();
        let mut r = [0; 8];
        for (i, limb) in r.iter_mut().enumerate() {
            let pos = RADIX * i as u32;
            let (q, s) = ((pos / 64) as usize, pos % 64);
            let mut v = x[q] >> s;
            if s > 64 - RADIX && q + 1 < 7 {
                v |= x[q + 1] << (64 - s);
            }
            *limb = v & MASK;
        }
        r
    }

    fn to_canonical(a: &[Limb; 8]) -> Uint<7> {
        let a = Self::normalize(*a);
        // Below 2^448 now: the limbs' bits side by side on seven words.
        let mut v = [0 as Limb; 7];
        for (i, &limb) in a.iter().enumerate() {
            let pos = RADIX * i as u32;
            let (q, s) = ((pos / 64) as usize, pos % 64);
            v[q] |= limb << s;
            if s > 64 - RADIX {
                v[q + 1] |= limb >> (64 - s);
            }
        }
        // v < 2^448 < 2p: subtract p if that does not go negative.
        let (d, borrow) = fixed::sub(&v, &P);
        Uint::from_words(fixed::select(&d, &v, Choice::from(borrow as u8)))
    }

    #[inline]
    fn add(a: &[Limb; 8], b: &[Limb; 8]) -> [Limb; 8] {
        core::array::from_fn(|i| a[i] + b[i])
    }

    #[inline]
    fn sub(a: &[Limb; 8], b: &[Limb; 8]) -> [Limb; 8] {
        core::array::from_fn(|i| a[i] + TWO_P[i] - b[i])
    }

    #[inline]
    fn neg(a: &[Limb; 8]) -> [Limb; 8] {
        Self::sub(&[0; 8], a)
    }

    #[inline]
    fn reduce(a: &[Limb; 8]) -> [Limb; 8] {
        Self::carry(a.map(u128::from))
    }

    // Always inlined: left to the compiler it was not, and measured slower
    // on a chain of multiplications (benches/RESULTS.md, "Goldilocks and
    // 2^521 − 1").
    #[inline(always)]
    fn mul(a: &[Limb; 8], b: &[Limb; 8]) -> [Limb; 8] {
        if let Some(r) = fixed::goldilocks_mul(a, b) {
            return r;
        }
        if let Some(cols) = fixed::goldilocks_columns(a, b) {
            return Self::carry(cols);
        }
        Self::mul_portable(a, b)
    }

    #[inline(always)]
    fn square(a: &[Limb; 8]) -> [Limb; 8] {
        if let Some(r) = fixed::goldilocks_sqr(a) {
            return r;
        }
        if let Some(cols) = fixed::goldilocks_columns(a, a) {
            return Self::carry(cols);
        }
        Self::square_portable(a)
    }

    #[inline]
    fn mul_small(a: &[Limb; 8], k: u32) -> [Limb; 8] {
        Self::carry(a.map(|x| x as u128 * k as u128))
    }

    #[cfg(test)]
    fn tight_max() -> [Limb; 8] {
        [TIGHT - 1; 8]
    }

    #[cfg(test)]
    fn loose_max() -> [Limb; 8] {
        [LOOSE - 1; 8]
    }

    #[cfg(test)]
    fn value(a: &[Limb; 8]) -> num_bigint::BigUint {
        let mut v = num_bigint::BigUint::default();
        for (i, &limb) in a.iter().enumerate() {
            v += num_bigint::BigUint::from(limb) << (RADIX as usize * i);
        }
        v % crate::tests::big(&P)
    }
}

/// The portable code, which x86_64 replaces with its kernel everywhere else
/// in the tests, against num-bigint.
#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn value(a: &[Limb; 8]) -> BigUint {
        Goldilocks::value(a)
    }

    fn tight(a: &[Limb; 8]) -> bool {
        a.iter().all(|&limb| limb < TIGHT)
    }

    #[test]
    fn portable_against_bigint() {
        let p = crate::tests::big(&P);
        let mut inputs = std::vec![
            [0; 8],
            Goldilocks::ONE,
            P_LIMBS,
            [MASK; 8],
            [TIGHT - 1; 8],
            [LOOSE - 1; 8],
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..64 {
            inputs.push(core::array::from_fn(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 6) % if i % 2 == 0 { LOOSE } else { TIGHT }
            }));
        }
        for a in &inputs {
            let sq = Goldilocks::square_portable(a);
            assert_eq!(value(&sq), value(a) * value(a) % &p, "{a:x?}^2");
            assert!(tight(&sq), "{a:x?}^2 not tight");
            for b in &inputs {
                let r = Goldilocks::mul_portable(a, b);
                assert_eq!(value(&r), value(a) * value(b) % &p, "{a:x?} * {b:x?}");
                assert!(tight(&r), "{a:x?} * {b:x?} not tight");
            }
        }
    }
}
