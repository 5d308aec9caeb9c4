"""Gains and discounts: trec_eval's gain table, its ideal ranking, the DCG terms, and the
SMART measures' gains of relevant documents."""

from __future__ import annotations

import math

import numpy as np

from smarteval import libm
from smarteval.columns import Ranked, distinct
from smarteval.measures.segments import positions
from smarteval.records import record


@record(frozen=True, eq=False, repr=False)   # arrays: no equality, no repr
class Gains:
    """trec_eval's gain table (setup_gains) applied to every query of a ranking.

    ``row`` is the gain of every retrieved row. ``ideal`` holds each query's ideal
    ranking as trec_eval walks it (only the positive gains it counts), at
    ``ideal_offsets``. ``lo`` and ``hi`` are, per query, the least and greatest gain of
    the table and 0.0 (rbp's normalisation range); ``in_table`` marks the rows whose code
    has an entry (rbp rescales only those).
    """

    row: np.ndarray
    ideal: np.ndarray
    ideal_offsets: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    in_table: np.ndarray

    @property
    def num_ideal(self) -> np.ndarray:
        """(Q,) length of each query's ideal ranking (its positive gains)."""
        return np.diff(self.ideal_offsets)


def gains_of(r: Ranked, pairs: tuple = ()) -> Gains:
    """The gain table of ``pairs`` (``rel=gain``) for every query of ``r``, computed once.

    trec_eval builds one table per query: an entry per parameter pair in the order
    given (the level is the name read with atol; trec_eval 10.0 skips a name that is not
    an integer, such as rbp's ``p``; the gain is a double), then an entry ``level=level``
    for every level 0 .. top not named, top the query's highest judged grade. A
    level's count of judged documents goes to its first entry. The table is sorted with
    glibc's qsort and a comparator returning ``(int)(g1 - g2)``: gains less than 1 apart
    compare equal, so the order is what glibc's merge sort makes of that (for instance
    ``ndcg.1=0.5`` with grades 0, 1 and 2 orders the gains 0.5, 0, 2, and the ideal
    ranking stops at the grade-0 documents, before the grade-1 ones).

    A retrieved document gains its code's first entry in the sorted table (0 without
    one: a pair ``-1=g`` gives documents absent from the qrels gain g). The ideal
    ranking walks the table from its last entry down, each entry repeated as many
    times as its count, and ends at the first entry met with a count and a gain of 0
    or less, or at once when the last entry's gain is 0 or less. With no pairs this is
    every positive grade, largest first.
    """
    key = ("gains", pairs)
    if key not in r.memo:
        r.memo[key] = _plain_gains(r) if not pairs else _table_gains(r, pairs)
    return r.memo[key]


def _level_counts(r: Ranked):
    """(query, level, count) of every grade present in each query's qrels, and each
    query's number of levels (1 + its highest judged grade; 0 with none)."""
    g = r.qrel_grades
    n = len(g)
    start = np.ones(n, dtype=bool)
    if n > 1:
        start[1:] = g[1:] != g[:-1]
    start[r.qrel_offsets[:-1][r.num_judged > 0]] = True
    first = np.flatnonzero(start)
    counts = np.diff(np.append(first, n))
    levels = g[first]
    queries = r.qrel_qindex[first]
    num_levels = np.zeros(r.num_queries, dtype=np.int64)
    has = r.num_judged > 0
    num_levels[has] = g[r.qrel_offsets[:-1][has]] + 1     # grades are sorted descending
    return queries, levels, counts, num_levels


