//! Domain parameters `(p, q, g)`: FIPS 186-4 sizes, generation from a seed
//! (A.1.1.2), generators (A.2.1, A.2.3), and validation (A.1.1.3, A.2.4).

use alloc::vec;
use alloc::vec::Vec;
use core::ops::ControlFlow;

use numcrypt_limbs::{BoxedUint, MontyForm, MontyParams, Unsigned, limbs_for_bits};
use numcrypt_prime::is_prime_vartime;
use rand_core::CryptoRng;

use crate::arith::WideReducer;
use crate::{Error, HashAlg, Subgroup};

/// The `(L, N)` pairs of FIPS 186-4 section 4.2: `L` bits for `p`, `N`
/// for `q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParameterSizes {
    /// (1024, 160): for verifying existing signatures only (FIPS 186-4
    /// still lists it; SP 800-131A retired it for signing).
    L1024N160,
    /// (2048, 224).
    L2048N224,
    /// (2048, 256).
    L2048N256,
    /// (3072, 256).
    L3072N256,
}

impl ParameterSizes {
    /// Every pair, smallest first.
    pub const ALL: [ParameterSizes; 4] = [
        ParameterSizes::L1024N160,
        ParameterSizes::L2048N224,
        ParameterSizes::L2048N256,
        ParameterSizes::L3072N256,
    ];

    /// Bit length of `p`.
    pub const fn l(self) -> u32 {
        match self {
            ParameterSizes::L1024N160 => 1024,
            ParameterSizes::L2048N224 | ParameterSizes::L2048N256 => 2048,
            ParameterSizes::L3072N256 => 3072,
        }
    }

    /// Bit length of `q`.
    pub const fn n(self) -> u32 {
        match self {
            ParameterSizes::L1024N160 => 160,
            ParameterSizes::L2048N224 => 224,
            ParameterSizes::L2048N256 | ParameterSizes::L3072N256 => 256,
        }
    }

    /// The pair `(l, n)`, or [`Error::UnsupportedSizes`].
    pub fn new(l: u32, n: u32) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|s| s.l() == l && s.n() == n)
            .ok_or(Error::UnsupportedSizes { l, n })
    }

    /// Whether new parameters, keys and signatures may be made at this size
    /// (all but (1024, 160)).
    pub const fn can_sign(self) -> bool {
        !matches!(self, ParameterSizes::L1024N160)
    }

    fn require_signing(self) -> Result<(), Error> {
        if self.can_sign() {
            Ok(())
        } else {
            Err(Error::VerifyOnly)
        }
    }
}

/// What lets anyone check that `p`, `q` (and `g`) were generated from a
/// seed rather than chosen: FIPS 186-4's `domain_parameter_seed` and
/// `counter` (A.1.1.2), and the `index` of a verifiable generator (A.2.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationParameters {
    /// The hash used for the seed expansion (and for `g`).
    pub hash: HashAlg,
    /// `domain_parameter_seed`, at least `N` bits.
    pub seed: Vec<u8>,
    /// The counter at which `p` was found (at most `4L − 1`).
    pub counter: u32,
    /// The index `g` was derived with (A.2.3), or `None` for a generator
    /// made by A.2.1, which cannot be verified.
    pub index: Option<u8>,
}

/// How to choose the generator `g`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratorMethod {
    /// FIPS 186-4 A.2.3: `g` derived from the seed and an index, so that
    /// anyone can check (A.2.4) that it was not chosen with a trapdoor.
    Verifiable {
        /// Any byte; different indexes give independent generators (FIPS
        /// suggests one per purpose).
        index: u8,
    },
    /// FIPS 186-4 A.2.1: `g = h^((p−1)/q)` for the first `h = 2, 3, …`
    /// that gives `g ≠ 1` (what `openssl dsaparam` does).
    Unverifiable,
}

/// Options for [`DomainParameters::generate_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenerationOptions {
    /// `(L, N)`; (1024, 160) is refused.
    pub sizes: ParameterSizes,
    /// The hash for the seed expansion: its output must have at least `N`
    /// bits.
    pub hash: HashAlg,
    /// Seed length in bytes: at least `N / 8`.
    pub seed_len: usize,
    /// How to choose `g`.
    pub generator: GeneratorMethod,
}

