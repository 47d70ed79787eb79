//! Base blinding for the private operation, in OpenSSL's order.
//!
//! The private operation works on `x' = x·r^e mod n` instead of `x`, for a
//! random unit `r` the attacker never sees, and multiplies the result by
//! `r^-1` modulo `n` at the end. Everything in between sees only blinded
//! values: the reductions of `x'` modulo the secret primes, both CRT
//! exponentiations, Garner's recombination and the fault check
//! (`m'^e ≡ x'`). Those are the operations whose power or electromagnetic
//! leakage an attacker who chooses `x` could otherwise correlate with it
//! (den Boer, Lemke and Wicke, CHES 2002); the exponentiations are constant
//! time already, so blinding is the second line of defence, for leaks the
//! constant-time code does not rule out. Only the blinding and unblinding
//! multiplications modulo the public `n` touch `x` and the result.
//!
//! A fresh pair `(r^e, r^-1)` costs a constant-time inverse and a public
//! exponentiation modulo each prime (`benches/RESULTS.md`). So, as OpenSSL's
//! `BN_BLINDING` does, each key keeps one pair and moves it on after every
//! use by squaring both halves (`r → r²`: two Montgomery squarings modulo
//! `n`), drawing a fresh `r` from the caller's generator every
//! [`REFRESH_AFTER`] uses. A pair is never used twice. The pair sits behind
//! a mutex (the standard library's with `std`, a spin lock without) held
//! only to copy it out and square it; a fresh pair is computed outside the
//! lock, so concurrent signers never wait for one.
//!
//! What it does not protect: the squared sequence is deterministic between
//! refreshes, so an attacker who learns one `r` learns the next 31; and the
//! blinding does not hide the exponent `d` itself (CRT exponents are used
//! as they are; exponent blinding would lengthen them).

use alloc::vec;

use numcrypt_limbs::{Limb, MontyForm, MontyParams, SecretUint, Unsigned, kernels};
use zeroize::Zeroizing;

use crate::Error;

/// Uses of one pair (by squaring) before a fresh `r` is drawn: OpenSSL's
/// `BN_BLINDING_COUNTER`.
pub(crate) const REFRESH_AFTER: u32 = 32;

/// `(r^e, r^-1)` modulo `n`, in Montgomery form.
#[derive(Clone)]
pub(crate) struct BlindingPair {
    /// `r^e mod n`.
    pub(crate) a: MontyForm<SecretUint>,
    /// `r^-1 mod n`.
    pub(crate) ai: MontyForm<SecretUint>,
    uses: u32,
}

impl BlindingPair {
    pub(crate) fn new(a: MontyForm<SecretUint>, ai: MontyForm<SecretUint>) -> Self {
        Self { a, ai, uses: 0 }
    }

    /// `x' = x·r^e mod n`, for `x < n` at `n`'s width.
    pub(crate) fn blind(&self, n: &MontyParams<SecretUint>, x: &SecretUint) -> SecretUint {
        mul_by_monty(n, x, &self.a)
    }

    /// `m = m'·r^-1 mod n`, for `m' < n` at `n`'s width.
    pub(crate) fn unblind(&self, n: &MontyParams<SecretUint>, m: &SecretUint) -> SecretUint {
        mul_by_monty(n, m, &self.ai)
    }

    /// `r → r²`.
    fn advance(&mut self, n: &MontyParams<SecretUint>) {
        self.a = n.square(&self.a);
        self.ai = n.square(&self.ai);
        self.uses += 1;
    }
}

/// `x·y mod n` for a plain `x < n` and `y` in Montgomery form, as a plain
/// value: one Montgomery multiplication, `x·(y·R)·R^-1` (converting `x`
/// into Montgomery form and the product out of it would take two more).
fn mul_by_monty(
    n: &MontyParams<SecretUint>,
    x: &SecretUint,
    y: &MontyForm<SecretUint>,
) -> SecretUint {
    let nl = n.modulus().nlimbs();
    let mut out = SecretUint::zero(nl);
    let mut wide = Zeroizing::new(vec![0 as Limb; 2 * nl]);
    let widened;
    let x = if x.nlimbs() == nl {
        x
    } else {
        widened = x.at_width(nl);
        &widened
    };
    kernels::mont_mul(
        out.as_mut(),
        x.as_ref(),
        y.as_montgomery().as_ref(),
        n.mont_modulus(),
        &mut wide,
    );
    out
}

/// The mutex: the standard library's where there is one (a waiting thread
/// sleeps), a spin lock in `no_std` builds.
#[cfg(feature = "std")]
type Lock<T> = std::sync::Mutex<T>;
#[cfg(not(feature = "std"))]
type Lock<T> = spin::Mutex<T>;

#[cfg(feature = "std")]
fn lock<T>(m: &Lock<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while the lock is held; if something did, the state
    // is a valid pair or none, so carry on with it.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(not(feature = "std"))]
fn lock<T>(m: &Lock<T>) -> spin::MutexGuard<'_, T> {
    m.lock()
}

/// A key's blinding state.
pub(crate) struct Blinding {
    pair: Lock<Option<BlindingPair>>,
}

impl Blinding {
    pub(crate) fn new() -> Self {
        Self {
            pair: Lock::new(None),
        }
    }

    /// A pair for one private operation modulo `n` (the key's Montgomery
    /// parameters), never handed out before; `fresh` draws a new pair
    /// when one is due.
    pub(crate) fn take(
        &self,
        n: &MontyParams<SecretUint>,
        fresh: impl FnOnce() -> Result<BlindingPair, Error>,
    ) -> Result<BlindingPair, Error> {
        let cached = {
            let mut guard = lock(&self.pair);
            match guard.take() {
                Some(pair) if pair.uses < REFRESH_AFTER => {
                    let mut next = pair.clone();
                    next.advance(n);
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
        next.advance(n);
        *lock(&self.pair) = Some(next);
        Ok(pair)
    }

    /// The pair the next operation will use, if one is cached (tests).
    #[cfg(test)]
    pub(crate) fn peek(&self) -> Option<BlindingPair> {
        lock(&self.pair)
            .as_ref()
            .filter(|p| p.uses < REFRESH_AFTER)
            .cloned()
    }

    /// Forgets the pair, so the next operation draws a fresh one (benches
    /// use it to time a refresh).
    #[cfg(feature = "insecure-bench-hooks")]
    pub(crate) fn reset(&self) {
        *lock(&self.pair) = None;
    }
}

#[cfg(all(test, feature = "std", target_os = "linux"))]
mod tests {
    use super::*;

    /// This thread's CPU time so far, in clock ticks (utime + stime of
    /// /proc/thread-self/stat).
    fn thread_cpu_ticks() -> u64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        // The fields after the parenthesised name: state is field 3, utime 14.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: std::vec::Vec<&str> = rest.split(' ').collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }

    /// A thread that waits for the blinding lock sleeps instead of spinning:
    /// while another holds it for 400 ms, the waiter uses (almost) no CPU.
    #[test]
    fn waiting_for_the_lock_does_not_spin() {
        let blinding = Blinding::new();
        let held = lock(&blinding.pair);
        let ticks = std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                let before = thread_cpu_ticks();
                drop(lock(&blinding.pair));
                thread_cpu_ticks() - before
            });
            std::thread::sleep(std::time::Duration::from_millis(400));
            drop(held);
            waiter.join().unwrap()
        });
        // A spinning waiter burns about 40 ticks (at 100 per second).
        assert!(ticks <= 5, "the waiter used {ticks} ticks of CPU");
    }
}
