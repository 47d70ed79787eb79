//! Mutual TLS 1.3 between parties (`rustls`, its default crypto provider).
//!
//! # Identity and trust
//! Every party makes its own key and certificate on its own machine
//! ([`PartyIdentity::generate`](crate::PartyIdentity::generate), `numcrypt
//! shared-rsa identity`); its subject alternative name is [`party_name`]
//! (`party-<i>.numcrypt-shared-rsa`, 1-based). A party accepts a peer as
//! party `i` only
//! - by `i`'s pinned fingerprint ([`TlsPeer::fingerprint`], the SHA-256 of
//!   its certificate), when one is pinned for `i`: that certificate and no
//!   other, whatever a CA says; or,
//! - with no pin for `i`, by a chain to the deployment's CA
//!   ([`TlsConfig::ca`]) to a certificate that names `i`.
//!
//! Pinning every party is what `numcrypt shared-rsa init` writes. A CA
//! can issue a certificate naming any party, so whoever holds its key can
//! impersonate every party not pinned: use one only if its key was
//! destroyed once the parties' certificates were issued.
//!
//! Party `j` connects to every party `i < j` (verifying `i`'s certificate
//! as `i`'s) and accepts every `k > j`; a connecting party names itself in
//! its first record, and its certificate must be that party's by the rule
//! above.
//!
//! # A network nobody controls
//! - Each incoming connection is handshaken in a thread of its own, with
//!   one overall deadline ([`TlsConfig::handshake_timeout`]) however the
//!   bytes arrive; one that fails or is not a party is dropped, and the
//!   party keeps waiting for the real peers. At most
//!   [`MAX_PENDING_HANDSHAKES`] are in progress at once, and at most
//!   [`MAX_PENDING_PER_ADDRESS`] from one source address (more are closed
//!   at once), so one address cannot take every slot from the parties;
//!   a party that is already connected cannot connect again.
//! - Before authentication nothing is buffered beyond what a TLS handshake
//!   needs (`rustls` bounds it); after it, a frame is at most [`MAX_FRAME`]
//!   bytes, and a peer may have at most [`MAX_QUEUED`] bytes of messages
//!   waiting to be read before it is cut off as misbehaving.
//! - A peer that disconnects makes every receive from it fail with
//!   [`Error::Disconnected`] (naming it), and one that goes silent with
//!   [`Error::Timeout`].
//!
//! # Framing
//! After the handshake the connecting party sends `"NCSRSA02" ‖ index
//! (u16)` and the other answers the same with its own index; then each
//! message is `length (u32, of what follows) ‖ channel (u16) ‖ payload`.

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{
    ClientConfig, ClientConnection, Connection, DigitallySignedStruct, DistinguishedName,
    RootCertStore, ServerConfig, ServerConnection, SignatureScheme,
};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::{Mailbox, ReceivedFrom, Transport};
use crate::Error;

const MAGIC: &[u8; 8] = b"NCSRSA02";
const HELLO_LEN: usize = 8 + 2;
/// The largest message a peer may send (the protocol's largest, a batch
/// of 1024 candidates' shares at 8192 bits, is about 3 MiB).
pub const MAX_FRAME: usize = 16 << 20;
/// The most bytes of a peer's messages waiting to be read before the peer
/// is cut off (each message counted with its bookkeeping): a peer that
/// sends faster than the protocol reads is not following it. It fits the
/// largest valid configuration, 64 lanes each two batches of 1024
/// candidates ahead at 8192 bits (about 385 MiB; a test checks it against
/// the protocol's message sizes).
pub const MAX_QUEUED: usize = 448 << 20;
/// The most bytes waiting to be written to one peer before sending blocks.
const MAX_OUTGOING: usize = 64 << 20;
/// The most incoming handshakes in progress at once.
pub const MAX_PENDING_HANDSHAKES: usize = 64;
/// The most incoming handshakes in progress at once from one source
/// address.
pub const MAX_PENDING_PER_ADDRESS: usize = 8;
/// Bytes a frame adds to its payload: length and channel.
const FRAME_OVERHEAD: usize = 4 + 2;

/// The DNS name in party `index`'s certificate (0-based `index`; the name
/// is 1-based): `party-<index + 1>.numcrypt-shared-rsa`.
pub fn party_name(index: usize) -> String {
    format!("party-{}.numcrypt-shared-rsa", index + 1)
}

/// The SHA-256 fingerprint of a certificate (DER), as pinned in party files.
pub fn fingerprint(cert: &[u8]) -> [u8; 32] {
    Sha256::digest(cert).into()
}

/// One party's entry in a [`TlsConfig`].
#[derive(Clone, Debug)]
pub struct TlsPeer {
    /// `host:port` where the party listens.
    pub address: String,
    /// The SHA-256 of the party's certificate, if pinned.
    pub fingerprint: Option<[u8; 32]>,
}

