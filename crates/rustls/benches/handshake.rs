//! Full TLS handshakes (no resumption) against a server with an RSA
//! certificate, numcrypt's provider against rustls' aws-lc-rs and ring
//! providers in the same run, the same certificate and key in each. The
//! client is always rustls on aws-lc-rs, so only the server's provider
//! changes.
//!
//! - `handshake_server/<version>_<bits>/<provider>`: in memory, one thread,
//!   as rustls' own benchmarks do (no sockets); only the server's calls
//!   are timed (creating the connection, reading and processing the
//!   client's flights, writing its own), so the figure is the server's
//!   full handshakes per second on one core.
//! - `handshake_loopback/tls13_<bits>_<clients>/<provider>`: over TCP on
//!   127.0.0.1, 1 or 8 client threads each running handshakes back to back
//!   against a server with a thread per concurrent connection (as
//!   `examples/https_server.rs`); a handshake ends when the client has read
//!   a byte the server wrote after it, and the server's close_notify. Wall
//!   time per handshake of the whole machine, clients included: what 1 or
//!   8 concurrent clients get from one server on this machine's cores.
//! - `handshake_loopback_server_cpu/...`: the same runs, timed by the
//!   server threads' CPU time (Linux's `/proc/thread-self/schedstat`,
//!   kernel time included) per handshake: the server's handshakes per
//!   second per core on loopback, whatever the clients cost.
//! - `rsa_sign/<bits>/<provider>`: the provider's RSA signer alone (PSS
//!   with SHA-512 over a handshake-sized message), the part of a handshake
//!   the providers differ in.
//! - `handshake_server_interleaved/<version>_<bits>` (printed lines, not
//!   a criterion group): the in-memory handshake again, every provider in
//!   turn one handshake at a time for [`INTERLEAVED_ROUNDS`] rounds, each
//!   one's median server time and numcrypt's ratio to each peer (the ratio
//!   of the medians, and the paired ratio: the median over the rounds of
//!   the peer's time ÷ numcrypt's in the same round), then the same for
//!   the signature alone (the key's signer timed in place) and for the
//!   rest of the handshake. The groups time one provider for seconds, then
//!   the next, and a shared machine's speed drifts between them; here a
//!   drift hits all alike, and the paired ratio compares handshakes made
//!   a millisecond apart. Runs when no filter is given or the filter, read
//!   as plain text, occurs in that name.
//! - `handshake_server_blocks/<version>_<bits>` (printed likewise): the
//!   same with each provider making [`WARM_BLOCK`] handshakes in a row a
//!   round, the first not timed: as a server on one provider runs, each
//!   handshake finding the code and data the one before left warm, which
//!   one handshake a turn takes away from every provider.
//! - `rsa_sign_interleaved/<bits>` (printed likewise): the signers in
//!   turn, one signature each a round, as they alternate on a server
//!   that holds keys of several providers (back to back in a loop,
//!   `rsa_sign`, each keeps its own code and data warm).
//! - `handshake_loopback_interleaved/tls13_<bits>_1` (printed likewise):
//!   one client over loopback, every provider's server in turn, one
//!   handshake a round: the median wall time a handshake (with the paired
//!   ratio) and each server thread's CPU time a handshake (a mean: the
//!   thread's clock is read once, when it ends).
//!
//! Versions: TLS 1.3 at 2048, 3072 and 4096 bits, TLS 1.2 at 2048 (in
//! memory only); ECDHE X25519, AES-256-GCM; the server signs RSA-PSS
//! SHA-512, checked before timing. Throughput is in handshakes (elements)
//! per second. Before timing, every provider completes a handshake and the
//! client checks its signature. Fixture keys: `tests/data`; the
//! certificates are made by rcgen at start.
//! `python3 crates/rustls/benches/summarize.py` prints the tables;
//! `--rounds N` runs N rounds first.

