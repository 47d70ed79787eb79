//! Key formats through RustCrypto's `pkcs1`, `pkcs8` and `spki`: PKCS#1 and
//! PKCS#8 private keys, PKCS#1 and SubjectPublicKeyInfo public keys, DER
//! and PEM.
//!
//! The inherent methods return this crate's [`Error`]; the format crates'
//! traits (`DecodePrivateKey`, `EncodePublicKey`, …) are implemented too,
//! for code written against them.

use alloc::string::String;
use alloc::vec::Vec;

use der::asn1::{
    AnyRef, BitStringRef, ContextSpecificRef, ObjectIdentifier, OctetStringRef, UintRef,
};
use der::pem::{LineEnding, PemLabel};
use der::{
    Decode, DecodeValue, Document, Encode, EncodeValue, Length, Reader, SecretDocument, Sequence,
    TagMode, TagNumber, Writer,
};
use numcrypt_limbs::BoxedUint;
use pkcs1::{RsaPrivateKeyRef, RsaPublicKeyRef};
use pkcs8::PrivateKeyInfoRef;
use spki::{
    AlgorithmIdentifier, AlgorithmIdentifierOwned, AlgorithmIdentifierRef, SubjectPublicKeyInfoRef,
};
use zeroize::Zeroizing;

use crate::pss::PssRestriction;
use crate::{Error, HashAlg, KeyAlgorithm, OtherPrimeInfo, RsaPrivateKey, RsaPublicKey};

/// `id-RSASSA-PSS` (RFC 4055 §3.1, RFC 8017 A.2.3).
const RSASSA_PSS_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");
/// `id-mgf1`.
const MGF1_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.8");

/// PEM labels.
const PKCS8_LABEL: &str = "PRIVATE KEY";
const SPKI_LABEL: &str = "PUBLIC KEY";

/// The key algorithm an encoding names: `rsaEncryption` with NULL
/// parameters (absent ones are tolerated, as OpenSSL does), or
/// `id-RSASSA-PSS` with or without `RSASSA-PSS-params`.
fn read_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<KeyAlgorithm, Error> {
    if alg.oid == pkcs1::ALGORITHM_OID && alg.parameters.is_none_or(|p| p == AnyRef::NULL) {
        return Ok(KeyAlgorithm::Rsa);
    }
    if alg.oid != RSASSA_PSS_OID {
        return Err(Error::UnsupportedKeyFormat);
    }
    let Some(params) = alg.parameters else {
        return Ok(KeyAlgorithm::RsaPss(None));
    };
    let der = params.to_der()?;
    let params = PssParams::from_der(&der)?;
    let hash = |oid: &ObjectIdentifier| HashAlg::from_oid(oid).ok_or(Error::UnsupportedHash);
    let mgf1_hash = match params.mask_gen.parameters {
        Some(ref h) if params.mask_gen.oid == MGF1_OID => hash(&h.oid)?,
        _ => return Err(Error::UnsupportedKeyFormat),
    };
    Ok(KeyAlgorithm::RsaPss(Some(PssRestriction {
        hash: hash(&params.hash.oid)?,
        mgf1_hash,
        min_salt_len: usize::try_from(params.salt_len).map_err(|_| Error::InvalidSaltLength)?,
    })))
}

/// `RSASSA-PSS-params` (RFC 8017 A.2.3, RFC 4055 §3.1), read and written
/// here rather than through `pkcs1`, whose salt length is a byte: a key
/// may ask for a longer salt (up to `emLen − hLen − 2`, 478 bytes for a
/// 4096-bit key and SHA-256), and `openssl genpkey` writes such keys.
///
/// ```text
/// RSASSA-PSS-params ::= SEQUENCE {
///     hashAlgorithm      [0] HashAlgorithm      DEFAULT sha1,
///     maskGenAlgorithm   [1] MaskGenAlgorithm   DEFAULT mgf1SHA1,
///     saltLength         [2] INTEGER            DEFAULT 20,
///     trailerField       [3] TrailerField       DEFAULT trailerFieldBC }
/// ```
struct PssParams {
    hash: AlgorithmIdentifierOwned,
    mask_gen: AlgorithmIdentifier<AlgorithmIdentifierOwned>,
    salt_len: u32,
}

