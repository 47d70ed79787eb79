//! Unit tests that need the crate's internals: the CRT fault hook, and the
//! private operation against num-bigint.

use alloc::vec::Vec;

use num_bigint::BigUint;
use numcrypt_limbs::{Limb, SecretUint, Unsigned};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use crate::private::{Fault, Mode};
use crate::{KeyGen, RsaPrivateKey};

/// The key a seed generates, made once per seed and size: proptest cases
/// and tests share it (generating it again in every case was most of these
/// tests' time under qemu). A clone has its own fresh blinding state.
fn key(seed: u64, bits: u32) -> RsaPrivateKey {
    static KEYS: std::sync::Mutex<Vec<((u64, u32), RsaPrivateKey)>> =
        std::sync::Mutex::new(Vec::new());
    let mut keys = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, key)) = keys.iter().find(|(id, _)| *id == (seed, bits)) {
        return key.clone();
    }
    let key = KeyGen::new(bits)
        .generate(&mut ChaCha20Rng::seed_from_u64(seed))
        .unwrap();
    keys.push(((seed, bits), key.clone()));
    key
}

fn big(x: &SecretUint) -> BigUint {
    BigUint::from_bytes_be(&x.expose().clone().to_be_bytes())
}

fn secret(x: &BigUint, nlimbs: usize) -> SecretUint {
    SecretUint::from_be_slice(&x.to_bytes_be(), nlimbs as u32 * Limb::BITS).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// x^d mod n, blinded and not, against num-bigint's modpow with d.
    #[test]
    fn private_op_matches_num_bigint(seed in any::<u64>(), words in proptest::collection::vec(any::<u64>(), 32)) {
        let key = key(1, 2048);
        let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
        let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
        let x = BigUint::from_slice(&words.iter().flat_map(|&w| [w as u32, (w >> 32) as u32]).collect::<Vec<_>>()) % &n;
        let expected = x.modpow(&d, &n);
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let xs = secret(&x, 32);
        for mode in [Mode::default(), Mode::unblinded()] {
            let got = key.private_op(Some(&mut rng), &xs, mode).unwrap();
            prop_assert_eq!(big(&got), expected.clone());
        }
    }

    /// A bit flipped in either CRT half is caught by the check, and nothing
    /// is returned; the same operation without the fault succeeds.
    #[test]
    fn crt_fault_is_caught(bit in 0u32..1023, prime in 0usize..2, words in proptest::collection::vec(any::<u64>(), 31)) {
        let key = key(2, 2048);
        // 31 random limbs and a zero top limb: below n.
        let mut w = words.clone();
        w.push(0);
        let x = SecretUint::from(numcrypt_limbs::BoxedUint::from_words(w));
        let fault = Fault { prime, bit };
        prop_assert_eq!(key.private_op_with_fault(&x, fault).unwrap_err(), crate::Error::FaultDetected);
        let unblinded = Mode::unblinded();
        prop_assert!(key.private_op(None::<&mut crate::private::NoRng>, &x, unblinded).is_ok());
    }
}

/// Why the check matters: a faulty half-result, recombined, reveals a factor
/// as gcd(s^e − x, n) (Boneh, DeMillo, Lipton). Computed here with
/// num-bigint from the faulty value the hook produces inside the crate.
#[test]
fn unchecked_fault_would_reveal_a_factor() {
    let key = key(3, 2048);
    let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
    let e = BigUint::from_bytes_be(&key.public_key().e().to_be_bytes());
    let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
    let (p, q) = key.primes();
    let (p, q) = (
        BigUint::from_bytes_be(&p.to_be_bytes()),
        BigUint::from_bytes_be(&q.to_be_bytes()),
    );
    let x = BigUint::from(0x1234_5678_9abc_def0u64) % &n;
    // The correct result mod q with a wrong result mod p, recombined.
    let s_q = x.modpow(&(&d % (&q - 1u8)), &q);
    let s_p_faulty = (x.modpow(&(&d % (&p - 1u8)), &p) ^ BigUint::from(1u8 << 5)) % &p;
    let qinv = q.modinv(&p).unwrap();
    let h = ((&s_p_faulty + &p - (&s_q % &p)) * &qinv) % &p;
    let s = &s_q + h * &q;
    let diff = (s.modpow(&e, &n) + &n - &x) % &n;
    let g = num_integer::Integer::gcd(&diff, &n);
    assert_eq!(g, q);
    // The crate, given the same kind of fault, returns nothing.
    let xs = secret(&x, 32);
    assert_eq!(
        key.private_op_with_fault(&xs, Fault { prime: 0, bit: 5 })
            .unwrap_err(),
        crate::Error::FaultDetected
    );
}

