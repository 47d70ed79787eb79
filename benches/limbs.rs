//! Limb arithmetic: numcrypt against crypto-bigint, GMP (through rug) and
//! num-bigint, with every peer in the same criterion group so that ratios
//! come from one run.
//!
//! Operand sizes: 256, 512, 1024, 1536, 2048, 3072 and 4096 bits. numcrypt and
//! crypto-bigint use their fixed-width `Uint<LIMBS>` (64-bit limbs, named
//! `U<bits>` in the bench ids); GMP uses `mpz_t` (`rug::Integer`), num-bigint
//! `BigUint`. All peers get the same inputs, drawn from ChaCha20 with a fixed
//! seed per size; before timing, every peer's result is checked against the
//! others.
//!
//! Groups (benchmark id `<group>/<bits>/<peer>`):
//! - `mul`: full n×n → 2n-bit product of two random full-width operands.
//!   numcrypt `widening_mul` and crypto-bigint `widening_mul` (both constant
//!   time, result by value on the stack); GMP `mpz_mul` into a preallocated
//!   `Integer` (no allocation in the loop); num-bigint `&a * &b` (allocates
//!   its result, the only way its API offers). GMP and num-bigint are
//!   variable time.
//! - `square`: full n → 2n-bit square. numcrypt `widening_square`,
//!   crypto-bigint `widening_square` (constant time); GMP `mpz_mul(r, a, a)`
//!   (`square_ref`, which GMP routes to its squaring code) into a preallocated
//!   `Integer`; num-bigint `&a * &a` (it has no dedicated squaring).
//! - `mont_mul`: one Montgomery multiplication of two residues modulo a random
//!   n-bit odd modulus with its top bit set, operands already in Montgomery
//!   form, parameters precomputed. numcrypt `MontyParams::mul`, crypto-bigint
//!   `FixedMontyForm::mul` (both constant time). GMP and num-bigint have no
//!   Montgomery multiplication: their `ref_modmul_*` entries are a plain
//!   `(a * b) mod m` (variable time), a reference point only.
//! - `modexp_ct`: `base^e mod m`, with `m` a random n-bit odd modulus with its
//!   top bit set, `base` a random residue and `e` a random exponent of exactly
//!   n bits (top bit set). Residue in, residue out: for numcrypt and
//!   crypto-bigint the conversion into and out of Montgomery form is included
//!   in the timing, the Montgomery parameters (one-time per modulus) are not;
//!   GMP, OpenSSL and num-bigint do their own per-call setup. numcrypt
//!   `MontyParams::pow` and crypto-bigint `FixedMontyForm::pow` are constant
//!   time over the exponent's full width; GMP `mpz_powm_sec` is constant time;
//!   OpenSSL is `BN_mod_exp` on `BN_FLG_CONSTTIME` operands, which runs
//!   `BN_mod_exp_mont_consttime` (its mulx/`mont5` assembly; the Montgomery
//!   context is built per call, as in OpenSSL's own non-RSA callers), and
//!   AWS-LC its own `BN_mod_exp_mont_consttime` (through aws-lc-sys, the
//!   context built per call the same way);
//!   num-bigint `modpow` is NOT constant time (labelled `_vartime`).
//! - `modexp_interleaved/<bits>` (printed lines, with the wall-time groups,
//!   1024 bits and up): numcrypt, numcrypt on its limb kernels, OpenSSL and
//!   AWS-LC in turn, one exponentiation each a round, on `modexp_ct`'s
//!   inputs; each one's median and numcrypt's ratio to each peer, also
//!   paired, with a 95 % interval (`common::interleaved`); then the same
//!   rounds from the limb kernels' side (issue 34's targets on them). A
//!   filter given to the bench, read as plain text, must occur in the
//!   line's name.
//! - `exp_variants`: every exponentiation backend this CPU has at 1024,
//!   1536, 2048, 3072 and 4096 bits, one at a time (`<bits>/one/<backend>`)
//!   and as a CRT pair of two moduli of that size (`<bits>/pair/<backend>`),
//!   full-width exponents, the results checked equal first. Before timing,
//!   a selection check (`backend::selection_check`, 21 interleaved
//!   runs of each) prints each size's median times with the selection's
//!   choice, for one, a pair and a batch of eight (batch kernels, and
//!   pairs on every other backend), with the choice's time ÷ each other's
//!   round by round (median and 95 % interval),
//!   and flags `NOT THE FASTEST` where that interval lies above 1.03, or
//!   `undecided` where it holds 1.03 (skipped under a filter that
//!   `exp_variants/selection_check` does not contain). (`rsa_batch` times
//!   the batches themselves.)
//! - `inverse`: `a^-1 mod m` for the `modexp_ct` modulus and a random residue.
//!   numcrypt `inv_mod` and crypto-bigint `invert_odd_mod` (both safegcd,
//!   constant time); GMP `mpz_invert` (variable time, labelled `_vartime`),
//!   a reference point only.
//!
//! Every group runs twice: wall time, and (x86_64 only) cycles read with
//! `rdtsc` through `criterion_cycles_per_byte::CyclesPerByte` (groups suffixed
//! `_cycles`). `rdtsc` counts reference cycles at the constant TSC rate, not
//! core clock cycles.
//!
//! Run with `cargo bench --bench limbs` (about 7 minutes on the 2-core reference machine).

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::aws_lc::{Bn, ModExp};
use common::interleaved::{compared_rounds, filter_allows, median, take_turns};
use common::{group_name, is_wall_time, openssl_peer, to_biguint};
use criterion::measurement::Measurement;
use criterion::{BenchmarkGroup, Criterion, SamplingMode};
use crypto_bigint::Odd;
use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
use num_bigint::BigUint;
use numcrypt::limbs::backend::{self, Exponentiation};
use numcrypt::limbs::{BoxedUint, MontyParams, Unsigned};
use openssl::bn::{BigNum, BigNumContext};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use rug::integer::Order;
use rug::{Assign, Integer};

