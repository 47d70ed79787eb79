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
    MAX_FRAME, MAX_PENDING_HANDSHAKES, MAX_PENDING_PER_ADDRESS, MAX_QUEUED, TlsConfig, TlsPeer,
    TlsTransport, fingerprint, party_name,
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
    /// are told first, so that each can say whom the stopping party
    /// blamed ([`Error::Reported`]: its word, marked as such) rather than
    /// only that it stopped (a blame notice on a control channel of its
    /// own).
    fn abort_because(&self, cause: &Error) {
        let _ = cause;
        self.abort();
    }

    /// The certificate (DER) that authenticates party `party` on this
    /// transport (this party's own for its own index), if its parties
    /// have identities: key generation records them in the public key, so
    /// that partial signatures signed by those keys can be attributed.
    fn identity(&self, party: usize) -> Option<Vec<u8>> {
        let _ = party;
        None
    }

    /// The next message on `channel` from any party `j` with `from[j]`
    /// set, waiting at most `timeout`: `Ok((j, Ok(message)))`, or
    /// `Ok((j, Err(e)))` when party `j` has gone or broke the rules
    /// (nothing more will come from it; [`recv`](Self::recv)'s errors), or
    /// `Err` for the wait as a whole ([`Error::Timeout`] naming the first
    /// party waited for, [`Error::Aborted`]).
    ///
    /// The default polls each party in turn; the crate's transports wake
    /// on the first message.
    fn recv_any(&self, from: &[bool], channel: u16, timeout: Duration) -> ReceivedFrom {
        let deadline = Instant::now() + timeout.min(crate::MAX_TIMEOUT);
        let waiting = || from.iter().enumerate().filter(|&(_, &w)| w).map(|(j, _)| j);
        let first = waiting()
            .next()
            .ok_or(Error::InvalidInput("no party to wait for"))?;
        loop {
            for j in waiting() {
                match self.recv(j, channel, Duration::from_millis(1)) {
                    Ok(msg) => return Ok((j, Ok(msg))),
                    Err(Error::Timeout { .. }) => {}
                    Err(Error::Aborted) => return Err(Error::Aborted),
                    Err(e) => return Ok((j, Err(e))),
                }
            }
            if Instant::now() >= deadline {
                return Err(Error::Timeout {
                    party: first + 1,
                    after: timeout,
                });
            }
        }
    }
}

/// What [`Transport::recv_any`] returns: the party heard from and its
/// message (or why nothing more will come from it).
pub type ReceivedFrom = Result<(usize, Result<Vec<u8>, Error>), Error>;

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

    /// What party `by` (0-based), which stopped because of this, means to
    /// us: its report, marked as its word.
    fn error(self, by: usize) -> Error {
        Error::Reported {
            by: by + 1,
            party: self.party + 1,
            what: match self.kind {
                1 => "disconnected",
                2 => "went silent",
                _ => "sent a malformed message",
            },
        }
    }
}

