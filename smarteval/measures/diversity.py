"""Diversity measures as ndeval computes them: alpha-nDCG, ERR-IA, NRBP, MAP-IA, P-IA, strec.

ndeval (``ndeval.c``, version 4.5, the TREC Web track's diversity evaluation; pyndeval
wraps the same C code) judges each document per subtopic of a query. A judgement of
the relevance level or more (``-l``, default 1: ndeval's "1 or more") makes the document
relevant to that subtopic. At rank i (0-based) a document scores, over the subtopics it
is relevant to, the sum of (1 - alpha)^c, c the number of documents above it relevant to
the same subtopic. A query's S is the number of its subtopics with at least one relevant
document; a query with S = 0 scores 0 on every measure (nNRBP: 0/0, NaN, as ndeval).

How the judgements reach the measures: the ranking carries them as ``subtopics`` (a
:class:`~smarteval.read.diversity.DiversityQrels`), set by :func:`with_subtopics`, which
the evaluation stage calls after ranking a run against the plain view of diversity
qrels (:meth:`DiversityQrels.as_qrels`). A ranking without them (plain qrels) is read as
one subtopic per query, the qrels' grades: what ndeval computes on a qrels file whose
second column never changes.

The run is read in ndeval's ``-traditional`` order: score descending (as a double), then
docno descending; an ir_measures name (``alpha_nDCG@10``) in pyndeval's, score (a double)
descending, then docno ascending (:mod:`smarteval.ranking.programs`); under
``--order-by rank`` (:mod:`smarteval.ranking.order`) in the order of the run's rank
column, ndeval's default, a rank given twice in a query refused as ndeval refuses it.
ndeval's ``-c`` is ``-c``: a query of the qrels the run
has no results for scores 0 on every measure; ``-M`` cuts the run as ndeval's does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from smarteval import libm
from smarteval.columns import Ranked
from smarteval.errors import UsageError
from smarteval.measures.registry import measure

if TYPE_CHECKING:                       # the qrels are read by the reading stage
    from smarteval.read.diversity import DiversityQrels

#: ndeval's defaults: -alpha, -beta, and the deepest cut-off it computes (its DEPTH)
ALPHA = 0.5
BETA = 0.5
DEPTH = 20
#: ndeval's cut-offs (the columns it prints)
CUTOFFS = (5, 10, 20)


def with_subtopics(ranked: Ranked, qrels: DiversityQrels) -> Ranked:
    """``ranked`` carrying the subtopic judgements of ``qrels``: the diversity measures read them.

    Call it on each ranking made against ``qrels.as_qrels()`` (the evaluation path does,
    for ``-R qrels_diversity``). The judgements are matched to the ranked documents by
    query id and docno when a measure first needs them, so every later view of the
    ranking (``-J``, another relevance level) keeps them.
    """
    return replace(ranked, subtopics=qrels)


class Cut(NamedTuple):
    """A diversity measure's parameters as an ir_measures name gives them: the cut-off,
    alpha, beta, and whether tied documents go in ir_measures' order (docno ascending,
    as pyndeval sorts them)."""

    k: int = 0
    alpha: float = ALPHA
    beta: float = BETA
    ir: bool = True


@dataclass(frozen=True)
class _Judgements:
    """The subtopic judgements of a ranking, matched to its rows (one relevance level).

    Entries are (document, subtopic) pairs judged relevant. ``row``/``group`` hold the
    retrieved ones: the row, and the (query, subtopic) group, ordered by row then
    subtopic; ``seen`` how many rows above hold an entry of the same group. Per group,
    ``group_q`` its query and ``group_rel`` its relevant documents; per query, ``S``.
    ``doc_*`` describe every relevant entry (retrieved or not) for the ideal ranking:
    entries ordered by (query, docno, subtopic), ``doc`` numbering (query, docno).
    """

    S: np.ndarray
    row: np.ndarray
    group: np.ndarray
    seen: np.ndarray
    group_q: np.ndarray
    group_rel: np.ndarray
    doc: np.ndarray | None        # None: one subtopic (plain qrels), the ideal is direct
    doc_group: np.ndarray | None
    doc_q: np.ndarray | None


def _ranks_within(keys: np.ndarray) -> np.ndarray:
    """For sorted ``keys``: 0, 1, 2 ... within each run of equal keys."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    start = np.ones(n, dtype=bool)
    start[1:] = keys[1:] != keys[:-1]
    first = np.flatnonzero(start)
    return np.arange(n) - np.repeat(first, np.diff(np.append(first, n)))


