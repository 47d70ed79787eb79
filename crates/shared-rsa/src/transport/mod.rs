//! How parties talk: the [`Transport`] trait, with [`MemoryNetwork`]
//! (in-process channels, for tests and single-process demos) and
//! [`TlsTransport`] (mutual TLS 1.3 over TCP, for parties on separate
//! machines).
//!
//! A transport carries byte messages between numbered parties on numbered
//! *channels*: each key-generation thread ("lane") has its own channel, so
//! several candidates are in flight over one connection per pair of
//! parties. Messages on one channel from one sender arrive in order.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::Error;

mod memory;
mod tls;

pub use memory::{MemoryNetwork, MemoryTransport};
pub use tls::{
    MAX_FRAME, MAX_PENDING_HANDSHAKES, MAX_QUEUED, TlsConfig, TlsPeer, TlsTransport, fingerprint,
    party_name,
};

/// A connection of one party to all the others.
///
/// Party indices are 0-based here (`0..party_count()`); errors report them
/// 1-based. Implementations must be usable from several threads at once.
pub trait Transport: Send + Sync {
    /// The number of parties.
    fn party_count(&self) -> usize;

    /// This party's index.
    fn index(&self) -> usize;

    /// Sends `payload` to party `to` on `channel`. Fails with
    /// [`Error::Disconnected`] when the peer is gone.
    fn send(&self, to: usize, channel: u16, payload: Vec<u8>) -> Result<(), Error>;

    /// The next message from party `from` on `channel`, waiting at most
    /// `timeout`: [`Error::Timeout`] after that, [`Error::Disconnected`]
    /// when the peer has gone and nothing is left to read, and
    /// [`Error::Aborted`] once [`abort`](Self::abort) has been called.
    fn recv(&self, from: usize, channel: u16, timeout: Duration) -> Result<Vec<u8>, Error>;

    /// Bytes this party has put on the wire so far (payloads plus framing
    /// and, for TCP, the record overhead and the handshake).
    fn bytes_sent(&self) -> u64;

    /// Stops this party: pending and later receives fail with
    /// [`Error::Aborted`], and the peers see a disconnection.
    fn abort(&self);

    /// Stops this party because of `cause`: when the error names a peer
    /// (one that disconnected, went silent or sent garbage), the others
    /// are told first, so that every party names the one that failed
    /// rather than the one that stopped first (a blame notice on a control
    /// channel of its own).
    fn abort_because(&self, cause: &Error) {
        let _ = cause;
        self.abort();
    }
}

/// The channel of [`Blame`] notices (lanes use `1..=64`, setup `0`,
/// signing `u16::MAX`).
pub(crate) const CONTROL_CHANNEL: u16 = u16::MAX - 1;

/// Which peer a party blames as it stops, sent to the others on
/// [`CONTROL_CHANNEL`] just before its connections close: `kind (1:
/// disconnected, 2: silent, 3: malformed) ‖ party (u16, 1-based)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Blame {
    kind: u8,
    /// 0-based.
    party: usize,
}

impl Blame {
    pub(crate) fn of(cause: &Error) -> Option<Self> {
        let (kind, party) = match cause {
            Error::Disconnected { party } => (1, *party),
            Error::Timeout { party, .. } => (2, *party),
            Error::Malformed { party, .. } => (3, *party),
            _ => return None,
        };
        Some(Self {
            kind,
            party: party.checked_sub(1)?,
        })
    }

    pub(crate) fn encode(self) -> Vec<u8> {
        let mut m = vec![self.kind];
        m.extend_from_slice(&(self.party as u16 + 1).to_be_bytes());
        m
    }

    fn decode(bytes: &[u8], parties: usize) -> Option<Self> {
        match bytes {
            [kind @ 1..=3, hi, lo] => {
                let party = usize::from(u16::from_be_bytes([*hi, *lo])).checked_sub(1)?;
                (party < parties).then_some(Self { kind: *kind, party })
            }
            _ => None,
        }
    }

    /// What a party that stopped because of this means to us.
    fn error(self, timeout: Duration) -> Error {
        let party = self.party + 1;
        match self.kind {
            1 => Error::Disconnected { party },
            2 => Error::Timeout {
                party,
                after: timeout,
            },
            _ => Error::Malformed {
                party,
                what: "reported by another party, which stopped",
            },
        }
    }
}

/// Incoming messages of one party, by sender and channel: what the
/// transports deliver into and [`Transport::recv`] reads from.
pub(crate) struct Mailbox {
    state: Mutex<MailState>,
    arrived: Condvar,
}

