#!/usr/bin/env python3
"""Generates the AVX2 almost-Montgomery multiplication kernels and their
dedicated squares:

    python3 tools/gen_avx2_x86_64.py > src/backend/x86_64_avx2/gen/amm.rs
    python3 tools/gen_avx2_x86_64.py --zmm > src/backend/x86_64_avx2/gen/amm_zmm.rs

(`.ci/run` checks that the files match this script's output; the second,
AVX-512F on 512-bit registers, is described above `zmm_kernel` below.)

One function per vector count V (a residue of up to 4V digits of 28 bits,
four 64-bit lanes to a 256-bit vector) and digit count N (4V, or one of the
shorter counts in TAILS). Each computes

    r = a · b · 2^(−28·N) mod m'   (below 2·m'),

for a, b below 2·m', m' ≡ −1 mod 2^28 (the caller multiplies the modulus
by −m⁻¹ mod 2^28, so that the Montgomery quotient digit is the low digit
itself), 4·m' < 2^(28·N), the digits of a, b and m' below 2^28 + 2^8 (m's
below 2^28) and zero from N to 4V. The result's digits are below
2^28 + 2^8: carried twice, not fully (the next multiplication takes them
as they are; the conversion out of the radix finishes the carry).

# Why radix 2^28 and AVX2

`vpmuludq` multiplies the low 32 bits of each 64-bit lane: four 32×32-bit
products an instruction, two instructions a cycle on AMD's Zen 3 and
Zen 4, against one 64×64-bit `mulx` every 1.3 cycles. With 28-bit digits a
lane holds a sum of 2N products of 56 bits without overflowing (N ≤ 126),
so products accumulate unnormalised and only the lowest position is
carried each iteration, in scalar code.

# Layout: digit j in vector j mod V, lane j div V

As in the 256-bit IFMA kernels (see `gen_ifma_x86_64.py`): moving every
position down one each iteration renames the accumulator's vectors and
shifts the lanes of only one (`vpermq`, then a mask clears the top lane);
the loop body is V iterations, an assembler macro invoked with the V
rotations of the slot numbers. AVX2 has 16 vector registers: up to 12
accumulator vectors live in registers, the rest in a scratch area
(`{acc}`), chosen inside the macro by `.if` on the slot number.

# An iteration (digit b_i of b)

- scalar: t = s + a0·b_i (s is the lowest position's exact value),
  q = t mod 2^28; since m'0 = 2^28 − 1, t + m'0·q carries (t >> 28) + q
  into position 1, whose new exact value is its accumulated lane, plus
  that carry, plus a1·b_i + m'1·q: s' = lane + (t >> 28) + a1·b_i +
  (m'1 + 1)·q. The lane is read before this iteration's vector work.
- vector: every logical vector v takes a_v·b_i + m'_v·q; logical vector 0
  then shifts down a lane (its lane 0, the retired position, drops out;
  the scalar s stands for it).

After N iterations s goes into position 0 and the accumulator is stored;
two carry passes over the stored vectors (each lane's bits above 28 move
one position up: vector v's to vector v + 1, the top vector's to vector 0
one lane up) bring every digit below 2^28 + 2^8.

# The dedicated square (AMS)

AMM with b = a, where each pair of digits of different classes (a class
being a digit's vector, j mod V) is multiplied once and doubled. Row i
(digit a_i, of class u = i mod V: static, as the loop body is V
iterations, so each class has its own code, chosen by `.if` on the macro's
parameter) multiplies a_i by vector u (the pairs of one class meet in both
of their rows, as in a·b) and 2·a_i by the vectors above u, and nothing of
a by the vectors below u, whose pairs with a_i the rows of lower class
took. Row i's product with digit j lands on position i + j whatever the
class order, no later than the iteration that retires it, so every
position has all its products in time and the quotients, and the result,
are AMM's. The scalar part adds the row's own products at the two lowest
positions: a0·a_i and 2·a1·a_i in class 0, a1·a_i in class 1, none above.
2·a_i (29 bits) fits `vpmuludq`'s 32, and a position sums the same
products as AMM's with b = a (each doubled pair standing for two), so no
lane holds more than in AMM. Of a's V products an iteration it keeps
V − u, (V + 1)/2 on average: about three quarters of AMM's `vpmuludq`.

Constant time: every loop count is public (the digit count), no branch or
address depends on a value, and `vpmuludq`, `imul` and the other
instructions used have data-independent timing.
"""

