//! [`RsaPrivateKey`] and the private operation: CRT with Garner's
//! recombination (over every prime of a multi-prime key), base blinding,
//! and the check against the public key.

use alloc::vec::Vec;
use core::fmt;

use numcrypt_limbs::ct_audit::{declassified, declassify_choice};
use numcrypt_limbs::{
    BoxedUint, MontyForm, MontyParams, PowOperand, SecretUint, Unsigned, limbs_for_bits,
};
use rand_core::TryCryptoRng;
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::blinding::{Blinding, BlindingPair};
use crate::multi_prime::{OtherPrime, OtherPrimeInfo, check_prime_count};
use crate::prime_modulus::{PrimeModulus, minus_one};
use crate::rng::{Draws, MAX_DRAWS};
use crate::{Error, MIN_PRIVATE_MODULUS_BITS, RsaPublicKey};

/// An RSA private key: the public key, `d`, the primes `p` and `q`, and
/// the CRT values `dP = d mod (p − 1)`, `dQ = d mod (q − 1)` and
/// `qInv = q^-1 mod p`, with the Montgomery parameters for `p` and `q`
/// precomputed; for a multi-prime key (RFC 8017 §3.2), the further primes
/// `r_i` with their `d_i` and `t_i` ([`OtherPrimeInfo`]).
///
/// Every secret is zeroized when the key is dropped, and `Debug` prints
/// only the public key. The private operation is constant time (see
/// [`crate`] for what blinding adds and what the check catches).
///
/// Keys of 1024 to 2047 bits can be made and read (to export their public
/// key, for instance), but their private operations are refused with
/// [`Error::WeakKey`] unless the key was opted in with
/// [`allow_weak_key`](Self::allow_weak_key).
pub struct RsaPrivateKey {
    public: RsaPublicKey,
    d: SecretUint,
    p: PrimeModulus,
    q: PrimeModulus,
    dp: SecretUint,
    dq: SecretUint,
    qinv: SecretUint,
    /// `qInv` in Montgomery form modulo `p`, for Garner.
    qinv_mont: MontyForm<SecretUint>,
    /// The primes after `p` and `q` of a multi-prime key, in the order of
    /// its encoding; empty for a two-prime key.
    others: Vec<OtherPrime>,
    /// Whether `x < n` implies `x < p·R` (and `q·R`), which lets the
    /// private operation reduce modulo `p` without a division.
    redc_fits: bool,
    /// SHA-256 of `d` (as `k` big-endian bytes): the HMAC key of the
    /// implicit-rejection key derivation.
    pub(crate) kdk_key: Zeroizing<[u8; 32]>,
    blinding: Blinding,
    /// Whether private operations are allowed below 2048 bits
    /// ([`allow_weak_key`](Self::allow_weak_key)).
    allow_weak: bool,
}

// Every secret field zeroizes itself when dropped (`SecretUint`,
// `PrimeModulus`, `Zeroizing`, the blinding pair's `SecretUint`s, the
// further primes' `OtherPrime`s, made of the same).
impl zeroize::ZeroizeOnDrop for RsaPrivateKey {}

/// How the private operation is run: blinded (always, outside benches),
/// and, in tests, with a fault injected into one CRT half.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Mode {
    pub(crate) unblinded: bool,
    #[cfg(test)]
    pub(crate) fault: Option<Fault>,
}

impl Mode {
    /// Without blinding: the trial operation on a fixed value when a key is
    /// built, and the benchmark of what blinding costs.
    pub(crate) const fn unblinded() -> Self {
        Self {
            unblinded: true,
            #[cfg(test)]
            fault: None,
        }
    }
}

/// A fault injected by the tests: flip bit `bit` of the result modulo the
/// `prime`-th prime (0 for `p`, 1 for `q`, 2 and up for the others).
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fault {
    pub(crate) prime: usize,
    pub(crate) bit: u32,
}

impl RsaPrivateKey {
    /// A key from `n`, `e`, `d`, `p` and `q`; the CRT values are computed.
    /// Every part is checked as in [`from_crt_components`](Self::from_crt_components).
    pub fn from_components(
        n: &BoxedUint,
        e: &BoxedUint,
        d: &BoxedUint,
        p: &BoxedUint,
        q: &BoxedUint,
    ) -> Result<Self, Error> {
        let public = RsaPublicKey::new(n, e)?;
        let [p, q] = <[SecretUint; 2]>::try_from(factors(&public, &[p, q])?)
            .map_err(|_| Error::InconsistentKey)?;
        let d = fit(d, public.n().nlimbs())?;
        let factors_ok = factors_usable(&p) & factors_usable(&q);
        if !declassify_choice(factors_ok) {
            return Err(Error::InconsistentKey);
        }
        let dp = d.rem(&minus_one(&p)).map_err(|_| Error::InconsistentKey)?;
        let dq = d.rem(&minus_one(&q)).map_err(|_| Error::InconsistentKey)?;
        let qinv = q.inv_mod(&p).map_err(|_| Error::InconsistentKey)?;
        Self::assemble(public, d, p, q, dp, dq, qinv, Vec::new())
    }

    /// A key from `n`, `e` and `d` alone (a JWK or a test vector may give
    /// no primes): `p` and `q` are recovered by the method of NIST SP
    /// 800-56B rev. 2, appendix C.2 (`d·e − 1 = 2^t·r` is a multiple of
    /// `λ(n)`, so for most `g` the sequence `g^r, g^2r, …` meets a square
    /// root of 1 other than ±1, and `gcd(root − 1, n)` is a factor), then
    /// checked as in [`from_components`](Self::from_components).
    ///
    /// Variable time in `d` and the factors (a one-off import; prefer a
    /// format that carries the primes). [`Error::InconsistentKey`] if `d`
    /// does not invert `e`.
    pub fn from_exponents_vartime(
        n: &BoxedUint,
        e: &BoxedUint,
        d: &BoxedUint,
    ) -> Result<Self, Error> {
        let public = RsaPublicKey::new(n, e)?;
        let n = SecretUint::from(public.n().clone());
        // d < n and e < 2^33 (checked by `RsaPublicKey::new`) before any
        // arithmetic, so the work is bounded by n's size.
        let d = fit(d, n.nlimbs())?;
        let wide = n.nlimbs() + 2;
        let (d_wide, e_wide) = (
            d.at_width(wide),
            SecretUint::from(public.e().clone()).at_width(wide),
        );
        // d·e − 1 = k·λ(n) = 2^t·r with r odd.
        let k = minus_one(&d_wide.wrapping_mul(&e_wide));
        let t = k.trailing_zeros();
        if bool::from(k.is_zero()) || t == 0 {
            return Err(Error::InconsistentKey);
        }
        let r = k.shr_vartime(t);
        let params = public.params();
        let one = n.like_u64(1);
        let n_minus_one = minus_one(&n);
        // Small bases in turn: each succeeds with probability at least 1/2.
        for g in [
            2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
        ] {
            let g = params.to_monty(&n.like_u64(g));
            let mut y = params.from_monty(&params.pow_vartime(&g, &r));
            if bool::from(y.ct_eq_value(&one) | y.ct_eq_value(&n_minus_one)) {
                continue;
            }
            for _ in 0..t {
                let x = params.from_monty(&params.square(&params.to_monty(&y)));
                if bool::from(x.ct_eq_value(&one)) {
                    // y is a square root of 1 other than ±1.
                    let p = minus_one(&y).gcd_vartime(&n);
                    let (q, rem) = n.div_rem_vartime(&p).map_err(|_| Error::InconsistentKey)?;
                    if !bool::from(rem.is_zero()) {
                        return Err(Error::InconsistentKey);
                    }
                    let (p, q) = (
                        Zeroizing::new(p.expose().clone()),
                        Zeroizing::new(q.expose().clone()),
                    );
                    return Self::from_components(public.n(), e, d.expose(), &p, &q);
                }
                if bool::from(x.ct_eq_value(&n_minus_one)) {
                    break;
                }
                y = x;
            }
        }
        Err(Error::InconsistentKey)
    }