#[path = "../tests/common/recorder.rs"]
mod recorder;
// The interleaved lines' helpers, shared with the root benches.
#[path = "../../../benches/common/interleaved.rs"]
mod interleaved;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use rustls::client::{Resumption, WebPkiServerVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, SubjectPublicKeyInfoDer};
use rustls::server::{ClientHello, NoServerSessionStorage, ResolvesServerCert};
use rustls::sign::{CertifiedKey, Signer, SigningKey};
use rustls::{
    ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection,
    SignatureAlgorithm, SignatureScheme, Stream, SupportedProtocolVersion,
};

use interleaved::{compared, compared_rounds, filter_allows, median, take_turns};
use recorder::Recorder;

const PROVIDERS: [&str; 3] = ["numcrypt", "aws-lc-rs", "ring"];

fn provider(name: &str) -> CryptoProvider {
    match name {
        "numcrypt" => numcrypt_rustls::provider(),
        "aws-lc-rs" => rustls::crypto::aws_lc_rs::default_provider(),
        "ring" => rustls::crypto::ring::default_provider(),
        _ => unreachable!(),
    }
}

fn key_pem(bits: u32) -> String {
    let path = format!("{}/tests/data/rsa{bits}.pem", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// A CA and a `localhost` certificate for the fixture key of `bits`.
fn certificates(bits: u32) -> (CertificateDer<'static>, CertificateDer<'static>) {
    let ca_key = KeyPair::from_pem(&key_pem(2048)).unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::from_pem(&key_pem(bits)).unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&key, &ca, &ca_key)
        .unwrap();
    (ca.der().clone(), leaf.der().clone())
}

fn server_config(
    name: &str,
    version: &'static SupportedProtocolVersion,
    bits: u32,
    leaf: &CertificateDer<'static>,
) -> Arc<ServerConfig> {
    let provider = Arc::new(provider(name));
    let key = signing_key(&provider, bits);
    server_with_key(provider, version, leaf, key)
}

/// The fixture key of `bits`, loaded by `provider`'s key provider.
fn signing_key(provider: &CryptoProvider, bits: u32) -> Arc<dyn SigningKey> {
    let der = PrivateKeyDer::from_pem_slice(key_pem(bits).as_bytes()).unwrap();
    provider.key_provider.load_private_key(der).unwrap()
}

/// A server on `provider` with `leaf` and `key`, no resumption.
fn server_with_key(
    provider: Arc<CryptoProvider>,
    version: &'static SupportedProtocolVersion,
    leaf: &CertificateDer<'static>,
    key: Arc<dyn SigningKey>,
) -> Arc<ServerConfig> {
    let certified = CertifiedKey::new(vec![leaf.clone()], key);
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[version])
        .unwrap()
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(OneKey(Arc::new(certified))));
    config.session_storage = Arc::new(NoServerSessionStorage {});
    config.send_tls13_tickets = 0;
    Arc::new(config)
}

/// The client: aws-lc-rs, no resumption, recording the scheme the server
/// signed with.
fn client_config(
    version: &'static SupportedProtocolVersion,
    ca: &CertificateDer<'static>,
) -> (Arc<ClientConfig>, Arc<Recorder>) {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut roots = RootCertStore::empty();
    roots.add(ca.clone()).unwrap();
    let check = Recorder::new(
        WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .unwrap(),
        None,
    );
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[version])
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(check.clone())
        .with_no_client_auth();
    config.resumption = Resumption::disabled();
    (Arc::new(config), check)
}

