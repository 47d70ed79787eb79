//! The hash choice, made at run time (from a command line, a key file or a
//! seed): SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512 by name, any other
//! `Digest` with an object identifier through [`HashAlg::of`]. RSA pads
//! with it; DSA names the hash of its parameter seeds and of its signatures
//! with it; ElGamal signs with it.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use der::asn1::ObjectIdentifier;
use digest::const_oid::AssociatedOid;
use digest::{Digest, DynDigest, FixedOutputReset, Reset};
use sha1::Sha1;
use sha2::{Sha224, Sha256, Sha384, Sha512};

use crate::Error;

/// A hash function chosen at run time.
///
/// The named ones parse from (and display as) the names OpenSSL uses:
/// `sha1`, `sha224`, `sha256`, `sha384`, `sha512` (case-insensitive,
/// `SHA-256` and `sha_256` also accepted); any other name is
/// [`Error::UnsupportedHash`]. Any other `Digest` with an object
/// identifier (SHA-3, SHA-512/256, …) comes from [`HashAlg::of`].
///
/// What each scheme accepts is its own rule: RSA signs with SHA-1 only when
/// asked to, for instance.
#[derive(Clone, Copy, Default)]
#[non_exhaustive]
pub enum HashAlg {
    /// SHA-1: collisions are practical, so not for new signatures.
    Sha1,
    /// SHA-224.
    Sha224,
    /// SHA-256 (the default).
    #[default]
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
    /// Another digest, from [`HashAlg::of`].
    Other(OtherHash),
}

/// A `Digest` with an object identifier: what [`HashAlg::of`] and the
/// `signature` crate's `DigestSigner`/`DigestVerifier` impls take (SHA-3,
/// SHA-512/256, and the named ones).
pub trait OidDigest: Digest + FixedOutputReset + Reset + Clone + AssociatedOid + 'static {}

impl<D: Digest + FixedOutputReset + Reset + Clone + AssociatedOid + 'static> OidDigest for D {}

/// A digest other than the named ones, from [`HashAlg::of`]: its object
/// identifier, output length and constructor.
#[derive(Clone, Copy)]
pub struct OtherHash {
    oid: ObjectIdentifier,
    output_len: usize,
    digest_parts: fn(&[&[u8]]) -> Vec<u8>,
    hasher: fn() -> Box<dyn DynDigest>,
}

/// The hash of the concatenation of `parts` with `D`.
fn digest_parts_with<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
    let mut h = D::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().to_vec()
}

fn boxed<D: OidDigest>() -> Box<dyn DynDigest> {
    Box::new(D::new())
}

impl HashAlg {
    /// The SHA-2 hashes, shortest first.
    pub const SHA2: [HashAlg; 4] = [
        HashAlg::Sha224,
        HashAlg::Sha256,
        HashAlg::Sha384,
        HashAlg::Sha512,
    ];

    /// Every named hash.
    pub const NAMED: [HashAlg; 5] = [
        HashAlg::Sha1,
        HashAlg::Sha224,
        HashAlg::Sha256,
        HashAlg::Sha384,
        HashAlg::Sha512,
    ];

    /// The hash `D`, for any `Digest` with an object identifier: a named
    /// variant when `D` is one of them (`HashAlg::of::<sha2::Sha256>()` is
    /// `HashAlg::Sha256`), [`HashAlg::Other`] otherwise.
    pub fn of<D: OidDigest>() -> Self {
        Self::from_oid(&D::OID).unwrap_or(HashAlg::Other(OtherHash {
            oid: D::OID,
            output_len: <D as Digest>::output_size(),
            digest_parts: digest_parts_with::<D>,
            hasher: boxed::<D>,
        }))
    }

    /// The named hash with object identifier `oid`.
    pub fn from_oid(oid: &ObjectIdentifier) -> Option<Self> {
        Self::NAMED.into_iter().find(|h| h.oid() == *oid)
    }

    /// The digest length in bytes.
    pub const fn output_len(self) -> usize {
        match self {
            HashAlg::Sha1 => 20,
            HashAlg::Sha224 => 28,
            HashAlg::Sha256 => 32,
            HashAlg::Sha384 => 48,
            HashAlg::Sha512 => 64,
            HashAlg::Other(h) => h.output_len,
        }
    }

    /// The digest length in bits (FIPS 186's `outlen`).
    pub const fn output_bits(self) -> u32 {
        8 * self.output_len() as u32
    }

    /// The shortest SHA-2 whose output holds `n` bits: the hash FIPS 186-4
    /// pairs with a DSA subgroup of `n` bits (OpenSSL's default too).
    pub fn shortest_sha2_for_bits(n: u32) -> Option<Self> {
        Self::SHA2.into_iter().find(|h| h.output_bits() >= n)
    }

    /// The algorithm's object identifier (NIST's `2.16.840.1.101.3.4.2.x`,
    /// `1.3.14.3.2.26` for SHA-1).
    pub const fn oid(self) -> ObjectIdentifier {
        match self {
            HashAlg::Sha1 => ObjectIdentifier::new_unwrap("1.3.14.3.2.26"),
            HashAlg::Sha224 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.4"),
            HashAlg::Sha256 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1"),
            HashAlg::Sha384 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.2"),
            HashAlg::Sha512 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.3"),
            HashAlg::Other(h) => h.oid,
        }
    }

