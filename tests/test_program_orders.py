"""Each name ranks the run as its reference program does: precision, tie order, line order.

The scores are drawn so that they tie as 32-bit floats but not as doubles (0.1 and
0.10000000001; 1e39 and 5e39, both infinite in 32 bits), and tie exactly too; the
documents come in a random line order. Each family's names are then checked against
their program, query by query, under both ``--trec-version`` values: the program's order
does not depend on it (only trec_eval's own names do).
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.measures import all_measures
from smarteval.measures.grammar import parse_measures
from smarteval.ranking.programs import PROGRAMS, ordered_as
from smarteval.settings import Settings

ir_measures = pytest.importorskip("ir_measures")
logging.getLogger("ir_measures").setLevel(logging.ERROR)

#: scores equal as 32-bit floats, different as doubles, and exactly equal ones
SCORES = [0.1, 0.10000000001, 0.10000000002, 0.3, 1e39, 5e39, 2.0]
DOCNOS = ["a", "b", "c", "d", "e", "f"]
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def collections(draw, grades=(0, 1, 2, 3), max_docs=6):
    """{qid: [(docno, score, grade or None)]} in line order (None: not judged)."""
    out = {}
    for q in ("1", "2", "3")[:draw(st.integers(1, 3))]:
        docs = draw(st.permutations(DOCNOS))[:draw(st.integers(1, max_docs))]
        out[q] = [(d, draw(st.sampled_from(SCORES)),
                   draw(st.sampled_from((None, *grades)))) for d in docs]
        if all(g is None or g <= 0 for _, _, g in out[q]):
            d, s, _ = out[q][0]
            out[q][0] = (d, s, max(grades))           # every query judged, one relevant
    return out


def _files(work: Path, coll) -> tuple[str, str]:
    qrels = "".join(f"{q} 0 {d} {g}\n" for q, docs in coll.items() for d, _, g in docs
                    if g is not None)
    run = "".join(f"{q} Q0 {d} {i + 1} {s!r} r\n" for q, docs in coll.items()
                  for i, (d, s, _) in enumerate(docs))
    (work / "q").write_text(qrels)
    (work / "r").write_text(run)
    return str(work / "q"), str(work / "r")


def _ours(coll, names, version, **options):
    with tempfile.TemporaryDirectory() as t:
        q, r = _files(Path(t), coll)
        ev = smarteval.evaluate(q, r, names, trec_version=version, complete=True,
                                **options)[0]
    # keyed by the printed name (an ir_measures name as written; cwl_RBP.0.5 as cwl_RBP_0.5)
    return {n: dict(zip(ev.qids.tolist(), v.tolist())) for n, v in ev.per_query.items()}


def _ir_measures(coll, names, diversity=False):
    """ir_measures' per-query values, the run given in line order (as read from a file)."""
    Qrel = ir_measures.GenericQrel if diversity else ir_measures.Qrel
    extra = ("0",) if diversity else ()
    qrels = [Qrel(q, d, g, *extra) for q, docs in coll.items() for d, _, g in docs
             if g is not None]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in coll.items() for d, s, _ in docs]
    parsed = [ir_measures.parse_measure(n) for n in names]
    out: dict = {n: {} for n in names}
    with contextlib.redirect_stderr(io.StringIO()):
        for m in ir_measures.iter_calc(parsed, qrels, run):
            out[names[parsed.index(m.measure)]][m.query_id] = m.value
    return out


def _check(ours, theirs, names, skip_missing=False, abs_tol=1e-12):
    for n in names:
        for q, want in theirs[n].items():
            got = ours[n][q]
            assert math.isclose(got, want, rel_tol=1e-9, abs_tol=abs_tol), (n, q, got, want)
        if not skip_missing:
            for q, got in ours[n].items():
                if q not in theirs[n]:
                    assert got == 0, (n, q, got)      # ir_measures counts 0


@SETTINGS
@given(coll=collections(), version=st.sampled_from([9, 10]))
def test_pytrec_eval_names_compare_32_bit_scores(coll, version):
    # ("Rprec" and "infAP" are trec_eval's names too, ranked as --trec-version says)
    names = ["AP", "RR", "nDCG@3", "P@1", "RPrec", "Success@1", "R@2", "Bpref"]
    _check(_ours(coll, names, version), _ir_measures(coll, names), names)


