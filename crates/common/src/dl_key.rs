//! The SPKI and PKCS#8 wrapping of discrete-log keys: DSA's (`id-dsa`) and
//! ElGamal's (X9.42 `dhpublicnumber`). Both store the key as one INTEGER
//! (`y` public, `x` private) under an algorithm identifier whose parameters
//! are the group; only the identifier and the parameters' DER differ.

use alloc::string::String;
use alloc::vec::Vec;

use der::asn1::{AnyRef, BitStringRef, ObjectIdentifier, OctetStringRef, UintRef};
use der::pem::LineEnding;
use der::{Decode, Encode};
use numcrypt_limbs::BoxedUint;
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use crate::Error;

/// The PEM label of a SubjectPublicKeyInfo.
pub const LABEL_PUBLIC: &str = "PUBLIC KEY";
/// The PEM label of a PKCS#8 PrivateKeyInfo.
pub const LABEL_PRIVATE: &str = "PRIVATE KEY";

/// The DER INTEGER for `x`. DER is minimal, so the length reveals how many
/// leading zero bytes `x` has (as with every DER encoder); the buffers are
/// zeroized, so a secret may go through.
pub fn integer_der(x: &BoxedUint) -> Zeroizing<Vec<u8>> {
    let bytes = Zeroizing::new(x.to_be_bytes());
    match UintRef::new(&bytes).and_then(|u| u.to_der()) {
        Ok(der) => Zeroizing::new(der),
        Err(_) => unreachable!("an integer of a few kilobytes encodes"),
    }
}

/// `SEQUENCE { INTEGER … }` of `values`, in order: the shape of DSA's
/// `Dss-Parms` (`p, q, g`), X9.42's `DomainParameters` (`p, g, q`) and
/// `Dss-Sig-Value` (`r, s`).
/// For public values (the buffers are not zeroized).
pub fn integer_sequence_der(values: &[&BoxedUint]) -> Vec<u8> {
    let bytes: Vec<Vec<u8>> = values.iter().map(|v| v.to_be_bytes()).collect();
    let encoded = bytes
        .iter()
        .map(|b| UintRef::new(b))
        .collect::<der::Result<Vec<UintRef<'_>>>>()
        .and_then(|integers| integers.to_der());
    match encoded {
        Ok(der) => der,
        Err(_) => unreachable!("a few integers of a few kilobytes encode"),
    }
}