import sys

VB = 32  # bytes per ymm
REGISTER_SLOTS = 12  # accumulator vectors in registers; ymm12-15 are B, Q and two temporaries
RADIX_BITS = 28

# Vector counts: 10 (1024-bit moduli, N = 38 with m' = m·k0) to 26 (2880-bit
# moduli, N = 104). The loop body is V iterations of about 6V + 16
# instructions: past V = 26 it outgrows the 32 KiB instruction cache and
# the kernels fall behind the limb kernels (benches/RESULTS.md, "Zen 4");
# a lane would overflow past N = 126 in any case.
VECTORS = range(10, 27)
# Digit counts below 4V with a kernel of their own (the loop plus a tail),
# where running 4V digits would cost a measurable share: RSA-2048's CRT
# halves (16 limbs: 38 digits rather than 40). Every other size runs 4V.
TAILS = {10: [38]}

# The constant block a kernel reads at {consts} (offsets in bytes): m'1 + 1,
# the digit mask in four lanes, lanes 0-2 set, lanes 1-3 set.
C_M1 = 0
C_MASK = 32
C_LOW3 = 64
C_HIGH3 = 96


def loop(e, V, N, iteration):
    """⌊N/V⌋ groups of V iterations (digit gV + u of b is vector u, lane g:
    the b pointer moves one lane a group), then the tail; returns the tail's
    length (after it, logical vector v is slot (v + tail) % V)."""
    e('"2:"')
    for u in range(V):
        iteration(u)
    e('"add {b}, 8"')
    e('"dec {n}"')
    e('"jnz 2b"')
    tail = N % V
    for u in range(tail):
        iteration(u)
    return tail


def class_code(e, square):
    """The helpers a square's class-dependent code is written with:
    `when(cond, then, otherwise)` emits `then` (AMM: always; a square:
    under `.if cond`, `otherwise` under `.else`), and `square_only(cond,
    then)` emits `then` under `.if cond` in a square and nothing in AMM.
    `cond` tests the macro's class parameter `u`."""

    def when(cond, then, otherwise=None):
        if not square:
            then()
            return
        e(f'".if {cond}"')
        then()
        if otherwise:
            e('".else"')
            otherwise()
        e('".endif"')

    def square_only(cond, then):
        if square:
            when(cond, then)

    return when, square_only


