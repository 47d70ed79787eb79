//! [`Uint<LIMBS>`]: a fixed-width unsigned integer on the stack.

use core::cmp::Ordering;
use core::fmt;
use core::str::FromStr;

use subtle::{
    Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeGreater, ConstantTimeLess,
};
use zeroize::Zeroize;

#[cfg(feature = "rand_core")]
use crate::int::random::fill_bits;
use crate::monty;
use crate::ops::radix;
use crate::{Error, Limb, Unsigned};

/// An unsigned integer of `LIMBS` 64-bit limbs (least significant first),
/// `Copy` and on the stack. Its arithmetic lives in [`Unsigned`].
// Equality is the constant-time comparison of the same limbs Hash reads.
#[allow(clippy::derived_hash_with_manual_eq)]
#[derive(Clone, Copy, Hash)]
pub struct Uint<const LIMBS: usize> {
    limbs: [Limb; LIMBS],
}

impl<const LIMBS: usize> Uint<LIMBS> {
    /// Zero.
    pub const ZERO: Self = Self { limbs: [0; LIMBS] };
    /// One.
    pub const ONE: Self = Self::from_u64(1);
    /// The largest value, all bits set.
    pub const MAX: Self = Self {
        limbs: [Limb::MAX; LIMBS],
    };
    /// Width in bits.
    pub const BITS: u32 = LIMBS as u32 * Limb::BITS;
    /// Width in bytes.
    pub const BYTES: usize = LIMBS * (Limb::BITS as usize / 8);
    /// Number of limbs.
    pub const LIMBS: usize = LIMBS;

    /// `v` as a `Uint` (zero if `LIMBS` is 0).
    pub const fn from_u64(v: u64) -> Self {
        let mut limbs = [0; LIMBS];
        if LIMBS > 0 {
            limbs[0] = v;
        }
        Self { limbs }
    }

    /// From limbs, least significant first.
    pub const fn from_words(limbs: [Limb; LIMBS]) -> Self {
        Self { limbs }
    }

    /// The limbs, least significant first.
    pub const fn to_words(self) -> [Limb; LIMBS] {
        self.limbs
    }

    /// The limbs as a slice, least significant first.
    pub const fn as_words(&self) -> &[Limb; LIMBS] {
        &self.limbs
    }

    /// From big-endian bytes of any length, as long as the value fits
    /// (leading zero bytes are fine); otherwise [`Error::Overflow`].
    pub fn from_be_slice(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Self::ZERO;
        radix::from_be_bytes(&mut r.limbs, bytes)?;
        Ok(r)
    }

    /// From little-endian bytes of any length, as long as the value fits.
    pub fn from_le_slice(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Self::ZERO;
        radix::from_le_bytes(&mut r.limbs, bytes)?;
        Ok(r)
    }

    /// A uniformly random value of the full width.
    #[cfg(feature = "rand_core")]
    pub fn random<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> Self {
        Self::random_bits(rng, Self::BITS)
    }

    /// A uniformly random value below `2^bits` (bits beyond the width are
    /// ignored).
    #[cfg(feature = "rand_core")]
    pub fn random_bits<R: rand_core::CryptoRng + ?Sized>(rng: &mut R, bits: u32) -> Self {
        let mut r = Self::ZERO;
        fill_bits(rng, &mut r.limbs, bits);
        r
    }

    /// Big-endian bytes of the full width (`Self::BYTES` of them).
    #[cfg(feature = "alloc")]
    pub fn to_be_bytes_vec(&self) -> alloc::vec::Vec<u8> {
        let mut out = alloc::vec![0u8; Self::BYTES];
        // The full width always fits.
        let _ = self.write_be_bytes(&mut out);
        out
    }
}

impl<const LIMBS: usize> Unsigned for Uint<LIMBS> {
    fn pow_mod(&self, exp: &Self, m: &Self) -> Result<Self, Error> {
        monty::pow_mod(self, exp, m)
    }

    fn zero_like(&self) -> Self {
        Self::ZERO
    }

    fn with_scratch<const K: usize, R>(
        &self,
        _nlimbs: usize,
        f: impl FnOnce(&mut [Limb]) -> R,
    ) -> R {
        let mut scratch = [[0 as Limb; LIMBS]; K];
        let r = f(scratch.as_flattened_mut());
        scratch.as_flattened_mut().zeroize();
        r
    }
}

