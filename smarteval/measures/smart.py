"""The SMART measures (Keen, Rocchio, Joiner & Werner, Cooper, IIR), each vectorised over all queries.

Notation in the docstrings: R relevant documents of the query (grade at or above -l),
r_i their ranks, N the documents in the collection (-N), L the documents retrieved, a
(or a_k) the relevant documents among them (among the first k), m = R - a the relevant
documents the run never retrieved.

Shared rules, stated once here and in each docstring where they matter:

* A cut-off measure (``name.k``) counts ranks past the end of a short list as
  non-relevant documents, as trec_eval's ``P_k`` does; k is capped at N.
* A measure over the ranks of *all* relevant documents places the m unretrieved ones
  with ``--unranked``: ``expected`` (default) as a uniform random placement among ranks
  L+1..N would in expectation, ``worst`` at ranks N-m+1..N. N < L + m is an input error.
* A query with no relevant documents scores 0 on every measure that divides by R.
* ``--ties average`` takes the exact mean over every order of each group of tied scores
  where the measure is linear in the ranks (see :mod:`smarteval.measures.tied`); the
  others refuse.
"""

from __future__ import annotations

import numpy as np

from smarteval.columns import Ranked, segment_sum
from smarteval.errors import InputError, UsageError
from smarteval.measures.segments import prefix, safe_div
from smarteval.measures.tied import Exact, Expected, tie_groups
from smarteval.registry import measure

#: Document cut-offs of the cut-off measures (trec_eval's P cut-offs).
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: Keen Fig. 30 and Joiner & Werner read the first few documents.
SHORT_CUTOFFS = (1, 2, 3, 4, 5, 10, 20, 30)
#: Relevant documents a high-precision user wants (Keen part 7: "one, two, or three").
WANTED = (1, 2, 3)
#: Consecutive non-relevant documents that end Rocchio's search.
CNR = (1, 2, 3, 5, 10)
UNRANKED = ("expected", "worst")


# --------------------------------------------------------------------------- shared pieces

def num_docs(r: Ranked, name: str) -> np.ndarray:
    """(Q,) collection size of every query: N, less what a residual collection removed."""
    per_q = r.num_docs_q
    if per_q is not None:
        return np.asarray(per_q, dtype=np.int64)
    if r.num_docs is None:
        raise UsageError(f"{name} needs the number of documents in the collection: "
                         "give -N/--num-docs")
    return np.full(r.num_queries, int(r.num_docs), dtype=np.int64)


def unranked(r: Ranked, name: str):
    """N, L and m of every query, checking that the m unretrieved relevant documents fit."""
    n = num_docs(r, name)
    L = r.num_ret.astype(np.int64)
    m = (r.num_rel - r.num_rel_ret).astype(np.int64)
    bad = n < L + m
    if bad.any():
        q = int(np.flatnonzero(bad)[0])
        raise InputError(
            "-N/--num-docs", None,
            f"collection of {int(n[q])} documents is smaller than query {r.qids[q]}'s "
            f"{int(L[q])} retrieved plus {int(m[q])} unretrieved relevant documents",
            expected="N at least the retrieved plus the unretrieved relevant documents "
                     "of every query")
    how = r.settings.unranked
    if how not in UNRANKED:
        raise UsageError(f"--unranked must be one of {', '.join(UNRANKED)}, not {how!r}")
    return n, L, m


def unranked_rank_sum(r: Ranked, name: str) -> np.ndarray:
    """(Q,) sum of the ranks given to the unretrieved relevant documents."""
    n, L, m = unranked(r, name)
    n, L, m = n.astype(np.float64), L.astype(np.float64), m.astype(np.float64)
    if r.settings.unranked == "worst":
        return m * (2 * n - m + 1) / 2          # ranks N-m+1 .. N
    return m * (L + 1 + n) / 2                  # m times the mean of L+1 .. N


def unranked_log_sum(r: Ranked, name: str) -> np.ndarray:
    """(Q,) sum of the natural logs of the ranks given to the unretrieved relevant documents."""
    from scipy.special import gammaln
    n, L, m = unranked(r, name)
    n, L, m = n.astype(np.float64), L.astype(np.float64), m.astype(np.float64)
    if r.settings.unranked == "worst":
        return gammaln(n + 1) - gammaln(n - m + 1)
    # m times the mean of ln(L+1) .. ln(N); no unretrieved document when N == L
    return safe_div(m * (gammaln(n + 1) - gammaln(L + 1)), n - L)


