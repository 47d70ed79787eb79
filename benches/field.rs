//! Prime-field multiplication and squaring: numcrypt-field against
//! fiat-crypto, crypto-bigint's `ConstMontyForm` and RustCrypto's P-256
//! field, every peer in the same criterion group so that ratios come from
//! one run.
//!
//! One multiplication (or squaring) of field elements already in each
//! implementation's own representation, result by value, operands through
//! `black_box`; everything here is constant time. The primes:
//! - pseudo-Mersenne `2^k − c`: `2^127−1`, `2^255−19`, `2^336−3`,
//!   `2^384−317`, `2^414−17`, `2^448−203`, `2^512−569`, `2^521−1`,
//!   `2^2048−1557`, and Goldilocks `2^448−2^224−1`;
//! - Montgomery: NIST P-224, P-256, P-384, and random primes of 256, 384,
//!   448, 512 and 521 bits (`numcrypt_field::fields`).
//!
//! Peers, each on the same prime and the same operands (results checked
//! against num-bigint before timing):
//! - `numcrypt`: the field's default representation (`Fp25519`, …);
//!   `numcrypt_unsat` / `numcrypt_saturated`: the other one, where there is
//!   one (`Fp25519`, `Fp336` and `Fp521` are unsaturated, `Fp414` on
//!   aarch64 only, the other `2^k − c` fields saturated);
//! - `fiat_*`: fiat-crypto 0.3's generated code (`curve25519_64`: 5×51,
//!   `curve25519_solinas_64`: 4×64 saturated, `p521_64`: 9×58,
//!   `p448_solinas_64`: 8×56, and Montgomery `p224_64`, `p256_64`,
//!   `p384_64`), loose operands into `carry_mul`/`carry_square` where the
//!   code has the distinction;
//! - `crypto-bigint`: `ConstMontyForm` (the modulus a compile-time
//!   constant, its fastest form for a fixed modulus), for every prime;
//! - `p256`: RustCrypto's P-256 field element (p256 0.14).
//!
//! Two measures of each operation:
//! - throughput, groups `field_mul` and `field_sqr`: one operation on inputs
//!   through `black_box`, so consecutive calls overlap in the CPU;
//! - latency, groups `field_mul_chain` and `field_sqr_chain`: a chain of 100
//!   operations, each result the next input (`x ← x·b`, `x ← x²`), as a
//!   Montgomery ladder or an inversion by Fermat runs them; the figure is
//!   the time of the whole chain, the chain's result checked against
//!   num-bigint before timing. Unsaturated peers relax each result into
//!   the next input, as their own ladders do.
//!
//! Ids are `<group>/<prime>/<peer>`; the groups run in wall time and
//! (x86_64) again in rdtsc cycles (`_cycles`). `python3
//! benches/summarize_field.py` prints the tables, with the ratios and the
//! special-versus-random efficiency table.
//!
//! Run with `cargo bench --bench field` (about 25 minutes); one prime with
//! for example `cargo bench --bench field -- '/c25519/'`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{group_name, to_biguint};
use criterion::measurement::Measurement;
use criterion::{BenchmarkGroup, Criterion};
use crypto_bigint::modular::{ConstMontyForm, ConstMontyParams};
use crypto_bigint::{U128, U256, U384, U448, U512, U576, U2048, const_monty_params};
use fiat_crypto::{
    curve25519_64 as f25519, curve25519_solinas_64 as f25519s, p224_64 as f224, p256_64 as f256,
    p384_64 as f384, p448_solinas_64 as f448, p521_64 as f521,
};
use num_bigint::BigUint;
use numcrypt::field::{self as nf, Backend, Fp};
use p256::elliptic_curve::ff::PrimeField;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

/// Two random residues modulo `p` (fixed seed per prime).
fn operands(p: &BigUint) -> (BigUint, BigUint) {
    let mut rng = ChaCha20Rng::seed_from_u64(0x0066_6965_6c64 ^ p.bits());
    let mut draw = || {
        let mut bytes = vec![0u8; p.bits() as usize / 8 + 16];
        rng.fill_bytes(&mut bytes);
        BigUint::from_bytes_le(&bytes) % p
    };
    (draw(), draw())
}

