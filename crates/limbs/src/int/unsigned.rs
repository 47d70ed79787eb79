//! The [`Unsigned`] trait: the integer operations, written once over limb
//! slices and shared by [`Uint`](crate::Uint) and `BoxedUint`.

use subtle::{Choice, ConstantTimeEq, CtOption};

use crate::ct_audit::{declassified, declassify_choice};
#[cfg(feature = "rand_core")]
use crate::int::random::fill_bits;
use crate::kernels;
use crate::ops::{ct, div, gcd, modular, radix, shift};
use crate::{Error, Limb};

/// An unsigned integer of a fixed number of 64-bit limbs, least significant
/// first: [`Uint<LIMBS>`](crate::Uint) (width fixed at compile time, on the
/// stack) or `BoxedUint` (width chosen at run time, on the heap).
///
/// Everything here is constant time in the values of its operands unless its
/// name ends in `_vartime`; widths are public. Binary operations read `rhs`
/// at `self`'s width: for `BoxedUint`, a narrower `rhs` is zero-extended and
/// a wider one taken modulo `2^width`.
pub trait Unsigned: Sized + Clone + AsRef<[Limb]> + AsMut<[Limb]> {
    /// A zero of the same width as `self`.
    fn zero_like(&self) -> Self;

    /// Runs `f` on `K * nlimbs` limbs of zeroed scratch space (on the stack
    /// for `Uint`, where `nlimbs` never exceeds `LIMBS`), and zeroizes it
    /// afterwards since it may have held secrets.
    fn with_scratch<const K: usize, R>(&self, nlimbs: usize, f: impl FnOnce(&mut [Limb]) -> R)
    -> R;

    /// Number of limbs.
    fn nlimbs(&self) -> usize {
        self.as_ref().len()
    }

    /// Width in bits (`64 * nlimbs`).
    fn bits_precision(&self) -> u32 {
        self.nlimbs() as u32 * Limb::BITS
    }

    /// A value of the same width holding `v`.
    fn like_u64(&self, v: u64) -> Self {
        let mut r = self.zero_like();
        if let Some(first) = r.as_mut().first_mut() {
            *first = v;
        }
        r
    }

    // ---- predicates and bits -------------------------------------------

    /// Whether the value is zero.
    fn is_zero(&self) -> Choice {
        ct::is_zero(self.as_ref())
    }

    /// Whether the value is odd.
    fn is_odd(&self) -> Choice {
        Choice::from(self.as_ref().first().map_or(0, |&x| (x & 1) as u8))
    }

    /// Bit length: index of the highest set bit plus one, 0 for zero.
    fn bits(&self) -> u32 {
        ct::bit_length(self.as_ref())
    }

    /// The limbs up to the highest non-zero one, at least one: the value's
    /// size, found without a branch on the value and then made public (a
    /// caller that sizes its work by it reveals it anyway; the value stays
    /// secret).
    fn significant_limbs(&self) -> usize {
        declassified(div::significant_limbs_ct(self.as_ref())).max(1)
    }

    /// Bit length, variable time.
    fn bits_vartime(&self) -> u32 {
        let a = self.as_ref();
        let n = div::significant_limbs(a);
        if n == 0 {
            0
        } else {
            (n as u32) * Limb::BITS - a[n - 1].leading_zeros()
        }
    }

    /// Number of trailing zero bits (the full width for zero).
    fn trailing_zeros(&self) -> u32 {
        ct::trailing_zeros(self.as_ref())
    }

    /// Bit `index` (0 beyond the width), reading every limb.
    fn bit(&self, index: u32) -> Choice {
        ct::bit(self.as_ref(), index)
    }

    /// Bit `index`, variable time in `index`.
    fn bit_vartime(&self, index: u32) -> bool {
        let limb = (index / Limb::BITS) as usize;
        self.as_ref()
            .get(limb)
            .is_some_and(|&x| (x >> (index % Limb::BITS)) & 1 == 1)
    }

    // ---- comparison -----------------------------------------------------

    /// `self == rhs` as integers (widths may differ).
    fn ct_eq_value(&self, rhs: &Self) -> Choice {
        let (a, b) = (self.as_ref(), rhs.as_ref());
        let n = a.len().min(b.len());
        ct::eq(&a[..n], &b[..n]) & ct::is_zero(&a[n..]) & ct::is_zero(&b[n..])
    }