    /// A key from all eight PKCS#1 values (as in an `RSAPrivateKey`
    /// structure), checked in constant time: `p·q = n`, `p` and `q` odd and
    /// above 1, `d < n`, `dP = d mod (p − 1)` and `dQ = d mod (q − 1)`,
    /// `e·dP ≡ 1 (mod p − 1)` and `e·dQ ≡ 1 (mod q − 1)`,
    /// `qInv·q ≡ 1 (mod p)`; then a trial private operation. Any failure
    /// is [`Error::InconsistentKey`], whichever check it was.
    ///
    /// `p` and `q` are not tested for primality (that would take about 20
    /// ms at 2048 bits): a composite factor makes the checks above or the
    /// trial operation fail, or, at worst, some later private operation,
    /// whose check against the public key then refuses to return anything.
    #[allow(clippy::too_many_arguments)]
    pub fn from_crt_components(
        n: &BoxedUint,
        e: &BoxedUint,
        d: &BoxedUint,
        p: &BoxedUint,
        q: &BoxedUint,
        dp: &BoxedUint,
        dq: &BoxedUint,
        qinv: &BoxedUint,
    ) -> Result<Self, Error> {
        Self::from_multi_prime_components(n, e, d, p, q, dp, dq, qinv, &[])
    }

    /// A multi-prime key (RFC 8017 §3.2) from the eight PKCS#1 values and
    /// the primes after `p` and `q` ([`OtherPrimeInfo`]: `r_i`,
    /// `d_i = d mod (r_i − 1)`, `t_i = (r_1·…·r_(i−1))^-1 mod r_i`), as a
    /// PKCS#1 `RSAPrivateKey` of version `multi` holds them; with no
    /// others, the same as [`from_crt_components`](Self::from_crt_components).
    ///
    /// Checked before any arithmetic, in this order: the number of primes
    /// against [`max_primes`](crate::max_primes) for `n`'s size
    /// ([`Error::TooManyPrimes`]: at most 3 below 4096 bits, 4 below 8192,
    /// 5, as OpenSSL allows); every prime no wider than `n`, their bit
    /// lengths adding up to what a product of that many factors of `n`'s
    /// length can have; `d` no wider than `n`, each `d_i` and `t_i` no
    /// wider than its prime, `dP` and `qInv` than `p`, `dQ` than `q`. Then,
    /// in constant time, as for two primes and for each further prime: the
    /// product of all the primes is `n` at full width, each is odd and
    /// above 1, `d_i = d mod (r_i − 1)`, `e·d_i ≡ 1 (mod r_i − 1)`,
    /// `t_i < r_i` and `t_i·r_1·…·r_(i−1) ≡ 1 (mod r_i)` (so the primes are
    /// pairwise coprime); then a trial private operation. A failure of
    /// these is [`Error::InconsistentKey`].
    #[allow(clippy::too_many_arguments)]
    pub fn from_multi_prime_components(
        n: &BoxedUint,
        e: &BoxedUint,
        d: &BoxedUint,
        p: &BoxedUint,
        q: &BoxedUint,
        dp: &BoxedUint,
        dq: &BoxedUint,
        qinv: &BoxedUint,
        others: &[OtherPrimeInfo],
    ) -> Result<Self, Error> {
        let public = RsaPublicKey::new(n, e)?;
        check_prime_count(2 + others.len(), public.bits())?;
        // Every part's size first: a hostile file's oversized values are
        // refused before any arithmetic on them.
        let given: Vec<&BoxedUint> = [p, q]
            .into_iter()
            .chain(others.iter().map(|o| &o.prime))
            .collect();
        let mut primes = factors(&public, &given)?.into_iter();
        let (Some(p), Some(q)) = (primes.next(), primes.next()) else {
            return Err(Error::InconsistentKey);
        };
        let d = fit(d, public.n().nlimbs())?;
        let dp_given = fit(dp, p.nlimbs())?;
        let dq_given = fit(dq, q.nlimbs())?;
        let qinv_given = fit(qinv, p.nlimbs())?;
        let others = primes
            .zip(others)
            .map(|(r, o)| {
                let (exponent, coefficient) = (
                    fit(&o.exponent, r.nlimbs())?,
                    fit(&o.coefficient, r.nlimbs())?,
                );
                Ok(OtherParts {
                    prime: r,
                    exponent,
                    coefficient,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let usable = others
            .iter()
            .fold(factors_usable(&p) & factors_usable(&q), |ok, o| {
                ok & factors_usable(&o.prime)
            });
        if !declassify_choice(usable) {
            return Err(Error::InconsistentKey);
        }
        // Each given CRT exponent is d reduced modulo its prime minus one.
        let reduced =
            |prime: &SecretUint| d.rem(&minus_one(prime)).map_err(|_| Error::InconsistentKey);
        let (dp, dq) = (reduced(&p)?, reduced(&q)?);
        let mut ok = dp.ct_eq_value(&dp_given) & dq.ct_eq_value(&dq_given);
        for o in &others {
            ok &= reduced(&o.prime)?.ct_eq_value(&o.exponent);
        }
        if !declassify_choice(ok & qinv_given.ct_lt_value(&p)) {
            return Err(Error::InconsistentKey);
        }
        Self::assemble(public, d, p, q, dp, dq, qinv_given, others)
    }

    /// Builds the key from checked-shape parts and checks the arithmetic
    /// relations and a trial private operation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assemble(
        public: RsaPublicKey,
        d: SecretUint,
        p: SecretUint,
        q: SecretUint,
        dp: SecretUint,
        dq: SecretUint,
        qinv: SecretUint,
        others: Vec<OtherParts>,
    ) -> Result<Self, Error> {
        let n = SecretUint::from(public.n().clone());
        let nl = n.nlimbs();
        let e = SecretUint::from(public.e().clone());
        let (pm1, qm1) = (minus_one(&p), minus_one(&q));
        let one = SecretUint::from_u64(1, 1);
        // Widths are public; the factors fit n's (so `at_width` cuts nothing
        // off before the product is compared with n).
        let too_wide = |x: &SecretUint| x.nlimbs() > nl;
        if too_wide(&p) || too_wide(&q) || too_wide(&d) || others.iter().any(|o| too_wide(&o.prime))
        {
            return Err(Error::InconsistentKey);
        }
        // The product of the primes, at full width: p·q, then each further
        // prime in turn, with the product of those before it kept for that
        // prime's coefficient and recombination.
        let (mut product, hi) = p.at_width(nl).widening_mul(&q.at_width(nl));
        let mut product_ok = hi.is_zero();
        let mut products_before = Vec::with_capacity(others.len());
        for o in &others {
            let (lo, hi) = product.widening_mul(&o.prime.at_width(nl));
            products_before.push(core::mem::replace(&mut product, lo));
            product_ok &= hi.is_zero();
        }
        product_ok &= product.ct_eq_value(&n);
        // a·b ≡ 1 (mod m), for operands of any widths.
        let inverse_pair = |a: &SecretUint, b: &SecretUint, m: &SecretUint| -> Choice {
            let w = a.nlimbs().max(b.nlimbs());
            match a.at_width(w).mul_mod(&b.at_width(w), m) {
                Ok(r) => r.ct_eq_value(&one),
                Err(_) => Choice::from(0),
            }
        };
        // dx is e's inverse modulo m, and below m.
        let exp_ok = |dx: &SecretUint, m: &SecretUint| inverse_pair(dx, &e, m) & dx.ct_lt_value(m);
        let mut ok = product_ok
            & d.ct_lt_value(&n)
            & exp_ok(&dp, &pm1)
            & exp_ok(&dq, &qm1)
            & qinv.ct_lt_value(&p)
            & inverse_pair(&qinv, &q, &p);
        for (o, before) in others.iter().zip(&products_before) {
            ok &= exp_ok(&o.exponent, &minus_one(&o.prime))
                & o.coefficient.ct_lt_value(&o.prime)
                & inverse_pair(&o.coefficient, before, &o.prime);
        }
        if !declassify_choice(ok) {
            return Err(Error::InconsistentKey);
        }
        // The primes' sizes set widths, which are public.
        let bits: Vec<u32> = [&p, &q]
            .into_iter()
            .chain(others.iter().map(|o| &o.prime))
            .map(|x| declassified(x.bits()))
            .collect();
        let total: u32 = bits.iter().sum();
        // x < n is below r·R when n/r < R: n/r < 2^(the other primes' bits).
        let fits = |i: usize, limbs: usize| total - bits[i] <= limbs as u32 * 64;
        let (p_bits, q_bits) = (bits[0], bits[1]);
        let pmod = PrimeModulus::new(&p, p_bits).ok_or(Error::InconsistentKey)?;
        let qmod = PrimeModulus::new(&q, q_bits).ok_or(Error::InconsistentKey)?;
        let redc_fits = fits(0, p.nlimbs()) && fits(1, q.nlimbs());
        let qinv_mont = pmod.params.to_monty(&qinv.at_width(p.nlimbs()));
        let others = others
            .into_iter()
            .zip(products_before)
            .zip(&bits[2..])
            .enumerate()
            .map(|(i, ((o, product_before), &bits))| {
                let prime = PrimeModulus::new(&o.prime, bits).ok_or(Error::InconsistentKey)?;
                let coefficient_mont = prime.params.to_monty(&o.coefficient);
                Ok(OtherPrime {
                    redc_fits: fits(i + 2, o.prime.nlimbs()),
                    prime,
                    exponent: o.exponent.clone(),
                    coefficient: o.coefficient.clone(),
                    coefficient_mont,
                    product_before,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let kdk_key = kdk_key(&public.i2osp(&d.at_width(nl))?);
        let key = Self {
            public,
            d: d.at_width(nl),
            dp: dp.at_width(p.nlimbs()),
            dq: dq.at_width(q.nlimbs()),
            qinv: qinv.at_width(p.nlimbs()),
            p: pmod,
            q: qmod,
            qinv_mont,
            others,
            redc_fits,
            kdk_key,
            blinding: Blinding::new(),
            allow_weak: false,
        };
        // A trial private operation on a fixed value: its check against the
        // public key catches factors that multiply to n but are not prime.
        let x = SecretUint::from_u64(2, nl);
        key.private_op_unchecked_size(None::<&mut NoRng>, &x, Mode::unblinded())
            .map_err(|_| Error::InconsistentKey)?;
        Ok(key)
    }

    /// The limb count of `p` (public: it follows from the key size).
    #[cfg(feature = "std")] // the batch signer's
    pub(crate) fn prime_limbs(&self) -> usize {
        self.p.modulus().nlimbs()
    }

    /// The public key.
    pub fn public_key(&self) -> &RsaPublicKey {
        &self.public
    }

    /// The same key, restricted to `algorithm` (an RSA-PSS key, for
    /// instance): see [`RsaPublicKey::with_algorithm`].
    pub fn with_algorithm(mut self, algorithm: crate::KeyAlgorithm) -> Self {
        self.public = self.public.clone().with_algorithm(algorithm);
        self
    }

    /// The modulus' length in bytes.
    pub fn size(&self) -> usize {
        self.public.size()
    }

    /// The private exponent `d` (a copy: zeroize it when done).
    pub fn d(&self) -> Zeroizing<BoxedUint> {
        Zeroizing::new(self.d.expose().clone())
    }

    /// The primes `p` and `q` (copies: zeroize them when done); a
    /// multi-prime key's others are [`other_primes`](Self::other_primes).
    pub fn primes(&self) -> (Zeroizing<BoxedUint>, Zeroizing<BoxedUint>) {
        (
            Zeroizing::new(self.p.modulus().expose().clone()),
            Zeroizing::new(self.q.modulus().expose().clone()),
        )
    }

    /// `dP`, `dQ` and `qInv` (copies: zeroize them when done).
    pub fn crt_values(
        &self,
    ) -> (
        Zeroizing<BoxedUint>,
        Zeroizing<BoxedUint>,
        Zeroizing<BoxedUint>,
    ) {
        (
            Zeroizing::new(self.dp.expose().clone()),
            Zeroizing::new(self.dq.expose().clone()),
            Zeroizing::new(self.qinv.expose().clone()),
        )
    }

    /// A multi-prime key's primes after `p` and `q`, with their CRT values
    /// (copies, wiped when dropped); empty for a two-prime key.
    pub fn other_primes(&self) -> Vec<OtherPrimeInfo> {
        self.others
            .iter()
            .map(|o| OtherPrimeInfo {
                prime: o.prime.modulus().expose().clone(),
                exponent: o.exponent.expose().clone(),
                coefficient: o.coefficient.expose().clone(),
            })
            .collect()
    }

    /// The number of primes: 2, or up to [`MAX_PRIMES`](crate::MAX_PRIMES)
    /// for a multi-prime key.
    pub fn prime_count(&self) -> usize {
        2 + self.others.len()
    }

    /// The PKCS#1 values as big-endian bytes, each at its minimal length
    /// (for encoding): the eight of every key, and `(r_i, d_i, t_i)` for
    /// each prime after `p` and `q`.
    #[allow(clippy::type_complexity)]
    pub(crate) fn pkcs1_values(&self) -> ([Zeroizing<Vec<u8>>; 8], Vec<[Zeroizing<Vec<u8>>; 3]>) {
        let bytes = |x: &SecretUint| Zeroizing::new(x.expose().to_be_bytes_minimal_vartime());
        let others = self
            .others
            .iter()
            .map(|o| {
                [
                    bytes(o.prime.modulus()),
                    bytes(&o.exponent),
                    bytes(&o.coefficient),
                ]
            })
            .collect();
        (
            [
                Zeroizing::new(self.public.n_bytes()),
                Zeroizing::new(self.public.e_bytes()),
                bytes(&self.d),
                bytes(self.p.modulus()),
                bytes(self.q.modulus()),
                bytes(&self.dp),
                bytes(&self.dq),
                bytes(&self.qinv),
            ],
            others,
        )
    }

    /// The same key, allowed to sign and decrypt although its modulus is
    /// below 2048 bits (1024 to 2047 bits: smaller keys are not read at
    /// all). Without it those operations are [`Error::WeakKey`].
    ///
    /// Only for data that must still be read or systems that cannot be
    /// changed: such a key is within reach of a well-funded attacker (NIST
    /// SP 800-131A disallowed it after 2013). As with SHA-1 signing
    /// ([`pkcs1v15::SigningKey::try_new_allowing_sha1`](crate::pkcs1v15::SigningKey::try_new_allowing_sha1)),
    /// the opt-in is made once, where the weak thing is chosen (here the
    /// key, when it is loaded), and travels with it into the signing keys
    /// made from it. Encryption to such a key stays refused
    /// ([`Error::KeyTooSmall`]): nothing new should depend on it.
    pub fn allow_weak_key(mut self) -> Self {
        self.allow_weak = true;
        self
    }

    /// Whether [`allow_weak_key`](Self::allow_weak_key) was applied.
    pub fn allows_weak_key(&self) -> bool {
        self.allow_weak
    }

    /// Refuses private operations on keys below 2048 bits, unless the key
    /// was opted in.
    pub(crate) fn check_private_size(&self) -> Result<(), Error> {
        let bits = self.public.bits();
        if bits < MIN_PRIVATE_MODULUS_BITS && !self.allow_weak {
            return Err(Error::WeakKey {
                bits,
                min: MIN_PRIVATE_MODULUS_BITS,
            });
        }
        Ok(())
    }

    /// RSASP1/RSADP: `x^d mod n` for `x < n`, blinded, by CRT, checked,
    /// in OpenSSL's order (each step its own function, one for every
    /// number of primes, so that a batch can run them per lane):
    ///
    /// 1. [Blinding](crate::blinding): `x' = x·r^e mod n`, with the key's
    ///    next blinding pair `(r^e, r^-1)` ([`BlindingPair::blind`]).
    /// 2. [`crt`](Self::crt) on `x'`: `x'` reduced modulo each prime,
    ///    `m'_p = x'^dP mod p`, `m'_q = x'^dQ mod q` (and `x'^d_i mod r_i`
    ///    for a multi-prime key) by constant-time fixed-window
    ///    exponentiations run in pairs (the limbs crate's
    ///    `pow_bounded_pair`, on its AVX-512 IFMA backend where the CPU has
    ///    one), and [the recombination](Self::recombine) of the blinded
    ///    residues into `m' = x'^d mod n`.
    /// 3. [The check](Self::check): `m'^e ≡ x'` modulo each prime (so
    ///    modulo `n`), or [`Error::FaultDetected`] and no output (`m'` is
    ///    wiped as it is dropped). A fault in one residue
    ///    (Boneh–DeMillo–Lipton) would give an `m` with `gcd(m^e − x, n)`
    ///    a proper factor; the check stops it from leaving this function.
    /// 4. Unblinding: `m = m'·r^-1 mod n` ([`BlindingPair::unblind`]), a
    ///    multiplication modulo the public `n` (a fault there spoils `m`
    ///    modulo every prime, which reveals none).
    pub(crate) fn private_op<R: TryCryptoRng + ?Sized>(
        &self,
        rng: Option<&mut R>,
        x: &SecretUint,
        mode: Mode,
    ) -> Result<SecretUint, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        self.check_private_size()?;
        self.private_op_unchecked_size(rng, x, mode)
    }

    fn private_op_unchecked_size<R: TryCryptoRng + ?Sized>(
        &self,
        rng: Option<&mut R>,
        x: &SecretUint,
        mode: Mode,
    ) -> Result<SecretUint, Error> {
        if mode.unblinded {
            return self.crt_checked(x, mode);
        }
        let pair = self.take_blinding(rng)?;
        let n = self.public.params();
        let blinded = pair.blind(n, x);
        let m = self.crt_checked(&blinded, mode)?;
        Ok(pair.unblind(n, &m))
    }

    /// Steps 2 and 3 of [`private_op`](Self::private_op) on a (blinded)
    /// `x < n`: `x^d mod n`, or [`Error::FaultDetected`].
    fn crt_checked(&self, x: &SecretUint, mode: Mode) -> Result<SecretUint, Error> {
        let m = self.crt(x, mode);
        // A fault is reported, so the verdict is public.
        if declassify_choice(self.check(&m, x)) {
            Ok(m)
        } else {
            Err(Error::FaultDetected)
        }
    }

    /// `x^d mod n` for `x < n` by the CRT: constant-time exponentiations
    /// modulo each prime, in interleaved pairs (`p` with `q`, then the
    /// others two by two), then [`recombine`](Self::recombine).
    pub(crate) fn crt(&self, x: &SecretUint, mode: Mode) -> SecretUint {
        let (p, q) = (&self.p, &self.q);
        #[cfg(test)]
        trace::record(trace::Step::CrtInput, x);
        let (xp, xq) = (p.reduce(x, self.redc_fits), q.reduce(x, self.redc_fits));
        // Both halves in one call: the IFMA backend runs them interleaved.
        let halves = [
            (&p.params, &xp, self.dp.as_ref()),
            (&q.params, &xq, self.dq.as_ref()),
        ];
        let [mp, mq] = MontyParams::pow_bounded_pair(halves, p.bits.max(q.bits));
        let xs: Vec<_> = self
            .others
            .iter()
            .map(|o| o.prime.reduce(x, o.redc_fits))
            .collect();
        let ms = pow_others(&self.others, &xs);
        #[cfg(test)]
        let (mp, mq, ms) = self.inject_fault(mp, mq, ms, mode);
        let _ = mode;
        self.recombine(&mp, &mq, &ms)
    }

    /// Whether `m^e ≡ x` modulo every prime (so modulo `n`), for `m` and
    /// `x` below `n`: both are reduced afresh, so a fault in the reduction
    /// that fed the exponentiation shows too.
    pub(crate) fn check(&self, m: &SecretUint, x: &SecretUint) -> Choice {
        #[cfg(test)]
        trace::record(trace::Step::CheckInput, x);
        let (p, q, e) = (&self.p, &self.q, self.public.e());
        let (mp, mq) = p.params.pow_vartime_pair(
            &p.reduce(m, self.redc_fits),
            &q.params,
            &q.reduce(m, self.redc_fits),
            e,
        );
        let mut ok =
            mp.ct_eq(&p.reduce(x, self.redc_fits)) & mq.ct_eq(&q.reduce(x, self.redc_fits));
        let ms: Vec<_> = self
            .others
            .iter()
            .map(|o| o.prime.reduce(m, o.redc_fits))
            .collect();
        for (o, me) in self
            .others
            .iter()
            .zip(pow_others_vartime(&self.others, &ms, e))
        {
            ok &= me.ct_eq(&o.prime.reduce(x, o.redc_fits));
        }
        ok
    }

    /// The residues modulo every prime (Montgomery forms: `m_p`, `m_q`, and
    /// `m_i` for each further prime in order) recombined into the value
    /// below `n`, at `n`'s width, in constant time: RFC 8017 §5.1.2's
    /// step 2.b, that is [Garner's](Self::garner) for `p` and `q`, then for
    /// each further prime `r_i`, `m ← m + (r_1·…·r_(i−1))·h` with
    /// `h = (m_i − m)·t_i mod r_i`.
    pub(crate) fn recombine(
        &self,
        mp: &MontyForm<SecretUint>,
        mq: &MontyForm<SecretUint>,
        others: &[MontyForm<SecretUint>],
    ) -> SecretUint {
        let nl = self.public.n().nlimbs();
        let mut m = self.garner(mp, mq);
        for (o, mi) in self.others.iter().zip(others) {
            let params = &o.prime.params;
            // m < r_1·…·r_(i−1) < n.
            let m_mod = o.prime.reduce(&m, o.redc_fits);
            let h = params.from_monty(&params.mul(&params.sub(mi, &m_mod), &o.coefficient_mont));
            // h < r_i, so m + (r_1·…·r_(i−1))·h < r_1·…·r_i <= n: no wrap
            // at n's width.
            m = m.wrapping_add(&h.at_width(nl).wrapping_mul(&o.product_before));
        }
        m
    }

    /// Garner's recombination of `m_p` (Montgomery form mod `p`) and `m_q`
    /// (Montgomery form mod `q`): `m_q + q·(qInv·(m_p − m_q) mod p)`, at
    /// `n`'s width. Constant time.
    fn garner(&self, mp: &MontyForm<SecretUint>, mq: &MontyForm<SecretUint>) -> SecretUint {
        let nl = self.public.n().nlimbs();
        let pp = &self.p.params;
        let mq_plain = self.q.params.from_monty(mq);
        #[cfg(test)]
        {
            trace::record(trace::Step::GarnerP, &pp.from_monty(mp));
            trace::record(trace::Step::GarnerQ, &mq_plain);
        }
        // m_q < q < R_p when redc_fits; otherwise to_monty divides.
        let mq_in_p = pp.to_monty(&mq_plain);
        let h = pp.from_monty(&pp.mul(&pp.sub(mp, &mq_in_p), &self.qinv_mont));
        // h < p, so h·q + m_q < p·q <= n: no wrap at n's width.
        h.at_width(nl)
            .wrapping_mul(&self.q.modulus().at_width(nl))
            .wrapping_add(&mq_plain.at_width(nl))
    }

    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    fn inject_fault(
        &self,
        mut mp: MontyForm<SecretUint>,
        mut mq: MontyForm<SecretUint>,
        mut ms: Vec<MontyForm<SecretUint>>,
        mode: Mode,
    ) -> (
        MontyForm<SecretUint>,
        MontyForm<SecretUint>,
        Vec<MontyForm<SecretUint>>,
    ) {
        let Some(fault) = mode.fault else {
            return (mp, mq, ms);
        };
        let flip = |m: &PrimeModulus, v: &mut MontyForm<SecretUint>| {
            let mut plain = m.params.from_monty(v);
            let bit = fault.bit % m.bits.saturating_sub(1).max(1);
            plain.as_mut()[(bit / 64) as usize] ^= 1 << (bit % 64);
            *v = m.params.to_monty(&plain);
        };
        match fault.prime {
            0 => flip(&self.p, &mut mp),
            1 => flip(&self.q, &mut mq),
            i => flip(&self.others[i - 2].prime, &mut ms[i - 2]),
        }
        (mp, mq, ms)
    }

    /// A fresh blinding pair: `r^e` and `r^-1` modulo `n` for a uniformly
    /// random unit `r` modulo `n`, computed modulo each prime (`r^e` by the
    /// public exponentiation, `r^-1` by the limbs crate's constant-time
    /// inverse, safegcd, each at the prime's width) and
    /// [recombined](Self::recombine). A generator that fails, or whose
    /// draws keep being refused, gives [`Error::Rng`] after at most
    /// [`MAX_DRAWS`] tries.
    pub(crate) fn fresh_blinding_pair<R: TryCryptoRng + ?Sized>(
        &self,
        draws: &mut Draws<'_, R>,
    ) -> Result<BlindingPair, Error> {
        let (p, q, e) = (&self.p, &self.q, self.public.e());
        let n = self.public.params();
        for _ in 0..MAX_DRAWS {
            let r = draws.random_below(n.modulus())?;
            let (rp, rq) = (p.reduce(&r, self.redc_fits), q.reduce(&r, self.redc_fits));
            let rs: Vec<_> = self
                .others
                .iter()
                .map(|o| o.prime.reduce(&r, o.redc_fits))
                .collect();
            // A zero residue (probability about 2^-340 or less from a
            // working generator) is reported by the inverse: draw again.
            // Revealing that is harmless.
            let (Ok(ip), Ok(iq)) = (p.params.invert(&rp), q.params.invert(&rq)) else {
                continue;
            };
            let Ok(irs) = self
                .others
                .iter()
                .zip(&rs)
                .map(|(o, ri)| o.prime.params.invert(ri))
                .collect::<Result<Vec<_>, _>>()
            else {
                continue;
            };
            let (ap, aq) = p.params.pow_vartime_pair(&rp, &q.params, &rq, e);
            let ars = pow_others_vartime(&self.others, &rs, e);
            let a = n.to_monty(&self.recombine(&ap, &aq, &ars));
            let ai = n.to_monty(&self.recombine(&ip, &iq, &irs));
            return Ok(BlindingPair::new(a, ai));
        }
        Err(draws.give_up())
    }

    /// The key's next blinding pair; `rng` is needed when a fresh `r` is
    /// due ([`Error::Rng`] without one, or when it fails).
    fn take_blinding<R: TryCryptoRng + ?Sized>(
        &self,
        rng: Option<&mut R>,
    ) -> Result<BlindingPair, Error> {
        self.blinding.take(self.public.params(), || {
            let mut draws = Draws::new(rng.ok_or(Error::Rng)?);
            let pair = self.fresh_blinding_pair(&mut draws);
            draws.finish(pair)
        })
    }

    /// The pair the next private operation will use, if one is cached
    /// (tests).
    #[cfg(test)]
    pub(crate) fn next_blinding_pair(&self) -> Option<BlindingPair> {
        self.blinding.peek()
    }

    /// Draws a fresh blinding pair into the key's state, as happens every
    /// 32 operations (see [`bench_hooks`](crate::bench_hooks)).
    #[cfg(feature = "insecure-bench-hooks")]
    pub(crate) fn refresh_blinding<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(), Error> {
        self.blinding.reset();
        self.take_blinding(Some(rng)).map(drop)
    }

    /// Runs the private operation on `x` with a fault injected (tests).
    #[cfg(test)]
    pub(crate) fn private_op_with_fault(
        &self,
        x: &SecretUint,
        fault: Fault,
    ) -> Result<SecretUint, Error> {
        self.private_op(
            None::<&mut NoRng>,
            x,
            Mode {
                unblinded: true,
                fault: Some(fault),
            },
        )
    }
}

/// One request of a batch private operation
/// ([`RsaPrivateKey::private_op_batch`]): the key, `x < n` at `n`'s width,
/// and how to run it.
pub(crate) type BatchInput<'a> = (&'a RsaPrivateKey, &'a SecretUint, Mode);

impl RsaPrivateKey {
    /// [`private_op`](Self::private_op) on many inputs at once, each with
    /// its own key (keys of any sizes; those of one size share the
    /// limbs crate's batch exponentiation, eight CRT halves a pass with
    /// AVX-512 IFMA): the same four steps, per request, in the same order:
    ///
    /// 1. blinding with each request's own pair from its key
    ///    ([`take_blinding`](Self::take_blinding), drawing from `rng` when
    ///    a fresh `r` is due);
    /// 2. the CRT halves of every blinded request in one batch
    ///    ([`MontyParams::pow_bounded_batch`]), then Garner per request;
    /// 3. the check `m'^e ≡ x'` modulo both primes, the exponentiations to
    ///    `e` batched too ([`check_batch`](Self::check_batch));
    /// 4. unblinding per request.
    ///
    /// One result per input, in order: a request whose key is too small,
    /// whose blinding cannot draw, or whose check fails gets its error and
    /// no output; the others are unaffected (their lanes share nothing but
    /// the pass).
    ///
    /// A lone input runs [`private_op`](Self::private_op) itself: its two
    /// halves run as a pair either way, and the batch's bookkeeping (its
    /// check padded to a whole pass of the batch kernel) costs more than it
    /// saves.
    pub(crate) fn private_op_batch<R: TryCryptoRng + ?Sized>(
        rng: &mut R,
        inputs: &[BatchInput<'_>],
    ) -> Vec<Result<SecretUint, Error>> {
        if let [(key, x, mode)] = inputs {
            return alloc::vec![key.private_op(Some(rng), x, *mode)];
        }
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        // Step 1, per request.
        let blinded: Vec<Result<(Option<BlindingPair>, SecretUint), Error>> = inputs
            .iter()
            .map(|&(key, x, mode)| {
                key.check_private_size()?;
                if mode.unblinded {
                    return Ok((None, x.clone()));
                }
                let pair = key.take_blinding(Some(&mut *rng))?;
                let xb = pair.blind(key.public.params(), x);
                Ok((Some(pair), xb))
            })
            .collect();
        let live: Vec<usize> = (0..inputs.len()).filter(|&i| blinded[i].is_ok()).collect();
        let lanes: Vec<BatchInput<'_>> = live
            .iter()
            .filter_map(|&i| match &blinded[i] {
                Ok((_, xb)) => Some((inputs[i].0, xb, inputs[i].2)),
                Err(_) => None,
            })
            .collect();
        // Steps 2 and 3, batched.
        let ms = Self::crt_batch(&lanes);
        let checks: Vec<(&RsaPrivateKey, &SecretUint, &SecretUint)> = lanes
            .iter()
            .zip(&ms)
            .map(|(&(key, xb, _), m)| (key, m, xb))
            .collect();
        let verdicts = Self::check_batch(&checks);
        let mut results: Vec<Result<SecretUint, Error>> = blinded
            .iter()
            .map(|b| match b {
                Ok(_) => Err(Error::FaultDetected),
                Err(e) => Err(*e),
            })
            .collect();
        // Step 4, per request that passed its check (a verdict is public:
        // a fault is reported).
        for ((&i, m), ok) in live.iter().zip(ms).zip(verdicts) {
            if !declassify_choice(ok) {
                continue;
            }
            let key = inputs[i].0;
            results[i] = match &blinded[i] {
                Ok((Some(pair), _)) => Ok(pair.unblind(key.public.params(), &m)),
                Ok((None, _)) => Ok(m),
                Err(e) => Err(*e),
            };
        }
        results
    }

    /// Step 2 of [`private_op_batch`](Self::private_op_batch): `x^d mod n`
    /// for every (blinded) input by the CRT, the exponentiations modulo
    /// every prime of every request in batches, one per limb count, then
    /// [`recombine`](Self::recombine) per request.
    fn crt_batch(lanes: &[BatchInput<'_>]) -> Vec<SecretUint> {
        let keys: Vec<&RsaPrivateKey> = lanes.iter().map(|l| l.0).collect();
        let reduced: Vec<Vec<MontyForm<SecretUint>>> = lanes
            .iter()
            .map(|&(key, x, _)| {
                #[cfg(test)]
                trace::record(trace::Step::CrtInput, x);
                key.residues(x)
            })
            .collect();
        let powers = by_prime_width(&keys, |jobs| {
            let operands: Vec<PowOperand<'_, SecretUint>> = jobs
                .iter()
                .map(|&(i, j)| {
                    let (prime, exponent) = keys[i].crt_prime(j);
                    (&prime.params, &reduced[i][j], exponent.as_ref())
                })
                .collect();
            let bits = jobs
                .iter()
                .map(|&(i, j)| keys[i].crt_prime(j).0.bits)
                .max()
                .unwrap_or(0);
            let mut out: Vec<MontyForm<SecretUint>> =
                operands.iter().map(|op| op.0.zero()).collect();
            // The lengths match by construction: the call cannot fail (were
            // it to, the zeros would fail the check).
            let _ = MontyParams::pow_bounded_batch(&operands, bits, &mut out);
            out
        });
        lanes
            .iter()
            .zip(powers)
            .map(|(&(key, _, mode), ms)| {
                // Every key has p and q, so every request has both (were
                // one missing, a zero would fail the check).
                let mut ms = ms.into_iter();
                let mp = ms.next().unwrap_or_else(|| key.p.params.zero());
                let mq = ms.next().unwrap_or_else(|| key.q.params.zero());
                let others: Vec<_> = ms.collect();
                #[cfg(test)]
                let (mp, mq, others) = key.inject_fault(mp, mq, others, mode);
                let _ = mode;
                key.recombine(&mp, &mq, &others)
            })
            .collect()
    }

    /// [`check`](Self::check) for many `(key, m, x)` at once: the
    /// exponentiations to `e` modulo every prime in batches, one per limb
    /// count, where every key has the same `e` (the usual 65537); one
    /// request at a time otherwise.
    pub(crate) fn check_batch(lanes: &[(&RsaPrivateKey, &SecretUint, &SecretUint)]) -> Vec<Choice> {
        let Some(&(first, _, _)) = lanes.first() else {
            return Vec::new();
        };
        let e = first.public.e();
        if lanes.iter().any(|(key, _, _)| key.public.e() != e) {
            return lanes.iter().map(|(key, m, x)| key.check(m, x)).collect();
        }
        let keys: Vec<&RsaPrivateKey> = lanes.iter().map(|l| l.0).collect();
        let reduced: Vec<Vec<MontyForm<SecretUint>>> = lanes
            .iter()
            .map(|&(key, m, x)| {
                #[cfg(test)]
                trace::record(trace::Step::CheckInput, x);
                let _ = x;
                key.residues(m)
            })
            .collect();
        let powers = by_prime_width(&keys, |jobs| {
            let operands: Vec<(&MontyParams<SecretUint>, &MontyForm<SecretUint>)> = jobs
                .iter()
                .map(|&(i, j)| (&keys[i].crt_prime(j).0.params, &reduced[i][j]))
                .collect();
            let mut out: Vec<MontyForm<SecretUint>> =
                operands.iter().map(|op| op.0.zero()).collect();
            // The lengths match by construction; were the call to fail, the
            // zeros would fail the check (they are no powers of valid m).
            let _ = MontyParams::pow_vartime_batch(&operands, e, &mut out);
            out
        });
        lanes
            .iter()
            .zip(powers)
            .map(|(&(key, _, x), ms)| {
                let expected = key.residues(x);
                let mut ok = Choice::from((ms.len() == expected.len()) as u8);
                for (m, x) in ms.iter().zip(&expected) {
                    ok &= m.ct_eq(x);
                }
                ok
            })
            .collect()
    }

    /// `x` modulo every prime (Montgomery forms: `p`, `q`, then the
    /// others in order), for `x < n`.
    fn residues(&self, x: &SecretUint) -> Vec<MontyForm<SecretUint>> {
        (0..self.prime_count())
            .map(|j| self.crt_prime(j).0.reduce(x, self.prime_redc_fits(j)))
            .collect()
    }

    /// The `j`-th prime (`p`, `q`, then the others) and its CRT exponent.
    fn crt_prime(&self, j: usize) -> (&PrimeModulus, &SecretUint) {
        match j {
            0 => (&self.p, &self.dp),
            1 => (&self.q, &self.dq),
            _ => {
                let o = &self.others[j - 2];
                (&o.prime, &o.exponent)
            }
        }
    }

    /// Whether `x < n` implies `x < r·R` for the `j`-th prime `r`.
    fn prime_redc_fits(&self, j: usize) -> bool {
        match j {
            0 | 1 => self.redc_fits,
            _ => self.others[j - 2].redc_fits,
        }
    }
}

/// Runs `batch` on the exponentiations of many requests, one for each
/// (request `i`, prime `j` of its key `keys[i]`), in one call per limb
/// count of the primes (public: it follows from the key sizes); `batch`
/// returns one result per job it is given, in order. The results by
/// request, then prime.
fn by_prime_width(
    keys: &[&RsaPrivateKey],
    mut batch: impl FnMut(&[(usize, usize)]) -> Vec<MontyForm<SecretUint>>,
) -> Vec<Vec<MontyForm<SecretUint>>> {
    let width = |&(i, j): &(usize, usize)| keys[i].crt_prime(j).0.modulus().nlimbs();
    let jobs: Vec<(usize, usize)> = keys
        .iter()
        .enumerate()
        .flat_map(|(i, key)| (0..key.prime_count()).map(move |j| (i, j)))
        .collect();
    let mut widths: Vec<usize> = jobs.iter().map(width).collect();
    widths.sort_unstable();
    widths.dedup();
    let mut results: Vec<Vec<Option<MontyForm<SecretUint>>>> = keys
        .iter()
        .map(|k| alloc::vec![None; k.prime_count()])
        .collect();
    for w in widths {
        let members: Vec<(usize, usize)> = jobs.iter().copied().filter(|j| width(j) == w).collect();
        for (&(i, j), value) in members.iter().zip(batch(&members)) {
            results[i][j] = Some(value);
        }
    }
    results
        .into_iter()
        .map(|r| r.into_iter().flatten().collect())
        .collect()
}

/// The primes' shape: odd and above 1 (constant time).
fn factors_usable(p: &SecretUint) -> Choice {
    p.is_odd() & !p.ct_eq_value(&p.like_u64(1))
}

/// `x` at `limbs` limbs, or [`Error::InconsistentKey`] if it does not fit:
/// the first check on every imported secret, before any arithmetic, so an
/// oversized value costs no more than reading it. Whether it fits is made
/// public (a key that fails is refused).
fn fit(x: &BoxedUint, limbs: usize) -> Result<SecretUint, Error> {
    x.resize(limbs)
        .map(SecretUint::from)
        .map_err(|_| Error::InconsistentKey)
}

/// The primes (`p`, `q`, then any others) at the widths their bit lengths
/// need, after the checks that take no arithmetic: each fits `n`'s width,
/// and their bit lengths add up to what a product of that many factors of
/// `n`'s length has: `n`'s, or up to one more per factor beyond the first.
/// (The primes' sizes follow from the key size, so they are not secrets.)
fn factors(public: &RsaPublicKey, primes: &[&BoxedUint]) -> Result<Vec<SecretUint>, Error> {
    let nl = public.n().nlimbs();
    let primes = primes
        .iter()
        .map(|p| fit(p, nl))
        .collect::<Result<Vec<_>, Error>>()?;
    let bits: Vec<u32> = primes.iter().map(|p| declassified(p.bits())).collect();
    let (total, n_bits) = (bits.iter().sum::<u32>(), public.bits());
    let extra = primes.len().saturating_sub(1) as u32;
    if total < n_bits || total > n_bits + extra {
        return Err(Error::InconsistentKey);
    }
    Ok(primes
        .iter()
        .zip(bits)
        .map(|(p, bits)| p.at_width(limbs_for_bits(bits.max(1))))
        .collect())
}

/// A prime after `p` and `q` with its CRT values, their sizes checked
/// (each at the prime's width), before the arithmetic checks.
pub(crate) struct OtherParts {
    prime: SecretUint,
    exponent: SecretUint,
    coefficient: SecretUint,
}

/// `x_i^d_i mod r_i` for each further prime, in constant time, two at a
/// time in one interleaved pass where there are two (as `p` with `q`).
fn pow_others(others: &[OtherPrime], xs: &[MontyForm<SecretUint>]) -> Vec<MontyForm<SecretUint>> {
    let mut out = Vec::with_capacity(others.len());
    for (os, xs) in others.chunks(2).zip(xs.chunks(2)) {
        match (os, xs) {
            ([a, b], [xa, xb]) => {
                let pair = [
                    (&a.prime.params, xa, a.exponent.as_ref()),
                    (&b.prime.params, xb, b.exponent.as_ref()),
                ];
                let bits = a.prime.bits.max(b.prime.bits);
                out.extend(MontyParams::pow_bounded_pair(pair, bits));
            }
            ([a], [xa]) => {
                out.push(a.prime.params.pow_bounded(xa, &a.exponent, a.prime.bits));
            }
            _ => {}
        }
    }
    out
}

/// `x_i^e mod r_i` for each further prime and the public `e` (variable
/// time in `e` only), two at a time where there are two.
fn pow_others_vartime(
    others: &[OtherPrime],
    xs: &[MontyForm<SecretUint>],
    e: &BoxedUint,
) -> Vec<MontyForm<SecretUint>> {
    let mut out = Vec::with_capacity(others.len());
    for (os, xs) in others.chunks(2).zip(xs.chunks(2)) {
        match (os, xs) {
            ([a, b], [xa, xb]) => {
                let (ma, mb) = a.prime.params.pow_vartime_pair(xa, &b.prime.params, xb, e);
                out.extend([ma, mb]);
            }
            ([a], [xa]) => out.push(a.prime.params.pow_vartime(xa, e)),
            _ => {}
        }
    }
    out
}

/// The implicit-rejection HMAC key, `SHA-256(d)` over `d`'s `k`-byte
/// encoding, hashed straight into its wiped-on-drop home (the hasher's
/// state is wiped too).
fn kdk_key(d_bytes: &[u8]) -> Zeroizing<[u8; 32]> {
    use sha2::Digest;
    let mut key = Zeroizing::new([0u8; 32]);
    let mut hasher = sha2::Sha256::new();
    hasher.update(d_bytes);
    hasher.finalize_into((&mut *key).into());
    key
}

/// A generator for operations that need none (unblinded runs): never used.
pub(crate) enum NoRng {}

impl rand_core::TryRng for NoRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        match *self {}
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        match *self {}
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
        match *self {}
    }
}

impl rand_core::TryCryptoRng for NoRng {}

impl Clone for RsaPrivateKey {
    /// A copy with its own (fresh) blinding state.
    fn clone(&self) -> Self {
        Self {
            public: self.public.clone(),
            d: self.d.clone(),
            p: self.p.clone(),
            q: self.q.clone(),
            dp: self.dp.clone(),
            dq: self.dq.clone(),
            qinv: self.qinv.clone(),
            qinv_mont: self.qinv_mont.clone(),
            others: self.others.clone(),
            redc_fits: self.redc_fits,
            kdk_key: self.kdk_key.clone(),
            blinding: Blinding::new(),
            allow_weak: self.allow_weak,
        }
    }
}

impl PartialEq for RsaPrivateKey {
    /// Equal when the public keys and `d` are (constant time in `d`).
    fn eq(&self, other: &Self) -> bool {
        self.public == other.public && bool::from(self.d.ct_eq_value(&other.d))
    }
}

impl Eq for RsaPrivateKey {}

impl fmt::Debug for RsaPrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPrivateKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// What the tests see of the private operation: the values entering the
/// CRT, Garner's recombination and the check, recorded on this thread
/// while [`trace::capture`] runs.
#[cfg(test)]
pub(crate) mod trace {
    use core::cell::RefCell;
    use std::vec::Vec;

    use numcrypt_limbs::SecretUint;

    /// Where a value was seen.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Step {
        /// The value reduced modulo `p` and `q` for the exponentiations.
        CrtInput,
        /// Garner's half modulo `p` (plain).
        GarnerP,
        /// Garner's half modulo `q` (plain).
        GarnerQ,
        /// The value the check compares `m^e` with.
        CheckInput,
    }

    std::thread_local! {
        static LOG: RefCell<Option<Vec<(Step, SecretUint)>>> = const { RefCell::new(None) };
    }

    pub(crate) fn record(step: Step, x: &SecretUint) {
        LOG.with(|log| {
            if let Some(log) = log.borrow_mut().as_mut() {
                log.push((step, x.clone()));
            }
        });
    }

    /// Runs `f`, returning what it recorded.
    pub(crate) fn capture<T>(f: impl FnOnce() -> T) -> (T, Vec<(Step, SecretUint)>) {
        LOG.with(|log| *log.borrow_mut() = Some(Vec::new()));
        let out = f();
        let log = LOG.with(|log| log.borrow_mut().take().unwrap_or_default());
        (out, log)
    }
}
