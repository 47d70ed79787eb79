//! Fuzz check of `numcrypt-prime`'s primality tests, driven by arbitrary
//! bytes.
//!
//! [`check`] decodes a number (or a structured composite) from the bytes and
//! checks the tests against slow references: exact trial division below
//! 2^32; for larger numbers, agreement of MR64 (`is_prime`, constant time,
//! and `is_prime_vartime`) with Baillie–PSW, a composite verdict whenever a
//! small factor exists (num-bigint), and composite verdicts for products
//! built from the input. It panics on any disagreement. Like
//! `differential.rs` it depends only on the library crates and num-bigint,
//! so `tests/fuzz_corpus.rs` replays the corpus in CI.
//!
//! # Input format
//! - byte 0: the mode, modulo 4: 0 a number below 2^32, 1 a number of up
//!   to 64 bytes, 2 a product `a·b` of two numbers of up to 32 bytes each,
//!   3 `(2x+1)(4x+1)` for an `x` of up to 32 bytes.
//! - then each number: a length byte, then that many big-endian bytes.
//!
//! Missing bytes read as zero, so every input is valid.

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use numcrypt_limbs::BoxedUint;
use numcrypt_prime::{is_prime, is_prime_bpsw_vartime, is_prime_vartime};

struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    fn number(&mut self, max: usize) -> BigUint {
        let len = usize::from(self.byte()) % (max + 1);
        let bytes: Vec<u8> = (0..len).map(|_| self.byte()).collect();
        BigUint::from_bytes_be(&bytes)
    }
}

fn boxed(n: &BigUint) -> BoxedUint {
    let bytes = n.to_bytes_be();
    BoxedUint::from_be_slice_auto(&bytes)
}

/// Exact primality below 2^32 by trial division.
fn slow_is_prime(n: u64) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

/// Runs the check encoded by `data`; panics on a disagreement.
pub fn check(data: &[u8]) {
    let mut inp = Input { data, pos: 0 };
    match inp.byte() % 4 {
        0 => {
            let n = inp.number(4);
            let v = n.to_u64().unwrap_or(0);
            let expect = slow_is_prime(v);
            let b = boxed(&n);
            assert_eq!(is_prime(&b), expect, "is_prime({v})");
            assert_eq!(is_prime_vartime(&b), expect, "is_prime_vartime({v})");
            assert_eq!(is_prime_bpsw_vartime(&b), expect, "bpsw({v})");
        }
        1 => {
            let n = inp.number(64);
            let b = boxed(&n);
            let mr = is_prime_vartime(&b);
            assert_eq!(is_prime(&b), mr, "is_prime vs vartime on {n}");
            assert_eq!(is_prime_bpsw_vartime(&b), mr, "MR64 vs BPSW on {n}");
            // A small factor means composite (unless n is that factor).
            for p in [2u32, 3, 5, 7, 11, 13, 8167, 8171, 65521] {
                if (&n % p).is_zero() && n != BigUint::from(p) {
                    assert!(!mr, "{n} has the factor {p}");
                }
            }
        }
        2 => {
            let a = inp.number(32);
            let b = inp.number(32);
            let n = &a * &b;
            if a > BigUint::from(1u8) && b > BigUint::from(1u8) {
                let bn = boxed(&n);
                assert!(!is_prime_vartime(&bn), "{a} * {b}");
                assert!(!is_prime(&bn), "{a} * {b}");
                assert!(!is_prime_bpsw_vartime(&bn), "{a} * {b}");
            }
        }
        _ => {
            let x = inp.number(32);
            if !x.is_zero() {
                let n = (&x * 2u8 + 1u8) * (&x * 4u8 + 1u8);
                let bn = boxed(&n);
                assert!(!is_prime_vartime(&bn), "(2x+1)(4x+1), x = {x}");
                assert!(!is_prime(&bn), "(2x+1)(4x+1), x = {x}");
                assert!(!is_prime_bpsw_vartime(&bn), "(2x+1)(4x+1), x = {x}");
            }
        }
    }
}
