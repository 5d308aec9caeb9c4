"""A progress bar on standard error for long work, shown only when standard error is a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

#: A run of more than this many lines is long work.
LONG_LINES = 1_000_000
#: This many runs at once are long work whatever their size ("several runs").
SEVERAL_RUNS = 3
#: Bytes of a typical run line (a TREC run line is 35-60 bytes; MS MARCO-like runs ~40).
BYTES_PER_LINE = 40
#: How much smaller a compressed run file is than its text, roughly.
COMPRESSION = {".gz": 5, ".bz2": 7, ".xz": 7}


def estimated_lines(path: str) -> int:
    """Lines of a run file guessed from its size (0 for standard input or a missing file)."""
    if path == "-":
        return 0
    try:
        size = os.path.getsize(path)
    except OSError:
        return 0
    factor = COMPRESSION.get(os.path.splitext(path)[1].lower(), 1)
    return size * factor // BYTES_PER_LINE


def is_long(paths: Sequence[str]) -> bool:
    """Several runs, or one of more than a million lines (by its size): worth a progress bar."""
    return len(paths) >= SEVERAL_RUNS or any(estimated_lines(p) > LONG_LINES for p in paths)


class Progress:
    """Steps of work weighted by the runs' sizes; a click progress bar, or nothing at all."""

    def __init__(self, paths: Sequence[str], label: str, stream=None, force: bool | None = None):
        stream = stream if stream is not None else sys.stderr
        shown = force if force is not None else (_is_terminal(stream) and is_long(paths))
        self._weights = {p: max(estimated_lines(p), 1) for p in paths}
        self._bar: Any = None
        self._current = ""
        if shown:
            import click
            # each run is read, then evaluated: two steps weighted by its size
            self._bar = click.progressbar(length=2 * sum(self._weights.values()), label=label,
                                          file=stream, show_eta=True, show_percent=True,
                                          item_show_func=lambda _: self._current)

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def doing(self, what: str) -> None:
        """Name the step under way (shown beside the bar)."""
        self._current = what
        if self._bar is not None:
            self._bar.update(0)

    def done(self, path: str) -> None:
        """One step of run ``path`` finished (reading it, or evaluating it)."""
        if self._bar is not None:
            self._bar.update(self._weights.get(path, 1))


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
