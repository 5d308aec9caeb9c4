"""ir_measures names against ir_measures itself: every name smarteval accepts gives its value.

The names and their parameters come from the grammar's table (IR_NAMES), so a name added
there is checked here at once. For each drawn name smarteval either computes what
ir_measures computes, per query and averaged (``-c``: ir_measures' query set), or refuses
it, and then ir_measures cannot compute it either. ir_measures is given each query's
documents in trec_eval's order: its cwl_eval provider (RBP) keeps tied documents in the
order of the run, the others sort them themselves.
"""

from __future__ import annotations

import itertools
import logging
import math

import numpy as np
import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.errors import UsageError
from smarteval.measures import all_measures, parse_measures
from smarteval.measures.grammar import IR_NAMES, IR_REFUSED
from smarteval.read.plain import read_qrels, read_run

ir_measures = pytest.importorskip("ir_measures")
logging.getLogger("ir_measures").setLevel(logging.ERROR)   # cwl_eval's notes on the grades

#: Sample values of every parameter an ir_measures name takes in the table.
PARAM_VALUES = {
    "rel": [0, 1, 2, 3],
    "judged_only": [True, False],
    "relative": [True, False],
    "beta": [0.5, 1.0, 2.0, 0.25],
    "alpha": [0.5, 0.25, 1.0, 0.0, 0.8],
    "T": [1.0, 2.0, 0.5, 3],
    "p": [0.5, 0.8, 0.95, 0.0, 1.0],
    "dcg": ["log2"],
    "gains": [{0: 0, 1: 1, 2: 3}, {1: 2, 2: 1, 3: 7}, {0: 1, 1: 2}, {2: 0}, {3: 1, 0: 0}],
    "min_rel": [0, 1, -1],
    "max_rel": [1, 2, 3, 4],
    "normalize": [True, False],
}
CUTOFFS = [1, 2, 3, 5, 10]
RECALLS = [0.0, 0.1, 0.25, 0.5, 1.0]


def _value(v) -> str:
    return repr(v) if not isinstance(v, dict) else "{" + ",".join(
        f"{k}:{g}" for k, g in v.items()) + "}"


def spellings(name: str) -> list[str]:
    """The ir_measures names of one table entry: with and without @, each parameter
    alone and in pairs at each of its sample values.

    rel=0 only where pytrec_eval does not compute the name: it refuses a relevance
    level of 0 in a way that leaves it hanging on later evaluations in the same process
    (test_pytrec_eval_names_refuse_rel_0 checks the refusal in a process of its own).
    """
    e = IR_NAMES[name]
    ats = [""]
    if e.cut:
        ats += [f"@{c}" for c in (RECALLS if e.measure == "IPrec" else CUTOFFS)]
    calls = [""]
    for n in (1, 2):
        for keys in itertools.combinations(e.params, n):
            for values in itertools.product(*(PARAM_VALUES[k] for k in keys)):
                calls.append("(" + ",".join(f"{k}={_value(v)}"
                                            for k, v in zip(keys, values)) + ")")
    return [f"{name}{c}{a}" for c in calls for a in ats
            if not ("rel=0" in c and _provider(e, a != "") == "pytrec_eval")]


def _provider(e, cut: bool) -> str:
    return e.cut_provider if cut and e.cut_provider else e.provider


#: ir_measures computes RBP with cwl_eval alone (the test extra installs it)
CWL = ir_measures.providers.registry["cwl_eval"].is_available()

#: ir_measures' providers checked in tests/test_web.py: gdeval reads only numeric query
#: ids and grades up to 4, and the accuracy provider divides by zero on some queries
ELSEWHERE = ("gdeval", "accuracy")

#: every spelling but the bare names trec_eval has too (P, Rprec, infAP), which are
#: trec_eval's measures under trec_eval's names
ALL_SPELLINGS = [s for name in IR_NAMES for s in spellings(name) if s not in all_measures()
                 and (CWL or IR_NAMES[name].provider != "cwl_eval")
                 and IR_NAMES[name].provider not in ELSEWHERE]


def test_rbp_is_checked():
    if not CWL:
        pytest.skip("cwl_eval is not installed: RBP(rel=r) goes unchecked "
                    "(pip install cwl-eval)")
    assert any(s.startswith("RBP") for s in ALL_SPELLINGS)


