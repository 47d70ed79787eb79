//! MR64, its variants and Baillie–PSW against independent references.

use crate::common::*;
use num_bigint::BigUint;
use numcrypt_limbs::{BoxedUint, U128, U192, U256, U1024, U2048, Uint, Unsigned};
use numcrypt_prime::{is_prime, is_prime_bpsw_vartime, is_prime_vartime, is_prime_with_rng};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// Every test function on `n` at several widths; all must say `expect`.
fn check(n: &BigUint, expect: bool) {
    let b = to_boxed(n);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    assert_eq!(is_prime(&b), expect, "is_prime({n})");
    assert_eq!(is_prime_vartime(&b), expect, "is_prime_vartime({n})");
    assert_eq!(
        is_prime_bpsw_vartime(&b),
        expect,
        "is_prime_bpsw_vartime({n})"
    );
    assert_eq!(
        is_prime_with_rng(&b, &mut rng),
        expect,
        "is_prime_with_rng({n})"
    );
    // Wider and fixed-width copies give the same answers.
    let wide = b.resize(b.nlimbs() + 3).unwrap();
    assert_eq!(is_prime(&wide), expect, "is_prime(wide {n})");
    fn fixed<const L: usize>(b: &BoxedUint, expect: bool, n: &BigUint) {
        if let Ok(u) = Uint::<L>::try_from(b) {
            assert_eq!(is_prime(&u), expect, "is_prime(Uint<{L}> {n})");
            assert_eq!(
                is_prime_vartime(&u),
                expect,
                "is_prime_vartime(Uint<{L}> {n})"
            );
        }
    }
    fixed::<1>(&b, expect, n);
    fixed::<2>(&b, expect, n);
    fixed::<4>(&b, expect, n);
    fixed::<9>(&b, expect, n);
    fixed::<17>(&b, expect, n);
    fixed::<32>(&b, expect, n);
}

#[test]
fn small_values_are_exact() {
    for v in 0u64..3000 {
        let n = BigUint::from(v);
        let expect = ref_is_prime(&n);
        let b = to_boxed(&n);
        assert_eq!(is_prime(&b), expect, "{v}");
        assert_eq!(is_prime_vartime(&U256::from_u64(v)), expect, "{v}");
        assert_eq!(is_prime_bpsw_vartime(&U128::from_u64(v)), expect, "{v}");
    }
    // Around the largest trial divisor (8167, the 1024th odd prime) and the
    // next prime (8171), alone and times large primes.
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let big_prime = ref_random_prime(&mut rng, 2000);
    for p in [8161u32, 8167, 8171, 8179] {
        check(&BigUint::from(p), true);
        check(&(BigUint::from(p) * p), false);
        check(&(BigUint::from(p) * &big_prime), false);
    }
    check(&big_prime, true);
}

#[test]
fn known_primes() {
    for e in [61u32, 89, 107, 127, 521, 607, 1279, 2203] {
        check(&((BigUint::from(1u8) << e) - 1u8), true);
    }
    check(&((BigUint::from(1u8) << 255u32) - 19u8), true);
    check(
        &big("115792089210356248762697446949407573530086143415290314195533631308867097853951"),
        true,
    ); // P-256
    check(&((BigUint::from(1u8) << 64u32) + 13u8), true); // smallest prime above 2^64
    check(&BigUint::from(u64::MAX - 58), true); // largest below
}

#[test]
fn known_composites() {
    // Mersenne numbers with prime exponent that are composite.
    for e in [67u32, 101, 257, 1277] {
        check(&((BigUint::from(1u8) << e) - 1u8), false);
    }
    // Carmichael numbers.
    for c in [
        561u64,
        1105,
        1729,
        2465,
        2821,
        6601,
        8911,
        41041,
        825265,
        321197185,
        5394826801,
        232250619601,
        9746347772161,
    ] {
        check(&BigUint::from(c), false);
    }
    // Strong pseudoprimes to many bases: 2..23 (below 2^64), and to every
    // prime base up to 37 (above 2^64: Sorenson and Webster 2015).
    check(&BigUint::from(3_825_123_056_546_413_051u64), false);
    check(&big("318665857834031151167461"), false);
    check(&big("3317044064679887385961981"), false);
    // 2^64 ± small composites, all ones, powers of two.
    check(&(BigUint::from(1u8) << 64u32), false);
    check(&((BigUint::from(1u8) << 128u32) - 1u8), false);
    check(&((BigUint::from(1u8) << 2048u32) - 1u8), false);
    check(&(BigUint::from(1u8) << 1000u32), false);
}

