//! Groups: a safe prime `p = 2q + 1` and a generator `g` of the subgroup of
//! squares, which has prime order `q`.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::ops::ControlFlow;

use numcrypt_limbs::ct_audit::{declassified, declassify_choice};
use numcrypt_limbs::{BoxedUint, Unsigned};
use numcrypt_prime::{PrimeGen, PrimeKind, Progress, is_prime_vartime};
use rand_core::CryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeGreater};
use zeroize::{Zeroize, Zeroizing};

use crate::limits::{MAX_GROUP_BITS, MIN_GROUP_BITS};
use crate::{Error, Subgroup, primes};

/// The standard groups, all with `g = 2`, which generates the subgroup of
/// squares (`p ≡ 7 (mod 8)` for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NamedGroup {
    /// RFC 3526 group 14 (2048 bits), `modp2048`.
    Modp2048,
    /// RFC 3526 group 15 (3072 bits).
    Modp3072,
    /// RFC 3526 group 16 (4096 bits).
    Modp4096,
    /// RFC 3526 group 17 (6144 bits).
    Modp6144,
    /// RFC 3526 group 18 (8192 bits).
    Modp8192,
    /// RFC 7919 `ffdhe2048`.
    Ffdhe2048,
    /// RFC 7919 `ffdhe3072`.
    Ffdhe3072,
    /// RFC 7919 `ffdhe4096`.
    Ffdhe4096,
    /// RFC 7919 `ffdhe6144`.
    Ffdhe6144,
    /// RFC 7919 `ffdhe8192`.
    Ffdhe8192,
    /// `p = 2^2048 − 1942289`, the safe prime `2^2048 − c` with the smallest
    /// `c ≡ 1 (mod 8)`: the group where a pseudo-Mersenne reduction could
    /// replace Montgomery's (`benches/RESULTS.md` measures both on the same job).
    PseudoMersenne2048,
}

impl NamedGroup {
    /// Every named group.
    pub const ALL: [NamedGroup; 11] = [
        NamedGroup::Modp2048,
        NamedGroup::Modp3072,
        NamedGroup::Modp4096,
        NamedGroup::Modp6144,
        NamedGroup::Modp8192,
        NamedGroup::Ffdhe2048,
        NamedGroup::Ffdhe3072,
        NamedGroup::Ffdhe4096,
        NamedGroup::Ffdhe6144,
        NamedGroup::Ffdhe8192,
        NamedGroup::PseudoMersenne2048,
    ];

    /// The name used on the command line and in this crate's docs
    /// (`modp2048`, `ffdhe2048`, `pm2048`).
    pub const fn name(self) -> &'static str {
        match self {
            NamedGroup::Modp2048 => "modp2048",
            NamedGroup::Modp3072 => "modp3072",
            NamedGroup::Modp4096 => "modp4096",
            NamedGroup::Modp6144 => "modp6144",
            NamedGroup::Modp8192 => "modp8192",
            NamedGroup::Ffdhe2048 => "ffdhe2048",
            NamedGroup::Ffdhe3072 => "ffdhe3072",
            NamedGroup::Ffdhe4096 => "ffdhe4096",
            NamedGroup::Ffdhe6144 => "ffdhe6144",
            NamedGroup::Ffdhe8192 => "ffdhe8192",
            NamedGroup::PseudoMersenne2048 => "pm2048",
        }
    }

    /// From a name; `modp_2048` (OpenSSL's spelling) is accepted too.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        let name = name.replace('_', "").to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|g| g.name() == name)
            .ok_or(Error::UnknownGroup)
    }

    /// Bit length of `p`.
    pub const fn bits(self) -> u32 {
        match self {
            NamedGroup::Modp2048 | NamedGroup::Ffdhe2048 | NamedGroup::PseudoMersenne2048 => 2048,
            NamedGroup::Modp3072 | NamedGroup::Ffdhe3072 => 3072,
            NamedGroup::Modp4096 | NamedGroup::Ffdhe4096 => 4096,
            NamedGroup::Modp6144 | NamedGroup::Ffdhe6144 => 6144,
            NamedGroup::Modp8192 | NamedGroup::Ffdhe8192 => 8192,
        }
    }

    /// The prime `p`.
    pub fn p(self) -> BoxedUint {
        use primes::{E, PI};
        let (constant, k) = match self {
            NamedGroup::Modp2048 => (&PI, 124_476),
            NamedGroup::Modp3072 => (&PI, 1_690_314),
            NamedGroup::Modp4096 => (&PI, 240_904),
            NamedGroup::Modp6144 => (&PI, 929_484),
            NamedGroup::Modp8192 => (&PI, 4_743_158),
            NamedGroup::Ffdhe2048 => (&E, 560_316),
            NamedGroup::Ffdhe3072 => (&E, 2_625_351),
            NamedGroup::Ffdhe4096 => (&E, 5_736_041),
            NamedGroup::Ffdhe6144 => (&E, 15_705_020),
            NamedGroup::Ffdhe8192 => (&E, 10_965_728),
            NamedGroup::PseudoMersenne2048 => {
                // 2^2048 − c: all ones, less c − 1.
                let mut limbs = vec![u64::MAX; 32];
                limbs[0] -= primes::PSEUDO_MERSENNE_2048_C - 1;
                return BoxedUint::from_words(limbs);
            }
        };
        primes::rfc_prime(self.bits(), constant, k)
    }

    /// The group.
    pub fn group(self) -> Group {
        let p = self.p();
        let g = p.like_u64(2);
        // The constants are checked by the tests; nothing here can fail.
        match Group::build(p, g, Some(self)) {
            Ok(group) => group,
            Err(_) => unreachable!("the named groups are valid"),
        }
    }
}