fn le_bytes(x: &BigUint, n: usize) -> Vec<u8> {
    let mut v = x.to_bytes_le();
    v.resize(n, 0);
    v
}

fn modulus<B: Backend>() -> BigUint {
    to_biguint(B::MODULUS.as_ref())
}

/// 30 samples of about a second each; `FIELD_BENCH_QUICK=1` takes 10 short
/// ones, for choosing representations (not for quoting).
fn configure<M: Measurement>(g: &mut BenchmarkGroup<'_, M>) {
    if std::env::var_os("FIELD_BENCH_QUICK").is_some() {
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(250));
    } else {
        g.sample_size(30)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(1000));
    }
}

/// The operation a group measures: a multiplication or a squaring, either
/// alone (independent operations: throughput) or as a chain of [`CHAIN`]
/// where each waits for the last (latency, as in a Montgomery ladder).
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Mul,
    Sqr,
    MulChain,
    SqrChain,
}

/// Operations in one timed chain; the chain groups report the time of the
/// whole chain (`summarize_field.py` divides).
const CHAIN: usize = 100;

impl Op {
    fn is_mul(self) -> bool {
        matches!(self, Op::Mul | Op::MulChain)
    }

    fn is_chain(self) -> bool {
        matches!(self, Op::MulChain | Op::SqrChain)
    }
}

/// What the timed code gives: one operation, or a whole chain (`a·b^CHAIN`,
/// `a^(2^CHAIN)`).
fn reference(op: Op, a: &BigUint, b: &BigUint, p: &BigUint) -> BigUint {
    let steps = if op.is_chain() { CHAIN } else { 1 };
    if op.is_mul() {
        a * b.modpow(&BigUint::from(steps), p) % p
    } else {
        a.modpow(&(BigUint::from(1u32) << steps), p)
    }
}

/// Times one operation (`Op::Mul`, `Op::Sqr`: `single`, whose operands go
/// through `black_box`, so calls overlap) or a chain of [`CHAIN`] `step`s
/// from `start` (each result the next input; steps read any second operand
/// through `black_box`), after handing what `step` computes (once, or over
/// the chain) to `check`. `single` is not `step` on a copied input: that
/// measured up to a fifth slower for some kernels (`2^521 − 1`, P-256), and
/// the throughput figures stay comparable with earlier runs. Both closures
/// are taken by value into the timed code; through a reference they were
/// not inlined (a quarter slower at `2^255 − 19`).
fn bench_op<T: Copy, R, M: Measurement>(
    g: &mut BenchmarkGroup<'_, M>,
    id: String,
    op: Op,
    start: T,
    step: impl Fn(T) -> T + Copy,
    single: impl Fn() -> R + Copy,
    check: impl Fn(T),
) {
    if op.is_chain() {
        let chain = move |mut x: T| {
            for _ in 0..CHAIN {
                x = step(x);
            }
            x
        };
        check(chain(start));
        g.bench_function(id, |bench| bench.iter(move || chain(*black_box(&start))));
    } else {
        check(step(start));
        g.bench_function(id, |bench| bench.iter(single));
    }
}

/// numcrypt's field `B`, under the peer name `peer`.
fn numcrypt<B: Backend, M: Measurement>(
    g: &mut BenchmarkGroup<'_, M>,
    op: Op,
    prime: &str,
    peer: &str,
) {
    let p = modulus::<B>();
    let (x, y) = operands(&p);
    let n = Fp::<B>::BYTES;
    let a = Fp::<B>::from_le_bytes(&le_bytes(&x, n)).unwrap();
    let b = Fp::<B>::from_le_bytes(&le_bytes(&y, n)).unwrap();
    let expect = reference(op, &x, &y, &p);
    let check = |r: Fp<B>| assert_eq!(to_biguint(r.to_uint().as_ref()), expect, "{peer} {prime}");
    let id = format!("{prime}/{peer}");
    if op.is_mul() {
        let single = || black_box(&a) * black_box(&b);
        bench_op(g, id, op, a, |x| x * *black_box(&b), single, check);
    } else {
        bench_op(
            g,
            id,
            op,
            a,
            |x| x.square(),
            || black_box(&a).square(),
            check,
        );
    }
}

