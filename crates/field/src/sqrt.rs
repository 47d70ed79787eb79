//! Square roots, by the shape of `p` (all constant time in the operand;
//! which path runs depends only on `p`).

use numcrypt_limbs::Unsigned;
use subtle::{ConditionallySelectable, ConstantTimeEq, CtOption};

use crate::{Backend, Fp};

impl<B: Backend> Fp<B> {
    /// A square root of `self`, or none when `self` is not a square. Which
    /// of the two roots comes back is unspecified. Constant time: one
    /// exponentiation for `p ≡ 3 (mod 4)` and `p ≡ 5 (mod 8)` (Atkin), and
    /// Tonelli–Shanks with a fixed number of steps for `p ≡ 1 (mod 8)`.
    pub fn sqrt(&self) -> CtOption<Self> {
        let root = sqrt(self);
        let ok = root.square().ct_eq(self);
        CtOption::new(root, ok)
    }
}

/// A candidate square root of `a`: correct whenever `a` is a square (the
/// caller checks by squaring).
fn sqrt<B: Backend>(a: &Fp<B>) -> Fp<B> {
    let p = B::MODULUS;
    let p = p.as_ref();
    if p[0] & 3 == 3 {
        // a^((p+1)/4): (a^((p+1)/4))² = a · a^((p−1)/2) = a for a square.
        let e = B::MODULUS
            .wrapping_add(&B::MODULUS.like_u64(1))
            .shr_vartime(2);
        a.pow_vartime(e.as_ref())
    } else if p[0] & 7 == 5 {
        // Atkin: with t = 2a and v = t^((p−5)/8), i = t v² is a square root
        // of −1, and a v (i − 1) a square root of a.
        let e = B::MODULUS.shr_vartime(3); // (p − 5)/8 = ⌊p/8⌋ for p ≡ 5 (mod 8)
        let t = a.double().reduce();
        let v = t.pow_vartime(e.as_ref());
        let i = t * v.square();
        a * v * (i - Fp::ONE)
    } else {
        tonelli_shanks(a)
    }
}

/// Constant-time Tonelli–Shanks (RFC 9380, appendix I.4): `s − 1` rounds
/// of a fixed number of squarings each, where `p − 1 = 2^s · q`, `q` odd.
fn tonelli_shanks<B: Backend>(a: &Fp<B>) -> Fp<B> {
    let mut q = B::MODULUS;
    q.as_mut()[0] -= 1;
    let mut s = 0;
    while q.as_ref()[0] & 1 == 0 {
        q = q.shr_vartime(1);
        s += 1;
    }
    // The smallest non-residue: a search over small integers whose length
    // depends on p alone.
    let mut z = 2u64;
    while Fp::<B>::from_u64(z).legendre() != -1 {
        z += 1;
    }
    let q_minus_1_half = q.shr_vartime(1);

    let mut c = Fp::<B>::from_u64(z).pow_vartime(q.as_ref());
    let mut x = a.pow_vartime(q_minus_1_half.as_ref()); // a^((q−1)/2)
    let mut t = x.square() * a; // a^q
    x *= a; // a^((q+1)/2)
    for i in (2..=s).rev() {
        let mut b = t;
        for _ in 0..i - 2 {
            b = b.square();
        }
        let keep = b.ct_eq(&Fp::ONE);
        x = Fp::conditional_select(&(x * c), &x, keep);
        c = c.square();
        t = Fp::conditional_select(&(t * c), &t, keep);
    }
    x
}