/// This party's TLS identity and how to reach and trust every party.
pub struct TlsConfig {
    /// This party's index (0-based).
    pub index: usize,
    /// Every party, in index order, this one included.
    pub parties: Vec<TlsPeer>,
    /// This party's certificate chain (its own certificate first).
    pub certificate: Vec<CertificateDer<'static>>,
    /// This party's private key (PKCS#8, SEC1 or PKCS#1).
    pub private_key: PrivateKeyDer<'static>,
    /// The CA that issued the parties' certificates, if trust goes through
    /// one (else every peer needs a pinned fingerprint).
    pub ca: Option<CertificateDer<'static>>,
    /// Where to listen, if not at this party's own address.
    pub listen: Option<String>,
    /// How long to wait for every party to connect, and for any message
    /// later.
    pub timeout: Duration,
    /// The deadline of one handshake, from the TCP connection to the
    /// exchange of indices.
    pub handshake_timeout: Duration,
}

impl Clone for TlsConfig {
    fn clone(&self) -> Self {
        Self {
            index: self.index,
            parties: self.parties.clone(),
            certificate: self.certificate.clone(),
            private_key: self.private_key.clone_key(),
            ca: self.ca.clone(),
            listen: self.listen.clone(),
            timeout: self.timeout,
            handshake_timeout: self.handshake_timeout,
        }
    }
}

impl TlsConfig {
    /// Checks everything that can be checked before a connection: the
    /// index, a way to trust every peer, the key and certificate (by
    /// building the TLS configurations), the timeouts.
    pub fn validate(&self) -> Result<(), Error> {
        self.prepare().map(|_| ())
    }

    fn prepare(&self) -> Result<Prepared, Error> {
        let n = self.parties.len();
        let bad = |s: String| Err(Error::InvalidConfig(s));
        if n < 2 || self.index >= n {
            return bad("the party index must name one of at least two parties".into());
        }
        if self.timeout.is_zero()
            || self.timeout > crate::MAX_TIMEOUT
            || self.handshake_timeout.is_zero()
            || self.handshake_timeout > crate::MAX_TIMEOUT
        {
            return bad(format!(
                "timeouts must be from 1 ns to {} s",
                crate::MAX_TIMEOUT.as_secs()
            ));
        }
        if self.certificate.is_empty() {
            return bad("no certificate for this party".into());
        }
        if self.ca.is_none()
            && let Some(j) =
                (0..n).find(|&j| j != self.index && self.parties[j].fingerprint.is_none())
        {
            return bad(format!(
                "party {}: no fingerprint pinned and no CA to trust its certificate by",
                j + 1
            ));
        }
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let roots = match &self.ca {
            Some(ca) => {
                let mut store = RootCertStore::empty();
                store
                    .add(ca.clone())
                    .map_err(|e| Error::InvalidConfig(format!("the CA certificate: {e}")))?;
                Some(Arc::new(store))
            }
            None => None,
        };
        let verifier = Arc::new(PartyVerifier::new(
            Arc::clone(&provider),
            roots,
            self.parties.iter().map(|p| p.fingerprint).collect(),
        )?);
        let tls_error = |what: &str, e: rustls::Error| Error::InvalidConfig(format!("{what}: {e}"));
        let client = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| tls_error("TLS 1.3", e))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::clone(&verifier) as Arc<dyn ServerCertVerifier>)
            .with_client_auth_cert(self.certificate.clone(), self.private_key.clone_key())
            .map_err(|e| tls_error("this party's key and certificate", e))?;
        let mut server = ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| tls_error("TLS 1.3", e))?
            .with_client_cert_verifier(Arc::clone(&verifier) as Arc<dyn ClientCertVerifier>)
            .with_single_cert(self.certificate.clone(), self.private_key.clone_key())
            .map_err(|e| tls_error("this party's key and certificate", e))?;
        // One connection per pair for the whole run: no resumption.
        server.send_tls13_tickets = 0;
        let listen = self
            .listen
            .clone()
            .unwrap_or_else(|| self.parties[self.index].address.clone());
        Ok(Prepared {
            client: Arc::new(client),
            server: Arc::new(server),
            verifier,
            listen,
        })
    }
}

struct Prepared {
    client: Arc<ClientConfig>,
    server: Arc<ServerConfig>,
    verifier: Arc<PartyVerifier>,
    listen: String,
}

/// Verifies peers' certificates, binding each to its party: party `i` is
/// accepted by its pinned fingerprint alone when it has one, else by a
/// chain to the CA naming it. The server's party is known from the name
/// we connect to; a client names itself after the handshake, so its
/// certificate is first checked as some party's and then as the one it
/// names ([`PartyVerifier::is_party`]).
#[derive(Debug)]
struct PartyVerifier {
    algorithms: WebPkiSupportedAlgorithms,
    server: Option<Arc<WebPkiServerVerifier>>,
    client: Option<Arc<dyn ClientCertVerifier>>,
    pins: Vec<Option<[u8; 32]>>,
}