def iteration_body(e, V, nreg, square, B, Q, T0, T1, xmm, slot_mem):
    """One iteration's instructions: AMM's or, for the dedicated square,
    those of a row of class u (the macro's parameter, tested by `.if`):
    a_i times vector u, 2·a_i times the vectors above u, nothing of a below
    u (see the module docstring)."""
    when, square_only = class_code(e, square)
    e('"mov rdx, [{b} + \\\\off]"')
    e(f'"vpbroadcastq {B}, qword ptr [{{b}} + \\\\off]"')

    # Scalar: t = s + the row's product at the lowest position (a0·b_i; in
    # a square, a0·a_i in rows of class 0 only).
    def lowest():
        e('"mov {t}, [{a}]"')
        e('"imul {t}, rdx"')
        e('"add {t}, {s}"')

    when("\\\\u == 0", lowest, lambda: e('"mov {t}, {s}"'))
    e('"mov {q}, {t}"')
    e('"and {q}, {mask}"')
    e(f'"vmovq {xmm(Q)}, {{q}}"')
    e(f'"vpbroadcastq {Q}, {xmm(Q)}"')
    e(f'"shr {{t}}, {RADIX_BITS}"')
    # Position 1's accumulated value: logical vector 1, lane 0.
    e(f'".if \\\\r1 < {nreg}"')
    e('"vmovq {s}, xmm\\\\r1"')
    e('".else"')
    e(f'"mov {{s}}, {slot_mem("r1")}"')
    e('".endif"')
    e('"add {s}, {t}"')

    # The row's product at position 1 (digit 1: vector 1, lane 0): a1·b_i;
    # in a square 2·a1·a_i in rows of class 0, a1·a_i in rows of class 1.
    def second():
        e(f'"imul rdx, [{{a}} + {VB}]"')
        square_only("\\\\u == 0", lambda: e('"add rdx, rdx"'))
        e('"add {s}, rdx"')

    when("\\\\u <= 1", second)
    e(f'"imul {{q}}, [{{consts}} + {C_M1}]"')
    e('"add {s}, {q}"')
    for v in range(V):
        p = f"r{v}"
        reg = f"ymm\\\\{p}"
        of_a = f"\\\\u <= {v}"

        def double():
            """In a square, B doubles after vector u's product."""
            if v < V - 1:
                square_only(f"\\\\u == {v}", lambda: e(f'"vpaddq {B}, {B}, {B}"'))

        e(f'".if \\\\{p} < {nreg}"')

        def product_in_register():
            e(f'"vpmuludq {T0}, {B}, [{{a}} + {VB * v}]"')
            e(f'"vpaddq {reg}, {reg}, {T0}"')
            double()

        when(of_a, product_in_register)
        e(f'"vpmuludq {T1}, {Q}, [{{m}} + {VB * v}]"')
        e(f'"vpaddq {reg}, {reg}, {T1}"')
        if v == 0:
            e(f'"vpermq {reg}, {reg}, 0x39"')
            e(f'"vpand {reg}, {reg}, [{{consts}} + {C_LOW3}]"')
        e('".else"')

        def products_in_scratch(acc):
            def run():
                if acc == T0:
                    e(f'"vpmuludq {T0}, {B}, [{{a}} + {VB * v}]"')
                    double()
                    e(f'"vpmuludq {T1}, {Q}, [{{m}} + {VB * v}]"')
                    e(f'"vpaddq {T0}, {T0}, {slot_mem(p)}"')
                    e(f'"vpaddq {T0}, {T0}, {T1}"')
                else:
                    e(f'"vpmuludq {T1}, {Q}, [{{m}} + {VB * v}]"')
                    e(f'"vpaddq {T1}, {T1}, {slot_mem(p)}"')
                if v == 0:
                    e(f'"vpermq {acc}, {acc}, 0x39"')
                    e(f'"vpand {acc}, {acc}, [{{consts}} + {C_LOW3}]"')
                e(f'"vmovdqa {slot_mem(p)}, {acc}"')

            return run

        when(of_a, products_in_scratch(T0), products_in_scratch(T1))
        e('".endif"')


