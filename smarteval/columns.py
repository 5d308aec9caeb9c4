"""The columnar data model: runs, qrels and ranked runs as flat arrays with per-query offsets."""

from __future__ import annotations

from dataclasses import field, replace
from functools import cached_property

import numpy as np

from smarteval.records import record
from smarteval.settings import Settings

#: Relevance code of a retrieved document absent from the qrels (trec_eval's RELVALUE_NONPOOL).
NONPOOL = -1
#: Relevance code of a retrieved document judged with a negative grade
#: (trec_eval's RELVALUE_UNJUDGED).
UNJUDGED = -2
#: The document trec_eval 10.0 ranks alone, score 1.0, for a query without results under -c.
PLACEHOLDER = b"ceci_nest_pas_un_docno"


@record(frozen=True, eq=False)
class Run:
    """One run file, grouped by query (queries in byte order of their ids).

    Rows of query ``q`` are ``offsets[q]:offsets[q+1]``; inside a query the rows keep
    file order (ranking happens in :mod:`smarteval.ranking.join`). ``lines`` holds each row's
    physical line number so that vectorised checks can name the offending line.
    """

    path: str
    qids: np.ndarray      # (Q,) str
    offsets: np.ndarray   # (Q+1,) int64
    #: (n,) bytes: numpy 'S', or an object array of bytes when a few ids are far longer
    #: than the rest (and query ids an object array of str); see smarteval.read.keys
    docnos: np.ndarray
    scores: np.ndarray    # (n,) float64
    #: (n,) 1-based physical line numbers; None when no docno repeats in a query (the
    #: only use of a run's line numbers after reading is to name a repeat)
    lines: np.ndarray | None
    tag: str              # run tag of the last line (trec_eval's runid)
    docno_hash: np.ndarray | None = None  # (n,) uint64 hash of each docno, when computed
    #: (k, 2) int64 rows ``[first, again]`` of a docno listed twice in one query (see
    #: :func:`smarteval.ranking.check_repeats`)
    repeated: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    #: (n,) bytes: each row's second field (cwl_eval's element type), kept only when
    #: asked for (a cost file is given); None otherwise
    element_types: np.ndarray | None = None
    #: (n,) int64: each row's rank field, kept only when asked for (ndeval's rank order)
    ranks: np.ndarray | None = None

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    def __len__(self) -> int:
        return len(self.docnos)


@record(frozen=True, eq=False)
class Qrels:
    """Relevance judgements, grouped by query (byte order of ids), docnos sorted in each query.

    A (query, docno) judged twice is kept once (its first line); ``duplicate_grades``
    holds the grade of every such extra line, because trec_eval's ``-c`` counts lines,
    not documents, in num_rel's summary (see :attr:`num_positive_lines`).
    """

    path: str
    qids: np.ndarray      # (Q,) str
    offsets: np.ndarray   # (Q+1,) int64
    docnos: np.ndarray    # (m,) bytes, as Run.docnos
    grades: np.ndarray    # (m,) int64; negative = judged but unusable
    lines: np.ndarray     # (m,) int64
    #: (k,) int64 grades of the identical duplicate lines left out of the columns above
    duplicate_grades: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: (k, 3) int64 ``[query index, first line, line again]`` of each document judged again
    #: in one query (see :func:`smarteval.ranking.check_repeats`)
    repeated: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    @property
    def num_positive_lines(self) -> int:
        """Lines with a grade above 0, identical duplicates included (whatever ``-l``).

        What trec_eval's ``-c`` prints as num_rel's summary: it recounts the qrels file.
        """
        return int(np.count_nonzero(self.grades > 0)
                   + np.count_nonzero(np.asarray(self.duplicate_grades) > 0))

    def __len__(self) -> int:
        return len(self.docnos)

    @cached_property
    def lookup_tables(self) -> dict:
        """The distinct judged docnos and hash tables over them, built and kept here by the
        ranking stage (shared by every run evaluated against these qrels)."""
        return {}


