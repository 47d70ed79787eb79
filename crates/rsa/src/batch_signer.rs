//! [`BatchSigner`]: an RSA signer that many threads share, which signs
//! whatever requests are waiting as one batch (PKCS#1 v1.5 or PSS, each
//! request its own scheme).
//!
//! Flat combining, no timer: a caller queues its request and, if fewer
//! batches are being signed than the process has cores, becomes a
//! combiner: it takes its core's share of the waiting requests (split
//! evenly among the cores without a batch, up to [`MAX_BATCH`]: eight
//! requests on two cores make two batches of four, which run at once,
//! rather than one of eight beside an idle core), signs them in one
//! batch of private operations
//! (as [`sign_pkcs1v15_prehashed_batch_each`](RsaPrivateKey::sign_pkcs1v15_prehashed_batch_each)
//! does) outside the lock, posts each result to its caller and wakes them. A
//! lone caller thus signs at once (a batch of one); callers that arrive
//! while every core runs a batch wait and are signed together. A
//! would-be combiner also waits, on events and not on a clock, for the
//! callers of the last batch that have not collected their results: each
//! of them either leaves or queues its next request at once, and
//! starting before they do would sign a batch of one while they queue
//! behind it (on 2 cores with 8 signing threads, batches of 2 instead of
//! 8: benches/RESULTS.md). So the batches share every caller inside the signer,
//! up to [`MAX_BATCH`]; nobody waits for a caller that is not.
//!
//! A combiner takes the requests queued from its own CPU first (where
//! the system says which: Linux), after any that two batches have left
//! waiting (so that a full queue cannot keep another CPU's out). A
//! caller's thread mostly stays on the CPU it last ran on, and at a
//! batch's end its callers queue their next requests from there; a caller
//! from another CPU, woken on that CPU while the batch there runs, waits
//! for it (the scheduler neither preempts the running batch nor moves the
//! caller to the idle CPU), and the next batch here, which counts on its
//! request, waits too (on 2 cores with 8 threads, one batch ran instead
//! of two a quarter of the time: benches/RESULTS.md).
//!
//! Callers wait parked ([`std::thread::park`]) and are woken one by one:
//! a batch's end wakes exactly its own callers and one queued caller (to
//! look whether a batch may start), not the callers of the batch beside
//! it, which would wake on that batch's core and take turns with it. (A
//! caller's thread may find one wake-up left over when it parks again
//! after signing, which `park`'s contract allows.)
//!
//! Each request's signature is that of its own message (for PKCS#1 v1.5
//! the same bytes as [`RsaPrivateKey::sign_pkcs1v15`]); a request that
//! fails (a fault caught by its check, a digest of the wrong length, a
//! scheme the key refuses) fails alone. The combiner's generator feeds the
//! blinding and the PSS salts of the whole batch: every caller passes one,
//! any of them may be used.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread::Thread;
use std::vec::Vec;

use numcrypt_limbs::SecretUint;
use rand_core::TryCryptoRng;

use crate::hash::RsaHash;
use crate::pss::Params as PssParams;
use crate::{Error, HashAlg, RsaPrivateKey};

/// The most requests one batch signs: the rest wait for the next (this
/// bounds how long a combiner works for others).
pub const MAX_BATCH: usize = 32;

/// Batches a request may be left out of for others queued from the
/// combiner's CPU before it goes first.
const PASSED_OVER: u8 = 2;

/// How a request to a [`BatchSigner`] is signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureScheme {
    /// RSASSA-PKCS1-v1_5 with this hash.
    Pkcs1v15(HashAlg),
    /// RSASSA-PSS with these parameters (a fresh random salt each).
    Pss(PssParams),
}

impl SignatureScheme {
    /// The hash the digest is made with.
    pub fn hash(&self) -> HashAlg {
        match self {
            Self::Pkcs1v15(hash) => *hash,
            Self::Pss(params) => params.hash,
        }
    }

