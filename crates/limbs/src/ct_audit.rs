//! Constant-time auditing under valgrind's memcheck, as BoringSSL does it.
//!
//! Memcheck reports every branch and every memory address that depends on an
//! undefined value. Marking secrets undefined ([`mark_secret`]) turns it into
//! a constant-time checker: any report is a branch or an index that depends
//! on a secret. Where a result derived from secrets is public by design (a
//! signature, a public modulus, the verdict of a validity check whose failure
//! is reported anyway), the library says so with [`declassify`] and memcheck
//! stops following it.
//!
//! With the `ct-audit` feature, these functions are valgrind client requests:
//! a few instructions that do nothing on a real CPU. Without it (the
//! default), they are empty and vanish. The audit harness
//! (`examples/ct_memcheck.rs`, run by `.ci/ct-memcheck`) turns the feature on.

use subtle::Choice;

#[cfg(feature = "ct-audit")]
use crate::backend::valgrind::{Request, client_request};

/// Marks `value`'s bytes secret: memcheck reports any branch or address
/// that depends on them from now on.
#[inline(always)]
pub fn mark_secret<T: ?Sized>(value: &mut T) {
    #[cfg(feature = "ct-audit")]
    about_memory(Request::MakeMemUndefined, value);
    #[cfg(not(feature = "ct-audit"))]
    let _ = value;
}

/// Marks `value`'s bytes public: a result derived from secrets that the
/// caller is about to reveal by design.
#[inline(always)]
pub fn declassify<T: ?Sized>(value: &mut T) {
    #[cfg(feature = "ct-audit")]
    about_memory(Request::MakeMemDefined, value);
    #[cfg(not(feature = "ct-audit"))]
    let _ = value;
}

/// A memcheck request about `value`'s bytes.
#[cfg(feature = "ct-audit")]
fn about_memory<T: ?Sized>(request: Request, value: &mut T) {
    let address = value as *mut T as *mut u8 as usize;
    client_request(request, address, core::mem::size_of_val(value));
}

/// [`declassify`] for a value passed by copy.
#[inline(always)]
pub fn declassified<T: Copy>(mut value: T) -> T {
    declassify(&mut value);
    value
}

/// A value that keeps its limbs where [`declassify`] cannot reach them
/// through its own bytes (a Montgomery form of a heap-allocated integer).
pub trait Declassify {
    /// [`declassify`] on every limb of the value.
    fn declassify(&mut self);
}

/// [`declassify`] for a Montgomery form (its limbs).
#[inline(always)]
pub fn declassify_monty<T: Declassify>(value: &mut T) {
    value.declassify();
}

/// A verdict derived from secrets, made public to be branched on: for checks
/// whose outcome the caller reveals anyway (an error, a retry).
#[inline(always)]
pub fn declassify_choice(choice: Choice) -> bool {
    declassified(choice.unwrap_u8()) != 0
}

/// Whether the process runs under valgrind (always false without the
/// `ct-audit` feature).
pub fn running_on_valgrind() -> bool {
    #[cfg(feature = "ct-audit")]
    return client_request(Request::RunningOnValgrind, 0, 0) != 0;
    #[cfg(not(feature = "ct-audit"))]
    false
}

/// For the audit harness, on a CPU with BMI2 and ADX: valgrind runs
/// `mulx`/`adcx`/`adox`, but its emulated CPUID reports no ADX, so under it
/// the portable limb kernels would run instead of the assembly. After this
/// call the library takes the mulx/adx kernels without asking the CPU.
/// Call it before anything else (selections made earlier stay); on a CPU
/// without BMI2 and ADX the kernels then fault. Only with the `ct-audit`
/// feature, which production builds never have; nothing on aarch64.
#[cfg(feature = "ct-audit")]
pub fn assume_bmi2_adx() {
    crate::backend::valgrind::assume_adx();
}

/// The number of errors valgrind has reported so far (0 when not under
/// valgrind, or without the `ct-audit` feature).
pub fn errors_reported() -> usize {
    #[cfg(feature = "ct-audit")]
    return client_request(Request::CountErrors, 0, 0);
    #[cfg(not(feature = "ct-audit"))]
    0
}
