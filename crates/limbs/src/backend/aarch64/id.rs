//! The identification registers, read where the operating system lets user
//! code read them: Linux traps and emulates EL0 reads of them when it sets
//! `HWCAP_CPUID`. Elsewhere (macOS, other systems) they read as absent.

use core::arch::asm;

/// Reads the identification register named by its encoding, if the
/// kernel emulates the read.
macro_rules! id_register {
    ($encoding:literal) => {{
        if cpuid_emulated() {
            let value: u64;
            // SAFETY: with HWCAP_CPUID the kernel traps and emulates EL0
            // reads of the ID registers; reads a system register into a
            // register only.
            unsafe {
                asm!(
                    concat!("mrs {}, ", $encoding),
                    out(reg) value,
                    options(nomem, nostack, preserves_flags)
                )
            };
            Some(value)
        } else {
            None
        }
    }};
}

#[cfg(target_os = "linux")]
fn cpuid_emulated() -> bool {
    // SAFETY: getauxval reads the process's auxiliary vector; it has no
    // preconditions.
    let hwcap = unsafe { libc::getauxval(libc::AT_HWCAP) };
    hwcap & libc::HWCAP_CPUID != 0
}

#[cfg(not(target_os = "linux"))]
fn cpuid_emulated() -> bool {
    false
}

/// `MIDR_EL1`: implementer (bits 24–31), variant, architecture, part
/// number (bits 4–15) and revision of the core this thread runs on.
pub(crate) fn midr() -> Option<u64> {
    id_register!("S3_0_C0_C0_0")
}

/// `ID_AA64PFR0_EL1`: the processor features (FEAT_DIT in bits 48–51).
pub(crate) fn pfr0() -> Option<u64> {
    id_register!("S3_0_C0_C4_0")
}
