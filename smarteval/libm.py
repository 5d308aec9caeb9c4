"""C's mathematical functions over arrays: each element the value the C library gives, on every CPU.

numpy's ``log``, ``log2``, ``log10``, ``log1p``, ``exp``, ``expm1``, ``power`` (and the
trigonometric functions) run a SIMD kernel chosen for the CPU when numpy is imported
(AVX-512, AVX2 or the baseline): the last bit of a value, and the sign of the NaN made of
a negative argument, follow the kernel. On one AMD EPYC, between numpy 2.4's AVX-512
dispatch and its baseline one, 205 of 400,000 logs, 16,676 of 400,000 exps and 4,974 of
100,000 powers differ in their last bit, and the log of -1 is ``-nan`` under one and
``nan`` under the other. The C library's function, called once for each element, gives
one value whatever the CPU: the value trec_eval, ndeval and NTCIREVAL compute, since
they call it. Arithmetic (``+ - * /``, ``sqrt``, ``square``) and numpy's sums are IEEE's
correctly rounded results, the same under every dispatch, and stay numpy's.

Arguments outside a function's domain get the value C gives on x86-64, chosen here and
not left to a kernel: :data:`C_NAN` (the NaN with its sign bit set, which glibc prints
``-nan``) for the log of a number below 0, the power of a negative number to a fraction,
0/0 and inf/inf; infinities where C overflows or divides by 0; a NaN argument is given
back as it came (its sign kept), as C propagates it. :func:`divide` is ``/`` with those
rules made explicit, so that a 0/0 is ``-nan`` on an ARM CPU too (whose own 0/0 is the
NaN without a sign).

Whole numbers (ranks, counts) take a table: the logarithms look up every argument that
way when all are whole, and :func:`power_at` takes whole exponents; one C call for each
number up to the largest, then a lookup, so that a run of a hundred million rows costs a
table as long as its longest query.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:                       # numpy.typing costs a small run's start
    from numpy.typing import ArrayLike

#: The NaN x86-64 makes of 0.0 / 0.0, of the log of a negative number, of sqrt(-1): the
#: sign bit set (glibc prints it ``-nan``). trec_eval's C never negates a NaN, so every
#: NaN it makes itself is this one.
C_NAN = -math.nan

#: The largest argument whose exp is finite (C's exp overflows above it).
_EXP_MAX = 709.782712893384


def _each(func: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """``func`` of each element of the float64 array ``x`` (its shape kept)."""
    flat = x.ravel()
    return np.fromiter(map(func, flat.tolist()), dtype=np.float64,
                       count=len(flat)).reshape(x.shape)


def _logarithm(func: Callable[[float], float], x: ArrayLike, pole: float = 0.0) -> np.ndarray:
    """A logarithm of each element, C's values outside its domain: ``-inf`` at ``pole``,
    C_NAN below it (``-inf`` included), ``inf`` at ``inf``, a NaN as it came."""
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()                                # NaN stays itself; inf gives inf
    inside = (x > pole) & (x < math.inf)
    v = x[inside]
    whole = v.size > 64 and bool(np.all(v == np.trunc(v))) and float(v.max()) < 2.0 ** 53
    out[inside] = _table(func, v) if whole else _each(func, v)   # ranks, counts: a table
    out[x == pole] = -math.inf
    out[x < pole] = C_NAN
    return out


def log(x: ArrayLike) -> np.ndarray:
    """C's ``log`` of each element (``-inf`` at 0, C_NAN below 0)."""
    return _logarithm(math.log, x)


def log2(x: ArrayLike) -> np.ndarray:
    """C's ``log2`` of each element (``-inf`` at 0, C_NAN below 0)."""
    return _logarithm(math.log2, x)


def log10(x: ArrayLike) -> np.ndarray:
    """C's ``log10`` of each element (``-inf`` at 0, C_NAN below 0)."""
    return _logarithm(math.log10, x)


def log1p(x: ArrayLike) -> np.ndarray:
    """C's ``log1p`` of each element (``-inf`` at -1, C_NAN below -1)."""
    return _logarithm(math.log1p, x, pole=-1.0)


def _exponential(func: Callable[[float], float], x: ArrayLike, floor: float) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()                                # NaN stays itself; inf gives inf
    inside = np.abs(x) < math.inf
    over = inside & (x > _EXP_MAX)
    inside &= ~over
    out[inside] = _each(func, x[inside])
    out[over] = math.inf
    out[x == -math.inf] = floor
    return out


