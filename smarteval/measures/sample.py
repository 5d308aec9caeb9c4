"""sample_eval.pl's measures: xinfAP, infNDCG and precision estimated from sampled judgements.

NIST's ``sample_eval.pl`` (Yilmaz, Kanoulas and Aslam, "A simple and efficient sampling
method for estimating AP and NDCG", SIGIR 2008) gives the official measures of TREC
Clinical Decision Support 2014-16, Precision Medicine 2017-20 (infNDCG) and TRECVID
(xinfAP). The pool of each topic is split into strata, each sampled at its own rate
(:mod:`smarteval.read.sample`); the measures estimate what full judgements would give.

Per topic, the first 1,000 documents in sample_eval's order (score descending as a
double, docno descending) are read. Going down the list, with ``D_s``, ``S_s`` and
``R_s`` the pooled, sampled and sampled-relevant documents of stratum ``s`` seen so far
(relevant: grade above 0), and ``d`` the pooled ones of all strata:

- the estimated relevant documents up to rank k are
  ``E(k) = sum_s D_s (R_s + 0.00001) / (S_s + 0.00003)`` (sample_eval's smoothing);
- at a sampled relevant document at rank k, the estimated precision above it is
  ``1/k + (d/k) sum_s (D_s/d) (R_s + 0.00001) / (S_s + 0.00003)`` (counts above it);
  the estimated AP of stratum s is the sum of these over its relevant documents
  divided by its sampled relevant documents, and xinfAP weighs each stratum by its
  share of the estimated relevant documents ``R = sum_s rel_s docs_s / sampled_s``
  (over the whole sample of the topic);
- infNDCG is ``d sum_s (D_s/d) G_s / S_s`` over the ideal DCG, ``G_s`` the DCG
  (gain = grade, discount log2(rank + 1)) of the stratum's relevant documents at their
  ranks; the ideal ranking holds, for each grade (its text, compared as strings,
  highest first: ``2`` before ``10``), the estimated number of documents of that grade
  rounded to the nearest integer, cut at rank 1,000 (sample_eval then gives every
  further grade one term at the rank after the previous grades' counts).

Strata are visited in the byte order of their names and every sum is taken in
sample_eval's order, so the values are its doubles. A topic with no pooled document
retrieved, no relevant document or an empty list gets 0 where sample_eval would divide by
0. Against plain qrels (no strata) a topic is one stratum in which every judged document
was sampled, and a document judged below 0 is outside the pool. ``-l`` has no effect:
relevant means a grade above 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from smarteval.columns import Ranked
from smarteval.measures.registry import measure
from smarteval.measures.segments import positions, seg_suffix_max
from smarteval.ranking.join import concat_ranges, offsets_from_counts
from smarteval.ranking.sample import SampleRanking, judgements_of
from smarteval.read.keys import encode_ids

#: sample_eval's maxResultSize: the documents of a topic it reads
DEPTH = 1000
#: its precision cut-offs (iP10, iP50, iP1000)
CUTOFFS = (10, 50, DEPTH)
#: its recall levels of interpolated precision, as it writes them ("0", ".1" ... "1")
LEVELS = (0.0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1.0)
#: its smoothing of a stratum's estimated precision: (R + 0.00001) / (S + 0.00003)
SMOOTH_REL = 0.00001
SMOOTH_SAMPLED = 0.00003


# =========================================================================== the inputs

@dataclass(frozen=True, eq=False)
class _Inputs:
    """One ranking's sampled judgements and first 1,000 rows, as sample_eval reads them.

    Judgements of each evaluated query per stratum slot (``[q, s]``): pooled
    (``docs``), sampled (``sampled``) and sampled relevant (``relevant``) documents;
    the relevant ones' (query, slot, gain) in ``j_query``, ``j_slot``, ``j_gain``. Rows:
    the first 1,000 of each query at ``offsets``, with their slot (-1 outside the pool),
    whether sampled and relevant, and their gain.
    """

    docs: np.ndarray
    sampled: np.ndarray
    relevant: np.ndarray
    j_query: np.ndarray
    j_slot: np.ndarray
    j_gain: np.ndarray
    offsets: np.ndarray
    slot: np.ndarray
    row_sampled: np.ndarray
    row_relevant: np.ndarray
    row_gain: np.ndarray


def _mapped(grades: np.ndarray, gains: tuple) -> np.ndarray:
    """Grades as floats, those of ``gains``' levels (sample_eval's -G) mapped."""
    out = grades.astype(np.float64)
    for level, gain in gains:
        out[grades == level] = gain
    return out


def _attached(r: Ranked) -> SampleRanking | None:
    """sample_eval's judgements of the ranking (None against plain qrels)."""
    return r.sample if isinstance(r.sample, SampleRanking) else None


