//! Key formats (described in the crate documentation, under "Keys on
//! disk"): X9.42 Diffie–Hellman keys, PKCS#3 ones on input.

use alloc::string::String;
use alloc::vec::Vec;

use der::asn1::{AnyRef, BitStringRef, ObjectIdentifier, OctetStringRef, UintRef};
use der::pem::LineEnding;
use der::{Decode, DecodeValue, Encode, EncodeValue, Header, Length, Reader, Writer};
use numcrypt_limbs::BoxedUint;
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::{Zeroize, Zeroizing};

use crate::{Error, Group, PublicKey, SecretKey};

/// `dhpublicnumber` (ANSI X9.42, RFC 3279).
pub const DH_PUBLIC_NUMBER: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10046.2.1");
/// `dhKeyAgreement` (PKCS#3).
pub const DH_KEY_AGREEMENT: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.3.1");

const LABEL_PUBLIC: &str = "PUBLIC KEY";
const LABEL_PRIVATE: &str = "PRIVATE KEY";

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

fn uint(u: &UintRef<'_>) -> BoxedUint {
    BoxedUint::from_be_slice_auto(u.as_bytes())
}

/// The DER INTEGER for `x`; the buffers are zeroized, so a secret may go
/// through (DER's minimal length reveals its leading zero bytes).
fn integer_der(x: &BoxedUint) -> Zeroizing<Vec<u8>> {
    let bytes = Zeroizing::new(x.to_be_bytes());
    match UintRef::new(&bytes).and_then(|u| u.to_der()) {
        Ok(der) => Zeroizing::new(der),
        Err(_) => unreachable!("an integer of a few kilobytes encodes"),
    }
}

fn pem(label: &str, der: &[u8]) -> String {
    match der::pem::encode_string(label, LineEnding::LF, der) {
        Ok(text) => text,
        Err(_) => unreachable!("PEM encoding of a DER value"),
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
        let group = Group::new(uint(&params.p), uint(&params.g))?;
        if let Some(q) = params.q
            && uint(&q) != *group.q()
        {
            return Err(Error::InvalidGroup);
        }
        Ok(group)
    }

    /// X9.42 `DomainParameters` DER: `SEQUENCE { p, g, q }`.
    pub fn to_der(&self) -> Vec<u8> {
        let (p, g, q) = (
            self.p().to_be_bytes(),
            self.g().to_be_bytes(),
            self.q().to_be_bytes(),
        );
        let params = match (UintRef::new(&p), UintRef::new(&g), UintRef::new(&q)) {
            (Ok(p), Ok(g), Ok(q)) => DomainParameters { p, g, q },
            _ => unreachable!("big-endian bytes are valid integers"),
        };
        match params.to_der() {
            Ok(der) => der,
            Err(_) => unreachable!("three integers encode"),
        }
    }

    /// From X9.42 `DomainParameters` DER (cheap checks only; see
    /// [`Group::validate`]).
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let params = DomainParameters::from_der(der)?;
        let group = Group::new(uint(&params.p), uint(&params.g))?;
        if uint(&params.q) != *group.q() {
            return Err(Error::InvalidGroup);
        }
        Ok(group)
    }
}

/// Runs `f` on the X9.42 algorithm identifier for `group`.
fn with_algorithm<T>(
    group: &Group,
    f: impl FnOnce(AlgorithmIdentifierRef<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let params = group.to_der();
    let any = AnyRef::from_der(&params)?;
    f(AlgorithmIdentifierRef {
        oid: DH_PUBLIC_NUMBER,
        parameters: Some(any),
    })
}

impl PublicKey {
    /// SubjectPublicKeyInfo DER (X9.42 Diffie–Hellman).
    pub fn to_public_key_der(&self) -> Result<Vec<u8>, Error> {
        let y = integer_der(self.y());
        with_algorithm(self.group(), |algorithm| {
            let spki = SubjectPublicKeyInfoRef {
                algorithm,
                subject_public_key: BitStringRef::from_bytes(&y)?,
            };
            Ok(spki.to_der()?)
        })
    }

    /// PEM (`PUBLIC KEY`).
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        Ok(pem(LABEL_PUBLIC, &self.to_public_key_der()?))
    }

    /// From SubjectPublicKeyInfo DER.
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_public_key_info(&SubjectPublicKeyInfoRef::from_der(der)?)
    }

    /// From a decoded SubjectPublicKeyInfo.
    pub(crate) fn from_public_key_info(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<Self, Error> {
        let group = Group::from_algorithm(&spki.algorithm)?;
        let bits = spki.subject_public_key.as_bytes().ok_or(Error::Encoding)?;
        let y = UintRef::from_der(bits)?;
        Self::new(group, uint(&y))
    }

    /// From PEM (`PUBLIC KEY`).
    pub fn from_public_key_pem(text: &str) -> Result<Self, Error> {
        let (label, der) =
            der::pem::decode_vec(text.trim().as_bytes()).map_err(|_| Error::Encoding)?;
        if label != LABEL_PUBLIC {
            return Err(Error::UnsupportedAlgorithm);
        }
        Self::from_public_key_der(&der)
    }
}

impl SecretKey {
    /// PKCS#8 DER (X9.42 Diffie–Hellman), zeroized when dropped.
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let x = integer_der(self.x());
        with_algorithm(self.group(), |algorithm| {
            let info = PrivateKeyInfoRef::new(algorithm, OctetStringRef::new(&x)?);
            Ok(Zeroizing::new(info.to_der()?))
        })
    }

    /// PKCS#8 PEM (`PRIVATE KEY`), zeroized when dropped.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        let der = self.to_pkcs8_der()?;
        Ok(Zeroizing::new(pem(LABEL_PRIVATE, &der)))
    }

    /// From PKCS#8 DER (X9.42 or PKCS#3 Diffie–Hellman).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_private_key_info(&PrivateKeyInfoRef::from_der(der)?)
    }

    /// From a decoded PKCS#8 PrivateKeyInfo.
    pub(crate) fn from_private_key_info(info: &PrivateKeyInfoRef<'_>) -> Result<Self, Error> {
        let group = Group::from_algorithm(&info.algorithm)?;
        let x = UintRef::from_der(info.private_key.as_bytes())?;
        let mut x = uint(&x);
        let key = Self::from_components(group, &x);
        x.zeroize();
        key
    }

    /// From PEM (`PRIVATE KEY`).
    pub fn from_pkcs8_pem(text: &str) -> Result<Self, Error> {
        let (label, der) =
            der::pem::decode_vec(text.trim().as_bytes()).map_err(|_| Error::Encoding)?;
        let der = Zeroizing::new(der);
        if label != LABEL_PRIVATE {
            return Err(Error::UnsupportedAlgorithm);
        }
        Self::from_pkcs8_der(&der)
    }
}
