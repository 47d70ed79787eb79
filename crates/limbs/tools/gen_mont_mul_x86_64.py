#!/usr/bin/env python3
"""Generates the fully unrolled x86_64 Montgomery multiplication for a fixed
limb count (CIOS with mulx and the adcx/adox carry chains, accumulator held
in registers), as the body of a Rust `asm!` block.

Usage: python3 tools/gen_mont_mul_x86_64.py 4 > /tmp/mont4.rs
The output is pasted into src/arch/x86_64.rs (`mont_mul_4`).

Per outer step i:
  t += a * b[i]   (CF chain: low halves into t[j]; OF chain: high halves into t[j+1])
  q  = t[0] * m_inv
  t += q * m      (same two chains; t[0] becomes 0)
  rotate the register names so that t[j] <- t[j+1] (the zeroed t[0] becomes
  the new top limb).
Then one constant-time conditional subtraction of m (sub/sbb, cmovnc).
"""
import sys

n = int(sys.argv[1])
regs = [f"t{k}" for k in range(n + 2)]  # accumulator limbs t[0..=n+1]
out = []
emit = out.append


def row(src):
    # t[0..n] += src[0..n] * rdx, t[n+1] gets the overflow; rdx holds the multiplier.
    emit('"xor {lo:e}, {lo:e}",')  # CF = OF = 0
    for j in range(n):
        emit(f'"mulx {{hi}}, {{lo}}, [{{{src}}} + {8 * j}]",')
        emit(f'"adcx {{{regs[j]}}}, {{lo}}",')
        emit(f'"adox {{{regs[j + 1]}}}, {{hi}}",')
    emit('"mov {hi:e}, 0",')  # a zero that leaves the flags alone
    emit(f'"adcx {{{regs[n]}}}, {{hi}}",')
    emit(f'"adcx {{{regs[n + 1]}}}, {{hi}}",')
    emit(f'"adox {{{regs[n + 1]}}}, {{hi}}",')


for i in range(n):
    emit(f'// step {i}: t += a * b[{i}]')
    emit(f'"mov rdx, [{{b}} + {8 * i}]",')
    row("a")
    emit('"mov rdx, {m_inv}",')
    emit(f'"imul rdx, {{{regs[0]}}}",')
    row("m")
    # t[0] is now zero: it becomes the new top limb.
    regs = regs[1:] + regs[:1]

emit("// t[0..n] (+ t[n] as a carry bit) is below 2m: subtract m once if it fits.")
tmps = ["lo", "hi", "b", "m_inv"][:n] if n <= 4 else None
assert tmps, "this generator keeps the subtraction in four spare registers (n <= 4)"
for j in range(n):
    emit(f'"mov {{{tmps[j]}}}, {{{regs[j]}}}",')
for j in range(n):
    op = "sub" if j == 0 else "sbb"
    emit(f'"{op} {{{tmps[j]}}}, [{{m}} + {8 * j}]",')
emit(f'"sbb {{{regs[n]}}}, 0",')  # borrow out: the value was below m
for j in range(n):
    emit(f'"cmovnc {{{regs[j]}}}, {{{tmps[j]}}}",')
for j in range(n):
    emit(f'"mov [{{r}} + {8 * j}], {{{regs[j]}}}",')

for line in out:
    print("                " + line)
