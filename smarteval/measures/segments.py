"""Segment operations: the vocabulary every measure is written in (all queries at once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from smarteval import libm
from smarteval.columns import distinct, prefix, segment_sum  # noqa: F401  (defined once, with the columns)

if TYPE_CHECKING:       # numpy.typing is for type checkers: its import costs every start
    from numpy.typing import ArrayLike


def in_top(values: np.ndarray, offsets: np.ndarray, k) -> np.ndarray:
    """Sum of the first k rows of each query (all rows if it has fewer); k may vary by query.

    By example: values=[1,0,1,1,0], offsets=[0,2,2,5], k=2  ->  [1, 0, 2]
    """
    p = prefix(values)
    start = offsets[:-1]
    k = np.maximum(np.asarray(k, dtype=np.int64), 0)
    return p[start + np.minimum(k, np.diff(offsets))] - p[start]


def _width_buckets(lengths: np.ndarray):
    """Group non-empty segments by the power of two at or above their length."""
    nonempty = np.flatnonzero(lengths > 0)
    if len(nonempty) == 0:
        return []
    widths = np.left_shift(1, libm.ceil_log2(lengths[nonempty]))
    out = []
    for w in distinct(widths):
        out.append((int(w), nonempty[widths == w]))
    return out


def _seg_scan(values: np.ndarray, offsets: np.ndarray, scan, identity: float,
              exclusive: bool) -> np.ndarray:
    """``scan`` (np.cumsum, np.cumprod) within each segment, left to right as a C loop
    would: segments of similar length are stacked into one 2-D block per power of two,
    padded with ``identity``; ``exclusive`` gives each row the scan of the rows above it."""
    values = np.asarray(values, dtype=np.float64)
    out = np.full(len(values), identity, dtype=np.float64)
    lengths = np.diff(offsets)
    lead = 1 if exclusive else 0
    for w, qs in _width_buckets(lengths):
        cols = np.arange(w)
        idx = offsets[qs][:, None] + cols
        valid = cols < lengths[qs][:, None]
        block = np.full((len(qs), w + lead), identity)
        block[:, lead:] = np.where(valid, values[np.minimum(idx, len(values) - 1)], identity)
        scan(block, axis=1, out=block)
        out[idx[valid]] = block[:, :w][valid]
    return out


def seg_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sum within each segment, added left to right exactly as a C loop would.

    A global cumsum followed by differences would round differently from trec_eval's
    per-query ``sum +=``; here every segment is summed from 0 in order (segments of
    similar length are stacked into one 2-D block per power of two, so the work stays
    vectorised and the padding at most doubles it).

    By example: values=[.5,.25,1,2], offsets=[0,2,4]  ->  [.5,.75,1,3]
    """
    return _seg_scan(values, offsets, np.cumsum, 0.0, exclusive=False)


def seg_exclusive_cumprod(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Product of the rows above each row within its segment (1 for the first), multiplied
    left to right as a C loop would.

    By example: values=[.5,.5,2,3], offsets=[0,2,4]  ->  [1,.5,1,2]
    """
    return _seg_scan(values, offsets, np.cumprod, 1.0, exclusive=True)


def seg_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sequential (C-order) sum of each segment; empty segments give 0.

    Adding 0.0 never changes a float sum, so only the non-zero rows (for most measures
    the few relevant documents) are summed.
    """
    values = np.asarray(values, dtype=np.float64)
    nz = np.flatnonzero(values)
    if len(nz) < len(values):
        counts = np.diff(prefix(values != 0)[offsets])
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        values = values[nz]
    cs = seg_cumsum(values, offsets)
    lengths = np.diff(offsets)
    out = np.zeros(len(lengths), dtype=np.float64)
    has = lengths > 0
    out[has] = cs[offsets[1:][has] - 1]
    return out


def seg_suffix_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Maximum of each row and every row after it in its segment (exact, by doubling).

    By example: values=[1,3,2,5,4], offsets=[0,3,5]  ->  [3,3,2,5,4]
    """
    out = np.array(values, dtype=np.float64, copy=True)
    n = len(out)
    if n == 0:
        return out
    lengths = np.diff(offsets)
    seg_end = np.repeat(offsets[1:], lengths)        # one past the last row of the segment
    idx = np.arange(n)
    step = 1
    longest = int(lengths.max())
    while step < longest:
        ok = idx + step < seg_end
        j = idx[ok]
        out[j] = np.maximum(out[j], out[j + step])
        step *= 2
    return out


def first_true_rank(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """1-based rank of the first True row of each segment, 0 when there is none."""
    n_q = len(offsets) - 1
    out = np.zeros(n_q, dtype=np.int64)
    hits = np.flatnonzero(mask)
    if len(hits) == 0:
        return out
    q = np.searchsorted(offsets, hits, side="right") - 1
    firsts = np.unique(q, return_index=True)
    out[firsts[0]] = hits[firsts[1]] - offsets[firsts[0]] + 1
    return out


def safe_div(num: ArrayLike, den: ArrayLike) -> np.ndarray:
    """num / den, with 0 where den is 0 (trec_eval leaves such values at 0)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def over_num_rel(total: ArrayLike, num_rel: ArrayLike) -> np.ndarray:
    """``total / num_rel`` as trec_eval divides a sum over the relevant retrieved documents
    (map, binG): only when the sum has a term, whatever num_rel. So 0 without a term, and
    +inf where num_rel is 0 yet documents count as relevant: a ``-l`` below 0 makes the
    retrieved unjudged documents (-1, and -2 for those in the pool) relevant, but num_rel
    counts only judgements of 0 or more."""
    total = np.asarray(total, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, np.divide(total, num_rel, dtype=np.float64), 0.0)


def positions(offsets: np.ndarray) -> np.ndarray:
    """(n,) 1-based position of every row within its segment."""
    lengths = np.diff(offsets)
    n = int(offsets[-1])
    return np.arange(n, dtype=np.int64) - np.repeat(offsets[:-1], lengths) + 1
