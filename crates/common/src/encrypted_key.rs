//! Password-protected PKCS#8 keys (`ENCRYPTED PRIVATE KEY`, PBES2 with
//! PBKDF2 or scrypt, RFC 8018), decrypted only after the cost of their key
//! derivation has been checked against fixed limits.
//!
//! The parameters come from the file: left as they are, an iteration count
//! of `2^32 − 1` costs tens of minutes and scrypt's `128·r·N` bytes can ask
//! for terabytes (an allocation failure that aborts the process). The
//! limits accept what `openssl genpkey -aes256` and `openssl pkcs8 -topk8`
//! write (PBKDF2 with 2048 iterations; scrypt with `N = 2^14`, `r = 8`,
//! `p = 1`) and what careful tools choose (PBKDF2 up to millions of
//! iterations, as OWASP's 600,000; scrypt up to `N = 2^20`, `r = 8`).
//!
//! | parameter | limit |
//! |---|---|
//! | PBKDF2 iterations | [`MAX_PBKDF2_ITERATIONS`] (10,000,000) |
//! | scrypt memory, `128·r·N` bytes | [`MAX_SCRYPT_MEMORY`] (1 GiB: `N = 2^20` with `r = 8`) |
//! | scrypt work, `N·r·p` | [`MAX_SCRYPT_WORK`] (`2^23`: `N = 2^20`, `r = 8`, `p = 1`) |

//!
//! The limits and errors are always here; the decryption needs the
//! `encryption` feature.

use core::fmt;

#[cfg(feature = "encryption")]
use pkcs8::EncryptedPrivateKeyInfoRef;
#[cfg(feature = "encryption")]
use pkcs8::der::{Decode, SecretDocument};
#[cfg(feature = "encryption")]
use pkcs8::pkcs5::EncryptionScheme;
#[cfg(feature = "encryption")]
use pkcs8::pkcs5::pbes2::Kdf;
#[cfg(feature = "encryption")]
use zeroize::Zeroizing;

/// The most PBKDF2 iterations read: ten million (a few seconds).
pub const MAX_PBKDF2_ITERATIONS: u32 = 10_000_000;

/// The most memory scrypt may take, `128·r·N` bytes: 1 GiB.
pub const MAX_SCRYPT_MEMORY: u64 = 1 << 30;

/// The most work scrypt may do, `N·r·p` (its time is proportional):
/// `2^23`, the cost of `N = 2^20`, `r = 8`, `p = 1`.
pub const MAX_SCRYPT_WORK: u64 = 1 << 23;

/// A key derivation that would cost more than the limits allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KdfLimit {
    /// PBKDF2's iteration count is above [`MAX_PBKDF2_ITERATIONS`].
    Pbkdf2Iterations {
        /// The count the file asks for.
        iterations: u32,
        /// The limit.
        max: u32,
    },
    /// scrypt's memory, `128·r·N` bytes, is above [`MAX_SCRYPT_MEMORY`].
    ScryptMemory {
        /// The memory the file asks for, in bytes (saturated at `u64::MAX`).
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// scrypt's work, `N·r·p`, is above [`MAX_SCRYPT_WORK`].
    ScryptWork {
        /// `N·r·p` as the file asks for it (saturated at `u64::MAX`).
        work: u64,
        /// The limit.
        max: u64,
    },
}

impl fmt::Display for KdfLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KdfLimit::Pbkdf2Iterations { iterations, max } => write!(
                f,
                "the key's PBKDF2 iteration count, {iterations}, is above the limit of {max}"
            ),
            KdfLimit::ScryptMemory { bytes, max } => write!(
                f,
                "the key's scrypt parameters ask for {bytes} bytes of memory (128·r·N), \
                 above the limit of {max}"
            ),
            KdfLimit::ScryptWork { work, max } => write!(
                f,
                "the key's scrypt parameters ask for N·r·p = {work}, above the limit of {max}"
            ),
        }
    }
}

/// Why an encrypted key was not decrypted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncryptedKeyError {
    /// Its key derivation would cost more than the limits allow; nothing
    /// was derived.
    TooCostly(KdfLimit),
    /// The decryption failed: a wrong password, or a damaged file (the two
    /// cannot be told apart).
    Decryption,
    /// An encryption this crate does not read: PBES1, or a cipher, key
    /// derivation or PRF other than PBES2's AES, PBKDF2 (HMAC-SHA-2) and
    /// scrypt.
    Unsupported,
    /// Not a well-formed `EncryptedPrivateKeyInfo`.
    Encoding(pkcs8::der::Error),
}

impl fmt::Display for EncryptedKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncryptedKeyError::TooCostly(limit) => fmt::Display::fmt(limit, f),
            EncryptedKeyError::Decryption => {
                f.write_str("cannot decrypt the key: wrong password, or a damaged file")
            }
            EncryptedKeyError::Unsupported => f.write_str(
                "an encryption numcrypt does not read (it reads PBES2 with scrypt or PBKDF2 and AES)",
            ),
            EncryptedKeyError::Encoding(e) => write!(f, "malformed encrypted key: {e}"),
        }
    }
}

impl core::error::Error for EncryptedKeyError {}

