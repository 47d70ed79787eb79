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
//! low [`SHORT_EXP_BITS`] bits (`pow_bounded`; `2048short` the same on
//! `Uint<32>`, where the 256-bit IFMA kernels square a lone operand with
//! their dedicated square), and `1024pair` runs
//! `MontyParams::pow_bounded_pair` (RSA's two CRT halves, interleaved on the
//! IFMA backend) on two 1024-bit moduli, both exponents of the one pattern,
//! bounded the same way (`2048pair` the same at 2048 bits, where the
//! 256-bit IFMA kernels' dedicated square runs in two phases rather than
//! in one loop): the short cases keep single-stepping short. The call is
//! bracketed by two `getppid()` system calls, the markers
//! between which `.ci/icount.c` counts instructions natively (single-stepping
//! under ptrace): that is how the AVX-512 IFMA path, which valgrind cannot
//! run, is counted. With `CT_PROBE_BACKEND=avx2` in the environment every
//! case runs on the AVX2 backend by name (`pow_bounded_on`,
//! `pow_bounded_pair_on`): valgrind runs AVX2, but its emulated CPU (an
//! Intel Haswell) is not one the selection rule gives AVX2 to. With
//! `CT_AUDIT_ADX=1` (in a build with the `ct-audit` feature) the limb
//! kernels are the mulx/adx ones even under valgrind, whose CPUID hides ADX
//! (`ct_audit::assume_bmi2_adx`). Every
//! exponent has the same declared width (that of the modulus);
//! only its bits differ, so a constant-time `pow` must execute the same
//! instructions for all of them. Modulus and base are fixed, so the runs
//! differ in nothing but the exponent's value.
//!
//! `trial` probes trial division on the eight-lane IFMA kernel
//! (`small_factor_52x8`, natively counted) on a 1024-bit number of the
//! pattern.
//!
//! `goldilocks`, `p521`, `p256` and `r521` probe field arithmetic instead:
//! a chain of multiplications, squarings, additions and subtractions on
//! [`FpGoldilocks`] (the Karatsuba backend), [`Fp521`] (the `mulx`
//! kernels where the build is BMI2+ADX, the three-way split elsewhere),
//! [`FpP256`] (P-256's own reduction) or [`FpRandom521`] (the
//! 9-limb square and its unrolled reduction), with an operand chosen by
//! the pattern (0, 1, p − 1, the top bit alone, alternating bits, random);
//! the first two cross-checked against the Montgomery and saturated
//! representations of the same field (the last two have one
//! representation: their differential tests check them).

use std::hint::black_box;
use std::process::ExitCode;

// Through the dev-dependency rather than `numcrypt::limbs`, so the probe builds
// whatever features the facade is built with.
use numcrypt_field::{
    Backend, Fp, Fp521, Fp521Saturated, FpGoldilocks, FpGoldilocksMonty, FpP256, FpRandom521,
};
use numcrypt_limbs::backend::{self, Exponentiation, LimbKernels};
use numcrypt_limbs::kernels::{SmallFactorLanes, small_factor_52x8};
use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Uint, Unsigned};

/// The exponent patterns, all of the full declared width.
const PATTERNS: [&str; 6] = ["zero", "one", "ones", "top", "alternating", "random"];

