"""Z-score files (trec_eval's ``-Z``: ``QID MEASURE MEAN STDDEV``) into columns, and their lookup.

Each line gives, for one query and one measure (named as trec_eval prints it: ``P_5``,
``iprec_at_recall_0.10``, ``map``), the mean and the standard deviation of that measure
over a reference set of runs (Webber, Moffat and Zobel's standardization). The file is
read with the checked tokenizer of :mod:`smarteval.read.plain`: exactly four fields a
line (a blank line or another count is malformed, as trec_eval has it), lines whose first
field starts with ``#`` skipped as in qrels, the mean and standard deviation in the one
number grammar of scores (:func:`smarteval.read.plain.parse_numbers`), where trec_eval's
atof would read ``1.5abc`` as 1.5 and ``abc`` as 0. A (query, measure) given twice is
refused, naming both lines: trec_eval keeps one of them, which one depending on where its
sort and binary search happen to land.

:meth:`ZScores.lookup` finds the mean and deviation of one measure for many queries at
once as trec_eval's binary search does, including its one reach past a query's entries:
a measure that sorts after every measure of its query is matched against the first
measure of the next query in the file (a query's own absence then borrows that query's
entry). Past the file's last entry trec_eval reads memory it never set (it crashes);
smarteval finds nothing there.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import numpy as np

from smarteval.read.plain import (
    ID_ERRORS,
    naming_the_file_out_of_memory,
    parse_numbers,
    read_lines,
)
from smarteval.read.source import display

ZSCORES_EXPECTED = "QUERY_ID MEASURE MEAN STDDEV (4 fields, whitespace-separated)"


@dataclass(frozen=True, eq=False)
class ZScores:
    """A z-score file's entries, sorted by (query, measure) in byte order (trec_eval's).

    Entries of query ``qids[q]`` are ``offsets[q]:offsets[q+1]``; ``measures`` holds their
    names as bytes, ``means`` and ``stddevs`` their numbers, ``lines`` the 1-based lines
    they were read from.
    """

    path: str
    qids: np.ndarray         # (Q,) bytes, sorted
    offsets: np.ndarray      # (Q+1,) int64
    measures: np.ndarray     # (n,) bytes, sorted within each query
    means: np.ndarray        # (n,) float64
    stddevs: np.ndarray      # (n,) float64
    lines: np.ndarray        # (n,) int64

    def locate(self, qids: np.ndarray) -> np.ndarray:
        """Each of ``qids`` (text, as the other readers decode ids) as the index of its
        entries' query in :attr:`qids`, or -1 for a query the file does not have."""
        n_q = len(self.qids)
        wanted = np.asarray(qids, dtype=str)
        if not len(wanted) or not n_q:
            return np.full(len(wanted), -1, dtype=np.int64)
        keys = np.char.encode(wanted, "utf-8", ID_ERRORS)
        at = np.minimum(np.searchsorted(self.qids, keys), n_q - 1)
        return np.where(self.qids[at] == keys, at, -1).astype(np.int64)

    def lookup(self, located: np.ndarray, measure: str) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
        """``(found, mean, stddev)`` of ``measure`` for the queries :meth:`locate` gave,
        each of their length, as trec_eval's search finds them (see the module's notes);
        mean and stddev are 0 where nothing is found."""
        n_q = len(self.qids)
        name = measure.encode("utf-8", ID_ERRORS)
        row = np.full(n_q + 1, -1, dtype=np.int64)     # the last: a query not in the file
        hit = self._rows_named(name)
        row[np.searchsorted(self.offsets, hit, side="right") - 1] = hit
        # the search's reach past a query's last entry: the next query's first entry
        if n_q > 1:
            last = self.measures[self.offsets[1:-1] - 1]
            first_next = self.measures[self.offsets[1:-1]]
            borrows = (row[:n_q - 1] < 0) & (last < name) & (first_next == name)
            row[:n_q - 1] = np.where(borrows, self.offsets[1:-1], row[:n_q - 1])
        found_row = row[located]
        found = found_row >= 0
        safe = np.maximum(found_row, 0)
        return (found, np.where(found, self.means[safe], 0.0),
                np.where(found, self.stddevs[safe], 0.0))

    @functools.cached_property
    def _by_name(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct measure names, and the entries of each: ``rows[starts[k]:
        starts[k+1]]`` are those of ``names[k]``, in file order (one sort, once)."""
        names, code = np.unique(self.measures, return_inverse=True)
        rows = np.argsort(code.reshape(-1), kind="stable")
        starts = np.zeros(len(names) + 1, dtype=np.int64)
        np.cumsum(np.bincount(code.reshape(-1), minlength=len(names)), out=starts[1:])
        return names, rows, starts

    def _rows_named(self, name: bytes) -> np.ndarray:
        names, rows, starts = self._by_name
        k = int(np.searchsorted(names, name))
        if k == len(names) or names[k] != name:
            return np.zeros(0, dtype=np.int64)
        return rows[starts[k]:starts[k + 1]]


@naming_the_file_out_of_memory
def read_zscores(path: str | os.PathLike, *, data: bytes | None = None) -> ZScores:
    """Read a z-score file: ``QID MEASURE MEAN STDDEV`` per line (see the module's notes).

    Plain or compressed, ``-`` for standard input. Errors name file and line: a line
    without exactly four fields, a mean or standard deviation that is not a finite
    number, a (query, measure) given twice.
    """
    name = display(str(path))
    lines = read_lines(path, data, 4, ZSCORES_EXPECTED, "z-score")
    means = parse_numbers(lines.field(2), lines, "mean", ZSCORES_EXPECTED)
    stddevs = parse_numbers(lines.field(3), lines, "standard deviation", ZSCORES_EXPECTED)
    if (stddevs < 0).any():         # (trec_eval would flip the z-scores' sign)
        bad = int(np.flatnonzero(stddevs < 0)[0])
        shown = lines.field(3)[bad].decode("utf-8", "replace")
        raise lines.error(bad, f"standard deviation {shown!r} is negative: a standard "
                          "deviation is 0 or more", ZSCORES_EXPECTED)
    qid_bytes = lines.field(0)
    measures = lines.field(1)
    order = np.lexsort((measures, qid_bytes))
    same = (qid_bytes[order[1:]] == qid_bytes[order[:-1]]) \
        & (measures[order[1:]] == measures[order[:-1]])
    if same.any():
        at = np.flatnonzero(same)
        pairs = np.sort(np.stack([order[at], order[at + 1]], axis=1), axis=1)
        first, again = pairs[np.argmin(pairs[:, 1])]
        raise lines.error(int(again), "this query's measure is given again (first at line "
                          f"{int(lines.lines[first])}): give one mean and standard deviation "
                          "for each query and measure", ZSCORES_EXPECTED)
    qids, first_rows = np.unique(qid_bytes[order], return_index=True)
    offsets = np.append(first_rows, len(order)).astype(np.int64)
    return ZScores(path=name, qids=qids, offsets=offsets, measures=measures[order],
                   means=means[order], stddevs=stddevs[order],
                   lines=lines.lines[order].astype(np.int64))
