#!/usr/bin/env python3
"""Turns a tuning run (`cuprim-lab tune <family> --json FILE`) into rows of the compiled default table.

For each element type it prints the candidate that won the most tuning sizes (ties: the larger geometric-mean gain
over the default), as the C++ initializer of its policy with the row's provenance line: the GPU, the command, the
commit, and the gain over the current default at each tuned size, measured in the same run. The rows are printed, not
written into the headers: a table changes by a reviewed commit (docs/tuning/README.md, "Auto-tuning").

    python3 scripts/tuning_rows.py tune-h200.json [--min-gain 1.01]

A type whose winner is the current default, or gains less than --min-gain (geometric mean over the tuned sizes),
gets a line saying the row stands.
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from provenance import commits_by_tree  # noqa: E402


def size_label(n):
    k = n.bit_length() - 1
    if n == 1 << k:
        return f"2^{k}"
    for a in (3, 5, 7):
        if n % a == 0 and (n // a) & (n // a - 1) == 0:
            return f"{a}x2^{(n // a).bit_length() - 1}"
    return str(n)


def cpp_value(name, value):
    if isinstance(value, dict):
        inner = ", ".join(cpp_value(k, v) for k, v in value.items() if k != "policy")
        return f".{name} = {{{inner}}}"
    if isinstance(value, int) and value >= 2**40:
        return f".{name} = {value}ll"
    return f".{name} = {value}"


def cpp_policy(policy):
    fields = ", ".join(cpp_value(k, v) for k, v in policy.items() if k != "policy")
    return f"{policy['policy']}{{{fields}}}"


def built_from(report):
    """The commit whose tree the tuned binary was built from (scripts/provenance.py), else the stamped commit."""
    tree = report.get("tree")
    if tree and tree != "unknown":
        try:
            found = commits_by_tree(cwd=os.path.dirname(os.path.abspath(__file__))).get(tree)
            if found:
                return found[0]
        except Exception:  # no git here: the stamp is all there is
            pass
    return f"{report.get('commit', 'unknown')} as stamped"


def rows(report, min_gain):
    by_type = defaultdict(list)
    for r in report["results"]:
        if not r["held_out"] and r["best"] >= 0 and r["default_ms"]:
            by_type[r["type"]].append(r)
    out = []
    gpu = report["gpu"]
    cmd = f"cuprim-lab tune {report['family']}"
    commit = built_from(report)
    for t, results in by_type.items():
        wins = defaultdict(list)  # label -> [(n, gain)]
        for r in results:
            best = r["candidates"][r["best"]]
            wins[best["label"]].append((r["n"], r["default_ms"] / best["ms"]))
        # The candidate that won the most sizes; its gain at every tuned size where it was timed.
        label = max(wins, key=lambda k: (len(wins[k]), math.prod(g for _, g in wins[k]) ** (1 / len(wins[k]))))
        gains = []
        policy = None
        for r in results:
            c = next((c for c in r["candidates"] if c["label"] == label), None)
            if c is None or c["ms"] is None:
                continue
            policy = c["policy"]
            gains.append((r["n"], r["default_ms"] / c["ms"]))
        geo = math.prod(g for _, g in gains) ** (1 / len(gains)) if gains else 0
        per_size = ", ".join(f"{size_label(n)} {g:.3f}x" for n, g in gains)
        prov = (f"// sm_{report['cc']}, {t}: {gpu}, {cmd} ({commit}), {label}: {per_size} the default "
                f"(geomean {geo:.3f}x; won {len(wins[label])} of {len(results)} sizes)")
        if geo < min_gain:
            out.append(f"// {t}: the row stands ({label} won {len(wins[label])} of {len(results)} sizes, "
                       f"geomean {geo:.3f}x the default < {min_gain}) -- {gpu}, {cmd} ({commit})")
        else:
            out.append(prov)
            out.append(f"return {cpp_policy(policy)};")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", help="the JSON written by cuprim-lab tune --json")
    ap.add_argument("--min-gain", type=float, default=1.01, help="geometric-mean gain a row must bring (default 1.01)")
    a = ap.parse_args()
    with open(a.report) as f:
        report = json.load(f)
    for line in rows(report, a.min_gain):
        print(line)
    held = [r for r in report["results"] if r["held_out"] and r["best"] >= 0]
    for r in held:
        best = r["candidates"][r["best"]]["ms"]
        cached = r["candidates"][r["cached"]]["ms"] if r["cached"] >= 0 else r["default_ms"]
        print(f"// held out {r['type']} {size_label(r['n'])}: cached choice {best / cached:.3f}x the exhaustive best, "
              f"default {best / r['default_ms']:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