def _row_judgements(r: Ranked, att: SampleRanking) -> tuple[np.ndarray, np.ndarray]:
    """(n,) each row's stratum slot and (n,) its grade (-1 outside the pool)."""
    if att.docno is r.docno:                    # the ranking the strata were found for
        return att.stratum, att.grade
    return judgements_of(r, att.qrels)          # the rows put in another order since


def _inputs(r: Ranked, gains: tuple) -> _Inputs:
    key = ("sample_eval inputs", gains)
    if key in r.memo:
        return r.memo[key]
    nq = r.num_queries
    counts = np.minimum(r.num_ret, DEPTH)
    rows = concat_ranges(r.offsets[:-1], counts)
    rel = r.rel[rows]
    att = _attached(r)
    if att is None:                 # plain qrels: one stratum, every judged one sampled
        jq = r.qrel_qindex
        jslot = np.zeros(len(jq), dtype=np.int64)
        jgrade = r.qrel_grades
        slot = np.where(rel >= 0, 0, -1)
    else:
        q = att.qrels
        has = att.query >= 0
        at = np.maximum(att.query, 0)
        n_rows = np.where(has, np.diff(q.offsets)[at], 0)
        jrows = concat_ranges(q.offsets[:-1][at], n_rows)
        jq = np.repeat(np.arange(nq, dtype=np.int64), n_rows)
        jslot = q.slot[jrows]
        jgrade = q.rel[jrows]
        slot, grade = _row_judgements(r, att)
        slot, rel = slot[rows], grade[rows]
    width = int(max(jslot.max(initial=-1), slot.max(initial=-1))) + 1
    jmapped = _mapped(jgrade, gains)
    jsampled = (jgrade >= 0) & (jmapped >= 0)
    jrel = jsampled & (jmapped > 0)
    cell = jq * width + jslot

    def table(mask):
        return np.bincount(cell[mask], minlength=nq * width).reshape(nq, width)

    mapped = _mapped(rel, gains)
    row_sampled = (rel >= 0) & (mapped >= 0) & (slot >= 0)
    out = _Inputs(docs=table(np.ones(len(cell), dtype=bool)), sampled=table(jsampled),
                  relevant=table(jrel), j_query=jq[jrel], j_slot=jslot[jrel],
                  j_gain=jmapped[jrel], offsets=offsets_from_counts(counts), slot=slot,
                  row_sampled=row_sampled, row_relevant=row_sampled & (mapped > 0),
                  row_gain=mapped)
    r.memo[key] = out
    return out


# =========================================================================== the walk

@dataclass(frozen=True, eq=False)
class _Walk:
    """What sample_eval computes going down each topic's first 1,000 documents."""

    offsets: np.ndarray       # (Q+1,) of the rows read
    estimated: np.ndarray     # (n,) E(k): estimated relevant documents up to each row
    num_rel: np.ndarray       # (Q,) the estimated relevant documents R of each topic
    ap: np.ndarray            # (Q,) xinfAP
    ndcg: np.ndarray          # (Q,) infNDCG


def _seg_count(mask: np.ndarray, offsets: np.ndarray, qidx: np.ndarray) -> np.ndarray:
    """(n,) how many rows of each row's query, up to it and itself included, satisfy
    ``mask`` (``qidx`` the query of each row)."""
    p = np.zeros(len(mask) + 1, dtype=np.int64)
    np.cumsum(mask, out=p[1:])
    return p[1:] - p[offsets[:-1]][qidx]


