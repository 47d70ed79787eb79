//! Miller–Rabin rounds, in constant time (for secret candidates) and in
//! variable time (for public ones), and where their bases come from.

use numcrypt_limbs::{Limb, MontyForm, MontyParams, PowOperand, Unsigned};
use rand_core::CryptoRng;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConstantTimeEq, ConstantTimeLess};
use zeroize::Zeroize;

/// The constant-time round always performs at least this many squarings
/// after the exponentiation, so that its running time does not reveal
/// `s = v2(n - 1)` unless `s` exceeds it (probability `2^-32` for a random
/// odd candidate).
const CT_SQUARINGS: u32 = 32;

/// Number of rounds in MR64.
pub(crate) const MR64_ROUNDS: usize = 64;

/// Rounds run as one batch of exponentiations: the lanes of the widest
/// batch kernel (eight, AVX-512 IFMA).
pub(crate) const ROUNDS_AT_ONCE: usize = 8;

/// One odd modulus `n > 1` prepared for Miller–Rabin: `n - 1 = 2^s d`.
pub(crate) struct MillerRabin<U: Unsigned> {
    params: MontyParams<U>,
    one: MontyForm<U>,
    minus_one: MontyForm<U>,
    d: U,
    s: u32,
    /// A public bound on the bit length of `d`.
    exp_bits: u32,
    /// The limbs that hold `n` (public), for base derivation.
    limbs: usize,
    /// `2^(64 limbs)` in Montgomery form, for base derivation.
    shift: MontyForm<U>,
}

impl<U: Unsigned> Drop for MillerRabin<U> {
    fn drop(&mut self) {
        self.d.as_mut().zeroize();
        self.s = 0;
    }
}

impl<U: Unsigned> MillerRabin<U> {
    /// Prepares the odd `n > 1`, constant time in `n` (given its width and
    /// the public number of limbs `limbs` that hold it). `None` if `n` is
    /// even or below 3.
    pub(crate) fn new(n: &U, limbs: usize) -> Option<Self> {
        let params = MontyParams::new(n.clone()).ok()?;
        let one = params.one();
        let minus_one = params.neg(&one);
        let n_minus_1 = n.wrapping_sub(&n.like_u64(1));
        let s = n_minus_1.trailing_zeros();
        let d = n_minus_1.shr(s);
        let limbs = limbs.clamp(1, n.nlimbs());
        let shift = if limbs < n.nlimbs() {
            params.to_monty(
                &n.zero_like()
                    .wrapping_add(&n.like_u64(1))
                    .shl_vartime(64 * limbs as u32),
            )
        } else {
            // 2^(64 width) = R, whose plain residue is the raw form of one.
            params.to_monty(one.as_montgomery())
        };
        Some(Self {
            params,
            one,
            minus_one,
            d,
            s,
            exp_bits: 64 * limbs as u32,
            limbs,
            shift,
        })
    }

    pub(crate) fn modulus(&self) -> &U {
        self.params.modulus()
    }

    /// The base 2, in Montgomery form.
    pub(crate) fn two(&self) -> MontyForm<U> {
        self.params.add(&self.one, &self.one)
    }

    /// The base `X mod n` for `X = lo + hi 2^(64 limbs)`, with `lo` and `hi`
    /// given as `limbs` limbs each (`wide.len() == 2 * limbs`); 0 becomes 1.
    ///
    /// For uniform `X` the base is within statistical distance
    /// `n / 2^(128 limbs) < 2^(-64 limbs)` of uniform on `[0, n)` (with 0
    /// moved to 1, a strong liar like every other unit it could be).
    pub(crate) fn base_from_wide(&self, wide: &[Limb]) -> MontyForm<U> {
        let n = self.modulus();
        let mut lo = n.zero_like();
        let mut hi = n.zero_like();
        lo.as_mut()[..self.limbs].copy_from_slice(&wide[..self.limbs]);
        hi.as_mut()[..self.limbs].copy_from_slice(&wide[self.limbs..2 * self.limbs]);
        let high = self.params.mul(&self.params.to_monty(&hi), &self.shift);
        let mut base = self.params.add(&self.params.to_monty(&lo), &high);
        lo.as_mut().zeroize();
        hi.as_mut().zeroize();
        let zero = base.ct_eq(&self.params.zero());
        base.conditional_assign(&self.one, zero);
        base
    }

