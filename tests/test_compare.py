"""smarteval.stats: the seed examples (Keen Fig. 35/36, Joiner & Werner Table 2, the lecture's
tau) and scipy agreement."""

from __future__ import annotations

import inspect
import itertools
import math

import numpy as np
import pytest
from fixtures import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from smarteval import stats as C
from smarteval.columns import Ranked
from smarteval.errors import UsageError
from smarteval.stats import correlation
from smarteval.stats.correlation import _chunks, _segment_pairs
from smarteval.stats.significance import UNDEFINED, _bh_by_hand, paired_tests

# --------------------------------------------------------------------------- Keen Fig. 35

def test_fig35_percentages():
    """Keen Fig. 35: 6 requests favour option I, 4 option II, 2 equal."""
    m = C.Merit(6, 4, 2)
    rows = m.percentages()
    r = {k: {kk: (None if v is None else round(v)) for kk, v in row.items()}
         for k, row in rows.items()}
    assert r["ignoring_equal"] == {"better": 60, "worse": 40, "equal": None, "superiority": 20}
    assert r["including_equal"] == {"better": 50, "worse": 33, "equal": 17, "superiority": 17}
    assert r["adding_equal"] == {"better": 67, "worse": 50, "equal": None, "superiority": 17}
    assert m.superiority == pytest.approx(20.0)
    assert m.n == 12


def test_fig35_from_values():
    base = np.array([.5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5])
    run = np.array([.6, .7, .8, .9, .6, .55, .4, .3, .2, .1, .5, .5])
    assert C.merit(base, run) == C.Merit(6, 4, 2)
    # a tolerance turns the small differences into ties
    assert C.merit(base, run, tolerance=0.06) == C.Merit(5, 4, 3)


def test_fig35_no_queries():
    rows = C.Merit(0, 0, 0).percentages()
    assert rows["ignoring_equal"]["better"] is None
    assert rows["including_equal"]["superiority"] is None


# --------------------------------------------------------------------------- Keen Fig. 36

FIG36 = {  # normalized recall of nine hypothetical requests under options I, II, III
    "A": (.8125, .8000, .8135), "B": (.8250, .8000, .8135), "C": (.8010, .8000, .7810),
    "D": (.8000, .8100, .7850), "E": (.8000, .8080, .7900), "F": (.8000, .8060, .7950),
    "G": (.8000, .8040, .7990), "H": (.8000, .8020, .8080), "I": (.8000, .8010, .8150),
}
QIDS = np.array(list(FIG36))
OPT = np.array(list(FIG36.values())).T


def test_fig36_counts():
    """I vs II: 3 requests better on I, 6 on II; I vs III: 6 better on I, 3 on III."""
    one, two, three = OPT
    assert C.merit(two, one) == C.Merit(3, 6, 0)
    assert C.merit(three, one) == C.Merit(6, 3, 0)
    assert round(C.merit(two, one).percentages()["ignoring_equal"]["worse"], 1) == 66.7
    assert round(C.merit(two, one).percentages()["ignoring_equal"]["better"], 1) == 33.3


def test_fig36_magnitudes():
    one, two, three = OPT
    mg = C.magnitudes(two, one, QIDS)
    # option I wins A, B, C by large amounts, option II wins six by small amounts
    assert list(mg.better_qids) == ["B", "A", "C"]
    np.testing.assert_allclose(mg.better, [.025, .0125, .001], atol=1e-12)
    assert list(mg.worse_qids) == ["D", "E", "F", "G", "H", "I"]
    np.testing.assert_allclose(mg.worse, [.010, .008, .006, .004, .002, .001], atol=1e-12)
    # "almost identical merit" on average
    assert mg.mean_run == pytest.approx(.80428, abs=5e-6)
    assert mg.mean_base == pytest.approx(.80344, abs=5e-6)
    mg3 = C.magnitudes(three, one, QIDS)
    assert len(mg3.better) == 6 and len(mg3.worse) == 3
    assert np.all(np.diff(mg3.better) <= 0) and np.all(np.diff(mg3.worse) <= 0)


# --------------------------------------------------------------------------- tests vs scipy

