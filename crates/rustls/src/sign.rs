//! RSA signing keys for rustls, signing with numcrypt.
//!
//! The private operation is reached through one seam, [`DigestSigner`]
//! (made in [`digest_signer`]): "sign this digest under this scheme".
//! Today it is the key itself, one blinded, fault-checked signature per
//! call; a signer that batches concurrent requests (issue 33) implements
//! the same trait and is made there instead, and nothing else changes.

use std::fmt;
use std::sync::Arc;

use numcrypt_rsa::der::Decode;
use numcrypt_rsa::der::asn1::ObjectIdentifier;
use numcrypt_rsa::pkcs8::PrivateKeyInfoRef;
use numcrypt_rsa::{HashAlg, KeyAlgorithm, RsaPrivateKey, pss};
use rustls::pki_types::{PrivateKeyDer, SubjectPublicKeyInfoDer};
use rustls::sign::{Signer, SigningKey};
use rustls::{SignatureAlgorithm, SignatureScheme};
use zeroize::Zeroizing;

use crate::Error;

/// `id-RSASSA-PSS` (RFC 4055).
const RSASSA_PSS: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");

/// An RSA signature scheme of TLS, as numcrypt signs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// RSASSA-PKCS1-v1_5 with this hash.
    Pkcs1(HashAlg),
    /// RSASSA-PSS with this hash for the message and MGF1, and a salt as
    /// long as the digest (RFC 8446 §4.2.3).
    Pss(HashAlg),
}

/// A TLS RSA signature scheme: its code point, how numcrypt signs it, and
/// whether it is one of the `rsa_pss_pss_*` code points, which RFC 8446
/// reserves for RSA-PSS (`id-RSASSA-PSS`) keys.
struct TlsScheme {
    code: u16,
    scheme: Scheme,
    pss_key: bool,
}

const fn tls(code: u16, scheme: Scheme, pss_key: bool) -> TlsScheme {
    TlsScheme {
        code,
        scheme,
        pss_key,
    }
}

/// In order of preference: for `rsaEncryption` keys, the order of rustls'
/// own providers (`rsa_pss_rsae_*`, then PKCS#1 v1.5, strongest hash
/// first); RSA-PSS keys offer `rsa_pss_pss_*` first (rustls has no names
/// for them: `SignatureScheme::from(0x0809)`, …), then `rsa_pss_rsae_*`,
/// the only PSS code points rustls peers offer.
const SCHEMES: [TlsScheme; 9] = [
    tls(0x080b, Scheme::Pss(HashAlg::Sha512), true),
    tls(0x080a, Scheme::Pss(HashAlg::Sha384), true),
    tls(0x0809, Scheme::Pss(HashAlg::Sha256), true),
    tls(0x0806, Scheme::Pss(HashAlg::Sha512), false),
    tls(0x0805, Scheme::Pss(HashAlg::Sha384), false),
    tls(0x0804, Scheme::Pss(HashAlg::Sha256), false),
    tls(0x0601, Scheme::Pkcs1(HashAlg::Sha512), false),
    tls(0x0501, Scheme::Pkcs1(HashAlg::Sha384), false),
    tls(0x0401, Scheme::Pkcs1(HashAlg::Sha256), false),
];

impl Scheme {
    /// The numcrypt form of a TLS RSA scheme.
    pub(crate) fn of(scheme: SignatureScheme) -> Option<Scheme> {
        let code = u16::from(scheme);
        SCHEMES.iter().find(|s| s.code == code).map(|s| s.scheme)
    }

    fn hash(self) -> HashAlg {
        match self {
            Scheme::Pkcs1(hash) | Scheme::Pss(hash) => hash,
        }
    }

    /// Whether a key of this algorithm may sign with the scheme: any for
    /// `rsaEncryption`; PSS only for RSA-PSS keys, and with parameters only
    /// their hash (for message and MGF1) with a digest-long salt at least
    /// their minimum.
    fn allowed_for(self, algorithm: KeyAlgorithm) -> bool {
        match (self, algorithm) {
            (_, KeyAlgorithm::Rsa) => true,
            (Scheme::Pkcs1(_), KeyAlgorithm::RsaPss(_)) => false,
            (Scheme::Pss(_), KeyAlgorithm::RsaPss(None)) => true,
            (Scheme::Pss(hash), KeyAlgorithm::RsaPss(Some(r))) => {
                r.hash == hash && r.mgf1_hash == hash && hash.output_len() >= r.min_salt_len
            }
        }
    }
}

impl TlsScheme {
    fn offered_by(&self, algorithm: KeyAlgorithm) -> bool {
        let pss_key = matches!(algorithm, KeyAlgorithm::RsaPss(_));
        (pss_key || !self.pss_key) && self.scheme.allowed_for(algorithm)
    }
}

/// Signs a digest under a scheme: the one path from a TLS signature to
/// numcrypt's private operation (see the module's documentation).
pub(crate) trait DigestSigner: Send + Sync {
    /// The signature of `digest` (of the scheme's hash) under `scheme`.
    fn sign_digest(&self, scheme: Scheme, digest: &[u8]) -> Result<Vec<u8>, Error>;
}

/// The signer a key signs through. Issue 33's self-batching signer is made
/// here.
fn digest_signer(key: RsaPrivateKey) -> Arc<dyn DigestSigner> {
    Arc::new(key)
}

