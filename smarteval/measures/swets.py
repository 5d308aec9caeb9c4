"""Swets' operating characteristic: recall against fallout at every cut-off, and its fitted line.

Swets (Effectiveness of Information Retrieval Methods, 1967; Keen part 3B and Fig. 7)
reads each document cut-off n of a ranking as one setting of a decision criterion:
recall a_n/R (the relevant documents found) against fallout (n - a_n)/(N - R) (the
non-relevant ones let through). Plotted on normal-deviate axes, z(p) = Φ⁻¹(p), the
points lie near a straight line

    z(recall) = a + b·z(fallout),

and the line is summed up by two numbers: its slope s = b and Swets' E = 2a/(1 + b),
the distance between z(recall) and z(fallout) where the line crosses the negative
diagonal z(recall) = -z(fallout). E = 0 is a ranking no better than chance; higher is
better. Keen notes that "an 's' value as well as an 'E' value are strictly required"
(Fig. 7): two curves with the same E but different slopes cross.

The fit is an ordinary least-squares regression of z(recall) on z(fallout) over the
cut-offs whose recall and fallout both lie strictly between 0 and 1 (the others have
no normal deviate). N is needed for fallout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smarteval.columns import Ranked, segment_sum
from smarteval.errors import UsageError
from smarteval.measures.collection import num_docs, unranked
from smarteval.measures.registry import measure
from smarteval.measures.segments import safe_div

OC_AVERAGES = ("macro", "micro")


def _deviates(recall: np.ndarray, fallout: np.ndarray):
    """Normal deviates of the points that have them, and the mask of those points."""
    from scipy.special import ndtri
    use = (recall > 0) & (recall < 1) & (fallout > 0) & (fallout < 1)
    x = np.where(use, ndtri(np.where(use, fallout, 0.5)), 0.0)
    y = np.where(use, ndtri(np.where(use, recall, 0.5)), 0.0)
    return x, y, use


def _least_squares(n, sx, sy, sxx, sxy):
    """Intercept and slope of y = a + b·x from the sums; both 0 where x does not vary."""
    n = np.asarray(n, dtype=np.float64)
    var = n * sxx - sx * sx
    # two points or more, and a spread of x that is not rounding noise
    ok = (n >= 2) & (var > 1e-12 * np.maximum(n * sxx, 1e-300))
    b = np.where(ok, safe_div(n * sxy - sx * sy, np.where(ok, var, 1.0)), 0.0)
    a = np.where(ok, safe_div(sy - b * sx, n), 0.0)
    return a, b, ok


def swets_e(a, b) -> np.ndarray:
    """Swets' E = 2a/(1 + b) of the line z(recall) = a + b·z(fallout); 0 where 1 + b <= 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.where(1 + b > 0, safe_div(2 * a, np.where(1 + b > 0, 1 + b, 1.0)), 0.0)


def _row_points(r: Ranked, name: str):
    """(n,) recall and fallout after every retrieved document of every query."""
    n = num_docs(r, name).astype(np.float64)
    R = r.num_rel.astype(np.float64)
    q = r.qindex
    a = r.rel_so_far.astype(np.float64)
    recall = safe_div(a, R[q])
    nonrel = n[q] - R[q]
    fallout = safe_div(np.minimum(r.rank - a, nonrel), nonrel)
    return recall, fallout


def fit_queries(r: Ranked, name: str = "swets_E"):
    """(Q,) intercept a, slope b and whether a line was fitted, for every query at once."""
    recall, fallout = _row_points(r, name)
    x, y, use = _deviates(recall, fallout)
    off = r.offsets
    return _least_squares(segment_sum(use, off), segment_sum(x, off), segment_sum(y, off),
                          segment_sum(x * x, off), segment_sum(x * y, off))


@dataclass(frozen=True)
class Line:
    """A line z(recall) = a + b·z(fallout) fitted to ``points`` points (a = b = 0 when none)."""

    a: float
    b: float
    points: int

    @property
    def slope(self) -> float:
        return self.b

    @property
    def E(self) -> float:
        return float(swets_e(self.a, self.b))


def fit_line(fallout, recall) -> Line:
    """Least-squares line through the points of one curve on normal-deviate axes."""
    x, y, use = _deviates(np.asarray(recall, dtype=np.float64),
                          np.asarray(fallout, dtype=np.float64))
    x, y = x[use], y[use]
    a, b, ok = _least_squares(len(x), x.sum(), y.sum(), (x * x).sum(), (x * y).sum())
    return Line(float(a), float(b), int(len(x)) if ok else 0)


