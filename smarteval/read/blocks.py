"""A run file read in blocks of whole queries, for evaluation in memory bounded by a block.

TREC runs are grouped by query: every line of a query follows the one before. Such a
run is read here as a sequence of :class:`~smarteval.columns.Run` blocks, each holding
whole queries and about ``block_rows`` rows (more when one query is longer), while a
second thread reads and tokenizes the next lines (:mod:`smarteval.read.fast`'s chunk
tokenizer). Each block is what :func:`smarteval.read.plain.read_run` would give for its
lines alone: grouped by query, docnos narrowed, a repeated docno found.

What the blocks cannot stand for is :class:`NotBlockable`, and the caller reads the run
whole instead, where every message is worded as for any run: a query whose lines come
again after another query's (the run is not grouped), a docno twice in one query (the
ranking names both lines, which blocks do not keep), a query id that is not UTF-8, a file
that cannot be opened or decompressed, no line at all. A line the tokenizer refuses is
refused here with the whole reader's message (the checked tokenizer words it from that
line's bytes), so a late bad line costs no more memory than a good one.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from smarteval.columns import Run
from smarteval.read import fast
from smarteval.read.keys import docno_hash
from smarteval.read.plain import (
    RUN_EXPECTED,
    _narrow,
    _read_run_data,
    repeated_docnos,
)
from smarteval.read.source import TextGuard, corrupt, display, open_binary
from smarteval.threads import spare_cpus

#: Rows of a block when the caller does not say: some 40 MB of run text, about 150 MB
#: while it is ranked and measured.
BLOCK_ROWS = 1 << 20


#: Why a run is read whole when a query's lines come again after another query's.
NOT_GROUPED = "its lines are not grouped by query"


class NotBlockable(Exception):
    """The run is not read in blocks; ``reason`` says why in words (for a note), and
    ``query`` names the query found again after others when the run is not grouped."""

    def __init__(self, reason: str, query: str | None = None, line: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.query = query
        self.line = line


@dataclass(frozen=True, eq=False)
class Block:
    """One block of whole queries, and how far into the file it reaches (for progress)."""

    run: Run
    #: bytes of the file read when the block was complete, and the file's size (0: unknown)
    done: int
    size: int


_END = object()


def run_blocks(path: str, block_rows: int = BLOCK_ROWS, *,
               chunk_bytes: int | None = None) -> Iterator[Block]:
    """The blocks of whole queries of the run file ``path`` (plain or compressed), in file
    order; see the module docstring. Raises :class:`NotBlockable` where the blocks
    cannot stand for the run, an :class:`~smarteval.errors.InputError` for a bad line.
    The file is tokenized ``chunk_bytes`` at a time (by default 1 MiB, less for small
    blocks: some 32 bytes a row).

    Two threads of their own work ahead of the caller, each a block ahead: one reads,
    tokenizes and groups the next lines, the other checks the block after this one (a
    docno twice in a query), while the caller works on this one (numpy leaves the
    interpreter's lock in its loops).
    """
    if chunk_bytes is None:
        chunk_bytes = min(1 << 20, max(1024, 32 * block_rows))
    name = display(path)
    stop = threading.Event()
    grouped: queue.Queue = queue.Queue(maxsize=1)
    checked: queue.Queue = queue.Queue(maxsize=1)
    threads = [
        threading.Thread(target=_stage, name="smarteval-run-reader", daemon=True, args=(
            lambda: _blocks(name, block_rows, _chunks(path, chunk_bytes)), grouped, stop)),
        threading.Thread(target=_stage, name="smarteval-run-checker", daemon=True, args=(
            lambda: (Block(_run(name, cols), done, size)
                     for cols, done, size in _received(grouped, stop)), checked, stop))]
    for t in threads:
        t.start()
    try:
        yield from _received(checked, stop)
    finally:
        stop.set()
        for t in threads:               # each sees the stop within a twentieth of a second
            t.join()


def _stage(items, out: queue.Queue, stop: threading.Event) -> None:
    """A thread's work: each of ``items()`` put on ``out``, then the end, or the exception
    raised; given up when ``stop`` is set."""
    def put(item) -> bool:
        while not stop.is_set():
            try:
                out.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    try:
        for item in items():
            if not put(item):
                return
            del item
        put(_END)
    except BaseException as e:          # noqa: BLE001 - handed to the caller's thread
        put(e)


def _received(ready: queue.Queue, stop: threading.Event) -> Iterator:
    """What a :func:`_stage` puts on ``ready``, to its end (its exception raised); nothing
    more once ``stop`` is set."""
    while not stop.is_set():
        try:
            item = ready.get(timeout=0.05)
        except queue.Empty:
            continue
        if item is _END:
            return
        if isinstance(item, BaseException):
            raise item
        yield item
        del item


def _chunks(path: str, chunk_bytes: int) -> Iterator[tuple[fast.ChunkResult, int, int]]:
    """Each chunk of whole lines tokenized, with the bytes of the file read so far and
    the file's size (0: unknown). Where two CPUs are free, two threads tokenize the next
    chunks while this one reads (:class:`~smarteval.read.fast.ChunkParser`): when the
    caller's thread is busy with a block, the three share the CPUs; when it waits, the
    tokenizers have both."""
    guard = TextGuard(display(path), "a run file", RUN_EXPECTED)
    try:
        f = open_binary(path)
    except corrupt() as e:
        raise NotBlockable(f"it could not be opened ({e})") from None
    parser = fast.ChunkParser(chunk_bytes, 2 if spare_cpus() >= 2 else 0)
    with f:
        raw = getattr(f, "fileobj", None) or getattr(f, "_fp", None) or f
        try:
            size = int(os.fstat(raw.fileno()).st_size)
        except (OSError, ValueError, AttributeError):
            size = 0

        def read() -> Iterator[tuple[fast._Chunk, int]]:
            chunks = fast.iter_chunks(f, chunk_bytes, parser.buffer, guard)
            while True:
                try:
                    ch = next(chunks, None)
                except corrupt() as e:    # a damaged compressed file: the whole reader words it
                    raise NotBlockable(f"it could not be read ({e})") from None
                if ch is None:
                    return
                try:
                    done = int(raw.tell())
                except (OSError, ValueError):
                    done = 0
                yield ch, done

        for r, done in parser.results(read(), "smarteval-tokenizer"):
            yield r, done, size


def _blocks(name: str, block_rows: int, chunks: Iterator[tuple[fast.ChunkResult, int, int]]
            ) -> Iterator[tuple[fast.RunCols, int, int]]:
    """Chunks into blocks: a block ends at the last query that starts in the chunk that
    fills it (that query's rows go on to the next block)."""
    parts: list[fast.ChunkResult] = []
    rows = 0
    lines = 0                   # physical lines before the chunk at hand
    seen: set[str] = set()             # the queries of the block before
    done = size = 0
    for r, done, size in chunks:
        if r.error is not None:
            _refuse(name, lines, r.error)
        lines += r.nlines
        if r.rows == 0:
            continue
        starts = r.qrun_starts
        cut = int(starts[-1]) if len(starts) else 0
        if rows + r.rows >= block_rows and cut > 0:
            head, tail = _split(r, cut)
            yield _assembled(name, [*parts, head], rows + cut, seen), done, size
            parts, rows = [tail], tail.rows
        else:
            parts.append(r)
            rows += r.rows
    if rows:
        yield _assembled(name, parts, rows, seen), done, size
    elif not seen:
        raise NotBlockable("it has no run line")


def _refuse(name: str, lines: int, error) -> None:
    """Raise the whole reader's message for a chunk's bad line (or hand the run over)."""
    line, problem, raw, definite = error
    if not definite:
        raise NotBlockable(f"line {lines + line + 1}: {problem}")
    _read_run_data(raw, name, first_line=lines + line + 1)     # raises its message
    raise NotBlockable(f"line {lines + line + 1}: {problem}")  # (the checked reader took it)


def _split(r: fast.ChunkResult, at: int) -> tuple[fast.ChunkResult, fast.ChunkResult]:
    """A chunk's rows before row ``at`` (a query's first row) and from it on."""
    lines = r.lines
    head = fast.ChunkResult(r.nlines, at, None if lines is None else lines[:at],
                            r.docnos[:at], r.scores[:at], r.qrun_starts[:-1],
                            r.qrun_ids[:-1], r.tag, fast=r.fast)
    tail = fast.ChunkResult(0, r.rows - at, None if lines is None else lines[at:],
                            r.docnos[at:], r.scores[at:], np.zeros(1, np.int64),
                            r.qrun_ids[-1:], r.tag, fast=r.fast)
    return head, tail


def _assembled(name: str, parts: list[fast.ChunkResult], rows: int,
               seen: set[str]) -> fast.RunCols:
    """The chunks' rows grouped by query, as the whole reader groups them."""
    col = fast.Collector(name, rows, keep_lines=False)
    try:
        for r in parts:
            col.add(r)
        cols = col.finish()
    except fast.LineError as bad:       # a query id that is not UTF-8
        raise NotBlockable(f"line {bad.line}: {bad.problem}") from None
    del col
    # a query of the block before again: not grouped (found at once in most runs whose
    # queries are interleaved; the caller finds the others once every query is known)
    qids = set(cols.qids.tolist())
    if not seen.isdisjoint(qids):
        raise NotBlockable(NOT_GROUPED, query=min(qids & seen))
    seen.clear()
    seen.update(qids)
    return cols


def _run(name: str, cols: fast.RunCols) -> Run:
    """A block's grouped rows as the :class:`Run` the whole reader makes of a file: docnos
    narrowed, a docno twice in one query found (in the caller's thread, which has
    time for it while the reading thread reads on)."""
    docnos = _narrow(cols.docnos)
    hashes = docno_hash(docnos)         # kept for the ranking's lookup of the grades
    if len(repeated_docnos(docnos, cols.offsets, hashes=hashes)):
        raise NotBlockable("a docno comes twice in one of its queries")
    return Run(path=name, qids=cols.qids, offsets=cols.offsets, docnos=docnos,
               scores=cols.scores, lines=None, tag=cols.tag, docno_hash=hashes)