    /// What [`RsaPrivateKey::sign_pkcs1v15`] or
    /// [`sign_pss`](RsaPrivateKey::sign_pss) refuses `key` for with this
    /// scheme, whatever the message (a weak hash, the key's size, an
    /// RSA-PSS key's restrictions, a salt too long for the key): a signer
    /// can offer exactly the schemes this accepts.
    pub fn check_key(&self, key: &RsaPrivateKey) -> Result<(), Error> {
        match self {
            Self::Pkcs1v15(hash) => key.pkcs1v15_signing_preconditions(*hash, false),
            Self::Pss(params) => key.pss_signing_preconditions(params, false).map(drop),
        }
    }

    /// The message representative of `digest` (checked for its length),
    /// salted from `rng` for PSS.
    fn representative<R: TryCryptoRng + ?Sized>(
        &self,
        key: &RsaPrivateKey,
        rng: &mut R,
        digest: &[u8],
    ) -> Result<SecretUint, Error> {
        self.hash().check_digest(digest)?;
        match self {
            Self::Pkcs1v15(hash) => {
                key.pkcs1v15_signing_preconditions(*hash, false)?;
                key.pkcs1v15_representative(*hash, digest)
            }
            Self::Pss(params) => {
                let salt_len = key.pss_signing_preconditions(params, false)?;
                key.pss_representative(rng, params, salt_len, digest)
            }
        }
    }
}

/// A signer for many threads that batches their requests (see the
/// [module](self)). `Send + Sync`: share it with an `Arc`.
pub struct BatchSigner {
    key: RsaPrivateKey,
    /// What [`sign`](Self::sign) signs with.
    scheme: SignatureScheme,
    state: Mutex<State>,
    /// The most batches signed at once: the cores this process may use.
    cores: usize,
}

#[derive(Default)]
struct State {
    next_ticket: u64,
    /// Requests not yet taken into a batch.
    waiting: Vec<Request>,
    /// Results not yet collected by their callers.
    results: BTreeMap<u64, Result<Vec<u8>, Error>>,
    /// Combiners signing a batch now.
    combiners: usize,
    /// Requests in the batches being signed.
    signing: usize,
    /// Callers inside `sign_prehashed`: queued, in a running batch, or
    /// holding a result they have not collected yet.
    active: usize,
    /// The most callers inside at once during the last batch, and so far
    /// during the current one.
    peak: usize,
    cycle_peak: usize,
    stats: BatchStats,
}

/// A request waiting for a batch: its ticket, its caller (parked until
/// its turn or its result), scheme, digest and CPU.
struct Request {
    ticket: u64,
    caller: Thread,
    scheme: SignatureScheme,
    digest: Vec<u8>,
    /// The CPU its caller queued it from, if known.
    cpu: Option<usize>,
    /// Batches that left it waiting (saturating).
    passed_over: u8,
}

impl State {
    /// The caller of the first queued request, to look whether a batch
    /// may start: the answer is the same for every queued caller, so
    /// waking one is enough (an arriving caller decides for itself).
    fn first_queued(&self) -> Option<Thread> {
        self.waiting.first().map(|r| r.caller.clone())
    }
}

/// Unparks `caller`, if any (outside the lock: it takes the lock first).
fn wake(caller: Option<Thread>) {
    if let Some(caller) = caller {
        caller.unpark();
    }
}

/// What a [`BatchSigner`] has done: requests signed and batches they took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Requests signed (or failed).
    pub requests: u64,
    /// Batches signed.
    pub batches: u64,
}

impl BatchSigner {
    /// A PKCS#1 v1.5 signer with `key` and `hash`. Errors as for
    /// [`RsaPrivateKey::sign_pkcs1v15`] for what concerns every request
    /// (SHA-1, a key below 2048 bits, an RSA-PSS key), checked here once.
    pub fn new(key: RsaPrivateKey, hash: HashAlg) -> Result<Self, Error> {
        Self::with_scheme(key, SignatureScheme::Pkcs1v15(hash))
    }

    /// A signer with `key` whose [`sign`](Self::sign) signs with `scheme`
    /// (requests may name others: [`sign_prehashed_with`](Self::sign_prehashed_with)).
    /// Errors: what `key` is refused for with `scheme`, checked here once.
    pub fn with_scheme(key: RsaPrivateKey, scheme: SignatureScheme) -> Result<Self, Error> {
        scheme.check_key(&key)?;
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let signer = Self {
            key,
            scheme,
            state: Mutex::new(State::default()),
            cores,
        };
        // A CPU without a row calibrates the batch's size once: here, not
        // later under the lock.
        signer.full_pass();
        Ok(signer)
    }

