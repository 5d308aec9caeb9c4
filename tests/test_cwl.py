"""C/W/L measures against cwl_eval's own classes: every quantity it reports, with residuals.

Each query's grades go to cwl_eval as gains in rank order (tests/cwl_oracle.py); smarteval
computes all queries at once (:func:`cwl_values`), per query to 1e-9.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from cwl_oracle import cwl_query
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from smart_helpers import make_ranked

from smarteval.cli import main
from smarteval.errors import UsageError
from smarteval.measures import parse_measures
from smarteval.measures.cwl import QUANTITIES, CwlInputs, Keyed, cwl_values

pytest.importorskip("cwl")

KINDS = {"INST": [(1.0,), (2.0,), (0.5,)], "INSQ": [(1.0,), (2.5,)],
         "TBG": [(224.0,), (3.0,)], "U-measure": [(1000.0,), (5.0,), (2.0,)],
         "BPM": [(1.0, 10.0), (2.0, 3.0), (0.5, 1.0)], "NERR8": [(10.0,), (1.0,), (3.0,)],
         "NERR9": [(10.0,), (2.0,)], "NERR10": [(0.9,), (0.5,), (1.0,)],
         "NERR11": [(1.0,), (2.0,)], "RBP": [(0.9,), (0.5,)],
         "BPM-Dynamic": [(1.0, 10.0, 1.0, 1.0, 0.5), (1.2, 4.0, 0.5, 2.0, 0.25)],
         "IFT-C1": [(2.0, 0.9, 10.0), (1.0, 0.5, 1.0)], "IFT-C2": [(0.2, 0.9, 10.0)],
         "IFT-C1-C2": [(2.0, 0.9, 10.0, 2.0, 0.9, 10.0), (1.0, 0.5, 2.0, 0.3, 0.8, 1.0)],
         "P": [(10.0,), (1.0,), (3.0,)], "NDCG": [(10.0,), (1.0,), (4.0,)], "RR": [()],
         "AP": [()]}


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lists=st.lists(st.lists(st.sampled_from([-2, -1, 0, 1, 2, 3]), max_size=25),
                      min_size=1, max_size=3),
       kind=st.sampled_from(sorted(KINDS)), data=st.data(),
       gain_range=st.sampled_from([(), (0.0, 1.0), (0.0, 3.0), (1.0, 3.0), (-1.0, 2.0)]))
def test_quantities_and_residuals_match_cwl_eval(lists, kind, data, gain_range):
    own = data.draw(st.sampled_from(KINDS[kind]))
    params = (*own, *gain_range)
    got = cwl_values(make_ranked(lists), kind, params, residuals=True)
    for q, codes in enumerate(lists):
        for name in QUANTITIES + tuple(f"Res{k}" for k in QUANTITIES):
            want = cwl_query(codes, kind, params, name, residuals=True)
            assert math.isclose(got[name][q], want, rel_tol=1e-9, abs_tol=1e-12), \
                (kind, params, name, codes, got[name][q], want)


def test_rankings_past_1000_are_cut():
    r = make_ranked([[0] * 1000 + [1], [1] + [0] * 1200])
    got = cwl_values(r, "INSQ", ())
    assert got["EU"][0] == 0.0
    assert got["EU"][1] == pytest.approx(cwl_query([1], "INSQ", ()), rel=1e-12)


def test_the_value_is_the_expected_utility():
    r = make_ranked([[1, 0, 2, -1], [0, 0]])
    for name in ("INST", "INSQ.2", "TBG.5", "U-measure.3,0,2", "BPM.2,3", "NERR8.2,0,3",
                 "NERR9", "NERR10.0.5", "NERR11.2"):
        (out,) = parse_measures([name])[0].outputs()
        kind = name.split(".")[0]
        params = tuple(float(v) for v in name.split(".", 1)[1].split(",")) \
            if "." in name else out.measure.default
        assert out.compute(r).tolist() == cwl_values(r, kind, params)["EU"].tolist()


@pytest.mark.parametrize("spec,reason", [
    ("INST.1,3,3", "min_rel below max_rel"),
    ("TBG.0", "above 0"),
])
def test_refusals(spec, reason):
    r = make_ranked([[1]])
    with pytest.raises(UsageError, match=reason):
        for out in parse_measures([spec])[0].outputs():
            out.compute(r)


@pytest.mark.parametrize("spec,reason", [
    ("INST", None),                          # the registry's INST, cwl_eval's defaults
    ("INST(T=2.0)", "needs max_rel="),
    ("INSQ(T=2,max_rel=3)", "decimal point"),
    ("INST(min_rel=3,max_rel=1)", "below max_rel"),
])
def test_ir_names(spec, reason):
    if reason is None:
        parse_measures([spec])
        return
    with pytest.raises(UsageError, match=reason):
        parse_measures([spec])


# =========================================================================== costs, gains

_GAINS = [-1, 0, 1, 0.25, 0.5, 1.0, 1.5, -0.5]        # -1 (int): not in the qrels
_COSTS = [math.nan, 0.5, 1.0, 2.0, 3.5]                # NaN: an element type without a cost


def _with_inputs(docs: list[list[tuple]], default_cost: float):
    """A ranking of ``docs`` (each query's (gain, cost) pairs in rank order) carrying
    cwl_eval's fractional gains and element costs, as the evaluation stage gives them."""
    r = make_ranked([[-1 if g == -1 and isinstance(g, int) else 0 for g, _ in q]
                     for q in docs])
    keep = np.array([not (g == -1 and isinstance(g, int)) for q in docs for g, _ in q],
                    dtype=bool)
    qindex = np.repeat(np.arange(len(docs)), [len(q) for q in docs])
    counts = np.bincount(qindex[keep], minlength=len(docs))
    gains = np.array([float(g) for q in docs for g, _ in q])
    costs = np.array([c for q in docs for _, c in q], dtype=float)
    return replace(r, cwl=CwlInputs(
        gains=Keyed(r.qids, np.concatenate(([0], np.cumsum(counts))), r.docno[keep],
                    gains[keep]),
        costs=Keyed(r.qids, r.offsets, r.docno, costs), default_cost=default_cost))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(st.lists(st.tuples(st.sampled_from(_GAINS), st.sampled_from(_COSTS)),
                              max_size=25), min_size=1, max_size=3),
       kind=st.sampled_from(sorted(KINDS)), data=st.data(),
       default_cost=st.sampled_from([1.0, 2.0, 0.5]),
       gain_range=st.sampled_from([(), (0.0, 1.0), (0.0, 2.0), (-1.0, 1.5)]))