def test_the_table_is_ir_measures_catalogue():
    """Every ir_measures measure is computed or refused; every parameter has samples."""
    catalogue = set(ir_measures.measures.registry)
    assert set(IR_NAMES) <= catalogue
    assert set(IR_NAMES) | set(IR_REFUSED) == catalogue
    for name, e in IR_NAMES.items():
        supported = ir_measures.measures.registry[name].SUPPORTED_PARAMS
        assert set(e.params) <= set(supported), name
        assert set(e.params) <= set(PARAM_VALUES), f"add sample values for {e.params}"
        assert (e.cut is not None) <= ("cutoff" in supported or "recall" in supported), name


def test_every_table_entry_is_accepted_in_some_spelling():
    for name in IR_NAMES:
        accepted = []
        for spec in spellings(name):
            try:
                parse_measures([spec])
                accepted.append(spec)
            except UsageError:
                pass
        assert accepted, name


# =========================================================================== generated data

QIDS = ["1", "2", "10", "7b"]
DOCS = [f"d{i}" for i in range(8)] + ["D0", "é1"]
SCORES = [0.0, 0.5, 1.0, 2.0, -1.0, 3.25]       # exact in 32 bits: no 9-versus-10 ties


@st.composite
def collection(draw):
    """(qrels, run) as dicts; graded and negative grades, tied scores, and queries on one
    side only, at least one query on both (as tests/test_registry.py's)."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    qrels, run = {}, {}
    for q in qids:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            grades = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3),
                                          min_size=1, max_size=8))
            # a query judged only negatively can send pytrec_eval's nDCG into an endless
            # loop (it reads an empty gain table), so each query has a grade of 0 or more
            if all(g < 0 for g in grades.values()):
                grades[next(iter(grades))] = 0
            qrels[q] = grades
        if side != "qrels":
            run[q] = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES),
                                          min_size=1, max_size=10))
    if not set(qrels) & set(run):
        q = qids[0]
        qrels.setdefault(q, {"d0": 1})
        run.setdefault(q, {"d0": 1.0})
    return qrels, run


def trec_order(run: dict) -> dict:
    """Each query's documents as trec_eval ranks them: score descending, docno descending."""
    return {q: dict(sorted(docs.items(), key=lambda kv: (kv[1], kv[0].encode()),
                           reverse=True)) for q, docs in run.items()}


def smarteval_values(qrels: dict, run: dict, specs: list[str]):
    q = read_qrels("q", data="".join(f"{qid} 0 {d} {g}\n" for qid, docs in qrels.items()
                                     for d, g in docs.items()).encode())
    r = read_run("r", data="".join(f"{qid} Q0 {d} 0 {s!r} t\n" for qid, docs in run.items()
                                   for d, s in docs.items()).encode())
    return smarteval.evaluate(q, r, specs, complete=True)[0]


def ir_measure(spec: str):
    """ir_measures' measure for a name, as Python code builds it (its own parser reads no
    negative numbers)."""
    return eval(spec, {n: getattr(ir_measures, n) for n in ir_measures.measures.registry})


def computable(measure, qrels, run) -> bool:
    try:
        ir_measures.calc_aggregate([measure], qrels, run)
    except Exception:      # ir_measures' refusals: no provider, invalid parameters
        return False
    return True


def check(qrels: dict, run: dict, specs: list[str]) -> None:
    run = trec_order(run)
    accepted = []
    for spec in specs:
        try:
            parse_measures([spec])
        except UsageError as refusal:
            try:
                measure = ir_measure(spec)
            except Exception:       # not a valid ir_measures measure at all
                continue
            assert not computable(measure, qrels, run), (spec, str(refusal))
            continue
        accepted.append(spec)
    if not accepted:
        return
    ev = smarteval_values(qrels, run, accepted)
    # one object per measure: ir_measures' pytrec_eval provider keeps one of two measures
    # that differ only in the order of their parameters (SetRelP(rel=2) and
    # SetP(rel=2,relative=True)), and reports 0 for the other
    canonical: dict = {}
    measures = {}
    for spec in accepted:
        m = ir_measure(spec)
        key = (m.NAME, tuple(sorted((k, repr(m[k])) for k in m.SUPPORTED_PARAMS)))
        measures[spec] = canonical.setdefault(key, m)
    unique = list(dict.fromkeys(measures.values()))
    # ir_measures' pytrec_eval provider evaluates NumQ, NumRet and nDCG without gains=
    # under the settings of whichever other measure it set up first (rel=, judged_only=:
    # NumRet then counts the documents left by judged_only=True): each goes alone
    # and its pyndeval provider hands the run to the first of its invocations only (one per
    # rel=, alpha=, beta=), the others reporting 0: each diversity measure goes alone too
    alone = [m for m in unique if m.NAME == "NumQ" or (m.NAME == "NumRet" and "rel" not in
                                                         m.params)
             or (m.NAME == "nDCG" and "gains" not in m.params)
             or IR_NAMES.get(m.NAME, IR_NAMES["AP"]).provider == "pyndeval"]
    groups = [[m] for m in alone] + [[m for m in unique if m not in alone]]
    aggregate, per_query = {}, {}
    for group in filter(None, groups):
        aggregate.update(ir_measures.calc_aggregate(group, qrels, run))
        per_query.update({(m.query_id, m.measure): m.value
                          for m in ir_measures.iter_calc(group, qrels, run)})
    assert sorted(ev.qids.tolist()) == sorted(qrels)
    for spec, measure in measures.items():
        name = "".join(spec.split())
        got = ev.per_query[name]
        for i, qid in enumerate(ev.qids.tolist()):
            want = per_query[(qid, measure)]
            assert same(got[i], want), (spec, qid, float(got[i]), float(want))
        assert same(ev.summary[name], aggregate[measure]), \
            (spec, ev.summary[name], aggregate[measure])


