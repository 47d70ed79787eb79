//! Key generation: FIPS 186-5 appendix A.1.3 with B.3.3 probable primes.

#[cfg(feature = "std")]
use core::num::NonZeroUsize;

use numcrypt_limbs::{BoxedUint, SecretUint, Unsigned, limbs_for_bits};
use numcrypt_prime::{PrimeGen, PrimeKind};
use rand_core::{CryptoRng, TryCryptoRng};
use subtle::ConstantTimeLess;

use crate::prime_modulus::minus_one;
use crate::rng::{Draws, MAX_DRAWS};
use crate::{
    Error, MAX_MODULUS_BITS, MAX_PUBLIC_EXPONENT_BITS, MIN_MODULUS_BITS, MIN_PRIVATE_MODULUS_BITS,
    RsaPrivateKey, RsaPublicKey,
};

/// How many times FIPS 186-5 B.3.3 is run before its failure is reported.
const GENERATION_ATTEMPTS: u32 = 8;

/// The default public exponent, `2^16 + 1`.
pub const DEFAULT_PUBLIC_EXPONENT: u64 = 65537;

/// Options for generating an RSA key: size, public exponent, threads.
///
/// ```
/// use numcrypt_rsa::KeyGen;
/// # use rand_core::SeedableRng;
/// # let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
/// let key = KeyGen::new(2048).generate(&mut rng)?;
/// assert_eq!(key.public_key().bits(), 2048);
/// # Ok::<(), numcrypt_rsa::Error>(())
/// ```
///
/// The primes come from [`numcrypt_prime::PrimeGen::rsa_fips`]
/// (FIPS 186-5 B.3.3: fresh random candidates of `nlen/2` bits, at least
/// `√2·2^(nlen/2 − 1)`, `gcd(p − 1, e) = 1`, MR64 (64 Miller–Rabin rounds,
/// error at most `2^-128` for any candidate), `|p − q| > 2^(nlen/2 − 100)`).
/// Then `d = e^-1 mod lcm(p − 1, q − 1)`, and the pair is drawn again in
/// the rare case `d <= 2^(nlen/2)` (FIPS 186-5 A.1.3). All of it is
/// constant time in the secrets, including the gcd behind the lcm.
#[derive(Clone, Debug)]
pub struct KeyGen {
    bits: u32,
    e: u64,
    allow_weak: bool,
    #[cfg(feature = "std")]
    threads: Option<NonZeroUsize>,
}

impl KeyGen {
    /// A `bits`-bit key (even, 2048 to [`MAX_MODULUS_BITS`]) with
    /// `e = 65537`, on one thread.
    pub fn new(bits: u32) -> Self {
        Self {
            bits,
            e: DEFAULT_PUBLIC_EXPONENT,
            allow_weak: false,
            #[cfg(feature = "std")]
            threads: Some(NonZeroUsize::MIN),
        }
    }

    /// The public exponent: odd, `2^16 < e < 2^33` (FIPS 186-5 allows up to
    /// `2^256`; keys read here are capped at
    /// [`MAX_PUBLIC_EXPONENT_BITS`](crate::MAX_PUBLIC_EXPONENT_BITS)).
    pub fn public_exponent(mut self, e: u64) -> Self {
        self.e = e;
        self
    }

    /// Allows sizes from 1024 bits, below today's 2048-bit minimum (for
    /// tests and legacy systems). FIPS 186-5 has no procedure below 2048
    /// bits, so these keys take two random primes of `bits/2` bits with the
    /// same checks on `e` and `|p − q|`. This crate signs and decrypts with
    /// them only once they are opted in
    /// ([`RsaPrivateKey::allow_weak_key`], [`Error::WeakKey`] otherwise);
    /// their public keys verify.
    pub fn allow_weak_key_size(mut self, allow: bool) -> Self {
        self.allow_weak = allow;
        self
    }

    /// Searches for `p` and `q` on `threads` threads (`None`: as many as
    /// the machine has). The result is the key one thread would give for
    /// the same generator state (see
    /// [`numcrypt_prime::PrimeGen::threads`]).
    #[cfg(feature = "std")]
    pub fn threads(mut self, threads: Option<NonZeroUsize>) -> Self {
        self.threads = threads;
        self
    }

