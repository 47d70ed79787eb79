//! Primes for RSA: Gordon's strong primes and FIPS 186-5 appendix B.3.3.

use core::ops::ControlFlow;

use numcrypt_limbs::{MontyParams, Unsigned};
use rand_core::CryptoRng;
use zeroize::Zeroize;

use crate::Error;
use crate::generate::{
    Kind, Outcome, Progress, ProgressFn, generate_prime_with_progress, search_from,
};
use crate::int::PrimeInt;
use crate::mr::{HashBases, MR64_ROUNDS, MillerRabin};
use crate::primality::small_factor_ct;
use crate::table::trial_division_primes;

/// Smallest bit length [`generate_strong_prime`] accepts.
pub const MIN_STRONG_PRIME_BITS: u32 = 160;

/// A random strong prime of exactly `bits` bits (top two bits set), by
/// Gordon's algorithm: `p - 1` has a large prime factor `r`, `p + 1` a
/// large prime factor `s`, and `r - 1` a large prime factor `t`.
///
/// `s` has `bits/2 - 16` bits and `t` has `bits/2 - 32`; `r` is the first
/// prime `2it + 1` from a random 16-bit `i`; `p0 = 2 (s^(r-2) mod r) s - 1`
/// satisfies `p0 ≡ 1 (mod r)` and `p0 ≡ -1 (mod s)`, and `p` is the first
/// prime `p0 + 2jrs` from a random `j` that puts it in range. Each search
/// is the sieve of [`generate_prime`](crate::generate_prime) over an
/// arithmetic progression, with MR64 on the result; all constant time in
/// the same sense. `bits` must be at least [`MIN_STRONG_PRIME_BITS`].
pub fn generate_strong_prime<U: PrimeInt, R: CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
) -> Result<U, Error> {
    generate_strong_prime_with_progress(bits, rng, &mut |_| ControlFlow::Continue(()))
}

/// [`generate_strong_prime`] with a progress callback (counts summed over
/// the four searches).
pub fn generate_strong_prime_with_progress<U: PrimeInt, R: CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
    progress: ProgressFn<'_>,
) -> Result<U, Error> {
    if bits < MIN_STRONG_PRIME_BITS {
        return Err(Error::BitsTooSmall {
            min: MIN_STRONG_PRIME_BITS,
        });
    }
    let zero = U::zero_for_bits(bits)?;
    let mut total = Progress::default();
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let result = loop {
        let mut s = aux_prime(&zero, bits / 2 - 16, rng, &mut total, progress)?;
        let mut t = aux_prime(&zero, bits / 2 - 32, rng, &mut total, progress)?;
        let one = zero.like_u64(1);
        let two = zero.like_u64(2);
        // r = 2 i t + 1 for i from a random 16-bit start.
        let i0 = zero.like_u64((rng.next_u64() & 0x7fff) | 0x8000);
        let step_r = t.shl_vartime(1);
        let start_r = i0.wrapping_mul(&step_r).wrapping_add(&one);
        let rbits = bits / 2 - 32 + 18;
        let found = sub_search(rbits, &start_r, &step_r, &key, &mut total, progress);
        let mut r = match found {
            Outcome::Found(r) => r,
            Outcome::Cancelled => break Err(Error::Cancelled),
            Outcome::Exhausted => continue,
        };
        // p0 = 2 (s^(r-2) mod r) s - 1, in constant time.
        let params = MontyParams::new(r.clone())?;
        let r_minus_2 = r.wrapping_sub(&two);
        let mut u = params.from_monty(&params.pow(&params.to_monty(&s), &r_minus_2));
        let p0 = u.wrapping_mul(&s).shl_vartime(1).wrapping_sub(&one);
        let rs2 = r.wrapping_mul(&s).shl_vartime(1);
        // j between jmin = ceil((3·2^(bits-2) - p0) / 2rs) and about half-way
        // to the top of the range, so the search has room to run.
        let low = zero.like_u64(3).shl_vartime(bits - 2);
        let (jmin, rem) = low.wrapping_sub(&p0).div_rem(&rs2)?;
        let round_up = zero.like_u64(u64::from(!bool::from(rem.is_zero())));
        let jmin = jmin.wrapping_add(&round_up);
        let span = one.shl_vartime(bits - 2).div_rem(&rs2)?.0;
        let offset = U::random_below(rng, &span.shr_vartime(1))?;
        let start = p0.wrapping_add(&jmin.wrapping_add(&offset).wrapping_mul(&rs2));
        let found = sub_search(bits, &start, &rs2, &key, &mut total, progress);
        for v in [&mut s, &mut t, &mut r, &mut u] {
            v.as_mut().zeroize();
        }
        match found {
            Outcome::Found(p) => break Ok(p),
            Outcome::Cancelled => break Err(Error::Cancelled),
            Outcome::Exhausted => continue,
        }
    };
    key.zeroize();
    result
}

