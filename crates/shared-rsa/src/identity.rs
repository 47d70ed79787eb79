//! Each party's own identity: a key and a self-signed certificate that
//! the party makes on its own machine ([`PartyIdentity::generate`], what
//! `numcrypt shared-rsa identity` writes) and the other parties pin. The
//! key authenticates the party's TLS connections and signs its partial
//! signatures ([`IdentityKey`]); the certificates, recorded in the shared
//! public key, let anyone check who made a partial signature.
//!
//! The keys are `rcgen`'s (ECDSA P-256) and the signatures `rustls`'s
//! signers over its default provider (AWS-LC), verified with `webpki`,
//! with the TLS 1.3 signature schemes: whatever TLS key a party has
//! (ECDSA, Ed25519, RSA) signs as it would in a handshake.

use std::sync::Arc;
use std::time::Duration;

use rustls::SignatureScheme;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::SigningKey;
use zeroize::Zeroizing;

use crate::Error;
use crate::transport::{TlsConfig, TlsPeer, fingerprint, party_name};

/// The signature schemes an identity key may sign with: TLS 1.3's.
const SCHEMES: [SignatureScheme; 7] = [
    SignatureScheme::ECDSA_NISTP256_SHA256,
    SignatureScheme::ECDSA_NISTP384_SHA384,
    SignatureScheme::ECDSA_NISTP521_SHA512,
    SignatureScheme::ED25519,
    SignatureScheme::RSA_PSS_SHA256,
    SignatureScheme::RSA_PSS_SHA384,
    SignatureScheme::RSA_PSS_SHA512,
];

/// One party's identity, made on its own machine: its private key (never
/// to leave that machine) and its self-signed certificate for
/// [`party_name`] (what the other parties pin, by its SHA-256).
pub struct PartyIdentity {
    index: usize,
    /// The certificate (PEM), self-signed, for [`party_name`]`(index)`:
    /// public, for whoever assembles the deployment.
    pub certificate_pem: String,
    /// The private key (PKCS#8 PEM): secret.
    pub private_key_pem: Zeroizing<String>,
    /// The SHA-256 of the certificate (DER), what peers pin.
    pub fingerprint: [u8; 32],
}

fn rcgen_error(e: rcgen::Error) -> Error {
    Error::InvalidConfig(format!("making a TLS identity: {e}"))
}

fn pem_error(e: rustls::pki_types::pem::Error) -> Error {
    Error::InvalidEncoding(e.to_string())
}

impl PartyIdentity {
    /// A fresh ECDSA P-256 key and a self-signed certificate for party
    /// `index` (0-based), valid for ten years from now (a pinned
    /// certificate is trusted for itself, not for its dates).
    pub fn generate(index: usize) -> Result<Self, Error> {
        use rcgen::{
            CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, KeyPair,
            KeyUsagePurpose,
        };
        if index >= crate::MAX_PARTIES {
            return Err(Error::InvalidConfig(format!(
                "party {}: at most {} parties",
                index + 1,
                crate::MAX_PARTIES
            )));
        }
        let key = KeyPair::generate().map_err(rcgen_error)?;
        let mut params = CertificateParams::new(vec![party_name(index)]).map_err(rcgen_error)?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, party_name(index));
        params.distinguished_name = name;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::days(1);
        params.not_after = now + time::Duration::days(3653);
        let cert = params.self_signed(&key).map_err(rcgen_error)?;
        Ok(Self {
            index,
            fingerprint: fingerprint(cert.der()),
            certificate_pem: cert.pem(),
            private_key_pem: Zeroizing::new(key.serialize_pem()),
        })
    }

    /// The party's index (0-based).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The certificate, DER.
    pub fn certificate_der(&self) -> Result<Vec<u8>, Error> {
        Ok(
            CertificateDer::from_pem_slice(self.certificate_pem.as_bytes())
                .map_err(pem_error)?
                .to_vec(),
        )
    }

    /// The key, to sign partial signatures with.
    pub fn identity_key(&self) -> Result<IdentityKey, Error> {
        IdentityKey::from_pem(&self.private_key_pem)
    }

    /// This party's [`TlsConfig`] among `parties` (every party in index
    /// order, this one included, each with its pinned fingerprint), with
    /// `timeout` for connections and messages.
    pub fn tls_config(&self, parties: Vec<TlsPeer>, timeout: Duration) -> Result<TlsConfig, Error> {
        Ok(TlsConfig {
            index: self.index,
            parties,
            certificate: vec![
                CertificateDer::from_pem_slice(self.certificate_pem.as_bytes())
                    .map_err(pem_error)?,
            ],
            private_key: PrivateKeyDer::from_pem_slice(self.private_key_pem.as_bytes())
                .map_err(pem_error)?,
            ca: None,
            listen: None,
            timeout,
            handshake_timeout: timeout.min(Duration::from_secs(10)),
        })
    }
}

/// A party's identity key, to sign its partial signatures with (its TLS
/// private key).
#[derive(Clone)]
pub struct IdentityKey {
    key: Arc<dyn SigningKey>,
}

impl std::fmt::Debug for IdentityKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityKey").finish_non_exhaustive()
    }
}