def same(got, want) -> bool:
    """Equal to 1e-9, or both NaN (trec_eval's 0/0, which pytrec_eval passes on)."""
    got, want = float(got), float(want)
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collection(), specs=st.lists(st.sampled_from(ALL_SPELLINGS), min_size=1,
                                         max_size=40, unique=True))
def test_ir_measures_names_give_ir_measures_values(data, specs):
    qrels, run = data
    check(qrels, run, specs)


def test_each_name_once_on_fixed_data():
    """Every table entry's plain and cut-off spelling on one collection (no sampling)."""
    qrels = {"1": {"d0": 2, "d1": 0, "d2": 1, "d3": -1, "D0": 3},
             "2": {"d4": 1, "d5": 0},
             "10": {"d6": 1}}
    run = {"1": {"d0": 1.0, "d1": 1.0, "d2": 0.5, "d3": 2.0, "d7": 1.0, "é1": 0.5},
           "2": {"d5": 3.25, "d4": 0.0, "d0": 0.0},
           "7b": {"d1": 1.0}}
    specs = [s for s in ALL_SPELLINGS if "(" not in s or s.count("=") == 1]
    check(qrels, run, specs)


# =========================================================================== names and order

def test_names_are_printed_as_asked_after_trec_eval_names_in_m_order():
    qrels = {"1": {"d0": 1, "d1": 2}, "2": {"d4": 1}}
    run = {"1": {"d0": 1.0, "d1": 2.0, "d2": 0.5}, "2": {"d4": 1.0}}
    specs = ["nDCG@10", "map", "P(rel=2, judged_only=True)@5", "P.5", "Judged@2", "AP",
             "nDCG@10"]
    ev = smarteval_values(qrels, run, specs)
    assert ev.names == ["map", "P_5", "nDCG@10", "P(rel=2,judged_only=True)@5", "Judged@2",
                        "AP"]
    assert ev.summary["nDCG@10"] == ev.value("nDCG@10")
    assert ev.per_query["AP"].tolist() == ev.per_query["map"].tolist()


def test_the_command_prints_the_names_as_asked(tmp_path):
    from click.testing import CliRunner

    from smarteval.cli import main
    (tmp_path / "q").write_text("1 0 d0 1\n1 0 d1 2\n")
    (tmp_path / "r").write_text("1 Q0 d0 0 1.0 t\n1 Q0 d1 0 2.0 t\n")
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-m", "nDCG@10", "-m",
                                    "P(rel=2)@1", "-m", "map", str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert [line.split("\t")[0].rstrip() for line in res.stdout.splitlines()] == \
        ["map", "nDCG@10", "P(rel=2)@1"]


def test_ir_names_keep_their_own_relevance_level():
    """-l is a trec_eval name's; P@1 is ir_measures' P@1 (rel=1) whatever -l says."""
    q = read_qrels("q", data=b"1 0 a 1\n1 0 b 2\n")
    r = read_run("r", data=b"1 Q0 a 0 2 t\n1 Q0 b 0 1 t\n")
    ev = smarteval.evaluate(q, r, ["P@1", "P.1", "P(rel=2)@1"], rel_level=2)[0]
    assert ev.per_query["P@1"].tolist() == [1.0]
    assert ev.per_query["P_1"].tolist() == [0.0]
    assert ev.per_query["P(rel=2)@1"].tolist() == [0.0]


#: the first query judged only below 0, which trec_eval cannot evaluate
NEGATIVE_FIRST = ({"1": {"a": -1}, "2": {"b": 1}}, {"1": {"a": 1.0}, "2": {"b": 1.0}})


