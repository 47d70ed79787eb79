//! Shared RSA key generation and threshold signing: `n >= 3` parties make
//! an RSA key `N = pq` together, so that no party ever learns `p`, `q`,
//! `φ(N)` or `d`, and any `t + 1` of them sign (`n >= 2t + 1`), with
//! shares of `d` on a polynomial of degree `t` over the integers.
//! The protocol is Boneh and Franklin's ("Efficient generation of shared
//! RSA keys"), with the engineering of Malkin, Wu and Boneh ("Experimenting
//! with Shared Generation of RSA Keys"): distributed sieving, several
//! candidates in flight, a load-balanced biprimality test and parallel
//! trial division, each of which can be switched off
//! ([`Improvements`]).
//!
//! # Security model: read this first
//! The crate README states it in full; in short:
//! - **Key generation: honest majority, semi-honest parties.** `p`, `q`,
//!   `φ(N)` and `d` stay secret from any coalition of at most
//!   `min(t, ⌊(n − 1)/2⌋)` parties that *follow the protocol* and pool
//!   what they saw (`t + 1` parties together hold `d`, so the bound is
//!   `t` when the threshold is below `⌊(n − 1)/2⌋`). A party that deviates
//!   during the generation can spoil the key or learn more than it
//!   should: run it among parties that run unmodified software.
//! - **Any `t + 1` parties sign; `t` learn nothing** about `d`
//!   ([`KeyGenConfig::threshold`], `⌊(n − 1)/2⌋` by default), from shares
//!   on a polynomial of degree `t` over the integers ("sum-to-poly": the
//!   `threshold` module's documentation says why and what a coalition
//!   learns).
//! - **Signing holds against malicious parties.** Each partial signature
//!   carries a proof that it used its party's share (Shoup's proof of
//!   equality of discrete logarithms, as Damgård and Koprowski adapt it to
//!   moduli that are not products of safe primes) and is signed by the
//!   party's identity key ([`PartialSignature`]). [`combine`] names exactly
//!   the parties whose own partial signature fails its proof, never one
//!   whose name a forged one bears, and finds `t + 1` good ones among
//!   more; [`sign_jointly`] does the same at every party, which checks the
//!   signature itself.
//! - **Identities.** Each party makes its own TLS key on its own machine
//!   ([`PartyIdentity`]); the others pin its certificate, and key
//!   generation records the certificates in the public key.
//! - **Public by design:** `N`, `e`, `φ(N) mod e` (Boneh–Franklin reveal
//!   it to compute `d`), the correction `r < n` (folded into party 1's
//!   share), the verification values `w^(d_i)` of the additive shares and
//!   `w^f(j)` of the threshold shares, and the biprimality values: what
//!   each reveals, and why that is acceptable, is in the crate README.
//! - **The network:** [`TlsTransport`] runs mutual TLS 1.3 (`rustls`)
//!   between the parties, each accepted only as the party its pin (or,
//!   without a pin, a CA-issued certificate naming it) says. A stranger, a
//!   silent connection or a slow one does not stop the others.
//!
//! # Example
//! Three parties as threads of one process, over in-process channels:
//!
//! ```
//! use numcrypt_shared_rsa::{KeyGenConfig, MemoryNetwork, combine, encode_pkcs1v15, generate_key};
//! use numcrypt_rsa::HashAlg;
//! # use rand_core::SeedableRng;
//!
//! let config = KeyGenConfig::new(512); // 512 bits only to keep the example short
//! let shares: Vec<_> = std::thread::scope(|s| {
//!     let handles: Vec<_> = MemoryNetwork::new(3)
//!         .into_iter()
//!         .enumerate()
//!         .map(|(i, transport)| {
//!             let config = &config;
//!             s.spawn(move || {
//!                 let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(i as u64);
//!                 generate_key(&transport, config, &mut rng).map(|out| out.share)
//!             })
//!         })
//!         .collect();
//!     handles.into_iter().map(|h| h.join().unwrap()).collect::<Result<_, _>>()
//! })?;
//! let public = shares[0].public_key();
//! let em = encode_pkcs1v15(public, HashAlg::Sha256, b"hello")?;
//! // Any t + 1 = 2 of the 3 parties sign (t = 1 for three parties), each
//! // with a proof that it used its share.
//! let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
//! let partials: Vec<_> =
//!     shares[1..].iter().map(|s| s.sign_partial(&mut rng, &em)).collect::<Result<_, _>>()?;
//! let signature = combine(public, &em, &partials)?; // an ordinary RSA signature under (N, e)
//! assert_eq!(signature.len(), public.size());
//! # Ok::<(), numcrypt_shared_rsa::Error>(())
//! ```
//!
//! # The protocol
//! With `t = ⌊(n − 1)/2⌋` and `h` = half the key size:
//! 1. **Shares of the primes.** For each candidate one party (rotating,
//!    for load balancing) picks `p_j ≡ q_j ≡ 3 (mod 4)` and holds the public
//!    offset that puts `p` in `[2^h/√2, 2^h)`; the others pick
//!    `p_i ≡ q_i ≡ 0 (mod 4)`; `p = Σ p_i`, `q = Σ q_i`, so `p ≡ q ≡ 3
//!    (mod 4)` and `N` has exactly the requested size.
//! 2. **Distributed sieving.** `M` is the product of the primes from `n + 1`
//!    to the sieve bound `B`. Each party draws a random unit `a_i` modulo
//!    `M` (in constant time, from CRT coordinates); BGW over `Z_M` (degree-t
//!    Shamir sharing, products, degree reduction by resharing) turns
//!    `Π a_i mod M` into additive shares `u_i`, and `p_i = u_i + M·ρ_i`: `p`
//!    is then prime to `M`. Primes up to `n` cannot be in `M` (Shamir
//!    sharing needs the evaluation points' differences to be units), so
//!    trial division covers them.
//! 3. **`N` by BGW** over a prime field `F_P`, `P` the smallest prime above
//!    `2^bits`: degree-t shares of `p_i` and `q_i`, a degree-2t sharing of
//!    zero from every party to re-randomize, local products, interpolation
//!    at 0 (checking redundant shares when `n > 2t + 1`). Additive pieces of
//!    `φ_i mod e` travel with the shares, so `φ mod e` is known with `N`.
//! 4. **Parallel trial division** of `N` by the primes from `B` to the
//!    trial-division bound, split among the parties, with a one-round
//!    exchange of verdicts; candidates with `e | φ` go too.
//! 5. **Biprimality test** (Boneh–Franklin): for `g` with Jacobi symbol
//!    `(g/N) = 1`, a public hash of `N`, the `3 mod 4` party publishes
//!    `g^((N − p_j − q_j + 1)/4)` and the others `g^((p_i + q_i)/4)`; the
//!    test passes when the first is `±` the product of the others. A
//!    candidate that passes a first round must pass Boneh–Franklin's
//!    `gcd(N, p + q − 1) = 1` check (BGW over `Z_N` reveals
//!    `z = r (p + q − 1) mod N` for a random shared `r`) and 127 more rounds,
//!    128 in all: error at most `2^-128`. A party's exponentiations are
//!    independent, and run as batches of the limbs crate's batch
//!    exponentiation (the first round of every surviving candidate at
//!    once, then a candidate's other 127 rounds).
//! 6. **Shares of `d`** for small `e`: with `ζ = −φ^-1 mod e`,
//!    `d = (1 + ζφ)/e`; the `3 mod 4` party takes `⌊(1 + ζφ_j)/e⌋` and the
//!    others `−⌈ζ(p_i + q_i)/e⌉` (offset by a public `2^(h+2)` so that all
//!    are non-negative). The floors lose `r < n`, found by a trial signature
//!    on `w` (a hash of `N`); party 1 adds it to its share.
//! 7. **Threshold shares of `d`**: each party sends every other a value of
//!    its polynomial (one round), then all publish `w^f(j)`, checked to lie
//!    on one polynomial of degree `t` and to sign `w` (a second round).
//! 8. **Agreement**: every party sends a hash of the run identifier and
//!    the public key it computed (`N`, `e`, the verification values, the
//!    identities); a party keeps its share only if all are its own. Every
//!    message after the first round carries the run identifier, a hash of
//!    the parties' certificates and a nonce from each.
//!
//! # Concurrency
//! Each party runs `threads` lanes; lane `ℓ` of every party works in lock
//! step on its own transport channel, carrying a batch of candidates per
//! round trip. While one lane waits for its peers, another computes, so the
//! cores stay busy. Party 1 decides, at each batch, whether the lanes go
//! on, and commits the first biprime a lane offers. Threads rather than an
//! async runtime: the work is CPU-bound exponentiation, and a lane is a
//! straight-line protocol that reads best as plain code.
//!
//! # Progress
//! A 2048-bit key takes seconds to minutes. [`generate_key_with_progress`]
//! calls back on the calling thread (idle while the lanes search) once the
//! parties agree on the parameters, then every
//! [`KeyGenConfig::progress_interval`] with the counters so far
//! ([`KeyGenProgress::Searching`]), and once a biprime is found
//! ([`KeyGenProgress::Found`]). Returning `ControlFlow::Break(())` cancels:
//! [`Error::Cancelled`] here, a disconnection at the others.
//!
//! # Errors and failures
//! A party that disconnects or sends nothing within the timeout makes the
//! others stop with [`Error::Disconnected`] or [`Error::Timeout`]; a
//! malformed message is [`Error::Malformed`]. A party that fails aborts its
//! transport, so its peers stop promptly too, and tells them whom it
//! blames, which they report as its word ([`Error::Reported`]). Nothing
//! panics on a peer's input.
#![forbid(unsafe_code)]

