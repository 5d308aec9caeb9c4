"""Check tests/oracle.py against pytrec_eval (trec_eval 9.x C code) per query.

Random small runs and qrels (score ties, float32-only ties, graded and negative
judgements, unjudged docs, empty and one-document rankings, queries missing on
either side), relevance levels 1..3, with and without -J, with -M emulated by
pre-truncating the run, and every measure pytrec_eval-terrier supports except
runid and relstring (pytrec_eval returns no meaningful value for those).
"""

from __future__ import annotations

import math

import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import (
    format_value,
    measure_key,
    oracle_all,
    oracle_query,
    oracle_summary,
    rank_docnos,
    rank_query,
)

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-9

# docnos chosen to exercise byte-order tie breaking: upper < lower case,
# '10' < '9', multi-byte UTF-8 sorts after ASCII.
DOCNOS = ["a", "b", "c", "d", "e", "f", "g", "h", "A", "Z", "a1", "a10", "a2",
          "9", "10", "doc-1", "\u00e9", "\u00df"]
# scores with exact ties, ties only in float32, float32 overflow, big/small values
SCORES = [0.0, 1.0, 1.0, 2.0, -1.0, 0.5, 0.25, 3.0, 1.0 + 1e-9, 1.0 - 1e-9,
          0.1, 0.1 + 1e-12, 16777216.0, 16777217.0, 1e-30, -1e30, 1e39, 7]
# qrels values: negative -> "pooled but unjudged" (-2 code), 0 nonrel, graded rel
GRADES = [-2, -1, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4]

# ---- measures and the oracle calls producing each pytrec_eval key ----------

SIMPLE = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
          "bpref", "recip_rank", "infAP", "gm_bpref", "utility", "11pt_avg", "binG",
          "G", "ndcg", "ndcg_rel", "Rndcg", "set_P", "set_relative_P", "set_recall",
          "set_map", "set_F", "num_nonrel_judged_ret"]
CUT = ["P", "recall", "ndcg_cut", "map_cut", "relative_P", "success",
       "iprec_at_recall", "Rprec_mult"]

DEFAULT_MEASURES = set(SIMPLE) | set(CUT)
CUSTOM = {  # measure -> params (given to pytrec as 'measure.p1,p2,...')
    "P": [1, 2, 3, 7],
    "recall": [1, 3, 4],
    "ndcg_cut": [1, 2, 3, 6],
    "map_cut": [1, 2, 4],
    "relative_P": [1, 2, 3, 8],
    "success": [2, 3, 4],
    "iprec_at_recall": ["0.05", "0.25", "0.33", "0.7", "0.75"],
    "Rprec_mult": ["0.5", "0.7", "1.5", "3.0"],
    "11pt_avg": ["0.2", "0.5", "0.8"],
    "set_F": ["0.5"],
}
CUSTOM_MEASURES = {f"{m}.{','.join(str(p) for p in ps)}" for m, ps in CUSTOM.items()}


def expected_for_query(codes, grades, rel_level, custom):
    """pytrec_eval-style {key: value} for one query from the oracle."""
    out = {}
    if custom:
        for m, ps in CUSTOM.items():
            if m in CUT:
                for p in ps:
                    out[measure_key(m, p)] = oracle_query(codes, grades, m, p, rel_level)
            else:
                param = [float(p) for p in ps] if m == "11pt_avg" else float(ps[0])
                out[m] = oracle_query(codes, grades, m, param, rel_level)
        return out
    return oracle_all(codes, grades, rel_level, SIMPLE + CUT)


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        # NaN only from 0.0/0.0 in the C code: x86's NaN has the sign bit set
        return (math.isnan(a) and math.isnan(b)
                and math.copysign(1.0, a) == math.copysign(1.0, b))
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


def compare(qrels, run, rel_level, judged_only, max_docs=None):
    """Evaluate with pytrec_eval and the oracle; return a list of mismatches."""
    if max_docs is not None:
        # -M m == evaluating only the first m docs of trec_eval's ranking
        pruned = {}
        for qid, docs in run.items():
            keep = rank_docnos(docs)[:max_docs]
            pruned[qid] = {d: docs[d] for d in keep}
        py_run = pruned
    else:
        py_run = run
    problems = []
    for custom, measures in ((False, DEFAULT_MEASURES), (True, CUSTOM_MEASURES)):
        ev = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=rel_level,
                                            judged_docs_only_flag=judged_only)
        got = ev.evaluate(py_run)
        expected_qids = {q for q in run if q in qrels and qrels[q]}
        if not py_run:
            expected_qids = set()
        if set(got) != expected_qids:
            problems.append(("qids", sorted(got), sorted(expected_qids)))
            continue
        for qid in expected_qids:
            codes = rank_query(run[qid], qrels[qid], max_docs=max_docs,
                               judged_only=judged_only)
            exp = expected_for_query(codes, list(qrels[qid].values()), rel_level, custom)
            if set(exp) != set(got[qid]):
                problems.append((qid, "keys", sorted(set(exp) ^ set(got[qid]))))
                continue
            for key, value in exp.items():
                if not same(value, got[qid][key]):
                    problems.append((qid, key, value, got[qid][key], codes))
    return problems


