//! Batches of exponentiations (`pow_bounded_batch`, `pow_vartime_batch`)
//! on every implementation this CPU has, each named explicitly in the same
//! run (`pow_bounded_batch_on`), against num-bigint, every lane checked:
//! the multi-buffer kernels (eight lanes of AVX-512 IFMA or AVX-512F, four
//! of AVX2, four or eight of the FMA units) where the CPU has them, the pairs of the single kernels, and the limb
//! kernels always. Lanes mix moduli of different bit lengths within one
//! limb count, zero and `m − 1` bases, exponents of all ones, and a
//! lane's result must not depend on what the other lanes hold.

mod common;

use common::{make_odd_modulus, seeded_rng, to_big};
use num_bigint::BigUint;
use num_traits::One;
use numcrypt_limbs::backend::{BATCH, Exponentiation, selection};
use numcrypt_limbs::{BoxedUint, Error, MontyForm, MontyParams, U1024, Unsigned};
use rand_core::Rng;

/// Every implementation there is; each test skips those that cannot run.
const ALL: [Exponentiation; Exponentiation::ALL.len()] = Exponentiation::ALL;
const BATCH_KERNELS: [Exponentiation; 6] = [
    Exponentiation::IfmaBatch,
    Exponentiation::Avx2Batch,
    Exponentiation::Avx512Batch,
    Exponentiation::FmaBatch,
    Exponentiation::Fma512Batch,
    Exponentiation::FmaPair,
];

/// The limb counts of the IFMA batch kernels (RSA-2048, 3072, 4096 and
/// 6144's primes) and one next to them, where a batch runs in pairs.
const WIDTHS: [usize; 5] = [16, 24, 32, 48, 17];

/// One lane: modulus, base and exponent.
struct Lane {
    params: MontyParams<BoxedUint>,
    base: MontyForm<BoxedUint>,
    plain: BoxedUint,
    exp: BoxedUint,
}

impl Lane {
    fn new(m: Vec<u64>, a: BoxedUint, e: BoxedUint) -> Self {
        let params = MontyParams::new(BoxedUint::from_words(m)).unwrap();
        let base = params.to_monty(&a);
        Lane {
            params,
            base,
            plain: a,
            exp: e,
        }
    }

    fn expect(&self, bits: u32) -> BigUint {
        let width = bits.min(64 * self.exp.nlimbs() as u32);
        let low = to_big(self.exp.as_words()) % (BigUint::one() << width);
        let m = to_big(self.params.modulus().as_words());
        to_big(self.plain.as_words()).modpow(&low, &m)
    }
}

/// `count` lanes of `n` limbs: random moduli of bit lengths spread over the
/// width, with the edges mixed in (a modulus of one limb's value, bases 0
/// and `m − 1`, an exponent of all ones).
fn lanes(n: usize, count: usize, seed: u64) -> Vec<Lane> {
    let mut rng = seeded_rng(seed);
    (0..count)
        .map(|k| {
            let mut m: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
            // Bit lengths from 64n down to about half of it.
            let top = n - 1 - (k * 3) % (n / 2);
            m[top + 1..].fill(0);
            m[top] |= 1 << 63;
            if k % 7 == 5 {
                m[1..].fill(0);
            }
            let m = make_odd_modulus(m);
            let modulus = BoxedUint::from_words(m.clone());
            let a = match k % 4 {
                0 => BoxedUint::zero(n),
                1 => modulus.wrapping_sub(&BoxedUint::from_u64(1, n)),
                _ => BoxedUint::from_words((0..n).map(|_| rng.next_u64()).collect()),
            };
            let e = match k % 3 {
                0 => BoxedUint::from_words(vec![u64::MAX; n]),
                _ => BoxedUint::from_words((0..n).map(|_| rng.next_u64()).collect()),
            };
            Lane::new(m, a, e)
        })
        .collect()
}

fn operands(lanes: &[Lane]) -> Vec<(&MontyParams<BoxedUint>, &MontyForm<BoxedUint>, &[u64])> {
    lanes
        .iter()
        .map(|l| (&l.params, &l.base, l.exp.as_ref()))
        .collect()
}

fn check(lanes: &[Lane], out: &[MontyForm<BoxedUint>], bits: u32, what: &str) {
    for (k, (lane, r)) in lanes.iter().zip(out).enumerate() {
        let got = to_big(lane.params.from_monty(r).as_words());
        assert_eq!(got, lane.expect(bits), "{what}, lane {k}");
    }
}