def _log2(ranks: np.ndarray) -> np.ndarray:
    """log(rank + 1) / log(2) from the C library, as Perl computes it."""
    top = int(ranks.max(initial=0))
    table = _LOG2 if top < len(_LOG2) else np.fromiter(
        (math.log(i + 1) / math.log(2) for i in range(top + 1)), dtype=np.float64,
        count=top + 1)
    return table[ranks]


_LOG2 = np.fromiter((math.log(i + 1) / math.log(2) for i in range(DEPTH + 2)),
                    dtype=np.float64, count=DEPTH + 2)


def _walk(r: Ranked, gains: tuple = ()) -> _Walk:
    key = ("sample_eval walk", gains)
    if key in r.memo:
        return r.memo[key]
    s = _inputs(r, gains)
    nq, width = s.docs.shape
    offsets = s.offsets
    lengths = np.diff(offsets)
    n = int(offsets[-1])
    qidx = np.repeat(np.arange(nq, dtype=np.int64), lengths)
    rank = positions(offsets)
    pooled = s.slot >= 0
    seen = _seg_count(pooled, offsets, qidx)
    before = seen - pooled                      # pooled documents above each row
    hit = np.flatnonzero(s.row_relevant)        # sampled relevant rows, in rank order
    hq, hslot = qidx[hit], s.slot[hit]
    last = offsets[1:] - 1
    nonempty = lengths > 0
    estimated = np.zeros(n, dtype=np.float64)
    above = np.zeros(len(hit), dtype=np.float64)
    final_docs = np.zeros((nq, width), dtype=np.int64)
    final_sampled = np.zeros((nq, width), dtype=np.int64)
    for j in range(width):                      # the strata in their byte order
        in_j = s.slot == j
        docs = _seg_count(in_j, offsets, qidx)
        sampled = _seg_count(in_j & s.row_sampled, offsets, qidx)
        relevant = _seg_count(in_j & s.row_relevant, offsets, qidx)
        estimated += docs * (relevant + SMOOTH_REL) / (sampled + SMOOTH_SAMPLED)
        own = in_j[hit]                         # a relevant row is pooled and sampled
        d_b, s_b, r_b = docs[hit] - own, sampled[hit] - own, relevant[hit] - own
        depth = before[hit]
        ok = (depth != 0) & (d_b != 0)
        prob = np.divide(d_b, depth, out=np.zeros(len(hit)), where=ok)
        above += np.where(ok, prob * (r_b + SMOOTH_REL) / (s_b + SMOOTH_SAMPLED), 0.0)
        final_docs[nonempty, j] = docs[last[nonempty]]
        final_sampled[nonempty, j] = sampled[last[nonempty]]
    hrank = rank[hit]
    prec = 1 / hrank + (before[hit] / hrank) * above
    cells = nq * width
    sap = np.bincount(hq * width + hslot, weights=prec, minlength=cells).reshape(nq, width)
    dcg_s = np.bincount(hq * width + hslot, weights=s.row_gain[hit] / _log2(hrank),
                        minlength=cells).reshape(nq, width)
    depth = np.where(nonempty, seen[np.maximum(last, 0)] if n else 0, 0)

    num_rel = np.zeros(nq)
    for j in range(width):
        est = np.divide(s.relevant[:, j] * s.docs[:, j], s.sampled[:, j],
                        out=np.zeros(nq), where=s.sampled[:, j] != 0)
        num_rel += est
    ap = np.zeros(nq)
    dcg = np.zeros(nq)
    for j in range(width):
        est = np.divide(s.relevant[:, j] * s.docs[:, j], s.sampled[:, j],
                        out=np.zeros(nq), where=s.sampled[:, j] != 0)
        share = np.divide(est, num_rel, out=np.zeros(nq),
                          where=(s.sampled[:, j] != 0) & (num_rel != 0))
        ap_s = np.divide(sap[:, j], s.relevant[:, j], out=np.zeros(nq),
                         where=s.relevant[:, j] != 0)
        ap += share * ap_s
        prob = np.divide(final_docs[:, j], depth, out=np.zeros(nq), where=depth != 0)
        ok = (depth != 0) & (final_sampled[:, j] != 0)
        dcg += np.where(ok, np.divide(prob * dcg_s[:, j], final_sampled[:, j],
                                      out=np.zeros(nq), where=ok), 0.0)
    ideal = _ideal_dcg(s, nq)
    ndcg = np.divide(depth * dcg, ideal, out=np.zeros(nq), where=ideal != 0)
    out = _Walk(offsets, estimated, num_rel, ap, ndcg)
    r.memo[key] = out
    return out


