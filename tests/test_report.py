"""smarteval report: the table of a paper. Marks against scipy's p-values and a Holm sequence
done by hand over every pair, Tukey against scipy.stats.tukey_hsd, the vectorised tests
against scipy's, the LaTeX compiled (or parsed), every format, the API, the errors."""

from __future__ import annotations

import html.parser
import json
import math
import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
from fixtures import examples, invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import smarteval
from smarteval.stats.significance import UNDEFINED, intervals, paired_test, paired_tests
from smarteval.stats.table import build_table, letters
from smarteval.stats.tukey import tukey_independent

QRELS = "sample_data/qrels.txt"
RUNS = ["sample_data/bm25.run", "sample_data/bm25_rm3.run", "sample_data/dense.run"]


def fake_runs(values: np.ndarray, names=None, measures=("m1", "m2")):
    """Evaluations as build_table reads them: ``values`` (runs, measures, queries)."""
    r, m, q = values.shape
    qids = np.array([f"q{i:02d}" for i in range(q)])
    return [SimpleNamespace(name=(names or [f"r{i}" for i in range(r)])[i], path=f"r{i}.run",
                            qids=qids,
                            per_query={measures[j]: values[i, j] for j in range(m)})
            for i in range(r)], list(measures)


@pytest.fixture
def six_runs():
    rng = np.random.default_rng(7)
    effect = np.array([0.0, 0.02, 0.05, 0.08, 0.12, 0.2])[:, None, None]
    topic = rng.random((1, 2, 25))
    return np.clip(topic + effect + 0.08 * rng.standard_normal((6, 2, 25)), 0, 1)


