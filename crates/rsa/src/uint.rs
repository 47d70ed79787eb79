//! [`SecretUint`], a runtime-width integer that zeroizes itself on drop,
//! and [`PrimeModulus`], Montgomery arithmetic modulo one prime factor.

use alloc::vec;
use alloc::vec::Vec;

use numcrypt_limbs::{BoxedUint, Limb, MontyForm, MontyParams, Unsigned, kernels};
use subtle::Choice;
use zeroize::{Zeroize, Zeroizing};

/// A [`BoxedUint`] that zeroizes its limbs when dropped.
///
/// Every value that holds or is derived from a secret lives in one, and so
/// do Montgomery parameters and forms (`MontyParams<SecretUint>`): the
/// parameters modulo `p` hold `p`, and `MontyForm`s modulo `n` hold blinded
/// and unblinded plaintexts. It implements [`Unsigned`], so the limbs
/// crate's arithmetic returns `SecretUint`s and nothing is left behind in
/// freed memory.
#[derive(Clone)]
pub(crate) struct SecretUint(BoxedUint);

impl SecretUint {
    /// Zero with `nlimbs` limbs (at least one).
    pub(crate) fn zero(nlimbs: usize) -> Self {
        SecretUint(BoxedUint::zero(nlimbs))
    }

    /// `v` with `nlimbs` limbs.
    pub(crate) fn from_u64(v: u64, nlimbs: usize) -> Self {
        SecretUint(BoxedUint::from_u64(v, nlimbs))
    }

    /// Takes ownership of `b`'s limbs (which will be zeroized on drop).
    pub(crate) fn from_boxed(b: BoxedUint) -> Self {
        SecretUint(b)
    }

    /// From big-endian bytes at `nlimbs` limbs; `None` if the value needs
    /// more (variable time only in the byte length).
    pub(crate) fn from_be_bytes(bytes: &[u8], nlimbs: usize) -> Option<Self> {
        BoxedUint::from_be_slice(bytes, nlimbs as u32 * Limb::BITS)
            .ok()
            .map(SecretUint)
    }

    /// Big-endian bytes, zero-padded to exactly `len` (the value must fit).
    pub(crate) fn to_be_bytes(&self, len: usize) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(vec![0u8; len]);
        // The callers' values are below the modulus, whose length `len` is.
        let fits = self.write_be_bytes(&mut out);
        debug_assert!(fits.is_ok());
        out
    }

    /// The same value at `nlimbs` limbs: zero-extended, or truncated (the
    /// dropped limbs must be zero: callers size by bit lengths).
    pub(crate) fn resize(&self, nlimbs: usize) -> Self {
        let mut r = Self::zero(nlimbs);
        let k = nlimbs.min(self.nlimbs());
        r.0.as_mut()[..k].copy_from_slice(&self.0.as_ref()[..k]);
        r
    }

    /// A public copy, for values that are not secret (the modulus, `e`).
    pub(crate) fn to_public(&self) -> BoxedUint {
        self.0.clone()
    }

    /// `self - 1` (for `p - 1`; the value is at least 3).
    pub(crate) fn minus_one(&self) -> Self {
        self.wrapping_sub(&self.like_u64(1))
    }
}

impl core::fmt::Debug for SecretUint {
    /// The width only: the value may be secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SecretUint<{} limbs>(..)", self.nlimbs())
    }
}

impl Drop for SecretUint {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

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
        SecretUint(self.0.zero_like())
    }

    fn with_scratch<const K: usize, R>(
        &self,
        nlimbs: usize,
        f: impl FnOnce(&mut [Limb]) -> R,
    ) -> R {
        // BoxedUint's scratch is zeroized after use.
        self.0.with_scratch::<K, R>(nlimbs, f)
    }
}

/// Number of limbs for `bits` bits (at least one).
pub(crate) fn limbs_for(bits: u32) -> usize {
    (bits.div_ceil(Limb::BITS) as usize).max(1)
}

/// Montgomery arithmetic modulo one prime factor of `n`, with what the
/// reduction of a full-width value needs.
#[derive(Clone)]
pub(crate) struct PrimeModulus {
    pub(crate) params: MontyParams<SecretUint>,
    /// `-p^-1 mod 2^64`, for reducing `n`-width values by Montgomery
    /// reduction instead of a division.
    m_inv: Limb,
    /// The bit length of `p` (public: it follows from the key size).
    pub(crate) bits: u32,
}

impl PrimeModulus {
    /// Parameters for the odd prime `p` (at its own width).
    pub(crate) fn new(p: &SecretUint, bits: u32) -> Option<Self> {
        let params = MontyParams::new(p.clone()).ok()?;
        let m_inv = kernels::mont_inverse_limb(p.as_ref()[0]);
        Some(Self {
            params,
            m_inv,
            bits,
        })
    }

    /// The prime.
    pub(crate) fn modulus(&self) -> &SecretUint {
        self.params.modulus()
    }

    /// `x mod p` in Montgomery form, for any `x` below `p·2^(64·limbs(p))`
    /// at most twice `p`'s width: one Montgomery reduction (`x·R^-1`) and
    /// two multiplications by `R²`, in constant time. (A division would
    /// cost a bit-serial pass over `x`: about 60 µs at 2048 bits, against
    /// under 1 µs here.) Other shapes fall back to the division.
    pub(crate) fn reduce(&self, x: &SecretUint, x_below_p_r: bool) -> MontyForm<SecretUint> {
        let np = self.modulus().nlimbs();
        if !x_below_p_r || x.nlimbs() > 2 * np {
            return self.params.to_monty(x);
        }
        let mut wide = Zeroizing::new(vec![0 as Limb; 2 * np]);
        wide[..x.nlimbs()].copy_from_slice(x.as_ref());
        let mut r = SecretUint::zero(np);
        // r = x·R^-1 mod p, fully reduced.
        kernels::mont_redc(r.as_mut(), &mut wide, self.modulus().as_ref(), self.m_inv);
        // to_monty(r) holds x mod p as its raw value; converting that raw
        // value once more gives x·R mod p, the Montgomery form of x.
        let raw = self.params.to_monty(&r);
        self.params.to_monty(raw.as_montgomery())
    }
}

impl Drop for PrimeModulus {
    /// The parameters zeroize themselves; `-p^-1 mod 2^64` holds the low
    /// bits of `p`.
    fn drop(&mut self) {
        self.m_inv.zeroize();
    }
}

impl SecretUint {
    /// Swaps `a` and `b` (of equal widths) when `choice` is set.
    pub(crate) fn conditional_swap_ct(a: &mut Self, b: &mut Self, choice: Choice) {
        BoxedUint::conditional_swap(&mut a.0, &mut b.0, choice);
    }
}
