"""Shared fixtures of cuprim's Python tests: the frameworks under test (skipped, visibly, where absent or without a
GPU), and conversions between NumPy references and device arrays."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import cuprim


def _gpu_count() -> int:
    try:
        return cuprim.device_count()
    except Exception:  # pragma: no cover - a broken driver counts as none
        return 0


HAS_GPU = _gpu_count() > 0


def _framework(name: str):
    if not HAS_GPU:
        pytest.skip("no CUDA device: GPU tests skipped")
    try:
        mod = importlib.import_module(name)
    except Exception as e:  # ImportError, or a CUDA library that fails to load
        pytest.skip(f"{name} is not installed or does not load ({type(e).__name__}: {e})")
    if name == "torch" and not mod.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    return mod


class Framework:
    """One array library under test: makes device arrays from NumPy ones and reads them back."""

    def __init__(self, name: str):
        self.name = name
        self.mod = _framework(name)

    def has(self, dtype: str) -> bool:
        if self.name == "torch":
            return dtype in ("bool", "int8", "int16", "int32", "int64", "uint8", "float16", "bfloat16", "float32",
                             "float64")
        return dtype != "bfloat16"

    def asarray(self, a: np.ndarray, dtype: str | None = None):
        dtype = dtype or a.dtype.name
        if not self.has(dtype):
            pytest.skip(f"{self.name} has no usable {dtype}")
        if self.name == "torch":
            torch = self.mod
            if dtype == "bfloat16":
                return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to("cuda").to(torch.bfloat16)
            return torch.from_numpy(np.ascontiguousarray(a)).to("cuda")
        return self.mod.asarray(a)

    def numpy(self, x) -> np.ndarray:
        if self.name == "torch":
            torch = self.mod
            t = x.detach().cpu()
            if t.dtype == torch.bfloat16:
                t = t.float()
            wide_unsigned = {getattr(torch, f"uint{b}", None): (getattr(torch, f"int{b}"), f"uint{b}")
                             for b in (16, 32, 64)}
            if t.dtype in wide_unsigned:  # torch's own conversion of these is recent: view the bits instead
                signed, name = wide_unsigned[t.dtype]
                return t.view(signed).numpy().view(name)
            return t.numpy()
        return self.mod.asnumpy(x)

    def empty(self, shape, dtype: str):
        if not self.has(dtype):
            pytest.skip(f"{self.name} has no usable {dtype}")
        if self.name == "torch":
            return self.mod.empty(shape, dtype=getattr(self.mod, dtype), device="cuda")
        return self.mod.empty(shape, dtype=dtype)

    def ptr(self, x) -> int:
        return x.data_ptr() if self.name == "torch" else x.data.ptr

    def synchronize(self) -> None:
        if self.name == "torch":
            self.mod.cuda.synchronize()
        else:
            self.mod.cuda.runtime.deviceSynchronize()


@pytest.fixture(params=["torch", "cupy"])
def fw(request) -> Framework:
    return Framework(request.param)


@pytest.fixture
def torch_fw() -> Framework:
    return Framework("torch")


@pytest.fixture
def cupy_fw() -> Framework:
    return Framework("cupy")


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
ALL = INTS + FLOATS
SIZES = [0, 1, 7, 1000, 65537, 1000003]


def random_array(dtype: str, n: int, seed: int = 1, low=None, high=None) -> np.ndarray:
    """Random values of dtype (never all zeros); floats as float32 values for bfloat16 (converted later)."""
    rng = np.random.default_rng(seed + n)
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo = info.min if low is None else low
        hi = info.max if high is None else high
        return rng.integers(lo, hi, size=n, dtype=dtype, endpoint=True)
    npdt = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
    lo = -1000.0 if low is None else low
    hi = 1000.0 if high is None else high
    x = rng.uniform(lo, hi, size=n).astype(npdt)
    if dtype == "bfloat16":  # values bfloat16 holds exactly, so references match
        x = (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    return x
