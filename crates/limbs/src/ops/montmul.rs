//! Montgomery multiplication as an exponentiation sees it: the trait every
//! exponentiation backend implements, and what it is told about the
//! modulus. The exponentiations (`ops::pow`) are written once over
//! [`MontMul`]; a backend that runs in a representation of its own (the
//! radix-2^52 IFMA backend) converts in, hands the algorithm its
//! [`MontMul`], and converts out, without knowing the algorithm.

use crate::Limb;
use crate::ops::ct;
use crate::ops::kernels::MontModulus;

/// Largest window the exponentiations use; a constant-time table then has
/// 64 entries.
pub(crate) const MAX_WINDOW: u32 = 6;

/// Everything an exponentiation needs to know about the modulus.
pub(crate) struct MontyCtx<'a> {
    pub(crate) m: MontModulus<'a>,
    /// `R mod m`, the Montgomery form of 1.
    pub(crate) one: &'a [Limb],
    /// `R^2 mod m`, which a representation other than the limbs' own needs
    /// to convert into its Montgomery form. Empty only while the parameters
    /// are being built, when the caller asks for the limb kernels.
    pub(crate) r2: &'a [Limb],
}

/// Montgomery multiplication in an implementation's own representation:
/// elements are slices of [`elem_len`](MontMul::elem_len) words (`n` limbs
/// for the limb kernels, radix-2^52 digits for the IFMA backend, `K` values
/// side by side when `K` exponentiations run interleaved).
pub(crate) trait MontMul {
    /// Words per element.
    fn elem_len(&self) -> usize;
    /// The largest window (table of `2^w` elements) the caller's scratch holds.
    fn max_window(&self) -> u32 {
        MAX_WINDOW
    }
    /// `out = a · b · R⁻¹`; `out` does not alias `a` or `b`.
    fn mul(&mut self, out: &mut [Limb], a: &[Limb], b: &[Limb]);
    /// `out = a² · R⁻¹`; `out` does not alias `a`.
    fn sqr(&mut self, out: &mut [Limb], a: &[Limb]);
    /// Constant-time `out = table[index]`, reading every entry. With `K`
    /// values interleaved, value `k`'s entry is picked by bits
    /// `[32k, 32k + 32)` of `index`.
    fn lookup(&self, out: &mut [Limb], table: &[Limb], index: Limb) {
        ct::lookup(out, table, index);
    }
}

/// An exponentiation to run on a backend's arithmetic:
/// `(arith, out, base, one, scratch)`, every element in its representation,
/// `scratch` holding `2^w + 2` elements for the largest window `w`.
pub(crate) type ExpTask<'a> =
    dyn FnMut(&mut dyn MontMul, &mut [Limb], &[Limb], &[Limb], &mut [Limb]) + 'a;