    /// The cheap filter before the final rounds: Fermat's test to base 2,
    /// `2^(n − 1) ≡ 1 (mod n)`, its verdict public (a candidate that fails
    /// is composite and discarded, and revealing that reveals nothing about
    /// the one kept). One exponentiation, without the constant-time run of
    /// squarings a Miller–Rabin round adds after its own; the final rounds,
    /// which decide, are Miller–Rabin's.
    pub(crate) fn fermat_two_passes(&self) -> bool {
        let mut n_minus_1 = self.n_minus_1();
        let mut x = self
            .params
            .pow_bounded(&self.two(), &n_minus_1, self.exp_bits);
        let pass = numcrypt_limbs::ct_audit::declassify_choice(x.ct_eq(&self.one));
        n_minus_1.as_mut().zeroize();
        x.zeroize();
        pass
    }

    /// `n − 1`, as wide as `n` (secret: the caller wipes it).
    fn n_minus_1(&self) -> U {
        let n = self.modulus();
        n.wrapping_sub(&n.like_u64(1))
    }

    /// The squarings a round makes: `s` revealed only when it exceeds
    /// [`CT_SQUARINGS`] (probability `2^-32` for a random prime).
    fn squarings(&self) -> u32 {
        numcrypt_limbs::ct_audit::declassified(self.s.max(CT_SQUARINGS))
    }

    /// One Miller–Rabin round, constant time in `n` and the base (the
    /// running time reveals `s` only when `s > 32`). True when `base` is
    /// not a witness of compositeness.
    #[cfg(test)]
    pub(crate) fn round_ct(&self, base: &MontyForm<U>) -> Choice {
        self.verdict_ct(self.params.pow_bounded(base, &self.d, self.exp_bits))
    }

    /// The rest of a round from `x = base^d`, constant time as
    /// [`round_ct`](Self::round_ct): true when the base is not a witness
    /// (`x = ±1`, or `x^(2^j) = −1` for some `j < s`). Wipes `x`.
    fn verdict_ct(&self, mut x: MontyForm<U>) -> Choice {
        let p = &self.params;
        let mut pass = x.ct_eq(&self.one) | x.ct_eq(&self.minus_one);
        p.square_repeatedly(&mut x, self.squarings() - 1, |j, y| {
            pass |= y.ct_eq(&self.minus_one) & j.ct_lt(&self.s);
        });
        x.zeroize();
        pass
    }

    /// [`fermat_two_passes`](Self::fermat_two_passes) for many candidates
    /// at once (moduli of one limb count; any is fine, but then they run in
    /// pairs), one verdict each, in order: the exponentiations as one
    /// batch ([`MontyParams::pow_bounded_batch`]: candidates' moduli in
    /// the lanes, eight a pass with AVX-512 IFMA). A search tests the
    /// survivors of trial division this way, several candidates' first
    /// test at the cost of about one.
    #[cfg(feature = "std")] // the FIPS search's, which draws ahead with std
    pub(crate) fn fermat_two_batch(tests: &[&Self]) -> std::vec::Vec<bool> {
        let twos: std::vec::Vec<MontyForm<U>> = tests.iter().map(|t| t.two()).collect();
        let mut exps: std::vec::Vec<U> = tests.iter().map(|t| t.n_minus_1()).collect();
        let operands: std::vec::Vec<PowOperand<'_, U>> = tests
            .iter()
            .zip(&twos)
            .zip(&exps)
            .map(|((t, two), exp)| (&t.params, two, exp.as_ref()))
            .collect();
        let exp_bits = tests.iter().map(|t| t.exp_bits).max().unwrap_or(0);
        let mut xs: std::vec::Vec<MontyForm<U>> = tests.iter().map(|t| t.params.zero()).collect();
        // The lengths match, so the batch runs; were it refused, no
        // candidate would pass.
        let ran = MontyParams::pow_bounded_batch(&operands, exp_bits, &mut xs).is_ok();
        drop(operands);
        for e in exps.iter_mut() {
            e.as_mut().zeroize();
        }
        tests
            .iter()
            .zip(xs)
            .map(|(t, mut x)| {
                let pass = ran && numcrypt_limbs::ct_audit::declassify_choice(x.ct_eq(&t.one));
                x.zeroize();
                pass
            })
            .collect()
    }

