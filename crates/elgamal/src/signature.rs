//! ElGamal signatures as originally defined (ElGamal 1985), hashed:
//! `r = g^k mod p`, `s = (H(m) − x r) k⁻¹ mod (p − 1)`, accepted when
//! `g^H(m) ≡ y^r r^s (mod p)`; the crate documentation lists the pitfalls
//! handled.

use alloc::vec::Vec;
use digest::Digest;
use hmac::EagerHash;
use numcrypt_common::rfc6979::{NonceGenerator, with_additional_data};
use numcrypt_limbs::{BoxedUint, Limb, MontyForm, Unsigned};
use rand_core::CryptoRng;
use subtle::{Choice, ConstantTimeLess};
use zeroize::Zeroize;

use crate::{Error, PublicKey, SecretKey, Signature};

impl SecretKey {
    /// Signs `message` hashed with `D`, with `k` derived deterministically
    /// (RFC 6979's HMAC-DRBG over `p − 1`).
    pub fn sign<D: EagerHash>(&self, message: &[u8]) -> Result<Signature, Error> {
        self.sign_core::<D>(&D::digest(message), &[])
    }

    /// Signs a message already hashed with `D` (`digest` is `D`'s output,
    /// for a message streamed through the hash): the same signature as
    /// [`sign`](Self::sign) on the message.
    pub fn sign_prehash<D: EagerHash>(&self, digest: &[u8]) -> Result<Signature, Error> {
        if digest.len() != <D as Digest>::output_size() {
            return Err(Error::InvalidDigestLength);
        }
        self.sign_core::<D>(digest, &[])
    }

    /// Signs with fresh randomness mixed into `k` (RFC 6979 section 3.6):
    /// `k` stays unpredictable even if `rng` is weak.
    pub fn sign_hedged<D: EagerHash, R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        message: &[u8],
    ) -> Result<Signature, Error> {
        let digest = D::digest(message);
        let Ok(sig) = with_additional_data(rng, |extra| self.sign_core::<D>(&digest, extra));
        sig
    }

    /// Signs each message hashed with `D` as [`sign`](Self::sign) does:
    /// the signatures equal `sign`'s, in order. The `g^k` of all messages
    /// run as one batch
    /// ([`MontyParams::pow_bounded_fixed_base_batch`](numcrypt_limbs::MontyParams::pow_bounded_fixed_base_batch):
    /// eight a pass on a CPU with AVX-512 IFMA at 2048-bit `p`), which
    /// signs many messages with one key in less time a signature.
    pub fn sign_batch<D: EagerHash>(&self, messages: &[&[u8]]) -> Result<Vec<Signature>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let group = self.group();
        let pm = group.p_monty();
        let digests: Vec<_> = messages.iter().map(|m| D::digest(m)).collect();
        let mut requests: Vec<_> = digests
            .iter()
            .map(|digest| Request::<D>::new(self, digest, &[]))
            .collect();
        let nonces: Vec<BoxedUint> = requests.iter_mut().map(|r| r.nonce(self)).collect();
        let exps: Vec<&[Limb]> = nonces.iter().map(|k| k.as_ref()).collect();
        let powers = pm.pow_bounded_fixed_base_batch(group.g_monty(), &exps, group.bits());
        let mut x_q = group.q_monty().to_monty(self.x());
        // r = g^k is published with the signature: no need to wipe it.
        let signatures = requests
            .into_iter()
            .zip(nonces)
            .zip(powers)
            .map(|((request, k), gk)| request.finish(self, &x_q, k, pm.from_monty(&gk)))
            .collect();
        x_q.zeroize();
        signatures
    }

    /// Constant time in `x` and `k`: `g^k` by the fixed-window
    /// exponentiation, `k⁻¹ mod q` by the constant-time inverse, and `s`
    /// assembled by the Chinese remainder theorem from `s mod q`
    /// (Montgomery arithmetic) and `s mod 2` (bit operations), since the
    /// constant-time inverse needs an odd modulus and `p − 1` is even.
    pub(crate) fn sign_core<D: EagerHash>(
        &self,
        digest: &[u8],
        additional: &[u8],
    ) -> Result<Signature, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let mut x_q = self.group().q_monty().to_monty(self.x());
        let mut request = Request::<D>::new(self, digest, additional);
        let k = request.nonce(self);
        let r = g_to_the(self, &k);
        let signature = request.finish(self, &x_q, k, r);
        x_q.zeroize();
        signature
    }
}

/// One signature in the making: the message's hash, reduced as signing
/// needs it, and its nonce generator.
struct Request<D: EagerHash> {
    /// `H(m) mod q`, in Montgomery form.
    e_q: MontyForm<BoxedUint>,
    /// `H(m) mod 2`.
    e_odd: Choice,
    drbg: NonceGenerator<D>,
}

impl<D: EagerHash> Request<D> {
    fn new(key: &SecretKey, digest: &[u8], additional: &[u8]) -> Self {
        let group = key.group();
        let (p, q) = (group.p(), group.q());
        let p_minus_1 = p.wrapping_sub(&p.like_u64(1));
        // e = H(m), below p − 1 for every supported group (2048 bits and up).
        let e = BoxedUint::from_be_slice_auto(digest);
        Self {
            e_q: group.q_monty().to_monty(&e.at_width(q.nlimbs())),
            e_odd: e.is_odd(),
            drbg: NonceGenerator::<D>::new(&p_minus_1, key.x(), digest, additional),
        }
    }

