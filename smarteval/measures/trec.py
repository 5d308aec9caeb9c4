"""The measures of trec_eval 9.0.8 (and 10.0's additions), each vectorised over all queries.

Every function receives a :class:`~smarteval.columns.Ranked` and returns one value per
query. Where trec_eval accumulates a sum in a loop, the sum here is accumulated in the
same order (:func:`seg_cumsum`) so that the printed fourth decimal agrees.
"""

from __future__ import annotations

import math

import numpy as np

from smarteval.columns import NONPOOL, UNJUDGED, Ranked
from smarteval.measures.segments import (
    first_true_rank, in_top, positions, safe_div, seg_cumsum, seg_sum,
    seg_suffix_max, segment_sum)
from smarteval.measures import tied
from smarteval.registry import measure

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
INFAP_EPSILON = 0.00001


# --------------------------------------------------------------------------- shared pieces

def rel_in_top(r: Ranked, k) -> np.ndarray:
    """(Q,) relevant documents among the first k of each query (k may vary by query)."""
    start = r.offsets[:-1]
    k = np.maximum(np.asarray(k, dtype=np.int64), 0)
    return (r.cum_rel[start + np.minimum(k, r.num_ret)] - r.cum_rel[start]).astype(np.int64)


def sum_at_rel(r: Ranked, terms: np.ndarray) -> np.ndarray:
    """(Q,) sum of per-relevant-row ``terms`` (aligned with rel_rows), added in rank order."""
    return seg_sum(terms, r.rel_offsets)


def ap_terms(r: Ranked) -> np.ndarray:
    """Precision at each relevant retrieved document (aligned with rel_rows)."""
    if "ap_terms" not in r.memo:
        r.memo["ap_terms"] = r.rel_k / r.rel_rank
    return r.memo["ap_terms"]


def relative_count(r: Ranked, fraction: float, rounds_in_10: bool = True) -> np.ndarray:
    """A fraction of num_rel as a whole number of documents, as trec_eval rounds it.

    trec_eval 9 adds 0.9 and truncates; 10.0 rounds to nearest (half away from zero)
    for the interpolated-precision measures and keeps 9's rule for Rprec_mult.
    """
    x = fraction * r.num_rel.astype(np.float64)
    if rounds_in_10 and r.settings.trec_version >= 10:
        return np.floor(x + 0.5).astype(np.int64)
    return (x + 0.9).astype(np.int64)


def interpolated_precision(r: Ranked, cutoffs: np.ndarray) -> np.ndarray:
    """Interpolated precision once ``cutoffs[q]`` relevant documents are retrieved.

    The maximum precision at any rank at or after the cutoff-th relevant document
    (anywhere when the cutoff is 0); 0 when fewer relevant documents were retrieved.
    Precision only rises at a relevant document, so the maximum is taken over the
    relevant rows alone: k / rank of the k-th relevant, for every k >= cutoff.
    """
    rel_offsets, best = _rel_suffix_max(r)
    out = np.zeros(r.num_queries, dtype=np.float64)
    reachable = (cutoffs <= r.num_rel_ret) & (r.num_rel_ret > 0)
    c = np.maximum(cutoffs, 1)
    out[reachable] = best[rel_offsets[:-1][reachable] + c[reachable] - 1]
    return out


def _rel_suffix_max(r: Ranked):
    """Per query, over its relevant rows in rank order: the best precision from there on.

    Computed once per ranking (every recall level of iprec_at_recall and 11pt_avg reads it).
    """
    if "rel_suffix_max" not in r.memo:
        prec = r.rel_k / r.rel_rank
        r.memo["rel_suffix_max"] = (r.rel_offsets, seg_suffix_max(prec, r.rel_offsets))
    return r.memo["rel_suffix_max"]


