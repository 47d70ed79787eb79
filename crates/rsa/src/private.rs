//! [`RsaPrivateKey`] and the private operation: CRT with Garner's
//! recombination, base blinding, and the check against the public key.

use alloc::vec::Vec;
use core::fmt;

use numcrypt_limbs::ct_audit::{declassified, declassify_choice};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, SecretUint, Unsigned, limbs_for_bits};
use rand_core::TryCryptoRng;
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::blinding::{Blinding, BlindingPair};
use crate::prime_modulus::{PrimeModulus, minus_one};
use crate::rng::{Draws, MAX_DRAWS};
use crate::{Error, MIN_PRIVATE_MODULUS_BITS, RsaPublicKey};

/// An RSA private key: the public key, `d`, the primes `p` and `q`, and
/// the CRT values `dP = d mod (p − 1)`, `dQ = d mod (q − 1)` and
/// `qInv = q^-1 mod p`, with the Montgomery parameters for `p` and `q`
/// precomputed.
///
/// Every secret is zeroized when the key is dropped, and `Debug` prints
/// only the public key. The private operation is constant time (see
/// [`crate`] for what blinding adds and what the check catches).
///
/// Keys of 1024 to 2047 bits can be made and read (to export their public
/// key, for instance), but their private operations are refused with
/// [`Error::KeyTooSmall`].
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
    /// Whether `x < n` implies `x < p·R` (and `q·R`), which lets the
    /// private operation reduce modulo `p` without a division.
    redc_fits: bool,
    /// SHA-256 of `d` (as `k` big-endian bytes): the HMAC key of the
    /// implicit-rejection key derivation.
    pub(crate) kdk_key: Zeroizing<[u8; 32]>,
    blinding: Blinding,
}

// Every secret field zeroizes itself when dropped (`SecretUint`,
// `PrimeModulus`, `Zeroizing`, the blinding pair's `SecretUint`s).
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

