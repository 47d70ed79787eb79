#!/usr/bin/env python3
"""Generates the multi-buffer (4-lane) almost-Montgomery multiplications and
squares in radix 2^52 on double-precision FMA (AVX2 and FMA3, no IFMA):

    python3 tools/gen_mb_fma_x86_64.py > src/backend/x86_64_mb/gen/fma.rs

(`.ci/run` checks that the file matches this script's output; `--gas`
prints the same kernels as GNU assembler functions with the System V
calling convention, for experiments outside the crate; `--zmm W` makes
them on zmm registers instead, for AVX-512F: eight lanes, W accumulators,
the EVEX forms of the moves and logic, written to `gen/fma512.rs` with
`--zmm 24`; `--xmm` on xmm registers, two lanes, for the two halves of an
RSA private key on cores with 128-bit vector units, written to
`gen/fma128.rs`.)

For a digit count N (21, 31 and 41: moduli of 1024, 1536 and 2048 bits),
each lane k of four computes

    r[k] = a[k] · b[k] · 2^(−52·N) mod m[k]   (below 2·m[k]),

with its digits normalised (each below 2^52), for a[k], b[k] below 2·m[k]
with digits below 2^52, 4·m[k] < 2^(52·N) and m[k] ≡ −1 mod 2^52: the
caller passes m' = m·k0 for its modulus m (k0 = −m⁻¹ mod 2^52; 52 bits
longer, hence one digit more than m needs), and congruences modulo m'
hold modulo m. The square computes the same for b = a.

# Layout

Element x is N vectors of four 64-bit lanes: lane k of vector j is digit j
of x[k] (the other batch kernels' vertical layout). The kernel converts
the digits of a, b and m to doubles first (exact: below 2^52), into the
scratch.

# A digit product on the floating-point multiplier

With the rounding mode set to round down (MXCSR, saved on entry and
restored on exit, exceptions masked), for digits x, y < 2^52:

    H = fma(x, y, 2^104)       = 2^104 + h·2^52,  h = ⌊x·y / 2^52⌋
    L = fma(x, y, C2 − H)      = 2^52 + l,        l = x·y mod 2^52

where C2 = 2^104 + 2^52 and C2 − H = (1 − h)·2^52 is exact (the two lie
in one binade); L is exact (an integer below 2^53). Read as integers, the
bit patterns are bits(2^104) + h and bits(2^52) + l (the exponent field
is fixed, h and l are the mantissas), so a column sums the patterns of
its products' L and of the H of the column before, in 64-bit integer
lanes, and subtracts the known sum of the exponent fields once, modulo
2^64 (the true column sum is below 2^63). Five vector operations a 52×52
product (two FMAs, a subtraction, two integer additions), where
`vpmuludq` needs about 3.4 products of 28 bits and two operations each
(`tools/gen_mb_avx2_x86_64.py`).

A CPU or emulator that ignores MXCSR's rounding mode (valgrind's) rounds
H to nearest and breaks L's binade; the backend runs only where a
self-test of this sequence passes (`x86_64_mb::fma::Fma::detect`).

# The multiplication: product scanning by blocks of columns

As in the AVX2 kernels: column c sums a_i·b_(c−i) and q_i·m_(c−i),
blocks of W columns held in registers, each block's a·b products first,
then the q·m products of the quotient digits already known, then its
columns in order, each one's quotient digit q_c = t_c mod 2^52 (m_0 =
2^52 − 1, so adding q_c·m_0 leaves the carry (t_c >> 52) + q_c) and that
digit's products with the rest of the block. A product's L goes to its
column and its H to the next one; the H of the block's last column goes
to a spill register that starts the next block. Quotient digits go to the
scratch as doubles for the blocks after.

# The square

Column c sums a_i·a_j over i < j (the cross products), doubled, plus
a_(c/2)² for even c. A doubled digit would leave the FMA's exact range,
so each block sums its cross products (their H spilling into a register
of their own), doubles its accumulators (and with them the exponent
fields, which the subtracted constants count twice), and then adds the
spill of the non-cross products, the squares, the q·m products and the
columns as the multiplication does.

# Constant time

No branch or address depends on a value, and no loop depends on one
(loop counts depend on N only). `vfmadd231pd`, `vsubpd`, `vpaddq`,
`vpsubq`, `vpsrlq`, `vpand`, `vpor` and the moves have data-independent
timing: every double here is zero or normal (no subnormal inputs or
results), and integer lanes are integer lanes. `.ci/ct-check` counts the
kernels' instructions natively (valgrind cannot run them, see above) and
`.ci/ct-dudect` times them.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The kernels' Rust signature is the AVX2 batch kernels' (same arguments).
from gen_mb_avx2_x86_64 import signature  # noqa: E402

VB = 32  # bytes per vector (ymm; 64 with --zmm, 16 with --xmm)
REG = "ymm"
REGISTERS = 16
# EVEX forms for zmm registers (AVX-512F): the VEX mnemonics name ymm only.
MNEMONIC = {}
# Digit counts with kernels.
SIZES = [21, 31, 41]
# Accumulators per block of columns (the square keeps one register more).
W = 10

B52 = 0x4330000000000000  # bits of 2^52
B104 = 0x4670000000000000  # bits of 2^104
C2 = B104 + 1  # bits of 2^104 + 2^52
MASK = (1 << 52) - 1
# The constant vectors, by their offsets: 2^104, 2^104 + 2^52, 2^52 (as
# bits: the conversions' OR and subtraction), the digit mask.
CONSTANTS = [B104, C2, B52, MASK]
K_C1, K_C2, K_B52, K_MASK = (VB * i for i in range(4))
# MXCSR: round down (RC = 01), every exception masked.
MXCSR_CLEAR = 0xFFFF9FFF
MXCSR_SET = 0x3F80


def op(mnemonic):
    return MNEMONIC.get(mnemonic, mnemonic)


LANE_WORDS = {2: "two", 4: "four", 8: "eight"}


def lanes():
    return VB // 8


def scratch_vectors(N):
    """a, b, m' and the quotient digits as doubles, and a vector for
    MXCSR."""
    return 4 * N + 1


def kernel(N, square):
    out = []
    e = out.append
    Wk = W - 1 if square else W
    ACC = [f"{REG}{i}" for i in range(Wk)]
    SPILL, X, H, L, C1, C2R = (f"{REG}{i}" for i in range(Wk, Wk + 6))
    SPILLX = f"{REG}{Wk + 6}" if square else None
    assert Wk + 6 + square <= REGISTERS
    # Products a column's L (lo) and H (hi) receive, outside and inside
    # the square's doubled cross products: the exponent fields to subtract.
    lo, hi = [0] * (2 * N + 1), [0] * (2 * N + 1)
    xlo, xhi = [0] * (2 * N + 1), [0] * (2 * N + 1)
    cross = False
    AD, BD, MD, QD, MX = 0, N, 2 * N, 3 * N, 4 * N
    if square:
        BD = AD

    e(f"vstmxcsr [{{s}} + {VB * MX}]")
    e(f"mov {{t:e}}, [{{s}} + {VB * MX}]")
    e(f"and {{t:e}}, {MXCSR_CLEAR:#x}")
    e(f"or {{t:e}}, {MXCSR_SET:#x}")
    e(f"mov [{{s}} + {VB * MX + 4}], {{t:e}}")
    e(f"vldmxcsr [{{s}} + {VB * MX + 4}]")
    # Digits to doubles: OR the exponent of 2^52 in, subtract 2^52.
    e(f"{op('vmovdqu')} {H}, [{{k}} + {K_B52}]")
    sources = [("{a}", AD), ("{m}", MD)] + ([] if square else [("{b}", BD)])
    for src, dst in sources:
        for j in range(N):
            if src == "{m}" and j == 0:
                continue  # m'_0 = 2^52 − 1 never multiplies
            e(f"{op('vpor')} {X}, {H}, [{src} + {VB * j}]")
            e(f"vsubpd {X}, {X}, {H}")
            e(f"vmovapd [{{s}} + {VB * (dst + j)}], {X}")
    # (No broadcast to xmm from memory: the constants are whole vectors.)
    load = "vmovapd" if REG == "xmm" else "vbroadcastsd"
    e(f"{load} {C1}, [{{k}} + {K_C1}]")
    e(f"{load} {C2R}, [{{k}} + {K_C2}]")

    def count(c, times=1):
        if cross:
            xlo[c] += times
            xhi[c + 1] += times
        else:
            lo[c] += times
            hi[c + 1] += times

    def product(c, lo_reg, hi_reg, x, y):
        e(f"vmovapd {H}, {C1}")
        e(f"vfmadd231pd {H}, {x}, {y}")
        e(f"vsubpd {L}, {C2R}, {H}")
        e(f"vfmadd231pd {L}, {x}, {y}")
        e(f"vpaddq {lo_reg}, {lo_reg}, {L}")
        e(f"vpaddq {hi_reg}, {hi_reg}, {H}")
        count(c)

    def regs(c, c0, c1):
        """The accumulators of column c's L and H in the block [c0, c1)."""
        spill = SPILLX if cross else SPILL
        return ACC[c - c0], (spill if c + 1 == c1 else ACC[c + 1 - c0])

    def products(c0, cend, c1, rows, valid, row, col):
        """Adds row(i)·col(c − i) (scratch vectors) to column c of the
        block [c0, c1) for every i in `rows` and c in [c0, cend) with
        valid(c, i). The rows where every one of those columns is valid
        run as a loop, {p} (the row operand) and {q} (the column operand
        of the first column) stepping one digit each way; the rest are
        unrolled."""
        full = [i for i in rows if all(valid(c, i) for c in range(c0, cend))]
        for i in rows:
            if i in full and len(full) > 2:
                if i != full[0]:
                    continue
                e(f"lea {{p}}, [{{s}} + {VB * row(i)}]")
                e(f"lea {{q}}, [{{s}} + {VB * col(c0 - i)}]")
                e(f"mov {{n}}, {len(full)}")
                e(".p2align 4")
                e("2:")
                e(f"vmovapd {X}, [{{p}}]")
                for c in range(c0, cend):
                    product(c, *regs(c, c0, c1), X, f"[{{q}} + {VB * (c - c0)}]")
                    count(c, len(full) - 1)
                e(f"add {{p}}, {VB}")
                e(f"sub {{q}}, {VB}")
                e("dec {n}")
                e("jnz 2b")
                continue
            cs = [c for c in range(c0, cend) if valid(c, i)]
            if not cs:
                continue
            e(f"vmovapd {X}, [{{s}} + {VB * row(i)}]")
            for c in cs:
                product(c, *regs(c, c0, c1), X, f"[{{s}} + {VB * col(c - i)}]")

    # L lands in columns 0 to 2N − 2; column 2N − 1 takes H and the carry.
    columns = 2 * N
    e(f"{op('vpxor')} {SPILL}, {SPILL}, {SPILL}")
    if square:
        e(f"{op('vpxor')} {SPILLX}, {SPILLX}, {SPILLX}")
    for c0 in range(0, columns, Wk):
        c1 = min(c0 + Wk, columns)
        cend = min(c1, 2 * N - 1)
        for x in ACC[1:c1 - c0]:
            e(f"{op('vpxor')} {x}, {x}, {x}")
        if square:
            e(f"{op('vmovdqa')} {ACC[0]}, {SPILLX}")
            e(f"{op('vpxor')} {SPILLX}, {SPILLX}, {SPILLX}")
            cross = True
            products(c0, cend, c1, range(N), lambda c, i: i < c - i < N,
                     lambda i: AD + i, lambda j: AD + j)
            cross = False
            for x in ACC[:c1 - c0]:
                e(f"vpaddq {x}, {x}, {x}")
            e(f"vpaddq {ACC[0]}, {ACC[0]}, {SPILL}")
            e(f"{op('vpxor')} {SPILL}, {SPILL}, {SPILL}")
            for c in range(c0, cend):
                if c % 2 == 0:
                    e(f"vmovapd {X}, [{{s}} + {VB * (AD + c // 2)}]")
                    product(c, *regs(c, c0, c1), X, X)
        else:
            e(f"{op('vmovdqa')} {ACC[0]}, {SPILL}")
            e(f"{op('vpxor')} {SPILL}, {SPILL}, {SPILL}")
            products(c0, cend, c1, range(N), lambda c, i: 0 <= c - i < N,
                     lambda i: AD + i, lambda j: BD + j)
        # The q·m products of quotient digits from earlier blocks (never
        # with m_0: c − i >= 1).
        products(c0, cend, c1, range(min(c0, N)), lambda c, i: 1 <= c - i < N,
                 lambda i: QD + i, lambda j: MD + j)
        # The block's columns in order.
        for c in range(c0, c1):
            x = ACC[c - c0]
            nxt = SPILL if c + 1 == c1 else ACC[c + 1 - c0]
            e(f"vpbroadcastq {H}, [{{bias}} + {8 * c}]")
            e(f"vpsubq {x}, {x}, {H}")
            if c == columns - 1:
                e(f"{op('vmovdqu')} [{{r}} + {VB * (N - 1)}], {x}")
            elif c < N:
                e(f"{op('vpand')} {H}, {x}, [{{k}} + {K_MASK}]")
                e(f"vpsrlq {L}, {x}, 52")
                e(f"vpaddq {L}, {L}, {H}")
                e(f"vpaddq {nxt}, {nxt}, {L}")
                e(f"{op('vpor')} {X}, {H}, [{{k}} + {K_B52}]")
                e(f"vsubpd {X}, {X}, [{{k}} + {K_B52}]")
                e(f"vmovapd [{{s}} + {VB * (QD + c)}], {X}")
                for later in range(c + 1, cend):
                    if later - c < N:
                        product(later, *regs(later, c0, c1), X,
                                f"[{{s}} + {VB * (MD + later - c)}]")
            else:
                e(f"{op('vpand')} {H}, {x}, [{{k}} + {K_MASK}]")
                e(f"{op('vmovdqu')} [{{r}} + {VB * (c - N)}], {H}")
                e(f"vpsrlq {L}, {x}, 52")
                e(f"vpaddq {nxt}, {nxt}, {L}")
    e(f"vldmxcsr [{{s}} + {VB * MX}]")
    bias = [(lo[c] * B52 + hi[c] * B104 + 2 * (xlo[c] * B52 + xhi[c] * B104)) % (1 << 64)
            for c in range(columns)]
    return out, bias


