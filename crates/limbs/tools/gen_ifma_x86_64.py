#!/usr/bin/env python3
"""Generates the 256-bit (ymm) AVX-512 IFMA almost-Montgomery multiplication
kernels, and dedicated squares:

    python3 tools/gen_ifma_x86_64.py > src/backend/x86_64_ifma/gen/ymm.rs

(`.ci/run` checks that the file matches this script's output.)

One function per vector count V, interleave K (K independent
multiplications in one loop, each with its own modulus) and digit count
N (4V, or one of the shorter counts in TAILS). Each computes, for k < K,

    r[k] = a[k] · b[k] · 2^(−52·N) mod m[k]   (below 2·m[k]),

with the digits normalised (each below 2^52), for a[k], b[k] below 2·m[k],
4·m[k] < 2^(52·N), k0[k] = −m[k]⁻¹ mod 2^52, and the digits of a[k] and
m[k] from N to 4V zero. This is Gueron and Krasnov's AMM, as OpenSSL's
and AWS-LC's `rsaz-*k-avx512` compute it.

# Layout: digit j in vector j mod V, lane j div V

Operands, moduli and results are held "strided": vector v holds digits
v, v + V, v + 2V, v + 3V. The loop runs once per digit b_i of b (operand
scanning) and keeps the accumulator in V registers, position p (relative
to the digit being retired) in logical vector p mod V, lane p div V. Each
iteration ends by moving every position down one, which in this layout
is a renaming of registers (logical vector v + 1 becomes v) for all but
logical vector 0, whose lanes shift down one (a single `valignq`; its
lane 0, the retired position, drops out). OpenSSL's and AWS-LC's
contiguous layout shift every vector instead (V `valignq` an iteration,
which compete with IFMA for the vector ports). The renaming repeats every
V iterations, so the loop body is V iterations, written once as an
assembler macro (`.macro`, removed again with `.purgem`) invoked with the
V rotations of the register names; N − V·⌊N/V⌋ further iterations follow
the loop when V does not divide N.

# An iteration

- scalar (general-purpose registers), `q_i` and the lowest position, with
  a look-ahead: the position that will be lowest next (logical vector 1,
  lane 0) is read before this iteration's vector work, and this
  iteration's contributions to it (lo(a1·b_i), lo(m1·q_i) and the carry
  out of the lowest position) are added in scalar code, so no vector
  latency sits between one q and the next;
- vector: lo(a·b_i) and lo(m·q_i) accumulate into the logical vectors,
  logical vector 0 shifts down a lane (the renaming does the rest), then
  hi(a·b_i) and hi(m·q_i) accumulate into the renamed vectors (the high
  halves belong one position up). Style "A" accumulates inside the IFMA
  instructions (fewest instructions: the right choice when two
  multiplications interleave and the core is throughput-bound); style "T"
  sums the high halves in a fresh register and adds it after the shift,
  which shortens the loop-carried chain (the right choice for a lone
  multiplication, which is latency-bound). Style "V" (two interleaved
  multiplications, a backend of its own) has no scalar work at all:
  q_i = lo52(t_i·k0) by one IFMA on logical vector 0 (lane 0 holds the
  lowest position), broadcast to every lane, and the retired position's
  carry added to position 1 in the vector before the shift. The loop-carried chain is longer (IFMA, broadcast, IFMA, shift,
  add: about 17 cycles) but two interleaved multiplications hide it, and
  the scalar path's `mulx`, `imul` and `vmovq`, which share ports 0 and 1
  with IFMA on Intel, are gone.

As many vectors of a and m as fit stay in registers; the rest are read
from memory once per use. The final normalisation carries every lane
into 52 bits: one pass moves each lane's bits above 52 one position up,
then a carry-lookahead over the lane masks (`((g << 1) + p) ^ p`, the
masks gathered into position order with `pdep` and scattered back with
`pext`) adds the last carries without a ripple.

# The dedicated square (AMS): pairs of 5 to 12 vectors, lone operands of 9 to 16

AMM runs 4V IFMA an iteration for each element, half of them for a·b_i; a
square needs about half of those. Row i (digit a_i, of class u = i mod V)
meets vector v (digits v, v + V, v + 2V, v + 3V) at positions i + v + lV,
lane l. Each pair of digits of different classes is taken once, in the row
of the lower class, doubled; a pair of the same class meets in both rows,
as a·b would have it. So row i multiplies a_i by vector u and d_i by the
vectors above u, where d_i = 2·a_i mod 2^52 + t_(i−1) is the doubled digit
with t_j, the bit 2·a_j carries out, carried in from the row before (digit
i − 1 is the same lane of vector u − 1; none for class 0, whose row before,
of class V − 1, doubles nothing). What t_(i−1) adds to the classes above u
is what row i − 1 lost from them; its part at class u is added back as
vector u, masked by t_(i−1), one vector a row. (a < 2m < 2^(52N − 1), so the
top digit carries nothing out.)

- **One loop** (pairs of 5 to 12 vectors, lone operands of 9 to 16): AMM's
  loop, style A, where the iteration of class u (static: the loop body is V
  iterations) takes the products of a_i and d_i for vectors u to V − 1 only,
  adds the masked vector u, and adds in scalar code the row's part at the
  two lowest positions (class 0: a0·a_i and lo(a1·d_i); class 1: lo(a1·a_i)
  and a1 masked by t_(i−1)). Every position has all its products by the
  iteration that retires it, so the quotients, and the result, are AMM's. A
  prologue writes a (whose digits the loop broadcasts through its
  lane-moving pointer), d and the masks −t_(i−1) to the scratch.
  2(V − u) + 2V IFMA an iteration, 3V + 1 on average, against 4V; the
  reduction's serial chain stays hidden behind the products as in AMM. A
  lone operand's AMM is style T, whose chain is shorter: below 9 vectors,
  where a lone loop is latency-bound, `llvm-mca`'s Intel models put it
  ahead of the square (Zen 4 measures the square 4 to 6 % ahead).
- **Two phases** (pairs of 10 to 12 vectors), over the scratch. Phase 1, one
  element at a time: a² as "columns": row i times vector v adds to column
  vector c = i + v, whose lanes are positions c, c + V, c + 2V, c + 3V (a
  position sits in up to four columns; the sum is what counts). A row's low
  and high products go to two windows of V + 1 column vectors (two chains,
  half as long), which rotate through registers; column i is complete after
  row i and is stored. Phase 2, the K elements together: the reduction,
  style A without the products of b (2V IFMA an iteration); the accumulator
  starts as columns 0 to V − 1, and after iteration i's shift the position
  that enters at the top belongs to column i + V, whose other lanes are the
  positions the logical vector holds, so the column is added whole. The same
  IFMA count as one loop, scheduled otherwise: on Zen 4 it is the faster
  from 10 vectors, the one loop below that (benches/RESULTS.md,
  "zen4-one-loop-squares"), where `llvm-mca`'s Intel models put the one
  loop ahead at every size; at 5 and 6 vectors its reduction, alone, is a
  serial chain longer than its products. Pairs of 10 to 12 vectors have
  both forms (the two phases' names end in `_2p`); which one runs is the
  CPU's, a datum of the selection (`backend::preference`).

Constant time: every loop count is public (the digit count), no branch or
address depends on a value, and IFMA, mulx, imul, pdep, pext, bt, sbb
and the vector operations used have data-independent timing on the CPUs
that have IFMA, masked ones included (the square's masks come from its
digits' top bits, the normalisation's from its carries: either selects
lanes, never a path).
"""

