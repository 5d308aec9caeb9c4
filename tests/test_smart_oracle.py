"""The SMART measures (every "smart" entry of tests/smart_helpers.ORACLES), the micro
averages and the curves against the slow per-query oracle (hypothesis)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import smart_oracle as O
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from smart_helpers import (
    DOUBLE_ORDER,
    ORACLES,
    Context,
    Query,
    close,
    expected,
    make_ranked,
    outputs,
    specs,
)

from smarteval.aggregate import summarize
from smarteval.curves import LEFTS, METHODS, STEPS, precision_curve
from smarteval.measures import all_measures

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


SETTINGS = settings(max_examples=examples(150), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def check(vec, expect):
    np.testing.assert_allclose(np.asarray(vec, dtype=float), np.asarray(expect, dtype=float),
                               rtol=1e-9, atol=1e-12)


SMART = [n for n in all_measures() if n in ORACLES and ORACLES[n].source == "smart"]


@pytest.mark.parametrize("name", SMART)
def test_smart_measure_matches_oracle(name, shared):
    """Every measure with a "smart" oracle, at its default parameters, its variants and,
    for a cut-off measure, one more cut-off k."""
    rtol = ORACLES[name].rtol
    for c, k in shared.cases("smart", st.tuples(collection(), st.integers(1, 14)), 150):
        r, qs, level, how, N = c
        ctx = Context(level=level, num_docs=N, unranked=how, generality=30.0)
        queries = [Query(q[0], q[1], q[2]) for q in qs]
        at_k = [f"{name}.{k}"] if all_measures()[name].params == "cutoffs" else []
        for spec in specs(name) + at_k:
            for out in outputs(spec):
                got = out.compute(r)
                for qi, (g, q) in enumerate(zip(got, queries)):
                    want = expected(out, q, ctx)
                    assert close(g, want, rtol), (out.name, qi, float(g), want, q, ctx)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(query(), min_size=1, max_size=3), st.integers(10 ** 3, 10 ** 9),
       st.integers(1, 14))
def test_jw_prob_large_collections(qs, N, k):
    """jw_prob and jw_avg for N up to 10^9 against the exact sums (Fractions) and
    scipy.stats.hypergeom, to 1e-12 relative (log-gamma differences lose log10 N digits)."""
    from scipy.stats import hypergeom

    from smarteval.measures import smart as S
    r = make_ranked([q[0] for q in qs], [q[1] for q in qs], num_docs=N)
    got = S.jw_prob(r, k)
    avg = S.jw_avg(r, (4,))
    for qi, (lst, qr, _, _) in enumerate(qs):
        want = O.jw_prob(lst, qr, N, k)
        assert got[qi] == pytest.approx(want, rel=1e-12, abs=0), (qi, N, k)
        R, a = O.num_rel(qr), O.top(lst, k)
        if R:
            assert got[qi] == pytest.approx(float(hypergeom.cdf(a - 1, N, R, min(k, N))),
                                            rel=1e-12, abs=0)
        assert avg[qi] == pytest.approx(O.jw_avg(lst, qr, N, 4), rel=1e-12, abs=0)


def test_every_smart_entry_runs_here():
    # and DOUBLE_ORDER's: their order of tied scores (doubles) is not the one the file-based
    # oracle of trec_eval 9 follows (float32 keys)
    assert SMART and all(all_measures()[n].origin == "smart" or n in DOUBLE_ORDER
                         for n in SMART)


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


@SETTINGS
@given(collection(), st.sampled_from([None, "N", "wide"]))
def test_semi_counts_and_micro(c, with_n):
    """Semi counts (a level left of a query's first point is extrapolated) and the micro
    average (the earliest best cut-off, ratios compared exactly) against the oracle.

    "wide" widens N so that placed ranks are fractional and often tie exactly
    (3/36.6 = 4/48.8).
    """
    r, qs, level, how, N = c
    if with_n is None:
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    elif with_n == "wide":
        N = 5 * N + 7
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level,
                        num_docs=N, unranked=how)
    levels = [0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 0.6, 0.75, 0.9, 1.0]
    macro = precision_curve(r, levels, method="semi")
    micro = precision_curve(r, levels, method="semi", average="micro")
    for k, x in enumerate(macro.levels):
        cells = [O.semi_cell(q[0], q[1], x, N, how, level) for q in qs]
        assert macro.real[k] == sum(c[1] == "real" for c in cells), x
        assert macro.extrapolated[k] == sum(c[1] == "extrapolated" for c in cells), x
        assert micro.real[k] == macro.real[k] and micro.excluded[k] == 0
        for qi, cell in enumerate(cells):
            assert macro.per_query[qi, k] == pytest.approx(cell[0], rel=1e-12, abs=1e-15)
        found = sum(c[2] for c in cells)
        seen = sum(c[3] for c in cells)
        assert micro.precision[k] == pytest.approx(float(found / seen) if seen else 0.0,
                                                   rel=1e-12, abs=1e-15), x


@st.composite
def cluster_case(draw):
    """Queries with a full search and a cluster search that ranks some of its documents."""
    qs = draw(st.lists(query(), min_size=1, max_size=4))
    clusters = [[q[0][i] for i in draw(st.lists(st.integers(0, max(len(q[0]) - 1, 0)),
                                                 unique=True, max_size=len(q[0])))]
                if q[0] else [] for q in qs]
    # the full search may lack a query (it then counts as an empty full search)
    in_full = draw(st.lists(st.booleans(), min_size=len(qs), max_size=len(qs)))
    return qs, clusters, in_full


@SETTINGS
@given(cluster_case(), st.sampled_from(STEPS), st.sampled_from(LEFTS),
       st.sampled_from(["extrapolate", "join", "none"]), st.sampled_from([None, "N"]),
       st.sampled_from(["expected", "worst"]), st.sampled_from(["macro", "median"]))
def test_cluster_curve(case, step, left, end, with_n, how, average):
    qs, clusters, in_full = case
    N = None
    if with_n:
        N = max(len(q[0]) + len(q[1]) for q in qs) + 3
    kw = {} if N is None else {"num_docs": N, "unranked": how}
    keep = [i for i in range(len(qs)) if in_full[i]]
    full = make_ranked([qs[i][0] for i in keep], [qs[i][1] for i in keep],
                       qids=[f"q{i:03d}" for i in keep], **kw)
    qs = [q if in_full[i] else ([], *q[1:]) for i, q in enumerate(qs)]
    cl = make_ranked(clusters, [q[1] for q in qs], **kw)
    levels = [0.0, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.75, 1.0]
    curve = precision_curve(cl, levels, method="cluster", step=step, left=left, end=end,
                            full=full, average=average)
    for k, x in enumerate(curve.levels):
        cells = [O.cluster(c, q[0], q[1], x, step, left, end, N, how)
                 for c, q in zip(clusters, qs)]
        for qi, (want, _) in enumerate(cells):
            got = curve.per_query[qi, k]
            if want is None:
                assert math.isnan(got), (qi, x)
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (qi, x)
        assert curve.real[k] == sum(c[1] == "real" for c in cells)
        assert curve.extrapolated[k] == sum(c[1] == "extrapolated" for c in cells)
        assert curve.excluded[k] == sum(c[1] == "excluded" for c in cells)
        vals = [v for v, _ in cells if v is not None]
        want = (np.median(vals) if average == "median" else np.mean(vals)) if vals else np.nan
        assert curve.value[k] == pytest.approx(want, rel=1e-9, abs=1e-12, nan_ok=True)
    ceil = [O.top(c, len(c)) / O.num_rel(q[1]) if O.num_rel(q[1]) else 0.0
            for c, q in zip(clusters, qs)]
    want = np.median(ceil) if average == "median" else np.mean(ceil)
    assert curve.ceiling == pytest.approx(want, rel=1e-12)


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


def _cutoff_oracle(qs, level, N, how, method, average, G=None):
    """Averaged (recall, value) after n = 1..D documents, one query at a time."""
    depth = N if N is not None else max(len(q[0]) for q in qs)
    recs, ys = [], []
    for n in range(1, depth + 1):
        vs = [O.cutoff_values(lst, qr, n, N, how, level) for lst, qr, _, _ in qs]
        key = "points" if method == "points" else "recall"
        yk = "precision" if method in ("pseudo", "points") else "fallout"
        if average == "micro":
            num = sum(v["g"] if method == "points" else v["a"] for v in vs)
            den = sum(v["G"] if method == "points" else v["R"] for v in vs)
            rec = float(num / den) if den else 0.0
            if yk == "precision":
                y = float(sum(v["a"] for v in vs) / (len(vs) * n))
            else:
                nonrel = sum(v["nonrel"] for v in vs)
                y = float(sum(v["b"] for v in vs) / nonrel) if nonrel else 0.0
        else:
            agg = np.median if average == "median" else np.mean
            rec = float(agg([v[key] for v in vs]))
            y = float(agg([v[yk] for v in vs]))
        if method == "adjusted":
            y = rec * G / (rec * G + y * (1000 - G)) if rec * G + y * (1000 - G) else 0.0
        recs.append(rec)
        ys.append(y)
    return np.array(recs), np.array(ys)


CUTOFF_METHODS = [m for m in ("pseudo", "points", "fallout", "adjusted") if m in METHODS]


@SETTINGS
@given(collection(), st.sampled_from(CUTOFF_METHODS),
       st.sampled_from(["macro", "micro", "median"]), st.sampled_from([None, "N"]))
def test_cutoff_curves(c, method, average, with_n):
    """The pseudo curve over documents or relevance points, the fallout curve and the
    adjusted curve against averages of the per-query oracle, read where the averaged
    recall first reaches each level, joined by a straight line to the cut-off before."""
    r, qs, level, how, N = c
    if with_n is None and method in ("pseudo", "points"):
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    if N is None and max(len(q[0]) for q in qs) == 0:
        return
    rec, y = _cutoff_oracle(qs, level, N, how, method, average, 30.0)
    levels = [0.1, 0.25, 0.5, 0.75, 1.0]
    curve = precision_curve(r, levels, method=method, average=average)
    for k, x in enumerate(levels):
        reach = [i for i in range(len(rec)) if rec[i] >= x - 1e-12]
        if not reach:
            assert math.isnan(curve.value[k])
            continue
        i = reach[0]
        if i == 0 or rec[i] - rec[i - 1] < 1e-12:
            want_y, want_n = y[i], i + 1
        else:
            t = min((x - rec[i - 1]) / (rec[i] - rec[i - 1]), 1.0)
            want_y, want_n = y[i - 1] + t * (y[i] - y[i - 1]), i + t
        assert curve.value[k] == pytest.approx(want_y, abs=1e-9), (x, method)
        assert curve.examined[k] == pytest.approx(want_n, abs=1e-9)


@SETTINGS
@given(collection(), st.sampled_from(["macro", "micro", "median"]),
       st.sampled_from([None, "N"]))
def test_characteristic_curve(c, average, with_n):
    """Relevance points found over all points at each cut-off, averaged."""
    r, qs, level, how, N = c
    if with_n is None:
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    cutoffs = [1, 2, 3, 5, 8, 12]
    curve = precision_curve(r, cutoffs, method="characteristic", average=average)
    for k, n in enumerate(cutoffs):
        vs = [O.cutoff_values(lst, qr, n, N, how, level) for lst, qr, _, _ in qs]
        if average == "micro":
            den = sum(v["G"] for v in vs)
            want = float(sum(v["g"] for v in vs) / den) if den else 0.0
        else:
            agg = np.median if average == "median" else np.mean
            want = float(agg([v["points"] for v in vs]))
        assert curve.value[k] == pytest.approx(want, rel=1e-12, abs=1e-15), (n, average)
        for qi, v in enumerate(vs):
            assert curve.per_query[qi, k] == pytest.approx(v["points"], rel=1e-12, abs=1e-15)
        assert curve.real[k] == sum(len(q[0]) >= n for q in qs)


@SETTINGS
@given(collection(), st.sampled_from(["macro", "micro", "median"]),
       st.sampled_from([None, "N", "wide"]))
def test_precision_level_curve(c, average, with_n):
    """Keen 4B: recall at the deepest relevant document whose precision is at least the
    level (ratios compared exactly), against the per-query oracle."""
    r, qs, level, how, N = c
    if with_n is None:
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    elif with_n == "wide":
        N = 5 * N + 7
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level,
                        num_docs=N, unranked=how)
    levels = [0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 0.6, 0.75, 1.0]
    curve = precision_curve(r, levels, method="precision", average=average)
    for k, p in enumerate(curve.levels):
        cells = [O.precision_cell(q[0], q[1], p, N, how, level) for q in qs]
        for qi, cell in enumerate(cells):
            assert curve.per_query[qi, k] == pytest.approx(cell[0], rel=1e-12, abs=1e-15)
        assert curve.real[k] == sum(c[2] == "real" for c in cells)
        recs = [c[0] for c in cells]
        seen = [c[1] for c in cells]
        if average == "micro":
            Rs = [O.num_rel(q[1], level) for q in qs]
            want = sum(rc * R for rc, R in zip(recs, Rs)) / sum(Rs) if sum(Rs) else 0.0
            want_n = np.mean(seen)
        else:
            agg = np.median if average == "median" else np.mean
            want, want_n = agg(recs), agg(seen)
        assert curve.value[k] == pytest.approx(want, rel=1e-12, abs=1e-15), (p, average)
        assert curve.examined[k] == pytest.approx(want_n, rel=1e-12, abs=1e-15)


@SETTINGS
@given(collection(), st.lists(st.integers(0, 12), min_size=4, max_size=4),
       st.sampled_from(["macro", "micro", "median"]), st.sampled_from([None, "N"]))
def test_matched_cut_offs(c, sizes, average, with_n):
    """Keen part 7: each query cut at the other system's set size, then averaged."""
    from smarteval.curves.matched import matched
    r, qs, level, how, N = c
    if with_n is None:
        r = make_ranked([q[0] for q in qs], [q[1] for q in qs], rel_level=level)
        N = None
    sizes = sizes[:len(qs)]
    if N is not None:
        sizes = [min(n, N) for n in sizes]
    got = matched(r, np.array(sizes), average)
    cells = [O.matched(q[0], q[1], n, N, how, level) for q, n in zip(qs, sizes)]
    Rs = [O.num_rel(q[1], level) for q in qs]
    rec = [float(a / R) if R else 0.0 for (a, _), R in zip(cells, Rs)]
    prec = [float(a / n) if n else 0.0 for a, n in cells]
    if average == "micro":
        want_r = float(sum(a for a, _ in cells) / sum(Rs)) if sum(Rs) else 0.0
        want_p = float(sum(a for a, _ in cells) / sum(sizes)) if sum(sizes) else 0.0
    else:
        agg = np.median if average == "median" else np.mean
        want_r, want_p = agg(rec), agg(prec)
    assert got.recall == pytest.approx(want_r, rel=1e-12, abs=1e-15)
    assert got.precision == pytest.approx(want_p, rel=1e-12, abs=1e-15)
    assert got.examined == pytest.approx(np.median(sizes) if average == "median"
                                         else np.mean(sizes), rel=1e-12)
    assert got.queries == len(qs)


@SETTINGS
@given(collection(), st.data(), st.sampled_from(["macro", "micro", "median"]))
def test_set_sizes_and_the_set_systems_own_pair(c, data, average):
    """Keen part 7 from another run: each query's set size is what that run retrieved for
    it (0 where it lacks the query), and its own pair is everything it retrieved."""
    from smarteval.curves.matched import matched, own_point, set_sizes
    r, qs, level, how, N = c
    sets = [data.draw(st.one_of(st.none(), st.lists(st.sampled_from(GRADES), max_size=12)))
            for _ in qs]
    keep = [i for i, s in enumerate(sets) if s is not None]
    other = make_ranked([sets[i] for i in keep], [qs[i][1] for i in keep], rel_level=level,
                        qids=[f"q{i:03d}" for i in keep], num_docs=N, unranked=how)
    sizes = set_sizes(r, other)
    assert list(sizes) == [len(s) if s is not None else 0 for s in sets]
    got = matched(r, sizes, average)
    cells = [O.matched(q[0], q[1], n, N, how, level) for q, n in zip(qs, sizes)]
    own = own_point(r, other, average)
    found = [O.top(s, len(s), level) if s is not None else 0 for s in sets]
    Rs = [O.num_rel(q[1], level) for q in qs]
    for point, pairs in ((got, cells), (own, list(zip(found, sizes)))):
        rec = [float(a / R) if R else 0.0 for (a, _), R in zip(pairs, Rs)]
        prec = [float(a / n) if n else 0.0 for a, n in pairs]
        if average == "micro":
            want_r = float(sum(a for a, _ in pairs) / sum(Rs)) if sum(Rs) else 0.0
            want_p = float(sum(a for a, _ in pairs) / sum(sizes)) if sum(sizes) else 0.0
        else:
            agg = np.median if average == "median" else np.mean
            want_r, want_p = agg(rec), agg(prec)
        assert point.recall == pytest.approx(want_r, rel=1e-12, abs=1e-15)
        assert point.precision == pytest.approx(want_p, rel=1e-12, abs=1e-15)


@SETTINGS
@given(collection(), st.sampled_from(["macro", "micro", "median"]))
def test_stopping_rule_curve(c, average):
    """Rocchio: recall and precision when the user stops after n non-relevant in a row."""
    r, qs, level, how, N = c
    stops = [1, 2, 3, 5]
    curve = precision_curve(r, stops, method="cnr", average=average)
    for k, n in enumerate(stops):
        cells = [O.cnr(q[0], q[1], n, level) for q in qs]
        Rs = [O.num_rel(q[1], level) for q in qs]
        if average == "micro":
            want_r = sum(f for f, _ in cells) / sum(Rs) if sum(Rs) else 0.0
            seen = sum(e for _, e in cells)
            want_p = sum(f for f, _ in cells) / seen if seen else 0.0
        else:
            agg = np.median if average == "median" else np.mean
            want_r = agg([O.cnr_recall(q[0], q[1], n, level) for q in qs])
            want_p = agg([O.cnr_prec(q[0], q[1], n, level) for q in qs])
        assert curve.recall[k] == pytest.approx(want_r, rel=1e-12, abs=1e-15)
        assert curve.value[k] == pytest.approx(want_p, rel=1e-12, abs=1e-15)
        agg = np.median if average == "median" else np.mean
        assert curve.examined[k] == pytest.approx(agg([e for _, e in cells]), rel=1e-12)


MICRO = [n for n, m in all_measures().items() if m.micro is not None]


@pytest.mark.parametrize("name", MICRO)
def test_micro_is_pooled_counts(name, shared):
    """Each measure with a micro average pools the counts its oracle entry computes.

    The counts come from the oracle (tests/smart_helpers.ORACLES), one query at a time;
    the micro summary is their pooled ratio and each query's value its own ratio.
    """
    for c, k in shared.cases("micro", st.tuples(collection(), st.integers(1, 12)), 150):
        r, qs, level, how, N = c
        ctx = Context(level=level, num_docs=N, unranked=how, generality=30.0)
        queries = [Query(q[0], q[1], q[2]) for q in qs]
        at_k = [f"{name}.{k}"] if all_measures()[name].params == "cutoffs" else []
        for spec in specs(name) + at_k:
            for out in outputs(spec):
                counts = [ORACLES[name].counts(q, out.param, ctx) for q in queries]
                num = sum(n for n, _ in counts)
                den = sum(d for _, d in counts)
                values = out.compute(r)
                micro = replace(r, settings=replace(r.settings, average="micro"))
                got = summarize(out, values, micro)
                assert got == pytest.approx(num / den if den else 0.0, rel=1e-9, abs=1e-12), \
                    (out.name, counts)
                for v, (n, d) in zip(values, counts):
                    if d:
                        assert v == pytest.approx(n / d, rel=1e-9, abs=1e-12), (out.name, n, d)


def test_micro_refused_without_counts():
    from smarteval.errors import UsageError
    r = make_ranked([[1, 0]], num_docs=5, average="micro")
    (out,) = outputs("map")
    with pytest.raises(UsageError, match="map is not a ratio of counts"):
        summarize(out, out.compute(r), r)


def test_semi_agrees_with_trec_iprec_where_rounding_agrees():
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
