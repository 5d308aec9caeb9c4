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


# --------------------------------------------------------------------------- from the papers

def sakai_bootstrap(x: np.ndarray, alpha: float, samples: int, seed: int):
    """Sakai (SIGIR 2006) written out, one pair and one resample at a time: z = x - y,
    t(z) = mean(z) / (s_z / sqrt(n)); w = z - mean(z); resample b draws n query indices
    with replacement (the b-th row of default_rng(seed).integers(0, n, (B, n)), the same
    rows for every pair); ASL = #{|t(w*b)| >= |t(z)|} / B; the difference required is
    |mean(w*b)| of the ceil(alpha B)-th largest |t(w*b)|, the largest over the pairs."""
    m, n = x.shape
    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, n, size=n) for _ in range(samples)]

    def t_of(v):
        if all(e == v[0] for e in v):
            return 0.0 if v[0] == 0 else math.inf
        return abs(np.mean(v)) / (np.std(v, ddof=1) / math.sqrt(len(v)))

    asl, diffs = [], []
    for a in range(m):
        for b in range(a + 1, m):
            z = x[a] - x[b]
            w = z - z.mean() if not all(e == z[0] for e in z) else np.zeros(n)
            ts, means = [], []
            for idx in draws:
                wb = w[idx]
                ts.append(t_of(wb))
                means.append(abs(wb[0]) if all(e == wb[0] for e in wb) else abs(np.mean(wb)))
            observed = t_of(z)
            asl.append(sum(t >= observed for t in ts) / samples)
            order = sorted(range(samples), key=lambda i: (-ts[i], i))
            diffs.append(means[order[math.ceil(alpha * samples) - 1]])
    return np.array(asl), max(diffs)


def discpower_tukey(x: np.ndarray, alpha: float, samples: int, seed: int):
    """Sakai's Discpower (randomised Tukey HSD; Carterette 2012, Sakai 2014) written out:
    each of B trials permutes every topic's scores across the systems (one
    Generator.shuffle of each topic's row, topic after topic, trial after trial) and
    keeps the largest difference of system means; a pair's ASL is the share of trials
    whose largest difference reaches its |difference|; the difference needed is the
    ceil(alpha B)-th largest of them."""
    m, n = x.shape
    rng = np.random.default_rng(seed)
    ranges = []
    for _ in range(samples):
        permuted = np.empty((n, m))
        for t in range(n):
            row = x[:, t].copy()
            rng.shuffle(row)
            permuted[t] = row
        sums = permuted.sum(axis=0)
        ranges.append((sums.max() - sums.min()) / n)
    means = x.mean(axis=1)
    asl = [sum(r >= abs(means[a] - means[b]) - 1e-12 for r in ranges) / samples
           for a in range(m) for b in range(a + 1, m)]
    return np.array(asl), sorted(ranges, reverse=True)[math.ceil(alpha * samples) - 1]


@pytest.mark.parametrize("alpha,samples,seed", [(0.05, 1000, 0), (0.1, 333, 7)])
def test_bootstrap_is_sakai_2006(scores, alpha, samples, seed):
    x = scores[:4, :13]
    d = discriminative_power(x, runs=RUNS[:4], measure="map", test="bootstrap",
                             alpha=alpha, samples=samples, seed=seed)
    asl, needed = sakai_bootstrap(x, alpha, samples, seed)
    assert d.correction == "none" and d.exact is None
    np.testing.assert_array_equal(d.asl, asl)
    assert d.needed == pytest.approx(needed, rel=1e-12)


def test_bootstrap_blocks_draw_the_same_resamples(scores, monkeypatch):
    import importlib
    module = importlib.import_module("smarteval.stats.discpower")
    significance = importlib.import_module("smarteval.stats.significance")
    whole = discriminative_power(scores, runs=RUNS, measure="map", test="bootstrap",
                                 samples=700, seed=3)
    monkeypatch.setattr(significance, "_BLOCK", 30 * 37)          # 37 resamples at once
    monkeypatch.setattr(module, "_GATHERED", 30 * 37 * 2)         # two pairs at once
    blocked = discriminative_power(scores, runs=RUNS, measure="map", test="bootstrap",
                                   samples=700, seed=3)
    np.testing.assert_array_equal(blocked.asl, whole.asl)
    assert blocked.needed == whole.needed


