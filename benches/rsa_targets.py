#!/usr/bin/env python3
"""The RSA and modexp targets (issues 15 and 34), measured over several
rounds on this machine, against AWS-LC, today's OpenSSL (3.6, built from
source: the `openssl-vendored` feature) and the system's OpenSSL.

Each round runs, in rdtsc cycles, the comparisons the targets name, with
IFMA on, then with IFMA off on both sides (`NUMCRYPT_DISABLE=ifma` for
numcrypt, `OPENSSL_ia32cap=":~0x200000"` for OpenSSL and AWS-LC, which read
it), once with each OpenSSL (the benches link one at a time; AWS-LC is in
both): RSA PKCS#1 v1.5 signing at 2048, 3072 and 4096 bits
(`cargo bench --bench rsa`; once on a CPU without IFMA, where both
settings run the same code); constant-time modexp with a full-length
exponent at 1024, 1536, 2048 and 4096 bits against OpenSSL's
`BN_mod_exp_mont_consttime` (`cargo bench --bench limbs`), numcrypt's
default backend with IFMA on and its `mulx` limb kernels with IFMA off;
and, once a round, verification and RSA-2048 key generation (one thread)
against AWS-LC. Every ratio is numcrypt ÷ peer within one run; the table
gives each target's median ratio over the rounds, its range, and the ratio
of each side's fastest round (load on a shared machine only ever adds
time, so each side's fastest round is its least disturbed one). Rows
without a bound are for information.

Usage: python3 benches/rsa_targets.py [rounds]   (default 5; a round takes
about ten minutes, and the first build of OpenSSL from source a few more)
"""
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CRITERION = os.path.join(ROOT, "target", "criterion")
NO_IFMA = {"NUMCRYPT_DISABLE": "ifma", "OPENSSL_ia32cap": ":~0x200000"}
VENDORED = ["--features", "openssl-vendored"]


def openssl_versions():
    """{bench id of the peer: its version} for the system's and the vendored build."""
    out = {}
    for features in ([], VENDORED):
        listing = subprocess.run(["cargo", "bench", *features, "--bench", "rsa", "--", "--list"], cwd=ROOT,
                                 capture_output=True, text=True, check=True).stdout
        m = re.search(r"^OpenSSL peer: OpenSSL (\S+) .*\((\S+)\)$", listing, re.M)
        out[m.group(2)] = m.group(1)
    return out, next(line for line in listing.splitlines() if line.startswith("CPU:"))


def has_ifma():
    """Whether this CPU has AVX-512 IFMA: without it, turning IFMA off changes no signature."""
    with open("/proc/cpuinfo") as f:
        return re.search(r"\bavx512ifma\b", f.read()) is not None


def targets(system, vendored, versions, ifma):
    """(label, bench, group, bits, ours, peer, bound or None)."""
    rows = []
    for setting in ("", "_noifma"):
        off = " (IFMA off)" if setting else ""
        # Without IFMA, signing with it off is signing with it on: not run twice.
        for bits in (2048, 3072, 4096) if ifma or not setting else ():
            for peer, name, bound in (("aws-lc", "AWS-LC", 0.9),
                                      (vendored, f"OpenSSL {versions[vendored]}", 0.9),
                                      (system, f"OpenSSL {versions[system]}", None)):
                rows.append((f"sign {bits} ÷ {name}{off}", "rsa", f"rsa_sign{setting}_cycles", bits,
                             "numcrypt", peer, bound))
        for bits in (1024, 1536, 2048, 4096):
            ours = f"numcrypt-limb-kernels_U{bits}" if setting else f"numcrypt_U{bits}"
            what = "modexp, mulx limb kernels" if setting else "modexp"
            for peer, bound in ((vendored, 0.95 if setting else 0.8), (system, None)):
                rows.append((f"{what} {bits} ÷ OpenSSL {versions[peer]}{off}", "limbs",
                             f"modexp_ct{setting}_cycles", bits, ours,
                             f"{peer}_BN_mod_exp_mont_consttime", bound))
    for bits in (2048, 3072, 4096):
        rows.append((f"verify {bits} ÷ AWS-LC", "rsa", "rsa_verify_cycles", bits, "numcrypt", "aws-lc", 0.8))
    rows.append(("keygen 2048, one thread ÷ AWS-LC", "rsa", "rsa_keygen_cycles", 2048, "numcrypt", "aws-lc",
                 0.8))
    return rows


