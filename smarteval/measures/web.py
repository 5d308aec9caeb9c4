"""Graded measures of the TREC Web track (gdeval), ranx's DCG family, ir_measures' SDCG,
Accuracy and Compat.

Each computes what its reference program computes (named in the docstring). The DCG
measures touch only the retrieved rows with a non-zero gain within the cut-off, as
:func:`smarteval.measures.gains.sparse_dcg_terms` does: adding 0 changes no sum and
multiplying by 1 no product, so the values are those of the programs' loops over every
rank, added and multiplied in the same order.

The order of documents. Each measure reads the ranking in its reference program's order
(:data:`smarteval.ranking.programs.PROGRAMS`, named in its registry entry): gdeval sorts
by score as a double, then docno descending; ir_measures' SDCG and Accuracy providers by
score as a double, equal scores in the run's line order; Compat's by score as a double,
then docno ascending. ranx orders documents by score (a double) with a sort that does not
keep the order of tied documents, so its values on tied scores are not reproducible;
smarteval puts them docno descending, which gives ranx's values on runs without ties.
"""

from __future__ import annotations

import numpy as np

from smarteval import libm
from smarteval.columns import NONPOOL, Ranked
from smarteval.errors import UsageError
from smarteval.measures.gains import log2_table
from smarteval.measures.registry import measure
from smarteval.measures.segments import safe_div, seg_exclusive_cumprod, seg_sum

#: gdeval's MAX_JUDGMENT: the highest grade it reads, and ERR's denominator 2^4.
GDEVAL_MAX_GRADE = 4

#: How many ranks cwl_eval reads (ir_measures' SDCG): its rankings are this long.
CWL_DEPTH = 1000


# =========================================================================== shared pieces

def _check_gdeval_grades(r: Ranked, name: str) -> None:
    """gdeval stops on a qrels grade above 4: so does a measure that gives its numbers."""
    top = max(int(r.qrel_grades.max()) if len(r.qrel_grades) else 0,
              int(r.rel.max()) if len(r.rel) else 0)
    if top > GDEVAL_MAX_GRADE:
        raise UsageError(
            f"{name}: gdeval reads grades up to {GDEVAL_MAX_GRADE} and refuses qrels with "
            f"a higher one (here {top}), so it has no value for them; ranx's names "
            "(ndcg_burges@k) take any grade")


def _ln_table(n: int) -> np.ndarray:
    """ln(i) for i = 0 .. n from the C library (:func:`smarteval.libm.log`), as perl's log
    (ln(0) given as 0, unused)."""
    out = libm.log(np.arange(n + 1))
    out[0] = 0.0
    return out


def _gain_rows(r: Ranked, k: int, level: int):
    """The retrieved rows graded ``level`` or above within the first k (all when k <= 0):
    their grades, 1-based ranks and per-query offsets (rank order within each query)."""
    rows = np.flatnonzero(r.rel >= level)
    grades = r.rel[rows]
    q = np.searchsorted(r.offsets, rows, side="right") - 1     # no query column of every row
    rank = rows - r.offsets[q] + 1
    if k > 0:
        keep = rank <= k
        grades, q, rank = grades[keep], q[keep], rank[keep]
    offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=r.num_queries), out=offsets[1:])
    return grades, rank, offsets


def _ideal_grades(r: Ranked, k: int, level: int):
    """Each query's judged grades of ``level`` or above, largest first, the first k (all
    when k <= 0): the grades, their 1-based positions and per-query offsets."""
    g = r.qrel_grades
    pos = np.arange(len(g), dtype=np.int64) - r.qrel_offsets[:-1][r.qrel_qindex] + 1
    keep = g >= level
    if k > 0:
        keep &= pos <= k
    q = r.qrel_qindex[keep]
    offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=r.num_queries), out=offsets[1:])
    return g[keep], pos[keep], offsets


def _exp_gain(grades: np.ndarray) -> np.ndarray:
    """2^g - 1 (exact for the grades a qrels file holds)."""
    return libm.power_at(2.0, grades) - 1.0


def _discounted(gain: np.ndarray, rank: np.ndarray, offsets: np.ndarray, log) -> np.ndarray:
    """Per query, the sum in rank order of gain / log(rank + 1)."""
    if len(rank) == 0:
        return np.zeros(len(offsets) - 1)
    return seg_sum(gain / log(int(rank.max()) + 1)[rank + 1], offsets)