RNG = np.random.default_rng(7)
BASE = RNG.uniform(0, 1, 25)
RUN = np.clip(BASE + RNG.normal(0.05, 0.1, 25), 0, 1)


def test_t_matches_scipy():
    r = C.paired_test("t", BASE, RUN)
    direct = stats.ttest_rel(RUN, BASE)
    assert r.statistic == pytest.approx(direct.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(direct.pvalue, rel=1e-12)
    ci = direct.confidence_interval(0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-10)
    d = RUN - BASE
    assert r.mean_diff == pytest.approx(d.mean())
    assert r.effect == pytest.approx(d.mean() / d.std(ddof=1))


def _scipy_wilcoxon(d: np.ndarray, method: str):
    """scipy's Wilcoxon test called with every choice explicit: zeros dropped first,
    the continuity correction, the method ("approx" is "asymptotic" from scipy 1.13)."""
    return stats.wilcoxon(d[d != 0], zero_method="wilcox", correction=True, method=method)


def test_wilcoxon_matches_scipy():
    r = C.paired_test("wilcoxon", BASE, RUN)
    direct = _scipy_wilcoxon(RUN - BASE, r.method if r.method == "exact" else "approx")
    assert (r.statistic, r.p_value) == pytest.approx((direct.statistic, direct.pvalue), rel=1e-12)


@pytest.mark.parametrize("n, decimals, method", [
    (12, 6, "exact"), (50, 6, "exact"), (51, 6, "normal"), (113, 6, "normal"),
    (12, 2, "normal"), (30, 2, "normal"), (113, 2, "normal")])
def test_wilcoxon_chooses_its_method_and_gives_scipys_p_under_it(n, decimals, method):
    # exact below 50 nonzero differences without ties, else normal with tie and
    # continuity corrections: the same p under scipy 1.10 and the newest (whose defaults
    # differ: "auto" is exact up to 50, and with ties permutations up to 13 from 1.13)
    rng = np.random.default_rng(n + decimals)
    base = rng.uniform(0, 0.5, n)
    d = np.round(rng.normal(0.02, 0.1, n), decimals)
    d[0] = 0.0                                           # a zero, dropped
    r = C.paired_test("wilcoxon", base, base + d)
    nonzero = int(np.count_nonzero(base + d - base))
    direct = _scipy_wilcoxon(base + d - base, "exact" if method == "exact" else "approx")
    assert r.method == method and r.n == n and nonzero < n
    assert r.statistic == direct.statistic
    assert r.p_value == pytest.approx(direct.pvalue, rel=1e-12)


def test_wilcoxon_tolerance_drops_small_differences():
    d = RUN - BASE
    tol = 0.03
    r = C.paired_test("wilcoxon", BASE, RUN, tolerance=tol)
    kept = np.where(np.abs(d) <= tol, 0.0, d)
    direct = _scipy_wilcoxon(kept, r.method if r.method == "exact" else "approx")
    assert r.p_value == pytest.approx(direct.pvalue, rel=1e-12)


def test_sign_matches_scipy():
    base = np.array([.1, .2, .3, .4, .5, .6, .7, .8, .9, .5, .5, .5])
    run = np.array([.2, .3, .4, .5, .6, .7, .6, .7, .8, .6, .5, .5])
    r = C.paired_test("sign", base, run)
    assert r.statistic == 7                           # 7 better, 3 worse, 2 equal
    assert r.p_value == pytest.approx(stats.binomtest(7, 10, 0.5).pvalue, rel=1e-12)


def test_bootstrap_matches_scipy():
    r = C.paired_test("bootstrap", BASE, RUN, samples=2000, seed=3, confidence=0.9)
    # scipy 1.15 renamed random_state to rng
    key = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
    direct = stats.bootstrap((RUN - BASE,), np.mean, n_resamples=2000, confidence_level=0.9,
                             method="percentile", **{key: np.random.default_rng(3)})
    assert (r.ci_low, r.ci_high) == pytest.approx(
        (direct.confidence_interval.low, direct.confidence_interval.high), rel=1e-12)
    # the interval excludes 0 exactly when the bootstrap p-value is below 1 - confidence
    assert (r.ci_low > 0 or r.ci_high < 0) == (r.p_value < 0.1)


def _brute_randomization(d: np.ndarray) -> float:
    """Every sign assignment: share whose |mean| reaches the observed |mean|."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(d))))
    means = (signs * d).mean(axis=1)
    obs = abs(d.mean())
    return float(np.mean(np.abs(means) >= obs - 1e-12))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 11])
def test_randomization_exact_matches_brute_force(n):
    rng = np.random.default_rng(n)
    base = rng.uniform(0, 1, n)
    run = base + rng.normal(0.1, 0.2, n)
    r = C.paired_test("randomization", base, run, samples=10000)
    assert r.exact is True
    assert r.p_value == pytest.approx(_brute_randomization(run - base), rel=1e-9)


def test_randomization_sampled_close_to_exact():
    n = 16                                           # 2^16 > samples: sampled
    rng = np.random.default_rng(1)
    base = rng.uniform(0, 1, n)
    run = base + rng.normal(0.05, 0.15, n)
    r = C.paired_test("randomization", base, run, samples=20000, seed=5)
    assert r.exact is False
    exact = _brute_randomization(run - base)
    se = math.sqrt(exact * (1 - exact) / 20000)
    assert abs(r.p_value - exact) < 5 * se + 1e-4
    again = C.paired_test("randomization", base, run, samples=20000, seed=5)
    assert again.p_value == r.p_value                # seeded


def test_degenerate_differences():
    x = np.array([.3, .4, .5])
    # no difference at all: t = 0/0 (scipy's ttest_rel: nan), no difference left to rank
    # or count (scipy's binomtest refuses 0 trials): undefined, never p = 1; the
    # randomization and bootstrap tests count samples, every one of which reaches 0: p = 1
    assert math.isnan(stats.ttest_rel(x, x).pvalue)
    with pytest.raises(ValueError):
        stats.binomtest(0, 0)
    for test in C.TESTS:
        r = C.paired_test(test, x, x)
        if test in ("randomization", "bootstrap"):
            assert r.p_value == 1.0 and r.statistic == 0.0, test
        else:
            assert math.isnan(r.p_value) and test in UNDEFINED, test
        # d_z = 0 / 0; g_av = 0 / sd: each run varies, so g_av is defined
        assert r.mean_diff == 0.0 and math.isnan(r.effect) and r.g_av == 0.0
    assert math.isnan(C.paired_test("t", x, x).statistic)
    flat = np.full(3, 0.4)
    assert math.isnan(C.hedges_g_av(flat, flat)) and C.hedges_g_av(flat, flat + 0.1) == math.inf
    x = np.array([.25, .5, .75])                     # exact binary fractions: d is constant
    r = C.paired_test("t", x, x + 0.25)
    assert r.p_value == 0.0 and r.statistic == math.inf and r.effect == math.inf
    empty = C.paired_test("t", np.array([]), np.array([]))
    assert empty.n == 0 and math.isnan(empty.p_value)


def test_unknown_test():
    with pytest.raises(UsageError, match="unknown test 'z'"):
        C.paired_test("z", BASE, RUN)


# --------------------------------------------------------------------------- corrections

def test_holm_hand_computed():
    # sorted: .005*4=.02, .01*3=.03, .03*2=.06, .04*1=.04 -> running max .02 .03 .06 .06
    p = [.01, .04, .03, .005]
    np.testing.assert_allclose(C.adjust(p, "holm"), [.03, .06, .06, .02], rtol=1e-12)


def test_holm_caps_and_nan():
    p = [.3, float("nan"), .2, .5]
    out = C.adjust(p, "holm")                        # m = 3: .2*3=.6, .3*2=.6, .5*1 -> .6
    assert math.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2, 3]], [.6, .6, .6])
    np.testing.assert_allclose(C.adjust([.6, .9], "holm"), [1.0, 1.0])


def test_bonferroni_and_none():
    np.testing.assert_allclose(C.adjust([.01, .2, .5], "bonferroni"), [.03, .6, 1.0])
    np.testing.assert_allclose(C.adjust([.01, .2, .5], "none"), [.01, .2, .5])


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
@settings(max_examples=examples(60), deadline=None)
def test_bh_scipy_equals_by_hand(ps):
    q = np.array(ps)
    np.testing.assert_allclose(C.adjust(q, "bh"), _bh_by_hand(q), rtol=1e-12, atol=1e-15)
    holm = C.adjust(q, "holm")
    assert np.all(holm >= q - 1e-15) and np.all(holm <= 1)
    assert np.all(C.adjust(q, "bh") <= holm + 1e-12)   # BH is never stricter than Holm


def test_bh_hand_computed():
    # sorted .01 .02 .03 .5 -> *4/1 .04, *4/2 .04, *4/3 .04, *4/4 .5
    np.testing.assert_allclose(C.adjust([.03, .5, .01, .02], "bh"), [.04, .5, .04, .04])


def test_unknown_correction():
    with pytest.raises(UsageError, match="unknown correction"):
        C.adjust([.1], "sidak")


# --------------------------------------------------------------------------- Joiner & Werner

def test_table2_first_cutoff_points():
    """Table 2 at n1 = 1: Q1 -> M2, Q2 -> M1, Q3..Q5 -> M3 gives the row 1 1 3."""
    winners = [1, 0, 2, 2, 2]
    values = np.zeros((3, 5, 1))
    for q, w in enumerate(winners):
        values[w, q, 0] = 1.0
    assert C.selection_points(values).tolist() == [[1, 1, 3]]


def test_table2_totals_and_pcs():
    """Totals 147/320/533 of 1000 estimate p = .147/.320/.533; with theta* = 1.5, P(CS) > .98."""
    sel = C.selection_from_points(np.array([[147, 320, 533]]), theta=1.5)
    np.testing.assert_allclose(sel.p_hat, [.147, .320, .533])
    assert sel.best == 2 and sel.total == 1000
    assert sel.pcs_method == "exact"
    assert sel.pcs > .98
    # even counting each of the 200 cut-offs as one observation it is over .98
    assert C.pcs_exact(3, 200, 1.5) == pytest.approx(0.98514, abs=1e-5)


def test_ties_split_at_random():
    values = np.ones((2, 1, 4000))                    # every point a tie between two runs
    counts = C.selection_points(values, seed=11).sum(axis=0)
    assert counts.sum() == 4000 and abs(counts[0] - 2000) < 200
    assert np.array_equal(C.selection_points(values, seed=11), C.selection_points(values, seed=11))
    # within the tolerance counts as a tie too
    values = np.array([[[0.5] * 1000], [[0.5001] * 1000]])
    assert C.selection_points(values).sum(axis=0).tolist() == [0, 1000]
    assert C.selection_points(values, tolerance=1e-3).sum(axis=0).min() > 400


def _pcs_brute(k: int, n: int, theta: float) -> float:
    p = C.lfc(k, theta)
    total = 0.0
    for y in itertools.product(range(n + 1), repeat=k):
        if sum(y) != n:
            continue
        pr = math.factorial(n) / math.prod(math.factorial(v) for v in y) * math.prod(
            pi ** v for pi, v in zip(p, y, strict=True))
        top = max(y)
        if y[0] == top:
            total += pr / sum(v == top for v in y)
    return total


@pytest.mark.parametrize("k,n,theta", [(2, 1, 1.5), (2, 6, 1.0), (3, 5, 1.5), (3, 12, 2.0),
                                        (4, 9, 1.3), (5, 8, 1.5), (5, 11, 3.0), (3, 0, 1.5)])
def test_pcs_exact_matches_enumeration(k, n, theta):
    assert C.pcs_exact(k, n, theta) == pytest.approx(_pcs_brute(k, n, theta), rel=1e-10, abs=1e-14)


@pytest.mark.parametrize("k,n,theta", [(3, 40, 1.5), (5, 300, 1.2)])
def test_pcs_simulation_agrees_with_exact(k, n, theta):
    est, se = C.pcs_simulated(k, n, theta, samples=40000, seed=2)
    assert abs(est - C.pcs_exact(k, n, theta)) < 5 * se


def test_pcs_beyond_five_runs_is_simulated():
    p, method, se = C.bechhofer_pcs(6, 60, 1.5, samples=20000, seed=1)
    assert method == "simulation" and 0 < p < 1 and se > 0
    assert C.bechhofer_pcs(6, 60, 1.5, samples=20000, seed=1)[0] == p


def test_pcs_usage_errors():
    with pytest.raises(UsageError, match="--theta must be at least 1"):
        C.pcs_exact(3, 10, 0.5)
    with pytest.raises(UsageError, match="at least two runs"):
        C.pcs_exact(1, 10, 1.5)


# --------------------------------------------------------------------------- rank correlation

def test_lecture_example():
    """The lecture's a, b, c, d: tau 0.67, Pearson and Spearman 0.8 on the orderings."""
    x = [0.4, 0.3, 0.2, 0.1]
    y = [0.4, 0.1, 0.25, 0.05]
    assert round(C.kendall_tau(x, y), 2) == 0.67
    order_x = np.argsort(-np.array(x)) + 1          # R's order(-x): 1 2 3 4
    order_y = np.argsort(-np.array(y)) + 1          # 1 3 2 4
    assert C.pearson(order_x, order_y) == pytest.approx(0.8)
    assert C.spearman(order_x, order_y) == pytest.approx(0.8)


def _ranked(qids, docs_per_query) -> Ranked:
    """A Ranked whose rows are the given documents in rank order (relevance is irrelevant here)."""
    counts = [len(d) for d in docs_per_query]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    docno = np.array([d.encode() for ds in docs_per_query for d in ds], dtype="S")
    if len(docno) == 0:
        docno = np.zeros(0, dtype="S1")
    n = len(docno)
    return Ranked(qids=np.array(qids, dtype=str), offsets=offsets, rel=np.zeros(n, np.int64),
                  score=-np.arange(n, dtype=float), docno=docno,
                  qrel_offsets=np.zeros(len(qids) + 1, np.int64),
                  qrel_grades=np.zeros(0, np.int64), in_run=np.ones(len(qids), bool))


def test_lecture_example_on_rankings():
    base = _ranked(["1"], [["a", "b", "c", "d"]])
    run = _ranked(["1"], [["a", "c", "b", "d"]])
    rc = C.rank_correlation(base, run)
    assert rc.common.tolist() == [4]
    assert round(rc.kendall[0], 2) == 0.67
    assert rc.spearman[0] == pytest.approx(0.8)
    assert rc.pearson[0] == pytest.approx(0.8)
    # tau-AP: c has a above it (1/1), b has a, c (1/2), d has three right (3/3)
    assert rc.tau_ap[0] == pytest.approx(2 * (1 + .5 + 1) / 3 - 1)


def test_tau_ap_top_weighted():
    ref = [4, 3, 2, 1]
    swap_top = [3, 4, 2, 1]
    swap_bottom = [4, 3, 1, 2]
    assert C.kendall_tau(ref, swap_top) == C.kendall_tau(ref, swap_bottom)
    assert C.tau_ap(ref, swap_top) < C.tau_ap(ref, swap_bottom)
    assert C.tau_ap(ref, ref) == 1.0 and C.tau_ap(ref, ref[::-1]) == -1.0


def _tau_ap_oracle(ref_order: list, other_order: list) -> float:
    """tau-AP by its definition, one item at a time (ordered lists of items, best first)."""
    pos = {d: i for i, d in enumerate(ref_order)}
    n = len(other_order)
    total = 0.0
    for i in range(1, n):
        above = other_order[:i]
        total += sum(pos[d] < pos[other_order[i]] for d in above) / i
    return 2 * total / (n - 1) - 1


docs = st.lists(st.sampled_from([f"d{i}" for i in range(12)]), unique=True, max_size=10)


@given(st.lists(st.tuples(docs, docs, st.booleans()), min_size=1, max_size=6))
@settings(max_examples=examples(80), deadline=None)
def test_rank_correlation_against_per_query_scipy(queries):
    qids = [f"q{i}" for i in range(len(queries))]
    # some queries only in the baseline: they must not be paired
    run_keep = [i for i, (_, _, keep) in enumerate(queries) if keep]
    base = _ranked(qids, [a for a, _, _ in queries])
    run = _ranked([qids[i] for i in run_keep][::-1], [queries[i][1] for i in run_keep][::-1])
    rc = C.rank_correlation(base, run)
    assert rc.qids.tolist() == sorted(qids[i] for i in run_keep)
    for q, common, kt, sp, pe, ta in zip(rc.qids, rc.common, rc.kendall, rc.spearman, rc.pearson,
                                         rc.tau_ap, strict=True):
        a, b, _ = queries[qids.index(q)]
        shared = [d for d in a if d in b]
        assert common == len(shared)
        if len(shared) < 2:
            assert math.isnan(kt) and math.isnan(sp) and math.isnan(pe) and math.isnan(ta)
            continue
        ra = [a.index(d) + 1 for d in shared]
        rb = [b.index(d) + 1 for d in shared]
        assert kt == pytest.approx(stats.kendalltau(ra, rb).statistic, abs=1e-12)
        assert sp == pytest.approx(stats.spearmanr(ra, rb).statistic, abs=1e-12)
        assert pe == pytest.approx(stats.pearsonr(ra, rb).statistic, abs=1e-12)
        assert ta == pytest.approx(_tau_ap_oracle(shared, sorted(shared, key=b.index)), abs=1e-12)


def test_rank_correlation_chunks(monkeypatch):
    """The pair generation gives the same answer however the queries are chunked."""
    rng = np.random.default_rng(0)
    pool = [f"d{i}" for i in range(40)]
    a = [list(rng.permutation(pool)[:30]) for _ in range(5)]
    b = [list(rng.permutation(pool)[:30]) for _ in range(5)]
    qids = [f"{i}" for i in range(5)]
    whole = C.rank_correlation(_ranked(qids, a), _ranked(qids, b))
    monkeypatch.setattr(correlation, "_PAIR_CHUNK", 100)
    chunked = C.rank_correlation(_ranked(qids, a), _ranked(qids, b))
    np.testing.assert_allclose(whole.kendall, chunked.kendall)
    np.testing.assert_allclose(whole.tau_ap, chunked.tau_ap)


def test_segment_pairs_example():
    i, j = _segment_pairs(np.array([0, 3, 5]), 0, 2)
    assert i.tolist() == [0, 0, 1, 3] and j.tolist() == [1, 2, 2, 4]


def test_leaderboard_correlation():
    lc = C.leaderboard_correlation("map", [.30, .25, .20, .10], "P_10", [.50, .40, .45, .20])
    assert lc.systems == 4 and lc.swaps == 1
    assert lc.kendall == pytest.approx(2 / 3)
    assert lc.spearman == pytest.approx(0.8)


def test_align():
    ids, bi, ri = C.align(np.array(["1", "2", "3"]), np.array(["3", "1", "4"]))
    assert ids.tolist() == ["1", "3"] and bi.tolist() == [0, 2] and ri.tolist() == [1, 0]


def test_chunks_cover_every_segment(monkeypatch):
    monkeypatch.setattr(correlation, "_PAIR_CHUNK", 10)
    counts = np.array([3, 5, 0, 2, 6, 1, 4])        # pairs 3 10 0 1 15 0 6
    assert list(_chunks(counts)) == [(0, 1), (1, 3), (3, 4), (4, 5), (5, 7)]
    assert list(_chunks(np.zeros(0, dtype=np.int64))) == []


values = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40)


