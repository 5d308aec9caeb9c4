"""sample_eval's sampled judgements (-R sample_qrels): QUERY ITER DOCNO STRATUM REL.

NIST's ``sample_eval.pl`` (Yilmaz, Kanoulas and Aslam, SIGIR 2008) reads qrels of five
fields: the pool of each topic is split into strata (the fourth field names a
document's stratum), each stratum sampled at its own rate; REL is the grade of a
sampled document and -1 (any negative number) marks a pooled document that was not
sampled. The ITER field is ignored.

Every line holds exactly five fields (a blank line, a missing or an extra field is an
error naming file and line; ``#`` lines are comments); REL is a number, a fraction
allowed (``1.5``), as sample_eval reads it: relevant above 0, sampled at 0 or more, its
value the gain of infNDCG. A document
listed twice for one topic is refused (sample_eval keeps the last line's grade and
stratum but counts both lines in its stratum's sizes). The TREC Million Query track's
``prels`` (QUERY DOCNO REL METHOD PROB) also have five fields: they are not read here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from smarteval.columns import Qrels
from smarteval.errors import InputError
from smarteval.read.plain import (
    _decode_ids,
    _group_queries,
    _Lines,
    naming_the_file_out_of_memory,
    parse_numbers,
    qrels_columns,
)
from smarteval.read.source import display, read_bytes

SAMPLE_EXPECTED = ("QUERY_ID ITERATION DOC_ID STRATUM REL (5 fields, whitespace-separated; "
                   "REL a number, -1 for a pooled document not sampled)")


@dataclass(frozen=True, eq=False)
class SampleQrels:
    """Sampled judgements, grouped by query (byte order of ids), docnos sorted in each.

    Row ``i`` says: document ``docnos[i]`` of query ``qids[q]`` is in stratum
    ``stratum_ids[stratum[i]]`` and has grade ``rel[i]`` (below 0: pooled, not sampled;
    a float, fractions allowed).
    ``slot[i]`` is the place of that stratum among the query's strata sorted by their
    bytes (sample_eval visits a topic's strata in that order; ``stratum_ids`` are sorted
    so too).
    """

    path: str
    qids: np.ndarray          # (Q,) str
    offsets: np.ndarray       # (Q+1,) int64
    docnos: np.ndarray        # (m,) bytes
    stratum: np.ndarray       # (m,) int64 into stratum_ids
    slot: np.ndarray          # (m,) int64: the stratum's place among the query's strata
    rel: np.ndarray           # (m,) float64, as read
    lines: np.ndarray         # (m,) int64, 1-based
    stratum_ids: np.ndarray   # (S,) bytes, sorted

    #: the -R format it was read as
    format = "sample_qrels"

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    def __len__(self) -> int:
        return len(self.docnos)

    @property
    def qindex(self) -> np.ndarray:
        """(m,) query index of every row."""
        return np.repeat(np.arange(self.num_queries, dtype=np.int64), np.diff(self.offsets))

    def as_qrels(self) -> Qrels:
        """The plain view the ranking stage joins a run with: a sampled document at its
        grade rounded up to a whole number (0 stays 0, 0.5 is 1), a pooled one not sampled
        at -1 (judged, unusable: ``-J`` drops it). sample_eval's measures read each
        document's own grade (:attr:`row_view`)."""
        return self._view(np.clip(np.ceil(self.rel), -1, 2.0 ** 62).astype(np.int64))

    @cached_property
    def row_view(self) -> Qrels:
        """The view giving each judged document its row's place in its topic as its grade
        (how the ranking stage finds the stratum and the grade of each retrieved
        document; kept, with the hash tables the ranking stage builds on it)."""
        return self._view(np.arange(len(self), dtype=np.int64)
                          - np.repeat(self.offsets[:-1], np.diff(self.offsets)))

    def _view(self, grades: np.ndarray) -> Qrels:
        return Qrels(path=self.path, qids=self.qids, offsets=self.offsets, docnos=self.docnos,
                     grades=grades, lines=self.lines)


@naming_the_file_out_of_memory
def read_sample_qrels(path: str | os.PathLike, *, data: bytes | None = None) -> SampleQrels:
    """Read sample_eval's qrels: ``QID ITER DOCNO STRATUM REL`` per line."""
    name = display(str(path))
    data = read_bytes(path if data is None else name, data=data, what="a sample qrels file",
                      expected=SAMPLE_EXPECTED)
    lines = _Lines(data, name, 5, SAMPLE_EXPECTED, "sample qrels", exact=True)
    rel = parse_numbers(lines.field(4), lines, "relevance", SAMPLE_EXPECTED)
    docnos = lines.ids(2)
    uniq, codes, grouped = _group_queries(lines.ids(0))
    qids, codes, _ = _decode_ids(uniq, codes, grouped)
    stratum_ids, stratum = _codes(lines.field(3))
    plain = qrels_columns(name, qids, codes, docnos, rel, lines.lines)
    if len(plain.repeated):
        q, first, again = (int(v) for v in plain.repeated[0])
        row = int(np.flatnonzero(lines.lines == first)[0])
        doc = docnos[row].decode("utf-8", "replace")
        raise InputError(name, again, f"document {doc} is listed again in topic {qids[q]} "
                         f"(first at line {first})", text=lines.line_text(again),
                         expected="each document once in a topic's sample")
    # the rows in the plain view's order (query, docno), found again by line number
    rows = np.searchsorted(lines.lines, plain.lines)
    stratum = stratum[rows]
    query = codes[rows]
    # a stratum's slot: how many of the query's strata sort before it
    width = max(len(stratum_ids), 1)
    present = np.zeros(len(qids) * width, dtype=np.int64)
    present[query * width + stratum] = 1
    below = np.cumsum(present.reshape(len(qids), width), axis=1) - 1
    slot = below[query, stratum]
    return SampleQrels(path=name, qids=qids, offsets=plain.offsets, docnos=plain.docnos,
                       stratum=stratum, slot=slot, rel=plain.grades, lines=plain.lines,
                       stratum_ids=stratum_ids)


def _codes(fields: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct byte strings of ``fields``, sorted, and each row's index among them
    (short fields compared as big-endian integers, as fast as numbers)."""
    width = fields.dtype.itemsize
    if fields.dtype.kind != "S" or width > 8 or not len(fields):
        ids, code = np.unique(fields, return_inverse=True)
        return ids, code.reshape(-1).astype(np.int64)
    padded = np.zeros((len(fields), 8), dtype=np.uint8)
    padded[:, :width] = fields.view(np.uint8).reshape(-1, width)
    keys = padded.view(">u8").reshape(-1)
    distinct, first, code = np.unique(keys, return_index=True, return_inverse=True)
    return fields[first], code.reshape(-1).astype(np.int64)
