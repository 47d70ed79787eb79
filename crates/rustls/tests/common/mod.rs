//! What the tests share: the fixture keys (`tests/data`, see its README),
//! certificates made from them, configurations, an in-memory handshake,
//! and verifiers and keys that force or record a signature scheme.
#![allow(dead_code)] // each test binary uses part of this

mod recorder;

pub use recorder::Recorder;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::{CertifiedKey, Signer, SigningKey};
use rustls::{
    ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection,
    SignatureAlgorithm, SignatureScheme, SupportedProtocolVersion,
};

pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn key_pem(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

/// A fixture key as rustls reads it (PKCS#8, or SEC1 for `ec-p256-sec1`).
pub fn key_der(name: &str) -> PrivateKeyDer<'static> {
    PrivateKeyDer::from_pem_file(data(name)).unwrap()
}

/// The providers under comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// numcrypt's provider on its default base.
    Numcrypt,
    /// rustls' aws-lc-rs provider.
    AwsLcRs,
    /// rustls' ring provider.
    Ring,
}

impl Side {
    pub fn provider(self) -> Arc<CryptoProvider> {
        Arc::new(match self {
            Side::Numcrypt => numcrypt_rustls::provider(),
            Side::AwsLcRs => rustls::crypto::aws_lc_rs::default_provider(),
            Side::Ring => rustls::crypto::ring::default_provider(),
        })
    }
}

pub const TLS13: &[&SupportedProtocolVersion] = &[&rustls::version::TLS13];
pub const TLS12: &[&SupportedProtocolVersion] = &[&rustls::version::TLS12];

/// A CA and a server certificate for `localhost` signed by it, and the
/// server key's name. The CA is `ca.pem`; certificates are PKCS#1 v1.5
/// SHA-256 (rcgen with aws-lc-rs).
pub struct Pki {
    pub ca: CertificateDer<'static>,
    pub chain: Vec<CertificateDer<'static>>,
    pub key: &'static str,
}

fn rcgen_key(name: &str) -> KeyPair {
    KeyPair::from_pem(&key_pem(name)).unwrap()
}

fn ca_params(name: &str) -> CertificateParams {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params
}

fn leaf_params(names: &[&str]) -> CertificateParams {
    let mut params =
        CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
    params.distinguished_name.push(DnType::CommonName, names[0]);
    params
}

/// `ca.pem`'s self-signed certificate, made once per test binary.
fn ca() -> &'static (rcgen::Certificate, KeyPair) {
    static CA: OnceLock<(rcgen::Certificate, KeyPair)> = OnceLock::new();
    CA.get_or_init(|| {
        let key = rcgen_key("ca.pem");
        (
            ca_params("numcrypt test root").self_signed(&key).unwrap(),
            key,
        )
    })
}

/// A certificate for `names` with the key in `key`, issued by the CA.
pub fn issue(key: &'static str, names: &[&str]) -> Pki {
    let (ca_cert, ca_key) = ca();
    let leaf = leaf_params(names)
        .signed_by(&rcgen_key(key), ca_cert, ca_key)
        .unwrap();
    Pki {
        ca: ca_cert.der().clone(),
        chain: vec![leaf.der().clone()],
        key,
    }
}

/// root (`ca.pem`) → intermediate (`intermediate.pem`) → `key`'s leaf.
pub fn issue_via_intermediate(key: &'static str) -> Pki {
    let (ca_cert, ca_key) = ca();
    let inter_key = rcgen_key("intermediate.pem");
    let inter = ca_params("numcrypt test intermediate")
        .signed_by(&inter_key, ca_cert, ca_key)
        .unwrap();
    let leaf = leaf_params(&["localhost"])
        .signed_by(&rcgen_key(key), &inter, &inter_key)
        .unwrap();
    Pki {
        ca: ca_cert.der().clone(),
        chain: vec![leaf.der().clone(), inter.der().clone()],
        key,
    }
}

pub fn roots(ca: &CertificateDer<'static>) -> Arc<RootCertStore> {
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone()).unwrap();
    Arc::new(roots)
}

