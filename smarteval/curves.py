"""Recall-level precision curves (Keen's Semi-, Quasi- and Pseudo-Cranfield), averaged over queries.

Pure functions of a :class:`~smarteval.columns.Ranked`, all queries at once. A query's
*points* are (i/R, precision) after its i-th relevant document, i = 1..R. Relevant
documents the run did not retrieve get ranks from ``--unranked`` when N is known
(``expected``: the j-th of m at its mean rank L + j(N-L+1)/(m+1) under a uniform random
placement among L+1..N; ``worst``: N-m+j) and precision 0 otherwise, as trec_eval.

* ``semi`` — the best precision at any recall at or above the level (Keen part 4B: a line
  of constant precision to the highest later peak). Recall is compared with the level in
  exact rational arithmetic (i/R >= p/q as i·q >= p·R); trec_eval's iprec_at_recall
  compares rounded counts and so differs only where its rounding does.
* ``quasi`` — one point chosen on each vertical step (``--step``), the points joined by
  straight lines. A step at recall i/R runs from the i-th relevant document (rank s) to
  the document before the next relevant one (rank e; the last step ends at N when N is
  known, else at the end of the list): highest i/s, lowest i/e, middle i/(s+⌊(e-s)/2⌋)
  (the earlier of the two middle documents when there are two), mean the average of
  i/t for t = s..e, ends (i/s + i/e)/2. A placed rank may be fractional; the step's
  documents are then s, s+1, ... up to e. Below the first point (recall 1/R) the curve is extrapolated by
  ``--left`` (Keen's methods 1-5): ``none`` leaves the query out, ``zero`` draws a line
  to precision 0 at recall 0, ``one`` to precision 1, ``hybrid`` to 1 when the first
  document is relevant (the first relevant one, retrieved or placed, is at rank 1) and 0
  when it is not, ``constant`` holds the first point's
  precision (Keen's recommendation, the default).
* ``pseudo`` — recall and precision averaged over queries at every document cut-off
  n = 1..D (D = N when N is known, else the longest list), the averaged points joined by
  straight lines and read at the levels, with the number of documents examined there.
  Ranks past a list's end hold non-relevant documents, or the placed unretrieved
  relevant ones when N is known. A level above the last averaged recall is not reached.

Averaging (Rocchio): ``macro`` the mean over queries, ``median`` their median, ``micro``
pooled counts — for pseudo Σa/ΣR and Σa/Σn at each cut-off; for semi Σi/Σr at each
query's best cut-off at or above the level (the earliest when several give the best
precision; a query whose best is past its list adds its whole list and nothing
relevant; a query without relevant documents adds nothing). Quasi interpolates between
cut-offs and has no micro average.

Per level the curve counts the queries averaged from real points, those averaged by
extrapolation (left of the first point, past the last retrieved relevant document, or a
query without relevant documents, which scores 0) and those left out (Keen Fig. 18).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from smarteval.columns import Ranked
from smarteval.errors import UsageError
from smarteval.measures.segments import positions, seg_suffix_max

LEVELS = tuple(i / 10 for i in range(1, 11))
METHODS = ("semi", "quasi", "pseudo")
STEPS = ("highest", "lowest", "middle", "mean", "ends")
LEFTS = ("none", "zero", "one", "hybrid", "constant")
AVERAGES = ("macro", "micro", "median")


@dataclass(frozen=True, eq=False)
class Curve:
    """An averaged precision curve of one run at the recall levels."""

    method: str
    step: str
    left: str
    average: str
    levels: np.ndarray          # (K,)
    precision: np.ndarray       # (K,) averaged precision; NaN where nothing is averaged
    real: np.ndarray            # (K,) queries averaged from real points
    extrapolated: np.ndarray    # (K,) queries averaged by extrapolation
    excluded: np.ndarray        # (K,) queries left out
    examined: np.ndarray | None = None    # (K,) pseudo: documents examined at each level
    recall: np.ndarray | None = None      # (K,) pseudo: the recall actually read (= level)
    per_query: np.ndarray | None = None   # (Q, K) semi and quasi, NaN where left out


def parse_levels(text: str | Sequence[float] | None) -> tuple[float, ...]:
    """Recall levels from ``--levels``: ``n`` (n equal steps 1/n .. 1) or a list ``0.1,0.5,1``."""
    if text is None:
        return LEVELS
    if not isinstance(text, str):
        vals = [float(x) for x in text]
    else:
        items = [x for x in text.replace(" ", "").split(",") if x]
        try:
            if len(items) == 1 and items[0].isdigit():
                n = int(items[0])
                if n <= 0:
                    raise ValueError
                return tuple(i / n for i in range(1, n + 1))
            vals = [float(x) for x in items]
        except ValueError:
            raise UsageError(f"--levels takes a count (10) or recall levels between 0 and 1 "
                             f"(0.1,0.5,1), not {text!r}") from None
    if not vals or any(not 0 <= v <= 1 for v in vals):
        raise UsageError(f"--levels takes recall levels between 0 and 1, not {text!r}")
    return tuple(sorted(set(vals)))


def _fractions(levels) -> tuple[np.ndarray, np.ndarray]:
    fr = [Fraction(repr(float(x))).limit_denominator(10 ** 9) for x in levels]
    return (np.array([f.numerator for f in fr], dtype=np.int64),
            np.array([f.denominator for f in fr], dtype=np.int64))


def _known_n(r: Ranked) -> bool:
    return r.num_docs is not None or r.num_docs_q is not None


@dataclass(frozen=True)
class Points:
    """Every query's relevant documents in order: point i of query q at ``offsets[q] + i - 1``."""

    offsets: np.ndarray   # (Q+1,)
    rank: np.ndarray      # (P,) rank (float: placed ranks may be fractional; inf unreachable)
    real: np.ndarray      # (P,) retrieved by the run
    i: np.ndarray         # (P,) 1-based index among the query's relevant documents
    end: np.ndarray       # (P,) last rank of the vertical step that starts at the point


