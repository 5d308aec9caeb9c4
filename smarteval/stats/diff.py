"""Two runs side by side, query by query: where B wins and loses against A, and what moved.

The triage of capreolus-ir's diffir: the queries ranked by the difference on a measure
(B - A) or by how much the two top-k lists changed (Kendall's tau or RBO between them),
and for each query both values, the rank of the first relevant document in each run, the
relevant documents that came into or left the top k, and the unjudged documents that
came into it (a common cause of an apparent loss). Every per-query number is computed
for all queries at once.

``tau`` is Kendall's tau-b between the two top-k lists over their union, a document
below the top k of a list (or not retrieved) placed at rank k+1 there (tied): 1 for the
same order, -2k/(3k-1) for two lists with no document in common. ``rbo`` is repro_eval's
rank-biased overlap (:func:`smarteval.stats.repro.rbo`) of the two top-k lists, to depth
k: 1 for the same documents in the same order, 0 for none in common.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smarteval.columns import Ranked
from smarteval.errors import UsageError
from smarteval.settings import Settings
from smarteval.stats.merit import align
from smarteval.stats.repro import Lists, check_depth, discordant, joint_codes, rbo

#: What orders the queries: the difference on the measure, or the change of the lists.
ORDERS = ("delta", "tau", "rbo")
DEFAULT_MEASURE = "ndcg_cut.10"
DEPTH = 10
RBO_P = 0.9


@dataclass(frozen=True)
class Side:
    """One run's top k of each query, queries in the diff's order: rows ``offsets[i]:
    offsets[i+1]`` of query i, best first; each row's docno, grade (-1: not in the qrels,
    -2: judged below 0) and rank in the other run (0: not retrieved there)."""

    offsets: np.ndarray
    docno: np.ndarray
    grade: np.ndarray
    other: np.ndarray

    def rows(self, i: int) -> range:
        return range(int(self.offsets[i]), int(self.offsets[i + 1]))


@dataclass
class RunDiff:
    """Run B against run A, query by query, in the order the triage shows them."""

    name_a: str
    name_b: str
    measure: str
    depth: int
    order: str
    rbo_p: float
    rel_level: int
    qids: np.ndarray
    value_a: np.ndarray
    value_b: np.ndarray
    tau: np.ndarray
    rbo: np.ndarray
    first_a: np.ndarray             # rank of the first relevant document (0: none)
    first_b: np.ndarray
    a: Side
    b: Side
    texts: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def delta(self) -> np.ndarray:
        return self.value_b - self.value_a

    def moved(self, i: int) -> dict[str, list[str]]:
        """Query i's documents that changed places across the top k: relevant ones that
        came in (in B's top k, not A's) and went out, unjudged ones that came in."""
        k = self.depth

        def outside(side: Side, r: int) -> bool:
            return side.other[r] == 0 or side.other[r] > k

        def pick(side: Side, keep: Callable[[int], bool]) -> list[str]:
            return [side.docno[r].decode("utf-8", "replace") for r in side.rows(i)
                    if outside(side, r) and keep(r)]
        return {"rel_in": pick(self.b, lambda r: self.b.grade[r] >= self.rel_level),
                "rel_out": pick(self.a, lambda r: self.a.grade[r] >= self.rel_level),
                "unjudged_in": pick(self.b, lambda r: self.b.grade[r] < 0)}

    def rows(self) -> list[dict[str, Any]]:
        """One dict per query, in order: the values, the change and what moved."""
        delta = self.delta
        return [{"query": q, "a": float(self.value_a[i]), "b": float(self.value_b[i]),
                 "delta": float(delta[i]), "tau": float(self.tau[i]),
                 "rbo": float(self.rbo[i]), "first_rel_a": int(self.first_a[i]),
                 "first_rel_b": int(self.first_b[i]), **self.moved(i)}
                for i, q in enumerate(self.qids.tolist())]

    def counts(self) -> tuple[int, int, int]:
        """Queries where B is better, worse and equal on the measure."""
        d = self.delta
        return int(np.sum(d > 0)), int(np.sum(d < 0)), int(np.sum(d == 0))


def check_parameters(order: str, depth: int, p: float, limit: int | None) -> None:
    if order not in ORDERS:
        raise UsageError(f"--by must be one of {', '.join(ORDERS)}, not {order!r}")
    check_depth("--depth", depth)           # the depth of its RBO too
    if not (isinstance(p, (int, float)) and 0 < p <= 1):
        raise UsageError(f"--rbo-p must be a number above 0 and at most 1, not {p!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer))
                              or limit < 1):
        raise UsageError(f"--limit must be a whole number, 1 or more, not {limit!r}")


def diff_runs(qrels, run_a, run_b, measure: str = DEFAULT_MEASURE,
              settings: Settings | None = None, *, order: str = "delta", depth: int = DEPTH,
              rbo_p: float = RBO_P, limit: int | None = None, docs: str | None = None,
              on_run: Callable | None = None) -> RunDiff:
    """Evaluate ``run_a`` and ``run_b`` on ``measure`` and set them side by side.

    The queries both runs have (with -c, every query of the qrels) are ordered by
    ``order``: ``delta`` by the size of B - A, largest first (wins and losses alike),
    ``tau`` and ``rbo`` by how little the top-``depth`` lists agree, least first; ties
    by query id. ``limit`` keeps the first queries of that order; ``docs`` (a DOCNO TAB
    TEXT file or an ir_datasets id) gives the texts of the documents shown.
    """
    from smarteval.evaluation import evaluate, read_relevance
    from smarteval.read.docs import read_texts
    from smarteval.stats.report import comparable_requests

    settings = settings or Settings()
    check_parameters(order, depth, rbo_p, limit)
    requests, names, skipped = comparable_requests([measure], settings.trec_version,
                                                   "no measure to compare")
    if len(names) != 1:
        raise UsageError(f"-m {measure} gives {len(names)} values ({', '.join(names)}): "
                         "diff compares one measure (one cut-off)")
    relevance = read_relevance(qrels, requests, settings)
    ev_a, ev_b = evaluate(relevance, [run_a, run_b], requests, settings, on_run=on_run)
    ids, ia, ib = align(ev_a.qids, ev_b.qids)
    if len(ids) == 0:
        raise UsageError(f"the runs {ev_a.name} and {ev_b.name} share no judged query")
    notes = []
    left_a, left_b = len(ev_a.qids) - len(ids), len(ev_b.qids) - len(ids)
    if left_a or left_b:
        notes.append(f"{len(ids)} queries paired; left out {left_a} only in {ev_a.name} and "
                     f"{left_b} only in {ev_b.name} (-c shows every query of the qrels)")
    name = names[0]
    value_a = np.asarray(ev_a.per_query[name], dtype=np.float64)[ia]
    value_b = np.asarray(ev_b.per_query[name], dtype=np.float64)[ib]
    ra, rb = ev_a.ranked, ev_b.ranked
    assert ra is not None and rb is not None
    side_a, side_b, first_a, first_b = _sides(ra, rb, ia, ib, depth, settings.rel_level)
    tau = union_tau(side_a, side_b, depth)
    lists_a, lists_b = _codes(side_a, side_b, ids)
    overlap = rbo(lists_a, lists_b, depth, rbo_p, depth)[1]
    key = {"delta": -np.abs(value_b - value_a), "tau": tau, "rbo": overlap}[order]
    shown = np.lexsort((np.arange(len(ids)), np.where(np.isnan(key), np.inf, key)))
    if limit is not None:
        shown = shown[:limit]
    side_a, side_b = _take(side_a, shown), _take(side_b, shown)
    texts = {}
    if docs is not None:
        wanted = {d.decode("utf-8", "replace") for d in np.concatenate((side_a.docno,
                                                                          side_b.docno))}
        texts = read_texts(docs, wanted)
        if not texts:
            notes.append(f"--docs {docs}: none of the {len(wanted)} documents shown has a "
                         "text there")
    return RunDiff(ev_a.name, ev_b.name, name, depth, order, float(rbo_p),
                   settings.rel_level, ids[shown], value_a[shown], value_b[shown],
                   tau[shown], overlap[shown], first_a[shown], first_b[shown], side_a, side_b,
                   texts, notes)


def _first_relevant(r: Ranked, rows_q: np.ndarray, rel_level: int) -> np.ndarray:
    """(len(rows_q),) the rank of each query's first relevant document (0: none)."""
    rel = np.flatnonzero(r.rel >= rel_level)
    q = r.qindex[rel]
    first = np.zeros(r.num_queries, dtype=np.int64)
    qs, at = np.unique(q, return_index=True)          # rows ascend: the first is the best
    first[qs] = r.rank[rel[at]]
    return first[rows_q]


