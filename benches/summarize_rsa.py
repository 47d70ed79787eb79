#!/usr/bin/env python3
"""Prints the README's RSA table (criterion medians, rdtsc cycles when
measured, ratios numcrypt / peer) from criterion's output in
target/criterion, after `cargo bench --bench rsa`; then what blinding
costs.

Usage: python3 benches/summarize_rsa.py [target/criterion]
"""
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target", "criterion")
ROWS = [
    ("PKCS#1 v1.5 sign (SHA-256, blinded, checked)", "rsa_sign", [2048, 3072, 4096], "numcrypt"),
    ("PKCS#1 v1.5 verify (e = 65537)", "rsa_verify", [2048, 3072, 4096], "numcrypt"),
    ("key generation (median)", "rsa_keygen", [2048], "numcrypt"),
    ("key generation, all cores (median)", "rsa_keygen", [2048], "numcrypt_all_threads"),
]


def median(group, bits, peer):
    path = os.path.join(ROOT, group, f"{bits}_{peer}", "new", "estimates.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def fmt_time(ns):
    if ns is None:
        return "–"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def ratio(ours, peer):
    return f"{ours / peer:.2f}" if ours and peer else "–"


def main():
    print("| operation | bits | numcrypt | cycles | OpenSSL 3.0 | ÷ OpenSSL | RustCrypto `rsa` 0.9 | ÷ RustCrypto |")
    print("|---|---|---|---|---|---|---|---|")
    for name, group, sizes, ours in ROWS:
        for bits in sizes:
            t = median(group, bits, ours)
            if t is None:
                continue
            c = median(group + "_cycles", bits, ours)
            cycles = f"{c:,.0f}" if c else "–"
            o = median(group, bits, "openssl")
            r = median(group, bits, "rustcrypto")
            print(f"| {name} | {bits} | {fmt_time(t)} | {cycles} | {fmt_time(o)} | {ratio(t, o)} "
                  f"| {fmt_time(r)} | {ratio(t, r)} |")
    print()
    rows = []
    for bits in [2048, 3072, 4096]:
        blinded = median("rsa_blinding", bits, "numcrypt_blinded")
        plain = median("rsa_blinding", bits, "numcrypt_unblinded")
        refresh = median("rsa_blinding", bits, "numcrypt_refresh")
        if blinded and plain:
            rows.append(f"| {bits} | {fmt_time(plain)} | {fmt_time(blinded)} | "
                        f"{100 * (blinded / plain - 1):.1f} % | {fmt_time(refresh)} |")
    if rows:
        print("| bits | sign, unblinded | sign, blinded | blinding's share | one refresh (every 32 signatures) |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
