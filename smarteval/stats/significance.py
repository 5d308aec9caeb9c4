"""Paired significance tests of a run against a baseline, effect size, confidence intervals
and corrections for multiple comparisons (scipy.stats underneath, imported when used)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from smarteval import libm
from smarteval.errors import UsageError
from smarteval.stats.merit import differences

#: The paired tests of one run against another, with what each is.
TEST_HELP = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "Fisher's paired randomization test",
    "bootstrap": "bootstrap test, the percentile interval of the mean difference",
}
TESTS = tuple(TEST_HELP)
#: Tests of every pair of runs at once, which compare no pair on its own.
ALL_PAIRS_TESTS = {
    "tukey": "Tukey's HSD blocked by query: the studentized range on the residual variance of "
             "the two-way ANOVA without replication (runs x queries)",
    "randomized-tukey": "randomised Tukey HSD: each query's scores permuted across the runs "
                        "--samples times (Carterette 2012, Sakai's Discpower)",
    "tukey-independent": "Tukey's HSD over the runs as independent groups "
                         "(scipy.stats.tukey_hsd), which ignores that the runs answer the "
                         "same queries",
}
#: What each test assumes of the per-query values (the man page's list).
ASSUMES = {
    "t": "the per-query differences are independent draws from a normal distribution (or "
         "enough queries for their mean to be nearly normal)",
    "wilcoxon": "the differences are independent and symmetric about their median, which it "
                "tests (not the mean); differences within --tie-tolerance are dropped "
                "(Wilcoxon's zero method) and the p-value is two-sided: exact (the "
                "signed-rank distribution) for fewer than 50 differences left with no two "
                "of the same size, else the normal approximation with the tie correction of "
                "the variance and a continuity correction of 1/2, as R's wilcox.test gives "
                "it, whatever scipy's default",
    "sign": "only that queries are independent: it counts the queries better and worse and "
            "ignores by how much",
    "randomization": "that, under the null hypothesis, each query's two scores are "
                     "exchangeable (the sign of each difference is a coin flip); no "
                     "distribution",
    "bootstrap": "the queries are a random sample of the queries one cares about; the "
                 "percentile interval is only approximate with few queries",
    "tukey": "each score is the sum of a run effect, a query effect and a normal error of one "
             "variance, independent across queries; no run x query interaction beyond that "
             "error",
    "randomized-tukey": "that, under the null hypothesis that no run differs, each query's "
                        "scores are exchangeable across the runs; no distribution",
    "tukey-independent": "the runs are independent samples of normal values with one "
                         "variance: not so when every run answers the same queries, where "
                         "its p-values are not the right ones",
}
#: Why a test's statistic and p-value are undefined (NaN) where they are: each is a 0/0,
#: which is printed as undefined, never as 0 or p = 1 (the randomization and bootstrap
#: tests define p = 1 where every difference is 0: every sample reaches it).
UNDEFINED = {
    "t": "every per-query difference is 0, so t = 0/0",
    "wilcoxon": "every per-query difference is 0 (within --tie-tolerance) and dropped, so "
                "none is left to rank",
    "sign": "no query is better or worse (within --tie-tolerance), so the sign test has no "
            "trial",
    "tukey": "the residual variance is 0 and the means are equal, so q = 0/0",
    "tukey-independent": "no run varies and the means are equal, so q = 0/0",
}
#: Why the effect sizes d_z and g_av are undefined where they are.
UNDEFINED_EFFECT = "every per-query difference is 0, so d_z and g_av are 0/0"
#: How the Wilcoxon test's p-value was computed (:func:`wilcoxon`), in words.
WILCOXON_METHODS = {
    "exact": "exact signed-rank distribution (fewer than 50 nonzero differences, no ties)",
    "normal": "normal approximation with tie and continuity corrections",
}
#: Below this many nonzero differences without ties, the Wilcoxon p-value is exact (R's).
WILCOXON_EXACT_BELOW = 50
#: The corrections for multiple comparisons, with their names in words.
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                    "none": "no"}
CORRECTIONS = tuple(CORRECTION_NAMES)


# --------------------------------------------------------------------------- significance

@dataclass(frozen=True)
class TestResult:
    """One paired test of a run against the baseline on one measure.

    ``ci_low``/``ci_high`` bound the mean difference: Student's t interval, except for
    the bootstrap, whose row carries its percentile interval. ``effect`` is Cohen's d_z,
    ``g_av`` Hedges' g_av (:func:`hedges_g_av`). ``exact`` tells whether a randomization
    test enumerated every sign assignment.
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
    g_av: float = math.nan
    method: str = ""


