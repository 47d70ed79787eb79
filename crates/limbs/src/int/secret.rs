//! [`SecretUint`]: the run-time-width integer for secrets.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use subtle::Choice;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::int::boxed::BoxedUint;
use crate::int::unsigned::Unsigned;
use crate::{Error, Limb, monty};

/// A [`BoxedUint`] for secrets: its limbs are wiped when it is dropped, and
/// `Debug` prints its width only.
///
/// Every value that holds or is derived from a secret (a prime factor, a
/// private exponent, a nonce, a plaintext) belongs in one, and so do
/// Montgomery parameters and forms over secret moduli
/// (`MontyParams<SecretUint>`): it implements [`Unsigned`], so the
/// arithmetic returns `SecretUint`s and nothing is left behind in freed
/// memory. [`expose`](Self::expose) gives the public view where a value is
/// public by design (a modulus, a signature).
#[derive(Clone)]
pub struct SecretUint(BoxedUint);

impl SecretUint {
    /// Zero with `nlimbs` limbs (at least one).
    pub fn zero(nlimbs: usize) -> Self {
        Self(BoxedUint::zero(nlimbs))
    }

    /// `v` with `nlimbs` limbs (at least one).
    pub fn from_u64(v: u64, nlimbs: usize) -> Self {
        Self(BoxedUint::from_u64(v, nlimbs))
    }

    /// From big-endian bytes, as [`BoxedUint::from_be_slice`] (variable
    /// time in the byte length only).
    pub fn from_be_slice(bytes: &[u8], bits_precision: u32) -> Result<Self, Error> {
        BoxedUint::from_be_slice(bytes, bits_precision).map(Self)
    }

    /// Big-endian bytes, exactly `len` of them (zero padded), wiped when
    /// dropped; [`Error::Overflow`] if the value needs more.
    pub fn to_be_bytes_len(&self, len: usize) -> Result<Zeroizing<Vec<u8>>, Error> {
        let mut out = Zeroizing::new(vec![0u8; len]);
        self.write_be_bytes(&mut out)?;
        Ok(out)
    }

    /// The same value at `nlimbs` limbs, as [`BoxedUint::at_width`].
    pub fn at_width(&self, nlimbs: usize) -> Self {
        Self(self.0.at_width(nlimbs))
    }

    /// The value, to read where it is public by design (a modulus, a
    /// result about to be published).
    pub fn expose(&self) -> &BoxedUint {
        &self.0
    }

    /// Swaps `a` and `b` (of equal widths) when `choice` is set, in
    /// constant time.
    pub fn conditional_swap(a: &mut Self, b: &mut Self, choice: Choice) {
        BoxedUint::conditional_swap(&mut a.0, &mut b.0, choice);
    }
}

impl From<BoxedUint> for SecretUint {
    /// Takes ownership of the limbs, which are wiped when the result drops.
    fn from(value: BoxedUint) -> Self {
        Self(value)
    }
}

impl fmt::Debug for SecretUint {
    /// The width only: the value may be secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretUint<{} limbs>(..)", self.nlimbs())
    }
}

impl Drop for SecretUint {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl ZeroizeOnDrop for SecretUint {}

impl AsRef<[Limb]> for SecretUint {
    fn as_ref(&self) -> &[Limb] {
        self.0.as_ref()
    }
}

impl AsMut<[Limb]> for SecretUint {
    fn as_mut(&mut self) -> &mut [Limb] {
        self.0.as_mut()
    }
}

impl Unsigned for SecretUint {
    fn zero_like(&self) -> Self {
        Self(self.0.zero_like())
    }

    fn with_scratch<const K: usize, R>(
        &self,
        nlimbs: usize,
        f: impl FnOnce(&mut [Limb]) -> R,
    ) -> R {
        // BoxedUint's scratch is wiped after use.
        self.0.with_scratch::<K, R>(nlimbs, f)
    }

    fn pow_mod(&self, exp: &Self, m: &Self) -> Result<Self, Error> {
        monty::pow_mod(self, exp, m)
    }
}
