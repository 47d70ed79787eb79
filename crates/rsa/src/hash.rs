//! The hash functions RSA pads with: SHA-224, SHA-256, SHA-384 and SHA-512 from
//! `sha2`, their `DigestInfo` encodings (for PKCS#1 v1.5 signatures) and
//! MGF1 (for PSS and OAEP).

use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use der::asn1::{AnyRef, ObjectIdentifier, OctetStringRef};
use der::{Encode, EncodeValue, Length, Sequence, Writer};
use digest::Digest;
use sha2::{Sha224, Sha256, Sha384, Sha512};
use spki::AlgorithmIdentifierRef;

use crate::Error;

/// A hash function for signatures, OAEP and MGF1.
///
/// Parses from (and displays as) the names OpenSSL uses: `sha224`,
/// `sha256`, `sha384`, `sha512` (case-insensitive, `SHA-256` also
/// accepted); any other name (`sha1`, `md5`, …) is
/// [`Error::UnsupportedHash`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum HashAlg {
    /// SHA-224.
    Sha224,
    /// SHA-256 (the default).
    #[default]
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl HashAlg {
    /// The digest length in bytes.
    pub const fn output_len(self) -> usize {
        match self {
            HashAlg::Sha224 => 28,
            HashAlg::Sha256 => 32,
            HashAlg::Sha384 => 48,
            HashAlg::Sha512 => 64,
        }
    }

    /// The algorithm's object identifier (NIST, `2.16.840.1.101.3.4.2.x`).
    pub const fn oid(self) -> ObjectIdentifier {
        match self {
            HashAlg::Sha224 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.4"),
            HashAlg::Sha256 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1"),
            HashAlg::Sha384 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.2"),
            HashAlg::Sha512 => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.3"),
        }
    }

    /// The OpenSSL name (`sha256`, …).
    pub const fn name(self) -> &'static str {
        match self {
            HashAlg::Sha224 => "sha224",
            HashAlg::Sha256 => "sha256",
            HashAlg::Sha384 => "sha384",
            HashAlg::Sha512 => "sha512",
        }
    }

    /// The hash of `msg`.
    pub fn digest(self, msg: &[u8]) -> Vec<u8> {
        self.digest_parts(&[msg])
    }

    /// The hash of the concatenation of `parts`.
    pub(crate) fn digest_parts(self, parts: &[&[u8]]) -> Vec<u8> {
        fn run<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
            let mut h = D::new();
            for p in parts {
                h.update(p);
            }
            h.finalize().to_vec()
        }
        match self {
            HashAlg::Sha224 => run::<Sha224>(parts),
            HashAlg::Sha256 => run::<Sha256>(parts),
            HashAlg::Sha384 => run::<Sha384>(parts),
            HashAlg::Sha512 => run::<Sha512>(parts),
        }
    }

    /// An incremental hasher, for hashing a long input in pieces before
    /// signing its digest with a `*_prehashed` function.
    pub fn hasher(self) -> Hasher {
        Hasher(match self {
            HashAlg::Sha224 => HasherState::Sha224(Sha224::new()),
            HashAlg::Sha256 => HasherState::Sha256(Sha256::new()),
            HashAlg::Sha384 => HasherState::Sha384(Sha384::new()),
            HashAlg::Sha512 => HasherState::Sha512(Sha512::new()),
        })
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

impl fmt::Display for HashAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
        match &name[..len] {
            b"sha224" => Ok(HashAlg::Sha224),
            b"sha256" => Ok(HashAlg::Sha256),
            b"sha384" => Ok(HashAlg::Sha384),
            b"sha512" => Ok(HashAlg::Sha512),
            _ => Err(Error::UnsupportedHash),
        }
    }
}

/// An incremental hash of one [`HashAlg`], from [`HashAlg::hasher`].
#[derive(Clone)]
pub struct Hasher(HasherState);

#[derive(Clone)]
enum HasherState {
    Sha224(Sha224),
    Sha256(Sha256),
    Sha384(Sha384),
    Sha512(Sha512),
}

impl Hasher {
    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.0 {
            HasherState::Sha224(h) => h.update(data),
            HasherState::Sha256(h) => h.update(data),
            HasherState::Sha384(h) => h.update(data),
            HasherState::Sha512(h) => h.update(data),
        }
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> Vec<u8> {
        match self.0 {
            HasherState::Sha224(h) => h.finalize().to_vec(),
            HasherState::Sha256(h) => h.finalize().to_vec(),
            HasherState::Sha384(h) => h.finalize().to_vec(),
            HasherState::Sha512(h) => h.finalize().to_vec(),
        }
    }
}

impl fmt::Debug for Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let alg = match self.0 {
            HasherState::Sha224(_) => HashAlg::Sha224,
            HasherState::Sha256(_) => HashAlg::Sha256,
            HasherState::Sha384(_) => HashAlg::Sha384,
            HasherState::Sha512(_) => HashAlg::Sha512,
        };
        f.debug_tuple("Hasher").field(&alg).finish()
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
        ] {
            assert_eq!(s.parse::<HashAlg>(), Ok(h));
        }
        for s in ["sha1", "md5", "sha3-256", "", "sha256sha256sha256"] {
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