/// The blinding pair really is (r^e, r^-1) modulo n, and stays so as it is
/// squared and refreshed.
#[test]
fn blinding_pair_is_consistent() {
    let key = key(4, 2048);
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let pair = key
        .fresh_blinding_pair(&mut crate::rng::Draws::new(&mut rng))
        .unwrap();
    // r^e · (r^-1)^e = 1 modulo n.
    let params = key.public_key().params();
    let ai_e = params.pow_vartime(&pair.ai, key.public_key().e());
    let one = params.from_monty(&params.mul(&pair.a, &ai_e));
    assert_eq!(
        one.expose().clone(),
        numcrypt_limbs::BoxedUint::from_u64(1, 32)
    );
    // Many uses through the shared state, across refreshes.
    let x = SecretUint::from_u64(42, 32);
    let plain = key
        .private_op(None::<&mut crate::private::NoRng>, &x, Mode::unblinded())
        .unwrap();
    for _ in 0..(2 * crate::blinding::REFRESH_AFTER + 3) {
        let got = key.private_op(Some(&mut rng), &x, Mode::default()).unwrap();
        assert_eq!(big(&got), big(&plain));
    }
}

/// Blinding in OpenSSL's order: the CRT, Garner and the check see only
/// `x' = x·r^e mod n` and values derived from it, never `x`; the result is
/// still `x^d mod n`. Every expected value comes from num-bigint.
#[test]
fn crt_garner_and_check_see_only_blinded_values() {
    use crate::private::trace::{self, Step};
    let key = key(6, 2048);
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
    let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
    let e = BigUint::from_bytes_be(&key.public_key().e().to_be_bytes());
    let (p, q) = key.primes();
    let (p, q) = (
        BigUint::from_bytes_be(&p.to_be_bytes()),
        BigUint::from_bytes_be(&q.to_be_bytes()),
    );
    let params = key.public_key().params();
    // Draw a pair, so the next operations take cached (squared) ones.
    let x0 = SecretUint::from_u64(3, 32);
    key.private_op(Some(&mut rng), &x0, Mode::default())
        .unwrap();
    for i in 0..5u64 {
        let x = BigUint::from(0x1234_5678_9abc_def0u64 + i).pow(40) % &n;
        let pair = key.next_blinding_pair().expect("a cached pair");
        let a = big(&params.from_monty(&pair.a));
        let ai = big(&params.from_monty(&pair.ai));
        // The pair is (r^e, r^-1): r^e·(r^-1)^e = 1, and r is not 1.
        assert_ne!(a, BigUint::from(1u8));
        assert_eq!((&a * ai.modpow(&e, &n)) % &n, BigUint::from(1u8));
        let (got, log) =
            trace::capture(|| key.private_op(Some(&mut rng), &secret(&x, 32), Mode::default()));
        assert_eq!(big(&got.unwrap()), x.modpow(&d, &n), "the result");
        let blinded = (&x * &a) % &n;
        let seen = |step| -> Vec<BigUint> {
            log.iter()
                .filter(|(s, _)| *s == step)
                .map(|(_, v)| big(v))
                .collect()
        };
        let only_blinded = core::slice::from_ref(&blinded);
        assert_eq!(seen(Step::CrtInput), only_blinded, "the CRT's input");
        assert_eq!(seen(Step::CheckInput), only_blinded, "the check's input");
        let m_blinded = blinded.modpow(&d, &n);
        assert_eq!(
            seen(Step::GarnerP),
            [&m_blinded % &p],
            "Garner's half mod p"
        );
        assert_eq!(
            seen(Step::GarnerQ),
            [&m_blinded % &q],
            "Garner's half mod q"
        );
        // Unblinding undoes r: m'·r^-1 = x^d.
        assert_eq!((&m_blinded * &ai) % &n, x.modpow(&d, &n));
        for (_, v) in &log {
            assert_ne!(big(v), x, "x itself reached the CRT");
        }
    }
}