def rel_rank(r: Ranked, o: Exact, j: np.ndarray, name: str) -> np.ndarray:
    """(Q,) rank of the j[q]-th relevant document; unretrieved ones placed by --unranked.

    0 where the query has fewer than j relevant documents. The j-th of m documents placed
    at random among L+1..N has mean rank L + j(N-L+1)/(m+1).
    """
    j = np.asarray(j, dtype=np.int64)
    R = r.num_rel
    a = r.num_rel_ret
    out = o.rel_rank(j)
    need = (j > a) & (j <= R) & (j > 0)
    if need.any():
        if r.num_docs is None and r.num_docs_q is None:
            q = int(np.flatnonzero(need)[0])
            raise UsageError(
                f"{name} needs -N/--num-docs: query {r.qids[q]} has relevant documents "
                "the run did not retrieve, and their ranks depend on the collection size")
        n, L, m = unranked(r, name)
        jj = (j - a).astype(np.float64)
        if r.settings.unranked == "worst":
            placed = n - m + jj
        else:
            placed = L + jj * (n - L + 1.0) / (m + 1.0)
        out = np.where(need, placed, out)
    return np.where((j > 0) & (j <= R), out, 0.0)


def relevant_gains(r: Ranked, pairs: tuple = ()):
    """Gains of the retrieved rows and of the relevant qrels, from their grades.

    A relevant document's gain is its grade unless a ``grade=gain`` pair names the grade;
    non-relevant documents gain 0. Returns (row gains, qrels gains, qrels relevant mask).
    """
    def gains_of(levels: np.ndarray) -> np.ndarray:
        g = levels.astype(np.float64)
        for level, gain in pairs:
            g = np.where(levels == level, float(gain), g)
        return g
    row = np.where(r.is_rel, gains_of(r.rel), 0.0)
    qrel_rel = r.qrel_grades >= r.rel_level
    qg = np.where(qrel_rel, gains_of(r.qrel_grades), 0.0)
    return row, qg, qrel_rel


def ideal_prefix(r: Ranked, qgain: np.ndarray, k) -> np.ndarray:
    """(Q,) sum of the k largest relevant gains of each query (the ideal ranking's top k)."""
    order = np.lexsort((-qgain, r.qrel_qindex))
    p = prefix(qgain[order])
    start = r.qrel_offsets[:-1]
    k = np.minimum(np.maximum(np.asarray(k, dtype=np.int64), 0), r.num_judged)
    return p[start + k] - p[start]


def _with_order(impl):
    """The ``--ties average`` twin of a measure written over an order."""
    def tied(r: Ranked, *param):
        return impl(r, *param, o=Expected(r))
    tied.__name__ = impl.__name__ + "_tied"
    return tied


# =========================================================================== normalized measures

def _norm_recall(r: Ranked, o: Exact) -> np.ndarray:
    n = num_docs(r, "norm_recall").astype(np.float64)
    R = r.num_rel.astype(np.float64)
    s = segment_sum(np.where(r.is_rel, o.rank(), 0.0), r.offsets) + \
        unranked_rank_sum(r, "norm_recall")
    ideal = R * (R + 1) / 2
    den = R * (n - R)
    val = 1.0 - safe_div(s - ideal, den)
    return np.where(R == 0, 0.0, np.where(den == 0, 1.0, val))


@measure("norm_recall", family="smart", needs_num_docs=True, ties=_with_order(_norm_recall))
def norm_recall(r: Ranked) -> np.ndarray:
    """Normalized recall (SMART NOR REC): 1 - (Σr_i - Σi) / (R(N-R)).

    Σi = R(R+1)/2 is the ideal sum of ranks. Cut-off independent; weighs every rank
    position alike. Needs N; unretrieved relevant documents are placed by --unranked.
    R = 0 gives 0; R = N (every document relevant, any order is perfect) gives 1.
    --ties average: exact (linear in the ranks).
    Keen Fig. 3 (ranks 1,2,4,6,13, N=200): 0.9887. Fig. 9 (N=82): ranks 1,3,14,17,18
    give .9013, 1,2,3,18,23 .9169, 1,15 .9188, 2,3 .9875.
    """
    return _norm_recall(r, Exact(r))


def _norm_prec(r: Ranked, o: Exact) -> np.ndarray:
    from scipy.special import gammaln
    n = num_docs(r, "norm_prec").astype(np.float64)
    R = r.num_rel.astype(np.float64)
    s = segment_sum(np.where(r.is_rel, o.log_rank(), 0.0), r.offsets) + \
        unranked_log_sum(r, "norm_prec")
    ideal = gammaln(R + 1)
    den = gammaln(n + 1) - gammaln(R + 1) - gammaln(n - R + 1)     # ln C(N, R)
    val = 1.0 - safe_div(s - ideal, den)
    return np.where(R == 0, 0.0, np.where(den <= 0, 1.0, val))


@measure("norm_prec", family="smart", needs_num_docs=True, ties=_with_order(_norm_prec))
def norm_prec(r: Ranked) -> np.ndarray:
    """Normalized precision (SMART NOR PRE): 1 - (Σln r_i - Σln i) / ln C(N,R).

    Gives more weight than norm_recall to the top of the ranking. Needs N; unretrieved
    relevant documents are placed by --unranked (expected: Σ ln r over them is
    m(lnΓ(N+1) - lnΓ(L+1))/(N-L)). R = 0 gives 0, R = N gives 1. The base of the
    logarithm cancels. --ties average: exact (linear in the log ranks).
    Keen Fig. 3 (ranks 1,2,4,6,13, N=200): 0.9238. Fig. 9 (N=82): ranks 1,3,14,17,18
    give .7270, 1,2,3,18,23 .8230, 1,15 .7515, 2,3 .8645.
    """
    return _norm_prec(r, Exact(r))


