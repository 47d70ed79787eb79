//! What the benches share (each has `mod common;`): every group runs twice,
//! in wall time and (x86_64 only) in cycles read with `rdtsc` through
//! `criterion_cycles_per_byte::CyclesPerByte`, the second under the group
//! name suffixed `_cycles`; and a few conversions.
#![allow(dead_code)]

use criterion::Criterion;
use criterion::measurement::{Measurement, WallTime};
use num_bigint::BigUint;

/// The group called `base` in wall time, `base_cycles` in cycles.
pub fn group_name<M: Measurement>(base: &str) -> String {
    if core::any::type_name::<M>() == core::any::type_name::<WallTime>() {
        base.to_owned()
    } else {
        format!("{base}_cycles")
    }
}

/// Criterion measuring with `measurement`, without plots.
pub fn config<M: Measurement>(measurement: M) -> Criterion<M> {
    Criterion::default()
        .with_measurement(measurement)
        .without_plots()
        .nresamples(20_000)
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

        #[cfg(target_arch = "x86_64")]
        criterion::criterion_main!(time, cycles);
        #[cfg(not(target_arch = "x86_64"))]
        criterion::criterion_main!(time);
    };
}
pub(crate) use time_and_cycles_main;
