//! Arithmetic the protocol shares: Shamir sharing over `Z_m` (a prime
//! field, the sieve ring `Z_M`, or `Z_N`), Lagrange interpolation, hashing
//! to residues, and constant-time remainders by a small public modulus.

use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned};
use rand_core::CryptoRng;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeLess};
use zeroize::{Zeroize, Zeroizing};

use crate::Error;

/// A residue modulo a [`Ring`]'s modulus, in Montgomery form.
pub(crate) type Elem = MontyForm<BoxedUint>;

/// `Z_m` for an odd `m` whose prime factors all exceed the number of parties
/// (so that the differences of the evaluation points `1..=n` are units):
/// BGW's arithmetic, on the limbs crate's Montgomery forms.
///
/// Every operation on shares is constant time; the modulus and the party
/// count are public.
pub(crate) struct Ring {
    params: MontyParams<BoxedUint>,
    bytes: usize,
    /// Montgomery forms of the evaluation points `1..=n`.
    points: Vec<Elem>,
}

impl Ring {
    /// The ring modulo the odd `modulus > n`, for `n` parties.
    pub(crate) fn new(modulus: BoxedUint, n: usize) -> Result<Self, Error> {
        let bits = modulus.bits_vartime();
        let modulus = modulus.resize(bits.div_ceil(64) as usize)?;
        let params = MontyParams::new(modulus)?;
        let width = params.modulus().nlimbs();
        let points = (1..=n as u64)
            .map(|x| params.to_monty(&BoxedUint::from_u64(x, width)))
            .collect();
        Ok(Self {
            params,
            bytes: bits.div_ceil(8) as usize,
            points,
        })
    }

    /// The modulus.
    pub(crate) fn modulus(&self) -> &BoxedUint {
        self.params.modulus()
    }

    /// The Montgomery parameters.
    pub(crate) fn params(&self) -> &MontyParams<BoxedUint> {
        &self.params
    }

    /// Bytes of one element on the wire.
    pub(crate) fn elem_bytes(&self) -> usize {
        self.bytes
    }

    /// `x mod m` in Montgomery form (any width, any size).
    pub(crate) fn elem(&self, x: &BoxedUint) -> Elem {
        self.params.to_monty(x)
    }

    /// The small integer `v` as an element.
    pub(crate) fn small(&self, v: u64) -> Elem {
        self.params
            .to_monty(&BoxedUint::from_u64(v, self.modulus().nlimbs()))
    }

    /// The residue in `[0, m)`.
    pub(crate) fn value(&self, x: &Elem) -> BoxedUint {
        self.params.from_monty(x)
    }

    /// A uniformly random element.
    pub(crate) fn random<R: CryptoRng + ?Sized>(&self, rng: &mut R) -> Elem {
        let mut r = Zeroizing::new(
            BoxedUint::random_below(rng, self.modulus())
                .unwrap_or_else(|_| self.modulus().zero_like()),
        );
        let e = self.params.to_monty(&r);
        r.zeroize();
        e
    }

    pub(crate) fn add(&self, a: &Elem, b: &Elem) -> Elem {
        self.params.add(a, b)
    }

    pub(crate) fn sub(&self, a: &Elem, b: &Elem) -> Elem {
        self.params.sub(a, b)
    }

    pub(crate) fn mul(&self, a: &Elem, b: &Elem) -> Elem {
        self.params.mul(a, b)
    }

    pub(crate) fn zero(&self) -> Elem {
        self.params.zero()
    }

    /// Shamir shares of `secret` with a random polynomial of `degree`: the
    /// values at `1..=n`, party `j` (0-based) taking entry `j`.
    pub(crate) fn share<R: CryptoRng + ?Sized>(
        &self,
        secret: &Elem,
        degree: usize,
        rng: &mut R,
    ) -> Zeroizing<Vec<Elem>> {
        let mut coeffs = Zeroizing::new(Vec::with_capacity(degree));
        for _ in 0..degree {
            coeffs.push(self.random(rng));
        }
        // Horner from the top coefficient down to the secret.
        let shares = self
            .points
            .iter()
            .map(|x| {
                let mut acc = self.zero();
                for c in coeffs.iter().rev() {
                    acc = self.mul(&self.add(&acc, c), x);
                }
                self.add(&acc, secret)
            })
            .collect();
        Zeroizing::new(shares)
    }

