#!/usr/bin/env python3
"""Regenerates the performance table in README.md from the committed lab results in bench/results/*.json.

    python3 scripts/perf_table.py          # rewrite README.md between the perf markers
    python3 scripts/perf_table.py --check  # exit 1 if README.md is stale
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- perf:begin -->", "<!-- perf:end -->"


def fmt_n(n):
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def table():
    lines = []
    for path in sorted(glob.glob(os.path.join(ROOT, "bench", "results", "*.json"))):
        data = json.load(open(path))
        dev = data.get("device", {})
        ceiling = data.get('copy_ceiling_gbps')
        ceiling = f"{ceiling:.0f} GB/s (read + write)" if ceiling else "not recorded"
        lines.append(f"**{dev.get('name', os.path.basename(path))}** (`{os.path.relpath(path, ROOT)}`, commit "
                     f"`{data.get('commit', '?')}`, {data.get('date', '?')}): device copy ceiling {ceiling}.")
        if data.get('note'):
            lines.append("")
            lines.append(f"_{data['note']}_")
        lines.append("")
        lines.append("| op | variant | type | n | time (ms) | GB/s | % copy | baseline | speed-up |")
        lines.append("| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: |")
        for r in data.get("results", []):
            s = r.get("speedup_vs_baseline")
            variant = r.get('variant')
            if len(r.get("placements") or []) > 1:  # times are means over placements of the buffers (docs/lab.md)
                variant = f"{variant} (mean of {len(r['placements'])} placements)"
            lines.append(
                f"| {r.get('op')} | {variant} | {r.get('dtype')} | {fmt_n(r.get('n', 0))} | "
                f"{(r.get('median_ms') or 0):.4f} | {(r.get('gbps') or 0):.0f} | {(r.get('pct_copy') or 0):.0f}% | "
                f"{r.get('baseline') or '-'} | {f'{s:.3f}x' if s else '-'} |"
                + ("" if r.get("correct", True) else " **incorrect** |"))
        lines.append("")
    if not lines:
        lines = ["No GPU results committed yet: run `scripts/device_check` on a GPU machine.", ""]
    return "\n".join(lines)


def main():
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{table()}{END}{tail}"
    if "--check" in sys.argv:
        sys.exit(0 if new == text else 1)
    open(readme, "w").write(new)


if __name__ == "__main__":
    main()