def _sides(ra: Ranked, rb: Ranked, ia: np.ndarray, ib: np.ndarray, depth: int,
           rel_level: int) -> tuple[Side, Side, np.ndarray, np.ndarray]:
    """Each run's top ``depth`` of the shared queries (in ``ia``/``ib``'s order), with
    each document's rank in the other run, and the ranks of the first relevant."""
    from smarteval.ranking.join import concat_ranges
    nq = len(ia)
    # the shared queries' rows of each run (none for a query the run lacks: trec_eval
    # 10.0's placeholder under -c is no document), a code per docno common to both runs
    n_a = np.where(ra.in_run[ia], ra.num_ret[ia], 0)
    n_b = np.where(rb.in_run[ib], rb.num_ret[ib], 0)
    rows_a = concat_ranges(ra.offsets[ia], n_a)
    rows_b = concat_ranges(rb.offsets[ib], n_b)
    codes = joint_codes([ra.docno[rows_a], rb.docno[rows_b]])
    width = int(codes.max(initial=0)) + 1
    qa = np.repeat(np.arange(nq, dtype=np.int64), n_a)
    qb = np.repeat(np.arange(nq, dtype=np.int64), n_b)
    key_a = qa * width + codes[: len(rows_a)]
    key_b = qb * width + codes[len(rows_a):]
    rank_a, rank_b = ra.rank[rows_a], rb.rank[rows_b]
    sides = []
    for rows, key, rank, other_key, other_rank, r, n in (
            (rows_a, key_a, rank_a, key_b, rank_b, ra, n_a),
            (rows_b, key_b, rank_b, key_a, rank_a, rb, n_b)):
        top = rank <= depth
        sorted_at = np.argsort(other_key, kind="stable")
        sorted_keys = other_key[sorted_at]
        at = np.minimum(np.searchsorted(sorted_keys, key[top]), max(len(sorted_keys) - 1, 0))
        hit = sorted_keys[at] == key[top] if len(sorted_keys) else np.zeros(0, dtype=bool)
        other = np.where(hit, other_rank[sorted_at][at], 0) if len(sorted_keys) else \
            np.zeros(int(top.sum()), dtype=np.int64)
        kept = np.minimum(n, depth)
        offsets = np.concatenate(([0], np.cumsum(kept))).astype(np.int64)
        sides.append(Side(offsets, r.docno[rows[top]], r.rel[rows[top]],
                          other.astype(np.int64)))
    return sides[0], sides[1], _first_relevant(ra, ia, rel_level), \
        _first_relevant(rb, ib, rel_level)


