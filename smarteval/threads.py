"""Work beside the calling thread: the CPUs free for it, and numpy work in a second thread.

numpy releases the GIL in its loops, so two columns are worked on at once where a second
CPU is free; on a busy machine a thread would only add switching and colder caches. The
run reader (:mod:`smarteval.read`) and the ranking (:mod:`smarteval.ranking`) both ask.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

#: Runs of at least this many rows are ranked with a second thread where two CPUs are
#: free (:func:`beside`).
PARALLEL_ROWS = 1 << 20

_LOADAVG = "/proc/loadavg"


def spare_cpus() -> int:
    """CPUs this process may run on that no other task is running on at this moment:
    their number less the other runnable tasks (``/proc/loadavg``; the caller is one of
    those it counts), at least 1; all of them where that cannot be read."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        with open(_LOADAVG, "rb") as f:
            runnable = int(f.read().split()[3].split(b"/")[0])
    except (OSError, IndexError, ValueError):
        return cpus
    return max(1, min(cpus, cpus - (runnable - 1)))


@contextmanager
def beside(parallel: bool):
    """``run(f, *args)`` calls ``f(*args)`` in a second thread when ``parallel`` and
    two CPUs are free (:func:`spare_cpus`), else at once, and returns a function that
    gives its result (raising what it raised). numpy works without the GIL, so two
    columns are worked on at once."""
    if not parallel or spare_cpus() < 2:
        def at_once(f, *args):
            value = f(*args)
            return lambda: value
        yield at_once
        return
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield lambda f, *args: pool.submit(f, *args).result