def kernel(V, N, square=False):
    """AMM, or with `square` the dedicated square (b = a; see the module
    docstring)."""
    nreg = min(V, REGISTER_SLOTS)
    B, Q, T0, T1 = "ymm12", "ymm13", "ymm14", "ymm15"

    def xmm(reg):
        return "xmm" + reg[3:]

    out = []
    e = out.append
    for i in range(nreg):
        e(f'"vpxor xmm{i}, xmm{i}, xmm{i}"')
    e(f'"vpxor {xmm(T0)}, {xmm(T0)}, {xmm(T0)}"')
    for i in range(nreg, V):
        e(f'"vmovdqa [{{acc}} + {VB * (i - nreg)}], {T0}"')
    e('"xor {s:e}, {s:e}"')

    # One iteration: `off` is the byte offset of b_i from the loop's b
    # pointer, then (in a square) the class u of the iteration's digit, its
    # place in the group, then the slot of each logical vector (a register
    # number below REGISTER_SLOTS, else a scratch vector).
    name = "ams" if square else "amm"
    macro = f"avx2_{name}_step_y{V}_d{N}"
    params = (["u"] if square else []) + [f"r{v}" for v in range(V)]
    e(f'".macro {macro} off, {", ".join(params)}"')

    def slot_mem(p):
        return f"[{{acc}} + {VB} * \\\\{p} - {VB * nreg}]"

    iteration_body(e, V, nreg, square, B, Q, T0, T1, xmm, slot_mem)
    e('".endm"')

    def iteration(u):
        """Iteration u of a group of V: logical vector v is slot (v + u) % V."""
        slots = ", ".join(([str(u)] if square else []) + [str((v + u) % V) for v in range(V)])
        e(f'"{macro} {u * VB}, {slots}"')

    tail = loop(e, V, N, iteration)
    e(f'".purgem {macro}"')

    # Store in logical order (after the tail, logical vector v is slot
    # (v + tail) % V), position 0 from s.
    for v in range(V):
        slot = (v + tail) % V
        if slot < nreg:
            e(f'"vmovdqu [{{r}} + {VB * v}], ymm{slot}"')
        else:
            e(f'"vmovdqa {T0}, [{{acc}} + {VB * (slot - nreg)}]"')
            e(f'"vmovdqu [{{r}} + {VB * v}], {T0}"')
    e('"mov [{r}], {s}"')

    # Two carry passes over r: lanes below 2^64 → below 2^28 + 2^36 →
    # below 2^28 + 2^8. Vector v's carries go to vector v + 1, the top
    # vector's to vector 0 one lane up (its top lane's carry is zero: the
    # result is below 2m' < 2^(28N)).
    MASK, TOP, X, C = "ymm0", "ymm1", "ymm2", "ymm3"
    e(f'"vmovdqa {MASK}, [{{consts}} + {C_MASK}]"')
    for _ in range(2):
        e(f'"vmovdqu {TOP}, [{{r}} + {VB * (V - 1)}]"')
        e(f'"vpsrlq {TOP}, {TOP}, {RADIX_BITS}"')
        for v in range(V - 1, 0, -1):
            e(f'"vmovdqu {C}, [{{r}} + {VB * (v - 1)}]"')
            e(f'"vpsrlq {C}, {C}, {RADIX_BITS}"')
            e(f'"vpand {X}, {MASK}, [{{r}} + {VB * v}]"')
            e(f'"vpaddq {X}, {X}, {C}"')
            e(f'"vmovdqu [{{r}} + {VB * v}], {X}"')
        e(f'"vpermq {TOP}, {TOP}, 0x93"')
        e(f'"vpand {TOP}, {TOP}, [{{consts}} + {C_HIGH3}]"')
        e(f'"vpand {X}, {MASK}, [{{r}}]"')
        e(f'"vpaddq {X}, {X}, {TOP}"')
        e(f'"vmovdqu [{{r}}], {X}"')
    e('"vzeroupper"')

    name = f"{name}_y{V}_d{N}"
    lines = "\n".join(f"            {line}," for line in out)
    acc_use = "" if V > nreg else '            "/* no scratch vectors: {acc} */",\n'
    clobbers = "".join(f'            out("ymm{i}") _,\n' for i in range(16))
    what = "AMS (called with `b` equal to `a`)" if square else "AMM"
    return f'''
/// {what} of {N}-digit operands ({V} ymm vectors, strided; {max(V - nreg, 0)} accumulator vectors in scratch).
///
/// # Safety
/// The CPU has AVX2 and BMI2. `r`, `a`, `b` and `m` point to {4 * V}
/// digits each, `consts` to the 16 words of the module's constant block
/// (32-byte aligned), `acc` to {4 * max(V - nreg, 0)} words of scratch
/// (32-byte aligned), `r` overlaps none of the others, and `groups` is
/// {N // V}; the operands meet the contract of the module above.
#[target_feature(enable = "avx2,bmi2")]
unsafe fn {name}(
    r: *mut u64,
    a: *const u64,
    b: *const u64,
    m: *const u64,
    consts: *const u64,
    acc: *mut u64,
    groups: usize,
) {{
    // SAFETY: the caller's contract: the block reads a, b, m and consts,
    // reads and writes acc and r, all within the ranges above; it declares
    // every register it changes and uses no stack.
    unsafe {{
        core::arch::asm!(
{lines}
{acc_use}            r = in(reg) r,
            a = in(reg) a,
            b = inout(reg) b => _,
            m = in(reg) m,
            consts = in(reg) consts,
            acc = in(reg) acc,
            n = inout(reg) groups => _,
            mask = in(reg) (1u64 << {RADIX_BITS}) - 1,
            s = out(reg) _,
            t = out(reg) _,
            q = out(reg) _,
            out("rdx") _,
{clobbers}            options(nostack),
        );
    }}
}}
'''


