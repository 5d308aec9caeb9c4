"""Statistics comparing runs: per-query merit, significance tests, selection of the best run, rank correlation.

Everything here works on aligned per-query arrays (or on :class:`~smarteval.columns.Ranked`
for the rank correlation of document orderings) and never sees files, click or printing.
scipy is imported inside the functions that need it: ``smarteval --help`` must stay fast.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from smarteval.errors import UsageError

TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")

#: Bechhofer's probability of correct selection is computed exactly up to this many runs.
PCS_EXACT_MAX_RUNS = 5

#: Pairs of documents handled at once by the vectorised rank correlation (bounds memory).
_PAIR_CHUNK = 4_000_000


# --------------------------------------------------------------------------- alignment

def align(base_qids: np.ndarray, run_qids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pair two runs' queries by id: the shared ids (sorted) and their row in each run.

    By example: base ['1','2','3'], run ['3','1','4']  ->  ids ['1','3'], base rows [0,2], run rows [1,0]
    """
    base_qids = np.asarray(base_qids).astype(str)
    run_qids = np.asarray(run_qids).astype(str)
    ids, bi, ri = np.intersect1d(base_qids, run_qids, assume_unique=False, return_indices=True)
    return ids, bi, ri


# --------------------------------------------------------------------------- Keen's merit

@dataclass(frozen=True)
class Merit:
    """Numbers of queries better, worse and equal for a run against the baseline (Keen Fig. 35).

    Keen's option I is the run, option II the baseline: ``better`` counts the queries
    where the run beats the baseline.
    """

    better: int
    worse: int
    equal: int

    @property
    def n(self) -> int:
        return self.better + self.worse + self.equal

    def percentages(self) -> dict[str, dict[str, float | None]]:
        """The rows of Keen's Fig. 35 as percentages, each with its superiority percentage.

        Fig. 35's 6 better, 4 worse and 2 equal give: ignoring equal cases 60/40 (20),
        including equal cases 50/33/17 (17), adding equal cases to both 67/50 (17).
        A row whose denominator is zero gives None.
        """
        b, w, e, n = self.better, self.worse, self.equal, self.n

        def pct(x: int, d: int) -> float | None:
            return 100.0 * x / d if d else None

        def sup(x: float | None, y: float | None) -> float | None:
            return None if x is None or y is None else x - y

        rows = {}
        ib, iw = pct(b, b + w), pct(w, b + w)
        rows["ignoring_equal"] = {"better": ib, "worse": iw, "equal": None,
                                  "superiority": sup(ib, iw)}
        nb, nw, ne = pct(b, n), pct(w, n), pct(e, n)
        rows["including_equal"] = {"better": nb, "worse": nw, "equal": ne,
                                   "superiority": sup(nb, nw)}
        ab, aw = pct(b + e, n), pct(w + e, n)
        rows["adding_equal"] = {"better": ab, "worse": aw, "equal": None,
                                "superiority": sup(ab, aw)}
        return rows

    @property
    def superiority(self) -> float | None:
        """Keen's superiority percentage in the form SMART mostly used (ignoring equal cases)."""
        return self.percentages()["ignoring_equal"]["superiority"]


def merit(base: np.ndarray, run: np.ndarray, tolerance: float = 0.0) -> Merit:
    """Count the queries where ``run`` is better than, worse than or equal to ``base``.

    Values whose difference is at most ``tolerance`` count as equal.
    """
    d = _diff(base, run)
    better = int(np.count_nonzero(d > tolerance))
    worse = int(np.count_nonzero(d < -tolerance))
    return Merit(better, worse, len(d) - better - worse)


@dataclass(frozen=True)
class Magnitudes:
    """Keen's Fig. 36 data: the per-query differences on each side, largest first.

    ``better`` holds run - baseline for the queries the run wins, ``worse`` holds
    baseline - run for the queries the baseline wins; ``*_qids`` name the queries.
    """

    better: np.ndarray
    worse: np.ndarray
    better_qids: np.ndarray
    worse_qids: np.ndarray
    mean_base: float
    mean_run: float


def magnitudes(base: np.ndarray, run: np.ndarray, qids: np.ndarray | None = None,
               tolerance: float = 0.0) -> Magnitudes:
    """The magnitude-difference data of Keen's Fig. 36 (differences sorted within each side)."""
    d = _diff(base, run)
    if qids is None:
        qids = np.arange(len(d)).astype(str)
    qids = np.asarray(qids).astype(str)
    up = np.flatnonzero(d > tolerance)
    down = np.flatnonzero(d < -tolerance)
    # stable sort on the negated magnitude: largest first, ties in query order
    up = up[np.argsort(-d[up], kind="stable")]
    down = down[np.argsort(d[down], kind="stable")]
    return Magnitudes(better=d[up], worse=-d[down], better_qids=qids[up], worse_qids=qids[down],
                      mean_base=float(np.mean(base)) if len(d) else math.nan,
                      mean_run=float(np.mean(run)) if len(d) else math.nan)


