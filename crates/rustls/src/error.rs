//! [`Error`]: what this crate adds to rustls' errors.

use core::fmt;
use std::sync::Arc;

/// What goes wrong in numcrypt's part of the provider. rustls' traits
/// return [`rustls::Error`]: this is inside its
/// [`Other`](rustls::Error::Other) variant, to be read back with
/// `downcast_ref::<numcrypt_rustls::Error>()` on the `OtherError`'s source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// numcrypt refused an RSA private key: malformed, inconsistent,
    /// outside 2048 to 16384 bits, or of a kind it does not read (the
    /// wrapped error says which).
    Key(numcrypt_rsa::Error),
    /// An RSA-PSS key whose parameters allow none of the TLS signature
    /// schemes (TLS signs PSS with the same hash for the message and MGF1,
    /// SHA-256, -384 or -512, and a salt as long as the digest).
    NoTlsScheme,
    /// numcrypt's signing failed (`FaultDetected`, or `Rng` when the
    /// operating system's generator, which blinding and PSS salts come
    /// from, fails); nothing was returned.
    Sign(numcrypt_rsa::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Key(e) => write!(f, "numcrypt refused the RSA private key: {e}"),
            Error::NoTlsScheme => f.write_str(
                "the RSA-PSS key's parameters allow no TLS signature scheme \
                 (TLS needs the same hash for message and MGF1, SHA-256/384/512, \
                 and a salt as long as the digest)",
            ),
            Error::Sign(e) => write!(f, "numcrypt RSA signing failed: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Key(e) | Error::Sign(e) => Some(e),
            Error::NoTlsScheme => None,
        }
    }
}

impl From<Error> for rustls::Error {
    fn from(e: Error) -> Self {
        rustls::Error::Other(rustls::OtherError(Arc::new(e)))
    }
}