/// crypto-bigint's `ConstMontyForm` for the modulus `P`.
fn crypto_bigint<P: ConstMontyParams<L>, const L: usize, M: Measurement>(
    g: &mut BenchmarkGroup<'_, M>,
    op: Op,
    prime: &str,
) {
    let p = to_biguint(P::PARAMS.modulus().as_ref().as_words());
    let (x, y) = operands(&p);
    let to = |v: &BigUint| {
        let mut w = v.to_u64_digits();
        w.resize(L, 0);
        crypto_bigint::Uint::<L>::from_words(w.try_into().unwrap())
    };
    let a = ConstMontyForm::<P, L>::new(&to(&x));
    let b = ConstMontyForm::<P, L>::new(&to(&y));
    let expect = reference(op, &x, &y, &p);
    let check = |r: ConstMontyForm<P, L>| {
        assert_eq!(
            to_biguint(r.retrieve().as_words()),
            expect,
            "crypto-bigint {prime}"
        )
    };
    let id = format!("{prime}/crypto-bigint");
    if op.is_mul() {
        let single = || black_box(&a).mul(black_box(&b));
        bench_op(g, id, op, a, |x| x.mul(black_box(&b)), single, check);
    } else {
        bench_op(
            g,
            id,
            op,
            a,
            |x| x.square(),
            || black_box(&a).square(),
            check,
        );
    }
}

const_monty_params!(CbM127, U128, "7fffffffffffffffffffffffffffffff");
const_monty_params!(
    CbC25519,
    U256,
    "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed"
);
const_monty_params!(
    CbPm336,
    U384,
    concat!(
        "000000000000ffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "fffffffffffffffffffffffffffffffd",
    )
);
const_monty_params!(
    CbPm384,
    U384,
    concat!(
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "fffffffffffffffffffffffffffffec3",
    )
);
const_monty_params!(
    CbPm414,
    U448,
    concat!(
        "000000003fffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffef",
    )
);
const_monty_params!(
    CbPm448,
    U448,
    concat!(
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffff35",
    )
);
const_monty_params!(
    CbGoldilocks,
    U448,
    concat!(
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffff",
    )
);
const_monty_params!(
    CbPm512,
    U512,
    concat!(
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc7",
    )
);
const_monty_params!(
    CbM521,
    U576,
    concat!(
        "00000000000001ffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffff",
    )
);
const_monty_params!(
    CbP224,
    U256,
    "00000000ffffffffffffffffffffffffffffffff000000000000000000000001"
);
const_monty_params!(
    CbP256,
    U256,
    "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
);
const_monty_params!(
    CbP384,
    U384,
    concat!(
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe",
        "ffffffff0000000000000000ffffffff",
    )
);
const_monty_params!(
    CbR256,
    U256,
    "fcbb6b55b0a147d6143afbfd69e497497347c9c1bee4a689861a974b829dfbe3"
);
const_monty_params!(
    CbR384,
    U384,
    concat!(
        "efad511f3886a069c491bdce246bc5ac7d7b0ba4ee3d58f372b56e0fd0612be7",
        "496c1b6ecdd82170bef45d2d823c2cad",
    )
);
const_monty_params!(
    CbR448,
    U448,
    concat!(
        "fe06626aa56ea1494df373674e0d1c68a3684f879cbd7df8b36fcf3db9c7a39c",
        "49dcc738aec10e08ded498afb245d6ccd0313793e96dbcd5",
    )
);
const_monty_params!(
    CbR512,
    U512,
    concat!(
        "eaf700d81d00dbf3cd1d4655d41b974d087dac55c1b9c0a002bc839daabe8a5e",
        "2ca4fbf1217707a89f5f3345cf7edaeb997d17f14d8eb36940603cf7f37e710d",
    )
);
const_monty_params!(
    CbR521,
    U576,
    concat!(
        "00000000000001c3cf1d4790aedff1b76d0f00173a153218e0d5ad822250c786",
        "8b8dd95cb567b95e4a6444be51d821c2d56d6835ee43da71e6a38a5e92ac22ac",
        "f7a40ecf1b54b717",
    )
);
const_monty_params!(
    CbPm2048,
    U2048,
    concat!(
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff9eb",
    )
);

