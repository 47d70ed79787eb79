//! The value barrier: a value the optimiser cannot see through.

/// `x`, hidden from the optimiser: it can no longer see that a mask is 0 or
/// all ones and branch on it, as it did in the table lookup and the
/// conditional additions (memcheck's audit found both). An empty assembly
/// block with the value in a register: no instruction, unlike
/// `core::hint::black_box`, which goes through memory.
#[inline(always)]
pub(crate) fn value_barrier(mut x: crate::Limb) -> crate::Limb {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: an empty block; it reads and writes only the register that
    // holds `x`, and touches no memory, stack or flags.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        x = core::hint::black_box(x);
    }
    x
}