type NcUint<const L: usize> = numcrypt::limbs::Uint<L>;
type CbUint<const L: usize> = crypto_bigint::Uint<L>;

/// The inputs for one operand size, as little-endian 64-bit words.
struct Inputs {
    bits: usize,
    /// Random full-width operands for `mul` and `square`.
    a: Vec<u64>,
    b: Vec<u64>,
    /// Random odd modulus with the top bit set.
    m: Vec<u64>,
    /// `a mod m`, `b mod m`.
    ar: Vec<u64>,
    br: Vec<u64>,
    /// Random exponent of exactly `bits` bits.
    e: Vec<u64>,
}

impl Inputs {
    fn new(limbs: usize) -> Self {
        let mut rng = ChaCha20Rng::seed_from_u64(0x6e75_6d63_7279_7074 ^ limbs as u64);
        let words =
            |rng: &mut ChaCha20Rng| -> Vec<u64> { (0..limbs).map(|_| rng.next_u64()).collect() };
        let a = words(&mut rng);
        let b = words(&mut rng);
        let mut m = words(&mut rng);
        m[0] |= 1;
        m[limbs - 1] |= 1 << 63;
        let mut e = words(&mut rng);
        e[limbs - 1] |= 1 << 63;
        let (mb, ab, bb) = (to_biguint(&m), to_biguint(&a), to_biguint(&b));
        let ar = padded(&(&ab % &mb).to_u64_digits(), limbs);
        let br = padded(&(&bb % &mb).to_u64_digits(), limbs);
        Self {
            bits: limbs * 64,
            a,
            b,
            m,
            ar,
            br,
            e,
        }
    }
}

fn padded(words: &[u64], len: usize) -> Vec<u64> {
    assert!(words.len() <= len, "value wider than {len} words");
    let mut v = words.to_vec();
    v.resize(len, 0);
    v
}

fn to_nc<const L: usize>(w: &[u64]) -> NcUint<L> {
    NcUint::<L>::from_words(w.try_into().expect("word count"))
}

fn to_cb<const L: usize>(w: &[u64]) -> CbUint<L> {
    CbUint::<L>::from_words(w.try_into().expect("word count"))
}

fn to_gmp(w: &[u64]) -> Integer {
    Integer::from_digits(w, Order::Lsf)
}

fn gmp_words(x: &Integer, len: usize) -> Vec<u64> {
    padded(&x.to_digits::<u64>(Order::Lsf), len)
}

fn biguint_words(x: &BigUint, len: usize) -> Vec<u64> {
    padded(&x.to_u64_digits(), len)
}

/// `lo || hi` as one little-endian word vector.
fn wide(lo: &[u64], hi: &[u64]) -> Vec<u64> {
    let mut v = lo.to_vec();
    v.extend_from_slice(hi);
    v
}

