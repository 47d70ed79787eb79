//! Pseudo-Mersenne primes on unsaturated limbs (radix `2^R`), in portable
//! Rust: the representation of fiat-crypto's `curve25519_64` (5×51) and
//! `p521_64` (9×58).

use core::fmt;

use numcrypt_limbs::{Limb, Uint, fixed};

use crate::backend::{Backend, sealed};
use crate::pm::canonicalize;

/// Runs `$body` with `$i` = 0, 1, …, `$n − 1` (`$n` at most 10), each
/// written out with its own constant `$i`: left to the compiler, the loop
/// over the rows of a column sum stayed a loop from eight limbs on.
macro_rules! each_limb {
    ($n:expr, |$i:ident| $body:block) => {
        each_limb!(@ $n, $i, $body, 0 1 2 3 4 5 6 7 8 9)
    };
    (@ $n:expr, $i:ident, $body:block, $($k:literal)*) => {{
        const { assert!($n <= 10) };
        $(
            if $k < $n {
                let $i: usize = $k;
                $body
            }
        )*
    }};
}

/// Arithmetic modulo `p = 2^K − C` on `N` limbs of `R` bits each
/// (`N R >= K`), with `L = ⌈K / 64⌉` canonical limbs.
///
/// A value is `Σ xᵢ 2^(R i)` modulo `p' = 2^(N R) − C'`, `C' = C · 2^(N R − K)`.
/// Limbs have headroom above `R` bits, so additions never carry;
/// multiplication sums `N` products per column in 128 bits (the wrapped
/// columns times `C'`) and carries once at the end.
///
/// Bounds: tight limbs are below `1.5 · 2^R`, loose limbs below `2^(R+2)`.
/// `a + b` and `a + 2p' − b` of tight limbs stay loose, and the constants
/// assert that a column of loose products times `C'` fits 128 bits.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Unsaturated<const N: usize, const R: u32, const L: usize, const K: u32, const C: u64>;

