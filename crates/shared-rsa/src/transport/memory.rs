//! In-process channels between parties running as threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::{Mailbox, ReceivedFrom, Transport};
use crate::Error;

/// Builds the in-process endpoints of `n` parties.
///
/// ```
/// use numcrypt_shared_rsa::{MemoryNetwork, Transport};
/// use std::time::Duration;
///
/// let mut parties = MemoryNetwork::new(3);
/// parties[0].send(2, 0, b"hello".to_vec())?;
/// assert_eq!(parties[2].recv(0, 0, Duration::from_secs(1))?, b"hello");
/// drop(parties.remove(0)); // party 1 goes away
/// assert!(parties[1].recv(0, 0, Duration::from_secs(1)).is_err());
/// # Ok::<(), numcrypt_shared_rsa::Error>(())
/// ```
pub struct MemoryNetwork;

impl MemoryNetwork {
    /// One endpoint per party, in index order.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(n: usize) -> Vec<MemoryTransport> {
        Self::build(n, None)
    }

    /// One endpoint per party, each party known by its certificate (DER,
    /// in index order; [`Transport::identity`]), as a TLS transport knows
    /// its peers: a key generated over them records the identities, so
    /// partial signatures signed by those keys can be attributed.
    pub fn with_identities(certificates: Vec<Vec<u8>>) -> Vec<MemoryTransport> {
        let n = certificates.len();
        Self::build(n, Some(Arc::new(certificates)))
    }

    fn build(n: usize, identities: Option<Arc<Vec<Vec<u8>>>>) -> Vec<MemoryTransport> {
        let mailboxes: Arc<Vec<Mailbox>> = Arc::new((0..n).map(|_| Mailbox::new(n)).collect());
        (0..n)
            .map(|index| MemoryTransport {
                index,
                mailboxes: Arc::clone(&mailboxes),
                identities: identities.clone(),
                sent: AtomicU64::new(0),
                gone: AtomicBool::new(false),
            })
            .collect()
    }
}

/// One party's endpoint of a [`MemoryNetwork`]. Dropping it (or
/// [`abort`](Transport::abort)) disconnects the party: its peers' receives
/// fail with [`Error::Disconnected`] once its messages are read.
pub struct MemoryTransport {
    index: usize,
    mailboxes: Arc<Vec<Mailbox>>,
    identities: Option<Arc<Vec<Vec<u8>>>>,
    sent: AtomicU64,
    gone: AtomicBool,
}

impl MemoryTransport {
    fn leave(&self) {
        if self.gone.swap(true, Ordering::SeqCst) {
            return;
        }
        for (j, mailbox) in self.mailboxes.iter().enumerate() {
            if j != self.index {
                mailbox.close(self.index);
            }
        }
    }
}

impl Transport for MemoryTransport {
    fn party_count(&self) -> usize {
        self.mailboxes.len()
    }

    fn index(&self) -> usize {
        self.index
    }

    fn send(&self, to: usize, channel: u16, payload: Vec<u8>) -> Result<(), Error> {
        if self.gone.load(Ordering::SeqCst) {
            return Err(Error::Aborted);
        }
        let mailbox = self
            .mailboxes
            .get(to)
            .filter(|_| to != self.index)
            .ok_or(Error::InvalidInput("no such party"))?;
        // The receiver's departure shows in our mailbox.
        if self.mailboxes[self.index].is_closed(to) {
            return Err(self.mailboxes[self.index].gone(to));
        }
        // Counted as a TCP frame would be (channel and length), unencrypted.
        self.sent
            .fetch_add(payload.len() as u64 + 6, Ordering::Relaxed);
        mailbox.deliver(self.index, channel, payload);
        Ok(())
    }

    fn recv(&self, from: usize, channel: u16, timeout: Duration) -> Result<Vec<u8>, Error> {
        if from >= self.mailboxes.len() || from == self.index {
            return Err(Error::InvalidInput("no such party"));
        }
        self.mailboxes[self.index].recv(from, channel, timeout)
    }

    fn recv_any(&self, from: &[bool], channel: u16, timeout: Duration) -> ReceivedFrom {
        let mut from = from.to_vec();
        if let Some(me) = from.get_mut(self.index) {
            *me = false;
        }
        self.mailboxes[self.index].recv_any(&from, channel, timeout)
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    fn identity(&self, party: usize) -> Option<Vec<u8>> {
        self.identities.as_ref()?.get(party).cloned()
    }

    fn abort(&self) {
        self.mailboxes[self.index].abort();
        self.leave();
    }

    fn abort_because(&self, cause: &Error) {
        if let Some(blame) = super::Blame::of(cause)
            && !self.gone.load(Ordering::SeqCst)
        {
            for (j, mailbox) in self.mailboxes.iter().enumerate() {
                if j != self.index {
                    mailbox.deliver(self.index, super::CONTROL_CHANNEL, blame.encode());
                }
            }
        }
        self.abort();
    }
}

impl Drop for MemoryTransport {
    fn drop(&mut self) {
        self.leave();
    }
}
