#!/usr/bin/env python3
"""Generates the x86_64 row kernels for the sizes RSA uses:

    python3 tools/gen_rows_x86_64.py > src/backend/x86_64_adx/gen/rows.rs

(`.ci/run` checks that the file matches this script's output.)

Two kernels per length n (16, 24, 32, 48 and 64 limbs: the primes of RSA
2048 to 4096 and the moduli of 1024 to 4096 bits), each a loop over rows
whose body, one row of n limb products, is fully unrolled:

  addmul_rows_n(r, a, b, k): for i < k, r[i..i+n] += a·b[i], then
      r[i+n] = the row's carry limb (overwritten). With r[..n] zero this is
      the product a·b (k rows); the rows of a longer product share it.
  redc_n(r, t, m, q0, m_inv): the Montgomery reduction of the 2n-limb t:
      n rows, row i adding m·q_i at limb i, q_i = t[i]·m_inv, and leaving
      its carry in t[i] (zero after the row), as GMP's redc_1 does; then
      the carries added to the top half in one pass, and the conditional
      subtraction of m, selected with cmov.

and sqr_16(r, a), the 16-limb square: the off-diagonal triangle with all
fifteen rows unrolled, then the doubling and the diagonal in one pass; the
base of the squares at 32 and 64 limbs, which split into halves' squares
and a cross product of rows.

Each row is one carry chain per flag: `adcx` adds the old limb (CF),
`adox` the previous product's high half (OF), and the row ends by folding
both flags into the last high half. Without the loop over four-limb blocks
of the generic kernels (a pointer bump and a branch each, and the tail) a
row costs less per product (benches/RESULTS.md, "Design figures").
"""

import sys

SIZES = (16, 24, 32, 48, 64)


def row(n, with_next_q):
    """One unrolled row on `{r}`/`{t}` with the multiplier in rdx."""
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
        if with_next_q and j == 1:
            # Limb i + 1 is final now: the next row's quotient comes from
            # this copy, not from a reload of the store.
            e('"mov {q}, {lo}"')
    last = hs[n % 2]
    e('"mov {lo:e}, 0"')  # flags untouched
    e(f'"adcx {last}, {{lo}}"')
    e(f'"adox {last}, {{lo}}"')
    return out, last


def addmul_rows(n):
    body, last = row(n, False)
    lines = ['"2:"', '"mov rdx, [{b}]"'] + body + [
        f'"mov [{{r}} + {8 * n}], {last}"',
        '"lea {r}, [{r} + 8]"',
        '"lea {b}, [{b} + 8]"',
        '"dec {k}"',
        '"jnz 2b"',
    ]
    asm = "\n".join(f"            {line}," for line in lines)
    return f'''
/// `r[i..i + {n}] += a·b[i]` then `r[i + {n}] =` the carry, for each row `i < k`.
///
/// # Safety
/// BMI2 and ADX are present; `a` points to {n} limbs, `b` to `k >= 1`,
/// `r` to `k + {n}` (read and written); no overlap of `r` with `a` or `b`.
#[target_feature(enable = "bmi2,adx")]
pub(crate) unsafe fn addmul_rows_{n}(r: *mut Limb, a: *const Limb, b: *const Limb, k: usize) {{
    // SAFETY: the caller's contract; every access is within the ranges
    // above, every register the block changes is declared, no stack.
    unsafe {{
        asm!(
{asm}
            r = inout(reg) r => _,
            a = in(reg) a,
            b = inout(reg) b => _,
            k = inout(reg) k => _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            lo = out(reg) _,
            out("rdx") _,
            options(nostack),
        );
    }}
}}
'''


def redc_rows(n):
    body, last = row(n, True)
    lines = ['"2:"', '"mov rdx, {q}"'] + [x.replace("{r}", "{t}") for x in body] + [
        f'"mov [{{t}}], {last}"',  # limb i is zero: the carry's home
        '"imul {q}, {m_inv}"',
        '"lea {t}, [{t} + 8]"',
        '"dec {k}"',
        '"jnz 2b"',
    ]
    # The tail: t now points at the top half; the carries sit below it.
    # r = top + carries (below 2m), then r − m kept unless it borrowed
    # without the top carry, selected limb by limb with cmov.
    lines.append(f'"mov {{lo}}, [{{t}}]"')
    lines.append(f'"add {{lo}}, [{{t}} - {8 * n}]"')
    lines.append(f'"mov [{{r}}], {{lo}}"')
    for j in range(1, n):
        lines.append(f'"mov {{lo}}, [{{t}} + {8 * j}]"')
        lines.append(f'"adc {{lo}}, [{{t}} + {8 * (j - n)}]"')
        lines.append(f'"mov [{{r}} + {8 * j}], {{lo}}"')
    lines.append('"setc {k:l}"')  # the carry out of the top (k is 0 here)
    for j in range(n):
        op = "sub" if j == 0 else "sbb"
        lines.append(f'"mov {{lo}}, [{{r}} + {8 * j}]"')
        lines.append(f'"{op} {{lo}}, [{{m}} + {8 * j}]"')
        lines.append(f'"mov [{{t}} + {8 * (j - n)}], {{lo}}"')
    # keep = borrow & !carry: then r stays, else r = r − m.
    lines.append('"sbb {q}, {q}"')  # all ones when r < m
    lines.append('"neg {k}"')  # all ones when the sum carried
    lines.append('"andn {q}, {k}, {q}"')  # keep r: borrowed and no carry
    lines.append('"test {q}, {q}"')
    for j in range(n):
        lines.append(f'"mov {{lo}}, [{{t}} + {8 * (j - n)}]"')
        lines.append(f'"cmovnz {{lo}}, [{{r}} + {8 * j}]"')
        lines.append(f'"mov [{{r}} + {8 * j}], {{lo}}"')
    asm = "\n".join(f"            {line}," for line in lines)
    asm = asm.replace("{a}", "{m}")
    return f'''
/// `r = t·2^(−{64 * n}) mod m`, fully reduced, for the {2 * n}-limb `t` below
/// `m·2^{64 * n}`: {n} reduction rows (row `i` adds `m·q_i` at limb `i`,
/// `q_0 = q0`, each `q_i = t[i]·m_inv`, and leaves its carry in `t[i]`,
/// which it has zeroed), then the top half plus the carries, then one
/// constant-time conditional subtraction of `m` (selected with `cmov`).
/// `t` is destroyed.
///
/// # Safety
/// BMI2 and ADX are present; `t` points to {2 * n} limbs, `m` and `r` to
/// {n}, none overlapping; `q0 = t[0]·m_inv`, `m_inv = −m⁻¹ mod 2^64`.
#[target_feature(enable = "bmi2,adx")]
pub(crate) unsafe fn redc_{n}(r: *mut Limb, t: *mut Limb, m: *const Limb, q0: Limb, m_inv: Limb) {{
    // SAFETY: the caller's contract; row i touches t[i..i + {n + 1}], the
    // tail t and r, all inside them; every register the block changes is
    // declared, no stack.
    unsafe {{
        asm!(
{asm}
            r = in(reg) r,
            t = inout(reg) t => _,
            m = in(reg) m,
            q = inout(reg) q0 => _,
            m_inv = in(reg) m_inv,
            k = inout(reg) {n}usize => _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            lo = out(reg) _,
            out("rdx") _,
            options(nostack),
        );
    }}
}}
'''


