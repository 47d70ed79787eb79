//! TCP between parties, each pair over a channel authenticated and
//! encrypted with a pre-shared key.
//!
//! # The channel
//! Every pair of parties `i < j` shares a 32-byte secret key `psk_ij`
//! (made with, say, `openssl rand -hex 32` and given to both). Party `j`
//! connects to party `i`; then:
//!
//! 1. `j → i`: `"NCSRSA01" ‖ j ‖ i ‖ nonce_j` (indices as `u16`, a fresh
//!    32-byte random nonce); `i` checks the indices and picks `psk_ij`.
//! 2. `i → j`: `"NCSRSA01" ‖ i ‖ j ‖ nonce_i`.
//! 3. Both derive, with HKDF-SHA256 (salt: SHA-256 of both hellos; key
//!    material: `psk_ij`), one ChaCha20-Poly1305 key per direction.
//! 4. Each sends a first record holding SHA-256 of the hellos and checks
//!    the one it receives: a peer that decrypts and answers correctly knows
//!    `psk_ij` and took part in this very handshake (its key depends on our
//!    fresh nonce), so the authentication is mutual and replays fail.
//!
//! Records are `length (u32, big-endian) ‖ ChaCha20-Poly1305(frame)`, with
//! the record counter as nonce and the length as associated data, so that
//! dropped, reordered, replayed or altered records are detected; a frame
//! is `channel (u16) ‖ payload`.
//!
//! What this does not give: forward secrecy (whoever learns a pre-shared
//! key later can decrypt recorded traffic, which includes Shamir shares of
//! the prime shares) and identity beyond "holds `psk_ij`". Keep the keys
//! secret, and delete them when the key is made if the traffic may have
//! been recorded.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{ChaCha20Poly1305, KeyInit, Nonce};
use hkdf::Hkdf;
use sha2::{Digest, Sha256};
use zeroize::{Zeroize, Zeroizing};

use super::{Mailbox, Transport};
use crate::Error;

const MAGIC: &[u8; 8] = b"NCSRSA01";
const HELLO_LEN: usize = 8 + 2 + 2 + 32;
/// The largest record accepted (a frame of 64 MiB plus its tag).
const MAX_RECORD: usize = (64 << 20) + 16;
/// Bytes a record adds to a payload: length, channel and tag.
const RECORD_OVERHEAD: u64 = 4 + 2 + 16;

/// One party's entry in a [`TcpConfig`].
#[derive(Clone)]
pub struct Peer {
    /// `host:port` where the party listens.
    pub address: String,
    /// The key shared with this party (`None` for the local party's own
    /// entry).
    pub psk: Option<Zeroizing<[u8; 32]>>,
}

/// How to reach every party.
#[derive(Clone)]
pub struct TcpConfig {
    /// This party's index (0-based).
    pub index: usize,
    /// Every party, in index order, this one included.
    pub parties: Vec<Peer>,
    /// Where to listen, if not at this party's own address (for example
    /// `0.0.0.0:7001` behind a NAT).
    pub listen: Option<String>,
    /// How long to wait for all connections, and for any message later.
    pub timeout: Duration,
}

/// A party's TCP connections to all the others.
pub struct TcpTransport {
    index: usize,
    parties: usize,
    mailbox: Arc<Mailbox>,
    writers: Vec<Option<Mutex<RecordWriter>>>,
    streams: Vec<Option<TcpStream>>,
    readers: Vec<JoinHandle<()>>,
    /// One message from each reader thread when its peer's stream ends.
    reader_done: Mutex<std::sync::mpsc::Receiver<()>>,
    sent: Arc<AtomicU64>,
    closed: AtomicBool,
}

struct RecordWriter {
    stream: TcpStream,
    cipher: ChaCha20Poly1305,
    counter: u64,
}

struct RecordReader {
    stream: TcpStream,
    cipher: ChaCha20Poly1305,
    counter: u64,
}

fn nonce(counter: u64) -> Nonce {
    let mut n = Nonce::default();
    n[4..].copy_from_slice(&counter.to_be_bytes());
    n
}

impl RecordWriter {
    fn write(&mut self, frame: &[u8]) -> std::io::Result<u64> {
        let len = (frame.len() + 16) as u32;
        let aad = len.to_be_bytes();
        let body = self
            .cipher
            .encrypt(
                &nonce(self.counter),
                Payload {
                    msg: frame,
                    aad: &aad,
                },
            )
            .map_err(|_| std::io::Error::other("record too long"))?;
        self.counter += 1;
        let mut record = Vec::with_capacity(4 + body.len());
        record.extend_from_slice(&aad);
        record.extend_from_slice(&body);
        self.stream.write_all(&record)?;
        Ok(record.len() as u64)
    }
}

