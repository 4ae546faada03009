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
    # The radix sort (issue 4); the large sorts are means over placements of their buffers (docs/lab.md).
    ("keys", "production random", "uint32", 1 << 28, 1.10),
    ("pairs", "production random", "uint32+uint32", 1 << 27, 1.10),
    ("keys", "production random", "uint64", 1 << 27, 1.10),
    ("keys", "production random", "float", 1 << 28, 1.10),
    ("segmented", "2^20 random segments", "uint32", 1 << 24, 1.00),
]
# (op, variant, dtype, n, reference variant, most time over the reference's): low-entropy sorts against random keys.
RELATIVE = [
    ("keys", "production 1 bit/byte", "uint32", 1 << 28, "production random", 1.10),
    ("keys", "production all equal", "uint32", 1 << 28, "production random", 1.10),
]


def find(rows, op, variant, dtype, n):
    hit = [r for r in rows if r.get("op") == op and r.get("variant") == variant and r.get("dtype") == dtype
           and int(r.get("n", 0)) == n]
    return hit[0] if hit else None


def spread(r):
    """ (mean of N placements, lo-hi x)" for a row timed in several placements, else ''."""
    ps = [p for p in (r.get("placements") or []) if p.get("median_ms") and p.get("baseline_ms")]
    if len(ps) < 2:
        return ""
    q = [p["baseline_ms"] / p["median_ms"] for p in ps]
    return f" (mean of {len(ps)} placements, {min(q):.3f}-{max(q):.3f}x)"


def main(path):
    data = json.load(open(path))
    rows = data.get("results", [])
    print(f"copy ceiling {(data.get('copy_ceiling_gbps') or 0):.0f} GB/s on {data.get('device', {}).get('name', '?')}")
    for op, variant, dtype, n, target in TARGETS:
        r = find(rows, op, variant, dtype, n)
        if not r:
            print(f"{op}/{variant}/{dtype}/n={n}: not measured")
            continue
        s = r.get("speedup_vs_baseline") or 0
        verdict = "met" if s >= target else "NOT met"
        print(f"{op}/{variant}/{dtype}/n={n}: {(r.get('gbps') or 0):.0f} GB/s, {s:.3f}x {r.get('baseline')}{spread(r)} "
              f"(target >= {target:.2f}x: {verdict}){'' if r.get('correct', True) else ' INCORRECT'}")
    for op, variant, dtype, n, ref_variant, most in RELATIVE:
        r, ref = find(rows, op, variant, dtype, n), find(rows, op, ref_variant, dtype, n)
        if not r or not ref or not r.get("median_ms") or not ref.get("median_ms"):
            continue
        q = r["median_ms"] / ref["median_ms"]
        verdict = "met" if q <= most else "NOT met"
        print(f"{op}/{variant}/{dtype}/n={n}: {r['median_ms']:.4f} ms, {q:.3f} x {ref_variant}'s time "
              f"(target <= {most:.2f}: {verdict}){'' if r.get('correct', True) else ' INCORRECT'}")


if __name__ == "__main__":
    main(sys.argv[1])