    /// `self < rhs` as integers (widths may differ).
    fn ct_lt_value(&self, rhs: &Self) -> Choice {
        let (a, b) = (self.as_ref(), rhs.as_ref());
        let n = a.len().min(b.len());
        let low = ct::lt(&a[..n], &b[..n]);
        // A non-zero high part decides; otherwise the low parts do.
        let a_high = !ct::is_zero(&a[n..]);
        let b_high = !ct::is_zero(&b[n..]);
        b_high | (!a_high & low)
    }

    // ---- addition and subtraction ---------------------------------------

    /// `self + rhs + carry` at `self`'s width, and the carry out (0 or 1).
    fn carrying_add(&self, rhs: &Self, carry: Limb) -> (Self, Limb) {
        let mut r = self.clone();
        let c = with_rhs_at_width(self, rhs, |b| {
            let c1 = kernels::add_assign(r.as_mut(), b);
            c1 + kernels::add_limb_assign(r.as_mut(), carry & 1)
        });
        (r, c)
    }

    /// `self - rhs - borrow` at `self`'s width, and the borrow out (0 or 1).
    fn borrowing_sub(&self, rhs: &Self, borrow: Limb) -> (Self, Limb) {
        let mut r = self.clone();
        let b_out = with_rhs_at_width(self, rhs, |b| {
            let b1 = kernels::sub_assign(r.as_mut(), b);
            b1 | kernels::sub_limb_assign(r.as_mut(), borrow & 1)
        });
        (r, b_out)
    }

    /// `self + rhs` modulo `2^width`.
    fn wrapping_add(&self, rhs: &Self) -> Self {
        self.carrying_add(rhs, 0).0
    }

    /// `self - rhs` modulo `2^width`.
    fn wrapping_sub(&self, rhs: &Self) -> Self {
        self.borrowing_sub(rhs, 0).0
    }

    /// `-self` modulo `2^width`.
    fn wrapping_neg(&self) -> Self {
        self.zero_like().wrapping_sub(self)
    }

    /// `self + rhs`, or none if it overflows the width (or `rhs` is wider
    /// than the width).
    fn checked_add(&self, rhs: &Self) -> CtOption<Self> {
        let (r, carry) = self.carrying_add(rhs, 0);
        let fits = carry.ct_eq(&0) & rhs_fits(self, rhs);
        CtOption::new(r, fits)
    }

    /// `self - rhs`, or none if it would be negative.
    fn checked_sub(&self, rhs: &Self) -> CtOption<Self> {
        let (r, borrow) = self.borrowing_sub(rhs, 0);
        CtOption::new(r, borrow.ct_eq(&0) & rhs_fits(self, rhs))
    }

    // ---- multiplication -------------------------------------------------

    /// The full product as `(low, high)` halves, each of `self`'s width.
    fn widening_mul(&self, rhs: &Self) -> (Self, Self) {
        let n = self.nlimbs();
        let (mut lo, mut hi) = (self.zero_like(), self.zero_like());
        if n == 0 {
            return (lo, hi);
        }
        self.with_scratch::<2, _>(n, |wide| {
            with_rhs_at_width(self, rhs, |b| kernels::mul(wide, self.as_ref(), b));
            lo.as_mut().copy_from_slice(&wide[..n]);
            hi.as_mut().copy_from_slice(&wide[n..]);
        });
        (lo, hi)
    }

    /// The full square as `(low, high)`, through the dedicated squaring kernel.
    fn widening_square(&self) -> (Self, Self) {
        let n = self.nlimbs();
        let (mut lo, mut hi) = (self.zero_like(), self.zero_like());
        if n == 0 {
            return (lo, hi);
        }
        self.with_scratch::<2, _>(n, |wide| {
            kernels::sqr(wide, self.as_ref());
            lo.as_mut().copy_from_slice(&wide[..n]);
            hi.as_mut().copy_from_slice(&wide[n..]);
        });
        (lo, hi)
    }

    /// `self * rhs` modulo `2^width`.
    fn wrapping_mul(&self, rhs: &Self) -> Self {
        self.widening_mul(rhs).0
    }

    /// `self * rhs`, or none if the product overflows the width.
    fn checked_mul(&self, rhs: &Self) -> CtOption<Self> {
        let (lo, hi) = self.widening_mul(rhs);
        CtOption::new(lo, hi.is_zero() & rhs_fits(self, rhs))
    }

    // ---- shifts ---------------------------------------------------------

    /// `self << shift` (zero when `shift >= width`), constant time in the
    /// value and in `shift`.
    fn shl(&self, shift: u32) -> Self {
        let mut r = self.clone();
        self.with_scratch::<1, _>(self.nlimbs(), |tmp| {
            shift::shift_ct(r.as_mut(), shift, false, tmp)
        });
        r
    }

