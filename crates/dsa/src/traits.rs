//! The RustCrypto traits, for code written against them: `signature`'s
//! signers and verifiers, and the `pkcs8` and `spki` key codecs.
//!
//! [`Signer`](signature::Signer) and [`Verifier`](signature::Verifier)
//! hash with the SHA-2 FIPS 186-4 pairs with the key's `N` (SHA-224 for
//! `N = 224`, SHA-256 for `N = 256`; OpenSSL's default too); the digest
//! traits take any hash the RFC 6979 HMAC can run on. Signatures travel
//! as DER (`Dss-Sig-Value`), as OpenSSL writes them.

use alloc::vec::Vec;

use digest::{Digest, Update};
use hmac::EagerHash;
use pkcs8::{PrivateKeyInfoRef, SecretDocument};
use rand_core::TryCryptoRng;
use spki::{Document, SubjectPublicKeyInfoRef};

use crate::{Error, HashAlg, Signature, SigningKey, VerifyingKey};
use numcrypt_common::rfc6979::hedged;

fn signature_error(e: Error) -> signature::Error {
    signature::Error::from_source(e)
}

/// The hash the plain traits use for `key`'s parameters.
fn default_hash(key: &VerifyingKey) -> Result<HashAlg, signature::Error> {
    HashAlg::shortest_sha2_for_bits(key.params().sizes().n())
        .ok_or_else(|| signature_error(Error::HashTooShort))
}

impl signature::Keypair for SigningKey {
    type VerifyingKey = VerifyingKey;

    fn verifying_key(&self) -> VerifyingKey {
        SigningKey::verifying_key(self).clone()
    }
}

impl signature::Signer<Signature> for SigningKey {
    /// RFC 6979: deterministic, no generator needed.
    fn try_sign(&self, msg: &[u8]) -> Result<Signature, signature::Error> {
        let hash = default_hash(SigningKey::verifying_key(self))?;
        self.sign_prehash_named(hash, &hash.digest(msg))
            .map_err(signature_error)
    }
}

impl signature::RandomizedSigner<Signature> for SigningKey {
    /// RFC 6979 with fresh randomness as additional data (section 3.6).
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        let hash = default_hash(SigningKey::verifying_key(self))?;
        let prehash = hash.digest(msg);
        hedged(rng, |extra| self.sign_core_named(hash, &prehash, extra))
    }
}

impl<D: EagerHash + Update> signature::DigestSigner<D, Signature> for SigningKey {
    fn try_sign_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
        &self,
        f: F,
    ) -> Result<Signature, signature::Error> {
        let mut digest = D::new();
        f(&mut digest)?;
        self.sign_prehash::<D>(&digest.finalize())
            .map_err(signature_error)
    }
}

impl<D: EagerHash + Update> signature::RandomizedDigestSigner<D, Signature> for SigningKey {
    fn try_sign_digest_with_rng<
        R: TryCryptoRng + ?Sized,
        F: Fn(&mut D) -> Result<(), signature::Error>,
    >(
        &self,
        rng: &mut R,
        f: F,
    ) -> Result<Signature, signature::Error> {
        let mut digest = D::new();
        f(&mut digest)?;
        let prehash = digest.finalize();
        hedged(rng, |extra| self.sign_core::<D>(&prehash, extra))
    }
}

impl signature::Verifier<Signature> for VerifyingKey {
    fn verify(&self, msg: &[u8], signature: &Signature) -> Result<(), signature::Error> {
        let hash = default_hash(self)?;
        self.verify_prehash(&hash.digest(msg), signature)
            .map_err(signature_error)
    }
}

impl<D: Digest + Update> signature::DigestVerifier<D, Signature> for VerifyingKey {
    fn verify_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
        &self,
        f: F,
        signature: &Signature,
    ) -> Result<(), signature::Error> {
        let mut digest = D::new();
        f(&mut digest)?;
        self.verify_prehash(&digest.finalize(), signature)
            .map_err(signature_error)
    }
}

/// A DSA error reading a private key, in the `pkcs8` crate's terms.
fn pkcs8_error(e: Error) -> pkcs8::Error {
    match e {
        Error::UnsupportedSizes { .. }
        | Error::QDoesNotDivideP
        | Error::InvalidGenerator
        | Error::PNotPrime
        | Error::QNotPrime => pkcs8::Error::ParametersMalformed,
        _ => pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid),
    }
}

impl TryFrom<PrivateKeyInfoRef<'_>> for SigningKey {
    type Error = pkcs8::Error;

    fn try_from(info: PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
        SigningKey::from_private_key_info(&info).map_err(|e| match e {
            Error::UnsupportedAlgorithm => pkcs8::Error::PublicKey(spki::Error::OidUnknown {
                oid: info.algorithm.oid,
            }),
            e => pkcs8_error(e),
        })
    }
}

impl pkcs8::EncodePrivateKey for SigningKey {
    fn to_pkcs8_der(&self) -> pkcs8::Result<SecretDocument> {
        let der = SigningKey::to_pkcs8_der(self).map_err(pkcs8_error)?;
        Ok(SecretDocument::try_from(der.as_slice())?)
    }
}

impl TryFrom<SubjectPublicKeyInfoRef<'_>> for VerifyingKey {
    type Error = spki::Error;

    fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
        VerifyingKey::from_public_key_info(&spki).map_err(|e| match e {
            Error::UnsupportedAlgorithm => spki::Error::OidUnknown {
                oid: spki.algorithm.oid,
            },
            _ => spki::Error::KeyMalformed,
        })
    }
}

impl spki::EncodePublicKey for VerifyingKey {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        let der: Vec<u8> =
            VerifyingKey::to_public_key_der(self).map_err(|_| spki::Error::KeyMalformed)?;
        Ok(Document::try_from(der)?)
    }
}
