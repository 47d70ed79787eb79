//! Threshold signing: any `t + 1` parties raise the encoded message to
//! their shares of `d` (a polynomial sharing over the integers, see the
//! `threshold` module), a combiner interpolates the partial signatures in
//! the exponent and takes the `e`-th root, and the result is an ordinary
//! RSA signature (PKCS#1 v1.5 or PSS) under `(N, e)`.
//!
//! # Partial signatures that prove themselves
//! Party `i`'s partial signature on `m` is `s = m^(Δ·f(i)) mod N` (the
//! factor `Δ = n!` makes it computable from the signature and any `t`
//! shares, so that signing shows a coalition nothing more: see the
//! `threshold` module), and it carries a non-interactive proof that `s`
//! used the same share as the party's verification value `V_i = w^f(i)`
//! published at key generation (Shoup's proof of equality of discrete
//! logarithms, "Practical threshold signatures", 2000, as Damgård and
//! Koprowski use it for moduli that are not products of safe primes,
//! "Practical threshold RSA signatures without a trusted dealer", 2001).
//! In the group of squares modulo `N`, with `v = w²`, `v_i = V_i²`,
//! `x = m^(2Δ)` and `X = s²`, the party shows `log_v v_i = log_x X`:
//! - it draws `r` uniform below `2^(L + 256)` (`L` the share bound), and
//!   computes `v' = v^r`, `x' = x^r` (constant time);
//! - the challenge `c` is the first 128 bits of SHA-256 over the key's
//!   digest (`N`, `e`, every verification value and identity), the index,
//!   the encoded message, `s`, `v'` and `x'` (Fiat–Shamir);
//! - the response is `z = f(i)·c + r` over the integers, which hides
//!   `f(i)` to within `2^-128` (statistically).
//!
//! A verifier recomputes `v' = v^z v_i^-c`, `x' = x^z X^-c` and the hash.
//! Squaring takes out the elements of order 2 (with `p ≡ q ≡ 3 (mod 4)`
//! the squares have odd order), so `s` is right up to a sign, which the
//! combiner's use of `s²` makes harmless. **Soundness** (the crate README
//! states it in full): a party that passes the check with a wrong `s`
//! either finds a non-zero multiple of the order of `v` or a square other
//! than 1 of order below `2^128` (Damgård and Koprowski's kind of
//! assumption, needed because `N` is not a product of safe primes), or
//! guesses the challenge: probability `2^-128` per hash evaluation.
//!
//! A partial signature is also signed by its party's identity key (its TLS
//! key, whose certificate the shared public key records), over the key's
//! digest and everything else in it. A proof that fails is blamed on its
//! party only when that signature holds: a forged partial signature, or
//! one altered on the way, blames nobody.

use std::time::{Duration, Instant};

use der::Sequence;
use der::asn1::{OctetStringRef, UintRef};
use der::pem::LineEnding;
use der::{Decode, Encode};
use numcrypt_limbs::ct_audit::{declassify, declassify_monty};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use numcrypt_rsa::HashAlg;
use rand_core::CryptoRng;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::identity::{IdentityKey, IdentitySignature};
use crate::key::{SharedKeyShare, SharedPublicKey};
use crate::transport::Transport;
use crate::{Error, threshold};

const PARTIAL_LABEL: &str = "NUMCRYPT SHARED RSA PARTIAL SIGNATURE";
/// Version 1 carried a consistency check, not a proof.
const VERSION: u8 = 2;
/// The transport channel of [`sign_jointly`].
const SIGN_CHANNEL: u16 = u16::MAX;
/// Bits of a proof's challenge: its soundness error is `2^-128`.
const CHALLENGE_BITS: u32 = 128;
/// Statistical hiding of a proof's response, in bits.
const HIDING_BITS: u32 = 128;
/// Bytes of a signing request's identifier.
const REQUEST_ID_BYTES: usize = 16;
/// The most sets [`combine`] tries when partial signatures without proofs
/// must complete `t + 1` (each try costs an interpolation).
const MAX_TRIALS: usize = 256;

/// EMSA-PKCS1-v1_5 (RFC 8017 §9.2) of `msg` for `public`: the message
/// representative every party signs. Deterministic. The encoding is
/// `numcrypt-rsa`'s own, so the combined signature verifies there.
pub fn encode_pkcs1v15(
    public: &SharedPublicKey,
    hash: HashAlg,
    msg: &[u8],
) -> Result<Vec<u8>, Error> {
    encode_pkcs1v15_prehashed(public, hash, &hash.digest(msg))
}

/// [`encode_pkcs1v15`] of a message already hashed with `hash` (for a
/// message streamed through the hash).
pub fn encode_pkcs1v15_prehashed(
    public: &SharedPublicKey,
    hash: HashAlg,
    digest: &[u8],
) -> Result<Vec<u8>, Error> {
    Ok(numcrypt_rsa::pkcs1v15::encode(hash, digest, public.size())?)
}