#[test]
fn generated_hard_composites() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for bits in [40u64, 100, 200] {
        let (n, p, q) = two_x_four_x(&mut rng, bits);
        check(&n, false);
        check(&p, true);
        check(&q, true);
    }
    for bits in [22u64, 40, 90] {
        let c = chernick(&mut rng, bits);
        check(&c, false);
    }
    // Products of two primes with no small factors, and squares of primes.
    for bits in [40u64, 64, 300, 1000] {
        let p = ref_random_prime(&mut rng, bits);
        let q = ref_random_prime(&mut rng, bits);
        check(&(&p * &q), false);
        check(&(&p * &p), false);
    }
}

#[test]
fn arnault_strong_pseudoprimes_to_many_bases() {
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    for (count, k2, k3) in [
        (10, 101, 113),
        (15, 137, 149),
        (20, 101, 113),
        (20, 173, 181),
    ] {
        let bases = first_primes(count);
        let (n, factors) = arnault(&mut rng, &bases, k2, k3);
        // It really fools every one of those bases (checked independently),
        // and it is a Carmichael number.
        for &a in &bases {
            assert!(ref_strong_probable_prime(&n, a), "{n} to base {a}");
        }
        for p in &factors {
            assert!(ref_is_prime(p));
            assert_eq!((&n - 1u8) % (p - 1u8), BigUint::from(0u8));
        }
        eprintln!(
            "Arnault number ({} bits), spsp to the first {count} primes: {n}",
            n.bits()
        );
        check(&n, false);
    }
}

#[test]
fn random_inputs_match_the_reference() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for &bits in &[65u64, 100, 127, 128, 129, 256, 512, 700, 1024] {
        let mut primes = 0;
        for i in 0..60 {
            let mut n = rand_bits(&mut rng, bits);
            n.set_bit(0, i % 4 != 0);
            let expect = ref_is_prime(&n);
            primes += expect as u32;
            let b = to_boxed(&n);
            assert_eq!(is_prime_vartime(&b), expect, "{n}");
            assert_eq!(is_prime_bpsw_vartime(&b), expect, "{n}");
            if i % 6 == 0 || expect {
                assert_eq!(is_prime(&b), expect, "{n}");
            }
        }
        // Make sure primes were tested too, not only composites.
        let p = ref_random_prime(&mut rng, bits);
        check(&p, true);
        let _ = primes;
    }
}

#[test]
fn fixed_widths_at_full_size() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let p = ref_random_prime(&mut rng, 1024);
    let u = U1024::try_from(&to_boxed(&p)).unwrap();
    assert!(is_prime(&u) && is_prime_vartime(&u));
    let c = ref_random_prime(&mut rng, 1024) * ref_random_prime(&mut rng, 1024);
    let u = U2048::try_from(&to_boxed(&c)).unwrap();
    assert!(!is_prime(&u) && !is_prime_vartime(&u) && !is_prime_bpsw_vartime(&u));
    let p = ref_random_prime(&mut rng, 190);
    let u = U192::try_from(&to_boxed(&p)).unwrap();
    assert!(is_prime(&u));
}

#[test]
fn agrees_with_openssl_on_random_inputs() {
    if !have_openssl() {
        eprintln!("SKIPPED: no openssl command");
        return;
    }
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let mut ns = Vec::new();
    for &bits in &[64u64, 96, 200, 512, 1024] {
        for _ in 0..8 {
            let mut n = rand_bits(&mut rng, bits);
            n.set_bit(0, true);
            ns.push(n);
        }
        ns.push(ref_random_prime(&mut rng, bits));
    }
    let verdicts = openssl_prime(&ns);
    for (n, want) in ns.iter().zip(verdicts) {
        assert_eq!(
            is_prime_vartime(&to_boxed(n)),
            want,
            "openssl disagrees on {n}"
        );
    }
}
