"""Items worked in forked processes: results in order, the first failure raised, nothing lost."""

from __future__ import annotations

import os
import select
import time

import pytest

from smarteval.workers import can_fork, run_forked, run_isolated

NO_FORK = "processes are forked on Linux only"
pytestmark = [pytest.mark.ci_skip_ok(NO_FORK), pytest.mark.skipif(not can_fork(), reason=NO_FORK)]


def test_results_and_callbacks_come_in_the_order_of_the_items(tmp_path):
    parent = os.getpid()

    def work(i):
        (tmp_path / str(os.getpid())).touch()
        time.sleep(0.02 * (i % 3 == 0))         # some items take longer
        # the parent waits (10 s at most) for a forked process to take an item, so that
        # however loaded the machine, it does not work them all before one has started
        waited = 0.0
        while os.getpid() == parent and len(list(tmp_path.iterdir())) < 2 and waited < 10:
            time.sleep(0.01)
            waited += 0.01
        return i * i, os.getpid()

    seen = []
    results = run_forked(12, work, 4, on_result=lambda i, r: seen.append(i))
    assert [r[0] for r in results] == [i * i for i in range(12)]
    assert seen == list(range(12))
    assert len({pid for _, pid in results}) > 1   # more than one process worked


def test_the_first_failing_item_is_raised_even_when_a_later_one_fails_first():
    def work(i):
        if i == 3:
            time.sleep(0.3)                     # fails last of all
            raise ValueError("item 3")
        if i == 7:
            raise ValueError("item 7")
        return i

    seen = []
    with pytest.raises(ValueError, match="item 3"):
        run_forked(10, work, 3, on_result=lambda i, r: seen.append(i))
    assert seen == [0, 1, 2]


def test_a_process_that_stops_leaves_its_items_to_the_parent():
    parent = os.getpid()

    def work(i):
        if os.getpid() != parent:
            os._exit(9)                         # every forked process stops at once
        return i

    assert run_forked(6, work, 3) == list(range(6))


def test_parent_only_items_are_worked_in_this_process():
    parent = os.getpid()
    results = run_forked(6, lambda i: os.getpid(), 3, parent_only=[1, 4])
    assert results[1] == results[4] == parent


def test_shipped_and_received():
    results = run_forked(5, lambda i: [i] * 3, 2, shipped=len, received=lambda n: -n)
    parent = [r for r in results if isinstance(r, list)]
    assert all(r == -3 for r in results if not isinstance(r, list))
    assert all(len(r) == 3 for r in parent)


def test_more_items_than_tokens_in_one_write():
    count = 3 * select.PIPE_BUF
    assert run_forked(count, lambda i: i, 3) == list(range(count))


def test_what_cannot_travel_back_is_named():
    class Local(Exception):
        def __reduce__(self):
            raise TypeError("not this one")

    def work(i):
        if i < 3:
            time.sleep(0.3)                     # the forked process takes the last item
            return i
        raise Local("bad")

    with pytest.raises(RuntimeError, match="^Local: bad$"):
        run_forked(4, work, 2, parent_only=[0, 1, 2])


def test_no_process_is_left_behind():
    before = set(_children())
    with pytest.raises(ValueError):
        run_forked(8, lambda i: (_ for _ in ()).throw(ValueError(i)) if i == 0 else
                   time.sleep(1), 4)
    assert set(_children()) == before


def _children() -> list[str]:
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return fh.read().split()
    except OSError:
        return []


# =========================================================================== one at a time

def test_isolated_items_each_in_a_process_of_their_own():
    parent = os.getpid()
    seen = []
    results = run_isolated(5, lambda i: (i, os.getpid()), parent_only=[2],
                           on_result=lambda i, r: seen.append(i))
    assert [i for i, _ in results] == seen == list(range(5))
    pids = [pid for _, pid in results]
    assert pids[2] == parent
    others = pids[:2] + pids[3:]
    assert parent not in others and len(set(others)) == 4


def test_isolated_items_raise_the_first_failure_at_once():
    calls = []

    def work(i):
        if i == 1:
            raise ValueError("item 1")
        return i

    with pytest.raises(ValueError, match="item 1"):
        run_isolated(4, work, on_result=lambda i, r: calls.append(i))
    assert calls == [0]


def test_an_isolated_item_whose_process_stops_is_worked_here():
    parent = os.getpid()

    def work(i):
        if os.getpid() != parent:
            os._exit(9)
        return i * 10

    assert run_isolated(3, work, shipped=str, received=int) == [0, 10, 20]
