"""sample_eval's measures (-R sample_qrels): full precision against the slow oracle, names,
totals, the reader's refusals. The printed output is tests/test_sample_golden.py's."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sample_oracle as SO
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.cli import main
from smarteval.errors import InputError, UsageError
from smarteval.read.sample import read_sample_qrels
from smarteval.settings import Settings

QRELS = """7 0 d1 1 1
7 0 d2 1 0
7 0 d3 1 -1
7 0 d4 2 2
7 0 d5 2 -1
7 0 d6 2 -1
7 0 d7 3 1
7 0 d8 3 0
12 0 d1 a 1
12 0 d9 a 2
12 0 d3 b -1
12 0 d4 b 0
40 0 d1 a 1
"""
RUN = """007 Q0 d3 1 10 t
007 Q0 d1 2 9 t
007 Q0 d4 3 9 t
007 Q0 d9 4 8 t
007 Q0 d5 5 7 t
007 Q0 d7 6 6 t
007 Q0 d2 7 5 t
12 Q0 d4 1 3 t
12 Q0 d1 2 2 t
12 Q0 d3 3 2 t
12 Q0 x 4 1 t
"""


def files(tmp_path, qrels=QRELS, run=RUN):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(qrels)
    r.write_text(run)
    return str(q), str(r)


def evaluate(tmp_path, measures=("sample_eval",), qrels=QRELS, run=RUN, **options):
    q, r = files(tmp_path, qrels, run)
    return smarteval.evaluate(q, r, list(measures), settings=Settings(
        qrels_format="sample_qrels", **options))[0]


# =========================================================================== full precision

@st.composite
def sample(draw):
    """(qrels text, run text, {topic: (ranked docnos, judged)}): strata sampled at rates."""
    topics = draw(st.lists(st.sampled_from(["1", "2", "10", "33"]), min_size=1, max_size=3,
                           unique=True))
    qlines, rlines, expect = [], [], {}
    for t in topics:
        judged = {}
        for s in draw(st.lists(st.sampled_from(["1", "2", "10", "b"]), min_size=1, max_size=3,
                               unique=True)):
            n = draw(st.integers(1, 8))
            for i in range(n):
                doc = f"{t}-{s}-{i}"
                judged[doc] = (s, draw(st.sampled_from([-1, -1, 0, 0, 1, 2, 3, 0.5, 1.5,
                                                        2.25])))
        docs = draw(st.permutations(list(judged) + [f"{t}-x{i}" for i in range(4)]))
        docs = docs[:draw(st.integers(1, len(docs)))]
        scores = [draw(st.sampled_from([1.0, 2.0, 2.5, 3.0])) for _ in docs]
        ranked = [d for _, d in sorted(zip(scores, docs), key=lambda x: (-x[0], [-b for b in
                                                                               x[1].encode()]))]
        qlines += [f"{t} 0 {d} {s} {g}\n" for d, (s, g) in judged.items()]
        rlines += [f"0{t} Q0 {d} 0 {sc!r} tag\n" for d, sc in zip(docs, scores)]
        expect[t] = (ranked, judged)
    return "".join(qlines), "".join(rlines), expect


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=sample(), gains=st.sampled_from([(), ((1, 2.0), (2, 5.0)), ((3, 10.0),)]))
def test_values_equal_the_oracle_with_strata(tmp_path, data, gains):
    """Every measure, every topic, to 1e-12 against the slow walk of tests/sample_oracle."""
    qrels, run, expect = data
    ndcg = "infNDCG" + ("." + ",".join(f"{g}={v:g}" for g, v in gains) if gains else "")
    ev = evaluate(tmp_path, ["sample_eval", ndcg, "int11ptAP"], qrels, run)
    other = evaluate(tmp_path, ["iprec_at_rec.0.25"], qrels, run)
    for i, qid in enumerate(ev.qids):
        want = SO.topic(*expect[qid])
        got = {name: ev.per_query[name][i] for name in ev.names}
        assert got["infAP"] == pytest.approx(want["infAP"], rel=1e-12, abs=1e-15)
        assert got["infNDCG"] == pytest.approx(SO.topic(*expect[qid], gains)["infNDCG"],
                                               rel=1e-12, abs=1e-15)
        for k in (10, 50, 1000):
            assert got[f"iP{k}"] == pytest.approx(SO.precision(want, k), rel=1e-12, abs=1e-15)
        assert got["inum_rel_ret"] == pytest.approx(want["E"][-1], rel=1e-12)
        assert got["inum_rel"] == pytest.approx(want["R"], rel=1e-12, abs=1e-15)
        assert got["num_ret"] == len(expect[qid][0])
        for level, v in zip(SO.LEVELS, want["iprec"]):
            assert got[f"iprec@rec{level:.2f}"] == pytest.approx(v, rel=1e-12, abs=1e-15)
        assert other.per_query["iprec@rec0.25"][i] == pytest.approx(
            SO.iprec(lambda lv, q=qid: SO.topic(*expect[q], levels=lv), 0.25), abs=1e-15)
        assert got["int11ptAP"] == pytest.approx(want["int11ptAP"], rel=1e-12, abs=1e-15)


# =========================================================================== names, totals

def test_names_as_sample_eval_prints_them(tmp_path):
    ev = evaluate(tmp_path)
    assert ev.names == ["infAP", "infNDCG", *[f"iprec@rec{lv:.2f}" for lv in SO.LEVELS],
                        "iP10", "iP50", "iP1000", "inum_rel_ret", "inum_rel", "num_ret"]
    # topics in numeric order, the run's 007 being the qrels' 7
    assert ev.qids.tolist() == ["7", "12"]


def test_trec_eval_names_are_sample_evals_under_its_format(tmp_path):
    """-m infAP and -m num_ret under -R sample_qrels are sample_eval's, in its order."""
    ev = evaluate(tmp_path, ["num_ret", "infAP", "xinfAP"])
    assert ev.names == ["infAP", "num_ret"]
    assert [o.measure.name for o in ev.outputs] == ["xinfAP", "sample_num_ret"]


