#!/usr/bin/env python3
"""Generates src/backend/x86_64_adx/gen/field.rs: fully unrolled x86_64 products for
prime fields, with mulx and the adcx/adox carry chains, the accumulator held
in registers.

Usage: python3 tools/gen_field_x86_64.py > src/backend/x86_64_adx/gen/field.rs
(`.ci/run` checks that the file matches this script's output.)

Two kernels per size n:
  mul_wide_n: the full product a * b, low and high halves.
  pm_mul_n:   a * b modulo 2^(64n) - c (c < 2^63), as a value below
              2^(64n): the product, then the high half folded into the low
              one as hi * c (2^(64n) = c), then the fold's overflow limb
              folded once more, then a last carry (rare) folded by a mask.
  pm_mul_n_c32: the same for c < 2^32, where the overflow limb times c fits
              a limb (imul, one add), and the masked c cannot carry out of
              limb 0 (benches/RESULTS.md, "Design figures").
and one for P-521's prime p = 2^521 - 1 on nine limbs:
  p521_mul:   a * b modulo p, below 2^523: the product t, then
              t = A + 2^521 (B + 2^521 H) with A, B below 2^521 and H = t >>
              1042 below 2^110, so t = A + B + H mod p, one three-term sum.
              The pieces are shifts (shrd), not multiplications, and the sum
              cannot carry out, so nothing is folded twice: the tail after
              the product is a single carry chain, where pm_mul_9 has two
              folds and a mask.
Each has a square beside it (sqr_wide_n, pm_sqr_n, p521_sqr), the same
tail after a product part that computes each cross product a[i] a[j] once
(n(n-1)/2 mulx and n for the squares, against n^2), faster from 6 limbs
and level at 4 (benches/RESULTS.md, "Design figures").

The product is row by row: row i adds a * b[i] into the window
t[i..=i+n] of n+1 registers (CF chain: low halves into t[i+j]; OF chain:
high halves into t[i+j+1]); after the row, t[i] is final and stored, and its
register becomes the next row's top limb. The whole block needs n+1
accumulator registers, rdx, two temporaries and the pointer to a; with n+8
at most 14 the pointers to b and r and the constant c stay in registers,
otherwise they live in three stack slots (14 registers at n = 9, which LLVM
can hand out even with rbp kept as the frame pointer).

The reduced kernels (pm_*, p521_*) return their limbs in registers
(declared outputs; a result written through a pointer was copied on by the
compiler with loads the store buffer cannot forward): for them the pointer
called r below is a scratch array, which takes the product's low half.
"""
import re
import sys

SIZES = [4, 6, 7, 8, 9]
IND = " " * 12


