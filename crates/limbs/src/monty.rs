//! Montgomery arithmetic modulo an odd `m`: parameters, elements and
//! exponentiation, for every [`Unsigned`] width.

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use crate::backend::race::Lap;
use crate::backend::{
    BATCH, DataIndependentTiming, Exponentiation, SHORT_EXPONENT, SHORT_EXPONENT_BITS, dispatch,
    run_exponentiation, selection,
};
use crate::ct_audit::{self, Declassify};
use crate::int::unsigned::Unsigned;
use crate::kernels::MontModulus;
use crate::ops::montmul::{ExpJob, ExpTask, LimbMontMul, MontyCtx};
use crate::ops::pow::{self, POW_SCRATCH_MULTIPLE};
use crate::ops::{ct, div, modular};
use crate::{Error, Limb, kernels};

/// Precomputed constants for arithmetic modulo an odd `m > 1` in Montgomery
/// form (`x` is held as `x·R mod m`, `R = 2^width`).
///
/// Construction is constant time in the modulus (a secret prime factor is a
/// fine modulus); it reveals only the width, the number of significant limbs
/// (the modulus' size to within 64 bits, public for any RSA modulus or prime
/// of a stated size) and whether the modulus is valid.
///
/// The parameters are zeroized when dropped (the modulus may be a secret
/// prime), and `Debug` prints only the width.
#[derive(Clone)]
pub struct MontyParams<U: Unsigned> {
    modulus: U,
    /// `R mod m`: the Montgomery form of 1.
    one: U,
    /// `R^2 mod m`: multiplying by it converts into Montgomery form.
    r2: U,
    /// `-m^-1 mod 2^64`.
    m_inv: Limb,
}

/// A residue in Montgomery form, made by (and only meaningful with) the
/// [`MontyParams`] that created it. Always fully reduced, below the modulus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MontyForm<U>(pub(crate) U);

impl<U: Unsigned> MontyForm<U> {
    /// The raw Montgomery representation `x·R mod m`.
    pub fn as_montgomery(&self) -> &U {
        &self.0
    }

    /// `self = other` when `choice` is set, in constant time (both made by
    /// the same parameters, so of the same width).
    pub fn conditional_assign(&mut self, other: &Self, choice: Choice) {
        ct::assign_if(self.0.as_mut(), other.0.as_ref(), choice);
    }
}

impl<U: Unsigned> ConstantTimeEq for MontyForm<U> {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.0.ct_eq_value(&other.0)
    }
}

impl<U: Unsigned + Copy + ConditionallySelectable> ConditionallySelectable for MontyForm<U> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        MontyForm(U::conditional_select(&a.0, &b.0, choice))
    }
}

impl<U: Unsigned> Declassify for MontyForm<U> {
    fn declassify(&mut self) {
        ct_audit::declassify(self.0.as_mut());
    }
}

impl<U: Unsigned> Zeroize for MontyForm<U> {
    fn zeroize(&mut self) {
        self.0.as_mut().zeroize();
    }
}

impl<U: Unsigned> Zeroize for MontyParams<U> {
    fn zeroize(&mut self) {
        self.modulus.as_mut().zeroize();
        self.one.as_mut().zeroize();
        self.r2.as_mut().zeroize();
        self.m_inv.zeroize();
    }
}

impl<U: Unsigned> Drop for MontyParams<U> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<U: Unsigned> core::fmt::Debug for MontyParams<U> {
    /// The width only: the modulus may be secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "MontyParams<{} limbs>(..)", self.modulus.nlimbs())
    }
}

/// One exponentiation of a [`pow_bounded_pair`](MontyParams::pow_bounded_pair):
/// the modulus' parameters, the base, and the exponent's limbs.
pub type PowOperand<'a, U> = (&'a MontyParams<U>, &'a MontyForm<U>, &'a [Limb]);

impl<U: Unsigned> MontyParams<U> {
    /// Parameters for the odd modulus `modulus > 1`.
    ///
    /// Errors: [`Error::DivisionByZero`] for 0, [`Error::ModulusTooSmall`]
    /// for 1, [`Error::EvenModulus`] for an even modulus.
    pub fn new(modulus: U) -> Result<Self, Error> {
        use ct_audit::declassify_choice as public;
        if public(modulus.is_zero()) {
            return Err(Error::DivisionByZero);
        }
        if !public(modulus.is_odd()) {
            return Err(Error::EvenModulus);
        }
        if public(modulus.ct_eq_value(&modulus.like_u64(1))) {
            return Err(Error::ModulusTooSmall);
        }
        let m = modulus.as_ref();
        let n = m.len();
        let m_inv = kernels::mont_inverse_limb(m[0]);

        // R mod m = (R - m) mod m, and R - m is m's two's complement. Its
        // top limbs need no reduction (see `rem_ct_public_len`): for a
        // modulus whose top limb is non-zero only 64 bits go through the
        // bit-serial division (benches/RESULTS.md, "Design figures").
        let mut one = modulus.zero_like();
        let neg_m = modulus.wrapping_neg();
        div::rem_ct_public_len(one.as_mut(), neg_m.as_ref(), m);

        // R^2 mod m = (2R)^(64n) in Montgomery arithmetic: 2^(64n)·R = R·R.
        let mut two = one.clone();
        modular::add_mod(two.as_mut(), one.as_ref(), m);
        let mut r2 = modulus.zero_like();
        let exponent = modulus.like_u64(n as u64 * Limb::BITS as u64);
        modulus.with_scratch::<POW_SCRATCH_MULTIPLE, _>(n, |scratch| {
            // R² is what an exponentiation backend of its own representation
            // converts with: until it exists, only the limb kernels can run.
            let ctx = MontyCtx {
                m: MontModulus::with_inverse(m, m_inv),
                one: one.as_ref(),
                r2: &[],
            };
            exp_vartime(
                Exponentiation::LimbKernels,
                r2.as_mut(),
                two.as_ref(),
                exponent.as_ref(),
                &ctx,
                scratch,
            );
        });
        Ok(Self {
            modulus,
            one,
            r2,
            m_inv,
        })
    }

