//! numcrypt's RSA signature verification as webpki's
//! [`SignatureVerificationAlgorithm`]s, for handshake signatures and
//! certificate chains.
//!
//! The `rsaEncryption` ones take webpki's names and algorithm identifiers
//! (rustls-pki-types' [`alg_id`] constants) and accept what webpki's
//! aws-lc-rs algorithms accept: a modulus of 2048 to 8192 bits (exact bit
//! length; webpki on ring rounds the length up to whole bytes first, so it
//! also takes 2041 to 2047 bits), an odd public exponent from 3 to
//! `2^33 − 1` (numcrypt reads none larger:
//! [`MAX_PUBLIC_EXPONENT_BITS`](numcrypt_rsa::MAX_PUBLIC_EXPONENT_BITS)),
//! PSS with MGF1 over the message hash and a salt as long as the digest.
//!
//! The RSA-PSS public key ones (`id-RSASSA-PSS` keys) are this crate's
//! additions: webpki matches a key to an algorithm by the exact bytes of the
//! key's algorithm identifier, so there is one for keys without parameters
//! (any PSS signature) and one for keys whose parameters are the
//! signature's own (`alg_id::RSA_PSS_SHA256`, …, as `openssl genpkey
//! -algorithm RSA-PSS -pkeyopt rsa_pss_keygen_md:sha256 -pkeyopt
//! rsa_pss_keygen_mgf1_md:sha256 -pkeyopt rsa_pss_keygen_saltlen:32`
//! writes). A key with other parameters matches none of them and is
//! refused as an unsupported algorithm.

use core::fmt;

use numcrypt_rsa::pss::SaltLength;
use numcrypt_rsa::{HashAlg, RsaPublicKey};
use rustls::pki_types::{
    AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm, alg_id,
};

/// The smallest modulus verified, in bits (webpki's).
pub const MIN_MODULUS_BITS: u32 = 2048;
/// The largest modulus verified, in bits (webpki's).
pub const MAX_MODULUS_BITS: u32 = 8192;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Padding {
    Pkcs1,
    Pss,
}

/// RSA signature verification by numcrypt: a public key algorithm, a
/// signature algorithm, the padding and hash they name.
pub struct RsaVerification {
    public_key_alg_id: AlgorithmIdentifier,
    signature_alg_id: AlgorithmIdentifier,
    padding: Padding,
    hash: HashAlg,
}

impl RsaVerification {
    /// The message hash.
    pub fn hash(&self) -> HashAlg {
        self.hash
    }
}

impl fmt::Debug for RsaVerification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.public_key_alg_id == alg_id::RSA_ENCRYPTION {
            "rsaEncryption"
        } else {
            "id-RSASSA-PSS"
        };
        write!(
            f,
            "numcrypt RSA {:?} {:?}, {key} key",
            self.padding, self.hash
        )
    }
}

impl SignatureVerificationAlgorithm for RsaVerification {
    /// `public_key` is the certificate's subjectPublicKey: a PKCS#1
    /// `RSAPublicKey`, for both key algorithms.
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        // numcrypt reads no exponent above MAX_PUBLIC_EXPONENT_BITS (33).
        let key = RsaPublicKey::from_pkcs1_der(public_key).map_err(|_| InvalidSignature)?;
        if !(MIN_MODULUS_BITS..=MAX_MODULUS_BITS).contains(&key.bits()) {
            return Err(InvalidSignature);
        }
        let digest = self.hash.digest(message);
        match self.padding {
            Padding::Pkcs1 => key.verify_pkcs1v15_prehashed(self.hash, &digest, signature),
            Padding::Pss => {
                key.verify_pss_prehashed(self.hash, &digest, signature, SaltLength::Digest)
            }
        }
        .map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        self.public_key_alg_id
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        self.signature_alg_id
    }
}

const fn rsa(
    signature_alg_id: AlgorithmIdentifier,
    padding: Padding,
    hash: HashAlg,
) -> RsaVerification {
    RsaVerification {
        public_key_alg_id: alg_id::RSA_ENCRYPTION,
        signature_alg_id,
        padding,
        hash,
    }
}

