"""GPU tests of cuprim's Python package against NumPy references, on PyTorch and CuPy arrays (each skipped, visibly,
where absent; all skipped without a GPU): dtypes, sizes 0, 1, odd and ~1e6, out= (zero-copy), streams, errors."""

from __future__ import annotations

import time

import numpy as np
import pytest

import cuprim
from conftest import ALL, FLOATS, INTS, SIZES, Framework, random_array

SORT_SIZES = [0, 1, 7, 1000, 65537, 1000003]


def _ref(dtype):
    """The NumPy dtype a reference computes in (bfloat16: float32, whose values it holds exactly)."""
    return np.float32 if dtype == "bfloat16" else np.dtype(dtype)


# ---------------------------------------------------------------------------------------------------------------------
# Sorting


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", SORT_SIZES)
def test_sort(fw: Framework, dtype, n):
    h = random_array(dtype, n)
    x = fw.asarray(h, dtype)
    y = cuprim.sort(x)
    assert type(y) is type(x)
    np.testing.assert_array_equal(fw.numpy(y), np.sort(h.astype(_ref(dtype))))
    np.testing.assert_array_equal(fw.numpy(x), h.astype(_ref(dtype)))  # the input is untouched
    yd = cuprim.sort(x, descending=True)
    np.testing.assert_array_equal(fw.numpy(yd), np.sort(h.astype(_ref(dtype)))[::-1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sort_nan_last(fw, dtype):
    h = random_array(dtype, 1001)
    h[::7] = np.nan
    y = fw.numpy(cuprim.sort(fw.asarray(h)))
    np.testing.assert_array_equal(y, np.sort(h))  # NumPy also puts NaNs last
    yd = fw.numpy(cuprim.sort(fw.asarray(h), descending=True))
    k = int(np.isnan(h).sum())
    assert np.isnan(yd[-k:]).all()
    np.testing.assert_array_equal(yd[:-k], np.sort(h[~np.isnan(h)])[::-1])


def _check_argsort(keys, idx, descending):
    n = len(keys)
    assert np.array_equal(np.sort(idx), np.arange(n)), "not a permutation"
    k = keys[idx]
    expect = np.sort(keys)[::-1] if descending else np.sort(keys)
    np.testing.assert_array_equal(k, expect)
    assert np.all((k[1:] != k[:-1]) | (idx[1:] > idx[:-1])), "not stable"


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [0, 1, 7, 65537, 1000003])
def test_argsort(fw, dtype, n):
    h = random_array(dtype, n, low=0 if dtype in INTS else None, high=50 if dtype in INTS else None)
    if dtype in FLOATS:
        h = (np.round(h / 100) + 0.0).astype(h.dtype)  # many ties: stability is visible (+0.0: no -0.0)
    x = fw.asarray(h, dtype)
    keys = h.astype(_ref(dtype))
    for descending in (False, True):
        idx = cuprim.argsort(x, descending=descending)
        got = fw.numpy(idx)
        assert got.dtype == np.int64
        _check_argsort(keys, got, descending)


@pytest.mark.parametrize("kdt", ["int32", "int64", "uint32", "float32", "float64"])
@pytest.mark.parametrize("vdt", ["int32", "float32", "int64", "float64"])
@pytest.mark.parametrize("n", [0, 1, 1000003])
def test_sort_pairs(fw, kdt, vdt, n):
    hk = random_array(kdt, n, low=0 if kdt in INTS else None, high=1000 if kdt in INTS else None)
    hv = random_array(vdt, n, seed=7)
    k, v = cuprim.sort_pairs(fw.asarray(hk), fw.asarray(hv))
    order = np.argsort(hk, kind="stable")
    np.testing.assert_array_equal(fw.numpy(k), hk[order])
    np.testing.assert_array_equal(fw.numpy(v), hv[order])


# ---------------------------------------------------------------------------------------------------------------------
# Scans


def _cumsum_ok(got, h, out_dtype, exclusive=False, round_rel=0.0):
    ref = np.cumsum(h.astype(np.float64 if out_dtype.kind == "f" else out_dtype))
    if exclusive:
        ref = np.concatenate([[0], ref[:-1]]) if len(ref) else ref
    if out_dtype.kind in "iu":
        np.testing.assert_array_equal(got, ref.astype(out_dtype))
    else:
        eps = np.finfo(np.float16 if out_dtype == np.float16 else out_dtype).eps
        scale = np.cumsum(np.abs(h.astype(np.float64)))
        # rounding along the look-back's chain of tile prefixes and within a tile; loose, but exact at the start
        bound = (8 * np.log2(len(h) + 2) + 16 + np.sqrt(len(h) / 256)) * eps * scale + 1e-30
        if out_dtype == np.float16:  # rounded to half at every output
            round_rel = 2.0 ** -10
        bound = bound + np.abs(ref) * round_rel
        assert np.all(np.abs(got.astype(np.float64) - ref) <= bound), np.max(np.abs(got - ref) - bound)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", SIZES)
def test_cumsum_default_dtype(fw, dtype, n):
    small = dtype in FLOATS  # floats: values whose sums stay accurate enough
    h = random_array(dtype, n, low=-4 if small else None, high=4 if small else None)
    y = cuprim.cumsum(fw.asarray(h, dtype))
    got = fw.numpy(y)
    out_dtype = np.cumsum(h[:1].astype(_ref(dtype))).dtype if dtype != "bfloat16" else np.dtype(np.float32)
    if dtype in ("float16",):
        out_dtype = np.dtype(np.float16)
    assert got.dtype == out_dtype or dtype == "bfloat16", (got.dtype, out_dtype)
    _cumsum_ok(got, h, out_dtype, round_rel=2.0 ** -7 if dtype == "bfloat16" else 0.0)


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 65537, 1000003, 1 << 22])
def test_cumsum_own_dtype(fw, dtype, n):
    h = random_array(dtype, n, low=-100 if dtype[0] == "i" else 0, high=100)
    x = fw.asarray(h)
    y = cuprim.cumsum(x, dtype=dtype)
    got = fw.numpy(y)
    assert got.dtype == np.dtype(dtype)
    _cumsum_ok(got, h, np.dtype(dtype))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 7, 1000003])