/// A generator that fails, or is stuck on one value, ends a private
/// operation that needs a fresh blinding pair in `Error::Rng`: no panic,
/// no endless loop, and the key still works afterwards.
#[test]
fn broken_generators_give_rng_errors_in_blinding() {
    use crate::rng::test_rngs::{Failing, Stuck};
    let key = key(8, 2048);
    let x = SecretUint::from_u64(5, 32);
    for stuck in [0x00, 0xff, 0x5a] {
        assert_eq!(
            key.private_op(Some(&mut Stuck(stuck)), &x, Mode::default())
                .unwrap_err(),
            crate::Error::Rng,
            "stuck on {stuck:#x}"
        );
    }
    assert_eq!(
        key.private_op(Some(&mut Failing), &x, Mode::default())
            .unwrap_err(),
        crate::Error::Rng
    );
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    assert!(key.private_op(Some(&mut rng), &x, Mode::default()).is_ok());
}

/// The blinding draws themselves are bounded: a generator stuck on a value
/// the repetition test cannot see (all-ones candidates, always `>= n`,
/// drawn from a counter that never repeats a word) is refused after
/// `MAX_DRAWS` candidates.
#[test]
fn rejection_sampling_is_bounded() {
    struct AlwaysTooBig(u64);
    impl rand_core::TryRng for AlwaysTooBig {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.try_next_u64()? as u32)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            self.0 += 1;
            Ok(self.0)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            // Distinct words, but the top 64 bits all ones: above any n
            // this crate makes.
            for chunk in dst.chunks_mut(8) {
                let w = self.try_next_u64()?.to_be_bytes();
                chunk.copy_from_slice(&w[..chunk.len()]);
            }
            dst[..8].fill(0xff);
            Ok(())
        }
    }
    impl rand_core::TryCryptoRng for AlwaysTooBig {}
    let key = key(8, 2048);
    let mut rng = AlwaysTooBig(0);
    let mut draws = crate::rng::Draws::new(&mut rng);
    assert!(matches!(
        key.fresh_blinding_pair(&mut draws),
        Err(crate::Error::Rng)
    ));
}

/// The implicit-rejection key is hashed by a hasher that wipes its state,
/// into a buffer that is wiped when the key is dropped (a type-level
/// check: freed memory cannot be inspected from safe Rust).
#[test]
fn implicit_rejection_key_is_wiped() {
    fn wipes_itself<T: zeroize::ZeroizeOnDrop>(_: &T) {}
    wipes_itself(&<sha2::Sha256 as sha2::Digest>::new());
    let key = key(10, 2048);
    wipes_itself(&key.kdk_key);
    // And it is SHA-256 of d's k-byte encoding.
    let d = key.d().to_be_bytes();
    let d = &d[d.len() - 256..];
    assert_eq!(
        &key.kdk_key[..],
        &<sha2::Sha256 as sha2::Digest>::digest(d)[..]
    );
}

/// The batch private operation against num-bigint, every request blinded
/// and checked on its own: a fault injected into one request's CRT half
/// fails that request alone; the values entering the CRT and the check are
/// the blinded ones (none equals its input), each checked against its own.
#[test]
fn batch_private_op_fails_a_faulty_lane_alone() {
    use crate::private::trace;
    let key = key(1, 2048);
    let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
    let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let xs: Vec<BigUint> = (0..11u32)
        .map(|i| (BigUint::from(3u32).pow(600 + i) + BigUint::from(i)) % &n)
        .collect();
    let secrets: Vec<SecretUint> = xs.iter().map(|x| secret(x, 32)).collect();
    let faulty = Mode {
        unblinded: false,
        fault: Some(Fault { prime: 1, bit: 77 }),
    };
    let inputs: Vec<_> = secrets
        .iter()
        .enumerate()
        .map(|(i, x)| (&key, x, if i == 3 { faulty } else { Mode::default() }))
        .collect();
    let (results, log) = trace::capture(|| RsaPrivateKey::private_op_batch(&mut rng, &inputs));
    for (i, (r, x)) in results.iter().zip(&xs).enumerate() {
        match i {
            3 => assert_eq!(r.as_ref().unwrap_err(), &crate::Error::FaultDetected),
            _ => assert_eq!(big(r.as_ref().unwrap()), x.modpow(&d, &n), "request {i}"),
        }
    }
    let seen = |step| -> Vec<BigUint> {
        log.iter()
            .filter(|(s, _)| *s == step)
            .map(|(_, v)| big(v))
            .collect()
    };
    let crt_inputs = seen(trace::Step::CrtInput);
    assert_eq!(crt_inputs.len(), xs.len());
    assert!(crt_inputs.iter().all(|v| !xs.contains(v)), "blinded");
    assert_eq!(seen(trace::Step::CheckInput), crt_inputs);
}

