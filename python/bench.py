#!/usr/bin/env python3
"""cuprim from Python beside PyTorch and CuPy, on the same device arrays in the same run.

Each row times one operation with CUDA events on the library's current stream: warm-up calls, then the median of
--reps timed calls (each from a recorded start event to a recorded end event, synchronised after each). Inputs are
random, larger than L2, made once by PyTorch (or CuPy) and shared with the other library through DLPack. Before
timing, each row checks cuprim's result against the library's. Ratios are the library's time over cuprim's: above 1
means cuprim is faster. Library calls that wait for the GPU themselves (torch.masked_select, torch.nonzero,
torch.unique, torch.bincount without a known length, x[mask] in CuPy) are timed as they are; cuprim's select, nonzero
and unique are timed both asynchronously (count left on the device) and in their _sync form.

Then the same kernels through the Python API and through the bare extension call on preallocated memory (the
Python layer's whole cost at large n), and the host overhead of a call on a small array: cuprim.sum from Python (with out=, and allocating its result),
the same C++ entry point called in a loop inside the extension (_ext._time_reduce_calls), an empty extension call,
and torch.sum / cupy.sum; the overhead over C++ is the difference of the first and the second.

    python python/bench.py                       # n = 2^24 and 2^28, every op, both libraries where installed
    python python/bench.py --sizes 24 --ops sort,cumsum --json bench.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import os

# The installed package, not the source folder next to this script (which has no compiled module).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import cuprim  # noqa: E402
from cuprim import _ext  # noqa: E402


def _load(name):
    try:
        return __import__(name)
    except Exception as e:  # absent, or its CUDA libraries do not load
        print(f"# {name}: not available ({type(e).__name__}: {e})")
        return None


class Lib:
    """One library's timing and array helpers."""

    def __init__(self, name, mod):
        self.name, self.mod = name, mod

    def event(self):
        if self.name == "torch":
            return self.mod.cuda.Event(enable_timing=True)
        return self.mod.cuda.Event()

    def elapsed_ms(self, a, b):
        if self.name == "torch":
            return a.elapsed_time(b)
        return self.mod.cuda.get_elapsed_time(a, b)

    def sync(self):
        if self.name == "torch":
            self.mod.cuda.synchronize()
        else:
            self.mod.cuda.runtime.deviceSynchronize()

    def time(self, f, reps, warmup):
        for _ in range(warmup):
            f()
        self.sync()
        times = []
        for _ in range(reps):
            a, b = self.event(), self.event()
            a.record()
            f()
            b.record()
            b.synchronize()
            times.append(self.elapsed_ms(a, b))
        return statistics.median(times)


def make_inputs(torch, cupy, n, kind):
    """(torch array or None, cupy array or None) holding the same memory."""
    if torch is not None:
        g = torch.Generator(device="cuda").manual_seed(n + sum(map(ord, kind)))
        if kind == "int32":
            t = torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=g)
        elif kind == "int32_small":
            t = torch.randint(0, 1 << 16, (n,), device="cuda", dtype=torch.int32, generator=g)
        elif kind == "float32":
            t = torch.rand(n, device="cuda", generator=g) * 2 - 1
        elif kind == "uint8":
            t = torch.randint(0, 256, (n,), device="cuda", dtype=torch.uint8, generator=g)
        elif kind == "mask50":
            t = torch.rand(n, device="cuda", generator=g) < 0.5
        else:
            raise ValueError(kind)
        if cupy is None:
            return t, None
        if t.dtype == torch.bool:  # shared as bytes: DLPack bool is not taken everywhere
            return t, cupy.from_dlpack(t.view(torch.uint8)).view(cupy.bool_)
        return t, cupy.from_dlpack(t)
    rng = cupy.random.default_rng(n)
    if kind == "int32":
        c = rng.integers(-2**31, 2**31 - 1, size=n, dtype=cupy.int32)
    elif kind == "int32_small":
        c = rng.integers(0, 1 << 16, size=n, dtype=cupy.int32)
    elif kind == "float32":
        c = rng.random(n, dtype=cupy.float32) * 2 - 1
    elif kind == "uint8":
        c = rng.integers(0, 256, size=n, dtype=cupy.uint8)
    else:
        c = rng.random(n, dtype=cupy.float32) < 0.5
    return None, c


