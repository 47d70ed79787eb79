//! The integration tests of this crate as one binary: one link, and its
//! generics instantiated once rather than once a file.

mod common;
mod dsa;
mod elgamal;
mod file_safety;
mod hostile_keys;
mod limits;
mod modexp;
mod prime;
mod rsa;
mod rsa_openssl_defaults;
mod shared_rsa;
mod speed;