/// Sets the per-group configuration shared by both measurements.
fn configure<M: Measurement>(g: &mut BenchmarkGroup<'_, M>) {
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200));
}

fn mul_at<M: Measurement, const L: usize>(g: &mut BenchmarkGroup<'_, M>, inp: &Inputs) {
    let bits = inp.bits;
    let (na, nb) = (to_nc::<L>(&inp.a), to_nc::<L>(&inp.b));
    let (ca, cb) = (to_cb::<L>(&inp.a), to_cb::<L>(&inp.b));
    let (ga, gb) = (to_gmp(&inp.a), to_gmp(&inp.b));
    let (ba, bb) = (to_biguint(&inp.a), to_biguint(&inp.b));

    let expect = gmp_words(&Integer::from(&ga * &gb), 2 * L);
    let (lo, hi) = na.widening_mul(&nb);
    assert_eq!(
        wide(lo.as_ref(), hi.as_ref()),
        expect,
        "numcrypt mul at {bits}"
    );
    let (lo, hi) = ca.widening_mul(&cb);
    assert_eq!(
        wide(lo.as_words(), hi.as_words()),
        expect,
        "crypto-bigint mul at {bits}"
    );
    assert_eq!(
        biguint_words(&(&ba * &bb), 2 * L),
        expect,
        "num-bigint mul at {bits}"
    );

    g.bench_function(format!("{bits}/numcrypt_U{bits}"), |b| {
        b.iter(|| black_box(&na).widening_mul(black_box(&nb)))
    });
    g.bench_function(format!("{bits}/crypto-bigint_U{bits}"), |b| {
        b.iter(|| black_box(&ca).widening_mul(black_box(&cb)))
    });
    let mut out = Integer::with_capacity(2 * bits + 64);
    g.bench_function(format!("{bits}/gmp_mpz_mul"), |b| {
        b.iter(|| out.assign(black_box(&ga) * black_box(&gb)))
    });
    g.bench_function(format!("{bits}/num-bigint_BigUint"), |b| {
        b.iter(|| black_box(&ba) * black_box(&bb))
    });
}

fn square_at<M: Measurement, const L: usize>(g: &mut BenchmarkGroup<'_, M>, inp: &Inputs) {
    let bits = inp.bits;
    let na = to_nc::<L>(&inp.a);
    let ca = to_cb::<L>(&inp.a);
    let ga = to_gmp(&inp.a);
    let ba = to_biguint(&inp.a);

    let expect = gmp_words(&Integer::from(ga.square_ref()), 2 * L);
    let (lo, hi) = na.widening_square();
    assert_eq!(
        wide(lo.as_ref(), hi.as_ref()),
        expect,
        "numcrypt square at {bits}"
    );
    let (lo, hi) = ca.widening_square();
    assert_eq!(
        wide(lo.as_words(), hi.as_words()),
        expect,
        "crypto-bigint square at {bits}"
    );
    assert_eq!(
        biguint_words(&(&ba * &ba), 2 * L),
        expect,
        "num-bigint square at {bits}"
    );

    g.bench_function(format!("{bits}/numcrypt_U{bits}"), |b| {
        b.iter(|| black_box(&na).widening_square())
    });
    g.bench_function(format!("{bits}/crypto-bigint_U{bits}"), |b| {
        b.iter(|| black_box(&ca).widening_square())
    });
    let mut out = Integer::with_capacity(2 * bits + 64);
    g.bench_function(format!("{bits}/gmp_mpz_sqr"), |b| {
        b.iter(|| out.assign(black_box(&ga).square_ref()))
    });
    g.bench_function(format!("{bits}/num-bigint_BigUint"), |b| {
        b.iter(|| {
            let x = black_box(&ba);
            x * x
        })
    });
}