/// fiat-crypto's unsaturated Solinas code (tight/loose element types):
/// the module's names, and the encoding length.
macro_rules! fiat_unsaturated {
    ($g:expr, $op:expr, $prime:expr, $peer:expr, $p:expr, $m:ident,
     $tight:ident, $loose:ident, $from_bytes:ident, $to_bytes:ident, $relax:ident,
     $carry_mul:ident, $carry_square:ident, $limbs:literal, $bytes:literal) => {{
        use $m::*;
        let p: &BigUint = $p;
        let (x, y) = operands(p);
        let decode = |v: &BigUint| {
            let bytes: [u8; $bytes] = le_bytes(v, $bytes).try_into().unwrap();
            let mut t = $tight([0; $limbs]);
            $from_bytes(&mut t, &bytes);
            let mut l = $loose([0; $limbs]);
            $relax(&mut l, &t);
            l
        };
        let (a, b) = (decode(&x), decode(&y));
        let expect = reference($op, &x, &y, p);
        let check = |r: $tight| {
            let mut out = [0u8; $bytes];
            $to_bytes(&mut out, &r);
            assert_eq!(BigUint::from_bytes_le(&out), expect, "{} {}", $peer, $prime);
        };
        // A chain relaxes each (tight) result into the next (loose) input,
        // as a ladder does; the first input is `a` tightened.
        let mut start = $tight([0; $limbs]);
        $carry_mul(&mut start, &a, &decode(&BigUint::from(1u32)));
        let id = format!("{}/{}", $prime, $peer);
        if $op.is_mul() {
            let single = || {
                let mut r = $tight([0; $limbs]);
                $carry_mul(&mut r, black_box(&a), black_box(&b));
                r
            };
            bench_op(
                $g,
                id,
                $op,
                start,
                |x| {
                    let mut l = $loose([0; $limbs]);
                    $relax(&mut l, &x);
                    let mut r = $tight([0; $limbs]);
                    $carry_mul(&mut r, &l, black_box(&b));
                    r
                },
                single,
                check,
            );
        } else {
            let single = || {
                let mut r = $tight([0; $limbs]);
                $carry_square(&mut r, black_box(&a));
                r
            };
            bench_op(
                $g,
                id,
                $op,
                start,
                |x| {
                    let mut l = $loose([0; $limbs]);
                    $relax(&mut l, &x);
                    let mut r = $tight([0; $limbs]);
                    $carry_square(&mut r, &l);
                    r
                },
                single,
                check,
            );
        }
    }};
}

