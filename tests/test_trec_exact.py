"""Exact trec_eval values on tiny inputs, one group per quirk smarteval reproduces.

Every expected value below was printed by the real trec_eval 9.0.8 and 10.0 on the input
written beside it (per query, %6.4f; "nan" where trec_eval prints -nan). A property test
then checks the measures against tests/oracle.py (a per-query port of trec_eval's C code)
where the shared oracle tests do not go: -l 0 and below, and gains less than 1 apart.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from fixtures import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import rank_query_keys
from smart_helpers import ORACLES, Context, Query, close, expected, outputs

import smarteval
from smarteval.measures import all_measures, lookup, nicknames
from smarteval.measures.grammar import Output
from smarteval.read.plain import read_qrels, read_run
from smarteval.settings import Settings


def evaluate(qrels: str, run: str, specs, version=9, **options):
    """(per query {output name: values}, the ranking) of the -m ``specs``, each evaluated
    on its own (as trec_eval, smarteval keeps one parameter string a measure)."""
    q = read_qrels("qrels", data=qrels.encode())
    r = read_run("run", data=run.encode())
    values: dict = {}
    for spec in specs:
        ev = smarteval.evaluate(q, r, [spec], settings=Settings(trec_version=version,
                                                                **options))[0]
        values.update(ev.per_query)
    return values, ev.ranked


def shown(values) -> tuple:
    """Per-query values as trec_eval prints them: %6.4f, "nan" for NaN, ints as ints."""
    out = []
    for v in np.asarray(values).tolist():
        if isinstance(v, int):
            out.append(str(v))
        elif math.isnan(v):
            out.append("nan")
        else:
            out.append(f"{v:.4f}")
    return tuple(out)


def run_lines(*docs) -> str:
    """A run of query 1: each (docno, score)."""
    return "".join(f"1 Q0 {d} 1 {s} t\n" for d, s in docs)


def qrels_lines(**grades) -> str:
    return "".join(f"1 0 {d} {g}\n" for d, g in grades.items())


VERSIONS = pytest.mark.parametrize("version", [9, 10])


# =========================================================================== 1. set_F.x

@VERSIONS
def test_set_f_weighs_with_x_not_its_square(version):
    """(x+1)PR/(xP+R): a, b relevant, a retrieved: P = 1, R = 0.5."""
    got, _ = evaluate(qrels_lines(a=1, b=1), run_lines(("a", 1.0)),
                      ["set_F.0.5", "set_F.3", "set_F"], version)
    assert shown(got["set_F_0.5"]) == ("0.7500",)      # the squared weighting: 0.8333
    assert shown(got["set_F_3"]) == ("0.5714",)
    assert shown(got["set_F"]) == ("0.6667",)


@VERSIONS
def test_set_f_negative_x_divides_as_c_does(version):
    qrels = qrels_lines(a=1, b=1)
    got, _ = evaluate(qrels, run_lines(("a", 1), ("c", 0.5)), ["set_F.-1"], version)
    assert shown(got["set_F_-1"]) == ("nan",)            # 0 * P * R / (R - P), P = R
    got, _ = evaluate(qrels, run_lines(("a", 1), ("c", 0.5), ("d", 0.4)), ["set_F.-0.5"],
                      version)
    assert shown(got["set_F_-0.5"]) == ("0.2500",)


# =========================================================================== 4. gains < 1 apart

GRADED = qrels_lines(a=1, b=2, c=0)
A_FIRST = run_lines(("a", 1.0), ("b", 0.5))
B_FIRST = run_lines(("a", 0.5), ("b", 1.0))


@VERSIONS
@pytest.mark.parametrize("spec,a_first,b_first", [
    # trec_eval's sort leaves gain 0.5 below grade 0 (they compare equal), so the ideal
    # ranking ends at the grade-0 document: [2] instead of [2, 0.5]
    ("ndcg.1=0.5", "0.8809", "1.1577"),
    ("ndcg_rel.1=0.5", "0.2500", "1.0000"),
    ("Rndcg.1=0.5", "0.2500", "1.0000"),
    ("G.1=0.5", "0.8948", "1.1891"),
    # pair gains are doubles: 0.99999999 is not 1 (float32 would make it 1)
    ("ndcg.1=0.99999999", "1.1309", "1.3155"),
])
def test_gains_less_than_one_apart_keep_trec_eval_order(version, spec, a_first, b_first):
    for run, want in ((A_FIRST, a_first), (B_FIRST, b_first)):
        got, _ = evaluate(GRADED, run, [spec], version)
        (values,) = got.values()
        assert shown(values) == (want,), spec


@VERSIONS
def test_gains_of_unjudged_documents(version):
    """A pair for -1 gives documents absent from the qrels that gain (trec_eval 10.0 too)."""
    got, _ = evaluate(qrels_lines(a=1, b=0, c=-1),
                      run_lines(("a", 1.0), ("x", 2.0), ("c", 0.5)), ["ndcg.-1=2"], version)
    assert shown(got["ndcg_-1=2"]) == ("2.6309",)


def test_glibc_merge_sort_of_the_gain_table():
    from smarteval.measures.gains import sorted_table
    # pairs first, then the levels not named; counted marks the entry holding the count
    assert sorted_table(((1, 0.5),), 3) == ((1, 0.5, True), (0, 0.0, True), (2, 2.0, True))
    assert sorted_table(((2, 2.7), (0, 1.5)), 2) == (
        (0, 1.5, True), (1, 1.0, True), (2, 2.7, False))
    assert sorted_table((), 3) == ((0, 0.0, True), (1, 1.0, True), (2, 2.0, True))


# =========================================================================== 5. -l 0 and below

#: query 1: a 1, b 0, c judged -1, d 2 (not retrieved); query 2: x 0, y 1
LEVEL_QRELS = ("1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 d 2\n2 0 x 0\n2 0 y 1\n")
#: query 1 ranks c (-2), e (-1), a (1), b (0), f (-1); query 2 ranks z (-1), x (0), y (1)
LEVEL_RUN = ("1 Q0 a 1 1.0 t\n1 Q0 b 1 0.5 t\n1 Q0 c 1 3 t\n1 Q0 e 1 2.5 t\n"
             "1 Q0 f 1 0.1 t\n2 Q0 x 1 1 t\n2 Q0 z 1 2 t\n2 Q0 y 1 0.2 t\n")

#: (trec_eval version, -l) -> {output: (query 1, query 2)}
AT_LEVEL = {
    (9, -2): {
        'num_rel': ('3', '2'),
        'num_rel_ret': ('2', '2'),
        'map': ('1.6667', '1.5000'),
        'Rprec': ('1.0000', '1.0000'),
        'bpref': ('0.6667', '1.0000'),
        'recip_rank': ('1.0000', '1.0000'),
        'iprec_at_recall_0.00': ('0.4000', '0.6667'),
        'iprec_at_recall_0.50': ('0.4000', '0.6667'),
        'iprec_at_recall_0.80': ('0.0000', '0.6667'),
        'P_5': ('1.0000', '0.6000'),
        'infAP': ('0.4167', '0.5833'),
        'Rprec_mult_0.20': ('0.0000', '0.0000'),
        'Rprec_mult_1.20': ('0.2500', '0.6667'),
        'Rprec_mult_2.00': ('0.3333', '0.5000'),
        'utility': ('-1.0000', '1.0000'),
        '11pt_avg': ('0.2909', '0.6667'),
        'binG': ('1.6667', '1.5000'),
        'Rndcg': ('0.0633', '0.2500'),
        'set_P': ('0.4000', '0.6667'),
        'set_relative_P': ('0.6667', '1.0000'),
        'set_recall': ('0.6667', '1.0000'),
        'set_map': ('0.2667', '0.6667'),
        'set_F': ('0.5000', '0.8000'),
        'num_nonrel_judged_ret': ('0', '0'),
    },
    (9, -1): {
        'num_rel': ('3', '2'),
        'num_rel_ret': ('2', '2'),
        'map': ('0.9056', '1.5000'),
        'Rprec': ('0.6667', '1.0000'),
        'bpref': ('0.6667', '1.0000'),
        'recip_rank': ('0.5000', '1.0000'),
        'iprec_at_recall_0.00': ('0.4000', '0.6667'),
        'iprec_at_recall_0.50': ('0.4000', '0.6667'),
        'iprec_at_recall_0.80': ('0.0000', '0.6667'),
        'P_5': ('0.8000', '0.6000'),
        'infAP': ('0.4167', '0.5833'),
        'Rprec_mult_0.20': ('0.0000', '0.0000'),
        'Rprec_mult_1.20': ('0.2500', '0.6667'),
        'Rprec_mult_2.00': ('0.3333', '0.5000'),
        'utility': ('-1.0000', '1.0000'),
        '11pt_avg': ('0.2909', '0.6667'),
        'binG': ('0.8412', '1.5000'),
        'Rndcg': ('0.0633', '0.2500'),
        'set_P': ('0.4000', '0.6667'),
        'set_relative_P': ('0.6667', '1.0000'),
        'set_recall': ('0.6667', '1.0000'),
        'set_map': ('0.2667', '0.6667'),
        'set_F': ('0.5000', '0.8000'),
        'num_nonrel_judged_ret': ('0', '0'),
    },
    (9, 0): {
        'num_rel': ('3', '2'),
        'num_rel_ret': ('2', '2'),
        'map': ('0.2778', '0.5833'),
        'Rprec': ('0.3333', '0.5000'),
        'bpref': ('0.6667', '1.0000'),
        'recip_rank': ('0.3333', '0.5000'),
        'iprec_at_recall_0.00': ('0.5000', '0.6667'),
        'iprec_at_recall_0.50': ('0.5000', '0.6667'),
        'iprec_at_recall_0.80': ('0.0000', '0.6667'),
        'P_5': ('0.4000', '0.4000'),
        'infAP': ('0.4167', '0.5833'),
        'Rprec_mult_0.20': ('0.0000', '0.0000'),
        'Rprec_mult_1.20': ('0.5000', '0.6667'),
        'Rprec_mult_2.00': ('0.3333', '0.5000'),
        'utility': ('-1.0000', '1.0000'),
        '11pt_avg': ('0.3636', '0.6667'),
        'binG': ('0.3333', '0.6309'),
        'Rndcg': ('0.0633', '0.2500'),
        'set_P': ('0.4000', '0.6667'),
        'set_relative_P': ('0.6667', '1.0000'),
        'set_recall': ('0.6667', '1.0000'),
        'set_map': ('0.2667', '0.6667'),
        'set_F': ('0.5000', '0.8000'),
        'num_nonrel_judged_ret': ('0', '0'),
    },
    (10, -2): {
        'num_rel': ('3', '2'),
        'num_rel_ret': ('2', '2'),
        'map': ('1.6667', '1.5000'),
        'Rprec': ('1.0000', '1.0000'),
        'bpref': ('0.6667', '1.0000'),
        'recip_rank': ('1.0000', '1.0000'),
        'iprec_at_recall_0.00': ('0.4000', '0.6667'),
        'iprec_at_recall_0.50': ('0.4000', '0.6667'),
        'iprec_at_recall_0.80': ('0.4000', '0.6667'),
        'P_5': ('1.0000', '0.6000'),
        'infAP': ('0.4167', '0.5833'),
        'Rprec_mult_0.20': ('0.0000', '0.0000'),
        'Rprec_mult_1.20': ('0.2500', '0.6667'),
        'Rprec_mult_2.00': ('0.3333', '0.5000'),
        'utility': ('-1.0000', '1.0000'),
        '11pt_avg': ('0.3273', '0.6667'),
        'binG': ('1.6667', '1.5000'),
        'Rndcg': ('0.0633', '0.2500'),
        'set_P': ('0.4000', '0.6667'),
        'set_relative_P': ('0.6667', '1.0000'),
        'set_recall': ('0.6667', '1.0000'),
        'set_map': ('0.2667', '0.6667'),
        'set_F': ('0.5000', '0.8000'),
        'num_nonrel_judged_ret': ('0', '0'),
    },
    (10, -1): {
        'num_rel': ('3', '2'),
        'num_rel_ret': ('2', '2'),
        'map': ('0.9056', '1.5000'),
        'Rprec': ('0.6667', '1.0000'),
        'bpref': ('0.6667', '1.0000'),
        'recip_rank': ('0.5000', '1.0000'),
        'iprec_at_recall_0.00': ('0.4000', '0.6667'),
        'iprec_at_recall_0.50': ('0.4000', '0.6667'),
        'iprec_at_recall_0.80': ('0.4000', '0.6667'),
        'P_5': ('0.8000', '0.6000'),
        'infAP': ('0.4167', '0.5833'),
        'Rprec_mult_0.20': ('0.0000', '0.0000'),
        'Rprec_mult_1.20': ('0.2500', '0.6667'),
        'Rprec_mult_2.00': ('0.3333', '0.5000'),
        'utility': ('-1.0000', '1.0000'),
        '11pt_avg': ('0.3273', '0.6667'),
        'binG': ('0.8412', '1.5000'),
        'Rndcg': ('0.0633', '0.2500'),
        'set_P': ('0.4000', '0.6667'),
        'set_relative_P': ('0.6667', '1.0000'),
        'set_recall': ('0.6667', '1.0000'),
        'set_map': ('0.2667', '0.6667'),
        'set_F': ('0.5000', '0.8000'),
        'num_nonrel_judged_ret': ('0', '0'),
    },
    (10, 0): {
        'num_rel': ('3', '2'),
        'num_rel_ret': ('2', '2'),
        'map': ('0.2778', '0.5833'),
        'Rprec': ('0.3333', '0.5000'),
        'bpref': ('0.6667', '1.0000'),
        'recip_rank': ('0.3333', '0.5000'),
        'iprec_at_recall_0.00': ('0.5000', '0.6667'),
        'iprec_at_recall_0.50': ('0.5000', '0.6667'),
        'iprec_at_recall_0.80': ('0.5000', '0.6667'),
        'P_5': ('0.4000', '0.4000'),
        'infAP': ('0.4167', '0.5833'),
        'Rprec_mult_0.20': ('0.0000', '0.0000'),
        'Rprec_mult_1.20': ('0.5000', '0.6667'),
        'Rprec_mult_2.00': ('0.3333', '0.5000'),
        'utility': ('-1.0000', '1.0000'),
        '11pt_avg': ('0.4091', '0.6667'),
        'binG': ('0.3333', '0.6309'),
        'Rndcg': ('0.0633', '0.2500'),
        'set_P': ('0.4000', '0.6667'),
        'set_relative_P': ('0.6667', '1.0000'),
        'set_recall': ('0.6667', '1.0000'),
        'set_map': ('0.2667', '0.6667'),
        'set_F': ('0.5000', '0.8000'),
        'num_nonrel_judged_ret': ('0', '0'),
    },
}


@pytest.mark.parametrize("version,level", sorted(AT_LEVEL))
def test_level_zero_and_below(version, level):
    """num_rel_ret counts judged documents only; the rank-by-rank loops count every code
    at or above the level, unjudged ones included."""
    want = AT_LEVEL[version, level]
    got, _ = evaluate(LEVEL_QRELS, LEVEL_RUN, ["all_trec"], version, rel_level=level)
    for name, values in want.items():
        assert shown(got[name]) == values, name


# =========================================================================== 6. 0 / 0 is NaN

@pytest.mark.parametrize("version,nan_levels", [(9, ("0.00",)), (10, ("0.00", "0.10",
                                                                      "0.20"))])
def test_empty_ranking_under_max_docs_0(version, nan_levels):
    """-M 0: interpolated precision at a level of 0 relevant documents is 0/0."""
    got, _ = evaluate(LEVEL_QRELS, LEVEL_RUN, ["iprec_at_recall", "11pt_avg", "Rprec_mult"],
                      version, max_docs=0)
    for name, values in got.items():
        if name.startswith("iprec_at_recall"):
            nan = name.removeprefix("iprec_at_recall_") in nan_levels
            assert shown(values)[0] == ("nan" if nan else "0.0000"), name
        elif name == "11pt_avg":
            assert shown(values) == ("nan", "nan")
        else:
            assert shown(values) == ("0.0000", "0.0000"), name
    # 10.0 rounds 0.3 * 3 relevant to 1, 9.0.8 adds 0.9 and truncates to 1 as well; query
    # 2 has 2 relevant: 10.0 rounds 0.2 * 2 and 0.4 * 2 to 0
    if version == 10:
        assert shown(got["iprec_at_recall_0.40"]) == ("0.0000", "nan")


@pytest.mark.parametrize("version,want", [(9, ("nan", "0.0000", "0.0000", "nan")),
                                          (10, ("nan", "nan", "0.0000", "nan"))])
def test_judged_only_leaving_nothing(version, want):
    got, _ = evaluate(LEVEL_QRELS, "1 Q0 a 1 1.0 t\n2 Q0 z 1 2 t\n",
                      ["iprec_at_recall.0,0.1,0.5", "11pt_avg"], version, judged_only=True)
    names = ["iprec_at_recall_0.00", "iprec_at_recall_0.10", "iprec_at_recall_0.50",
             "11pt_avg"]
    assert tuple(shown(got[n])[1] for n in names) == want
    assert shown(got["11pt_avg"])[0] == ("0.5455" if version == 9 else "0.7273")


def test_query_added_by_complete_is_not_evaluated_by_9():
    got, _ = evaluate(LEVEL_QRELS, "1 Q0 a 1 1.0 t\n", ["iprec_at_recall.0", "11pt_avg"], 9,
                      complete=True)
    assert shown(got["iprec_at_recall_0.00"]) == ("1.0000", "0.0000")
    assert shown(got["11pt_avg"]) == ("0.5455", "0.0000")


@VERSIONS
def test_eleven_point_levels_out_of_order(version):
    """trec_eval walks the levels from the last; one larger than the one after it, and
    every level before it, take the precision at the top of the walk."""
    got, _ = evaluate(LEVEL_QRELS, LEVEL_RUN, ["11pt_avg.0.5,0.1,1", "11pt_avg.1,0.3,0.5"],
                      version)
    assert shown(got["11pt_avg_0.5,0.1,1"]) == ("0.2222", "0.3333")
    assert shown(got["11pt_avg_1,0.3,0.5"]) == ("0.3333", "0.3333")


# =========================================================================== 10. set_map

@VERSIONS
def test_set_map_is_one_division(version):
    """3 of 8 retrieved relevant, 20 relevant: 9/160 = 0.05625 prints 0.0563; P·R rounds
    to 0.056249999... and prints 0.0562."""
    qrels = "".join(f"1 0 r{i} 1\n" for i in range(20))
    run = run_lines(*((f"r{i}" if i < 3 else f"n{i}", 10 - i) for i in range(8)))
    got, _ = evaluate(qrels, run, ["set_map", "set_P", "set_recall"], version)
    assert shown(got["set_map"]) == ("0.0563",)
    assert shown(got["set_P"]) == ("0.3750",) and shown(got["set_recall"]) == ("0.1500",)


# =========================================================================== 12. dcg, ideal_dcg

def test_dcg_and_ideal_dcg():
    got, _ = evaluate(GRADED, A_FIRST, ["dcg", "ideal_dcg", "dcg.1=0.5", "ideal_dcg.1=0.5"],
                      10)
    assert shown(got["dcg"]) == ("2.2619",)
    assert shown(got["ideal_dcg"]) == ("2.6309",)
    assert shown(got["dcg_1=0.5"]) == ("1.7619",)
    assert shown(got["ideal_dcg_1=0.5"]) == ("2.0000",)


def test_dcg_measures_are_10_only_and_in_no_nickname():
    for name in ("dcg", "ideal_dcg"):
        m = all_measures()[name]
        assert m.versions == frozenset({10}) and m.params == "gains"
        for version in (9, 10):
            assert all(name not in names for names in nicknames(version).values())
    names = list(all_measures())
    # trec_eval 10.0's measure order, which is its printing order
    assert names.index("G") < names.index("dcg") < names.index("ideal_dcg") < names.index(
        "ndcg")
    from smarteval.errors import UsageError
    with pytest.raises(UsageError):
        evaluate(GRADED, A_FIRST, ["dcg"], 9)


# =========================================================================== 13. Rndcg

@VERSIONS
def test_rndcg_without_a_positive_gain_is_nan(version):
    got, _ = evaluate(qrels_lines(a=1, b=0), run_lines(("a", 1.0), ("x", 2.0)),
                      ["Rndcg.1=0", "Rndcg"], version)
    assert shown(got["Rndcg_1=0"]) == ("nan",)
    assert shown(got["Rndcg"]) == ("0.0000",)
    # the sample at num_ret: (1/log2(3)) / 1 and 0 at the ideal's end, averaged
    got, _ = evaluate(qrels_lines(a=1, b=0), run_lines(("a", 1.0), ("x", 2.0), ("y", 0.5),
                                                       ("z", 0.2)), ["Rndcg"], version)
    assert shown(got["Rndcg"]) == ("0.3155",)


# =========================================================================== rbp, rbp_resid

#: a 1, b 0, c judged -1; the run ranks x (absent from the qrels), a, c
RBP_QRELS = qrels_lines(a=1, b=0, c=-1)
RBP_RUN = run_lines(("a", 1.0), ("x", 2.0), ("c", 0.5))


@pytest.mark.parametrize("name,pairs,want", [
    ("rbp", (), "0.0900"),
    ("rbp", (("p", 0.5),), "0.2500"),
    ("rbp", (("p", 0.8), (1, 3.0)), "0.1600"),      # gains 0..3 scaled to [0, 1]
    ("rbp", ((0, 1.2),), "0.0750"),                 # scaled over [0, 1.2]: 0 is in the range
    ("rbp_resid", (), "0.9100"),
    ("rbp_resid", (("p", 0.5),), "0.7500"),
])
def test_rbp_persistence_and_gains(name, pairs, want):
    """The measure functions with their parsed pairs (rbp.p=0.5 is ("p", 0.5))."""
    _, ranked = evaluate(RBP_QRELS, RBP_RUN, ["num_ret"], 10)
    out = Output(name, lookup(name), pairs)
    assert shown(out.compute(ranked)) == (want,)


# =========================================================================== oracle, -l <= 0

QIDS = ["1", "2", "3"]
DOCS = [f"d{i}" for i in range(8)]
GAIN_SPECS = ["ndcg.1=0.5", "ndcg.0=1.5,2=0.75", "ndcg_rel.2=2.7,0=1.5", "Rndcg.-1=3,1=0.9",
              "Rndcg.1=0", "G.0=5,-1=2.7,2=-1", "G.1=0.5,3=0.25", "ndcg.1=0.9,-1=-1",
              "set_F.0.25", "set_F.2", "11pt_avg.0.5,0.1,1", "Rprec_mult.0.4,1.5"]
GAIN_SPECS_10 = ["dcg.1=0.5,2=3", "ideal_dcg.0=1.5,2=0.75", "rbp.1=0.5,3=2"]

qrels_st = st.dictionaries(
    st.sampled_from(QIDS),
    st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=7),
    min_size=1, max_size=3)
run_st = st.dictionaries(
    st.sampled_from(QIDS),
    st.dictionaries(st.sampled_from(DOCS + ["u1", "u2"]), st.sampled_from([0.0, 1.0, 2.0, 0.5]),
                    min_size=1, max_size=9), min_size=1, max_size=3)


#: trec_eval's own measures with a trec_eval oracle, and the gain variants above
LOW_LEVEL_SPECS = [n for n, m in all_measures().items()
                   if m.origin == "trec" and n in ORACLES and ORACLES[n].source == "trec"]


def _first_judged(case) -> bool:
    """A query shared by run and qrels, the first of them judged at 0 or more: a query
    judged only -1 (num_rel 0: map and binG inf under -l -1) may come later, but trec_eval
    cannot evaluate it first."""
    shared = sorted(set(case[0]) & set(case[1]))
    return bool(shared) and max(case[0][shared[0]].values()) >= 0


def _ranked_low(case):
    """One example ranked at its (low) level, and each query as the oracle sees it."""
    qrels, run, level, judged, max_docs, version = case
    qtext = "".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items())
    rtext = "".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, ds in run.items() for d, s in ds.items())
    _, ranked = evaluate(qtext, rtext, ["num_ret"], version, rel_level=level,
                         judged_only=judged, max_docs=max_docs)
    queries = []
    for qid in ranked.qids:
        codes, keys = rank_query_keys(run[qid], qrels[qid], max_docs=max_docs,
                                      judged_only=judged, float32=version == 9)
        queries.append(Query(codes, list(qrels[qid].values()), keys))
    return ranked, queries


@pytest.mark.parametrize("name", LOW_LEVEL_SPECS + GAIN_SPECS + GAIN_SPECS_10)
def test_measures_at_low_levels_and_odd_gains_match_oracle(name, shared):
    test = "test_measures_at_low_levels_and_odd_gains_match_oracle"
    cases = shared.cases(test, st.tuples(
        qrels_st, run_st, st.integers(-2, 1), st.booleans(),
        st.one_of(st.none(), st.integers(0, 4)), st.sampled_from([9, 10]))
        .filter(_first_judged), 80)
    for i, case in enumerate(cases):
        level, version = case[2], case[5]
        if name in GAIN_SPECS_10 and version != 10 or \
                name in all_measures() and version not in all_measures()[name].versions:
            continue
        ranked, queries = shared.value((test, i), _ranked_low, case)
        ctx = Context(level=level, v10=version == 10, tag="t")
        for out in outputs(name, version):
            got = out.compute(ranked)
            for qid, q, g in zip(ranked.qids, queries, got):
                want = expected(out, q, ctx)
                assert close(g, want, ORACLES[out.measure.name].rtol), \
                    (out.name, qid, g, want, q, case)


def test_gain_measures_past_a_fractional_ideal_ranking(tmp_path):
    """G adds a cost of 1 a rank past the ideal ranking; with fractional ideal gains
    (total 3.7) it adds them one by one as trec_eval's loop does. Printed by trec_eval
    9.0.8 on the same files."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 2\n1 0 c 0\n2 0 a 1\n")
    (tmp_path / "r").write_text(
        "1 Q0 x 1 9 r\n1 Q0 y 2 8 r\n1 Q0 c 3 7 r\n1 Q0 z 4 6 r\n1 Q0 a 5 5 r\n"
        "1 Q0 w 6 4 r\n1 Q0 b 7 3 r\n2 Q0 q 1 3 r\n2 Q0 a 2 2 r\n")
    from click.testing import CliRunner

    from smarteval.cli import main
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-q", "-m", "G.1=0.3,2=2.7",
                                    "-m", "ndcg_rel.1=0.3,2=2.7", "-m", "Rndcg.1=0.3,2=2.7",
                                    str(tmp_path / "q"), str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert res.stdout == (
        "G_1=0.3,2=2.7         \t1\t0.3758\nndcg_rel_1=0.3,2=2.7  \t1\t0.0430\n"
        "Rndcg_1=0.3,2=2.7     \t1\t0.1882\nG_1=0.3,2=2.7         \t2\t0.5298\n"
        "ndcg_rel_1=0.3,2=2.7  \t2\t0.6309\nRndcg_1=0.3,2=2.7     \t2\t0.0000\n"
        "G_1=0.3,2=2.7         \tall\t0.4528\nndcg_rel_1=0.3,2=2.7  \tall\t0.3370\n"
        "Rndcg_1=0.3,2=2.7     \tall\t0.0941\n")