@SETTINGS
@given(coll=collections(), version=st.sampled_from([9, 10]))
def test_msmarco_judged_compat_compare_doubles_docno_ascending(coll, version):
    names = ["RR@2", "Judged@2", "Compat(p=0.8)", "Compat(p=0.5,normalize=False)"]
    _check(_ours(coll, names, version), _ir_measures(coll, names), names)


@SETTINGS
@given(coll=collections(), version=st.sampled_from([9, 10]))
def test_cwl_provider_and_accuracy_compare_doubles_in_line_order(coll, version):
    names = ["RBP(rel=1,p=0.5)", "INST(max_rel=3)", "SDCG(max_rel=3)@3", "NERR8(max_rel=3)@2"]
    _check(_ours(coll, names, version), _ir_measures(coll, names), names)
    acc = ["Accuracy(rel=1)@3"]
    try:
        theirs = _ir_measures(coll, acc)
    except ZeroDivisionError:         # the provider's, on a query without a non-relevant one
        return
    _check(_ours(coll, acc, version), theirs, acc, skip_missing=True)


@SETTINGS
@given(coll=collections(grades=(0, 1, 2, 3, 4)), version=st.sampled_from([9, 10]))
def test_gdeval_names_compare_doubles_docno_descending(coll, version):
    pytest.importorskip("ir_measures.providers.gdeval_provider")
    names = ["ERR@3", "nDCG(dcg='exp-log2')@3"]
    # gdeval prints five decimals (tests/test_web.py checks every digit)
    _check(_ours(coll, names, version), _ir_measures(coll, names), names, abs_tol=5.1e-6)


@SETTINGS
@given(coll=collections(grades=(0, 1)), version=st.sampled_from([9, 10]))
def test_pyndeval_names_compare_doubles_docno_ascending(coll, version):
    names = ["alpha_nDCG@3", "NRBP()", "nNRBP()", "P_IA@2", "ERR_IA@3"]
    _check(_ours(coll, names, version), _ir_measures(coll, names, diversity=True), names)


@SETTINGS
@given(coll=collections(), version=st.sampled_from([9, 10]))
def test_ranx_names_compare_doubles(coll, version):
    ranx = pytest.importorskip("ranx")
    # ranx's order of exactly equal scores is not reproducible: none here
    assume(all(len({s for _, s, _ in docs}) == len(docs) for docs in coll.values()))
    names = ["hits@2", "dcg@3", "ndcg_burges@3", "hit_rate@1"]
    ours = _ours(coll, names, version)
    qrels = ranx.Qrels({q: {d: g for d, _, g in docs if g is not None}
                        for q, docs in coll.items()})
    run = ranx.Run({q: {d: s for d, s, _ in docs} for q, docs in coll.items()})
    for n in names:
        want = ranx.evaluate(qrels, run, n, return_mean=False)
        for i, q in enumerate(sorted(coll)):       # ranx keeps the queries sorted
            assert math.isclose(ours[n][q], float(want[i]), rel_tol=1e-9), (n, q)


def _cwl_eval_command(work: Path, metrics: list[str]) -> dict:
    """cwl_eval's own program on the files: {(qid, metric): EU}."""
    import cwl.cwl_eval as ce
    from cwl.ruler.cwl_ruler import CWLRuler

    class Ruler(CWLRuler):
        def __init__(self, metrics_file=None, residuals=False):
            import cwl.ruler.cwl_ruler as ruler
            self.metrics = [eval(m, vars(ruler)) for m in metrics]

    out = io.StringIO()
    here, original = os.getcwd(), ce.CWLRuler
    try:
        os.chdir(work)                                   # its cwl.log goes there
        ce.CWLRuler = Ruler
        with contextlib.redirect_stdout(out):
            ce.main("r", "q", None, None, residuals=False)
    finally:
        ce.CWLRuler = original
        os.chdir(here)
    rows = [line.split("\t") for line in out.getvalue().splitlines()]
    return {(r[0], i): float(r[2]) for i, r in
            ((i % len(metrics), r) for i, r in enumerate(rows))}