@record(frozen=True, eq=False)
class Ranked:
    """A run joined with its qrels: every evaluated query, documents in final rank order.

    This is the only thing a measure sees. Rows of query ``q`` are
    ``offsets[q]:offsets[q+1]``, best document first. ``rel`` holds each retrieved
    document's grade from the qrels, :data:`NONPOOL` (-1) when the qrels do not list it
    and :data:`UNJUDGED` (-2) when they list it with a negative grade. ``qrel_grades``
    holds, per query, the non-negative grades of every judged document in descending
    order (the ideal ranking), at ``qrel_offsets``; ``qrel_lines`` and ``qrel_docnos``
    the qrels line number and docno of each of those grades (None when unknown: a
    ranking built by hand or a residual collection).

    Queries added by ``-c`` (in the qrels but not in the run) have ``in_run`` False. Under
    trec_eval 9 they have no rows; under 10 they hold one placeholder document,
    :data:`PLACEHOLDER` with score 1.0 (before ``-M`` and ``-J``), as trec_eval 10.0
    evaluates them. ``qrels_num_queries`` and ``qrels_positive_lines`` are the whole
    qrels' query count and :attr:`Qrels.num_positive_lines`, which ``-c`` averages
    over even when ``settings.query`` (``-D``) keeps one query.
    """

    qids: np.ndarray          # (Q,) str
    offsets: np.ndarray       # (Q+1,) int64
    rel: np.ndarray           # (n,) int64
    score: np.ndarray         # (n,) float64, as read
    docno: np.ndarray         # (n,) bytes, as Run.docnos
    qrel_offsets: np.ndarray  # (Q+1,) int64
    qrel_grades: np.ndarray   # (m,) int64, >= 0, descending within each query
    in_run: np.ndarray        # (Q,) bool
    rel_level: int = 1
    run_tag: str = ""
    tie_key: np.ndarray | None = None    # (n,) scores as compared (float32 under trec_eval 9)
    settings: Settings = field(default_factory=lambda: Settings())
    #: (Q,) per-query collection size when it differs by query (a residual collection,
    #: see smarteval.ranking.residual); None means settings.num_docs for every query
    num_docs_q: np.ndarray | None = None
    #: queries in the whole qrels, and their lines with a grade above 0 (-c's num_q, num_rel)
    qrels_num_queries: int | None = None
    qrels_positive_lines: int | None = None
    #: (m,) int64 qrels line number and (m,) bytes docno of each ``qrel_grades`` entry
    qrel_lines: np.ndarray | None = None
    qrel_docnos: np.ndarray | None = None
    #: ndeval's subtopic judgements of the queries (diversity qrels), when read; the
    #: diversity measures match them to the ranked documents themselves
    subtopics: object | None = None
    #: trec_eval's preference judgements of the queries in its internal ranks
    #: (:class:`smarteval.ranking.prefs.PrefRanking`, under ``-R prefs|qrels_prefs``)
    prefs: object | None = None
    #: every (query, judgement group) ranked against the group's judgements
    #: (:class:`smarteval.ranking.prefs.GroupRanking`, under ``-R qrels_jg``)
    groups: object | None = None
    #: cwl_eval's fractional gains and element costs, when read; the C/W/L measures match
    #: them to the ranked documents themselves (:mod:`smarteval.measures.cwl`)
    cwl: object | None = None
    #: sample_eval's strata of the ranked documents and the sampled judgements
    #: (:class:`smarteval.ranking.sample.SampleRanking`, under ``-R sample_qrels``)
    sample: object | None = None
    #: (n,) each row's place in the run as read (its line order within the query), kept
    #: when a program that reads the run's line order is asked for
    #: (:mod:`smarteval.ranking.programs`); None otherwise
    file_row: np.ndarray | None = None

    @property
    def num_docs(self) -> int | None:
        """N, the number of documents in the collection, when given (``-N``)."""
        return self.settings.num_docs

    # ---- derived columns, computed once and shared by every measure ----
    @property
    def num_queries(self) -> int:
        return len(self.qids)

    @cached_property
    def memo(self) -> dict:
        """Values shared between measures (AP for map and gm_map, ...), computed once."""
        return {}

    @cached_property
    def num_ret(self) -> np.ndarray:
        """(Q,) documents retrieved (after -M and -J)."""
        return np.diff(self.offsets)

    @cached_property
    def qindex(self) -> np.ndarray:
        """(n,) query index of every row."""
        return np.repeat(np.arange(self.num_queries, dtype=np.int64), self.num_ret)

    @cached_property
    def rank(self) -> np.ndarray:
        """(n,) 1-based rank of every row within its query."""
        return np.arange(len(self.rel), dtype=np.int64) - self.offsets[:-1][self.qindex] + 1

    @cached_property
    def is_rel(self) -> np.ndarray:
        """(n,) bool: grade at or above the relevance level."""
        return self.rel >= self.rel_level

    @cached_property
    def cum_rel(self) -> np.ndarray:
        """(n+1,) prefix sums of is_rel with a leading 0 (relevant so far, run-wide)."""
        # int32 halves the largest shared column; counts never reach 2**31 rows here
        out = np.zeros(len(self.rel) + 1, dtype=np.int32 if len(self.rel) < 2**31 else np.int64)
        np.cumsum(self.is_rel, out=out[1:])
        return out

    @cached_property
    def rel_so_far(self) -> np.ndarray:
        """(n,) relevant documents at or above each row, within its query."""
        return (self.cum_rel[1:] - self.cum_rel[self.offsets[:-1]][self.qindex]).astype(np.int64)

    @cached_property
    def rel_rows(self) -> np.ndarray:
        """Row index of every relevant retrieved document (rank order within each query)."""
        return np.flatnonzero(self.is_rel)

    @cached_property
    def rel_offsets(self) -> np.ndarray:
        """(Q+1,) offsets of each query's relevant rows within :attr:`rel_rows`."""
        out = np.zeros(self.num_queries + 1, dtype=np.int64)
        np.cumsum(self.num_rel_ret, out=out[1:])
        return out

    @cached_property
    def rel_rank(self) -> np.ndarray:
        """Rank of every relevant retrieved document (aligned with :attr:`rel_rows`)."""
        start = np.repeat(self.offsets[:-1], self.num_rel_ret)
        return self.rel_rows - start + 1

    @cached_property
    def rel_k(self) -> np.ndarray:
        """1, 2, 3 ... within each query: how many relevant documents up to this one."""
        start = np.repeat(self.rel_offsets[:-1], self.num_rel_ret)
        return np.arange(len(self.rel_rows), dtype=np.int64) - start + 1

    def count_before(self, mask: np.ndarray) -> np.ndarray:
        """For every relevant row, how many rows above it in its query satisfy ``mask``."""
        return marked_before(mask, self.rel_rows, np.repeat(self.offsets[:-1], self.num_rel_ret))

    @cached_property
    def num_rel(self) -> np.ndarray:
        """(Q,) judged documents with grade >= rel_level (trec_eval's num_rel)."""
        return segment_sum(self.qrel_grades >= self.rel_level, self.qrel_offsets)

    @cached_property
    def num_judged(self) -> np.ndarray:
        """(Q,) judged documents (grade >= 0) in the qrels."""
        return np.diff(self.qrel_offsets)

    @cached_property
    def num_nonrel(self) -> np.ndarray:
        """(Q,) judged non-relevant documents in the qrels."""
        return self.num_judged - self.num_rel

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """(Q,) relevant documents retrieved."""
        return np.diff(np.searchsorted(self.rel_rows, self.offsets)).astype(np.int64)

    def rel_before(self, rows: np.ndarray) -> np.ndarray:
        """How many relevant rows lie before each of ``rows`` (run-wide positions 0..n):
        :attr:`cum_rel` at those positions, found among the relevant rows alone."""
        return np.searchsorted(self.rel_rows, rows).astype(np.int64)

    @cached_property
    def qrel_qindex(self) -> np.ndarray:
        """(m,) query index of every qrels grade."""
        return np.repeat(np.arange(self.num_queries, dtype=np.int64), self.num_judged)

    def at_level(self, rel_level: int) -> Ranked:
        """The same ranking with another relevance level (ir_measures' ``rel=``)."""
        if rel_level == self.rel_level:
            return self
        return replace(self, rel_level=rel_level)

    def subset(self, mask: np.ndarray) -> Ranked:
        """Keep only the rows where ``mask`` is True (ranks close up)."""
        keep = np.flatnonzero(mask)
        counts = segment_sum(mask, self.offsets)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return replace(
            self, offsets=offsets, rel=self.rel[keep], score=self.score[keep],
            docno=self.docno[keep],
            tie_key=None if self.tie_key is None else self.tie_key[keep],
            file_row=None if self.file_row is None else self.file_row[keep])


