//! TLS credentials for a set of parties: a private CA and one key and
//! certificate per party (`rcgen`), as `numcrypt shared-rsa init` writes
//! them and the tests and the demo use them.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::time::Duration;
use zeroize::Zeroizing;

use crate::Error;
use crate::transport::{TlsConfig, TlsPeer, fingerprint, party_name};

/// One party's TLS key and certificate.
pub struct PartyCredentials {
    /// The certificate (PEM), issued by the CA for [`party_name`].
    pub certificate_pem: String,
    /// The private key (PKCS#8 PEM): secret.
    pub private_key_pem: Zeroizing<String>,
    /// The SHA-256 of the certificate (DER), to pin it.
    pub fingerprint: [u8; 32],
}

/// A CA certificate and every party's credentials. The CA's private key is
/// not kept: nobody can issue another party's certificate afterwards.
pub struct Credentials {
    /// The CA certificate (PEM): public, every party trusts it.
    pub ca_certificate_pem: String,
    /// Party `i`'s credentials at index `i`.
    pub parties: Vec<PartyCredentials>,
}

fn tls_error(e: rcgen::Error) -> Error {
    Error::InvalidConfig(format!("making TLS credentials: {e}"))
}

/// A fresh CA (ECDSA P-256) and a key and certificate for each of `parties`
/// parties, valid for ten years from now.
pub fn issue_credentials(parties: usize) -> Result<Credentials, Error> {
    use rcgen::{
        BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose,
        IsCa, KeyPair, KeyUsagePurpose,
    };
    let now = time::OffsetDateTime::now_utc();
    let validity = |p: &mut CertificateParams| {
        p.not_before = now - time::Duration::days(1);
        p.not_after = now + time::Duration::days(3653);
    };
    let ca_key = KeyPair::generate().map_err(tls_error)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(tls_error)?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, "numcrypt shared-rsa CA");
    ca_params.distinguished_name = name;
    validity(&mut ca_params);
    let ca = ca_params.self_signed(&ca_key).map_err(tls_error)?;
    let parties = (0..parties)
        .map(|i| {
            let key = KeyPair::generate().map_err(tls_error)?;
            let mut params = CertificateParams::new(vec![party_name(i)]).map_err(tls_error)?;
            let mut name = DistinguishedName::new();
            name.push(DnType::CommonName, party_name(i));
            params.distinguished_name = name;
            params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
            params.extended_key_usages = vec![
                ExtendedKeyUsagePurpose::ServerAuth,
                ExtendedKeyUsagePurpose::ClientAuth,
            ];
            validity(&mut params);
            let cert = params.signed_by(&key, &ca, &ca_key).map_err(tls_error)?;
            Ok(PartyCredentials {
                fingerprint: fingerprint(cert.der()),
                certificate_pem: cert.pem(),
                private_key_pem: Zeroizing::new(key.serialize_pem()),
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(Credentials {
        ca_certificate_pem: ca.pem(),
        parties,
    })
}

impl Credentials {
    /// Party `index`'s [`TlsConfig`] for the parties at `addresses`,
    /// trusting through the CA and pinning every fingerprint (what `init`'s
    /// files say), with `timeout` for connections and messages.
    pub fn tls_config(
        &self,
        index: usize,
        addresses: &[String],
        timeout: Duration,
    ) -> Result<TlsConfig, Error> {
        let me = self
            .parties
            .get(index)
            .ok_or_else(|| Error::InvalidConfig(format!("no party {}", index + 1)))?;
        let bad = |e: rustls::pki_types::pem::Error| Error::InvalidConfig(e.to_string());
        Ok(TlsConfig {
            index,
            parties: addresses
                .iter()
                .zip(&self.parties)
                .map(|(address, p)| TlsPeer {
                    address: address.clone(),
                    fingerprint: Some(p.fingerprint),
                })
                .collect(),
            certificate: vec![
                CertificateDer::from_pem_slice(me.certificate_pem.as_bytes()).map_err(bad)?,
            ],
            private_key: PrivateKeyDer::from_pem_slice(me.private_key_pem.as_bytes())
                .map_err(bad)?,
            ca: Some(
                CertificateDer::from_pem_slice(self.ca_certificate_pem.as_bytes()).map_err(bad)?,
            ),
            listen: None,
            timeout,
            handshake_timeout: timeout.min(Duration::from_secs(10)),
        })
    }
}
