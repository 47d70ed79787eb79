//! Shared key generation: the public setup, the lanes that search for a
//! biprime in parallel, and the computation of the shares of `d`.

mod lane;
mod run;

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use numcrypt_limbs::ct_audit::{declassified, declassify_monty};
use numcrypt_limbs::{BoxedUint, Unsigned};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, SeedableRng};
use sha2::{Digest, Sha256};
use zeroize::{Zeroize, Zeroizing};

use crate::arith::{Interpolator, Ring};
use crate::key::{SharedKeyShare, SharedPublicKey, verification_base};
use crate::sieve::{PrimeRange, SieveModulus, TrialDivision, field_prime, odd_primes_up_to};
use crate::threshold::{self, Sizes, poly_shares};
use crate::transport::Transport;
use crate::wire::{Reader, Writer};
use crate::{Error, MAX_KEY_BITS, MAX_PARTIES, MIN_KEY_BITS};
use run::{RunTransport, run_id};

/// The four improvements of Malkin, Wu and Boneh, each of which can be
/// switched off to measure what it brings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Improvements {
    /// Distributed sieving: the prime candidates are built with no prime
    /// factor up to the sieve bound (off: each party draws its shares at
    /// random, and trial division of `N` does all the filtering).
    pub distributed_sieving: bool,
    /// Several candidates in flight: `threads` lanes per party, each
    /// carrying `batch` candidates per round trip (off: one lane, one
    /// candidate at a time).
    pub multithreading: bool,
    /// Load balancing of the biprimality test: the party that holds the
    /// `3 mod 4` shares, and so computes the full-length exponentiation,
    /// changes from candidate to candidate (off: always party 1).
    pub load_balancing: bool,
    /// Parallel trial division of `N`: each party divides by its own part of
    /// the primes and the parties exchange verdicts (off: every party
    /// divides by all of them).
    pub parallel_trial_division: bool,
}

impl Improvements {
    /// All four on (the default).
    pub const ALL: Self = Self {
        distributed_sieving: true,
        multithreading: true,
        load_balancing: true,
        parallel_trial_division: true,
    };
}

impl Default for Improvements {
    fn default() -> Self {
        Self::ALL
    }
}

/// Parameters of a key generation; every party must use the same ones
/// (they are compared at the start, [`Error::ConfigMismatch`]).
#[derive(Clone, Debug)]
pub struct KeyGenConfig {
    /// Size of `N` in bits: even, from [`MIN_KEY_BITS`] to [`MAX_KEY_BITS`].
    pub bits: u32,
    /// The public exponent: odd, `3 <= e < 2^32`, with no prime factor up to
    /// the number of parties (65537 by default). It need not be prime: a
    /// candidate is kept only if `φ(N)` is prime to `e`.
    pub public_exponent: u32,
    /// The signing threshold `t`: any `t + 1` parties sign, and any `t`
    /// learn nothing about `d`; from 1 to `⌊(n − 1)/2⌋` (the generation's
    /// own bound). `None`: `⌊(n − 1)/2⌋`. `t + 1` parties together hold the
    /// key, so the largest `t` the parties' availability allows is the
    /// safest.
    pub threshold: Option<usize>,
    /// Distributed sieving removes prime factors up to this bound from `p`
    /// and `q`; `None` picks the largest that leaves 24 bits of each party's
    /// random multiple of `M` (the best, by measurement: see `benches/RESULTS.md`).
    pub sieve_bound: Option<u32>,
    /// Trial division of `N` by primes up to this bound (beyond the sieve);
    /// `None` picks a size-dependent default tuned by measurement.
    pub trial_division_bound: Option<u32>,
    /// Lanes (threads) per party, each with its own candidates in flight.
    pub threads: usize,
    /// Candidates per lane per round trip; `None` (the default): party 1
    /// measures the round trip before the search and picks
    /// [`auto_batch`] of it for everyone (32 on a LAN, up to 256 across
    /// continents), so that waiting for the network does not dominate
    /// (benches/RESULTS.md, "Shared RSA: scale and distance").
    pub batch: Option<usize>,
    /// Which of the four improvements are on.
    pub improvements: Improvements,
    /// How long to wait for any one message before giving up on its sender.
    pub timeout: Duration,
    /// Give up after this many candidates ([`Error::CandidateLimit`]).
    pub max_candidates: u64,
    /// How often [`generate_key_with_progress`] reports during the search
    /// (local to each party: not compared with the others).
    pub progress_interval: Duration,
    /// Keep this party's shares `p_i`, `q_i` of the factors in the output.
    /// For tests and audits only: everyone's shares together are the
    /// factorization.
    pub retain_factor_shares: bool,
}

impl KeyGenConfig {
    /// Defaults for a key of `bits` bits: `e = 65537`, all improvements,
    /// two lanes of 32 candidates, a 60 s timeout.
    pub fn new(bits: u32) -> Self {
        Self {
            bits,
            public_exponent: 65537,
            threshold: None,
            sieve_bound: None,
            trial_division_bound: None,
            threads: 2,
            batch: None,
            improvements: Improvements::ALL,
            timeout: Duration::from_secs(60),
            max_candidates: 10_000_000,
            progress_interval: Duration::from_secs(1),
            retain_factor_shares: false,
        }
    }

