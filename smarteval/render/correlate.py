"""The correlate report as text: the leaderboards and the correlation of every pair of measures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from smarteval.render.formats import fixed, full, readable, tabulate_table, writable, written

if TYPE_CHECKING:
    from smarteval.stats.report import Leaderboards

#: The formats of ``correlate``: not trec_eval's (it has no such output).
FORMATS = writable(but=("trec",))
#: The columns of ``-f tsv``/``csv``: one row per pair of measures.
COLUMNS = ("measure_a", "measure_b", "systems", "kendall", "spearman", "pearson", "tau_ap",
           "swaps")


def render_leaderboards(board: Leaderboards, fmt: str, *, header: bool = True) -> str:
    """The leaderboards and their correlations in one of the formats of ``correlate``."""
    runs, names, table = board.runs, board.measures, board.table
    rows = [[p.measure_a, p.measure_b, p.systems, p.kendall, p.spearman, p.pearson, p.tau_ap,
             p.swaps] for p in board.pairs]
    return written(
        fmt, header=header,
        json=lambda: {"runs": runs, "measures": names,
                      "summary": {r: dict(zip(names, map(float, table[i]), strict=True))
                                  for i, r in enumerate(runs)},
                      "correlations": [dict(zip(COLUMNS, row, strict=True)) for row in rows]},
        tables=lambda: [(COLUMNS, ([full(v) for v in row] for row in rows))],
        table=lambda f: _tables(board, f))


def _tables(board: Leaderboards, fmt: str) -> str:
    import numpy as np
    runs, names, table = board.runs, board.measures, board.table
    ranks = board.ranks
    out = [f"Leaderboards of {len(runs)} runs (rank under each measure in brackets)", ""]
    order = np.lexsort((np.arange(len(runs)), ranks[:, 0]))
    lb = [[runs[i], *[f"{table[i, j]:.4f} ({int(ranks[i, j])})" for j in range(len(names))]]
          for i in order]
    out.append(tabulate_table(lb, ["run", *names], fmt, ("left",) + ("right",) * len(names),
                              wrap=True))
    out += ["", "Correlation of the system orderings (tau-AP takes the first measure as "
                "the reference; swaps: pairs of runs ordered differently)", ""]
    body = [[p.measure_a, p.measure_b, str(p.systems), fixed(p.kendall), fixed(p.spearman),
             fixed(p.pearson), fixed(p.tau_ap), str(p.swaps)] for p in board.pairs]
    out.append(tabulate_table(body, ["measure A", "measure B", "runs", "Kendall tau",
                                     "Spearman", "Pearson", "tau-AP", "swaps"], fmt,
                              ("left", "left") + ("right",) * 6))
    return readable(fmt, out)
