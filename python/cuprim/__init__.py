"""cuprim: GPU primitives (radix sort, scans, reductions, stream compaction, histograms, BLAS) on the arrays of
PyTorch, CuPy and anything speaking ``__cuda_array_interface__`` or DLPack: zero-copy, on the caller's stream.

Conventions of every function:

- Inputs are device arrays, C-contiguous. Host arrays and non-contiguous arrays are refused with a ValueError
  (cuprim never copies an input); a dtype it has no kernel for is a TypeError.
- Outputs are allocated through the input's own library (``torch.empty``, ``cupy.empty``: PyTorch's caching
  allocator and CuPy's pool see them) and returned as its array type, or written into the caller's ``out=``
  (the returned object is then ``out`` itself).
- Work is ordered on the library's current stream (``torch.cuda.current_stream()``,
  ``cupy.cuda.get_current_stream()``), or on ``stream=`` (an int handle, a ``torch.cuda.Stream``, a
  ``cupy.cuda.Stream`` or an object with ``__cuda_stream__``). Nothing waits for the GPU, except the functions whose
  name ends in ``_sync`` and ``bincount`` without ``length=``, whose docstrings say so.
- Reductions return 0-d device arrays (no synchronisation); call ``.item()`` to read one on the host.
- Errors: cuprim's argument errors are ValueError, CUDA errors RuntimeError, allocation failures MemoryError, with
  cuprim's message.

Example::

    import torch, cuprim
    x = torch.randint(0, 1 << 30, (1 << 24,), device="cuda", dtype=torch.int32)
    y = cuprim.sort(x)                       # torch tensor, on torch's current stream
    i = cuprim.argmax(x)                     # 0-d int64 tensor, still on the device
    c = cuprim.cumsum(x, dtype=torch.int32)  # int32 running sums (default: int64, as NumPy and PyTorch)
"""

from __future__ import annotations

import operator
from typing import Any, Optional, Tuple

try:
    from . import _ext
except ImportError as e:  # the source folder python/cuprim, or a build for another Python
    raise ImportError(f"cuprim's compiled module (cuprim._ext) does not load from {__path__[0]}: install the package "
                      f"(pip install ./python) and import it from outside the python/ folder ({e})") from e
from . import _arrays as _a
from ._arrays import B8, F32, F64, I8, I64, U8, U64, INTEGERS, ITEMSIZE, SIGNED, UINT_OF_WIDTH, DTYPE_NAMES

__version__ = "0.1.0"

__all__ = [
    "sort", "argsort", "sort_pairs",
    "cumsum", "inclusive_scan", "exclusive_scan",
    "sum", "min", "max", "argmin", "argmax",
    "select", "select_sync", "nonzero", "nonzero_sync", "unique", "unique_sync",
    "run_length_encode", "run_length_encode_sync",
    "bincount", "histogram_even", "histogram_range", "segmented_reduce", "segmented_sort",
    "gemm", "matmul", "gemm_batched", "gemv", "dot", "trsm", "trsm_batched", "symm",
    "supported_dtypes", "device_count",
]

_SUM, _MIN, _MAX, _ARGMIN, _ARGMAX = range(5)

# The functions every call goes through, bound once (module attribute lookups on every call add up: the layer's
# host cost is the target of python/bench.py's overhead rows).
_view, _check_out, _current_stream, _Allocator = _a.view, _a.check_out, _a.current_stream, _a.Allocator


def device_count() -> int:
    """Number of CUDA devices visible to cuprim (0 without a driver or a device)."""
    return _ext.device_count()


def supported_dtypes() -> dict:
    """What this build has kernels for: {operation: sorted list of dtype names, or of 'in>out' pairs}."""
    table: dict = {}
    for entry in _ext.supported():
        op, types = entry.split(":", 1)
        table.setdefault(op, set()).add(types)
    return {op: sorted(v) for op, v in table.items()}


def _dtype_arg(fn: str, dtype: Any) -> int:
    """The code of a dtype= argument: a name, a NumPy dtype or type, or a torch.dtype."""
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None)
    if name is None:
        text = str(dtype)
        name = text[6:] if text.startswith("torch.") else getattr(dtype, "__name__", text)
    code = _a.CODE.get(name)
    if code is None:
        raise TypeError(f"{fn}: dtype {dtype!r} is not one cuprim handles")
    return code


def _call(fn: str, x: Any, stream: Any) -> Tuple[_a.DeviceArray, int, _a.Allocator]:
    a = _view(fn, "x", x)
    if stream is None:  # _arrays.resolve_stream, inline: every call takes this path
        handle = _current_stream(a)
        return a, handle, _Allocator(fn, a, handle, False)
    handle = _a.stream_handle(fn, stream)
    return a, handle, _Allocator(fn, a, handle, True)


def _need_1d(fn: str, a: _a.DeviceArray, arg: str = "x") -> None:
    if len(a.shape) != 1:
        raise ValueError(f"{fn}: {arg} must be 1-D (shape {a.shape}); cuprim sorts and compacts one flat array")


def _output(fn: str, arg: str, out: Any, alloc: _a.Allocator, shape, code, allowed=None):
    """(the output object, its view): the caller's out= checked, or a new array from the input's library."""
    if out is None:
        obj = alloc.empty(shape, code)
        return obj, alloc.ptr(obj)
    size = shape[0] if len(shape) == 1 else _a._prod(shape)
    return out, _check_out(fn, arg, out, alloc.like, size, code if allowed is None else allowed, shape)


# ---------------------------------------------------------------------------------------------------------------------
# Sorting