@given(st.data())
@settings(max_examples=examples(60), deadline=None)
def test_merit_properties(data):
    base = np.array(data.draw(values))
    run = np.array(data.draw(st.lists(st.floats(0, 1), min_size=len(base), max_size=len(base))))
    m = C.merit(base, run)
    swapped = C.merit(run, base)
    assert (swapped.better, swapped.worse, swapped.equal) == (m.worse, m.better, m.equal)
    assert m.n == len(base)
    pm, ps = m.percentages(), swapped.percentages()
    for row in ("ignoring_equal", "including_equal", "adding_equal"):
        if pm[row]["superiority"] is not None:
            assert pm[row]["superiority"] == pytest.approx(-ps[row]["superiority"])
    mg = C.magnitudes(base, run)
    assert len(mg.better) == m.better and len(mg.worse) == m.worse
    assert np.all(mg.better > 0) and np.all(mg.worse > 0)
    # the two sides' areas differ by the total difference (Keen: equal areas, equal means)
    assert mg.better.sum() - mg.worse.sum() == pytest.approx((run - base).sum(), abs=1e-9)


def test_one_query():
    one = C.paired_test("bootstrap", np.array([.2]), np.array([.5]))
    assert math.isnan(one.p_value) and math.isnan(one.ci_low)
    assert math.isnan(C.paired_test("t", np.array([.2]), np.array([.5])).p_value)
    assert C.paired_test("sign", np.array([.2]), np.array([.5])).p_value == 1.0
    assert C.paired_test("randomization", np.array([.2]), np.array([.5])).p_value == 1.0


