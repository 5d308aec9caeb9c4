"""Precision at recall levels read from each query's points: Keen's Semi- and
Quasi-Cranfield curves (part 4B, 4C) and the cluster-search curve (part 4D)."""

from __future__ import annotations

import numpy as np

from smarteval.columns import Ranked
from smarteval.curves.base import (
    EXTRA,
    OUT,
    REAL,
    Curve,
    average_cells,
    counts,
    fractions,
    pooled,
)
from smarteval.curves.points import Points, first_best, relevant_points, step_precision

#: Keen's left-end extrapolations of a quasi curve below its first point (methods 1-5).
LEFTS = ("none", "zero", "one", "hybrid", "constant")
#: How a cluster search's curve goes on past its recall ceiling (Keen 4D).
CLUSTER_ENDS = ("extrapolate", "join", "none")


def _cells(r: Ranked, levels: np.ndarray):
    R = r.num_rel.astype(np.int64)[:, None]
    pn, qd = fractions(levels)
    return R, pn[None, :], qd[None, :]


# --------------------------------------------------------------------------- semi

def semi(r: Ranked, levels: np.ndarray, average: str) -> Curve:
    """The best precision at any recall at or above each level (Keen Fig. 17)."""
    p = relevant_points(r)
    R, pn, qd = _cells(r, levels)
    a = np.minimum(r.num_rel_ret, r.num_rel).astype(np.int64)[:, None]
    i0 = np.maximum(-((-pn * R) // qd), 1)            # first i with i/R >= level
    has = R > 0
    # precision i/rank exactly as (i·rank_den) / rank_num; 0/1 where unreachable
    reach = np.isfinite(p.rank)
    num = np.where(reach, p.i * p.rank_den, 0)
    den = np.where(reach, p.rank_num, 1)
    # the cut-off giving the best: the earliest point at or after i0 holding the best
    j_all = first_best(num, den, p.offsets)
    at = np.where(has, p.offsets[:-1][:, None] + np.minimum(i0, np.maximum(R, 1)) - 1, 0)
    if len(num):
        j = j_all[np.minimum(at, len(num) - 1)]
        vals = np.where(has, num[j] / den[j], 0.0)
        found = np.where(has, p.i[j], 0).astype(np.float64)
        seen = np.where(has, p.rank[j], 0.0)
    else:
        vals = found = seen = np.zeros(at.shape)
    # real: at or right of the query's first point, and reached by a retrieved document
    klass = np.where(has & (i0 <= a) & (pn * R >= qd), REAL, EXTRA)
    past = has & ~np.isfinite(seen)
    L = np.broadcast_to(r.num_ret.astype(np.float64)[:, None], found.shape)
    found = np.where(past, 0.0, found)
    seen = np.where(past, L, seen)
    value = pooled(found, seen, klass) if average == "micro" else \
        average_cells(vals, klass, average)
    return Curve(method="semi", step="highest", left="none", average=average, levels=levels,
                 value=value, per_query=np.where(klass != OUT, vals, np.nan), **counts(klass))


# --------------------------------------------------------------------------- interpolation

def interpolate(R: np.ndarray, levels: np.ndarray, offsets: np.ndarray, i: np.ndarray,
                y: np.ndarray, real: np.ndarray, y0: np.ndarray, left: str):
    """(Q, K) values and classes of the straight lines through each query's points.

    Query q's points are rows ``offsets[q]:offsets[q+1]``: recall i/R[q] (increasing i)
    and value y, ``real`` when the point is a retrieved document. At a level between
    two points the value lies on the line joining them (real when both are); left of
    the first point on the line from (0, y0[q]) to it (extrapolated; left out when
    ``left`` is none); right of the last point, or for a query without points, the
    query is left out. Levels are compared with i/R exactly.
    """
    Q = len(R)
    pn, qd = fractions(levels)
    pn, qd = pn[None, :], qd[None, :]
    Rq = R.astype(np.int64)[:, None]
    lo = (pn * Rq) // qd                                 # floor(level·R)
    qi = np.repeat(np.arange(Q, dtype=np.int64), np.diff(offsets))
    width = int(R.max(initial=0)) + 2
    keys = qi * width + i
    cell = np.arange(Q, dtype=np.int64)[:, None] * width + np.clip(lo, 0, width - 1)
    j_lo = np.searchsorted(keys, cell, side="right") - 1     # last point with i <= lo
    start, stop = offsets[:-1][:, None], offsets[1:][:, None]
    has_lo = j_lo >= start
    has_hi = j_lo + 1 < stop
    last = max(len(i) - 1, 0)
    if len(i) == 0:
        i, y, real = np.ones(1, np.int64), np.zeros(1), np.zeros(1, dtype=bool)

    def at(j):
        return np.clip(j, 0, last)
    i_lo, y_lo, r_lo = i[at(j_lo)], y[at(j_lo)], real[at(j_lo)]
    i_hi, y_hi, r_hi = i[at(j_lo + 1)], y[at(j_lo + 1)], real[at(j_lo + 1)]
    exact = has_lo & (i_lo * qd == pn * Rq)
    between = has_lo & has_hi & ~exact
    with np.errstate(invalid="ignore", divide="ignore"):
        w = (pn * Rq - i_lo * qd) / ((i_hi - i_lo) * qd)
    vals = np.where(exact, y_lo, y_lo + (y_hi - y_lo) * np.where(between, w, 0.0))
    # left of the first point: a line from (0, y0) to (i_1/R, y_1)
    nonempty = stop > start
    i_1, y_1 = i[at(start)], y[at(start)]
    is_left = nonempty & ~has_lo
    y0 = np.asarray(y0, dtype=np.float64)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        left_val = y0 + (y_1 - y0) * (pn * Rq) / (qd * i_1)
    vals = np.where(is_left, left_val, vals)
    klass = np.where(exact, np.where(r_lo, REAL, EXTRA),
                     np.where(between & r_lo & r_hi, REAL, EXTRA))
    klass = np.where(is_left, OUT if left == "none" else EXTRA, klass)
    klass = np.where(~nonempty | (has_lo & ~has_hi & ~exact), OUT, klass)
    return np.where(klass == OUT, np.nan, vals), klass


def _left_start(left: str, first: np.ndarray, first_is_rank_1: np.ndarray) -> np.ndarray:
    """(Q,) where the line left of the first point starts, at recall 0 (Keen's methods)."""
    return {"zero": np.zeros(len(first)), "one": np.ones(len(first)),
            "hybrid": np.where(first_is_rank_1, 1.0, 0.0)}.get(left, first)


def _no_relevant(R: np.ndarray, vals: np.ndarray, klass: np.ndarray, left: str):
    """A query without relevant documents scores 0 (extrapolated; left out under none)."""
    none = (R == 0)[:, None]
    return (np.where(none, 0.0, vals),
            np.where(none, OUT if left == "none" else EXTRA, klass))


def _finish(method, step, left, average, levels, vals, klass, **extra) -> Curve:
    value = average_cells(vals, klass, average)
    return Curve(method=method, step=step, left=left, average=average, levels=levels,
                 value=value, per_query=np.where(klass != OUT, vals, np.nan),
                 **counts(klass), **extra)


# --------------------------------------------------------------------------- quasi

def quasi(r: Ranked, levels: np.ndarray, step: str, left: str, average: str) -> Curve:
    """One point chosen on each vertical step (``step``), joined by straight lines."""
    p = relevant_points(r)
    y = step_precision(p, step)
    first = np.where(np.diff(p.offsets) > 0, y[np.minimum(p.offsets[:-1], max(len(y) - 1, 0))]
                     if len(y) else 0.0, 0.0)
    first_rank = p.rank[np.minimum(p.offsets[:-1], max(len(y) - 1, 0))] if len(y) else \
        np.zeros(r.num_queries)
    y0 = _left_start(left, first, first_rank == 1)
    vals, klass = interpolate(r.num_rel, levels, p.offsets, p.i, y, p.real, y0, left)
    vals, klass = _no_relevant(r.num_rel, vals, klass, left)
    return _finish("quasi", step, left, average, levels, vals, klass)


# --------------------------------------------------------------------------- cluster

def _aligned(r: Ranked, other: Ranked) -> np.ndarray:
    """(Q,) index of each query of ``r`` in ``other``, -1 where ``other`` lacks it."""
    if other.num_queries == 0:
        return np.full(r.num_queries, -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(other.qids, r.qids), other.num_queries - 1)
    return np.where(other.qids[pos] == r.qids, pos, -1)


def cluster_points(r: Ranked, full: Ranked, step: str, end: str):
    """Each query's points on the cluster curve: offsets, i, precision, real; and a.

    The cluster search's own points (its retrieved relevant documents, i = 1..a; those
    it did not retrieve have no rank) and past them, by ``end``: ``extrapolate`` one
    point at recall 1 with the precision of the full search's last point, ``join`` the
    full search's points a+1..R, ``none`` nothing. A query missing from ``full`` takes
    the points of an empty full search.
    """
    pc = relevant_points(r, place=False)
    yc = step_precision(pc, step)
    R = r.num_rel.astype(np.int64)
    a = np.minimum(r.num_rel_ret, R).astype(np.int64)
    own = np.flatnonzero(pc.real)
    q_own = np.repeat(np.arange(r.num_queries), np.diff(pc.offsets))[own]
    pf = relevant_points(full)
    yf = step_precision(pf, step)
    fq = _aligned(r, full)
    fstart = np.where(fq >= 0, pf.offsets[np.maximum(fq, 0)], 0)
    # a query the full search has no results for is its empty ranking: every relevant
    # document placed by --unranked when N is known, unreachable (precision 0) otherwise
    pe = relevant_points(r.subset(np.zeros(len(r.rel), dtype=bool)))
    ye = step_precision(pe, step)

    def full_y(qs, ii):                 # the full search's chosen precision of point ii
        ok = fq[qs] >= 0
        idx = np.minimum(fstart[qs] + ii - 1, max(len(yf) - 1, 0))
        eidx = np.minimum(pe.offsets[qs] + ii - 1, max(len(ye) - 1, 0))
        return np.where(ok, yf[idx] if len(yf) else 0.0, ye[eidx] if len(ye) else 0.0)

    missing = np.maximum(R - a, 0)
    if end == "extrapolate":
        q_ext = np.flatnonzero(missing > 0)
        i_ext = R[q_ext]
    elif end == "join":
        q_ext = np.repeat(np.arange(r.num_queries), missing)
        moff = np.concatenate(([0], np.cumsum(missing)))
        i_ext = a[q_ext] + np.arange(int(moff[-1])) - moff[:-1][q_ext] + 1
    else:
        q_ext = i_ext = np.zeros(0, dtype=np.int64)
    q_all = np.concatenate((q_own, q_ext)).astype(np.int64)
    i_all = np.concatenate((pc.i[own], i_ext)).astype(np.int64)
    y_all = np.concatenate((yc[own], full_y(q_ext, i_ext)))
    real_all = np.concatenate((np.ones(len(own), dtype=bool), np.zeros(len(q_ext), dtype=bool)))
    order = np.lexsort((i_all, q_all))
    offsets = np.concatenate(([0], np.cumsum(np.bincount(q_all, minlength=r.num_queries))))
    first_rank_1 = np.zeros(r.num_queries, dtype=bool)
    first_rank_1[q_own[pc.i[own] == 1]] = pc.rank[own][pc.i[own] == 1] == 1
    return (offsets.astype(np.int64), i_all[order], y_all[order], real_all[order], a,
            first_rank_1)


def cluster(r: Ranked, full: Ranked, levels: np.ndarray, step: str, left: str, end: str,
            average: str) -> Curve:
    """A cluster search's curve (Keen 4D, Fig. 25) and its recall ceiling.

    ``r`` is the cluster search, ``full`` the full search of the same queries (ranked
    against the same qrels). The ceiling is the recall the cluster search reaches, a/R
    per query, averaged by ``average`` (micro: Σa/ΣR).
    """
    offsets, i, y, real, a, first_rank_1 = cluster_points(r, full, step, end)
    R = r.num_rel
    first = np.where(np.diff(offsets) > 0, y[np.minimum(offsets[:-1], max(len(y) - 1, 0))]
                     if len(y) else 0.0, 0.0)
    y0 = _left_start(left, first, first_rank_1)
    vals, klass = interpolate(R, levels, offsets, i, y, real, y0, left)
    vals, klass = _no_relevant(R, vals, klass, left)
    per_q = np.where(R > 0, a / np.maximum(R, 1), 0.0)
    if average == "micro":
        ceiling = float(a.sum() / R.sum()) if R.sum() else 0.0
    elif average == "median":
        ceiling = float(np.median(per_q)) if len(per_q) else float("nan")
    else:
        ceiling = float(per_q.mean()) if len(per_q) else float("nan")
    return _finish("cluster", step, left, average, levels, vals, klass, ceiling=ceiling,
                   end=end)


__all__ = ["LEFTS", "CLUSTER_ENDS", "semi", "quasi", "cluster", "interpolate",
           "cluster_points", "Points"]
