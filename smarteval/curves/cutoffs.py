"""Curves read at document cut-offs: Keen's Pseudo-Cranfield curve (part 4B, Fig. 14), its
variants over relevance points (Fig. 26b), fallout (Fig. 28b) and generality-adjusted
precision (Fig. 28c), and the performance characteristic (Fig. 26a).

After n documents every query has found a_n relevant documents (and g_n relevance
points, each relevant document scoring its grade). Ranks past the end of a list hold
non-relevant documents or, when N is known, the unretrieved relevant ones as
``--unranked`` places them: in expectation m(n-L)/(N-L) of them (and that share of
their points), or one more at each of the last m ranks (worst; the lightest first).
The averaged recall (a_n/R, or g_n/G over relevance points) and the averaged value
(precision a_n/n, fallout b_n/(N-R) with b_n = min(n - a_n, N - R), or precision
adjusted to the generality G, R₁G / (R₁G + F₁(1000 - G))) are joined by straight lines
between cut-offs and read where the averaged recall reaches each level.
"""

from __future__ import annotations

import numpy as np

from smarteval.columns import Ranked, segment_sum
from smarteval.curves.base import Curve, known_n

#: The value each cut-off method averages, and the recall it is read at.
VALUES = {"pseudo": ("precision", "documents"), "points": ("precision", "points"),
          "fallout": ("fallout", "documents"), "adjusted": ("adjusted precision", "documents")}


def relevant_in_top(r: Ranked, n) -> np.ndarray:
    """(Q, K) relevant documents among the first n of each query; n is (K,) or (Q, K).

    Retrieved relevant documents count from their rank on; past the end of a list, when
    N is known, the unretrieved ones count as --unranked places them: m(n-L)/(N-L) in
    expectation, or one more at each of the last m ranks (worst).
    """
    from smarteval.measures.collection import unranked
    n = np.asarray(n, dtype=np.int64)
    n = np.broadcast_to(n if n.ndim == 2 else n[None, :], (r.num_queries, n.shape[-1]))
    L = r.num_ret.astype(np.int64)
    start = r.offsets[:-1]
    p = r.cum_rel
    a = (p[start[:, None] + np.minimum(n, L[:, None])] - p[start][:, None]).astype(np.float64)
    if known_n(r):
        N, L, m = unranked(r, "the curve")
        N, L, m = N[:, None], L[:, None], m[:, None].astype(np.float64)
        if r.settings.unranked == "worst":
            a = a + np.clip(n - (N - m), 0, m)
        else:
            a = a + m * np.clip(n - L, 0, N - L) / np.maximum(N - L, 1)
    return a