impl IdentityKey {
    /// Reads a private key from PEM (PKCS#8, SEC1 or PKCS#1).
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        let der = PrivateKeyDer::from_pem_slice(pem.as_bytes()).map_err(pem_error)?;
        Self::from_der(&der)
    }

    /// A private key in DER.
    pub fn from_der(der: &PrivateKeyDer<'_>) -> Result<Self, Error> {
        let key = rustls::crypto::aws_lc_rs::sign::any_supported_type(der)
            .map_err(|e| Error::InvalidEncoding(format!("identity key: {e}")))?;
        if key.choose_scheme(&SCHEMES).is_none() {
            return Err(Error::InvalidEncoding(
                "identity key: no TLS 1.3 signature scheme for it".into(),
            ));
        }
        Ok(Self { key })
    }

    /// Signs `message` with one of the TLS 1.3 schemes the key supports.
    pub(crate) fn sign(&self, message: &[u8]) -> Result<IdentitySignature, Error> {
        let signer = self
            .key
            .choose_scheme(&SCHEMES)
            .ok_or(Error::InvalidInput("the identity key cannot sign"))?;
        let signature = signer
            .sign(message)
            .map_err(|_| Error::InvalidInput("the identity key failed to sign"))?;
        Ok(IdentitySignature {
            scheme: u16::from(signer.scheme()),
            signature,
        })
    }

    /// Whether this is the key of `certificate` (DER): a signature by it
    /// verifies under the certificate.
    pub fn matches(&self, certificate: &[u8]) -> bool {
        const PROBE: &[u8] = b"numcrypt shared-rsa: does this key match this certificate?";
        self.sign(PROBE).is_ok_and(|s| s.verify(certificate, PROBE))
    }
}

/// A signature by a party's identity key: the TLS 1.3 signature scheme
/// (its IANA number) and the signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdentitySignature {
    /// The `SignatureScheme` (TLS 1.3) as its number.
    pub scheme: u16,
    /// The signature.
    pub signature: Vec<u8>,
}

impl IdentitySignature {
    /// Whether this verifies on `message` under the key of `certificate`
    /// (DER), with a TLS 1.3 scheme.
    pub(crate) fn verify(&self, certificate: &[u8], message: &[u8]) -> bool {
        let scheme = SignatureScheme::from(self.scheme);
        if !SCHEMES.contains(&scheme) {
            return false;
        }
        let algorithms = rustls::crypto::aws_lc_rs::default_provider()
            .signature_verification_algorithms
            .mapping;
        let Some(algorithm) = algorithms
            .iter()
            .find(|(s, _)| *s == scheme)
            .and_then(|(_, a)| a.first())
        else {
            return false;
        };
        let der = CertificateDer::from(certificate);
        webpki::EndEntityCert::try_from(&der).is_ok_and(|cert| {
            cert.verify_signature(*algorithm, message, &self.signature)
                .is_ok()
        })
    }
}

/// The one certificate in a PEM text (what `tls-cert.pem` holds), DER.
pub fn certificate_from_pem(pem: &str) -> Result<Vec<u8>, Error> {
    let mut certs = CertificateDer::pem_slice_iter(pem.as_bytes());
    match (certs.next(), certs.next()) {
        (Some(cert), None) => Ok(cert.map_err(pem_error)?.to_vec()),
        _ => Err(Error::InvalidEncoding(
            "expected exactly one CERTIFICATE".into(),
        )),
    }
}

/// Whether `certificate` (DER) parses and names party `index` (0-based).
pub fn names_party(certificate: &[u8], index: usize) -> bool {
    let der = CertificateDer::from(certificate);
    let Ok(name) = rustls::pki_types::ServerName::try_from(party_name(index)) else {
        return false;
    };
    webpki::EndEntityCert::try_from(&der)
        .is_ok_and(|cert| cert.verify_is_valid_for_subject_name(&name).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_signs_and_its_certificate_verifies() {
        let one = PartyIdentity::generate(0).unwrap();
        let two = PartyIdentity::generate(1).unwrap();
        let (cert_one, cert_two) = (
            one.certificate_der().unwrap(),
            two.certificate_der().unwrap(),
        );
        assert!(names_party(&cert_one, 0) && !names_party(&cert_one, 1));
        let key = one.identity_key().unwrap();
        assert!(key.matches(&cert_one) && !key.matches(&cert_two));
        let sig = key.sign(b"m").unwrap();
        assert_eq!(
            sig.scheme,
            u16::from(SignatureScheme::ECDSA_NISTP256_SHA256)
        );
        assert!(sig.verify(&cert_one, b"m"));
        assert!(!sig.verify(&cert_one, b"n"));
        assert!(!sig.verify(&cert_two, b"m"));
        assert!(!sig.verify(b"not a certificate", b"m"));
        let legacy = IdentitySignature {
            scheme: u16::from(SignatureScheme::ECDSA_SHA1_Legacy),
            ..sig
        };
        assert!(!legacy.verify(&cert_one, b"m"), "only TLS 1.3 schemes");
        assert_eq!(fingerprint(&cert_one), one.fingerprint);
        assert!(
            IdentityKey::from_pem("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n")
                .is_err()
        );
    }
}
