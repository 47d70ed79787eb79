//! The base providers, and the provider made of one of them with numcrypt's
//! RSA in place of its own.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::crypto::{CryptoProvider, KeyProvider};
use rustls::pki_types::{PrivateKeyDer, alg_id};
use rustls::sign::SigningKey;

use crate::algorithms;
use crate::sign;

/// A base provider: where everything but RSA comes from. Also the
/// provider's [`KeyProvider`]: RSA keys to numcrypt, the rest to the base.
pub(crate) struct Base {
    name: &'static str,
    make: fn() -> CryptoProvider,
    /// The base's verification algorithms with numcrypt's RSA, made once
    /// (rustls wants `'static` tables).
    algorithms: OnceLock<WebPkiSupportedAlgorithms>,
}

#[cfg(feature = "aws-lc-rs")]
pub(crate) static AWS_LC_RS: Base = Base {
    name: "aws-lc-rs",
    make: rustls::crypto::aws_lc_rs::default_provider,
    algorithms: OnceLock::new(),
};

#[cfg(feature = "ring")]
pub(crate) static RING: Base = Base {
    name: "ring",
    make: rustls::crypto::ring::default_provider,
    algorithms: OnceLock::new(),
};

impl Base {
    /// The base provider with numcrypt's RSA signing keys and verification.
    pub(crate) fn provider(&'static self) -> CryptoProvider {
        CryptoProvider {
            signature_verification_algorithms: *self.algorithms.get_or_init(|| {
                with_numcrypt_rsa(&(self.make)().signature_verification_algorithms)
            }),
            key_provider: self,
            ..(self.make)()
        }
    }
}

impl fmt::Debug for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "numcrypt RSA keys, other keys by {}", self.name)
    }
}

impl KeyProvider for Base {
    fn load_private_key(
        &self,
        key_der: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn SigningKey>, rustls::Error> {
        if sign::is_rsa(&key_der) {
            Ok(Arc::new(sign::RsaSigningKey::from_der(key_der)?))
        } else {
            (self.make)().key_provider.load_private_key(key_der)
        }
    }
}

/// `base` with every RSA algorithm it lists (an `rsaEncryption` public key
/// and a signature algorithm numcrypt has) replaced by numcrypt's, and the
/// RSA-PSS public keys' algorithms added: to the chain list, and after the
/// `rsaEncryption` algorithm of each PSS scheme (TLS 1.2 tries each
/// algorithm of a scheme in turn, TLS 1.3 only the first, as the base).
/// The schemes and their order stay the base's. Built once per base.
fn with_numcrypt_rsa(base: &WebPkiSupportedAlgorithms) -> WebPkiSupportedAlgorithms {
    type Alg = &'static dyn rustls::pki_types::SignatureVerificationAlgorithm;
    let replace = |alg: Alg| -> Alg {
        if alg.public_key_alg_id() != alg_id::RSA_ENCRYPTION {
            return alg;
        }
        algorithms::RSA_ENCRYPTION
            .iter()
            .copied()
            .find(|ours| ours.signature_alg_id() == alg.signature_alg_id())
            .unwrap_or(alg)
    };
    let mut all: Vec<Alg> = base.all.iter().copied().map(replace).collect();
    all.extend(algorithms::RSA_PSS_KEYS.iter().map(|&(_, alg)| alg));
    let mapping = base
        .mapping
        .iter()
        .map(|&(scheme, algs)| {
            let mut ours: Vec<Alg> = algs.iter().copied().map(replace).collect();
            if let Some(sign::Scheme::Pss(hash)) = sign::Scheme::of(scheme) {
                ours.extend(
                    algorithms::RSA_PSS_KEYS
                        .iter()
                        .filter(|&&(h, _)| h == hash)
                        .map(|&(_, alg)| alg),
                );
            }
            (scheme, &*Vec::leak(ours))
        })
        .collect::<Vec<_>>();
    WebPkiSupportedAlgorithms {
        all: Vec::leak(all),
        mapping: Vec::leak(mapping),
    }
}

#[cfg(test)]
mod tests {
    use std::ptr;

    use super::*;

    /// The ring base, whatever this crate's features (the tests have ring
    /// through rustls' dev-dependency features).
    static RING_BASE: Base = Base {
        name: "ring",
        make: rustls::crypto::ring::default_provider,
        algorithms: OnceLock::new(),
    };

    static AWS_LC_RS_BASE: Base = Base {
        name: "aws-lc-rs",
        make: rustls::crypto::aws_lc_rs::default_provider,
        algorithms: OnceLock::new(),
    };

    /// Every `rsaEncryption` algorithm of the base is replaced by
    /// numcrypt's with the same identifiers, everything else is the base's
    /// own object, and the RSA-PSS key algorithms follow each PSS scheme's.
    #[test]
    fn each_base_keeps_its_tables_but_rsa() {
        for base in [&RING_BASE, &AWS_LC_RS_BASE] {
            let ours = base.provider().signature_verification_algorithms;
            let theirs = (base.make)().signature_verification_algorithms;
            assert_eq!(ours.supported_schemes(), theirs.supported_schemes());
            for ((scheme, o), (_, t)) in ours.mapping.iter().zip(theirs.mapping) {
                for (o, t) in o.iter().zip(t.iter()) {
                    assert_eq!(o.signature_alg_id(), t.signature_alg_id());
                    assert_eq!(o.public_key_alg_id(), t.public_key_alg_id());
                    let numcrypt = format!("{o:?}").starts_with("numcrypt RSA");
                    assert_eq!(
                        numcrypt,
                        t.public_key_alg_id() == alg_id::RSA_ENCRYPTION,
                        "{scheme:?}"
                    );
                    assert!(numcrypt || ptr::addr_eq(*o, *t), "{scheme:?}");
                }
                let added = if sign::Scheme::of(*scheme)
                    .is_some_and(|s| matches!(s, sign::Scheme::Pss(_)))
                {
                    2
                } else {
                    0
                };
                assert_eq!(o.len(), t.len() + added, "{scheme:?}");
            }
            assert_eq!(ours.all.len(), theirs.all.len() + 6, "{}", base.name);
        }
    }
}
