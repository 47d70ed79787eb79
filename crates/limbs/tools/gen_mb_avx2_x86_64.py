#!/usr/bin/env python3
"""Generates the multi-buffer (4-lane) AVX2 almost-Montgomery
multiplications and squares:

    python3 tools/gen_mb_avx2_x86_64.py > src/backend/x86_64_mb/gen/avx2.rs

(`.ci/run` checks that the file matches this script's output; `--gas`
prints the same kernels as GNU assembler functions with the System V
calling convention, for experiments outside the crate (such as
`tools/mb_zmm_harness.c`); `--zmm W` makes them on zmm registers
instead, for AVX-512F without IFMA: eight lanes, W accumulators, the
EVEX forms of the moves and logic, written to `gen/avx512.rs` with
`--zmm 10`.)

For a digit count N (38, 56 and 75: moduli of 1024, 1536 and 2048 bits),
each lane k of four computes

    r[k] = a[k] · b[k] · 2^(−28·N) mod m[k]   (below 2·m[k]),

with its digits normalised (each below 2^28), for a[k], b[k] below 2·m[k]
with digits below 2^28, 4·m[k] < 2^(28·N) and m[k] ≡ −1 mod 2^28: the
caller passes m' = m·k0 for its modulus m (k0 = −m⁻¹ mod 2^28; 28 bits
longer, hence one digit more than m needs), and congruences modulo m'
hold modulo m. The square computes the same for b = a.

# Layout

Element x is N vectors of four 64-bit lanes: lane k of vector j is digit j
of x[k]. `vpmuludq` multiplies the low 32 bits of each lane, so a 28-bit
digit product is exact in its lane, and a lane sums a whole column of
products (at most 2N of them, below 2^63.2 for N = 74) with no carry
between them.

# The multiplication: product scanning by blocks of columns

Column c sums a_i·b_(c−i) and q_i·m_(c−i) over i, plus the carry of
column c − 1; for c < N the quotient digit q_c = t_c mod 2^28 makes the
column a multiple of 2^28 once q_c·m_0 = q_c·2^28 − q_c is added, which
leaves the carry (t_c >> 28) + q_c with no product on the columns' serial
chain; for c >= N the column's low 28 bits are digit c − N of the result. Columns run in blocks
of W accumulators held in registers (AVX2 has sixteen): first every a·b
product that lands in the block (a_i loaded once, the b digit a memory
operand), then the q·m products of the quotient digits already known,
then the block's columns in order: each one's quotient digit, and that
digit's products with the rest of the block. Quotient digits go to the
scratch for the blocks after. No column is carried more than once, and
the result's digits come out normalised.

# The square

The same, with the a·b products replaced by those of a square: column c
sums (2a_i)·a_j over i < j, whose 29-bit doubled digit still fits
`vpmuludq`'s 32-bit inputs, plus a_(c/2)² for even c: half the a·b
products. 2a is made once, into the scratch.

# Constant time

No branch or address depends on a value, and no loop depends on one
either (everything is unrolled). `vpmuludq`, `vpaddq`, `vpsrlq`, `vpand`
and the moves have data-independent timing; valgrind runs AVX2, so
`.ci/ct-check` counts the ymm kernels and `.ci/ct-memcheck` audits them
(not the zmm ones: valgrind has no AVX-512; `.ci/ct-dudect` times both).
"""

import sys

VB = 32  # bytes per vector (ymm; 64 with --zmm)
REG = "ymm"
# EVEX forms for zmm registers (AVX-512F): the VEX mnemonics name ymm only.
MNEMONIC = {}

# Digit counts with kernels.
SIZES = [38, 56, 75]
# Accumulators per block of columns.
W = 10


def ymm(i):
    return f"{REG}{i}"


def op(name):
    return MNEMONIC.get(name, name)