/// One full handshake in memory; the time spent in the server's calls.
fn handshake(client: &Arc<ClientConfig>, server: &Arc<ServerConfig>) -> Duration {
    let name = ServerName::try_from("localhost").unwrap();
    let mut c = ClientConnection::new(client.clone(), name).unwrap();
    let started = Instant::now();
    let mut s = ServerConnection::new(server.clone()).unwrap();
    let mut server_time = started.elapsed();
    let mut buf = Vec::with_capacity(16 * 1024);
    while c.is_handshaking() || s.is_handshaking() {
        buf.clear();
        while c.wants_write() {
            c.write_tls(&mut buf).unwrap();
        }
        let started = Instant::now();
        let mut flight = &buf[..];
        while !flight.is_empty() {
            s.read_tls(&mut flight).unwrap();
            s.process_new_packets().unwrap();
        }
        let mut out = Vec::with_capacity(16 * 1024);
        while s.wants_write() {
            s.write_tls(&mut out).unwrap();
        }
        server_time += started.elapsed();
        let mut flight = &out[..];
        while !flight.is_empty() {
            c.read_tls(&mut flight).unwrap();
            c.process_new_packets().unwrap();
        }
    }
    server_time
}

fn handshakes(c: &mut Criterion) {
    println!("{}", numcrypt_limbs::backend::selection());
    let cases: [(&'static SupportedProtocolVersion, &str, u32); 4] = [
        (&rustls::version::TLS13, "tls13", 2048),
        (&rustls::version::TLS13, "tls13", 3072),
        (&rustls::version::TLS13, "tls13", 4096),
        (&rustls::version::TLS12, "tls12", 2048),
    ];
    for (version, label, bits) in cases {
        let (ca, leaf) = certificates(bits);
        let (client, check) = client_config(version, &ca);
        let servers: Vec<_> = PROVIDERS
            .iter()
            .map(|&p| (p, server_config(p, version, bits, &leaf)))
            .collect();
        // Same outcome with every provider before anything is timed.
        for (name, server) in &servers {
            check.clear();
            handshake(&client, server);
            assert_eq!(check.seen(), [SignatureScheme::RSA_PSS_SHA512], "{name}");
        }

        for turn in [Turn::Handshake, Turn::WarmBlock] {
            let name = format!("{}/{label}_{bits}", turn.name());
            if filter_allows(&name) {
                interleaved(&name, turn, &client, version, bits, &leaf);
            }
        }

        let mut group = c.benchmark_group("handshake_server");
        group.throughput(Throughput::Elements(1));
        for (name, server) in &servers {
            group.bench_function(BenchmarkId::new(format!("{label}_{bits}"), name), |b| {
                b.iter_custom(|iters| (0..iters).map(|_| handshake(&client, server)).sum())
            });
        }
        group.finish();

        if label == "tls13" {
            let case = format!("{label}_{bits}");
            let interleaved_name = format!("handshake_loopback_interleaved/{case}_1");
            if filter_allows(&interleaved_name) {
                interleaved_loopback(&interleaved_name, &client, &servers);
            }
            loopback_groups(c, &case, &client, &servers);
        }
    }

    let mut group = c.benchmark_group("rsa_sign");
    group.throughput(Throughput::Elements(1));
    let message = vec![0x5a; 130]; // a TLS 1.3 CertificateVerify's input
    for bits in [2048, 3072, 4096] {
        let signers: Vec<Box<dyn Signer>> = PROVIDERS
            .iter()
            .map(|name| {
                signing_key(&provider(name), bits)
                    .choose_scheme(&[SignatureScheme::RSA_PSS_SHA512])
                    .unwrap()
            })
            .collect();
        let interleaved_name = format!("rsa_sign_interleaved/{bits}");
        if filter_allows(&interleaved_name) {
            let times = take_turns(signers.len(), INTERLEAVED_ROUNDS, 1, |p| {
                signers[p].sign(&message).unwrap();
            });
            println!(
                "{interleaved_name}: {} (medians of {INTERLEAVED_ROUNDS} rounds)",
                compared_rounds(&PROVIDERS, &times)
            );
        }
        for (name, signer) in PROVIDERS.iter().zip(&signers) {
            group.bench_function(BenchmarkId::new(bits.to_string(), name), |b| {
                b.iter(|| signer.sign(&message).unwrap())
            });
        }
    }
    group.finish();
}

/// Rounds of the interleaved lines that take one handshake or signature
/// a provider a round.
const INTERLEAVED_ROUNDS: usize = 600;

/// How the interleaved in-memory line takes turns between the providers.
#[derive(Clone, Copy)]
enum Turn {
    /// One handshake each a round, [`INTERLEAVED_ROUNDS`] rounds: each
    /// provider's handshake follows the others', whose work displaces its
    /// code and data.
    Handshake,
    /// [`WARM_BLOCK`] handshakes in a row each a round, the first not
    /// timed, 100 rounds, a round's figure the median of the rest: as a
    /// server on one provider runs, its state warm from the handshake
    /// before, with the drift between providers still a few
    /// milliseconds.
    WarmBlock,
}

/// Handshakes a provider makes in a row in [`Turn::WarmBlock`].
const WARM_BLOCK: usize = 8;

impl Turn {
    fn name(self) -> &'static str {
        match self {
            Turn::Handshake => "handshake_server_interleaved",
            Turn::WarmBlock => "handshake_server_blocks",
        }
    }

    /// (rounds, handshakes a provider makes in a row each round)
    fn shape(self) -> (usize, usize) {
        match self {
            Turn::Handshake => (INTERLEAVED_ROUNDS, 1),
            Turn::WarmBlock => (100, WARM_BLOCK),
        }
    }
}

