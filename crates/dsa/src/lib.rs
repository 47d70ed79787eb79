//! DSA (FIPS 186-4) on `numcrypt-limbs` and `numcrypt-prime`.
//!
//! FIPS 186-5 withdrew DSA for generating signatures, but signatures made
//! with it must still be verified for years; this crate does both, at the
//! sizes FIPS 186-4 allows: `(L, N)` = (2048, 224), (2048, 256) and
//! (3072, 256), and (1024, 160) for verification only.
//!
//! ```
//! use numcrypt_dsa::{DomainParameters, ParameterSizes, SigningKey, VerifyingKey};
//! use sha2::Sha256;
//! # use rand_core::SeedableRng;
//! # let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7); // any CryptoRng
//!
//! // Parameters by FIPS 186-4 A.1.1.2 with a verifiable generator (A.2.3).
//! let params = DomainParameters::generate(ParameterSizes::L2048N256, &mut rng)?;
//! let key = SigningKey::generate(&params, &mut rng)?;
//!
//! // RFC 6979: deterministic k, no generator needed to sign.
//! let signature = key.sign::<Sha256>(b"message")?;
//! let der = signature.to_der(); // RFC 3279 Dss-Sig-Value, as OpenSSL writes it
//!
//! let public = VerifyingKey::from_public_key_pem(&key.verifying_key().to_public_key_pem()?)?;
//! public.verify_der::<Sha256>(b"message", &der)?;
//! assert!(public.verify_der::<Sha256>(b"another message", &der).is_err());
//! # Ok::<(), numcrypt_dsa::Error>(())
//! ```
//!
//! # What is checked where
//! - [`DomainParameters`]: every constructor runs the cheap checks (sizes,
//!   `q | p − 1`, `g` of order `q`); [`DomainParameters::validate`] adds
//!   primality and, when the seed is known, FIPS 186-4 A.1.1.3 and A.2.4.
//! - [`VerifyingKey::new`]: `2 ≤ y ≤ p − 2` and `y^q ≡ 1`.
//! - Verification: `r, s ∈ [1, q − 1]` ([`Error::SignatureOutOfRange`]),
//!   strict DER ([`Error::MalformedSignature`]).
//!
//! # Formats
//! As OpenSSL writes and reads them, through `der`, `pkcs8` and `spki`:
//! - parameters: `Dss-Parms ::= SEQUENCE { p, q, g INTEGER }` (RFC 3279),
//!   PEM label `DSA PARAMETERS` ([`DomainParameters::to_pem`],
//!   [`DomainParameters::to_der`]);
//! - public keys: SubjectPublicKeyInfo with [`ID_DSA`], `Dss-Parms` as the
//!   algorithm parameters and `y` as an INTEGER in the bit string, PEM label
//!   `PUBLIC KEY`;
//! - private keys: PKCS#8 with the same algorithm identifier and `x` as an
//!   INTEGER, PEM label `PRIVATE KEY`; OpenSSL's older `DSA PRIVATE KEY`
//!   (`SEQUENCE { 0, p, q, g, y, x }`) is read too;
//! - signatures: DER `Dss-Sig-Value ::= SEQUENCE { r, s INTEGER }` or
//!   P1363 `r ‖ s`.
//!
//! The seed, counter and index that make generated parameters verifiable
//! have no place in `Dss-Parms`, so [`DomainParameters::to_pem`] writes
//! them in a second PEM block, `DSA DOMAIN PARAMETER SEED`, after the
//! `DSA PARAMETERS` block (OpenSSL reads the first and ignores it):
//!
//! ```text
//! DomainParameterSeed ::= SEQUENCE {
//!     hash     OBJECT IDENTIFIER,  -- id-sha224, id-sha256, id-sha384, id-sha512
//!     seed     OCTET STRING,       -- domain_parameter_seed (A.1.1.2)
//!     counter  INTEGER,            -- the counter at which p was found
//!     index    INTEGER OPTIONAL }  -- A.2.3's index, when g is verifiable
//! ```
//!
//! # The RustCrypto traits
//! [`SigningKey`] implements `signature`'s `Signer`, `RandomizedSigner`
//! (RFC 6979 with fresh randomness mixed in), `DigestSigner` and
//! `RandomizedDigestSigner` for any hash, `Keypair`, and `pkcs8`'s
//! `DecodePrivateKey`/`EncodePrivateKey`; [`VerifyingKey`] implements
//! `Verifier`, `DigestVerifier` and `spki`'s `DecodePublicKey`/
//! `EncodePublicKey`; [`Signature`] is a `SignatureEncoding` (DER). The
//! plain `Signer` and `Verifier` hash with the SHA-2 FIPS 186-4 pairs with
//! `N` (SHA-224 or SHA-256, OpenSSL's default too). Where an inherent
//! method has the trait method's name (`sign::<D>`, `verify::<D>`, which
//! take the hash as a type), call the trait's by its full name
//! (`Verifier::verify(&key, msg, &sig)`) or use `try_sign`.
//!
//! # Constant time
//! Everything that touches `x` or `k` is constant time: key generation
//! (`g^x` by the fixed-window exponentiation over `N` bits), RFC 6979's
//! HMAC-DRBG, `g^k`, `k⁻¹ mod q` (the constant-time inverse), and the
//! arithmetic modulo `q` (Montgomery multiplication). Verification and
//! parameter generation handle public values only and use variable-time
//! code where it is faster.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod arith;
mod encoding;
mod error;
mod keys;
mod params;
mod traits;

pub use encoding::ID_DSA;
pub use error::Error;
pub use keys::{SigningKey, VerifyingKey};
pub use numcrypt_common::{HashAlg, Signature, Subgroup};
pub use params::{
    DomainParameters, GenerationOptions, GeneratorMethod, ParameterSizes, Progress, ProgressFn,
    ValidationParameters,
};

pub use digest;
pub use numcrypt_limbs::BoxedUint;
pub use sha2;