fn mont_mul_at<M: Measurement, const L: usize>(g: &mut BenchmarkGroup<'_, M>, inp: &Inputs) {
    let bits = inp.bits;
    let np = MontyParams::new(to_nc::<L>(&inp.m)).expect("numcrypt params");
    let (na, nb) = (
        np.to_monty(&to_nc::<L>(&inp.ar)),
        np.to_monty(&to_nc::<L>(&inp.br)),
    );
    let cp = FixedMontyParams::new(Odd::new(to_cb::<L>(&inp.m)).expect("odd modulus"));
    let (ca, cb) = (
        FixedMontyForm::new(&to_cb::<L>(&inp.ar), &cp),
        FixedMontyForm::new(&to_cb::<L>(&inp.br), &cp),
    );
    let (ga, gb, gm) = (to_gmp(&inp.ar), to_gmp(&inp.br), to_gmp(&inp.m));
    let (ba, bb, bm) = (to_biguint(&inp.ar), to_biguint(&inp.br), to_biguint(&inp.m));

    let expect = gmp_words(&(Integer::from(&ga * &gb) % &gm), L);
    assert_eq!(
        np.from_monty(&np.mul(&na, &nb)).as_ref(),
        expect,
        "numcrypt mont_mul at {bits}"
    );
    assert_eq!(
        ca.mul(&cb).retrieve().as_words()[..],
        expect,
        "crypto-bigint mont_mul at {bits}"
    );
    assert_eq!(
        biguint_words(&(&ba * &bb % &bm), L),
        expect,
        "num-bigint modmul at {bits}"
    );

    g.bench_function(format!("{bits}/numcrypt_U{bits}"), |b| {
        b.iter(|| np.mul(black_box(&na), black_box(&nb)))
    });
    g.bench_function(format!("{bits}/crypto-bigint_U{bits}"), |b| {
        b.iter(|| black_box(&ca).mul(black_box(&cb)))
    });
    let mut out = Integer::with_capacity(2 * bits + 64);
    g.bench_function(format!("{bits}/ref_modmul_gmp_vartime"), |b| {
        b.iter(|| {
            out.assign(black_box(&ga) * black_box(&gb));
            out %= black_box(&gm);
        })
    });
    g.bench_function(format!("{bits}/ref_modmul_num-bigint_vartime"), |b| {
        b.iter(|| black_box(&ba) * black_box(&bb) % black_box(&bm))
    });
}

