//! Differential tests: every operation of `Uint<LIMBS>` (at 1, 2, 3, 4, 8, 9,
//! 16, 17, 32 and 64 limbs) and of `BoxedUint` against num-bigint, on random
//! values biased towards the edges (0, 1, all ones, m - 1).

mod common;

use common::*;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use numcrypt_limbs::{BoxedUint, Error, MontyParams, Uint, Unsigned};
use proptest::prelude::*;
use subtle::{ConstantTimeEq, ConstantTimeLess};

macro_rules! width_tests {
    ($module:ident, $limbs:literal, $cases:expr) => {
        mod $module {
            use super::*;
            type U = Uint<$limbs>;
            const BITS: u32 = $limbs * 64;

            fn uint() -> impl Strategy<Value = U> {
                limbs_strategy($limbs).prop_map(|v| U::from_words(v.try_into().unwrap()))
            }

            fn odd_modulus() -> impl Strategy<Value = U> {
                uint().prop_map(|m| U::from_words(make_odd_modulus(m.to_words().to_vec()).try_into().unwrap()))
            }

            fn nonzero() -> impl Strategy<Value = U> {
                uint().prop_map(|m| if bool::from(m.is_zero()) { U::ONE } else { m })
            }

            fn big(x: &U) -> BigUint {
                to_big(x.as_ref())
            }

            fn from_big(x: &BigUint) -> U {
                U::from_words(from_big_limbs(x, $limbs).try_into().unwrap())
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases($cases))]

                #[test]
                fn add_sub_neg(a in uint(), b in uint(), carry in 0u64..2) {
                    let modulus = BigUint::one() << BITS;
                    let (s, c) = a.carrying_add(&b, carry);
                    let full = big(&a) + big(&b) + carry;
                    prop_assert_eq!(big(&s), &full % &modulus);
                    prop_assert_eq!(c, (full >> BITS).try_into().unwrap_or(2u64));
                    let (d, borrow) = a.borrowing_sub(&b, carry);
                    let (ba, bb) = (big(&a), big(&b) + carry);
                    prop_assert_eq!(borrow == 1, ba < bb);
                    prop_assert_eq!(big(&d), (ba + &modulus - &bb % &modulus) % &modulus);
                    prop_assert_eq!(big(&a.wrapping_neg()), (&modulus - big(&a)) % &modulus);
                    let checked = a.checked_add(&b);
                    prop_assert_eq!(bool::from(checked.is_some()), big(&a) + big(&b) < modulus);
                    let checked = a.checked_sub(&b);
                    prop_assert_eq!(bool::from(checked.is_some()), big(&a) >= big(&b));
                }

                #[test]
                fn mul_and_square(a in uint(), b in uint()) {
                    let (lo, hi) = a.widening_mul(&b);
                    prop_assert_eq!(big(&lo) + (big(&hi) << BITS), big(&a) * big(&b));
                    let (slo, shi) = a.widening_square();
                    prop_assert_eq!(big(&slo) + (big(&shi) << BITS), big(&a) * big(&a));
                    prop_assert_eq!(big(&a.wrapping_mul(&b)), (big(&a) * big(&b)) % (BigUint::one() << BITS));
                    prop_assert_eq!(bool::from(a.checked_mul(&b).is_some()), big(&a) * big(&b) < BigUint::one() << BITS);
                }

                #[test]
                fn shifts_and_bits(a in uint(), shift in 0u32..(BITS + 70), index in 0u32..(BITS + 10)) {
                    let mask = (BigUint::one() << BITS) - 1u32;
                    let expect_shl = (big(&a) << shift) & &mask;
                    prop_assert_eq!(big(&a.shl(shift)), expect_shl.clone());
                    prop_assert_eq!(big(&a.shl_vartime(shift)), expect_shl);
                    prop_assert_eq!(big(&a.shr(shift)), big(&a) >> shift);
                    prop_assert_eq!(big(&a.shr_vartime(shift)), big(&a) >> shift);
                    prop_assert_eq!(a.bits() as u64, big(&a).bits());
                    prop_assert_eq!(a.bits_vartime() as u64, big(&a).bits());
                    let tz = big(&a).trailing_zeros().unwrap_or(BITS as u64);
                    prop_assert_eq!(a.trailing_zeros() as u64, tz);
                    prop_assert_eq!(bool::from(a.bit(index)), big(&a).bit(index as u64));
                    prop_assert_eq!(a.bit_vartime(index), big(&a).bit(index as u64));
                }

                #[test]
                fn comparisons(a in uint(), b in uint()) {
                    prop_assert_eq!(bool::from(a.ct_eq(&b)), big(&a) == big(&b));
                    prop_assert_eq!(bool::from(a.ct_lt(&b)), big(&a) < big(&b));
                    prop_assert_eq!(a.cmp(&b), big(&a).cmp(&big(&b)));
                    prop_assert_eq!(a.cmp(&a), core::cmp::Ordering::Equal);
                }

                #[test]
                fn division(a in uint(), d in nonzero()) {
                    let (q, r) = a.div_rem(&d).unwrap();
                    let (eq, er) = big(&a).div_rem(&big(&d));
                    prop_assert_eq!(big(&q), eq.clone());
                    prop_assert_eq!(big(&r), er.clone());
                    let (q, r) = a.div_rem_vartime(&d).unwrap();
                    prop_assert_eq!(big(&q), eq);
                    prop_assert_eq!(big(&r), er.clone());
                    prop_assert_eq!(big(&a.rem(&d).unwrap()), er.clone());
                    prop_assert_eq!(big(&a.rem_vartime(&d).unwrap()), er);
                    prop_assert_eq!(a.div_rem(&U::ZERO).unwrap_err(), Error::DivisionByZero);
                    prop_assert_eq!(a.div_rem_vartime(&U::ZERO).unwrap_err(), Error::DivisionByZero);
                    let small = d.as_ref()[0] | 1;
                    prop_assert_eq!(a.rem_limb_vartime(small).unwrap(), (big(&a) % small).try_into().unwrap());
                }

                #[test]
                fn modular_add_sub_mul(a in uint(), b in uint(), m in nonzero()) {
                    let (ra, rb) = (a.rem(&m).unwrap(), b.rem(&m).unwrap());
                    let bm = big(&m);
                    prop_assert_eq!(big(&ra.add_mod(&rb, &m).unwrap()), (big(&ra) + big(&rb)) % &bm);
                    prop_assert_eq!(big(&ra.sub_mod(&rb, &m).unwrap()), (big(&ra) + &bm - big(&rb)) % &bm);
                    prop_assert_eq!(big(&ra.neg_mod(&m).unwrap()), (&bm - big(&ra)) % &bm);
                    prop_assert_eq!(big(&a.mul_mod(&b, &m).unwrap()), big(&a) * big(&b) % &bm);
                    if big(&a) >= bm {
                        prop_assert_eq!(a.add_mod(&rb, &m).unwrap_err(), Error::OutOfRange);
                    }
                }

                #[test]
                fn montgomery(a in uint(), b in uint(), m in odd_modulus()) {
                    let params = MontyParams::new(m).unwrap();
                    let bm = big(&m);
                    let (x, y) = (params.to_monty(&a), params.to_monty(&b));
                    prop_assert_eq!(big(&params.from_monty(&x)), big(&a) % &bm);
                    prop_assert_eq!(big(&params.from_monty(&params.mul(&x, &y))), big(&a) * big(&b) % &bm);
                    prop_assert_eq!(big(&params.from_monty(&params.square(&x))), big(&a) * big(&a) % &bm);
                    // A chain of squarings: a^(2^j) after the j-th.
                    let (mut chain, mut expected, mut visits) = (x.clone(), big(&a) % &bm, 0);
                    params.square_repeatedly(&mut chain, 3, |j, y| {
                        expected = &expected * &expected % &bm;
                        visits += 1;
                        assert_eq!((j, big(&params.from_monty(y))), (visits, expected.clone()));
                    });
                    prop_assert_eq!(visits, 3);
                    prop_assert_eq!(big(&params.from_monty(&chain)), expected);
                    prop_assert_eq!(big(&params.from_monty(&params.add(&x, &y))), (big(&a) + big(&b)) % &bm);
                    prop_assert_eq!(big(&params.from_monty(&params.sub(&x, &y))), (big(&a) % &bm + &bm - big(&b) % &bm) % &bm);
                    prop_assert_eq!(big(&params.from_monty(&params.neg(&x))), (&bm - big(&a) % &bm) % &bm);
                    // The Montgomery form itself is a·R mod m.
                    prop_assert_eq!(big(params.to_monty(&a).as_montgomery()), (big(&a) << BITS) % &bm);
                    match params.invert(&x) {
                        Ok(inv) => prop_assert_eq!(big(&params.from_monty(&inv)), reference_inverse(&big(&a), &bm).unwrap()),
                        Err(e) => {
                            prop_assert_eq!(e, Error::NotInvertible);
                            prop_assert!(reference_inverse(&big(&a), &bm).is_none());
                        }
                    }
                }

                #[test]
                fn exponentiation(a in uint(), e in uint(), m in odd_modulus(), bits in 0u32..=BITS) {
                    let params = MontyParams::new(m).unwrap();
                    let bm = big(&m);
                    let base = params.to_monty(&a);
                    let expect = big(&a).modpow(&big(&e), &bm);
                    prop_assert_eq!(big(&params.from_monty(&params.pow(&base, &e))), expect.clone());
                    prop_assert_eq!(big(&params.from_monty(&params.pow_vartime(&base, &e))), expect.clone());
                    prop_assert_eq!(big(&a.pow_mod(&e, &m).unwrap()), expect);
                    // Bounded: only the low `bits` bits of the exponent count.
                    let low = big(&e) & ((BigUint::one() << bits) - 1u32);
                    let bounded = params.pow_bounded(&base, &e, bits);
                    prop_assert_eq!(big(&params.from_monty(&bounded)), big(&a).modpow(&low, &bm));
                }

                #[test]
                fn inverses_gcd_jacobi(a in uint(), m in nonzero()) {
                    let (ba, bm) = (big(&a), big(&m));
                    let expect = if bm > BigUint::one() { reference_inverse(&ba, &bm) } else { None };
                    match a.inv_mod_vartime(&m) {
                        Ok(inv) => prop_assert_eq!(Some(big(&inv)), expect.clone()),
                        Err(Error::ModulusTooSmall) => prop_assert!(bm.is_one()),
                        Err(e) => {
                            prop_assert_eq!(e, Error::NotInvertible);
                            prop_assert!(expect.is_none());
                        }
                    }
                    match a.inv_mod(&m) {
                        Ok(inv) => prop_assert_eq!(Some(big(&inv)), expect),
                        Err(Error::EvenModulus) => prop_assert!(bm.is_even()),
                        Err(Error::ModulusTooSmall) => prop_assert!(bm.is_one()),
                        Err(e) => {
                            prop_assert_eq!(e, Error::NotInvertible);
                            prop_assert!(expect.is_none());
                        }
                    }
                    prop_assert_eq!(big(&a.gcd_vartime(&m)), ba.gcd(&bm));
                    prop_assert_eq!(big(&a.gcd(&m)), ba.gcd(&bm));
                    prop_assert_eq!(big(&a.gcd(&a)), ba.clone());
                    prop_assert_eq!(big(&a.gcd(&U::ZERO)), ba.clone());
                    if bm.is_odd() {
                        prop_assert_eq!(a.jacobi_vartime(&m).unwrap(), reference_jacobi(&ba, &bm));
                    } else {
                        prop_assert_eq!(a.jacobi_vartime(&m).unwrap_err(), Error::EvenModulus);
                    }
                }

                #[test]
                fn encodings(a in uint(), extra in 0usize..10) {
                    let be = big(&a).to_bytes_be();
                    prop_assert_eq!(U::from_be_slice(&be).unwrap(), a);
                    prop_assert_eq!(U::from_le_slice(&big(&a).to_bytes_le()).unwrap(), a);
                    // Fixed-length output, zero-padded.
                    let mut out = vec![0u8; U::BYTES + extra];
                    a.write_be_bytes(&mut out).unwrap();
                    prop_assert_eq!(BigUint::from_bytes_be(&out), big(&a));
                    a.write_le_bytes(&mut out).unwrap();
                    prop_assert_eq!(BigUint::from_bytes_le(&out), big(&a));
                    // Too short for the value: a typed error and a zeroed buffer.
                    let needed = big(&a).bits().div_ceil(8) as usize;
                    if needed > 0 {
                        let mut short = vec![0xAAu8; needed - 1];
                        prop_assert_eq!(a.write_be_bytes(&mut short), Err(Error::Overflow));
                        prop_assert!(short.iter().all(|&x| x == 0));
                    }
                    // One byte too many that is non-zero does not fit.
                    let mut long = vec![1u8];
                    long.extend(std::iter::repeat_n(0u8, U::BYTES));
                    prop_assert_eq!(U::from_be_slice(&long).unwrap_err(), Error::Overflow);
                    // Text.
                    prop_assert_eq!(a.to_string(), big(&a).to_str_radix(10));
                    prop_assert_eq!(format!("{a:x}"), big(&a).to_str_radix(16));
                    prop_assert_eq!(format!("{a:X}"), big(&a).to_str_radix(16).to_uppercase());
                    prop_assert_eq!(a.to_string().parse::<U>().unwrap(), a);
                    prop_assert_eq!(format!("{a:#x}").parse::<U>().unwrap(), a);
                }

                #[test]
                fn random_below(seed in any::<u64>(), bound in nonzero()) {
                    let mut rng = seeded_rng(seed);
                    let r = U::random_below(&mut rng, &bound).unwrap();
                    prop_assert!(big(&r) < big(&bound));
                    let bits = (seed % (BITS as u64 + 1)) as u32;
                    prop_assert!(U::random_bits(&mut rng, bits).bits() <= bits);
                }
            }

            #[test]
            fn edges() {
                let values = [U::ZERO, U::ONE, U::MAX, U::MAX.wrapping_sub(&U::ONE), U::from_u64(2), U::from_u64(3)];
                let moduli = [U::from_u64(3), U::MAX, U::MAX.shr_vartime(1), U::MAX.shr_vartime(BITS / 2)];
                for m in moduli {
                    let params = MontyParams::new(m).unwrap();
                    let bm = big(&m);
                    let m_minus_1 = m.wrapping_sub(&U::ONE);
                    for a in values.iter().chain([&m_minus_1, &m]) {
                        for e in values.iter().chain([&m_minus_1]) {
                            let expect = big(a).modpow(&big(e), &bm);
                            let base = params.to_monty(a);
                            assert_eq!(big(&params.from_monty(&params.pow(&base, e))), expect);
                            assert_eq!(big(&params.from_monty(&params.pow_vartime(&base, e))), expect);
                        }
                        let prod = params.mul(&params.to_monty(a), &params.to_monty(&m_minus_1));
                        assert_eq!(big(&params.from_monty(&prod)), big(a) * big(&m_minus_1) % &bm);
                        assert_eq!(from_big(&(big(a) % &bm)), a.rem(&m).unwrap());
                    }
                }
                // Invalid moduli are typed errors.
                assert_eq!(MontyParams::new(U::ZERO).unwrap_err(), Error::DivisionByZero);
                assert_eq!(MontyParams::new(U::ONE).unwrap_err(), Error::ModulusTooSmall);
                if BITS > 1 {
                    assert_eq!(MontyParams::new(U::from_u64(4)).unwrap_err(), Error::EvenModulus);
                }
                assert_eq!(U::from_u64(2).inv_mod(&U::from_u64(4)).unwrap_err(), Error::EvenModulus);
                assert_eq!(U::from_u64(2).inv_mod_vartime(&U::from_u64(4)).unwrap_err(), Error::NotInvertible);
                assert_eq!(U::from_u64(3).inv_mod(&U::ONE).unwrap_err(), Error::ModulusTooSmall);
                assert_eq!(U::ZERO.inv_mod(&U::from_u64(7)).unwrap_err(), Error::NotInvertible);
                assert_eq!(U::from_u64(1).pow_mod(&U::ONE, &U::from_u64(8)).unwrap_err(), Error::EvenModulus);
            }
        }
    };
}