def test_names_against_plain_qrels_are_the_registry_names(tmp_path):
    q, r = files(tmp_path, "7 0 d1 1\n7 0 d2 0\n", "7 Q0 d1 1 1 t\n7 Q0 d2 2 0.5 t\n")
    ev = smarteval.evaluate(q, r, ["xinfAP", "infAP", "iP.10", "sample_num_ret"])[0]
    assert ev.names == ["infAP", "xinfAP", "iP_10", "sample_num_ret"]
    # one stratum, both judged documents sampled: the smoothing alone keeps it below 1
    assert ev.per_query["xinfAP"][0] == pytest.approx(1.0, abs=1e-4)


def test_other_measures_are_refused(tmp_path):
    with pytest.raises(UsageError, match="map is not computed from -R sample_qrels "
                                         r"judgements \(their measures: -m sample_eval\)"):
        evaluate(tmp_path, ["map"])


def test_totals(tmp_path):
    """inum_rel's total counts topic 40, which the run lacks; num_ret's counts 1,000 at
    most a topic, while the topic's own value counts every document."""
    run = RUN + "".join(f"12 Q0 y{i} 5 0.5 t\n" for i in range(1200))
    ev = evaluate(tmp_path, run=run)
    assert ev.summary["inum_rel"] == pytest.approx(sum(ev.per_query["inum_rel"]) + 1.0)
    assert ev.per_query["num_ret"].tolist() == [7, 1204]
    assert ev.summary["num_ret"] == 7 + 1000
    assert ev.summary["inum_rel_ret"] == pytest.approx(sum(ev.per_query["inum_rel_ret"]))


def test_trec_output_layout(tmp_path):
    q, r = files(tmp_path)
    res = CliRunner().invoke(main, ["evaluate", "-R", "sample_qrels", "-f", "trec", "-q",
                                    "-m", "infAP", "-m", "inum_rel", "-m", "num_ret", q, r])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[:3] == ["infAP\t\t7\t\t0.7273",
                                           "inum_rel\t7\t        5.5000",
                                           "num_ret\t\t7\t        7"]