/// `sha1` with NULL parameters: the default hash.
fn sha1_identifier() -> AlgorithmIdentifierOwned {
    AlgorithmIdentifierOwned {
        oid: HashAlg::Sha1.oid(),
        parameters: Some(der::Any::null()),
    }
}

/// `mgf1SHA1`: the default mask generation.
fn mgf1_sha1_identifier() -> AlgorithmIdentifier<AlgorithmIdentifierOwned> {
    AlgorithmIdentifier {
        oid: MGF1_OID,
        parameters: Some(sha1_identifier()),
    }
}

/// The default salt length, and the only trailer field (`trailerFieldBC`).
const PSS_DEFAULT_SALT_LEN: u32 = 20;
const PSS_TRAILER_FIELD_BC: u8 = 1;

impl<'a> DecodeValue<'a> for PssParams {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, _header: der::Header) -> der::Result<Self> {
        let params = Self {
            hash: reader
                .context_specific(TagNumber(0), TagMode::Explicit)?
                .unwrap_or_else(sha1_identifier),
            mask_gen: reader
                .context_specific(TagNumber(1), TagMode::Explicit)?
                .unwrap_or_else(mgf1_sha1_identifier),
            salt_len: reader
                .context_specific(TagNumber(2), TagMode::Explicit)?
                .unwrap_or(PSS_DEFAULT_SALT_LEN),
        };
        let trailer: u8 = reader
            .context_specific(TagNumber(3), TagMode::Explicit)?
            .unwrap_or(PSS_TRAILER_FIELD_BC);
        if trailer != PSS_TRAILER_FIELD_BC {
            return Err(reader.error(der::Tag::Integer.value_error()));
        }
        Ok(params)
    }
}

/// An explicitly tagged field of `RSASSA-PSS-params`, absent when it has
/// its default value.
type PssField<'a, T> = Option<ContextSpecificRef<'a, T>>;

impl PssParams {
    /// The fields that differ from their defaults (DER leaves defaults
    /// out).
    fn fields(
        &self,
    ) -> (
        PssField<'_, AlgorithmIdentifierOwned>,
        PssField<'_, AlgorithmIdentifier<AlgorithmIdentifierOwned>>,
        PssField<'_, u32>,
    ) {
        (
            (self.hash != sha1_identifier()).then_some(ContextSpecificRef {
                tag_number: TagNumber(0),
                tag_mode: TagMode::Explicit,
                value: &self.hash,
            }),
            (self.mask_gen != mgf1_sha1_identifier()).then_some(ContextSpecificRef {
                tag_number: TagNumber(1),
                tag_mode: TagMode::Explicit,
                value: &self.mask_gen,
            }),
            (self.salt_len != PSS_DEFAULT_SALT_LEN).then_some(ContextSpecificRef {
                tag_number: TagNumber(2),
                tag_mode: TagMode::Explicit,
                value: &self.salt_len,
            }),
        )
    }
}

impl EncodeValue for PssParams {
    fn value_len(&self) -> der::Result<Length> {
        let (hash, mask_gen, salt_len) = self.fields();
        hash.encoded_len()? + mask_gen.encoded_len()? + salt_len.encoded_len()?
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        let (hash, mask_gen, salt_len) = self.fields();
        hash.encode(writer)?;
        mask_gen.encode(writer)?;
        salt_len.encode(writer)
    }
}

impl<'a> Sequence<'a> for PssParams {}

/// The DER of a key algorithm's parameters: NULL for `rsaEncryption`,
/// none for an unrestricted RSA-PSS key, `RSASSA-PSS-params` otherwise.
fn algorithm_parameters(algorithm: KeyAlgorithm) -> Result<Option<Vec<u8>>, Error> {
    let r = match algorithm {
        KeyAlgorithm::Rsa => return Ok(Some(AnyRef::NULL.to_der()?)),
        KeyAlgorithm::RsaPss(None) => return Ok(None),
        KeyAlgorithm::RsaPss(Some(r)) => r,
    };
    let hash = |h: HashAlg| AlgorithmIdentifierOwned {
        oid: h.oid(),
        parameters: Some(der::Any::null()),
    };
    let params = PssParams {
        hash: hash(r.hash),
        mask_gen: AlgorithmIdentifier {
            oid: MGF1_OID,
            parameters: Some(hash(r.mgf1_hash)),
        },
        salt_len: u32::try_from(r.min_salt_len).map_err(|_| Error::InvalidSaltLength)?,
    };
    Ok(Some(params.to_der()?))
}