# =========================================================================== gdeval

@measure("gd_ndcg", params="cutoffs", default=(20,), origin="ir", program="gdeval")
def gd_ndcg(r: Ranked, k: int) -> np.ndarray:
    """nDCG@k of the TREC Web track: gains 2^grade - 1, log discount, gdeval's numbers
    (nDCG(dcg='exp-log2')@k).

    gdeval.pl (TREC Web 2010-2014; ir_measures ships it as bin/gdeval.pl and computes
    ``nDCG(dcg='exp-log2')@k`` with it): DCG@k = sum over the first k ranks of
    (2^g - 1) / log(rank + 1), g the document's grade (0 for a grade of 0 or less, or a
    document the qrels lack); divided by the same sum over the query's positive grades,
    largest first (the ideal ranking, whatever the run retrieved). The base of the
    logarithm cancels; the terms are gdeval's natural-log ones, added in rank order.

    Edge cases, as gdeval: a query without a positive grade is 0 (gdeval prints nothing
    for it and ir_measures counts 0); a grade above 4 anywhere in the evaluated qrels is
    refused (gdeval stops on it); ties are ordered as gdeval orders them (score as a
    double, then docno descending: see the module's notes). gdeval prints five decimals;
    smarteval keeps the unrounded value, the very double gdeval computes before it
    prints. The relevance level (-l) plays no part. The default depth 20 is the Web
    track's. gdeval reads only numeric topic ids (after dropping a prefix up to a
    "-"); smarteval evaluates any id, each on its own.
    """
    _check_gdeval_grades(r, "gd_ndcg (nDCG(dcg='exp-log2')@k)")
    g, rank, off = _gain_rows(r, k, 1)
    dcg = _discounted(_exp_gain(g), rank, off, _ln_table)
    ig, ipos, ioff = _ideal_grades(r, k, 1)
    ideal = _discounted(_exp_gain(ig), ipos, ioff, _ln_table)
    return safe_div(dcg, ideal)


@measure("gd_err", params="cutoffs", default=(20,), origin="ir", program="gdeval")
def gd_err(r: Ranked, k: int) -> np.ndarray:
    """Expected reciprocal rank at k (Chapelle et al. 2009), gdeval's numbers
    (ir_measures' ERR@k).

    gdeval.pl (TREC Web 2010-2014, the ERR@k ir_measures computes with it): a document
    of grade g stops the user with probability R = (2^g - 1) / 2^4, 4 being gdeval's
    highest grade whatever the qrels hold (a grade of 0 or less, or a document the
    qrels lack, gives 0); ERR@k = sum over the first k ranks of R_i / i times the
    product of (1 - R_j) over the ranks j above i, computed in gdeval's order of
    operations.

    Edge cases, as gdeval: a query without a positive grade in the qrels is 0 (gdeval
    prints nothing for it, ir_measures counts 0); a grade above 4 is refused (gdeval
    stops on it); ties are ordered as gdeval orders them (score as a double, then docno
    descending). gdeval prints five decimals; smarteval keeps the unrounded value, the
    very double gdeval computes before it prints. The relevance level (-l) plays no
    part. ERR has no ideal ranking: it is not normalised.
    """
    _check_gdeval_grades(r, "gd_err (ERR@k)")
    g, rank, off = _gain_rows(r, k, 1)
    stop = _exp_gain(g) / float(2 ** GDEVAL_MAX_GRADE)
    decay = seg_exclusive_cumprod(1.0 - stop, off)
    values = seg_sum(stop * decay / rank, off)
    has_positive = np.zeros(r.num_queries, dtype=bool)
    judged = r.num_judged > 0
    has_positive[judged] = r.qrel_grades[r.qrel_offsets[:-1][judged]] > 0
    return np.where(has_positive, values, 0.0)


# =========================================================================== ranx

def _ranx_dcg(r: Ranked, k: int, exponential: bool) -> np.ndarray:
    g, rank, off = _gain_rows(r, k, r.rel_level)
    gain = _exp_gain(g) if exponential else g.astype(np.float64)
    return _discounted(gain, rank, off, log2_table)


def _ranx_ndcg(r: Ranked, k: int, exponential: bool) -> np.ndarray:
    dcg = _ranx_dcg(r, k, exponential)
    ig, ipos, ioff = _ideal_grades(r, k, r.rel_level)
    gain = _exp_gain(ig) if exponential else ig.astype(np.float64)
    return safe_div(dcg, _discounted(gain, ipos, ioff, log2_table))


