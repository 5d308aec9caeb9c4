"""Diversity qrels and ndeval's measures against ndeval's own C code (pyndeval), per query.

Subtopic qrels go through :func:`read_qrels_diversity`, the run through the ranking stage
against their plain view, and the judgements reach the measures by :func:`with_subtopics`.
pyndeval is given each query's documents in the ranking's order (distinct scores), so
ties are settled as smarteval settles them; the order itself is pinned separately.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from diversity_oracle import ndeval_query
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smarteval.errors import InputError, UsageError
from smarteval.evaluation import evaluate, rankings
from smarteval.measures import parse_measures
from smarteval.measures.diversity import risk_sensitive, with_subtopics
from smarteval.read.diversity import looks_like_diversity, read_qrels_diversity
from smarteval.read.plain import read_run
from smarteval.settings import Settings

pyndeval = pytest.importorskip("pyndeval")

QIDS = ["1", "2", "10"]
DOCS = [f"d{i}" for i in range(8)] + ["D0", "é1"]
SUBTOPICS = ["1", "2", "3", "10"]
SCORES = [0.0, 0.5, 1.0, 2.0, -1.0]

SPECS = ["alpha-DCG.1,2,5,20", "alpha-nDCG.1,3,20", "ERR-IA.1,2,7", "nERR-IA.1,3,20",
         "P-IA.1,3,20", "strec.1,2,20", "NRBP", "nNRBP", "MAP-IA"]


@st.composite
def collection(draw):
    """(qrels, run): [(qid, subtopic, docno, grade)], {qid: {docno: score}}; ties likely."""
    qrels = []
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True))
    for q in qids:
        judged = draw(st.dictionaries(
            st.tuples(st.sampled_from(DOCS), st.sampled_from(SUBTOPICS)),
            st.integers(-1, 3), min_size=1, max_size=14))
        if all(g < 0 for g in judged.values()):     # the ranking stage refuses such a query
            judged[next(iter(judged))] = 0
        qrels += [(q, s, d, g) for (d, s), g in judged.items()]
    run = {}
    for q in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True)):
        run[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES),
                                      min_size=1, max_size=10))
    if not set(run) & set(qids):
        run[qids[0]] = {"d0": 1.0}
    return qrels, run


def ranked_for(qrels, run, **options):
    dq = read_qrels_diversity("q", data="".join(f"{q} {s} {d} {g}\n"
                                                 for q, s, d, g in qrels).encode())
    r = read_run("r", data="".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items()
                                   for d, s in docs.items()).encode())
    ((_, ranked),) = rankings(dq.as_qrels(), [r], Settings(**options))
    return with_subtopics(ranked, dq)


def ranking(ranked, i: int) -> list[str]:
    rows = slice(ranked.offsets[i], ranked.offsets[i + 1])
    return [d.decode() for d in ranked.docno[rows].tolist()]


def pyndeval_name(out) -> tuple[str, dict]:
    """pyndeval's name of one output, and its alpha/beta."""
    m = out.measure
    if m.params == "cutoffs":
        return m.name, {"k": out.param}
    v = [float(x) for x in out.param]
    return m.name, {"alpha": v[0] if v else 0.5, "beta": v[1] if len(v) > 1 else 0.5}


def same(got, want) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collection(), level=st.sampled_from([1, 1, 2]),
       extra=st.sampled_from([(), ("NRBP.0.3,0.8", "nNRBP.1,0.25", "nNRBP.0.7")]),
       judged=st.booleans(), max_docs=st.sampled_from([None, None, 3]))
def test_measures_match_ndeval_per_query(data, level, extra, judged, max_docs):
    qrels, run = data
    ranked = ranked_for(qrels, run, rel_level=level, judged_only=judged, max_docs=max_docs,
                        trec_version=10)
    outs = [o for rq in parse_measures(SPECS + list(extra)) for o in rq.outputs()]
    for out in outs:
        got = out.compute(ranked)
        name, kw = pyndeval_name(out)
        for i, qid in enumerate(ranked.qids.tolist()):
            judged_q = [(s, d, g) for q, s, d, g in qrels if q == qid]
            want = ndeval_query(judged_q, ranking(ranked, i), name, level=level, **kw)
            assert same(float(got[i]), want), (out.name, qid, float(got[i]), want)


