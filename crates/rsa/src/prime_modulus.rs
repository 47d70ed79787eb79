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
}

impl PrimeModulus {
    /// Parameters for the odd prime `p` (at its own width).
    pub(crate) fn new(p: &SecretUint, bits: u32) -> Option<Self> {
        let params = MontyParams::new(p.clone()).ok()?;
        Some(Self { params, bits })
    }

    /// The prime.
    pub(crate) fn modulus(&self) -> &SecretUint {
        self.params.modulus()
    }

    /// `x mod p` in Montgomery form, for any `x` below `p·2^(64·limbs(p))`
    /// at most twice `p`'s width: one Montgomery reduction (`x·R^-1`) and
    /// two multiplications by `R²`, in constant time, where a division
    /// would cost a bit-serial pass over `x` (benches/RESULTS.md, "Design
    /// figures"). Other shapes fall back to the division.
    pub(crate) fn reduce(&self, x: &SecretUint, x_below_p_r: bool) -> MontyForm<SecretUint> {
        let np = self.modulus().nlimbs();
        if !x_below_p_r || x.nlimbs() > 2 * np {
            return self.params.to_monty(x);
        }
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
}