_RANX_EDGES = """
    As ranx 0.3 computes it (ranx/metrics/{file}): only documents graded at or above
    the relevance level (-l; 1 for the ranx name) gain; k = 0 (the ranx name without
    @k) reads the whole list. ranx compares scores as doubles and orders tied scores
    arbitrarily (its sort is not stable); smarteval takes them docno descending (or in
    the --ties order), so the two agree on runs without ties.
"""


@measure("ranx_dcg", params="cutoffs", default=(10,), origin="ir", program="ranx")
def ranx_dcg(r: Ranked, k: int) -> np.ndarray:
    """DCG@k with the grade as gain and log2(rank + 1) as discount (ranx's dcg@k).

    Sum over the first k ranks of g / log2(rank + 1). Unlike trec_eval's dcg, grades
    below the relevance level gain nothing.
    """
    return _ranx_dcg(r, k, False)


@measure("ranx_dcg_burges", params="cutoffs", default=(10,), origin="ir", program="ranx")
def ranx_dcg_burges(r: Ranked, k: int) -> np.ndarray:
    """DCG@k with gains 2^grade - 1 and log2(rank + 1) as discount (ranx's dcg_burges@k).

    Sum over the first k ranks of (2^g - 1) / log2(rank + 1) (Burges et al. 2005).
    """
    return _ranx_dcg(r, k, True)


@measure("ranx_ndcg_burges", params="cutoffs", default=(10,), origin="ir", program="ranx")
def ranx_ndcg_burges(r: Ranked, k: int) -> np.ndarray:
    """nDCG@k with gains 2^grade - 1 (ranx's ndcg_burges@k).

    ranx_dcg_burges divided by the same sum over the query's judged grades at or above
    the relevance level, largest first, the first k; 0 when that is 0. On grades up to 4
    and without ties it equals gd_ndcg (gdeval), which also refuses higher grades.
    """
    return _ranx_ndcg(r, k, True)


@measure("ranx_hits", params="cutoffs", default=(10,), origin="ir", program="ranx")
def ranx_hits(r: Ranked, k: int) -> np.ndarray:
    """Relevant documents among the first k retrieved (ranx's hits@k).

    A count per query, averaged as ranx averages it (the mean over queries); trec_eval's
    P@k times k, except that k = 0 counts the whole list.
    """
    _, _, off = _gain_rows(r, k, r.rel_level)
    return np.diff(off).astype(np.float64)


@measure("ranx_hit_rate", params="cutoffs", default=(10,), origin="ir", program="ranx")
def ranx_hit_rate(r: Ranked, k: int) -> np.ndarray:
    """1 if a relevant document is among the first k retrieved, else 0 (ranx's hit_rate@k).

    trec_eval's success@k, except that k = 0 reads the whole list.
    """
    _, _, off = _gain_rows(r, k, r.rel_level)
    return (np.diff(off) > 0).astype(np.float64)


for _f, _file in ((ranx_dcg, "ndcg.py"), (ranx_dcg_burges, "ndcg.py"),
                  (ranx_ndcg_burges, "ndcg.py"), (ranx_hits, "hits.py"),
                  (ranx_hit_rate, "hit_rate.py")):
    _f.__doc__ = (_f.__doc__ or "") + _RANX_EDGES.format(file=_file)


# =========================================================================== ir_measures

def _sdcg_params(params: tuple) -> tuple[int, float, float]:
    if len(params) not in (2, 3):
        raise UsageError("sdcg takes k, max_rel and optionally min_rel, e.g. sdcg.10,3")
    k, hi = int(params[0]), float(params[1])
    lo = float(params[2]) if len(params) > 2 else 0.0
    if k <= 0 or not lo < hi:
        raise UsageError("sdcg takes a cut-off above 0 and min_rel below max_rel")
    return k, hi, lo


@measure("sdcg", params="floats", default=(10, 4, 0), origin="ir",
         program="ir_measures.cwl_eval")
