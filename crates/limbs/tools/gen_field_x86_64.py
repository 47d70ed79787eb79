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
and, for the field crate's unsaturated 2^521 - 1 (nine 58-bit limbs, a value
modulo 2^522 - 2 = 2p, limbs below 2^60 in):
  p521_unsat_mul: a * b as tight limbs (below 2^58, limb 1 below 2^58 +
              2^12), product scanning: column k (a 128-bit sum of a[i] b[j],
              i + j = k, and 2a[i] b[j], i + j = k + 9: 2^522 = 2) in two
              registers, then carried at once (the last column's carry in
              plus the column, 58 bits to the limb, the rest on), so the
              carry chain runs beside the next column's products; three
              columns at a time, which share each rdx. No adcx/adox: each
              product is one mulx, add and adc into its column, and the
              carry's shifts are shrx/shlx (shrd is several micro-ops on
              AMD).
  p521_unsat_sqr: the same for a^2, each cross product once through the
              doubled limbs (a[i] 2a[j], and 2a[i] 2a[j] where it wraps).
  Both take a's limbs in registers (and park them in scratch), so that in a
  chain one result passes to the next operation in registers.
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
import textwrap

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


def p521_unsat(square):
    """p521_unsat_mul / p521_unsat_sqr (see the module notes). a arrives in
    registers (nine names g0..g8, so that a chain hands its limbs over in
    registers, not through copies in memory) and b's pointer in g9; the
    generator then gives the names roles. The scratch is 27 limbs of stack
    (nothing for the caller to clear): 2a at 0..9, the carried limbs at
    9..18, a at 18..27."""
    n = 9
    out = []
    emit = lambda s: out.append(IND + s)
    name = "p521_unsat_sqr" if square else "p521_unsat_mul"
    g = [f"{{g{k}}}" for k in range(10 if square else 13)]
    scratch_ptr, b_ptr = "rsp", g[9]

    def terms(k):
        """Column k's products as (rdx operand, memory operand): `a`, `b`
        or `d` (the doubled operand) and the limb."""
        t = []
        for i in range(n):
            if square:
                for j in range(i, n):
                    if i + j == k:
                        t.append((("a", i), ("a", j)) if i == j else (("a", i), ("d", j)))
                    elif i + j == k + n:
                        t.append((("a", i), ("d", i)) if i == j else (("d", i), ("d", j)))
            else:
                if 0 <= k - i < n:
                    t.append((("a", i), ("b", k - i)))
                if 0 <= k + n - i < n:
                    t.append((("d", i), ("b", k + n - i)))
        return t

    # The multiplication takes three columns at a time, which share rdx
    # (a[i] meets b[k - i] in column k, b[k + 1 - i] in column k + 1 and so
    # on, and 2a[i] the wrapped b[j]): 33 loads of rdx instead of 81, for
    # four accumulator pairs (the last group's carry and three columns).
    group = 1 if square else 3

    def at(x):
        src, i = x
        if src == "b":
            return f"[{b_ptr} + {8 * i}]"
        return f"[{scratch_ptr} + {8 * (i + (2 * n if src == 'a' else 0))}]"

    emit(f'"sub rsp, {8 * 3 * n}",')
    emit("// scratch[18..27] = a, scratch[0..9] = 2a: the operand of the " +
         ("cross and the wrapped products" if square else "wrapped products"))
    for i in range(n):
        emit(f'"mov {at(("a", i))}, {g[i]}",')
        emit(f'"add {g[i]}, {g[i]}",')
        emit(f'"mov {at(("d", i))}, {g[i]}",')
    # The roles.
    if square:
        pairs = [(g[0], g[1]), (g[2], g[3])]
        prods = [(g[4], g[5]), (g[8], g[9])]
        m58, m6 = g[6], g[7]
    else:
        pairs = [(g[0], g[1]), (g[2], g[3]), (g[4], g[5]), (g[6], g[7])]
        prods = [(g[10], g[11])]
        m58, m6 = g[8], g[12]
    emit(f'"mov {m58[:-1]}:e}}, 58",')
    emit(f'"mov {m6[:-1]}:e}}, 6",')
    carry = None
    next_pair = 0
    for k0 in range(0, n, group):
        cols = list(range(k0, min(k0 + group, n)))
        acc = {}
        for k in cols:
            acc[k] = pairs[next_pair % len(pairs)]
            next_pair += 1
        pl, ph = prods[k0 % len(prods)]
        emit(f"// column{'s' if len(cols) > 1 else ''} {', '.join(map(str, cols))}")
        work = [(k, m, o) for k in cols for (m, o) in terms(k)]
        started = set()
        while work:
            rdx = work[0][1]
            emit(f'"mov rdx, {at(rdx)}",')
            for (k, m, o) in [w for w in work if w[1] == rdx]:
                lo, hi = acc[k]
                if k not in started:
                    emit(f'"mulx {hi}, {lo}, {at(o)}",')
                    started.add(k)
                else:
                    emit(f'"mulx {ph}, {pl}, {at(o)}",')
                    emit(f'"add {lo}, {pl}",')
                    emit(f'"adc {hi}, {ph}",')
            work = [w for w in work if w[1] != rdx]
        for k in cols:
            lo, hi = acc[k]
            if carry:
                emit(f"// column {k}, plus the carry from column {k - 1}")
                emit(f'"add {lo}, {carry[0]}",')
                emit(f'"adc {hi}, {carry[1]}",')
            emit(f'"mov [{scratch_ptr} + {8 * (n + k)}], {lo}",  // masked when loaded')
            emit(f'"shrx {lo}, {lo}, {m58}",')
            emit(f'"shlx {pl}, {hi}, {m6}",')
            emit(f'"or {lo}, {pl}",')
            emit(f'"shrx {hi}, {hi}, {m58}",')
            carry = (lo, hi)
    lo, hi = carry
    t0, t1 = prods[0]
    emit("// the carry out of column 8 wraps around doubled (2^522 = 2) into limb 0,")
    emit("// whose own carry (below 2^12) ends in limb 1")
    emit(f'"add {lo}, {lo}",')
    emit(f'"adc {hi}, {hi}",')
    emit(f'"bzhi {t1}, [{scratch_ptr} + {8 * n}], {m58}",')
    emit(f'"add {lo}, {t1}",')
    emit(f'"adc {hi}, 0",')
    emit(f'"bzhi {t0}, {lo}, {m58}",')
    emit(f'"shrx {lo}, {lo}, {m58}",')
    emit(f'"shlx {hi}, {hi}, {m6}",')
    emit(f'"or {lo}, {hi}",')
    emit(f'"bzhi {t1}, [{scratch_ptr} + {8 * (n + 1)}], {m58}",')
    emit(f'"add {t1}, {lo}",')
    results = {t0: 0, t1: 1}
    rest = [r for r in g if r not in (t0, t1, m58)] + [m58]
    for k, r in zip(range(2, n), rest):
        emit(f'"bzhi {r}, [{scratch_ptr} + {8 * (n + k)}], {m58}",')
        results[r] = k
    emit(f'"add rsp, {8 * 3 * n}",')
    assert len(results) == n and len(set(results.values())) == n, results
    body = "\n".join(out)
    ops = []
    for k, reg in enumerate(g):
        target = f"r[{results[reg]}]" if reg in results else "_"
        if k < n:
            ops.append(f"g{k} = inout(reg) a[{k}] => {target},")
        elif reg == b_ptr and not square:
            ops.append(f"g{k} = inout(reg) b.as_ptr() => {target},")
        else:
            ops.append(f"g{k} = out(reg) {target},")
    operands = "\n".join(IND + o for o in ops)
    what = "a^2" if square else "a * b"
    args = ["a: &[Limb; 9]"] + ([] if square else ["b: &[Limb; 9]"])
    reads = " reads b (nine limbs, by its array type) and" if not square else ""
    safety = textwrap.fill(
        f"SAFETY: `_cpu` proves BMI2 (an `Adx` exists only then). The block{reads} "
        f"takes {8 * 3 * n} bytes of stack, which it frees before it ends, so the stack "
        "pointer is restored; every named register it changes is declared.", width=76,
        initial_indent="    // ", subsequent_indent="    // ")
    signature = f"pub(crate) fn {name}(_cpu: Adx, {', '.join(args)}) -> [Limb; 9] {{"
    if len(signature) > 100:
        signature = (f"pub(crate) fn {name}(\n    _cpu: Adx,\n" + "".join(f"    {x},\n" for x in args)
                     + ") -> [Limb; 9] {")
    return f'''
/// `{what}` modulo `2^521 - 1` on nine 58-bit limbs: a value `Σ x[i] 2^(58 i)`
/// modulo `2^522 - 2`, limbs below `2^60` in, below `2^58` out (limb 1 below
/// `2^58 + 2^12`). The limbs of `a` arrive and those of the result leave in
/// registers.
#[inline]
{signature}
    let mut r = [0; 9];
{safety}
    unsafe {{
        asm!(
{body}
{operands}
{IND}out("rdx") _,
{IND}options(),
        );
    }}
    r
}}
'''


header = '''//! Fully unrolled products and squares for prime fields: the full
//! product, and the product reduced modulo `2^(64 n) - c`, at 4, 6, 7, 8 and
//! 9 limbs; and the product reduced modulo `2^521 - 1`, on nine saturated
//! limbs and on nine 58-bit ones.
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
    sys.stdout.write(p521_unsat(square))
