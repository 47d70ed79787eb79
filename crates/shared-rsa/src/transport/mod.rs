//! How parties talk: the [`Transport`] trait, with [`MemoryNetwork`]
//! (in-process channels, for tests and single-process demos) and
//! [`TcpTransport`] (TCP with a mutually authenticated pre-shared-key
//! channel, for parties on separate machines).
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
mod tcp;

pub use memory::{MemoryNetwork, MemoryTransport};
pub use tcp::{Peer, TcpConfig, TcpTransport};

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
}

/// Incoming messages of one party, by sender and channel: what the
/// transports deliver into and [`Transport::recv`] reads from.
pub(crate) struct Mailbox {
    state: Mutex<MailState>,
    arrived: Condvar,
}

struct MailState {
    queues: HashMap<(usize, u16), VecDeque<Vec<u8>>>,
    /// Peers that have gone (nothing more will arrive from them).
    closed: Vec<bool>,
    aborted: bool,
}

impl Mailbox {
    pub(crate) fn new(parties: usize) -> Self {
        Self {
            state: Mutex::new(MailState {
                queues: HashMap::new(),
                closed: vec![false; parties],
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
        let mut state = self.lock();
        state
            .queues
            .entry((from, channel))
            .or_default()
            .push_back(payload);
        drop(state);
        self.arrived.notify_all();
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
            if let Some(msg) = state
                .queues
                .get_mut(&(from, channel))
                .and_then(VecDeque::pop_front)
            {
                return Ok(msg);
            }
            if state.closed.get(from).copied().unwrap_or(true) {
                return Err(Error::Disconnected { party: from + 1 });
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
