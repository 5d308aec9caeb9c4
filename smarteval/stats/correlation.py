"""Rank correlation: of two score lists (Kendall, Spearman, Pearson, tau-AP), of two runs'
document orderings query by query, and of the leaderboards two measures give."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from smarteval.stats.merit import align

#: Scores of items (systems, documents): a list or a 1-d array.
Scores = Sequence[float] | np.ndarray

#: Pairs of documents handled at once by the vectorised rank correlation (bounds memory).
_PAIR_CHUNK = 4_000_000


# --------------------------------------------------------------------------- rank correlation

def kendall_tau(x: Scores, y: Scores) -> float:
    """Kendall's tau-b between two score lists (scipy.stats.kendalltau)."""
    from scipy import stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.kendalltau(x, y).statistic) if len(x) >= 2 else math.nan


def spearman(x: Scores, y: Scores) -> float:
    """Spearman's rho (scipy.stats.spearmanr)."""
    from scipy import stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.spearmanr(x, y).statistic) if len(x) >= 2 else math.nan


def pearson(x: Scores, y: Scores) -> float:
    """Pearson's r (scipy.stats.pearsonr); nan when either list is constant."""
    from scipy import stats
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    if len(xa) < 2 or np.all(xa == xa[0]) or np.all(ya == ya[0]):
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.pearsonr(xa, ya).statistic)


def tau_ap(reference: Scores, other: Scores) -> float:
    """tau-AP (Yilmaz, Aslam and Robertson) of ``other``'s ordering against ``reference``'s.

    Items are taken in ``other``'s order (highest score first, ties by position); the
    item at position i >= 2 scores the fraction of the i-1 items above it that the
    reference also puts above it (reference ties count one half);
    tau_AP = 2 * mean(those fractions) - 1. Unlike Kendall's tau it weighs swaps near
    the top more, and it is not symmetric.
    """
    ref = np.asarray(reference, dtype=np.float64)
    oth = np.asarray(other, dtype=np.float64)
    n = len(ref)
    if n < 2:
        return math.nan
    order = np.argsort(-oth, kind="stable")
    r = ref[order]
    i, j = np.triu_indices(n, 1)                      # i above j in other's order
    right = (r[i] > r[j]) + 0.5 * (r[i] == r[j])
    c = np.bincount(j, weights=right, minlength=n)
    return float(2.0 / (n - 1) * np.sum(c[1:] / np.arange(1, n)) - 1.0)


@dataclass(frozen=True)
class RankCorrelation:
    """Per-query correlation of two runs' document orderings (documents both retrieved).

    ``common`` is the number of shared documents; queries with fewer than two give nan.
    ``pearson`` is computed on the two runs' original ranks, ``spearman`` on the ranks
    within the shared documents; ``tau_ap`` takes the baseline as the reference.
    """

    qids: np.ndarray
    common: np.ndarray
    kendall: np.ndarray
    spearman: np.ndarray
    pearson: np.ndarray
    tau_ap: np.ndarray

    def means(self) -> dict[str, float]:
        """Averages over the queries with at least two shared documents."""
        ok = self.common >= 2
        out = {"queries": int(np.count_nonzero(ok)),
               "common": float(np.mean(self.common)) if len(self.common) else math.nan}
        for name in ("kendall", "spearman", "pearson", "tau_ap"):
            vals = getattr(self, name)[ok]
            out[name] = float(np.mean(vals)) if len(vals) else math.nan
        return out


