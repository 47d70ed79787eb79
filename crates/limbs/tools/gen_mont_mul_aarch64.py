#!/usr/bin/env python3
"""Generates src/backend/aarch64/gen/unrolled.rs: fully unrolled aarch64 Montgomery
multiplications for 4, 6 and 8 limbs (CIOS with mul/umulh and adds/adcs
carry chains, the accumulator held in registers).

Usage: python3 tools/gen_mont_mul_aarch64.py > src/backend/aarch64/gen/unrolled.rs
(`.ci/aarch64-qemu` checks that the file matches this script's output.)

aarch64 has one carry flag (no adox), so a row `t += y * x` is two chains:
the low halves into t[0..n), then the high halves into t[1..=n]. The high
halves must all be live between the chains, in n registers h[j]. Per step i:
  t += a * b[i]          a row; its low chain ends by folding the carry into
                         h[n-1] (a high half is at most 2^64 - 2)
  q  = t[0] * m_inv      issued before the high chain, to hide its latency
  t += q * m             the low limb t[0] + lo(q m[0]) is 0 mod 2^64 with a
                         carry exactly when t[0] != 0, so `cmp t0, #1` stands
                         in for that multiplication and addition
  rotate the register names: t[j] <- t[j+1]; the old t[0] (logically zero)
  becomes the new top limb, which the next a row sets with `adc t, xzr, xzr`.
Step 0 starts from t = 0, so its a row multiplies straight into t.
Then one constant-time subtraction of m (subs/sbcs) and csel.

Bounds: with a < 2^(64n) and b < m, t stays below 2^(64n) + m between steps,
so t[n] is 0 or 1, and within a step t[n+1] is 0 or 1 (no carry is lost).

Registers: the accumulator (n + 2), the high halves (n), two low-half
temporaries, the multiplier (b[i], then q), m_inv and three pointers. At 4
limbs a and m also stay in registers (25 in all). At 6 and 8 that would need
31 and 39, more than Rust lets inline asm have (x0-x17, x20-x28 and x30: 28,
and x18 where the platform leaves it free), so a and m are reloaded with ldp
for every row (21 and 25 registers): the loads use the load pipes, and the
multiplications should bound the time rather than they (not measured).
"""
import sys

SIZES = (4, 6, 8)
RESIDENT_MAX = 4  # keep a and m in registers up to this many limbs


