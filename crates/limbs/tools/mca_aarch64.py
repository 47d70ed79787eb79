#!/usr/bin/env python3
"""Models the aarch64 kernels' speed with llvm-mca, per core: a model, not a
measurement (there is no aarch64 machine here; qemu's timings mean nothing).

Usage: python3 tools/mca_aarch64.py [LLVM_MCA]   (default: llvm-mca-19)

The instruction text comes from the sources themselves, so the model always
describes the code as it is:
- the row kernels `mul_1` and `addmul_1`: the `mul_row!` macro's loop body in
  src/backend/aarch64/mod.rs with each kernel's own instructions in it, four
  limbs a turn;
- the unrolled Montgomery multiplications at 4, 6 and 8 limbs from
  src/backend/aarch64/gen/unrolled.rs, one whole call (no loop);
- the NEON column kernel `column` of src/backend/aarch64/neon.rs: one
  column of a radix-2^28 multiplication, its loop body (four digits of each
  operand a step) written out `steps` times, then its carry tail;
- the NEON product in GF(2^255 − 19), `mul_columns` of
  src/backend/aarch64/neon_field.rs (one whole call), against the scalar
  columns of the field crate's five 51-bit limbs written out as the
  compiler makes them (four `mul` for 19·b, then per limb product `mul`,
  `umulh`, `adds`, `adc`, the first of a column straight into its sum:
  `scalar_columns`); the carries after, the same for both, left out;
- the NEON products modulo Goldilocks, 2^521 − 1 and 2^336 − 3 of
  src/backend/aarch64/gen/field.rs, against the field crate's columns
  written out the same way (`scalar_goldilocks`, `scalar_p521`,
  `scalar_p336`; the combinations after Karatsuba left out too).
Operand names become registers x0..x28 (not x18) in order of appearance,
vector operands (`{name:v}`, `{name:q}`, `{name:d}`) v0..v31.
llvm-mca runs each body 400 times back to back and reports the cycles; a
row's figure is per limb (its four-limb body / 4), a Montgomery
multiplication's per call and per limb product (/ n², counting a·b only).

The second table puts the kernels together into what an exponentiation
spends per exponent bit at 1024, 2048 and 4096 bits (a square and a fifth
of a multiplication, as with a 5-bit window):
- scalar: the slice kernels' rows, `addmul_1`'s cost per limb times the
  limbs the rows cover: a square `n(n−1)/2` (the cross products) plus `n²`
  (the reduction), a multiplication `2n²` (row entry and exit, the
  squaring's doubling and diagonal left out, which flatters the scalar
  side);
- NEON: every column of a multiplication (squares too) at its own step
  count, from the column model's cost at 1 and 8 steps (linear in between).
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "src", "backend", "aarch64")
CPUS = ("cortex-a72", "neoverse-n1", "neoverse-n2", "neoverse-v1", "neoverse-v2", "apple-m1")
ITERATIONS = 400
REGISTERS = [f"x{i}" for i in range(29) if i != 18]


def literals(text):
    """The string literals of `text`, in order (one per line of asm)."""
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


def registers(lines):
    """Replaces every `{name}` with a register, one per name (`{name:w}`
    with its 32-bit view)."""
    names = {}
    out = []
    for line in lines:
        def sub(m):
            name = m.group(1)
            if name not in names:
                names[name] = REGISTERS[len(names)]
            return names[name].replace("x", "w") if m.group(2) == "w" else names[name]
        out.append(re.sub(r"\{([a-z_0-9]+)(?::([a-z]))?\}", sub, line))
    return out


def row_kernels():
    """`mul_1` and `addmul_1`: the four-limb loop body of each."""
    text = open(os.path.join(SRC, "mod.rs")).read()
    macro = text[text.index("macro_rules! mul_row"):]
    macro = macro[macro.index("asm!("):macro.index("blocks = inout")]
    skeleton = []
    for line in macro.splitlines():
        line = line.strip()
        hole = re.match(r"\$\(\$(\w+),\)\*", line)
        if hole:
            skeleton.append(("hole", hole.group(1)))
        else:
            skeleton += [("asm", s) for s in literals(line)]
    kernels = {}
    for name in ("mul_1", "addmul_1"):
        body = text[text.index(f"fn {name}(self"):]
        body = body[body.index("mul_row!("):body.index("r_regs:")]
        lists = {
            key: literals(value)
            for key, value in re.findall(r"(\w+): \[(.*?)\],", body, re.S)
        }
        lines = []
        for kind, value in skeleton:
            lines += lists[value] if kind == "hole" else [value]
        # The loop: from the label 2 to its branch back.
        start = lines.index("2:") + 1
        end = next(i for i, l in enumerate(lines) if l.startswith("cbnz") and l.endswith("2b"))
        kernels[name] = (registers(lines[start:end]), 4, "limb")
    return kernels


def unrolled_kernels():
    """`mont_mul_4`, `_6`, `_8`: each whole call."""
    text = open(os.path.join(SRC, "gen", "unrolled.rs")).read()
    kernels = {}
    for n in (4, 6, 8):
        body = text[text.index(f"fn mont_mul_{n}("):]
        body = body[body.index("asm!("):]
        body = body[:re.search(r"^\s+\w+ = (in|out|inout)\(", body, re.M).start()]
        lines = [l for l in literals(body) if not l.endswith(":")]
        kernels[f"mont_mul_{n}"] = (registers(lines), n * n, "product")
    return kernels


def registers_with_vectors(lines):
    """As `registers`, with `{name:v}`, `{name:q}` and `{name:d}` operands mapped to
    v0..v31 (and written as vN or qN)."""
    vectors = {}
    out = []
    for line in lines:
        def sub(m):
            name, modifier = m.group(1), m.group(2)
            if name not in vectors:
                vectors[name] = len(vectors)
            return f"{modifier}{vectors[name]}"
        out.append(re.sub(r"\{([a-z_0-9]+):([vqd])\}", sub, line))
    return registers(out)


def neon_column():
    """`column`'s instructions, cut at its labels: the setup, a step with
    all four operands (loop 2), the masked step (3), a step with two (loop
    4) and the tail (5). Each piece keeps its label."""
    text = open(os.path.join(SRC, "neon.rs")).read()
    body = text[text.index("fn column("):]
    body = body[body.index("asm!("):]
    body = body[:re.search(r"^\s+\w+ = (in|out|inout)\(", body, re.M).start()]
    lines = registers_with_vectors(literals(body))
    cuts = [lines.index(f"{label}:") for label in "2345"]
    setup, both, masked, rest, tail = (
        lines[i:j] for i, j in zip([0] + cuts, cuts + [len(lines)])
    )
    return setup, both, masked, rest, tail


def neon_block(path, function):
    """The whole asm block of `function` in `path` (under the aarch64
    backend)."""
    text = open(os.path.join(SRC, path)).read()
    body = text[text.index(f"fn {function}("):]
    body = body[body.index("asm!("):]
    body = body[:re.search(r"^\s+\w+ = (in|out|inout)\(", body, re.M).start()]
    return registers_with_vectors(literals(body))


def scalar_columns(columns, prelude=()):
    """Column sums as the compiler emits them for the portable fields: per
    limb product `mul`, `umulh`, `adds`, `adc`, the first of a column
    straight into its sum; `columns` is a list of columns, each a list of
    `(x, y)` register pairs (and a line of setup may precede a column:
    `(line,)`); the sums rotate over four register pairs (x19–x26), the
    products' halves in x27 and x28."""
    sums = [("x19", "x20"), ("x21", "x22"), ("x23", "x24"), ("x25", "x26")]
    lines = list(prelude)
    for index, column in enumerate(columns):
        lo, hi = sums[index % len(sums)]
        first = True
        for item in column:
            if len(item) == 1:
                lines.append(item[0])
                continue
            u, v = item
            if first:
                lines += [f"mul {lo}, {u}, {v}", f"umulh {hi}, {u}, {v}"]
                first = False
            else:
                lines += [f"mul x27, {u}, {v}", f"umulh x28, {u}, {v}",
                          f"adds {lo}, {lo}, x27", f"adc {hi}, {hi}, x28"]
    return lines


