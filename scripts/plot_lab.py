#!/usr/bin/env python3
"""Draws figures from cuprim-lab JSON files as PNGs (matplotlib):

  - <family>-ladder-<gpu>.png   each family's teaching ladder: GB/s per rung, CUB on the same input (same run) and
                                the device copy ceiling (read + write) as lines; one panel per ladder of the family
  - histogram-entropy-<gpu>.png the histogram's entropy sweep: GB/s against the bits of entropy per sample, one line
                                per variant, CUB and the copy ceiling beside them (log scale)

    python3 scripts/plot_lab.py                              # bench/results/h200.json into docs/figures/
    python3 scripts/plot_lab.py A.json B.json --out DIR      # several files: each draws what it holds

A file may lack any of these rows (the quick suite runs the reduce and scan ladders only): what exists is drawn.
When two files give the same figure, the one with more rows is drawn. Files written before the lab named its rows
are read by op, variant, type and n.
"""
import argparse
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_table import family, fmt_n, is_ladder  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def gpu_kind(name):
    m = re.search(r"\b([A-Z]\d{2,3})\b", name or "")
    return m.group(1).lower() if m else re.sub(r"[^a-z0-9]+", "_", (name or "gpu").lower()).strip("_")


def runs_of(path):
    """The lab runs a file holds: one document, or a list of them (studies that kept several runs in one file)."""
    with open(path) as f:
        data = json.load(f)
    return data if isinstance(data, list) else [data]


def cub_gbps(rows):
    """CUB's rate on the rows' input: bytes / baseline time, i.e. cuprim's GB/s over its speed-up (median over rows)."""
    v = sorted(r["gbps"] / r["speedup_vs_baseline"] for r in rows if r.get("gbps") and r.get("speedup_vs_baseline"))
    return v[len(v) // 2] if v else None


def stamp(run, path):
    commit = run.get("commit", "?")
    if run.get("changes") and run["changes"] != "none":
        commit += f" + changes {run['changes']}"
    return f"{run.get('device', {}).get('name', '?')}, {os.path.relpath(path, ROOT)}, commit {commit}"


def ladders(run):
    """{family: [(title, rows in rung order)]} for the ladder rows of one run."""
    groups = {}
    for r in run.get("results", []):
        if not is_ladder(r) or not r.get("gbps"):
            continue
        key = (family(r), r.get("op"), r.get("dtype"), int(r.get("n") or 0))
        groups.setdefault(key, []).append(r)
    out = {}
    for (fam, op, dtype, n), rows in groups.items():
        title = f"{str(op).replace('ladder/', '')} bins, " if str(op).startswith("ladder/") else f"{op}, "
        out.setdefault(fam or "other", []).append((f"{title}{dtype}, n = {fmt_n(n)}", rows))
    return out


def draw_ladder(fam, panels, run, path, dst):
    ceiling = run.get("copy_ceiling_gbps")
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 4.2 * len(panels)), squeeze=False)
    for ax, (title, rows) in zip(axes[:, 0], panels):
        labels = [str(r.get("variant")).replace("ladder: ", "") for r in rows]
        values = [r["gbps"] for r in rows]
        colors = ["tab:blue"] * len(rows)
        cub = cub_gbps(rows)
        if cub:
            labels.append("CUB (same run)")
            values.append(cub)
            colors.append("tab:orange")
        bars = ax.bar(range(len(values)), values, color=colors)
        for b, v in zip(bars, values):
            ax.annotate(f"{v:.0f}", (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=8)
        if ceiling:
            ax.axhline(ceiling, color="tab:red", linestyle="--", linewidth=1,
                       label=f"device copy ceiling, {ceiling:.0f} GB/s (read + write)")
            ax.legend(loc="upper left", fontsize=8)
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels(labels, rotation=25, ha="right", fontsize=8)
        ax.set_ylabel("GB/s")
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"{fam} ladder: {stamp(run, path)}", fontsize=10)
    fig.tight_layout()
    fig.savefig(dst, dpi=100)
    plt.close(fig)


def entropy_rows(run):
    """{variant: [(bits, row)]} of the histogram's entropy sweep in one run."""
    out = {}
    for r in run.get("results", []):
        name, op = r.get("name") or "", str(r.get("op", ""))
        m = re.match(r"histogram/entropy/(\d+)bits/", name) or re.match(r"entropy/(\d+)bits$", op)
        if m and r.get("gbps"):
            out.setdefault(str(r.get("variant")), []).append((int(m.group(1)), r))
    return out


def draw_entropy(series, run, path, dst):
    ceiling = run.get("copy_ceiling_gbps")
    fig, ax = plt.subplots(figsize=(10, 5.5))
    styles = iter(zip("osD^v<>", ["tab:blue", "tab:green", "tab:purple", "tab:brown", "tab:cyan", "tab:olive"]))
    cub = {}
    for variant, pts in sorted(series.items()):
        pts.sort(key=lambda p: p[0])
        marker, color = next(styles, ("o", "tab:gray"))
        ax.plot([b for b, _ in pts], [r["gbps"] for _, r in pts], marker=marker, color=color, label=variant)
        for b, r in pts:
            if r.get("speedup_vs_baseline"):
                cub[b] = r["gbps"] / r["speedup_vs_baseline"]
    if cub:
        bits = sorted(cub)
        ax.plot(bits, [cub[b] for b in bits], marker="x", linestyle="--", color="tab:orange", label="CUB (same run)")
    if ceiling:
        ax.axhline(ceiling, color="tab:red", linestyle=":", linewidth=1,
                   label=f"device copy ceiling, {ceiling:.0f} GB/s (read + write)")
    first = next(iter(series.values()))[0][1]
    ax.set_yscale("log")
    ax.set_xlabel("bits of entropy per sample (the top k bits of a random byte kept; 0: all samples equal)")
    ax.set_ylabel("GB/s (log)")
    ax.set_title(f"histogram entropy sweep, 256 bins over {fmt_n(first.get('n', 0))} {first.get('dtype')}\n"
                 f"{stamp(run, path)}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", default=[os.path.join(ROOT, "bench", "results", "h200.json")])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "figures"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    chosen = {}  # file name -> (rows drawn, drawing function)
    for path in args.files:
        for run in runs_of(path):
            kind = gpu_kind(run.get("device", {}).get("name"))
            for fam, panels in ladders(run).items():
                size = sum(len(rows) for _, rows in panels)
                name = f"{fam}-ladder-{kind}.png"
                if size > chosen.get(name, (0, None))[0]:
                    chosen[name] = (size, lambda d, f=fam, p=panels, r=run, s=path: draw_ladder(f, p, r, s, d), path)
            series = entropy_rows(run)
            if series:
                size = sum(len(p) for p in series.values())
                name = f"histogram-entropy-{kind}.png"
                if size > chosen.get(name, (0, None))[0]:
                    chosen[name] = (size, lambda d, s=series, r=run, p=path: draw_entropy(s, r, p, d), path)
    if not chosen:
        print("nothing to draw: no ladder or entropy rows in " + ", ".join(args.files))
        return
    for name, (size, draw, path) in sorted(chosen.items()):
        dst = os.path.join(args.out, name)
        draw(dst)
        print(f"wrote {os.path.relpath(dst, ROOT)} ({size} rows of {os.path.relpath(path, ROOT)})")


if __name__ == "__main__":
    main()