impl PartyVerifier {
    fn new(
        provider: Arc<CryptoProvider>,
        roots: Option<Arc<RootCertStore>>,
        pins: Vec<Option<[u8; 32]>>,
    ) -> Result<Self, Error> {
        let (server, client) = match roots {
            Some(roots) => {
                let bad = |e: rustls::server::VerifierBuilderError| {
                    Error::InvalidConfig(format!("the CA certificate: {e}"))
                };
                let server = WebPkiServerVerifier::builder_with_provider(
                    Arc::clone(&roots),
                    Arc::clone(&provider),
                )
                .build()
                .map_err(bad)?;
                let client =
                    WebPkiClientVerifier::builder_with_provider(roots, Arc::clone(&provider))
                        .build()
                        .map_err(bad)?;
                (Some(server), Some(client))
            }
            None => (None, None),
        };
        Ok(Self {
            algorithms: provider.signature_verification_algorithms,
            server,
            client,
            pins,
        })
    }

    fn pinned(&self, cert: &CertificateDer<'_>) -> bool {
        let f = fingerprint(cert);
        self.pins.contains(&Some(f))
    }

    /// Whether the chain `certs` (its first certificate the peer's, already
    /// verified in the handshake as some party's) is party `index`'s:
    /// its pin if it has one, else a chain to the CA naming it.
    fn is_party(&self, certs: &[CertificateDer<'_>], index: usize) -> bool {
        let (Some(pin), Some((cert, intermediates))) = (self.pins.get(index), certs.split_first())
        else {
            return false;
        };
        if let Some(pin) = pin {
            return fingerprint(cert) == *pin;
        }
        let Some(client) = &self.client else {
            return false;
        };
        let chained = client
            .verify_client_cert(cert, intermediates, UnixTime::now())
            .is_ok();
        let named = ServerName::try_from(party_name(index)).is_ok_and(|name| {
            webpki::EndEntityCert::try_from(cert)
                .is_ok_and(|ee| ee.verify_is_valid_for_subject_name(&name).is_ok())
        });
        chained && named
    }
}

/// The handshake signature checks both verifier traits ask for, which
/// are the same for a server's and a client's certificate: the crypto
/// provider's, over its algorithms.
macro_rules! handshake_signature_checks {
    () => {
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
        }

        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.algorithms.supported_schemes()
        }
    };
}

impl ServerCertVerifier for PartyVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let refused = || {
            rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            )
        };
        // The name we connect to is the party's: its pin, or the CA.
        let index = (0..self.pins.len())
            .find(|&i| ServerName::try_from(party_name(i)).is_ok_and(|n| &n == server_name))
            .ok_or(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForName,
            ))?;
        match (self.pins[index], &self.server) {
            (Some(pin), _) if fingerprint(end_entity) == pin => Ok(ServerCertVerified::assertion()),
            (Some(_), _) | (None, None) => Err(refused()),
            (None, Some(v)) => {
                v.verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
            }
        }
    }

    handshake_signature_checks!();
}

impl ClientCertVerifier for PartyVerifier {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        // Some party's for now; `is_party` checks it is the one it names.
        if self.pinned(end_entity) {
            return Ok(ClientCertVerified::assertion());
        }
        match &self.client {
            Some(v) => v.verify_client_cert(end_entity, intermediates, now),
            None => Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            )),
        }
    }

    handshake_signature_checks!();
}

/// Bytes of TLS records waiting to be written to one peer, in order.
struct Outgoing {
    state: Mutex<(VecDeque<Vec<u8>>, usize, bool)>,
    changed: Condvar,
}

