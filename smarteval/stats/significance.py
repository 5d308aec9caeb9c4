"""Paired significance tests of a run against a baseline, effect size, confidence intervals
and corrections for multiple comparisons (scipy.stats underneath, imported when used)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from smarteval.errors import UsageError
from smarteval.stats.merit import differences

TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")


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
    d = differences(base, run)
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
            p = 1.0 if better + worse == 0 else \
                float(stats.binomtest(better, better + worse, 0.5).pvalue)
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