import sys

LANES = 4  # 64-bit lanes per ymm
VB = 32    # bytes per ymm

# (V, K) -> style, chosen by measurement on Zen 4 (benches/RESULTS.md).
VECTORS = range(5, 17)
STYLE = {}
for v in VECTORS:
    STYLE[(v, 1)] = "T"
    if v <= 12:
        STYLE[(v, 2)] = "A"
# Pairs also in style V, a backend of their own
# (`Exponentiation::Ifma256VectorQuotient`) which the selection ranks per
# CPU: it wins where scalar work shares the IFMA ports (Sapphire Rapids),
# loses where it does not (Zen's models).
VECTOR_QUOTIENT = [v for v in VECTORS if v <= 12]

# Digit counts below 4V with a kernel of their own (the loop plus a tail),
# where running 4V digits would cost a measurable share: RSA-3072's CRT
# halves (24 limbs, 30 digits rather than 32). Every other size runs 4V.
TAILS = {8: [30]}

# Dedicated squares (AMS) for pairs in style A, in one loop, and from 10
# vectors in two phases too (measured faster on Zen 4 there, modelled
# slower on Intel: benches/RESULTS.md, "zen4-one-loop-squares"). The
# scratch holds, per element, for one loop: a, the doubled digits and the
# rows' masks (3V vectors); for two phases: the square's columns (at most
# 5V vectors) and the doubled digits (V).
ONE_LOOP_SQUARES = range(5, 13)
TWO_PHASE_SQUARES = range(10, 13)
# Lone squares (K = 1), in one loop, from 9 vectors (benches/RESULTS.md,
# "zen4-single-squares": measured on Zen 4, modelled for Intel).
SINGLE_SQUARES = range(9, 17)
PRODUCT_VECTORS = 5
SCRATCH_VECTORS = PRODUCT_VECTORS + 1


def xmm(reg):
    """The 128-bit name of a ymm register (for `vmovq` and zeroing)."""
    return "xmm" + reg[3:]


