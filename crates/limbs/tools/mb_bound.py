#!/usr/bin/env python3
"""Measures the multi-buffer kernels against their multiplier's bound on
this CPU (the measured counterpart of `mca_mb_x86_64.py`'s models).

Usage: python3 tools/mb_bound.py   (needs gcc; x86_64 with AVX2, AVX-512F
for the AVX2 kernels on zmm registers, AVX-512 IFMA for the IFMA kernels)

The kernels come from the generators (`--gas`), linked into a C harness
that times, in rdtsc ticks, chains of calls (each call's output the next
one's input, as in an exponentiation) and, in the same process, the
multiplier alone: independent `vpmadd52luq` on zmm registers, independent
`vpmuludq` on ymm registers, and `vpmuludq` each with its `vpaddq` (what a
product costs the AVX2 kernels) on ymm and on zmm registers. A kernel's bound is its multiplier
instructions (IFMA: 4N² + N for the multiplication, 3N² + 2N for the square;
`vpmuludq`: 2N² − N and 1.5N² − 0.5N) at the multiplier's measured rate,
so the ratio holds whatever the core's clock against the TSC. Minimum of
31 runs of each. Prints the CPU first.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_mb_avx2_x86_64 as avx2  # noqa: E402
import gen_mb_ifma_x86_64 as ifma  # noqa: E402

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

typedef void (*amm_t)(uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *,
                      const uint64_t *, uint64_t *);
typedef void (*ams_t)(uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *,
                      uint64_t *);
%(decls)s

static uint64_t tick(void) { unsigned aux; return __rdtscp(&aux); }
static uint64_t rnd(void) { return ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ rand(); }

#define CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", \
  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#define PEAK(name, body, per)                                                   \
  static double name(void) {                                                    \
    double best = 1e9;                                                          \
    for (int run = 0; run < 31; run++) {                                        \
      uint64_t t0 = tick();                                                     \
      for (int i = 0; i < 20000; i++) __asm__ volatile(body ::: CLOBBERS);      \
      double t = (double)(tick() - t0) / (20000.0 * per);                      \
      if (t < best) best = t;                                                   \
    }                                                                           \
    return best;                                                                \
  }
#define EIGHT(op, a, b) \
  op " " a ", " b ", %%zmm0\n" op " " a ", " b ", %%zmm1\n" op " " a ", " b ", %%zmm2\n" \
  op " " a ", " b ", %%zmm3\n" op " " a ", " b ", %%zmm4\n" op " " a ", " b ", %%zmm5\n" \
  op " " a ", " b ", %%zmm6\n" op " " a ", " b ", %%zmm7\n"
#define EIGHTY(op, a, b) \
  op " " a ", " b ", %%ymm0\n" op " " a ", " b ", %%ymm1\n" op " " a ", " b ", %%ymm2\n" \
  op " " a ", " b ", %%ymm3\n" op " " a ", " b ", %%ymm4\n" op " " a ", " b ", %%ymm5\n" \
  op " " a ", " b ", %%ymm6\n" op " " a ", " b ", %%ymm7\n"
#define PAIR(i) "vpmuludq %%ymm14, %%ymm15, %%ymm" #i "\n vpaddq %%ymm" #i ", %%ymm1" #i ", %%ymm1" #i "\n"
#define PAIRZ(i) "vpmuludq %%zmm14, %%zmm15, %%zmm" #i "\n vpaddq %%zmm" #i ", %%zmm1" #i ", %%zmm1" #i "\n"
%(ifma_peak)s
PEAK(mul_peak, ".rept 4\n" EIGHTY("vpmuludq", "%%ymm14", "%%ymm15") ".endr", 32)
PEAK(mul_add_peak, ".rept 4\n" PAIR(0) PAIR(1) PAIR(2) PAIR(3) ".endr", 16)

static double best_of(void (*f)(void *), void *ctx) {
  double best = 1e18;
  for (int run = 0; run < 31; run++) {
    uint64_t t0 = tick();
    f(ctx);
    double t = (double)(tick() - t0);
    if (t < best) best = t;
  }
  return best;
}

struct job { amm_t amm; ams_t ams; int n, lanes; uint64_t *a, *b, *m, *r, *s, *k0; };
#define CALLS 200
static void run_amm(void *p) { struct job *j = p;
  for (int i = 0; i < CALLS; i++) { j->amm(j->r, j->a, j->b, j->m, j->k0, j->s); j->amm(j->a, j->r, j->b, j->m, j->k0, j->s); } }
static void run_ams(void *p) { struct job *j = p;
  for (int i = 0; i < CALLS; i++) { j->ams(j->r, j->a, j->m, j->k0, j->s); j->ams(j->a, j->r, j->m, j->k0, j->s); } }

static void kernel(const char *what, amm_t amm, ams_t ams, int n, int lanes, int bits,
                   double mults_amm, double mults_ams, double peak, const char *unit) {
  static uint64_t a[8 * 80] __attribute__((aligned(64))), b[8 * 80] __attribute__((aligned(64))),
      m[8 * 80] __attribute__((aligned(64))), r[8 * 80] __attribute__((aligned(64))),
      s[8 * 160] __attribute__((aligned(64))), k0[8] __attribute__((aligned(64)));
  uint64_t mask = (1ULL << bits) - 1;
  srand(n);
  for (int k = 0; k < lanes; k++) {
    for (int j = 0; j < n; j++) {
      m[lanes * j + k] = rnd() & mask; a[lanes * j + k] = rnd() & mask; b[lanes * j + k] = rnd() & mask;
    }
    m[k] |= 1; m[lanes * (n - 1) + k] >>= 3; a[lanes * (n - 1) + k] >>= 2; b[lanes * (n - 1) + k] >>= 2;
    uint64_t inv = 1;
    for (int i = 0; i < 6; i++) inv *= 2 - m[k] * inv;
    k0[k] = (0 - inv) & mask;
  }
  struct job j = {amm, ams, n, lanes, a, b, m, r, s, k0};
  double tm = best_of(run_amm, &j) / (2.0 * CALLS), ts = best_of(run_ams, &j) / (2.0 * CALLS);
  printf("%s, %d digits: multiplication %.0f ticks, %.2fx its bound; square %.0f ticks, %.2fx (bound: %s)\n",
         what, n, tm, tm / (mults_amm * peak), ts, ts / (mults_ams * peak), unit);
}

int main(void) {
%(main)s
  return 0;
}
"""