def test_exclusive_scan(fw, dtype, n):
    h = random_array(dtype, n, low=-8 if dtype[0] in "if" else 0, high=8)
    got = fw.numpy(cuprim.exclusive_scan(fw.asarray(h)))
    _cumsum_ok(got, h, got.dtype, exclusive=True)
    assert got.dtype == np.cumsum(h[:1]).dtype


def test_cumsum_bool_counts(fw):
    h = random_array("uint8", 100001) % 2 == 1
    got = fw.numpy(cuprim.cumsum(fw.asarray(h)))
    np.testing.assert_array_equal(got, np.cumsum(h))


# ---------------------------------------------------------------------------------------------------------------------
# Reductions


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", SIZES)
def test_sum(fw, dtype, n):
    h = random_array(dtype, n, low=-4 if dtype in FLOATS else None, high=4 if dtype in FLOATS else None)
    s = cuprim.sum(fw.asarray(h, dtype))
    assert tuple(s.shape) == ()
    got = fw.numpy(s)
    if dtype in INTS:
        acc = np.int64 if dtype[0] == "i" else np.uint64
        assert got.dtype == acc
        assert int(got) == int(h.astype(acc).sum(dtype=acc))
    else:
        ref = h.astype(np.float64).sum()
        eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}[dtype]
        acc_eps = 2.0 ** -23 if dtype in ("float16", "bfloat16") else eps
        bound = 2 * np.log2(n + 2) * acc_eps * np.abs(h.astype(np.float64)).sum() + eps * abs(ref) + 1e-300
        assert abs(float(got) - ref) <= bound


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [1, 7, 65537, 1000003])
def test_min_max_argmin_argmax(fw, dtype, n):
    h = random_array(dtype, n, low=0 if dtype in INTS else None, high=100 if dtype in INTS else None)
    x = fw.asarray(h, dtype)
    ref = h.astype(_ref(dtype))
    assert fw.numpy(cuprim.min(x)) == ref.min()
    assert fw.numpy(cuprim.max(x)) == ref.max()
    i = cuprim.argmax(x)
    assert tuple(i.shape) == ()
    assert int(fw.numpy(i)) == int(np.argmax(ref))
    assert int(fw.numpy(cuprim.argmin(x))) == int(np.argmin(ref))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_argmax_nan_first(fw, dtype):
    h = random_array(dtype, 100003)
    h[5000] = np.nan
    h[7000] = np.nan
    assert int(fw.numpy(cuprim.argmax(fw.asarray(h)))) == 5000
    assert int(fw.numpy(cuprim.argmin(fw.asarray(h)))) == 5000


def test_reductions_of_empty(fw):
    x = fw.asarray(np.zeros(0, np.float32))
    assert float(fw.numpy(cuprim.sum(x))) == 0.0
    for f in (cuprim.min, cuprim.max, cuprim.argmin, cuprim.argmax):
        with pytest.raises(ValueError, match="empty"):
            f(x)


