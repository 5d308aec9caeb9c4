"""smarteval report: the table of a paper. Marks against scipy's p-values and a Holm sequence
done by hand over every pair, Tukey against scipy.stats.tukey_hsd, the vectorised tests
against scipy's, the LaTeX compiled (or parsed), every format, the API, the errors."""

from __future__ import annotations

import html.parser
import json
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
from fixtures import invoke
from scipy import stats

import smarteval
from smarteval.stats.significance import intervals, paired_test, paired_tests, tukey
from smarteval.stats.table import build_table, letters

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


def test_tukey_is_scipys(six_runs):
    evs, names = fake_runs(six_runs)
    t = build_table(evs, names, test="tukey")
    assert t.correction == "none"
    for m in range(2):
        ref = stats.tukey_hsd(*six_runs[:, m])
        for k, (a, b) in enumerate(t.pairs.tolist()):
            assert t.p_value[k, m] == pytest.approx(ref.pvalue[a, b], rel=1e-9)
            assert t.statistic[k, m] == pytest.approx(ref.statistic[a, b], rel=1e-12)
    np.testing.assert_array_equal(t.p_adjusted, t.p_value)
    held = build_table(evs, names, test="tukey", correction="holm")
    np.testing.assert_allclose(held.p_adjusted.ravel(), holm_by_hand(list(t.p_value.ravel())))


def test_tukey_without_spread():
    stat, p = tukey(np.array([[0.5] * 4, [0.5] * 4, [0.7] * 4]))
    assert p[0, 1] == 1.0 and p[0, 2] == 0.0


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
        assert p[i] == pytest.approx(one.p_value, rel=1e-12, abs=0)
        assert stat[i] == pytest.approx(one.statistic, rel=1e-12)


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
    assert "<b>0.2658</b><sup>\u2020</sup>" in res.output


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
    tsv = invoke("report", QRELS, *RUNS, "-m", "map", "-f", "tsv").output
    cells, comparisons = tsv.split("\n\n")
    assert comparisons.splitlines()[0].split("\t") == [
        "measure", "run", "other", "mean_run", "mean_other", "diff", "test", "statistic",
        "p_value", "p_adjusted", "significant", "better"]
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
