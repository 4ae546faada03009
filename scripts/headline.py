#!/usr/bin/env python3
"""Prints the headline figures of a cuprim-lab JSON file: each issue target beside its measured value."""
import json
import sys

# (op, variant, dtype, n, target speedup over the baseline) -- the targets the project tracks.
TARGETS = [
    ("sum", "production", "uint32", 1 << 28, 1.00),
    ("sum", "production", "float", 1 << 28, 1.00),
    ("sum", "production", "uint32", 1 << 20, 1.00),
    ("sum", "production", "float", 1 << 20, 1.00),
]


def main(path):
    data = json.load(open(path))
    rows = data.get("results", [])
    print(f"copy ceiling {(data.get('copy_ceiling_gbps') or 0):.0f} GB/s on {data.get('device', {}).get('name', '?')}")
    for op, variant, dtype, n, target in TARGETS:
        hit = [r for r in rows if r.get("op") == op and r.get("variant") == variant and r.get("dtype") == dtype
               and int(r.get("n", 0)) == n]
        if not hit:
            print(f"{op}/{variant}/{dtype}/n={n}: not measured")
            continue
        r = hit[0]
        s = r.get("speedup_vs_baseline") or 0
        verdict = "met" if s >= target else "NOT met"
        print(f"{op}/{variant}/{dtype}/n={n}: {(r.get('gbps') or 0):.0f} GB/s, {s:.3f}x {r.get('baseline')} "
              f"(target >= {target:.2f}x: {verdict}){'' if r.get('correct', True) else ' INCORRECT'}")


if __name__ == "__main__":
    main(sys.argv[1])
