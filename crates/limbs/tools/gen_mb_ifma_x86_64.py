#!/usr/bin/env python3
"""Generates the multi-buffer (8-lane) AVX-512 IFMA almost-Montgomery
multiplications and squares:

    python3 tools/gen_mb_ifma_x86_64.py > src/backend/x86_64_mb/gen/ifma.rs

(`.ci/run` checks that the file matches this script's output;
`--gas` prints the same kernels as GNU assembler functions with the
System V calling convention, for experiments outside the crate.)

For a digit count N (20, 30, 40 and 60: moduli of 1024, 1536, 2048 and
3072 bits), each lane k of eight computes

    r[k] = a[k] · b[k] · 2^(−52·N) mod m[k]   (below 2·m[k]),

with its digits normalised (each below 2^52), for a[k], b[k] below 2·m[k]
with digits below 2^52, 4·m[k] < 2^(52·N) and k0[k] = −m[k]⁻¹ mod 2^52: the
"almost" Montgomery multiplication (AMM) of Gueron and Krasnov. The square
computes the same for b = a.

# Layout

Element x is N vectors of eight 64-bit lanes: lane k of vector j is digit
j of x[k]. Every vector instruction does the same work for the eight
numbers, and nothing ever crosses lanes.

# The multiplication: two rows a pass

Operand scanning: row i adds a·b_i and m·q_i, q_i = lo52(t_i · k0) for the
lowest position t_i of the accumulator, so that the lowest position
becomes a multiple of 2^52 and retires (its carry moves up one position).
The accumulator's position p (relative to the row) lives in register
R[p] for p < H and in the scratch for p >= H, at the position's absolute
index (the scratch pointer advances with the rows, so a position never
moves in memory). Each pass of the loop does rows i and i + 1 at once:
the digit pair (a_j, m_j) is loaded once and feeds eight IFMA,

    lo(a_j b_i), lo(m_j q_i)          -> position j
    hi(a_j b_i), hi(m_j q_i),
    lo(a_j b_i+1), lo(m_j q_i+1)      -> position j + 1
    hi(a_j b_i+1), hi(m_j q_i+1)      -> position j + 2,

which keeps loads at a quarter of the IFMA, all of whose operands are
registers (an earlier version with memory operands ran slower on
Sapphire Rapids; the figure was not kept). Before the loop over j, the
two quotient digits: q_i from position 0, then position 1's terms of row
i and lo(a_0 b_i+1), then q_i+1, so that a pass's serial chain (about
17 cycles) is well below its IFMA work. The pass ends by moving every
register position down two (register moves, which the core renames) and
loading the two new top register positions from the scratch.

# The square

Two phases. The product: the 2N positions of a², by blocks of positions
held in registers: for each digit a_i loaded once, every product a_i a_j
(j > i) landing in the block, lo to position i + j and hi to i + j + 1;
then each position is doubled (vpaddq) and the diagonal lo/hi(a_i²)
added: N² + N IFMA where the multiplication's product takes 2N². The
positions go to the scratch. The reduction: the multiplication's passes
with the a·b terms left out, each position entering the window with the
product's value instead of zero. 3N² + 2N IFMA in all against 4N² + N.

A reduction pass has half the multiplication's IFMA, too few to hide
its quotient chain (q_i, q_i+1 and the low positions' terms: about 20
cycles) behind the other lanes' work when each pass starts with its
own. So the passes are software-pipelined: the next pass's quotients and
low terms are computed inside this pass, as soon as its positions 2 and
3 are complete (after digit 3), in two more registers; the loop runs
N/2 − 1 such passes and a last one without. The multiplication's
passes, with twice the IFMA, hide the chain as they are (pipelined, with
the four more registers that takes, they measured no faster).

# Normalisation

Positions are unnormalised 64-bit sums (below 2^62 for N <= 60). The
result's N positions are carried in order, each position's bits above 52
added to the next: a ripple in every lane at once (about 2N cycles,
against thousands for the products).

# Constant time

No branch or address depends on a value; the only loop runs N/2 passes.
IFMA, vector additions, shifts, logic and moves have data-independent
timing on the CPUs that have IFMA.
"""