impl<const N: usize, const R: u32, const L: usize, const K: u32, const C: u64>
    Unsaturated<N, R, L, K, C>
{
    const MASK: Limb = (1 << R) - 1;
    /// `C' = C · 2^(N R − K)`.
    const FOLD: Limb = {
        let nr = N as u32 * R;
        assert!(nr >= K && nr - K < 16 && R < 62 && C & 1 == 1 && C < 1 << 32);
        assert!(
            L == K.div_ceil(64) as usize && nr < 64 * L as u32,
            "one spare bit above N R"
        );
        let fold = C << (nr - K);
        // A loose limb times C' fits 64 bits, and a column of N loose
        // products times C' fits 128.
        let fold_bits = 64 - fold.leading_zeros();
        let n_bits = usize::BITS - N.leading_zeros();
        assert!(R + 2 + fold_bits < 64 && 2 * (R + 2) + fold_bits + n_bits < 128);
        // The final carry into limb 1 (at most 2^(128 − 2R) · C') keeps it
        // below the tight 1.5 · 2^R.
        assert!(128 - 2 * R + fold_bits + 1 < R - 1);
        fold
    };
    /// `2 p'` in the radix, every limb above the tight bound.
    const TWO_P: [Limb; N] = {
        let mut t = [2 * ((1 << R) - 1); N];
        t[0] = 2 * ((1 << R) - Self::FOLD);
        t
    };
    /// `p` on saturated limbs.
    const P: [Limb; L] = {
        let mut p = [Limb::MAX; L];
        let top_bits = K - 64 * (L as u32 - 1);
        p[L - 1] = if top_bits == 64 {
            Limb::MAX
        } else {
            (1 << top_bits) - 1
        };
        p[0] -= C - 1;
        p
    };

    /// Whether a column's excess `cols[i] >> R` fits 63 bits, so that a
    /// limb plus the excess below it fits 64 (a column is below
    /// `2^(2(R+2) + fold_bits + n_bits)`, see `FOLD`).
    const NARROW_CARRIES: bool = {
        let fold_bits = 64 - Self::FOLD.leading_zeros();
        let n_bits = usize::BITS - N.leading_zeros();
        R + 4 + fold_bits + n_bits <= 63
    };

    /// Carries 128-bit columns into tight limbs in two rounds, every column
    /// at once in each: first each column's excess goes up one limb (the top
    /// one's wraps around times `C'`), then each limb's new excess does the
    /// same. Two steps deep instead of a chain through all `N` limbs: what a
    /// chain of dependent multiplications waits for. Where the excesses fit
    /// 64 bits only limb 0, which takes the wrapped one, is summed in 128.
    #[inline(always)]
    fn carry(cols: [u128; N]) -> [Limb; N] {
        let mut r = [0; N];
        if Self::NARROW_CARRIES {
            let mut t = [0; N];
            for i in 1..N {
                t[i] = (cols[i] as Limb & Self::MASK) + (cols[i - 1] >> R) as Limb;
            }
            let wrapped = ((cols[N - 1] >> R) as Limb) as u128 * Self::FOLD as u128;
            let t0 = (cols[0] as Limb & Self::MASK) as u128 + wrapped;
            r[0] = (t0 as Limb & Self::MASK) + (t[N - 1] >> R) * Self::FOLD;
            r[1] = (t[1] & Self::MASK) + (t0 >> R) as Limb;
            for i in 2..N {
                r[i] = (t[i] & Self::MASK) + (t[i - 1] >> R);
            }
            return r;
        }
        let mut t = [0u128; N];
        for i in 0..N {
            let below = if i == 0 {
                (cols[N - 1] >> R) * Self::FOLD as u128
            } else {
                cols[i - 1] >> R
            };
            t[i] = (cols[i] as Limb & Self::MASK) as u128 + below;
        }
        for i in 0..N {
            let below = if i == 0 {
                (t[N - 1] >> R) as Limb * Self::FOLD
            } else {
                (t[i - 1] >> R) as Limb
            };
            r[i] = (t[i] as Limb & Self::MASK) + below;
        }
        r
    }

    /// `2^521 − 1` on nine 58-bit limbs, which has kernels of its own: the
    /// CPU's carried ones ([`Self::cpu_carried`]), else the three-way split
    /// ([`karatsuba3`]).
    const IS_P521: bool = N == 9 && R == 58 && K == 521 && C == 1;

    /// The operands as nine-limb arrays, when this is [`Self::IS_P521`].
    #[inline(always)]
    fn p521_operands<'x>(
        a: &'x [Limb; N],
        b: Option<&'x [Limb; N]>,
    ) -> Option<(&'x [Limb; 9], Option<&'x [Limb; 9]>)> {
        if !Self::IS_P521 {
            return None;
        }
        let a = <&[Limb; 9]>::try_from(&a[..]).ok()?;
        match b {
            Some(b) => Some((a, Some(<&[Limb; 9]>::try_from(&b[..]).ok()?))),
            None => Some((a, None)),
        }
    }

    /// The columns of `a · b` (or `a²` for `b = None`) by the three-way split,
    /// when this is [`Self::IS_P521`].
    #[inline(always)]
    fn karatsuba3_cols(a: &[Limb; N], b: Option<&[Limb; N]>) -> Option<[u128; N]> {
        let cols = match Self::p521_operands(a, b)? {
            (a, Some(b)) => karatsuba3::mul(a, b),
            (a, None) => karatsuba3::square(a),
        };
        <[u128; N]>::try_from(&cols[..]).ok()
    }

    /// `a · b` (or `a²` for `b = None`) carried, from the CPU's own kernel
    /// for this field, where it has one ([`fixed::p521_unsat_mul`]).
    #[inline(always)]
    fn cpu_carried(a: &[Limb; N], b: Option<&[Limb; N]>) -> Option<[Limb; N]> {
        let r = match Self::p521_operands(a, b)? {
            (a, Some(b)) => fixed::p521_unsat_mul(a, b),
            (a, None) => fixed::p521_unsat_sqr(a),
        }?;
        <[Limb; N]>::try_from(&r[..]).ok()
    }

    /// `a · b` (or `a²` for `b = None`) from the columns, where the CPU has
    /// no carried kernel ([`Self::cpu_carried`]). Out of line, and its
    /// operands by value: inline, the columns made `mul` too large for the
    /// compiler to inline into a chain's loop, and through references they
    /// kept the kernel's operands in memory, copied there with loads the
    /// store buffer cannot forward.
    #[inline(never)]
    fn columns_carried(a: [Limb; N], b: Option<[Limb; N]>) -> [Limb; N] {
        Self::carry(match b {
            Some(b) => Self::mul_cols(&a, &b),
            None => Self::sqr_cols(&a),
        })
    }

    /// The columns of `a · b` (or `a²` for `b = None`) from the CPU's own
    /// kernel for this field, where it has one ([`fixed::pm_columns`]).
    #[inline(always)]
    fn cpu_cols(a: &[Limb; N], b: Option<&[Limb; N]>) -> Option<[u128; N]> {
        fixed::pm_columns(R, K, C, a, b.unwrap_or(a))
    }

    #[inline(always)]
    fn mul_cols(a: &[Limb; N], b: &[Limb; N]) -> [u128; N] {
        if let Some(cols) = Self::cpu_cols(a, Some(b)) {
            return cols;
        }
        if let Some(cols) = Self::karatsuba3_cols(a, Some(b)) {
            return cols;
        }
        let mut bc = [0; N];
        for j in 0..N {
            bc[j] = b[j] * Self::FOLD;
        }
        let mut cols = [0u128; N];
        each_limb!(N, |i| {
            for j in 0..N {
                if i + j < N {
                    cols[i + j] += a[i] as u128 * b[j] as u128;
                } else {
                    cols[i + j - N] += a[i] as u128 * bc[j] as u128;
                }
            }
        });
        cols
    }

    #[inline(always)]
    fn sqr_cols(a: &[Limb; N]) -> [u128; N] {
        if let Some(cols) = Self::cpu_cols(a, None) {
            return cols;
        }
        if let Some(cols) = Self::karatsuba3_cols(a, None) {
            return cols;
        }
        // Each cross product once, doubled through the operand.
        let mut a2 = [0; N];
        let mut ac = [0; N];
        let mut a2c = [0; N];
        for i in 0..N {
            a2[i] = 2 * a[i];
            ac[i] = a[i] * Self::FOLD;
            a2c[i] = 2 * ac[i];
        }
        // The rows written out, each row's loop over the constant bounds
        // 0..N, which the compiler unrolls in full (with `j` from `i + 1`
        // it did not at six limbs and more, and the square was slower than
        // the multiplication).
        let mut cols = [0u128; N];
        each_limb!(N, |i| {
            for j in 0..N {
                let (k, wraps) = if i + j < N {
                    (i + j, false)
                } else {
                    (i + j - N, true)
                };
                if j == i {
                    // The diagonal.
                    let other = if wraps { ac[i] } else { a[i] };
                    cols[k] += a[i] as u128 * other as u128;
                } else if j > i {
                    cols[k] += if wraps {
                        a[i] as u128 * a2c[j] as u128
                    } else {
                        a2[i] as u128 * a[j] as u128
                    };
                }
            }
        });
        cols
    }
}

