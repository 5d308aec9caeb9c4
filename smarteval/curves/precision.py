"""Recall at chosen precision levels: Keen's second cut-off technique (part 4B).

Keen notes that cut-offs at precision levels were never tested, "since precision does
not monotonically decrease with rank": more than one cut-off can give a precision. Here
the cut-off for level p is the *deepest relevant document at which precision is still at
least p* (i/r_i >= p, compared exactly): the most a user can find while keeping
precision p, so recall never rises with p (the precision counterpart of the Semi-
Cranfield curve, which holds the best precision at or above a recall). Cut-offs fall at
relevant documents, as the Quasi-Cranfield curve's do, and unretrieved relevant
documents are placed by ``--unranked`` when N is known. A query whose precision never
reaches p is cut off before its first document: recall 0, nothing examined.
"""

from __future__ import annotations

import numpy as np

from smarteval.columns import Ranked
from smarteval.curves.base import EXTRA, OUT, REAL, Curve, counts, fractions
from smarteval.curves.points import compare_ratios, relevant_points


def deepest(r: Ranked, levels: np.ndarray):
    """(Q, K) the relevant documents found (i) and examined (rank) at each level's cut-off,
    and whether the cut-off is a retrieved document."""
    p = relevant_points(r)
    pn, qd = fractions(levels)
    Q, K = r.num_queries, len(levels)
    found = np.zeros((Q, K))
    seen = np.zeros((Q, K))
    real = np.ones((Q, K), dtype=bool)
    if len(p.i) == 0:
        return found, seen, real
    reach = np.isfinite(p.rank)
    num = np.where(reach, p.i * p.rank_den, 0)      # precision i/rank exactly
    den = np.where(reach, p.rank_num, 1)
    qi = np.repeat(np.arange(Q), np.diff(p.offsets))
    for k in range(K):                              # a loop over levels, not queries
        ok = reach & (compare_ratios(num, den, pn[k], qd[k]) >= 0)
        best = np.full(Q, -1, dtype=np.int64)
        np.maximum.at(best, qi[ok], np.flatnonzero(ok))      # the deepest qualifying point
        has = best >= 0
        found[has, k] = p.i[best[has]]
        seen[has, k] = p.rank[best[has]]
        real[has, k] = p.real[best[has]]
    return found, seen, real


def precision_levels(r: Ranked, levels: np.ndarray, average: str) -> Curve:
    """Averaged recall (and documents examined) at each precision level.

    Macro: the mean of each query's recall i/R; micro: Σi / ΣR; median. A query without
    relevant documents has recall 0 and counts as extrapolated, as does one whose
    cut-off is a placed unretrieved document.
    """
    found, seen, real = deepest(r, levels)
    R = r.num_rel.astype(np.float64)[:, None]
    rec = np.where(R > 0, found / np.maximum(R, 1), 0.0)
    klass = np.where((R > 0) & real, REAL, EXTRA)
    K = len(levels)
    if r.num_queries == 0:
        value = examined = np.full(K, np.nan)
    elif average == "micro":
        tot = R.sum()
        value = found.sum(axis=0) / tot if tot > 0 else np.zeros(K)
        examined = seen.mean(axis=0)
    elif average == "median":
        value, examined = np.median(rec, axis=0), np.median(seen, axis=0)
    else:
        value, examined = rec.mean(axis=0), seen.mean(axis=0)
    return Curve(method="precision", step="highest", left="none", average=average,
                 levels=levels, value=value, examined=examined, recall=value,
                 per_query=np.where(klass != OUT, rec, np.nan), **counts(klass))
