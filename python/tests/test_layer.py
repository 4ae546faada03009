"""The Python layer's flows without a GPU: a stand-in for PyTorch (just what cuprim touches) and a stand-in for the
compiled module that records each call. Checks what each public function hands to the extension (dtype codes,
sizes, addresses, leading dimensions, the stream), where its outputs come from, and its argument errors."""

from __future__ import annotations

import itertools
import sys
import types

import pytest

import cuprim
from cuprim import _arrays

_addresses = itertools.count(0x7000_0000, 0x10_0000)


class FakeDtype:
    def __init__(self, name, itemsize):
        self.name_, self.itemsize = name, itemsize

    def __str__(self):
        return f"torch.{self.name_}"

    __repr__ = __str__


class FakeTensor:
    """A contiguous CUDA tensor of the stand-in PyTorch."""

    def __init__(self, torch, shape, dtype, ptr=None, contiguous=True, cuda=True, device=0):
        self._torch, self.shape, self.dtype = torch, tuple(shape), dtype
        self._ptr = next(_addresses) if ptr is None else ptr
        self._contiguous, self.is_cuda, self._device = contiguous, cuda, device
        self.device = types.SimpleNamespace(index=device, type="cuda" if cuda else "cpu")

    def data_ptr(self):
        return self._ptr

    def numel(self):
        n = 1
        for e in self.shape:
            n *= e
        return n

    def is_contiguous(self):
        return self._contiguous

    def get_device(self):
        return self._device if self.is_cuda else -1

    def stride(self):
        return (2,)

    def __getitem__(self, key):
        if isinstance(key, int):
            return FakeTensor(self._torch, (), self.dtype, self._ptr + key * self.dtype.itemsize)
        if isinstance(key, slice):
            start, stop, _ = key.indices(self.shape[0])
            return FakeTensor(self._torch, (stop - start,), self.dtype, self._ptr + start * self.dtype.itemsize)
        raise TypeError(key)

    def item(self):
        return 3


def make_fake_torch():
    torch = types.ModuleType("torch")
    sizes = dict(zip(_arrays.DTYPE_NAMES, _arrays.ITEMSIZE))
    for name in _arrays.DTYPE_NAMES:
        setattr(torch, name, FakeDtype(name, sizes[name]))
    torch.Tensor = FakeTensor
    torch.allocations = []
    torch.current_raw_stream = 0

    def empty(shape, dtype, device):
        t = FakeTensor(torch, shape if isinstance(shape, tuple) else (shape,), dtype)
        torch.allocations.append((t, torch.current_raw_stream))
        return t

    def arange(n, dtype, device):
        return empty((n,), dtype, device)

    torch.empty, torch.arange = empty, arange
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda dev: torch.current_raw_stream)

    class ExternalStream:
        def __init__(self, handle, device=None):
            self.cuda_stream = handle

    class StreamContext:
        def __init__(self, s):
            self.s = s

        def __enter__(self):
            self.saved, torch.current_raw_stream = torch.current_raw_stream, self.s.cuda_stream

        def __exit__(self, *exc):
            torch.current_raw_stream = self.saved

    torch.cuda = types.SimpleNamespace(ExternalStream=ExternalStream, stream=StreamContext)
    return torch


class FakeExt:
    """Records every call of the compiled module's entry points."""

    def __init__(self, real):
        self.calls, self.real = [], real

    def __getattr__(self, name):
        if name in ("supported", "dlpack_info", "_throw_for_test"):
            return getattr(self.real, name)
        if name == "pointer_device":
            return lambda p: 0
        if name == "device_count":
            return lambda: 1

        def record(*args):
            self.calls.append((name, args))
        return record


@pytest.fixture
def fake(monkeypatch):
    torch = make_fake_torch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(_arrays, "_torch_codes", {})
    monkeypatch.setattr(_arrays, "_torch_dtypes", {})
    ext = FakeExt(cuprim._ext)
    monkeypatch.setattr(cuprim, "_ext", ext)
    return types.SimpleNamespace(torch=torch, ext=ext, t=lambda shape, dt, **kw: FakeTensor(
        torch, shape if isinstance(shape, tuple) else (shape,), getattr(torch, dt), **kw))


C = _arrays.CODE


