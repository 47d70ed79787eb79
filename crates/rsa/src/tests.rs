//! Unit tests that need the crate's internals: the CRT fault hook, and the
//! private operation against num-bigint.

use alloc::vec::Vec;

use num_bigint::BigUint;
use numcrypt_limbs::{Limb, SecretUint};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use crate::private::{Fault, Mode};
use crate::{KeyGen, RsaPrivateKey};

fn key(seed: u64, bits: u32) -> RsaPrivateKey {
    KeyGen::new(bits)
        .generate(&mut ChaCha20Rng::seed_from_u64(seed))
        .unwrap()
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
    fn crt_fault_is_caught(bit in 0u32..1023, in_p in any::<bool>(), words in proptest::collection::vec(any::<u64>(), 31)) {
        let key = key(2, 2048);
        // 31 random limbs and a zero top limb: below n.
        let mut w = words.clone();
        w.push(0);
        let x = SecretUint::from(numcrypt_limbs::BoxedUint::from_words(w));
        let fault = Fault { in_p, bit };
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
        key.private_op_with_fault(&xs, Fault { in_p: true, bit: 5 })
            .unwrap_err(),
        crate::Error::FaultDetected
    );
}

/// The blinding pair really is (r^e, r^-1), and stays so as it is squared
/// and refreshed.
#[test]
fn blinding_pair_is_consistent() {
    let key = key(4, 2048);
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let pair = key.fresh_blinding_pair(&mut rng).unwrap();
    // r^e · (r^-1)^e = 1 modulo each prime.
    for (i, params) in key.prime_params().into_iter().enumerate() {
        let ai_e = params.pow_vartime(&pair.ai[i], key.public_key().e());
        let one = params.from_monty(&params.mul(&pair.a[i], &ai_e));
        assert_eq!(
            one.expose().clone(),
            numcrypt_limbs::BoxedUint::from_u64(1, 16)
        );
    }
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
