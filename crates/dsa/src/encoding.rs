//! Key, parameter and seed formats (described in the crate
//! documentation, under "Formats").

use alloc::string::String;
use alloc::vec::Vec;

use der::asn1::{ObjectIdentifier, OctetStringRef, UintRef};
use der::{Decode, DecodeValue, Encode, EncodeValue, Header, Length, Reader, Writer};
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::{Zeroize, Zeroizing};

use numcrypt_common::dl_key::{self, LABEL_PRIVATE, LABEL_PUBLIC};

use crate::{DomainParameters, Error, HashAlg, SigningKey, ValidationParameters, VerifyingKey};

/// `id-dsa` (RFC 3279).
pub const ID_DSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10040.4.1");

const LABEL_PARAMS: &str = "DSA PARAMETERS";
const LABEL_SEED: &str = "DSA DOMAIN PARAMETER SEED";
const LABEL_TRADITIONAL: &str = "DSA PRIVATE KEY";

/// `Dss-Parms`.
struct DssParms<'a> {
    p: UintRef<'a>,
    q: UintRef<'a>,
    g: UintRef<'a>,
}

impl<'a> DecodeValue<'a> for DssParms<'a> {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, _header: Header) -> der::Result<Self> {
        Ok(Self {
            p: reader.decode()?,
            q: reader.decode()?,
            g: reader.decode()?,
        })
    }
}

impl EncodeValue for DssParms<'_> {
    fn value_len(&self) -> der::Result<Length> {
        self.p.encoded_len()? + self.q.encoded_len()? + self.g.encoded_len()?
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        self.p.encode(writer)?;
        self.q.encode(writer)?;
        self.g.encode(writer)
    }
}

impl<'a> der::Sequence<'a> for DssParms<'a> {}

/// `DomainParameterSeed` (see the module documentation).
struct SeedInfo<'a> {
    hash: ObjectIdentifier,
    seed: &'a OctetStringRef,
    counter: u32,
    index: Option<u8>,
}

impl<'a> DecodeValue<'a> for SeedInfo<'a> {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, _header: Header) -> der::Result<Self> {
        Ok(Self {
            hash: reader.decode()?,
            seed: reader.decode()?,
            counter: reader.decode()?,
            index: reader.decode()?,
        })
    }
}

impl EncodeValue for SeedInfo<'_> {
    fn value_len(&self) -> der::Result<Length> {
        self.hash.encoded_len()?
            + self.seed.encoded_len()?
            + self.counter.encoded_len()?
            + self.index.encoded_len()?
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        self.hash.encode(writer)?;
        self.seed.encode(writer)?;
        self.counter.encode(writer)?;
        self.index.encode(writer)
    }
}

impl<'a> der::Sequence<'a> for SeedInfo<'a> {}

/// OpenSSL's traditional `DSA PRIVATE KEY`:
/// `SEQUENCE { version INTEGER (0), p, q, g, y, x INTEGER }`.
struct TraditionalKey<'a> {
    params: DssParms<'a>,
    y: UintRef<'a>,
    x: UintRef<'a>,
}

impl<'a> DecodeValue<'a> for TraditionalKey<'a> {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, _header: Header) -> der::Result<Self> {
        let version: u8 = reader.decode()?;
        if version != 0 {
            return Err(reader.error(der::Tag::Integer.value_error()));
        }
        Ok(Self {
            params: DssParms {
                p: reader.decode()?,
                q: reader.decode()?,
                g: reader.decode()?,
            },
            y: reader.decode()?,
            x: reader.decode()?,
        })
    }
}

impl<'a> der::FixedTag for TraditionalKey<'a> {
    const TAG: der::Tag = der::Tag::Sequence;
}

/// The PEM blocks of `text`, in order, as (label, DER) pairs: a parameters
/// file holds several (`openssl dsaparam` output, then the seed block), and
/// `der::pem` (`pem-rfc7468`) decodes exactly one, refusing anything after
/// it, so this finds each block's bounds and lets `der::pem` decode it.
pub(crate) fn pem_blocks(text: &str) -> Result<Vec<(String, Vec<u8>)>, Error> {
    const BEGIN: &str = "-----BEGIN ";
    const END: &str = "-----END ";
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        let after = &rest[start..];
        let end_marker = after.find(END).ok_or(Error::Encoding)?;
        let close = after[end_marker..]
            .find("-----\n")
            .map(|i| end_marker + i + 5)
            .or_else(|| {
                after[end_marker..]
                    .rfind("-----")
                    .map(|i| end_marker + i + 5)
            })
            .ok_or(Error::Encoding)?;
        let block = &after[..close];
        let (label, der) = der::pem::decode_vec(block.as_bytes()).map_err(|_| Error::Encoding)?;
        blocks.push((String::from(label), der));
        rest = &after[close..];
    }
    Ok(blocks)
}

impl DomainParameters {
    /// `Dss-Parms` DER (RFC 3279).
    pub fn to_der(&self) -> Vec<u8> {
        dl_key::integer_sequence_der(&[self.p(), self.q(), self.g()])
    }