# ---------------------------------------------------------------------------------------------------------------------
# Stream compaction


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
def test_select(fw, dtype, n):
    h = random_array(dtype, n)
    m = random_array("uint8", n, seed=3) % 3 == 0
    out, count = cuprim.select(fw.asarray(h, dtype), fw.asarray(m))
    k = int(fw.numpy(count))
    ref = h[m].astype(_ref(dtype))
    assert k == len(ref)
    np.testing.assert_array_equal(fw.numpy(out)[:k], ref)
    np.testing.assert_array_equal(fw.numpy(cuprim.select_sync(fw.asarray(h, dtype), fw.asarray(m))), ref)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "uint64", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 7, 1000003])
def test_nonzero(fw, dtype, n):
    if dtype == "bool":
        h = random_array("uint8", n) % 2 == 1
    else:
        h = random_array(dtype, n, low=0 if dtype in INTS else -1, high=2 if dtype in INTS else 1)
        if dtype in ("float32", "float64") and n:
            h[h < 0.2] = 0  # many zeros
            h[::11] = -0.0
            h[::13] = np.nan
    idx, count = cuprim.nonzero(fw.asarray(h))
    ref = np.flatnonzero(h)
    k = int(fw.numpy(count))
    assert k == len(ref)
    np.testing.assert_array_equal(fw.numpy(idx)[:k], ref)
    np.testing.assert_array_equal(fw.numpy(cuprim.nonzero_sync(fw.asarray(h))), ref)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint16", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 7, 1000003])
def test_unique(fw, dtype, n):
    if dtype == "bool":
        h = random_array("uint8", n) % 2 == 1
    elif dtype in INTS:
        h = random_array(dtype, n, low=-50 if dtype[0] == "i" else 0, high=50)
    else:
        h = (np.round(random_array(dtype, n, low=-50, high=50)) + 0.0).astype(dtype)
    ref = np.unique(h)
    got = fw.numpy(cuprim.unique_sync(fw.asarray(h)))
    np.testing.assert_array_equal(got, ref)
    s = np.sort(h)
    got2 = fw.numpy(cuprim.unique_sync(fw.asarray(s), sorted=True))
    np.testing.assert_array_equal(got2, ref)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64", "float32"])
@pytest.mark.parametrize("n", [0, 1, 7, 1000003])
def test_run_length_encode(fw, dtype, n):
    h = np.repeat(random_array(dtype, n, low=0, high=3), 3)[:n]
    values, counts = cuprim.run_length_encode_sync(fw.asarray(h))
    if n:
        starts = np.concatenate([[0], np.flatnonzero(h[1:] != h[:-1]) + 1])
        ref_counts = np.diff(np.concatenate([starts, [n]]))
        ref_values = h[starts]
    else:
        ref_counts, ref_values = np.zeros(0, np.int64), h
    np.testing.assert_array_equal(fw.numpy(values), ref_values)
    np.testing.assert_array_equal(fw.numpy(counts), ref_counts)


# ---------------------------------------------------------------------------------------------------------------------
# Histograms


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "uint32", "int64"])
@pytest.mark.parametrize("n", [0, 1, 7, 1000003])
def test_bincount(fw, dtype, n):
    h = random_array(dtype, n, low=0, high=200 if dtype != "uint8" else 255)
    x = fw.asarray(h)
    length = 256
    got = fw.numpy(cuprim.bincount(x, length=length))
    np.testing.assert_array_equal(got, np.bincount(h.astype(np.int64), minlength=length)[:length])
    got2 = fw.numpy(cuprim.bincount(x, minlength=3))  # length from max(x): synchronises
    np.testing.assert_array_equal(got2, np.bincount(h.astype(np.int64), minlength=3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 7, 1000003])
def test_histogram_even_float(fw, dtype, n):
    h = random_array(dtype, n, low=-1.5, high=11.5)
    bins, lo, hi = 37, -1.0, 11.0
    got = fw.numpy(cuprim.histogram_even(fw.asarray(h), bins, lo, hi))
    x = h.astype(np.float64)
    inside = (x >= lo) & (x < hi)
    b = np.minimum(bins - 1, np.floor((x[inside] - lo) * (bins / (hi - lo)))).astype(np.int64)
    np.testing.assert_array_equal(got, np.bincount(b, minlength=bins))


# ---------------------------------------------------------------------------------------------------------------------
# GEMM


@pytest.mark.parametrize("dtype, out_dtype", [("float32", None), ("float64", None), ("float16", None),
                                              ("bfloat16", "float32"), ("bfloat16", None), ("float16", "float32")])