    /// The modulus.
    pub fn modulus(&self) -> &U {
        &self.modulus
    }

    /// The modulus with its Montgomery constant, as the slice kernels
    /// ([`kernels::mont_redc`] and the others) take it.
    pub fn mont_modulus(&self) -> MontModulus<'_> {
        MontModulus::with_inverse(self.modulus.as_ref(), self.m_inv)
    }

    fn ctx(&self) -> MontyCtx<'_> {
        MontyCtx {
            m: self.mont_modulus(),
            one: self.one.as_ref(),
            r2: self.r2.as_ref(),
        }
    }

    /// The Montgomery form of 1.
    pub fn one(&self) -> MontyForm<U> {
        MontyForm(self.one.clone())
    }

    /// The Montgomery form of 0.
    pub fn zero(&self) -> MontyForm<U> {
        MontyForm(self.modulus.zero_like())
    }

    /// Converts any `x` (of any width; it is reduced) into Montgomery form.
    pub fn to_monty(&self, x: &U) -> MontyForm<U> {
        let n = self.modulus.nlimbs();
        let mut out = self.modulus.zero_like();
        self.modulus.with_scratch::<3, _>(n, |scratch| {
            let (reduced, wide) = scratch.split_at_mut(n);
            if x.nlimbs() <= n {
                // Montgomery multiplication accepts any first operand below R.
                reduced[..x.nlimbs()].copy_from_slice(x.as_ref());
            } else {
                div::div_rem_ct(None, reduced, x.as_ref(), self.modulus.as_ref());
            }
            kernels::mont_mul(
                out.as_mut(),
                reduced,
                self.r2.as_ref(),
                self.mont_modulus(),
                wide,
            );
        });
        MontyForm(out)
    }

    /// Converts out of Montgomery form: the residue in `[0, m)`.
    pub fn from_monty(&self, x: &MontyForm<U>) -> U {
        let n = self.modulus.nlimbs();
        let mut out = self.modulus.zero_like();
        // x·R^-1 is one reduction of x, zero-extended to 2n limbs.
        self.modulus.with_scratch::<2, _>(n, |wide| {
            wide[..n].copy_from_slice(x.0.as_ref());
            kernels::mont_redc(out.as_mut(), wide, self.mont_modulus());
        });
        out
    }

    /// `a · b`.
    pub fn mul(&self, a: &MontyForm<U>, b: &MontyForm<U>) -> MontyForm<U> {
        MontyForm(self.mont_mul(a.0.as_ref(), Some(b.0.as_ref())))
    }

    /// `a²`, through the dedicated squaring kernel.
    pub fn square(&self, a: &MontyForm<U>) -> MontyForm<U> {
        MontyForm(self.mont_mul(a.0.as_ref(), None))
    }

    /// Squares `x` `count` times in place, calling `visit(j, x^(2^j))`
    /// after the `j`-th squaring: [`square`](Self::square) in a chain, on
    /// one scratch for the whole chain where `square` takes its own each
    /// time (a Miller–Rabin round's tail makes 31 squarings).
    pub fn square_repeatedly(
        &self,
        x: &mut MontyForm<U>,
        count: u32,
        mut visit: impl FnMut(u32, &MontyForm<U>),
    ) {
        let m = self.mont_modulus();
        let mut other = self.zero();
        self.modulus.with_scratch::<2, _>(m.limbs().len(), |wide| {
            for j in 1..=count {
                let (out, a) = (other.0.as_mut(), x.0.as_ref());
                if !kernels::mont_mul_unrolled(out, a, a, m) {
                    kernels::mont_sqr(out, a, m, wide);
                }
                core::mem::swap(x, &mut other);
                visit(j, x);
            }
        });
        other.zeroize();
    }

    /// `a · b · R⁻¹ mod m`, or `a² · R⁻¹ mod m` when `b` is `None`. A length
    /// with an unrolled kernel needs no scratch, which keeps the smallest
    /// sizes free of the scratch's setup and zeroing.
    fn mont_mul(&self, a: &[Limb], b: Option<&[Limb]>) -> U {
        let m = self.mont_modulus();
        let mut out = self.modulus.zero_like();
        if kernels::mont_mul_unrolled(out.as_mut(), a, b.unwrap_or(a), m) {
            return out;
        }
        self.modulus
            .with_scratch::<2, _>(m.limbs().len(), |wide| match b {
                Some(b) => kernels::mont_mul(out.as_mut(), a, b, m, wide),
                None => kernels::mont_sqr(out.as_mut(), a, m, wide),
            });
        out
    }

    /// `a + b`.
    pub fn add(&self, a: &MontyForm<U>, b: &MontyForm<U>) -> MontyForm<U> {
        let mut out = a.0.clone();
        modular::add_mod(out.as_mut(), b.0.as_ref(), self.modulus.as_ref());
        MontyForm(out)
    }

    /// `a - b`.
    pub fn sub(&self, a: &MontyForm<U>, b: &MontyForm<U>) -> MontyForm<U> {
        let mut out = a.0.clone();
        modular::sub_mod(out.as_mut(), b.0.as_ref(), self.modulus.as_ref());
        MontyForm(out)
    }

    /// `-a`.
    pub fn neg(&self, a: &MontyForm<U>) -> MontyForm<U> {
        let mut out = a.0.clone();
        modular::neg_mod(out.as_mut(), self.modulus.as_ref());
        MontyForm(out)
    }

    /// `a^-1` in constant time, or [`Error::NotInvertible`].
    pub fn invert(&self, a: &MontyForm<U>) -> Result<MontyForm<U>, Error> {
        // (aR)^-1 = a^-1 R^-1; two multiplications by R^2 give a^-1 R.
        let inv = a.0.inv_mod(&self.modulus)?;
        let once = self.mul(&MontyForm(inv), &MontyForm(self.r2.clone()));
        Ok(self.mul(&once, &MontyForm(self.r2.clone())))
    }

    /// `base^exp` in constant time, over the full width of `exp`: the time
    /// depends on the widths only.
    pub fn pow(&self, base: &MontyForm<U>, exp: &impl AsRef<[Limb]>) -> MontyForm<U> {
        let bits = exp.as_ref().len() as u32 * Limb::BITS;
        self.pow_bounded(base, exp, bits)
    }

    /// `base^e` in constant time, where `e` is the low `exp_bits` bits of
    /// `exp`: the time depends on `exp_bits` (public) and the widths only.
    ///
    /// It runs on the implementation [`selection`](crate::backend::selection)
    /// picks for this modulus size: on x86_64 CPUs with AVX-512 IFMA,
    /// moduli from 1024 bits run in radix 2^52 (see
    /// [`Exponentiation`]).
    pub fn pow_bounded(
        &self,
        base: &MontyForm<U>,
        exp: &impl AsRef<[Limb]>,
        exp_bits: u32,
    ) -> MontyForm<U> {
        let n = self.modulus.nlimbs();
        let (backend, lap) = selection().exponentiation_to_run(n, 1);
        let out = self.pow_ct_on(backend, base, exp, exp_bits);
        lap.finish(n, exp_bits);
        out
    }

    /// [`pow_bounded`](Self::pow_bounded) on the implementation named, or
    /// `None` if it cannot run here (see [`Exponentiation::available`]):
    /// for comparing implementations, as the tests and benches do.
    pub fn pow_bounded_on(
        &self,
        backend: Exponentiation,
        base: &MontyForm<U>,
        exp: &impl AsRef<[Limb]>,
        exp_bits: u32,
    ) -> Option<MontyForm<U>> {
        backend
            .available(self.modulus.nlimbs(), 1)
            .then(|| self.pow_ct_on(backend, base, exp, exp_bits))
    }

    /// Two constant-time exponentiations, `base^e` modulo each operand's
    /// modulus for `e` the low `exp_bits` bits of its exponent, as
    /// [`pow_bounded`](Self::pow_bounded) computes each (RSA's two CRT
    /// halves are the use).
    ///
    /// On the IFMA backend, with moduli of the same limb count, both run in
    /// one pass whose multiplication loop interleaves them, which fills one's
    /// serial latency with the other's products, where that measured faster
    /// than one after the other; otherwise (moduli of two limb counts, or
    /// [`Exponentiation::Apart`] chosen for their size) they run one after
    /// the other, each on the backend that [`pow_bounded`](Self::pow_bounded)
    /// chooses for its size.
    pub fn pow_bounded_pair(pair: [PowOperand<'_, U>; 2], exp_bits: u32) -> [MontyForm<U>; 2] {
        let n = pair[0].0.modulus.nlimbs();
        let (backend, lap) = match pair[1].0.modulus.nlimbs() == n {
            true => selection().exponentiation_to_run(n, 2),
            false => (Exponentiation::Apart, Lap::idle()),
        };
        let out = Self::pow_pair_on(backend, pair, exp_bits);
        lap.finish(n, exp_bits);
        out
    }

    /// [`pow_bounded_pair`](Self::pow_bounded_pair) on the implementation
    /// named (the limb kernels and [`Exponentiation::Apart`] run the two one
    /// after the other), or `None` if it cannot run both moduli here.
    pub fn pow_bounded_pair_on(
        backend: Exponentiation,
        pair: [PowOperand<'_, U>; 2],
        exp_bits: u32,
    ) -> Option<[MontyForm<U>; 2]> {
        let n = pair[0].0.modulus.nlimbs();
        let same = pair[1].0.modulus.nlimbs() == n;
        let ok = !backend.interleaves() || (same && backend.available(n, 2));
        ok.then(|| Self::pow_pair_on(backend, pair, exp_bits))
    }

    fn pow_pair_on(
        backend: Exponentiation,
        pair: [PowOperand<'_, U>; 2],
        exp_bits: u32,
    ) -> [MontyForm<U>; 2] {
        let _dit = DataIndependentTiming::enable();
        if !backend.interleaves() {
            return pair.map(|(params, base, exp)| params.pow_ct_on(backend, base, &exp, exp_bits));
        }
        // Bits past an exponent's end read as zero: clamp to the wider.
        let width = pair[0].2.len().max(pair[1].2.len()) as u32 * Limb::BITS;
        let mut outs = pair.map(|(params, _, _)| params.modulus.zero_like());
        let [out0, out1] = &mut outs;
        exp_ct_pair(
            backend,
            [out0.as_mut(), out1.as_mut()],
            pair.map(|(_, base, _)| base.0.as_ref()),
            pair.map(|(_, _, exp)| exp),
            exp_bits.min(width),
            [&pair[0].0.ctx(), &pair[1].0.ctx()],
        );
        outs.map(MontyForm)
    }

    /// Constant-time exponentiations in a batch: `out[i] = base^e` modulo
    /// operand `i`'s modulus, for `e` the low `exp_bits` bits of its
    /// exponent, as [`pow_bounded`](Self::pow_bounded) computes each. Every
    /// operand has its own modulus, base and exponent (RSA's CRT halves of
    /// many signatures; Miller–Rabin rounds of one candidate).
    ///
    /// Where [`selection`](crate::backend::selection) has a batch kernel
    /// for the moduli's size that beats pairs
    /// ([`Selection::batch_exponentiation`](crate::backend::Selection::batch_exponentiation);
    /// all moduli of one limb count), the operands run as many a pass as it
    /// has lanes (eight with AVX-512 IFMA, four with AVX2), the last pass
    /// padded with copies of its first operand whose results are dropped,
    /// except that a last pass too short to pay for itself runs in pairs
    /// (one of fewer operands than a pass costs exponentiations in pairs
    /// on this CPU: four on Sapphire Rapids, seven on Zen 4); otherwise
    /// they run in pairs
    /// ([`pow_bounded_pair`](Self::pow_bounded_pair)). Where batch kernels
    /// and pairs race at this size
    /// ([`Selection::racers`](crate::backend::Selection::racers)), the one
    /// leading runs, and now and then another.
    /// The time depends on the number of operands, the widths and
    /// `exp_bits` only.
    ///
    /// Errors: [`Error::LengthMismatch`] when `out` and `operands` differ
    /// in length (nothing is written).
    pub fn pow_bounded_batch(
        operands: &[PowOperand<'_, U>],
        exp_bits: u32,
        out: &mut [MontyForm<U>],
    ) -> Result<(), Error> {
        if out.len() != operands.len() {
            return Err(Error::LengthMismatch);
        }
        let Some(n) = uniform_limbs(operands.iter().map(|op| op.0)) else {
            Self::pow_in_pairs(operands, exp_bits, out);
            return Ok(());
        };
        // A race times only batches that every racer runs at its full
        // width (a pass of eight lanes, two of four, four pairs at least)
        // to full-length exponents; others run on the leader.
        let (backend, lap) = match operands.len() >= BATCH && exp_bits as usize >= 16 * n {
            true => selection().batch_exponentiation_to_run(n),
            false => (selection().batch_exponentiation(n), Lap::idle()),
        };
        // What runs at the backend's full width, its lap counting each
        // operand's share: the passes, or, where no batch kernel is
        // chosen, the pairs (on their own choice).
        let full = match backend.lanes() {
            1 => operands.len() & !1,
            lanes => in_passes(operands.len(), lanes),
        };
        let ((ops, rest), (outs, rest_out)) = (operands.split_at(full), out.split_at_mut(full));
        match backend.lanes() {
            1 => Self::pow_in_pairs(ops, exp_bits, outs),
            _ => Self::pow_batch_on(backend, ops, exp_bits, outs),
        }
        lap.finish_shared(n, exp_bits, full);
        Self::pow_in_pairs(rest, exp_bits, rest_out);
        Ok(())
    }

    /// `base^e` in constant time for `e` the low `exp_bits` bits of each
    /// exponent, in order, as [`pow_bounded`](Self::pow_bounded) computes
    /// each: one base, many exponents, run as
    /// [`pow_bounded_batch`](Self::pow_bounded_batch) runs them (many
    /// signatures' `g^k` with one key is the use). The time depends on the
    /// number of exponents, the widths and `exp_bits` only.
    #[cfg(feature = "alloc")]
    pub fn pow_bounded_fixed_base_batch(
        &self,
        base: &MontyForm<U>,
        exps: &[&[Limb]],
        exp_bits: u32,
    ) -> alloc::vec::Vec<MontyForm<U>> {
        let mut out = alloc::vec![self.zero(); exps.len()];
        for (exps, out) in exps.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let operands: [PowOperand<'_, U>; BATCH] =
                core::array::from_fn(|i| (self, base, exps[i.min(exps.len() - 1)]));
            // `out` has one slot an operand: the batch runs.
            let _ = Self::pow_bounded_batch(&operands[..exps.len()], exp_bits, out);
        }
        out
    }

    /// The operands in pairs where two neighbours have one limb count
    /// ([`pow_bounded_pair`](Self::pow_bounded_pair)), singly otherwise.
    fn pow_in_pairs(operands: &[PowOperand<'_, U>], exp_bits: u32, out: &mut [MontyForm<U>]) {
        for (ops, out) in operands.chunks(2).zip(out.chunks_mut(2)) {
            match (ops, &mut *out) {
                ([a, b], [x, y]) if a.0.modulus.nlimbs() == b.0.modulus.nlimbs() => {
                    [*x, *y] = Self::pow_bounded_pair([*a, *b], exp_bits);
                }
                _ => {
                    for ((params, base, exp), o) in ops.iter().zip(out.iter_mut()) {
                        *o = params.pow_bounded(base, exp, exp_bits);
                    }
                }
            }
        }
    }

    /// [`pow_bounded_batch`](Self::pow_bounded_batch) on the implementation
    /// named: a batch kernel runs its lanes a pass, any other runs the
    /// operands in pairs where it takes them (the limb kernels and
    /// [`Exponentiation::Apart`] one after the other). For comparing
    /// implementations, as the tests and benches do.
    ///
    /// Errors: [`Error::LengthMismatch`] as for `pow_bounded_batch`;
    /// [`Error::BackendUnavailable`] when `backend` cannot run these
    /// operands here (see [`Exponentiation::available`]; a batch kernel
    /// needs moduli of one limb count). Nothing is written on error.
    pub fn pow_bounded_batch_on(
        backend: Exponentiation,
        operands: &[PowOperand<'_, U>],
        exp_bits: u32,
        out: &mut [MontyForm<U>],
    ) -> Result<(), Error> {
        if out.len() != operands.len() {
            return Err(Error::LengthMismatch);
        }
        let runs = |op: &PowOperand<'_, U>| {
            !backend.interleaves() || backend.available(op.0.modulus.nlimbs(), BATCH)
        };
        let uniform = uniform_limbs(operands.iter().map(|op| op.0)).is_some();
        if !operands.iter().all(runs) || (backend.lanes() > 1 && !uniform) {
            return Err(Error::BackendUnavailable);
        }
        Self::pow_batch_on(backend, operands, exp_bits, out);
        Ok(())
    }

    /// The batch on `backend`, which takes every operand (and, if it has
    /// lanes, moduli of one limb count).
    fn pow_batch_on(
        backend: Exponentiation,
        operands: &[PowOperand<'_, U>],
        exp_bits: u32,
        out: &mut [MontyForm<U>],
    ) {
        match backend.lanes() {
            8 => batch_passes::<U, 8>(backend, operands, exp_bits, out),
            4 => batch_passes::<U, 4>(backend, operands, exp_bits, out),
            _ => {
                for (ops, out) in operands.chunks(2).zip(out.chunks_mut(2)) {
                    match (ops, &mut *out) {
                        ([a, b], [x, y]) => {
                            let pair = Self::pow_bounded_pair_on(backend, [*a, *b], exp_bits);
                            [*x, *y] = pair.unwrap_or_else(|| {
                                [a, b]
                                    .map(|(p, base, exp)| p.pow_ct_on(backend, base, exp, exp_bits))
                            });
                        }
                        _ => {
                            for ((params, base, exp), o) in ops.iter().zip(out.iter_mut()) {
                                *o = params.pow_ct_on(backend, base, exp, exp_bits);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Variable-time exponentiations to one public exponent in a batch:
    /// `out[i] = base^exp` modulo operand `i`'s modulus, as
    /// [`pow_vartime`](Self::pow_vartime) computes each (checking a batch
    /// of RSA signatures against the public key is the use). As
    /// [`pow_bounded_batch`](Self::pow_bounded_batch) for the choice of
    /// kernel and the passes; the exponent alone steers the window, so one
    /// pass serves every lane. For public exponents only.
    ///
    /// Errors: [`Error::LengthMismatch`] when `out` and `operands` differ
    /// in length (nothing is written).
    pub fn pow_vartime_batch(
        operands: &[(&Self, &MontyForm<U>)],
        exp: &impl AsRef<[Limb]>,
        out: &mut [MontyForm<U>],
    ) -> Result<(), Error> {
        if out.len() != operands.len() {
            return Err(Error::LengthMismatch);
        }
        let exp = exp.as_ref();
        let backend = uniform_limbs(operands.iter().map(|op| op.0))
            .map(|n| selection().batch_exponentiation(n));
        let full = match backend.map(|b| (b, b.lanes())) {
            Some((backend, lanes @ (4 | 8))) => {
                let full = in_passes(operands.len(), lanes);
                let (ops, out) = (&operands[..full], &mut out[..full]);
                match lanes {
                    8 => vartime_passes::<U, 8>(backend, ops, exp, out),
                    _ => vartime_passes::<U, 4>(backend, ops, exp, out),
                }
                full
            }
            _ => 0,
        };
        let (operands, out) = (&operands[full..], &mut out[full..]);
        for (ops, out) in operands.chunks(2).zip(out.chunks_mut(2)) {
            match (ops, &mut *out) {
                ([(p, a), (q, b)], [x, y]) => (*x, *y) = p.pow_vartime_pair(a, q, b, &exp),
                _ => {
                    for ((params, base), o) in ops.iter().zip(out.iter_mut()) {
                        *o = params.pow_vartime(base, &exp);
                    }
                }
            }
        }
        Ok(())
    }

    /// The constant-time exponentiation on `backend`, which can run it
    /// ([`Exponentiation::Apart`] and the pairs-only
    /// [`Exponentiation::FmaPair`]: on the single choice; the pairs-only
    /// [`Exponentiation::Ifma256VectorQuotient`]: on its family's single
    /// kernel, as a pair's odd one out).
    fn pow_ct_on(
        &self,
        backend: Exponentiation,
        base: &MontyForm<U>,
        exp: &impl AsRef<[Limb]>,
        exp_bits: u32,
    ) -> MontyForm<U> {
        let backend = match backend {
            Exponentiation::Apart | Exponentiation::FmaPair => {
                selection().exponentiation(self.modulus.nlimbs(), 1)
            }
            Exponentiation::Ifma256VectorQuotient => Exponentiation::Ifma256,
            other => other,
        };
        let _dit = DataIndependentTiming::enable();
        let exp_bits = exp_bits.min(exp.as_ref().len() as u32 * Limb::BITS);
        let mut out = self.modulus.zero_like();
        let run = |out: &mut U, scratch: &mut [Limb]| {
            let (base, exp) = (base.0.as_ref(), exp.as_ref());
            exp_ct(
                backend,
                out.as_mut(),
                base,
                exp,
                exp_bits,
                &self.ctx(),
                scratch,
            );
        };
        match backend {
            // A backend of its own representation keeps its own scratch.
            Exponentiation::LimbKernels => self
                .modulus
                .with_scratch::<POW_SCRATCH_MULTIPLE, _>(self.modulus.nlimbs(), |scratch| {
                    run(&mut out, scratch)
                }),
            _ => run(&mut out, &mut []),
        }
        MontyForm(out)
    }

    /// `self`'s `base^exp` and `other`'s `other_base^exp` for one public
    /// exponent, as [`pow_vartime`](Self::pow_vartime) computes each; on the
    /// IFMA backend, with moduli of one limb count, in one interleaved pass
    /// (checking an RSA result modulo `p` and `q` is the use).
    pub fn pow_vartime_pair(
        &self,
        base: &MontyForm<U>,
        other: &Self,
        other_base: &MontyForm<U>,
        exp: &impl AsRef<[Limb]>,
    ) -> (MontyForm<U>, MontyForm<U>) {
        let n = self.modulus.nlimbs();
        // To a short exponent, a pair runs apart where one alone runs on
        // the limb kernels: the conversions that keep those ahead weigh on
        // an interleaved pair too.
        let apart = vartime_shape(exp.as_ref()) == SHORT_EXPONENT
            && selection().exponentiation(n, SHORT_EXPONENT) == Exponentiation::LimbKernels;
        if other.modulus.nlimbs() == n && !apart {
            let backend = selection().exponentiation(n, 2);
            if backend.interleaves() {
                let mut out = self.modulus.zero_like();
                let mut other_out = other.modulus.zero_like();
                exp_vartime_pair(
                    backend,
                    [out.as_mut(), other_out.as_mut()],
                    [base.0.as_ref(), other_base.0.as_ref()],
                    exp.as_ref(),
                    [&self.ctx(), &other.ctx()],
                );
                return (MontyForm(out), MontyForm(other_out));
            }
        }
        (
            self.pow_vartime(base, exp),
            other.pow_vartime(other_base, exp),
        )
    }

    /// `base^exp` by sliding windows, variable time in `exp`: for public
    /// exponents only (RSA's `e`, Miller–Rabin's `d`). An exponent of at
    /// most [`SHORT_EXPONENT_BITS`] bits runs on the selection's choice for
    /// [`SHORT_EXPONENT`], a longer one on its choice for one.
    pub fn pow_vartime(&self, base: &MontyForm<U>, exp: &impl AsRef<[Limb]>) -> MontyForm<U> {
        let n = self.modulus.nlimbs();
        // To a short exponent the backends may race; the time of one to a
        // long exponent (its bits public) is not counted: the races time
        // the constant-time ones.
        let (backend, lap) = match vartime_shape(exp.as_ref()) {
            SHORT_EXPONENT => selection().exponentiation_to_run(n, SHORT_EXPONENT),
            shape => (selection().exponentiation(n, shape), Lap::idle()),
        };
        let out = self.pow_with_vartime(backend, base, exp);
        lap.finish(n, ct::bit_length(exp.as_ref()));
        out
    }

    /// [`pow_vartime`](Self::pow_vartime) on the implementation named, or
    /// `None` if it cannot run one exponentiation here (see
    /// [`Exponentiation::available`]): for comparing implementations, as
    /// the tests, the benches and the selection checks do.
    pub fn pow_on_vartime(
        &self,
        backend: Exponentiation,
        base: &MontyForm<U>,
        exp: &impl AsRef<[Limb]>,
    ) -> Option<MontyForm<U>> {
        backend
            .available(self.modulus.nlimbs(), 1)
            .then(|| self.pow_with_vartime(backend, base, exp))
    }

    /// [`pow_vartime`](Self::pow_vartime) on `backend`, which can run it.
    fn pow_with_vartime(
        &self,
        backend: Exponentiation,
        base: &MontyForm<U>,
        exp: &impl AsRef<[Limb]>,
    ) -> MontyForm<U> {
        let mut out = self.modulus.zero_like();
        let run = |out: &mut U, scratch: &mut [Limb]| {
            let (base, exp) = (base.0.as_ref(), exp.as_ref());
            exp_vartime(backend, out.as_mut(), base, exp, &self.ctx(), scratch);
        };
        match backend {
            Exponentiation::LimbKernels => self
                .modulus
                .with_scratch::<POW_SCRATCH_MULTIPLE, _>(self.modulus.nlimbs(), |scratch| {
                    run(&mut out, scratch)
                }),
            _ => run(&mut out, &mut []),
        }
        MontyForm(out)
    }
}

/// The shape [`Selection::exponentiation`](crate::backend::Selection::exponentiation)
/// takes for one variable-time exponentiation to `exp`.
fn vartime_shape(exp: &[Limb]) -> usize {
    match ct::bit_length(exp) <= SHORT_EXPONENT_BITS {
        true => SHORT_EXPONENT,
        false => 1,
    }
}

/// `x^exp mod m` in constant time for an odd `m > 1`: the integer types'
/// [`Unsigned::pow_mod`].
pub(crate) fn pow_mod<U: Unsigned>(x: &U, exp: &U, m: &U) -> Result<U, Error> {
    let params = MontyParams::new(m.clone())?;
    let base = params.to_monty(x);
    Ok(params.from_monty(&params.pow(&base, exp)))
}

/// Runs `$body`, an exponentiation algorithm over `$arith` (a `MontMul`)
/// with elements `$o`, `$b`, `$one` and `$s` in its representation, for
/// `$run`, `(backend, out, base, ctx, scratch)`: on `backend` if it runs
/// in a radix of its own (handed an [`ExpJob`]), else on the limb kernels
/// the selection chose, with `scratch` ([`POW_SCRATCH_MULTIPLE`] times the
/// limb count). The body is written once and compiled for both, so the
/// limb kernels' path dispatches statically.
macro_rules! on_backend_or_limbs {
    ($run:expr, |$arith:ident, $o:ident, $b:ident, $one:ident, $s:ident| $body:expr) => {{
        let (backend, out, base, ctx, scratch): (_, &mut [Limb], &[Limb], &MontyCtx<'_>, &mut [Limb]) =
            $run;
        let job = ExpJob {
            outs: [&mut *out],
            bases: [base],
            ctxs: [ctx],
            f: &mut |$arith, $o, $b, $one, $s| $body,
        };
        if run_exponentiation(backend, job) {
            return;
        }
        let (wide, $s) = scratch.split_at_mut(2 * ctx.m.limbs().len());
        dispatch!(k => {
            let mut limbs = LimbMontMul::new(k, ctx.m, wide);
            let ($arith, $o, $b, $one) = (&mut limbs, &mut *out, base, ctx.one);
            $body;
            limbs.finish(out, ctx.one)
        })
    }};
}

/// [`pow::pow_ct`] on `backend`: `out = base^e` in Montgomery form, where
/// `e` is the low `exp_bits` bits of `exp`. `backend` must be available
/// for this modulus (see [`Exponentiation::available`]); the limb kernels
/// always are, and only they use `scratch`.
fn exp_ct(
    backend: Exponentiation,
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    exp_bits: u32,
    ctx: &MontyCtx<'_>,
    scratch: &mut [Limb],
) {
    let run = (backend, out, base, ctx, scratch);
    on_backend_or_limbs!(run, |a, out, base, one, s| pow::pow_ct(
        a, out, base, exp, exp_bits, one, s
    ))
}

/// [`pow::pow_vartime`] on `backend`, as [`exp_ct`].
fn exp_vartime(
    backend: Exponentiation,
    out: &mut [Limb],
    base: &[Limb],
    exp: &[Limb],
    ctx: &MontyCtx<'_>,
    scratch: &mut [Limb],
) {
    let run = (backend, out, base, ctx, scratch);
    on_backend_or_limbs!(run, |a, out, base, one, s| pow::pow_vartime(
        a, out, base, exp, one, s
    ))
}

/// Two constant-time exponentiations in lockstep on `backend` (a backend
/// in a radix of its own that takes the pair, see
/// [`Exponentiation::available`]): `outs[k] = bases[k]^e_k` modulo
/// `ctxs[k].m`, `e_k` the low `exp_bits` bits of `exps[k]`.
fn exp_ct_pair(
    backend: Exponentiation,
    outs: [&mut [Limb]; 2],
    bases: [&[Limb]; 2],
    exps: [&[Limb]; 2],
    exp_bits: u32,
    ctxs: [&MontyCtx<'_>; 2],
) {
    run_job(backend, outs, bases, ctxs, &mut |a, out, base, one, s| {
        pow::pow_ct(a, out, base, &exps[..], exp_bits, one, s)
    });
}

/// Two variable-time exponentiations to the same public exponent, in
/// lockstep on `backend` (as for [`exp_ct_pair`]): `outs[k] = bases[k]^exp`
/// modulo `ctxs[k].m`. The exponent alone steers the sliding window, so
/// one pass serves both.
fn exp_vartime_pair(
    backend: Exponentiation,
    outs: [&mut [Limb]; 2],
    bases: [&[Limb]; 2],
    exp: &[Limb],
    ctxs: [&MontyCtx<'_>; 2],
) {
    run_job(backend, outs, bases, ctxs, &mut |a, out, base, one, s| {
        pow::pow_vartime(a, out, base, exp, one, s)
    });
}

/// Runs `f` modulo the `K` moduli at once on `backend`, which the caller
/// checked takes them.
fn run_job<const K: usize>(
    backend: Exponentiation,
    outs: [&mut [Limb]; K],
    bases: [&[Limb]; K],
    ctxs: [&MontyCtx<'_>; K],
    f: &mut ExpTask<'_>,
) {
    let job = ExpJob {
        outs,
        bases,
        ctxs,
        f,
    };
    let ran = run_exponentiation(backend, job);
    assert!(ran, "the caller checked that the backend takes the job");
}

/// How many of `count` operands run in passes of `lanes` on a batch kernel:
/// all but a last pass too short to cost less than its operands in pairs
/// (on this CPU: `Selection::pass_in_pairs`).
fn in_passes(count: usize, lanes: usize) -> usize {
    match count % lanes {
        tail if tail < selection().pass_in_pairs() => count - tail,
        _ => count,
    }
}

/// The limb count every modulus has, if they all have the same one (and
/// there is one).
fn uniform_limbs<'a, U: Unsigned + 'a>(
    mut params: impl Iterator<Item = &'a MontyParams<U>>,
) -> Option<usize> {
    let n = params.next()?.modulus.nlimbs();
    params.all(|p| p.modulus.nlimbs() == n).then_some(n)
}

/// [`MontyParams::pow_bounded_batch`] on `backend`, a batch kernel of `L`
/// lanes that takes the operands' size: `L` a pass, the last padded with
/// copies of its first operand.
fn batch_passes<U: Unsigned, const L: usize>(
    backend: Exponentiation,
    operands: &[PowOperand<'_, U>],
    exp_bits: u32,
    out: &mut [MontyForm<U>],
) {
    let _dit = DataIndependentTiming::enable();
    for (chunk, out) in operands.chunks(L).zip(out.chunks_mut(L)) {
        let ops: [PowOperand<'_, U>; L] =
            core::array::from_fn(|k| chunk.get(k).copied().unwrap_or(chunk[0]));
        // Bits past an exponent's end read as zero: clamp to the widest.
        let width = ops.iter().map(|op| op.2.len()).max().unwrap_or(0) as u32 * Limb::BITS;
        let ctxs = ops.map(|(params, _, _)| params.ctx());
        let mut results = ops.map(|(params, _, _)| params.modulus.zero_like());
        exp_ct_batch(
            backend,
            &mut results.each_mut().map(|r| r.as_mut()),
            &ops.map(|(_, base, _)| base.0.as_ref()),
            &ops.map(|(_, _, exp)| exp),
            exp_bits.min(width),
            &ctxs.each_ref(),
        );
        let mut results = results.into_iter();
        for (o, r) in out.iter_mut().zip(&mut results) {
            *o = MontyForm(r);
        }
        // The padding's results repeat a real one's.
        for mut r in results {
            r.as_mut().zeroize();
        }
    }
}

/// [`MontyParams::pow_vartime_batch`] on `backend`, a batch kernel of `L`
/// lanes that takes the operands' size.
fn vartime_passes<U: Unsigned, const L: usize>(
    backend: Exponentiation,
    operands: &[(&MontyParams<U>, &MontyForm<U>)],
    exp: &[Limb],
    out: &mut [MontyForm<U>],
) {
    for (chunk, out) in operands.chunks(L).zip(out.chunks_mut(L)) {
        let ops: [(&MontyParams<U>, &MontyForm<U>); L] =
            core::array::from_fn(|k| chunk.get(k).copied().unwrap_or(chunk[0]));
        let ctxs = ops.map(|(params, _)| params.ctx());
        let mut results = ops.map(|(params, _)| params.modulus.zero_like());
        run_lanes(
            backend,
            &mut results.each_mut().map(|r| r.as_mut()),
            &ops.map(|(_, base)| base.0.as_ref()),
            &ctxs.each_ref(),
            &mut |a, out, base, one, s| pow::pow_vartime(a, out, base, exp, one, s),
        );
        for (o, r) in out.iter_mut().zip(results) {
            *o = MontyForm(r);
        }
    }
}

/// Constant-time exponentiations in the lanes of `backend`, a batch kernel
/// that takes them (`outs`, `bases`, `exps` and `ctxs` of its lane count):
/// `outs[k] = bases[k]^e_k` modulo `ctxs[k].m`, `e_k` the low `exp_bits`
/// bits of `exps[k]`.
fn exp_ct_batch(
    backend: Exponentiation,
    outs: &mut [&mut [Limb]],
    bases: &[&[Limb]],
    exps: &[&[Limb]],
    exp_bits: u32,
    ctxs: &[&MontyCtx<'_>],
) {
    run_lanes(backend, outs, bases, ctxs, &mut |a, out, base, one, s| {
        pow::pow_ct(a, out, base, exps, exp_bits, one, s)
    });
}

/// Runs `f` in the lanes of `backend`, a batch kernel that takes the
/// moduli, one lane each (every slice of its lane count, 4 or 8).
///
/// Not generic, unlike its callers: a generic function is compiled in
/// every crate that instantiates it, with the generic code it calls, and
/// through the lane count the backends came along into each (see
/// benches/RESULTS.md, `ci-time`); this way those crates link this crate's
/// one compiled copy.
fn run_lanes(
    backend: Exponentiation,
    outs: &mut [&mut [Limb]],
    bases: &[&[Limb]],
    ctxs: &[&MontyCtx<'_>],
    f: &mut ExpTask<'_>,
) {
    fn run<const L: usize>(
        backend: Exponentiation,
        outs: &mut [&mut [Limb]],
        bases: &[&[Limb]],
        ctxs: &[&MontyCtx<'_>],
        f: &mut ExpTask<'_>,
    ) -> bool {
        let (Ok(outs), Ok(bases), Ok(ctxs)) = (
            <&mut [_; L]>::try_from(outs),
            <&[_; L]>::try_from(bases),
            <&[_; L]>::try_from(ctxs),
        ) else {
            return false;
        };
        let job = ExpJob {
            outs: outs.each_mut().map(|out| &mut **out),
            bases: *bases,
            ctxs: *ctxs,
            f,
        };
        run_exponentiation(backend, job)
    }
    let ran = match outs.len() {
        8 => run::<8>(backend, outs, bases, ctxs, f),
        _ => run::<4>(backend, outs, bases, ctxs, f),
    };
    assert!(ran, "the caller checked that the backend takes the job");
}