def test_a_first_query_judged_only_below_0_is_evaluated_by_the_other_programs(tmp_path):
    """trec_eval alone refuses it: ir_measures' names (pytrec_eval, cwl_eval, gdeval
    behind them) and ranx's are evaluated, each as its program does; a request that adds
    a trec_eval measure is refused as trec_eval would refuse it."""
    ranx = pytest.importorskip("ranx")
    from click.testing import CliRunner

    from smarteval.cli import main
    qrels, run = NEGATIVE_FIRST
    specs = ["nDCG@10", "RBP(rel=1)", "AP", "ERR@10"]
    measures = [ir_measure(s) for s in specs]
    per_query = {(m.query_id, str(m.measure)): m.value
                 for m in ir_measures.iter_calc(measures, qrels, run)}
    aggregate = {str(k): v for k, v in ir_measures.calc_aggregate(measures, qrels, run).items()}
    ev = smarteval_values(qrels, run, specs)
    for spec, m in zip(specs, measures):
        assert [same(ev.per_query[spec][i], per_query[q, str(m)])
                for i, q in enumerate(ev.qids.tolist())] == [True, True], spec
        assert same(ev.summary[spec], aggregate[str(m)]), spec
    assert ev.summary["nDCG@10"] == 0.5 and ev.summary["AP"] == 0.5
    names = ["ndcg_burges@10", "hits@10"]
    ranx_run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(qrels), ranx_run, names, return_mean=False)
    ev = smarteval_values(qrels, run, names)
    for name in names:
        assert ev.per_query[name].tolist() == [ranx_run.scores[name][q] for q in ev.qids]
    (tmp_path / "q").write_text("1 0 a -1\n2 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n")
    args = ["evaluate", "-f", "trec", str(tmp_path / "q"), str(tmp_path / "r")]
    res = CliRunner().invoke(main, [*args[:3], "-m", "nDCG@10", "-m", "RBP(rel=1)", "-m", "AP",
                                    *args[3:]])
    assert res.exit_code == 0, res.output
    assert res.stdout == ("nDCG@10               \tall\t0.5000\n"
                          "RBP(rel=1)            \tall\t0.1000\n"
                          "AP                    \tall\t0.5000\n")
    for trec_name in ("map", "ndcg_cut.10"):
        res = CliRunner().invoke(main, [*args[:3], "-m", "nDCG@10", "-m", trec_name, *args[3:]])
        assert res.exit_code == 1 and res.stdout == ""
        assert "query 1 is judged only with negative grades" in res.stderr
        assert "ask no trec_eval measure" in res.stderr


def test_pytrec_evals_first_query_judged_only_below_0_depends_on_the_process(tmp_path):
    """pytrec_eval (trec_eval 9's code) gives such a query 0 on every measure the first
    time a process ranks a query, its values when evaluated again; smarteval gives these
    (README and man page: "pytrec_eval and a first query judged only below 0")."""
    import subprocess
    import sys
    pytest.importorskip("pytrec_eval")
    script = (
        "import pytrec_eval\n"
        "qrels = {'1': {'a': -1, 'b': -1}, '2': {'a': 1}}\n"
        "run = {'1': {'a': 1.0, 'b': 0.5, 'x': 0.2}, '2': {'a': 1.0}}\n"
        "for _ in range(2):\n"
        "    ev = pytrec_eval.RelevanceEvaluator(qrels, {'num_ret', 'num_q', 'P_5'})\n"
        "    print(sorted(ev.evaluate(run)['1'].items()))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[('P_5', 0.0), ('num_q', 1.0), ('num_ret', 0.0)]",
                   "[('P_5', 0.0), ('num_q', 1.0), ('num_ret', 3.0)]"]
    (tmp_path / "q").write_text("1 0 a -1\n1 0 b -1\n2 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 0.5 r\n1 Q0 x 3 0.2 r\n"
                                "2 Q0 a 1 1.0 r\n")
    ev = smarteval.evaluate(tmp_path / "q", tmp_path / "r", ["NumRet", "NumQ", "P@5"])[0]
    assert ev.qids.tolist() == ["1", "2"]
    assert [ev.per_query[n][0] for n in ("NumRet", "NumQ", "P@5")] == [3, 1, 0]


