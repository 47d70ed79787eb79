//! The element types: [`Fp`] (tight) and [`LooseFp`] (loose), and their
//! operators.

use core::fmt;
use core::marker::PhantomData;
use core::ops::{Add, Mul, MulAssign, Neg, Sub};

use numcrypt_limbs::{Limb, Unsigned, fixed};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};
use zeroize::Zeroize;

use crate::{Backend, Error};

/// An element of the prime field `GF(p)` described by the backend `B`,
/// within the backend's *tight* bound: what every operation returns except
/// `+`, `−` and negation, and what those accept.
///
/// Everything on it is constant time: no branch or memory index depends on
/// its value. `Copy`, so it cannot zeroize itself on drop; call
/// [`Zeroize::zeroize`] on copies that held secrets.
#[derive(Clone, Copy)]
pub struct Fp<B: Backend> {
    repr: B::Repr,
    _backend: PhantomData<B>,
}

/// The result of `+`, `−` or negation: within the backend's *loose* bound,
/// and not reduced. A `LooseFp` can be multiplied or squared (giving a tight
/// [`Fp`]), or brought back with [`reduce`](LooseFp::reduce); it cannot be
/// added to, subtracted from or negated, so no chain of additions can
/// outgrow the bounds that multiplication relies on. That is checked by the
/// compiler, not counted at run time:
///
/// ```compile_fail
/// use numcrypt_field::{Fp, Fp25519};
/// let (a, b, c) = (Fp25519::ONE, Fp25519::ONE, Fp25519::ONE);
/// let sum = a + b + c; // error: a `LooseFp` has no `+`
/// ```
///
/// ```
/// use numcrypt_field::Fp25519;
/// let (a, b, c) = (Fp25519::ONE, Fp25519::ONE, Fp25519::ONE);
/// let sum = (a + b).reduce() + c; // reduce first, then add again
/// assert_eq!(sum.reduce(), Fp25519::from_u64(3));
/// let product = (a + b) * (b - c); // a loose value goes straight into `*`
/// assert!(bool::from(product.is_zero()));
/// ```
#[derive(Clone, Copy)]
pub struct LooseFp<B: Backend> {
    repr: B::Repr,
    _backend: PhantomData<B>,
}

impl<B: Backend> Fp<B> {
    /// Zero.
    pub const ZERO: Self = Self::from_repr(B::ZERO);
    /// One.
    pub const ONE: Self = Self::from_repr(B::ONE);
    /// The modulus `p`.
    pub const MODULUS: B::Uint = B::MODULUS;
    /// Bit length of `p`.
    pub const BITS: u32 = B::BITS;
    /// Length of the canonical encodings: `⌈BITS / 8⌉` bytes.
    pub const BYTES: usize = B::BITS.div_ceil(8) as usize;

    pub(crate) const fn from_repr(repr: B::Repr) -> Self {
        Self {
            repr,
            _backend: PhantomData,
        }
    }

    /// The element `v mod p`.
    pub fn from_u64(v: u64) -> Self {
        let mut x = Self::canon_zero();
        x.as_mut()[0] = v;
        // Every field here is wider than 64 bits, so v < p.
        Self::from_repr(B::from_canonical(&x))
    }

    fn canon_zero() -> B::Uint {
        let mut x = B::MODULUS;
        x.as_mut().fill(0);
        x
    }

    /// The element with least residue `x`, or [`Error::NonCanonical`] when
    /// `x ≥ p`.
    pub fn from_uint(x: &B::Uint) -> Result<Self, Error> {
        if bool::from(x.ct_lt_value(&B::MODULUS)) {
            Ok(Self::from_repr(B::from_canonical(x)))
        } else {
            Err(Error::NonCanonical)
        }
    }

    /// The least residue, in `[0, p)`.
    pub fn to_uint(&self) -> B::Uint {
        B::to_canonical(&self.repr)
    }

