"""smarteval.libm gives, element by element, what C's math library gives: the values of
Python's math module (which calls it) inside each domain, and C's x86-64 results outside
(the NaN with its sign bit set, signed infinities), whatever numpy's kernels would."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smarteval import libm

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


def bits(x) -> list[int]:
    return np.asarray(x, dtype=np.float64).view(np.uint64).tolist()


def c_nan(x: float) -> bool:
    return math.isnan(x) and math.copysign(1.0, x) < 0


@pytest.mark.parametrize("ours, theirs, domain", [
    (libm.log, math.log, lambda v: v > 0), (libm.log2, math.log2, lambda v: v > 0),
    (libm.log10, math.log10, lambda v: v > 0), (libm.log1p, math.log1p, lambda v: v > -1),
    (libm.exp, math.exp, lambda v: v < 709), (libm.expm1, math.expm1, lambda v: v < 709),
    (libm.cos, math.cos, lambda v: True)])
@given(xs=st.lists(finite, min_size=1, max_size=40))
def test_each_element_is_the_c_librarys(ours, theirs, domain, xs):
    xs = [x for x in xs if domain(x)] or [0.5]
    assert bits(ours(np.array(xs))) == bits([theirs(x) for x in xs])


def test_outside_the_domain_c_gives_its_nan_and_infinities():
    x = np.array([-1.0, -math.inf, 0.0, -0.0, math.inf])
    for f in (libm.log, libm.log2, libm.log10):
        out = f(x)
        assert c_nan(out[0]) and c_nan(out[1])
        assert out[2] == out[3] == -math.inf and out[4] == math.inf
    out = libm.log1p(np.array([-2.0, -1.0]))
    assert c_nan(out[0]) and out[1] == -math.inf
    assert libm.exp(np.array([1000.0, -math.inf, -1000.0])).tolist() == [math.inf, 0.0, 0.0]
    assert libm.expm1(np.array([1000.0, -math.inf])).tolist() == [math.inf, -1.0]
    assert c_nan(libm.cos(np.array([math.inf]))[0])


def test_a_nan_argument_comes_back_with_its_sign():
    for f in (libm.log, libm.log1p, libm.exp, libm.cos):
        out = f(np.array([math.nan, -math.nan]))
        assert math.copysign(1, out[0]) > 0 and c_nan(out[1])


@pytest.mark.parametrize("base, e, want", [
    (-8.0, 1 / 3, libm.C_NAN), (0.0, -1.0, math.inf), (-0.0, -1.0, -math.inf),
    (-0.0, -2.0, math.inf), (10.0, 400.0, math.inf), (-10.0, 401.0, -math.inf),
    (2.0, 0.5, math.sqrt(2.0)), (1.0, math.nan, 1.0), (math.nan, 0.0, 1.0)])
def test_power_is_cs_pow(base, e, want):
    got = float(libm.power(base, e))
    assert bits(got) == bits(want) if not math.isnan(want) else c_nan(got)


@given(st.lists(st.tuples(st.floats(0.01, 100), st.floats(-50, 50)), min_size=1))
def test_power_equals_math_pow(pairs):
    b, e = np.array(pairs).T
    assert bits(libm.power(b, e)) == bits([math.pow(x, y) for x, y in pairs])


def test_divide_makes_cs_nan_for_0_over_0_and_keeps_a_nan_operand():
    out = libm.divide(np.array([0.0, math.inf, 1.0, -1.0, -math.nan, 1.0]),
                      np.array([0.0, -math.inf, 0.0, 0.0, 1.0, math.nan]))
    assert c_nan(out[0]) and c_nan(out[1]) and c_nan(out[4])
    assert out[2] == math.inf and out[3] == -math.inf
    assert math.isnan(out[5]) and math.copysign(1, out[5]) > 0


@given(st.lists(st.integers(0, 5000), min_size=1, max_size=200), st.floats(0.01, 2.0))
def test_tables_of_whole_numbers_equal_each_call(k, base):
    """Above 64 whole numbers the logarithms read a table: the same bits as each call."""
    arr = np.array(k)
    assert bits(libm.log(arr)) == bits([math.log(i) if i else -math.inf for i in k])
    assert bits(libm.log2(arr)) == bits([math.log2(i) if i else -math.inf for i in k])
    assert bits(libm.power_at(base, arr)) == bits([libm._pow(base, i) for i in k])
    assert bits(libm.power_at(0.5, arr[arr < 1000])) == bits([0.5 ** i for i in k if i < 1000])



def test_many_whole_numbers_read_the_table():
    k = np.arange(0, 3000, 7)                       # 429 numbers: the table's path
    assert bits(libm.log(k)) == bits([math.log(i) if i else -math.inf for i in k.tolist()])
    assert bits(libm.log2(k + 0.5)) == bits([math.log2(i + 0.5) for i in k.tolist()])


def test_a_table_is_sized_by_the_numbers_present_not_their_values():
    k = np.array([0, 10**15, -(10**15)])            # a table from least to largest: 2e15 rows
    assert libm.power_at(2.0, k).tolist() == [1.0, math.inf, 0.0]
    assert libm.log(np.array([-1]))[0] != libm.log(np.array([-1]))[0]   # NaN


@given(st.integers(1, 2**53))
def test_ceil_log2_is_exact(n):
    assert int(libm.ceil_log2(np.array([n]))[0]) == (n - 1).bit_length()


def test_matmul_is_the_product():
    rng = np.random.default_rng(0)
    a, b = rng.random((7, 5)), rng.random((5, 3))
    assert np.allclose(libm.matmul(a, b), a @ b, rtol=1e-14, atol=0)
    assert np.allclose(libm.matmul(a, b[:, 0]), a @ b[:, 0], rtol=1e-14, atol=0)
    assert np.allclose(libm.matmul(a[0], b), a[0] @ b, rtol=1e-14, atol=0)
