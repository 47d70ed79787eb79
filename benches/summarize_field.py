#!/usr/bin/env python3
"""Prints the prime-field tables (criterion medians, rdtsc cycles, ratios)
as markdown from criterion's output in target/criterion, after
`cargo bench --bench field`:

1. multiply and square per prime, every peer, with numcrypt's cycles
   divided by each peer's (below 1: numcrypt is faster): throughput
   (independent operations), then latency (the `_chain` groups: a chain of
   dependent operations, given per operation);
2. the efficiency ratio: a random prime's Montgomery multiplication
   divided by a special prime's multiplication of the same size, beside
   the 1.8-3.1 estimates it is compared with.

Each entry is measured twice, in wall time and in rdtsc cycles, by separate
criterion runs. On a shared machine whose clock drifts between states (the
one here runs some seconds about a third slower now and then), one of the
two can land in the slow state: an entry whose cycles per nanosecond stray
more than 15 % from the median of all entries is marked with a dagger, and
its ratio is not to be quoted; rerun it, e.g.
`cargo bench --bench field -- 'field_mul_cycles/m521/'`.

Usage: python3 benches/summarize_field.py [target/criterion]
"""
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target", "criterion")

PRIMES = [
    ("m127", "2^127 − 1"),
    ("c25519", "2^255 − 19"),
    ("pm336", "2^336 − 3"),
    ("pm384", "2^384 − 317"),
    ("pm414", "2^414 − 17"),
    ("pm448", "2^448 − 203"),
    ("goldilocks", "2^448 − 2^224 − 1"),
    ("pm512", "2^512 − 569"),
    ("m521", "2^521 − 1"),
    ("pm2048", "2^2048 − 1557"),
    ("p224", "P-224"),
    ("p256", "P-256"),
    ("p384", "P-384"),
    ("r256", "random 256-bit"),
    ("r384", "random 384-bit"),
    ("r448", "random 448-bit"),
    ("r512", "random 512-bit"),
    ("r521", "random 521-bit"),
]

# Special prime(s) against the random prime of the same size.
EFFICIENCY = [
    (256, ["c25519"], "r256"),
    (384, ["pm384", "pm336"], "r384"),
    (448, ["pm448", "goldilocks"], "r448"),
    (512, ["pm512"], "r512"),
    (521, ["m521"], "r521"),
]


def median(group, prime, peer):
    # criterion turns the id's "/" into "_" in directory names.
    path = os.path.join(ROOT, group, f"{prime}_{peer}", "new", "estimates.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def peers(group, prime):
    d = os.path.join(ROOT, group)
    if not os.path.isdir(d):
        return []
    found = [p[len(prime) + 1:] for p in os.listdir(d) if p.startswith(prime + "_")]
    order = ["numcrypt", "numcrypt_unsat", "numcrypt_saturated", "numcrypt_monty"]
    return [p for p in order if p in found] + sorted(p for p in found if p not in order)


def clock_ghz():
    """The median rdtsc cycles per nanosecond over every entry measured
    both ways: the machine's steady state."""
    rates = []
    for op in ("mul", "sqr"):
        for key, _ in PRIMES:
            for p in peers(f"field_{op}_cycles", key):
                c, t = median(f"field_{op}_cycles", key, p), median(f"field_{op}", key, p)
                if c and t:
                    rates.append(c / t)
    rates.sort()
    return rates[len(rates) // 2] if rates else None


FLAGGED = set()  # the prime ids with a dagger, for the rerun command


def mark(c, t, ghz, prime=None):
    """A dagger when cycles and time disagree (see the module doc)."""
    # Below 5 ns the two harnesses' fixed costs differ too much to compare.
    if c and t and t >= 5 and ghz and abs(c / t / ghz - 1) > 0.15:
        FLAGGED.add(prime)
        return "†"
    return ""


def fmt_time(ns):
    return f"{ns:.1f} ns" if ns < 1e3 else f"{ns / 1e3:.2f} µs"


CHAIN = 100  # operations per timed chain (benches/field.rs)


def table(op, ghz):
    group = f"field_{op}"
    per = CHAIN if op.endswith("_chain") else 1
    what = "latency: a chain's cycles (time) per operation" if per > 1 else "cycles (time)"
    print(f"### `{group}`: {what}, and numcrypt ÷ peer by cycles\n")
    print("| prime | numcrypt | other peers |")
    print("|---|---|---|")
    for key, label in PRIMES:
        ps = peers(group + "_cycles", key)
        nc = median(group + "_cycles", key, "numcrypt")
        if nc is None:
            continue
        nc /= per
        nt = median(group, key, "numcrypt")
        nt = nt / per if nt else nt
        cells = []
        for p in ps:
            if p == "numcrypt":
                continue
            c, t = median(group + "_cycles", key, p), median(group, key, p)
            if c is None:
                continue
            c, t = c / per, (t / per if t else t)
            ratio = f"{nc / c:.2f}" if nc else "–"
            when = f" ({fmt_time(t)})" if t else ""
            cells.append(f"{p} {c:,.0f}{mark(c, t, ghz, key)}{when}: **{ratio}**")
        head = (f"{nc:,.0f}{mark(nc, nt, ghz, key)}" if nc else "–") + (f" ({fmt_time(nt)})" if nt else "")
        print(f"| {label} | {head} | " + "; ".join(cells) + " |")
    if ghz:
        print(f"\n† cycles and time disagree by more than 15 % (the steady state is {ghz:.2f} "
              "cycles per ns): one of the two ran in a slow clock state; rerun that entry.")
    print()


def efficiency(ghz):
    print("### Efficiency ratio: random-prime Montgomery multiply ÷ special-prime multiply (cycles)\n")
    print("| bits | special prime | cycles | random prime (Montgomery) | cycles | ratio | estimate then |")
    print("|---|---|---|---|---|---|---|")
    labels = dict(PRIMES)

    def cycles(prime):
        c, t = median("field_mul_cycles", prime, "numcrypt"), median("field_mul", prime, "numcrypt")
        return c, (f"{c:,.0f}{mark(c, t, ghz, prime)}" if c else "")

    for bits, specials, rand in EFFICIENCY:
        rc, rtext = cycles(rand)
        for s in specials:
            sc, stext = cycles(s)
            if rc is None or sc is None:
                continue
            print(f"| {bits} | {labels[s]} | {stext} | {labels[rand]} | {rtext} | {rc / sc:.2f} | 1.8–3.1 |")
    print()


def main():
    ghz = clock_ghz()
    table("mul", ghz)
    table("sqr", ghz)
    table("mul_chain", ghz)
    table("sqr_chain", ghz)
    efficiency(ghz)
    if FLAGGED:
        ids = "|".join(k for k, _ in PRIMES if k in FLAGGED)
        print(f"Rerun the entries marked †: cargo bench --bench field -- 'field_(mul|sqr)(_chain)?(_cycles)?/({ids})/'")


if __name__ == "__main__":
    main()
