"""RR@k and Judged@k, the ir_measures names trec_eval lacks, against ir_measures' definitions."""

from __future__ import annotations

import numpy as np
from fixtures import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.read.plain import read_qrels, read_run

DOCS = [f"d{i}" for i in range(12)]


@settings(max_examples=examples(60), deadline=None)
@given(grades=st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 2), min_size=1),
       scores=st.dictionaries(st.sampled_from(DOCS), st.integers(0, 5), min_size=1),
       k=st.integers(1, 8))
def test_rr_at_k_and_judged_at_k(grades, scores, k):
    if not any(g >= 0 for g in grades.values()):
        return
    qrels = read_qrels("q", data="".join(f"1 0 {d} {g}\n" for d, g in grades.items()).encode())
    run = read_run("r", data="".join(f"1 Q0 {d} 0 {s} t\n" for d, s in scores.items()).encode())
    ev = smarteval.evaluate(qrels, run, [f"RR@{k}", "RR", f"Judged@{k}", f"unj.{k}"],
                            trec_version=10)[0]
    # ir_measures' msmarco and judged providers: score descending, then docno ascending
    ranking = sorted(scores, key=lambda d: (-scores[d], d.encode()))
    first = next((i for i, d in enumerate(ranking, 1) if grades.get(d, -1) >= 1), None)
    rr_k = 1 / first if first is not None and first <= k else 0.0
    # every document the qrels list counts as judged, over min(k, retrieved)
    depth = min(k, len(ranking))
    judged = sum(d in grades for d in ranking[:depth]) / depth
    assert ev.per_query[f"RR@{k}"][0] == rr_k
    assert ev.per_query[f"Judged@{k}"][0] == judged
    # trec_eval's unj (m_unjudged.c) counts documents graded -1 or -2 or missing from the
    # qrels, ranks ties by docno descending (ir_measures: ascending), and divides by k
    te_ranking = sorted(sorted(scores, key=str.encode, reverse=True), key=lambda d: -scores[d])
    unj = sum(grades.get(d, -1) in (-1, -2) for d in te_ranking[:depth]) / k
    np.testing.assert_allclose(ev.per_query[f"unj_{k}"], unj)
    # without tied scores or negative grades, judged + unj make up the list
    if len(set(scores.values())) == len(scores) and min(grades.values()) >= 0:
        np.testing.assert_allclose(ev.per_query[f"Judged@{k}"] * depth / k
                                   + ev.per_query[f"unj_{k}"], depth / k)


def test_judged_tie_average_is_the_mean_over_every_order():
    import itertools

    from smarteval.settings import Settings
    qrels = read_qrels("q", data=b"1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 e 2\n")
    docs = ["a", "b", "c", "d", "e"]
    tied = read_run("r", data="".join(f"1 Q0 {d} 0 {s} t\n" for d, s in
                                      zip(docs, [3, 1, 1, 1, 0])).encode())
    for k in (1, 2, 3, 4):
        want = []
        for perm in itertools.permutations(["b", "c", "d"]):
            order = ["a", *perm, "e"]
            run = read_run("r", data="".join(f"1 Q0 {d} 0 {10 - i} t\n"
                                             for i, d in enumerate(order)).encode())
            want.append(smarteval.evaluate(qrels, run, [f"judged.{k}"])[0].summary[f"judged_{k}"])
        got = smarteval.evaluate(qrels, tied, [f"judged.{k}"],
                                 settings=Settings(ties="average"))[0].summary[f"judged_{k}"]
        assert np.isclose(got, np.mean(want)), (k, got, np.mean(want))