impl fmt::Display for NamedGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An ElGamal group: a safe prime `p = 2q + 1` (`q` prime) and a generator
/// `g` of the subgroup of squares modulo `p`, of prime order `q`. Every
/// operation of this crate stays in that subgroup, so no element of small
/// order ever appears and no exponent leaks through one.
///
/// Construction ([`Group::new`]) runs the cheap checks: the size, `p odd`
/// with `p ≡ 3 (mod 4)`, and `g ∈ [2, p − 2]` a square (Jacobi symbol).
/// [`validate`](Group::validate) proves the rest: `q` prime (MR64), then
/// `p` prime by Pocklington's theorem (`2^(p−1) ≡ 1 (mod p)` and `3 ∤ p`,
/// given that `q > √p` is prime). The named groups need neither.
///
/// `p`, `q`, `g` and their arithmetic are the [`Subgroup`]'s, reached
/// through `Deref`.
#[derive(Clone)]
pub struct Group {
    group: Subgroup,
    name: Option<NamedGroup>,
}

impl core::ops::Deref for Group {
    type Target = Subgroup;

    fn deref(&self) -> &Subgroup {
        &self.group
    }
}

impl fmt::Debug for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name {
            Some(name) => write!(f, "Group({name})"),
            None => write!(f, "Group {{ p: {:#x}, g: {:#x} }}", self.p(), self.g()),
        }
    }
}

impl PartialEq for Group {
    fn eq(&self, other: &Self) -> bool {
        self.p() == other.p() && self.g() == other.g()
    }
}

impl Eq for Group {}

impl Group {
    /// The group `(p, g)` after the cheap checks (see the type's
    /// documentation); it is recognised as a named group when `p` and `g`
    /// are one.
    pub fn new(p: BoxedUint, g: BoxedUint) -> Result<Self, Error> {
        let name = NamedGroup::ALL
            .into_iter()
            .find(|n| p == n.p() && g == p.like_u64(2));
        Self::build(p, g, name)
    }

    fn build(p: BoxedUint, g: BoxedUint, name: Option<NamedGroup>) -> Result<Self, Error> {
        let bits = p.bits_vartime();
        if !(MIN_GROUP_BITS..=MAX_GROUP_BITS).contains(&bits) {
            return Err(Error::UnsupportedGroupSize { bits });
        }
        let p = p.at_width(bits.div_ceil(64) as usize);
        if p.as_words()[0] & 3 != 3 {
            return Err(Error::InvalidGroup);
        }
        let two = p.like_u64(2);
        if g.bits_vartime() > bits || g < two || g > p.wrapping_sub(&two) {
            return Err(Error::InvalidGroup);
        }
        let g = g.at_width(p.nlimbs());
        // For a named group the tests have checked that g is a square.
        if name.is_none() && g.jacobi_vartime(&p)? != 1 {
            return Err(Error::InvalidGroup);
        }
        let q = p.shr_vartime(1);
        Ok(Self {
            group: Subgroup::new(p, q, g)?,
            name,
        })
    }

