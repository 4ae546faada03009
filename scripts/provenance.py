#!/usr/bin/env python3
"""Which commit a lab result was built from.

    scripts/provenance.py RESULT.json [...]

The lab stamps, at build time, the commit checked out and the git tree id of the sources it was built from
(cmake/provenance.cmake). Where the checkout's history was stale (a machine that received the working tree with an
older .git), the commit is not the sources' own, but the tree id still names them exactly. This script looks the tree
up in this repository's history and prints, per file, the commit(s) whose tree it is, or says that none is.
"""
import json
import subprocess
import sys


def commits_by_tree(cwd=None):
    """{tree id: [commits whose tree it is, newest first]} over the whole history of the repository at cwd."""
    out = subprocess.run(["git", "log", "--all", "--format=%h %T"], capture_output=True, text=True, check=True,
                         cwd=cwd)
    by = {}
    for line in out.stdout.splitlines():
        commit, tree = line.split()
        by.setdefault(tree, []).append(commit)
    return by


def main(paths):
    if not paths:
        sys.exit(__doc__)
    by = commits_by_tree()
    status = 0
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        tree, commit, changes = d.get("tree"), d.get("commit"), d.get("changes")
        if not tree or tree == "unknown":
            print(f"{p}: no tree id recorded (commit {commit}, changes {changes})")
            status = 1
            continue
        found = by.get(tree)
        if found:
            print(f"{p}: built from commit {' = '.join(found)} (tree {tree[:12]}; checkout said {commit}, {changes})")
        else:
            print(f"{p}: tree {tree[:12]} is no commit's in this history (checkout said {commit}, {changes})")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