def square_body(n, emit, stack, names):
    """The square's product part: a^2 with its n(n-1)/2 cross products
    counted once, in the same end state as the rows of a product (t[0..n] in
    r, t[n..2n] in the registers of the returned list, whose last entry is
    free). Pass 1 sums the cross products a[i] a[j] (i < j) row by row, a
    row finalising two limbs, which go to r or, from limb n up, to n stack
    slots at [rsp]; pass 2 doubles that (CF chain: x + x) and adds the
    squares a[i]^2 (OF chain), limb by limb."""
    free = list(names)
    where = {}  # limb -> register
    base = 8 * n  # the scratch below the pointer slots

    def slot(k):
        return f"[rsp + {8 * (k - n)}]"

    def r_ptr_to(reg):
        if stack:
            emit(f'"mov {reg}, [rsp + {base + 16}]",  // the pointer to r')
            return reg
        return "{r}"

    def store(k):
        reg = where.pop(k)
        if k < n:
            ptr = r_ptr_to("rdx")
            emit(f'"mov [{ptr} + {8 * k}], {reg}",')
        else:
            emit(f'"mov {slot(k)}, {reg}",')
        free.append(reg)

    emit(f'"sub rsp, {base}",  // t[n..2n] between the passes')
    emit("// pass 1, row 0: t[1..=n] = a[0] * a[1..n]")
    emit('"mov rdx, [{a}]",')
    for k in range(1, n + 1):
        where[k] = free.pop(0)
    emit(f'"mulx {where[2]}, {where[1]}, [{{a}} + 8]",')
    for j in range(2, n):
        emit(f'"mulx {where[j + 1]}, {{lo}}, [{{a}} + {8 * j}]",')
        emit(f'"{"add" if j == 2 else "adc"} {where[j]}, {{lo}}",')
    emit(f'"adc {where[n]}, 0",')
    store(1)
    store(2)
    for i in range(1, n - 1):
        top = i + n
        emit(f"// pass 1, row {i}: t[{2 * i + 1}..={top}] += a[{i}] * a[{i + 1}..{n}]")
        emit(f'"mov rdx, [{{a}} + {8 * i}]",')
        where[top] = free.pop(0)
        emit(f'"xor {where[top][:-1]}:e}}, {where[top][:-1]}:e}}",  // the new top limb; CF = OF = 0')
        for j in range(i + 1, n):
            emit(f'"mulx {{hi}}, {{lo}}, [{{a}} + {8 * j}]",')
            emit(f'"adcx {where[i + j]}, {{lo}}",')
            emit(f'"adox {where[i + j + 1]}, {{hi}}",')
        emit(f'"adc {where[top]}, 0",  // the OF chain has ended')
        store(2 * i + 1)
        store(2 * i + 2)
    assert not where, where
    emit("// pass 2: t = 2 t + the squares a[i]^2 at limb 2i")
    rp = free.pop(0) if stack else "{r}"
    if stack:
        emit(f'"mov {rp}, [rsp + {base + 16}]",  // the pointer to r')
    emit('"xor {lo:e}, {lo:e}",  // CF = OF = 0')
    for i in range(n):
        emit(f'"mov rdx, [{{a}} + {8 * i}]",')
        emit('"mulx {hi}, {lo}, rdx",')
        for k, sq in ((2 * i, "{lo}"), (2 * i + 1, "{hi}")):
            if k == 0:
                # No cross product at limb 0: it is the square's low half.
                emit(f'"mov [{rp}], {{lo}}",')
                continue
            reg = free.pop(0)
            if k == 2 * n - 1:
                emit(f'"mov {reg}, 0",  // no cross product at the top limb')
            elif k < n:
                emit(f'"mov {reg}, [{rp} + {8 * k}]",')
            else:
                emit(f'"mov {reg}, {slot(k)}",')
            emit(f'"adcx {reg}, {reg}",')
            emit(f'"adox {reg}, {sq}",')
            if k < n:
                emit(f'"mov [{rp} + {8 * k}], {reg}",')
                free.append(reg)
            else:
                where[k] = reg
            if k == n - 1 and stack:
                free.append(rp)
    emit(f'"add rsp, {base}",')
    return [where[k] for k in range(n, 2 * n)] + free[:1]