import sys

VB = 64  # bytes per zmm

# Digit counts with kernels, and the register window of the accumulator
# (the rest is in the scratch). H >= N + 2 holds the whole window.
SIZES = {20: 22, 30: 21, 40: 21, 60: 21}


def zmm(i):
    return f"zmm{i}"


class Block:
    """Instructions with placeholders for the pointer operands."""

    def __init__(self):
        self.lines = []

    def __call__(self, line):
        self.lines.append(line)


def normalise(e, N, H, R, tmp, carry, mask, src_slot):
    """Carries the result's N positions (relative to {s}: slot p for p >= H)
    into 52-bit digits and stores them to {r}."""
    e(f"vpbroadcastq {mask}, {{mask}}")
    for j in range(N):
        if j < H:
            x = R[j]
        else:
            x = tmp
            e(f"vmovdqa64 {x}, [{{s}} + {src_slot(j)}]")
        if j > 0:
            e(f"vpaddq {x}, {x}, {carry}")
        if j < N - 1:
            e(f"vpsrlq {carry}, {x}, 52")
        e(f"vpandq {x}, {x}, {mask}")
        e(f"vmovdqu64 [{{r}} + {VB * j}], {x}")


def reduction_passes(e, N, H, with_a):
    """The N/2 passes of two rows. `with_a`: the multiplication (a·b terms
    and fresh positions start at zero); else the square's reduction
    (positions enter with the product's value, in the scratch), whose
    quotients are pipelined (see the module docstring)."""
    pipelined = not with_a
    R = [zmm(i) for i in range(H)]
    free = [zmm(i) for i in range(H, 32)]
    B0, B1 = (free.pop(0), free.pop(0)) if with_a else (None, None)
    Q0, Q1, T, A, M = (free.pop(0) for _ in range(5))
    K0 = free.pop(0)
    if pipelined:
        Q0n, Q1n = free.pop(0), free.pop(0)
    allreg = H >= N + 2
    X = [] if allreg else [free.pop(0) for _ in range(3)]
    e(f"vmovdqu64 {K0}, [{{k0}}]")

    def preamble(bs, Q0, Q1, B0, B1):
        """Rows i and i + 1's terms at positions bs .. bs + 3 below digit
        2, with their quotient digits into Q0 and Q1."""
        if with_a:
            e(f"vmovdqu64 {B0}, [{{b}} + {VB * bs}]")
            e(f"vmovdqu64 {B1}, [{{b}} + {VB * (bs + 1)}]")
            e(f"vmovdqu64 {A}, [{{a}}]")
        e(f"vmovdqu64 {M}, [{{m}}]")
        if with_a:
            e(f"vpmadd52luq {R[bs]}, {B0}, {A}")
        e(f"vpxorq {Q0}, {Q0}, {Q0}")
        e(f"vpmadd52luq {Q0}, {R[bs]}, {K0}")
        if with_a:
            e(f"vpmadd52huq {R[bs+1]}, {B0}, {A}")
            e(f"vpmadd52luq {R[bs+1]}, {B1}, {A}")
            e(f"vpmadd52huq {R[bs+2]}, {B1}, {A}")
        e(f"vpmadd52luq {R[bs]}, {Q0}, {M}")
        e(f"vpmadd52huq {R[bs+1]}, {Q0}, {M}")
        e(f"vpsrlq {T}, {R[bs]}, 52")
        if with_a:
            e(f"vmovdqu64 {A}, [{{a}} + {VB}]")
            e(f"vpmadd52luq {R[bs+1]}, {B0}, {A}")
        e(f"vmovdqu64 {M}, [{{m}} + {VB}]")
        e(f"vpmadd52luq {R[bs+1]}, {Q0}, {M}")
        e(f"vpaddq {R[bs+1]}, {R[bs+1]}, {T}")
        e(f"vpxorq {Q1}, {Q1}, {Q1}")
        e(f"vpmadd52luq {Q1}, {R[bs+1]}, {K0}")
        if with_a:
            e(f"vpmadd52huq {R[bs+2]}, {B0}, {A}")
            e(f"vpmadd52luq {R[bs+2]}, {B1}, {A}")
            e(f"vpmadd52huq {R[bs+3]}, {B1}, {A}")
        e(f"vpmadd52huq {R[bs+2]}, {Q0}, {M}")
        e(f"vmovdqu64 {A}, [{{m}}]")
        e(f"vpmadd52luq {R[bs+1]}, {Q1}, {A}")
        e(f"vpmadd52huq {R[bs+2]}, {Q1}, {A}")
        e(f"vpsrlq {T}, {R[bs+1]}, 52")
        e(f"vpmadd52luq {R[bs+2]}, {Q1}, {M}")
        e(f"vpmadd52huq {R[bs+3]}, {Q1}, {M}")
        e(f"vpaddq {R[bs+2]}, {R[bs+2]}, {T}")

    def body(next_pass):
        """A pass's digits 2 and up, and the move down two positions;
        `next_pass`: with the next pass's preamble inside."""
        live = {}
        turn = [0]

        def position(p):
            if p < H:
                return R[p]
            if p not in live:
                reg = X[turn[0] % len(X)]
                turn[0] += 1
                live[p] = reg
                if with_a and p >= N:
                    e(f"vpxorq {reg}, {reg}, {reg}")
                else:
                    e(f"vmovdqa64 {reg}, [{{s}} + {VB * p}]")
            return live[p]

        def complete(p):
            if p in live:
                e(f"vmovdqa64 [{{s}} + {VB * p}], {live.pop(p)}")

        # Positions >= H are in the scratch: a position is live from the
        # digit whose hi(·, b_i+1) reaches it to the digit whose lo(·, b_i)
        # completes it (three digits), so three registers rotate.
        for j in range(2, N):
            if with_a:
                e(f"vmovdqu64 {A}, [{{a}} + {VB * j}]")
            e(f"vmovdqu64 {M}, [{{m}} + {VB * j}]")
            if with_a:
                e(f"vpmadd52luq {position(j)}, {B0}, {A}")
            e(f"vpmadd52luq {position(j)}, {Q0}, {M}")
            complete(j)
            if with_a:
                e(f"vpmadd52huq {position(j + 1)}, {B0}, {A}")
                e(f"vpmadd52luq {position(j + 1)}, {B1}, {A}")
            e(f"vpmadd52huq {position(j + 1)}, {Q0}, {M}")
            e(f"vpmadd52luq {position(j + 1)}, {Q1}, {M}")
            if with_a:
                e(f"vpmadd52huq {position(j + 2)}, {B1}, {A}")
            e(f"vpmadd52huq {position(j + 2)}, {Q1}, {M}")
            if next_pass and j == 3:
                # Positions 2 and 3 are complete: the next pass's
                # quotients can start.
                preamble(2, Q0n, Q1n, None, None)
        for p in sorted(live):
            complete(p)
        # Move every register position down two; the two new top
        # register positions come from the scratch (or, in the
        # multiplication with the whole window in registers, start at
        # zero).
        for p in range(H - 2):
            e(f"vmovdqa64 {R[p]}, {R[p + 2]}")
        for p in (H - 2, H - 1):
            if allreg and with_a:
                e(f"vpxorq {R[p]}, {R[p]}, {R[p]}")
            else:
                e(f"vmovdqa64 {R[p]}, [{{s}} + {VB * (p + 2)}]")
        e(f"add {{s}}, {2 * VB}")
        if with_a:
            e(f"add {{b}}, {2 * VB}")
        if next_pass:
            e(f"vmovdqa64 {Q0}, {Q0n}")
            e(f"vmovdqa64 {Q1}, {Q1n}")

    if not pipelined:
        e(f"mov {{n}}, {N // 2}")
        e(".p2align 4")
        e("2:")
        preamble(0, Q0, Q1, B0, B1)
        body(False)
        e("dec {n}")
        e("jnz 2b")
    else:
        preamble(0, Q0, Q1, B0, B1)
        e(f"mov {{n}}, {N // 2 - 1}")
        e(".p2align 4")
        e("2:")
        body(True)
        e("dec {n}")
        e("jnz 2b")
        body(False)
    return R, [Q0, T, M]