    /// Checks the parameters for `n` parties: what a party does before
    /// any connection, and `init` before writing anything.
    pub fn check(&self, n: usize) -> Result<(), Error> {
        let bad = |s: String| Err(Error::InvalidConfig(s));
        if !(3..=MAX_PARTIES).contains(&n) {
            return bad(format!(
                "{n} parties: between 3 and {MAX_PARTIES} are supported"
            ));
        }
        if !self.bits.is_multiple_of(2) || !(MIN_KEY_BITS..=MAX_KEY_BITS).contains(&self.bits) {
            return bad(format!(
                "key size {} bits: must be even, from {MIN_KEY_BITS} to {MAX_KEY_BITS}",
                self.bits
            ));
        }
        let e = self.public_exponent;
        if e < 3 || e.is_multiple_of(2) {
            return bad(format!("public exponent {e}: must be odd and at least 3"));
        }
        if !crate::threshold::exponent_fits(e, n) {
            return bad(format!(
                "public exponent {e} has a prime factor up to the {n} parties: threshold signing \
                 needs e prime to {n}!"
            ));
        }
        let most = (n - 1) / 2;
        if let Some(t) = self.threshold
            && !(1..=most).contains(&t)
        {
            return bad(format!(
                "threshold {t}: from 1 to {most} for {n} parties (n >= 2t + 1)"
            ));
        }
        if self.threads == 0
            || self.threads > MAX_LANES
            || self.batch.is_some_and(|b| b == 0 || b > MAX_BATCH)
        {
            return bad(format!(
                "threads must be 1..={MAX_LANES} and batch 1..={MAX_BATCH}"
            ));
        }
        if self.trial_division_bound.is_some_and(|b| b > 1 << 26) {
            return bad("trial-division bound above 2^26".into());
        }
        if self.progress_interval.is_zero()
            || self.timeout.is_zero()
            || self.progress_interval > crate::MAX_TIMEOUT
            || self.timeout > crate::MAX_TIMEOUT
        {
            return bad(format!(
                "timeout and progress interval must be from 1 ns to {} s",
                crate::MAX_TIMEOUT.as_secs()
            ));
        }
        if self.sieve_bound.is_some_and(|b| b > 1 << 20) {
            return bad("sieve bound above 2^20".into());
        }
        Ok(())
    }
}

/// What a key generation did (the same at every party).
#[derive(Clone, Debug, Default)]
pub struct KeyGenStats {
    /// Candidate moduli `N` computed.
    pub candidates: u64,
    /// Candidates that passed trial division (and had `φ` prime to `e`).
    pub trial_division_survivors: u64,
    /// Biprimality tests started (first rounds).
    pub biprimality_tests: u64,
    /// Candidates that passed a first round and went on to the `gcd` test
    /// and the remaining rounds.
    pub full_tests: u64,
    /// Bytes this party sent.
    pub bytes_sent: u64,
    /// Candidates per lane per round trip (chosen by party 1 when not set).
    pub batch: usize,
    /// Round trips: those of the first lane (the lanes run side by side,
    /// each with its own candidates), then those after the search (the
    /// shares of `d` and their checks), and the first comparison of
    /// parameters.
    pub rounds: u64,
    /// Wall time of the whole generation.
    pub elapsed: Duration,
    /// The sieve bound used (0 without distributed sieving).
    pub sieve_bound: u32,
    /// The trial-division bound used.
    pub trial_division_bound: u32,
}

/// What [`generate_key_with_progress`] reports, with the counters so far
/// (the same at every party, except `bytes_sent`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum KeyGenProgress {
    /// The search for a biprime is under way: once when every party has
    /// agreed on the parameters, then every
    /// [`KeyGenConfig::progress_interval`].
    Searching(KeyGenStats),
    /// A biprime passed every test; the parties now compute their shares
    /// of `d` and check them with a trial signature.
    Found(KeyGenStats),
}

/// A progress callback: return `ControlFlow::Break(())` to cancel the key
/// generation (which then fails with [`Error::Cancelled`], and the other
/// parties with a disconnection). Called on the calling thread, which is
/// otherwise idle while the lanes search.
pub type KeyGenProgressFn<'a> = &'a mut dyn FnMut(&KeyGenProgress) -> ControlFlow<()>;

/// This party's additive shares of the factors: `p = Σ p_i`, `q = Σ q_i`.
/// Zeroized on drop.
#[derive(Clone)]
pub struct FactorShares {
    /// `p_i`.
    pub p: BoxedUint,
    /// `q_i`.
    pub q: BoxedUint,
}