impl Outgoing {
    fn new() -> Self {
        Self {
            state: Mutex::new((VecDeque::new(), 0, false)),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (VecDeque<Vec<u8>>, usize, bool)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let mut s = self.lock();
        s.1 += bytes.len();
        s.0.push_back(bytes);
        drop(s);
        self.changed.notify_all();
    }

    /// Waits while more than [`MAX_OUTGOING`] bytes wait (the writer may
    /// be stuck on a peer that does not read: `false` once closed).
    fn wait_for_room(&self) -> bool {
        let mut s = self.lock();
        while s.1 > MAX_OUTGOING && !s.2 {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        !s.2
    }

    /// The next bytes to write; `None` once closed and drained.
    fn pop(&self) -> Option<Vec<u8>> {
        let mut s = self.lock();
        loop {
            if let Some(b) = s.0.pop_front() {
                s.1 -= b.len();
                drop(s);
                self.changed.notify_all();
                return Some(b);
            }
            if s.2 {
                return None;
            }
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn close(&self) {
        self.lock().2 = true;
        self.changed.notify_all();
    }
}

/// Incoming handshakes in progress: in all, and per source address.
#[derive(Default)]
struct HandshakeSlots {
    state: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One handshake's slot, given back when dropped.
struct HandshakeSlot {
    slots: Arc<HandshakeSlots>,
    address: IpAddr,
}

impl HandshakeSlots {
    /// A slot for a handshake from `address`, or `None` when
    /// [`MAX_PENDING_HANDSHAKES`] are in progress, or
    /// [`MAX_PENDING_PER_ADDRESS`] from that address.
    fn acquire(self: &Arc<Self>, address: IpAddr) -> Option<HandshakeSlot> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (total, by_address) = &mut *state;
        let from_address = by_address.entry(address).or_insert(0);
        if *total >= MAX_PENDING_HANDSHAKES || *from_address >= MAX_PENDING_PER_ADDRESS {
            return None;
        }
        *total += 1;
        *from_address += 1;
        Some(HandshakeSlot {
            slots: Arc::clone(self),
            address,
        })
    }
}

impl Drop for HandshakeSlot {
    fn drop(&mut self) {
        let mut state = self.slots.state.lock().unwrap_or_else(|e| e.into_inner());
        let (total, by_address) = &mut *state;
        *total -= 1;
        if let Some(count) = by_address.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                by_address.remove(&self.address);
            }
        }
    }
}

/// One authenticated connection to a peer.
struct Link {
    peer: usize,
    conn: Mutex<Connection>,
    out: Outgoing,
    stream: TcpStream,
}

impl Link {
    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the connection's pending TLS bytes to the writer, in order
    /// (the connection is locked by the caller).
    fn flush(conn: &mut Connection, out: &Outgoing) {
        let mut bytes = Vec::new();
        while conn.wants_write() {
            if conn.write_tls(&mut bytes).is_err() {
                break;
            }
        }
        out.push(bytes);
    }
}

/// A party's mutual-TLS connections to all the others.
pub struct TlsTransport {
    index: usize,
    parties: usize,
    mailbox: Arc<Mailbox>,
    links: Vec<Option<Arc<Link>>>,
    threads: Vec<JoinHandle<()>>,
    /// One message from each reader thread when its peer's stream ends.
    reader_done: Mutex<mpsc::Receiver<()>>,
    sent: Arc<AtomicU64>,
    closed: AtomicBool,
    rejected: usize,
    /// Each party's certificate: ours, and each peer's from its handshake.
    identities: Vec<Option<Vec<u8>>>,
}

/// Why a handshake ended without a verdict on the peer: a deadline or a
/// closed connection (under load, or a peer giving up) says less than a
/// refusal, and must not stand in for one (`keep_telling`).
const TOO_LONG: &str = "the handshake took too long";
const CLOSED: &str = "connection closed during the handshake";

/// Keeps the more telling of two reasons a connection was dropped: `new`,
/// unless it only says the handshake was cut short and `kept` says more.
fn keep_telling(kept: &mut Option<String>, new: String) {
    let cut_short = new == TOO_LONG || new == CLOSED;
    if kept.is_none() || !cut_short {
        *kept = Some(new);
    }
}

/// Drives a handshake to its end, or to `deadline`, on a blocking socket:
/// every read waits at most until the deadline, however slowly the bytes
/// come.
fn drive(conn: &mut Connection, stream: &mut TcpStream, deadline: Instant) -> Result<(), String> {
    let remaining = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| TOO_LONG.to_string())
    };
    loop {
        while conn.wants_write() {
            stream
                .set_write_timeout(Some(remaining()?))
                .map_err(|e| e.to_string())?;
            conn.write_tls(stream).map_err(|e| e.to_string())?;
        }
        if !conn.is_handshaking() {
            return Ok(());
        }
        read_records(conn, stream, remaining()?)?;
        if let Err(e) = conn.process_new_packets() {
            // Tell the peer why, as far as the socket allows.
            let _ = conn.write_tls(stream);
            return Err(format!("TLS: {e}"));
        }
    }
}

