"""How cuprim's Python layer sees its callers' arrays: device views, dtypes, streams and output allocation.

Every public function takes its arrays through ``view``: a PyTorch tensor, a CuPy array, or any object speaking
``__cuda_array_interface__`` or DLPack. Host memory and non-contiguous arrays are refused (cuprim never copies an
input). Outputs are allocated through the input's own library (``torch.empty``, ``cupy.empty``), so that its
allocator (PyTorch's caching allocator, CuPy's memory pool) owns them, unless the caller passes ``out=``.

Neither PyTorch nor CuPy is imported here: an array of theirs can only exist once its library is imported, so the
checks look them up in ``sys.modules``.
"""

from __future__ import annotations

import sys
from typing import Any, Tuple

from . import _ext

# The dtype codes of the compiled module (python/src/api.hpp, enum dtype), by NumPy-style name.
DTYPE_NAMES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "bfloat16", "float32", "float64", "bool")
CODE = {name: i for i, name in enumerate(DTYPE_NAMES)}
I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, B8 = range(13)
ITEMSIZE = (1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1)
INTEGERS = frozenset((I8, I16, I32, I64, U8, U16, U32, U64))
SIGNED = frozenset((I8, I16, I32, I64))
FLOATS = frozenset((F16, BF16, F32, F64))
# The unsigned integer of each width (items that only move, integers compared bit for bit).
UINT_OF_WIDTH = {1: U8, 2: U16, 4: U32, 8: U64}

TORCH, CUPY, OTHER = 0, 1, 2

_modules = sys.modules  # the interpreter's own dict (imports and test stand-ins change it in place)

_torch_codes: dict = {}
_torch_dtypes: dict = {}


def _torch_tables(torch) -> None:
    for name in DTYPE_NAMES:
        dt = getattr(torch, name, None)
        if dt is not None:
            _torch_codes[dt] = CODE[name]
            _torch_dtypes[CODE[name]] = dt


class DeviceArray:
    """A contiguous device array as the compiled module takes it (the caller's object kept alive in ``obj``)."""

    __slots__ = ("obj", "kind", "ptr", "shape", "size", "code", "device", "cai_stream")

    def __init__(self, obj, kind, ptr, shape, size, code, device, cai_stream=None):
        self.obj, self.kind, self.ptr, self.shape, self.size = obj, kind, ptr, shape, size
        self.code, self.device, self.cai_stream = code, device, cai_stream

    @property
    def dtype_name(self) -> str:
        return DTYPE_NAMES[self.code]


def _dtype_code(fn: str, arg: str, name: str) -> int:
    code = CODE.get(name)
    if code is None:
        raise TypeError(f"{fn}: {arg} has dtype {name}, which cuprim does not handle "
                        f"(integers of 8 to 64 bits, float16, bfloat16, float32, float64, bool)")
    return code


