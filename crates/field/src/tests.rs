//! Carry-bound tests on the representations themselves: every operation on
//! the largest tight and loose values each backend allows (every limb at its
//! bound), against num-bigint. The element-level tests are in `tests/`.

use num_bigint::BigUint;
use numcrypt_limbs::Limb;

use crate::fields::*;
use crate::{Backend, Goldilocks, Monty, PseudoMersenne, Unsaturated};

/// Little-endian limbs as an integer.
pub(crate) fn big(limbs: &[Limb]) -> BigUint {
    let bytes: std::vec::Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

fn check_extremes<B: Backend>() {
    let p = big(B::MODULUS.as_ref());
    let (t, l) = (B::tight_max(), B::loose_max());
    let (tv, lv) = (B::value(&t), B::value(&l));
    let name = B::NAME;
    assert_eq!(
        B::value(&B::mul(&l, &l)),
        &lv * &lv % &p,
        "{name}: loose * loose"
    );
    assert_eq!(
        B::value(&B::mul(&t, &l)),
        &tv * &lv % &p,
        "{name}: tight * loose"
    );
    assert_eq!(B::value(&B::square(&l)), &lv * &lv % &p, "{name}: loose^2");
    assert_eq!(B::value(&B::reduce(&l)), lv.clone(), "{name}: reduce");
    let sum = B::add(&t, &t);
    assert_eq!(B::value(&sum), (&tv + &tv) % &p, "{name}: tight + tight");
    assert_eq!(
        B::value(&B::mul(&sum, &sum)),
        (&tv + &tv) * (&tv + &tv) % &p,
        "{name}: sum^2"
    );
    let zero = B::ZERO;
    assert_eq!(
        B::value(&B::sub(&zero, &t)),
        (&p - &tv % &p) % &p,
        "{name}: 0 - tight"
    );
    assert_eq!(
        B::value(&B::sub(&t, &zero)),
        tv.clone(),
        "{name}: tight - 0"
    );
    assert_eq!(
        B::value(&B::neg(&t)),
        (&p - &tv % &p) % &p,
        "{name}: -tight"
    );
    let k = u32::MAX;
    assert_eq!(
        B::value(&B::mul_small(&t, k)),
        &tv * k % &p,
        "{name}: tight * k"
    );
    let canon = B::to_canonical(&t);
    assert_eq!(big(canon.as_ref()), tv, "{name}: canonical");
    // The tight results stay tight: a second round still agrees.
    let again = B::mul_small(&B::mul_small(&t, k), k);
    assert_eq!(
        B::value(&again),
        &tv * k * k % &p,
        "{name}: (tight * k) * k"
    );
    let r = B::reduce(&B::add(&B::reduce(&sum), &t));
    assert_eq!(
        B::value(&r),
        (&tv * 3u8) % &p,
        "{name}: reduce(reduce(t + t) + t)"
    );
}

#[test]
fn extremes_every_backend() {
    check_extremes::<PseudoMersenne<2, 127, 1>>();
    check_extremes::<PseudoMersenne<4, 255, 19>>();
    check_extremes::<PseudoMersenne<6, 336, 3>>();
    check_extremes::<PseudoMersenne<6, 384, 317>>();
    check_extremes::<PseudoMersenne<7, 414, 17>>();
    check_extremes::<PseudoMersenne<7, 448, 203>>();
    check_extremes::<PseudoMersenne<8, 512, 569>>();
    check_extremes::<PseudoMersenne<9, 521, 1>>();
    check_extremes::<PseudoMersenne<32, 2048, 1557>>();
    check_extremes::<Unsaturated<5, 51, 4, 255, 19>>();
    check_extremes::<Unsaturated<6, 56, 6, 336, 3>>();
    check_extremes::<Unsaturated<8, 52, 7, 414, 17>>();
    check_extremes::<Unsaturated<9, 58, 9, 521, 1>>();
    check_extremes::<Monty<NistP224, 4>>();
    check_extremes::<Monty<NistP256, 4>>();
    check_extremes::<Monty<NistP384, 6>>();
    check_extremes::<Monty<GoldilocksPrime, 7>>();
    check_extremes::<Goldilocks>();
    check_extremes::<Monty<Random256, 4>>();
    check_extremes::<Monty<Random384, 6>>();
    check_extremes::<Monty<Random448, 7>>();
    check_extremes::<Monty<Random512, 8>>();
    check_extremes::<Monty<Random521, 9>>();
}

/// The results meant to be tight are, limb by limb, for a representation
/// whose tight bound is one per limb (the unsaturated ones): the carry of a
/// product of loose extremes, of the largest sum of tight values and of a
/// small multiple, and a reduction of a loose extreme.
fn check_limbwise_tight<B: Backend>() {
    let (t, l) = (B::tight_max(), B::loose_max());
    let sum = B::add(&t, &t);
    let results = [
        B::mul(&l, &l),
        B::mul(&t, &l),
        B::square(&l),
        B::square(&sum),
        B::reduce(&l),
        B::mul_small(&t, u32::MAX),
    ];
    for (i, r) in results.iter().enumerate() {
        for (j, (limb, bound)) in r.as_ref().iter().zip(t.as_ref()).enumerate() {
            assert!(limb <= bound, "{}: result {i}, limb {j} not tight", B::NAME);
        }
    }
}

#[test]
fn unsaturated_results_are_tight() {
    check_limbwise_tight::<Unsaturated<5, 51, 4, 255, 19>>();
    check_limbwise_tight::<Unsaturated<6, 56, 6, 336, 3>>();
    check_limbwise_tight::<Unsaturated<8, 52, 7, 414, 17>>();
    check_limbwise_tight::<Unsaturated<9, 58, 9, 521, 1>>();
    check_limbwise_tight::<Goldilocks>();
}
