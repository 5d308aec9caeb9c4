"""ndeval's default order: each query's documents by the run's rank column, not by score.

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

from smarteval.columns import Run
from smarteval.errors import InputError, UsageError
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


__all__ = ["by_rank_column"]
