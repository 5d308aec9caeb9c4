"""Joiner & Werner's residual collection (``--frozen``) against a per-query oracle by docno."""

from __future__ import annotations

import numpy as np
import pytest
import smart_oracle as O
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smarteval.columns import Ranked
from smarteval.errors import UsageError
from smarteval.measures import smart as S
from smarteval.ranking.residual import residual
from smarteval.settings import Settings


def ranked(queries, qrels, N=None) -> Ranked:
    """A Ranked from each query's docnos in rank order and its qrels {docno: grade}."""
    qids = sorted(queries)
    docs = [queries[q] for q in qids]
    offsets = np.concatenate(([0], np.cumsum([len(d) for d in docs]))).astype(np.int64)
    rel = [qrels.get(q, {}).get(d, -1) for q, ds in zip(qids, docs) for d in ds]
    rel = [g if g >= -1 else -2 for g in rel]
    grades = [sorted((g for g in qrels.get(q, {}).values() if g >= 0), reverse=True)
              for q in qids]
    n = int(offsets[-1])
    return Ranked(qids=np.array(qids), offsets=offsets, rel=np.array(rel, dtype=np.int64),
                  score=-np.arange(n, dtype=np.float64),
                  docno=np.array([d.encode() for ds in docs for d in ds], dtype="S"),
                  qrel_offsets=np.concatenate(([0], np.cumsum([len(g) for g in grades])))
                  .astype(np.int64),
                  qrel_grades=np.array([g for gs in grades for g in gs], dtype=np.int64),
                  in_run=np.ones(len(qids), dtype=bool), settings=Settings(num_docs=N))


POOL = [f"d{i}" for i in range(14)]


@st.composite
def case(draw):
    """Queries with a feedback and an initial ranking over one pool, some judged."""
    nq = draw(st.integers(1, 3))
    feedback, initial, qrels = {}, {}, {}
    for q in range(nq):
        qid = f"q{q}"
        feedback[qid] = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=10))
        if draw(st.booleans()) or q == 0:
            initial[qid] = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=10))
        judged = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=10))
        qrels[qid] = {d: draw(st.sampled_from([-1, 0, 0, 1, 2])) for d in judged}
    return feedback, initial, qrels, draw(st.integers(0, 12))


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_residual_matches_the_oracle(c):
    """Frozen tops with nothing judged, empty, shorter than the depth, or depth 0."""
    feedback, initial, qrels, depth = c
    N = 40
    res = residual(ranked(feedback, qrels, N), ranked(initial, qrels, N), depth)
    for qi, q in enumerate(sorted(feedback)):
        kept, left, n_left = O.residual(feedback[q], initial.get(q), qrels[q], N, depth)
        rows = slice(res.offsets[qi], res.offsets[qi + 1])
        assert [d.decode() for d in res.docno[rows]] == kept
        grades = res.qrel_grades[res.qrel_offsets[qi]:res.qrel_offsets[qi + 1]]
        assert list(grades) == sorted((g for g in left.values() if g >= 0), reverse=True)
        assert int(res.num_docs_q[qi]) == n_left
        # and a measure over the residual collection, as the oracle computes it there
        lst = [left.get(d, -1) for d in kept]
        lst = [g if g >= -1 else -2 for g in lst]
        for k in (1, 3):
            assert S.jw_prob(res, k)[qi] == pytest.approx(
                O.jw_prob(lst, [g for g in left.values() if g >= 0], n_left, k), rel=1e-12)


def test_frozen_top_without_judged_documents():
    # the seen documents are judged by nobody: only the run and N lose them
    qrels = {"1": {"a": 1, "b": 0, "c": 1}}
    res = residual(ranked({"1": ["x", "a", "b", "c"]}, qrels, 10),
                   ranked({"1": ["x", "y"]}, qrels, 10), 2)
    assert [d.decode() for d in res.docno] == ["a", "b", "c"]
    assert list(res.qrel_grades) == [1, 1, 0] and int(res.num_docs_q[0]) == 8


def test_frozen_depth_zero_changes_nothing():
    qrels = {"1": {"a": 1, "b": 0}}
    fb = ranked({"1": ["a", "b"]}, qrels, 10)
    res = residual(fb, ranked({"1": ["a", "b"]}, qrels, 10), 0)
    assert list(res.docno) == list(fb.docno) and list(res.qrel_grades) == [1, 0]
    assert int(res.num_docs_q[0]) == 10
    with pytest.raises(UsageError, match="must not be negative"):
        residual(fb, fb, -1)