def amm(N, H):
    """The multiplication (see the module docstring)."""
    e = Block()
    H = min(H, N + 2)
    for i in range(H):
        e(f"vpxorq {zmm(i)}, {zmm(i)}, {zmm(i)}")
    # The window's positions in the scratch start at zero too (those from
    # N on are zeroed as they enter).
    for p in range(H, N):
        e(f"vmovdqa64 [{{s}} + {VB * p}], {zmm(0)}")
    R, (tmp, carry, mask) = reduction_passes(e, N, H, with_a=True)
    # After N rows the scratch pointer has advanced N positions: relative
    # position p >= H is at {s} + 64p.
    normalise(e, N, H, R, tmp, carry, mask, lambda p: VB * p)
    return e.lines


def square_product(e, N):
    """Phase 1 of the square: positions 0 .. 2N−1 of a² (unnormalised), and
    zeros at 2N and 2N + 1, stored at {s} + 64p. Blocks of W positions from
    the bottom up: the reduction's first passes need the low positions, and
    can start while the top block's products finish."""
    W = 28
    ACC = [zmm(i) for i in range(W)]
    AI, AJ = zmm(W), zmm(W + 1)
    top = 2 * N
    blocks = [(lo, min(top, lo + W)) for lo in range(0, top, W)]
    for c0, c1 in blocks:
        width = c1 - c0
        acc = ACC[:width]
        for r in acc:
            e(f"vpxorq {r}, {r}, {r}")
        for i in range(N):
            first = max(i + 1, c0 - i - 1)
            last = min(N - 1, c1 - 1 - i)
            if first > last:
                continue
            e(f"vmovdqu64 {AI}, [{{a}} + {VB * i}]")
            for j in range(first, last + 1):
                e(f"vmovdqu64 {AJ}, [{{a}} + {VB * j}]")
                if c0 <= i + j < c1:
                    e(f"vpmadd52luq {acc[i + j - c0]}, {AI}, {AJ}")
                if c0 <= i + j + 1 < c1:
                    e(f"vpmadd52huq {acc[i + j + 1 - c0]}, {AI}, {AJ}")
        for c in range(c0, c1):
            x = acc[c - c0]
            e(f"vpaddq {x}, {x}, {x}")
            d = c // 2
            e(f"vmovdqu64 {AI}, [{{a}} + {VB * d}]")
            op = "vpmadd52luq" if c % 2 == 0 else "vpmadd52huq"
            e(f"{op} {x}, {AI}, {AI}")
            e(f"vmovdqa64 [{{s}} + {VB * c}], {x}")
    e(f"vpxorq {AI}, {AI}, {AI}")
    e(f"vmovdqa64 [{{s}} + {VB * top}], {AI}")
    e(f"vmovdqa64 [{{s}} + {VB * (top + 1)}], {AI}")