/// What a queued message counts against its sender's allowance beyond its
/// payload: the bookkeeping of one message (its `Vec`, its queue slot), so
/// that a stream of empty messages fills the allowance too.
pub(crate) const MESSAGE_OVERHEAD: usize = 64;

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
    /// bytes waiting, each message counted as its payload plus
    /// [`MESSAGE_OVERHEAD`] (`false`: the message is dropped).
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
        let cost = payload.len().saturating_add(MESSAGE_OVERHEAD);
        if queued.saturating_add(cost) > limit {
            return false;
        }
        *queued += cost;
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
    /// stopped, if it said (as its report), else the peer itself (what a
    /// send to it, or a receive with nothing left, reports).
    pub(crate) fn gone(&self, from: usize) -> Error {
        Self::gone_error(&self.lock(), from)
    }

    fn gone_error(state: &MailState, from: usize) -> Error {
        if let Some(what) = state.failed.get(from).copied().flatten() {
            return Error::Malformed {
                party: from + 1,
                what,
            };
        }
        match state.blamed.get(from).copied().flatten() {
            Some(b) => b.error(from),
            None => Error::Disconnected { party: from + 1 },
        }
    }

    /// Takes the next message on `channel` from `from` if one is queued.
    fn pop(state: &mut MailState, from: usize, channel: u16) -> Option<Vec<u8>> {
        let msg = state
            .queues
            .get_mut(&(from, channel))
            .and_then(VecDeque::pop_front)?;
        state.queued[from] -= msg.len() + MESSAGE_OVERHEAD;
        Some(msg)
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
            if let Some(msg) = Self::pop(&mut state, from, channel) {
                return Ok(msg);
            }
            if state.closed.get(from).copied().unwrap_or(true) {
                return Err(Self::gone_error(&state, from));
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

    /// [`Transport::recv_any`] on this mailbox.
    pub(crate) fn recv_any(&self, from: &[bool], channel: u16, timeout: Duration) -> ReceivedFrom {
        let deadline = Instant::now() + timeout.min(crate::MAX_TIMEOUT);
        let mut state = self.lock();
        let parties = state.closed.len();
        let waiting: Vec<usize> = (0..parties.min(from.len())).filter(|&j| from[j]).collect();
        let first = *waiting
            .first()
            .ok_or(Error::InvalidInput("no party to wait for"))?;
        loop {
            if state.aborted {
                return Err(Error::Aborted);
            }
            for &j in &waiting {
                if let Some(what) = state.failed[j] {
                    let party = j + 1;
                    return Ok((j, Err(Error::Malformed { party, what })));
                }
                if let Some(msg) = Self::pop(&mut state, j, channel) {
                    return Ok((j, Ok(msg)));
                }
                if state.closed[j] {
                    return Ok((j, Err(Self::gone_error(&state, j))));
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::Timeout {
                    party: first + 1,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A peer that streams empty messages on a channel nobody reads is cut
    /// off once they fill its allowance (they used to count for nothing,
    /// so memory grew without bound); reading them frees it again.
    #[test]
    fn empty_messages_count_against_the_allowance() {
        let mailbox = Mailbox::new(2);
        let limit = 1 << 16;
        let accepted = (0..limit)
            .take_while(|_| mailbox.deliver_bounded(1, 7, Vec::new(), limit))
            .count();
        assert_eq!(accepted, limit / MESSAGE_OVERHEAD);
        for _ in 0..accepted {
            assert!(mailbox.recv(1, 7, Duration::ZERO).unwrap().is_empty());
        }
        assert!(mailbox.deliver_bounded(1, 7, Vec::new(), limit));
    }

    /// Whom a stopping peer blames is reported as its word, naming both.
    #[test]
    fn a_blame_notice_is_reported_as_the_senders_word() {
        let mailbox = Mailbox::new(3);
        let notice = Blame::of(&Error::Disconnected { party: 3 }).unwrap();
        mailbox.deliver(1, CONTROL_CHANNEL, notice.encode());
        mailbox.close(1);
        match mailbox.recv(1, 0, Duration::from_secs(1)) {
            Err(Error::Reported {
                by: 2,
                party: 3,
                what,
            }) => assert_eq!(what, "disconnected"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn recv_any_takes_the_first_message_and_reports_who_has_gone() {
        let mailbox = Mailbox::new(4);
        let mut waiting = [false, true, true, true];
        assert!(matches!(
            mailbox.recv_any(&waiting, 5, Duration::from_millis(10)),
            Err(Error::Timeout { party: 2, .. })
        ));
        mailbox.deliver(3, 5, b"x".to_vec());
        mailbox.close(2);
        let mut seen = Vec::new();
        for _ in 0..2 {
            match mailbox
                .recv_any(&waiting, 5, Duration::from_secs(1))
                .unwrap()
            {
                (3, Ok(m)) => seen.push((3, m == b"x")),
                (2, Err(Error::Disconnected { party: 3 })) => seen.push((2, true)),
                other => panic!("{other:?}"),
            }
            waiting[seen.last().unwrap().0] = false;
        }
        seen.sort();
        assert_eq!(seen, [(2, true), (3, true)]);
        // Party 2 sends on another channel: still waited for, not taken.
        mailbox.deliver(1, 6, b"y".to_vec());
        assert!(matches!(
            mailbox.recv_any(&waiting, 5, Duration::from_millis(10)),
            Err(Error::Timeout { party: 2, .. })
        ));
        assert!(matches!(
            mailbox.recv_any(&[false; 4], 5, Duration::ZERO),
            Err(Error::InvalidInput(_))
        ));
    }
}
