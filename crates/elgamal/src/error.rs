use core::fmt;

/// Everything that can go wrong in `numcrypt-elgamal`: bad input, never a
/// bug. A function that returns an error has changed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The group's prime is smaller than [`MIN_GROUP_BITS`](crate::MIN_GROUP_BITS)
    /// or larger than [`MAX_GROUP_BITS`](crate::MAX_GROUP_BITS).
    UnsupportedGroupSize {
        /// The prime's bit length.
        bits: u32,
    },
    /// The group is not a safe-prime group with a generator of the
    /// subgroup of squares: `p` even or `p ≢ 3 (mod 4)`, `q ≠ (p − 1)/2`,
    /// or `g` outside `[2, p − 2]` or not a square.
    InvalidGroup,
    /// `(p − 1)/2` is not prime.
    QNotPrime,
    /// `p` is not prime.
    PNotPrime,
    /// An unknown group name.
    UnknownGroup,
    /// A group element outside `[1, p − 1]` or outside the subgroup of
    /// squares (or the identity where that is not allowed).
    InvalidElement,
    /// The message is longer than the group can encode
    /// ([`Group::max_message_len`](crate::Group::max_message_len)).
    MessageTooLong,
    /// A decrypted element does not hold an encoded message (a ciphertext
    /// that was not made by encrypting a message, or was modified).
    InvalidPlaintext,
    /// The public key is outside `[2, p − 2]` or not in the subgroup.
    InvalidPublicKey,
    /// The private key is outside `[1, q − 1]`, or does not match its
    /// public key.
    InvalidPrivateKey,
    /// A ciphertext, encapsulation or sealed message of the wrong length.
    MalformedCiphertext,
    /// Authenticated decryption failed: wrong key, or a modified sealed
    /// message or associated data.
    DecryptionFailed,
    /// A stream chunk of the wrong length: every chunk but the last holds
    /// exactly [`stream::CHUNK_LEN`](crate::stream::CHUNK_LEN) bytes.
    InvalidChunk,
    /// A chunk after a stream's last one.
    StreamFinished,
    /// `r ∉ [1, p − 1]`, `s ∉ [0, p − 2]`, or `r ≡ 0 (mod q)`.
    SignatureOutOfRange,
    /// A signature encoding is malformed (not strict DER, trailing bytes).
    MalformedSignature,
    /// The signature does not verify.
    InvalidSignature,
    /// A prehashed message's digest is not the hash's output length.
    InvalidDigestLength,
    /// A key encoding is malformed (DER, PEM, or a value that does not
    /// fit).
    Encoding,
    /// The key is not an ElGamal (X9.42 or PKCS#3 Diffie–Hellman) key.
    UnsupportedAlgorithm,
    /// The random number generator failed.
    Rng,
    /// Safe-prime generation failed or was cancelled.
    Prime(numcrypt_prime::Error),
    /// An error from the limb arithmetic.
    Limbs(numcrypt_limbs::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnsupportedGroupSize { bits } => write!(
                f,
                "a {bits}-bit group is not supported (use {} to {} bits)",
                crate::limits::MIN_GROUP_BITS,
                crate::limits::MAX_GROUP_BITS
            ),
            Error::InvalidGroup => {
                f.write_str("not a safe-prime group with a generator of the squares")
            }
            Error::QNotPrime => f.write_str("(p - 1)/2 is not prime"),
            Error::PNotPrime => f.write_str("p is not prime"),
            Error::UnknownGroup => f.write_str("unknown group name"),
            Error::InvalidElement => {
                f.write_str("not an element of the group's subgroup of squares")
            }
            Error::MessageTooLong => f.write_str("message too long for the group"),
            Error::InvalidPlaintext => f.write_str("decrypted element holds no encoded message"),
            Error::InvalidPublicKey => f.write_str("invalid ElGamal public key"),
            Error::InvalidPrivateKey => f.write_str("invalid ElGamal private key"),
            Error::MalformedCiphertext => f.write_str("malformed ciphertext"),
            Error::DecryptionFailed => f.write_str("decryption failed"),
            Error::InvalidChunk => f.write_str("stream chunk of the wrong length"),
            Error::StreamFinished => f.write_str("chunk after the end of the stream"),
            Error::SignatureOutOfRange => f.write_str("r or s out of range"),
            Error::MalformedSignature => f.write_str("malformed signature encoding"),
            Error::InvalidSignature => f.write_str("signature does not verify"),
            Error::InvalidDigestLength => f.write_str("digest of the wrong length for the hash"),
            Error::Encoding => f.write_str("malformed ElGamal key encoding"),
            Error::Rng => f.write_str("the random number generator failed"),
            Error::UnsupportedAlgorithm => f.write_str("not an ElGamal (Diffie-Hellman) key"),
            Error::Prime(e) => write!(f, "{e}"),
            Error::Limbs(e) => write!(f, "{e}"),
        }
    }
}

numcrypt_common::error_conversions! {
    Error,
    wraps { numcrypt_limbs::Error => Limbs, numcrypt_prime::Error => Prime },
    common { MalformedSignature, SignatureOutOfRange, UnsupportedAlgorithm, Rng },
    otherwise Error::Encoding,
    der |_| Error::Encoding,
}
