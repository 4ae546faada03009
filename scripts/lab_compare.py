#!/usr/bin/env python3
"""Compare lab runs of two builds row by row: is every row of B within a tolerance of A?

    scripts/lab_compare.py --a A1.json [A2.json ...] --b B1.json [B2.json ...] [--tolerance 1.5]

Each side may give several runs of the same suite (e.g. A B A B in one device call, so that drift of the card's
clocks or temperature falls on both sides alike); a row's time on a side is the mean of its runs' medians. Rows are
matched by op, variant, dtype and n (which renaming a family's cases leaves as they were). Prints, per row, both times, B/A,
and both sides' speed-ups over the baseline measured in the same runs, then the rows outside the tolerance. Exits 1
when a row is outside it or a row of A is missing from B.
"""
import argparse
import json
import statistics
import sys


def key(row):
    return f'{row["op"]}|{row["variant"]}|{row["dtype"]}|{row["n"]}'


def load(paths):
    rows, order = {}, []
    for p in paths:
        with open(p) as f:
            seen = set()
            for r in json.load(f)["results"]:
                k = key(r)
                if k in seen:
                    sys.exit(f"lab_compare: two rows of {p} share op, variant, dtype and n: {k}")
                seen.add(k)
                if k not in rows:
                    rows[k] = []
                    order.append(k)
                rows[k].append(r)
    return rows, order


def mean(values):
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", nargs="+", required=True, help="runs of the first build (before)")
    ap.add_argument("--b", nargs="+", required=True, help="runs of the second build (after)")
    ap.add_argument("--tolerance", type=float, default=1.5, help="largest |B/A - 1| in percent (default 1.5)")
    ap.add_argument("--label-a", default="before")
    ap.add_argument("--label-b", default="after")
    args = ap.parse_args()
    a, order = load(args.a)
    b, _ = load(args.b)
    width = max(len(k) for k in order)
    print(f'{"row":<{width}}  {args.label_a + " ms":>12}  {args.label_b + " ms":>12}  {"B/A":>7}  '
          f'{"speed-up A":>10}  {"speed-up B":>10}')
    outside, missing = [], []
    for k in order:
        if k not in b:
            missing.append(k)
            continue
        ta = mean(r.get("median_ms") for r in a[k])
        tb = mean(r.get("median_ms") for r in b[k])
        sa = mean(r.get("speedup_vs_baseline") for r in a[k])
        sb = mean(r.get("speedup_vs_baseline") for r in b[k])
        if ta is None or tb is None:
            print(f"{k:<{width}}  (not timed)")
            continue
        q = tb / ta
        fmt = lambda s: f"{s:.3f}x" if s is not None else "-"
        flag = "" if abs(q - 1) * 100 <= args.tolerance else "  <-- outside"
        print(f"{k:<{width}}  {ta:12.5f}  {tb:12.5f}  {q:7.4f}  {fmt(sa):>10}  {fmt(sb):>10}{flag}")
        if flag:
            outside.append((k, q))
    runs = f"{len(args.a)} run(s) of {args.label_a}, {len(args.b)} of {args.label_b}"
    print(f"\n{len(order) - len(missing)} rows compared ({runs}); tolerance ±{args.tolerance}%")
    for k, q in outside:
        print(f"outside: {k}: {100 * (q - 1):+.2f}%")
    for k in missing:
        print(f"missing in {args.label_b}: {k}")
    return 1 if outside or missing else 0


if __name__ == "__main__":
    sys.exit(main())