width_tests!(limbs_1, 1, 256);
width_tests!(limbs_2, 2, 256);
width_tests!(limbs_3, 3, 192);
width_tests!(limbs_4, 4, 160);
width_tests!(limbs_8, 8, 96);
width_tests!(limbs_9, 9, 96);
width_tests!(limbs_16, 16, 48);
width_tests!(limbs_17, 17, 40);
width_tests!(limbs_32, 32, 16);
width_tests!(limbs_64, 64, 8);

/// `BoxedUint`: runtime widths, and operands of different widths.
mod boxed {
    use super::*;
    use rand_core::Rng;

    fn boxed(max_limbs: usize) -> impl Strategy<Value = BoxedUint> {
        (1..=max_limbs)
            .prop_flat_map(limbs_strategy)
            .prop_map(BoxedUint::from_words)
    }

    fn big(x: &BoxedUint) -> BigUint {
        to_big(x.as_ref())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn mixed_width_arithmetic(a in boxed(20), b in boxed(20)) {
            let width = a.nlimbs() as u32 * 64;
            let modulus = BigUint::one() << width;
            prop_assert_eq!(big(&a.wrapping_add(&b)), (big(&a) + big(&b)) % &modulus);
            prop_assert_eq!(big(&a.wrapping_sub(&b)), (big(&a) + &modulus - big(&b) % &modulus) % &modulus);
            prop_assert_eq!(big(&a.wrapping_mul(&b)), big(&a) * big(&b) % &modulus);
            prop_assert_eq!(bool::from(a.checked_add(&b).is_some()), big(&a) + big(&b) < modulus);
            prop_assert_eq!(a == b, big(&a) == big(&b));
            prop_assert_eq!(a.cmp(&b), big(&a).cmp(&big(&b)));
            if !bool::from(b.is_zero()) {
                let (q, r) = a.div_rem(&b).unwrap();
                prop_assert_eq!(r.nlimbs(), b.nlimbs());
                prop_assert_eq!((big(&q), big(&r)), big(&a).div_rem(&big(&b)));
                let (q, r) = a.div_rem_vartime(&b).unwrap();
                prop_assert_eq!((big(&q), big(&r)), big(&a).div_rem(&big(&b)));
                prop_assert_eq!(big(&a.mul_mod(&a, &b).unwrap()), big(&a) * big(&a) % big(&b));
            }
        }

        #[test]
        fn montgomery_and_inverse(a in boxed(20), e in boxed(20), m in boxed(20)) {
            let m = BoxedUint::from_words(make_odd_modulus(m.as_words().to_vec()));
            let bm = big(&m);
            let params = MontyParams::new(m.clone()).unwrap();
            let base = params.to_monty(&a);
            let expect = big(&a).modpow(&big(&e), &bm);
            prop_assert_eq!(big(&params.from_monty(&params.pow(&base, &e))), expect.clone());
            prop_assert_eq!(big(&params.from_monty(&params.pow_vartime(&base, &e))), expect);
            let expect_inv = reference_inverse(&big(&a), &bm);
            prop_assert_eq!(a.inv_mod(&m).ok().map(|x| big(&x)), expect_inv.clone());
            prop_assert_eq!(a.inv_mod_vartime(&m).ok().map(|x| big(&x)), expect_inv);
            prop_assert_eq!(a.jacobi_vartime(&m).unwrap(), reference_jacobi(&big(&a), &bm));
            prop_assert_eq!(big(&a.gcd(&m)), big(&a).gcd(&bm));
            prop_assert_eq!(big(&a.gcd(&e)), big(&a).gcd(&big(&e)));
            // The parameters may hold a secret prime: Debug shows the width only.
            prop_assert_eq!(format!("{params:?}"), format!("MontyParams<{} limbs>(..)", m.nlimbs()));
        }

        #[test]
        fn even_modulus_inverse(a in boxed(12), m in boxed(12)) {
            let mut words = m.as_words().to_vec();
            words[0] &= !1;
            if words.iter().all(|&w| w == 0) { words[0] = 2; }
            let m = BoxedUint::from_words(words);
            let expect = reference_inverse(&big(&a), &big(&m));
            prop_assert_eq!(a.inv_mod_vartime(&m).ok().map(|x| big(&x)), expect);
        }

        #[test]
        fn bytes_and_text(a in boxed(20)) {
            let be = a.to_be_bytes();
            prop_assert_eq!(be.len(), a.nlimbs() * 8);
            prop_assert_eq!(BigUint::from_bytes_be(&be), big(&a));
            prop_assert_eq!(&BoxedUint::from_be_slice(&be, a.nlimbs() as u32 * 64).unwrap(), &a);
            prop_assert_eq!(&BoxedUint::from_be_slice_auto(&be), &a);
            prop_assert_eq!(a.to_string(), big(&a).to_str_radix(10));
            prop_assert_eq!(&a.to_string().parse::<BoxedUint>().unwrap(), &a);
            prop_assert_eq!(&format!("{a:#x}").parse::<BoxedUint>().unwrap(), &a);
            let bits = big(&a).bits() as u32;
            if bits > 1 {
                prop_assert_eq!(BoxedUint::from_be_slice(&be, bits - 1).unwrap_err(), Error::Overflow);
            }
        }
    }