def sort(x: Any, *, descending: bool = False, out: Any = None, stream: Any = None, begin_bit: int = 0,
         end_bit: Optional[int] = None):
    """The elements of the 1-D array x in sorted order (a stable LSD radix sort); x is not modified.

    Floating point sorts in IEEE total order (-0.0 before +0.0), every NaN last in both directions. begin_bit and
    end_bit restrict the sort to bits [begin_bit, end_bit) of the ordered key (default: all of them).

    >>> x = torch.tensor([3, 1, 2], device="cuda")
    >>> cuprim.sort(x)
    tensor([1, 2, 3], device='cuda:0')
    >>> cuprim.sort(x, descending=True, out=torch.empty_like(x))   # written into (and returning) out
    tensor([3, 2, 1], device='cuda:0')
    """
    fn = "cuprim.sort"
    a, s, alloc = _call(fn, x, stream)
    _need_1d(fn, a)
    obj, o = _output(fn, "out", out, alloc, a.shape, a.code)
    _ext.sort(a.device, a.code, a.ptr, o.ptr, a.size, descending, begin_bit, -1 if end_bit is None else end_bit, s)
    return obj


def argsort(x: Any, *, descending: bool = False, out: Any = None, stream: Any = None):
    """int64 indices that sort the 1-D array x (stable: equal keys keep their order; NaNs last).

    >>> cuprim.argsort(torch.tensor([3., 1., 2.], device="cuda"))
    tensor([1, 2, 0], device='cuda:0')
    """
    fn = "cuprim.argsort"
    a, s, alloc = _call(fn, x, stream)
    _need_1d(fn, a)
    obj, o = _output(fn, "out", out, alloc, a.shape, I64)
    _ext.argsort(a.device, a.code, a.ptr, o.ptr, a.size, descending, s)
    return obj


def sort_pairs(keys: Any, values: Any, *, descending: bool = False, keys_out: Any = None, values_out: Any = None,
               stream: Any = None):
    """(sorted keys, values in the keys' order): a stable sort of the pairs (keys[i], values[i]) by key.

    Keys: int32, int64, uint32, uint64, float32, float64; values: any dtype of 4 or 8 bytes (moved, not compared).

    >>> k, v = cuprim.sort_pairs(torch.tensor([2, 1], device="cuda"), torch.tensor([.5, .25], device="cuda"))
    >>> v
    tensor([0.2500, 0.5000], device='cuda:0')
    """
    fn = "cuprim.sort_pairs"
    k, s, alloc = _call(fn, keys, stream)
    v = _a.view(fn, "values", values)
    _need_1d(fn, k, "keys")
    if v.shape != k.shape:
        raise ValueError(f"{fn}: values has shape {v.shape}, keys {k.shape}; they must match")
    if v.size and k.size and v.device != k.device:
        raise ValueError(f"{fn}: values is on device {v.device}, keys on device {k.device}")
    kobj, ko = _output(fn, "keys_out", keys_out, alloc, k.shape, k.code)
    if values_out is None:
        vobj = alloc.empty(v.shape, v.code) if v.kind == k.kind else _a.Allocator(fn, v, s, True).empty(v.shape,
                                                                                                      v.code)
        vo = _a.view(fn, "values_out", vobj)
    else:
        vobj, vo = values_out, _a.check_out(fn, "values_out", values_out, k, v.size, v.code, v.shape)
    _ext.sort_pairs(k.device, k.code, ITEMSIZE[v.code], k.ptr, ko.ptr, v.ptr, vo.ptr, k.size, descending, s)
    return kobj, vobj


# ---------------------------------------------------------------------------------------------------------------------
# Scans


def _scan_out_code(fn: str, a: _a.DeviceArray, dtype: Any) -> Tuple[int, int]:
    """(the kernel's input code, the output code) of a sum over a (bool sums as uint8 into int64, as NumPy)."""
    code = a.code
    if code == B8:
        if dtype is not None and _dtype_arg(fn, dtype) != I64:
            raise TypeError(f"{fn}: bool sums go to int64")
        return U8, I64
    widened = I64 if code in SIGNED else U64 if code in INTEGERS else code
    if dtype is None:
        return code, widened
    want = _dtype_arg(fn, dtype)
    if want not in (code, widened):
        names = " or ".join(sorted({DTYPE_NAMES[code], DTYPE_NAMES[widened]}))
        raise TypeError(f"{fn}: the sums of {DTYPE_NAMES[code]} go to {names}, not {DTYPE_NAMES[want]}")
    return code, want


def _scan(fn: str, exclusive: bool, x, dtype, out, stream):
    a, s, alloc = _call(fn, x, stream)
    in_code, out_code = _scan_out_code(fn, a, dtype)
    if out is not None and dtype is None:  # out= decides between the type itself and its widened type
        o = _a.view(fn, "out", out)
        if o.code in (a.code, out_code) and not (a.code == B8):
            out_code = o.code
    result_code = I64 if a.code == B8 else out_code
    obj, o = _output(fn, "out", out, alloc, (a.size,), result_code)
    kernel_out = U64 if a.code == B8 else out_code
    (_ext.exclusive_sum if exclusive else _ext.inclusive_sum)(a.device, in_code, kernel_out, a.ptr, o.ptr, a.size, s)
    return obj


def cumsum(x: Any, *, dtype: Any = None, out: Any = None, stream: Any = None):
    """Running sums of x (flattened): out[i] = x[0] + ... + x[i], as numpy.cumsum(x) with axis=None.

    dtype: the output's dtype: by default NumPy's (int64 for signed integers narrower than 64 bits, uint64 for
    unsigned ones, int64 for bool, the input's own type for floats; 16-bit floats accumulate in float32); or x's own
    dtype (faster for 4-byte types: one pass that keeps 4 bytes per element).

    >>> cuprim.cumsum(torch.tensor([1, 2, 3], device="cuda", dtype=torch.int32))
    tensor([1, 3, 6], device='cuda:0')
    """
    return _scan("cuprim.cumsum", False, x, dtype, out, stream)


