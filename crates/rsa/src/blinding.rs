//! Base blinding for the private operation.
//!
//! The private operation works on `x·r^e` instead of `x` and multiplies
//! the result by `r^-1`, for a random unit `r` the attacker never sees. The
//! exponentiations are constant time already; blinding is the second line
//! of defence, for leaks the constant-time code does not rule out (power
//! and electromagnetic side channels that depend on the operands' values,
//! and any timing difference in the arithmetic this crate does not know
//! of): the values they see are independent of `x`.
//!
//! A fresh pair `(r^e, r^-1)` costs a constant-time inverse and a public
//! exponentiation modulo each prime, a sizeable fraction of the private
//! operation (`benches/RESULTS.md`). So, as OpenSSL's `BN_BLINDING` does, each key
//! keeps one pair and moves it on after every use by squaring both halves
//! (`r → r²`: a Montgomery squaring modulo each prime), drawing a fresh `r` from the
//! caller's generator every [`REFRESH_AFTER`] uses. A pair is never used
//! twice. The pair sits behind a (spin) mutex held only to copy it out and
//! square it (four half-width Montgomery squarings); a fresh pair is computed outside
//! the lock, so concurrent signers never wait for one.
//!
//! What it does not protect: the squared sequence is deterministic between
//! refreshes, so an attacker who learns one `r` learns the next 31; and the
//! blinding does not hide the exponent `d` itself (CRT exponents are used
//! as they are; exponent blinding would lengthen them).

use numcrypt_limbs::{MontyForm, MontyParams, SecretUint};

use crate::Error;

/// Uses of one pair (by squaring) before a fresh `r` is drawn: OpenSSL's
/// `BN_BLINDING_COUNTER`.
pub(crate) const REFRESH_AFTER: u32 = 32;

/// `(r^e, r^-1)` modulo `p` and modulo `q`, in Montgomery form: the
/// private operation blinds and unblinds each CRT half at half the width of
/// `n` (the same `r` modulo `n`, by the CRT), which costs half as much as
/// doing it modulo `n`.
#[derive(Clone)]
pub(crate) struct BlindingPair {
    /// `r^e mod p`, `r^e mod q`.
    pub(crate) a: [MontyForm<SecretUint>; 2],
    /// `r^-1 mod p`, `r^-1 mod q`.
    pub(crate) ai: [MontyForm<SecretUint>; 2],
    uses: u32,
}

impl BlindingPair {
    pub(crate) fn new(a: [MontyForm<SecretUint>; 2], ai: [MontyForm<SecretUint>; 2]) -> Self {
        Self { a, ai, uses: 0 }
    }

    /// `r → r²`, modulo the primes of `params`.
    fn advance(&mut self, params: [&MontyParams<SecretUint>; 2]) {
        for (params, (a, ai)) in params.into_iter().zip(self.a.iter_mut().zip(&mut self.ai)) {
            *a = params.square(a);
            *ai = params.square(ai);
        }
        self.uses += 1;
    }
}

/// A key's blinding state.
pub(crate) struct Blinding {
    pair: spin::Mutex<Option<BlindingPair>>,
}

impl Blinding {
    pub(crate) fn new() -> Self {
        Self {
            pair: spin::Mutex::new(None),
        }
    }

    /// A pair for one private operation modulo the key's primes (their
    /// `params`), never handed out before; `fresh` draws a new pair when
    /// one is due.
    pub(crate) fn take(
        &self,
        params: [&MontyParams<SecretUint>; 2],
        fresh: impl FnOnce() -> Result<BlindingPair, Error>,
    ) -> Result<BlindingPair, Error> {
        let cached = {
            let mut guard = self.pair.lock();
            match guard.take() {
                Some(pair) if pair.uses < REFRESH_AFTER => {
                    let mut next = pair.clone();
                    next.advance(params);
                    *guard = Some(next);
                    Some(pair)
                }
                _ => None,
            }
        };
        if let Some(pair) = cached {
            return Ok(pair);
        }
        // Outside the lock: other threads meanwhile draw their own pairs.
        let pair = fresh()?;
        let mut next = pair.clone();
        next.advance(params);
        *self.pair.lock() = Some(next);
        Ok(pair)
    }

    /// Forgets the pair, so the next operation draws a fresh one (benches
    /// use it to time a refresh).
    #[cfg(feature = "insecure-bench-hooks")]
    pub(crate) fn reset(&self) {
        *self.pair.lock() = None;
    }
}
