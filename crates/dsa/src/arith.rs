//! A constant-time reduction of wide values modulo a small modulus.

use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use zeroize::Zeroize;

/// Reduces values of any width modulo an odd `m`, in constant time: the
/// value is cut into chunks of `m`'s width, and `Σ cᵢ · 2^(64·n·i)` is
/// summed in Montgomery form. For a 2048-bit value modulo a 256-bit `q`
/// that is 16 small Montgomery multiplications, against a 2048-step
/// bit-serial division.
/// The reducer keeps only that weight; the modulus' parameters are
/// passed in, to be shared with the rest of the arithmetic modulo `m`.
#[derive(Clone, Debug)]
pub(crate) struct WideReducer {
    /// `2^(64 n) mod m` in Montgomery form: the weight of one chunk.
    chunk_weight: MontyForm<BoxedUint>,
}

impl WideReducer {
    pub(crate) fn new(params: &MontyParams<BoxedUint>) -> Self {
        // The raw representation of 1 is R mod m = 2^(64 n) mod m.
        let r_mod_m = params.one().as_montgomery().clone();
        let chunk_weight = params.to_monty(&r_mod_m);
        Self { chunk_weight }
    }

    /// `x mod m`, in Montgomery form, for `params` the parameters of the
    /// `m` the reducer was made for.
    pub(crate) fn reduce(
        &self,
        params: &MontyParams<BoxedUint>,
        x: &BoxedUint,
    ) -> MontyForm<BoxedUint> {
        let n = params.modulus().nlimbs();
        let mut acc = params.zero();
        let mut weight = params.one();
        let mut chunk = BoxedUint::zero(n);
        for (i, limbs) in x.as_ref().chunks(n).enumerate() {
            chunk.as_mut().fill(0);
            chunk.as_mut()[..limbs.len()].copy_from_slice(limbs);
            if i > 0 {
                weight = params.mul(&weight, &self.chunk_weight);
            }
            // A chunk is below R, which Montgomery conversion accepts.
            let term = params.mul(&params.to_monty(&chunk), &weight);
            acc = params.add(&acc, &term);
        }
        chunk.zeroize();
        acc
    }
}