def test_tsv_gives_full_precision(tmp_path):
    q, r = files(tmp_path)
    res = CliRunner().invoke(main, ["evaluate", "-R", "sample_qrels", "-f", "tsv", "-q",
                                    "-m", "inum_rel_ret", q, r])
    assert res.exit_code == 0, res.output
    value = float(res.stdout.splitlines()[1].split("\t")[3])
    assert value != round(value, 4)


# =========================================================================== the reader

@pytest.mark.parametrize("text, message", [
    ("7 0 d1 1\n", "sample qrels line has 4 fields, not 5"),
    ("7 0 d1 1 1\n7 0 d1 2 0\n", "document d1 is listed again in topic 7 (first at line 1)"),
    ("7 0 d1 1 x\n", "relevance 'x' is not a number"),
    ("7 0 d1 1 inf\n", "relevance 'inf' is not a finite number"),
])
def test_reader_refusals(text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_sample_qrels("qrels", data=text.encode())


def test_strata_slots_follow_byte_order():
    q = read_sample_qrels("qrels", data=b"7 0 a 2 1\n7 0 b 10 1\n7 0 c b 0\n8 0 d 2 1\n")
    assert q.stratum_ids.tolist() == [b"10", b"2", b"b"]
    assert dict(zip(q.docnos.tolist(), q.slot.tolist())) == {b"a": 1, b"b": 0, b"c": 2,
                                                             b"d": 0}


def test_five_field_qrels_name_both_layouts(tmp_path):
    q, r = files(tmp_path)
    res = CliRunner().invoke(main, ["evaluate", q, r])
    assert res.exit_code == 1
    assert "read with -R sample_qrels" in res.stderr and "prels" in res.stderr


def test_empty_ranking_is_zero(tmp_path):
    ev = evaluate(tmp_path, max_docs=0)
    for name in ev.names:
        assert not np.isnan(np.asarray(ev.per_query[name], dtype=float)).any(), name
        if name != "inum_rel":
            assert (np.asarray(ev.per_query[name], dtype=float) == 0).all(), name
    assert math.isfinite(ev.summary["infAP"])


def test_a_fractional_grade_is_sample_evals(tmp_path):
    """``5 0 a 1 1.5``: sample_eval.pl evaluates a fractional grade (relevant, gain 1.5,
    a grade of its own in the ideal ranking); its -q output for this case: infAP 0.7708,
    infNDCG 0.6423, inum_rel 4.0000, inum_rel_ret 3.0000."""
    qrels = "5 0 a 1 1.5\n5 0 b 1 0\n5 0 c 2 2\n5 0 d 2 -1\n5 0 e 1 0.5\n"
    run = "5 Q0 a 1 3.0 t\n5 Q0 b 2 2.5 t\n5 Q0 c 3 2.0 t\n5 Q0 e 4 1.5 t\n5 Q0 x 5 1 t\n"
    ev = evaluate(tmp_path, qrels=qrels, run=run)
    got = {name: float(ev.per_query[name][0]) for name in ev.names}
    assert [f"{got[n]:.4f}" for n in ("infAP", "infNDCG", "inum_rel", "inum_rel_ret")] == \
        ["0.7708", "0.6423", "4.0000", "3.0000"]
    judged = {"a": ("1", 1.5), "b": ("1", 0), "c": ("2", 2), "d": ("2", -1), "e": ("1", 0.5)}
    want = SO.topic(["a", "b", "c", "e", "x"], judged)
    assert got["infAP"] == pytest.approx(want["infAP"], rel=1e-12)
    assert got["infNDCG"] == pytest.approx(want["infNDCG"], rel=1e-12)
    q = read_sample_qrels("qrels", data=qrels.encode())
    assert q.rel.tolist() == [1.5, 0.0, 2.0, -1.0, 0.5]
    assert q.as_qrels().grades.tolist() == [2, 0, 2, -1, 1]        # the ranking's view