def inclusive_scan(x: Any, *, dtype: Any = None, out: Any = None, stream: Any = None):
    """The inclusive prefix sum of x (flattened); the same as cumsum."""
    return _scan("cuprim.inclusive_scan", False, x, dtype, out, stream)


def exclusive_scan(x: Any, *, dtype: Any = None, out: Any = None, stream: Any = None):
    """The exclusive prefix sum of x (flattened): out[0] = 0, out[i] = x[0] + ... + x[i-1]; dtype as cumsum's.

    >>> cuprim.exclusive_scan(torch.tensor([1, 2, 3], device="cuda"))
    tensor([0, 1, 3], device='cuda:0')
    """
    return _scan("cuprim.exclusive_scan", True, x, dtype, out, stream)


# ---------------------------------------------------------------------------------------------------------------------
# Reductions


def _reduce(fn: str, op: int, x, out, stream):
    a, s, alloc = _call(fn, x, stream)
    if op != _SUM and a.size == 0:
        raise ValueError(f"{fn}: x is empty (zero-size array): there is no {fn[7:]}")
    code = a.code
    if code == B8:
        if op != _SUM:
            raise TypeError(f"{fn}: bool has no {fn[7:]} here; use sum or view the mask as uint8")
        code = U8
    if op == _SUM:
        out_code = I64 if a.code == B8 or code in SIGNED else U64 if code in INTEGERS else code
        obj, o = _output(fn, "out", out, alloc, (), out_code)
        kernel_out = U64 if a.code == B8 else out_code
        _ext.reduce(a.device, op, code, kernel_out, a.ptr, o.ptr, a.size, s)
        return obj
    if op in (_MIN, _MAX):
        obj, o = _output(fn, "out", out, alloc, (), code)
        _ext.reduce(a.device, op, code, code, a.ptr, o.ptr, a.size, s)
        return obj
    # argmin / argmax: the kernel writes (value, int64 index) into 16 bytes; the index is the second int64.
    pair = alloc.empty((2,), I64)
    _ext.reduce(a.device, op, code, code, a.ptr, alloc.ptr(pair).ptr, a.size, s)
    index = pair[1]
    if out is None:
        return index
    _a.check_out(fn, "out", out, a, 1, I64)
    out[...] = index
    return out


def sum(x: Any, *, out: Any = None, stream: Any = None):
    """The sum of all elements of x, as a 0-d device array (no synchronisation: .item() reads it).

    Integers sum into int64 (signed, bool) or uint64 (unsigned), exactly modulo 2^64; floats in their own type
    (float16 and bfloat16 accumulate in float32), in an order fixed for a given n, alignment and GPU model.

    >>> cuprim.sum(torch.arange(10, device="cuda", dtype=torch.int32)).item()
    45
    """
    return _reduce("cuprim.sum", _SUM, x, out, stream)


def min(x: Any, *, out: Any = None, stream: Any = None):
    """The smallest element of x (0-d device array, x's dtype). NaNs are not propagated (use argmin for them).
    An empty x is a ValueError."""
    return _reduce("cuprim.min", _MIN, x, out, stream)


def max(x: Any, *, out: Any = None, stream: Any = None):
    """The largest element of x (0-d device array, x's dtype). NaNs are not propagated (use argmax for them).
    An empty x is a ValueError."""
    return _reduce("cuprim.max", _MAX, x, out, stream)


def argmin(x: Any, *, out: Any = None, stream: Any = None):
    """The flat index of the smallest element of x (the first one; the first NaN if any, as NumPy), as a 0-d int64
    device array. An empty x is a ValueError.

    >>> cuprim.argmin(torch.tensor([3., 1., 1.], device="cuda")).item()
    1
    """
    return _reduce("cuprim.argmin", _ARGMIN, x, out, stream)


def argmax(x: Any, *, out: Any = None, stream: Any = None):
    """The flat index of the largest element of x (the first one; the first NaN if any, as NumPy), as a 0-d int64
    device array. An empty x is a ValueError.

    >>> cuprim.argmax(torch.tensor([3., 5., 5.], device="cuda")).item()
    1
    """
    return _reduce("cuprim.argmax", _ARGMAX, x, out, stream)


# ---------------------------------------------------------------------------------------------------------------------
# Stream compaction


def _count_output(fn, count_out, alloc, like):
    if count_out is None:
        obj = alloc.empty((), I64)
        return obj, alloc.ptr(obj)
    return count_out, _check_out(fn, "count_out", count_out, like, 1, I64)


def select(x: Any, mask: Any, *, out: Any = None, count_out: Any = None, stream: Any = None):
    """(out, count): the elements of x where mask is true, in order, at the start of out (x.size elements), and their
    number as a 0-d int64 device array. Asynchronous: nothing waits for the count; select_sync trims for you.

    x: any dtype; mask: bool, int8 or uint8 (nonzero selects) of x's shape; out is 1-D.

    >>> out, count = cuprim.select(x, x > 0)
    >>> out[:count.item()]      # .item() waits for the stream
    """
    fn = "cuprim.select"
    a, s, alloc = _call(fn, x, stream)
    m = _a.view(fn, "mask", mask)
    if m.shape != a.shape:
        raise ValueError(f"{fn}: mask has shape {m.shape}, x {a.shape}; they must match")
    if m.code not in (B8, I8, U8):
        raise TypeError(f"{fn}: mask has dtype {m.dtype_name}; it must be bool, int8 or uint8")
    if m.size and a.size and m.device != a.device:
        raise ValueError(f"{fn}: mask is on device {m.device}, x on device {a.device}")
    obj, o = _output(fn, "out", out, alloc, (a.size,), a.code)
    cobj, c = _count_output(fn, count_out, alloc, a)
    _ext.select_flagged(a.device, ITEMSIZE[a.code], U8, a.ptr, m.ptr, o.ptr, c.ptr, a.size, s)
    return obj, cobj