/// A fault injected by the tests: flip bit `bit` of the result modulo `p`
/// (`in_p`) or `q`.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fault {
    pub(crate) in_p: bool,
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
        let (p, q) = factors(&public, p, q)?;
        let d = fit(d, public.n().nlimbs())?;
        let factors_ok = factors_usable(&p) & factors_usable(&q);
        if !declassify_choice(factors_ok) {
            return Err(Error::InconsistentKey);
        }
        let dp = d.rem(&minus_one(&p)).map_err(|_| Error::InconsistentKey)?;
        let dq = d.rem(&minus_one(&q)).map_err(|_| Error::InconsistentKey)?;
        let qinv = q.inv_mod(&p).map_err(|_| Error::InconsistentKey)?;
        Self::assemble(public, d, p, q, dp, dq, qinv)
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
        let public = RsaPublicKey::new(n, e)?;
        // Every part's size first: a hostile file's oversized values are
        // refused before any arithmetic on them.
        let (p, q) = factors(&public, p, q)?;
        let d = fit(d, public.n().nlimbs())?;
        let dp_given = fit(dp, p.nlimbs())?;
        let dq_given = fit(dq, q.nlimbs())?;
        let qinv_given = fit(qinv, p.nlimbs())?;
        if !declassify_choice(factors_usable(&p) & factors_usable(&q)) {
            return Err(Error::InconsistentKey);
        }
        let (pm1, qm1) = (minus_one(&p), minus_one(&q));
        let dp = d.rem(&pm1).map_err(|_| Error::InconsistentKey)?;
        let dq = d.rem(&qm1).map_err(|_| Error::InconsistentKey)?;
        let ok = dp.ct_eq_value(&dp_given) & dq.ct_eq_value(&dq_given) & qinv_given.ct_lt_value(&p);
        if !declassify_choice(ok) {
            return Err(Error::InconsistentKey);
        }
        Self::assemble(public, d, p, q, dp, dq, qinv_given)
    }

    /// Builds the key from checked-shape parts and checks the arithmetic
    /// relations and a trial private operation.
    pub(crate) fn assemble(
        public: RsaPublicKey,
        d: SecretUint,
        p: SecretUint,
        q: SecretUint,
        dp: SecretUint,
        dq: SecretUint,
        qinv: SecretUint,
    ) -> Result<Self, Error> {
        let n = SecretUint::from(public.n().clone());
        let nl = n.nlimbs();
        let e = SecretUint::from(public.e().clone());
        let (pm1, qm1) = (minus_one(&p), minus_one(&q));
        let one = SecretUint::from_u64(1, 1);
        // Widths are public; the factors fit n's (so `at_width` cuts nothing
        // off before the product is compared with n).
        if p.nlimbs() > nl || q.nlimbs() > nl || d.nlimbs() > nl {
            return Err(Error::InconsistentKey);
        }
        let (lo, hi) = p.at_width(nl).widening_mul(&q.at_width(nl));
        let product_ok = lo.ct_eq_value(&n) & hi.is_zero();
        // a·b ≡ 1 (mod m), for operands of any widths.
        let inverse_pair = |a: &SecretUint, b: &SecretUint, m: &SecretUint| -> Choice {
            let w = a.nlimbs().max(b.nlimbs());
            match a.at_width(w).mul_mod(&b.at_width(w), m) {
                Ok(r) => r.ct_eq_value(&one),
                Err(_) => Choice::from(0),
            }
        };
        let exp_ok = |dx: &SecretUint, m: &SecretUint| inverse_pair(dx, &e, m);
        let qinv_ok = inverse_pair(&qinv, &q, &p);
        let ok = product_ok
            & d.ct_lt_value(&n)
            & exp_ok(&dp, &pm1)
            & exp_ok(&dq, &qm1)
            & dp.ct_lt_value(&pm1)
            & dq.ct_lt_value(&qm1)
            & qinv.ct_lt_value(&p)
            & qinv_ok;
        if !declassify_choice(ok) {
            return Err(Error::InconsistentKey);
        }
        // The primes' sizes set widths, which are public.
        let (p_bits, q_bits) = (declassified(p.bits()), declassified(q.bits()));
        let pmod = PrimeModulus::new(&p, p_bits).ok_or(Error::InconsistentKey)?;
        let qmod = PrimeModulus::new(&q, q_bits).ok_or(Error::InconsistentKey)?;
        // x < n = p·q is below p·R_p exactly when q < R_p (and vice versa).
        let p_r_bits = p.nlimbs() as u32 * 64;
        let q_r_bits = q.nlimbs() as u32 * 64;
        let redc_fits = q_bits <= p_r_bits && p_bits <= q_r_bits;
        let qinv_mont = pmod.params.to_monty(&qinv.at_width(p.nlimbs()));
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
            redc_fits,
            kdk_key,
            blinding: Blinding::new(),
        };
        // A trial private operation on a fixed value: its check against the
        // public key catches factors that multiply to n but are not prime.
        let x = SecretUint::from_u64(2, nl);
        key.private_op_unchecked_size(None::<&mut NoRng>, &x, Mode::unblinded())
            .map_err(|_| Error::InconsistentKey)?;
        Ok(key)
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

    /// The primes `p` and `q` (copies: zeroize them when done).
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

    /// The eight PKCS#1 values as big-endian bytes, each at its minimal
    /// length (for encoding).
    pub(crate) fn pkcs1_values(&self) -> [Zeroizing<Vec<u8>>; 8] {
        let bytes = |x: &SecretUint| Zeroizing::new(x.expose().to_be_bytes_minimal_vartime());
        [
            Zeroizing::new(self.public.n_bytes()),
            Zeroizing::new(self.public.e_bytes()),
            bytes(&self.d),
            bytes(self.p.modulus()),
            bytes(self.q.modulus()),
            bytes(&self.dp),
            bytes(&self.dq),
            bytes(&self.qinv),
        ]
    }

    /// Refuses private operations on keys below 2048 bits.
    pub(crate) fn check_private_size(&self) -> Result<(), Error> {
        let bits = self.public.bits();
        if bits < MIN_PRIVATE_MODULUS_BITS {
            return Err(Error::KeyTooSmall {
                bits,
                min: MIN_PRIVATE_MODULUS_BITS,
            });
        }
        Ok(())
    }

    /// RSASP1/RSADP: `x^d mod n` for `x < n`, blinded, by CRT, checked,
    /// in OpenSSL's order (each step its own function, so that a batch
    /// can run them per lane):
    ///
    /// 1. [Blinding](crate::blinding): `x' = x·r^e mod n`, with the key's
    ///    next blinding pair `(r^e, r^-1)` ([`BlindingPair::blind`]).
    /// 2. [`crt`](Self::crt) on `x'`: `x'` reduced modulo `p` and `q`,
    ///    `m'_p = x'^dP mod p` and `m'_q = x'^dQ mod q` by constant-time
    ///    fixed-window exponentiations (the limbs crate's
    ///    `pow_bounded_pair`, on its AVX-512 IFMA backend where the CPU has
    ///    one), and Garner's recombination of the blinded halves into
    ///    `m' = x'^d mod n`.
    /// 3. [The check](Self::check): `m'^e ≡ x'` modulo `p` and modulo `q`
    ///    (so modulo `n`), or [`Error::FaultDetected`] and no output (`m'`
    ///    is wiped as it is dropped). A fault in one half
    ///    (Boneh–DeMillo–Lipton) would give an `m` with `gcd(m^e − x, n)` a
    ///    prime factor; the check stops it from leaving this function.
    /// 4. Unblinding: `m = m'·r^-1 mod n` ([`BlindingPair::unblind`]), a
    ///    multiplication modulo the public `n` (a fault there spoils `m`
    ///    modulo both primes, which reveals neither).
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

    /// `x^d mod n` for `x < n` by the CRT: two constant-time
    /// exponentiations in one interleaved pass, then Garner.
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
        #[cfg(test)]
        let (mp, mq) = self.inject_fault(mp, mq, mode);
        let _ = mode;
        self.garner(&mp, &mq)
    }

    /// Whether `m^e ≡ x` modulo `p` and modulo `q` (so modulo `n`), for `m`
    /// and `x` below `n`: both are reduced afresh, so a fault in the
    /// reduction that fed the exponentiation shows too.
    pub(crate) fn check(&self, m: &SecretUint, x: &SecretUint) -> Choice {
        #[cfg(test)]
        trace::record(trace::Step::CheckInput, x);
        let (p, q) = (&self.p, &self.q);
        let (mp, mq) = p.params.pow_vartime_pair(
            &p.reduce(m, self.redc_fits),
            &q.params,
            &q.reduce(m, self.redc_fits),
            self.public.e(),
        );
        mp.ct_eq(&p.reduce(x, self.redc_fits)) & mq.ct_eq(&q.reduce(x, self.redc_fits))
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
        // h < p, so h·q + m_q < p·q = n: no wrap at n's width.
        h.at_width(nl)
            .wrapping_mul(&self.q.modulus().at_width(nl))
            .wrapping_add(&mq_plain.at_width(nl))
    }

    #[cfg(test)]
    fn inject_fault(
        &self,
        mp: MontyForm<SecretUint>,
        mq: MontyForm<SecretUint>,
        mode: Mode,
    ) -> (MontyForm<SecretUint>, MontyForm<SecretUint>) {
        let Some(fault) = mode.fault else {
            return (mp, mq);
        };
        let flip = |m: &PrimeModulus, v: &MontyForm<SecretUint>| {
            let mut plain = m.params.from_monty(v);
            let bit = fault.bit % m.bits.saturating_sub(1).max(1);
            plain.as_mut()[(bit / 64) as usize] ^= 1 << (bit % 64);
            m.params.to_monty(&plain)
        };
        if fault.in_p {
            (flip(&self.p, &mp), mq)
        } else {
            (mp, flip(&self.q, &mq))
        }
    }

    /// A fresh blinding pair: `r^e` and `r^-1` modulo `n` for a uniformly
    /// random unit `r` modulo `n`, computed modulo each prime (`r^e` by the
    /// public exponentiation, `r^-1` by the limbs crate's constant-time
    /// inverse, safegcd, each at half the width) and recombined by Garner.
    /// A generator that fails, or whose draws keep being refused, gives
    /// [`Error::Rng`] after at most [`MAX_DRAWS`] tries.
    pub(crate) fn fresh_blinding_pair<R: TryCryptoRng + ?Sized>(
        &self,
        draws: &mut Draws<'_, R>,
    ) -> Result<BlindingPair, Error> {
        let (p, q) = (&self.p, &self.q);
        let n = self.public.params();
        for _ in 0..MAX_DRAWS {
            let r = draws.random_below(n.modulus())?;
            let (rp, rq) = (p.reduce(&r, self.redc_fits), q.reduce(&r, self.redc_fits));
            // A zero residue (probability about 2^-1023 from a working
            // generator) is reported by the inverse: draw again. Revealing
            // that is harmless.
            let (Ok(ip), Ok(iq)) = (p.params.invert(&rp), q.params.invert(&rq)) else {
                continue;
            };
            let (ap, aq) = p
                .params
                .pow_vartime_pair(&rp, &q.params, &rq, self.public.e());
            let a = n.to_monty(&self.garner(&ap, &aq));
            let ai = n.to_monty(&self.garner(&ip, &iq));
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

/// `p` and `q` at the widths their bit lengths need, after the checks that
/// take no arithmetic: each fits `n`'s width, and their bit lengths add up
/// to `n`'s or one more, as a product's must. (The factors' sizes follow
/// from the key size, so they are not secrets.)
fn factors(
    public: &RsaPublicKey,
    p: &BoxedUint,
    q: &BoxedUint,
) -> Result<(SecretUint, SecretUint), Error> {
    let nl = public.n().nlimbs();
    let (p, q) = (fit(p, nl)?, fit(q, nl)?);
    let (p_bits, q_bits) = (declassified(p.bits()), declassified(q.bits()));
    let n_bits = public.bits();
    if p_bits + q_bits != n_bits && p_bits + q_bits != n_bits + 1 {
        return Err(Error::InconsistentKey);
    }
    let own_width = |x: &SecretUint, bits: u32| x.at_width(limbs_for_bits(bits.max(1)));
    Ok((own_width(&p, p_bits), own_width(&q, q_bits)))
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
            redc_fits: self.redc_fits,
            kdk_key: self.kdk_key.clone(),
            blinding: Blinding::new(),
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
