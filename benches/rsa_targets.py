#!/usr/bin/env python3
"""Issue 15's targets, measured over several rounds on this machine.

Each round runs, in rdtsc cycles, the comparisons the targets name, with
IFMA on, then with IFMA off on both sides (`NUMCRYPT_DISABLE=ifma` for
numcrypt, `OPENSSL_ia32cap=":~0x200000"` for OpenSSL and AWS-LC, which read
it): RSA PKCS#1 v1.5 signing at 2048, 3072 and 4096 bits against AWS-LC and
OpenSSL (`cargo bench --bench rsa`), constant-time modexp with a full-length
exponent at 1024, 2048 and 4096 bits against OpenSSL's
`BN_mod_exp_mont_consttime` (`cargo bench --bench limbs`), and, with IFMA
on, verification against AWS-LC and RSA-2048 key generation against
AWS-LC on one thread. Every ratio is numcrypt ÷ peer within one run; the
table gives each target's median ratio over the rounds, its range, and the
ratio of each side's fastest round (load on a shared machine only ever adds
time, so each side's fastest round is its least disturbed one).

Usage: python3 benches/rsa_targets.py [rounds]   (default 5, a few minutes each)
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CRITERION = os.path.join(ROOT, "target", "criterion")
NO_IFMA = {"NUMCRYPT_DISABLE": "ifma", "OPENSSL_ia32cap": ":~0x200000"}

# (label, bench, group, bits, ours, peer, bound, setting); setting "" or "_noifma"
TARGETS = []
for setting in ("", "_noifma"):
    off = " (IFMA off)" if setting else ""
    for bits in (2048, 3072, 4096):
        for peer, name in (("aws-lc", "AWS-LC"), ("openssl", "OpenSSL")):
            TARGETS.append((f"sign {bits} ÷ {name}{off}", "rsa", f"rsa_sign{setting}_cycles", bits,
                            "numcrypt", peer, 0.9, setting))
    for bits in (1024, 2048, 4096):
        ours = f"numcrypt_U{bits}"
        TARGETS.append((f"modexp {bits} ÷ OpenSSL{off}", "limbs", f"modexp_ct{setting}_cycles", bits,
                        ours, "openssl_BN_mod_exp_mont_consttime", 0.95 if setting else 0.8, setting))
for bits in (2048, 3072, 4096):
    TARGETS.append((f"verify {bits} ÷ AWS-LC", "rsa", "rsa_verify_cycles", bits, "numcrypt", "aws-lc", 0.8, ""))
TARGETS.append(("keygen 2048, one thread ÷ AWS-LC", "rsa", "rsa_keygen_cycles", 2048, "numcrypt", "aws-lc", 0.8, ""))


def median(group, bits, peer):
    path = os.path.join(CRITERION, group, f"{bits}_{peer}", "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def run_round():
    """One round: every group the targets read, in both settings."""
    plans = [
        ("rsa", "", r"^rsa_(sign|verify|keygen)_cycles/[0-9]+/(numcrypt|aws-lc|openssl)$"),
        ("rsa", "_noifma", r"^rsa_sign_noifma_cycles/[0-9]+/(numcrypt|aws-lc|openssl)$"),
        ("limbs", "", r"^modexp_ct_cycles/(1024|2048|4096)/(numcrypt_U[0-9]+|openssl_.*)$"),
        ("limbs", "_noifma", r"^modexp_ct_noifma_cycles/(1024|2048|4096)/(numcrypt_U[0-9]+|openssl_.*)$"),
    ]
    for bench, setting, pattern in plans:
        env = dict(os.environ)
        env.pop("NUMCRYPT_DISABLE", None)
        env.pop("OPENSSL_ia32cap", None)
        if setting:
            env.update(NO_IFMA)
        subprocess.run(["cargo", "bench", "--bench", bench, "--", pattern], cwd=ROOT, env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    out = subprocess.run(["cargo", "bench", "--bench", "rsa", "--", "--list"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    cpu = next((line for line in out.splitlines() if line.startswith("CPU:")), "CPU: unknown")
    ratios = {t[0]: [] for t in TARGETS}
    cycles = {t[0]: ([], []) for t in TARGETS}
    for r in range(rounds):
        run_round()
        for label, _, group, bits, ours, peer, _, _ in TARGETS:
            a, b = median(group, bits, ours), median(group, bits, peer)
            ratios[label].append(a / b)
            cycles[label][0].append(a)
            cycles[label][1].append(b)
        print(f"round {r + 1} of {rounds} done", file=sys.stderr)
    print(f"{cpu}\n")
    print(f"Issue 15's targets over {rounds} rounds (numcrypt ÷ peer, rdtsc cycles; "
          f"`python3 benches/rsa_targets.py {rounds}`)\n")
    print("| target | bound | median ratio | range | fastest rounds: kcycles, ratio | met |")
    print("|---|---|---|---|---|---|")
    for label, _, _, _, _, _, bound, _ in TARGETS:
        m = statistics.median(ratios[label])
        ours, theirs = (min(c) for c in cycles[label])
        best = ours / theirs
        met = "yes" if m <= bound and best <= bound else "no"
        print(f"| {label} | ≤ {bound:.2f} | **{m:.2f}** | {min(ratios[label]):.2f}–{max(ratios[label]):.2f} "
              f"| {ours / 1e3:.0f} vs {theirs / 1e3:.0f}: **{best:.2f}** | {met} |")


if __name__ == "__main__":
    main()