    /// `self >> shift`, constant time in the value and in `shift`.
    fn shr(&self, shift: u32) -> Self {
        let mut r = self.clone();
        self.with_scratch::<1, _>(self.nlimbs(), |tmp| {
            shift::shift_ct(r.as_mut(), shift, true, tmp)
        });
        r
    }

    /// `self << shift`, variable time in `shift` (constant in the value).
    fn shl_vartime(&self, shift: u32) -> Self {
        let mut r = self.clone();
        shift::shl_vartime(r.as_mut(), shift);
        r
    }

    /// `self >> shift`, variable time in `shift` (constant in the value).
    fn shr_vartime(&self, shift: u32) -> Self {
        let mut r = self.clone();
        shift::shr_vartime(r.as_mut(), shift);
        r
    }

    // ---- division -------------------------------------------------------

    /// Quotient and remainder, constant time (bit-serial): the quotient has
    /// `self`'s width, the remainder `divisor`'s. Errors on a zero divisor.
    fn div_rem(&self, divisor: &Self) -> Result<(Self, Self), Error> {
        check_nonzero(divisor)?;
        let (mut q, mut r) = (self.zero_like(), divisor.zero_like());
        div::div_rem_ct(
            Some(q.as_mut()),
            r.as_mut(),
            self.as_ref(),
            divisor.as_ref(),
        );
        Ok((q, r))
    }

    /// `self mod divisor`, constant time, at `divisor`'s width.
    fn rem(&self, divisor: &Self) -> Result<Self, Error> {
        check_nonzero(divisor)?;
        let mut r = divisor.zero_like();
        div::div_rem_ct(None, r.as_mut(), self.as_ref(), divisor.as_ref());
        Ok(r)
    }

    /// Quotient and remainder by schoolbook long division, variable time.
    fn div_rem_vartime(&self, divisor: &Self) -> Result<(Self, Self), Error> {
        check_nonzero_vartime(divisor)?;
        let (mut q, mut r) = (self.zero_like(), divisor.zero_like());
        let n = self.nlimbs().max(divisor.nlimbs());
        self.with_scratch::<3, _>(n, |scratch| {
            div::div_rem_vartime(
                q.as_mut(),
                r.as_mut(),
                self.as_ref(),
                divisor.as_ref(),
                scratch,
            );
        });
        Ok((q, r))
    }

    /// `self mod divisor`, variable time.
    fn rem_vartime(&self, divisor: &Self) -> Result<Self, Error> {
        self.div_rem_vartime(divisor).map(|(_, r)| r)
    }

    /// `self mod m` for a single-limb `m`, variable time (trial division).
    fn rem_limb_vartime(&self, m: Limb) -> Result<Limb, Error> {
        if m == 0 {
            return Err(Error::DivisionByZero);
        }
        Ok(div::rem_limb_vartime(self.as_ref(), m))
    }

    // ---- modular arithmetic ---------------------------------------------

    /// `(self + rhs) mod m`; both operands must be below `m`.
    fn add_mod(&self, rhs: &Self, m: &Self) -> Result<Self, Error> {
        let (mut r, b) = check_reduced_pair(self, rhs, m)?;
        modular::add_mod(r.as_mut(), b.as_ref(), m.as_ref());
        Ok(r)
    }

    /// `(self - rhs) mod m`; both operands must be below `m`.
    fn sub_mod(&self, rhs: &Self, m: &Self) -> Result<Self, Error> {
        let (mut r, b) = check_reduced_pair(self, rhs, m)?;
        modular::sub_mod(r.as_mut(), b.as_ref(), m.as_ref());
        Ok(r)
    }

    /// `(-self) mod m`; `self` must be below `m`.
    fn neg_mod(&self, m: &Self) -> Result<Self, Error> {
        let (mut r, _) = check_reduced_pair(self, self, m)?;
        modular::neg_mod(r.as_mut(), m.as_ref());
        Ok(r)
    }

    /// `(self * rhs) mod m` for any operands and any non-zero `m`, constant
    /// time (full product, then a constant-time remainder). For many
    /// products modulo one odd `m`, [`MontyParams`](crate::MontyParams) is far faster.
    fn mul_mod(&self, rhs: &Self, m: &Self) -> Result<Self, Error> {
        check_nonzero(m)?;
        let n = self.nlimbs();
        let mut r = m.zero_like();
        if n == 0 {
            return Ok(r);
        }
        self.with_scratch::<2, _>(n, |wide| {
            with_rhs_at_width(self, rhs, |b| kernels::mul(wide, self.as_ref(), b));
            div::div_rem_ct(None, r.as_mut(), wide, m.as_ref());
        });
        Ok(r)
    }

