//! Exponentiation on every implementation this CPU has, against
//! num-bigint: both AVX-512 IFMA variants (radix 2^52, 256- and 512-bit
//! registers) where the CPU has IFMA, AVX2 (radix 2^28) where it has AVX2,
//! NEON (radix 2^28) on aarch64, and the limb kernels always, each named explicitly in the same run
//! (`pow_bounded_on`), at every width the vector backends take and just
//! outside them.

mod common;

use common::{limbs_strategy, make_odd_modulus, to_big};
use num_bigint::BigUint;
use num_traits::One;
use numcrypt_limbs::backend::Exponentiation;
use numcrypt_limbs::{BoxedUint, MontyParams, U1024, U2048, Unsigned};

/// Every implementation there is; each test skips those that cannot run.
const ALL: [Exponentiation; Exponentiation::ALL.len()] = Exponentiation::ALL;
use proptest::prelude::*;

/// Widths (limbs) around every size class of the vector backends: their
/// lower bound, digit counts on both sides of a vector boundary, the RSA
/// sizes, one width for each of the 256-bit IFMA kernels' dedicated squares
/// (pairs of 5 to 12 vectors: 16, 17, 20, 24, 25, 28, 32, 33 and 37 limbs;
/// lone operands of 9 to 16: 28, 32, 33, 37, 40, 45, 48 and 50) and of
/// the 512-bit ones (every vector count, 3 to 16; 72 and 88 limbs for 12
/// and 14), their upper bounds (AVX2 and AVX-512F 45, AVX-512F pairs 41,
/// NEON 64, IFMA 103) and the first widths past them.
#[cfg(not(target_arch = "aarch64"))]
const WIDTHS: &[usize] = &[
    15, 16, 17, 19, 20, 24, 25, 28, 31, 32, 33, 37, 39, 40, 41, 42, 45, 46, 48, 50, 56, 63, 64, 65,
    72, 80, 88, 96, 103, 104,
];
/// On aarch64 (run under qemu, where every case costs a hundred times
/// more), the widths around NEON's size classes only: beyond 65 limbs only
/// the limb kernels run, the same code at any width.
#[cfg(target_arch = "aarch64")]
const WIDTHS: &[usize] = &[
    15, 16, 17, 19, 20, 24, 25, 31, 32, 33, 39, 40, 45, 46, 48, 56, 63, 64, 65,
];

fn big(x: &BoxedUint) -> BigUint {
    to_big(x.as_words())
}

