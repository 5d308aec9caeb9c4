#!/usr/bin/env python3
"""Reader lab: ways to read a TREC run file into flat columns, and their numbers.

The candidate, now smarteval's own reader, is :func:`read_run` from
``smarteval.read.fast`` (numpy only): a chunked, vectorised byte tokenizer. The other
``read_run_*`` functions are the baselines it was measured against (see benchmarks/NOTES.md).
Every candidate returns the same :class:`RunCols` (same fields as ``smarteval.columns.Run``)
so that they can be checked against each other::

    python benchmarks/lab_reader.py bench benchmarks/data/msmarco-7M.run     # main candidates
    python benchmarks/lab_reader.py bench FILE -c numpy,numpy0,numpy2 -r 5
    python benchmarks/lab_reader.py verify FILE          # candidates agree with the Python loop
    python benchmarks/lab_reader.py selftest             # edge cases, seams, errors
    python benchmarks/lab_reader.py lookup RUN QRELS     # qrels lookups, dup and order checks
    python benchmarks/lab_reader.py one numpy FILE       # one timed run, JSON

Candidates: ``numpy`` = read_run (1 parser thread, 4 MiB chunks), ``numpy0`` (all in
the calling thread), ``numpy2`` (2 parser threads), ``numpy-1M/-8M/-16M`` (chunk
sizes), ``smarteval`` (smarteval.read.plain.read_run of the work tree), ``python``,
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
``tag`` the run tag of the last row (as trec_eval); rows of a query keep file order.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np

# the reader itself lives in the package; this lab keeps the baselines it was measured against
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from smarteval.errors import InputError as RunFormatError  # noqa: E402
from smarteval.read.fast import PAD, ChunkResult, Collector, RunCols, gather_fixed, read_run  # noqa: E402
from smarteval.read.source import open_binary  # noqa: E402

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
                raise RunFormatError(path, i,
                                     f"expected 6 fields (QID Q0 DOCNO RANK SCORE TAG), "
                                     f"found {len(t)}",
                                     raw.rstrip(b"\r\n").decode("utf-8", "replace"))
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
            if tok:
                tag = tok[-1].decode()
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
    tag = arr["t"][-1].decode() if len(arr) else ""
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
    tag = str(df["t"].iloc[-1]) if len(df) else ""
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
    tag = tbl.column("t")[-1].as_py() if tbl.num_rows else ""
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
    """smarteval.read.plain.read_run as it is in the work tree (for comparison)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from smarteval.read.plain import read_run as sr
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
        return ((k * np.uint64(0x9E3779B97F4A7C15))
                ^ (q.astype(np.uint64) * np.uint64(0xD6E8FEB86659FD93)))


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


LOOKUPS = {"bucket": lookup_bucket, "hash": lookup_hash,
           "searchsorted-key": lookup_searchsorted_key,
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
        import smarteval.read.plain  # noqa: F401
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
        def med(k: str, ok: list[dict] = ok) -> float:
            return float(np.median([r[k] for r in ok]))
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
    "comments_blank": (b"# header\n\n1 Q0 d1 1 2.5 t\n   \t \n  # indented comment\n"
                       b"1\tQ0\td2\t2\t1.5\tt\n\n"),
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
                q.append(t[0])
                d.append(t[2])
                g.append(int(t[3]))
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
        hits = int((rel >= 0).sum())
        print(f"  lookup {name:18s} {best * 1000:8.1f} ms cpu  hits {hits:,} {agree}")
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
    b.add_argument("-c", "--candidates",
                   default="numpy,numpy0,numpy2,python,split,loadtxt,pandas,pyarrow")
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
    v.add_argument("-c", "--candidates",
                   default="numpy,numpy0,numpy2,numpy-1M,split,loadtxt,pandas,pyarrow")
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
