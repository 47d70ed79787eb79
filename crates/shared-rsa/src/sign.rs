//! Threshold signing: any `t + 1` parties raise the encoded message to
//! their shares of `d` (a polynomial sharing over the integers, see the
//! `threshold` module), a combiner interpolates the partial signatures in
//! the exponent and takes the `e`-th root, and the result is an ordinary
//! RSA signature (PKCS#1 v1.5 or PSS) under `(N, e)`.
//!
//! # Finding a faulty party
//! A partial signature may carry a *consistency check*: with `(a, b)`
//! derived by hashing `N`, the party's index, the encoded message and the
//! partial signature `s_i` (`a` odd), the party also sends
//! `t_i = (m^a w^b)^f(i) mod N`, and the combiner tests
//! `t_i = s_i^a v_i^b` against the party's published verification value
//! `v_i = w^f(i)`. A party that signed with a wrong share, or whose
//! computation was corrupted, fails it. This catches faults, which is what
//! the semi-honest model calls for; it is not a zero-knowledge proof
//! against a party that cheats on purpose.

use der::Sequence;
use der::asn1::{OctetStringRef, UintRef};
use der::pem::LineEnding;
use der::{Decode, Encode};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use numcrypt_rsa::HashAlg;
use sha2::{Digest, Sha256};
use std::time::Duration;

use crate::key::{SharedKeyShare, SharedPublicKey};
use crate::transport::Transport;
use crate::{Error, threshold};

const PARTIAL_LABEL: &str = "NUMCRYPT SHARED RSA PARTIAL SIGNATURE";
const VERSION: u8 = 1;
/// The transport channel of [`sign_jointly`].
const SIGN_CHANNEL: u16 = u16::MAX;

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

/// One party's partial signature `s_i = m^(d_i) mod N` on an encoded
/// message, optionally with its consistency check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialSignature {
    /// The signer (0-based).
    pub index: usize,
    /// The encoded message that was signed.
    pub message: Vec<u8>,
    /// `s_i`.
    pub value: BoxedUint,
    /// `t_i`, the consistency check (see the module documentation).
    pub check: Option<BoxedUint>,
}

#[derive(Sequence)]
struct PartialDer<'a> {
    version: u8,
    index: u32,
    message: &'a OctetStringRef,
    value: UintRef<'a>,
    #[asn1(optional = "true")]
    check: Option<UintRef<'a>>,
}

