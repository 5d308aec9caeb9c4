"""Keen part 7: a ranked run cut, query by query, where another system stopped.

A Boolean system retrieves an unordered set of "generally uncontrollable" size; to
compare a ranked system with it at equal effort, each query's ranking is cut at the
size of the set the other system retrieved for that query ("the generation of a
cut-off in the SMART ranked output at an identical point"), giving one precision-recall
pair per run. Ranks past the end of a short list hold non-relevant documents, or the
placed unretrieved relevant ones when N is known (as the Pseudo-Cranfield curve). A
query the other system retrieved nothing for is cut at 0: recall 0 and precision 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smarteval.columns import Ranked
from smarteval.curves.cutoffs import relevant_in_top


@dataclass(frozen=True)
class Point:
    """One averaged precision-recall pair and the documents examined for it."""

    average: str
    queries: int
    examined: float          # mean documents examined per query
    recall: float
    precision: float


def aligned(r: Ranked, other: Ranked) -> np.ndarray:
    """(Q,) index of each query of ``r`` in ``other``, -1 where ``other`` lacks it."""
    if other.num_queries == 0:
        return np.full(r.num_queries, -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(other.qids, r.qids), other.num_queries - 1)
    return np.where(other.qids[pos] == r.qids, pos, -1)


def set_sizes(r: Ranked, other: Ranked) -> np.ndarray:
    """(Q,) the number of documents ``other`` retrieved for each query of ``r`` (0 if none)."""
    at = aligned(r, other)
    return np.where(at >= 0, other.num_ret[np.maximum(at, 0)], 0).astype(np.int64) \
        if other.num_queries else np.zeros(r.num_queries, dtype=np.int64)


def average_point(found, examined, R, average: str) -> Point:
    """Average per-query counts into one point: macro means of found/R and found/examined,
    micro Σfound/ΣR and Σfound/Σexamined, or medians."""
    found, examined, R = (np.asarray(x, dtype=np.float64) for x in (found, examined, R))
    Q = len(found)
    if Q == 0:
        return Point(average, 0, float("nan"), float("nan"), float("nan"))
    rec = np.where(R > 0, found / np.maximum(R, 1), 0.0)
    prec = np.where(examined > 0, found / np.maximum(examined, 1), 0.0)
    if average == "micro":
        tot, seen = R.sum(), examined.sum()
        return Point(average, Q, float(examined.mean()), float(found.sum() / tot) if tot else
                     0.0, float(found.sum() / seen) if seen else 0.0)
    if average == "median":
        return Point(average, Q, float(np.median(examined)), float(np.median(rec)),
                     float(np.median(prec)))
    return Point(average, Q, float(examined.mean()), float(rec.mean()), float(prec.mean()))


def matched(r: Ranked, sizes: np.ndarray, average: str = "macro") -> Point:
    """The ranked run ``r`` cut at ``sizes[q]`` documents for each query q."""
    sizes = np.asarray(sizes, dtype=np.int64)
    found = relevant_in_top(r, sizes[:, None])[:, 0] if r.num_queries else np.zeros(0)
    return average_point(found, sizes, r.num_rel, average)


def own_point(r: Ranked, other: Ranked, average: str = "macro") -> Point:
    """The other (set) system's own pair over the queries of ``r``: everything it retrieved."""
    at = aligned(r, other)
    ok = at >= 0
    found = np.where(ok, other.num_rel_ret[np.maximum(at, 0)], 0) if other.num_queries else \
        np.zeros(r.num_queries)
    return average_point(found, set_sizes(r, other), r.num_rel, average)