    /// A new group of `bits` bits: a random safe prime from
    /// `numcrypt-prime` (joint sieve on `q` and `2q + 1`, MR64 on both),
    /// with `g = 2` when `p ≡ 7 (mod 8)` (2 is then a square) and `g = 4`
    /// otherwise. Seconds to minutes at 2048 bits and up; see
    /// [`generate_with_progress`](Self::generate_with_progress).
    pub fn generate<R: CryptoRng + ?Sized>(bits: u32, rng: &mut R) -> Result<Self, Error> {
        Self::generate_with_progress(bits, rng, &mut |_| ControlFlow::Continue(()))
    }

    /// [`generate`](Self::generate) with the prime crate's progress
    /// callback (which can cancel).
    pub fn generate_with_progress<R: CryptoRng + ?Sized>(
        bits: u32,
        rng: &mut R,
        progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<Self, Error> {
        if !(MIN_GROUP_BITS..=MAX_GROUP_BITS).contains(&bits) {
            return Err(Error::UnsupportedGroupSize { bits });
        }
        let p: BoxedUint = PrimeGen::new(PrimeKind::Safe, bits)
            .progress(progress)
            .generate(rng)?;
        let g = if p.as_words()[0] & 7 == 7 { 2 } else { 4 };
        let g = p.like_u64(g);
        Self::build(p, g, None)
    }

    /// The full check: `q` is prime (MR64) and `p` is prime (Pocklington,
    /// from `q`). Named groups pass at once (their constants are tested).
    pub fn validate(&self) -> Result<(), Error> {
        if self.name.is_some() {
            return Ok(());
        }
        if !is_prime_vartime(self.q()) {
            return Err(Error::QNotPrime);
        }
        // Pocklington with p − 1 = 2q, q prime and q > √p: p is prime if
        // 2^(p−1) ≡ 1 and gcd(2^2 − 1, p) = 1.
        let pm = self.p_monty();
        let p_minus_1 = self.p().wrapping_sub(&self.p().like_u64(1));
        let fermat = pm.pow_vartime(&pm.to_monty(&self.p().like_u64(2)), &p_minus_1);
        if fermat != pm.one() || self.p().rem_limb_vartime(3)? == 0 {
            return Err(Error::PNotPrime);
        }
        Ok(())
    }

    /// The name, for a standard group.
    pub fn name(&self) -> Option<NamedGroup> {
        self.name
    }

    /// Bit length of `p`.
    pub fn bits(&self) -> u32 {
        self.p().bits_vartime()
    }

    /// Bytes in an encoded element: `⌈bits/8⌉`.
    pub fn element_len(&self) -> usize {
        self.bits().div_ceil(8) as usize
    }

    /// The longest message [`encode_message`](Self::encode_message) takes:
    /// `⌊(bits(q) − 2)/8⌋` bytes (255 for a 2048-bit group).
    pub fn max_message_len(&self) -> usize {
        ((self.q().bits_vartime() - 2) / 8) as usize
    }

    /// Bit length of `q`, the length of every secret exponent.
    pub(crate) fn exponent_bits(&self) -> u32 {
        self.q().bits_vartime()
    }

    /// A uniformly random exponent in `[1, q − 1]`.
    pub(crate) fn random_exponent<R: CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<BoxedUint, Error> {
        let q_minus_1 = self.q().wrapping_sub(&self.q().like_u64(1));
        let mut c = BoxedUint::random_below(rng, &q_minus_1)?;
        let x = c.wrapping_add(&c.like_u64(1));
        c.zeroize();
        Ok(x)
    }

    /// Encodes `message` (at most [`max_message_len`](Self::max_message_len)
    /// bytes) as an element of the subgroup, reversibly: `m = int(0x01 ‖
    /// message)`, then `M = m` if `m` is a square and `p − m` otherwise
    /// (exactly one of them is, as `−1` is not a square for `p ≡ 3 mod 4`).
    /// `m ≤ q`, so decoding takes whichever of `M`, `p − M` is at most `q`.
    ///
    /// Constant time in the message's content (the Legendre symbol is
    /// `m^q`, by the constant-time exponentiation); its length is public.
    pub fn encode_message(&self, message: &[u8]) -> Result<Element, Error> {
        if message.len() > self.max_message_len() {
            return Err(Error::MessageTooLong);
        }
        let mut bytes = Zeroizing::new(vec![0u8; self.element_len()]);
        let start = bytes.len() - message.len();
        bytes[start..].copy_from_slice(message);
        bytes[start - 1] = 0x01;
        let mut m = BoxedUint::from_be_slice(&bytes, self.p().bits_precision())?;
        let pm = self.p_monty();
        let mut legendre = pm.pow(&pm.to_monty(&m), self.q());
        let is_square = legendre.ct_eq(&pm.one());
        let mut negated = self.p().wrapping_sub(&m);
        negated.conditional_assign(&m, is_square);
        m.zeroize();
        legendre.zeroize();
        Ok(Element(negated))
    }

    /// Recovers the message from an element made by
    /// [`encode_message`](Self::encode_message);
    /// [`Error::InvalidPlaintext`] when the element holds none.
    ///
    /// Constant time except for the message's length, which the output
    /// reveals anyway.
    pub fn decode_message(&self, element: &Element) -> Result<Zeroizing<Vec<u8>>, Error> {
        let big = element.0.ct_gt(self.q());
        let mut m = element.0.clone();
        let negated = self.p().wrapping_sub(&element.0);
        m.conditional_assign(&negated, big);
        let mut bytes = Zeroizing::new(vec![0u8; self.element_len()]);
        m.write_be_bytes(&mut bytes)?;
        m.zeroize();
        // The first non-zero byte, found without branching on the bytes.
        let mut marker = 0u64;
        let mut found = Choice::from(0);
        for (i, &b) in bytes.iter().enumerate() {
            let here = !b.ct_eq(&0) & !found;
            marker.conditional_assign(&(i as u64), here);
            found |= here;
        }
        // The marker's position is the message's length, and whether it is
        // a marker the verdict: public from here.
        let marker = declassified(marker) as usize;
        if !declassify_choice(found) || declassified(bytes[marker]) != 0x01 {
            return Err(Error::InvalidPlaintext);
        }
        Ok(Zeroizing::new(bytes[marker + 1..].to_vec()))
    }

    /// An element from its big-endian bytes (any length; leading zeros
    /// allowed): [`Error::InvalidElement`] unless it lies in `[1, p − 1]`
    /// and in the subgroup of squares. Public values only (variable time).
    pub fn element_from_bytes(&self, bytes: &[u8]) -> Result<Element, Error> {
        self.check_element(&BoxedUint::from_be_slice_auto(bytes))
            .map(Element)
    }

    /// `x` at `p`'s width if it is in `[1, p − 1]` and a square.
    pub(crate) fn check_element(&self, x: &BoxedUint) -> Result<BoxedUint, Error> {
        if x.bits_vartime() > self.bits() || bool::from(x.is_zero()) || x >= self.p() {
            return Err(Error::InvalidElement);
        }
        let x = x.at_width(self.p().nlimbs());
        if x.jacobi_vartime(self.p())? != 1 {
            return Err(Error::InvalidElement);
        }
        Ok(x)
    }

    /// Big-endian bytes of `x < p`, exactly [`element_len`](Self::element_len) long.
    pub(crate) fn to_fixed_bytes(&self, x: &BoxedUint) -> Vec<u8> {
        let mut out = vec![0u8; self.element_len()];
        let _ = x.at_width(self.p().nlimbs()).write_be_bytes(&mut out);
        out
    }
}

/// An element of a group's subgroup of squares, in `[1, p − 1]`: an
/// encoded message or a decrypted ciphertext. Zeroized on drop, as it may
/// hold a plaintext.
#[derive(Clone)]
pub struct Element(pub(crate) BoxedUint);

impl Element {
    /// The element's value.
    pub fn value(&self) -> &BoxedUint {
        &self.0
    }

    /// Its big-endian bytes, `group.element_len()` long.
    pub fn to_bytes(&self, group: &Group) -> Vec<u8> {
        group.to_fixed_bytes(&self.0)
    }
}

impl PartialEq for Element {
    /// Constant time.
    fn eq(&self, other: &Self) -> bool {
        self.0.ct_eq_value(&other.0).into()
    }
}

impl Eq for Element {}

impl fmt::Debug for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Element(..)")
    }
}

impl Drop for Element {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}