    /// Encodes an element as fixed-length big-endian bytes.
    pub(crate) fn write(&self, x: &Elem, out: &mut Vec<u8>) {
        let v = Zeroizing::new(self.value(x));
        let start = out.len();
        out.resize(start + self.bytes, 0);
        // The residue is below the modulus, which fits `bytes`.
        let _ = v.write_be_bytes(&mut out[start..]);
    }

    /// Decodes an element written by [`write`](Self::write): exactly
    /// `elem_bytes` bytes, below the modulus.
    pub(crate) fn read(&self, bytes: &[u8]) -> Option<Elem> {
        if bytes.len() != self.bytes {
            return None;
        }
        let v =
            Zeroizing::new(BoxedUint::from_be_slice(bytes, self.modulus().bits_precision()).ok()?);
        // Out of range is reported, so the verdict is public.
        if !numcrypt_limbs::ct_audit::declassify_choice(v.ct_lt(self.modulus())) {
            return None;
        }
        Some(self.params.to_monty(&v))
    }

    /// Lagrange coefficients that evaluate at `at` the polynomial through
    /// the points `xs` (small public integers, distinct, none equal to
    /// another modulo any prime factor of the modulus).
    pub(crate) fn lagrange(&self, xs: &[u64], at: u64) -> Result<Vec<Elem>, Error> {
        let m = self.modulus();
        let width = m.nlimbs();
        // A signed small integer as a residue.
        let residue = |v: i128| -> BoxedUint {
            let small = BoxedUint::from_u64(v.unsigned_abs() as u64, width);
            if v < 0 { m.wrapping_sub(&small) } else { small }
        };
        xs.iter()
            .map(|&xi| {
                let mut num = self.small(1);
                let mut den = self.small(1);
                for &xj in xs.iter().filter(|&&xj| xj != xi) {
                    num = self.mul(&num, &self.elem(&residue(at as i128 - xj as i128)));
                    den = self.mul(&den, &self.elem(&residue(xi as i128 - xj as i128)));
                }
                let inv = self.value(&den).inv_mod_vartime(m)?;
                Ok(self.mul(&num, &self.elem(&inv)))
            })
            .collect()
    }
}

/// Interpolation at 0 of values shared among `n` parties with a polynomial
/// of degree `degree`, using the first `degree + 1` shares and checking that
/// every further share lies on the same polynomial.
pub(crate) struct Interpolator {
    degree: usize,
    at_zero: Vec<Elem>,
    /// For each extra party `k > degree`: coefficients that predict its share.
    checks: Vec<Vec<Elem>>,
}

impl Interpolator {
    pub(crate) fn new(ring: &Ring, n: usize, degree: usize) -> Result<Self, Error> {
        let xs: Vec<u64> = (1..=(degree as u64 + 1)).collect();
        let at_zero = ring.lagrange(&xs, 0)?;
        let checks = ((degree + 1)..n)
            .map(|k| ring.lagrange(&xs, k as u64 + 1))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            degree,
            at_zero,
            checks,
        })
    }

    /// The Lagrange coefficient at 0 of party `j` (0-based) when it is
    /// among the first `degree + 1` parties, else `None`.
    pub(crate) fn coefficient(&self, j: usize) -> Option<&Elem> {
        self.at_zero.get(j)
    }

    /// The secret from all `n` shares, or an error if they do not lie on one
    /// polynomial of the degree.
    pub(crate) fn interpolate(
        &self,
        ring: &Ring,
        shares: &[Elem],
        what: &'static str,
    ) -> Result<Elem, Error> {
        let used = &shares[..=self.degree];
        let combine = |coeffs: &[Elem]| {
            coeffs
                .iter()
                .zip(used)
                .fold(ring.zero(), |acc, (c, s)| ring.add(&acc, &ring.mul(c, s)))
        };
        for (k, coeffs) in self.checks.iter().enumerate() {
            let predicted = combine(coeffs);
            if !bool::from(subtle::ConstantTimeEq::ct_eq(
                &predicted,
                &shares[self.degree + 1 + k],
            )) {
                return Err(Error::InconsistentShares { what });
            }
        }
        Ok(combine(&self.at_zero))
    }
}

/// `x mod e` for a small odd public `e` (`3 <= e < 2^32`), constant time in
/// `x` (Barrett reduction of 32-bit digits, masked corrections).
pub(crate) fn rem_small(x: &BoxedUint, e: u32) -> u32 {
    let e64 = u64::from(e);
    let m = u64::MAX / e64;
    let reduce = |v: u64| -> u64 {
        let q = ((u128::from(v) * u128::from(m)) >> 64) as u64;
        let mut r = v - q * e64; // below 3e
        for _ in 0..2 {
            let (d, borrow) = r.overflowing_sub(e64);
            // `subtle`'s selection: with plain masks the compiler branched
            // on the borrow (memcheck found it).
            r = u64::conditional_select(&d, &r, Choice::from(u8::from(borrow)));
        }
        r
    };
    let mut acc = 0u64;
    for &limb in x.as_words().iter().rev() {
        acc = reduce((acc << 32) | (limb >> 32));
        acc = reduce((acc << 32) | (limb & 0xffff_ffff));
    }
    acc as u32
}

