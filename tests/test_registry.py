"""Registry-wide tests: every registered measure has an oracle, and properties every measure keeps.

The measures come from ``all_measures()``, never from a hand-kept list: a new measure is
checked by every test here as soon as it is registered, and fails the first test until
tests/smart_helpers.ORACLES says which oracle its values are checked against. Measures
that need N are given N (never skipped); adj_prec is given a target generality.

Each test is parametrized by measure name, so ``pytest tests/test_registry.py -k NAME``
runs one measure's checks. The measures checked are smarteval's own and those of the
example plugin (docs/example_plugin.py), loaded into the registry for their tests and
checked against the oracles the plugin gives (tests/smart_helpers.registered). The
property tests check examples hypothesis draws once a session, shared by the measures
(fixtures.Shared): each example is evaluated once for every measure the session checks.
"""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st
from smart_helpers import (
    KNOWN_BUGS,
    ORACLES,
    SOURCES,
    Context,
    Query,
    close,
    expected,
    make_ranked,
    outputs,
    registered,
    specs,
)

import smarteval
from smarteval.measures import all_measures
from smarteval.ranking.programs import needs_file_order
from smarteval.read.plain import read_qrels, read_run
from smarteval.settings import Settings

GENERALITY = 20.0      # --target-generality (adj_prec)
EXAMPLE_PLUGIN = Path(__file__).resolve().parent.parent / "docs" / "example_plugin.py"

#: smarteval's own measures, and the example plugin's (its registry entries kept here)
OWN = [n for n, m in all_measures().items() if m.plugin is None]
with registered(EXAMPLE_PLUGIN) as _names:
    PLUGIN = list(_names)
    _PLUGIN_ENTRIES = {n: all_measures()[n] for n in PLUGIN}
MEASURES = OWN + PLUGIN


def entry(name: str):
    """The registry entry of a measure of :data:`MEASURES` (a plugin's: as registered)."""
    return all_measures().get(name) or _PLUGIN_ENTRIES[name]


@pytest.fixture
def checked(name):
    """The measures checked with ``name``: smarteval's own; or, with the example plugin
    loaded (and its oracles in ORACLES), the plugin's."""
    if name in PLUGIN:
        with registered(EXAMPLE_PLUGIN) as names:
            yield names
    else:
        yield OWN


def tie_average(m) -> bool:
    """Whether ``--ties average`` gives an exact value for the measure."""
    return m.tie_average


def names_for(version: int, checked: list[str]) -> list[str]:
    return [n for n in checked if version in all_measures()[n].versions]


def evaluated_with(name: str, checked: list[str], test: str, shared) -> list[str]:
    """The measures an example of ``test`` is evaluated for: those of ``checked`` the
    session runs the test for (``name`` among them)."""
    return [n for n in checked if n in shared.selected(test) or n == name]


# =========================================================================== oracle coverage

@pytest.mark.parametrize("name", MEASURES)
def test_has_an_oracle(name, checked):
    assert name in ORACLES, (f"no oracle entry in tests/smart_helpers.ORACLES for {name}: "
                             "add one (a trec or smart oracle) so its values are checked")


def test_every_oracle_is_a_measures():
    stale = sorted(set(ORACLES) - set(all_measures()))
    assert not stale, f"ORACLES entries for measures no longer registered: {stale}"


@pytest.mark.parametrize("name", MEASURES)
def test_oracle_entry_is_well_formed(name, checked):
    reg = all_measures()
    o = ORACLES[name]
    assert o.source in SOURCES, name
    for spec in specs(name, known_bugs=True):
        outs = outputs(spec)
        assert outs and all(out.measure is reg[name] for out in outs), spec
    # the counts a micro average pools are checked against the oracle's
    assert (o.counts is not None) == (reg[name].micro is not None), name


def test_known_bugs_are_variants_of_oracles():
    assert set(KNOWN_BUGS) <= {s for n in ORACLES for s in specs(n, known_bugs=True)}


# =========================================================================== shared inputs

QIDS = ["1", "2", "10", "7b"]
DOCS = [f"d{i}" for i in range(9)] + ["D0", "é"]
N = 40                 # every query's retrieved plus unretrieved relevant documents fit


