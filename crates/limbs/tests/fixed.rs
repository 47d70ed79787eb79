//! The fixed-width field kernels (`numcrypt_limbs::fixed`) against
//! num-bigint, on the portable backend and on every assembly backend the CPU
//! has, in the same run: full products and squares, products modulo
//! `2^(64 N) − c`, and Montgomery multiplication, at every size with an
//! unrolled kernel and around them.

use num_bigint::BigUint;
use num_traits::One;
use numcrypt_limbs::fixed::{self, FieldKernels, PM_MAX_C};
use numcrypt_limbs::kernels::{Portable, mont_inverse_limb};
use proptest::prelude::*;

fn big(limbs: &[u64]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

/// Limbs biased towards the carry extremes: all ones, zero, or random.
fn limbs<const N: usize>(raw: &[u64], shape: u8) -> [u64; N] {
    let mut r = [0; N];
    for (i, x) in r.iter_mut().enumerate() {
        *x = match shape % 4 {
            0 => u64::MAX,
            1 => 0,
            2 if i % 2 == 0 => u64::MAX,
            _ => raw[i % raw.len()],
        };
    }
    r
}

fn check_backend<K: FieldKernels, const N: usize>(
    k: K,
    a: &[u64; N],
    b: &[u64; N],
    c: u64,
    m: &[u64; N],
) {
    let (ab, bb) = (big(a), big(b));
    let base = BigUint::one() << (64 * N);
    let (lo, hi) = k.mul_wide(a, b);
    assert_eq!(
        big(&lo) + (big(&hi) << (64 * N)),
        &ab * &bb,
        "mul_wide at {N}"
    );
    let (lo, hi) = k.sqr_wide(a);
    assert_eq!(
        big(&lo) + (big(&hi) << (64 * N)),
        &ab * &ab,
        "sqr_wide at {N}"
    );
    let pm = &base - c;
    let r = k.pm_mul(a, b, c);
    assert_eq!(big(&r) % &pm, &ab * &bb % &pm, "pm_mul at {N}, c = {c}");
    let r = k.pm_sqr(a, c);
    assert_eq!(big(&r) % &pm, &ab * &ab % &pm, "pm_sqr at {N}, c = {c}");
    // Montgomery: operands reduced below the odd modulus.
    let mb = big(m);
    let to = |x: &BigUint| -> [u64; N] {
        let mut v = (x % &mb).to_u64_digits();
        v.resize(N, 0);
        v.try_into().unwrap()
    };
    let (ar, br) = (to(&ab), to(&bb));
    let r = k.monty_mul(&ar, &br, m, mont_inverse_limb(m[0]));
    let r_inv = (&base % &mb).modinv(&mb).unwrap();
    assert_eq!(
        big(&r),
        big(&ar) * big(&br) * &r_inv % &mb,
        "monty_mul at {N}"
    );
    // The square too, at the edges: 0 and m − 1.
    for x in [ar, m.map(|_| 0), to(&(&mb - 1u32))] {
        let r = k.monty_sqr(&x, m, mont_inverse_limb(m[0]));
        assert_eq!(
            big(&r),
            big(&x) * big(&x) * &r_inv % &mb,
            "monty_sqr at {N}"
        );
    }
}

fn check<const N: usize>(raw: &[u64], sa: u8, sb: u8, c: u64, sm: u8) {
    let (a, b) = (limbs::<N>(raw, sa), limbs::<N>(&raw[1..], sb));
    let mut m = limbs::<N>(&raw[2..], sm);
    m[0] |= 1;
    m[N - 1] |= 1 << (sm as u32 % 64); // never zero at the top
    let c = c % PM_MAX_C;
    check_backend(Portable, &a, &b, c, &m);
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = numcrypt_limbs::kernels::Adx::detect() {
        check_backend(adx, &a, &b, c, &m);
        // The assembly and the portable code agree exactly, not just modulo.
        assert_eq!(
            adx.pm_mul(&a, &b, c),
            Portable.pm_mul(&a, &b, c),
            "pm_mul asm at {N}"
        );
        assert_eq!(
            adx.mul_wide(&a, &b),
            Portable.mul_wide(&a, &b),
            "mul_wide asm at {N}"
        );
    }
    #[cfg(target_arch = "aarch64")]
    check_backend(numcrypt_limbs::kernels::Aarch64::new(), &a, &b, c, &m);
    // The dispatching free functions.
    assert_eq!(fixed::pm_mul(&a, &b, c), Portable.pm_mul(&a, &b, c));
    assert_eq!(fixed::mul_wide(&a, &b), Portable.mul_wide(&a, &b));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fixed_kernels(raw in prop::collection::vec(any::<u64>(), 40), sa in any::<u8>(), sb in any::<u8>(), c in any::<u64>(), sc in any::<u8>(), sm in any::<u8>()) {
        // c at its extremes (1, the largest allowed, either side of 2^32,
        // where the kernels switch tails) as well as random.
        let c = match sc % 6 {
            0 => 1,
            1 => PM_MAX_C - 1,
            2 => (c % 1024) | 1,
            3 => (1 << 32) - 1,
            4 => 1 << 32,
            _ => c,
        };
        check::<2>(&raw, sa, sb, c, sm);
        check::<3>(&raw, sa, sb, c, sm);
        check::<4>(&raw, sa, sb, c, sm);
        check::<5>(&raw, sa, sb, c, sm);
        check::<6>(&raw, sa, sb, c, sm);
        check::<7>(&raw, sa, sb, c, sm);
        check::<8>(&raw, sa, sb, c, sm);
        check::<9>(&raw, sa, sb, c, sm);
        check::<10>(&raw, sa, sb, c, sm);
        check::<16>(&raw, sa, sb, c, sm);
        check::<32>(&raw, sa, sb, c, sm);
    }
}

/// `p521_mul` and `p521_sqr` against num-bigint modulo `2^521 − 1`, on
/// every backend; the assembly's bound (below `2^523`) too.
fn check_p521(a: &[u64; 9], b: &[u64; 9]) {
    let p = (BigUint::one() << 521u32) - 1u32;
    let (want, want_sqr) = (big(a) * big(b) % &p, big(a) * big(a) % &p);
    let check = |mul: [u64; 9], sqr: [u64; 9], what: &str| {
        assert_eq!(big(&mul) % &p, want, "p521_mul {what}");
        assert_eq!(big(&sqr) % &p, want_sqr, "p521_sqr {what}");
    };
    check(Portable.p521_mul(a, b), Portable.p521_sqr(a), "portable");
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = numcrypt_limbs::kernels::Adx::detect() {
        let (mul, sqr) = (adx.p521_mul(a, b), adx.p521_sqr(a));
        check(mul, sqr, "asm");
        let bound = BigUint::one() << 523u32;
        assert!(big(&mul) < bound && big(&sqr) < bound, "p521 asm bound");
    }
    #[cfg(target_arch = "aarch64")]
    {
        let k = numcrypt_limbs::kernels::Aarch64::new();
        check(k.p521_mul(a, b), k.p521_sqr(a), "aarch64");
    }
    check(fixed::p521_mul(a, b), fixed::p521_sqr(a), "dispatched");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn p521_kernel(raw in prop::collection::vec(any::<u64>(), 12), sa in any::<u8>(), sb in any::<u8>()) {
        check_p521(&limbs::<9>(&raw, sa), &limbs::<9>(&raw[1..], sb));
    }
}

#[test]
fn p521_kernel_edges() {
    // p itself, p − 1, 2^521, all ones (2^576 − 1), and zero.
    let mut p = [u64::MAX; 9];
    p[8] = 0x1ff;
    let mut p1 = p;
    p1[0] -= 1;
    let mut two521 = [0; 9];
    two521[8] = 0x200;
    let edges = [p, p1, two521, [u64::MAX; 9], [0; 9]];
    for a in &edges {
        for b in &edges {
            check_p521(a, b);
        }
    }
}

/// Nine 58-bit limbs as an integer.
fn radix58(limbs: &[u64; 9]) -> BigUint {
    limbs
        .iter()
        .rev()
        .fold(BigUint::default(), |acc, &l| (acc << 58u32) + l)
}

/// `p521_unsat_mul` and `p521_unsat_sqr` (nine 58-bit limbs, each below
/// `2^60`) against num-bigint modulo `2^521 − 1`, and their results tight:
/// limbs below `2^58`, limb 1 below `2^58 + 2^12`. Where this CPU has no
/// kernel they are `None`, which is all there is to check.
fn check_p521_unsat(a: &[u64; 9], b: &[u64; 9]) {
    let p = (BigUint::one() << 521u32) - 1u32;
    let (mul, sqr) = (fixed::p521_unsat_mul(a, b), fixed::p521_unsat_sqr(a));
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        mul.is_some(),
        numcrypt_limbs::kernels::Adx::detect().is_some(),
        "p521_unsat on x86_64 with BMI2 and ADX"
    );
    let results = [
        (mul, radix58(a) * radix58(b) % &p, "mul"),
        (sqr, radix58(a) * radix58(a) % &p, "sqr"),
    ];
    for (r, want, what) in results {
        let Some(r) = r else { continue };
        assert_eq!(radix58(&r) % &p, want, "p521_unsat {what} {a:x?} {b:x?}");
        for (j, &limb) in r.iter().enumerate() {
            let bound = if j == 1 {
                (1 << 58) + (1 << 12)
            } else {
                1 << 58
            };
            assert!(limb < bound, "p521_unsat {what}: limb {j} not tight");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn p521_unsat_kernel(raw in prop::collection::vec(any::<u64>(), 12), sa in any::<u8>(), sb in any::<u8>()) {
        // Limbs below 2^60, biased to the extremes.
        let loose = |x: [u64; 9]| x.map(|l| l >> 4);
        check_p521_unsat(&loose(limbs::<9>(&raw, sa)), &loose(limbs::<9>(&raw[1..], sb)));
    }
}

#[test]
fn p521_unsat_kernel_edges() {
    // 0, 1, p − 1 (tight limbs), p, 2^521 (in limb 8's bit 57), every limb
    // at 2^58 − 1 (just below 2^522), every limb at the loose bound 2^60 − 1.
    let mut one = [0; 9];
    one[0] = 1;
    let mut p = [(1 << 58) - 1; 9];
    p[8] = (1 << 57) - 1;
    let mut p1 = p;
    p1[0] -= 1;
    let mut two521 = [0; 9];
    two521[8] = 1 << 57;
    let edges = [
        [0; 9],
        one,
        p1,
        p,
        two521,
        [(1 << 58) - 1; 9],
        [(1 << 60) - 1; 9],
    ];
    for a in &edges {
        for b in &edges {
            check_p521_unsat(a, b);
        }
    }
}

/// All-ones operands push both folds to their last carry (the masked `c`),
/// for `c` at each tail's largest value and either side of 2^32.
#[test]
fn pm_kernels_last_carry() {
    fn at<const N: usize>() {
        for c in [3, (1 << 32) - 1, 1 << 32, PM_MAX_C - 1] {
            check::<N>(&[u64::MAX; 3], 0, 0, c, 0);
        }
    }
    at::<4>();
    at::<6>();
    at::<7>();
    at::<8>();
    at::<9>();
}

#[test]
fn reports_backend() {
    #[cfg(target_arch = "x86_64")]
    println!(
        "fixed kernels: assembly path {}",
        if numcrypt_limbs::kernels::Adx::detect().is_some() {
            "tested (BMI2/ADX present; p521_unsat included)"
        } else {
            "NOT tested (no BMI2/ADX)"
        }
    );
}