def sdcg(r: Ranked, params: tuple) -> np.ndarray:
    """Scaled DCG@k: DCG of grades scaled to [0, 1], over the DCG of k fully relevant
    documents (SDCG@k).

    What ir_measures computes for ``SDCG(max_rel=M, min_rel=m)@k`` with its cwl_eval
    provider (cwl/ruler/measures/cwl_dcg.py, NDCGCWLMetric): a document's gain is its
    grade (0 for a negative one) clipped to [m, M] and scaled to (g - m) / (M - m), 0 for
    a document the qrels lack; SDCG@k = sum over the first k ranks of gain /
    log2(rank + 1), divided by the sum of 1 / log2(rank + 1) over the same ranks: the
    ideal assumes k documents of grade M exist, whatever the qrels hold. cwl_eval reads
    the first 1000 ranks, so k above 1000 is 1000. Parameters: k, M, m (default 0).
    The provider sorts by score as a double and keeps the run's order of equal scores,
    as smarteval does for this measure. The relevance level (-l) plays no part.
    """
    k, hi, lo = _sdcg_params(params)
    depth = min(k, CWL_DEPTH)
    grade = np.maximum(r.rel, 0).astype(np.float64)
    gain = (np.clip(grade, lo, hi) - lo) / (hi - lo)
    gain[r.rel == NONPOOL] = 0.0
    rows = np.flatnonzero((gain != 0) & (r.rank <= depth))
    log2 = log2_table(depth + 1)
    q = r.qindex[rows]
    off = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=r.num_queries), out=off[1:])
    dcg = seg_sum(gain[rows] / log2[r.rank[rows] + 1], off)
    norm = float(np.sum(1.0 / log2[2:depth + 2]))
    return dcg / norm


@measure("pair_accuracy", params="cutoffs", default=(10,), origin="ir", average="reported",
         program="accuracy")
def pair_accuracy(r: Ranked, k: int) -> np.ndarray:
    """Share of (relevant, non-relevant) pairs among the first k ranked the right way round
    (Accuracy@k).

    What ir_measures computes for ``Accuracy(rel=r)@k`` with its accuracy provider
    (ir_measures/providers/accuracy_provider.py): among the first k retrieved documents
    (all of them for ``Accuracy``, k = 0 in the library), a document is relevant when
    its grade is the level or more, a document the qrels lack counting as grade 0; the
    value is 1 - (non-relevant documents above each relevant one, summed) / (non-relevant
    documents x relevant documents). A query without a relevant document among them (or
    without results) has no value: the provider reports none, so it is not printed for
    the query and the mean is over the queries that have one, as ir_measures averages
    (NaN when none has). When none is non-relevant the provider divides by zero and
    stops; smarteval gives 1 (no pair is out of order). The provider sorts by score as a
    double and keeps the run's order of equal scores, as smarteval does for this measure.
    """
    grade = np.where(r.rel == NONPOOL, 0, r.rel)
    top = r.rank <= k if k > 0 else np.ones(len(grade), dtype=bool)
    rel = top & (grade >= r.rel_level)
    nonrel = top & ~rel
    cum = np.zeros(len(grade) + 1, dtype=np.int64)
    np.cumsum(nonrel, out=cum[1:])
    rows = np.flatnonzero(rel)
    above = cum[rows] - cum[r.offsets[:-1][r.qindex[rows]]]
    n_rel = np.bincount(r.qindex[rows], minlength=r.num_queries)
    n_nonrel = cum[r.offsets[1:]] - cum[r.offsets[:-1]]
    sum_above = np.bincount(r.qindex[rows], weights=above, minlength=r.num_queries)
    pairs = (n_nonrel * n_rel).astype(np.float64)
    out = np.where(n_rel > 0, 1.0, np.nan)
    return np.where(pairs > 0, 1.0 - safe_div(sum_above, pairs), out)


# =========================================================================== Compat

def _compat_params(params: tuple) -> tuple[float, bool]:
    if len(params) not in (1, 2):
        raise UsageError("compat takes p and optionally normalize (1 or 0), e.g. compat.0.95,1")
    p = float(params[0])
    normalize = float(params[1]) if len(params) > 1 else 1.0
    if not 0.0 <= p <= 1.0 or normalize not in (0.0, 1.0):
        raise UsageError("compat takes a persistence p from 0 to 1 and normalize 1 or 0")
    return p, normalize == 1.0