/// EMSA-PSS-ENCODE (RFC 8017 §9.1.1) of `msg` with `salt` (MGF1 over the
/// same hash). PSS is randomized: every party must sign the same encoding,
/// so the salt is chosen once (by whoever requests the signature) and given
/// to all of them.
pub fn encode_pss(
    public: &SharedPublicKey,
    hash: HashAlg,
    msg: &[u8],
    salt: &[u8],
) -> Result<Vec<u8>, Error> {
    encode_pss_prehashed(public, hash, &hash.digest(msg), salt)
}

/// [`encode_pss`] of a message already hashed with `hash`.
pub fn encode_pss_prehashed(
    public: &SharedPublicKey,
    hash: HashAlg,
    digest: &[u8],
    salt: &[u8],
) -> Result<Vec<u8>, Error> {
    let em = numcrypt_rsa::pss::encode_checked(hash, digest, salt, public.bits() - 1)?;
    Ok(em.to_vec())
}

/// A proof that a partial signature used its party's share (see the
/// module documentation): the challenge `c` (128 bits) and the response
/// `z = f(i)·c + r`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EqualityProof {
    /// `c`.
    pub challenge: BoxedUint,
    /// `z`.
    pub response: BoxedUint,
}

/// One party's partial signature `s_i = m^(Δ·f(i)) mod N` on an encoded
/// message, with the proof that it used the party's share and the party's
/// signature over it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialSignature {
    /// The signer (0-based).
    pub index: usize,
    /// The encoded message that was signed.
    pub message: Vec<u8>,
    /// `s_i`.
    pub value: BoxedUint,
    /// The proof; without one the partial signature is unverifiable (not
    /// faulty): [`combine`] uses it only in a set that makes a signature.
    pub proof: Option<EqualityProof>,
    /// The signature by the party's identity key
    /// ([`sign_identity`](Self::sign_identity)), which attributes the
    /// partial signature to the party.
    pub identity_signature: Option<IdentitySignature>,
}

#[derive(Sequence)]
struct ProofDer<'a> {
    challenge: UintRef<'a>,
    response: UintRef<'a>,
}

#[derive(Sequence)]
struct IdentitySignatureDer<'a> {
    scheme: u16,
    signature: &'a OctetStringRef,
}

#[derive(Sequence)]
struct PartialDer<'a> {
    version: u8,
    index: u32,
    message: &'a OctetStringRef,
    value: UintRef<'a>,
    #[asn1(context_specific = "0", optional = "true")]
    proof: Option<ProofDer<'a>>,
    #[asn1(context_specific = "1", optional = "true")]
    identity_signature: Option<IdentitySignatureDer<'a>>,
}

/// What [`PartialSignature::check`] finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialCheck {
    /// The proof holds: the value is the party's, whoever sent it.
    Valid,
    /// The proof fails and the party signed it: the party is faulty.
    Faulty,
    /// The proof fails and nothing shows that the party made it (no valid
    /// signature by its identity key): nobody is blamed.
    Unattributed,
    /// No proof: it can be used, but not checked on its own.
    Unverifiable,
}