def exp(x: ArrayLike) -> np.ndarray:
    """C's ``exp`` of each element (``inf`` where it overflows, 0 at ``-inf``)."""
    return _exponential(math.exp, x, 0.0)


def expm1(x: ArrayLike) -> np.ndarray:
    """C's ``expm1`` of each element (``inf`` where it overflows, -1 at ``-inf``)."""
    return _exponential(math.expm1, x, -1.0)


def _pow(base: float, e: float) -> float:
    """C's ``pow``: Python's math.pow, which raises where C returns a value."""
    base, e = float(base), float(e)
    try:
        return math.pow(base, e)
    except (ValueError, OverflowError):
        # ValueError: a negative base to a fraction, or 0 to e < 0; else an overflow
        if base < 0 and not e.is_integer():
            return C_NAN
        odd = e.is_integer() and e % 2 == 1
        return math.copysign(math.inf, base) if odd else math.inf


def power(base: ArrayLike, e: ArrayLike) -> np.ndarray:
    """C's ``pow(base, e)`` of each pair of elements (broadcast)."""
    b, x = np.broadcast_arrays(np.asarray(base, dtype=np.float64),
                               np.asarray(e, dtype=np.float64))
    flat = np.fromiter(map(_pow, b.ravel().tolist(), x.ravel().tolist()), dtype=np.float64,
                       count=b.size)
    return flat.reshape(b.shape)


def divide(num: ArrayLike, den: ArrayLike) -> np.ndarray:
    """``num / den`` with C's x86-64 results made explicit: C_NAN for 0/0 and inf/inf,
    an infinity signed as IEEE signs it for x/0, a NaN operand given back (the first, as
    x86-64 propagates it)."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64),
                                   np.asarray(den, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    invalid = ((num == 0) & (den == 0)) | (np.isinf(num) & np.isinf(den))
    out[invalid] = C_NAN
    out[np.isnan(den)] = den[np.isnan(den)]
    out[np.isnan(num)] = num[np.isnan(num)]
    return out


def _table(func: Callable[[int], float], k: ArrayLike) -> np.ndarray:
    """``func`` of each whole number of ``k``: a table from its least to its largest, or,
    where they lie farther apart than ``k`` is long, of its distinct numbers."""
    whole = np.asarray(k).astype(np.int64)
    if whole.size == 0:
        return np.zeros(whole.shape)
    lo, hi = int(whole.min()), int(whole.max())
    if hi - lo <= max(whole.size, 1 << 16):
        table = np.fromiter(map(func, range(lo, hi + 1)), dtype=np.float64, count=hi - lo + 1)
        return table[whole - lo]
    distinct, at = np.unique(whole, return_inverse=True)
    table = np.fromiter(map(func, distinct.tolist()), dtype=np.float64, count=len(distinct))
    return table[at.reshape(whole.shape)]


def power_at(base: float, k: ArrayLike) -> np.ndarray:
    """C's ``pow(base, k)`` of each whole number of ``k``."""
    return _table(lambda i: _pow(base, i), k)


def ceil_log2(n: ArrayLike) -> np.ndarray:
    """⌈log2 n⌉ of each whole number n of 1 or more, exactly (by frexp, no logarithm)."""
    m, e = np.frexp(np.asarray(n, dtype=np.float64))
    return np.where(m == 0.5, e - 1, e).astype(np.int64)


def cos(x: ArrayLike) -> np.ndarray:
    """C's ``cos`` of each element."""
    x = np.asarray(x, dtype=np.float64)
    out = np.full(x.shape, C_NAN)                  # cos of an infinity, as C gives it
    finite = np.isfinite(x)
    out[finite] = _each(math.cos, x[finite])
    out[np.isnan(x)] = x[np.isnan(x)]
    return out


def matmul(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """``a @ b`` summed in an order of numpy's own, the same on every CPU (``@`` calls
    the BLAS, whose kernel, and so the order of its sums, is chosen for the CPU)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    spec = ("ij," if a.ndim == 2 else "j,") + ("jk->" if b.ndim == 2 else "j->")
    spec += ("i" if a.ndim == 2 else "") + ("k" if b.ndim == 2 else "")
    return np.einsum(spec, a, b, optimize=False)