def kernel(N, square):
    out = []
    e = out.append
    ACC = [ymm(i) for i in range(W)]
    X, T, Q, CARRY, MASK = (ymm(i) for i in range(W, W + 5))
    # AVX2 broadcasts from an xmm register or memory only (the form from
    # a general register is AVX-512's, EVEX-encoded, and faults on an
    # AVX2-only CPU): through the low lane.
    mask_x = MASK.replace(REG, "xmm")
    e(f"vmovq {mask_x}, {{mask}}")
    e(f"vpbroadcastq {MASK}, {mask_x}")
    e(f"{op('vpxor')} {CARRY}, {CARRY}, {CARRY}")
    # Scratch: q digits at vector i, 2a at vector N + i (square only).
    if square:
        for j in range(N):
            e(f"{op('vmovdqu')} {X}, [{{a}} + {VB * j}]")
            e(f"vpaddq {X}, {X}, {X}")
            e(f"{op('vmovdqa')} [{{s}} + {VB * (N + j)}], {X}")

    def product(dst, reg, mem):
        e(f"vpmuludq {T}, {reg}, {mem}")
        e(f"vpaddq {dst}, {dst}, {T}")

    def products(c0, c1, rows, valid, row_src, col_src):
        """Adds row_src(i)·col_src(c − i) to column c of the block for
        every i in `rows` and c with valid(c, i). The rows where every
        column of the block is valid run as a loop, the pointers {p} (the
        row operand) and {q} (the column operand of the block's first
        column) stepping one digit each way; the rest are unrolled."""
        acc = ACC[: c1 - c0]
        full = [i for i in rows if all(valid(c, i) for c in range(c0, c1))]
        # The full rows form one run (validity is an interval in i).
        for i in rows:
            if i in full and len(full) > 2:
                if i != full[0]:
                    continue
                base, off = row_src(i)
                e(f"lea {{p}}, [{base} + {off}]")
                base, off = col_src(c0 - i)
                e(f"lea {{q}}, [{base} + {off}]")
                e(f"mov {{n}}, {len(full)}")
                e(".p2align 4")
                e("2:")
                move = op("vmovdqa") if row_src(i)[0] == "{s}" else op("vmovdqu")
                e(f"{move} {X}, [{{p}}]")
                for w in range(c1 - c0):
                    product(acc[w], X, f"[{{q}} + {VB * w}]")
                e(f"add {{p}}, {VB}")
                e(f"sub {{q}}, {VB}")
                e("dec {n}")
                e("jnz 2b")
                continue
            cs = [c for c in range(c0, c1) if valid(c, i)]
            if not cs:
                continue
            base, off = row_src(i)
            e(f"{op('vmovdqu')} {X}, [{base} + {off}]")
            for c in cs:
                base, off = col_src(c - i)
                product(acc[c - c0], X, f"[{base} + {off}]")

    columns = 2 * N - 1
    for c0 in range(0, columns, W):
        c1 = min(c0 + W, columns)
        acc = ACC[: c1 - c0]
        for x in acc:
            e(f"{op('vpxor')} {x}, {x}, {x}")
        # The a·b (or square) products of the block.
        if square:
            products(c0, c1, range(N), lambda c, i: i < c - i < N,
                     lambda i: ("{s}", VB * (N + i)), lambda j: ("{a}", VB * j))
            for c in range(c0, c1):
                if c % 2 == 0 and c // 2 < N:
                    e(f"{op('vmovdqu')} {X}, [{{a}} + {VB * (c // 2)}]")
                    product(acc[c - c0], X, X)
        else:
            products(c0, c1, range(N), lambda c, i: 0 <= c - i < N,
                     lambda i: ("{a}", VB * i), lambda j: ("{b}", VB * j))
        # The q·m products of quotient digits from earlier blocks (never
        # with m_0: c − i >= 1).
        products(c0, c1, range(min(c0, N)), lambda c, i: c - i < N,
                 lambda i: ("{s}", VB * i), lambda j: ("{m}", VB * j))
        # The block's columns in order. m_0 = 2^28 − 1, so the quotient
        # digit is the column's low digit, and adding q·m_0 = q·2^28 − q
        # leaves the carry (t >> 28) + q.
        for c in range(c0, c1):
            x = acc[c - c0]
            e(f"vpaddq {x}, {x}, {CARRY}")
            if c < N:
                e(f"{op('vpand')} {Q}, {x}, {MASK}")
                e(f"{op('vmovdqa')} [{{s}} + {VB * c}], {Q}")
                e(f"vpsrlq {CARRY}, {x}, 28")
                e(f"vpaddq {CARRY}, {CARRY}, {Q}")
                for later in range(c + 1, c1):
                    if later - c < N:
                        product(acc[later - c0], Q, f"[{{m}} + {VB * (later - c)}]")
            else:
                e(f"{op('vpand')} {T}, {x}, {MASK}")
                e(f"{op('vmovdqu')} [{{r}} + {VB * (c - N)}], {T}")
                e(f"vpsrlq {CARRY}, {x}, 28")
    e(f"{op('vmovdqu')} [{{r}} + {VB * (N - 1)}], {CARRY}")
    return out


def scratch_vectors(N):
    """The quotient digits, and 2a for the square."""
    return 2 * N


def signature(name, square):
    """The kernel's signature as rustfmt writes it: one line when it fits
    in 100 columns, else one parameter a line."""
    params = ["r: *mut u64", "a: *const u64"]
    params += [] if square else ["b: *const u64"]
    params += ["m: *const u64", "_k0: *const u64", "s: *mut u64"]
    line = f"unsafe fn {name}({', '.join(params)}) {{"
    if len(line) <= 100:
        return line
    return f"unsafe fn {name}(\n" + "".join(f"    {p},\n" for p in params) + ") {"