def median(group, bits, peer):
    path = os.path.join(CRITERION, group, f"{bits}_{peer}", "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def run_round(ifma):
    """One round: every group the targets read, with each OpenSSL, in both settings (signing
    once where the CPU has no IFMA)."""
    sizes = "(1024|1536|2048|4096)"
    plans = []
    for features in ([], VENDORED):
        plans += [
            (features, "rsa", "", r"^rsa_sign_cycles/[0-9]+/(numcrypt|aws-lc|openssl.*)$"),
            (features, "limbs", "", rf"^modexp_ct_cycles/{sizes}/(numcrypt_U[0-9]+|openssl.*_BN_.*)$"),
            (features, "limbs", "_noifma",
             rf"^modexp_ct_noifma_cycles/{sizes}/(numcrypt-limb-kernels_U[0-9]+|openssl.*_BN_.*)$"),
        ]
        if ifma:
            plans.append((features, "rsa", "_noifma",
                          r"^rsa_sign_noifma_cycles/[0-9]+/(numcrypt|aws-lc|openssl.*)$"))
    plans.append(([], "rsa", "", r"^rsa_(verify|keygen)_cycles/[0-9]+/(numcrypt|aws-lc)$"))
    for features, bench, setting, pattern in plans:
        env = dict(os.environ)
        env.pop("NUMCRYPT_DISABLE", None)
        env.pop("OPENSSL_ia32cap", None)
        if setting:
            env.update(NO_IFMA)
        subprocess.run(["cargo", "bench", *features, "--bench", bench, "--", pattern], cwd=ROOT, env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    versions, cpu = openssl_versions()
    system = "openssl"
    vendored = next(peer for peer in versions if peer != system)
    ifma = has_ifma()
    rows = targets(system, vendored, versions, ifma)
    ratios = {t[0]: [] for t in rows}
    cycles = {t[0]: ([], []) for t in rows}
    for r in range(rounds):
        run_round(ifma)
        for label, _, group, bits, ours, peer, _ in rows:
            a, b = median(group, bits, ours), median(group, bits, peer)
            ratios[label].append(a / b)
            cycles[label][0].append(a)
            cycles[label][1].append(b)
        print(f"round {r + 1} of {rounds} done", file=sys.stderr)
    print(f"{cpu}\n")
    print(f"The RSA and modexp targets over {rounds} rounds (numcrypt ÷ peer, rdtsc cycles; "
          f"`python3 benches/rsa_targets.py {rounds}`)\n")
    if not ifma:
        print("This CPU has no AVX-512 IFMA: the signing rows are also the IFMA-off ones.\n")
    print("| target | bound | median ratio | range | fastest rounds: kcycles, ratio | met |")
    print("|---|---|---|---|---|---|")
    for label, _, _, _, _, _, bound in rows:
        m = statistics.median(ratios[label])
        ours, theirs = (min(c) for c in cycles[label])
        best = ours / theirs
        met = "" if bound is None else ("yes" if m <= bound and best <= bound else "no")
        shown = "" if bound is None else f"≤ {bound:.2f}"
        print(f"| {label} | {shown} | **{m:.2f}** | {min(ratios[label]):.2f}–{max(ratios[label]):.2f} "
              f"| {ours / 1e3:.0f} vs {theirs / 1e3:.0f}: **{best:.2f}** | {met} |")


if __name__ == "__main__":
    main()
