"""``--ties average`` and tie groups by example.

Every measure with a tie average is checked against the mean over every order of each
tied group (brute force) in tests/test_registry.py, which also keeps the list of the
measures that refuse ``--ties average``.
"""

from __future__ import annotations

import math

import pytest
from smart_helpers import make_ranked

from smarteval.measures import all_measures, parse_measures
from smarteval.measures import smart as S
from smarteval.measures.tied import tie_groups


def test_tie_groups_example():
    r = make_ranked([[0, 1, 0, 1]], scores=[[3.0, 2.0, 2.0, 1.0]])
    g = tie_groups(r)
    assert list(g.before) == [0, 1, 1, 3]
    assert list(g.size) == [1, 2, 2, 1]
    assert list(g.rels) == [0, 1, 1, 1]
    assert list(g.rel_before) == [0, 0, 0, 1]


def test_all_tied_norm_recall_is_the_random_ranking():
    # every document tied: the expected sum of ranks is R(N+1)/2, normalized recall 1/2
    N = 10
    r = make_ranked([[1, 0, 1, 0, 0, 0, 0, 0, 0, 0]], scores=[[1.0] * N], num_docs=N)
    assert all_measures()["norm_recall"].function("average")(r)[0] == pytest.approx(0.5)


def test_esl_cooper_example():
    # levels {r n} {n r r n} {r}: ESL1 = 0 + 1*1/2, ESL2 = 1 + 2*1/3, ESL3 = 1 + 2*2/3
    lst = [1, 0, 0, 1, 1, 0, 1]
    scores = [3.0, 3.0, 2.0, 2.0, 2.0, 2.0, 1.0]
    r = make_ranked([lst], scores=[scores])
    assert S.esl(r, 1)[0] == pytest.approx(0.5)
    assert S.esl(r, 2)[0] == pytest.approx(1 + 2 / 3)
    assert S.esl(r, 3)[0] == pytest.approx(1 + 4 / 3)
    assert S.esl(r, 4)[0] == pytest.approx(3)
    # a strict order: the non-relevant documents before the k-th relevant
    strict = make_ranked([lst])
    assert [S.esl(strict, k)[0] for k in (1, 2, 3, 4)] == [0, 2, 2, 3]


def test_esl_past_the_list_needs_n():
    from smarteval.errors import UsageError
    r = make_ranked([[0, 1]], [[1, 1, 0]])
    with pytest.raises(UsageError, match="esl needs -N/--num-docs: query q000"):
        S.esl(r, 2)
    # N = 10: 8 unretrieved documents, 1 relevant and 7 not: 1 + 7*1/2
    r = make_ranked([[0, 1]], [[1, 1, 0]], num_docs=10)
    assert S.esl(r, 2)[0] == pytest.approx(1 + 7 / 2)
    assert math.isclose(S.esl(make_ranked([[0, 1]], [[1, 1, 0]], num_docs=10,
                                          unranked="worst"), 2)[0], 1 + 7)


def test_ties_average_through_the_registry():
    from smarteval.errors import UsageError
    r = make_ranked([[1, 0, 0, 1]], scores=[[2.0, 1.0, 1.0, 1.0]], ties="average")
    outs = [o for rq in parse_measures(["P.2", "map"]) for o in rq.outputs()]
    by = {o.name: o.compute(r)[0] for o in outs}
    assert by["P_2"] == pytest.approx((1 + 1 / 3) / 2)
    (bpref,) = parse_measures(["bpref"])[0].outputs()
    with pytest.raises(UsageError, match="--ties average: bpref has no exact average"):
        bpref.compute(r)