def test_costs_and_fractional_gains_match_cwl_eval(docs, kind, data, default_cost, gain_range):
    own = data.draw(st.sampled_from(KINDS[kind]))
    params = (*own, *gain_range)
    got = cwl_values(_with_inputs(docs, default_cost), kind, params, residuals=True)
    for q, pairs in enumerate(docs):
        codes, costs = [g for g, _ in pairs], [c for _, c in pairs]
        for name in QUANTITIES + tuple(f"Res{k}" for k in QUANTITIES):
            want = cwl_query(codes, kind, params, name, residuals=True, costs=costs,
                             default_cost=default_cost)
            assert math.isclose(got[name][q], want, rel_tol=1e-9, abs_tol=1e-12), \
                (kind, params, name, pairs, got[name][q], want)


QRELS = "q1 0 d1 0.5\nq1 0 d2 1\nq1 0 d3 0.25\nq1 0 d5 0\nq2 0 d1 1\nq2 0 d4 0.75\n"
RUN = ("q1 A d1 1 3.0 r\nq1 B d2 2 2.0 r\nq1 A d4 3 1.5 r\nq1 C d3 4 1.0 r\n"
       "q2 B d1 1 1.0 r\nq2 C d9 2 0.5 r\nq2 A d4 3 0.25 r\n")
COSTS = "A 2.0\nB 0.5\n\nD 7\n"