impl PartialSignature {
    /// DER:
    /// ```text
    /// SharedRsaPartialSignature ::= SEQUENCE {
    ///     version   INTEGER (2),
    ///     index     INTEGER,            -- 1-based
    ///     message   OCTET STRING,       -- the encoded message
    ///     value     INTEGER,            -- m^(n!·f(index)) mod N
    ///     proof     [0] SEQUENCE { challenge INTEGER, response INTEGER } OPTIONAL,
    ///     identitySignature [1] SEQUENCE {
    ///         scheme    INTEGER,        -- TLS 1.3 SignatureScheme
    ///         signature OCTET STRING } OPTIONAL
    /// }
    /// ```
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        self.encode(true)
    }

    /// The DER, with or without the identity signature (what that
    /// signature covers is the DER without it).
    fn encode(&self, with_signature: bool) -> Result<Vec<u8>, Error> {
        let value = self.value.to_be_bytes_minimal_vartime();
        let proof = self.proof.as_ref().map(|p| {
            (
                p.challenge.to_be_bytes_minimal_vartime(),
                p.response.to_be_bytes_minimal_vartime(),
            )
        });
        Ok(PartialDer {
            version: VERSION,
            index: self.index as u32 + 1,
            message: OctetStringRef::new(&self.message)?,
            value: UintRef::new(&value)?,
            proof: proof
                .as_ref()
                .map(|(c, z)| -> Result<_, der::Error> {
                    Ok(ProofDer {
                        challenge: UintRef::new(c)?,
                        response: UintRef::new(z)?,
                    })
                })
                .transpose()?,
            identity_signature: match (&self.identity_signature, with_signature) {
                (Some(s), true) => Some(IdentitySignatureDer {
                    scheme: s.scheme,
                    signature: OctetStringRef::new(&s.signature)?,
                }),
                _ => None,
            },
        }
        .to_der()?)
    }

    /// PEM (`NUMCRYPT SHARED RSA PARTIAL SIGNATURE`).
    pub fn to_pem(&self) -> Result<String, Error> {
        der::pem::encode_string(PARTIAL_LABEL, LineEnding::LF, &self.to_der()?)
            .map_err(|e| Error::InvalidEncoding(e.to_string()))
    }

    /// Reads [`to_der`](Self::to_der)'s encoding. Version 1 (with a
    /// consistency check instead of a proof) is refused, saying so.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let version_one = || {
            Error::InvalidEncoding(
                "a version 1 partial signature (a consistency check, no proof): sign again".into(),
            )
        };
        let d = PartialDer::from_der(der).map_err(|e| {
            // Version 1's shape differs: read its version alone to say so.
            match <&der::asn1::SequenceRef>::from_der(der)
                .ok()
                .and_then(|seq| u8::decode(&mut der::SliceReader::new(seq.as_bytes()).ok()?).ok())
            {
                Some(1) => version_one(),
                _ => e.into(),
            }
        })?;
        if d.version == 1 {
            return Err(version_one());
        }
        if d.version != VERSION || d.index == 0 {
            return Err(Error::InvalidEncoding(
                "partial signature version or index".into(),
            ));
        }
        Ok(Self {
            index: d.index as usize - 1,
            message: d.message.as_bytes().to_vec(),
            value: BoxedUint::from_be_slice_auto(d.value.as_bytes()),
            proof: d.proof.map(|p| EqualityProof {
                challenge: BoxedUint::from_be_slice_auto(p.challenge.as_bytes()),
                response: BoxedUint::from_be_slice_auto(p.response.as_bytes()),
            }),
            identity_signature: d.identity_signature.map(|s| IdentitySignature {
                scheme: s.scheme,
                signature: s.signature.as_bytes().to_vec(),
            }),
        })
    }

    /// Reads [`to_pem`](Self::to_pem)'s encoding.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        let (label, der) = der::pem::decode_vec(pem.as_bytes())
            .map_err(|e| Error::InvalidEncoding(e.to_string()))?;
        if label != PARTIAL_LABEL {
            return Err(Error::InvalidEncoding(format!(
                "unexpected PEM label {label:?}"
            )));
        }
        Self::from_der(&der)
    }

    /// What the identity signature covers: a label, the key's digest and
    /// the partial signature's DER without that signature.
    fn signed_bytes(&self, public: &SharedPublicKey) -> Result<Vec<u8>, Error> {
        let mut out = b"numcrypt shared-rsa partial signature v2\0".to_vec();
        out.extend_from_slice(&public.digest()?);
        out.extend_from_slice(&self.encode(false)?);
        Ok(out)
    }

    /// Signs this partial signature with its party's identity key, so that
    /// a combiner can attribute it. When `public` records the parties'
    /// identities, `key` must be this party's
    /// ([`Error::InvalidInput`] otherwise).
    pub fn sign_identity(
        &mut self,
        public: &SharedPublicKey,
        key: &IdentityKey,
    ) -> Result<(), Error> {
        if let Some(ids) = public.identities() {
            let cert = ids
                .get(self.index)
                .ok_or(Error::InvalidInput("no such party"))?;
            if !key.matches(cert) {
                return Err(Error::InvalidInput(
                    "the identity key is not this party's (its certificate in the key differs)",
                ));
            }
        }
        self.identity_signature = Some(key.sign(&self.signed_bytes(public)?)?);
        Ok(())
    }

    /// Whether the party's identity key signed this partial signature (the
    /// key records the parties' certificates, and the signature verifies
    /// under this party's).
    pub fn is_attributed(&self, public: &SharedPublicKey) -> bool {
        let (Some(sig), Some(cert)) = (
            &self.identity_signature,
            public.identities().and_then(|ids| ids.get(self.index)),
        ) else {
            return false;
        };
        self.signed_bytes(public)
            .is_ok_and(|bytes| sig.verify(cert, &bytes))
    }

    /// Checks the proof and, if it fails, whether the party signed it
    /// (variable time: everything here is public).
    pub fn check(&self, public: &SharedPublicKey) -> PartialCheck {
        if self.proof.is_none() {
            return PartialCheck::Unverifiable;
        }
        let holds = Verifier::new(public, &self.message).is_ok_and(|v| v.holds(self));
        match (holds, self.is_attributed(public)) {
            (true, _) => PartialCheck::Valid,
            (false, true) => PartialCheck::Faulty,
            (false, false) => PartialCheck::Unattributed,
        }
    }
}

