//! Every operation of every provided field against num-bigint: random
//! operands and the edges (0, 1, 2, p − 2, p − 1), including chains that
//! feed loose values (sums, differences, negations) into multiplication.

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use numcrypt_field::subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use numcrypt_field::*;
use proptest::prelude::*;

fn big(limbs: &[u64]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

fn modulus<B: Backend>() -> BigUint {
    big(B::MODULUS.as_ref())
}

/// The element with least residue `x < p`.
fn elem<B: Backend>(x: &BigUint) -> Fp<B> {
    let mut bytes = x.to_bytes_le();
    bytes.resize(Fp::<B>::BYTES, 0);
    Fp::from_le_bytes(&bytes).expect("below p")
}

fn value<B: Backend>(a: &Fp<B>) -> BigUint {
    big(a.to_uint().as_ref())
}

/// A value below p from random bytes, biased towards the edges.
fn residue<B: Backend>(bytes: &[u8], edge: u8) -> BigUint {
    let p = modulus::<B>();
    match edge % 8 {
        0 => BigUint::zero(),
        1 => BigUint::one(),
        2 => &p - 1u8,
        3 => &p - 2u8,
        4 => BigUint::from(2u8),
        _ => BigUint::from_bytes_le(bytes) % &p,
    }
}

fn legendre_ref(a: &BigUint, p: &BigUint) -> i8 {
    if a.is_zero() {
        return 0;
    }
    let e = (p - 1u8) >> 1;
    if a.modpow(&e, p).is_one() { 1 } else { -1 }
}

fn check_ops<B: Backend>(x: &BigUint, y: &BigUint, k: u32) {
    let p = modulus::<B>();
    let (a, b) = (elem::<B>(x), elem::<B>(y));
    let name = B::NAME;
    assert_eq!(value(&a), *x, "{name}: round trip");
    // Tight operations.
    assert_eq!(value(&(a * b)), x * y % &p, "{name}: a * b");
    assert_eq!(value(&a.square()), x * x % &p, "{name}: a^2");
    assert_eq!(value(&a.mul_small(k)), x * k % &p, "{name}: a * {k}");
    assert_eq!(value(&(a + b).reduce()), (x + y) % &p, "{name}: a + b");
    assert_eq!(value(&(a - b).reduce()), (x + &p - y) % &p, "{name}: a - b");
    assert_eq!(value(&(-a).reduce()), (&p - x) % &p, "{name}: -a");
    assert_eq!(value(&a.double().reduce()), (x + x) % &p, "{name}: 2a");
    // Loose values straight into multiplication.
    let (s, d) = ((x + y) % &p, (x + &p - y) % &p);
    assert_eq!(
        value(&((a + b) * (a - b))),
        &s * &d % &p,
        "{name}: (a+b)(a-b)"
    );
    assert_eq!(value(&((a + b) * b)), &s * y % &p, "{name}: (a+b) b");
    assert_eq!(value(&(b * (a - b))), y * &d % &p, "{name}: b (a-b)");
    assert_eq!(value(&(a + b).square()), &s * &s % &p, "{name}: (a+b)^2");
    assert_eq!(value(&(-a).square()), x * x % &p, "{name}: (-a)^2");
    let mut m = a;
    m *= b;
    assert_eq!(value(&m), x * y % &p, "{name}: *=");
    // A reduced sum added again, and multiplied by a loose value.
    let t = (a + b).reduce() + a;
    assert_eq!(value(&t.reduce()), (x + x + y) % &p, "{name}: (a+b)+a");
    assert_eq!(
        value(&(t * (b - a))),
        (x + x + y) * (y + &p - x) % &p,
        "{name}: chain"
    );
    // Comparisons and selection.
    assert_eq!(bool::from(a.ct_eq(&b)), x == y, "{name}: ct_eq");
    assert_eq!(a == b, x == y, "{name}: eq");
    assert_eq!(bool::from(a.is_zero()), x.is_zero(), "{name}: is_zero");
    // Differently represented equal values compare equal.
    assert!(
        bool::from(((a + b).reduce() - b).reduce().ct_eq(&a)),
        "{name}: a + b - b"
    );
    assert_eq!(value(&Fp::conditional_select(&a, &b, Choice::from(0))), *x);
    assert_eq!(value(&Fp::conditional_select(&a, &b, Choice::from(1))), *y);
    let (la, lb): (LooseFp<B>, LooseFp<B>) = ((a + b), (a - b));
    assert_eq!(
        value(&LooseFp::conditional_select(&la, &lb, Choice::from(1)).reduce()),
        d
    );
}

fn check_slow_ops<B: Backend>(x: &BigUint) {
    let p = modulus::<B>();
    let a = elem::<B>(x);
    let name = B::NAME;
    // Inversion.
    let inv = a.invert();
    assert_eq!(
        bool::from(inv.is_some()),
        !x.is_zero(),
        "{name}: invertible"
    );
    if !x.is_zero() {
        let expect = x.modpow(&(&p - 2u8), &p);
        assert_eq!(value(&inv.unwrap()), expect, "{name}: a^-1");
    }
    // Legendre symbol and square roots, of a and of a².
    let symbol = legendre_ref(x, &p);
    assert_eq!(a.legendre(), symbol, "{name}: legendre");
    let root = a.sqrt();
    assert_eq!(
        bool::from(root.is_some()),
        symbol >= 0,
        "{name}: sqrt exists"
    );
    if symbol >= 0 {
        let r = value(&root.unwrap());
        assert_eq!(&r * &r % &p, *x, "{name}: sqrt(a)^2");
    }
    let sq = a.square();
    let r = value(&sq.sqrt().unwrap());
    assert!(r == *x || r == (&p - x) % &p, "{name}: sqrt(a^2) = ±a");
    // Exponentiation by a public exponent.
    let e = [0x1234_5678_9abc_def1u64, 3];
    assert_eq!(
        value(&a.pow_vartime(&e)),
        x.modpow(&big(&e), &p),
        "{name}: pow"
    );
}

fn check_encoding<B: Backend>(x: &BigUint) {
    let p = modulus::<B>();
    let a = elem::<B>(x);
    let name = B::NAME;
    let n = Fp::<B>::BYTES;
    let mut le = vec![0u8; n];
    a.write_le_bytes(&mut le).unwrap();
    let mut expect = x.to_bytes_le();
    expect.resize(n, 0);
    assert_eq!(le, expect, "{name}: le bytes");
    let mut be = vec![0u8; n];
    a.write_be_bytes(&mut be).unwrap();
    expect.reverse();
    assert_eq!(be, expect, "{name}: be bytes");
    assert_eq!(Fp::<B>::from_be_bytes(&be).unwrap(), a);
    assert_eq!(Fp::<B>::from_le_bytes(&le).unwrap(), a);
    // Non-canonical: x + p, where it fits the encoding.
    let high = x + &p;
    if high.bits() <= 8 * n as u64 {
        let mut bytes = high.to_bytes_le();
        bytes.resize(n, 0);
        assert_eq!(
            Fp::<B>::from_le_bytes(&bytes),
            Err(Error::NonCanonical),
            "{name}: x + p"
        );
    }
    // Lengths.
    let long = vec![0u8; n + 1];
    assert_eq!(
        Fp::<B>::from_le_bytes(&long),
        Err(Error::InvalidLength {
            expected: n,
            actual: n + 1
        })
    );
    assert!(Fp::<B>::from_be_bytes(&be[1..]).is_err());
    let mut short = vec![0u8; n - 1];
    assert_eq!(
        a.write_le_bytes(&mut short),
        Err(Error::InvalidLength {
            expected: n,
            actual: n - 1
        })
    );
    assert!(
        short.iter().all(|&b| b == 0),
        "{name}: nothing written on error"
    );
}

/// The boundary encodings: p − 1 decodes, p and all ones do not.
fn check_bounds<B: Backend>() {
    let p = modulus::<B>();
    let n = Fp::<B>::BYTES;
    let mut bytes = (&p - 1u8).to_bytes_le();
    bytes.resize(n, 0);
    assert!(Fp::<B>::from_le_bytes(&bytes).is_ok());
    let mut bytes = p.to_bytes_le();
    bytes.resize(n, 0);
    assert_eq!(Fp::<B>::from_le_bytes(&bytes), Err(Error::NonCanonical));
    assert_eq!(
        Fp::<B>::from_be_bytes(&vec![0xff; n]),
        Err(Error::NonCanonical)
    );
    assert_eq!(Fp::<B>::from_uint(&B::MODULUS), Err(Error::NonCanonical));
    // Edges through every operation.
    for x in [BigUint::zero(), BigUint::one(), &p - 1u8, &p - 2u8] {
        for y in [BigUint::zero(), BigUint::one(), &p - 1u8, &p - 2u8] {
            check_ops::<B>(&x, &y, u32::MAX);
            check_ops::<B>(&x, &y, 0);
        }
        check_slow_ops::<B>(&x);
        check_encoding::<B>(&x);
    }
}

macro_rules! field_tests {
    ($($module:ident: $backend:ty, $cases:expr;)*) => {$(
        mod $module {
            use super::*;
            type B = $backend;

            #[test]
            fn edges() {
                check_bounds::<B>();
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases($cases))]

                #[test]
                fn arithmetic(xb in prop::collection::vec(any::<u8>(), 300), yb in prop::collection::vec(any::<u8>(), 300), ex in any::<u8>(), ey in any::<u8>(), k in any::<u32>()) {
                    let (x, y) = (residue::<B>(&xb, ex), residue::<B>(&yb, ey));
                    check_ops::<B>(&x, &y, k);
                    check_encoding::<B>(&x);
                }

                #[test]
                fn inversion_roots(xb in prop::collection::vec(any::<u8>(), 300), ex in any::<u8>()) {
                    check_slow_ops::<B>(&residue::<B>(&xb, ex));
                }
            }
        }
    )*};
}

