#!/usr/bin/env python3
"""Prints the handshake bench's tables (criterion medians, as handshakes or
signatures per second, and numcrypt's ratio to each peer) as markdown.

With `--rounds N` it first runs `cargo bench -p numcrypt-rustls --bench
handshake` N times (under the caller's CARGO_TARGET_DIR) and gives, for
each row, the median over the rounds of each side's rate, the median and
range of the per-round ratio, and the ratio of each side's fastest round
(load on a shared machine only ever adds time, so each side's fastest round
is its least disturbed one). Without it, it reads the last run's output.

With several criterion folders (copies of one round's output each), each
is a round, as with `--rounds`.

Usage: python3 crates/rustls/benches/summarize.py [--rounds N] [criterion folder...]
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
PEERS = ["aws-lc-rs", "ring"]
ROWS = [
    ("handshake_server", "tls13_2048", "TLS 1.3, RSA-2048, 1 client"),
    ("handshake_server", "tls13_3072", "TLS 1.3, RSA-3072, 1 client"),
    ("handshake_server", "tls13_4096", "TLS 1.3, RSA-4096, 1 client"),
    ("handshake_server", "tls12_2048", "TLS 1.2, RSA-2048, 1 client"),
    ("handshake_loopback", "tls13_2048_1", "TLS 1.3, RSA-2048, 1 client"),
    ("handshake_loopback", "tls13_2048_8", "TLS 1.3, RSA-2048, 8 clients"),
    ("handshake_loopback", "tls13_3072_1", "TLS 1.3, RSA-3072, 1 client"),
    ("handshake_loopback", "tls13_3072_8", "TLS 1.3, RSA-3072, 8 clients"),
    ("handshake_loopback", "tls13_4096_1", "TLS 1.3, RSA-4096, 1 client"),
    ("handshake_loopback", "tls13_4096_8", "TLS 1.3, RSA-4096, 8 clients"),
    ("handshake_loopback_server_cpu", "tls13_2048_1", "TLS 1.3, RSA-2048, 1 client"),
    ("handshake_loopback_server_cpu", "tls13_2048_8", "TLS 1.3, RSA-2048, 8 clients"),
    ("handshake_loopback_server_cpu", "tls13_3072_1", "TLS 1.3, RSA-3072, 1 client"),
    ("handshake_loopback_server_cpu", "tls13_3072_8", "TLS 1.3, RSA-3072, 8 clients"),
    ("handshake_loopback_server_cpu", "tls13_4096_1", "TLS 1.3, RSA-4096, 1 client"),
    ("handshake_loopback_server_cpu", "tls13_4096_8", "TLS 1.3, RSA-4096, 8 clients"),
    ("rsa_sign", "2048", "RSA-2048 PSS-SHA512 signature"),
    ("rsa_sign", "3072", "RSA-3072 PSS-SHA512 signature"),
    ("rsa_sign", "4096", "RSA-4096 PSS-SHA512 signature"),
]
TITLES = {
    "handshake_server": "Server-side full handshakes per second (the server's calls only, in memory)",
    "handshake_loopback": "Full handshakes per second over loopback TCP, clients and server on this machine (wall time)",
    "handshake_loopback_server_cpu": "Server-side full handshakes per second of the server threads' CPU time, over loopback TCP",
    "rsa_sign": "The provider's RSA signer alone, per second",
}


def median_ns(root, group, case, provider):
    path = os.path.join(root, group, case, provider, "new", "estimates.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def rate(ns):
    return 1e9 / ns if ns else None


def fmt_rate(r):
    return f"{r:,.0f}" if r else "–"


def fmt_ratio(r):
    return f"{r:.2f}" if r else "–"


def table(rounds):
    """rounds: a list of {(group, case, provider): ns} dicts."""
    for group in TITLES:
        rows = [r for r in ROWS if r[0] == group]
        if not any(all(rd.get((group, case, "numcrypt")) for rd in rounds) for _, case, _ in rows):
            continue
        print(f"#### {TITLES[group]}\n")
        multi = len(rounds) > 1
        head = "| case | numcrypt | aws-lc-rs | ring | ÷ aws-lc-rs | ÷ ring |"
        if multi:
            head += " ÷ aws-lc-rs range | ÷ aws-lc-rs, fastest rounds |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for _, case, label in rows:
            per = {p: [rd.get((group, case, p)) for rd in rounds] for p in ["numcrypt"] + PEERS}
            if not all(per["numcrypt"]):
                continue
            med = {p: statistics.median(v) if all(v) else None for p, v in per.items()}
            ratios = {p: [o / t for o, t in zip(per[p], per["numcrypt"])] if all(per[p]) else None for p in PEERS}
            cells = [label] + [fmt_rate(rate(med[p])) for p in ["numcrypt"] + PEERS]
            cells += [fmt_ratio(statistics.median(ratios[p])) if ratios[p] else "–" for p in PEERS]
            if multi and ratios["aws-lc-rs"]:
                cells.append(f"{min(ratios['aws-lc-rs']):.2f}–{max(ratios['aws-lc-rs']):.2f}")
                cells.append(fmt_ratio(min(per["aws-lc-rs"]) / min(per["numcrypt"])))
            print("| " + " | ".join(cells) + " |")
        print()
    print("Ratios are numcrypt's rate ÷ the peer's (above 1: numcrypt is faster).")


def read(root):
    return {(g, c, p): median_ns(root, g, c, p) for g, c, _ in ROWS for p in ["numcrypt"] + PEERS}


def main():
    args = sys.argv[1:]
    rounds = 0
    if args[:1] == ["--rounds"]:
        rounds, args = int(args[1]), args[2:]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    roots = args or [os.path.join(target, "criterion")]
    if rounds == 0:
        if len(roots) > 1:
            print(f"{len(roots)} rounds; medians over rounds.\n")
        table([read(root) for root in roots])
        return
    root = roots[0]
    results = []
    for i in range(rounds):
        print(f"round {i + 1} of {rounds}", file=sys.stderr)
        subprocess.run(["cargo", "bench", "-p", "numcrypt-rustls", "--bench", "handshake"],
                       cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        results.append(read(root))
    print(f"{rounds} rounds; medians over rounds.\n")
    table(results)


if __name__ == "__main__":
    main()
