//! The RustCrypto traits, for code written against them: `signature`'s
//! signers and verifiers, and the `pkcs8` and `spki` key codecs.
//!
//! [`Signer`](signature::Signer) and [`Verifier`](signature::Verifier)
//! hash with SHA-256 (the command line's default too); the digest traits
//! take any hash the RFC 6979 HMAC can run on. Signatures travel as DER.

use digest::Digest;
use rand_core::TryCryptoRng;
use sha2::Sha256;

use numcrypt_common::dl_key::KeyRejection;
use numcrypt_common::rfc6979::hedged;

use crate::{Error, PublicKey, SecretKey, Signature};

fn signature_error(e: Error) -> signature::Error {
    signature::Error::from_source(e)
}

impl signature::Keypair for SecretKey {
    type VerifyingKey = PublicKey;

    fn verifying_key(&self) -> PublicKey {
        self.public_key().clone()
    }
}

impl signature::Signer<Signature> for SecretKey {
    /// SHA-256, RFC 6979: deterministic, no generator needed.
    fn try_sign(&self, msg: &[u8]) -> Result<Signature, signature::Error> {
        self.sign::<Sha256>(msg).map_err(signature_error)
    }
}

impl signature::RandomizedSigner<Signature> for SecretKey {
    /// SHA-256, RFC 6979 with fresh randomness as additional data.
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        let digest = Sha256::digest(msg);
        hedged(rng, |extra| self.sign_core::<Sha256>(&digest, extra))
    }
}

impl signature::Verifier<Signature> for PublicKey {
    /// SHA-256.
    fn verify(&self, msg: &[u8], signature: &Signature) -> Result<(), signature::Error> {
        PublicKey::verify::<Sha256>(self, msg, signature).map_err(signature_error)
    }
}

numcrypt_common::dl_digest_signature_traits!(private: SecretKey, public: PublicKey);

/// How the `pkcs8` and `spki` traits report an ElGamal error reading a
/// key.
pub(crate) fn rejection(e: Error) -> KeyRejection {
    match e {
        Error::UnsupportedAlgorithm => KeyRejection::UnknownAlgorithm,
        Error::InvalidGroup
        | Error::UnknownGroup
        | Error::UnsupportedGroupSize { .. }
        | Error::PNotPrime
        | Error::QNotPrime => KeyRejection::Parameters,
        _ => KeyRejection::Key,
    }
}
