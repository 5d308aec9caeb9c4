#!/usr/bin/env python3
"""Deterministic synthetic benchmark data for smarteval.

Writes, under ``--out`` (default ``benchmarks/data``):

* ``msmarco-{SIZE}.run`` / ``msmarco-{SIZE}.qrels`` -- an MS MARCO passage-like run
  (``QID Q0 DOCNO RANK SCORE TAG``, 1,000 documents per query, docnos are integers
  below 8,841,823 written as strings, rows grouped by query and sorted by score
  descending, ties by docno ascending as Anserini writes them) and its qrels
  (~1.07 relevant per query, grade 1, like ``qrels.dev.small.tsv``; about 1 % of the
  queries also carry a deep TREC-DL-like graded judgement set, grades 0..3).
* ``trec/qrels.txt`` and ``trec/runs/runNN.txt`` -- a TREC ad hoc-like sweep: 20 runs
  of 50 queries x 1,000 documents (TREC disks 4&5-like docnos) against one qrels with
  graded judgements (0, 1, 2), ~1,700 judged and ~90 relevant per query (``--size
  tiny`` alone writes ``trec-tiny/``: 3 runs of 10 queries x 100 documents).
* ``pool/qrels.txt`` and ``pool/run.txt`` -- a qrels of exactly 1,000,000 lines, the
  pools of many runs: 500 queries x 2,000 judged documents (TREC disks 4&5-like docnos,
  grades 0, 1, 2, ~8 % relevant), and a run of 50 of its queries x 1,000 documents to
  evaluate against it (``--size tiny`` alone writes ``pool-tiny/``: 10 x 200 judged,
  10 x 100 retrieved).
* with ``--wide 1M,10M,30M,100M`` (sizes in lines): ``wide-{SIZE}.run`` and
  ``wide-{SIZE}.qrels`` -- the shape of ranx's "million queries" benchmark: SIZE / 100
  queries x 100 documents (100M lines: 1,000,000 queries, ~3.6 GB), 1-3 relevant
  documents a query (grades 1 and 2, mean 1.45), numeric qids in numeric order, MS
  MARCO-like integer docnos, ``%.6f`` scores descending with 6 % exact ties, tag
  ``wide``. ``--wide-interleaved`` adds ``wide-{SIZE}.interleaved.run``, the same lines
  not grouped by query (10 passes over the queries, pass j holding every query's ranks
  10j+1..10j+10, so a query's lines lie a tenth of the file apart); ``--wide-pair``
  adds ``wide-{SIZE}.b.run``, a second system on the same queries (for ``compare``).
  Made 5,000 queries at a time, each block from a generator of its own: memory stays
  under ~0.5 GB whatever the size. ``--wide`` alone writes nothing else.
* with ``--messy``: ``msmarco-{SIZE}.messy.run`` -- the same rows written the hard
  way: runs of spaces and tabs, CRLF line ends, blank lines, ``#`` comment lines,
  extra fields after the sixth, a few scores in exponent notation.
* with ``--compress gz,bz2,xz``: compressed copies of the run.

Sizes: ``tiny`` (50 queries x 100 documents, for ``bench.py --smoke``), ``1M``
(1,000 queries), ``3.5M`` (3,500 queries), ``7M`` (6,980 queries, the size of MS
MARCO dev small), ``14M`` (13,960 queries, 560 MB).

Everything is seeded: the same command writes byte-identical files. Text is made
with numpy only (digits and bytes laid out in a uint8 matrix per block of lines,
padding dropped by a mask), so the 7M-line file takes a few seconds.

    python benchmarks/generate.py --out benchmarks/data --size 7M
    python benchmarks/generate.py --size tiny --messy --compress gz
    python benchmarks/generate.py --wide 1M,10M --wide-interleaved --wide-pair
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import gzip
import lzma
import os
import shutil
import sys
import time

import numpy as np

SIZES = {"tiny": 50, "1M": 1000, "3.5M": 3500, "7M": 6980, "14M": 13960}
MSMARCO_NUM_DOCS = 8_841_823          # passages in the MS MARCO passage collection
MSMARCO_MAX_QID = 1_102_400           # dev qids are below this
BLOCK = 500_000                       # lines formatted at once (bounds memory)


# ---------------------------------------------------------------------------
# Vectorised text layout: every column is a (n, w) uint8 matrix plus a (n, w)
# keep mask; a line is the concatenation of the kept bytes of its columns.
# ---------------------------------------------------------------------------

class Col:
    __slots__ = ("mat", "keep")

    def __init__(self, mat: np.ndarray, keep: np.ndarray | None):
        self.mat = mat
        self.keep = keep


def col_const(n: int, text: bytes) -> Col:
    mat = np.broadcast_to(np.frombuffer(text, np.uint8), (n, len(text)))
    return Col(mat, None)


def col_bytes(values: np.ndarray) -> Col:
    """An 'S' array (trailing NULs are padding)."""
    w = values.dtype.itemsize
    mat = np.ascontiguousarray(values).view(np.uint8).reshape(len(values), w)
    return Col(mat, mat != 0)


def _ndigits(x: np.ndarray) -> np.ndarray:
    nd = np.ones(len(x), np.int64)
    p = np.int64(10)
    for _ in range(18):
        more = x >= p
        if not more.any():
            break
        nd += more
        p *= 10
    return nd


def col_int(x: np.ndarray) -> Col:
    """Non-negative integers, no leading zeros."""
    x = np.asarray(x, np.int64)
    nd = _ndigits(x)
    width = int(nd.max()) if len(x) else 1
    pows = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    mat = ((x[:, None] // pows) % 10 + 48).astype(np.uint8)
    keep = np.arange(width) >= (width - nd)[:, None]
    return Col(mat, keep)


def col_fixed(values: np.ndarray, decimals: int, strip_zeros: bool = False) -> Col:
    """Fixed-point decimal text of float values ('%.{decimals}f'), optionally with
    trailing zeros of the fraction removed (at least one fraction digit is kept),
    which looks like Python's repr of a float for most values."""
    values = np.asarray(values, np.float64)
    scale = 10 ** decimals
    v = np.rint(np.abs(values) * scale).astype(np.int64)
    neg = (values < 0) & (v != 0)
    ip, fp = np.divmod(v, scale)
    ic = col_int(ip)
    pows = 10 ** np.arange(decimals - 1, -1, -1, dtype=np.int64)
    fmat = ((fp[:, None] // pows) % 10 + 48).astype(np.uint8)
    if strip_zeros:
        tz = np.zeros(len(fp), np.int64)          # trailing zeros, at most decimals - 1
        rest = fp.copy()
        for j in range(decimals - 1):
            z = (rest % 10 == 0) & (tz == j)
            tz += z
            rest = np.where(z, rest // 10, rest)
        fkeep = np.arange(decimals) < (decimals - tz)[:, None]
    else:
        fkeep = None
    sign = Col(np.full((len(values), 1), ord("-"), np.uint8), neg[:, None])
    dot = col_const(len(values), b".")
    return _join([sign, ic, dot, Col(fmat, fkeep)])


def _join(cols: list[Col]) -> Col:
    n = cols[0].mat.shape[0]
    mat = np.concatenate([c.mat for c in cols], axis=1)
    keep = np.concatenate(
        [c.keep if c.keep is not None else np.ones(c.mat.shape, bool) for c in cols], axis=1)
    assert mat.shape[0] == n
    return Col(mat, keep)


def col_to_S(c: Col) -> np.ndarray:
    """The kept bytes of each row, left-aligned, as an 'S' array."""
    n, w = c.mat.shape
    keep = c.keep if c.keep is not None else np.ones((n, w), bool)
    out = np.zeros((n, w), np.uint8)
    target = np.cumsum(keep, axis=1) - 1
    rows = np.broadcast_to(np.arange(n)[:, None], (n, w))
    out[rows[keep], target[keep]] = c.mat[keep]
    return out.view(f"S{w}").ravel()


def render(cols: list[Col]) -> bytes:
    c = _join(cols)
    return c.mat[c.keep].tobytes()


# ---------------------------------------------------------------------------
# MS MARCO-like run
# ---------------------------------------------------------------------------

def _dedupe(rng, q, doc, prio, ndocs):
    """Replace repeated (query, docno) pairs (the copy with the higher prio value
    or later position goes) by fresh random docnos, until none is left."""
    while True:
        key = (q.astype(np.int64) * ndocs + doc) * 2 + prio
        order = np.argsort(key)
        ks = key[order] >> 1
        dup = np.zeros(len(ks), bool)
        dup[1:] = ks[1:] == ks[:-1]
        if not dup.any():
            return doc
        idx = order[dup]
        doc[idx] = rng.integers(0, ndocs, len(idx))
        prio[idx] = 1


def msmarco(size: str, seed: int = 42, per_query: int | None = None,
            query_order: str = "numeric", score_style: str = "bm25"):
    """Columns of the MS MARCO-like run and qrels for a size (deterministic)."""
    nq = SIZES[size]
    k = per_query or (100 if size == "tiny" else 1000)
    rng = np.random.default_rng([seed, nq, k])
    qids = np.sort(rng.choice(MSMARCO_MAX_QID, nq, replace=False))
    if query_order == "topics":
        qorder = rng.permutation(nq)
    elif query_order == "bytes":
        qorder = np.argsort(qids.astype(str).astype("S"), kind="stable")
    else:
        qorder = np.arange(nq)

    # qrels: 1 relevant passage, sometimes 2-4 (mean ~1.07); 1 % of the queries get
    # a deep graded judgement set (TREC DL-like, grades 0..3)
    nrel = 1 + (rng.random(nq) < 0.055) + (rng.random(nq) < 0.012) + (rng.random(nq) < 0.003)
    deep = rng.random(nq) < 0.01
    ndeep = np.where(deep, rng.integers(10, 60, nq), 0)
    qr_q = np.concatenate([np.repeat(np.arange(nq), nrel), np.repeat(np.arange(nq), ndeep)])
    qr_grade = np.concatenate([
        np.ones(int(nrel.sum()), np.int64),
        rng.choice(4, int(ndeep.sum()), p=[0.55, 0.25, 0.13, 0.07])])
    qr_doc = rng.integers(0, MSMARCO_NUM_DOCS, len(qr_q))
    qr_doc = _dedupe(rng, qr_q, qr_doc, np.zeros(len(qr_q), np.int64), MSMARCO_NUM_DOCS)
    o = np.lexsort((qr_doc, qr_q))
    qr_q, qr_doc, qr_grade = qr_q[o], qr_doc[o], qr_grade[o]

    # run: random passages, judged ones put in at log-uniform ranks (85 % retrieved)
    n = nq * k
    q = np.repeat(np.arange(nq), k)
    doc = rng.integers(0, MSMARCO_NUM_DOCS, n)
    prio = np.ones(n, np.int64)
    hit = rng.random(len(qr_q)) < np.where(qr_grade > 0, 0.85, 0.6)
    hq, hd, hg = qr_q[hit], qr_doc[hit], qr_grade[hit]
    hrank = np.minimum((np.exp(rng.random(len(hq)) * np.log(k)) - 1).astype(np.int64), k - 1)
    hrank = np.where(hg > 0, hrank, rng.integers(0, k, len(hq)))
    slot = hq * k + hrank
    doc[slot] = hd
    prio[slot] = 0
    doc = _dedupe(rng, q, doc, prio, MSMARCO_NUM_DOCS)

    # BM25-like scores: per-query top score, exponential gaps, 6 % exact ties
    top = rng.uniform(12.0, 35.0, nq)
    gaps = rng.exponential(1.0, n) * np.repeat(top * 0.6 / k, k)
    gaps[rng.random(n) < 0.06] = 0.0
    gaps[::k] = 0.0
    cum = np.cumsum(gaps.reshape(nq, k), axis=1).ravel()
    score = np.repeat(top, k) - cum
    if score_style == "dense":          # float32 model outputs, printed as doubles
        score = score.astype(np.float32).astype(np.float64)
    else:                               # '%.6f' of a float
        score = np.rint(score * 1e6) / 1e6
    # rows: by query order, score descending (already), docno ascending among ties
    qpos = np.empty(nq, np.int64)
    qpos[qorder] = np.arange(nq)
    o = (qorder[:, None] * k + np.arange(k)).ravel()
    q, doc, score = q[o], doc[o], score[o]
    newgroup = np.ones(n, bool)
    newgroup[1:] = (score[1:] != score[:-1]) | (q[1:] != q[:-1])
    o = np.argsort((np.cumsum(newgroup) << 24) | doc, kind="stable")
    q, doc, score = q[o], doc[o], score[o]
    qo = np.lexsort((qr_doc, qpos[qr_q]))
    return dict(qids=qids, q=q, doc=doc, score=score, k=k,
                qr_q=qr_q[qo], qr_doc=qr_doc[qo], qr_grade=qr_grade[qo])


def write_blocks(path: str, n: int, make_block) -> None:
    with open(path, "wb") as f:
        for a in range(0, n, BLOCK):
            f.write(make_block(a, min(n, a + BLOCK)))


def write_msmarco(out: str, size: str, seed: int, query_order: str, messy: bool,
                  compress: list[str], score_style: str) -> list[str]:
    d = msmarco(size, seed, query_order=query_order, score_style=score_style)
    qids, q, doc, score, k = d["qids"], d["q"], d["doc"], d["score"], d["k"]
    n = len(q)
    rank = np.tile(np.arange(1, k + 1), n // k)
    written = []

    def score_col(s):
        if score_style == "dense":
            return col_fixed(s, 14, strip_zeros=True)
        return col_fixed(s, 6)

    def block(a, b):
        m = b - a
        return render([col_int(qids[q[a:b]]), col_const(m, b" Q0 "), col_int(doc[a:b]),
                       col_const(m, b" "), col_int(rank[a:b]), col_const(m, b" "),
                       score_col(score[a:b]), col_const(m, b" Anserini\n")])

    suffix = "" if score_style == "bm25" else f"-{score_style}"
    stem = os.path.join(out, f"msmarco-{size}" + suffix)
    write_blocks(stem + ".run", n, block)
    written.append(stem + ".run")
    m = len(d["qr_q"])
    qrels = render([col_int(qids[d["qr_q"]]), col_const(m, b" 0 "), col_int(d["qr_doc"]),
                    col_const(m, b" "), col_int(d["qr_grade"]), col_const(m, b"\n")])
    with open(stem + ".qrels", "wb") as f:
        f.write(qrels)
    written.append(stem + ".qrels")

    if messy:
        rng = np.random.default_rng([seed, 7])
        seps = [b" ", b"\t", b"  ", b" \t ", b"\t\t"]

        def sep(m):
            choice = rng.choice(len(seps), m, p=[0.7, 0.15, 0.07, 0.05, 0.03])
            arr = np.array(seps, dtype="S3")[choice]
            return col_bytes(arr)

        def mblock(a, b):
            m = b - a
            s = score[a:b]
            # 0.5 % of the scores in exponent notation (1.8811600e+01: same value)
            ex = np.flatnonzero(rng.random(m) < 0.005)
            stext = col_to_S(col_fixed(s, 6))
            stext = stext.astype(f"S{max(stext.dtype.itemsize, 16)}")
            stext[ex] = [b"%.7e" % v for v in s[ex].tolist()]
            sc = col_bytes(stext)
            extra = col_bytes(np.where(rng.random(m) < 0.02, b" extra field", b""))
            eol = col_bytes(np.where(rng.random(m) < 0.5, b"\r\n", b"\n").astype("S2"))
            lead = col_bytes(np.where(rng.random(m) < 0.01, b"  ", b"").astype("S2"))
            body = render([lead, col_int(qids[q[a:b]]), sep(m), col_const(m, b"Q0"), sep(m),
                           col_int(doc[a:b]), sep(m), col_int(rank[a:b]), sep(m), sc,
                           sep(m), col_const(m, b"Anserini"), extra, eol])
            lines = body.split(b"\n")[:-1]
            # sprinkle blank and comment lines (cheap: rare)
            outl = []
            ins = np.flatnonzero(rng.random(len(lines)) < 0.001)
            last = 0
            if a == 0:
                outl.append(b"# messy variant of " + os.path.basename(stem).encode() + b".run")
            for j, i in enumerate(ins.tolist()):
                outl.extend(lines[last:i])
                outl.append(b"# comment line " + str(a + i).encode() if j % 2 == 0 else b"  \t")
                last = i
            outl.extend(lines[last:])
            return b"\n".join(outl) + b"\n"

        write_blocks(stem + ".messy.run", n, mblock)
        written.append(stem + ".messy.run")

    for c in compress:
        opener, level = {"gz": (gzip.open, {"compresslevel": 6}),
                         "bz2": (bz2.open, {"compresslevel": 9}),
                         "xz": (lzma.open, {"preset": 1})}[c]
        with open(stem + ".run", "rb") as src, opener(stem + ".run." + c, "wb", **level) as dst:
            while True:
                buf = src.read(1 << 24)
                if not buf:
                    break
                dst.write(buf)
        written.append(stem + ".run." + c)
    return written


# ---------------------------------------------------------------------------
# The "million queries" shape: many queries x 100 documents, 1-3 relevant each
# ---------------------------------------------------------------------------

WIDE_DOCS = 100                       # documents a query
WIDE_BLOCK_Q = 5_000                  # queries made at once (500,000 lines)
WIDE_PASSES = 10                      # interleaved: each query cut in 10 slices of 10 ranks


def wide_lines(text: str) -> int:
    """A size in lines: ``1M``, ``10M``, ``20k``, ``300000``; a multiple of WIDE_DOCS."""
    t = text.strip()
    mult = {"k": 10**3, "K": 10**3, "M": 10**6}.get(t[-1:], 1)
    try:
        n = round(float(t[:-1] if mult > 1 else t) * mult)
    except ValueError:
        raise ValueError(f"not a number of lines: {text!r}") from None
    if n <= 0 or n % WIDE_DOCS:
        raise ValueError(f"{text!r}: the number of lines must be a positive multiple "
                         f"of {WIDE_DOCS}")
    return n


def wide_qids(seed: int, nlines: int) -> np.ndarray:
    """The query ids, ascending: distinct integers below max(1,102,400, 4 x queries)."""
    nq = nlines // WIDE_DOCS
    rng = np.random.default_rng([seed, 31, nlines])
    return np.sort(rng.choice(max(MSMARCO_MAX_QID, 4 * nq), nq, replace=False))


def wide_block(seed: int, nlines: int, block: int, nq: int, system: int):
    """One block of ``nq`` queries (numbered from 0 in the block): its qrels and the rows of
    run ``system`` (1 or 2), each from a generator of its own, so that the qrels and either
    run are the same whichever files are written."""
    k = WIDE_DOCS
    qrng = np.random.default_rng([seed, 31, nlines, block, 0])
    nrel = 1 + (qrng.random(nq) < 0.35) + (qrng.random(nq) < 0.10)     # 1-3, mean 1.45
    qr_q = np.repeat(np.arange(nq), nrel)
    qr_doc = qrng.integers(0, MSMARCO_NUM_DOCS, len(qr_q))
    qr_doc = _dedupe(qrng, qr_q, qr_doc, np.zeros(len(qr_q), np.int64), MSMARCO_NUM_DOCS)
    qr_grade = 1 + (qrng.random(len(qr_q)) < 0.2)
    o = np.lexsort((qr_doc, qr_q))
    qr_q, qr_doc, qr_grade = qr_q[o], qr_doc[o], qr_grade[o]

    rng = np.random.default_rng([seed, 31, nlines, block, system])
    n = nq * k
    q = np.repeat(np.arange(nq), k)
    doc = rng.integers(0, MSMARCO_NUM_DOCS, n)
    prio = np.ones(n, np.int64)
    hit = rng.random(len(qr_q)) < (0.85 if system == 1 else 0.75)
    hq, hd = qr_q[hit], qr_doc[hit]
    hrank = np.minimum((np.exp(rng.random(len(hq)) * np.log(k)) - 1).astype(np.int64), k - 1)
    doc[hq * k + hrank] = hd
    prio[hq * k + hrank] = 0
    doc = _dedupe(rng, q, doc, prio, MSMARCO_NUM_DOCS)
    top = rng.uniform(12.0, 35.0, nq)
    gaps = rng.exponential(1.0, n) * np.repeat(top * 0.6 / k, k)
    gaps[rng.random(n) < 0.06] = 0.0                                     # exact ties
    gaps[::k] = 0.0
    score = np.rint((np.repeat(top, k) - np.cumsum(gaps.reshape(nq, k), axis=1).ravel())
                    * 1e6) / 1e6
    newgroup = np.ones(n, bool)                                           # ties: docno up
    newgroup[1:] = (score[1:] != score[:-1]) | (q[1:] != q[:-1])
    o = np.argsort((np.cumsum(newgroup) << 24) | doc, kind="stable")
    return qr_q, qr_doc, qr_grade, doc[o], score[o]


def write_wide(out: str, size: str, seed: int, interleaved: bool, pair: bool) -> list[str]:
    """``wide-{size}.run`` and ``.qrels`` (and ``.interleaved.run``, ``.b.run``), a block
    of WIDE_BLOCK_Q queries at a time. The interleaved file holds the rows of the run in
    WIDE_PASSES passes over the queries, pass j every query's ranks 10j+1..10j+10: each
    pass is written to a file of its own while the blocks are made, and the passes are
    then joined."""
    nlines = wide_lines(size)
    qids = wide_qids(seed, nlines)
    nq_all, k = len(qids), WIDE_DOCS
    rank = np.arange(1, k + 1)
    stem = os.path.join(out, f"wide-{size}")
    per = k // WIDE_PASSES
    with contextlib.ExitStack() as stack:
        files = {key: stack.enter_context(open(stem + suffix, "wb"))
                 for key, suffix in (("run", ".run"), ("qrels", ".qrels"), ("b", ".b.run"))
                 if key != "b" or pair}
        passes = [stack.enter_context(open(f"{stem}.interleaved.run.pass{j}", "wb"))
                  for j in range(WIDE_PASSES if interleaved else 0)]
        for block, q0 in enumerate(range(0, nq_all, WIDE_BLOCK_Q)):
            nq = min(WIDE_BLOCK_Q, nq_all - q0)
            m = nq * k
            bq = qids[q0:q0 + nq]
            for system, key in ((1, "run"), (2, "b")):
                if key not in files:
                    continue
                qr_q, qr_doc, qr_grade, doc, score = wide_block(seed, nlines, block, nq,
                                                                system)
                lines = _join([col_int(np.repeat(bq, k)), col_const(m, b" Q0 "),
                               col_int(doc), col_const(m, b" "),
                               col_int(np.tile(rank, nq)), col_const(m, b" "),
                               col_fixed(score, 6),
                               col_const(m, b" wide\n" if system == 1 else b" wideb\n")])
                files[key].write(lines.mat[lines.keep].tobytes())
                if system == 1:
                    for j, f in enumerate(passes):
                        rows = (np.arange(nq)[:, None] * k
                                + np.arange(j * per, (j + 1) * per)).ravel()
                        f.write(lines.mat[rows][lines.keep[rows]].tobytes())
            mq = len(qr_q)
            files["qrels"].write(render([col_int(bq[qr_q]), col_const(mq, b" 0 "),
                                         col_int(qr_doc), col_const(mq, b" "),
                                         col_int(qr_grade), col_const(mq, b"\n")]))
    written = [stem + ".run", stem + ".qrels"]
    if interleaved:
        target = stem + ".interleaved.run"
        os.replace(passes[0].name, target)
        with open(target, "ab") as dst:
            for f in passes[1:]:
                with open(f.name, "rb") as src:
                    shutil.copyfileobj(src, dst, 1 << 24)
                os.remove(f.name)
        written.append(target)
    if pair:
        written.append(stem + ".b.run")
    return written


# ---------------------------------------------------------------------------
# TREC ad hoc-like sweep
# ---------------------------------------------------------------------------

def trec_docnos(rng, n: int) -> np.ndarray:
    """TREC disks 4&5-like docnos (FBIS3-10082, FT911-1234, LA010189-0001, FR940104-0-00001)."""
    kind = rng.choice(4, n, p=[0.25, 0.40, 0.25, 0.10])
    a = rng.integers(0, 100000, n)
    day = rng.integers(1, 29, n)
    mon = rng.integers(1, 13, n)
    out = []
    for kd, x, dd, mm in zip(kind.tolist(), a.tolist(), day.tolist(), mon.tolist()):
        if kd == 0:
            out.append(f"FBIS{3 + x % 2}-{x}")
        elif kd == 1:
            out.append(f"FT9{x % 4 + 1}{x % 3 + 1}-{x % 17000}")
        elif kd == 2:
            out.append(f"LA{mm:02d}{dd:02d}8{x % 10}-{x % 200:04d}")
        else:
            out.append(f"FR94{mm:02d}{dd:02d}-{x % 3}-{x % 100000:05d}")
    return np.unique(np.array(out, dtype="S"))


def write_trec(out: str, seed: int, small: bool) -> list[str]:
    rng = np.random.default_rng([seed, 1999])
    nruns, nq, k = (3, 10, 100) if small else (20, 50, 1000)
    sub = "trec-tiny" if small else "trec"
    coll = trec_docnos(rng, 20_000 if small else 528_155)
    qids = np.arange(401, 401 + nq)
    njudged = rng.integers(k, int(k * 2.5), nq)
    qr_q, qr_doc, qr_grade = [], [], []
    for i in range(nq):
        docs = np.sort(rng.choice(len(coll), njudged[i], replace=False))
        prel = rng.uniform(0.02, 0.12)
        g = np.where(rng.random(njudged[i]) < prel, 1 + (rng.random(njudged[i]) < 0.3), 0)
        qr_q.append(np.full(njudged[i], i))
        qr_doc.append(docs)
        qr_grade.append(g)
    qr_q, qr_doc, qr_grade = map(np.concatenate, (qr_q, qr_doc, qr_grade))
    os.makedirs(os.path.join(out, sub, "runs"), exist_ok=True)
    m = len(qr_q)
    qrels_path = os.path.join(out, sub, "qrels.txt")
    with open(qrels_path, "wb") as f:
        f.write(render([col_int(qids[qr_q]), col_const(m, b" 0 "), col_bytes(coll[qr_doc]),
                        col_const(m, b" "), col_int(qr_grade), col_const(m, b"\n")]))
    written = [qrels_path]
    qstart = np.concatenate(([0], np.cumsum(njudged)))
    for r in range(nruns):
        quality = 0.3 + 2.2 * r / max(1, nruns - 1)
        style = r % 4
        rows_q, rows_d, rows_s = [], [], []
        for i in range(nq):
            jd = qr_doc[qstart[i]:qstart[i + 1]]
            jg = qr_grade[qstart[i]:qstart[i + 1]]
            pick = rng.random(len(jd)) < 0.45
            jd, jg = jd[pick], jg[pick]
            rnd = rng.choice(len(coll), k, replace=False)
            cand = np.concatenate([jd, rnd])
            grade = np.concatenate([jg, np.zeros(k, np.int64)])
            cand, first = np.unique(cand, return_index=True)
            grade = grade[first]
            s = quality * grade + rng.normal(0, 1, len(cand))
            o = np.argsort(-s, kind="stable")[:k]
            cand, s = cand[o], s[o]
            s = (s - s.min()) * 3 + 1
            if style == 3:
                s = -np.log1p(np.exp(-s))     # log-probability-like negatives
            s = np.rint(s * 1e4) / 1e4 if style == 0 else s
            o = np.lexsort((coll[cand], -s))
            rows_q.append(np.full(len(cand), i))
            rows_d.append(cand[o])
            rows_s.append(s[o])
        rq, rd, rs = map(np.concatenate, (rows_q, rows_d, rows_s))
        n = len(rq)
        rank = np.concatenate([np.arange(1, len(x) + 1) for x in rows_q])
        if style in (0, 1):
            sc = col_fixed(rs, 4 if style == 0 else 6)
        else:
            sc = col_fixed(rs, 14, strip_zeros=True)
        tag = f" run{r + 1:02d}\n".encode()
        body = render([col_int(qids[rq]), col_const(n, b" Q0 "), col_bytes(coll[rd]),
                       col_const(n, b" "), col_int(rank), col_const(n, b" "), sc,
                       col_const(n, tag)])
        p = os.path.join(out, sub, "runs", f"run{r + 1:02d}.txt")
        with open(p, "wb") as f:
            f.write(body)
        written.append(p)
    return written


def write_pool(out: str, seed: int, small: bool) -> list[str]:
    """A pooled qrels (queries 301.. x judged documents, sorted by docno) and a run of its
    first queries that retrieves about 40 % of each query's judged documents."""
    rng = np.random.default_rng([seed, 2000])
    nq, njudged, nrun, k = (10, 200, 10, 100) if small else (500, 2000, 50, 1000)
    sub = "pool-tiny" if small else "pool"
    coll = trec_docnos(rng, 20_000 if small else 528_155)
    qids = np.arange(301, 301 + nq)
    docs = np.sort(np.stack([rng.choice(len(coll), njudged, replace=False)
                             for _ in range(nq)]), axis=1)
    prel = rng.uniform(0.02, 0.15, nq)[:, None]
    grade = np.where(rng.random((nq, njudged)) < prel,
                     1 + (rng.random((nq, njudged)) < 0.3), 0)
    os.makedirs(os.path.join(out, sub), exist_ok=True)
    m = nq * njudged
    qrels_path = os.path.join(out, sub, "qrels.txt")
    with open(qrels_path, "wb") as f:
        f.write(render([col_int(np.repeat(qids, njudged)), col_const(m, b" 0 "),
                        col_bytes(coll[docs.ravel()]), col_const(m, b" "),
                        col_int(grade.ravel()), col_const(m, b"\n")]))
    rows_q, rows_d, rows_s = [], [], []
    for i in range(nrun):
        judged = rng.random(njudged) < 0.4
        cand = np.union1d(docs[i][judged], rng.choice(len(coll), k, replace=False))
        rel = np.isin(cand, docs[i][grade[i] > 0])
        s = 1.5 * rel + rng.normal(0, 1, len(cand))
        o = np.argsort(-s, kind="stable")[:k]
        cand, s = cand[o], np.rint((s[o] - s[o].min()) * 3e4 + 1e4) / 1e4
        o = np.lexsort((coll[cand], -s))
        rows_q.append(np.full(len(o), i))
        rows_d.append(cand[o])
        rows_s.append(s[o])
    rq, rd, rs = map(np.concatenate, (rows_q, rows_d, rows_s))
    n = len(rq)
    rank = np.concatenate([np.arange(1, len(x) + 1) for x in rows_q])
    run_path = os.path.join(out, sub, "run.txt")
    with open(run_path, "wb") as f:
        f.write(render([col_int(qids[rq]), col_const(n, b" Q0 "), col_bytes(coll[rd]),
                        col_const(n, b" "), col_int(rank), col_const(n, b" "),
                        col_fixed(rs, 4), col_const(n, b" pooled\n")]))
    return [qrels_path, run_path]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data"))
    ap.add_argument("--size", default=None,
                    help="tiny, 1M, 3.5M, 7M, 14M or all (comma list; default 7M, none "
                         "with --wide alone)")
    ap.add_argument("--wide", default="",
                    help="comma list of sizes in lines (1M, 10M, 30M, 100M, 20k...) of the "
                         "wide runs: queries x 100 documents, 1-3 relevant a query")
    ap.add_argument("--wide-interleaved", action="store_true",
                    help="also write wide-SIZE.interleaved.run: the same lines, not grouped "
                         "by query (10 passes over the queries, 10 ranks each)")
    ap.add_argument("--wide-pair", action="store_true",
                    help="also write wide-SIZE.b.run: a second system on the same queries")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--query-order", choices=["numeric", "bytes", "topics"], default="numeric",
                    help="order of the query groups in the run (default: numeric qid order)")
    ap.add_argument("--score-style", choices=["bm25", "dense"], default="bm25",
                    help="bm25: '%%.6f'; dense: float32 scores written with 14 decimals, "
                         "trailing zeros stripped (like a double's repr)")
    ap.add_argument("--messy", action="store_true", help="also write the messy variant")
    ap.add_argument("--compress", default="", help="comma list of gz,bz2,xz copies")
    ap.add_argument("--no-trec", action="store_true", help="skip the TREC sweep")
    ap.add_argument("--no-msmarco", action="store_true", help="skip the MS MARCO-like run")
    ap.add_argument("--no-pool", action="store_true", help="skip the 1M-line pooled qrels")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    wide = [w for w in a.wide.split(",") if w]
    for w in wide:
        try:
            wide_lines(w)
        except ValueError as e:
            ap.error(f"--wide: {e}")
    if a.size is None and wide:
        a.no_msmarco = a.no_trec = a.no_pool = True
    sizes = list(SIZES) if a.size == "all" else (a.size or "7M").split(",")
    compress = [c for c in a.compress.split(",") if c]
    for s in sizes:
        if s not in SIZES:
            ap.error(f"unknown size {s!r}; choose from {', '.join(SIZES)} or all")
    t0 = time.perf_counter()
    files = []
    for w in wide:
        t = time.perf_counter()
        files += write_wide(a.out, w, a.seed, a.wide_interleaved, a.wide_pair)
        print(f"wide-{w}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    if not a.no_msmarco:
        for s in sizes:
            files += write_msmarco(a.out, s, a.seed, a.query_order, a.messy, compress,
                                   a.score_style)
    if not a.no_trec:
        files += write_trec(a.out, a.seed, small=sizes == ["tiny"])
    if not a.no_pool:
        files += write_pool(a.out, a.seed, small=sizes == ["tiny"])
    for p in files:
        print(f"{os.path.getsize(p):>12,d}  {p}")
    print(f"done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
