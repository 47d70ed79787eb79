//! numcrypt-rsa against RustCrypto's `rsa` on one key; the checks live in
//! `src/rsa.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| numcrypt_fuzz::rsa::differential(data));
