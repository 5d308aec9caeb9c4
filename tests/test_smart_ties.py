"""``--ties average``: the exact expectation over every order of each tied group, against brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from smart_helpers import make_ranked
from smarteval.measures import smart as S  # noqa: F401  (fills the registry)
from smarteval.measures.tied import tie_groups
from smarteval.registry import all_measures

#: measure -> parameter used in the test (None: no parameter)
TIED = {
    "norm_recall": None, "norm_prec": None, "wnorm_recall": ((2, 5.0),),
    "fallout": 3, "generality": None, "cutoff": 3, "sliding_ratio": 3,
    "relpoints_recall": 4, "rel_recall": 2, "rank_first": None, "rank_second": None,
    "rank_last": None, "F": (1.0, 3), "E": (0.5, 4), "accuracy": 2, "esl": 2,
}
#: SMART measures that refuse --ties average (not linear in the ranks)
REFUSE = {"rank_recall", "log_prec", "adj_prec", "jw_prob", "jw_avg", "cnr_recall", "cnr_prec"}


def test_every_smart_measure_is_classified():
    smart = {n for n, m in all_measures().items()
             if m.func.__module__ == "smarteval.measures.smart"}
    assert smart == set(TIED) | REFUSE
    for name in TIED:
        assert all_measures()[name].ties is not None, name
    for name in REFUSE:
        assert all_measures()[name].ties is None, name


def orders(scores):
    """Every order of the rows that keeps the groups of equal scores in place."""
    groups = [list(g) for _, g in itertools.groupby(range(len(scores)), key=lambda i: scores[i])]
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for g in perm for i in g]


def call(m, r, param):
    return m.func(r) if param is None else m.func(r, param)


def call_tied(m, r, param):
    return m.ties(r) if param is None else m.ties(r, param)


@st.composite
def tied_query(draw):
    L = draw(st.integers(1, 7))
    lst = draw(st.lists(st.sampled_from([-1, 0, 0, 1, 1, 2]), min_size=L, max_size=L))
    scores = sorted(draw(st.lists(st.integers(0, 2), min_size=L, max_size=L)), reverse=True)
    extra = draw(st.lists(st.sampled_from([0, 1, 2]), max_size=2))
    slack = draw(st.integers(0, 5))
    how = draw(st.sampled_from(["expected", "worst"]))
    return lst, [float(s) for s in scores], [g for g in lst if g >= 0] + extra, slack, how


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_query())
def test_tied_expectation_is_the_mean_over_orders(q):
    lst, scores, qrels, slack, how = q
    N = len(lst) + len(qrels) + slack
    reg = all_measures()
    base = make_ranked([lst], [qrels], [scores], num_docs=N, unranked=how,
                       target_generality=20.0)
    perms = list(orders(scores))
    for name, param in TIED.items():
        m = reg[name]
        values = [call(m, make_ranked([[lst[i] for i in p]], [qrels], [scores], num_docs=N,
                                      unranked=how), param)[0] for p in perms]
        assert call_tied(m, base, param)[0] == pytest.approx(np.mean(values), rel=1e-9,
                                                             abs=1e-12), name


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
    assert all_measures()["norm_recall"].ties(r)[0] == pytest.approx(0.5)


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


#: trec_eval measures with an exact --ties average (P, recall, R-prec, AP, RR,
#: nDCG; and the others linear in the top-k indicators or independent of the order)
TREC_TIED = {
    "P": 3, "recall": 2, "Rprec": None, "map": None, "gm_map": None, "map_cut": 3,
    "recip_rank": None, "ndcg": (), "ndcg_cut": 3, "relative_P": 3, "success": 2,
    "Rprec_mult": 0.6, "num_ret": None, "num_rel": None, "num_rel_ret": None,
    "set_P": None, "set_recall": None, "set_relative_P": None, "set_map": None,
    "set_F": (1.0,), "utility": (1.0, -1.0, 0.0, 0.0), "num_nonrel_judged_ret": None,
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_query())
def test_trec_tied_expectation_is_the_mean_over_orders(q):
    lst, scores, qrels, slack, how = q
    reg = all_measures()
    base = make_ranked([lst], [qrels], [scores])
    perms = list(orders(scores))
    for name, param in TREC_TIED.items():
        m = reg[name]
        values = [call(m, make_ranked([[lst[i] for i in p]], [qrels], [scores]), param)[0]
                  for p in perms]
        assert call_tied(m, base, param)[0] == pytest.approx(np.mean(values), rel=1e-9,
                                                             abs=1e-12), name
    ndcg_gains = ((1, 3.0), (2, 7.0))
    values = [reg["ndcg"].func(make_ranked([[lst[i] for i in p]], [qrels], [scores]),
                               ndcg_gains)[0] for p in perms]
    assert reg["ndcg"].ties(base, ndcg_gains)[0] == pytest.approx(np.mean(values), abs=1e-12)


def test_ties_average_through_the_registry():
    from smarteval.errors import UsageError
    from smarteval.registry import parse_measures
    r = make_ranked([[1, 0, 0, 1]], scores=[[2.0, 1.0, 1.0, 1.0]], ties="average")
    outs = [o for rq in parse_measures(["P.2", "map"]) for o in rq.outputs()]
    by = {o.name: o.compute(r)[0] for o in outs}
    assert by["P_2"] == pytest.approx((1 + 1 / 3) / 2)
    (bpref,) = parse_measures(["bpref"])[0].outputs()
    with pytest.raises(UsageError, match="--ties average: bpref has no exact average"):
        bpref.compute(r)
