#!/usr/bin/env python3
"""Cut the GPU tests into slices for compute-sanitizer, so that a tool too slow for one device call (racecheck
over the whole suite) can run slice by slice and still cover every test.

    scripts/sanitize_slices.py SLICE/SLICES EXE [EXE...]

Prints one line per executable that has work in slice SLICE (1-based) of SLICES: the executable, a tab, and a
--gtest_filter value naming its tests in that slice (empty for an executable that is not a GoogleTest program — an
example — which runs whole in exactly one slice). The units (one GoogleTest case each, one example each) are dealt
round-robin in a fixed order, so slices 1..SLICES together run every test exactly once, and every slice gets a share
of every executable's cases. A GoogleTest program is recognised by its path (a tests/ directory); its cases are
listed with --gtest_list_tests.
"""
import os
import subprocess
import sys


def gtest_cases(exe):
    out = subprocess.run([exe, "--gtest_list_tests"], capture_output=True, text=True, timeout=120)
    cases, suite = [], None
    for line in out.stdout.splitlines():
        if not line.strip() or line.startswith(("Running main", "no CUDA device")):
            continue
        name = line.split("#")[0].rstrip()
        if not line.startswith(" "):
            suite = name.strip()
        elif suite:
            cases.append(suite + name.strip())
    return cases


def main(argv):
    if len(argv) < 2 or "/" not in argv[0]:
        sys.exit(__doc__)
    k, n = (int(x) for x in argv[0].split("/"))
    if not 1 <= k <= n:
        sys.exit("sanitize_slices: SLICE must be in 1..SLICES")
    units = []
    for exe in argv[1:]:
        if f"{os.sep}tests{os.sep}" in exe:
            units += [(exe, case) for case in gtest_cases(exe)]
        else:
            units.append((exe, None))
    mine = {}
    for i, (exe, case) in enumerate(units):
        if i % n == k - 1:
            mine.setdefault(exe, []).append(case)
    for exe in argv[1:]:
        if exe in mine:
            cases = [c for c in mine[exe] if c]
            print(f"{exe}\t{':'.join(cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
