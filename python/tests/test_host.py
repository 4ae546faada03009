"""Tests that need no GPU: the package imports, its dtype tables agree with the compiled module's, exceptions map to
Python's, and host, non-contiguous or foreign inputs are refused before anything reaches the device."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import cuprim
from cuprim import _arrays, _ext


def test_import_and_api():
    assert cuprim.__version__
    for name in cuprim.__all__:
        assert callable(getattr(cuprim, name)), name
        assert getattr(cuprim, name).__doc__, f"{name} has no docstring"
    assert isinstance(cuprim.device_count(), int)


def test_stub_lists_every_public_function():
    import pathlib
    stub = (pathlib.Path(cuprim.__file__).parent / "__init__.pyi").read_text()
    for name in cuprim.__all__:
        assert f"def {name}(" in stub, f"{name} missing from __init__.pyi"


def test_dtype_table_matches_compiled_module():
    table = cuprim.supported_dtypes()
    names = set(_arrays.DTYPE_NAMES)
    for op, entries in table.items():
        for entry in entries:
            for name in entry.split(">"):
                assert name in names, f"{op}: {name} not in the Python dtype table"
    # The coverage this version promises.
    assert set(table["sort"]) == set(_arrays.DTYPE_NAMES) - {"bool"}
    assert set(table["argsort"]) == set(table["sort"])
    assert {"int32", "int64", "uint32", "uint64", "float32", "float64"} <= set(table["sort_pairs"])
    assert "int32>int32" in table["inclusive_scan"] and "int32>int64" in table["inclusive_scan"]
    assert "uint8>uint64" in table["exclusive_scan"]
    assert "float32>float32" in table["sum"] and "int8>int64" in table["sum"] and "uint16>uint64" in table["sum"]
    for op in ("min", "max", "argmin", "argmax"):
        assert set(table[op]) == set(_arrays.DTYPE_NAMES) - {"bool"}, op
    assert "gemm:bfloat16>float32" not in table["gemm"]  # entries are "in>out" without the op
    assert {"float32>float32", "float64>float64", "bfloat16>float32", "float16>float16"} <= set(table["gemm"])
    assert {"uint8", "int64"} <= set(table["bincount"])


def test_codes_and_sizes_consistent():
    assert len(_arrays.DTYPE_NAMES) == len(_arrays.ITEMSIZE) == 13
    for name, size in zip(_arrays.DTYPE_NAMES, _arrays.ITEMSIZE):
        if name != "bfloat16":
            assert np.dtype(name).itemsize == size, name


@pytest.mark.parametrize("kind, exc", [("invalid_argument", ValueError), ("cuda_error", RuntimeError),
                                       ("bad_alloc", MemoryError), ("unsupported_dtype", TypeError)])
def test_exception_mapping(kind, exc):
    with pytest.raises(exc) as info:
        _ext._throw_for_test(kind)
    message = str(info.value)
    expected = {"invalid_argument": "cuprim::test: invalid argument 'x': must be tested",
                "cuda_error": "CUDA error in cuprim::test: cudaErrorInvalidValue",
                "bad_alloc": "could not allocate 123 bytes",
                "unsupported_dtype": "unsupported dtype: complex64"}[kind]
    assert expected in message, message


def test_invalid_argument_is_not_a_type_error():
    with pytest.raises(ValueError) as info:
        _ext._throw_for_test("invalid_argument")
    assert not isinstance(info.value, TypeError)


def test_host_numpy_array_refused():
    x = np.arange(10, dtype=np.int32)
    for f in (cuprim.sort, cuprim.argsort, cuprim.cumsum, cuprim.sum, cuprim.argmax):
        with pytest.raises(ValueError, match="host"):
            f(x)


def test_not_an_array():
    with pytest.raises(TypeError, match="device array"):
        cuprim.sort([3, 1, 2])
    with pytest.raises(TypeError, match="device array"):
        cuprim.sum(3.0)


class _FakeCAI:
    """An object speaking __cuda_array_interface__ over memory of our choosing (never dereferenced here)."""

    def __init__(self, ptr, shape, typestr="<i4", strides=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape, "typestr": typestr,
                                         "strides": strides, "version": 3}


def test_cuda_array_interface_non_contiguous_refused():
    x = _FakeCAI(0x10000, (4,), strides=(8,))
    with pytest.raises(ValueError, match="not C-contiguous"):
        cuprim.sort(x)


def test_cuda_array_interface_host_pointer_refused():
    host = np.arange(4, dtype=np.int32)
    x = _FakeCAI(host.ctypes.data, (4,))
    with pytest.raises(ValueError, match="host memory"):
        cuprim.sort(x)


def test_cuda_array_interface_dtype_refused():
    x = _FakeCAI(0x10000, (4,), typestr="<c8")
    with pytest.raises(TypeError, match="does not handle"):
        cuprim.sort(x)


def test_dlpack_host_array_refused():
    x = np.arange(4, dtype=np.float32)

    class OnlyDLPack:  # hides NumPy's other protocols
        def __dlpack__(self, **kw):
            return x.__dlpack__(**kw)

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    with pytest.raises(ValueError, match="host memory"):
        cuprim.sort(OnlyDLPack())


def test_stream_handles():
    class TorchLike:
        cuda_stream = 1234

    class CupyLike:
        ptr = 5678

    class Protocol:
        def __cuda_stream__(self):
            return (0, 91011)

    assert _arrays.stream_handle("f", 42) == 42
    assert _arrays.stream_handle("f", TorchLike()) == 1234
    assert _arrays.stream_handle("f", CupyLike()) == 5678
    assert _arrays.stream_handle("f", Protocol()) == 91011
    with pytest.raises(TypeError, match="stream"):
        _arrays.stream_handle("f", "default")


def test_contiguity_rule():
    assert _arrays._c_contiguous((2, 3), (3, 1))
    assert _arrays._c_contiguous((1, 3), (99, 1))
    assert not _arrays._c_contiguous((2, 3), (1, 2))
    assert not _arrays._c_contiguous((4,), (2,))


def test_torch_cpu_tensor_refused():
    try:
        torch = importlib.import_module("torch")
    except Exception as e:
        pytest.skip(f"torch is not installed ({type(e).__name__})")
    x = torch.arange(10, dtype=torch.int32)
    with pytest.raises(ValueError, match="not a CUDA device"):
        cuprim.sort(x)
    with pytest.raises(ValueError, match="not a CUDA device"):
        cuprim.cumsum(x)


def test_dtype_arguments():
    assert cuprim._dtype_arg("f", "int32") == _arrays.I32
    assert cuprim._dtype_arg("f", np.int64) == _arrays.I64
    assert cuprim._dtype_arg("f", np.dtype("float32")) == _arrays.F32
    assert cuprim._dtype_arg("f", np.uint8) == _arrays.U8
    with pytest.raises(TypeError, match="not one cuprim handles"):
        cuprim._dtype_arg("f", np.complex64)


def test_stub_signatures_match():
    """Each public function's keyword arguments appear in its stub line."""
    import inspect
    import pathlib
    stub = (pathlib.Path(cuprim.__file__).parent / "__init__.pyi").read_text()
    flat = " ".join(stub.split())
    for name in cuprim.__all__:
        start = flat.index(f"def {name}(")
        decl = flat[start:flat.index(") ->", start)]
        for p in inspect.signature(getattr(cuprim, name)).parameters:
            assert f"{p}:" in decl or f"{p}," in decl or decl.endswith(p), f"{name}: {p} missing from the stub"
