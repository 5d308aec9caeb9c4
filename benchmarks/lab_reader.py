#!/usr/bin/env python3
"""Reader lab: ways to read a TREC run file into flat columns, and their numbers.

The candidate to integrate is :func:`read_run` (numpy only): a chunked, vectorised
byte tokenizer. The other ``read_run_*`` functions are the baselines it was measured
against (see benchmarks/NOTES.md). Every candidate returns the same :class:`RunCols`
(same fields as ``smarteval.columns.Run``) so that they can be checked against each
other::

    python benchmarks/lab_reader.py bench benchmarks/data/msmarco-7M.run     # main candidates
    python benchmarks/lab_reader.py bench FILE -c numpy,numpy0,numpy2 -r 5
    python benchmarks/lab_reader.py verify FILE          # candidates agree with the Python loop
    python benchmarks/lab_reader.py selftest             # edge cases, seams, errors
    python benchmarks/lab_reader.py lookup RUN QRELS     # qrels lookups, dup and order checks
    python benchmarks/lab_reader.py one numpy FILE       # one timed run, JSON

Candidates: ``numpy`` = read_run (1 parser thread, 4 MiB chunks), ``numpy0`` (all in
the calling thread), ``numpy2`` (2 parser threads), ``numpy-1M/-8M/-16M`` (chunk
sizes), ``smarteval`` (smarteval.readers.read_run of the work tree), ``python``,
``split``, ``loadtxt``, ``pandas``, ``pyarrow``.

Input contract handled by :func:`read_run`:

* fields are separated by runs of spaces and tabs; lines end in LF or CRLF (a lone CR
  counts as whitespace); the last line may lack its newline; a UTF-8 BOM is skipped;
* blank (or whitespace-only) lines and lines whose first field starts with ``#`` are
  skipped; fields after the sixth are ignored; ``Q0`` and ``RANK`` are not checked;
* gzip / bz2 / xz input is recognised by its magic bytes (not by the file name);
* a line with 1-5 fields, or a score that is not a decimal or exponent float (what
  ``float()`` accepts), raises :class:`RunFormatError` naming the file, the physical
  line number (1-based, counting every line) and the line's text.

Output (:class:`RunCols`): ``qids`` (Q,) str in byte order of the ids, ``offsets``
(Q+1,) int64, ``docnos`` 'S' (NUL-padded to a multiple of 8 bytes), ``scores`` float64
(bit-identical to ``float()`` of the text), ``lines`` int64 physical line numbers,
``tag`` the run tag of the first row; rows of a query keep file order.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import math
import os
import resource
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


class RunFormatError(ValueError):
    """A problem in a run file, at a physical line (stands in for smarteval.InputError)."""

    def __init__(self, path, line, problem, text=None):
        self.path, self.line, self.problem, self.text = path, line, problem, text
        msg = f"{path}:{line}: {problem}" if line is not None else f"{path}: {problem}"
        if text is not None:
            msg += f"\n    {text}"
        super().__init__(msg)


@dataclass(eq=False)
class RunCols:
    path: str
    qids: np.ndarray      # (Q,) str, byte order
    offsets: np.ndarray   # (Q+1,) int64
    docnos: np.ndarray    # (n,) 'S'
    scores: np.ndarray    # (n,) float64
    lines: np.ndarray     # (n,) int64, 1-based physical line numbers
    tag: str
    timings: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.docnos)


# ---------------------------------------------------------------------------
# Opening and chunking
# ---------------------------------------------------------------------------

def open_binary(path: str):
    """A binary file object (``-``: standard input), decompressing gzip / bz2 / xz
    recognised by their magic bytes (not by the file name)."""
    f = sys.stdin.buffer if path == "-" else open(path, "rb")
    if not hasattr(f, "peek"):
        f = io.BufferedReader(f)
    head = f.peek(6)[:6]
    if head[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=f, mode="rb")
    if head[:3] == b"BZh":
        return bz2.BZ2File(f, "rb")
    if head[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMAFile(f, "rb")
    return f


PAD = 256                      # bytes kept free before and after a chunk's data
_PAD_FILL = b" " * PAD


class _Chunk:
    """One buffer: PAD bytes, ``m`` data bytes ending in a newline, PAD bytes."""

    __slots__ = ("buf", "m", "index")

    def __init__(self, size: int):
        self.buf = bytearray(PAD + size + PAD)
        self.buf[:PAD] = _PAD_FILL
        self.m = 0
        self.index = 0


def iter_chunks(f, chunk_bytes: int, get_buffer):
    """Fill buffers from ``get_buffer()`` with whole lines (the last one may be padded
    with a newline). Yields each filled _Chunk; a line longer than a chunk grows it."""
    carry = b""
    first = True
    index = 0
    while True:
        ch = get_buffer()
        size = len(ch.buf) - 2 * PAD
        if len(carry) >= size // 2:                 # a very long line: grow
            ch = _Chunk(2 * len(carry) + chunk_bytes)
            size = len(ch.buf) - 2 * PAD
        nc = len(carry)
        ch.buf[PAD:PAD + nc] = carry
        mv = memoryview(ch.buf)
        got = nc
        while got < size:                           # readinto may return short counts
            r = f.readinto(mv[PAD + got:PAD + size])
            if not r:
                break
            got += r
        mv.release()
        if first:
            first = False
            if ch.buf[PAD:PAD + 3] == b"\xef\xbb\xbf":   # UTF-8 BOM
                ch.buf[PAD:PAD + got - 3] = ch.buf[PAD + 3:PAD + got]
                got -= 3
        eof = got < size
        if eof:
            if got == 0:
                return
            if ch.buf[PAD + got - 1] != 10:
                ch.buf[PAD + got] = 10
                got += 1
            carry = b""
            m = got
        else:
            last = ch.buf.rfind(b"\n", PAD, PAD + got)
            if last < 0:                            # no newline in the whole chunk
                carry = bytes(ch.buf[PAD:PAD + got])
                continue
            m = last + 1 - PAD
            carry = bytes(ch.buf[PAD + m:PAD + got])
        ch.buf[PAD + m:PAD + m + PAD] = _PAD_FILL
        ch.m = m
        ch.index = index
        index += 1
        yield ch
        if eof:
            return


# ---------------------------------------------------------------------------
# Vectorised field extraction
# ---------------------------------------------------------------------------

_U64_MASK = np.array([(1 << (8 * k)) - 1 if k < 8 else (1 << 64) - 1 for k in range(9)],
                     dtype=np.uint64)


def _u64_view(buf: bytearray) -> np.ndarray:
    """uint64 values at every byte offset (an unaligned, overlapping view)."""
    return np.ndarray((len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))


def gather_fixed(buf: bytearray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Fields ``buf[start:start+length]`` as an 'S' array, NUL-padded to a multiple
    of 8 bytes (bytes past a field's end are zeroed with per-word masks)."""
    n = len(start)
    if n == 0:
        return np.zeros(0, "S8")
    wmax = int(length.max())
    words = max(1, (wmax + 7) // 8)
    if words * 8 > PAD:
        return _gather_wide(buf, start, length, wmax)
    u = _u64_view(buf)
    if words == 1:
        v = u[start]
        v &= _U64_MASK[length]
        return v.view("S8")
    out = np.empty((n, words), np.uint64)
    for w in range(words):
        v = u[start + 8 * w]
        v &= _U64_MASK[np.clip(length - 8 * w, 0, 8)]
        out[:, w] = v
    return out.view(f"S{8 * words}").ravel()


def _gather_wide(buf, start, length, wmax):
    a = np.frombuffer(buf, np.uint8)
    idx = np.minimum(start[:, None] + np.arange(wmax), len(a) - 1)
    mat = a[idx]
    mat[np.arange(wmax) >= length[:, None]] = 0
    return mat.view(f"S{wmax}").ravel()


_POW10 = 10.0 ** np.arange(23)


def parse_decimal(buf: bytearray, start: np.ndarray, end: np.ndarray):
    """Parse the fields ``buf[start:end]`` as floats, exactly as ``float()`` does.

    Fast path: fields ``[+-]digits.digits``. Rows are grouped by their number k <= 22
    of fraction digits (one group for ``%.Nf`` writers, a handful for repr-like
    writers); in a group the digits are read column by column from a right-aligned
    (n, W) byte matrix into an int64 mantissa M, and the value is M / 10**k: one
    correctly rounded division of two exact doubles while M < 2**53 (Clinger's fast
    path), hence bit-identical to strtod. Everything else (no dot, exponents, inf,
    nan, mantissas of 16+ digits that reach 2**53) goes to numpy's own cast
    (``_parse_slow``). Returns (values, bad): bad is the index of the first field
    that is not a number, or -1.
    """
    n = len(start)
    if n == 0:
        return np.zeros(0), -1
    length = end - start
    w = int(length.max())
    a = np.frombuffer(buf, np.uint8)
    if w > 24 or int(length.min()) < 2:
        return _parse_slow(buf, start, length)
    mat = sliding_window_view(a, w)[end - w]          # (n, w), right-aligned copy
    row0 = mat[0, w - int(length[0]):]
    dots = np.flatnonzero(row0 == 46)
    if len(dots) == 1:                                # one k for every row?
        k = len(row0) - 1 - int(dots[0])
        if (mat[:, w - 1 - k] == 46).all():
            return _decimal_k(a, buf, mat, k, start, length)
    # several k: group the rows by the column of their dot
    isdot = mat == 46
    dotcol = isdot.argmax(axis=1)
    ok = isdot[np.arange(n), dotcol] & (dotcol >= w - length)
    del isdot
    kk = w - 1 - dotcol
    vals = np.empty(n)
    bad = n
    for k in np.unique(kk[ok]).tolist():
        idx = np.flatnonzero(ok & (kk == k))
        v, b = _decimal_k(a, buf, mat[idx], k, start[idx], length[idx])
        vals[idx] = v
        if b >= 0:
            bad = min(bad, int(idx[b]))
    rest = np.flatnonzero(~ok)
    if len(rest):
        v, b = _parse_slow(buf, start[rest], length[rest])
        vals[rest] = v
        if b >= 0:
            bad = min(bad, int(rest[b]))
    return vals, (-1 if bad == n else bad)


def _decimal_k(a, buf, mat, k, start, length):
    """Rows whose field has its dot k bytes before its end (see parse_decimal)."""
    n, w = mat.shape
    c = w - 1 - k                                      # the dot's column
    if k > 22 or k >= int(length.min()) or not (mat[:, c] == 46).all():
        return _parse_slow(buf, start, length)
    first = a[start]
    neg = first == 45
    signed = neg | (first == 43)
    ndig = length - 1 - signed                         # digits in the field
    if int(ndig.min()) < 1 or int(ndig.max()) > 18:    # no digit / int64 overflow
        return _parse_slow(buf, start, length)
    digT = np.ascontiguousarray(mat.T)                 # (w, n)
    digT -= np.uint8(48)
    # the first digit of every field sits in column w - ndig - 1 (after the sign, if
    # any); columns left of it hold other bytes of the line and count as 0
    fdc = w - 1 - ndig
    fdc_min, fdc_max = int(fdc.min()), int(fdc.max())
    M = np.zeros(n, np.int64)
    bad = np.zeros(n, bool)
    for j in range(fdc_min, w):
        if j == c:
            continue
        col = digT[j]
        if j < fdc_max:                                # some fields start right of j
            inside = fdc <= j
            bad |= inside & (col > 9)
            col = col * inside
        else:
            bad |= col > 9
        M *= 10
        M += col
    if bad.any():
        return _parse_slow(buf, start, length)
    vals = M / _POW10[k]
    np.negative(vals, out=vals, where=neg)
    if int(ndig.max()) > 15:                           # M may reach 2**53: not exact
        idx = np.flatnonzero(M >= 2 ** 53)
        if len(idx):
            sv, sbad = _parse_slow(buf, start[idx], length[idx])
            vals[idx] = sv
            return vals, (-1 if sbad < 0 else int(idx[sbad]))
    return vals, -1


def _parse_slow(buf, start, length):
    """numpy's own bytes->float cast on an 'S' gather (C, ~60 ns a value); accepts
    what float() accepts (exponents, inf, nan, surrounding whitespace excluded)."""
    s = gather_fixed(buf, start, length)
    try:
        return s.astype(np.float64), -1
    except ValueError:
        pass
    for i, x in enumerate(s.tolist()):
        try:
            float(x)
        except ValueError:
            return np.zeros(len(s)), i
    return np.zeros(len(s)), 0   # pragma: no cover


def _text_at(buf: bytearray, off: int) -> str:
    """The text of the line holding byte ``off`` of a chunk buffer."""
    s = buf.rfind(b"\n", PAD, off) + 1 or PAD
    s = max(s, PAD)
    e = buf.find(b"\n", off)
    return bytes(buf[s:e]).rstrip(b"\r").decode("utf-8", "replace")


@dataclass
class ChunkResult:
    nlines: int                     # physical lines in the chunk
    rows: int
    lines: np.ndarray | None        # (rows,) int64 line index in the chunk; None: 0..rows-1
    docnos: np.ndarray | None
    scores: np.ndarray | None
    qrun_starts: np.ndarray | None  # (runs,) row where the qid changes (first: 0)
    qrun_ids: np.ndarray | None     # (runs,) 'S' qid of each run
    tag: bytes | None
    error: tuple | None = None      # (line index in the chunk, problem, text)
    fast: bool = False


_tls = threading.local()
_SEP = np.zeros(256, bool)
_SEP[[9, 10, 13, 32]] = True


def _scratch(name: str, size: int, dtype) -> np.ndarray:
    """A per-thread scratch array of at least ``size`` items, reused from chunk to
    chunk (fresh numpy temporaries of a few MiB each cost page faults every time)."""
    arr = getattr(_tls, name, None)
    if arr is None or len(arr) < size:
        arr = np.empty(max(size, 1 << 16) * 5 // 4, dtype)
        setattr(_tls, name, arr)
    return arr[:size]


_SHORT = "expected 6 fields (QID Q0 DOCNO RANK SCORE TAG), found {}"


def parse_chunk(buf: bytearray, m: int) -> ChunkResult:
    """Tokenize one chunk (``buf[PAD:PAD+m]``: whole lines, ending in a newline).

    Fast path (clean files): the whitespace bytes are exactly 5 single spaces and a
    newline per line, so their positions reshape to (lines, 6) and give every field's
    bounds directly. Otherwise the general path finds tokens (maximal runs of bytes
    other than space, tab, CR, LF) and their line numbers, skips blank and comment
    lines and takes tokens 0, 2, 4, 5 of each data line.
    """
    a = np.frombuffer(buf, np.uint8)
    b = a[PAD:PAD + m]
    sb = _scratch("bool", m, bool)                    # reused: no page faults
    ws = np.less_equal(b, 32, out=sb)
    pos = np.flatnonzero(ws)
    del ws
    vals = b[pos]
    pos_all, vals_all = pos, vals                     # for the general path
    fast = False
    crlf = False
    if np.count_nonzero(np.equal(vals, 13, out=sb[:len(vals)])):
        # CRLF line ends: drop each CR that sits right before its LF
        cr = np.flatnonzero(sb[:len(vals)])
        nxt = np.minimum(cr + 1, len(pos) - 1)
        if ((vals[nxt] == 10) & (pos[nxt] == pos[cr] + 1)).all():
            keep = np.ones(len(pos), bool)
            keep[cr] = False
            pos, vals = pos[keep], vals[keep]
            crlf = True
    pos = pos + PAD
    n6 = len(pos) // 6
    if len(pos) == 6 * n6 and n6 and pos[0] > PAD:
        # one separator (space or tab) between the 6 fields, then LF: the separator
        # positions reshape to (lines, 6)
        nl = pos[5::6]
        v = vals[:len(pos)]
        if (vals[5::6] == 10).all() and np.count_nonzero(np.equal(v, 10, out=sb[:len(v)])) == n6 \
                and np.count_nonzero(np.equal(v, 32, out=sb[:len(v)])) \
                + np.count_nonzero(np.equal(v, 9, out=sb[:len(v)])) == 5 * n6:
            gaps = np.subtract(pos[1:], pos[:-1], out=_scratch("i64", len(pos) - 1, np.int64))
            if crlf:                                  # tag..CR..LF: the CR is not the tag
                gaps[4::6] -= a[nl - 1] == 13
            if int(gaps.min()) > 1:                   # no empty field
                ls = np.empty(n6, np.int64)
                ls[0] = PAD
                ls[1:] = nl[:-1] + 1
                fast = not (a[ls] == 35).any()       # no comment line
            del gaps
    error = None
    if fast:
        P = pos.reshape(n6, 6)
        nlines = n6
        lines = None
        qs, qe = ls, P[:, 0]
        ds, de = P[:, 1] + 1, P[:, 2]
        ss, se = P[:, 3] + 1, P[:, 4]
        tag = bytes(buf[P[0, 4] + 1:P[0, 5]]).rstrip(b"\r")
        del P, pos, nl, pos_all, vals_all
    else:
        pos, vals = pos_all + PAD, vals_all
        # separators: space, tab, CR, LF; any other control byte is part of a field
        is_sep = _SEP[vals]
        if not is_sep.all():
            if (vals == 0).any():
                at = int(pos[np.flatnonzero(vals == 0)[0]])
                nlb = int(np.count_nonzero(vals[:np.flatnonzero(vals == 0)[0]] == 10))
                return ChunkResult(0, 0, None, None, None, None, None, None,
                                   error=(nlb, "binary file (NUL byte), not a run file",
                                          _text_at(buf, at).replace("\x00", "\\0")))
            pos, vals = pos[is_sep], vals[is_sep]
        del is_sep
        isnl = vals == 10
        nlines = int(np.count_nonzero(isnl))
        nl_upto = np.cumsum(isnl)                     # newlines at or before each separator
        del isnl
        gap = np.flatnonzero(pos[1:] - pos[:-1] > 1)  # a token between separators g, g+1
        ts = pos[gap] + 1
        te = pos[gap + 1]
        tl = nl_upto[gap]                             # line index of every token
        if len(pos) and pos[0] > PAD:                 # a field at the very start
            ts = np.concatenate(([PAD], ts))
            te = np.concatenate(([pos[0]], te))
            tl = np.concatenate(([0], tl))
        del pos, vals, gap, nl_upto
        if len(tl):
            firsts = np.flatnonzero(np.concatenate(([True], tl[1:] != tl[:-1])))
        else:
            firsts = np.zeros(0, np.int64)
        counts = np.diff(np.concatenate((firsts, [len(tl)])))
        data = a[ts[firsts]] != 35                    # not a '#' comment line
        short = data & (counts < 6)
        if short.any():
            i = int(np.flatnonzero(short)[0])
            error = (int(tl[firsts[i]]), _SHORT.format(int(counts[i])),
                     _text_at(buf, int(ts[firsts[i]])))
            data[i:] = False                          # rows before it are still checked
        f0 = firsts[data]
        lines = tl[f0]
        qs, qe = ts[f0], te[f0]
        ds, de = ts[f0 + 2], te[f0 + 2]
        ss, se = ts[f0 + 4], te[f0 + 4]
        tag = bytes(buf[ts[f0[0] + 5]:te[f0[0] + 5]]) if len(f0) else None
        del ts, te, tl, firsts, counts, data
    n = len(qs)
    if n == 0:
        return ChunkResult(nlines, 0, lines, np.zeros(0, "S8"), np.zeros(0),
                           np.zeros(0, np.int64), np.zeros(0, "S8"), None, error)
    scores, bad = parse_decimal(buf, ss, se)
    if bad < 0 and not np.isfinite(scores).all():     # inf / nan: not a ranking score
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
    if bad >= 0:
        text = _text_at(buf, int(ss[bad]))
        value = bytes(buf[ss[bad]:se[bad]]).decode("utf-8", "replace")
        return ChunkResult(nlines, 0, None, None, None, None, None, None,
                           error=(bad if lines is None else int(lines[bad]),
                                  f"score {value!r} is not a finite number", text))
    if error is not None:
        return ChunkResult(nlines, 0, None, None, None, None, None, None, error)
    qids = gather_fixed(buf, qs, qe - qs)
    if qids.dtype.itemsize == 8:
        qv = qids.view(np.uint64)
        change = qv[1:] != qv[:-1]
    else:
        change = qids[1:] != qids[:-1]
    qrun_starts = np.flatnonzero(change)
    qrun_starts += 1
    qrun_starts = np.concatenate(([0], qrun_starts))
    qrun_ids = qids[qrun_starts]
    del qids, change
    docnos = gather_fixed(buf, ds, de - ds)
    return ChunkResult(nlines, n, lines, docnos, scores, qrun_starts, qrun_ids, tag,
                       fast=fast)


# ---------------------------------------------------------------------------
# Assembling chunks into grouped columns
# ---------------------------------------------------------------------------

_PIECE_LOOP_MAX = 100_000      # above this many runs of equal qids, permute vectorised


class Collector:
    """Receives the ChunkResults in file order and writes their rows straight into
    preallocated columns (grown by doubling when an estimate falls short); then
    groups them by qid (:meth:`finish`).

    Writing into one array per column (instead of keeping per-chunk parts and
    concatenating) keeps the peak at the columns themselves: freed chunk parts would
    stay in the heap as holes and count in RSS.
    """

    def __init__(self, path: str, capacity: int = 1 << 16):
        self.path = path
        self.cap = max(int(capacity), 1024)
        self.n = 0
        self.line_base = 0
        self.docnos = None
        self.scores = np.empty(self.cap, np.float64)
        self.lines = np.empty(self.cap, np.int64)
        self.run_starts: list = []
        self.run_ids: list = []
        self.tag = None
        self.chunks = 0
        self.fast_chunks = 0

    def _realloc(self, cap: int, width: int) -> None:
        n = self.n
        for name in ("docnos", "scores", "lines"):
            old = getattr(self, name)
            if old is None:
                continue
            dtype = f"S{width}" if name == "docnos" else old.dtype
            if cap == self.cap and dtype == old.dtype:
                continue
            new = np.empty(cap, dtype)
            new[:n] = old[:n]
            setattr(self, name, new)
            del old
        self.cap = cap

    def add(self, r: "ChunkResult") -> None:
        """Append a chunk's rows (raises its error, with the physical line number)."""
        if r.error is not None:
            raise RunFormatError(self.path, self.line_base + r.error[0] + 1, r.error[1],
                                 r.error[2])
        self.chunks += 1
        self.fast_chunks += r.fast
        k, n = r.rows, self.n
        if k:
            w = r.docnos.dtype.itemsize
            if self.docnos is None:
                self.docnos = np.empty(self.cap, f"S{w}")
            if n + k > self.cap or w > self.docnos.dtype.itemsize:
                cap = self.cap if n + k <= self.cap else max(n + k, 2 * self.cap)
                self._realloc(cap, max(w, self.docnos.dtype.itemsize))
            self.docnos[n:n + k] = r.docnos
            self.scores[n:n + k] = r.scores
            dst = self.lines[n:n + k]
            if r.lines is None:                       # fast chunk: lines 0..k-1
                dst[:] = _arange(k)
            else:
                dst[:] = r.lines
            dst += self.line_base + 1
            self.run_starts.append(r.qrun_starts + n)
            self.run_ids.append(r.qrun_ids)
            if self.tag is None:
                self.tag = r.tag
            self.n = n + k
        self.line_base += r.nlines

    def finish(self) -> RunCols:
        """Group rows by qid, queries in byte order of their ids, rows of a query in
        file order: free when the file is grouped in byte order; else the maximal
        runs of one qid are copied in order (one concatenation of views per column,
        or a vectorised permutation when there are very many runs)."""
        n = self.n
        tag = (self.tag or b"").decode("utf-8", "replace")
        if n == 0:
            return RunCols(self.path, np.zeros(0, "U1"), np.zeros(1, np.int64),
                           np.zeros(0, "S8"), np.zeros(0), np.zeros(0, np.int64), tag)
        run_ids = np.concatenate(self.run_ids)
        run_s = np.concatenate(self.run_starts)
        self.run_ids = self.run_starts = None
        run_e = np.append(run_s[1:], n)
        uq, inv = np.unique(run_ids, return_inverse=True)
        counts = np.bincount(inv, weights=run_e - run_s, minlength=len(uq)).astype(np.int64)
        offsets = np.zeros(len(uq) + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        cols = {}
        if bool((inv[1:] >= inv[:-1]).all()):         # grouped, in byte order
            for name in ("docnos", "scores", "lines"):
                cols[name] = getattr(self, name)[:n]
                setattr(self, name, None)
        else:
            order = np.argsort(inv, kind="stable")
            if len(run_ids) <= _PIECE_LOOP_MAX:
                plan = list(zip(run_s[order].tolist(), run_e[order].tolist()))
                for name in ("docnos", "scores", "lines"):
                    col = getattr(self, name)
                    setattr(self, name, None)
                    cols[name] = np.concatenate([col[s:e] for s, e in plan])
                    del col
            else:
                ol = (run_e - run_s)[order]
                perm = np.repeat(run_s[order] - np.concatenate(([0], np.cumsum(ol)[:-1])), ol)
                perm += _arange(n)
                for name in ("docnos", "scores", "lines"):
                    col = getattr(self, name)
                    setattr(self, name, None)
                    cols[name] = col[perm]
                    del col
                del perm
        try:
            qids = np.char.decode(uq, "utf-8")
        except UnicodeDecodeError:
            for i, q in enumerate(uq.tolist()):
                try:
                    q.decode("utf-8")
                except UnicodeDecodeError:
                    line = int(cols["lines"][offsets[i]])
                    raise RunFormatError(self.path, line, "query id is not valid UTF-8",
                                         _line_text(self.path, line)) from None
            raise
        return RunCols(self.path, qids, offsets, cols["docnos"], cols["scores"],
                       cols["lines"], tag)


_ARANGE = np.zeros(0, np.int64)


def _arange(k: int) -> np.ndarray:
    global _ARANGE
    if len(_ARANGE) < k:
        _ARANGE = np.arange(max(k, 1 << 16) * 2, dtype=np.int64)
    return _ARANGE[:k]


def _line_text(path: str, line: int) -> str:
    """The text of a physical line (1-based), re-read on the error path only."""
    with open_binary(path) as f:
        for i, raw in enumerate(f, 1):
            if i == line:
                return raw.rstrip(b"\r\n").decode("utf-8", "replace")
    return ""


# ---------------------------------------------------------------------------
# The reader to integrate
# ---------------------------------------------------------------------------

def read_run(path: str, chunk_bytes: int = 4 << 20, workers: int = 1) -> RunCols:
    """Read a TREC run file into grouped flat columns (see the module docstring).

    ``chunk_bytes`` bounds the temporaries (a few times a chunk per worker);
    ``workers`` >= 1 parses chunks in that many threads (numpy releases the GIL in
    its loops) while the calling thread reads / decompresses the next chunks;
    ``workers=0`` does everything in the calling thread.
    """
    t0 = time.perf_counter()
    free: list[_Chunk] = []
    lock = threading.Lock()

    def get_buffer():
        with lock:
            if free:
                return free.pop()
        return _Chunk(chunk_bytes)

    def work(ch: _Chunk):
        try:
            return parse_chunk(ch.buf, ch.m)
        finally:
            with lock:
                free.append(ch)

    col = None
    total = [0.0]            # estimated uncompressed bytes of the file

    def note(ch: _Chunk):
        if ch.index == 0:    # bytes of text per byte of file, from the first chunk
            try:
                total[0] = size * ch.m / max(1, raw.tell())
            except (OSError, ValueError):             # a pipe: no size, no position
                total[0] = 0.0

    def add(r: ChunkResult, m: int):
        nonlocal col
        if col is None:      # capacity: rows of the first chunk scaled to the file
            est = r.rows / max(1, m) * total[0] * 1.1 if total[0] else 4 * r.rows
            col = Collector(path, int(est) + 1024)
        col.add(r)

    try:
        size = 0 if path == "-" else os.path.getsize(path)
    except OSError:
        size = 0
    with open_binary(path) as f:
        raw = getattr(f, "fileobj", None) or getattr(f, "_fp", None) or f
        if workers <= 0:                              # everything in the calling thread
            for ch in iter_chunks(f, chunk_bytes, get_buffer):
                note(ch)
                m = ch.m
                add(work(ch), m)
        else:
            with ThreadPoolExecutor(max_workers=workers) as ex:
                pending = []
                for ch in iter_chunks(f, chunk_bytes, get_buffer):
                    note(ch)
                    pending.append((ex.submit(work, ch), ch.m))
                    while len(pending) > workers:
                        fut, m = pending.pop(0)
                        add(fut.result(), m)
                for fut, m in pending:
                    add(fut.result(), m)
    if col is None:
        col = Collector(path)
    t1 = time.perf_counter()
    out = col.finish()
    out.timings = {"parse": t1 - t0, "assemble": time.perf_counter() - t1,
                   "chunks": col.chunks, "fast_chunks": col.fast_chunks}
    return out


# ---------------------------------------------------------------------------
# Baselines
# ---------------------------------------------------------------------------

def _from_rows(path, q, d, s, ln, tag) -> RunCols:
    """Assemble from per-row qid / docno 'S' arrays (shared by the baselines): the
    same grouping as read_run, with the whole file as one chunk."""
    n = len(q)
    r = ChunkResult(int(ln[-1]) if n else 0, n, ln - 1, d, s, None, None,
                    tag.encode() if tag else None)
    if n:
        r.qrun_starts = np.concatenate(([0], np.flatnonzero(q[1:] != q[:-1]) + 1))
        r.qrun_ids = q[r.qrun_starts]
    col = Collector(path, n)
    col.add(r)
    return col.finish()


def read_run_python(path: str) -> RunCols:
    """Reference: a plain Python loop over lines with bytes.split()."""
    q, d, s, ln = [], [], [], []
    tag = None
    with open_binary(path) as f:
        for i, raw in enumerate(f, 1):
            if i == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            t = raw.split()
            if not t or t[0].startswith(b"#"):
                continue
            if len(t) < 6:
                raise RunFormatError(path, i, f"expected 6 fields (QID Q0 DOCNO RANK SCORE TAG), "
                                     f"found {len(t)}", raw.rstrip(b"\r\n").decode("utf-8", "replace"))
            if b"\x00" in raw:
                raise RunFormatError(path, i, "binary file (NUL byte), not a run file")
            try:
                s.append(float(t[4]))
                if not math.isfinite(s[-1]):
                    raise ValueError
            except ValueError:
                raise RunFormatError(path, i, f"score {t[4].decode('utf-8', 'replace')!r} is "
                                     "not a finite number",
                                     raw.rstrip(b"\r\n").decode("utf-8", "replace")) from None
            q.append(t[0])
            d.append(t[2])
            ln.append(i)
            if tag is None:
                tag = t[5].decode("utf-8", "replace")
    return _from_rows(path, np.array(q, "S"), np.array(d, "S"), np.array(s, np.float64),
                      np.array(ln, np.int64), tag or "")


def read_run_split(path: str, chunk_bytes: int = 8 << 20) -> RunCols:
    """Chunked bytes.split() + numpy on the token list (clean files only: 6 fields on
    every line, no comments or blank lines; line numbers are row + 1)."""
    qp, dp, sp = [], [], []
    tag = None
    with open_binary(path) as f:
        carry = b""
        while True:
            data = f.read(chunk_bytes)
            eof = not data
            data = carry + data
            last = len(data) if eof else data.rfind(b"\n") + 1
            carry = data[last:]
            tok = data[:last].split()
            if len(tok) % 6:
                raise ValueError("read_run_split needs exactly 6 fields on every line")
            if tag is None and tok:
                tag = tok[5].decode()
            qp.append(np.array(tok[0::6], "S"))
            dp.append(np.array(tok[2::6], "S"))
            sp.append(np.array(tok[4::6], "S").astype(np.float64))
            del tok
            if eof:
                break
    q, d, s = np.concatenate(qp), np.concatenate(dp), np.concatenate(sp)
    return _from_rows(path, q, d, s, np.arange(1, len(q) + 1), tag or "")


def read_run_loadtxt(path: str) -> RunCols:
    """np.loadtxt with a structured dtype (numpy >= 1.23's C parser; whitespace split,
    '#' comments). Widths of the 'S' columns have to be guessed up front."""
    dt = np.dtype([("q", "S32"), ("q0", "S4"), ("d", "S64"), ("r", "i8"), ("s", "f8"),
                   ("t", "S64")])
    with open_binary(path) as f:
        arr = np.loadtxt(f, dtype=dt, comments="#", usecols=(0, 1, 2, 3, 4, 5))
    arr = np.atleast_1d(arr)
    q = arr["q"]
    d = arr["d"].astype(f"S{max(1, np.char.str_len(arr['d']).max())}") if len(arr) else arr["d"]
    s = np.ascontiguousarray(arr["s"])
    tag = arr["t"][0].decode() if len(arr) else ""
    del arr
    return _from_rows(path, q, d, s, np.arange(1, len(q) + 1), tag)


def read_run_pandas(path: str) -> RunCols:
    """pandas.read_csv(sep=r'\\s+'), C engine (pandas is not an allowed dependency;
    measured for reference)."""
    import pandas as pd
    df = pd.read_csv(path, sep=r"\s+", header=None, comment="#", usecols=[0, 2, 4, 5],
                     names=["q", "q0", "d", "r", "s", "t"], dtype={"q": str, "d": str, "t": str},
                     engine="c", compression="infer")
    q = df["q"].to_numpy().astype("S")
    d = df["d"].to_numpy().astype("S")
    s = df["s"].to_numpy(np.float64)
    tag = str(df["t"].iloc[0]) if len(df) else ""
    del df
    return _from_rows(path, q, d, s, np.arange(1, len(q) + 1), tag)


def read_run_pyarrow(path: str) -> RunCols:
    """pyarrow.csv with delimiter ' ' (multi-threaded C++). Only for single-space files:
    pyarrow has no 'runs of whitespace' delimiter, tabs/double spaces break it."""
    import pyarrow as pa
    import pyarrow.csv as pc
    tbl = pc.read_csv(
        path,
        read_options=pc.ReadOptions(column_names=["q", "q0", "d", "r", "s", "t"]),
        parse_options=pc.ParseOptions(delimiter=" ", quote_char=False),
        convert_options=pc.ConvertOptions(
            include_columns=["q", "d", "s", "t"],
            column_types={"q": pa.binary(), "d": pa.binary(), "s": pa.float64(),
                          "t": pa.string()}))
    q = _arrow_binary_to_S(tbl.column("q"))
    d = _arrow_binary_to_S(tbl.column("d"))
    s = tbl.column("s").to_numpy()
    tag = tbl.column("t")[0].as_py() if tbl.num_rows else ""
    del tbl
    return _from_rows(path, q, d, s, np.arange(1, len(q) + 1), tag)


def _arrow_binary_to_S(col) -> np.ndarray:
    """Arrow binary column -> numpy 'S' without Python objects (offsets + data buffer)."""
    import pyarrow as pa
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    offs = np.frombuffer(col.buffers()[1], np.int32)[col.offset:col.offset + len(col) + 1]
    data = col.buffers()[2]
    buf = bytearray(PAD) + bytearray(memoryview(data)) + bytearray(PAD)
    starts = offs[:-1].astype(np.int64) + PAD
    return gather_fixed(buf, starts, np.diff(offs).astype(np.int64))


def read_run_smarteval(path: str):
    """smarteval.readers.read_run as it is in the work tree (for comparison)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from smarteval.readers import read_run as sr
    r = sr(path)
    return RunCols(r.path, r.qids, r.offsets, r.docnos, r.scores, r.lines, r.tag)


CANDIDATES = {
    "smarteval": read_run_smarteval,
    "numpy": lambda p: read_run(p, workers=1),
    "numpy0": lambda p: read_run(p, workers=0),
    "numpy-8M": lambda p: read_run(p, chunk_bytes=8 << 20, workers=1),
    "numpy-16M": lambda p: read_run(p, chunk_bytes=16 << 20, workers=1),
    "numpy2": lambda p: read_run(p, workers=2),
    "numpy-1M": lambda p: read_run(p, chunk_bytes=1 << 20, workers=1),
    "python": read_run_python,
    "split": read_run_split,
    "loadtxt": read_run_loadtxt,
    "pandas": read_run_pandas,
    "pyarrow": read_run_pyarrow,
}


# ---------------------------------------------------------------------------
# Order check and qrels lookup (measured in NOTES.md)
# ---------------------------------------------------------------------------

def check_sorted(offsets: np.ndarray, scores: np.ndarray, docnos: np.ndarray | None = None):
    """One vectorised pass: are rows in (score desc[, docno desc]) order inside every
    query? Returns (score_desc, ties_docno_desc): ties are compared only where two
    neighbours in a query have equal scores."""
    n = len(scores)
    if n < 2:
        return True, True
    inc = scores[1:] > scores[:-1]
    starts = offsets[1:-1]
    starts = starts[(starts > 0) & (starts < n)]
    inc[starts - 1] = False                    # a new query may start higher
    if inc.any():
        return False, False
    if docnos is None:
        return True, True
    tie = np.flatnonzero(scores[1:] == scores[:-1])
    if len(tie):
        sb = np.zeros(n, bool)
        sb[starts] = True
        tie = tie[~sb[tie + 1]]
    return True, bool((docnos[tie + 1] < docnos[tie]).all())


def _keys64(docnos: np.ndarray) -> np.ndarray:
    """A uint64 key per docno: the bytes themselves when they fit in 8 (S8 view),
    else a multiply-xorshift hash of the 8-byte words."""
    w = docnos.dtype.itemsize
    if w % 8:
        docnos = docnos.astype(f"S{(w + 7) // 8 * 8}")
        w = docnos.dtype.itemsize
    words = np.ascontiguousarray(docnos).view(np.uint64).reshape(len(docnos), w // 8)
    if w == 8:
        return words[:, 0].copy()
    h = np.full(len(docnos), 0x9E3779B97F4A7C15, np.uint64)
    with np.errstate(over="ignore"):
        for j in range(w // 8):
            h ^= words[:, j]
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(31)
    return h


def lookup_searchsorted_S(run_q, run_d, qr_q, qr_d, qr_g):
    """smarteval's first _lookup: vocabulary = np.unique(qrels docnos); searchsorted of
    every run docno ('S' comparisons) into it; then a searchsorted of the (query, code)
    keys of the hits into the sorted qrels keys."""
    vocab = np.unique(qr_d)
    nv = len(vocab)
    pos = np.searchsorted(vocab, run_d)
    np.minimum(pos, nv - 1, out=pos)
    found = vocab[pos] == run_d
    qkeys = qr_q.astype(np.int64) * nv + np.searchsorted(vocab, qr_d)
    o = np.argsort(qkeys)
    qkeys, qg = qkeys[o], qr_g[o]
    keys = run_q[found] * nv + pos[found]
    at = np.minimum(np.searchsorted(qkeys, keys), len(qkeys) - 1)
    hit = qkeys[at] == keys
    rel = np.full(len(run_d), -1, np.int64)
    rel[found] = np.where(hit, qg[at], -1)
    return rel


def lookup_searchsorted_key(run_q, run_d, qr_q, qr_d, qr_g):
    """Combined 64-bit key per (query, docno): the docno's uint64 key (bytes or hash)
    mixed with the query index; searchsorted of the n run keys into the m sorted qrels
    keys, then an exact check of the few hits."""
    kq = _pair_key(qr_q, _keys64(qr_d))
    kr = _pair_key(run_q, _keys64(run_d))
    o = np.argsort(kq)
    ks = kq[o]
    i = np.searchsorted(ks, kr)
    i[i >= len(ks)] = len(ks) - 1 if len(ks) else 0
    hit = ks[i] == kr if len(ks) else np.zeros(len(kr), bool)
    rel = np.full(len(run_d), -1, np.int64)
    h = np.flatnonzero(hit)
    j = o[i[h]]
    ok = (qr_q[j] == run_q[h]) & (qr_d[j] == run_d[h])
    rel[h[ok]] = qr_g[j[ok]]
    return rel


def _pair_key(q, k):
    with np.errstate(over="ignore"):
        return (k * np.uint64(0x9E3779B97F4A7C15)) ^ (q.astype(np.uint64) * np.uint64(0xD6E8FEB86659FD93))


def lookup_hash(run_q, run_d, qr_q, qr_d, qr_g):
    """Open-addressing hash table built from the m qrels pairs (size a power of two
    >= 4m), probed for the n run pairs with vectorised linear probing; exact check of
    every hit."""
    m = len(qr_q)
    rel = np.full(len(run_d), -1, np.int64)
    if m == 0:
        return rel
    bits = max(4, int(np.ceil(np.log2(4 * m))))
    size = 1 << bits
    shift = np.uint64(64 - bits)
    kq = _pair_key(qr_q, _keys64(qr_d))
    with np.errstate(over="ignore"):
        hq = ((kq * np.uint64(0x9E3779B97F4A7C15)) >> shift).astype(np.int64)
    table = np.full(size, -1, np.int64)
    # insert with vectorised linear probing
    todo = np.arange(m)
    slot = hq.copy()
    while len(todo):
        s = slot[todo]
        empty = table[s] == -1
        cand = todo[empty]
        table[s[empty]] = cand                   # last writer wins per slot
        won = table[slot[cand]] == cand
        placed = cand[won]
        rest = np.setdiff1d(todo, placed, assume_unique=True)
        slot[rest] = (slot[rest] + 1) & (size - 1)
        todo = rest
    kr = _pair_key(run_q, _keys64(run_d))
    with np.errstate(over="ignore"):
        hr = ((kr * np.uint64(0x9E3779B97F4A7C15)) >> shift).astype(np.int64)
    active = np.arange(len(kr))
    while len(active):
        t = table[hr[active]]
        occupied = t >= 0
        match = np.zeros(len(active), bool)
        match[occupied] = kq[t[occupied]] == kr[active[occupied]]
        found = active[match]
        rel[found] = np.where(
            (qr_q[t[match]] == run_q[found]) & (qr_d[t[match]] == run_d[found]),
            qr_g[t[match]], -1)
        cont = occupied & ~match
        active = active[cont]
        hr[active] = (hr[active] + 1) & (size - 1)
    return rel


def lookup_bucket(run_q, run_d, qr_q, qr_d, qr_g):
    """Bucketed hash (CSR): the m qrels pairs sorted by slot, ``starts`` (N+1,) per slot,
    N a power of two >= 8m. Each run row: hash -> its bucket -> compare the 64-bit key
    with the bucket's first entry; the rare rows whose bucket holds 2+ entries take
    more rounds. Exact (query, docno) check on the hits only. O(n) gathers on arrays
    that stay in cache, no sort of the n rows."""
    n, m = len(run_d), len(qr_q)
    rel = np.full(n, -1, np.int64)
    if m == 0 or n == 0:
        return rel
    bits = max(4, int(np.ceil(np.log2(8 * m))))
    shift = np.uint64(64 - bits)
    mult = np.uint64(0x9E3779B97F4A7C15)
    kq = _pair_key(qr_q, _keys64(qr_d))
    with np.errstate(over="ignore"):
        sq = ((kq * mult) >> shift).astype(np.int64)
    o = np.argsort(sq, kind="stable")
    kq = kq[o]
    starts = np.zeros((1 << bits) + 1, np.int32)
    np.cumsum(np.bincount(sq, minlength=1 << bits), out=starts[1:])
    if len(np.unique(kq)) != m:                      # two pairs share a 64-bit key
        return lookup_searchsorted_key(run_q, run_d, qr_q, qr_d, qr_g)
    kr = _pair_key(run_q, _keys64(run_d))
    with np.errstate(over="ignore"):
        sr = kr * mult
    sr >>= shift
    sr = sr.astype(np.intp)
    b0 = starts[sr]
    size = starts[sr + 1] - b0
    idx = np.flatnonzero(size)
    at = b0[idx].astype(np.int64)
    left = size[idx]
    kri = kr[idx]
    while len(idx):
        hit = kq[at] == kri
        if hit.any():
            h = idx[hit]
            j = o[at[hit]]
            ok = (qr_q[j] == run_q[h]) & (qr_d[j] == run_d[h])
            rel[h[ok]] = qr_g[j[ok]]
        more = ~hit & (left > 1)
        idx, at, left, kri = idx[more], at[more] + 1, left[more] - 1, kri[more]
    return rel


def lookup_isin_sort(run_q, run_d, qr_q, qr_d, qr_g):
    """Baseline: global np.unique over run and qrels docnos (what to avoid)."""
    alld = np.concatenate((qr_d.astype(run_d.dtype) if qr_d.dtype.itemsize <= run_d.dtype.itemsize
                           else qr_d, run_d.astype(qr_d.dtype) if qr_d.dtype.itemsize >
                           run_d.dtype.itemsize else run_d))
    u, inv = np.unique(alld, return_inverse=True)
    m = len(qr_d)
    kq = qr_q.astype(np.int64) * len(u) + inv[:m]
    kr = run_q.astype(np.int64) * len(u) + inv[m:]
    o = np.argsort(kq)
    ks = kq[o]
    i = np.clip(np.searchsorted(ks, kr), 0, len(ks) - 1)
    hit = ks[i] == kr
    rel = np.full(len(run_d), -1, np.int64)
    rel[hit] = qr_g[o[i[hit]]]
    return rel


LOOKUPS = {"bucket": lookup_bucket, "hash": lookup_hash, "searchsorted-key": lookup_searchsorted_key,
           "searchsorted-S": lookup_searchsorted_S, "np.unique": lookup_isin_sort}


# ---------------------------------------------------------------------------
# Command line: bench / verify / one
# ---------------------------------------------------------------------------

def _peak_rss_mib() -> float:
    """Peak RSS of this process image (VmHWM: unlike ru_maxrss, it does not count the
    parent's RSS at fork time)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _one(name: str, path: str) -> dict:
    base_rss = _peak_rss_mib()
    if name in ("pandas",):
        import pandas  # noqa: F401  (import cost not counted in the read time)
    if name == "smarteval":
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        import smarteval.readers  # noqa: F401
    if name in ("pyarrow",):
        import pyarrow.csv  # noqa: F401
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    r = CANDIDATES[name](path)
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    return {"candidate": name, "seconds": dt, "peak_rss_mib": _peak_rss_mib(),
            "user_s": r1.ru_utime - r0.ru_utime, "sys_s": r1.ru_stime - r0.ru_stime,
            "rss_before_mib": base_rss, "rows": len(r), "queries": int(len(r.qids)),
            "timings": {k: v for k, v in r.timings.items() if v is not None}}


def _bench(path: str, names: list[str], repeat: int) -> list[dict]:
    rows = []
    for name in names:
        runs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, __file__, "one", name, path],
                               capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if p.returncode:
                runs.append({"error": p.stderr.strip().splitlines()[-1] if p.stderr else "?"})
                break
            d = json.loads(p.stdout)
            d["process_s"] = wall
            runs.append(d)
        ok = [r for r in runs if "error" not in r]
        if not ok:
            rows.append({"candidate": name, "error": runs[0]["error"]})
            continue
        med = lambda k: float(np.median([r[k] for r in ok]))  # noqa: E731
        rows.append({"candidate": name, "read_s": med("seconds"), "process_s": med("process_s"),
                     "read_min_s": min(r["seconds"] for r in ok),
                     "user_s": med("user_s"), "sys_s": med("sys_s"),
                     "peak_rss_mib": max(r["peak_rss_mib"] for r in ok),
                     "rss_before_mib": ok[0]["rss_before_mib"], "rows": ok[0]["rows"],
                     "timings": ok[len(ok) // 2]["timings"]})
    return rows


def _verify(path: str, names: list[str]) -> int:
    ref = read_run_python(path)
    bad = 0
    for name in names:
        try:
            r = CANDIDATES[name](path)
        except Exception as e:  # noqa: BLE001
            print(f"{name:12s} ERROR {type(e).__name__}: {str(e).splitlines()[0]}")
            bad += name.startswith("numpy")
            continue
        same = (list(r.qids) == list(ref.qids) and np.array_equal(r.offsets, ref.offsets)
                and np.array_equal(r.docnos, ref.docnos)
                and np.array_equal(r.scores.view(np.uint64), ref.scores.view(np.uint64))
                and r.tag == ref.tag)
        lines_same = np.array_equal(r.lines, ref.lines)
        print(f"{name:12s} columns {'same' if same else 'DIFFERENT'}; "
              f"lines {'same' if lines_same else 'different'}")
        bad += not same and name.startswith("numpy")
    return bad


_EDGE_CASES = {
    "no_final_newline": b"1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.5 t",
    "bom_crlf": b"\xef\xbb\xbf1 Q0 d1 1 2.5 t\r\n1 Q0 d2 2 1.5 t\r\n",
    "mixed_crlf_tabs": b"1\tQ0\td1\t1\t2.5\tt\r\n1 Q0 d2 2 1.5 t\n1 Q0 d3 3 1.0 u\r\n",
    "lone_cr": b"1 Q0 d\r1 1 2.5 t\n1 Q0 d2 2 1.5 t\n",
    "comments_blank": b"# header\n\n1 Q0 d1 1 2.5 t\n   \t \n  # indented comment\n1\tQ0\td2\t2\t1.5\tt\n\n",
    "runs_of_ws": b"  1  Q0\t\td1 1   2.5 t  \n1 \t Q0 d2 2 1.5 t\t\n",
    "extra_fields": b"1 Q0 d1 1 2.5 t extra more\n1 Q0 d2 2 1.5 t\n",
    "ungrouped": b"2 Q0 a 1 3 t\n10 Q0 b 1 3 t\n2 Q0 c 2 2 t\n1 Q0 d 1 1 t\n10 Q0 e 2 1 t\n",
    "numeric_order": b"".join(b"%d Q0 d%d %d %.4f r\n" % (q, i, i, 10 - i / 7)
                              for q in (1, 2, 9, 10, 11, 100) for i in range(5)),
    "signs_and_forms": b"1 Q0 a 1 -2.500000 t\n1 Q0 b 2 +1.250000 t\n1 Q0 c 3 -0.000000 t\n"
                       b"1 Q0 d 4 0.100000 t\n",
    "mixed_forms": b"1 Q0 a 1 .5 t\n1 Q0 b 2 5. t\n1 Q0 c 3 7 t\n1 Q0 d 4 1e-3 t\n"
                   b"1 Q0 e 5 -1.5E+02 t\n1 Q0 f 6 1E3 t\n",
    "long_mantissa": b"1 Q0 a 1 16.159867767488401 t\n1 Q0 b 2 0.8234567891234567 t\n"
                     b"1 Q0 c 3 123456789.123456789 t\n1 Q0 d 4 9007199254.740993 t\n",
    "varied_decimals": b"1 Q0 a 1 1.5 t\n1 Q0 b 2 1.25 t\n1 Q0 c 3 1.125 t\n",
    "long_docnos": b"1 Q0 clueweb09-en0000-00-00000 1 2 t\n1 Q0 " + b"x" * 300 + b" 2 1 t\n"
                   b"2 Q0 doc-with-17-chars 1 1 t\n",
    "only_comments": b"# nothing\n\n",
    "empty": b"",
    "utf8_ids": "q\u00e9 Q0 d\u00f6c 1 1.0 t\u00e4g\n".encode(),
}

_ERROR_CASES = {
    "short_line": (b"1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.5\n", 2, "expected 6 fields"),
    "crlf_empty_tag": (b"1 Q0 d1 1 2.5 t\r\n1 Q0 d2 2 1.5 \r\n", 2, "expected 6 fields"),
    "bad_score": (b"# c\n1 Q0 d1 1 2.5 t\n\n1 Q0 d2 2 abc t\n", 4, "not a finite number"),
    "bad_before_short": (b"1 Q0 d1 1 x t\n1 Q0\n", 1, "not a finite number"),
    "inf_score": (b"1 Q0 d1 1 2.5 t\n1 Q0 d2 2 -inf t\n", 2, "not a finite number"),
    "nan_score": (b"1 Q0 d1 1 nan t\n", 1, "not a finite number"),
    "nul_byte": (b"1 Q0 d1 1 2.5 t\n1 Q0 d\x002 2 1.5 t\n", 2, "NUL byte"),
    "bad_utf8_qid": (b"1 Q0 d1 1 2.5 t\n\xff Q0 d2 2 1.5 t\n", 2, "not valid UTF-8"),
    "late_error": (b"1 Q0 d 1 1.0 t\n" * 5000 + b"1 Q0 d 1 1.0\n", 5001, "expected 6 fields"),
}


def _same(r, ref) -> bool:
    return (list(r.qids) == list(ref.qids) and np.array_equal(r.offsets, ref.offsets)
            and np.array_equal(r.docnos, ref.docnos)
            and np.array_equal(r.scores.view(np.uint64), ref.scores.view(np.uint64))
            and np.array_equal(r.lines, ref.lines) and r.tag == ref.tag)


def selftest(tmpdir: str | None = None, data_dir: str | None = None) -> int:
    """read_run against the Python reference on edge cases, with tiny chunks (seams
    everywhere), compressed copies and 1-2 workers; error cases name the right line."""
    import tempfile
    tmp = tmpdir or tempfile.mkdtemp(prefix="lab_reader_")
    failures = 0
    files = []
    for name, content in _EDGE_CASES.items():
        p = os.path.join(tmp, name + ".run")
        with open(p, "wb") as f:
            f.write(content)
        files.append(p)
        for ext, mod in (("gz", gzip), ("bz2", bz2), ("xz", lzma)):
            with mod.open(p + "." + ext, "wb") as f:
                f.write(content)
            files.append(p + "." + ext)
    data_dir = data_dir or os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    for name in ("msmarco-tiny.run", "msmarco-tiny.messy.run", "trec-tiny/runs/run03.txt",
                 "trec-tiny/runs/run04.txt", "trec/runs/run03.txt", "trec/runs/run04.txt"):
        if os.path.exists(os.path.join(data_dir, name)):
            files.append(os.path.join(data_dir, name))
    for p in files:
        ref = read_run_python(p)
        for chunk in (64, 1000, 8 << 20):
            for workers in (1, 2):
                r = read_run(p, chunk_bytes=chunk, workers=workers)
                if not _same(r, ref):
                    failures += 1
                    print(f"FAIL {p} chunk={chunk} workers={workers}")
    for name, (content, line, problem) in _ERROR_CASES.items():
        p = os.path.join(tmp, name + ".run")
        with open(p, "wb") as f:
            f.write(content)
        for chunk in (64, 8 << 20):
            try:
                read_run(p, chunk_bytes=chunk)
                failures += 1
                print(f"FAIL {name}: no error")
            except RunFormatError as e:
                expected_text = content.split(b"\n")[line - 1].rstrip(b"\r").decode(
                    "utf-8", "replace")
                if e.line != line or problem not in e.problem or (
                        e.text != expected_text and problem != "NUL byte"):
                    failures += 1
                    print(f"FAIL {name} chunk={chunk}: {e.line} {e.problem!r} {e.text!r}")
    print(f"selftest: {len(files)} files x 6 settings, {len(_ERROR_CASES)} error cases: "
          f"{'ok' if not failures else f'{failures} failures'}")
    return 1 if failures else 0


def dups_lexsort(offsets, docnos):
    """smarteval's first check: lexsort on (query code, big-endian docno words)."""
    n = len(docnos)
    codes = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    width = docnos.dtype.itemsize
    nwords = (width + 7) // 8
    padded = np.zeros((n, nwords * 8), dtype=np.uint8)
    padded[:, :width] = docnos.view(np.uint8).reshape(n, width)
    words = padded.view(">u8")
    keys = [words[:, i].astype(np.uint64) for i in range(nwords)]
    order = np.lexsort(tuple(reversed(keys)) + (codes,))
    same = codes[order[1:]] == codes[order[:-1]]
    for w in keys:
        same &= w[order[1:]] == w[order[:-1]]
    return bool(same.any())


def dups_hash_sort(offsets, docnos):
    """A 64-bit hash of (query, docno) per row, np.sort of the hashes (values, not an
    argsort), adjacent equal values? None: no duplicate (exact: equal pairs hash
    equal). Some: an exact check of just those rows (true duplicates or a collision)."""
    q = np.repeat(np.arange(len(offsets) - 1, dtype=np.uint64), np.diff(offsets))
    h = _pair_key(q, _keys64(docnos))
    del q
    with np.errstate(over="ignore"):
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
    h.sort()
    eq = h[1:] == h[:-1]
    if not eq.any():
        return False
    return dups_lexsort(offsets, docnos)   # rare: settle exactly (a subset would do)


def dups_segmented(offsets, docnos):
    """Queries of equal length (1,000 each): sort each row of a (Q, L) key matrix."""
    lens = np.diff(offsets)
    if len(lens) == 0 or (lens != lens[0]).any() or docnos.dtype.itemsize > 8:
        return dups_hash_sort(offsets, docnos)
    k = _keys64(docnos).reshape(len(lens), int(lens[0]))
    k.sort(axis=1)
    return bool((k[:, 1:] == k[:, :-1]).any())


DUPS = {"lexsort (smarteval now)": dups_lexsort, "hash + np.sort": dups_hash_sort,
        "segmented sort": dups_segmented}


def _read_qrels_simple(path):
    q, d, g = [], [], []
    with open_binary(path) as f:
        for raw in f:
            t = raw.split()
            if len(t) >= 4 and not t[0].startswith(b"#"):
                q.append(t[0]); d.append(t[2]); g.append(int(t[3]))
    return np.array(q, "S"), np.array(d, "S"), np.array(g, np.int64)


def lookup_bench(run_path, qrels_path, repeat=3):
    """CPU time of each qrels lookup and of check_sorted on a run (run read first)."""
    run = read_run(run_path)
    qq, qd, qg = _read_qrels_simple(qrels_path)
    rq_bytes = np.char.encode(run.qids, "utf-8")
    qi = np.searchsorted(rq_bytes, qq)
    qi = np.minimum(qi, len(rq_bytes) - 1)
    ok = rq_bytes[qi] == qq
    qr_q, qr_d, qr_g = qi[ok], qd[ok], qg[ok]
    run_q = np.repeat(np.arange(len(run.qids), dtype=np.int64), np.diff(run.offsets))
    print(f"{run_path}: {len(run.docnos):,} rows, docnos {run.docnos.dtype}; "
          f"qrels {len(qr_d):,} pairs in the run's queries")
    ref = None
    for name, fn in LOOKUPS.items():
        best = 1e9
        for _ in range(repeat):
            t0 = time.process_time()
            rel = fn(run_q, run.docnos, qr_q, qr_d, qr_g)
            best = min(best, time.process_time() - t0)
        agree = "" if ref is None else ("same" if np.array_equal(rel, ref) else "DIFFERENT")
        ref = rel if ref is None else ref
        print(f"  lookup {name:18s} {best * 1000:8.1f} ms cpu  hits {int((rel >= 0).sum()):,} {agree}")
    for name, fn in DUPS.items():
        best = 1e9
        for _ in range(repeat):
            t0 = time.process_time()
            res = fn(run.offsets, run.docnos)
            best = min(best, time.process_time() - t0)
        print(f"  duplicates {name:24s} {best * 1000:8.1f} ms cpu  -> {res}")
    for label, args in (("scores only", (run.offsets, run.scores)),
                        ("scores + docno ties", (run.offsets, run.scores, run.docnos))):
        best = 1e9
        for _ in range(repeat):
            t0 = time.process_time()
            res = check_sorted(*args)
            best = min(best, time.process_time() - t0)
        print(f"  check_sorted {label:20s} {best * 1000:8.1f} ms cpu  -> {res}")


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bench")
    b.add_argument("path")
    b.add_argument("-c", "--candidates", default="numpy,numpy0,numpy2,python,split,loadtxt,pandas,pyarrow")
    b.add_argument("-r", "--repeat", type=int, default=3)
    b.add_argument("--json")
    o = sub.add_parser("one")
    o.add_argument("name")
    o.add_argument("path")
    sub.add_parser("selftest")
    lk = sub.add_parser("lookup")
    lk.add_argument("run")
    lk.add_argument("qrels")
    v = sub.add_parser("verify")
    v.add_argument("path")
    v.add_argument("-c", "--candidates", default="numpy,numpy0,numpy2,numpy-1M,split,loadtxt,pandas,pyarrow")
    a = ap.parse_args(argv)
    if a.cmd == "one":
        print(json.dumps(_one(a.name, a.path)))
        return 0
    if a.cmd == "selftest":
        return selftest()
    if a.cmd == "lookup":
        lookup_bench(a.run, a.qrels)
        return 0
    if a.cmd == "verify":
        return 1 if _verify(a.path, a.candidates.split(",")) else 0
    rows = _bench(a.path, a.candidates.split(","), a.repeat)
    print(f"{a.path}  ({os.path.getsize(a.path) / 2**20:.0f} MiB), median of {a.repeat} "
          f"(min for 'min s'); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cpus")
    print(f"{'candidate':12s} {'read s':>8s} {'min s':>7s} {'user s':>7s} {'sys s':>6s} "
          f"{'process s':>10s} {'peak RSS MiB':>13s} {'RSS before':>11s}  notes")
    for r in rows:
        if "error" in r:
            print(f"{r['candidate']:12s} failed: {r['error']}")
            continue
        t = r["timings"]
        note = " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in t.items())
        print(f"{r['candidate']:12s} {r['read_s']:8.3f} {r['read_min_s']:7.3f} {r['user_s']:7.3f} "
              f"{r['sys_s']:6.3f} {r['process_s']:10.3f} "
              f"{r['peak_rss_mib']:13.0f} {r['rss_before_mib']:11.0f}  {note}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
