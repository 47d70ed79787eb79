//! The CPU's identity (vendor, family, model, brand), which the rules of
//! the backend choice read.

use core::fmt;

/// The CPU's identity as CPUID reports it (x86_64; elsewhere only the
/// architecture is known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    pub(super) vendor: [u8; 12],
    pub(super) family: u32,
    pub(super) model: u32,
    pub(super) brand: [u8; 48],
}

impl Cpu {
    /// This CPU.
    pub fn current() -> Self {
        #[cfg(target_arch = "x86_64")]
        return identity();
        #[allow(unreachable_code)]
        Self {
            vendor: [0; 12],
            family: 0,
            model: 0,
            brand: [0; 48],
        }
    }

    /// The vendor string (`AuthenticAMD`, `GenuineIntel`), empty if unknown.
    pub fn vendor(&self) -> &str {
        trimmed(&self.vendor)
    }

    /// The display family (base plus extended family).
    pub fn family(&self) -> u32 {
        self.family
    }

    /// The display model (with the extended model bits).
    pub fn model(&self) -> u32 {
        self.model
    }

    /// The brand string, as `/proc/cpuinfo`'s `model name`.
    pub fn name(&self) -> &str {
        trimmed(&self.brand)
    }
}

const ARCH: &str = if cfg!(target_arch = "x86_64") {
    "x86_64"
} else if cfg!(target_arch = "aarch64") {
    "aarch64"
} else {
    "unknown architecture"
};

fn trimmed(bytes: &[u8]) -> &str {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    core::str::from_utf8(&bytes[..end]).unwrap_or("").trim()
}

impl fmt::Display for Cpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.vendor().is_empty() {
            return write!(f, "CPU: {ARCH}");
        }
        write!(
            f,
            "CPU: {} family {:#x} model {:#x} ({})",
            self.vendor(),
            self.family,
            self.model,
            self.name()
        )
    }
}

#[cfg(target_arch = "x86_64")]
/// The CPU's vendor, display family and model, and brand string, from
/// CPUID leaves 0, 1 and 0x80000002–4.
fn identity() -> Cpu {
    use core::arch::x86_64::{__cpuid, CpuidResult};
    // SAFETY: CPUID exists on every x86_64 CPU and only reads identification
    // registers (the intrinsic is safe on recent compilers).
    #[allow(unused_unsafe)]
    let cpuid = |leaf: u32| -> CpuidResult { unsafe { __cpuid(leaf) } };
    let words = |r: CpuidResult| [r.eax, r.ebx, r.ecx, r.edx];
    let leaf0 = cpuid(0);
    let mut vendor = [0; 12];
    for (chunk, word) in vendor.chunks_mut(4).zip([leaf0.ebx, leaf0.edx, leaf0.ecx]) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    let eax = cpuid(1).eax;
    let base_family = (eax >> 8) & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let family = match base_family {
        0xf => base_family + ((eax >> 20) & 0xff),
        f => f,
    };
    let model = match base_family {
        0x6 | 0xf => base_model | ((eax >> 12) & 0xf0),
        _ => base_model,
    };
    let mut brand = [0; 48];
    if cpuid(0x8000_0000).eax >= 0x8000_0004 {
        for (i, leaf) in (0x8000_0002..=0x8000_0004).enumerate() {
            for (j, word) in words(cpuid(leaf)).into_iter().enumerate() {
                brand[16 * i + 4 * j..][..4].copy_from_slice(&word.to_le_bytes());
            }
        }
    }
    Cpu {
        vendor,
        family,
        model,
        brand,
    }
}