def half_product(x, y, square):
    """The columns of an m×m product of register lists x and y (a square:
    y holds x doubled, each cross product once)."""
    m = len(x)
    columns = []
    for k in range(2 * m - 1):
        pairs = [(i, k - i) for i in range(m) if 0 <= k - i < m]
        if square:
            columns.append([(y[i] if i != j else x[i], x[j]) for i, j in pairs if i <= j])
        else:
            columns.append([(x[i], y[j]) for i, j in pairs])
    return columns


def scalar_goldilocks(square):
    """The portable Goldilocks columns (`Goldilocks` in the field crate:
    three 4×4 half products, one level of Karatsuba), the halves' sums and
    a square's doubled operands too. The combination and the carries after
    are left out (NEON's columns need only the carries), which flatters the
    scalar side."""
    a_lo, a_hi = [f"x{i}" for i in range(4)], [f"x{i}" for i in range(4, 8)]
    b_lo, b_hi = [f"x{i}" for i in range(8, 12)], [f"x{i}" for i in range(12, 16)]
    # b holds the doubled limbs for a square; the sums go in place.
    double = [f"lsl {d}, {a}, #1" for d, a in zip(b_lo + b_hi, a_lo + a_hi)]
    columns = half_product(a_lo, b_lo, square) + half_product(a_hi, b_hi, square)
    sums = [(f"add {x}, {x}, {y}",) for x, y in zip(a_lo, a_hi)]
    if square:
        sums += [(f"lsl {d}, {a}, #1",) for d, a in zip(b_lo, a_lo)]
    else:
        sums += [(f"add {x}, {x}, {y}",) for x, y in zip(b_lo, b_hi)]
    middle = half_product(a_lo, b_lo, square)
    middle[0] = sums + middle[0]
    return scalar_columns(columns + middle, double if square else ())