def wilcoxon(d: np.ndarray, tolerance: float = 0.0) -> tuple[float, float, str]:
    """The Wilcoxon signed-rank test of differences ``d``: the smaller rank sum, the
    two-sided p-value and how it was computed (a key of :data:`WILCOXON_METHODS`), chosen
    here rather than by scipy's default (which has changed between versions), so that
    every scipy gives the same p:

    - differences within ``tolerance`` of 0 are dropped (``zero_method="wilcox"``);
      nothing left: undefined (NaN, :data:`UNDEFINED`);
    - fewer than :data:`WILCOXON_EXACT_BELOW` left, no two of the same size: the exact
      p, 2 min(P(W+ <= w), P(W+ >= w)) over the 2^n equally likely signs (scipy's
      ``method="exact"``);
    - else the normal approximation: z = (|W+ - n(n+1)/4| - 1/2) / sigma, sigma^2 =
      n(n+1)(2n+1)/24 - sum(t^3 - t)/48 over the groups of t tied sizes, p = 2 Phi(-|z|)
      (scipy's ``method="approx"`` with ``correction=True``; R's ``wilcox.test``).
    """
    from scipy import special, stats
    nz = np.asarray(d, dtype=np.float64)
    nz = nz[np.abs(nz) > tolerance]
    n = len(nz)
    if n == 0:
        return math.nan, math.nan, ""
    size = np.abs(nz)
    ranks = stats.rankdata(size)
    plus = float(np.sum(ranks[nz > 0]))
    stat = min(plus, n * (n + 1) / 2 - plus)
    _, tied = np.unique(size, return_counts=True)
    if n < WILCOXON_EXACT_BELOW and len(tied) == n:
        # the number of subsets of the ranks 1..n summing to each total (exact below 2^53)
        counts = np.zeros(n * (n + 1) // 2 + 1)
        counts[0] = 1.0
        for k in range(1, n + 1):
            counts[k:] = counts[k:] + counts[:-k].copy()
        cdf = np.cumsum(counts) / 2.0 ** n
        p = min(1.0, 2.0 * float(cdf[int(stat)]))
        return stat, p, "exact"
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - float(np.sum(tied ** 3 - tied)) / 48
    shift = abs(plus - mean)
    z = (shift - 0.5) / math.sqrt(var) if shift else 0.0
    return stat, min(1.0, 2.0 * float(special.ndtr(-abs(z)))), "normal"


def effect_size(d: np.ndarray) -> float:
    """Mean difference over the standard deviation of the differences (Cohen's d_z).

    No spread: undefined (NaN, 0/0) when the mean is 0 as well, otherwise +-inf; fewer
    than two queries: NaN.
    """
    d = np.asarray(d, dtype=np.float64)
    if len(d) < 2:
        return math.nan
    m, s = float(np.mean(d)), float(np.std(d, ddof=1))
    if _flat(d) or s < 1e-12 * max(abs(m), 1e-300):
        return math.nan if m == 0.0 else math.copysign(math.inf, m)
    return m / s


def _flat(*values: np.ndarray) -> bool:
    """Whether each array holds one value only: no spread, whatever the rounding of its
    mean leaves in its variance (the variance of 0.4, 0.4, 0.4 is 1.5e-33)."""
    return all(v.min() == v.max() for v in values)


def hedges_g_av(base: np.ndarray, run: np.ndarray) -> float:
    """Hedges' g_av of run against base: Cumming's d_av, the mean difference over the root
    mean of the two variances, times Hedges' correction 1 - 3 / (4 (2n) - 9) (Lakens 2013,
    pingouin's ``compute_effsize(paired=True, eftype="hedges")``).

    No spread in either run: undefined (NaN, 0/0) when the means are equal, otherwise
    +-inf; fewer than two queries: NaN.
    """
    b = np.asarray(base, dtype=np.float64)
    r = np.asarray(run, dtype=np.float64)
    n = len(b)
    if n < 2:
        return math.nan
    m = float(np.mean(r) - np.mean(b))
    s = math.sqrt((float(np.var(r, ddof=1)) + float(np.var(b, ddof=1))) / 2)
    if _flat(b, r):
        m = 0.0 if b[0] == r[0] else m
    if _flat(b, r) or s < 1e-12 * max(abs(m), 1e-300):
        return math.nan if m == 0.0 else math.copysign(math.inf, m)
    return m / s * (1 - 3 / (4 * (2 * n) - 9))


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
                seed: int | None = 0, on_samples: Sampled | None = None) -> TestResult:
    """Run one paired test of ``run`` against ``base`` (aligned per-query values).

    t              scipy.stats.ttest_rel (statistic t)
    wilcoxon       :func:`wilcoxon`: differences within the tolerance counted as zero
                   and dropped, exact below 50 left without ties, else normal (statistic:
                   the smaller rank sum; ``method`` says which p)
    sign           scipy.stats.binomtest of the queries better among those not equal
                   (statistic: the number better)
    randomization  Fisher's paired randomization, flipping the sign of each query's
                   difference (statistic: the mean difference); exact when 2^n <= samples,
                   otherwise ``samples`` random assignments drawn in blocks
                   (:func:`paired_tests`: scipy.stats.permutation_test's p-value, in
                   bounded memory)
    bootstrap      scipy.stats.bootstrap of the mean difference, percentile interval at
                   ``confidence``; its p-value is twice the smaller share of bootstrap
                   means on either side of 0 (the test the interval inverts)
    """
    from scipy import stats

    if test not in TESTS:
        raise UsageError(f"unknown test {test!r}: expected one of {', '.join(TESTS)}")
    d = differences(base, run)
    n = len(d)
    mean = float(np.mean(d)) if n else math.nan
    lo, hi = t_interval(d, confidence)
    eff = effect_size(d)
    g_av = hedges_g_av(base, run)
    exact = None
    method = ""
    if n == 0:
        return TestResult(test, 0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)

    with warnings.catch_warnings():
        # scipy warns about degenerate data (all differences equal); the cases are handled below
        warnings.simplefilter("ignore", RuntimeWarning)
        if test == "t":
            if n < 2:
                stat, p = math.nan, math.nan
            elif np.all(d == d[0]):
                # no spread: t = 0/0 (undefined, as scipy gives it) or +-inf (p 0)
                stat, p = (math.nan, math.nan) if d[0] == 0 else \
                    (math.copysign(math.inf, d[0]), 0.0)
            else:
                r = stats.ttest_rel(np.asarray(run, float), np.asarray(base, float))
                stat, p = float(r.statistic), float(r.pvalue)
        elif test == "wilcoxon":
            stat, p, method = wilcoxon(d, tolerance)
        elif test == "sign":
            better = int(np.count_nonzero(d > tolerance))
            worse = int(np.count_nonzero(d < -tolerance))
            stat = float(better)
            p = math.nan if better + worse == 0 else \
                float(stats.binomtest(better, better + worse, 0.5).pvalue)
        elif test == "randomization":
            stat = mean
            if n < 2 or not np.any(d):
                # one query: both sign assignments reach the observed |mean|
                p, exact = 1.0, True
            else:
                _, ps, exact = paired_tests("randomization", np.asarray(base, float)[None],
                                            np.asarray(run, float)[None], samples=samples,
                                            seed=seed, on_samples=on_samples)
                p = float(ps[0])
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
                                    batch=max(1, _BLOCK // n), **_rng(stats.bootstrap, seed))
                lo, hi = float(r.confidence_interval.low), float(r.confidence_interval.high)
                dist = np.asarray(r.bootstrap_distribution)
                below = np.count_nonzero(dist <= 0.0)
                above = np.count_nonzero(dist >= 0.0)
                p = min(1.0, 2.0 * (min(below, above) + 1) / (len(dist) + 1))
    return TestResult(test, n, mean, lo, hi, eff, stat, p, exact, g_av, method)


def _rng(func, seed: int | None) -> dict:
    """scipy >= 1.15 takes ``rng``; older releases take ``random_state``."""
    import inspect
    params = inspect.signature(func).parameters
    gen = np.random.default_rng(seed)
    return {"rng": gen} if "rng" in params else {"random_state": gen}


def adjust(p_values: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
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


# --------------------------------------------------------------------------- many pairs at once

def paired_tests(test: str, base: np.ndarray, run: np.ndarray, *, tolerance: float = 0.0,
                 samples: int = 10000, seed: int | None = 0,
                 on_samples: Sampled | None = None
                 ) -> tuple[np.ndarray, np.ndarray, bool | None]:
    """One paired test of each row of ``run`` against the same row of ``base`` (N, Q).

    Returns the statistics and p-values, shape (N,), and for randomization whether every
    sign assignment was enumerated. t (scipy.stats.ttest_rel along the rows), wilcoxon and
    sign give :func:`paired_test`'s numbers row by row. randomization and bootstrap follow
    :func:`paired_test`'s definitions, with one set of sign assignments (or of resamples)
    drawn from ``seed`` and shared by every row, all rows and samples at once: a matrix
    product of the differences (N, Q) with the samples (Q, B). ``on_samples(done,
    total)`` is told, block after block, how many of the samples x queries x rows of
    the test are done (progress).
    """
    d = np.asarray(run, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    if d.ndim != 2:
        raise ValueError("paired_tests takes aligned (pairs, queries) arrays")
    k, n = d.shape
    mean = d.mean(axis=1) if n else np.full(k, math.nan)
    if n == 0 or k == 0:
        return mean.copy(), np.full(k, math.nan), None
    if test == "t":
        if n < 2:
            return np.full(k, math.nan), np.full(k, math.nan), None
        from scipy import stats
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            r = stats.ttest_rel(np.asarray(run, float), np.asarray(base, float), axis=-1)
        stat, p = np.array(r.statistic, dtype=float), np.array(r.pvalue, dtype=float)
        flat = np.all(d == d[:, :1], axis=1)         # no spread: as paired_test decides
        first = d[flat, 0]
        stat[flat] = np.where(first == 0, math.nan, np.copysign(math.inf, first))
        p[flat] = np.where(first == 0, math.nan, 0.0)
        return stat, p, None
    if test in ("wilcoxon", "sign"):
        rows = [paired_test(test, base[i], run[i], tolerance=tolerance) for i in range(k)]
        return (np.array([r.statistic for r in rows]), np.array([r.p_value for r in rows]),
                None)
    if test == "randomization":
        exact = 2 ** n <= samples
        # as scipy.stats.permutation_test: equal within a relative 100 eps, +1 when drawn
        extra = 0 if exact else 1
        gamma = 100 * np.finfo(np.float64).eps * np.maximum(np.abs(mean),
                                                            np.abs(d).mean(axis=1))
        kind = "every sign" if exact else "signs"
        total = 2 ** n if exact else samples
        below, above = _counts(d, kind, total, seed, mean + gamma, mean - gamma, on_samples)
        p = np.minimum(1.0, 2.0 * (np.minimum(below, above) + extra) / (total + extra))
        return mean, p, exact
    if test == "bootstrap":
        if n < 2:
            return mean, np.full(k, math.nan), None
        below, above = _counts(d, "resamples", samples, seed, np.zeros(k), np.zeros(k),
                               on_samples)
        p = np.minimum(1.0, 2.0 * (np.minimum(below, above) + 1) / (samples + 1))
        return mean, p, None
    raise UsageError(f"unknown test {test!r}: expected one of {', '.join(TESTS)}")


#: Rows times samples held at once (32 MiB of doubles), and at most as many samples drawn
#: at once (fewer for many queries, so that a block of weights stays within _BLOCK values).
_BLOCK = 4_000_000
_SAMPLES_AT_ONCE = 16_384


def sample_weights(kind: str, n: int, samples: int, seed: int | None = 0):
    """The samples of n queries as blocks of weights (n, b), whose product with per-query
    values (rows, n) gives each row's sampled means, ``samples`` columns in all:

    every sign   every assignment of signs (2^n of them, ``samples`` must be 2^n)
    signs        random signs, each query's drawn with probability 1/2
    resamples    bootstrap resamples: how often each query was drawn, over n

    The same arguments give the same blocks (drawn from ``seed``).
    """
    if kind == "resamples":
        for draws in resamples(n, samples, seed):
            b = len(draws)
            draws = draws + (np.arange(b) * n)[:, None]
            counts = np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)
            yield counts.T.astype(np.float64) / n
        return
    rng = np.random.default_rng(seed)
    at_once = _samples_at_once(n)
    for start in range(0, samples, at_once):
        b = min(at_once, samples - start)
        if kind == "every sign":
            w = 1.0 - 2.0 * ((np.arange(start, start + b)[:, None] >> np.arange(n)) & 1)
        else:
            w = 1.0 - 2.0 * rng.integers(0, 2, size=(b, n))
        yield w.T / n


def _samples_at_once(n: int) -> int:
    return max(1, min(_SAMPLES_AT_ONCE, _BLOCK // max(n, 1)))


def resamples(n: int, samples: int, seed: int | None = 0):
    """Bootstrap resamples of n queries: blocks of (b, n) query indices drawn uniformly
    with replacement, ``samples`` rows in all, the b-th row resample b. The rows are those
    of one ``numpy.random.default_rng(seed).integers(0, n, size=(samples, n))``: the
    blocks change how many are held at once, never which are drawn."""
    rng = np.random.default_rng(seed)
    at_once = _samples_at_once(n)
    for start in range(0, samples, at_once):
        yield rng.integers(0, n, size=(min(at_once, samples - start), n))


#: What is told of a test's progress: ``on_samples(done, total)``, in samples x queries
#: x rows.
Sampled = Callable[[int, int], None]


def _counts(d: np.ndarray, kind: str, samples: int, seed: int | None, upper: np.ndarray,
            lower: np.ndarray, on_samples: Sampled | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``d``: how many of its sampled means (:func:`sample_weights`) are
    at most ``upper`` and how many at least ``lower`` (``on_samples`` told as the
    samples are drawn)."""
    k = d.shape[0]
    below, above = np.zeros(k, np.int64), np.zeros(k, np.int64)
    total, done = samples * d.shape[1] * k, 0
    for weights in sample_weights(kind, d.shape[1], samples, seed):
        step = max(1, _BLOCK // weights.shape[1])
        for start in range(0, k, step):
            rows = slice(start, start + step)
            null = libm.matmul(d[rows], weights)
            below[rows] += np.count_nonzero(null <= upper[rows, None], axis=1)
            above[rows] += np.count_nonzero(null >= lower[rows, None], axis=1)
        if on_samples is not None:
            done += weights.shape[1] * d.shape[1] * k
            on_samples(done, total)
    return below, above


def critical_differences(test: str, d: np.ndarray, level: float, *, samples: int = 10000,
                         seed: int | None = 0) -> np.ndarray:
    """For each row of differences ``d`` (pairs, queries), the |mean difference| a pair
    needs to be significant at two-sided ``level``: t(1 - level/2; n-1) s_d / sqrt(n) for
    the t-test, the 1 - level quantile of the |mean| of the sign-flipped differences (the
    assignments :func:`paired_tests` draws) for randomization."""
    k, n = d.shape
    if test not in ("t", "randomization"):
        raise UsageError(f"no critical difference for test {test!r}")
    if test == "t":
        from scipy import stats
        return float(stats.t.ppf(1 - level / 2, n - 1)) * d.std(axis=1, ddof=1) / math.sqrt(n)
    exact = 2 ** n <= samples
    kind, total = ("every sign", 2 ** n) if exact else ("signs", samples)
    out = np.empty(k)
    step = max(1, _BLOCK // total)
    for start in range(0, k, step):             # the same assignments for every block
        rows = slice(start, start + step)
        null = np.abs(np.hstack([libm.matmul(d[rows], w)
                                 for w in sample_weights(kind, n, total, seed)]))
        out[rows] = np.quantile(null, 1 - level, axis=1, method="higher")
    return out


def intervals(values: np.ndarray, method: str, confidence: float = 0.95, *,
              samples: int = 10000, seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """The confidence interval of the mean of each row of ``values`` (N, Q).

    t          Student's t interval
    bootstrap  percentile interval of ``samples`` resampled means (one set of resamples,
               drawn from ``seed``, for every row)
    Fewer than two values: nan.
    """
    v = np.asarray(values, dtype=np.float64)
    k, n = v.shape
    if n < 2:
        return np.full(k, math.nan), np.full(k, math.nan)
    if method == "t":
        from scipy import stats
        mean = v.mean(axis=1)
        half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * v.std(axis=1, ddof=1) \
            / math.sqrt(n)
        return mean - half, mean + half
    if method == "bootstrap":
        lo, hi = np.empty(k), np.empty(k)
        step = max(1, _BLOCK // samples)
        tail = (1 - confidence) / 2 * 100
        for start in range(0, k, step):             # the same resamples for every block
            rows = slice(start, start + step)
            means = np.hstack([libm.matmul(v[rows], w)
                               for w in sample_weights("resamples", n, samples, seed)])
            lo[rows], hi[rows] = np.percentile(means, [tail, 100 - tail], axis=1)
        return lo, hi
    raise UsageError(f"unknown interval {method!r}: expected t or bootstrap")

