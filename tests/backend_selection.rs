//! `NUMCRYPT_DISABLE`: each setting turns off what it names for the whole
//! process, and everything still computes the right answers.
//!
//! The variable is read once per process, so [`each_setting`] runs this test
//! binary again per setting, with [`child`] as the only test, which checks
//! the choice it sees and runs exponentiations (against num-bigint) and an
//! RSA signature under it.

use std::process::Command;

use num_bigint::BigUint;
use numcrypt::limbs::backend::{self, Exponentiation, LimbKernels};
use numcrypt::limbs::{BoxedUint, MontyParams};
use numcrypt::rsa::{HashAlg, KeyGen};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// Set by [`each_setting`] in the children's environment.
const CHILD: &str = "NUMCRYPT_TEST_BACKEND_CHILD";

#[test]
fn each_setting() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    for setting in [
        "",
        "ifma",
        "ifma256",
        "ifma512",
        "adx",
        "adx,ifma",
        "avx2",
        "ifma,avx2,avx512-radix28",
        "neon",
        " IFMA256 , bogus",
        "ifma-batch",
        "ifma,avx2-batch",
        "ifma,fma-batch",
        "ifma,avx2-batch,fma-batch",
        "ifma,fma512-batch",
        "fma-pair",
        "ifma,avx512-batch",
        "ifma,avx512-radix28",
        "avx512",
        "batch",
        "race",
    ] {
        let out = Command::new(&exe)
            .args(["--exact", "child", "--nocapture", "--test-threads=1"])
            .env("NUMCRYPT_DISABLE", setting)
            .env(CHILD, "1")
            .output()
            .expect("run the test binary");
        let log = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "NUMCRYPT_DISABLE={setting:?}:\n{log}");
        assert!(
            log.contains("1 passed"),
            "the child test did not run:\n{log}"
        );
    }
}