def gains_of(levels: np.ndarray, pairs: tuple = ()) -> np.ndarray:
    """The gain of each grade (ndcg's ``rel=gain``): the grade unless a pair names it.

    trec_eval reads a pair's gain as a C float, so it is rounded to single precision here
    too. Documents absent from the qrels, or judged negatively, gain 0.
    """
    g = np.where(levels >= 0, levels, 0).astype(np.float64)
    for level, gain in pairs:
        g = np.where(levels == level, float(np.float32(gain)), g)
    return np.where(levels >= 0, g, 0.0)


def gain_table(r: Ranked, pairs: tuple = ()) -> tuple[np.ndarray, np.ndarray]:
    """Gains of each retrieved row and of each judged qrels row (see :func:`gains_of`)."""
    return gains_of(r.rel, pairs), gains_of(r.qrel_grades, pairs)


def ideal_order(r: Ranked, qgain: np.ndarray) -> np.ndarray:
    """Judged gains of each query sorted descending (the ideal ranking), at qrel_offsets."""
    order = np.lexsort((-qgain, r.qrel_qindex))
    return qgain[order]


_LOG2: list = [0.0]


def log2_table(n: int) -> np.ndarray:
    """log2(i) for i = 0 .. n from the C library (numpy's SIMD log2 may differ by an ulp)."""
    if len(_LOG2) <= n:
        _LOG2.extend(math.log2(i) for i in range(len(_LOG2), n + 1))
    return np.asarray(_LOG2[: n + 1])