def gen(n, kind, square=False, c32=False):
    out = []
    emit = lambda s: out.append(IND + s)
    stack = n + 8 > 14
    regs = [f"{{t{k}}}" for k in range(n + 1)]
    e32 = lambda r: r[:-1] + ":e}"

    # Where b, r and c live.
    if stack:
        emit('"push {t2}",          // the pointer to r (or lo), at [rsp + 16]')
        if square and kind != "wide":
            emit('"sub rsp, 8",         // the slot of b\'s pointer, unused here')
        else:
            emit('"push {t1}",          // the pointer to b (or hi), at [rsp + 8]')
        if kind == "p521":
            emit('"sub rsp, 8",         // the slot pm_mul_n keeps c in, unused here')
        else:
            emit('"push {t0}",          // c, at [rsp]')

    def load_b(i):
        if stack:
            emit('"mov rdx, [rsp + 8]",')
            emit(f'"mov rdx, [rdx + {8 * i}]",')
        else:
            emit(f'"mov rdx, [{{b}} + {8 * i}]",')

    def store_low(i, reg):
        if stack:
            emit('"mov rdx, [rsp + 16]",')
            emit(f'"mov [rdx + {8 * i}], {reg}",')
        else:
            emit(f'"mov [{{r}} + {8 * i}], {reg}",')

    for i in range(0 if square else n):
        emit(f"// row {i}: t[{i}..={i + n}] += a * b[{i}]")
        load_b(i)
        if i == 0:
            emit(f'"mulx {regs[1]}, {regs[0]}, [{{a}}]",')
            for j in range(1, n):
                emit(f'"mulx {regs[j + 1]}, {{lo}}, [{{a}} + {8 * j}]",')
                emit(f'"{"add" if j == 1 else "adc"} {regs[j]}, {{lo}}",')
            emit(f'"adc {regs[n]}, 0",')
        else:
            emit(f'"xor {e32(regs[n])}, {e32(regs[n])}",  // the new top limb; CF = OF = 0')
            for j in range(n):
                emit(f'"mulx {{hi}}, {{lo}}, [{{a}} + {8 * j}]",')
                emit(f'"adcx {regs[j]}, {{lo}}",')
                emit(f'"adox {regs[j + 1]}, {{hi}}",')
            # The row's OF chain has ended: adc may clobber OF.
            emit(f'"adc {regs[n]}, 0",')
        store_low(i, regs[0])
        regs = regs[1:] + regs[:1]
    if square:
        regs = square_body(n, emit, stack, regs)
    # regs[0..n] = t[n..2n]; regs[n] is free.

    if kind == "wide":
        if stack:
            emit('"mov rdx, [rsp + 8]",')
            dst = "rdx"
        else:
            dst = "{b}"
        for j in range(n):
            emit(f'"mov [{dst} + {8 * j}], {regs[j]}",')
        if stack:
            emit('"add rsp, 24",')
    elif kind == "p521":
        # regs[0..9] = t[9..18], regs[9] is free; t[0..9] are in r. B's limbs
        # are t[8 + j] >> 9 | t[9 + j] << 55 (shrd), computed in place in
        # ascending order so each reads its neighbour before that changes.
        t = regs[:9]
        b0 = regs[9]
        emit("// t = A + 2^521 B + 2^1042 H: H first, from t[16..18]")
        emit('"mov {a}, [rsp + 16]",  // the pointer to scratch, which holds t[0..9]')
        emit(f'"mov {{lo}}, {t[7]}",')
        emit(f'"shrd {{lo}}, {t[8]}, 18",  // H[0]')
        emit(f'"shr {t[8]}, 18",          // H[1]')
        if square:
            emit(f'"mov {b0}, [{{a}} + 64]",')
        emit(f'"mov rdx, {b0}",           // t[8]')
        emit('"and rdx, 0x1ff",          // A[8]')
        emit(f'"shrd {b0}, {t[0]}, 9",    // B[0]')
        for j in range(1, 8):
            emit(f'"shrd {t[j - 1]}, {t[j]}, 9",  // B[{j}]')
        emit(f'"shr {t[7]}, 9",')
        emit(f'"and {t[7]}, 0x1ff",      // B[8]')
        emit("// r = A + B (CF chain) + H (OF chain): below 2^523, no carry out")
        emit('"xor {hi:e}, {hi:e}",      // CF = OF = 0')
        bs = [b0] + t[:8]
        for j in range(9):
            src = "rdx" if j == 8 else f"[{{a}} + {8 * j}]"
            emit(f'"adcx {bs[j]}, {src}",')
            emit(f'"adox {bs[j]}, {["{lo}", t[8]][j] if j < 2 else "{hi}"}",')
        results = {bs[j]: j for j in range(9)}
        emit('"add rsp, 24",')
    else:
        emit("// fold: r = t[0..n] + c * t[n..2n], with its overflow limb")
        if stack:
            emit('"mov rdx, [rsp]",')
            emit('"mov {a}, [rsp + 16]",')
            ptr = "{a}"
        else:
            emit('"mov rdx, {c}",')
            ptr = "{r}"
        h = ["{hi}", regs[n]]
        emit('"xor {lo:e}, {lo:e}",  // CF = OF = 0')
        for j in range(n):
            cur = h[j % 2]
            emit(f'"mulx {cur}, {{lo}}, {regs[j]}",')
            emit(f'"mov {regs[j]}, [{ptr} + {8 * j}]",')
            emit(f'"adcx {regs[j]}, {{lo}}",')
            if j > 0:
                emit(f'"adox {regs[j]}, {h[(j - 1) % 2]}",')
        top = h[(n - 1) % 2]
        other = h[n % 2]
        emit('"mov {lo:e}, 0",')
        emit(f'"adcx {top}, {{lo}}",')
        emit(f'"adox {top}, {{lo}}",  // top <= c')
        if c32:
            emit("// fold the top limb: r += top * c (below 2^64)")
            emit(f'"imul {top}, rdx",')
            emit(f'"add {regs[0]}, {top}",')
            for j in range(1, n):
                emit(f'"adc {regs[j]}, 0",')
            emit("// a carry out leaves r below c^2 < 2^64 - c: add c once more, by a mask")
            emit('"sbb {lo}, {lo}",')
            emit('"and {lo}, rdx",')
            emit(f'"add {regs[0]}, {{lo}}",')
        else:
            emit("// fold the top limb: r += top * c (below 2^126)")
            emit(f'"mulx {other}, {{lo}}, {top}",')
            emit(f'"add {regs[0]}, {{lo}}",')
            emit(f'"adc {regs[1]}, {other}",')
            for j in range(2, n):
                emit(f'"adc {regs[j]}, 0",')
            emit("// a carry out leaves r below 2^126: add c once more, by a mask")
            emit("// (r[1] < 2^62 then, so the carry stops there)")
            emit('"sbb {lo}, {lo}",')
            emit('"and {lo}, rdx",')
            emit(f'"add {regs[0]}, {{lo}}",')
            emit(f'"adc {regs[1]}, 0",')
        results = {regs[j]: j for j in range(n)}
        if stack:
            emit('"add rsp, 24",')

    body = "\n".join(out)
    # Name, arguments, doc, and the operands that carry the pointers (b's
    # pointer doubles as the destination of a wide product's high half).
    if kind == "wide":
        what = "a * a" if square else "a * b"
        doc = (f"/// `(lo, hi) = {what}` for {n}-limb operands: the full "
               f"{'square' if square else 'product'}, its low half\n/// in `lo` and its high half in `hi`.")
        if stack:
            ops = ["t0 = inout(reg) 0 as Limb => _,", "t1 = inout(reg) hi.as_mut_ptr() => _,",
                   "t2 = inout(reg) lo.as_mut_ptr() => _,"]
        else:
            ops = ["b = inout(reg) hi.as_mut_ptr() => _,", "r = in(reg) lo.as_mut_ptr(),"]
        if not square:
            return wide_fn(n, body, ops_text(n, ops, stack), stack, stack_notes(stack, square), options_for(stack, square))
        name = f"sqr_wide_{n}"
        args = [f"lo: &mut [Limb; {n}]", f"hi: &mut [Limb; {n}]", f"a: &[Limb; {n}]"]
        reads = "a and writes lo and hi"
    elif kind == "p521":
        name = "p521_sqr" if square else "p521_mul"
        what = "a^2" if square else "a * b"
        doc = (f"/// `{what} mod (2^521 - 1)`, as a value below `2^523` (not necessarily\n"
               "/// the least residue), for any nine-limb operands.")
        args = ["scratch: &mut [Limb; 9]", "a: &[Limb; 9]"] + ([] if square else ["b: &[Limb; 9]"])
        reads = "a" + ("" if square else " and b") + " and writes scratch"
        ops = ["t0 = out(reg) _,", "t1 = out(reg) _," if square else "t1 = inout(reg) b.as_ptr() => _,",
               "t2 = inout(reg) scratch.as_mut_ptr() => _,"]
    else:
        name = (f"pm_sqr_{n}" if square else f"pm_mul_{n}") + ("_c32" if c32 else "")
        what = "a^2" if square else "a * b"
        doc = (f"/// `{what} mod (2^{64 * n} - c)`, as a value below `2^{64 * n}` (not\n"
               f"/// necessarily the least residue), for {n}-limb operands and "
               f"`c < 2^{32 if c32 else 63}`.")
        args = [f"scratch: &mut [Limb; {n}]", f"a: &[Limb; {n}]"] + ([] if square else [f"b: &[Limb; {n}]"]) + ["c: Limb"]
        reads = "a" + ("" if square else " and b") + " and writes scratch"
        if stack:
            ops = ["t0 = inout(reg) c => _,", "t1 = out(reg) _," if square else "t1 = inout(reg) b.as_ptr() => _,",
                   "t2 = inout(reg) scratch.as_mut_ptr() => _,"]
        else:
            ops = ([] if square else ["b = in(reg) b.as_ptr(),"]) + ["r = in(reg) scratch.as_mut_ptr(),", "c = in(reg) c,"]
    # A wide square writes its halves through pointers; the reduced
    # products return their limbs in registers.
    returns = kind != "wide"
    ret = f" -> [Limb; {n}]" if returns else ""
    signature = f"pub(crate) fn {name}(_cpu: Adx, {', '.join(args)}){ret} {{"
    if len(signature) > 100:
        signature = (f"pub(crate) fn {name}(\n    _cpu: Adx,\n" + "".join(f"    {x},\n" for x in args)
                     + f"){ret} {{")
    if returns:
        doc += ("\n/// The product's low half passes through `scratch`; the result leaves in"
                "\n/// registers, so a chain of operations never waits on its stores.")
    operands = ops_text(n, ops, stack)
    return f'''
{doc}
#[inline]
{signature}{f"{chr(10)}    let mut r = [0; {n}];" if returns else ""}
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads {reads} ({n} limbs each, by their array types); every
    // named register it changes is declared. {stack_notes(stack, square)}
    unsafe {{
        asm!(
{body}
{IND}a = inout(reg) a.as_ptr() => _,
{returning(operands, results) if returns else operands}
{IND}lo = out(reg) _,
{IND}hi = out(reg) _,
{IND}out("rdx") _,
{IND}{options_for(stack, square)},
        );
    }}{f"{chr(10)}    r" if returns else ""}
}}
'''


