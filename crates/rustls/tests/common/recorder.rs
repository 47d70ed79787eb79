//! A webpki server verifier that records the schemes it checked and can
//! restrict the schemes offered to one (as the peer then must sign with
//! it); everything else is webpki's. The tests use it through
//! `tests/common`, the handshake bench (which checks the scheme every
//! provider signs with before timing) by its path.

use std::sync::{Arc, Mutex};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

#[derive(Debug)]
pub struct Recorder {
    inner: Arc<WebPkiServerVerifier>,
    only: Option<SignatureScheme>,
    seen: Mutex<Vec<SignatureScheme>>,
}

impl Recorder {
    /// `inner`, recording, offering only `only` if given.
    pub fn new(inner: Arc<WebPkiServerVerifier>, only: Option<SignatureScheme>) -> Arc<Self> {
        Arc::new(Self {
            inner,
            only,
            seen: Mutex::new(Vec::new()),
        })
    }

    /// The schemes checked since it was made or cleared, in order.
    pub fn seen(&self) -> Vec<SignatureScheme> {
        self.seen.lock().unwrap().clone()
    }

    /// Forgets the schemes checked so far.
    pub fn clear(&self) {
        self.seen.lock().unwrap().clear();
    }
}

impl ServerCertVerifier for Recorder {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.inner
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.seen.lock().unwrap().push(dss.scheme);
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.seen.lock().unwrap().push(dss.scheme);
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        match self.only {
            Some(s) => vec![s],
            None => self.inner.supported_verify_schemes(),
        }
    }
}