def test_sort_flow(fake):
    x = fake.t(10, "float32")
    y = cuprim.sort(x, descending=True)
    (name, args), = fake.ext.calls
    assert name == "sort"
    assert args == (0, C["float32"], x.data_ptr(), y.data_ptr(), 10, True, 0, -1, 0)
    assert y.dtype is fake.torch.float32 and y.shape == (10,)
    out = fake.t(10, "float32")
    assert cuprim.sort(x, out=out, begin_bit=4, end_bit=12) is out
    assert fake.ext.calls[-1][1][3] == out.data_ptr() and fake.ext.calls[-1][1][6:8] == (4, 12)


def test_refusals(fake):
    with pytest.raises(ValueError, match="not contiguous"):
        cuprim.sort(fake.t(10, "int32", contiguous=False))
    with pytest.raises(ValueError, match="not a CUDA device"):
        cuprim.sort(fake.t(10, "int32", cuda=False))
    with pytest.raises(ValueError, match="1-D"):
        cuprim.sort(fake.t((2, 5), "int32"))
    with pytest.raises(TypeError, match="dtype"):
        cuprim.sort(fake.t(10, "int32"), out=fake.t(10, "int64"))
    with pytest.raises(ValueError, match="shape"):
        cuprim.sort(fake.t(10, "int32"), out=fake.t(9, "int32"))
    with pytest.raises(ValueError, match="device 1"):
        cuprim.sort(fake.t(10, "int32"), out=fake.t(10, "int32", device=1))
    assert fake.ext.calls == []  # nothing reached the extension


def test_streams(fake):
    x = fake.t(10, "int32")
    fake.torch.current_raw_stream = 0xABC
    y = cuprim.argsort(x)
    assert fake.ext.calls[-1][1][-1] == 0xABC
    assert fake.torch.allocations[-1] == (y, 0xABC)
    fake.torch.current_raw_stream = 0
    y = cuprim.argsort(x, stream=0x123)  # explicit: the work and the allocation both on it
    assert fake.ext.calls[-1][1][-1] == 0x123
    assert fake.torch.allocations[-1] == (y, 0x123)
    assert y.dtype is fake.torch.int64
    cuprim.argsort(x, stream=types.SimpleNamespace(cuda_stream=0x456))
    assert fake.ext.calls[-1][1][-1] == 0x456


def test_scan_dtypes(fake):
    x = fake.t(7, "int32")
    y = cuprim.cumsum(x)
    assert fake.ext.calls[-1] == ("inclusive_sum", (0, C["int32"], C["int64"], x.data_ptr(), y.data_ptr(), 7, 0))
    y = cuprim.cumsum(x, dtype=fake.torch.int32)
    assert fake.ext.calls[-1][1][2] == C["int32"] and y.dtype is fake.torch.int32
    y = cuprim.exclusive_scan(fake.t(7, "uint16"))
    assert fake.ext.calls[-1][0] == "exclusive_sum" and fake.ext.calls[-1][1][1:3] == (C["uint16"], C["uint64"])
    b = cuprim.cumsum(fake.t(7, "bool"))
    assert fake.ext.calls[-1][1][1:3] == (C["uint8"], C["uint64"]) and b.dtype is fake.torch.int64
    out = fake.t(7, "int32")
    cuprim.cumsum(x, out=out)  # out= chooses the type itself over the widened default
    assert fake.ext.calls[-1][1][2] == C["int32"]
    with pytest.raises(TypeError):
        cuprim.cumsum(x, dtype="float32")


def test_reductions(fake):
    x = fake.t((4, 5), "int8")
    s = cuprim.sum(x)
    assert fake.ext.calls[-1] == ("reduce", (0, 0, C["int8"], C["int64"], x.data_ptr(), s.data_ptr(), 20, 0))
    assert s.shape == ()
    cuprim.sum(fake.t(3, "uint32"))
    assert fake.ext.calls[-1][1][2:4] == (C["uint32"], C["uint64"])
    m = cuprim.max(fake.t(3, "float16"))
    assert fake.ext.calls[-1][1][1:4] == (2, C["float16"], C["float16"]) and m.dtype is fake.torch.float16
    i = cuprim.argmax(x)
    name, args = fake.ext.calls[-1]
    pair = fake.torch.allocations[-1][0]
    assert args[1] == 4 and args[5] == pair.data_ptr() and pair.shape == (2,)
    assert i.shape == () and i.data_ptr() == pair.data_ptr() + 8  # the index half of cuprim::arg_result
    with pytest.raises(ValueError, match="empty"):
        cuprim.argmin(fake.t(0, "float32"))
    with pytest.raises(TypeError):
        cuprim.max(fake.t(3, "bool"))


