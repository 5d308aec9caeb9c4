"""The measures of trec_eval 9.0.8 (and 10.0's additions), each vectorised over all queries.

Every function receives a :class:`~smarteval.columns.Ranked` and returns one value per
query. Where trec_eval accumulates a sum in a loop, the sum here is accumulated in the
same order (:func:`seg_cumsum`) so that the printed fourth decimal agrees. Where
trec_eval divides 0 by 0 the value is NaN (printed ``-nan``).

Relevance under ``-l``: trec_eval tests each retrieved document's code against the level
(``code >= level``) in its rank-by-rank loops, but its num_rel_ret counts judged documents
only. Under ``-l 0`` or below the two part: documents absent from the qrels (code -1)
pass ``-l -1``, and those judged negatively (code -2) pass ``-l -2``, in the loops, while
num_rel_ret and the set measures built on it leave them out (:func:`judged_rel_ret`).
"""

from __future__ import annotations

import numpy as np

from smarteval import libm
from smarteval.columns import NONPOOL, UNJUDGED, Ranked, marked_before
from smarteval.libm import C_NAN
from smarteval.measures.gains import dcg_terms, gains_of, log2_table, sparse_dcg_terms
from smarteval.measures.registry import measure
from smarteval.measures.segments import (
    in_top,
    over_num_rel,
    positions,
    prefix,
    safe_div,
    seg_cumsum,
    seg_suffix_max,
    seg_sum,
    segment_sum,
)
from smarteval.measures.tied import ap_terms, order_of, sum_at_rel
from smarteval.records import record

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
INFAP_EPSILON = 0.00001


# --------------------------------------------------------------------------- shared pieces

def rel_in_top(r: Ranked, k) -> np.ndarray:
    """(Q,) relevant documents among the first k of each query (k may vary by query)."""
    start = r.offsets[:-1]
    k = np.maximum(np.asarray(k, dtype=np.int64), 0)
    return r.rel_before(start + np.minimum(k, r.num_ret)) - r.rel_before(start)


def relative_count(r: Ranked, fraction: float, rounds_in_10: bool = True) -> np.ndarray:
    """A fraction of num_rel as a whole number of documents, as trec_eval rounds it.

    trec_eval 9 adds 0.9 and truncates; 10.0 rounds to nearest (half away from zero)
    for the interpolated-precision measures and keeps 9's rule for Rprec_mult.
    """
    x = fraction * r.num_rel.astype(np.float64)
    if rounds_in_10 and r.settings.rounds_to_nearest:
        return np.floor(x + 0.5).astype(np.int64)
    return (x + 0.9).astype(np.int64)


def judged_rel_ret(r: Ranked) -> np.ndarray:
    """(Q,) trec_eval's num_rel_ret: judged documents (code >= 0) at or above the level.

    The same as the relevant rows the rank-by-rank measures count (``r.num_rel_ret``)
    unless ``-l`` is 0 or below, where those also count the unjudged codes -1 and -2.
    """
    if r.rel_level >= 1:
        return r.num_rel_ret
    if "judged_rel_ret" not in r.memo:
        r.memo["judged_rel_ret"] = segment_sum(r.is_rel & (r.rel >= 0),
                                               r.offsets).astype(np.int64)
    return r.memo["judged_rel_ret"]


def evaluated(r: Ranked) -> np.ndarray:
    """(Q,) bool: the queries trec_eval computes measures for, so where its 0/0 is NaN.

    Every query except, under trec_eval 9, those ``-c`` adds without results: 9.0.8 never
    evaluates them (they count 0). 10.0 evaluates them on a placeholder ranking.
    """
    if r.settings.evaluates_added:
        return np.ones(r.num_queries, dtype=bool)
    return np.asarray(r.in_run, dtype=bool)


def _unjudged_rel(r: Ranked) -> np.ndarray:
    """(Q,) relevant rows (code >= level) that num_rel_ret leaves out: 0 unless -l <= -1."""
    return r.num_rel_ret - judged_rel_ret(r)


def interpolated_precision(r: Ranked, cutoffs: np.ndarray) -> np.ndarray:
    """Interpolated precision once ``cutoffs[q]`` relevant documents are retrieved.

    The maximum precision at any rank at or after the cutoff-th relevant document
    (anywhere when the cutoff is 0); 0 when fewer relevant documents were retrieved.
    Precision only rises at a relevant document, so the maximum is taken over the
    relevant rows alone: k / rank of the k-th relevant, for every k >= cutoff.

    trec_eval walks up from the last rank with a count that starts at num_rel_ret and
    drops at every relevant row; under ``-l -1`` or below the unjudged relevant rows (U
    of them, see :func:`judged_rel_ret`) make it reach 0 early, so precision at the
    k-th relevant row is (k - U) / rank and the cutoff-th is the (cutoff + U)-th row.
    With nothing retrieved, a cutoff of 0 gets num_rel_ret / num_ret = 0 / 0: NaN (not
    for a query -c adds under trec_eval 9, which never evaluates it: see :func:`evaluated`).
    """
    rel_offsets, best = _rel_suffix_max(r)
    judged = judged_rel_ret(r)
    out = np.zeros(r.num_queries, dtype=np.float64)
    reachable = (cutoffs <= judged) & (judged > 0)
    c = np.maximum(cutoffs, 1) + _unjudged_rel(r)
    out[reachable] = best[rel_offsets[:-1][reachable] + c[reachable] - 1]
    out[(r.num_ret == 0) & (cutoffs <= 0) & evaluated(r)] = C_NAN
    return out


