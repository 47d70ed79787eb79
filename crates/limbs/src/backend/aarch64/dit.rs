//! `PSTATE.DIT`, data-independent timing (FEAT_DIT, Armv8.4). While it is
//! set, the architecture promises that the data-processing instructions on
//! Arm's list (among them `mul`, `umulh`, `adds`/`adcs`, `csel` and the
//! loads and stores) take a time that does not depend on their data; while
//! it is clear, it promises nothing. It is a per-thread flag that the
//! operating system saves and restores.
//!
//! The register is named by its encoding (`S3_3_C4_C2_5`), which every
//! assembler takes without the `dit` target feature; its bit 24 is the flag.

use core::arch::asm;

cpufeatures::new!(feat_dit, "dit");

/// The flag's bit in the DIT register.
const DIT: u64 = 1 << 24;

/// Whether `PSTATE.DIT` is set, on a CPU that has FEAT_DIT.
pub(crate) fn is_set(_: Dit) -> bool {
    let value: u64;
    // SAFETY: the `Dit` value proves FEAT_DIT, so the register exists and
    // EL0 may read it. Reads a system register into a register only.
    unsafe {
        asm!("mrs {}, S3_3_C4_C2_5", out(reg) value, options(nomem, nostack, preserves_flags))
    };
    value & DIT != 0
}

/// Sets or clears `PSTATE.DIT`, then waits for the change to take effect
/// before any later instruction (`isb`: Arm documents no barrier as
/// needed, Apple recommends one, and it is cheap beside an exponentiation).
pub(crate) fn set(_: Dit, on: bool) {
    let value = if on { DIT } else { 0 };
    // SAFETY: the `Dit` value proves FEAT_DIT, so the register exists and
    // EL0 may write it. Writes only PSTATE.DIT (the register's other bits
    // are RES0) and synchronises; no memory is touched, and leaving out
    // `nomem` keeps the compiler from moving memory accesses across it.
    unsafe {
        asm!("msr S3_3_C4_C2_5, {}", "isb", in(reg) value, options(nostack, preserves_flags))
    };
}

/// Proof that this CPU has FEAT_DIT.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dit(());

impl Dit {
    /// `Some` when the CPU has FEAT_DIT: the operating system says so
    /// (Linux's `HWCAP_DIT`, macOS's `hw.optional.arm.FEAT_DIT`), or, on
    /// Linux, the ID register the kernel lets user code read does
    /// (`ID_AA64PFR0_EL1.DIT`, where the CPU or emulator implements the
    /// feature without the hwcap bit, as qemu-user 7.2 does).
    pub(crate) fn detect() -> Option<Self> {
        use core::sync::atomic::{AtomicU8, Ordering};
        // 0: not asked yet, 1: absent, 2: present.
        static FOUND: AtomicU8 = AtomicU8::new(0);
        let found = match FOUND.load(Ordering::Relaxed) {
            0 => {
                let found = feat_dit::get()
                    || super::id::pfr0().is_some_and(|pfr0| (pfr0 >> 48) & 0xf != 0);
                FOUND.store(1 + u8::from(found), Ordering::Relaxed);
                found
            }
            state => state == 2,
        };
        found.then_some(Dit(()))
    }
}