def select_sync(x: Any, mask: Any, *, out: Any = None, stream: Any = None):
    """x[mask] as a 1-D array (a view of the selection's buffer), like torch.masked_select. SYNCHRONISES the stream
    to read the count on the host."""
    buf, count = select(x, mask, out=out, stream=stream)
    return buf[:_read_count(count, stream, buf)]


def _read_count(count, stream, like) -> int:
    # .item() on the library's current stream waits for that stream; with an explicit stream= the work went there.
    if stream is not None:
        _synchronize(stream)
    return int(count.item())


def _synchronize(stream: Any) -> None:
    import sys
    torch, cupy = sys.modules.get("torch"), sys.modules.get("cupy")
    handle = _a.stream_handle("cuprim", stream)
    if torch is not None and hasattr(stream, "synchronize"):
        stream.synchronize()
    elif cupy is not None:
        cupy.cuda.ExternalStream(handle).synchronize()
    elif torch is not None:
        torch.cuda.ExternalStream(handle).synchronize()


# nonzero's flag code for each dtype it takes: bytes as uint8, other integers by width (nonzero bits), floats as such
# (nonzero values: -0.0 is zero, NaN is not).
_NONZERO_FLAG = {**{c: UINT_OF_WIDTH[ITEMSIZE[c]] for c in INTEGERS}, B8: U8, F32: F32, F64: F64}


def nonzero(x: Any, *, out: Any = None, count_out: Any = None, stream: Any = None):
    """(indices, count): the int64 indices i of the 1-D array x with x[i] != 0, in order, at the start of `indices`
    (x.size elements), and their number as a 0-d int64 device array. Asynchronous; nonzero_sync trims.

    x: bool, any integer, float32 or float64 (-0.0 is zero, NaN is nonzero, as NumPy). One pass that reads x and
    writes the indices (cuprim::select_flagged_index: no index array in memory)."""
    fn = "cuprim.nonzero"
    a, s, alloc = _call(fn, x, stream)
    _need_1d(fn, a)
    flag = _NONZERO_FLAG.get(a.code)
    if flag is None:
        raise TypeError(f"{fn}: x has dtype {a.dtype_name}; nonzero takes bool, integers, float32, float64")
    obj, o = _output(fn, "out", out, alloc, (a.size,), I64)
    cobj, c = _count_output(fn, count_out, alloc, a)
    # The indices come from the flags' positions (cuprim::select_flagged_index): no index array, x read once.
    _ext.select_flagged_index(a.device, flag, a.ptr, o.ptr, c.ptr, a.size, s)
    return obj, cobj


def nonzero_sync(x: Any, *, out: Any = None, stream: Any = None):
    """The int64 indices of the nonzero elements of the 1-D array x (numpy.flatnonzero). SYNCHRONISES the stream to
    read their number on the host."""
    buf, count = nonzero(x, out=out, stream=stream)
    return buf[:_read_count(count, stream, buf)]


def _unique_code(fn: str, a: _a.DeviceArray) -> int:
    if a.code in INTEGERS or a.code == B8:
        return UINT_OF_WIDTH[ITEMSIZE[a.code]]
    if a.code in (F32, F64):
        return a.code
    raise TypeError(f"{fn}: x has dtype {a.dtype_name}; unique takes bool, integers, float32, float64")


def unique(x: Any, *, sorted: bool = False, out: Any = None, count_out: Any = None, stream: Any = None):
    """(out, count): the distinct values of x (flattened) in ascending order at the start of out (x.size elements),
    and their number as a 0-d int64 device array. Asynchronous; unique_sync trims.

    sorted=True: x is already sorted, and only adjacent duplicates are dropped (no sort). Otherwise x is first
    sorted into a temporary array (radix sort). Floats: -0.0 and 0.0 are one value; each NaN is its own.
    """
    fn = "cuprim.unique"
    a, s, alloc = _call(fn, x, stream)
    code = _unique_code(fn, a)
    src = a
    if not sorted and a.size > 1:
        tmp = alloc.empty((a.size,), a.code)
        t = alloc.ptr(tmp)
        _ext.sort(a.device, U8 if a.code == B8 else a.code, a.ptr, t.ptr, a.size, False, 0, -1, s)
        src = t
    obj, o = _output(fn, "out", out, alloc, (a.size,), a.code)
    cobj, c = _count_output(fn, count_out, alloc, a)
    _ext.unique(a.device, code, src.ptr, o.ptr, c.ptr, a.size, s)
    return obj, cobj


def unique_sync(x: Any, *, sorted: bool = False, out: Any = None, stream: Any = None):
    """numpy.unique(x): the sorted distinct values of x. SYNCHRONISES the stream to read their number."""
    buf, count = unique(x, sorted=sorted, out=out, stream=stream)
    return buf[:_read_count(count, stream, buf)]


