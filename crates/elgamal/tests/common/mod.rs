//! Shared helpers for the integration tests: num-bigint conversions for
//! the independent checks, and (from `tests/support`) the `openssl`
//! command line.
// Each test binary uses some of these.
#![allow(dead_code, unused_imports)]

#[path = "../../../../tests/support/openssl_cli.rs"]
mod openssl_cli;
pub use openssl_cli::*;

use num_bigint::BigUint;
use numcrypt_elgamal::{BoxedUint, NamedGroup, SecretKey};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

pub fn big(x: &BoxedUint) -> BigUint {
    BigUint::from_bytes_be(&x.to_be_bytes())
}

pub fn boxed(x: &BigUint) -> BoxedUint {
    BoxedUint::from_be_slice_auto(&x.to_bytes_be())
}

/// A key in `group` from a generator seeded with `seed`.
pub fn key(group: NamedGroup, seed: u64) -> SecretKey {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    SecretKey::generate(&group.group(), &mut rng).unwrap()
}
