#!/usr/bin/env python3
"""Generates the x86_64 row kernels for the sizes RSA uses:

    python3 tools/gen_rows_x86_64.py > src/backend/x86_64_adx/gen/rows.rs

(`.ci/run` checks that the file matches this script's output.)

Two kernels per length n (16, 24, 32, 48 and 64 limbs: the primes of RSA
2048 to 4096 and the moduli of 1024 to 4096 bits), fully unrolled over n:

  addmul_rows_n(r, a, b, k): for i < k, r[i..i+n] += a·b[i], then
      r[i+n] = the row's carry limb (overwritten). With r[..n] zero this is
      the product a·b (k rows); the rows of a longer product share it.
      Blocks of eight rows, then the last k mod 8 rows one at a time.
  redc_n(r, t, m, m_inv, almost): the Montgomery reduction of the 2n-limb
      t: n/8 blocks of eight rows, row i adding m·q_i at limb i,
      q_i = t[i]·m_inv; each block adds its eight limbs above its rows to
      t at once, with the carry out of the previous block's (as OpenSSL's
      sqrx8x reduction does), so the top half holds (t + q·m)/2^(64n) when
      the blocks end. Then, with `almost`, m is subtracted under a mask when
      that sum carried out of n limbs (almost Montgomery: r below 2^(64n),
      one pass, no comparison); without, r − m is kept unless it borrowed
      without the carry, selected with cmov (two passes). The exponentiations
      run on the almost form and reduce once at the end.

and sqr_n(r, a) for n in SQR_SIZES, the square. At 16 limbs on the window
below (`window_square`): the low triangle, the rectangle and the high
triangle of the off-diagonal sum in one sweep, then the doubling and the
diagonal; 0.90 of the time of the row triangle on Zen 3, where llvm-mca's
Intel models give 0.60 to 0.66 and its Zen models 1.05 to 1.06 (benches/RESULTS.md,
"The 16-limb square on the window"). At 24 limbs (`split_square`) the
same off-diagonal sum for the low 16 limbs, their product with the high
8 as a block's rows, and the high 8's triangle on a window loaded with
what the block left, then the same last pass: with the zero register
below, 0.90 of the time of a Montgomery multiplication on the triangle of
all n - 1 rows unrolled, 0.93 at 48 limbs, whose halves it squares
(RESULTS, "The 24-limb square on the window"); that triangle had run in
0.81 of the time of squares split into halves and a cross product
(RESULTS, "Squares as one triangle"). At 32
limbs one Karatsuba level on the window's 16-limb square in one kernel
(`karatsuba_square`): 0.91 of the time of the same level with its passes
in Rust (RESULTS, "The 16-limb square on the window"). Longer squares (48
and 64 limbs) take one Karatsuba level on the squares of their halves
(`Adx::karatsuba_sqr` in backend/x86_64_adx/mod.rs; RESULTS, "Karatsuba
squares on `mulx`"), which beat the 32-limb triangle and the 48- and
64-limb squares split into halves and a cross product; the 64-limb
triangle had outgrown the instruction cache. Squares of any length in
blocks of eight rows whose first chunk is the triangle (block c taking
a[8c..] at limb 16c) ran level with Karatsuba at 32 limbs and 1.1 times
the window's time at 16 on Zen 3, and were not kept.

# Blocks of eight rows on a window of registers

A single row (the tail of addmul_rows, the triangle) is one carry chain
per flag: `adcx` adds the old limb from memory (CF), `adox` the previous
product's high half (OF), the sum is stored, and the row ends by folding
both flags into the last high half: a load and a store a product.

A block of eight rows instead keeps the eight limbs it is adding to in
registers, the window, and walks the other operand eight limbs (a chunk)
at a time, as OpenSSL's sqrx8x reduction does. Row k of a chunk adds its
eight products to the window (`adcx` the low halves, `adox` the high
ones) and its ninth limb, high half plus both flags, becomes the window's
new top; the bottom limb is final for the block and is stored (in a
reduction's first chunk it is zero, and its q_k is made from it before the
row and kept on the stack for the later chunks). The rows' carries stay in
the window; between chunks the window takes in the next eight limbs of r,
the carry out of that addition saved for the next chunk. After the last
chunk the window, plus that carry, is the block's eight limbs above its
rows: they fit (the block adds less than 2^512 times 2^(64n) to an n-limb
value), and go above the rows for addmul_rows and are added to the limbs
there for redc. Per product that leaves `mulx` and two register additions:
no load of r and no store (benches/RESULTS.md, "Design figures").

A row ends by adding both carries to its top limb from rbp, zero
throughout the kernel, not from a register zeroed for each row: 0.96 to
0.98 of the time of a Montgomery multiplication at 16 limbs on Zen 3, level
on llvm-mca's Intel models (benches/RESULTS.md, "The 24-limb square on
the window"). Zen 3 runs `mulx` about once in 1.2 cycles and slows by
about a quarter cycle for each integer instruction beside it.

Registers: ten for the window and the two high halves in flight (their
roles rotate from row to row; the generator follows them), rdx for the
multiplier, rax for the low halves, r14 and r15 for the pointers; rbx is
one of the ten and saved by the kernel, so every operand has a named
register (a `reg` one could be given rbx); rbp, which cannot be an
operand, holds zero, saved and restored by the kernel. A small stack
frame holds the block's multipliers, the saved carry and the counts.
"""