def _compat_depths(r: Ranked) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What Compat needs of a ranking, whatever p: for each document graded above 0 that
    the run retrieved, its query and the depth from which it is in both the ranking and
    the ideal ranking (max of its two 0-based positions); per query, the documents graded
    above 0 (R) and the depth of the overlap, max(retrieved, R)."""
    if "compat_depths" in r.memo:
        return r.memo["compat_depths"]
    if r.qrel_lines is None or r.qrel_docnos is None:
        raise UsageError("compat needs the qrels' docnos and line numbers, which this "
                         "ranking does not carry (a residual collection loses them)")
    o = r
    rows = np.flatnonzero(o.rel > 0)
    judged = np.flatnonzero(r.qrel_grades > 0)
    jq = r.qrel_qindex[judged]
    jd = r.qrel_docnos[judged]
    # (query, docno) keys shared by the judged documents and the retrieved rows
    _, inv = np.unique(np.concatenate((jd, o.docno[rows])), return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    nv = int(inv.max()) + 1 if len(inv) else 1
    jkey = jq * nv + inv[:len(judged)]
    rkey = o.qindex[rows] * nv + inv[len(judged):]
    by_key = np.argsort(jkey)
    at = by_key[np.searchsorted(jkey[by_key], rkey)] if len(rows) else rkey
    score = np.zeros(len(judged))
    score[at] = o.score[rows]
    retrieved_at = np.full(len(judged), -1, dtype=np.int64)
    retrieved_at[at] = o.rank[rows] - 1
    # the ideal ranking: grade descending, then the run's score (0 for a document it
    # lacks), then the qrels' line order
    ideal = np.lexsort((r.qrel_lines[judged], -score, -r.qrel_grades[judged], jq))
    R = np.bincount(jq, minlength=r.num_queries).astype(np.int64)
    starts = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(R, out=starts[1:])
    position = np.empty(len(judged), dtype=np.int64)
    position[ideal] = np.arange(len(judged)) - starts[jq[ideal]]
    hit = retrieved_at >= 0
    both = np.maximum(position[hit], retrieved_at[hit])
    depth = np.maximum(r.num_ret, R)
    out = (jq[hit], both, R, depth)
    r.memo["compat_depths"] = out
    return out


@measure("compat", params="floats", default=(0.95, 1.0), origin="ir", program="compat")
def compat(r: Ranked, params: tuple) -> np.ndarray:
    """Compatibility: rank-biased overlap with an ideal ranking of the positive grades
    (ir_measures' Compat).

    Clarke, Vtyurina and Smucker 2021, as ir_measures' compat provider computes it
    (ir_measures/providers/compat_provider.py): with persistence p and depth D =
    max(documents retrieved, documents graded above 0), RBO = sum over i = 1 .. D of
    p^(i-1) |ranking[:i] & ideal[:i]| / i, divided by sum of p^(i-1); normalised (the
    default), divided by the ideal ranking's own RBO. The ranking is score (as a double)
    descending, then docno ascending; the ideal ranking holds every document graded
    above 0, by grade descending, then the run's score (0 for a document it did not
    retrieve, so before one it retrieved with a negative score), then the qrels' line
    order. Parameters: p (default 0.95, from 0 to 1) and normalize (1, the default, or 0).

    Edge cases, as the provider: a query without a document graded above 0 is 0;
    a query without results is 0 (ir_measures leaves it out and counts 0). The relevance
    level (-l) plays no part. The value depends on the qrels' line order where the ideal
    ranking ties. Under --ties random the run's tied documents stay as drawn.
    """
    p, normalize = _compat_params(params)
    q, both, R, depth = _compat_depths(r)
    longest = int(depth.max()) if len(depth) else 0
    weight = np.cumprod(np.concatenate(([1.0], np.full(max(longest - 1, 0), p))))[:longest]
    total = np.zeros(longest + 1)
    np.cumsum(weight, out=total[1:])               # sum of the first n weights
    # sum of the first n terms weight / (i + 1): sums from the first term, so that a
    # query's value owes nothing to the depth of the others
    head = np.zeros(longest + 1)
    np.cumsum(weight / np.arange(1, longest + 1), out=head[1:])
    overlap = np.bincount(q, weights=head[depth[q]] - head[both], minlength=r.num_queries)
    if normalize:
        best = total[R] + R * (head[depth] - head[R])
        return safe_div(overlap, best)
    return safe_div(overlap, total[depth])


__all__ = ["CWL_DEPTH", "GDEVAL_MAX_GRADE"]