/// The backend `CT_PROBE_BACKEND` names (`avx2`, `avx512-radix28`,
/// `ifma-batch`, `avx2-batch`, `fma-batch`, `fma512-batch`, `fma-pair`,
/// `avx512-batch`), if any.
fn named_backend() -> Option<Exponentiation> {
    match std::env::var("CT_PROBE_BACKEND").as_deref() {
        Ok("avx2") => Some(Exponentiation::Avx2),
        Ok("avx512-radix28") => Some(Exponentiation::Avx512),
        Ok("ifma-batch") => Some(Exponentiation::IfmaBatch),
        Ok("avx2-batch") => Some(Exponentiation::Avx2Batch),
        Ok("fma-batch") => Some(Exponentiation::FmaBatch),
        Ok("fma512-batch") => Some(Exponentiation::Fma512Batch),
        Ok("fma-pair") => Some(Exponentiation::FmaPair),
        Ok("avx512-batch") => Some(Exponentiation::Avx512Batch),
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

/// The measured exponentiation at `64 L` bits, the exponent bounded to
/// `bits`. Not inlined, so that callgrind can collect exactly this call
/// (`--toggle-collect='*probe_target*'`).
#[inline(never)]
fn probe_target_uint<const L: usize>(
    params: &MontyParams<Uint<L>>,
    base: &MontyForm<Uint<L>>,
    exp: &Uint<L>,
    bits: u32,
) -> MontyForm<Uint<L>> {
    marker();
    let r = pow(params, base, exp, bits);
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

/// The measured pair of exponentiations (`L` limbs each).
#[inline(never)]
fn probe_target_pair<const L: usize>(
    params: [&MontyParams<Uint<L>>; 2],
    base: &MontyForm<Uint<L>>,
    exp: &Uint<L>,
) -> [MontyForm<Uint<L>>; 2] {
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

/// The measured batch of exponentiations at 1024 bits: one pass of the
/// named batch kernel, a lane each.
#[inline(never)]
fn probe_target_batch1024(
    backend: Exponentiation,
    operands: &[(&MontyParams<Uint<16>>, &MontyForm<Uint<16>>, &[u64])],
    out: &mut [MontyForm<Uint<16>>],
) {
    marker();
    MontyParams::pow_bounded_batch_on(backend, operands, SHORT_EXP_BITS, out)
        .expect("the named batch backend runs here");
    marker();
}

/// The measured field chain: products, squares and loose sums and
/// differences fed into products.
#[inline(never)]
fn probe_target_field<B: Backend>(x: Fp<B>, y: Fp<B>) -> Fp<B> {
    marker();
    let mut x = x;
    for _ in 0..16 {
        x = (x * y).square();
        x = (x + y) * (x - y);
    }
    marker();
    x
}

/// The field operand for `pattern`, below `p`: 0, 1, `p − 1`, `2^(k−1)`,
/// alternating bits or random bits below `2^(k−1)`.
fn field_operand<B: Backend>(pattern: &str) -> Option<Fp<B>> {
    let (bits, len) = (Fp::<B>::BITS as usize, Fp::<B>::BYTES);
    let below_top = |mut bytes: Vec<u8>| {
        bytes.truncate(len);
        let top = bits - 1;
        bytes[top / 8] &= (1u8 << (top % 8)) - 1;
        bytes[top / 8 + 1..].fill(0);
        Fp::<B>::from_le_bytes(&bytes).expect("below 2^(k-1) < p")
    };
    Some(match pattern {
        "zero" => Fp::ZERO,
        "one" => Fp::ONE,
        "ones" => (Fp::ZERO - Fp::ONE).reduce(),
        "top" => {
            let mut bytes = vec![0u8; len];
            bytes[(bits - 1) / 8] = 1 << ((bits - 1) % 8);
            Fp::from_le_bytes(&bytes).expect("2^(k-1) < p")
        }
        "alternating" => below_top(vec![0xaa; len]),
        "random" => below_top(
            limbs(0x0066_6965_6c64, len.div_ceil(8))
                .iter()
                .flat_map(|l| l.to_le_bytes())
                .collect(),
        ),
        _ => return None,
    })
}

/// The field chain on `B` from the pattern's operand, as little-endian
/// bytes (cross-checked by the caller on another representation).
fn field_chain<B: Backend>(pattern: &str, measured: bool) -> Option<Vec<u8>> {
    let x = field_operand::<B>(pattern)?;
    let y = Fp::<B>::from_u64(0x7973_6565_6473);
    let r = match measured {
        true => black_box(probe_target_field(black_box(x), black_box(y))),
        false => {
            let mut x = x;
            for _ in 0..16 {
                x = (x * y).square();
                x = (x + y) * (x - y);
            }
            x
        }
    };
    let mut out = vec![0u8; Fp::<B>::BYTES];
    r.write_le_bytes(&mut out).expect("length");
    Some(out)
}

/// The measured chain on `B`, equal to the unmeasured one on `Other` (on
/// `B` too where the field has one representation).
fn run_field<B: Backend, Other: Backend>(pattern: &str) -> Option<u64> {
    let out = field_chain::<B>(pattern, true)?;
    assert_eq!(Some(&out), field_chain::<Other>(pattern, false).as_ref());
    Some(u64::from_le_bytes(out[..8].try_into().expect("8 bytes")))
}

/// The backend of a field element type.
type B<T> = <T as Elem>::B;
trait Elem {
    type B: Backend;
}
impl<X: Backend> Elem for Fp<X> {
    type B = X;
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

/// One `64 L`-bit exponentiation with the whole exponent (`short` false)
/// or its low [`SHORT_EXP_BITS`] bits.
fn run_uint<const L: usize>(e: Vec<u64>, short: bool) -> u64 {
    let m = Uint::<L>::from_words(modulus(L).try_into().expect("L limbs"));
    let mut exp = Uint::<L>::from_words(e.try_into().expect("L limbs"));
    let params = MontyParams::new(m).expect("odd modulus");
    let base = params.to_monty(&Uint::<L>::from_words(
        limbs(0x6261_7365, L).try_into().expect("L limbs"),
    ));
    let bits = if short { SHORT_EXP_BITS } else { 64 * L as u32 };
    let result = black_box(probe_target_uint(
        black_box(&params),
        black_box(&base),
        black_box(&exp),
        bits,
    ));
    if short {
        exp = Uint::<L>::from_words(core::array::from_fn(|i| match i {
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

fn run_pair<const L: usize>(e: Vec<u64>) -> u64 {
    let exp = Uint::<L>::from_words(e.try_into().expect("L limbs"));
    let m0 = Uint::<L>::from_words(modulus(L).try_into().expect("L limbs"));
    let m1 = m0.wrapping_sub(&Uint::<L>::from_u64(2));
    let params = [m0, m1].map(|m| MontyParams::new(m).expect("odd modulus"));
    let base = Uint::<L>::from_words(limbs(0x6261_7365, L).try_into().expect("L limbs"));
    let base = params[0].to_monty(&base);
    let [r0, r1] = black_box(probe_target_pair(
        black_box([&params[0], &params[1]]),
        black_box(&base),
        black_box(&exp),
    ));
    let low = Uint::<L>::from_words(core::array::from_fn(|i| match i {
        0 => exp.as_words()[i],
        _ => 0,
    }));
    for (p, r) in params.iter().zip([r0, r1]) {
        assert_eq!(p.from_monty(&r), p.from_monty(&p.pow_vartime(&base, &low)));
    }
    params[0].from_monty(&r0).as_words()[0]
}

/// One pass of the batch kernel `CT_PROBE_BACKEND` names, its lanes'
/// data all different and all changing with the pattern: lane `k` has its
/// own modulus and base and the exponent of the pattern `k` places after
/// `pattern` (so every run holds each pattern in some lane, and no two
/// runs hold the same lanes).
fn run_batch1024(pattern: &str) -> Option<u64> {
    let backend = named_backend().filter(|b| b.lanes() > 1)?;
    let at = PATTERNS.iter().position(|p| *p == pattern)?;
    let lanes = backend.lanes();
    let m0 = Uint::<16>::from_words(modulus(16).try_into().expect("16 limbs"));
    let params: Vec<_> = (0..lanes)
        .map(|k| {
            MontyParams::new(m0.wrapping_sub(&Uint::<16>::from_u64(2 * k as u64))).expect("odd")
        })
        .collect();
    let bases: Vec<_> = params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let b = Uint::<16>::from_words(
                limbs(0x6261_7365 + (at + k) as u64, 16)
                    .try_into()
                    .expect("16 limbs"),
            );
            p.to_monty(&b.shr_vartime(1))
        })
        .collect();
    let exps: Vec<Uint<16>> = (0..lanes)
        .map(|k| {
            let e = exponent(PATTERNS[(at + k) % PATTERNS.len()], 16).expect("known pattern");
            Uint::<16>::from_words(e.try_into().expect("16 limbs"))
        })
        .collect();
    let operands: Vec<_> = (0..lanes)
        .map(|k| (&params[k], &bases[k], exps[k].as_ref()))
        .collect();
    let mut out = vec![params[0].zero(); lanes];
    probe_target_batch1024(backend, black_box(&operands), &mut out);
    for (k, ((p, base, _), r)) in operands.iter().zip(&out).enumerate() {
        let low = Uint::<16>::from_words(core::array::from_fn(|i| match i {
            0 => exps[k].as_words()[0],
            _ => 0,
        }));
        assert_eq!(
            p.from_monty(r),
            p.from_monty(&p.pow_vartime(base, &low)),
            "lane {k}"
        );
    }
    Some(params[0].from_monty(&out[0]).as_words()[0])
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

/// Trial division on the eight-lane IFMA kernel
/// (`numcrypt_limbs::kernels::small_factor_52x8`): eight lanes of two
/// small primes each, a 1024-bit number of the pattern. `None` where the
/// kernel does not run.
#[inline(never)]
fn probe_target_trial(x: &[u64], lanes: &[SmallFactorLanes<'_>]) -> Option<u64> {
    marker();
    let r = small_factor_52x8(x, lanes);
    marker();
    r
}

/// [`probe_target_trial`] on the pattern's number: the hit (0 or 1) if the
/// kernel ran.
fn run_trial(e: Vec<u64>) -> Option<u64> {
    const PRIMES: [u64; 16] = [3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59];
    let m: [u64; 8] = std::array::from_fn(|l| PRIMES[2 * l] * PRIMES[2 * l + 1]);
    let mask = (1u64 << 52) - 1;
    // −m⁻¹ mod 2^64 by Newton's iteration, then its low 52 bits.
    let neg_inv = m.map(|m| {
        let mut inv = 1u64;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inv)));
        }
        inv.wrapping_neg() & mask
    });
    let powers: Vec<[u64; 8]> = (1..=20)
        .map(|j| std::array::from_fn(|l| pow2_52(j, m[l]) as u64))
        .collect();
    let inverse = |p: u64| {
        let mut inv = 1u64;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
        }
        inv
    };
    let inverses: [[u64; 8]; 2] =
        std::array::from_fn(|k| std::array::from_fn(|l| inverse(PRIMES[2 * l + k])));
    let limits: [[u64; 8]; 2] =
        std::array::from_fn(|k| std::array::from_fn(|l| u64::MAX / PRIMES[2 * l + k] + 1));
    let lanes = [SmallFactorLanes {
        powers: &powers,
        modulus: &m,
        neg_inv: &neg_inv,
        inverses: &inverses,
        limits: &limits,
    }];
    probe_target_trial(&e, &lanes)
}

/// `2^(52 k) mod m`.
fn pow2_52(k: u32, m: u64) -> u128 {
    (0..k).fold(1u128, |acc, _| (acc << 52) % m as u128)
}

/// Which implementation ran: under valgrind the emulated CPUID hides ADX
/// and AVX-512, so the assembly path is measured with `CT_AUDIT_ADX=1`, and
/// the IFMA variants natively (see `.ci/ct-check`).
fn kernel_backend(nlimbs: usize, interleave: usize) -> &'static str {
    let selection = backend::selection();
    let used = named_backend().unwrap_or(selection.exponentiation(nlimbs, interleave));
    match used {
        Exponentiation::Ifma256 | Exponentiation::Ifma256VectorQuotient => {
            return "x86_64 avx512 ifma256";
        }
        Exponentiation::Ifma512 => return "x86_64 avx512 ifma512",
        Exponentiation::Avx2 => return "x86_64 avx2",
        Exponentiation::Avx512 => return "x86_64 avx512 radix 2^28",
        Exponentiation::IfmaBatch => return "x86_64 avx512 ifma batch",
        Exponentiation::Avx2Batch => return "x86_64 avx2 batch",
        Exponentiation::FmaBatch => return "x86_64 fma batch",
        Exponentiation::Fma512Batch => return "x86_64 fma512 batch",
        Exponentiation::FmaPair => return "x86_64 fma pair",
        Exponentiation::Avx512Batch => return "x86_64 avx512 batch",
        Exponentiation::Apart => return kernel_backend(nlimbs, 1),
        _ => {}
    }
    match selection.limb_kernels() {
        LimbKernels::Adx => "x86_64 mulx/adx",
        LimbKernels::Aarch64 => "aarch64",
        _ => "portable",
    }
}

fn main() -> ExitCode {
    if std::env::var_os("CT_AUDIT_ADX").is_some() {
        #[cfg(feature = "ct-audit")]
        numcrypt_limbs::ct_audit::assume_bmi2_adx();
        #[cfg(not(feature = "ct-audit"))]
        {
            eprintln!("ct_probe: CT_AUDIT_ADX needs a build with the ct-audit feature");
            return ExitCode::FAILURE;
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || {
        eprintln!(
            "usage: ct_probe <1024|1024short|2048short|1024pair|2048pair|1024batch|2048|trial|goldilocks|p521|p256|r521> <{}>",
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
    let field = match width.as_str() {
        "goldilocks" => Some(run_field::<B<FpGoldilocks>, B<FpGoldilocksMonty>>(pattern)),
        "p521" => Some(run_field::<B<Fp521>, B<Fp521Saturated>>(pattern)),
        "p256" => Some(run_field::<B<FpP256>, B<FpP256>>(pattern)),
        "r521" => Some(run_field::<B<FpRandom521>, B<FpRandom521>>(pattern)),
        _ => None,
    };
    if let Some(digest) = field {
        let Some(digest) = digest else {
            return usage();
        };
        println!("{width} field chain, operand {pattern}: low limb of result {digest:#018x}");
        println!("kernels: {}", kernel_backend(16, 1));
        return ExitCode::SUCCESS;
    }
    if width == "trial" {
        let Some(e) = exponent(pattern, 16) else {
            return usage();
        };
        let Some(hit) = run_trial(e) else {
            eprintln!("trial: the eight-lane kernel does not run here");
            return ExitCode::FAILURE;
        };
        println!("trial division, number {pattern}: {hit}");
        println!("kernels: x86_64 avx512 ifma trial");
        return ExitCode::SUCCESS;
    }
    let digest = match (width.as_str(), exponent(pattern, 32)) {
        ("1024", Some(_)) => run_uint::<16>(exponent(pattern, 16).expect("known pattern"), false),
        ("1024short", Some(_)) => {
            run_uint::<16>(exponent(pattern, 16).expect("known pattern"), true)
        }
        ("2048short", Some(e)) => run_uint::<32>(e, true),
        ("1024pair", Some(_)) => run_pair::<16>(exponent(pattern, 16).expect("known pattern")),
        ("2048pair", Some(_)) => run_pair::<32>(exponent(pattern, 32).expect("known pattern")),
        ("1024batch", Some(_)) => match run_batch1024(pattern) {
            Some(digest) => digest,
            None => {
                eprintln!(
                    "1024batch needs CT_PROBE_BACKEND=ifma-batch, avx2-batch, fma-batch, \
                     fma512-batch, fma-pair or avx512-batch"
                );
                return usage();
            }
        },
        ("2048", Some(e)) => run_boxed2048(e),
        _ => return usage(),
    };
    println!("{width}-bit pow, exponent {pattern}: low limb of result {digest:#018x}");
    let (nlimbs, interleave) = match width.as_str() {
        "2048" | "2048short" => (32, 1),
        "1024pair" => (16, 2),
        "2048pair" => (32, 2),
        "1024batch" => (16, named_backend().map_or(1, |b| b.lanes())),
        _ => (16, 1),
    };
    println!("kernels: {}", kernel_backend(nlimbs, interleave));
    ExitCode::SUCCESS
}
