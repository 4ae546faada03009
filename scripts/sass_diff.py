#!/usr/bin/env python3
"""Compare the machine code (SASS) of the kernels in two CUDA binaries, ignoring the kernels' names.

    scripts/sass_diff.py OLD NEW [--filter REGEX] [--show N]

Used to check that a change which only moves or renames code leaves every kernel's machine code as it was: each
kernel's SASS is normalized (addresses, encodings and the mangled names of called functions removed) and hashed,
and the two binaries' multisets of kernel bodies are compared. Prints the kernels of OLD whose body NEW lacks and
the kernels of NEW whose body OLD lacks (demangled, shortened), and exits 1 when the multisets differ.

Needs cuobjdump (with nvdisasm) on PATH, or in CUOBJDUMP_DIR; c++filt for readable names.
"""
import argparse
import collections
import hashlib
import os
import re
import shutil
import subprocess
import sys


def cuobjdump():
    d = os.environ.get("CUOBJDUMP_DIR")
    if d:
        os.environ["PATH"] = d + os.pathsep + os.environ["PATH"]
    exe = shutil.which("cuobjdump")
    if not exe:
        sys.exit("sass_diff: cuobjdump not found (set CUOBJDUMP_DIR)")
    return exe


FUNC = re.compile(r"^\s*Function : (\S+)")
INSN = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;?\s*/\*")
MANGLED = re.compile(r"_Z[A-Za-z0-9_]+")


def kernels(path):
    """{mangled name: normalized body} for every function in the binary's SASS."""
    out = subprocess.run([cuobjdump(), "-sass", path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"sass_diff: cuobjdump failed on {path}: {out.stderr.strip()}")
    result, name, body = {}, None, []
    for line in out.stdout.splitlines():
        m = FUNC.match(line)
        if m:
            if name:
                result[name] = "\n".join(body)
            name, body = m.group(1), []
            continue
        m = INSN.match(line)
        if name and m:
            body.append(MANGLED.sub("<fn>", m.group(1)))
    if name:
        result[name] = "\n".join(body)
    return result


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out))


def short(name, width=160):
    return name if len(name) <= width else name[: width - 3] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--filter", help="only kernels whose demangled name matches this regular expression")
    ap.add_argument("--show", type=int, default=40, help="at most this many names per list")
    a = ap.parse_args()
    old, new = kernels(a.old), kernels(a.new)
    names = demangle(sorted(set(old) | set(new)))
    if a.filter:
        keep = re.compile(a.filter)
        old = {k: v for k, v in old.items() if keep.search(names[k])}
        new = {k: v for k, v in new.items() if keep.search(names[k])}

    def index(ks):
        by = collections.defaultdict(list)
        for k, body in ks.items():
            by[hashlib.sha256(body.encode()).hexdigest()].append(k)
        return by

    oi, ni = index(old), index(new)
    lost = [k for h, ks in oi.items() for k in ks[len(ni.get(h, [])):]]
    added = [k for h, ks in ni.items() for k in ks[len(oi.get(h, [])):]]
    same = sum(min(len(ks), len(ni.get(h, []))) for h, ks in oi.items())
    print(f"kernels: {len(old)} in {a.old}, {len(new)} in {a.new}; {same} bodies in both")
    for title, ks in (("only in OLD (no identical body in NEW)", lost), ("only in NEW", added)):
        if ks:
            print(f"{title}: {len(ks)}")
            for k in sorted(ks, key=lambda k: names[k])[: a.show]:
                print("  " + short(names[k]))
    return 1 if lost or added else 0


if __name__ == "__main__":
    sys.exit(main())