/// The message representative `m = OS2IP(em)`, which must be below `N`.
fn representative(public: &SharedPublicKey, em: &[u8]) -> Result<BoxedUint, Error> {
    if em.len() > public.size() {
        return Err(Error::InvalidInput(
            "encoded message longer than the modulus",
        ));
    }
    let m = BoxedUint::from_be_slice_auto(em).resize(public.n().nlimbs())?;
    if &m >= public.n() {
        return Err(Error::InvalidInput("encoded message not below the modulus"));
    }
    Ok(m)
}

/// The bit bound of a proof's response: `z < 2^(L + 256) + 2^(L + 128)`.
fn response_bits(public: &SharedPublicKey) -> u32 {
    public.share_bits() + CHALLENGE_BITS + HIDING_BITS + 1
}

/// `x²` in Montgomery form.
fn square(params: &MontyParams<BoxedUint>, x: &BoxedUint) -> MontyForm<BoxedUint> {
    let m = params.to_monty(x);
    params.mul(&m, &m)
}

/// The proof's challenge: 128 bits of SHA-256 over the key's digest, the
/// index, the encoded message, the value and the two commitments (each
/// group element in `N`'s length).
fn challenge(
    digest: &[u8; 32],
    index: usize,
    em: &[u8],
    size: usize,
    elements: [&BoxedUint; 3],
) -> Result<BoxedUint, Error> {
    let mut h = Sha256::new();
    h.update(b"numcrypt shared-rsa partial signature proof v1\0");
    h.update(digest);
    h.update((index as u64 + 1).to_be_bytes());
    h.update((em.len() as u64).to_be_bytes());
    h.update(em);
    let mut bytes = vec![0u8; size];
    for x in elements {
        x.write_be_bytes(&mut bytes)?;
        h.update(&bytes);
    }
    let d: [u8; 32] = h.finalize().into();
    Ok(BoxedUint::from_be_slice_auto(
        &d[..(CHALLENGE_BITS / 8) as usize],
    ))
}

/// `m^Δ` for the key's `Δ = n!`, Montgomery form (variable time: `m` and
/// `Δ` are public): the base every partial signature on `m` raises to its
/// share.
fn signing_base(
    public: &SharedPublicKey,
    params: &MontyParams<BoxedUint>,
    em: &[u8],
) -> Result<MontyForm<BoxedUint>, Error> {
    let m = params.to_monty(&representative(public, em)?);
    Ok(params.pow_vartime(&m, &threshold::delta(public.parties())))
}

/// The public side of checking proofs on one message.
struct Verifier<'a> {
    public: &'a SharedPublicKey,
    params: MontyParams<BoxedUint>,
    digest: [u8; 32],
    em: &'a [u8],
    /// `w²`.
    v: MontyForm<BoxedUint>,
    /// `m^(2Δ)`.
    x: MontyForm<BoxedUint>,
}

impl<'a> Verifier<'a> {
    fn new(public: &'a SharedPublicKey, em: &'a [u8]) -> Result<Self, Error> {
        let params = public.monty()?;
        let base = signing_base(public, &params, em)?;
        Ok(Self {
            v: square(&params, &public.verification_base()),
            x: params.mul(&base, &base),
            digest: public.digest()?,
            public,
            params,
            em,
        })
    }

    /// Whether `partial`'s proof holds (variable time: public values).
    fn holds(&self, partial: &PartialSignature) -> bool {
        let (public, params) = (self.public, &self.params);
        let (Some(proof), Some(verification)) = (
            &partial.proof,
            public.verification_keys().get(partial.index),
        ) else {
            return false;
        };
        if partial.message != self.em
            || &partial.value >= public.n()
            || proof.challenge.bits_vartime() > CHALLENGE_BITS
            || proof.response.bits_vartime() > response_bits(public)
        {
            return false;
        }
        let (Ok(vi_inv), Ok(x_inv)) = (
            params.invert(&square(params, verification)),
            params.invert(&square(params, &partial.value)),
        ) else {
            return false;
        };
        let (vz, xz) = params.pow_vartime_pair(&self.v, params, &self.x, &proof.response);
        let v1 = params.mul(&vz, &params.pow_vartime(&vi_inv, &proof.challenge));
        let x1 = params.mul(&xz, &params.pow_vartime(&x_inv, &proof.challenge));
        let (v1, x1) = (params.from_monty(&v1), params.from_monty(&x1));
        challenge(
            &self.digest,
            partial.index,
            self.em,
            public.size(),
            [&partial.value, &v1, &x1],
        )
        .is_ok_and(|c| c == proof.challenge)
    }
}

