//! The slice kernels against num-bigint, at every length from 1 to 70 limbs:
//! the contracts the assembly kernels must also meet.

mod common;

use common::{limbs_strategy, make_odd_modulus, to_big};
use num_bigint::BigUint;
use num_traits::One;
use numcrypt_limbs::kernels;
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
    fn mul_1_family((a, r0) in pair(70), b in any::<u64>()) {
        let n = a.len();
        let mut r = vec![0; n];
        let hi = kernels::mul_1(&mut r, &a, b);
        prop_assert_eq!(to_big(&r) + (BigUint::from(hi) << (64 * n)), to_big(&a) * b);
        let mut r = r0.clone();
        let hi = kernels::addmul_1(&mut r, &a, b);
        prop_assert_eq!(to_big(&r) + (BigUint::from(hi) << (64 * n)), to_big(&r0) + to_big(&a) * b);
        let mut r = r0.clone();
        let borrow = kernels::submul_1(&mut r, &a, b);
        // r0 - a*b = r - borrow * 2^(64n)
        prop_assert_eq!(to_big(&r) + to_big(&a) * b, to_big(&r0) + (BigUint::from(borrow) << (64 * n)));
    }

    #[test]
    fn mul_and_sqr(a in (1usize..=70).prop_flat_map(limbs_strategy), b in (1usize..=40).prop_flat_map(limbs_strategy)) {
        let mut r = vec![0; a.len() + b.len()];
        kernels::mul(&mut r, &a, &b);
        prop_assert_eq!(to_big(&r), to_big(&a) * to_big(&b));
        let mut s = vec![0; 2 * a.len()];
        kernels::sqr(&mut s, &a);
        prop_assert_eq!(to_big(&s), to_big(&a) * to_big(&a));
    }

    #[test]
    fn montgomery((a, b) in pair(70), m in (1usize..=70).prop_flat_map(limbs_strategy)) {
        let n = a.len();
        let mut m = m;
        m.resize(n, u64::MAX);
        let m = make_odd_modulus(m);
        let bm = to_big(&m);
        let m_inv = kernels::mont_inverse_limb(m[0]);
        prop_assert_eq!(m_inv.wrapping_mul(m[0]), u64::MAX); // -1 mod 2^64
        let r_inv = (BigUint::one() << (64 * n)).modinv(&bm).unwrap();
        // Inputs reduced below m, as the contract requires.
        let (ra, rb) = (to_big(&a) % &bm, to_big(&b) % &bm);
        let (a, b) = (common::from_big_limbs(&ra, n), common::from_big_limbs(&rb, n));
        let mut r = vec![0; n];
        kernels::mont_mul(&mut r, &a, &b, &m, m_inv);
        prop_assert_eq!(to_big(&r), &ra * &rb * &r_inv % &bm);
        let mut scratch = vec![0; 2 * n];
        kernels::mont_sqr(&mut r, &a, &m, m_inv, &mut scratch);
        prop_assert_eq!(to_big(&r), &ra * &ra * &r_inv % &bm);
        // REDC of any t below m·R.
        let t = &ra * &rb;
        let mut wide = common::from_big_limbs(&t, 2 * n);
        kernels::mont_redc(&mut r, &mut wide, &m, m_inv);
        prop_assert_eq!(to_big(&r), t * &r_inv % &bm);
    }
}
