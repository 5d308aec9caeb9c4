"""The notebook API: results as frames and dicts, compare/curve/correlate as the commands
compute them, ir_measures' and pytrec_eval's faces, and the API's doctests."""

from __future__ import annotations

import doctest
import random
from pathlib import Path

import numpy as np
import pytest
from fixtures import invoke

import smarteval

pd = pytest.importorskip("pandas")
ir_measures = pytest.importorskip("ir_measures")

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(ROOT / "sample_data" / "qrels.txt")
RUNS = [str(ROOT / "sample_data" / f"{n}.run") for n in ("bm25", "dense", "bm25_rm3")]


def cli(*args: str) -> str:
    out = invoke(*args)
    assert out.exit_code == 0, out.output
    return out.stdout


# --------------------------------------------------------------------------- results as data

def test_results_stay_a_list_of_evaluations():
    res = smarteval.evaluate(QRELS, RUNS, ["map", "P.10", "relstring"])
    assert isinstance(res, list) and all(isinstance(ev, smarteval.Evaluation) for ev in res)
    assert isinstance(res[0].per_query["P_10"], np.ndarray)


def test_tidy_frame_is_the_tsv():
    res = smarteval.evaluate(QRELS, RUNS, ["official", "relstring"])
    tsv = cli("evaluate", "-f", "tsv", "-q", "-m", "official", QRELS, *RUNS)
    rows = [line.split("\t") for line in tsv.splitlines()[1:]]
    rows = [r for r in rows if r[2] != "runid"]
    frame = res.frame(per_query=True)
    assert list(frame.columns) == ["run", "query", "measure", "value"]
    assert frame["value"].dtype == np.float64
    assert [list(r[:3]) for r in frame.itertuples(index=False)] == [r[:3] for r in rows]
    np.testing.assert_array_equal(frame["value"].to_numpy(), [float(r[3]) for r in rows])
    assert res.render("tsv", per_query=True) == cli("evaluate", "-f", "tsv", "-q", "-m",
                                                    "official", "-m", "relstring", QRELS, *RUNS)
    summary = res.frame()
    assert (summary["query"] == "all").all() and len(summary) == sum(
        r[1] == "all" for r in rows)


def test_wide_frame_and_dicts():
    res = smarteval.evaluate(QRELS, RUNS, ["map", "P.5,10"])
    wide = res.wide()
    assert list(wide.index) == ["bm25", "dense", "bm25_rm3"]
    assert list(wide.columns) == ["map", "P_5", "P_10"]
    assert wide.loc["dense", "map"] == res[1].summary["map"]
    d = res.to_dict()
    assert d["bm25"] == {"map": res[0].summary["map"], "P_5": res[0].summary["P_5"],
                         "P_10": res[0].summary["P_10"]}
    per_q = res.to_dict(per_query=True)
    assert list(per_q["dense"]) == res[1].qids.tolist()
    assert per_q["dense"]["401"]["P_5"] == res[1].value("P_5", "401")
    assert all(type(v) is float for v in per_q["bm25"]["401"].values())
    assert set(res.per_query("map")) == {"bm25", "dense", "bm25_rm3"}


# --------------------------------------------------------------------------- compare

def test_compare_equals_the_cli_tsv():
    args = ["-m", "map", "-m", "P.10", "-t", "t,randomization,wilcoxon", "--correction",
            "bonferroni", "--samples", "2000"]
    tsv = cli("compare", "-f", "tsv", *args, QRELS, *RUNS)
    cmp = smarteval.compare(QRELS, RUNS[0], RUNS[1:], ["map", "P.10"],
                            tests=["t", "randomization", "wilcoxon"], correction="bonferroni",
                            samples=2000)
    assert cmp.to_tsv() == tsv
    assert cmp.render("smart") == cli("compare", *args, QRELS, *RUNS)
    assert cmp.to_markdown() == cli("compare", "-f", "markdown", *args, QRELS, *RUNS)
    assert cmp.to_latex() == cli("compare", "-f", "latex", *args, QRELS, *RUNS)
    frame = cmp.frame()
    assert list(frame.columns) == tsv.splitlines()[0].split("\t")
    assert len(frame) == len(tsv.splitlines()) - 1
    assert frame["p_value"].tolist() == [r["p_value"] for r in cmp.report.rows]


def test_compare_takes_frames_and_names():
    frames = {Path(p).stem: pd.DataFrame(list(ir_measures.read_trec_run(p))) for p in RUNS}
    qrels = pd.DataFrame(list(ir_measures.read_trec_qrels(QRELS)))
    cmp = smarteval.compare(qrels, {"bm25": frames["bm25"]},
                            {"dense": frames["dense"], "rm3": RUNS[2]}, "map")
    path = smarteval.compare(QRELS, RUNS[0], RUNS[1:], "map")
    assert [r["run"] for r in cmp.report.rows] == ["dense", "rm3"]
    assert cmp.report.baseline == "bm25"
    for a, b in zip(cmp.report.rows, path.report.rows):
        assert a["p_value"] == b["p_value"] and a["mean_diff"] == b["mean_diff"]


# --------------------------------------------------------------------------- curve, correlate

def test_curve_equals_the_cli():
    c = smarteval.curve(QRELS, RUNS, "5", method="pseudo")
    assert c.render("tsv") == cli("curve", "-f", "tsv", "--method", "pseudo", "--levels", "5",
                                  QRELS, *RUNS)
    assert c.to_markdown() == cli("curve", "-f", "markdown", "--method", "pseudo",
                                  "--levels", "5", QRELS, *RUNS)
    frame = c.frame()
    assert frame["run"].tolist()[:5] == ["bm25"] * 5 and len(frame) == 15
    pts = smarteval.curve(QRELS, RUNS[1:], cutoffs_from=RUNS[0])
    assert pts.render("tsv") == cli("curve", "-f", "tsv", "--cutoffs-from", RUNS[0], QRELS,
                                    *RUNS[1:])


