#!/usr/bin/env python3
"""Generates src/backend/aarch64/gen/goldilocks.rs: the product of two
elements of GF(p), p = 2^448 − 2^224 − 1 (Goldilocks), on NEON, as column
sums in radix 2^28.

Usage: python3 tools/gen_goldilocks_neon.py > src/backend/aarch64/gen/goldilocks.rs
       python3 tools/gen_goldilocks_neon.py --check   (the tables' algebra
       against Python's integers, on random and extreme inputs)
(`.ci/run` checks that the file matches this script's output.)

The field crate keeps eight 56-bit limbs; here each splits into two 28-bit
digits, sixteen in all, so that every product is 32×32 bits. With x = 2^28,
x^16 = 2^448 ≡ x^8 + 1, so a product column k of 16 to 23 lands on k − 8 and
k − 16, and one of 24 to 30 on k − 16 twice and k − 24 once. Output digit c
is then Σ_i f_i T_c(c − i), and T depends on c only through its half:
  c < 8:  T(j) = g_j (j ≥ 0), g_(j+16) (−8 ≤ j < 0), g_(j+16) + g_(j+24) (j < −8)
  c ≥ 8:  T(j) = g_j (j ≥ 8), g_j + g_(j+8) (0 ≤ j < 8), g_(j+8) + 2 g_(j+16) (j < 0)
Two tables, E_lo over j = −15..7 and E_hi over j = −7..15, hold these words;
an accumulator holds the column pair (c, c + 1), c even, in its two 64-bit
lanes, and each `umlal` (by element) adds f_i times the pair of table words
at c − i. 128 `umlal`, no carries between them.

Bounds: f's digits are below 2^30 (loose limbs below 2^58), the low one of
each limb below 2^28. g's high digits are cut to 28 bits first (their excess,
at most 3, carried into the next low digit; the top one's into digits 0 and
8, at 2^448 ≡ 2^224 + 1), so every g digit is below 2^28 + 4, every table
word below 3 (2^28 + 4) < 2^30, and a column below
(8 · 2^28 + 8 · 2^30) · 3 (2^28 + 4) < 2^63.
"""
import random
import sys

DIGITS = 16
MASK = (1 << 28) - 1
P = 2**448 - 2**224 - 1

# Scratch, in 32-bit words: f's digits, then the two tables (word 39 unused).
F_AT = 0
E_LO_AT = 16 - (-15)  # word of E_lo(j) is E_LO_AT + j, j = −15..7: words 16..38
E_HI_AT = 40 - (-7)  # word of E_hi(j) is E_HI_AT + j, j = −7..15: words 40..62
WORDS = 64


def table_word(c, j, d):
    """T_c(j) from g's digits d (the docstring's formulas)."""
    g = lambda k: d[k] if 0 <= k < DIGITS else 0  # noqa: E731
    if c < 8:
        return g(j) + g(j + 16) + g(j + 24)
    return g(j) + g(j + 8) + 2 * g(j + 16)


def digits_f(limbs):
    return [x for limb in limbs for x in (limb & MASK, limb >> 28)]


def digits_g(limbs):
    """g's digits with the high ones cut to 28 bits, as the kernel does."""
    lo = [limb & MASK for limb in limbs]
    hi = [limb >> 28 for limb in limbs]
    carry = [h >> 28 for h in hi]
    hi = [h & MASK for h in hi]
    for j in range(7):
        lo[j + 1] += carry[j]
    lo[0] += carry[7]
    lo[4] += carry[7]
    return [x for pair in zip(lo, hi) for x in pair]


def columns(f_limbs, g_limbs):
    """What the kernel computes, in Python."""
    f, d = digits_f(f_limbs), digits_g(g_limbs)
    return [sum(f[i] * table_word(c, c - i, d) for i in range(DIGITS)) for c in range(DIGITS)]


