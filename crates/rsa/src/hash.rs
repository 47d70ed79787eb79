//! What RSA adds to the shared hash choice: the `DigestInfo` encoding
//! (PKCS#1 v1.5 signatures), MGF1 (PSS and OAEP) and the digest length
//! check, in this crate's error terms.

use alloc::vec::Vec;

use der::asn1::{AnyRef, OctetStringRef};
use der::{Encode, EncodeValue, Length, Sequence, Writer};
use spki::AlgorithmIdentifierRef;

use crate::{Error, HashAlg};

/// RSA's uses of a [`HashAlg`].
pub(crate) trait RsaHash: Copy {
    /// Checks that `digest` has this hash's length.
    fn check_digest(self, digest: &[u8]) -> Result<(), Error>;

    /// The DER encoding of `DigestInfo` for `digest` (RFC 8017 §9.2 step 2):
    /// `SEQUENCE { AlgorithmIdentifier { oid, NULL }, OCTET STRING digest }`.
    fn digest_info(self, digest: &[u8]) -> Result<Vec<u8>, Error>;

    /// MGF1 (RFC 8017 §B.2.1) with this hash: XORs the mask generated from
    /// `seed` into `out` (whose length is the mask length).
    fn mgf1_xor(self, seed: &[u8], out: &mut [u8]);
}

impl RsaHash for HashAlg {
    fn check_digest(self, digest: &[u8]) -> Result<(), Error> {
        if digest.len() == self.output_len() {
            Ok(())
        } else {
            Err(Error::InvalidLength {
                expected: self.output_len(),
                actual: digest.len(),
            })
        }
    }

    fn digest_info(self, digest: &[u8]) -> Result<Vec<u8>, Error> {
        let info = DigestInfo {
            algorithm: AlgorithmIdentifierRef {
                oid: self.oid(),
                parameters: Some(AnyRef::NULL),
            },
            digest: OctetStringRef::new(digest)?,
        };
        Ok(info.to_der()?)
    }

    fn mgf1_xor(self, seed: &[u8], out: &mut [u8]) {
        for (counter, chunk) in (0u32..).zip(out.chunks_mut(self.output_len())) {
            let block = self.digest_parts(&[seed, &counter.to_be_bytes()]);
            for (o, b) in chunk.iter_mut().zip(block) {
                *o ^= b;
            }
        }
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
