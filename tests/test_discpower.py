"""Discriminative power: each test's ASLs are that test's p-values, the share of pairs
below alpha, and the difference needed separates exactly the significant pairs."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from smarteval.errors import UsageError
from smarteval.stats.discpower import discpower, discriminative_power
from smarteval.stats.significance import adjust, critical_differences, paired_tests
from smarteval.stats.tukey import randomized_tukey, tukey_hsd


@pytest.fixture
def scores():
    rng = np.random.default_rng(5)
    topic = rng.uniform(0.1, 0.7, 30)
    gain = np.array([0.0, 0.01, 0.04, 0.05, 0.09, 0.15])[:, None]
    return np.clip(topic + gain + rng.normal(0, 0.08, (6, 30)), 0, 1).round(4)


RUNS = [f"r{i}" for i in range(6)]


def test_randomized_tukey(scores):
    d = discriminative_power(scores, runs=RUNS, measure="map", samples=5000, seed=2)
    r = randomized_tukey(scores, samples=5000, seed=2)
    a, b = d.pairs[:, 0], d.pairs[:, 1]
    assert len(d.pairs) == 15 and d.correction == "none"
    np.testing.assert_array_equal(d.asl, r.p[a, b])
    assert d.significant == np.count_nonzero(r.p[a, b] < 0.05)
    assert d.share == d.significant / 15
    np.testing.assert_array_equal(d.asl < 0.05, np.abs(d.diff) > d.needed + 1e-12)
    np.testing.assert_array_equal(d.curve(), np.sort(d.asl))
    assert 0 < d.significant < 15                     # the fixture separates some pairs


def test_blocked_tukey(scores):
    d = discriminative_power(scores, runs=RUNS, measure="map", test="tukey")
    t = tukey_hsd(scores)
    np.testing.assert_allclose(d.asl, t.p[d.pairs[:, 0], d.pairs[:, 1]], rtol=1e-12)
    np.testing.assert_array_equal(d.asl < 0.05, np.abs(d.diff) > d.needed)


@pytest.mark.parametrize("correction", ["none", "bonferroni", "holm"])
def test_paired_t(scores, correction):
    d = discriminative_power(scores, runs=RUNS, measure="map", test="t", correction=correction)
    raw = np.array([stats.ttest_rel(scores[a], scores[b]).pvalue for a, b in d.pairs])
    np.testing.assert_allclose(d.asl, adjust(raw, correction), rtol=1e-10)
    # each pair's critical difference at the Bonferroni level (alpha itself without a
    # correction): beyond it exactly where raw p is below that level
    level = 0.05 if correction == "none" else 0.05 / 15
    crit = critical_differences("t", scores[d.pairs[:, 0]] - scores[d.pairs[:, 1]], level)
    np.testing.assert_array_equal(raw < level, np.abs(d.diff) > crit)
    assert d.needed == pytest.approx(crit.max(), rel=1e-12)
    if correction == "none":
        np.testing.assert_array_equal(d.asl < 0.05, np.abs(d.diff) > crit)


def test_paired_randomization(scores):
    d = discriminative_power(scores, runs=RUNS, measure="map", test="randomization",
                             samples=4000, seed=1)
    a, b = d.pairs[:, 0], d.pairs[:, 1]
    _, p, exact = paired_tests("randomization", scores[b], scores[a], samples=4000, seed=1)
    assert exact is False and d.correction == "holm"
    np.testing.assert_array_equal(d.asl, adjust(p, "holm"))
    crit = critical_differences("randomization", scores[a] - scores[b], 0.05 / 15,
                                samples=4000, seed=1)
    assert d.needed == crit.max()
    # the critical difference of a pair is where its sampled p falls to the level
    level = 0.05 / 15
    clear = np.abs(np.abs(d.diff) - crit) > 0.01
    np.testing.assert_array_equal((p <= level)[clear], (np.abs(d.diff) > crit)[clear])


def test_exact_randomization_critical_difference():
    d = np.array([[0.1, 0.2, -0.05, 0.3, 0.15, 0.25, -0.1, 0.2]])
    signs = np.array(list(np.ndindex(*(2,) * 8))) * -2 + 1
    null = np.abs((signs * d).mean(axis=1))
    want = np.quantile(null, 0.95, method="higher")
    assert critical_differences("randomization", d, 0.05, samples=1000)[0] == \
        pytest.approx(want, rel=1e-12)


def evaluation(name, qids, values: dict):
    return SimpleNamespace(name=name, path=name, qids=np.array(qids),
                           per_query={k: np.array(v, dtype=float) for k, v in values.items()})


def test_measures_and_undefined_queries():
    evs = [evaluation("a", ["1", "2", "3", "4"], {"m": [0.1, 0.5, 0.3, 0.2],
                                                  "n": [0.1, math.nan, 0.3, 0.4]}),
           evaluation("b", ["1", "2", "3", "4"], {"m": [0.3, 0.6, 0.5, 0.3],
                                                  "n": [0.2, 0.3, 0.5, 0.5]}),
           evaluation("c", ["1", "2", "3", "4", "5"], {"m": [0.2, 0.2, 0.1, 0.4, 0.9],
                                                       "n": [0.3, 0.3, 0.1, 0.1, 0.1]})]
    m, n = discpower(evs, ["m", "n"], test="tukey")
    assert m.queries == 4 and n.queries == 3 and m.notes == []
    assert n.notes == ["n: 1 query without a value (NaN) in a left out of its means and "
                       "tests: 2"]
    want = discriminative_power(np.array([[0.1, 0.3, 0.4], [0.2, 0.5, 0.5], [0.3, 0.1, 0.1]]),
                                runs=["a", "b", "c"], measure="n", test="tukey")
    np.testing.assert_array_equal(n.asl, want.asl)
    assert [r["run"] + r["other"] for r in m.rows()] == ["ab", "ac", "bc"]


def test_refusals(scores):
    with pytest.raises(UsageError, match="discriminative power takes"):
        discriminative_power(scores, runs=RUNS, measure="map", test="sign")
    with pytest.raises(UsageError, match="two runs"):
        discriminative_power(scores[:1], runs=RUNS[:1], measure="map")
    with pytest.raises(UsageError, match="two queries"):
        discriminative_power(scores[:, :1], runs=RUNS, measure="map")


# --------------------------------------------------------------------------- on the command line

QRELS = "sample_data/qrels.txt"
RUN_FILES = [f"sample_data/{n}.run" for n in ("bm25", "bm25_rm3", "dense")]


def test_command_is_the_library(cli):
    import json

    import smarteval
    from smarteval.stats.merit import shared_values
    res = cli("discpower", QRELS, RUN_FILES, "-m", "map", "-m", "P.10", "-f", "json",
              "--samples", "3000")
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    evs = smarteval.evaluate(QRELS, RUN_FILES, ["map", "P.10"])
    _, values = shared_values(evs, ["map", "P_10"], "")
    for m, got in enumerate(obj["measures"]):
        want = discriminative_power(values[:, m], runs=["bm25", "bm25_rm3", "dense"],
                                    measure=got["measure"], samples=3000)
        assert [p["asl"] for p in got["pairs"]] == want.asl.tolist()
        assert got["needed"] == want.needed and got["significant"] == want.significant
    text = cli("discpower", QRELS, RUN_FILES, "-m", "map", "--pairs", "-t", "t").stdout
    assert "paired t-test of each pair, Holm correction over the pairs" in text
    assert "bm25_rm3  dense" in text
    summary = cli("discpower", QRELS, RUN_FILES, "-m", "map", "-f", "tsv").stdout
    pairs = cli("discpower", QRELS, RUN_FILES, "-m", "map", "-f", "tsv", "--pairs").stdout
    assert "\n\n" not in summary and len(summary.splitlines()) == 2
    assert summary.splitlines()[0].split("\t")[:3] == ["measure", "test", "correction"]
    assert len(pairs.splitlines()) == 4


@pytest.mark.parametrize("args,message", [
    (["-t", "sign"], "Invalid value for '-t' / '--test'"),
    (["--alpha", "0"], "Invalid value for '--alpha'"),
    (["--samples", "0"], "--samples must be a whole number from 1"),
    (["--label", "x"], "--label 'x': expected RUN=NAME"),
])
def test_command_usage_errors(args, message, cli, sample):
    res = cli("discpower", sample.qrels, sample.runs, args)
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


def test_command_needs_two_runs(cli, sample):
    res = cli("discpower", sample.qrels, sample.runs[0])
    assert res.exit_code == 2
    assert res.output == "Error: discriminative power needs two runs or more\n"