    /// Parameters from `Dss-Parms` DER, after the cheap checks.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let parms = DssParms::from_der(der)?;
        Self::new(
            dl_key::uint(&parms.p),
            dl_key::uint(&parms.q),
            dl_key::uint(&parms.g),
        )
    }

    /// PEM: a `DSA PARAMETERS` block (what `openssl dsaparam` reads), then,
    /// when the seed is known, a `DSA DOMAIN PARAMETER SEED` block.
    pub fn to_pem(&self) -> String {
        let mut text = dl_key::pem(LABEL_PARAMS, &self.to_der());
        if let Some(v) = self.validation_parameters() {
            let seed = match OctetStringRef::new(&v.seed) {
                Ok(seed) => seed,
                Err(_) => unreachable!("a seed is far below DER's length limit"),
            };
            let info = SeedInfo {
                hash: v.hash.oid(),
                seed,
                counter: v.counter,
                index: v.index,
            };
            if let Ok(der) = info.to_der() {
                text.push_str(&dl_key::pem(LABEL_SEED, &der));
            }
        }
        text
    }

    /// Parameters from PEM: the first `DSA PARAMETERS` block (other blocks
    /// are skipped), with the seed block when there is one. Runs the cheap
    /// checks; call [`validate`](Self::validate) for the rest.
    pub fn from_pem(text: &str) -> Result<Self, Error> {
        let blocks = pem_blocks(text)?;
        let der = blocks
            .iter()
            .find(|(label, _)| label == LABEL_PARAMS)
            .map(|(_, der)| der)
            .ok_or(Error::UnsupportedAlgorithm)?;
        let parms = DssParms::from_der(der)?;
        let (p, q, g) = (
            dl_key::uint(&parms.p),
            dl_key::uint(&parms.q),
            dl_key::uint(&parms.g),
        );
        match blocks.iter().find(|(label, _)| label == LABEL_SEED) {
            None => Self::new(p, q, g),
            Some((_, der)) => {
                let info = SeedInfo::from_der(der)?;
                let validation = ValidationParameters {
                    hash: HashAlg::from_oid(&info.hash).ok_or(Error::UnsupportedHash)?,
                    seed: info.seed.as_bytes().to_vec(),
                    counter: info.counter,
                    index: info.index,
                };
                Self::with_validation(p, q, g, validation)
            }
        }
    }

    /// Parameters from the `parameters` of an `id-dsa` algorithm
    /// identifier.
    fn from_algorithm(algorithm: &AlgorithmIdentifierRef<'_>) -> Result<Self, Error> {
        if algorithm.oid != ID_DSA {
            return Err(Error::UnsupportedAlgorithm);
        }
        let any = algorithm.parameters.ok_or(Error::Encoding)?;
        let parms: DssParms<'_> = any.decode_as()?;
        Self::new(
            dl_key::uint(&parms.p),
            dl_key::uint(&parms.q),
            dl_key::uint(&parms.g),
        )
    }
}

impl VerifyingKey {
    /// SubjectPublicKeyInfo DER.
    pub fn to_public_key_der(&self) -> Result<Vec<u8>, Error> {
        Ok(dl_key::public_key_der(
            ID_DSA,
            &self.params().to_der(),
            self.y(),
        )?)
    }

    /// SubjectPublicKeyInfo PEM (`PUBLIC KEY`).
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        Ok(dl_key::pem(LABEL_PUBLIC, &self.to_public_key_der()?))
    }

    /// From SubjectPublicKeyInfo DER (the cheap parameter checks and the
    /// public key checks run).
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_public_key_info(&SubjectPublicKeyInfoRef::from_der(der)?)
    }

    /// From a decoded SubjectPublicKeyInfo.
    pub(crate) fn from_public_key_info(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<Self, Error> {
        let params = DomainParameters::from_algorithm(&spki.algorithm)?;
        Self::new(params, dl_key::public_value(spki)?)
    }

    /// From PEM (`PUBLIC KEY`).
    pub fn from_public_key_pem(text: &str) -> Result<Self, Error> {
        Self::from_public_key_der(&dl_key::pem_decode_label(text, LABEL_PUBLIC)?)
    }
}

impl SigningKey {
    /// PKCS#8 DER (zeroized when dropped).
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        Ok(dl_key::private_key_der(
            ID_DSA,
            &self.params().to_der(),
            self.x(),
        )?)
    }

    /// PKCS#8 PEM (`PRIVATE KEY`), zeroized when dropped.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        let der = self.to_pkcs8_der()?;
        Ok(Zeroizing::new(dl_key::pem(LABEL_PRIVATE, &der)))
    }

    /// From PKCS#8 DER.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        Self::from_private_key_info(&PrivateKeyInfoRef::from_der(der)?)
    }

    /// From a decoded PKCS#8 PrivateKeyInfo.
    pub(crate) fn from_private_key_info(info: &PrivateKeyInfoRef<'_>) -> Result<Self, Error> {
        let params = DomainParameters::from_algorithm(&info.algorithm)?;
        Self::from_components(params, &*dl_key::private_value(info)?)
    }

    /// From PEM: PKCS#8 (`PRIVATE KEY`, what `openssl gendsa` writes) or
    /// OpenSSL's traditional `DSA PRIVATE KEY` (whose `y` must match `x`).
    pub fn from_pem(text: &str) -> Result<Self, Error> {
        let (label, der) = dl_key::pem_decode(text)?;
        match label {
            LABEL_PRIVATE => Self::from_pkcs8_der(&der),
            LABEL_TRADITIONAL => {
                let key = TraditionalKey::from_der(&der)?;
                let params = DomainParameters::new(
                    dl_key::uint(&key.params.p),
                    dl_key::uint(&key.params.q),
                    dl_key::uint(&key.params.g),
                )?;
                let mut x = dl_key::uint(&key.x);
                let signing = Self::from_components(params, &x);
                x.zeroize();
                let signing = signing?;
                if signing.verifying_key().y() != &dl_key::uint(&key.y) {
                    return Err(Error::InvalidPrivateKey);
                }
                Ok(signing)
            }
            _ => Err(Error::UnsupportedAlgorithm),
        }
    }
}