impl Drop for FactorShares {
    fn drop(&mut self) {
        self.p.zeroize();
        self.q.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for FactorShares {}

/// The result of [`generate_key`].
pub struct KeyGenOutput {
    /// This party's key share.
    pub share: SharedKeyShare,
    /// What it took.
    pub stats: KeyGenStats,
    /// This party's factor shares, if
    /// [`KeyGenConfig::retain_factor_shares`] asked for them.
    pub factor_shares: Option<FactorShares>,
}

/// Rounds of the Boneh–Franklin test on an accepted modulus: each passes a
/// non-biprime with probability at most 1/2.
pub(crate) const BIPRIMALITY_ROUNDS: usize = 128;

/// The most lanes (threads) per party.
pub(crate) const MAX_LANES: usize = 64;
/// The most candidates per lane per round trip.
pub(crate) const MAX_BATCH: usize = 1024;

/// Everything public the lanes share.
pub(crate) struct Setup {
    pub(crate) n: usize,
    /// The degree of the generation's Shamir sharings, `⌊(n − 1)/2⌋`.
    pub(crate) t: usize,
    /// The degree of the sharing of `d` (`KeyGenConfig::threshold`).
    pub(crate) signing_threshold: usize,
    pub(crate) me: usize,
    pub(crate) bits: u32,
    pub(crate) h: u32,
    pub(crate) e: u32,
    /// `F_P` with `P > 2^bits`, for computing `N`.
    pub(crate) field: Ring,
    /// Interpolation of degree-2t sharings over `F_P`.
    pub(crate) field_interp: Interpolator,
    pub(crate) sieve: Option<SieveModulus>,
    /// Degree-2t Lagrange coefficients over `Z_M` (sieving only).
    pub(crate) sieve_interp: Option<Interpolator>,
    /// `M`, or 1 without sieving.
    pub(crate) m: BoxedUint,
    pub(crate) range: PrimeRange,
    pub(crate) td: TrialDivision,
    pub(crate) lanes: usize,
    pub(crate) batch: usize,
    pub(crate) improvements: Improvements,
    pub(crate) timeout: Duration,
    pub(crate) max_candidates: u64,
    pub(crate) sieve_bound: u32,
    pub(crate) td_bound: u32,
}

/// The default trial-division bound for a key size (see `benches/RESULTS.md`'s
/// tuning table).
fn default_trial_division_bound(bits: u32) -> u32 {
    match bits {
        0..=1024 => 1 << 14,
        1025..=2048 => 1 << 15,
        _ => 1 << 16,
    }
}

/// The largest sieve bound whose `M` has at most `max_bits` bits.
fn largest_sieve_bound(n: usize, max_bits: u32) -> u32 {
    let mut log2_m = 0f64;
    let mut bound = 0;
    // M of 8192 bits needs primes to about 5700.
    for p in odd_primes_up_to(1 << 14) {
        if p as usize <= n {
            continue;
        }
        log2_m += f64::from(p).log2();
        // Leave a bit of slack for rounding in the float sum.
        if log2_m > f64::from(max_bits) - 1.0 {
            break;
        }
        bound = p;
    }
    bound
}

impl Setup {
    fn new(config: &KeyGenConfig, n: usize, me: usize) -> Result<Self, Error> {
        config.check(n)?;
        let bits = config.bits;
        let h = bits / 2;
        let t = (n - 1) / 2;
        let signing_threshold = config.threshold.unwrap_or(t);
        let field = Ring::new(field_prime(bits), n)?;
        let field_interp = Interpolator::new(&field, n, 2 * t)?;
        let multithreading = config.improvements.multithreading;
        let (sieve, sieve_bound) = if config.improvements.distributed_sieving {
            let bound = match config.sieve_bound {
                Some(b) => {
                    // Refuse an M as large as the primes before building it.
                    if b > largest_sieve_bound(n, h.saturating_sub(8)) {
                        return Err(Error::InvalidConfig(format!(
                            "sieve bound {b}: the product of the sieving primes must stay well below 2^{h}"
                        )));
                    }
                    b
                }
                None => largest_sieve_bound(n, h.saturating_sub(24 + 3 + n.ilog2() + 1)),
            };
            let s = SieveModulus::new(n, bound)?;
            let largest = s.largest_prime();
            (Some(s), largest)
        } else {
            (None, 0)
        };
        let m = match &sieve {
            Some(s) => s.ring().modulus().clone(),
            None => BoxedUint::from_u64(1, 1),
        };
        let range = PrimeRange::new(h, &m, n, 1)?;
        let sieve_interp = match &sieve {
            Some(s) => Some(Interpolator::new(s.ring(), n, 2 * t)?),
            None => None,
        };
        let td_bound = config
            .trial_division_bound
            .unwrap_or_else(|| default_trial_division_bound(bits))
            .max(sieve_bound);
        let td_primes: Vec<u32> = odd_primes_up_to(td_bound)
            .into_iter()
            .filter(|&p| sieve.is_none() || p as usize <= n || p > sieve_bound)
            .collect();
        let td = TrialDivision::new(&td_primes, bits.div_ceil(64) as usize);
        Ok(Self {
            n,
            t,
            signing_threshold,
            me,
            bits,
            h,
            e: config.public_exponent,
            field,
            field_interp,
            sieve,
            sieve_interp,
            m,
            range,
            td,
            lanes: if multithreading { config.threads } else { 1 },
            // 0 until party 1 has measured the round trip (`auto_batch`).
            batch: match (multithreading, config.batch) {
                (false, _) => 1,
                (true, Some(b)) => b,
                (true, None) => 0,
            },
            improvements: config.improvements,
            timeout: config.timeout,
            max_candidates: config.max_candidates,
            sieve_bound,
            td_bound,
        })
    }

    /// What every party must agree on, hashed.
    fn fingerprint(&self, config: &KeyGenConfig) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"numcrypt shared-rsa keygen v3");
        for v in [
            self.n as u64,
            self.signing_threshold as u64,
            u64::from(self.bits),
            u64::from(self.e),
            u64::from(self.sieve_bound),
            u64::from(self.td_bound),
            self.lanes as u64,
            self.batch as u64,
            u64::from(config.improvements.distributed_sieving),
            u64::from(config.improvements.multithreading),
            u64::from(config.improvements.load_balancing),
            u64::from(config.improvements.parallel_trial_division),
        ] {
            h.update(v.to_be_bytes());
        }
        h.finalize().into()
    }

    /// Limbs of `N`.
    pub(crate) fn n_limbs(&self) -> usize {
        self.bits.div_ceil(64) as usize
    }
}

/// A biprime a lane found and the parties accepted.
pub(crate) struct Found {
    pub(crate) n: BoxedUint,
    pub(crate) p: Zeroizing<BoxedUint>,
    pub(crate) q: Zeroizing<BoxedUint>,
    /// The party that held the `3 mod 4` shares (0-based).
    pub(crate) special: usize,
    /// `φ(N) mod e`.
    pub(crate) phi_mod_e: u32,
}