def _codes(a: Side, b: Side, qids: np.ndarray) -> tuple[Lists, Lists]:
    """The two sides' top k as :class:`~smarteval.stats.repro.Lists` coded together."""
    codes = joint_codes([a.docno, b.docno])
    return Lists(qids, a.offsets, codes[: len(a.docno)]), \
        Lists(qids, b.offsets, codes[len(a.docno):])


def union_tau(a: Side, b: Side, depth: int) -> np.ndarray:
    """Kendall's tau-b between the two top-k lists of each query, over their union, a
    document below a list's top k at rank k+1 there (the module's docstring), as
    scipy.stats.kendalltau computes it; NaN where a list holds every document of the
    union at one rank (fewer than two documents, say)."""
    nq = len(a.offsets) - 1
    qa = np.repeat(np.arange(nq, dtype=np.int64), np.diff(a.offsets))
    qb = np.repeat(np.arange(nq, dtype=np.int64), np.diff(b.offsets))
    rank_a = np.arange(len(qa), dtype=np.int64) - a.offsets[qa] + 1
    rank_b = np.arange(len(qb), dtype=np.int64) - b.offsets[qb] + 1
    below = depth + 1
    in_b = (b.other == 0) | (b.other > depth)          # B's documents not in A's top k
    x = np.concatenate((rank_a, np.full(int(in_b.sum()), below)))
    y = np.concatenate((np.where((a.other == 0) | (a.other > depth), below, a.other),
                        rank_b[in_b]))
    seg = np.concatenate((qa, qb[in_b]))
    n = np.bincount(seg, minlength=nq).astype(np.int64)
    m_a = np.bincount(seg, weights=x == below, minlength=nq).astype(np.int64)
    m_b = np.bincount(seg, weights=y == below, minlength=nq).astype(np.int64)
    pairs = n * (n - 1) // 2
    tie_a, tie_b = m_a * (m_a - 1) // 2, m_b * (m_b - 1) // 2
    d = discordant(seg, x, y, nq)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = (pairs - tie_a - tie_b - 2 * d).astype(np.float64) \
            / np.sqrt((pairs - tie_a).astype(np.float64)) \
            / np.sqrt((pairs - tie_b).astype(np.float64))
    ok = (pairs > tie_a) & (pairs > tie_b)
    return np.where(ok, np.clip(tau, -1.0, 1.0), math.nan)


def _take(side: Side, shown: Sequence[int] | np.ndarray) -> Side:
    """The side's queries ``shown``, in that order."""
    shown = np.asarray(shown, dtype=np.int64)
    lengths = np.diff(side.offsets)[shown]
    from smarteval.ranking.join import concat_ranges
    rows = concat_ranges(side.offsets[shown], lengths)
    return Side(np.concatenate(([0], np.cumsum(lengths))).astype(np.int64), side.docno[rows],
                side.grade[rows], side.other[rows])