def main():
    kernels = []
    for v in VECTORS:
        for digits in TAILS.get(v, []) + [4 * v]:
            kernels.append((v, digits))
    print("//! The AVX2 almost-Montgomery multiplications and squares, radix 2^28.")
    print("//!")
    print("//! GENERATED by `tools/gen_avx2_x86_64.py`; do not edit by hand (`.ci/run`")
    print("//! checks that this file matches the script). The script's docstring has")
    print("//! the algorithm, the layout and the contract.")
    print()
    print("use super::AmmKernel;")
    print()
    print("/// The kernel for `vectors` 256-bit vectors and `digits` digits, if")
    print("/// there is one.")
    print("pub(super) fn amm_kernel(vectors: usize, digits: usize) -> Option<AmmKernel> {")
    print("    match (vectors, digits) {")
    for v, d in kernels:
        print(f"        ({v}, {d}) => Some(amm_y{v}_d{d}),")
    print("        _ => None,")
    print("    }")
    print("}")
    print()
    print("/// The dedicated square for `vectors` 256-bit vectors and `digits`")
    print("/// digits, if there is one (called with `b` equal to `a`).")
    print("pub(super) fn ams_kernel(vectors: usize, digits: usize) -> Option<AmmKernel> {")
    print("    match (vectors, digits) {")
    for v, d in kernels:
        print(f"        ({v}, {d}) => Some(ams_y{v}_d{d}),")
    print("        _ => None,")
    print("    }")
    print("}")
    for v, d in kernels:
        print(kernel(v, d), end="")
    for v, d in kernels:
        print(kernel(v, d, square=True), end="")


# ---------------------------------------------------------------------------
# AVX-512F: the same algorithm on 512-bit registers, eight digits a vector
# (`--zmm`, written to gen/amm_zmm.rs).
#
# On Intel cores the loop above is bound by its serial chain, not by the
# multiplier: q_i goes to a vector (broadcast), through a `vpmuludq` and a
# `vpaddq` into position 1's lane, back to a general register (`vmovq`)
# and through the scalar additions to q_(i+1), about twenty cycles an
# iteration against some fourteen of vector work. 512-bit vectors halve
# the instructions a digit, and AVX-512's 32 registers hold the
# accumulators of two multiplications (a CRT pair's, modulo two moduli),
# whose iterations interleave so that one's vector work fills the other's
# chain (where the chain is the bound: llvm-mca's Skylake-SP to Ice Lake
# models; on Sapphire Rapids the 512-bit multiplier bounds both forms).
# The differences from the AVX2 kernels:
# - every accumulator vector lives in a register (no scratch area);
# - the lane shift is one `valignq` with a zero register (no mask);
# - the constant block is K words m'_1 + 1 (one per multiplication) and
#   the digit mask, with no lane masks;
# - the second multiplication's operands, modulus and result are at the
#   first's plus 8V words (the caller's layout of a pair).
# The contract is otherwise the one above, with 8V for 4V.