def _missing_gains(r: Ranked):
    """Per query, the gains of the relevant documents the run did not retrieve, lightest
    first: (offsets, gains)."""
    from smarteval.measures.gains import relevant_gains
    gain, qgain, qrel_rel = relevant_gains(r)
    top = int(max(r.qrel_grades.max(initial=0), r.rel.max(initial=0))) + 1
    keys, judged = np.unique(r.qrel_qindex[qrel_rel] * top + r.qrel_grades[qrel_rel],
                             return_counts=True)
    retrieved = np.zeros(len(keys), dtype=np.int64)
    if r.is_rel.any():
        rk, rc = np.unique(r.qindex[r.is_rel] * top + r.rel[r.is_rel], return_counts=True)
        retrieved[np.searchsorted(keys, rk)] = rc
    u = judged - retrieved
    q = np.repeat(keys // top, u)                     # keys sorted: query, then grade up
    g = np.repeat((keys % top).astype(np.float64), u)
    offsets = np.concatenate(([0], np.cumsum(np.bincount(q, minlength=r.num_queries))))
    return offsets.astype(np.int64), g


def points_in_top(r: Ranked, n) -> tuple[np.ndarray, np.ndarray]:
    """(Q, K) relevance points among the first n of each query, and (Q,) every point.

    Each relevant document scores its grade (Keen Fig. 26: Cran-1's four grades as
    4, 3, 2 and 1 points). Past the end of a list the unretrieved ones are placed as
    :func:`relevant_in_top` places them (worst: the lightest first).
    """
    from smarteval.measures.collection import unranked
    from smarteval.measures.gains import relevant_gains
    n = np.asarray(n, dtype=np.int64)
    n = np.broadcast_to(n if n.ndim == 2 else n[None, :], (r.num_queries, n.shape[-1]))
    gain, qgain, _ = relevant_gains(r)
    pre = np.concatenate(([0.0], np.cumsum(gain)))
    start = r.offsets[:-1]
    L = r.num_ret.astype(np.int64)
    g = pre[start[:, None] + np.minimum(n, L[:, None])] - pre[start][:, None]
    total = segment_sum(qgain, r.qrel_offsets)
    if known_n(r):
        N, L, m = unranked(r, "the curve")
        missing = total - segment_sum(gain, r.offsets)
        if r.settings.unranked == "worst":
            off, mg = _missing_gains(r)
            c = np.clip(n - (N - m)[:, None], 0, m[:, None])          # placed ones seen
            cum = np.concatenate(([0.0], np.cumsum(mg)))
            g = g + cum[off[:-1][:, None] + c] - cum[off[:-1]][:, None]
        else:
            span = np.maximum(N - L, 1)[:, None]
            g = g + missing[:, None] * np.clip(n - L[:, None], 0, (N - L)[:, None]) / span
    return g, total


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def adjust(R1, F1, G: float):
    """Keen's precision adjusted to generality G: R₁G / (R₁G + F₁(1000 - G)), 0 at 0/0."""
    num = np.asarray(R1) * G
    return _ratio(num, num + np.asarray(F1) * (1000.0 - G))


def averaged(r: Ranked, n, method: str, average: str, generality: float | None = None):
    """Averaged (recall, value) of a cut-off method after n[k] documents, (K,) each."""
    from smarteval.measures.collection import num_docs
    n = np.asarray(n, dtype=np.int64)
    nn = n.astype(np.float64)
    value, basis = VALUES[method]
    if r.num_queries == 0:
        z = np.zeros(len(nn))
        return z, z
    a = relevant_in_top(r, n)
    R = r.num_rel.astype(np.float64)
    if basis == "points":
        found, total = points_in_top(r, n)
    else:
        found, total = a, R
    rec_q = _ratio(found, total[:, None])
    if value == "precision":
        num, den = a, np.broadcast_to(nn, a.shape)
    else:
        N = num_docs(r, f"the {method} curve").astype(np.float64)[:, None]
        nonrel = N - R[:, None]
        num = np.minimum(nn[None, :] - a, nonrel)
        den = np.broadcast_to(nonrel, a.shape)
    y_q = _ratio(num, den)
    if average == "micro":
        rec = _ratio(found.sum(axis=0), np.full(len(nn), total.sum()))
        y = _ratio(num.sum(axis=0), den.sum(axis=0))
    elif average == "median":
        rec, y = np.median(rec_q, axis=0), np.median(y_q, axis=0)
    else:
        rec, y = rec_q.mean(axis=0), y_q.mean(axis=0)
    if value == "adjusted precision":
        assert generality is not None
        y = adjust(rec, y, generality)           # y held the averaged fallout
    return rec, y


def _depth(r: Ranked, name: str) -> int:
    from smarteval.measures.collection import num_docs
    if known_n(r):
        return int(num_docs(r, name).max(initial=0))
    return int(r.num_ret.max(initial=0))


def pseudo(r: Ranked, levels: np.ndarray, method: str, average: str,
           generality: float | None = None) -> Curve:
    """Read the averaged cut-off curve at each level: find the first cut-off reaching it.

    The averaged recall never falls as n grows (for the median too: each query's recall
    is non-decreasing), so the first cut-off is found by bisection over n = 1..D, for all
    levels at once, without a queries x cut-offs table.
    """
    Q = r.num_queries
    depth = _depth(r, f"the {method} curve")
    K = len(levels)
    target = levels - 1e-12           # averaged recall is a float sum: reached within 1e-12
    out_v = np.full(K, np.nan)
    out_n = np.full(K, np.nan)
    out_r = np.full(K, np.nan)
    G = generality if method == "adjusted" else None
    if depth == 0:
        return Curve(method=method, step="highest", left="none", average=average,
                     levels=levels, value=out_v, real=np.zeros(K, dtype=np.int64),
                     extrapolated=np.zeros(K, dtype=np.int64),
                     excluded=np.full(K, Q, dtype=np.int64), examined=out_n, recall=out_r,
                     generality=G)

    def point(n):
        return averaged(r, n, method, average, generality)
    last_rec, _ = point(np.array([depth]))
    reached = last_rec[0] >= target
    lo = np.ones(K, dtype=np.int64)
    hi = np.full(K, depth, dtype=np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        rec_mid, _ = point(mid)
        up = rec_mid >= target
        hi = np.where(up & (lo < hi), mid, hi)
        lo = np.where(~up & (lo < hi), mid + 1, lo)
    n1 = lo                                          # first cut-off reaching the level
    rec1, v1 = point(n1)
    rec0, v0 = point(np.maximum(n1 - 1, 1))
    first = n1 == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip((levels - rec0) / (rec1 - rec0), 0.0, 1.0)
    t = np.where(first | (np.abs(rec1 - levels) <= 1e-12) | ~np.isfinite(t), 1.0, t)
    v = np.where(first, v1, v0 + t * (v1 - v0))
    n = np.where(first, 1.0, (n1 - 1) + t)
    out_v[reached] = v[reached]
    out_n[reached] = n[reached]
    out_r[reached] = np.where(first, rec1, levels)[reached]
    cut = np.ceil(np.where(reached, out_n, 0)).astype(np.int64)
    real = np.where(reached, (r.num_ret[:, None] >= cut[None, :]).sum(axis=0), 0)
    return Curve(method=method, step="highest", left="none", average=average,
                 levels=levels, value=out_v, real=real,
                 extrapolated=np.where(reached, Q - real, 0),
                 excluded=np.where(reached, 0, Q), examined=out_n, recall=out_r,
                 generality=G)


def characteristic(r: Ranked, cutoffs: np.ndarray, average: str) -> Curve:
    """Giuliano & Jones' performance characteristic (Keen Fig. 26a): the relevance
    points found after each document cut-off, over all the query's points.

    Macro: the mean of each query's share g_n/G (0 without relevant documents); micro:
    Σg_n / ΣG; median. A query whose list ends before the cut-off counts as
    extrapolated there.
    """
    n = np.asarray(cutoffs, dtype=np.int64)
    found, total = points_in_top(r, n)
    share = _ratio(found, total[:, None])
    if r.num_queries == 0:
        value = np.full(len(n), np.nan)
    elif average == "micro":
        value = _ratio(found.sum(axis=0), np.full(len(n), total.sum()))
    elif average == "median":
        value = np.median(share, axis=0)
    else:
        value = share.mean(axis=0)
    real = (r.num_ret[:, None] >= n[None, :]).sum(axis=0)
    return Curve(method="characteristic", step="highest", left="none", average=average,
                 levels=np.asarray(cutoffs, dtype=np.float64), value=value, real=real,
                 extrapolated=r.num_queries - real,
                 excluded=np.zeros(len(n), dtype=np.int64),
                 examined=n.astype(np.float64), per_query=share)