/// The in-memory handshakes of every provider's server taking turns as
/// `turn` says; prints each one's median server time and numcrypt's ratio
/// (the peer's time ÷ numcrypt's: above 1, numcrypt is faster), then the
/// same split into the signature (timed around the signer's call, a
/// wrapper about the provider's key) and the rest of the handshake.
fn interleaved(
    name: &str,
    turn: Turn,
    client: &Arc<ClientConfig>,
    version: &'static SupportedProtocolVersion,
    bits: u32,
    leaf: &CertificateDer<'static>,
) {
    let servers: Vec<_> = PROVIDERS
        .iter()
        .map(|&p| (p, timed_server_config(p, version, bits, leaf)))
        .collect();
    let (rounds, block) = turn.shape();
    // [provider][round]: the round's median handshake, signature, rest.
    let mut whole = vec![Vec::with_capacity(rounds); servers.len()];
    let (mut signing, mut rest) = (whole.clone(), whole.clone());
    for _ in 0..rounds {
        for (i, (_, (server, spent))) in servers.iter().enumerate() {
            let mut timed = [const { Vec::new() }; 3];
            for k in 0..block {
                let before = spent.load(Ordering::Relaxed);
                let took = handshake(client, server);
                let signed = Duration::from_nanos(spent.load(Ordering::Relaxed) - before);
                // In a block, the first handshake only warms the provider.
                if block == 1 || k > 0 {
                    for (t, d) in timed
                        .iter_mut()
                        .zip([took, signed, took.saturating_sub(signed)])
                    {
                        t.push(d);
                    }
                }
            }
            let [w, s, r] = timed.map(median);
            whole[i].push(w);
            signing[i].push(s);
            rest[i].push(r);
        }
    }
    let names: Vec<&str> = servers.iter().map(|(p, _)| *p).collect();
    println!(
        "{name}: {} (medians of {rounds} rounds)",
        compared_rounds(&names, &whole)
    );
    println!("  of which signing: {}", compared_rounds(&names, &signing));
    println!("  the rest: {}", compared_rounds(&names, &rest));
}

/// A server as `server_config` makes it, whose key adds the time its
/// signatures take to the counter returned with it (nanoseconds).
fn timed_server_config(
    name: &str,
    version: &'static SupportedProtocolVersion,
    bits: u32,
    leaf: &CertificateDer<'static>,
) -> (Arc<ServerConfig>, Arc<AtomicU64>) {
    let provider = Arc::new(provider(name));
    let spent = Arc::new(AtomicU64::new(0));
    let key = TimedKey {
        inner: signing_key(&provider, bits),
        spent: spent.clone(),
    };
    let config = server_with_key(provider, version, leaf, Arc::new(key));
    (config, spent)
}