/// State the lanes of one party share.
pub(crate) struct Shared<'a, T: ?Sized> {
    pub(crate) setup: &'a Setup,
    pub(crate) transport: &'a T,
    /// Set by the leader (party 1) once a biprime is committed.
    pub(crate) stop: AtomicBool,
    /// The lane whose biprime was committed (leader only).
    pub(crate) winner: Mutex<Option<usize>>,
    pub(crate) candidates: AtomicU64,
    pub(crate) survivors: AtomicU64,
    pub(crate) tests: AtomicU64,
    pub(crate) full_tests: AtomicU64,
    /// Round trips of lane 0, and of the steps before and after the search.
    pub(crate) rounds: AtomicU64,
}

impl<T: Transport + ?Sized> Shared<'_, T> {
    /// The counters so far.
    fn stats(&self, start: Instant, bytes_before: u64) -> KeyGenStats {
        KeyGenStats {
            candidates: self.candidates.load(Ordering::Relaxed),
            trial_division_survivors: self.survivors.load(Ordering::Relaxed),
            biprimality_tests: self.tests.load(Ordering::Relaxed),
            full_tests: self.full_tests.load(Ordering::Relaxed),
            bytes_sent: self.transport.bytes_sent() - bytes_before,
            rounds: self.rounds.load(Ordering::Relaxed),
            batch: self.setup.batch,
            elapsed: start.elapsed(),
            sieve_bound: self.setup.sieve_bound,
            trial_division_bound: self.setup.td_bound,
        }
    }
}

/// How many lanes are still running; wakes the reporting thread when the
/// last one exits (normally or not).
struct RunningLanes {
    count: Mutex<usize>,
    exited: Condvar,
}

impl RunningLanes {
    fn new(lanes: usize) -> Self {
        Self {
            count: Mutex::new(lanes),
            exited: Condvar::new(),
        }
    }

    /// Counts its lane out when dropped, even by a panic.
    fn exit_guard(&self) -> LaneExit<'_> {
        LaneExit(self)
    }

    /// Waits up to `interval`; true once every lane has exited.
    fn wait_all_exited(&self, interval: Duration) -> bool {
        let count = self.count.lock().unwrap_or_else(PoisonError::into_inner);
        let (count, _) = self
            .exited
            .wait_timeout_while(count, interval, |count| *count > 0)
            .unwrap_or_else(PoisonError::into_inner);
        *count == 0
    }
}

struct LaneExit<'a>(&'a RunningLanes);

impl Drop for LaneExit<'_> {
    fn drop(&mut self) {
        let mut count = self.0.count.lock().unwrap_or_else(PoisonError::into_inner);
        *count -= 1;
        self.0.exited.notify_all();
    }
}

/// Aborts the transport if dropped by a panic.
struct AbortOnPanic<'a, T: Transport + ?Sized>(&'a T);

impl<T: Transport + ?Sized> Drop for AbortOnPanic<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abort();
        }
    }
}

/// Runs shared RSA key generation as one party: every party calls this with
/// the same `config` over a [`Transport`] connecting them all.
///
/// The parties search for a biprime `N = pq` together, then compute
/// additive shares of `d = e^-1 mod φ(N)` and check them with a trial
/// signature. Nobody learns `p`, `q`, `φ(N)` or `d`. See the crate
/// documentation for the protocol and its security model (honest majority,
/// semi-honest parties).
///
/// Errors: [`Error::InvalidConfig`] before anything is sent;
/// [`Error::ConfigMismatch`], [`Error::Disconnected`], [`Error::Timeout`],
/// [`Error::Malformed`] and [`Error::InconsistentShares`] from the
/// exchanges (the party then aborts its transport, so the others stop too);
/// [`Error::KeyCheckFailed`] if the shares fail the trial signature.
pub fn generate_key<T, R>(
    transport: &T,
    config: &KeyGenConfig,
    rng: &mut R,
) -> Result<KeyGenOutput, Error>
where
    T: Transport + ?Sized,
    R: CryptoRng + ?Sized,
{
    generate_key_with_progress(transport, config, rng, &mut |_| ControlFlow::Continue(()))
}

/// [`generate_key`] reporting its progress (see [`KeyGenProgress`]) and
/// cancellable from the callback ([`Error::Cancelled`]).
pub fn generate_key_with_progress<T, R>(
    transport: &T,
    config: &KeyGenConfig,
    rng: &mut R,
    progress: KeyGenProgressFn<'_>,
) -> Result<KeyGenOutput, Error>
where
    T: Transport + ?Sized,
    R: CryptoRng + ?Sized,
{
    let _dit = numcrypt_limbs::DataIndependentTiming::enable();
    let result = generate_key_inner(transport, config, rng, progress);
    if let Err(e) = &result {
        // Wake our other threads and tell the peers to stop, and why.
        transport.abort_because(e);
    }
    result
}

