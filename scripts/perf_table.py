#!/usr/bin/env python3
"""The README's performance table: cuprim's speed-up over the baseline library (CUB) measured in the same run, one
column per GPU kind, generated only from the current figures, bench/results/h100.json and bench/results/h200.json.

    python3 scripts/perf_table.py                 # rewrite README.md between the perf markers
    python3 scripts/perf_table.py --check         # exit 1 if README.md is stale
    python3 scripts/perf_table.py --show FILE...  # print any lab JSON (a study, a sweep) as a table of its own

Rows of the two files are matched by case name; files written before the lab named its rows (no "name") match by
op, variant, type and n. Teaching ladders and sweep rows are left out (docs/figures draws the ladders). A row timed
in several placements of its buffers (docs/lab.md, "Placements") shows the range of its placements' ratios.
"""
import json
import os
import subprocess
import sys

from provenance import commits_by_tree


def build_commit(data):
    """The commit a result was built from: the one whose git tree is the result's stamped tree id (the checkout's own
    HEAD may be stale where the working tree was copied with an older .git; scripts/provenance.py), else what the
    checkout said, marked when its sources differed from it."""
    tree = data.get("tree")
    if tree and tree != "unknown":
        try:
            found = commits_by_tree(cwd=os.path.dirname(os.path.abspath(__file__))).get(tree)
            if found:
                return found[0]
        except (OSError, subprocess.CalledProcessError):
            pass
    commit = data.get("commit", "?")
    changes = data.get("changes")
    if changes and changes != "none":
        commit = f"{commit} + {changes} changes"
    return commit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- perf:begin -->", "<!-- perf:end -->"
CURRENT = [("H100", os.path.join("bench", "results", "h100.json")),
           ("H200", os.path.join("bench", "results", "h200.json"))]

# Files written before the lab named its rows: the family of a row by its op, and the rungs of the ladders.
LEGACY_FAMILY = {"sum": "reduce", "min": "reduce", "max": "reduce", "argmin": "reduce", "argmax": "reduce",
                 "inclusive_sum": "scan", "exclusive_sum": "scan", "select_if": "select", "select_flagged": "select",
                 "partition": "select", "unique": "select", "run_length_encode": "select", "reduce_sum": "segmented",
                 "inclusive_sum_by_key": "segmented", "spmv": "segmented", "keys": "radix_sort",
                 "pairs": "radix_sort", "segmented": "radix_sort"}
LEGACY_RUNGS = {"interleaved_divergent", "interleaved_strided", "sequential_addressing", "first_add_during_load",
                "unroll_last_warp", "complete_unroll", "multiple_elements", "warp_shuffle", "vector_loads",
                "single_pass", "dependent_launch", "hillis_steele", "blelloch", "reduce_then_scan",
                "decoupled_lookback"}


def fmt_n(n):
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def family(r):
    if r.get("family"):
        return r["family"]
    op = str(r.get("op", ""))
    if op.startswith(("even/", "range/", "ladder/", "entropy/", "policy/")):
        return "histogram"
    return LEGACY_FAMILY.get(op, "")


def is_ladder(r):
    name, op, variant = r.get("name") or "", str(r.get("op", "")), str(r.get("variant", ""))
    if name:
        return "/ladder/" in name
    return op.startswith("ladder/") or variant.startswith("ladder") or variant in LEGACY_RUNGS


def is_sweep(r):
    name = r.get("name") or ""
    return "/sweep/" in name or "/policy/" in name or str(r.get("op", "")).startswith("policy/")


def legacy_key(r):
    return (r.get("op"), r.get("variant"), r.get("dtype"), int(r.get("n") or 0))


def same_case(a, b):
    if a.get("name") and b.get("name"):
        return a["name"] == b["name"]
    return legacy_key(a) == legacy_key(b)


def placement_ratios(r):
    ps = [p for p in (r.get("placements") or []) if p.get("median_ms") and p.get("baseline_ms")]
    return [p["baseline_ms"] / p["median_ms"] for p in ps] if len(ps) > 1 else []


def speedup_cell(r):
    if r is None:
        return "-"
    if not r.get("correct", True):
        return "**incorrect**"
    s = r.get("speedup_vs_baseline")
    if not s:
        return "-"
    q = placement_ratios(r)
    return f"{s:.3f}x ({min(q):.3f}-{max(q):.3f})" if q else f"{s:.3f}x"


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def source_line(kind, path, data):
    dev = data.get("device", {})
    commit = build_commit(data)
    ceiling = data.get("copy_ceiling_gbps")
    ceiling = f"{ceiling:.0f} GB/s" if ceiling else "not recorded"
    return (f"- {kind} ({dev.get('name', '?')}): `{path}`, commit `{commit}`, {str(data.get('date', '?'))[:10]}, "
            f"copy ceiling {ceiling}.")