def _diff(base: np.ndarray, run: np.ndarray) -> np.ndarray:
    base = np.asarray(base, dtype=np.float64)
    run = np.asarray(run, dtype=np.float64)
    if base.shape != run.shape or base.ndim != 1:
        raise ValueError(f"per-query arrays must be aligned 1-d arrays, got {base.shape} and {run.shape}")
    return run - base


# --------------------------------------------------------------------------- significance

@dataclass(frozen=True)
class TestResult:
    """One paired test of a run against the baseline on one measure.

    ``ci_low``/``ci_high`` bound the mean difference: Student's t interval, except for
    the bootstrap, whose row carries its percentile interval. ``exact`` tells whether a
    randomization test enumerated every sign assignment.
    """

    test: str
    n: int
    mean_diff: float
    ci_low: float
    ci_high: float
    effect: float
    statistic: float
    p_value: float
    exact: bool | None = None


def effect_size(d: np.ndarray) -> float:
    """Mean difference over the standard deviation of the differences (Cohen's d_z).

    No spread: 0 when the mean is 0 as well, otherwise +-inf; fewer than two queries: nan.
    """
    d = np.asarray(d, dtype=np.float64)
    if len(d) < 2:
        return math.nan
    m, s = float(np.mean(d)), float(np.std(d, ddof=1))
    if s == 0.0 or s < 1e-12 * max(abs(m), 1e-300):
        return 0.0 if m == 0.0 else math.copysign(math.inf, m)
    return m / s