def check():
    value = lambda limbs: sum(x << (56 * i) for i, x in enumerate(limbs))  # noqa: E731
    rng = random.Random(1)
    cases = [[(1 << 58) - 1] * 8, [0] * 8, [1] + [0] * 7, [(1 << 56) - 1] * 8]
    cases += [[rng.randrange(1 << 58) for _ in range(8)] for _ in range(2000)]
    for f in cases:
        for g in (cases[rng.randrange(len(cases))], f, cases[0]):
            h = columns(f, g)
            assert all(0 <= x < 2**63 for x in h), "a column overflows"
            d = digits_g(g)
            assert all(0 <= table_word(c, j, d) < 2**30
                       for c in (0, 8) for j in range(-15, 16)), "a table word overflows"
            total = sum(x << (28 * c) for c, x in enumerate(h))
            assert total % P == value(f) * value(g) % P
    print(f"tables check out on {len(cases)} operands")


def asm_lines():
    out = []
    emit = out.append
    # f's digits: the low 28 bits and the rest of each limb, a pair a limb.
    for j in range(0, 8, 2):
        emit(f"ldp {{a{j}}}, {{a{j + 1}}}, [{{fp}}, #{8 * j}]")
    for j in range(8):
        emit(f"and {{b{j}}}, {{a{j}}}, #0xfffffff")
        emit(f"lsr {{a{j}}}, {{a{j}}}, #28")
        emit(f"stp {{b{j}:w}}, {{a{j}:w}}, [{{ws}}, #{4 * (F_AT + 2 * j)}]")
    # g's digits: b_j the low digit of limb j (digit 2j), a_j the high one
    # (digit 2j + 1), cut to 28 bits with its excess into the next low one.
    for j in range(0, 8, 2):
        emit(f"ldp {{a{j}}}, {{a{j + 1}}}, [{{gp}}, #{8 * j}]")
    for j in range(8):
        emit(f"and {{b{j}}}, {{a{j}}}, #0xfffffff")
        emit(f"lsr {{a{j}}}, {{a{j}}}, #28")
    for j in range(8):
        emit(f"lsr {{c}}, {{a{j}}}, #28")
        emit(f"and {{a{j}}}, {{a{j}}}, #0xfffffff")
        if j < 7:
            emit(f"add {{b{j + 1}}}, {{b{j + 1}}}, {{c}}")
        else:
            emit("add {b0}, {b0}, {c}")
            emit("add {b4}, {b4}, {c}")

    def digit(k):
        return f"{{b{k // 2}}}" if k % 2 == 0 else f"{{a{k // 2}}}"

    def store(words):
        """words: {word index: register}; stores them, pairs with stp."""
        idx = sorted(words)
        i = 0
        while i < len(idx):
            w = idx[i]
            reg = words[w].strip("{}")
            if i + 1 < len(idx) and idx[i + 1] == w + 1:
                reg2 = words[w + 1].strip("{}")
                emit(f"stp {{{reg}:w}}, {{{reg2}:w}}, [{{ws}}, #{4 * w}]")
                i += 2
            else:
                emit(f"str {{{reg}:w}}, [{{ws}}, #{4 * w}]")
                i += 1

    # The words that are single digits: E_lo(j) = g_j, j = 0..7;
    # E_lo(j) = g_(j+16), j = −8..−1; E_hi(j) = g_j, j = 8..15.
    words = {}
    for j in range(0, 8):
        words[E_LO_AT + j] = digit(j)
    for j in range(-8, 0):
        words[E_LO_AT + j] = digit(j + 16)
    for j in range(8, 16):
        words[E_HI_AT + j] = digit(j)
    store(words)
    # s_k = g_k + g_(k+8), k = 0..7, over the low half's digits:
    # E_lo(j) = s_(j+16), j = −15..−9; E_hi(j) = s_j, j = 0..7.
    for k in range(8):
        emit(f"add {digit(k)}, {digit(k)}, {digit(k + 8)}")
    words = {}
    for j in range(-15, -8):
        words[E_LO_AT + j] = digit(j + 16)
    for j in range(0, 8):
        words[E_HI_AT + j] = digit(j)
    store(words)
    # u_k = s_k + g_(k+8) = g_k + 2 g_(k+8), k = 1..7: E_hi(j) = u_(j+8), j = −7..−1.
    for k in range(1, 8):
        emit(f"add {digit(k)}, {digit(k)}, {digit(k + 8)}")
    store({E_HI_AT + j: digit(j + 8) for j in range(-7, 0)})
    # f's digits as four vectors, the eight column pairs cleared.
    emit("ldp {f0:q}, {f1:q}, [{ws}]")
    emit("ldp {f2:q}, {f3:q}, [{ws}, #32]")
    for p in range(8):
        emit(f"movi {{h{p}:v}}.2d, #0")
    emit("// (h_2p, h_2p+1) += f_i · (T(2p − i), T(2p + 1 − i)), a half's table each.")
    for i in range(DIGITS):
        for p in range(8):
            base = E_LO_AT if p < 4 else E_HI_AT
            offset = 4 * (base + 2 * p - i)
            load = "ldr" if offset % 8 == 0 else "ldur"
            emit(f"{load} {{t{p}:d}}, [{{ws}}, #{offset}]")
            emit(f"umlal {{h{p}:v}}.2d, {{t{p}:v}}.2s, {{f{i // 4}:v}}.s[{i % 4}]")
    for p in range(0, 8, 2):
        emit(f"stp {{h{p}:q}}, {{h{p + 1}:q}}, [{{hp}}, #{16 * p}]")
    return out


