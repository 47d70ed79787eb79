#!/usr/bin/env python3
"""Generates src/backend/x86_64_base/gen/goldilocks.rs: multiplication and
squaring modulo Goldilocks p = 2^448 - 2^224 - 1 on eight 56-bit limbs, in
x86_64's baseline instructions (one-operand `mul`, no BMI2 or ADX), so that
every x86_64 CPU runs them with no detection and no dispatch.

Usage: python3 tools/gen_goldilocks_x86_64.py > src/backend/x86_64_base/gen/goldilocks.rs
(`.ci/run` checks that the file matches this script's output.)

The algorithm is the field crate's (numcrypt-field, `Goldilocks`): one level
of Karatsuba on phi = 2^224, a = a_lo + a_hi phi, with the golden-ratio
identity phi^2 = phi + 1, for limbs below 3 * 2^56 + 2^15 (the field's loose
bound, what a sum or difference of its tight values can reach), which keeps
every 128-bit sum below 2^120 and so every carry within a word (worked out
at the largest limbs, where each sum is largest: all its terms are
products of limbs, added). With L, H and M the products a_lo b_lo, a_hi b_hi
and (a_lo + a_hi)(b_lo + b_hi), and X_k column k of X, limb j < 4 of the
result takes L_j + H_j + M_(j+4) - L_(j+4) and limb j + 4 takes
H_(j+4) + M_j - L_j + M_(j+4). Step j makes both as two 128-bit sums
(product by product, each product added or subtracted where it goes, the
columns both need summed once), adds the carries out of limbs j - 1 and
j + 3, keeps the low 56 bits and carries the rest, one word. What leaves
limb 3 enters limb 4; what leaves limb 7 (2^448 = 2^224 + 1) enters limbs
4 and 0; what then leaves limbs 4 and 0 (below 2^8) is added to limbs 5
and 1.

Why this shape (benches/RESULTS.md, "Goldilocks without BMI2"): it keeps
the accumulators in registers where the compiler's code of the same
algorithm spills its products, and `mul` needs no CPU detection, whose
branch cost a `mulx` kernel of this shape all it had gained. Limbs are
masked by `and` with 2^56 - 1 from the stack (one operation, not a shift
pair); the 128-bit sums shift by `shr`/`shl`/`or`, as `shrd` is slower
on AMD's cores; the square reads its doubled limbs from the stack, made
once, instead of doubling an operand before each product.
"""

FRAME_A = 0  # a's limbs, then a_lo + a_hi at FRAME_A + 64
MASK56 = (1 << 56) - 1

out = []


def emit(s=""):
    out.append(s)


def columns(half, k, square):
    """Column k (0 to 6) of a half product: (p, q, doubled) with p + q = k."""
    terms = []
    for p in range(4):
        q = k - p
        if not 0 <= q < 4:
            continue
        if square:
            if p < q:
                terms.append((half, p, q, True))
            elif p == q:
                terms.append((half, p, q, False))
        else:
            terms.append((half, p, q, False))
    return terms