@SETTINGS
@given(coll=collections(grades=(0, 1)), version=st.sampled_from([9, 10]))
def test_cwl_eval_names_read_the_run_in_line_order(coll, version):
    pytest.importorskip("cwl")
    names = ["cwl_RR", "cwl_RBP.0.5", "INST.1"]
    metrics = ["RRCWLMetric()", "RBPCWLMetric(0.5)", "INSTCWLMetric(1)"]
    ours = _ours(coll, names, version)
    names = ["cwl_RR", "cwl_RBP_0.5", "INST_1"]
    with tempfile.TemporaryDirectory() as t:
        _files(Path(t), coll)
        theirs = _cwl_eval_command(Path(t), metrics)
    for i, n in enumerate(names):
        for q in coll:                              # cwl_eval prints four decimals
            assert math.isclose(ours[n][q], theirs[(q, i)], abs_tol=5.1e-5), (n, q)


@pytest.mark.parametrize("version", [9, 10])
def test_the_examples_rank_as_each_program(tmp_path, version):
    """The cases of one query: a (relevant) scored 0.10000000001 and b 0.1, equal as
    32-bit floats; every program but trec_eval 9 and pytrec_eval puts a first."""
    coll = {"1": [("a", 0.10000000001, 1), ("b", 0.1, 0)]}
    names = ["RBP(p=0.5,rel=1)", "INST(max_rel=1)", "INST.1", "cwl_RBP.0.5", "cwl_RR",
             "hits@1", "dcg@1", "RR", "nDCG@10", "RR@10", "AP"]
    got = {n: v["1"] for n, v in _ours(coll, names, version).items()}
    assert got == pytest.approx({
        "RBP(p=0.5,rel=1)": 0.5, "INST(max_rel=1)": 0.6082967170759089, "INST_1":
        0.6082967170759089, "cwl_RBP_0.5": 0.5, "cwl_RR": 1.0, "hits@1": 1.0,
        "dcg@1": 1.0, "RR": 0.5, "nDCG@10": 0.6309297535714575, "RR@10": 1.0, "AP": 0.5})
    trec = {n: v["1"] for n, v in _ours(coll, ["recip_rank", "map"], version).items()}
    assert trec == {"recip_rank": 0.5 if version == 9 else 1.0,
                    "map": 0.5 if version == 9 else 1.0}


def test_diversity_examples(tmp_path):
    (tmp_path / "q").write_text("1 1 a 1\n1 2 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.10000000001 r\n1 Q0 b 2 0.1 r\n")
    names = ["alpha-nDCG.10", "NRBP", "alpha_nDCG@10"]
    ev = smarteval.evaluate(tmp_path / "q", tmp_path / "r", names,
                            qrels_format="qrels_diversity")[0]
    assert [ev.summary[n] for n in ["alpha-nDCG_10", "NRBP", "alpha_nDCG@10"]] == \
        pytest.approx([1.0, 0.75, 1.0])
    # five documents scored alike: pyndeval's order (docno ascending) for ir_measures'
    # names, ndeval's -traditional (docno descending) for ndeval's bare NRBP and nNRBP
    (tmp_path / "q").write_text("Q 1 aB37 6\n")
    (tmp_path / "r").write_text("".join(f"Q Q0 {d} {i} 1 r\n"
                                        for i, d in enumerate(["zz", "aB37", "b", "c", "d"])))
    names = ["NRBP()", "nNRBP()", "NRBP", "nNRBP"]
    ev = smarteval.evaluate(tmp_path / "q", tmp_path / "r", names,
                            qrels_format="qrels_diversity")[0]
    assert [ev.summary[n] for n in names] == pytest.approx([0.75, 1.0, 0.046875, 0.0625])


def test_every_measure_names_a_program_and_its_help_says_which():
    for m in all_measures().values():
        assert m.program in PROGRAMS, m.name
        assert PROGRAMS[m.program].describe


