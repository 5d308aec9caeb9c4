"""gdeval's, ranx's and ir_measures' graded measures against the programs themselves.

gdeval.pl is the script ir_measures ships (run with perl at full precision, and through
ir_measures, which reads its five printed decimals); ranx and ir_measures' accuracy and
cwl_eval providers are called directly. Queries are generated with graded qrels, ties
and short lists; per query values agree to 1e-9, gdeval's exactly (the same operations
in the same order), and its printed ones to their five decimals.
"""

from __future__ import annotations

import logging
import math
import pkgutil
import shutil
import subprocess

import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.errors import UsageError
from smarteval.read.plain import read_qrels, read_run

ir_measures = pytest.importorskip("ir_measures")
logging.getLogger("ir_measures").setLevel(logging.ERROR)

SETTINGS = settings(max_examples=examples(25), deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

#: gdeval reads numeric topics only
QIDS = ["1", "2", "10", "301"]
DOCS = [f"d{i}" for i in range(8)] + ["D0", "x-1"]
#: 1.00000001 ties 1.0 as a 32-bit float (trec_eval 9's ranking) but not for gdeval
SCORES = [0.0, 0.5, 1.0, 1.00000001, 2.0, -1.0, 3.25]


@st.composite
def collection(draw, top_grade=4, scores=None, same_queries=False):
    """(qrels, run) as dicts: grades -1 .. top_grade, tied scores, short lists."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    scores = st.sampled_from(SCORES) if scores is None else scores
    qrels, run = {}, {}
    for q in qids:
        side = "both" if same_queries else draw(st.sampled_from(["both", "both", "qrels",
                                                                 "run"]))
        if side != "run":
            grades = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, top_grade),
                                          min_size=1, max_size=8))
            if all(g < 0 for g in grades.values()):     # trec_eval refuses such a query
                grades[next(iter(grades))] = 0
            qrels[q] = grades
        if side != "qrels":
            run[q] = draw(st.dictionaries(st.sampled_from(DOCS), scores, min_size=1,
                                          max_size=10))
    if not set(qrels) & set(run):
        qrels.setdefault(qids[0], {"d0": 1})
        run.setdefault(qids[0], {"d0": 1.0})
    return qrels, run


def qrels_text(qrels: dict) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())


def run_text(run: dict) -> str:
    return "".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items()
                   for d, s in docs.items())


def evaluate(qrels, run, specs, **options):
    q = read_qrels("q", data=qrels_text(qrels).encode())
    r = read_run("r", data=run_text(run).encode())
    return smarteval.evaluate(q, r, specs, **options)[0]


# =========================================================================== gdeval

PERL = shutil.which("perl")
needs_perl = pytest.mark.skipif(PERL is None, reason="perl is not installed (gdeval.pl)")


@pytest.fixture(scope="module")
def gdeval(tmp_path_factory):
    """ir_measures' gdeval.pl, printing every digit: (qrels, run, k) -> {qid: (ndcg, err)}."""
    script = pkgutil.get_data("ir_measures", "bin/gdeval.pl").decode()
    assert script.count("%.5f,%.5f") == 1
    path = tmp_path_factory.mktemp("gdeval") / "gdeval.pl"
    path.write_text(script.replace("%.5f,%.5f", "%.17g,%.17g"))
    work = path.parent

    def call(qrels, run, k):
        (work / "q").write_text(qrels_text(qrels))
        (work / "r").write_text(run_text(run))
        out = subprocess.run([PERL, str(path), str(work / "q"), str(work / "r"), str(k)],
                             capture_output=True, text=True, check=True).stdout
        rows = [line.split(",") for line in out.splitlines()[1:] if line]
        return {qid: (float(n), float(e)) for _, qid, n, e in rows}
    return call


def _close(got, want, tol=1e-9) -> bool:
    return math.isclose(float(got), float(want), rel_tol=tol, abs_tol=1e-12)


@needs_perl
@SETTINGS
@given(data=collection(), k=st.sampled_from([1, 3, 5, 20]), version=st.sampled_from([9, 10]),
       complete=st.booleans())
def test_gdeval_per_query(gdeval, data, k, version, complete):
    qrels, run = data
    want = gdeval(qrels, run, k)
    names = [f"ERR@{k}", f"nDCG(dcg='exp-log2')@{k}", f"gd_ndcg.{k}", f"gd_err.{k}"]
    ev = evaluate(qrels, run, names, trec_version=version, complete=complete)
    # the same operations in the same order as gdeval's perl: the same doubles
    for i, qid in enumerate(ev.qids.tolist()):
        ndcg, err = want.get(qid, (0.0, 0.0))       # no line: ir_measures counts 0
        assert ev.per_query[f"ERR@{k}"][i] == err, (qid, "ERR")
        assert ev.per_query[f"nDCG(dcg='exp-log2')@{k}"][i] == ndcg, (qid, "nDCG")
        if qid in run:
            assert ev.per_query[f"gd_err_{k}"][i] == err
            assert ev.per_query[f"gd_ndcg_{k}"][i] == ndcg


@needs_perl
@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collection(), k=st.sampled_from([2, 10]))
def test_gdeval_through_ir_measures(data, k):
    """ir_measures' own numbers: gdeval's five decimals, averaged over the qrels' queries."""
    qrels, run = data
    measures = [ir_measures.ERR @ k, ir_measures.nDCG(dcg="exp-log2") @ k]
    run_docs = {q: dict(sorted(d.items(), key=lambda kv: -kv[1])) for q, d in run.items()}
    agg = ir_measures.calc_aggregate(measures, qrels, run_docs)
    per = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(measures, qrels,
                                                                         run_docs)}
    names = [f"ERR@{k}", f"nDCG(dcg='exp-log2')@{k}"]
    ev = evaluate(qrels, run, names, complete=True)
    for name, m in zip(names, measures):
        for i, qid in enumerate(ev.qids.tolist()):
            assert abs(ev.per_query[name][i] - per[(qid, m)]) <= 5e-6 + 1e-12
        assert abs(ev.summary[name] - agg[m]) <= 5e-6 + 1e-12


