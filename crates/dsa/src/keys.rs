//! Key pairs, signing (RFC 6979, optionally hedged) and verification.

use core::fmt;

use alloc::vec::Vec;
use digest::Digest;
use hmac::EagerHash;
use numcrypt_limbs::ct_audit::{declassify, declassify_choice};
use numcrypt_limbs::{BoxedUint, Limb, MontyForm, SecretUint, Unsigned};
use rand_core::CryptoRng;
use sha2::{Sha224, Sha256, Sha384, Sha512};
use subtle::ConstantTimeLess;
use zeroize::Zeroize;

use crate::{DomainParameters, Error, HashAlg, Signature};
use numcrypt_common::rfc6979::{NonceGenerator, bits2int, with_additional_data};

/// A DSA public key: the parameters and `y = g^x mod p`.
///
/// Construction checks `2 ≤ y ≤ p − 2` and `y^q ≡ 1 (mod p)` (SP 800-89's
/// public key validation), so a key of the wrong order is refused before
/// it is ever used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    params: DomainParameters,
    y: BoxedUint,
    y_monty: MontyForm<BoxedUint>,
}

/// A DSA private key `x ∈ [1, q − 1]` with its public key. `x` is zeroized
/// on drop; `Debug` does not print it.
#[derive(Clone)]
pub struct SigningKey {
    verifying: VerifyingKey,
    x: SecretUint,
}

impl zeroize::ZeroizeOnDrop for SigningKey {}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("verifying_key", &self.verifying)
            .finish_non_exhaustive()
    }
}

impl PartialEq for SigningKey {
    fn eq(&self, other: &Self) -> bool {
        self.verifying == other.verifying && bool::from(self.x.ct_eq_value(&other.x))
    }
}

impl Eq for SigningKey {}

impl VerifyingKey {
    /// The public key `y` for `params`, after the checks above
    /// ([`Error::InvalidPublicKey`] otherwise).
    pub fn new(params: DomainParameters, y: BoxedUint) -> Result<Self, Error> {
        let p = params.p();
        let two = p.like_u64(2);
        if y.bits_vartime() > p.bits_vartime() || y < two || y > p.wrapping_sub(&two) {
            return Err(Error::InvalidPublicKey);
        }
        let y = y.at_width(p.nlimbs());
        let pm = params.p_monty();
        let y_monty = pm.to_monty(&y);
        if pm.pow_vartime(&y_monty, params.q()) != pm.one() {
            return Err(Error::InvalidPublicKey);
        }
        Ok(Self { params, y, y_monty })
    }

    /// The domain parameters.
    pub fn params(&self) -> &DomainParameters {
        &self.params
    }

    /// `y`.
    pub fn y(&self) -> &BoxedUint {
        &self.y
    }

    /// Verifies `signature` on `message` hashed with `D` (FIPS 186-4
    /// section 4.7): `Ok(())` or the reason it was refused
    /// ([`Error::SignatureOutOfRange`], [`Error::InvalidSignature`]).
    pub fn verify<D: Digest>(&self, message: &[u8], signature: &Signature) -> Result<(), Error> {
        self.verify_prehash(&D::digest(message), signature)
    }

    /// Verifies a DER-encoded signature on `message`.
    pub fn verify_der<D: Digest>(&self, message: &[u8], der: &[u8]) -> Result<(), Error> {
        self.verify::<D>(message, &Signature::from_der(der)?)
    }

    /// Verifies an `r ‖ s` signature on `message`.
    pub fn verify_p1363<D: Digest>(&self, message: &[u8], bytes: &[u8]) -> Result<(), Error> {
        self.verify::<D>(
            message,
            &Signature::from_p1363(bytes, self.params.scalar_len())?,
        )
    }