def test_a_ranking_keeps_its_order_for_its_own_program():
    """trec_eval's names read the ranking as made: no copy, no reordering."""
    from smarteval.columns import Ranked
    r = Ranked(qids=np.array(["1"]), offsets=np.array([0, 2]), rel=np.array([0, 1]),
               score=np.array([0.1, 0.10000000001]), docno=np.array([b"b", b"a"]),
               qrel_offsets=np.array([0, 2]), qrel_grades=np.array([1, 0]),
               in_run=np.array([True]), tie_key=np.array([0.1, 0.10000000001],
                                                         dtype=np.float32),
               settings=Settings())
    assert ordered_as(r, "trec_eval") is r
    assert ordered_as(r, "pytrec_eval") is r
    moved = ordered_as(r, "gdeval")
    assert moved.docno.tolist() == [b"a", b"b"] and moved.rel.tolist() == [1, 0]
    assert ordered_as(r, "gdeval") is moved                     # kept for the next one
    from dataclasses import replace
    random = replace(r, settings=Settings(ties="random", seed=1))
    assert ordered_as(random, "gdeval").docno.tolist() == [b"a", b"b"]  # doubles differ
    same = replace(random, score=np.array([0.1, 0.1]), tie_key=np.array([0.1, 0.1],
                                                                        dtype=np.float32))
    assert ordered_as(same, "gdeval").docno.tolist() == [b"b", b"a"]    # the order drawn
    out = parse_measures(["ERR@1"])[0].outputs()[0]
    assert out.program == "gdeval"


def test_a_query_split_in_the_run_is_one_list(tmp_path):
    """Query 1's lines split by query 2's: smarteval reads them as one list, as
    pytrec_eval and msmarco do; ir_measures' cwl_eval and pyndeval providers measure each
    block apart and report query 1 twice, pyndeval keeps the last block: each gives
    smarteval's numbers on the run grouped by query (the man page's order of documents)."""
    import pyndeval
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 1\n2 0 c 1\n")
    split = "1 Q0 x 1 3 r\n2 Q0 c 1 3 r\n1 Q0 a 2 2 r\n1 Q0 b 3 1 r\n"
    grouped = "1 Q0 x 1 3 r\n1 Q0 a 2 2 r\n1 Q0 b 3 1 r\n2 Q0 c 1 3 r\n"
    names = ["AP", "RR@3", "RBP(rel=1,p=0.5)", "alpha_nDCG@3"]
    values = {}
    for form, text in (("split", split), ("grouped", grouped)):
        (tmp_path / form).write_text(text)
        ev = smarteval.evaluate(tmp_path / "q", tmp_path / form, names)[0]
        values[form] = {n: ev.per_query[n].tolist() for n in names}
        qrels = list(ir_measures.read_trec_qrels(str(tmp_path / "q")))
        run = list(ir_measures.read_trec_run(str(tmp_path / form)))
        with contextlib.redirect_stderr(io.StringIO()):
            theirs = {n: [(m.query_id, m.value) for m in ir_measures.iter_calc(
                [ir_measures.parse_measure(n)], qrels, run)] for n in names}
        if form == "grouped":
            for n in names:
                assert [v for _, v in sorted(theirs[n])] == pytest.approx(values[form][n]), n
    assert values["split"] == values["grouped"]
    assert [q for q, _ in theirs["RBP(rel=1,p=0.5)"]] == ["1", "2"]
    with contextlib.redirect_stderr(io.StringIO()):
        run = list(ir_measures.read_trec_run(str(tmp_path / "split")))
        blocks = {n: [(m.query_id, m.value) for m in ir_measures.iter_calc(
            [ir_measures.parse_measure(n)], qrels, run)] for n in names}
    assert [q for q, _ in blocks["RBP(rel=1,p=0.5)"]] == ["1", "2", "1"]
    assert [q for q, _ in blocks["alpha_nDCG@3"]] == ["1", "2", "1"]
    assert dict(blocks["AP"]) == dict(theirs["AP"])
    assert dict(blocks["RR@3"]) == dict(theirs["RR@3"])
    ev = pyndeval.RelevanceEvaluator([("1", "0", "a", 1), ("1", "0", "b", 1),
                                      ("2", "0", "c", 1)], ["alpha-nDCG@3"])
    last = ev.evaluate([("1", "x", 3.0), ("2", "c", 3.0), ("1", "a", 2.0), ("1", "b", 1.0)])
    assert last["1"]["alpha-nDCG@3"] == 1.0                 # the block a, b alone
    assert values["split"]["alpha_nDCG@3"][0] == pytest.approx(0.6696718164942301)