def ops_text(n, ops, stack):
    """The pointer operands, then the accumulator registers not among them."""
    first_free = 3 if stack else 0
    ops = ops + [f"t{k} = out(reg) _," for k in range(first_free, n + 1)]
    return "\n".join(IND + o for o in ops)


def returning(ops, results):
    """The operand lines with the result's registers (`results`: operand
    name `{tK}` to limb) taking the limbs of `r` at the end."""
    lines = []
    for line in ops.split("\n"):
        m = re.match(r"(\s*)(t\d+) = (.*?)(?: => )?_,(.*)$", line)
        name = m and "{" + m.group(2) + "}"
        if name in results:
            kind = m.group(3).strip()
            target = f"r[{results[name]}]"
            rest = f"{kind} => {target}" if kind.startswith("inout") else f"{kind} {target}"
            line = f"{m.group(1)}{m.group(2)} = {rest},{m.group(4)}"
        lines.append(line)
    return "\n".join(lines)


def stack_notes(stack, square):
    if square:
        return ("It takes stack for t[n..2n] (and,\n    // with few registers, three limbs more) and "
                "frees it before it ends, so the\n    // stack pointer is restored.")
    if stack:
        return "It takes three limbs of stack and\n    // frees them before it ends, so the stack pointer is restored."
    return "It uses no stack."


