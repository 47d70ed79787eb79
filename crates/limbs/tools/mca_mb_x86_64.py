#!/usr/bin/env python3
"""Models the multi-buffer kernels' speed with llvm-mca 19, per core: a
model, not a measurement (the measured figures, on the one CPU the project
has, are in benches/RESULTS.md; this covers the others).

Usage: python3 tools/mca_mb_x86_64.py [LLVM_MCA]   (default: llvm-mca-19,
then /usr/lib/llvm-19/bin/llvm-mca)

The instructions come from the generators themselves
(`gen_mb_ifma_x86_64.py`, `gen_mb_avx2_x86_64.py`, `gen_mb_fma_x86_64.py`),
so the model describes
the code as it is: each kernel is written out whole (its loop, where it
has one, unrolled to the passes it makes), the placeholders bound to
registers, and llvm-mca runs it ten times back to back. Printed per kernel
and core: cycles a call, cycles per lane, and the ratio to that core's
multiplier bound in the same model: the IFMA (or `vpmuludq`) count times
the model's reciprocal throughput of one such instruction alone. The
models' own IFMA figures are listed first: llvm-mca's Zen 4 and Zen 5
models give 512- and 256-bit IFMA one every two cycles, where Zen 4 was
measured issuing two 256-bit IFMA a cycle (benches/RESULTS.md, "Zen 4"),
so the ratios on those cores compare the kernels with the model's bound,
not with the hardware's. The FMA kernels (radix 2^52 on the FMA units)
are printed against the AVX2 kernels for moduli of the same size: their
cycles a call ÷ the AVX2 kernel's; their zmm form against the AVX2
kernels' zmm form (AVX-512F), cycles a lane.
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_mb_avx2_x86_64 as avx2  # noqa: E402
import gen_mb_fma_x86_64 as fma  # noqa: E402
import gen_mb_ifma_x86_64 as ifma  # noqa: E402

CPUS = ("icelake-server", "sapphirerapids", "znver4", "znver5")
AVX2_CPUS = ("skylake", "icelake-server", "sapphirerapids", "znver3", "znver4", "znver5")
CALLS = 10
REGS = {"r": "rdi", "a": "rsi", "b": "rdx", "m": "rcx", "k0": "r8", "s": "r9",
        "n": "rax", "mask": "r10", "p": "r11", "q": "r12", "t:e": "r13d", "k": "r14",
        "bias": "r15"}


def mca_binary():
    if len(sys.argv) > 1:
        return sys.argv[1]
    for name in ("llvm-mca-19", "/usr/lib/llvm-19/bin/llvm-mca"):
        if shutil.which(name) or os.path.exists(name):
            return name
    sys.exit("llvm-mca 19 not found (apt-get install llvm-19)")


def straight_line(lines):
    """The kernel with its loops unrolled: a `2:` … `jnz 2b` block is
    repeated as many times as the `mov {n}, count` before it says, and the
    loop control dropped."""
    out, i = [], 0
    count = None
    while i < len(lines):
        line = lines[i]
        m = re.match(r"mov \{n\}, (\d+)$", line)
        if m:
            count = int(m.group(1))
            i += 1
            continue
        if line == "2:":
            end = lines.index("jnz 2b", i)
            body = [x for x in lines[i + 1:end] if x != "dec {n}" and x != ".p2align 4"]
            out += body * count
            i = end + 1
            continue
        if line != ".p2align 4":
            out.append(line)
        i += 1
    return out


def bind(lines):
    text = []
    for line in lines:
        for k, v in REGS.items():
            line = line.replace("{" + k + "}", v)
        text.append(line)
    return ".intel_syntax noprefix\n" + "\n".join(text) + "\n"


def run(mca, cpu, source, iterations):
    out = subprocess.run(
        [mca, f"-mcpu={cpu}", f"-iterations={iterations}"],
        input=source, capture_output=True, text=True, check=True,
    ).stdout
    return int(re.search(r"Total Cycles:\s+(\d+)", out).group(1))


def reciprocal(mca, cpu, instruction):
    """The model's cycles per `instruction` with eight independent ones."""
    body = "\n".join(instruction.format(i=i) for i in range(8))
    return run(mca, cpu, ".intel_syntax noprefix\n" + body + "\n", 1000) / 8000


