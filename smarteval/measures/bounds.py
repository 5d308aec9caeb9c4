"""The least and greatest value a measure can take over every grading of the retrieved
unjudged documents (``--unjudged range``'s NAME_min and NAME_max), all queries at once.

A grading leaves each unjudged document among those ranked (after ``-M``) as it is
(unjudged: non-relevant, as trec_eval counts it) or judges it at G, the grade of
``--unjudged relevant`` (``--unjudged-grade``, by default the qrels' highest, at least
``-l``), adding it to its query's judgements: with u such documents, the 2^u qrels between
``--unjudged nonrelevant`` and ``--unjudged relevant``. Grades between 0 and G are not
among them. The bounds are exact for the measures of :data:`BOUNDED` (their ends, the two
readings, to the last bit; between them to rounding), taken where ``-l`` is 0 or more
(below 0 trec_eval counts unjudged documents, codes -1 and -2, as relevant in some
measures and not in others) and in the ranking's own order (not ``--ties average``, whose
value is a mean over orders, except for the measures that only grow as documents become
relevant).

Two kinds:

- the measures that never fall when a document becomes relevant (:data:`MONOTONE`: P,
  success, recip_rank, recip_rank_cut, num_rel_ret and the set measures set_P,
  set_relative_P, set_map, set_F): the least value is the measure's under nonrelevant,
  the greatest under relevant.
- the measures divided by R, which grows with every document made relevant
  (:data:`DIVIDED`: map, gm_map, map_cut, recall, relative_P, set_recall, Rprec, ndcg,
  ndcg_cut): for each number m of documents made relevant, the greatest value has the
  first m of them (in rank order) relevant, the least the last m; the bounds are the
  greatest and least over m = 0 .. u. Why: with m fixed, R (and nDCG's ideal ranking) is
  fixed, and the numerator only grows as a relevant document moves up. AP's sum of
  precisions is the sum over the pairs of relevant documents (i at or above j) of
  1/rank(j), whose terms grow as either moves up; the count in the top k (recall, Rprec)
  and DCG's discounted gains likewise.
  Each value along the m = 0 .. u ladder is written in closed form from running sums over
  the ranking (no loop over queries, documents or m): the work is the rows plus
  sum(u + 1) ladder rows (times the query's number of distinct grades for nDCG).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from smarteval.columns import Ranked, prefix
from smarteval.measures.gains import gains_of, log2_table
from smarteval.measures.segments import positions, safe_div, seg_cumsum

#: the measures whose value never falls as a document becomes relevant (set_F for a
#: weight of 0 or more: (x+1)a / (xR + n), with a relevant of the n retrieved, grows with
#: a and R together since a <= R; set_map a^2 / nR and set_relative_P a / min(n, R) alike)
MONOTONE = ("P", "success", "recip_rank", "recip_rank_cut", "num_rel_ret", "set_P",
            "set_relative_P", "set_map", "set_F")

#: the measures divided by R whose bounds the ladder of m = 0 .. u gives (gm_map's per-query
#: values are AP's, and its geometric mean grows with each)
DIVIDED = ("map", "gm_map", "map_cut", "recall", "relative_P", "set_recall", "Rprec",
           "ndcg", "ndcg_cut")

#: every measure ``--unjudged range`` bounds
BOUNDED = MONOTONE + DIVIDED


def bounded(name: str, param, settings) -> bool:
    """Whether ``--unjudged range`` gives the measure ``name`` (with ``param``) bounds
    under ``settings`` (else two readings): see the module's docstring."""
    if name not in BOUNDED or settings.rel_level < 0:
        return False
    if name == "ndcg" and param:            # gains of a table of one's own
        return False
    if name == "set_F" and float(param[0]) < 0:
        return False
    return name in MONOTONE or settings.ties != "average"