field_tests! {
    mersenne127: <Fp127 as Elem>::B, 256;
    curve25519: <Fp25519 as Elem>::B, 256;
    curve25519_saturated: <Fp25519Saturated as Elem>::B, 256;
    p336: <Fp336 as Elem>::B, 256;
    p336_saturated: <Fp336Saturated as Elem>::B, 256;
    p384: <Fp384 as Elem>::B, 256;
    p414: <Fp414 as Elem>::B, 256;
    p448: <Fp448 as Elem>::B, 256;
    p512: <Fp512 as Elem>::B, 256;
    p414_unsat: <Fp414Unsat as Elem>::B, 256;
    p414_saturated: <Fp414Saturated as Elem>::B, 256;
    p521: <Fp521 as Elem>::B, 256;
    p521_saturated: <Fp521Saturated as Elem>::B, 256;
    p2048: <Fp2048 as Elem>::B, 24;
    nist_p224: <FpP224 as Elem>::B, 64;
    nist_p256: <FpP256 as Elem>::B, 256;
    nist_p384: <FpP384 as Elem>::B, 256;
    goldilocks: <FpGoldilocks as Elem>::B, 256;
    goldilocks_monty: <FpGoldilocksMonty as Elem>::B, 256;
    random256: <FpRandom256 as Elem>::B, 256;
    random384: <FpRandom384 as Elem>::B, 256;
    random448: <FpRandom448 as Elem>::B, 256;
    random512: <FpRandom512 as Elem>::B, 256;
    random521: <FpRandom521 as Elem>::B, 256;
}

