//! The slice kernels against num-bigint, at every length from 1 to 70 limbs,
//! on every backend: the portable one always, and each assembly backend the
//! CPU supports, forced explicitly rather than left to run-time detection.

mod common;

use common::{limbs_strategy, make_odd_modulus, to_big};
use num_bigint::BigUint;
use num_traits::One;
use numcrypt_limbs::kernels::{self, Kernels, MontModulus, Portable};
use proptest::prelude::*;

fn pair(max: usize) -> impl Strategy<Value = (Vec<u64>, Vec<u64>)> {
    (1..=max).prop_flat_map(|n| (limbs_strategy(n), limbs_strategy(n)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn add_sub((a, b) in pair(70)) {
        let n = a.len();
        let base = BigUint::one() << (64 * n);
        let mut r = vec![0; n];
        let carry = kernels::add_n(&mut r, &a, &b);
        prop_assert_eq!(to_big(&r) + (BigUint::from(carry) << (64 * n)), to_big(&a) + to_big(&b));
        let borrow = kernels::sub_n(&mut r, &a, &b);
        prop_assert_eq!(borrow == 1, to_big(&a) < to_big(&b));
        prop_assert_eq!(to_big(&r), (to_big(&a) + &base - to_big(&b)) % &base);
        let mut r = a.clone();
        prop_assert_eq!(kernels::cnd_add_assign(&mut r, &b, 0), 0);
        prop_assert_eq!(&r, &a);
        kernels::cnd_sub_assign(&mut r, &b, u64::MAX);
        prop_assert_eq!(to_big(&r), (to_big(&a) + &base - to_big(&b)) % &base);
    }

    #[test]
    fn rows((a, r0) in pair(70), b in any::<u64>()) {
        for_each_backend(|k| check_rows(k, &a, &r0, b))?;
    }

    #[test]
    fn mul_and_sqr(a in (1usize..=70).prop_flat_map(limbs_strategy), b in (1usize..=40).prop_flat_map(limbs_strategy)) {
        for_each_backend(|k| check_mul_sqr(k, &a, &b))?;
    }

    #[test]
    fn montgomery((a, b) in pair(70), m in (1usize..=70).prop_flat_map(limbs_strategy)) {
        for_each_backend(|k| check_montgomery(k, &a, &b, &m))?;
    }

    #[test]
    fn submul((a, r0) in pair(70), b in any::<u64>()) {
        let n = a.len();
        let mut r = r0.clone();
        let borrow = kernels::submul_1(&mut r, &a, b);
        // r0 - a*b = r - borrow * 2^(64n)
        prop_assert_eq!(to_big(&r) + to_big(&a) * b, to_big(&r0) + (BigUint::from(borrow) << (64 * n)));
    }
}

type Check = Result<(), TestCaseError>;

/// Runs `check` on the portable backend and on every assembly backend this
/// CPU supports (on aarch64, always the `Aarch64` one).
fn for_each_backend(check: impl Fn(&dyn Backend) -> Check) -> Check {
    check(&Portable)?;
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = kernels::Adx::detect() {
        check(&adx)?;
    }
    #[cfg(target_arch = "aarch64")]
    check(&kernels::Aarch64::new())?;
    Ok(())
}

/// An object-safe view of [`Kernels`], so one check serves every backend.
trait Backend {
    fn name(&self) -> &'static str;
    fn mul_1(&self, r: &mut [u64], a: &[u64], b: u64) -> u64;
    fn addmul_1(&self, r: &mut [u64], a: &[u64], b: u64) -> u64;
    fn mul(&self, r: &mut [u64], a: &[u64], b: &[u64]);
    fn sqr(&self, r: &mut [u64], a: &[u64]);
    fn mont_mul(&self, r: &mut [u64], a: &[u64], b: &[u64], m: MontModulus, s: &mut [u64]);
    fn mont_sqr(&self, r: &mut [u64], a: &[u64], m: MontModulus, s: &mut [u64]);
    fn mont_redc(&self, r: &mut [u64], t: &mut [u64], m: MontModulus);
    fn mont_redc_almost(&self, r: &mut [u64], t: &mut [u64], m: MontModulus);
    fn mont_mul_almost(&self, r: &mut [u64], a: &[u64], b: &[u64], m: MontModulus, s: &mut [u64]);
    fn mont_sqr_almost(&self, r: &mut [u64], a: &[u64], m: MontModulus, s: &mut [u64]);
    fn lookup(&self, out: &mut [u64], table: &[u64], index: u64);
}

impl<K: Kernels> Backend for K {
    fn name(&self) -> &'static str {
        std::any::type_name::<K>()
    }
    fn mul_1(&self, r: &mut [u64], a: &[u64], b: u64) -> u64 {
        Kernels::mul_1(*self, r, a, b)
    }
    fn addmul_1(&self, r: &mut [u64], a: &[u64], b: u64) -> u64 {
        Kernels::addmul_1(*self, r, a, b)
    }
    fn mul(&self, r: &mut [u64], a: &[u64], b: &[u64]) {
        Kernels::mul(*self, r, a, b)
    }
    fn sqr(&self, r: &mut [u64], a: &[u64]) {
        Kernels::sqr(*self, r, a)
    }
    fn mont_mul(&self, r: &mut [u64], a: &[u64], b: &[u64], m: MontModulus, s: &mut [u64]) {
        Kernels::mont_mul(*self, r, a, b, m, s)
    }
    fn mont_sqr(&self, r: &mut [u64], a: &[u64], m: MontModulus, s: &mut [u64]) {
        Kernels::mont_sqr(*self, r, a, m, s)
    }
    fn mont_redc(&self, r: &mut [u64], t: &mut [u64], m: MontModulus) {
        Kernels::mont_redc(*self, r, t, m)
    }
    fn mont_redc_almost(&self, r: &mut [u64], t: &mut [u64], m: MontModulus) {
        Kernels::mont_redc_almost(*self, r, t, m)
    }
    fn mont_mul_almost(&self, r: &mut [u64], a: &[u64], b: &[u64], m: MontModulus, s: &mut [u64]) {
        Kernels::mont_mul_almost(*self, r, a, b, m, s)
    }
    fn mont_sqr_almost(&self, r: &mut [u64], a: &[u64], m: MontModulus, s: &mut [u64]) {
        Kernels::mont_sqr_almost(*self, r, a, m, s)
    }
    fn lookup(&self, out: &mut [u64], table: &[u64], index: u64) {
        Kernels::lookup(*self, out, table, index)
    }
}

fn check_rows(k: &dyn Backend, a: &[u64], r0: &[u64], b: u64) -> Check {
    let n = a.len();
    let name = k.name();
    let mut r = vec![0; n];
    let hi = k.mul_1(&mut r, a, b);
    prop_assert_eq!(
        to_big(&r) + (BigUint::from(hi) << (64 * n)),
        to_big(a) * b,
        "{} mul_1",
        name
    );
    let mut r = r0.to_vec();
    let hi = k.addmul_1(&mut r, a, b);
    prop_assert_eq!(
        to_big(&r) + (BigUint::from(hi) << (64 * n)),
        to_big(r0) + to_big(a) * b,
        "{} addmul_1",
        name
    );
    Ok(())
}

fn check_mul_sqr(k: &dyn Backend, a: &[u64], b: &[u64]) -> Check {
    let mut r = vec![0; a.len() + b.len()];
    k.mul(&mut r, a, b);
    prop_assert_eq!(to_big(&r), to_big(a) * to_big(b), "{} mul", k.name());
    let mut s = vec![u64::MAX; 2 * a.len()]; // garbage in the output must not matter
    k.sqr(&mut s, a);
    prop_assert_eq!(to_big(&s), to_big(a) * to_big(a), "{} sqr", k.name());
    Ok(())
}

/// Whether `r` is congruent to `t·R⁻¹` modulo `m` (R = 2^(64·n)), checked
/// as `r·R ≡ t`: a shift where `R⁻¹` from num-bigint's `modinv` cost most of
/// this file's time (minutes under qemu). `m` is odd, so the two agree.
fn congruent_to_t_over_r(r: &BigUint, t: &BigUint, m: &BigUint, n: usize) -> bool {
    (r << (64 * n)) % m == t % m
}

/// `r` is the reduced `t·R⁻¹ mod m`: below `m` and congruent.
fn is_reduced_t_over_r(r: &BigUint, t: &BigUint, m: &BigUint, n: usize) -> bool {
    r < m && congruent_to_t_over_r(r, t, m, n)
}

fn check_montgomery(k: &dyn Backend, a: &[u64], b_any: &[u64], m: &[u64]) -> Check {
    let n = a.len();
    let mut m = m.to_vec();
    m.resize(n, u64::MAX);
    let m = make_odd_modulus(m);
    let bm = to_big(&m);
    let mm = MontModulus::new(&m).unwrap();
    prop_assert_eq!(mm.m_inv().wrapping_mul(m[0]), u64::MAX); // -1 mod 2^64
    // b reduced below m, as the contract requires; a may be anything below R.
    let rb = to_big(b_any) % &bm;
    let b = common::from_big_limbs(&rb, n);
    let mut r = vec![0; n];
    let mut scratch = vec![0; 2 * n];
    k.mont_mul(&mut r, a, &b, mm, &mut scratch);
    prop_assert!(
        is_reduced_t_over_r(&to_big(&r), &(to_big(a) * &rb), &bm, n),
        "{} mont_mul gave {:x}",
        k.name(),
        to_big(&r)
    );
    k.mont_sqr(&mut r, &b, mm, &mut scratch);
    prop_assert!(
        is_reduced_t_over_r(&to_big(&r), &(&rb * &rb), &bm, n),
        "{} mont_sqr gave {:x}",
        k.name(),
        to_big(&r)
    );
    // REDC of any t below m·R.
    let t = to_big(a) * &rb;
    let mut wide = common::from_big_limbs(&t, 2 * n);
    k.mont_redc(&mut r, &mut wide, mm);
    prop_assert!(
        is_reduced_t_over_r(&to_big(&r), &t, &bm, n),
        "{} mont_redc gave {:x}",
        k.name(),
        to_big(&r)
    );
    // Almost REDC of any t below R²: here a², a not reduced.
    check_redc_almost(k, &(to_big(a) * to_big(a)), &m)?;
    check_almost_mul_sqr(k, a, b_any, &m)
}

/// The almost Montgomery multiplication and square of `a` and `b`, any
/// values below `R`: congruent to `a·b·R⁻¹` and `a²·R⁻¹` (and below `R`,
/// which their `n` limbs hold), the scratch and output filled with garbage
/// first, against num-bigint.
fn check_almost_mul_sqr(k: &dyn Backend, a: &[u64], b: &[u64], m: &[u64]) -> Check {
    let n = m.len();
    let (ba, bm) = (to_big(a), to_big(m));
    let mm = MontModulus::new(m).unwrap();
    let mut r = vec![u64::MAX; n];
    let mut scratch = vec![u64::MAX; 2 * n];
    k.mont_mul_almost(&mut r, a, b, mm, &mut scratch);
    prop_assert!(
        congruent_to_t_over_r(&to_big(&r), &(&ba * to_big(b)), &bm, n),
        "{} mont_mul_almost gave {:x}",
        k.name(),
        to_big(&r)
    );
    r.fill(u64::MAX);
    scratch.fill(u64::MAX);
    k.mont_sqr_almost(&mut r, a, mm, &mut scratch);
    prop_assert!(
        congruent_to_t_over_r(&to_big(&r), &(&ba * &ba), &bm, n),
        "{} mont_sqr_almost gave {:x}",
        k.name(),
        to_big(&r)
    );
    Ok(())
}

/// Almost REDC of `t` (below `R²`): congruent to `t·R⁻¹` and below `R`,
/// against num-bigint.
fn check_redc_almost(k: &dyn Backend, t: &BigUint, m: &[u64]) -> Check {
    let n = m.len();
    let mut wide = common::from_big_limbs(t, 2 * n);
    let mut r = vec![u64::MAX; n];
    k.mont_redc_almost(&mut r, &mut wide, MontModulus::new(m).unwrap());
    prop_assert!(
        congruent_to_t_over_r(&to_big(&r), t, &to_big(m), n),
        "{} mont_redc_almost of {:x} gave {:x}",
        k.name(),
        t,
        to_big(&r)
    );
    Ok(())
}

/// REDC of `t = 0`, `t = m·R − 1` (the largest its contract allows: every
/// carry of the reduction at its largest) and `t = m·(R − 1)`, against
/// num-bigint.
fn check_redc_extremes(k: &dyn Backend, m: &[u64]) -> Check {
    let n = m.len();
    let m = make_odd_modulus(m.to_vec());
    let bm = to_big(&m);
    let mm = MontModulus::new(&m).unwrap();
    let big_r = BigUint::one() << (64 * n);
    for t in [BigUint::ZERO, &bm * &big_r - 1u32, &bm * (&big_r - 1u32)] {
        let mut wide = common::from_big_limbs(&t, 2 * n);
        let mut r = vec![u64::MAX; n];
        k.mont_redc(&mut r, &mut wide, mm);
        prop_assert!(
            is_reduced_t_over_r(&to_big(&r), &t, &bm, n),
            "{} mont_redc of {:x} gave {:x}",
            k.name(),
            t,
            to_big(&r)
        );
    }
    // The almost reduction's contract ends at R² − 1; (R − 1)² and
    // (R − 1)·m carry out of the top where m is close to R.
    for t in [
        BigUint::ZERO,
        &big_r * &big_r - 1u32,
        (&big_r - 1u32) * (&big_r - 1u32),
        (&big_r - 1u32) * &bm,
    ] {
        check_redc_almost(k, &t, &m)?;
    }
    let all_ones = vec![u64::MAX; n];
    check_almost_mul_sqr(k, &all_ones, &all_ones, &m)
}

#[test]
fn backends_present() {
    // Say which paths this run covered.
    #[cfg(target_arch = "x86_64")]
    eprintln!(
        "x86_64 BMI2+ADX backend: {}",
        if kernels::Adx::detect().is_some() {
            "tested"
        } else {
            "absent on this CPU"
        }
    );
    #[cfg(target_arch = "aarch64")]
    eprintln!("aarch64 mul/umulh backend: tested");
    let mut r = [0u64; 2];
    kernels::mul(&mut r, &[u64::MAX], &[u64::MAX]);
    assert_eq!(r, [1, u64::MAX - 1]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    /// Karatsuba: equal lengths from below its threshold to beyond its
    /// largest size, odd and even, including all-ones operands.
    #[test]
    fn karatsuba_products(
        (a, b) in (kernels::KARATSUBA_MIN_LIMBS - 2..=kernels::KARATSUBA_MAX_LIMBS + 2)
            .prop_flat_map(|n| (limbs_strategy(n), limbs_strategy(n)))
    ) {
        for_each_backend(|k| {
            let mut r = vec![u64::MAX; 2 * a.len()]; // garbage in the output must not matter
            k.mul(&mut r, &a, &b);
            prop_assert_eq!(to_big(&r), to_big(&a) * to_big(&b), "{} mul", k.name());
            k.sqr(&mut r, &a);
            prop_assert_eq!(to_big(&r), to_big(&a) * to_big(&a), "{} sqr", k.name());
            Ok(())
        })?;
    }

    /// The unrolled fixed-size Montgomery kernels (4, 6, 7, 8 and 9 limbs),
    /// hit hard at their widths.
    #[test]
    fn montgomery_unrolled_sizes(
        (a, b, m) in prop::sample::select(vec![4usize, 6, 7, 8, 9])
            .prop_flat_map(|n| (limbs_strategy(n), limbs_strategy(n), limbs_strategy(n)))
    ) {
        for_each_backend(|k| check_montgomery(k, &a, &b, &m))?;
    }

    /// The window lookup picks exactly the entry asked for, at every entry
    /// length (the vector code works in chunks of up to 32 limbs and a
    /// scalar tail) and table size the exponentiations use.
    #[test]
    fn lookup_picks_the_entry(
        n in 1usize..=70,
        entries in prop::sample::select(vec![1usize, 2, 4, 8, 16, 32, 64]),
        seed in any::<u64>(),
        pick in any::<prop::sample::Index>(),
    ) {
        let mut x = seed | 1;
        let table: Vec<u64> = (0..n * entries)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        let index = pick.index(entries);
        for_each_backend(|k| {
            let mut out = vec![u64::MAX; n];
            k.lookup(&mut out, &table, index as u64);
            prop_assert_eq!(&out[..], &table[index * n..][..n], "{} lookup", k.name());
            Ok(())
        })?;
    }

    /// Products and squares of equal lengths where the mulx backend takes
    /// one Karatsuba level (32, 48 and 64 limbs).
    #[test]
    fn karatsuba_mulx_sizes(
        (a, b) in prop::sample::select(vec![32usize, 48, 64])
            .prop_flat_map(|n| (limbs_strategy(n), limbs_strategy(n)))
    ) {
        for_each_backend(|k| check_mul_sqr(k, &a, &b))?;
    }

    /// The lengths with unrolled row kernels and split squares (16, 24, 32,
    /// 48 and 64 limbs), hit hard: products with `rows` rows of any count
    /// (the mulx backend adds them in blocks of eight, then one at a time),
    /// squares, Montgomery, and REDC at the ends of its contract.
    #[test]
    fn row_kernel_sizes(
        (a, b, m, rows) in prop::sample::select(vec![16usize, 24, 32, 48, 64])
            .prop_flat_map(|n| (
                limbs_strategy(n),
                limbs_strategy(n),
                limbs_strategy(n),
                (1usize..=70).prop_flat_map(limbs_strategy),
            ))
    ) {
        for_each_backend(|k| {
            check_mul_sqr(k, &a, &rows)?;
            check_montgomery(k, &a, &b, &m)?;
            check_redc_extremes(k, &m)
        })?;
    }
}

/// Squares whose doubled cross product carries into an all-ones top half:
/// the carry must ripple through every limb above it (proptest found this
/// at 24 limbs when squares split into halves; the other lengths that split
/// or take Karatsuba's middle term in the same shape).
#[test]
fn split_square_carries_through_the_top() {
    for (n, h) in [(24, 16), (32, 16), (48, 32), (64, 32)] {
        let mut a = vec![0u64; n];
        a[h - 2] = 1;
        a[h - 1] = 1 << 63;
        a[h] = 1 << 63;
        a[n - 2] = u64::MAX;
        a[n - 1] = u64::MAX;
        squares_on_every_backend(&a);
    }
}

/// `a²` on every backend against num-bigint, the output filled with
/// garbage first.
fn squares_on_every_backend(a: &[u64]) {
    for_each_backend(|k| {
        let mut r = vec![0x5a5a_5a5a_5a5a_5a5a; 2 * a.len()];
        k.sqr(&mut r, a);
        prop_assert_eq!(
            to_big(&r),
            to_big(a) * to_big(a),
            "{} sqr at {} limbs",
            k.name(),
            a.len()
        );
        Ok(())
    })
    .unwrap();
}

/// The squares on the register window (the `mulx` backend's `sqr_16`, the
/// halves of the 32- and 64-limb squares, and the 24-limb square, the
/// halves of the 48-limb one, whose low 16 limbs are squared alike): every
/// limb of each part (low triangle, rectangle, high triangle; at 24 limbs
/// also the rectangle of the low 16 limbs by the high 8 and their triangle)
/// at its maximum, and each part alone, so that every carry out of a row
/// and out of the window runs its full length.
#[test]
fn window_square_at_its_extremes() {
    let max = u64::MAX;
    let halves =
        |lo: u64, hi: u64| -> Vec<u64> { (0..16).map(|i| if i < 8 { lo } else { hi }).collect() };
    let mut cases = vec![
        halves(max, max),
        halves(max, 0),
        halves(0, max),
        halves(1, max),
    ];
    cases.push((0..16).map(|i| if i % 2 == 0 { max } else { 0 }).collect());
    cases.push((0..16).map(|i| max - i).collect());
    for n in [16, 24, 32, 48, 64] {
        for case in &cases {
            let a: Vec<u64> = case.iter().copied().cycle().take(n).collect();
            squares_on_every_backend(&a);
        }
    }
    // The 24-limb square's two parts: its low 16 limbs and its high 8.
    for (low, high) in [(max, 0), (0, max), (max, 1), (1, max)] {
        let a: Vec<u64> = (0..24).map(|i| if i < 16 { low } else { high }).collect();
        squares_on_every_backend(&a);
    }
}

/// Karatsuba products and squares (32, 48 and 64 limbs on the mulx
/// backend) at the ends of the middle term: halves equal (a zero
/// difference), one half zero and the other all ones (either sign of the
/// difference, the largest middle), all ones, and a top bit alone, in every
/// pairing of the operands (so the differences' signs agree and differ).
#[test]
fn karatsuba_extremes() {
    for n in [32, 48, 64] {
        let h = n / 2;
        let ones = vec![u64::MAX; h];
        let zeros = vec![0u64; h];
        let mut top = vec![0u64; h];
        top[h - 1] = 1 << 63;
        let random: Vec<u64> = (1..=h as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let operands: Vec<Vec<u64>> = [
            (&random, &random),
            (&zeros, &ones),
            (&ones, &zeros),
            (&ones, &ones),
            (&top, &top),
            (&top, &zeros),
            (&random, &top),
        ]
        .iter()
        .map(|(lo, hi)| [lo.as_slice(), hi.as_slice()].concat())
        .collect();
        for a in &operands {
            for b in &operands {
                for_each_backend(|k| check_mul_sqr(k, a, b)).unwrap();
            }
        }
    }
}

/// The carry extremes of Montgomery multiplication at 1 to 10 limbs, on every
/// backend: operands 0, 1, m - 1 and all ones against the largest modulus
/// (all ones), the smallest (3), one just above 2^(64n-1), and one with a
/// zero middle.
#[test]
fn montgomery_extremes() {
    // Small sizes, and those of the reduction assembly and Karatsuba.
    for n in (1..=10).chain([16, 24, 32, 34, 48, 64]) {
        let ones = vec![u64::MAX; n];
        let mut half = vec![0; n];
        half[0] = 1;
        half[n - 1] |= 1 << 63;
        let mut three = vec![0; n];
        three[0] = 3;
        let mut hollow = vec![u64::MAX; n];
        hollow[n / 2..n - 1].fill(0);
        for m in [ones.clone(), half, three, hollow] {
            let m_minus_1 = common::from_big_limbs(&(to_big(&m) - 1u32), n);
            let mut one = vec![0; n];
            one[0] = 1;
            let values = [vec![0; n], one, m_minus_1, ones.clone()];
            for a in &values {
                for b in &values {
                    for_each_backend(|k| check_montgomery(k, a, b, &m)).unwrap();
                }
            }
        }
    }
}

#[test]
fn mont_modulus_needs_an_odd_modulus() {
    assert!(MontModulus::new(&[]).is_none());
    assert!(MontModulus::new(&[2, 1]).is_none());
    let m = MontModulus::new(&[0xffff_ffff_0000_0001, 7]).unwrap();
    assert_eq!(m.limbs(), &[0xffff_ffff_0000_0001, 7]);
    assert_eq!(m.m_inv().wrapping_mul(0xffff_ffff_0000_0001), u64::MAX);
}

/// The squares of the lengths with unrolled kernels at the carries' edges:
/// every limb all ones (each column's sum at its largest), one limb short
/// of it, and alternating all-ones and zero limbs.
#[test]
fn unrolled_squares_at_the_edges() {
    for n in [8, 16, 24, 32, 48, 64] {
        let mut alternating = vec![0; n];
        alternating
            .iter_mut()
            .step_by(2)
            .for_each(|x| *x = u64::MAX);
        let mut short = vec![u64::MAX; n];
        short[n / 2] = u64::MAX - 1;
        for a in [vec![u64::MAX; n], short, alternating] {
            for_each_backend(|k| check_mul_sqr(k, &a, &a[..n.min(40)])).unwrap();
        }
    }
}