def _label(value: float) -> str:
    """A gain's text, as sample_eval keys its grades (``2``, ``0.5``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _ideal_dcg(s: _Inputs, nq: int) -> np.ndarray:
    """(Q,) sample_eval's ideal DCG: for each grade, its text highest first as strings,
    the estimated documents of that grade (summed over strata in their order) rounded to
    the nearest integer, each at gain grade / log2(rank + 1), cut at rank 1,000 (a
    further grade then adds one term, at the rank after the previous counts)."""
    if not len(s.j_gain):
        return np.zeros(nq)
    values = np.unique(s.j_gain)
    labels = np.array([_label(v).encode() for v in values.tolist()])
    order = np.argsort(labels, kind="stable")[::-1]       # descending as strings
    place = np.empty(len(values), dtype=np.int64)
    place[order] = np.arange(len(values))
    grade = place[np.searchsorted(values, s.j_gain)]
    ng = len(values)
    nslots = s.docs.shape[1]
    # each (query, grade, stratum) once, summed in that order: count x docs / sampled
    cell = (s.j_query * ng + grade) * nslots + s.j_slot
    cells, count = np.unique(cell, return_counts=True)
    q = cells // (ng * nslots)
    sl = cells % nslots
    part = count * s.docs[q, sl] / s.sampled[q, sl]
    group, gstart = np.unique(cells // nslots, return_index=True)
    estimate = np.bincount(np.repeat(np.arange(len(group)), np.diff(np.append(gstart,
                                                                         len(cells)))),
                           weights=part, minlength=len(group))
    rounded = np.floor(estimate + 0.5).astype(np.int64)
    gq = group // ng
    gvalue = values[order][group % ng]
    before = np.cumsum(rounded) - rounded
    qfirst = np.searchsorted(gq, gq)                       # the query's first group
    start = before - before[qfirst]
    terms = np.where(rounded > 0, np.minimum(rounded, np.maximum(1, DEPTH - start)), 0)
    at = concat_ranges(start + 1, terms)
    which = np.repeat(np.arange(len(group)), terms)
    return np.bincount(gq[which], weights=gvalue[which] / _log2(at), minlength=nq)


# =========================================================================== interpolation

def _interpolated(r: Ranked, levels: tuple[float, ...]) -> np.ndarray:
    """(Q, len(levels)) sample_eval's interpolated precision at each recall level.

    Recall level x stands for x R estimated relevant documents. Going up the list from
    its last row, the interpolated precision is the highest E(k)/k at or below; the
    highest level not above E(last) is taken first, at the first row whose E is below
    it, then the next lower level at a later row (one level a row), and the levels left
    when the top is reached take the highest precision of all. Levels above E(last) are 0.
    """
    key = ("sample_eval interpolated", levels)
    if key in r.memo:
        return r.memo[key]
    w = _walk(r)
    offsets = w.offsets
    nq = len(offsets) - 1
    lengths = np.diff(offsets)
    n = int(offsets[-1])
    rank = positions(offsets)
    qidx = np.repeat(np.arange(nq, dtype=np.int64), lengths)
    best = seg_suffix_max(w.estimated / np.maximum(rank, 1), offsets)
    nonempty = lengths > 0
    last_e = np.where(nonempty, w.estimated[np.maximum(offsets[1:] - 1, 0)] if n else 0, 0.0)
    top = np.where(nonempty, best[np.minimum(offsets[:-1], max(n - 1, 0))] if n else 0, 0.0)
    cuts = np.asarray(levels)[None, :] * w.num_rel[:, None]
    out = np.zeros((nq, len(levels)))
    cc = (cuts <= last_e[:, None]).sum(axis=1) - 1
    bound = lengths.copy()
    for _ in range(len(levels)):
        live = cc >= 0
        if not live.any():
            break
        thr = np.where(live, cuts[np.arange(nq), np.maximum(cc, 0)], -np.inf)
        cond = (rank <= bound[qidx]) & (w.estimated < thr[qidx])
        hits = np.flatnonzero(cond)
        at = np.searchsorted(hits, offsets[1:]) - 1
        found = live & (at >= 0)
        found[found] = hits[at[found]] >= offsets[:-1][found]
        qs = np.flatnonzero(found)
        rows = hits[at[qs]]
        out[qs, cc[qs]] = best[rows]
        bound[qs] = rank[rows] - 1
        done = np.flatnonzero(live & ~found)
        for_done = np.arange(len(levels))[None, :] <= cc[done][:, None]
        out[done] = np.where(for_done, top[done][:, None], out[done])
        cc[qs] -= 1
        cc[done] = -1
    r.memo[key] = out
    return out


def _levels_with(level: float) -> tuple[float, ...]:
    """sample_eval's levels, with ``level`` among them (another level's value is taken
    with the same walk over the eleven and it)."""
    return LEVELS if level in LEVELS else tuple(sorted((*LEVELS, level)))


# =========================================================================== totals

def sequential_sum(values: np.ndarray) -> float:
    """The sum added one value at a time onto 0.0, in order, as Perl's ``+=`` adds."""
    return 0.0 + float(np.cumsum(values)[-1]) if len(values) else 0.0