def _rel_suffix_max(r: Ranked):
    """Per query, over its relevant rows in rank order: the best precision from there on.

    Computed once per ranking (every recall level of iprec_at_recall and 11pt_avg reads it).
    """
    if "rel_suffix_max" not in r.memo:
        unjudged = np.repeat(_unjudged_rel(r), r.num_rel_ret)
        prec = (r.rel_k - unjudged) / r.rel_rank
        r.memo["rel_suffix_max"] = (r.rel_offsets, seg_suffix_max(prec, r.rel_offsets))
    return r.memo["rel_suffix_max"]


@record(frozen=True, eq=False, repr=False)   # arrays: no equality, no repr
class _JudgedRel:
    """The judged relevant rows (code >= 0 and >= the level), in rank order per query."""

    rows: np.ndarray
    rank: np.ndarray        # rank of each
    k: np.ndarray           # 1, 2, 3 ... within each query
    offsets: np.ndarray     # (Q+1,) per query into the above

    def count_before(self, r: Ranked, mask: np.ndarray) -> np.ndarray:
        """For every such row, how many rows above it in its query satisfy ``mask``."""
        return marked_before(mask, self.rows, np.repeat(r.offsets[:-1], np.diff(self.offsets)))


def _judged_rel(r: Ranked) -> _JudgedRel:
    """The rows bpref and infAP call relevant: the relevant rows unless -l <= -1."""
    if "judged_rel" not in r.memo:
        if r.rel_level >= 1:
            out = _JudgedRel(r.rel_rows, r.rel_rank, r.rel_k, r.rel_offsets)
        else:
            mask = r.is_rel & (r.rel >= 0)
            rows = np.flatnonzero(mask)
            offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
            np.cumsum(segment_sum(mask, r.offsets), out=offsets[1:])
            q = r.qindex[rows]
            out = _JudgedRel(rows, rows - r.offsets[q] + 1,
                             np.arange(len(rows)) - offsets[q] + 1, offsets)
        r.memo["judged_rel"] = out
    return r.memo["judged_rel"]


# --------------------------------------------------------------------------- counts

@measure("runid", average="tag", value="str", per_query=False, order_free=True)
def runid(r: Ranked) -> np.ndarray:
    """Run identifier: the run tag of the run file's last line, as trec_eval prints it."""
    return np.full(r.num_queries, r.run_tag, dtype=object)


@measure("num_q", average="count", value="int", per_query=False, order_free=True)
def num_q(r: Ranked) -> np.ndarray:
    """Number of queries evaluated (with -c, every query of the qrels)."""
    return np.ones(r.num_queries, dtype=np.int64)


@measure("num_ret", average="sum", value="int", order_free=True)
def num_ret(r: Ranked) -> np.ndarray:
    """Number of documents retrieved (after -M and -J)."""
    return r.num_ret.astype(np.int64)


@measure("num_rel", average="sum", value="int", order_free=True)
def num_rel(r: Ranked) -> np.ndarray:
    """Number of relevant documents in the qrels (grade at or above -l)."""
    return r.num_rel.astype(np.int64)


@measure("num_rel_ret", average="sum", value="int", order_free=True)
def num_rel_ret(r: Ranked) -> np.ndarray:
    """Number of relevant documents retrieved.

    Judged documents only, as trec_eval counts: under ``-l -1`` or below the unjudged
    documents that pass the level are not counted (though the rank-by-rank measures,
    map, P and the like, count them).
    """
    return judged_rel_ret(r).astype(np.int64)


# --------------------------------------------------------------------------- ranked measures

@measure("map", orders=True)
def average_precision(r: Ranked, o: str = "exact") -> np.ndarray:
    """Mean average precision: precision at each relevant retrieved document, summed over num_rel.

    Relevant documents not retrieved contribute 0; a query with no relevant
    documents scores 0. Under a ``-l`` below 0 the retrieved unjudged documents count as
    relevant but not in num_rel: a query judged only below 0 that retrieves one scores
    +inf, as trec_eval divides by num_rel = 0 (``inf``; gm_map's mean and map_avgjg follow).
    """
    return over_num_rel(order_of(r, o).precision_sum(), r.num_rel)