fn generate_key_inner(
    transport: &(impl Transport + ?Sized),
    config: &KeyGenConfig,
    rng: &mut (impl CryptoRng + ?Sized),
    progress: KeyGenProgressFn<'_>,
) -> Result<KeyGenOutput, Error> {
    let start = Instant::now();
    let bytes_before = transport.bytes_sent();
    let n = transport.party_count();
    let me = transport.index();
    let mut setup = Setup::new(config, n, me)?;

    // The parties compare parameters, and exchange the nonces of the run
    // identifier, before anything secret is sent.
    let fingerprint = setup.fingerprint(config);
    let mut nonce = [0u8; 32];
    rng.fill_bytes(&mut nonce);
    numcrypt_limbs::ct_audit::declassify(&mut nonce); // sent to every party
    let theirs = exchange_all(transport, &setup, 0, [nonce, fingerprint].concat())?;
    let mut nonces = Vec::with_capacity(n);
    for (j, msg) in theirs.into_iter().enumerate() {
        if j == me {
            nonces.push(nonce.to_vec());
        } else if msg.len() != 64 || msg[32..] != fingerprint {
            return Err(Error::ConfigMismatch { party: j + 1 });
        } else {
            nonces.push(msg[..32].to_vec());
        }
    }
    let run = run_id(transport, &nonces);
    let transport = &RunTransport::new(transport, &run);
    let mut rounds = 1;
    if setup.batch == 0 {
        setup.batch = agree_on_batch(transport, &setup)?;
        rounds += 2;
    }
    let setup = setup;

    let shared = Shared {
        setup: &setup,
        transport,
        stop: AtomicBool::new(false),
        winner: Mutex::new(None),
        candidates: AtomicU64::new(0),
        survivors: AtomicU64::new(0),
        tests: AtomicU64::new(0),
        full_tests: AtomicU64::new(0),
        // The comparison of parameters (and the batch) above.
        rounds: AtomicU64::new(rounds),
    };
    let seeds: Vec<[u8; 32]> = (0..setup.lanes)
        .map(|_| {
            let mut s = [0u8; 32];
            rng.fill_bytes(&mut s);
            s
        })
        .collect();
    let first_error: Mutex<Option<Error>> = Mutex::new(None);
    // The first error stops every lane; an `Aborted` is only its echo.
    let fail = |e: Error| {
        let mut slot = first_error.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() && !matches!(e, Error::Aborted) {
            transport.abort_because(&e);
            *slot = Some(e);
        }
        drop(slot);
        transport.abort();
    };
    let running = RunningLanes::new(setup.lanes);
    let results: Vec<Option<Found>> = std::thread::scope(|scope| {
        let (shared, fail, running) = (&shared, &fail, &running);
        // Should the callback (or a spawn) panic, the lanes are stopped
        // rather than left to finish.
        let _stop_on_panic = AbortOnPanic(transport);
        let handles: Vec<_> = seeds
            .into_iter()
            .enumerate()
            .map(|(id, mut seed)| {
                scope.spawn(move || {
                    let _dit = numcrypt_limbs::DataIndependentTiming::enable();
                    let _exit = running.exit_guard();
                    let rng = ChaCha20Rng::from_seed(seed);
                    seed.zeroize();
                    lane::Lane::new(shared, id, rng).run().unwrap_or_else(|e| {
                        fail(e);
                        None
                    })
                })
            })
            .collect();
        // This thread reports while the lanes search.
        loop {
            let report = KeyGenProgress::Searching(shared.stats(start, bytes_before));
            if progress(&report).is_break() {
                fail(Error::Cancelled);
                break;
            }
            if running.wait_all_exited(config.progress_interval) {
                break;
            }
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(None))
            .collect()
    });
    if let Some(e) = first_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(e);
    }
    let found = results
        .into_iter()
        .flatten()
        .next()
        .ok_or(Error::CandidateLimit(
            shared.candidates.load(Ordering::Relaxed),
        ))?;
    if progress(&KeyGenProgress::Found(shared.stats(start, bytes_before))).is_break() {
        return Err(Error::Cancelled);
    }

    let share = compute_shares(transport, &setup, &found, rng)?;
    agree_on_public_key(transport, &setup, share.public_key(), &run)?;
    // The additive shares' check, the polynomial shares and their check,
    // the agreement on the public key.
    shared.rounds.fetch_add(4, Ordering::Relaxed);
    let stats = shared.stats(start, bytes_before);
    let factor_shares = config.retain_factor_shares.then(|| FactorShares {
        p: (*found.p).clone(),
        q: (*found.q).clone(),
    });
    Ok(KeyGenOutput {
        share,
        stats,
        factor_shares,
    })
}

/// The batch for a measured round trip: 32 candidates per lane, and 32
/// more per 10 ms of round trip, up to 256: a larger batch saves round
/// trips, and the candidates in flight when the biprime is found are wasted
/// work (benches/RESULTS.md, "Shared RSA: scale and distance").
pub fn auto_batch(round_trip: Duration) -> usize {
    let steps = round_trip.as_millis().div_ceil(10) as usize;
    (32 * steps.max(1)).min(256)
}

/// Party 1 measures the round trip to the slowest party and tells everyone
/// the batch it gives (two messages each way).
fn agree_on_batch<T: Transport + ?Sized>(transport: &T, setup: &Setup) -> Result<usize, Error> {
    if setup.me == 0 {
        let start = Instant::now();
        exchange_all(transport, setup, 0, b"ping".to_vec())?;
        let batch = auto_batch(start.elapsed());
        for j in 1..setup.n {
            transport.send(j, 0, (batch as u32).to_be_bytes().to_vec())?;
        }
        return Ok(batch);
    }
    let ping = transport.recv(0, 0, setup.timeout)?;
    if ping != b"ping" {
        return Err(Error::Malformed {
            party: 1,
            what: "round-trip probe",
        });
    }
    transport.send(0, 0, b"pong".to_vec())?;
    let msg = transport.recv(0, 0, setup.timeout)?;
    match <[u8; 4]>::try_from(msg.as_slice()).map(u32::from_be_bytes) {
        Ok(b @ 1..=1024) => Ok(b as usize),
        _ => Err(Error::Malformed {
            party: 1,
            what: "batch size",
        }),
    }
}

