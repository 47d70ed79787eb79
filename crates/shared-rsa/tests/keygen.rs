//! Shared key generation over in-process channels, checked against
//! num-bigint and the `openssl` command line.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use crate::common::*;
use num_bigint::BigUint;
use numcrypt_shared_rsa::{
    Error, HashAlg, Improvements, KeyGenConfig, KeyGenProgress, KeyGenStats, MemoryNetwork,
    MemoryTransport, PartialSignature, SharedKeyShare, Transport, combine, encode_pkcs1v15,
    encode_pss, generate_key_with_progress,
};
use rand_core::SeedableRng;

fn config(bits: u32) -> KeyGenConfig {
    let mut c = KeyGenConfig::new(bits);
    c.timeout = Duration::from_secs(20);
    c
}

fn sign_all(shares: &[&SharedKeyShare], em: &[u8]) -> Vec<PartialSignature> {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(77);
    shares
        .iter()
        .map(|s| s.sign_partial(&mut rng, em).unwrap())
        .collect()
}

/// Signs with PKCS#1 v1.5 and PSS and has `openssl` verify both.
fn check_signatures(outputs: &[numcrypt_shared_rsa::KeyGenOutput]) {
    let shares: Vec<&SharedKeyShare> = outputs.iter().map(|o| &o.share).collect();
    let public = shares[0].public_key();
    let pem = public.to_public_key_pem().unwrap();
    let msg = b"a message signed by every party";

    let em = encode_pkcs1v15(public, HashAlg::Sha256, msg).unwrap();
    let sig = combine(public, &em, &sign_all(&shares, &em)).unwrap();
    assert!(raw_verify(&big(public.n()), public.e(), &sig, &em));
    assert!(
        openssl_verify(&pem, msg, &sig, None),
        "openssl accepts PKCS#1 v1.5"
    );

    // 512-bit keys leave room for a 20-byte salt with SHA-256.
    let salt = [0x5a; 20];
    let em = encode_pss(public, HashAlg::Sha256, msg, &salt).unwrap();
    let sig = combine(public, &em, &sign_all(&shares, &em)).unwrap();
    assert!(
        openssl_verify(&pem, msg, &sig, Some(salt.len())),
        "openssl accepts PSS"
    );
    assert!(!openssl_verify(
        &pem,
        b"another message",
        &sig,
        Some(salt.len())
    ));
}

#[test]
fn three_parties_512_bits() {
    let outputs = generate(3, config(512), 1);
    let (p, q, _) = check_key(&outputs, 512);
    assert!(
        openssl_prime(&p) && openssl_prime(&q),
        "openssl agrees p and q are prime"
    );
    check_signatures(&outputs);
    let stats = &outputs[0].stats;
    assert!(stats.candidates >= 1 && stats.biprimality_tests >= 1);
    assert!(stats.trial_division_survivors >= stats.biprimality_tests);
    for o in &outputs {
        assert!(o.stats.bytes_sent > 0);
        assert_eq!(
            o.stats.candidates, stats.candidates,
            "every party counts alike"
        );
    }
}

#[test]
fn five_parties_512_bits() {
    let outputs = generate(5, config(512), 2);
    check_key(&outputs, 512);
    check_signatures(&outputs);
}

#[test]
fn four_parties_check_redundant_shares() {
    // n = 4, t = 1: interpolation uses 3 shares and checks the fourth.
    let outputs = generate(4, config(512), 3);
    check_key(&outputs, 512);
}

#[test]
fn a_small_public_exponent() {
    // e = 5, the smallest prime to 3! = 6 (threshold signing needs e prime
    // to n!, so e = 3 is refused for any n >= 3).
    let mut c = config(512);
    c.public_exponent = 3;
    assert!(matches!(
        numcrypt_shared_rsa::generate_key(
            &MemoryNetwork::new(3)[0],
            &c,
            &mut <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(1)
        ),
        Err(Error::InvalidConfig(_))
    ));
    c.public_exponent = 5;
    let outputs = generate(3, c, 4);
    check_key(&outputs, 512);
    check_signatures(&outputs);
}

/// `e = 25`: composite, so a candidate with `φ ≡ 5, 10, 15 or 20 (mod
/// 25)` has no `d`. The generation dropped only `φ ≡ 0`, and about a third
/// of the keys it committed then failed with `KeyCheckFailed`; now every
/// candidate must have `gcd(φ mod e, e) = 1`.
#[test]
fn a_composite_public_exponent() {
    for seed in [51, 52, 53, 54] {
        let mut c = config(512);
        c.public_exponent = 25;
        c.threads = 1;
        c.batch = Some(8);
        c.retain_factor_shares = true;
        let outputs = run_parties(MemoryNetwork::new(3), &c, seed)
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| panic!("seed {seed}: {e}")))
            .collect::<Vec<_>>();
        let (p, q, d) = check_key(&outputs, 512);
        let phi = (p - 1u32) * (q - 1u32);
        assert_eq!(
            (BigUint::from(25u32) * d) % phi,
            BigUint::from(1u32),
            "seed {seed}"
        );
    }
}