    /// Generates the key.
    ///
    /// Errors: [`Error::KeyTooSmall`], [`Error::KeyTooLarge`],
    /// [`Error::InvalidKeySize`] (odd), [`Error::InvalidExponent`], or
    /// [`Error::Prime`] if FIPS 186-5's procedure, which gives up after
    /// `5·nlen/2` candidates for a prime, fails 8 times running (it is run
    /// again after a failure, as the standard allows).
    ///
    /// A generator that fails, or is stuck on one value, gives
    /// [`Error::Rng`] (and no key).
    pub fn generate<R: TryCryptoRng + ?Sized>(&self, rng: &mut R) -> Result<RsaPrivateKey, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let mut draws = Draws::new(rng);
        let key = self.generate_from(&mut draws);
        draws.finish(key)
    }

    /// [`generate`](Self::generate) from the guarded generator.
    fn generate_from<R: TryCryptoRng + ?Sized>(
        &self,
        draws: &mut Draws<'_, R>,
    ) -> Result<RsaPrivateKey, Error> {
        let bits = self.bits;
        let min = if self.allow_weak {
            MIN_MODULUS_BITS
        } else {
            MIN_PRIVATE_MODULUS_BITS
        };
        if bits < min {
            return Err(Error::KeyTooSmall { bits, min });
        }
        if bits > MAX_MODULUS_BITS {
            return Err(Error::KeyTooLarge {
                bits,
                max: MAX_MODULUS_BITS,
            });
        }
        if !bits.is_multiple_of(2) {
            return Err(Error::InvalidKeySize { bits });
        }
        if self.e.is_multiple_of(2) || self.e <= 1 << 16 || self.e >> MAX_PUBLIC_EXPONENT_BITS != 0
        {
            return Err(Error::InvalidExponent);
        }
        let mut failures = 0;
        // A redraw (`d <= 2^(nlen/2)`) happens about once in 2^(nlen/2)
        // generations; more than a few means the generator is broken.
        for _ in 0..MAX_DRAWS {
            draws.check()?;
            let (p, q) = match self.primes(draws) {
                Ok(pq) => pq,
                // B.3.3 gives up after 5·nlen/2 candidates for a prime; the
                // procedure may then be run again from the start.
                Err(Error::Prime(numcrypt_prime::Error::GenerationFailed))
                    if failures + 1 < GENERATION_ATTEMPTS =>
                {
                    failures += 1;
                    continue;
                }
                Err(e) => return Err(e),
            };
            if let Some(key) = assemble(bits, self.e, p, q)? {
                return Ok(key);
            }
        }
        Err(draws.give_up())
    }

    /// The two primes, `p > q`.
    fn primes<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(SecretUint, SecretUint), Error> {
        let (p, q): (BoxedUint, BoxedUint) = if self.bits >= MIN_PRIVATE_MODULUS_BITS {
            self.fips_primes(rng)?
        } else {
            self.weak_primes(rng)?
        };
        let (mut p, mut q) = (SecretUint::from(p), SecretUint::from(q));
        // Which of two random primes is larger says nothing about either.
        let swap = p.ct_lt_value(&q);
        SecretUint::conditional_swap(&mut p, &mut q, swap);
        Ok((p, q))
    }

    fn fips_primes<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(BoxedUint, BoxedUint), Error> {
        let search = PrimeGen::rsa_fips(self.bits, self.e);
        #[cfg(feature = "std")]
        let search = search.threads(self.threads);
        Ok(search.generate(rng)?)
    }

    /// Below 2048 bits: random primes of `bits/2` bits (top two bits set,
    /// so `p·q` has exactly `bits` bits) with `gcd(p − 1, e) = 1`, and `q`
    /// drawn again until `|p − q| > 2^(bits/2 − 100)`.
    fn weak_primes<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(BoxedUint, BoxedUint), Error> {
        let half = self.bits / 2;
        // Each draw is accepted with probability well above 1/2, so running
        // out of tries means a broken generator.
        let mut p = None;
        for _ in 0..MAX_DRAWS {
            let candidate = self.one_prime(half, rng)?;
            if coprime_to_e(&candidate, self.e) {
                p = Some(candidate);
                break;
            }
        }
        let p = p.ok_or(Error::Rng)?;
        let bound = BoxedUint::from_u64(1, p.nlimbs()).shl_vartime(half - 100);
        for _ in 0..MAX_DRAWS {
            let q = self.one_prime(half, rng)?;
            // |p − q| without a branch on which is larger.
            let mut diff = q.wrapping_sub(&p);
            diff.conditional_assign(&p.wrapping_sub(&q), q.ct_lt(&p));
            // A verdict the redraw reveals anyway.
            let far_apart = numcrypt_limbs::ct_audit::declassify_choice(bound.ct_lt(&diff));
            if coprime_to_e(&q, self.e) && far_apart {
                return Ok((p, q));
            }
        }
        Err(Error::Rng)
    }

    fn one_prime<R: CryptoRng + ?Sized>(&self, bits: u32, rng: &mut R) -> Result<BoxedUint, Error> {
        let search = PrimeGen::new(PrimeKind::Prime, bits);
        #[cfg(feature = "std")]
        let search = search.threads(self.threads);
        Ok(search.generate(rng)?)
    }
}