impl RecordReader {
    /// The next frame; `Ok(None)` at a clean end of stream.
    fn read(&mut self) -> Result<Option<Zeroizing<Vec<u8>>>, &'static str> {
        let mut len = [0u8; 4];
        match self.stream.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(_) => return Err("connection lost"),
        }
        let n = u32::from_be_bytes(len) as usize;
        if !(16..=MAX_RECORD).contains(&n) {
            return Err("record length out of range");
        }
        let mut body = vec![0u8; n];
        self.stream
            .read_exact(&mut body)
            .map_err(|_| "connection lost mid-record")?;
        let frame = self
            .cipher
            .decrypt(
                &nonce(self.counter),
                Payload {
                    msg: &body,
                    aad: &len,
                },
            )
            .map_err(|_| "record failed authentication")?;
        self.counter += 1;
        Ok(Some(Zeroizing::new(frame)))
    }
}

/// The hello of `from` to `to`.
fn hello(from: usize, to: usize, nonce: &[u8; 32]) -> [u8; HELLO_LEN] {
    let mut h = [0u8; HELLO_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..10].copy_from_slice(&(from as u16).to_be_bytes());
    h[10..12].copy_from_slice(&(to as u16).to_be_bytes());
    h[12..].copy_from_slice(nonce);
    h
}

/// Parses a hello: `(from, to, nonce)`.
fn parse_hello(h: &[u8; HELLO_LEN]) -> Option<(usize, usize)> {
    if &h[..8] != MAGIC {
        return None;
    }
    let from = u16::from_be_bytes([h[8], h[9]]) as usize;
    let to = u16::from_be_bytes([h[10], h[11]]) as usize;
    Some((from, to))
}

/// The two directions' ciphers from the key and the transcript:
/// `(initiator → responder, responder → initiator)`, and the transcript hash.
fn derive(psk: &[u8; 32], transcript: &[u8]) -> (ChaCha20Poly1305, ChaCha20Poly1305, [u8; 32]) {
    let th: [u8; 32] = Sha256::digest(transcript).into();
    let hk = Hkdf::<Sha256>::new(Some(&th), psk);
    let mut keys = Zeroizing::new([0u8; 64]);
    if hk
        .expand(b"numcrypt shared-rsa channel v1 keys", &mut keys[..])
        .is_err()
    {
        unreachable!("64 bytes is a valid HKDF-SHA256 output length");
    }
    let cipher = |k: &[u8]| match ChaCha20Poly1305::new_from_slice(k) {
        Ok(c) => c,
        Err(_) => unreachable!("32-byte keys"),
    };
    let (i2r, r2i) = (cipher(&keys[..32]), cipher(&keys[32..]));
    (i2r, r2i, th)
}

fn random_nonce() -> Result<[u8; 32], Error> {
    let mut n = [0u8; 32];
    getrandom::fill(&mut n).map_err(|_| Error::Randomness)?;
    Ok(n)
}

fn psk_of(config: &TcpConfig, peer: usize) -> Result<&[u8; 32], Error> {
    config
        .parties
        .get(peer)
        .and_then(|p| p.psk.as_deref())
        .ok_or_else(|| Error::InvalidConfig(format!("no pre-shared key for party {}", peer + 1)))
}

/// Finishes a handshake: exchanges and checks the confirmation records.
fn confirm(
    stream: &TcpStream,
    send: ChaCha20Poly1305,
    recv: ChaCha20Poly1305,
    th: &[u8; 32],
    peer: usize,
) -> Result<(RecordWriter, RecordReader), Error> {
    let mut writer = RecordWriter {
        stream: stream.try_clone()?,
        cipher: send,
        counter: 0,
    };
    let mut reader = RecordReader {
        stream: stream.try_clone()?,
        cipher: recv,
        counter: 0,
    };
    writer.write(th)?;
    let auth = |what| Error::Authentication {
        party: Some(peer + 1),
        what,
    };
    let got = reader
        .read()
        .map_err(auth)?
        .ok_or(auth("connection closed during the handshake"))?;
    if got.as_slice() != th {
        return Err(auth("handshake transcript mismatch"));
    }
    Ok((writer, reader))
}

type Link = (usize, TcpStream, RecordWriter, RecordReader);

