//! x86_64 row kernels with `mulx` (BMI2) and the two independent carry
//! chains of `adcx`/`adox` (ADX): one chain adds the accumulator, the other
//! the previous product's high limb, so neither waits on the other.
//!
//! Loops are unrolled four limbs at a time and count down with `lea`/`jrcxz`,
//! which leave the carry and overflow flags alone.

use core::arch::asm;

use crate::Limb;
use crate::kernels::{Kernels, add_n, final_subtract, mont_redc_rows, run_unrolled};

pub(crate) mod field;
pub(crate) mod ifma;
mod unrolled;

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

    /// One pass with two carry chains: `adcx x, x` doubles a limb and
    /// carries its top bit into the next (CF), `adox` adds the squares (OF).
    fn double_add_squares(self, r: &mut [Limb], a: &[Limb]) {
        let n = a.len();
        assert!(n > 0 && r.len() == 2 * n);
        // SAFETY: `self` proves BMI2 and ADX. Step i reads a[i] and reads and
        // writes r[2i..2i+2], for i < n = a.len() with r.len() == 2n (checked
        // above). Every register the block changes is declared; it uses no
        // stack. The final carries are zero because the result fits in r.
        unsafe {
            asm!(
                "xor {x0:e}, {x0:e}",          // CF = OF = 0
                "2:",
                "mov rdx, [{ap}]",
                "mulx {hi}, {lo}, rdx",
                "mov {x0}, [{rp}]",
                "mov {x1}, [{rp} + 8]",
                "adcx {x0}, {x0}",
                "adcx {x1}, {x1}",
                "adox {x0}, {lo}",
                "adox {x1}, {hi}",
                "mov [{rp}], {x0}",
                "mov [{rp} + 8], {x1}",
                "lea {ap}, [{ap} + 8]",
                "lea {rp}, [{rp} + 16]",
                "lea rcx, [rcx - 1]",
                "jrcxz 3f",
                "jmp 2b",
                "3:",
                ap = inout(reg) a.as_ptr() => _,
                rp = inout(reg) r.as_mut_ptr() => _,
                x0 = out(reg) _,
                x1 = out(reg) _,
                lo = out(reg) _,
                hi = out(reg) _,
                inout("rcx") n => _,
                out("rdx") _,
                options(nostack),
            );
        }
    }

    /// Whole-reduction assembly when `n` is a multiple of 4: the row loop
    /// runs inside the block, and each row leaves its carry in the limb it
    /// has just zeroed (as GMP's `redc_1` does), so the carries are added in
    /// one pass at the end instead of rippling through the rows.
    fn mont_redc(self, r: &mut [Limb], t: &mut [Limb], m: &[Limb], m_inv: Limb) {
        let n = m.len();
        if !n.is_multiple_of(4) {
            return mont_redc_rows(self, r, t, m, m_inv);
        }
        assert!(n > 0 && r.len() == n && t.len() == 2 * n);
        // SAFETY: `self` proves BMI2 and ADX. Row i (i < n) reads and writes
        // t[i..i+n] and reads m[0..n]; the last row ends at t[2n-1], inside
        // `t` (length 2n, checked above). Every register the block changes
        // is declared; it uses no stack.
        unsafe {
            asm!(
                "mov rdx, [{tp}]",
                "imul rdx, {m_inv}",           // q for row 0
                "2:",                          // row i: t[i..i+n] += q * m
                "mov rcx, {n4}",
                "mov {mp}, {m}",
                "mov {rp}, {tp}",
                "xor {hi:e}, {hi:e}",          // hi = 0, CF = OF = 0
                // The first four limbs, keeping t[i+1] once it is final: the
                // next row's q comes from this copy, which takes the store and
                // reload off the rows' only serial dependency (measured: 385
                // to 350 cycles at 16 limbs). imul changes the flags, so it
                // waits for the row's end; computing q there with a flagless
                // mulx instead measured no faster.
                "mulx {t}, {lo}, [{mp}]",
                "adcx {lo}, [{rp}]",
                "adox {lo}, {hi}",
                "mov [{rp}], {lo}",
                "mulx {hi}, {lo}, [{mp} + 8]",
                "adcx {lo}, [{rp} + 8]",
                "adox {lo}, {t}",
                "mov [{rp} + 8], {lo}",
                "mov {q}, {lo}",
                "jmp 5f",
                "3:",
                "mulx {t}, {lo}, [{mp}]",
                "adcx {lo}, [{rp}]",
                "adox {lo}, {hi}",
                "mov [{rp}], {lo}",
                "mulx {hi}, {lo}, [{mp} + 8]",
                "adcx {lo}, [{rp} + 8]",
                "adox {lo}, {t}",
                "mov [{rp} + 8], {lo}",
                "5:",
                "mulx {t}, {lo}, [{mp} + 16]",
                "adcx {lo}, [{rp} + 16]",
                "adox {lo}, {hi}",
                "mov [{rp} + 16], {lo}",
                "mulx {hi}, {lo}, [{mp} + 24]",
                "adcx {lo}, [{rp} + 24]",
                "adox {lo}, {t}",
                "mov [{rp} + 24], {lo}",
                "lea {mp}, [{mp} + 32]",
                "lea {rp}, [{rp} + 32]",
                "lea rcx, [rcx - 1]",
                "jrcxz 4f",
                "jmp 3b",
                "4:",
                "mov {t:e}, 0",
                "adcx {hi}, {t}",
                "adox {hi}, {t}",
                "mov [{tp}], {hi}",            // t[i] is zero: keep the carry there
                "lea {tp}, [{tp} + 8]",
                "mov rdx, {q}",
                "imul rdx, {m_inv}",
                "dec {rows}",
                "jnz 2b",
                tp = inout(reg) t.as_mut_ptr() => _,
                m = in(reg) m.as_ptr(),
                m_inv = in(reg) m_inv,
                n4 = in(reg) n / 4,
                rows = inout(reg) n => _,
                mp = out(reg) _,
                rp = out(reg) _,
                hi = out(reg) _,
                lo = out(reg) _,
                t = out(reg) _,
                q = out(reg) _,
                out("rcx") _,
                out("rdx") _,
                options(nostack),
            );
        }
        // Row i's carry belongs at t[i + n].
        let (carries, top) = t.split_at(n);
        let hi = add_n(r, top, carries);
        final_subtract(r, hi, m);
    }

    /// 4, 6, 7, 8 and 9 limbs (256 to 576 bits) get a fully unrolled
    /// multiplication, where the per-row entry and exit would otherwise
    /// dominate.
    #[inline]
    fn mont_mul_unrolled(
        self,
        r: &mut [Limb],
        a: &[Limb],
        b: &[Limb],
        m: &[Limb],
        m_inv: Limb,
    ) -> bool {
        match a.len() {
            4 => run_unrolled(r, a, b, m, |r, a, b, m| {
                unrolled::mont_mul_4(self, r, a, b, m, m_inv)
            }),
            6 => run_unrolled(r, a, b, m, |r, a, b, m| {
                unrolled::mont_mul_6(self, r, a, b, m, m_inv)
            }),
            7 => run_unrolled(r, a, b, m, |r, a, b, m| {
                unrolled::mont_mul_7(self, r, a, b, m, m_inv)
            }),
            8 => run_unrolled(r, a, b, m, |r, a, b, m| {
                unrolled::mont_mul_8(self, r, a, b, m, m_inv)
            }),
            9 => run_unrolled(r, a, b, m, |r, a, b, m| {
                unrolled::mont_mul_9(self, r, a, b, m, m_inv)
            }),
            _ => false,
        }
    }
}
