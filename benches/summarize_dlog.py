#!/usr/bin/env python3
"""Prints the DSA and ElGamal benchmark tables (criterion medians, rdtsc
cycles when measured, ratios) as markdown from criterion's output in
target/criterion, after `cargo bench --bench dsa` and/or
`cargo bench --bench elgamal` (or any filtered part of them).

Usage: python3 benches/summarize_dlog.py [target/criterion]
"""
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target", "criterion")


def estimate(group, bench, stat="median"):
    path = os.path.join(ROOT, group, bench, "new", "estimates.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)[stat]["point_estimate"]


def fmt_time(ns):
    if ns is None:
        return "–"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def fmt_cycles(c):
    return f"{c:,.0f}" if c else "–"


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "–"


def benches(group):
    gdir = os.path.join(ROOT, group)
    if not os.path.isdir(gdir):
        return []
    return sorted(d for d in os.listdir(gdir) if os.path.isdir(os.path.join(gdir, d, "new")))


def dsa():
    rows = []
    for group, label in [("dsa_sign", "sign"), ("dsa_verify", "verify")]:
        for size in sorted({b.rsplit("_", 1)[0] for b in benches(group)}):
            ours, theirs = estimate(group, f"{size}_numcrypt"), estimate(group, f"{size}_openssl")
            oc, tc = estimate(group + "_cycles", f"{size}_numcrypt"), estimate(group + "_cycles", f"{size}_openssl")
            l, n = size.split("_")
            rows.append(f"| {label} | ({l}, {n}) | {fmt_time(ours)} | {fmt_cycles(oc)} | {fmt_time(theirs)} | {fmt_cycles(tc)} | {ratio(ours, theirs)} | {ratio(oc, tc)} |")
    if rows:
        print("### DSA: numcrypt against OpenSSL 3 (`openssl` crate), SHA-256, DER\n")
        print("| operation | (L, N) | numcrypt | cycles | OpenSSL | cycles | ratio (time) | ratio (cycles) |")
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(rows))
        print()
    group = "dsa_verify_multiexp"
    two, straus = estimate(group, "2048_256_two_pow_vartime"), estimate(group, "2048_256_straus_mul_square")
    if two and straus:
        print("### `g^u1 · y^u2 mod p` at (2048, 256)\n")
        print("| method | median | cycles |")
        print("|---|---|---|")
        print(f"| two `pow_vartime` (IFMA backend) | {fmt_time(two)} | {fmt_cycles(estimate(group + '_cycles', '2048_256_two_pow_vartime'))} |")
        print(f"| Straus, 4-bit windows, `MontyParams::mul`/`square` | {fmt_time(straus)} | {fmt_cycles(estimate(group + '_cycles', '2048_256_straus_mul_square'))} |")
        print()
    group = "dsa_paramgen"
    ours, theirs = estimate(group, "2048_256_numcrypt"), estimate(group, "2048_256_openssl")
    if ours and theirs:
        print("### DSA (2048, 256) parameter generation (one generation per sample)\n")
        print("| peer | median | mean | numcrypt ÷ peer (median) |")
        print("|---|---|---|---|")
        print(f"| numcrypt | {fmt_time(ours)} | {fmt_time(estimate(group, '2048_256_numcrypt', 'mean'))} | |")
        print(f"| OpenSSL `Dsa::generate_params(2048)` | {fmt_time(theirs)} | {fmt_time(estimate(group, '2048_256_openssl', 'mean'))} | {ratio(ours, theirs)} |")
        print()


def elgamal():
    enc, dec = "elgamal_encrypt", "elgamal_decrypt"
    rows = []
    for bench in sorted(benches(enc), key=lambda b: (int(b.split("_")[0]), b)):
        bits, name = bench.split("_")[0], bench.split("_")[1]
        rows.append(
            f"| {name} | {bits} | {fmt_time(estimate(enc, bench))} | {fmt_cycles(estimate(enc + '_cycles', bench))} "
            f"| {fmt_time(estimate(dec, bench))} | {fmt_cycles(estimate(dec + '_cycles', bench))} |"
        )
    if rows:
        print("### ElGamal, textbook, 32-byte message (exponents uniform in [1, q − 1])\n")
        print("| group | bits | encrypt | cycles | decrypt | cycles |")
        print("|---|---|---|---|---|---|")
        print("\n".join(rows))
        print()
    hyb = "elgamal_hybrid"
    if benches(hyb):
        print("### ElGamal hybrid (KEM + HKDF-SHA256 + ChaCha20-Poly1305), ffdhe2048, 1 KiB\n")
        print("| operation | median | cycles |")
        print("|---|---|---|")
        for op in ["seal", "open"]:
            b = f"2048_{op}_1KiB_numcrypt"
            print(f"| {op} | {fmt_time(estimate(hyb, b))} | {fmt_cycles(estimate(hyb + '_cycles', b))} |")
        print()
    job = "elgamal_pm2048_job"
    base = estimate(job, "2048_field_montgomery")
    base_c = estimate(job + "_cycles", "2048_field_montgomery")
    if base:
        print("### The 2^2048 − 1942289 group: `c^(q − x) mod p`, 2047-bit exponent\n")
        print("| variant | median | cycles | ÷ field Montgomery (time) | (cycles) |")
        print("|---|---|---|---|---|")
        for variant, label in [
            ("field_pseudo_mersenne", "field crate, pseudo-Mersenne reduction"),
            ("field_montgomery", "field crate, Montgomery, same prime"),
            ("field_montgomery_random_prime", "field crate, Montgomery, random safe prime"),
            ("limbs_montgomery_mulx", "limbs `MontyParams`, mulx kernels"),
            ("limbs_montgomery_ifma", "limbs `MontyParams`, AVX-512 IFMA (the crate's path here)"),
        ]:
            t, c = estimate(job, f"2048_{variant}"), estimate(job + "_cycles", f"2048_{variant}")
            print(f"| {label} | {fmt_time(t)} | {fmt_cycles(c)} | {ratio(t, base)} | {ratio(c, base_c)} |")
        print()


if __name__ == "__main__":
    dsa()
    elgamal()
