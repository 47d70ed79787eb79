//! Key formats (described in the crate documentation, under "Keys on
//! disk"): X9.42 Diffie–Hellman keys, PKCS#3 ones on input.

use alloc::string::String;
use alloc::vec::Vec;

use der::asn1::{AnyRef, ObjectIdentifier, UintRef};
use der::{Decode, DecodeValue, Encode, EncodeValue, Header, Length, Reader, Writer};
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use numcrypt_common::dl_key::{self, LABEL_PRIVATE, LABEL_PUBLIC};

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

/// The X9.42 form we write: `p`, `g`, `q`.
struct DomainParameters<'a> {
    p: UintRef<'a>,
    g: UintRef<'a>,
    q: UintRef<'a>,
}

impl<'a> DecodeValue<'a> for DomainParameters<'a> {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, _header: Header) -> der::Result<Self> {
        Ok(Self {
            p: reader.decode()?,
            g: reader.decode()?,
            q: reader.decode()?,
        })
    }
}

impl EncodeValue for DomainParameters<'_> {
    fn value_len(&self) -> der::Result<Length> {
        self.p.encoded_len()? + self.g.encoded_len()? + self.q.encoded_len()?
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        self.p.encode(writer)?;
        self.g.encode(writer)?;
        self.q.encode(writer)
    }
}

impl<'a> der::Sequence<'a> for DomainParameters<'a> {}

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
        let group = Group::new(dl_key::uint(&params.p), dl_key::uint(&params.g))?;
        if let Some(q) = params.q
            && dl_key::uint(&q) != *group.q()
        {
            return Err(Error::InvalidGroup);
        }
        Ok(group)
    }

    /// X9.42 `DomainParameters` DER: `SEQUENCE { p, g, q }`.
    pub fn to_der(&self) -> Vec<u8> {
        dl_key::integer_sequence_der(&[self.p(), self.g(), self.q()])
    }

    /// From X9.42 `DomainParameters` DER (cheap checks only; see
    /// [`Group::validate`]).
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let params = DomainParameters::from_der(der)?;
        let group = Group::new(dl_key::uint(&params.p), dl_key::uint(&params.g))?;
        if dl_key::uint(&params.q) != *group.q() {
            return Err(Error::InvalidGroup);
        }
        Ok(group)
    }
}

impl PublicKey {
    /// SubjectPublicKeyInfo DER (X9.42 Diffie–Hellman).
    pub fn to_public_key_der(&self) -> Result<Vec<u8>, Error> {
        let params = self.group().to_der();
        Ok(dl_key::public_key_der(DH_PUBLIC_NUMBER, &params, self.y())?)
    }

    /// PEM (`PUBLIC KEY`).
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        Ok(dl_key::pem(LABEL_PUBLIC, &self.to_public_key_der()?))
    }

    /// From SubjectPublicKeyInfo DER.
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_public_key_info(&SubjectPublicKeyInfoRef::from_der(der)?)
    }

    /// From a decoded SubjectPublicKeyInfo.
    pub(crate) fn from_public_key_info(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<Self, Error> {
        let group = Group::from_algorithm(&spki.algorithm)?;
        Self::new(group, dl_key::public_value(spki)?)
    }

    /// From PEM (`PUBLIC KEY`).
    pub fn from_public_key_pem(text: &str) -> Result<Self, Error> {
        Self::from_public_key_der(&dl_key::pem_decode_label(text, LABEL_PUBLIC)?)
    }
}

impl SecretKey {
    /// PKCS#8 DER (X9.42 Diffie–Hellman), zeroized when dropped.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let params = self.group().to_der();
        Ok(dl_key::private_key_der(
            DH_PUBLIC_NUMBER,
            &params,
            self.x(),
        )?)
    }

    /// PKCS#8 PEM (`PRIVATE KEY`), zeroized when dropped.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        let der = self.to_pkcs8_der()?;
        Ok(Zeroizing::new(dl_key::pem(LABEL_PRIVATE, &der)))
    }

    /// From PKCS#8 DER (X9.42 or PKCS#3 Diffie–Hellman).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_private_key_info(&PrivateKeyInfoRef::from_der(der)?)
    }

    /// From a decoded PKCS#8 PrivateKeyInfo.
    pub(crate) fn from_private_key_info(info: &PrivateKeyInfoRef<'_>) -> Result<Self, Error> {
        let group = Group::from_algorithm(&info.algorithm)?;
        Self::from_components(group, &*dl_key::private_value(info)?)
    }

    /// From PEM (`PRIVATE KEY`).
    pub fn from_pkcs8_pem(text: &str) -> Result<Self, Error> {
        Self::from_pkcs8_der(&dl_key::pem_decode_label(text, LABEL_PRIVATE)?)
    }
}
