#!/usr/bin/env python3
"""Where a loopback server's time goes, by provider: `perf record` of the
handshake bench's `handshake_loopback_server_cpu/tls13_<bits>_1/<provider>`
run, the samples of the server's threads only (named `hs-server`), grouped
into the RSA private operation, SHA-2, X25519, AES-GCM, allocation, rustls
and the kernel. Prints a markdown table of each group's share.

Linux with `perf` only. Run it on a quiet machine (it runs the bench for
`--seconds` per provider).

Usage: python3 crates/rustls/benches/server_profile.py [--bits 2048] [--seconds 6]
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
PROVIDERS = ["numcrypt", "aws-lc-rs", "ring"]
# (group, pattern on the symbol); the first match wins, kernel samples aside.
GROUPS = [
    ("RSA private operation", r"numcrypt_limbs|numcrypt_rsa|rsaz|RSAZ|bn_|BN_|extract_multiplier|RSA_|rsa_|mulx4x|LIMBS_|_mont\b"),
    ("SHA-2 (transcript, HKDF, the signed digest)", r"sha512|sha256|SHA384|SHA512|SHA256|HMAC|HKDF|sha2::|digest"),
    ("X25519", r"curve25519|x25519|X25519|fiat_25519|\bfe_|\bfe4_|\bge_"),
    ("AES-GCM", r"aes|gcm|GCM|AES|ghash|gfmul"),
    ("allocation and copies", r"malloc|free|memmove|memset|memcpy|calloc|realloc|rdl_alloc|__rust_alloc|__rust_dealloc"),
    ("rustls", r"rustls"),
]
KERNEL = "kernel (TCP, wakeups, system calls)"


def bench_executable():
    out = subprocess.run(
        ["cargo", "bench", "-p", "numcrypt-rustls", "--bench", "handshake", "--no-run",
         "--message-format=json"],
        cwd=REPO, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "handshake" \
                and msg.get("executable"):
            return msg["executable"]
    sys.exit("no handshake bench executable")


def shares(data):
    """Each group's share of the `hs-server` threads' samples."""
    out = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "comm,sym", "--stdio",
         "-F", "overhead,comm,sym"], check=True, capture_output=True, text=True).stdout
    total, groups = 0.0, collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)", line)
        if not m or m[2] != "hs-server":
            continue
        share, kernel, symbol = float(m[1]), m[3] == "k", m[4]
        group = KERNEL if kernel else next(
            (g for g, pattern in GROUPS if re.search(pattern, symbol)), "other")
        groups[group] += share
        total += share
    return {g: 100 * v / total for g, v in groups.items()}


def main():
    args = sys.argv[1:]
    bits, seconds = "2048", "6"
    while args:
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--bits":
            bits = value
        elif flag == "--seconds":
            seconds = value
        else:
            sys.exit(__doc__)
    exe = bench_executable()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for provider in PROVIDERS:
            data = os.path.join(tmp, f"{provider}.data")
            bench = f"^handshake_loopback_server_cpu/tls13_{bits}_1/{provider}$"
            subprocess.run(["perf", "record", "-F", "4999", "-o", data, exe, "--bench",
                            "--profile-time", seconds, bench],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            results[provider] = shares(data)
    names = [g for g, _ in GROUPS] + [KERNEL, "other"]
    print(f"Server threads' samples, TLS 1.3, RSA-{bits}, 1 client over loopback:\n")
    print("| | " + " | ".join(PROVIDERS) + " |")
    print("|---|" + "---|" * len(PROVIDERS))
    for name in names:
        cells = [f"{results[p].get(name, 0):.1f} %" for p in PROVIDERS]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
