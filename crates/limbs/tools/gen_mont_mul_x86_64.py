#!/usr/bin/env python3
"""Generates src/backend/x86_64_adx/gen/unrolled.rs: fully unrolled x86_64 Montgomery
multiplications for fixed limb counts (CIOS with mulx and the adcx/adox
carry chains, the accumulator held in registers).

Usage: python3 tools/gen_mont_mul_x86_64.py > src/backend/x86_64_adx/gen/unrolled.rs
(`.ci/run` checks that the file matches this script's output.)

Per outer step i:
  t += a * b[i]   (CF chain: low halves into t[j]; OF chain: high halves into t[j+1])
  q  = t[0] * m_inv
  t += q * m      (same two chains; t[0] becomes 0)
  rotate the register names so that t[j] <- t[j+1] (the zeroed t[0] becomes
  the new top limb).
Then one constant-time conditional subtraction of m, and the result is
written to r, which is not a (the caller need not copy a into r first; the
copy's store and reload sat on the path of every multiplication, about a
cycle of the 4-limb kernel's 36). The pointer to r arrives in rdx and waits
in a stack slot until the last row has read a, when a's register takes it.

Registers: up to 5 limbs, the accumulator t[0..=n+1] fits in registers
beside the three pointers, m_inv, two temporaries and rdx (13 registers).
From 6 limbs the block keeps m_inv and the pointer to b on the stack (b[i] is
loaded through it once per step) and holds t[n+1], the overflow of each row
(at most 1 after the reduction row), in a stack slot, so the accumulator
needs n+1 registers and the block n+6 in all. LLVM can hand out 14 registers
even when rbp is kept as the frame pointer, which covers 8 limbs.

From 9 limbs the pointers to a and m go on the stack as well, and one
register takes whichever of them the next row reads (a load per row, which
L1 serves at once): n+5 registers, 14 at 9 limbs.
"""
import sys

SIZES = [4, 6, 7, 8, 9]  # 7 and 9 for 448- and 521-bit prime fields; 5 would fit too
IND = " " * 12


def e32(r):
    """The 32-bit name of an accumulator register (writing it zeroes the top half)."""
    return r[:-1] + ":e}" if r.startswith("{") else "e" + r[1:]