def ops_table(torch, cupy):
    """name -> (input kinds, cuprim call, {library: call}, check(cuprim result, library result) -> bool)."""
    T, C = "torch", "cupy"

    def eq(a, b):
        if torch is not None and isinstance(a, torch.Tensor):
            return bool(torch.equal(a, b))
        return bool((a == b).all())

    def close(a, b):
        return abs(float(a) - float(b)) <= 1e-3 * max(1.0, abs(float(b)))

    ops = {
        "sort/int32": (("int32",), lambda x: cuprim.sort(x),
                       {T: lambda x: torch.sort(x).values, C: lambda x: cupy.sort(x)}, eq),
        "sort/float32": (("float32",), lambda x: cuprim.sort(x),
                         {T: lambda x: torch.sort(x).values, C: lambda x: cupy.sort(x)}, eq),
        "argsort/int32": (("int32",), lambda x: cuprim.argsort(x),
                          {T: lambda x: torch.sort(x, stable=True).indices, C: lambda x: cupy.argsort(x)}, None),
        "cumsum/int32": (("int32",), lambda x: cuprim.cumsum(x, dtype="int32"),
                         {T: lambda x: torch.cumsum(x, 0, dtype=torch.int32), C: lambda x: cupy.cumsum(x, dtype="int32")},
                         eq),
        "cumsum/float32": (("float32",), lambda x: cuprim.cumsum(x),
                           {T: lambda x: torch.cumsum(x, 0), C: lambda x: cupy.cumsum(x)}, None),
        "select/int32 50%": (("int32", "mask50"), lambda x, m: cuprim.select(x, m),
                             {T: lambda x, m: torch.masked_select(x, m), C: lambda x, m: x[m]}, None),
        "select_sync/int32 50%": (("int32", "mask50"), lambda x, m: cuprim.select_sync(x, m),
                                  {T: lambda x, m: torch.masked_select(x, m), C: lambda x, m: x[m]}, eq),
        "nonzero/bool 50%": (("mask50",), lambda m: cuprim.nonzero(m),
                             {T: lambda m: torch.nonzero(m), C: lambda m: cupy.flatnonzero(m)}, None),
        "nonzero_sync/bool 50%": (("mask50",), lambda m: cuprim.nonzero_sync(m),
                                  {T: lambda m: torch.nonzero(m).flatten(), C: lambda m: cupy.flatnonzero(m)}, eq),
        "unique_sync/int32 2^16 values": (("int32_small",), lambda x: cuprim.unique_sync(x),
                                          {T: lambda x: torch.unique(x), C: lambda x: cupy.unique(x)}, eq),
        "bincount/uint8": (("uint8",), lambda x: cuprim.bincount(x, length=256),
                           {T: lambda x: torch.bincount(x, minlength=256), C: lambda x: cupy.bincount(x, minlength=256)},
                           eq),
        "sum/float32": (("float32",), lambda x: cuprim.sum(x),
                        {T: lambda x: torch.sum(x), C: lambda x: cupy.sum(x)}, close),
        "sum/int32": (("int32",), lambda x: cuprim.sum(x),
                      {T: lambda x: torch.sum(x), C: lambda x: cupy.sum(x, dtype="int64")}, close),
        "argmax/float32": (("float32",), lambda x: cuprim.argmax(x),
                           {T: lambda x: torch.argmax(x), C: lambda x: cupy.argmax(x)}, close),
    }
    return ops