impl GenerationOptions {
    /// The defaults for `sizes`: the shortest SHA-2 with `outlen ≥ N`
    /// (SHA-224 for `N = 224`, SHA-256 for `N = 256`, as OpenSSL), an
    /// `N`-bit seed, and a verifiable generator with index 1.
    pub fn new(sizes: ParameterSizes) -> Self {
        Self {
            sizes,
            hash: HashAlg::shortest_sha2_for_bits(sizes.n()).unwrap_or(HashAlg::Sha512),
            seed_len: sizes.n() as usize / 8,
            generator: GeneratorMethod::Verifiable { index: 1 },
        }
    }
}

/// How far a parameter generation has got, as reported to the progress
/// callback.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Seeds drawn (each gives one candidate `q`).
    pub seeds: u64,
    /// Candidates `p` derived (for the current and earlier seeds).
    pub p_candidates: u64,
    /// Primality tests started (on `q` and `p` candidates that survived
    /// the cheap checks).
    pub prime_tests: u64,
}

/// A progress callback: return `ControlFlow::Break(())` to cancel (the
/// generation then fails with [`Error::Cancelled`]).
pub type ProgressFn<'a> = &'a mut dyn FnMut(&Progress) -> ControlFlow<()>;

/// DSA domain parameters `(p, q, g)`: `p` an `L`-bit prime, `q` an `N`-bit
/// prime dividing `p − 1`, and `g` of order `q` modulo `p`.
///
/// Every constructor runs the cheap checks (the sizes are a FIPS 186-4
/// pair, `p` and `q` odd, `q | p − 1`, `2 ≤ g ≤ p − 1`, `g^q ≡ 1`), which
/// catch malformed or mixed-up values for the price of one short
/// exponentiation. Primality and the seed are checked by
/// [`validate`](Self::validate), which costs about as much as generating
/// the parameters: call it once on parameters received from elsewhere.
///
/// The Montgomery constants for `p` and `q` are computed once here and
/// shared by every key and signature made with these parameters.
///
/// `p`, `q`, `g` and their arithmetic are the [`Subgroup`]'s, reached
/// through `Deref`.
#[derive(Clone, Debug)]
pub struct DomainParameters {
    group: Subgroup,
    sizes: ParameterSizes,
    validation: Option<ValidationParameters>,
    q_reducer: WideReducer,
}

impl core::ops::Deref for DomainParameters {
    type Target = Subgroup;

    fn deref(&self) -> &Subgroup {
        &self.group
    }
}

impl PartialEq for DomainParameters {
    fn eq(&self, other: &Self) -> bool {
        self.p() == other.p() && self.q() == other.q() && self.g() == other.g()
    }
}

impl Eq for DomainParameters {}

impl DomainParameters {
    /// Parameters from their values, after the cheap checks (see the type's
    /// documentation); [`validate`](Self::validate) checks primality.
    pub fn new(p: BoxedUint, q: BoxedUint, g: BoxedUint) -> Result<Self, Error> {
        let sizes = ParameterSizes::new(p.bits_vartime(), q.bits_vartime())?;
        let p = p.at_width(limbs_for_bits(sizes.l()));
        let q = q.at_width(limbs_for_bits(sizes.n()));
        if !bool::from(p.is_odd()) {
            return Err(Error::PNotPrime);
        }
        if !bool::from(q.is_odd()) {
            return Err(Error::QNotPrime);
        }
        let one = p.like_u64(1);
        let p_minus_1 = p.wrapping_sub(&one);
        if !bool::from(p_minus_1.rem_vartime(&q)?.is_zero()) {
            return Err(Error::QDoesNotDivideP);
        }
        // 2 ≤ g ≤ p − 1, then g has order q (q is prime, so g^q = 1 with
        // g ≠ 1 means order exactly q; primality is validate's job).
        if g.bits_vartime() > sizes.l() || g < p.like_u64(2) || g > p_minus_1 {
            return Err(Error::InvalidGenerator);
        }
        let g = g.at_width(p.nlimbs());
        let group = Subgroup::new(p, q, g)?;
        let pm = group.p_monty();
        if pm.pow_vartime(group.g_monty(), group.q()) != pm.one() {
            return Err(Error::InvalidGenerator);
        }
        Ok(Self {
            q_reducer: WideReducer::new(group.q_monty()),
            group,
            sizes,
            validation: None,
        })
    }

