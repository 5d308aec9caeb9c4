"""What every curve method shares: the Curve record, level parsing, and the cell classes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from smarteval.columns import Ranked
from smarteval.errors import UsageError
from smarteval.numerals import decimal, pieces

# classes of a (query, level) cell: averaged from real points, by extrapolation, left out
REAL, EXTRA, OUT = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Curve:
    """An averaged curve of one run: the value of its method at each level.

    What the levels and the value are depends on the method (:data:`smarteval.curves.
    METHODS`): precision at recall levels for Keen's Cranfield curves, fallout or
    adjusted precision at recall levels, recall at precision levels, relevance-points
    recall at document cut-offs, precision at Rocchio's stopping rules.
    """

    method: str
    step: str
    left: str
    average: str
    levels: np.ndarray          # (K,)
    value: np.ndarray           # (K,) the averaged value; NaN where nothing is averaged
    real: np.ndarray            # (K,) queries averaged from real points
    extrapolated: np.ndarray    # (K,) queries averaged by extrapolation
    excluded: np.ndarray        # (K,) queries left out
    examined: np.ndarray | None = None    # (K,) documents examined at each level (cut-offs)
    recall: np.ndarray | None = None      # (K,) the averaged recall at each level, where
    #                                       the level is not itself the recall
    per_query: np.ndarray | None = None   # (Q, K) each query's value, NaN where left out
    ceiling: float | None = None          # cluster: the averaged recall ceiling
    end: str = ""                         # cluster: how the curve goes past the ceiling
    generality: float | None = None       # adjusted: the target generality G

    @property
    def precision(self) -> np.ndarray:
        """The value: precision for the methods at recall levels (the name they print)."""
        return self.value


#: The most levels ``--levels`` may ask for (a count, or a list), and the largest document
#: cut-off it may give (levels are kept as doubles, exact up to 2**53).
MAX_LEVELS = 10_000
MAX_CUTOFF = 2**53


def levels_limit(text, count: int) -> str:
    """Why ``--levels`` asking for ``count`` levels is refused (the command's check before
    any work and the library's say it so)."""
    if not isinstance(text, str):
        return f"--levels: at most {MAX_LEVELS} levels, not {count}"
    shown = text if len(text) <= 20 else text[:20] + "..."
    return f"--levels {shown}: at most {MAX_LEVELS} levels" + (
        "" if shown == str(count) else f", not {count}")


def is_count(item: str) -> bool:
    """Whether a lone item of ``--levels`` is a count (digits alone: ``+5`` is a level)."""
    return item.isascii() and item.isdigit()


def parse_levels(text: str | Sequence[float] | None, kind: str = "ratio",
                 default: Sequence[float] = ()) -> tuple[float, ...]:
    """Levels from ``--levels``, sorted and distinct (the one check of every command's and
    call's levels).

    ``kind`` "ratio" (recall or precision levels): ``n`` is n equal steps 1/n .. 1, a
    list ``0.1,0.5,1`` the levels themselves, each between 0 and 1. ``kind`` "count"
    (document cut-offs, stopping rules): ``n`` is 1 .. n, a list the positive whole
    numbers given, up to :data:`MAX_CUTOFF`. At most :data:`MAX_LEVELS` levels. None
    gives ``default``.
    """
    if text is None:
        return tuple(default)
    what = ("recall levels between 0 and 1 (0.1,0.5,1)" if kind == "ratio"
            else f"positive whole numbers up to {MAX_CUTOFF} (1,2,5,10)")
    shown = text if not isinstance(text, str) or len(text) <= 40 else text[:40] + "..."
    if not isinstance(text, str):
        try:
            vals = [decimal(x) if isinstance(x, str) else float(x) for x in text]
        except (TypeError, ValueError):
            raise UsageError(f"--levels takes a count (10) or {what}, not {shown!r}") from None
    else:
        items = [x for x in pieces(text) if x]
        try:
            if len(items) == 1 and is_count(items[0]):
                n = int(items[0])
                if n <= 0:
                    raise ValueError
                if n > MAX_LEVELS:
                    raise UsageError(levels_limit(text, n))
                return tuple(i / n for i in range(1, n + 1)) if kind == "ratio" else \
                    tuple(float(i) for i in range(1, n + 1))
            vals = [decimal(x) for x in items]
        except ValueError:
            raise UsageError(f"--levels takes a count (10) or {what}, not {shown!r}") from None
    if kind == "ratio":
        bad = not vals or any(not 0 <= v <= 1 for v in vals)
    else:
        bad = not vals or any(not 1 <= v <= MAX_CUTOFF or v != int(v) for v in vals)
    if bad:
        raise UsageError(f"--levels takes {what}, not {shown!r}")
    if len(set(vals)) > MAX_LEVELS:
        raise UsageError(levels_limit(text, len(set(vals))))
    return tuple(sorted(set(vals)))


def fractions(levels) -> tuple[np.ndarray, np.ndarray]:
    """Each level as an exact fraction p/q (q <= 10^9): numerators and denominators."""
    fr = [Fraction(repr(float(x))).limit_denominator(10 ** 9) for x in levels]
    return (np.array([f.numerator for f in fr], dtype=np.int64),
            np.array([f.denominator for f in fr], dtype=np.int64))


def known_n(r: Ranked) -> bool:
    """Whether the collection size N is known (-N, or a residual collection's)."""
    return r.num_docs is not None or r.num_docs_q is not None


def counts(klass: np.ndarray) -> dict:
    """The real, extrapolated and excluded counts per level of a (Q, K) class table."""
    return {"real": (klass == REAL).sum(axis=0), "extrapolated": (klass == EXTRA).sum(axis=0),
            "excluded": (klass == OUT).sum(axis=0)}


def average_cells(vals: np.ndarray, klass: np.ndarray, average: str) -> np.ndarray:
    """(K,) macro mean or median of the (Q, K) values over the cells not left out."""
    use = klass != OUT
    masked = np.where(use, vals, np.nan)
    n_use = use.sum(axis=0)
    if average == "median":
        out = np.full(vals.shape[1], np.nan)
        for k in np.flatnonzero(n_use > 0):     # a loop over levels, not queries
            out[k] = np.median(masked[use[:, k], k])
        return out
    with np.errstate(invalid="ignore"):
        return np.where(n_use > 0, np.nansum(masked, axis=0) / np.maximum(n_use, 1), np.nan)


def pooled(num: np.ndarray, den: np.ndarray, klass: np.ndarray) -> np.ndarray:
    """(K,) micro average: Σnum / Σden over the cells not left out (0 when Σden is 0)."""
    use = klass != OUT
    n = np.where(use, num, 0.0).sum(axis=0)
    d = np.where(use, den, 0.0).sum(axis=0)
    out = np.where(d > 0, n / np.where(d > 0, d, 1.0), 0.0)
    return np.where(use.sum(axis=0) > 0, out, np.nan)
