"""Readers: TREC run and qrels files (plain, gzip, bzip2, xz, stdin) into flat columns."""

from __future__ import annotations

import functools
import os

import numpy as np

from smarteval.columns import Qrels, Run, block_query_index
from smarteval.errors import InputError
from smarteval.read.keys import (
    ID_ERRORS,
    IS_SEPARATOR,
    decode_ids,
    docno_hash,
    is_varlen,
    key_table,
    sort_key_words,
)
from smarteval.read.source import (
    Spool,
    TextGuard,
    corrupt,
    display,
    is_stream,
    read_bytes,
    read_padded,
    text_size,
)

RUN_EXPECTED = "QUERY_ID Q0 DOC_ID RANK SCORE RUN_TAG (6 fields, whitespace-separated)"
QRELS_EXPECTED = "QUERY_ID ITERATION DOC_ID RELEVANCE (4 fields, whitespace-separated)"

_CHUNK = 1 << 24  # bytes tokenised at a time: bounds the temporary arrays


# --------------------------------------------------------------------------- bytes

# --------------------------------------------------------------------------- tokenizer

#: The refusal of a carriage return that does not end a line.
BARE_CR = ("a carriage return (CR) not followed by a line feed: lines end in LF or CRLF "
           "(a file with CR line ends: tr '\\r' '\\n' < FILE)")


def _bare_cr(data: bytes, buf: np.ndarray) -> int:
    """The offset of the first CR in ``data`` that is neither before an LF nor the last
    byte, or -1."""
    first = data.find(b"\r")
    if first < 0:
        return -1
    cr = np.flatnonzero(buf[first:] == 13) + first
    after = np.minimum(cr + 1, len(buf) - 1)
    bare = (buf[after] != 10) & (cr + 1 < len(buf))
    return int(cr[np.argmax(bare)]) if bare.any() else -1