def bench_ops(args, torch, cupy, rows):
    libs = []
    if torch is not None:
        libs.append(Lib("torch", torch))
    if cupy is not None:
        libs.append(Lib("cupy", cupy))
    ops = ops_table(torch, cupy)
    wanted = None if args.ops == "all" else set(args.ops.split(","))
    for exp in args.sizes:
        n = 1 << exp
        inputs = {}
        for name, (kinds, ours, theirs, check) in ops.items():
            if wanted is not None and name.split("/")[0] not in wanted:
                continue
            try:
                for k in kinds:
                    if k not in inputs:
                        inputs[k] = make_inputs(torch, cupy, n, k)
            except Exception as e:  # out of memory at this size
                print(f"{name:32s} n=2^{exp}: inputs not made ({type(e).__name__}: {e})")
                continue
            for lib in libs:
                idx = 0 if lib.name == "torch" else 1
                xs = [inputs[k][idx] for k in kinds]
                if any(x is None for x in xs):
                    continue
                try:
                    ok = None
                    if check is not None:
                        r_ours, r_theirs = ours(*xs), theirs[lib.name](*xs)
                        if name.startswith("sum/int32") and lib.name == "torch":
                            r_theirs = r_theirs.to(torch.int64)
                        ok = check(r_ours, r_theirs)
                        del r_ours, r_theirs
                    t_ours = lib.time(lambda: ours(*xs), args.reps, args.warmup)
                    t_theirs = lib.time(lambda: theirs[lib.name](*xs), args.reps, args.warmup)
                except Exception as e:
                    print(f"{name:32s} n=2^{exp} {lib.name:5s}: failed ({type(e).__name__}: {e})")
                    continue
                ratio = t_theirs / t_ours if t_ours > 0 else float("nan")
                flag = "" if ok is None else (" ok" if ok else " RESULTS DIFFER")
                print(f"{name:32s} n=2^{exp} {lib.name:5s}: cuprim {t_ours:9.3f} ms  {lib.name} {t_theirs:9.3f} ms  "
                      f"ratio {ratio:6.2f}x{flag}", flush=True)
                rows.append({"op": name, "n": n, "library": lib.name, "cuprim_ms": t_ours, "library_ms": t_theirs,
                             "ratio": ratio, "check": ok})
        inputs.clear()
        if torch is not None:
            torch.cuda.empty_cache()
        if cupy is not None:
            cupy.get_default_memory_pool().free_all_blocks()


