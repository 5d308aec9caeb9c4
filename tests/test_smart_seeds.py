"""Every worked number of the SMART seeds (Keen, Rocchio, Joiner & Werner, IIR) as an exact test.

The seeds print 2 to 5 decimals, sometimes truncated and sometimes rounded; each test
checks to the printed precision (|value - printed| < one unit of the last printed place)
unless it says otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from smart_helpers import from_ranks, make_ranked

from smarteval.curves import precision_curve
from smarteval.measures import all_measures
from smarteval.measures import smart as S


def close(value, printed, places):
    """Within one unit of the last printed place (covers truncation and rounding)."""
    return abs(float(value) - printed) < 10.0 ** -places


# --------------------------------------------------------------------------- Keen Fig. 3, 9

def test_keen_fig3_normalized_measures():
    r = from_ranks([[1, 2, 4, 6, 13]], num_docs=200)
    assert close(S.norm_recall(r)[0], 0.9887, 4)
    assert close(S.norm_prec(r)[0], 0.9238, 4)
    # the formulas printed under Fig. 3, evaluated directly
    nr = 1 - (26 - 15) / (5 * 195)
    npr = 1 - (math.log(1 * 2 * 4 * 6 * 13) - math.log(120)) / math.log(math.comb(200, 5))
    assert S.norm_recall(r)[0] == pytest.approx(nr, abs=1e-15)
    assert S.norm_prec(r)[0] == pytest.approx(npr, abs=1e-12)


@pytest.mark.parametrize("ranks, nr, npr", [
    ([1, 3, 14, 17, 18], 0.9013, 0.7270),    # QA12 cosine numeric
    ([1, 2, 3, 18, 23], 0.9169, 0.8230),     # QA12 cosine logical
    ([1, 15], 0.9188, 0.7515),               # QA4 cosine numeric
    ([2, 3], 0.9875, 0.8645),                # QA4 cosine logical
])
def test_keen_fig9_adi(ranks, nr, npr):
    r = from_ranks([ranks], num_docs=82)
    assert close(S.norm_recall(r)[0], nr, 4)
    assert close(S.norm_prec(r)[0], npr, 4)


def test_keen_fig9_merit_order():
    # "in both requests the normalized measures strongly favor the Cosine Logical option"
    r = from_ranks([[1, 3, 14, 17, 18], [1, 2, 3, 18, 23], [1, 15], [2, 3]], num_docs=82)
    nr, npr = S.norm_recall(r), S.norm_prec(r)
    assert nr[1] > nr[0] and nr[3] > nr[2]
    assert npr[1] > npr[0] and npr[3] > npr[2]


def test_rank_recall_log_prec():
    r = from_ranks([[1], [1, 2, 4, 6, 13]], num_docs=200)
    assert S.rank_recall(r)[0] == 1.0 and S.log_prec(r)[0] == 1.0      # R=1 at rank 1
    assert S.rank_recall(r)[1] == pytest.approx(15 / 26, abs=1e-15)
    assert S.log_prec(r)[1] == pytest.approx(math.log(120) / math.log(624), abs=1e-15)


# --------------------------------------------------------------------------- Keen Fig. 4, 6, 15

def test_keen_fig6_sliding_ratio():
    r = from_ranks([[1, 2, 4, 6, 13]], L=[14])
    printed = {1: 1.00, 2: 1.00, 3: 0.67, 4: 0.75, 5: 0.60, 6: 0.80, 7: 0.80, 13: 1.00,
               14: 1.00}
    for k, mu in printed.items():
        assert close(S.sliding_ratio(r, k)[0], mu, 2), k


def test_keen_fig4_pseudo_single_request():
    # Fig. 4: recall/precision after each document; the pseudo curve of one request
    # passes through the cut-offs where recall reaches .2 .4 .6 .8 1.0
    r = from_ranks([[1, 2, 4, 6, 13]], L=[14])
    c = precision_curve(r, [0.2, 0.4, 0.6, 0.8, 1.0], method="pseudo")
    np.testing.assert_allclose(c.examined, [1, 2, 4, 6, 13])
    printed = [1.0, 1.0, 0.75, 0.67, 0.38]
    for v, p in zip(c.precision, printed):
        assert close(v, p, 2)


@pytest.mark.parametrize("step, printed", [
    ("highest", 0.6667), ("lowest", 0.3333), ("middle", 0.4444), ("mean", 0.4685),
    ("ends", 0.5000)])
def test_keen_fig15_step_choices(step, printed):
    r = from_ranks([[1, 2, 4, 6, 13]], L=[14])
    c = precision_curve(r, [0.8], method="quasi", step=step)
    assert close(c.precision[0], printed, 4)


def test_keen_fig15_table():
    # the precision column of Fig. 15, ranks 5..13
    from smarteval.curves import relevant_points
    printed = {5: .6000, 6: .6667, 7: .5714, 8: .5000, 9: .4444, 10: .4000, 11: .3636,
               12: .3333, 13: .3846}
    lst = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    for n, p in printed.items():
        assert close(sum(lst[:n]) / n, p, 4)
    pts = relevant_points(from_ranks([[1, 2, 4, 6, 13]], L=[14]))
    assert pts.rank[3] == 6 and pts.end[3] == 12       # the vertical step at recall .8


def test_semi_counts_left_of_the_first_point_are_extrapolated():
    # Keen 4C: the counts record how many requests were averaged "using an extrapolated
    # part of the individual curves". Q268 (R = 5): recall .1 lies left of the first
    # point (.2), so it is extrapolated there on the semi curve as on the quasi curve,
    # although the point it takes (rank 1) is a retrieved document.
    r = from_ranks([[1, 2, 4, 6, 13]], L=[14], num_docs=200)
    for method in ("semi", "quasi"):
        c = precision_curve(r, [0.1, 0.2], method=method)
        assert list(c.real) == [0, 1] and list(c.extrapolated) == [1, 0], method
        assert list(c.precision) == [1.0, 1.0]


def test_semi_micro_equal_precisions_take_the_earliest_cut_off():
    # Nothing retrieved of 4 relevant in N = 60: placed at 12.2, 24.4, 36.6, 48.8, all
    # of precision 5/61 (4/48.8 rounds above 3/36.6). At recall .75 the earliest best
    # cut-off is 36.6 (3 relevant): pooled with a query whose one relevant document is
    # at rank 1, micro precision is (3 + 1) / (36.6 + 1), not (4 + 1) / (48.8 + 1).
    r = make_ranked([[], [1]], [[1, 1, 1, 1], [1]], num_docs=60)
    c = precision_curve(r, [0.1, 0.75, 1.0], method="semi", average="micro")
    np.testing.assert_allclose(c.precision, [2 / 13.2, 4 / 37.6, 5 / 49.8], rtol=1e-14)


# --------------------------------------------------------------------------- Keen 4B, precision

def test_keen_4b_cut_offs_at_precision_levels():
    # Q268 (Fig. 4): precision at the relevant documents 1/1, 2/2, 3/4, 4/6, 5/13. The
    # cut-off for a level is the deepest relevant document still at or above it:
    # 1.0 -> rank 2 (recall .4), .7 -> rank 4 (.6), .5 -> rank 6 (.8), .3 -> rank 13 (1.0)
    r = from_ranks([[1, 2, 4, 6, 13]], L=[14])
    c = precision_curve(r, [0.3, 0.5, 0.7, 1.0], method="precision")
    np.testing.assert_allclose(c.value, [1.0, 0.8, 0.6, 0.4])
    np.testing.assert_allclose(c.examined, [13, 6, 4, 2])
    # "more than one cut-off can achieve a given precision": .6 is reached at rank 5
    # (3/5) and again at rank 6 (4/6, an upward step of Fig. 4); the deeper one is taken
    assert precision_curve(r, [0.6], method="precision").value[0] == 0.8
    # Fig. 15's step at recall .8: rank 10 has precision exactly .4, but it holds no
    # relevant document; the cut-off stays at rank 6, since 5/13 < .4
    c = precision_curve(r, [0.4], method="precision")
    assert c.value[0] == 0.8 and c.examined[0] == 6
    # recall never rises with the level
    many = precision_curve(r, "20", method="precision").value
    assert (np.diff(many) <= 0).all()


# --------------------------------------------------------------------------- Keen Fig. 19-22

LEFT_CASES = from_ranks([[1, 2, 9, 12], [2, 3, 9, 12], [1], [2]], L=[14, 14, 14, 14])


@pytest.mark.parametrize("left, at_zero", [
    ("zero", [0, 0, 0, 0]),              # method 2, Fig. 19
    ("one", [1, 1, 1, 1]),               # method 3, Fig. 20
    ("hybrid", [1, 0, 1, 0]),            # method 4, Fig. 21: 0 when the first is non-relevant
    ("constant", [1, 0.5, 1, 0.5]),      # method 5, Fig. 22: the first relevant's precision
])
def test_keen_left_end_extrapolation(left, at_zero):
    c = precision_curve(LEFT_CASES, [0.0, 1.0], method="quasi", left=left)
    np.testing.assert_allclose(c.per_query[:, 0], at_zero)
    assert list(c.extrapolated) == [4, 0] and list(c.real) == [0, 4]


def test_keen_fig18_method1_counts():
    # method 1: a request enters the average only where its curve can be drawn
    c = precision_curve(LEFT_CASES, [0.1, 0.25, 0.5, 1.0], method="quasi", left="none")
    assert list(c.real) == [0, 2, 2, 4]
    assert list(c.excluded) == [4, 2, 2, 0]


# --------------------------------------------------------------------------- Keen Fig. 25

FIG25_FULL = from_ranks([[2, 4, 7, 10, 14]] * 3, L=[14] * 3)
FIG25_CLUSTER = from_ranks([[], [3, 7], [1, 3]], R=[5, 5, 5], L=[8, 8, 8])


def test_keen_fig25_cluster_extrapolation():
    # full search: relevant at 2, 4, 7, 10, 14; its last point has precision 5/14.
    # a) nothing relevant found: the whole curve is the full search's point at 1.0
    # b) cluster ranks 3, 7: (.2, 1/3) (.4, 2/7), then a line to (1.0, 5/14)
    # c) cluster ranks 1, 3: (.2, 1) (.4, 2/3), then a line to (1.0, 5/14)
    levels = [0.1, 0.2, 0.4, 0.6, 0.8, 1.0]
    c = precision_curve(FIG25_CLUSTER, levels, method="cluster", full=FIG25_FULL)
    last = 5 / 14

    def line(y, x):                  # from (.4, y) to (1.0, 5/14)
        return y + (last - y) * (x - 0.4) / 0.6
    np.testing.assert_allclose(c.per_query, [
        [last] * 6,
        [1 / 3, 1 / 3, 2 / 7, line(2 / 7, .6), line(2 / 7, .8), last],
        [1, 1, 2 / 3, line(2 / 3, .6), line(2 / 3, .8), last]], rtol=1e-12)
    # the recall ceiling: .4 in b) and c), 0 in a)
    assert c.ceiling == pytest.approx(0.8 / 3)
    # real up to each ceiling; below .2 the constant left end (Keen's method 5)
    assert list(c.real) == [0, 2, 2, 0, 0, 0]
    assert list(c.extrapolated) == [3, 1, 1, 3, 3, 3]


def test_keen_4d_joining_and_no_extrapolation():
    # joining the end of the cluster curve to the full search's next point (3/7 at .6)
    # and along its curve (4/10 at .8, 5/14 at 1.0); "none" leaves a query out past its
    # ceiling, and a query with nothing found everywhere (Keen's first solution)
    levels = [0.4, 0.6, 0.8, 1.0]
    join = precision_curve(FIG25_CLUSTER, levels, method="cluster", full=FIG25_FULL,
                           end="join")
    np.testing.assert_allclose(join.per_query[1:, 1:], [[3 / 7, 4 / 10, 5 / 14]] * 2)
    np.testing.assert_allclose(join.per_query[0], [2 / 4, 3 / 7, 4 / 10, 5 / 14])
    none = precision_curve(FIG25_CLUSTER, levels, method="cluster", full=FIG25_FULL,
                           end="none")
    assert list(none.excluded) == [1, 3, 3, 3]
    assert none.value[0] == pytest.approx((2 / 7 + 2 / 3) / 2)
    assert np.isnan(none.value[1])


# --------------------------------------------------------------------------- Keen Fig. 26

Q167 = from_ranks([[3, 13, 19, 41]], grades=[[3, 2, 4, 2]], L=[45], num_docs=200)


def test_keen_fig26a_performance_characteristic():
    # Fig. 27(d)'s Cran-1 Q167 (grades 3, 2, 4, 2 at ranks 3, 13, 19, 41; 11 points):
    # the cumulated relevance points against the rank position, and the best possible
    # curve (grades 4, 3, 2, 2 at ranks 1-4)
    from smarteval.plot.data import best_possible
    cut = [1, 3, 13, 19, 41, 45]
    c = precision_curve(Q167, cut, method="characteristic")
    np.testing.assert_allclose(c.value, np.array([0, 3, 5, 9, 11, 11]) / 11)
    best = precision_curve(best_possible(Q167), [1, 2, 3, 4], method="characteristic")
    np.testing.assert_allclose(best.value, np.array([4, 7, 9, 11]) / 11)
    # Fig. 27(a) against (b): the same ranks, the grades in the best and the worst order;
    # only relevance points tell them apart
    a = from_ranks([[1, 2, 3, 4]], grades=[[4, 3, 2, 1]], num_docs=200)
    b = from_ranks([[1, 2, 3, 4]], grades=[[1, 2, 3, 4]], num_docs=200)
    ca = precision_curve(a, [1, 2, 3], method="characteristic").value
    cb = precision_curve(b, [1, 2, 3], method="characteristic").value
    np.testing.assert_allclose(ca, [.4, .7, .9])
    np.testing.assert_allclose(cb, [.1, .3, .6])
    assert list(precision_curve(a, [0.5], method="pseudo").value) == \
        list(precision_curve(b, [0.5], method="pseudo").value)


def test_keen_fig26b_precision_against_relevance_points_recall():
    # the same query on the precision-recall graph, recall over relevance points, "the
    # rank position value ... indicated on the precision recall graph": the documents
    # examined at each level are where the characteristic reaches it
    levels = [3 / 11, 5 / 11, 9 / 11, 1.0]
    c = precision_curve(Q167, levels, method="points")
    np.testing.assert_allclose(c.examined, [3, 13, 19, 41])
    np.testing.assert_allclose(c.value, [1 / 3, 2 / 13, 3 / 19, 4 / 41])
    back = precision_curve(Q167, c.examined, method="characteristic")
    np.testing.assert_allclose(back.value, levels)
    # with binary grades, relevance points are documents: the pseudo curve
    binary = from_ranks([[3, 13, 19, 41]], L=[45], num_docs=200)
    np.testing.assert_allclose(precision_curve(binary, [0.5, 1.0], method="points").value,
                               precision_curve(binary, [0.5, 1.0], method="pseudo").value)


# --------------------------------------------------------------------------- Keen Fig. 27

@pytest.mark.parametrize("ranks, weights, printed", [
    ([1, 2, 3, 4], [4, 3, 2, 1], 1.000),      # (a) perfect ranks, perfect grade order
    ([1, 2, 3, 4], [1, 2, 3, 4], 0.9872),     # (b) perfect ranks, worst grade order
    ([1, 3, 4, 9], [4, 3, 2, 1], 0.9872),     # (c) less than perfect ranks
    ([3, 13, 19, 41], [3, 2, 4, 2], 0.7844),  # (d) Cran-1 Q167, suffix 's'
])
def test_keen_fig27_weighted_normalized_recall(ranks, weights, printed):
    r = from_ranks([ranks], grades=[weights], num_docs=200)
    assert close(S.wnorm_recall(r, ())[0], printed, 4)


def test_keen_fig27_sums_of_products():
    # the "sum of products" column: 20, 30, 30, 193 against the ideal 20, 20, 20, 24
    r = from_ranks([[3, 13, 19, 41]], grades=[[3, 2, 4, 2]], num_docs=200)
    assert S.wnorm_recall(r, ())[0] == pytest.approx(1 - (193 - 24) / (4 * 196), abs=1e-15)


# --------------------------------------------------------------------------- Keen Fig. 30

def _fig30(R_per_query, rel_at_rank):
    """21 requests, N=200, with the relevant counts of Fig. 30 at ranks 1..5."""
    lists = [[0] * 5 for _ in R_per_query]
    q = 0
    for rank, count in enumerate(rel_at_rank):
        for _ in range(count):
            # the next request with room for one more relevant in its top five
            while sum(lists[q % 21]) >= R_per_query[q % 21] or lists[q % 21][rank]:
                q += 1
            lists[q % 21][rank] = 1
            q += 1
    qrels = [[1] * R + [0] * (5 - sum(lst)) for R, lst in zip(R_per_query, lists)]
    return make_ranked(lists, qrels, num_docs=200)


SPECIFIC = _fig30([3] * 21, [8, 9, 7, 1, 1])
GENERAL = _fig30([6] * 12 + [7] * 9, [11, 9, 7, 6, 5])


def _micro(name, r, k):
    m = all_measures()[name]
    num, den = m.micro(r, k)
    return float(np.sum(num) / np.sum(den))


def test_keen_fig30_construction():
    for r, total, found in ((SPECIFIC, 63, [8, 17, 24, 25, 26]),
                            (GENERAL, 135, [11, 20, 27, 33, 38])):
        assert int(r.num_rel.sum()) == total
        assert [int(S.Exact(r).top(r.is_rel, k).sum()) for k in range(1, 6)] == found


@pytest.mark.parametrize("r, printed", [
    # the figure prints .00910 at n=5 for the specific requests; 79/4137 is .01910
    (SPECIFIC, [.00314, .00604, .00943, .01426, .01910]),
    (GENERAL, [.00246, .00541, .00886, .01255, .01648]),
])
def test_keen_fig30_micro_fallout(r, printed):
    for k, p in enumerate(printed, start=1):
        assert round(_micro("fallout", r, k), 5) == p


@pytest.mark.parametrize("r, printed", [
    (SPECIFIC, [.13, .27, .38, .40, .41]),
    (GENERAL, [.08, .15, .20, .24, .28]),
])
def test_keen_fig30_micro_recall(r, printed):
    for k, p in enumerate(printed, start=1):
        assert round(_micro("relpoints_recall", r, k), 2) == p


def test_keen_fig30_precision():
    # F with beta = 0 is precision; the figure prints .41 for 17/42 = .405 (n=2, specific)
    printed = {SPECIFIC: [.38, .40, .38, .30, .25], GENERAL: [.52, .48, .43, .39, .36]}
    for r, ps in printed.items():
        for k, p in enumerate(ps, start=1):
            assert round(float(np.mean(S.f_measure(r, (0.0, k)))), 2) == p


def _with_generality(r, G):
    from dataclasses import replace
    return replace(r, settings=replace(r.settings, target_generality=G))


FIG30_LEVELS = [8 / 63, 17 / 63, 24 / 63, 25 / 63, 26 / 63]       # specific: n = 1..5


def test_keen_fig30_on_the_fallout_curve():
    # Fig. 29(a)/30: the micro fallout-recall curve of the specific requests passes
    # through Fig. 30's points, one document per request at a time
    c = precision_curve(SPECIFIC, FIG30_LEVELS, method="fallout", average="micro")
    np.testing.assert_allclose(c.examined, [1, 2, 3, 4, 5])
    for v, p in zip(c.value, [.00314, .00604, .00943, .01426, .01910]):
        assert round(float(v), 5) == p
    # and Fig. 30's precision row on the micro pseudo curve (.41 printed for 17/42 = .405)
    c = precision_curve(SPECIFIC, FIG30_LEVELS, method="pseudo", average="micro")
    np.testing.assert_allclose(c.value, np.array([8, 17, 24, 25, 26]) / (21 * np.arange(1, 6)))


def test_keen_fig29_specific_and_general_requests():
    # Fig. 29(a): on fallout against recall "the specific requests are seen to have a
    # superior performance"; 29(b): on precision against recall "except between .25 and
    # .4 recall, the general requests have a superior performance"
    levels = [0.1, 0.15, 0.2, 0.25]
    fs = precision_curve(SPECIFIC, levels, method="fallout", average="micro").value
    fg = precision_curve(GENERAL, levels, method="fallout", average="micro").value
    assert (fs < fg).all()
    ps = precision_curve(SPECIFIC, levels, method="pseudo", average="micro").value
    pg = precision_curve(GENERAL, levels, method="pseudo", average="micro").value
    assert (pg[:3] > ps[:3]).all() and pg[3] < ps[3]


def test_keen_fig28c_adjusted_precision():
    # adjusted to the requests' own generality (1000·63/4200 = 15) the precision is the
    # micro precision itself; a user who examines the whole collection ends with
    # precision G/1000 (Keen part 6: ".0592 in ADI, and .0236 in Cran-1"), whatever G
    levels = FIG30_LEVELS + [1.0]
    own = precision_curve(_with_generality(SPECIFIC, 15.0), levels, method="adjusted",
                          average="micro")
    plain = precision_curve(SPECIFIC, levels, method="pseudo", average="micro")
    np.testing.assert_allclose(own.value, plain.value, rtol=1e-12)
    assert plain.value[-1] == pytest.approx(0.015) and plain.examined[-1] == 200
    cran = precision_curve(_with_generality(SPECIFIC, 23.16), levels, method="adjusted",
                           average="micro")
    assert cran.value[-1] == pytest.approx(0.02316)
    # raising the generality raises the adjusted precision at every level
    assert (cran.value > own.value).all()


# --------------------------------------------------------------------------- Keen Fig. 31-33

FIG31 = from_ranks([[1, 2, 10], [3, 4, 17], [7, 21, 45], [1, 2, 5, 7, 8, 9, 14, 15],
                    [3, 7, 10, 22, 33, 37, 49, 51], [1, 2, 8, 10, 11, 29, 36, 47]])


def test_keen_fig31_high_precision_user():
    second = S.rank_second(FIG31)
    assert list(second) == [2, 4, 21, 2, 7, 2]
    # "the cases A, D, and F are superior to B, E, and C"
    assert max(second[[0, 3, 5]]) < min(second[[1, 4, 2]])
    first = S.rank_first(FIG31)
    assert list(first) == [1, 3, 7, 1, 3, 1]
    # "the high precision user is served best by the general requests"
    assert first[3:].mean() < first[:3].mean() and second[3:].mean() < second[:3].mean()


def test_keen_fig31_high_recall_user():
    last = S.rank_last(FIG31)
    assert list(last) == [10, 17, 45, 15, 51, 47]
    # "cases A, D, and B are superior to C, F, and E"
    assert max(last[[0, 3, 1]]) < min(last[[2, 5, 4]])
    # "the high recall user [is served best] by the specific requests"
    assert last[:3].mean() == 24 and last[3:].mean() == pytest.approx(113 / 3)


# --------------------------------------------------------------------------- Keen part 6

def test_generality_and_adjusted_precision():
    r = from_ranks([[1, 2, 4, 6, 13]], L=[20], num_docs=200, target_generality=25.0)
    assert S.generality(r)[0] == 25.0
    # adjusted to the query's own generality, adjusted precision is precision
    for k in (1, 3, 5, 13, 20):
        assert S.adj_prec(r, k)[0] == pytest.approx(S.Exact(r).top(r.is_rel, k)[0] / k)
    # examining the whole collection gives precision G/1000 (ADI .0592 ~ 4.9/82)
    whole = from_ranks([[1, 2, 3, 4, 5]], L=[82], num_docs=82)
    assert float(S.f_measure(whole, (0.0, 82))[0]) == pytest.approx(
        S.generality(whole)[0] / 1000)


def test_adjusted_precision_lower_generality_lowers_precision():
    r = from_ranks([[1, 2, 4, 6, 13]], L=[20], num_docs=200, target_generality=10.0)
    assert S.adj_prec(r, 10)[0] < 4 / 10


# --------------------------------------------------------------------------- Rocchio Table 1, 2

def _rocchio():
    # Table 1: query 1 has 10 relevant, query 2 has 3. "Cutoff 1" stops after one
    # non-relevant document (t=3, r=2 for both); "cutoff 2" examines the whole lists
    # (t=20, r=6 and t=60, r=2).
    q1 = [1, 1, 0, 1, 1, 1, 1] + [0] * 13
    q2 = [1, 1, 0] + [0] * 57
    return make_ranked([q1, q2], [[1] * 10 + [0] * 14, [1] * 3 + [0] * 58])


def test_rocchio_table1_construction():
    r = _rocchio()
    assert [tuple(map(int, x)) for x in zip(*S.cnr_counts(r, 1))] == [(2, 3), (2, 3)]
    assert [tuple(map(int, x)) for x in zip(*S.cnr_counts(r, 100))] == [(6, 20), (2, 60)]


@pytest.mark.parametrize("n, micro_rec, macro_rec, micro_prec, macro_prec", [
    (1, .31, .43, .66, .66),
    (100, .62, .63, .10, .17),
])
def test_rocchio_table2(n, micro_rec, macro_rec, micro_prec, macro_prec):
    r = _rocchio()
    assert close(_micro("cnr_recall", r, n), micro_rec, 2)
    assert close(np.mean(S.cnr_recall(r, n)), macro_rec, 2)
    assert close(_micro("cnr_prec", r, n), micro_prec, 2)
    assert close(np.mean(S.cnr_prec(r, n)), macro_prec, 2)


@pytest.mark.parametrize("average, points", [
    # Rocchio Table 2, (recall, precision) at his cutoffs 1 and 2
    ("micro", [(.31, .66), (.62, .10)]),
    ("macro", [(.43, .66), (.63, .17)]),
])
def test_rocchio_curve_by_varying_n(average, points):
    # Fig. 1: "by varying n, a series of points on the precision vs. recall curve": n = 1
    # stops each query after its first non-relevant document (t = 3); n = 100 never
    # stops before the end of the list (his cutoff 2)
    c = precision_curve(_rocchio(), [1, 100], method="cnr", average=average)
    for k, (rec, prec) in enumerate(points):
        assert close(c.recall[k], rec, 2) and close(c.value[k], prec, 2)
    assert list(c.examined) == [3, 40]
    # more tolerance, more recall
    many = precision_curve(_rocchio(), "20", method="cnr", average=average)
    assert (np.diff(many.recall) >= 0).all()


# --------------------------------------------------------------------------- Joiner & Werner

JW_RANKS = [1, 2, 3, 10, 11, 14, 15, 20, 40, 50, 69, 78]
JW_TABLE = [0.94000, 0.99668, 0.99983, 0.99935, 0.99844, 0.99698, 0.99490, 0.99212,
            0.98859, 0.99868, 0.99988, 0.99980, 0.99968, 0.99997, 0.99999, 0.99999,
            0.99999, 0.99999, 0.99998, 0.99998, 0.99998, 0.99997, 0.99997, 0.99996,
            0.99995, 0.99994, 0.99992, 0.99990, 0.99988, 0.99985]


@pytest.mark.parametrize("k", range(1, 20))
def test_jw_table1_exact_rows(k):
    r = from_ranks([JW_RANKS], L=[200], num_docs=200)
    assert close(S.jw_prob(r, k)[0], JW_TABLE[k - 1], 5)


@pytest.mark.parametrize("k", range(20, 31))
def test_jw_table1_departing_rows(k):
    # documented: from k = 20 the printed table is off the exact value by up to 1.2e-4
    r = from_ranks([JW_RANKS], L=[200], num_docs=200)
    assert 0 < S.jw_prob(r, k)[0] - JW_TABLE[k - 1] < 1.2e-4


def test_jw_urn_example():
    # section 4: 200 documents, 20 relevant, 20 drawn: P(fewer than 3 relevant)
    from math import comb
    r = from_ranks([[1, 2, 3]], R=[20], L=[20], num_docs=200)
    expect = sum(comb(20, x) * comb(180, 20 - x) for x in range(3)) / comb(200, 20)
    assert S.jw_prob(r, 20)[0] == pytest.approx(expect, rel=1e-12)


@pytest.mark.parametrize("N", [200, 5 * 10 ** 7, 5 * 10 ** 8, 10 ** 9])
def test_jw_prob_large_n(N):
    # 3 relevant, the first at rank 1: P(X < 1) = P(X = 0) = (N-3)/N, and its
    # complement 3/N (4x off at 5e7 and 1.0 at 5e8 when taken from log-gamma functions)
    r = from_ranks([[1]], R=[3], L=[1], num_docs=N)
    v = S.jw_prob(r, 1)[0]
    assert v == pytest.approx((N - 3) / N, rel=1e-15)
    assert 1 - v == pytest.approx(3 / N, rel=1e-6)
    assert S.jw_avg(r, (1,))[0] == v


def test_jw_avg():
    r = from_ranks([JW_RANKS], L=[200], num_docs=200)
    assert S.jw_avg(r, (30,))[0] == pytest.approx(
        np.mean([S.jw_prob(r, k)[0] for k in range(1, 31)]), abs=1e-15)
    assert close(S.jw_avg(r, (30,))[0], np.mean(JW_TABLE), 4)


def test_jw_residual_collection():
    # "in the first 10 documents Method I produces 4 relevant ... n = 190, number
    # relevant = 8"
    from smarteval.ranking.residual import residual
    initial = from_ranks([JW_RANKS], L=[200], num_docs=200)
    feedback = from_ranks([JW_RANKS], L=[200], num_docs=200)
    res = residual(feedback, initial, 10)
    assert int(res.num_rel[0]) == 8
    assert int(S.num_docs(res, "test")[0]) == 190
    assert int(res.num_ret[0]) == 190


# --------------------------------------------------------------------------- IIR 8.3

def test_iir_f_measure():
    # P = 1/2, R = 1/3: F1 = 2PR/(P+R) = 0.4; beta = 3 weighs recall
    r = from_ranks([[1, 3]], R=[6], L=[4])
    assert S.f_measure(r, (1.0,))[0] == pytest.approx(0.4)
    b2 = 9.0
    assert S.f_measure(r, (3.0,))[0] == pytest.approx((1 + b2) * (1 / 6) / (b2 * 0.5 + 1 / 3))
    assert S.e_measure(r, (1.0,))[0] == pytest.approx(0.6)
    # alpha form: F = 1 / (alpha/P + (1-alpha)/R), beta^2 = (1-alpha)/alpha
    alpha = 1 / (1 + b2)
    assert S.f_measure(r, (3.0,))[0] == pytest.approx(1 / (alpha / 0.5 + (1 - alpha) / (1 / 3)))


def test_iir_f_alpha():
    # (8.40): F = 1 / (α/P + (1-α)/R) with β² = (1-α)/α; P = 1/2, R = 1/3
    r = from_ranks([[1, 3]], R=[6], L=[4])
    assert S.f_alpha(r, (0.5,))[0] == pytest.approx(0.4)             # α = 1/2 is F1
    assert S.f_alpha(r, (0.1,))[0] == pytest.approx(S.f_measure(r, (3.0,))[0])   # β = 3
    assert S.f_alpha(r, (1.0,))[0] == pytest.approx(0.5)             # precision
    assert S.f_alpha(r, (0.0,))[0] == pytest.approx(1 / 3)           # recall
    for alpha in (0.2, 0.5, 0.8):
        P, R = 0.5, 1 / 3
        assert S.f_alpha(r, (alpha,))[0] == pytest.approx(1 / (alpha / P + (1 - alpha) / R))
    # retrieving all 10,000 documents with one relevant: "0.02%"
    assert round(float(S.f_alpha(from_ranks([[1]], L=[10000]), (0.5,))[0]) * 100, 2) == 0.02


def test_iir_accuracy_is_dominated_by_true_negatives():
    # nothing relevant in the first 10 of 200 with 5 relevant: accuracy .925
    r = from_ranks([[]], R=[5], L=[10], num_docs=200)
    assert S.accuracy(r, 10)[0] == pytest.approx(0.925)
    # and the perfect ranking is barely better
    assert S.accuracy(from_ranks([[1, 2, 3, 4, 5]], L=[10], num_docs=200), 10)[0] == \
        pytest.approx(0.975)


def test_iir_harmonic_mean_of_retrieving_everything():
    # "if we assume that 1 document in 10,000 is relevant to the query, the harmonic mean
    # score of this strategy [returning all documents] is 0.02%"
    r = from_ranks([[1]], L=[10000])
    assert round(float(S.f_measure(r, (1.0,))[0]) * 100, 2) == 0.02


# --------------------------------------------------------------------------- the lecture (Shah)

def test_lecture_map_gmap_mrr_bpref(tmp_path):
    # Figure 3 of the lecture (Allan's example): two rankings of ten documents for one
    # query, five relevant. The printed numbers fix the rankings: relevant at 1,3,6,9,10
    # (non-relevant before them 0,1,3,5,5 as bpref_1 shows) and at 2,5,6,7,8 (1,3,3,3,3).
    from smarteval.api import evaluate
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    rankings = {"1": [1, 3, 6, 9, 10], "2": [2, 5, 6, 7, 8]}
    with open(qrels, "w") as fq, open(run, "w") as fr:
        for q, ranks in rankings.items():
            for i in range(1, 11):
                fq.write(f"{q} 0 d{i} {int(i in ranks)}\n")
                fr.write(f"{q} Q0 d{i} {i} {20 - i} sys\n")
    (ev,) = evaluate(str(qrels), str(run), ["map", "gm_map", "recip_rank", "bpref"])
    # the lecture prints AP 2 = .51929 as .520 and takes GMAP of its rounded values
    # (sqrt(.622 x .520) = .5687; exact .5685): within one unit of the third place
    assert close(ev.per_query["map"][0], 0.622, 3) and close(ev.per_query["map"][1], 0.520, 3)
    assert close(ev.summary["map"], 0.571, 3)
    assert close(ev.summary["gm_map"], 0.569, 3)
    assert list(ev.per_query["recip_rank"]) == [1.0, 0.5]
    assert ev.summary["recip_rank"] == 0.75
    assert [round(v, 2) for v in ev.per_query["bpref"]] == [0.44, 0.48]
