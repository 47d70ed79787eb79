use core::fmt;

/// Everything that can go wrong in `numcrypt-field`: bad input, never a bug.
///
/// A function that returns it changes nothing and produces no element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// An encoding had the wrong number of bytes for the field.
    InvalidLength {
        /// The field's encoding length.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// An encoding or integer held a value `≥ p`: every element has exactly
    /// one encoding, so the non-canonical ones are refused.
    NonCanonical,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidLength { expected, actual } => {
                write!(f, "field encoding must be {expected} bytes, got {actual}")
            }
            Error::NonCanonical => f.write_str("value is not below the field modulus"),
        }
    }
}

impl core::error::Error for Error {}