    /// Up to [`ROUNDS_AT_ONCE`] Miller–Rabin rounds at once, as
    /// [`round_ct`](Self::round_ct) computes each: true when no base is a
    /// witness. The exponentiations share the modulus and run as one batch
    /// ([`MontyParams::pow_bounded_batch`]): eight lanes of one pass with
    /// AVX-512 IFMA, four with AVX2, interleaved pairs elsewhere.
    pub(crate) fn rounds_ct_batch(&self, bases: &[MontyForm<U>]) -> Choice {
        let count = bases.len().min(ROUNDS_AT_ONCE);
        if count == 0 {
            return Choice::from(1);
        }
        let p = &self.params;
        let d = self.d.as_ref();
        let operands: [PowOperand<'_, U>; ROUNDS_AT_ONCE] =
            core::array::from_fn(|k| (p, &bases[k.min(count - 1)], d));
        let mut xs: [MontyForm<U>; ROUNDS_AT_ONCE] = core::array::from_fn(|_| p.zero());
        let xs = &mut xs[..count];
        // The lengths match, so the batch runs; were it refused, no round
        // would pass.
        let ran = MontyParams::pow_bounded_batch(&operands[..count], self.exp_bits, xs).is_ok();
        xs.iter_mut().fold(Choice::from(ran as u8), |all, x| {
            all & self.verdict_ct(core::mem::replace(x, p.zero()))
        })
    }

    /// One Miller–Rabin round, variable time: for public `n` only.
    pub(crate) fn round_vartime(&self, base: &MontyForm<U>) -> bool {
        let p = &self.params;
        let mut x = p.pow_vartime(base, &self.d);
        if eq_vartime(&x, &self.one) || eq_vartime(&x, &self.minus_one) {
            return true;
        }
        for _ in 1..self.s {
            x = p.square(&x);
            if eq_vartime(&x, &self.minus_one) {
                return true;
            }
            if eq_vartime(&x, &self.one) {
                return false;
            }
        }
        false
    }

    /// `rounds` constant-time rounds with bases from `source`, taken in
    /// order: true when all pass. Always runs every round,
    /// [`ROUNDS_AT_ONCE`] at a time ([`rounds_ct_batch`](Self::rounds_ct_batch)).
    pub(crate) fn rounds_ct(&self, source: &mut impl BaseSource, rounds: usize) -> Choice {
        let mut wide = [0 as Limb; 2 * MAX_BASE_LIMBS];
        let mut all = Choice::from(1);
        let mut left = rounds;
        while left > 0 {
            let count = left.min(ROUNDS_AT_ONCE);
            let bases: [MontyForm<U>; ROUNDS_AT_ONCE] = core::array::from_fn(|k| match k < count {
                true => self.next_base(source, &mut wide),
                false => self.one.clone(),
            });
            all &= self.rounds_ct_batch(&bases[..count]);
            left -= count;
        }
        wide.zeroize();
        all
    }

    /// `rounds` variable-time rounds, stopping at the first witness.
    pub(crate) fn rounds_vartime(&self, source: &mut impl BaseSource, rounds: usize) -> bool {
        let mut wide = [0 as Limb; 2 * MAX_BASE_LIMBS];
        for _ in 0..rounds {
            let base = self.next_base(source, &mut wide);
            if !self.round_vartime(&base) {
                return false;
            }
        }
        true
    }

    /// Limbs of base stream that one round consumes.
    pub(crate) fn limbs_per_base(&self) -> usize {
        2 * self.limbs
    }

    fn next_base(
        &self,
        source: &mut impl BaseSource,
        stack: &mut [Limb; 2 * MAX_BASE_LIMBS],
    ) -> MontyForm<U> {
        let need = 2 * self.limbs;
        if need <= stack.len() {
            source.fill(&mut stack[..need]);
            self.base_from_wide(&stack[..need])
        } else {
            // Wider than the stack buffer: borrow scratch from the modulus type.
            self.modulus().with_scratch::<2, _>(self.limbs, |wide| {
                source.fill(&mut wide[..need]);
                self.base_from_wide(&wide[..need])
            })
        }
    }
}

/// Bases for up to 8192-bit moduli are drawn into a stack buffer.
const MAX_BASE_LIMBS: usize = 128;

/// A stream of random limbs for Miller–Rabin bases.
pub(crate) trait BaseSource {
    fn fill(&mut self, out: &mut [Limb]);
}

/// Bases from a `CryptoRng`.
pub(crate) struct RngBases<'a, R: CryptoRng + ?Sized>(pub(crate) &'a mut R);

