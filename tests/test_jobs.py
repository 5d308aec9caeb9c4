"""Several runs in one call: qrels read once, -j/--jobs gives the same output as one process."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

import smarteval
from smarteval.cli import main

SAMPLE = Path(__file__).parent.parent / "sample_data"
RUNS = [str(SAMPLE / f"{n}.run") for n in ("bm25", "bm25_rm3", "dense")]


def test_jobs_match_one_process():
    qrels = smarteval.read_qrels(SAMPLE / "qrels.txt")
    one = smarteval.evaluate(qrels, RUNS, ["official", "ndcg_cut.10"])
    two = smarteval.evaluate(qrels, RUNS, ["official", "ndcg_cut.10"], jobs=2,
                             keep_ranked=False)
    assert [e.name for e in one] == [e.name for e in two] == ["bm25", "bm25_rm3", "dense"]
    for a, b in zip(one, two):
        assert a.summary == b.summary
        assert b.ranked is None
        for name in a.names:
            assert (a.per_query[name] == b.per_query[name]).all()


def test_cli_jobs_output_identical():
    args = ["evaluate", "-f", "tsv", "-q", "-m", "official", str(SAMPLE / "qrels.txt"), *RUNS]
    serial = CliRunner().invoke(main, args)
    parallel = CliRunner().invoke(main, ["evaluate", "-j", "2", *args[1:]])
    assert serial.exit_code == parallel.exit_code == 0
    assert serial.stdout == parallel.stdout


def test_runs_sharing_a_tag_are_named_by_file(tmp_path):
    a = tmp_path / "a.run"
    b = tmp_path / "b.run"
    a.write_text("401 Q0 X 1 1.0 same\n")
    b.write_text("401 Q0 Y 1 1.0 same\n")
    evs = smarteval.evaluate(SAMPLE / "qrels.txt", [str(a), str(b)], ["map"])
    assert [e.name for e in evs] == ["a.run", "b.run"]


def test_ties_average_keeps_order_free_measures():
    args = ["evaluate", "--ties", "average", "-f", "tsv", "-m", "num_ret", "-m", "set_P",
            "-m", "P.5", str(SAMPLE / "qrels.txt"), RUNS[0]]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    plain = CliRunner().invoke(main, ["evaluate", "-f", "tsv", *args[5:]])
    assert result.stdout == plain.stdout     # the sample runs have no tied scores


def test_ties_average_default_table_leaves_out_what_it_cannot_average():
    result = CliRunner().invoke(main, ["evaluate", "--ties", "average",
                                       str(SAMPLE / "qrels.txt"), RUNS[0]])
    assert result.exit_code == 0, result.output
    assert result.stderr == ("smarteval: --ties average: left out bpref, iprec_at_recall "
                             "(no exact average over tied orders)\n")
    assert "map" in result.stdout and "bpref" not in result.stdout


def test_same_tag_and_file_name_fall_back_to_the_path(tmp_path):
    for sub in ("x", "y"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "run.txt").write_text("401 Q0 X 1 1.0 same\n")
    paths = [str(tmp_path / "x" / "run.txt"), str(tmp_path / "y" / "run.txt")]
    evs = smarteval.evaluate(SAMPLE / "qrels.txt", paths, ["map"])
    assert [e.name for e in evs] == paths


def test_json_writes_null_for_an_undefined_value():
    import json
    import math

    from smarteval.render.evaluation import render_json
    ev = smarteval.evaluate(SAMPLE / "qrels.txt", RUNS[0], ["map"])[0]
    ev.summary["map"] = math.nan
    assert json.loads(render_json([ev]))[0]["summary"]["map"] is None
