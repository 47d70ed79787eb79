//! Goldilocks, `p = 2^448 − 2^224 − 1` (X448, Ed448), as its designer
//! multiplies it: eight 56-bit limbs, one level of Karatsuba on
//! `φ = 2^224`, and the "golden ratio" identity `φ² ≡ φ + 1` in place of a
//! modular reduction. Portable Rust.

use core::fmt;

use numcrypt_limbs::{Limb, Uint, fixed};
use subtle::Choice;

use crate::backend::{Backend, sealed};

/// Arithmetic modulo Goldilocks `p = φ² − φ − 1`, `φ = 2^224`, on eight
/// limbs of 56 bits: `a = a_lo + a_hi φ` with four limbs in each half.
///
/// A product is `L + H + (M − L) φ` for `L = a_lo b_lo`, `H = a_hi b_hi` and
/// `M = (a_lo + a_hi)(b_lo + b_hi)`: three 4×4 products (48 limb products
/// instead of 64), and a product's columns at and above `φ²` fold in at
/// `φ` and `1` (`φ² ≡ φ + 1`) with additions alone. The columns are summed
/// in 128 bits and carried in two rounds, every limb at once in each, so a
/// chain of dependent multiplications waits two carry steps, not eight.
///
/// Bounds: tight limbs are below `2^56 + 2^8`, loose limbs below `2^58`;
/// `a + b` and `a + 2p − b` of tight limbs stay loose, and every column of
/// a product of loose values fits 128 bits (see `COLUMN_BOUND`).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Goldilocks;

const RADIX: u32 = 56;
const MASK: Limb = (1 << RADIX) - 1;
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
/// The tight bound on a limb (exclusive).
const TIGHT: Limb = (1 << RADIX) + (1 << 8);
/// The loose bound on a limb (exclusive).
const LOOSE: Limb = 1 << 58;

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
    t
};

/// Above every column [`Goldilocks::combine`] makes from loose operands:
/// its low, high and sum halves' columns hold four products each, the
/// sums' operands below twice the loose bound, and a high column adds two
/// columns of sums to one of halves (a square's doubled cross products
/// are the same two products).
const COLUMN_BOUND: u128 = {
    let half = (LOOSE - 1) as u128;
    let sum = 2 * half;
    let bound = 4 * half * half + 2 * (4 * sum * sum);
    assert!(2 * TIGHT <= LOOSE, "a sum of tight values is loose");
    assert!(bound < 1 << 125, "the carry's high pieces stay below 2^13");
    bound
};

/// The columns of a 4×4 limb product, `Σ x_i y_j` at column `i + j`.
#[inline(always)]
fn product_cols(x: &[Limb; 4], y: &[Limb; 4]) -> [u128; 7] {
    let mut c = [0u128; 7];
    for i in 0..4 {
        for j in 0..4 {
            c[i + j] += x[i] as u128 * y[j] as u128;
        }
    }
    c
}

/// The columns of a 4-limb square: each cross product once, doubled
/// through the operand.
#[inline(always)]
fn square_cols(x: &[Limb; 4]) -> [u128; 7] {
    let mul = |a: Limb, b: Limb| a as u128 * b as u128;
    let d = [2 * x[0], 2 * x[1], 2 * x[2]];
    [
        mul(x[0], x[0]),
        mul(d[0], x[1]),
        mul(d[0], x[2]) + mul(x[1], x[1]),
        mul(d[0], x[3]) + mul(d[1], x[2]),
        mul(d[1], x[3]) + mul(x[2], x[2]),
        mul(d[2], x[3]),
        mul(x[3], x[3]),
    ]
}

/// The halves `a_lo`, `a_hi` and their sum.
#[inline(always)]
fn halves(a: &[Limb; 8]) -> ([Limb; 4], [Limb; 4], [Limb; 4]) {
    let lo = [a[0], a[1], a[2], a[3]];
    let hi = [a[4], a[5], a[6], a[7]];
    let sum = [lo[0] + hi[0], lo[1] + hi[1], lo[2] + hi[2], lo[3] + hi[3]];
    (lo, hi, sum)
}

impl Goldilocks {
    /// The eight columns of `L + H + (M − L) φ` with everything at and
    /// above `φ²` folded by `φ² ≡ φ + 1`: column `j` of the low half is
    /// `L_j + H_j + (M − L)_(j+4)`, of the high half
    /// `H_(j+4) + (M − L)_j + M_(j+4)`. `M − L` is non-negative column by
    /// column (`M`'s columns contain `L`'s products), so nothing borrows.
    #[inline(always)]
    fn combine(l: [u128; 7], h: [u128; 7], m: [u128; 7]) -> [u128; 8] {
        let col = |x: &[u128; 7], k: usize| if k < 7 { x[k] } else { 0 };
        let mut c = [0u128; 8];
        for j in 0..4 {
            c[j] = l[j] + h[j] + (col(&m, j + 4) - col(&l, j + 4));
            c[j + 4] = col(&h, j + 4) + (m[j] - l[j]) + col(&m, j + 4);
        }
        c
    }

    /// Carries eight columns (each below `2^125`, see [`COLUMN_BOUND`])
    /// into tight limbs in two rounds, every limb at once in each. Round
    /// one splits each column into pieces of 56, 56 and at most 13 bits
    /// and adds, at each limb, its own low piece, the middle piece of the
    /// column below and the high piece of the one below that
    /// (`2^448 ≡ 2^224 + 1` takes the pieces above limb 7 to limbs 0 and 4,
    /// and 1 and 5): three pieces under `2^56` and two under `2^13` at
    /// most, a sum below `2^58`. Round two adds each sum's excess (at most
    /// 3) to the limb above, giving limbs of at most `2^56 + 5`.
    #[inline(always)]
    fn carry(c: [u128; 8]) -> [Limb; 8] {
        let lo = c.map(|x| x as Limb & MASK);
        let mid = c.map(|x| (x >> RADIX) as Limb & MASK);
        let hi = c.map(|x| (x >> (2 * RADIX)) as Limb);
        let mut s = lo;
        for i in 1..8 {
            s[i] += mid[i - 1];
        }
        for i in 2..8 {
            s[i] += hi[i - 2];
        }
        // Position 8 (mid 7, hi 6) and position 9 (hi 7), folded.
        let (p8, p9) = (mid[7] + hi[6], hi[7]);
        s[0] += p8;
        s[4] += p8;
        s[1] += p9;
        s[5] += p9;
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
        let _ = (TWO_P, COLUMN_BOUND);
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

    #[inline]
    fn mul(a: &[Limb; 8], b: &[Limb; 8]) -> [Limb; 8] {
        let (a_lo, a_hi, a_sum) = halves(a);
        let (b_lo, b_hi, b_sum) = halves(b);
        let l = product_cols(&a_lo, &b_lo);
        let h = product_cols(&a_hi, &b_hi);
        let m = product_cols(&a_sum, &b_sum);
        Self::carry(Self::combine(l, h, m))
    }

    #[inline]
    fn square(a: &[Limb; 8]) -> [Limb; 8] {
        let (lo, hi, sum) = halves(a);
        let l = square_cols(&lo);
        let h = square_cols(&hi);
        let m = square_cols(&sum);
        Self::carry(Self::combine(l, h, m))
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