/// A provider's signing key, timed: its signers add their time to `spent`.
#[derive(Debug)]
struct TimedKey {
    inner: Arc<dyn SigningKey>,
    spent: Arc<AtomicU64>,
}

impl SigningKey for TimedKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        let inner = self.inner.choose_scheme(offered)?;
        Some(Box::new(TimedSigner {
            inner,
            spent: self.spent.clone(),
        }))
    }

    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        self.inner.public_key()
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        self.inner.algorithm()
    }
}

#[derive(Debug)]
struct TimedSigner {
    inner: Box<dyn Signer>,
    spent: Arc<AtomicU64>,
}

impl Signer for TimedSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        let started = Instant::now();
        let signature = self.inner.sign(message);
        let took = started.elapsed().as_nanos() as u64;
        self.spent.fetch_add(took, Ordering::Relaxed);
        signature
    }

    fn scheme(&self) -> SignatureScheme {
        self.inner.scheme()
    }
}

/// Every handshake gets the one certificate and key.
#[derive(Debug)]
struct OneKey(Arc<CertifiedKey>);

impl ResolvesServerCert for OneKey {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// Over loopback, one client thread connecting to every server in turn,
/// one handshake a round, each server its own thread and listener; prints
/// each one's median wall time a handshake (the client's, as
/// `handshake_loopback`) and its server thread's CPU time a handshake (as
/// `handshake_loopback_server_cpu`).
fn interleaved_loopback(
    name: &str,
    client: &Arc<ClientConfig>,
    servers: &[(&str, Arc<ServerConfig>)],
) {
    let listeners: Vec<TcpListener> = servers
        .iter()
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs: Vec<_> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
    let server_threads: Vec<_> = listeners
        .into_iter()
        .zip(servers)
        .map(|(listener, (_, config))| {
            server_thread(listener, config.clone(), INTERLEAVED_ROUNDS as u64, None)
        })
        .collect();
    let mut walls = vec![Vec::with_capacity(INTERLEAVED_ROUNDS); servers.len()];
    for _ in 0..INTERLEAVED_ROUNDS {
        for (wall, &addr) in walls.iter_mut().zip(&addrs) {
            let started = Instant::now();
            connect(addr, client);
            wall.push(started.elapsed());
        }
    }
    let cpu: Vec<Duration> = server_threads
        .into_iter()
        .map(|t| t.join().unwrap() / INTERLEAVED_ROUNDS as u32)
        .collect();
    let names: Vec<&str> = servers.iter().map(|(p, _)| *p).collect();
    println!("{name}: wall (medians) {}", compared_rounds(&names, &walls));
    if thread_cpu_time().is_some() {
        println!("{name}: server CPU (means) {}", compared(&names, &cpu));
    }
    println!("  ({INTERLEAVED_ROUNDS} rounds)");
}

/// The loopback groups for one certificate: wall time and the server's CPU
/// time per handshake, 1 and 8 clients.
fn loopback_groups(
    c: &mut Criterion,
    case: &str,
    client: &Arc<ClientConfig>,
    servers: &[(&str, Arc<ServerConfig>)],
) {
    for server_cpu in [false, true] {
        let group_name = if server_cpu {
            "handshake_loopback_server_cpu"
        } else {
            "handshake_loopback"
        };
        if server_cpu && thread_cpu_time().is_none() {
            println!("{group_name}: skipped (no /proc/thread-self/schedstat)");
            continue;
        }
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(1));
        if server_cpu {
            // Criterion sizes samples by the time returned, here the
            // server's CPU time, a sixth of the wall time with 8 clients.
            group.warm_up_time(Duration::from_millis(500));
            group.measurement_time(Duration::from_secs(1));
        }
        for clients in [1usize, 8] {
            for (name, server) in servers {
                let id = BenchmarkId::new(format!("{case}_{clients}"), name);
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| {
                        let run = loopback(clients, iters, client, server);
                        if server_cpu { run.server_cpu } else { run.wall }
                    })
                });
            }
        }
        group.finish();
    }
}