    /// Parameters with the seed, counter and (optional) index they were
    /// generated from, after the cheap checks and a check of the seed's
    /// length and hash; [`validate`](Self::validate) then regenerates them.
    pub fn with_validation(
        p: BoxedUint,
        q: BoxedUint,
        g: BoxedUint,
        validation: ValidationParameters,
    ) -> Result<Self, Error> {
        let mut params = Self::new(p, q, g)?;
        check_seed_shape(params.sizes, &validation)?;
        params.validation = Some(validation);
        Ok(params)
    }

    /// Generates parameters of the given sizes with the default options
    /// ([`GenerationOptions::new`]): FIPS 186-4 A.1.1.2 from a random seed,
    /// and a verifiable generator (A.2.3, index 1).
    ///
    /// The time varies widely (the search length is geometric); see
    /// `benches/RESULTS.md` for the figures.
    pub fn generate<R: CryptoRng + ?Sized>(
        sizes: ParameterSizes,
        rng: &mut R,
    ) -> Result<Self, Error> {
        Self::generate_with(&GenerationOptions::new(sizes), rng, &mut |_| {
            ControlFlow::Continue(())
        })
    }

    /// Generates parameters by FIPS 186-4 A.1.1.2 (probable primes from a
    /// seed; the seed and counter are kept in
    /// [`validation_parameters`](Self::validation_parameters)), then `g` by
    /// A.2.3 or A.2.1. `p` and `q` pass MR64 (64 Miller–Rabin rounds, more
    /// than the 56 and 64 of FIPS 186-4 table C.1), run only on candidates
    /// that survive trial division.
    ///
    /// The progress callback is called after each candidate `q` and `p`.
    pub fn generate_with<R: CryptoRng + ?Sized>(
        options: &GenerationOptions,
        rng: &mut R,
        progress: ProgressFn<'_>,
    ) -> Result<Self, Error> {
        let sizes = options.sizes;
        sizes.require_signing()?;
        if options.hash.output_bits() < sizes.n() {
            return Err(Error::HashTooShort);
        }
        if (options.seed_len as u64) * 8 < sizes.n() as u64 {
            return Err(Error::SeedTooShort);
        }
        let expander = SeedExpander::new(sizes, options.hash);
        let mut counts = Progress::default();
        let mut seed = vec![0u8; options.seed_len];
        let (p, q, counter) = 'seeds: loop {
            rng.fill_bytes(&mut seed);
            counts.seeds += 1;
            let q = expander.q_candidate(&seed);
            counts.prime_tests += 1;
            let q_prime = is_prime_vartime(&q);
            report(progress, &counts)?;
            if !q_prime {
                continue;
            }
            let q2 = twice(&q);
            for (counter, p) in expander.p_candidates(&seed, &q2).enumerate() {
                counts.p_candidates += 1;
                if p.bits_vartime() == sizes.l() {
                    counts.prime_tests += 1;
                    if is_prime_vartime(&p) {
                        report(progress, &counts)?;
                        break 'seeds (p, q, counter as u32);
                    }
                }
                report(progress, &counts)?;
            }
        };
        let p_monty = MontyParams::new(p.clone())?;
        let e = cofactor(&p, &q)?;
        let (g, index) = match options.generator {
            GeneratorMethod::Verifiable { index } => (
                verifiable_generator(options.hash, &seed, index, &p_monty, &e)?,
                Some(index),
            ),
            GeneratorMethod::Unverifiable => (unverifiable_generator(&p_monty, &e)?, None),
        };
        let validation = ValidationParameters {
            hash: options.hash,
            seed,
            counter,
            index,
        };
        Self::with_validation(p, q, g, validation)
    }

    /// Full validation: `q` and `p` are prime (MR64), and, when the seed is
    /// known, they follow from it at the stated counter (FIPS 186-4
    /// A.1.1.3, which also requires every earlier candidate to be
    /// composite), and a verifiable `g` follows from the seed and index
    /// (A.2.4). Without a seed only primality and the cheap checks can be
    /// done (A.2.2's partial validation of `g`).
    ///
    /// Costs about as much as generating the parameters (every candidate up
    /// to the counter is tested again).
    pub fn validate(&self) -> Result<(), Error> {
        let Some(v) = &self.validation else {
            if !is_prime_vartime(self.q()) {
                return Err(Error::QNotPrime);
            }
            if !is_prime_vartime(self.p()) {
                return Err(Error::PNotPrime);
            }
            return Ok(());
        };
        check_seed_shape(self.sizes, v)?;
        let expander = SeedExpander::new(self.sizes, v.hash);
        let computed_q = expander.q_candidate(&v.seed);
        if computed_q != *self.q() {
            return Err(Error::SeedMismatch);
        }
        if !is_prime_vartime(self.q()) {
            return Err(Error::QNotPrime);
        }
        let q2 = twice(self.q());
        let mut found = None;
        for (i, p) in expander.p_candidates(&v.seed, &q2).enumerate() {
            if i as u64 > v.counter as u64 {
                break;
            }
            if p.bits_vartime() == self.sizes.l() && is_prime_vartime(&p) {
                found = Some((i as u32, p));
                break;
            }
        }
        match found {
            Some((i, p)) if i == v.counter && p == *self.p() => {}
            _ => return Err(Error::SeedMismatch),
        }
        if let Some(index) = v.index {
            let e = cofactor(self.p(), self.q())?;
            let g = verifiable_generator(v.hash, &v.seed, index, self.p_monty(), &e)?;
            if g != *self.g() {
                return Err(Error::GeneratorMismatch);
            }
        }
        Ok(())
    }

    /// `(L, N)`.
    pub fn sizes(&self) -> ParameterSizes {
        self.sizes
    }

    /// The seed, counter and index, when known (generated here, or read
    /// from a file that kept them).
    pub fn validation_parameters(&self) -> Option<&ValidationParameters> {
        self.validation.as_ref()
    }

    /// Parameters with the seed (and index) removed, as they are after a
    /// round trip through a plain `DSA PARAMETERS` file.
    pub fn without_validation_parameters(&self) -> Self {
        Self {
            validation: None,
            ..self.clone()
        }
    }

    /// Bytes in `r`, `s` and `x`: `⌈N/8⌉`.
    pub fn scalar_len(&self) -> usize {
        self.sizes.n().div_ceil(8) as usize
    }

    /// Bytes in `p`, `g` and `y`: `⌈L/8⌉`.
    pub fn element_len(&self) -> usize {
        self.sizes.l().div_ceil(8) as usize
    }

    pub(crate) fn require_signing(&self) -> Result<(), Error> {
        self.sizes.require_signing()
    }

    /// `x mod q` in Montgomery form, for `x` of any width, in constant
    /// time.
    pub(crate) fn reduce_mod_q(&self, x: &BoxedUint) -> MontyForm<BoxedUint> {
        self.q_reducer.reduce(self.q_monty(), x)
    }
}

