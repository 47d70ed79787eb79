//! Fuzzing of the RSA key parsers and private operations; the checks live
//! in `src/rsa.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| numcrypt_fuzz::rsa::parsers(data));
