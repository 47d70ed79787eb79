//! The prime generators' one entry point: [`PrimeGen`], a builder of the
//! kind of prime, its size, the threads, a progress callback and a
//! cancellation flag.

#[cfg(feature = "std")]
use core::num::NonZeroUsize;
use core::ops::ControlFlow;
use core::sync::atomic::{AtomicBool, Ordering};

use rand_core::CryptoRng;

use crate::Error;
use crate::control::{Progress, ProgressFn};
use crate::generate::{Kind, Tuning, search};
use crate::int::PrimeInt;
use crate::rsa::{fips_primes, strong_prime};

/// The kind of prime a [`PrimeGen`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PrimeKind {
    /// A random prime of exactly `bits` bits with its top two bits set (so the
    /// product of two has exactly `2 bits` bits).
    ///
    /// The search: a random odd start, then its successors `start + 2i` in
    /// order. A sieve of thousands of small primes (see `benches/RESULTS.md` for how
    /// many at each size), updated by addition, rejects most composites in
    /// windows of 128 candidates; each survivor gets Fermat's test to base 2
    /// (`2^(c − 1) ≡ 1 mod c`), and the first that passes gets the full MR64 (64 rounds, bases
    /// derived from the candidate under a random key, as in
    /// [`is_prime`](crate::is_prime)). A failure at either stage moves on to
    /// the next survivor: the search never starts again from scratch (except
    /// in the astronomically unlikely case that it runs past `2^bits`).
    ///
    /// Constant time (for `bits >= 64`): the sieve, the residues and every
    /// Miller–Rabin round are constant time in the candidates. What the running
    /// time reveals is how many windows were sieved and how many survivors were
    /// tested before the prime, which is how far the prime lies from a random
    /// start; and, with probability `2^-32` per candidate that reaches MR64,
    /// `v2(c - 1)`.
    /// Below 64 bits the search is exact and variable time: such primes are no
    /// secrets.
    ///
    /// `bits` must be at least [`MIN_PRIME_BITS`](crate::MIN_PRIME_BITS) and fit `U`.
    Prime,
    /// A random safe prime `p = 2q + 1` (with `q` prime) of exactly `bits` bits,
    /// top two bits set.
    ///
    /// The search runs over `q` as [`Prime`](PrimeKind::Prime) does, from a random start
    /// rounded up to `q ≡ 5 (mod 6)` and in steps of 6 (every safe prime above 7
    /// has `q ≡ 2 mod 3`, so no other `q` can be one, and the result is the
    /// first safe prime from the start either way). A joint sieve rejects `q`
    /// when a small prime divides `q` or `2q + 1`; survivors get Fermat's test to
    /// base 2 on `q`, then on `p`, and the first pair to pass both gets MR64 on `q` and
    /// on `p`. Constant time in the same sense as [`Prime`](PrimeKind::Prime). `bits`
    /// must be at least [`MIN_SAFE_PRIME_BITS`](crate::MIN_SAFE_PRIME_BITS).
    Safe,
    /// A random strong prime of exactly `bits` bits (top two bits set), by
    /// Gordon's algorithm: `p - 1` has a large prime factor `r`, `p + 1` a
    /// large prime factor `s`, and `r - 1` a large prime factor `t`.
    ///
    /// `s` has `bits/2 - 16` bits and `t` has `bits/2 - 32`; `r` is the first
    /// prime `2it + 1` from a random 16-bit `i`; `p0 = 2 (s^(r-2) mod r) s - 1`
    /// satisfies `p0 ≡ 1 (mod r)` and `p0 ≡ -1 (mod s)`, and `p` is the first
    /// prime `p0 + 2jrs` from a random `j` that puts it in range. Each search
    /// is the sieve of [`Prime`](PrimeKind::Prime) over an
    /// arithmetic progression, with MR64 on the result; all constant time in
    /// the same sense. `bits` must be at least [`MIN_STRONG_PRIME_BITS`](crate::MIN_STRONG_PRIME_BITS).
    Strong,
}

/// FIPS 186-5 appendix B.3.3's two primes for an RSA modulus: the kind of
/// [`PrimeGen::rsa_fips`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RsaPrimes {
    e: u64,
}

/// A prime search: what to make ([`PrimeKind`], or a pair of
/// [`RsaPrimes`]) and how (threads, progress, cancellation), then
/// [`generate`](PrimeGen::generate).
///
/// ```
/// use numcrypt_limbs::U1024;
/// use numcrypt_prime::{PrimeGen, PrimeKind, is_prime};
/// use rand_chacha::ChaCha20Rng;
/// use rand_chacha::rand_core::SeedableRng;
///
/// let mut rng = ChaCha20Rng::from_seed([7; 32]); // use OsRng for keys
/// let p: U1024 = PrimeGen::new(PrimeKind::Prime, 1024).generate(&mut rng)?;
/// assert!(is_prime(&p));
/// # Ok::<(), numcrypt_prime::Error>(())
/// ```
///
/// Every search is constant time in the sense its kind describes; threads
/// change how soon the result comes, never which prime it is (see
/// [Multi-threaded search](crate#multi-threaded-search)).
pub struct PrimeGen<'a, K = PrimeKind> {
    kind: K,
    bits: u32,
    #[cfg(feature = "std")]
    threads: Option<NonZeroUsize>,
    progress: Option<ProgressFn<'a>>,
    cancel: Option<&'a AtomicBool>,
}