def gen(n):
    out = []
    emit = lambda s: out.append(IND + s)
    stack = n > 5
    shared = n > 8  # a and m through one register, reloaded per row
    named = n + 1 if stack else n + 2
    regs = [f"{{t{k}}}" for k in range(named)]
    ptr = {"a": "{src}", "m": "{src}"} if shared else {"a": "{a}", "m": "{m}"}

    def load(src):
        """Points the shared register at `src` (a or m), when there is one."""
        if shared:
            emit(f'"mov {{src}}, [rsp + {24 if src == "a" else 32}]",  // the pointer to {src}')

    # The pointer to r arrives in rdx (b[0] takes rdx next) and waits on the
    # stack until the end, when a's register (free by then) takes it.
    r_slot = 40 if shared else 24 if stack else 0
    emit(f'"push rdx",           // the pointer to r, at [rsp + {r_slot}]')

    def load_r():
        emit(f'"mov {ptr["a"]}, [rsp + {r_slot}]",  // the pointer to r')

    if stack:
        if shared:
            emit('"push {t3}",          // the pointer to m, at [rsp + 32]')
            emit('"push {t2}",          // the pointer to a, at [rsp + 24]')
        emit('"push {t1}",          // the pointer to b, at [rsp + 16]')
        emit('"push {t0}",          // m_inv, at [rsp + 8]')
        emit('"push {t0}",          // the overflow slot, at [rsp]')
        minv = "qword ptr [rsp + 8]"
    else:
        minv = "{m_inv}"

    def row(src):
        load(src)
        emit('"xor {lo:e}, {lo:e}",  // CF = OF = 0')
        for j in range(n):
            emit(f'"mulx {{hi}}, {{lo}}, [{ptr[src]} + {8 * j}]",')
            emit(f'"adcx {regs[j]}, {{lo}}",')
            emit(f'"adox {regs[j + 1]}, {{hi}}",')
        emit('"mov {lo:e}, 0",      // a zero that leaves the flags alone')
        emit(f'"adcx {regs[n]}, {{lo}}",')

    for i in range(n):
        emit(f'// step {i}: t += a * b[{i}], then t += q * m and shift down a limb')
        if stack:
            emit('"mov rdx, [rsp + 16]",')
            emit(f'"mov rdx, [rdx + {8 * i}]",')
        else:
            emit(f'"mov rdx, [{{b}} + {8 * i}]",')
        if i == 0:
            # t is still zero: t = a * b[0] needs one carry chain and no
            # additions into t, and cannot overflow t[n].
            load("a")
            emit(f'"mulx {regs[1]}, {regs[0]}, [{ptr["a"]}]",')
            for j in range(1, n):
                emit(f'"mulx {regs[j + 1]}, {{lo}}, [{ptr["a"]} + {8 * j}]",')
                emit(f'"{"add" if j == 1 else "adc"} {regs[j]}, {{lo}}",')
            emit(f'"adc {regs[n]}, 0",')
            if stack:
                emit('"mov qword ptr [rsp], 0",')
        else:
            row("a")
            # The row's overflow (CF + OF) goes to the top limb or the slot.
            if stack:
                emit('"mov {hi:e}, 0",')
                emit('"adcx {hi}, {lo}",')
                emit('"adox {hi}, {lo}",')
                emit('"mov [rsp], {hi}",')
            else:
                emit(f'"adcx {regs[n + 1]}, {{lo}}",')
                emit(f'"adox {regs[n + 1]}, {{lo}}",')
        emit(f'"mov rdx, {regs[0]}",')
        emit(f'"imul rdx, {minv}",')
        row("m")
        if stack:
            # t[0] is now zero: it becomes the new top limb, taking the
            # overflow of both rows (at most 1 in all).
            emit(f'"adcx {regs[0]}, [rsp]",')
            emit(f'"adox {regs[0]}, {{lo}}",')
            regs = regs[1:] + regs[:1]
        else:
            emit(f'"adcx {regs[n + 1]}, {{lo}}",')
            emit(f'"adox {regs[n + 1]}, {{lo}}",')
            # t[0] is now zero: it becomes the new top limb.
            regs = regs[1:] + regs[:1]

    emit("// t[0..n] + 2^(64n) t[n] is below 2m: subtract m once if it fits.")
    if stack:
        # No spare registers: keep t in r while the registers take t - m
        # (`mov` leaves the flags alone, so the shared pointer can switch
        # between the borrow chain and the moves that use it).
        load_r()
        for j in range(n):
            emit(f'"mov [{ptr["a"]} + {8 * j}], {regs[j]}",')
        load("m")
        for j in range(n):
            op = "sub" if j == 0 else "sbb"
            emit(f'"{op} {regs[j]}, [{ptr["m"]} + {8 * j}]",')
        emit(f'"sbb {regs[n]}, 0",  // borrow out: the value was below m')
        if shared:
            load_r()
        for j in range(n):
            emit(f'"cmovc {regs[j]}, [{ptr["a"]} + {8 * j}]",')
    else:
        # t - m in the registers no longer needed.
        tmps = ["{lo}", "{hi}", "{b}", "{m_inv}"]
        assert n <= len(tmps)
        for j in range(n):
            emit(f'"mov {tmps[j]}, {regs[j]}",')
        for j in range(n):
            op = "sub" if j == 0 else "sbb"
            emit(f'"{op} {tmps[j]}, [{{m}} + {8 * j}]",')
        emit(f'"sbb {regs[n]}, 0",  // borrow out: the value was below m')
        for j in range(n):
            emit(f'"cmovnc {regs[j]}, {tmps[j]}",')
        load_r()
    for j in range(n):
        emit(f'"mov [{ptr["a"]} + {8 * j}], {regs[j]}",')
    emit(f'"add rsp, {r_slot + 8}",')

    body = "\n".join(out)
    if shared:
        ops = [f"{IND}t0 = inout(reg) m_inv => _,", f"{IND}t1 = inout(reg) b.as_ptr() => _,"]
        ops += [f"{IND}t2 = inout(reg) a.as_ptr() => _,", f"{IND}t3 = inout(reg) m.as_ptr() => _,"]
        ops += [f"{IND}t{k} = out(reg) _," for k in range(4, named)]
        ops += [f"{IND}src = out(reg) _,"]
        options = "options()"
        safety_stack = (
            "It pushes six limbs and pops\n    // them before it ends, so the stack pointer is restored."
        )
        b_op = ""
    elif stack:
        ops = [f"{IND}t0 = inout(reg) m_inv => _,", f"{IND}t1 = inout(reg) b.as_ptr() => _,"]
        ops += [f"{IND}t{k} = out(reg) _," for k in range(2, named)]
        options = "options()"
        safety_stack = (
            "It pushes four limbs and pops\n    // them before it ends, so the stack pointer is restored."
        )
        b_op = ""
    else:
        ops = [f"{IND}m_inv = inout(reg) m_inv => _,"]
        ops += [f"{IND}t{k} = out(reg) _," for k in range(named - 1)]
        ops += [f"{IND}t{named - 1} = inout(reg) 0 as Limb => _,  // t[n+1] starts at zero"]
        options = "options()"
        safety_stack = (
            "It pushes one limb and pops\n    // it before it ends, so the stack pointer is restored."
        )
        b_op = f"{IND}b = inout(reg) b.as_ptr() => _,\n"
    ops = "\n".join(ops)
    pointers = "" if shared else f"{IND}a = inout(reg) a.as_ptr() => _,\n{b_op}{IND}m = in(reg) m.as_ptr(),\n"
    return f'''
/// `r = a * b * 2^-{64 * n} mod m` for {n}-limb operands: unrolled CIOS, fully
/// reduced. `m` odd, `m_inv = -m^-1 mod 2^64`, `a * b < m * 2^{64 * n}`.
#[inline]
pub(crate) fn mont_mul_{n}(
    _cpu: Adx,
    r: &mut [Limb; {n}],
    a: &[Limb; {n}],
    b: &[Limb; {n}],
    m: &[Limb; {n}],
    m_inv: Limb,
) {{
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads a, b and m ({n} limbs each, by their array types) and writes
    // r, which cannot alias them (it is borrowed mutably), only after its last
    // read of a; every named register it changes is declared. {safety_stack}
    unsafe {{
        asm!(
{body}
{pointers}{ops}
{IND}lo = out(reg) _,
{IND}hi = out(reg) _,
{IND}inout("rdx") r.as_mut_ptr() => _,
{IND}{options},
        );
    }}
}}
'''


header = '''//! Fully unrolled Montgomery multiplications for the sizes where a row
//! kernel's entry and exit would dominate.
//!
//! GENERATED by `tools/gen_mont_mul_x86_64.py`; do not edit by hand (`.ci/run`
//! checks that this file matches the script).

use core::arch::asm;

use crate::Limb;
use crate::backend::x86_64_adx::Adx;
'''
sys.stdout.write(header)
for n in SIZES:
    sys.stdout.write(gen(n))