def t_interval(d: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Student's t confidence interval of the mean difference."""
    from scipy import stats
    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    if n < 2:
        return (math.nan, math.nan)
    m = float(np.mean(d))
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * float(np.std(d, ddof=1)) / math.sqrt(n)
    return (m - half, m + half)


def paired_test(test: str, base: np.ndarray, run: np.ndarray, *, tolerance: float = 0.0,
                confidence: float = 0.95, samples: int = 10000,
                seed: int | None = 0) -> TestResult:
    """Run one paired test of ``run`` against ``base`` (aligned per-query values).

    t              scipy.stats.ttest_rel (statistic t)
    wilcoxon       scipy.stats.wilcoxon on the differences, differences within the
                   tolerance counted as zero and dropped (statistic: the smaller rank sum)
    sign           scipy.stats.binomtest of the queries better among those not equal
                   (statistic: the number better)
    randomization  scipy.stats.permutation_test flipping each query's pair (Fisher's
                   paired randomization, statistic: the mean difference); exact when
                   2^n <= samples, otherwise ``samples`` random assignments
    bootstrap      scipy.stats.bootstrap of the mean difference, percentile interval at
                   ``confidence``; its p-value is twice the smaller share of bootstrap
                   means on either side of 0 (the test the interval inverts)
    """
    from scipy import stats

    if test not in TESTS:
        raise UsageError(f"unknown test {test!r}: expected one of {', '.join(TESTS)}")
    d = _diff(base, run)
    n = len(d)
    mean = float(np.mean(d)) if n else math.nan
    lo, hi = t_interval(d, confidence)
    eff = effect_size(d)
    exact = None
    if n == 0:
        return TestResult(test, 0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)

    with warnings.catch_warnings():
        # scipy warns about degenerate data (all differences equal); the cases are handled below
        warnings.simplefilter("ignore", RuntimeWarning)
        if test == "t":
            if n < 2:
                stat, p = math.nan, math.nan
            elif np.all(d == d[0]):
                # no spread: scipy gives nan for all-zero differences; no evidence at all
                stat, p = (0.0, 1.0) if d[0] == 0 else (math.copysign(math.inf, d[0]), 0.0)
            else:
                r = stats.ttest_rel(np.asarray(run, float), np.asarray(base, float))
                stat, p = float(r.statistic), float(r.pvalue)
        elif test == "wilcoxon":
            dz = np.where(np.abs(d) <= tolerance, 0.0, d)
            if not np.any(dz):
                stat, p = 0.0, 1.0
            else:
                r = stats.wilcoxon(dz)
                stat, p = float(r.statistic), float(r.pvalue)
        elif test == "sign":
            better = int(np.count_nonzero(d > tolerance))
            worse = int(np.count_nonzero(d < -tolerance))
            stat = float(better)
            p = 1.0 if better + worse == 0 else float(stats.binomtest(better, better + worse, 0.5).pvalue)
        elif test == "randomization":
            stat = mean
            if n < 2 or not np.any(d):
                # one query: both sign assignments reach the observed |mean|
                p, exact = 1.0, True
            else:
                r = stats.permutation_test(
                    (np.asarray(run, float), np.asarray(base, float)), _mean_diff,
                    permutation_type="samples", vectorized=True, n_resamples=samples,
                    **_rng(stats.permutation_test, seed))
                p = float(r.pvalue)
                exact = 2 ** n <= samples
        else:  # bootstrap
            stat = mean
            if n < 2:
                lo = hi = p = math.nan
            elif np.all(d == d[0]):
                # every resample has the same mean: what the formula below gives
                lo = hi = mean
                p = 1.0 if mean == 0 else min(1.0, 2.0 / (samples + 1))
            else:
                r = stats.bootstrap((d,), np.mean, n_resamples=samples, confidence_level=confidence,
                                    method="percentile", vectorized=True,
                                    **_rng(stats.bootstrap, seed))
                lo, hi = float(r.confidence_interval.low), float(r.confidence_interval.high)
                dist = np.asarray(r.bootstrap_distribution)
                below = np.count_nonzero(dist <= 0.0)
                above = np.count_nonzero(dist >= 0.0)
                p = min(1.0, 2.0 * (min(below, above) + 1) / (len(dist) + 1))
    return TestResult(test, n, mean, lo, hi, eff, stat, p, exact)


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def _rng(func, seed: int | None) -> dict:
    """scipy >= 1.15 takes ``rng``; older releases take ``random_state``."""
    import inspect
    params = inspect.signature(func).parameters
    gen = np.random.default_rng(seed)
    return {"rng": gen} if "rng" in params else {"random_state": gen}


def adjust(p_values: Sequence[float], method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons; nan entries are not tests and stay nan.

    holm        Holm's step-down: the i-th smallest of m is multiplied by m-i+1, then
                made non-decreasing (p = .01 .04 .03 .005 gives .03 .06 .06 .02)
    bonferroni  each multiplied by m
    bh          Benjamini-Hochberg (scipy.stats.false_discovery_control)
    none        unchanged
    All are capped at 1.
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = p.copy()
    ok = ~np.isnan(p)
    q = p[ok]
    m = len(q)
    if method not in CORRECTIONS:
        raise UsageError(f"unknown correction {method!r}: expected one of {', '.join(CORRECTIONS)}")
    if m == 0 or method == "none":
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate(q[order] * (m - np.arange(m)))
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, stepped)
        out[ok] = adj
    else:
        out[ok] = _bh(q)
    return out


def _bh(q: np.ndarray) -> np.ndarray:
    from scipy import stats
    if hasattr(stats, "false_discovery_control"):      # scipy >= 1.11
        return np.asarray(stats.false_discovery_control(q, method="bh"), dtype=np.float64)
    return _bh_by_hand(q)


def _bh_by_hand(q: np.ndarray) -> np.ndarray:
    m = len(q)
    order = np.argsort(q, kind="stable")
    scaled = q[order] * m / np.arange(1, m + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adj = np.empty(m)
    adj[order] = np.minimum(1.0, stepped)
    return adj


# --------------------------------------------------------------------------- Joiner & Werner

@dataclass(frozen=True)
class Selection:
    """Joiner & Werner's multinomial selection: points per run and Bechhofer's P(CS).

    ``per_cutoff[i, j]`` is the number of queries won by run j at cut-off ``cutoffs[i]``
    (their Table 2 rows); ``points`` the totals, ``p_hat`` the estimated probabilities.
    """

    points: np.ndarray
    per_cutoff: np.ndarray
    cutoffs: np.ndarray
    total: int
    p_hat: np.ndarray
    best: int
    theta: float
    pcs: float
    pcs_method: str            # exact | simulation
    pcs_se: float = 0.0        # standard error of a simulated P(CS)


CAVEAT = ("the points are not independent (the same queries score at every cut-off), so "
          "the probability of correct selection is a guide, not a test (Joiner & Werner).")


def selection_points(values: np.ndarray, tolerance: float = 0.0,
                     seed: int | None = 0) -> np.ndarray:
    """At each cut-off, give each query's point to the run with the highest value.

    ``values`` has shape (runs, queries, cut-offs); runs within ``tolerance`` of the
    best value tie and one of them is drawn at random (``seed``). Returns the counts,
    shape (cut-offs, runs).
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 3:
        raise ValueError("values must have shape (runs, queries, cut-offs)")
    k = v.shape[0]
    top = v.max(axis=0)
    tied = v >= top - tolerance
    rng = np.random.default_rng(seed)
    draw = np.where(tied, rng.random(v.shape), -1.0)
    winner = draw.argmax(axis=0)                          # (Q, D)
    counts = np.stack([np.count_nonzero(winner == j, axis=0) for j in range(k)], axis=1)
    return counts.astype(np.int64)


def select_best(values: np.ndarray, *, cutoffs: Sequence[int] | None = None,
                tolerance: float = 0.0, theta: float = 1.5, seed: int | None = 0,
                samples: int = 100_000) -> Selection:
    """Joiner & Werner's selection procedure over values of shape (runs, queries, cut-offs)."""
    v = np.asarray(values, dtype=np.float64)
    per_cut = selection_points(v, tolerance, seed)
    return selection_from_points(per_cut, cutoffs=cutoffs, theta=theta, seed=seed,
                                 samples=samples)


def selection_from_points(per_cutoff: np.ndarray, *, cutoffs: Sequence[int] | None = None,
                          theta: float = 1.5, seed: int | None = 0,
                          samples: int = 100_000) -> Selection:
    """Totals, estimated probabilities and P(CS) from the points won at each cut-off."""
    per_cut = np.atleast_2d(np.asarray(per_cutoff, dtype=np.int64))
    points = per_cut.sum(axis=0)
    total = int(points.sum())
    k = len(points)
    p_hat = points / total if total else np.full(k, math.nan)
    pcs, method, se = bechhofer_pcs(k, total, theta, seed=seed, samples=samples)
    cut = np.arange(1, per_cut.shape[0] + 1) if cutoffs is None else np.asarray(cutoffs)
    return Selection(points=points, per_cutoff=per_cut, cutoffs=cut, total=total, p_hat=p_hat,
                     best=int(np.argmax(points)), theta=theta, pcs=pcs, pcs_method=method,
                     pcs_se=se)


def bechhofer_pcs(k: int, n: int, theta: float, *, seed: int | None = 0,
                  samples: int = 100_000) -> tuple[float, str, float]:
    """Bechhofer's probability of correct selection, exact for up to five runs.

    Returns (P(CS), "exact" or "simulation", standard error).
    """
    if k <= PCS_EXACT_MAX_RUNS:
        return pcs_exact(k, n, theta), "exact", 0.0
    p, se = pcs_simulated(k, n, theta, samples=samples, seed=seed)
    return p, "simulation", se


def _check_pcs(k: int, n: int, theta: float) -> None:
    if k < 2:
        raise UsageError("selecting the best run needs at least two runs")
    if n < 0:
        raise ValueError("the number of points cannot be negative")
    if not theta >= 1.0:
        raise UsageError(f"--theta must be at least 1 (the best run's probability over the "
                         f"second best's), got {theta}")


def lfc(k: int, theta: float) -> np.ndarray:
    """Least favourable configuration: the best cell theta times as likely as each of the others."""
    p = np.full(k, 1.0 / (theta + k - 1))
    p[0] = theta / (theta + k - 1)
    return p


def pcs_exact(k: int, n: int, theta: float) -> float:
    """P(CS) of Bechhofer, Elmaghraby and Morse's single-sample multinomial procedure.

    ``n`` observations fall into ``k`` cells under the least favourable configuration
    (one cell ``theta`` times as likely as each of the others, which are equal); the
    cell with the largest count is chosen, ties broken at random. This is the chance
    that the chosen cell is the most likely one.

    Conditioning on the best cell's count x, the other counts are multinomial with
    equal probabilities over n - x; they are computed as independent Poisson counts
    with mean (n - x)/(k - 1) conditioned on their sum, which keeps every term in
    floating-point range. x values with binomial probability below 1e-20 are skipped
    (their total is below 1e-17).
    """
    from scipy import stats
    _check_pcs(k, n, theta)
    if n == 0:
        return 1.0 / k
    pb = theta / (theta + k - 1)
    x_all = np.arange(n + 1)
    px = stats.binom.pmf(x_all, n, pb)
    # the best count must reach the largest of the others, which is at least (n - x)/(k - 1)
    keep = (px > 1e-20) & (x_all * k >= n)
    total = 0.0
    comb = [math.comb(k - 1, r) for r in range(k)]
    for x in x_all[keep]:
        m = n - x
        lam = m / (k - 1)
        # T: Poisson(lam) probabilities of lo..x-1 (each other cell strictly below x);
        # below lo they are under 1e-40 of the peak and are left out
        lo = max(0, int(lam - 14.0 * math.sqrt(lam)) - 1)
        hi = min(x, m + 1)
        t = stats.poisson.pmf(np.arange(lo, hi), lam) if hi > lo else np.zeros(0)
        at_x = float(stats.poisson.pmf(x, lam))
        norm = float(stats.poisson.pmf(m, m)) if m > 0 else 1.0
        powers = _powers(t, k - 1, m)
        cond = 0.0
        for r in range(k):                       # r of the other cells tie with the best at x
            j = k - 1 - r
            at = m - r * x - j * lo              # index in t^j, whose first term is j*lo
            if m - r * x < 0:
                break
            coef = powers[j][at] if 0 <= at < len(powers[j]) else 0.0
            cond += comb[r] / (r + 1) * at_x ** r * coef
        total += px[x] * cond / norm
    return float(min(1.0, max(0.0, total)))


def _powers(t: np.ndarray, up_to: int, length: int) -> list[np.ndarray]:
    """t^0 .. t^up_to as polynomial powers, each truncated to ``length + 1`` terms."""
    out = [np.array([1.0])]
    for _ in range(up_to):
        nxt = _convolve(out[-1], t)[: length + 1] if len(t) else np.zeros(0)
        out.append(np.maximum(nxt, 0.0))
    return out


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if min(len(a), len(b)) < 256:
        return np.convolve(a, b)
    from scipy import signal
    return signal.fftconvolve(a, b)


def pcs_simulated(k: int, n: int, theta: float, *, samples: int = 100_000,
                  seed: int | None = 0) -> tuple[float, float]:
    """P(CS) by simulating ``samples`` multinomial experiments; returns (estimate, standard error)."""
    _check_pcs(k, n, theta)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, lfc(k, theta), size=samples)
    top = counts.max(axis=1)
    ties = np.count_nonzero(counts == top[:, None], axis=1)
    won = np.where(counts[:, 0] == top, 1.0 / ties, 0.0)
    est = float(won.mean())
    return est, float(won.std(ddof=1) / math.sqrt(samples)) if samples > 1 else math.nan


# --------------------------------------------------------------------------- rank correlation

def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b between two score lists (scipy.stats.kendalltau)."""
    from scipy import stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.kendalltau(x, y).statistic) if len(x) >= 2 else math.nan


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho (scipy.stats.spearmanr)."""
    from scipy import stats
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.spearmanr(x, y).statistic) if len(x) >= 2 else math.nan


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (scipy.stats.pearsonr); nan when either list is constant."""
    from scipy import stats
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.pearsonr(x, y).statistic)


def tau_ap(reference: Sequence[float], other: Sequence[float]) -> float:
    """Yilmaz, Aslam and Robertson's AP rank correlation of ``other``'s ordering against ``reference``'s.

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
    c = np.zeros(len(q))                           # tau-AP's C(i): items above that the baseline agrees with
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
    """Unique keys and the row of each one's first occurrence (a document listed twice counts once)."""
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


def leaderboard_correlation(a_name: str, a: Sequence[float], b_name: str,
                            b: Sequence[float]) -> LeaderboardCorrelation:
    """How much the choice between two measures changes the order of the systems.

    ``a`` and ``b`` hold each system's summary value under the two measures; tau-AP
    takes measure A's ordering as the reference.
    """
    x, y = np.asarray(a, float), np.asarray(b, float)
    i, j = np.triu_indices(len(x), 1)
    swaps = int(np.count_nonzero(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) < 0))
    return LeaderboardCorrelation(a_name, b_name, len(x), kendall_tau(x, y), spearman(x, y),
                                  pearson(x, y), tau_ap(x, y), swaps)


__all__ = [
    "TESTS", "CORRECTIONS", "CAVEAT", "Merit", "merit", "Magnitudes", "magnitudes", "align",
    "TestResult", "paired_test", "effect_size", "t_interval", "adjust", "Selection",
    "selection_points", "select_best", "selection_from_points", "bechhofer_pcs", "pcs_exact",
    "pcs_simulated", "lfc", "kendall_tau", "spearman", "pearson", "tau_ap", "RankCorrelation",
    "rank_correlation", "LeaderboardCorrelation", "leaderboard_correlation",
]