    /// Verifies `signature` on a message hash computed elsewhere (its
    /// leftmost `N` bits are used, as FIPS 186-4 specifies).
    ///
    /// Variable time: everything here is public. `g^u1 · y^u2` is two
    /// sliding-window exponentiations rather than one simultaneous
    /// (Straus–Shamir) exponentiation, because the exponentiations run on
    /// the AVX-512 IFMA backend where it is available and single
    /// multiplications do not, and rather than a constant-time pair
    /// (interleaved on that backend), whose fixed windows cost more than
    /// the interleaving gains at `N` bits; `benches/RESULTS.md` has the
    /// measurements.
    pub fn verify_prehash(&self, prehash: &[u8], signature: &Signature) -> Result<(), Error> {
        let params = &self.params;
        let q = params.q();
        let (r, s) = (signature.r(), signature.s());
        let in_range = |v: &BoxedUint| !bool::from(v.is_zero()) && v < q;
        if !in_range(r) || !in_range(s) {
            return Err(Error::SignatureOutOfRange);
        }
        let r = r.at_width(q.nlimbs());
        let s = s.at_width(q.nlimbs());
        let qm = params.q_monty();
        let w = qm.to_monty(&s.inv_mod_vartime(q)?);
        let z = bits2int(prehash, params.sizes().n(), q.nlimbs());
        let u1 = qm.from_monty(&qm.mul(&qm.to_monty(&z), &w));
        let u2 = qm.from_monty(&qm.mul(&qm.to_monty(&r), &w));
        let pm = params.p_monty();
        let v = pm.mul(
            &pm.pow_vartime(params.g_monty(), &u1),
            &pm.pow_vartime(&self.y_monty, &u2),
        );
        let v = pm.from_monty(&v).rem_vartime(q)?;
        if v == r {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

impl SigningKey {
    /// A new key pair for `params` (FIPS 186-4 B.1.2: `x` uniform in
    /// `[1, q − 1]` by rejection sampling, `y = g^x` in constant time).
    /// [`Error::VerifyOnly`] for (1024, 160) parameters.
    pub fn generate<R: CryptoRng + ?Sized>(
        params: &DomainParameters,
        rng: &mut R,
    ) -> Result<Self, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        params.require_signing()?;
        let q = params.q();
        let q_minus_1 = q.wrapping_sub(&q.like_u64(1));
        let mut c = BoxedUint::random_below(rng, &q_minus_1)?;
        let x = c.wrapping_add(&c.like_u64(1));
        c.zeroize();
        Self::from_secret(params.clone(), x)
    }

    /// The key with private exponent `x` for `params`:
    /// [`Error::InvalidPrivateKey`] unless `1 ≤ x ≤ q − 1`,
    /// [`Error::VerifyOnly`] for (1024, 160) parameters.
    pub fn from_components(params: DomainParameters, x: &BoxedUint) -> Result<Self, Error> {
        params.require_signing()?;
        let q = params.q();
        // Constant time in x (whatever its width): the only thing revealed
        // is whether it is valid.
        let valid = !x.is_zero() & x.ct_lt_value(q);
        let mut x = x.at_width(q.nlimbs());
        if !declassify_choice(valid) {
            x.zeroize();
            return Err(Error::InvalidPrivateKey);
        }
        Self::from_secret(params, x)
    }

    fn from_secret(params: DomainParameters, x: BoxedUint) -> Result<Self, Error> {
        let x = SecretUint::from(x);
        let pm = params.p_monty();
        let y_monty = pm.pow_bounded(params.g_monty(), &x, params.sizes().n());
        // The public key: no secret from here on.
        let mut y = pm.from_monty(&y_monty);
        declassify(y.as_mut());
        let y_monty = pm.to_monty(&y);
        Ok(Self {
            verifying: VerifyingKey { params, y, y_monty },
            x,
        })
    }

    /// The public half.
    pub fn verifying_key(&self) -> &VerifyingKey {
        &self.verifying
    }

    /// The domain parameters.
    pub fn params(&self) -> &DomainParameters {
        &self.verifying.params
    }

    /// The private exponent `x` (secret: handle with care).
    pub fn x(&self) -> &BoxedUint {
        self.x.expose()
    }

    /// Signs `message` hashed with `D`, with `k` from RFC 6979: the same
    /// message always gives the same signature, and no random number
    /// generator is involved.
    pub fn sign<D: EagerHash>(&self, message: &[u8]) -> Result<Signature, Error> {
        self.sign_prehash::<D>(&D::digest(message))
    }

    /// Signs `message` with `k` from RFC 6979 with fresh random bytes as
    /// additional data (section 3.6): signatures differ each time (which
    /// some protocols want, and which blunts fault attacks on repeated
    /// signatures), and stay safe even if `rng` is broken.
    pub fn sign_hedged<D: EagerHash, R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        message: &[u8],
    ) -> Result<Signature, Error> {
        self.sign_prehash_hedged::<D, R>(rng, &D::digest(message))
    }

    /// Signs a message hash computed elsewhere; `D` is the hash RFC 6979's
    /// HMAC runs on (normally the one that made `prehash`).
    pub fn sign_prehash<D: EagerHash>(&self, prehash: &[u8]) -> Result<Signature, Error> {
        self.sign_core::<D>(prehash, &[])
    }

    /// [`sign_prehash`](Self::sign_prehash) with fresh randomness mixed
    /// into `k`, as [`sign_hedged`](Self::sign_hedged).
    pub fn sign_prehash_hedged<D: EagerHash, R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        prehash: &[u8],
    ) -> Result<Signature, Error> {
        let Ok(sig) = with_additional_data(rng, |extra| self.sign_core::<D>(prehash, extra));
        sig
    }