def holm_by_hand(p: list[float]) -> list[float]:
    """Holm's step-down as textbooks write it: sort, multiply the i-th by m - i + 1, carry
    the running maximum, cap at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p[i]))
        out[i] = running
    return out


# --------------------------------------------------------------------------- the marks

def test_all_pairs_t_marks_follow_scipy_and_holm_by_hand(six_runs):
    evs, names = fake_runs(six_runs)
    t = build_table(evs, names, test="t", alpha=0.05)
    pairs = [(a, b) for a in range(6) for b in range(a + 1, 6)]
    assert t.pairs.tolist() == [list(x) for x in pairs]
    raw = {(a, b, m): float(stats.ttest_rel(six_runs[a, m], six_runs[b, m]).pvalue)
           for m in range(2) for a, b in pairs}
    keys = list(raw)
    held = dict(zip(keys, holm_by_hand([raw[k] for k in keys]), strict=True))
    assert t.family == len(keys) == 30
    for k, (a, b) in enumerate(pairs):
        for m in range(2):
            assert t.p_value[k, m] == pytest.approx(raw[(a, b, m)], rel=1e-12)
            assert t.p_adjusted[k, m] == pytest.approx(held[(a, b, m)], rel=1e-12)
    marks = t.marks()
    expected_marks = 0
    for a, b, m in keys:
        if held[(a, b, m)] < 0.05:
            win, lose = (a, b) if six_runs[a, m].mean() > six_runs[b, m].mean() else (b, a)
            assert lose in marks[win][m]
            assert win not in marks[lose][m]
            expected_marks += 1
    assert sum(len(c) for row in marks for c in row) == expected_marks > 3
    # letters name the runs beaten
    cell = next(c for c in t.cells() if c["run"] == "r5" and c["measure"] == "m1")
    assert cell["marks"] == "".join(letters(6)[i] for i in marks[5][0])
    assert cell["best"] and cell["rank"] == 1


@pytest.mark.parametrize("correction", ["bonferroni", "bh", "none"])
def test_other_corrections_over_the_whole_table(six_runs, correction):
    evs, names = fake_runs(six_runs)
    t = build_table(evs, names, test="t", correction=correction)
    p = t.p_value.ravel()
    want = {"bonferroni": np.minimum(1, p * len(p)),
            "bh": stats.false_discovery_control(p, method="bh"), "none": p}[correction]
    np.testing.assert_allclose(t.p_adjusted.ravel(), want, rtol=1e-12)


def test_baselines_get_a_dagger_each(six_runs):
    evs, names = fake_runs(six_runs)
    t = build_table(evs, names, baselines=["r0", "r1"], test="t")
    assert t.symbols == ["\u2020", "\u2021"]
    assert len(t.pairs) == 2 * 5 and t.family == 20
    raw = [float(stats.ttest_rel(six_runs[a, m], six_runs[b, m]).pvalue)
           for a, b in t.pairs.tolist() for m in range(2)]
    np.testing.assert_allclose(t.p_adjusted.ravel(), holm_by_hand(raw), rtol=1e-12)
    marks = t.marks()
    for k, (a, b) in enumerate(t.pairs.tolist()):
        for m in range(2):
            beaten = t.p_adjusted[k, m] < 0.05 and t.diff[k, m] > 0
            assert (t.baselines.index(b) in marks[a][m]) == beaten
    assert marks[5][0] == [0, 1]           # the strongest run beats both baselines
    assert marks[0][0] == []               # a baseline below the other is not marked


def test_independent_tukey_is_scipys(six_runs):
    evs, names = fake_runs(six_runs)
    t = build_table(evs, names, test="tukey-independent")
    assert t.correction == "none"
    for m in range(2):
        ref = stats.tukey_hsd(*six_runs[:, m])
        for k, (a, b) in enumerate(t.pairs.tolist()):
            assert t.p_value[k, m] == pytest.approx(ref.pvalue[a, b], rel=1e-9)
            assert t.statistic[k, m] == pytest.approx(ref.statistic[a, b], rel=1e-12)
    np.testing.assert_array_equal(t.p_adjusted, t.p_value)
    held = build_table(evs, names, test="tukey-independent", correction="holm")
    np.testing.assert_allclose(held.p_adjusted.ravel(), holm_by_hand(list(t.p_value.ravel())))


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_independent_tukey_intervals_are_statsmodels(confidence):
    from itertools import combinations

    from statsmodels.stats.multicomp import pairwise_tukeyhsd
    rng = np.random.default_rng(11)
    values = np.clip(rng.random((1, 2, 113)) + np.linspace(0, 0.1, 8)[:, None, None]
                     + 0.1 * rng.standard_normal((8, 2, 113)), 0, 1)
    evs, names = fake_runs(values)
    t = build_table(evs, names, test="tukey-independent", confidence=confidence)
    rows = {(r["measure"], r["run"], r["other"]): r for r in t.comparisons()}
    assert len(rows) == 2 * 28
    for m, name in enumerate(names):
        ref = pairwise_tukeyhsd(values[:, m].ravel(), np.repeat(np.arange(8), 113),
                                alpha=1 - confidence)
        # statsmodels: group j - group i for each i < j; smarteval: run a - run b
        for (i, j), diff, (low, high), p in zip(combinations(range(8), 2), ref.meandiffs,
                                                ref.confint, ref.pvalues):
            r = rows[(name, f"r{i}", f"r{j}")]
            assert r["diff"] == pytest.approx(-diff, abs=1e-12)
            assert (r["ci_low"], r["ci_high"]) == pytest.approx((-high, -low), abs=1e-6)
            assert r["p_value"] == pytest.approx(p, abs=1e-6)


def test_independent_tukey_json_gives_each_pairs_interval(cli, sample):
    res = cli("report", "-t", "tukey-independent", "--pairs", "-f", "json", str(sample.qrels),
              *map(str, sample.runs))
    pairs = json.loads(res.output)["comparisons"]
    assert pairs and all(r["ci_low"] < r["diff"] < r["ci_high"] for r in pairs)


def test_tukey_without_spread():
    # scipy: q = 0.2 / 0 is infinite (p 0), q = 0 / 0 undefined (NaN), not p = 1
    stat, p, low, high = tukey_independent(np.array([[0.5] * 4, [0.5] * 4, [0.7] * 4]))
    assert math.isnan(p[0, 1]) and p[0, 2] == 0.0
    np.testing.assert_array_equal(low, stat)
    np.testing.assert_array_equal(high, stat)


# --------------------------------------------------------------------------- the tests

@pytest.fixture
def diffs():
    rng = np.random.default_rng(3)
    base = rng.random((12, 10)).round(2)
    run = np.clip(base + rng.normal(0.05, 0.15, (12, 10)), 0, 1).round(2)
    run[0] = base[0]                        # no difference at all
    run[1] = base[1] + 0.1                  # the same difference everywhere
    return base, run


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign"])
def test_vectorised_tests_are_compares(diffs, test):
    base, run = diffs
    stat, p, _ = paired_tests(test, base, run)
    for i in range(len(base)):
        one = paired_test(test, base[i], run[i])
        assert p[i] == pytest.approx(one.p_value, rel=1e-12, abs=0, nan_ok=True)
        assert stat[i] == pytest.approx(one.statistic, rel=1e-12, nan_ok=True)


def test_exact_randomization_is_scipys_permutation_test(diffs):
    base, run = diffs
    _, p, exact = paired_tests("randomization", base, run, samples=10000)
    assert exact                                        # 2^10 <= 10000
    for i in range(2, len(base)):
        ref = stats.permutation_test((run[i], base[i]), lambda x, y, axis: np.mean(x - y, axis),
                                     permutation_type="samples", vectorized=True,
                                     n_resamples=np.inf)
        assert p[i] == pytest.approx(ref.pvalue, rel=1e-12), i
    assert p[0] == 1.0


def test_sampled_randomization_is_close_to_exact():
    rng = np.random.default_rng(5)
    base = rng.random((4, 16))
    run = base + rng.normal(0.08, 0.2, (4, 16))
    _, exact_p, exact = paired_tests("randomization", base, run, samples=2 ** 16)
    _, p, sampled = paired_tests("randomization", base, run, samples=20000, seed=1)
    assert exact and sampled is False
    one_side = exact_p / 2                  # p is twice the smaller tail's share
    se = 2 * np.sqrt(one_side * (1 - one_side) / 20000)
    assert np.all(np.abs(p - exact_p) <= 4 * se + 1e-4)
    _, again, _ = paired_tests("randomization", base, run, samples=20000, seed=1)
    np.testing.assert_array_equal(p, again)             # seeded


def test_bootstrap_test_and_interval(diffs):
    base, run = diffs
    _, p, _ = paired_tests("bootstrap", base, run, samples=5000)
    assert p[0] == 1.0 and p[1] == pytest.approx(2 / 5001)
    for i in range(2, len(base)):
        assert abs(p[i] - paired_test("bootstrap", base[i], run[i], samples=5000).p_value) \
            < 0.05
    lo, hi = intervals(run, "bootstrap", 0.9, samples=20000, seed=2)
    for i in range(2, len(run)):
        ref = stats.bootstrap((run[i],), np.mean, confidence_level=0.9, method="percentile",
                              n_resamples=20000, rng=np.random.default_rng(9))
        assert lo[i] == pytest.approx(ref.confidence_interval.low, abs=0.01)
        assert hi[i] == pytest.approx(ref.confidence_interval.high, abs=0.01)
    lo, hi = intervals(run, "t", 0.95)
    for i in range(len(run)):
        ref = stats.t.interval(0.95, len(run[i]) - 1, loc=run[i].mean(), scale=stats.sem(run[i]))
        if np.std(run[i]) > 0:
            assert (lo[i], hi[i]) == pytest.approx(ref, rel=1e-12)


def test_wins_are_keens_counts(six_runs):
    evs, names = fake_runs(six_runs.round(1))
    t = build_table(evs, names, tolerance=0.0)
    for row in t.win_counts():
        a, b = int(row["run"][1:]), int(row["other"][1:])
        m = names.index(row["measure"])
        d = six_runs.round(1)[a, m] - six_runs.round(1)[b, m]
        assert (row["better"], row["equal"], row["worse"]) == \
            (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))


def test_letters():
    assert letters(3) == ["a", "b", "c"]
    assert letters(54)[26] == "A" and letters(54)[52:] == ["aa", "ab"]


# --------------------------------------------------------------------------- outputs

@pytest.mark.parametrize("args", [["-b", "bm25", "-b", "dense", "--ci", "bootstrap"],
                                  ["--ci", "t", "--second", "-t", "randomization"]])
def test_latex_parses_then_compiles(tmp_path, args):
    args = [*args, "--wins", "--label", "sample_data/bm25.run=B\u00f6hm & co_1%"]
    res = invoke("report", QRELS, *RUNS, "-f", "latex", "--standalone", *args)
    assert res.exit_code == 0, res.output
    doc = res.output
    assert doc.startswith("\\documentclass{article}") and doc.endswith("\\end{document}\n")
    assert r"\toprule" in doc and r"\textbf{" in doc
    assert "B\u00f6hm \\& co\\_1\\%" in doc
    tex = invoke("report", QRELS, *RUNS, "-f", "latex", *args).output    # the table alone
    assert tex.startswith("% needs \\usepackage{booktabs}\n\\begin{table}")
    assert tex.rstrip().endswith("\\end{table}") and tex.split("\n", 1)[1] in doc
    # the parser is a test dependency: it always runs
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexWalker
    nodes, _, _ = LatexWalker(doc, tolerant_parsing=False).get_latex_nodes()
    envs = []

    def walk(ns):
        for n in ns or []:
            if isinstance(n, LatexEnvironmentNode):
                envs.append(n.environmentname)
            walk(getattr(n, "nodelist", None))
    walk(nodes)
    assert envs.count("document") == 1
    assert envs.count("table") == 2 and envs.count("tabular") == 2
    # then TeX compiles it, where pdflatex is installed (always in CI)
    if not shutil.which("pdflatex"):
        pytest.skip("pdflatex is not installed: the LaTeX was parsed, not compiled")
    (tmp_path / "t.tex").write_text(doc)
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 1000
    assert "Undefined control sequence" not in run.stdout


def test_markdown_table(tmp_path):
    res = invoke("report", QRELS, *RUNS, "-m", "map", "-m", "P.10", "-f", "markdown")
    lines = res.output.splitlines()
    assert lines[0].startswith("Mean over 15 queries")
    assert "Holm correction over 6 comparisons" in lines[0] and "0.05" in lines[0]
    assert "| c  | dense    | **0.2658**<sup>a</sup> | **0.5200** |" in res.output


def test_html_is_one_self_contained_table():
    res = invoke("report", QRELS, *RUNS, "-f", "html", "-b", "bm25", "--wins")
    seen = []

    class Tags(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            seen.append(tag)
    Tags().feed(res.output)
    assert seen.count("table") == 2 and "caption" in seen
    assert not {"link", "script", "img", "style"} & set(seen)
    # a mean and its marks: two touching cells, the means of a column aligned
    assert re.search(r"<b>0\.2658</b></td><td[^>]*><sup>\u2020</sup>", res.output)


def test_data_formats_carry_the_marks():
    res = invoke("report", QRELS, *RUNS, "-m", "map", "-f", "json", "-b", "bm25", "--wins",
                 "--deltas")
    obj = json.loads(res.output)
    assert obj["test"] == "t" and obj["correction"] == "holm" and obj["family"] == 2
    dense = next(c for c in obj["cells"] if c["run"] == "dense")
    assert dense["better_than"] == ["bm25"] and dense["best"]
    cmp = next(c for c in obj["comparisons"] if c["run"] == "dense")
    ref = stats.ttest_rel(*[smarteval.evaluate(QRELS, r, "map")[0].per_query["map"]
                            for r in (RUNS[2], RUNS[0])]).pvalue
    assert cmp["p_value"] == pytest.approx(ref, rel=1e-12)
    assert cmp["p_adjusted"] == pytest.approx(min(1, 2 * ref), rel=1e-12)
    assert len(obj["deltas"]) == 2 * 15 and len(obj["wins"]) == 2
    cells = invoke("report", QRELS, *RUNS, "-m", "map", "-f", "tsv").output
    assert "\n\n" not in cells and len(cells.splitlines()) == 4     # one table: the cells
    assert cells.splitlines()[0].split("\t")[:4] == ["run", "measure", "n", "mean"]
    comparisons = invoke("report", QRELS, *RUNS, "-m", "map", "-f", "tsv", "--pairs").output
    assert comparisons.splitlines()[0].split("\t") == [
        "measure", "run", "other", "n", "mean_run", "mean_other", "diff", "ci_low", "ci_high",
        "es_e", "test", "statistic", "p_value", "p_adjusted", "significant", "better"]
    assert len(comparisons.splitlines()) == 4
    csv_out = invoke("report", QRELS, *RUNS, "-m", "map", "-f", "csv", "--no-header").output
    assert not csv_out.startswith("run,")


def test_api_frames_and_deltas():
    pytest.importorskip("pandas")
    rep = smarteval.report(QRELS, {"BM25": RUNS[0], "Dense": RUNS[2]}, ["map", "nDCG@10"],
                           baselines="BM25", interval="t")
    frame = rep.to_frame()
    assert list(frame.index) == ["BM25", "Dense"] and list(frame.columns) == ["map", "nDCG@10"]
    assert frame.loc["Dense", "map"] == pytest.approx(0.2658, abs=1e-4)
    assert frame.attrs["marks"][("Dense", "map")] == ["BM25"]
    deltas = rep.deltas_frame()
    assert len(deltas) == 2 * 15 and set(deltas["run"]) == {"Dense"}
    assert rep.comparisons_frame()["p_adjusted"].notna().all()
    assert rep.wins_frame()["better"].sum() > 0
    assert "\\begin{tabular}" in rep.to_latex() and "<table" in rep.to_html()


def test_labels_name_runs_by_path_or_tag():
    res = invoke("report", QRELS, *RUNS, "-m", "map", "-f", "json", "--label",
                 "./sample_data/bm25.run=BM25", "--label", "dense=Dense", "-b", "BM25")
    obj = json.loads(res.output)
    assert [r["run"] for r in obj["runs"]] == ["BM25", "bm25_rm3", "Dense"]
    assert obj["baselines"] == [{"run": "BM25", "symbol": "\u2020"}]


def test_labels_and_more_than_26_runs():
    values = np.random.default_rng(1).random((30, 1, 8))
    evs, names = fake_runs(values, measures=("m",))
    t = build_table(evs, names, labels=["r3=three"], test="randomization", samples=200)
    assert t.runs[3] == "three" and t.symbols[27] == "B" and len(t.pairs) == 435


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("args, words", [
    (["--label", "bm25"], "expected RUN=NAME"),
    (["-b", "nosuch"], "--baseline nosuch: none of the runs given"),
    (["--label", "nosuch=x"], "--label nosuch: none of the runs given"),
    (["-b", "bm25", "-t", "tukey"], "compares every pair of runs at once"),
    (["--deltas"], "--deltas"),
    (["--label", "bm25=x", "--label", "dense=x"], "several runs are labelled"),
])
def test_usage_errors(args, words):
    res = invoke("report", QRELS, RUNS, args, catch_exceptions=True)
    assert res.exit_code == 2
    assert words in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert "Traceback" not in res.output


# --------------------------------------------------------------------------- Tukey, NaN


def test_table_tukey_is_blocked(six_runs):
    from smarteval.stats.anova import two_way
    from smarteval.stats.tukey import tukey_hsd
    evs, names = fake_runs(six_runs)
    t = build_table(evs, names, test="tukey")
    assert t.correction == "none"
    a, b = t.pairs[:, 0], t.pairs[:, 1]
    for m in range(2):
        scores = np.ascontiguousarray(six_runs[:, m])
        ref = tukey_hsd(scores)
        for got, want in ((t.p_value, ref.p), (t.statistic, ref.q), (t.pair_low, ref.ci_low),
                          (t.effect, ref.es)):
            np.testing.assert_allclose(got[:, m], want[a, b], rtol=1e-12, atol=1e-300)
        assert t.critical[m] == pytest.approx(ref.needed(0.05), rel=1e-12)
        assert t.anovas[m].ss_system == pytest.approx(two_way(scores).ss_system, rel=1e-12)
        np.testing.assert_array_equal(t.better[:, m] != 0, ref.p[a, b] < 0.05)
    rows = t.comparisons()
    assert {"es_e", "ci_low", "ci_high", "n"} <= set(rows[0])
    assert [r["source"] for r in t.anova_rows()[:4]] == ["system", "topic", "residual", "total"]
    assert t.anova_rows()[0]["eta2"] == t.anovas[0].eta2


def test_table_randomized_tukey(six_runs):
    from smarteval.stats.tukey import randomized_tukey
    evs, names = fake_runs(six_runs)
    t = build_table(evs, names, test="randomized-tukey", samples=2000, seed=3)
    ref = randomized_tukey(np.ascontiguousarray(six_runs[:, 1]), samples=2000, seed=3)
    np.testing.assert_array_equal(t.p_value[:, 1], ref.p[t.pairs[:, 0], t.pairs[:, 1]])
    assert t.exact is False and t.critical[1] == ref.critical(0.05)


def test_table_leaves_undefined_values_out():
    """A NaN per-query value (-J, a query with nothing judged) is never a difference, a win,
    a mark or a best mean: its query leaves that measure, and a note names it."""
    rng = np.random.default_rng(2)
    v = rng.random((3, 2, 8))
    v[1, 0] = v[0, 0] + 0.3                  # run 1 far ahead on m1
    v[:, 0, 2] = np.nan                      # query q02 has no m1 value at all
    v[2, 1, :] = np.nan                      # run 2 has no m2 value anywhere
    evs, names = fake_runs(v)
    t = build_table(evs, names, test="t")
    assert t.queries(0) == 7 and t.queries(1) == 0
    np.testing.assert_allclose(t.means[:, 0], np.delete(v[:, 0], 2, axis=1).mean(axis=1))
    assert np.isnan(t.means[:, 1]).all()
    assert not t.best[:, 1].any() and (t.rank[:, 1] == 0).all()
    assert t.wins[:, 0].sum(axis=1).tolist() == [7, 7, 7]
    assert (t.wins[:, 1] == 0).all() and not t.better[:, 1].any()
    assert t.notes == ["m1: 1 query without a value (NaN) in r0, r1, r2 left out of its "
                       "means and tests: q02",
                       "m2: 8 queries without a value (NaN) in r2 left out of its means and "
                       "tests: q00, q01, q02, q03, q04, q05, q06, q07"]


def test_table_nan_mean_is_not_bold():
    v = np.array([[[0.5, np.nan, 0.2]], [[0.4, 0.3, 0.1]]])
    evs, names = fake_runs(v, measures=("m1",))
    t = build_table(evs, names)
    assert t.best[:, 0].tolist() == [True, False]        # over queries q00 and q02
    assert t.cells()[0]["n"] == 2


@pytest.mark.parametrize("test", ["tukey", "tukey-independent", "randomized-tukey"])
def test_table_tukey_on_one_query(test):
    v = np.array([[[0.5]], [[0.4]], [[0.1]]])
    evs, names = fake_runs(v, measures=("m1",))
    t = build_table(evs, names, test=test)
    if test == "randomized-tukey":
        assert (t.p_value == 1.0).all()
    else:
        assert np.isnan(t.p_value).all() and not t.better.any()
        assert t.notes == [f"m1: {test} needs two queries or more with a value in every run: "
                           "no test"]


# --------------------------------------------------------------------------- on the command line

UNJUDGED_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n3 0 e 1\n3 0 f 0\n"
UNJUDGED_RUNS = {  # query 3 retrieves nothing judged: -J leaves it no value on iprec_at_recall
    "r1": "1 Q0 a 1 3 r1\n1 Q0 b 2 2 r1\n2 Q0 c 1 3 r1\n2 Q0 x 2 2 r1\n3 Q0 y 1 3 r1\n",
    "r2": "1 Q0 b 1 3 r2\n1 Q0 a 2 2 r2\n2 Q0 d 1 3 r2\n2 Q0 c 2 2 r2\n3 Q0 y 1 3 r2\n"}


@pytest.fixture
def unjudged(tmp_path):
    (tmp_path / "qrels").write_text(UNJUDGED_QRELS)
    for name, text in UNJUDGED_RUNS.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / n) for n in ("qrels", "r1", "r2")]


def test_undefined_values_on_the_command_line(unjudged):
    """-J with a query whose documents are all unjudged: its NaN is no difference, no mark
    (compare marked p = 0.0002 * beside an empty difference) and no best mean (report
    made the empty mean bold)."""
    res = invoke("compare", "-J", "-m", "iprec_at_recall.0", "-t", "randomization,sign",
                 unjudged, "-f", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["comparisons"]
    assert [r["n"] for r in rows] == [2, 2] and not any(r["significant"] for r in rows)
    assert all(r["mean_diff"] == -0.25 for r in rows)
    assert res.stderr == ("smarteval: r2: iprec_at_recall_0.00: 1 query without a value (NaN) "
                          "in r1, r2 left out of its means and tests: 3\n")
    res = invoke("report", "-J", "-m", "iprec_at_recall.0", "-m", "map", *unjudged, "-f",
                 "json")
    cells = json.loads(res.stdout)["cells"]
    iprec = [c for c in cells if c["measure"] == "iprec_at_recall_0.00"]
    assert [(c["n"], c["mean"], c["best"]) for c in iprec] == [(2, 1.0, True), (2, 0.75, False)]
    smart = invoke("report", "-J", "-m", "iprec_at_recall.0", *unjudged).output
    assert "**" not in smart and "(fewer where a run has no value: iprec_at_recall_0.00 2)" \
        in smart


def test_tukey_on_one_shared_query(tmp_path):
    """Runs sharing one query: a note, no test and no traceback (scipy's "sample size
    must be greater than one" leaked before)."""
    (tmp_path / "q").write_text("1 0 a 1\n")
    for name, doc in (("r1", "a"), ("r2", "b"), ("r3", "a")):
        (tmp_path / name).write_text(f"1 Q0 {doc} 1 1 {name}\n")
    for test in ("tukey", "tukey-independent"):
        res = invoke("report", "-m", "map", "-t", test, tmp_path / "q",
                     [tmp_path / n for n in ("r1", "r2", "r3")])
        assert res.exit_code == 0 and "Traceback" not in res.output
        assert f"Note: map: {test} needs two queries or more" in res.output
        assert "^" not in res.output


def test_report_anova_and_randomized_tukey_on_the_command_line():
    res = invoke("report", QRELS, *RUNS, "-m", "map", "-t", "tukey", "--anova", "-f", "json")
    obj = json.loads(res.output)
    assert [r["source"] for r in obj["anova"]] == ["system", "topic", "residual", "total"]
    assert obj["needed"]["map"] > 0
    assert all(c["ci_low"] < c["diff"] < c["ci_high"] for c in obj["comparisons"])
    t = smarteval.report(QRELS, RUNS, "map", test="tukey")
    assert obj["anova"][0]["f"] == pytest.approx(t.table.anovas[0].f_system, rel=1e-12)
    assert list(t.anova_frame().columns)[:3] == ["measure", "source", "ss"]
    text = invoke("report", QRELS, *RUNS, "-m", "map", "-t", "randomized-tukey", "--samples",
                  "500", "--seed", "2").output
    assert "randomised Tukey HSD over the 3 pairs of each measure, 500 permutations" in text
    blocked = invoke("report", QRELS, *RUNS, "-m", "map", "-t", "tukey").output
    assert "Tukey's HSD on the residual variance of the two-way ANOVA, blocked by query" \
        in blocked


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_table_properties(data):
    """Any runs: one query or many, equal runs, NaN values anywhere; every test gives p in
    [0, 1] or NaN (with a note), a NaN mean is never the best, and nothing raises."""
    runs = data.draw(st.integers(2, 4))
    queries = data.draw(st.integers(1, 6))
    cell = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.just(np.nan),
                     st.floats(0, 1, allow_nan=False))
    v = np.array(data.draw(st.lists(st.lists(cell, min_size=queries, max_size=queries),
                                    min_size=runs, max_size=runs)))
    if data.draw(st.booleans()):
        v[1] = v[0]                                    # two equal runs
    evs, names = fake_runs(v[:, None, :], measures=("m1",))
    test = data.draw(st.sampled_from(["t", "wilcoxon", "sign", "randomization", "bootstrap",
                                      "tukey", "randomized-tukey", "tukey-independent"]))
    t = build_table(evs, names, test=test, samples=200)
    p = t.p_value[~np.isnan(t.p_value)]
    assert np.all((p >= 0) & (p <= 1))
    assert not t.best[np.isnan(t.means)].any()
    defined = ~np.isnan(v).any(axis=0)
    assert t.queries(0) == int(defined.sum())
    if defined.sum() and (v[:, defined] == v[0, defined]).all():
        assert not t.better.any()                      # equal runs: nothing is marked
    if np.isnan(t.p_value).any() and defined.sum() and test in ("tukey", "tukey-independent"):
        assert any("no test" in n or "is undefined" in n for n in t.notes)
    if np.isnan(t.p_value).any() and defined.sum() >= 2 and test in UNDEFINED:
        assert any(f"the {test} test is undefined" in n for n in t.notes), t.notes