def test_correlate_from_files_and_from_evaluations(tmp_path):
    out = tmp_path / "e.tsv"
    out.write_text(cli("evaluate", "-f", "tsv", "-m", "map", "-m", "P.10", "-m", "ndcg",
                       QRELS, *RUNS))
    from_file = smarteval.correlate(str(out))
    assert from_file.render("tsv") == cli("correlate", "-f", "tsv", str(out))
    res = smarteval.evaluate(QRELS, RUNS, ["map", "P.10", "ndcg"])
    from_api = smarteval.correlate(res)
    assert from_api.render("tsv") == from_file.render("tsv")
    assert list(from_api.frame().columns)[:3] == ["measure_a", "measure_b", "systems"]
    assert from_api.leaderboard().shape == (3, 3)


# ----------------------------------------------------------------- ir_measures, pytrec_eval

def generated(seed: int):
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(12):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(30)]
        for d in rng.sample(docs, 15):
            qrels.append(ir_measures.Qrel(qid, d, rng.choice([0, 0, 1, 2, 3])))
        if q % 5 != 4:                                     # some queries without results
            for d in rng.sample(docs, rng.randint(1, 25)):
                run.append(ir_measures.ScoredDoc(qid, d, float(rng.randint(0, 40)) / 4))
    return qrels, run


IR = ["AP", "AP@10", "P@5", "P(rel=2)@10", "R@20", "RR", "nDCG", "nDCG@10", "Rprec", "Bpref",
      "Judged@10", "NumRet", "NumRelRet", "NumQ", "SetP", "SetR", "infAP"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_calc_aggregate_and_iter_calc_equal_ir_measures(seed):
    from smarteval.measures.grammar import IR_NAMES
    names = [n for n in IR if n.split("@")[0].split("(")[0] in IR_NAMES]
    assert len(names) >= 12
    measures = [ir_measures.parse_measure(n) for n in names]
    qrels, run = generated(seed)
    want = ir_measures.calc_aggregate(measures, qrels, run)
    got = smarteval.calc_aggregate(measures, qrels, run)
    assert set(got) == set(want)
    for m in measures:
        assert got[m] == pytest.approx(want[m], abs=1e-12), str(m)
    by_string = smarteval.calc_aggregate(names, qrels, run)
    assert {str(m): v for m, v in by_string.items()} == {str(m): v for m, v in got.items()}
    want_q = sorted((m.query_id, str(m.measure), m.value)
                    for m in ir_measures.iter_calc(measures, qrels, run))
    got_q = sorted((m.query_id, str(m.measure), m.value)
                   for m in smarteval.iter_calc(measures, qrels, run))
    assert [r[:2] for r in got_q] == [r[:2] for r in want_q]
    np.testing.assert_allclose([r[2] for r in got_q], [r[2] for r in want_q], atol=1e-12)
    first = next(smarteval.iter_calc(measures[:1], qrels, run))
    assert type(first) is ir_measures.Metric


def test_relevance_evaluator_equals_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_t, run_t = generated(4)
    qrels: dict = {}
    run: dict = {}
    for q in qrels_t:
        qrels.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    for r in run_t:
        run.setdefault(r.query_id, {})[r.doc_id] = r.score
    measures = {"map", "ndcg", "P", "recall", "recip_rank", "bpref", "ndcg_cut.10",
                "num_rel_ret", "Rprec"}
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    got = smarteval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert set(got) == set(want)
    for q in want:
        for m, v in want[q].items():
            assert got[q][m] == pytest.approx(v, abs=1e-12), (q, m)


# --------------------------------------------------------------------------- doctests

@pytest.mark.parametrize("module", ["smarteval.api", "smarteval.read"])
def test_docstring_examples_run(module, monkeypatch):
    import importlib
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_ir_measure_for_pyterrier_is_smartevals_value():
    qrels, run = generated(5)
    m = smarteval.ir_measure("norm_recall", num_docs=40)
    got = {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, run)}
    ev = smarteval.evaluate(qrels, run, "norm_recall", num_docs=40)[0]
    want = dict(zip(ev.qids.tolist(), ev.per_query["norm_recall"].tolist()))
    assert {q: v for q, v in got.items() if q in want} == want


# --------------------------------------------------------------------------- the notebook example

def test_notebook_example_runs_and_readme_shows_it():
    import subprocess
    import sys
    script = (ROOT / "docs" / "notebook.py").read_text(encoding="utf-8")
    out = subprocess.run([sys.executable, "docs/notebook.py"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"```python\n{script}```\n\nprints\n\n```text\n{out}```" in readme, \
        "README's notebook example differs from docs/notebook.py or its output"


#: (curve keyword arguments, the notes of the result): what standard error says of it
CURVE_NOTES = [
    ({}, []),
    ({"rel_level": 9}, ["nothing is relevant at -l 9: no judgement of the queries evaluated "
                        "has a grade of 9 or more (the highest is 2), so every measure of "
                        "relevant documents is 0"]),
    ({"rel_level": 9, "cutoffs_from": RUNS[1]},
     ["nothing is relevant at -l 9: no judgement of the queries evaluated has a grade of 9 "
      "or more (the highest is 2), so every measure of relevant documents is 0"]),
]


@pytest.mark.parametrize("kwargs,notes", CURVE_NOTES, ids=["-l 1", "-l 9", "cutoffs -l 9"])
def test_curve_notes(kwargs, notes):
    c = smarteval.curve(QRELS, RUNS[0], **kwargs)
    assert c.notes() == notes
    assert len(c.result.qids) == 1 and len(c.result.qids[0]) > 0    # the one run's queries
