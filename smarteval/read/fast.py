"""Fast run reader: a chunked, vectorised byte tokenizer over the file's bytes (numpy only).

Reads a TREC run into grouped flat columns in bounded memory: fields are separated by
runs of the bytes C's isspace takes (trec_eval's), lines end in LF or CRLF, a UTF-8 BOM
is skipped, blank and ``#`` lines are skipped, fields after the sixth are ignored, and
compressed input is recognised by its magic bytes. A line it refuses raises
:class:`LineError` with the line's bytes, which :func:`smarteval.read.plain.read_run`
gives the checked tokenizer to word (the file is not read again); anything it cannot
take otherwise (a query id that is not UTF-8, a chunk of blank space) makes the plain
reader read the file.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import field
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from smarteval.columns import distinct
from smarteval.errors import InputError
from smarteval.read.keys import (
    ID_ERRORS,
    IS_SEPARATOR,
    concat_ids,
    decode_ids,
    fixed_width_pays,
    id_lengths,
)
from smarteval.read.source import TextGuard, decompressing, display, is_compressed, open_binary
from smarteval.records import record
from smarteval.threads import spare_cpus


class LineError(InputError):
    """An error the fast reader found at a line, with the line's bytes (``raw``):
    ``definite`` when the checked tokenizer refuses the line too (it words the message),
    False when it may take it (a query id that is not UTF-8, a chunk of blank space)."""

    def __init__(self, path: str, line: int, problem: str, raw: bytes = b"",
                 definite: bool = True):
        super().__init__(path, line, problem,
                         raw.rstrip(b"\r\n").decode("utf-8", "replace") or None)
        self.raw = raw
        self.definite = definite

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.problem, self.raw, self.definite))


@record(eq=False)
class RunCols:
    """A run read: its columns grouped by query, and how long the reading took."""

    path: str
    qids: np.ndarray      # (Q,) str, byte order
    offsets: np.ndarray   # (Q+1,) int64
    docnos: np.ndarray    # (n,) 'S'
    scores: np.ndarray    # (n,) float64
    lines: np.ndarray | None  # (n,) int64, 1-based physical line numbers (if kept)
    tag: str
    timings: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.docnos)


# ---------------------------------------------------------------------------
# Opening and chunking
# ---------------------------------------------------------------------------

PAD = 256                      # bytes kept free before and after a chunk's data
_PAD_FILL = b" " * PAD


class _Chunk:
    """One buffer: PAD bytes, ``m`` data bytes ending in a newline, PAD bytes."""

    __slots__ = ("buf", "m", "index", "scratch")

    def __init__(self, size: int):
        self.buf = bytearray(PAD + size + PAD)
        self.buf[:PAD] = _PAD_FILL
        self.m = 0
        self.index = 0
        self.scratch: dict[str, np.ndarray] = {}   # temporaries reused with the buffer


def iter_chunks(f, chunk_bytes: int, get_buffer, guard: TextGuard | None = None):
    """Fill buffers from ``get_buffer()`` with whole lines (the last one may be padded
    with a newline). Yields each filled _Chunk; a line longer than a chunk grows it.
    ``guard`` checks the bytes as they are read (a NUL byte, a line or blank space
    too long are refused before more is read)."""
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
        if guard is not None:
            guard.check(ch.buf, PAD + nc, PAD + got)
        eof = got < size                            # (before a BOM shortens the chunk)
        if first:
            first = False
            if ch.buf[PAD:PAD + 3] == b"\xef\xbb\xbf":   # UTF-8 BOM
                ch.buf[PAD:PAD + got - 3] = ch.buf[PAD + 3:PAD + got]
                got -= 3
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


def gather_fixed(buf: bytearray, start: np.ndarray, length: np.ndarray,
                 wmax: int | None = None, scratch: dict | None = None) -> np.ndarray:
    """Fields ``buf[start:start+length]`` as an 'S' array, NUL-padded to a multiple
    of 8 bytes (bytes past a field's end are zeroed with per-word masks); ``wmax`` is
    the longest field's length, when known; ``scratch`` keeps the masks."""
    n = len(start)
    if n == 0:
        return np.zeros(0, "S8")
    if wmax is None:
        wmax = int(length.max())
    words = max(1, (wmax + 7) // 8)
    if words * 8 > PAD:
        return _gather_wide(buf, start, length, wmax)
    u = _u64_view(buf)
    if words == 1:
        v = u[start]
        mask = None if scratch is None else _scratch(scratch, "mask", n, np.uint64)
        v &= np.take(_U64_MASK, length, out=mask, mode="clip")
        return v.view("S8")
    out = np.empty((n, words), np.uint64)
    for w in range(words):
        v = u[start + 8 * w]
        v &= _U64_MASK[np.clip(length - 8 * w, 0, 8)]
        out[:, w] = v
    return out.view(f"S{8 * words}").ravel()


def gather_ids(buf: bytearray, start: np.ndarray, length: np.ndarray,
               scratch: dict | None = None) -> np.ndarray:
    """Ids ``buf[start:start+length]`` as an id column (:mod:`smarteval.read.keys`): at a
    fixed width when it pays, else variable-length. The long ids of a variable-length
    column are gathered in classes of widths within a factor of two of each other, each
    class at its own width, so no id is padded to more than twice its length."""
    n = len(start)
    if n == 0:
        return np.zeros(0, "S8")
    wmax = int(length.max())
    if fixed_width_pays((wmax + 7) // 8 * 8, n, lambda: int(length.sum())):
        return gather_fixed(buf, start, length, wmax, scratch)
    out = np.empty(n, dtype=object)
    # 0: up to 8 bytes, 1: 9 to 16, 2: 17 to 32 ...
    width_class = np.frexp(((length - 1) // 8).astype(np.float64))[1]
    for c in distinct(width_class).tolist():
        rows = np.flatnonzero(width_class == c)
        out[rows] = gather_fixed(buf, start[rows], length[rows]).astype(object)
    return out


def _gather_wide(buf, start, length, wmax):
    """:func:`gather_fixed` for fields longer than the padding: every field's words read
    through the u64 view straight into its row, with index arrays as long as the
    fields' words (not rows x longest field), the bytes past each field's end masked."""
    n = len(start)
    words = (wmax + 7) // 8
    u = _u64_view(buf)
    count = (length + 7) // 8                           # words of each field
    total = int(count.sum())
    row = np.repeat(np.arange(n, dtype=np.int64), count)
    first = np.cumsum(count) - count                    # each field's first word, flat
    j = np.arange(total, dtype=np.int64)
    j -= first[row]                                     # the word's place in its field
    v = u[start[row] + 8 * j]
    v &= _U64_MASK[np.minimum(length[row] - 8 * j, 8)]
    out = np.zeros((n, words), np.uint64)
    row *= words
    row += j
    out.ravel()[row] = v
    return out.view(f"S{8 * words}").ravel()


_POW10 = np.array([float(10 ** i) for i in range(23)])      # each exact: 10^22 = 5^22 2^22
_POW10_U64 = 10 ** np.arange(9, dtype=np.uint64)
#: the high i bytes of a word set (i = 0..8)
_HIGH_BYTES = np.ascontiguousarray(~_U64_MASK[::-1])
#: the high i - 1 bytes of a word set (i = 0..9): a field of i bytes with a dot
_HIGH_BYTES_1 = np.concatenate((_HIGH_BYTES[:1], _HIGH_BYTES))
_ONES8 = np.uint64(0x0101010101010101)
_SIGN8 = np.uint64(0x8080808080808080)
_ZERO8 = np.uint64(0x3030303030303030)        # '0' in every byte
_DOT_ZERO7 = np.uint64(0x2E30303030303030)    # '.' in the top byte, '0' below
_DOT8 = np.uint64(0x2E2E2E2E2E2E2E2E)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
# + this sets a byte's top bit iff the byte is >= 10 (the top byte's: iff it is not 0)
_BELOW10 = np.uint64(0x7676767676767676)
_BELOW1_10 = np.uint64(0x7F76767676767676)
#: folding 8 digit values (the first in the low byte) into their number, in place:
#: pairs into 16-bit lanes, fours into 32-bit lanes, all eight (see :func:`_fold`)
_FOLDS = ((None, np.uint64(10 << 8 | 1), np.uint64(8)),
          (np.uint64(0x00FF00FF00FF00FF), np.uint64(100 << 16 | 1), np.uint64(16)),
          (np.uint64(0x0000FFFF0000FFFF), np.uint64(10000 << 32 | 1), np.uint64(32)))


def _fold(x: np.ndarray) -> None:
    """Each word of ``x``, 8 bytes of digit values 0..9 (the first digit in the low
    byte), into their number, in place. A step multiplies each lane by 1 + 10**j << w
    (w its width): the lane above gets itself plus 10**j times this lane (at most
    99, 9999, 99999999: no carry into the next lane) and the shift by w brings it down;
    the mask keeps every other lane. The products wrap past 64 bits, which drops only
    bits that are shifted out or masked off."""
    for mask, mul, by in _FOLDS:
        if mask is not None:
            x &= mask
        x *= mul
        x >>= by


def parse_decimal(buf: bytearray, start: np.ndarray, end: np.ndarray,
                  scratch: dict | None = None):
    """Parse the fields ``buf[start:end]`` as floats, exactly as ``float()`` does.

    The fields ``[+-]digits.digits`` are read a word at a time (SWAR) into an exact
    integer mantissa M < 2**53, and the value is M / 10**k for k fraction digits: one
    correctly rounded division of two exact doubles while M < 2**53 (Clinger's fast
    path), hence bit-identical to strtod. The fields with the first field's k <= 7 and
    at most 8 bytes besides the dot take one word (:func:`_decimal_short`); the others
    are grouped by k and take two words when k <= 8 and at most 7 bytes come before the
    dot (:func:`_decimal_words`), three when 9 <= k <= 16 and their mantissa is below
    2**53 (:func:`_decimal_long`, the fields of ``%.14f`` and ``%.16g``). The rest go
    to :func:`_decimal_columns`, and so do all fields when the first has no dot or more
    than 16 digits after it. The fields come in the buffer's order, the first at least
    16 bytes into it (a chunk's data has its padding before it; 24 for three words).
    Returns (values, bad): bad is the index of the first field that is not a number, or
    -1. The temporaries are kept in ``scratch`` (see :func:`_scratch`); the values never
    are.
    """
    n = len(start)
    if n == 0:
        return np.zeros(0), -1
    if int(start[0]) < 16:                            # no room for a field's last words
        return _decimal_columns(buf, start, end, scratch)
    s0, e0 = int(start[0]), int(end[0])
    k0 = e0 - s0 - 1 - bytes(buf[s0:e0]).rfind(b".")  # the first field's k
    if 1 <= k0 <= 7:
        vals, left = _decimal_short(buf, start, end, k0, scratch)
        if left is None:
            return vals, -1
        rows = np.flatnonzero(left)
    elif k0 == 8:
        vals = np.empty(n)
        rows = np.arange(n)
    elif 9 <= k0 <= 16 and s0 >= 24:                  # long fields (%.14f, %.16g)
        vals, left = _decimal_long(_windows(buf, end, 3), end - start, k0, scratch)
        if left is None:
            return vals, -1
        rows = np.flatnonzero(left)
    else:                                             # (repr)
        return _decimal_columns(buf, start, end, scratch)
    # the rows left, grouped by their k
    length = np.subtract(end[rows], start[rows])
    win = _windows(buf, end[rows], 2)                 # each field's last 16 bytes
    places = _dot_places(win, scratch)
    if s0 >= 24 and (places == 9).any():              # no dot in the last 9 bytes
        far = np.flatnonzero(places == 9)
        places[far] = _long_dot_places(_windows(buf, end[rows[far]], 3))
    left = np.ones(len(rows), bool)
    for k in distinct(places).tolist():
        if not 1 <= k <= 16:
            continue
        at = np.flatnonzero(places == k)
        idx = rows[at]
        if k <= 8:
            v, lk = _decimal_words(win[at], length[at], k, scratch)
        else:
            v, lk = _decimal_long(_windows(buf, end[idx], 3), length[at], k, scratch)
        if lk is None:
            vals[idx] = v
            left[at] = False
        else:
            vals[idx[~lk]] = v[~lk]
            left[at[~lk]] = False
    rows = rows[left]
    if len(rows) == 0:
        return vals, -1
    if len(rows) == n:
        return _decimal_columns(buf, start, end, scratch)
    v, b = _decimal_columns(buf, start[rows], end[rows], scratch)
    vals[rows] = v
    return vals, (-1 if b < 0 else int(rows[b]))


def _windows(buf: bytearray, end: np.ndarray, words: int) -> np.ndarray:
    """The last ``words`` words (8 bytes each) of the fields ending at ``end``, as an
    (n, words) uint64 array (the bytes before a short field included)."""
    width = 8 * words
    win = np.ndarray((len(buf) - width + 1,), f"V{width}", buffer=buf, strides=(1,))
    return win[end - width].view(np.uint64).reshape(len(end), words)


#: Rows of :func:`_decimal_short` at a time (their temporaries stay in the cache).
_SHORT_BLOCK = 1 << 14


def _decimal_short(buf, start, end, k, scratch):
    """The fields ``[+-]d.f`` of k <= 7 fraction digits and at most 8 bytes besides the
    dot, ``_SHORT_BLOCK`` rows at a time: the word ending at the field's end, with the dot
    taken out (the bytes before it moved up one, the byte before the word brought in),
    holds the field's bytes in its high bytes; the bytes below them are masked off, a
    sign taken out, every byte left checked to be a digit and the eight folded into
    their number M (:func:`_fold`). Returns (values, rows not taken as a bool mask, or
    None when all are taken)."""
    n = len(start)
    words = np.frombuffer(buf, np.uint64, len(buf) // 8)
    if not words.flags.aligned:                       # np.take would copy the buffer
        return np.empty(n), np.ones(n, bool)
    vals = np.empty(n)
    left = None
    flip = _ZERO8 ^ np.uint64(0x1E << (8 * (7 - k)))  # digits to their values, the dot to 0
    dot = np.uint64(0xFF << (8 * (7 - k)))
    high, low = _HIGH_BYTES[k], _U64_MASK[8 - k]
    size = min(n, _SHORT_BLOCK)
    x_, y_, z_ = (_scratch(scratch, name, size, np.uint64)
                  for name in ("dec_x", "dec_y", "dec_z"))
    len_ = _scratch(scratch, "dec_len", size, np.int64)
    at_ = _scratch(scratch, "dec_at", size, np.int64)
    for b0 in range(0, n, _SHORT_BLOCK):
        b1 = min(n, b0 + _SHORT_BLOCK)
        m = b1 - b0
        x, y, z, length = x_[:m], y_[:m], z_[:m], len_[:m]
        _last_bytes(words, end[b0:b1], x, z, at_[:m], length)
        x ^= flip
        np.left_shift(x, np.uint64(8), out=y)
        y &= low                                      # the bytes before the dot, up one
        z ^= np.uint64(0x30)
        y |= z                                        # and the byte before them
        np.bitwise_and(x, dot, out=z)                 # 0 iff the dot is there
        x &= high
        x |= y
        np.subtract(end[b0:b1], start[b0:b1], out=length)
        np.take(_HIGH_BYTES_1, length, out=y, mode="clip")
        x &= y                                        # the field's bytes but the dot
        np.add(x, _BELOW10, out=y)                    # a byte >= 10 sets its top bit,
        y |= x                                        # a byte >= 0x80 has it
        y &= _SIGN8
        y |= z
        neg = None
        if int(y.max()) or int(length.min()) < k + 1 or int(length.max()) > 9:
            x, neg, fine = _short_signs(x, z, length, k)
            if not fine.all():
                if left is None:
                    left = np.zeros(n, bool)
                np.logical_not(fine, out=left[b0:b1])
        _fold(x)
        v = np.divide(x, _POW10[k], out=vals[b0:b1])
        if neg is not None:
            np.negative(v, out=v, where=neg)
    return vals, left


def _last_bytes(words, end, word, byte, at, shift):
    """Into ``word`` the bytes ``end - 8:end`` of the buffer as a word, into ``byte`` the
    byte before them, from the buffer's aligned ``words`` (np.take of an aligned array
    is several times as fast as a gather through an unaligned view): they are the bytes
    r..r + 8 of the two words from the one holding ``end - 9`` (r: its place in it), so
    no shift is by 64 bits or more. ``at`` and ``shift``: int64 scratch."""
    np.subtract(end, 9, out=at)
    np.bitwise_and(at, 7, out=shift)
    shift <<= 3                                       # 8r
    at >>= 3
    np.take(words, at, out=byte)
    at += 1
    np.take(words, at, out=word)
    byte >>= shift.view(np.uint64)                    # from byte end - 9 on
    np.subtract(56, shift, out=shift)
    word <<= shift.view(np.uint64)                    # the next word's bytes, after them
    rest = np.right_shift(byte, np.uint64(8), out=at.view(np.uint64))
    word |= rest
    byte &= np.uint64(0xFF)


def _short_signs(x, dots, length, k):
    """:func:`_decimal_short`'s rows with a sign or a byte that is not a digit: the sign
    byte taken out of the words ``x`` and the rows checked again. Returns the words, the
    rows with a '-', and the rows taken (one dot, at most 8 other bytes, all digits)."""
    first = np.right_shift(x, (((9 - length) & 7) << 3).astype(np.uint64))
    first &= np.uint64(0xFF)
    neg = first == (ord("-") ^ 0x30)
    signed = neg | (first == (ord("+") ^ 0x30))
    x &= np.take(_HIGH_BYTES_1, length - signed, mode="clip")
    check = x + _BELOW10
    check |= x
    check &= _SIGN8
    check |= dots                                     # 0 iff the dot is there
    fine = check == 0
    fine &= (length >= k + 1) & (length <= 9)
    return x, neg, fine


def _decimal_words(win, length, k, scratch):
    """The fields ``[+-]d.f`` of k <= 8 fraction digits f and at most 7 bytes ``[+-]d``,
    from ``win``, their last 16 bytes (two words; see :func:`_words_mantissa`).
    Returns (values, rows not taken as a bool mask, or None when all are taken); the
    values of the rows not taken are not set."""
    mantissa, neg, left = _words_mantissa(win[:, 0], win[:, 1], length, k, scratch)
    vals = np.divide(mantissa, _POW10[k])
    np.negative(vals, out=vals, where=neg)
    return vals, left


#: the largest mantissa of a long field's first 16 bytes whose whole mantissa can be
#: below 2**53 (:func:`_decimal_long`)
_LONG_HIGH = np.uint64((2 ** 53 - 1) // 10 ** 8)


def _decimal_long(win, length, k, scratch):
    """The fields ``[+-]d.f`` of 9 <= k <= 16 fraction digits f and at most 7 bytes
    ``[+-]d``, from ``win``, their last 24 bytes (three words): the field less its last
    8 digits is read as :func:`_decimal_words` reads a field of k - 8 fraction digits,
    the last word's 8 bytes are checked to be digits and folded, and the mantissa M is
    the first's times 10**8 plus the second. Taken while M < 2**53 (M / 10**k is then
    one correctly rounded division of exact doubles, as strtod gives); the others are
    left, with the same return as :func:`_decimal_words`."""
    mantissa, neg, left = _words_mantissa(win[:, 0], win[:, 1], length - 8, k - 8, scratch)
    low = np.bitwise_xor(win[:, 2], _ZERO8)
    check = np.add(low, _BELOW10)
    check |= low
    check &= _SIGN8
    taken = check == 0
    _fold(low)
    taken &= mantissa <= _LONG_HIGH                  # no wrap in the product below
    mantissa *= np.uint64(10 ** 8)
    mantissa += low
    taken &= mantissa < np.uint64(2 ** 53)
    if left is not None:
        taken &= ~left
    vals = np.divide(mantissa, _POW10[k])
    np.negative(vals, out=vals, where=neg)
    return vals, (None if taken.all() else ~taken)


def _long_dot_places(win):
    """The number k of bytes after the last '.' among the last 17 bytes of each field
    (``win``: their last 24 bytes), 99 without one."""
    last = win.view(np.uint8).reshape(len(win), 24)[:, :6:-1] == 46   # from the end
    return np.where(last.any(axis=1), last.argmax(axis=1), 99)


def _words_mantissa(w0, w1, length, k, scratch):
    """The fields ``[+-]d.f`` of 1 <= k <= 8 fraction digits f and at most 7 bytes
    ``[+-]d`` ending with the words ``w0``, ``w1`` (their last 16 bytes): f are the high
    k bytes of the word ending at the field's end, ``[+-]d.`` the high bytes of the word
    ending with the dot. The bytes below are masked off, every byte left is checked to be
    a digit (the dot: to be a dot, it counts as a digit 0) and the eight bytes of each
    word are folded into their number (:func:`_fold`). Returns (the mantissas d f as
    integers, in ``scratch``; the rows with a '-'; the rows not taken as a bool mask, or
    None when all are taken)."""
    n = len(w0)
    words = _scratch(scratch, "dec_words", 2 * n, np.uint64).reshape(2, n)
    spare = _scratch(scratch, "dec_spare", 2 * n, np.uint64).reshape(2, n)
    if k == 8:
        np.copyto(words[0], w0)
    else:                                             # the word ending with the dot
        np.right_shift(w0, np.uint64(8 * (8 - k)), out=words[0])
        np.left_shift(w1, np.uint64(8 * k), out=spare[0])
        words[0] |= spare[0]
    np.bitwise_xor(w1, _ZERO8, out=words[1])
    words[1] &= _HIGH_BYTES[k]
    lead = np.subtract(length, k + 1, out=_scratch(scratch, "dec_lead", n, np.int64))
    # the field's first byte (its sign, if any): byte 7 - lead of the dot's word
    shift = np.subtract(7, lead, out=_scratch(scratch, "dec_shift", n, np.int64))
    shift &= 7
    shift <<= 3
    first = np.right_shift(words[0], shift.view(np.uint64), out=spare[1])
    first &= np.uint64(0xFF)
    neg = np.equal(first, 45, out=_scratch(scratch, "dec_neg", n, bool))
    signed = np.equal(first, 43, out=_scratch(scratch, "dec_signed", n, bool))
    signed |= neg
    lead -= signed                                    # the digits before the dot
    np.add(lead, 1, out=shift)
    np.take(_HIGH_BYTES, shift, out=spare[0], mode="clip")
    words[0] ^= _DOT_ZERO7
    words[0] &= spare[0]
    np.add(words[0], _BELOW1_10, out=spare[0])
    np.add(words[1], _BELOW10, out=spare[1])
    spare |= words
    spare &= _SIGN8
    spare[0] |= spare[1]
    ok = np.equal(spare[0], 0, out=_scratch(scratch, "dec_ok", n, bool))
    # 1 <= digits before the dot, and at most 7 bytes before it
    np.subtract(k + 1 + 7, length, out=shift)
    shift |= lead - 1                                 # < 0: out of range
    all_taken = ok.all() and int(shift.min()) >= 0
    _fold(words)
    mantissa = words[0]                               # 10 x the digits before the dot
    mantissa *= _POW10_U64[k - 1]
    mantissa += words[1]
    if all_taken:
        return mantissa, neg, None
    return mantissa, neg, ~(ok & (shift >= 0))


def _dot_places(win, scratch):
    """The number k of bytes after the last '.' among the last 9 bytes of each field
    (``win``: their last 16 bytes), 9 without one."""
    n = len(win)
    word = _scratch(scratch, "dec_dot", n, np.uint64)
    z = _scratch(scratch, "dec_dot2", n, np.uint64)
    np.right_shift(win[:, 0], np.uint64(56), out=word)
    np.left_shift(win[:, 1], np.uint64(8), out=z)
    word |= z                                         # byte j: byte 9 - j from the end
    word ^= _DOT8                                     # a dot: a zero byte
    np.bitwise_and(word, _LOW7, out=z)
    z += _LOW7                                        # top bit: the low 7 bits are set
    z |= word                                         # top bit: the byte is not zero
    np.invert(z, out=z)
    z &= _SIGN8                                       # top bit: a dot
    for by in (8, 16, 32):                            # and the bytes below it
        np.right_shift(z, np.uint64(by), out=word)
        z |= word
    z >>= np.uint64(7)
    z &= _ONES8
    z *= _ONES8
    z >>= np.uint64(56)                               # the last dot's byte + 1, or 0
    return np.subtract(9, z.view(np.int64))


def _decimal_columns(buf, start, end, scratch):
    """:func:`parse_decimal` for any fields: rows are grouped by their number k <= 22
    of fraction digits; in a group the digits are read column by column from a
    right-aligned (n, W) byte matrix into an int64 mantissa M, and the value is
    M / 10**k, exact while M < 2**53. Everything else (no dot, exponents, inf, nan,
    mantissas of 16+ digits that reach 2**53) goes to numpy's own cast
    (``_parse_slow``)."""
    n = len(start)
    length = np.subtract(end, start, out=_scratch(scratch, "length", n, np.int64))
    w = int(length.max())
    a = np.frombuffer(buf, np.uint8)
    if w > 24 or int(length.min()) < 2:
        return _parse_slow(buf, start, length)
    left = np.subtract(end, w, out=_scratch(scratch, "left", n, np.int64))
    mat = sliding_window_view(a, w)[left]             # (n, w), right-aligned copy
    del left
    row0 = mat[0, w - int(length[0]):]
    dots = np.flatnonzero(row0 == 46)
    if len(dots) == 1:                                # one k for every row?
        k = len(row0) - 1 - int(dots[0])
        if (mat[:, w - 1 - k] == 46).all():
            return _decimal_k(a, buf, mat, k, start, length, scratch)
    # several k: group the rows by the column of their dot
    isdot = mat == 46
    dotcol = isdot.argmax(axis=1)
    ok = isdot[np.arange(n), dotcol] & (dotcol >= w - length)
    del isdot
    kk = w - 1 - dotcol
    vals = np.empty(n)
    bad = n
    for k in distinct(kk[ok]).tolist():
        idx = np.flatnonzero(ok & (kk == k))
        v, b = _decimal_k(a, buf, mat[idx], k, start[idx], length[idx], scratch)
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


def _decimal_k(a, buf, mat, k, start, length, scratch):
    """Rows whose field has its dot k bytes before its end (see parse_decimal)."""
    n, w = mat.shape
    c = w - 1 - k                                      # the dot's column
    if k > 22 or k >= int(length.min()) or not (mat[:, c] == 46).all():
        return _parse_slow(buf, start, length)
    first = a[start]
    neg = first == 45
    signed = neg | (first == 43)
    ndig = np.subtract(length, 1, out=_scratch(scratch, "ndig", n, np.int64))
    ndig -= signed                                     # digits in the field
    if int(ndig.min()) < 1 or int(ndig.max()) > 18:    # no digit / int64 overflow
        return _parse_slow(buf, start, length)
    digT = _scratch(scratch, "digits", n * w, np.uint8).reshape(w, n)
    np.copyto(digT, mat.T)                             # (w, n)
    digT -= np.uint8(48)
    # the first digit of every field sits in column w - ndig - 1 (after the sign, if
    # any); columns left of it hold other bytes of the line and count as 0
    fdc = np.subtract(w - 1, ndig, out=ndig)
    fdc_min = int(fdc.min())
    # the bytes left of each field's first digit, and the dot, count 0: masked in the
    # whole matrix at once, then checked for anything that is not a digit
    digits = digT[fdc_min:]
    inside = np.greater_equal(np.arange(fdc_min, w)[:, None], fdc[None, :],
                              out=_scratch(scratch, "inside", (w - fdc_min) * n,
                                           bool).reshape(w - fdc_min, n))
    inside[c - fdc_min] = False
    digits *= inside
    if np.greater(digits, 9, out=inside).any():
        return _parse_slow(buf, start, length)
    M = _scratch(scratch, "mantissa", n, np.int64)
    M.fill(0)
    for j in range(fdc_min, w):
        if j != c:
            M *= 10
            M += digT[j]
    vals = M / _POW10[k]
    np.negative(vals, out=vals, where=neg)
    if w - 1 - fdc_min > 15:                           # M may reach 2**53: not exact
        idx = np.flatnonzero(M >= 2 ** 53)
        if len(idx):
            sv, sbad = _parse_slow(buf, start[idx], length[idx])
            vals[idx] = sv
            return vals, (-1 if sbad < 0 else int(idx[sbad]))
    return vals, -1


def _parse_slow(buf, start, length):
    """numpy's own bytes->float cast on an 'S' gather (C, ~60 ns a value); accepts
    what float() accepts (exponents, inf, nan, surrounding whitespace excluded) but an
    underscore between digits (``1_000``), which no score grammar has."""
    s = gather_fixed(buf, start, length)
    underscore = np.char.count(s, b"_") > 0
    if underscore.any():
        return np.zeros(len(s)), int(np.flatnonzero(underscore)[0])
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


def _line_at(buf: bytearray, off: int) -> bytes:
    """The bytes of the line holding byte ``off`` of a chunk buffer (its line end too)."""
    s = buf.rfind(b"\n", PAD, off) + 1 or PAD
    s = max(s, PAD)
    e = buf.find(b"\n", off)
    return bytes(buf[s:e + 1])


@record
class ChunkResult:
    """One chunk tokenized: its rows' columns, or the error found in it."""

    nlines: int                     # physical lines in the chunk
    rows: int
    lines: np.ndarray | None        # (rows,) int64 line index in the chunk; None: 0..rows-1
    # the columns are None only in a result that carries an error
    docnos: Any
    scores: Any
    qrun_starts: Any                # (runs,) row where the qid changes (first: 0)
    qrun_ids: Any                   # (runs,) 'S' qid of each run
    tag: bytes | None
    error: Any = None      # (line index in the chunk, problem, line bytes, definite)
    fast: bool = False




def _scratch(scratch: dict | None, name: str, size: int, dtype) -> np.ndarray:
    """A scratch array of at least ``size`` items kept in ``scratch`` (a chunk buffer's),
    reused from chunk to chunk (fresh numpy temporaries of a few MiB each cost page
    faults every time); it goes away with the reader's buffers. Without ``scratch`` (a
    file of one chunk), a fresh array that goes away when no longer used, so that
    malloc hands its memory to the next temporary."""
    if scratch is None:
        return np.empty(size, dtype)
    arr = scratch.get(name)
    if arr is None or len(arr) < size:
        arr = np.empty(max(size, 1 << 16) * 5 // 4, dtype)
        scratch[name] = arr
    return arr[:size]


#: Bytes of a chunk whose whitespace positions are found at a time (:func:`_positions`).
_POSITIONS_BLOCK = 1 << 18


def _positions(ws: np.ndarray, count: int, scratch: dict | None) -> np.ndarray:
    """The positions in the chunk buffer (PAD added) of the ``count`` True bytes of
    ``ws``, in a scratch array. Found a block of bytes at a time: each block's positions
    are a small temporary that malloc hands out again block after block, where one
    array of all of them would be mapped fresh (and fault in page by page) every chunk."""
    pos = _scratch(scratch, "pos", count, np.int64)
    k = 0
    for lo in range(0, len(ws), _POSITIONS_BLOCK):
        p = np.flatnonzero(ws[lo:lo + _POSITIONS_BLOCK])
        np.add(p, lo + PAD, out=pos[k:k + len(p)])
        k += len(p)
    return pos


_SHORT = "expected 6 fields (QID Q0 DOCNO RANK SCORE TAG), found {}"


def parse_chunk(buf: bytearray, m: int, scratch: dict | None = None) -> ChunkResult:
    """Tokenize one chunk (``buf[PAD:PAD+m]``: whole lines, ending in a newline).

    Fast path (clean files): the whitespace bytes are exactly 5 single spaces and a
    newline per line, so their positions reshape to (lines, 6) and give every field's
    bounds directly. Otherwise the general path finds tokens (maximal runs of bytes
    other than space, tab, CR, LF) and their line numbers, skips blank and comment
    lines and takes tokens 0, 2, 4, 5 of each data line.
    """
    a = np.frombuffer(buf, np.uint8)
    b = a[PAD:PAD + m]
    sb = _scratch(scratch, "bool", m, bool)                    # reused: no page faults
    ws = np.less_equal(b, 32, out=sb)
    nws = int(np.count_nonzero(ws))
    if nws > m // 2 + 4096:
        # mostly whitespace (say, a line of millions of spaces): an int64 position per
        # whitespace byte would take 8 bytes a byte; the plain reader, which works on
        # token edges, takes it instead
        return ChunkResult(0, 0, None, None, None, None, None, None,
                           error=(0, "mostly whitespace", b"", False))
    pos = _positions(ws, nws, scratch)
    del ws
    vals = np.take(a, pos, out=_scratch(scratch, "vals", nws, np.uint8),
                   mode="clip")                      # every position is in the buffer
    pos_all, vals_all = pos, vals                     # for the general path
    fast = False
    crlf = False
    bare_cr = None                   # the line index of the first CR not before an LF
    if np.count_nonzero(np.equal(vals, 13, out=sb[:len(vals)])):
        # CRLF line ends: drop each CR that sits right before its LF
        cr = np.flatnonzero(sb[:len(vals)])
        nxt = np.minimum(cr + 1, len(pos) - 1)
        before_lf = (vals[nxt] == 10) & (pos[nxt] == pos[cr] + 1)
        if before_lf.all():
            keep = np.ones(len(pos), bool)
            keep[cr] = False
            pos, vals = pos[keep], vals[keep]
            crlf = True
        else:
            at = int(cr[np.flatnonzero(~before_lf)[0]])
            bare_cr = (int(np.count_nonzero(vals[:at] == 10)), int(pos[at]))
    n6 = len(pos) // 6
    if bare_cr is None and len(pos) == 6 * n6 and n6 and pos[0] > PAD:
        # one separator (space or tab) between the 6 fields, then LF: the separator
        # positions reshape to (lines, 6)
        nl = pos[5::6]
        v = vals[:len(pos)]
        row_ends = np.equal(vals[5::6], 10, out=sb[:n6])
        if row_ends.all() and np.count_nonzero(np.equal(v, 10, out=sb[:len(v)])) == n6 \
                and np.count_nonzero(np.equal(v, 32, out=sb[:len(v)])) \
                + np.count_nonzero(np.equal(v, 9, out=sb[:len(v)])) == 5 * n6:
            gaps = np.subtract(pos[1:], pos[:-1],
                               out=_scratch(scratch, "i64", len(pos) - 1, np.int64))
            if crlf:                                  # tag..CR..LF: the CR is not the tag
                gaps[4::6] -= a[nl - 1] == 13
            if int(gaps.min()) > 1:                   # no empty field
                ls = _scratch(scratch, "starts", n6, np.int64)
                ls[0] = PAD
                np.add(nl[:-1], 1, out=ls[1:])
                firsts = np.take(a, ls, out=_scratch(scratch, "firsts", n6, np.uint8),
                                 mode="clip")
                fast = not np.equal(firsts, 35, out=sb[:n6]).any()   # no comment line
            del gaps
    error = None
    if fast:
        P = pos.reshape(n6, 6)
        nlines = n6
        lines = None
        qs, qe = ls, P[:, 0]
        ds = np.add(P[:, 1], 1, out=_scratch(scratch, "docno_starts", n6, np.int64))
        de = P[:, 2]
        ss = np.add(P[:, 3], 1, out=_scratch(scratch, "score_starts", n6, np.int64))
        se = P[:, 4]
        tag: bytes | None = bytes(buf[P[-1, 4] + 1:P[-1, 5]]).rstrip(b"\r")
        del P, pos, nl, pos_all, vals_all
    else:
        pos, vals = pos_all, vals_all
        # separators: C's isspace (trec_eval's); any other control byte is part of a field
        is_sep = IS_SEPARATOR[vals]
        if not is_sep.all():
            if (vals == 0).any():
                at = int(pos[np.flatnonzero(vals == 0)[0]])
                nlb = int(np.count_nonzero(vals[:np.flatnonzero(vals == 0)[0]] == 10))
                return ChunkResult(0, 0, None, None, None, None, None, None,
                                   error=(nlb, "binary file (NUL byte), not a run file",
                                          b"", True))
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
        if bare_cr is not None:                       # lines end in LF or CRLF only
            short |= tl[firsts] >= bare_cr[0]
        if short.any():
            i = int(np.flatnonzero(short)[0])
            if bare_cr is not None and int(tl[firsts[i]]) >= bare_cr[0]:
                error = (bare_cr[0], "a carriage return not before a line feed",
                         _line_at(buf, bare_cr[1]), True)
            else:
                error = (int(tl[firsts[i]]), _SHORT.format(int(counts[i])),
                         _line_at(buf, int(ts[firsts[i]])), True)
            data[i:] = False                          # rows before it are still checked
        f0 = firsts[data]
        lines = tl[f0]
        qs, qe = ts[f0], te[f0]
        ds, de = ts[f0 + 2], te[f0 + 2]
        ss, se = ts[f0 + 4], te[f0 + 4]
        tag = bytes(buf[ts[f0[-1] + 5]:te[f0[-1] + 5]]) if len(f0) else None
        del ts, te, tl, firsts, counts, data
    n = len(qs)
    if n == 0:
        return ChunkResult(nlines, 0, lines, np.zeros(0, "S8"), np.zeros(0),
                           np.zeros(0, np.int64), np.zeros(0, "S8"), None, error)
    scores, bad = parse_decimal(buf, ss, se, scratch)
    if bad < 0 and not np.isfinite(scores).all():     # inf / nan: not a ranking score
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
    if bad >= 0:
        text = _line_at(buf, int(ss[bad]))
        value = bytes(buf[ss[bad]:se[bad]]).decode("utf-8", "replace")
        return ChunkResult(nlines, 0, None, None, None, None, None, None,
                           error=(bad if lines is None else int(lines[bad]),
                                  f"score {value!r} is not a finite number", text, True))
    if error is not None:
        return ChunkResult(nlines, 0, None, None, None, None, None, None, error)
    length = _scratch(scratch, "length", n, np.int64)
    qids = gather_ids(buf, qs, np.subtract(qe, qs, out=length), scratch)
    if qids.dtype == np.dtype("S8"):
        qv = qids.view(np.uint64)
        change = qv[1:] != qv[:-1]
    else:
        change = qids[1:] != qids[:-1]
    qrun_starts = np.flatnonzero(change)
    qrun_starts += 1
    qrun_starts = np.concatenate(([0], qrun_starts))
    qrun_ids = qids[qrun_starts]
    del qids, change
    docnos = gather_ids(buf, ds, np.subtract(de, ds, out=length), scratch)
    return ChunkResult(nlines, n, lines, docnos, scores, qrun_starts, qrun_ids, tag,
                       fast=fast)


# ---------------------------------------------------------------------------
# Assembling chunks into grouped columns
# ---------------------------------------------------------------------------

#: Grouping concatenates the runs of one qid up to this many runs, and goes through one
#: index array beyond.
_SLICE_RUNS_MAX = 100_000


class Collector:
    """Receives the ChunkResults in file order and writes their rows straight into
    preallocated columns (grown by doubling when an estimate falls short); then
    groups them by qid (:meth:`finish`).

    Writing into one array per column (instead of keeping per-chunk parts) keeps the
    peak at the columns themselves: the parts, made in the parsing threads, would stay
    in those threads' heaps as holes once freed and count in RSS. ``keep_lines`` False
    leaves out the column of line numbers (a reader that re-reads the file to word an
    error needs none; an error found here still names its line).
    """

    _iota: np.ndarray

    def _arange(self, k: int) -> np.ndarray:
        """0 .. k-1, as a view of one array grown as needed (freed with the collector)."""
        if len(self._iota) < k:
            self._iota = np.arange(max(k, 1 << 16) * 2, dtype=np.int64)
        return self._iota[:k]

    def __init__(self, path: str, capacity: int = 1 << 16, keep_lines: bool = True):
        self.path = path
        self.keep_lines = keep_lines
        self._iota = np.zeros(0, np.int64)      # 0, 1, 2 ... reused while assembling
        self.cap = max(int(capacity), 1024)
        self.n = 0
        self.line_base = 0
        self.docnos: Any = None                 # id column, made at the first chunk's width
        self.scores = np.empty(self.cap, np.float64)
        self.lines = np.empty(self.cap, np.int64) if keep_lines else None
        self.run_starts: Any = []
        self.run_ids: Any = []
        self.tag: bytes | None = None
        self.chunks = 0
        self.fast_chunks = 0
        #: (first row, physical lines before it, line index of each row or None) of
        #: every chunk, to name the line of a row when the lines are not kept
        self.chunk_lines: list[tuple[int, int, Any]] = []

    def _realloc(self, cap: int, docno_dtype: np.dtype) -> None:
        n = self.n
        for name in ("docnos", "scores", "lines"):
            old = getattr(self, name)
            if old is None:
                continue
            dtype = docno_dtype if name == "docnos" else old.dtype
            if len(old) >= cap and dtype == old.dtype:
                continue
            new = np.empty(cap, dtype)
            new[:n] = old[:n]
            setattr(self, name, new)
            del old
        self.cap = cap

    def add(self, r: ChunkResult) -> None:
        """Append a chunk's rows (raises its error, with the physical line number)."""
        if r.error is not None:
            line, problem, raw, definite = r.error
            raise LineError(self.path, self.line_base + line + 1, problem, raw, definite)
        self.chunks += 1
        self.fast_chunks += r.fast
        k, n = r.rows, self.n
        if k:
            if self.docnos is None:
                # the first rows' docnos are kept as they are: a file of one chunk is
                # never copied at its docnos' width; the column is made when more come
                if n + k > self.cap:
                    self._realloc(max(n + k, 2 * self.cap), r.docnos.dtype)
                self.docnos = r.docnos
            else:
                dtype = self._docno_dtype(r.docnos)
                if n + k > self.cap or dtype != self.docnos.dtype or n + k > len(self.docnos):
                    cap = self.cap if n + k <= self.cap else max(n + k, 2 * self.cap)
                    self._realloc(cap, dtype)
                self.docnos[n:n + k] = r.docnos
            self.scores[n:n + k] = r.scores
            if self.lines is not None:
                dst = self.lines[n:n + k]
                dst[:] = self._arange(k) if r.lines is None else r.lines   # fast: 0..k-1
                dst += self.line_base + 1
            elif r.lines is not None or self.chunk_lines:
                self.chunk_lines.append((n, self.line_base, r.lines))
            self.run_starts.append(r.qrun_starts + n)
            self.run_ids.append(r.qrun_ids)
            if r.tag is not None:      # trec_eval reports the last line's tag
                self.tag = r.tag
            self.n = n + k
        self.line_base += r.nlines

    def _docno_dtype(self, docnos: np.ndarray) -> np.dtype:
        """The docno column's type once a chunk's ``docnos`` join it: the wider fixed
        width while it pays (:func:`~smarteval.read.keys.fixed_width_pays` over every
        docno so far), else variable-length."""
        old, new = self.docnos.dtype, docnos.dtype
        if old.kind == "O" or new.kind == "O":
            return np.dtype(object)
        if new.itemsize <= old.itemsize:
            return old
        if fixed_width_pays(new.itemsize, self.n + len(docnos), lambda: int(
                id_lengths(self.docnos[:self.n]).sum() + id_lengths(docnos).sum())):
            return new
        return np.dtype(object)

    def finish(self) -> RunCols:
        """Group rows by qid, queries in byte order of their ids, rows of a query in
        file order: free when the file is grouped in byte order; else the maximal runs
        of one qid are copied to their query's place, one column at a time, each
        column's ungrouped copy freed before the next is grouped (wide docnos are
        permuted in place, :func:`_permute_in_place`)."""
        n = self.n
        tag = (self.tag or b"").decode("utf-8", ID_ERRORS)
        if n == 0:
            return RunCols(self.path, np.zeros(0, "U1"), np.zeros(1, np.int64),
                           np.zeros(0, "S8"), np.zeros(0),
                           np.zeros(0, np.int64) if self.keep_lines else None, tag)
        run_ids = concat_ids(self.run_ids)
        run_s = np.concatenate(self.run_starts)
        self.run_ids = self.run_starts = None
        run_len = np.diff(np.append(run_s, n))
        uq, inv = np.unique(run_ids, return_inverse=True)
        del run_ids
        counts = np.bincount(inv, weights=run_len, minlength=len(uq)).astype(np.int64)
        offsets = np.zeros(len(uq) + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        qids = self._qids(uq, inv, run_s)
        cols: dict[str, Any] = {}
        if bool((inv[1:] >= inv[:-1]).all()):         # grouped, in byte order
            for name in ("docnos", "scores", "lines"):
                col = getattr(self, name)
                cols[name] = None if col is None else col[:n]
                setattr(self, name, None)
        else:
            order = np.argsort(inv, kind="stable")    # the runs in their new order
            spare = None                              # the ungrouped docnos' memory
            for name in ("docnos", "scores", "lines"):
                col = getattr(self, name)
                setattr(self, name, None)
                if col is None:
                    cols[name] = None
                elif col.dtype.kind == "S" and col.dtype.itemsize > _IN_PLACE_WIDTH \
                        and col.dtype.itemsize % 8 == 0:
                    # wide docnos are put in order in place, a word at a time: a copy
                    # of the column would double the memory of the widest column
                    cols[name] = _permute_in_place(col[:n], _source_rows(order, run_s,
                                                                         run_len))
                else:
                    # the scores go where the ungrouped docnos were (pages already
                    # touched, not fresh ones) when those are fixed-width bytes
                    out = None
                    if name == "scores" and spare is not None:
                        out = spare.view(np.uint8)[:8 * n].view(np.float64)
                    cols[name] = _grouped(col, order, run_s, run_len, out)
                    if name == "docnos" and col.dtype.kind == "S" \
                            and col.flags.c_contiguous and col.nbytes >= 8 * n:
                        spare = col
                del col
            del spare
        return RunCols(self.path, qids, offsets, cols["docnos"], cols["scores"],
                       cols["lines"], tag)

    def _qids(self, uq: np.ndarray, inv: np.ndarray, run_s: np.ndarray) -> np.ndarray:
        """The distinct qids as text, a byte that is not UTF-8 as a lone surrogate (as
        the checked tokenizer keeps it); where that text sorts otherwise than the bytes
        (such an id among ids with characters above U+007F), an error naming the first
        line of that query, for the checked tokenizer to read the run."""
        try:
            return decode_ids(uq)
        except UnicodeDecodeError:
            text = decode_ids(uq, ID_ERRORS)
            if bool((text[1:] > text[:-1]).all()):
                return text
            for i, q in enumerate(uq.tolist()):
                try:
                    q.decode("utf-8")
                except UnicodeDecodeError:
                    line = self._line_of(int(run_s[int(np.flatnonzero(inv == i)[0])]))
                    # the checked tokenizer takes it (the id keeps its bytes)
                    raise LineError(self.path, line, "query id is not valid UTF-8",
                                    definite=False) from None
            raise

    def _line_of(self, row: int) -> int:
        """The physical line number (1-based) of a row of the ungrouped columns."""
        if self.lines is not None:
            return int(self.lines[row])
        if not self.chunk_lines:                      # every line so far a row
            return row + 1
        at = int(np.searchsorted([c[0] for c in self.chunk_lines], row, side="right")) - 1
        if at < 0:                                    # in the chunks before: rows are lines
            return row + 1
        first, line_base, lines = self.chunk_lines[at]
        local = row - first
        return line_base + 1 + (local if lines is None else int(lines[local]))


def _grouped(col: np.ndarray, order: np.ndarray, run_s: np.ndarray,
             run_len: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The runs of rows ``run_s``, ``run_len`` of ``col`` one after another in
    ``order`` (in ``out`` when given, else a new column): one concatenation of their
    views, or a gather through one index array when there are very many runs."""
    if len(run_s) <= _SLICE_RUNS_MAX:
        return np.concatenate([col[s:s + k] for s, k in zip(run_s[order].tolist(),
                                                            run_len[order].tolist())],
                              out=out)
    return np.take(col, _source_rows(order, run_s, run_len), out=out)


def _source_rows(order: np.ndarray, run_s: np.ndarray, run_len: np.ndarray) -> np.ndarray:
    """The row each grouped row comes from (the runs of rows ``run_s``, ``run_len`` one
    after another in ``order``)."""
    starts, lengths = run_s[order], run_len[order]
    perm = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    perm += np.arange(len(perm), dtype=np.int64)
    return perm


#: Docnos wider than this many bytes are grouped in place (:func:`_permute_in_place`).
_IN_PLACE_WIDTH = 64


def _permute_in_place(docnos: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """``docnos[perm]`` written over ``docnos`` itself (a width of whole 8-byte words), one
    word column at a time: the only copy is of one word per row."""
    words = docnos.view(np.uint64).reshape(len(docnos), -1)
    for w in range(words.shape[1]):
        words[:, w] = words[perm, w]
    return docnos


# ---------------------------------------------------------------------------
# The reader
# ---------------------------------------------------------------------------

#: Files of more than this many chunks are parsed by two threads when two CPUs are free
#: to run them (:func:`parser_threads`).
_TWO_THREADS_CHUNKS = 4


def parser_threads(size: int, chunk_bytes: int, compressed: bool = False) -> int:
    """How many threads parse a file of ``size`` bytes (0: unknown) while the calling
    thread reads it. Threads pay only on CPUs that are free (:func:`spare_cpus`): on a
    busy machine every chunk is parsed in the calling thread (threads would only add
    switching and colder caches), as is a file of one chunk. With a second CPU free, a
    file of more than :data:`_TWO_THREADS_CHUNKS` chunks is parsed by two threads
    (numpy releases the GIL in its loops, so two chunks are parsed at once), a
    compressed one by one while the calling thread decompresses."""
    if 0 < size <= chunk_bytes and not compressed:
        return 0
    if spare_cpus() < 2:
        return 0
    if compressed or (0 < size <= _TWO_THREADS_CHUNKS * chunk_bytes):
        return 1
    return 2


class ChunkParser:
    """Buffers of whole lines recycled from chunk to chunk, and their tokenizing in file
    order: in the calling thread, or (``workers`` >= 1) in that many threads while the
    calling thread reads the next chunks (numpy leaves the interpreter's lock in its
    loops), at most ``workers`` chunks ahead. ``scratch`` False tokenizes without
    keeping scratch arrays with the buffers (a file of one chunk)."""

    def __init__(self, chunk_bytes: int, workers: int = 0, scratch: bool = True):
        self.chunk_bytes, self.workers, self.scratch = chunk_bytes, workers, scratch
        self._free: list[_Chunk] = []
        self._lock = threading.Lock()

    def buffer(self) -> _Chunk:
        """A free buffer (:func:`iter_chunks`' ``get_buffer``)."""
        with self._lock:
            if self._free:
                return self._free.pop()
        return _Chunk(self.chunk_bytes)

    def _parse(self, ch: _Chunk) -> ChunkResult:
        try:
            return parse_chunk(ch.buf, ch.m, ch.scratch if self.scratch else None)
        finally:
            with self._lock:
                self._free.append(ch)

    def results(self, chunks: Iterable[tuple[_Chunk, Any]],
                thread_name: str = "") -> Iterator[tuple[ChunkResult, Any]]:
        """Each chunk of ``chunks`` (a buffer filled by :func:`iter_chunks` and what the
        caller tells of it, taken before the buffer is used again) tokenized, in order."""
        if self.workers <= 0:
            for ch, told in chunks:
                yield self._parse(ch), told
            return
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=thread_name) as ex:
            pending: deque = deque()
            try:
                for ch, told in chunks:
                    pending.append((ex.submit(self._parse, ch), told))
                    while len(pending) > self.workers:
                        fut, was = pending.popleft()
                        yield fut.result(), was
                while pending:
                    fut, was = pending.popleft()
                    yield fut.result(), was
            finally:
                for fut, _ in pending:            # an error: the rest is not waited for
                    fut.cancel()

    def release(self) -> None:
        """Let the buffers go."""
        self._free.clear()


def read_run(path: str, chunk_bytes: int = 4 << 20, workers: int | None = None,
             keep_lines: bool = True, stream: Any = None,
             expected: str | None = None) -> RunCols:
    """Read a TREC run file into grouped flat columns (see the module docstring).

    ``stream``: the file's raw bytes, already open (an input read once, which ``path``
    names in messages only); ``expected`` ends the refusals of the text as it is read
    (:class:`~smarteval.read.source.TextGuard`).

    ``chunk_bytes`` bounds the temporaries (a few times a chunk per worker);
    ``workers`` >= 1 parses chunks in that many threads while the calling thread reads
    / decompresses the next chunks; ``workers=0`` does everything in the calling thread;
    None chooses by the file's size (:func:`parser_threads`). Every choice gives the
    same columns and the same first error. ``keep_lines`` False leaves out the column
    of line numbers.
    """
    t0 = time.perf_counter()
    try:
        size = 0 if path == "-" or stream is not None else os.path.getsize(path)
    except OSError:
        size = 0
    col = None
    total = 0.0                # estimated uncompressed bytes of the file

    def add(r: ChunkResult, m: int):
        nonlocal col
        if col is None:      # capacity: rows of the first chunk scaled to the file
            est = r.rows / max(1, m) * total * 1.1 if total else 4 * r.rows
            col = Collector(path, int(est) + 1024, keep_lines)
        col.add(r)

    guard = TextGuard(display(path), "a run file", expected)
    with (open_binary(path) if stream is None else decompressing(stream, path)) as f:
        compressed = is_compressed(f)
        raw = getattr(f, "fileobj", None) or getattr(f, "_fp", None) or f
        if workers is None:
            workers = parser_threads(size, chunk_bytes, compressed)
        one_chunk = 0 < size <= chunk_bytes and not compressed
        if one_chunk:          # one chunk of plain text: no thread, no scratch arrays kept
            workers = 0
        if workers <= 0 and not compressed and size > 0:  # plain text: a buffer of its size
            chunk_bytes = min(chunk_bytes, size + 1)
        parser = ChunkParser(chunk_bytes, workers, scratch=not one_chunk)
        chunks = iter_chunks(f, chunk_bytes, parser.buffer, guard)
        first = next(chunks, None)
        if first is not None:  # bytes of text per byte of file, from the first chunk
            try:
                total = size * first.m / max(1, raw.tell())
            except (OSError, ValueError):             # a pipe: no size, no position
                total = 0.0
            chunks = itertools.chain([first], chunks)
        for r, m in parser.results((ch, ch.m) for ch in chunks):
            add(r, m)
    if col is None:
        col = Collector(path, keep_lines=keep_lines)
    parser.release()
    t1 = time.perf_counter()
    out = col.finish()
    out.timings = {"parse": t1 - t0, "assemble": time.perf_counter() - t1,
                   "chunks": col.chunks, "fast_chunks": col.fast_chunks}
    return out