def main():
    mca = mca_binary()
    zmm = "vpmadd52luq zmm{i}, zmm30, zmm31"
    ymm = "vpmuludq ymm{i}, ymm14, ymm15"
    print("model's reciprocal throughput, cycles: zmm IFMA / ymm vpmuludq")
    bound = {}
    for cpu in sorted(set(CPUS) | set(AVX2_CPUS)):
        bound[cpu] = (reciprocal(mca, cpu, zmm) if cpu in CPUS else None,
                      reciprocal(mca, cpu, ymm))
        shown = "-" if bound[cpu][0] is None else f"{bound[cpu][0]:.2f}"
        print(f"  {cpu}: {shown} / {bound[cpu][1]:.2f}")
    print()
    print("kernel: per core, cycles a call / per lane (ratio to the model's bound)")
    kernels = []
    for n, h in ifma.SIZES.items():
        kernels.append((f"IFMA AMM, {n} digits", ifma.amm(n, h), 4 * n * n + n, 8, CPUS, 0))
        kernels.append((f"IFMA AMS, {n} digits", ifma.ams(n, h), 3 * n * n + 2 * n, 8, CPUS, 0))
    for n in avx2.SIZES:
        kernels.append((f"AVX2 AMM, {n} digits", avx2.kernel(n, False), 2 * n * n - n, 4, AVX2_CPUS,
                        1))
        kernels.append((f"AVX2 AMS, {n} digits", avx2.kernel(n, True), (3 * n * n - n) // 2, 4,
                        AVX2_CPUS, 1))
    modelled = {}
    for name, lines, products, lanes, cpus, which in kernels:
        source = bind(straight_line(lines))
        cells = []
        for cpu in cpus:
            cycles = run(mca, cpu, source, CALLS) / CALLS
            modelled[name, cpu] = cycles
            ideal = products * bound[cpu][which]
            cells.append(f"{cpu} {cycles:.0f} / {cycles / lanes:.0f} ({cycles / ideal:.2f})")
        print(f"{name}: " + "; ".join(cells))
    print()
    print("FMA kernel: per core, cycles a call (÷ the AVX2 kernel for the same modulus size)")
    for n, n28 in zip(fma.SIZES, avx2.SIZES):
        for square, what in ((False, "AMM"), (True, "AMS")):
            source = bind(straight_line(fma.kernel(n, square)[0]))
            cells = []
            for cpu in AVX2_CPUS:
                cycles = run(mca, cpu, source, CALLS) / CALLS
                cells.append(f"{cpu} {cycles:.0f} ({cycles / modelled[f'AVX2 {what}, {n28} digits', cpu]:.2f})")
            print(f"FMA {what}, {n} digits: " + "; ".join(cells))
    print()
    print("zmm: FMA kernel ÷ the AVX2 kernels on zmm (AVX-512F), cycles a call (eight lanes each)")
    avx2.use_zmm(10)
    fma.use_zmm(24)
    zmm_cpus = ("skylake-avx512", "icelake-server", "sapphirerapids", "znver4", "znver5")
    for n, n28 in zip(fma.SIZES, avx2.SIZES):
        for square, what in ((False, "AMM"), (True, "AMS")):
            ours = bind(straight_line(fma.kernel(n, square)[0]))
            theirs = bind(straight_line(avx2.kernel(n28, square)))
            cells = []
            for cpu in zmm_cpus:
                a, b = run(mca, cpu, ours, CALLS) / CALLS, run(mca, cpu, theirs, CALLS) / CALLS
                cells.append(f"{cpu} {a:.0f} ({a / b:.2f})")
            print(f"FMA zmm {what}, {n} digits: " + "; ".join(cells))


if __name__ == "__main__":
    main()
