"""swets_E, swets_slope and the operating characteristic, against a per-query loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr, ndtri
from smart_helpers import make_ranked

from smarteval.errors import UsageError
from smarteval.measures import all_measures
from smarteval.measures import swets as S


def oracle_fit(grades: list[int], R: int, N: int, level: int = 1):
    """Least-squares line of z(recall) on z(fallout) over the cut-offs, by numpy.polyfit."""
    xs, ys = [], []
    a = 0
    for n, g in enumerate(grades, 1):
        a += g >= level
        recall = a / R if R else 0.0
        fallout = min(n - a, N - R) / (N - R) if N > R else 0.0
        if 0 < recall < 1 and 0 < fallout < 1:
            xs.append(ndtri(fallout))
            ys.append(ndtri(recall))
    if len(xs) < 2 or np.ptp(xs) == 0:
        return 0.0, 0.0
    b, a0 = np.polyfit(xs, ys, 1)
    e = 2 * a0 / (1 + b) if 1 + b > 0 else 0.0
    return e, b


def random_collection(seed: int, queries: int = 30):
    rng = np.random.default_rng(seed)
    lists, qrels = [], []
    for _ in range(queries):
        L = int(rng.integers(0, 60))
        p = rng.uniform(0.05, 0.6)
        lst = [int(g) for g in (rng.random(L) < p) * rng.integers(1, 3, L)]
        extra = [1] * int(rng.integers(0, 4))           # relevant, never retrieved
        lists.append(lst)
        qrels.append([g for g in lst] + extra)
    return lists, qrels


@pytest.mark.parametrize("seed", range(5))
def test_measures_agree_with_the_oracle(seed):
    lists, qrels = random_collection(seed)
    N = 500
    r = make_ranked(lists, qrels, num_docs=N)
    E = all_measures()["swets_E"].func(r)
    s = all_measures()["swets_slope"].func(r)
    for q, (lst, qr) in enumerate(zip(lists, qrels)):
        R = sum(g >= 1 for g in qr)
        want_e, want_s = oracle_fit(lst, R, N)
        assert E[q] == pytest.approx(want_e, abs=1e-9), q
        assert s[q] == pytest.approx(want_s, abs=1e-9), q


def test_a_line_on_normal_deviate_axes_is_found_exactly():
    """Points made from z(R) = 0.8 + 0.6·z(F): a = 0.8, s = 0.6, E = 1.6/1.6 = 1."""
    x = np.linspace(-3, -0.5, 12)
    line = S.fit_line(ndtr(x), ndtr(0.8 + 0.6 * x))
    assert line.a == pytest.approx(0.8)
    assert line.slope == pytest.approx(0.6)
    assert pytest.approx(1.0) == line.E
    assert line.points == 12


def test_points_without_a_deviate_are_left_out():
    f = np.array([0.0, 0.01, 0.05, 0.2, 1.0])
    r = np.array([0.1, 0.3, 0.5, 1.0, 1.0])
    line = S.fit_line(f, r)
    assert line.points == 2                  # (0.01, 0.3) and (0.05, 0.5) only
    assert line.slope == pytest.approx((ndtri(.5) - ndtri(.3)) / (ndtri(.05) - ndtri(.01)))


def test_degenerate_queries_score_zero():
    # one relevant document: recall is 0 or 1, never strictly between
    # no relevant document at all; an empty ranking
    r = make_ranked([[0, 1, 0, 0], [0, 0, 0], []], [[0, 1, 0, 0], [0, 0, 0], [1, 1]],
                    num_docs=100)
    assert list(all_measures()["swets_E"].func(r)) == [0.0, 0.0, 0.0]
    assert list(all_measures()["swets_slope"].func(r)) == [0.0, 0.0, 0.0]


def binormal_ranking(a: float, b: float, R: int, N: int, L: int) -> list[int]:
    """A ranking whose cut-offs follow z(recall) = a + b·z(fallout): relevant whenever behind."""
    grades, found = [], 0
    for n in range(1, L + 1):
        fallout = max(n - 1 - found, 0.5) / (N - R)
        want = ndtr(a + b * ndtri(fallout)) * R
        rel = found < R and found < want
        grades.append(int(rel))
        found += rel
    return grades


@pytest.mark.parametrize("a, b", [(1.5, 0.8), (1.0, 1.0), (2.0, 1.3)])
def test_a_ranking_on_a_binormal_line_recovers_it(a, b):
    N, R = 200_000, 400
    grades = binormal_ranking(a, b, R, N, 6000)
    r = make_ranked([grades], [[1] * R], num_docs=N)
    assert all_measures()["swets_slope"].func(r)[0] == pytest.approx(b, abs=0.05)
    assert all_measures()["swets_E"].func(r)[0] == pytest.approx(2 * a / (1 + b), abs=0.1)


def test_needs_the_collection_size():
    r = make_ranked([[1, 0, 1]])
    with pytest.raises(UsageError, match="-N/--num-docs"):
        all_measures()["swets_E"].func(r)
    assert all_measures()["swets_E"].needs_num_docs


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_operating_characteristic_against_a_loop(average):
    lists, qrels = random_collection(11, queries=12)
    N = 300
    r = make_ranked(lists, qrels, num_docs=N)
    oc = S.operating_characteristic(r, average)
    depth = max(len(x) for x in lists)
    assert len(oc.fallout) == len(oc.recall) == depth
    Rs = [sum(g >= 1 for g in qr) for qr in qrels]
    for n in (1, 2, 5, depth // 2, depth):
        found = [sum(g >= 1 for g in lst[:n]) for lst in lists]
        if average == "macro":
            rec = np.mean([a / R if R else 0.0 for a, R in zip(found, Rs)])
            fal = np.mean([(n - a) / (N - R) for a, R in zip(found, Rs)])
        else:
            rec = sum(found) / sum(Rs)
            fal = sum(n - a for a in found) / sum(N - R for R in Rs)
        assert oc.recall[n - 1] == pytest.approx(rec, abs=1e-12)
        assert oc.fallout[n - 1] == pytest.approx(fal, abs=1e-12)


def test_operating_characteristic_refuses_the_median():
    r = make_ranked([[1, 0]], num_docs=10)
    with pytest.raises(UsageError, match="macro or micro"):
        S.operating_characteristic(r, "median")


def test_swets_e_formula():
    assert S.swets_e(1.0, 1.0) == pytest.approx(1.0)
    assert S.swets_e(0.9, 0.5) == pytest.approx(1.2)
    assert S.swets_e(1.0, -1.0) == 0.0           # the line never meets the negative diagonal
    assert math.isfinite(float(S.swets_e(1.0, -0.999999)))
