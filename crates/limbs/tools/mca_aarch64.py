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
  src/backend/aarch64/gen/unrolled.rs, one whole call (no loop).
Operand names become registers x0..x28 (not x18) in order of appearance.
llvm-mca runs each body 400 times back to back and reports the cycles; a
row's figure is per limb (its four-limb body / 4), a Montgomery
multiplication's per call and per limb product (/ n², counting a·b only).
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
    """Replaces every `{name}` with a register, one per name."""
    names = {}
    out = []
    for line in lines:
        def sub(m):
            name = m.group(1)
            if name not in names:
                names[name] = REGISTERS[len(names)]
            return names[name]
        out.append(re.sub(r"\{([a-z_0-9]+)(?::[a-z])?\}", sub, line))
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


if __name__ == "__main__":
    main()
