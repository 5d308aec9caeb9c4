"""--unjudged range's NAME_min and NAME_max against every grading of the unjudged documents.

The oracle: each query's unjudged ranked documents (trec_eval's order, the first -M) are
each left as they are or judged at the grade G, every one of the 2^u gradings written as
a qrels file and evaluated as any other; the least and greatest of those values are what
the bounds must be. A query's value reads only its own judgements, so one evaluation
gives every query a grading: the a-th takes, in query q, the gradings a mod 2^u(q).
"""

from __future__ import annotations

import math

import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import rank_docnos
from test_unjudged import collections, qrels_text, run_text

import smarteval
from smarteval.measures.bounds import BOUNDED
from smarteval.read.plain import read_qrels, read_run
from smarteval.settings import Settings

#: every bounded measure, at cut-offs inside and past the short lists drawn
BOUNDED_NAMES = ["P.1,2,5", "success.1,2", "recip_rank", "recip_rank_cut.1,3",
                 "num_rel_ret", "set_P", "set_relative_P", "set_map", "set_F", "set_F.0.5",
                 "set_F.0", "map", "gm_map", "map_cut.1,2,5", "recall.1,2,5",
                 "relative_P.1,2,5", "set_recall", "Rprec", "ndcg", "ndcg_cut.1,2,5"]


def unjudged_of(qrels: dict, run: dict, max_docs, version: int) -> dict[str, list[str]]:
    """Each query's unjudged ranked documents (the first -M, in trec_eval's order)."""
    out = {}
    for q in qrels:
        ranked = rank_docnos(run.get(q, {}), float32=version == 9)[:max_docs]
        out[q] = [d for d in ranked if qrels[q].get(d, -1) < 0]
    return out


def graded(qrels: dict, made: set, grade: int) -> str:
    """The qrels with the documents ``made`` (query, docno) judged at ``grade``."""
    lines = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()
             if (q, d) not in made]
    lines += sorted((q, d, grade) for q, d in made)
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in lines)


def evaluate(qrels: str, run: str, names, **options):
    return smarteval.evaluate(read_qrels("qrels", data=qrels.encode()),
                              read_run("run", data=run.encode()), names,
                              settings=Settings(**options))[0]


def every_grading(qrels: dict, run: dict, names, grade: int, unjudged: dict, **options):
    """Each output's per-query values under every grading (a list per query)."""
    most = max((len(u) for u in unjudged.values()), default=0)
    seen: dict[str, list[list[float]]] = {}
    for a in range(2 ** most):
        made = {(q, d) for q, docs in unjudged.items()
                for i, d in enumerate(docs) if (a % 2 ** len(docs)) >> i & 1}
        ev = evaluate(graded(qrels, made, grade), run_text(run), names, **options)
        for name in ev.names:
            if name in ("num_q",):
                continue
            per = seen.setdefault(name, [[] for _ in ev.qids])
            for i, v in enumerate(ev.per_query[name]):
                per[i].append(float(v))
    return seen


def close(a: float, b: float) -> bool:
    return a == pytest.approx(b, rel=1e-12, abs=1e-14)


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=collections(judged=6, ranked=8), version=st.sampled_from([9, 10]),
       level=st.sampled_from([0, 1, 2]),
       max_docs=st.one_of(st.none(), st.integers(1, 6)),
       grade=st.one_of(st.none(), st.integers(0, 4)), complete=st.booleans(),
       ties=st.sampled_from(["docno", "random"]))
def test_bounds_are_the_least_and_greatest_over_every_grading(data, version, level,
                                                                max_docs, grade, complete,
                                                                ties):
    qrels, run = data
    if ties == "random":
        max_docs = None     # the documents -M keeps are then the random order's, not docno's
    common = dict(trec_version=version, rel_level=level, max_docs=max_docs,
                  complete=complete, ties=ties, seed=7 if ties == "random" else None)
    g = max(max(v for docs in qrels.values() for v in docs.values()), level) \
        if grade is None else grade
    unjudged = unjudged_of(qrels, run, max_docs, version)
    ranged = evaluate(qrels_text(qrels), run_text(run), BOUNDED_NAMES, unjudged="range",
                      unjudged_grade=grade, **common)
    values = every_grading(qrels, run, BOUNDED_NAMES, g, unjudged, **common)
    assert not any(n.endswith("_if_relevant") for n in ranged.names)
    for name, per in values.items():
        for i, (qid, seen) in enumerate(zip(ranged.qids, per, strict=True)):
            lo = float(ranged.per_query[f"{name}_min"][i])
            hi = float(ranged.per_query[f"{name}_max"][i])
            assert close(lo, min(seen)), (name, qid, lo, min(seen), seen)
            assert close(hi, max(seen)), (name, qid, hi, max(seen), seen)


def test_the_smallest_case_a_measure_over_r_falls_outside_the_two_readings():
    # d1 relevant, n3 non-relevant; u2 and u4 unjudged. With u4 alone relevant AP is
    # (1 + 2/4) / 2 = 0.75, below both readings (1 and 0.9167); nDCG@2's ideal grows
    # while its DCG does not: 1 / (1 + 1/log2(3))
    qrels = "1 0 d1 1\n1 0 n3 0\n"
    run = "1 Q0 d1 0 4 t\n1 Q0 u2 0 3 t\n1 Q0 n3 0 2 t\n1 Q0 u4 0 1 t\n"
    ev = evaluate(qrels, run, ["map", "ndcg_cut.2"], unjudged="range")
    only_u4 = evaluate(qrels + "1 0 u4 1\n", run, ["map", "ndcg_cut.2"])
    both = evaluate(qrels + "1 0 u2 1\n1 0 u4 1\n", run, ["map"])
    assert only_u4.summary["map"] == 0.75
    assert ev.summary["map_min"] == 0.75 and ev.summary["map_max"] == 1.0
    assert both.summary["map"] == pytest.approx(11 / 12)
    assert ev.summary["ndcg_cut_2_min"] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert ev.summary["ndcg_cut_2_min"] == pytest.approx(only_u4.summary["ndcg_cut_2"])
    assert ev.summary["ndcg_cut_2_max"] == 1.0


@pytest.mark.parametrize("options", [dict(rel_level=-1), dict(ties="average")])
def test_two_readings_where_no_bound_is_given(options):
    qrels = "1 0 d1 1\n1 0 n3 0\n"
    run = "1 Q0 d1 0 4 t\n1 Q0 u2 0 3 t\n1 Q0 n3 0 2 t\n1 Q0 u4 0 1 t\n"
    res = smarteval.evaluate(read_qrels("qrels", data=qrels.encode()),
                             read_run("run", data=run.encode()), ["map", "P.2"],
                             settings=Settings(unjudged="range", **options))
    names = res[0].names
    assert "map_if_relevant" in names and "map_min" not in names
    # P only grows as documents become relevant: bounded under every --ties
    assert ("P_2_min" in names) == (options.get("rel_level", 1) >= 0)
    assert any("two readings, not bounds, of map" in n for n in res.notes)


def test_every_bounded_measure_is_checked_and_documented():
    from pathlib import Path

    from smarteval.measures import all_measures
    assert set(BOUNDED) <= set(all_measures())
    checked = {n.split(".")[0] for n in BOUNDED_NAMES}
    assert checked == set(BOUNDED)
    man = Path(__file__).parents[1] / "man" / "smarteval.1"
    section = man.read_text().split(".SH UNJUDGED DOCUMENTS")[1].split(".SH ")[0]
    listed = {w for line in section.splitlines() if line.startswith(".B ")
              for w in line[3:].replace(",", " ").split()}
    assert listed >= set(BOUNDED)
