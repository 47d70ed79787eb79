//! Shared keys: the public part every party (and any combiner) holds, and
//! one party's share of `d`, with their PEM/DER files.
//!
//! ```text
//! SharedRsaPublicKey ::= SEQUENCE {
//!     version          INTEGER (3),
//!     modulus          INTEGER,             -- N
//!     publicExponent   INTEGER,             -- e
//!     parties          INTEGER,             -- n
//!     threshold        INTEGER,             -- t: any t + 1 parties sign
//!     verificationKeys SEQUENCE OF INTEGER, -- w^f(j) mod N, party order
//!     identities       [0] SEQUENCE OF OCTET STRING OPTIONAL
//!                                           -- each party's certificate (DER)
//! }
//! SharedRsaKeyShare ::= SEQUENCE {
//!     version          INTEGER (3),
//!     publicKey        SharedRsaPublicKey,
//!     index            INTEGER,             -- this party, 1-based
//!     share            INTEGER              -- f(index)
//! }
//! ```
//!
//! `f` is the polynomial of degree `t` over the integers with `f(0) = Δ·d`,
//! `Δ = n!` (see the `threshold` module). The identities are the
//! certificates the parties authenticated each other with during key
//! generation (absent for parties without them, as over in-process
//! channels): a partial signature signed by a party's key is attributed
//! to it. Version 2 (the same without identities) is read; version 1 (an
//! additive, `n`-of-`n` sharing, before threshold signing) is refused with
//! a message saying so.
//!
//! PEM labels: `NUMCRYPT SHARED RSA PUBLIC KEY`, `NUMCRYPT SHARED RSA KEY
//! SHARE`. `w` is a hash of `N` ([`SharedPublicKey::verification_base`]).
//! A party writes its `public.pem` as the SubjectPublicKeyInfo block that
//! `openssl` reads, then the shared public key, which `openssl` skips and
//! [`SharedPublicKey::from_pem`] finds.

use std::fmt;

use der::asn1::{AnyRef, BitStringRef, OctetStringRef, UintRef};
use der::pem::LineEnding;
use der::{Decode, Encode, Sequence};
use numcrypt_limbs::{BoxedUint, MontyParams, Unsigned};
use sha2::{Digest, Sha256};
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use crate::Error;
use crate::arith::hash_to_residue;

const VERSION: u8 = 3;
/// The version before identities, read still.
const VERSION_WITHOUT_IDENTITIES: u8 = 2;
/// The largest certificate an identity may be.
const MAX_CERTIFICATE: usize = 16 << 10;
const PUBLIC_LABEL: &str = "NUMCRYPT SHARED RSA PUBLIC KEY";
const SHARE_LABEL: &str = "NUMCRYPT SHARED RSA KEY SHARE";

#[derive(Sequence)]
struct PublicDer<'a> {
    version: u8,
    modulus: UintRef<'a>,
    public_exponent: u32,
    parties: u32,
    threshold: u32,
    verification_keys: Vec<UintRef<'a>>,
    #[asn1(context_specific = "0", optional = "true")]
    identities: Option<Vec<&'a OctetStringRef>>,
}

#[derive(Sequence)]
struct ShareDer<'a> {
    version: u8,
    public_key: PublicDer<'a>,
    index: u32,
    share: UintRef<'a>,
}

/// The public side of a shared RSA key: `N`, `e`, the party count `n`, the
/// threshold `t` (any `t + 1` parties sign), each party's verification
/// value `w^f(j) mod N`, against which its partial signatures' proofs are
/// checked, and, when the parties had them, each party's identity
/// certificate, under which its partial signatures are signed.
#[derive(Clone, PartialEq, Eq)]
pub struct SharedPublicKey {
    n: BoxedUint,
    e: u32,
    parties: usize,
    threshold: usize,
    verification: Vec<BoxedUint>,
    identities: Option<Vec<Vec<u8>>>,
}

