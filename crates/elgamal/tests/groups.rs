//! Groups: the named primes against their RFC formulas (π and e computed
//! here with num-bigint) and against OpenSSL's built-in copies; safe-prime
//! and generator checks; validation of good and bad groups.

use std::process::Command;

use crate::common::{big, boxed, openssl};
use num_bigint::BigUint;
use numcrypt_elgamal::{BoxedUint, Error, Group, NamedGroup};
use numcrypt_limbs::Unsigned;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// `⌊π · 2^bits⌋` by Machin's formula, with guard bits.
fn pi_fixed(bits: u32) -> BigUint {
    let guard = 64;
    let one = BigUint::from(1u32) << (bits + guard);
    // atan(1/x) · one, alternating series.
    let atan_inv = |x: u32| {
        let (mut pos, mut neg) = (BigUint::from(0u32), BigUint::from(0u32));
        let x2 = BigUint::from(x * x);
        let mut t = &one / x;
        let mut n = 1u32;
        while t > BigUint::from(0u32) {
            if n % 4 == 1 {
                pos += &t / n;
            } else {
                neg += &t / n;
            }
            t /= &x2;
            n += 2;
        }
        pos - neg
    };
    (atan_inv(5) * 16u32 - atan_inv(239) * 4u32) >> guard
}

/// `⌊e · 2^bits⌋` from `Σ 1/k!`, with guard bits.
fn e_fixed(bits: u32) -> BigUint {
    let guard = 64;
    let mut term = BigUint::from(1u32) << (bits + guard);
    let mut sum = BigUint::from(0u32);
    let mut k = 0u32;
    while term > BigUint::from(0u32) {
        sum += &term;
        k += 1;
        term /= k;
    }
    sum >> guard
}

/// RFC 3526: `p = 2^n − 2^(n−64) − 1 + 2^64 · (⌊2^(n−130) π⌋ + X)`;
/// RFC 7919: `p = 2^n − 2^(n−64) + 2^64 · (⌊2^(n−130) e⌋ + X) − 1`.
fn rfc_prime(group: NamedGroup) -> Option<BigUint> {
    let (n, x, constant) = match group {
        NamedGroup::Modp2048 => (2048, 124476u64, 'p'),
        NamedGroup::Modp3072 => (3072, 1690314, 'p'),
        NamedGroup::Modp4096 => (4096, 240904, 'p'),
        NamedGroup::Modp6144 => (6144, 929484, 'p'),
        NamedGroup::Modp8192 => (8192, 4743158, 'p'),
        NamedGroup::Ffdhe2048 => (2048, 560316, 'e'),
        NamedGroup::Ffdhe3072 => (3072, 2625351, 'e'),
        NamedGroup::Ffdhe4096 => (4096, 5736041, 'e'),
        NamedGroup::Ffdhe6144 => (6144, 15705020, 'e'),
        NamedGroup::Ffdhe8192 => (8192, 10965728, 'e'),
        NamedGroup::PseudoMersenne2048 => return None,
    };
    let c = if constant == 'p' {
        pi_fixed(n - 130)
    } else {
        e_fixed(n - 130)
    };
    let one = BigUint::from(1u32);
    Some((&one << n) - (&one << (n - 64)) + ((c + x) << 64u32) - one)
}

/// `openssl prime` as the independent primality reference.
fn openssl_says_prime(x: &BigUint) -> bool {
    let out = openssl(&["prime", "-hex", &x.to_str_radix(16)]);
    String::from_utf8_lossy(&out.stdout).contains("is prime")
}