def _rank_sums(r: Ranked, name: str):
    R = r.num_rel.astype(np.float64)
    s = segment_sum(np.where(r.is_rel, r.rank, 0), r.offsets) + unranked_rank_sum(r, name)
    return R * (R + 1) / 2, s


def _log_sums(r: Ranked, name: str):
    from scipy.special import gammaln
    R = r.num_rel.astype(np.float64)
    s = segment_sum(np.where(r.is_rel, np.log(np.maximum(r.rank, 1)), 0.0), r.offsets) + \
        unranked_log_sum(r, name)
    return gammaln(R + 1), s


@measure("rank_recall", family="smart", needs_num_docs=True,
         micro=lambda r: _rank_sums(r, "rank_recall"))
def rank_recall(r: Ranked) -> np.ndarray:
    """Rank recall (SMART RNK REC): Σi / Σr_i, the ideal over the actual sum of ranks.

    Needs N (unretrieved relevant documents are placed by --unranked). R = 0 gives 0.
    Micro average: ΣΣi / ΣΣr_i over all queries. --ties average refuses: the mean of a
    ratio has no closed form. A single relevant document at rank 1 gives 1; ranks
    1,2,4,6,13 give 15/26 = .5769.
    """
    ideal, s = _rank_sums(r, "rank_recall")
    return np.where(r.num_rel == 0, 0.0, safe_div(ideal, s))


@measure("log_prec", family="smart", needs_num_docs=True,
         micro=lambda r: _log_sums(r, "log_prec"))
def log_prec(r: Ranked) -> np.ndarray:
    """Log precision (SMART LOG PRE): Σln i / Σln r_i.

    Needs N (unretrieved relevant documents are placed by --unranked). R = 0 gives 0;
    R = 1 at rank 1 (0/0) gives 1, the perfect score. Micro average: ratio of the pooled
    sums. --ties average refuses (a ratio). Ranks 1,2,4,6,13 give ln 120 / ln 624 = .7438.
    """
    ideal, s = _log_sums(r, "log_prec")
    val = np.where(s > 0, safe_div(ideal, s), 1.0)
    return np.where(r.num_rel == 0, 0.0, val)


def _wnorm_recall(r: Ranked, pairs: tuple, o: Exact) -> np.ndarray:
    n, L, m = unranked(r, "wnorm_recall")
    n = n.astype(np.float64)
    R = r.num_rel.astype(np.float64)
    gain, qgain, qrel_rel = relevant_gains(r, pairs)
    actual = segment_sum(gain * np.where(r.is_rel, o.rank(), 0.0), r.offsets)
    # ideal: relevant gains in descending order at ranks 1..R
    order = np.lexsort((-qgain, r.qrel_qindex))
    sorted_gain = qgain[order]
    pos = np.arange(len(sorted_gain)) - r.qrel_offsets[:-1][r.qrel_qindex] + 1
    ideal = segment_sum(sorted_gain * pos, r.qrel_offsets)
    # the unretrieved relevant documents
    missing_gain = segment_sum(qgain, r.qrel_offsets) - segment_sum(gain, r.offsets)
    if r.settings.unranked == "worst":
        actual = actual + _worst_weighted(r, pairs, n, m)
    else:
        actual = actual + missing_gain * (L + 1 + n) / 2
    den = R * (n - R)
    val = 1.0 - safe_div(actual - ideal, den)
    return np.where(R == 0, 0.0, np.where(den == 0, 1.0, val))