    /// At most `batches` (at least 1) batches signed at once; by default
    /// as many as the process has cores. Fewer suits a server whose cores
    /// are busy with other work too (a TLS server's handshakes): requests
    /// that arrive while the batches run wait and are signed together,
    /// for less CPU time a signature, rather than each on a core of its
    /// own.
    pub fn max_concurrent_batches(mut self, batches: usize) -> Self {
        self.cores = batches.max(1);
        self
    }

    /// The key.
    pub fn key(&self) -> &RsaPrivateKey {
        &self.key
    }

    /// Requests and batches so far.
    pub fn stats(&self) -> BatchStats {
        self.lock().stats
    }

    /// Signs `msg` with the signer's scheme, in a batch with whatever
    /// other requests are waiting.
    pub fn sign<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.sign_prehashed(rng, &self.scheme.hash().digest(msg))
    }

    /// Signs a message given by its digest (with the signer's scheme's
    /// hash): [`Error::InvalidLength`] for a digest of the wrong length.
    pub fn sign_prehashed<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error> {
        self.sign_prehashed_with(rng, self.scheme, digest)
    }

    /// Signs a message given by its digest with `scheme` (a TLS server
    /// signs with whatever scheme each peer asks for), in a batch with
    /// whatever other requests are waiting, whatever their schemes.
    /// Errors: [`Error::InvalidLength`] for a digest of the wrong length,
    /// and what the key is refused for with `scheme`, before any work.
    pub fn sign_prehashed_with<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        scheme: SignatureScheme,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error> {
        scheme.hash().check_digest(digest)?;
        scheme.check_key(&self.key)?;
        let mut state = self.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.waiting.push(Request {
            ticket,
            caller: std::thread::current(),
            scheme,
            digest: digest.to_vec(),
            cpu: current_cpu(),
            passed_over: 0,
        });
        state.active += 1;
        state.cycle_peak = state.cycle_peak.max(state.active);
        loop {
            if let Some(result) = state.results.remove(&ticket) {
                state.active -= 1;
                let next = state.first_queued();
                drop(state);
                wake(next);
                return result;
            }
            // Wait while every core runs a batch, while nothing is queued,
            // and while callers that have not yet queued (their last
            // result posted, not yet collected) may still join: each of
            // them collects and leaves, or queues, and says so.
            // A batch beside a running one only when it fills a pass of the
            // batch exponentiation, or holds every caller that could join:
            // smaller ones wait for the running one to end (an event, not
            // a clock) and grow meanwhile.
            let queued = state.waiting.len();
            let could_queue = state.active - state.signing;
            let enough = match state.combiners {
                0 => queued >= could_queue.min(MAX_BATCH),
                // As many as a pass holds, or as could join: the callers
                // seen at once lately, less those being signed.
                _ => {
                    queued
                        >= self
                            .full_pass()
                            .min(state.peak.saturating_sub(state.signing))
                }
            };
            let mine_queued = state.waiting.iter().any(|r| r.ticket == ticket);
            if !mine_queued || state.combiners >= self.cores || !enough {
                // Woken for its result, or for a turn that may have come:
                // either way it looks again (and a wake-up that finds
                // neither is harmless).
                drop(state);
                std::thread::park();
                state = self.lock();
                continue;
            }
            // Become the combiner: sign this core's share of what is
            // waiting (the rest is for the cores without a batch, whose
            // combiners this wakes), its own request first, outside the
            // lock.
            let free_cores = self.cores - state.combiners;
            let take = state.waiting.len().div_ceil(free_cores).min(MAX_BATCH);
            if let Some(mine) = state.waiting.iter().position(|r| r.ticket == ticket) {
                state.waiting[..=mine].rotate_right(1);
            }
            // Then those [`PASSED_OVER`] batches left waiting (none waits
            // through more), then those queued from this CPU (a stable sort).
            let here = current_cpu();
            state.waiting[1..].sort_by_key(|r| (r.passed_over < PASSED_OVER, r.cpu != here));
            let batch: Vec<Request> = state.waiting.drain(..take).collect();
            for left in &mut state.waiting {
                left.passed_over = left.passed_over.saturating_add(1);
            }
            state.combiners += 1;
            state.signing += batch.len();
            let next = (state.combiners < self.cores)
                .then(|| state.first_queued())
                .flatten();
            drop(state);
            wake(next);
            let mut combining = Combining {
                signer: self,
                own: ticket,
                batch,
            };
            let signed = self.sign_batch(rng, &combining.batch);
            let batch = core::mem::take(&mut combining.batch);
            drop(combining);
            state = self.lock();
            for (i, request) in batch.iter().enumerate() {
                let result = signed.get(i).cloned().unwrap_or(Err(Error::FaultDetected));
                state.results.insert(request.ticket, result);
            }
            state.stats.requests += batch.len() as u64;
            state.stats.batches += 1;
            state.combiners -= 1;
            state.signing -= batch.len();
            state.peak = state.cycle_peak;
            state.cycle_peak = state.active;
            let next = state.first_queued();
            drop(state);
            // Exactly the batch's callers, then one queued caller (a core
            // is free): nobody else's core is disturbed.
            for request in &batch {
                if request.ticket != ticket {
                    request.caller.unpark();
                }
            }
            wake(next);
            state = self.lock();
        }
    }

    /// One result per request: the private operations in one batch (a
    /// lone request as single signing signs it, which costs less than a
    /// batch of one).
    fn sign_batch<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        batch: &[Request],
    ) -> Vec<Result<Vec<u8>, Error>> {
        if let [request] = batch {
            let digest = &request.digest;
            return std::vec![match request.scheme {
                SignatureScheme::Pkcs1v15(hash) =>
                    self.key.sign_pkcs1v15_prehashed(rng, hash, digest),
                SignatureScheme::Pss(params) =>
                    self.key.sign_pss_prehashed_with(rng, &params, digest),
            }];
        }
        let inputs: Vec<Result<SecretUint, Error>> = batch
            .iter()
            .map(|r| r.scheme.representative(&self.key, rng, &r.digest))
            .collect();
        self.key.run_batch(rng, inputs, |_, s| {
            Ok(self.key.public_key().i2osp(&s)?.to_vec())
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the lock is held; the state stays usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Requests that fill one pass of the batch exponentiation (two CRT
    /// halves each): the least a batch beside a running one takes. Asked
    /// each time, as the kernel that leads a race of batch kernels may
    /// change.
    fn full_pass(&self) -> usize {
        let batch =
            numcrypt_limbs::backend::selection().batch_exponentiation(self.key.prime_limbs());
        (batch.lanes() / 2).max(1)
    }
}

/// A combiner's turn: if its batch unwinds (a panic while signing), the
/// other requests of the batch go back to the queue, the combiner leaves
/// and the turn ends, so that a waiting caller becomes the combiner and
/// nobody waits forever.
struct Combining<'a> {
    signer: &'a BatchSigner,
    /// The combiner's own request, which leaves with it.
    own: u64,
    batch: Vec<Request>,
}

impl Drop for Combining<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut state = self.signer.lock();
            let own = self.own;
            state.combiners -= 1;
            state.signing -= self.batch.len();
            self.batch.retain(|r| r.ticket != own);
            state.waiting.retain(|r| r.ticket != own);
            state.waiting.append(&mut self.batch);
            state.active -= 1;
            // Every queued caller looks again: one becomes the combiner.
            let queued: Vec<Thread> = state.waiting.iter().map(|r| r.caller.clone()).collect();
            drop(state);
            queued.iter().for_each(Thread::unpark);
        }
    }
}

impl core::fmt::Debug for BatchSigner {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BatchSigner")
            .field("key", &self.key)
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

/// The CPU the calling thread runs on, where the system says (Linux).
fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    return Some(rustix::thread::sched_getcpu());
    #[cfg(not(target_os = "linux"))]
    None
}
