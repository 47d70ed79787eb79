//! Shared helpers for the integration tests: num-bigint conversions for
//! the independent checks, and (from `tests/support`) the `openssl`
//! command line.
// Each test binary uses some of these.
#![allow(dead_code, unused_imports)]

#[path = "../../../../tests/support/openssl_cli.rs"]
mod openssl_cli;
pub use openssl_cli::*;

use num_bigint::BigUint;
use numcrypt_dsa::BoxedUint;

pub fn big(x: &BoxedUint) -> BigUint {
    BigUint::from_bytes_be(&x.to_be_bytes())
}

pub fn boxed(x: &BigUint) -> BoxedUint {
    BoxedUint::from_be_slice_auto(&x.to_bytes_be())
}