def bench_gemm(args, torch, cupy, rows):
    if args.ops != "all" and "gemm" not in args.ops.split(","):
        return
    for side in args.gemm_sizes:
        for dtype in ("float32", "bfloat16"):
            for lib_name, mod in (("torch", torch), ("cupy", cupy)):
                if mod is None or (lib_name == "cupy" and dtype == "bfloat16"):
                    continue
                lib = Lib(lib_name, mod)
                try:
                    if lib_name == "torch":
                        dt = getattr(torch, dtype)
                        a = torch.randn(side, side, device="cuda").to(dt)
                        b = torch.randn(side, side, device="cuda").to(dt)
                        theirs = lambda: torch.matmul(a, b)
                    else:
                        a = cupy.random.standard_normal((side, side), dtype=cupy.float32)
                        b = cupy.random.standard_normal((side, side), dtype=cupy.float32)
                        theirs = lambda: cupy.matmul(a, b)
                    ours = lambda: cuprim.gemm(a, b)
                    t_ours = lib.time(ours, max(3, args.reps // 2), 2)
                    t_theirs = lib.time(theirs, max(3, args.reps // 2), 2)
                except Exception as e:
                    print(f"gemm/{dtype} {side}^3 {lib_name}: failed ({type(e).__name__}: {e})")
                    continue
                tflops = 2 * side ** 3 / (t_ours * 1e-3) / 1e12
                ratio = t_theirs / t_ours
                print(f"{'gemm/' + dtype:32s} {side}^3  {lib_name:5s}: cuprim {t_ours:9.3f} ms ({tflops:6.1f} TFLOP/s)  "
                      f"{lib_name} {t_theirs:9.3f} ms  ratio {ratio:6.2f}x", flush=True)
                rows.append({"op": f"gemm/{dtype}", "n": side, "library": lib_name, "cuprim_ms": t_ours,
                             "library_ms": t_theirs, "ratio": ratio, "tflops": tflops})
                if dtype == "float32":
                    # float32 on tensor cores: tf32x3 (FP32-level error) against the library's float32 matmul, and
                    # (torch) tf32 against torch's own TF32 matmul.
                    extra = [("tf32x3", theirs)]
                    if lib_name == "torch":
                        def theirs_tf32():
                            torch.backends.cuda.matmul.allow_tf32 = True
                            try:
                                return torch.matmul(a, b)
                            finally:
                                torch.backends.cuda.matmul.allow_tf32 = False
                        extra.append(("tf32", theirs_tf32))
                    for math, base in extra:
                        t_m = lib.time(lambda: cuprim.gemm(a, b, math=math), max(3, args.reps // 2), 2)
                        t_b = lib.time(base, max(3, args.reps // 2), 2) if base is not theirs else t_theirs
                        r = t_b / t_m
                        print(f"{'gemm/float32 ' + math:32s} {side}^3  {lib_name:5s}: cuprim {t_m:9.3f} ms  "
                              f"{lib_name} {'tf32' if math == 'tf32' else 'float32'} {t_b:9.3f} ms  ratio {r:6.2f}x",
                              flush=True)
                        rows.append({"op": f"gemm/float32-{math}", "n": side, "library": lib_name, "cuprim_ms": t_m,
                                     "library_ms": t_b, "ratio": r})
                a = b = None  # free before the next size


def python_vs_raw(args, torch, cupy, rows):
    """The same kernels through the Python API (allocating its output through the library) and through the bare
    extension call on preallocated memory (what C++ would call): their ratio is the whole cost of the Python layer at
    large n (the issue's target: within 3%)."""
    lib = Lib("torch", torch) if torch is not None else Lib("cupy", cupy)
    I32 = 2
    for exp in args.sizes:
        n = 1 << exp
        t, c = make_inputs(torch, cupy, n, "int32")
        x = t if t is not None else c
        mask = x > 0  # about half set: nonzero's input
        if lib.name == "torch":
            out = torch.empty_like(x)
            idx = torch.empty(n, dtype=torch.int64, device="cuda")
            scalar = torch.empty((), dtype=torch.int64, device="cuda")
            dev, px, po, ps = x.get_device(), x.data_ptr(), out.data_ptr(), scalar.data_ptr()
            pm, pi = mask.data_ptr(), idx.data_ptr()
            stream = torch.cuda.current_stream().cuda_stream
        else:
            out = cupy.empty_like(x)
            idx = cupy.empty(n, dtype=cupy.int64)
            scalar = cupy.empty((), dtype=cupy.int64)
            dev, px, po, ps = x.device.id, x.data.ptr, out.data.ptr, scalar.data.ptr
            pm, pi = mask.data.ptr, idx.data.ptr
            stream = cupy.cuda.get_current_stream().ptr
        U8 = 4
        cases = {
            "sort/int32": (lambda: cuprim.sort(x), lambda: _ext.sort(dev, I32, px, po, n, False, 0, -1, stream)),
            "cumsum/int32": (lambda: cuprim.cumsum(x, dtype="int32"),
                             lambda: _ext.inclusive_sum(dev, I32, I32, px, po, n, stream)),
            "sum/int32": (lambda: cuprim.sum(x), lambda: _ext.reduce(dev, 0, I32, 3, px, ps, n, stream)),
            "nonzero/bool": (lambda: cuprim.nonzero(mask),
                             lambda: _ext.select_flagged_index(dev, U8, pm, pi, ps, n, stream)),
        }
        for name, (api, raw) in cases.items():
            t_api = lib.time(api, args.reps, args.warmup)
            t_raw = lib.time(raw, args.reps, args.warmup)
            print(f"{name:32s} n=2^{exp} {lib.name:5s}: python API {t_api:9.3f} ms  bare extension call {t_raw:9.3f} ms"
                  f"  API/bare {t_api / t_raw:6.3f}", flush=True)
            rows.append({"op": name, "n": n, "library": lib.name, "api_ms": t_api, "bare_ms": t_raw,
                         "api_over_bare": t_api / t_raw})
        x = t = c = out = scalar = mask = idx = None  # free before the next size
        if torch is not None:
            torch.cuda.empty_cache()


def host_overhead(torch, cupy, reps, out_rows):
    """Per-call host microseconds on a small array (see the module docstring)."""
    n = 1024
    results = {}
    if torch is not None:
        x = torch.rand(n, device="cuda")
        o = torch.empty((), device="cuda")
        stream = torch.cuda.current_stream().cuda_stream
        dev, ptr_x, ptr_o = x.device.index, x.data_ptr(), o.data_ptr()
        sync = torch.cuda.synchronize
        fw_call = lambda: torch.sum(x)
        lib = "torch"
    else:
        x = cupy.random.random(n, dtype=cupy.float32)
        o = cupy.empty((), dtype=cupy.float32)
        stream = cupy.cuda.get_current_stream().ptr
        dev, ptr_x, ptr_o = x.device.id, x.data.ptr, o.data.ptr
        sync = cupy.cuda.runtime.deviceSynchronize
        fw_call = lambda: cupy.sum(x)
        lib = "cupy"
    F32 = 10

    def per_call(f):
        for _ in range(50):
            f()
        sync()
        best = float("inf")
        for _ in range(5):  # the best of 5 loops: the least disturbed by the machine
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            t1 = time.perf_counter()
            sync()
            best = min(best, (t1 - t0) / reps * 1e6)
        return best

    results["python cuprim.sum(x, out=o)"] = per_call(lambda: cuprim.sum(x, out=o))
    results["python cuprim.sum(x)"] = per_call(lambda: cuprim.sum(x))
    results["python cuprim.sort(x)"] = per_call(lambda: cuprim.sort(x))
    results["c++ loop of the same reduce call"] = min(
        _ext._time_reduce_calls(dev, 0, F32, F32, ptr_x, ptr_o, n, stream, reps) for _ in range(5))
    results["empty extension call (_ext._noop)"] = per_call(lambda: _ext._noop(ptr_x, ptr_o, n, stream))
    results[f"{lib}.sum(x)"] = per_call(fw_call)
    print(f"\nhost overhead per call, n = {n} float32 ({lib} arrays), best of 5 loops of {reps} calls:")
    for k, v in results.items():
        print(f"  {k:40s} {v:8.2f} us")
    over = results["python cuprim.sum(x, out=o)"] - results["c++ loop of the same reduce call"]
    over_alloc = results["python cuprim.sum(x)"] - results["c++ loop of the same reduce call"]
    print(f"  => Python over C++: {over:.2f} us with out=, {over_alloc:.2f} us allocating the result "
          f"(target: <= 5 us)")
    out_rows.append({"host_overhead_us": results, "over_cxx_out_us": over, "over_cxx_alloc_us": over_alloc,
                     "library": lib})


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="24,28", help="log2 of n, comma-separated (default 24,28)")
    p.add_argument("--gemm-sizes", default="4096,8192", help="square GEMM sides (default 4096,8192)")
    p.add_argument("--ops", default="all", help="comma-separated op names (sort,argsort,cumsum,select,select_sync,"
                                                "nonzero,nonzero_sync,unique_sync,bincount,sum,argmax,gemm; api: the "
                                                "Python API against the bare extension call) or all")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--overhead-reps", type=int, default=2000)
    p.add_argument("--json", help="write every row to this file")
    p.add_argument("--no-overhead", action="store_true")
    args = p.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    args.gemm_sizes = [int(s) for s in args.gemm_sizes.split(",") if s]

    if cuprim.device_count() == 0:
        print("no CUDA device: nothing to measure")
        return 0
    torch, cupy = _load("torch"), _load("cupy")
    if torch is not None and not torch.cuda.is_available():
        torch = None
    if torch is None and cupy is None:
        print("neither PyTorch nor CuPy is available: nothing to compare with")
        return 1
    if torch is not None:
        print(f"# device: {torch.cuda.get_device_name()}, torch {torch.__version__}"
              + (f", cupy {cupy.__version__}" if cupy is not None else ""))
    else:
        print(f"# cupy {cupy.__version__}")
    rows, overhead, api_rows = [], [], []
    bench_ops(args, torch, cupy, rows)
    bench_gemm(args, torch, cupy, rows)
    if args.ops == "all" or "api" in args.ops.split(","):
        print()
        python_vs_raw(args, torch, cupy, api_rows)
    if not args.no_overhead:
        host_overhead(torch, cupy, args.overhead_reps, overhead)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "python_vs_bare": api_rows, "overhead": overhead}, f, indent=1)
    slower = [r for r in rows if r["ratio"] < 1.0]
    print(f"\n{len(rows)} rows; cuprim slower than the library in {len(slower)}:")
    for r in slower:
        print(f"  {r['op']} n={r['n']} {r['library']}: {r['ratio']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
