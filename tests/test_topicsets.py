"""Topic set size design against statsmodels' power calculations (TTestPower for the paired
t-test, FTestAnovaPower for one-way ANOVA) and the chi distribution's mean (the expected
width of an interval); the smallest topic count each time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from smarteval.errors import UsageError
from smarteval.stats.anova import two_way, within_variance
from smarteval.stats.topicsets import (
    anova_power,
    ci_width,
    t_power,
    table,
    topics_needed,
    variance_estimate,
)

GRID = [(0.05, 0.05, 0.20), (0.10, 0.05, 0.20), (0.02, 0.01, 0.10), (0.08, 0.01, 0.20),
        (0.15, 0.10, 0.30)]
VARIANCES = [0.01, 0.0219, 0.05, 0.1]


@pytest.mark.parametrize("diff,alpha,beta", GRID)
@pytest.mark.parametrize("variance", VARIANCES)
def test_t_design_is_statsmodels(diff, alpha, beta, variance):
    effect = diff / math.sqrt(2 * variance)            # the difference's variance is 2 sigma^2
    d = topics_needed("t", diff, variance, alpha=alpha, beta=beta)
    power = TTestPower()
    assert d.reached == pytest.approx(power.power(effect, d.topics, alpha), rel=1e-9)
    assert d.reached >= 1 - beta
    assert d.topics == 2 or power.power(effect, d.topics - 1, alpha) < 1 - beta
    real = power.solve_power(effect_size=effect, alpha=alpha, power=1 - beta)
    assert d.topics == max(2, math.ceil(real - 1e-9))


@pytest.mark.parametrize("diff,alpha,beta", GRID)
@pytest.mark.parametrize("variance", VARIANCES)
@pytest.mark.parametrize("systems", [2, 5, 10, 30])
def test_anova_design_is_statsmodels(diff, alpha, beta, variance, systems):
    f = math.sqrt(diff ** 2 / (2 * systems * variance))   # Cohen's f of the least favourable
    d = topics_needed("anova", diff, variance, alpha=alpha, beta=beta, systems=systems)
    power = FTestAnovaPower()
    assert d.reached == pytest.approx(
        power.power(f, d.topics * systems, alpha, k_groups=systems), rel=1e-9)
    assert d.reached >= 1 - beta
    assert d.topics == 2 or \
        power.power(f, (d.topics - 1) * systems, alpha, k_groups=systems) < 1 - beta


def test_two_systems_anova_and_t():
    """One-way ANOVA of two systems is the unpaired t-test: statsmodels' TTestIndPower."""
    from statsmodels.stats.power import TTestIndPower
    for n in (5, 20, 60):
        want = TTestIndPower().power(0.1 / math.sqrt(0.05), n, 0.05)
        assert anova_power(n, 0.1, 0.05, 2, 0.05) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("n", [2, 3, 10, 41, 500])
def test_expected_interval_width(n):
    mean_s = stats.chi(n - 1).mean() / math.sqrt(n - 1)    # E[s] / sigma
    want = 2 * stats.t.ppf(0.975, n - 1) * mean_s * math.sqrt(0.04 / n)
    assert ci_width(n, 0.04, 0.05) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("width", [0.02, 0.05, 0.1, 0.3])
def test_ci_design_is_smallest(width):
    d = topics_needed("ci", width, 0.03)
    assert d.reached == ci_width(d.topics, 0.06) <= width
    assert d.topics == 2 or ci_width(d.topics - 1, 0.06) > width


def test_more_topics_for_less():
    assert topics_needed("t", 0.05, 0.05).topics > topics_needed("t", 0.1, 0.05).topics
    assert topics_needed("t", 0.1, 0.1).topics > topics_needed("t", 0.1, 0.05).topics
    assert topics_needed("anova", 0.1, 0.05, systems=10).topics > \
        topics_needed("anova", 0.1, 0.05, systems=2).topics