def ams(N, H):
    """The square (see the module docstring)."""
    e = Block()
    H = min(H, N + 2)
    square_product(e, N)
    for p in range(H):
        e(f"vmovdqa64 {zmm(p)}, [{{s}} + {VB * p}]")
    R, (tmp, carry, mask) = reduction_passes(e, N, H, with_a=False)
    normalise(e, N, H, R, tmp, carry, mask, lambda p: VB * p)
    return e.lines


def scratch_vectors(N):
    """Scratch the kernels use: 2N + 2 positions of the square's product
    (the multiplication's scratch positions fit in them)."""
    return 2 * N + 2


def signature(name, square):
    """The kernel's signature as rustfmt writes it: one line when it fits
    in 100 columns, else one parameter a line."""
    params = ["r: *mut u64", "a: *const u64"]
    params += [] if square else ["b: *const u64"]
    params += ["m: *const u64", "k0: *const u64", "s: *mut u64"]
    line = f"unsafe fn {name}({', '.join(params)}) {{"
    if len(line) <= 100:
        return line
    return f"unsafe fn {name}(\n" + "".join(f"    {p},\n" for p in params) + ") {"


def rust_kernel(name, lines, square, N):
    body = "\n".join(f'            "{line}",' for line in lines)
    clobbers = "".join(f'            out("zmm{i}") _,\n' for i in range(32))
    b_op = "" if square else "            b = inout(reg) b => _,\n"
    what = "a²" if square else "a·b"
    reads = "a" if square else "a, b"
    return f'''
/// {what}·2^(−{52 * N}) modulo m, eight lanes of {N} digits.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512IFMA. `r`, `{reads}` and `m` point to
/// {N} vectors of eight digits, `k0` to eight words and `s` to
/// {scratch_vectors(N)} vectors, all 64-byte aligned but `r`, `a`, `b`;
/// `r` does not overlap the inputs; the operands meet the module's
/// contract.
#[target_feature(enable = "avx512f,avx512ifma")]
{signature(name, square)}
    // SAFETY: the caller's contract: the block reads {reads}, m and k0,
    // reads and writes the scratch at s and writes r; it declares every
    // register it changes and uses no stack.
    unsafe {{
        core::arch::asm!(
{body}
            "vzeroupper",
            r = in(reg) r,
            a = in(reg) a,
{b_op}            m = in(reg) m,
            k0 = in(reg) k0,
            s = inout(reg) s => _,
            n = out(reg) _,
            mask = in(reg) (1u64 << 52) - 1,
{clobbers}            options(nostack),
        );
    }}
}}
'''