def _judgements(r: Ranked) -> _Judgements:
    key = ("diversity", r.rel_level)
    if key in r.memo:
        return r.memo[key]
    dq = getattr(r, "subtopics", None)
    Q = r.num_queries
    if dq is None:
        row = r.rel_rows
        group = r.qindex[row]
        out = _Judgements(
            S=(r.num_rel > 0).astype(np.int64), row=row, group=group, seen=r.rel_k - 1,
            group_q=np.arange(Q), group_rel=r.num_rel.astype(np.int64),
            doc=None, doc_group=None, doc_q=None)
    else:
        out = _match(r, dq)
    r.memo[key] = out
    return out


def _match(r: Ranked, dq: DiversityQrels) -> _Judgements:
    """The judgements of ``dq`` matched to the rows of ``r`` by query id and docno."""
    Q = r.num_queries
    ok = np.zeros(Q, dtype=bool)
    pos = np.zeros(Q, dtype=np.int64)
    if len(dq.qids) and Q:
        pos = np.minimum(np.searchsorted(dq.qids, r.qids), len(dq.qids) - 1)
        ok = dq.qids[pos] == r.qids
    to_r = np.full(max(dq.num_queries, 1), -1, dtype=np.int64)
    to_r[pos[ok]] = np.flatnonzero(ok)
    dq_q = np.repeat(np.arange(dq.num_queries), np.diff(dq.offsets))
    q = to_r[dq_q] if len(dq_q) else dq_q
    keep = (q >= 0) & (dq.grades >= r.rel_level)
    q, docnos, sub = q[keep], dq.docnos[keep], dq.subtopic[keep]
    # docnos as integers in byte order, shared with the run's rows
    _, inv = np.unique(np.concatenate([docnos, r.docno]) if len(docnos)
                       else docnos, return_inverse=True)
    inv = inv.reshape(-1)
    did, row_did = inv[:len(docnos)], inv[len(docnos):]
    width = int(inv.max()) + 1 if len(inv) else 1
    order = np.lexsort((sub, did, q))
    q, did, sub = q[order], did[order], sub[order]
    # (query, subtopic) groups and (query, docno) documents
    nsub = int(sub.max()) + 1 if len(sub) else 1
    gkey = q * nsub + sub
    gvals, group = np.unique(gkey, return_inverse=True)
    group = group.reshape(-1)
    group_q = gvals // nsub
    group_rel = np.bincount(group, minlength=len(gvals)).astype(np.int64)
    S = np.bincount(group_q, minlength=Q).astype(np.int64)
    dkey = q * width + did
    dvals, doc = np.unique(dkey, return_inverse=True)
    doc = doc.reshape(-1)
    # the row of each entry's document, when retrieved
    if len(r.docno) and len(dkey):
        rkey = r.qindex * width + row_did
        rorder = np.argsort(rkey, kind="stable")
        at = np.minimum(np.searchsorted(rkey[rorder], dkey), len(rkey) - 1)
        hit = rkey[rorder][at] == dkey
        erow = np.where(hit, rorder[at], -1)
    else:
        erow = np.full(len(dkey), -1, dtype=np.int64)
    got = erow >= 0
    row, rgroup, rsub = erow[got], group[got], sub[got]
    by_group = np.lexsort((row, rgroup))
    seen = np.empty(len(row), dtype=np.int64)
    seen[by_group] = _ranks_within(rgroup[by_group])
    by_row = np.lexsort((rsub, row))
    return _Judgements(S=S, row=row[by_row], group=rgroup[by_row], seen=seen[by_row],
                       group_q=group_q, group_rel=group_rel, doc=doc, doc_group=group,
                       doc_q=dvals // width)


def _seg_last_max(score: np.ndarray, owner: np.ndarray, starts: np.ndarray,
                  nonempty: np.ndarray, Q: int) -> tuple[np.ndarray, np.ndarray]:
    """Per query (segments at ``starts``): the highest score and the last item holding it."""
    best = np.full(Q, -np.inf)
    last = np.full(Q, -1, dtype=np.int64)
    if len(starts):
        best[nonempty] = np.maximum.reduceat(score, starts)
        idx = np.where(score == best[owner], np.arange(len(score)), -1)
        last[nonempty] = np.maximum.reduceat(idx, starts)
    return best, last


def _ideal(r: Ranked, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ndeval's ideal ranking of each query: (query, step, score) of each scoring step.

    ndeval builds it greedily (``idealResult``): at each rank the judged document with
    the highest score given the documents already placed, a tie going to the greatest
    docno. Steps scoring 0 add nothing to any measure and are left out. One subtopic:
    the k-th relevant document scores (1 - alpha)^k.
    """
    key = ("diversity_ideal", r.rel_level, alpha)
    if key in r.memo:
        return r.memo[key]
    j = _judgements(r)
    Q = r.num_queries
    if j.doc is None:
        n = j.group_rel
        q = np.repeat(np.arange(Q), n)
        step = _ranks_within(q)
        score = libm.power_at(1.0 - alpha, step) if alpha < 1 else \
            (step == 0).astype(np.float64)
        out = (q, step, score)
    else:
        assert j.doc_group is not None and j.doc_q is not None
        D = len(j.doc_q)
        counts = np.bincount(j.doc_q, minlength=Q)
        nonempty = np.flatnonzero(counts)
        starts = (np.cumsum(counts) - counts)[nonempty]
        gain = np.ones(len(j.group_rel))
        alive = np.ones(D, dtype=bool)
        qs, steps, scores = [], [], []
        for t in range(int(counts.max()) if D else 0):      # one rank at a time, all queries
            s = np.bincount(j.doc, weights=gain[j.doc_group], minlength=D)
            s[~alive] = -1.0
            best, last = _seg_last_max(s, j.doc_q, starts, nonempty, Q)
            take = np.flatnonzero(best > 0)
            if not len(take):
                break
            picked = last[take]
            qs.append(take)
            steps.append(np.full(len(take), t))
            scores.append(s[picked])
            alive[picked] = False
            hit = np.zeros(D, dtype=bool)
            hit[picked] = True
            gain[j.doc_group[hit[j.doc]]] *= 1.0 - alpha
        if qs:
            q, step, score = np.concatenate(qs), np.concatenate(steps), np.concatenate(scores)
            o = np.lexsort((step, q))
            out = (q[o], step[o], score[o])
        else:
            out = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    r.memo[key] = out
    return out


def _row_scores(r: Ranked, alpha: float) -> np.ndarray:
    """(n,) each retrieved document's score: sum over its subtopics of (1 - alpha)^seen."""
    j = _judgements(r)
    gain = libm.power_at(1.0 - alpha, j.seen) if alpha < 1 else \
        (j.seen == 0).astype(np.float64)
    return np.bincount(j.row, weights=gain, minlength=len(r.rel))


def _discount(i: np.ndarray) -> np.ndarray:
    """ndeval's discount of 0-based rank i (a whole number): log 2 / log(i + 2)."""
    return math.log(2.0) / libm.log(np.asarray(i) + 2)


def _cumulated(q: np.ndarray, step: np.ndarray, value: np.ndarray, k: int, Q: int):
    """Per query, the sum of ``value`` over steps 0 .. k-1 (in step order)."""
    m = step < k
    return np.bincount(q[m], weights=value[m], minlength=Q)


def _ideal_ideal(S: np.ndarray, alpha: float, k: int, discount) -> np.ndarray:
    """ndeval's "ideal ideal" at depth k: S (1 - alpha)^i discounted, summed over i < k."""
    i = np.arange(k, dtype=np.float64)
    steps = np.empty((len(S), k))
    steps[:, 0] = S
    steps[:, 1:] = 1.0 - alpha
    gains = np.multiply.accumulate(steps, axis=1)           # as ndeval multiplies
    return np.cumsum(gains * discount(i), axis=1)[:, -1] if k else np.zeros(len(S))


def _params(p, name: str) -> Cut:
    """A cut-off measure's parameter (a cut-off, or an ir_measures name's :class:`Cut`)."""
    c = p if isinstance(p, Cut) else Cut(int(p), ir=False)
    if c.k > DEPTH:
        raise UsageError(f"{name}: ndeval computes cut-offs up to {DEPTH} (its DEPTH), "
                         f"not {c.k}")
    return c


def _floats(p, name: str, takes: int) -> Cut:
    """NRBP's and nNRBP's (alpha, beta), MAP-IA's nothing, or an ir_measures name's Cut."""
    if len(p) == 1 and isinstance(p[0], Cut):
        return p[0]
    if len(p) > takes or not all(0.0 <= float(v) <= 1.0 for v in p):
        what = "no parameters" if not takes else "alpha and beta from 0 to 1, e.g. NRBP.0.5,0.5"
        raise UsageError(f"{name} takes {what}")
    v = [float(x) for x in p]
    return Cut(0, v[0] if v else ALPHA, v[1] if len(v) > 1 else BETA, ir=False)


def _only_run(r: Ranked, values: np.ndarray) -> np.ndarray:
    """0 for a query -c adds (ndeval's -c scores a query without results 0)."""
    return np.where(np.asarray(r.in_run, dtype=bool), values, 0.0)


def _dcg_err(r: Ranked, c: Cut, which: str) -> tuple[np.ndarray, np.ndarray]:
    """ndeval's (run, ideal) values at depth k of alpha-DCG (``dcg``) or ERR-IA (``err``),
    each divided by the "ideal ideal" from depth 2 on (``computeDCG``, ``computeERR``)."""
    j = _judgements(r)
    Q, k = r.num_queries, c.k
    disc = _discount if which == "dcg" else (lambda i: 1.0 / (i + 1.0))
    rank0 = r.rank - 1
    run = _cumulated(r.qindex, rank0, _row_scores(r, c.alpha) * disc(rank0), k, Q)
    iq, istep, iscore = _ideal(r, c.alpha)
    ideal = _cumulated(iq, istep, iscore * disc(istep), k, Q)
    if k >= 2:
        ii = _ideal_ideal(j.S.astype(np.float64), c.alpha, k, disc)
        with np.errstate(divide="ignore", invalid="ignore"):
            run, ideal = run / ii, ideal / ii
    none = j.S == 0
    return np.where(none, 0.0, run), np.where(none, 0.0, ideal)


def _normalized(run: np.ndarray, ideal: np.ndarray, dcg_run: np.ndarray) -> np.ndarray:
    """ndeval's ``renormalize``: run / ideal where the run's alpha-DCG is not 0, else 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(dcg_run != 0, run / np.where(dcg_run != 0, ideal, 1.0), 0.0)


def _nrbp(r: Ranked, c: Cut) -> tuple[np.ndarray, np.ndarray]:
    j = _judgements(r)
    S = j.S.astype(np.float64)
    Q = r.num_queries
    decay = libm.power_at(c.beta, r.rank - 1)
    run = np.bincount(r.qindex, weights=_row_scores(r, c.alpha) * decay, minlength=Q)
    iq, istep, iscore = _ideal(r, c.alpha)
    ideal = np.bincount(iq, weights=iscore * libm.power_at(c.beta, istep),
                        minlength=Q)
    factor = 1.0 - (1.0 - c.alpha) * c.beta
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.where(S > 0, run * (factor / S), 0.0),
                np.where(S > 0, ideal * (factor / S), 0.0))


# =========================================================================== the measures

@measure("alpha-DCG", params="cutoffs", default=CUTOFFS, origin="ndeval")
def alpha_dcg(r: Ranked, k) -> np.ndarray:
    """ndeval's alpha-DCG@k: alpha-DCG over the first k, divided by the "ideal ideal" (k <= 20).

    Definition (ndeval's ``computeDCG``): the sum over ranks i < k (0-based) of the
    document's score (see the module) times log 2 / log(i + 2), divided, for k >= 2, by
    the same sum for a ranking whose i-th document scores S (1 - alpha)^i (every
    subtopic at every rank); at k = 1 ndeval leaves it undivided, so it can reach S.
    alpha = 0.5 (ndeval's default; ir_measures' ``alpha_DCG(alpha=a)@k`` sets it).
    ndeval computes cut-offs up to 20; a deeper one is refused. 0 for a query with
    S = 0 and, under ``-c``, for a query without results.
    """
    c = _params(k, "alpha-DCG")
    return _only_run(r, _dcg_err(r, c, "dcg")[0])


@measure("alpha-nDCG", params="cutoffs", default=CUTOFFS, origin="ndeval")
def alpha_ndcg(r: Ranked, k) -> np.ndarray:
    """ndeval's alpha-nDCG@k (Clarke et al. 2008): alpha-DCG@k over the ideal ranking's (k <= 20).

    Definition (ndeval's ``renormalize``): the run's alpha-DCG@k divided by that of
    ndeval's ideal ranking, built greedily from every judged document (``idealResult``:
    at each rank the document adding the most, ties to the greatest docno); 0 where the
    run's alpha-DCG@k is 0. alpha = 0.5 (ndeval's default; ir_measures'
    ``alpha_nDCG(alpha=a)@k`` sets it). Cut-offs up to 20, as ndeval.
    """
    c = _params(k, "alpha-nDCG")
    run, ideal = _dcg_err(r, c, "dcg")
    return _only_run(r, _normalized(run, ideal, run))


@measure("ERR-IA", params="cutoffs", default=CUTOFFS, origin="ndeval")
def err_ia(r: Ranked, k) -> np.ndarray:
    """ndeval's ERR-IA@k: intent-aware ERR, divided by the "ideal ideal" (k <= 20).

    Definition (ndeval's ``computeERR``): the sum over ranks i < k (0-based) of the
    document's score (see the module, alpha = 0.5) over i + 1, divided, for k >= 2, by
    the same sum for a ranking whose i-th document scores S (1 - alpha)^i; at k = 1
    ndeval leaves it undivided. Cut-offs up to 20, as ndeval.
    """
    c = _params(k, "ERR-IA")
    return _only_run(r, _dcg_err(r, c, "err")[0])


@measure("nERR-IA", params="cutoffs", default=CUTOFFS, origin="ndeval")
def nerr_ia(r: Ranked, k) -> np.ndarray:
    """ndeval's nERR-IA@k: ERR-IA@k over the ideal ranking's (k <= 20).

    Definition (ndeval's ``renormalize``): the run's ERR-IA@k divided by that of ndeval's
    greedy ideal ranking (see alpha-nDCG), 0 where the run's alpha-DCG@k is 0.
    """
    c = _params(k, "nERR-IA")
    run, ideal = _dcg_err(r, c, "err")
    dcg = _dcg_err(r, c, "dcg")[0]
    return _only_run(r, _normalized(run, ideal, dcg))


@measure("NRBP", params="floats", default=(), origin="ndeval")
def nrbp(r: Ranked, params: tuple) -> np.ndarray:
    """ndeval's NRBP (Clarke et al. 2009): novelty- and rank-biased precision over the whole list.

    Definition (ndeval's ``computeNRBP``): (1 - (1 - alpha) beta) / S times the sum over
    every rank i (0-based) of the document's score times beta^i. Parameters: alpha and
    beta (``NRBP.0.5,0.5``, ndeval's -alpha and -beta; both 0.5 by default). 0 for a
    query with S = 0.
    """
    c = _floats(params, "NRBP", 2)
    return _only_run(r, _nrbp(r, c)[0])


@measure("nNRBP", params="floats", default=(), origin="ndeval")
def nnrbp(r: Ranked, params: tuple) -> np.ndarray:
    """ndeval's nNRBP: NRBP over the ideal ranking's NRBP.

    Definition (ndeval's ``renormalize``): the run's NRBP divided by that of ndeval's
    greedy ideal ranking of every judged document. A query with S = 0 (or alpha = 0 and
    beta = 1) is 0/0: NaN, as ndeval prints it; under ``-c`` a query without results
    is 0. Parameters as NRBP's.
    """
    c = _floats(params, "nNRBP", 2)
    run, ideal = _nrbp(r, c)
    return _only_run(r, libm.divide(run, ideal))


@measure("MAP-IA", params="floats", default=(), origin="ndeval")
def map_ia(r: Ranked, params: tuple) -> np.ndarray:
    """ndeval's MAP-IA: average precision per subtopic, averaged over the S subtopics.

    Definition (ndeval's ``computeMAP``): for each subtopic with relevant documents, the
    sum over its relevant retrieved documents of (how many of them at or above) / rank,
    over its number of relevant documents; the mean of these over the S subtopics. 0 for
    a query with S = 0. No parameters.
    """
    _floats(params, "MAP-IA", 0)
    j = _judgements(r)
    term = (j.seen + 1) / r.rank[j.row]
    per_group = np.bincount(j.group, weights=term, minlength=len(j.group_rel))
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(j.group_rel > 0, per_group / np.maximum(j.group_rel, 1), 0.0)
        total = np.bincount(j.group_q, weights=ap, minlength=r.num_queries)
        return _only_run(r, np.where(j.S > 0, total / np.maximum(j.S, 1), 0.0))


@measure("P-IA", params="cutoffs", default=CUTOFFS, origin="ndeval")
def p_ia(r: Ranked, k) -> np.ndarray:
    """ndeval's P-IA@k: intent-aware precision, (subtopic judgements in the first k) / (k S).

    Definition (ndeval's ``computePrecision``): the number of (document, subtopic) pairs
    judged relevant among the first k documents, over k times S (a short list is not
    padded out: k stays the denominator). 0 for a query with S = 0. Cut-offs up to 20.
    """
    c = _params(k, "P-IA")
    j = _judgements(r)
    inside = r.rank[j.row] <= c.k
    count = np.bincount(r.qindex[j.row[inside]], minlength=r.num_queries)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _only_run(r, np.where(j.S > 0, count / (c.k * np.maximum(j.S, 1)), 0.0))


@measure("strec", params="cutoffs", default=CUTOFFS, origin="ndeval")
def strec(r: Ranked, k) -> np.ndarray:
    """ndeval's strec@k: subtopic recall, the share of the S subtopics covered in the first k.

    Definition (ndeval's ``computeSTRecall``): the number of subtopics with a relevant
    document among the first k, over S. 0 for a query with S = 0. Cut-offs up to 20.
    """
    c = _params(k, "strec")
    j = _judgements(r)
    first = (j.seen == 0) & (r.rank[j.row] <= c.k)
    count = np.bincount(r.qindex[j.row[first]], minlength=r.num_queries)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _only_run(r, np.where(j.S > 0, count / np.maximum(j.S, 1), 0.0))


def risk_sensitive(run: np.ndarray, baseline: np.ndarray, risk_alpha: float = 0.0) -> np.ndarray:
    """ndeval's risk-sensitive value of each query against a baseline run (``-baseline``).

    ``RiskBased`` in ndeval: the difference run - baseline where the run is at least as
    good, else (1 + risk_alpha) times it (``-riskAlpha``, 0 or more). Both arrays hold
    the same measure for the same queries; a query one of the two runs lacks counts 0
    for it, as ndeval counts it. The summary is the mean over the queries of either run
    (ndeval's union of the two), or over the qrels under ``-c``.
    """
    if risk_alpha < 0:
        raise UsageError("the risk sensitivity takes a number of 0 or more")
    d = np.asarray(run, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)
    return np.where(d >= 0, d, (risk_alpha + 1.0) * d)


__all__ = ["ALPHA", "BETA", "CUTOFFS", "DEPTH", "Cut", "risk_sensitive",
           "with_subtopics"]