const fn pss_key(
    public_key_alg_id: AlgorithmIdentifier,
    signature_alg_id: AlgorithmIdentifier,
    hash: HashAlg,
) -> RsaVerification {
    RsaVerification {
        public_key_alg_id,
        signature_alg_id,
        padding: Padding::Pss,
        hash,
    }
}

/// `sha256WithRSAEncryption` etc. without their NULL parameters (which RFC
/// 4055 says to accept), and `id-RSASSA-PSS` without parameters: the OIDs'
/// DER alone.
const RSA_PKCS1_SHA256_ABSENT_PARAMS: AlgorithmIdentifier = AlgorithmIdentifier::from_slice(&[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b,
]);
const RSA_PKCS1_SHA384_ABSENT_PARAMS: AlgorithmIdentifier = AlgorithmIdentifier::from_slice(&[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c,
]);
const RSA_PKCS1_SHA512_ABSENT_PARAMS: AlgorithmIdentifier = AlgorithmIdentifier::from_slice(&[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d,
]);
const RSASSA_PSS_ABSENT_PARAMS: AlgorithmIdentifier = AlgorithmIdentifier::from_slice(&[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a,
]);

/// PKCS#1 v1.5 with SHA-256, `rsaEncryption` keys of 2048 to 8192 bits.
pub static RSA_PKCS1_2048_8192_SHA256: &dyn SignatureVerificationAlgorithm =
    &rsa(alg_id::RSA_PKCS1_SHA256, Padding::Pkcs1, HashAlg::Sha256);
/// PKCS#1 v1.5 with SHA-384, `rsaEncryption` keys of 2048 to 8192 bits.
pub static RSA_PKCS1_2048_8192_SHA384: &dyn SignatureVerificationAlgorithm =
    &rsa(alg_id::RSA_PKCS1_SHA384, Padding::Pkcs1, HashAlg::Sha384);
/// PKCS#1 v1.5 with SHA-512, `rsaEncryption` keys of 2048 to 8192 bits.
pub static RSA_PKCS1_2048_8192_SHA512: &dyn SignatureVerificationAlgorithm =
    &rsa(alg_id::RSA_PKCS1_SHA512, Padding::Pkcs1, HashAlg::Sha512);
/// [`RSA_PKCS1_2048_8192_SHA256`] for a signature algorithm identifier
/// whose NULL parameters are absent.
pub static RSA_PKCS1_2048_8192_SHA256_ABSENT_PARAMS: &dyn SignatureVerificationAlgorithm = &rsa(
    RSA_PKCS1_SHA256_ABSENT_PARAMS,
    Padding::Pkcs1,
    HashAlg::Sha256,
);
/// [`RSA_PKCS1_2048_8192_SHA384`] for a signature algorithm identifier
/// whose NULL parameters are absent.
pub static RSA_PKCS1_2048_8192_SHA384_ABSENT_PARAMS: &dyn SignatureVerificationAlgorithm = &rsa(
    RSA_PKCS1_SHA384_ABSENT_PARAMS,
    Padding::Pkcs1,
    HashAlg::Sha384,
);
/// [`RSA_PKCS1_2048_8192_SHA512`] for a signature algorithm identifier
/// whose NULL parameters are absent.
pub static RSA_PKCS1_2048_8192_SHA512_ABSENT_PARAMS: &dyn SignatureVerificationAlgorithm = &rsa(
    RSA_PKCS1_SHA512_ABSENT_PARAMS,
    Padding::Pkcs1,
    HashAlg::Sha512,
);
/// PSS with SHA-256 (MGF1-SHA-256, 32-byte salt), `rsaEncryption` keys of
/// 2048 to 8192 bits (TLS's `rsa_pss_rsae_sha256`).
pub static RSA_PSS_2048_8192_SHA256_LEGACY_KEY: &dyn SignatureVerificationAlgorithm =
    &rsa(alg_id::RSA_PSS_SHA256, Padding::Pss, HashAlg::Sha256);
/// PSS with SHA-384 (MGF1-SHA-384, 48-byte salt), `rsaEncryption` keys of
/// 2048 to 8192 bits.
pub static RSA_PSS_2048_8192_SHA384_LEGACY_KEY: &dyn SignatureVerificationAlgorithm =
    &rsa(alg_id::RSA_PSS_SHA384, Padding::Pss, HashAlg::Sha384);
