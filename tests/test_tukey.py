"""Tukey's HSD blocked by topic against statsmodels' residual variance and
scipy.stats.studentized_range (1e-9); the randomised Tukey HSD against every permutation
of tiny matrices (exactly) and within Monte Carlo error of them; the degenerate cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.formula.api import ols

from smarteval.errors import UsageError
from smarteval.stats.tukey import (
    randomized_tukey,
    studentized_range_ppf,
    studentized_range_sf,
    tukey_hsd,
)
from tests.test_anova import long_frame, matrices, printed, sakai_expected, sakai_table

# --------------------------------------------------------------------------- the distribution


@pytest.mark.parametrize("k,df", [(2, 1), (2, 19), (3, 2), (3, 38), (5, 4), (5, 200),
                                  (10, 9), (10, 1421), (30, 29), (30, 1421), (60, 59),
                                  (100, 4851), (4, 250_000)])
def test_studentized_range_is_scipys(k, df):
    q = np.array([0.0, 0.05, 0.5, 1.0, 2.0, 3.0, 3.5, 4.2, 5.0, 6.5, 8.0, 12.0])
    ref = stats.studentized_range.sf(q, k, df)
    np.testing.assert_allclose(studentized_range_sf(q, k, df), ref, rtol=0, atol=1e-9)


@pytest.mark.parametrize("df", [5, 38, 1421, 200_000])
def test_studentized_range_of_two_in_the_far_tail(df):
    """The range of two means is sqrt(2) |t|: relative precision where p is tiny."""
    q = np.array([0.1, 1.0, 3.0, 5.0, 7.0, 9.0, 11.0])
    exact = 2 * (stats.t.sf(q / math.sqrt(2), df) if df < 100_000 else
                 stats.norm.sf(q / math.sqrt(2)))
    np.testing.assert_allclose(studentized_range_sf(q, 2, df), exact, rtol=1e-7)


def test_studentized_range_keeps_shape():
    q = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert studentized_range_sf(q, 3, 20).shape == (2, 2)
    assert studentized_range_ppf(0.95, 3, 38) == pytest.approx(
        stats.studentized_range.ppf(0.95, 3, 38), rel=1e-12)


# --------------------------------------------------------------------------- blocked


def oracle(x: np.ndarray, confidence: float = 0.95):
    """Tukey's HSD on statsmodels' residual mean square of score ~ system + topic, with
    scipy's studentized range: differences, p and the half width of the intervals."""
    m, n = x.shape
    fit = ols("score ~ C(system) + C(topic)", long_frame(x)).fit()
    se = math.sqrt(fit.mse_resid / n)
    means = x.mean(axis=1)
    diff = means[:, None] - means[None, :]
    p = stats.studentized_range.sf(np.abs(diff) / se, m, fit.df_resid)
    return diff, p, stats.studentized_range.ppf(confidence, m, fit.df_resid) * se, fit


