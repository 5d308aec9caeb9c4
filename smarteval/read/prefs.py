"""trec_eval's preference judgements and judgement groups (-R prefs, qrels_prefs, qrels_jg).

trec_eval reads three more relevance formats besides its qrels (``get_prefs.c``,
``get_qrels_prefs.c``, ``get_qrels_jg.c``):

- ``prefs``: ``QID JG JSG DOCNO REL_LEVEL`` per line. Within a judgement group (JG, one
  user's information need) and its judgement sub-group (JSG), a document with a higher
  level is preferred to one with a lower level; a level of 0 means not relevant. Levels
  are real numbers (compared as 32-bit floats under trec_eval 9, as doubles under 10).
- ``qrels_prefs``: a qrels file (``QID ITER DOCNO REL``) read as preferences: the
  iteration field is the judgement group, every line in sub-group ``0``, the grade the
  level (so a real number is accepted, as trec_eval's ``atof`` reads it).
- ``qrels_jg``: a qrels file whose second field names the judgement group: each group is
  a set of judgements of its own (several assessors of one query); grades are integers.
  A document judged twice in one group is refused (trec_eval: "duplicate docs").

Every line holds exactly its fields (a blank line, a missing or an extra field is an
error naming file and line); ``#`` lines are comments. Numbers follow the grammar of run
scores (``[+-]digits[.digits][e[+-]digits]``), grades of ``qrels_jg`` that of qrels
grades: what C's ``atof``/``atol`` would read only in part (``1.5abc``) is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from smarteval.columns import Qrels, run_starts
from smarteval.errors import InputError
from smarteval.read.keys import is_varlen
from smarteval.read.plain import (
    _decode_ids,
    _group_queries,
    _Lines,
    _parse_ints,
    highest_grades,
    naming_the_file_out_of_memory,
    parse_numbers,
    qrels_columns,
    query_docno_order,
    read_lines,
)
from smarteval.read.source import display

PREFS_EXPECTED = "QUERY_ID JG JSG DOC_ID REL_LEVEL (5 fields, whitespace-separated)"
QRELS_PREFS_EXPECTED = "QUERY_ID JG DOC_ID REL_LEVEL (4 fields, whitespace-separated)"
QRELS_JG_EXPECTED = "QUERY_ID JG DOC_ID REL (4 fields, whitespace-separated; REL an integer)"


@dataclass(frozen=True, eq=False)
class Preferences:
    """Preference judgements, grouped by query (byte order of ids), docnos sorted in each.

    Row ``i`` says: in judgement group ``jg[i]``, sub-group ``jsg[i]``, document
    ``docnos[i]`` has level ``level[i]``. ``jg`` and ``jsg`` index :attr:`jg_ids` and
    :attr:`jsg_ids` (sorted bytes, so code order is trec_eval's strcmp order).
    ``format`` is ``"prefs"`` or ``"qrels_prefs"``.
    """

    path: str
    format: str
    qids: np.ndarray         # (Q,) str
    offsets: np.ndarray      # (Q+1,) int64
    docnos: np.ndarray       # (m,) bytes
    jg: np.ndarray           # (m,) int64 into jg_ids
    jsg: np.ndarray          # (m,) int64 into jsg_ids
    level: np.ndarray        # (m,) float64, as read
    lines: np.ndarray        # (m,) int64, 1-based
    jg_ids: np.ndarray       # bytes
    jsg_ids: np.ndarray      # bytes
    #: (m,) int64 index of each row's docno among its query's distinct docnos
    doc: np.ndarray

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    def __len__(self) -> int:
        return len(self.docnos)

    def as_qrels(self) -> Qrels:
        """The plain view the ranking stage joins a run with: each (query, docno) once, its
        grade the document's index among the query's distinct docnos (:attr:`doc`; so a
        retrieved document's grade names it, and -1, not judged, the others)."""
        codes = np.repeat(np.arange(self.num_queries, dtype=np.int64), np.diff(self.offsets))
        rows = np.flatnonzero(run_starts(codes, self.docnos)) if len(codes) else codes
        return qrels_columns(self.path, self.qids, codes[rows], self.docnos[rows],
                             self.doc[rows], self.lines[rows])


@dataclass(frozen=True, eq=False)
class JudgementGroups:
    """Qrels with judgement groups (``-R qrels_jg``): one set of qrels per (query, group).

    :attr:`groups` holds them as plain :class:`Qrels` whose queries are the (query, group)
    pairs, in trec_eval's order (query, then group by bytes); ``group_query[g]`` is the
    index in :attr:`qids` of group ``g``'s query.
    """

    path: str
    qids: np.ndarray          # (Q,) str
    groups: Qrels             # one "query" per (query, group)
    group_query: np.ndarray   # (G,) int64 into qids
    jg_ids: np.ndarray        # (G,) bytes: each group's name

    #: the -R format it was read as
    format = "qrels_jg"

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    def as_qrels(self) -> Qrels:
        """The plain view the ranking stage selects queries with: every judged document of
        the query once, at its highest grade over the groups (its first line's number)."""
        g = self.groups
        codes = self.group_query[np.repeat(np.arange(len(self.group_query)),
                                           np.diff(g.offsets))]
        _, order = query_docno_order(codes, g.docnos)
        return highest_grades(self.path, self.qids, codes[order], g.docnos[order],
                              g.grades[order], g.lines[order])


def _levels(level_bytes: np.ndarray, lines: _Lines, expected: str) -> np.ndarray:
    """Relevance levels, read as run scores are."""
    return parse_numbers(level_bytes, lines, "relevance level", expected)


@naming_the_file_out_of_memory
def read_prefs(path: str | os.PathLike, *, data: bytes | None = None) -> Preferences:
    """Read trec_eval's preference file: ``QID JG JSG DOCNO REL_LEVEL`` per line."""
    return _read_preferences(path, data, "prefs")


@naming_the_file_out_of_memory
def read_qrels_prefs(path: str | os.PathLike, *, data: bytes | None = None) -> Preferences:
    """Read a qrels file as preferences (``-R qrels_prefs``): the second field is the
    judgement group, every line in sub-group ``0``, the grade the level."""
    return _read_preferences(path, data, "qrels_prefs")


def _read_preferences(path, data: bytes | None, fmt: str) -> Preferences:
    name = display(str(path))
    five = fmt == "prefs"
    expected = PREFS_EXPECTED if five else QRELS_PREFS_EXPECTED
    lines = read_lines(path, data, 5 if five else 4, expected, fmt)
    level = _levels(lines.field(4 if five else 3), lines, expected)
    docnos = lines.ids(3 if five else 2)
    uniq, codes, grouped = _group_queries(lines.ids(0))
    qids, codes, _ = _decode_ids(uniq, codes, grouped)
    jg_ids, jg = np.unique(lines.field(1), return_inverse=True)
    if five:
        jsg_ids, jsg = np.unique(lines.field(2), return_inverse=True)
    else:
        jsg_ids, jsg = np.array([b"0"]), np.zeros(len(codes), dtype=np.int64)
    _, order = query_docno_order(codes, docnos)
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(qids)), out=offsets[1:])
    codes, docnos = codes[order], docnos[order]
    distinct = np.cumsum(run_starts(codes, docnos)) - 1 if len(codes) else codes
    doc = distinct - distinct[offsets[:-1]][codes] if len(codes) else codes
    return Preferences(path=name, format=fmt, qids=qids, offsets=offsets,
                       docnos=docnos, jg=jg.reshape(-1)[order].astype(np.int64),
                       jsg=jsg.reshape(-1)[order].astype(np.int64), level=level[order],
                       lines=lines.lines[order], jg_ids=jg_ids, jsg_ids=jsg_ids,
                       doc=doc.astype(np.int64))


