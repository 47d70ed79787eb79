//! [`Signature`] and what the `signature` crate's trait impls share.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use crate::{Error, HashAlg, OidDigest};

/// An RSA signature (PKCS#1 v1.5 or PSS): the modulus' length in bytes,
/// big-endian.
#[derive(Clone, PartialEq, Eq)]
pub struct Signature(Box<[u8]>);

impl Signature {
    /// The signature's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Signature {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for Signature {
    fn from(bytes: Vec<u8>) -> Self {
        Signature(bytes.into_boxed_slice())
    }
}

impl TryFrom<&[u8]> for Signature {
    type Error = signature::Error;

    /// Any bytes: the length is checked against the key when verifying.
    fn try_from(bytes: &[u8]) -> Result<Self, signature::Error> {
        Ok(Signature(bytes.into()))
    }
}

impl From<Signature> for Box<[u8]> {
    fn from(s: Signature) -> Self {
        s.0
    }
}

impl signature::SignatureEncoding for Signature {
    type Repr = Box<[u8]>;
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Signature(")?;
        for b in self.0.iter() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// A signing result as the `signature` crate wants it: the schemes'
/// [`RandomizedSigner`](signature::RandomizedSigner) and
/// [`Signer`](signature::Signer). A generator's failure is
/// [`Error::Rng`] inside it.
pub(crate) fn wrap(r: Result<Vec<u8>, Error>) -> Result<Signature, signature::Error> {
    r.map(Signature::from)
        .map_err(signature::Error::from_source)
}

/// A verification result as the `signature` crate wants it: the schemes'
/// [`Verifier`](signature::Verifier).
pub(crate) fn verified(r: Result<(), Error>) -> Result<(), signature::Error> {
    r.map_err(|_| signature::Error::new())
}

/// A digest type's hash and the digest of what `f` feeds it: the schemes'
/// `DigestSigner` and `DigestVerifier`.
pub(crate) fn digest_of<D, F>(f: F) -> Result<(HashAlg, Vec<u8>), signature::Error>
where
    D: OidDigest,
    F: Fn(&mut D) -> Result<(), signature::Error>,
{
    let mut digest = D::new();
    f(&mut digest)?;
    Ok((HashAlg::of::<D>(), digest.finalize().to_vec()))
}

/// What a scheme's signing key (field `key`) shares: `key()`,
/// `ZeroizeOnDrop`, `Keypair` (its verifying key made by the expression
/// given, of the signing key named), and the `signature` traits from its inherent
/// `sign_prehashed(rng, (hash, digest))` and `hash()`: `Signer` (with
/// `getrandom`), `RandomizedSigner`, `DigestSigner` and
/// `RandomizedDigestSigner` for any digest with an object identifier,
/// `RandomizedPrehashSigner`.
macro_rules! signing_key_traits {
    ($key:ty, $verifying:ty, |$k:ident| $make_verifying:expr) => {
        impl signature::Keypair for $key {
            type VerifyingKey = $verifying;

            fn verifying_key(&self) -> $verifying {
                let $k = self;
                $make_verifying
            }
        }

        impl $key {
            /// The private key.
            pub fn key(&self) -> &$crate::RsaPrivateKey {
                &self.key
            }
        }

        // The private key zeroizes itself when dropped.
        impl zeroize::ZeroizeOnDrop for $key {}

        impl signature::RandomizedSigner<$crate::Signature> for $key {
            fn try_sign_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
                &self,
                rng: &mut R,
                msg: &[u8],
            ) -> Result<$crate::Signature, signature::Error> {
                let hash = self.hash();
                $crate::signer::wrap(self.sign_prehashed(rng, (hash, &hash.digest(msg))))
            }
        }

        #[cfg(feature = "getrandom")]
        impl signature::Signer<$crate::Signature> for $key {
            fn try_sign(&self, msg: &[u8]) -> Result<$crate::Signature, signature::Error> {
                let hash = self.hash();
                $crate::signer::wrap(
                    self.sign_prehashed(&mut getrandom::SysRng, (hash, &hash.digest(msg))),
                )
            }
        }

        impl signature::hazmat::RandomizedPrehashSigner<$crate::Signature> for $key {
            fn sign_prehash_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
                &self,
                rng: &mut R,
                prehash: &[u8],
            ) -> Result<$crate::Signature, signature::Error> {
                $crate::signer::wrap(self.sign_prehashed(rng, (self.hash(), prehash)))
            }
        }

        impl<D> signature::RandomizedDigestSigner<D, $crate::Signature> for $key
        where
            D: $crate::OidDigest,
        {
            fn try_sign_digest_with_rng<
                R: rand_core::TryCryptoRng + ?Sized,
                F: Fn(&mut D) -> Result<(), signature::Error>,
            >(
                &self,
                rng: &mut R,
                f: F,
            ) -> Result<$crate::Signature, signature::Error> {
                let (hash, digest) = $crate::signer::digest_of::<D, F>(f)?;
                $crate::signer::wrap(self.sign_prehashed(rng, (hash, &digest)))
            }
        }

        #[cfg(feature = "getrandom")]
        impl<D> signature::DigestSigner<D, $crate::Signature> for $key
        where
            D: $crate::OidDigest,
        {
            fn try_sign_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
                &self,
                f: F,
            ) -> Result<$crate::Signature, signature::Error> {
                let (hash, digest) = $crate::signer::digest_of::<D, F>(f)?;
                $crate::signer::wrap(self.sign_prehashed(&mut getrandom::SysRng, (hash, &digest)))
            }
        }
    };
}

/// The `signature` traits of a scheme's verifying key, from its inherent
/// `verify_prehashed(hash, digest, signature)` and `hash()`: `Verifier`,
/// `DigestVerifier` for any digest with an object identifier, and
/// `PrehashVerifier`.
macro_rules! verifying_key_traits {
    ($key:ty) => {
        impl signature::Verifier<$crate::Signature> for $key {
            fn verify(
                &self,
                msg: &[u8],
                signature: &$crate::Signature,
            ) -> Result<(), signature::Error> {
                let hash = self.hash();
                $crate::signer::verified(self.verify_prehashed(
                    hash,
                    &hash.digest(msg),
                    signature.as_ref(),
                ))
            }
        }

        impl signature::hazmat::PrehashVerifier<$crate::Signature> for $key {
            fn verify_prehash(
                &self,
                prehash: &[u8],
                signature: &$crate::Signature,
            ) -> Result<(), signature::Error> {
                $crate::signer::verified(self.verify_prehashed(
                    self.hash(),
                    prehash,
                    signature.as_ref(),
                ))
            }
        }

        impl<D> signature::DigestVerifier<D, $crate::Signature> for $key
        where
            D: $crate::OidDigest,
        {
            fn verify_digest<F: Fn(&mut D) -> Result<(), signature::Error>>(
                &self,
                f: F,
                signature: &$crate::Signature,
            ) -> Result<(), signature::Error> {
                let (hash, digest) = $crate::signer::digest_of::<D, F>(f)?;
                $crate::signer::verified(self.verify_prehashed(hash, &digest, signature.as_ref()))
            }
        }
    };
}

pub(crate) use {signing_key_traits, verifying_key_traits};