    /// `self^exp mod m` in constant time for an odd `m > 1` (Montgomery
    /// fixed-window exponentiation over the full width of `exp`). Errors as
    /// [`MontyParams::new`](crate::MontyParams::new) for the modulus.
    fn pow_mod(&self, exp: &Self, m: &Self) -> Result<Self, Error>;

    /// `self^-1 mod m` in constant time, for odd `m > 1` (Bernstein and
    /// Yang's safegcd; the time depends only on the widths and the bit
    /// length of `m`). [`Error::NotInvertible`] when `gcd(self, m) ≠ 1`.
    fn inv_mod(&self, m: &Self) -> Result<Self, Error> {
        check_modulus(m)?;
        if !declassify_choice(m.is_odd()) {
            return Err(Error::EvenModulus);
        }
        let mut out = m.zero_like();
        let width = m.nlimbs().max(self.nlimbs());
        let ok = self.with_scratch::<10, _>(width, |scratch| {
            gcd::inv_mod_odd(out.as_mut(), self.as_ref(), m.as_ref(), scratch)
        });
        if declassify_choice(ok) {
            Ok(out)
        } else {
            Err(Error::NotInvertible)
        }
    }

    /// `self^-1 mod m` for any `m > 1` (odd or even), variable time: for
    /// public values only.
    fn inv_mod_vartime(&self, m: &Self) -> Result<Self, Error> {
        check_modulus(m)?;
        let n = m.nlimbs();
        let mut out = m.zero_like();
        let ok = self.with_scratch::<22, _>(n.max(self.nlimbs()), |scratch| {
            let (x, rest) = scratch.split_at_mut(n);
            let (q, rest) = rest.split_at_mut(self.nlimbs());
            div::div_rem_vartime(q, x, self.as_ref(), m.as_ref(), rest);
            gcd::inv_mod_vartime(
                out.as_mut(),
                x,
                m.as_ref(),
                &mut rest[..gcd::inv_mod_vartime_scratch(n)],
            )
        });
        if ok {
            Ok(out)
        } else {
            Err(Error::NotInvertible)
        }
    }

    /// Greatest common divisor in constant time (binary algorithm with a
    /// fixed `2·width` rounds), for secrets such as `gcd(p − 1, q − 1)` in
    /// RSA key generation; `gcd(0, 0) = 0`. The result has the wider of the
    /// two widths.
    fn gcd(&self, rhs: &Self) -> Self {
        let n = self.nlimbs().max(rhs.nlimbs());
        let mut out = if rhs.nlimbs() > self.nlimbs() {
            rhs.zero_like()
        } else {
            self.zero_like()
        };
        self.with_scratch::<5, _>(n, |scratch| {
            let (a, rest) = scratch.split_at_mut(n);
            let (b, rest) = rest.split_at_mut(n);
            a[..self.nlimbs()].copy_from_slice(self.as_ref());
            b[..rhs.nlimbs()].copy_from_slice(rhs.as_ref());
            gcd::gcd_ct(out.as_mut(), a, b, rest);
        });
        out
    }

    /// Greatest common divisor (binary algorithm), variable time. The result
    /// has `self`'s width.
    fn gcd_vartime(&self, rhs: &Self) -> Self {
        let mut out = self.zero_like();
        self.with_scratch::<3, _>(self.nlimbs(), |scratch| {
            let (b, rest) = scratch.split_at_mut(self.nlimbs());
            with_rhs_at_width(self, rhs, |r| b.copy_from_slice(r));
            gcd::gcd_vartime(out.as_mut(), self.as_ref(), b, rest);
        });
        out
    }

    /// The Jacobi symbol `(self / n)` for odd `n`, variable time: -1, 0 or 1.
    fn jacobi_vartime(&self, n: &Self) -> Result<i8, Error> {
        check_nonzero_vartime(n)?;
        if !bool::from(n.is_odd()) {
            return Err(Error::EvenModulus);
        }
        let width = n.nlimbs();
        Ok(
            self.with_scratch::<5, _>(width.max(self.nlimbs()), |scratch| {
                let (a, rest) = scratch.split_at_mut(width);
                let (q, rest) = rest.split_at_mut(self.nlimbs());
                div::div_rem_vartime(q, a, self.as_ref(), n.as_ref(), rest);
                gcd::jacobi_vartime(a, n.as_ref(), rest)
            }),
        )
    }