/// OpenSSL's multi-prime keys (`openssl genpkey -pkeyopt
/// rsa_keygen_primes:K`): 3 primes at 2048 bits, 4 at 4096, 5 at 8192, so
/// that the further primes' exponentiations run alone, in a pair, and both.
fn multi_prime_keys() -> [RsaPrivateKey; 3] {
    [
        include_str!("../tests/data/rsa2048_3primes.pem"),
        include_str!("../tests/data/rsa4096_4primes.pem"),
        include_str!("../tests/data/rsa8192_5primes.pem"),
    ]
    .map(|pem| RsaPrivateKey::from_pem(pem).unwrap())
}

/// Every prime of a key, `p` and `q` first (num-bigint).
fn all_primes(key: &RsaPrivateKey) -> Vec<BigUint> {
    let (p, q) = key.primes();
    let others = key.other_primes();
    [&*p, &*q]
        .into_iter()
        .chain(others.iter().map(|o| &o.prime))
        .map(|x| BigUint::from_bytes_be(&x.to_be_bytes()))
        .collect()
}

/// The batch private operation with multi-prime keys mixed with a
/// two-prime one (the further primes' exponentiations batched by their
/// limb count): every request is `x^d mod n` as num-bigint computes it,
/// and a fault in a further prime's residue fails that request alone.
#[test]
fn batch_private_op_with_multi_prime_keys() {
    let [k3, k4, _] = multi_prime_keys();
    let k2 = key(1, 2048);
    let keys = [&k3, &k4, &k2, &k3, &k4, &k3];
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let xs: Vec<(BigUint, SecretUint)> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| {
            let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
            let x = (BigUint::from(7u32 + i as u32).pow(900) + &n - 1u8) % &n;
            let xs = secret(&x, key.public_key().n().nlimbs());
            (x, xs)
        })
        .collect();
    for faulty in [None, Some(4usize)] {
        let inputs: Vec<_> = keys
            .iter()
            .zip(&xs)
            .enumerate()
            .map(|(i, (&key, (_, x)))| {
                let mode = match faulty == Some(i) {
                    true => Mode {
                        unblinded: false,
                        fault: Some(Fault { prime: 3, bit: 9 }),
                    },
                    false => Mode::default(),
                };
                (key, x, mode)
            })
            .collect();
        let results = RsaPrivateKey::private_op_batch(&mut rng, &inputs);
        for (i, ((key, (x, _)), r)) in keys.iter().zip(&xs).zip(&results).enumerate() {
            if faulty == Some(i) {
                assert_eq!(r.as_ref().unwrap_err(), &crate::Error::FaultDetected);
                continue;
            }
            let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
            let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
            assert_eq!(big(r.as_ref().unwrap()), x.modpow(&d, &n), "request {i}");
        }
    }
}

/// The multi-prime private operation, blinded (across a refresh of the
/// blinding pair) and not, is `x^d mod n` as num-bigint computes it (with
/// `d` for the first values; after, num-bigint's `s^e mod n = x`, which
/// only `x^d` satisfies and costs far less at 8192 bits), and the further
/// primes are OpenSSL's `r_3`, … (their product with `p` and `q` is `n`).
#[test]
fn multi_prime_private_op_matches_num_bigint() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    for (key, primes) in multi_prime_keys().iter().zip([3, 4, 5]) {
        assert_eq!(key.prime_count(), primes);
        let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
        let e = BigUint::from_bytes_be(&key.public_key().e().to_be_bytes());
        let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
        assert_eq!(all_primes(key).iter().product::<BigUint>(), n);
        let nl = key.public_key().n().nlimbs();
        let uses = crate::blinding::REFRESH_AFTER + 2;
        for i in 0..uses as u64 {
            let x = (BigUint::from(0xfedc_ba98_7654_3210u64 + i).pow(200) + &n - 1u8) % &n;
            let xs = secret(&x, nl);
            let blinded = big(&key
                .private_op(Some(&mut rng), &xs, Mode::default())
                .unwrap());
            assert_eq!(blinded.modpow(&e, &n), x, "{primes} primes, use {i}");
            if i < 2 {
                let expected = x.modpow(&d, &n);
                assert_eq!(blinded, expected, "{primes} primes");
                let plain = key.private_op(Some(&mut rng), &xs, Mode::unblinded());
                assert_eq!(big(&plain.unwrap()), expected, "{primes} primes, unblinded");
            }
        }
    }
}

