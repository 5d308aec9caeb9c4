"""--unjudged: every registered measure under each reading of the documents nobody judged.

``nonrelevant`` is today's value; ``drop`` is ``-J``; ``relevant`` is the value on qrels to
which the unjudged documents each query ranks (after ``-M``) were added at the grade,
computed here the slow way: a qrels file written with them and evaluated as any other.
``range`` prints the value, its bounds over every grading of the unjudged documents (or,
where it gives none, the value under ``relevant``) and the judged share beside each other.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import rank_docnos

import smarteval
from smarteval.cli import main
from smarteval.errors import UsageError
from smarteval.measures import all_measures
from smarteval.read.plain import read_qrels, read_run
from smarteval.settings import Settings

N = 40
QIDS = ["1", "2", "10"]
DOCS = [f"d{i}" for i in range(9)] + ["D0", "é"]

def collections(judged: int = 7, ranked: int = 9):
    """(qrels, run) of up to three queries, each with at most ``judged`` judgements (one of
    0 or more) and ``ranked`` documents retrieved; a query shared."""
    return st.tuples(
        st.dictionaries(st.sampled_from(QIDS), st.dictionaries(
            st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=judged)
            .filter(lambda g: any(v >= 0 for v in g.values())), min_size=1, max_size=3),
        st.dictionaries(st.sampled_from(QIDS), st.dictionaries(
            st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0]), min_size=1,
            max_size=ranked), min_size=1, max_size=3),
    ).filter(lambda c: bool(set(c[0]) & set(c[1])))


collection = collections()


def qrels_text(qrels: dict) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())


def run_text(run: dict) -> str:
    return "".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items() for d, s in docs.items())


def evaluate(qrels: str, run: str, names, **options):
    return smarteval.evaluate(read_qrels("qrels", data=qrels.encode()),
                              read_run("run", data=run.encode()), names,
                              settings=Settings(num_docs=N, target_generality=20.0,
                                                **options))[0]


def with_unjudged(qrels: dict, run: dict, grade: int, max_docs, version: int) -> str:
    """The qrels with each query's unjudged ranked documents (trec_eval's order, the first
    -M) judged at ``grade``: a judgement below 0 moves to the end at that grade, an
    absent document is added at the end, in rank order."""
    lines = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    added = []
    for q in qrels:
        if q not in run:
            continue
        ranked = rank_docnos(run[q], float32=version == 9)[:max_docs]
        added += [(q, d, grade) for d in ranked if qrels[q].get(d, -1) < 0]
    moved = {(q, d) for q, d, _ in added}
    lines = [ln for ln in lines if (ln[0], ln[1]) not in moved] + added
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in lines)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b or (isinstance(a, float) and a == pytest.approx(b, rel=1e-12, abs=1e-15))


NAMES = [n for n, m in all_measures().items() if m.plugin is None]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collection, version=st.sampled_from([9, 10]), level=st.sampled_from([1, 2]),
       max_docs=st.one_of(st.none(), st.integers(0, 6)),
       grade=st.one_of(st.none(), st.integers(0, 3)))
def test_every_measure_under_each_reading(data, version, level, max_docs, grade):
    qrels, run = data
    names = [n for n in NAMES if version in all_measures()[n].versions]
    common = dict(trec_version=version, rel_level=level, max_docs=max_docs)
    today = evaluate(qrels_text(qrels), run_text(run), names, **common)
    nonrel = evaluate(qrels_text(qrels), run_text(run), names, unjudged="nonrelevant",
                      **common)
    drop = evaluate(qrels_text(qrels), run_text(run), names, unjudged="drop", **common)
    minus_j = evaluate(qrels_text(qrels), run_text(run), names, judged_only=True, **common)
    g = max(max(v for docs in qrels.values() for v in docs.values()), level) \
        if grade is None else grade
    relevant = evaluate(qrels_text(qrels), run_text(run), names, unjudged="relevant",
                        unjudged_grade=grade, **common)
    slow = evaluate(with_unjudged(qrels, run, g, max_docs, version), run_text(run), names,
                    **common)
    ranged = evaluate(qrels_text(qrels), run_text(run), names, unjudged="range",
                      unjudged_grade=grade, **common)
    for name in today.names:
        for a, b, what in ((nonrel, today, "nonrelevant"), (drop, minus_j, "drop"),
                           (relevant, slow, "relevant"), (ranged, today, "range"),
                           (ranged, slow, "range relevant")):
            key = f"{name}_if_relevant" if what == "range relevant" else name
            if key not in a.per_query:
                continue                 # text and num_q: printed once
            assert list(a.qids) == list(b.qids)
            for qid, x, y in zip(a.qids, a.per_query[key], b.per_query[name], strict=True):
                assert same(x, y), (what, name, qid, x, y)
            assert same(a.summary[key], b.summary[name]), (what, name)
        if f"{name}_min" in ranged.per_query:
            # both readings are gradings: the bounds hold them
            # (tests/test_unjudged_bounds.py checks them against every grading)
            lo, hi = ranged.per_query[f"{name}_min"], ranged.per_query[f"{name}_max"]
            for reading in (today, slow):
                x = np.asarray(reading.per_query[name], dtype=np.float64)
                assert np.all(lo <= x + 1e-12) and np.all(x <= hi + 1e-12), (name, x, lo, hi)


def test_range_prints_the_bounds_of_a_measure():
    qrels = "1 0 a 1\n1 0 b 0\n1 0 c 2\n"
    run = "1 Q0 a 0 4 t\n1 Q0 x 0 3 t\n1 Q0 c 0 2 t\n1 Q0 y 0 1 t\n"
    ev = evaluate(qrels, run, ["P.2", "num_q", "map", "bpref"], unjudged="range")
    assert ev.names == ["num_q", "map", "map_min", "map_max", "map_judged", "bpref",
                        "bpref_if_relevant", "bpref_judged", "P_2", "P_2_min", "P_2_max",
                        "P_2_judged"]
    assert ev.summary["P_2"] == 0.5 and ev.summary["P_2_min"] == 0.5
    assert ev.summary["P_2_max"] == 1.0
    assert ev.summary["P_2_judged"] == 0.5                 # a, not x
    assert ev.summary["map_judged"] == 0.5                 # a and c of four
    # x and y judged 2 (the highest grade): R is 4, relevant at ranks 1..4
    assert ev.summary["map_max"] == 1.0
    # y alone: (1 + 2/3 + 3/4) / 3
    assert ev.summary["map_min"] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    assert ev.summary["map_min"] < ev.summary["map"]


def test_cli_names_the_options(tmp_path):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r.write_text("1 Q0 a 0 2 t\n1 Q0 x 0 1 t\n")
    res = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "--unjudged", "relevant",
                                    "--unjudged-grade", "1", "-m", "P.2", str(q), str(r)])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[1].split("\t")[2:] == ["P_2", "1.0"]
    drop = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "--unjudged", "drop",
                                     "-m", "P.2", str(q), str(r)])
    minus_j = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-J", "-m", "P.2", str(q),
                                        str(r)])
    assert drop.stdout == minus_j.stdout


@pytest.mark.parametrize("options, message", [
    (dict(judged_only=True, unjudged="range"), "-J drops the unjudged documents"),
    (dict(unjudged_grade=2), "--unjudged-grade is the grade --unjudged relevant or range"),
    (dict(unjudged="relevant", unjudged_grade=-1), "--unjudged-grade must be a grade from 0"),
    (dict(unjudged="sometimes"), "--unjudged must be one of"),
])
def test_settings_refused(options, message):
    with pytest.raises(UsageError, match=message):
        Settings(**options)


def test_own_judgements_refused(tmp_path):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 0 a 1 1\n1 0 b 1 -1\n")
    r.write_text("1 Q0 a 0 2 t\n")
    with pytest.raises(UsageError, match="read judgements of their own"):
        smarteval.evaluate(str(q), str(r), ["sample_eval"], settings=Settings(
            qrels_format="sample_qrels", unjudged="range"))


def test_drop_is_minus_j_everywhere():
    s = Settings(unjudged="drop")
    assert s.judged_only and s.unjudged == "nonrelevant"


def test_interval_of_a_difference():
    from smarteval.stats.merit import unjudged_interval
    # run's bounds [.5, .9], other's [.4, .6]
    assert unjudged_interval(np.array([.5]), np.array([.9]), np.array([.4]),
                             np.array([.6])) == pytest.approx((-0.1, 0.5))


SAMPLE = ["sample_data/qrels.txt", "sample_data/bm25.run", "sample_data/dense.run"]


@pytest.mark.parametrize("command", [["compare"], ["report", "--pairs"]])
def test_compare_and_report_say_which_differences_unjudged_documents_could_undo(command):
    # report's -f tsv writes the cells unless --pairs asks for the comparisons
    res = CliRunner().invoke(main, [*command, "-f", "tsv", "--unjudged", "range", "-m", "map",
                                    *SAMPLE])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    at = next(i for i, ln in enumerate(lines) if "unjudged_low" in ln)
    header, row = lines[at].split("\t"), lines[at + 1].split("\t")
    assert header[-3:] == ["unjudged_low", "unjudged_high", "within_unjudged"]
    low, high = float(row[-3]), float(row[-2])
    assert low <= 0 <= high and row[-1] == "true"
    assert "lies within what the unjudged documents leave open" in res.stderr
    plain = CliRunner().invoke(main, [*command, "-f", "tsv", "-m", "map", *SAMPLE])
    assert "unjudged_low" not in plain.stdout


def test_range_keeps_each_measures_values_together_in_the_order_asked(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 0 4 t\n1 Q0 x 0 3 t\n1 Q0 c 0 2 t\n1 Q0 y 0 1 t\n")
    res = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "--no-header", "--unjudged",
                                    "range", "-m", "P.2", "-m", "map", str(tmp_path / "q"),
                                    str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert [line.split("\t")[2] for line in res.stdout.splitlines()] == [
        "P_2", "P_2_min", "P_2_max", "P_2_judged", "map", "map_min", "map_max", "map_judged"]


@pytest.mark.parametrize("require, code, says", [
    ("map_min>=0.1", 0, ""),
    ("map_min>=0.2", 3, "its map_min is 0.1537"),
    ("P.10_max>=0.5", 0, ""),
    ("bpref_if_relevant>0", 0, ""),
    ("bpref_min>0", 2, "add -m bpref --unjudged range (which gives NAME_min"),
    ("map_if_relevant>0", 2, "add -m map --unjudged range"),
    ("nothing_min>0", 2, "Error: unknown measure:\n  nothing_min\n"),
])
def test_require_names_the_outputs_of_range(require, code, says):
    res = CliRunner().invoke(main, ["evaluate", "--unjudged", "range", "-m", "map", "-m",
                                    "P.10", "-m", "bpref", "--require", require, SAMPLE[0],
                                    SAMPLE[1]])
    assert res.exit_code == code, res.output
    assert says in res.stderr
    assert "Traceback" not in res.output


@pytest.mark.parametrize("command", [["compare"], ["report", "--pairs"]])
def test_a_measure_with_two_readings_has_no_interval(command):
    res = CliRunner().invoke(main, [*command, "-f", "tsv", "--unjudged", "range", "-m", "map",
                                    "-m", "bpref", *SAMPLE])
    assert res.exit_code == 0, res.output
    lines = [ln.split("\t") for ln in res.stdout.splitlines()]
    at = next(i for i, ln in enumerate(lines) if "unjudged_low" in ln)
    rows = {row[lines[at].index("measure")]: row for row in lines[at + 1:] if len(row) > 3}
    assert rows["bpref"][-3:] == ["", "", "false"]
    assert float(rows["map"][-3]) <= float(rows["map"][-2])
    assert "bpref: no interval of the differences" in res.stderr
    assert "two readings, not bounds" in res.stderr
