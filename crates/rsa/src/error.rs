use core::fmt;

/// Everything that can go wrong in `numcrypt-rsa`: bad input, never a bug.
///
/// A function that returns it writes no output and leaves its key
/// unchanged. Where secrets are involved the error is decided in constant
/// time and reveals only what it names (for example that an OAEP padding
/// was wrong, never which part of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The modulus has fewer bits than the operation accepts: 1024 for
    /// public keys, 2048 for encryption and for key generation (1024 with
    /// [`KeyGen::allow_weak_key_size`](crate::KeyGen::allow_weak_key_size));
    /// a private key's signing and decryption below 2048 bits are
    /// [`Error::WeakKey`].
    KeyTooSmall {
        /// The modulus' bit length.
        bits: u32,
        /// The smallest bit length accepted.
        min: u32,
    },
    /// A private key of 1024 to 2047 bits asked to sign or decrypt: refused
    /// unless asked for ([`RsaPrivateKey::allow_weak_key`](crate::RsaPrivateKey::allow_weak_key)),
    /// as such a key is within reach of a well-funded attacker. Reading
    /// it, exporting its public key and verifying with that need no opt-in.
    WeakKey {
        /// The modulus' bit length.
        bits: u32,
        /// The smallest bit length used without the opt-in.
        min: u32,
    },
    /// A multi-prime key with more primes than its size allows
    /// ([`max_primes`](crate::max_primes), OpenSSL's limits).
    TooManyPrimes {
        /// The number of primes in the key.
        primes: usize,
        /// The most primes a modulus of this size may have.
        max: usize,
        /// The modulus' bit length.
        bits: u32,
    },
    /// The modulus has more bits than [`MAX_MODULUS_BITS`](crate::MAX_MODULUS_BITS).
    KeyTooLarge {
        /// The modulus' bit length.
        bits: u32,
        /// The largest bit length accepted.
        max: u32,
    },
    /// A key size that generation does not support (it must be even).
    InvalidKeySize {
        /// The requested bit length.
        bits: u32,
    },
    /// The modulus is even, so it cannot be an RSA modulus.
    EvenModulus,
    /// The public exponent is even, below 3, or not below the modulus; or,
    /// for key generation, outside `2^16 < e < 2^33` (FIPS 186-5 asks for
    /// `2^16 < e`, and [`MAX_PUBLIC_EXPONENT_BITS`](crate::MAX_PUBLIC_EXPONENT_BITS)
    /// caps it).
    InvalidExponent,
    /// The public exponent has more bits than
    /// [`MAX_PUBLIC_EXPONENT_BITS`](crate::MAX_PUBLIC_EXPONENT_BITS): refused
    /// before any arithmetic, since every use of the key would cost in
    /// proportion.
    PublicExponentTooLarge {
        /// The exponent's bit length.
        bits: u32,
        /// The largest bit length accepted.
        max: u32,
    },
    /// The private key's parts do not fit together (`p·q ≠ n`, `d` does not
    /// invert `e`, a CRT value is wrong, a factor is even or 1, or the key
    /// fails a trial private operation).
    InconsistentKey,
    /// A signature or ciphertext does not have the modulus' length in bytes.
    InvalidLength {
        /// The modulus' length in bytes.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A signature or ciphertext, read as an integer, is not below the
    /// modulus.
    OutOfRange,
    /// The signature does not match the message and key.
    InvalidSignature,
    /// OAEP decryption failed (wrong key, label, hash or a corrupted
    /// ciphertext: deliberately one error for all of them).
    Decryption,
    /// The message is too long for the padding and key.
    MessageTooLong {
        /// The longest message the padding and key allow, in bytes.
        max: usize,
    },
    /// A hash name or object identifier this crate does not know (SHA-1,
    /// SHA-224, SHA-256, SHA-384 and SHA-512 are named; others come from
    /// [`HashAlg::of`](crate::HashAlg::of)).
    UnsupportedHash,
    /// A PSS salt length that does not fit the key and hash.
    InvalidSaltLength,
    /// SHA-1 for a new signature: its collisions are practical, so it is
    /// refused unless asked for (`SigningKey::allow_sha1`). Verifying
    /// SHA-1 signatures, OAEP and MGF1 with SHA-1 are allowed.
    WeakHash,
    /// The key is an RSA-PSS key (`id-RSASSA-PSS`): it allows only PSS
    /// signatures, and, when its parameters restrict them, only with their
    /// hash, MGF1 hash and at least their salt length.
    KeyRestricted,
    /// A key encoding could not be read: malformed DER or PEM, a wrong PEM
    /// label, or trailing data.
    Encoding(der::Error),
    /// A well-formed key encoding of a kind this crate does not read: an
    /// algorithm other than `rsaEncryption` and `id-RSASSA-PSS`.
    UnsupportedKeyFormat,
    /// A password-protected PKCS#8 key (`ENCRYPTED PRIVATE KEY`) where a
    /// plain one was expected: read it with
    /// [`RsaPrivateKey::from_pkcs8_encrypted_pem`](crate::RsaPrivateKey::from_pkcs8_encrypted_pem)
    /// (feature `encryption`).
    EncryptedKey,
    /// A password-protected key whose key derivation would cost more than
    /// the limits of [`numcrypt_common::encrypted_key`] allow (PBKDF2
    /// iterations, scrypt's memory or work); nothing was derived.
    KdfTooCostly(numcrypt_common::encrypted_key::KdfLimit),
    /// A password-protected key did not decrypt: a wrong password or a
    /// damaged file (the two cannot be told apart).
    KeyDecryption,
    /// The private operation's result failed the check against the public
    /// key (a fault in the computation); nothing was returned.
    FaultDetected,
    /// The random number generator failed.
    Rng,
    /// Prime generation failed (for example it was cancelled).
    Prime(numcrypt_prime::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::KeyTooSmall { bits, min } => {
                write!(
                    f,
                    "RSA modulus of {bits} bits is below the minimum of {min}"
                )
            }
            Error::WeakKey { bits, min } => write!(
                f,
                "RSA key of {bits} bits is below {min}, too weak to sign or decrypt with \
                 unless allowed (RsaPrivateKey::allow_weak_key)"
            ),
            Error::TooManyPrimes { primes, max, bits } => write!(
                f,
                "RSA key with {primes} primes: a {bits}-bit modulus may have at most {max}"
            ),
            Error::KeyTooLarge { bits, max } => {
                write!(
                    f,
                    "RSA modulus of {bits} bits is above the maximum of {max}"
                )
            }
            Error::InvalidKeySize { bits } => {
                write!(f, "cannot generate a {bits}-bit key: the size must be even")
            }
            Error::EvenModulus => f.write_str("RSA modulus must be odd"),
            Error::InvalidExponent => f.write_str("invalid RSA public exponent"),
            Error::PublicExponentTooLarge { bits, max } => write!(
                f,
                "RSA public exponent of {bits} bits is above the maximum of {max}"
            ),
            Error::InconsistentKey => f.write_str("inconsistent RSA private key"),
            Error::InvalidLength { expected, actual } => {
                write!(
                    f,
                    "expected {expected} bytes (the modulus length), got {actual}"
                )
            }
            Error::OutOfRange => f.write_str("value is not below the RSA modulus"),
            Error::InvalidSignature => f.write_str("invalid signature"),
            Error::Decryption => f.write_str("decryption failed"),
            Error::MessageTooLong { max } => {
                write!(
                    f,
                    "message too long: at most {max} bytes fit this key and padding"
                )
            }
            Error::UnsupportedHash => {
                f.write_str("unsupported hash (use SHA-1, SHA-224, SHA-256, SHA-384 or SHA-512)")
            }
            Error::InvalidSaltLength => {
                f.write_str("PSS salt length does not fit the key and hash")
            }
            Error::WeakHash => f.write_str(
                "SHA-1 is not allowed for new signatures (collisions are practical); \
                 it is accepted for verification and OAEP",
            ),
            Error::KeyRestricted => f.write_str(
                "the key is an RSA-PSS key: only PSS signatures, with the hash, MGF1 hash \
                 and minimum salt length its parameters name",
            ),
            Error::Encoding(e) => write!(f, "malformed key encoding: {e}"),
            Error::UnsupportedKeyFormat => {
                f.write_str("unsupported key format (not an RSA or RSA-PSS key)")
            }
            Error::EncryptedKey => f.write_str(
                "an encrypted private key: decrypt it with a password \
                 (RsaPrivateKey::from_pkcs8_encrypted_pem, or numcrypt --passin)",
            ),
            Error::KdfTooCostly(limit) => fmt::Display::fmt(limit, f),
            Error::KeyDecryption => {
                f.write_str("cannot decrypt the key: wrong password, or a damaged file")
            }
            Error::FaultDetected => {
                f.write_str("fault detected in the RSA private operation; no output")
            }
            Error::Rng => f.write_str("random number generator failure"),
            Error::Prime(e) => write!(f, "prime generation: {e}"),
        }
    }
}