impl<R: CryptoRng + ?Sized> BaseSource for RngBases<'_, R> {
    fn fill(&mut self, out: &mut [Limb]) {
        for x in out {
            *x = self.0.next_u64();
        }
    }
}

/// Bases derived from SHA-256 of a key and the candidate, in counter mode:
/// block `i` is `SHA-256(DOMAIN || key || len || n || i)`.
#[derive(Clone)]
pub(crate) struct HashBases {
    prefix: Sha256,
    counter: u64,
    buf: [u8; 32],
    used: usize,
}

/// Domain separation for the base derivation (versioned: changing it
/// changes every answer's bases).
const DOMAIN: &[u8] = b"numcrypt-prime MR64 bases v1\0";

impl HashBases {
    /// Bases for `n` (its significant `limbs` limbs), under `key`: the zero
    /// key for the public test, a random key for generation.
    pub(crate) fn new(key: &[u8; 32], n: &[Limb]) -> Self {
        let mut prefix = Sha256::new();
        prefix.update(DOMAIN);
        prefix.update(key);
        prefix.update((n.len() as u64).to_be_bytes());
        for limb in n.iter().rev() {
            prefix.update(limb.to_be_bytes());
        }
        Self {
            prefix,
            counter: 0,
            buf: [0; 32],
            used: 32,
        }
    }
}

impl HashBases {
    /// Skips `limbs` limbs of the stream (to the bases of a later round).
    pub(crate) fn skip_limbs(&mut self, limbs: usize) {
        let bytes = 8 * limbs;
        if self.used + bytes <= 32 {
            self.used += bytes;
            return;
        }
        let past = bytes - (32 - self.used);
        self.counter += (past / 32) as u64;
        self.used = 32;
        let within = past % 32;
        if within != 0 {
            self.refill();
            self.used = within;
        }
    }

    fn refill(&mut self) {
        let mut h = self.prefix.clone();
        h.update(self.counter.to_be_bytes());
        self.counter += 1;
        self.buf.copy_from_slice(&h.finalize());
        self.used = 0;
    }
}

impl BaseSource for HashBases {
    fn fill(&mut self, out: &mut [Limb]) {
        for x in out {
            if self.used == 32 {
                self.refill();
            }
            let mut limb = [0u8; 8];
            limb.copy_from_slice(&self.buf[self.used..self.used + 8]);
            *x = u64::from_be_bytes(limb);
            self.used += 8;
        }
    }
}