def test_compaction(fake):
    x, m = fake.t(9, "float64"), fake.t(9, "bool")
    out, count = cuprim.select(x, m)
    assert fake.ext.calls[-1] == ("select_flagged", (0, 8, C["uint8"], x.data_ptr(), m.data_ptr(), out.data_ptr(),
                                                      count.data_ptr(), 9, 0))
    assert count.shape == () and count.dtype is fake.torch.int64
    with pytest.raises(ValueError, match="shape"):
        cuprim.select(x, fake.t(8, "bool"))
    with pytest.raises(TypeError, match="mask"):
        cuprim.select(x, fake.t(9, "float32"))
    trimmed = cuprim.select_sync(x, m)
    assert trimmed.shape == (3,)  # the stand-in count reads 3

    v = fake.t(9, "int16")
    before = len(fake.torch.allocations)
    idx, count = cuprim.nonzero(v)
    # The indices come from the flags' positions: one call, no index array allocated (out and count only).
    assert fake.ext.calls[-1] == ("select_flagged_index", (0, C["uint16"], v.data_ptr(), idx.data_ptr(),
                                                            count.data_ptr(), 9, 0))
    assert [t for t, _ in fake.torch.allocations[before:]] == [idx, count]
    assert idx.shape == (9,) and idx.dtype is fake.torch.int64 and count.shape == ()
    for dt, flag in (("float32", "float32"), ("float64", "float64"), ("bool", "uint8"), ("int8", "uint8"),
                     ("uint8", "uint8"), ("int32", "uint32"), ("uint64", "uint64"), ("int64", "uint64")):
        cuprim.nonzero(fake.t(9, dt))
        assert fake.ext.calls[-1][1][1] == C[flag], dt
    with pytest.raises(TypeError, match="nonzero takes"):
        cuprim.nonzero(fake.t(9, "float16"))
    out, cnt = fake.t(9, "int64"), fake.t((), "int64")
    assert cuprim.nonzero(v, out=out, count_out=cnt) == (out, cnt)
    assert fake.ext.calls[-1][1][3:5] == (out.data_ptr(), cnt.data_ptr())
    with pytest.raises(TypeError, match="int64"):
        cuprim.nonzero(v, out=fake.t(9, "int32"))
    assert cuprim.nonzero_sync(v).shape == (3,)  # the stand-in count reads 3

    u, count = cuprim.unique(fake.t(9, "int32"))
    (n1, a1), (n2, a2) = fake.ext.calls[-2:]
    assert n1 == "sort" and a1[1] == C["int32"] and n2 == "unique" and a2[1] == C["uint32"] and a2[2] == a1[3]
    cuprim.unique(fake.t(9, "int32"), sorted=True)
    assert fake.ext.calls[-1][0] == "unique" and fake.ext.calls[-2][0] == "unique"

    values, counts, runs = cuprim.run_length_encode(fake.t(9, "float32"))
    name, args = fake.ext.calls[-1]
    assert name == "run_length_encode" and args[1] == C["float32"]
    assert args[3:6] == (values.data_ptr(), counts.data_ptr(), runs.data_ptr()) and counts.dtype is fake.torch.int64


class CaiArray:
    """A device array known only through __cuda_array_interface__ (no library to allocate through)."""

    def __init__(self, shape, typestr):
        self.__cuda_array_interface__ = {"data": (next(_addresses), False), "shape": shape, "typestr": typestr,
                                         "strides": None, "version": 3}


def test_nonzero_of_interface_arrays(fake, monkeypatch):
    # With out= and count_out= nothing is allocated, so arrays of no known library work too.
    monkeypatch.setattr(_arrays, "_ext", fake.ext)  # pointer_device: device 0
    x, out, cnt = CaiArray((5,), "|u1"), CaiArray((5,), "<i8"), CaiArray((), "<i8")
    assert cuprim.nonzero(x, out=out, count_out=cnt) == (out, cnt)
    ptr = lambda a: a.__cuda_array_interface__["data"][0]
    assert fake.ext.calls[-1] == ("select_flagged_index", (0, C["uint8"], ptr(x), ptr(out), ptr(cnt), 5, 0))
    with pytest.raises(TypeError, match="pass out="):
        cuprim.nonzero(x)


