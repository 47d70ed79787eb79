//! The caller's generator. Every draw this crate makes goes through
//! [`Draws`], so that a generator that fails, or that is stuck on one
//! value, ends the operation in [`Error::Rng`] after a bounded number of
//! tries: never a panic, never an endless loop.
//!
//! Public functions take a [`TryCryptoRng`] (every `CryptoRng` is one), so
//! the operating system's generator (`getrandom::SysRng`) can be passed as
//! it is and its failure comes back as [`Error::Rng`].

use alloc::vec;
use core::convert::Infallible;

use numcrypt_limbs::ct_audit::declassify_choice;
use numcrypt_limbs::{Limb, SecretUint, Unsigned};
use rand_core::{TryCryptoRng, TryRng};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::Error;

/// How many candidates a rejection loop draws before it blames the
/// generator. Every loop here accepts a candidate with probability at
/// least 1/2, so a working generator needs more with probability at most
/// `2^-128`.
pub(crate) const MAX_DRAWS: u32 = 128;

/// The same 64-bit word this many times running is a stuck generator: the
/// repetition count test of NIST SP 800-90B §4.4.1, with a cutoff no
/// working generator reaches (`2^-192` for four equal words).
const REPEAT_CUTOFF: u32 = 4;

/// The caller's generator with a record of whether it has failed.
///
/// The crate's own draws ([`fill`](Self::fill),
/// [`random_below`](Self::random_below)) return [`Error::Rng`] once it has.
/// It also serves as the infallible `CryptoRng` that other crates' code
/// takes (prime generation): there a failure is recorded, and the draws
/// that follow come from a fixed stream, so that whatever loop is drawing
/// ends; [`finish`](Self::finish) then discards the result with
/// [`Error::Rng`].
pub(crate) struct Draws<'a, R: ?Sized> {
    rng: &'a mut R,
    failed: bool,
    last_word: u64,
    repeats: u32,
    /// The fixed stream's state (SplitMix64), used only after a failure.
    filler: u64,
}

impl<'a, R: TryCryptoRng + ?Sized> Draws<'a, R> {
    pub(crate) fn new(rng: &'a mut R) -> Self {
        Self {
            rng,
            failed: false,
            last_word: 0,
            repeats: 0,
            filler: 0,
        }
    }

    /// [`Error::Rng`] if the generator has failed.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.failed { Err(Error::Rng) } else { Ok(()) }
    }

    /// `result`, unless the generator failed while it was computed.
    pub(crate) fn finish<T>(&self, result: Result<T, Error>) -> Result<T, Error> {
        self.check()?;
        result
    }

    /// Fills `out` with random bytes.
    pub(crate) fn fill(&mut self, out: &mut [u8]) -> Result<(), Error> {
        self.check()?;
        if self.rng.try_fill_bytes(out).is_err() {
            self.failed = true;
        } else {
            for word in out.chunks_exact(8) {
                self.observe(u64::from_le_bytes(word.try_into().unwrap_or_default()));
            }
        }
        self.check()
    }

    /// A uniformly random value in `[0, bound)` at `bound`'s width, for a
    /// public `bound` (an RSA modulus): rejection sampling on `bits(bound)`
    /// random bits, each candidate kept with probability at least 1/2, at
    /// most [`MAX_DRAWS`] candidates. How many were rejected reveals
    /// nothing about the one kept.
    pub(crate) fn random_below(&mut self, bound: &SecretUint) -> Result<SecretUint, Error> {
        let bits = bound.bits_vartime();
        let len = bits.div_ceil(8) as usize;
        let mut bytes = Zeroizing::new(vec![0u8; len]);
        for _ in 0..MAX_DRAWS {
            self.fill(&mut bytes)?;
            bytes[0] &= 0xff >> (8 * len as u32 - bits);
            let width = bound.nlimbs() as u32 * Limb::BITS;
            let candidate = SecretUint::from_be_slice(&bytes, width).map_err(|_| Error::Rng)?;
            // Rejection reveals only the discarded candidates.
            if declassify_choice(candidate.ct_lt_value(bound)) {
                return Ok(candidate);
            }
        }
        self.failed = true;
        Err(Error::Rng)
    }

    /// Marks the generator failed (a loop of the caller's ran out of tries).
    pub(crate) fn give_up(&mut self) -> Error {
        self.failed = true;
        Error::Rng
    }

    /// The repetition count test on one drawn word. The words are secret
    /// (compared in constant time); whether one repeats the last is made
    /// public, which for a working generator says nothing (it never does).
    fn observe(&mut self, word: u64) {
        let repeat = declassify_choice(word.ct_eq(&self.last_word));
        self.last_word = word;
        if repeat {
            self.repeats += 1;
            if self.repeats + 1 >= REPEAT_CUTOFF {
                self.failed = true;
            }
        } else {
            self.repeats = 0;
        }
    }

    /// The next word of the fixed stream that stands in after a failure
    /// (SplitMix64: it only has to make rejection loops end).
    fn filler_word(&mut self) -> u64 {
        self.filler = self.filler.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.filler;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl<R: TryCryptoRng + ?Sized> TryRng for Draws<'_, R> {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.try_next_u64()? as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        if !self.failed {
            match self.rng.try_next_u64() {
                Ok(word) => {
                    self.observe(word);
                    if !self.failed {
                        return Ok(word);
                    }
                }
                Err(_) => self.failed = true,
            }
        }
        Ok(self.filler_word())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        if self.fill(dst).is_err() {
            for chunk in dst.chunks_mut(8) {
                let word = self.filler_word().to_le_bytes();
                chunk.copy_from_slice(&word[..chunk.len()]);
            }
        }
        Ok(())
    }
}

impl<R: ?Sized> Drop for Draws<'_, R> {
    /// The last word drawn may be part of a secret (a blinding factor).
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.last_word);
    }
}

// Only while the caller's generator works; after a failure the output is
// discarded (`finish`).
impl<R: TryCryptoRng + ?Sized> TryCryptoRng for Draws<'_, R> {}

#[cfg(test)]
pub(crate) mod test_rngs {
    //! Broken generators for the tests.

    use rand_core::{TryCryptoRng, TryRng};

    /// A generator stuck on one byte value.
    pub(crate) struct Stuck(pub(crate) u8);

    impl TryRng for Stuck {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(u32::from_le_bytes([self.0; 4]))
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(u64::from_le_bytes([self.0; 8]))
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            dst.fill(self.0);
            Ok(())
        }
    }

    impl TryCryptoRng for Stuck {}

    /// A generator that fails (as the operating system's can).
    pub(crate) struct Failing;

    #[derive(Debug)]
    pub(crate) struct Failure;

    impl core::fmt::Display for Failure {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("generator failure")
        }
    }

    impl core::error::Error for Failure {}

    impl TryRng for Failing {
        type Error = Failure;
        fn try_next_u32(&mut self) -> Result<u32, Failure> {
            Err(Failure)
        }
        fn try_next_u64(&mut self) -> Result<u64, Failure> {
            Err(Failure)
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Failure> {
            Err(Failure)
        }
    }

    impl TryCryptoRng for Failing {}
}
