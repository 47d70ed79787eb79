#!/usr/bin/env python3
"""Models, per aarch64 core, the field operations as the crate executes them:
a model, not a measurement (there is no aarch64 machine here, and qemu's
timings mean nothing).

Usage (from the workspace root):
    python3 crates/field/tools/trace_aarch64.py [LLVM_MCA]   (default: llvm-mca-19)
Needs the aarch64-unknown-linux-gnu Rust target, aarch64-linux-gnu-gcc,
-objdump and -nm, qemu-aarch64-static (7.2 or later) and llvm-mca.

1. Builds `examples/aarch64_steps.rs` for aarch64 (static, so that its
   addresses are the file's): one multiplication and one square of each
   field that has two representations, each in a function of its own.
2. Runs it under qemu one instruction at a time (`-one-insn-per-tb`, or
   `-singlestep` before qemu 8.1, with `-d exec,nochain`), which logs the
   address of every instruction executed,
   as `-cpu max` (the scalar paths) and as `-cpu neoverse-n1` (the limbs
   crate's NEON rule picks NEON column kernels there).
3. Takes each step function's last call from the log, callees and the
   kernels' loops included, and puts the instructions executed, in order,
   from the disassembly into one straight block (branches, `adr` and
   `adrp` left out: their operands are addresses, not labels). The
   instruction counts printed are those of the `-cpu max` path.
4. Hands each block to llvm-mca per core model: the cycles of one block
   alone (latency, roughly: a chain waits for each operation) and per block
   over 100 back to back (throughput: llvm-mca does not see the
   dependency through memory from one call's result to the next call's
   operand, so the blocks overlap).
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
TARGET = "aarch64-unknown-linux-gnu"
TARGET_DIR = os.path.join(ROOT, "target", "trace-aarch64")
BINARY = os.path.join(TARGET_DIR, TARGET, "release", "examples", "aarch64_steps")
MODELS = ("cortex-a55", "cortex-a72", "cortex-a76", "neoverse-n1", "neoverse-n2",
          "neoverse-v1", "neoverse-v2", "apple-m1", "ampere1")
# (field, the other representation), the default first.
PAIRS = (("fp25519", "fp25519_saturated"), ("fp336", "fp336_saturated"),
         ("fp414", "fp414_saturated"), ("fp521", "fp521_saturated"),
         ("goldilocks", "goldilocks_monty"))
SKIPPED = {"b", "bl", "blr", "br", "ret", "cbz", "cbnz", "tbz", "tbnz", "adrp", "adr"}


def build():
    env = dict(os.environ)
    env["CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER"] = "aarch64-linux-gnu-gcc"
    env["RUSTFLAGS"] = "-C target-feature=+crt-static -C relocation-model=static"
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "numcrypt-field", "--example",
                    "aarch64_steps", "--target", TARGET, "--target-dir", TARGET_DIR],
                   cwd=ROOT, env=env, check=True)


def disassembly():
    """Address -> instruction text, and step function name -> address."""
    text = subprocess.run(["aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn", BINARY],
                          capture_output=True, text=True, check=True).stdout
    insns = {}
    for line in text.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m:
            args = re.sub(r"\s*<[^>]*>", "", m.group(3).split("//")[0]).strip()
            insns[int(m.group(1), 16)] = (m.group(2), args)
    symbols = subprocess.run(["aarch64-linux-gnu-nm", "-C", BINARY],
                             capture_output=True, text=True, check=True).stdout
    steps = {}
    for line in symbols.splitlines():
        m = re.match(r"^([0-9a-f]+) [tT] aarch64_steps::step_(\w+)$", line)
        if m:
            steps[m.group(2)] = int(m.group(1), 16)
    return insns, steps


def one_insn_flag():
    """qemu's switch for one instruction per translation block: renamed in
    8.1 (the old name was removed in 9.0)."""
    version = subprocess.run(["qemu-aarch64-static", "--version"],
                             capture_output=True, text=True, check=True).stdout
    major, minor = map(int, re.search(r"version (\d+)\.(\d+)", version).groups())
    return "-one-insn-per-tb" if (major, minor) >= (8, 1) else "-singlestep"


def executed(qemu_cpu):
    """The address of every instruction the program executes, in order."""
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        subprocess.run(["qemu-aarch64-static", "-cpu", qemu_cpu, one_insn_flag(),
                        "-d", "exec,nochain", "-D", log.name, BINARY],
                       check=True, stdout=subprocess.DEVNULL)
        pcs = []
        for line in open(log.name):
            m = re.search(r"\[[0-9a-f]+/([0-9a-f]+)/", line)
            if m:
                pcs.append(int(m.group(1), 16))
    return pcs


def block(pcs, insns, name, entry):
    """The instructions of the last call of `name` (at `entry`), to its
    return: the last time `entry` follows a call."""
    calls = [k for k in range(1, len(pcs))
             if pcs[k] == entry and insns.get(pcs[k - 1], ("",))[0] in ("bl", "blr")]
    if not calls:
        sys.exit(f"trace_aarch64: step_{name} was never called")
    i = calls[-1]
    body, depth = [], 0
    while True:
        if i == len(pcs) or pcs[i] not in insns:
            sys.exit(f"trace_aarch64: step_{name}'s trace left the disassembly")
        op, args = insns[pcs[i]]
        if op in ("bl", "blr"):
            depth += 1
        elif op == "ret":
            if depth == 0:
                return body
            depth -= 1
        if op not in SKIPPED and not op.startswith("b."):
            body.append(f"{op} {args}")
        i += 1


def mca(llvm_mca, model, body):
    """(cycles of the block alone, cycles per block over 100)."""
    with tempfile.NamedTemporaryFile("w", suffix=".s") as f:
        f.write("\n".join(body) + "\n")
        f.flush()
        cycles = []
        for iterations in (1, 100):
            out = subprocess.run([llvm_mca, "-mtriple=aarch64", f"-mcpu={model}",
                                  f"-iterations={iterations}", f.name],
                                 capture_output=True, text=True, check=True).stdout
            total = int(re.search(r"Total Cycles:\s+(\d+)", out).group(1))
            cycles.append(total / iterations)
    return cycles


def main():
    llvm_mca = sys.argv[1] if len(sys.argv) > 1 else "llvm-mca-19"
    build()
    insns, steps = disassembly()
    wanted = {f"{f}_{op}" for pair in PAIRS for f in pair for op in ("mul", "sqr")}
    if not wanted <= steps.keys():
        sys.exit(f"trace_aarch64: no symbol for {sorted(wanted - steps.keys())}")
    blocks = collections.defaultdict(dict)
    for qemu_cpu in ("max", "neoverse-n1"):
        pcs = executed(qemu_cpu)
        for name, entry in steps.items():
            blocks[qemu_cpu][name] = block(pcs, insns, name, entry)
    cycles = {}
    for default, other in PAIRS:
        for op in ("mul", "sqr"):
            for name in (f"{default}_{op}", f"{other}_{op}"):
                for model in MODELS:
                    path = blocks["neoverse-n1" if model == "neoverse-n1" else "max"]
                    cycles[name, model] = mca(llvm_mca, model, path[name])
    print("Cycles of one operation alone, default representation / the other (÷);\n"
          "in brackets the instructions of the scalar path (`-cpu max`):\n")
    table(cycles, blocks, 0)
    print("\nThe same, cycles per operation over 100 back to back (throughput):\n")
    table(cycles, blocks, 1)


def table(cycles, blocks, which):
    """One markdown table: `which` 0 for a lone operation, 1 for throughput."""
    print("| operation | " + " | ".join(MODELS) + " |")
    print("|---|" + "---|" * len(MODELS))
    for default, other in PAIRS:
        for op in ("mul", "sqr"):
            a, b = f"{default}_{op}", f"{other}_{op}"
            cells = []
            for model in MODELS:
                x, y = cycles[a, model][which], cycles[b, model][which]
                cells.append(f"{x:.0f} / {y:.0f} ({x / y:.2f})")
            counts = f" [{len(blocks['max'][a])} / {len(blocks['max'][b])}]" if which == 0 else ""
            print(f"| `{default}` / `{other}` {op}{counts} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