def kernel(V, K, style, digits):
    stride = V * VB  # bytes per element
    vec = iter(range(32))
    R = [[f"ymm{next(vec)}" for _ in range(V)] for _ in range(K)]
    B = [f"ymm{next(vec)}" for _ in range(K)]
    Q = [f"ymm{next(vec)}" for _ in range(K)]
    temps = []
    if style == "T":
        temps = [f"ymm{next(vec)}" for _ in range(4)]
    if style == "V":
        temps = [f"ymm{next(vec)}"]
    resident = resident_operands(vec, V, K)
    operand = operands(resident, stride)

    tcount = [0]

    def temp():
        r = temps[tcount[0] % len(temps)]
        tcount[0] += 1
        return r

    S = [f"{{s{k}}}" for k in range(K)]
    out = []
    e = out.append
    shift_masks(e)
    for k in range(K):
        for v in range(V):
            e(f'"vpxord {xmm(R[k][v])}, {xmm(R[k][v])}, {xmm(R[k][v])}"')
        if style != "V":
            e(f'"xor {S[k]}, {S[k]}"')
    load_resident(e, resident, stride)

    # One iteration, as a macro: `off` is the byte offset of b_i within its
    # element (from the loop's b pointer), then the register numbers of the
    # logical vectors 0..V-1 of each multiplication.
    macro = f"amm_step_y{V}_x{K}_d{digits}"
    params = [[f"r{k}_{v}" for v in range(V)] for k in range(K)]
    e(f'".macro {macro} off, {", ".join(p for ps in params for p in ps)}"')
    for k in range(K):
        o = k * stride

        def P(v, k=k):
            """Logical vector v (this iteration's positions)."""
            return f"ymm\\\\{params[k][v % V]}"

        def N(v):
            """Logical vector v after the shift."""
            return P(v + 1)

        shift = f'"valignq {P(0)}{{{{k1}}}}{{{{z}}}}, {P(0)}, {P(0)}, 1"'
        if style == "V":
            # The quotient in the vector unit: q_i = lo52(t_i·k0) from
            # position 0 (logical vector 0, lane 0), broadcast; the retired
            # position's carry goes to position 1 (logical vector 1, lane
            # 0) before the shift. No scalar work.
            e(f'"vpbroadcastq {B[k]}, qword ptr [{{b}} + {o} + \\\\off]"')
            for v in range(V):
                e(f'"vpmadd52luq {P(v)}, {B[k]}, {operand("a", k, v)}"')
            for v in range(V - 1):
                e(f'"vpmadd52huq {N(v)}, {B[k]}, {operand("a", k, v)}"')
            t = temp()
            e(f'"vpxord {xmm(t)}, {xmm(t)}, {xmm(t)}"')
            e(f'"vpmadd52luq {t}, {P(0)}, qword ptr [{{k0}} + {8 * k}]{{{{1to4}}}}"')
            e(f'"vpbroadcastq {Q[k]}, {xmm(t)}"')
            for v in range(V):
                e(f'"vpmadd52luq {P(v)}, {Q[k]}, {operand("m", k, v)}"')
            e(f'"vpmadd52huq {N(0)}, {Q[k]}, {operand("m", k, 0)}"')
            e(f'"vpsrlq {t}, {P(0)}, 52"')
            e(f'"vpaddq {N(0)}{{{{k2}}}}, {N(0)}, {t}"')
            e(shift)
            e(f'"vpmadd52huq {N(V - 1)}, {B[k]}, {operand("a", k, V - 1)}"')
            for v in range(1, V):
                e(f'"vpmadd52huq {N(v)}, {Q[k]}, {operand("m", k, v)}"')
            continue
        e(f'"mov rdx, [{{b}} + {o} + \\\\off]"')
        e(f'"vpbroadcastq {B[k]}, qword ptr [{{b}} + {o} + \\\\off]"')
        # Scalar: t = s + a0·b_i; q = t·k0 mod 2^52; the next lowest position
        # s' = (t + m0·q) / 2^52 + its accumulated value + lo(a1·b_i) +
        # lo(m1·q). Digit 1 is vector 1, lane 0.
        e(f'"mulx {{hi}}, {{lo}}, [{{a}} + {o}]"')
        e(f'"mulx {{q}}, {{t}}, [{{a}} + {o + VB}]"')
        e(f'"add {{lo}}, {S[k]}"')
        e('"adc {hi}, 0"')
        e('"mov {q}, {lo}"')
        e(f'"imul {{q}}, [{{k0}} + {8 * k}]"')
        e('"and {q}, {mask}"')
        e('"and {t}, {mask}"')
        e(f'"vpbroadcastq {Q[k]}, {{q}}"')
        e('"mov rdx, {q}"')
        e(f'"mulx {S[k]}, {{q}}, [{{m}} + {o}]"')
        e('"add {lo}, {q}"')
        e(f'"adc {{hi}}, {S[k]}"')
        e('"shrd {lo}, {hi}, 52"')
        e(f'"mulx {{hi}}, rdx, [{{m}} + {o + VB}]"')
        e('"add {t}, {lo}"')
        e('"and rdx, {mask}"')
        e(f'"vmovq {S[k]}, {xmm(P(1))}"')
        e(f'"add {S[k]}, {{t}}"')
        e(f'"add {S[k]}, rdx"')
        if style == "A":
            # The products of b_i first (b is known before q), those of q_i
            # after; logical vector 0 takes its low halves, then shifts,
            # then takes the high halves that land on it after the shift.
            for v in range(V):
                e(f'"vpmadd52luq {P(v)}, {B[k]}, {operand("a", k, v)}"')
            for v in range(V - 1):
                e(f'"vpmadd52huq {N(v)}, {B[k]}, {operand("a", k, v)}"')
            for v in range(V):
                e(f'"vpmadd52luq {P(v)}, {Q[k]}, {operand("m", k, v)}"')
            e(shift)
            e(f'"vpmadd52huq {N(V - 1)}, {B[k]}, {operand("a", k, V - 1)}"')
            for v in range(V):
                e(f'"vpmadd52huq {N(v)}, {Q[k]}, {operand("m", k, v)}"')
        else:
            for v in range(V):
                oa = resident.get(("a", k, v))
                if oa is None:
                    oa = temp()
                    e(f'"vmovdqu64 {oa}, [{{a}} + {o + v * VB}]"')
                om = resident.get(("m", k, v))
                if om is None:
                    om = temp()
                    e(f'"vmovdqu64 {om}, [{{m}} + {o + v * VB}]"')
                e(f'"vpmadd52luq {P(v)}, {B[k]}, {oa}"')
                e(f'"vpmadd52luq {P(v)}, {Q[k]}, {om}"')
                high = temp()
                e(f'"vpxord {xmm(high)}, {xmm(high)}, {xmm(high)}"')
                e(f'"vpmadd52huq {high}, {B[k]}, {oa}"')
                e(f'"vpmadd52huq {high}, {Q[k]}, {om}"')
                if v == 0:
                    e(shift)
                e(f'"vpaddq {N(v)}, {N(v)}, {high}"')
    e('".endm"')

    # The loop: ⌊N/V⌋ groups of V iterations (digit gV + u of b is vector u,
    # lane g: the b pointer moves one lane a group); then the tail.
    tail = rotated_loop(e, macro, R, digits, lambda u: u * VB, '"lea {b}, [{b} + 8]"')

    normalise(e, R, S, V, K, tail, style != "V")
    e('"vzeroupper"')

    name = kernel_name(V, K, style, digits)
    lines = "\n".join(f"            {line}," for line in out)
    temporaries = asm_temporaries(K if style != "V" else 0, 5)
    return f'''
/// AMM of {K} pair{"s" if K > 1 else ""} of {digits}-digit operands ({V} ymm vectors each, strided), style {style}.
///
/// # Safety
/// The CPU has AVX-512F, AVX-512VL, AVX-512IFMA and BMI2. `a`, `b`, `m`
/// and `r` point to {K} elements of {4 * V} digits each (consecutive), `k0`
/// to {K} values followed by `r` itself (read back after the loop), and
/// `groups` is {digits // V}, with the contract of the module above.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,bmi2")]
unsafe fn {name}(
    a: *const u64,
    b: *const u64,
    m: *const u64,
    k0: *const u64,
    groups: usize,
) {{
    // SAFETY: the caller's contract: the block reads a, m, b (K elements)
    // and k0 (K + 1 words) and writes the K elements at the pointer stored
    // after k0; it declares every register it changes and uses no stack.
    unsafe {{
        core::arch::asm!(
{lines}
            a = in(reg) a,
            b = inout(reg) b => _,
            m = in(reg) m,
            k0 = in(reg) k0,
            n = inout(reg) groups => _,
            mask = in(reg) (1u64 << 52) - 1,
{temporaries}            options(nostack),
        );
    }}
}}
'''