/// One blinded, fault-checked signature per call, blinding and salt from
/// the operating system's generator (a failure of it is
/// `Error::Sign(numcrypt_rsa::Error::Rng)`, and nothing is signed).
impl DigestSigner for RsaPrivateKey {
    fn sign_digest(&self, scheme: Scheme, digest: &[u8]) -> Result<Vec<u8>, Error> {
        let mut rng = getrandom::SysRng;
        match scheme {
            Scheme::Pkcs1(hash) => self.sign_pkcs1v15_prehashed(&mut rng, hash, digest),
            Scheme::Pss(hash) => {
                self.sign_pss_prehashed_with(&mut rng, &pss::Params::new(hash), digest)
            }
        }
        .map_err(Error::Sign)
    }
}

/// Whether a private key is numcrypt's to load: PKCS#1, or PKCS#8 with an
/// `rsaEncryption` or `id-RSASSA-PSS` algorithm.
pub(crate) fn is_rsa(der: &PrivateKeyDer<'_>) -> bool {
    match der {
        PrivateKeyDer::Pkcs1(_) => true,
        PrivateKeyDer::Pkcs8(key) => {
            PrivateKeyInfoRef::from_der(key.secret_pkcs8_der()).is_ok_and(|info| {
                info.algorithm.oid == numcrypt_rsa::pkcs1::ALGORITHM_OID
                    || info.algorithm.oid == RSASSA_PSS
            })
        }
        _ => false,
    }
}

/// An RSA private key as a rustls [`SigningKey`]: numcrypt signs every
/// handshake signature. The provider's key provider makes these from
/// PKCS#1 and PKCS#8 keys; [`RsaSigningKey::new`] makes one from a key in
/// hand (for a `rustls::sign::CertifiedKey` of your own).
pub struct RsaSigningKey {
    signer: Arc<dyn DigestSigner>,
    /// What the key may sign with, in order of preference.
    offers: Vec<(SignatureScheme, Scheme)>,
    /// The SubjectPublicKeyInfo, as the certificate should carry it.
    spki: Vec<u8>,
    bits: u32,
    algorithm: KeyAlgorithm,
}

impl RsaSigningKey {
    /// A signing key for `key`. Errors: [`Error::Key`] with `WeakKey`
    /// below 2048 bits (numcrypt's floor for signing) unless the key
    /// carries [`RsaPrivateKey::allow_weak_key`], [`Error::NoTlsScheme`]
    /// for an RSA-PSS key whose parameters allow no TLS scheme.
    pub fn new(key: RsaPrivateKey) -> Result<Self, Error> {
        let public = key.public_key();
        let bits = public.bits();
        if bits < numcrypt_rsa::MIN_PRIVATE_MODULUS_BITS && !key.allows_weak_key() {
            return Err(Error::Key(numcrypt_rsa::Error::WeakKey {
                bits,
                min: numcrypt_rsa::MIN_PRIVATE_MODULUS_BITS,
            }));
        }
        let algorithm = public.algorithm();
        let offers: Vec<_> = SCHEMES
            .iter()
            .filter(|s| s.offered_by(algorithm))
            .map(|s| (SignatureScheme::from(s.code), s.scheme))
            .collect();
        if offers.is_empty() {
            return Err(Error::NoTlsScheme);
        }
        let spki = public.to_public_key_der().map_err(Error::Key)?;
        Ok(Self {
            signer: digest_signer(key),
            offers,
            spki,
            bits,
            algorithm,
        })
    }

    /// Reads a PKCS#1 or PKCS#8 RSA key (see [`is_rsa`]), wiping the
    /// encoding afterwards.
    pub(crate) fn from_der(der: PrivateKeyDer<'static>) -> Result<Self, Error> {
        let der = Zeroizing::new(der);
        let key = match &*der {
            PrivateKeyDer::Pkcs1(k) => RsaPrivateKey::from_pkcs1_der(k.secret_pkcs1_der()),
            PrivateKeyDer::Pkcs8(k) => RsaPrivateKey::from_pkcs8_der(k.secret_pkcs8_der()),
            _ => Err(numcrypt_rsa::Error::UnsupportedKeyFormat),
        }
        .map_err(Error::Key)?;
        Self::new(key)
    }

    /// The schemes the key signs with, in order of preference: the first
    /// of these that the peer offers is used.
    pub fn schemes(&self) -> Vec<SignatureScheme> {
        self.offers.iter().map(|&(scheme, _)| scheme).collect()
    }
}

impl SigningKey for RsaSigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        let &(scheme, ours) = self.offers.iter().find(|(s, _)| offered.contains(s))?;
        Some(Box::new(RsaSigner {
            signer: self.signer.clone(),
            scheme,
            ours,
        }))
    }

    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        Some(SubjectPublicKeyInfoDer::from(self.spki.as_slice()))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::RSA
    }
}

impl fmt::Debug for RsaSigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaSigningKey")
            .field("bits", &self.bits)
            .field("algorithm", &self.algorithm)
            .field("schemes", &self.schemes())
            .finish_non_exhaustive()
    }
}

/// A key with the scheme chosen for one handshake.
struct RsaSigner {
    signer: Arc<dyn DigestSigner>,
    scheme: SignatureScheme,
    ours: Scheme,
}

impl Signer for RsaSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        let digest = self.ours.hash().digest(message);
        Ok(self.signer.sign_digest(self.ours, &digest)?)
    }

    fn scheme(&self) -> SignatureScheme {
        self.scheme
    }
}

impl fmt::Debug for RsaSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaSigner")
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}