/// `gcd(p − 1, e) = 1`, in constant time: `p − 1` is invertible modulo the
/// odd `e`.
fn coprime_to_e(p: &BoxedUint, e: u64) -> bool {
    let e = BoxedUint::from_u64(e, p.nlimbs());
    let pm1 = SecretUint::from(p.wrapping_sub(&p.like_u64(1)));
    let e = SecretUint::from(e);
    pm1.rem(&e).is_ok_and(|r| r.inv_mod(&e).is_ok())
}

/// The key for primes `p > q`, or `None` when `d <= 2^(nlen/2)` (draw
/// again).
fn assemble(
    nlen: u32,
    e: u64,
    p: SecretUint,
    q: SecretUint,
) -> Result<Option<RsaPrivateKey>, Error> {
    let nl = limbs_for_bits(nlen);
    let n = p.at_width(nl).wrapping_mul(&q.at_width(nl));
    let mut n = n.expose().clone();
    // The modulus is the public key: from here on, it is no secret.
    numcrypt_limbs::ct_audit::declassify(n.as_mut());
    let public = RsaPublicKey::new(&n, &BoxedUint::from_u64(e, 1))?;
    let (pm1, qm1) = (minus_one(&p), minus_one(&q));
    // λ(n) = (p − 1)(q − 1) / gcd(p − 1, q − 1).
    let g = pm1.gcd(&qm1); // constant time
    let phi = pm1.at_width(nl).wrapping_mul(&qm1.at_width(nl));
    let lambda = phi.div_rem(&g).map_err(|_| Error::InconsistentKey)?.0;
    let d = inverse_of_public_exponent(e, &lambda)?;
    // FIPS 186-5 A.1.3: d > 2^(nlen/2). A rejection discards both primes,
    // so its verdict is public.
    let half = SecretUint::from_u64(1, nl).shl_vartime(nlen / 2);
    if !numcrypt_limbs::ct_audit::declassify_choice(half.ct_lt_value(&d)) {
        return Ok(None);
    }
    // d mod (p − 1) is e's inverse modulo p − 1, which divides λ: found
    // as d was, without dividing the 2·half-bit d by p − 1 bit by bit.
    let dp = inverse_of_public_exponent(e, &pm1)?;
    let dq = inverse_of_public_exponent(e, &qm1)?;
    let qinv = q.inv_mod(&p).map_err(|_| Error::InconsistentKey)?;
    RsaPrivateKey::assemble(public, d, p, q, dp, dq, qinv, alloc::vec::Vec::new()).map(Some)
}

