"""smarteval/threads.py: the CPUs free for a second thread, and work done in it."""

from __future__ import annotations

import threading

import pytest

from smarteval import threads


@pytest.mark.parametrize("loadavg, spare", [(b"0.30 0.60 0.73 1/123 456\n", 2),
                                            (b"1.51 1.43 1.18 2/83 28624\n", 1),
                                            (b"4.00 4.00 4.00 9/83 28624\n", 1),
                                            (b"garbage\n", 2)])
def test_spare_cpus_leave_out_those_other_tasks_run_on(tmp_path, monkeypatch, loadavg, spare):
    path = tmp_path / "loadavg"
    path.write_bytes(loadavg)
    monkeypatch.setattr(threads, "_LOADAVG", str(path))
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda pid: {0, 1})
    assert threads.spare_cpus() == spare


@pytest.mark.parametrize("spare, parallel, second", [(2, True, True), (1, True, False),
                                                     (2, False, False)])
def test_beside_works_in_a_second_thread_where_a_cpu_is_free(monkeypatch, spare, parallel,
                                                             second):
    monkeypatch.setattr(threads, "spare_cpus", lambda: spare)

    def where(x):
        return x, threading.current_thread() is threading.main_thread()

    def failing():
        raise MemoryError
    with threads.beside(parallel) as run:
        assert run(where, 7)() == (7, not second)
        with pytest.raises(MemoryError):
            run(failing)()


# --------------------------------------------------------------------------- read-ahead

SAMPLE = "sample_data"


def _read_ahead_used(monkeypatch, spare: int) -> list:
    """The ReadAheads made while ``spare`` CPUs seem free."""
    from smarteval import evaluation
    monkeypatch.setattr(threads, "spare_cpus", lambda: spare)
    made = []
    first = evaluation.ReadAhead.__init__

    def init(self, *args):
        made.append(self)
        first(self, *args)
    monkeypatch.setattr(evaluation.ReadAhead, "__init__", init)
    return made


@pytest.mark.parametrize("spare", [1, 2])
def test_one_small_run_is_read_beside_the_qrels_where_a_cpu_is_free(monkeypatch, spare):
    """The same values either way; read in a second thread only with a CPU free, and
    the run read there handed to the ranking as a file read here (not copied)."""
    import smarteval
    from smarteval import evaluation
    made = _read_ahead_used(monkeypatch, spare)
    owned = []
    first = evaluation.rank
    monkeypatch.setattr(evaluation, "rank",
                        lambda *a, **k: owned.append(k.get("owned")) or first(*a, **k))
    got = smarteval.evaluate(f"{SAMPLE}/qrels.txt", f"{SAMPLE}/bm25.run", ["official"])
    assert len(made) == (spare - 1)
    monkeypatch.setattr(threads, "spare_cpus", lambda: 1)
    want = smarteval.evaluate(f"{SAMPLE}/qrels.txt", f"{SAMPLE}/bm25.run", ["official"])
    assert got.to_dict() == want.to_dict()
    assert owned[0] is True


def test_no_read_ahead_where_it_cannot_pay(monkeypatch, tmp_path):
    """Several runs, standard input, a table, blocks, several processes, qrels already
    read: read in turn."""
    import smarteval
    from smarteval.read import read_qrels
    made = _read_ahead_used(monkeypatch, 2)
    qrels, run = f"{SAMPLE}/qrels.txt", f"{SAMPLE}/bm25.run"
    smarteval.evaluate(qrels, [run, f"{SAMPLE}/bm25_rm3.run"], ["map"])
    smarteval.evaluate(read_qrels(qrels), run, ["map"])
    smarteval.evaluate(qrels, run, ["map"], block_rows=100, keep_ranked=False)
    smarteval.evaluate(qrels, run, ["map"], jobs=2)
    assert made == []
    smarteval.evaluate(qrels, run, ["map"])
    assert len(made) == 1


def test_a_bad_run_read_ahead_is_reported_after_the_qrels(monkeypatch, tmp_path):
    """Errors come in the order of reading in turn: the qrels' first, then the run's,
    word for word as without the second thread."""
    import smarteval
    from smarteval.errors import InputError
    _read_ahead_used(monkeypatch, 2)
    bad_run = tmp_path / "bad.run"
    bad_run.write_text("1 Q0 d1 1 x tag\n")
    bad_qrels = tmp_path / "bad.qrels"
    bad_qrels.write_text("1 0 d1 x\n")
    good_qrels = f"{SAMPLE}/qrels.txt"
    with pytest.raises(InputError) as both:
        smarteval.evaluate(str(bad_qrels), str(bad_run), ["map"])
    with pytest.raises(InputError) as run_only:
        smarteval.evaluate(good_qrels, str(bad_run), ["map"])
    monkeypatch.setattr(threads, "spare_cpus", lambda: 1)
    with pytest.raises(InputError) as both_in_turn:
        smarteval.evaluate(str(bad_qrels), str(bad_run), ["map"])
    with pytest.raises(InputError) as run_in_turn:
        smarteval.evaluate(good_qrels, str(bad_run), ["map"])
    assert str(both.value) == str(both_in_turn.value) and "bad.qrels" in str(both.value)
    assert str(run_only.value) == str(run_in_turn.value) and "bad.run:1" in str(run_only.value)