impl<const N: usize, const R: u32, const L: usize, const K: u32, const C: u64> fmt::Debug
    for Unsaturated<N, R, L, K, C>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Unsaturated<2^{K} - {C}, {N}x{R}>")
    }
}

impl<const N: usize, const R: u32, const L: usize, const K: u32, const C: u64> sealed::Sealed
    for Unsaturated<N, R, L, K, C>
{
}

impl<const N: usize, const R: u32, const L: usize, const K: u32, const C: u64> Backend
    for Unsaturated<N, R, L, K, C>
{
    const LIMBS: usize = L;
    type Repr = [Limb; N];
    const NAME: &'static str = "2^k - c (unsaturated)";
    type Uint = Uint<L>;
    const MODULUS: Uint<L> = Uint::from_words(Self::P);
    const BITS: u32 = K;
    const ZERO: [Limb; N] = [0; N];
    const ONE: [Limb; N] = {
        let _ = Self::FOLD;
        let mut one = [0; N];
        one[0] = 1;
        one
    };

    fn from_canonical(x: &Uint<L>) -> [Limb; N] {
        let x = x.as_words();
        let mut r = [0; N];
        for (i, limb) in r.iter_mut().enumerate() {
            let pos = R * i as u32;
            let (q, s) = ((pos / 64) as usize, pos % 64);
            let mut v = x[q] >> s;
            if s != 0 && q + 1 < L {
                v |= x[q + 1] << (64 - s);
            }
            *limb = v & Self::MASK;
        }
        r
    }

    fn to_canonical(a: &[Limb; N]) -> Uint<L> {
        // Σ aᵢ 2^(R i) on saturated limbs (below 1.5 · 2^(N R) < 2^(64 L)).
        let mut v = [0 as Limb; L];
        for (i, &limb) in a.iter().enumerate() {
            let pos = R * i as u32;
            let (q, s) = ((pos / 64) as usize, pos % 64);
            let wide = (limb as u128) << s;
            let mut carry = 0;
            for (j, x) in v.iter_mut().enumerate().skip(q) {
                let add = match j - q {
                    0 => wide as Limb,
                    1 => (wide >> 64) as Limb,
                    _ => 0,
                };
                let t = *x as u128 + add as u128 + carry as u128;
                *x = t as Limb;
                carry = (t >> 64) as Limb;
            }
        }
        Uint::from_words(canonicalize(v, K, C, &Self::P))
    }

    #[inline]
    fn add(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        let mut r = [0; N];
        for i in 0..N {
            r[i] = a[i] + b[i];
        }
        r
    }

    #[inline]
    fn sub(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        let mut r = [0; N];
        for i in 0..N {
            r[i] = a[i] + Self::TWO_P[i] - b[i];
        }
        r
    }

    #[inline]
    fn neg(a: &[Limb; N]) -> [Limb; N] {
        Self::sub(&[0; N], a)
    }

    #[inline]
    fn reduce(a: &[Limb; N]) -> [Limb; N] {
        let mut cols = [0u128; N];
        for i in 0..N {
            cols[i] = a[i] as u128;
        }
        Self::carry(cols)
    }

    // Inlined whatever the caller's size: a chain whose step was a call
    // passed its limbs through memory (see `columns_carried`).
    #[inline(always)]
    fn mul(a: &[Limb; N], b: &[Limb; N]) -> [Limb; N] {
        if Self::IS_P521 {
            if let Some(r) = Self::cpu_carried(a, Some(b)) {
                return r;
            }
            return Self::columns_carried(*a, Some(*b));
        }
        Self::carry(Self::mul_cols(a, b))
    }

    #[inline(always)]
    fn square(a: &[Limb; N]) -> [Limb; N] {
        if Self::IS_P521 {
            if let Some(r) = Self::cpu_carried(a, None) {
                return r;
            }
            return Self::columns_carried(*a, None);
        }
        Self::carry(Self::sqr_cols(a))
    }

    #[inline]
    fn mul_small(a: &[Limb; N], k: u32) -> [Limb; N] {
        let mut cols = [0u128; N];
        for i in 0..N {
            cols[i] = a[i] as u128 * k as u128;
        }
        Self::carry(cols)
    }

    #[cfg(test)]
    fn tight_max() -> [Limb; N] {
        [(1 << R) + (1 << (R - 1)) - 1; N]
    }

    #[cfg(test)]
    fn loose_max() -> [Limb; N] {
        [(1 << (R + 2)) - 1; N]
    }

    #[cfg(test)]
    fn value(a: &[Limb; N]) -> num_bigint::BigUint {
        let mut v = num_bigint::BigUint::default();
        for (i, &limb) in a.iter().enumerate() {
            v += num_bigint::BigUint::from(limb) << (R as usize * i);
        }
        v % crate::tests::big(&Self::P)
    }
}