pub fn server_config(
    side: Side,
    versions: &[&'static SupportedProtocolVersion],
    pki: &Pki,
) -> Result<ServerConfig, rustls::Error> {
    ServerConfig::builder_with_provider(side.provider())
        .with_protocol_versions(versions)?
        .with_no_client_auth()
        .with_single_cert(pki.chain.clone(), key_der(pki.key))
}

/// A server that asks for and verifies a client certificate from the CA.
pub fn mtls_server_config(
    side: Side,
    versions: &[&'static SupportedProtocolVersion],
    pki: &Pki,
    client_verifier: Arc<dyn rustls::server::danger::ClientCertVerifier>,
) -> ServerConfig {
    ServerConfig::builder_with_provider(side.provider())
        .with_protocol_versions(versions)
        .unwrap()
        .with_client_cert_verifier(client_verifier)
        .with_single_cert(pki.chain.clone(), key_der(pki.key))
        .unwrap()
}

pub fn client_verifier(
    side: Side,
    ca: &CertificateDer<'static>,
) -> Arc<dyn rustls::server::danger::ClientCertVerifier> {
    WebPkiClientVerifier::builder_with_provider(roots(ca), side.provider())
        .build()
        .unwrap()
}

/// A client trusting `ca`, verifying with `side`'s provider; when `only`
/// is given, it offers the server only that signature scheme.
pub fn client_config(
    side: Side,
    versions: &[&'static SupportedProtocolVersion],
    ca: &CertificateDer<'static>,
    only: Option<SignatureScheme>,
) -> (ClientConfig, Arc<Recorder>) {
    let verifier = Recorder::server(side, ca, only);
    let mut config = ClientConfig::builder_with_provider(side.provider())
        .with_protocol_versions(versions)
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone())
        .with_no_client_auth();
    config.resumption = rustls::client::Resumption::disabled();
    (config, verifier)
}

impl Recorder {
    /// webpki on `side`'s provider, trusting `ca`.
    pub fn server(
        side: Side,
        ca: &CertificateDer<'static>,
        only: Option<SignatureScheme>,
    ) -> Arc<Self> {
        let inner = WebPkiServerVerifier::builder_with_provider(roots(ca), side.provider())
            .build()
            .unwrap();
        Self::new(inner, only)
    }
}

/// Drives a handshake between two connections in memory, passing each
/// flight of the server through `tamper`; then the client sends `ping`
/// and the server answers `pong`. The first error either side reports.
pub fn handshake_with(
    client: &mut ClientConnection,
    server: &mut ServerConnection,
    mut tamper: impl FnMut(&mut Vec<u8>),
) -> Result<(), rustls::Error> {
    use std::io::{Read, Write};
    let mut rounds = 0;
    while client.is_handshaking() || server.is_handshaking() {
        rounds += 1;
        assert!(rounds < 20, "the handshake does not progress");
        let mut flight = Vec::new();
        while client.wants_write() {
            client.write_tls(&mut flight).unwrap();
        }
        feed(server, &flight)?;
        let mut flight = Vec::new();
        while server.wants_write() {
            server.write_tls(&mut flight).unwrap();
        }
        tamper(&mut flight);
        feed(client, &flight)?;
    }
    client.writer().write_all(b"ping").unwrap();
    let mut flight = Vec::new();
    while client.wants_write() {
        client.write_tls(&mut flight).unwrap();
    }
    feed(server, &flight)?;
    let mut got = [0u8; 4];
    server.reader().read_exact(&mut got).unwrap();
    assert_eq!(&got, b"ping");
    Ok(())
}

pub fn handshake(
    client: &mut ClientConnection,
    server: &mut ServerConnection,
) -> Result<(), rustls::Error> {
    handshake_with(client, server, |_| {})
}

fn feed(conn: &mut impl Peer, mut bytes: &[u8]) -> Result<(), rustls::Error> {
    while !bytes.is_empty() {
        conn.read(&mut bytes);
        conn.process()?;
    }
    Ok(())
}

/// Either end of a connection, for [`feed`].
trait Peer {
    fn read(&mut self, bytes: &mut &[u8]);
    fn process(&mut self) -> Result<(), rustls::Error>;
}

macro_rules! peer {
    ($t:ty) => {
        impl Peer for $t {
            fn read(&mut self, bytes: &mut &[u8]) {
                self.read_tls(bytes).unwrap();
            }
            fn process(&mut self) -> Result<(), rustls::Error> {
                self.process_new_packets().map(|_| ())
            }
        }
    };
}
peer!(ClientConnection);
peer!(ServerConnection);

/// A connected pair on two configurations, the client asking for
/// `localhost`.
pub fn pair(client: ClientConfig, server: ServerConfig) -> (ClientConnection, ServerConnection) {
    let name = ServerName::try_from("localhost").unwrap();
    (
        ClientConnection::new(Arc::new(client), name).unwrap(),
        ServerConnection::new(Arc::new(server)).unwrap(),
    )
}

/// A server certificate resolver that serves one chain and key without
/// rustls' check that they match (to serve a wrong key on purpose).
#[derive(Debug)]
pub struct Unchecked(pub Arc<CertifiedKey>);

impl ResolvesServerCert for Unchecked {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// A signing key whose signatures have one bit flipped: a handshake
/// signature tampered with before it is sent (in TLS 1.3 the signature
/// travels encrypted, so this is where a signature can be changed).
#[derive(Debug)]
pub struct FlipSignature(pub Arc<dyn SigningKey>);

#[derive(Debug)]
struct FlippedSigner(Box<dyn Signer>);

impl SigningKey for FlipSignature {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        Some(Box::new(FlippedSigner(self.0.choose_scheme(offered)?)))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        self.0.algorithm()
    }
}

impl Signer for FlippedSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        let mut sig = self.0.sign(message)?;
        let last = sig.len() - 1;
        sig[last] ^= 1;
        Ok(sig)
    }

    fn scheme(&self) -> SignatureScheme {
        self.0.scheme()
    }
}

