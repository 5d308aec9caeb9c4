"""Tied scores: tie groups, and rank orders a measure can be written over (exact or expected).

A measure that is linear in "which rows are in the top k", "the rank of a row" or "the log
of that rank" has an exact expectation over every order of each group of tied scores:
replace the row's indicator, rank or log rank by its mean over the group's positions. A
measure written against an *order* object (:class:`Exact` or :class:`Expected`) gets both
its plain value and its ``--ties average`` value from one body of code: it takes an
``o`` argument (``"exact"`` or ``"expected"``, see :func:`order_of`) and is registered
with ``orders=True``. The primitives beyond top/rank/log rank (the precision sum of
average precision, the reciprocal rank of the first relevant document, a hit in the top
k, DCG) have closed forms for the expectation, given with each method.
"""

from __future__ import annotations

import numpy as np

from smarteval import libm
from smarteval.columns import Ranked, segment_sum, tie_starts
from smarteval.measures.gains import gains_of, sparse_dcg_terms
from smarteval.measures.segments import first_true_rank, prefix, safe_div, seg_sum
from smarteval.records import record


@record(frozen=True, eq=False, repr=False)   # arrays: no equality, no repr
class TieGroups:
    """Per row: where its group of tied scores starts and what the group holds.

    ``before`` documents of the query rank above the group, ``size`` documents share the
    score, ``rels`` of them are relevant and ``rel_before`` relevant documents rank
    above the group. By example, scores 3,2,2,1 with relevance 0,1,0,1 give for the
    two tied rows before=1, size=2, rels=1, rel_before=0.
    """

    before: np.ndarray
    size: np.ndarray
    rels: np.ndarray
    rel_before: np.ndarray
    start: np.ndarray     # (n,) True on the first row of each group


def tie_groups(r: Ranked) -> TieGroups:
    """The groups of equal scores (as the ranking compared them) of every query."""
    start = tie_starts(r)
    n = len(start)
    gstart = np.flatnonzero(start)
    gbounds = np.append(gstart, n).astype(np.int64)
    gsize = np.diff(gbounds)
    grels = segment_sum(r.is_rel, gbounds)
    gid = np.cumsum(start) - 1
    before = (r.rank[gstart] - 1)[gid]
    rel_before = (r.rel_so_far[gstart] - r.is_rel[gstart])[gid]
    return TieGroups(before=before, size=gsize[gid], rels=grels[gid],
                     rel_before=rel_before, start=start)


class Exact:
    """The ranking as it stands: each row at its rank."""

    expected = False

    def __init__(self, r: Ranked):
        self.r = r

    def top(self, values: np.ndarray, k) -> np.ndarray:
        """(Q,) sum of ``values`` over the first k rows of each query (k may vary by query)."""
        r = self.r
        p = r.cum_rel if values is r.is_rel else prefix(values)
        start = r.offsets[:-1]
        k = np.maximum(np.asarray(k, dtype=np.int64), 0)
        return (p[start + np.minimum(k, r.num_ret)] - p[start]).astype(np.int64)

    def rank(self) -> np.ndarray:
        """(n,) rank of every row."""
        return self.r.rank.astype(np.float64)

    def log_rank(self) -> np.ndarray:
        """(n,) natural log of the rank of every row."""
        return libm.log(self.r.rank)

    def rel_rank(self, j: np.ndarray) -> np.ndarray:
        """(Q,) rank of the j[q]-th relevant retrieved document; NaN when fewer were retrieved."""
        r = self.r
        out = np.full(r.num_queries, np.nan)
        hit = r.is_rel & (r.rel_so_far == np.asarray(j)[r.qindex])
        out[r.qindex[hit]] = self._rel_rank_rows(hit)
        return out

    def _rel_rank_rows(self, hit: np.ndarray) -> np.ndarray:
        return self.r.rank[hit].astype(np.float64)

    def precision_sum(self, k=None) -> np.ndarray:
        """(Q,) Σ precision at each relevant document (within the first k when given).

        Added in rank order, as trec_eval accumulates average precision.
        """
        r = self.r
        key = ("precision_sum", k)
        if key not in r.memo:
            terms = ap_terms(r)
            if k is not None:
                terms = np.where(r.rel_rank <= k, terms, 0.0)
            r.memo[key] = sum_at_rel(r, terms)
        return r.memo[key]

    def reciprocal_first(self) -> np.ndarray:
        """(Q,) 1 / rank of the first relevant document; 0 when none is retrieved."""
        first = first_true_rank(self.r.is_rel, self.r.offsets)
        return safe_div((first > 0).astype(np.float64), first)

    def hit(self, k: int) -> np.ndarray:
        """(Q,) 1 when a relevant document is among the first k, else 0."""
        return (self.top(self.r.is_rel, k) > 0).astype(np.float64)

    def dcg(self, pairs: tuple = (), k=None) -> np.ndarray:
        """(Q,) Σ gain / log2(rank + 1) over the retrieved documents (the first k when given).

        Only judged documents gain, so the sum runs over those rows alone, in rank order.
        """
        terms, rank, offsets = sparse_dcg_terms(self.r, pairs)
        if k is not None:
            terms = np.where(rank <= k, terms, 0.0)
        return seg_sum(terms, offsets)


