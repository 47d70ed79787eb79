//! Baillie–PSW: a strong Miller–Rabin round to base 2 and a strong Lucas
//! test with Selfridge's parameters.

use numcrypt_limbs::{MontyForm, MontyParams, Unsigned};

use crate::mr::MillerRabin;
use crate::primality::small_factor_vartime;
use crate::small::is_prime_u64;

/// Whether `n` passes the Baillie–PSW test: trial division by the first 64
/// odd primes, a strong Miller–Rabin round to base 2, then a strong Lucas
/// test with Selfridge's parameters (`P = 1`, `Q = (1 - D)/4` for the first
/// `D` in 5, −7, 9, −11, … with Jacobi symbol `(D/n) = −1`).
///
/// No composite is known to pass it, and it has been checked exhaustively
/// below `2^64` (where this function is exact anyway), but there is no
/// proven bound on its error, unlike [`is_prime`](crate::is_prime), whose
/// 64 random-base rounds give at most `2^-128` for every input. Heuristics
/// (Pomerance 1984) even suggest that infinitely many counterexamples exist;
/// none has ever been found. Use it where a deterministic, fast,
/// widely-used test is wanted and that trade-off is acceptable.
///
/// Variable time: for public numbers only.
pub fn is_prime_bpsw_vartime<U: Unsigned>(n: &U) -> bool {
    let limbs = n.significant_limbs();
    if limbs == 1 {
        return is_prime_u64(n.as_ref()[0]);
    }
    if !bool::from(n.is_odd()) || small_factor_vartime(&n.as_ref()[..limbs], 64) {
        return false;
    }
    let Some(mr) = MillerRabin::new(n, limbs) else {
        return false;
    };
    mr.round_vartime(&mr.two()) && strong_lucas_vartime(n)
}

/// The strong Lucas probable-prime test with Selfridge's parameters, for an
/// odd `n >= 2^64` with no factor below 320.
pub(crate) fn strong_lucas_vartime<U: Unsigned>(n: &U) -> bool {
    // Selfridge's method A: the first D in 5, -7, 9, -11, ... with (D/n) = -1.
    let mut d_abs = 5u64;
    let mut negative = false;
    loop {
        let d_mod_n = if negative {
            n.wrapping_sub(&n.like_u64(d_abs))
        } else {
            n.like_u64(d_abs)
        };
        match d_mod_n.jacobi_vartime(n) {
            Ok(-1) => break,
            // gcd(D, n) > 1 with n > |D|: composite.
            Ok(0) | Err(_) => return false,
            _ => {}
        }
        // A square never gives -1; check once the search has gone on a while.
        if d_abs == 13 && is_square_vartime(n) {
            return false;
        }
        d_abs += 2;
        negative = !negative;
    }
    let Ok(params) = MontyParams::new(n.clone()) else {
        return false;
    };
    let signed = |v: u64, neg: bool| -> MontyForm<U> {
        let m = params.to_monty(&n.like_u64(v));
        if neg { params.neg(&m) } else { m }
    };
    let d = signed(d_abs, negative);
    // Q = (1 - D) / 4: for D = 5 that is -1, for D = -7 it is 2, ...
    let (q_abs, q_negative) = if negative {
        ((1 + d_abs) / 4, false)
    } else {
        ((d_abs - 1) / 4, true)
    };
    let q = signed(q_abs, q_negative);
    // 1/2 mod n = (n + 1) / 2.
    let half = params.to_monty(&n.shr_vartime(1).wrapping_add(&n.like_u64(1)));
    let zero = params.zero();
    let is_zero = |x: &MontyForm<U>| x.as_montgomery().as_ref() == zero.as_montgomery().as_ref();

    // n + 1 = k 2^s; n has no factor 3, so n is not 2^(64 limbs) - 1 and
    // n + 1 does not overflow.
    let n_plus_1 = n.wrapping_add(&n.like_u64(1));
    let s = n_plus_1.trailing_zeros();
    let k = n_plus_1.shr_vartime(s);

    // Left to right over k: (U_j, V_j, Q^j), starting from j = 1.
    let mut u = params.one();
    let mut v = params.one(); // V_1 = P = 1
    let mut qk = q.clone();
    let top = k.bits_vartime();
    for i in (0..top - 1).rev() {
        // Doubling: U_2j = U_j V_j, V_2j = V_j^2 - 2 Q^j.
        u = params.mul(&u, &v);
        let two_qk = params.add(&qk, &qk);
        v = params.sub(&params.square(&v), &two_qk);
        qk = params.square(&qk);
        if k.bit_vartime(i) {
            // j + 1, with P = 1: U = (U + V)/2, V = (D U + V)/2.
            let new_u = params.mul(&params.add(&u, &v), &half);
            let new_v = params.mul(&params.add(&params.mul(&d, &u), &v), &half);
            u = new_u;
            v = new_v;
            qk = params.mul(&qk, &q);
        }
    }
    if is_zero(&u) || is_zero(&v) {
        return true;
    }
    for _ in 1..s {
        let two_qk = params.add(&qk, &qk);
        v = params.sub(&params.square(&v), &two_qk);
        if is_zero(&v) {
            return true;
        }
        qk = params.square(&qk);
    }
    false
}

/// Whether `n` is a perfect square (Newton's integer square root).
fn is_square_vartime<U: Unsigned>(n: &U) -> bool {
    let bits = n.bits_vartime();
    let one = n.like_u64(1);
    // x0 = 2^ceil(bits/2) >= sqrt(n); the iteration decreases to floor(sqrt(n)).
    let mut x = one.shl_vartime(bits.div_ceil(2));
    loop {
        let Ok((q, _)) = n.div_rem_vartime(&x) else {
            return false;
        };
        let y = x.wrapping_add(&q).shr_vartime(1);
        if !bool::from(y.ct_lt_value(&x)) {
            break;
        }
        x = y;
    }
    let (lo, hi) = x.widening_square();
    bool::from(hi.is_zero()) && lo.as_ref() == n.as_ref()
}
