"""C/W/L measures against cwl_eval's own classes: every quantity it reports, with residuals.

Each query's grades go to cwl_eval as gains in rank order (tests/cwl_oracle.py); smarteval
computes all queries at once (:func:`cwl_values`), per query to 1e-9.
"""

from __future__ import annotations

import math

import pytest
from cwl_oracle import cwl_query
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from smart_helpers import make_ranked

from smarteval.errors import UsageError
from smarteval.measures import parse_measures
from smarteval.measures.cwl import QUANTITIES, cwl_values

pytest.importorskip("cwl")

KINDS = {"INST": [(1.0,), (2.0,), (0.5,)], "INSQ": [(1.0,), (2.5,)],
         "TBG": [(224.0,), (3.0,)], "U-measure": [(1000.0,), (5.0,), (2.0,)],
         "BPM": [(1.0, 10.0), (2.0, 3.0), (0.5, 1.0)], "NERR8": [(10.0,), (1.0,), (3.0,)],
         "NERR9": [(10.0,), (2.0,)], "NERR10": [(0.9,), (0.5,), (1.0,)],
         "NERR11": [(1.0,), (2.0,)], "RBP": [(0.9,), (0.5,)],
         "BPM-Dynamic": [(1.0, 10.0, 1.0, 1.0, 0.5), (1.2, 4.0, 0.5, 2.0, 0.25)],
         "IFT-C1": [(2.0, 0.9, 10.0), (1.0, 0.5, 1.0)], "IFT-C2": [(0.2, 0.9, 10.0)],
         "IFT-C1-C2": [(2.0, 0.9, 10.0, 2.0, 0.9, 10.0), (1.0, 0.5, 2.0, 0.3, 0.8, 1.0)]}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