mod arith;
mod config;
mod error;
mod identity;
mod key;
mod keygen;
mod sieve;
mod sign;
mod threshold;
pub mod transport;
mod wire;

pub use config::PartyConfig;
pub use error::Error;
pub use identity::{
    IdentityKey, IdentitySignature, PartyIdentity, certificate_from_pem, names_party,
};
pub use key::{SharedKeyShare, SharedPublicKey};
pub use keygen::{
    FactorShares, Improvements, KeyGenConfig, KeyGenOutput, KeyGenProgress, KeyGenProgressFn,
    KeyGenStats, auto_batch, generate_key, generate_key_with_progress,
};
pub use numcrypt_rsa::HashAlg;
pub use sign::{
    Combined, EqualityProof, PartialCheck, PartialSignature, combine, combine_checked,
    encode_pkcs1v15, encode_pkcs1v15_prehashed, encode_pss, encode_pss_prehashed, sign_jointly,
};
pub use transport::{
    MemoryNetwork, MemoryTransport, ReceivedFrom, TlsConfig, TlsPeer, TlsTransport, Transport,
    fingerprint, party_name,
};

/// The smallest key size accepted: 512 bits (for tests; use 2048 or more).
pub const MIN_KEY_BITS: u32 = 512;
/// The largest key size accepted.
pub const MAX_KEY_BITS: u32 = 8192;

/// The largest number of parties supported.
pub const MAX_PARTIES: usize = 64;

/// The longest timeout or interval accepted (configuration files,
/// [`KeyGenConfig`], [`TlsConfig`], [`sign_jointly`]): one day.
pub const MAX_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(86_400);
