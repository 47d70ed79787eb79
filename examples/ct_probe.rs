//! Constant-time probe for `.ci/ct-check`: one Montgomery exponentiation
//! (`MontyParams::pow`) with an exponent chosen on the command line, inside a
//! function callgrind can count on its own.
//!
//! ```text
//! cargo run --release --example ct_probe -- <1024|2048> <zero|one|ones|top|alternating|random>
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*probe_target*' \
//!     target/release/examples/ct_probe 2048 ones
//! ```
//!
//! The 1024-bit case uses `Uint<16>`, the 2048-bit case `BoxedUint` with 32
//! limbs; `1024short` is the 1024-bit case with the exponent bounded to its
//! low [`SHORT_EXP_BITS`] bits (`pow_bounded`), and `1024pair` runs
//! `MontyParams::pow_bounded_pair` (RSA's two CRT halves, interleaved on the
//! IFMA backend) on two 1024-bit moduli, both exponents of the one pattern,
//! bounded the same way: the short cases keep single-stepping short. The call is bracketed by two `getppid()` system calls, the markers
//! between which `.ci/icount.c` counts instructions natively (single-stepping
//! under ptrace): that is how the AVX-512 IFMA path, which valgrind cannot
//! run, is counted. With `CT_PROBE_BACKEND=avx2` in the environment every
//! case runs on the AVX2 backend by name (`pow_bounded_on`,
//! `pow_bounded_pair_on`): valgrind runs AVX2, but its emulated CPU (an
//! Intel Haswell) is not one the selection rule gives AVX2 to. Every
//! exponent has the same declared width (that of the modulus);
//! only its bits differ, so a constant-time `pow` must execute the same
//! instructions for all of them. Modulus and base are fixed, so the runs
//! differ in nothing but the exponent's value.

use std::hint::black_box;
use std::process::ExitCode;

// Through the dev-dependency rather than `numcrypt::limbs`, so the probe builds
// whatever features the facade is built with.
use numcrypt_limbs::backend::{self, Exponentiation, LimbKernels};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Uint, Unsigned};

/// The exponent patterns, all of the full declared width.
const PATTERNS: [&str; 6] = ["zero", "one", "ones", "top", "alternating", "random"];

/// The backend `CT_PROBE_BACKEND` names (`avx2`), if any.
fn named_backend() -> Option<Exponentiation> {
    match std::env::var("CT_PROBE_BACKEND").as_deref() {
        Ok("avx2") => Some(Exponentiation::Avx2),
        _ => None,
    }
}

/// `params.pow_bounded(base, exp, bits)`, on the named backend if there is
/// one.
fn pow<U: Unsigned>(
    params: &MontyParams<U>,
    base: &MontyForm<U>,
    exp: &U,
    bits: u32,
) -> MontyForm<U> {
    match named_backend() {
        Some(b) => params
            .pow_bounded_on(b, base, exp, bits)
            .expect("the named backend runs here"),
        None => params.pow_bounded(base, exp, bits),
    }
}

/// The measured exponentiation at 1024 bits. Not inlined, so that callgrind
/// can collect exactly this call (`--toggle-collect='*probe_target*'`).
#[inline(never)]
fn probe_target_u1024(
    params: &MontyParams<Uint<16>>,
    base: &MontyForm<Uint<16>>,
    exp: &Uint<16>,
) -> MontyForm<Uint<16>> {
    marker();
    let r = pow(params, base, exp, 1024);
    marker();
    r
}

/// The measured exponentiation at 2048 bits, on the heap-allocated type.
#[inline(never)]
fn probe_target_boxed2048(
    params: &MontyParams<BoxedUint>,
    base: &MontyForm<BoxedUint>,
    exp: &BoxedUint,
) -> MontyForm<BoxedUint> {
    marker();
    let r = pow(params, base, exp, 2048);
    marker();
    r
}

/// The exponent bits the short cases use: thirteen windows, enough to see
/// any dependence on their values, at a tenth of a full exponentiation's
/// instructions.
const SHORT_EXP_BITS: u32 = 64;

/// The measured exponentiation at 1024 bits with a short exponent.
#[inline(never)]
fn probe_target_short1024(
    params: &MontyParams<Uint<16>>,
    base: &MontyForm<Uint<16>>,
    exp: &Uint<16>,
) -> MontyForm<Uint<16>> {
    marker();
    let r = pow(params, base, exp, SHORT_EXP_BITS);
    marker();
    r
}

/// The measured pair of exponentiations at 1024 bits.
#[inline(never)]
fn probe_target_pair1024(
    params: [&MontyParams<Uint<16>>; 2],
    base: &MontyForm<Uint<16>>,
    exp: &Uint<16>,
) -> [MontyForm<Uint<16>>; 2] {
    marker();
    let pair = params.map(|p| (p, base, exp.as_ref()));
    let r = match named_backend() {
        Some(b) => MontyParams::pow_bounded_pair_on(b, pair, SHORT_EXP_BITS)
            .expect("the named backend runs here"),
        None => MontyParams::pow_bounded_pair(pair, SHORT_EXP_BITS),
    };
    marker();
    r
}

/// A `getppid()` system call: the start and end marks for `.ci/icount.c`.
#[inline(never)]
fn marker() {
    black_box(std::os::unix::process::parent_id());
}

/// Deterministic pseudo-random limbs (xorshift64*), so every run uses the
/// same modulus, base and "random" exponent.
fn limbs(seed: u64, n: usize) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// An odd modulus of exactly `64 n` bits.
fn modulus(n: usize) -> Vec<u64> {
    let mut m = limbs(0x006d_6f64_756c_7573, n);
    m[0] |= 1;
    m[n - 1] |= 1 << 63;
    m
}