def _c_contiguous(shape, strides_elems) -> bool:
    expected = 1
    for extent, stride in zip(reversed(shape), reversed(strides_elems)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


def _prod(shape) -> int:
    size = 1
    for extent in shape:
        size *= extent
    return size


def view(fn: str, arg: str, x: Any) -> DeviceArray:
    """The device view of x, or ValueError (host memory, not contiguous) / TypeError (not an array, dtype)."""
    torch = _modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        if not _torch_codes:
            _torch_tables(torch)
        if not x.is_cuda:
            raise ValueError(f"{fn}: {arg} is on {x.device}, not a CUDA device; cuprim never copies an input: "
                             f"move it first (x.cuda())")
        if not x.is_contiguous():
            raise ValueError(f"{fn}: {arg} is not contiguous (shape {tuple(x.shape)}, strides {x.stride()}); "
                             f"cuprim never copies an input: pass x.contiguous()")
        code = _torch_codes.get(x.dtype)
        if code is None:
            raise TypeError(f"{fn}: {arg} has dtype {x.dtype}, which cuprim does not handle")
        return DeviceArray(x, TORCH, x.data_ptr(), x.shape, x.numel(), code, x.get_device())
    cupy = _modules.get("cupy")
    if cupy is not None and isinstance(x, cupy.ndarray):
        if not x.flags.c_contiguous:
            raise ValueError(f"{fn}: {arg} is not C-contiguous (shape {x.shape}, strides {x.strides}); "
                             f"cuprim never copies an input: pass cupy.ascontiguousarray(x)")
        code = _dtype_code(fn, arg, x.dtype.name)
        return DeviceArray(x, CUPY, x.data.ptr, tuple(x.shape), x.size, code, x.device.id)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        return _view_cai(fn, arg, x, cai)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _view_dlpack(fn, arg, x)
    if hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
        raise ValueError(f"{fn}: {arg} is a host array ({type(x).__name__}); cuprim works on device arrays and never "
                         f"copies: move it to the GPU first (torch.as_tensor(x, device='cuda'), cupy.asarray(x))")
    raise TypeError(f"{fn}: {arg} must be a device array (PyTorch tensor, CuPy array, or an object with "
                    f"__cuda_array_interface__ or __dlpack__), not {type(x).__name__}")


def _numpy_name(typestr: str) -> str:
    kind, size = typestr[1], int(typestr[2:])
    if typestr[0] == ">" and size > 1:
        return "big-endian"
    if kind == "b":
        return "bool"
    if kind == "i":
        return f"int{8 * size}"
    if kind == "u":
        return f"uint{8 * size}"
    if kind == "f":
        return f"float{8 * size}"
    return typestr


def _view_cai(fn, arg, x, cai) -> DeviceArray:
    ptr = int(cai["data"][0] or 0)
    shape = tuple(cai["shape"])
    code = _dtype_code(fn, arg, _numpy_name(cai["typestr"]))
    strides = cai.get("strides")
    if strides is not None:
        itemsize = ITEMSIZE[code]
        if any(s % itemsize for s in strides) or not _c_contiguous(shape, [s // itemsize for s in strides]):
            raise ValueError(f"{fn}: {arg} is not C-contiguous (strides {strides}); cuprim never copies an input")
    size = _prod(shape)
    device = _ext.pointer_device(ptr) if ptr and size else -1
    if ptr and size and device < 0:
        raise ValueError(f"{fn}: {arg}'s __cuda_array_interface__ points to host memory")
    return DeviceArray(x, OTHER, ptr, shape, size, code, device, cai.get("stream"))


_DLPACK_KINDS = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool"}


def _view_dlpack(fn, arg, x) -> DeviceArray:
    device_type, _ = x.__dlpack_device__()
    if int(device_type) in (1, 3):  # kDLCPU, kDLCUDAHost
        raise ValueError(f"{fn}: {arg} is in host memory ({type(x).__name__}); cuprim works on device arrays and "
                         f"never copies: move it to the GPU first")
    if int(device_type) not in (2, 13):  # kDLCUDA, kDLCUDAManaged
        raise ValueError(f"{fn}: {arg} lives on DLPack device type {int(device_type)}, not a CUDA device; cuprim "
                         f"never copies an input")
    ptr, shape, strides, (tcode, bits, lanes), _, device = _ext.dlpack_info(x)
    kind = _DLPACK_KINDS.get(tcode)
    name = "bool" if kind == "bool" else f"{kind}{bits}" if kind and lanes == 1 else f"DLPack type {tcode}/{bits}"
    name = {"bfloat16": "bfloat16"}.get(name, name)
    code = _dtype_code(fn, arg, name)
    if not _c_contiguous(shape, strides):
        raise ValueError(f"{fn}: {arg} is not C-contiguous (strides {strides}); cuprim never copies an input")
    return DeviceArray(x, OTHER, ptr, tuple(shape), _prod(shape), code, device)


# ---------------------------------------------------------------------------------------------------------------------
# Streams


def stream_handle(fn: str, stream: Any) -> int:
    """The raw cudaStream_t of an explicit stream= argument."""
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return handle
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return int(proto()[1])
    raise TypeError(f"{fn}: stream must be an int (a cudaStream_t), a torch.cuda.Stream, a cupy.cuda.Stream or an "
                    f"object with __cuda_stream__, not {type(stream).__name__}")


def current_stream(a: DeviceArray) -> int:
    """The stream the caller's library orders its work on now, for a's device."""
    if a.kind == TORCH:
        torch = _modules["torch"]
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw(a.device)
        return torch.cuda.current_stream(a.device).cuda_stream
    if a.kind == CUPY:
        cupy = _modules["cupy"]
        return cupy.cuda.get_current_stream().ptr
    if isinstance(a.cai_stream, int):
        return a.cai_stream
    return 0


def resolve_stream(fn: str, stream: Any, a: DeviceArray) -> Tuple[int, bool]:
    """(the handle work goes on, whether it was given explicitly)."""
    if stream is None:
        return current_stream(a), False
    return stream_handle(fn, stream), True


# ---------------------------------------------------------------------------------------------------------------------
# Outputs


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_null = _NullContext()


class Allocator:
    """Allocates a call's outputs and temporaries through the library of its first array, on the call's stream.

    With an explicit stream, allocation happens with that stream current in the library (torch.cuda.ExternalStream,
    cupy.cuda.ExternalStream), so that the library's stream-aware allocator orders reuse of the memory after the work.
    """

    __slots__ = ("fn", "like", "stream", "explicit", "_ctx")

    def __init__(self, fn: str, like: DeviceArray, stream: int, explicit: bool):
        self.fn, self.like, self.stream, self.explicit = fn, like, stream, explicit
        self._ctx = None

    def _context(self):
        if not self.explicit:
            return _null
        if self._ctx is None:
            if self.like.kind == TORCH:
                torch = _modules["torch"]
                self._ctx = torch.cuda.stream(torch.cuda.ExternalStream(self.stream, device=self.like.obj.device))
            elif self.like.kind == CUPY:
                cupy = _modules["cupy"]
                with cupy.cuda.Device(self.like.device):
                    self._ctx = cupy.cuda.ExternalStream(self.stream)
            else:
                return _null
        return self._ctx

    def empty(self, shape, code: int):
        like = self.like
        if like.kind == TORCH:
            torch = _modules["torch"]
            dt = _torch_dtypes.get(code)
            if dt is None:
                raise TypeError(f"{self.fn}: this PyTorch has no {DTYPE_NAMES[code]} dtype for the output")
            if self.explicit:
                with self._context():
                    return torch.empty(shape, dtype=dt, device=like.obj.device)
            return torch.empty(shape, dtype=dt, device=like.obj.device)
        if like.kind == CUPY:
            cupy = _modules["cupy"]
            if code == BF16:
                raise TypeError(f"{self.fn}: CuPy has no bfloat16 dtype for the output")
            current = cupy.cuda.runtime.getDevice()
            if current != like.device or self.explicit:
                with cupy.cuda.Device(like.device), self._context():
                    return cupy.empty(shape, dtype=DTYPE_NAMES[code])
            return cupy.empty(shape, dtype=DTYPE_NAMES[code])
        raise TypeError(f"{self.fn}: cuprim allocates outputs through PyTorch or CuPy; for a "
                        f"{type(like.obj).__name__} pass out= (and the other output arguments)")

    def ptr(self, obj) -> "Ptr":
        """The device address of an array this allocator made (no second look at the object)."""
        return Ptr(obj.data_ptr() if self.like.kind == TORCH else obj.data.ptr)


class Ptr:
    """A device address (what the compiled module takes of an output cuprim allocated itself)."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int):
        self.ptr = ptr


def check_out(fn: str, arg: str, out: Any, like: DeviceArray, size: int, code, shape=None) -> DeviceArray:
    """The view of a caller's output array: on like's device, contiguous, of dtype `code` (an int or a set of ints)
    and `size` elements (and `shape` when given)."""
    o = view(fn, arg, out)
    # Fast paths first (this runs on every call given an output): the common case compares an int and a tuple.
    if o.code != code and (type(code) is int or o.code not in code):
        want = " or ".join(DTYPE_NAMES[c] for c in ((code,) if type(code) is int else code))
        raise TypeError(f"{fn}: {arg} has dtype {o.dtype_name}; it must be {want}")
    if o.size != size or (shape is not None and o.shape != shape and tuple(o.shape) != tuple(shape)):
        want = f"shape {tuple(shape)}" if shape is not None else f"{size} elements"
        raise ValueError(f"{fn}: {arg} has shape {tuple(o.shape)}; it must have {want}")
    if size and o.device != like.device and like.device >= 0 and o.device >= 0:
        raise ValueError(f"{fn}: {arg} is on device {o.device}, the input on device {like.device}")
    return o
