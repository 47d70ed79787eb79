//! [`BoxedUint`]: an unsigned integer whose width is chosen at run time.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;
use core::str::FromStr;

use subtle::{
    Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeGreater, ConstantTimeLess,
};
use zeroize::Zeroize;

#[cfg(feature = "rand_core")]
use crate::int::random::fill_bits;
use crate::int::width::limbs_for_bits;
use crate::monty;
use crate::ops::{ct, radix};
use crate::{Error, Limb, Uint, Unsigned};

/// An unsigned integer of a fixed number of limbs chosen at run time (an RSA
/// key read from a file), on the heap. Its arithmetic lives in [`Unsigned`],
/// shared with [`Uint`]; results take the width of `self` (or of the modulus
/// or divisor, for reductions).
///
/// Equality and ordering compare values, so `BoxedUint`s of different widths
/// holding the same number are equal.
#[derive(Clone)]
pub struct BoxedUint {
    limbs: Box<[Limb]>,
}

impl BoxedUint {
    /// Zero with `nlimbs` limbs (at least one).
    pub fn zero(nlimbs: usize) -> Self {
        Self {
            limbs: vec![0; nlimbs.max(1)].into_boxed_slice(),
        }
    }

    /// Zero wide enough for `bits` bits.
    pub fn zero_with_bits(bits: u32) -> Self {
        Self::zero(limbs_for_bits(bits))
    }

    /// `v` with `nlimbs` limbs (at least one).
    pub fn from_u64(v: u64, nlimbs: usize) -> Self {
        let mut r = Self::zero(nlimbs);
        r.limbs[0] = v;
        r
    }

    /// From limbs, least significant first (an empty vector gives one zero limb).
    pub fn from_words(limbs: Vec<Limb>) -> Self {
        if limbs.is_empty() {
            return Self::zero(1);
        }
        Self {
            limbs: limbs.into_boxed_slice(),
        }
    }

    /// The limbs, least significant first.
    pub fn as_words(&self) -> &[Limb] {
        &self.limbs
    }

    /// From big-endian bytes, at a width of `bits_precision` bits;
    /// [`Error::Overflow`] if the value does not fit it.
    pub fn from_be_slice(bytes: &[u8], bits_precision: u32) -> Result<Self, Error> {
        let mut r = Self::zero_with_bits(bits_precision);
        radix::from_be_bytes(&mut r.limbs, bytes)?;
        r.check_fits_bits(bits_precision)?;
        Ok(r)
    }

    /// From little-endian bytes, at a width of `bits_precision` bits.
    pub fn from_le_slice(bytes: &[u8], bits_precision: u32) -> Result<Self, Error> {
        let mut r = Self::zero_with_bits(bits_precision);
        radix::from_le_bytes(&mut r.limbs, bytes)?;
        r.check_fits_bits(bits_precision)?;
        Ok(r)
    }

    /// From big-endian bytes, at the width the byte length implies.
    pub fn from_be_slice_auto(bytes: &[u8]) -> Self {
        let mut r = Self::zero(bytes.len().div_ceil(8));
        // The width was chosen to fit every byte.
        let _ = radix::from_be_bytes(&mut r.limbs, bytes);
        r
    }

    /// Rejects (and zeroes) a value of `bits_precision` limbs that needs more
    /// than `bits` bits; a width of 0 bits holds only zero.
    fn check_fits_bits(&mut self, bits: u32) -> Result<(), Error> {
        let top = self.limbs[self.limbs.len() - 1];
        let excess = match bits % Limb::BITS {
            0 if bits == 0 => top,
            0 => 0,
            used => top >> used,
        };
        if excess != 0 {
            self.limbs.zeroize();
            return Err(Error::Overflow);
        }
        Ok(())
    }

    /// Big-endian bytes of the full width (8 per limb).
    pub fn to_be_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.limbs.len() * 8];
        let _ = radix::to_be_bytes(&self.limbs, &mut out);
        out
    }

    /// The same value with `nlimbs` limbs: zero-extended, or truncated when
    /// the dropped limbs are zero ([`Error::Overflow`] otherwise).
    pub fn resize(&self, nlimbs: usize) -> Result<Self, Error> {
        let mut r = Self::zero(nlimbs);
        let k = r.limbs.len().min(self.limbs.len());
        // An overflow is reported, so its verdict is public.
        if !crate::ct_audit::declassify_choice(ct::is_zero(&self.limbs[k..])) {
            return Err(Error::Overflow);
        }
        r.limbs[..k].copy_from_slice(&self.limbs[..k]);
        Ok(r)
    }

    /// The value at `nlimbs` limbs: zero-extended, or cut to its low
    /// `nlimbs` limbs (the value modulo `2^(64 nlimbs)`), for a caller that
    /// knows it fits or checks validity on the full value;
    /// [`resize`](Self::resize) refuses to cut a non-zero limb instead.
    pub fn at_width(&self, nlimbs: usize) -> Self {
        let mut out = Self::zero(nlimbs);
        let k = out.nlimbs().min(self.nlimbs());
        out.as_mut()[..k].copy_from_slice(&self.as_ref()[..k]);
        out
    }

    /// Big-endian bytes, exactly `len` of them (zero padded);
    /// [`Error::Overflow`] if the value needs more.
    pub fn to_be_bytes_len(&self, len: usize) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; len];
        self.write_be_bytes(&mut out)?;
        Ok(out)
    }

    /// Minimal big-endian bytes (no leading zero byte; one byte for zero),
    /// as DER and JWK write integers. Variable time in the value's length:
    /// for public values, or where the encoding reveals the length anyway.
    pub fn to_be_bytes_minimal_vartime(&self) -> Vec<u8> {
        let bytes = self.to_be_bytes();
        let start = bytes
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(bytes.len() - 1);
        bytes[start..].to_vec()
    }

    /// A uniformly random value below `2^bits`, with `nlimbs` limbs.
    #[cfg(feature = "rand_core")]
    pub fn random_bits<R: rand_core::CryptoRng + ?Sized>(
        rng: &mut R,
        bits: u32,
        nlimbs: usize,
    ) -> Self {
        let mut r = Self::zero(nlimbs);
        fill_bits(rng, &mut r.limbs, bits);
        r
    }

    /// `self = if choice { other } else { self }`; the widths must match
    /// (otherwise nothing changes, and the mismatch is public).
    pub fn conditional_assign(&mut self, other: &Self, choice: Choice) {
        if self.limbs.len() == other.limbs.len() {
            ct::assign_if(&mut self.limbs, &other.limbs, choice);
        }
    }

    /// Swaps `a` and `b` when `choice` is true; the widths must match
    /// (otherwise nothing changes).
    pub fn conditional_swap(a: &mut Self, b: &mut Self, choice: Choice) {
        if a.limbs.len() == b.limbs.len() {
            ct::swap_if(&mut a.limbs, &mut b.limbs, choice);
        }
    }
}

