//! Key, parameter and seed formats (described in the crate
//! documentation, under "Formats").

use alloc::string::String;
use alloc::vec::Vec;

use der::asn1::{ObjectIdentifier, OctetStringRef};
use der::{Decode, DecodeValue, Encode, EncodeValue, Header, Length, Reader, Writer};
use spki::AlgorithmIdentifierRef;
use zeroize::Zeroize;

use numcrypt_common::dl_key::{self, LABEL_PRIVATE};
use numcrypt_limbs::Unsigned;

use crate::{DomainParameters, Error, HashAlg, SigningKey, ValidationParameters, VerifyingKey};

/// `id-dsa` (RFC 3279).
pub const ID_DSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10040.4.1");

const LABEL_PARAMS: &str = "DSA PARAMETERS";
const LABEL_SEED: &str = "DSA DOMAIN PARAMETER SEED";
const LABEL_TRADITIONAL: &str = "DSA PRIVATE KEY";

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
        let [p, q, g] = dl_key::integer_sequence_from_der(der)?;
        Self::new(p, q, g)
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
        let [p, q, g] = dl_key::integer_sequence_from_der(der)?;
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
        let [p, q, g] = dl_key::integer_sequence_from_any(&any)?;
        Self::new(p, q, g)
    }
}

numcrypt_common::dl_key_codecs!(
    algorithm: ID_DSA,
    group: DomainParameters,
    group_accessor: params,
    public: VerifyingKey,
    private: SigningKey,
    error: Error,
    rejection: crate::traits::rejection,
);

impl SigningKey {
    /// From PEM: PKCS#8 (`PRIVATE KEY`, what `openssl gendsa` writes) or
    /// OpenSSL's traditional `DSA PRIVATE KEY` (whose `y` must match `x`).
    pub fn from_pem(text: &str) -> Result<Self, Error> {
        let (label, der) = dl_key::pem_decode(text)?;
        match label {
            LABEL_PRIVATE => Self::from_pkcs8_der(&der),
            LABEL_TRADITIONAL => {
                // OpenSSL's traditional form: `SEQUENCE { version INTEGER
                // (0), p, q, g, y, x INTEGER }`.
                let [version, p, q, g, y, mut x] = dl_key::integer_sequence_from_der(&der)?;
                let signing = if bool::from(version.is_zero()) {
                    DomainParameters::new(p, q, g)
                        .and_then(|params| Self::from_components(params, &x))
                } else {
                    Err(Error::Encoding)
                };
                x.zeroize();
                let signing = signing?;
                if signing.verifying_key().y() != &y {
                    return Err(Error::InvalidPrivateKey);
                }
                Ok(signing)
            }
            _ => Err(Error::UnsupportedAlgorithm),
        }
    }
}