impl SharedPublicKey {
    /// Checks and assembles a public key: `N` odd of at least 512 bits,
    /// `e` odd, at least 3 and prime to `n!` (which signing needs),
    /// `1 <= t` and `2t + 1 <= n`, one verification value below `N` per
    /// party, and none or one non-empty certificate (at most 16 KiB) per
    /// party.
    pub(crate) fn from_parts(
        n: BoxedUint,
        e: u32,
        parties: usize,
        threshold: usize,
        verification: Vec<BoxedUint>,
        identities: Option<Vec<Vec<u8>>>,
    ) -> Result<Self, Error> {
        let invalid = |s: &str| Err(Error::InvalidEncoding(s.into()));
        let bits = n.bits_vartime();
        if !(crate::MIN_KEY_BITS..=crate::MAX_KEY_BITS).contains(&bits) || !bool::from(n.is_odd()) {
            return invalid("modulus must be odd, of 512 to 8192 bits");
        }
        if e < 3 || e.is_multiple_of(2) {
            return invalid("public exponent must be odd and at least 3");
        }
        if !(3..=crate::MAX_PARTIES).contains(&parties)
            || threshold == 0
            || 2 * threshold + 1 > parties
        {
            return invalid("party count or threshold out of range");
        }
        if !crate::threshold::exponent_fits(e, parties) {
            return invalid(
                "public exponent shares a factor with n! (threshold signing needs e prime to it)",
            );
        }
        if verification.len() != parties || verification.iter().any(|v| v >= &n) {
            return invalid("one verification value below N per party expected");
        }
        if identities.as_ref().is_some_and(|ids| {
            ids.len() != parties
                || ids
                    .iter()
                    .any(|c| c.is_empty() || c.len() > MAX_CERTIFICATE)
        }) {
            return invalid("one certificate (at most 16 KiB) per party expected");
        }
        let n = n.resize(bits.div_ceil(64) as usize)?;
        let verification = verification
            .iter()
            .map(|v| v.resize(n.nlimbs()))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            n,
            e,
            parties,
            threshold,
            verification,
            identities,
        })
    }

    /// The modulus `N`.
    pub fn n(&self) -> &BoxedUint {
        &self.n
    }

    /// The public exponent.
    pub fn e(&self) -> u32 {
        self.e
    }

    /// The number of parties.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// The threshold `t`: any `t + 1` parties sign; `t` learn nothing.
    pub fn threshold(&self) -> usize {
        self.threshold
    }

    /// The parties' verification values `w^f(j) mod N`, in party order.
    pub fn verification_keys(&self) -> &[BoxedUint] {
        &self.verification
    }

    /// Each party's identity certificate (DER), in party order, if the
    /// parties had identities when they made the key.
    pub fn identities(&self) -> Option<&[Vec<u8>]> {
        self.identities.as_deref()
    }

    /// SHA-256 of the key's DER: what partial signatures' proofs and
    /// identity signatures bind to, and what the parties compare before
    /// any of them keeps its share.
    pub fn digest(&self) -> Result<[u8; 32], Error> {
        Ok(Sha256::digest(self.to_der()?).into())
    }

    /// `N`'s bit length.
    pub fn bits(&self) -> u32 {
        self.n.bits_vartime()
    }

    /// `N`'s length in bytes: the length of every signature.
    pub fn size(&self) -> usize {
        self.bits().div_ceil(8) as usize
    }

    /// The base `w` of the verification values: a hash of `N`.
    pub fn verification_base(&self) -> BoxedUint {
        verification_base(&self.n)
    }

    pub(crate) fn monty(&self) -> Result<MontyParams<BoxedUint>, Error> {
        Ok(MontyParams::new(self.n.clone())?)
    }

    /// `x^e mod N` (variable time: everything here is public).
    pub(crate) fn public_op(&self, params: &MontyParams<BoxedUint>, x: &BoxedUint) -> BoxedUint {
        let e = BoxedUint::from_u64(u64::from(self.e), 1);
        params.from_monty(&params.pow_vartime(&params.to_monty(x), &e))
    }

    /// A bound on the shares' bit length: the exponent length of a partial
    /// signature.
    pub(crate) fn share_bits(&self) -> u32 {
        crate::threshold::Sizes::new(self.bits(), self.parties, self.threshold).share_bits
    }

    /// The ordinary RSA public key `(N, e)` of [`numcrypt_rsa`], to verify
    /// signatures with (it reads keys of 1024 bits and more).
    pub fn rsa_public_key(&self) -> Result<numcrypt_rsa::RsaPublicKey, Error> {
        Ok(numcrypt_rsa::RsaPublicKey::new(
            &self.n,
            &BoxedUint::from_u64(u64::from(self.e), 1),
        )?)
    }

    /// The ordinary RSA public key as SubjectPublicKeyInfo PEM (`PUBLIC
    /// KEY`), for `openssl` and any other RSA verifier (any key size).
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        let n = self.n.to_be_bytes_minimal_vartime();
        let e = (BoxedUint::from_u64(u64::from(self.e), 1)).to_be_bytes_minimal_vartime();
        let pkcs1 = pkcs1::RsaPublicKeyRef {
            modulus: UintRef::new(&n)?,
            public_exponent: UintRef::new(&e)?,
        }
        .to_der()?;
        let spki = SubjectPublicKeyInfoRef {
            algorithm: AlgorithmIdentifierRef {
                oid: pkcs1::ALGORITHM_OID,
                parameters: Some(AnyRef::NULL),
            },
            subject_public_key: BitStringRef::from_bytes(&pkcs1)?,
        }
        .to_der()?;
        der::pem::encode_string("PUBLIC KEY", LineEnding::LF, &spki)
            .map_err(|e| Error::InvalidEncoding(e.to_string()))
    }

    /// Calls `f` with the fields of `SharedRsaPublicKey`, which borrow byte
    /// strings that live only for the call.
    fn with_der<R>(&self, f: impl FnOnce(PublicDer<'_>) -> Result<R, Error>) -> Result<R, Error> {
        let n = self.n.to_be_bytes_minimal_vartime();
        let v: Vec<Vec<u8>> = self
            .verification
            .iter()
            .map(BoxedUint::to_be_bytes_minimal_vartime)
            .collect();
        f(PublicDer {
            version: VERSION,
            modulus: UintRef::new(&n)?,
            public_exponent: self.e,
            parties: self.parties as u32,
            threshold: self.threshold as u32,
            verification_keys: v
                .iter()
                .map(|b| UintRef::new(b))
                .collect::<Result<_, _>>()?,
            identities: self
                .identities
                .as_ref()
                .map(|ids| {
                    ids.iter()
                        .map(|c| OctetStringRef::new(c))
                        .collect::<Result<_, _>>()
                })
                .transpose()?,
        })
    }

    /// The DER encoding of `SharedRsaPublicKey`.
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        self.with_der(|d| Ok(d.to_der()?))
    }

    /// PEM (`NUMCRYPT SHARED RSA PUBLIC KEY`).
    pub fn to_pem(&self) -> Result<String, Error> {
        der::pem::encode_string(PUBLIC_LABEL, LineEnding::LF, &self.to_der()?)
            .map_err(|e| Error::InvalidEncoding(e.to_string()))
    }

    /// Reads [`to_der`](Self::to_der)'s encoding, checking every value.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        check_version(der)?;
        Self::from_der_fields(&PublicDer::from_der(der)?)
    }

    fn from_der_fields(d: &PublicDer<'_>) -> Result<Self, Error> {
        match d.version {
            VERSION => {}
            VERSION_WITHOUT_IDENTITIES if d.identities.is_none() => {}
            v => {
                return Err(Error::InvalidEncoding(format!(
                    "unsupported version {v} (or version 2 with identities)"
                )));
            }
        }
        Self::from_parts(
            BoxedUint::from_be_slice_auto(d.modulus.as_bytes()),
            d.public_exponent,
            d.parties as usize,
            d.threshold as usize,
            d.verification_keys
                .iter()
                .map(|v| BoxedUint::from_be_slice_auto(v.as_bytes()))
                .collect(),
            d.identities
                .as_ref()
                .map(|ids| ids.iter().map(|c| c.as_bytes().to_vec()).collect()),
        )
    }

    /// The file a party writes for verifiers and combiners: the RSA public
    /// key (SubjectPublicKeyInfo, which `openssl` reads), then the shared
    /// public key (which `openssl` skips).
    pub fn to_public_pem(&self) -> Result<String, Error> {
        Ok(self.to_public_key_pem()? + &self.to_pem()?)
    }

    /// Reads a public key from PEM: a shared public key, alone or after the
    /// SubjectPublicKeyInfo block ([`to_public_pem`](Self::to_public_pem));
    /// a key-share PEM is accepted too (its public part is read and the
    /// share ignored).
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        if let Some(block) = labelled_block(pem, PUBLIC_LABEL) {
            let (_, der) = der::pem::decode_vec(block.as_bytes())
                .map_err(|e| Error::InvalidEncoding(e.to_string()))?;
            return Self::from_der(&der);
        }
        let (label, der) = der::pem::decode_vec(pem.as_bytes())
            .map_err(|e| Error::InvalidEncoding(e.to_string()))?;
        let der = Zeroizing::new(der);
        match label {
            SHARE_LABEL => Ok(SharedKeyShare::from_der(&der)?.public),
            "PUBLIC KEY" | "RSA PUBLIC KEY" => Err(Error::InvalidEncoding(
                "an ordinary RSA public key alone: this needs the shared public key (with \
                 the parties' verification keys), as a party writes to its `public_key` \
                 file, or a key share"
                    .into(),
            )),
            other => Err(Error::InvalidEncoding(format!(
                "unexpected PEM label {other:?}"
            ))),
        }
    }
}

