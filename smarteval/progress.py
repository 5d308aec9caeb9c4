"""The progress bar of long work: on standard error when it is a terminal, after a second."""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import Any

from smarteval.read.source import text_size

#: Seconds of work before the bar appears: work done sooner shows nothing.
DELAY = 1.0
#: Bytes of a typical run line (a TREC run line is 35-60 bytes; MS MARCO-like runs ~40).
BYTES_PER_LINE = 40
#: Steps of the bar a sample x query of a randomization or bootstrap test counts for: a
#: step is half a run line (read, then evaluated, some 150 ns a line), a sample x query
#: some 300 ns; the bar's ETA follows the pace of the last steps whatever this weight.
SAMPLE_STEPS = 4.0


def estimated_lines(path: str) -> int:
    """Lines of a run file guessed from its size (0 for standard input or a missing file)."""
    return text_size(path) // BYTES_PER_LINE


class Progress:
    """Steps of work weighted by the runs' sizes: a click progress bar on a terminal, shown
    once the work has taken ``delay`` seconds (from a timer thread), or nothing at all.

    ``force`` True shows it whatever the stream (False: never).
    """

    def __init__(self, paths: Sequence[str], label: str, stream=None, force: bool | None = None,
                 delay: float = DELAY):
        self._stream = stream if stream is not None else sys.stderr
        self._eligible = force if force is not None else _is_terminal(self._stream)
        self._weights = {p: max(estimated_lines(p), 1) for p in paths}
        #: steps in all: each run read, then evaluated, a step a line; and the tests'
        #: samples once they are known (:meth:`sampling`)
        self._length = 2 * sum(self._weights.values())
        self._label = label
        self._delay = delay
        self._bar: Any = None
        self._current = ""
        self._done = 0
        self._pending = list(paths)     # runs not finished, in the order they finish
        self._partial = 0               # steps of the run under way already shown
        self._queries = 0               # queries of the run under way evaluated so far
        self._closed = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> Progress:
        if self._eligible:
            if self._delay <= 0:
                self._appear()
            else:
                self._timer = threading.Timer(self._delay, self._appear)
                self._timer.daemon = True
                self._timer.start()
        return self

    def _appear(self) -> None:
        with self._lock:
            if self._closed or self._bar is not None:
                return
            import click
            # each run is read, then evaluated: two steps weighted by its size
            self._bar = click.progressbar(length=self._length,
                                          label=self._label, file=self._stream,
                                          show_eta=True, show_percent=True,
                                          item_show_func=lambda _: self._current)
            self._bar.__enter__()
            self._bar.update(self._done)

    def __exit__(self, *exc) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.__exit__(*exc)

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def doing(self, what: str) -> None:
        """Name the step under way (shown beside the bar)."""
        with self._lock:
            self._current = what
            if self._bar is not None:
                self._bar.update(0)

    def each_run(self, paths: Sequence[str]):
        """A callback for the library's ``on_run``: runs finish in the order of ``paths``,
        each one both of its steps (its reading and its evaluation) at once, less what
        :meth:`block` has shown of it."""
        pending = iter(paths)

        def finished(_info) -> None:
            path = next(pending)
            with self._lock:
                partial, self._partial, self._queries = self._partial, 0, 0
                if self._pending:
                    self._pending.pop(0)
            self._advance(2 * self._weights.get(path, 1) - partial)
        return finished

    def block(self, block) -> None:
        """A callback for the library's ``on_block``: the run under way (the first not
        finished) has been read and evaluated as far as ``block.done`` of its
        ``block.size`` bytes; the queries evaluated so far are named beside the bar."""
        with self._lock:
            path = self._pending[0] if self._pending else None
            whole = 2 * self._weights.get(path, 1) if path is not None else 0
            reached = int(whole * min(1.0, block.done / block.size)) if block.size else 0
            step = max(0, min(reached, whole - 1) - self._partial)
            self._partial += step
            self._queries += len(block.run.qids)
            self._current = f"{self._queries:,} queries evaluated"
        self._advance(step)

    def sampling(self, what: str):
        """A callback for the library's ``on_samples(done, total)``: the statistics'
        samples, after the runs. Each test's work, once it starts, is added to the bar's
        length (as :data:`SAMPLE_STEPS` steps a sample x query), so the bar leaves 100 %
        while the tests run and moves as their samples are drawn, ``what`` beside it."""
        state = {"done": 0, "total": 0}

        def drawn(done: int, total: int) -> None:
            if state["done"] >= state["total"]:     # the one before is over: a new test
                with self._lock:
                    self._current = what
                    self._length += int(total * SAMPLE_STEPS)
                    if self._bar is not None:
                        self._bar.length = self._length
                state["done"], state["total"] = 0, total
            step = int(done * SAMPLE_STEPS) - int(state["done"] * SAMPLE_STEPS)
            state["done"] = done
            self._advance(step)
        return drawn

    def done(self, path: str) -> None:
        """One step of run ``path`` finished (reading it, or evaluating it)."""
        self._advance(self._weights.get(path, 1))

    def _advance(self, step: int) -> None:
        with self._lock:
            self._done += step
            if self._bar is not None:
                self._bar.update(step)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