def test_histograms(fake):
    x = fake.t(100, "uint8")
    h = cuprim.bincount(x, length=256)
    assert fake.ext.calls[-1] == ("histogram_even_int", (0, C["uint8"], x.data_ptr(), 100, h.data_ptr(), 256, 0, 256,
                                                          0))
    assert h.shape == (256,) and h.dtype is fake.torch.int64
    h = cuprim.bincount(x)  # length from max(x): the stand-in reads 3
    assert fake.ext.calls[-2][0] == "reduce" and fake.ext.calls[-1][1][5] == 4
    cuprim.histogram_even(fake.t(5, "float32"), 7, -1, 1.5)
    assert fake.ext.calls[-1][0] == "histogram_even_float" and fake.ext.calls[-1][1][5:8] == (7, -1.0, 1.5)
    with pytest.raises(ValueError, match="integer levels"):
        cuprim.histogram_even(x, 4, 0, 2.5)
    with pytest.raises(ValueError, match="bins"):
        cuprim.histogram_even(x, 0, 0, 4)
    with pytest.raises(TypeError):
        cuprim.bincount(fake.t(5, "float32"), length=4)


def test_gemm_flow(fake):
    a, b = fake.t((6, 4), "bfloat16"), fake.t((4, 5), "bfloat16")
    c = cuprim.gemm(a, b, out_dtype="float32", alpha=2)
    assert fake.ext.calls[-1] == ("gemm", (0, C["bfloat16"], C["float32"], False, False, 6, 5, 4, 2.0, a.data_ptr(), 4,
                                           b.data_ptr(), 5, 0.0, c.data_ptr(), 5, 0, 0))
    assert c.shape == (6, 5) and c.dtype is fake.torch.float32
    at = fake.t((4, 6), "float32")
    bt = fake.t((5, 4), "float32")
    c = cuprim.gemm(at, bt, trans_a=True, trans_b=True)
    assert fake.ext.calls[-1][1][3:8] == (True, True, 6, 5, 4) and c.shape == (6, 5)
    out = fake.t((6, 5), "float32")
    assert cuprim.gemm(at, bt, trans_a=True, trans_b=True, out=out, beta=1.0) is out
    with pytest.raises(ValueError, match="out="):
        cuprim.gemm(at, bt, trans_a=True, trans_b=True, beta=1.0)
    with pytest.raises(ValueError, match="op\\(a\\)"):
        cuprim.gemm(at, bt)
    with pytest.raises(TypeError, match="one dtype"):
        cuprim.gemm(a, fake.t((4, 5), "float32"))
    cuprim.gemm(at, bt, trans_a=True, trans_b=True, math="tf32x3")
    assert fake.ext.calls[-1][1][-1] == 2
    with pytest.raises(ValueError, match="math"):
        cuprim.gemm(at, bt, trans_a=True, trans_b=True, math="fp16")
    with pytest.raises(TypeError, match="float32"):
        cuprim.gemm(a, b, math="tf32")
    e = cuprim.matmul(fake.t((0, 3), "float64"), fake.t((3, 0), "float64"))
    assert fake.ext.calls[-1][1][10] == 3 and fake.ext.calls[-1][1][12] == 1 and fake.ext.calls[-1][1][15] == 1
    assert e.shape == (0, 0)


def test_sort_pairs_flow(fake):
    k, v = fake.t(8, "int64"), fake.t(8, "float32")
    ko, vo = cuprim.sort_pairs(k, v, descending=True)
    assert fake.ext.calls[-1] == ("sort_pairs", (0, C["int64"], 4, k.data_ptr(), ko.data_ptr(), v.data_ptr(),
                                                  vo.data_ptr(), 8, True, 0))
    assert vo.dtype is fake.torch.float32
    with pytest.raises(ValueError, match="shape"):
        cuprim.sort_pairs(k, fake.t(7, "float32"))