def test_pytrec_eval_names_refuse_rel_0():
    """smarteval refuses rel=0 where ir_measures computes with pytrec_eval, which refuses it."""
    import subprocess
    import sys
    pytrec_names = [n for n, e in IR_NAMES.items() if "rel" in e.params
                    and e.provider == "pytrec_eval" and n != "NumRel"]
    for name in pytrec_names:
        at = "" if IR_NAMES[name].plain else "@0.5" if name == "IPrec" else "@5"
        spec = f"{name}(rel=0){at}"
        with pytest.raises(UsageError, match="refuses rel=0"):
            parse_measures([spec])
    code = ("import ir_measures as m\n"
            "m.calc_aggregate([m.AP(rel=0)], {'1': {'a': 1}}, {'1': {'a': 1.0}})\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode != 0 and "relevance_level should be positive" in res.stderr


@pytest.mark.parametrize("spec,reason", [
    ("RBP", "only with rel="),
    ("RBP@10", "no provider"),
    ("NumRel(rel=2)", "rel=1 only"),
    ("RR(judged_only=True)@10", "msmarco"),
    ("nDCG(dcg='exp-log2')", "ranx"),
    ("nDCG(dcg='exp-log2',judged_only=True)@10", "judged_only"),
    ("ERR", "cut-off"),
    ("err@10", "no err"),
    ("SDCG@5", "max_rel"),
    ("SDCG(max_rel=2,min_rel=2)@5", "below"),
    ("Compat(p=1.5)", "from 0 to 1"),
    ("Compat(normalize=2)", "True or False"),
    ("Compat@10", "no @k"),
    ("nDCG(rel=2)@10", "not rel="),
    ("IPrec@0.123", "write IPrec@0.12"),
    ("P", None),                      # trec_eval's P, not a refusal
    ("P@2.5", "whole number"),
    ("alpha_nDCG@25", "up to 20"),
    ("nDCG(gains={-1:1})", "grades of 0 or more"),
    ("nDCG(gains={1:0.5})", "whole numbers"),
    ("nDCG(gains={1:-1})", "loop forever"),
])
def test_refusals_say_why(spec, reason):
    if reason is None:
        parse_measures([spec])
        return
    with pytest.raises(UsageError, match=reason):
        parse_measures([spec])


def test_compat_ideal_ties_follow_the_run_then_the_qrels_lines():
    """Compat's ideal ranking: grade, then the run's score (0 when not retrieved, above a
    negative one), then the qrels' line order; its ranking ties go docno ascending."""
    qrels = {"1": {"c": 1, "b": 1, "a": 2, "e": 1, "d": 1, "z": 0}}
    run = {"1": {"b": 1.0, "ba": 1.0, "bb": 1.0, "c": 1.0, "d": -1.0, "x": 1.0, "a": 0.0}}
    specs = ["Compat", "Compat(p=0.5)", "Compat(normalize=False)", "Compat(p=0.8,normalize=False)"]
    check(qrels, run, specs)
    swapped = {"1": dict(reversed(list(qrels["1"].items())))}
    check(swapped, run, specs)
    a = smarteval_values(qrels, run, ["Compat(p=0.5)"]).per_query["Compat(p=0.5)"][0]
    b = smarteval_values(swapped, run, ["Compat(p=0.5)"]).per_query["Compat(p=0.5)"][0]
    assert a != b                           # the line order decides a tie


def test_ties_straddling_the_cut_off_go_in_ir_measures_order():
    """RR@k and Judged@k read tied documents docno ascending, as ir_measures' providers."""
    qrels = {"1": {"b": 1, "c": 0}}
    run = {"1": {"a": 2.0, "b": 1.0, "c": 1.0}}
    ev = smarteval_values(qrels, run, ["RR@2", "RR", "Judged@2"])
    # ir_measures: a, b, c (RR@2 = 1/2); trec_eval: a, c, b (recip_rank = 1/3)
    assert ev.per_query["RR@2"].tolist() == [0.5]
    assert ev.per_query["RR"].tolist() == [pytest.approx(1 / 3)]
    assert ev.per_query["Judged@2"].tolist() == [0.5]
    check(qrels, run, ["RR@2", "RR", "Judged@2"])


def test_average_over_ties_is_order_free_for_rbp_bin():
    q = read_qrels("q", data=b"1 0 a 1\n1 0 b 0\n1 0 c 2\n")
    tied = read_run("r", data=b"1 Q0 a 0 1 t\n1 Q0 b 0 1 t\n1 Q0 c 0 1 t\n")
    want = []
    for perm in itertools.permutations("abc"):
        r = read_run("r", data="".join(f"1 Q0 {d} 0 {9 - i} t\n"
                                       for i, d in enumerate(perm)).encode())
        want.append(smarteval.evaluate(q, r, ["RBP(rel=1,p=0.5)"])[0].summary["RBP(rel=1,p=0.5)"])
    got = smarteval.evaluate(q, tied, ["RBP(rel=1,p=0.5)"], ties="average")[0]
    assert got.summary["RBP(rel=1,p=0.5)"] == pytest.approx(np.mean(want))