@pytest.mark.parametrize("shape", [(1, 1, 1), (33, 17, 65), (256, 128, 512), (0, 4, 4)])
@pytest.mark.parametrize("trans", [(False, False), (True, False), (False, True)])
def test_gemm(fw, dtype, out_dtype, shape, trans):
    m, n, k = shape
    ta, tb = trans
    ha = random_array(dtype, m * k, low=-1, high=1).reshape((k, m) if ta else (m, k))
    hb = random_array(dtype, k * n, seed=5, low=-1, high=1).reshape((n, k) if tb else (k, n))
    if dtype == "float16":
        ha, hb = ha.astype(np.float16), hb.astype(np.float16)
    a, b = fw.asarray(ha, dtype), fw.asarray(hb, dtype)
    kw = {} if out_dtype is None else {"out_dtype": getattr(fw.mod, out_dtype) if fw.name == "torch" else out_dtype}
    c = cuprim.gemm(a, b, trans_a=ta, trans_b=tb, **kw)
    A = ha.astype(np.float64).T if ta else ha.astype(np.float64)
    B = hb.astype(np.float64).T if tb else hb.astype(np.float64)
    ref = A @ B
    got = fw.numpy(c).astype(np.float64)
    assert got.shape == (m, n)
    u = 2.0 ** -53 if dtype == "float64" else 2.0 ** -24
    bound = 4 * (k + 1) * u * (np.abs(A) @ np.abs(B)) + 1e-300
    result_type = out_dtype or dtype
    if result_type in ("float16", "bfloat16"):
        bound = bound + np.abs(ref) * (2.0 ** -11 if result_type == "float16" else 2.0 ** -8)
    assert np.all(np.abs(got - ref) <= bound)


@pytest.mark.parametrize("math, err", [("tf32", 2.0 ** -9), ("tf32x3", 2.0 ** -19)])
@pytest.mark.parametrize("shape", [(1, 1, 1), (33, 17, 65), (300, 200, 513)])
@pytest.mark.parametrize("trans", [(False, False), (True, False), (False, True)])
def test_gemm_math(fw, math, err, shape, trans):
    m, n, k = shape
    ta, tb = trans
    ha = random_array("float32", m * k, low=-1, high=1).reshape((k, m) if ta else (m, k))
    hb = random_array("float32", k * n, seed=5, low=-1, high=1).reshape((n, k) if tb else (k, n))
    c = cuprim.gemm(fw.asarray(ha), fw.asarray(hb), trans_a=ta, trans_b=tb, math=math)
    A = ha.astype(np.float64).T if ta else ha.astype(np.float64)
    B = hb.astype(np.float64).T if tb else hb.astype(np.float64)
    ref = A @ B
    bound = (err + 4 * k * 2.0 ** -24) * (np.abs(A) @ np.abs(B)) + 2.0 ** -24 * np.abs(ref) + 1e-300
    assert np.all(np.abs(fw.numpy(c).astype(np.float64) - ref) <= bound)


def test_gemm_alpha_beta_out(fw):
    ha, hb = random_array("float32", 64 * 32).reshape(64, 32), random_array("float32", 32 * 48, seed=2).reshape(32, 48)
    hc = random_array("float32", 64 * 48, seed=3).reshape(64, 48)
    c = fw.asarray(hc)
    r = cuprim.gemm(fw.asarray(ha), fw.asarray(hb), out=c, alpha=0.5, beta=2.0)
    assert r is c
    ref = 0.5 * (ha.astype(np.float64) @ hb) + 2.0 * hc
    np.testing.assert_allclose(fw.numpy(c), ref, rtol=1e-4, atol=1e-2)


