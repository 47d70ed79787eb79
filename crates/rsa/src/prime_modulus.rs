//! [`PrimeModulus`]: Montgomery arithmetic modulo one prime factor of `n`,
//! with the reduction of full-width values the private operation needs.

use alloc::vec;

use numcrypt_limbs::{Limb, MontyForm, MontyParams, SecretUint, Unsigned, kernels};
use zeroize::Zeroizing;

/// `x − 1` (for `p − 1`, `n − 1`: the values are at least 3).
pub(crate) fn minus_one<U: Unsigned>(x: &U) -> U {
    x.wrapping_sub(&x.like_u64(1))
}

/// Montgomery arithmetic modulo one prime factor of `n`, with what the
/// reduction of a full-width value needs.
#[derive(Clone)]
pub(crate) struct PrimeModulus {
    pub(crate) params: MontyParams<SecretUint>,
    /// The bit length of `p` (public: it follows from the key size).
    pub(crate) bits: u32,
    /// `B = 2^(64·(limbs(p) − 1))` in Montgomery form, for reducing values
    /// of any width a chunk of `limbs(p) − 1` limbs at a time (each chunk
    /// is below `B <= p`); `None` for a one-limb `p`.
    chunk_radix: Option<MontyForm<SecretUint>>,
}

impl PrimeModulus {
    /// Parameters for the odd prime `p` (at its own width).
    pub(crate) fn new(p: &SecretUint, bits: u32) -> Option<Self> {
        let params = MontyParams::new(p.clone()).ok()?;
        let np = p.nlimbs();
        let chunk_radix = (np >= 2).then(|| {
            let mut radix = SecretUint::zero(np);
            radix.as_mut()[np - 1] = 1;
            params.to_monty(&radix)
        });
        Some(Self {
            params,
            bits,
            chunk_radix,
        })
    }

    /// The prime.
    pub(crate) fn modulus(&self) -> &SecretUint {
        self.params.modulus()
    }

    /// `x mod p` in Montgomery form, for `x` of any width, in constant time
    /// (the work depends on the widths only), by the cheapest of:
    ///
    /// - `x` no wider than `p`: one multiplication by `R²`;
    /// - `x` below `p·R` (`x_below_p_r`, which the caller knows from the
    ///   sizes) and at most twice `p`'s width: one Montgomery reduction
    ///   (`x·R^-1`) and two multiplications by `R²`;
    /// - otherwise Horner's rule over chunks of `limbs(p) − 1` limbs, each
    ///   below `p`: `acc·B + chunk`, two Montgomery multiplications a chunk
    ///   (a multi-prime key's values are up to five times its primes'
    ///   width).
    ///
    /// Each takes a few multiplications where a division would cost a
    /// bit-serial pass over `x` (benches/RESULTS.md, "Design figures"); only
    /// a one-limb `p` falls back to the division.
    pub(crate) fn reduce(&self, x: &SecretUint, x_below_p_r: bool) -> MontyForm<SecretUint> {
        let np = self.modulus().nlimbs();
        if x.nlimbs() <= np {
            // Montgomery multiplication takes any first operand below R.
            return self.params.to_monty(x);
        }
        if x_below_p_r && x.nlimbs() <= 2 * np {
            return self.reduce_once(x);
        }
        match &self.chunk_radix {
            Some(radix) => self.reduce_by_chunks(x, radix),
            None => self.params.to_monty(x),
        }
    }

    /// [`reduce`](Self::reduce) for `x < p·R` of at most twice `p`'s width.
    fn reduce_once(&self, x: &SecretUint) -> MontyForm<SecretUint> {
        let np = self.modulus().nlimbs();
        let mut wide = Zeroizing::new(vec![0 as Limb; 2 * np]);
        wide[..x.nlimbs()].copy_from_slice(x.as_ref());
        let mut r = SecretUint::zero(np);
        // r = x·R^-1 mod p, fully reduced.
        kernels::mont_redc(r.as_mut(), &mut wide, self.params.mont_modulus());
        // to_monty(r) holds x mod p as its raw value; converting that raw
        // value once more gives x·R mod p, the Montgomery form of x.
        let raw = self.params.to_monty(&r);
        self.params.to_monty(raw.as_montgomery())
    }

    /// [`reduce`](Self::reduce) by Horner's rule in base `B`, from the top
    /// chunk down: `acc ← acc·B + chunk`, all in Montgomery form.
    fn reduce_by_chunks(
        &self,
        x: &SecretUint,
        radix: &MontyForm<SecretUint>,
    ) -> MontyForm<SecretUint> {
        let np = self.modulus().nlimbs();
        let mut chunk = SecretUint::zero(np);
        let mut acc: Option<MontyForm<SecretUint>> = None;
        for limbs in x.as_ref().chunks(np - 1).rev() {
            chunk.as_mut()[..limbs.len()].copy_from_slice(limbs);
            chunk.as_mut()[limbs.len()..].fill(0);
            // chunk < B <= p: one multiplication by R² puts it in form.
            let term = self.params.to_monty(&chunk);
            acc = Some(match acc {
                None => term,
                Some(acc) => self.params.add(&self.params.mul(&acc, radix), &term),
            });
        }
        acc.unwrap_or_else(|| self.params.zero())
    }
}