ZB = 64  # bytes per zmm
ZMM_LANES = 8
# Vector counts: 5 (1024-bit moduli) to 13 (104 digits, the AVX2 kernels'
# largest); two interleaved multiplications up to 12, whose accumulators,
# operand broadcasts and temporaries fill the 32 registers.
ZMM_VECTORS = range(5, 14)
ZMM_PAIR_MAX_VECTORS = 12
# Digit counts below 8V with a kernel of their own: RSA-2048's and
# RSA-4096's CRT halves (38 and 75 digits rather than 40 and 80).
ZMM_TAILS = {5: [38], 10: [75]}


def zmm_kernel(V, N, K, square=False):
    """AMM of K independent multiplications of N digits, V zmm vectors each,
    or with `square` the dedicated square (b = a), as the AVX2 kernels'."""
    acc = [[k * V + v for v in range(V)] for k in range(K)]
    B = [K * V + 3 * k for k in range(K)]
    Q = [K * V + 3 * k + 1 for k in range(K)]
    T = [K * V + 3 * k + 2 for k in range(K)]
    ZERO = K * V + 3 * K
    assert ZERO < 32
    stride = ZB * V  # bytes from one multiplication's vectors to the next's
    regs = [("s0", "t0", "q0"), ("s1", "t1", "q1")][:K]

    out = []
    e = out.append
    for k in range(K):
        for v in range(V):
            e(f'"vpxord zmm{acc[k][v]}, zmm{acc[k][v]}, zmm{acc[k][v]}"')
        e(f'"xor {{{regs[k][0]}:e}}, {{{regs[k][0]}:e}}"')
    e(f'"vpxord zmm{ZERO}, zmm{ZERO}, zmm{ZERO}"')

    # One iteration: `off` is the byte offset of b_i from the loop's b
    # pointer, then (in a square) the class of the iteration's digit, then
    # the register of each logical vector, multiplication by multiplication.
    name = "ams" if square else "amm"
    macro = f"avx512_{name}_step_z{V}_x{K}_d{N}"
    params = (["u"] if square else []) + [f"r{k}_{v}" for k in range(K) for v in range(V)]
    e(f'".macro {macro} off, {", ".join(params)}"')

    when, square_only = class_code(e, square)
    for k in range(K):
        s, t, q = (f"{{{x}}}" for x in regs[k])
        base = k * stride
        # b_i's broadcast from memory takes a load port, not a vector port.
        e(f'"vpbroadcastq zmm{B[k]}, qword ptr [{{b}} + {base} + \\\\off]"')
        # The row's product at the lowest position (in a square, in rows of
        # class 0 only: a0·a_i).
        def lowest():
            e(f'"mov {t}, [{{b}} + {base} + \\\\off]"')
            e(f'"imul {t}, [{{a}} + {base}]"')
            e(f'"add {t}, {s}"')

        when("\\\\u == 0", lowest, lambda: e(f'"mov {t}, {s}"'))
        e(f'"mov {q}, {t}"')
        e(f'"and {q}, [{{consts}} + {8 * K}]"')
        e(f'"vpbroadcastq zmm{Q[k]}, {q}"')
        e(f'"shr {t}, {RADIX_BITS}"')
        # Position 1's accumulated value: logical vector 1, lane 0, read
        # before this iteration's vector work.
        e(f'"vmovq {s}, xmm\\\\r{k}_1"')
        e(f'"add {s}, {t}"')

        def second():
            """The row's product at position 1 (vector 1, lane 0): a1·b_i;
            in a square 2·a1·a_i in rows of class 0, a1·a_i in class 1."""
            e(f'"mov {t}, [{{b}} + {base} + \\\\off]"')
            e(f'"imul {t}, [{{a}} + {base} + {ZB}]"')
            square_only("\\\\u == 0", lambda: e(f'"add {t}, {t}"'))
            e(f'"add {s}, {t}"')

        when("\\\\u <= 1", second)
        e(f'"imul {q}, [{{consts}} + {8 * k}]"')
        e(f'"add {s}, {q}"')
    # The vector work, the multiplications' alternating, b_i's products
    # (ready first) before q_i's, and of those first logical vector 2's,
    # whose lane the next iteration reads: the loop-carried chain goes
    # through it, and the scheduler issues the oldest first.
    # In a square, vector u takes a_i and the vectors above 2·a_i (B
    # doubled after vector u's product); those below nothing of a.
    def double():
        for k in range(K):
            e(f'"vpaddq zmm{B[k]}, zmm{B[k]}, zmm{B[k]}"')

    for v in range(V):

        def products(v=v):
            for k in range(K):
                reg = f"zmm\\\\r{k}_{v}"
                e(f'"vpmuludq zmm{T[k]}, zmm{B[k]}, [{{a}} + {k * stride + ZB * v}]"')
                e(f'"vpaddq {reg}, {reg}, zmm{T[k]}"')
            if v < V - 1:
                square_only(f"\\\\u == {v}", double)

        when(f"\\\\u <= {v}", products)
    for v in [2] + [v for v in range(V) if v != 2]:
        for k in range(K):
            reg = f"zmm\\\\r{k}_{v}"
            e(f'"vpmuludq zmm{T[k]}, zmm{Q[k]}, [{{m}} + {k * stride + ZB * v}]"')
            e(f'"vpaddq {reg}, {reg}, zmm{T[k]}"')
            if v == 0:
                # Position 0 retires: shift logical vector 0 down a lane.
                e(f'"valignq {reg}, zmm{ZERO}, {reg}, 1"')
    e('".endm"')

    def iteration(u):
        """Iteration u of a group of V: logical vector v is slot (v + u) % V."""
        slots = [str(acc[k][(v + u) % V]) for k in range(K) for v in range(V)]
        e(f'"{macro} {u * ZB}, {", ".join(([str(u)] if square else []) + slots)}"')

    tail = loop(e, V, N, iteration)
    e(f'".purgem {macro}"')

    # Store in logical order, position 0 from s, then two carry passes (as
    # in the AVX2 kernels; the top vector's carries go to vector 0 one lane
    # up: `valignq` with the zero register).
    for k in range(K):
        for v in range(V):
            e(f'"vmovdqu64 [{{r}} + {k * stride + ZB * v}], zmm{acc[k][(v + tail) % V]}"')
        e(f'"mov [{{r}} + {k * stride}], {{{regs[k][0]}}}"')
    MASK, TOP, X, C = "zmm0", "zmm1", "zmm2", "zmm3"
    e(f'"vpbroadcastq {MASK}, qword ptr [{{consts}} + {8 * K}]"')
    for k in range(K):
        base = k * stride
        for _ in range(2):
            e(f'"vmovdqu64 {TOP}, [{{r}} + {base + ZB * (V - 1)}]"')
            e(f'"vpsrlq {TOP}, {TOP}, {RADIX_BITS}"')
            for v in range(V - 1, 0, -1):
                e(f'"vmovdqu64 {C}, [{{r}} + {base + ZB * (v - 1)}]"')
                e(f'"vpsrlq {C}, {C}, {RADIX_BITS}"')
                e(f'"vpandq {X}, {MASK}, [{{r}} + {base + ZB * v}]"')
                e(f'"vpaddq {X}, {X}, {C}"')
                e(f'"vmovdqu64 [{{r}} + {base + ZB * v}], {X}"')
            e(f'"valignq {TOP}, {TOP}, zmm{ZERO}, 7"')
            e(f'"vpandq {X}, {MASK}, [{{r}} + {base}]"')
            e(f'"vpaddq {X}, {X}, {TOP}"')
            e(f'"vmovdqu64 [{{r}} + {base}], {X}"')
    e('"vzeroupper"')

    name = f"{name}_z{V}_x{K}_d{N}"
    lines = "\n".join(f"            {line}," for line in out)
    scalars = "".join(f"            {x} = out(reg) _,\n" for k in range(K) for x in regs[k])
    clobbers = "".join(f'            out("zmm{i}") _,\n' for i in range(32))
    which = "one multiplication" if K == 1 else f"{K} interleaved multiplications"
    what = "AMS (called with `b` equal to `a`)" if square else "AMM"
    return f'''
/// {what} of {N}-digit operands ({V} zmm vectors, strided), {which}.
///
/// # Safety
/// The CPU has AVX-512F. `r`, `a`, `b` and `m` point to {K} × {8 * V}
/// digits each (multiplication k's at k × {8 * V}), `consts` to the
/// {K + 1} words of the module's constant block, `r` overlaps none of the
/// others, and `groups` is {N // V}; the operands meet the contract of the
/// module above.
#[target_feature(enable = "avx512f")]
unsafe fn {name}(
    r: *mut u64,
    a: *const u64,
    b: *const u64,
    m: *const u64,
    consts: *const u64,
    groups: usize,
) {{
    // SAFETY: the caller's contract: the block reads a, b, m and consts and
    // writes r, all within the ranges above; it declares every register it
    // changes and uses no stack.
    unsafe {{
        core::arch::asm!(
{lines}
            r = in(reg) r,
            a = in(reg) a,
            b = inout(reg) b => _,
            m = in(reg) m,
            consts = in(reg) consts,
            n = inout(reg) groups => _,
{scalars}{clobbers}            options(nostack),
        );
    }}
}}
'''