def dcg_terms(gain: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """gain / log2(rank + 1) for every row, 0 where the gain is 0."""
    pos = positions(offsets)
    if len(pos) == 0:
        return np.zeros(0)
    table = log2_table(int(pos.max()) + 1)
    return np.where(gain != 0, gain / table[pos + 1], 0.0)


# --------------------------------------------------------------------------- counts

@measure("runid", average="tag", value="str", per_query=False, ties=lambda r: runid(r), order_free=True)
def runid(r: Ranked) -> np.ndarray:
    """Run identifier: the run tag of the run file's last line, as trec_eval prints it."""
    return np.full(r.num_queries, r.run_tag, dtype=object)


@measure("num_q", average="count", value="int", per_query=False, ties=lambda r: num_q(r), order_free=True)
def num_q(r: Ranked) -> np.ndarray:
    """Number of queries evaluated (with -c, every query of the qrels)."""
    return np.ones(r.num_queries, dtype=np.int64)


@measure("num_ret", average="sum", value="int", ties=lambda r: num_ret(r), order_free=True)
def num_ret(r: Ranked) -> np.ndarray:
    """Number of documents retrieved (after -M and -J)."""
    return r.num_ret.astype(np.int64)


@measure("num_rel", average="sum", value="int", ties=lambda r: num_rel(r), order_free=True)
def num_rel(r: Ranked) -> np.ndarray:
    """Number of relevant documents in the qrels (grade at or above -l)."""
    return r.num_rel.astype(np.int64)


@measure("num_rel_ret", average="sum", value="int", ties=lambda r: num_rel_ret(r), order_free=True)
def num_rel_ret(r: Ranked) -> np.ndarray:
    """Number of relevant documents retrieved."""
    return r.num_rel_ret.astype(np.int64)


# --------------------------------------------------------------------------- ranked measures

@measure("map", ties=tied.average_precision)
def average_precision(r: Ranked) -> np.ndarray:
    """Mean average precision: precision at each relevant retrieved document, summed over num_rel.

    Relevant documents not retrieved contribute 0; a query with no relevant
    documents scores 0.
    """
    if "map" not in r.memo:
        r.memo["map"] = safe_div(sum_at_rel(r, ap_terms(r)), r.num_rel)
    return r.memo["map"]


@measure("gm_map", average="gmean", per_query=False, ties=tied.average_precision)
def gm_map(r: Ranked) -> np.ndarray:
    """Geometric mean of average precision over queries (values floored at 1e-5)."""
    return average_precision(r)


@measure("Rprec", ties=tied.r_precision,
         micro=lambda r: (in_top(r.is_rel, r.offsets, r.num_rel), r.num_rel))
def r_precision(r: Ranked) -> np.ndarray:
    """Precision after num_rel documents (R-precision); 0 when there are no relevant documents."""
    return safe_div(rel_in_top(r, r.num_rel), r.num_rel)


def _bpref_terms(r: Ranked) -> np.ndarray:
    """bpref's term at each relevant retrieved row (aligned with rel_rows)."""
    judged_before = r.count_before(r.rel >= 0)
    nonrel_so_far = judged_before - (r.rel_k - 1)
    q = np.repeat(np.arange(r.num_queries), r.num_rel_ret)
    R = r.num_rel[q]
    denom = np.minimum(r.num_nonrel, r.num_rel)[q]
    frac = safe_div(np.minimum(nonrel_so_far, R), denom)
    return np.where(nonrel_so_far > 0, 1.0 - frac, 1.0)


@measure("bpref")
def bpref(r: Ranked) -> np.ndarray:
    """Binary preference (Buckley & Voorhees 2004): relevant documents ranked above judged non-relevant ones.

    For each relevant retrieved document, 1 - min(n, R) / min(N_nonrel, R), where n is
    the number of judged non-relevant documents above it and R is num_rel; summed and
    divided by num_rel. Documents without a judgement are skipped.
    """
    if "bpref" not in r.memo:
        r.memo["bpref"] = safe_div(sum_at_rel(r, _bpref_terms(r)), r.num_rel)
    return r.memo["bpref"]


@measure("recip_rank", ties=tied.recip_rank)
def recip_rank(r: Ranked) -> np.ndarray:
    """Reciprocal rank of the first relevant document; 0 when none is retrieved."""
    first = first_true_rank(r.is_rel, r.offsets)
    return safe_div((first > 0).astype(np.float64), first)


@measure("iprec_at_recall", params="levels", default=RECALL_LEVELS)
def iprec_at_recall(r: Ranked, level: float) -> np.ndarray:
    """Interpolated precision at a recall level: the best precision at that recall or beyond.

    The level becomes a count of relevant documents as trec_eval does: 9.0 adds 0.9 to
    level*num_rel and truncates, 10.0 rounds.
    """
    return interpolated_precision(r, relative_count(r, level))


@measure("P", params="cutoffs", default=TREC_CUTOFFS, ties=tied.precision,
         micro=lambda r, k: (in_top(r.is_rel, r.offsets, k), np.full(r.num_queries, float(k))))
def precision(r: Ranked, k: int) -> np.ndarray:
    """Precision after k documents; a short list counts the missing ranks as non-relevant."""
    return rel_in_top(r, k) / k


_REL_CHARS = np.frombuffer(b"0123456789", dtype=np.uint8)


@measure("relstring", params="int", default=(10,), average="none", value="str")
def relstring(r: Ranked, params: tuple) -> np.ndarray:
    """The grades of the first N (default 10) retrieved documents as a string.

    One character a document: the grade 0-9, '>' above 9, '-' not in the qrels,
    '.' judged negatively (in the pool but unjudged). Printed per query only.
    """
    (k,) = params
    keep = r.rank <= max(int(k), 0)
    rel = r.rel[keep]
    chars = np.where(rel > 9, ord(">"),
                     np.where(rel >= 0, ord("0") + np.clip(rel, 0, 9),
                              np.where(rel == NONPOOL, ord("-"),
                                       np.where(rel == UNJUDGED, ord("."), ord("<")))))
    text = chars.astype(np.uint8).tobytes().decode("ascii")
    counts = np.minimum(r.num_ret, max(int(k), 0))
    ends = np.cumsum(counts)
    starts = ends - counts
    return np.array([text[s:e] for s, e in zip(starts.tolist(), ends.tolist())], dtype=object)


@measure("recall", params="cutoffs", default=TREC_CUTOFFS, ties=tied.recall,
         micro=lambda r, k: (in_top(r.is_rel, r.offsets, k), r.num_rel))
def recall(r: Ranked, k: int) -> np.ndarray:
    """Recall after k documents: relevant in the top k over num_rel."""
    return safe_div(rel_in_top(r, k), r.num_rel)


@measure("infAP")
def inf_ap(r: Ranked) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam): AP estimated from a judged sample of the pool.

    Documents judged negatively count as pooled-but-unjudged; documents absent from
    the qrels are skipped.
    """
    j = (r.rel_rank - 1).astype(np.float64)
    rel_so_far = r.rel_k.astype(np.float64)
    judged_before = r.count_before(r.rel >= 0)
    nonrel_so_far = (judged_before - (r.rel_k - 1)).astype(np.float64)
    unj_so_far = r.count_before(r.rel == UNJUDGED).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (rel_so_far - 1 + nonrel_so_far + unj_so_far) / j
        b = (rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON)
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * a * b
    term = np.where(j == 0, 1.0, term)
    return safe_div(sum_at_rel(r, term), r.num_rel)


@measure("gm_bpref", average="gmean", per_query=False)
def gm_bpref(r: Ranked) -> np.ndarray:
    """Geometric mean of bpref over queries (values floored at 1e-5)."""
    return bpref(r)


@measure("Rprec_mult", params="levels", default=RPREC_MULTS, ties=tied.rprec_mult)
def rprec_mult(r: Ranked, mult: float) -> np.ndarray:
    """Precision after mult*num_rel documents (mult*num_rel + 0.9, truncated, as trec_eval)."""
    cut = relative_count(r, mult, rounds_in_10=False)
    return safe_div(rel_in_top(r, cut), cut)


@measure("utility", params="floats", default=(1.0, -1.0, 0.0, 0.0),
         ties=lambda r, c: utility(r, c), order_free=True)
def utility(r: Ranked, coef: tuple) -> np.ndarray:
    """Set utility p1*a + p2*b + p3*c + p4*d over the retrieved/relevant contingency table.

    a relevant retrieved, b non-relevant retrieved, c relevant not retrieved, d the rest
    of the collection (needs -N).
    """
    if len(coef) != 4:
        from smarteval.errors import UsageError
        raise UsageError("utility takes four coefficients, e.g. utility.1,-1,0,0")
    a = r.num_rel_ret.astype(np.float64)
    ret = r.num_ret.astype(np.float64)
    rel = r.num_rel.astype(np.float64)
    n = float(r.num_docs or 0)
    return coef[0] * a + coef[1] * (ret - a) + coef[2] * (rel - a) + coef[3] * (n + a - ret - rel)


@measure("11pt_avg", params="floats", default=RECALL_LEVELS)
def eleven_pt_avg(r: Ranked, levels: tuple) -> np.ndarray:
    """Interpolated precision averaged over recall levels (default the eleven 0.0 ... 1.0)."""
    total = np.zeros(r.num_queries, dtype=np.float64)
    for level in reversed(levels):      # trec_eval adds from the last level down
        total = total + interpolated_precision(r, relative_count(r, level))
    return total / len(levels)


@measure("binG")
def bin_g(r: Ranked) -> np.ndarray:
    """Binary G: each relevant document worth 1/log2(2 + non-relevant before it), over num_rel."""
    nonrel_before = r.rank - r.rel_so_far
    table = log2_table(int(nonrel_before.max()) + 2 if len(nonrel_before) else 2)
    terms = np.where(r.is_rel, 1.0 / table[np.maximum(nonrel_before, 0) + 2], 0.0)
    s = seg_sum(terms, r.offsets)
    return np.where(r.num_rel_ret > 0, safe_div(s, r.num_rel), 0.0)


@measure("G", params="gains", default=())
def g_measure(r: Ranked, pairs: tuple) -> np.ndarray:
    """Normalized gain G: gain / log2(2 + ideal-so-far - gained-so-far), over the ideal total."""
    gain, qgain = gain_table(r, pairs)
    ideal = ideal_order(r, qgain)
    pos_ideal = np.where(ideal > 0, ideal, 0.0)
    # cost of each retrieved rank: the ideal gain there if at least 1, else 1
    rank0 = r.rank - 1
    at = r.qrel_offsets[:-1][r.qindex] + rank0
    inside = rank0 < r.num_judged[r.qindex]
    ideal_here = np.zeros(len(gain))
    ideal_here[inside] = pos_ideal[at[inside]]
    cost = np.maximum(ideal_here, 1.0)
    sum_cost = seg_cumsum(cost, r.offsets)
    sum_results = seg_cumsum(gain, r.offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(gain != 0, gain / np.log2(2.0 + sum_cost - sum_results), 0.0)
    total_ideal = seg_sum(pos_ideal, r.qrel_offsets)
    # trec_eval stops walking the results once the ideal has no positive gain left and
    # the remaining docs are still walked; both loops contribute the same terms.
    return safe_div(seg_sum(terms, r.offsets), total_ideal)


def _sparse_dcg_terms(r: Ranked, pairs: tuple):
    """gain / log2(rank + 1) at the retrieved rows with a non-zero gain, in rank order.

    Only judged documents can gain, and they are few beside the retrieved ones, so the
    DCG measures work on those rows alone: returns the terms, their ranks and per-query
    offsets into them. Same values, same order of addition, as over every row.
    """
    key = ("dcg_terms", pairs)
    if key in r.memo:
        return r.memo[key]
    rows = np.flatnonzero(r.rel >= 0)
    gain = gains_of(r.rel[rows], pairs)
    nz = gain != 0
    rows, gain = rows[nz], gain[nz]
    q = np.searchsorted(r.offsets, rows, side="right") - 1
    rank = rows - r.offsets[q] + 1
    table = log2_table(int(rank.max()) + 1 if len(rank) else 1)
    terms = gain / table[rank + 1]
    offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=r.num_queries), out=offsets[1:])
    r.memo[key] = (terms, rank, offsets)
    return r.memo[key]


def _ideal_positive(r: Ranked, pairs: tuple) -> np.ndarray:
    """Each query's judged gains in descending order, non-positive ones as 0 (at qrel_offsets)."""
    ideal = ideal_order(r, gains_of(r.qrel_grades, pairs))
    return np.where(ideal > 0, ideal, 0.0)


