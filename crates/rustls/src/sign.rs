//! RSA signing keys for rustls, signing with numcrypt.
//!
//! Every signature goes through the key's
//! [`BatchSigner`](numcrypt_rsa::batch_signer::BatchSigner): a handshake
//! that signs alone signs at once, one blinded, fault-checked signature;
//! handshakes that sign while another's signature is being made are
//! signed together, their private operations in one batch (eight CRT
//! halves a pass with AVX-512 IFMA), each under the scheme its peer chose.

use std::fmt;
use std::sync::Arc;

use numcrypt_rsa::batch_signer::{BatchSigner, SignatureScheme as BatchScheme};
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

/// The batches a key signs at once: half the cores. The signature is
/// about half of a TLS 1.3 server's time in a handshake, so a server busy
/// with handshakes has about half its cores signing; requests beyond them
/// wait for the next batch, which costs less CPU time a signature than a
/// core each (benches/RESULTS.md, rustls handshakes).
fn signing_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().div_ceil(2))
}

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

    /// The scheme as the batch signer takes it.
    fn batch_scheme(self) -> BatchScheme {
        match self {
            Self::Pkcs1(hash) => BatchScheme::Pkcs1v15(hash),
            Self::Pss(hash) => BatchScheme::Pss(pss::Params::new(hash)),
        }
    }
}

impl TlsScheme {
    /// Whether `key` may sign with the scheme: the `rsa_pss_pss_*` code
    /// points only with an RSA-PSS key, and only what numcrypt signs with
    /// the key (an RSA-PSS key's restrictions on hash, MGF1 and salt; a
    /// salt that fits: PSS with SHA-512 needs more than 1024 bits).
    fn offered_by(&self, key: &RsaPrivateKey) -> bool {
        let pss_key = matches!(key.public_key().algorithm(), KeyAlgorithm::RsaPss(_));
        (pss_key || !self.pss_key) && self.scheme.batch_scheme().check_key(key).is_ok()
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
    signer: Arc<BatchSigner>,
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
            .filter(|s| s.offered_by(&key))
            .map(|s| (SignatureScheme::from(s.code), s.scheme))
            .collect();
        if offers.is_empty() {
            return Err(Error::NoTlsScheme);
        }
        let spki = public.to_public_key_der().map_err(Error::Key)?;
        let signer = BatchSigner::with_scheme(key, offers[0].1.batch_scheme())
            .map_err(Error::Key)?
            .max_concurrent_batches(signing_cores());
        Ok(Self {
            signer: Arc::new(signer),
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
    signer: Arc<BatchSigner>,
    scheme: SignatureScheme,
    ours: Scheme,
}

impl Signer for RsaSigner {
    /// Blinding and salt from the operating system's generator (a
    /// failure of it is `Error::Sign(numcrypt_rsa::Error::Rng)`, and
    /// nothing is signed).
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        let digest = self.ours.hash().digest(message);
        let scheme = self.ours.batch_scheme();
        Ok(self
            .signer
            .sign_prehashed_with(&mut getrandom::SysRng, scheme, &digest)
            .map_err(Error::Sign)?)
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