/// `(modulus, base, exponent, exponent bits)` at one of [`WIDTHS`].
fn case() -> impl Strategy<Value = (Vec<u64>, Vec<u64>, Vec<u64>, u32)> {
    prop::sample::select(WIDTHS).prop_flat_map(|n| {
        (
            limbs_strategy(n).prop_map(make_odd_modulus),
            limbs_strategy(n),
            prop::collection::vec(any::<u64>(), 1..=n),
            0u32..=(64 * n as u32 + 8),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_backend_matches_num_bigint((m, a, e, bits) in case()) {
        let n = m.len();
        let m = BoxedUint::from_words(m);
        let a = BoxedUint::from_words(a);
        let e = BoxedUint::from_words(e);
        let bm = big(&m);
        let params = MontyParams::new(m).unwrap();
        let base = params.to_monty(&a);
        let width = bits.min(e.nlimbs() as u32 * 64);
        let low = big(&e) % (BigUint::one() << width);
        let expect = big(&a).modpow(&low, &bm);

        let default = params.from_monty(&params.pow_bounded(&base, &e, bits));
        prop_assert_eq!(big(&default), expect.clone(), "default backend, {} limbs", n);
        for backend in ALL {
            if let Some(r) = params.pow_bounded_on(backend, &base, &e, bits) {
                prop_assert_eq!(big(&params.from_monty(&r)), expect.clone(), "{:?}, {} limbs", backend, n);
            }
        }
        let full = big(&a).modpow(&big(&e), &bm);
        prop_assert_eq!(big(&params.from_monty(&params.pow_vartime(&base, &e))), full);
    }
}

/// Two moduli of one width (or, to take the fallback, of two widths) with
/// their bases and exponents.
fn pair_case() -> impl Strategy<Value = [(Vec<u64>, Vec<u64>, Vec<u64>); 2]> {
    (prop::sample::select(WIDTHS), any::<bool>()).prop_flat_map(|(n, same)| {
        let other = if same { n } else { n + 1 };
        // Exponents of different lengths, so that neither's width bounds
        // the other's.
        let one = |n: usize| {
            (
                limbs_strategy(n).prop_map(make_odd_modulus),
                limbs_strategy(n),
                prop::collection::vec(any::<u64>(), 1..=n),
            )
        };
        [one(n), one(other)]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// `pow_bounded_pair` (interleaved on the IFMA backend where the widths
    /// match and it takes them) gives both powers.
    #[test]
    fn pair_matches_num_bigint(case in pair_case(), bits_below in 0u32..70) {
        let [(m0, a0, e0), (m1, a1, e1)] = case;
        let n = m0.len();
        let bits = (64 * n as u32).saturating_sub(bits_below);
        let expect = |m: &[u64], a: &[u64], e: &[u64]| {
            let low = to_big(e) % (BigUint::one() << bits.min(64 * e.len() as u32));
            to_big(a).modpow(&low, &to_big(m))
        };
        let (x0, x1) = (expect(&m0, &a0, &e0), expect(&m1, &a1, &e1));
        let p0 = MontyParams::new(BoxedUint::from_words(m0)).unwrap();
        let p1 = MontyParams::new(BoxedUint::from_words(m1)).unwrap();
        let b0 = p0.to_monty(&BoxedUint::from_words(a0));
        let b1 = p1.to_monty(&BoxedUint::from_words(a1));
        let (e0, e1) = (BoxedUint::from_words(e0), BoxedUint::from_words(e1));
        let pair = [(&p0, &b0, e0.as_ref()), (&p1, &b1, e1.as_ref())];
        let [r0, r1] = MontyParams::pow_bounded_pair(pair, bits);
        prop_assert_eq!(big(&p0.from_monty(&r0)), x0.clone(), "first of a pair, {} limbs", n);
        prop_assert_eq!(big(&p1.from_monty(&r1)), x1.clone(), "second of a pair, {} limbs", n);
        for backend in ALL {
            if let Some([r0, r1]) = MontyParams::pow_bounded_pair_on(backend, pair, bits) {
                prop_assert_eq!(big(&p0.from_monty(&r0)), x0.clone(), "{:?}, first, {} limbs", backend, n);
                prop_assert_eq!(big(&p1.from_monty(&r1)), x1.clone(), "{:?}, second, {} limbs", backend, n);
            }
        }
    }
}

/// Values at the edges of the AMM bounds: the largest modulus of each width
/// (so that `2m` nearly fills the digits), bases `m − 1` and all ones (not
/// reduced), an exponent of all ones, and a modulus whose high limbs are
/// zero. Every other width, from the first.
#[test]
fn extremes_even_positions() {
    extremes(WIDTHS.iter().step_by(2));
}

/// The same at the widths between them: two tests, so that two test threads
/// share the widths (one test was this file's long pole, under qemu most
/// of all).
#[test]
fn extremes_odd_positions() {
    extremes(WIDTHS.iter().skip(1).step_by(2));
}

fn extremes<'a>(widths: impl Iterator<Item = &'a usize>) {
    for &n in widths {
        let max = vec![u64::MAX; n];
        // Four limbs of ones: every window is the table's last entry, and
        // every product is at the bounds' edge, as with a full-width
        // exponent (whose length, up to the width, only multiplied the
        // test's time; the proptests above take exponents of every length).
        let ones = vec![u64::MAX; n.min(4)];
        let mut small = vec![0; n];
        small[0] = 0xffff_ffff_ffff_ffc5; // 2^64 - 59, prime
        let mut top_only = vec![0; n];
        top_only[0] = 1;
        top_only[n - 1] = 1 << 63;
        for m in [max.clone(), small, top_only] {
            let m = BoxedUint::from_words(m);
            let bm = big(&m);
            let params = MontyParams::new(m.clone()).unwrap();
            let m_minus_1 = m.wrapping_sub(&BoxedUint::from_u64(1, n));
            for a in [
                m_minus_1,
                BoxedUint::from_words(max.clone()),
                BoxedUint::zero(n),
                BoxedUint::from_u64(1, n),
            ] {
                let base = params.to_monty(&a);
                for e in [
                    BoxedUint::from_words(ones.clone()),
                    BoxedUint::from_u64(1, 1),
                    BoxedUint::from_u64(2, 1),
                    BoxedUint::from_u64(3, 1),
                    BoxedUint::from_u64(65537, 1),
                ] {
                    let expect = big(&a).modpow(&big(&e), &bm);
                    assert_eq!(
                        big(&params.from_monty(&params.pow(&base, &e))),
                        expect,
                        "{n} limbs"
                    );
                    let bits = e.nlimbs() as u32 * 64;
                    for backend in ALL {
                        if let Some(r) = params.pow_bounded_on(backend, &base, &e, bits) {
                            let got = big(&params.from_monty(&r));
                            assert_eq!(got, expect, "{n} limbs, {backend:?}");
                        }
                        if let Some(r) = params.pow_on_vartime(backend, &base, &e) {
                            let got = big(&params.from_monty(&r));
                            assert_eq!(got, expect, "{n} limbs, vartime, {backend:?}");
                        }
                        let operand = (&params, &base, e.as_ref());
                        let pair = MontyParams::pow_bounded_pair_on(backend, [operand; 2], bits);
                        if let Some([r0, r1]) = pair {
                            let got = [r0, r1].map(|r| big(&params.from_monty(&r)));
                            assert_eq!(
                                got,
                                [expect.clone(), expect.clone()],
                                "{n} limbs, pair, {backend:?}"
                            );
                        }
                    }
                    assert_eq!(
                        big(&params.from_monty(&params.pow_vartime(&base, &e))),
                        expect
                    );
                }
            }
        }
    }
}

/// The fixed-width types reach the same backends.
#[test]
fn fixed_width() {
    let m: U1024 = U1024::MAX.wrapping_sub(&U1024::from_u64(188)); // odd
    let params = MontyParams::new(m).unwrap();
    let e = U1024::MAX.shr_vartime(3);
    let base = params.to_monty(&U1024::from_u64(7));
    let expect = BigUint::from(7u32).modpow(&to_big(e.as_ref()), &to_big(m.as_ref()));
    assert_eq!(
        to_big(params.from_monty(&params.pow(&base, &e)).as_ref()),
        expect
    );

    let m: U2048 = U2048::MAX.shr_vartime(1);
    let params = MontyParams::new(m).unwrap();
    let base = params.to_monty(&U2048::from_u64(3));
    let e = m.wrapping_sub(&U2048::ONE);
    let expect = BigUint::from(3u32).modpow(&to_big(e.as_ref()), &to_big(m.as_ref()));
    assert_eq!(
        to_big(params.from_monty(&params.pow(&base, &e)).as_ref()),
        expect
    );
}

/// Which implementation takes which widths on this CPU (printed), and the
/// bounds the documentation states.
#[test]
fn backends_present() {
    let selection = numcrypt_limbs::backend::selection();
    eprintln!("{selection}");
    // CI names the choice it expects where it controls the CPU model
    // (`.ci/aarch64-qemu`).
    if let Ok(expect) = std::env::var("NUMCRYPT_EXPECT_EXPONENTIATION") {
        assert_eq!(format!("{:?}", selection.exponentiation(16, 2)), expect);
    }
    for backend in ALL {
        for interleave in [1, 2] {
            let sizes: Vec<_> = WIDTHS
                .iter()
                .filter(|&&n| backend.available(n, interleave))
                .collect();
            eprintln!("{backend:?} x{interleave}: {sizes:?} limbs");
        }
    }
    assert!(Exponentiation::LimbKernels.available(1, 2));
    let ifma512 = Exponentiation::Ifma512;
    if ifma512.available(16, 1) {
        assert!(!ifma512.available(15, 1) && !ifma512.available(104, 1));
        assert!(ifma512.available(103, 1) && ifma512.available(51, 2));
        assert!(!ifma512.available(52, 2));
    }
    let avx2 = Exponentiation::Avx2;
    if avx2.available(16, 1) {
        assert!(!avx2.available(15, 1) && !avx2.available(46, 1));
        assert!(avx2.available(45, 1) && avx2.available(45, 2));
    }
    let avx512 = Exponentiation::Avx512;
    if avx512.available(16, 1) {
        assert!(!avx512.available(15, 1) && !avx512.available(46, 1));
        assert!(avx512.available(45, 1) && avx512.available(41, 2));
        assert!(!avx512.available(42, 2));
    }
    let neon = Exponentiation::Neon;
    let neon_off = std::env::var("NUMCRYPT_DISABLE").is_ok_and(|v| v.contains("neon"));
    assert_eq!(
        neon.available(16, 1),
        cfg!(target_arch = "aarch64") && !neon_off
    );
    if neon.available(16, 1) {
        assert!(!neon.available(15, 1) && !neon.available(65, 1));
        assert!(neon.available(64, 1) && neon.available(64, 2));
    }
    let ifma256 = Exponentiation::Ifma256;
    if ifma256.available(16, 1) {
        // RSA-2048, 3072 and 4096's primes, interleaved.
        assert!([16, 24, 32].iter().all(|&n| ifma256.available(n, 2)));
        assert!(!ifma256.available(15, 1));
    }
}
