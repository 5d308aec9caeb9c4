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

import contextlib
import os
import queue
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from smarteval.columns import Run
from smarteval.read import fast
from smarteval.read.keys import docno_hash
from smarteval.read.plain import (
    RUN_EXPECTED,
    _may_have_duplicates,
    _narrow,
    _read_run_data,
    repeated_rows,
)
from smarteval.read.source import CORRUPT, TextGuard, display, open_binary
from smarteval.threads import spare_cpus

#: Rows of a block when the caller does not say: some 80 MB of run text, about 300 MB
#: while it is ranked and measured.
BLOCK_ROWS = 1 << 21


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
    The file is tokenized ``chunk_bytes`` at a time (by default 4 MiB, less for small
    blocks: some 32 bytes a row).

    A thread of its own reads, tokenizes and assembles the next block while the caller
    works on this one (numpy leaves the interpreter's lock in its loops).
    """
    if chunk_bytes is None:
        chunk_bytes = min(4 << 20, max(1024, 32 * block_rows))
    ready: queue.Queue = queue.Queue(maxsize=1)        # one block ahead
    stop = threading.Event()
    reader = threading.Thread(target=_read, args=(path, block_rows, chunk_bytes, ready, stop),
                              name="smarteval-run-reader", daemon=True)
    reader.start()
    try:
        while True:
            item = ready.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
            del item
    finally:
        stop.set()
        while reader.is_alive():        # let the reader see the stop, then let it go
            with contextlib.suppress(queue.Empty):
                ready.get(timeout=0.05)
        reader.join()


def _read(path: str, block_rows: int, chunk_bytes: int, ready: queue.Queue,
          stop: threading.Event) -> None:
    """The reading thread: each block put on ``ready``, then the end, or the exception
    raised."""
    def put(item) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    try:
        for block in _blocks(display(path), block_rows, _chunks(path, chunk_bytes)):
            if not put(block):
                return
            del block
        put(_END)
    except BaseException as e:          # noqa: BLE001 - handed to the caller's thread
        put(e)


def _chunks(path: str, chunk_bytes: int) -> Iterator[tuple[fast.ChunkResult, int, int]]:
    """Each chunk of whole lines tokenized, with the bytes of the file read so far and
    the file's size (0: unknown). Where two CPUs are free, two threads tokenize the next
    chunks while this one reads (numpy leaves the interpreter's lock in its loops): when
    the caller's thread is busy with a block, the three share the CPUs; when it waits,
    the tokenizers have both."""
    guard = TextGuard(display(path), "a run file", RUN_EXPECTED)
    try:
        f = open_binary(path)
    except CORRUPT as e:
        raise NotBlockable(f"it could not be opened ({e})") from None
    workers = 2 if spare_cpus() >= 2 else 0
    free: list[fast._Chunk] = []
    lock = threading.Lock()

    def get_buffer() -> fast._Chunk:
        with lock:
            if free:
                return free.pop()
        return fast._Chunk(chunk_bytes)

    def work(ch: fast._Chunk) -> fast.ChunkResult:
        try:
            return fast.parse_chunk(ch.buf, ch.m, ch.scratch)
        finally:
            with lock:
                free.append(ch)

    with f:
        raw = getattr(f, "fileobj", None) or getattr(f, "_fp", None) or f
        try:
            size = int(os.fstat(raw.fileno()).st_size)
        except (OSError, ValueError, AttributeError):
            size = 0

        def read() -> Iterator[tuple[fast._Chunk, int]]:
            chunks = fast.iter_chunks(f, chunk_bytes, get_buffer, guard)
            while True:
                try:
                    ch = next(chunks, None)
                except CORRUPT as e:    # a damaged compressed file: the whole reader words it
                    raise NotBlockable(f"it could not be read ({e})") from None
                if ch is None:
                    return
                try:
                    done = int(raw.tell())
                except (OSError, ValueError):
                    done = 0
                yield ch, done

        if not workers:                 # each chunk tokenized before the next is read
            for ch, done in read():
                yield work(ch), done, size
            return
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=workers,
                                thread_name_prefix="smarteval-tokenizer") as pool:
            pending: deque = deque()
            try:
                for ch, done in read():
                    pending.append((pool.submit(work, ch), done))
                    while len(pending) > workers:
                        fut, at = pending.popleft()
                        yield fut.result(), at, size
                while pending:
                    fut, at = pending.popleft()
                    yield fut.result(), at, size
            finally:
                for fut, _ in pending:  # an error, or the caller stopped: no more work
                    fut.cancel()


def _blocks(name: str, block_rows: int,
            chunks: Iterator[tuple[fast.ChunkResult, int, int]]) -> Iterator[Block]:
    """Chunks into blocks: a block ends at the last query that starts in the chunk that
    fills it (that query's rows go on to the next block)."""
    parts: list[fast.ChunkResult] = []
    rows = 0
    lines = 0                   # physical lines before the chunk at hand
    seen: set[str] = set()
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
            yield Block(_assembled(name, [*parts, head], rows + cut, seen), done, size)
            parts, rows = [tail], tail.rows
        else:
            parts.append(r)
            rows += r.rows
    if rows:
        yield Block(_assembled(name, parts, rows, seen), done, size)
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
               seen: set[str]) -> Run:
    """The chunks' rows as one grouped :class:`Run`, as the whole reader makes it."""
    col = fast.Collector(name, rows, keep_lines=False)
    try:
        for r in parts:
            col.add(r)
        cols = col.finish()
    except fast.LineError as bad:       # a query id that is not UTF-8
        raise NotBlockable(f"line {bad.line}: {bad.problem}") from None
    del col
    qids = cols.qids.tolist()
    if not seen.isdisjoint(qids):
        again = min(set(qids) & seen)
        raise NotBlockable("its lines are not grouped by query", query=again)
    seen.update(qids)
    docnos = _narrow(cols.docnos)
    hashes = docno_hash(docnos)         # kept for the ranking's lookup of the grades
    if _may_have_duplicates(hashes.copy(), cols.offsets):
        codes = np.repeat(np.arange(len(cols.qids), dtype=np.int64), np.diff(cols.offsets))
        if len(repeated_rows(codes, docnos)):
            raise NotBlockable("a docno comes twice in one of its queries")
    return Run(path=name, qids=cols.qids, offsets=cols.offsets, docnos=docnos,
               scores=cols.scores, lines=None, tag=cols.tag, docno_hash=hashes)