/// The backend of an element alias.
trait Elem {
    type B: Backend;
}
impl<B: Backend> Elem for Fp<B> {
    type B = B;
}

/// Two representations of the same field agree on a long chain of mixed
/// operations (saturated against unsaturated).
#[test]
fn representations_agree() {
    fn chain<B: Backend>(seed: u64) -> Vec<u8> {
        let mut x = Fp::<B>::from_u64(seed);
        let y = Fp::<B>::from_u64(seed.rotate_left(17) | 1);
        for i in 0..200u32 {
            x = ((x + y) * (x - y)).mul_small(i + 1) * (-x).square();
            x = (x + Fp::ONE).reduce();
        }
        let mut out = vec![0u8; Fp::<B>::BYTES];
        x.write_le_bytes(&mut out).unwrap();
        out
    }
    for seed in 1..20u64 {
        assert_eq!(
            chain::<<Fp25519 as Elem>::B>(seed),
            chain::<<Fp25519Saturated as Elem>::B>(seed)
        );
        assert_eq!(
            chain::<<Fp521Saturated as Elem>::B>(seed),
            chain::<<Fp521 as Elem>::B>(seed)
        );
        assert_eq!(
            chain::<<Fp336Saturated as Elem>::B>(seed),
            chain::<<Fp336 as Elem>::B>(seed)
        );
        assert_eq!(
            chain::<<Fp414Saturated as Elem>::B>(seed),
            chain::<<Fp414Unsat as Elem>::B>(seed)
        );
        assert_eq!(
            chain::<<FpGoldilocks as Elem>::B>(seed),
            chain::<<FpGoldilocksMonty as Elem>::B>(seed)
        );
    }
}

/// `Integer` is used for the reference gcd check of the moduli below.
#[test]
fn moduli_are_odd_and_full_width() {
    fn check<B: Backend>() {
        let p = modulus::<B>();
        assert!(p.is_odd());
        assert_eq!(p.bits(), B::BITS as u64, "{}", B::NAME);
    }
    check::<<Fp127 as Elem>::B>();
    check::<<Fp25519 as Elem>::B>();
    check::<<Fp2048 as Elem>::B>();
    check::<<FpP224 as Elem>::B>();
    check::<<FpRandom521 as Elem>::B>();
}