#[test]
fn child() {
    let Some(_) = std::env::var_os(CHILD) else {
        return;
    };
    let disabled = std::env::var("NUMCRYPT_DISABLE").unwrap_or_default();
    let words: Vec<String> = disabled
        .split(',')
        .map(|w| w.trim().to_lowercase())
        .collect();
    let off = |w: &str| words.iter().any(|x| x == w);
    let selection = backend::selection();
    eprintln!("NUMCRYPT_DISABLE={disabled:?}: {selection}");

    if off("adx") {
        assert_ne!(selection.limb_kernels(), LimbKernels::Adx);
    }
    for (n, k) in [(16, 1), (16, 2), (32, 1), (32, 2), (48, 1)] {
        let chosen = selection.exponentiation(n, k);
        if off("ifma") || off("avx512") {
            assert!(
                ![
                    Exponentiation::Ifma256,
                    Exponentiation::Ifma256VectorQuotient,
                    Exponentiation::Ifma512
                ]
                .contains(&chosen)
            );
        }
        if off("avx2") {
            assert_ne!(chosen, Exponentiation::Avx2);
            assert!(!Exponentiation::Avx2.available(n, k));
        }
        if off("avx512") || off("avx512-radix28") {
            assert_ne!(chosen, Exponentiation::Avx512);
            assert!(!Exponentiation::Avx512.available(n, k));
        }
        if off("avx2") || off("fma-pair") {
            assert_ne!(chosen, Exponentiation::FmaPair);
            assert!(!Exponentiation::FmaPair.available(n, 2));
        }
        if off("ifma") && off("avx2") && off("avx512-radix28") {
            // A pair apart runs on the single choice.
            let runs = match chosen {
                Exponentiation::Apart => selection.exponentiation(n, 1),
                other => other,
            };
            assert_eq!(runs, Exponentiation::LimbKernels);
        }
        if off("ifma256") {
            for ymm in [
                Exponentiation::Ifma256,
                Exponentiation::Ifma256VectorQuotient,
            ] {
                assert_ne!(chosen, ymm);
                assert!(!ymm.available(n, k));
            }
        }
        if off("ifma512") {
            assert_ne!(chosen, Exponentiation::Ifma512);
        }
        if off("neon") {
            assert_ne!(chosen, Exponentiation::Neon);
            assert!(!Exponentiation::Neon.available(n, k));
        }
        // Where backends race, the choice is one of them.
        let racers = selection.racers(n, k);
        if off("race") {
            assert_eq!(racers, None);
        }
        if let Some(racers) = racers {
            assert!(racers.backends().contains(&chosen), "{racers:?}");
        }
        assert!(chosen.available(n, k), "{chosen:?} chosen but unavailable");
    }
    for n in [16, 24, 32, 17] {
        let batch = selection.batch_exponentiation(n);
        let kernels = [
            Exponentiation::IfmaBatch,
            Exponentiation::Avx2Batch,
            Exponentiation::Avx512Batch,
            Exponentiation::FmaBatch,
            Exponentiation::Fma512Batch,
        ];
        if off("batch") {
            assert!(!kernels.contains(&batch));
            assert!(kernels.iter().all(|k| !k.available(n, k.lanes())));
        }
        if off("ifma") || off("ifma-batch") || off("avx512") {
            assert_ne!(batch, Exponentiation::IfmaBatch);
            assert!(!Exponentiation::IfmaBatch.available(n, 8));
        }
        if off("avx2") || off("avx2-batch") {
            assert_ne!(batch, Exponentiation::Avx2Batch);
            assert!(!Exponentiation::Avx2Batch.available(n, 4));
        }
        if off("avx512") || off("avx512-batch") {
            assert_ne!(batch, Exponentiation::Avx512Batch);
            assert!(!Exponentiation::Avx512Batch.available(n, 8));
        }
        if off("avx2") || off("fma-batch") {
            assert_ne!(batch, Exponentiation::FmaBatch);
            assert!(!Exponentiation::FmaBatch.available(n, 4));
        }
        if off("avx512") || off("fma-batch") || off("fma512-batch") {
            assert_ne!(batch, Exponentiation::Fma512Batch);
            assert!(!Exponentiation::Fma512Batch.available(n, 8));
        }
        let at_once = match kernels.contains(&batch) {
            true => batch.lanes(),
            false => {
                assert_eq!(batch, selection.exponentiation(n, 2));
                2
            }
        };
        // Where batches race, the choice is a racer, or pairs where a
        // racer without lanes (standing for them) leads.
        let racers = selection.racers(n, backend::BATCH);
        if off("race") {
            assert_eq!(racers, None);
        }
        if let Some(racers) = racers {
            let pairs = racers.backends().iter().any(|e| e.lanes() == 1);
            assert!(
                racers.backends().contains(&batch) || (pairs && at_once == 2),
                "{batch:?} chosen, {racers:?}"
            );
        }
        assert!(
            batch.available(n, at_once),
            "{batch:?} chosen but unavailable"
        );
    }

    // Exponentiations on whatever runs now, against num-bigint.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut word = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for n in [16, 24, 32] {
        let mut m: Vec<u64> = (0..n).map(|_| word()).collect();
        m[0] |= 1;
        m[n - 1] |= 1 << 63;
        let a: Vec<u64> = (0..n).map(|_| word()).collect();
        let e: Vec<u64> = (0..n).map(|_| word()).collect();
        let big = |w: &[u64]| {
            BigUint::from_bytes_le(&w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
        };
        let expect = big(&a).modpow(&big(&e), &big(&m));
        let params = MontyParams::new(BoxedUint::from_words(m)).unwrap();
        let base = params.to_monty(&BoxedUint::from_words(a));
        let e = BoxedUint::from_words(e);
        let got = params.from_monty(&params.pow(&base, &e));
        assert_eq!(big(got.as_words()), expect, "{n} limbs");
        let operand = (&params, &base, e.as_ref());
        for r in MontyParams::pow_bounded_pair([operand; 2], 64 * n as u32) {
            assert_eq!(
                big(params.from_monty(&r).as_words()),
                expect,
                "{n} limbs, pair"
            );
        }
        // As many batches as a race has racers: each runs once first.
        for _ in 0..3 {
            let mut batch = vec![params.zero(); 9];
            MontyParams::pow_bounded_batch(&[operand; 9], 64 * n as u32, &mut batch).unwrap();
            for r in &batch {
                assert_eq!(
                    big(params.from_monty(r).as_words()),
                    expect,
                    "{n} limbs, batch"
                );
            }
        }
    }

    // An RSA signature, checked by the private operation itself and here.
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let key = KeyGen::new(2048).generate(&mut rng).unwrap();
    let sig = key
        .sign_pkcs1v15(&mut rng, HashAlg::Sha256, b"backend selection")
        .unwrap();
    key.public_key()
        .verify_pkcs1v15(HashAlg::Sha256, b"backend selection", &sig)
        .unwrap();
}