/// Reads what TLS records `stream` has into `conn`, waiting at most
/// `remaining`; during the handshake, so a closed connection or a timeout
/// is an error.
fn read_records(
    conn: &mut Connection,
    stream: &mut TcpStream,
    remaining: Duration,
) -> Result<(), String> {
    stream
        .set_read_timeout(Some(remaining))
        .map_err(|e| e.to_string())?;
    match conn.read_tls(stream) {
        Ok(0) => Err(CLOSED.into()),
        Ok(_) => Ok(()),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            Err(TOO_LONG.into())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Reads exactly `buf.len()` plaintext bytes before `deadline`.
fn read_plain(
    conn: &mut Connection,
    stream: &mut TcpStream,
    buf: &mut [u8],
    deadline: Instant,
) -> Result<(), String> {
    let mut got = 0;
    while got < buf.len() {
        match conn.reader().read(&mut buf[got..]) {
            Ok(0) => return Err(CLOSED.into()),
            Ok(k) => {
                got += k;
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e.to_string()),
        }
        let remaining = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or(TOO_LONG)?;
        read_records(conn, stream, remaining)?;
        conn.process_new_packets()
            .map_err(|e| format!("TLS: {e}"))?;
    }
    Ok(())
}

fn hello(index: usize) -> [u8; HELLO_LEN] {
    let mut h = [0u8; HELLO_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..].copy_from_slice(&(index as u16).to_be_bytes());
    h
}

fn parse_hello(h: &[u8; HELLO_LEN]) -> Option<usize> {
    (&h[..8] == MAGIC).then(|| u16::from_be_bytes([h[8], h[9]]) as usize)
}

/// Writes `bytes` as plaintext and flushes them, before `deadline`.
fn write_plain(
    conn: &mut Connection,
    stream: &mut TcpStream,
    bytes: &[u8],
    deadline: Instant,
) -> Result<(), String> {
    conn.writer().write_all(bytes).map_err(|e| e.to_string())?;
    drive(conn, stream, deadline)
}

/// The connecting side: handshake with party `peer`, verifying its
/// certificate for its name, then the exchange of indices.
fn initiate(
    prepared: &Prepared,
    verifier: &PartyVerifier,
    me: usize,
    peer: usize,
    mut stream: TcpStream,
    deadline: Instant,
) -> Result<(TcpStream, Connection), String> {
    let name = ServerName::try_from(party_name(peer)).map_err(|e| e.to_string())?;
    let conn = ClientConnection::new(Arc::clone(&prepared.client), name)
        .map_err(|e| format!("TLS: {e}"))?;
    let mut conn = Connection::Client(conn);
    drive(&mut conn, &mut stream, deadline)?;
    write_plain(&mut conn, &mut stream, &hello(me), deadline)?;
    let mut theirs = [0u8; HELLO_LEN];
    read_plain(&mut conn, &mut stream, &mut theirs, deadline)?;
    if parse_hello(&theirs) != Some(peer) {
        return Err("the peer answered as another party".into());
    }
    // (Its certificate was checked for `peer`'s name and pin in the
    // handshake.)
    let _ = verifier;
    Ok((stream, conn))
}

/// The accepting side: handshake, then the peer names itself, and its
/// certificate must be that party's.
fn respond(
    prepared: &Prepared,
    verifier: &PartyVerifier,
    me: usize,
    parties: usize,
    mut stream: TcpStream,
    deadline: Instant,
) -> Result<(usize, TcpStream, Connection), String> {
    let conn = ServerConnection::new(Arc::clone(&prepared.server)).map_err(|e| e.to_string())?;
    let mut conn = Connection::Server(conn);
    drive(&mut conn, &mut stream, deadline)?;
    let mut theirs = [0u8; HELLO_LEN];
    read_plain(&mut conn, &mut stream, &mut theirs, deadline)?;
    let peer = parse_hello(&theirs).ok_or("not a numcrypt shared-rsa party")?;
    if peer <= me || peer >= parties {
        return Err(format!("a peer named itself party {}", peer + 1));
    }
    let certs = conn.peer_certificates().ok_or("no client certificate")?;
    if !verifier.is_party(certs, peer) {
        return Err(format!(
            "a peer named itself party {} with another party's certificate",
            peer + 1
        ));
    }
    write_plain(&mut conn, &mut stream, &hello(me), deadline)?;
    Ok((peer, stream, conn))
}

fn resolve(address: &str) -> Result<SocketAddr, Error> {
    address
        .to_socket_addrs()
        .map_err(|e| Error::InvalidConfig(format!("address {address:?}: {e}")))?
        .next()
        .ok_or_else(|| Error::InvalidConfig(format!("address {address:?} resolves to nothing")))
}

type Established = (usize, TcpStream, Connection);

impl TlsTransport {
    /// Validates the configuration, listens, connects to every other party
    /// (retrying until `config.timeout`) and authenticates each link.
    pub fn connect(config: &TlsConfig) -> Result<Self, Error> {
        let prepared = config.prepare()?;
        let listener = TcpListener::bind(resolve(&prepared.listen)?)?;
        Self::connect_prepared(config, prepared, listener)
    }

    /// [`connect`](Self::connect) on a listener the caller has bound (for
    /// example to port 0, with the addresses in `config` filled in after).
    pub fn connect_with_listener(config: &TlsConfig, listener: TcpListener) -> Result<Self, Error> {
        let prepared = config.prepare()?;
        Self::connect_prepared(config, prepared, listener)
    }

    /// Incoming connections dropped so far because they failed their
    /// handshake or were not a party.
    pub fn rejected_connections(&self) -> usize {
        self.rejected
    }

    fn connect_prepared(
        config: &TlsConfig,
        prepared: Prepared,
        listener: TcpListener,
    ) -> Result<Self, Error> {
        let n = config.parties.len();
        let me = config.index;
        let deadline = Instant::now() + config.timeout;
        let verifier = Arc::clone(&prepared.verifier);
        let prepared = Arc::new(prepared);
        let handshake_timeout = config.handshake_timeout;
        let expected_inbound = n - 1 - me;

        let acceptor = {
            let (prepared, verifier) = (Arc::clone(&prepared), Arc::clone(&verifier));
            std::thread::spawn(move || -> (Result<Vec<Established>, Error>, usize) {
                let slots = Arc::new(HandshakeSlots::default());
                let (tx, rx) = mpsc::channel::<Result<Established, String>>();
                let mut links: Vec<Established> = Vec::new();
                let mut rejected = 0;
                let mut last_rejection = None;
                if let Err(e) = listener.set_nonblocking(true) {
                    return (Err(e.into()), rejected);
                }
                while links.len() < expected_inbound {
                    while let Ok(result) = rx.try_recv() {
                        match result {
                            Ok(link) if links.iter().all(|l| l.0 != link.0) => links.push(link),
                            Ok(link) => {
                                rejected += 1;
                                last_rejection =
                                    Some(format!("party {} connected a second time", link.0 + 1));
                            }
                            Err(why) => {
                                rejected += 1;
                                keep_telling(&mut last_rejection, why);
                            }
                        }
                    }
                    if links.len() == expected_inbound {
                        break;
                    }
                    match listener.accept() {
                        Ok((stream, from)) => {
                            let Some(slot) = slots.acquire(from.ip()) else {
                                rejected += 1;
                                let _ = stream.shutdown(Shutdown::Both);
                                continue;
                            };
                            let (prepared, verifier, tx) =
                                (Arc::clone(&prepared), Arc::clone(&verifier), tx.clone());
                            std::thread::spawn(move || {
                                let limit = (Instant::now() + handshake_timeout).min(deadline);
                                let result = stream
                                    .set_nonblocking(false)
                                    .map_err(|e| e.to_string())
                                    .and_then(|()| {
                                        stream.set_nodelay(true).map_err(|e| e.to_string())
                                    })
                                    .and_then(|()| {
                                        respond(&prepared, &verifier, me, n, stream, limit)
                                    });
                                drop(slot);
                                let _ = tx.send(result);
                            });
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if Instant::now() > deadline {
                                let missing = (me + 1..n)
                                    .find(|p| links.iter().all(|l| l.0 != *p))
                                    .unwrap_or(me);
                                let error = match last_rejection {
                                    Some(why) => Error::Authentication {
                                        party: Some(missing + 1),
                                        what: format!(
                                            "did not connect; the last rejected connection: {why}"
                                        ),
                                    },
                                    None => Error::Timeout {
                                        party: missing + 1,
                                        after: deadline.saturating_duration_since(Instant::now()),
                                    },
                                };
                                return (Err(error), rejected);
                            }
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(e) => return (Err(e.into()), rejected),
                    }
                }
                (Ok(links), rejected)
            })
        };

        let mut links: Vec<Established> = Vec::new();
        let mut outbound_error = None;
        for peer in 0..me {
            let result = (|| -> Result<Established, Error> {
                let addr = resolve(&config.parties[peer].address)?;
                let mut last = None;
                loop {
                    if Instant::now() >= deadline {
                        return Err(match last {
                            Some(why) => Error::Authentication {
                                party: Some(peer + 1),
                                what: why,
                            },
                            None => Error::Timeout {
                                party: peer + 1,
                                after: config.timeout,
                            },
                        });
                    }
                    let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(500))
                    else {
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    };
                    stream.set_nodelay(true)?;
                    let limit = (Instant::now() + handshake_timeout).min(deadline);
                    match initiate(&prepared, &verifier, me, peer, stream, limit) {
                        Ok((stream, conn)) => return Ok((peer, stream, conn)),
                        Err(why) => {
                            // Whoever answered at that address was not the
                            // party (or not yet): try again until the deadline.
                            keep_telling(&mut last, why);
                            std::thread::sleep(Duration::from_millis(50));
                        }
                    }
                }
            })();
            match result {
                Ok(link) => links.push(link),
                Err(e) => {
                    outbound_error = Some(e);
                    break;
                }
            }
        }
        let (inbound, rejected) = acceptor
            .join()
            .unwrap_or_else(|_| (Err(Error::InvalidInput("the accepting thread panicked")), 0));
        if let Some(e) = outbound_error {
            return Err(e);
        }
        links.extend(inbound?);
        Self::start(config, links, rejected)
    }

    /// Starts a reader and a writer thread per link.
    fn start(
        config: &TlsConfig,
        established: Vec<Established>,
        rejected: usize,
    ) -> Result<Self, Error> {
        let (me, n, timeout) = (config.index, config.parties.len(), config.timeout);
        let mailbox = Arc::new(Mailbox::new(n));
        let sent = Arc::new(AtomicU64::new(0));
        let mut links: Vec<Option<Arc<Link>>> = (0..n).map(|_| None).collect();
        let mut identities: Vec<Option<Vec<u8>>> = vec![None; n];
        identities[me] = config.certificate.first().map(|c| c.to_vec());
        let mut threads = Vec::new();
        let (done_tx, reader_done) = mpsc::channel();
        for (peer, stream, mut conn) in established {
            identities[peer] = conn
                .peer_certificates()
                .and_then(|c| c.first())
                .map(|c| c.to_vec());
            // Liveness is the protocol's business (its own timeouts); a
            // write that makes no progress for a timeout is a dead peer.
            stream.set_read_timeout(None)?;
            stream.set_write_timeout(Some(timeout))?;
            conn.set_buffer_limit(None);
            let link = Arc::new(Link {
                peer,
                conn: Mutex::new(conn),
                out: Outgoing::new(),
                stream,
            });
            links[peer] = Some(Arc::clone(&link));
            let writer = {
                let (link, sent, mailbox) =
                    (Arc::clone(&link), Arc::clone(&sent), Arc::clone(&mailbox));
                std::thread::spawn(move || {
                    let mut stream = &link.stream;
                    while let Some(bytes) = link.out.pop() {
                        if stream.write_all(&bytes).is_err() {
                            link.out.close();
                            mailbox.close(link.peer);
                            let _ = link.stream.shutdown(Shutdown::Both);
                            return;
                        }
                        sent.fetch_add(bytes.len() as u64, Ordering::Relaxed);
                    }
                    let _ = link.stream.shutdown(Shutdown::Write);
                })
            };
            let reader = {
                let (link, mailbox, done) =
                    (Arc::clone(&link), Arc::clone(&mailbox), done_tx.clone());
                std::thread::spawn(move || {
                    if let Err(what) = read_loop(&link, &mailbox) {
                        mailbox.fail(link.peer, what);
                        let _ = link.stream.shutdown(Shutdown::Both);
                    }
                    mailbox.close(link.peer);
                    link.out.close();
                    let _ = done.send(());
                })
            };
            threads.push(writer);
            threads.push(reader);
        }
        Ok(Self {
            index: me,
            parties: n,
            mailbox,
            links,
            threads,
            reader_done: Mutex::new(reader_done),
            sent,
            closed: AtomicBool::new(false),
            rejected,
            identities,
        })
    }

    fn link(&self, peer: usize) -> Result<&Arc<Link>, Error> {
        self.links
            .get(peer)
            .and_then(Option::as_ref)
            .ok_or(Error::InvalidInput("no such party"))
    }
}

/// Reads frames from a peer into the mailbox until its stream ends (`Ok`)
/// or it breaks the rules (`Err`, what it did).
fn read_loop(link: &Link, mailbox: &Mailbox) -> Result<(), &'static str> {
    let mut stream = &link.stream;
    let mut buf = vec![0u8; 1 << 16];
    let mut plain: Zeroizing<Vec<u8>> = Zeroizing::new(Vec::new());
    loop {
        let got = match stream.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(()),
            Ok(k) => k,
        };
        {
            let mut conn = link.lock();
            let mut input = &buf[..got];
            while !input.is_empty() {
                if conn.read_tls(&mut input).is_err() {
                    return Err("TLS records out of bounds");
                }
                if conn.process_new_packets().is_err() {
                    Link::flush(&mut conn, &link.out);
                    return Err("a TLS record failed");
                }
                loop {
                    let start = plain.len();
                    plain.resize(start + (1 << 16), 0);
                    match conn.reader().read(&mut plain[start..]) {
                        Ok(k) => {
                            plain.truncate(start + k);
                            if k == 0 {
                                break;
                            }
                        }
                        Err(_) => {
                            plain.truncate(start);
                            break;
                        }
                    }
                }
            }
            Link::flush(&mut conn, &link.out);
        }
        // Whole frames go to the mailbox.
        let mut used = 0;
        while plain.len() - used >= FRAME_OVERHEAD {
            let at = &plain[used..];
            let len = u32::from_be_bytes([at[0], at[1], at[2], at[3]]) as usize;
            if !(2..=MAX_FRAME + 2).contains(&len) {
                return Err("a message longer than the protocol allows");
            }
            if at.len() < 4 + len {
                break;
            }
            let channel = u16::from_be_bytes([at[4], at[5]]);
            let payload = at[FRAME_OVERHEAD..4 + len].to_vec();
            if !mailbox.deliver_bounded(link.peer, channel, payload, MAX_QUEUED) {
                return Err("more messages than the protocol reads");
            }
            used += 4 + len;
        }
        plain.drain(..used);
    }
}

