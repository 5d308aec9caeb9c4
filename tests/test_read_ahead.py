"""Runs read one ahead in a thread: the same runs, in order, and an error reading one
raised when its turn comes."""

from __future__ import annotations

import numpy as np
import pytest

from smarteval import evaluation
from smarteval.errors import InputError
from smarteval.evaluation import as_run, read_in_order

QRELS = "401 0 d1 1\n401 0 d2 0\n402 0 d3 1\n"


def _run(path, lines):
    path.write_text("".join(lines))
    return str(path)


def test_runs_come_in_order_and_equal_reading_one_at_a_time(tmp_path):
    paths = [_run(tmp_path / f"r{i}", [f"40{1 + q} Q0 d{d} {d} {10 - d - i}.5 t{i}\n"
                                       for q in range(2) for d in range(1, 4)])
             for i in range(4)]
    got = [as_run(r) for r in read_in_order(paths)]
    assert [r.tag for r in got] == ["t0", "t1", "t2", "t3"]
    for run, path in zip(got, paths):
        one = as_run(path)
        assert run.path == one.path and run.qids.tolist() == one.qids.tolist()
        np.testing.assert_array_equal(run.docnos, one.docnos)
        np.testing.assert_array_equal(run.scores, one.scores)


def test_an_error_comes_at_its_run(tmp_path, monkeypatch):
    good = _run(tmp_path / "good", ["401 Q0 d1 1 2.5 t\n"])
    bad = _run(tmp_path / "bad", ["401 Q0 d1 1 x t\n"])
    seen = []
    with pytest.raises(InputError, match="bad"):
        for run in read_in_order([good, bad, good]):
            seen.append(as_run(run).tag)
    assert seen == ["t"]
    # larger files are given as they are, for the taker to read (and release) one at a time
    monkeypatch.setattr(evaluation, "READ_AHEAD_BYTES", 0)
    monkeypatch.setattr(evaluation, "_Reading", None)
    assert list(read_in_order([good, good])) == [good, good]


def test_evaluations_equal_with_and_without_reading_ahead(tmp_path, monkeypatch):
    qrels = tmp_path / "qrels"
    qrels.write_text(QRELS)
    paths = [_run(tmp_path / f"r{i}", [f"40{1 + q} Q0 d{d} {d} {(d * (i + 1)) % 4}.5 t{i}\n"
                                       for q in range(2) for d in range(1, 4)])
             for i in range(3)]
    ahead = evaluation.evaluate(str(qrels), paths, ["official"])
    monkeypatch.setattr(evaluation, "READ_AHEAD_BYTES", 0)
    alone = evaluation.evaluate(str(qrels), paths, ["official"])
    assert [e.summary for e in ahead] == [e.summary for e in alone]