@given(st.integers(1, 200), st.integers(0, 2**32 - 1), st.sampled_from([0.02, 0.5, 0.95]))
@settings(max_examples=examples(200), deadline=None)
def test_marked_before_counts_both_ways(n, seed, density):
    """Counts of marked rows before given rows (from each one's query start) are the
    brute-force counts, whether the marked rows are few (binary search) or many (prefix)."""
    from smarteval.columns import marked_before
    rng = np.random.default_rng(seed)
    mask = rng.random(n) < density
    rows = np.sort(rng.integers(0, n, size=min(n, 30)))
    starts = np.array([int(rng.integers(0, r + 1)) for r in rows.tolist()], dtype=np.int64)
    want = [int(mask[s:r].sum()) for s, r in zip(starts.tolist(), rows.tolist())]
    got = marked_before(mask, rows, starts)
    assert got.dtype == np.int64 and got.tolist() == want


def test_inf_where_trec_eval_divides_by_num_rel_0(tmp_path):
    """-l -1: query 2, judged only -1, retrieves an unjudged document that counts as
    relevant while num_rel is 0; trec_eval prints inf for map and binG (its outputs are
    in tests/data/golden/*.picked.jsonl). Each format shows the infinity its own way."""
    import json

    from click.testing import CliRunner

    from smarteval.cli import main
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 e -1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 x 1 1 r\n2 Q0 e 2 0.5 r\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    out = {}
    for fmt in ("trec", "json", "tsv", "smart"):
        per_query = [] if fmt == "smart" else ["-q"]
        res = CliRunner().invoke(main, ["evaluate", "-f", fmt, *per_query, "-l", "-1", "-m",
                                        "map", "-m", "binG", *files])
        assert res.exit_code == 0, res.output
        out[fmt] = res.stdout
    assert "map                   \t2\t   inf\n" in out["trec"]
    assert "binG                  \tall\t   inf\n" in out["trec"]
    got = json.loads(out["json"])[0]
    assert got["queries"]["2"] == {"map": "inf", "binG": "inf"}
    assert got["summary"] == {"map": "inf", "binG": "inf"}
    assert "r\t2\tmap\tinf\n" in out["tsv"] and "r\tall\tbinG\tinf\n" in out["tsv"]
    assert [line.split() for line in out["smart"].splitlines()[-2:]] == [["map", "inf"],
                                                                         ["binG", "inf"]]
