#!/usr/bin/env python3
"""Prints the README's RSA table (criterion medians, rdtsc cycles when
measured, ratios numcrypt / peer) from criterion's output in
target/criterion, after `cargo bench --bench rsa`; then what blinding
costs, and signing with multi-prime keys against two-prime ones. With `--noifma`, the groups of the run with IFMA off on both sides
(`NUMCRYPT_DISABLE=ifma OPENSSL_ia32cap=":~0x200000" cargo bench --bench
rsa`).

Usage: python3 benches/summarize_rsa.py [--noifma] [target/criterion]
"""
import json
import os
import sys

ARGS = [a for a in sys.argv[1:] if a != "--noifma"]
SUFFIX = "_noifma" if "--noifma" in sys.argv[1:] else ""
ROOT = ARGS[0] if ARGS else os.path.join(os.path.dirname(__file__), "..", "target", "criterion")
PEERS = [("aws-lc", "AWS-LC"), ("openssl", "OpenSSL 3.0"), ("ring", "ring"), ("graviola", "graviola"),
         ("rustcrypto", "RustCrypto `rsa`")]
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
    head = " | ".join(f"{label} | ÷ it" for _, label in PEERS)
    print(f"| operation | bits | numcrypt | cycles | {head} |")
    print("|---|---|---|---" + "|---|---" * len(PEERS) + "|")
    for name, group, sizes, ours in ROWS:
        group = group + SUFFIX
        for bits in sizes:
            t = median(group, bits, ours)
            if t is None:
                continue
            c = median(group + "_cycles", bits, ours)
            cycles = f"{c:,.0f}" if c else "–"
            cells = []
            for peer, _ in PEERS:
                p = median(group, bits, peer)
                cells.append(f"{fmt_time(p)} | {ratio(t, p)}")
            print(f"| {name} | {bits} | {fmt_time(t)} | {cycles} | " + " | ".join(cells) + " |")
    print()
    rows = []
    for bits in [2048, 3072, 4096]:
        blinded = median("rsa_blinding" + SUFFIX, bits, "numcrypt_blinded")
        plain = median("rsa_blinding" + SUFFIX, bits, "numcrypt_unblinded")
        refresh = median("rsa_blinding" + SUFFIX, bits, "numcrypt_refresh")
        if blinded and plain:
            rows.append(f"| {bits} | {fmt_time(plain)} | {fmt_time(blinded)} | "
                        f"{100 * (blinded / plain - 1):.1f} % | {fmt_time(refresh)} |")
    if rows:
        print("| bits | sign, unblinded | sign, blinded | blinding's share | one refresh (every 32 signatures) |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))
    print()
    rows = []
    for bits, primes in [(3072, 3), (4096, 3), (4096, 4)]:
        group = "rsa_multi_prime" + SUFFIX
        ours, ours2 = (median(group, bits, f"{k}p_numcrypt") for k in (primes, 2))
        theirs, theirs2 = (median(group, bits, f"{k}p_openssl") for k in (primes, 2))
        if ours and ours2:
            rows.append(f"| {bits} | {primes} | {fmt_time(ours2)} | {fmt_time(ours)} | "
                        f"{ratio(ours, ours2)} | {fmt_time(theirs2)} | {fmt_time(theirs)} | "
                        f"{ratio(theirs, theirs2)} | {ratio(ours, theirs)} |")
    if rows:
        print("| bits | primes | numcrypt, 2 primes | numcrypt | ÷ 2 primes | "
              "OpenSSL, 2 primes | OpenSSL | ÷ 2 primes | numcrypt ÷ OpenSSL |")
        print("|---|---|---|---|---|---|---|---|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