@measure("gm_map", average="gmean", per_query=False, orders=True)
def gm_map(r: Ranked, o: str = "exact") -> np.ndarray:
    """Geometric mean of average precision over queries (values floored at 1e-5)."""
    return average_precision(r, o)


@measure("Rprec", orders=True,
         micro=lambda r: (in_top(r.is_rel, r.offsets, r.num_rel), r.num_rel))
def r_precision(r: Ranked, o: str = "exact") -> np.ndarray:
    """Precision after num_rel documents (R-precision); 0 when there are no relevant documents."""
    return safe_div(order_of(r, o).top(r.is_rel, r.num_rel), r.num_rel)


def _bpref_terms(r: Ranked) -> np.ndarray:
    """bpref's term at each judged relevant retrieved row (aligned with :func:`_judged_rel`)."""
    jr = _judged_rel(r)
    judged_before = jr.count_before(r, r.rel >= 0)
    nonrel_so_far = judged_before - (jr.k - 1)
    q = np.repeat(np.arange(r.num_queries), np.diff(jr.offsets))
    R = r.num_rel[q]
    denom = np.minimum(r.num_nonrel, r.num_rel)[q]
    frac = safe_div(np.minimum(nonrel_so_far, R), denom)
    return np.where(nonrel_so_far > 0, 1.0 - frac, 1.0)


@measure("bpref")
def bpref(r: Ranked) -> np.ndarray:
    """Binary preference (Buckley & Voorhees 2004): relevant documents ranked above judged
    non-relevant ones.

    For each relevant retrieved document, 1 - min(n, R) / min(N_nonrel, R), where n is
    the number of judged non-relevant documents above it and R is num_rel; summed and
    divided by num_rel. Documents without a judgement are skipped, whatever ``-l``: under
    ``-l 0`` or below every judged document is relevant, so bpref is num_rel_ret / num_rel.
    """
    if "bpref" not in r.memo:
        r.memo["bpref"] = safe_div(seg_sum(_bpref_terms(r), _judged_rel(r).offsets),
                                   r.num_rel)
    return r.memo["bpref"]


@measure("recip_rank", orders=True)
def recip_rank(r: Ranked, o: str = "exact") -> np.ndarray:
    """Reciprocal rank of the first relevant document; 0 when none is retrieved."""
    return order_of(r, o).reciprocal_first()


@measure("iprec_at_recall", params="levels", default=RECALL_LEVELS)
def iprec_at_recall(r: Ranked, level: float) -> np.ndarray:
    """Interpolated precision at a recall level: the best precision at that recall or beyond.

    The level becomes a count of relevant documents as trec_eval does: 9.0 adds 0.9 to
    level*num_rel and truncates, 10.0 rounds. A level whose count is 0 is NaN (trec_eval's
    0/0, printed -nan) when nothing is retrieved (``-M 0``, or ``-J`` leaving no
    document). Under ``-l -1`` or below, trec_eval counts down from num_rel_ret (judged
    documents) at every relevant row, unjudged ones included: with U unjudged relevant
    rows, precision at the k-th relevant row is (k - U) / rank and the level's count c
    is reached at the (c + U)-th.
    """
    return interpolated_precision(r, relative_count(r, level))


@measure("P", params="cutoffs", default=TREC_CUTOFFS, orders=True,
         micro=lambda r, k: (in_top(r.is_rel, r.offsets, k), np.full(r.num_queries, float(k))))