def current_table():
    files = [(kind, path, load(path)) for kind, path in CURRENT if os.path.exists(os.path.join(ROOT, path))]
    if not files:
        return "No GPU results committed yet: run `scripts/device_check` on a GPU machine.\n"
    merged = []  # [representative row, {kind: row}]
    for kind, _, data in files:
        for r in data.get("results", []):
            if is_ladder(r) or is_sweep(r):
                continue
            for entry in merged:
                if same_case(entry[0], r):
                    entry[1][kind] = r
                    break
            else:
                merged.append([r, {kind: r}])
    kinds = [kind for kind, _, _ in files]
    lines = [source_line(kind, path, data) for kind, path, data in files]
    lines += ["", "| family | op | variant | type | n | baseline | " + " | ".join(kinds) + " |",
              "| --- | --- | --- | --- | --- | --- | " + " | ".join("---:" for _ in kinds) + " |"]
    ranges = False
    for rep, by_kind in merged:
        if not any((r.get("speedup_vs_baseline") or not r.get("correct", True)) for r in by_kind.values()):
            continue  # no baseline on any GPU: nothing to compare
        ranges |= any(placement_ratios(r) for r in by_kind.values())
        baseline = next((r.get("baseline") for r in by_kind.values() if r.get("baseline")), "-")
        lines.append(f"| {family(rep)} | {rep.get('op')} | {rep.get('variant')} | {rep.get('dtype')} | "
                     f"{fmt_n(rep.get('n', 0))} | {baseline} | "
                     + " | ".join(speedup_cell(by_kind.get(k)) for k in kinds) + " |")
    if ranges:
        lines += ["", "In brackets: the lowest and highest ratio over the placements of the sort's buffers in physical",
                  "memory; the figure is the ratio of the means over the placements (docs/lab.md, \"Placements\")."]
    return "\n".join(lines) + "\n"


def file_table(path, data):
    """Every row of one lab run (`data`, read from `path`), as the README's tables used to show them."""
    dev = data.get("device", {})
    ceiling = data.get("copy_ceiling_gbps")
    ceiling = f"{ceiling:.0f} GB/s (read + write)" if ceiling else "not recorded"
    lines = [f"**{dev.get('name', os.path.basename(path))}** (`{path}`, commit `{data.get('commit', '?')}`, "
             f"{data.get('date', '?')}): device copy ceiling {ceiling}."]
    if data.get("note"):
        lines += ["", f"_{data['note']}_"]
    lines += ["", "| op | variant | type | n | time (ms) | GB/s | % copy | baseline | speed-up |",
              "| --- | --- | --- | --- | ---: | ---: | ---: | --- | ---: |"]
    for r in data.get("results", []):
        s = r.get("speedup_vs_baseline")
        variant = r.get("variant")
        if len(r.get("placements") or []) > 1:
            variant = f"{variant} (mean of {len(r['placements'])} placements)"
        lines.append(f"| {r.get('op')} | {variant} | {r.get('dtype')} | {fmt_n(r.get('n', 0))} | "
                     f"{(r.get('median_ms') or 0):.4f} | {(r.get('gbps') or 0):.0f} | "
                     f"{(r.get('pct_copy') or 0):.0f}% | "
                     f"{r.get('baseline') or '-'} | {f'{s:.3f}x' if s else '-'} |"
                     + ("" if r.get("correct", True) else " **incorrect** |"))
    return "\n".join(lines) + "\n"


def main(argv):
    if argv[:1] == ["--show"]:
        if len(argv) < 2:
            sys.exit("usage: perf_table.py --show FILE.json...")
        for path in argv[1:]:
            data = load(path)
            if isinstance(data, list):  # some studies hold several runs in one list, each with its "run" label
                for k, run in enumerate(data):
                    print(file_table(f"{path}, run {run.get('run', k + 1)}", run))
            else:
                print(file_table(path, data))
        return
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{current_table()}{END}{tail}"
    if "--check" in argv:
        sys.exit(0 if new == text else 1)
    open(readme, "w").write(new)


if __name__ == "__main__":
    main(sys.argv[1:])