# ---- hypothesis strategies ------------------------------------------------

scores = st.one_of(st.sampled_from(SCORES),
                   st.floats(allow_nan=False, allow_infinity=False, width=32),
                   st.integers(-3, 3))


BIG_DOCNOS = [f"d{i}" for i in range(60)]


@st.composite
def collections(draw):
    n_q = draw(st.integers(1, 4))
    # mostly tiny queries; sometimes longer ones to reach the 5..30 cutoffs
    big = draw(st.integers(0, 3)) == 0
    pool, max_q, max_r = (BIG_DOCNOS, 30, 40) if big else (DOCNOS, 10, 12)
    qrels, run = {}, {}
    for i in range(n_q):
        qid = f"q{i}"
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side in ("both", "qrels"):
            docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_q,
                                 unique=True))
            grades = [draw(st.sampled_from(GRADES)) for _ in docs]
            if max(grades) < 0:
                # pytrec_eval crashes (stale C cache) when a query has no
                # judgement >= 0; trec_eval 9.0.8 itself exits with "Can't
                # calculate measure" if such a query is the first evaluated.
                grades[0] = draw(st.sampled_from([0, 1, 2]))
            qrels[qid] = dict(zip(docs, grades))
        if side in ("both", "run"):
            # min_size=1: pytrec_eval mis-evaluates (zeros, stale data or a
            # segfault) a query with an empty ranking; trec_eval cannot read one.
            docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_r,
                                 unique=True))
            run[qid] = {d: draw(scores) for d in docs}
    return qrels, run


@settings(max_examples=examples(500), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), rel_level=st.sampled_from([1, 1, 2, 3]),
       judged_only=st.booleans(),
       max_docs=st.one_of(st.none(), st.none(), st.integers(1, 25)))
def test_oracle_matches_pytrec_eval(data, rel_level, judged_only, max_docs):
    qrels, run = data
    assert compare(qrels, run, rel_level, judged_only, max_docs) == []


# ---- targeted regression checks of the surprising semantics ---------------

def _one(qrels, run, measure, **kw):
    ev = pytrec_eval.RelevanceEvaluator({"q": qrels}, {measure}, **kw)
    return ev.evaluate({"q": run})["q"]


def test_float32_ties_break_by_docno_descending():
    # 1.0 and 1.0+1e-12 are equal as float32 -> tie -> 'b' (> 'a') ranks first
    qrels, run = {"a": 1, "b": 0}, {"b": 1.0, "a": 1.0 + 1e-12}
    assert _one(qrels, run, "P_1")["P_1"] == 0.0
    assert rank_query(run, qrels) == [0, 1]
    assert rank_query(run, qrels, float32=False) == [1, 0]  # trec_eval >= 10


def test_iprec_cutoff_uses_long_of_x_times_R_plus_0_9():
    # R = 3, x = 0.7: 0.7*3 + 0.9 = 2.9999999999999996 -> 2 relevant docs
    qrels = {"a": 1, "b": 1, "c": 1}
    run = {"a": 5.0, "x": 4.0, "b": 3.0, "y": 2.0, "c": 1.0}
    got = _one(qrels, run, "iprec_at_recall.0.7")["iprec_at_recall_0.70"]
    codes = rank_query(run, qrels)
    assert got == pytest.approx(2 / 3)  # precision at the 2nd rel doc, not the 3rd
    assert oracle_query(codes, [1, 1, 1], "iprec_at_recall", 0.7) == got
    # x = 0.4: 9.x gives (long)(1.2 + 0.9) = 2 rel docs, 10.0 lround(1.2) = 1
    got = _one(qrels, run, "iprec_at_recall.0.4")["iprec_at_recall_0.40"]
    assert got == pytest.approx(2 / 3)
    assert oracle_query(codes, [1, 1, 1], "iprec_at_recall", 0.4) == got
    assert oracle_query(codes, [1, 1, 1], "iprec_at_recall", 0.4, trec_eval_10=True) == 1.0