    /// Decodes the canonical little-endian encoding: exactly
    /// [`BYTES`](Self::BYTES) bytes holding a value below `p`.
    ///
    /// Errors: [`Error::InvalidLength`], [`Error::NonCanonical`].
    pub fn from_le_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode(bytes, |i| i)
    }

    /// Decodes the canonical big-endian encoding (as [`from_le_bytes`](Self::from_le_bytes)).
    pub fn from_be_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::decode(bytes, |i| bytes.len() - 1 - i)
    }

    fn decode(bytes: &[u8], index: impl Fn(usize) -> usize) -> Result<Self, Error> {
        if bytes.len() != Self::BYTES {
            return Err(Error::InvalidLength {
                expected: Self::BYTES,
                actual: bytes.len(),
            });
        }
        let mut x = Self::canon_zero();
        for (i, limb) in x.as_mut().iter_mut().enumerate() {
            for k in 0..8 {
                let j = 8 * i + k;
                if j < bytes.len() {
                    *limb |= (bytes[index(j)] as Limb) << (8 * k);
                }
            }
        }
        let r = Self::from_uint(&x);
        x.as_mut().zeroize();
        r
    }

    /// Writes the canonical little-endian encoding into `out`, which must be
    /// exactly [`BYTES`](Self::BYTES) long ([`Error::InvalidLength`]
    /// otherwise, and `out` is left alone).
    pub fn write_le_bytes(&self, out: &mut [u8]) -> Result<(), Error> {
        let n = out.len();
        self.encode(out, |i| i, n)
    }

    /// Writes the canonical big-endian encoding (as [`write_le_bytes`](Self::write_le_bytes)).
    pub fn write_be_bytes(&self, out: &mut [u8]) -> Result<(), Error> {
        let n = out.len();
        self.encode(out, |i| n - 1 - i, n)
    }

    fn encode(
        &self,
        out: &mut [u8],
        index: impl Fn(usize) -> usize,
        n: usize,
    ) -> Result<(), Error> {
        if n != Self::BYTES {
            return Err(Error::InvalidLength {
                expected: Self::BYTES,
                actual: n,
            });
        }
        let mut x = self.to_uint();
        for j in 0..n {
            out[index(j)] = (x.as_ref()[j / 8] >> (8 * (j % 8))) as u8;
        }
        x.as_mut().zeroize();
        Ok(())
    }

    /// `self · self`.
    pub fn square(&self) -> Self {
        Self::from_repr(B::square(&self.repr))
    }

    /// `2 · self`, loose (the same as `self + self`).
    pub fn double(&self) -> LooseFp<B> {
        LooseFp::from_repr(B::add(&self.repr, &self.repr))
    }

    /// `k · self` for a small constant `k`: a single-limb multiplication
    /// and a short reduction, cheaper than a full multiplication.
    pub fn mul_small(&self, k: u32) -> Self {
        Self::from_repr(B::mul_small(&self.repr, k))
    }

    /// Whether the element is zero.
    pub fn is_zero(&self) -> Choice {
        let x = self.to_uint();
        x.as_ref().iter().fold(0, |acc, &l| acc | l).ct_eq(&0)
    }

    /// `self^e` for an exponent `e` that is public (little-endian limbs):
    /// the time depends on `e` but not on `self` (4-bit fixed windows).
    pub fn pow_vartime(&self, e: &[Limb]) -> Self {
        let mut table = [Self::ONE; 16];
        for i in 1..16 {
            table[i] = table[i - 1] * self;
        }
        let mut acc = Self::ONE;
        let mut started = false;
        for &limb in e.iter().rev() {
            for w in (0..16).rev() {
                let window = ((limb >> (4 * w)) & 15) as usize;
                if started {
                    acc = acc.square().square().square().square();
                }
                if window != 0 {
                    acc = if started {
                        acc * table[window]
                    } else {
                        table[window]
                    };
                    started = true;
                }
            }
        }
        table.iter_mut().for_each(Zeroize::zeroize);
        acc
    }

    /// `p − k` for a small `k` (public), as limbs.
    fn modulus_minus(k: Limb) -> B::Uint {
        B::MODULUS.wrapping_sub(&B::MODULUS.like_u64(k))
    }

    /// `self⁻¹`, or none for zero: `self^(p−2)` (Fermat), constant time.
    pub fn invert(&self) -> CtOption<Self> {
        let inv = self.pow_vartime(Self::modulus_minus(2).as_ref());
        CtOption::new(inv, !self.is_zero())
    }

    /// The Legendre symbol `(self / p)`: 1 for a non-zero square, −1 for a
    /// non-square, 0 for zero; constant time (Euler's criterion,
    /// `self^((p−1)/2)`).
    pub fn legendre(&self) -> i8 {
        let e = Self::modulus_minus(1).shr_vartime(1);
        let r = self.pow_vartime(e.as_ref());
        let mut symbol = -1i8;
        symbol.conditional_assign(&1, r.ct_eq(&Self::ONE));
        symbol.conditional_assign(&0, self.is_zero());
        symbol
    }
}

impl<B: Backend> LooseFp<B> {
    pub(crate) const fn from_repr(repr: B::Repr) -> Self {
        Self {
            repr,
            _backend: PhantomData,
        }
    }

    /// Brings the value back within the tight bound, so that it can be added
    /// to again. For backends whose loose and tight bounds coincide this is
    /// a copy.
    pub fn reduce(&self) -> Fp<B> {
        Fp::from_repr(B::reduce(&self.repr))
    }

    /// `self · self`.
    pub fn square(&self) -> Fp<B> {
        Fp::from_repr(B::square(&self.repr))
    }
}

