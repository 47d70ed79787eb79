#!/usr/bin/env python3
"""Prints the prime benchmark tables (criterion medians, rdtsc cycles when
measured, ratios numcrypt / peer) as markdown from criterion's output in
target/criterion, after `cargo bench --bench prime -- <filter>`; for the
`table5` group, the time per prime and the overhead of MR64 over
average-case rounds.

Usage: python3 benches/summarize_prime.py [target/criterion]
"""
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target", "criterion")
GROUPS = {
    "prime_gen": "numcrypt_generate_prime",
    "safe_prime_gen": "numcrypt_generate_safe_prime",
    "is_prime": "numcrypt_is_prime_vartime",
}


def median(group, bits, peer):
    """The median per element: per prime for `table5`, whose iterations
    generate a fixed set of primes (criterion's throughput)."""
    new = os.path.join(ROOT, group, f"{bits}_{peer}", "new")
    path = os.path.join(new, "estimates.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        value = json.load(f)["median"]["point_estimate"]
    with open(os.path.join(new, "benchmark.json")) as f:
        throughput = json.load(f).get("throughput") or {}
    return value / throughput.get("Elements", 1)


def fmt_time(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def sizes(group):
    gdir = os.path.join(ROOT, group)
    if not os.path.isdir(gdir):
        return []
    return sorted({int(d.split("_", 1)[0]) for d in os.listdir(gdir) if d[0].isdigit()})


def peers(group, bits):
    prefix = f"{bits}_"
    return sorted(d[len(prefix):] for d in os.listdir(os.path.join(ROOT, group)) if d.startswith(prefix))


def main():
    for group, ours in GROUPS.items():
        for bits in sizes(group):
            base = median(group, bits, ours)
            if base is None:
                continue
            print(f"### `{group}` at {bits} bits\n")
            print("| peer | median | cycles | numcrypt ÷ peer |")
            print("|---|---|---|---|")
            for peer in peers(group, bits):
                t = median(group, bits, peer)
                if t is None:
                    continue
                c = median(group + "_cycles", bits, peer)
                cycles = f"{c:,.0f}" if c else "–"
                print(f"| {peer} | {fmt_time(t)} | {cycles} | {base / t:.2f} |")
            print()
    rows = []
    for bits in sizes("table5"):
        mr64 = median("table5", bits, "numcrypt_mr64")
        mrac = median("table5", bits, "numcrypt_mrac")
        if mr64 and mrac:
            rows.append(f"| {bits} | {fmt_time(mrac)} | {fmt_time(mr64)} | {100 * (mr64 / mrac - 1):.0f} % |")
    if rows:
        print("### Table 5: prime generation, MR64 against average-case rounds\n")
        print("| bits | average-case rounds (per prime) | MR64 (per prime) | overhead |")
        print("|---|---|---|---|")
        print("\n".join(rows))
        print()


if __name__ == "__main__":
    main()