/// fiat-crypto's Montgomery code (`$m::fiat_<pre>_mul` etc.).
macro_rules! fiat_monty {
    ($g:expr, $op:expr, $prime:expr, $p:expr, $m:ident, $dom:ident, $nondom:ident, $mul:ident, $sqr:ident, $to:ident, $from:ident, $n:literal) => {{
        use $m::*;
        let p: &BigUint = $p;
        let (x, y) = operands(p);
        let enc = |v: &BigUint| {
            let mut w = v.to_u64_digits();
            w.resize($n, 0);
            let mut d = $dom([0; $n]);
            $to(&mut d, &$nondom(w.try_into().unwrap()));
            d
        };
        let (a, b) = (enc(&x), enc(&y));
        let expect = reference($op, &x, &y, p);
        let check = |r: $dom| {
            let mut plain = $nondom([0; $n]);
            $from(&mut plain, &r);
            assert_eq!(to_biguint(&plain.0), expect, "fiat {}", $prime);
        };
        let id = format!("{}/fiat_monty", $prime);
        if $op.is_mul() {
            let single = || {
                let mut r = $dom([0; $n]);
                $mul(&mut r, black_box(&a), black_box(&b));
                r
            };
            bench_op(
                $g,
                id,
                $op,
                a,
                |x| {
                    let mut r = $dom([0; $n]);
                    $mul(&mut r, &x, black_box(&b));
                    r
                },
                single,
                check,
            );
        } else {
            let single = || {
                let mut r = $dom([0; $n]);
                $sqr(&mut r, black_box(&a));
                r
            };
            bench_op(
                $g,
                id,
                $op,
                a,
                |x| {
                    let mut r = $dom([0; $n]);
                    $sqr(&mut r, &x);
                    r
                },
                single,
                check,
            );
        }
    }};
}

/// fiat-crypto's saturated Solinas code for 2^255 − 19 (4×64; its results
/// are congruent, not reduced).
fn fiat_25519_solinas<M: Measurement>(g: &mut BenchmarkGroup<'_, M>, op: Op, p: &BigUint) {
    let (x, y) = operands(p);
    let w = |v: &BigUint| -> [u64; 4] {
        let mut d = v.to_u64_digits();
        d.resize(4, 0);
        d.try_into().unwrap()
    };
    let (a, b) = (w(&x), w(&y));
    let expect = reference(op, &x, &y, p);
    let check = |r: [u64; 4]| assert_eq!(to_biguint(&r) % p, expect, "fiat solinas");
    let id = "c25519/fiat_solinas_4x64".to_string();
    if op.is_mul() {
        let single = || {
            let mut r = [0; 4];
            f25519s::fiat_curve25519_solinas_mul(&mut r, black_box(&a), black_box(&b));
            r
        };
        bench_op(
            g,
            id,
            op,
            a,
            |x| {
                let mut r = [0; 4];
                f25519s::fiat_curve25519_solinas_mul(&mut r, &x, black_box(&b));
                r
            },
            single,
            check,
        );
    } else {
        let single = || {
            let mut r = [0; 4];
            f25519s::fiat_curve25519_solinas_square(&mut r, black_box(&a));
            r
        };
        bench_op(
            g,
            id,
            op,
            a,
            |x| {
                let mut r = [0; 4];
                f25519s::fiat_curve25519_solinas_square(&mut r, &x);
                r
            },
            single,
            check,
        );
    }
}

type P256Fe = <p256::NistP256 as p256::elliptic_curve::hazmat::FieldArithmetic>::FieldElement;

fn rustcrypto_p256<M: Measurement>(g: &mut BenchmarkGroup<'_, M>, op: Op, p: &BigUint) {
    let (x, y) = operands(p);
    let fe = |v: &BigUint| {
        let mut bytes = v.to_bytes_be();
        while bytes.len() < 32 {
            bytes.insert(0, 0);
        }
        let repr: [u8; 32] = bytes.try_into().unwrap();
        P256Fe::from_repr(repr.into()).unwrap()
    };
    let (a, b) = (fe(&x), fe(&y));
    let expect = reference(op, &x, &y, p);
    let check = |r: P256Fe| assert_eq!(BigUint::from_bytes_be(&r.to_repr()), expect, "p256");
    let id = "p256/p256".to_string();
    if op.is_mul() {
        let single = || *black_box(&a) * black_box(&b);
        bench_op(g, id, op, a, |x| x * *black_box(&b), single, check);
    } else {
        bench_op(
            g,
            id,
            op,
            a,
            |x| x.square(),
            || black_box(&a).square(),
            check,
        );
    }
}

type B<T> = <T as Elem>::B;
trait Elem {
    type B: Backend;
}
impl<X: Backend> Elem for Fp<X> {
    type B = X;
}