#[test]
fn each_improvement_switched_off() {
    for (i, off) in [
        Improvements {
            distributed_sieving: false,
            ..Improvements::ALL
        },
        Improvements {
            multithreading: false,
            ..Improvements::ALL
        },
        Improvements {
            load_balancing: false,
            ..Improvements::ALL
        },
        Improvements {
            parallel_trial_division: false,
            ..Improvements::ALL
        },
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = config(512);
        c.improvements = off;
        let outputs = generate(3, c, 10 + i as u64);
        check_key(&outputs, 512);
    }
}

#[test]
fn several_lanes_and_batches() {
    let mut c = config(512);
    c.threads = 3;
    c.batch = Some(5);
    c.sieve_bound = Some(100);
    c.trial_division_bound = Some(3000);
    let outputs = generate(3, c, 20);
    check_key(&outputs, 512);
    assert_eq!(outputs[0].stats.sieve_bound, 97);
}

/// A transport that dies after a number of sends, like a killed process.
struct Dying {
    inner: MemoryTransport,
    sends_left: std::sync::atomic::AtomicI64,
}

impl Transport for Dying {
    fn party_count(&self) -> usize {
        self.inner.party_count()
    }
    fn index(&self) -> usize {
        self.inner.index()
    }
    fn send(&self, to: usize, channel: u16, payload: Vec<u8>) -> Result<(), Error> {
        if self
            .sends_left
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            <= 0
        {
            self.inner.abort();
            return Err(Error::Aborted);
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

#[test]
fn killed_party_makes_the_others_fail_cleanly() {
    for sends in [0i64, 3, 40] {
        let transports: Vec<Dying> = MemoryNetwork::new(3)
            .into_iter()
            .enumerate()
            .map(|(i, t)| Dying {
                inner: t,
                sends_left: (if i == 1 { sends } else { i64::MAX }).into(),
            })
            .collect();
        let start = Instant::now();
        let results = run_parties(transports, &config(512), 7);
        assert!(start.elapsed() < Duration::from_secs(10), "no hang");
        // Each survivor stops with a disconnection: of party 2, or of the
        // other survivor, which aborts as soon as it sees party 2 go (and
        // is reported as saying so, or seen to go).
        let mut blamed = Vec::new();
        for (i, r) in results.iter().enumerate() {
            match r {
                _ if i == 1 => assert!(r.is_err()),
                Err(e @ (Error::Disconnected { .. } | Error::Reported { .. })) => {
                    blamed.push(named(e).unwrap())
                }
                other => panic!(
                    "party {} after party 2 died at send {sends}: {:?}",
                    i + 1,
                    other.as_ref().err()
                ),
            }
        }
        assert!(blamed.contains(&2), "someone names party 2: {blamed:?}");
    }
}

/// Every party runs `generate_key_with_progress`; `stop_at` cancels party
/// 1 at that report. Returns each party's result and reports.
fn run_with_progress(
    config: &KeyGenConfig,
    stop_at: Option<usize>,
) -> Vec<(
    Result<numcrypt_shared_rsa::KeyGenOutput, Error>,
    Vec<KeyGenProgress>,
)> {
    std::thread::scope(|s| {
        let handles: Vec<_> = MemoryNetwork::new(3)
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                s.spawn(move || {
                    let mut rng =
                        <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(
                            20 + i as u64,
                        );
                    let mut reports = Vec::new();
                    let result = generate_key_with_progress(&t, config, &mut rng, &mut |p| {
                        reports.push(p.clone());
                        if i == 0 && Some(reports.len()) == stop_at {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        }
                    });
                    (result, reports)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn progress_reports_the_search_then_the_biprime() {
    let mut c = config(1024);
    c.progress_interval = Duration::from_millis(2);
    for (result, reports) in run_with_progress(&c, None) {
        let out = result.expect("key generation");
        let searching: Vec<&KeyGenStats> = reports
            .iter()
            .filter_map(|r| match r {
                KeyGenProgress::Searching(s) => Some(s),
                _ => None,
            })
            .collect();
        assert!(searching.len() >= 2, "{} reports", reports.len());
        assert!(matches!(reports[0], KeyGenProgress::Searching(_)));
        for pair in searching.windows(2) {
            assert!(pair[0].candidates <= pair[1].candidates);
            assert!(pair[0].elapsed <= pair[1].elapsed);
        }
        let KeyGenProgress::Found(found) = reports.last().unwrap() else {
            panic!("the last report is not Found: {reports:?}");
        };
        assert_eq!(found.candidates, out.stats.candidates);
        assert_eq!(found.biprimality_tests, out.stats.biprimality_tests);
        assert!(found.bytes_sent <= out.stats.bytes_sent);
        assert!(searching.last().unwrap().candidates <= found.candidates);
    }
}

#[test]
fn progress_callback_cancels_every_party() {
    let mut c = config(1024);
    c.progress_interval = Duration::from_millis(2);
    let start = Instant::now();
    let results = run_with_progress(&c, Some(3));
    assert!(start.elapsed() < Duration::from_secs(10), "no hang");
    assert!(
        matches!(results[0].0, Err(Error::Cancelled)),
        "{:?}",
        results[0].0.as_ref().err()
    );
    assert_eq!(results[0].1.len(), 3, "no report after the cancel");
    // As when a party dies: each other party sees a disconnection, of
    // party 1 or of the other, which aborts as soon as it sees party 1 go.
    let mut blamed = Vec::new();
    for (i, (result, _)) in results.iter().enumerate().skip(1) {
        match result {
            Err(e @ (Error::Disconnected { .. } | Error::Reported { .. })) => {
                blamed.push(named(e).unwrap())
            }
            other => panic!("party {}: {:?}", i + 1, other.as_ref().err()),
        }
    }
    assert!(blamed.contains(&1), "someone names party 1: {blamed:?}");
}

#[test]
fn silent_party_times_out() {
    let mut transports = MemoryNetwork::new(3);
    let silent = transports.pop().unwrap();
    let mut c = config(512);
    c.timeout = Duration::from_millis(300);
    let results = run_parties(transports, &c, 8);
    // Each names party 3: as silent itself, or as the other reports it.
    for r in results {
        assert!(
            matches!(
                r,
                Err(Error::Timeout { party: 3, .. })
                    | Err(Error::Reported {
                        party: 3,
                        what: "went silent",
                        ..
                    })
            ),
            "{:?}",
            r.err()
        );
    }
    drop(silent);
}

#[test]
fn mismatched_configurations_are_refused() {
    let transports = MemoryNetwork::new(3);
    let configs = [config(512), config(512), config(576)];
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = transports
            .into_iter()
            .zip(&configs)
            .map(|(t, c)| {
                s.spawn(move || {
                    let mut rng =
                        <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(1);
                    numcrypt_shared_rsa::generate_key(&t, c, &mut rng)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results[..2] {
        assert!(
            matches!(r, Err(Error::ConfigMismatch { party: 3 })),
            "{:?}",
            r.as_ref().err()
        );
    }
    assert!(matches!(results[2], Err(Error::ConfigMismatch { .. })));
}

#[test]
fn invalid_configurations_are_errors() {
    let mut bad = Vec::new();
    let mut c = config(512);
    c.bits = 511;
    bad.push(c);
    let mut c = config(512);
    c.public_exponent = 4;
    bad.push(c);
    let mut c = config(512);
    c.threads = 0;
    bad.push(c);
    let mut c = config(512);
    c.sieve_bound = Some(1 << 19); // M far larger than the primes
    bad.push(c);
    for c in &bad {
        let results = run_parties(MemoryNetwork::new(3), c, 9);
        for r in results {
            assert!(matches!(r, Err(Error::InvalidConfig(_))), "{:?}", r.err());
        }
    }
    // Two parties are not enough.
    let results = run_parties(MemoryNetwork::new(2), &config(512), 9);
    assert!(
        results
            .iter()
            .all(|r| matches!(r, Err(Error::InvalidConfig(_))))
    );
}

/// A full-size key, checked like the small ones (a few seconds).
#[test]
fn three_parties_2048_bits() {
    let outputs = generate(3, config(2048), 30);
    let (p, q, _) = check_key(&outputs, 2048);
    assert!(openssl_prime(&p) && openssl_prime(&q));
    let public = outputs[0].share.public_key();
    let em = encode_pkcs1v15(public, HashAlg::Sha256, b"m").unwrap();
    let shares: Vec<&SharedKeyShare> = outputs.iter().map(|o| &o.share).collect();
    let sig = combine(public, &em, &sign_all(&shares, &em)).unwrap();
    public
        .rsa_public_key()
        .unwrap()
        .verify_pkcs1v15(HashAlg::Sha256, b"m", &sig)
        .unwrap();
}