def scalar_p336(square):
    """The portable 6×56 columns of `2^336 − 3` (schoolbook, the wrapped
    products against `3·b`; a square with each cross product once against
    the doubled limbs), as for 2^255 − 19."""
    a = [f"x{i}" for i in range(6)]
    b = [f"x{i}" for i in range(6, 12)]
    bc = [f"x{i}" for i in range(12, 18)]
    if square:
        prelude = [f"lsl {b[j]}, {a[j]}, #1" for j in range(6)]
        prelude += [f"add {bc[j]}, {a[j]}, {a[j]}, lsl #1" for j in range(6)]
        columns = [[(a[i] if i == j else b[i], a[j] if i + j < 6 else bc[j])
                    for i in range(6) for j in range(i, 6) if (i + j) % 6 == k]
                   for k in range(6)]
    else:
        prelude = [f"add {bc[j]}, {b[j]}, {b[j]}, lsl #1" for j in range(1, 6)]
        columns = [[(a[i], b[(k - i) % 6] if i <= k else bc[(k - i) % 6]) for i in range(6)]
                   for k in range(6)]
    return scalar_columns(columns, prelude)


def scalar_p521(square):
    """The portable 9×58 columns of `2^521 − 1` (`karatsuba3` in the field
    crate: six 3×3 products, the thirds' sums in place, a square's doubled
    operand in b); the combination and the carries left out."""
    a = [[f"x{3 * t + i}" for i in range(3)] for t in range(3)]
    b = [[f"x{9 + 3 * t + i}" for i in range(3)] for t in range(3)]
    columns = []
    for s, t in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
        product = half_product(a[s], b[s], square)
        setup = []
        if s != t:
            setup = [(f"add {x}, {x}, {y}",) for x, y in zip(a[s], a[t])]
            if not square:
                setup += [(f"add {x}, {x}, {y}",) for x, y in zip(b[s], b[t])]
        if square:
            setup += [(f"lsl {y}, {x}, #1",) for x, y in zip(a[s], b[s])]
        product[0] = setup + product[0]
        columns += product
    return scalar_columns(columns)


def scalar_field():
    """The portable 5×51 columns of a product (19·b for the wrapped
    products first)."""
    a = [f"x{i}" for i in range(5)]
    b = [f"x{i}" for i in range(5, 10)]
    bc = [None] + [f"x{i}" for i in range(10, 14)]
    prelude = [f"mul {bc[j]}, {b[j]}, x14" for j in range(1, 5)]
    columns = [[(a[i], b[(k - i) % 5] if i <= k else bc[(k - i) % 5]) for i in range(5)]
               for k in range(5)]
    return scalar_columns(columns, prelude)


def scalar_field_square():
    """The portable 5×51 columns of a square (each cross product once,
    doubled through the operand)."""
    a = [f"x{i}" for i in range(5)]
    a2 = [f"x{i}" for i in range(5, 10)]
    ac = [f"x{i}" for i in range(10, 15)]
    prelude = []
    for i in range(5):
        prelude += [f"lsl {a2[i]}, {a[i]}, #1", f"mul {ac[i]}, {a[i]}, x15"]
    columns = [[] for _ in range(5)]
    for i in range(5):
        columns[(2 * i) % 5].append((a[i], a[i] if 2 * i < 5 else ac[i]))
        for j in range(i + 1, 5):
            columns[(i + j) % 5].append((a2[i], a[j] if i + j < 5 else ac[j]))
    return scalar_columns(columns, prelude)


