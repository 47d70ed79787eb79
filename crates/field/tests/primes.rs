//! The moduli: each is prime by numcrypt-prime's MR64 and by `openssl
//! prime`, and `2^2048 − 1557` is the largest prime below `2^2048` (the
//! search that found it, redone here).

use std::process::Command;

use numcrypt_field::*;
use numcrypt_limbs::Uint;
use numcrypt_prime::is_prime_vartime;

fn hex<const N: usize>(x: &Uint<N>) -> String {
    format!("{x:x}")
}

/// `openssl prime`'s verdict, or `None` when the command is not available.
fn openssl_is_prime(hex: &str) -> Option<bool> {
    let out = Command::new("openssl")
        .args(["prime", "-hex", hex])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.contains("is prime") && !text.contains("not prime"))
}

fn check<B: Backend<Uint = Uint<N>>, const N: usize>() {
    let p = B::MODULUS;
    assert!(is_prime_vartime(&p), "{} is prime (MR64)", B::NAME);
    match openssl_is_prime(&hex(&p)) {
        Some(verdict) => assert!(verdict, "{} is prime (openssl)", B::NAME),
        None => println!("openssl not found: {} checked by MR64 only", B::NAME),
    }
}

trait Elem {
    type B: Backend;
}
impl<X: Backend> Elem for Fp<X> {
    type B = X;
}

#[test]
fn every_modulus_is_prime() {
    check::<<Fp127 as Elem>::B, 2>();
    check::<<Fp25519 as Elem>::B, 4>();
    check::<<Fp336 as Elem>::B, 6>();
    check::<<Fp384 as Elem>::B, 6>();
    check::<<Fp414 as Elem>::B, 7>();
    check::<<Fp448 as Elem>::B, 7>();
    check::<<Fp512 as Elem>::B, 8>();
    check::<<Fp521Saturated as Elem>::B, 9>();
    check::<<Fp521 as Elem>::B, 9>();
    check::<<Fp2048 as Elem>::B, 32>();
    check::<<FpP224 as Elem>::B, 4>();
    check::<<FpP256 as Elem>::B, 4>();
    check::<<FpP384 as Elem>::B, 6>();
    check::<<FpGoldilocks as Elem>::B, 7>();
    check::<<FpRandom256 as Elem>::B, 4>();
    check::<<FpRandom384 as Elem>::B, 6>();
    check::<<FpRandom448 as Elem>::B, 7>();
    check::<<FpRandom512 as Elem>::B, 8>();
    check::<<FpRandom521 as Elem>::B, 9>();
    // The other representations share their moduli with the defaults.
    assert_eq!(
        hex(&<Fp25519Saturated as Elem>::B::MODULUS),
        hex(&<Fp25519 as Elem>::B::MODULUS)
    );
    assert_eq!(
        hex(&<Fp336Saturated as Elem>::B::MODULUS),
        hex(&<Fp336 as Elem>::B::MODULUS)
    );
    assert_eq!(
        hex(&<Fp414Saturated as Elem>::B::MODULUS),
        hex(&<Fp414Unsat as Elem>::B::MODULUS)
    );
    assert_eq!(
        hex(&<Fp521 as Elem>::B::MODULUS),
        hex(&<Fp521Saturated as Elem>::B::MODULUS)
    );
    assert_eq!(
        hex(&<FpGoldilocksMonty as Elem>::B::MODULUS),
        hex(&<FpGoldilocks as Elem>::B::MODULUS)
    );
}

/// The search for the 2048-bit prime: `2^2048 − c` for odd `c` from 1 up;
/// the first prime is at `c = 1557`, and the special primes of the other
/// sizes (`2^384 − 317`, `2^448 − 203`, `2^512 − 569`) are the first of
/// theirs too.
#[test]
fn largest_primes_below_powers_of_two() {
    fn first_c<const N: usize>() -> u64 {
        let mut c = 1;
        loop {
            let p = Uint::<N>::ZERO.wrapping_sub(&Uint::from_u64(c));
            if is_prime_vartime(&p) {
                return c;
            }
            c += 2;
        }
    }
    use numcrypt_limbs::Unsigned;
    assert_eq!(first_c::<32>(), 1557);
    assert_eq!(first_c::<6>(), 317);
    assert_eq!(first_c::<7>(), 203);
    assert_eq!(first_c::<8>(), 569);
    // And openssl agrees that 2^2048 − 1557 is prime and 2^2048 − 1555 is not.
    let p = Uint::<32>::ZERO.wrapping_sub(&Uint::from_u64(1555));
    if let Some(verdict) = openssl_is_prime(&hex(&p)) {
        assert!(!verdict);
    }
}