impl PartialSignature {
    /// DER: `SEQUENCE { version INTEGER (1), index INTEGER (1-based),
    /// message OCTET STRING, value INTEGER, check INTEGER OPTIONAL }`.
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        let value = self.value.to_be_bytes_minimal_vartime();
        let check = self
            .check
            .as_ref()
            .map(BoxedUint::to_be_bytes_minimal_vartime);
        Ok(PartialDer {
            version: VERSION,
            index: self.index as u32 + 1,
            message: OctetStringRef::new(&self.message)?,
            value: UintRef::new(&value)?,
            check: check.as_deref().map(UintRef::new).transpose()?,
        }
        .to_der()?)
    }

    /// PEM (`NUMCRYPT SHARED RSA PARTIAL SIGNATURE`).
    pub fn to_pem(&self) -> Result<String, Error> {
        der::pem::encode_string(PARTIAL_LABEL, LineEnding::LF, &self.to_der()?)
            .map_err(|e| Error::InvalidEncoding(e.to_string()))
    }

    /// Reads [`to_der`](Self::to_der)'s encoding.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let d = PartialDer::from_der(der)?;
        if d.version != VERSION || d.index == 0 {
            return Err(Error::InvalidEncoding(
                "partial signature version or index".into(),
            ));
        }
        Ok(Self {
            index: d.index as usize - 1,
            message: d.message.as_bytes().to_vec(),
            value: BoxedUint::from_be_slice_auto(d.value.as_bytes()),
            check: d.check.map(|c| BoxedUint::from_be_slice_auto(c.as_bytes())),
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

/// The check's challenge `(a, b)`, `a` odd, both 128 bits.
fn challenge(
    public: &SharedPublicKey,
    index: usize,
    em: &[u8],
    value: &BoxedUint,
) -> (BoxedUint, BoxedUint) {
    let mut h = Sha256::new();
    h.update(b"numcrypt shared-rsa partial check v1");
    for part in [
        &public.n().to_be_bytes_minimal_vartime()[..],
        &(index as u64).to_be_bytes(),
        em,
        &value.to_be_bytes_minimal_vartime(),
    ] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    let d: [u8; 32] = h.finalize().into();
    let mut a = BoxedUint::from_be_slice_auto(&d[..16]);
    a.as_mut()[0] |= 1;
    (a, BoxedUint::from_be_slice_auto(&d[16..]))
}

impl SharedKeyShare {
    /// `base^f(i)`, in constant time (the exponent's length is public).
    fn power(&self, params: &MontyParams<BoxedUint>, base: &MontyForm<BoxedUint>) -> BoxedUint {
        let bits = self.public_key().share_bits();
        params.from_monty(&params.pow_bounded(base, self.exponent(), bits))
    }

    /// The partial signature `m^f(i) mod N` on the encoded message `em`
    /// (from [`encode_pkcs1v15`] or [`encode_pss`]), in constant time.
    pub fn sign_partial(&self, em: &[u8]) -> Result<PartialSignature, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        let public = self.public_key();
        let m = representative(public, em)?;
        let params = public.monty()?;
        let mut value = self.power(&params, &params.to_monty(&m));
        numcrypt_limbs::ct_audit::declassify(value.as_mut()); // published
        Ok(PartialSignature {
            index: self.index(),
            message: em.to_vec(),
            value,
            check: None,
        })
    }

    /// Adds the consistency check to a partial signature of ours (one more
    /// exponentiation with the share).
    pub fn add_check(&self, partial: &mut PartialSignature) -> Result<(), Error> {
        let public = self.public_key();
        let m = representative(public, &partial.message)?;
        let params = public.monty()?;
        let (a, b) = challenge(public, self.index(), &partial.message, &partial.value);
        let w = params.to_monty(&public.verification_base());
        let base = params.mul(
            &params.pow_vartime(&params.to_monty(&m), &a),
            &params.pow_vartime(&w, &b),
        );
        let mut check = self.power(&params, &base);
        numcrypt_limbs::ct_audit::declassify(check.as_mut()); // published
        partial.check = Some(check);
        Ok(())
    }

    /// [`sign_partial`](Self::sign_partial) with the consistency check:
    /// what goes into a partial-signature file.
    pub fn sign_partial_checked(&self, em: &[u8]) -> Result<PartialSignature, Error> {
        let mut p = self.sign_partial(em)?;
        self.add_check(&mut p)?;
        Ok(p)
    }
}

/// Whether a partial signature's consistency check holds (variable time:
/// everything here is public). `false` without a check.
pub fn partial_is_consistent(public: &SharedPublicKey, partial: &PartialSignature) -> bool {
    let (Some(check), Some(v)) = (
        &partial.check,
        public.verification_keys().get(partial.index),
    ) else {
        return false;
    };
    let Ok(params) = public.monty() else {
        return false;
    };
    if &partial.value >= public.n() || check >= public.n() {
        return false;
    }
    let (a, b) = challenge(public, partial.index, &partial.message, &partial.value);
    let expected = params.mul(
        &params.pow_vartime(&params.to_monty(&partial.value), &a),
        &params.pow_vartime(&params.to_monty(v), &b),
    );
    params.from_monty(&expected) == *check
}

/// Combines the partial signatures of any `t + 1` or more parties on the
/// encoded message `em` into an ordinary RSA signature, checked with
/// `s^e = m`, as `k` big-endian bytes (`k` the modulus' length): with `S`
/// the signers, `M = Π_{j∈S} s_j^λ'_j = m^(Δ² d)` and `s = m^a M^b` for
/// `a e + b Δ² = 1` (see the `threshold` module).
///
/// Fewer than `t + 1` distinct parties is [`Error::TooFewPartials`]. When
/// the result does not verify, the partial signatures' consistency checks
/// name the faulty parties ([`Error::FaultyParties`]); without checks the
/// error is [`Error::InvalidSignature`].
pub fn combine(
    public: &SharedPublicKey,
    em: &[u8],
    partials: &[PartialSignature],
) -> Result<Vec<u8>, Error> {
    let n = public.parties();
    let m = representative(public, em)?;
    let mut seen = vec![false; n];
    for p in partials {
        if p.index >= n || seen[p.index] {
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
    let needed = public.threshold() + 1;
    if partials.len() < needed {
        return Err(Error::TooFewPartials {
            needed,
            got: partials.len(),
        });
    }
    let params = public.monty()?;
    let m_m = params.to_monty(&m);
    let signers: Vec<usize> = partials.iter().map(|p| p.index).collect();
    let lambdas = threshold::lagrange_times_delta(&signers, 0, n);
    let terms: Vec<(&BoxedUint, &threshold::Signed)> =
        partials.iter().map(|p| &p.value).zip(&lambdas).collect();
    let s = threshold::multi_pow(&params, &terms)
        .and_then(|power| threshold::root_from_power(&params, &m_m, &power, public.e(), n))
        .map(|s| params.from_monty(&s));
    if let Some(s) = s
        && public.public_op(&params, &s) == m
    {
        let mut out = vec![0u8; public.size()];
        s.write_be_bytes(&mut out)?;
        return Ok(out);
    }
    if partials.iter().all(|p| p.check.is_none()) {
        return Err(Error::InvalidSignature);
    }
    let faulty: Vec<usize> = partials
        .iter()
        .filter(|p| !partial_is_consistent(public, p))
        .map(|p| p.index + 1)
        .collect();
    if faulty.is_empty() {
        Err(Error::InvalidSignature)
    } else {
        Err(Error::FaultyParties(faulty))
    }
}

/// Signs the encoded message `em` together: every party calls this with the
/// same `em`. Party 1 collects the partial signatures, combines them, asks
/// for consistency checks only if the result does not verify, and sends the
/// outcome to all, so that every party returns the same signature (or the
/// same [`Error::FaultyParties`]).
pub fn sign_jointly<T: Transport + ?Sized>(
    transport: &T,
    share: &SharedKeyShare,
    em: &[u8],
    timeout: Duration,
) -> Result<Vec<u8>, Error> {
    if timeout > crate::MAX_TIMEOUT {
        return Err(Error::InvalidInput("a timeout above one day"));
    }
    let public = share.public_key();
    let (n, me) = (public.parties(), share.index());
    if transport.party_count() != n || transport.index() != me {
        return Err(Error::InvalidInput(
            "the transport does not match the key share",
        ));
    }
    let partial = share.sign_partial(em)?;
    let size = public.size();
    let read_value = |bytes: &[u8], from: usize, what: &'static str| -> Result<BoxedUint, Error> {
        if bytes.len() != size {
            return Err(Error::Malformed {
                party: from + 1,
                what,
            });
        }
        Ok(BoxedUint::from_be_slice_auto(bytes))
    };
    let to_bytes = |x: &BoxedUint| -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; size];
        x.write_be_bytes(&mut out)?;
        Ok(out)
    };
    if me != 0 {
        transport.send(0, SIGN_CHANNEL, to_bytes(&partial.value)?)?;
        loop {
            let msg = transport.recv(0, SIGN_CHANNEL, timeout)?;
            match msg.split_first() {
                Some((0, sig)) if sig.len() == size => return Ok(sig.to_vec()),
                Some((2, [])) => {
                    let mut p = partial.clone();
                    share.add_check(&mut p)?;
                    let check = p.check.as_ref().ok_or(Error::InvalidSignature)?;
                    transport.send(0, SIGN_CHANNEL, to_bytes(check)?)?;
                }
                Some((3, list)) if !list.is_empty() => {
                    return Err(Error::FaultyParties(
                        list.iter().map(|&p| usize::from(p)).collect(),
                    ));
                }
                Some((4, [])) => return Err(Error::InvalidSignature),
                _ => {
                    return Err(Error::Malformed {
                        party: 1,
                        what: "signing outcome",
                    });
                }
            }
        }
    }
    let mut partials = vec![partial.clone()];
    for j in 1..n {
        let bytes = transport.recv(j, SIGN_CHANNEL, timeout)?;
        partials.push(PartialSignature {
            index: j,
            message: em.to_vec(),
            value: read_value(&bytes, j, "partial signature")?,
            check: None,
        });
    }
    let outcome = match combine(public, em, &partials) {
        Err(Error::InvalidSignature) => {
            for j in 1..n {
                transport.send(j, SIGN_CHANNEL, vec![2])?;
            }
            share.add_check(&mut partials[0])?;
            for (j, p) in partials.iter_mut().enumerate().skip(1) {
                let bytes = transport.recv(j, SIGN_CHANNEL, timeout)?;
                p.check = Some(read_value(&bytes, j, "consistency check")?);
            }
            combine(public, em, &partials)
        }
        other => other,
    };
    let (msg, result) = match outcome {
        Ok(sig) => ([&[0u8][..], &sig].concat(), Ok(sig)),
        Err(Error::FaultyParties(list)) => (
            [
                &[3u8][..],
                &list.iter().map(|&p| p as u8).collect::<Vec<_>>(),
            ]
            .concat(),
            Err(Error::FaultyParties(list)),
        ),
        Err(e) => (vec![4], Err(e)),
    };
    for j in 1..n {
        transport.send(j, SIGN_CHANNEL, msg.clone())?;
    }
    result
}