/// A server configuration serving `chain` with any signing key, unchecked.
pub fn server_config_with_key(
    side: Side,
    versions: &[&'static SupportedProtocolVersion],
    chain: Vec<CertificateDer<'static>>,
    key: Arc<dyn SigningKey>,
) -> ServerConfig {
    ServerConfig::builder_with_provider(side.provider())
        .with_protocol_versions(versions)
        .unwrap()
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(Unchecked(Arc::new(CertifiedKey::new(chain, key)))))
}

/// Flips the last byte of the TLS 1.2 ServerKeyExchange (the end of its
/// signature) in a flight of plaintext records, if the flight has one.
/// Returns whether it did.
pub fn flip_server_key_exchange(flight: &mut [u8]) -> bool {
    // Handshake bytes of the flight, each with its offset in `flight`.
    let mut handshake = Vec::new();
    let mut at = 0;
    while at + 5 <= flight.len() {
        let len = u16::from_be_bytes([flight[at + 3], flight[at + 4]]) as usize;
        let body = at + 5..(at + 5 + len).min(flight.len());
        if flight[at] == 22 {
            handshake.extend(body.clone().map(|i| (flight[i], i)));
        }
        at = body.end;
    }
    let mut m = 0;
    while m + 4 <= handshake.len() {
        let len = u32::from_be_bytes([
            0,
            handshake[m + 1].0,
            handshake[m + 2].0,
            handshake[m + 3].0,
        ]) as usize;
        if handshake[m].0 == 12 && m + 4 + len <= handshake.len() {
            flight[handshake[m + 3 + len].1] ^= 1;
            return true;
        }
        m += 4 + len;
    }
    false
}

/// Whether `binary` (`openssl` or `curl`) runs; if not, prints why the
/// test skips.
pub fn have(binary: &str) -> bool {
    let ok = std::process::Command::new(binary)
        .arg(if binary == "openssl" {
            "version"
        } else {
            "--version"
        })
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: `{binary}` is not installed (CI installs it)");
    }
    ok
}