class Expected(Exact):
    """The mean over every order of each group of tied scores (``--ties average``)."""

    expected = True

    def __init__(self, r: Ranked):
        super().__init__(r)
        self.g = tie_groups(r)

    def top(self, values: np.ndarray, k) -> np.ndarray:
        # a row of a group straddling rank k is in the top k with probability (k - before)/size
        g = self.g
        k = np.asarray(k, dtype=np.float64)
        kq = k[self.r.qindex] if k.ndim else k
        frac = np.clip((kq - g.before) / g.size, 0.0, 1.0)
        return segment_sum(np.asarray(values, dtype=np.float64) * frac, self.r.offsets)

    def rank(self) -> np.ndarray:
        g = self.g
        return g.before + (g.size + 1) / 2.0

    def log_rank(self) -> np.ndarray:
        from scipy.special import gammaln
        g = self.g
        return (gammaln(g.before + g.size + 1.0) - gammaln(g.before + 1.0)) / g.size

    def _rel_rank_rows(self, hit: np.ndarray) -> np.ndarray:
        # the j-th relevant lies in the same group whatever the order inside it; among the
        # group's h relevant it is the (j - rel_before)-th, whose mean position in a group
        # of g is (j - rel_before)(g + 1)/(h + 1)
        g = self.g
        jj = self.r.rel_so_far[hit] - g.rel_before[hit]
        return g.before[hit] + jj * (g.size[hit] + 1.0) / (g.rels[hit] + 1.0)

    def precision_sum(self, k=None) -> np.ndarray:
        """(Q,) expected Σ precision at each relevant document (in the top k when given).

        In a group of g documents holding h relevant, after s documents and a relevant ones:
        position p is relevant with chance h/g, and then has 1 + (p-1)(h-1)/(g-1) relevant at
        or above it in the group, so the group adds
        (h/g)·[(a+1)·Σ 1/(s+p) + (h-1)/(g-1)·Σ (p-1)/(s+p)] over its positions p = 1..P.
        """
        r, g = self.r, self.g
        rows = np.flatnonzero(g.start)
        s = g.before[rows].astype(np.float64)
        size = g.size[rows].astype(np.float64)
        h = g.rels[rows].astype(np.float64)
        a = g.rel_before[rows].astype(np.float64)
        P = size if k is None else np.clip(k - s, 0.0, size)
        inv = _harmonic(s + P) - _harmonic(s)                  # Σ_{p<=P} 1/(s+p)
        lin = P - (s + 1.0) * inv                               # Σ_{p<=P} (p-1)/(s+p)
        pair = np.where(size > 1, (h - 1.0) / np.maximum(size - 1.0, 1.0), 0.0)
        terms = np.where(h > 0, (h / size) * ((a + 1.0) * inv + pair * lin), 0.0)
        return np.bincount(r.qindex[rows], weights=terms, minlength=r.num_queries)

    def reciprocal_first(self) -> np.ndarray:
        """(Q,) E[1/(s+X)], X the position of the first relevant in its tied group.

        In a group of g holding h relevant, P(X = x) = C(g-x, h-1)/C(g, h), x = 1..g-h+1.
        """
        r, g = self.r, self.g
        first = g.start & (g.rels > 0) & (g.rel_before == 0)
        rows = np.flatnonzero(first)
        out = np.zeros(r.num_queries)
        if len(rows) == 0:
            return out
        s = g.before[rows]
        size = g.size[rows]
        h = g.rels[rows]
        width = size - h + 1
        q = np.repeat(r.qindex[rows], width)
        woff = np.concatenate(([0], np.cumsum(width)))
        x = np.arange(int(woff[-1])) - np.repeat(woff[:-1], width) + 1
        S_, G, H = np.repeat(s, width), np.repeat(size, width), np.repeat(h, width)
        prob = libm.exp(_ln_comb(G - x, H - 1) - _ln_comb(G, H))
        return np.bincount(q, weights=prob / (S_ + x), minlength=r.num_queries)

    def hit(self, k: int) -> np.ndarray:
        """(Q,) 1 - P(no relevant in the top k); only a group straddling k is uncertain."""
        r, g = self.r, self.g
        rows = np.flatnonzero(g.start)
        s, size, h = g.before[rows], g.size[rows], g.rels[rows]
        q = r.qindex[rows]
        inside = (s + size <= k) & (h > 0)
        sure = np.bincount(q[inside], minlength=r.num_queries) > 0
        d = np.clip(k - s, 0, size)
        straddle = (s < k) & (s + size > k) & (h > 0)
        none = np.where(straddle & (size - h >= d),
                        libm.exp(_ln_comb(size - h, np.minimum(d, size - h)) - _ln_comb(size, d)),
                        0.0)
        p_hit = np.zeros(r.num_queries)
        p_hit[q[straddle]] = 1.0 - none[straddle]
        return np.where(sure, 1.0, p_hit)

    def dcg(self, pairs: tuple = (), k=None) -> np.ndarray:
        """(Q,) each gain times the mean discount over the positions of its tied group."""
        r = self.r
        gain = gains_of(r, pairs).row
        return segment_sum(np.where(gain != 0, gain * self._mean_discount(k), 0.0), r.offsets)

    def _mean_discount(self, k=None) -> np.ndarray:
        """(n,) mean of 1/log2(p+1) over the positions p of each row's tied group (p <= k)."""
        r, g = self.r, self.g
        top = int(r.rank.max(initial=0)) + 1
        disc = np.zeros(top + 1)
        disc[1:] = np.cumsum(1.0 / libm.log2(np.arange(2, top + 2)))
        lo = g.before
        hi = g.before + g.size
        if k is not None:
            lo, hi = np.minimum(lo, k), np.minimum(hi, k)
        return (disc[hi] - disc[lo]) / g.size