def run_length_encode(x: Any, *, values_out: Any = None, counts_out: Any = None, count_out: Any = None,
                      stream: Any = None):
    """(values, counts, num_runs): for each run of equal adjacent elements of x (flattened), its value and its
    int64 length, at the start of values and counts (x.size elements each); the number of runs as a 0-d int64
    device array. Asynchronous; run_length_encode_sync trims.
    """
    fn = "cuprim.run_length_encode"
    a, s, alloc = _call(fn, x, stream)
    code = _unique_code(fn, a)
    vobj, vo = _output(fn, "values_out", values_out, alloc, (a.size,), a.code)
    kobj, ko = _output(fn, "counts_out", counts_out, alloc, (a.size,), I64)
    cobj, c = _count_output(fn, count_out, alloc, a)
    _ext.run_length_encode(a.device, code, a.ptr, vo.ptr, ko.ptr, c.ptr, a.size, s)
    return vobj, kobj, cobj


def run_length_encode_sync(x: Any, *, stream: Any = None):
    """(values, counts) of the runs of x, trimmed. SYNCHRONISES the stream to read the number of runs."""
    values, counts, num = run_length_encode(x, stream=stream)
    k = _read_count(num, stream, values)
    return values[:k], counts[:k]


# ---------------------------------------------------------------------------------------------------------------------
# Segmented operations


def _offsets(fn: str, offsets: Any, like: _a.DeviceArray, codes) -> Tuple[_a.DeviceArray, int]:
    o = _view(fn, "offsets", offsets)
    if len(o.shape) != 1 or o.size < 1:
        raise ValueError(f"{fn}: offsets must be 1-D with num_segments + 1 entries (shape {o.shape})")
    if o.code not in codes:
        want = " or ".join(DTYPE_NAMES[c] for c in codes)
        raise TypeError(f"{fn}: offsets have dtype {o.dtype_name}; they must be {want}")
    if o.device != like.device and like.size:
        raise ValueError(f"{fn}: offsets are on device {o.device}, x on device {like.device}")
    return o, o.size - 1


_SEGMENTED_OPS = {"sum": _SUM, "min": _MIN, "max": _MAX}


def segmented_reduce(x: Any, offsets: Any, *, op: str = "sum", out: Any = None, stream: Any = None):
    """out[s] = op over x[offsets[s]:offsets[s + 1]] for each segment s (CSR offsets: num_segments + 1 non-decreasing
    int32 or int64 values on the device, read there only: nothing waits for them).

    op: "sum" (signed integers summed in int64, unsigned in uint64, floats in their type, as cuprim.sum), "min" or
    "max" (the input's type; an empty segment gets the type's largest / lowest value, ±inf for floats). dtypes:
    int32, int64, uint32, uint64, float32, float64. Work is balanced over segments and elements, so many tiny
    segments and a few huge ones run at the same rate.

    >>> cuprim.segmented_reduce(x, torch.tensor([0, 3, 3, 10], device="cuda"))   # 3 sums, the second empty
    """
    fn = "cuprim.segmented_reduce"
    code_op = _SEGMENTED_OPS.get(op)
    if code_op is None:
        raise ValueError(f"{fn}: op must be 'sum', 'min' or 'max' (got {op!r})")
    a, s, alloc = _call(fn, x, stream)
    _need_1d(fn, a)
    o, segments = _offsets(fn, offsets, a, (_a.CODE["int32"], I64))
    code = a.code
    if code_op == _SUM:
        code = I64 if code in SIGNED else U64 if code in INTEGERS else code
    obj, r = _output(fn, "out", out, alloc, (segments,), code)
    _ext.segmented_reduce(a.device, code_op, a.code, o.code, a.ptr, r.ptr, o.ptr, segments, s)
    return obj


def segmented_sort(x: Any, offsets: Any, *, descending: bool = False, out: Any = None, stream: Any = None):
    """Each segment x[offsets[s]:offsets[s + 1]] sorted on its own (stable), into a new array or out=.

    offsets: num_segments + 1 non-decreasing int64 values on the device within [0, len(x)] (torch.cumsum and
    cupy.cumsum give int64). Positions outside every segment are not written (a new output leaves them
    uninitialised). Nothing waits for the GPU. Keys: int32, int64, uint32, uint64, float32, float64 (floats in IEEE
    total order, NaNs last).

    >>> cuprim.segmented_sort(x, offsets)
    """
    fn = "cuprim.segmented_sort"
    a, s, alloc = _call(fn, x, stream)
    _need_1d(fn, a)
    o, segments = _offsets(fn, offsets, a, (I64,))
    obj, r = _output(fn, "out", out, alloc, a.shape, a.code)
    _ext.segmented_sort(a.device, a.code, a.ptr, r.ptr, a.size, o.ptr, segments, descending, s)
    return obj


# ---------------------------------------------------------------------------------------------------------------------
# Histograms


def histogram_even(x: Any, bins: int, lower, upper, *, out: Any = None, stream: Any = None):
    """int64 counts of x (flattened) in `bins` equal-width bins over [lower, upper); values outside, and NaNs, are
    not counted. Integer x with integer levels: exact bins; float32 / float64 x: the floating-point rule of
    cuprim/device/histogram.cuh (bit-identical to its host reference).

    >>> cuprim.histogram_even(torch.tensor([0., .5, 1.5], device="cuda"), 2, 0., 2.)
    tensor([2, 1], device='cuda:0')
    """
    fn = "cuprim.histogram_even"
    a, s, alloc = _call(fn, x, stream)
    try:
        count = operator.index(bins) if not isinstance(bins, bool) else -1
    except TypeError:
        count = -1
    if not 1 <= count <= 2**31 - 1:
        raise ValueError(f"{fn}: bins must be an integer from 1 to 2^31 - 1, not {bins!r}")
    bins = count
    obj, o = _output(fn, "out", out, alloc, (bins,), I64, (I64, U64))
    if a.code in INTEGERS:
        if int(lower) != lower or int(upper) != upper:
            raise ValueError(f"{fn}: integer samples take integer levels (lower {lower!r}, upper {upper!r})")
        _ext.histogram_even_int(a.device, a.code, a.ptr, a.size, o.ptr, bins, int(lower), int(upper), s)
    else:
        _ext.histogram_even_float(a.device, a.code, a.ptr, a.size, o.ptr, bins, float(lower), float(upper), s)
    return obj