def name(N, square):
    return f"{'ams' if square else 'amm'}_fma{lanes()}_d{N}"


def rust_words(words, per_line=1):
    rows = [", ".join(f"{w:#018x}" for w in words[i:i + per_line])
            for i in range(0, len(words), per_line)]
    return "".join(f"    {row},\n" for row in rows)


def rust_kernel(N, square, lines):
    fn = name(N, square)
    body = "\n".join(f'            "{line}",' for line in lines)
    # The xmm kernels name their registers' ymm forms: the `vzeroupper`
    # at the end clears the upper halves of all sixteen.
    whole = "ymm" if REG == "xmm" else REG
    clobbers = "".join(f'            out("{whole}{i}") _,\n' for i in range(REGISTERS))
    b_op = "" if square else "            b = in(reg) b,\n"
    # A kernel whose blocks are wider than any full row has no loop.
    loop = "".join(f"            {r} = out(reg) _,\n" for r in "pqn"
                   if any(f"{{{r}}}" in line for line in lines))
    what = "a²" if square else "a·b"
    reads = "a" if square else "a, b"
    bias = f"BIAS_{'S' if square else 'M'}{N}"
    count = LANE_WORDS[lanes()]
    cpu, feature = ("AVX-512F", "avx512f") if REG == "zmm" else ("AVX2 and FMA", "avx2,fma")
    return f'''
/// {what}·2^(−{52 * N}) modulo m', {count} lanes of {N} digits (`_k0` unused: the
/// lowest digit of m' makes the quotient digits).
///
/// # Safety
/// The CPU has {cpu}, and rounds FMAs as MXCSR says. `r`, `{reads}`
/// and `m` point to {N} vectors of {count} digits and `s` to {scratch_vectors(N)} vectors,
/// {VB}-byte aligned; `r` does not overlap the inputs; the operands meet the
/// module's contract.
#[target_feature(enable = "{feature}")]
{signature(fn, square)}
    // SAFETY: the caller's contract: the block reads {reads}, m and the
    // constants, reads and writes the scratch at s and writes r; it
    // declares every register it changes, uses no stack and restores MXCSR.
    unsafe {{
        core::arch::asm!(
{body}
            "vzeroupper",
            r = in(reg) r,
            a = in(reg) a,
{b_op}            m = in(reg) m,
            s = in(reg) s,
            k = in(reg) CONSTANTS.0.as_ptr(),
            bias = in(reg) {bias}.as_ptr(),
            t = out(reg) _,
{loop}{clobbers}            options(nostack),
        );
    }}
}}
'''