class Kernel:
    def __init__(self, square):
        self.square = square
        self.sum_b = 96  # b_lo + b_hi (multiplication only)
        self.res = 96 if square else 128  # the result's limbs
        self.mask = self.res + 64  # 2^56 - 1
        # a square's doubled limbs 0 to 2 of each half (L, H, M)
        self.doubled = self.mask + 8
        self.frame = self.doubled + (72 if square else 0)
        self.lines = []

    def ins(self, s):
        self.lines.append(f'            "{s}",')

    def comment(self, s):
        self.lines.append(f"            // {s}")

    def a_slot(self, half, i):
        return f"[rsp + {FRAME_A + 8 * ({'L': 0, 'H': 4, 'M': 8}[half] + i)}]"

    def b_slot(self, half, i):
        if self.square:
            return self.a_slot(half, i)
        if half == "M":
            return f"[rsp + {self.sum_b + 8 * i}]"
        return f"[{{b}} + {8 * (i + (4 if half == 'H' else 0))}]"

    def product(self, t):
        """rdx:rax = the product t."""
        half, p, q, doubled = t
        if doubled:
            h = {'L': 0, 'H': 1, 'M': 2}[half]
            self.ins(f"mov rax, [rsp + {self.doubled + 8 * (3 * h + p)}]")
        else:
            self.ins(f"mov rax, {self.a_slot(half, p)}")
        self.ins(f"mul qword ptr {self.b_slot(half, q)}")

    def sum_into(self, pair, terms):
        """pair = the sum of the products in terms."""
        lo, hi = pair
        for n, t in enumerate(terms):
            self.product(t)
            if n == 0:
                self.ins(f"mov {lo}, rax")
                self.ins(f"mov {hi}, rdx")
            else:
                self.ins(f"add {lo}, rax")
                self.ins(f"adc {hi}, rdx")

    def add_to(self, pair, src, sign=1):
        (lo, hi), (slo, shi) = pair, src
        op, opc = ("add", "adc") if sign > 0 else ("sub", "sbb")
        self.ins(f"{op} {lo}, {slo}")
        self.ins(f"{opc} {hi}, {shi}")

    def shared(self, terms, into):
        """Each pair in `into` (pair, sign) += or -= the sum of terms: in
        rdx:rax straight from `mul` when it is one product, else in t."""
        if len(terms) == 1:
            self.product(terms[0])
            src = ("rax", "rdx")
        else:
            self.sum_into(self.t, terms)
            src = self.t
        for pair, sign in into:
            self.add_to(pair, src, sign)

    def generate(self):
        sq = self.square
        x = [f"{{x{i}}}" for i in range(10)]
        reg_of_a = x[:6] + ["rax", "rdx"]
        sets = [((x[0], x[1]), (x[2], x[3])), ((x[6], x[7]), (x[8], x[9]))]
        self.t = (x[4], x[5])
        self.ins(f"sub rsp, {self.frame}")
        self.comment("a, a_lo + a_hi" + ("" if sq else " and b_lo + b_hi") + " on the stack")
        for i in range(8):
            self.ins(f"mov {self.a_slot('L', i)}, {reg_of_a[i]}")
        if sq:
            for h, i in ((0, 0), (0, 1), (0, 2), (1, 4), (1, 5), (1, 6)):
                self.ins(f"lea {x[6]}, [{reg_of_a[i]} + {reg_of_a[i]}]")
                self.ins(f"mov [rsp + {self.doubled + 8 * (3 * h + i % 4)}], {x[6]}")
        for i in range(4):
            self.ins(f"add {x[i]}, {reg_of_a[i + 4]}")
            self.ins(f"mov {self.a_slot('M', i)}, {x[i]}")
            if sq and i < 3:
                self.ins(f"lea {x[6]}, [{x[i]} + {x[i]}]")
                self.ins(f"mov [rsp + {self.doubled + 8 * (6 + i)}], {x[6]}")
        if not sq:
            for i in range(4):
                self.ins(f"mov {x[i]}, [{{b}} + {8 * i}]")
                self.ins(f"add {x[i]}, [{{b}} + {8 * (i + 4)}]")
                self.ins(f"mov [rsp + {self.sum_b + 8 * i}], {x[i]}")
        self.ins(f"mov rax, {MASK56:#x}")
        self.ins(f"mov [rsp + {self.mask}], rax")
        col = lambda h, k: columns(h, k, sq) if k < 7 else []
        for j in range(4):
            p, q = sets[j % 2]
            self.comment(f"limbs {j} and {j + 4}")
            self.sum_into(p, col("H", j))
            self.sum_into(q, col("H", j + 4) + col("M", j))
            if j < 3:
                self.shared(col("M", j + 4), [(p, 1), (q, 1)])
                for t in col("L", j + 4):
                    self.product(t)
                    self.add_to(p, ("rax", "rdx"), -1)
            self.shared(col("L", j), [(p, 1), (q, -1)])
            if j > 0:
                cp, cq = sets[(j - 1) % 2]
                self.comment(f"plus the carries out of limbs {j - 1} and {j + 3}")
                for (lo, hi), c in ((p, cp[0]), (q, cq[0])):
                    self.ins(f"add {lo}, {c}")
                    self.ins(f"adc {hi}, 0")
            for pair, limb in ((p, j), (q, j + 4)):
                self.ins(f"mov rax, {pair[0]}")
                self.ins(f"and rax, [rsp + {self.mask}]")
                self.ins(f"mov [rsp + {self.res + 8 * limb}], rax")
            # The carry, below 2^64: the sum below 2^120.
            for lo, hi in (p, q):
                self.ins(f"shr {lo}, 56")
                self.ins(f"mov rax, {hi}")
                self.ins("shl rax, 8")
                self.ins(f"or {lo}, rax")
        (c3, _), (c7, _) = sets[1]
        self.comment("out of limb 3 into limb 4; out of limb 7 (2^448 = 2^224 + 1)")
        self.comment("into limbs 4 and 0 (no sum reaches 2^64); what leaves those")
        self.comment("(below 2^8) into limbs 5 and 1")
        self.ins(f"add {c3}, {c7}")
        self.ins(f"add {c3}, [rsp + {self.res + 32}]")
        self.ins(f"add {c7}, [rsp + {self.res}]")
        # Results: r0 x1, r1 x8, r2 x2, r3 x3, r4 x0, r5 x6, r6 x4, r7 x5.
        for dst, c, up in ((x[0], c3, 5), (x[1], c7, 1)):
            self.ins(f"mov {dst}, {c}")
            self.ins(f"and {dst}, [rsp + {self.mask}]")
            self.ins(f"shr {c}, 56")
            self.ins(f"add {c}, [rsp + {self.res + 8 * up}]")
        for dst, limb in ((x[2], 2), (x[3], 3), (x[4], 6), (x[5], 7)):
            self.ins(f"mov {dst}, [rsp + {self.res + 8 * limb}]")
        self.ins(f"add rsp, {self.frame}")
        result = {0: 1, 1: 8, 2: 2, 3: 3, 4: 0, 5: 6, 6: 4, 7: 5}
        reg_result = {v: k for k, v in result.items()}
        ops = []
        for i in range(10):
            target = f"r[{reg_result[i]}]" if i in reg_result else "_"
            if i < 6:
                ops.append(f"x{i} = inout(reg) a[{i}] => {target},")
            else:
                ops.append(f"x{i} = out(reg) {target},")
        if not sq:
            ops.append("b = in(reg) b.as_ptr(),")
        ops.append('inout("rax") a[6] => _,')
        ops.append('inout("rdx") a[7] => _,')
        return ops


