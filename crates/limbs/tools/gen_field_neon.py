#!/usr/bin/env python3
"""Generates src/backend/aarch64/gen/field.rs: products in the field crate's
unsaturated prime fields on NEON, as column sums of 32×32-bit digit products:
Goldilocks (p = 2^448 − 2^224 − 1, eight 56-bit limbs), 2^521 − 1 (nine
58-bit limbs) and 2^336 − 3 (six 56-bit limbs). (2^255 − 19, whose 51-bit
limbs split unevenly, is the hand-written `neon_field.rs`.)

Usage: python3 tools/gen_field_neon.py > src/backend/aarch64/gen/field.rs
       python3 tools/gen_field_neon.py --check   (each kernel's tables and
       bounds against Python's integers, on random and extreme inputs)
(`.ci/aarch64-qemu` checks that the file matches this script's output and
runs the check.)

Each limb of R bits splits into two digits of r = R / 2 bits (D = 2N digits,
x = 2^r), so that every product is 32×32 bits. Output digit c is
Σ_i f_i T_c(c − i), where the table T folds the product's columns at and
above x^D back onto the low ones:
- 2^k − c on D digits (x^D ≡ W = c · 2^(D r − k)): T(j) = g_j for j ≥ 0 and
  W g_(j+D) for j < 0, one table for every c.
- Goldilocks (x^16 ≡ x^8 + 1, so a column k of 16 to 23 lands on k − 8 and
  k − 16, one of 24 to 30 on k − 16 twice and k − 24 once): T depends on
  c through its half,
    c < 8:  T(j) = g_j (j ≥ 0), g_(j+16) (−8 ≤ j < 0), g_(j+16) + g_(j+24) (j < −8)
    c ≥ 8:  T(j) = g_j (j ≥ 8), g_j + g_(j+8) (0 ≤ j < 8), g_(j+8) + 2 g_(j+16) (j < 0)
  two tables, over j = −15..7 and −7..15.
An accumulator holds the column pair (c, c + 1), c even, in its two 64-bit
lanes, and each `umlal` (by element) adds f_i times the pair of table words
at c − i: D²/2 `umlal`, no carries between them.

Bounds (the field crate's loose limbs: below 2^58 for Goldilocks, 2^(R+2)
for 2^k − c): a high digit is cut to r bits first, its excess carried into
the next limb's low digit (the top one's into digit 0 times W, or digits 0
and 8 for Goldilocks), for g always and for f where the columns need it
(2^521 − 1). `check` computes the largest digit, table word and column the
kernel can meet from the loose bounds and asserts that they fit 32, 32 and
64 bits; the kernels' doc comments quote them.

# Constant time
Straight-line code with fixed addresses; `ldp`/`ldr`/`ldur`/`stp`/`str`,
`and`, `lsr`, `lsl`, `add`, `movi` and `umlal` are on Arm's
data-independent-timing list. The scratch on the stack is a temporary, like
the portable columns' spills, and is not wiped.
"""
import random
import re
import sys
import textwrap


