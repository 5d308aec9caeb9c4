"""Each query's points: its relevant documents in rank order, the placed ones included.

A query's *points* are (i/R, precision) after its i-th relevant document, i = 1..R.
Relevant documents the run did not retrieve get ranks from ``--unranked`` when N is
known (``expected``: the j-th of m at its mean rank L + j(N-L+1)/(m+1) under a uniform
random placement among L+1..N; ``worst``: N-m+j) and are unreachable (precision 0)
otherwise, as in trec_eval. Ranks are kept exactly too, as integer ratios, so that
precisions can be compared without rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smarteval.columns import Ranked
from smarteval.curves.base import known_n
from smarteval.errors import UsageError
from smarteval.measures.segments import positions

#: The point chosen on each vertical step of a quasi curve (Keen Fig. 15).
STEPS = ("highest", "lowest", "middle", "mean", "ends")


@dataclass(frozen=True)
class Points:
    """Every query's relevant documents in order: point i of query q at ``offsets[q] + i - 1``."""

    offsets: np.ndarray   # (Q+1,)
    rank: np.ndarray      # (P,) rank (float: placed ranks may be fractional; inf unreachable)
    real: np.ndarray      # (P,) retrieved by the run
    i: np.ndarray         # (P,) 1-based index among the query's relevant documents
    end: np.ndarray       # (P,) last rank of the vertical step that starts at the point
    #: the rank exactly, rank_num / rank_den (integers; 0/1 where unreachable): a placed
    #: rank L + j(N-L+1)/(m+1) is (L(m+1) + j(N-L+1)) / (m+1)
    rank_num: np.ndarray  # (P,) int64
    rank_den: np.ndarray  # (P,) int64


def relevant_points(r: Ranked, place: bool = True) -> Points:
    """The points of every query, unretrieved relevant documents placed as --unranked says.

    ``place`` False leaves them unreachable even when N is known (a cluster search, which
    gives them no rank): the last step then ends at the end of the list.
    """
    from smarteval.measures.collection import unranked
    R = r.num_rel.astype(np.int64)
    a = np.minimum(r.num_rel_ret, R).astype(np.int64)
    poff = np.concatenate(([0], np.cumsum(R))).astype(np.int64)
    P = int(poff[-1])
    rank = np.full(P, np.inf)
    rank_num = np.zeros(P, dtype=np.int64)
    rank_den = np.ones(P, dtype=np.int64)
    real = np.zeros(P, dtype=bool)
    # the relevant rows alone: their query, count so far and rank (no run-long column)
    q = np.repeat(np.arange(r.num_queries, dtype=np.int64), r.num_rel_ret)
    i = r.rel_k
    ok = i <= R[q]
    at = poff[q[ok]] + i[ok] - 1
    rank[at] = r.rel_rank[ok]
    rank_num[at] = r.rel_rank[ok]
    real[at] = True
    m = R - a
    if place and known_n(r):
        n, L, _ = unranked(r, "the curve")
        moff = np.concatenate(([0], np.cumsum(m))).astype(np.int64)
        jj = positions(moff)
        qq = np.repeat(np.arange(r.num_queries), m)
        at = poff[qq] + a[qq] + jj - 1
        if r.settings.unranked == "worst":
            rank_num[at] = (n - m)[qq] + jj
        else:
            rank_num[at] = (L * (m + 1))[qq] + jj * (n - L + 1)[qq]
            rank_den[at] = (m + 1)[qq]
        rank[at] = rank_num[at] / rank_den[at]
        last = n.astype(np.float64)
    else:
        last = r.num_ret.astype(np.float64)
    idx = positions(poff)
    pq = np.repeat(np.arange(r.num_queries), R)
    nxt = np.full(P, np.inf)
    inner = idx < R[pq]
    nxt[:-1][inner[:-1]] = rank[1:][inner[:-1]]
    end = np.where(np.isfinite(nxt), nxt - 1, last[pq] if P else 0.0)
    end = np.maximum(end, rank)
    return Points(offsets=poff, rank=rank, real=real, i=idx, end=end, rank_num=rank_num,
                  rank_den=rank_den)


def step_precision(p: Points, step: str) -> np.ndarray:
    """(P,) the precision chosen on the vertical step of every point (0 when unreachable)."""
    if step not in STEPS:
        raise UsageError(f"--step must be one of {', '.join(STEPS)}, not {step!r}")
    i = p.i.astype(np.float64)
    s, e = p.rank, p.end
    ok = np.isfinite(s)
    s_ = np.where(ok, s, 1.0)
    e_ = np.where(ok & np.isfinite(e), e, s_)
    # the step's documents are at ranks s, s+1, ..., s+c-1 (placed ranks may be fractional)
    c = np.floor(e_ - s_ + 1e-9) + 1
    last = s_ + c - 1
    if step == "highest":
        v = i / s_
    elif step == "lowest":
        v = i / last
    elif step == "middle":
        v = i / (s_ + np.floor((c - 1) / 2))
    elif step == "ends":
        v = (i / s_ + i / last) / 2
    else:   # mean of i/t over the step: i (psi(s+c) - psi(s)) / c
        from scipy.special import digamma
        v = i * (digamma(s_ + c) - digamma(s_)) / c
        v = np.where(c == 1, i / s_, v)
    return np.where(ok, v, 0.0)


def compare_ratios(an, ad, bn, bd) -> np.ndarray:
    """Sign of an/ad - bn/bd, exactly, for non-negative integer arrays (ad, bd > 0).

    Floating point decides where the two ratios differ clearly; the near-ties (relative
    difference below 1e-12) are settled by cross-multiplying in Python integers, which
    cannot overflow. By example: 3/36.6 and 4/48.8 (as 30/366 and 40/488) compare equal,
    where 4/48.8 rounds above 3/36.6 in floating point.
    """
    an, ad, bn, bd = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (an, ad, bn, bd)))
    fa = an / ad
    fb = bn / bd
    out = np.sign(fa - fb).astype(np.int64)
    near = np.abs(fa - fb) <= 1e-12 * np.maximum(np.abs(fa), np.abs(fb))
    if near.any():
        diff = an[near].astype(object) * bd[near].astype(object) - \
            bn[near].astype(object) * ad[near].astype(object)
        out[near] = np.sign(diff.astype(np.float64)).astype(np.int64)
    return out


def first_best(num: np.ndarray, den: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For every row, the earliest row at or after it in its segment with the largest num/den.

    Ratios are compared exactly (:func:`compare_ratios`), so equal ratios that round
    differently still go to the earliest row. Doubling, as a suffix maximum.
    By example: ratios [1/2, 2/3, 4/6, 1/3], one segment  ->  [1, 1, 2, 3]
    """
    n = len(num)
    best = np.arange(n, dtype=np.int64)
    if n == 0:
        return best
    lengths = np.diff(offsets)
    seg_end = np.repeat(offsets[1:], lengths)
    idx = np.arange(n)
    step = 1
    longest = int(lengths.max())
    while step < longest:
        j = idx[idx + step < seg_end]
        here, there = best[j], best[j + step]
        better = compare_ratios(num[there], den[there], num[here], den[here]) > 0
        best[j] = np.where(better, there, here)
        step *= 2
    return best