import sys

SIZES = (16, 24, 32, 48, 64)
SQR_SIZES = (16, 24, 32)


BLOCK = 8  # rows per block: the window's limbs

# The registers of a block: ten that hold the window (eight limbs) and the
# two high halves in flight, their roles rotating from row to row; rdx
# holds the row's multiplier, rax the low halves, r14 the block's first
# limb, r15 the other operand (a, or m). rbx is one of the ten: the kernel
# saves and restores it, so every operand is in a named register (one of
# `reg` class could be given rbx).
POOL = ["rbx", "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13"]
NAMES = (("{lo:e}", "eax"), ("{lo}", "rax"), ("{r}", "r14"), ("{t}", "r14"), ("{a}", "r15"),
         ("{m}", "r15"))
# The stack frame: the block's eight multipliers, the saved carry, the
# block count, then four kernel-specific slots.
MULT, CARRY, COUNT = 0, 8 * BLOCK, 8 * BLOCK + 8
SLOT1, SLOT2, SLOT3, SLOT4 = (8 * BLOCK + 16 + 8 * i for i in range(4))
FRAME = 8 * BLOCK + 48
# Zero throughout a kernel that runs rows on the window (each row's end adds
# both carries with it); saved and restored by the kernel.
ZERO = "rbp"


def save_registers(e):
    """Saves rbx (one of the pool) and rbp, and zeroes rbp (ZERO)."""
    e('"push rbx"')
    e('"push rbp"')
    e(f'"xor {ZERO}, {ZERO}"')


def restore_registers(e):
    """Restores what `save_registers` saved."""
    e('"pop rbp"')
    e('"pop rbx"')


def window_row(e, win, h, products):
    """One row on the window, its multiplier in rdx: for each (slot,
    address) of `products`, in order, the product's low half added to that
    window slot (`adcx`) and the previous product's high half to the same
    slot (`adox`); the last high half, plus both carries, is the row's carry
    limb. `h` holds the two registers the high halves alternate in.
    Returns (the register with the carry limb, the other one)."""
    # CF = OF = 0. A row ends with both clear (its carry limb fits), but
    # without this `xor` each row's carry chains would wait for the last
    # one's: llvm-mca's Intel models take 1.1 to 1.5 times as long so.
    e('"xor {lo:e}, {lo:e}"')
    for i, (slot, address) in enumerate(products):
        e(f'"mulx {h[i % 2]}, {{lo}}, [{address}]"')
        e(f'"adcx {win[slot]}, {{lo}}"')
        if i > 0:
            e(f'"adox {win[slot]}, {h[(i - 1) % 2]}"')
    top, other = h[(len(products) - 1) % 2], h[len(products) % 2]
    e(f'"adcx {top}, {ZERO}"')
    e(f'"adox {top}, {ZERO}"')
    return top, other