def rust_bias(N, square, bias):
    what = "square" if square else "multiplication"
    return (f"\n/// The exponent fields column `c` of the {N}-digit {what} sums.\n"
            f"static BIAS_{'S' if square else 'M'}{N}: [u64; {len(bias)}] = [\n"
            f"{rust_words(bias)}];\n")


def gas_kernel(N, square, lines, bias):
    """System V: (r, a, b, m, k0, s), the square (r, a, m, k0, s); the
    loop registers in r12 to r14, saved."""
    fn = name(N, square)
    regs = {"r": "rdi", "a": "rsi", "b": "rdx", "m": "rcx", "s": "r9", "k": "r10",
            "bias": "r11", "t:e": "eax", "p": "r12", "q": "r13", "n": "r14"}
    if square:
        regs.update({"m": "rdx", "s": "r8"})
    out = [".text", f".globl {fn}", f".type {fn},@function", ".p2align 6", f"{fn}:",
           "  push r12", "  push r13", "  push r14",
           "  lea r10, [rip + fma_constants]", f"  lea r11, [rip + {fn}_bias]"]
    for line in lines:
        for k, v in regs.items():
            line = line.replace("{" + k + "}", v)
        out.append("  " + line)
    out += ["  vzeroupper", "  pop r14", "  pop r13", "  pop r12", "  ret",
            ".section .rodata", ".p2align 3", f"{fn}_bias:"]
    out += [f"  .quad {b:#x}" for b in bias]
    return "\n".join(out)