def main_zmm():
    kernels = []
    for v in ZMM_VECTORS:
        for digits in ZMM_TAILS.get(v, []) + [ZMM_LANES * v]:
            for k in (1, 2):
                if k == 1 or v <= ZMM_PAIR_MAX_VECTORS:
                    kernels.append((v, digits, k))
    print("//! The AVX-512F almost-Montgomery multiplications and squares, radix 2^28.")
    print("//!")
    print("//! GENERATED by `tools/gen_avx2_x86_64.py --zmm`; do not edit by hand")
    print("//! (`.ci/run` checks that this file matches the script). The script has")
    print("//! the algorithm, the layout and the contract.")
    print()
    print("use super::ZmmKernel;")
    print()
    print("/// The kernel for `vectors` 512-bit vectors, `digits` digits and")
    print("/// `interleave` multiplications at once, if there is one.")
    print("pub(super) fn amm_kernel(vectors: usize, digits: usize, interleave: usize) -> Option<ZmmKernel> {")
    print("    match (vectors, digits, interleave) {")
    for v, d, k in kernels:
        print(f"        ({v}, {d}, {k}) => Some(amm_z{v}_x{k}_d{d}),")
    print("        _ => None,")
    print("    }")
    print("}")
    print()
    print("/// The dedicated square for the same, if there is one (called with `b`")
    print("/// equal to `a`).")
    print("pub(super) fn ams_kernel(vectors: usize, digits: usize, interleave: usize) -> Option<ZmmKernel> {")
    print("    match (vectors, digits, interleave) {")
    for v, d, k in kernels:
        print(f"        ({v}, {d}, {k}) => Some(ams_z{v}_x{k}_d{d}),")
    print("        _ => None,")
    print("    }")
    print("}")
    for v, d, k in kernels:
        print(zmm_kernel(v, d, k), end="")
    for v, d, k in kernels:
        print(zmm_kernel(v, d, k, square=True), end="")


if __name__ == "__main__":
    sys.exit(main_zmm() if sys.argv[1:] == ["--zmm"] else main())