def _worst_weighted(r: Ranked, pairs: tuple, n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Σ rank·gain of the unretrieved relevant documents at ranks N-m+1..N, heaviest last."""
    gain, qgain, qrel_rel = relevant_gains(r, pairs)
    # unretrieved count of every (query, grade): judged minus retrieved
    top = int(max(r.qrel_grades.max(initial=0), r.rel.max(initial=0))) + 1
    qkey = r.qrel_qindex[qrel_rel] * top + r.qrel_grades[qrel_rel]
    rkey = r.qindex[r.is_rel] * top + r.rel[r.is_rel]
    keys, judged = np.unique(qkey, return_counts=True)
    retrieved = np.zeros(len(keys), dtype=np.int64)
    if len(rkey):
        rk, rc = np.unique(rkey, return_counts=True)
        at = np.searchsorted(keys, rk)
        retrieved[at] = rc
    u = (judged - retrieved).astype(np.float64)
    q = keys // top
    grade = keys % top
    g = grade.astype(np.float64)
    for level, value in pairs:
        g = np.where(grade == level, float(value), g)
    order = np.lexsort((g, q))                      # lightest first within each query
    q, g, u = q[order], g[order], u[order]
    cu = np.cumsum(u)
    qfirst = np.searchsorted(q, q)                  # first group of the same query
    before = cu - u - np.concatenate(([0.0], cu))[qfirst]
    base = (n - m)[q]
    ranks_sum = u * (base + before) + u * (u + 1) / 2
    return np.bincount(q, weights=g * ranks_sum, minlength=r.num_queries)


@measure("wnorm_recall", params="gains", default=(), family="smart", needs_num_docs=True,
         ties=_with_order(_wnorm_recall))
def wnorm_recall(r: Ranked, pairs: tuple) -> np.ndarray:
    """Keen's weighted normalized recall: 1 - (Σr_i·w_i - Σi·w_(i)) / (R(N-R)).

    w_i is the gain of the i-th relevant document's grade: the grade itself unless
    ``grade=gain`` pairs say otherwise (``wnorm_recall.1=1,2=3``, as ndcg's parameters).
    The ideal sum puts the relevant documents at ranks 1..R, heaviest first. The
    denominator is Keen's, unweighted, so with weights above 1 the value can fall below
    0 (and with all weights 1 it is norm_recall). Needs N; unretrieved relevant documents
    are placed by --unranked (worst: heaviest last). R = 0 gives 0. --ties average: exact.
    Keen Fig. 27 (N=200, weights 4,3,2,1): (a) ranks 1-4 in grade order 4,3,2,1 give
    1.000; (b) ranks 1-4 in order 1,2,3,4 give .9872; (c) ranks 1,3,4,9 in order 4,3,2,1
    give .9872; (d) ranks 3,13,19,41 with weights 3,2,4,2 give .7844.
    """
    return _wnorm_recall(r, pairs, Exact(r))


# =========================================================================== cut-off measures

def _cut(r: Ranked, k: int, name: str):
    n = num_docs(r, name)
    return n, np.minimum(k, n)


def _fallout_counts(r: Ranked, k: int, o: Exact):
    n, kk = _cut(r, k, "fallout")
    R = r.num_rel
    a = o.top(r.is_rel, k)
    b = np.minimum(kk - a, n - R)
    return b, (n - R).astype(np.float64)


@measure("fallout", params="cutoffs", default=SHORT_CUTOFFS, family="smart",
         needs_num_docs=True, micro=lambda r, k: _fallout_counts(r, k, Exact(r)),
         ties=lambda r, k: safe_div(*_fallout_counts(r, k, Expected(r))))
def fallout(r: Ranked, k: int) -> np.ndarray:
    """Fallout after k documents: non-relevant examined over non-relevant in the collection, b/(N-R).

    Ranks past the end of the list count as non-relevant (as P_k); k is capped at N.
    Needs N. N = R gives 0. Micro average pools b and N-R (Keen Fig. 30, 21 specific
    requests, 63 relevant, N=200: .00314 .00604 .00943 .01426 at k=1..4 — the figure
    prints .00910 at k=5 where 79/4137 is .01910; 21 general requests, 135 relevant:
    .00246 .00541 .00886 .01255 .01648). --ties average: exact.
    """
    return safe_div(*_fallout_counts(r, k, Exact(r)))


@measure("generality", family="smart", needs_num_docs=True,
         micro=lambda r: (1000.0 * r.num_rel, num_docs(r, "generality").astype(np.float64)),
         ties=lambda r: generality(r))
def generality(r: Ranked) -> np.ndarray:
    """Generality number: relevant documents per thousand in the collection, 1000·R/N.

    Needs N. Keen part 2; examining the whole collection leaves precision G/1000 (ADI,
    4.9 relevant of 82: 59.8). Micro average: 1000·ΣR / ΣN.
    """
    return 1000.0 * r.num_rel / num_docs(r, "generality")


@measure("cutoff", params="cutoffs", default=CUTOFFS, family="smart", needs_num_docs=True,
         micro=lambda r, k: tuple(x.astype(np.float64) for x in _cut(r, k, "cutoff")[::-1]),
         ties=lambda r, k: cutoff(r, k))
def cutoff(r: Ranked, k: int) -> np.ndarray:
    """Cut-off ratio: documents examined over the collection, min(k,N)/N (Keen Fig. 1).

    The k documents examined include ranks past the end of a short list. Needs N.
    """
    n, kk = _cut(r, k, "cutoff")
    return kk / n


@measure("adj_prec", params="cutoffs", default=CUTOFFS, family="smart", needs_num_docs=True)
def adj_prec(r: Ranked, k: int) -> np.ndarray:
    """Generality-adjusted precision after k documents: R₁G / (R₁G + F₁(1000-G)).

    R₁ is recall and F₁ fallout after k documents, G the generality (relevant per
    thousand) given by --target-generality, to which the result is adjusted (Keen part 6,
    after Cleverdon & Keen; his "G is set to 2316" reads 23.16, Cran-1's generality).
    With G the query's own generality 1000·R/N it equals precision a/k. Needs N and
    --target-generality. R = 0, or nothing relevant retrieved, gives 0. No micro
    average (not a ratio of counts), no --ties average.
    """
    G = r.settings.target_generality
    if G is None:
        raise UsageError("adj_prec needs the generality to adjust to: give "
                         "--target-generality G (relevant documents per thousand)")
    G = float(G)
    if not 0 < G < 1000:
        raise UsageError(f"--target-generality must lie between 0 and 1000, not {G:g}")
    n, kk = _cut(r, k, "adj_prec")
    R = r.num_rel
    a = Exact(r).top(r.is_rel, k)
    b = np.minimum(kk - a, n - R)
    rec = safe_div(a, R)
    fall = safe_div(b, n - R)
    return safe_div(rec * G, rec * G + fall * (1000.0 - G))


def _gain_top(r: Ranked, k: int, o: Exact):
    gain, qgain, _ = relevant_gains(r)
    return o.top(gain, k), qgain


def _sliding_counts(r: Ranked, k: int, o: Exact):
    actual, qgain = _gain_top(r, k, o)
    return actual, ideal_prefix(r, qgain, k)


@measure("sliding_ratio", params="cutoffs", default=CUTOFFS, family="smart",
         micro=lambda r, k: _sliding_counts(r, k, Exact(r)),
         ties=lambda r, k: safe_div(*_sliding_counts(r, k, Expected(r))))
def sliding_ratio(r: Ranked, k: int) -> np.ndarray:
    """Normalized sliding ratio (Giuliano & Jones): gain in the top k over the ideal top k's.

    With binary relevance, relevant in the top k over min(k, R): precision up to k = R,
    recall after. With grades the gain of a relevant document is its grade (the ideal
    orders the relevant grades descending). Keen's Fig. 6 heads the columns f (ideal)
    and f* (actual) but divides actual by ideal, as here. R = 0 gives 0. Micro average
    pools both sums. --ties average: exact.
    Keen Fig. 6 (ranks 1,2,4,6,13): 1.00 1.00 0.67 0.75 0.60 0.80 0.80 at k=1..7, 1.00 at 13.
    """
    return safe_div(*_sliding_counts(r, k, Exact(r)))


def _relpoints_counts(r: Ranked, k: int, o: Exact):
    actual, qgain = _gain_top(r, k, o)
    return actual, segment_sum(qgain, r.qrel_offsets)


@measure("relpoints_recall", params="cutoffs", default=CUTOFFS, family="smart",
         micro=lambda r, k: _relpoints_counts(r, k, Exact(r)),
         ties=lambda r, k: safe_div(*_relpoints_counts(r, k, Expected(r))))
def relpoints_recall(r: Ranked, k: int) -> np.ndarray:
    """Recall over relevance points after k documents: grade points found over all points.

    Keen Fig. 26b: each relevant document scores its grade (Cran-1's four grades as
    4,3,2,1 points); recall is the points in the top k over the points of every relevant
    document. With binary grades this is recall.k. R = 0 gives 0. Micro average pools
    the points (Keen Fig. 30's micro recall, 63 relevant: .13 .27 .38 .40 .41 at k=1..5).
    --ties average: exact.
    """
    return safe_div(*_relpoints_counts(r, k, Exact(r)))


def _rel_recall_counts(r: Ranked, u: int):
    return np.minimum(r.num_rel_ret, u).astype(np.float64), np.full(r.num_queries, float(u))


@measure("rel_recall", params="cutoffs", default=WANTED, family="smart",
         micro=_rel_recall_counts, ties=lambda r, u: rel_recall(r, u))
def rel_recall(r: Ranked, u: int) -> np.ndarray:
    """Keen's relative recall: relevant retrieved over the u relevant the user wants, capped at 1.

    "Total relevant examined / total relevant user would like to examine" (Keen part 7)
    for a user who wants u relevant documents; the parameter is u. The documents
    examined are the whole retrieved list (cut it with -M). Keen's 1.5 is capped at 1;
    a query with fewer than u relevant documents cannot reach 1 (his "acquisitions
    failure" counts against the system); R = 0 gives 0. Micro: Σmin(a,u) / Σu.
    """
    num, den = _rel_recall_counts(r, u)
    return num / den


def _rank_j(which: str):
    def impl(r: Ranked, o: Exact) -> np.ndarray:
        R = r.num_rel
        j = {"first": np.minimum(R, 1), "second": np.where(R >= 2, 2, 0), "last": R}[which]
        return rel_rank(r, o, j, f"rank_{which}")
    return impl


@measure("rank_first", family="smart", ties=_with_order(_rank_j("first")))
def rank_first(r: Ranked) -> np.ndarray:
    """Rank of the first relevant document (Keen's high-precision user, Fig. 32-33).

    A retrieved document has its rank; unretrieved relevant documents are placed by
    --unranked (the j-th of m at mean rank L + j(N-L+1)/(m+1), at N-m+j under worst),
    which needs -N only when a query has nothing relevant retrieved. R = 0 gives 0,
    which the mean counts (use --average median, or read num_rel). Lower is better.
    --ties average: exact (the first relevant of a tied group of g documents holding h
    relevant has mean position (g+1)/(h+1) in it). No micro average.
    Keen Fig. 31, requests A-F: 1 3 7 (specific, mean 3.67) and 1 3 1 (general, 1.67).
    """
    return _rank_j("first")(r, Exact(r))


@measure("rank_second", family="smart", ties=_with_order(_rank_j("second")))
def rank_second(r: Ranked) -> np.ndarray:
    """Rank of the second relevant document (Keen's high-precision user wanting two, Fig. 31-32).

    As rank_first, for the second relevant document (mean position 2(g+1)/(h+1) in a
    tied group when both fall in it). A query with fewer than two relevant documents
    scores 0. Keen Fig. 31: A 2, B 4, C 21, D 2, E 7, F 2 — "A, D and F are superior
    to B, E and C" for the user who wants two.
    """
    return _rank_j("second")(r, Exact(r))


@measure("rank_last", family="smart", ties=_with_order(_rank_j("last")))
def rank_last(r: Ranked) -> np.ndarray:
    """Rank of the last relevant document: where a high-recall user reaches recall 1 (Keen Fig. 32).

    As rank_first, for the R-th relevant document; needs -N when a query has relevant
    documents the run did not retrieve. R = 0 gives 0. Keen Fig. 31: A 10, B 17, C 45,
    D 15, E 51, F 47 — "A, D and B are superior to C, F and E" for the high-recall user;
    specific mean 24, general 37.67.
    """
    return _rank_j("last")(r, Exact(r))


def _f_parts(r: Ranked, params: tuple, name: str, o: Exact):
    if not 1 <= len(params) <= 2:
        raise UsageError(f"{name} takes beta and at most one cut-off, e.g. {name}.1 or "
                         f"{name}.0.5,10")
    beta = float(params[0])
    if beta < 0:
        raise UsageError(f"{name}: beta must not be negative")
    if len(params) == 2:
        k = int(params[1])
        if k <= 0:
            raise UsageError(f"{name}: the cut-off must be a positive integer")
        a, t = o.top(r.is_rel, k), np.full(r.num_queries, float(k))
    else:
        a, t = r.num_rel_ret.astype(np.float64), r.num_ret.astype(np.float64)
    b2 = beta * beta
    # (1+b²)PR/(b²P+R) with P = a/t and R = a/num_rel is (1+b²)a/(b²·num_rel + t)
    return safe_div((1 + b2) * a, b2 * r.num_rel + t)


def _f_tied(r: Ranked, params: tuple) -> np.ndarray:
    return _f_parts(r, params, "F", Expected(r))


@measure("F", params="floats", default=(1.0,), family="smart", ties=_f_tied)
def f_measure(r: Ranked, params: tuple) -> np.ndarray:
    """F measure (IIR 8.3): the weighted harmonic mean of precision and recall, (1+β²)PR/(β²P+R).

    ``F.beta`` on the whole retrieved list, ``F.beta,k`` after k documents (ranks past
    the end count as non-relevant, as P_k); β < 1 favours precision, β > 1 recall;
    β = 0 is precision. Equal to (1+β²)a/(β²R + k). P = R = 0 gives 0, so does R = 0.
    No micro average (not a ratio of counts). --ties average: exact (linear in a).
    """
    return _f_parts(r, params, "F", Exact(r))


@measure("E", params="floats", default=(1.0,), family="smart",
         ties=lambda r, p: 1.0 - _f_parts(r, p, "E", Expected(r)))
def e_measure(r: Ranked, params: tuple) -> np.ndarray:
    """van Rijsbergen's E = 1 - F (IIR 8.3), with F's parameters: ``E.beta`` or ``E.beta,k``.

    Lower is better; a query with no relevant documents scores 1 (as 1 - F = 1 - 0).
    """
    return 1.0 - _f_parts(r, params, "E", Exact(r))


def _accuracy_counts(r: Ranked, k: int, o: Exact):
    n, kk = _cut(r, k, "accuracy")
    R = r.num_rel
    a = o.top(r.is_rel, k)
    fp = np.minimum(kk - a, n - R)
    tn = n - R - fp
    return a + tn, n.astype(np.float64)


@measure("accuracy", params="cutoffs", default=CUTOFFS, family="smart", needs_num_docs=True,
         micro=lambda r, k: _accuracy_counts(r, k, Exact(r)),
         ties=lambda r, k: safe_div(*_accuracy_counts(r, k, Expected(r))))
def accuracy(r: Ranked, k: int) -> np.ndarray:
    """Accuracy after k documents (IIR 8.3): (tp + tn) / N, the first k taken as retrieved.

    IIR's point: dominated by the true negatives, it is close to 1 for any ranking
    when R is small (N=200, R=5, nothing relevant in the top 10: .925). Needs N. Not 0
    for R = 0 (it is (N-k)/N). Micro average pools tp+tn and N. --ties average: exact.
    """
    return safe_div(*_accuracy_counts(r, k, Exact(r)))


# =========================================================================== Joiner & Werner

def hypergeom_below(a: np.ndarray, N: np.ndarray, R: np.ndarray, k: np.ndarray) -> np.ndarray:
    """P(X < a) for X ~ Hypergeometric(N documents, R relevant, k drawn), elementwise.

    The exact sum of the probabilities P(X = x) = C(R,x)C(N-R,k-x)/C(N,k) over the
    shorter tail (x < a, or 1 minus x >= a), each term from log-gamma functions: what
    scipy.stats.hypergeom.cdf gives, a thousand times faster on arrays.
    """
    from scipy.special import gammaln
    a, N, R, k = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (a, N, R, k)))
    a, N, R, k = (x.ravel() for x in (a, N, R, k))
    lo = np.maximum(0, k - (N - R))                 # support of X: lo .. hi
    hi = np.minimum(k, R)
    below = np.clip(a, lo, hi + 1)                  # x < below are summed
    lower = (below - lo) <= (hi + 1 - below)        # sum the lower tail, else the upper
    first = np.where(lower, lo, below)
    count = np.where(lower, below - lo, hi + 1 - below)
    cell = np.repeat(np.arange(len(a)), count)
    off = np.concatenate(([0], np.cumsum(count)))
    x = (np.arange(int(off[-1])) - np.repeat(off[:-1], count) + np.repeat(first, count))
    Nc, Rc, kc = N[cell], R[cell], k[cell]
    top = int(N.max(initial=0))
    if top <= 10_000_000:                           # ln n! by table lookup: much faster
        lnfact = gammaln(np.arange(top + 1, dtype=np.float64) + 1.0)
    else:
        lnfact = None

    def lnf(v):
        return lnfact[v] if lnfact is not None else gammaln(v + 1.0)

    def lncomb(n, j):
        return lnf(n) - lnf(j) - lnf(n - j)
    terms = np.exp(lncomb(Rc, x) + lncomb(Nc - Rc, kc - x) - lncomb(N, k)[cell])
    tail = np.bincount(cell, weights=terms, minlength=len(a))
    out = np.where(lower, tail, 1.0 - tail)
    return np.clip(out, 0.0, 1.0).reshape(np.shape(a))


def _jw(r: Ranked, ks: np.ndarray) -> np.ndarray:
    """(Q, len(ks)) Pr_H(X < a_k), X hypergeometric: k drawn from N holding R relevant."""
    n = num_docs(r, "jw_prob")
    R = r.num_rel
    ks = np.asarray(ks, dtype=np.int64)
    start = r.offsets[:-1]
    cum = r.cum_rel.astype(np.int64, copy=False)
    a = cum[start[:, None] + np.minimum(ks[None, :], r.num_ret[:, None])] - cum[start][:, None]
    kk = np.minimum(ks[None, :], n[:, None])
    shape = a.shape
    val = hypergeom_below(a, np.broadcast_to(n[:, None], shape),
                          np.broadcast_to(R[:, None], shape), kk).reshape(shape)
    return np.where(R[:, None] == 0, 0.0, val)


@measure("jw_prob", params="cutoffs", default=SHORT_CUTOFFS, family="smart",
         needs_num_docs=True)
def jw_prob(r: Ranked, k: int) -> np.ndarray:
    """Joiner & Werner's Pr_H(P < a/k): chance that k random documents hold fewer relevant than the run's a.

    X ~ Hypergeometric(N documents, R relevant, k drawn); the measure is P(X < a_k) =
    P(X <= a_k - 1), which grows with both precision and recall and accounts for the
    generality R/N. Needs N; k is capped at N; ranks past the end of the list count as
    non-relevant. R = 0 gives 0. No micro, no --ties average. Computed as the exact sum
    of the shorter tail's hypergeometric terms (scipy.stats.hypergeom.cdf agrees within
    1e-12 and is a thousand times slower on arrays).
    Their Table 1 (N=200, R=12, ranks 1,2,3,10,11,14,15,20,40,50,69,78): k=1 .94000,
    k=2 .99668, k=10 .99868, k=14 .99997 ... every printed value for k = 1..19 within
    1e-5 of the exact one (most truncated, k=5 and k=11 rounded). From k = 20 the
    printed table departs from the exact value by up to 1.2e-4 (k=30: printed .99985,
    exact .999966); these rows are taken to be errors of the original computation.
    """
    return _jw(r, np.array([k]))[:, 0]


@measure("jw_avg", params="int", default=(30,), family="smart", needs_num_docs=True)
def jw_avg(r: Ranked, params: tuple) -> np.ndarray:
    """Joiner & Werner's single number: jw_prob.k averaged over k = 1..D (default D = 30).

    Their one number per method ("average the measure over the number of documents
    retrieved"); D = 30 follows Table 1, "performance results for up to 30 retrieved
    documents"). Cut-offs past N are capped at N. Table 1's query gives .99683
    (exact values; .99680 from the printed ones).
    """
    (D,) = params
    D = int(D)
    if D <= 0:
        raise UsageError(f"jw_avg takes a positive depth D, not {D}")
    return _jw(r, np.arange(1, D + 1)).mean(axis=1)


# =========================================================================== Cooper, Rocchio

@measure("esl", params="cutoffs", default=(1, 2, 5, 10), family="smart",
         ties=lambda r, k: esl(r, k))
def esl(r: Ranked, k: int) -> np.ndarray:
    """Cooper's expected search length: non-relevant documents examined before k relevant are found.

    Documents with equal scores form one level of Cooper's weak ordering (ties count,
    whatever --ties says): if the k-th relevant document falls in a level holding h
    relevant and i non-relevant, with j non-relevant in the levels above and s relevant
    still wanted from it, ESL = j + i·s/(h+1). A user wanting more than R finds all R:
    k is capped at R, and R = 0 gives 0. When the list holds fewer than k relevant the
    search continues through the unretrieved documents, one more level of N-L documents
    holding the m unretrieved relevant (needs -N; --unranked worst puts every
    non-relevant one first). Lower is better; no micro average.
    By example: levels {r n} {n r r n} {r}: esl.1 = 0, esl.2 = 1 + 2·1/3, esl.3 = 1 + 2·2/3.
    """
    g = tie_groups(r)
    R = r.num_rel
    want = np.minimum(k, R)
    a = r.num_rel_ret
    out = np.zeros(r.num_queries, dtype=np.float64)
    # the level where the want-th relevant document is reached (its first row)
    wq = want[r.qindex]
    here = g.start & (g.rel_before < wq) & (g.rel_before + g.rels >= wq)
    q = r.qindex[here]
    j = g.before[here] - g.rel_before[here]
    i = g.size[here] - g.rels[here]
    s = wq[here] - g.rel_before[here]
    out[q] = j + i * s / (g.rels[here] + 1.0)
    beyond = (want > a) & (want > 0)
    if beyond.any():
        if r.num_docs is None and r.num_docs_q is None:
            qb = int(np.flatnonzero(beyond)[0])
            raise UsageError(
                f"esl needs -N/--num-docs: query {r.qids[qb]} retrieved fewer than "
                f"{int(want[qb])} relevant documents, so the search goes past the list")
        n, L, m = unranked(r, "esl")
        nonrel_ret = (L - a).astype(np.float64)
        nonrel_rest = (n - L - m).astype(np.float64)
        if r.settings.unranked == "worst":
            past = nonrel_ret + nonrel_rest
        else:
            past = nonrel_ret + nonrel_rest * (want - a) / (m + 1.0)
        out = np.where(beyond, past, out)
    return out


def _cnr_counts(r: Ranked, n: int):
    """(relevant, examined) when the user stops after n consecutive non-relevant documents."""
    idx = np.arange(len(r.rel), dtype=np.int64)
    last_rel = np.maximum.accumulate(np.where(r.is_rel, idx, -1)) if len(idx) else idx
    start = r.offsets[:-1][r.qindex] - 1
    streak = np.where(r.is_rel, 0, idx - np.maximum(last_rel, start))
    hits = np.flatnonzero(streak >= n)
    first = np.searchsorted(hits, r.offsets[:-1])   # first hit at or after the query's start
    found = first < len(hits)
    row = np.zeros(r.num_queries, dtype=np.int64)
    row[found] = hits[first[found]]
    found &= row < r.offsets[1:]
    examined = np.where(found, row - r.offsets[:-1] + 1, r.num_ret)
    upto = np.where(found, row + 1, r.offsets[1:])
    rel = r.cum_rel[upto] - r.cum_rel[r.offsets[:-1]]
    return rel.astype(np.float64), examined.astype(np.float64)


def _check_n(n: int, name: str) -> None:
    if n <= 0:
        raise UsageError(f"{name}: the number of consecutive non-relevant documents "
                         "must be positive")


@measure("cnr_recall", params="cutoffs", default=CNR, family="smart",
         micro=lambda r, n: (_cnr_counts(r, n)[0], r.num_rel.astype(np.float64)))
def cnr_recall(r: Ranked, n: int) -> np.ndarray:
    """Recall when the user stops after n consecutive non-relevant documents (Rocchio).

    The user examines the list until n non-relevant documents in a row have been seen
    (they are examined too), or the list ends. R = 0 gives 0. Micro average pools the
    relevant found and R (Rocchio Table 2: micro .31 / macro .43 at his cutoff 1,
    .62 / .63 at cutoff 2). No --ties average.
    """
    _check_n(n, "cnr_recall")
    rel, _ = _cnr_counts(r, n)
    return safe_div(rel, r.num_rel)


@measure("cnr_prec", params="cutoffs", default=CNR, family="smart",
         micro=lambda r, n: _cnr_counts(r, n))
def cnr_prec(r: Ranked, n: int) -> np.ndarray:
    """Precision when the user stops after n consecutive non-relevant documents (Rocchio).

    Relevant found over documents examined (the n non-relevant included); an empty
    list gives 0. Micro average pools both counts (Rocchio Table 2: micro .66 and .10,
    macro .66 and .17 at his cutoffs 1 and 2; he prints 2/3 truncated). No --ties average.
    """
    _check_n(n, "cnr_prec")
    return safe_div(*_cnr_counts(r, n))