def test_t_is_scipys_to_the_bit():
    """The paired t test and its interval are scipy.stats' numbers, bit for bit, one pair
    or many at once."""
    rng = np.random.default_rng(11)
    for n in (2, 3, 7, 25, 50, 200, 1001):
        base = rng.uniform(0, 1, (4, n))
        run = np.clip(base + rng.normal(0.02, 0.1, (4, n)), 0, 1)
        run[0] = np.round(run[0], 2)
        stat, p, _ = paired_tests("t", base, run)
        direct = stats.ttest_rel(run, base, axis=-1)
        assert stat.tolist() == direct.statistic.tolist() and p.tolist() == direct.pvalue.tolist()
        one = C.paired_test("t", base[1], run[1])
        single = stats.ttest_rel(run[1], base[1])
        assert (one.statistic, one.p_value) == (single.statistic, single.pvalue)
        ci = single.confidence_interval(0.9)
        assert C.paired_test("t", base[1], run[1], confidence=0.9).ci_low == \
            pytest.approx(ci.low, rel=1e-12)


# --------------------------------------------------------------------------- effect sizes, blocks


@pytest.mark.parametrize("n", [2, 3, 12, 25])
def test_hedges_g_av_is_pingouins(n):
    import pingouin
    rng = np.random.default_rng(n)
    base = rng.uniform(0, 1, n)
    run = np.clip(base + rng.normal(0.05, 0.2, n), 0, 1)
    r = C.paired_test("t", base, run)
    want = pingouin.compute_effsize(run, base, paired=True, eftype="hedges")
    assert r.g_av == pytest.approx(want, rel=1e-12)
    assert r.effect == pytest.approx(
        pingouin.compute_effsize(run, base, paired=True, eftype="cohen_dz"), rel=1e-12)
    # g_av = (mean run - mean base) / sqrt((s_run^2 + s_base^2) / 2) * (1 - 3/(4 (2n) - 9))
    s = math.sqrt((np.var(run, ddof=1) + np.var(base, ddof=1)) / 2)
    assert r.g_av == pytest.approx((run.mean() - base.mean()) / s * (1 - 3 / (8 * n - 9)),
                                   rel=1e-12)
    x = np.array([.25, .5, .75])
    assert C.paired_test("t", x, x).g_av == 0.0
    assert math.isnan(C.paired_test("t", x[:1], x[:1] + .1).g_av)


def test_random_signs_are_drawn_in_bounded_blocks():
    """However many queries, a block of sign assignments holds at most _BLOCK values (the
    memory a randomization test needs does not grow with queries x samples)."""
    from smarteval.stats.significance import _BLOCK, sample_weights
    blocks = list(sample_weights("signs", 200_000, 60, seed=1))
    assert sum(w.shape[1] for w in blocks) == 60
    assert max(w.size for w in blocks) <= _BLOCK
    assert len(blocks) == 3                          # 20 samples of 200,000 queries a block
    assert all(set(np.unique(w * 200_000)) <= {-1.0, 1.0} for w in blocks)


def test_compare_randomization_is_reports():
    """compare's randomization test (one pair) draws the assignments report's does."""
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 40)
    run = np.clip(base + rng.normal(0.03, 0.1, 40), 0, 1)
    one = C.paired_test("randomization", base, run, samples=3000, seed=4)
    _, p, exact = paired_tests("randomization", base[None], run[None], samples=3000, seed=4)
    assert one.p_value == p[0] and one.exact is exact is False