    /// The constant-time inverse at every width from 1 to 70 limbs, on the
    /// moduli and values where its signed digits and end corrections are
    /// most likely to go wrong: all ones, `2^k ± 1`, a small modulus in a
    /// wide value, `x = 1`, `x = m − 1`, `x` sharing a factor with `m`, and
    /// random values with few bits set.
    #[test]
    fn inverse_edges_at_every_width() {
        let mut rng = seeded_rng(17);
        for n in 1..=70usize {
            let bits = 64 * n as u64;
            let mut moduli = vec![
                (BigUint::one() << bits) - 1u32,
                (BigUint::one() << (bits - 1)) + 1u32,
                (BigUint::one() << (bits - 1)) - 1u32,
                BigUint::from(3u32),
                BigUint::from(0xffff_fffbu32),
            ];
            let random = BigUint::from_bytes_le(
                &(0..8 * n).map(|_| rng.next_u32() as u8).collect::<Vec<_>>(),
            );
            moduli.push(random | BigUint::one());
            for m in moduli {
                let mut values = vec![
                    BigUint::one(),
                    &m - 1u32,
                    &m - 2u32,
                    BigUint::from(2u32),
                    BigUint::zero(),
                    (&m >> 1) + 1u32,
                ];
                // Shares the factor 3 with m when 3 divides m.
                values.push(BigUint::from(3u32) % &m);
                let sparse = BigUint::one() << (rng.next_u32() as u64 % (m.bits().max(1)));
                values.push(sparse % &m);
                let mb = BoxedUint::from_words(from_big_limbs(&m, n));
                for x in values {
                    let xb = BoxedUint::from_words(from_big_limbs(&x, n));
                    let got = xb.inv_mod(&mb).ok().map(|i| big(&i));
                    let expect = if m.is_one() {
                        None
                    } else {
                        reference_inverse(&x, &m)
                    };
                    assert_eq!(got, expect, "{n} limbs: {x:#x}^-1 mod {m:#x}");
                }
            }
        }
    }