def _offsets(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _plain_gains(r: Ranked) -> Gains:
    """No pairs: every grade gains itself; the ideal is the positive grades, largest first."""
    pos = r.qrel_grades > 0
    ideal = r.qrel_grades[pos].astype(np.float64)
    ideal_offsets = _offsets(np.bincount(r.qrel_qindex[pos], minlength=r.num_queries))
    top = np.zeros(r.num_queries)
    has = r.num_judged > 0
    top[has] = r.qrel_grades[r.qrel_offsets[:-1][has]]
    return Gains(row=np.maximum(r.rel, 0).astype(np.float64), ideal=ideal,
                 ideal_offsets=ideal_offsets, lo=np.zeros(r.num_queries), hi=top,
                 in_table=(r.rel >= 0) & np.repeat(has, r.num_ret))


def _valid_int(name: str) -> bool:
    """trec_eval 10.0's test of a pair's name: an optional sign, then digits only."""
    digits = name[1:] if name[:1] in "+-" else name
    return digits != "" and all(ch in "0123456789" for ch in digits)


def _atol(name: str) -> int:
    """C's atol: leading blanks, an optional sign, the digits that follow; 0 if none."""
    s = name.lstrip(" \t\n\v\f\r")
    sign = -1 if s[:1] == "-" else 1
    if s[:1] in "+-":
        s = s[1:]
    digits = ""
    for ch in s:
        if ch not in "0123456789":
            break
        digits += ch
    return sign * int(digits) if digits else 0


def pair_entries(pairs: tuple, version: int) -> list[tuple[int, float]]:
    """The table entries (level, gain) of the ``rel=gain`` pairs, in the order given."""
    out = []
    for name, gain in pairs:
        if isinstance(name, (int, np.integer)):
            level = int(name)
        elif version >= 10 and not _valid_int(str(name)):
            continue                     # 10.0 leaves such names to the measure (rbp's p)
        else:
            level = _atol(str(name))
        out.append((level, float(gain)))
    return out


def _c_int(x: float) -> int:
    """A double converted to a C int by x86-64 (cvttsd2si): truncated toward zero, and
    INT_MIN for NaN or a value outside the int range."""
    if math.isnan(x) or not -2.0 ** 31 - 1 < x < 2.0 ** 31:
        return -(2 ** 31)
    return int(x)


def glibc_merge_sort(items: list, cmp) -> list:
    """glibc's qsort of a small array (msort.c): top-down merge sort, the first n // 2
    elements on the left, the left element taken while ``cmp(left, right) <= 0``."""
    n = len(items)
    if n <= 1:
        return list(items)
    left = glibc_merge_sort(items[:n // 2], cmp)
    right = glibc_merge_sort(items[n // 2:], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def sorted_table(entries: tuple, num_levels: int) -> tuple:
    """One query's sorted gain table: (level, gain, counted) in trec_eval's order.

    ``entries`` are the pairs' (level, gain); the levels 0 .. num_levels - 1 not among
    them follow with gain = level. ``counted`` is True on the first entry of each level
    0 .. num_levels - 1 (the one trec_eval gives the level's count of documents).
    """
    table = [(level, gain) for level, gain in entries]
    named = {level for level, _ in entries}
    table += [(level, float(level)) for level in range(num_levels) if level not in named]
    seen: set[int] = set()
    rows = []
    for level, gain in table:
        counted = 0 <= level < num_levels and level not in seen
        seen.add(level)
        rows.append((level, gain, counted))
    return tuple(glibc_merge_sort(rows, lambda a, b: _c_int(a[1] - b[1])))


def _table_gains(r: Ranked, pairs: tuple) -> Gains:
    """The general case: one sorted table per number of levels (few), applied per query.

    Queries with the same number of levels share a table; the loop runs over those
    tables, never over queries.
    """
    entries = tuple(pair_entries(pairs, r.settings.trec_version))
    queries, levels, counts, num_levels = _level_counts(r)
    kinds, kind_of = np.unique(num_levels, return_inverse=True)
    tables = [sorted_table(entries, int(v)) for v in kinds]

    # the gain of every code, per table: codes run from -2 to the highest grade
    top = int(kinds.max()) if len(kinds) else 0
    lut = np.zeros((len(kinds), top + 3))
    has_entry = np.zeros((len(kinds), top + 3), dtype=bool)
    lo = np.zeros(len(kinds))
    hi = np.zeros(len(kinds))
    # walk position and gain of each level's counted entry, per table (-1: none)
    present = distinct(levels)
    walk_pos = np.full((len(kinds), len(present)), -1, dtype=np.int64)
    walk_gain = np.zeros((len(kinds), len(present)))
    top_gain = np.zeros(len(kinds))
    for t, table in enumerate(tables):
        for level, gain, _ in reversed(table):            # the first entry of a code wins
            if -2 <= level <= top:
                lut[t, level + 2] = gain
                has_entry[t, level + 2] = True
        gains = [gain for _, gain, _ in table]
        lo[t] = min([0.0, *gains])
        hi[t] = max([0.0, *gains])
        top_gain[t] = table[-1][1] if table else 0.0
        for pos, (level, gain, counted) in enumerate(reversed(table)):
            if counted:
                j = np.searchsorted(present, level)
                if j < len(present) and present[j] == level:
                    walk_pos[t, j] = pos
                    walk_gain[t, j] = gain

    row_kind = kind_of[r.qindex]
    code = np.clip(r.rel, -2, top) + 2
    row = lut[row_kind, code]
    in_table = has_entry[row_kind, code] & (r.rel <= top)

    # the ideal: each query's levels in walk order, up to the first with a gain <= 0
    t = kind_of[queries]
    j = np.searchsorted(present, levels)
    pos, gain = walk_pos[t, j], walk_gain[t, j]
    stop = np.full(r.num_queries, np.iinfo(np.int64).max)
    nonpos = gain <= 0
    np.minimum.at(stop, queries[nonpos], pos[nonpos])
    stop[top_gain[kind_of] <= 0] = -1
    keep = pos < stop[queries]
    order = np.lexsort((pos[keep], queries[keep]))
    reps = counts[keep][order]
    ideal = np.repeat(gain[keep][order], reps)
    ideal_offsets = _offsets(np.bincount(queries[keep][order], weights=reps,
                                         minlength=r.num_queries).astype(np.int64))
    return Gains(row=row, ideal=ideal, ideal_offsets=ideal_offsets, lo=lo[kind_of],
                 hi=hi[kind_of], in_table=in_table)


def log2_table(n: int) -> np.ndarray:
    """log2(i) for i = 0 .. n from the C library (:func:`smarteval.libm.log2`).

    log2(0) is given as 0 (never used as a divisor).
    """
    out = libm.log2(np.arange(n + 1))
    out[0] = 0.0
    return out


def dcg_terms(gain: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """gain / log2(rank + 1) for every row, 0 where the gain is 0."""
    pos = positions(offsets)
    if len(pos) == 0:
        return np.zeros(0)
    table = log2_table(int(pos.max()) + 1)
    return np.where(gain != 0, gain / table[pos + 1], 0.0)


def sparse_dcg_terms(r: Ranked, pairs: tuple):
    """gain / log2(rank + 1) at the retrieved rows with a non-zero gain, in rank order.

    Few retrieved documents gain, so the DCG measures work on those rows alone: returns
    the terms, their ranks and per-query offsets into them. Same values, same order of
    addition, as over every row.
    """
    key = ("dcg_terms", pairs)
    if key in r.memo:
        return r.memo[key]
    gain = gains_of(r, pairs).row
    rows = np.flatnonzero(gain != 0)
    q = np.searchsorted(r.offsets, rows, side="right") - 1     # no query column of every row
    rank = rows - r.offsets[q] + 1
    table = log2_table(int(rank.max()) + 1 if len(rank) else 1)
    terms = gain[rows] / table[rank + 1]
    offsets = _offsets(np.bincount(q, minlength=r.num_queries))
    r.memo[key] = (terms, rank, offsets)
    return r.memo[key]


def relevant_gains(r: Ranked, pairs: tuple = ()):
    """Gains of the retrieved rows and of the relevant qrels, from their grades.

    A relevant document's gain is its grade unless a ``grade=gain`` pair names the grade;
    non-relevant documents gain 0. Returns (row gains, qrels gains, qrels relevant mask).
    """
    def gains_of(levels: np.ndarray) -> np.ndarray:
        g = levels.astype(np.float64)
        for level, gain in pairs:
            g = np.where(levels == level, float(gain), g)
        return g
    row = np.where(r.is_rel, gains_of(r.rel), 0.0)
    qrel_rel = r.qrel_grades >= r.rel_level
    qg = np.where(qrel_rel, gains_of(r.qrel_grades), 0.0)
    return row, qg, qrel_rel