/// Per handshake: the wall time of a loopback run (all its handshakes'
/// time ÷ clients), and the server threads' CPU time (their sum ÷
/// clients).
struct Loopback {
    wall: Duration,
    server_cpu: Duration,
}

/// `clients` client threads, each making `iters` full handshakes in turn
/// over loopback TCP, against `clients` server threads sharing one
/// listener, each serving `iters` connections.
fn loopback(
    clients: usize,
    iters: u64,
    client: &Arc<ClientConfig>,
    server: &Arc<ServerConfig>,
) -> Loopback {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let start = Arc::new(Barrier::new(2 * clients + 1));
    let servers: Vec<_> = (0..clients)
        .map(|_| {
            let listener = listener.try_clone().unwrap();
            server_thread(listener, server.clone(), iters, Some(start.clone()))
        })
        .collect();
    let clients_threads: Vec<_> = (0..clients)
        .map(|_| {
            let (client, start) = (client.clone(), start.clone());
            let thread = thread::Builder::new().name("hs-client".into());
            thread
                .spawn(move || {
                    start.wait();
                    for _ in 0..iters {
                        connect(addr, &client);
                    }
                })
                .unwrap()
        })
        .collect();
    start.wait();
    let started = Instant::now();
    for t in clients_threads {
        t.join().unwrap();
    }
    let wall = started.elapsed();
    let server_cpu: Duration = servers.into_iter().map(|t| t.join().unwrap()).sum();
    Loopback {
        wall: wall / clients as u32,
        server_cpu: server_cpu / clients as u32,
    }
}

/// A server thread serving `count` connections from `listener` (after
/// `start`, if given), returning its CPU time. Named, so that a profiler
/// can tell the server's threads apart (`perf report --comm hs-server`).
fn server_thread(
    listener: TcpListener,
    config: Arc<ServerConfig>,
    count: u64,
    start: Option<Arc<Barrier>>,
) -> thread::JoinHandle<Duration> {
    thread::Builder::new()
        .name("hs-server".into())
        .spawn(move || {
            if let Some(start) = start {
                start.wait();
            }
            let cpu = thread_cpu_time().unwrap_or_default();
            for _ in 0..count {
                serve(&listener, &config);
            }
            thread_cpu_time().unwrap_or_default() - cpu
        })
        .unwrap()
}

/// The server's side of one loopback handshake: accept, handshake, a byte
/// of application data and close_notify.
fn serve(listener: &TcpListener, config: &Arc<ServerConfig>) {
    let (mut tcp, _) = listener.accept().unwrap();
    tcp.set_nodelay(true).unwrap();
    let mut tls = ServerConnection::new(config.clone()).unwrap();
    while tls.is_handshaking() {
        tls.complete_io(&mut tcp).unwrap();
    }
    tls.writer().write_all(b"k").unwrap();
    tls.send_close_notify();
    while tls.wants_write() {
        tls.write_tls(&mut tcp).unwrap();
    }
}

/// The client's side: connect, handshake, read the server's byte to its
/// close_notify.
fn connect(addr: std::net::SocketAddr, config: &Arc<ClientConfig>) {
    let mut tcp = TcpStream::connect(addr).unwrap();
    tcp.set_nodelay(true).unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let mut tls = ClientConnection::new(config.clone(), name).unwrap();
    let mut got = Vec::new();
    Stream::new(&mut tls, &mut tcp)
        .read_to_end(&mut got)
        .unwrap();
    assert_eq!(got, b"k");
}

/// This thread's CPU time so far (user and kernel), from Linux's
/// `/proc/thread-self/schedstat`; `None` where there is none.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

fn config() -> Criterion {
    Criterion::default()
        .without_plots()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
}

criterion::criterion_group!(name = benches; config = config(); targets = handshakes);
criterion::criterion_main!(benches);