#[cfg(feature = "encryption")]
/// Checks a scheme's key derivation against the limits, before anything is
/// derived.
pub fn check_limits(scheme: &EncryptionScheme) -> Result<(), EncryptedKeyError> {
    let EncryptionScheme::Pbes2(params) = scheme else {
        return Err(EncryptedKeyError::Unsupported);
    };
    match &params.kdf {
        Kdf::Pbkdf2(p) if p.iteration_count > MAX_PBKDF2_ITERATIONS => {
            Err(EncryptedKeyError::TooCostly(KdfLimit::Pbkdf2Iterations {
                iterations: p.iteration_count,
                max: MAX_PBKDF2_ITERATIONS,
            }))
        }
        Kdf::Pbkdf2(_) => Ok(()),
        Kdf::Scrypt(s) => {
            let (n, r, p) = (
                u128::from(s.cost_parameter),
                u128::from(s.block_size),
                u128::from(s.parallelization),
            );
            let saturate = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
            let bytes = 128 * r * n;
            if bytes > u128::from(MAX_SCRYPT_MEMORY) {
                return Err(EncryptedKeyError::TooCostly(KdfLimit::ScryptMemory {
                    bytes: saturate(bytes),
                    max: MAX_SCRYPT_MEMORY,
                }));
            }
            let work = n * r * p;
            if work > u128::from(MAX_SCRYPT_WORK) {
                return Err(EncryptedKeyError::TooCostly(KdfLimit::ScryptWork {
                    work: saturate(work),
                    max: MAX_SCRYPT_WORK,
                }));
            }
            Ok(())
        }
        _ => Err(EncryptedKeyError::Unsupported),
    }
}

#[cfg(feature = "encryption")]
/// Decrypts an `EncryptedPrivateKeyInfo` (DER) with `password`: the
/// `PrivateKeyInfo` inside, wiped when dropped. The limits are checked
/// first; the plaintext is decrypted in a buffer that is wiped too.
pub fn decrypt_der(der: &[u8], password: &[u8]) -> Result<SecretDocument, EncryptedKeyError> {
    let info = EncryptedPrivateKeyInfoRef::from_der(der).map_err(EncryptedKeyError::Encoding)?;
    check_limits(&info.encryption_algorithm)?;
    let mut buffer = Zeroizing::new(info.encrypted_data.as_bytes().to_vec());
    let plaintext = info
        .encryption_algorithm
        .decrypt_in_place(password, &mut buffer)
        .map_err(|e| match e {
            pkcs8::pkcs5::Error::DecryptFailed => EncryptedKeyError::Decryption,
            _ => EncryptedKeyError::Unsupported,
        })?;
    // A wrong password that happens to unpad is caught here.
    SecretDocument::try_from(plaintext).map_err(|_| EncryptedKeyError::Decryption)
}

#[cfg(feature = "encryption")]
/// Decrypts a PEM `ENCRYPTED PRIVATE KEY` with `password` (see
/// [`decrypt_der`]).
pub fn decrypt_pem(pem: &str, password: &[u8]) -> Result<SecretDocument, EncryptedKeyError> {
    let (label, doc) = SecretDocument::from_pem(pem).map_err(EncryptedKeyError::Encoding)?;
    if label != "ENCRYPTED PRIVATE KEY" {
        return Err(EncryptedKeyError::Encoding(
            pkcs8::der::ErrorKind::Pem(pkcs8::der::pem::Error::Label).into(),
        ));
    }
    decrypt_der(doc.as_bytes(), password)
}

#[cfg(all(test, feature = "encryption"))]
mod tests {
    use super::*;
    use pkcs8::pkcs5::pbes2::{self, Pbkdf2Params, Salt, ScryptParams};

    fn pbkdf2(iterations: u32) -> EncryptionScheme {
        EncryptionScheme::Pbes2(pbes2::Parameters {
            kdf: Pbkdf2Params::hmac_sha256(iterations, &[1; 16])
                .unwrap()
                .into(),
            encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [0; 16] },
        })
    }

    fn scrypt(log_n: u32, r: u16, p: u16) -> EncryptionScheme {
        EncryptionScheme::Pbes2(pbes2::Parameters {
            kdf: ScryptParams {
                salt: Salt::try_from(&[1u8; 16][..]).unwrap(),
                cost_parameter: 1 << log_n,
                block_size: r,
                parallelization: p,
                key_length: None,
            }
            .into(),
            encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [0; 16] },
        })
    }

    /// What common tools write is accepted (OpenSSL 3's PBKDF2 default of
    /// 2048 iterations and its scrypt default `N = 2^14, r = 8, p = 1`; up
    /// to `N = 2^20` with `r = 8`); one step beyond each limit is not.
    #[test]
    fn limits_accept_common_settings_and_refuse_beyond() {
        for ok in [
            pbkdf2(2048),
            pbkdf2(600_000),
            pbkdf2(MAX_PBKDF2_ITERATIONS),
            scrypt(14, 8, 1),
            scrypt(20, 8, 1),
            scrypt(16, 8, 16),
        ] {
            assert_eq!(check_limits(&ok), Ok(()), "{ok:?}");
        }
        assert_eq!(
            check_limits(&pbkdf2(MAX_PBKDF2_ITERATIONS + 1)),
            Err(EncryptedKeyError::TooCostly(KdfLimit::Pbkdf2Iterations {
                iterations: MAX_PBKDF2_ITERATIONS + 1,
                max: MAX_PBKDF2_ITERATIONS
            }))
        );
        assert_eq!(
            check_limits(&scrypt(21, 8, 1)),
            Err(EncryptedKeyError::TooCostly(KdfLimit::ScryptMemory {
                bytes: 1 << 31,
                max: MAX_SCRYPT_MEMORY
            }))
        );
        assert_eq!(
            check_limits(&scrypt(20, 8, 2)),
            Err(EncryptedKeyError::TooCostly(KdfLimit::ScryptWork {
                work: 1 << 24,
                max: MAX_SCRYPT_WORK
            }))
        );
        // Sizes beyond u64 saturate rather than wrap.
        assert!(matches!(
            check_limits(&scrypt(63, u16::MAX, 1)),
            Err(EncryptedKeyError::TooCostly(KdfLimit::ScryptMemory {
                bytes: u64::MAX,
                ..
            }))
        ));
    }
}