def options_for(stack, square):
    return "options()" if stack or square else "options(nostack)"


def wide_fn(n, body, ops, stack, stack_note, options):
    return f'''
/// `(lo, hi) = a * b` for {n}-limb operands: the full product, its low half
/// in `lo` and its high half in `hi`.
#[inline]
pub(crate) fn mul_wide_{n}(
    _cpu: Adx,
    lo: &mut [Limb; {n}],
    hi: &mut [Limb; {n}],
    a: &[Limb; {n}],
    b: &[Limb; {n}],
) {{
    // The high half is written through `b`'s pointer slot once b is read:
    // copy b into hi first, so one pointer serves both.
    *hi = *b;
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads a and hi ({n} limbs each, by their array types) and writes
    // lo and hi; row i reads hi[i] before any write to hi, which happens only
    // after the last row. Every named register it changes is declared.
    // {stack_note}
    unsafe {{
        asm!(
{body}
{IND}a = inout(reg) a.as_ptr() => _,
{ops}
{IND}lo = out(reg) _,
{IND}hi = out(reg) _,
{IND}out("rdx") _,
{IND}{options},
        );
    }}
}}
'''


header = '''//! Fully unrolled products and squares for prime fields: the full
//! product, and the product reduced modulo `2^(64 n) - c`, at 4, 6, 7, 8 and
//! 9 limbs; and the product reduced modulo `2^521 - 1`.
//!
//! GENERATED by `tools/gen_field_x86_64.py`; do not edit by hand (`.ci/run`
//! checks that this file matches the script).

use core::arch::asm;

use crate::Limb;
use crate::backend::x86_64_adx::Adx;
'''
sys.stdout.write(header)
for square in (False, True):
    for n in SIZES:
        sys.stdout.write(gen(n, "wide", square))
        sys.stdout.write(gen(n, "pm", square))
        sys.stdout.write(gen(n, "pm", square, c32=True))
    sys.stdout.write(gen(9, "p521", square))
