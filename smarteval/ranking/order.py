"""Orders other than trec_eval's: ndeval's by the rank column, repro_eval's by the run's lines.

ndeval (``ndeval.c``) sorts a run by topic and rank field unless given ``-traditional``
(score, then docno: trec_eval's order, smarteval's by default), and stops with an error
when a rank comes twice in a topic. :func:`by_rank_column` gives the ranking stage a run
whose order is that: its scores become minus its ranks, so that the score order is the
rank order (ranks are distinct in a query, so no two scores tie, and exact as 32-bit
floats up to :data:`~smarteval.read.plain.MAX_RANK`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from smarteval.columns import Run, tie_groups, tied_pairs
from smarteval.errors import InputError, UsageError
from smarteval.read.keys import descending_keys
from smarteval.read.plain import RUN_EXPECTED, line_texts


def by_rank_column(run: Run) -> Run:
    """``run`` ordered by its rank column (read with ``ranks=True``); a rank given twice
    in a query is refused, naming the line that gives it again."""
    if run.ranks is None:
        raise UsageError(f"--order-by rank: the run {run.path} has no rank column (the "
                         "fourth field of a TREC run file): give it as a file")
    ranks = run.ranks
    query = np.repeat(np.arange(run.num_queries), np.diff(run.offsets))
    order = np.lexsort((ranks, query))
    again = (query[order[1:]] == query[order[:-1]]) & (ranks[order[1:]] == ranks[order[:-1]])
    if again.any():
        pairs = np.sort(np.stack([order[1:][again], order[:-1][again]], axis=1), axis=1)
        first, second = pairs[np.argmin(pairs[:, 1])]
        line = None if run.lines is None else int(run.lines[second])
        where = "" if run.lines is None else f" (first at line {int(run.lines[first])})"
        text = line_texts(run.path, [line]).get(line) if line is not None else None
        raise InputError(run.path, line, f"rank {int(ranks[second])} given twice in query "
                         f"{run.qids[query[second]]}{where}: ndeval's rank order "
                         "(--order-by rank) needs distinct ranks", text, RUN_EXPECTED)
    return replace(run, scores=-ranks.astype(np.float64))


def as_listed(run: Run) -> np.ndarray:
    """(n,) the rows of ``run`` in repro_eval's order of each query's list: the lines as
    read, no sort by score, each stretch of neighbouring lines with equal scores (as
    doubles) put docno descending (repro_eval's ``break_ties``). On a run sorted by
    score, as TREC runs are, this is trec_eval's order with scores compared as doubles.

    A docno listed twice in a query is refused (repro_eval's dictionary of a query keeps
    the first place and the last score), naming the line that repeats it.
    """
    if len(run.repeated):
        lines = run.lines if run.lines is not None else np.arange(1, len(run.docnos) + 1)
        first, again = (int(i) for i in run.repeated[np.argmin(lines[run.repeated[:, 1]])])
        query = int(np.searchsorted(run.offsets, first, side="right")) - 1
        line = int(lines[again])
        doc = run.docnos[first].decode("utf-8", "replace")
        raise InputError(run.path, line, f"document {doc} appears again in query "
                         f"{run.qids[query]} (first at line {int(lines[first])}): a "
                         "query's list holds each document once",
                         line_texts(run.path, [line]).get(line),
                         "each document at most once per query")
    order = np.arange(len(run.docnos))
    tied = tied_pairs(run.scores, run.offsets)
    if not tied.any():
        return order
    rows, starts = tie_groups(tied)
    group = np.cumsum(starts)
    order[rows] = rows[np.lexsort(descending_keys(run.docnos[rows]) + (group,))]
    return order


__all__ = ["as_listed", "by_rank_column"]