@st.composite
def collection(draw):
    """(qrels, run): query -> {docno: grade}, query -> {docno: score}; tied scores likely."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    qrels, run = {}, {}
    for q in qids:
        side = draw(st.sampled_from(["both", "both", "qrels", "run"]))
        if side != "run" or not qrels:
            g = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1,
                                     max_size=8))
            if all(v < 0 for v in g.values()):
                g[next(iter(g))] = 0
            qrels[q] = g
        if side != "qrels":
            run[q] = draw(st.dictionaries(st.sampled_from(DOCS),
                                          st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0]),
                                          min_size=1, max_size=10))
    if not set(run) & set(qrels):
        q = next(iter(qrels))
        run[q] = {"d0": 1.0}
    return qrels, run


def run_lines(run: dict, tag: str = "t") -> list[str]:
    return [f"{q} Q0 {d} 0 {s!r} {tag}\n" for q, docs in run.items() for d, s in docs.items()]


def qrels_lines(qrels: dict) -> list[str]:
    return [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()]


def evaluate(qrels_text: str, run_text: str, names, **options):
    q = read_qrels("qrels", data=qrels_text.encode())
    r = read_run("run", data=run_text.encode())
    return smarteval.evaluate(q, r, names, settings=Settings(
        num_docs=N, target_generality=GENERALITY, **options))[0]


# =========================================================================== plugin values

@pytest.mark.parametrize("name", PLUGIN)
def test_plugin_values_equal_the_oracle(name, checked, shared):
    """A plugin's measures equal their oracles query by query, through files and
    smarteval.evaluate. (smarteval's own measures: tests/test_vs_oracle.py and
    tests/test_smart_oracle.py, which know their settings.)"""
    cases = shared.cases("plugin values", st.tuples(
        collection(), st.sampled_from([9, 10]), st.sampled_from([1, 2]), st.booleans(),
        st.booleans()), 40)
    for case in cases:
        (qrels, run), version, level, judged, complete = case
        if version not in all_measures()[name].versions:
            continue
        ev = evaluate("".join(qrels_lines(qrels)), "".join(run_lines(run)), [name],
                      trec_version=version, rel_level=level, judged_only=judged,
                      complete=complete)
        r = ev.ranked
        ctx = Context(level=level, num_docs=N, v10=version == 10, generality=GENERALITY,
                      tag="t")
        for out in ev.outputs:
            for i, qid in enumerate(ev.qids):
                rows = slice(r.offsets[i], r.offsets[i + 1])
                q = Query(r.rel[rows].tolist(), list(qrels.get(qid, {}).values()),
                          r.score[rows].tolist(), bool(r.in_run[i]))
                # a query -c adds: trec_eval 9 does not evaluate it, 10 its placeholder
                want = 0.0 if not q.in_run and version == 9 else expected(out, q, ctx)
                got = ev.per_query[out.name][i]
                assert close(got, want, ORACLES[out.measure.name].rtol), \
                    (out.name, qid, got, want, case)


# =========================================================================== query order

#: measures whose value depends on the qrels' line order, and why: checked with the
#: run's lines shuffled and the qrels' kept
LINE_ORDER = {"compat": "ir_measures' compat provider breaks ties in the ideal ranking so"}


def _reordered(case, names):
    """The evaluation of ``case`` and those with its query blocks and lines reordered."""
    (qrels, run), seed, version, ties, complete = case
    opts = dict(trec_version=version, ties=ties, complete=complete)
    ev = evaluate("".join(qrels_lines(qrels)), "".join(run_lines(run)), names, **opts)
    rng = random.Random(seed)
    # the query blocks in another order, then every line shuffled
    blocks = list(run.items())
    rng.shuffle(blocks)
    shuffled_lines = run_lines(run)
    rng.shuffle(shuffled_lines)
    qlines = qrels_lines(qrels)
    rng.shuffle(qlines)
    others = []
    for run_text in ("".join(run_lines(dict(blocks))), "".join(shuffled_lines)):
        other = evaluate("".join(qlines), run_text, names, **opts)
        if set(LINE_ORDER) & set(names):    # those read the qrels in their line order
            kept = evaluate("".join(qrels_lines(qrels)), run_text, names, **opts)
            for name in kept.names:
                if any(name.startswith(m) for m in LINE_ORDER):
                    other.per_query[name] = kept.per_query[name]
                    other.summary[name] = kept.summary[name]
        others.append(other)
    return ev, others


@pytest.mark.parametrize("name", MEASURES)
def test_query_order_does_not_change_values(name, checked, shared):
    """Permuting the queries of the run and qrels files (and their lines) changes nothing."""
    test = "test_query_order_does_not_change_values"
    cases = shared.cases(test, st.tuples(
        collection(), st.integers(0, 2**32 - 1), st.sampled_from([9, 10]),
        st.sampled_from(["docno", "average"]), st.booleans()), 40)
    m = all_measures()[name]
    for i, case in enumerate(cases):
        _, _, version, ties, _ = case
        if version not in m.versions or not (ties == "docno" or tie_average(m)):
            continue
        names = [n for n in evaluated_with(name, names_for(version, checked), test, shared)
                 if ties == "docno" or tie_average(all_measures()[n])]
        ev, others = shared.value((test, i, tuple(checked)), _reordered, case, names)
        for j, other in enumerate(others):
            assert list(other.qids) == list(ev.qids), case
            assert other.names == ev.names, case
            for out in ev.outputs:
                if out.measure.name != name:
                    continue
                if j == 1 and ties == "docno" and needs_file_order([out.program]):
                    continue        # it reads a query's lines in order: they were shuffled
                a, b = ev.per_query[out.name], other.per_query[out.name]
                if a.dtype.kind in "fc":
                    np.testing.assert_array_equal(a, b, err_msg=f"{out.name} {case}")
                else:
                    assert a.tolist() == b.tolist(), (out.name, case)
                x, y = ev.summary[out.name], other.summary[out.name]
                assert x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)), \
                    (out.name, case)


# =========================================================================== empty rankings

#: measures that are NaN for a query with no relevant document, ranked or not, and why
NAN_WITHOUT_RELEVANT = {"nNRBP": "ndeval divides the run's NRBP by the ideal's, 0 by 0"}

#: a query -c adds under trec_eval 9, which it does not evaluate: these values, 0 elsewhere
NOT_EVALUATED = {"runid": "t", "num_q": 1, "relstring": ""}


def _emptied(case, names):
    """The example with empty rankings (-c, -M 0 or -J), and its evaluations under
    ``--ties docno`` and ``average``."""
    (qrels, run), version, level, unranked, how = case
    qrels = {**qrels, "99": {"d1": 1, "d2": 0, "d3": 2}}     # not in the run: -c adds it
    if how == "judged_only":        # every retrieved document of the first query unjudged
        first = next(q for q in run if q in qrels)
        run = {**run, first: {f"u{i}": s for i, s in enumerate(run[first].values())}}
    options = {"complete": dict(complete=True), "max_docs_0": dict(max_docs=0),
               "judged_only": dict(judged_only=True)}[how]
    evs = {}
    for ties in ("docno", "average"):
        use = [n for n in names if ties == "docno" or tie_average(all_measures()[n])]
        evs[ties] = evaluate("".join(qrels_lines(qrels)), "".join(run_lines(run)), use,
                             trec_version=version, rel_level=level, unranked=unranked,
                             ties=ties, **options)
    return qrels, run, evs


@pytest.mark.parametrize("name", MEASURES)
def test_empty_rankings_give_the_oracle_value(name, checked, shared):
    """A query with no rows (-c, -M 0, -J dropping everything) gives the oracle's value for
    an empty list, never a crash: a finite number, or NaN where trec_eval divides 0 by 0.
    A query -c adds is not evaluated by trec_eval 9: it counts 0 in every average of
    trec_eval's measures (one query in num_q, the run's tag as runid); the SMART measures
    score its empty ranking."""
    test = "test_empty_rankings_give_the_oracle_value"
    # trec_eval 10's -c ranks an added query's placeholder document, so it is not empty:
    # tests/test_complete.py pins that against 10.0's output
    cases = shared.cases(test, st.tuples(
        collection(), st.sampled_from([9, 10]), st.sampled_from([1, 2]),
        st.sampled_from(["expected", "worst"]),
        st.sampled_from(["complete", "max_docs_0", "judged_only"]))
        .filter(lambda c: not (c[4] == "complete" and c[1] == 10)), 40)
    for i, case in enumerate(cases):
        _, version, level, unranked, _ = case
        if version not in all_measures()[name].versions:
            continue
        names = evaluated_with(name, names_for(version, checked), test, shared)
        qrels, run, evs = shared.value((test, i, tuple(checked)), _emptied, case, names)
        ctx = Context(level=level, num_docs=N, unranked=unranked, v10=version == 10,
                      generality=GENERALITY, tag="t")
        for ties, ev in evs.items():
            empty = np.diff(ev.ranked.offsets) == 0
            assert empty.any()
            for out in ev.outputs:
                if out.measure.name != name:
                    continue
                values = ev.per_query[out.name]
                nan = np.zeros(len(values), dtype=bool)
                if out.measure.value != "str":
                    nan = np.isnan(values.astype(float))
                    assert np.isfinite(values.astype(float)[~nan]).all(), (out.name, case)
                for i in np.flatnonzero(empty):
                    qid = ev.qids[i]
                    if qid in run or out.measure.scores_empty_ranking:
                        want = expected(out, Query([], list(qrels[qid].values()), [], True),
                                        ctx)
                    else:
                        want = NOT_EVALUATED.get(out.measure.name, math.nan if
                                                 out.measure.average == "reported" else 0.0)
                    assert close(values[i], want, ORACLES[out.measure.name].rtol), \
                        (out.name, ties, qid, values[i], want, case)
                nan_ok = np.zeros(len(values), dtype=bool)
                if out.measure.name in NAN_WITHOUT_RELEVANT:
                    nan_ok = np.array([max(qrels[q].values()) < level for q in ev.qids])
                if out.measure.average == "reported":      # NaN: no value for the query
                    nan_ok = np.ones(len(values), dtype=bool)
                assert not (nan[~empty] & ~nan_ok[~empty]).any(), (out.name, case)
                s = ev.summary[out.name]
                if isinstance(s, float) and not nan.any():
                    assert math.isfinite(s), (out.name, case)


# =========================================================================== value range

#: value == "float" and average == "mean" but NOT a proportion in [0, 1], and why
UNBOUNDED = {
    "utility": "p1·a + p2·b + p3·c + p4·d: any real number (default a - b)",
    "yaap": "a log ratio, log((1 + s) / (1 + R - s)): negative below s = R/2",
    "generality": "relevant documents per thousand: 0 .. 1000",
    "rank_first": "a rank: 1 .. N",
    "rank_second": "a rank: 1 .. N",
    "rank_last": "a rank: 1 .. N",
    "esl": "a number of documents: 0 .. N",
    "wnorm_recall": "Keen's unweighted denominator: below 0 with weights above 1 (its help)",
    "swets_E": "a distance between normal deviates: any real number",
    "swets_slope": "a slope: any real number",
    "dcg": "a sum of gains over log ranks: any real number (0 .. the ideal's by default)",
    "ideal_dcg": "the ideal ranking's DCG: 0 or more",
    "alpha-DCG": "at k = 1 ndeval leaves it undivided: up to the number of subtopics",
    "ERR-IA": "at k = 1 ndeval leaves it undivided: up to the number of subtopics",
    "ranx_dcg": "a sum of gains over log ranks: 0 or more",
    "ranx_dcg_burges": "a sum of gains over log ranks: 0 or more",
    "ranx_hits": "a number of documents: 0 .. k",
    "infNDCG": "an estimated DCG over the ideal of rounded estimated counts: may pass 1",
}


def bounded(names) -> list[str]:
    """The measures of ``names`` whose values are proportions."""
    return [n for n in names
            if entry(n).value == "float" and entry(n).average == "mean" and n not in UNBOUNDED]


BOUNDED = bounded(OWN)


def test_unbounded_names_are_registered_proportion_candidates():
    reg = all_measures()
    for name in UNBOUNDED:
        assert reg[name].value == "float" and reg[name].average == "mean", name
    assert {"map", "P", "ndcg", "norm_recall", "fallout", "F", "E", "jw_prob"} <= set(BOUNDED)


def _range_specs(name: str) -> list[str]:
    """The default, and the variants that are not gains (custom gains may leave [0, 1])."""
    m = all_measures()[name]
    return [s for s in specs(name) if s == name or m.params != "gains"]


@pytest.mark.parametrize("name", bounded(MEASURES))
def test_proportions_lie_in_the_unit_interval(name, checked, shared):
    test = "test_proportions_lie_in_the_unit_interval"
    cases = shared.cases(test, st.tuples(
        collection(), st.sampled_from([9, 10]), st.sampled_from([1, 2]),
        st.sampled_from(["expected", "worst"]), st.booleans(),
        st.sampled_from(["docno", "average"])), 40)
    m = all_measures()[name]
    for i, case in enumerate(cases):
        (qrels, run), version, level, unranked, judged, ties = case
        if version not in m.versions or not (ties == "docno" or tie_average(m)):
            continue
        use = [n for n in evaluated_with(name, bounded(checked), test, shared)
               if version in all_measures()[n].versions
               and (ties == "docno" or tie_average(all_measures()[n]))]
        ev = shared.value((test, i, tuple(checked)), evaluate, "".join(qrels_lines(qrels)),
                          "".join(run_lines(run)), use, trec_version=version, rel_level=level,
                          unranked=unranked, judged_only=judged, ties=ties, complete=True)
        for spec in _range_specs(name):
            for out in outputs(spec, version):
                v = out.compute(ev.ranked)
                # rounding may leave an extreme value a few ulps outside; NaN is trec_eval's
                # 0/0 for a query -J leaves without documents
                assert (np.isnan(v) | ((v >= -1e-12) & (v <= 1 + 1e-12))).all(), \
                    (out.name, v.tolist(), case)


# =========================================================================== ties

def orders(scores):
    """Every order of the rows that keeps the groups of equal scores in place."""
    groups = [list(g) for _, g in itertools.groupby(range(len(scores)), key=lambda i: scores[i])]
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for g in perm for i in g]


@st.composite
def tied_query(draw):
    L = draw(st.integers(1, 7))
    lst = draw(st.lists(st.sampled_from([-1, 0, 0, 1, 1, 2, 3]), min_size=L, max_size=L))
    scores = sorted(draw(st.lists(st.integers(0, 2), min_size=L, max_size=L)), reverse=True)
    extra = draw(st.lists(st.sampled_from([0, 1, 2]), max_size=2))
    slack = draw(st.integers(0, 5))
    how = draw(st.sampled_from(["expected", "worst"]))
    level = draw(st.sampled_from([1, 1, 2]))
    return lst, [float(s) for s in scores], [g for g in lst if g >= 0] + extra, slack, how, level


def with_tie_average(names) -> list[str]:
    """The measures of ``names`` with an exact --ties average."""
    return [n for n in names if tie_average(entry(n)) and entry(n).value != "str"]


def _orders(q):
    """The ranking of one tied query under --ties average, and of every order of its ties."""
    lst, scores, qrels, slack, how, level = q
    n_docs = len(lst) + len(qrels) + slack
    opts = dict(num_docs=n_docs, unranked=how, target_generality=GENERALITY, rel_level=level)
    tied = make_ranked([lst], [qrels], [scores], ties="average", **opts)
    perms = list(orders(scores))
    # each order exactly as listed, whatever a measure's program would make of its ties
    # (the rank order, as ndeval's rank column, moves nothing)
    every = make_ranked([[lst[i] for i in p] for p in perms], [qrels] * len(perms),
                        [scores] * len(perms), order_by="rank", **opts)
    return tied, every


@pytest.mark.parametrize("name", with_tie_average(MEASURES))
def test_tie_average_is_the_mean_over_every_order(name, checked, shared):
    """--ties average equals the mean over every order of each tied group (brute force).

    Every order is one query of a single Ranked, so each measure is computed once for all.
    """
    test = "test_tie_average_is_the_mean_over_every_order"
    for i, q in enumerate(shared.cases(test, tied_query(), 60)):
        tied, every = shared.value((test, i), _orders, q)
        for spec in specs(name):
            for out in outputs(spec):
                want = float(np.mean(out.compute(every).astype(float)))
                got = float(out.compute(tied)[0])
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), \
                    (out.name, got, want, q)


#: measures without an exact --ties average (not linear in the ranks), and why; --ties
#: average refuses them. A new measure must be put here or given a tie average.
REFUSE = {
    "bpref": "divides by min(judged non-relevant, R) after counting those above",
    "iprec_at_recall": "a maximum over ranks",
    "relstring": "a string",
    "infAP": "ratios of counts above each relevant document",
    "gm_bpref": "bpref's",
    "11pt_avg": "maxima over ranks",
    "binG": "a logarithm of a count of documents above",
    "G": "a logarithm of cumulated gains",
    "ndcg_rel": "nDCG averaged at the ranks of relevant documents",
    "Rndcg": "nDCG averaged at changing depths",
    "yaap": "a logarithm of the AP sum",
    "rbp": "not provided (linear in p^rank, so one could be)",
    **{n: "a document's gain depends on the documents above it (novelty)" for n in
       ("alpha-DCG", "alpha-nDCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP")},
    "MAP-IA": "not provided (average precision per subtopic; map's form could be followed)",
    "P-IA": "not provided (linear in the ranks, so one could be)",
    "strec": "the first document covering a subtopic counts, not the others",
    **{n: "its continuation depends on the gains above each rank" for n in
       ("INST", "BPM", "BPM-Dynamic", "NERR8", "NERR9", "NERR10", "NERR11", "IFT-C1",
        "IFT-C2", "IFT-C1-C2", "cwl_RR", "cwl_AP")},
    **{n: "not provided (linear in the gains, so one could be)" for n in
       ("INSQ", "TBG", "U-measure", "cwl_RBP", "cwl_P", "cwl_NDCG")},
    "rbp_resid": "not provided",
    "rank_recall": "a ratio of rank sums",
    "log_prec": "a ratio of log-rank sums",
    "adj_prec": "a ratio of recall and fallout",
    "jw_prob": "a hypergeometric tail of the count in the top k",
    "jw_avg": "jw_prob's",
    "cnr_recall": "stops at a run of non-relevant documents",
    "cnr_prec": "stops at a run of non-relevant documents",
    "recip_rank_cut": "not provided (recip_rank has one; RR@k would take the same form)",
    "swets_E": "a regression on normal deviates",
    "swets_slope": "a regression on normal deviates",
    "compat": "an overlap with an ideal ranking that follows the run's scores",
    "gd_ndcg": "not provided (gdeval orders ties itself)",
    "gd_err": "a product over the ranks above",
    "ranx_dcg": "not provided (ranx's own order of ties is arbitrary)",
    "ranx_dcg_burges": "not provided (ranx's own order of ties is arbitrary)",
    "ranx_ndcg_burges": "not provided (ranx's own order of ties is arbitrary)",
    "ranx_hits": "not provided (ranx's own order of ties is arbitrary)",
    "ranx_hit_rate": "not provided (ranx's own order of ties is arbitrary)",
    "sdcg": "not provided (linear in the ranks' weights, so one could be)",
    "pair_accuracy": "a ratio of pair counts",
    **{n: "not provided (ratios of preference counts; trec_eval ranks ties by docno)" for n in
       ("prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
        "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
        "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
        "prefs_avgjg_imp")},
    **{n: "not provided (averages over judgement groups of measures that have one)" for n in
       ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")},
    **{n: "ratios of counts of sampled documents above each rank (sample_eval's estimates)"
       for n in ("xinfAP", "infNDCG", "iP", "inum_rel_ret")},
    **{n: "maxima over ranks of estimated precision" for n in ("iprec_at_rec", "int11ptAP")},
    **{n: "not provided (NTCIREVAL reads a ranked list, the run's lines in order)" for n in
       ("ntcir_RR", "ntcir_O", "ntcir_P", "ntcir_Pplus", "ntcir_AP", "ntcir_Q", "ntcir_NCUguP",
        "ntcir_NCUguBR", "ntcir_NCUrbP", "ntcir_NCUrbBR", "ntcir_RBP", "ntcir_ERR",
        "ntcir_nDCG", "ntcir_MSnDCG", "ntcir_nERR", "ntcir_Prec", "ntcir_Hit",
        "ntcir_Recall")},
}


@pytest.mark.parametrize("name", MEASURES)
def test_measure_is_classified_for_ties(name, checked):
    """Each of smarteval's measures without a tie average is in REFUSE, with the reason,
    and each with one is not; each measure without one (a plugin's too) is refused under
    --ties average."""
    m = all_measures()[name]
    if m.plugin is None:
        assert tie_average(m) != (name in REFUSE), \
            "give a tie average or add to REFUSE" if name not in REFUSE else \
            "this now has a tie average: drop it from REFUSE"
    if tie_average(m):
        return
    from smarteval.errors import UsageError
    r = make_ranked([[1, 0, 1]], scores=[[1.0, 1.0, 0.0]], num_docs=10,
                    target_generality=GENERALITY, ties="average")
    out = outputs(name)[0]
    with pytest.raises(UsageError, match=f"--ties average: {name} has no exact average"):
        out.compute(r)


def test_every_refused_name_is_a_measure():
    assert set(REFUSE) <= set(OWN)


def test_an_unknown_origin_is_refused_at_registration():
    from smarteval.measures.registry import ORIGINS, REGISTRY, measure
    with pytest.raises(ValueError, match=r"measure 'x_smrt': unknown origin 'smrt' \(one of "
                                         + ", ".join(ORIGINS) + r"\)"):
        measure("x_smrt", origin="smrt")
    assert "x_smrt" not in REGISTRY