def rank_correlation(base, run) -> RankCorrelation:
    """Correlate the orderings of two :class:`~smarteval.columns.Ranked` query by query.

    Queries are paired by id; within a query only documents both runs retrieved count.
    All queries are handled at once: the shared documents are found by one join, and
    the within-query pairs of documents are generated in chunks of segments.
    """
    qids, bq, rq = align(base.qids, run.qids)
    nq = len(qids)
    # query number in the shared list (-1: the query is not shared) for every row
    bmap = np.full(base.num_queries, -1, dtype=np.int64)
    bmap[bq] = np.arange(nq)
    rmap = np.full(run.num_queries, -1, dtype=np.int64)
    rmap[rq] = np.arange(nq)
    b_q = bmap[base.qindex]
    r_q = rmap[run.qindex]
    _, codes = np.unique(np.concatenate((base.docno, run.docno)), return_inverse=True)
    codes = codes.reshape(-1).astype(np.int64)
    width = int(codes.max()) + 1 if len(codes) else 1
    bkey = np.where(b_q >= 0, b_q * width + codes[: len(base.docno)], -1)
    rkey = np.where(r_q >= 0, r_q * width + codes[len(base.docno):], -1)
    bkey, bfirst = _first(bkey)
    rkey, rfirst = _first(rkey)
    shared, bi, ri = np.intersect1d(bkey, rkey, assume_unique=True, return_indices=True)
    keep = shared >= 0
    bi, ri, shared = bi[keep], ri[keep], shared[keep]
    q = shared // width
    a = base.rank[bfirst[bi]].astype(np.float64)   # baseline rank
    b = run.rank[rfirst[ri]].astype(np.float64)    # run rank
    # rows in run order within each query; tau-AP walks down the run's list
    order = np.lexsort((b, q))
    q, a, b = q[order], a[order], b[order]
    counts = np.bincount(q, minlength=nq).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    pos = np.arange(len(q)) - offsets[q]           # 0-based position in the run's order
    # baseline rank among the shared documents, 1-based (for Spearman)
    a_order = np.lexsort((a, q))
    ra = np.empty(len(q), dtype=np.float64)
    ra[a_order] = np.arange(len(q)) - offsets[q[a_order]] + 1
    rb = pos + 1.0

    nan = np.full(nq, math.nan)
    disc = np.zeros(nq)
    c = np.zeros(len(q))         # tau-AP's C(i): items above that the baseline agrees with
    for lo, hi in _chunks(counts):
        i, j = _segment_pairs(offsets, lo, hi)
        right = a[i] < a[j]
        disc += np.bincount(q[i], weights=~right, minlength=nq)
        c += np.bincount(j, weights=right, minlength=len(q))
    n = counts.astype(np.float64)
    pairs = n * (n - 1) / 2
    ok = counts >= 2
    kendall = np.where(ok, 1.0 - 2.0 * disc / np.where(ok, pairs, 1.0), nan)
    frac = np.where(pos > 0, c / np.maximum(pos, 1), 0.0)
    tap_sum = np.bincount(q, weights=frac, minlength=nq)
    tap = np.where(ok, 2.0 * tap_sum / np.where(ok, n - 1, 1.0) - 1.0, nan)
    return RankCorrelation(qids=qids, common=counts, kendall=kendall,
                           spearman=_segment_pearson(ra, rb, q, nq, ok),
                           pearson=_segment_pearson(a, b, q, nq, ok), tau_ap=tap)


def _first(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique keys and the row of each one's first occurrence (a document listed twice counts
    once)."""
    uniq, idx = np.unique(key, return_index=True)
    return uniq, idx


def _chunks(counts: np.ndarray):
    """Ranges of segments whose pairs fit in one chunk (a segment larger than a chunk is alone)."""
    pairs = counts * (counts - 1) // 2
    cum = np.concatenate(([0], np.cumsum(pairs)))
    start, n = 0, len(counts)
    while start < n:
        end = int(np.searchsorted(cum, cum[start] + _PAIR_CHUNK, side="right")) - 1
        end = min(n, max(start + 1, end))
        yield start, end
        start = end


def _segment_pairs(offsets: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """All (i, j), i < j, with both rows in the same segment, for segments lo..hi-1.

    By example: offsets=[0,3,5], lo=0, hi=2  ->  i=[0,0,1,3], j=[1,2,2,4]
    """
    start, end = int(offsets[lo]), int(offsets[hi])
    rows = np.arange(start, end)
    seg_end = np.repeat(offsets[lo + 1: hi + 1], np.diff(offsets[lo: hi + 1]))
    after = seg_end - rows - 1
    total = int(after.sum())
    i = np.repeat(rows, after)
    first = np.cumsum(after) - after
    j = i + 1 + (np.arange(total) - np.repeat(first, after))
    return i, j


def _segment_pearson(x: np.ndarray, y: np.ndarray, q: np.ndarray, nq: int,
                     ok: np.ndarray) -> np.ndarray:
    """Pearson's r of x and y within each segment (nan where fewer than two rows)."""
    n = np.bincount(q, minlength=nq).astype(np.float64)
    safe = np.where(n > 0, n, 1.0)
    mx = np.bincount(q, weights=x, minlength=nq) / safe
    my = np.bincount(q, weights=y, minlength=nq) / safe
    dx, dy = x - mx[q], y - my[q]
    sxy = np.bincount(q, weights=dx * dy, minlength=nq)
    sxx = np.bincount(q, weights=dx * dx, minlength=nq)
    syy = np.bincount(q, weights=dy * dy, minlength=nq)
    den = np.sqrt(sxx * syy)
    good = ok & (den > 0)
    return np.where(good, sxy / np.where(good, den, 1.0), math.nan)


@dataclass(frozen=True)
class LeaderboardCorrelation:
    """Correlation of the system orderings given by two measures."""

    measure_a: str
    measure_b: str
    systems: int
    kendall: float
    spearman: float
    pearson: float
    tau_ap: float
    swaps: int = 0             # discordant pairs of systems


def leaderboard_correlation(a_name: str, a: Scores, b_name: str,
                            b: Scores) -> LeaderboardCorrelation:
    """How much the choice between two measures changes the order of the systems.

    ``a`` and ``b`` hold each system's summary value under the two measures; tau-AP
    takes measure A's ordering as the reference.
    """
    x, y = np.asarray(a, float), np.asarray(b, float)
    i, j = np.triu_indices(len(x), 1)
    swaps = int(np.count_nonzero(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) < 0))
    return LeaderboardCorrelation(a_name, b_name, len(x), kendall_tau(x, y), spearman(x, y),
                                  pearson(x, y), tau_ap(x, y), swaps)