/// The last round, before any party keeps its share: every party sends a
/// hash of the run identifier and the public key it computed (`N`, `e`,
/// the verification values, the identities), and each checks that all
/// are its own.
fn agree_on_public_key<T: Transport + ?Sized>(
    transport: &T,
    setup: &Setup,
    public: &SharedPublicKey,
    run: &[u8; 32],
) -> Result<(), Error> {
    let mut h = Sha256::new();
    h.update(b"numcrypt shared-rsa public key agreement v1");
    h.update(run);
    h.update(public.digest()?);
    let ours: [u8; 32] = h.finalize().into();
    let theirs = exchange_all(transport, setup, 0, ours.to_vec())?;
    match (0..setup.n).find(|&j| j != setup.me && theirs[j] != ours) {
        Some(j) => Err(Error::PublicKeyMismatch { party: j + 1 }),
        None => Ok(()),
    }
}

/// Sends `msg` to every other party on `channel` and returns what each sent
/// (our own slot empty).
pub(crate) fn exchange_all<T: Transport + ?Sized>(
    transport: &T,
    setup: &Setup,
    channel: u16,
    msg: Vec<u8>,
) -> Result<Vec<Vec<u8>>, Error> {
    for j in (0..setup.n).filter(|&j| j != setup.me) {
        transport.send(j, channel, msg.clone())?;
    }
    (0..setup.n)
        .map(|j| {
            if j == setup.me {
                Ok(Vec::new())
            } else {
                transport.recv(j, channel, setup.timeout)
            }
        })
        .collect()
}

/// `a − b`, which must not be negative, in constant time: a negative
/// one is [`Error::KeyCheckFailed`] (reported, so its verdict is public).
fn difference(a: &BoxedUint, b: &BoxedUint) -> Result<BoxedUint, Error> {
    let (diff, borrow) = a.borrowing_sub(b, 0);
    if declassified(borrow) != 0 {
        return Err(Error::KeyCheckFailed);
    }
    Ok(diff)
}

/// Threshold shares of `d` for the found biprime: additive shares first
/// (Boneh–Franklin for small `e`), checked by a trial signature that also
/// finds the public correction, which party 1 adds to its share; then the
/// conversion to a polynomial sharing (see [`threshold_shares`]).
fn compute_shares<T, R>(
    transport: &T,
    setup: &Setup,
    found: &Found,
    rng: &mut R,
) -> Result<SharedKeyShare, Error>
where
    T: Transport + ?Sized,
    R: CryptoRng + ?Sized,
{
    let n_limbs = setup.n_limbs();
    let width = n_limbs + 2;
    let e = setup.e;
    let l = found.phi_mod_e;
    // ζ = −φ^-1 mod e, so that 1 + ζφ ≡ 0 (mod e) and d = (1 + ζφ)/e.
    let zeta = {
        let inv = BoxedUint::from_u64(u64::from(l), 1)
            .inv_mod_vartime(&BoxedUint::from_u64(u64::from(e), 1))
            .map_err(|_| Error::KeyCheckFailed)?;
        (u64::from(e) - inv.as_words()[0]) % u64::from(e)
    };
    let zeta_big = BoxedUint::from_u64(zeta, width);
    let e_big = BoxedUint::from_u64(u64::from(e), 1);
    let one = BoxedUint::from_u64(1, width);
    // Each non-special share is offset by K = 2^(h+2) > ⌈ζ σ_i / e⌉ and the
    // special share by −(n−1)K, so that all are non-negative.
    let k = one.shl_vartime(setup.h + 2);
    let p = Zeroizing::new(found.p.resize(width)?);
    let q = Zeroizing::new(found.q.resize(width)?);
    let sum = Zeroizing::new(p.wrapping_add(&q));
    let d = if setup.me == found.special {
        // φ_j = N + 1 − p_j − q_j > 0.
        let n_big = found.n.resize(width)?;
        let phi = Zeroizing::new(n_big.wrapping_add(&one).wrapping_sub(&sum));
        let num = Zeroizing::new(phi.wrapping_mul(&zeta_big).wrapping_add(&one));
        let (quot, _) = num.div_rem(&e_big)?;
        let quot = Zeroizing::new(quot);
        let offset = k.wrapping_mul(&BoxedUint::from_u64(setup.n as u64 - 1, width));
        difference(&quot, &offset)?
    } else {
        // −⌈ζ σ_i / e⌉ + K, with σ_i = p_i + q_i.
        let num = Zeroizing::new(
            sum.wrapping_mul(&zeta_big)
                .wrapping_add(&BoxedUint::from_u64(u64::from(e) - 1, width)),
        );
        let (quot, _) = num.div_rem(&e_big)?;
        let quot = Zeroizing::new(quot);
        difference(&k, &quot)?
    };
    let d = Zeroizing::new(d.resize(width)?);

    // The trial signature on w: everyone publishes v_i = w^(d_i).
    let n_ring = Ring::new(found.n.clone(), setup.n)?;
    let w = verification_base(&found.n);
    let w_m = n_ring.elem(&w);
    let mut v_me = n_ring.params().pow_bounded(&w_m, &*d, setup.bits);
    declassify_monty(&mut v_me); // published
    let mut msg = Writer::default();
    msg.elem(&n_ring, &v_me);
    let theirs = exchange_all(transport, setup, 0, msg.finish())?;
    let mut verification = Vec::with_capacity(setup.n);
    for (j, bytes) in theirs.iter().enumerate() {
        if j == setup.me {
            verification.push(v_me.clone());
            continue;
        }
        let mut r = Reader::new(bytes, j);
        let v = r.elem(&n_ring, "verification value")?;
        r.end()?;
        verification.push(v);
    }
    let verification: Vec<BoxedUint> = verification.iter().map(|v| n_ring.value(v)).collect();
    let correction = find_correction(&n_ring, e, &verification, &w).ok_or(Error::KeyCheckFailed)?;
    // d = r + Σ d_i: party 1 takes r.
    let d = match setup.me {
        0 => Zeroizing::new(d.wrapping_add(&BoxedUint::from_u64(u64::from(correction), width))),
        _ => d,
    };
    threshold_shares(transport, setup, &n_ring, &w, &d, rng)
}