def histogram_range(x: Any, edges, *, out: Any = None, stream: Any = None):
    """int64 counts of x (flattened) in the bins [edges[b], edges[b + 1]) of a sorted host sequence of edges (a list
    or a NumPy array: numpy.histogram's bins= as edges, with a half-open last bin); float32 or float64 x. Values
    outside, and NaNs, are not counted.

    >>> cuprim.histogram_range(x, [0.0, 0.5, 2.0, 10.0])   # 3 bins
    """
    fn = "cuprim.histogram_range"
    a, s, alloc = _call(fn, x, stream)
    if a.code not in (F32, F64):
        raise TypeError(f"{fn}: x has dtype {a.dtype_name}; histogram_range takes float32 or float64 samples")
    try:
        levels = [float(e) for e in edges]
    except TypeError:
        raise ValueError(f"{fn}: edges must be a host sequence of numbers, not {type(edges).__name__}") from None
    if len(levels) < 2:
        raise ValueError(f"{fn}: edges must hold at least 2 values (one bin), not {len(levels)}")
    obj, o = _output(fn, "out", out, alloc, (len(levels) - 1,), I64, (I64, U64))
    _ext.histogram_range(a.device, a.code, a.ptr, a.size, o.ptr, levels, s)
    return obj


def bincount(x: Any, *, minlength: int = 0, length: Optional[int] = None, out: Any = None, stream: Any = None):
    """int64 counts of each value 0, 1, ... in the integer array x (numpy.bincount without weights).

    length: the number of bins (values ≥ length, and negative values, are not counted; numpy would raise for
    negatives). Without it, the length is max(x) + 1 (at least minlength), which cuprim reads from the device:
    bincount without length= SYNCHRONISES the stream.
    """
    fn = "cuprim.bincount"
    a, s, alloc = _call(fn, x, stream)
    if a.code not in INTEGERS:
        raise TypeError(f"{fn}: x has dtype {a.dtype_name}; bincount takes integers")
    if length is None:
        top = int(max(x, stream=stream).item()) if a.size else -1
        if stream is not None:
            _synchronize(stream)
        length = top + 1 if top + 1 > minlength else minlength
    if length == 0:  # numpy.bincount of an empty array
        return _output(fn, "out", out, alloc, (0,), I64, (I64, U64))[0]
    return histogram_even(x, int(length), 0, int(length), out=out, stream=stream)


# ---------------------------------------------------------------------------------------------------------------------
# BLAS


_MATH = {"fp32": 0, "tf32": 1, "tf32x3": 2}


def gemm(a: Any, b: Any, *, out: Any = None, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False,
         trans_b: bool = False, out_dtype: Any = None, math: str = "fp32", stream: Any = None):
    """C = alpha · op(a) · op(b) + beta · C over row-major (C-contiguous) 2-D arrays; op transposes when trans_*.

    dtypes: float32 and float64 (computed in their type: true FP32 / FP64); bfloat16 and float16 inputs, multiplied
    on tensor cores with float32 accumulation, into their own type or float32 (out_dtype=, or out='s dtype).
    beta ≠ 0 reads out (which must then be given); beta = 0 never reads it.
    math (float32 inputs): "fp32" (default: true FP32), "tf32" (tensor cores on the floats read as tf32, about
    2^-10 per product) or "tf32x3" (tensor cores on each float split in two tf32 parts: FP32-level error, on Hopper
    about twice the speed of FP32; cuprim::blas::math in the C++ header says more).

    >>> c = cuprim.gemm(a, b)                        # a @ b
    >>> cuprim.gemm(a, b, out=c, alpha=2, beta=1)   # c = 2 a b + c
    >>> c = cuprim.gemm(a, b, math="tf32x3")         # float32 on tensor cores
    """
    fn = "cuprim.gemm"
    mode = _MATH.get(math)
    if mode is None:
        raise ValueError(f"{fn}: math must be 'fp32', 'tf32' or 'tf32x3' (got {math!r})")
    A, s, alloc = _call(fn, a, stream)
    B = _a.view(fn, "b", b)
    if len(A.shape) != 2 or len(B.shape) != 2:
        raise ValueError(f"{fn}: a and b must be 2-D (shapes {A.shape}, {B.shape})")
    if B.code != A.code:
        raise TypeError(f"{fn}: a is {A.dtype_name}, b {B.dtype_name}; they must have one dtype")
    if mode and A.dtype_name != "float32":
        raise TypeError(f"{fn}: math={math!r} takes float32 inputs, not {A.dtype_name}")
    m, k = (A.shape[1], A.shape[0]) if trans_a else A.shape
    kb, n = (B.shape[1], B.shape[0]) if trans_b else B.shape
    if kb != k:
        raise ValueError(f"{fn}: op(a) is {m}×{k} but op(b) is {kb}×{n}")
    if out is not None:
        oc = _a.view(fn, "out", out).code
        out_code = oc if out_dtype is None else _dtype_arg(fn, out_dtype)
    else:
        out_code = A.code if out_dtype is None else _dtype_arg(fn, out_dtype)
        if beta != 0:
            raise ValueError(f"{fn}: beta = {beta} reads C: pass out=")
    obj, o = _output(fn, "out", out, alloc, (m, n), out_code)
    ld = lambda cols: cols if cols > 1 else 1  # row-major leading dimensions (BLAS wants at least 1)
    _ext.gemm(A.device, A.code, out_code, trans_a, trans_b, m, n, k, float(alpha), A.ptr, ld(A.shape[1]), B.ptr,
              ld(B.shape[1]), float(beta), o.ptr, ld(n), s, mode)
    return obj