def triangle(n):
    """a² for n-limb a: the off-diagonal triangle with every row unrolled
    (row i adds a_i·a[i+1..n] at limb 2i + 1 and writes its carry to limb
    i + n; row 0 writes instead of adding, so nothing is zeroed first), then
    one pass that doubles the triangle and adds the squares on the diagonal
    (`adcx x, x` doubles a limb, carrying its top bit into the next; `adox`
    adds the square's halves)."""
    lines = []
    e = lines.append
    hs = ["{h0}", "{h1}"]
    for i in range(n - 1):
        e(f'"mov rdx, [{{a}} + {8 * i}]"')
        e('"xor {h0:e}, {h0:e}"')
        length = n - 1 - i
        for j in range(length):
            prev, nxt = hs[j % 2], hs[(j + 1) % 2]
            pos = 8 * (2 * i + 1 + j)
            e(f'"mulx {nxt}, {{lo}}, [{{a}} + {8 * (i + 1 + j)}]"')
            if i > 0:
                e(f'"adcx {{lo}}, [{{r}} + {pos}]"')
            e(f'"adox {{lo}}, {prev}"')
            e(f'"mov [{{r}} + {pos}], {{lo}}"')
        last = hs[length % 2]
        e('"mov {lo:e}, 0"')
        e(f'"adcx {last}, {{lo}}"')
        e(f'"adox {last}, {{lo}}"')
        e(f'"mov [{{r}} + {8 * (i + n)}], {last}"')
    # r = 2r + Σ a_i²·2^(128i); r[0] and r[2n − 1] are zero before it.
    e('"xor {h0:e}, {h0:e}"')  # CF = OF = 0
    for i in range(n):
        e(f'"mov rdx, [{{a}} + {8 * i}]"')
        e('"mulx {h1}, {lo}, rdx"')
        if i == 0:
            e('"mov {h0}, 0"')
        else:
            e(f'"mov {{h0}}, [{{r}} + {16 * i}]"')
        e('"adcx {h0}, {h0}"')
        e('"adox {h0}, {lo}"')
        e(f'"mov [{{r}} + {16 * i}], {{h0}}"')
        if i == n - 1:
            e('"mov {lo}, 0"')
        else:
            e(f'"mov {{lo}}, [{{r}} + {16 * i + 8}]"')
        e('"adcx {lo}, {lo}"')
        e('"adox {lo}, {h1}"')
        e(f'"mov [{{r}} + {16 * i + 8}], {{lo}}"')
    asm = "\n".join(f"            {line}," for line in lines)
    return f'''
/// `r = a²` for {n}-limb `a` ({2 * n} limbs): the off-diagonal triangle with
/// every row unrolled, then one pass doubling it and adding the squares on
/// the diagonal.
///
/// # Safety
/// BMI2 and ADX are present; `a` points to {n} limbs and `r` to {2 * n},
/// not overlapping.
#[target_feature(enable = "bmi2,adx")]
pub(crate) unsafe fn sqr_{n}(r: *mut Limb, a: *const Limb) {{
    // SAFETY: the caller's contract; every access is within r[..{2 * n}] and
    // a[..{n}]; every register the block changes is declared, no stack.
    unsafe {{
        asm!(
{asm}
            r = in(reg) r,
            a = in(reg) a,
            h0 = out(reg) _,
            h1 = out(reg) _,
            lo = out(reg) _,
            out("rdx") _,
            options(nostack),
        );
    }}
}}
'''


def main():
    print("//! Row kernels with fully unrolled rows, for the lengths RSA uses.")
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
    print("/// `(r, t, m, q0, m_inv)`, as [`redc_16`].")
    print("pub(crate) type Redc = unsafe fn(*mut Limb, *mut Limb, *const Limb, Limb, Limb);")
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
    for n in SIZES:
        sys.stdout.write(addmul_rows(n))
    for n in SIZES:
        sys.stdout.write(redc_rows(n))
    sys.stdout.write(triangle(16))


if __name__ == "__main__":
    main()