    /// The OpenSSL name (`sha256`, …); `None` for [`HashAlg::Other`], which
    /// displays as its object identifier.
    pub const fn name(self) -> Option<&'static str> {
        match self {
            HashAlg::Sha1 => Some("sha1"),
            HashAlg::Sha224 => Some("sha224"),
            HashAlg::Sha256 => Some("sha256"),
            HashAlg::Sha384 => Some("sha384"),
            HashAlg::Sha512 => Some("sha512"),
            HashAlg::Other(_) => None,
        }
    }

    /// Whether this is SHA-1, refused for new signatures unless asked for.
    pub fn is_sha1(self) -> bool {
        self.oid() == HashAlg::Sha1.oid()
    }

    /// The hash of `msg`.
    pub fn digest(self, msg: &[u8]) -> Vec<u8> {
        self.digest_parts(&[msg])
    }

    /// The hash of the concatenation of `parts`.
    pub fn digest_parts(self, parts: &[&[u8]]) -> Vec<u8> {
        match self {
            HashAlg::Sha1 => digest_parts_with::<Sha1>(parts),
            HashAlg::Sha224 => digest_parts_with::<Sha224>(parts),
            HashAlg::Sha256 => digest_parts_with::<Sha256>(parts),
            HashAlg::Sha384 => digest_parts_with::<Sha384>(parts),
            HashAlg::Sha512 => digest_parts_with::<Sha512>(parts),
            HashAlg::Other(h) => (h.digest_parts)(parts),
        }
    }

    /// An incremental hasher, for hashing a long input in pieces before
    /// signing its digest with a `*_prehashed` function.
    pub fn hasher(self) -> Hasher {
        let state = match self {
            HashAlg::Sha1 => boxed::<Sha1>(),
            HashAlg::Sha224 => boxed::<Sha224>(),
            HashAlg::Sha256 => boxed::<Sha256>(),
            HashAlg::Sha384 => boxed::<Sha384>(),
            HashAlg::Sha512 => boxed::<Sha512>(),
            HashAlg::Other(h) => (h.hasher)(),
        };
        Hasher { alg: self, state }
    }
}

// Two hashes are the same when their object identifiers are.
impl PartialEq for HashAlg {
    fn eq(&self, other: &Self) -> bool {
        self.oid() == other.oid()
    }
}

impl Eq for HashAlg {}

impl core::hash::Hash for HashAlg {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.oid().hash(state);
    }
}

impl fmt::Debug for HashAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "Other({})", self.oid()),
        }
    }
}

impl fmt::Display for HashAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "{}", self.oid()),
        }
    }
}

impl FromStr for HashAlg {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        let mut name = [0u8; 8];
        let mut len = 0;
        for b in s.bytes().filter(|&b| b != b'-' && b != b'_') {
            if len == name.len() {
                return Err(Error::UnsupportedHash);
            }
            name[len] = b.to_ascii_lowercase();
            len += 1;
        }
        Self::NAMED
            .into_iter()
            .find(|h| h.name().is_some_and(|n| n.as_bytes() == &name[..len]))
            .ok_or(Error::UnsupportedHash)
    }
}

/// An incremental hash of one [`HashAlg`], from [`HashAlg::hasher`].
#[derive(Clone)]
pub struct Hasher {
    alg: HashAlg,
    state: Box<dyn DynDigest>,
}

impl Hasher {
    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.state.update(data);
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> Vec<u8> {
        self.state.finalize().into_vec()
    }
}

impl fmt::Debug for Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Hasher").field(&self.alg).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for (s, h) in [
            ("sha256", HashAlg::Sha256),
            ("SHA-384", HashAlg::Sha384),
            ("Sha512", HashAlg::Sha512),
            ("sha_224", HashAlg::Sha224),
            ("SHA-1", HashAlg::Sha1),
        ] {
            assert_eq!(s.parse::<HashAlg>(), Ok(h));
            assert_eq!(h.name().unwrap().parse::<HashAlg>(), Ok(h));
        }
        for s in ["md5", "sha3-256", "", "sha256sha256sha256"] {
            assert_eq!(s.parse::<HashAlg>(), Err(Error::UnsupportedHash), "{s}");
        }
    }

    /// FIPS 186-4's pairs: N = 160 → SHA-224 (the shortest SHA-2), 224 →
    /// SHA-224, 256 → SHA-256; nothing holds 513 bits.
    #[test]
    fn shortest_sha2_for_subgroup_sizes() {
        assert_eq!(HashAlg::shortest_sha2_for_bits(160), Some(HashAlg::Sha224));
        assert_eq!(HashAlg::shortest_sha2_for_bits(224), Some(HashAlg::Sha224));
        assert_eq!(HashAlg::shortest_sha2_for_bits(256), Some(HashAlg::Sha256));
        assert_eq!(HashAlg::shortest_sha2_for_bits(257), Some(HashAlg::Sha384));
        assert_eq!(HashAlg::shortest_sha2_for_bits(513), None);
    }

    /// The named hashes, `of` and the incremental hasher agree with the
    /// digest crates, and with the published SHA-256 of "abc".
    #[test]
    fn digests_match_the_digest_crates() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(hex::encode(HashAlg::Sha256.digest(b"abc")), abc);
        assert_eq!(HashAlg::of::<sha2::Sha256>(), HashAlg::Sha256);
        let sha3 = HashAlg::of::<sha2::Sha512_256>();
        assert_eq!(sha3.name(), None);
        assert_eq!(sha3.output_len(), 32);
        assert_eq!(
            sha3.digest(b"abc"),
            sha2::Sha512_256::digest(b"abc").to_vec()
        );
        for h in HashAlg::NAMED {
            let mut inc = h.hasher();
            inc.update(b"a");
            inc.update(b"bc");
            assert_eq!(inc.finalize(), h.digest_parts(&[b"ab", b"c"]), "{h}");
            assert_eq!(h.output_bits(), 8 * h.digest(b"").len() as u32);
        }
        assert_eq!(
            HashAlg::Sha1.digest(b"abc"),
            sha1::Sha1::digest(b"abc").to_vec()
        );
    }
}