impl fmt::Debug for SharedPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedPublicKey")
            .field("bits", &self.bits())
            .field("e", &self.e)
            .field("parties", &self.parties)
            .field("threshold", &self.threshold)
            .field("identities", &self.identities.is_some())
            .field("n", &format_args!("{:#x}", self.n))
            .finish()
    }
}

/// One party's share of a shared RSA key: the public key and `f(i)`.
///
/// The share is zeroized on drop and never printed.
#[derive(Clone)]
pub struct SharedKeyShare {
    public: SharedPublicKey,
    index: usize,
    share: Zeroizing<BoxedUint>,
}

// `share` is zeroized by its `Zeroizing` wrapper; the rest is public.
impl zeroize::ZeroizeOnDrop for SharedKeyShare {}

impl SharedKeyShare {
    /// Assembles a share for party `index` (0-based), below
    /// `2^share_bits`.
    pub(crate) fn new(
        public: SharedPublicKey,
        index: usize,
        share: BoxedUint,
    ) -> Result<Self, Error> {
        let share = Zeroizing::new(share);
        let share_bits = public.share_bits();
        // Constant time in the share: only validity is revealed.
        let too_long = share.bits() > share_bits;
        if index >= public.parties || numcrypt_limbs::ct_audit::declassified(too_long) {
            return Err(Error::InvalidEncoding(
                "share index or size out of range".into(),
            ));
        }
        let share = Zeroizing::new(share.resize(share_bits.div_ceil(64) as usize)?);
        Ok(Self {
            public,
            index,
            share,
        })
    }