def precision(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Precision after k documents; a short list counts the missing ranks as non-relevant."""
    return order_of(r, o).top(r.is_rel, k) / k


@measure("relstring", params="int", default=(10,), average="none", value="str")
def relstring(r: Ranked, params: tuple) -> np.ndarray:
    """The grades of the first N (default 10) retrieved documents as a string.

    One character a document: the grade 0-9, '>' above 9, '-' not in the qrels,
    '.' judged negatively (in the pool but unjudged). Printed per query only.
    """
    (k,) = params
    counts = np.minimum(r.num_ret, max(int(k), 0))
    ends = np.cumsum(counts)
    starts = ends - counts
    # the first k rows of each query, found from the offsets (no rank column of every row)
    rel = r.rel[np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64)
                + np.repeat(r.offsets[:-1] - starts, counts)]
    chars = np.where(rel > 9, ord(">"),
                     np.where(rel >= 0, ord("0") + np.clip(rel, 0, 9),
                              np.where(rel == NONPOOL, ord("-"),
                                       np.where(rel == UNJUDGED, ord("."), ord("<")))))
    text = chars.astype(np.uint8).tobytes().decode("ascii")
    return np.array([text[s:e] for s, e in zip(starts.tolist(), ends.tolist())], dtype=object)


@measure("recall", params="cutoffs", default=TREC_CUTOFFS, orders=True,
         micro=lambda r, k: (in_top(r.is_rel, r.offsets, k), r.num_rel))
def recall(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Recall after k documents: relevant in the top k over num_rel."""
    return safe_div(order_of(r, o).top(r.is_rel, k), r.num_rel)


@measure("infAP")
def inf_ap(r: Ranked) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam): AP estimated from a judged sample of the pool.

    Documents judged negatively count as pooled-but-unjudged; documents absent from
    the qrels are skipped, whatever ``-l`` (under ``-l 0`` or below every judged document
    is relevant).
    """
    jr = _judged_rel(r)
    j = (jr.rank - 1).astype(np.float64)
    rel_so_far = jr.k.astype(np.float64)
    judged_before = jr.count_before(r, r.rel >= 0)
    nonrel_so_far = (judged_before - (jr.k - 1)).astype(np.float64)
    unj_so_far = jr.count_before(r, r.rel == UNJUDGED).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (rel_so_far - 1 + nonrel_so_far + unj_so_far) / j
        b = (rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON)
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * a * b
    term = np.where(j == 0, 1.0, term)
    return safe_div(seg_sum(term, jr.offsets), r.num_rel)


@measure("gm_bpref", average="gmean", per_query=False)
def gm_bpref(r: Ranked) -> np.ndarray:
    """Geometric mean of bpref over queries (values floored at 1e-5)."""
    return bpref(r)


@measure("Rprec_mult", params="levels", default=RPREC_MULTS, orders=True)
def rprec_mult(r: Ranked, mult: float, o: str = "exact") -> np.ndarray:
    """Precision after mult*num_rel documents (mult*num_rel + 0.9, truncated, as trec_eval).

    trec_eval 10.0 keeps 9's rounding here. Beyond the last retrieved document it is
    num_rel_ret / cutoff. trec_eval counts down from num_rel_ret (judged documents) at
    every relevant row below the cutoff, so under ``-l -1`` or below, where unjudged rows
    pass the level, the value is max(relevant in the top c - U, 0) / c, U the unjudged
    relevant rows (under ``--ties average`` that maximum is taken of the expectation).
    """
    cut = relative_count(r, mult, rounds_in_10=False)
    top = order_of(r, o).top(r.is_rel, cut)
    num = np.maximum(top - _unjudged_rel(r), 0)
    return safe_div(num, cut)


@measure("utility", params="floats", default=(1.0, -1.0, 0.0, 0.0),
         order_free=True)
def utility(r: Ranked, coef: tuple) -> np.ndarray:
    """Set utility p1*a + p2*b + p3*c + p4*d over the retrieved/relevant contingency table.

    a relevant retrieved, b non-relevant retrieved, c relevant not retrieved, d the rest
    of the collection (needs -N). a is trec_eval's num_rel_ret (judged documents only).
    """
    if len(coef) != 4:
        from smarteval.errors import UsageError
        raise UsageError("utility takes four coefficients, e.g. utility.1,-1,0,0")
    a = judged_rel_ret(r).astype(np.float64)
    ret = r.num_ret.astype(np.float64)
    rel = r.num_rel.astype(np.float64)
    n = float(r.num_docs or 0)
    return coef[0] * a + coef[1] * (ret - a) + coef[2] * (rel - a) + coef[3] * (n + a - ret - rel)


@measure("11pt_avg", params="floats", default=RECALL_LEVELS)
def eleven_pt_avg(r: Ranked, levels: tuple) -> np.ndarray:
    """Interpolated precision averaged over recall levels (default the eleven 0.0 ... 1.0).

    As trec_eval's loop: the levels are taken from the last to the first, and each adds
    its interpolated precision once the walk up the ranking reaches its count of relevant
    documents. Levels whose count exceeds num_rel_ret at the end of the list add nothing;
    once a level's count is 0, or larger than the previous level's (a list not in
    increasing order), it and every level before it add the precision at the top of the
    walk. NaN when nothing is retrieved and some level's count is 0 (trec_eval's 0/0).
    """
    judged = judged_rel_ret(r)
    final = interpolated_precision(r, np.zeros(r.num_queries, dtype=np.int64))
    total = np.zeros(r.num_queries, dtype=np.float64)
    skipping = np.ones(r.num_queries, dtype=bool)     # leading counts above num_rel_ret
    stuck = np.zeros(r.num_queries, dtype=bool)
    previous = judged.copy()
    for level in reversed(levels):
        cut = relative_count(r, level)
        skipping &= cut > judged
        hit = ~skipping & ~stuck & (cut >= 1) & (cut <= previous)
        stuck |= ~skipping & ~hit
        value = np.where(hit, interpolated_precision(r, cut), np.where(stuck, final, 0.0))
        total = total + value
        previous = np.where(hit, cut, previous)
    return total / len(levels)


@measure("binG")
def bin_g(r: Ranked) -> np.ndarray:
    """Binary G: each relevant document worth 1/log2(2 + non-relevant before it), over num_rel.

    +inf where num_rel is 0 and a retrieved unjudged document counts as relevant
    (``-l`` below 0), as map.
    """
    rows = np.flatnonzero(r.is_rel)                 # only relevant rows add a term
    q = np.searchsorted(r.offsets, rows, side="right") - 1
    offsets = prefix(np.bincount(q, minlength=r.num_queries))
    # the non-relevant rows before a relevant one: its rank less the relevant so far
    nonrel_before = rows - r.offsets[q] - (np.arange(len(rows)) - offsets[q])
    table = log2_table(int(nonrel_before.max()) + 2 if len(rows) else 2)
    s = seg_sum(1.0 / table[nonrel_before + 2], offsets)
    return over_num_rel(s, r.num_rel)


def _sparse_gains(r: Ranked, pairs: tuple):
    """The rows with a non-zero gain, in rank order: (gains, query, rank, offsets into them
    per query). Every gain measure adds only these: adding 0.0 never changes a sum."""
    gain = gains_of(r, pairs).row
    rows = np.flatnonzero(gain)
    q = np.searchsorted(r.offsets, rows, side="right") - 1
    return gain[rows], q, rows - r.offsets[q] + 1, prefix(np.bincount(q, minlength=r.num_queries))


def _running_at(running: np.ndarray, rank: np.ndarray, offsets: np.ndarray,
                q: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """A running sum over sparse rows (``rank`` and per-query ``offsets``), read at
    ``depth`` of query ``q``: its value at the last of the query's rows ranked at or above
    ``depth``, 0 before the first."""
    top = int(max(rank.max() if len(rank) else 0, depth.max() if len(depth) else 0)) + 1
    key = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets)) * top + rank
    upto = np.searchsorted(key, q.astype(np.int64) * top + np.minimum(depth, top - 1),
                           side="right")
    out = np.zeros(len(q))
    has = upto > offsets[q]
    out[has] = running[upto[has] - 1]
    return out


def _ideal_dcg_run(g) -> np.ndarray:
    """Running ideal DCG over each query's ideal ranking (at ``g.ideal_offsets``)."""
    return seg_cumsum(dcg_terms(g.ideal, g.ideal_offsets), g.ideal_offsets)