impl Drop for HashBases {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

fn eq_vartime<U: Unsigned>(a: &MontyForm<U>, b: &MontyForm<U>) -> bool {
    a.as_montgomery().as_ref() == b.as_montgomery().as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use numcrypt_limbs::Uint;

    /// A batch of rounds answers as the rounds alone do, with strong
    /// liars among the bases (2 for 2047 = 23·89 and for the Arnault-style
    /// 3215031751 = 151·751·28351, which fools bases 2, 3, 5 and 7), at
    /// every batch size.
    #[test]
    fn batches_answer_as_single_rounds() {
        for n in [
            2047u64,
            3_215_031_751,
            1_000_000_007,
            4_294_967_291,
            999_999_999_989 * 3,
        ] {
            let mr = MillerRabin::new(&Uint::<1>::from_u64(n), 1).unwrap();
            let base = |b: u64| mr.params.to_monty(&Uint::<1>::from_u64(b));
            let all = [2, 3, 5, 7, 11, 12_345, 2, 7];
            for start in 0..all.len() {
                for count in 1..=all.len() - start {
                    let bases: [_; 8] = core::array::from_fn(|k| base(all[(start + k).min(7)]));
                    let bases = &bases[..count];
                    let single = bases
                        .iter()
                        .fold(Choice::from(1), |acc, b| acc & mr.round_ct(b));
                    assert_eq!(
                        bool::from(mr.rounds_ct_batch(bases)),
                        bool::from(single),
                        "{n}, bases {:?}",
                        &all[start..start + count]
                    );
                }
            }
        }
    }

    /// Fermat's test to base 2, alone and in batches of every size, against
    /// `2^(n−1) mod n` by num-bigint, on primes, base-2 Fermat
    /// pseudoprimes (341 = 11·31, the Carmichael number 561, 2047) and
    /// other composites.
    #[test]
    #[cfg(feature = "std")]
    fn fermat_test_matches_num_bigint() {
        extern crate std;
        use num_bigint::BigUint;
        let ns = [
            341u64,
            561,
            2047,
            3_215_031_751,
            1_000_000_007,
            4_294_967_291,
            999_999_999_989 * 3,
            (1 << 61) - 1,
            ((1u64 << 31) - 1) * 2_147_483_629,
        ];
        let tests: std::vec::Vec<MillerRabin<Uint<1>>> = ns
            .iter()
            .map(|&n| MillerRabin::new(&Uint::<1>::from_u64(n), 1).unwrap())
            .collect();
        let expected: std::vec::Vec<bool> = ns
            .iter()
            .map(|&n| {
                BigUint::from(2u8).modpow(&BigUint::from(n - 1), &BigUint::from(n))
                    == BigUint::from(1u8)
            })
            .collect();
        assert_eq!(expected[..3], [true, true, true], "the pseudoprimes pass");
        for (t, &want) in tests.iter().zip(&expected) {
            assert_eq!(t.fermat_two_passes(), want, "{}", ns[0]);
        }
        let each: std::vec::Vec<&MillerRabin<Uint<1>>> = tests.iter().collect();
        for start in 0..each.len() {
            for end in start..=each.len() {
                assert_eq!(
                    MillerRabin::fermat_two_batch(&each[start..end]),
                    expected[start..end],
                    "batch {start}..{end}"
                );
            }
        }
    }

    #[test]
    fn skipping_lands_where_reading_does() {
        let key = [7u8; 32];
        let n = [0x1234_5678_9abc_def1u64, 42, 1];
        for skip in [0usize, 1, 3, 4, 5, 8, 9, 17, 64] {
            let mut read = HashBases::new(&key, &n);
            let mut sink = [0 as Limb; 64];
            read.fill(&mut sink[..skip]);
            let mut skipped = HashBases::new(&key, &n);
            skipped.skip_limbs(skip);
            for _ in 0..3 {
                let (mut a, mut b) = ([0 as Limb; 5], [0 as Limb; 5]);
                read.fill(&mut a);
                skipped.fill(&mut b);
                assert_eq!(a, b, "after skipping {skip}");
            }
        }
    }
}