fn modexp_at<M: Measurement, const L: usize>(g: &mut BenchmarkGroup<'_, M>, inp: &Inputs) {
    let bits = inp.bits;
    let (nbase, ne) = (to_nc::<L>(&inp.ar), to_nc::<L>(&inp.e));
    let np = MontyParams::new(to_nc::<L>(&inp.m)).expect("numcrypt params");
    let (cbase, ce) = (to_cb::<L>(&inp.ar), to_cb::<L>(&inp.e));
    let cp = FixedMontyParams::new(Odd::new(to_cb::<L>(&inp.m)).expect("odd modulus"));
    let (gbase, ge, gm) = (to_gmp(&inp.ar), to_gmp(&inp.e), to_gmp(&inp.m));
    let (bbase, be, bm) = (to_biguint(&inp.ar), to_biguint(&inp.e), to_biguint(&inp.m));
    let (obase, oe, om) = (to_openssl(&inp.ar), to_openssl(&inp.e), to_openssl(&inp.m));
    let mut octx = BigNumContext::new().expect("openssl context");
    let mut oout = BigNum::new().expect("openssl bignum");
    let (abase, ae, am) = (
        Bn::from_words(&inp.ar),
        Bn::from_words(&inp.e),
        Bn::from_words(&inp.m),
    );
    let mut aws = ModExp::new();

    let nc_pow = |base: &NcUint<L>, e: &NcUint<L>| np.from_monty(&np.pow(&np.to_monty(base), e));
    // The same on the limb kernels alone (mulx rows), where the default is
    // the AVX-512 IFMA backend.
    let nc_pow_limbs = |base: &NcUint<L>, e: &NcUint<L>| {
        let limbs = Exponentiation::LimbKernels;
        let r = np.pow_bounded_on(limbs, &np.to_monty(base), e, 64 * L as u32);
        np.from_monty(&r.expect("the limb kernels run everywhere"))
    };
    let cb_pow = |base: &CbUint<L>, e: &CbUint<L>| FixedMontyForm::new(base, &cp).pow(e).retrieve();

    let expect = gmp_words(&Integer::from(gbase.secure_pow_mod_ref(&ge, &gm)), L);
    assert_eq!(
        nc_pow(&nbase, &ne).as_ref(),
        expect,
        "numcrypt modexp at {bits}"
    );
    assert_eq!(
        nc_pow_limbs(&nbase, &ne).as_ref(),
        expect,
        "numcrypt limb-kernel modexp at {bits}"
    );
    assert_eq!(
        cb_pow(&cbase, &ce).as_words()[..],
        expect,
        "crypto-bigint modexp at {bits}"
    );
    assert_eq!(
        biguint_words(&bbase.modpow(&be, &bm), L),
        expect,
        "num-bigint modexp at {bits}"
    );

    oout.mod_exp(&obase, &oe, &om, &mut octx)
        .expect("openssl mod_exp");
    assert_eq!(openssl_words(&oout, L), expect, "openssl modexp at {bits}");
    assert_eq!(
        aws.run(&abase, &ae, &am).words(L),
        expect,
        "aws-lc modexp at {bits}"
    );

    // The targets' peers in turn, round by round (see the top).
    let line = format!("modexp_interleaved/{bits}");
    if is_wall_time::<M>() && bits >= 1024 && filter_allows(&line) {
        let rounds = if bits <= 1024 {
            201
        } else if bits <= 2048 {
            61
        } else {
            25
        };
        let names = [
            "numcrypt",
            "numcrypt-limb-kernels",
            &openssl_peer(),
            "aws-lc",
        ];
        let times = take_turns(names.len(), rounds, 1, |peer| match peer {
            0 => drop(black_box(nc_pow(black_box(&nbase), black_box(&ne)))),
            1 => drop(black_box(nc_pow_limbs(black_box(&nbase), black_box(&ne)))),
            2 => oout
                .mod_exp(black_box(&obase), black_box(&oe), black_box(&om), &mut octx)
                .expect("openssl mod_exp"),
            _ => drop(black_box(aws.run(
                black_box(&abase),
                black_box(&ae),
                black_box(&am),
            ))),
        });
        println!(
            "{line}: {} (medians of {rounds} rounds)",
            compared_rounds(&names, &times)
        );
        // The limb kernels' own ratios: the targets on them.
        println!(
            "{line}: {} (the same rounds)",
            compared_rounds(&names[1..], &times[1..])
        );
    }

    g.bench_function(format!("{bits}/numcrypt_U{bits}"), |b| {
        b.iter(|| nc_pow(black_box(&nbase), black_box(&ne)))
    });
    // The limb kernels under a name of their own even where they are the
    // default, so that the targets on them read one id everywhere.
    g.bench_function(format!("{bits}/numcrypt-limb-kernels_U{bits}"), |b| {
        b.iter(|| nc_pow_limbs(black_box(&nbase), black_box(&ne)))
    });
    g.bench_function(format!("{bits}/crypto-bigint_U{bits}"), |b| {
        b.iter(|| cb_pow(black_box(&cbase), black_box(&ce)))
    });
    let mut out = Integer::with_capacity(bits + 64);
    g.bench_function(format!("{bits}/gmp_mpz_powm_sec"), |b| {
        b.iter(|| out.assign(black_box(&gbase).secure_pow_mod_ref(black_box(&ge), black_box(&gm))))
    });
    g.bench_function(
        format!("{bits}/{}_BN_mod_exp_mont_consttime", openssl_peer()),
        |b| {
            b.iter(|| {
                oout.mod_exp(black_box(&obase), black_box(&oe), black_box(&om), &mut octx)
                    .expect("openssl mod_exp")
            })
        },
    );
    g.bench_function(format!("{bits}/aws-lc_BN_mod_exp_mont_consttime"), |b| {
        b.iter(|| {
            aws.run(black_box(&abase), black_box(&ae), black_box(&am));
        })
    });
    g.bench_function(format!("{bits}/num-bigint_modpow_vartime"), |b| {
        b.iter(|| black_box(&bbase).modpow(black_box(&be), black_box(&bm)))
    });
}

/// An OpenSSL `BIGNUM` from little-endian words, flagged constant time so
/// that `BN_mod_exp` takes `BN_mod_exp_mont_consttime`.
fn to_openssl(words: &[u64]) -> BigNum {
    let bytes: Vec<u8> = words.iter().rev().flat_map(|w| w.to_be_bytes()).collect();
    let mut n = BigNum::from_slice(&bytes).expect("openssl bignum");
    n.set_const_time();
    n
}