impl<'a> PrimeGen<'a, PrimeKind> {
    /// A search for one prime of `kind` and exactly `bits` bits, on the
    /// calling thread, with no progress callback.
    pub fn new(kind: PrimeKind, bits: u32) -> Self {
        Self::with_kind(kind, bits)
    }

    /// The prime: `U` must hold `bits` bits. Errors: [`Error::BitsTooSmall`]
    /// below the kind's minimum, [`Error::BitsTooLarge`] when `U` is too
    /// narrow, [`Error::TooManyThreads`], [`Error::Cancelled`].
    pub fn generate<U: PrimeInt, R: CryptoRng + ?Sized>(self, rng: &mut R) -> Result<U, Error> {
        let (kind, bits) = (self.kind, self.bits);
        self.run(|threads, progress| match kind {
            PrimeKind::Prime => search(Kind::Prime, bits, rng, threads, Tuning::DEFAULT, progress),
            PrimeKind::Safe => search(Kind::Safe, bits, rng, threads, Tuning::DEFAULT, progress),
            PrimeKind::Strong => strong_prime(bits, rng, threads, progress),
        })
    }
}

impl<'a> PrimeGen<'a, RsaPrimes> {
    /// FIPS 186-5 appendix B.3.3: the two primes of an RSA modulus of `nlen`
    /// bits (even, at least 2048) for the odd public exponent `e > 2^16`, as
    /// probable primes.
    ///
    /// Each prime is a fresh random `nlen/2`-bit odd candidate, kept when
    /// `p >= √2·2^(nlen/2 - 1)` (so `pq` has exactly `nlen` bits),
    /// `gcd(p - 1, e) = 1` and it passes MR64 (more rounds than Table B.1 asks
    /// for); at most `5·nlen/2` candidates per prime, as the standard says, then
    /// [`Error::GenerationFailed`]. `q` must also satisfy
    /// `|p - q| > 2^(nlen/2 - 100)`. Before MR64, trial division and
    /// Fermat's test to base 2 throw out composites cheaply; neither can
    /// reject a prime, so the candidate kept is the one the standard's
    /// procedure keeps. Fresh candidates are independent of one another, so
    /// what the running time says about a rejected one (that it was rejected,
    /// and at which check) says nothing about the result; every check is
    /// constant time.
    pub fn rsa_fips(nlen: u32, e: u64) -> Self {
        Self::with_kind(RsaPrimes { e }, nlen)
    }

    /// The two primes `(p, q)`, each of `nlen/2` bits (which `U` must
    /// hold). Errors: [`Error::BitsTooSmall`] for `nlen` below 2048 or odd,
    /// [`Error::InvalidExponent`], [`Error::GenerationFailed`] when a prime
    /// takes more candidates than the standard allows (run it again),
    /// [`Error::TooManyThreads`], [`Error::Cancelled`].
    pub fn generate<U: PrimeInt, R: CryptoRng + ?Sized>(
        self,
        rng: &mut R,
    ) -> Result<(U, U), Error> {
        let (e, nlen) = (self.kind.e, self.bits);
        self.run(|threads, progress| fips_primes(nlen, e, rng, threads, progress))
    }
}

impl<'a, K> PrimeGen<'a, K> {
    fn with_kind(kind: K, bits: u32) -> Self {
        Self {
            kind,
            bits,
            #[cfg(feature = "std")]
            threads: Some(NonZeroUsize::MIN),
            progress: None,
            cancel: None,
        }
    }

    /// Splits the search over `threads` worker threads (`None`: one per
    /// available core; at most [`max_threads`](crate::max_threads)). The
    /// default is one: the calling thread.
    #[cfg(feature = "std")]
    pub fn threads(mut self, threads: Option<NonZeroUsize>) -> Self {
        self.threads = threads;
        self
    }

    /// Calls `progress` as the search goes (like OpenSSL's `BN_GENCB`):
    /// after each window of candidates, each Miller–Rabin test on a
    /// survivor and each eighth of the final MR64, on the calling thread,
    /// with the counts of all workers (on several threads, also once before
    /// the workers start). Returning `ControlFlow::Break(())` cancels the
    /// search.
    pub fn progress(mut self, progress: ProgressFn<'a>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Cancels the search, with [`Error::Cancelled`], soon after `flag` is
    /// set (from another thread, say): it is checked at every progress
    /// report.
    pub fn cancel(mut self, flag: &'a AtomicBool) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// Runs `search(threads, progress)` with the caller's callback and the
    /// cancellation flag folded into one progress callback.
    fn run<T>(
        self,
        search: impl FnOnce(usize, ProgressFn<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let _dit = numcrypt_limbs::DataIndependentTiming::enable();
        #[cfg(feature = "std")]
        let threads = crate::parallel::thread_count(self.threads)?;
        #[cfg(not(feature = "std"))]
        let threads = 1;
        let (cancel, mut progress) = (self.cancel, self.progress);
        let mut report = |counts: &Progress| {
            if cancel.is_some_and(|flag| flag.load(Ordering::Relaxed)) {
                return ControlFlow::Break(());
            }
            match progress.as_mut() {
                Some(progress) => progress(counts),
                None => ControlFlow::Continue(()),
            }
        };
        search(threads, &mut report)
    }
}