def block(n, e, quotients):
    """One block: eight rows of n products added at `{r}`, chunk by chunk of
    eight limbs of `{a}`. With `quotients`, row k's multiplier is made from
    the window's bottom limb times m_inv (at [rsp + SLOT1]) in the first
    chunk and kept; otherwise the block's eight multipliers are on the
    stack already. Ends with the window, the block's eight limbs above its
    rows, in the registers it returns (the saved carry not yet added)."""
    win, free = POOL[:BLOCK], POOL[BLOCK:]
    for k in range(BLOCK):
        e(f'"mov {win[k]}, [{{r}} + {8 * k}]"')
    e(f'"mov qword ptr [rsp + {CARRY}], 0"')
    for c in range(n // BLOCK):
        if c > 0:
            # The limbs entering the window: r's own, plus the carry saved
            # at the last chunk's start (its weight is the window's bottom).
            e(f'"mov {{lo}}, [rsp + {CARRY}]"')
            e('"neg {lo}"')
            for k in range(BLOCK):
                e(f'"adc {win[k]}, [{{r}} + {8 * (8 * c + k)}]"')
            e('"sbb {lo}, {lo}"')
            e(f'"mov [rsp + {CARRY}], {{lo}}"')
        for k in range(BLOCK):
            if c == 0 and quotients:
                e(f'"mov rdx, {win[0]}"')
                e(f'"imul rdx, [rsp + {SLOT1}]"')
                e(f'"mov [rsp + {MULT + 8 * k}], rdx"')
            else:
                e(f'"mov rdx, [rsp + {MULT + 8 * k}]"')
            products = [(j, f"{{a}} + {8 * (8 * c + j)}") for j in range(BLOCK)]
            top, other = window_row(e, win, free, products)
            if c > 0 or not quotients:
                # Final: no later row of the block reaches this limb (in a
                # reduction's first chunk it is zero).
                e(f'"mov [{{r}} + {8 * (8 * c + k)}], {win[0]}"')
            win, free = win[1:] + [top], [win[0], other]
    return win


def fold_carry(e, win, dest):
    """The window plus the saved carry (they fit eight limbs), stored at
    `dest` + 8k."""
    e(f'"mov {{lo}}, [rsp + {CARRY}]"')
    e('"neg {lo}"')
    for k in range(BLOCK):
        e(f'"adc {win[k]}, 0"')
        e(f'"mov [{dest} + {8 * k}], {win[k]}"')


def row(n):
    """One unrolled row at `{r}` with the multiplier in rdx and the high
    halves in `{h0}`, `{h1}`; returns the register with its carry limb."""
    out = []
    e = out.append
    e('"xor {h0:e}, {h0:e}"')  # h0 = 0, CF = OF = 0
    hs = ["{h0}", "{h1}"]
    for j in range(n):
        prev, nxt = hs[j % 2], hs[(j + 1) % 2]
        e(f'"mulx {nxt}, {{lo}}, [{{a}} + {8 * j}]"')
        e(f'"adcx {{lo}}, [{{r}} + {8 * j}]"')
        e(f'"adox {{lo}}, {prev}"')
        e(f'"mov [{{r}} + {8 * j}], {{lo}}"')
    last = hs[n % 2]
    e('"mov {lo:e}, 0"')  # flags untouched
    e(f'"adcx {last}, {{lo}}"')
    e(f'"adox {last}, {{lo}}"')
    return out, last


def named(lines, extra=()):
    asm = "\n".join(f"            {line}," for line in lines)
    for name, reg in NAMES + tuple(extra):
        asm = asm.replace(name, reg)
    return asm


CLOBBERS = """            out("rax") _,
            out("rdx") _,
            out("r8") _,
            out("r9") _,
            out("r10") _,
            out("r11") _,
            out("r12") _,
            out("r13") _,"""


def addmul_rows(n):
    lines = []
    e = lines.append
    # b arrives in rdi, k in rsi: the b pointer and the rows left after
    # the blocks go to the frame.
    save_registers(e)
    e(f'"sub rsp, {FRAME}"')
    e(f'"mov [rsp + {SLOT1}], rdi"')
    e('"mov rcx, rsi"')
    e('"and rsi, 7"')
    e(f'"mov [rsp + {SLOT2}], rsi"')
    e('"shr rcx, 3"')
    e(f'"mov [rsp + {COUNT}], rcx"')
    e('"test rcx, rcx"')
    e('"jz 3f"')
    e('"2:"')
    e(f'"mov rcx, [rsp + {SLOT1}]"')
    for k in range(BLOCK):
        e(f'"mov rdx, [rcx + {8 * k}]"')
        e(f'"mov [rsp + {MULT + 8 * k}], rdx"')
    e(f'"add qword ptr [rsp + {SLOT1}], {8 * BLOCK}"')
    win = block(n, e, quotients=False)
    fold_carry(e, win, f"{{r}} + {8 * n}")
    e(f'"lea {{r}}, [{{r}} + {8 * BLOCK}]"')
    e(f'"dec qword ptr [rsp + {COUNT}]"')
    e('"jnz 2b"')
    # The last k mod 8 rows, one at a time.
    e('"3:"')
    e(f'"mov rsi, [rsp + {SLOT2}]"')
    e(f'"mov rdi, [rsp + {SLOT1}]"')
    e(f'"add rsp, {FRAME}"')
    restore_registers(e)
    e('"test rsi, rsi"')
    e('"jz 5f"')
    e('"4:"')
    e('"mov rdx, [rdi]"')
    body, last = row(n)
    lines += body
    e(f'"mov [{{r}} + {8 * n}], {last}"')
    e('"lea {r}, [{r} + 8]"')
    e('"lea rdi, [rdi + 8]"')
    e('"dec rsi"')
    e('"jnz 4b"')
    e('"5:"')
    asm = named(lines, (("{h0:e}", "r8d"), ("{h0}", "r8"), ("{h1}", "r9")))
    return f'''
/// `r[i..i + {n}] += a·b[i]` then `r[i + {n}] =` the carry, for each row `i < k`:
/// in blocks of eight rows, then one row at a time.
///
/// # Safety
/// BMI2 and ADX are present; `a` points to {n} limbs, `b` to `k >= 1`,
/// `r` to `k + {n}` (read and written); no overlap of `r` with `a` or `b`.
#[target_feature(enable = "bmi2,adx")]
pub(crate) unsafe fn addmul_rows_{n}(r: *mut Limb, a: *const Limb, b: *const Limb, k: usize) {{
    // SAFETY: the caller's contract; block and row i touch r[i..i + {n + 8}]
    // and r[i..i + {n + 1}] within it, b[i..] and a; the kernel saves and
    // restores rbx, rbp and its {FRAME}-byte stack frame; every other
    // register it changes is declared.
    unsafe {{
        asm!(
{asm}
            inout("r14") r => _,
            in("r15") a,
            inout("rdi") b => _,
            inout("rsi") k => _,
            out("rcx") _,
{CLOBBERS}
        );
    }}
}}
'''


def redc_blocks(n):
    lines = []
    e = lines.append
    # m_inv arrives in rcx, r in rdi, `almost` in rsi: all go to the frame,
    # with the carry out of the blocks' top limbs (SLOT3, 0 or all ones).
    save_registers(e)
    e(f'"sub rsp, {FRAME}"')
    e(f'"mov [rsp + {SLOT1}], rcx"')
    e(f'"mov [rsp + {SLOT2}], rdi"')
    e(f'"mov [rsp + {SLOT4}], rsi"')
    e(f'"mov qword ptr [rsp + {SLOT3}], 0"')
    e(f'"mov qword ptr [rsp + {COUNT}], {n // BLOCK}"')
    e('"2:"')
    win = block(n, e, quotients=True)
    # The window plus the saved carry (they fit eight limbs, CF's chain)
    # added to the eight limbs of t above the block's rows with the carry
    # out of the last block's (OF's chain); the new carry saved.
    e('"xor edx, edx"')  # rdx = 0, CF = OF = 0
    e(f'"mov {{lo}}, [rsp + {CARRY}]"')
    e('"adcx {lo}, {lo}"')  # CF = the saved carry
    e(f'"mov {{lo}}, [rsp + {SLOT3}]"')
    e('"adox {lo}, {lo}"')  # OF = the top carry
    for k in range(BLOCK):
        e(f'"adcx {win[k]}, rdx"')
        e(f'"adox {win[k]}, [{{t}} + {8 * (n + k)}]"')
        e(f'"mov [{{t}} + {8 * (n + k)}], {win[k]}"')
    e('"adox rdx, rdx"')  # rdx = OF, the carry out
    e('"neg rdx"')
    e(f'"mov [rsp + {SLOT3}], rdx"')
    e(f'"lea {{t}}, [{{t}} + {8 * BLOCK}]"')
    e(f'"dec qword ptr [rsp + {COUNT}]"')
    e('"jnz 2b"')
    # t now points at the top half, the value (t + q·m)/2^(64n) with the
    # carry out in rdx as a mask.
    e(f'"mov rdi, [rsp + {SLOT2}]"')
    e(f'"cmp qword ptr [rsp + {SLOT4}], 0"')
    e('"je 3f"')
    # Almost reduced: subtract m where the value carried out (it is then
    # below 2^(64n) + m), eight limbs at a time: the masks' `and` clears
    # CF, so each group's borrow waits in r13. (`andn` with the mask's
    # complement and m's limb as its memory operand is an instruction less
    # a limb, but llvm-mca's Intel models take 1 to 2 % longer for it, and
    # Zen 3 measured no difference: benches/RESULTS.md, "Direct kernel
    # calls".)
    masked = POOL[:3] + POOL[4:9]  # not rdi, which holds r
    for g in range(n // BLOCK):
        for k in range(BLOCK):
            e(f'"mov {masked[k]}, [{{m}} + {8 * (8 * g + k)}]"')
            e(f'"and {masked[k]}, rdx"')
        if g > 0:
            e('"neg r13"')
        for k in range(BLOCK):
            op = "sub" if g == 0 and k == 0 else "sbb"
            e(f'"mov {{lo}}, [{{t}} + {8 * (8 * g + k)}]"')
            e(f'"{op} {{lo}}, {masked[k]}"')
            e(f'"mov [rdi + {8 * (8 * g + k)}], {{lo}}"')
        e('"sbb r13, r13"')
    e('"jmp 4f"')
    # Fully reduced: the value minus m kept unless it borrowed without the
    # carry, selected limb by limb with cmov; the low half of t holds the
    # difference.
    e('"3:"')
    for j in range(n):
        op = "sub" if j == 0 else "sbb"
        e(f'"mov {{lo}}, [{{t}} + {8 * j}]"')
        e(f'"{op} {{lo}}, [{{m}} + {8 * j}]"')
        e(f'"mov [{{t}} + {8 * (j - n)}], {{lo}}"')
    e('"sbb rcx, rcx"')  # all ones when the value is below m
    e('"andn rcx, rdx, rcx"')  # keep it: borrowed and no carry
    e('"test rcx, rcx"')
    for j in range(n):
        e(f'"mov {{lo}}, [{{t}} + {8 * (j - n)}]"')
        e(f'"cmovnz {{lo}}, [{{t}} + {8 * j}]"')
        e(f'"mov [rdi + {8 * j}], {{lo}}"')
    e('"4:"')
    e(f'"add rsp, {FRAME}"')
    restore_registers(e)
    asm = named(lines)
    return f'''
/// `r = t·2^(−{64 * n}) mod m` for the {2 * n}-limb `t`: {n // BLOCK} blocks of
/// eight reduction rows, each adding its eight limbs above its rows to `t`
/// at once; then, with `almost`, `m` subtracted if the value carried out of
/// {n} limbs, leaving `r` below 2^{64 * n} for any `t` (almost Montgomery);
/// without, for `t` below `m·2^{64 * n}`, `r` fully reduced by one
/// constant-time conditional subtraction of `m` (selected with `cmov`).
/// `t` is destroyed.
///
/// # Safety
/// BMI1, BMI2 and ADX are present; `t` points to {2 * n} limbs, `m` and
/// `r` to {n}, none overlapping; `m_inv = −m⁻¹ mod 2^64`.
#[target_feature(enable = "bmi1,bmi2,adx")]
pub(crate) unsafe fn redc_{n}(
    r: *mut Limb,
    t: *mut Limb,
    m: *const Limb,
    m_inv: Limb,
    almost: bool,
) {{
    // SAFETY: the caller's contract; block b touches t[8b..8b + {n + 8}], the
    // tail t and r, all inside them; the kernel saves and restores rbx, rbp
    // and its {FRAME}-byte stack frame; every other register it changes is
    // declared.
    unsafe {{
        asm!(
{asm}
            inout("r14") t => _,
            in("r15") m,
            inout("rdi") r => _,
            inout("rcx") m_inv => _,
            inout("rsi") usize::from(almost) => _,
{CLOBBERS}
        );
    }}
}}
'''


def double_add_diagonal(e, n, h0, h1):
    """r = 2r + Σ a_i²·2^(128i) for the off-diagonal triangle r of n-limb a,
    whose limbs 0 and 2n − 1 are zero (not read): `adcx x, x` doubles a
    limb, carrying its top bit into the next; `adox` adds the square's
    halves."""
    e(f'"xor {h0}, {h0}"')  # CF = OF = 0
    for i in range(n):
        e(f'"mov rdx, [{{a}} + {8 * i}]"')
        e(f'"mulx {h1}, {{lo}}, rdx"')
        if i == 0:
            e(f'"mov {h0}, 0"')
        else:
            e(f'"mov {h0}, [{{r}} + {16 * i}]"')
        e(f'"adcx {h0}, {h0}"')
        e(f'"adox {h0}, {{lo}}"')
        e(f'"mov [{{r}} + {16 * i}], {h0}"')
        if i == n - 1:
            e('"mov {lo}, 0"')
        else:
            e(f'"mov {{lo}}, [{{r}} + {16 * i + 8}]"')
        e('"adcx {lo}, {lo}"')
        e(f'"adox {{lo}}, {h1}"')
        e(f'"mov [{{r}} + {16 * i + 8}], {{lo}}"')


def sqr_kernel(n, summary, safety, asm, operands):
    """The Rust source of `sqr_{n}(r, a)`: `summary` its doc's first
    paragraph, `safety` its SAFETY comment after "the caller's contract; ",
    `asm` its instructions and `operands` the asm! operands after them."""
    return f'''
{summary}
///
/// # Safety
/// BMI2 and ADX are present; `a` points to {n} limbs and `r` to {2 * n},
/// not overlapping.
#[target_feature(enable = "bmi2,adx")]
pub(crate) unsafe fn sqr_{n}(r: *mut Limb, a: *const Limb) {{
    // SAFETY: the caller's contract; {safety}
    unsafe {{
        asm!(
{asm}
{operands}        );
    }}
}}
'''


def window_square():
    """a² for 16-limb a on the register window: the off-diagonal sum as the
    triangle of the low eight limbs, the rectangle of the high eight times
    the low eight, and the triangle of the high eight, in the order of
    their lowest limb, so that one window of eight registers sweeps the
    result once and each limb is stored when it is final; then the doubling
    and the diagonal, as `triangle` ends. A triangle's row k (multiplier
    a_k) adds a_k·a[k+1..8] at window slots k..6 and writes its carry limb
    to slot 7, which no earlier row reached; the window then stores slot 0
    and slides by one. The rectangle's rows are a block's rows."""
    n = 16
    lines = []
    e = lines.append
    save_registers(e)
    window_square_body(e)
    restore_registers(e)
    asm = named(lines)
    return sqr_kernel(
        n,
        f"""/// `r = a²` for {n}-limb `a` ({2 * n} limbs) on a window of registers: the
/// low triangle, the rectangle and the high triangle of the off-diagonal
/// sum in one sweep, each limb stored once final, then one pass doubling
/// it and adding the squares on the diagonal.""",
        f"""every access is within r[..{2 * n}] and
    // a[..{n}]; the kernel saves and restores rbx and rbp; every other
    // register it changes is declared.""",
        asm,
        f"""            in("r14") r,
            in("r15") a,
            out("rcx") _,
            out("rsi") _,
            out("rdi") _,
{CLOBBERS}
""",
    )


def triangle_rows(e, win, free, base):
    """The rows of a·a over a[base..base + 8] on the window at limb
    2·base + 1, whose slots 0 to 6 hold the sum there so far (slot 7 is
    free to write): row k adds a_k·a[k + 1..8] at slots k to 6 and writes
    its carry limb to slot 7, which no earlier row reached, then stores
    slot 0, final, and the window slides by one. The carry fits whatever
    the window held: a row adds less than 2^512 − 2^448. Returns the
    window, then holding limbs 2·base + 8 to 2·base + 14, and the free
    registers."""
    for k in range(BLOCK - 1):
        e(f'"mov rdx, [{{a}} + {8 * (base + k)}]"')
        products = [(j - 1, f"{{a}} + {8 * (base + j)}") for j in range(k + 1, BLOCK)]
        top, other = window_row(e, win, free, products)
        e(f'"mov [{{r}} + {8 * (2 * base + 1 + k)}], {win[0]}"')
        win, free = win[1:BLOCK - 1] + [top, win[BLOCK - 1]], [win[0], other]
    return win, free


def window_square_body(e):
    """`window_square`'s instructions: `{a}`'s 16 limbs squared into `{r}`'s
    32, with every register of the pool, rax and rdx."""
    window_square_off_diagonal(e)
    double_add_diagonal(e, 16, "rcx", "rsi")


def window_square_off_diagonal(e):
    """The off-diagonal sum of `{a}`'s 16 limbs squared, Σ a_i·a_j·2^(64(i + j))
    for i < j, at `{r}`'s limbs 1 to 30 (limbs 0 and 31, zero, are not
    written)."""
    win, free = POOL[:BLOCK], POOL[BLOCK:]
    for k in range(BLOCK - 1):
        e(f'"xor {win[k]}, {win[k]}"')
    # The low triangle: limbs 1 to 14, the first seven stored.
    win, free = triangle_rows(e, win, free, 0)
    # The rectangle a[8..16]·a[0..8] at limb 8, a block's rows: the window
    # holds limbs 8 to 15 (15 is zero so far).
    e(f'"xor {win[BLOCK - 1]}, {win[BLOCK - 1]}"')
    for k in range(BLOCK):
        e(f'"mov rdx, [{{a}} + {8 * (BLOCK + k)}]"')
        products = [(j, f"{{a}} + {8 * j}") for j in range(BLOCK)]
        top, other = window_row(e, win, free, products)
        e(f'"mov [{{r}} + {8 * (BLOCK + k)}], {win[0]}"')
        win, free = win[1:] + [top], [win[0], other]
    # Limb 16 is final; the high triangle starts at limb 17.
    e(f'"mov [{{r}} + {8 * 2 * BLOCK}], {win[0]}"')
    win = win[1:] + [win[0]]
    win, free = triangle_rows(e, win, free, BLOCK)
    for k in range(BLOCK - 1):
        e(f'"mov [{{r}} + {8 * (3 * BLOCK + k)}], {win[k]}"')


def split_square():
    """a² for 24-limb a as (a0 + a1·B)² for its low 16 limbs a0 and
    B = 2^1024, every part on the window of registers: the off-diagonal
    sum of a0² (`window_square`'s), a0·a1 at limb 16 (a block's rows, a1
    the multipliers on the stack), then the triangle of a1 at limb 33 on a
    window loaded with what the block left there; then the doubling and
    the diagonal."""
    n = 24
    lines = []
    e = lines.append
    save_registers(e)
    e(f'"sub rsp, {FRAME}"')
    for k in range(BLOCK):
        e(f'"mov rdx, [{{a}} + {8 * (16 + k)}]"')
        e(f'"mov [rsp + {MULT + 8 * k}], rdx"')
    window_square_off_diagonal(e)
    # a0·a1 at limb 16: the block adds a0's limbs chunk by chunk at limbs 16
    # to 31 (31 is zero so far) and leaves limbs 32 to 39 in the window.
    e(f'"mov qword ptr [{{r}} + {8 * 31}], 0"')
    e(f'"lea {{r}}, [{{r}} + {8 * 16}]"')
    win = block(16, e, quotients=False)
    fold_carry(e, win, f"{{r}} + {8 * 16}")
    e(f'"lea {{r}}, [{{r}} - {8 * 16}]"')
    # The triangle of a1 at limb 33, on limbs 33 to 39 as the block left them.
    win, free = POOL[:BLOCK], POOL[BLOCK:]
    for k in range(BLOCK - 1):
        e(f'"mov {win[k]}, [{{r}} + {8 * (33 + k)}]"')
    win, free = triangle_rows(e, win, free, 16)
    for k in range(BLOCK - 1):
        e(f'"mov [{{r}} + {8 * (40 + k)}], {win[k]}"')
    double_add_diagonal(e, n, "rcx", "rsi")
    e(f'"add rsp, {FRAME}"')
    restore_registers(e)
    asm = named(lines)
    return sqr_kernel(
        n,
        f"""/// `r = a²` for {n}-limb `a` ({2 * n} limbs) as `(a0 + a1·2^1024)²` on the
/// window of registers: the off-diagonal sums of `a0²` and `a1²` and the
/// product `a0·a1`, then one pass doubling them and adding the squares on
/// the diagonal.""",
        f"""every access is within r[..{2 * n}],
    // a[..{n}] and the frame; the kernel saves and restores rbx, rbp and its
    // {FRAME}-byte stack frame; every other register it changes is declared.""",
        asm,
        f"""            inout("r14") r => _,
            in("r15") a,
            out("rcx") _,
            out("rsi") _,
            out("rdi") _,
{CLOBBERS}
""",
    )


def karatsuba_square():
    """a² for 32-limb a by one Karatsuba level on `window_square`'s body, in
    one kernel: a0² + a1²·B² + (a0² + a1² − (a0 − a1)²)·B for B = 2^1024,
    |a0 − a1| and its square in a stack frame. The middle term is
    formed in the square's place (`adcx` adds a1², `adox` the complement of
    (a0 − a1)² with a one carried in), then added at limb 16, wiping the
    frame as it goes; its top bit and the carry ripple to the end."""
    lines = []
    e = lines.append
    d, z, saved = 0, 128, 384  # the frame: |a0 − a1|, its square, r
    save_registers(e)
    e('"sub rsp, 392"')
    e(f'"mov [rsp + {saved}], {{r}}"')
    # d = |a0 − a1|: a0 − a1 and a1 − a0 (in z's place for a moment), the
    # second taken where the first borrowed (`cmovnz`).
    for dest, x, y in ((d, 0, 16), (z, 16, 0)):
        for i in range(16):
            e(f'"mov {{lo}}, [{{a}} + {8 * (x + i)}]"')
            e(f'"{"sub" if i == 0 else "sbb"} {{lo}}, [{{a}} + {8 * (y + i)}]"')
            e(f'"mov [rsp + {dest + 8 * i}], {{lo}}"')
        if dest == d:
            e('"sbb rcx, rcx"')
    e('"test rcx, rcx"')
    for i in range(16):
        e(f'"mov {{lo}}, [rsp + {d + 8 * i}]"')
        e(f'"cmovnz {{lo}}, [rsp + {z + 8 * i}]"')
        e(f'"mov [rsp + {d + 8 * i}], {{lo}}"')
    # The three squares.
    window_square_body(e)
    e('"lea {r}, [{r} + 256]"')
    e('"lea {a}, [{a} + 128]"')
    window_square_body(e)
    e(f'"lea {{r}}, [rsp + {z}]"')
    e(f'"lea {{a}}, [rsp + {d}]"')
    window_square_body(e)
    e(f'"mov {{r}}, [rsp + {saved}]"')
    # z = a0² + a1² + ¬z + 1 (OF starts at one), limb by limb.
    e('"xor ecx, ecx"')
    e('"mov rcx, -1"')  # flags untouched by mov
    e('"adox rcx, rcx"')  # OF = 1 (CF stays 0)
    for i in range(32):
        e(f'"mov {{lo}}, [{{r}} + {8 * i}]"')
        e(f'"adcx {{lo}}, [{{r}} + {8 * (32 + i)}]"')
        e(f'"mov rsi, [rsp + {z + 8 * i}]"')
        e('"not rsi"')
        e('"adox {lo}, rsi"')
        e(f'"mov [rsp + {z + 8 * i}], {{lo}}"')
    # The term's top limb: the two carries less the one carried in.
    e('"mov ecx, 0"')
    e('"mov esi, 0"')
    e('"adcx rcx, rsi"')
    e('"adox rcx, rsi"')
    e('"dec rcx"')
    # r[16..] += the term, z wiped as it is read; then the top and carry.
    e('"xor esi, esi"')  # CF = 0
    for i in range(32):
        e(f'"mov {{lo}}, [{{r}} + {8 * (16 + i)}]"')
        e(f'"adc {{lo}}, [rsp + {z + 8 * i}]"')
        e(f'"mov [{{r}} + {8 * (16 + i)}], {{lo}}"')
        e(f'"mov [rsp + {z + 8 * i}], rsi"')
    for i in range(48, 64):
        e(f'"mov {{lo}}, [{{r}} + {8 * i}]"')
        e(f'"adc {{lo}}, {"rcx" if i == 48 else "rsi"}"')
        e(f'"mov [{{r}} + {8 * i}], {{lo}}"')
    for i in range(16):
        e(f'"mov [rsp + {d + 8 * i}], rsi"')
    e('"add rsp, 392"')
    restore_registers(e)
    asm = named(lines)
    return sqr_kernel(
        32,
        """/// `r = a²` for 32-limb `a` (64 limbs): one Karatsuba level on the 16-limb
/// window square, `a0² + a1²·B² + (a0² + a1² − (a0 − a1)²)·B`, in one
/// kernel; `|a0 − a1|` and its square live in its stack frame, wiped
/// before it returns.""",
        """the squares touch r[..64], a[..32]
    // and the frame, the passes r[..64] and the frame; the kernel saves and
    // restores rbx, rbp and its 392-byte stack frame; every other register
    // it changes is declared.""",
        asm,
        f"""            inout("r14") r => _,
            inout("r15") a => _,
            out("rcx") _,
            out("rsi") _,
            out("rdi") _,
{CLOBBERS}
""",
    )


def main():
    print("//! Row kernels unrolled over the lengths RSA uses, in blocks of eight rows.")
    print("//!")
    print("//! GENERATED by `tools/gen_rows_x86_64.py`; do not edit by hand (`.ci/run`")
    print("//! checks that this file matches the script). The script's docstring has")
    print("//! the algorithm.")
    print()
    print("use core::arch::asm;")
    print()
    print("use crate::Limb;")
    print()
    print("/// `(r, a, b, k)`, as [`addmul_rows_16`].")
    print("pub(crate) type AddmulRows = unsafe fn(*mut Limb, *const Limb, *const Limb, usize);")
    print()
    print("/// `(r, t, m, m_inv, almost)`, as [`redc_16`].")
    print("pub(crate) type Redc = unsafe fn(*mut Limb, *mut Limb, *const Limb, Limb, bool);")
    print()
    print("/// `(r, a)`, as [`sqr_16`].")
    print("pub(crate) type Sqr = unsafe fn(*mut Limb, *const Limb);")
    print()
    print("/// [`addmul_rows_16`] and its siblings: the kernel for rows of `n` limbs.")
    print("pub(crate) fn addmul_rows(n: usize) -> Option<AddmulRows> {")
    print("    match n {")
    for n in SIZES:
        print(f"        {n} => Some(addmul_rows_{n}),")
    print("        _ => None,")
    print("    }")
    print("}")
    print()
    print("/// [`redc_16`] and its siblings: the kernel for an `n`-limb modulus.")
    print("pub(crate) fn redc(n: usize) -> Option<Redc> {")
    print("    match n {")
    for n in SIZES:
        print(f"        {n} => Some(redc_{n}),")
    print("        _ => None,")
    print("    }")
    print("}")
    print()
    print("/// [`sqr_16`] and its siblings: the square of `n` limbs.")
    print("pub(crate) fn sqr(n: usize) -> Option<Sqr> {")
    print("    match n {")
    for n in SQR_SIZES:
        print(f"        {n} => Some(sqr_{n}),")
    print("        _ => None,")
    print("    }")
    print("}")
    for n in SIZES:
        sys.stdout.write(addmul_rows(n))
    for n in SIZES:
        sys.stdout.write(redc_blocks(n))
    sys.stdout.write(window_square())
    sys.stdout.write(split_square())
    sys.stdout.write(karatsuba_square())


if __name__ == "__main__":
    main()
