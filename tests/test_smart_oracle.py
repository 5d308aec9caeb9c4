"""The vectorised SMART measures and curves against the slow per-query oracle (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import smart_oracle as O
from smart_helpers import make_ranked
from smarteval.curves import LEFTS, STEPS, precision_curve
from smarteval.measures import smart as S

GRADES = [-1, 0, 0, 1, 1, 2, 3]


@st.composite
def query(draw):
    L = draw(st.integers(0, 10))
    lst = draw(st.lists(st.sampled_from(GRADES), min_size=L, max_size=L))
    extra = draw(st.lists(st.sampled_from([0, 1, 1, 2, 3]), max_size=4))
    scores = sorted(draw(st.lists(st.integers(0, 3), min_size=L, max_size=L)), reverse=True)
    slack = draw(st.integers(0, 8))
    return lst, [g for g in lst if g >= 0] + extra, [float(s) for s in scores], slack


@st.composite
def collection(draw, max_queries=4):
    qs = draw(st.lists(query(), min_size=1, max_size=max_queries))
    level = draw(st.sampled_from([1, 1, 2]))
    how = draw(st.sampled_from(["expected", "worst"]))
    # one N for every query: at least each query's retrieved plus unretrieved judged
    need = max(len(lst) + len(qr) - sum(1 for g in lst if g >= 0) + s for lst, qr, _, s in qs)
    N = max(need, 1)
    r = make_ranked([q[0] for q in qs], [q[1] for q in qs], [q[2] for q in qs],
                    rel_level=level, num_docs=N, unranked=how, target_generality=30.0)
    return r, qs, level, how, N


SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def check(vec, expect):
    np.testing.assert_allclose(np.asarray(vec, dtype=float), np.asarray(expect, dtype=float),
                               rtol=1e-9, atol=1e-12)


@SETTINGS
@given(collection())
def test_rank_measures(c):
    r, qs, level, how, N = c
    check(S.norm_recall(r), [O.norm_recall(q[0], q[1], N, how, level) for q in qs])
    check(S.norm_prec(r), [O.norm_prec(q[0], q[1], N, how, level) for q in qs])
    check(S.rank_recall(r), [O.rank_recall(q[0], q[1], N, how, level) for q in qs])
    check(S.log_prec(r), [O.log_prec(q[0], q[1], N, how, level) for q in qs])
    for gains in ((), ((1, 1.0), (2, 5.0)), ((3, 0.5),)):
        check(S.wnorm_recall(r, gains),
              [O.wnorm_recall(q[0], q[1], N, how, level, gains) for q in qs])
    for name, j in (("rank_first", lambda R: 1), ("rank_second", lambda R: 2),
                    ("rank_last", lambda R: R)):
        got = getattr(S, name)(r)
        check(got, [O.rank_j(q[0], q[1], N, j(O.num_rel(q[1], level)), how, level)
                    for q in qs])


@SETTINGS
@given(collection(), st.integers(1, 14))
def test_cutoff_measures(c, k):
    r, qs, level, how, N = c
    check(S.fallout(r, k), [O.fallout(q[0], q[1], N, k, level) for q in qs])
    check(S.sliding_ratio(r, k), [O.sliding_ratio(q[0], q[1], k, level) for q in qs])
    check(S.relpoints_recall(r, k), [O.relpoints_recall(q[0], q[1], k, level) for q in qs])
    check(S.rel_recall(r, k), [O.rel_recall(q[0], q[1], k, level) for q in qs])
    check(S.accuracy(r, k), [O.accuracy(q[0], q[1], N, k, level) for q in qs])
    check(S.cutoff(r, k), [min(k, N) / N] * len(qs))
    check(S.generality(r), [1000 * O.num_rel(q[1], level) / N for q in qs])
    for beta in (0.0, 0.5, 1.0, 3.0):
        check(S.f_measure(r, (beta,)), [O.f_measure(q[0], q[1], beta, None, level) for q in qs])
        check(S.f_measure(r, (beta, k)), [O.f_measure(q[0], q[1], beta, k, level) for q in qs])
        check(S.e_measure(r, (beta, k)),
              [1 - O.f_measure(q[0], q[1], beta, k, level) for q in qs])
    got = S.jw_prob(r, k)
    np.testing.assert_allclose(got, [O.jw_prob(q[0], q[1], N, k, level) for q in qs],
                               atol=1e-12)
    check(S.esl(r, k), [O.esl(q[0], q[1], q[2], N, k, how, level) for q in qs])
    rel, seen = S._cnr_counts(r, k)
    check(rel, [O.cnr(q[0], q[1], k, level)[0] for q in qs])
    check(seen, [O.cnr(q[0], q[1], k, level)[1] for q in qs])


@SETTINGS
@given(collection(), st.sampled_from(STEPS), st.sampled_from(LEFTS),
       st.sampled_from([None, "N"]))
def test_quasi_curve(c, step, left, with_n):
    r, qs, level, how, N = c
    if with_n is None:
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    levels = [0.0, 0.1, 0.25, 0.3, 1 / 3, 0.5, 0.7, 0.75, 0.9, 1.0]
    curve = precision_curve(r, levels, method="quasi", step=step, left=left)
    for qi, q in enumerate(qs):
        for k, x in enumerate(curve.levels):
            want = O.quasi(q[0], q[1], x, step, left, N, how, level)
            got = curve.per_query[qi, k]
            if want is None:
                assert math.isnan(got)
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (qi, x)


@SETTINGS
@given(collection(), st.sampled_from([None, "N"]))
def test_semi_curve(c, with_n):
    r, qs, level, how, N = c
    if with_n is None:
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    levels = [0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 0.6, 0.7, 0.9, 1.0]
    curve = precision_curve(r, levels, method="semi")
    for qi, q in enumerate(qs):
        for k, x in enumerate(curve.levels):
            assert curve.per_query[qi, k] == pytest.approx(
                O.semi(q[0], q[1], x, N, how, level), rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(curve.precision, np.nanmean(curve.per_query, axis=0))


def _pseudo_oracle(qs, level, N, how):
    """Averaged (recall, precision) at every cut-off n, one query at a time."""
    depth = N if N is not None else max(len(q[0]) for q in qs)
    recs, precs = [], []
    for n in range(1, depth + 1):
        rs, ps = [], []
        for lst, qr, _, _ in qs:
            R = O.num_rel(qr, level)
            a = O.top(lst, n, level)
            if N is not None and n > len(lst):
                m = R - O.top(lst, len(lst), level)
                if how == "worst":
                    a += max(0, n - (N - m))
                else:
                    a += m * (n - len(lst)) / (N - len(lst))
            rs.append(a / R if R else 0.0)
            ps.append(a / n)
        recs.append(rs)
        precs.append(ps)
    return np.array(recs), np.array(precs)


@SETTINGS
@given(collection(), st.sampled_from(["macro", "micro", "median"]),
       st.sampled_from([None, "N"]))
def test_pseudo_curve(c, average, with_n):
    r, qs, level, how, N = c
    if with_n is None:
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    if N is None and max(len(q[0]) for q in qs) == 0:
        return
    recs, precs = _pseudo_oracle(qs, level, N, how)
    if average == "macro":
        rec, prec = recs.mean(axis=1), precs.mean(axis=1)
    elif average == "median":
        rec, prec = np.median(recs, axis=1), np.median(precs, axis=1)
    else:
        Rs = [O.num_rel(q[1], level) for q in qs]
        tot = sum(Rs)
        rec = (recs * np.array(Rs)).sum(axis=1) / tot if tot else np.zeros(len(recs))
        prec = precs.mean(axis=1)
    levels = [0.1, 0.25, 0.5, 0.75, 1.0]
    curve = precision_curve(r, levels, method="pseudo", average=average)
    for k, x in enumerate(levels):
        # the first cut-off reaching x, joined by a straight line to the one before
        reach = [i for i in range(len(rec)) if rec[i] >= x - 1e-12]
        if not reach:
            assert math.isnan(curve.precision[k])
            continue
        i = reach[0]
        if i == 0 or rec[i] - rec[i - 1] < 1e-12:
            want_p, want_n = prec[i], i + 1
        else:
            t = min((x - rec[i - 1]) / (rec[i] - rec[i - 1]), 1.0)
            want_p, want_n = prec[i - 1] + t * (prec[i] - prec[i - 1]), i + t
        assert curve.precision[k] == pytest.approx(want_p, abs=1e-9)
        assert curve.examined[k] == pytest.approx(want_n, abs=1e-9)


@SETTINGS
@given(collection(), st.integers(1, 12))
def test_micro_is_pooled_counts(c, k):
    from smarteval.registry import all_measures
    r, qs, level, how, N = c
    reg = all_measures()
    for name in ("fallout", "sliding_ratio", "relpoints_recall", "rel_recall", "accuracy",
                 "cnr_recall", "cnr_prec", "cutoff"):
        num, den = reg[name].micro(r, k)
        per_q = reg[name].func(r, k)
        # each query's own value is its own ratio (where it has a denominator)
        has = den > 0
        check(per_q[has], num[has] / den[has])


def test_semi_agrees_with_trec_iprec_where_rounding_agrees():
    from smarteval.registry import all_measures
    rng = np.random.default_rng(7)
    lists = [list(rng.choice([0, 0, 0, 1], size=rng.integers(1, 30))) for _ in range(40)]
    qrels = [[g for g in lst] + [1] * int(rng.integers(0, 3)) for lst in lists]
    r = make_ranked(lists, qrels)
    iprec = all_measures()["iprec_at_recall"].func
    levels = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    curve = precision_curve(r, levels, method="semi")
    R = r.num_rel
    for k, x in enumerate(levels):
        trec = iprec(r, x)
        # trec_eval 9 turns the level into int(x*R + 0.9) documents; exact is ceil(x*R)
        same = (x * R + 0.9).astype(int) == np.maximum(np.ceil(np.round(x * R, 9)), 0)
        np.testing.assert_allclose(curve.per_query[same, k], trec[same], atol=1e-12)