def test_empty_ranking_gives_negative_nan_at_recall_zero():
    # -J removes the only (unjudged) doc -> n == 0 -> 0.0/0.0 in the C code
    got = _one({"a": 1}, {"z": 1.0}, "iprec_at_recall", judged_docs_only_flag=True)
    nan = got["iprec_at_recall_0.00"]
    assert math.isnan(nan) and math.copysign(1.0, nan) == -1.0  # x86 NaN
    assert got["iprec_at_recall_0.10"] == 0.0
    codes = rank_query({"z": 1.0}, {"a": 1}, judged_only=True)
    assert codes == []
    mine = oracle_query(codes, [1], "iprec_at_recall", 0.0)
    assert math.isnan(mine) and math.copysign(1.0, mine) == -1.0
    assert math.isnan(oracle_query([], [1], "11pt_avg"))
    assert format_value("11pt_avg", mine) == "  -nan"  # what glibc prints
    assert format_value("map", 0.12345) == "0.1235"
    assert format_value("num_ret", 12.0) == "12"


def test_negative_qrels_value_becomes_unjudged_code():
    qrels = {"a": -1, "b": 1, "c": 0}
    assert rank_query({"a": 3, "b": 2, "z": 1}, qrels) == [-2, 1, -1]
    assert rank_query({"a": 3, "b": 2, "z": 1}, qrels, judged_only=True) == [1]
    # -M is applied before -J
    assert rank_query({"a": 3, "b": 2, "c": 1}, qrels, max_docs=1, judged_only=True) == []


def test_relstring_characters():
    codes = [12, 3, 0, -1, -2, -5, 1]
    assert oracle_query(codes, [1], "relstring") == ">30-.<1"
    assert oracle_query(codes, [1], "relstring", 3) == ">30"


def test_summary_rules():
    logs = [math.log(0.5), math.log(1e-5), math.log(0.2)]
    assert oracle_summary("gm_map", logs) == pytest.approx(
        pytrec_eval.compute_aggregated_measure("gm_map", logs))
    # -c with 5 queries in the qrels: 2 missing ones add log(1e-5) each
    assert oracle_summary("gm_map", logs, num_queries=5) == pytest.approx(
        math.exp((sum(logs) + 2 * math.log(1e-5)) / 5))
    assert oracle_summary("map", [0.5, 0.25], num_queries=4) == 0.1875
    assert oracle_summary("num_rel", [3.0, 4.0], num_queries=9) == 7.0
    assert oracle_summary("num_q", [1.0, 1.0]) == 2.0
    assert oracle_summary("num_q", [1.0, 1.0], num_queries=9) == 9.0


def test_oracle_only_measures_by_hand():
    """Measures pytrec_eval cannot check, against hand computations."""
    # custom ndcg gains (-m ndcg.1=3): ideal gains 3, 2, 2 (level 0 has gain 0)
    got = oracle_query([1, 0, 2], [1, 0, 2, 2], "ndcg", {"1": 3.0})
    assert got == pytest.approx(4.0 / (3.0 + 2.0 / math.log2(3.0) + 1.0))
    # yaap: S = 1/1 + 2/3, R = 3
    s = 1.0 + 2.0 / 3.0
    assert oracle_query([1, 0, 1], [1, 1, 1, 0], "yaap") == pytest.approx(
        math.log((1.0 + s) / (1.0 + 3.0 - s)))
    codes, grades = [1, 0, -1, 1], [1, 1, 1, 0]
    assert oracle_query(codes, grades, "rbp") == pytest.approx(0.1 * (1.0 + 0.9 ** 3))
    assert oracle_query(codes, grades, "rbp_resid") == pytest.approx(
        0.9 ** 4 + 0.1 * 0.9 ** 2)
    assert oracle_query([1, 0, 1], grades, "rbp_resid") == 0.0
    assert oracle_query(codes, grades, "unj", 2) == 0.0
    assert oracle_query(codes, grades, "unj", 3) == pytest.approx(1 / 3)
    # utility.1,-1,-0.5,0.01 with -N 100: a=2 b=2 c=1 d=95
    assert oracle_query(codes, grades, "utility", (1, -1, -0.5, 0.01),
                        num_docs_in_coll=100) == pytest.approx(0.45)
    assert measure_key("iprec_at_recall", 0.1) == "iprec_at_recall_0.10"
    assert measure_key("P", 5) == "P_5"