@pytest.mark.parametrize("x", matrices()[2:], ids=lambda x: f"{x.shape[0]}x{x.shape[1]}")
def test_blocked_tukey_is_the_oracle(x):
    diff, p, half, fit = oracle(x)
    t = tukey_hsd(x)
    off = ~np.eye(len(x), dtype=bool)
    np.testing.assert_allclose(t.diff, diff, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(t.p[off], p[off], rtol=0, atol=1e-9)
    assert t.hsd == pytest.approx(half, rel=1e-9)
    np.testing.assert_allclose(t.ci_low, diff - half, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(t.ci_high, diff + half, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(t.es, diff / math.sqrt(fit.mse_resid), rtol=1e-9, atol=1e-12)
    assert t.anova.df_residual == fit.df_resid
    # significant at alpha exactly when the difference exceeds what it needs
    need = t.needed(0.1)
    assert need == pytest.approx(oracle(x, 0.9)[2], rel=1e-9)
    np.testing.assert_array_equal((t.p < 0.1)[off], (np.abs(diff) > need)[off])


def test_blocked_is_not_the_independent_test():
    """Topic difficulty dwarfs the runs' differences: blocking finds what the
    independent-groups test cannot."""
    rng = np.random.default_rng(4)
    topic = rng.uniform(0.05, 0.9, 30)
    x = np.clip(topic + np.array([[0.0], [0.03], [0.06]]) + rng.normal(0, 0.01, (3, 30)), 0, 1)
    blocked = tukey_hsd(x).p[0, 2]
    independent = stats.tukey_hsd(*x).pvalue[0, 2]
    assert blocked < 1e-6 < 0.05 < independent


def test_sakai_effect_sizes():
    names, x = sakai_table()
    t = tukey_hsd(x)
    for pair, value in sakai_expected()["es_e"].items():
        i, j = (names.index(s) for s in pair.split("-"))
        assert printed(t.es[i, j], value), pair


def test_blocked_degenerate():
    one = tukey_hsd(np.array([[0.2], [0.5], [0.5]]))       # one topic: no residual
    # 0/0 is undefined, never p = 1: R's ptukey and scipy's studentized_range give NaN
    assert np.isnan(one.p).all() and np.isnan(one.q).all() and math.isnan(one.hsd)
    same = tukey_hsd(np.array([[0.1, 0.4, 0.7]] * 3))      # equal runs: q = 0/0
    assert np.isnan(same.p).all() and np.isnan(same.es).all() and same.hsd == 0.0
    x = np.array([[0.1, 0.4, 0.7], [0.2, 0.5, 0.8], [0.1, 0.4, 0.7]])  # +0.1 everywhere
    add = tukey_hsd(x)
    assert add.p[0, 1] == 0.0 and add.q[0, 1] == math.inf and math.isnan(add.p[0, 2])
    assert math.isnan(stats.studentized_range.sf(math.nan, 3, 4))
    with pytest.raises(UsageError, match="two systems"):
        tukey_hsd(np.array([[0.1, 0.2]]))


# --------------------------------------------------------------------------- randomised


def every_permutation(x: np.ndarray) -> np.ndarray:
    """The slow, obviously right randomised Tukey: every way of permuting each topic's
    scores across the systems; p of a pair = share whose largest difference of means
    reaches the pair's |difference|."""
    m, n = x.shape
    ranges = []
    for perms in itertools.product(itertools.permutations(range(m)), repeat=n):
        means = np.array([sum(x[perms[t][i], t] for t in range(n)) for i in range(m)]) / n
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    means = x.mean(axis=1)
    observed = np.abs(means[:, None] - means[None, :])
    return (ranges[None, None, :] >= observed[:, :, None] - 1e-12).mean(axis=2)


TINY = [np.array([[0.5, 0.3, 0.9], [0.2, 0.1, 0.6], [0.4, 0.4, 0.1]]),       # 6^3 = 216
        np.array([[0.1, 0.5, 0.3, 0.8, 0.2], [0.3, 0.4, 0.4, 0.5, 0.1]]),    # 2^5 = 32
        np.array([[0.2, 0.2, 0.7, 0.5], [0.1, 0.6, 0.3, 0.5], [0.4, 0.2, 0.2, 0.9]]),  # 1296
        np.array([[0.3, 0.6], [0.1, 0.2], [0.5, 0.5], [0.2, 0.9]])]          # 24^2 = 576


@pytest.mark.parametrize("x", TINY, ids=lambda x: f"{x.shape[0]}x{x.shape[1]}")
def test_randomized_tukey_enumerates_tiny_matrices(x):
    r = randomized_tukey(x, samples=10000)
    assert r.exact and r.samples == math.factorial(len(x)) ** x.shape[1]
    np.testing.assert_array_equal(r.p, every_permutation(x))


@pytest.mark.parametrize("x", TINY[:3], ids=lambda x: f"{x.shape[0]}x{x.shape[1]}")
def test_randomized_tukey_sampled_is_within_monte_carlo_error(x):
    exact = every_permutation(x)
    samples = 20000 if len(x) > 2 else 20
    r = randomized_tukey(x, samples=min(samples, r_total(x) - 1), seed=3)
    assert not r.exact
    se = np.sqrt(exact * (1 - exact) / r.samples)
    assert np.all(np.abs(r.p - exact) <= 4 * se + 1.5 / r.samples)
    again = randomized_tukey(x, samples=r.samples, seed=3)
    np.testing.assert_array_equal(again.p, r.p)                     # seeded


def r_total(x: np.ndarray) -> int:
    return math.factorial(len(x)) ** x.shape[1]


def test_randomized_tukey_larger_matrix_within_error_of_more_samples():
    rng = np.random.default_rng(11)
    x = np.clip(rng.uniform(0.1, 0.8, 25) + np.linspace(0, 0.12, 6)[:, None]
                + rng.normal(0, 0.1, (6, 25)), 0, 1)
    ref = randomized_tukey(x, samples=200_000, seed=1)
    r = randomized_tukey(x, samples=10_000, seed=2)
    se = np.sqrt(ref.p * (1 - ref.p) / 10_000 + ref.p * (1 - ref.p) / 200_000)
    assert np.all(np.abs(r.p - ref.p) <= 4.5 * se + 1e-4)


def test_randomized_tukey_critical_difference():
    rng = np.random.default_rng(2)
    x = rng.random((5, 12)).round(2)
    r = randomized_tukey(x, samples=4000, seed=0)
    need = r.critical(0.05)
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_array_equal((r.p < 0.05)[off], (np.abs(r.diff) > need + 1e-12)[off])


def test_randomized_tukey_degenerate():
    one = randomized_tukey(np.array([[0.2], [0.5], [0.9]]))   # one topic: every p is 1
    assert (one.p == 1.0).all()
    same = randomized_tukey(np.array([[0.1, 0.4, 0.7, 0.3]] * 3))
    assert (same.p == 1.0).all()
    with pytest.raises(UsageError, match="two systems"):
        randomized_tukey(np.array([[0.1, 0.2]]))


def test_randomized_tukey_sakai():
    """Sakai's Table 5.1: the blocked and randomised tests agree closely."""
    _, x = sakai_table()
    r = randomized_tukey(x, samples=20000, seed=0)
    blocked = tukey_hsd(x).p
    assert np.all(np.abs(r.p - blocked) < 0.06)