def bounds(name: str, param, r: Ranked, grade: int, nonrelevant: Callable[[], np.ndarray],
           relevant: Callable[[], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(Q,) least and (Q,) greatest value of ``name`` over every grading of ``r``'s unjudged
    documents as they are or at ``grade``. ``nonrelevant`` and ``relevant`` give the
    measure's values with them as they are and with every one judged ``grade`` (the
    bounds of a measure of :data:`MONOTONE`, the ends of the ladder of the others)."""
    if name in MONOTONE:
        return nonrelevant(), relevant()
    ladder = _Ladder(r, grade, gains=name.startswith("ndcg"))
    if name in ("map", "gm_map", "map_cut"):
        top, bottom = _average_precision(ladder, param if name == "map_cut" else None)
    elif name in ("recall", "relative_P", "set_recall"):
        top, bottom = _recall(ladder, None if name == "set_recall" else param,
                              relative=name == "relative_P")
    elif name == "Rprec":
        top, bottom = _r_precision(ladder)
    else:
        top, bottom = _ndcg(ladder, param if name == "ndcg_cut" else None)
    # the ladder's ends are the two readings: the measure's own values there, so that the
    # bounds hold both to the last bit
    readings = ((ladder.offsets[:-1], nonrelevant()), (ladder.offsets[1:] - 1, relevant()))
    for values in (top, bottom):
        for rows, reading in readings:
            values[rows] = reading
    return ladder.least(bottom), ladder.greatest(top)


class _Ladder:
    """Each query's documents that may become relevant (``flip``: unjudged, in a query of
    the run, and G reaches the level, or for nDCG G > 0; ``rows``, ``rank``, ``j`` the
    j-th of its query's) and the ladder m = 0 .. u of each query, a row for each m
    (``offsets``, ``q``, ``m``): ``up`` and ``down`` are the ladder rows at which the j-th
    document is made relevant, counting from the top and from the bottom."""

    def __init__(self, r: Ranked, grade: int, gains: bool):
        self.r, self.grade = r, grade
        in_run = np.asarray(r.in_run, dtype=bool)[r.qindex]
        can = grade > 0 if gains else grade >= r.rel_level
        self.flip = (r.rel < 0) & in_run & can
        self.rows = np.flatnonzero(self.flip)
        q = r.qindex[self.rows]
        self.u = np.bincount(q, minlength=r.num_queries).astype(np.int64)
        self.offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
        np.cumsum(self.u + 1, out=self.offsets[1:])
        self.q = np.repeat(np.arange(r.num_queries, dtype=np.int64), self.u + 1)
        self.m = positions(self.offsets) - 1                 # 0 .. u
        self.j = j = np.arange(len(self.rows), dtype=np.int64) - np.repeat(
            np.cumsum(self.u) - self.u, self.u) + 1          # 1 .. u within the query
        self.up = self.offsets[q] + j
        self.down = self.offsets[q] + self.u[q] - j + 1
        self.rank = r.rank[self.rows]

    def climb(self, first: np.ndarray, step_up: np.ndarray,
              step_down: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """At every ladder row, ``first`` (Q,) plus the steps taken so far, from the top
        (each document's ``step_up``) and from the bottom (``step_down``)."""
        out = []
        for rows, step in ((self.up, step_up), (self.down, step_down)):
            values = np.zeros(int(self.offsets[-1]))
            values[self.offsets[:-1]] = first
            values[rows] = step
            out.append(seg_cumsum(values, self.offsets))
        return out[0], out[1]

    def least(self, values: np.ndarray) -> np.ndarray:
        return np.minimum.reduceat(values, self.offsets[:-1]) if len(values) else values

    def greatest(self, values: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(values, self.offsets[:-1]) if len(values) else values

    @property
    def num_rel(self) -> np.ndarray:
        """R at every ladder row: the qrels' and the m documents made relevant."""
        return self.r.num_rel[self.q] + self.m

    def suffix(self, values: np.ndarray) -> np.ndarray:
        """At every row of the ranking, the sum of ``values`` over the rows below it in
        its query."""
        # summed within the query alone: its value owes nothing to the queries before it
        running = seg_cumsum(values, self.r.offsets)
        last = self.r.offsets[1:] - 1
        total = np.zeros(self.r.num_queries)
        has = self.r.num_ret > 0
        total[has] = running[last[has]]
        return total[self.r.qindex] - running


def _average_precision(ladder: _Ladder, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """AP (cut after k) along the ladder, the first m made relevant and the last m.

    AP times R is the sum, over the pairs of relevant documents i at or above j with j in
    the top k, of 1/rank(j). Making a document at rank p relevant adds its pair with itself
    and with each relevant document above it (1/p each, if p <= k) and with each below it
    (1/rank, the ones in the top k); from the top, the j-th has j - 1 made relevant above
    it and none below; from the bottom, none above and every one below it.
    """
    r = ladder.r
    rank = r.rank
    inside = rank <= (k if k is not None else rank.max(initial=0))
    rel = r.is_rel
    before = r.rel_so_far - rel                            # relevant above each row
    weight = np.where(rel & inside, 1.0 / rank, 0.0)
    first = np.bincount(r.qindex, weights=np.where(rel & inside, r.rel_so_far / rank, 0.0),
                        minlength=r.num_queries)
    rows, p = ladder.rows, ladder.rank
    at = np.where(inside[rows], 1.0 / p, 0.0)
    below = ladder.suffix(weight)[rows]
    made_below = ladder.suffix(np.where(ladder.flip & inside, 1.0 / rank, 0.0))[rows]
    step_up = (before[rows] + ladder.j) * at + below
    step_down = (before[rows] + 1) * at + below + made_below
    up, down = ladder.climb(first, step_up, step_down)
    R = ladder.num_rel
    return _over(up, R), _over(down, R)


def _over(total: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """AP's sum over R: 0 without a term (R > 0 wherever there is one, ``-l`` >= 1)."""
    return np.where(total > 0, safe_div(total, num_rel), 0.0)


def _recall(ladder: _Ladder, k: int | None,
            relative: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Relevant documents in the top k (all retrieved: k None) over R along the ladder
    (``relative``: over min(k, R), relative_P)."""
    r = ladder.r
    inside = r.rank <= k if k is not None else np.ones(len(r.rel), dtype=bool)
    first = np.bincount(r.qindex[r.is_rel & inside], minlength=r.num_queries)
    step = inside[ladder.rows].astype(np.float64)
    up, down = ladder.climb(first.astype(np.float64), step, step)
    R = np.minimum(k, ladder.num_rel) if relative and k is not None else ladder.num_rel
    return safe_div(up, R), safe_div(down, R)


def _r_precision(ladder: _Ladder) -> tuple[np.ndarray, np.ndarray]:
    """Relevant documents in the top R over R, R = the qrels' + m, along the ladder: the
    qrels' relevant documents in the top R and, made relevant from the top, min(m, those
    that may be in the top R), from the bottom, those of the last m in the top R."""
    r = ladder.r
    q = ladder.q
    R = ladder.num_rel
    start = r.offsets[:-1][q]
    depth = start + np.minimum(R, r.num_ret[q])
    judged = prefix(r.is_rel)
    may = prefix(ladder.flip)
    rel_top = judged[depth] - judged[start]
    may_top = may[depth] - may[start]
    up = rel_top + np.minimum(ladder.m, may_top)
    down = rel_top + np.maximum(0, ladder.m - (ladder.u[q] - may_top))
    return safe_div(up, R), safe_div(down, R)


def _ndcg(ladder: _Ladder, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """DCG (cut after k) over the ideal DCG along the ladder: each document made relevant
    gains G / log2(rank + 1) in the top k; the ideal ranking holds the qrels' positive
    grades and m more of G, the gains above G first, then the m, then the rest moved down
    by m. Its DCG is summed a run of equal gains at a time, from the running sum of the
    discounts (ndcg: every rank; ndcg_cut: the first k)."""
    r, G = ladder.r, float(ladder.grade)
    rank = r.rank
    g = gains_of(r, ())
    n_ideal = np.diff(g.ideal_offsets)
    longest = int((n_ideal + ladder.u).max(initial=0)) + int(rank.max(initial=0)) + 1
    depth = longest if k is None else min(k, longest)
    table = log2_table(longest + 1)
    # D[x]: the discounts of ranks 1 .. x, x up to the depth (then constant)
    D = np.zeros(longest + 1)
    D[1:depth + 1] = np.cumsum(1.0 / table[2:depth + 2])
    D[depth + 1:] = D[depth]
    inside = rank <= depth
    gain = np.maximum(r.rel, 0).astype(np.float64)
    first = np.bincount(r.qindex, weights=np.where(inside & (gain != 0),
                                                   gain / table[np.minimum(rank, longest) + 1],
                                                   0.0), minlength=r.num_queries)
    p = ladder.rank
    step = np.where(p <= depth, G / table[np.minimum(p, longest) + 1], 0.0)
    up, down = ladder.climb(first, step, step)
    ideal = _ideal_dcg(ladder, g, D, G)
    if k is None:
        return safe_div(up, ideal), safe_div(down, ideal)
    return (np.where(ideal > 0, safe_div(up, ideal), up),
            np.where(ideal > 0, safe_div(down, ideal), down))


def _ideal_dcg(ladder: _Ladder, g, D: np.ndarray, G: float) -> np.ndarray:
    """The ideal DCG at every ladder row (see :func:`_ndcg`)."""
    ideal, offsets = g.ideal, g.ideal_offsets
    nq = len(offsets) - 1
    qi = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    # runs of equal gain within each query: their gain, first and last position (1-based)
    start = np.ones(len(ideal), dtype=bool)
    start[1:] = (ideal[1:] != ideal[:-1]) | (qi[1:] != qi[:-1])
    heads = np.flatnonzero(start)
    ends = np.append(heads[1:], len(ideal)) - 1
    run_q = qi[heads]
    run_gain = ideal[heads]
    run_a = heads - offsets[run_q] + 1
    run_b = ends - offsets[run_q] + 1
    above = np.bincount(qi[ideal > G], minlength=nq).astype(np.int64)  # gains above G
    runs_per_q = np.bincount(run_q, minlength=nq).astype(np.int64)
    run_offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(runs_per_q, out=run_offsets[1:])
    # every (ladder row, run of its query)
    count = runs_per_q[ladder.q]
    row = np.repeat(np.arange(len(ladder.q), dtype=np.int64), count)
    run = run_offsets[ladder.q][row] + positions(np.concatenate(([0], np.cumsum(count)))) - 1
    shift = np.where(run_gain[run] > G, 0, ladder.m[row])
    terms = run_gain[run] * (D[run_b[run] + shift] - D[run_a[run] - 1 + shift])
    total = np.bincount(row, weights=terms, minlength=len(ladder.q))
    t = above[ladder.q]
    return total + G * (D[t + ladder.m] - D[t])
