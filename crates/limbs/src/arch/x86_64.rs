//! x86_64 row kernels with `mulx` (BMI2) and the two independent carry
//! chains of `adcx`/`adox` (ADX): one chain adds the accumulator, the other
//! the previous product's high limb, so neither waits on the other.
//!
//! Loops are unrolled four limbs at a time and count down with `lea`/`jrcxz`,
//! which leave the carry and overflow flags alone.

use core::arch::asm;

use crate::Limb;
use crate::kernels::Kernels;

cpufeatures::new!(bmi2_adx, "bmi2", "adx");

/// The mulx/adcx/adox backend. A value exists only on a CPU with BMI2 and
/// ADX: [`Adx::detect`] is the only way to get one.
#[derive(Clone, Copy, Debug)]
pub struct Adx(());

impl Adx {
    /// The backend, if this CPU supports BMI2 and ADX (detected once and
    /// cached; free when the target features are enabled at compile time).
    #[inline]
    pub fn detect() -> Option<Self> {
        if bmi2_adx::init_get().1 {
            Some(Adx(()))
        } else {
            None
        }
    }
}

impl Kernels for Adx {
    #[inline]
    fn mul_1(self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
        assert!(r.len() == a.len() && !a.is_empty());
        let n = a.len();
        let carry: Limb;
        // SAFETY: `self` proves the CPU has BMI2 (mulx) and ADX (adcx). The
        // block reads a[0..n] and writes r[0..n] only (n = both lengths,
        // checked above), through pointers derived from the slices; it
        // declares every register it changes and uses no stack.
        unsafe {
            asm!(
                "xor {hi:e}, {hi:e}",           // hi = 0, CF = 0
                "test rcx, rcx",
                "jz 3f",
                "2:",
                "mulx {t}, {lo}, [{ap}]",
                "adcx {lo}, {hi}",
                "mov [{rp}], {lo}",
                "mulx {hi}, {lo}, [{ap} + 8]",
                "adcx {lo}, {t}",
                "mov [{rp} + 8], {lo}",
                "mulx {t}, {lo}, [{ap} + 16]",
                "adcx {lo}, {hi}",
                "mov [{rp} + 16], {lo}",
                "mulx {hi}, {lo}, [{ap} + 24]",
                "adcx {lo}, {t}",
                "mov [{rp} + 24], {lo}",
                "lea {ap}, [{ap} + 32]",
                "lea {rp}, [{rp} + 32]",
                "lea rcx, [rcx - 1]",
                "jrcxz 4f",
                "jmp 2b",
                "4:",
                "mov {t:e}, 0",
                "adcx {hi}, {t}",               // fold CF into hi
                "3:",
                "test {rest}, {rest}",
                "jz 6f",
                "5:",
                "mulx {t}, {lo}, [{ap}]",
                "add {lo}, {hi}",
                "adc {t}, 0",
                "mov [{rp}], {lo}",
                "mov {hi}, {t}",
                "lea {ap}, [{ap} + 8]",
                "lea {rp}, [{rp} + 8]",
                "dec {rest}",
                "jnz 5b",
                "6:",
                inout("rcx") n / 4 => _,
                rest = inout(reg) n % 4 => _,
                ap = inout(reg) a.as_ptr() => _,
                rp = inout(reg) r.as_mut_ptr() => _,
                hi = out(reg) carry,
                lo = out(reg) _,
                t = out(reg) _,
                in("rdx") b,
                options(nostack),
            );
        }
        carry
    }

    #[inline]
    fn addmul_1(self, r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
        assert!(r.len() == a.len() && !a.is_empty());
        let n = a.len();
        let carry: Limb;
        // SAFETY: as in `mul_1`: BMI2 and ADX are present (`self`); the block
        // reads a[0..n] and reads and writes r[0..n] only, declares every
        // register it changes and uses no stack.
        unsafe {
            asm!(
                "xor {hi:e}, {hi:e}",           // hi = 0, CF = OF = 0
                "test rcx, rcx",                // keeps CF = OF = 0
                "jz 3f",
                "2:",
                // CF chain: + r[j]; OF chain: + previous high limb.
                "mulx {t}, {lo}, [{ap}]",
                "adcx {lo}, [{rp}]",
                "adox {lo}, {hi}",
                "mov [{rp}], {lo}",
                "mulx {hi}, {lo}, [{ap} + 8]",
                "adcx {lo}, [{rp} + 8]",
                "adox {lo}, {t}",
                "mov [{rp} + 8], {lo}",
                "mulx {t}, {lo}, [{ap} + 16]",
                "adcx {lo}, [{rp} + 16]",
                "adox {lo}, {hi}",
                "mov [{rp} + 16], {lo}",
                "mulx {hi}, {lo}, [{ap} + 24]",
                "adcx {lo}, [{rp} + 24]",
                "adox {lo}, {t}",
                "mov [{rp} + 24], {lo}",
                "lea {ap}, [{ap} + 32]",
                "lea {rp}, [{rp} + 32]",
                "lea rcx, [rcx - 1]",
                "jrcxz 4f",
                "jmp 2b",
                "4:",
                // hi + CF + OF cannot overflow: r + a*b < 2^(64(n+1)).
                "mov {t:e}, 0",
                "adcx {hi}, {t}",
                "adox {hi}, {t}",
                "3:",
                "test {rest}, {rest}",
                "jz 6f",
                "5:",
                "mulx {t}, {lo}, [{ap}]",
                "add {lo}, [{rp}]",
                "adc {t}, 0",
                "add {lo}, {hi}",
                "adc {t}, 0",
                "mov [{rp}], {lo}",
                "mov {hi}, {t}",
                "lea {ap}, [{ap} + 8]",
                "lea {rp}, [{rp} + 8]",
                "dec {rest}",
                "jnz 5b",
                "6:",
                inout("rcx") n / 4 => _,
                rest = inout(reg) n % 4 => _,
                ap = inout(reg) a.as_ptr() => _,
                rp = inout(reg) r.as_mut_ptr() => _,
                hi = out(reg) carry,
                lo = out(reg) _,
                t = out(reg) _,
                in("rdx") b,
                options(nostack),
            );
        }
        carry
    }
}