numcrypt_common::error_conversions! {
    Error,
    wraps { numcrypt_prime::Error => Prime },
    common {
        UnsupportedHash,
        MalformedSignature => Error::InvalidSignature,
        SignatureOutOfRange => Error::InvalidSignature,
        UnsupportedAlgorithm => Error::UnsupportedKeyFormat,
        Rng,
    },
    otherwise Error::Encoding(der::ErrorKind::Failed.into()),
    der |e| Error::Encoding(e),
}

impl From<pkcs1::Error> for Error {
    fn from(e: pkcs1::Error) -> Self {
        match e {
            pkcs1::Error::Asn1(e) => Error::Encoding(e),
            pkcs1::Error::Version => Error::UnsupportedKeyFormat,
            _ => Error::InconsistentKey,
        }
    }
}

impl From<spki::Error> for Error {
    fn from(e: spki::Error) -> Self {
        match e {
            spki::Error::Asn1(e) => Error::Encoding(e),
            spki::Error::KeyMalformed => Error::InconsistentKey,
            _ => Error::UnsupportedKeyFormat,
        }
    }
}

impl From<pkcs8::Error> for Error {
    fn from(e: pkcs8::Error) -> Self {
        match e {
            pkcs8::Error::Asn1(e) => Error::Encoding(e),
            pkcs8::Error::PublicKey(e) => e.into(),
            pkcs8::Error::KeyMalformed(_) => Error::InconsistentKey,
            _ => Error::UnsupportedKeyFormat,
        }
    }
}

impl From<numcrypt_common::encrypted_key::EncryptedKeyError> for Error {
    fn from(e: numcrypt_common::encrypted_key::EncryptedKeyError) -> Self {
        use numcrypt_common::encrypted_key::EncryptedKeyError as E;
        match e {
            E::TooCostly(limit) => Error::KdfTooCostly(limit),
            E::Decryption => Error::KeyDecryption,
            E::Encoding(e) => Error::Encoding(e),
            _ => Error::UnsupportedKeyFormat,
        }
    }
}