def test_blas_flows(fake):
    a, x = fake.t((6, 4), "float32"), fake.t(4, "float32")
    y = cuprim.gemv(a, x)
    assert fake.ext.calls[-1] == ("gemv", (0, C["float32"], False, 6, 4, 1.0, a.data_ptr(), 4, x.data_ptr(), 1, 0.0,
                                           y.data_ptr(), 1, 0))
    assert y.shape == (6,)
    y = cuprim.gemv(a, fake.t(6, "float32"), trans=True)
    assert y.shape == (4,) and fake.ext.calls[-1][1][2] is True
    with pytest.raises(ValueError, match="x has 6"):
        cuprim.gemv(a, fake.t(6, "float32"))
    with pytest.raises(ValueError, match="out="):
        cuprim.gemv(a, x, beta=1.0)
    with pytest.raises(TypeError, match="float32 or float64"):
        cuprim.gemv(fake.t((6, 4), "int32"), fake.t(4, "int32"))

    d = cuprim.dot(fake.t(5, "bfloat16"), fake.t(5, "bfloat16"))
    assert d.shape == () and d.dtype is fake.torch.float32 and fake.ext.calls[-1][1][1:3] == (C["bfloat16"], 5)
    with pytest.raises(ValueError, match="one length"):
        cuprim.dot(fake.t(5, "float32"), fake.t(4, "float32"))

    l, b = fake.t((3, 3), "float64"), fake.t((3, 7), "float64")
    r = cuprim.trsm(l, b)
    assert [c[0] for c in fake.ext.calls[-2:]] == ["copy", "trsm"]  # b copied into the result, then solved there
    assert fake.ext.calls[-2][1][1:4] == (r.data_ptr(), b.data_ptr(), 3 * 7 * 8)
    assert fake.ext.calls[-1][1][1:8] == (C["float64"], True, True, False, False, 3, 7)
    assert cuprim.trsm(l, b, out=b) is b and fake.ext.calls[-1][0] == "trsm"  # in place: no copy
    assert fake.ext.calls[-2][0] != "copy" or fake.ext.calls[-2][1][1] != b.data_ptr()
    with pytest.raises(ValueError, match="left=False"):
        cuprim.trsm(l, fake.t((7, 4), "float64"), left=False)
    with pytest.raises(ValueError, match="square"):
        cuprim.trsm(fake.t((3, 4), "float64"), b)

    c = cuprim.symm(l, b, lower=False, alpha=2.0)
    assert fake.ext.calls[-1][1][1:7] == (C["float64"], True, False, 3, 7, 2.0) and c.shape == (3, 7)
    with pytest.raises(ValueError, match="out="):
        cuprim.symm(l, b, beta=1.0)

    A, B = fake.t((10, 2, 3), "float32"), fake.t((10, 3, 4), "float32")
    c = cuprim.gemm_batched(A, B)
    assert c.shape == (10, 2, 4)
    assert fake.ext.calls[-1][1][2:12] == (False, False, 2, 4, 3, 1.0, A.data_ptr(), 3, 6, B.data_ptr())
    with pytest.raises(ValueError, match="one batch size"):
        cuprim.gemm_batched(A, fake.t((9, 3, 4), "float32"))
    L, R = fake.t((10, 3, 3), "float32"), fake.t((10, 3, 5), "float32")
    x = cuprim.trsm_batched(L, R, unit_diagonal=True)
    assert x.shape == (10, 3, 5) and fake.ext.calls[-1][0] == "trsm_strided_batched"
    assert fake.ext.calls[-1][1][2:9] == (True, True, False, True, 3, 5, 1.0)


def test_segmented_and_range_flows(fake):
    x, off = fake.t(10, "int32"), fake.t(4, "int64")
    r = cuprim.segmented_reduce(x, off)
    assert r.shape == (3,) and r.dtype is fake.torch.int64
    assert fake.ext.calls[-1] == ("segmented_reduce", (0, 0, C["int32"], C["int64"], x.data_ptr(), r.data_ptr(),
                                                       off.data_ptr(), 3, 0))
    r = cuprim.segmented_reduce(fake.t(10, "float32"), fake.t(4, "int32"), op="max")
    assert r.dtype is fake.torch.float32 and fake.ext.calls[-1][1][:4] == (0, 2, C["float32"], C["int32"])
    with pytest.raises(ValueError, match="op must be"):
        cuprim.segmented_reduce(x, off, op="prod")
    with pytest.raises(TypeError, match="offsets have dtype"):
        cuprim.segmented_reduce(x, fake.t(4, "float32"))
    with pytest.raises(ValueError, match="num_segments"):
        cuprim.segmented_reduce(x, fake.t(0, "int64"))
    y = cuprim.segmented_sort(x, off, descending=True)
    assert y.shape == (10,) and fake.ext.calls[-1][0] == "segmented_sort"
    assert fake.ext.calls[-1][1][4:8] == (10, off.data_ptr(), 3, True)
    with pytest.raises(TypeError, match="int64"):
        cuprim.segmented_sort(x, fake.t(4, "int32"))
    h = cuprim.histogram_range(fake.t(10, "float64"), [0, 0.5, 2])
    assert h.shape == (2,) and fake.ext.calls[-1][0] == "histogram_range" and fake.ext.calls[-1][1][5] == [0.0, 0.5, 2.0]
    with pytest.raises(ValueError, match="at least 2"):
        cuprim.histogram_range(fake.t(10, "float64"), [1.0])
    with pytest.raises(TypeError, match="float32 or float64"):
        cuprim.histogram_range(x, [0, 1])