fn report(progress: ProgressFn<'_>, counts: &Progress) -> Result<(), Error> {
    match progress(counts) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(Error::Cancelled),
    }
}

fn check_seed_shape(sizes: ParameterSizes, v: &ValidationParameters) -> Result<(), Error> {
    if v.hash.output_bits() < sizes.n() {
        return Err(Error::HashTooShort);
    }
    if (v.seed.len() as u64) * 8 < sizes.n() as u64 {
        return Err(Error::SeedTooShort);
    }
    if v.counter >= 4 * sizes.l() {
        return Err(Error::SeedMismatch);
    }
    Ok(())
}

/// `2q`, one bit wider than `q` (which may fill its limbs).
fn twice(q: &BoxedUint) -> BoxedUint {
    q.at_width(q.nlimbs() + 1).shl_vartime(1)
}

/// `e = (p − 1)/q`.
fn cofactor(p: &BoxedUint, q: &BoxedUint) -> Result<BoxedUint, Error> {
    let p_minus_1 = p.wrapping_sub(&p.like_u64(1));
    Ok(p_minus_1.div_rem_vartime(q)?.0)
}

/// FIPS 186-4 A.1.1.2's expansion of a seed into the candidates `q` and
/// `p`, shared by generation and validation.
struct SeedExpander {
    sizes: ParameterSizes,
    hash: HashAlg,
    /// `n = ⌈L / outlen⌉ − 1`: hash blocks below the top one.
    blocks: u64,
}

impl SeedExpander {
    fn new(sizes: ParameterSizes, hash: HashAlg) -> Self {
        let blocks = sizes.l().div_ceil(hash.output_bits()) as u64 - 1;
        Self {
            sizes,
            hash,
            blocks,
        }
    }

