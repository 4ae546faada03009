#!/usr/bin/env python3
"""Draws the host-memory transfer study (the JSON written by `cuprim-lab transfer --json FILE`) as one PNG:
H2D, D2H and both-directions bandwidth, and the cost of allocation + free, against the buffer size (bytes, log
scale), one line per kind of host memory.

    python3 scripts/plot_transfer.py bench/studies/ooc/h100-transfer.json docs/figures/transfer-h100.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "pageable": ("malloc (pageable)", "tab:red", "o"),
    "pinned": ("cudaMallocHost (pinned)", "tab:blue", "s"),
    "pinned_wc": ("cudaHostAlloc write-combined", "tab:cyan", "^"),
    "managed": ("cudaMallocManaged, on demand", "tab:green", "v"),
    "managed_prefetch": ("cudaMallocManaged + prefetch", "tab:olive", "D"),
}


def main(src, dst):
    with open(src) as f:
        doc = json.load(f)
    rows = doc["rows"]
    kinds = [k for k in STYLE if any(r["kind"] == k for r in rows)]
    fig, axes = plt.subplots(2, 2, figsize=(13, 9), sharex=True)
    panels = [
        (axes[0][0], "h2d_gbps", "host → device (GB/s)"),
        (axes[0][1], "d2h_gbps", "device → host (GB/s)"),
        (axes[1][0], "bidir_gbps", "both directions at once, 2 streams (GB/s, sum)"),
        (axes[1][1], None, "allocation + free (ms, log)"),
    ]
    for ax, key, title in panels:
        for k in kinds:
            label, color, marker = STYLE[k]
            pts = [(r["bytes"], (r["alloc_ms"] + r["free_ms"]) if key is None else r[key])
                   for r in rows if r["kind"] == k]
            pts = [(b, v) for b, v in pts if v is not None]
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color, label=label, markersize=4)
        ax.set_xscale("log", base=2)
        if key is None:
            ax.set_yscale("log")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("buffer size (bytes)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(
        f"Host memory transfers on {doc['device']} ({doc['copy_engines']} copy engines), driver {doc['driver']}, "
        f"commit {doc['commit']}"
    )
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_transfer.py TRANSFER.json OUT.png")
    main(sys.argv[1], sys.argv[2])