IFMA_PEAK = 'PEAK(ifma_peak, ".rept 4\\n" EIGHT("vpmadd52luq", "%%zmm30", "%%zmm31") ".endr", 32)'
ZMM_PEAK = 'PEAK(zmul_add_peak, ".rept 4\\n" PAIRZ(0) PAIRZ(1) PAIRZ(2) PAIRZ(3) ".endr", 16)'


def cpu_name():
    with open("/proc/cpuinfo") as f:
        text = f.read()
    name = re.search(r"model name\s*:\s*(.*)", text).group(1)
    family = re.search(r"cpu family\s*:\s*(\d+)", text).group(1)
    model = re.search(r"model\s*:\s*(\d+)", text).group(1)
    flags = re.search(r"flags\s*:\s*(.*)", text).group(1).split()
    return f"{name} (family {family}, model {model})", "avx512ifma" in flags, "avx512f" in flags


def main():
    name, has_ifma, has_avx512 = cpu_name()
    print(f"CPU: {name}")
    gas = [".intel_syntax noprefix", ".text"]
    decls, body = [], []
    if has_ifma:
        body.append('  double ip = ifma_peak();')
        body.append('  printf("zmm vpmadd52luq: %.3f ticks each\\n", ip);')
    body.append('  double mp = mul_peak(), map = mul_add_peak();')
    body.append('  printf("ymm vpmuludq: %.3f ticks each; with its vpaddq: %.3f\\n", mp, map);')
    if has_ifma:
        for n, h in ifma.SIZES.items():
            gas.append(ifma.gas_kernel(f"amm_mb8_d{n}", ifma.amm(n, h), False))
            gas.append(ifma.gas_kernel(f"ams_mb8_d{n}", ifma.ams(n, h), True))
            decls.append(f"void amm_mb8_d{n}(); void ams_mb8_d{n}();")
            body.append(f'  kernel("IFMA, 8 lanes", (amm_t)amm_mb8_d{n}, (ams_t)ams_mb8_d{n}, {n}, 8, 52, '
                        f'{4 * n * n + n}.0, {3 * n * n + 2 * n}.0, ip, "zmm IFMA");')
    for n in avx2.SIZES:
        gas.append(avx2.gas_kernel(f"amm_mb4_d{n}", avx2.kernel(n, False), False))
        gas.append(avx2.gas_kernel(f"ams_mb4_d{n}", avx2.kernel(n, True), True))
        decls.append(f"void amm_mb4_d{n}(); void ams_mb4_d{n}();")
        for peak, unit in (("mp", "vpmuludq"), ("map", "vpmuludq with its vpaddq")):
            body.append(f'  kernel("AVX2, 4 lanes", (amm_t)amm_mb4_d{n}, (ams_t)ams_mb4_d{n}, {n}, 4, 28, '
                        f'{2 * n * n - n}.0, {1.5 * n * n - 0.5 * n}, {peak}, "{unit}");')
    if has_avx512:
        avx2.use_zmm(10)  # as gen/avx512.rs
        body.append('  double zmap = zmul_add_peak();')
        body.append('  printf("zmm vpmuludq with its vpaddq: %.3f ticks each\\n", zmap);')
        for n in avx2.SIZES:
            gas.append(avx2.gas_kernel(f"amm_mb8z_d{n}", avx2.kernel(n, False), False))
            gas.append(avx2.gas_kernel(f"ams_mb8z_d{n}", avx2.kernel(n, True), True))
            decls.append(f"void amm_mb8z_d{n}(); void ams_mb8z_d{n}();")
            body.append(f'  kernel("AVX-512F, 8 lanes", (amm_t)amm_mb8z_d{n}, (ams_t)ams_mb8z_d{n}, {n}, 8, 28, '
                        f'{2 * n * n - n}.0, {1.5 * n * n - 0.5 * n}, zmap, "zmm vpmuludq with its vpaddq");')
    peaks = (IFMA_PEAK if has_ifma else "") + "\n" + (ZMM_PEAK if has_avx512 else "")
    source = (
        HARNESS.replace("%(decls)s", "\n".join(decls))
        .replace("%(ifma_peak)s", peaks)
        .replace("%(main)s", "\n".join(body))
    )
    with tempfile.TemporaryDirectory() as tmp:
        asm, c, exe = (os.path.join(tmp, f) for f in ("k.s", "h.c", "h"))
        with open(asm, "w") as f:
            f.write("\n".join(gas) + "\n.section .note.GNU-stack,\"\",@progbits\n")
        with open(c, "w") as f:
            f.write(source)
        subprocess.run(["gcc", "-O2", "-mavx2", "-o", exe, c, asm], check=True)
        subprocess.run([exe], check=True)


if __name__ == "__main__":
    sys.exit(main())