/// The `N` non-negative INTEGERs of a strict DER `SEQUENCE` of exactly
/// that many, in order: the parameters [`integer_sequence_der`] writes.
pub fn integer_sequence_from_der<const N: usize>(der: &[u8]) -> Result<[BoxedUint; N], Error> {
    integers(Vec::<UintRef<'_>>::from_der(der)?)
}

/// [`integer_sequence_from_der`] for the parameters of an algorithm
/// identifier.
pub fn integer_sequence_from_any<const N: usize>(
    any: &AnyRef<'_>,
) -> Result<[BoxedUint; N], Error> {
    integers(any.decode_as::<Vec<UintRef<'_>>>()?)
}

fn integers<const N: usize>(list: Vec<UintRef<'_>>) -> Result<[BoxedUint; N], Error> {
    let values: Vec<BoxedUint> = list.iter().map(uint).collect();
    values.try_into().map_err(|_| Error::Encoding)
}

/// A decoded non-negative INTEGER.
pub fn uint(u: &UintRef<'_>) -> BoxedUint {
    BoxedUint::from_be_slice_auto(u.as_bytes())
}

/// `der` as PEM with `label`, LF line endings.
pub fn pem(label: &str, der: &[u8]) -> String {
    match der::pem::encode_string(label, LineEnding::LF, der) {
        Ok(text) => text,
        Err(_) => unreachable!("PEM encoding of a DER value"),
    }
}

/// The one PEM block of `text` (surrounding white space allowed): its label
/// and DER, which is zeroized when dropped.
pub fn pem_decode(text: &str) -> Result<(&str, Zeroizing<Vec<u8>>), Error> {
    let (label, der) = der::pem::decode_vec(text.trim().as_bytes()).map_err(|_| Error::Encoding)?;
    Ok((label, Zeroizing::new(der)))
}

/// The DER of the one PEM block of `text`, which must have `label`
/// ([`Error::UnsupportedAlgorithm`] otherwise).
pub fn pem_decode_label(text: &str, label: &str) -> Result<Zeroizing<Vec<u8>>, Error> {
    match pem_decode(text)? {
        (found, der) if found == label => Ok(der),
        _ => Err(Error::UnsupportedAlgorithm),
    }
}

/// Runs `f` on the algorithm identifier `oid` with `params_der` as its
/// parameters.
fn with_algorithm<T>(
    oid: ObjectIdentifier,
    params_der: &[u8],
    f: impl FnOnce(AlgorithmIdentifierRef<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    f(AlgorithmIdentifierRef {
        oid,
        parameters: Some(AnyRef::from_der(params_der)?),
    })
}

/// SubjectPublicKeyInfo DER for the public value `y` of the group whose
/// parameters' DER is `params_der`, under the algorithm `oid`.
pub fn public_key_der(
    oid: ObjectIdentifier,
    params_der: &[u8],
    y: &BoxedUint,
) -> Result<Vec<u8>, Error> {
    let y = integer_der(y);
    with_algorithm(oid, params_der, |algorithm| {
        let spki = SubjectPublicKeyInfoRef {
            algorithm,
            subject_public_key: BitStringRef::from_bytes(&y)?,
        };
        Ok(spki.to_der()?)
    })
}

/// PKCS#8 DER (zeroized when dropped) for the private value `x`, as
/// [`public_key_der`] wraps `y`.
pub fn private_key_der(
    oid: ObjectIdentifier,
    params_der: &[u8],
    x: &BoxedUint,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    let x = integer_der(x);
    with_algorithm(oid, params_der, |algorithm| {
        let info = PrivateKeyInfoRef::new(algorithm, OctetStringRef::new(&x)?);
        Ok(Zeroizing::new(info.to_der()?))
    })
}

/// The public value `y` of a SubjectPublicKeyInfo (its algorithm is the
/// caller's to check).
pub fn public_value(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<BoxedUint, Error> {
    let bits = spki.subject_public_key.as_bytes().ok_or(Error::Encoding)?;
    Ok(uint(&UintRef::from_der(bits)?))
}

/// The private value `x` of a PKCS#8 PrivateKeyInfo, zeroized when dropped
/// (its algorithm is the caller's to check).
pub fn private_value(info: &PrivateKeyInfoRef<'_>) -> Result<Zeroizing<BoxedUint>, Error> {
    let x = UintRef::from_der(info.private_key.as_bytes())?;
    Ok(Zeroizing::new(uint(&x)))
}

/// Why a discrete-log key did not decode, in the terms of the `pkcs8` and
/// `spki` crates' traits (each scheme sorts its own errors into these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRejection {
    /// Not this scheme's algorithm identifier.
    UnknownAlgorithm,
    /// The group parameters are malformed or invalid.
    Parameters,
    /// The key itself is malformed or invalid.
    Key,
}

impl KeyRejection {
    /// As the `spki` crate reports it, for a key under the algorithm `oid`.
    pub fn spki_error(self, oid: ObjectIdentifier) -> spki::Error {
        match self {
            KeyRejection::UnknownAlgorithm => spki::Error::OidUnknown { oid },
            _ => spki::Error::KeyMalformed,
        }
    }

    /// As the `pkcs8` crate reports it, for a key under the algorithm `oid`.
    pub fn pkcs8_error(self, oid: ObjectIdentifier) -> pkcs8::Error {
        match self {
            KeyRejection::UnknownAlgorithm => pkcs8::Error::PublicKey(self.spki_error(oid)),
            KeyRejection::Parameters => pkcs8::Error::ParametersMalformed,
            KeyRejection::Key => pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid),
        }
    }
}

/// `spki::EncodePublicKey`'s document from a scheme's SubjectPublicKeyInfo
/// DER.
pub fn public_document<E>(der: Result<Vec<u8>, E>) -> spki::Result<spki::Document> {
    let der = der.map_err(|_| spki::Error::KeyMalformed)?;
    Ok(spki::Document::try_from(der)?)
}

/// `pkcs8::EncodePrivateKey`'s document from a scheme's PKCS#8 DER.
pub fn secret_document<E>(
    der: Result<Zeroizing<Vec<u8>>, E>,
) -> pkcs8::Result<pkcs8::SecretDocument> {
    let der = der.map_err(|_| pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid))?;
    Ok(pkcs8::SecretDocument::try_from(der.as_slice())?)
}

/// The key codecs of a discrete-log scheme, written once for DSA and
/// ElGamal: on the public key type `to_public_key_der`/`_pem` and
/// `from_public_key_der`/`_pem`, on the private key type
/// `to_pkcs8_der`/`_pem` and `from_pkcs8_der`/`_pem` (inherent methods
/// returning the scheme's error), and the `pkcs8` and `spki` crates' key
/// traits on both.
///
/// The scheme provides: the algorithm identifier for writing; a group type
/// with `to_der()` (its parameters) and `from_algorithm(&AlgorithmIdentifierRef)`
/// (which checks the identifier, reading any it accepts); `new(group, y)`
/// and `y()` on the public key, `from_components(group, &x)` and `x()` on the
/// private key, both with the group accessor named; an error type with
/// `From<numcrypt_common::Error>` and `From<der::Error>`; and a function
/// sorting its errors into [`KeyRejection`]s. The invoking crate depends on
/// `der`, `pkcs8`, `spki` and `zeroize` and declares `extern crate alloc`:
/// the expansion names them.
#[macro_export]
macro_rules! dl_key_codecs {
    (
        algorithm: $oid:expr,
        group: $group:ty,
        group_accessor: $accessor:ident,
        public: $public:ty,
        private: $private:ty,
        error: $error:ty,
        rejection: $rejection:path $(,)?
    ) => {
        impl $public {
            /// SubjectPublicKeyInfo DER.
            pub fn to_public_key_der(&self) -> Result<::alloc::vec::Vec<u8>, $error> {
                let params = self.$accessor().to_der();
                Ok($crate::dl_key::public_key_der($oid, &params, self.y())?)
            }

            /// SubjectPublicKeyInfo PEM (`PUBLIC KEY`).
            pub fn to_public_key_pem(&self) -> Result<::alloc::string::String, $error> {
                let der = self.to_public_key_der()?;
                Ok($crate::dl_key::pem($crate::dl_key::LABEL_PUBLIC, &der))
            }

            /// From SubjectPublicKeyInfo DER (the cheap parameter checks
            /// and the public key checks run).
            pub fn from_public_key_der(der: &[u8]) -> Result<Self, $error> {
                use ::der::Decode;
                Self::from_public_key_info(&::spki::SubjectPublicKeyInfoRef::from_der(der)?)
            }

            /// From SubjectPublicKeyInfo PEM (`PUBLIC KEY`).
            pub fn from_public_key_pem(text: &str) -> Result<Self, $error> {
                let der = $crate::dl_key::pem_decode_label(text, $crate::dl_key::LABEL_PUBLIC)?;
                Self::from_public_key_der(&der)
            }

            /// From a decoded SubjectPublicKeyInfo.
            pub(crate) fn from_public_key_info(
                spki: &::spki::SubjectPublicKeyInfoRef<'_>,
            ) -> Result<Self, $error> {
                let group = <$group>::from_algorithm(&spki.algorithm)?;
                Self::new(group, $crate::dl_key::public_value(spki)?)
            }
        }

        impl $private {
            /// PKCS#8 DER, zeroized when dropped.
            pub fn to_pkcs8_der(
                &self,
            ) -> Result<::zeroize::Zeroizing<::alloc::vec::Vec<u8>>, $error> {
                let params = self.$accessor().to_der();
                Ok($crate::dl_key::private_key_der($oid, &params, self.x())?)
            }

            /// PKCS#8 PEM (`PRIVATE KEY`), zeroized when dropped.
            pub fn to_pkcs8_pem(
                &self,
            ) -> Result<::zeroize::Zeroizing<::alloc::string::String>, $error> {
                let der = self.to_pkcs8_der()?;
                let pem = $crate::dl_key::pem($crate::dl_key::LABEL_PRIVATE, &der);
                Ok(::zeroize::Zeroizing::new(pem))
            }

            /// From PKCS#8 DER.
            pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, $error> {
                use ::der::Decode;
                Self::from_private_key_info(&::pkcs8::PrivateKeyInfoRef::from_der(der)?)
            }

            /// From PKCS#8 PEM (`PRIVATE KEY`).
            pub fn from_pkcs8_pem(text: &str) -> Result<Self, $error> {
                let der = $crate::dl_key::pem_decode_label(text, $crate::dl_key::LABEL_PRIVATE)?;
                Self::from_pkcs8_der(&der)
            }

            /// From a decoded PKCS#8 PrivateKeyInfo.
            pub(crate) fn from_private_key_info(
                info: &::pkcs8::PrivateKeyInfoRef<'_>,
            ) -> Result<Self, $error> {
                let group = <$group>::from_algorithm(&info.algorithm)?;
                Self::from_components(group, &*$crate::dl_key::private_value(info)?)
            }
        }

        impl TryFrom<::pkcs8::PrivateKeyInfoRef<'_>> for $private {
            type Error = ::pkcs8::Error;

            fn try_from(info: ::pkcs8::PrivateKeyInfoRef<'_>) -> ::pkcs8::Result<Self> {
                <$private>::from_private_key_info(&info)
                    .map_err(|e| $rejection(e).pkcs8_error(info.algorithm.oid))
            }
        }

        impl ::pkcs8::EncodePrivateKey for $private {
            fn to_pkcs8_der(&self) -> ::pkcs8::Result<::pkcs8::SecretDocument> {
                $crate::dl_key::secret_document(<$private>::to_pkcs8_der(self))
            }
        }

        impl TryFrom<::spki::SubjectPublicKeyInfoRef<'_>> for $public {
            type Error = ::spki::Error;

            fn try_from(spki: ::spki::SubjectPublicKeyInfoRef<'_>) -> ::spki::Result<Self> {
                <$public>::from_public_key_info(&spki)
                    .map_err(|e| $rejection(e).spki_error(spki.algorithm.oid))
            }
        }

        impl ::spki::EncodePublicKey for $public {
            fn to_public_key_der(&self) -> ::spki::Result<::spki::Document> {
                $crate::dl_key::public_document(<$public>::to_public_key_der(self))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `y = 0x0102` under `id-dsa` with parameters `SEQUENCE { INTEGER 5 }`:
    /// the SPKI assembled by hand from X.690's rules, and back.
    #[test]
    fn public_key_round_trip_matches_hand_encoding() {
        let oid = ObjectIdentifier::new_unwrap("1.2.840.10040.4.1");
        let params = [0x30, 0x03, 0x02, 0x01, 0x05];
        let y = BoxedUint::from_be_slice_auto(&[0x01, 0x02]);
        let der = public_key_der(oid, &params, &y).unwrap();
        let expected = "3017\
            300e 0607 2a8648ce380401 3003 020105\
            0305 00 02020102";
        assert_eq!(hex::encode(&der), expected.replace(' ', ""));
        let spki = SubjectPublicKeyInfoRef::from_der(&der).unwrap();
        assert_eq!(spki.algorithm.oid, oid);
        assert_eq!(public_value(&spki).unwrap(), y);

        let x = BoxedUint::from_be_slice_auto(&[0x80]);
        let der = private_key_der(oid, &params, &x).unwrap();
        let info = PrivateKeyInfoRef::from_der(&der).unwrap();
        assert_eq!(*private_value(&info).unwrap(), x);

        let text = pem(LABEL_PUBLIC, &public_key_der(oid, &params, &y).unwrap());
        assert!(pem_decode_label(&text, LABEL_PUBLIC).is_ok());
        assert_eq!(
            pem_decode_label(&text, LABEL_PRIVATE),
            Err(Error::UnsupportedAlgorithm)
        );
        assert_eq!(pem_decode("not pem").unwrap_err(), Error::Encoding);
    }

    #[test]
    fn integer_sequence_matches_hand_encoding() {
        let five = BoxedUint::from_be_slice_auto(&[5]);
        let big = BoxedUint::from_be_slice_auto(&[0x80, 0]);
        let der = integer_sequence_der(&[&five, &big]);
        // 0x8000 needs a leading zero byte to stay positive.
        assert_eq!(hex::encode(&der), "30080201050203008000");
        let [a, b] = integer_sequence_from_der::<2>(&der).unwrap();
        assert_eq!((a, b), (five, big));
        assert_eq!(
            integer_sequence_from_der::<3>(&der).unwrap_err(),
            Error::Encoding
        );
        let mut trailing = der.clone();
        trailing.push(0);
        assert!(integer_sequence_from_der::<2>(&trailing).is_err());
    }
}
