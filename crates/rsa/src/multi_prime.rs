//! Multi-prime keys (RFC 8017 §3.2): the primes beyond `p` and `q`, and how
//! many a modulus may have.
//!
//! A multi-prime key is an ordinary RSA key to everyone but its holder: `n`
//! is the product of `u > 2` primes, and the private operation runs the CRT
//! over all of them (RFC 8017 §5.1.2), which makes it cheaper: `u`
//! exponentiations modulo primes of `1/u` of `n`'s size, each about
//! `1/u³` of a full-size one, against two of `1/8` for two primes. PKCS#1
//! writes the primes after `p` and `q` as `OtherPrimeInfo` values
//! `(r_i, d_i, t_i)`; `openssl genpkey -pkeyopt rsa_keygen_primes:3` makes
//! such keys.

use core::fmt;

use numcrypt_limbs::{BoxedUint, MontyForm, SecretUint};
use zeroize::Zeroize;

use crate::Error;
use crate::prime_modulus::PrimeModulus;

/// The most primes a key may have: OpenSSL's `RSA_MAX_PRIME_NUM`.
pub const MAX_PRIMES: usize = 5;

/// The most primes a `bits`-bit modulus may have, as OpenSSL's
/// `ossl_rsa_multip_cap` allows: 2 below 1024 bits, 3 below 4096, 4 below
/// 8192, and [`MAX_PRIMES`] from 8192. The counts keep every prime large
/// enough (at least about 340 bits at 1024, 1024 at 4096, 1638 at 8192)
/// that finding one by the elliptic-curve method, whose cost grows with the
/// size of the factor it finds, is no easier than factoring `n` by the
/// number field sieve (Hinek, "On the security of multi-prime RSA", 2006).
pub const fn max_primes(bits: u32) -> usize {
    match bits {
        0..1024 => 2,
        1024..4096 => 3,
        4096..8192 => 4,
        _ => MAX_PRIMES,
    }
}

/// [`Error::TooManyPrimes`] unless a `bits`-bit modulus may have `primes`
/// primes: the first check on a multi-prime key, before any arithmetic.
pub(crate) fn check_prime_count(primes: usize, bits: u32) -> Result<(), Error> {
    let max = max_primes(bits);
    if primes > max {
        return Err(Error::TooManyPrimes { primes, max, bits });
    }
    Ok(())
}

/// One prime of a multi-prime key beyond `p` and `q`: PKCS#1's
/// `OtherPrimeInfo` (RFC 8017 §3.2, A.1.2). For the `i`-th prime
/// (`i >= 3`, counting `p` as the first and `q` as the second):
///
/// - `prime`: `r_i`;
/// - `exponent`: `d_i = d mod (r_i − 1)`;
/// - `coefficient`: `t_i = (r_1·r_2·…·r_(i−1))^-1 mod r_i`.
///
/// Its values are wiped when it is dropped, and `Debug` prints none of
/// them. [`RsaPrivateKey::from_multi_prime_components`](crate::RsaPrivateKey::from_multi_prime_components)
/// takes them; [`RsaPrivateKey::other_primes`](crate::RsaPrivateKey::other_primes)
/// gives them back.
#[derive(Clone)]
pub struct OtherPrimeInfo {
    /// The prime `r_i`.
    pub prime: BoxedUint,
    /// `d_i = d mod (r_i − 1)`.
    pub exponent: BoxedUint,
    /// `t_i = (r_1·…·r_(i−1))^-1 mod r_i`.
    pub coefficient: BoxedUint,
}

impl Drop for OtherPrimeInfo {
    fn drop(&mut self) {
        self.prime.zeroize();
        self.exponent.zeroize();
        self.coefficient.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for OtherPrimeInfo {}

impl fmt::Debug for OtherPrimeInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtherPrimeInfo").finish_non_exhaustive()
    }
}

/// A prime beyond `p` and `q`, ready for the private operation.
#[derive(Clone)]
pub(crate) struct OtherPrime {
    /// `r_i`, with its Montgomery parameters.
    pub(crate) prime: PrimeModulus,
    /// `d_i`, at `r_i`'s width.
    pub(crate) exponent: SecretUint,
    /// `t_i`, at `r_i`'s width.
    pub(crate) coefficient: SecretUint,
    /// `t_i` in Montgomery form modulo `r_i`, for the recombination.
    pub(crate) coefficient_mont: MontyForm<SecretUint>,
    /// `r_1·…·r_(i−1)`, at `n`'s width.
    pub(crate) product_before: SecretUint,
    /// Whether `x < n` implies `x < r_i·R` (see [`PrimeModulus::reduce`]).
    pub(crate) redc_fits: bool,
}