    /// [`sign_prehash`](Self::sign_prehash) with the hash named at run
    /// time (for the command line, and for hashes read from a file).
    pub fn sign_prehash_named(&self, hash: HashAlg, prehash: &[u8]) -> Result<Signature, Error> {
        self.sign_core_named(hash, prehash, &[])
    }

    /// [`sign_prehash_hedged`](Self::sign_prehash_hedged) with the hash
    /// named at run time.
    pub fn sign_prehash_named_hedged<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        hash: HashAlg,
        prehash: &[u8],
    ) -> Result<Signature, Error> {
        let Ok(sig) = with_additional_data(rng, |extra| self.sign_core_named(hash, prehash, extra));
        sig
    }

    pub(crate) fn sign_core_named(
        &self,
        hash: HashAlg,
        prehash: &[u8],
        additional: &[u8],
    ) -> Result<Signature, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        match hash {
            HashAlg::Sha224 => self.sign_core::<Sha224>(prehash, additional),
            HashAlg::Sha256 => self.sign_core::<Sha256>(prehash, additional),
            HashAlg::Sha384 => self.sign_core::<Sha384>(prehash, additional),
            HashAlg::Sha512 => self.sign_core::<Sha512>(prehash, additional),
            _ => Err(Error::UnsupportedHash),
        }
    }

    /// FIPS 186-4 section 4.6 with `k` from the HMAC-DRBG: `r = (g^k mod
    /// p) mod q`, `s = k⁻¹ (z + x r) mod q`, a new `k` in the (negligible)
    /// event that either is zero.
    ///
    /// Constant time in `x` and `k`: `g^k` is the fixed-window
    /// exponentiation over `N` bits, `k⁻¹` the constant-time inverse, the
    /// reduction of `g^k mod p` modulo `q` and the arithmetic modulo `q`
    /// Montgomery multiplications.
    pub(crate) fn sign_core<D: EagerHash>(
        &self,
        prehash: &[u8],
        additional: &[u8],
    ) -> Result<Signature, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let params = self.params();
        params.require_signing()?;
        let mut x = params.q_monty().to_monty(self.x.expose());
        let mut request = Request::<D>::new(self, prehash, additional);
        let k = request.nonce(self);
        let gk = g_to_the(self, &k);
        let signature = request.finish(self, &x, k, gk);
        x.zeroize();
        signature
    }

    /// Signs each message hashed with `D`, with `k` from RFC 6979 as
    /// [`sign`](Self::sign) does: the signatures equal `sign`'s, in order.
    /// The `g^k` of all messages run as one batch
    /// ([`MontyParams::pow_bounded_fixed_base_batch`](numcrypt_limbs::MontyParams::pow_bounded_fixed_base_batch):
    /// eight a pass on a CPU with AVX-512 IFMA at 2048-bit `p`),
    /// which signs many messages with one key in less time a signature.
    pub fn sign_batch<D: EagerHash>(&self, messages: &[&[u8]]) -> Result<Vec<Signature>, Error> {
        let prehashes: Vec<_> = messages.iter().map(|m| D::digest(m)).collect();
        let prehashes: Vec<&[u8]> = prehashes.iter().map(|h| h.as_slice()).collect();
        self.sign_prehash_batch::<D>(&prehashes)
    }

    /// [`sign_batch`](Self::sign_batch) for message hashes computed
    /// elsewhere, as [`sign_prehash`](Self::sign_prehash).
    pub fn sign_prehash_batch<D: EagerHash>(
        &self,
        prehashes: &[&[u8]],
    ) -> Result<Vec<Signature>, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let params = self.params();
        params.require_signing()?;
        let pm = params.p_monty();
        let mut requests: Vec<_> = prehashes
            .iter()
            .map(|prehash| Request::<D>::new(self, prehash, &[]))
            .collect();
        let nonces: Vec<BoxedUint> = requests.iter_mut().map(|r| r.nonce(self)).collect();
        let exps: Vec<&[Limb]> = nonces.iter().map(|k| k.as_ref()).collect();
        let powers = pm.pow_bounded_fixed_base_batch(params.g_monty(), &exps, params.sizes().n());
        let mut x = params.q_monty().to_monty(self.x.expose());
        let signatures = requests
            .into_iter()
            .zip(nonces)
            .zip(powers)
            .map(|((request, k), mut gk)| {
                let plain = pm.from_monty(&gk);
                gk.zeroize();
                request.finish(self, &x, k, plain)
            })
            .collect();
        x.zeroize();
        signatures
    }
}