fn zeros(lanes: &[Lane]) -> Vec<MontyForm<BoxedUint>> {
    lanes.iter().map(|l| l.params.zero()).collect()
}

/// Every lane of a full pass (and of a padded one, and of two passes) on
/// every implementation, and the default choice, against num-bigint.
#[test]
fn every_lane_on_every_backend() {
    for n in WIDTHS {
        for (count, bits) in [(8, 64 * n as u32), (3, 64 * n as u32 - 7), (11, 100)] {
            let lanes = lanes(n, count, (n * 100 + count) as u64);
            let ops = operands(&lanes);
            let mut out = zeros(&lanes);
            MontyParams::pow_bounded_batch(&ops, bits, &mut out).unwrap();
            check(
                &lanes,
                &out,
                bits,
                &format!("default, {n} limbs, {count} lanes"),
            );
            for backend in ALL {
                let mut out = zeros(&lanes);
                match MontyParams::pow_bounded_batch_on(backend, &ops, bits, &mut out) {
                    Ok(()) => check(&lanes, &out, bits, &format!("{backend:?}, {n} limbs")),
                    Err(e) => {
                        assert_eq!(e, Error::BackendUnavailable);
                        assert!(!backend.available(n, BATCH), "{backend:?}, {n} limbs");
                    }
                }
            }
        }
    }
}

/// One base, many exponents (`pow_bounded_fixed_base_batch`): 0 to 20 of
/// them (every pass count and tail), at the batch kernels' widths and one
/// beside them, against num-bigint.
#[test]
fn one_base_many_exponents() {
    for n in WIDTHS {
        let lanes = lanes(n, 20, 77 + n as u64);
        // Lane 2's modulus and base (a random base), every lane's exponent.
        let (params, base, plain) = (&lanes[2].params, &lanes[2].base, &lanes[2].plain);
        let m = to_big(params.modulus().as_words());
        let bits = 64 * n as u32 - 3;
        for count in [0, 1, 3, 4, 8, 9, 12, 20] {
            let exps: Vec<&[u64]> = lanes[..count].iter().map(|l| l.exp.as_ref()).collect();
            let out = params.pow_bounded_fixed_base_batch(base, &exps, bits);
            assert_eq!(out.len(), count);
            for (k, (lane, r)) in lanes.iter().zip(&out).enumerate() {
                let low = to_big(lane.exp.as_words()) % (BigUint::one() << bits);
                let expect = to_big(plain.as_words()).modpow(&low, &m);
                let got = to_big(params.from_monty(r).as_words());
                assert_eq!(got, expect, "{n} limbs, {count} exponents, exponent {k}");
            }
        }
    }
}

/// Batches of 1 to 20 with the default choice: every pass count and
/// padding.
#[test]
fn batch_sizes() {
    let all = lanes(16, 20, 7);
    for count in 1..=20 {
        let lanes = &all[..count];
        let ops = operands(lanes);
        let mut out = zeros(lanes);
        MontyParams::pow_bounded_batch(&ops, 130, &mut out).unwrap();
        check(lanes, &out, 130, &format!("batch of {count}"));
    }
}

/// A lane's result is the same whatever the other lanes hold: lane 3 of a
/// pass, among two different sets of neighbours (moduli, bases and
/// exponents all changed), on every batch kernel.
#[test]
fn lanes_are_independent() {
    for n in [16, 24, 32, 48] {
        let first = lanes(n, 8, 1);
        let mut second = lanes(n, 8, 2);
        second[3] = Lane::new(
            first[3].params.modulus().as_words().to_vec(),
            first[3].plain.clone(),
            first[3].exp.clone(),
        );
        for backend in BATCH_KERNELS {
            if !backend.available(n, backend.lanes()) {
                continue;
            }
            let bits = 64 * n as u32;
            let mut a = zeros(&first);
            let mut b = zeros(&second);
            MontyParams::pow_bounded_batch_on(backend, &operands(&first), bits, &mut a).unwrap();
            MontyParams::pow_bounded_batch_on(backend, &operands(&second), bits, &mut b).unwrap();
            assert_eq!(a[3], b[3], "{backend:?}, {n} limbs");
            check(&first, &a, bits, "first set");
            check(&second, &b, bits, "second set");
        }
    }
}

