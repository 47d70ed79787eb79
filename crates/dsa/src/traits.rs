//! The RustCrypto traits, for code written against them: `signature`'s
//! signers and verifiers, and the `pkcs8` and `spki` key codecs.
//!
//! [`Signer`](signature::Signer) and [`Verifier`](signature::Verifier)
//! hash with the SHA-2 FIPS 186-4 pairs with the key's `N` (SHA-224 for
//! `N = 224`, SHA-256 for `N = 256`; OpenSSL's default too); the digest
//! traits take any hash the RFC 6979 HMAC can run on. Signatures travel
//! as DER (`Dss-Sig-Value`), as OpenSSL writes them.

use rand_core::TryCryptoRng;

use numcrypt_common::dl_key::KeyRejection;
use numcrypt_common::rfc6979::hedged;

use crate::{Error, HashAlg, Signature, SigningKey, VerifyingKey};

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

impl signature::Verifier<Signature> for VerifyingKey {
    fn verify(&self, msg: &[u8], signature: &Signature) -> Result<(), signature::Error> {
        let hash = default_hash(self)?;
        self.verify_prehash(&hash.digest(msg), signature)
            .map_err(signature_error)
    }
}

numcrypt_common::dl_digest_signature_traits!(private: SigningKey, public: VerifyingKey);

/// How the `pkcs8` and `spki` traits report a DSA error reading a key.
pub(crate) fn rejection(e: Error) -> KeyRejection {
    match e {
        Error::UnsupportedAlgorithm => KeyRejection::UnknownAlgorithm,
        Error::UnsupportedSizes { .. }
        | Error::QDoesNotDivideP
        | Error::InvalidGenerator
        | Error::PNotPrime
        | Error::QNotPrime => KeyRejection::Parameters,
        _ => KeyRejection::Key,
    }
}
