//! The multi-threaded search (feature `std`): the same results as the
//! single-threaded functions for the same generator state, checked against
//! the independent num-bigint reference; progress, cancellation and errors.
#![cfg(feature = "std")]

use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::common::*;
use num_bigint::BigUint;
use numcrypt_limbs::{BoxedUint, U128, U256, U512, U1024, Unsigned};
use numcrypt_prime::{Error, PrimeGen, PrimeKind, Progress};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

fn to_big<U: Unsigned>(u: &U) -> BigUint {
    let bytes: Vec<u8> = u.as_ref().iter().flat_map(|w| w.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

fn threads(n: usize) -> Option<NonZeroUsize> {
    NonZeroUsize::new(n)
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

#[test]
fn primes_are_those_of_the_single_thread_search() {
    for (seed, bits) in [
        (1u64, 20u32),
        (2, 64),
        (3, 65),
        (4, 200),
        (5, 512),
        (6, 1024),
    ] {
        let mut single = rng(seed);
        let want: U1024 = PrimeGen::new(PrimeKind::Prime, bits)
            .generate(&mut single)
            .unwrap();
        let after = single.next_u64();
        assert!(ref_is_prime(&to_big(&want)), "{bits} bits");
        assert_eq!(to_big(&want).bits(), bits as u64);
        for t in [1, 2, 3, 7] {
            let mut split = rng(seed);
            let got: U1024 = PrimeGen::new(PrimeKind::Prime, bits)
                .threads(threads(t))
                .generate(&mut split)
                .unwrap();
            assert_eq!(to_big(&got), to_big(&want), "{bits} bits, {t} threads");
            // The generator is consumed exactly as by the single thread.
            assert_eq!(split.next_u64(), after, "{bits} bits, {t} threads");
        }
        // Runtime width, default thread count.
        let got: BoxedUint = PrimeGen::new(PrimeKind::Prime, bits)
            .threads(None)
            .generate(&mut rng(seed))
            .unwrap();
        assert_eq!(to_big(&got), to_big(&want));
    }
}

#[test]
fn many_primes_agree_with_the_single_thread_search() {
    // Many searches of a size where windows are short, so that primes in
    // early, late and neighbouring windows all occur.
    let mut single = rng(40);
    let mut split = rng(40);
    for i in 0..200 {
        let want: U128 = PrimeGen::new(PrimeKind::Prime, 128)
            .generate(&mut single)
            .unwrap();
        let got: U128 = PrimeGen::new(PrimeKind::Prime, 128)
            .threads(threads(2 + i % 3))
            .generate(&mut split)
            .unwrap();
        assert_eq!(got, want, "prime {i}");
        assert!(ref_is_prime(&to_big(&got)), "prime {i}");
    }
}

#[test]
fn safe_primes_are_those_of_the_single_thread_search() {
    for (seed, bits) in [(10u64, 30u32), (11, 100), (12, 256), (13, 512)] {
        let mut single = rng(seed);
        let want: U512 = PrimeGen::new(PrimeKind::Safe, bits)
            .generate(&mut single)
            .unwrap();
        let p = to_big(&want);
        assert!(ref_is_prime(&p) && ref_is_prime(&(&p >> 1u32)), "{p}");
        assert_eq!(p.bits(), bits as u64);
        for t in [2, 5] {
            let mut split = rng(seed);
            let got: U512 = PrimeGen::new(PrimeKind::Safe, bits)
                .threads(threads(t))
                .generate(&mut split)
                .unwrap();
            assert_eq!(got, want, "{bits} bits, {t} threads");
            assert_eq!(split.next_u64(), single.clone().next_u64());
        }
    }
}

#[test]
fn strong_primes_are_those_of_the_single_thread_search() {
    let want: BoxedUint = PrimeGen::new(PrimeKind::Strong, 256)
        .generate(&mut rng(20))
        .unwrap();
    assert!(ref_is_prime(&to_big(&want)));
    let got: BoxedUint = PrimeGen::new(PrimeKind::Strong, 256)
        .threads(threads(3))
        .generate(&mut rng(20))
        .unwrap();
    assert_eq!(to_big(&got), to_big(&want));
}

#[test]
fn fips_primes_are_those_of_the_single_thread_search() {
    let (p, q): (U1024, U1024) = PrimeGen::rsa_fips(2048, 65537)
        .generate(&mut rng(30))
        .unwrap();
    for x in [&p, &q] {
        assert!(ref_is_prime(&to_big(x)));
    }
    for t in [2, 4] {
        let (pp, qq): (U1024, U1024) = PrimeGen::rsa_fips(2048, 65537)
            .threads(threads(t))
            .generate(&mut rng(30))
            .unwrap();
        assert_eq!((pp, qq), (p, q), "{t} threads");
    }
}

#[test]
fn parallel_counts_cover_the_single_thread_work() {
    let mut last = Progress::default();
    let _: U512 = PrimeGen::new(PrimeKind::Prime, 512)
        .progress(&mut |p| {
            last = *p;
            ControlFlow::Continue(())
        })
        .generate(&mut rng(50))
        .unwrap();
    let mut calls = 0;
    let mut plast = Progress::default();
    let _: U512 = PrimeGen::new(PrimeKind::Prime, 512)
        .threads(threads(3))
        .progress(&mut |p| {
            // Reports come from the calling thread only and never go back.
            assert!(p.candidates >= plast.candidates && p.tests >= plast.tests);
            plast = *p;
            calls += 1;
            ControlFlow::Continue(())
        })
        .generate(&mut rng(50))
        .unwrap();
    // At least the final report (the calling thread may get only windows
    // after the prime's, which it drops without a report).
    assert!(calls >= 1);
    assert_eq!(plast.candidates % 128, 0);
    // Every window up to the prime's is sieved and tested in full.
    assert!(plast.candidates >= last.candidates, "{plast:?} {last:?}");
    assert!(plast.tests >= last.tests, "{plast:?} {last:?}");
    assert!(plast.finalists >= 1);
}

#[test]
fn cancellation_stops_every_worker() {
    // At once.
    let r = PrimeGen::new(PrimeKind::Prime, 1024)
        .threads(threads(4))
        .progress(&mut |_| ControlFlow::Break(()))
        .generate::<U1024, _>(&mut rng(60));
    assert_eq!(r, Err(Error::Cancelled));
    // Part way through a long search (a 1024-bit safe prime takes thousands
    // of windows), after the other workers have done some work.
    let seen = AtomicU64::new(0);
    let r = PrimeGen::new(PrimeKind::Safe, 1024)
        .threads(threads(3))
        .progress(&mut |p| {
            seen.store(p.candidates, Ordering::Relaxed);
            if p.candidates >= 20 * 128 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .generate::<U1024, _>(&mut rng(61));
    assert_eq!(r, Err(Error::Cancelled));
    assert!(seen.load(Ordering::Relaxed) >= 20 * 128);
}

#[test]
fn errors_are_those_of_the_single_thread_functions() {
    let mut r = rng(70);
    assert_eq!(
        PrimeGen::new(PrimeKind::Prime, 1)
            .threads(None)
            .generate::<U256, _>(&mut r),
        Err(Error::BitsTooSmall { min: 2 })
    );
    assert_eq!(
        PrimeGen::new(PrimeKind::Prime, 257)
            .threads(None)
            .generate::<U256, _>(&mut r),
        Err(Error::BitsTooLarge { max: 256 })
    );
    assert_eq!(
        PrimeGen::new(PrimeKind::Safe, 5)
            .threads(threads(2))
            .generate::<U256, _>(&mut r),
        Err(Error::BitsTooSmall { min: 6 })
    );
    assert_eq!(
        PrimeGen::new(PrimeKind::Strong, 100)
            .threads(threads(2))
            .generate::<U256, _>(&mut r),
        Err(Error::BitsTooSmall { min: 160 })
    );
    assert_eq!(
        PrimeGen::rsa_fips(2048, 3)
            .threads(threads(2))
            .generate::<U1024, _>(&mut r),
        Err(Error::InvalidExponent)
    );
    assert_eq!(
        PrimeGen::rsa_fips(2048, 65537)
            .threads(threads(2))
            .generate::<U512, _>(&mut r),
        Err(Error::BitsTooLarge { max: 512 })
    );
}

#[test]
fn cancel_from_another_thread() {
    let flag = AtomicBool::new(false);
    let started = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::Relaxed);
        });
        // A 4096-bit safe prime takes minutes: the flag stops it first.
        let r = PrimeGen::new(PrimeKind::Safe, 4096)
            .threads(NonZeroUsize::new(2))
            .cancel(&flag)
            .generate::<BoxedUint, _>(&mut ChaCha20Rng::seed_from_u64(18));
        assert_eq!(r, Err(Error::Cancelled));
    });
    assert!(started.elapsed() < Duration::from_secs(30));
}