    /// Steps 6–7: `U = Hash(seed) mod 2^(N−1)`,
    /// `q = 2^(N−1) + U + 1 − (U mod 2)`.
    fn q_candidate(&self, seed: &[u8]) -> BoxedUint {
        let n = self.sizes.n();
        let digest = self.hash.digest(seed);
        let u = BoxedUint::from_be_slice_auto(&digest);
        let width = limbs_for_bits(n);
        // Keep the low N − 1 bits (outlen ≥ N, so the digest has them).
        let drop = u.bits_precision() - (n - 1);
        let mut q = (u.shl_vartime(drop).shr_vartime(drop)).at_width(width);
        let top = n - 1;
        q.as_mut()[(top / 64) as usize] |= 1 << (top % 64);
        q.as_mut()[0] |= 1;
        q
    }

    /// Steps 9–10: the candidates `p` for counter = 0, 1, …, 4L − 1 (each
    /// `X − (X mod 2q − 1)` for `X = W + 2^(L−1)`), in order.
    fn p_candidates<'a>(
        &'a self,
        seed: &'a [u8],
        q2: &'a BoxedUint,
    ) -> impl Iterator<Item = BoxedUint> + 'a {
        let l = self.sizes.l();
        (0..4 * l as u64).map(move |counter| {
            let offset = 1 + counter * (self.blocks + 1);
            self.p_candidate(seed, offset, q2)
        })
    }

    fn p_candidate(&self, seed: &[u8], offset: u64, q2: &BoxedUint) -> BoxedUint {
        let l_bytes = (self.sizes.l() / 8) as usize;
        let out_bytes = (self.hash.output_bits() / 8) as usize;
        let mut x = vec![0u8; l_bytes];
        for j in 0..=self.blocks {
            let v = self.hash.digest(&seed_plus(seed, offset + j));
            // V_j fills bits [j·outlen, (j+1)·outlen) of W, counted from the
            // least significant end; the top block keeps only what fits.
            let end = l_bytes - j as usize * out_bytes;
            let start = end.saturating_sub(out_bytes);
            x[start..end].copy_from_slice(&v[out_bytes - (end - start)..]);
        }
        // X = W + 2^(L−1), with W < 2^(L−1) (V_n taken modulo 2^b).
        x[0] |= 0x80;
        let x = BoxedUint::from_be_slice_auto(&x);
        let c = x.rem_vartime(q2).unwrap_or_else(|_| q2.zero_like());
        // p = X − (c − 1); c < 2q < X, so nothing wraps.
        let c_wide = c.at_width(x.nlimbs());
        x.wrapping_sub(&c_wide).wrapping_add(&x.like_u64(1))
    }
}

/// `(seed + k) mod 2^seedlen`, big-endian.
fn seed_plus(seed: &[u8], k: u64) -> Vec<u8> {
    let mut out = seed.to_vec();
    let mut carry = k as u128;
    for byte in out.iter_mut().rev() {
        if carry == 0 {
            break;
        }
        let sum = *byte as u128 + (carry & 0xff);
        *byte = sum as u8;
        carry = (carry >> 8) + (sum >> 8);
    }
    out
}

/// FIPS 186-4 A.2.3: `g = Hash(seed ‖ "ggen" ‖ index ‖ count)^e mod p` for
/// the first `count = 1, 2, …` that gives `g ≥ 2`.
fn verifiable_generator(
    hash: HashAlg,
    seed: &[u8],
    index: u8,
    p_monty: &MontyParams<BoxedUint>,
    e: &BoxedUint,
) -> Result<BoxedUint, Error> {
    let two = p_monty.modulus().like_u64(2);
    for count in 1..=u16::MAX {
        let w = hash.digest_parts(&[seed, b"ggen", &[index], &count.to_be_bytes()]);
        let w = BoxedUint::from_be_slice_auto(&w);
        let g = p_monty.from_monty(&p_monty.pow_vartime(&p_monty.to_monty(&w), e));
        if g >= two {
            return Ok(g);
        }
    }
    Err(Error::GeneratorNotFound)
}

/// FIPS 186-4 A.2.1: `g = h^e mod p` for the first `h = 2, 3, …` that
/// gives `g ≠ 1`.
fn unverifiable_generator(
    p_monty: &MontyParams<BoxedUint>,
    e: &BoxedUint,
) -> Result<BoxedUint, Error> {
    let p = p_monty.modulus();
    let one = p.like_u64(1);
    for h in 2..u64::MAX {
        let h = p.like_u64(h);
        if h >= p.wrapping_sub(&one) {
            break;
        }
        let g = p_monty.from_monty(&p_monty.pow_vartime(&p_monty.to_monty(&h), e));
        if g != one {
            return Ok(g);
        }
    }
    Err(Error::GeneratorNotFound)
}