/// PSS with SHA-512 (MGF1-SHA-512, 64-byte salt), `rsaEncryption` keys of
/// 2048 to 8192 bits.
pub static RSA_PSS_2048_8192_SHA512_LEGACY_KEY: &dyn SignatureVerificationAlgorithm =
    &rsa(alg_id::RSA_PSS_SHA512, Padding::Pss, HashAlg::Sha512);

/// PSS with SHA-256 by an RSA-PSS key restricted to exactly that
/// (its parameters are `alg_id::RSA_PSS_SHA256`'s).
pub static RSA_PSS_2048_8192_SHA256_PSS_KEY: &dyn SignatureVerificationAlgorithm = &pss_key(
    alg_id::RSA_PSS_SHA256,
    alg_id::RSA_PSS_SHA256,
    HashAlg::Sha256,
);
/// PSS with SHA-384 by an RSA-PSS key restricted to exactly that.
pub static RSA_PSS_2048_8192_SHA384_PSS_KEY: &dyn SignatureVerificationAlgorithm = &pss_key(
    alg_id::RSA_PSS_SHA384,
    alg_id::RSA_PSS_SHA384,
    HashAlg::Sha384,
);
/// PSS with SHA-512 by an RSA-PSS key restricted to exactly that.
pub static RSA_PSS_2048_8192_SHA512_PSS_KEY: &dyn SignatureVerificationAlgorithm = &pss_key(
    alg_id::RSA_PSS_SHA512,
    alg_id::RSA_PSS_SHA512,
    HashAlg::Sha512,
);
/// PSS with SHA-256 by an RSA-PSS key without parameters.
pub static RSA_PSS_2048_8192_SHA256_ANY_PSS_KEY: &dyn SignatureVerificationAlgorithm = &pss_key(
    RSASSA_PSS_ABSENT_PARAMS,
    alg_id::RSA_PSS_SHA256,
    HashAlg::Sha256,
);
/// PSS with SHA-384 by an RSA-PSS key without parameters.
pub static RSA_PSS_2048_8192_SHA384_ANY_PSS_KEY: &dyn SignatureVerificationAlgorithm = &pss_key(
    RSASSA_PSS_ABSENT_PARAMS,
    alg_id::RSA_PSS_SHA384,
    HashAlg::Sha384,
);
/// PSS with SHA-512 by an RSA-PSS key without parameters.
pub static RSA_PSS_2048_8192_SHA512_ANY_PSS_KEY: &dyn SignatureVerificationAlgorithm = &pss_key(
    RSASSA_PSS_ABSENT_PARAMS,
    alg_id::RSA_PSS_SHA512,
    HashAlg::Sha512,
);

/// Every `rsaEncryption` algorithm: what replaces the base's.
pub(crate) static RSA_ENCRYPTION: [&dyn SignatureVerificationAlgorithm; 9] = [
    RSA_PKCS1_2048_8192_SHA256,
    RSA_PKCS1_2048_8192_SHA384,
    RSA_PKCS1_2048_8192_SHA512,
    RSA_PKCS1_2048_8192_SHA256_ABSENT_PARAMS,
    RSA_PKCS1_2048_8192_SHA384_ABSENT_PARAMS,
    RSA_PKCS1_2048_8192_SHA512_ABSENT_PARAMS,
    RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
    RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
    RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
];

/// The RSA-PSS key algorithms by their hash: what the provider adds.
pub(crate) static RSA_PSS_KEYS: [(HashAlg, &dyn SignatureVerificationAlgorithm); 6] = [
    (HashAlg::Sha256, RSA_PSS_2048_8192_SHA256_PSS_KEY),
    (HashAlg::Sha256, RSA_PSS_2048_8192_SHA256_ANY_PSS_KEY),
    (HashAlg::Sha384, RSA_PSS_2048_8192_SHA384_PSS_KEY),
    (HashAlg::Sha384, RSA_PSS_2048_8192_SHA384_ANY_PSS_KEY),
    (HashAlg::Sha512, RSA_PSS_2048_8192_SHA512_PSS_KEY),
    (HashAlg::Sha512, RSA_PSS_2048_8192_SHA512_ANY_PSS_KEY),
];