def relevant_points(r: Ranked) -> Points:
    """The points of every query, unretrieved relevant documents placed as --unranked says."""
    from smarteval.measures.smart import unranked
    R = r.num_rel.astype(np.int64)
    a = np.minimum(r.num_rel_ret, R).astype(np.int64)
    poff = np.concatenate(([0], np.cumsum(R))).astype(np.int64)
    P = int(poff[-1])
    rank = np.full(P, np.inf)
    real = np.zeros(P, dtype=bool)
    rows = np.flatnonzero(r.is_rel)
    q = r.qindex[rows]
    i = r.rel_so_far[rows]
    ok = i <= R[q]
    at = poff[q[ok]] + i[ok] - 1
    rank[at] = r.rank[rows[ok]]
    real[at] = True
    m = R - a
    if _known_n(r):
        n, L, _ = unranked(r, "the curve")
        moff = np.concatenate(([0], np.cumsum(m))).astype(np.int64)
        jj = positions(moff).astype(np.float64)
        qq = np.repeat(np.arange(r.num_queries), m)
        if r.settings.unranked == "worst":
            placed = (n - m)[qq] + jj
        else:
            placed = L[qq] + jj * (n - L + 1.0)[qq] / (m + 1.0)[qq]
        rank[poff[qq] + a[qq] + jj.astype(np.int64) - 1] = placed
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
    return Points(offsets=poff, rank=rank, real=real, i=idx, end=end)


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