def _random_offsets(n, segments, seed):
    """num_segments + 1 sorted offsets in [0, n] with empty, tiny and long segments."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, n + 1, size=segments - 1)) if segments > 1 else np.array([], dtype=np.int64)
    return np.concatenate(([0], cuts, [n])).astype(np.int64)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "float32", "float64"])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("n, segments", [(0, 1), (1, 1), (1000, 37), (1000003, 5000)])
@pytest.mark.parametrize("offset_dtype", ["int32", "int64"])
def test_segmented_reduce(fw, dtype, op, n, segments, offset_dtype):
    h = random_array(dtype, n, low=-100 if dtype in ("int32", "int64", "float32", "float64") else 0, high=100)
    off = _random_offsets(n, segments, 3)
    r = cuprim.segmented_reduce(fw.asarray(h), fw.asarray(off.astype(offset_dtype)), op=op)
    got = fw.numpy(r)
    for sgm in range(segments):
        part = h[off[sgm]:off[sgm + 1]]
        if op == "sum" and not dtype.startswith("float"):
            assert int(got[sgm]) == int(part.astype(np.int64).sum()), sgm  # int64 / uint64 sums: exact
        elif op == "sum":
            u = 2.0 ** -24 if dtype == "float32" else 2.0 ** -53
            bound = (part.size + 1) * u * float(np.abs(part.astype(np.float64)).sum()) + 1e-300
            assert abs(float(got[sgm]) - float(part.astype(np.float64).sum())) <= bound, sgm
        elif part.size == 0:
            info = np.finfo(dtype) if dtype.startswith("float") else np.iinfo(dtype)
            want = (np.inf if op == "min" else -np.inf) if dtype.startswith("float") else (info.max if op == "min" else info.min)
            assert got[sgm] == want, sgm
        else:
            assert got[sgm] == (part.min() if op == "min" else part.max()), sgm


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("n, segments", [(1, 1), (1000, 37), (300000, 7), (1000003, 20000)])
@pytest.mark.parametrize("descending", [False, True])
def test_segmented_sort(fw, dtype, n, segments, descending):
    h = random_array(dtype, n)
    off = _random_offsets(n, segments, 5)
    y = cuprim.segmented_sort(fw.asarray(h), fw.asarray(off), descending=descending)
    got = fw.numpy(y)
    ref = h.copy()
    for sgm in range(segments):
        part = np.sort(h[off[sgm]:off[sgm + 1]], kind="stable")
        ref[off[sgm]:off[sgm + 1]] = part[::-1] if descending else part
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 7, 1000003])
def test_histogram_range(fw, dtype, n):
    h = random_array(dtype, n, low=-10, high=10)
    edges = [-8.0, -3.5, 0.0, 0.25, 1.0, 9.0]
    got = fw.numpy(cuprim.histogram_range(fw.asarray(h), edges))
    ref = [int(np.count_nonzero((h >= lo) & (h < hi))) for lo, hi in zip(edges[:-1], edges[1:])]
    assert got.tolist() == ref


def _tri(n, lower, seed, dtype):
    """A well-conditioned triangular n × n matrix (dominant diagonal) with NaN in the triangle cuprim must not read."""
    a = random_array(dtype, n * n, seed=seed, low=-1, high=1).reshape(n, n).astype(np.float64)
    a += np.diag(np.full(n, 2.0 + n ** 0.5) * np.sign(np.diag(a) + 0.5))
    t = np.tril(a) if lower else np.triu(a)
    stored = t.copy()
    stored[(np.triu_indices(n, 1) if lower else np.tril_indices(n, -1))] = np.nan
    return t, stored.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [0, 1, 7, 1000003])
def test_dot(fw, dtype, n):
    hx, hy = random_array(dtype, n, low=-1, high=1), random_array(dtype, n, seed=9, low=-1, high=1)
    if dtype == "float16":
        hx, hy = hx.astype(np.float16), hy.astype(np.float16)
    x, y = fw.asarray(hx, dtype), fw.asarray(hy, dtype)
    d = cuprim.dot(x, y)
    assert d.shape == ()
    X, Y = hx.astype(np.float64), hy.astype(np.float64)
    u = 2.0 ** -53 if dtype == "float64" else 2.0 ** -24
    bound = 2 * (n + 1) * u * float(np.abs(X) @ np.abs(Y)) + 1e-300
    assert abs(float(fw.numpy(d)) - float(X @ Y)) <= bound
    assert float(fw.numpy(cuprim.dot(x, y))) == float(fw.numpy(d))  # the same bits, run to run


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1), (33, 17), (1000, 3), (3, 1000), (4096, 300), (0, 5)])
@pytest.mark.parametrize("trans", [False, True])
def test_gemv(fw, dtype, shape, trans):
    m, n = shape
    ha = random_array(dtype, m * n, low=-1, high=1).reshape(m, n)
    hx = random_array(dtype, m if trans else n, seed=4, low=-1, high=1)
    hy = random_array(dtype, n if trans else m, seed=6, low=-1, high=1)
    y = fw.asarray(hy)
    r = cuprim.gemv(fw.asarray(ha), fw.asarray(hx), out=y, alpha=1.5, beta=-0.5, trans=trans)
    assert r is y
    A = ha.astype(np.float64).T if trans else ha.astype(np.float64)
    ref = 1.5 * (A @ hx) - 0.5 * hy
    u = 2.0 ** -53 if dtype == "float64" else 2.0 ** -24
    bound = 4 * (A.shape[1] + 2) * u * (1.5 * (np.abs(A) @ np.abs(hx)) + 0.5 * np.abs(hy)) + 1e-300
    assert np.all(np.abs(fw.numpy(y).astype(np.float64) - ref) <= bound)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("left, lower, trans, unit", [(True, True, False, False), (True, False, True, False),
                                                      (False, True, True, True), (False, False, False, False)])
@pytest.mark.parametrize("shape", [(1, 1), (37, 21), (300, 129)])
def test_trsm(fw, dtype, left, lower, trans, unit, shape):
    m, n = shape
    k = m if left else n
    t, stored = _tri(k, lower, 3, dtype)
    if unit:
        np.fill_diagonal(t, 1.0)
        np.fill_diagonal(stored, np.nan)
    hb = random_array(dtype, m * n, seed=8, low=-1, high=1).reshape(m, n)
    b = fw.asarray(hb)
    x = cuprim.trsm(fw.asarray(stored), b, left=left, lower=lower, trans=trans, unit_diagonal=unit, alpha=2.0)
    assert np.array_equal(fw.numpy(b), hb)  # b untouched without out=
    op = t.T if trans else t
    got = fw.numpy(x).astype(np.float64)
    resid = op @ got - 2.0 * hb if left else got @ op - 2.0 * hb
    scale = (np.abs(op) @ np.abs(got) if left else np.abs(got) @ np.abs(op)) + 2.0 * np.abs(hb)
    u = 2.0 ** -53 if dtype == "float64" else 2.0 ** -24
    assert np.all(np.abs(resid) <= 8 * (k + 2) * u * scale)
    assert cuprim.trsm(fw.asarray(stored), b, left=left, lower=lower, trans=trans, unit_diagonal=unit, alpha=2.0,
                       out=b) is b
    np.testing.assert_array_equal(fw.numpy(b), fw.numpy(x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("left, lower", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("shape", [(1, 1), (37, 21), (300, 129)])
def test_symm(fw, dtype, left, lower, shape):
    m, n = shape
    k = m if left else n
    h = random_array(dtype, k * k, seed=2, low=-1, high=1).reshape(k, k).astype(np.float64)
    s = np.tril(h) + np.tril(h, -1).T if lower else np.triu(h) + np.triu(h, 1).T
    stored = s.copy()
    stored[(np.triu_indices(k, 1) if lower else np.tril_indices(k, -1))] = np.nan
    hb = random_array(dtype, m * n, seed=8, low=-1, high=1).reshape(m, n)
    hc = random_array(dtype, m * n, seed=10, low=-1, high=1).reshape(m, n)
    c = fw.asarray(hc)
    cuprim.symm(fw.asarray(stored.astype(dtype)), fw.asarray(hb), left=left, lower=lower, alpha=0.5, beta=2.0, out=c)
    prod = s @ hb if left else hb @ s
    ref = 0.5 * prod + 2.0 * hc
    u = 2.0 ** -53 if dtype == "float64" else 2.0 ** -24
    scale = 0.5 * (np.abs(s) @ np.abs(hb) if left else np.abs(hb) @ np.abs(s)) + 2.0 * np.abs(hc)
    assert np.all(np.abs(fw.numpy(c).astype(np.float64) - ref) <= 4 * (k + 2) * u * scale)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (1000, 16, 16, 16), (300, 7, 33, 5), (20, 100, 80, 70)])
@pytest.mark.parametrize("trans", [(False, False), (True, True)])
def test_gemm_batched(fw, dtype, shape, trans):
    batch, m, n, k = shape
    ta, tb = trans
    ha = random_array(dtype, batch * m * k, low=-1, high=1).reshape((batch, k, m) if ta else (batch, m, k))
    hb = random_array(dtype, batch * k * n, seed=5, low=-1, high=1).reshape((batch, n, k) if tb else (batch, k, n))
    c = cuprim.gemm_batched(fw.asarray(ha), fw.asarray(hb), trans_a=ta, trans_b=tb)
    A = np.swapaxes(ha, 1, 2).astype(np.float64) if ta else ha.astype(np.float64)
    B = np.swapaxes(hb, 1, 2).astype(np.float64) if tb else hb.astype(np.float64)
    ref = A @ B
    u = 2.0 ** -53 if dtype == "float64" else 2.0 ** -24
    assert np.all(np.abs(fw.numpy(c).astype(np.float64) - ref) <= 4 * (k + 1) * u * (np.abs(A) @ np.abs(B)) + 1e-300)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("left, lower, trans", [(True, True, False), (False, False, True)])
@pytest.mark.parametrize("shape", [(1, 1, 1), (2000, 16, 3), (300, 64, 64), (10, 100, 9)])
def test_trsm_batched(fw, dtype, left, lower, trans, shape):
    batch, m, n = shape
    k = m if left else n
    ts, stored = zip(*[_tri(k, lower, 30 + z % 7, dtype) for z in range(batch)])
    T = np.stack(ts)
    hb = random_array(dtype, batch * m * n, seed=8, low=-1, high=1).reshape(batch, m, n)
    x = cuprim.trsm_batched(fw.asarray(np.stack(stored)), fw.asarray(hb), left=left, lower=lower, trans=trans)
    op = np.swapaxes(T, 1, 2) if trans else T
    got = fw.numpy(x).astype(np.float64)
    resid = op @ got - hb if left else got @ op - hb
    scale = (np.abs(op) @ np.abs(got) if left else np.abs(got) @ np.abs(op)) + np.abs(hb)
    u = 2.0 ** -53 if dtype == "float64" else 2.0 ** -24
    assert np.all(np.abs(resid) <= 8 * (k + 2) * u * scale)


# ---------------------------------------------------------------------------------------------------------------------
# Zero copy, allocation, streams


def test_out_is_written_in_place(fw):
    h = random_array("int32", 100003)
    x = fw.asarray(h)
    x_ptr = fw.ptr(x)
    out = fw.empty((len(h),), "int32")
    ptr = fw.ptr(out)
    r = cuprim.sort(x, out=out)
    assert r is out and fw.ptr(r) == ptr
    assert fw.ptr(x) == x_ptr
    np.testing.assert_array_equal(fw.numpy(out), np.sort(h))
    idx = fw.empty((len(h),), "int64")
    assert cuprim.argsort(x, out=idx) is idx
    c = fw.empty((len(h),), "int32")
    assert fw.ptr(cuprim.cumsum(x, dtype="int32", out=c)) == fw.ptr(c)
    np.testing.assert_array_equal(fw.numpy(c), np.cumsum(h, dtype=np.int32))
    s = fw.empty((), "int64")
    assert cuprim.sum(x, out=s) is s
    assert int(fw.numpy(s)) == int(h.astype(np.int64).sum())
    sel = fw.empty((len(h),), "int32")
    o, cnt = cuprim.select(x, fw.asarray(h > 0), out=sel)
    assert o is sel
    hist = fw.empty((16,), "int64")
    assert cuprim.histogram_even(x, 16, -2**31, 2**31, out=hist) is hist


def test_out_dtype_and_shape_checked(fw):
    x = fw.asarray(random_array("int32", 100))
    with pytest.raises(TypeError, match="dtype"):
        cuprim.sort(x, out=fw.empty((100,), "float32"))
    with pytest.raises(ValueError, match="shape"):
        cuprim.sort(x, out=fw.empty((99,), "int32"))
    with pytest.raises(ValueError, match="invalid argument"):  # cuprim's own rule (out overlaps x), its message
        cuprim.sort(x, out=x)


def test_bad_inputs(fw):
    x = fw.asarray(random_array("float32", 100))
    with pytest.raises(ValueError, match="contiguous"):
        cuprim.sort(x[::2])
    with pytest.raises(ValueError, match="1-D"):
        cuprim.sort(x.reshape(10, 10))
    with pytest.raises(TypeError):
        cuprim.sort_pairs(fw.asarray(random_array("int8", 10)), fw.asarray(random_array("int32", 10)))
    with pytest.raises(TypeError):
        cuprim.cumsum(fw.asarray(random_array("int32", 10)), dtype="float64")
    with pytest.raises(TypeError):
        cuprim.gemm(fw.asarray(random_array("int32", 4).reshape(2, 2)),
                    fw.asarray(random_array("int32", 4).reshape(2, 2)))
    with pytest.raises(ValueError):
        cuprim.gemm(fw.asarray(random_array("float32", 6).reshape(2, 3)),
                    fw.asarray(random_array("float32", 6).reshape(2, 3)))


def test_torch_allocates_through_caching_allocator(torch_fw):
    torch = torch_fw.mod
    x = torch.randint(0, 1000, (1 << 20,), device="cuda", dtype=torch.int32)
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    y = cuprim.sort(x)
    assert torch.cuda.memory_allocated() - before >= y.numel() * 4


def test_cupy_allocates_through_pool(cupy_fw):
    cupy = cupy_fw.mod
    pool = cupy.get_default_memory_pool()
    x = cupy.arange(1 << 20, dtype=cupy.int32)
    before = pool.used_bytes()
    y = cuprim.sort(x)
    assert pool.used_bytes() - before >= y.nbytes


def _sleep_on(torch, stream, ms: float):
    """Queues a spin of about `ms` on `stream` (torch.cuda._sleep counts clock cycles)."""
    with torch.cuda.stream(stream):
        torch.cuda._sleep(int(ms * 1e-3 * 2e9))


def test_torch_current_stream_orders_work(torch_fw):
    """Work goes on torch's current stream: a call queued behind a long spin there reads what the spin's stream
    wrote, returns before it ends (no hidden synchronisation), and its result is right once the stream is done."""
    torch = torch_fw.mod
    h = random_array("int32", 1 << 20)
    src = torch.from_numpy(h).cuda()
    x = torch.full_like(src, -7)  # poison: a call on another stream would sort these
    s = torch.cuda.Stream()
    torch.cuda.synchronize()
    _sleep_on(torch, s, 200)
    with torch.cuda.stream(s):
        x.copy_(src)
        t0 = time.perf_counter()
        y = cuprim.sort(x)
        c = cuprim.cumsum(x, dtype=torch.int32)
        i = cuprim.argmax(x)
        elapsed = time.perf_counter() - t0
    assert not s.query(), "the stream finished early: the spin was too short to tell"
    assert elapsed < 0.1, f"the calls took {elapsed:.3f} s: something waited for the GPU"
    s.synchronize()
    np.testing.assert_array_equal(y.cpu().numpy(), np.sort(h))
    np.testing.assert_array_equal(c.cpu().numpy(), np.cumsum(h, dtype=np.int32))
    assert int(i.item()) == int(np.argmax(h))


def test_explicit_stream(fw):
    """stream= runs the work there (CuPy and torch streams, and raw handles)."""
    h = random_array("float32", 1000003)
    x = fw.asarray(h)
    if fw.name == "torch":
        s = fw.mod.cuda.Stream()
        handle = s.cuda_stream
    else:
        s = fw.mod.cuda.Stream(non_blocking=True)
        handle = s.ptr
    fw.synchronize()
    for st in (s, handle):
        y = cuprim.sort(x, stream=st)
        c = cuprim.cumsum(x, stream=st)
        total = cuprim.sum(x, stream=st)
        s.synchronize()
        np.testing.assert_array_equal(fw.numpy(y), np.sort(h))
        _cumsum_ok(fw.numpy(c), h, np.dtype(np.float32))
        assert abs(float(fw.numpy(total)) - h.astype(np.float64).sum()) < 1e-3 * np.abs(h).sum()


def test_explicit_stream_is_ordered(torch_fw):
    torch = torch_fw.mod
    h = random_array("int64", 1 << 20)
    src = torch.from_numpy(h).cuda()
    x = torch.full_like(src, 3)
    s = torch.cuda.Stream()
    torch.cuda.synchronize()
    _sleep_on(torch, s, 200)
    with torch.cuda.stream(s):
        x.copy_(src)
    y = cuprim.sort(x, stream=s)  # torch's current stream is the default one here; the work must go on s
    assert not s.query()
    s.synchronize()
    np.testing.assert_array_equal(y.cpu().numpy(), np.sort(h))


def test_cupy_current_stream(cupy_fw):
    cupy = cupy_fw.mod
    h = random_array("uint32", 1000003)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.asarray(h)
        y = cuprim.sort(x)
        i = cuprim.argmax(x)
    s.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(y), np.sort(h))
    assert int(i.get()) == int(np.argmax(h))


def test_cuda_array_interface_and_dlpack_inputs(fw):
    """Objects that speak only __cuda_array_interface__ or only DLPack are read zero-copy (out= given)."""
    h = random_array("float32", 10001)
    x = fw.asarray(h)
    out = fw.empty((len(h),), "float32")

    class CAIOnly:
        def __init__(self, a, cai):
            self.a = a
            self.__cuda_array_interface__ = cai

    if fw.name == "torch":
        cai = x.__cuda_array_interface__
        cai_out = out.__cuda_array_interface__
    else:
        cai, cai_out = x.__cuda_array_interface__, out.__cuda_array_interface__
    fw.synchronize()
    cuprim.sort(CAIOnly(x, cai), out=CAIOnly(out, cai_out), stream=0)
    fw.synchronize()
    np.testing.assert_array_equal(fw.numpy(out), np.sort(h))

    class DLPackOnly:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    out2 = fw.empty((len(h),), "float32")
    cuprim.sort(DLPackOnly(x), out=out2, stream=0)
    fw.synchronize()
    np.testing.assert_array_equal(fw.numpy(out2), np.sort(h))
    with pytest.raises(TypeError, match="out="):
        cuprim.sort(DLPackOnly(x), stream=0)


def test_torch_and_cupy_interop():
    torch = Framework("torch").mod
    cupy = Framework("cupy").mod
    h = random_array("int32", 1000)
    keys = torch.from_numpy(h).cuda()
    values = cupy.arange(1000, dtype=cupy.int32)
    torch.cuda.synchronize()
    k, v = cuprim.sort_pairs(keys, values)
    torch.cuda.synchronize()
    assert isinstance(k, torch.Tensor) and isinstance(v, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(v), np.argsort(h, kind="stable"))