/// The algorithm identifier for `algorithm` with its encoded `parameters`.
fn algorithm_identifier<'a>(
    algorithm: KeyAlgorithm,
    parameters: Option<&'a [u8]>,
) -> Result<AlgorithmIdentifierRef<'a>, Error> {
    let oid = match algorithm {
        KeyAlgorithm::Rsa => pkcs1::ALGORITHM_OID,
        KeyAlgorithm::RsaPss(_) => RSASSA_PSS_OID,
    };
    Ok(AlgorithmIdentifierRef {
        oid,
        parameters: parameters.map(AnyRef::from_der).transpose()?,
    })
}

/// A wrong PEM label (a PKCS#8 key given where PKCS#1 is expected, …).
fn pem_error(e: der::pem::Error) -> Error {
    Error::Encoding(der::ErrorKind::Pem(e).into())
}

/// The label of a PEM document, read before its contents.
fn pem_label(pem: &str) -> Result<&str, Error> {
    der::pem::decode_label(pem.as_bytes()).map_err(pem_error)
}

fn uint(x: &UintRef<'_>) -> Zeroizing<BoxedUint> {
    Zeroizing::new(uint_value(x))
}

/// The integer's value, for a home that wipes it (an [`OtherPrimeInfo`]).
fn uint_value(x: &UintRef<'_>) -> BoxedUint {
    BoxedUint::from_be_slice_auto(x.as_bytes())
}

impl RsaPrivateKey {
    /// Reads a PKCS#1 `RSAPrivateKey` (DER), two-prime or multi-prime
    /// (version `multi`, with `OtherPrimeInfos`: `openssl genpkey -pkeyopt
    /// rsa_keygen_primes:3` writes such keys). Every value is checked (see
    /// [`from_multi_prime_components`](Self::from_multi_prime_components)).
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, Error> {
        let k = RsaPrivateKeyRef::from_der(der)?;
        let others: Vec<OtherPrimeInfo> = k
            .other_prime_infos
            .iter()
            .flatten()
            .map(|o| OtherPrimeInfo {
                prime: uint_value(&o.prime),
                exponent: uint_value(&o.exponent),
                coefficient: uint_value(&o.coefficient),
            })
            .collect();
        Self::from_multi_prime_components(
            &uint(&k.modulus),
            &uint(&k.public_exponent),
            &uint(&k.private_exponent),
            &uint(&k.prime1),
            &uint(&k.prime2),
            &uint(&k.exponent1),
            &uint(&k.exponent2),
            &uint(&k.coefficient),
            &others,
        )
    }