def use_xmm():
    """Makes the kernels that follow on xmm registers, two lanes
    (`--xmm`)."""
    global VB, REG, K_C1, K_C2, K_B52, K_MASK
    VB, REG = 16, "xmm"
    K_C1, K_C2, K_B52, K_MASK = (VB * i for i in range(4))


def use_zmm(width):
    """Makes the kernels that follow on zmm registers, `width`
    accumulators a block (`--zmm`)."""
    global VB, REG, REGISTERS, W, MNEMONIC, K_C1, K_C2, K_B52, K_MASK
    VB, REG, REGISTERS, W = 64, "zmm", 32, width
    MNEMONIC = {"vmovdqu": "vmovdqu64", "vmovdqa": "vmovdqa64", "vpxor": "vpxorq",
                "vpand": "vpandq", "vpor": "vporq"}
    K_C1, K_C2, K_B52, K_MASK = (VB * i for i in range(4))


def main():
    if "--xmm" in sys.argv:
        use_xmm()
    if "--zmm" in sys.argv:
        use_zmm(int(sys.argv[sys.argv.index("--zmm") + 1]))
    kernels = [(N, sq, *kernel(N, sq)) for N in SIZES for sq in (False, True)]
    if "--gas" in sys.argv:
        print(".intel_syntax noprefix\n.section .rodata\n.p2align 6\nfma_constants:")
        for c in CONSTANTS:
            print("  .quad " + ", ".join([f"{c:#x}"] * lanes()))
        for N, sq, lines, bias in kernels:
            print(gas_kernel(N, sq, lines, bias))
        return
    registers = f" ({REG})" if REG != "ymm" else ""
    print("//! The multi-buffer almost-Montgomery multiplications and squares on")
    print(f"//! double-precision FMA{registers}, radix 2^52.")
    print("//!")
    print("//! GENERATED by `tools/gen_mb_fma_x86_64.py`; do not edit by hand (`.ci/run`")
    print("//! checks that this file matches the script). The script's docstring has")
    print("//! the algorithm, the layout and the contract.")
    print()
    print("use super::{AmmKernel, AmsKernel};")
    print()
    print("/// Scratch vectors the kernels for `digits` digits use.")
    print("pub(super) const fn scratch_vectors(digits: usize) -> usize {")
    print("    4 * digits + 1")
    print("}")
    print()
    print("/// The multiplication and the square for `digits` digits, if there are")
    print("/// kernels for them.")
    print("pub(super) fn kernels(digits: usize) -> Option<(AmmKernel, AmsKernel)> {")
    print("    match digits {")
    for N in SIZES:
        print(f"        {N} => Some(({name(N, False)}, {name(N, True)})),")
    print("        _ => None,")
    print("    }")
    print("}")
    print()
    count = LANE_WORDS[lanes()].capitalize()
    print(f"/// {count} lanes each of 2^104, 2^104 + 2^52, 2^52 (their bits) and the")
    print("/// digit mask.")
    print(f"#[repr(C, align({VB}))]")
    print(f"struct Constants([u64; {lanes() * len(CONSTANTS)}]);")
    print()
    print("static CONSTANTS: Constants = Constants([")
    print(rust_words([c for c in CONSTANTS for _ in range(lanes())]), end="")
    print("]);")
    for N, sq, lines, bias in kernels:
        print(rust_bias(N, sq, bias), end="")
        print(rust_kernel(N, sq, lines), end="")


if __name__ == "__main__":
    sys.exit(main())