def _cwl_eval(tmp_path, metrics, cost_file: bool, qrels: str = QRELS) -> list[list[str]]:
    """cwl_eval's own program (``cwl_eval.main`` with ``-r``) on the files: its lines."""
    import contextlib
    import io
    import os

    import cwl.cwl_eval as ce
    from cwl.ruler.cwl_ruler import CWLRuler

    class Ruler(CWLRuler):
        def __init__(self, metrics_file=None, residuals=False):
            self.metrics = list(metrics)
            for m in self.metrics:
                m.residuals = residuals

    (tmp_path / "g").write_text(qrels)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "c").write_text(COSTS.replace("\n\n", "\n"))
    out = io.StringIO()
    here = os.getcwd()
    original = ce.CWLRuler
    try:
        os.chdir(tmp_path)                               # its cwl.log goes there
        ce.CWLRuler = Ruler
        with contextlib.redirect_stdout(out):
            ce.main("r", "g", "c" if cost_file else None, None, residuals=True)
    finally:
        ce.CWLRuler = original
        os.chdir(here)
    return [line.split("\t") for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("cost_file", [True, False])
def test_evaluate_prints_what_cwl_eval_prints(tmp_path, cost_file):
    """Every number cwl_eval -r prints for a measure, from the evaluate command, with a cost
    file (and without) and fractional gains."""
    from click.testing import CliRunner
    from cwl.ruler.cwl_ruler import BPMCWLMetric, INSTCWLMetric, TBGCWLMetric

    lines = _cwl_eval(tmp_path, [INSTCWLMetric(2.0), TBGCWLMetric(3.0), BPMCWLMetric(1.0, 3)],
                      cost_file)
    (tmp_path / "c").write_text(COSTS)
    names = ("INST.2", "TBG.3", "BPM.1,3")
    specs = [f"{n.split('.')[0]}{'' if q == 'EU' else '_' + q}.{n.split('.')[1]}"
             for n in names for q in QUANTITIES + tuple(f"Res{k}" for k in QUANTITIES)]
    res = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-q", "-n", "--no-header",
                                    *(a for s in specs for a in ("-m", s)),
                                    *(["--cwl-costs", str(tmp_path / "c")] if cost_file else []),
                                    str(tmp_path / "g"), str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    got = {(q, name): float(v) for q, name, v in
           (line.split("\t")[1:] for line in res.stdout.splitlines())}
    assert len(lines) == 6
    for i, (topic, _, *values) in enumerate(lines):
        for j, v in enumerate(values):
            name = specs[(i % 3) * 10 + j].replace(".", "_")
            assert float(f"{got[topic, name]:.4f}") == float(v), (topic, name, got[topic, name], v)


def test_fractional_gains_only_for_cwl_measures(tmp_path):
    from click.testing import CliRunner
    (tmp_path / "g").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    res = CliRunner().invoke(main, ["evaluate", "-m", "INST", "-m", "map",
                                    str(tmp_path / "g"), str(tmp_path / "r")])
    assert res.exit_code == 1
    first = res.stderr.splitlines()[0]
    assert first.endswith("g:1: relevance '0.5' is not an integer (gains that are not whole "
                          "numbers are read for the C/W/L measures alone, and map is asked "
                          "for)"), first
    (tmp_path / "g").write_text("q1 0 d1 0.5\nq1 0 d2 inf\n")
    res = CliRunner().invoke(main, ["evaluate", "-m", "INST", str(tmp_path / "g"),
                                    str(tmp_path / "r")])
    assert res.exit_code == 1
    assert "g:2: gain 'inf' is not a finite number" in res.stderr


def test_whole_grades_read_as_before(tmp_path):
    """Whole grades: the qrels read for a C/W/L measure are the qrels read for any other."""
    from smarteval.read import read_qrels
    from smarteval.read.cwl import read_gain_qrels
    (tmp_path / "g").write_text("q2 0 b 1\nq1 0 d 2\nq1 0 a -1\nq1 0 d 0\n")
    a, b = read_qrels(str(tmp_path / "g")), read_gain_qrels(str(tmp_path / "g"))
    for field in ("qids", "offsets", "docnos", "grades", "lines", "duplicate_grades",
                  "repeated"):
        assert getattr(a, field).tolist() == getattr(b, field).tolist(), field


@pytest.mark.parametrize("text,problem", [
    ("A 1\nB\n", "c:2: 'B': 1 field, not 2 (expected ELEMENT_TYPE COST)"),
    ("A 1 2\n", "c:1: 'A 1 2': 3 fields, not 2 (expected ELEMENT_TYPE COST)"),
    ("A x\n", "c:1: 'A x': the cost is not a number above 0 (expected ELEMENT_TYPE COST)"),
    ("\nA 0\n", "c:2: 'A 0': the cost is not a number above 0 (expected ELEMENT_TYPE COST)"),
    ("A -1\n", "c:1: 'A -1': the cost is not a number above 0 (expected ELEMENT_TYPE COST)"),
    ("A nan\n", "c:1: 'A nan': the cost is not a number above 0 (expected ELEMENT_TYPE COST)"),
    ("A 1\nB 2\nA 3\n", "c:3: 'A 3': element type 'A' given again (first at line 1)"),
])
def test_cost_file_errors_name_file_and_line(tmp_path, text, problem):
    from click.testing import CliRunner
    (tmp_path / "g").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "c").write_text(text)
    res = CliRunner().invoke(main, ["evaluate", "-m", "INST", "--cwl-costs",
                                    str(tmp_path / "c"), str(tmp_path / "g"),
                                    str(tmp_path / "r")])
    assert res.exit_code == 1
    assert res.stderr == f"Error: {tmp_path / problem}\n"


