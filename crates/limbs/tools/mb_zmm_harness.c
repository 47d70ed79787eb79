/* The multi-buffer radix-2^28 kernels of tools/gen_mb_avx2_x86_64.py on
 * zmm registers (AVX-512F, eight lanes) against the AVX2 ones (four lanes)
 * they extend: outputs equal lane for lane, then the time a lane takes.
 * (`Exponentiation::Avx512Batch` runs them, from gen/avx512.rs;
 * benches/RESULTS.md, "AVX-512F without IFMA"):
 *
 *   python3 tools/gen_mb_avx2_x86_64.py --gas > /tmp/mb4.s
 *   python3 tools/gen_mb_avx2_x86_64.py --gas --zmm 20 > /tmp/mb8.s
 *   gcc -O2 tools/mb_zmm_harness.c /tmp/mb4.s /tmp/mb8.s -o /tmp/mb_zmm && /tmp/mb_zmm
 *
 * 1024-bit moduli m, random odd with the top bit set, passed as m' = m·k0
 * (38 digits, lowest 2^28 − 1, as the kernels need), random operands below
 * 2^1024 (below twice the modulus).
 */
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

#define N 38
#define A64 __attribute__((aligned(64)))
typedef void amm_t(uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *,
                   const uint64_t *, uint64_t *);
typedef void ams_t(uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *, uint64_t *);
extern amm_t amm_mb4_d38, amm_mb8_d38;
extern ams_t ams_mb4_d38, ams_mb8_d38;

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}

/* 17 limbs to 38 digits of 28 bits. */
static void to_digits(const uint64_t *limbs, uint64_t *d) {
    for (int j = 0; j < N; j++) {
        int w = 28 * j / 64, o = 28 * j % 64;
        uint64_t v = w < 17 ? limbs[w] >> o : 0;
        if (o > 36 && w + 1 < 17) v |= limbs[w + 1] << (64 - o);
        d[j] = v & 0xfffffff;
    }
}

static uint64_t m8[N][8] A64, a8[N][8] A64, b8[N][8] A64, r8[N][8] A64, s8[2 * N][8] A64, k8[8] A64;
static uint64_t m4[2][N][4] A64, a4[2][N][4] A64, b4[2][N][4] A64, r4[2][N][4] A64,
    s4[2 * N][4] A64, k4[2][4] A64;

static int same(uint64_t (*x8)[8], uint64_t (*x4)[N][4]) {
    for (int j = 0; j < N; j++)
        for (int k = 0; k < 8; k++)
            if (x8[j][k] != x4[k / 4][j][k % 4]) return 0;
    return 1;
}

int main(void) {
    for (int k = 0; k < 8; k++) {
        uint64_t m[17] = {0}, a[17] = {0}, b[17] = {0}, dm[N], da[N], db[N], inv = 1, k0;
        for (int i = 0; i < 16; i++) m[i] = next(), a[i] = next(), b[i] = next();
        m[0] |= 1, m[15] |= 1ull << 63;
        for (int i = 0; i < 6; i++) inv *= 2 - m[0] * inv;
        k0 = -inv & 0xfffffff;
        unsigned __int128 carry = 0;
        for (int i = 0; i < 17; i++) carry += (unsigned __int128)m[i] * k0, m[i] = (uint64_t)carry, carry >>= 64;
        to_digits(m, dm), to_digits(a, da), to_digits(b, db);
        k8[k] = k4[k / 4][k % 4] = k0;
        for (int j = 0; j < N; j++) {
            m8[j][k] = m4[k / 4][j][k % 4] = dm[j];
            a8[j][k] = a4[k / 4][j][k % 4] = da[j];
            b8[j][k] = b4[k / 4][j][k % 4] = db[j];
        }
    }
    for (int round = 0; round < 50; round++) {
        amm_mb8_d38(r8[0], a8[0], b8[0], m8[0], k8, s8[0]);
        for (int h = 0; h < 2; h++) amm_mb4_d38(r4[h][0], a4[h][0], b4[h][0], m4[h][0], k4[h], s4[0]);
        ams_mb8_d38(a8[0], r8[0], m8[0], k8, s8[0]);
        for (int h = 0; h < 2; h++) ams_mb4_d38(a4[h][0], r4[h][0], m4[h][0], k4[h], s4[0]);
        if (!same(r8, r4) || !same(a8, a4)) {
            printf("lanes differ at round %d\n", round);
            return 1;
        }
    }
    printf("50 multiplications and squares, every lane equal\n");
    const int n = 20000;
    for (int run = 0; run < 3; run++) {
        uint64_t t0 = __rdtsc();
        for (int i = 0; i < n; i++) ams_mb8_d38(r8[0], a8[0], m8[0], k8, s8[0]), ams_mb8_d38(a8[0], r8[0], m8[0], k8, s8[0]);
        uint64_t t1 = __rdtsc();
        for (int i = 0; i < n; i++) ams_mb4_d38(r4[0][0], a4[0][0], m4[0][0], k4[0], s4[0]), ams_mb4_d38(a4[0][0], r4[0][0], m4[0][0], k4[0], s4[0]);
        uint64_t t2 = __rdtsc();
        for (int i = 0; i < n; i++) amm_mb8_d38(r8[0], a8[0], b8[0], m8[0], k8, s8[0]), amm_mb8_d38(a8[0], r8[0], b8[0], m8[0], k8, s8[0]);
        uint64_t t3 = __rdtsc();
        for (int i = 0; i < n; i++) amm_mb4_d38(r4[0][0], a4[0][0], b4[0][0], m4[0][0], k4[0], s4[0]), amm_mb4_d38(a4[0][0], r4[0][0], b4[0][0], m4[0][0], k4[0], s4[0]);
        uint64_t t4 = __rdtsc();
        double sq8 = (t1 - t0) / (16.0 * n), sq4 = (t2 - t1) / (8.0 * n);
        double mu8 = (t3 - t2) / (16.0 * n), mu4 = (t4 - t3) / (8.0 * n);
        printf("rdtsc cycles a lane: square zmm %.1f, ymm %.1f (%.2f); multiplication zmm %.1f, ymm %.1f (%.2f)\n",
               sq8, sq4, sq8 / sq4, mu8, mu4, mu8 / mu4);
    }
    return 0;
}