impl<B: Backend> From<Fp<B>> for LooseFp<B> {
    /// Every tight value is loose.
    fn from(a: Fp<B>) -> Self {
        Self::from_repr(a.repr)
    }
}

// ---- operators -------------------------------------------------------------

macro_rules! binary {
    ($tr:ident, $f:ident, $lhs:ident, $rhs:ident, $out:ident, $backend_fn:ident) => {
        impl<B: Backend> $tr<&$rhs<B>> for &$lhs<B> {
            type Output = $out<B>;
            #[inline]
            fn $f(self, rhs: &$rhs<B>) -> $out<B> {
                $out::from_repr(B::$backend_fn(&self.repr, &rhs.repr))
            }
        }
        impl<B: Backend> $tr<$rhs<B>> for $lhs<B> {
            type Output = $out<B>;
            #[inline]
            fn $f(self, rhs: $rhs<B>) -> $out<B> {
                $out::from_repr(B::$backend_fn(&self.repr, &rhs.repr))
            }
        }
        impl<B: Backend> $tr<&$rhs<B>> for $lhs<B> {
            type Output = $out<B>;
            #[inline]
            fn $f(self, rhs: &$rhs<B>) -> $out<B> {
                $out::from_repr(B::$backend_fn(&self.repr, &rhs.repr))
            }
        }
        impl<B: Backend> $tr<$rhs<B>> for &$lhs<B> {
            type Output = $out<B>;
            #[inline]
            fn $f(self, rhs: $rhs<B>) -> $out<B> {
                $out::from_repr(B::$backend_fn(&self.repr, &rhs.repr))
            }
        }
    };
}

// Tight + tight → loose; there is deliberately no `+` on a `LooseFp`.
binary!(Add, add, Fp, Fp, LooseFp, add);
binary!(Sub, sub, Fp, Fp, LooseFp, sub);
// Multiplication takes either bound on either side and gives a tight value.
binary!(Mul, mul, Fp, Fp, Fp, mul);
binary!(Mul, mul, Fp, LooseFp, Fp, mul);
binary!(Mul, mul, LooseFp, Fp, Fp, mul);
binary!(Mul, mul, LooseFp, LooseFp, Fp, mul);

impl<B: Backend> Neg for Fp<B> {
    type Output = LooseFp<B>;
    #[inline]
    fn neg(self) -> LooseFp<B> {
        LooseFp::from_repr(B::neg(&self.repr))
    }
}

impl<B: Backend> Neg for &Fp<B> {
    type Output = LooseFp<B>;
    #[inline]
    fn neg(self) -> LooseFp<B> {
        LooseFp::from_repr(B::neg(&self.repr))
    }
}

impl<B: Backend> MulAssign<&Fp<B>> for Fp<B> {
    #[inline]
    fn mul_assign(&mut self, rhs: &Fp<B>) {
        self.repr = B::mul(&self.repr, &rhs.repr);
    }
}

impl<B: Backend> MulAssign<Fp<B>> for Fp<B> {
    #[inline]
    fn mul_assign(&mut self, rhs: Fp<B>) {
        self.repr = B::mul(&self.repr, &rhs.repr);
    }
}

// ---- constant-time traits ----------------------------------------------------

impl<B: Backend> ConstantTimeEq for Fp<B> {
    /// Equality of the least residues (representations need not be unique).
    fn ct_eq(&self, other: &Self) -> Choice {
        let (a, b) = (self.to_uint(), other.to_uint());
        a.as_ref()
            .iter()
            .zip(b.as_ref())
            .fold(0, |acc, (&x, &y)| acc | (x ^ y))
            .ct_eq(&0)
    }
}

impl<B: Backend> PartialEq for Fp<B> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl<B: Backend> Eq for Fp<B> {}

impl<B: Backend> ConditionallySelectable for Fp<B> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self::from_repr(fixed::select(&a.repr, &b.repr, choice))
    }
}

impl<B: Backend> ConditionallySelectable for LooseFp<B> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self::from_repr(fixed::select(&a.repr, &b.repr, choice))
    }
}

impl<B: Backend> Default for Fp<B> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<B: Backend> Zeroize for Fp<B> {
    fn zeroize(&mut self) {
        self.repr.as_mut().zeroize();
    }
}

impl<B: Backend> Zeroize for LooseFp<B> {
    fn zeroize(&mut self) {
        self.repr.as_mut().zeroize();
    }
}

impl<B: Backend> fmt::Debug for Fp<B> {
    /// Prints the least residue: do not log secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fp<{}>(0x", B::NAME)?;
        for limb in self.to_uint().as_ref().iter().rev() {
            write!(f, "{limb:016x}")?;
        }
        f.write_str(")")
    }
}

impl<B: Backend> fmt::Debug for LooseFp<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LooseFp<{}>({:?})", B::NAME, self.reduce())
    }
}