struct MailState {
    queues: HashMap<(usize, u16), VecDeque<Vec<u8>>>,
    /// Bytes waiting from each peer.
    queued: Vec<usize>,
    /// Peers that have gone (nothing more will arrive from them).
    closed: Vec<bool>,
    /// Why a peer was cut off, if it broke the rules.
    failed: Vec<Option<&'static str>>,
    /// Whom a peer blamed as it stopped.
    blamed: Vec<Option<Blame>>,
    aborted: bool,
}

impl Mailbox {
    pub(crate) fn new(parties: usize) -> Self {
        Self {
            state: Mutex::new(MailState {
                queues: HashMap::new(),
                queued: vec![0; parties],
                closed: vec![false; parties],
                failed: vec![None; parties],
                blamed: vec![None; parties],
                aborted: false,
            }),
            arrived: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MailState> {
        // A panic elsewhere cannot leave the queues half-updated.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn deliver(&self, from: usize, channel: u16, payload: Vec<u8>) {
        self.deliver_bounded(from, channel, payload, usize::MAX);
    }

    /// Queues a message unless `from` would then have more than `limit`
    /// bytes waiting (`false`: the message is dropped).
    pub(crate) fn deliver_bounded(
        &self,
        from: usize,
        channel: u16,
        payload: Vec<u8>,
        limit: usize,
    ) -> bool {
        let mut state = self.lock();
        if channel == CONTROL_CHANNEL {
            let parties = state.closed.len();
            if let (Some(b), Some(slot)) =
                (Blame::decode(&payload, parties), state.blamed.get_mut(from))
            {
                *slot = Some(b);
            }
            drop(state);
            self.arrived.notify_all();
            return true;
        }
        let Some(queued) = state.queued.get_mut(from) else {
            return false;
        };
        if queued.saturating_add(payload.len()) > limit {
            return false;
        }
        *queued += payload.len();
        state
            .queues
            .entry((from, channel))
            .or_default()
            .push_back(payload);
        drop(state);
        self.arrived.notify_all();
        true
    }

    /// Cuts `from` off for breaking the rules: receives from it fail with
    /// [`Error::Malformed`] saying `what`.
    pub(crate) fn fail(&self, from: usize, what: &'static str) {
        if let Some(f) = self.lock().failed.get_mut(from) {
            *f = Some(what);
        }
        self.close(from);
    }

    /// Marks `from` as gone: once its queued messages are read, receives
    /// from it fail with [`Error::Disconnected`].
    pub(crate) fn close(&self, from: usize) {
        if let Some(c) = self.lock().closed.get_mut(from) {
            *c = true;
        }
        self.arrived.notify_all();
    }

    pub(crate) fn abort(&self) {
        self.lock().aborted = true;
        self.arrived.notify_all();
    }

    pub(crate) fn is_closed(&self, from: usize) -> bool {
        self.lock().closed.get(from).copied().unwrap_or(true)
    }

    /// The error for a peer that has gone: the party it blamed as it
    /// stopped, if it said, else the peer itself (what a send to it, or a
    /// receive with nothing left, reports).
    pub(crate) fn gone(&self, from: usize, timeout: Duration) -> Error {
        Self::gone_error(&self.lock(), from, timeout)
    }

    fn gone_error(state: &MailState, from: usize, timeout: Duration) -> Error {
        if let Some(what) = state.failed.get(from).copied().flatten() {
            return Error::Malformed {
                party: from + 1,
                what,
            };
        }
        match state.blamed.get(from).copied().flatten() {
            Some(b) => b.error(timeout),
            None => Error::Disconnected { party: from + 1 },
        }
    }

    pub(crate) fn recv(
        &self,
        from: usize,
        channel: u16,
        timeout: Duration,
    ) -> Result<Vec<u8>, Error> {
        // Callers check timeouts against MAX_TIMEOUT; the cap keeps the
        // sum from overflowing whatever they pass.
        let deadline = Instant::now() + timeout.min(crate::MAX_TIMEOUT);
        let mut state = self.lock();
        loop {
            if state.aborted {
                return Err(Error::Aborted);
            }
            if let Some(what) = state.failed.get(from).copied().flatten() {
                return Err(Error::Malformed {
                    party: from + 1,
                    what,
                });
            }
            if let Some(msg) = state
                .queues
                .get_mut(&(from, channel))
                .and_then(VecDeque::pop_front)
            {
                state.queued[from] -= msg.len();
                return Ok(msg);
            }
            if state.closed.get(from).copied().unwrap_or(true) {
                return Err(Self::gone_error(&state, from, timeout));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::Timeout {
                    party: from + 1,
                    after: timeout,
                });
            }
            state = self
                .arrived
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
