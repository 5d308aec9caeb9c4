"""Diversity qrels (ndeval's ``QID SUBTOPIC DOCNO REL``) into flat columns, and the plain view.

ndeval (the TREC Web track's diversity evaluation, ``ndeval.c``) reads one judgement per
line: query, subtopic, document, relevance. :func:`read_qrels_diversity` reads such a
file with the checked tokenizer of :mod:`smarteval.read.plain` (every error names file
and line); :meth:`DiversityQrels.as_qrels` gives the plain qrels the ranking stage joins a
run with (a document's grade is its highest over the subtopics, so "relevant" means
relevant to some subtopic, ndeval's own notion for its non-intent-aware counts).
:func:`looks_like_diversity` tells a diversity file from plain qrels.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from smarteval.columns import Qrels
from smarteval.errors import InputError
from smarteval.read.plain import (
    _decode_ids,
    _group_queries,
    _parse_ints,
    highest_grades,
    naming_the_file_out_of_memory,
    query_docno_order,
    read_lines,
)
from smarteval.read.source import display

DIVERSITY_EXPECTED = "QUERY_ID SUBTOPIC DOC_ID RELEVANCE (4 fields, whitespace-separated)"


@dataclass(frozen=True, eq=False)
class DiversityQrels:
    """Subtopic judgements, grouped by query (byte order of ids).

    Rows of query ``q`` are ``offsets[q]:offsets[q+1]``, sorted by docno, then by
    subtopic. ``subtopic`` indexes :attr:`subtopic_ids`, the file's distinct subtopic ids
    in ndeval's order (by number when every id is a whole number, as ndeval reads them;
    else by bytes). ``grades`` are the judgements as read (ndeval counts a grade of 1 or
    more as relevant; a negative grade is judged and not relevant).
    """

    path: str
    qids: np.ndarray         # (Q,) str
    offsets: np.ndarray      # (Q+1,) int64
    docnos: np.ndarray       # (m,) bytes
    subtopic: np.ndarray     # (m,) int64 index into subtopic_ids
    grades: np.ndarray       # (m,) int64
    lines: np.ndarray        # (m,) int64, 1-based
    subtopic_ids: np.ndarray  # (S,) str

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    def __len__(self) -> int:
        return len(self.docnos)

    def as_qrels(self) -> Qrels:
        """The plain qrels: each (query, docno) once, graded with its highest judgement
        over the subtopics, at the line of its first judgement in the file."""
        codes = np.repeat(np.arange(self.num_queries), np.diff(self.offsets))
        return highest_grades(self.path, self.qids, codes, self.docnos, self.grades,
                              self.lines)


def _subtopic_order(uniq: np.ndarray) -> np.ndarray:
    """The rank of each distinct subtopic id (bytes, sorted) in ndeval's order."""
    digits = np.char.isdigit(uniq) if len(uniq) else np.zeros(0, dtype=bool)
    if len(uniq) and digits.all() and int(np.char.str_len(uniq).max()) <= 18:
        order = np.argsort(uniq.astype(np.int64), kind="stable")
    else:
        order = np.arange(len(uniq))
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[order] = np.arange(len(uniq))
    return rank


@naming_the_file_out_of_memory
def read_qrels_diversity(path: str | os.PathLike, *,
                         data: bytes | None = None) -> DiversityQrels:
    """Read ndeval's diversity qrels: ``QID SUBTOPIC DOCNO REL`` per line, REL an integer.

    Every line holds exactly four fields, as in plain qrels. A document judged twice for
    the same subtopic of a query is refused (ndeval would count it twice in MAP-IA's
    denominator and keep one of the two grades at random), naming both lines.
    """
    name = display(str(path))
    lines = read_lines(path, data, 4, DIVERSITY_EXPECTED, "qrels")
    grades = _parse_ints(lines.field(3), lines, DIVERSITY_EXPECTED)
    uniq, codes, grouped = _group_queries(lines.ids(0))
    qids, codes, _ = _decode_ids(uniq, codes, grouped)
    docnos = lines.ids(2)
    sub_uniq, sub_code = np.unique(lines.field(1), return_inverse=True)
    rank = _subtopic_order(sub_uniq)
    subtopic = rank[sub_code.reshape(-1)]
    keys, _ = query_docno_order(codes, docnos)
    order = np.lexsort((subtopic,) + tuple(reversed(keys)) + (codes,))
    same = codes[order[1:]] == codes[order[:-1]]
    same &= subtopic[order[1:]] == subtopic[order[:-1]]
    for w in keys:
        same &= w[order[1:]] == w[order[:-1]]
    if same.any():
        at = np.flatnonzero(same)
        pairs = np.sort(np.stack([order[at], order[at + 1]], axis=1), axis=1)
        first, again = pairs[np.argmin(pairs[:, 1])]
        raise lines.error(int(again), "document judged twice for the same subtopic of a "
                          f"query (first at line {int(lines.lines[first])})",
                          DIVERSITY_EXPECTED)
    texts = np.empty(len(sub_uniq), dtype=object)
    texts[rank] = [s.decode("utf-8", "surrogateescape") for s in sub_uniq.tolist()]
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(qids)), out=offsets[1:])
    return DiversityQrels(path=name, qids=qids, offsets=offsets, docnos=docnos[order],
                          subtopic=subtopic[order].astype(np.int64),
                          grades=grades[order], lines=lines.lines[order],
                          subtopic_ids=texts.astype(str))


def looks_like_diversity(path: str | os.PathLike, *, data: bytes | None = None) -> bool:
    """Whether a qrels file reads as diversity qrels: four fields a line, and some query
    with two different values in the second field (plain qrels repeat one iteration).

    A file that is not qrels at all is left to the reader to word (False).
    """
    try:
        lines = read_lines(path, data, 4, DIVERSITY_EXPECTED, "qrels")
    except InputError:
        return False
    qid, second = lines.field(0), lines.field(1)
    if len(qid) < 2:
        return False
    order = np.lexsort((second, qid))
    same_q = qid[order[1:]] == qid[order[:-1]]
    return bool((same_q & (second[order[1:]] != second[order[:-1]])).any())


__all__ = ["DIVERSITY_EXPECTED", "DiversityQrels", "looks_like_diversity",
           "read_qrels_diversity"]