/// A bit flipped in the residue modulo any prime of a multi-prime key is
/// caught by the check; without the check, the result would reveal that
/// prime as gcd(s^e − x, n), as for two primes.
#[test]
fn multi_prime_fault_in_any_residue_is_caught() {
    for key in multi_prime_keys() {
        let nl = key.public_key().n().nlimbs();
        let x = SecretUint::from_u64(0x1234_5678_9abc_def0, nl);
        assert!(
            key.private_op(None::<&mut crate::private::NoRng>, &x, Mode::unblinded())
                .is_ok()
        );
        for prime in 0..key.prime_count() {
            for bit in [0, 5, 300] {
                assert_eq!(
                    key.private_op_with_fault(&x, Fault { prime, bit })
                        .unwrap_err(),
                    crate::Error::FaultDetected,
                    "prime {prime}, bit {bit}"
                );
            }
        }
    }
}

/// With several primes too, the CRT and the check see only the blinded
/// `x' = x·r^e mod n`, never `x`.
#[test]
fn multi_prime_crt_sees_only_blinded_values() {
    use crate::private::trace::{self, Step};
    let key = &multi_prime_keys()[0];
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let n = BigUint::from_bytes_be(&key.public_key().n().to_be_bytes());
    let d = BigUint::from_bytes_be(&key.d().to_be_bytes());
    let params = key.public_key().params();
    key.private_op(
        Some(&mut rng),
        &SecretUint::from_u64(3, 32),
        Mode::default(),
    )
    .unwrap();
    let x = BigUint::from(0x1234_5678_9abc_def0u64).pow(40) % &n;
    let a = big(&params.from_monty(&key.next_blinding_pair().unwrap().a));
    let (got, log) =
        trace::capture(|| key.private_op(Some(&mut rng), &secret(&x, 32), Mode::default()));
    assert_eq!(big(&got.unwrap()), x.modpow(&d, &n));
    let blinded = (&x * &a) % &n;
    for step in [Step::CrtInput, Step::CheckInput] {
        let seen: Vec<BigUint> = log
            .iter()
            .filter(|(s, _)| *s == step)
            .map(|(_, v)| big(v))
            .collect();
        assert_eq!(seen, core::slice::from_ref(&blinded), "{step:?}");
    }
    for (_, v) in &log {
        assert_ne!(big(v), x, "x itself reached the CRT");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `PrimeModulus::reduce` is `x mod p` (num-bigint) for every shape the
    /// private operation meets: `x` narrower than `p`, up to twice its
    /// width below `p·R`, and up to five times its width (a multi-prime
    /// key's values), by Horner's rule in chunks.
    #[test]
    fn reduce_matches_num_bigint(
        np in prop::sample::select(&[1usize, 2, 3, 5, 9, 16, 17, 22][..]),
        x_limbs_per_p in 0usize..=5,
        words in proptest::collection::vec(any::<u64>(), 6 * 22),
    ) {
        let mut p_words = words[..np].to_vec();
        p_words[0] |= 1;
        p_words[np - 1] |= 1 << 63;
        let p = SecretUint::from(numcrypt_limbs::BoxedUint::from_words(p_words));
        let p_big = big(&p);
        let modulus = crate::prime_modulus::PrimeModulus::new(&p, np as u32 * 64).unwrap();
        let x_limbs = (x_limbs_per_p * np).max(1);
        let x = SecretUint::from(numcrypt_limbs::BoxedUint::from_words(words[np..np + x_limbs].to_vec()));
        let below_p_r = big(&x) < &p_big << (64 * np);
        for fits in [false, below_p_r] {
            let got = modulus.params.from_monty(&modulus.reduce(&x, fits));
            prop_assert_eq!(big(&got), big(&x) % &p_big);
        }
    }
}