impl<const LIMBS: usize> AsRef<[Limb]> for Uint<LIMBS> {
    fn as_ref(&self) -> &[Limb] {
        &self.limbs
    }
}

impl<const LIMBS: usize> AsMut<[Limb]> for Uint<LIMBS> {
    fn as_mut(&mut self) -> &mut [Limb] {
        &mut self.limbs
    }
}

impl<const LIMBS: usize> Default for Uint<LIMBS> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<const LIMBS: usize> From<u64> for Uint<LIMBS> {
    fn from(v: u64) -> Self {
        Self::from_u64(v)
    }
}

impl<const LIMBS: usize> ConstantTimeEq for Uint<LIMBS> {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.ct_eq_value(other)
    }
}

impl<const LIMBS: usize> ConstantTimeLess for Uint<LIMBS> {
    fn ct_lt(&self, other: &Self) -> Choice {
        self.ct_lt_value(other)
    }
}

impl<const LIMBS: usize> ConstantTimeGreater for Uint<LIMBS> {
    fn ct_gt(&self, other: &Self) -> Choice {
        other.ct_lt_value(self)
    }
}

impl<const LIMBS: usize> ConditionallySelectable for Uint<LIMBS> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mut limbs = a.limbs;
        for (r, y) in limbs.iter_mut().zip(&b.limbs) {
            r.conditional_assign(y, choice);
        }
        Self { limbs }
    }
}

impl<const LIMBS: usize> PartialEq for Uint<LIMBS> {
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl<const LIMBS: usize> Eq for Uint<LIMBS> {}

impl<const LIMBS: usize> Ord for Uint<LIMBS> {
    /// A constant-time comparison; only the resulting `Ordering` is revealed.
    fn cmp(&self, other: &Self) -> Ordering {
        let lt = self.ct_lt(other);
        let gt = self.ct_gt(other);
        let code = i8::conditional_select(&0, &-1, lt) | i8::conditional_select(&0, &1, gt);
        code.cmp(&0)
    }
}

impl<const LIMBS: usize> PartialOrd for Uint<LIMBS> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const LIMBS: usize> Zeroize for Uint<LIMBS> {
    fn zeroize(&mut self) {
        self.limbs.zeroize();
    }
}

impl<const LIMBS: usize> FromStr for Uint<LIMBS> {
    type Err = Error;

    /// Decimal, or hexadecimal after `0x`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let mut r = Self::ZERO;
        radix::parse(&mut r.limbs, s)?;
        Ok(r)
    }
}

impl<const LIMBS: usize> fmt::Display for Uint<LIMBS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if LIMBS == 0 {
            return f.write_str("0");
        }
        // Working copy plus base-10^19 chunks: 2 LIMBS + 2 <= 4 LIMBS limbs.
        self.with_scratch::<4, _>(LIMBS, |scratch| radix::fmt_decimal(&self.limbs, f, scratch))
    }
}

impl<const LIMBS: usize> fmt::LowerHex for Uint<LIMBS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        radix::fmt_hex(&self.limbs, f, false)
    }
}

impl<const LIMBS: usize> fmt::UpperHex for Uint<LIMBS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        radix::fmt_hex(&self.limbs, f, true)
    }
}

impl<const LIMBS: usize> fmt::Debug for Uint<LIMBS> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uint<{LIMBS}>({self:#x})")
    }
}

macro_rules! uint_aliases {
    ($($name:ident => $bits:literal),* $(,)?) => {$(
        #[doc = concat!("A ", stringify!($bits), "-bit unsigned integer.")]
        pub type $name = Uint<{ $bits / 64 }>;
    )*};
}

uint_aliases! {
    U64 => 64, U128 => 128, U192 => 192, U256 => 256, U320 => 320, U384 => 384,
    U448 => 448, U512 => 512, U576 => 576, U640 => 640, U768 => 768, U896 => 896,
    U1024 => 1024, U1088 => 1088, U1536 => 1536, U2048 => 2048, U3072 => 3072,
    U4096 => 4096, U6144 => 6144, U8192 => 8192,
}