/// `e^-1 mod λ` for the public `e` and the secret, even `λ`, with
/// `gcd(e, λ) = 1`, in constant time: `d = (1 + k·λ)/e` with
/// `k = −λ^-1 mod e`, which makes `1 + k·λ` a multiple of `e`. Only
/// arithmetic modulo the odd `e` needs an inverse (the limbs crate's
/// constant-time inverse wants an odd modulus, and `λ` is even).
fn inverse_of_public_exponent(e: u64, lambda: &SecretUint) -> Result<SecretUint, Error> {
    let e_big = SecretUint::from_u64(e, 1);
    let lambda_mod_e = lambda.rem(&e_big).map_err(|_| Error::InvalidExponent)?;
    let inv = lambda_mod_e
        .inv_mod(&e_big)
        .map_err(|_| Error::InvalidExponent)?;
    let k = e_big.wrapping_sub(&inv);
    let wide = lambda.nlimbs() + 1;
    let numerator = lambda
        .at_width(wide)
        .wrapping_mul(&k.at_width(wide))
        .wrapping_add(&SecretUint::from_u64(1, wide));
    let (d, _) = numerator
        .div_rem(&e_big)
        .map_err(|_| Error::InvalidExponent)?;
    Ok(d.at_width(lambda.nlimbs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn big(x: &BoxedUint) -> BigUint {
        BigUint::from_bytes_be(&x.to_be_bytes())
    }

    /// The generated key against num-bigint: n = p·q, d·e ≡ 1 mod λ with
    /// λ = lcm(p − 1, q − 1), d < λ, d > 2^(nlen/2), the CRT values, and
    /// |p − q| > 2^(nlen/2 − 100).
    #[test]
    fn generated_key_satisfies_fips_186_5() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        for bits in [2048, 2050] {
            let key = KeyGen::new(bits).generate(&mut rng).unwrap();
            let (p, q) = key.primes();
            let (p, q) = (big(&p), big(&q));
            let n = big(key.public_key().n());
            let e = big(key.public_key().e());
            let d = big(&key.d());
            assert_eq!(&p * &q, n);
            assert_eq!(n.bits(), bits as u64);
            let one = BigUint::from(1u8);
            let lambda = num_integer::Integer::lcm(&(&p - &one), &(&q - &one));
            assert_eq!((&d * &e) % &lambda, one);
            assert!(d < lambda);
            assert!(d > (BigUint::from(1u8) << (bits / 2)));
            let diff = if p > q { &p - &q } else { &q - &p };
            assert!(diff > (BigUint::from(1u8) << (bits / 2 - 100)));
            let (dp, dq, qinv) = key.crt_values();
            assert_eq!(big(&dp), &d % (&p - &one));
            assert_eq!(big(&dq), &d % (&q - &one));
            assert_eq!((big(&qinv) * &q) % &p, one);
        }
    }

    #[test]
    fn weak_sizes_need_the_flag() {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        assert_eq!(
            KeyGen::new(1024).generate(&mut rng).unwrap_err(),
            Error::KeyTooSmall {
                bits: 1024,
                min: 2048
            }
        );
        let key = KeyGen::new(1024)
            .allow_weak_key_size(true)
            .generate(&mut rng)
            .unwrap();
        assert_eq!(key.public_key().bits(), 1024);
        // The legacy path's primes: apart by more than 2^(nlen/2 − 100).
        let (p, q) = key.primes();
        let (p, q) = (big(&p), big(&q));
        assert_eq!(&p * &q, big(key.public_key().n()));
        let diff = if p > q { &p - &q } else { &q - &p };
        assert!(diff > (BigUint::from(1u8) << (1024 / 2 - 100)));
        assert_eq!(
            KeyGen::new(512)
                .allow_weak_key_size(true)
                .generate(&mut rng)
                .unwrap_err(),
            Error::KeyTooSmall {
                bits: 512,
                min: 1024
            }
        );
    }

    #[test]
    fn bad_parameters() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        assert_eq!(
            KeyGen::new(2049).generate(&mut rng).unwrap_err(),
            Error::InvalidKeySize { bits: 2049 }
        );
        assert_eq!(
            KeyGen::new(16386).generate(&mut rng).unwrap_err(),
            Error::KeyTooLarge {
                bits: 16386,
                max: 16384
            }
        );
        for e in [3, 65536, 65537 - 2 * 16384, 1 << 16] {
            assert_eq!(
                KeyGen::new(2048)
                    .public_exponent(e)
                    .generate(&mut rng)
                    .unwrap_err(),
                Error::InvalidExponent,
                "{e}"
            );
        }
    }

    #[test]
    fn inverse_of_e_matches_num_bigint() {
        let lambda = SecretUint::from(
            "0x2f3a7c5e9b1d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d"
                .parse::<BoxedUint>()
                .unwrap(),
        );
        let d = inverse_of_public_exponent(65537, &lambda).unwrap();
        let (l, d) = (big(&lambda.expose().clone()), big(&d.expose().clone()));
        assert_eq!((d * BigUint::from(65537u32)) % l, BigUint::from(1u8));
    }
}