/// The value of an OpenSSL `BIGNUM` as `limbs` little-endian words.
fn openssl_words(n: &BigNum, limbs: usize) -> Vec<u64> {
    let bytes = n.to_vec_padded(8 * limbs as i32).expect("fits");
    bytes
        .chunks(8)
        .rev()
        .map(|c| u64::from_be_bytes(c.try_into().unwrap()))
        .collect()
}

fn inverse_at<M: Measurement, const L: usize>(g: &mut BenchmarkGroup<'_, M>, inp: &Inputs) {
    let bits = inp.bits;
    let (na, nm) = (to_nc::<L>(&inp.ar), to_nc::<L>(&inp.m));
    let (ca, cm) = (
        to_cb::<L>(&inp.ar),
        Odd::new(to_cb::<L>(&inp.m)).expect("odd modulus"),
    );
    let (ga, gm) = (to_gmp(&inp.ar), to_gmp(&inp.m));

    let expect = gmp_words(&ga.clone().invert(&gm).expect("invertible"), L);
    assert_eq!(
        na.inv_mod(&nm).expect("numcrypt inverse").as_ref(),
        expect,
        "numcrypt inverse at {bits}"
    );
    assert_eq!(
        ca.invert_odd_mod(&cm)
            .expect("crypto-bigint inverse")
            .as_words(),
        &expect[..],
        "crypto-bigint inverse at {bits}"
    );

    g.bench_function(format!("{bits}/numcrypt_U{bits}"), |b| {
        b.iter(|| black_box(&na).inv_mod(black_box(&nm)))
    });
    g.bench_function(format!("{bits}/crypto-bigint_U{bits}"), |b| {
        b.iter(|| black_box(&ca).invert_odd_mod(black_box(&cm)))
    });
    let mut out = Integer::with_capacity(bits + 64);
    g.bench_function(format!("{bits}/gmp_mpz_invert_vartime"), |b| {
        b.iter(|| {
            out.assign(
                black_box(&ga)
                    .invert_ref(black_box(&gm))
                    .expect("invertible"),
            )
        })
    });
}

/// Runs `$f::<M, L>` for every operand size.
macro_rules! all_sizes {
    ($f:ident, $g:expr) => {
        for (limbs, run) in [
            (4, $f::<M, 4> as fn(&mut BenchmarkGroup<'_, M>, &Inputs)),
            (8, $f::<M, 8>),
            (16, $f::<M, 16>),
            (24, $f::<M, 24>),
            (32, $f::<M, 32>),
            (48, $f::<M, 48>),
            (64, $f::<M, 64>),
        ] {
            run($g, &Inputs::new(limbs));
        }
    };
}

fn bench_mul<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("mul"));
    configure(&mut g);
    all_sizes!(mul_at, &mut g);
    g.finish();
}

fn bench_square<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("square"));
    configure(&mut g);
    all_sizes!(square_at, &mut g);
    g.finish();
}

fn bench_mont_mul<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("mont_mul"));
    configure(&mut g);
    all_sizes!(mont_mul_at, &mut g);
    g.finish();
}

fn bench_modexp_ct<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("modexp_ct"));
    // Tens of milliseconds per operation at the top sizes: flat sampling
    // (same iteration count in every sample) and few samples.
    g.sample_size(15)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(2000));
    all_sizes!(modexp_at, &mut g);
    g.finish();
}

