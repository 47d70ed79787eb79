//! Valgrind client requests: the "special instruction" sequences of
//! `valgrind.h`, which do nothing on a real CPU (the rotations add up to a
//! full turn, the exchange swaps a register with itself) and which valgrind
//! recognises and answers. Only [`crate::ct_audit`] uses them.
//!
//! Valgrind runs `mulx`/`adcx`/`adox` but its emulated CPUID reports no ADX,
//! so the audit harness asserts them ([`assume_adx`]) to audit the mulx/adx
//! kernels under it.

#[cfg(target_arch = "x86_64")]
use core::sync::atomic::{AtomicBool, Ordering};

#[cfg(target_arch = "x86_64")]
static ADX_ASSUMED: AtomicBool = AtomicBool::new(false);

/// From now on `Adx::detect` answers yes without asking the CPU (on
/// x86_64; elsewhere nothing changes).
pub(crate) fn assume_adx() {
    #[cfg(target_arch = "x86_64")]
    ADX_ASSUMED.store(true, Ordering::Relaxed);
}

/// Whether [`assume_adx`] was called.
#[cfg(target_arch = "x86_64")]
pub(crate) fn adx_assumed() -> bool {
    ADX_ASSUMED.load(Ordering::Relaxed)
}

/// The requests numcrypt makes (`valgrind.h` and `memcheck.h`).
#[derive(Clone, Copy)]
#[repr(u64)]
pub(crate) enum Request {
    RunningOnValgrind = 0x1001,
    CountErrors = 0x1201,
    /// Memcheck: the bytes become undefined ("secret").
    MakeMemUndefined = 0x4d43_0001,
    /// Memcheck: the bytes become defined ("public").
    MakeMemDefined = 0x4d43_0002,
}

/// Makes `request` with two arguments; returns valgrind's answer, or 0 on a
/// real CPU.
#[inline(never)]
pub(crate) fn client_request(request: Request, arg1: usize, arg2: usize) -> usize {
    let args: [u64; 6] = [request as u64, arg1 as u64, arg2 as u64, 0, 0, 0];
    let mut result: u64 = 0;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the rotations of rdi total 128 bits (rdi ends as it began), and
    // `xchg rbx, rbx` changes nothing; under valgrind, the sequence reads the
    // six words at rax (which `args` holds, alive until after the block) and
    // writes the answer to rdx. Memcheck's requests change only its own
    // bookkeeping, never the program's memory; the block is not declared
    // read-only all the same, so that the compiler reloads anything a request
    // marked rather than keep a copy in a register (whose shadow valgrind
    // would not change).
    unsafe {
        core::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            options(nostack),
        );
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: the rotations of x12 total 128 bits and `orr x10, x10, x10`
    // changes nothing; under valgrind, the sequence reads the six words at x4
    // and writes the answer to x3, as on x86_64.
    unsafe {
        core::arch::asm!(
            "ror x12, x12, #3", "ror x12, x12, #13", "ror x12, x12, #51", "ror x12, x12, #61",
            "orr x10, x10, x10",
            in("x4") args.as_ptr(),
            inout("x3") result,
            options(nostack),
        );
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = args;
    result as usize
}
