#!/usr/bin/env python3
"""Prints the benchmark tables (medians, rdtsc cycles, ratios) as markdown
from criterion's output in target/criterion, after `cargo bench --bench limbs`.

Usage: python3 benches/summarize.py [target/criterion]
"""
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target", "criterion")
GROUPS = ["mul", "square", "mont_mul", "modexp_ct"]


def median(group, bench_id):
    path = os.path.join(ROOT, group, bench_id, "new", "estimates.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def fmt_time(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.1f} ns"


def main():
    for group in GROUPS:
        gdir = os.path.join(ROOT, group)
        if not os.path.isdir(gdir):
            continue
        ids = sorted(os.listdir(gdir), key=lambda s: (int(s.split("_")[0]) if s[0].isdigit() else 0, s))
        sizes = sorted({int(i.split("_", 1)[0]) for i in ids if i[0].isdigit()})

        def peer_of(bench_id):
            peer = bench_id.split("_", 1)[1]
            return peer.rsplit("_U", 1)[0] if peer.startswith(("numcrypt", "crypto-bigint")) else peer

        peers = []
        for i in ids:
            if i[0].isdigit() and peer_of(i) not in peers:
                peers.append(peer_of(i))
        others = [p for p in peers if p != "numcrypt"]
        print(f"### `{group}`\n")
        print("| bits | numcrypt | cycles | " + " | ".join(f"{p} | cycles | numcrypt ÷ it" for p in others) + " |")
        print("|---" * (3 + 3 * len(others)) + "|")
        for bits in sizes:
            def find(peer):
                for i in ids:
                    if i.startswith(f"{bits}_") and peer_of(i) == peer:
                        return median(group, i), median(group + "_cycles", i)
                return None, None
            nt, nc = find("numcrypt")
            if nt is None:
                continue
            cells = [str(bits), fmt_time(nt), f"{nc:,.0f}" if nc else "–"]
            for p in others:
                t, c = find(p)
                if t is None:
                    cells += ["–", "–", "–"]
                    continue
                cells += [fmt_time(t), f"{c:,.0f}" if c else "–", f"{nt / t:.2f}"]
            print("| " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