/// Runs the initiator's side with `peer` over `stream`.
fn initiate(config: &TcpConfig, peer: usize, stream: TcpStream) -> Result<Link, Error> {
    let psk = psk_of(config, peer)?;
    let mut s = stream;
    let mine = hello(config.index, peer, &random_nonce()?);
    s.write_all(&mine)?;
    let mut theirs = [0u8; HELLO_LEN];
    s.read_exact(&mut theirs)
        .map_err(|_| Error::Authentication {
            party: Some(peer + 1),
            what: "connection closed during the handshake",
        })?;
    if parse_hello(&theirs) != Some((peer, config.index)) {
        return Err(Error::Authentication {
            party: Some(peer + 1),
            what: "unexpected handshake (wrong party at that address?)",
        });
    }
    let transcript = [&mine[..], &theirs[..]].concat();
    let (i2r, r2i, th) = derive(psk, &transcript);
    let (w, r) = confirm(&s, i2r, r2i, &th, peer)?;
    Ok((peer, s, w, r))
}

/// Runs the responder's side over an accepted `stream`.
fn respond(config: &TcpConfig, stream: TcpStream) -> Result<Link, Error> {
    let mut s = stream;
    let mut theirs = [0u8; HELLO_LEN];
    s.read_exact(&mut theirs)
        .map_err(|_| Error::Authentication {
            party: None,
            what: "connection closed during the handshake",
        })?;
    let Some((peer, to)) = parse_hello(&theirs) else {
        return Err(Error::Authentication {
            party: None,
            what: "not a numcrypt shared-rsa handshake",
        });
    };
    if to != config.index || peer <= config.index || peer >= config.parties.len() {
        return Err(Error::Authentication {
            party: Some(peer + 1),
            what: "unexpected party numbers in the handshake",
        });
    }
    let psk = psk_of(config, peer)?;
    let mine = hello(config.index, peer, &random_nonce()?);
    s.write_all(&mine)?;
    let transcript = [&theirs[..], &mine[..]].concat();
    let (i2r, r2i, th) = derive(psk, &transcript);
    let (w, r) = confirm(&s, r2i, i2r, &th, peer)?;
    Ok((peer, s, w, r))
}

fn resolve(address: &str) -> Result<SocketAddr, Error> {
    address
        .to_socket_addrs()
        .map_err(|e| Error::InvalidConfig(format!("address {address:?}: {e}")))?
        .next()
        .ok_or_else(|| Error::InvalidConfig(format!("address {address:?} resolves to nothing")))
}

impl TcpTransport {
    /// Listens, connects to every other party (retrying until
    /// `config.timeout`), and authenticates each link.
    ///
    /// Party `j` connects to every `i < j` and accepts every `k > j`.
    pub fn connect(config: &TcpConfig) -> Result<Self, Error> {
        let n = config.parties.len();
        let me = config.index;
        if n < 2 || me >= n {
            return Err(Error::InvalidConfig(
                "the party index must name one of at least two parties".into(),
            ));
        }
        let listen = config
            .listen
            .clone()
            .unwrap_or_else(|| config.parties[me].address.clone());
        let listener = TcpListener::bind(resolve(&listen)?)?;
        Self::connect_with_listener(config, listener)
    }