impl SharedKeyShare {
    /// The partial signature `m^(Δ·f(i)) mod N` on the encoded message
    /// `em` (from [`encode_pkcs1v15`] or [`encode_pss`]), with its proof,
    /// in constant time in the share (its length is public). Sign it with the
    /// party's identity key ([`PartialSignature::sign_identity`]) before
    /// it leaves the party, so that a combiner can attribute it.
    pub fn sign_partial<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        em: &[u8],
    ) -> Result<PartialSignature, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let public = self.public_key();
        let params = public.monty()?;
        let base = signing_base(public, &params, em)?;
        let exp = self.exponent();
        let mut value = params.from_monty(&params.pow_bounded(&base, exp, public.share_bits()));
        declassify(value.as_mut()); // published
        let proof = self.prove(&params, em, &base, &value, rng)?;
        Ok(PartialSignature {
            index: self.index(),
            message: em.to_vec(),
            value,
            proof: Some(proof),
            identity_signature: None,
        })
    }

    /// The proof for `value` as the partial signature on `em` (`base` is
    /// `m^Δ`, Montgomery form): `r` below `2^(L + 256)`, the commitments
    /// `v^r` and `x^r`, the challenge over them and `value`, and
    /// `z = f(i)·c + r`, in constant time in `f(i)` and `r`.
    fn prove<R: CryptoRng + ?Sized>(
        &self,
        params: &MontyParams<BoxedUint>,
        em: &[u8],
        base: &MontyForm<BoxedUint>,
        value: &BoxedUint,
        rng: &mut R,
    ) -> Result<EqualityProof, Error> {
        let public = self.public_key();
        let r_bits = public.share_bits() + CHALLENGE_BITS + HIDING_BITS;
        let width = response_bits(public).div_ceil(64) as usize;
        let r = Zeroizing::new(BoxedUint::random_bits(rng, r_bits, width));
        let v = square(params, &public.verification_base());
        let x = params.mul(base, base);
        let [mut v1, mut x1] = MontyParams::pow_bounded_pair(
            [(params, &v, r.as_words()), (params, &x, r.as_words())],
            r_bits,
        );
        declassify_monty(&mut v1); // determined by the published proof
        declassify_monty(&mut x1);
        let c = challenge(
            &public.digest()?,
            self.index(),
            em,
            public.size(),
            [value, &params.from_monty(&v1), &params.from_monty(&x1)],
        )?;
        let f = Zeroizing::new(self.exponent().resize(width)?);
        let mut z = f.wrapping_mul(&c.resize(width)?).wrapping_add(&r);
        declassify(z.as_mut()); // published: z hides f(i) to within 2^-128
        Ok(EqualityProof {
            challenge: c,
            response: z,
        })
    }
}

/// A combined signature, and which partial signatures failed on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combined {
    /// The RSA signature, `k` big-endian bytes (`k` the modulus' length).
    pub signature: Vec<u8>,
    /// Parties (1-based) whose partial signature, signed by them, fails
    /// its proof (partial signatures beyond a first `t + 1` that made a
    /// signature are not looked at).
    pub faulty: Vec<usize>,
    /// Parties (1-based) named by a partial signature that fails its proof
    /// but is not signed by them: not blamed.
    pub unattributed: Vec<usize>,
}

/// Checks what every partial signature must be whatever its proof says:
/// on `em`, of a party of the key, below `N`, one per party.
fn check_inputs(
    public: &SharedPublicKey,
    em: &[u8],
    partials: &[PartialSignature],
) -> Result<(), Error> {
    let mut seen = vec![false; public.parties()];
    for p in partials {
        if p.index >= seen.len() || seen[p.index] {
            return Err(Error::InvalidInput(
                "partial signatures must come from distinct parties of the key",
            ));
        }
        seen[p.index] = true;
        if p.message != em {
            return Err(Error::InvalidInput(
                "a partial signature is on another message",
            ));
        }
        if &p.value >= public.n() {
            return Err(Error::InvalidInput(
                "a partial signature is not below the modulus",
            ));
        }
    }
    Ok(())
}

/// The signature from exactly `t + 1` partial signatures, if they make one
/// that verifies under `(N, e)` (variable time: public values).
fn signature_from(
    public: &SharedPublicKey,
    params: &MontyParams<BoxedUint>,
    m: &BoxedUint,
    set: &[&PartialSignature],
) -> Option<Vec<u8>> {
    let signers: Vec<usize> = set.iter().map(|p| p.index).collect();
    let lambdas = threshold::lagrange_times_delta(&signers, 0, public.parties());
    let terms: Vec<(&BoxedUint, &threshold::Signed)> =
        set.iter().map(|p| &p.value).zip(&lambdas).collect();
    let m_m = params.to_monty(m);
    let k = threshold::two_delta_power(public.parties(), 3);
    let s = threshold::multi_pow_squares(params, &terms)
        .and_then(|power| threshold::root_from_power(params, &m_m, &power, public.e(), &k))
        .map(|s| params.from_monty(&s))?;
    if public.public_op(params, &s) != *m {
        return None;
    }
    let mut out = vec![0u8; public.size()];
    s.write_be_bytes(&mut out).ok()?;
    Some(out)
}