impl Unsigned for BoxedUint {
    fn pow_mod(&self, exp: &Self, m: &Self) -> Result<Self, Error> {
        monty::pow_mod(self, exp, m)
    }

    fn zero_like(&self) -> Self {
        Self::zero(self.limbs.len())
    }

    fn with_scratch<const K: usize, R>(
        &self,
        nlimbs: usize,
        f: impl FnOnce(&mut [Limb]) -> R,
    ) -> R {
        let mut scratch = vec![0 as Limb; K * nlimbs.max(self.limbs.len())];
        let r = f(&mut scratch);
        scratch.zeroize();
        r
    }
}

impl AsRef<[Limb]> for BoxedUint {
    fn as_ref(&self) -> &[Limb] {
        &self.limbs
    }
}

impl AsMut<[Limb]> for BoxedUint {
    fn as_mut(&mut self) -> &mut [Limb] {
        &mut self.limbs
    }
}

impl<const LIMBS: usize> From<Uint<LIMBS>> for BoxedUint {
    fn from(u: Uint<LIMBS>) -> Self {
        Self::from_words(u.to_words().to_vec())
    }
}

impl<const LIMBS: usize> TryFrom<&BoxedUint> for Uint<LIMBS> {
    type Error = Error;

    /// Fails with [`Error::Overflow`] when the value needs more than `LIMBS` limbs.
    fn try_from(b: &BoxedUint) -> Result<Self, Error> {
        let resized = b.resize(LIMBS)?;
        let mut words = [0; LIMBS];
        words.copy_from_slice(&resized.limbs[..LIMBS]);
        Ok(Uint::from_words(words))
    }
}

impl ConstantTimeEq for BoxedUint {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.ct_eq_value(other)
    }
}

impl ConstantTimeLess for BoxedUint {
    fn ct_lt(&self, other: &Self) -> Choice {
        self.ct_lt_value(other)
    }
}

impl ConstantTimeGreater for BoxedUint {
    fn ct_gt(&self, other: &Self) -> Choice {
        other.ct_lt_value(self)
    }
}

impl PartialEq for BoxedUint {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl Eq for BoxedUint {}

impl core::hash::Hash for BoxedUint {
    /// Hashes the value (its significant limbs), so that equal values of
    /// different widths hash alike. Variable time, like any hash.
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        let n = self
            .limbs
            .iter()
            .rposition(|&x| x != 0)
            .map_or(0, |i| i + 1);
        self.limbs[..n].hash(state);
    }
}

impl Ord for BoxedUint {
    fn cmp(&self, other: &Self) -> Ordering {
        let lt = self.ct_lt(other);
        let gt = self.ct_gt(other);
        let code = i8::conditional_select(&0, &-1, lt) | i8::conditional_select(&0, &1, gt);
        code.cmp(&0)
    }
}

impl PartialOrd for BoxedUint {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Zeroize for BoxedUint {
    fn zeroize(&mut self) {
        self.limbs.zeroize();
    }
}

impl FromStr for BoxedUint {
    type Err = Error;

    /// Decimal, or hexadecimal after `0x`, at the smallest width that holds
    /// any number with that many digits.
    fn from_str(s: &str) -> Result<Self, Error> {
        let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
        // A decimal digit is under 3.33 bits, a hex digit exactly 4.
        let bits = match digits {
            Some(hex) => hex.len() * 4,
            None => s.len() * 10 / 3 + 1,
        };
        let mut r = Self::zero(limbs_for_bits(bits as u32));
        radix::parse(&mut r.limbs, s)?;
        Ok(r)
    }
}

impl fmt::Display for BoxedUint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_scratch::<4, _>(self.limbs.len(), |scratch| {
            radix::fmt_decimal(&self.limbs, f, scratch)
        })
    }
}

impl fmt::LowerHex for BoxedUint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        radix::fmt_hex(&self.limbs, f, false)
    }
}

impl fmt::UpperHex for BoxedUint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        radix::fmt_hex(&self.limbs, f, true)
    }
}

impl fmt::Debug for BoxedUint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BoxedUint<{}>({self:#x})", self.limbs.len())
    }
}