def matmul(a: Any, b: Any, *, out: Any = None, stream: Any = None):
    """a @ b for 2-D row-major arrays (gemm with alpha = 1, beta = 0)."""
    return gemm(a, b, out=out, stream=stream)


def _blas_real(fn: str, *arrays: _a.DeviceArray) -> int:
    code = arrays[0].code
    for x in arrays[1:]:
        if x.code != code:
            raise TypeError(f"{fn}: the arrays must have one dtype ({', '.join(y.dtype_name for y in arrays)})")
    if code not in (F32, F64):
        raise TypeError(f"{fn}: dtype {arrays[0].dtype_name} is not float32 or float64")
    return code


def _need_2d_square(fn: str, a: _a.DeviceArray, arg: str = "a") -> int:
    if len(a.shape) != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{fn}: {arg} must be a square 2-D array (shape {a.shape})")
    return a.shape[0]


def _side_operands(fn: str, a, b, left: bool, stream):
    """trsm's and symm's operands: a square (k × k) applied from the left or the right of a 2-D b (m × n)."""
    A, s, alloc = _call(fn, a, stream)
    B = _view(fn, "b", b)
    k = _need_2d_square(fn, A)
    if len(B.shape) != 2:
        raise ValueError(f"{fn}: b must be 2-D (shape {B.shape})")
    code = _blas_real(fn, A, B)
    m, n = B.shape
    if (m if left else n) != k:
        raise ValueError(f"{fn}: a is {k}×{k} but b is {m}×{n} (left={left})")
    return A, B, k, m, n, code, s, alloc


def _into(fn: str, out, b: _a.DeviceArray, alloc, s: int):
    """(out object, its address) holding a copy of b: the caller's out= (b itself: in place) or a new array."""
    obj, o = _output(fn, "out", out, alloc, tuple(b.shape), b.code)
    if o.ptr != b.ptr:
        _ext.copy(b.device, o.ptr, b.ptr, b.size * ITEMSIZE[b.code], s)
    return obj, o


def dot(x: Any, y: Any, *, out: Any = None, stream: Any = None):
    """Σ x[k]·y[k] of two 1-D arrays of one dtype, as a 0-d device array (no synchronisation: .item() reads it).

    float32 and float64 are summed in their type; float16 and bfloat16 products are summed in float32 (the result is
    float32). The order of the additions depends only on the length and the GPU, so a result repeats bit for bit.

    >>> d = cuprim.dot(x, y)
    """
    fn = "cuprim.dot"
    X, s, alloc = _call(fn, x, stream)
    Y = _view(fn, "y", y)
    if len(X.shape) != 1 or len(Y.shape) != 1 or X.size != Y.size:
        raise ValueError(f"{fn}: x and y must be 1-D of one length (shapes {X.shape}, {Y.shape})")
    if Y.code != X.code:
        raise TypeError(f"{fn}: x is {X.dtype_name}, y {Y.dtype_name}; they must have one dtype")
    out_code = F32 if X.dtype_name in ("float16", "bfloat16") else X.code
    obj, o = _output(fn, "out", out, alloc, (), out_code)
    _ext.dot(X.device, X.code, X.size, X.ptr, 1, Y.ptr, 1, o.ptr, s)
    return obj


def gemv(a: Any, x: Any, *, out: Any = None, alpha: float = 1.0, beta: float = 0.0, trans: bool = False,
         stream: Any = None):
    """y = alpha · op(a) · x + beta · y for a row-major 2-D a (m × n) and 1-D x; op transposes when trans.

    float32 or float64. beta ≠ 0 reads out (which must then be given); beta = 0 never reads it.

    >>> y = cuprim.gemv(a, x)                     # a @ x
    >>> cuprim.gemv(a, x, out=y, trans=True)      # y = a.T @ x
    """
    fn = "cuprim.gemv"
    A, s, alloc = _call(fn, a, stream)
    X = _view(fn, "x", x)
    if len(A.shape) != 2 or len(X.shape) != 1:
        raise ValueError(f"{fn}: a must be 2-D and x 1-D (shapes {A.shape}, {X.shape})")
    code = _blas_real(fn, A, X)
    m, n = A.shape
    rows, cols = (n, m) if trans else (m, n)
    if X.size != cols:
        raise ValueError(f"{fn}: op(a) is {rows}×{cols} but x has {X.size} elements")
    if out is None and beta != 0:
        raise ValueError(f"{fn}: beta = {beta} reads y: pass out=")
    obj, o = _output(fn, "out", out, alloc, (rows,), code)
    _ext.gemv(A.device, code, trans, m, n, float(alpha), A.ptr, n if n > 1 else 1, X.ptr, 1, float(beta), o.ptr, 1, s)
    return obj