/// A random prime of `bits` bits at the width of `zero`, adding its counts
/// to `total`.
fn aux_prime<U: PrimeInt, R: CryptoRng + ?Sized>(
    zero: &U,
    bits: u32,
    rng: &mut R,
    total: &mut Progress,
    progress: ProgressFn<'_>,
) -> Result<U, Error> {
    let base = *total;
    let mut last = Progress::default();
    let v: U = generate_prime_with_progress(bits, rng, &mut |p| {
        last = *p;
        progress(&sum(base, p))
    })?;
    *total = sum(base, &last);
    let mut out = zero.clone();
    let k = v.nlimbs().min(out.nlimbs());
    out.as_mut()[..k].copy_from_slice(&v.as_ref()[..k]);
    let mut v = v;
    v.as_mut().zeroize();
    Ok(out)
}

/// The first prime in `start + i step`, adding its counts to `total`.
fn sub_search<U: Unsigned>(
    bits: u32,
    start: &U,
    step: &U,
    key: &[u8; 32],
    total: &mut Progress,
    progress: ProgressFn<'_>,
) -> Outcome<U> {
    let base = *total;
    let mut state = Progress::default();
    let found = search_from(
        Kind::Prime,
        bits,
        start,
        step,
        key,
        0,
        1,
        &mut state,
        &mut |p| progress(&sum(base, p)),
    );
    *total = sum(base, &state);
    found
}

fn sum(a: Progress, b: &Progress) -> Progress {
    let mut out = a;
    out.candidates += b.candidates;
    out.tests += b.tests;
    out.finalists += b.finalists;
    out
}

/// FIPS 186-5 appendix B.3.3: the two primes of an RSA modulus of `nlen`
/// bits (even, at least 2048) for the odd public exponent `e > 2^16`, as
/// probable primes.
///
/// Each prime is a fresh random `nlen/2`-bit odd candidate, kept when
/// `p >= √2·2^(nlen/2 - 1)` (so `pq` has exactly `nlen` bits) and
/// `gcd(p - 1, e) = 1`, then trial division and MR64 (more rounds than
/// Table B.1 asks for); at most `5·nlen/2` candidates per prime, as the
/// standard says, then [`Error::GenerationFailed`]. `q` must also satisfy
/// `|p - q| > 2^(nlen/2 - 100)`. Fresh candidates are independent of one
/// another, so nothing learnt about a rejected one says anything about the
/// result; every test on a candidate is constant time.
pub fn generate_rsa_primes_fips<U: PrimeInt, R: CryptoRng + ?Sized>(
    nlen: u32,
    e: u64,
    rng: &mut R,
) -> Result<(U, U), Error> {
    if nlen < 2048 || nlen % 2 != 0 {
        return Err(Error::BitsTooSmall { min: 2048 });
    }
    if e % 2 == 0 || e <= 1 << 16 {
        return Err(Error::InvalidExponent);
    }
    let half = nlen / 2;
    let zero = U::zero_for_bits(half)?;
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    let p = fips_prime(&zero, half, e, &key, rng, None)?;
    let q = fips_prime(&zero, half, e, &key, rng, Some(&p))?;
    key.zeroize();
    Ok((p, q))
}

fn fips_prime<U: Unsigned, R: CryptoRng + ?Sized>(
    zero: &U,
    half: u32,
    e: u64,
    key: &[u8; 32],
    rng: &mut R,
    other: Option<&U>,
) -> Result<U, Error> {
    let limbs = half.div_ceil(64) as usize;
    let e_u = zero.like_u64(e);
    let one = zero.like_u64(1);
    let min_gap = one.shl_vartime(half - 100);
    for _ in 0..5 * half {
        let mut c = zero.clone();
        for w in c.as_mut().iter_mut().take(limbs) {
            *w = rng.next_u64();
        }
        let c = c.shr_vartime(64 * limbs as u32 - half);
        let mut c = c;
        c.as_mut()[0] |= 1;
        // p >= √2·2^(half-1) exactly when p² >= 2^(2 half - 1): the top bit
        // of the square (p < 2^half).
        let (lo, hi) = c.widening_square();
        let top = 2 * half - 1;
        let big_enough = if top >= c.bits_precision() {
            hi.bit(top - c.bits_precision())
        } else {
            lo.bit(top)
        };
        // gcd(p - 1, e) = 1 exactly when p - 1 is invertible modulo odd e.
        let coprime = c.wrapping_sub(&one).rem(&e_u)?.inv_mod(&e_u).is_ok();
        let far = match other {
            Some(p) => {
                let diff = if bool::from(c.ct_lt_value(p)) {
                    p.wrapping_sub(&c)
                } else {
                    c.wrapping_sub(p)
                };
                bool::from(min_gap.ct_lt_value(&diff))
            }
            None => true,
        };
        let ok = bool::from(big_enough)
            && coprime
            && far
            && !bool::from(small_factor_ct(
                &c.as_ref()[..limbs],
                trial_division_primes(half),
            ))
            && MillerRabin::new(&c, limbs).is_some_and(|mr| {
                bool::from(
                    mr.rounds_ct(&mut HashBases::new(key, &c.as_ref()[..limbs]), MR64_ROUNDS),
                )
            });
        if ok {
            return Ok(c);
        }
        c.as_mut().zeroize();
    }
    Err(Error::GenerationFailed)
}
