"""Property test: every measure pytrec_eval (trec_eval 9's own code) computes, per query.

The measures are the entries of tests/smart_helpers.ORACLES marked ``pytrec``, each at
its default parameters and at its variants (pytrec_eval reads trec_eval's -m syntax).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from smart_helpers import ORACLES, specs

import smarteval
from smarteval.read.plain import read_qrels, read_run

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

MEASURES = [n for n, o in ORACLES.items() if o.pytrec]


def _pytrec_specs(name: str) -> list[str]:
    """The default and the variants pytrec_eval can read (plain non-negative numbers)."""
    return [s for s in specs(name)
            if "." not in s or re.fullmatch(r"\d+(\.\d+)?(,\d+(\.\d+)?)*", s.partition(".")[2])]


#: round 0: every measure at its defaults; round i: the i-th variant of each measure that
#: has one (one request per measure and round: pytrec_eval keeps one parameter set a name)
ROUNDS = [[s[i] for s in (_pytrec_specs(n) for n in MEASURES) if len(s) > i]
          for i in range(max(len(_pytrec_specs(n)) for n in MEASURES))]
#: measures whose per-query value pytrec_eval reports as log(max(v, 1e-5))
LOGGED = {"gm_map", "gm_bpref"}


def test_pytrec_names_are_pytrec_measures():
    assert set(MEASURES) <= set(pytrec_eval.supported_measures)
    assert len(ROUNDS) >= 2


def _files(qrels, run):
    qtext = "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    rtext = "".join(f"{q} Q0 {d} 0 {s} tag\n" for q, docs in run.items() for d, s in docs.items())
    return read_qrels("q", data=qtext.encode()), read_run("r", data=rtext.encode())


def _pytrec_key(out) -> str:
    """pytrec_eval's key of an output: name_k for cut-offs and levels, else the bare name."""
    return out.name if out.measure.params in ("cutoffs", "levels") else out.measure.name


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=qrels_st, run=run_st)
def test_every_measure_matches_pytrec_eval(qrels, run):
    shared = set(qrels) & set(run)
    if not shared:
        return
    q, r = _files(qrels, run)
    pyrun = {qid: {d: float(s) for d, s in docs.items()} for qid, docs in run.items()}
    checked = 0
    for specs_ in ROUNDS:
        expected = pytrec_eval.RelevanceEvaluator(qrels, set(specs_)).evaluate(pyrun)
        ev = smarteval.evaluate(q, r, specs_, trec_version=9)[0]
        qids = list(ev.qids)
        assert set(expected) == set(qids)
        for out in ev.outputs:
            key = _pytrec_key(out)
            for qid, values in expected.items():
                mine = float(ev.per_query[out.name][qids.index(qid)])
                if out.measure.name in LOGGED:
                    mine = math.log(max(mine, 1e-5))
                want = values[key]
                assert math.isclose(mine, want, rel_tol=1e-9, abs_tol=1e-12), \
                    (qid, out.name, mine, want)
                checked += 1
    assert checked > 0


def test_summary_geometric_means_match():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2, "d4": 1}, "q3": {"d9": 1}}
    run = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d4": 1.0, "d3": 0.5, "d5": 3.0},
           "q3": {"d8": 1.0}}
    q, r = _files(qrels, run)
    ev = smarteval.evaluate(q, r, ["map", "gm_map"])[0]
    aps = np.array([0.5, (1 / 2 + 2 / 3) / 2, 0.0])
    assert ev.summary["gm_map"] == pytest.approx(math.exp(np.mean(np.log(np.maximum(aps, 1e-5)))))
    logs = [math.log(max(a, 1e-5)) for a in aps]
    assert ev.summary["gm_map"] == pytest.approx(
        pytrec_eval.compute_aggregated_measure("gm_map", logs))