impl Transport for TlsTransport {
    fn party_count(&self) -> usize {
        self.parties
    }

    fn index(&self) -> usize {
        self.index
    }

    fn send(&self, to: usize, channel: u16, payload: Vec<u8>) -> Result<(), Error> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Error::Aborted);
        }
        let link = self.link(to)?;
        if payload.len() > MAX_FRAME {
            return Err(Error::InvalidInput(
                "a message longer than the protocol allows",
            ));
        }
        let payload = Zeroizing::new(payload);
        let mut frame = Zeroizing::new(Vec::with_capacity(payload.len() + FRAME_OVERHEAD));
        frame.extend_from_slice(&((payload.len() + 2) as u32).to_be_bytes());
        frame.extend_from_slice(&channel.to_be_bytes());
        frame.extend_from_slice(&payload);
        if !link.out.wait_for_room() || self.mailbox.is_closed(to) {
            return Err(self.mailbox.gone(to));
        }
        let mut conn = link.lock();
        conn.writer()
            .write_all(&frame)
            .map_err(|_| self.mailbox.gone(to))?;
        Link::flush(&mut conn, &link.out);
        Ok(())
    }

    fn recv(&self, from: usize, channel: u16, timeout: Duration) -> Result<Vec<u8>, Error> {
        if from >= self.parties || from == self.index {
            return Err(Error::InvalidInput("no such party"));
        }
        self.mailbox.recv(from, channel, timeout)
    }

    fn recv_any(&self, from: &[bool], channel: u16, timeout: Duration) -> ReceivedFrom {
        let mut from = from.to_vec();
        if let Some(me) = from.get_mut(self.index) {
            *me = false;
        }
        self.mailbox.recv_any(&from, channel, timeout)
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    fn identity(&self, party: usize) -> Option<Vec<u8>> {
        self.identities.get(party).cloned().flatten()
    }

    fn abort(&self) {
        self.mailbox.abort();
        // After `abort_because`, the writers are finishing the notice.
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        for link in self.links.iter().flatten() {
            link.out.close();
            let _ = link.stream.shutdown(Shutdown::Both);
        }
    }

    /// Queues the notice of whom this party blames behind whatever is
    /// queued, then closes the writing side once it is out (the writer
    /// drains its queue first); receives stop at once.
    fn abort_because(&self, cause: &Error) {
        let Some(blame) = super::Blame::of(cause) else {
            return self.abort();
        };
        self.mailbox.abort();
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let mut frame = Vec::with_capacity(FRAME_OVERHEAD + 3);
        let notice = blame.encode();
        frame.extend_from_slice(&((notice.len() + 2) as u32).to_be_bytes());
        frame.extend_from_slice(&super::CONTROL_CHANNEL.to_be_bytes());
        frame.extend_from_slice(&notice);
        for link in self.links.iter().flatten() {
            let mut conn = link.lock();
            if conn.writer().write_all(&frame).is_ok() {
                conn.send_close_notify();
            }
            Link::flush(&mut conn, &link.out);
            drop(conn);
            link.out.close();
        }
    }
}