def test_bootstrap_degenerate_pairs():
    x = np.array([[0.25, 0.5, 0.75, 0.125], [0.25, 0.5, 0.75, 0.125], [0.5, 0.75, 1, 0.375]])
    d = discriminative_power(x, runs=RUNS[:3], measure="map", test="bootstrap", samples=200)
    # equal runs: t = 0, every resample as extreme; a constant difference: t infinite,
    # every resample of w = 0 has t = 0
    np.testing.assert_array_equal(d.asl, [1.0, 0.0, 0.0])
    asl, needed = sakai_bootstrap(x, 0.05, 200, 0)
    np.testing.assert_array_equal(d.asl, asl)
    assert d.needed == needed == 0.0


def test_bootstrap_with_a_correction(scores):
    d = discriminative_power(scores, runs=RUNS, measure="map", test="bootstrap",
                             correction="holm", samples=500, seed=1)
    raw = discriminative_power(scores, runs=RUNS, measure="map", test="bootstrap",
                               samples=500, seed=1)
    np.testing.assert_array_equal(d.asl, adjust(raw.asl, "holm"))
    from smarteval.stats.discpower import bootstrap_tests
    _, needs = bootstrap_tests(scores[d.pairs[:, 0]] - scores[d.pairs[:, 1]], 0.05 / 15,
                               samples=500, seed=1)
    assert d.needed == needs.max()


@pytest.mark.parametrize("alpha,samples,seed", [(0.05, 400, 0), (0.1, 250, 4)])
def test_randomized_tukey_is_discpower(scores, alpha, samples, seed):
    x = scores[:4, :9]
    d = discriminative_power(x, runs=RUNS[:4], measure="map", alpha=alpha, samples=samples,
                             seed=seed)
    asl, needed = discpower_tukey(x, alpha, samples, seed)
    assert d.exact is False
    np.testing.assert_array_equal(d.asl, asl)
    assert d.needed == pytest.approx(needed, rel=1e-12)


@pytest.mark.parametrize("test,reference", [
    ("bootstrap", "studentized paired bootstrap test of each pair (Sakai, SIGIR 2006, "
                  "\"Evaluating evaluation metrics based on the bootstrap\"), 1000 resamples"),
    ("randomized-tukey", "randomised Tukey HSD over every pair at once (Sakai's Discpower; "
                         "Carterette, TOIS 2012; Sakai, PROMISE 2014), 1000 permutations"),
])
def test_caption_names_the_method_that_ran(cli, test, reference):
    res = cli("discpower", QRELS, RUN_FILES, "-m", "map", "-t", test, "--samples", "1000")
    assert res.exit_code == 0, res.output
    assert reference in res.stdout.replace("\n", " ")
    other = "Sakai, SIGIR 2006" if test == "randomized-tukey" else "Discpower"
    assert other not in res.stdout


def test_api_and_plot_take_the_bootstrap(tmp_path, cli):
    import smarteval
    d = smarteval.discpower(QRELS, RUN_FILES, "map", test="bootstrap", samples=500, seed=2)
    assert d.results[0].test == "bootstrap"
    res = cli("discpower", QRELS, RUN_FILES, "-m", "map", "-t", "bootstrap", "--samples",
              "500", "--seed", "2", "-f", "json")
    import json
    assert json.loads(res.stdout)["measures"][0]["pairs"] == d.results[0].rows()
    from smarteval.plot.data import asl_data
    a = asl_data(QRELS, RUN_FILES, ["map"], test="bootstrap", samples=500, seed=2)
    np.testing.assert_array_equal(a.results[0].asl, d.results[0].asl)
    assert "Sakai, SIGIR 2006" in a.title