def rust_kernel(name, lines, square, N):
    body = "\n".join(f'            "{line}",' for line in lines)
    zmm = REG == "zmm"
    clobbers = "".join(f'            out("{REG}{i}") _,\n' for i in range(32 if zmm else 16))
    b_op = "" if square else "            b = in(reg) b,\n"
    what = "a²" if square else "a·b"
    reads = "a" if square else "a, b"
    lanes, feature = ("eight", "AVX-512F") if zmm else ("four", "AVX2")
    return f'''
/// {what}·2^(−{28 * N}) modulo m', {lanes} lanes of {N} digits (`_k0` unused: the
/// lowest digit of m' makes the quotient digits).
///
/// # Safety
/// The CPU has {feature}. `r`, `{reads}` and `m` point to {N} vectors of {lanes}
/// digits and `s` to {scratch_vectors(N)} vectors, {VB}-byte aligned; `r` does
/// not overlap the inputs; the operands meet the module's contract.
#[target_feature(enable = "{"avx512f" if zmm else "avx2"}")]
{signature(name, square)}
    // SAFETY: the caller's contract: the block reads {reads} and m,
    // reads and writes the scratch at s and writes r; it declares every
    // register it changes and uses no stack.
    unsafe {{
        core::arch::asm!(
{body}
            "vzeroupper",
            r = in(reg) r,
            a = in(reg) a,
{b_op}            m = in(reg) m,
            s = in(reg) s,
            mask = in(reg) (1u64 << 28) - 1,
            p = out(reg) _,
            q = out(reg) _,
            n = out(reg) _,
{clobbers}            options(nostack),
        );
    }}
}}
'''


def gas_kernel(name, lines, square):
    regs = {"r": "rdi", "a": "rsi", "b": "rdx", "m": "rcx", "k0": "r8", "s": "r9", "mask": "r10",
            "p": "r11", "q": "rax", "n": "r12"}
    if square:
        regs.update({"m": "rdx", "k0": "rcx", "s": "r8"})
    out = [f".globl {name}", f".type {name},@function", ".p2align 6", f"{name}:",
           "  push r12", "  mov r10, 0xfffffff"]
    for line in lines:
        for k, v in regs.items():
            line = line.replace("{" + k + "}", v)
        out.append("  " + line)
    out += ["  vzeroupper", "  pop r12", "  ret"]
    return "\n".join(out)


def use_zmm(width):
    """Makes the kernels that follow on zmm registers, `width` accumulators
    a block (`--zmm`)."""
    global VB, REG, W, MNEMONIC
    VB, REG, W = 64, "zmm", width
    MNEMONIC = {"vmovdqu": "vmovdqu64", "vmovdqa": "vmovdqa64", "vpxor": "vpxorq",
                "vpand": "vpandq"}


def main():
    gas = "--gas" in sys.argv
    if "--zmm" in sys.argv:
        use_zmm(int(sys.argv[sys.argv.index("--zmm") + 1]))
    kernels = []
    for N in SIZES:
        lanes = VB // 8
        kernels.append((f"amm_mb{lanes}_d{N}", kernel(N, False), False, N))
        kernels.append((f"ams_mb{lanes}_d{N}", kernel(N, True), True, N))
    if gas:
        print(".intel_syntax noprefix\n.text")
        for name, lines, square, _ in kernels:
            print(gas_kernel(name, lines, square))
        return
    feature = "AVX-512F (zmm)" if REG == "zmm" else "AVX2"
    print(f"//! The multi-buffer {feature} almost-Montgomery multiplications and squares.")
    print("//!")
    print("//! GENERATED by `tools/gen_mb_avx2_x86_64.py`; do not edit by hand (`.ci/run`")
    print("//! checks that this file matches the script). The script's docstring has")
    print("//! the algorithm, the layout and the contract.")
    print()
    print("use super::{AmmKernel, AmsKernel};")
    print()
    print("/// Scratch vectors the kernels for `digits` digits use.")
    print("pub(super) const fn scratch_vectors(digits: usize) -> usize {")
    print("    2 * digits")
    print("}")
    print()
    print("/// The multiplication and the square for `digits` digits, if there are")
    print("/// kernels for them.")
    print("pub(super) fn kernels(digits: usize) -> Option<(AmmKernel, AmsKernel)> {")
    print("    match digits {")
    for N in SIZES:
        print(f"        {N} => Some((amm_mb{VB // 8}_d{N}, ams_mb{VB // 8}_d{N})),")
    print("        _ => None,")
    print("    }")
    print("}")
    for name, lines, square, N in kernels:
        print(rust_kernel(name, lines, square, N), end="")


if __name__ == "__main__":
    sys.exit(main())