/// The variable-time batch (one public exponent) on the default choice:
/// batches all in pairs, in passes, and in passes with a last one in pairs.
#[test]
fn vartime_batch() {
    for (n, count) in WIDTHS.into_iter().flat_map(|n| [(n, 3), (n, 10), (n, 15)]) {
        let lanes = lanes(n, count, 3);
        let e = BoxedUint::from_u64(65537, 1);
        let ops: Vec<_> = lanes.iter().map(|l| (&l.params, &l.base)).collect();
        let mut out = zeros(&lanes);
        MontyParams::pow_vartime_batch(&ops, &e, &mut out).unwrap();
        for (k, (lane, r)) in lanes.iter().zip(&out).enumerate() {
            let m = to_big(lane.params.modulus().as_words());
            let expect = to_big(lane.plain.as_words()).modpow(&BigUint::from(65537u32), &m);
            assert_eq!(
                to_big(lane.params.from_monty(r).as_words()),
                expect,
                "lane {k}"
            );
        }
    }
}

/// Mixed limb counts run (in pairs where neighbours match), and a length
/// mismatch is an error that writes nothing.
#[test]
fn mixed_widths_and_errors() {
    let mut mixed = lanes(16, 3, 4);
    mixed.extend(lanes(17, 2, 5));
    mixed.extend(lanes(16, 2, 6));
    let ops = operands(&mixed);
    let mut out = zeros(&mixed);
    MontyParams::pow_bounded_batch(&ops, 64 * 16, &mut out).unwrap();
    check(&mixed, &out, 64 * 16, "mixed widths");
    for backend in BATCH_KERNELS {
        let mut out = zeros(&mixed);
        let r = MontyParams::pow_bounded_batch_on(backend, &ops, 64, &mut out);
        assert_eq!(r, Err(Error::BackendUnavailable));
    }
    let mut short = zeros(&mixed[..2]);
    let before = short.clone();
    assert_eq!(
        MontyParams::pow_bounded_batch(&ops, 64, &mut short),
        Err(Error::LengthMismatch)
    );
    assert_eq!(short, before);
    let mut none: Vec<MontyForm<BoxedUint>> = Vec::new();
    MontyParams::pow_bounded_batch(&[], 64, &mut none).unwrap();
}

/// The fixed-width types batch too.
#[test]
fn fixed_width() {
    let m: U1024 = U1024::MAX.wrapping_sub(&U1024::from_u64(188)); // odd
    let params = MontyParams::new(m).unwrap();
    let bases: Vec<_> = (2..10)
        .map(|b| params.to_monty(&U1024::from_u64(b)))
        .collect();
    let e = U1024::MAX.shr_vartime(3);
    let ops: Vec<_> = bases.iter().map(|b| (&params, b, e.as_ref())).collect();
    let mut out = vec![params.zero(); 8];
    MontyParams::pow_bounded_batch(&ops, 1024, &mut out).unwrap();
    for (b, r) in (2u32..10).zip(&out) {
        let expect = BigUint::from(b).modpow(&to_big(e.as_ref()), &to_big(m.as_ref()));
        assert_eq!(to_big(params.from_monty(r).as_ref()), expect);
    }
}

/// Which batch implementation this CPU runs (printed), and the sizes the
/// documentation states.
#[test]
fn batch_backends_present() {
    let selection = selection();
    eprintln!("{selection}");
    for n in WIDTHS {
        eprintln!(
            "batch of {n}-limb moduli: {:?}",
            selection.batch_exponentiation(n)
        );
    }
    for backend in BATCH_KERNELS {
        if backend.available(16, backend.lanes()) {
            assert!(
                [24, 32]
                    .iter()
                    .all(|&n| backend.available(n, backend.lanes()))
            );
            assert!(!backend.available(17, backend.lanes()));
            assert!(!backend.available(16, 1));
        }
    }
    // The FMA kernels' self-test of MXCSR's rounding passes on a real CPU
    // with AVX2 and FMA (it fails under valgrind, which ignores the mode).
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::env::var_os("NUMCRYPT_DISABLE").is_none()
    {
        assert!(Exponentiation::FmaBatch.available(16, 4));
        assert!(Exponentiation::FmaPair.available(16, 2));
        if std::arch::is_x86_feature_detected!("avx512f") {
            assert!(Exponentiation::Fma512Batch.available(16, 8));
        }
    }
    assert_eq!(Exponentiation::IfmaBatch.lanes(), 8);
    assert_eq!(Exponentiation::Avx2Batch.lanes(), 4);
    assert_eq!(Exponentiation::Avx512Batch.lanes(), 8);
    assert_eq!(Exponentiation::FmaBatch.lanes(), 4);
    assert_eq!(Exponentiation::Fma512Batch.lanes(), 8);
    assert_eq!(Exponentiation::FmaPair.lanes(), 2);
}