/// The `r < n` for which `(w^r Π v_i)^e = w`, where `v_i = w^(d_i)` are the
/// additive shares' verification values (variable time: public values).
fn find_correction(ring: &Ring, e: u32, verification: &[BoxedUint], w: &BoxedUint) -> Option<u32> {
    let params = ring.params();
    let e = BoxedUint::from_u64(u64::from(e), 1);
    let w_m = params.to_monty(w);
    let mut s = verification
        .iter()
        .fold(params.one(), |acc, v| params.mul(&acc, &params.to_monty(v)));
    for r in 0..verification.len() as u32 {
        if params.from_monty(&params.pow_vartime(&s, &e)) == *w {
            return Some(r);
        }
        s = params.mul(&s, &w_m);
    }
    None
}

/// Turns this party's additive share `d_i` (`Σ d_i = d`) into its share
/// `f(i)` of a polynomial sharing of degree `t` with `f(0) = Δ·d` (see the
/// `threshold` module): sends `g_i(j)` to each party `j`, sums what it
/// receives, publishes `v_i = w^f(i)`, checks that every party's value lies
/// on one polynomial of degree `t` and that the first `t + 1` sign `w`.
fn threshold_shares<T, R>(
    transport: &T,
    setup: &Setup,
    n_ring: &Ring,
    w: &BoxedUint,
    d_i: &BoxedUint,
    rng: &mut R,
) -> Result<SharedKeyShare, Error>
where
    T: Transport + ?Sized,
    R: CryptoRng + ?Sized,
{
    let (n, me, t) = (setup.n, setup.me, setup.signing_threshold);
    let sizes = Sizes::new(setup.bits, n, t);
    let width = sizes.limbs();
    let bytes = (sizes.share_bits as usize).div_ceil(8);
    let mut shares = poly_shares(d_i, n, t, sizes, rng)?;
    for j in (0..n).filter(|&j| j != me) {
        let mut msg = Zeroizing::new(vec![0u8; bytes]);
        shares[j].write_be_bytes(&mut msg)?;
        transport.send(j, 0, msg.to_vec())?;
    }
    let mut f = Zeroizing::new(shares[me].resize(width)?);
    for share in &mut shares {
        share.zeroize();
    }
    for j in (0..n).filter(|&j| j != me) {
        let msg = Zeroizing::new(transport.recv(j, 0, setup.timeout)?);
        if msg.len() != bytes {
            return Err(Error::Malformed {
                party: j + 1,
                what: "polynomial share",
            });
        }
        let g = Zeroizing::new(BoxedUint::from_be_slice_auto(&msg).resize(width)?);
        *f = f.wrapping_add(&g);
    }
    if declassified(f.bits() > sizes.share_bits) {
        return Err(Error::KeyCheckFailed);
    }

    let params = n_ring.params();
    let mut v_me = params.pow_bounded(&n_ring.elem(w), &*f, sizes.share_bits);
    declassify_monty(&mut v_me); // published
    let mut msg = Writer::default();
    msg.elem(n_ring, &v_me);
    let theirs = exchange_all(transport, setup, 0, msg.finish())?;
    let mut verification = Vec::with_capacity(n);
    for (j, bytes) in theirs.iter().enumerate() {
        if j == me {
            verification.push(n_ring.value(&v_me));
            continue;
        }
        let mut r = Reader::new(bytes, j);
        let v = r.elem(n_ring, "verification value")?;
        r.end()?;
        verification.push(n_ring.value(&v));
    }
    check_verification_values(n_ring, setup.e, n, t, &verification, w)?;
    // Every party's certificate, if the transport has them all.
    let identities = (0..n).map(|j| transport.identity(j)).collect();
    let public = SharedPublicKey::from_parts(
        n_ring.modulus().clone(),
        setup.e,
        n,
        t,
        verification,
        identities,
    )?;
    SharedKeyShare::new(public, me, (*f).clone())
}

