//! Fuzzing of what a shared-RSA party reads (key shares, public keys,
//! partial signatures, configurations); the checks live in
//! `src/shared_rsa.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| numcrypt_fuzz::shared_rsa::check(data));