def test_tied_documents_go_in_ndeval_traditional_order():
    """Score descending, then docno descending (ndeval -traditional, trec_eval)."""
    qrels = [("1", "1", "a", 1), ("1", "2", "b", 0)]
    ranked = ranked_for(qrels, {"1": {"a": 1.0, "b": 1.0}})
    assert ranking(ranked, 0) == ["b", "a"]
    (out,) = parse_measures(["alpha-nDCG.1"])[0].outputs()
    assert out.compute(ranked).tolist() == [0.0]


def test_complete_scores_a_query_without_results_0():
    qrels = [("1", "1", "a", 1), ("2", "1", "b", 1), ("2", "2", "c", 1)]
    ranked = ranked_for(qrels, {"1": {"a": 1.0}}, complete=True)
    assert ranked.qids.tolist() == ["1", "2"]
    for out in (o for rq in parse_measures(SPECS) for o in rq.outputs()):
        assert out.compute(ranked)[1] == 0.0, out.name


def test_views_of_the_ranking_keep_the_subtopics():
    qrels = [("1", "1", "a", 2), ("1", "2", "a", 1), ("1", "2", "b", 1)]
    ranked = ranked_for(qrels, {"1": {"a": 2.0, "x": 1.0, "b": 0.5}})
    (strec,) = parse_measures(["strec.1"])[0].outputs()
    assert strec.compute(ranked).tolist() == [1.0]                  # a covers both subtopics
    assert strec.compute(ranked.at_level(2)).tolist() == [1.0]      # one subtopic left
    (p,) = parse_measures(["P-IA.2"])[0].outputs()
    assert p.compute(ranked.subset(ranked.rel >= 0)).tolist() == [0.75]   # -J: x dropped


