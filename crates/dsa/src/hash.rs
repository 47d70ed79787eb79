//! The SHA-2 hashes, named at run time (for seeds stored in files and for
//! the command line); the signing API itself is generic over the digest.

use alloc::vec::Vec;

use der::asn1::ObjectIdentifier;
use digest::Digest;
use sha2::{Sha224, Sha256, Sha384, Sha512};

use crate::Error;

/// A SHA-2 hash chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlgorithm {
    /// SHA-224 (28-byte output).
    Sha224,
    /// SHA-256 (32-byte output).
    Sha256,
    /// SHA-384 (48-byte output).
    Sha384,
    /// SHA-512 (64-byte output).
    Sha512,
}

const OID_SHA224: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.4");
const OID_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1");
const OID_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.2");
const OID_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.3");

impl HashAlgorithm {
    /// Every supported hash, shortest first.
    pub const ALL: [HashAlgorithm; 4] = [
        HashAlgorithm::Sha224,
        HashAlgorithm::Sha256,
        HashAlgorithm::Sha384,
        HashAlgorithm::Sha512,
    ];

    /// Output length in bits (`outlen`).
    pub const fn output_bits(self) -> u32 {
        match self {
            HashAlgorithm::Sha224 => 224,
            HashAlgorithm::Sha256 => 256,
            HashAlgorithm::Sha384 => 384,
            HashAlgorithm::Sha512 => 512,
        }
    }

    /// The shortest SHA-2 whose output holds `n` bits: the hash FIPS 186-4
    /// pairs with `N` (and OpenSSL's default).
    pub fn for_subgroup_bits(n: u32) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|h| h.output_bits() >= n)
            .ok_or(Error::HashTooShort)
    }

    /// The lower-case name (`"sha256"`), as the command line spells it.
    pub const fn name(self) -> &'static str {
        match self {
            HashAlgorithm::Sha224 => "sha224",
            HashAlgorithm::Sha256 => "sha256",
            HashAlgorithm::Sha384 => "sha384",
            HashAlgorithm::Sha512 => "sha512",
        }
    }

    /// From a name: `sha256`, `SHA-256` and `sha-256` are all accepted.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        let lower: Vec<u8> = name
            .bytes()
            .filter(|&b| b != b'-' && b != b'_')
            .map(|b| b.to_ascii_lowercase())
            .collect();
        Self::ALL
            .into_iter()
            .find(|h| h.name().as_bytes() == lower.as_slice())
            .ok_or(Error::UnsupportedHash)
    }

    /// The algorithm's object identifier (NIST's `id-sha256` and so on).
    pub const fn oid(self) -> ObjectIdentifier {
        match self {
            HashAlgorithm::Sha224 => OID_SHA224,
            HashAlgorithm::Sha256 => OID_SHA256,
            HashAlgorithm::Sha384 => OID_SHA384,
            HashAlgorithm::Sha512 => OID_SHA512,
        }
    }

    /// From an object identifier.
    pub fn from_oid(oid: &ObjectIdentifier) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|h| h.oid() == *oid)
            .ok_or(Error::UnsupportedHash)
    }

    /// The digest of the concatenation of `parts`.
    pub fn digest(self, parts: &[&[u8]]) -> Vec<u8> {
        fn run<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
            let mut h = D::new();
            for part in parts {
                h.update(part);
            }
            h.finalize().to_vec()
        }
        match self {
            HashAlgorithm::Sha224 => run::<Sha224>(parts),
            HashAlgorithm::Sha256 => run::<Sha256>(parts),
            HashAlgorithm::Sha384 => run::<Sha384>(parts),
            HashAlgorithm::Sha512 => run::<Sha512>(parts),
        }
    }
}

impl core::fmt::Display for HashAlgorithm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