def test_constant_data_have_no_f_and_nothing_marked(tmp_path, sample):
    # two copies of a run: F = 0/0, Tukey's q = 0/0, ES_E = 0/0; printed as undefined
    # with a note, none of them a mark (compare: scipy's ttest_rel of equal samples is nan)
    copy = tmp_path / "copy.run"
    copy.write_bytes(sample.runs[0].read_bytes())
    args = ["report", "-m", "map", "-t", "tukey", str(sample.qrels), str(sample.runs[0]),
            str(copy)]
    data = json.loads(invoke(*args, "--anova", "--pairs", "-f", "json").stdout)
    system = next(r for r in data["anova"] if r["source"] == "system")
    assert system["f"] is None and system["p"] is None
    pair, = data["comparisons"]
    assert pair["p_value"] is None and pair["es_e"] is None and not pair["significant"]
    assert all(c["marks"] == "" for c in data["cells"])
    text = invoke(*args, "--anova").stdout
    row = next(ln for ln in text.splitlines() if ln.startswith("map") and "system" in ln)
    assert row.split()[5:7] == ["undefined", "undefined"]
    assert "map: the ANOVA's F of the runs is undefined: the residual variance and the " \
           "effect's sum of squares are both 0, so F = 0/0" in text
    assert "map: the tukey test is undefined for 1 of 1 pairs" in text