/// Prints, per size and shape, every backend's median time with the
/// selection's choice marked and compared with it round by round
/// (`backend::selection_check`), flagging a choice more than 3 % slower than
/// another backend and naming a size the rounds cannot decide.
fn selection_check() {
    println!("selection check: {}", backend::selection());
    let (mut flagged, mut undecided) = (0, 0);
    for limbs in [16, 24, 32, 48, 64] {
        for (shape, k) in [
            ("one", 1),
            ("pair", 2),
            ("batch", backend::BATCH),
            ("e", backend::SHORT_EXPONENT),
        ] {
            // A size that races: the selection's own path is checked.
            let backend::SelectionCheck {
                chosen,
                racers,
                timed,
                mine,
                verdict: check,
            } = backend::selection_check(limbs, k, 64 * limbs as u32, 21);
            let verdict = match check {
                backend::ChoiceVerdict::Alone => {
                    println!(
                        "  {:>4} bits {shape:>5}: only {} takes it",
                        64 * limbs,
                        chosen.name()
                    );
                    continue;
                }
                backend::ChoiceVerdict::Within => "selected",
                backend::ChoiceVerdict::NotFastest { .. } => {
                    flagged += 1;
                    "selected: NOT THE FASTEST"
                }
                backend::ChoiceVerdict::Undecided { .. } => {
                    undecided += 1;
                    "selected: undecided"
                }
            };
            if let (Some(racers), Some(raced)) = (racers, &mine) {
                let names: Vec<_> = racers.backends().iter().map(|e| e.racer_name(k)).collect();
                println!(
                    "  {:>4} bits {shape:>5}: {:>10.1} µs {:>18} the race of {} {verdict}",
                    64 * limbs,
                    median(raced.clone()).as_secs_f64() * 1e6,
                    "",
                    names.join(", ")
                );
            }
            for (e, t) in &timed {
                let typical = median(t.clone());
                let (paired, verdict) =
                    match mine.as_ref().and_then(|m| backend::PairedRatio::of(m, t)) {
                        _ if *e == chosen && racers.is_none() => (String::new(), verdict),
                        Some(r) => (format!("{:.2} ({:.2}–{:.2})", r.median, r.low, r.high), ""),
                        None => (String::new(), ""),
                    };
                println!(
                    "  {:>4} bits {shape:>5}: {:>10.1} µs {paired:>18} {:<32} {verdict}",
                    64 * limbs,
                    typical.as_secs_f64() * 1e6,
                    e.name()
                );
            }
        }
    }
    println!(
        "selection check: {}",
        match (flagged, undecided) {
            (0, 0) => "ok".to_owned(),
            (0, u) => format!("undecided at {u} sizes"),
            (n, 0) => format!("NOT THE FASTEST at {n} sizes"),
            (n, u) => format!("NOT THE FASTEST at {n} sizes, undecided at {u}"),
        }
    );
}

fn bench_exp_variants<M: Measurement>(c: &mut Criterion<M>) {
    if group_name::<M>("").is_empty() && filter_allows("exp_variants/selection_check") {
        selection_check();
    }
    let mut g = c.benchmark_group(group_name::<M>("exp_variants"));
    g.sample_size(15)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(2000));
    for limbs in [16, 24, 32, 48, 64] {
        let bits = 64 * limbs as u32;
        let [one, two] = [0u64, 1].map(|i| {
            let mut rng =
                ChaCha20Rng::seed_from_u64(0x7661_7269_616e_7473 ^ (i << 8) ^ limbs as u64);
            let mut words = || BoxedUint::from_words((0..limbs).map(|_| rng.next_u64()).collect());
            let mut m = words();
            m.as_mut()[0] |= 1;
            m.as_mut()[limbs - 1] |= 1 << 63;
            let params = MontyParams::new(m).expect("an odd modulus");
            let base = params.to_monty(&words());
            (params, base, words())
        });
        let expect = [&one, &two].map(|(p, b, e)| {
            p.from_monty(
                &p.pow_bounded_on(Exponentiation::LimbKernels, b, e, bits)
                    .unwrap(),
            )
        });
        for e in Exponentiation::ALL {
            if let Some(r) = one.0.pow_bounded_on(e, &one.1, &one.2, bits) {
                assert_eq!(one.0.from_monty(&r), expect[0], "{} at {bits}", e.name());
                g.bench_function(format!("{bits}/one/{}", e.name()), |b| {
                    b.iter(|| {
                        one.0
                            .pow_bounded_on(e, black_box(&one.1), black_box(&one.2), bits)
                    })
                });
            }
            let pair = || {
                [
                    (&one.0, &one.1, one.2.as_ref()),
                    (&two.0, &two.1, two.2.as_ref()),
                ]
            };
            if let Some([r0, r1]) = MontyParams::pow_bounded_pair_on(e, pair(), bits) {
                assert_eq!([one.0.from_monty(&r0), two.0.from_monty(&r1)], expect);
                g.bench_function(format!("{bits}/pair/{}", e.name()), |b| {
                    b.iter(|| MontyParams::pow_bounded_pair_on(e, black_box(pair()), bits))
                });
            }
        }
    }
    g.finish();
}

fn bench_inverse<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("inverse"));
    configure(&mut g);
    all_sizes!(inverse_at, &mut g);
    g.finish();
}

common::time_and_cycles_main!(
    bench_mul,
    bench_square,
    bench_mont_mul,
    bench_modexp_ct,
    bench_exp_variants,
    bench_inverse
);