def tie_starts(r: Ranked) -> np.ndarray:
    """(n,) True at the first row of each group of equal scores (as the ranking compared
    them) within a query."""
    key = r.tie_key if r.tie_key is not None else r.score
    n = len(key)
    start = np.ones(n, dtype=bool)
    if n > 1:
        start[1:] = key[1:] != key[:-1]
    start[r.offsets[:-1][r.num_ret > 0]] = True
    return start


def straddling(offsets: np.ndarray, n: int) -> np.ndarray:
    """The pairs of neighbouring rows (i, i + 1) of ``n`` rows grouped by ``offsets`` that
    lie in two queries, as the index i."""
    across = offsets[1:-1] - 1
    return across[(across >= 0) & (across < n - 1)]


def tied_pairs(key: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(n-1,) True where rows i and i + 1 hold equal keys within one query."""
    tied = key[1:] == key[:-1]
    tied[straddling(offsets, len(key))] = False
    return tied


def tie_groups(tied: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows in a group of tied neighbours (``tied``: :func:`tied_pairs`), ascending,
    and True at each group's first row: the tied rows alone, no column of every row."""
    n = len(tied) + 1
    in_group = np.zeros(n, dtype=bool)
    in_group[1:] |= tied
    in_group[:-1] |= tied
    rows = np.flatnonzero(in_group)                   # intp: indexes without a conversion
    del in_group
    starts = np.ones(len(rows), dtype=bool)
    starts[1:] = ~tied[rows[1:] - 1]
    return rows, starts


def ties_reversed(r: Ranked) -> np.ndarray | None:
    """The permutation turning each group of tied scores around: trec_eval ranks them by
    docno descending, and this gives docno ascending (ir_measures' order, and trec_eval's
    own for preferences). None when no two rows of a query tie."""
    start = tie_starts(r)
    if start.all():
        return None
    n = len(start)
    first = np.flatnonzero(start)
    last = np.append(first[1:], n) - 1
    gid = np.cumsum(start) - 1
    return first[gid] + last[gid] - np.arange(n)


def marked_before(mask: np.ndarray, rows: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(k,) int64: for each of ``rows``, how many rows from ``starts`` (its query's first
    row) up to it, itself excluded, satisfy ``mask`` (n,).

    When few rows are marked (a run's judged rows, say: thousands among millions), by
    binary search among the marked rows; otherwise by a prefix count over all n rows
    (int32 while n < 2**31). Both give the same counts.
    """
    marked = int(np.count_nonzero(mask))
    if marked * 16 < len(mask):
        at = np.flatnonzero(mask)
        return np.searchsorted(at, rows).astype(np.int64) - np.searchsorted(at, starts)
    p = np.zeros(len(mask) + 1, dtype=np.int32 if len(mask) < 2**31 else np.int64)
    np.cumsum(mask, out=p[1:])
    return (p[rows] - p[starts]).astype(np.int64)


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """(n,) True where a run of equal key tuples of sorted rows starts."""
    n = len(keys[0])
    new = np.zeros(n, dtype=bool)
    if n:
        new[0] = True
        for k in keys:
            new[1:] |= k[1:] != k[:-1]
    return new


def block_query_index(offsets: np.ndarray, lo: int, hi: int, dtype=np.int64) -> np.ndarray:
    """(hi - lo,) the query of each of rows ``lo:hi`` (rows grouped by ``offsets``): a
    block's share of the query index column, without the whole column.

    By example: offsets=[0, 2, 2, 5], lo=1, hi=4  ->  [0, 2, 2]
    """
    first = int(np.searchsorted(offsets, lo, side="right")) - 1
    last = int(np.searchsorted(offsets, hi - 1, side="right")) - 1
    bounds = np.clip(offsets[first:last + 2], lo, hi)
    return np.repeat(np.arange(first, last + 1, dtype=dtype), np.diff(bounds))


def prefix(values: np.ndarray) -> np.ndarray:
    """Prefix sums with a leading 0 (exact for integer and boolean columns)."""
    out = np.zeros(len(values) + 1, dtype=np.float64 if values.dtype.kind == "f" else np.int64)
    np.cumsum(values, out=out[1:])
    return out


def segment_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of each segment; empty segments give 0 (unlike np.add.reduceat).

    By example: values=[1,0,1,1,0], offsets=[0,2,2,5]  ->  [1, 0, 2]
    """
    if values.dtype.kind == "b" and len(offsets) > 1 and offsets[0] == 0 \
            and offsets[-1] == len(values):
        # a mask with few True rows (relevant documents, say) is counted from their
        # positions, without a prefix array of 8 bytes a row
        hits = int(np.count_nonzero(values))
        if hits <= len(values) // 8:
            q = np.searchsorted(offsets, np.flatnonzero(values), side="right") - 1
            return np.bincount(q, minlength=len(offsets) - 1).astype(np.int64)
    if values.dtype.kind == "f" and len(offsets) > 1:
        # each segment summed on its own, from its first row: its value owes nothing to
        # the rows before it (a prefix's differences would round by them)
        out = np.zeros(len(offsets) - 1, dtype=np.float64)
        lo, hi = int(offsets[0]), int(offsets[-1])
        starts = offsets[:-1]
        full = np.flatnonzero(offsets[1:] > starts)
        if len(full):
            out[full] = np.add.reduceat(values[lo:hi], starts[full] - lo)
        return out
    p = prefix(values)
    return p[offsets[1:]] - p[offsets[:-1]]


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values (``np.unique`` without its import of ``numpy.ma``)."""
    out = np.sort(values)
    if len(out) < 2:
        return out
    keep = np.empty(len(out), dtype=bool)
    keep[0] = True
    np.not_equal(out[1:], out[:-1], out=keep[1:])
    return out[keep]