def main():
    if sys.argv[1:] == ["--check"]:
        check()
        return
    body = "\n".join(f'            "{line}",' if not line.startswith("//") else
                     f"            {line}" for line in asm_lines())
    regs = "\n".join(f"            {r} = out(reg) _," for r in
                     [f"a{j}" for j in range(8)] + [f"b{j}" for j in range(8)] + ["c"])
    vregs = "\n".join(f"            {r} = out(vreg) _," for r in
                      [f"f{k}" for k in range(4)] + [f"h{p}" for p in range(8)]
                      + [f"t{p}" for p in range(8)])
    print(f'''// Generated by tools/gen_goldilocks_neon.py; do not edit.

use core::arch::asm;

use crate::Limb;

/// `h_0..h_15` for `h = f·g` modulo Goldilocks `p = 2^448 − 2^224 − 1`,
/// `f` and `g` on eight limbs of 56 bits, each below `2^58` (the field
/// crate's loose bound): `Σ h_c 2^(28c) ≡ f·g (mod p)`, each `h_c` below
/// `2^63`. The method and the bounds are in the generator's notes.
///
/// # Constant time
/// Straight-line code with fixed addresses; `ldp`/`ldr`/`ldur`/`stp`/`str`,
/// `and`, `lsr`, `add`, `movi` and `umlal` are on Arm's
/// data-independent-timing list. The scratch on the stack is a temporary,
/// like the portable columns' spills, and is not wiped.
pub(crate) fn goldilocks_columns(f: &[Limb; 8], g: &[Limb; 8]) -> [u64; 16] {{
    let mut h = [0u64; 16];
    let mut scratch = [0u32; {WORDS}];
    // SAFETY: NEON is present (this module is compiled only with the `neon`
    // target feature). The block reads f and g (eight limbs each) and
    // writes h (sixteen words) and scratch ({4 * WORDS} bytes), at fixed
    // offsets inside them, through pointers derived from them; every
    // register it changes is declared; no stack.
    unsafe {{
        asm!(
{body}
            fp = in(reg) f.as_ptr(),
            gp = in(reg) g.as_ptr(),
            hp = in(reg) h.as_mut_ptr(),
            ws = in(reg) scratch.as_mut_ptr(),
{regs}
{vregs}
            options(nostack),
        );
    }}
    h
}}''')


if __name__ == "__main__":
    main()