/// `2^521 − 1` on nine 58-bit limbs by the three-way Karatsuba split:
/// `a = a₀ + a₁X + a₂X²` with `X = 2^174` (three limbs a third) and six
/// 3×3 products (54 limb products instead of 81; a square, 36 instead of
/// 45), as the thread on special primes reports for this prime. With
/// `Pᵢⱼ = (aᵢ + aⱼ)(bᵢ + bⱼ)` and `Pᵢ = aᵢbᵢ`, the product is
/// `P₀ + (P₀₁ − P₀ − P₁)X + (P₀₂ − P₀ − P₂ + P₁)X² + (P₁₂ − P₁ − P₂)X³ + P₂X⁴`;
/// each difference is, column by column, a sum of cross products, so
/// nothing borrows. `X³ = 2^522 ≡ 2`: the columns from the ninth up fold
/// onto the low ones doubled.
///
/// Bounds (loose limbs below `2^60`, see [`Unsaturated`]): a third's sum
/// is below `2^61`, a column of a `Pᵢⱼ` below `3 · 2^122`, and every
/// difference and folded column is, column by column, one of the
/// schoolbook product's (below `2^125`), which the generic carry takes.
mod karatsuba3 {
    use numcrypt_limbs::Limb;

    type Third = [Limb; 3];

