//! Fuzzing of the primality tests against slow references; the checks live
//! in `src/is_prime.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| numcrypt_fuzz::is_prime::check(data));