class Field:
    def __init__(self, name, title, p, limbs, radix, loose_bits, normalize_f, wrap=None):
        self.name, self.title, self.p = name, title, p
        self.n, self.radix, self.loose_bits = limbs, radix, loose_bits
        self.r = radix // 2
        self.d = 2 * limbs
        self.normalize_f = normalize_f
        self.wrap = wrap  # W for 2^k − c; None for Goldilocks

    # Where each kernel's scratch words are: f's digits (padded to whole
    # vectors), then the table(s), T_c(j) at word table_at(c) + j.
    def f_words(self):
        return -(-self.d // 4) * 4

    def tables(self):
        """[(first c, lowest j, highest j)] of each table."""
        if self.wrap is None:
            return [(0, -15, 7), (8, -7, 15)]
        return [(0, -(self.d - 1), self.d - 1)]

    def table_starts(self):
        """The word of each table's lowest j, and the words in all."""
        starts, at = [], self.f_words()
        for _, lo, hi in self.tables():
            starts.append(at)
            at += hi - lo + 1
            at += at % 2  # each table starts at an even word
        return starts, at

    def table_at(self, c):
        """The word of T_c(0)."""
        starts, _ = self.table_starts()
        t = max(i for i, (first, _, _) in enumerate(self.tables()) if c >= first)
        return starts[t] - self.tables()[t][1]

    def words(self):
        return self.table_starts()[1]

    def table_word(self, c, j, g):
        """T_c(j) from g's digits."""
        d = self.d
        at = lambda k: g[k] if 0 <= k < d else 0  # noqa: E731
        if self.wrap is not None:
            return g[j] if j >= 0 else self.wrap * g[j + d]
        if c < 8:
            return at(j) + at(j + 16) + at(j + 24)
        return at(j) + at(j + 8) + 2 * at(j + 16)

    def digits(self, limbs, normalize):
        mask = (1 << self.r) - 1
        lo = [x & mask for x in limbs]
        hi = [x >> self.r for x in limbs]
        if normalize:
            excess = [h >> self.r for h in hi]
            hi = [h & mask for h in hi]
            for j in range(self.n - 1):
                lo[j + 1] += excess[j]
            if self.wrap is None:
                lo[0] += excess[-1]
                lo[4] += excess[-1]
            else:
                lo[0] += self.wrap * excess[-1]
        return [x for pair in zip(lo, hi) for x in pair]

    def columns(self, f_limbs, g_limbs):
        """What the kernel computes, in Python."""
        f = self.digits(f_limbs, self.normalize_f)
        g = self.digits(g_limbs, True)
        return [sum(f[i] * self.table_word(c, c - i, g) for i in range(self.d))
                for c in range(self.d)]

    def bounds(self):
        """The largest f digit, table word and column the kernel can meet
        (every limb at the loose bound maximises each)."""
        top = [(1 << self.loose_bits) - 1] * self.n
        f = self.digits(top, self.normalize_f)
        g = self.digits(top, True)
        word = max(self.table_word(c, j, g) for c in range(self.d) for j in range(c - self.d + 1, c + 1))
        return max(f), word, max(self.columns(top, top))


FIELDS = [
    Field("goldilocks_columns", "Goldilocks `p = 2^448 − 2^224 − 1`", 2**448 - 2**224 - 1,
          8, 56, 58, False),
    Field("p521_columns", "`p = 2^521 − 1`", 2**521 - 1, 9, 58, 60, True, wrap=2),
    Field("p336_columns", "`p = 2^336 − 3`", 2**336 - 3, 6, 56, 58, False, wrap=3),
]


def check():
    rng = random.Random(1)
    for field in FIELDS:
        p = field.p
        value = lambda limbs: sum(x << (field.radix * i) for i, x in enumerate(limbs))  # noqa: E731
        loose = (1 << field.loose_bits) - 1
        cases = [[loose] * field.n, [0] * field.n, [1] + [0] * (field.n - 1),
                 [(1 << field.radix) - 1] * field.n]
        cases += [[rng.randrange(loose + 1) for _ in range(field.n)] for _ in range(1000)]
        for f in cases:
            for g in (cases[rng.randrange(len(cases))], f, cases[0]):
                h = field.columns(f, g)
                total = sum(x << (field.r * c) for c, x in enumerate(h))
                assert total % p == value(f) * value(g) % p, field.name
        digit, word, column = field.bounds()
        assert digit < 2**32 and word < 2**32 and column < 2**64, field.name
        print(f"{field.name}: {len(cases)} operands check out; digits below "
              f"2^{digit.bit_length()}, table words below 2^{word.bit_length()}, "
              f"columns below 2^{column.bit_length()}")


def asm_lines(field):
    out = []
    emit = out.append
    n, r, d = field.n, field.r, field.d
    mask = f"#{hex((1 << r) - 1)}"
    pairs = [(j, j + 1) for j in range(0, n - 1, 2)]
    single = [n - 1] if n % 2 else []

    def load_digits(ptr, normalize):
        """b_j = limb j's low digit (digit 2j), a_j its high one (2j + 1)."""
        for j, k in pairs:
            emit(f"ldp {{a{j}}}, {{a{k}}}, [{{{ptr}}}, #{8 * j}]")
        for j in single:
            emit(f"ldr {{a{j}}}, [{{{ptr}}}, #{8 * j}]")
        for j in range(n):
            emit(f"and {{b{j}}}, {{a{j}}}, {mask}")
            emit(f"lsr {{a{j}}}, {{a{j}}}, #{r}")
        if not normalize:
            return
        for j in range(n):
            emit(f"lsr {{c}}, {{a{j}}}, #{r}")
            emit(f"and {{a{j}}}, {{a{j}}}, {mask}")
            if j < n - 1:
                emit(f"add {{b{j + 1}}}, {{b{j + 1}}}, {{c}}")
            elif field.wrap is None:
                emit("add {b0}, {b0}, {c}")
                emit("add {b4}, {b4}, {c}")
            else:
                # W c as one or two shifted operands (W = 2^s or 3).
                shifts = [0, 1] if field.wrap == 3 else [field.wrap.bit_length() - 1]
                assert sum(1 << s for s in shifts) == field.wrap
                for s in shifts:
                    emit(f"add {{b0}}, {{b0}}, {{c}}" + (f", lsl #{s}" if s else ""))

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

    # f's digits, in order from word 0.
    load_digits("fp", field.normalize_f)
    store({k: digit(k) for k in range(d)})
    load_digits("gp", True)
    if field.wrap is None:
        lo_at, hi_at = field.table_at(0), field.table_at(8)
        # The single digits: E_lo(j) = g_j, j = 0..7; g_(j+16), j = −8..−1;
        # E_hi(j) = g_j, j = 8..15.
        words = {lo_at + j: digit(j) for j in range(0, 8)}
        words.update({lo_at + j: digit(j + 16) for j in range(-8, 0)})
        words.update({hi_at + j: digit(j) for j in range(8, 16)})
        store(words)
        # s_k = g_k + g_(k+8), k = 0..7: E_lo(j) = s_(j+16), j = −15..−9;
        # E_hi(j) = s_j, j = 0..7.
        for k in range(8):
            emit(f"add {digit(k)}, {digit(k)}, {digit(k + 8)}")
        words = {lo_at + j: digit(j + 16) for j in range(-15, -8)}
        words.update({hi_at + j: digit(j) for j in range(0, 8)})
        store(words)
        # u_k = s_k + g_(k+8) = g_k + 2 g_(k+8), k = 1..7: E_hi(j) = u_(j+8), j = −7..−1.
        for k in range(1, 8):
            emit(f"add {digit(k)}, {digit(k)}, {digit(k + 8)}")
        store({hi_at + j: digit(j + 8) for j in range(-7, 0)})
    else:
        at = field.table_at(0)
        store({at + j: digit(j) for j in range(d)})
        # W g_k, k = 1..D − 1, at j = k − D.
        for k in range(1, d):
            if field.wrap == 3:
                emit(f"add {digit(k)}, {digit(k)}, {digit(k)}, lsl #1")
            else:
                emit(f"lsl {digit(k)}, {digit(k)}, #{field.wrap.bit_length() - 1}")
        store({at + k - d: digit(k) for k in range(1, d)})
    # f's digits as vectors, the column pairs cleared.
    vectors = -(-d // 4)
    for v in range(0, vectors - 1, 2):
        emit(f"ldp {{f{v}:q}}, {{f{v + 1}:q}}, [{{ws}}, #{16 * v}]")
    if vectors % 2:
        emit(f"ldr {{f{vectors - 1}:q}}, [{{ws}}, #{16 * (vectors - 1)}]")
    accumulators = d // 2
    for p in range(accumulators):
        emit(f"movi {{h{p}:v}}.2d, #0")
    emit("// (h_2p, h_2p+1) += f_i · (T(2p − i), T(2p + 1 − i)).")
    for i in range(d):
        for p in range(accumulators):
            offset = 4 * (field.table_at(2 * p) + 2 * p - i)
            load = "ldr" if offset % 8 == 0 else "ldur"
            emit(f"{load} {{t{p}:d}}, [{{ws}}, #{offset}]")
            emit(f"umlal {{h{p}:v}}.2d, {{t{p}:v}}.2s, {{f{i // 4}:v}}.s[{i % 4}]")
    for p in range(0, accumulators - 1, 2):
        emit(f"stp {{h{p}:q}}, {{h{p + 1}:q}}, [{{hp}}, #{16 * p}]")
    if accumulators % 2:
        emit(f"str {{h{accumulators - 1}:q}}, [{{hp}}, #{16 * (accumulators - 1)}]")
    offsets = [int(m) for line in out for m in re.findall(r"\[\{ws\}, #(\d+)\]", line)]
    assert max(offsets) < 256, "an offset is out of `ldur`'s range"
    return out, vectors, accumulators


def function(field):
    lines, vectors, accumulators = asm_lines(field)
    body = "\n".join(f'            "{line}",' if not line.startswith("//") else
                     f"            {line}" for line in lines)
    regs = "\n".join(f"            {r} = out(reg) _," for r in
                     [f"a{j}" for j in range(field.n)] + [f"b{j}" for j in range(field.n)] + ["c"])
    vregs = "\n".join(f"            {r} = out(vreg) _," for r in
                      [f"f{k}" for k in range(vectors)] + [f"h{p}" for p in range(accumulators)]
                      + [f"t{p}" for p in range(accumulators)])
    digit, word, column = field.bounds()
    n, d, words = field.n, field.d, field.words()
    doc = textwrap.wrap(
        f"`h_0..h_{d - 1}` for `h = f·g` modulo {field.title}, `f` and `g` on {n} limbs of "
        f"{field.radix} bits, each below `2^{field.loose_bits}` (the field crate's loose bound): "
        f"`Σ h_c 2^({field.r}c) ≡ f·g (mod p)`. Digits below `2^{digit.bit_length()}`, table "
        f"words below `2^{word.bit_length()}`, each `h_c` below `2^{column.bit_length()}`.",
        width=76, break_on_hyphens=False)
    doc = "\n".join(f"/// {line}" for line in doc)
    return f'''
{doc}
pub(crate) fn {field.name}(f: &[Limb; {n}], g: &[Limb; {n}]) -> [u64; {d}] {{
    let mut h = [0u64; {d}];
    let mut scratch = [0u32; {words}];
    // SAFETY: NEON is present (this module is compiled only with the `neon`
    // target feature). The block reads f and g ({n} limbs each) and writes
    // h ({d} words) and scratch ({4 * words} bytes), at fixed offsets inside
    // them, through pointers derived from them; every register it changes
    // is declared; no stack.
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
}}'''


def main():
    if sys.argv[1:] == ["--check"]:
        check()
        return
    print("//! Products in the field crate's unsaturated prime fields on NEON, as column")
    print("//! sums of 32×32-bit digit products; the method, the bounds and the")
    print("//! constant-time argument are in the generator's notes.")
    print("//!")
    print("//! GENERATED by `tools/gen_field_neon.py`; do not edit by hand")
    print("//! (`.ci/aarch64-qemu` checks that this file matches the script).")
    print()
    print("use core::arch::asm;")
    print()
    print("use crate::Limb;")
    for field in FIELDS:
        print(function(field))


if __name__ == "__main__":
    main()