/// Combines the partial signatures of any `t + 1` or more parties on the
/// encoded message `em` into an ordinary RSA signature, checked with
/// `s^e = m`, as `k` big-endian bytes (`k` the modulus' length): with `S`
/// the signers, `M = Π_{j∈S} (s_j²)^λ'_j = m^(2Δ³ d)` and `s = m^a M^b`
/// for `a e + b·2Δ³ = 1` (see the `threshold` module).
///
/// The first `t + 1` are tried as they are; if they make no signature,
/// every proof is checked and the first `t + 1` that pass are used, and
/// partial signatures without proofs complete a set only if the result
/// verifies. Fewer than `t + 1` distinct parties is
/// [`Error::TooFewPartials`]; fewer than `t + 1` good ones is
/// [`Error::InvalidPartials`], which names exactly the parties whose
/// signed partial signature fails its proof, never one whose name a
/// forged or altered partial signature bears.
pub fn combine(
    public: &SharedPublicKey,
    em: &[u8],
    partials: &[PartialSignature],
) -> Result<Vec<u8>, Error> {
    combine_checked(public, em, partials).map(|c| c.signature)
}

/// [`combine`], also saying which partial signatures failed on the way.
pub fn combine_checked(
    public: &SharedPublicKey,
    em: &[u8],
    partials: &[PartialSignature],
) -> Result<Combined, Error> {
    let m = representative(public, em)?;
    check_inputs(public, em, partials)?;
    let needed = public.threshold() + 1;
    if partials.len() < needed {
        return Err(Error::TooFewPartials {
            needed,
            got: partials.len(),
        });
    }
    let params = public.monty()?;
    let first: Vec<&PartialSignature> = partials[..needed].iter().collect();
    if let Some(signature) = signature_from(public, &params, &m, &first) {
        return Ok(Combined {
            signature,
            faulty: Vec::new(),
            unattributed: Vec::new(),
        });
    }
    let verifier = Verifier::new(public, em)?;
    let (mut valid, mut unverifiable) = (Vec::new(), Vec::new());
    let (mut faulty, mut unattributed) = (Vec::new(), Vec::new());
    for p in partials {
        match p.proof {
            None => unverifiable.push(p),
            Some(_) if verifier.holds(p) => valid.push(p),
            Some(_) if p.is_attributed(public) => faulty.push(p.index + 1),
            Some(_) => unattributed.push(p.index + 1),
        }
    }
    let found = |signature| Combined {
        signature,
        faulty: faulty.clone(),
        unattributed: unattributed.clone(),
    };
    if valid.len() >= needed {
        return signature_from(public, &params, &m, &valid[..needed])
            .map(found)
            .ok_or(Error::InvalidSignature);
    }
    // Complete the set with partial signatures that cannot be checked on
    // their own, keeping the first set that makes a signature.
    let missing = needed - valid.len();
    for picked in Combinations::new(unverifiable.len(), missing).take(MAX_TRIALS) {
        let mut set = valid.clone();
        set.extend(picked.iter().map(|&k| unverifiable[k]));
        if let Some(signature) = signature_from(public, &params, &m, &set) {
            return Ok(found(signature));
        }
    }
    Err(Error::InvalidPartials {
        needed,
        valid: valid.len(),
        faulty,
        unattributed,
        unverifiable: unverifiable.iter().map(|p| p.index + 1).collect(),
    })
}

/// The `k`-element subsets of `0..n` in lexicographic order.
struct Combinations {
    next: Option<Vec<usize>>,
    n: usize,
}

impl Combinations {
    fn new(n: usize, k: usize) -> Self {
        Self {
            next: (k <= n).then(|| (0..k).collect()),
            n,
        }
    }
}

impl Iterator for Combinations {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        let mut following = current.clone();
        let k = following.len();
        // The rightmost position that can still move right.
        if let Some(i) = (0..k).rev().find(|&i| following[i] < self.n - k + i) {
            following[i] += 1;
            for j in i + 1..k {
                following[j] = following[j - 1] + 1;
            }
            self.next = Some(following);
        }
        Some(current)
    }
}

/// The identifier of a signing request: every party computes it alike
/// from the key and the encoded message, and a reply that carries another
/// (a late reply to an earlier request) is not taken for this one.
fn request_id(public: &SharedPublicKey, em: &[u8]) -> Result<[u8; REQUEST_ID_BYTES], Error> {
    let mut h = Sha256::new();
    h.update(b"numcrypt shared-rsa signing request v2\0");
    h.update(public.digest()?);
    h.update(em);
    let d: [u8; 32] = h.finalize().into();
    let mut id = [0u8; REQUEST_ID_BYTES];
    id.copy_from_slice(&d[..REQUEST_ID_BYTES]);
    Ok(id)
}

/// A partial signature as [`sign_jointly`] sends it: the request's
/// identifier, `s`, the challenge and the response, each of fixed length.
struct SignMessage {
    size: usize,
    response_bytes: usize,
}

