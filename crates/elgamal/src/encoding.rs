//! Key formats (described in the crate documentation, under "Keys on
//! disk"): X9.42 Diffie–Hellman keys, PKCS#3 ones on input.

use alloc::vec::Vec;

use der::Reader;
use der::asn1::{AnyRef, ObjectIdentifier, UintRef};
use spki::AlgorithmIdentifierRef;

use numcrypt_common::dl_key;
use numcrypt_limbs::BoxedUint;

use crate::{Error, Group, PublicKey, SecretKey};

/// `dhpublicnumber` (ANSI X9.42, RFC 3279).
pub const DH_PUBLIC_NUMBER: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10046.2.1");
/// `dhKeyAgreement` (PKCS#3).
pub const DH_KEY_AGREEMENT: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.3.1");

/// X9.42 `DomainParameters` (`j` and `validationParms` are read and
/// ignored), or PKCS#3 `DHParameter` (`privateValueLength` ignored).
struct DhParams<'a> {
    p: UintRef<'a>,
    g: UintRef<'a>,
    q: Option<UintRef<'a>>,
}

impl<'a> DhParams<'a> {
    /// From the algorithm parameters: X9.42 when `x942`, else PKCS#3.
    fn decode(any: AnyRef<'a>, x942: bool) -> der::Result<Self> {
        any.sequence(|r| {
            let p = r.decode()?;
            let g = r.decode()?;
            if x942 {
                let q = r.decode()?;
                let _j: Option<UintRef<'a>> = r.decode()?;
                let _validation: Option<AnyRef<'a>> = r.decode()?;
                Ok(Self { p, g, q: Some(q) })
            } else {
                let _length: Option<UintRef<'a>> = r.decode()?;
                Ok(Self { p, g, q: None })
            }
        })
    }
}

impl Group {
    /// The group from an algorithm identifier: X9.42 (`q` must be
    /// `(p − 1)/2`) or PKCS#3.
    fn from_algorithm(algorithm: &AlgorithmIdentifierRef<'_>) -> Result<Self, Error> {
        let x942 = if algorithm.oid == DH_PUBLIC_NUMBER {
            true
        } else if algorithm.oid == DH_KEY_AGREEMENT {
            false
        } else {
            return Err(Error::UnsupportedAlgorithm);
        };
        let any = algorithm.parameters.ok_or(Error::Encoding)?;
        let params = DhParams::decode(any, x942)?;
        let q = params.q.map(|q| dl_key::uint(&q));
        Self::with_stated_q(dl_key::uint(&params.p), dl_key::uint(&params.g), q)
    }

    /// The group of `p` and `g`, whose `q` must be the one stated, if any.
    fn with_stated_q(p: BoxedUint, g: BoxedUint, q: Option<BoxedUint>) -> Result<Self, Error> {
        let group = Group::new(p, g)?;
        match q {
            Some(q) if q != *group.q() => Err(Error::InvalidGroup),
            _ => Ok(group),
        }
    }

    /// X9.42 `DomainParameters` DER: `SEQUENCE { p, g, q }`.
    pub fn to_der(&self) -> Vec<u8> {
        dl_key::integer_sequence_der(&[self.p(), self.g(), self.q()])
    }

    /// From X9.42 `DomainParameters` DER (cheap checks only; see
    /// [`Group::validate`]).
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let [p, g, q] = dl_key::integer_sequence_from_der(der)?;
        Self::with_stated_q(p, g, Some(q))
    }
}

numcrypt_common::dl_key_codecs!(
    algorithm: DH_PUBLIC_NUMBER,
    group: Group,
    group_accessor: group,
    public: PublicKey,
    private: SecretKey,
    error: Error,
    rejection: crate::traits::rejection,
);
