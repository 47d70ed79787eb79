//! Montgomery multiplication as an exponentiation sees it: the contract
//! between the exponentiation algorithms (`ops::pow`), which are written
//! once over [`MontMul`], and the backends that run them, which implement
//! it. A backend that runs in a representation of its own (the radix-2^52
//! IFMA backends, radix 2^28 on AVX2 and NEON) is handed an [`ExpJob`]:
//! it converts in, runs the job's algorithm on its [`MontMul`], and
//! converts out, without knowing the algorithm; the algorithm runs on
//! whatever [`MontMul`] it is given, without knowing the backend. Who
//! chooses the backend is above both (`monty`, from
//! `backend::selection`).

use crate::Limb;
use crate::ops::ct;
use crate::ops::kernels::{Kernels, MontModulus};

/// Largest window the exponentiations use; a constant-time table then has
/// 64 entries.
pub(crate) const MAX_WINDOW: u32 = 6;

/// Most values an element holds (and exponentiations a job runs at once):
/// the lanes of the widest multi-buffer backend.
pub(crate) const MAX_VALUES: usize = 8;

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
/// side by side or lane by lane when `K` exponentiations run at once).
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
    /// Words a constant-time exponentiation's table entry takes (the
    /// element length, unless [`store_entry`](Self::store_entry) packs).
    fn entry_len(&self) -> usize {
        self.elem_len()
    }
    /// Writes element `x` to a table `entry` of
    /// [`entry_len`](Self::entry_len) words, in the form
    /// [`lookup`](Self::lookup) reads: a backend whose digits leave half of
    /// each word empty packs two to a word, so that the lookups, which read
    /// the whole table every window, read half as much.
    fn store_entry(&self, entry: &mut [Limb], x: &[Limb]) {
        entry.copy_from_slice(x);
    }
    /// Constant-time `out = table[index]`, reading every entry, the entries
    /// written by [`store_entry`](Self::store_entry). With `K` values in an
    /// element, value `k`'s entry is `index[k]`.
    fn lookup(&self, out: &mut [Limb], table: &[Limb], index: &[Limb]) {
        ct::lookup(out, table, index[0]);
    }
}

/// An exponentiation to run on a backend's arithmetic:
/// `(arith, out, base, one, scratch)`, every element in its representation,
/// `scratch` holding `2^w + 2` elements for the largest window `w`.
pub(crate) type ExpTask<'a> =
    dyn FnMut(&mut dyn MontMul, &mut [Limb], &[Limb], &[Limb], &mut [Limb]) + 'a;

/// An exponentiation for a backend in a representation of its own: `K`
/// moduli of one limb count (`ctxs`), the bases in the limbs' Montgomery
/// form, where the results go, and the exponentiation itself. `K` is 1 for
/// one exponentiation, 2 for an interleaved pair, and the lane count of a
/// multi-buffer backend for a batch (unused lanes repeat a used one).
pub(crate) struct ExpJob<'a, 'c, 't, const K: usize> {
    pub(crate) outs: [&'a mut [Limb]; K],
    pub(crate) bases: [&'a [Limb]; K],
    pub(crate) ctxs: [&'a MontyCtx<'c>; K],
    pub(crate) f: &'a mut ExpTask<'t>,
}

// Used by the vector backends only, which some targets do not build.
#[allow(dead_code)]
impl<const K: usize> ExpJob<'_, '_, '_, K> {
    /// The moduli's common limb count, or `None` if they differ or lack
    /// `R² mod m`.
    pub(crate) fn nlimbs(&self) -> Option<usize> {
        let n = self.ctxs[0].m.limbs().len();
        let uniform = self
            .ctxs
            .iter()
            .all(|c| c.m.limbs().len() == n && c.r2.len() == n);
        uniform.then_some(n)
    }
}

/// Montgomery multiplication on the slice kernels `K` (one value an
/// element), with the double-width scratch they need. Where the kernels
/// have an almost Montgomery reduction of their own at this length
/// ([`Kernels::has_almost_redc`]), elements are only below `R`, and
/// [`finish`](Self::finish) reduces a result below `m`.
pub(crate) struct LimbMontMul<'a, K> {
    k: K,
    m: MontModulus<'a>,
    wide: &'a mut [Limb],
    almost: bool,
}

impl<'a, K: Kernels> LimbMontMul<'a, K> {
    /// `wide` holds `2 n` limbs for the `n`-limb modulus `m`.
    pub(crate) fn new(k: K, m: MontModulus<'a>, wide: &'a mut [Limb]) -> Self {
        let almost = k.has_almost_redc(m.limbs().len());
        Self { k, m, wide, almost }
    }

    /// Brings an element below `m` (fully reduced, the limbs' Montgomery
    /// form): a multiplication by `one` (`R mod m`) with the full reduction,
    /// whose contract `x · one < m R` holds for any `x < R`.
    pub(crate) fn finish(&mut self, x: &mut [Limb], one: &[Limb]) {
        if self.almost {
            self.k.mul(self.wide, x, one);
            self.k.mont_redc(x, self.wide, self.m);
        }
    }
}

impl<K: Kernels> MontMul for LimbMontMul<'_, K> {
    fn elem_len(&self) -> usize {
        self.m.limbs().len()
    }
    fn mul(&mut self, out: &mut [Limb], a: &[Limb], b: &[Limb]) {
        if self.almost {
            self.k.mont_mul_almost(out, a, b, self.m, self.wide);
        } else {
            self.k.mont_mul(out, a, b, self.m, self.wide);
        }
    }
    fn lookup(&self, out: &mut [Limb], table: &[Limb], index: &[Limb]) {
        self.k.lookup(out, table, index[0]);
    }
    fn sqr(&mut self, out: &mut [Limb], a: &[Limb]) {
        if self.almost {
            self.k.mont_sqr_almost(out, a, self.m, self.wide);
        } else {
            self.k.mont_sqr(out, a, self.m, self.wide);
        }
    }
}