HEADER = '''\
//! Multiplication and squaring modulo Goldilocks `p = 2^448 − 2^224 − 1` on
//! eight 56-bit limbs, one level of Karatsuba on `φ = 2^224` and `φ² = φ + 1`
//! (the field crate's `Goldilocks`), in x86_64's baseline instructions:
//! every x86_64 CPU runs them, with no detection.
//!
//! GENERATED by `tools/gen_goldilocks_x86_64.py`; do not edit by hand
//! (`.ci/run` checks that this file matches the script).

use core::arch::asm;

use crate::Limb;
'''


def function(square):
    k = Kernel(square)
    ops = k.generate()
    name, args, what = (
        ("sqr", "a: &[Limb; 8]", "`a²`")
        if square
        else ("mul", "a: &[Limb; 8], b: &[Limb; 8]", "`a · b`")
    )
    reads = "" if square else " reads b (eight limbs, by its array type) and"
    emit(f"/// {what} modulo `p`: limbs below `3·2^56 + 2^15` in; out, limbs below")
    emit("/// `2^56`, but limbs 1 and 5 below `2^56 + 2^8`.")
    emit("#[inline]")
    emit(f"pub(crate) fn {name}({args}) -> [Limb; 8] {{")
    emit("    let mut r = [0; 8];")
    emit(f"    // SAFETY: the block{reads} takes {k.frame} bytes below the stack")
    emit("    // pointer, which it reserves first and releases last (no `nostack`: the")
    emit("    // compiler keeps nothing there); every register it changes is declared,")
    emit("    // and it uses no instruction beyond x86_64's baseline.")
    emit("    unsafe {")
    emit("        asm!(")
    out.extend(k.lines)
    for o in ops:
        emit("            " + o)
    emit("        );")
    emit("    }")
    emit("    r")
    emit("}")


print(HEADER)
function(False)
emit()
function(True)
print("\n".join(out))
