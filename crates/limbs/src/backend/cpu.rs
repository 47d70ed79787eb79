//! The CPU's identity (vendor, family, model, brand), which the rules of
//! the backend choice read: CPUID on x86_64, `MIDR_EL1` on aarch64.

use core::fmt;

/// The CPU's identity: as CPUID reports it on x86_64; on aarch64 the
/// implementer (as the family) and part number (as the model) of
/// `MIDR_EL1`, where the operating system lets user code read it (Linux),
/// with the names of the parts this crate knows; elsewhere only the
/// architecture is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cpu {
    pub(super) vendor: [u8; 12],
    pub(super) family: u32,
    pub(super) model: u32,
    pub(super) brand: [u8; 48],
    /// AMX tiles (CPUID leaf 7, EDX bit 24): Intel's server cores from
    /// Sapphire Rapids on, which a hypervisor may give another model number.
    pub(super) amx: bool,
}

impl Cpu {
    /// This CPU.
    pub fn current() -> Self {
        #[cfg(target_arch = "x86_64")]
        return identity();
        #[cfg(target_arch = "aarch64")]
        if let Some(midr) = super::aarch64::id::midr() {
            return Self::from_midr(midr);
        }
        #[allow(unreachable_code)]
        Self::UNKNOWN
    }

    const UNKNOWN: Self = Self {
        vendor: [0; 12],
        family: 0,
        model: 0,
        brand: [0; 48],
        amx: false,
    };

    /// An aarch64 core from its `MIDR_EL1`.
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    pub(super) fn from_midr(midr: u64) -> Self {
        let implementer = ((midr >> 24) & 0xff) as u32;
        let part = ((midr >> 4) & 0xfff) as u32;
        let (vendor, name) = arm_names(implementer, part);
        let mut cpu = Self {
            family: implementer,
            model: part,
            ..Self::UNKNOWN
        };
        cpu.vendor[..vendor.len()].copy_from_slice(vendor.as_bytes());
        cpu.brand[..name.len()].copy_from_slice(name.as_bytes());
        cpu
    }

    /// The vendor string (`AuthenticAMD`, `GenuineIntel`; on aarch64 the
    /// implementer's name, `Arm`, `Apple`, …), empty if unknown.
    pub fn vendor(&self) -> &str {
        trimmed(&self.vendor)
    }

    /// The display family (base plus extended family); on aarch64 the
    /// implementer code (`0x41` for Arm).
    pub fn family(&self) -> u32 {
        self.family
    }

    /// The display model (with the extended model bits); on aarch64 the
    /// part number (`0xd0c` for Neoverse N1).
    pub fn model(&self) -> u32 {
        self.model
    }

    /// The brand string, as `/proc/cpuinfo`'s `model name`; on aarch64 the
    /// part's name where this crate knows it.
    pub fn name(&self) -> &str {
        trimmed(&self.brand)
    }

    /// Whether the CPU has AMX tiles (x86_64 only).
    pub fn has_amx(&self) -> bool {
        self.amx
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

/// The implementer's name (at most 12 bytes) and the part's name (empty if
/// unknown) of an aarch64 core.
fn arm_names(implementer: u32, part: u32) -> (&'static str, &'static str) {
    let vendor = match implementer {
        0x41 => "Arm",
        0x42 => "Broadcom",
        0x46 => "Fujitsu",
        0x48 => "HiSilicon",
        0x4e => "NVIDIA",
        0x51 => "Qualcomm",
        0x61 => "Apple",
        0x6d => "Microsoft",
        0xc0 => "Ampere",
        _ => "unknown",
    };
    let name = match (implementer, part) {
        (0x41, 0xd03) => "Cortex-A53",
        (0x41, 0xd05) => "Cortex-A55",
        (0x41, 0xd07) => "Cortex-A57",
        (0x41, 0xd08) => "Cortex-A72",
        (0x41, 0xd0b) => "Cortex-A76",
        (0x41, 0xd0c) => "Neoverse N1",
        (0x41, 0xd0d) => "Cortex-A77",
        (0x41, 0xd40) => "Neoverse V1",
        (0x41, 0xd41) => "Cortex-A78",
        (0x41, 0xd49) => "Neoverse N2",
        (0x41, 0xd4f) => "Neoverse V2",
        (0x41, 0xd84) => "Neoverse V3",
        (0x41, 0xd8e) => "Neoverse N3",
        _ => "",
    };
    (vendor, name)
}

impl fmt::Display for Cpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.vendor().is_empty() {
            return write!(f, "CPU: {ARCH}");
        }
        if ARCH == "aarch64" {
            let (implementer, part, name) = (self.family, self.model, self.name());
            return write!(
                f,
                "CPU: aarch64, {} ({implementer:#x}) part {part:#x} ({})",
                self.vendor(),
                if name.is_empty() { "unknown" } else { name }
            );
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
    use core::arch::x86_64::{__cpuid, __cpuid_count, CpuidResult};
    // SAFETY: CPUID exists on every x86_64 CPU and only reads identification
    // registers (the intrinsic is safe on recent compilers).
    #[allow(unused_unsafe)]
    let cpuid = |leaf: u32| -> CpuidResult { unsafe { __cpuid(leaf) } };
    let words = |r: CpuidResult| [r.eax, r.ebx, r.ecx, r.edx];
    let leaf0 = cpuid(0);
    // SAFETY: as above; leaf 7 exists when leaf 0 reports it.
    #[allow(unused_unsafe)]
    let amx = leaf0.eax >= 7 && unsafe { __cpuid_count(7, 0) }.edx & (1 << 24) != 0;
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
        amx,
    }
}
