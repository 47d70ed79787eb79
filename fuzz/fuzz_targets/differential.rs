//! Differential fuzzing of numcrypt-limbs against num-bigint; the checks
//! live in `src/differential.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| numcrypt_fuzz::differential::check(data));