@needs_perl
def test_gdeval_refuses_grades_above_4(gdeval):
    qrels, run = {"1": {"a": 5, "b": 1}}, {"1": {"a": 1.0, "b": 2.0}}
    with pytest.raises(subprocess.CalledProcessError):
        gdeval(qrels, run, 10)
    for name in ("ERR@10", "nDCG(dcg='exp-log2')@10"):
        with pytest.raises(UsageError, match="grades up to 4"):
            evaluate(qrels, run, [name])


def test_gdeval_orders_32_bit_ties_by_double_scores():
    """trec_eval 9 ties 1.0 and 1.00000001 (docno descending: b, a); gdeval does not (a, b)."""
    qrels, run = {"1": {"a": 2, "b": 0}}, {"1": {"a": 1.00000001, "b": 1.0}}
    ev = evaluate(qrels, run, ["ERR@1", "P.1"], trec_version=9)
    assert ev.per_query["P_1"].tolist() == [0.0]          # trec_eval's order: b first
    assert ev.per_query["ERR@1"].tolist() == [3 / 16]     # gdeval's: a first


# =========================================================================== ranx

RANX_NAMES = ["ndcg_burges", "dcg", "dcg_burges", "hits", "hit_rate"]


@SETTINGS
@given(data=collection(top_grade=6, same_queries=True,
                       scores=st.floats(-5, 5, allow_nan=False, width=32)),
       k=st.sampled_from([0, 1, 3, 10]), version=st.sampled_from([9, 10]))
def test_ranx_per_query(data, k, version):
    """ranx's numbers on runs without tied scores (ranx orders ties arbitrarily)."""
    ranx = pytest.importorskip("ranx")
    qrels, run = data
    for docs in run.values():
        if len(set(docs.values())) < len(docs):
            return
    metrics = [name if k == 0 and name != "dcg" else f"{name}@{k or 1000}"
               for name in RANX_NAMES]
    q = ranx.Qrels({qid: {d: g for d, g in docs.items()} for qid, docs in qrels.items()})
    r = ranx.Run({qid: dict(docs) for qid, docs in run.items()})
    ranx.evaluate(q, r, metrics, return_mean=False)
    ev = evaluate(qrels, run, metrics, trec_version=version)
    for metric in metrics:
        for i, qid in enumerate(ev.qids.tolist()):
            assert _close(ev.per_query[metric][i], r.scores[metric][qid]), (metric, qid)


def test_ranx_names():
    ev = evaluate({"1": {"a": 2, "b": 1}}, {"1": {"a": 1.0, "b": 2.0, "c": 0.5}},
                  ["ndcg_burges@1", "hits", "hit_rate@1", "dcg@2"])
    assert ev.names == ["ndcg_burges@1", "hits", "hit_rate@1", "dcg@2"]
    assert ev.per_query["hits"].tolist() == [2.0]
    assert ev.per_query["ndcg_burges@1"].tolist() == [pytest.approx(1 / 3)]
    assert ev.per_query["dcg@2"].tolist() == [pytest.approx(1 + 2 / math.log2(3))]
    with pytest.raises(UsageError, match="no err"):
        evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["err@10"])