def _dcg_ideal(r: Ranked, pairs: tuple):
    return gains_of(r.rel, pairs), _ideal_positive(r, pairs)


@measure("ndcg", params="gains", default=(), ties=tied.ndcg)
def ndcg(r: Ranked, pairs: tuple) -> np.ndarray:
    """Normalized discounted cumulative gain over the whole ranking (Järvelin & Kekäläinen).

    Gain of a document is its grade unless ``rel=gain`` pairs say otherwise
    (``ndcg.1=3,2=9``); discount log2(rank+1); the ideal orders every judged document
    by gain. 0 when the ideal has no positive gain.
    """
    terms, rank, offsets = _sparse_dcg_terms(r, pairs)
    dcg = seg_sum(terms, offsets)
    idcg = seg_sum(dcg_terms(_ideal_positive(r, pairs), r.qrel_offsets), r.qrel_offsets)
    return safe_div(dcg, idcg)


@measure("ndcg_rel", params="gains", default=())
def ndcg_rel(r: Ranked, pairs: tuple) -> np.ndarray:
    """nDCG averaged over the relevant documents (gain > 0); unretrieved ones take the final nDCG."""
    gain, ideal_pos = _dcg_ideal(r, pairs)
    dcg_run = seg_cumsum(dcg_terms(gain, r.offsets), r.offsets)
    idcg_run = seg_cumsum(dcg_terms(ideal_pos, r.qrel_offsets), r.qrel_offsets)
    n_pos = segment_sum(ideal_pos > 0, r.qrel_offsets)
    # ideal dcg at each retrieved rank: the ideal prefix up to min(rank, positive ideal count)
    depth = np.minimum(r.rank, n_pos[r.qindex])
    idx = r.qrel_offsets[:-1][r.qindex] + depth - 1
    idcg_at = np.where(depth > 0, idcg_run[np.maximum(idx, 0)] if len(idcg_run) else 0.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(gain > 0, dcg_run / idcg_at, 0.0)
    s = seg_sum(terms, r.offsets)
    n_rel_ret = segment_sum(gain > 0, r.offsets)
    final_dcg = _last(dcg_run, r.offsets)
    final_idcg = _last(idcg_run, r.qrel_offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = s + (n_pos - n_rel_ret) * np.where(final_idcg > 0, final_dcg / final_idcg, 0.0)
    return np.where(s > 0, safe_div(s, n_pos), 0.0)


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
    0 when there are no relevant documents.
    """
    gain, ideal_pos = _dcg_ideal(r, pairs)
    qgain = gains_of(r.qrel_grades, pairs)
    ideal_all = ideal_order(r, qgain)
    dcg_run = seg_cumsum(dcg_terms(gain, r.offsets), r.offsets)
    idcg_run = seg_cumsum(dcg_terms(ideal_pos, r.qrel_offsets), r.qrel_offsets)
    n_pos = segment_sum(ideal_pos > 0, r.qrel_offsets)          # P per query
    # events at depth d = 1..P (d-th step changes the ideal gain): ideal gain at d-1 vs d
    ev_q = np.repeat(np.arange(r.num_queries), n_pos)
    ev_off = np.concatenate(([0], np.cumsum(n_pos))).astype(np.int64)
    d = positions(ev_off)                                          # 1..P
    base = r.qrel_offsets[:-1][ev_q]
    prev_gain = ideal_all[base + d - 1]
    nxt_inside = d < r.num_judged[ev_q]
    next_gain = np.zeros(len(d))
    next_gain[nxt_inside] = ideal_all[base[nxt_inside] + d[nxt_inside]]
    change = next_gain != prev_gain
    idcg_d = idcg_run[base + d - 1] if len(d) else np.zeros(0)
    run_depth = np.minimum(d, r.num_ret[ev_q])
    dcg_d = np.zeros(len(d))
    has = run_depth > 0
    dcg_d[has] = dcg_run[r.offsets[:-1][ev_q[has]] + run_depth[has] - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.where(change & (idcg_d > 0), dcg_d / idcg_d, 0.0)
    s = seg_sum(vals, ev_off)
    count = segment_sum(change & (idcg_d > 0), ev_off).astype(np.float64)
    # the final point at num_ret, when documents remain after depth P + 1
    final = (r.num_ret > n_pos + 1) & (n_pos > 0)
    final_dcg = _last(dcg_run, r.offsets)
    final_idcg = _last(idcg_run, r.qrel_offsets)
    with np.errstate(divide="ignore", invalid="ignore"):
        add = np.where(final & (final_idcg > 0), final_dcg / final_idcg, 0.0)
    s = s + add
    count = count + (final & (final_idcg > 0))
    out = safe_div(s, count)
    return np.where(r.num_rel > 0, out, 0.0)


@measure("ndcg_cut", params="cutoffs", default=TREC_CUTOFFS, ties=tied.ndcg_cut)
def ndcg_cut(r: Ranked, k: int) -> np.ndarray:
    """nDCG after k documents, the ideal also cut at k; gains are the grades."""
    terms, rank, offsets = _sparse_dcg_terms(r, ())
    dcg = seg_sum(np.where(rank <= k, terms, 0.0), offsets)
    ideal_pos = _ideal_positive(r, ())
    ipos = positions(r.qrel_offsets)
    idcg = seg_sum(np.where(ipos <= k, dcg_terms(ideal_pos, r.qrel_offsets), 0.0),
                   r.qrel_offsets)
    return np.where(idcg > 0, safe_div(dcg, idcg), dcg)


@measure("map_cut", params="cutoffs", default=TREC_CUTOFFS, ties=tied.map_cut)
def map_cut(r: Ranked, k: int) -> np.ndarray:
    """Average precision with the ranking cut after k documents (still over num_rel)."""
    terms = np.where(r.rel_rank <= k, ap_terms(r), 0.0)
    return safe_div(sum_at_rel(r, terms), r.num_rel)


@measure("relative_P", params="cutoffs", default=TREC_CUTOFFS, ties=tied.relative_precision,
         micro=lambda r, k: (in_top(r.is_rel, r.offsets, k), np.minimum(k, r.num_rel)))
def relative_precision(r: Ranked, k: int) -> np.ndarray:
    """Precision after k documents relative to the best possible: over min(k, num_rel)."""
    return safe_div(rel_in_top(r, k), np.minimum(k, r.num_rel))


@measure("success", params="cutoffs", default=(1, 5, 10), ties=tied.success)
def success(r: Ranked, k: int) -> np.ndarray:
    """1 when a relevant document is among the first k, else 0."""
    return (rel_in_top(r, k) > 0).astype(np.float64)


@measure("set_P", ties=lambda r: set_precision(r),
         micro=lambda r: (r.num_rel_ret, r.num_ret), order_free=True)
def set_precision(r: Ranked) -> np.ndarray:
    """Precision of the whole retrieved set: num_rel_ret / num_ret."""
    return safe_div(r.num_rel_ret, r.num_ret)


@measure("set_relative_P", ties=lambda r: set_relative_precision(r),
         micro=lambda r: (r.num_rel_ret, np.minimum(r.num_ret, r.num_rel)), order_free=True)
def set_relative_precision(r: Ranked) -> np.ndarray:
    """Set precision relative to the best possible: num_rel_ret / min(num_ret, num_rel)."""
    return safe_div(r.num_rel_ret, np.minimum(r.num_ret, r.num_rel))


@measure("set_recall", ties=lambda r: set_recall(r),
         micro=lambda r: (r.num_rel_ret, r.num_rel), order_free=True)
def set_recall(r: Ranked) -> np.ndarray:
    """Recall of the whole retrieved set: num_rel_ret / num_rel."""
    return safe_div(r.num_rel_ret, r.num_rel)


@measure("set_map", ties=lambda r: set_map(r), order_free=True)
def set_map(r: Ranked) -> np.ndarray:
    """Set precision times set recall (the area of the set's precision/recall rectangle)."""
    return set_precision(r) * set_recall(r)


@measure("set_F", params="floats", default=(1.0,), ties=lambda r, p: set_f(r, p), order_free=True)
def set_f(r: Ranked, params: tuple) -> np.ndarray:
    """F-measure of the retrieved set, (1+b²)PR/(b²P+R), b the parameter (default 1)."""
    beta = float(np.float32(params[0]))
    p = set_precision(r)
    rr = set_recall(r)
    return safe_div((beta * beta + 1.0) * p * rr, beta * beta * p + rr)


@measure("num_nonrel_judged_ret", average="sum", value="int",
         ties=lambda r: num_nonrel_judged_ret(r), order_free=True)
def num_nonrel_judged_ret(r: Ranked) -> np.ndarray:
    """Number of retrieved documents judged non-relevant (grade 0 .. -l minus 1)."""
    return segment_sum((r.rel >= 0) & ~r.is_rel, r.offsets).astype(np.int64)


@measure("yaap")
def yaap(r: Ranked) -> np.ndarray:
    """Yet another AP (Robertson 2012): log((1 + s) / (1 + num_rel - s)), s the AP sum."""
    s = sum_at_rel(r, ap_terms(r))
    return np.log((1.0 + s) / (1.0 + r.num_rel - s))


def _powers(p: float, n: int) -> np.ndarray:
    """p**0, p**1, ... by repeated multiplication, as trec_eval's loop computes them."""
    out = np.empty(max(n, 1) + 1)
    out[0] = 1.0
    if n > 0:
        out[1:] = p
        np.multiply.accumulate(out, out=out)
    return out


@measure("rbp", params="gains", default=(), versions=(10,))
def rbp(r: Ranked, pairs: tuple) -> np.ndarray:
    """Rank-biased precision (Moffat & Zobel), persistence p=0.9 (``rbp.p=0.95``).

    Gains are the grades (or ``rel=gain`` pairs), scaled to [0, 1] when they fall outside.
    """
    p = 0.9
    gains = []
    for name, value in pairs:
        if name == "p":
            p = float(np.float32(value))
        else:
            gains.append((name, value))
    gain = gains_of(r.rel, tuple(gains))
    lo, hi = _gain_range(r, tuple(gains))
    scale = (lo < 0) | (hi > 1)
    lo_row, hi_row = lo[r.qindex], hi[r.qindex]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (gain - lo_row) / (hi_row - lo_row)
    gain = np.where(scale[r.qindex] & (gain != 0), scaled, gain)
    pw = _powers(p, int(r.num_ret.max()) if r.num_queries else 0)
    terms = np.where(gain != 0, gain * pw[r.rank - 1], 0.0)
    return (1.0 - p) * seg_sum(terms, r.offsets)


def _gain_range(r: Ranked, pairs: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the least and greatest gain of trec_eval's gain table.

    The table holds every grade from 0 to the query's highest judged grade (gain = grade)
    and every ``rel=gain`` pair.
    """
    top = np.full(r.num_queries, -1, dtype=np.int64)
    has = r.num_judged > 0
    top[has] = r.qrel_grades[r.qrel_offsets[:-1][has]]       # grades are sorted descending
    named = sorted({int(level) for level, _ in pairs})
    base_lo = np.zeros(r.num_queries, dtype=np.int64)
    for level in named:
        base_lo = np.where(base_lo == level, level + 1, base_lo)
    base_hi = top.copy()
    for level in reversed(named):
        base_hi = np.where(base_hi == level, level - 1, base_hi)
    lo = np.where(base_lo <= top, base_lo, np.inf).astype(np.float64)
    hi = np.where((base_hi >= 0) & (base_hi <= top), base_hi, -np.inf).astype(np.float64)
    for _, gain in pairs:
        g = float(np.float32(gain))
        lo = np.minimum(lo, g)
        hi = np.maximum(hi, g)
    return lo, hi


@measure("rbp_resid", versions=(10,))
def rbp_resid(r: Ranked) -> np.ndarray:
    """RBP residual: the weight RBP (p=0.9) leaves to unjudged and unretrieved documents."""
    p = 0.9
    pw = _powers(p, int(r.num_ret.max()) if r.num_queries else 0)
    unj = r.rel < 0
    s = seg_sum(np.where(unj, pw[r.rank - 1], 0.0), r.offsets)
    any_unj = segment_sum(unj, r.offsets) > 0
    return np.where(any_unj, pw[r.num_ret] + (1 - p) * s, 0.0)


@measure("unj", params="cutoffs", default=(5, 10, 20), versions=(10,), ties=tied.unjudged,
         micro=lambda r, k: (in_top(r.rel < 0, r.offsets, k), np.full(r.num_queries, float(k))))
def unjudged(r: Ranked, k: int) -> np.ndarray:
    """Fraction of the first k ranks holding a document without a judgement."""
    return in_top(r.rel < 0, r.offsets, k) / k


__all__ = ["TREC_CUTOFFS"]