/// A uniformly random value in `[0, bound)` for a public `bound >= 1`:
/// the high half of a 64×64-bit product, with the draws whose low half
/// falls below `2^64 mod bound` rejected (Lemire's method), so that every
/// value has exactly `⌊2^64 / bound⌋` draws. Constant time in the result:
/// a rejected draw is discarded, so how many there were says nothing
/// about the one kept.
pub(crate) fn random_small<R: CryptoRng + ?Sized>(rng: &mut R, bound: u64) -> u64 {
    let bound = bound.max(1);
    // 2^64 mod bound, for the public bound.
    let threshold = bound.wrapping_neg() % bound;
    loop {
        let product = u128::from(rng.next_u64()) * u128::from(bound);
        let low = product as u64;
        // Whether this draw is kept is independent of the value kept.
        if numcrypt_limbs::ct_audit::declassified(low) >= threshold {
            return (product >> 64) as u64;
        }
    }
}

/// A public residue modulo `m` derived from `parts` with SHA-256 in counter
/// mode (128 bits more than `m`, so the bias is below `2^-128`).
pub(crate) fn hash_to_residue(m: &BoxedUint, domain: &[u8], parts: &[&[u8]]) -> BoxedUint {
    let bytes = (m.bits_vartime() as usize + 128).div_ceil(8);
    let mut out = Vec::with_capacity(bytes + 32);
    let mut counter: u32 = 0;
    while out.len() < bytes {
        let mut h = Sha256::new();
        h.update((domain.len() as u32).to_be_bytes());
        h.update(domain);
        for p in parts {
            h.update((p.len() as u32).to_be_bytes());
            h.update(p);
        }
        h.update(counter.to_be_bytes());
        out.extend_from_slice(&h.finalize());
        counter += 1;
    }
    out.truncate(bytes);
    let x = BoxedUint::from_be_slice_auto(&out);
    // `m` is non-zero for every caller (a modulus).
    x.rem_vartime(m).unwrap_or_else(|_| m.zero_like())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn rem_small_matches_division() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        for e in [3u32, 5, 65537, 4_294_967_291, 1_000_003] {
            for _ in 0..200 {
                let x = BoxedUint::random_bits(&mut rng, 700, 11);
                let r = x.rem_limb_vartime(u64::from(e)).unwrap();
                assert_eq!(u64::from(rem_small(&x, e)), r);
            }
        }
    }

    /// With `bound = 3·2^62` each value has 4/3 draws on average: the old
    /// multiply-high draw gave the values `≡ 0 (mod 3)` two draws and the
    /// others one (half the results against a quarter each); rejection
    /// makes the three classes equally likely.
    #[test]
    fn small_draws_are_unbiased() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let bound = 3u64 << 62;
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            let x = random_small(&mut rng, bound);
            assert!(x < bound);
            counts[(x % 3) as usize] += 1;
        }
        // Each class should hold 10,000 ± a few hundred.
        for c in counts {
            assert!((9_400..=10_600).contains(&c), "{counts:?}");
        }
        for bound in [1u64, 2, 3, 5, 65537, u64::MAX] {
            for _ in 0..100 {
                assert!(random_small(&mut rng, bound) < bound);
            }
        }
    }

    #[test]
    fn shamir_round_trip_and_consistency() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let m: BoxedUint = "0xffffffffffffffffffffffffffffff61".parse().unwrap();
        for n in 3..8usize {
            let ring = Ring::new(m.clone(), n).unwrap();
            let t = (n - 1) / 2;
            let secret = ring.random(&mut rng);
            let shares = ring.share(&secret, t, &mut rng);
            let interp = Interpolator::new(&ring, n, t).unwrap();
            let got = interp.interpolate(&ring, &shares, "test").unwrap();
            assert_eq!(ring.value(&got), ring.value(&secret));
            if n > t + 1 {
                let mut bad = shares.to_vec();
                bad[n - 1] = ring.add(&bad[n - 1], &ring.small(1));
                assert!(interp.interpolate(&ring, &bad, "test").is_err());
            }
        }
    }
}