def gas_kernel(name, lines, square):
    regs = {"r": "rdi", "a": "rsi", "b": "rdx", "m": "rcx", "k0": "r8", "s": "r9",
            "n": "rax", "mask": "r10"}
    if square:
        regs.update({"m": "rdx", "k0": "rcx", "s": "r8"})
    out = [f".globl {name}", f".type {name},@function", ".p2align 6", f"{name}:",
           "  mov r10, 0xfffffffffffff"]
    for line in lines:
        for k, v in regs.items():
            line = line.replace("{" + k + "}", v)
        out.append("  " + line)
    out += ["  vzeroupper", "  ret"]
    return "\n".join(out)


def main():
    gas = "--gas" in sys.argv
    kernels = []
    for N, H in SIZES.items():
        kernels.append((f"amm_mb8_d{N}", amm(N, H), False, N))
        kernels.append((f"ams_mb8_d{N}", ams(N, H), True, N))
    if gas:
        print(".intel_syntax noprefix\n.text")
        for name, lines, square, _ in kernels:
            print(gas_kernel(name, lines, square))
        return
    print("//! The multi-buffer AVX-512 IFMA almost-Montgomery multiplications and")
    print("//! squares.")
    print("//!")
    print("//! GENERATED by `tools/gen_mb_ifma_x86_64.py`; do not edit by hand (`.ci/run`")
    print("//! checks that this file matches the script). The script's docstring has")
    print("//! the algorithm, the layout and the contract.")
    print()
    print("use super::{AmmKernel, AmsKernel};")
    print()
    print("/// Scratch vectors the kernels for `digits` digits use.")
    print("pub(super) const fn scratch_vectors(digits: usize) -> usize {")
    print("    2 * digits + 2")
    print("}")
    print()
    print("/// The multiplication and the square for `digits` digits, if there are")
    print("/// kernels for them.")
    print("pub(super) fn kernels(digits: usize) -> Option<(AmmKernel, AmsKernel)> {")
    print("    match digits {")
    for N in SIZES:
        print(f"        {N} => Some((amm_mb8_d{N}, ams_mb8_d{N})),")
    print("        _ => None,")
    print("    }")
    print("}")
    for name, lines, square, N in kernels:
        print(rust_kernel(name, lines, square, N), end="")


if __name__ == "__main__":
    sys.exit(main())