def _byte_order(qids: np.ndarray) -> np.ndarray:
    """The order of ``qids`` by their bytes, as Perl's ``sort keys`` compares strings."""
    return np.argsort(encode_ids(np.asarray(qids), "surrogateescape"), kind="stable")


def _mean_by_bytes(r: Ranked, values: np.ndarray, n: int) -> float:
    """The sum in the byte order of the topic ids over ``n``: how sample_eval averages
    interpolated precision."""
    return sequential_sum(values[_byte_order(r.qids)]) / n if n else 0.0


def _sum(r: Ranked, values: np.ndarray, n: int) -> float:
    return sequential_sum(values)


def _all_topics_rel(r: Ranked, values: np.ndarray, n: int) -> float:
    """sample_eval's total of inum_rel: every topic of its qrels, evaluated or not, in
    the byte order of their ids."""
    att = _attached(r)
    if att is None:
        return sequential_sum(values)
    q = att.qrels
    nq = q.num_queries
    width = int(q.slot.max(initial=-1)) + 1
    if not nq or not width:
        return 0.0
    cell = q.qindex * width + q.slot
    docs, sampled, relevant = (np.bincount(cell[m], minlength=nq * width).reshape(nq, width)
                               for m in (np.ones(len(cell), dtype=bool), q.rel >= 0, q.rel > 0))
    total = np.zeros(nq)
    for j in range(width):
        total += np.divide(relevant[:, j] * docs[:, j], sampled[:, j], out=np.zeros(nq),
                           where=sampled[:, j] != 0)
    return sequential_sum(total[_byte_order(q.qids)])


def _retrieved_total(r: Ranked, values: np.ndarray, n: int) -> int:
    """sample_eval's total of num_ret: the documents it read, 1,000 at most a topic."""
    return int(np.minimum(values, DEPTH).sum())


# =========================================================================== the measures,
# in the order sample_eval prints them

@measure("xinfAP", label="infAP", origin="sample", rel_info="sample_eval")
def xinf_ap(r: Ranked) -> np.ndarray:
    """Inferred AP from stratified sampled judgements (xinfAP: sample_eval's infAP).

    Each stratum's AP estimated from its sampled relevant documents, weighted by its
    share of the estimated relevant documents (this module's docstring gives the
    estimates). Under -R sample_qrels it is printed as ``infAP``, as sample_eval prints
    it. trec_eval's infAP (Yilmaz & Aslam 2006) is another estimate, from one sample.
    """
    return _walk(r).ap