def precision_curve(r: Ranked, levels: Sequence[float] = LEVELS, *, method: str = "quasi",
                    step: str = "highest", left: str | None = None,
                    average: str = "macro") -> Curve:
    """The averaged precision of one run at each recall level, by Keen's ``method``."""
    if method not in METHODS:
        raise UsageError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    if average not in AVERAGES:
        raise UsageError(f"--average must be one of {', '.join(AVERAGES)}, not {average!r}")
    if method != "quasi" and left is not None:
        raise UsageError(f"--left extrapolates the quasi curve; the {method} curve needs none "
                         "(semi holds the best later precision, pseudo averages cut-offs)")
    if method != "quasi" and step != "highest":
        raise UsageError(f"--step chooses the point of each step of the quasi curve; "
                         f"the {method} curve takes no --step")
    left = left or "constant"
    if left not in LEFTS:
        raise UsageError(f"--left must be one of {', '.join(LEFTS)}, not {left!r}")
    levels = np.asarray(parse_levels(list(levels)), dtype=np.float64)
    if method == "pseudo":
        return _pseudo(r, levels, average)
    if method == "quasi" and average == "micro":
        raise UsageError("the quasi curve interpolates between cut-offs, so it has no pooled "
                         "counts to micro-average: use --method semi or pseudo with micro")
    p = relevant_points(r)
    if method == "semi":
        vals, klass, micro = _semi(r, p, levels)
    else:
        vals, klass = _quasi(r, p, levels, step, left)
        micro = None
    return _average(r, levels, method, step if method == "quasi" else "highest",
                    left if method == "quasi" else "none", average, vals, klass, micro)


# classes of a (query, level) cell
REAL, EXTRA, OUT = 0, 1, 2


def _cells(r: Ranked, levels: np.ndarray):
    R = r.num_rel.astype(np.int64)[:, None]
    pn, qd = _fractions(levels)
    return R, pn[None, :], qd[None, :]