@measure("G", params="gains", default=())
def g_measure(r: Ranked, pairs: tuple) -> np.ndarray:
    """Normalized gain G: gain / log2(2 + ideal-so-far - gained-so-far), over the ideal total.

    Gains and ideal ranking as ndcg's (trec_eval's gain table, quirks included). The
    cost of rank d is the d-th ideal gain when that is at least 1, else 1; a
    document's term divides its gain by log2(2 + costs so far - gains so far), C's log2
    (NaN below 0, -inf at 0, which gains below 0 can reach). 0 when the ideal total is 0.
    """
    g = gains_of(r, pairs)
    gain, q, rank, offsets = _sparse_gains(r, pairs)
    n_ideal = g.num_ideal[q]
    # costs so far: the ideal gains (at least 1 each) to min(rank, ideal length), read
    # from the running ideal costs, then 1 a rank past the ideal ranking's end
    ideal_cost = seg_cumsum(np.maximum(g.ideal, 1.0), g.ideal_offsets)
    within = np.minimum(rank, n_ideal)
    sum_cost = np.zeros(len(rank))
    has = within > 0
    sum_cost[has] = ideal_cost[g.ideal_offsets[q[has]] + within[has] - 1]
    past = np.maximum(rank - n_ideal, 0)
    if (past > 0).any() and not np.array_equal(np.floor(sum_cost[past > 0]), sum_cost[past > 0]):
        # a fractional ideal total: add the ones one by one, as the C loop does
        cost = np.ones(len(r.rel))
        inside = positions(r.offsets) <= g.num_ideal[r.qindex]
        idx = r.qindex[inside]
        cost[inside] = np.maximum(g.ideal[g.ideal_offsets[idx] + positions(r.offsets)[inside]
                                          - 1], 1.0)
        sum_cost = seg_cumsum(cost, r.offsets)[r.offsets[q] + rank - 1]
    else:
        sum_cost = sum_cost + past
    sum_results = seg_cumsum(gain, offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = gain / libm.log2(2.0 + sum_cost - sum_results)
    total_ideal = seg_sum(g.ideal, g.ideal_offsets)
    return safe_div(seg_sum(terms, offsets), total_ideal)


@measure("dcg", params="gains", default=(), orders=True, versions=(10,))
def dcg(r: Ranked, pairs: tuple, o: str = "exact") -> np.ndarray:
    """Discounted cumulative gain: gain / log2(rank + 1) summed over the ranking
    (trec_eval 10.0).

    Gains as ndcg's (``dcg.1=3,2=9``, quirks included). Not normalized, so not in
    [0, 1]. Not in any nickname (all_trec lacks it), as in trec_eval 10.0.
    """
    return order_of(r, o).dcg(pairs)


@measure("ideal_dcg", params="gains", default=(), order_free=True, versions=(10,))
def ideal_dcg(r: Ranked, pairs: tuple) -> np.ndarray:
    """The DCG of the ideal ranking, ndcg's denominator (trec_eval 10.0).

    Gains and ideal ranking as ndcg's (quirks included); every judged document counts,
    however many were retrieved. Not in any nickname, as in trec_eval 10.0.
    """
    g = gains_of(r, pairs)
    return seg_sum(dcg_terms(g.ideal, g.ideal_offsets), g.ideal_offsets)


@measure("ndcg", params="gains", default=(), orders=True)
def ndcg(r: Ranked, pairs: tuple, o: str = "exact") -> np.ndarray:
    """Normalized discounted cumulative gain over the whole ranking (Järvelin & Kekäläinen).

    Gain of a document is its grade unless ``rel=gain`` pairs say otherwise
    (``ndcg.1=3,2=9``); discount log2(rank+1); the ideal orders every judged document
    by gain. 0 when the ideal has no positive gain.

    The gains and the ideal ranking are those of trec_eval's gain table, quirks
    included: a pair's gain is a double; a pair may name -1 or -2 and so give unjudged
    documents a gain; trec_eval's sort compares gains by the integer part of their
    difference, so gains less than 1 apart keep the order glibc's merge sort leaves them
    in, and the ideal ranking follows that order, stopping at the first level with
    documents and a gain of 0 or less. So with
    ``ndcg.1=0.5`` and grades 0, 1, 2 the ideal ranking is the grade-2 documents alone
    and nDCG can exceed 1. ndcg_rel, Rndcg, G, dcg, ideal_dcg and rbp share the table.
    """
    return safe_div(order_of(r, o).dcg(pairs), ideal_dcg(r, pairs))


@measure("ndcg_rel", params="gains", default=())
def ndcg_rel(r: Ranked, pairs: tuple) -> np.ndarray:
    """nDCG averaged over the relevant documents (gain > 0); unretrieved ones take the final
    nDCG.

    At each retrieved document with a positive gain, DCG so far over the ideal DCG at
    that depth (the whole ideal past its end); each positive ideal document not matched
    adds final DCG / ideal DCG (gains and ideal ranking as ndcg's, quirks included);
    the sum over the number of positive ideal documents,
    0 unless the sum is positive (IEEE arithmetic, so an ideal DCG of 0 gives inf or NaN
    terms and then 0, as trec_eval).
    """
    g = gains_of(r, pairs)
    terms, rank, offsets = sparse_dcg_terms(r, pairs)
    q = np.repeat(np.arange(r.num_queries), np.diff(offsets))
    gain = g.row[r.offsets[q] + rank - 1]
    dcg_run = seg_cumsum(terms, offsets)
    idcg_run = _ideal_dcg_run(g)
    n_pos = g.num_ideal
    # ideal dcg at each retrieved rank: the ideal prefix up to min(rank, ideal length)
    depth = np.minimum(rank, n_pos[q])
    idcg_at = np.zeros(len(rank))
    has = depth > 0
    idcg_at[has] = idcg_run[g.ideal_offsets[q[has]] + depth[has] - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = gain > 0
        s = seg_sum(np.where(positive, dcg_run / idcg_at, 0.0), offsets)
        n_rel_ret = segment_sum(positive, offsets)
        s = s + (n_pos - n_rel_ret) * _last(dcg_run, offsets) / _last(idcg_run,
                                                                    g.ideal_offsets)
        return np.where(s > 0, s / n_pos, 0.0)


def _last(running: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    lengths = np.diff(offsets)
    out = np.zeros(len(lengths))
    has = lengths > 0
    out[has] = running[offsets[1:][has] - 1]
    return out


@measure("Rndcg", params="gains", default=())
def r_ndcg(r: Ranked, pairs: tuple) -> np.ndarray:
    """nDCG averaged at the R-levels: every depth where the ideal gain changes, and at num_ret.

    With 5 documents of gain 3, 3 of gain 2 and 10 of gain 1, the average of nDCG at 5,
    8 and 18, plus at num_ret when documents remain below the last relevant ideal rank.
    0 when there are no relevant documents (num_rel, so it depends on ``-l``). NaN (0/0,
    trec_eval's -nan) when there are relevant documents but the ideal ranking has no
    positive gain, as when no grade has one (``Rndcg.1=0``). Gains and ideal ranking as
    ndcg's (quirks included).
    """
    g = gains_of(r, pairs)
    terms, rank, offsets = sparse_dcg_terms(r, pairs)
    dcg_run = seg_cumsum(terms, offsets)
    idcg_run = _ideal_dcg_run(g)
    n_pos = g.num_ideal                                          # P per query
    # the ideal gain changes after depth d = 1..P (always after the last)
    ev_q = np.repeat(np.arange(r.num_queries), n_pos)
    d = positions(g.ideal_offsets)                               # 1..P
    at = g.ideal_offsets[:-1][ev_q] + d - 1
    last = d == n_pos[ev_q]
    change = last.copy()
    change[~last] = g.ideal[at[~last] + 1] != g.ideal[at[~last]]
    run_depth = np.minimum(d, r.num_ret[ev_q])
    dcg_d = _running_at(dcg_run, rank, offsets, ev_q, run_depth)
    vals = np.where(change, dcg_d / idcg_run[at], 0.0)         # ideal DCG > 0 there
    s = seg_sum(vals, g.ideal_offsets)
    count = segment_sum(change, g.ideal_offsets).astype(np.float64)
    # the final point at num_ret, when documents remain after depth P + 1
    final = (r.num_ret > n_pos + 1) & (n_pos > 0)
    final_idcg = _last(idcg_run, g.ideal_offsets)
    add = np.where(final, _last(dcg_run, offsets) / np.where(final, final_idcg, 1.0), 0.0)
    s = s + add
    count = count + final
    out = libm.divide(s, count)
    return np.where((r.num_rel > 0) & evaluated(r), out, 0.0)


@measure("ndcg_cut", params="cutoffs", default=TREC_CUTOFFS, orders=True)
def ndcg_cut(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """nDCG after k documents, the ideal also cut at k; gains are the grades."""
    dcg = order_of(r, o).dcg((), k)
    g = gains_of(r, ())
    ipos = positions(g.ideal_offsets)
    idcg = seg_sum(np.where(ipos <= k, dcg_terms(g.ideal, g.ideal_offsets), 0.0),
                   g.ideal_offsets)
    return np.where(idcg > 0, safe_div(dcg, idcg), dcg)


@measure("map_cut", params="cutoffs", default=TREC_CUTOFFS, orders=True)
def map_cut(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Average precision with the ranking cut after k documents (still over num_rel)."""
    return safe_div(order_of(r, o).precision_sum(k), r.num_rel)


@measure("relative_P", params="cutoffs", default=TREC_CUTOFFS, orders=True,
         micro=lambda r, k: (in_top(r.is_rel, r.offsets, k), np.minimum(k, r.num_rel)))
def relative_precision(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Precision after k documents relative to the best possible: over min(k, num_rel)."""
    return safe_div(order_of(r, o).top(r.is_rel, k), np.minimum(k, r.num_rel))


@measure("success", params="cutoffs", default=(1, 5, 10), orders=True)
def success(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """1 when a relevant document is among the first k, else 0."""
    return order_of(r, o).hit(k)


@measure("set_P",
         micro=lambda r: (judged_rel_ret(r), r.num_ret), order_free=True)
def set_precision(r: Ranked) -> np.ndarray:
    """Precision of the whole retrieved set: num_rel_ret / num_ret."""
    return safe_div(judged_rel_ret(r), r.num_ret)


@measure("set_relative_P",
         micro=lambda r: (judged_rel_ret(r), np.minimum(r.num_ret, r.num_rel)),
         order_free=True)
def set_relative_precision(r: Ranked) -> np.ndarray:
    """Set precision relative to the best possible: num_rel_ret / min(num_ret, num_rel)."""
    return safe_div(judged_rel_ret(r), np.minimum(r.num_ret, r.num_rel))


@measure("set_recall",
         micro=lambda r: (judged_rel_ret(r), r.num_rel), order_free=True)
def set_recall(r: Ranked) -> np.ndarray:
    """Recall of the whole retrieved set: num_rel_ret / num_rel."""
    return safe_div(judged_rel_ret(r), r.num_rel)


@measure("set_map", order_free=True)
def set_map(r: Ranked) -> np.ndarray:
    """Set precision times set recall (the area of the set's precision/recall rectangle).

    Computed as trec_eval does, num_rel_ret² / (num_ret · num_rel) in one division, which
    rounds differently from P·R at some ties of the fourth decimal; 0 when nothing is
    retrieved or nothing is relevant.
    """
    a = judged_rel_ret(r).astype(np.float64)
    den = r.num_ret.astype(np.float64) * r.num_rel.astype(np.float64)
    return safe_div(a * a, den)


@measure("set_F", params="floats", default=(1.0,), order_free=True)
def set_f(r: Ranked, params: tuple) -> np.ndarray:
    """F-measure of the retrieved set, (x+1)PR/(xP+R), x the parameter (default 1).

    trec_eval's weighting: x itself, not its square as in van Rijsbergen's F_beta, so
    set_F.0.5 is 1.5PR/(0.5P+R); x is read as a double. 0 when no relevant document is
    retrieved; a negative x can make the denominator 0 (then ±inf or NaN, as trec_eval).
    """
    x = float(params[0])
    judged = judged_rel_ret(r)
    p = safe_div(judged, r.num_ret)
    rr = safe_div(judged, r.num_rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (x + 1.0) * p * rr / (x * p + rr)
    return np.where(judged > 0, value, 0.0)


@measure("num_nonrel_judged_ret", average="sum", value="int", order_free=True)
def num_nonrel_judged_ret(r: Ranked) -> np.ndarray:
    """Number of retrieved documents judged non-relevant (grade 0 .. -l minus 1)."""
    return segment_sum((r.rel >= 0) & ~r.is_rel, r.offsets).astype(np.int64)


@measure("yaap")
def yaap(r: Ranked) -> np.ndarray:
    """Yet another AP (Robertson 2012): log((1 + s) / (1 + num_rel - s)), s the AP sum.

    Under ``-l -1`` or below s can exceed num_rel: the log of a negative number is C's
    NaN (``-nan``, whatever the CPU), of 1/0 inf, as in trec_eval.
    """
    s = sum_at_rel(r, ap_terms(r))
    return libm.log(libm.divide(1.0 + s, 1.0 + r.num_rel - s))


def _powers(p: float, n: int) -> np.ndarray:
    """p**0, p**1, ... by repeated multiplication, as trec_eval's loop computes them."""
    out = np.empty(max(n, 1) + 1)
    out[0] = 1.0
    if n > 0:
        out[1:] = p
        np.multiply.accumulate(out, out=out)
    return out


def _persistence(pairs: tuple) -> float:
    """rbp's p: the value of the last pair named exactly ``p`` (default 0.9)."""
    p = 0.9
    for name, value in pairs:
        if name == "p":
            p = float(value)
    return p


@measure("rbp", params="gains", default=(), versions=(10,), keys=("p",))
def rbp(r: Ranked, pairs: tuple) -> np.ndarray:
    """Rank-biased precision (Moffat & Zobel), persistence p=0.9 (``rbp.p=0.95``).

    Gains are the grades (or ``rel=gain`` pairs), scaled to [0, 1] when they fall
    outside: (gain - min) / (max - min) for every entry of trec_eval's gain table, min
    and max taken over the table and 0. (trec_eval 10.0 never initialises them; run
    alone, rbp finds 0.0 there. After other measures in the same run they hold whatever
    those left on the stack, which is not reproduced.) A document without an entry (a
    code -1 or -2 no pair names) gains 0. p is the last pair named ``p``, a double; the
    table is ndcg's (quirks included), trec_eval 10.0 leaving ``p`` out of it.
    """
    p = _persistence(pairs)
    g = gains_of(r, pairs)
    lo, hi = g.lo[r.qindex], g.hi[r.qindex]
    scale = ((lo < 0) | (hi > 1)) & g.in_table
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(scale, (g.row - lo) / (hi - lo), g.row)
    pw = _powers(p, int(r.num_ret.max()) if r.num_queries else 0)
    terms = np.where(gain != 0, gain * pw[r.rank - 1], 0.0)
    return (1.0 - p) * seg_sum(terms, r.offsets)


@measure("rbp_resid", params="gains", default=(), versions=(10,), keys=("p",))
def rbp_resid(r: Ranked, pairs: tuple) -> np.ndarray:
    """RBP residual: the weight RBP (p=0.9) leaves to unjudged and unretrieved documents.

    p^num_ret + (1 - p) · Σ p^(rank-1) over the retrieved documents without a judgement
    (code -1 or -2); 0 when every retrieved document is judged. ``rbp_resid.p=0.95``
    sets p as for rbp; other pairs are ignored.
    """
    p = _persistence(pairs)
    pw = _powers(p, int(r.num_ret.max()) if r.num_queries else 0)
    unj = r.rel < 0
    s = seg_sum(np.where(unj, pw[r.rank - 1], 0.0), r.offsets)
    any_unj = segment_sum(unj, r.offsets) > 0
    return np.where(any_unj, pw[r.num_ret] + (1 - p) * s, 0.0)


@measure("unj", params="cutoffs", default=(5, 10, 20), versions=(10,), orders=True,
         micro=lambda r, k: (in_top(r.rel < 0, r.offsets, k), np.full(r.num_queries, float(k))))
def unjudged(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Fraction of the first k ranks holding a document without a judgement."""
    return order_of(r, o).top(r.rel < 0, k) / k


__all__ = ["TREC_CUTOFFS"]