class _Lines:
    """The usable lines of a text file, tokenised: per line the start/end of its fields."""

    def __init__(self, data: bytes, name: str, nfields: int, expected: str, kind: str,
                 exact: bool = False, first_line: int = 1):
        """``exact``: a line holds exactly ``nfields`` fields and no line is blank (qrels,
        as trec_eval reads them); otherwise later fields and blank lines are ignored (runs).
        ``first_line``: the number of ``data``'s first line in its file.

        Fields are separated by the bytes C's isspace takes (trec_eval's:
        :data:`~smarteval.read.keys.SEPARATORS`); lines end in LF or CRLF, and a CR
        anywhere else is refused (a file with CR line ends would read as one line).
        """
        self.data = data
        self.exact = exact
        self.first_line = first_line
        self._padded: bytearray | None = None
        self.name = name
        if data.startswith(b"\xef\xbb\xbf"):
            data = b"   " + data[3:]  # keep byte offsets (and so line text) stable
            self.data = data
        TextGuard(name, f"a {kind} file", expected).check(data)
        self.buf = np.frombuffer(data, dtype=np.uint8)
        cr = _bare_cr(data, self.buf)
        if cr >= 0:
            line = data.count(b"\n", 0, cr)
            raise InputError(name, first_line + line, BARE_CR,
                             text=self.line_text(first_line + line), expected=expected)
        starts, ends, lines = [], [], []
        pos = 0
        line_base = first_line - 1
        n = len(data)
        while pos < n:
            stop = min(pos + _CHUNK, n)
            if stop < n:
                nl = data.rfind(b"\n", pos, stop)
                if nl < 0:
                    nl = data.find(b"\n", stop)
                    stop = n if nl < 0 else nl + 1
                else:
                    stop = nl + 1
            s, e, ln, nlines = self._chunk(pos, stop, nfields, expected, kind, line_base)
            starts.append(s)
            ends.append(e)
            lines.append(ln)
            line_base += nlines
            pos = stop
        if starts:
            self.starts = np.concatenate(starts)
            self.ends = np.concatenate(ends)
            self.lines = np.concatenate(lines)
        else:
            self.starts = np.zeros((0, nfields), np.int64)
            self.ends = np.zeros((0, nfields), np.int64)
            self.lines = np.zeros(0, np.int64)
        if len(self.lines) == 0:
            raise InputError(name, None,
                             f"no {kind} lines (empty, or only blank and comment lines)",
                             expected=expected)

    def _chunk(self, lo: int, hi: int, nfields: int, expected: str, kind: str,
               line_base: int):
        b = self.buf[lo:hi]
        ws = IS_SEPARATOR[b]
        # the clean path takes a position per separator: only when at most every other
        # byte is one, as in any clean chunk (a line of millions of spaces is not)
        clean = None
        if 2 * np.count_nonzero(ws) <= len(b):
            clean = self._clean_chunk(b, np.flatnonzero(ws), nfields)
        if clean is not None:
            starts, ends = clean
            nlines = len(starts)
            return (starts + lo, ends + lo,
                    np.arange(line_base + 1, line_base + nlines + 1, dtype=np.int64), nlines)
        nlpos = np.flatnonzero(b == 10)
        if len(nlpos) == 0 or nlpos[-1] != len(b) - 1:
            nlpos = np.append(nlpos, len(b))   # last line without a newline
        nlines = len(nlpos)
        # token edges: where a token byte follows a separator or the reverse
        edge = np.empty(len(b) + 1, dtype=bool)
        edge[0] = not ws[0] if len(b) else False
        np.not_equal(ws[1:], ws[:-1], out=edge[1:-1])
        edge[-1] = not ws[-1] if len(b) else False
        del ws
        bounds = np.flatnonzero(edge)
        del edge
        tstart = bounds[0::2]
        tend = bounds[1::2]
        del bounds
        tline = np.searchsorted(nlpos, tstart)         # 0-based line of each token
        ntok = np.bincount(tline, minlength=nlines)
        first = np.zeros(nlines, dtype=np.int64)
        np.cumsum(ntok[:-1], out=first[1:])
        has = ntok > 0
        comment = np.zeros(nlines, dtype=bool)
        comment[has] = b[tstart[first[has]]] == ord("#")
        use = has & ~comment
        bad = use & (ntok < nfields)
        if self.exact:
            bad |= (use & (ntok > nfields)) | ~has
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            if not has[i]:
                problem = f"blank line: every {kind} line holds {nfields} fields"
            else:
                problem = (f"{kind} line has {ntok[i]} field{'s' if ntok[i] != 1 else ''}, "
                           f"not {nfields}")
                if kind == "qrels" and ntok[i] == 6:
                    problem += " (this looks like a run file)"
                elif kind == "qrels" and ntok[i] == 5:
                    problem += (" (sample_eval's sampled judgements, QUERY ITER DOCNO STRATUM "
                                "REL, are read with -R sample_qrels; the Million Query "
                                "track's prels, QUERY DOCNO REL METHOD PROB, are not read)")
            raise InputError(self.name, line_base + i + 1, problem,
                             text=self.line_text_at(lo, nlpos, i), expected=expected)
        rows = np.flatnonzero(use)
        idx = first[rows][:, None] + np.arange(nfields)
        return (tstart[idx] + lo, tend[idx] + lo, rows + line_base + 1, nlines)

    @staticmethod
    def _clean_chunk(b: np.ndarray, sep: np.ndarray, nfields: int):
        """Field bounds when every line is ``nfields`` fields, one space or tab apart,
        ending in LF (no blank, comment or CRLF line): the separators' positions then
        reshape to (lines, nfields). None otherwise (the general path below)."""
        if len(sep) == 0 or len(sep) % nfields or b[-1] != 10 or IS_SEPARATOR[b[0]]:
            return None
        at = sep.reshape(-1, nfields)
        kinds = b[sep].reshape(-1, nfields)
        if not (kinds[:, -1] == 10).all() or not ((kinds[:, :-1] == 32)
                                                   | (kinds[:, :-1] == 9)).all():
            return None
        starts = np.empty_like(at)
        starts[0, 0] = 0
        starts[1:, 0] = at[:-1, -1] + 1
        starts[:, 1:] = at[:, :-1] + 1
        if not (at > starts).all() or (b[starts[:, 0]] == ord("#")).any():
            return None                    # an empty field (two separators), or a comment
        return starts, at

    def line_text_at(self, lo: int, nlpos: np.ndarray, i: int) -> str:
        start = lo + (int(nlpos[i - 1]) + 1 if i > 0 else 0)
        end = lo + int(nlpos[i])
        return _clean(self.data[start:end])

    def line_text(self, line: int) -> str:
        """The text of physical line ``line`` (1-based)."""
        start = 0
        for _ in range(line - self.first_line):
            start = self.data.index(b"\n", start) + 1
        end = self.data.find(b"\n", start)
        return _clean(self.data[start:end if end >= 0 else len(self.data)])

    def field(self, j: int) -> np.ndarray:
        """Field ``j`` of every usable line as a fixed-width bytes array (NUL-padded to
        whole 8-byte words)."""
        from smarteval.read.fast import gather_fixed
        return self._gather(j, gather_fixed)

    def ids(self, j: int) -> np.ndarray:
        """Field ``j`` of every usable line as an id column (fixed-width or
        variable-length, :mod:`smarteval.read.keys`)."""
        from smarteval.read.fast import gather_ids
        return self._gather(j, gather_ids)

    def _gather(self, j: int, gather_with) -> np.ndarray:
        from smarteval.read.fast import PAD
        if self._padded is None:
            self._padded = bytearray(self.data)
            self._padded.extend(bytes(PAD + 8))
        start = self.starts[:, j]
        return gather_with(self._padded, start, self.ends[:, j] - start)

    def error(self, row: int, problem: str, expected: str, extra: str | None = None):
        line = int(self.lines[row])
        return InputError(self.name, line, problem, text=self.line_text(line),
                          expected=expected, extra=extra)


def read_lines(path, data: bytes | None, nfields: int, expected: str, kind: str,
               exact: bool = True) -> _Lines:
    """The lines of a text file of ``kind`` (``path``, or ``data`` when given), checked
    as they are read and tokenised (:class:`_Lines`)."""
    data = read_bytes(path, data=data, what=f"a {kind} file", expected=expected)
    return _Lines(data, display(str(path)), nfields, expected, kind, exact=exact)