    /// The shared public key.
    pub fn public_key(&self) -> &SharedPublicKey {
        &self.public
    }

    /// This party's index (0-based; files and messages show it 1-based).
    pub fn index(&self) -> usize {
        self.index
    }

    pub(crate) fn exponent(&self) -> &BoxedUint {
        &self.share
    }

    /// The DER encoding of `SharedRsaKeyShare` (secret).
    pub fn to_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let share = Zeroizing::new(self.share.to_be_bytes_minimal_vartime());
        self.public.with_der(|public_key| {
            Ok(Zeroizing::new(
                ShareDer {
                    version: VERSION,
                    public_key,
                    index: self.index as u32 + 1,
                    share: UintRef::new(&share)?,
                }
                .to_der()?,
            ))
        })
    }

    /// PEM (`NUMCRYPT SHARED RSA KEY SHARE`), secret: write it as one
    /// (mode 0600, through a temporary file and a rename, never over
    /// another file), as `numcrypt shared-rsa party` does.
    pub fn to_pem(&self) -> Result<Zeroizing<String>, Error> {
        Ok(Zeroizing::new(
            der::pem::encode_string(SHARE_LABEL, LineEnding::LF, &self.to_der()?)
                .map_err(|e| Error::InvalidEncoding(e.to_string()))?,
        ))
    }

    /// Reads [`to_der`](Self::to_der)'s encoding, checking every value.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        check_version(der)?;
        let d = ShareDer::from_der(der)?;
        let public = SharedPublicKey::from_der_fields(&d.public_key)?;
        if d.index == 0 {
            return Err(Error::InvalidEncoding(
                "party index 0 (indices are 1-based)".into(),
            ));
        }
        Self::new(
            public,
            d.index as usize - 1,
            BoxedUint::from_be_slice_auto(d.share.as_bytes()),
        )
    }

    /// Reads a key share from PEM.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        let (label, der) = der::pem::decode_vec(pem.as_bytes())
            .map_err(|e| Error::InvalidEncoding(e.to_string()))?;
        let der = Zeroizing::new(der);
        if label != SHARE_LABEL {
            return Err(Error::InvalidEncoding(format!(
                "unexpected PEM label {label:?}"
            )));
        }
        Self::from_der(&der)
    }
}

impl fmt::Debug for SharedKeyShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedKeyShare")
            .field("index", &(self.index + 1))
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// Refuses any version but ours, naming version 1 (the DER's first field,
/// read before the rest, whose shape changed).
fn check_version(der: &[u8]) -> Result<(), Error> {
    use der::Decode;
    let seq = <&der::asn1::SequenceRef>::from_der(der)?;
    let mut reader = der::SliceReader::new(seq.as_bytes())?;
    match u8::decode(&mut reader)? {
        VERSION | VERSION_WITHOUT_IDENTITIES => Ok(()),
        1 => Err(Error::InvalidEncoding(
            "a version 1 file (an n-of-n additive sharing from before threshold signing): \
             generate the key again"
                .into(),
        )),
        v => Err(Error::InvalidEncoding(format!("unsupported version {v}"))),
    }
}

/// The PEM block labelled `label` in a text of several blocks (`der::pem`
/// decodes exactly one block and refuses anything around it).
fn labelled_block<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = text.find(&begin)?;
    let stop = start + text[start..].find(&end)? + end.len();
    Some(&text[start..stop])
}

/// The public base of the verification values: a hash of `N` to `Z_N`.
pub(crate) fn verification_base(n: &BoxedUint) -> BoxedUint {
    let nb = n.to_be_bytes();
    let mut counter = 0u32;
    loop {
        let w = hash_to_residue(
            n,
            b"numcrypt shared-rsa verification base",
            &[&nb, &counter.to_be_bytes()],
        );
        if w.bits_vartime() > 1 {
            return w;
        }
        counter += 1;
    }
}
