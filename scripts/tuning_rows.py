#!/usr/bin/env python3
"""Turns a tuning run (`cuprim-lab tune <family> --json FILE`) into rows of the compiled default table.

For each element type it prints the candidate that won the most tuning sizes (ties: the larger geometric-mean gain
over the default), as the C++ initializer of its policy with the row's provenance line: the GPU, the command, the
commit, and the gain over the current default at each tuned size, measured in the same run. The rows are printed, not
written into the headers: a table changes by a reviewed commit (docs/tuning/README.md, "Auto-tuning").

    python3 scripts/tuning_rows.py tune-h200.json [--min-gain 1.01]

A type whose winner gains less than --min-gain over the default (geometric mean over the tuned sizes where it was
timed), or loses more than --max-loss at any of them, gets a line saying the row stands, with the per-size figures:
one row serves every size, so a winner of the small sizes alone is not a row (a size-dependent table is).

For the 16-bit GEMM (`cuprim-lab tune gemm --exhaustive --json FILE`) the rows are the tile configurations of
blas::gemm_sm90_tile_row_for, and what a run measures is each row's `speed`, the chooser's weight: a full wave's
throughput relative to row 0. Per grid shape of at least --min-volume multiply-adds where both were timed unsplit, the
implied speed is (t0 / t_r) x (row 0's wave and padding efficiency / row r's), the model's own factors taken out; the
row's speed is their median, printed with the quartiles and the count. With --chooser SPEEDS,COST,STEPS (rows 1 to 3's
speeds, the split cost, the least k steps per slice) it also replays blas::gemm_sm90_plan_for with those constants on
every shape of the run and reports how close its plans come to the best plan timed there: the geometric mean, the
worst and the count at 0.90x or better, for the grid and the held-out shapes, and how many shapes it left out because
their replayed plan was not timed (a slice count no candidate gave there, or a search that did not reach it).
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_table import build_commit  # noqa: E402


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


def rows(report, min_gain, max_loss):
    by_type = defaultdict(list)
    for r in report["results"]:
        if not r["held_out"] and r["best"] >= 0 and r["default_ms"]:
            by_type[r["type"]].append(r)
    out = []
    gpu = report["gpu"]
    cmd = f"cuprim-lab tune {report['family']}"
    commit = build_commit(report)
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
        worst = min((g for _, g in gains), default=0)
        if geo < min_gain or worst < 1 - max_loss:
            out.append(f"// {t}: the row stands ({label} won {len(wins[label])} of {len(results)} sizes: "
                       f"{per_size}; geomean {geo:.3f}x, needs >= {min_gain} with no size below {1 - max_loss:.2f}x) "
                       f"-- {gpu}, {cmd} ({commit})")
        else:
            out.append(prov)
            out.append(f"return {cpp_policy(policy)};")
    return out


def gemm_wave(units, sms):
    """blas::gemm_sm90_wave_efficiency: the fraction of the block-slots busy over the waves of `units` work units."""
    waves = -(-units // sms)
    return units / (waves * sms) if waves > 0 else 0.0


def gemm_padding(m, n, tm, tn):
    """The fraction of a tm x tn tiling's elements inside the m x n product."""
    return (m * n) / (-(-m // tm) * -(-n // tn) * tm * tn)


def gemm_efficiency(m, n, tm, tn, sms):
    """The chooser's wave x padding efficiency of an unsplit tm x tn tiling (blas::gemm_sm90_score)."""
    return gemm_wave(-(-m // tm) * -(-n // tn), sms) * gemm_padding(m, n, tm, tn)


def gemm_plan(m, n, k, sms, tiles, speeds, split_cost, min_steps, max_splits=16):
    """blas::gemm_sm90_plan_for with the given constants: (row, k slices). tiles[r] = (tile_m, tile_n, splits)."""
    best, best_score = None, -1.0
    for row, (tm, tn, rule) in sorted(tiles.items()):
        count = -(-m // tm) * -(-n // tn)
        steps = -(-k // 64)
        s, score = 1, gemm_wave(count, sms)
        if rule == 0:
            most = 1 if count >= sms else min(steps // min_steps, max_splits)
            for t in range(2, most + 1):
                e = gemm_wave(count * t, sms) * split_cost
                if e > score + 1e-9:
                    s, score = t, e
            if s > 1:  # blas::gemm_sm90_whole_slices
                per = -(-steps // s)
                s = -(-steps // per)
        score *= speeds[row] * gemm_padding(m, n, tm, tn)
        if score > best_score + 1e-9:
            best, best_score = (row, s), score
    return best


def gemm_chooser(report, speeds, split_cost, min_steps):
    tiles = {0: (256, 128, 1), 1: (128, 128, 0), 2: (64, 128, 0), 3: (64, 64, 0)}  # gemm_sm90_tile_row_for
    out = []
    for held in (False, True):
        ratios, untimed = [], 0
        for r in report["results"]:
            if r["held_out"] != held or not r["plans"]:
                continue
            t = {(p["row"], p["splits"]): p["ms"] for p in r["plans"]
                 if isinstance(p["ms"], (int, float)) and math.isfinite(p["ms"])}
            plan = gemm_plan(r["m"], r["n"], r["k"], report["sms"], tiles, speeds, split_cost, min_steps)
            if t and plan in t:
                ratios.append((min(t.values()) / t[plan], f"{r['m']}x{r['n']}x{r['k']}", plan))
            elif t:
                untimed += 1  # the replayed plan was not timed there (a count the run had no candidate for)
        if ratios:
            geo = math.exp(sum(math.log(x[0]) for x in ratios) / len(ratios))
            worst = min(ratios)
            out.append(f"// chooser {speeds[1:]}, split cost {split_cost}, {min_steps} steps: "
                       f"{'held-out' if held else 'grid'} shapes geomean {geo:.3f}x the best plan, worst {worst[0]:.3f}x "
                       f"({worst[1]}, row {worst[2][0]} k{worst[2][1]}), {sum(x[0] >= 0.9 for x in ratios)} of "
                       f"{len(ratios)} >= 0.90x; {untimed} shapes left out, their plan not timed")
    return out


def gemm_rows(report, min_volume):
    sms = report["sms"]
    implied = defaultdict(list)  # row -> [speed]
    tile = {}
    for r in report["results"]:
        if r["held_out"] or r["m"] * r["n"] * r["k"] < min_volume:
            continue
        unsplit = {}
        for p in r["plans"]:
            if p["splits"] == 1 and isinstance(p["ms"], (int, float)) and math.isfinite(p["ms"]):
                unsplit[p["row"]] = p["ms"]
                tm, tn = (int(x) for x in p["label"].split()[0].split("x"))
                tile[p["row"]] = (tm, tn)
        if 0 not in unsplit:
            continue
        e0 = gemm_efficiency(r["m"], r["n"], *tile[0], sms)
        for row, ms in unsplit.items():
            if row != 0:
                implied[row].append(unsplit[0] * e0 / (ms * gemm_efficiency(r["m"], r["n"], *tile[row], sms)))
    out = []
    cmd = "cuprim-lab tune gemm" + (" --exhaustive" if report.get("exhaustive") else "")
    commit = build_commit(report)
    types = sorted({r["type"] + " " + r["layout"] for r in report["results"]})
    for row in sorted(implied):
        v = sorted(implied[row])
        q = lambda f: v[min(len(v) - 1, int(f * len(v)))]  # noqa: E731
        tm, tn = tile[row]
        out.append(f"// row {row}, {tm} x {tn}: speed {q(0.5):.2f} (median of {len(v)} shapes of >= {min_volume:.0e} "
                   f"multiply-adds, quartiles {q(0.25):.2f}-{q(0.75):.2f}) -- sm_{report['cc']}, {', '.join(types)}, "
                   f"{report['gpu']}, {cmd} ({commit})")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", help="the JSON written by cuprim-lab tune --json")
    ap.add_argument("--min-gain", type=float, default=1.01, help="geometric-mean gain a row must bring (default 1.01)")
    ap.add_argument("--max-loss", type=float, default=0.01,
                    help="the most a proposed row may lose at any tuned size (default 0.01: 1%%)")
    ap.add_argument("--min-volume", type=float, default=2.0**33,
                    help="gemm: the smallest m x n x k whose times calibrate the speeds (default 2^33)")
    ap.add_argument("--chooser", help="gemm: S1,S2,S3,COST,STEPS: replay the chooser with these constants")
    a = ap.parse_args()
    with open(a.report) as f:
        report = json.load(f)
    if report["family"] == "gemm":
        for line in gemm_rows(report, a.min_volume):
            print(line)
        if a.chooser:
            v = [float(x) for x in a.chooser.split(",")]
            for line in gemm_chooser(report, [1.0] + v[:3], v[3], int(v[4])):
                print(line)
        for r in report["results"]:
            if r["held_out"] and r["best"] >= 0:
                best = r["plans"][r["best"]]["ms"]
                default = r["default"].get("cmp_ms", r["default"]["ms"])  # its plan's time as a candidate
                cached = r["plans"][r["cached"]]["ms"] if r["cached"] >= 0 else default
                print(f"// held out {r['type']} {r['layout']} {r['m']}x{r['n']}x{r['k']}: cached choice "
                      f"{best / cached:.3f}x the exhaustive best, default {best / default:.3f}x")
        return 0
    for line in rows(report, a.min_gain, a.max_loss):
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
