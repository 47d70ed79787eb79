//! The kernel contract: what a backend supplies (two row kernels, and the
//! sizes it specialises), and the algorithms built on the rows when it
//! supplies nothing more: schoolbook and Karatsuba products, the dedicated
//! squaring, Montgomery reduction and multiplication. Backends (in
//! `backend/`) implement [`Kernels`]; the free functions of
//! [`kernels`](crate::kernels) run the one the CPU has.
//!
//! Every function is constant time in the values of its operands (lengths
//! are public). A length that breaks a stated contract is a bug in the
//! calling code, not bad input, and panics; the public integer types never
//! let caller data reach a kernel with the wrong lengths.

use crate::Limb;
use crate::ops::add::{cnd_sub_assign, final_subtract};
use crate::ops::karatsuba;
use crate::ops::word::{adc, mac};

pub use crate::ops::karatsuba::{KARATSUBA_MAX_LIMBS, KARATSUBA_MIN_LIMBS};

/// Below this many limbs, [`Kernels::sqr`] multiplies instead: the
/// triangle, doubling and diagonal passes only pay once rows are long enough
/// (benches/RESULTS.md, "Design figures").
pub const SQR_MIN_LIMBS: usize = 10;

/// A multiplication backend: two row kernels, and the algorithms built on
/// them.
///
/// A backend supplies [`mul_1`](Kernels::mul_1) and
/// [`addmul_1`](Kernels::addmul_1), the inner loops where the CPU matters.
/// The provided methods build schoolbook and Karatsuba multiplication,
/// squaring and Montgomery reduction on top, so each backend gets its own
/// monomorphised copy with no per-row dispatch. The free functions of this module pick
/// the fastest backend the CPU supports, once per call; tests and benches
/// can name a backend to force its path.
pub trait Kernels: Copy {
    /// `r = a * b` for a single limb `b`; returns the high limb.
    /// `r.len() == a.len() > 0`.
    fn mul_1(self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb;

    /// `r += a * b` for a single limb `b`; returns the high limb.
    /// `r.len() == a.len() > 0`.
    fn addmul_1(self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb;

    /// Product `r = a * b`, `r.len() == a.len() + b.len()`, both non-empty
    /// (the lengths may differ): the backend's own where it has one
    /// ([`mul_unrolled`](Kernels::mul_unrolled)), else Karatsuba for equal
    /// lengths in [`KARATSUBA_MIN_LIMBS`]`..=`[`KARATSUBA_MAX_LIMBS`] (even
    /// counts), else [`mul_basecase`](Kernels::mul_basecase).
    fn mul(self, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
        if self.mul_unrolled(r, a, b) {
            return;
        }
        if a.len() == b.len() && karatsuba::applies(a.len()) {
            assert_eq!(r.len(), 2 * a.len());
            karatsuba::mul(r, a, b, &|r, x, y| self.mul_basecase(r, x, y));
        } else {
            self.mul_basecase(r, a, b);
        }
    }

    /// The backend's own product for these lengths, if it has one:
    /// `r = a * b` as for [`mul`](Kernels::mul). Returns `false`, leaving `r`
    /// alone, when it has none (the default).
    fn mul_unrolled(self, r: &mut [Limb], a: &[Limb], b: &[Limb]) -> bool {
        let _ = (r, a, b);
        false
    }

    /// Schoolbook product `r = a * b`, `r.len() == a.len() + b.len()`, both
    /// non-empty (the lengths may differ).
    fn mul_basecase(self, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
        mul_basecase_rows(self, r, a, b);
    }

    /// Dedicated squaring `r = a * a`, `r.len() == 2 * a.len()`, `a`
    /// non-empty: each off-diagonal product `a[i] * a[j]` (i < j) once, the
    /// sum doubled by a one-bit shift, then the squares on the diagonal
    /// added: about half the limb products of [`mul`](Kernels::mul).
    fn sqr(self, r: &mut [Limb], a: &[Limb]) {
        sqr_rows(self, r, a);
    }

    /// Constant-time `out = table[index]` over entries of `out.len()` limbs:
    /// every entry is read and masked (see `ct::lookup`), whatever `index`
    /// is. The exponentiations' window lookup.
    fn lookup(self, out: &mut [Limb], table: &[Limb], index: Limb) {
        crate::ops::ct::lookup(out, table, index);
    }

    /// The last pass of [`sqr`](Kernels::sqr): `r = 2 r + Σ a[i]² 2^(128 i)`,
    /// `r.len() == 2 * a.len()`, where the result is known to fit (`r` holds
    /// the off-diagonal triangle of `a`'s square).
    fn double_add_squares(self, r: &mut [Limb], a: &[Limb]) {
        let n = a.len();
        assert!(r.len() == 2 * n);
        let mut top = 0;
        for limb in r.iter_mut() {
            let next = *limb >> (Limb::BITS - 1);
            *limb = (*limb << 1) | top;
            top = next;
        }
        let mut carry = 0;
        for i in 0..n {
            let (lo, hi) = mac(0, a[i], a[i], 0);
            (r[2 * i], carry) = adc(r[2 * i], lo, carry);
            (r[2 * i + 1], carry) = adc(r[2 * i + 1], hi, carry);
        }
    }

    /// Montgomery reduction: `r = t * R^-1 mod m`, fully reduced, where
    /// `R = 2^(64 n)`. `t` has `2 n` limbs, holds a value below `m * R`, and
    /// is destroyed; `r` and `m` have `n` limbs.
    fn mont_redc(self, r: &mut [Limb], t: &mut [Limb], m: MontModulus) {
        mont_redc_rows(self, r, t, m);
    }

    /// Whether [`mont_redc_almost`](Kernels::mont_redc_almost) has a kernel
    /// of its own at `n` limbs, faster than [`mont_redc`](Kernels::mont_redc);
    /// the exponentiations then keep their values almost reduced.
    fn has_almost_redc(self, n: usize) -> bool {
        let _ = n;
        false
    }

    /// Almost Montgomery reduction: `r ≡ t * R^-1 (mod m)` and `r < R`, for
    /// any `t` of `2 n` limbs: `m` is subtracted once when `(t + q m) / R`
    /// reaches `R` (it is below `R + m`), never compared with `r`. Values
    /// below `R` thus stay below `R` through products of any two of them,
    /// and one full reduction at the end brings them below `m`. `t` is
    /// destroyed.
    fn mont_redc_almost(self, r: &mut [Limb], t: &mut [Limb], m: MontModulus) {
        mont_redc_almost_rows(self, r, t, m);
    }

    /// Almost Montgomery multiplication: `r ≡ a·b·R⁻¹ (mod m)`, `r < R`, for
    /// `a` and `b` below `R` ([`mul`](Kernels::mul), then
    /// [`mont_redc_almost`](Kernels::mont_redc_almost)); `wide` holds the
    /// `2 n`-limb product. A backend whose kernels take the length may call
    /// them directly, without the two calls' checks and dispatch.
    fn mont_mul_almost(
        self,
        r: &mut [Limb],
        a: &[Limb],
        b: &[Limb],
        m: MontModulus,
        wide: &mut [Limb],
    ) {
        self.mul(wide, a, b);
        self.mont_redc_almost(r, wide, m);
    }

    /// Almost Montgomery squaring, as [`mont_mul_almost`](Kernels::mont_mul_almost)
    /// with [`sqr`](Kernels::sqr).
    fn mont_sqr_almost(self, r: &mut [Limb], a: &[Limb], m: MontModulus, wide: &mut [Limb]) {
        self.sqr(wide, a);
        self.mont_redc_almost(r, wide, m);
    }

    /// The backend's fully unrolled Montgomery multiplication for this
    /// length, if it has one: `r = a * b * R^-1 mod m` under the requirements
    /// of [`mont_mul`](Kernels::mont_mul), with no scratch. Returns `false`,
    /// leaving `r` alone, when the length has none (the default).
    fn mont_mul_unrolled(self, r: &mut [Limb], a: &[Limb], b: &[Limb], m: MontModulus) -> bool {
        let _ = (r, a, b, m);
        false
    }

    /// Montgomery multiplication `r = a * b * R^-1 mod m`, fully reduced:
    /// the product, then [`mont_redc`](Kernels::mont_redc). It measured level
    /// with interleaved CIOS on the same portable rows (benches/RESULTS.md,
    /// "Montgomery: separated or interleaved"), and only
    /// the separated form can use the dedicated squaring and Karatsuba for
    /// the product.
    ///
    /// `n = m.len() = a.len() = b.len() = r.len() > 0`, `a * b < m * R`
    /// (true when either input is below `m`), and `wide.len() == 2 n`
    /// (scratch for the double-width product).
    fn mont_mul(self, r: &mut [Limb], a: &[Limb], b: &[Limb], m: MontModulus, wide: &mut [Limb]) {
        if !self.mont_mul_unrolled(r, a, b, m) {
            mont_mul_separated(self, r, a, b, m, wide);
        }
    }

    /// Montgomery squaring `r = a^2 * R^-1 mod m` through the dedicated
    /// squaring; same requirements as [`mont_mul`](Kernels::mont_mul).
    fn mont_sqr(self, r: &mut [Limb], a: &[Limb], m: MontModulus, wide: &mut [Limb]) {
        if a.len() < SQR_MIN_LIMBS {
            // `sqr` would multiply here anyway; going through `mont_mul` also
            // picks up a backend's size-specific multiplication.
            return self.mont_mul(r, a, a, m, wide);
        }
        self.sqr(wide, a);
        self.mont_redc(r, wide, m);
    }
}

/// [`Kernels::mont_mul`] as a product then a reduction: the default, and the
/// fallback of backends that specialise some sizes.
pub fn mont_mul_separated<K: Kernels>(
    k: K,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    m: MontModulus,
    wide: &mut [Limb],
) {
    k.mul(wide, a, b);
    k.mont_redc(r, wide, m);
}

/// Runs a fixed-size Montgomery kernel `f(r, a, b, m)` on `N`-limb
/// operands: the shared shape of the backends'
/// [`Kernels::mont_mul_unrolled`]. `false` when a length is not `N`.
#[inline]
pub fn run_unrolled<const N: usize>(
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    m: &[Limb],
    f: impl FnOnce(&mut [Limb; N], &[Limb; N], &[Limb; N], &[Limb; N]),
) -> bool {
    match (
        <&mut [Limb; N]>::try_from(r),
        <&[Limb; N]>::try_from(a),
        <&[Limb; N]>::try_from(b),
        <&[Limb; N]>::try_from(m),
    ) {
        (Ok(r), Ok(a), Ok(b), Ok(m)) => {
            f(r, a, b, m);
            true
        }
        _ => false,
    }
}

/// [`Kernels::mul_basecase`] as one `mul_1` and then `addmul_1` rows: the
/// default, and the fallback of backends that specialise some sizes.
pub fn mul_basecase_rows<K: Kernels>(k: K, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    assert!(!a.is_empty() && !b.is_empty() && r.len() == a.len() + b.len());
    let n = a.len();
    r[n] = k.mul_1(&mut r[..n], a, b[0]);
    for (j, &bj) in b.iter().enumerate().skip(1) {
        r[n + j] = k.addmul_1(&mut r[j..j + n], a, bj);
    }
}

/// [`Kernels::sqr`] as `addmul_1` rows for the off-diagonal triangle, then
/// [`Kernels::double_add_squares`]: the default, and the fallback of
/// backends that specialise some sizes.
pub fn sqr_rows<K: Kernels>(k: K, r: &mut [Limb], a: &[Limb]) {
    let n = a.len();
    assert!(n > 0 && r.len() == 2 * n);
    if n < SQR_MIN_LIMBS {
        return k.mul_basecase(r, a, a);
    }
    // Off-diagonal triangle: row i adds a[i] * a[i+1..] at position 2i+1.
    r[0] = 0;
    r[2 * n - 1] = 0;
    r[n] = k.mul_1(&mut r[1..n], &a[1..], a[0]);
    for i in 1..n - 1 {
        r[i + n] = k.addmul_1(&mut r[2 * i + 1..i + n], &a[i + 1..], a[i]);
    }
    k.double_add_squares(r, a);
}

/// [`Kernels::mont_redc`] as `n` calls of the backend's `addmul_1`: the
/// default, and the fallback of backends that specialise some sizes.
pub fn mont_redc_rows<K: Kernels>(k: K, r: &mut [Limb], t: &mut [Limb], modulus: MontModulus) {
    let hi = mont_redc_rows_unreduced(k, r, t, modulus);
    final_subtract(r, hi, modulus.limbs());
}

/// [`Kernels::mont_redc_almost`] as `n` calls of the backend's `addmul_1`:
/// the default, and the fallback of backends that specialise some sizes.
pub fn mont_redc_almost_rows<K: Kernels>(k: K, r: &mut [Limb], t: &mut [Limb], m: MontModulus) {
    let hi = mont_redc_rows_unreduced(k, r, t, m);
    cnd_sub_assign(r, m.limbs(), hi.wrapping_neg());
}

/// `(t + q m) / R` for the `q < R` that makes the sum divisible by `R`, as
/// `n` calls of the backend's `addmul_1`: its low `n` limbs in `r`, the
/// carry out (0 or 1) returned. `t` has `2 n` limbs and is destroyed.
fn mont_redc_rows_unreduced<K: Kernels>(
    k: K,
    r: &mut [Limb],
    t: &mut [Limb],
    modulus: MontModulus,
) -> Limb {
    let (m, m_inv) = (modulus.limbs(), modulus.m_inv());
    let n = m.len();
    assert!(n > 0 && r.len() == n && t.len() == 2 * n);
    let mut hi = 0;
    for i in 0..n {
        // q makes t[i] + q*m[0] divisible by 2^64.
        let q = t[i].wrapping_mul(m_inv);
        let c = k.addmul_1(&mut t[i..i + n], m, q);
        (t[i + n], hi) = adc(t[i + n], c, hi);
    }
    r.copy_from_slice(&t[n..]);
    hi
}

/// An odd modulus as the Montgomery kernels take it: its limbs and
/// `m_inv = -m^-1 mod 2^64`, made together so that they cannot disagree.
#[derive(Clone, Copy, Debug)]
pub struct MontModulus<'a> {
    limbs: &'a [Limb],
    m_inv: Limb,
}

impl<'a> MontModulus<'a> {
    /// `m` with its inverse; `None` when `m` is empty or even.
    pub const fn new(m: &'a [Limb]) -> Option<Self> {
        match m.first() {
            Some(&m0) if m0 & 1 == 1 => Some(Self::with_inverse(m, mont_inverse_limb(m0))),
            _ => None,
        }
    }

    /// `m` with an inverse computed before (by [`new`](Self::new)'s
    /// [`mont_inverse_limb`]), for callers that keep it.
    pub(crate) const fn with_inverse(limbs: &'a [Limb], m_inv: Limb) -> Self {
        debug_assert!(mont_inverse_limb(limbs[0]) == m_inv);
        Self { limbs, m_inv }
    }

    /// The modulus' limbs, least significant first.
    pub const fn limbs(self) -> &'a [Limb] {
        self.limbs
    }

    /// `-m^-1 mod 2^64`.
    pub const fn m_inv(self) -> Limb {
        self.m_inv
    }
}

/// `-m^-1 mod 2^64` for odd `m0`, by Newton iteration (each step doubles the
/// number of correct low bits: 1, 2, 4, …, 64).
pub const fn mont_inverse_limb(m0: Limb) -> Limb {
    let mut inv: Limb = 1;
    let mut i = 0;
    while i < 6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
}