def test_ir_measures_names_give_ir_measures_values_on_subtopic_qrels():
    """ir_measures' diversity names (pyndeval provider, iteration = subtopic), ties in
    its order (docno ascending)."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [("1", "1", "a", 1), ("1", "2", "b", 1), ("1", "2", "c", 2), ("1", "3", "c", 1),
             ("2", "1", "d", 1), ("2", "1", "e", 0)]
    run = {"1": {"a": 1.0, "b": 1.0, "c": 1.0, "x": 2.0}, "2": {"e": 3.0, "d": 0.0}}
    ranked = ranked_for(qrels, run)
    gq = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in qrels]
    names = ["alpha_nDCG@2", "alpha_nDCG(alpha=0.25)@3", "ERR_IA@3", "nERR_IA@2",
             "alpha_DCG@5", "NRBP(beta=0.8)", "nNRBP(alpha=0.5)", "AP_IA", "P_IA@2", "StRecall@2",
             "StRecall(rel=2)@3"]
    for spec in names:
        (out,) = [o for rq in parse_measures([spec]) for o in rq.outputs()]
        m = eval(spec, {n: getattr(ir_measures, n) for n in ir_measures.measures.registry})
        want = {x.query_id: x.value for x in ir_measures.iter_calc([m], gq, run)}
        got = out.compute(ranked)
        for i, qid in enumerate(ranked.qids.tolist()):
            assert same(float(got[i]), want[qid]), (spec, qid, float(got[i]), want[qid])


@pytest.mark.parametrize("spec,reason", [
    ("alpha-nDCG.21", "up to 20"),
    ("NRBP.0.5,0.5,1", "alpha and beta"),
    ("MAP-IA.1", "no parameters"),
])
def test_refusals(spec, reason):
    ranked = ranked_for([("1", "1", "a", 1)], {"1": {"a": 1.0}})
    with pytest.raises(UsageError, match=reason):
        for out in parse_measures([spec])[0].outputs():
            out.compute(ranked)


@pytest.mark.parametrize("spec,reason", [
    ("alpha_nDCG@21", "up to 20"),
    ("ERR_IA", "needs a cut-off"),
    ("P_IA(judged_only=True)@5", "judged_only"),
])
def test_ir_refusals(spec, reason):
    with pytest.raises(UsageError, match=reason):
        parse_measures([spec])


# =========================================================================== the reader

def test_reader_columns_and_plain_view():
    dq = read_qrels_diversity("q", data=b"1 2 b 1\n1 10 a 1\n1 2 a 0\n2 1 z 3\n1 1 b 2\n")
    assert dq.qids.tolist() == ["1", "2"]
    assert dq.subtopic_ids.tolist() == ["1", "2", "10"]            # by number, as ndeval
    assert dq.docnos.tolist() == [b"a", b"a", b"b", b"b", b"z"]
    assert dq.subtopic_ids[dq.subtopic].tolist() == ["2", "10", "1", "2", "1"]
    assert dq.lines.tolist() == [3, 2, 5, 1, 4]
    q = dq.as_qrels()
    assert q.docnos.tolist() == [b"a", b"b", b"z"]
    assert q.grades.tolist() == [1, 2, 3] and q.lines.tolist() == [2, 1, 4]
    assert q.offsets.tolist() == [0, 2, 3]


@pytest.mark.parametrize("data,line,problem", [
    (b"1 1 a 1\n1 1 a 0\n", 2, "judged twice for the same subtopic"),
    (b"1 1 a 1\n1 1 b x\n", 2, "not an integer"),
    (b"1 1 a 1\n1 a 1\n", 2, "3 fields, not 4"),
    (b"1 1 a 1\n\n", 2, "blank line"),
])
def test_reader_errors_name_file_and_line(data, line, problem):
    with pytest.raises(InputError, match=problem) as e:
        read_qrels_diversity("div.qrels", data=data)
    assert e.value.path == "div.qrels" and e.value.line == line
    assert "SUBTOPIC" in str(e.value) or "judged twice" in problem   # the layout it expects


def test_detection():
    assert looks_like_diversity("q", data=b"1 1 a 1\n1 2 a 0\n")
    assert not looks_like_diversity("q", data=b"1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    assert not looks_like_diversity("q", data=b"1 Q0 a 1 2.0 t\n")


def test_risk_sensitive_is_ndeval_riskbased():
    run, base = np.array([0.5, 0.2, 0.0]), np.array([0.25, 0.4, 0.0])
    assert risk_sensitive(run, base).tolist() == pytest.approx([0.25, -0.2, 0.0])
    assert risk_sensitive(run, base, 1.0).tolist() == pytest.approx([0.25, -0.4, 0.0])
    with pytest.raises(UsageError):
        risk_sensitive(run, base, -1.0)


# =========================================================================== risk

def _distinct(run: dict) -> dict:
    """Each query's documents with distinct scores, in their drawn order (no ties)."""
    return {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in run.items()}


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collection(), other=collection(), risk_alpha=st.sampled_from([0.0, 1.0, 4.0]))
def test_risk_against_a_baseline_is_ndevals(data, other, risk_alpha):
    """smarteval.stats.risk: ndeval's RiskBased over the union of the two runs' queries of
    the qrels, a query one run lacks counting 0 for it; per-query values from pyndeval."""
    from smarteval.stats import risk
    qrels, run = data
    run = _distinct(run)
    base = _distinct(other[1])
    base.setdefault(qrels[0][0], {"d0": 1.0})
    dq = read_qrels_diversity("q", data="".join(f"{q} {s} {d} {g}\n"
                                                 for q, s, d, g in qrels).encode())
    files = [read_run(name, data="".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in r.items()
                                         for d, s in docs.items()).encode())
             for name, r in (("run", run), ("base", base))]
    evs = evaluate(dq, files, ["alpha-nDCG.20", "ERR-IA.5"])
    for name, ndeval_name in (("alpha-nDCG_20", "alpha-nDCG@20"), ("ERR-IA_5", "ERR-IA@5")):
        values = [pyndeval.ndeval(qrels, [(q, d, s) for q, docs in r.items()
                                          for d, s in docs.items()], [ndeval_name])
                  for r in (run, base)]
        qids = sorted(set(values[0]) | set(values[1]))
        want = []
        for q in qids:
            d = (values[0].get(q, {}).get(ndeval_name, 0.0)
                 - values[1].get(q, {}).get(ndeval_name, 0.0))
            want.append(d if d >= 0 else (1 + risk_alpha) * d)
        got = risk(evs[0], evs[1], name, risk_alpha)
        assert sorted(got.qids.tolist()) == qids
        by_q = dict(zip(got.qids.tolist(), got.values.tolist()))
        for q, w in zip(qids, want):
            assert same(by_q[q], w), (name, q, by_q[q], w)
        assert same(got.mean, sum(want) / len(want))


