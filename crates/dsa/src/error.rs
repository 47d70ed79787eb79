use core::fmt;

/// Everything that can go wrong in `numcrypt-dsa`: bad input, never a bug.
///
/// A function that returns an error has changed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// `(L, N)` is not one of FIPS 186-4's pairs: (1024, 160), (2048, 224),
    /// (2048, 256), (3072, 256).
    UnsupportedSizes {
        /// Bit length of `p`.
        l: u32,
        /// Bit length of `q`.
        n: u32,
    },
    /// (1024, 160) parameters and keys are accepted for verifying existing
    /// signatures only: generating parameters, keys or signatures with them
    /// is refused.
    VerifyOnly,
    /// The hash's output is shorter than `N` bits (FIPS 186-4 A.1.1.2 needs
    /// `outlen ≥ N`).
    HashTooShort,
    /// The `domain_parameter_seed` is shorter than `N` bits.
    SeedTooShort,
    /// `p` is not prime.
    PNotPrime,
    /// `q` is not prime.
    QNotPrime,
    /// `q` does not divide `p − 1`.
    QDoesNotDivideP,
    /// `g` is outside `[2, p − 1]` or does not have order `q`.
    InvalidGenerator,
    /// Regenerating `q` and `p` from the seed (FIPS 186-4 A.1.1.3) did not
    /// give these values at this counter.
    SeedMismatch,
    /// Regenerating `g` from the seed and index (A.2.4) did not give this
    /// `g`.
    GeneratorMismatch,
    /// A.2.3 ran out of its 16-bit counter without finding `g` (it never
    /// happens for valid `p` and `q`).
    GeneratorNotFound,
    /// The public key `y` is outside `[2, p − 2]` or not in the subgroup of
    /// order `q`.
    InvalidPublicKey,
    /// The private key `x` is outside `[1, q − 1]`, or does not match the
    /// public key stored beside it.
    InvalidPrivateKey,
    /// `r` or `s` is outside `[1, q − 1]`.
    SignatureOutOfRange,
    /// A signature encoding is malformed: not strict DER, trailing bytes,
    /// or a P1363 signature of the wrong length.
    MalformedSignature,
    /// The signature does not verify.
    InvalidSignature,
    /// A key or parameter encoding is malformed (DER, PEM, or a value that
    /// does not fit).
    Encoding,
    /// The key or parameters are not DSA's (wrong OID or PEM label).
    UnsupportedAlgorithm,
    /// A hash not taken here: signing with a hash named at run time takes
    /// the SHA-2 ones (any other `Digest` goes through the generic
    /// functions).
    UnsupportedHash,
    /// The progress callback asked to stop.
    Cancelled,
    /// The random number generator failed.
    Rng,
    /// An error from the limb arithmetic.
    Limbs(numcrypt_limbs::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnsupportedSizes { l, n } => write!(
                f,
                "(L, N) = ({l}, {n}) is not a FIPS 186-4 size: use (2048, 224), (2048, 256) or (3072, 256)"
            ),
            Error::VerifyOnly => {
                f.write_str("(1024, 160) parameters may only verify existing signatures")
            }
            Error::HashTooShort => f.write_str("hash output is shorter than N bits"),
            Error::SeedTooShort => f.write_str("domain parameter seed is shorter than N bits"),
            Error::PNotPrime => f.write_str("p is not prime"),
            Error::QNotPrime => f.write_str("q is not prime"),
            Error::QDoesNotDivideP => f.write_str("q does not divide p - 1"),
            Error::InvalidGenerator => f.write_str("g is not a generator of the order-q subgroup"),
            Error::SeedMismatch => {
                f.write_str("p and q do not follow from the seed and counter (FIPS 186-4 A.1.1.3)")
            }
            Error::GeneratorMismatch => {
                f.write_str("g does not follow from the seed and index (FIPS 186-4 A.2.4)")
            }
            Error::GeneratorNotFound => f.write_str("no generator found for this index"),
            Error::InvalidPublicKey => f.write_str("invalid DSA public key"),
            Error::InvalidPrivateKey => f.write_str("invalid DSA private key"),
            Error::SignatureOutOfRange => f.write_str("r or s is outside [1, q - 1]"),
            Error::MalformedSignature => f.write_str("malformed signature encoding"),
            Error::InvalidSignature => f.write_str("signature does not verify"),
            Error::Encoding => f.write_str("malformed DSA key or parameter encoding"),
            Error::UnsupportedAlgorithm => f.write_str("not a DSA key or parameter set"),
            Error::UnsupportedHash => f.write_str(
                "unsupported hash (named signing takes SHA-224, SHA-256, SHA-384 or SHA-512)",
            ),
            Error::Cancelled => f.write_str("cancelled by the progress callback"),
            Error::Rng => f.write_str("the random number generator failed"),
            Error::Limbs(e) => write!(f, "{e}"),
        }
    }
}

numcrypt_common::error_conversions! {
    Error,
    wraps { numcrypt_limbs::Error => Limbs },
    common { UnsupportedHash, MalformedSignature, SignatureOutOfRange, UnsupportedAlgorithm, Rng },
    otherwise Error::Encoding,
    der |_| Error::Encoding,
}