fn run<M: Measurement>(g: &mut BenchmarkGroup<'_, M>, op: Op) {
    // Pseudo-Mersenne primes.
    numcrypt::<B<nf::Fp127>, M>(g, op, "m127", "numcrypt");
    crypto_bigint::<CbM127, { U128::LIMBS }, M>(g, op, "m127");

    let p = modulus::<B<nf::Fp25519>>();
    numcrypt::<B<nf::Fp25519>, M>(g, op, "c25519", "numcrypt");
    numcrypt::<B<nf::Fp25519Saturated>, M>(g, op, "c25519", "numcrypt_saturated");
    fiat_unsaturated!(
        g,
        op,
        "c25519",
        "fiat_5x51",
        &p,
        f25519,
        fiat_25519_tight_field_element,
        fiat_25519_loose_field_element,
        fiat_25519_from_bytes,
        fiat_25519_to_bytes,
        fiat_25519_relax,
        fiat_25519_carry_mul,
        fiat_25519_carry_square,
        5,
        32
    );
    fiat_25519_solinas(g, op, &p);
    crypto_bigint::<CbC25519, { U256::LIMBS }, M>(g, op, "c25519");

    numcrypt::<B<nf::Fp336>, M>(g, op, "pm336", "numcrypt");
    numcrypt::<B<nf::Fp336Saturated>, M>(g, op, "pm336", "numcrypt_saturated");
    crypto_bigint::<CbPm336, { U384::LIMBS }, M>(g, op, "pm336");

    numcrypt::<B<nf::Fp384>, M>(g, op, "pm384", "numcrypt");
    crypto_bigint::<CbPm384, { U384::LIMBS }, M>(g, op, "pm384");

    numcrypt::<B<nf::Fp414>, M>(g, op, "pm414", "numcrypt");
    // The other representation: which one that is depends on the architecture.
    if numcrypt::limbs::fixed::P414_UNSATURATED {
        numcrypt::<B<nf::Fp414Saturated>, M>(g, op, "pm414", "numcrypt_saturated");
    } else {
        numcrypt::<B<nf::Fp414Unsat>, M>(g, op, "pm414", "numcrypt_unsat");
    }
    crypto_bigint::<CbPm414, { U448::LIMBS }, M>(g, op, "pm414");

    numcrypt::<B<nf::Fp448>, M>(g, op, "pm448", "numcrypt");
    crypto_bigint::<CbPm448, { U448::LIMBS }, M>(g, op, "pm448");

    let p = modulus::<B<nf::FpGoldilocks>>();
    numcrypt::<B<nf::FpGoldilocks>, M>(g, op, "goldilocks", "numcrypt");
    numcrypt::<B<nf::FpGoldilocksMonty>, M>(g, op, "goldilocks", "numcrypt_monty");
    fiat_unsaturated!(
        g,
        op,
        "goldilocks",
        "fiat_8x56",
        &p,
        f448,
        fiat_p448_tight_field_element,
        fiat_p448_loose_field_element,
        fiat_p448_from_bytes,
        fiat_p448_to_bytes,
        fiat_p448_relax,
        fiat_p448_carry_mul,
        fiat_p448_carry_square,
        8,
        56
    );
    crypto_bigint::<CbGoldilocks, { U448::LIMBS }, M>(g, op, "goldilocks");

    numcrypt::<B<nf::Fp512>, M>(g, op, "pm512", "numcrypt");
    crypto_bigint::<CbPm512, { U512::LIMBS }, M>(g, op, "pm512");

    let p = modulus::<B<nf::Fp521>>();
    numcrypt::<B<nf::Fp521>, M>(g, op, "m521", "numcrypt");
    numcrypt::<B<nf::Fp521Saturated>, M>(g, op, "m521", "numcrypt_saturated");
    fiat_unsaturated!(
        g,
        op,
        "m521",
        "fiat_9x58",
        &p,
        f521,
        fiat_p521_tight_field_element,
        fiat_p521_loose_field_element,
        fiat_p521_from_bytes,
        fiat_p521_to_bytes,
        fiat_p521_relax,
        fiat_p521_carry_mul,
        fiat_p521_carry_square,
        9,
        66
    );
    crypto_bigint::<CbM521, { U576::LIMBS }, M>(g, op, "m521");

    numcrypt::<B<nf::Fp2048>, M>(g, op, "pm2048", "numcrypt");
    crypto_bigint::<CbPm2048, { U2048::LIMBS }, M>(g, op, "pm2048");

    // Montgomery: NIST primes.
    let p = modulus::<B<nf::FpP224>>();
    numcrypt::<B<nf::FpP224>, M>(g, op, "p224", "numcrypt");
    fiat_monty!(
        g,
        op,
        "p224",
        &p,
        f224,
        fiat_p224_montgomery_domain_field_element,
        fiat_p224_non_montgomery_domain_field_element,
        fiat_p224_mul,
        fiat_p224_square,
        fiat_p224_to_montgomery,
        fiat_p224_from_montgomery,
        4
    );
    crypto_bigint::<CbP224, { U256::LIMBS }, M>(g, op, "p224");

    let p = modulus::<B<nf::FpP256>>();
    numcrypt::<B<nf::FpP256>, M>(g, op, "p256", "numcrypt");
    fiat_monty!(
        g,
        op,
        "p256",
        &p,
        f256,
        fiat_p256_montgomery_domain_field_element,
        fiat_p256_non_montgomery_domain_field_element,
        fiat_p256_mul,
        fiat_p256_square,
        fiat_p256_to_montgomery,
        fiat_p256_from_montgomery,
        4
    );
    crypto_bigint::<CbP256, { U256::LIMBS }, M>(g, op, "p256");
    rustcrypto_p256(g, op, &p);

    let p = modulus::<B<nf::FpP384>>();
    numcrypt::<B<nf::FpP384>, M>(g, op, "p384", "numcrypt");
    fiat_monty!(
        g,
        op,
        "p384",
        &p,
        f384,
        fiat_p384_montgomery_domain_field_element,
        fiat_p384_non_montgomery_domain_field_element,
        fiat_p384_mul,
        fiat_p384_square,
        fiat_p384_to_montgomery,
        fiat_p384_from_montgomery,
        6
    );
    crypto_bigint::<CbP384, { U384::LIMBS }, M>(g, op, "p384");

    // Montgomery: random primes.
    numcrypt::<B<nf::FpRandom256>, M>(g, op, "r256", "numcrypt");
    crypto_bigint::<CbR256, { U256::LIMBS }, M>(g, op, "r256");
    numcrypt::<B<nf::FpRandom384>, M>(g, op, "r384", "numcrypt");
    crypto_bigint::<CbR384, { U384::LIMBS }, M>(g, op, "r384");
    numcrypt::<B<nf::FpRandom448>, M>(g, op, "r448", "numcrypt");
    crypto_bigint::<CbR448, { U448::LIMBS }, M>(g, op, "r448");
    numcrypt::<B<nf::FpRandom512>, M>(g, op, "r512", "numcrypt");
    crypto_bigint::<CbR512, { U512::LIMBS }, M>(g, op, "r512");
    numcrypt::<B<nf::FpRandom521>, M>(g, op, "r521", "numcrypt");
    crypto_bigint::<CbR521, { U576::LIMBS }, M>(g, op, "r521");
}

fn bench_mul<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("field_mul"));
    configure(&mut g);
    run(&mut g, Op::Mul);
    g.finish();
}

fn bench_sqr<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("field_sqr"));
    configure(&mut g);
    run(&mut g, Op::Sqr);
    g.finish();
}

fn bench_mul_chain<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("field_mul_chain"));
    configure(&mut g);
    run(&mut g, Op::MulChain);
    g.finish();
}

fn bench_sqr_chain<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group(group_name::<M>("field_sqr_chain"));
    configure(&mut g);
    run(&mut g, Op::SqrChain);
    g.finish();
}

common::time_and_cycles_main!(bench_mul, bench_sqr, bench_mul_chain, bench_sqr_chain);
