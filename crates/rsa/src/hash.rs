//! The hash functions RSA pads with: SHA-1 (verification and OAEP only, unless
//! asked for), SHA-224, SHA-256, SHA-384 and SHA-512 by name, any other
//! `Digest` with an object identifier through [`HashAlg::of`]; their
//! `DigestInfo` encodings (for PKCS#1 v1.5 signatures) and MGF1 (for PSS and
//! OAEP).

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use der::asn1::{AnyRef, ObjectIdentifier, OctetStringRef};
use der::{Encode, EncodeValue, Length, Sequence, Writer};
use digest::const_oid::AssociatedOid;
use digest::{Digest, DynDigest, FixedOutputReset, Reset};
use sha1::Sha1;
use sha2::{Sha224, Sha256, Sha384, Sha512};
use spki::AlgorithmIdentifierRef;

use crate::Error;

/// A hash function for signatures, OAEP and MGF1.
///
/// The named ones parse from (and display as) the names OpenSSL uses:
/// `sha1`, `sha224`, `sha256`, `sha384`, `sha512` (case-insensitive,
/// `SHA-256` also accepted); any other name is [`Error::UnsupportedHash`].
/// Any other `Digest` with an object identifier (SHA-3, SHA-512/256, …)
/// comes from [`HashAlg::of`].
///
/// SHA-1 is accepted for verification, OAEP and MGF1 only: signing with it
/// is [`Error::WeakHash`] unless asked for with
/// [`pkcs1v15::SigningKey::allow_sha1`](crate::pkcs1v15::SigningKey::allow_sha1)
/// (or its PSS twin).
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
    pub(crate) fn is_sha1(self) -> bool {
        self.oid() == HashAlg::Sha1.oid()
    }

    /// The hash of `msg`.
    pub fn digest(self, msg: &[u8]) -> Vec<u8> {
        self.digest_parts(&[msg])
    }

    /// The hash of the concatenation of `parts`.
    pub(crate) fn digest_parts(self, parts: &[&[u8]]) -> Vec<u8> {
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

    /// Checks that `digest` has this hash's length.
    pub(crate) fn check_digest(self, digest: &[u8]) -> Result<(), Error> {
        if digest.len() == self.output_len() {
            Ok(())
        } else {
            Err(Error::InvalidLength {
                expected: self.output_len(),
                actual: digest.len(),
            })
        }
    }

    /// The DER encoding of `DigestInfo` for `digest` (RFC 8017 §9.2 step 2):
    /// `SEQUENCE { AlgorithmIdentifier { oid, NULL }, OCTET STRING digest }`.
    pub(crate) fn digest_info(self, digest: &[u8]) -> Result<Vec<u8>, Error> {
        let info = DigestInfo {
            algorithm: AlgorithmIdentifierRef {
                oid: self.oid(),
                parameters: Some(AnyRef::NULL),
            },
            digest: OctetStringRef::new(digest)?,
        };
        Ok(info.to_der()?)
    }

    /// MGF1 (RFC 8017 §B.2.1) with this hash: XORs the mask generated from
    /// `seed` into `out` (whose length is the mask length).
    pub(crate) fn mgf1_xor(self, seed: &[u8], out: &mut [u8]) {
        for (counter, chunk) in (0u32..).zip(out.chunks_mut(self.output_len())) {
            let block = self.digest_parts(&[seed, &counter.to_be_bytes()]);
            for (o, b) in chunk.iter_mut().zip(block) {
                *o ^= b;
            }
        }
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
        for b in s.bytes().filter(|&b| b != b'-') {
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

/// `DigestInfo ::= SEQUENCE { digestAlgorithm AlgorithmIdentifier, digest OCTET STRING }`.
struct DigestInfo<'a> {
    algorithm: AlgorithmIdentifierRef<'a>,
    digest: &'a OctetStringRef,
}

impl EncodeValue for DigestInfo<'_> {
    fn value_len(&self) -> der::Result<Length> {
        self.algorithm.encoded_len()? + self.digest.encoded_len()?
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        self.algorithm.encode(writer)?;
        self.digest.encode(writer)
    }
}

impl<'a> Sequence<'a> for DigestInfo<'a> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `DigestInfo` prefixes listed in RFC 8017 §9.2, note 1.
    #[test]
    fn digest_info_matches_rfc8017() {
        let cases = [
            (HashAlg::Sha1, "3021300906052b0e03021a05000414"),
            (HashAlg::Sha224, "302d300d06096086480165030402040500041c"),
            (HashAlg::Sha256, "3031300d060960864801650304020105000420"),
            (HashAlg::Sha384, "3041300d060960864801650304020205000430"),
            (HashAlg::Sha512, "3051300d060960864801650304020305000440"),
        ];
        for (hash, prefix) in cases {
            let digest = alloc::vec![0xab; hash.output_len()];
            let info = hash.digest_info(&digest).unwrap();
            let (head, tail) = info.split_at(info.len() - digest.len());
            assert_eq!(hex(head), prefix, "{hash}");
            assert_eq!(tail, &digest[..]);
        }
    }

    #[test]
    fn names() {
        for (s, h) in [
            ("sha256", HashAlg::Sha256),
            ("SHA-384", HashAlg::Sha384),
            ("Sha512", HashAlg::Sha512),
            ("SHA-1", HashAlg::Sha1),
        ] {
            assert_eq!(s.parse::<HashAlg>(), Ok(h));
        }
        for s in ["md5", "sha3-256", "", "sha256sha256sha256"] {
            assert_eq!(s.parse::<HashAlg>(), Err(Error::UnsupportedHash), "{s}");
        }
    }

    /// MGF1-SHA-256 of the empty seed, 40 bytes: SHA-256(00000000) then the
    /// first 8 bytes of SHA-256(00000001), computed from the definition.
    #[test]
    fn mgf1_is_counter_mode() {
        let mut out = [0u8; 40];
        HashAlg::Sha256.mgf1_xor(b"", &mut out);
        let first = HashAlg::Sha256.digest(&[0, 0, 0, 0]);
        let second = HashAlg::Sha256.digest(&[0, 0, 0, 1]);
        assert_eq!(&out[..32], &first[..]);
        assert_eq!(&out[32..], &second[..8]);
    }

    fn hex(b: &[u8]) -> alloc::string::String {
        use core::fmt::Write;
        let mut s = alloc::string::String::new();
        for x in b {
            write!(s, "{x:02x}").unwrap();
        }
        s
    }
}
