use core::fmt;

/// What can go wrong in the shared parts: bad input, never a bug. Each
/// signature crate turns it into its own `Error` (a `From` impl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A hash name or object identifier that is not supported here.
    UnsupportedHash,
    /// A signature encoding is malformed: not strict DER, trailing bytes,
    /// or a P1363 signature of the wrong length.
    MalformedSignature,
    /// `r` or `s` does not fit the P1363 scalar length.
    SignatureOutOfRange,
    /// A key encoding is malformed (DER, PEM, or a value that does not fit).
    Encoding,
    /// The key is not of the expected algorithm (object identifier or PEM
    /// label).
    UnsupportedAlgorithm,
    /// The random number generator failed.
    Rng,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::UnsupportedHash => "unsupported hash",
            Error::MalformedSignature => "malformed signature encoding",
            Error::SignatureOutOfRange => "signature value out of range",
            Error::Encoding => "malformed key encoding",
            Error::UnsupportedAlgorithm => "unsupported key algorithm",
            Error::Rng => "the random number generator failed",
        })
    }
}

impl core::error::Error for Error {}

impl From<der::Error> for Error {
    fn from(_: der::Error) -> Self {
        Error::Encoding
    }
}

/// How a crate's `Error` takes in the errors below it, written once: the
/// `core::error::Error` impl, a variant wrapping each lower crate's error,
/// the shared [`Error`]'s variants mapped to the crate's own (a bare name:
/// the crate's variant of that name; the rest to `otherwise`), and what a
/// `der::Error` becomes.
///
/// ```text
/// numcrypt_common::error_conversions! {
///     Error,
///     wraps { numcrypt_limbs::Error => Limbs },
///     common { Rng, MalformedSignature => Error::InvalidSignature },
///     otherwise Error::Encoding,
///     der |_| Error::Encoding,
/// }
/// ```
#[macro_export]
macro_rules! error_conversions {
    (
        $Error:ident,
        wraps { $($Source:path => $Variant:ident),* $(,)? },
        common { $($Common:ident $(=> $Mapped:expr)?),* $(,)? },
        otherwise $otherwise:expr,
        der |$der:pat_param| $from_der:expr $(,)?
    ) => {
        impl core::error::Error for $Error {}

        $(impl From<$Source> for $Error {
            fn from(e: $Source) -> Self {
                $Error::$Variant(e)
            }
        })*

        impl From<$crate::Error> for $Error {
            fn from(e: $crate::Error) -> Self {
                match e {
                    $($crate::Error::$Common => $crate::error_conversions!(
                        @map $Error::$Common $(, $Mapped)?
                    ),)*
                    _ => $otherwise,
                }
            }
        }

        impl From<::der::Error> for $Error {
            fn from($der: ::der::Error) -> Self {
                $from_der
            }
        }
    };
    (@map $same:path) => { $same };
    (@map $same:path, $mapped:expr) => { $mapped };
}