def trsm(a: Any, b: Any, *, left: bool = True, lower: bool = True, trans: bool = False, unit_diagonal: bool = False,
         alpha: float = 1.0, out: Any = None, stream: Any = None):
    """X with op(a)·X = alpha·b (left) or X·op(a) = alpha·b (left=False): a triangular solve on row-major arrays.

    a is square (n × n, only its `lower` or upper triangle read; unit_diagonal: its diagonal is taken as ones and not
    read); b is m × n. float32 or float64. The result goes to out= (pass b itself to solve in place) or to a new
    array. A zero on the diagonal gives IEEE infinities and NaNs, as BLAS does.

    >>> x = cuprim.trsm(l, b)                             # l x = b, l lower triangular
    >>> cuprim.trsm(u, b, lower=False, left=False, out=b)  # b ← b u⁻¹, in place
    """
    fn = "cuprim.trsm"
    A, B, k, m, n, code, s, alloc = _side_operands(fn, a, b, left, stream)
    obj, o = _into(fn, out, B, alloc, s)
    _ext.trsm(A.device, code, left, lower, trans, unit_diagonal, m, n, float(alpha), A.ptr, k if k > 1 else 1, o.ptr,
              n if n > 1 else 1, s)
    return obj


def symm(a: Any, b: Any, *, left: bool = True, lower: bool = True, alpha: float = 1.0, beta: float = 0.0,
         out: Any = None, stream: Any = None):
    """C = alpha·a·b + beta·C (left) or alpha·b·a + beta·C, a symmetric (only its `lower` or upper triangle read).

    Row-major arrays, float32 or float64: a square, b and C m × n. beta ≠ 0 reads out (which must then be given).

    >>> c = cuprim.symm(s, b)   # s @ b, reading s's lower triangle only
    """
    fn = "cuprim.symm"
    A, B, k, m, n, code, s, alloc = _side_operands(fn, a, b, left, stream)
    if out is None and beta != 0:
        raise ValueError(f"{fn}: beta = {beta} reads C: pass out=")
    obj, o = _output(fn, "out", out, alloc, (m, n), code)
    _ext.symm(A.device, code, left, lower, m, n, float(alpha), A.ptr, k if k > 1 else 1, B.ptr, n if n > 1 else 1,
              float(beta), o.ptr, n if n > 1 else 1, s)
    return obj


def gemm_batched(a: Any, b: Any, *, out: Any = None, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False,
                 trans_b: bool = False, stream: Any = None):
    """C[z] = alpha · op(a[z]) · op(b[z]) + beta · C[z] over 3-D row-major arrays (batch first), float32 or float64.

    Built for many small matrices (cuprim's batched kernels cover up to 64 × 64 in shared memory; larger ones run as
    tiles). beta ≠ 0 reads out (which must then be given).

    >>> c = cuprim.gemm_batched(a, b)   # a: (batch, m, k), b: (batch, k, n) -> (batch, m, n)
    """
    fn = "cuprim.gemm_batched"
    A, s, alloc = _call(fn, a, stream)
    B = _view(fn, "b", b)
    if len(A.shape) != 3 or len(B.shape) != 3 or A.shape[0] != B.shape[0]:
        raise ValueError(f"{fn}: a and b must be 3-D with one batch size (shapes {A.shape}, {B.shape})")
    code = _blas_real(fn, A, B)
    batch = A.shape[0]
    m, k = (A.shape[2], A.shape[1]) if trans_a else A.shape[1:]
    kb, n = (B.shape[2], B.shape[1]) if trans_b else B.shape[1:]
    if kb != k:
        raise ValueError(f"{fn}: op(a[z]) is {m}×{k} but op(b[z]) is {kb}×{n}")
    if out is None and beta != 0:
        raise ValueError(f"{fn}: beta = {beta} reads C: pass out=")
    obj, o = _output(fn, "out", out, alloc, (batch, m, n), code)
    ld = lambda cols: cols if cols > 1 else 1
    _ext.gemm_strided_batched(A.device, code, trans_a, trans_b, m, n, k, float(alpha), A.ptr, ld(A.shape[2]),
                              A.shape[1] * A.shape[2], B.ptr, ld(B.shape[2]), B.shape[1] * B.shape[2], float(beta),
                              o.ptr, ld(n), m * n, batch, s)
    return obj


def trsm_batched(a: Any, b: Any, *, left: bool = True, lower: bool = True, trans: bool = False,
                 unit_diagonal: bool = False, alpha: float = 1.0, out: Any = None, stream: Any = None):
    """trsm over 3-D row-major arrays (batch first): a (batch, k, k) triangular, b (batch, m, n); float32 or float64.

    Built for many small systems (k ≤ 64 are solved a block per system in shared memory, several per block).

    >>> x = cuprim.trsm_batched(l, b)   # l[z] x[z] = b[z] for every z
    """
    fn = "cuprim.trsm_batched"
    A, s, alloc = _call(fn, a, stream)
    B = _view(fn, "b", b)
    if len(A.shape) != 3 or A.shape[1] != A.shape[2] or len(B.shape) != 3 or A.shape[0] != B.shape[0]:
        raise ValueError(f"{fn}: a must be (batch, k, k) and b (batch, m, n) (shapes {A.shape}, {B.shape})")
    code = _blas_real(fn, A, B)
    batch, k = A.shape[0], A.shape[1]
    m, n = B.shape[1:]
    if (m if left else n) != k:
        raise ValueError(f"{fn}: a[z] is {k}×{k} but b[z] is {m}×{n} (left={left})")
    obj, o = _into(fn, out, B, alloc, s)
    _ext.trsm_strided_batched(A.device, code, left, lower, trans, unit_diagonal, m, n, float(alpha), A.ptr,
                              k if k > 1 else 1, k * k, o.ptr, n if n > 1 else 1, m * n, batch, s)
    return obj