/// OpenSSL's built-in prime for a named group (`group:modp_2048`, …).
fn openssl_prime_of(group: NamedGroup) -> Option<BigUint> {
    let name = match group {
        NamedGroup::PseudoMersenne2048 => return None,
        g if g.name().starts_with("modp") => format!("modp_{}", g.bits()),
        g => g.name().to_string(),
    };
    let pem = openssl(&[
        "genpkey",
        "-genparam",
        "-algorithm",
        "DH",
        "-pkeyopt",
        &format!("group:{name}"),
    ]);
    let mut parse = Command::new("openssl")
        .args(["asn1parse"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    parse.stdin.take().unwrap().write_all(&pem.stdout).unwrap();
    let out = parse.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.contains("INTEGER"))?;
    BigUint::parse_bytes(line.rsplit(':').next()?.trim().as_bytes(), 16)
}

#[test]
fn named_primes_match_their_rfc_formulas_and_openssl() {
    for group in NamedGroup::ALL {
        let p = big(&group.p());
        assert_eq!(p.bits(), group.bits() as u64, "{group}");
        if let Some(expected) = rfc_prime(group) {
            assert_eq!(p, expected, "{group} against its RFC formula");
        }
        if let Some(theirs) = openssl_prime_of(group) {
            assert_eq!(p, theirs, "{group} against OpenSSL");
        }
        // g = 2 generates the squares: p ≡ 7 (mod 8) makes 2 a square, and
        // 2^q = 1 confirms it.
        let one = BigUint::from(1u32);
        assert_eq!(&p % 8u32, BigUint::from(7u32), "{group}");
        let q = (&p - 1u32) >> 1;
        assert_eq!(BigUint::from(2u32).modpow(&q, &p), one, "{group}");
        let g = group.group();
        assert_eq!(g.name(), Some(group));
        assert_eq!(big(g.q()), q);
        assert_eq!(big(g.g()), BigUint::from(2u32));
        assert_eq!(NamedGroup::from_name(group.name()).unwrap(), group);
        // Recognised from its values.
        assert_eq!(
            Group::new(group.p(), group.p().like_u64(2)).unwrap().name(),
            Some(group)
        );
    }
    assert_eq!(
        NamedGroup::from_name("modp_2048").unwrap(),
        NamedGroup::Modp2048
    );
    assert_eq!(
        NamedGroup::from_name("ffdhe1024").unwrap_err(),
        Error::UnknownGroup
    );
}

#[test]
fn pseudo_mersenne_group_is_2_to_the_2048_minus_c() {
    let p = big(&NamedGroup::PseudoMersenne2048.p());
    let c = 1942289u32;
    assert_eq!(p, (BigUint::from(1u32) << 2048u32) - c);
    assert_eq!(c % 8, 1);
}

/// The safe-prime property of the groups up to 4096 bits, by `openssl
/// prime` on `p` and `q` (6144 and 8192 bits: the test below).
#[test]
fn named_groups_are_safe_prime_groups() {
    for group in NamedGroup::ALL.into_iter().filter(|g| g.bits() <= 4096) {
        let p = big(&group.p());
        assert!(openssl_says_prime(&p), "{group}: p");
        assert!(openssl_says_prime(&((&p - 1u32) >> 1)), "{group}: q");
        // Our own validation, on the same values under another generator
        // (g = 4, so that the group is not recognised by name).
        let g4 = Group::new(group.p(), group.p().like_u64(4)).unwrap();
        assert_eq!(g4.name(), None);
        g4.validate().unwrap_or_else(|e| panic!("{group}: {e}"));
    }
}

/// 6144 and 8192 bits: `openssl prime` and MR64 take minutes there, so `p`
/// and `q` get one strong probable-prime test to base 2 by num-bigint
/// (independent of numcrypt), beside the checks above against the RFC
/// formulas and OpenSSL's copies.
#[test]
fn large_named_groups_are_safe_prime_groups() {
    for group in NamedGroup::ALL.into_iter().filter(|g| g.bits() > 4096) {
        let p = big(&group.p());
        let q = (&p - 1u32) >> 1;
        assert!(strong_probable_prime_base_2(&p), "{group}: p");
        assert!(strong_probable_prime_base_2(&q), "{group}: q");
    }
}

/// The strong probable-prime test to base 2 (Miller–Rabin, one round).
fn strong_probable_prime_base_2(n: &BigUint) -> bool {
    let one = BigUint::from(1u32);
    let n_minus_1 = n - &one;
    let s = n_minus_1.trailing_zeros().expect("n > 1");
    let mut x = BigUint::from(2u32).modpow(&(&n_minus_1 >> s), n);
    if x == one || x == n_minus_1 {
        return true;
    }
    for _ in 1..s {
        x = &x * &x % n;
        if x == n_minus_1 {
            return true;
        }
    }
    false
}

#[test]
fn generated_groups_are_valid() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let group = Group::generate(2048, &mut rng).expect("a 2048-bit safe prime");
    let p = big(group.p());
    assert_eq!(p.bits(), 2048);
    assert!(openssl_says_prime(&p));
    assert!(openssl_says_prime(&big(group.q())));
    let g = big(group.g());
    let expected_g = if &p % 8u32 == BigUint::from(7u32) {
        2u32
    } else {
        4
    };
    assert_eq!(g, BigUint::from(expected_g));
    assert_eq!(g.modpow(&big(group.q()), &p), BigUint::from(1u32));
    group.validate().unwrap();
    assert_eq!(group.name(), None);
    assert_eq!(
        Group::generate(1024, &mut rng).unwrap_err(),
        Error::UnsupportedGroupSize { bits: 1024 }
    );
}

#[test]
fn bad_groups_are_refused() {
    let p = big(&NamedGroup::Ffdhe2048.p());
    let new = |p: &BigUint, g: u64| Group::new(boxed(p), boxed(p).like_u64(g));
    // Too small, too large.
    let small = (BigUint::from(1u32) << 1535u32) + 3u32;
    assert_eq!(
        new(&small, 4).unwrap_err(),
        Error::UnsupportedGroupSize { bits: 1536 }
    );
    let huge = (BigUint::from(1u32) << 16400u32) + 3u32;
    assert_eq!(
        new(&huge, 4).unwrap_err(),
        Error::UnsupportedGroupSize { bits: 16401 }
    );
    // p ≡ 1 (mod 4) or even: not a safe prime.
    assert_eq!(new(&(&p - 2u32), 4).unwrap_err(), Error::InvalidGroup);
    assert_eq!(new(&(&p + 1u32), 4).unwrap_err(), Error::InvalidGroup);
    // g: 0, 1, p − 1, p, and a non-square (−4 = p − 4: −1 is not a square).
    for g in [
        BigUint::from(0u32),
        BigUint::from(1u32),
        &p - 1u32,
        p.clone(),
        &p - 4u32,
    ] {
        assert_eq!(
            Group::new(boxed(&p), boxed(&g)).unwrap_err(),
            Error::InvalidGroup,
            "g = {g}"
        );
    }
    // A composite q, and a prime q whose 2q + 1 is composite: caught by
    // validation, not by the cheap checks.
    let q_composite = ((&p - 1u32) >> 1) + 2u32;
    let p2 = &q_composite * 2u32 + 1u32;
    let group = new(&p2, 4).expect("cheap checks pass");
    assert_eq!(group.validate(), Err(Error::QNotPrime));
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let p3 = loop {
        let q: BoxedUint = numcrypt_prime::PrimeGen::new(numcrypt_prime::PrimeKind::Prime, 2047)
            .generate(&mut rng)
            .unwrap();
        let p3 = big(&q) * 2u32 + 1u32;
        if !openssl_says_prime(&p3) {
            break p3;
        }
    };
    assert_eq!(new(&p3, 4).unwrap().validate(), Err(Error::PNotPrime));
}