    /// Reads a PKCS#8 `PrivateKeyInfo` (DER) holding an `rsaEncryption` or
    /// `id-RSASSA-PSS` key.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, Error> {
        let info = PrivateKeyInfoRef::from_der(der)?;
        let algorithm = read_algorithm(&info.algorithm)?;
        Ok(Self::from_pkcs1_der(info.private_key.as_bytes())?.with_algorithm(algorithm))
    }

    /// Reads a password-protected PKCS#8 key (`EncryptedPrivateKeyInfo`,
    /// DER: PBES2 with PBKDF2 or scrypt and AES, as `openssl genpkey
    /// -aes256` and `openssl pkcs8 -topk8` write). The key derivation's
    /// cost is checked against [`numcrypt_common::encrypted_key`]'s limits
    /// before anything is derived ([`Error::KdfTooCostly`]); a wrong
    /// password is [`Error::KeyDecryption`]. (The `pkcs8` crate's
    /// `DecodePrivateKey::from_pkcs8_encrypted_der`, which this type also
    /// has, runs whatever the file asks for: prefer this.)
    #[cfg(feature = "encryption")]
    pub fn from_pkcs8_encrypted_der(der: &[u8], password: impl AsRef<[u8]>) -> Result<Self, Error> {
        let doc = numcrypt_common::encrypted_key::decrypt_der(der, password.as_ref())?;
        Self::from_pkcs8_der(doc.as_bytes())
    }

    /// Reads a password-protected PKCS#8 PEM key (`-----BEGIN ENCRYPTED
    /// PRIVATE KEY-----`), as [`from_pkcs8_encrypted_der`](Self::from_pkcs8_encrypted_der).
    #[cfg(feature = "encryption")]
    pub fn from_pkcs8_encrypted_pem(pem: &str, password: impl AsRef<[u8]>) -> Result<Self, Error> {
        let doc = numcrypt_common::encrypted_key::decrypt_pem(pem, password.as_ref())?;
        Self::from_pkcs8_der(doc.as_bytes())
    }

    /// Reads PKCS#8 (`PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE KEY`) DER.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        match Self::from_pkcs8_der(der) {
            Err(Error::Encoding(_)) => Self::from_pkcs1_der(der),
            other => other,
        }
    }

    /// Reads a PKCS#1 PEM key (`-----BEGIN RSA PRIVATE KEY-----`).
    pub fn from_pkcs1_pem(pem: &str) -> Result<Self, Error> {
        let (label, doc) = SecretDocument::from_pem(pem)?;
        RsaPrivateKeyRef::validate_pem_label(label).map_err(pem_error)?;
        Self::from_pkcs1_der(doc.as_bytes())
    }

    /// Reads a PKCS#8 PEM key (`-----BEGIN PRIVATE KEY-----`, what
    /// `openssl genpkey` writes).
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, Error> {
        let (label, doc) = SecretDocument::from_pem(pem)?;
        PrivateKeyInfoRef::validate_pem_label(label).map_err(pem_error)?;
        Self::from_pkcs8_der(doc.as_bytes())
    }

    /// Reads a PEM key of either kind, by its label. Encrypted PKCS#8
    /// (`ENCRYPTED PRIVATE KEY`) is [`Error::EncryptedKey`].
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        match pem_label(pem)? {
            PKCS8_LABEL => Self::from_pkcs8_pem(pem),
            l if l == RsaPrivateKeyRef::PEM_LABEL => Self::from_pkcs1_pem(pem),
            "ENCRYPTED PRIVATE KEY" => Err(Error::EncryptedKey),
            _ => Err(Error::UnsupportedKeyFormat),
        }
    }

    /// The PKCS#1 `RSAPrivateKey` DER encoding (zeroized when dropped).
    pub fn to_pkcs1_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        Ok(self.pkcs1_document()?.to_bytes())
    }

    /// The PKCS#8 `PrivateKeyInfo` DER encoding (zeroized when dropped).
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        Ok(self.pkcs8_document()?.to_bytes())
    }

    /// PKCS#1 PEM (`RSA PRIVATE KEY`), LF line endings.
    pub fn to_pkcs1_pem(&self) -> Result<Zeroizing<String>, Error> {
        Ok(self
            .pkcs1_document()?
            .to_pem(RsaPrivateKeyRef::PEM_LABEL, LineEnding::LF)?)
    }

    /// PKCS#8 PEM (`PRIVATE KEY`), LF line endings: what `openssl genpkey`
    /// writes.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, Error> {
        Ok(self.pkcs8_document()?.to_pem(PKCS8_LABEL, LineEnding::LF)?)
    }

    /// The PKCS#1 `RSAPrivateKey`: version `multi` with `OtherPrimeInfos`
    /// for a multi-prime key, as OpenSSL writes it.
    fn pkcs1_document(&self) -> Result<SecretDocument, Error> {
        let (v, others) = self.pkcs1_values();
        let u = |i: usize| UintRef::new(&v[i]);
        let other_prime_infos = others
            .iter()
            .map(|[prime, exponent, coefficient]| {
                Ok(pkcs1::OtherPrimeInfo {
                    prime: UintRef::new(prime)?,
                    exponent: UintRef::new(exponent)?,
                    coefficient: UintRef::new(coefficient)?,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let key = RsaPrivateKeyRef {
            modulus: u(0)?,
            public_exponent: u(1)?,
            private_exponent: u(2)?,
            prime1: u(3)?,
            prime2: u(4)?,
            exponent1: u(5)?,
            exponent2: u(6)?,
            coefficient: u(7)?,
            other_prime_infos: (!other_prime_infos.is_empty()).then_some(other_prime_infos),
        };
        Ok(SecretDocument::encode_msg(&key)?)
    }

    fn pkcs8_document(&self) -> Result<SecretDocument, Error> {
        let pkcs1 = self.pkcs1_document()?;
        let algorithm = self.public_key().algorithm();
        let parameters = algorithm_parameters(algorithm)?;
        let info = PrivateKeyInfoRef::new(
            algorithm_identifier(algorithm, parameters.as_deref())?,
            OctetStringRef::new(pkcs1.as_bytes())?,
        );
        Ok(SecretDocument::encode_msg(&info)?)
    }
}

impl RsaPublicKey {
    /// Reads a PKCS#1 `RSAPublicKey` (DER).
    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, Error> {
        let k = RsaPublicKeyRef::from_der(der)?;
        Self::from_be_bytes(k.modulus.as_bytes(), k.public_exponent.as_bytes())
    }

    /// Reads a `SubjectPublicKeyInfo` (DER) holding an `rsaEncryption` or
    /// `id-RSASSA-PSS` key.
    pub fn from_public_key_der(der: &[u8]) -> Result<Self, Error> {
        let spki = SubjectPublicKeyInfoRef::from_der(der)?;
        let algorithm = read_algorithm(&spki.algorithm)?;
        let bits = spki
            .subject_public_key
            .as_bytes()
            .ok_or(Error::UnsupportedKeyFormat)?;
        Ok(Self::from_pkcs1_der(bits)?.with_algorithm(algorithm))
    }

    /// Reads SubjectPublicKeyInfo or PKCS#1 DER.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        match Self::from_public_key_der(der) {
            Err(Error::Encoding(_)) => Self::from_pkcs1_der(der),
            other => other,
        }
    }

    /// Reads a PKCS#1 PEM key (`-----BEGIN RSA PUBLIC KEY-----`).
    pub fn from_pkcs1_pem(pem: &str) -> Result<Self, Error> {
        let (label, doc) = Document::from_pem(pem)?;
        RsaPublicKeyRef::validate_pem_label(label).map_err(pem_error)?;
        Self::from_pkcs1_der(doc.as_bytes())
    }

    /// Reads a SubjectPublicKeyInfo PEM key (`-----BEGIN PUBLIC KEY-----`,
    /// what `openssl pkey -pubout` writes).
    pub fn from_public_key_pem(pem: &str) -> Result<Self, Error> {
        let (label, doc) = Document::from_pem(pem)?;
        SubjectPublicKeyInfoRef::validate_pem_label(label).map_err(pem_error)?;
        Self::from_public_key_der(doc.as_bytes())
    }

    /// Reads a PEM public key of either kind, by its label.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        match pem_label(pem)? {
            SPKI_LABEL => Self::from_public_key_pem(pem),
            l if l == RsaPublicKeyRef::PEM_LABEL => Self::from_pkcs1_pem(pem),
            _ => Err(Error::UnsupportedKeyFormat),
        }
    }

    /// The PKCS#1 `RSAPublicKey` DER encoding.
    pub fn to_pkcs1_der(&self) -> Result<Vec<u8>, Error> {
        Ok(self.pkcs1_document()?.into_vec())
    }

    /// The SubjectPublicKeyInfo DER encoding.
    pub fn to_public_key_der(&self) -> Result<Vec<u8>, Error> {
        Ok(self.spki_document()?.into_vec())
    }

    /// PKCS#1 PEM (`RSA PUBLIC KEY`), LF line endings.
    pub fn to_pkcs1_pem(&self) -> Result<String, Error> {
        Ok(self
            .pkcs1_document()?
            .to_pem(RsaPublicKeyRef::PEM_LABEL, LineEnding::LF)?)
    }

    /// SubjectPublicKeyInfo PEM (`PUBLIC KEY`), LF line endings.
    pub fn to_public_key_pem(&self) -> Result<String, Error> {
        Ok(self.spki_document()?.to_pem(SPKI_LABEL, LineEnding::LF)?)
    }

    fn pkcs1_document(&self) -> Result<Document, Error> {
        let (n, e) = (self.n_bytes(), self.e_bytes());
        let key = RsaPublicKeyRef {
            modulus: UintRef::new(&n)?,
            public_exponent: UintRef::new(&e)?,
        };
        Ok(Document::encode_msg(&key)?)
    }

    fn spki_document(&self) -> Result<Document, Error> {
        let pkcs1 = self.pkcs1_document()?;
        let parameters = algorithm_parameters(self.algorithm())?;
        let spki = SubjectPublicKeyInfoRef {
            algorithm: algorithm_identifier(self.algorithm(), parameters.as_deref())?,
            subject_public_key: BitStringRef::from_bytes(pkcs1.as_bytes())?,
        };
        Ok(Document::encode_msg(&spki)?)
    }
}

