//! x86_64 row kernels with `mulx` (BMI2) and the two independent carry
//! chains of `adcx`/`adox` (ADX): one chain adds the accumulator, the other
//! the previous product's high limb, so neither waits on the other.
//!
//! Loops are unrolled four limbs at a time and count down with `lea`/`jrcxz`,
//! which leave the carry and overflow flags alone.

use core::arch::asm;

use crate::Limb;
use crate::kernels::{Kernels, mont_mul_separated};

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

    /// Four limbs (256 bits) get a fully unrolled multiplication, where the
    /// per-row entry and exit would otherwise dominate.
    fn mont_mul(
        self,
        r: &mut [Limb],
        a: &[Limb],
        b: &[Limb],
        m: &[Limb],
        m_inv: Limb,
        scratch: &mut [Limb],
    ) {
        if a.len() == 4 {
            let r4 = <&mut [Limb; 4]>::try_from(&mut *r);
            if let (Ok(r4), Ok(b4), Ok(m4)) =
                (r4, <&[Limb; 4]>::try_from(b), <&[Limb; 4]>::try_from(m))
            {
                r4.copy_from_slice(a);
                return mont_mul_4(self, r4, b4, m4, m_inv);
            }
        }
        mont_mul_separated(self, r, a, b, m, m_inv, scratch)
    }
}