    // ---- encodings ------------------------------------------------------

    /// Writes the value big-endian into exactly `out.len()` bytes, zero
    /// padded; [`Error::Overflow`] (and `out` zeroed) if it needs more.
    fn write_be_bytes(&self, out: &mut [u8]) -> Result<(), Error> {
        radix::to_be_bytes(self.as_ref(), out)
    }

    /// Writes the value little-endian into exactly `out.len()` bytes.
    fn write_le_bytes(&self, out: &mut [u8]) -> Result<(), Error> {
        radix::to_le_bytes(self.as_ref(), out)
    }

    // ---- randomness -----------------------------------------------------

    /// A uniformly random value in `[0, bound)`, at `bound`'s width, by
    /// rejection sampling on `bits(bound)` random bits (fewer than two tries
    /// on average; the number of tries reveals nothing about the result).
    /// The bound is public: how many bits are drawn, and how many tries
    /// succeed, depend on it.
    #[cfg(feature = "rand_core")]
    fn random_below<R: rand_core::CryptoRng + ?Sized>(
        rng: &mut R,
        bound: &Self,
    ) -> Result<Self, Error> {
        check_nonzero(bound).map_err(|_| Error::EmptyRange)?;
        let bits = bound.bits();
        loop {
            let mut candidate = bound.zero_like();
            fill_bits(rng, candidate.as_mut(), bits);
            // Rejection reveals only the discarded candidates.
            if declassify_choice(candidate.ct_lt_value(bound)) {
                return Ok(candidate);
            }
            zeroize::Zeroize::zeroize(candidate.as_mut());
        }
    }
}

/// Runs `f` on `rhs`'s limbs at `lhs`'s width (zero-extended or truncated,
/// copying only when the widths differ).
fn with_rhs_at_width<U: Unsigned, R>(lhs: &U, rhs: &U, f: impl FnOnce(&[Limb]) -> R) -> R {
    let n = lhs.nlimbs();
    if rhs.nlimbs() == n {
        return f(rhs.as_ref());
    }
    lhs.with_scratch::<1, _>(n, |tmp| {
        let k = n.min(rhs.nlimbs());
        tmp[..k].copy_from_slice(&rhs.as_ref()[..k]);
        f(tmp)
    })
}

/// Whether `rhs` has no set bits beyond `lhs`'s width.
fn rhs_fits<U: Unsigned>(lhs: &U, rhs: &U) -> Choice {
    let n = lhs.nlimbs().min(rhs.nlimbs());
    ct::is_zero(&rhs.as_ref()[n..])
}

fn check_nonzero<U: Unsigned>(m: &U) -> Result<(), Error> {
    // Zeroness of a divisor is treated as public: dividing by zero is a
    // caller error, not a secret-dependent event.
    if declassify_choice(m.is_zero()) {
        Err(Error::DivisionByZero)
    } else {
        Ok(())
    }
}

fn check_nonzero_vartime<U: Unsigned>(m: &U) -> Result<(), Error> {
    if m.as_ref().iter().all(|&x| x == 0) {
        Err(Error::DivisionByZero)
    } else {
        Ok(())
    }
}

/// Moduli are public: zero and one are rejected.
fn check_modulus<U: Unsigned>(m: &U) -> Result<(), Error> {
    check_nonzero(m)?;
    let one = m.like_u64(1);
    if declassify_choice(m.ct_eq_value(&one)) {
        return Err(Error::ModulusTooSmall);
    }
    Ok(())
}

/// Checks `a, b < m` (revealing only that) and returns `a` and `b` at `m`'s
/// width.
fn check_reduced_pair<U: Unsigned>(a: &U, b: &U, m: &U) -> Result<(U, U), Error> {
    check_nonzero(m)?;
    if !bool::from(a.ct_lt_value(m) & b.ct_lt_value(m)) {
        return Err(Error::OutOfRange);
    }
    let (mut x, mut y) = (m.zero_like(), m.zero_like());
    let n = m.nlimbs();
    let ka = a.nlimbs().min(n);
    let kb = b.nlimbs().min(n);
    x.as_mut()[..ka].copy_from_slice(&a.as_ref()[..ka]);
    y.as_mut()[..kb].copy_from_slice(&b.as_ref()[..kb]);
    Ok((x, y))
}