def test_costs_need_element_types_and_a_cwl_measure(tmp_path):
    import smarteval
    (tmp_path / "c").write_text(COSTS)
    with pytest.raises(UsageError, match="has no element types"):
        smarteval.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, ["INST"],
                           cwl_costs=str(tmp_path / "c"))
    from click.testing import CliRunner
    (tmp_path / "g").write_text(QRELS.replace("0.5", "1").replace("0.25", "1")
                                .replace("0.75", "1"))
    (tmp_path / "r").write_text(RUN)
    res = CliRunner().invoke(main, ["evaluate", "-m", "map", "--cwl-costs", str(tmp_path / "c"),
                                    str(tmp_path / "g"), str(tmp_path / "r")])
    assert res.exit_code == 0
    assert res.stderr == ("smarteval: --cwl-costs has no effect: only the C/W/L measures "
                          "(INST, TBG, BPM...) read it, and none is asked for\n")


def test_quantities_are_named_and_travel_to_workers():
    import pickle
    (rq,) = parse_measures(["TBG_ResEC.3"])
    (out,) = rq.outputs()
    assert out.name == "TBG_ResEC_3"
    back = pickle.loads(pickle.dumps(out.measure))
    assert (back.name, back.of, back.origin) == ("TBG_ResEC", "TBG", "cwl")
    with pytest.raises(UsageError, match="unknown measure"):
        parse_measures(["INST_EU"])
    r = make_ranked([[1, 0, 2, -1], [0, 0]])
    want = cwl_values(r, "TBG", (3.0,), True)["ResEC"].tolist()
    assert out.compute(r).tolist() == want
    assert back.func(r, (3.0,)).tolist() == want


#: cwl_eval's default metrics (no -m file), in its order, as smarteval names them
DEFAULTS = ("cwl_P.1", "cwl_P.2", "cwl_P.3", "cwl_P.4", "cwl_P.5", "cwl_P.10", "cwl_RBP.0.2",
            "cwl_RBP.0.4", "cwl_RBP.0.8", "cwl_NDCG.5", "cwl_NDCG.10", "cwl_RR", "cwl_AP",
            "INST.1", "INST.2", "INST.3")


def test_cwl_evals_default_report_number_for_number(tmp_path):
    """What cwl_eval -r prints without a metrics file (its default measures), every number,
    from one evaluate command: the cost file and fractional gains."""
    import contextlib
    import io
    import os

    import cwl.cwl_eval as ce
    from click.testing import CliRunner
    (tmp_path / "g").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "c").write_text(COSTS.replace("\n\n", "\n"))
    out = io.StringIO()
    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        with contextlib.redirect_stdout(out):
            ce.main("r", "g", "c", None, residuals=True)
    finally:
        os.chdir(here)
    lines = [line.split("\t") for line in out.getvalue().splitlines()]
    quantities = QUANTITIES + tuple(f"Res{k}" for k in QUANTITIES)
    specs = []
    for name in DEFAULTS:
        base, dot, raw = name.partition(".")
        specs += [f"{base}{'' if q == 'EU' else '_' + q}{dot}{raw}" for q in quantities]
    res = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-q", "-n", "--no-header",
                                    *(a for s in specs for a in ("-m", s)), "--cwl-costs",
                                    str(tmp_path / "c"), str(tmp_path / "g"),
                                    str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    got = {(q, name): float(v) for q, name, v in
           (line.split("\t")[1:] for line in res.stdout.splitlines())}
    assert len(lines) == 2 * len(DEFAULTS)
    for i, (topic, _, *values) in enumerate(lines):
        for j, v in enumerate(values):
            name = specs[(i % len(DEFAULTS)) * 10 + j].replace(".", "_", 1)
            assert float(f"{got[topic, name]:.4f}") == float(v), (topic, name, v)