/// `r = r * b * 2^-256 mod m` for 4-limb operands, `m` odd,
/// `m_inv = -m^-1 mod 2^64`, `b < m`; fully reduced. The body is generated
/// by `tools/gen_mont_mul_x86_64.py 4`: unrolled CIOS with the accumulator
/// in six registers and one `cmov` subtraction at the end.
#[inline]
fn mont_mul_4(_cpu: Adx, r: &mut [Limb; 4], b: &[Limb; 4], m: &[Limb; 4], m_inv: Limb) {
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads r, b and m (four limbs each, by their array types) and
    // writes r; every register it changes is declared; no stack is used.
    unsafe {
        asm!(
                // step 0: t += a * b[0]
                "mov rdx, [{b} + 0]",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{a} + 0]",
                "adcx {t0}, {lo}",
                "adox {t1}, {hi}",
                "mulx {hi}, {lo}, [{a} + 8]",
                "adcx {t1}, {lo}",
                "adox {t2}, {hi}",
                "mulx {hi}, {lo}, [{a} + 16]",
                "adcx {t2}, {lo}",
                "adox {t3}, {hi}",
                "mulx {hi}, {lo}, [{a} + 24]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t4}, {hi}",
                "adcx {t5}, {hi}",
                "adox {t5}, {hi}",
                "mov rdx, {m_inv}",
                "imul rdx, {t0}",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{m} + 0]",
                "adcx {t0}, {lo}",
                "adox {t1}, {hi}",
                "mulx {hi}, {lo}, [{m} + 8]",
                "adcx {t1}, {lo}",
                "adox {t2}, {hi}",
                "mulx {hi}, {lo}, [{m} + 16]",
                "adcx {t2}, {lo}",
                "adox {t3}, {hi}",
                "mulx {hi}, {lo}, [{m} + 24]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t4}, {hi}",
                "adcx {t5}, {hi}",
                "adox {t5}, {hi}",
                // step 1: t += a * b[1]
                "mov rdx, [{b} + 8]",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{a} + 0]",
                "adcx {t1}, {lo}",
                "adox {t2}, {hi}",
                "mulx {hi}, {lo}, [{a} + 8]",
                "adcx {t2}, {lo}",
                "adox {t3}, {hi}",
                "mulx {hi}, {lo}, [{a} + 16]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mulx {hi}, {lo}, [{a} + 24]",
                "adcx {t4}, {lo}",
                "adox {t5}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t5}, {hi}",
                "adcx {t0}, {hi}",
                "adox {t0}, {hi}",
                "mov rdx, {m_inv}",
                "imul rdx, {t1}",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{m} + 0]",
                "adcx {t1}, {lo}",
                "adox {t2}, {hi}",
                "mulx {hi}, {lo}, [{m} + 8]",
                "adcx {t2}, {lo}",
                "adox {t3}, {hi}",
                "mulx {hi}, {lo}, [{m} + 16]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mulx {hi}, {lo}, [{m} + 24]",
                "adcx {t4}, {lo}",
                "adox {t5}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t5}, {hi}",
                "adcx {t0}, {hi}",
                "adox {t0}, {hi}",
                // step 2: t += a * b[2]
                "mov rdx, [{b} + 16]",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{a} + 0]",
                "adcx {t2}, {lo}",
                "adox {t3}, {hi}",
                "mulx {hi}, {lo}, [{a} + 8]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mulx {hi}, {lo}, [{a} + 16]",
                "adcx {t4}, {lo}",
                "adox {t5}, {hi}",
                "mulx {hi}, {lo}, [{a} + 24]",
                "adcx {t5}, {lo}",
                "adox {t0}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t0}, {hi}",
                "adcx {t1}, {hi}",
                "adox {t1}, {hi}",
                "mov rdx, {m_inv}",
                "imul rdx, {t2}",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{m} + 0]",
                "adcx {t2}, {lo}",
                "adox {t3}, {hi}",
                "mulx {hi}, {lo}, [{m} + 8]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mulx {hi}, {lo}, [{m} + 16]",
                "adcx {t4}, {lo}",
                "adox {t5}, {hi}",
                "mulx {hi}, {lo}, [{m} + 24]",
                "adcx {t5}, {lo}",
                "adox {t0}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t0}, {hi}",
                "adcx {t1}, {hi}",
                "adox {t1}, {hi}",
                // step 3: t += a * b[3]
                "mov rdx, [{b} + 24]",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{a} + 0]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mulx {hi}, {lo}, [{a} + 8]",
                "adcx {t4}, {lo}",
                "adox {t5}, {hi}",
                "mulx {hi}, {lo}, [{a} + 16]",
                "adcx {t5}, {lo}",
                "adox {t0}, {hi}",
                "mulx {hi}, {lo}, [{a} + 24]",
                "adcx {t0}, {lo}",
                "adox {t1}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t1}, {hi}",
                "adcx {t2}, {hi}",
                "adox {t2}, {hi}",
                "mov rdx, {m_inv}",
                "imul rdx, {t3}",
                "xor {lo:e}, {lo:e}",
                "mulx {hi}, {lo}, [{m} + 0]",
                "adcx {t3}, {lo}",
                "adox {t4}, {hi}",
                "mulx {hi}, {lo}, [{m} + 8]",
                "adcx {t4}, {lo}",
                "adox {t5}, {hi}",
                "mulx {hi}, {lo}, [{m} + 16]",
                "adcx {t5}, {lo}",
                "adox {t0}, {hi}",
                "mulx {hi}, {lo}, [{m} + 24]",
                "adcx {t0}, {lo}",
                "adox {t1}, {hi}",
                "mov {hi:e}, 0",
                "adcx {t1}, {hi}",
                "adcx {t2}, {hi}",
                "adox {t2}, {hi}",
                // t[0..n] (+ t[n] as a carry bit) is below 2m: subtract m once if it fits.
                "mov {lo}, {t4}",
                "mov {hi}, {t5}",
                "mov {b}, {t0}",
                "mov {m_inv}, {t1}",
                "sub {lo}, [{m} + 0]",
                "sbb {hi}, [{m} + 8]",
                "sbb {b}, [{m} + 16]",
                "sbb {m_inv}, [{m} + 24]",
                "sbb {t2}, 0",
                "cmovnc {t4}, {lo}",
                "cmovnc {t5}, {hi}",
                "cmovnc {t0}, {b}",
                "cmovnc {t1}, {m_inv}",
                "mov [{a} + 0], {t4}",
                "mov [{a} + 8], {t5}",
                "mov [{a} + 16], {t0}",
                "mov [{a} + 24], {t1}",
                a = in(reg) r.as_mut_ptr(),
                b = inout(reg) b.as_ptr() => _,
                m = in(reg) m.as_ptr(),
                m_inv = inout(reg) m_inv => _,
                t0 = inout(reg) 0 as Limb => _,
                t1 = inout(reg) 0 as Limb => _,
                t2 = inout(reg) 0 as Limb => _,
                t3 = inout(reg) 0 as Limb => _,
                t4 = inout(reg) 0 as Limb => _,
                t5 = inout(reg) 0 as Limb => _,
                lo = out(reg) _,
                hi = out(reg) _,
                out("rdx") _,
                options(nostack),
        );
    }
}
