//! Signatures `(r, s)`, DSA's and ElGamal's, and their two encodings: DER
//! (RFC 3279's `Dss-Sig-Value`, what OpenSSL and X.509 use) and P1363
//! (`r ‖ s`, each of the scheme's scalar length, what WebCrypto and JOSE
//! use).

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use numcrypt_limbs::{BoxedUint, Unsigned};

use crate::Error;
use crate::dl_key::{integer_sequence_der, integer_sequence_from_der};

/// A signature: the pair `(r, s)`, for DSA (`numcrypt_dsa::Signature`) and
/// ElGamal (`numcrypt_elgamal::Signature`), which share its shape and DER.
///
/// Decoding checks the encoding only; verification checks the scheme's
/// ranges (DSA: `r, s ∈ [1, q − 1]`).
#[derive(Clone, PartialEq, Eq)]
pub struct Signature {
    r: BoxedUint,
    s: BoxedUint,
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature {{ r: {:#x}, s: {:#x} }}", self.r, self.s)
    }
}

impl Signature {
    /// A signature from its two integers (checked only when verified).
    pub fn from_components(r: BoxedUint, s: BoxedUint) -> Self {
        Self { r, s }
    }

    /// `r`.
    pub fn r(&self) -> &BoxedUint {
        &self.r
    }

    /// `s`.
    pub fn s(&self) -> &BoxedUint {
        &self.s
    }

    /// Decodes strict DER `Dss-Sig-Value`: BER variants (long-form lengths
    /// that are not minimal, integers with superfluous leading bytes,
    /// negative integers) and trailing bytes are
    /// [`Error::MalformedSignature`].
    pub fn from_der(bytes: &[u8]) -> Result<Self, Error> {
        let [r, s] = integer_sequence_from_der(bytes).map_err(|_| Error::MalformedSignature)?;
        Ok(Self { r, s })
    }

    /// The DER `Dss-Sig-Value` encoding (`SEQUENCE { r INTEGER, s INTEGER }`,
    /// RFC 3279).
    pub fn to_der(&self) -> Vec<u8> {
        integer_sequence_der(&[&self.r, &self.s])
    }

    /// Decodes `r ‖ s`, each exactly `len` bytes (DSA: `params.scalar_len()`).
    pub fn from_p1363(bytes: &[u8], len: usize) -> Result<Self, Error> {
        if bytes.len() != 2 * len {
            return Err(Error::MalformedSignature);
        }
        let (r, s) = bytes.split_at(len);
        Ok(Self {
            r: BoxedUint::from_be_slice_auto(r),
            s: BoxedUint::from_be_slice_auto(s),
        })
    }

    /// The `r ‖ s` encoding, each `len` bytes (DSA: `params.scalar_len()`);
    /// [`Error::SignatureOutOfRange`] if `r` or `s` does not fit.
    pub fn to_p1363(&self, len: usize) -> Result<Vec<u8>, Error> {
        let bits = 8 * len as u32;
        if self.r.bits_vartime() > bits || self.s.bits_vartime() > bits {
            return Err(Error::SignatureOutOfRange);
        }
        let mut out = self
            .r
            .to_be_bytes_len(len)
            .unwrap_or_else(|_| unreachable!("the value fits"));
        out.extend_from_slice(
            &self
                .s
                .to_be_bytes_len(len)
                .unwrap_or_else(|_| unreachable!("the value fits")),
        );
        Ok(out)
    }
}

impl signature::SignatureEncoding for Signature {
    type Repr = Box<[u8]>;
}

impl TryFrom<&[u8]> for Signature {
    type Error = signature::Error;

    /// Strict DER `Dss-Sig-Value`.
    fn try_from(der: &[u8]) -> Result<Self, signature::Error> {
        Signature::from_der(der).map_err(signature::Error::from_source)
    }
}

impl From<Signature> for Box<[u8]> {
    fn from(signature: Signature) -> Self {
        signature.to_der().into_boxed_slice()
    }
}

/// The digest `f` writes into a fresh `D`: what the `signature` crate's
/// digest signers and verifiers hand over.
pub fn digest_of<D: digest::Digest + digest::Update>(
    f: impl Fn(&mut D) -> Result<(), signature::Error>,
) -> Result<Vec<u8>, signature::Error> {
    let mut digest = D::new();
    f(&mut digest)?;
    Ok(digest.finalize().to_vec())
}

/// The `signature` crate's digest traits (`DigestSigner`,
/// `RandomizedDigestSigner`, `DigestVerifier`) for a scheme whose private
/// key has `sign_core::<D>(prehash, additional_data)` (RFC 6979, section
/// 3.6's additional data empty when deterministic) and whose public key has
/// `verify_prehash(prehash, &Signature)`, both returning the scheme's error.
/// The invoking crate depends on `signature`, `digest`, `hmac` and
/// `rand_core`, which the expansion names.
#[macro_export]
macro_rules! dl_digest_signature_traits {
    (private: $private:ty, public: $public:ty $(,)?) => {
        impl<D> ::signature::DigestSigner<D, $crate::Signature> for $private
        where
            D: ::hmac::EagerHash + ::digest::Update,
        {
            fn try_sign_digest<F: Fn(&mut D) -> Result<(), ::signature::Error>>(
                &self,
                f: F,
            ) -> Result<$crate::Signature, ::signature::Error> {
                let prehash = $crate::digest_of(f)?;
                self.sign_core::<D>(&prehash, &[])
                    .map_err(::signature::Error::from_source)
            }
        }

        impl<D> ::signature::RandomizedDigestSigner<D, $crate::Signature> for $private
        where
            D: ::hmac::EagerHash + ::digest::Update,
        {
            fn try_sign_digest_with_rng<
                R: ::rand_core::TryCryptoRng + ?Sized,
                F: Fn(&mut D) -> Result<(), ::signature::Error>,
            >(
                &self,
                rng: &mut R,
                f: F,
            ) -> Result<$crate::Signature, ::signature::Error> {
                let prehash = $crate::digest_of(f)?;
                $crate::rfc6979::hedged(rng, |extra| self.sign_core::<D>(&prehash, extra))
            }
        }

        impl<D> ::signature::DigestVerifier<D, $crate::Signature> for $public
        where
            D: ::digest::Digest + ::digest::Update,
        {
            fn verify_digest<F: Fn(&mut D) -> Result<(), ::signature::Error>>(
                &self,
                f: F,
                signature: &$crate::Signature,
            ) -> Result<(), ::signature::Error> {
                self.verify_prehash(&$crate::digest_of(f)?, signature)
                    .map_err(::signature::Error::from_source)
            }
        }
    };
}