def gen(n):
    assert n % 2 == 0 and n >= 4
    resident = n <= RESIDENT_MAX
    t = [f"t{k}" for k in range(n + 2)]  # accumulator, rotated by name each step
    h = [f"h{k}" for k in range(n)]
    body = []

    def emit(s):
        body.append(f'"{s}",')

    def comment(s):
        body.append(f"// {s}")

    def reg(name):
        return "{" + name + "}"

    def load(dst, ptr):
        # ldp pairs from ptr into the registers dst.
        for j in range(0, len(dst), 2):
            off = f", #{8 * j}" if j else ""
            emit(f"ldp {reg(dst[j])}, {reg(dst[j + 1])}, [{reg(ptr)}{off}]")

    def row(src, mul_by, first, reduce):
        """t += src * mul_by. src: 'a' or 'm'. first: step 0 (t = 0 before the
        a row; t[n+1] not yet set before the m row). reduce: this is the m row,
        whose t[0] result is known to be 0."""
        if resident:
            y = [f"{src}{j}" for j in range(n)]
        else:
            y = h  # y[j] is loaded into h[j], then overwritten by its high half
            load(h, {"a": "r", "m": "m"}[src])
        for j in range(0, n, 2):
            pair = (j, j + 1)
            # Low halves: into t directly at step 0, else into l0/l1.
            for k, jj in enumerate(pair):
                if reduce and jj == 0:
                    continue  # replaced by `cmp t0, #1`
                dst = t[jj] if first and not reduce else f"l{k}"
                emit(f"mul {reg(dst)}, {reg(y[jj])}, {reg(mul_by)}")
            for jj in pair:
                emit(f"umulh {reg(h[jj])}, {reg(y[jj])}, {reg(mul_by)}")
            if first and not reduce:
                continue
            for k, jj in enumerate(pair):
                if reduce and jj == 0:
                    emit(f"cmp {reg(t[0])}, #1")  # C = (t0 != 0)
                elif jj == 0:
                    emit(f"adds {reg(t[0])}, {reg(t[0])}, {reg('l0')}")
                else:
                    emit(f"adcs {reg(t[jj])}, {reg(t[jj])}, {reg(f'l{k}')}")
        if not (first and not reduce):
            emit(f"adc {reg(h[n - 1])}, {reg(h[n - 1])}, xzr")
        if not reduce:
            # q for the m row, ahead of the high chain that hides its latency.
            emit(f"mul {reg('x')}, {reg(t[0])}, {reg('m_inv')}")
        # High halves into t[1..=n], the carry into t[n+1].
        emit(f"adds {reg(t[1])}, {reg(t[1])}, {reg(h[0])}")
        for j in range(1, n - 1):
            emit(f"adcs {reg(t[j + 1])}, {reg(t[j + 1])}, {reg(h[j])}")
        if first and not reduce:
            emit(f"adc {reg(t[n])}, {reg(h[n - 1])}, xzr")  # t[n] was 0: no carry out
        else:
            emit(f"adcs {reg(t[n])}, {reg(t[n])}, {reg(h[n - 1])}")
            # In an a row (and at step 0) t[n+1] is the stale old t[0]: set it.
            top = reg(t[n + 1]) if reduce and not first else "xzr"
            emit(f"adc {reg(t[n + 1])}, {top}, xzr")

    if resident:
        comment("a (in r) and m stay in registers throughout.")
        load([f"a{j}" for j in range(n)], "r")
        load([f"m{j}" for j in range(n)], "m")
    for i in range(n):
        comment(f"step {i}: t += a * b[{i}]; q = t[0] * m_inv; t = (t + q * m) / 2^64")
        emit(f"ldr {reg('x')}, [{reg('b')}" + (f", #{8 * i}]" if i else "]"))
        row("a", "x", i == 0, False)
        row("m", "x", i == 0, True)
        t = t[1:] + t[:1]

    comment("t[0..n] (+ t[n] as a carry bit) is below 2m: subtract m once if it fits.")
    if resident:
        mv = [f"m{j}" for j in range(n)]
    else:
        mv = h
        load(h, "m")
    emit(f"subs {reg(h[0])}, {reg(t[0])}, {reg(mv[0])}")
    for j in range(1, n):
        emit(f"sbcs {reg(h[j])}, {reg(t[j])}, {reg(mv[j])}")
    emit(f"sbcs xzr, {reg(t[n])}, xzr")  # C clear: it borrowed, keep t
    for j in range(n):
        emit(f"csel {reg(t[j])}, {reg(t[j])}, {reg(h[j])}, cc")
    for j in range(0, n, 2):
        off = f", #{8 * j}" if j else ""
        emit(f"stp {reg(t[j])}, {reg(t[j + 1])}, [{reg('r')}{off}]")

    operands = [
        "r = in(reg) r.as_mut_ptr(),",
        "b = in(reg) b.as_ptr(),",
        "m = in(reg) m.as_ptr(),",
        "m_inv = in(reg) m_inv,",
        "x = out(reg) _,",
    ]
    operands += [f"t{k} = out(reg) _," for k in range(n + 2)]
    operands += [f"h{k} = out(reg) _," for k in range(n)]
    operands += ["l0 = out(reg) _,", "l1 = out(reg) _,"]
    if resident:
        operands += [f"a{k} = out(reg) _," for k in range(n)]
        operands += [f"m{k} = out(reg) _," for k in range(n)]
    operands.append("options(nostack),")
    nregs = len(operands) - 1

    if resident:
        how = "with a and m held in registers"
    else:
        how = "reloading a and m with `ldp` for each row"
    doc = f"""/// `r = r * b * 2^-{64 * n} mod m` for {n}-limb operands, `m` odd,
/// `m_inv = -m^-1 mod 2^64`, `r * b < m * 2^{64 * n}`; fully reduced. Unrolled
/// CIOS {how} ({nregs} registers).
#[inline]
pub(crate) fn mont_mul_{n}(
    _cpu: Aarch64,
    r: &mut [Limb; {n}],
    b: &[Limb; {n}],
    m: &[Limb; {n}],
    m_inv: Limb,
) {{
    // SAFETY: mul/umulh/adds/adcs/ldp/stp are baseline AArch64. The block
    // reads r, b and m ({n} limbs each, by their array types) and writes r;
    // every register it changes is declared, and it uses no stack.
    unsafe {{
        asm!(
"""
    out = doc
    for line in body:
        out += " " * 12 + line + "\n"
    for line in operands:
        out += " " * 12 + line + "\n"
    out += "        );\n    }\n}\n"
    return out


HEADER = """//! Fully unrolled Montgomery multiplications for the sizes where a row
//! kernel's entry and exit would dominate.
//!
//! GENERATED by `tools/gen_mont_mul_aarch64.py`; do not edit by hand
//! (`.ci/aarch64-qemu` checks that this file matches the script).

use core::arch::asm;

use crate::Limb;
use crate::backend::aarch64::Aarch64;

"""

sys.stdout.write(HEADER + "\n".join(gen(n) for n in SIZES))