# =========================================================================== ir_measures

@SETTINGS
@given(data=collection(top_grade=3), k=st.sampled_from([None, 1, 2, 5]),
       rel=st.sampled_from([0, 1, 2]), hi=st.sampled_from([1, 2, 3]),
       lo=st.sampled_from([-1, 0, 1]))
def test_accuracy_and_sdcg(data, k, rel, hi, lo):
    """Accuracy (its accuracy provider) and SDCG (cwl_eval), per query and averaged (-c)."""
    qrels, run = data
    at = "" if k is None else f"@{k}"
    specs = [f"Accuracy(rel={rel}){at}"]
    if k is not None and lo < hi:
        specs.append(f"SDCG(max_rel={hi},min_rel={lo})@{k}")
    run = {q: dict(sorted(d.items(), key=lambda kv: (kv[1], kv[0].encode()), reverse=True))
           for q, d in run.items()}                     # ties in trec_eval's order
    ev = evaluate(qrels, run, specs, complete=True)
    for spec in specs:
        m = eval(spec, {n: getattr(ir_measures, n) for n in ("Accuracy", "SDCG")})
        try:
            per = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, run)}
            mean = ir_measures.calc_aggregate([m], qrels, run)[m]
        except ZeroDivisionError:       # the provider on a query without non-relevant ones
            continue
        # Accuracy has no value where its provider reports none (NaN here)
        assert {q: v for q, v in zip(ev.qids.tolist(), ev.per_query[spec].tolist())
                if not math.isnan(v)}.keys() == per.keys(), spec
        for i, qid in enumerate(ev.qids.tolist()):
            if qid in per:
                assert _close(ev.per_query[spec][i], per[qid]), (spec, qid)
        assert _close(ev.summary[spec], mean) or (math.isnan(ev.summary[spec])
                                                  and math.isnan(mean)), spec


def test_accuracy_leaves_out_the_queries_its_provider_reports_nothing_for(tmp_path):
    """No relevant document retrieved (q2): ir_measures reports no Accuracy for the query
    and averages over the others; smarteval prints no line for it and the same mean."""
    from click.testing import CliRunner

    from smarteval.cli import main
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 0}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}
    want = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Accuracy],
                                                                qrels, run)}
    assert want == {"q1": 1.0}
    assert ir_measures.calc_aggregate([ir_measures.Accuracy], qrels, run) == \
        {ir_measures.Accuracy: 1.0}
    (tmp_path / "q").write_text(qrels_text(qrels))
    (tmp_path / "r").write_text(run_text(run))
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-q", "-m", "Accuracy", "-m",
                                    "AP", *files])
    assert res.exit_code == 0, res.output
    assert res.stdout == ("Accuracy              \tq1\t1.0000\n"
                          "AP                    \tq1\t1.0000\n"
                          "AP                    \tq2\t0.0000\n"
                          "Accuracy              \tall\t1.0000\n"
                          "AP                    \tall\t0.5000\n")
    res = CliRunner().invoke(main, ["evaluate", "-f", "json", "-q", "-m", "Accuracy",
                                    *files])
    assert '"q2": {}' in res.stdout and '"Accuracy": 1.0' in res.stdout
    ev = evaluate(qrels, run, ["Accuracy"], complete=True)
    assert ev.summary["Accuracy"] == 1.0 and math.isnan(ev.per_query["Accuracy"][1])
    got = smarteval.iter_calc(["Accuracy"], qrels, run)
    assert [(m.query_id, m.value) for m in got] == [("q1", 1.0)]
    ev = evaluate({"q1": {"d1": 0}}, {"q1": {"d1": 1.0}}, ["Accuracy"])
    assert math.isnan(ev.summary["Accuracy"])           # ir_measures' mean of nothing


def test_accuracy_without_non_relevant_documents_is_1():
    ev = evaluate({"1": {"a": 1, "b": 1}}, {"1": {"a": 1.0, "b": 2.0}}, ["Accuracy"])
    assert ev.per_query["Accuracy"].tolist() == [1.0]
    with pytest.raises(ZeroDivisionError):
        list(ir_measures.iter_calc([ir_measures.Accuracy], {"1": {"a": 1, "b": 1}},
                                   {"1": {"a": 1.0, "b": 2.0}}))
