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