impl Drop for TlsTransport {
    /// Closes gracefully: a `close_notify` to each peer after what is
    /// queued, then waits for the peers' last messages (a reset could
    /// destroy data a peer has not read yet); a peer that keeps its side
    /// open is cut off after 2 s.
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        for link in self.links.iter().flatten() {
            let mut conn = link.lock();
            conn.send_close_notify();
            Link::flush(&mut conn, &link.out);
            drop(conn);
            link.out.close();
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        let done = self
            .reader_done
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        for _ in self.links.iter().flatten() {
            let left = deadline.saturating_duration_since(Instant::now());
            if done.recv_timeout(left).is_err() {
                break;
            }
        }
        for link in self.links.iter().flatten() {
            let _ = link.stream.shutdown(Shutdown::Both);
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One address cannot take every handshake slot: it gets
    /// `MAX_PENDING_PER_ADDRESS`, others still get theirs, up to the
    /// overall limit; slots come back when dropped.
    #[test]
    fn handshake_slots_are_limited_per_address() {
        let slots = Arc::new(HandshakeSlots::default());
        let stranger: IpAddr = [192, 0, 2, 1].into();
        let held: Vec<_> = (0..MAX_PENDING_PER_ADDRESS)
            .map(|_| slots.acquire(stranger).expect("a slot"))
            .collect();
        assert!(slots.acquire(stranger).is_none(), "one address, too many");
        let party: IpAddr = [198, 51, 100, 7].into();
        let other = slots
            .acquire(party)
            .expect("another address still gets one");
        drop(held);
        let again = slots.acquire(stranger).expect("freed");
        drop((other, again));
        let all: Vec<_> = (0..MAX_PENDING_HANDSHAKES)
            .map(|k| {
                let address: IpAddr = [10, 0, (k / 256) as u8, (k % 256) as u8].into();
                slots.acquire(address).expect("below the overall limit")
            })
            .collect();
        assert!(slots.acquire(party).is_none(), "the overall limit");
        drop(all);
        assert_eq!(slots.state.lock().unwrap().0, 0);
    }

    /// A refusal is what an error reports, though handshakes cut short
    /// (the run's deadline reached mid-handshake, under load) came after
    /// it; a first reason is kept whatever it is, and a later refusal
    /// replaces an earlier one. (CI once reported party 1's refusal of a
    /// certificate as "took too long".)
    #[test]
    fn a_handshake_cut_short_does_not_hide_a_refusal() {
        let refused = "a peer named itself party 3 with another party's certificate";
        let mut kept = None;
        keep_telling(&mut kept, TOO_LONG.into());
        assert_eq!(kept.as_deref(), Some(TOO_LONG));
        keep_telling(&mut kept, refused.into());
        keep_telling(&mut kept, TOO_LONG.into());
        keep_telling(&mut kept, CLOSED.into());
        assert_eq!(kept.as_deref(), Some(refused));
        keep_telling(&mut kept, "TLS: no certificate".into());
        assert_eq!(kept.as_deref(), Some("TLS: no certificate"));
    }
}