/// What a message on the signing channel turned out to be.
enum Reply {
    /// A partial signature for this request.
    Partial(PartialSignature),
    /// A reply to another request (a late one): dropped.
    Other,
}

impl SignMessage {
    fn new(public: &SharedPublicKey) -> Self {
        Self {
            size: public.size(),
            response_bytes: response_bits(public).div_ceil(8) as usize,
        }
    }

    fn challenge_bytes() -> usize {
        (CHALLENGE_BITS / 8) as usize
    }

    fn encode(&self, id: &[u8], partial: &PartialSignature) -> Result<Vec<u8>, Error> {
        let proof = partial
            .proof
            .as_ref()
            .ok_or(Error::InvalidInput("a partial signature without its proof"))?;
        let mut out = id.to_vec();
        for (x, len) in [
            (&partial.value, self.size),
            (&proof.challenge, Self::challenge_bytes()),
            (&proof.response, self.response_bytes),
        ] {
            let start = out.len();
            out.resize(start + len, 0);
            x.write_be_bytes(&mut out[start..])?;
        }
        Ok(out)
    }

    fn decode(&self, id: &[u8], em: &[u8], from: usize, msg: &[u8]) -> Result<Reply, Error> {
        let Some((theirs, rest)) = msg.split_at_checked(REQUEST_ID_BYTES) else {
            return Err(Error::Malformed {
                party: from + 1,
                what: "partial signature",
            });
        };
        if theirs != id {
            return Ok(Reply::Other);
        }
        if rest.len() != self.size + Self::challenge_bytes() + self.response_bytes {
            return Err(Error::Malformed {
                party: from + 1,
                what: "partial signature",
            });
        }
        let (value, rest) = rest.split_at(self.size);
        let (c, z) = rest.split_at(Self::challenge_bytes());
        Ok(Reply::Partial(PartialSignature {
            index: from,
            message: em.to_vec(),
            value: BoxedUint::from_be_slice_auto(value),
            proof: Some(EqualityProof {
                challenge: BoxedUint::from_be_slice_auto(c),
                response: BoxedUint::from_be_slice_auto(z),
            }),
            identity_signature: None,
        }))
    }
}

