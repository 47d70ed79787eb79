//! A [rustls](https://docs.rs/rustls/0.23) [`CryptoProvider`] whose RSA
//! is numcrypt's: RSA signing keys (the server's or client's handshake
//! signature) and RSA signature verification (the peer's handshake
//! signature and every RSA signature in its certificate chain). Everything
//! else (key exchange, ciphers, ECDSA and EdDSA keys and signatures,
//! randomness, session tickets) is a base provider's: aws-lc-rs by default
//! (feature `aws-lc-rs`), or ring (feature `ring`).
//!
//! ```no_run
//! use std::sync::Arc;
//! use rustls::pki_types::pem::PemObject;
//! use rustls::pki_types::{CertificateDer, PrivateKeyDer};
//!
//! let certs = CertificateDer::pem_file_iter("cert.pem")?.collect::<Result<Vec<_>, _>>()?;
//! let key = PrivateKeyDer::from_pem_file("key.pem")?;
//! let config = rustls::ServerConfig::builder_with_provider(Arc::new(numcrypt_rustls::provider()))
//!     .with_safe_default_protocol_versions()?
//!     .with_no_client_auth()
//!     .with_single_cert(certs, key)?; // an RSA key: numcrypt signs the handshakes
//! # let _ = config;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Keys
//! The [`KeyProvider`](rustls::crypto::KeyProvider) reads PKCS#1
//! (`RSA PRIVATE KEY`) and PKCS#8 (`PRIVATE KEY`) RSA keys, `rsaEncryption`
//! or RSA-PSS (`id-RSASSA-PSS`, with or without parameters), into
//! [`numcrypt_rsa::RsaPrivateKey`] (every value checked, a trial private
//! operation included); any other key (EC in SEC1 or PKCS#8, Ed25519, …)
//! goes to the base provider. An RSA key numcrypt refuses (below 2048 bits,
//! inconsistent, a public exponent above 2^33) is an error naming the
//! reason, never passed to the base.
//!
//! A key signs with `RSA_PSS_SHA512`, `RSA_PSS_SHA384`, `RSA_PSS_SHA256`,
//! `RSA_PKCS1_SHA512`, `RSA_PKCS1_SHA384` and `RSA_PKCS1_SHA256`, and picks
//! the first of these the peer offers: the order of rustls' own providers.
//! An RSA-PSS key offers PSS only: first RFC 8446's code points for such
//! keys, `rsa_pss_pss_sha512/384/256` (`0x080b`, `0x080a`, `0x0809`, which
//! rustls has no names for; OpenSSL refuses anything else from an RSA-PSS
//! key), then `RSA_PSS_SHA512/384/256`, the only PSS schemes rustls peers
//! offer. A key with PSS parameters offers only what they allow (the same
//! hash for the message and MGF1, and a salt the digest's length, as TLS
//! uses, at least the key's minimum). Every signature is made by numcrypt's
//! blinded, fault-checked private operation, with blinding and salts from
//! the operating system's generator.
//!
//! # Verification
//! The provider's
//! [`signature_verification_algorithms`](CryptoProvider::signature_verification_algorithms)
//! are the base provider's with each RSA algorithm replaced by numcrypt's
//! equivalent (the same algorithm identifiers, the same 2048 to 8192-bit
//! modulus range and public exponent bound as webpki's): the signature
//! schemes offered to peers, their order and their mapping are the base's.
//! Certificate chains also accept RSA-PSS public keys (issuers whose key
//! is `id-RSASSA-PSS`), and TLS 1.2 handshake signatures from them; see
//! [`algorithms`] for what each algorithm accepts.
//!
//! # Features
//! - `aws-lc-rs` (default): aws-lc-rs is the base; `aws_lc_rs::provider()`.
//! - `ring`: ring as the base; `ring::provider()` (each module exists with
//!   its feature).
//!
//! With both, [`provider`] takes aws-lc-rs.
#![forbid(unsafe_code)]

#[cfg(not(any(feature = "aws-lc-rs", feature = "ring")))]
compile_error!("numcrypt-rustls needs a base provider: enable the `aws-lc-rs` or `ring` feature");

pub mod algorithms;
mod base;
mod error;
mod sign;

use rustls::crypto::CryptoProvider;

pub use error::Error;
pub use sign::RsaSigningKey;

/// The provider on the default base: aws-lc-rs if the `aws-lc-rs` feature
/// is on, ring otherwise. A fresh value each call, to use with
/// `ServerConfig::builder_with_provider(Arc::new(provider()))` or to
/// install as the process default (`provider().install_default()`).
#[cfg(any(feature = "aws-lc-rs", feature = "ring"))]
pub fn provider() -> CryptoProvider {
    #[cfg(feature = "aws-lc-rs")]
    return aws_lc_rs::provider();
    #[cfg(not(feature = "aws-lc-rs"))]
    return ring::provider();
}

/// numcrypt's RSA on aws-lc-rs (feature `aws-lc-rs`).
#[cfg(feature = "aws-lc-rs")]
pub mod aws_lc_rs {
    use rustls::crypto::CryptoProvider;

    /// numcrypt's RSA signing and verification, everything else from
    /// `rustls::crypto::aws_lc_rs::default_provider()`.
    pub fn provider() -> CryptoProvider {
        crate::base::AWS_LC_RS.provider()
    }
}

/// numcrypt's RSA on ring (feature `ring`).
#[cfg(feature = "ring")]
pub mod ring {
    use rustls::crypto::CryptoProvider;

    /// numcrypt's RSA signing and verification, everything else from
    /// `rustls::crypto::ring::default_provider()`.
    pub fn provider() -> CryptoProvider {
        crate::base::RING.provider()
    }
}