def neon_columns(n, square):
    """`(both, rest)` of each column of an n-limb modulus's multiplication
    or square, as `Amm::amm_one` makes them."""
    digits = -(-(64 * n + 30) // 28)
    digits += -digits % 4
    columns = []
    for col in range(2 * digits - 1):
        lo, hi = max(0, col - digits + 1), min(col, digits - 1)
        first = lo - lo % 4
        steps = (hi - first) // 4 + 1
        count = (col + 1) // 2 - first if square else 4 * steps
        both = max(-(-count // 4), 1) - 1
        columns.append((both, steps - both - 1))
    return columns


def cycles(mca, cpu, lines):
    source = "\n".join(lines) + "\n"
    result = subprocess.run(
        [mca, "-mtriple=aarch64", f"-mcpu={cpu}", f"-iterations={ITERATIONS}"],
        input=source, capture_output=True, text=True, check=True,
    )
    total = re.search(r"Total Cycles:\s+(\d+)", result.stdout)
    return int(total.group(1)) / ITERATIONS


def main():
    mca = sys.argv[1] if len(sys.argv) > 1 else "llvm-mca-19"
    kernels = {**row_kernels(), **unrolled_kernels()}
    version = subprocess.run([mca, "--version"], capture_output=True, text=True).stdout
    version = re.search(r"LLVM version ([\d.]+)", version).group(1)
    print(f"llvm-mca {version} model, {ITERATIONS} iterations; cycles per limb (rows) "
          "or per call / per limb product (Montgomery)")
    print()
    print("| kernel | " + " | ".join(CPUS) + " |")
    print("|---" * (len(CPUS) + 1) + "|")
    for name, (lines, per, unit) in kernels.items():
        cells = []
        for cpu in CPUS:
            c = cycles(mca, cpu, lines)
            cells.append(f"{c / per:.2f}" if unit == "limb" else f"{c:.0f} / {c / per:.2f}")
        print(f"| `{name}` ({len(lines)} instructions) | " + " | ".join(cells) + " |")
    # A column's cost: fixed, per step of loop 2 and per step of loop 4.
    setup, both, masked, rest, tail = neon_column()

    def column_cycles(cpu, b, r):
        return cycles(mca, cpu, setup + both * b + masked + rest * r + tail)

    column = {}
    cells = []
    for cpu in CPUS:
        fixed = column_cycles(cpu, 0, 0)
        per_both = (column_cycles(cpu, 8, 0) - fixed) / 8
        per_rest = (column_cycles(cpu, 0, 8) - fixed) / 8
        column[cpu] = (fixed, per_both, per_rest)
        cells.append(f"{fixed:.1f} + {per_both:.2f} / {per_rest:.2f}")
    print(f"| NEON `column`: alone + a step of 8 / 4 products "
          f"({len(both) - 1} / {len(rest) - 1} instructions) | " + " | ".join(cells) + " |")
    fields = (
        ("GF(2^255 − 19)", "mul_columns", neon_block("neon_field.rs", "mul_columns"),
         scalar_field(), scalar_field_square()),
        ("Goldilocks", "goldilocks_columns",
         neon_block("gen/field.rs", "goldilocks_columns"),
         scalar_goldilocks(False), scalar_goldilocks(True)),
        ("2^521 − 1", "p521_columns", neon_block("gen/field.rs", "p521_columns"),
         scalar_p521(False), scalar_p521(True)),
        ("2^336 − 3", "p336_columns", neon_block("gen/field.rs", "p336_columns"),
         scalar_p336(False), scalar_p336(True)),
    )
    for field, kernel, neon, product, square in fields:
        for what, scalar in (("product", product), ("square", square)):
            cells = []
            for cpu in CPUS:
                cells.append(f"{cycles(mca, cpu, scalar):.0f} / {cycles(mca, cpu, neon):.0f}")
            print(f"| {field} {what}, scalar / NEON `{kernel}` ({len(scalar)} / "
                  f"{len(neon)} instructions) | " + " | ".join(cells) + " |")
    print()
    print("Per exponent bit (a square and a fifth of a multiplication), cycles, "
          "scalar / NEON (ratio):")
    print()
    print("| modulus | " + " | ".join(CPUS) + " |")
    print("|---" * (len(CPUS) + 1) + "|")
    addmul = {cpu: cycles(mca, cpu, kernels["addmul_1"][0]) / 4 for cpu in CPUS}
    for n in (16, 32, 64):
        cells = []
        for cpu in CPUS:
            scalar = addmul[cpu] * ((n * (n - 1) / 2 + n * n) + 0.2 * 2 * n * n)
            fixed, per_both, per_rest = column[cpu]

            def amm(square):
                return sum(fixed + per_both * b + per_rest * r
                           for b, r in neon_columns(n, square))

            neon = amm(True) + 0.2 * amm(False)
            cells.append(f"{scalar:.0f} / {neon:.0f} ({neon / scalar:.2f})")
        print(f"| {64 * n} bits | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