    #[inline(always)]
    fn thirds(a: &[Limb; 9]) -> [Third; 3] {
        [[a[0], a[1], a[2]], [a[3], a[4], a[5]], [a[6], a[7], a[8]]]
    }

    #[inline(always)]
    fn sum(x: &Third, y: &Third) -> Third {
        [x[0] + y[0], x[1] + y[1], x[2] + y[2]]
    }

    #[inline(always)]
    fn wide(x: Limb, y: Limb) -> u128 {
        x as u128 * y as u128
    }

    #[inline(always)]
    fn product(x: &Third, y: &Third) -> [u128; 5] {
        [
            wide(x[0], y[0]),
            wide(x[0], y[1]) + wide(x[1], y[0]),
            wide(x[0], y[2]) + wide(x[1], y[1]) + wide(x[2], y[0]),
            wide(x[1], y[2]) + wide(x[2], y[1]),
            wide(x[2], y[2]),
        ]
    }

    #[inline(always)]
    fn square_third(x: &Third) -> [u128; 5] {
        let (d0, d1) = (2 * x[0], 2 * x[1]);
        [
            wide(x[0], x[0]),
            wide(d0, x[1]),
            wide(d0, x[2]) + wide(x[1], x[1]),
            wide(d1, x[2]),
            wide(x[2], x[2]),
        ]
    }

    /// The nine folded columns from the six products `[P₀, P₁, P₂, P₀₁,
    /// P₀₂, P₁₂]`.
    #[inline(always)]
    fn combine(p: [[u128; 5]; 6]) -> [u128; 9] {
        let [p0, p1, p2, p01, p02, p12] = p;
        let mut w = [0u128; 17];
        for i in 0..5 {
            w[i] += p0[i];
            w[3 + i] += p01[i] - p0[i] - p1[i];
            w[6 + i] += p02[i] + p1[i] - p0[i] - p2[i];
            w[9 + i] += p12[i] - p1[i] - p2[i];
            w[12 + i] += p2[i];
        }
        core::array::from_fn(|j| w[j] + if j + 9 < 17 { 2 * w[j + 9] } else { 0 })
    }

    #[inline(always)]
    pub(super) fn mul(a: &[Limb; 9], b: &[Limb; 9]) -> [u128; 9] {
        let [a0, a1, a2] = thirds(a);
        let [b0, b1, b2] = thirds(b);
        combine([
            product(&a0, &b0),
            product(&a1, &b1),
            product(&a2, &b2),
            product(&sum(&a0, &a1), &sum(&b0, &b1)),
            product(&sum(&a0, &a2), &sum(&b0, &b2)),
            product(&sum(&a1, &a2), &sum(&b1, &b2)),
        ])
    }

    #[inline(always)]
    pub(super) fn square(a: &[Limb; 9]) -> [u128; 9] {
        let [a0, a1, a2] = thirds(a);
        combine([
            square_third(&a0),
            square_third(&a1),
            square_third(&a2),
            square_third(&sum(&a0, &a1)),
            square_third(&sum(&a0, &a2)),
            square_third(&sum(&a1, &a2)),
        ])
    }
}