    /// The next usable candidate `k`: `gcd(k, 2q) = 1` and `k ∈ [1, p − 2]`
    /// (`k` odd, `k ≠ q`, `k < p − 1`).
    fn nonce(&mut self, key: &SecretKey) -> BoxedUint {
        let (p, q) = (key.group().p(), key.group().q());
        let p_minus_1 = p.wrapping_sub(&p.like_u64(1));
        loop {
            let mut k = self.drbg.next_candidate();
            let usable = k.is_odd() & !k.ct_eq_value(q) & k.ct_lt(&p_minus_1);
            // A rejected nonce is discarded: its verdict is public.
            if numcrypt_limbs::ct_audit::declassify_choice(usable) {
                return k;
            }
            k.zeroize();
        }
    }

    /// The signature from the nonce `k` and `r = g^k mod p` (computed by
    /// the caller), or, in the (negligible) event that `s = 0`, from the
    /// next nonces.
    fn finish(
        mut self,
        key: &SecretKey,
        x_q: &MontyForm<BoxedUint>,
        mut k: BoxedUint,
        mut r: BoxedUint,
    ) -> Result<Signature, Error> {
        let group = key.group();
        let (p, q, qm) = (group.p(), group.q(), group.q_monty());
        let x_odd = key.x().is_odd();
        loop {
            // k mod q and r mod q: both below 3q, so at most two subtractions.
            let mut k_q = reduce_below_3q(&k, q);
            let r_q = reduce_below_3q(&r, q);
            let mut k_inv = qm.to_monty(&k_q.inv_mod(q)?);
            let mut xr = qm.mul(x_q, &qm.to_monty(&r_q));
            let s_q = qm.from_monty(&qm.mul(&qm.sub(&self.e_q, &xr), &k_inv));
            // s mod 2 = (e − x r) mod 2, as k⁻¹ is odd.
            let s_odd: Choice = self.e_odd ^ (x_odd & r.is_odd());
            // s = s_q + q·t with t = (s mod 2) − (s_q mod 2) mod 2.
            let t = s_odd ^ s_q.is_odd();
            let mut s = s_q.at_width(p.nlimbs());
            let with_q = s.wrapping_add(&q.at_width(p.nlimbs()));
            s.conditional_assign(&with_q, t);
            k.zeroize();
            k_q.zeroize();
            k_inv.zeroize();
            xr.zeroize();
            // s is about to be published (r is already: g^k): testing it is
            // safe.
            numcrypt_limbs::ct_audit::declassify(r.as_mut());
            numcrypt_limbs::ct_audit::declassify(s.as_mut());
            if !bool::from(s.is_zero()) {
                return Ok(Signature::from_components(r, s));
            }
            k = self.nonce(key);
            r = g_to_the(key, &k);
        }
    }
}

/// `g^k mod p` in constant time over the group's bit length.
fn g_to_the(key: &SecretKey, k: &BoxedUint) -> BoxedUint {
    let group = key.group();
    let pm = group.p_monty();
    pm.from_monty(&pm.pow_bounded(group.g_monty(), k, group.bits()))
}

/// `v mod q` for `v < 3q`, constant time, at `q`'s width.
fn reduce_below_3q(v: &BoxedUint, q: &BoxedUint) -> BoxedUint {
    let wide = v.nlimbs().max(q.nlimbs());
    let mut x = v.at_width(wide);
    let qw = q.at_width(wide);
    for _ in 0..2 {
        let (diff, borrow) = x.borrowing_sub(&qw, 0);
        x.conditional_assign(&diff, Choice::from((borrow ^ 1) as u8));
    }
    x.at_width(q.nlimbs())
}

impl PublicKey {
    /// Verifies `signature` on `message` hashed with `D`:
    /// [`Error::SignatureOutOfRange`] for `r ∉ [1, p − 1]`,
    /// `s ∉ [0, p − 2]` or `r ≡ 0 (mod q)`, [`Error::InvalidSignature`] when
    /// `g^H(m) ≢ y^r r^s (mod p)`. Variable time (public values only).
    pub fn verify<D: Digest>(&self, message: &[u8], signature: &Signature) -> Result<(), Error> {
        self.verify_prehash(&D::digest(message), signature)
    }

    /// Verifies a DER signature.
    pub fn verify_der<D: Digest>(&self, message: &[u8], der: &[u8]) -> Result<(), Error> {
        self.verify::<D>(message, &Signature::from_der(der)?)
    }

    /// Verifies `signature` on a message hash computed elsewhere.
    pub fn verify_prehash(&self, digest: &[u8], signature: &Signature) -> Result<(), Error> {
        let group = self.group();
        let (p, q) = (group.p(), group.q());
        let p_minus_1 = p.wrapping_sub(&p.like_u64(1));
        let (r, s) = (signature.r(), signature.s());
        let r_ok = !bool::from(r.is_zero()) && r < p;
        let s_ok = s < &p_minus_1;
        if !r_ok || !s_ok || r == q || r == &p_minus_1 {
            return Err(Error::SignatureOutOfRange);
        }
        let (r, s) = (r.at_width(p.nlimbs()), s.at_width(p.nlimbs()));
        let e = BoxedUint::from_be_slice_auto(digest);
        let pm = group.p_monty();
        let lhs = pm.pow_vartime(group.g_monty(), &e);
        let y_r = pm.pow_vartime(self.y_monty(), &r);
        let r_s = pm.pow_vartime(&pm.to_monty(&r), &s);
        if pm.mul(&y_r, &r_s) == lhs {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}