// The format crates' traits, for code written against them.

impl TryFrom<PrivateKeyInfoRef<'_>> for RsaPrivateKey {
    type Error = pkcs8::Error;

    fn try_from(info: PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
        let algorithm = read_algorithm(&info.algorithm)
            .map_err(|_| pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid))?;
        Self::from_pkcs1_der(info.private_key.as_bytes())
            .map(|key| key.with_algorithm(algorithm))
            .map_err(|e| match e {
                Error::Encoding(e) => pkcs8::Error::Asn1(e),
                _ => pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid),
            })
    }
}

impl pkcs8::EncodePrivateKey for RsaPrivateKey {
    fn to_pkcs8_der(&self) -> pkcs8::Result<SecretDocument> {
        self.pkcs8_document()
            .map_err(|_| pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid))
    }
}

impl pkcs1::DecodeRsaPrivateKey for RsaPrivateKey {
    fn from_pkcs1_der(der: &[u8]) -> pkcs1::Result<Self> {
        RsaPrivateKey::from_pkcs1_der(der).map_err(|e| match e {
            Error::Encoding(e) => pkcs1::Error::Asn1(e),
            Error::UnsupportedKeyFormat => pkcs1::Error::Version,
            _ => pkcs1::Error::Crypto,
        })
    }
}