    #[test]
    fn conversions_with_uint() {
        let u = numcrypt_limbs::U256::MAX;
        let b = BoxedUint::from(u);
        assert_eq!(Uint::<4>::try_from(&b).unwrap(), u);
        assert_eq!(Uint::<3>::try_from(&b).unwrap_err(), Error::Overflow);
        assert_eq!(Uint::<8>::try_from(&b).unwrap().bits(), 256);
        assert!(BigUint::zero() == big(&BoxedUint::zero(0)));
        // A zero-bit width holds only zero (found by the fuzzer).
        assert_eq!(
            BoxedUint::from_be_slice(&[1], 0).unwrap_err(),
            Error::Overflow
        );
        assert_eq!(
            BoxedUint::from_le_slice(&[0, 0x80], 0).unwrap_err(),
            Error::Overflow
        );
        assert!(bool::from(
            BoxedUint::from_be_slice(&[0, 0], 0).unwrap().is_zero()
        ));
        assert_eq!(
            BoxedUint::from_be_slice(&[1, 0], 8).unwrap_err(),
            Error::Overflow
        );
    }
}

#[test]
fn parse_errors() {
    type U = numcrypt_limbs::U128;
    assert_eq!("".parse::<U>().unwrap_err(), Error::Empty);
    assert_eq!("0x".parse::<U>().unwrap_err(), Error::Empty);
    assert_eq!("12a".parse::<U>().unwrap_err(), Error::InvalidDigit);
    assert_eq!("0xfg".parse::<U>().unwrap_err(), Error::InvalidDigit);
    assert_eq!("-1".parse::<U>().unwrap_err(), Error::InvalidDigit);
    // 2^128 overflows; 2^128 - 1 fits.
    assert_eq!(
        "340282366920938463463374607431768211456"
            .parse::<U>()
            .unwrap_err(),
        Error::Overflow
    );
    assert_eq!(
        "340282366920938463463374607431768211455"
            .parse::<U>()
            .unwrap(),
        U::MAX
    );
    assert_eq!(
        "0x1ffffffffffffffffffffffffffffffff"
            .parse::<U>()
            .unwrap_err(),
        Error::Overflow
    );
    assert_eq!(
        "0X00000000000000000000000000000000000000ff"
            .parse::<U>()
            .unwrap(),
        U::from_u64(255)
    );
}
