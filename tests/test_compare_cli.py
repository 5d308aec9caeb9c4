"""smarteval compare and correlate end to end: seed numbers through the CLI, scipy agreement,
errors."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math

import numpy as np
import pytest
from fixtures import invoke
from scipy import stats

from smarteval import stats as C
from smarteval.api import evaluate
from smarteval.cli import main
from smarteval.render.compare import COLUMNS

# --------------------------------------------------------------------------- data

def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.fixture
def fig35(tmp_path):
    """Twelve queries, P@1: the run wins 6 (Keen's option I), loses 4, ties 2."""
    # (baseline's top document relevant, run's top document relevant)
    plan = [(0, 1)] * 6 + [(1, 0)] * 4 + [(1, 1), (0, 0)]
    qrels, base, run = [], [], []
    for i, (b, r) in enumerate(plan, start=1):
        q = f"q{i:02d}"
        qrels += [f"{q} 0 R 1", f"{q} 0 N 0"]
        for lines, good, tag in ((base, b, "base"), (run, r, "new")):
            first, second = ("R", "N") if good else ("N", "R")
            lines += [f"{q} Q0 {first} 1 2.0 {tag}", f"{q} Q0 {second} 2 1.0 {tag}"]
    return (_write(tmp_path / "qrels", qrels), _write(tmp_path / "base.run", base),
            _write(tmp_path / "new.run", run))


@pytest.fixture
def random_runs(tmp_path):
    """Three runs of 15 queries over 60 documents; the third lacks queries 3 and 7."""
    rng = np.random.default_rng(4)
    qrels, runs = [], {"base": [], "better": [], "holes": []}
    for q in range(1, 16):
        grades = rng.choice([0, 0, 0, 1, 2], size=60)
        qrels += [f"{q} 0 D{d} {g}" for d, g in enumerate(grades)]
        for name, skill in (("base", 1.0), ("better", 1.8), ("holes", 1.2)):
            if name == "holes" and q in (3, 7):
                continue
            score = rng.normal(size=60) + skill * (grades > 0)
            order = np.argsort(-score)[:40]
            runs[name] += [f"{q} Q0 D{d} {r + 1} {score[d]:.6f} {name}"
                           for r, d in enumerate(order)]
    paths = {n: _write(tmp_path / f"{n}.run", lines) for n, lines in runs.items()}
    return _write(tmp_path / "qrels", qrels), paths


def _tsv(text):
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


# --------------------------------------------------------------------------- Keen

def test_fig35_through_the_cli(fig35):
    qrels, base, run = fig35
    res = invoke("compare", qrels, base, run, "-m", "P.1")
    assert res.exit_code == 0, res.stdout
    line = next(ln for ln in res.stdout.splitlines() if ln.startswith("new") and "60/40" in ln)
    cells = line.split()
    assert cells[:5] == ["new", "P_1", "6", "4", "2"]
    assert "60/40 (+20)" in line and "50/33/17 (+17)" in line and "67/50 (+17)" in line


def test_fig35_json(fig35):
    qrels, base, run = fig35
    res = invoke("compare", qrels, base, run, "-m", "P.1", "-f", "json")
    obj = json.loads(res.stdout)
    m = obj["merit"][0]
    assert (m["better"], m["worse"], m["equal"]) == (6, 4, 2)
    p = m["percentages"]
    assert round(p["ignoring_equal"]["better"]) == 60
    assert round(p["ignoring_equal"]["superiority"]) == 20
    assert round(p["including_equal"]["worse"]) == 33 and round(p["including_equal"]["equal"]) == 17
    assert round(p["adding_equal"]["better"]) == 67 and round(p["adding_equal"]["worse"]) == 50
    mg = obj["magnitudes"][0]
    assert [d["difference"] for d in mg["better"]] == [1.0] * 6
    assert [d["difference"] for d in mg["worse"]] == [1.0] * 4


def test_magnitudes_table(fig35):
    qrels, base, run = fig35
    res = invoke("compare", qrels, base, run, "-m", "P.1", "--magnitudes")
    assert "Magnitudes of the differences, new vs base on P_1 (Keen Fig. 36)" in res.stdout
    res = invoke("compare", qrels, base, run, "-m", "P.1", "--magnitudes", "-f", "tsv")
    rows = _tsv(res.stdout)                 # one table: the magnitudes instead
    assert [r["side"] for r in rows] == ["better"] * 6 + ["worse"] * 4
    assert rows[0]["query"] == "q01" and rows[-1]["query"] == "q10"


# --------------------------------------------------------------------------- tests vs scipy

def test_tsv_columns_and_scipy_p_values(random_runs):
    qrels, runs = random_runs
    res = invoke("compare", qrels, runs["base"], runs["better"], runs["holes"], "-m", "map",
                 "-m", "P.10", "-t", "t,wilcoxon", "-t", "sign", "-f", "tsv")
    assert res.exit_code == 0, res.stdout
    header = res.stdout.splitlines()[0].split("\t")
    assert header == list(COLUMNS)
    rows = _tsv(res.stdout)
    assert len(rows) == 2 * 2 * 3
    evs = {ev.name: ev for ev in evaluate(str(qrels), [str(p) for p in runs.values()],
                                         ["map", "P.10"])}
    base = evs["base"]
    for row in rows:
        ev = evs[row["run"]]
        ids, bi, ri = C.align(base.qids, ev.qids)
        b, r = base.per_query[row["measure"]][bi], ev.per_query[row["measure"]][ri]
        assert int(row["n"]) == len(ids) == (13 if row["run"] == "holes" else 15)
        d = r - b
        if row["test"] == "t":
            direct = stats.ttest_rel(r, b).pvalue
        elif row["test"] == "wilcoxon":
            # every choice explicit, as compare makes it (its method column)
            assert row["method"] == ("exact" if np.count_nonzero(d) < 50 and
                                     len(np.unique(np.abs(d[d != 0]))) == np.count_nonzero(d)
                                     else "normal")
            direct = stats.wilcoxon(d[d != 0], zero_method="wilcox", correction=True,
                                    method="exact" if row["method"] == "exact" else
                                    "approx").pvalue
        else:
            direct = stats.binomtest(int(np.sum(d > 0)), int(np.sum(d != 0))).pvalue
        assert float(row["p_value"]) == pytest.approx(direct, rel=1e-12)
        assert float(row["mean_diff"]) == pytest.approx(d.mean(), rel=1e-12)
        assert float(row["effect"]) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    # Holm over the four (run, measure) pairs of each test
    for test in ("t", "wilcoxon", "sign"):
        sub = [r for r in rows if r["test"] == test]
        p = [float(r["p_value"]) for r in sub]
        np.testing.assert_allclose([float(r["p_adjusted"]) for r in sub], C.adjust(p, "holm"))
        for r in sub:
            assert r["significant"] == ("true" if float(r["p_adjusted"]) < 0.05 else "false")


def test_corrections_change_only_the_adjusted_column(random_runs):
    qrels, runs = random_runs
    out = {}
    for corr in ("holm", "bonferroni", "bh", "none"):
        res = invoke("compare", qrels, runs["base"], runs["better"], runs["holes"], "-m", "map",
                     "-m", "P.10", "--correction", corr, "-f", "csv")
        out[corr] = list(csv.DictReader(io.StringIO(res.stdout)))
    p = [float(r["p_value"]) for r in out["none"]]
    assert [float(r["p_adjusted"]) for r in out["none"]] == p
    np.testing.assert_allclose([float(r["p_adjusted"]) for r in out["bonferroni"]],
                               np.minimum(1, np.array(p) * 4))
    np.testing.assert_allclose([float(r["p_adjusted"]) for r in out["bh"]],
                               stats.false_discovery_control(p))


def test_complete_pairs_every_query(random_runs):
    qrels, runs = random_runs
    res = invoke("compare", qrels, runs["base"], runs["holes"], "-f", "tsv")
    assert _tsv(res.stdout)[0]["n"] == "13"
    assert "left out 2 only in the baseline" in res.stderr
    res = invoke("compare", qrels, runs["base"], runs["holes"], "-c", "-f", "tsv")
    assert _tsv(res.stdout)[0]["n"] == "15"


def test_randomization_and_bootstrap_are_seeded(random_runs):
    qrels, runs = random_runs
    args = ["compare", qrels, runs["base"], runs["better"], "-t", "randomization,bootstrap",
            "--samples", "2000", "-f", "tsv"]
    first = invoke(*args, "--seed", "3").stdout
    assert invoke(*args, "--seed", "3").stdout == first
    rows = _tsv(first)
    assert [r["test"] for r in rows] == ["randomization", "bootstrap"]
    boot = rows[1]
    assert float(boot["ci_low"]) <= float(boot["mean_diff"]) <= float(boot["ci_high"])


# --------------------------------------------------------------------------- selection

def test_select_with_precision(fig35):
    qrels, base, run = fig35
    res = invoke("compare", qrels, base, run, "-m", "P.1", "--select", "--select-measure", "P",
                 "--depth", "1", "-f", "json")
    sel = json.loads(res.stdout)["selection"]
    pts = {r["run"]: r["points"] for r in sel["runs"]}
    # 6 won by the run, 4 by the baseline, the 2 ties split at random
    assert sum(pts.values()) == sel["total"] == 12
    assert 6 <= pts["new"] <= 8 and 4 <= pts["base"] <= 6
    assert sel["pcs"] == pytest.approx(C.pcs_exact(2, 12, 1.5))
    assert sel["pcs_method"] == "exact"
    assert "not independent" in sel["caveat"]


def test_select_table_prints_the_caveat(random_runs):
    qrels, runs = random_runs
    res = invoke("compare", qrels, runs["base"], runs["better"], runs["holes"], "--select",
                 "--select-measure", "P", "--depth", "20", "--theta", "1.2")
    assert res.exit_code == 0, res.stdout
    assert "13 queries, 260 points" in res.stdout
    assert "when p_best/p_second >= 1.2" in res.stdout
    assert "Caveat: the points are not independent" in res.stdout


def test_select_default_is_jw_prob(random_runs):
    qrels, runs = random_runs
    res = invoke("compare", qrels, runs["base"], runs["better"], "--select", "--depth", "5")
    assert res.exit_code == 2
    assert res.stderr == ("Error: --select scores jw_prob, which needs the number of documents in "
                          "the collection: give -N/--num-docs, or another cut-off measure with "
                          "--select-measure (P, recall)\n")
    res = invoke("compare", qrels, runs["base"], runs["better"], "--select", "--depth", "5",
                 "-N", "60", "-f", "json")
    assert res.exit_code == 0, res.stdout
    assert json.loads(res.stdout)["selection"]["measure"] == "jw_prob"


# --------------------------------------------------------------------------- tau

def test_lecture_tau_through_the_cli(tmp_path):
    """The lecture's a, b, c, d: tau 0.67, Spearman and Pearson 0.8."""
    qrels = _write(tmp_path / "qrels", ["1 0 a 1", "1 0 b 0"])
    one = _write(tmp_path / "one.run", [f"1 Q0 {d} {i + 1} {s} one" for i, (d, s) in
                                        enumerate([("a", .4), ("b", .3), ("c", .2), ("d", .1)])])
    two = _write(tmp_path / "two.run", [f"1 Q0 {d} {i + 1} {s} two" for i, (d, s) in
                                        enumerate([("a", .4), ("b", .1), ("c", .25), ("d", .05)])])
    res = invoke("compare", qrels, one, two, "--tau", "-f", "json")
    corr = json.loads(res.stdout)["correlation"][0]
    assert round(corr["kendall"], 2) == 0.67
    assert corr["spearman"] == pytest.approx(0.8) and corr["pearson"] == pytest.approx(0.8)
    assert corr["queries"] == 1 and corr["common"] == 4
    table = invoke("compare", qrels, one, two, "--tau").stdout
    assert "0.6667" in table and "0.8000" in table


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("args,code,message", [
    (["-t", "t,ztest"], 2, "Error: unknown test 'ztest': --test takes t, wilcoxon, sign, "
                          "randomization, bootstrap\n"),
    (["--select", "--select-measure", "map"], 2,
     "Error: --select-measure 'map' has no document cut-offs: give one that does, such as "
     "jw_prob, P or recall (the cut-offs are 1..--depth)\n"),
    (["--select", "--select-measure", "nope"], 2,
     "Error: unknown --select-measure 'nope': give a measure with cut-offs, such as jw_prob, P "
     "or recall ('smarteval measures' lists them)\n"),
    (["-m", "runid"], 2, "Error: no measure to compare: runid have no number for each query\n"),
])
def test_usage_errors(fig35, args, code, message):
    qrels, base, run = fig35
    res = invoke("compare", qrels, base, run, *args)
    assert res.exit_code == code
    assert res.stderr == message


def test_missing_run_file(fig35, tmp_path):
    qrels, base, _ = fig35
    res = invoke("compare", qrels, base, tmp_path / "nope.run")
    assert res.exit_code == 1
    assert res.stderr == f"Error: {tmp_path / 'nope.run'}: no such file\n"


def test_plot(fig35, tmp_path):
    qrels, base, run = fig35
    out = tmp_path / "fig36.png"
    res = invoke("compare", qrels, base, run, "-m", "P.1", "--plot", out)
    if importlib.util.find_spec("matplotlib") is None:
        assert res.exit_code == 2 and "plotting needs matplotlib" in res.stderr
        return
    assert res.exit_code == 0 and out.stat().st_size > 1000
    assert res.stderr == f"smarteval: wrote {out}\n"
    # several comparisons: one file each, named after the run and the measure
    res = invoke("compare", qrels, base, run, "-m", "P.1,2", "--plot", out)
    assert res.exit_code == 0
    assert (tmp_path / "fig36-new-P_1.png").exists() and (tmp_path / "fig36-new-P_2.png").exists()
    res = invoke("compare", qrels, base, run, "--plot", tmp_path / "fig36.jpg")
    assert res.exit_code == 2 and "the output's suffix names the image format" in res.stderr


# --------------------------------------------------------------------------- correlate

@pytest.fixture
def results(random_runs, tmp_path):
    qrels, runs = random_runs
    files = {}
    for name, path in runs.items():
        res = invoke("evaluate", qrels, path, "-f", "trec", "-m", "map", "-m", "P.10", "-m",
                     "recip_rank", "-m", "runid")
        files[name] = tmp_path / f"{name}.trec"
        files[name].write_text(res.stdout)
    return qrels, runs, files


def test_correlate_trec_files(results):
    _, _, files = results
    res = invoke("correlate", *files.values(), "-f", "tsv")
    assert res.exit_code == 0, res.stdout
    rows = _tsv(res.stdout)
    assert [(r["measure_a"], r["measure_b"]) for r in rows] == [
        ("map", "recip_rank"), ("map", "P_10"), ("recip_rank", "P_10")]
    summary = {}
    for name, path in files.items():
        vals = {ln.split()[0]: float(ln.split()[2]) for ln in path.read_text().splitlines()
                if ln.split()[0] != "runid"}
        summary[name] = vals
    x = [summary[n]["map"] for n in files]
    y = [summary[n]["P_10"] for n in files]
    assert float(rows[1]["kendall"]) == pytest.approx(stats.kendalltau(x, y).statistic)
    assert int(rows[1]["systems"]) == 3


def test_correlate_tsv_and_json(results, tmp_path):
    qrels, runs, _ = results
    tsv = tmp_path / "all.tsv"
    tsv.write_text(invoke("evaluate", qrels, *runs.values(), "-f", "tsv", "-m", "map",
                          "-m", "P.10").stdout)
    js = tmp_path / "all.json"
    js.write_text(invoke("evaluate", qrels, *runs.values(), "-f", "json", "-m", "map",
                         "-m", "P.10").stdout)
    a = json.loads(invoke("correlate", tsv, "-m", "map", "-m", "P.10", "-f", "json").stdout)
    b = json.loads(invoke("correlate", js, "-m", "map", "-m", "P.10", "-f", "json").stdout)
    assert a["runs"] == b["runs"] == ["base", "better", "holes"]
    assert a["correlations"] == b["correlations"]
    table = invoke("correlate", js).stdout
    assert "Leaderboards of 3 runs" in table


def test_correlate_errors(results, tmp_path):
    qrels, _, files = results
    res = invoke("correlate", qrels)
    assert res.exit_code == 1
    assert res.stderr.startswith(f"Error: {qrels}:1: results line has 4 fields, not 3\n")
    res = invoke("correlate", files["base"])
    assert res.exit_code == 2
    assert res.stderr == "Error: correlate needs the results of at least two runs\n"
    res = invoke("correlate", files["base"], files["better"], "-m", "map")
    assert res.exit_code == 2
    assert res.stderr == ("Error: correlate needs two or more measures shared by every result "
                          "(found map)\n")
    res = invoke("correlate", files["base"], files["better"], "-m", "map", "-m", "bpref")
    assert res.exit_code == 1
    assert res.stderr == (f"Error: {files['base']}: run base has no summary value of bpref\n"
                          "  it has: map recip_rank P_10\n")


def test_help_documents_every_option():
    for cmd in ("compare", "correlate"):
        res = invoke(cmd, "--help")
        assert res.exit_code == 0
        params = main.commands[cmd].params
        for p in params:
            if p.param_type_name == "option":
                assert p.help, f"{cmd} {p.opts} has no help"
                assert p.opts[-1] in res.stdout


def test_json_writes_each_infinity_with_its_sign_and_undefined_as_null(tmp_path):
    # the same gain of 0.1 on every query: t = 0.1 / 0 = +inf (p 0), d_z and g_av +inf;
    # the reverse -inf; every command's JSON writes them "inf" / "-inf", NaN as null
    from smarteval.render.formats import json_number, written
    q = _write(tmp_path / "q", [f"{i} 0 r{i} 1" for i in range(3)])
    base = _write(tmp_path / "base", [f"{i} Q0 x{i} 1 1 base" for i in range(3)])
    run = _write(tmp_path / "run", [f"{i} Q0 r{i} 1 1 run" for i in range(3)])
    for first, second, sign in ((base, run, ""), (run, base, "-")):
        res = invoke("compare", "-m", "P.10", "-f", "json", str(q), str(first), str(second))
        row, = json.loads(res.stdout)["comparisons"]
        assert (row["statistic"], row["effect"], row["g_av"], row["p_value"]) == \
            (f"{sign}inf", f"{sign}inf", f"{sign}inf", 0.0)
    assert [json_number(v) for v in (np.inf, -np.inf, np.nan, 0.5)] == ["inf", "-inf", None, 0.5]
    assert json.loads(written("json", json=lambda: {"v": [np.float64(-np.inf), np.nan]},
                              tables=list, table=str)) == {"v": ["-inf", None]}


def test_identical_runs_print_undefined_not_zero(tmp_path, sample):
    # scipy: ttest_rel of two equal samples is nan; compare printed t = 0, effect 0, p = 1
    copy = tmp_path / "copy.run"
    copy.write_bytes(sample.runs[0].read_bytes())
    args = ["compare", "-t", "t", "-t", "wilcoxon", "-t", "sign", "-t", "randomization",
            str(sample.qrels), str(sample.runs[0]), str(copy)]
    rows = {r["test"]: r for r in json.loads(invoke(*args, "-f", "json").stdout)["comparisons"]}
    for test in ("t", "wilcoxon", "sign"):
        assert rows[test]["p_value"] is None and not rows[test]["significant"], test
        # d_z = 0/0; g_av = 0 over the runs' own spread, which is not 0
        assert rows[test]["effect"] is None and rows[test]["g_av"] == 0.0
    assert rows["t"]["statistic"] is None
    assert math.isnan(stats.ttest_rel([.1, .2, .3], [.1, .2, .3]).pvalue)
    assert rows["randomization"]["p_value"] == 1.0         # every sign assignment reaches 0
    text = invoke(*args).stdout
    t_row = next(ln for ln in text.splitlines() if ln.startswith("copy.run")).split()
    assert t_row[-5:] == ["undefined", "t", "undefined", "undefined", "undefined"]
    assert "Note: copy.run against bm25.run on map: the t test is undefined: every per-query " \
           "difference is 0, so t = 0/0" in text
