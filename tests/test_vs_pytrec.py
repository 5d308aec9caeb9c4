"""Property test: every measure pytrec_eval (trec_eval 9's own code) supports, per query."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import smarteval
from smarteval.readers import read_qrels, read_run

pytrec_eval = pytest.importorskip("pytrec_eval")

QIDS = ["q1", "q2", "q3", "q10"]
DOCS = [f"d{i}" for i in range(12)] + ["D1", "d1a", "x"]
SCORES = [0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 3.25, 0.1]

qrels_st = st.dictionaries(
    st.sampled_from(QIDS),
    # pytrec_eval crashes on a query whose judgements are all negative
    st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=10)
    .filter(lambda d: any(g >= 0 for g in d.values())),
    min_size=1, max_size=4)
run_st = st.dictionaries(
    st.sampled_from(QIDS),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=12),
    min_size=1, max_size=4)

# pytrec_eval name -> smarteval -m argument
MEASURES = ["map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
            "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G",
            "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
            "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
            "num_nonrel_judged_ret", "num_ret", "num_rel", "num_rel_ret"]


def _files(tmp_path, qrels, run):
    qtext = "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    rtext = "".join(f"{q} Q0 {d} 0 {s} tag\n" for q, docs in run.items() for d, s in docs.items())
    return read_qrels("q", data=qtext.encode()), read_run("r", data=rtext.encode())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=qrels_st, run=run_st)
def test_every_measure_matches_pytrec_eval(qrels, run):
    shared = set(qrels) & set(run)
    if not shared:
        return
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    expected = evaluator.evaluate({q: {d: float(s) for d, s in docs.items()}
                                   for q, docs in run.items()})
    q, r = _files(None, qrels, run)
    ev = smarteval.evaluate(q, r, MEASURES)[0]
    got = {name: ev.per_query[name] for name in ev.names}
    qids = list(ev.qids)
    checked = 0
    for qid, values in expected.items():
        i = qids.index(qid)
        for name, value in values.items():
            if name not in got:
                continue
            if name in ("gm_map", "gm_bpref"):
                continue  # summary-only in trec_eval; pytrec_eval reports the log
            mine = float(got[name][i])
            assert math.isclose(mine, value, rel_tol=1e-9, abs_tol=1e-12), (qid, name, mine, value)
            checked += 1
    assert checked > 0


def test_summary_geometric_means_match(tmp_path):
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2, "d4": 1}, "q3": {"d9": 1}}
    run = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d4": 1.0, "d3": 0.5, "d5": 3.0},
           "q3": {"d8": 1.0}}
    q, r = _files(tmp_path, qrels, run)
    ev = smarteval.evaluate(q, r, ["map", "gm_map"])[0]
    aps = np.array([0.5, (1 / 2 + 2 / 3) / 2, 0.0])
    assert ev.summary["gm_map"] == pytest.approx(math.exp(np.mean(np.log(np.maximum(aps, 1e-5)))))