def test_risk_refuses_what_it_cannot_compute():
    from smarteval.stats import risk
    dq = read_qrels_diversity("q", data=b"1 1 a 1\n1 2 b 1\n2 1 x 1\n")
    r = read_run("r", data=b"1 Q0 a 0 2 t\n2 Q0 b 0 1 t\n")
    (ev,) = evaluate(dq, [r], ["alpha-nDCG.20", "runid"])
    assert risk(ev, ev, "alpha-nDCG_20").values.tolist() == [0.0, 0.0]
    with pytest.raises(UsageError, match="no measure"):
        risk(ev, ev, "P_5")
    with pytest.raises(UsageError, match="numeric"):
        risk(ev, ev, "runid")
    with pytest.raises(UsageError, match="0 or more"):
        risk(ev, ev, "alpha-nDCG_20", -0.5)


# =========================================================================== rank order

@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collection(), seed=st.integers(0, 2**16), max_docs=st.sampled_from([None, 3]))
def test_rank_order_is_ndevals_default(data, seed, max_docs):
    """--order-by rank: each query in the order of its rank column (ndeval without
    -traditional), whatever the scores; ndeval's C code given those ranks (pyndeval's
    evaluator, whose ``eval`` sorts by the rank it is handed)."""
    import _pyndeval
    qrels, run = data
    rng = np.random.default_rng(seed)
    ranks = {q: dict(zip(docs, rng.choice(50, size=len(docs), replace=False).tolist()))
             for q, docs in run.items()}
    dq = read_qrels_diversity("q", data="".join(f"{q} {s} {d} {g}\n"
                                                 for q, s, d, g in qrels).encode())
    r = read_run("r", data="".join(f"{q} Q0 {d} {ranks[q][d]} {s!r} t\n"
                                   for q, docs in run.items()
                                   for d, s in docs.items()).encode(), ranks=True)
    names = {"alpha-nDCG_20": "alpha-nDCG@20", "ERR-IA_5": "ERR-IA@5", "P-IA_10": "P-IA@10",
             "strec_10": "strec@10", "NRBP": "NRBP", "MAP-IA": "MAP-IA"}
    (ev,) = evaluate(dq, [r], ["alpha-nDCG.20", "ERR-IA.5", "P-IA.10", "strec.10", "NRBP",
                               "MAP-IA"], Settings(order_by="rank", max_docs=max_docs))
    oracle = pyndeval.RelevanceEvaluator(qrels, list(names.values()))
    for i, qid in enumerate(ev.qids.tolist()):
        given = sorted(ranks[qid].items(), key=lambda x: x[1])[:max_docs]
        _pyndeval.set_global_alpha_beta(0.5, 0.5)
        want = dict(zip(names.values(), _pyndeval.eval(oracle.qrels[qid], given,
                                                       oracle.measures_arg)))
        for name, ndeval_name in names.items():
            assert same(float(ev.per_query[name][i]), want[ndeval_name]), (name, qid)


def test_rank_order_refuses_a_rank_twice_and_other_measures(tmp_path):
    from smarteval.read.plain import read_run as read
    dq = read_qrels_diversity("q", data=b"1 1 a 1\n1 2 b 1\n")
    r = read("r.run", data=b"1 Q0 a 1 2 t\n1 Q0 b 7 1 t\n1 Q0 c 1 0 t\n", ranks=True)
    with pytest.raises(InputError) as e:
        evaluate(dq, [r], ["alpha-nDCG.20"], Settings(order_by="rank"))
    assert (e.value.line, e.value.problem) == (3, "rank 1 given twice in query 1 (first at "
                                                  "line 1): ndeval's rank order (--order-by "
                                                  "rank) needs distinct ranks")
    with pytest.raises(InputError, match="rank 'x' is not a whole number from 0 to"):
        read("r.run", data=b"1 Q0 a x 2 t\n", ranks=True)
    with pytest.raises(UsageError, match="not map"):
        evaluate(dq, [r], ["alpha-nDCG.20", "map"], Settings(order_by="rank"))
    with pytest.raises(UsageError, match="has no rank column"):
        evaluate(dq, [read("r.run", data=b"1 Q0 a 1 2 t\n")], ["alpha-nDCG.20"],
                 Settings(order_by="rank"))