def line_texts(path: str, lines) -> dict[int, str]:
    """The text of the given 1-based lines of a file read again (for an error message).

    Empty when the file cannot be read again (standard input, a FIFO or a device, which
    are read once; a file since removed) or is not text (Parquet, say: its rows are named
    by number alone).
    """
    if path == "<stdin>" or is_stream(path):
        return {}
    try:
        data = read_bytes(path)
    except InputError:
        return {}
    except corrupt():               # (OSError among them)
        return {}
    if data[:4] == b"PAR1":
        return {}
    out = {}
    start, number = 0, 1
    for line in sorted(set(lines)):
        while number < line and start >= 0:
            start = data.find(b"\n", start)
            start = start + 1 if start >= 0 else -1
            number += 1
        if start < 0:
            break
        end = data.find(b"\n", start)
        out[line] = _clean(data[start:end if end >= 0 else len(data)])
    return out


def _clean(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").rstrip("\r").replace("\ufeff", "")


def gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Bytes ``buf[starts[i]:ends[i]]`` for every i as one fixed-width 'S' array."""
    n = len(starts)
    if n == 0:
        return np.zeros(0, dtype="S1")
    lens = ends - starts
    width = int(lens.max())
    out = np.zeros((n, width), dtype=np.uint8)
    step = max(1, (1 << 22) // width)
    cols = np.arange(width)
    for lo in range(0, n, step):  # blocks bound the index array's size
        hi = min(lo + step, n)
        idx = starts[lo:hi, None] + cols
        mask = cols < lens[lo:hi, None]
        np.minimum(idx, len(buf) - 1, out=idx)
        block = buf[idx]
        block[~mask] = 0
        out[lo:hi] = block
    return out.view(f"S{width}").ravel()


# --------------------------------------------------------------------------- grouping

def _group_queries(qid_bytes: np.ndarray):
    """Query codes (byte order of ids) for rows, without sorting every row's id.

    Runs and qrels are written query by query, so only the rows where the id changes
    are compared and sorted.
    """
    n = len(qid_bytes)
    change = np.empty(n, dtype=bool)
    change[0] = True
    width = qid_bytes.dtype.itemsize
    if qid_bytes.dtype.kind == "S" and width and width % 8 == 0 and qid_bytes.flags.c_contiguous:
        # a word at a time: numpy's compare of fixed-width bytes goes a byte at a time
        words = qid_bytes.view(np.uint64).reshape(n, width // 8)
        np.not_equal(words[1:, 0], words[:-1, 0], out=change[1:])
        for w in range(1, width // 8):
            change[1:] |= words[1:, w] != words[:-1, w]
    else:
        np.not_equal(qid_bytes[1:], qid_bytes[:-1], out=change[1:])
    heads = np.flatnonzero(change)
    uniq, inv = np.unique(qid_bytes[heads], return_inverse=True)
    seg_len = np.diff(np.append(heads, n))
    codes = np.repeat(inv.astype(np.int64), seg_len)
    return uniq, codes, len(heads) == len(uniq) and bool(np.all(np.diff(inv) > 0))




def _decode_ids(uniq: np.ndarray, codes: np.ndarray, grouped: bool):
    """The distinct ids as text, sorted, with the rows' codes into them (and whether the
    rows are still grouped in that order).

    ``uniq`` is in byte order; so is its text when every id is UTF-8. An id that is not
    can sort elsewhere as text (its bytes are lone surrogates), and the text order is
    the one the ranking stage matches ids in: the codes then follow it.
    """
    if not len(uniq):
        return np.zeros(0, dtype=str), codes, grouped
    try:
        return decode_ids(uniq), codes, grouped
    except UnicodeDecodeError:
        pass
    text = decode_ids(uniq, ID_ERRORS)
    if bool((text[1:] > text[:-1]).all()):
        return text, codes, grouped
    order = np.argsort(text, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return text[order], rank[codes], False


# --------------------------------------------------------------------------- runs

def naming_the_file_out_of_memory(read):
    """``read`` with running out of memory reported as a problem of the file it reads (its
    first argument): every reader of a file is wrapped so."""
    @functools.wraps(read)
    def reading(path, *args, **options):
        try:
            return read(path, *args, **options)
        except MemoryError:
            raise InputError(display(str(path)), None, out_of_memory(path)) from None
    return reading


def out_of_memory(path) -> str:
    """What running out of memory while reading ``path`` is said as (its size, when known)."""
    size = text_size(path) if isinstance(path, (str, os.PathLike)) else 0
    held = f" ({size / (1 << 20):,.0f} MiB of text)" if size else ""
    return (f"out of memory while reading it{held}: give smarteval more memory, or "
            "evaluate the file in parts")


@naming_the_file_out_of_memory
def read_run(path: str | os.PathLike, *, data: bytes | None = None,
             element_types: bool = False, ranks: bool = False) -> Run:
    """Read a TREC run: ``QID Q0 DOCNO RANK SCORE TAG`` per line.

    Fields after the sixth and the rank field are ignored, and so is the second unless
    ``element_types`` (cwl_eval's element type: :attr:`~smarteval.columns.Run.element_types`,
    read by the checked tokenizer), and the fourth unless ``ranks`` (a whole number from 0
    to :data:`MAX_RANK`: :attr:`~smarteval.columns.Run.ranks`); blank lines and lines whose
    first field starts with ``#`` are skipped. Rejects, naming file and line: too few
    fields, a score that is not a finite number. The same docno twice in one query is
    recorded (:attr:`~smarteval.columns.Run.repeated`); the ranking stage refuses it where
    trec_eval does, among the documents it evaluates.
    """
    name = display(str(path))
    if data is not None or element_types or ranks:      # the checked tokenizer alone
        return _read_run_data(read_bytes(path, data=data, what="a run file",
                                         expected=RUN_EXPECTED), name, element_types, ranks)
    source = str(path)
    if not is_stream(source):
        fast = _read_run_fast(source, name)
        return fast if fast is not None else _read_run_data(
            read_bytes(source, what="a run file", expected=RUN_EXPECTED), name)
    # standard input, a FIFO, a device: read once, its bytes kept for the checked
    # tokenizer (removed whatever happens, Ctrl-C and SIGTERM included)
    with Spool(source) as spool:
        fast = _read_run_fast(source, name, spool)
        if fast is not None:
            return fast
        return _read_run_data(read_bytes(spool.path(), what="a run file",
                                         expected=RUN_EXPECTED, shown=name), name)


#: The largest rank field read (ndeval's rank order): ranks stay exact as 32-bit floats.
MAX_RANK = 2**24


def _parse_ranks(fields: np.ndarray, lines: _Lines) -> np.ndarray:
    """The rank fields: whole numbers from 0 to :data:`MAX_RANK`, as ndeval reads them."""
    ranks = _plain_ints(fields)
    ok = (np.zeros(len(fields), dtype=bool) if ranks is None
          else (ranks >= 0) & (ranks <= MAX_RANK) & ~np.char.startswith(fields, b"-"))
    if not ok.all():
        if ranks is None:
            ok = np.array([f.isdigit() and int(f) <= MAX_RANK for f in fields.tolist()])
        bad = int(np.flatnonzero(~ok)[0])
        raise lines.error(bad, f"rank {fields[bad].decode('utf-8', 'replace')!r} is not a "
                          f"whole number from 0 to {MAX_RANK} (--order-by rank reads it)",
                          RUN_EXPECTED)
    return ranks if ranks is not None else np.zeros(0, dtype=np.int64)


def _read_run_data(data: bytes, name: str, element_types: bool = False,
                   ranks: bool = False, first_line: int = 1) -> Run:
    """The plain reader: every line checked, every error worded for the user.

    ``first_line``: the number of ``data``'s first line in its file (a line read alone).
    """
    lines = _Lines(data, name, 6, RUN_EXPECTED, "run", first_line=first_line)
    qid_bytes = lines.ids(0)
    docnos = lines.ids(2)
    types = lines.field(1) if element_types else None
    rank_no = _parse_ranks(lines.field(3), lines) if ranks else None
    score_bytes = lines.field(4)
    scores = _parse_scores(score_bytes, lines)
    # trec_eval reports the run tag of the last line it read
    tag = gather(lines.buf, lines.starts[-1:, 5], lines.ends[-1:, 5])[0].decode("utf-8",
                                                                               ID_ERRORS)
    del score_bytes
    uniq, codes, grouped = _group_queries(qid_bytes)
    qids, codes, grouped = _decode_ids(uniq, codes, grouped)
    line_no = lines.lines
    if not grouped:
        order = np.argsort(codes, kind="stable")
        codes = codes[order]
        docnos = docnos[order]
        scores = scores[order]
        line_no = line_no[order]
        types = None if types is None else types[order]
        rank_no = None if rank_no is None else rank_no[order]
    offsets = np.zeros(len(uniq) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(uniq)), out=offsets[1:])
    return Run(path=name, qids=qids, offsets=offsets, docnos=docnos,
               scores=scores, lines=line_no, tag=tag,
               repeated=repeated_docnos(docnos, offsets, codes),
               element_types=types, ranks=rank_no)


def _read_run_fast(path: str, name: str, spool: Spool | None = None) -> Run | None:
    """The fast tokenizer's reading of a well-formed run, or None to use the plain reader.

    A line it refuses is refused by the checked tokenizer, which words the error, given
    that line alone (the file is not read again, nor kept: a late error costs no more
    memory than a clean file). A docno that may come twice in a query (equal hashes)
    has the run read again by the fast tokenizer, keeping the line numbers the ranking
    stage names a repeat by; a tag or a query id that is not UTF-8 is kept as the checked
    tokenizer keeps it. Anything else unusual (such a query id that sorts otherwise as
    text, an empty file, an unreadable one) goes to the plain reader.
    ``spool``: the input, when it is not a regular file, read through it.
    """
    from smarteval.read import fast as fastrun
    try:
        cols = fastrun.read_run(path, chunk_bytes=4 << 20, keep_lines=False,
                                stream=None if spool is None else spool.stream,
                                expected=RUN_EXPECTED)
    except fastrun.LineError as bad:
        if bad.definite:
            _read_run_data(bad.raw, name, first_line=bad.line or 1)    # raises its message
        return None
    except corrupt():               # cannot be opened: worded by the plain reader
        return None
    if len(cols.docnos) == 0 or not np.isfinite(cols.scores).all():
        return None
    docnos = _narrow(cols.docnos)
    del cols.docnos
    lines = None
    repeated = repeated_docnos(docnos, cols.offsets)
    if len(repeated):
        # the same rows again, with their line numbers (a second reading of the file, or
        # of the spooled input)
        again = fastrun.read_run(path if spool is None else spool.path(),
                                 chunk_bytes=4 << 20, keep_lines=True, expected=RUN_EXPECTED)
        lines = again.lines
        del again
    return Run(path=name, qids=cols.qids, offsets=cols.offsets, docnos=docnos,
               scores=cols.scores, lines=lines, tag=cols.tag, repeated=repeated)


def _narrow(docnos: np.ndarray) -> np.ndarray:
    """The same docnos in the narrowest width of whole 8-byte words that holds them."""
    width = docnos.dtype.itemsize
    if is_varlen(docnos) or width <= 8 or len(docnos) == 0:
        return docnos
    as_bytes = docnos.view(np.uint8).reshape(len(docnos), width)
    keep = width
    while keep > 8 and not as_bytes[:, keep - 8:keep].any():
        keep -= 8
    return docnos if keep == width else docnos.astype(f"S{keep}")


#: Runs of fewer rows find equal salted hashes through a hash table (no sort of them all);
#: longer ones sort them, in two threads where two CPUs are free.
_HASH_TABLE_ROWS = 1 << 18
#: Rows of one half of a run whose salted hashes are sorted in a thread of their own.
_THREADED_SORT_ROWS = 1 << 20
_SALT = np.uint64(0xD6E8FEB86659FD93)


def repeated_docnos(docnos: np.ndarray, offsets: np.ndarray, codes: np.ndarray | None = None,
                    hashes: np.ndarray | None = None) -> np.ndarray:
    """(k, 2) row pairs where a docno comes again in its query (:func:`repeated_rows`),
    the exact search made only where the docnos' hashes say it may find one
    (:func:`_may_have_duplicates`). ``codes``: the rows' query codes, where the caller
    has them; ``hashes``: the docnos' :func:`~smarteval.read.keys.docno_hash`, where it
    has them (left as they are)."""
    maybe = docno_hash(docnos) if hashes is None else hashes.copy()
    if not _may_have_duplicates(maybe, offsets):
        return np.zeros((0, 2), dtype=np.int64)
    if codes is None:
        codes = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    return repeated_rows(codes, docnos)


def _may_have_duplicates(hashes: np.ndarray, offsets: np.ndarray) -> bool:
    """True when two rows of one query may share a docno (hash equality; exact check follows).

    ``hashes`` (a fresh array, one docno hash per row, rows grouped by ``offsets``) is
    used up. A run of fewer than :data:`_HASH_TABLE_ROWS` rows salts each with its query
    in place and puts them in a hash table (:func:`~smarteval.read.keys.key_table`,
    which notices equal ones); a longer one whose queries are about equally long sorts
    each query's on its own (:func:`_repeats_in_rows`); any other salts them and sorts
    them in place, in two halves split between queries, sorted at once in two threads
    (numpy sorts without the GIL) when two CPUs are free
    (:func:`~smarteval.threads.spare_cpus`). Only equal neighbours within a half can be
    a repeat (the rows of a query never span both halves).
    """
    n = len(hashes)
    counts = np.diff(offsets)
    if n >= _HASH_TABLE_ROWS and int(counts.max()) * len(counts) <= 2 * n + _ROW_SORT_SLACK:
        return _repeats_in_rows(hashes, offsets, counts)
    _salt_by_query(hashes, offsets)
    if n < _HASH_TABLE_ROWS:
        return key_table(hashes) is None
    halves = [hashes]
    if n >= 2 * _THREADED_SORT_ROWS and len(offsets) > 2:
        from smarteval.threads import spare_cpus
        if spare_cpus() >= 2:
            mid = int(offsets[min(int(np.searchsorted(offsets, n // 2)), len(offsets) - 1)])
            halves = [hashes[:mid], hashes[mid:]]
    if len(halves) == 2:
        import threading
        other = threading.Thread(target=halves[1].sort)
        other.start()
        halves[0].sort()
        other.join()
    else:
        hashes.sort()
    return any(bool((h[1:] == h[:-1]).any()) for h in halves)


#: Cells of padding a matrix of queries may hold beyond twice the rows (:func:`_repeats_in_rows`).
_ROW_SORT_SLACK = 1 << 12
#: Cells of the matrix of :func:`_repeats_in_rows` sorted at a time.
_ROW_SORT_CELLS = 1 << 21
_PADDING = np.uint64(2**64 - 1)


def _repeats_in_rows(hashes: np.ndarray, offsets: np.ndarray, counts: np.ndarray) -> bool:
    """:func:`_may_have_duplicates` where queries are about equally long: each query's
    hashes a row of a matrix (padded with a value no hash takes), each row sorted on its
    own, some thousands of queries at a time. Sorting a hundred or a thousand values a
    row costs a fraction of sorting them all (a run of 100 documents a query: a
    thirteenth)."""
    np.minimum(hashes, _PADDING - np.uint64(1), out=hashes)    # the padding is no hash
    width = int(counts.max())
    step = max(1, _ROW_SORT_CELLS // max(width, 1))
    for lo in range(0, len(counts), step):
        hi = min(len(counts), lo + step)
        rows = hashes[offsets[lo]:offsets[hi]]
        if bool((counts[lo:hi] == width).all()):
            matrix = rows.reshape(hi - lo, width)              # in place: no padding
        else:
            matrix = np.full((hi - lo, width), _PADDING, dtype=np.uint64)
            k = counts[lo:hi]
            at = np.arange(len(rows), dtype=np.int64) \
                + np.repeat(np.arange(hi - lo, dtype=np.int64) * width
                            - (offsets[lo:hi] - offsets[lo]), k)
            matrix.reshape(-1)[at] = rows
        matrix.sort(axis=1)
        same = matrix[:, 1:] == matrix[:, :-1]
        same &= matrix[:, 1:] != _PADDING
        if bool(same.any()):
            return True
    return False


def _salt_by_query(hashes: np.ndarray, offsets: np.ndarray) -> None:
    """Add query ``q``'s salt ``q`` x a constant to the hashes of its rows, in place, a
    block of rows at a time."""
    n, block = len(hashes), 1 << 16
    with np.errstate(over="ignore"):
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            salts = block_query_index(offsets, lo, hi, np.uint64)
            salts *= _SALT
            hashes[lo:hi] += salts


def _underscores(fields: np.ndarray) -> np.ndarray:
    """(n,) whether each fixed-width field holds an underscore (which ``float()`` and
    ``int()`` would skip: ``1_000`` is not a number here, as it is not for trec_eval)."""
    width = fields.dtype.itemsize
    if not len(fields) or not width:
        return np.zeros(len(fields), dtype=bool)
    return (fields.view(np.uint8).reshape(len(fields), width) == ord("_")).any(axis=1)


def _parse_scores(score_bytes: np.ndarray, lines: _Lines, what: str = "score",
                  expected: str = RUN_EXPECTED) -> np.ndarray:
    return parse_numbers(score_bytes, lines, what, expected)


def parse_numbers(fields: np.ndarray, lines: _Lines, what: str, expected: str) -> np.ndarray:
    """Numbers (scores, a qrels' gains, a z-score file's means): ``[+-]`` digits with an
    optional fraction and exponent (what C's strtod reads in full, less hexadecimal);
    ``inf`` and ``nan`` are refused as not finite. ``what`` names the field in the error."""
    odd = _underscores(fields)
    try:
        if odd.any():
            raise ValueError
        numbers = fields.astype(np.float64)
    except ValueError:
        first_odd = int(np.flatnonzero(odd)[0]) if odd.any() else len(odd)
        bad = _first_bad_float(fields[:first_odd])      # first_odd when none fails
        raise lines.error(bad, f"{what} {fields[bad].decode('utf-8', 'replace')!r} "
                          "is not a number", expected) from None
    finite = np.isfinite(numbers)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise lines.error(bad, f"{what} {fields[bad].decode('utf-8', 'replace')!r} "
                          "is not a finite number", expected)
    return numbers


def _first_bad_float(values: np.ndarray) -> int:
    lo, hi = 0, len(values)
    # bisect on blocks that fail to convert, then scan the last small block
    while hi - lo > 64:
        mid = (lo + hi) // 2
        try:
            values[lo:mid].astype(np.float64)
            lo = mid
        except ValueError:
            hi = mid
    for i in range(lo, hi):
        try:
            float(values[i])
        except ValueError:
            return i
    return len(values)


def query_docno_order(codes: np.ndarray, docnos: np.ndarray):
    """The docno words and the permutation sorting rows by (query, docno bytes), stable.

    Qrels are nearly always written query by query with docnos ascending: then the rows
    only need their query blocks put in order (or nothing), without a full sort.
    """
    keys, order = _query_docno_sort(codes, docnos)
    return keys, np.arange(len(codes), dtype=np.int64) if order is None else order


def _query_docno_sort(codes: np.ndarray, docnos: np.ndarray):
    """:func:`query_docno_order`, the permutation None when the rows are in order already."""
    keys = sort_key_words(docnos)
    n = len(codes)
    if n > 1:
        change = codes[1:] != codes[:-1]
        if np.count_nonzero(change) + 1 == int(codes.max()) + 1:     # each query one block
            down = np.zeros(n - 1, dtype=bool)
            equal = np.ones(n - 1, dtype=bool)
            for w in keys:
                down |= equal & (w[1:] < w[:-1])
                equal &= w[1:] == w[:-1]
            if not (down & ~change).any():
                if not (codes[1:] < codes[:-1]).any():
                    return keys, None
                return keys, np.argsort(codes, kind="stable")
    return keys, np.lexsort(tuple(reversed(keys)) + (codes,))


def repeated_rows(codes, docnos, sorted_by=None) -> np.ndarray:
    """(k, 2) row pairs ``[first, again]`` where a (query, docno) comes again, in row order.

    A row listed three times gives two pairs, each with the row before it.
    ``sorted_by`` is :func:`query_docno_order`'s result when the caller has it already.
    """
    keys, order = sorted_by if sorted_by is not None else _query_docno_sort(codes, docnos)
    if order is None:               # the rows are in order
        same = codes[1:] == codes[:-1]
        for w in keys:
            same &= w[1:] == w[:-1]
        dup_at = np.flatnonzero(same)
        return np.stack([dup_at, dup_at + 1], axis=1).astype(np.int64)
    same = codes[order[1:]] == codes[order[:-1]]
    for w in keys:
        same &= w[order[1:]] == w[order[:-1]]
    dup_at = np.flatnonzero(same)
    return np.stack([order[dup_at], order[dup_at + 1]], axis=1).astype(np.int64)


# --------------------------------------------------------------------------- qrels

@naming_the_file_out_of_memory
def read_qrels(path: str | os.PathLike, *, data: bytes | None = None) -> Qrels:
    """Read TREC qrels: ``QID ITER DOCNO REL`` per line, REL an integer.

    A negative REL marks a document judged but unusable (trec_eval's unjudged-in-pool).
    As in trec_eval, every line holds exactly four fields (a blank line or a fifth field
    is an error) and a (query, docno) judged twice is read (its first line kept, every
    line recorded in :attr:`~smarteval.columns.Qrels.repeated`): the ranking stage
    refuses it only in a query it evaluates.
    """
    from smarteval.read.fast import PAD
    name = display(str(path))
    padded = None if data is not None else \
        read_padded(path, PAD, what="a qrels file", expected=QRELS_EXPECTED)
    if padded is None:          # not a plain regular file: read whole, then padded
        data = read_bytes(path, data=data, what="a qrels file", expected=QRELS_EXPECTED)
        padded = (bytearray(PAD) + data + bytes(PAD), len(data))
    clean = _clean_qrels(*padded, name)
    if clean is not None:
        return clean
    if data is None:
        buf, size = padded
        data = bytes(memoryview(buf)[PAD:PAD + size])
    del padded
    lines = _Lines(data, name, 4, QRELS_EXPECTED, "qrels", exact=True)
    qid_bytes = lines.ids(0)
    docnos = lines.ids(2)
    rel_bytes = lines.field(3)
    grades = _parse_ints(rel_bytes, lines)
    uniq, codes, grouped = _group_queries(qid_bytes)
    qids, codes, grouped = _decode_ids(uniq, codes, grouped)
    return qrels_columns(name, qids, codes, docnos, grades, lines.lines)


#: Bytes of a qrels file whose separators are found at a time (:func:`_clean_qrels`).
_SEPARATORS_BLOCK = 1 << 18


def _clean_qrels(buf: bytearray, size: int, name: str) -> Qrels | None:
    """The qrels of a file whose every line is four fields one space or tab apart, ending
    in LF, with a one-digit grade (no blank, comment or CRLF line, no BOM or NUL byte),
    read straight from the separators' positions; None otherwise (the checked path).

    ``buf`` holds the text between :data:`~smarteval.read.fast.PAD` spare bytes on each
    side. The separators are found a block of bytes at a time into one array of 32-bit
    positions, and the fields are gathered from the buffer itself: no temporary as
    large as the text, whose fresh pages would cost more than the work.
    """
    from smarteval.read.fast import PAD, gather_ids
    lo, hi = PAD, PAD + size
    if not size or buf[hi - 1] != 10 or buf[lo] <= 32 or buf[lo] == 0xEF:
        return None
    b = np.frombuffer(buf, dtype=np.uint8)
    index = np.int32 if len(buf) < 2**31 else np.int64
    # in a clean file a field's byte comes before each separator: they are at most half
    # the bytes (more: not clean). The positions' pages past those found stay untouched.
    pos = np.empty(size // 2 + 1, dtype=index)
    total = 0
    for first in range(lo, hi, _SEPARATORS_BLOCK):
        found = np.flatnonzero(b[first:min(hi, first + _SEPARATORS_BLOCK)] <= 32)
        if total + len(found) > len(pos):
            return None
        part = pos[total:total + len(found)]
        part[:] = found
        part += first
        total += len(found)
    if total % 4:
        return None
    pos = pos[:total]
    n = total // 4
    kinds = b[pos]
    # every fourth separator ends a line, the others are a space or a tab: as many of
    # those as three a line leaves no room for any other separator (CR, NUL...)
    if not (kinds[3::4] == 10).all() or \
            np.count_nonzero(kinds == 32) + np.count_nonzero(kinds == 9) != 3 * n:
        return None
    del kinds
    at = pos.reshape(n, 4)
    qid_end, iter_end, docno_end = at[:, 0], at[:, 1], at[:, 2]
    starts = np.empty(n, dtype=index)
    starts[0] = lo
    np.add(at[:-1, 3], 1, out=starts[1:])
    # every field holds a byte, the grade one; no line is a comment
    if not ((qid_end > starts).all() and (iter_end - qid_end > 1).all()
            and (docno_end - iter_end > 1).all() and (at[:, 3] - docno_end == 2).all()) \
            or (b[starts] == ord("#")).any():
        return None
    grades = b[docno_end + 1].astype(np.int64)
    grades -= ord("0")
    if ((grades < 0) | (grades > 9)).any():
        return None
    qid_bytes = gather_ids(buf, starts, qid_end - starts)
    starts = iter_end + 1
    docnos = gather_ids(buf, starts, docno_end - starts)
    del pos, at, starts, qid_end, iter_end, docno_end
    uniq, codes, grouped = _group_queries(qid_bytes)
    del qid_bytes
    qids, codes, grouped = _decode_ids(uniq, codes, grouped)
    return qrels_columns(name, qids, codes, docnos, grades, np.arange(1, n + 1, dtype=np.int64))


def qrels_columns(name: str, qids: np.ndarray, codes: np.ndarray, docnos: np.ndarray,
                  grades: np.ndarray, line_no: np.ndarray) -> Qrels:
    """:class:`Qrels` of rows given as query codes (into the sorted ``qids``), docnos,
    grades and 1-based line (or row) numbers, in any order: sorted by (query, docno), a
    document judged again kept once and recorded (every reader of qrels ends here)."""
    # one sort serves both: duplicates end up adjacent, and the qrels need this order
    keys, order = _query_docno_sort(codes, docnos)
    pairs = repeated_rows(codes, docnos, sorted_by=(keys, order))
    # a document judged again is kept once (its first line); the ranking stage refuses it
    # in a query it evaluates, as trec_eval does, and -c's num_rel recount counts every line
    keep = np.ones(len(codes), dtype=bool)
    keep[pairs[:, 1]] = False
    duplicate_grades = grades[~keep]
    repeated = np.stack([codes[pairs[:, 0]], line_no[pairs[:, 0]], line_no[pairs[:, 1]]],
                        axis=1).astype(np.int64) if len(pairs) else np.zeros((0, 3), np.int64)
    if len(pairs):
        order = np.flatnonzero(keep) if order is None else order[keep[order]]
    if order is not None:
        codes, docnos, grades, line_no = (codes[order], docnos[order], grades[order],
                                          line_no[order])
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(qids)), out=offsets[1:])
    return Qrels(path=name, qids=qids, offsets=offsets, docnos=docnos,
                 grades=grades, lines=line_no, duplicate_grades=duplicate_grades,
                 repeated=repeated)


def highest_grades(path: str, qids: np.ndarray, codes: np.ndarray, docnos: np.ndarray,
                   grades: np.ndarray, line_no: np.ndarray) -> Qrels:
    """Plain qrels of judgement rows sorted by (query, docno) in which a document may be
    judged more than once (per subtopic, per judgement group): each (query, docno) once,
    at its highest grade and the line of its first judgement."""
    n = len(docnos)
    first = np.ones(n, dtype=bool)
    if n > 1:
        first[1:] = (docnos[1:] != docnos[:-1]) | (codes[1:] != codes[:-1])
    starts = np.flatnonzero(first)
    top = np.maximum.reduceat(grades, starts) if n else grades
    lines = np.minimum.reduceat(line_no, starts) if n else line_no
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes[starts], minlength=len(qids)), out=offsets[1:])
    return Qrels(path=path, qids=qids, offsets=offsets, docnos=docnos[starts],
                 grades=top.astype(np.int64), lines=lines.astype(np.int64))


def _plain_ints(rel_bytes: np.ndarray) -> np.ndarray | None:
    """Fields that are all ``[-]digits`` (at most 18 digits) as int64, or None.

    Digit by digit over the bytes, all rows at once; anything else goes the checked way.
    """
    n, width = len(rel_bytes), rel_bytes.dtype.itemsize
    if n == 0 or width > 19:
        return None
    m = rel_bytes.view(np.uint8).reshape(n, width)
    length = np.count_nonzero(m, axis=1)
    first = (m[:, 0] == ord("-")).astype(np.intp)
    value = np.zeros(n, dtype=np.int64)
    for c in range(int(length.max())):           # most grades are one digit: one pass
        active = (c >= first) & (c < length)
        digit = m[:, c].astype(np.int64) - ord("0")
        if ((digit < 0) | (digit > 9))[active].any():
            return None
        value = np.where(active, value * 10 + digit, value)
    if (length <= first).any():
        return None
    return np.where(first == 1, -value, value)


def _parse_ints(rel_bytes: np.ndarray, lines: _Lines,
                expected: str = QRELS_EXPECTED) -> np.ndarray:
    plain = _plain_ints(rel_bytes)
    if plain is not None:
        return plain
    # int() would also take "1_0": only plain digits go the quick way
    odd = np.char.count(rel_bytes, b".") + np.char.count(rel_bytes, b"_")
    if len(rel_bytes) and not odd.any():
        try:
            return rel_bytes.astype(np.int64)   # the usual case; the checks below word errors
        except (ValueError, OverflowError):
            pass
    ok = np.char.isdigit(np.char.lstrip(rel_bytes, b"-+")) if len(rel_bytes) else np.zeros(0, bool)
    # a sign alone, or a sign not at the front, is not an integer
    stripped_len = np.char.str_len(np.char.lstrip(rel_bytes, b"-+"))
    sign_len = np.char.str_len(rel_bytes) - stripped_len
    ok &= (sign_len <= 1) & (stripped_len > 0)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise lines.error(bad, f"relevance {rel_bytes[bad].decode('utf-8', 'replace')!r} "
                          "is not an integer", expected)
    try:
        return rel_bytes.astype(np.int64)
    except OverflowError:
        pass
    # whole numbers, some past a C long (which trec_eval cannot evaluate either)
    digits = np.char.lstrip(np.char.lstrip(rel_bytes, b"-+"), b"0")
    count = np.char.str_len(digits)
    limit = np.where(np.char.startswith(rel_bytes, b"-"), b"9223372036854775808",
                     b"9223372036854775807")
    over = (count > 19) | ((count == 19) & (digits.astype("S19") > limit))
    bad = int(np.flatnonzero(over)[0])
    raise lines.error(bad, f"relevance {rel_bytes[bad].decode('utf-8', 'replace')!r} is out "
                      "of range: a grade lies between -9223372036854775808 and "
                      "9223372036854775807", expected)


__all__ = ["read_run", "read_qrels", "read_bytes", "gather", "sort_key_words"]