/// The exponent limbs for `pattern`, `n` limbs wide.
fn exponent(pattern: &str, n: usize) -> Option<Vec<u64>> {
    let mut e = vec![0u64; n];
    match pattern {
        "zero" => {}
        "one" => e[0] = 1,
        "ones" => e.fill(u64::MAX),
        "top" => e[n - 1] = 1 << 63,
        "alternating" => e.fill(0xaaaa_aaaa_aaaa_aaaa),
        "random" => e = limbs(0x6578_706f_6e65_6e74, n),
        _ => return None,
    }
    Some(e)
}

/// One 1024-bit exponentiation through `probe` with the whole exponent
/// (`short` false) or its low [`SHORT_EXP_BITS`] bits.
fn run_u1024(e: Vec<u64>, short: bool) -> u64 {
    let m = Uint::<16>::from_words(modulus(16).try_into().expect("16 limbs"));
    let mut exp = Uint::<16>::from_words(e.try_into().expect("16 limbs"));
    let params = MontyParams::new(m).expect("odd modulus");
    let base = params.to_monty(&Uint::<16>::from_words(
        limbs(0x6261_7365, 16).try_into().expect("16 limbs"),
    ));
    let probe = match short {
        true => probe_target_short1024,
        false => probe_target_u1024,
    };
    let result = black_box(probe(black_box(&params), black_box(&base), black_box(&exp)));
    if short {
        exp = Uint::<16>::from_words(core::array::from_fn(|i| match i {
            0 => exp.as_words()[0],
            _ => 0,
        }));
    }
    // Cross-check with the variable-time path (outside the measured call).
    assert_eq!(
        params.from_monty(&result),
        params.from_monty(&params.pow_vartime(&base, &exp))
    );
    params.from_monty(&result).as_words()[0]
}

fn run_pair1024(e: Vec<u64>) -> u64 {
    let exp = Uint::<16>::from_words(e.try_into().expect("16 limbs"));
    let m0 = Uint::<16>::from_words(modulus(16).try_into().expect("16 limbs"));
    let m1 = m0.wrapping_sub(&Uint::<16>::from_u64(2));
    let params = [m0, m1].map(|m| MontyParams::new(m).expect("odd modulus"));
    let base = Uint::<16>::from_words(limbs(0x6261_7365, 16).try_into().expect("16 limbs"));
    let base = params[0].to_monty(&base);
    let [r0, r1] = black_box(probe_target_pair1024(
        black_box([&params[0], &params[1]]),
        black_box(&base),
        black_box(&exp),
    ));
    let low = Uint::<16>::from_words(core::array::from_fn(|i| match i {
        0 => exp.as_words()[i],
        _ => 0,
    }));
    for (p, r) in params.iter().zip([r0, r1]) {
        assert_eq!(p.from_monty(&r), p.from_monty(&p.pow_vartime(&base, &low)));
    }
    params[0].from_monty(&r0).as_words()[0]
}

fn run_boxed2048(e: Vec<u64>) -> u64 {
    let m = BoxedUint::from_words(modulus(32));
    let exp = BoxedUint::from_words(e);
    let params = MontyParams::new(m).expect("odd modulus");
    let base = params.to_monty(&BoxedUint::from_words(limbs(0x6261_7365, 32)));
    let result = black_box(probe_target_boxed2048(
        black_box(&params),
        black_box(&base),
        black_box(&exp),
    ));
    assert_eq!(
        params.from_monty(&result),
        params.from_monty(&params.pow_vartime(&base, &exp))
    );
    let out = params.from_monty(&result);
    out.as_words()[0]
}

/// Which implementation ran: under valgrind the emulated CPUID hides ADX
/// and AVX-512, so the assembly path is measured from a build that enables
/// ADX at compile time, and the IFMA variants natively (see `.ci/ct-check`).
fn kernel_backend(nlimbs: usize, interleave: usize) -> &'static str {
    let selection = backend::selection();
    let used = named_backend().unwrap_or(selection.exponentiation(nlimbs, interleave));
    match used {
        Exponentiation::Ifma256 => return "x86_64 avx512 ifma256",
        Exponentiation::Ifma512 => return "x86_64 avx512 ifma512",
        Exponentiation::Avx2 => return "x86_64 avx2",
        _ => {}
    }
    match selection.limb_kernels() {
        LimbKernels::Adx => "x86_64 mulx/adx",
        LimbKernels::Aarch64 => "aarch64",
        _ => "portable",
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || {
        eprintln!(
            "usage: ct_probe <1024|1024short|1024pair|2048> <{}>",
            PATTERNS.join("|")
        );
        ExitCode::from(2)
    };
    let [width, padded] = args.as_slice() else {
        return usage();
    };
    // `.ci/ct-check` pads the pattern with `_` to one length, so that every
    // run starts with the same stack layout: glibc's memset and memcpy run
    // a different number of instructions for differently aligned buffers.
    let pattern = padded.trim_end_matches('_');
    let digest = match (width.as_str(), exponent(pattern, 32)) {
        ("1024", Some(_)) => run_u1024(exponent(pattern, 16).expect("known pattern"), false),
        ("1024short", Some(_)) => run_u1024(exponent(pattern, 16).expect("known pattern"), true),
        ("1024pair", Some(_)) => run_pair1024(exponent(pattern, 16).expect("known pattern")),
        ("2048", Some(e)) => run_boxed2048(e),
        _ => return usage(),
    };
    println!("{width}-bit pow, exponent {pattern}: low limb of result {digest:#018x}");
    let (nlimbs, interleave) = match width.as_str() {
        "2048" => (32, 1),
        "1024pair" => (16, 2),
        _ => (16, 1),
    };
    println!("kernels: {}", kernel_backend(nlimbs, interleave));
    ExitCode::SUCCESS
}