@dataclass(frozen=True, eq=False)
class OperatingCharacteristic:
    """Recall and fallout averaged over queries after n = 1..depth documents."""

    average: str
    fallout: np.ndarray    # (depth,)
    recall: np.ndarray     # (depth,)
    queries: int

    @property
    def line(self) -> Line:
        return fit_line(self.fallout, self.recall)


def operating_characteristic(r: Ranked, average: str = "macro") -> OperatingCharacteristic:
    """Swets' curve of one run: recall and fallout after n documents, n = 1 .. the longest list.

    Ranks past the end of a short list count as non-relevant, as fallout.k does, and n
    stops at N. ``macro`` averages each query's recall a_n/R and fallout
    (n - a_n)/(N - R), a query without relevant documents adding recall 0; ``micro``
    pools the counts, Σa_n/ΣR and Σ(n - a_n)/Σ(N - R) (Keen Fig. 30).
    """
    if average not in OC_AVERAGES:
        raise UsageError(f"the operating characteristic averages by {' or '.join(OC_AVERAGES)}, "
                         f"not {average!r}")
    # N at least every query's retrieved and unretrieved relevant documents, as every
    # measure and curve of N checks it (a smaller N drew an empty curve)
    n_docs = unranked(r, "the operating characteristic")[0].astype(np.float64)
    Q = r.num_queries
    depth = int(min(r.num_ret.max(initial=0), n_docs.min())) if Q else 0
    R = r.num_rel.astype(np.float64)
    nonrel = n_docs - R
    rows = np.flatnonzero(r.is_rel & (r.rank <= depth))
    q = r.qindex[rows]
    ranks = r.rank[rows]
    n = np.arange(1, depth + 1, dtype=np.float64)

    def found(weight):           # Σ_q weight_q · a_q(n) for n = 1..depth
        steps = np.bincount(ranks, weights=weight[q], minlength=depth + 1)[:depth + 1]
        return np.cumsum(steps)[1:]

    if average == "micro":
        a = found(np.ones(Q))
        recall = a / R.sum() if R.sum() > 0 else np.zeros(depth)
        den = nonrel.sum()
        fallout = (n * Q - a) / den if den > 0 else np.zeros(depth)
    else:
        inv_r = safe_div(1.0, R)
        inv_nr = safe_div(1.0, nonrel)
        recall = found(inv_r) / max(Q, 1)
        fallout = (n * inv_nr.sum() - found(inv_nr)) / max(Q, 1)
    return OperatingCharacteristic(average=average, fallout=np.minimum(fallout, 1.0),
                                   recall=recall, queries=Q)


# --------------------------------------------------------------------------- measures

@measure("swets_E", origin="smart", needs_num_docs=True)
def swets_E(r: Ranked) -> np.ndarray:
    """Swets' E = 2a/(1+b) of the line z(recall) = a + b·z(fallout) fitted over the run's cut-offs.

    z is the normal deviate Φ⁻¹. Each retrieved rank n is one point: recall a_n/R and
    fallout (n - a_n)/(N - R); the line is the least-squares regression of z(recall) on
    z(fallout) over the points with both strictly between 0 and 1 (before the first
    relevant document recall is 0, after the last it is 1: those points have no
    deviate). E is the separation z(recall) - z(fallout) where the line crosses the
    negative diagonal: 0 for a ranking no better than chance, higher is better. Read it
    with swets_slope (Keen Fig. 7: two curves can share E and still cross). Needs N.
    A query with fewer than two such points (e.g. one relevant document), or whose
    fitted slope is -1 or less, scores 0. No micro average; no --ties average.
    ``smarteval plot --kind oc`` draws the averaged curve with its fitted line.
    """
    a, b, _ = fit_queries(r, "swets_E")
    return swets_e(a, b)


@measure("swets_slope", origin="smart", needs_num_docs=True)
def swets_slope(r: Ranked) -> np.ndarray:
    """Slope s = b of the line z(recall) = a + b·z(fallout) fitted over the run's cut-offs
    (Swets' s).

    The same least-squares line as swets_E. s = 1 is the equal-variance case of signal
    detection theory, where E alone describes the curve; s < 1 means the ranking does
    relatively better at low fallout than at high. Needs N. A query with fewer than two
    usable points scores 0. No micro average; no --ties average.
    """
    _, b, _ = fit_queries(r, "swets_slope")
    return b
