//! Fuzzing of the DSA and ElGamal parsers (signatures, parameters, keys,
//! ciphertexts); the checks live in `src/dlog_parsers.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| numcrypt_fuzz::dlog_parsers::check(data));