def _semi(r: Ranked, p: Points, levels: np.ndarray):
    R, pn, qd = _cells(r, levels)
    a = np.minimum(r.num_rel_ret, r.num_rel).astype(np.int64)[:, None]
    hp = step_precision(p, "highest")
    best = seg_suffix_max(hp, p.offsets)
    i0 = np.maximum(-((-pn * R) // qd), 1)            # first i with i/R >= level
    has = R > 0
    at = np.where(has, p.offsets[:-1][:, None] + np.minimum(i0, np.maximum(R, 1)) - 1, 0)
    vals = np.where(has, best[np.minimum(at, max(len(best) - 1, 0))] if len(best) else 0.0,
                    0.0)
    klass = np.where(has & (i0 <= a), REAL, EXTRA)
    # the cut-off giving the best: the first point at or after i0 holding its suffix max
    idx = np.arange(len(hp))
    record = hp == best
    nxt = np.minimum.accumulate(np.where(record, idx, len(hp))[::-1])[::-1] if len(hp) \
        else idx
    j = nxt[np.minimum(at, max(len(hp) - 1, 0))] if len(hp) else np.zeros_like(at)
    found = np.where(has, p.i[j] if len(hp) else 0, 0).astype(np.float64)
    seen = np.where(has, p.rank[j] if len(hp) else 0.0, 0.0)
    past = has & ~np.isfinite(seen)
    L = np.broadcast_to(r.num_ret.astype(np.float64)[:, None], found.shape)
    found = np.where(past, 0.0, found)
    seen = np.where(past, L, seen)
    return vals, klass, (found, seen)


def _quasi(r: Ranked, p: Points, levels: np.ndarray, step: str, left: str):
    R, pn, qd = _cells(r, levels)
    pt = step_precision(p, step)
    has = R > 0
    lo = (pn * R) // qd                                # i/R <= level < (i+1)/R
    exact = lo * qd == pn * R
    base = p.offsets[:-1][:, None]
    last = max(len(pt) - 1, 0)

    def point(i):                                      # chosen precision of point i (1-based)
        if not len(pt):
            return np.zeros(np.broadcast(i, base).shape)
        return pt[np.clip(base + i - 1, 0, last)]

    lo_c = np.clip(lo, 1, np.maximum(R, 1))
    hi_c = np.clip(lo + 1, 1, np.maximum(R, 1))
    w = (pn * R - lo * qd) / qd                        # level·R - lo, in [0, 1)
    inner = point(lo_c) + (point(hi_c) - point(lo_c)) * w
    vals = np.where(exact & (lo >= 1), point(lo_c), inner)
    # left of the first point: a line from (0, y0) to (1/R, first point)
    first = point(np.ones_like(lo))
    if left == "zero":
        y0 = np.zeros_like(first)
    elif left == "one":
        y0 = np.ones_like(first)
    elif left == "hybrid":
        first_rank = p.rank[np.minimum(p.offsets[:-1], last)] if len(pt) else \
            np.zeros(r.num_queries)
        y0 = np.broadcast_to(np.where(first_rank == 1, 1.0, 0.0)[:, None], first.shape)
    else:
        y0 = first
    xR = pn * R / qd                                   # level·R in (0, 1) left of the point
    is_left = lo == 0
    vals = np.where(is_left, y0 + (first - y0) * xR, vals)
    vals = np.where(has, vals, 0.0)
    real_at = np.zeros(np.broadcast(lo, base).shape, dtype=bool)
    if len(pt):
        real_lo = p.real[np.clip(base + lo_c - 1, 0, last)]
        real_hi = p.real[np.clip(base + hi_c - 1, 0, last)]
        real_at = real_lo & ((exact & (lo >= 1)) | real_hi | (lo >= R))
    klass = np.where(has & ~is_left & real_at, REAL, EXTRA)
    if left == "none":
        klass = np.where(is_left | ~has, OUT, klass)
    return vals, klass


def _average(r, levels, method, step, left, average, vals, klass, micro) -> Curve:
    use = klass != OUT
    masked = np.where(use, vals, np.nan)
    n_use = use.sum(axis=0)
    if average == "macro":
        with np.errstate(invalid="ignore"):
            prec = np.where(n_use > 0, np.nansum(masked, axis=0) / np.maximum(n_use, 1), np.nan)
    elif average == "median":
        prec = np.full(len(levels), np.nan)
        for k in np.flatnonzero(n_use > 0):     # a loop over levels, not queries
            prec[k] = np.median(masked[use[:, k], k])
    else:
        found, seen = micro
        num = np.where(use, found, 0.0).sum(axis=0)
        den = np.where(use, seen, 0.0).sum(axis=0)
        prec = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        prec = np.where(n_use > 0, prec, np.nan)
    return Curve(method=method, step=step, left=left, average=average, levels=levels,
                 precision=prec, real=(klass == REAL).sum(axis=0),
                 extrapolated=(klass == EXTRA).sum(axis=0), excluded=(klass == OUT).sum(axis=0),
                 per_query=masked)


# --------------------------------------------------------------------------- pseudo

def relevant_in_top(r: Ranked, n: np.ndarray) -> np.ndarray:
    """(Q, K) relevant documents among the first n[k] of each query (n may be fractional-free ints).

    Retrieved relevant documents count from their rank on; past the end of a list, when
    N is known, the unretrieved ones count as --unranked places them: m(n-L)/(N-L) in
    expectation, or one more at each of the last m ranks (worst).
    """
    from smarteval.measures.smart import unranked
    n = np.asarray(n, dtype=np.int64)
    L = r.num_ret.astype(np.int64)
    start = r.offsets[:-1]
    p = r.cum_rel
    a = (p[start[:, None] + np.minimum(n[None, :], L[:, None])] - p[start][:, None])
    a = a.astype(np.float64)
    if _known_n(r):
        N, L, m = unranked(r, "the pseudo curve")
        N, L, m = N[:, None], L[:, None], m[:, None].astype(np.float64)
        if r.settings.unranked == "worst":
            a = a + np.clip(n[None, :] - (N - m), 0, m)
        else:
            span = np.maximum(N - L, 1)
            a = a + m * np.clip(n[None, :] - L, 0, N - L) / span
    return a


def _pseudo_point(r: Ranked, n: np.ndarray, average: str):
    """Averaged (recall, precision) after n[k] documents."""
    a = relevant_in_top(r, n)
    R = r.num_rel.astype(np.float64)
    nn = np.asarray(n, dtype=np.float64)
    if r.num_queries == 0:
        z = np.zeros(len(nn))
        return z, z
    if average == "median":
        rec = np.median(np.where(R[:, None] > 0, a / np.where(R > 0, R, 1.0)[:, None], 0.0),
                        axis=0)
        return rec, np.median(a, axis=0) / nn
    prec = a.mean(axis=0) / nn
    if average == "micro":
        tot = R.sum()
        return (a.sum(axis=0) / tot if tot > 0 else np.zeros(len(nn))), prec
    rec = np.where(R[:, None] > 0, a / np.where(R > 0, R, 1.0)[:, None], 0.0).mean(axis=0)
    return rec, prec


def _pseudo(r: Ranked, levels: np.ndarray, average: str) -> Curve:
    """Read the averaged cut-off curve at each level: find the first cut-off reaching it.

    The averaged recall never falls as n grows (for the median too: each query's recall
    is non-decreasing), so the first cut-off is found by bisection over n = 1..D, for all
    levels at once, without a queries x cut-offs table.
    """
    from smarteval.measures.smart import num_docs
    Q = r.num_queries
    if _known_n(r):
        depth = int(num_docs(r, "the pseudo curve").max(initial=0))
    else:
        depth = int(r.num_ret.max(initial=0))
    K = len(levels)
    target = levels - 1e-12           # averaged recall is a float sum: reached within 1e-12
    out_p = np.full(K, np.nan)
    out_n = np.full(K, np.nan)
    out_r = np.full(K, np.nan)
    if depth == 0:
        return Curve(method="pseudo", step="highest", left="none", average=average,
                     levels=levels, precision=out_p, real=np.zeros(K, dtype=np.int64),
                     extrapolated=np.zeros(K, dtype=np.int64),
                     excluded=np.full(K, Q, dtype=np.int64), examined=out_n, recall=out_r)
    last_rec, _ = _pseudo_point(r, np.array([depth]), average)
    reached = last_rec[0] >= target
    lo = np.ones(K, dtype=np.int64)
    hi = np.full(K, depth, dtype=np.int64)
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        rec_mid, _ = _pseudo_point(r, mid, average)
        up = rec_mid >= target
        hi = np.where(up & (lo < hi), mid, hi)
        lo = np.where(~up & (lo < hi), mid + 1, lo)
    n1 = lo                                          # first cut-off reaching the level
    rec1, prec1 = _pseudo_point(r, n1, average)
    rec0, prec0 = _pseudo_point(r, np.maximum(n1 - 1, 1), average)
    first = n1 == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip((levels - rec0) / (rec1 - rec0), 0.0, 1.0)
    t = np.where(first | (np.abs(rec1 - levels) <= 1e-12) | ~np.isfinite(t), 1.0, t)
    p = np.where(first, prec1, prec0 + t * (prec1 - prec0))
    n = np.where(first, 1.0, (n1 - 1) + t)
    out_p[reached] = p[reached]
    out_n[reached] = n[reached]
    out_r[reached] = np.where(first, rec1, levels)[reached]
    cut = np.ceil(np.where(reached, out_n, 0)).astype(np.int64)
    real = np.where(reached, (r.num_ret[:, None] >= cut[None, :]).sum(axis=0), 0)
    extra = np.where(reached, Q - real, 0)
    excluded = np.where(reached, 0, Q)
    return Curve(method="pseudo", step="highest", left="none", average=average,
                 levels=levels, precision=out_p, real=real, extrapolated=extra,
                 excluded=excluded, examined=out_n, recall=out_r)


def curves(ranked: Sequence[Ranked], levels: Sequence[float] = LEVELS, **options) -> list[Curve]:
    """One curve per run, with the same options."""
    return [precision_curve(r, levels, **options) for r in ranked]