/// One signature in the making: the message's `z` and its nonce generator.
struct Request<D: EagerHash> {
    z: MontyForm<BoxedUint>,
    drbg: NonceGenerator<D>,
}

impl<D: EagerHash> Request<D> {
    fn new(key: &SigningKey, prehash: &[u8], additional: &[u8]) -> Self {
        let params = key.params();
        let q = params.q();
        let z = bits2int(prehash, params.sizes().n(), q.nlimbs());
        Self {
            z: params.q_monty().to_monty(&z),
            drbg: NonceGenerator::<D>::new(q, key.x.expose(), prehash, additional),
        }
    }

    /// The next candidate `k` in `[1, q)`.
    fn nonce(&mut self, key: &SigningKey) -> BoxedUint {
        let q = key.params().q();
        loop {
            let mut k = self.drbg.next_candidate();
            // A rejected nonce is discarded: its verdict is public.
            if declassify_choice(!k.is_zero() & k.ct_lt(q)) {
                return k;
            }
            k.zeroize();
        }
    }

    /// The signature from the nonce `k` and its `g^k mod p` (computed by
    /// the caller), or, in the (negligible) event that they give `r = 0`
    /// or `s = 0`, from the next nonces.
    fn finish(
        mut self,
        key: &SigningKey,
        x: &MontyForm<BoxedUint>,
        mut k: BoxedUint,
        mut gk: BoxedUint,
    ) -> Result<Signature, Error> {
        let params = key.params();
        let (q, qm) = (params.q(), params.q_monty());
        loop {
            let r = params.reduce_mod_q(&gk);
            let mut k_inv = qm.to_monty(&k.inv_mod(q)?);
            let mut xr = qm.mul(x, &r);
            let s = qm.mul(&k_inv, &qm.add(&self.z, &xr));
            k.zeroize();
            gk.zeroize();
            k_inv.zeroize();
            xr.zeroize();
            let (mut r, mut s) = (qm.from_monty(&r), qm.from_monty(&s));
            // r and s are about to be published: testing them is safe.
            declassify(r.as_mut());
            declassify(s.as_mut());
            if !bool::from(r.is_zero()) && !bool::from(s.is_zero()) {
                return Ok(Signature::from_components(r, s));
            }
            k = self.nonce(key);
            gk = g_to_the(key, &k);
        }
    }
}

/// `g^k mod p` in constant time over `N` bits.
fn g_to_the(key: &SigningKey, k: &BoxedUint) -> BoxedUint {
    let (params, pm) = (key.params(), key.params().p_monty());
    pm.from_monty(&pm.pow_bounded(params.g_monty(), k, params.sizes().n()))
}
