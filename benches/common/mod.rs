//! What the benches share (each has `mod common;`): every group runs twice,
//! in wall time and (x86_64 only) in cycles read with `rdtsc` through
//! `criterion_cycles_per_byte::CyclesPerByte`, the second under the group
//! name suffixed `_cycles`; every run first prints the CPU and the backends
//! numcrypt chose (and the variables that change them); and a few
//! conversions.
//!
//! The benches are a package of their own (`numcrypt-bench`, whose
//! dev-dependencies are the peers: AWS-LC, OpenSSL, ring, graviola, GMP,
//! fiat-crypto, crypto-bigint…) so that only `cargo bench` builds the
//! peers, never the workspace's tests, examples or `cargo run`.
#![allow(dead_code)]

pub mod aws_lc;
pub mod interleaved;

use criterion::Criterion;
use criterion::measurement::{Measurement, WallTime};
use num_bigint::BigUint;

/// The group called `base` in wall time, `base_cycles` in cycles; with
/// `_noifma` before that when IFMA is off for numcrypt and for
/// OpenSSL/AWS-LC (`NUMCRYPT_DISABLE=ifma` and `OPENSSL_ia32cap` set), so
/// that a run in each setting keeps its own results.
pub fn group_name<M: Measurement>(base: &str) -> String {
    let mut name = base.to_owned();
    if ifma_off() {
        name += "_noifma";
    }
    if !is_wall_time::<M>() {
        name += "_cycles";
    }
    name
}

/// Whether `M` is wall time (the printed, interleaved lines run with the
/// wall-time groups only).
pub fn is_wall_time<M: Measurement>() -> bool {
    core::any::type_name::<M>() == core::any::type_name::<WallTime>()
}

/// Whether this run has IFMA off on both sides.
pub fn ifma_off() -> bool {
    let numcrypt = std::env::var("NUMCRYPT_DISABLE")
        .is_ok_and(|v| v.split(',').any(|w| w.trim().eq_ignore_ascii_case("ifma")));
    numcrypt && std::env::var_os("OPENSSL_ia32cap").is_some()
}

/// The `openssl` peer's name in bench ids: `openssl` for the system's
/// library, `openssl-<major>.<minor>` for the one built from source (the
/// `openssl-vendored` feature), so that runs with each keep their own
/// results.
pub fn openssl_peer() -> String {
    if cfg!(feature = "openssl-vendored") {
        // OPENSSL_VERSION_NUMBER is 0xMNN00PP0.
        let n = openssl::version::number();
        format!("openssl-{}.{}", n >> 28, (n >> 20) & 0xff)
    } else {
        "openssl".to_owned()
    }
}

/// Prints what every figure depends on: the CPU, numcrypt's backends, the
/// OpenSSL the `openssl` peer links, and the variables that turn backends
/// off.
pub fn print_environment() {
    println!("{}", numcrypt::limbs::backend::selection());
    println!(
        "OpenSSL peer: {} ({})",
        openssl::version::version(),
        openssl_peer()
    );
    for var in ["NUMCRYPT_DISABLE", "OPENSSL_ia32cap"] {
        if let Some(v) = std::env::var_os(var) {
            println!("{var}={}", v.to_string_lossy());
        }
    }
}

/// Criterion measuring with `measurement`, without plots.
pub fn config<M: Measurement>(measurement: M) -> Criterion<M> {
    Criterion::default()
        .with_measurement(measurement)
        .without_plots()
        .nresamples(20_000)
}

/// A key file of `benches/keys` (made by `openssl`; see each bench).
pub fn key_file(name: &str) -> Vec<u8> {
    let path = format!("{}/keys/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("bench key {path}: {e}"))
}

/// Little-endian 64-bit words as a `BigUint`.
pub fn to_biguint(words: &[u64]) -> BigUint {
    let bytes: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

/// The criterion groups `time` (wall time) and, on x86_64, `cycles`
/// (`rdtsc`), each running the bench functions given (generic over the
/// measurement), and the `main` that runs them.
macro_rules! time_and_cycles_main {
    ($($target:path),+ $(,)?) => {
        criterion::criterion_group!(
            name = time;
            config = $crate::common::config(criterion::measurement::WallTime);
            targets = $($target),+
        );

        #[cfg(target_arch = "x86_64")]
        criterion::criterion_group!(
            name = cycles;
            config = $crate::common::config(criterion_cycles_per_byte::CyclesPerByte);
            targets = $($target),+
        );

        fn main() {
            $crate::common::print_environment();
            time();
            #[cfg(target_arch = "x86_64")]
            cycles();
            criterion::Criterion::default()
                .configure_from_args()
                .final_summary();
        }
    };
}
pub(crate) use time_and_cycles_main;