impl pkcs1::EncodeRsaPrivateKey for RsaPrivateKey {
    fn to_pkcs1_der(&self) -> pkcs1::Result<SecretDocument> {
        self.pkcs1_document().map_err(|_| pkcs1::Error::Crypto)
    }
}

impl TryFrom<SubjectPublicKeyInfoRef<'_>> for RsaPublicKey {
    type Error = spki::Error;

    fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
        let algorithm = read_algorithm(&spki.algorithm).map_err(|_| spki::Error::OidUnknown {
            oid: spki.algorithm.oid,
        })?;
        let bits = spki
            .subject_public_key
            .as_bytes()
            .ok_or(spki::Error::KeyMalformed)?;
        Self::from_pkcs1_der(bits)
            .map(|key| key.with_algorithm(algorithm))
            .map_err(|e| match e {
                Error::Encoding(e) => spki::Error::Asn1(e),
                _ => spki::Error::KeyMalformed,
            })
    }
}

impl spki::EncodePublicKey for RsaPublicKey {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        self.spki_document().map_err(|_| spki::Error::KeyMalformed)
    }
}

impl pkcs1::DecodeRsaPublicKey for RsaPublicKey {
    fn from_pkcs1_der(der: &[u8]) -> pkcs1::Result<Self> {
        RsaPublicKey::from_pkcs1_der(der).map_err(|e| match e {
            Error::Encoding(e) => pkcs1::Error::Asn1(e),
            _ => pkcs1::Error::KeyMalformed,
        })
    }
}

impl pkcs1::EncodeRsaPublicKey for RsaPublicKey {
    fn to_pkcs1_der(&self) -> pkcs1::Result<Document> {
        self.pkcs1_document()
            .map_err(|_| pkcs1::Error::KeyMalformed)
    }
}