def order_of(r: Ranked, kind: str = "exact") -> Exact:
    """The order object of ``kind``: ``exact`` (the ranking) or ``expected`` (--ties average)."""
    if kind == "exact":
        return Exact(r)
    if kind == "expected":
        return Expected(r)
    raise ValueError(f"unknown order {kind!r}")


def ap_terms(r: Ranked) -> np.ndarray:
    """Precision at each relevant retrieved document (aligned with rel_rows)."""
    if "ap_terms" not in r.memo:
        r.memo["ap_terms"] = r.rel_k / r.rel_rank
    return r.memo["ap_terms"]


def sum_at_rel(r: Ranked, terms: np.ndarray) -> np.ndarray:
    """(Q,) sum of per-relevant-row ``terms`` (aligned with rel_rows), added in rank order."""
    return seg_sum(terms, r.rel_offsets)


def _harmonic(x: np.ndarray) -> np.ndarray:
    """H(x) = Σ_{t<=x} 1/t, for real x >= 0 (digamma(x+1) + Euler's gamma)."""
    from scipy.special import digamma
    return digamma(np.asarray(x, dtype=np.float64) + 1.0) + np.euler_gamma


def _ln_comb(n, k):
    """ln C(n, k) for real arrays."""
    from scipy.special import gammaln
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)
