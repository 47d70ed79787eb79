use core::fmt;

/// Everything that can go wrong in `numcrypt-prime`: bad input, never a bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The requested bit length is below the smallest that the function
    /// supports (the minimum is given).
    BitsTooSmall {
        /// The smallest accepted bit length.
        min: u32,
    },
    /// The requested bit length does not fit the integer type's width.
    BitsTooLarge {
        /// The width of the integer type, in bits.
        max: u32,
    },
    /// An RSA public exponent outside what FIPS 186-5 allows (odd, and
    /// `2^16 < e < 2^256`).
    InvalidExponent,
    /// FIPS 186-5 B.3.3 gave up after the number of candidates it allows.
    GenerationFailed,
    /// The progress callback asked to stop.
    Cancelled,
    /// More worker threads than `max_threads()` allows.
    TooManyThreads {
        /// The most allowed on this machine.
        max: usize,
    },
    /// An error from the limb arithmetic (for example a value that does not
    /// fit a width).
    Limbs(numcrypt_limbs::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BitsTooSmall { min } => write!(f, "bit length must be at least {min}"),
            Error::BitsTooLarge { max } => write!(f, "bit length must be at most {max}"),
            Error::InvalidExponent => {
                f.write_str("public exponent must be odd with 2^16 < e < 2^256")
            }
            Error::GenerationFailed => {
                f.write_str("no prime found within the number of candidates allowed")
            }
            Error::Cancelled => f.write_str("cancelled by the progress callback"),
            Error::TooManyThreads { max } => write!(
                f,
                "at most {max} threads ({} per available core, at least 16)",
                crate::THREADS_PER_CORE
            ),
            Error::Limbs(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for Error {}

impl From<numcrypt_limbs::Error> for Error {
    fn from(e: numcrypt_limbs::Error) -> Self {
        Error::Limbs(e)
    }
}