@measure("infNDCG", params="gains", origin="sample", rel_info="sample_eval")
def inf_ndcg(r: Ranked, gains: tuple) -> np.ndarray:
    """Inferred nDCG from stratified sampled judgements (sample_eval's infNDCG).

    The stratified estimate of DCG (gain = grade, discount log2(rank + 1)) over the
    ideal DCG of the estimated number of documents of each grade. ``infNDCG.1=1,2=5``
    maps grades to gains as sample_eval's ``-G 1=1 2=5`` does (a grade mapped to 0 is
    not relevant, below 0 not sampled); sample_eval applies -G to every measure, here
    only infNDCG reads it. A grade's gain is also its key in the ideal ranking, whose
    grades sample_eval orders as strings.
    """
    return _walk(r, tuple(gains)).ndcg


@measure("iprec_at_rec", params="levels", default=LEVELS, per_query=False,
         label="iprec@rec{}", total=_mean_by_bytes, origin="sample", rel_info="sample_eval")
def iprec_at_rec(r: Ranked, level: float) -> np.ndarray:
    """Interpolated precision at a recall level, from estimated counts (sample_eval's
    iprec@rec).

    Recall x is x R estimated relevant documents, precision at rank k E(k)/k; the levels
    are taken as sample_eval walks up the list, one level a row (see
    :func:`_interpolated`). sample_eval prints the average over topics only (their sum
    in the byte order of the topic ids); so does -f trec, while the other formats give
    each topic's value. A level other than its eleven is taken on a walk over them and it.
    """
    levels = _levels_with(float(level))
    return _interpolated(r, levels)[:, levels.index(float(level))]


@measure("iP", params="cutoffs", default=CUTOFFS, label="iP{}", origin="sample",
         rel_info="sample_eval")
def inf_precision(r: Ranked, k: int) -> np.ndarray:
    """Estimated precision after k documents (sample_eval's iP10, iP50, iP1000).

    E(k) / k, E the estimated relevant documents among the first k (among all read, at
    most 1,000, for a shorter list).
    """
    w = _walk(r)
    lengths = np.diff(w.offsets)
    at = w.offsets[:-1] + np.minimum(lengths, k) - 1
    e = np.where(lengths > 0, w.estimated[np.maximum(at, 0)] if len(w.estimated) else 0, 0.0)
    return e / k


@measure("inum_rel_ret", average="sum", total=_sum, origin="sample", rel_info="sample_eval")
def inum_rel_ret(r: Ranked) -> np.ndarray:
    """Estimated relevant documents among the first 1,000 retrieved (sample_eval's
    inum_rel_ret).

    E at the last document read."""
    w = _walk(r)
    lengths = np.diff(w.offsets)
    return np.where(lengths > 0, w.estimated[np.maximum(w.offsets[1:] - 1, 0)]
                    if len(w.estimated) else 0, 0.0)


@measure("inum_rel", average="sum", order_free=True, total=_all_topics_rel, origin="sample",
         rel_info="sample_eval")
def inum_rel(r: Ranked) -> np.ndarray:
    """Estimated relevant documents of the topic, from its strata (sample_eval's inum_rel).

    R, the sum over strata of sampled relevant x pooled / sampled.

    sample_eval's total sums R over every topic of its qrels, those the run lacks too.
    """
    return _walk(r).num_rel


@measure("sample_num_ret", average="sum", value="int", order_free=True, label="num_ret",
         total=_retrieved_total, origin="sample", rel_info="sample_eval")
def sample_num_ret(r: Ranked) -> np.ndarray:
    """Documents retrieved (sample_eval's num_ret; its total counts 1,000 at most a topic).

    Every document of a topic counts in its value, while the total counts those read,
    as sample_eval's does."""
    return r.num_ret.astype(np.int64)


@measure("int11ptAP", origin="sample", rel_info="sample_eval")
def int11pt_ap(r: Ranked) -> np.ndarray:
    """Interpolated precision averaged over sample_eval's eleven recall levels (its
    int11ptAP, not printed)."""
    values = _interpolated(r, LEVELS)
    total = np.zeros(len(values))
    for i in reversed(range(len(LEVELS))):        # in the order sample_eval adds them
        total += values[:, i]
    return total / len(LEVELS)