    /// [`connect`](Self::connect) on a listener the caller has bound (for
    /// example to port 0, with the addresses in `config` filled in after).
    pub fn connect_with_listener(config: &TcpConfig, listener: TcpListener) -> Result<Self, Error> {
        if config.timeout > crate::MAX_TIMEOUT {
            return Err(Error::InvalidConfig(format!(
                "timeout above {} s",
                crate::MAX_TIMEOUT.as_secs()
            )));
        }
        let n = config.parties.len();
        let me = config.index;
        let deadline = Instant::now() + config.timeout;
        let expected_inbound = n - 1 - me;

        let acceptor = {
            let config = config.clone();
            std::thread::spawn(move || -> Result<Vec<Link>, Error> {
                listener.set_nonblocking(true)?;
                let mut links = Vec::new();
                while links.len() < expected_inbound {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            stream.set_nonblocking(false)?;
                            stream.set_read_timeout(Some(config.timeout))?;
                            stream.set_nodelay(true)?;
                            let link = respond(&config, stream)?;
                            if links.iter().any(|l: &Link| l.0 == link.0) {
                                return Err(Error::Authentication {
                                    party: Some(link.0 + 1),
                                    what: "connected twice",
                                });
                            }
                            links.push(link);
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if Instant::now() > deadline {
                                return Err(Error::Timeout {
                                    party: (me + 1..n)
                                        .find(|p| links.iter().all(|l| l.0 != *p))
                                        .unwrap_or(me)
                                        + 1,
                                    after: config.timeout,
                                });
                            }
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
                Ok(links)
            })
        };

        let mut links: Vec<Link> = Vec::new();
        let mut outbound_error = None;
        for peer in 0..me {
            let addr = match resolve(&config.parties[peer].address) {
                Ok(a) => a,
                Err(e) => {
                    outbound_error = Some(e);
                    break;
                }
            };
            let stream = loop {
                match TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
                    Ok(s) => break Ok(s),
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(_) => {
                        break Err(Error::Timeout {
                            party: peer + 1,
                            after: config.timeout,
                        });
                    }
                }
            };
            let result = stream.and_then(|s| {
                s.set_read_timeout(Some(config.timeout))?;
                s.set_nodelay(true)?;
                initiate(config, peer, s)
            });
            match result {
                Ok(link) => links.push(link),
                Err(e) => {
                    outbound_error = Some(e);
                    break;
                }
            }
        }
        let inbound = acceptor
            .join()
            .unwrap_or_else(|_| Err(Error::InvalidInput("the accepting thread panicked")));
        if let Some(e) = outbound_error {
            return Err(e);
        }
        links.extend(inbound?);

        let mailbox = Arc::new(Mailbox::new(n));
        let sent = Arc::new(AtomicU64::new(0));
        let mut writers: Vec<Option<Mutex<RecordWriter>>> = (0..n).map(|_| None).collect();
        let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
        let mut readers = Vec::new();
        let (done_tx, reader_done) = std::sync::mpsc::channel();
        for (peer, stream, writer, mut reader) in links {
            // Handshake bytes count as traffic: hello, confirmation record.
            sent.fetch_add(HELLO_LEN as u64 + 32 + RECORD_OVERHEAD, Ordering::Relaxed);
            // Liveness is the protocol's business (its own timeouts).
            stream.set_read_timeout(None)?;
            writers[peer] = Some(Mutex::new(writer));
            streams[peer] = Some(stream);
            let mailbox = Arc::clone(&mailbox);
            let done = done_tx.clone();
            readers.push(std::thread::spawn(move || {
                while let Ok(Some(frame)) = reader.read() {
                    if frame.len() < 2 {
                        break;
                    }
                    let channel = u16::from_be_bytes([frame[0], frame[1]]);
                    mailbox.deliver(peer, channel, frame[2..].to_vec());
                }
                mailbox.close(peer);
                let _ = done.send(());
            }));
        }
        Ok(Self {
            index: me,
            parties: n,
            mailbox,
            writers,
            streams,
            readers,
            reader_done: Mutex::new(reader_done),
            sent,
            closed: AtomicBool::new(false),
        })
    }

    fn shutdown(&self, how: Shutdown) {
        for s in self.streams.iter().flatten() {
            let _ = s.shutdown(how);
        }
    }
}

impl Transport for TcpTransport {
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
        let writer = self
            .writers
            .get(to)
            .and_then(Option::as_ref)
            .ok_or(Error::InvalidInput("no such party"))?;
        let mut frame = Zeroizing::new(Vec::with_capacity(payload.len() + 2));
        frame.extend_from_slice(&channel.to_be_bytes());
        frame.extend_from_slice(&payload);
        let mut payload = payload;
        payload.zeroize();
        let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
        let bytes = w
            .write(&frame)
            .map_err(|_| Error::Disconnected { party: to + 1 })?;
        self.sent.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }

    fn recv(&self, from: usize, channel: u16, timeout: Duration) -> Result<Vec<u8>, Error> {
        if from >= self.parties || from == self.index {
            return Err(Error::InvalidInput("no such party"));
        }
        self.mailbox.recv(from, channel, timeout)
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    fn abort(&self) {
        self.mailbox.abort();
        self.closed.store(true, Ordering::SeqCst);
        self.shutdown(Shutdown::Both);
    }
}

impl Drop for TcpTransport {
    /// Closes gracefully: stops sending, lets the peers' last messages
    /// arrive (a reset could destroy data a peer has not read yet), then
    /// closes. A peer that keeps its side open is cut off after 2 s.
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        self.shutdown(Shutdown::Write);
        let deadline = Instant::now() + Duration::from_secs(2);
        let done = self
            .reader_done
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        for _ in 0..self.readers.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if done.recv_timeout(left).is_err() {
                break;
            }
        }
        self.shutdown(Shutdown::Both);
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
    }
}