/// Checks the published `v_j = w^f(j)` (variable time: public values),
/// squared as partial signatures' proofs use them: each beyond the first
/// `t + 1` is what those predict (`(v_j²)^Δ = Π_k (v_k²)^λ'_k(j)`), and the
/// first `t + 1` combine into an `e`-th root of `w`, as a signature would.
/// A failure is a fault at some party.
fn check_verification_values(
    ring: &Ring,
    e: u32,
    n: usize,
    t: usize,
    verification: &[BoxedUint],
    w: &BoxedUint,
) -> Result<(), Error> {
    let params = ring.params();
    let base: Vec<usize> = (0..=t).collect();
    let delta = threshold::delta(n);
    for j in t + 1..n {
        let lambdas = threshold::lagrange_times_delta(&base, j + 1, n);
        let terms: Vec<_> = verification.iter().zip(&lambdas).collect();
        let predicted =
            threshold::multi_pow_squares(params, &terms).ok_or(Error::KeyCheckFailed)?;
        let v = params.to_monty(&verification[j]);
        let actual = params.pow_vartime(&params.mul(&v, &v), &delta);
        if params.from_monty(&predicted) != params.from_monty(&actual) {
            return Err(Error::InconsistentShares {
                what: "the threshold shares of d",
            });
        }
    }
    let lambdas = threshold::lagrange_times_delta(&base, 0, n);
    let terms: Vec<_> = verification.iter().zip(&lambdas).collect();
    let w_m = params.to_monty(w);
    let root = threshold::multi_pow_squares(params, &terms)
        .and_then(|power| {
            threshold::root_from_power(params, &w_m, &power, e, &threshold::two_delta_power(n, 2))
        })
        .ok_or(Error::KeyCheckFailed)?;
    let e = BoxedUint::from_u64(u64::from(e), 1);
    if params.from_monty(&params.pow_vartime(&root, &e)) != *w {
        return Err(Error::KeyCheckFailed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;
    use crate::MemoryNetwork;
    use crate::transport::{MAX_FRAME, MAX_QUEUED, MESSAGE_OVERHEAD, MemoryTransport};

    /// Records the longest message sent on a lane's channel.
    struct Measuring<'a> {
        inner: MemoryTransport,
        longest: &'a AtomicUsize,
    }

    impl Transport for Measuring<'_> {
        fn party_count(&self) -> usize {
            self.inner.party_count()
        }
        fn index(&self) -> usize {
            self.inner.index()
        }
        fn send(&self, to: usize, channel: u16, payload: Vec<u8>) -> Result<(), Error> {
            if (1..=MAX_LANES as u16).contains(&channel) {
                self.longest.fetch_max(payload.len(), Ordering::Relaxed);
            }
            self.inner.send(to, channel, payload)
        }
        fn recv(&self, from: usize, channel: u16, timeout: Duration) -> Result<Vec<u8>, Error> {
            self.inner.recv(from, channel, timeout)
        }
        fn bytes_sent(&self) -> u64 {
            self.inner.bytes_sent()
        }
        fn abort(&self) {
            self.inner.abort()
        }
    }

    /// The bound on a lane's messages holds for what the lanes send, and
    /// the transport's limits fit the largest valid configuration (8192
    /// bits, 64 lanes of 1024 candidates, each lane up to two messages
    /// ahead). Before, the allowance was 64 MiB, which such a run exceeds.
    #[test]
    fn the_transport_limits_fit_the_largest_configuration() {
        let longest = AtomicUsize::new(0);
        let mut config = KeyGenConfig::new(512);
        config.threads = 1;
        config.batch = Some(6);
        config.sieve_bound = Some(150);
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = MemoryNetwork::new(3)
                .into_iter()
                .enumerate()
                .map(|(i, inner)| {
                    let (config, longest) = (&config, &longest);
                    s.spawn(move || {
                        let t = Measuring { inner, longest };
                        let mut rng = ChaCha20Rng::seed_from_u64(i as u64);
                        generate_key(&t, config, &mut rng).map(|_| ())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(results.iter().all(Result::is_ok), "{:?}", results[0]);
        let sent = longest.load(Ordering::Relaxed);
        assert!(sent > 0 && sent <= lane::largest_message(512, 6), "{sent}");

        let largest = lane::largest_message(MAX_KEY_BITS, MAX_BATCH);
        assert!(largest <= MAX_FRAME, "{largest}");
        let queued = 2 * MAX_LANES * (largest + MESSAGE_OVERHEAD);
        assert!(queued <= MAX_QUEUED, "{queued} > {MAX_QUEUED}");
    }

    /// The final round: three parties compare what they computed before
    /// anyone keeps a share. Equal public keys in one run pass; a party
    /// with another verification value, or in another run, is named by
    /// the others (and names the first of them).
    #[test]
    fn the_parties_agree_on_the_public_key_before_keeping_shares() {
        // Any odd 512-bit N will do: the round compares, it does not check.
        let mut n = [0u8; 64];
        (n[0], n[63]) = (0x80, 1);
        let n = BoxedUint::from_be_slice_auto(&n);
        let key = |v: u64| {
            let verification = vec![
                BoxedUint::from_u64(4, 1),
                BoxedUint::from_u64(v, 1),
                BoxedUint::from_u64(16, 1),
            ];
            SharedPublicKey::from_parts(n.clone(), 65537, 3, 1, verification, None).unwrap()
        };
        let agree = |keys: [SharedPublicKey; 3], runs: [[u8; 32]; 3]| -> Vec<Result<(), Error>> {
            std::thread::scope(|s| {
                let handles: Vec<_> = MemoryNetwork::new(3)
                    .into_iter()
                    .zip(keys.iter().zip(&runs))
                    .enumerate()
                    .map(|(me, (t, (key, run)))| {
                        s.spawn(move || {
                            let setup = Setup::new(&KeyGenConfig::new(512), 3, me).unwrap();
                            agree_on_public_key(&t, &setup, key, run)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            })
        };
        let run = [7u8; 32];
        let results = agree([key(9), key(9), key(9)], [run; 3]);
        assert!(results.iter().all(Result::is_ok), "{results:?}");

        let named = |results: Vec<Result<(), Error>>| -> Vec<usize> {
            results
                .into_iter()
                .map(|r| match r {
                    Err(Error::PublicKeyMismatch { party }) => party,
                    other => panic!("expected a mismatch: {other:?}"),
                })
                .collect()
        };
        let results = agree([key(9), key(9), key(25)], [run; 3]);
        assert_eq!(named(results), [3, 3, 1]);
        let results = agree([key(9), key(9), key(9)], [run, [8u8; 32], run]);
        assert_eq!(named(results), [2, 1, 2]);
    }
}