/// Signs the encoded message `em` together: every party that takes part
/// calls this with the same `em`, sends its partial signature (with its
/// proof) to every other party, and combines a signature itself from its
/// own and the first others that arrive, checking it under `(N, e)`. Any
/// `t + 1` parties that call suffice; the others may be absent.
///
/// Requests carry an identifier (a hash of the key and `em`): replies to
/// an earlier request, left over from a call that gave up, are dropped,
/// never taken for this one's. (So is a reply to a later request from a
/// party already one call ahead that skipped this one: a party that lags
/// needs `t` others that reply to its own request.) Should the first `t + 1` not make a
/// signature, the proofs of all that arrived are checked and more replies
/// awaited; a party whose proof fails is named faulty (the transport
/// authenticates who sent what), and this party returns
/// [`Error::InvalidPartials`] if it cannot gather `t + 1` good ones in
/// `timeout`, or [`Error::Timeout`] naming a party it still waited for.
pub fn sign_jointly<T, R>(
    rng: &mut R,
    transport: &T,
    share: &SharedKeyShare,
    em: &[u8],
    timeout: Duration,
) -> Result<Vec<u8>, Error>
where
    T: Transport + ?Sized,
    R: CryptoRng + ?Sized,
{
    if timeout > crate::MAX_TIMEOUT {
        return Err(Error::InvalidInput("a timeout above one day"));
    }
    let deadline = Instant::now() + timeout;
    let public = share.public_key();
    let (n, me) = (public.parties(), share.index());
    if transport.party_count() != n || transport.index() != me {
        return Err(Error::InvalidInput(
            "the transport does not match the key share",
        ));
    }
    let needed = public.threshold() + 1;
    let id = request_id(public, em)?;
    let format = SignMessage::new(public);
    let mine = share.sign_partial(rng, em)?;
    let msg = format.encode(&id, &mine)?;
    for j in (0..n).filter(|&j| j != me) {
        // A party that has gone is told nothing; the others suffice.
        if let Err(Error::Aborted) = transport.send(j, SIGN_CHANNEL, msg.clone()) {
            return Err(Error::Aborted);
        }
    }
    let params = public.monty()?;
    let m = representative(public, em)?;
    let verifier = Verifier::new(public, em)?;
    let mut waiting: Vec<bool> = (0..n).map(|j| j != me).collect();
    let mut arrived = vec![mine];
    // Proofs are checked only once the first t + 1 failed.
    let mut checking = false;
    let mut valid: Vec<usize> = vec![0]; // positions in `arrived`; ours holds
    let mut checked = 1;
    let mut faulty = Vec::new();
    let mut gone = None;
    // Replies queued before this call (earlier requests' included) are
    // read first, without waiting.
    let mut draining = true;
    loop {
        if !checking && arrived.len() >= needed {
            let set: Vec<&PartialSignature> = arrived[..needed].iter().collect();
            if let Some(sig) = signature_from(public, &params, &m, &set) {
                return Ok(sig);
            }
            checking = true;
        }
        if checking {
            for (k, p) in arrived.iter().enumerate().skip(checked) {
                if verifier.holds(p) {
                    valid.push(k);
                } else {
                    faulty.push(p.index + 1);
                }
            }
            checked = arrived.len();
            if valid.len() >= needed {
                let set: Vec<&PartialSignature> =
                    valid[..needed].iter().map(|&k| &arrived[k]).collect();
                return signature_from(public, &params, &m, &set).ok_or(Error::InvalidSignature);
            }
        }
        if !waiting.contains(&true) {
            break;
        }
        let wait = match draining {
            true => Duration::ZERO,
            false => deadline.saturating_duration_since(Instant::now()),
        };
        match transport.recv_any(&waiting, SIGN_CHANNEL, wait) {
            Err(Error::Timeout { .. }) if draining => draining = false,
            Err(e @ Error::Timeout { .. }) => {
                if faulty.is_empty() {
                    return Err(e);
                }
                break;
            }
            Err(e) => return Err(e),
            Ok((j, Err(e))) => {
                waiting[j] = false;
                gone.get_or_insert(e);
            }
            Ok((j, Ok(msg))) => match format.decode(&id, em, j, &msg) {
                Ok(Reply::Other) => {}
                Ok(Reply::Partial(p)) => {
                    waiting[j] = false;
                    arrived.push(p);
                }
                Err(_) => {
                    waiting[j] = false;
                    faulty.push(j + 1);
                }
            },
        }
    }
    if faulty.is_empty()
        && let Some(e) = gone
    {
        return Err(e);
    }
    faulty.sort_unstable();
    Err(Error::InvalidPartials {
        needed,
        valid: valid.len(),
        faulty,
        unattributed: Vec::new(),
        unverifiable: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    use super::*;
    use crate::{KeyGenConfig, MemoryNetwork, generate_key};

    /// A dishonest party runs the prover as the protocol says, with its
    /// true share, on a value that is not its partial signature: the proof
    /// fails (the old check could be fitted to any value). On `−s`, the
    /// other square root of the same square, it holds, and the combined
    /// signature is still right, since the combiner uses `s²`.
    #[test]
    fn a_proof_fits_only_its_own_value() {
        let shares: Vec<SharedKeyShare> = std::thread::scope(|s| {
            let handles: Vec<_> = MemoryNetwork::new(3)
                .into_iter()
                .enumerate()
                .map(|(i, t)| {
                    s.spawn(move || {
                        let mut rng = ChaCha20Rng::seed_from_u64(40 + i as u64);
                        generate_key(&t, &KeyGenConfig::new(512), &mut rng).map(|o| o.share)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        });
        let public = shares[0].public_key();
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let em = encode_pkcs1v15(public, HashAlg::Sha256, b"m").unwrap();
        let honest = shares[0].sign_partial(&mut rng, &em).unwrap();
        let mine = shares[1].sign_partial(&mut rng, &em).unwrap();
        assert_eq!(mine.check(public), PartialCheck::Valid);
        let params = public.monty().unwrap();
        let base = signing_base(public, &params, &em).unwrap();
        let prove_for = |value: BoxedUint, rng: &mut ChaCha20Rng| PartialSignature {
            proof: Some(shares[1].prove(&params, &em, &base, &value, rng).unwrap()),
            value,
            ..mine.clone()
        };
        let n = public.n();
        let two = BoxedUint::from_u64(2, 1);
        let wrong = prove_for(mine.value.mul_mod(&two, n).unwrap(), &mut rng);
        assert_eq!(wrong.check(public), PartialCheck::Unattributed);
        assert!(matches!(
            combine(public, &em, &[honest.clone(), wrong]),
            Err(Error::InvalidPartials { valid: 1, .. })
        ));
        let negated = prove_for(
            n.wrapping_sub(&mine.value.resize(n.nlimbs()).unwrap()),
            &mut rng,
        );
        assert_eq!(negated.check(public), PartialCheck::Valid);
        let sig = combine(public, &em, &[honest.clone(), negated]).unwrap();
        assert_eq!(sig, combine(public, &em, &[honest, mine]).unwrap());
    }

    #[test]
    fn combinations_in_order() {
        let all: Vec<Vec<usize>> = Combinations::new(4, 2).collect();
        assert_eq!(
            all,
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].map(|c| c.to_vec())
        );
        assert_eq!(Combinations::new(3, 0).count(), 1);
        assert_eq!(Combinations::new(2, 3).count(), 0);
    }
}