def two_phase_square_kernel(V, K, digits):
    """The dedicated square (AMS) for K elements of `digits` digits in V
    vectors, the quotient in scalar code as style A: phase 1 forms each
    element's a² in the scratch, phase 2 reduces the K of them together.
    (The module docstring has the algorithm.)"""
    stride = V * VB
    scratch = SCRATCH_VECTORS * V * VB  # bytes of scratch per element
    doubled = PRODUCT_VECTORS * V * VB  # offset of the doubled digits
    out = []
    e = out.append
    S = [f"{{s{k}}}" for k in range(K)]

    def digit(i):
        """Byte offset of digit i within its element (strided)."""
        return (i % V) * VB + (i // V) * 8

    # Phase 1, one element at a time (a loop over the K elements): the
    # window of V + 1 column vectors in two halves (low and high products
    # apart, which halves each accumulator's chain), the two broadcasts, and
    # as much of a as fits.
    vec = iter(range(32))
    WL = [f"ymm{next(vec)}" for _ in range(V + 1)]
    WH = [f"ymm{next(vec)}" for _ in range(V + 1)]
    B1, B2 = f"ymm{next(vec)}", f"ymm{next(vec)}"
    A = {}
    for v in range(V):
        r = next(vec, None)
        if r is not None:
            A[v] = f"ymm{r}"

    def a_op(v):
        return A.get(v, f"[{{a}} + {v * VB}]")

    e('"mov {n}, ' + str(K) + '"')
    e('"3:"')
    for v, reg in A.items():
        e(f'"vmovdqu64 {reg}, [{{a}} + {v * VB}]"')
    # The multipliers of the doubled blocks (stored after the columns):
    # d_j = 2·a_j mod 2^52, plus t_(j−1), the bit 2·a_(j−1) carried out,
    # where digit j − 1 has the lower class (vector v − 1, same lane). The
    # bits t_j, one a digit, go to {s0} for the rows' masked additions.
    MASKV = WL[0]
    e(f'"vpbroadcastq {MASKV}, {{mask}}"')
    e('"xor {s0:e}, {s0:e}"')

    def a_reg(v, spare):
        if v in A:
            return A[v]
        e(f'"vmovdqu64 {spare}, {a_op(v)}"')
        return spare

    for v in range(V):
        src = a_reg(v, B1)
        e(f'"vpaddq {B1}, {src}, {src}"')
        e(f'"vpsrlq {B2}, {B1}, 52"')
        e(f'"vptestmq k5, {B2}, {B2}"')
        e('"kmovw {t:e}, k5"')
        e(f'"mov rdx, {positions(V, v):#x}"')
        e('"pdep {t}, {t}, rdx"')
        e('"or {s0}, {t}"')
        e(f'"vpandq {B1}, {B1}, {MASKV}"')
        if v > 0:
            below = a_reg(v - 1, B2)
            e(f'"vpsrlq {B2}, {below}, 51"')
            e(f'"vpaddq {B1}, {B1}, {B2}"')
        e(f'"vmovdqa64 [{{b}} + {doubled + v * VB}], {B1}"')
    for r in WL + WH:
        e(f'"vpxord {xmm(r)}, {xmm(r)}, {xmm(r)}"')

    W = V + 1

    def retire(c):
        lo, hi = WL[c % W], WH[c % W]
        e(f'"vpaddq {lo}, {lo}, {hi}"')
        e(f'"vmovdqa64 [{{b}} + {c * VB}], {lo}"')
        e(f'"vpxord {xmm(lo)}, {xmm(lo)}, {xmm(lo)}"')
        e(f'"vpxord {xmm(hi)}, {xmm(hi)}, {xmm(hi)}"')

    # Row i (class u = i mod V) adds, at column c = i + v: a_i times
    # vector u (the digits of its own class: each pair of them meets twice,
    # so not doubled), and d_i times each vector v > u (pairs across
    # classes, once each, doubled: 2·a_i = (2·a_i mod 2^52) + t_i·2^52).
    # t_i's part, a_j one column up, is in the next row's d_(i+1) for
    # classes above u + 1, and is added as a masked vector u + 1 there.
    for i in range(digits):
        u = i % V
        e(f'"vpbroadcastq {B1}, qword ptr [{{a}} + {digit(i)}]"')
        e(f'"vpmadd52luq {WL[(i + u) % W]}, {B1}, {a_op(u)}"')
        e(f'"vpmadd52huq {WH[(i + u + 1) % W]}, {B1}, {a_op(u)}"')
        if u > 0:
            e(f'"bt {{s0}}, {i - 1}"')
            e('"sbb {t}, {t}"')
            e('"kmovw k6, {t:e}"')
            e(f'"vpaddq {WL[(i + u) % W]}{{{{k6}}}}, {WL[(i + u) % W]}, {a_op(u)}"')
        if u < V - 1:
            e(f'"vpbroadcastq {B2}, qword ptr [{{b}} + {doubled + digit(i)}]"')
            for v in range(u + 1, V):
                e(f'"vpmadd52luq {WL[(i + v) % W]}, {B2}, {a_op(v)}"')
                e(f'"vpmadd52huq {WH[(i + v + 1) % W]}, {B2}, {a_op(v)}"')
        retire(i)
    for c in range(digits, digits + V):
        retire(c)
    e(f'"add {{a}}, {stride}"')
    e(f'"add {{b}}, {scratch}"')
    e('"dec {n}"')
    e('"jnz 3b"')
    e(f'"sub {{b}}, {K * scratch}"')

    # Phase 2: the reduction of the K squares together, style A without the
    # products of b: the accumulator starts as columns 0 to V − 1, and each
    # iteration adds column i + V to the position that enters at the top.
    vec = iter(range(32))
    R = [[f"ymm{next(vec)}" for _ in range(V)] for _ in range(K)]
    Q = [f"ymm{next(vec)}" for _ in range(K)]
    resident = {}
    for v in range(V):
        for k in range(K):
            r = next(vec, None)
            if r is not None:
                resident[(k, v)] = f"ymm{r}"

    def m_op(k, v):
        return resident.get((k, v), f"[{{m}} + {k * stride + v * VB}]")

    shift_masks(e)
    for k in range(K):
        for v in range(V):
            e(f'"vmovdqa64 {R[k][v]}, [{{b}} + {k * scratch + v * VB}]"')
        e(f'"vmovq {S[k]}, {xmm(R[k][0])}"')
    for (k, v), reg in resident.items():
        e(f'"vmovdqu64 {reg}, [{{m}} + {k * stride + v * VB}]"')

    macro = f"ams_step_y{V}_x{K}_d{digits}"
    params = [[f"r{k}_{v}" for v in range(V)] for k in range(K)]
    e(f'".macro {macro} off, {", ".join(p for ps in params for p in ps)}"')
    for k in range(K):
        o = k * stride

        def P(v, k=k):
            return f"ymm\\\\{params[k][v % V]}"

        def N(v):
            return P(v + 1)

        reduction_step(e, k, S[k], Q[k], o, xmm(P(1)))
        for v in range(V):
            e(f'"vpmadd52luq {P(v)}, {Q[k]}, {m_op(k, v)}"')
        e(f'"valignq {P(0)}{{{{k1}}}}{{{{z}}}}, {P(0)}, {P(0)}, 1"')
        for v in range(V):
            e(f'"vpmadd52huq {N(v)}, {Q[k]}, {m_op(k, v)}"')
        e(f'"vpaddq {N(V - 1)}, {N(V - 1)}, [{{b}} + {k * scratch} + \\\\off]"')
    e('".endm"')

    # Column gV + u + V is vector u + V of the b pointer, which moves V
    # vectors a group.
    e(f'"mov {{n}}, {digits // V}"')
    tail = rotated_loop(e, macro, R, digits, lambda u: (u + V) * VB, f'"add {{b}}, {V * VB}"')
    normalise(e, R, S, V, K, tail, True)
    e('"vzeroupper"')

    return square_function(V, K, digits, out, "two phases", "inout(reg) a => _")


def one_loop_square_kernel(V, K, digits):
    """The dedicated square (AMS) for K elements of `digits` digits in V
    vectors as one loop: style A's, where row i (digit a_i, of class
    u = i mod V) multiplies only the vectors of classes u and above (a_i
    times vector u, d_i times the rest) and adds vector u masked by
    t_(i−1). (The module docstring has the algorithm.)"""
    stride = V * VB
    scratch = SCRATCH_VECTORS * V * VB  # bytes of scratch per element
    vec = iter(range(32))
    R = [[f"ymm{next(vec)}" for _ in range(V)] for _ in range(K)]
    B = [f"ymm{next(vec)}" for _ in range(K)]
    D = [f"ymm{next(vec)}" for _ in range(K)]
    Q = [f"ymm{next(vec)}" for _ in range(K)]
    resident = resident_operands(vec, V, K)
    operand = operands(resident, stride)

    S = [f"{{s{k}}}" for k in range(K)]
    out = []
    e = out.append

    # The scratch, per element: a (for the broadcasts of a_i, found through
    # the loop's pointer, which moves a lane a group), then d_j =
    # 2·a_j mod 2^52 + t_(j−1) (t_j the bit 2·a_j carries out; digit j − 1
    # is vector v − 1, the same lane; none for class 0), then −t_(j−1),
    # the rows' masks.
    MASKV, ZERO, PREV, CUR, DBL, TOP = (f"ymm{31 - i}" for i in range(6))
    e(f'"vpbroadcastq {MASKV}, {{mask}}"')
    e(f'"vpxord {xmm(ZERO)}, {xmm(ZERO)}, {xmm(ZERO)}"')
    for k in range(K):
        o, os = k * stride, k * scratch
        for v in range(V):
            cur, prev = (CUR, PREV) if v % 2 == 0 else (PREV, CUR)
            e(f'"vmovdqu64 {cur}, [{{a}} + {o + v * VB}]"')
            e(f'"vmovdqa64 [{{b}} + {os + v * VB}], {cur}"')
            e(f'"vpaddq {DBL}, {cur}, {cur}"')
            e(f'"vpandq {DBL}, {DBL}, {MASKV}"')
            if v > 0:
                e(f'"vpsrlq {TOP}, {prev}, 51"')
                e(f'"vpaddq {DBL}, {DBL}, {TOP}"')
                e(f'"vpsubq {TOP}, {ZERO}, {TOP}"')
                e(f'"vmovdqa64 [{{b}} + {os + (2 * V + v) * VB}], {TOP}"')
            e(f'"vmovdqa64 [{{b}} + {os + (V + v) * VB}], {DBL}"')

    shift_masks(e)
    for k in range(K):
        for v in range(V):
            e(f'"vpxord {xmm(R[k][v])}, {xmm(R[k][v])}, {xmm(R[k][v])}"')
        e(f'"xor {S[k]}, {S[k]}"')
    load_resident(e, resident, stride)

    def macro(u):
        return f"ams_step_y{V}_x{K}_d{digits}_c{u}"

    params = [[f"r{k}_{v}" for v in range(V)] for k in range(K)]
    for u in range(V):
        e(f'".macro {macro(u)} off, {", ".join(p for ps in params for p in ps)}"')
        for k in range(K):
            o, os = k * stride, k * scratch

            def P(v, k=k):
                return f"ymm\\\\{params[k][v % V]}"

            def N(v):
                return P(v + 1)

            a_i = f"qword ptr [{{b}} + {os} + \\\\off]"
            d_i = f"qword ptr [{{b}} + {os + V * VB} + \\\\off]"
            t_i = f"[{{b}} + {os + 2 * V * VB} + \\\\off]"
            # Scalar: the lowest position t (with a0·a_i in rows of class 0),
            # q = t·k0 mod 2^52, and the next lowest position s' =
            # (t + m0·q) / 2^52 + its accumulated value + lo(m1·q) + this
            # row's part at digit 1 (class 0: lo(a1·d_i); class 1:
            # lo(a1·a_i) and a1 masked by t_(i−1)), kept in {t}.
            if u == 0:
                e(f'"mov rdx, {a_i}"')
                e(f'"mulx {{hi}}, {{lo}}, [{{a}} + {o}]"')
                e(f'"mov rdx, {d_i}"')
                e(f'"mulx {{q}}, {{t}}, [{{a}} + {o + VB}]"')
                e('"and {t}, {mask}"')
                e(f'"add {S[k]}, {{lo}}"')
                e('"adc {hi}, 0"')
            if u == 1:
                e(f'"mov rdx, {a_i}"')
                e(f'"mulx {{q}}, {{t}}, [{{a}} + {o + VB}]"')
                e('"and {t}, {mask}"')
                e(f'"mov {{q}}, [{{a}} + {o + VB}]"')
                e(f'"and {{q}}, qword ptr {t_i}"')
                e('"add {t}, {q}"')
            reduction_step(e, k, S[k], Q[k], o, xmm(P(1)), wide=u == 0)
            if u <= 1:
                e(f'"add {S[k]}, {{t}}"')
            # Vector: as style A, the products of a_i (vector u) and d_i
            # (vectors above u) first, then those of q_i.
            e(f'"vpbroadcastq {B[k]}, {a_i}"')
            if u < V - 1:
                e(f'"vpbroadcastq {D[k]}, {d_i}"')
            mult = {v: (B[k] if v == u else D[k]) for v in range(u, V)}
            for v in range(u, V):
                e(f'"vpmadd52luq {P(v)}, {mult[v]}, {operand("a", k, v)}"')
            if u > 0:
                e(f'"kmovw k6, word ptr {t_i}"')
                e(f'"vpaddq {P(u)}{{{{k6}}}}, {P(u)}, {operand("a", k, u)}"')
            for v in range(u, V - 1):
                e(f'"vpmadd52huq {N(v)}, {mult[v]}, {operand("a", k, v)}"')
            for v in range(V):
                e(f'"vpmadd52luq {P(v)}, {Q[k]}, {operand("m", k, v)}"')
            e(f'"valignq {P(0)}{{{{k1}}}}{{{{z}}}}, {P(0)}, {P(0)}, 1"')
            e(f'"vpmadd52huq {N(V - 1)}, {mult[V - 1]}, {operand("a", k, V - 1)}"')
            for v in range(V):
                e(f'"vpmadd52huq {N(v)}, {Q[k]}, {operand("m", k, v)}"')
        e('".endm"')

    e(f'"mov {{n}}, {digits // V}"')
    tail = rotated_loop(e, macro, R, digits, lambda u: u * VB, '"lea {b}, [{b} + 8]"')
    normalise(e, R, S, V, K, tail, True)
    e('"vzeroupper"')

    return square_function(V, K, digits, out, "one loop", "in(reg) a")


def reduction_step(e, k, s, q, o, next_lowest, wide=False):
    """The scalar part of a reduction step of element k, whose modulus is
    at offset o: q_i = t·k0 mod 2^52 for the lowest position t (`s`; with
    `wide`, `s` plus {hi}·2^64, and {q} is overwritten), broadcast to the
    vector `q`; then in `s` the next lowest position, (t + m0·q_i) / 2^52
    + lo(m1·q_i) + its accumulated value, which `next_lowest` (an xmm)
    holds in lane 0."""
    e(f'"mov rdx, {s}"')
    e(f'"imul rdx, [{{k0}} + {8 * k}]"')
    e('"and rdx, {mask}"')
    e(f'"vpbroadcastq {q}, rdx"')
    e(f'"mulx {{q}}, {{lo}}, [{{m}} + {o}]"' if wide else f'"mulx {{hi}}, {{lo}}, [{{m}} + {o}]"')
    e(f'"add {{lo}}, {s}"')
    e('"adc {hi}, {q}"' if wide else '"adc {hi}, 0"')
    e('"shrd {lo}, {hi}, 52"')
    e(f'"mulx {{hi}}, rdx, [{{m}} + {o + VB}]"')
    e('"and rdx, {mask}"')
    e(f'"vmovq {s}, {next_lowest}"')
    e(f'"add {s}, {{lo}}"')
    e(f'"add {s}, rdx"')


def square_function(V, K, digits, out, form, a_operand):
    """The Rust function around a square's instructions `out` (`form` names
    it in the documentation; `a_operand` is how the block takes `a`)."""
    name = square_name(V, K, digits, form == "two phases")
    lines = "\n".join(f"            {line}," for line in out)
    temporaries = asm_temporaries(K, 6)
    return f'''
/// AMS of {K} {digits}-digit operand{"s" if K > 1 else ""} ({V} ymm vectors each, strided), {form}.
///
/// # Safety
/// The CPU has AVX-512F, AVX-512VL, AVX-512IFMA and BMI2. `a`, `m` and
/// `r` point to {K} elements of {4 * V} digits each (consecutive),
/// `scratch` to {K * SCRATCH_VECTORS * V * LANES} words aligned to 32 bytes, `k0` to {K}
/// values followed by `r` itself, with the contract of the module above.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,bmi2")]
unsafe fn {name}(a: *const u64, scratch: *mut u64, m: *const u64, k0: *const u64) {{
    // SAFETY: the caller's contract: the block reads a, m (K elements) and
    // k0 (K + 1 words), writes and reads the scratch, and writes the K
    // elements at the pointer stored after k0; it declares every register
    // it changes and uses no stack.
    unsafe {{
        core::arch::asm!(
{lines}
            a = {a_operand},
            b = inout(reg) scratch => _,
            m = in(reg) m,
            k0 = in(reg) k0,
            n = out(reg) _,
            mask = in(reg) (1u64 << 52) - 1,
{temporaries}            options(nostack),
        );
    }}
}}
'''


def resident_operands(vec, V, K):
    """As many vectors of a and m as the registers left in `vec` hold, in
    the order the loop uses them: `(which, element, vector) -> register`."""
    resident = {}
    for v in range(V):
        for k in range(K):
            for which in ("a", "m"):
                r = next(vec, None)
                if r is not None:
                    resident[(which, k, v)] = f"ymm{r}"
    return resident


def operands(resident, stride):
    """Vector v of element k of a or m: its register, or its memory."""
    return lambda which, k, v: resident.get((which, k, v), f"[{{{which}}} + {k * stride + v * VB}]")


def load_resident(e, resident, stride):
    """The loads of the resident vectors, before the loop."""
    for (which, k, v), reg in resident.items():
        e(f'"vmovdqu64 {reg}, [{{{which}}} + {k * stride + v * VB}]"')


def shift_masks(e):
    """k1: lanes 0-2 (logical vector 0's shift takes a zero in); k2: lane 0;
    k3: lanes 1-3."""
    for kreg, bits in (("k1", 7), ("k2", 1), ("k3", 14)):
        e(f'"mov {{t:e}}, {bits}"')
        e(f'"kmovw {kreg}, {{t:e}}"')


def asm_temporaries(scalars, masks):
    """The operands every kernel changes and returns nothing in: `scalars`
    registers for the lowest positions (s0, s1, …), the scalar temporaries,
    k1 to k`masks` and every vector register."""
    out = "".join(f"            s{k} = out(reg) _,\n" for k in range(scalars))
    out += "".join(f"            {r} = out(reg) _,\n" for r in ("lo", "hi", "q", "t"))
    out += '            out("rdx") _,\n'
    out += "".join(f'            out("k{i}") _,\n' for i in range(1, masks + 1))
    out += "".join(f'            out("ymm{i}") _,\n' for i in range(32))
    return out


def rotated_loop(e, macro, R, digits, offset, advance):
    """The loop over `digits` iterations of `macro`: groups of V iterations
    (V = len(R[k])), iteration u of a group taking `offset(u)` and logical
    vector v as R[k][(v + u) % V], the group ending in `advance` (which
    moves the pointer the offsets are from) and a count down of {n}; then
    the digits % V iterations left over. Returns that count, the tail."""
    V, K = len(R[0]), len(R)
    name = macro if callable(macro) else (lambda u: macro)

    def iteration(u):
        regs = [R[k][(v + u) % V][3:] for k in range(K) for v in range(V)]
        e(f'"{name(u)} {offset(u)}, {", ".join(regs)}"')

    if digits >= V:
        e('"2:"')
        for u in range(V):
            iteration(u)
        e(advance)
        e('"dec {n}"')
        e('"jnz 2b"')
    tail = digits % V
    for u in range(tail):
        iteration(u)
    for m in dict.fromkeys(name(u) for u in range(V)):
        e(f'".purgem {m}"')
    return tail


def normalise(e, R, S, V, K, tail, scalar):
    """Normalisation and store, one element after the other. Registers past
    the accumulators are free now; after the tail, logical vector v is
    R[k][(v + tail) % V]. With the quotient in scalar code (`scalar`), the
    lowest position is in S[k] (a general-purpose register)."""
    stride = V * VB
    free = [f"ymm{i}" for i in range(K * V, 32)]
    MASK, TOP, CARRY = free[:3]
    e(f'"vpbroadcastq {MASK}, {{mask}}"')
    e('"mov {n}, [{k0} + ' + str(8 * K) + ']"')  # the output pointer
    for k in range(K):
        o = k * stride

        def L(v, k=k):
            return R[k][(v + tail) % V]

        if scalar:
            e(f'"vpbroadcastq {L(0)}{{{{k2}}}}, {S[k]}"')
        # Pass 1: each lane's bits above 52 (below 2^12) move one position
        # up: logical vector v's to vector v + 1, the top vector's to vector
        # 0, one lane up (the top lane's is zero: the result is below 2m).
        e(f'"vpsrlq {TOP}, {L(V - 1)}, 52"')
        e(f'"vpandq {L(V - 1)}, {L(V - 1)}, {MASK}"')
        for v in range(V - 1, 0, -1):
            e(f'"vpsrlq {CARRY}, {L(v - 1)}, 52"')
            e(f'"vpandq {L(v - 1)}, {L(v - 1)}, {MASK}"')
            e(f'"vpaddq {L(v)}, {L(v)}, {CARRY}"')
        e(f'"valignq {TOP}{{{{k3}}}}{{{{z}}}}, {TOP}, {TOP}, 3"')
        e(f'"vpaddq {L(0)}, {L(0)}, {TOP}"')
        # Pass 2: lanes are below 2^52 + 2^12, so at most one more carry
        # each, rippling through lanes equal to 2^52 − 1. With g the
        # positions above 2^52 − 1 and p those equal to it (bit v + lV for
        # vector v, lane l), the positions that receive a carry are
        # ((g << 1) + p) ^ p, one addition.
        e('"xor {lo:e}, {lo:e}"')
        e('"xor {hi:e}, {hi:e}"')
        for v in range(V):
            e(f'"vpcmpuq k4, {L(v)}, {MASK}, 6"')
            e(f'"vpcmpuq k5, {L(v)}, {MASK}, 0"')
            e('"kmovw {t:e}, k4"')
            e('"kmovw {q:e}, k5"')
            e(f'"mov rdx, {positions(V, v):#x}"')
            e('"pdep {t}, {t}, rdx"')
            e('"pdep {q}, {q}, rdx"')
            e('"or {lo}, {t}"')
            e('"or {hi}, {q}"')
        e('"lea {lo}, [{hi} + 2*{lo}]"')
        e('"xor {lo}, {hi}"')
        for v in range(V):
            e(f'"mov rdx, {positions(V, v):#x}"')
            e('"pext {t}, {lo}, rdx"')
            e('"kmovw k4, {t:e}"')
            e(f'"vpsubq {L(v)}{{{{k4}}}}, {L(v)}, {MASK}"')
            e(f'"vpandq {L(v)}, {L(v)}, {MASK}"')
            e(f'"vmovdqu64 [{{n}} + {o + v * VB}], {L(v)}"')

def square_name(V, K, digits, two_phases=False):
    return f"ams_y{V}_x{K}_d{digits}{'_2p' if two_phases else ''}"


def kernel_name(V, K, style, digits):
    """Style V's kernels are named apart (`x2v`): they sit beside style A's."""
    return f"amm_y{V}_x{K}{'v' if style == 'V' else ''}_d{digits}"


def positions(V, v):
    """The bits of vector v's positions v, v + V, v + 2V, v + 3V."""
    return sum(1 << (v + lane * V) for lane in range(LANES))


def main():
    kernels = []
    for (v, k), style in sorted(STYLE.items(), key=lambda t: (t[0][1], t[0][0])):
        for digits in [4 * v] + TAILS.get(v, []):
            kernels.append((v, k, style, digits))
    for v in VECTOR_QUOTIENT:
        for digits in [4 * v] + TAILS.get(v, []):
            kernels.append((v, 2, "V", digits))
    print("//! The 256-bit AVX-512 IFMA almost-Montgomery multiplications.")
    print("//!")
    print("//! GENERATED by `tools/gen_ifma_x86_64.py`; do not edit by hand (`.ci/run`")
    print("//! checks that this file matches the script). The script's docstring has")
    print("//! the algorithm, the layout and the contract.")
    print()
    print("use super::{AmmKernel, SqrKernel};")
    print()
    print("/// The kernel for `vectors` 256-bit vectors, `interleave`")
    print("/// multiplications and `digits` digits, the quotient in the vector unit")
    print("/// (style V) or not, if there is one.")
    print("pub(super) fn amm_kernel(")
    print("    vectors: usize,")
    print("    interleave: usize,")
    print("    digits: usize,")
    print("    vector_quotient: bool,")
    print(") -> Option<AmmKernel> {")
    print("    match (vectors, interleave, digits, vector_quotient) {")
    for v, k, style, d in kernels:
        vq = str(style == "V").lower()
        print(f"        ({v}, {k}, {d}, {vq}) => Some({kernel_name(v, k, style, d)}),")
    print("        _ => None,")
    print("    }")
    print("}")
    squares = [
        (v, k, d, two_phases)
        for k, vectors, two_phases in (
            (1, SINGLE_SQUARES, False),
            (2, ONE_LOOP_SQUARES, False),
            (2, TWO_PHASE_SQUARES, True),
        )
        for v in vectors
        for d in [4 * v] + TAILS.get(v, [])
    ]
    both = {(v, k, d) for v, k, d, two_phases in squares if two_phases}
    print()
    print("/// The scratch a dedicated square takes per element, in units of `V`")
    print("/// 256-bit vectors (the most either form of the square takes).")
    print(f"pub(super) const SQUARE_SCRATCH_VECTORS: usize = {SCRATCH_VECTORS};")
    print()
    print("/// The dedicated square for `vectors` 256-bit vectors, `interleave`")
    print("/// operands and `digits` digits, in two phases or in one loop where it")
    print("/// comes in both forms, if there is one.")
    print("pub(super) fn ams_kernel(")
    print("    vectors: usize,")
    print("    interleave: usize,")
    print("    digits: usize,")
    print("    two_phases: bool,")
    print(") -> Option<SqrKernel> {")
    print("    match (vectors, interleave, digits, two_phases) {")
    for v, k, d, two_phases in squares:
        form = str(two_phases).lower() if (v, k, d) in both else "_"
        print(f"        ({v}, {k}, {d}, {form}) => Some({square_name(v, k, d, two_phases)}),")
    print("        _ => None,")
    print("    }")
    print("}")
    for v, k, style, d in kernels:
        print(kernel(v, k, style, d), end="")
    for v, k, d, two_phases in squares:
        square = two_phase_square_kernel if two_phases else one_loop_square_kernel
        print(square(v, k, d), end="")


if __name__ == "__main__":
    sys.exit(main())
