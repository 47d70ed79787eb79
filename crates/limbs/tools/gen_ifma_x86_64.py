#!/usr/bin/env python3
"""Generates the 256-bit (ymm) AVX-512 IFMA almost-Montgomery multiplication
kernels:

    python3 tools/gen_ifma_x86_64.py > src/backend/x86_64_ifma/gen/ymm.rs

(`.ci/run` checks that the file matches this script's output.)

One function per vector count V (a residue of up to 4V digits of 52 bits)
and interleave K (K independent multiplications in one loop, each with its
own modulus). Each computes, for k < K,

    r[k] = a[k] · b[k] · 2^(−52·digits) mod m[k]   (below 2·m[k]),

with the digits normalised (each below 2^52), for a[k], b[k] below 2·m[k],
4·m[k] < 2^(52·digits), k0[k] = −m[k]⁻¹ mod 2^52, and the digits of a[k]
and m[k] from `digits` to 4V zero (b's are not read). This is Gueron and
Krasnov's AMM, as OpenSSL's and AWS-LC's `rsaz-*k-avx512` compute it.

The loop (one iteration per digit b_i of b) keeps the accumulator in
registers, lane j of vector v holding position i + 4v + j, and:

- scalar (general-purpose registers), `q_i` and the lowest position, with
  a look-ahead: the position that will be lowest next is read from lane 1
  before this iteration's vector work, and this iteration's contributions
  to it (lo(a1·b_i), lo(m1·q_i) and the carry out of the lowest position)
  are added in scalar code, so no vector latency sits between one q and
  the next;
- vector: lo(a·b_i) and lo(m·q_i) accumulate into the lanes, the lanes
  shift down by one (valignq), then hi(a·b_i) and hi(m·q_i) accumulate
  (the high halves belong one position up). Style "A" accumulates inside
  the IFMA instructions (fewest instructions: the right choice when two
  multiplications interleave and the core is throughput-bound); style "T"
  sums the high halves in a fresh register and adds it after the shift,
  which shortens the loop-carried chain per iteration from four IFMA
  latencies to two (the right choice for a lone multiplication, which is
  latency-bound).

As many vectors of a and m as fit stay in registers; the rest are read
from memory once per use. The final normalisation carries every lane into
52 bits with a carry-lookahead over the lane masks (`((g << 1) + p) ^ p`)
instead of a ripple.

Constant time: every loop count is `digits` (public), no branch or address
depends on a value, and IFMA, mulx, imul and the vector operations used
have data-independent timing.
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


def kernel(V, K, style):
    stride = V * VB  # bytes per element
    vec = iter(range(32))
    R = [[f"ymm{next(vec)}" for _ in range(V)] for _ in range(K)]
    B = [f"ymm{next(vec)}" for _ in range(K)]
    Q = [f"ymm{next(vec)}" for _ in range(K)]
    temps = []
    if style == "T":
        temps = [f"ymm{next(vec)}" for _ in range(4)]
    resident = {}
    for v in range(V):
        for k in range(K):
            for which in ("a", "m"):
                r = next(vec, None)
                if r is not None:
                    resident[(which, k, v)] = f"ymm{r}"

    def x(reg):
        return "xmm" + reg[3:]

    S = [f"{{s{k}}}" for k in range(K)]
    out = []
    e = out.append
    # k1: the top vector's shift takes zeros in; k2: lane 0 only; k3: lanes 1-3.
    e('"mov {t:e}, 7"')
    e('"kmovw k1, {t:e}"')
    e('"mov {t:e}, 1"')
    e('"kmovw k2, {t:e}"')
    e('"mov {t:e}, 14"')
    e('"kmovw k3, {t:e}"')
    for k in range(K):
        for v in range(V):
            e(f'"vpxord {x(R[k][v])}, {x(R[k][v])}, {x(R[k][v])}"')
        e(f'"xor {S[k]}, {S[k]}"')
    for (which, k, v), reg in resident.items():
        e(f'"vmovdqu64 {reg}, [{{{which}}} + {k * stride + v * VB}]"')
    e('"2:"')

    def operand(which, k, v):
        return resident.get((which, k, v), f"[{{{which}}} + {k * stride + v * VB}]")

    tcount = [0]

    def temp():
        r = temps[tcount[0] % len(temps)]
        tcount[0] += 1
        return r

    for k in range(K):
        o = k * stride
        # Scalar: t = s + a0·b_i; q = t·k0 mod 2^52; the next lowest position
        # s' = (t + m0·q) / 2^52 + lane 1 + lo(a1·b_i) + lo(m1·q).
        e(f'"mov rdx, [{{b}} + {o}]"')
        e(f'"vpbroadcastq {B[k]}, rdx"')
        e(f'"mulx {{hi}}, {{lo}}, [{{a}} + {o}]"')
        e(f'"mulx {{q}}, {{t}}, [{{a}} + {o + 8}]"')
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
        e(f'"mulx {{hi}}, rdx, [{{m}} + {o + 8}]"')
        e('"add {t}, {lo}"')
        e('"and rdx, {mask}"')
        e(f'"vpextrq {S[k]}, {x(R[k][0])}, 1"')
        e(f'"add {S[k]}, {{t}}"')
        e(f'"add {S[k]}, rdx"')
        if style == "A":
            for v in range(V):
                e(f'"vpmadd52luq {R[k][v]}, {B[k]}, {operand("a", k, v)}"')
            for v in range(V):
                e(f'"vpmadd52luq {R[k][v]}, {Q[k]}, {operand("m", k, v)}"')
            for v in range(V):
                if v + 1 < V:
                    e(f'"valignq {R[k][v]}, {R[k][v + 1]}, {R[k][v]}, 1"')
                else:
                    e(f'"valignq {R[k][v]}{{{{k1}}}}{{{{z}}}}, {R[k][v]}, {R[k][v]}, 1"')
            for v in range(V):
                e(f'"vpmadd52huq {R[k][v]}, {B[k]}, {operand("a", k, v)}"')
            for v in range(V):
                e(f'"vpmadd52huq {R[k][v]}, {Q[k]}, {operand("m", k, v)}"')
        else:
            previous = None
            for v in range(V):
                oa = resident.get(("a", k, v))
                if oa is None:
                    oa = temp()
                    e(f'"vmovdqu64 {oa}, [{{a}} + {o + v * VB}]"')
                om = resident.get(("m", k, v))
                if om is None:
                    om = temp()
                    e(f'"vmovdqu64 {om}, [{{m}} + {o + v * VB}]"')
                e(f'"vpmadd52luq {R[k][v]}, {B[k]}, {oa}"')
                e(f'"vpmadd52luq {R[k][v]}, {Q[k]}, {om}"')
                high = temp()
                e(f'"vpxord {x(high)}, {x(high)}, {x(high)}"')
                e(f'"vpmadd52huq {high}, {B[k]}, {oa}"')
                e(f'"vpmadd52huq {high}, {Q[k]}, {om}"')
                if v > 0:
                    e(f'"valignq {R[k][v - 1]}, {R[k][v]}, {R[k][v - 1]}, 1"')
                    e(f'"vpaddq {R[k][v - 1]}, {R[k][v - 1]}, {previous}"')
                previous = high
            e(f'"valignq {R[k][V - 1]}{{{{k1}}}}{{{{z}}}}, {R[k][V - 1]}, {R[k][V - 1]}, 1"')
            e(f'"vpaddq {R[k][V - 1]}, {R[k][V - 1]}, {previous}"')
    e('"lea {b}, [{b} + 8]"')
    e('"dec {n}"')
    e('"jnz 2b"')

    # Normalisation and store, one element after the other. Registers past
    # the accumulators are free now.
    free = [f"ymm{i}" for i in range(K * V, 32)]
    MASK, TP, TC, U = free[:4]
    e(f'"vpbroadcastq {MASK}, {{mask}}"')
    e('"mov {n}, [{k0} + ' + str(8 * K) + ']"')  # the output pointer
    for k in range(K):
        o = k * stride
        e(f'"vpbroadcastq {R[k][0]}{{{{k2}}}}, {S[k]}"')
        # Pass 1: each lane's bits above 52 (below 2^12) move one lane up.
        tp, tc = TP, TC
        for v in range(V):
            e(f'"vpsrlq {tc}, {R[k][v]}, 52"')
            e(f'"vpandq {R[k][v]}, {R[k][v]}, {MASK}"')
            if v == 0:
                e(f'"valignq {U}{{{{k3}}}}{{{{z}}}}, {tc}, {tc}, 3"')
            else:
                e(f'"valignq {U}, {tc}, {tp}, 3"')
            e(f'"vpaddq {R[k][v]}, {R[k][v]}, {U}"')
            tp, tc = tc, tp
        # Pass 2: lanes are below 2^52 + 2^12, so at most one more carry
        # each, rippling through lanes equal to 2^52 − 1. With g the lanes
        # above 2^52 − 1 and p those equal to it, the lanes that receive a
        # carry are ((g << 1) + p) ^ p, one addition over the lane bits.
        e('"xor {lo:e}, {lo:e}"')
        e('"xor {hi:e}, {hi:e}"')
        for v in range(V):
            e(f'"vpcmpuq k4, {R[k][v]}, {MASK}, 6"')
            e(f'"vpcmpuq k5, {R[k][v]}, {MASK}, 0"')
            e('"kmovw {t:e}, k4"')
            e('"kmovw {q:e}, k5"')
            if v:
                e(f'"shl {{t}}, {4 * v}"')
                e(f'"shl {{q}}, {4 * v}"')
            e('"or {lo}, {t}"')
            e('"or {hi}, {q}"')
        e('"lea {lo}, [{hi} + 2*{lo}]"')
        e('"xor {lo}, {hi}"')
        for v in range(V):
            e('"kmovw k4, {lo:e}"')
            if v + 1 < V:
                e('"shr {lo}, 4"')
            e(f'"vpsubq {R[k][v]}{{{{k4}}}}, {R[k][v]}, {MASK}"')
            e(f'"vpandq {R[k][v]}, {R[k][v]}, {MASK}"')
            e(f'"vmovdqu64 [{{n}} + {o + v * VB}], {R[k][v]}"')
    e('"vzeroupper"')

    name = f"amm_y{V}_x{K}"
    lines = "\n".join(f"            {line}," for line in out)
    sregs = "".join(f"            s{k} = out(reg) _,\n" for k in range(K))
    clobbers = "".join(f'            out("ymm{i}") _,\n' for i in range(32))
    return f'''
/// AMM of {K} pair{"s" if K > 1 else ""} of {4 * V}-digit operands ({V} ymm vectors each), style {style}.
///
/// # Safety
/// The CPU has AVX-512F, AVX-512VL, AVX-512IFMA and BMI2. `a`, `b`, `m`
/// and `r` point to {K} elements of {4 * V} digits each (consecutive), `k0`
/// to {K} values followed by `r` itself (read back after the loop), and
/// `0 < digits <= {4 * V}`, with the contract of the module above.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,bmi2")]
unsafe fn {name}(a: *const u64, b: *const u64, m: *const u64, k0: *const u64, digits: usize) {{
    // SAFETY: the caller's contract: the block reads a, m (K elements),
    // b (`digits` digits of each of K elements) and k0 (K + 1 words) and
    // writes the K elements at the pointer stored after k0; it declares
    // every register it changes and uses no stack.
    unsafe {{
        core::arch::asm!(
{lines}
            a = in(reg) a,
            b = inout(reg) b => _,
            m = in(reg) m,
            k0 = in(reg) k0,
            n = inout(reg) digits => _,
            mask = in(reg) (1u64 << 52) - 1,
{sregs}            lo = out(reg) _,
            hi = out(reg) _,
            q = out(reg) _,
            t = out(reg) _,
            out("rdx") _,
            out("k1") _,
            out("k2") _,
            out("k3") _,
            out("k4") _,
            out("k5") _,
{clobbers}            options(nostack),
        );
    }}
}}
'''


def main():
    sizes = sorted(STYLE.items(), key=lambda t: (t[0][1], t[0][0]))
    print("//! The 256-bit AVX-512 IFMA almost-Montgomery multiplications.")
    print("//!")
    print("//! GENERATED by `tools/gen_ifma_x86_64.py`; do not edit by hand (`.ci/run`")
    print("//! checks that this file matches the script). The script's docstring has")
    print("//! the algorithm and the contract.")
    print()
    print("use super::AmmKernel;")
    print()
    print("/// The kernel for `vectors` 256-bit vectors and `interleave`")
    print("/// multiplications, if there is one.")
    print("pub(super) fn amm_kernel(vectors: usize, interleave: usize) -> Option<AmmKernel> {")
    print("    match (vectors, interleave) {")
    for (v, k), _ in sizes:
        print(f"        ({v}, {k}) => Some(amm_y{v}_x{k}),")
    print("        _ => None,")
    print("    }")
    print("}")
    for (v, k), style in sizes:
        print(kernel(v, k, style), end="")


if __name__ == "__main__":
    sys.exit(main())