@naming_the_file_out_of_memory
def read_qrels_jg(path: str | os.PathLike, *, data: bytes | None = None) -> JudgementGroups:
    """Read qrels with judgement groups (``-R qrels_jg``): ``QID JG DOCNO REL`` per line."""
    name = display(str(path))
    lines = read_lines(path, data, 4, QRELS_JG_EXPECTED, "qrels_jg")
    grades = _parse_ints(lines.field(3), lines, QRELS_JG_EXPECTED)
    docnos = lines.ids(2)
    uniq, codes, grouped = _group_queries(lines.ids(0))
    qids, codes, _ = _decode_ids(uniq, codes, grouped)
    jg_bytes = lines.field(1)
    # (query, group) pairs in trec_eval's order: query, then group name by bytes
    jg_uniq, jg_code = np.unique(jg_bytes, return_inverse=True)
    jg_code = jg_code.reshape(-1).astype(np.int64)
    pair_key = codes * len(jg_uniq) + jg_code
    pairs, group = np.unique(pair_key, return_inverse=True)
    group = group.reshape(-1).astype(np.int64)
    group_query = pairs // len(jg_uniq)
    group_names = jg_uniq[pairs % len(jg_uniq)]
    # "QID JG": a space sorts below every byte of an id, so the labels keep this order
    names = np.char.decode(group_names, "utf-8", "surrogateescape").astype(object)
    labels = qids[group_query].astype(object) + " " + names
    labels = labels if is_varlen(qids) else labels.astype(str)
    groups = qrels_columns(name, np.asarray(labels), group, docnos, grades, lines.lines)
    if len(groups.repeated):
        g, first, again = (int(v) for v in groups.repeated[0])
        raise InputError(name, again,
                         f"document judged twice in judgement group "
                         f"{group_names[g].decode('utf-8', 'replace')!r} of query "
                         f"{qids[group_query[g]]} (first at line {first})",
                         text=lines.line_text(again),
                         expected="each document once in each judgement group of a query")
    return JudgementGroups(path=name, qids=qids, groups=groups,
                           group_query=group_query.astype(np.int64), jg_ids=group_names)
