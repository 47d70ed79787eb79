//! The run identifier: a hash of every party's certificate and of a nonce
//! from each party, agreed in the first round and carried by every later
//! message of the key generation, so that no message of one run (another
//! generation over the same connections, or parties that see different
//! certificates) is taken for one of another.

use std::time::Duration;

use sha2::{Digest, Sha256};
use zeroize::Zeroize;

use crate::Error;
use crate::transport::{ReceivedFrom, Transport};

/// Bytes of the run identifier a message carries.
pub(crate) const TAG_BYTES: usize = 16;

/// The run identifier: SHA-256 over the party count, each party's
/// certificate as this party's transport knows it (empty without one) and
/// each party's nonce, in party order.
pub(crate) fn run_id<T: Transport + ?Sized>(transport: &T, nonces: &[Vec<u8>]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"numcrypt shared-rsa run v1");
    h.update((nonces.len() as u64).to_be_bytes());
    for j in 0..nonces.len() {
        let cert = transport.identity(j).unwrap_or_default();
        h.update((cert.len() as u64).to_be_bytes());
        h.update(&cert);
    }
    for nonce in nonces {
        h.update((nonce.len() as u64).to_be_bytes());
        h.update(nonce);
    }
    h.finalize().into()
}

/// A transport whose messages carry the run identifier: each send prefixes
/// it, each receive checks and strips it (a message without it is
/// [`Error::Malformed`]: of another run).
pub(crate) struct RunTransport<'a, T: ?Sized> {
    inner: &'a T,
    tag: [u8; TAG_BYTES],
}

impl<'a, T: Transport + ?Sized> RunTransport<'a, T> {
    pub(crate) fn new(inner: &'a T, run_id: &[u8; 32]) -> Self {
        let mut tag = [0u8; TAG_BYTES];
        tag.copy_from_slice(&run_id[..TAG_BYTES]);
        Self { inner, tag }
    }

    fn strip(&self, from: usize, msg: Vec<u8>) -> Result<Vec<u8>, Error> {
        match msg.strip_prefix(&self.tag[..]) {
            Some(body) => Ok(body.to_vec()),
            None => Err(Error::Malformed {
                party: from + 1,
                what: "a message of another run (other nonces or other certificates)",
            }),
        }
    }
}

impl<T: Transport + ?Sized> Transport for RunTransport<'_, T> {
    fn party_count(&self) -> usize {
        self.inner.party_count()
    }

    fn index(&self) -> usize {
        self.inner.index()
    }

    fn send(&self, to: usize, channel: u16, mut payload: Vec<u8>) -> Result<(), Error> {
        let mut msg = Vec::with_capacity(TAG_BYTES + payload.len());
        msg.extend_from_slice(&self.tag);
        msg.extend_from_slice(&payload);
        payload.zeroize();
        self.inner.send(to, channel, msg)
    }

    fn recv(&self, from: usize, channel: u16, timeout: Duration) -> Result<Vec<u8>, Error> {
        let msg = self.inner.recv(from, channel, timeout)?;
        self.strip(from, msg)
    }

    fn recv_any(&self, from: &[bool], channel: u16, timeout: Duration) -> ReceivedFrom {
        let (j, msg) = self.inner.recv_any(from, channel, timeout)?;
        Ok((j, msg.and_then(|m| self.strip(j, m))))
    }

    fn bytes_sent(&self) -> u64 {
        self.inner.bytes_sent()
    }

    fn abort(&self) {
        self.inner.abort();
    }

    fn abort_because(&self, cause: &Error) {
        self.inner.abort_because(cause);
    }

    fn identity(&self, party: usize) -> Option<Vec<u8>> {
        self.inner.identity(party)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryNetwork;

    #[test]
    fn a_message_of_another_run_is_refused() {
        let net = MemoryNetwork::new(3);
        let this = RunTransport::new(&net[0], &[1; 32]);
        let other = RunTransport::new(&net[1], &[2; 32]);
        let same = RunTransport::new(&net[2], &[1; 32]);
        other.send(0, 4, b"hello".to_vec()).unwrap();
        same.send(0, 4, b"hello".to_vec()).unwrap();
        assert!(matches!(
            this.recv(1, 4, Duration::from_secs(1)),
            Err(Error::Malformed { party: 2, .. })
        ));
        assert_eq!(this.recv(2, 4, Duration::from_secs(1)).unwrap(), b"hello");
    }

    #[test]
    fn the_run_id_covers_certificates_and_nonces() {
        let plain = MemoryNetwork::new(2);
        let with = MemoryNetwork::with_identities(vec![b"cert one".to_vec(), b"cert two".to_vec()]);
        let nonces = vec![vec![1u8; 32], vec![2u8; 32]];
        let a = run_id(&plain[0], &nonces);
        assert_eq!(a, run_id(&plain[1], &nonces));
        assert_ne!(a, run_id(&with[0], &nonces));
        assert_ne!(a, run_id(&plain[0], &[vec![1u8; 32], vec![3u8; 32]]));
    }
}