def test_table_grid():
    rows = table("anova", [0.02, 0.05], [0.05, 0.1, 0.2], systems=[2, 10])
    assert len(rows) == 12
    assert [(r.systems, r.variance, r.diff) for r in rows[:3]] == \
        [(2, 0.02, 0.05), (2, 0.02, 0.1), (2, 0.02, 0.2)]
    assert rows[0].row()["method"] == "anova"
    assert all(r.systems == 2 for r in table("t", [0.02], [0.1], systems=[7]))


def test_variance_estimates():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.1, 0.8, 20) + rng.normal(0, 0.1, (4, 20))
    assert variance_estimate(x) == two_way(x).ms_residual
    assert variance_estimate(x, "within") == within_variance(x)
    assert variance_estimate(x, "within") > variance_estimate(x)   # topic difficulty in it


def test_refusals():
    with pytest.raises(UsageError, match="unknown design"):
        topics_needed("z", 0.1, 0.05)
    with pytest.raises(UsageError, match="positive"):
        topics_needed("t", 0.0, 0.05)
    with pytest.raises(UsageError, match="positive"):
        topics_needed("t", 0.1, math.nan)
    with pytest.raises(UsageError, match="two systems"):
        topics_needed("anova", 0.1, 0.05, systems=1)
    with pytest.raises(UsageError, match="more than"):
        topics_needed("t", 1e-6, 1.0)
    with pytest.raises(UsageError, match="residual or within"):
        variance_estimate(np.ones((2, 3)), "total")
    assert math.isnan(t_power(1, 0.1, 0.1))


# --------------------------------------------------------------------------- on the command line

def test_command_tables(cli):
    res = cli("topics", "--diff", "0.05,0.1", "--variance", "0.02", "--variance", "0.05")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("Topics needed (Sakai 2016), paired t-test, α = 0.05, β = 0.2")
    want = [[topics_needed("t", d, v).topics for d in (0.05, 0.1)] for v in (0.02, 0.05)]
    assert [ln.split()[1:] for ln in lines[-2:]] == [[str(n) for n in row] for row in want]
    anova = cli("topics", "-d", "anova", "--systems", "2,10", "--diff", "0.1", "--variance",
                "0.05", "-f", "csv").output.splitlines()
    assert anova[0] == "label,method,variance,diff,alpha,beta,systems,topics,reached"
    assert [row.split(",")[6] for row in anova[1:]] == ["2", "10"]


def test_command_estimates_the_variance(cli, sample):
    import smarteval
    from smarteval.stats.merit import shared_values
    runs = [sample.runs[i] for i in (0, 2, 1)]      # bm25, bm25_rm3, dense
    res = cli("topics", sample.qrels, runs, "-m", "map", "--diff", "0.05", "-f", "json",
              "--estimate", "within")
    assert res.exit_code == 0, res.output
    import json
    (row,) = json.loads(res.output)
    _, values = shared_values(smarteval.evaluate(sample.qrels, runs, "map"), ["map"], "")
    assert row["label"] == "map" and row["variance"] == within_variance(values[:, 0])
    assert row["topics"] == topics_needed("t", 0.05, row["variance"]).topics


@pytest.mark.parametrize("args,message", [
    (["--diff", "0.1"], "Error: give --variance, or QRELS and two or more RUNS"),
    (["--diff", "x", "--variance", "0.1"], "Usage: smarteval topics [OPTIONS] [QRELS] "
     "[RUNS]...\nTry 'smarteval topics --help' for help.\n\nError: Invalid value for "
     "'--diff': 'x' is not a finite number (ASCII digits; an optional sign, "
     "fraction and exponent).\n"),
    (["--diff", ",", "--variance", "0.1"], "Error: --diff: give at least one number\n"),
    (["--diff", "0.1", "--variance", "0.1", "sample_data/qrels.txt", "sample_data/bm25.run",
      "sample_data/dense.run"], "Error: --variance is given"),
    (["--diff", "0.1", "sample_data/qrels.txt", "sample_data/bm25.run"],
     "Error: estimating a variance needs QRELS and two or more RUNS"),
    (["--diff", "-0.1", "--variance", "0.1"], "Error: the difference must be a positive"),
])
def test_command_usage_errors(args, message, cli):
    res = cli("topics", args)
    assert res.exit_code == 2 and res.output.startswith(message), res.output
