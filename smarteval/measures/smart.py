"""The SMART measures (Keen, Rocchio, Joiner & Werner, Cooper, IIR), vectorised over all queries.

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

import math

import numpy as np

from smarteval import libm
from smarteval.columns import Ranked, segment_sum
from smarteval.errors import UsageError
from smarteval.measures.collection import (
    num_docs,
    rel_rank,
    unranked,
    unranked_log_sum,
    unranked_rank_sum,
)
from smarteval.measures.gains import relevant_gains
from smarteval.measures.registry import measure
from smarteval.measures.segments import prefix, safe_div, seg_cumsum
from smarteval.measures.tied import Exact, order_of, tie_groups

#: Document cut-offs of the cut-off measures (trec_eval's P cut-offs).
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: Keen Fig. 30 and Joiner & Werner read the first few documents.
SHORT_CUTOFFS = (1, 2, 3, 4, 5, 10, 20, 30)
#: Relevant documents a high-precision user wants (Keen part 7: "one, two, or three").
WANTED = (1, 2, 3)
#: Consecutive non-relevant documents that end Rocchio's search.
CNR = (1, 2, 3, 5, 10)


# --------------------------------------------------------------------------- shared pieces

def ideal_prefix(r: Ranked, qgain: np.ndarray, k) -> np.ndarray:
    """(Q,) sum of the k largest relevant gains of each query (the ideal ranking's top k)."""
    order = np.lexsort((-qgain, r.qrel_qindex))
    p = prefix(qgain[order])
    start = r.qrel_offsets[:-1]
    k = np.minimum(np.maximum(np.asarray(k, dtype=np.int64), 0), r.num_judged)
    return p[start + k] - p[start]


# =========================================================================== normalized measures

def _over_relevant(r: Ranked, values: np.ndarray) -> np.ndarray:
    """(Q,) sum, in rank order, of ``values`` given at each query's relevant retrieved rows
    (:attr:`~smarteval.columns.Ranked.rel_rows`): only those rows are touched."""
    query = np.repeat(np.arange(r.num_queries), r.num_rel_ret)
    return np.bincount(query, weights=values, minlength=r.num_queries).astype(np.float64)


def _norm_recall(r: Ranked, o: Exact) -> np.ndarray:
    n = num_docs(r, "norm_recall").astype(np.float64)
    R = r.num_rel.astype(np.float64)
    s = _over_relevant(r, r.rel_rank.astype(np.float64) if type(o) is Exact
                       else o.rank()[r.rel_rows]) + unranked_rank_sum(r, "norm_recall")
    ideal = R * (R + 1) / 2
    den = R * (n - R)
    val = 1.0 - safe_div(s - ideal, den)
    return np.where(R == 0, 0.0, np.where(den == 0, 1.0, val))


@measure("norm_recall", origin="smart", needs_num_docs=True, orders=True)
def norm_recall(r: Ranked, o: str = "exact") -> np.ndarray:
    """Normalized recall (SMART NOR REC): 1 - (Σr_i - Σi) / (R(N-R)).

    Σi = R(R+1)/2 is the ideal sum of ranks. Cut-off independent; weighs every rank
    position alike. Needs N; unretrieved relevant documents are placed by --unranked.
    R = 0 gives 0; R = N (every document relevant, any order is perfect) gives 1.
    --ties average: exact (linear in the ranks).
    Keen Fig. 3 (ranks 1,2,4,6,13, N=200): 0.9887. Fig. 9 (N=82): ranks 1,3,14,17,18
    give .9013, 1,2,3,18,23 .9169, 1,15 .9188, 2,3 .9875.
    """
    return _norm_recall(r, order_of(r, o))


def _norm_prec(r: Ranked, o: Exact) -> np.ndarray:
    from scipy.special import gammaln
    n = num_docs(r, "norm_prec").astype(np.float64)
    R = r.num_rel.astype(np.float64)
    s = _over_relevant(r, libm.log(r.rel_rank) if type(o) is Exact
                       else o.log_rank()[r.rel_rows]) + unranked_log_sum(r, "norm_prec")
    ideal = gammaln(R + 1)
    den = gammaln(n + 1) - gammaln(R + 1) - gammaln(n - R + 1)     # ln C(N, R)
    val = 1.0 - safe_div(s - ideal, den)
    return np.where(R == 0, 0.0, np.where(den <= 0, 1.0, val))


@measure("norm_prec", origin="smart", needs_num_docs=True, orders=True)
def norm_prec(r: Ranked, o: str = "exact") -> np.ndarray:
    """Normalized precision (SMART NOR PRE): 1 - (Σln r_i - Σln i) / ln C(N,R).

    Gives more weight than norm_recall to the top of the ranking. Needs N; unretrieved
    relevant documents are placed by --unranked (expected: Σ ln r over them is
    m(lnΓ(N+1) - lnΓ(L+1))/(N-L)). R = 0 gives 0, R = N gives 1. The base of the
    logarithm cancels. --ties average: exact (linear in the log ranks).
    Keen Fig. 3 (ranks 1,2,4,6,13, N=200): 0.9238. Fig. 9 (N=82): ranks 1,3,14,17,18
    give .7270, 1,2,3,18,23 .8230, 1,15 .7515, 2,3 .8645.
    """
    return _norm_prec(r, order_of(r, o))


def _rank_sums(r: Ranked, name: str):
    R = r.num_rel.astype(np.float64)
    s = _over_relevant(r, r.rel_rank.astype(np.float64)) + unranked_rank_sum(r, name)
    return R * (R + 1) / 2, s


def _log_sums(r: Ranked, name: str):
    from scipy.special import gammaln
    R = r.num_rel.astype(np.float64)
    s = _over_relevant(r, libm.log(r.rel_rank)) + unranked_log_sum(r, name)
    return gammaln(R + 1), s


@measure("rank_recall", origin="smart", needs_num_docs=True,
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


@measure("log_prec", origin="smart", needs_num_docs=True,
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


@measure("wnorm_recall", params="gains", default=(), origin="smart", needs_num_docs=True,
         orders=True)
def wnorm_recall(r: Ranked, pairs: tuple, o: str = "exact") -> np.ndarray:
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
    return _wnorm_recall(r, pairs, order_of(r, o))


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


@measure("fallout", params="cutoffs", default=SHORT_CUTOFFS, origin="smart",
         needs_num_docs=True, micro=lambda r, k: _fallout_counts(r, k, Exact(r)),
         orders=True)
def fallout(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Fallout after k documents: non-relevant examined over non-relevant in the collection,
    b/(N-R).

    Ranks past the end of the list count as non-relevant (as P_k); k is capped at N.
    Needs N. N = R gives 0. Micro average pools b and N-R (Keen Fig. 30, 21 specific
    requests, 63 relevant, N=200: .00314 .00604 .00943 .01426 at k=1..4 — the figure
    prints .00910 at k=5 where 79/4137 is .01910; 21 general requests, 135 relevant:
    .00246 .00541 .00886 .01255 .01648). --ties average: exact.
    """
    return safe_div(*_fallout_counts(r, k, order_of(r, o)))


@measure("generality", origin="smart", needs_num_docs=True,
         micro=lambda r: (1000.0 * r.num_rel, num_docs(r, "generality").astype(np.float64)),
         order_free=True)
def generality(r: Ranked) -> np.ndarray:
    """Generality number: relevant documents per thousand in the collection, 1000·R/N.

    Needs N. Keen part 2; examining the whole collection leaves precision G/1000 (ADI,
    4.9 relevant of 82: 59.8). Micro average: 1000·ΣR / ΣN.
    """
    return 1000.0 * r.num_rel / num_docs(r, "generality")


@measure("cutoff", params="cutoffs", default=CUTOFFS, origin="smart", needs_num_docs=True,
         micro=lambda r, k: tuple(x.astype(np.float64) for x in _cut(r, k, "cutoff")[::-1]),
         order_free=True)
def cutoff(r: Ranked, k: int) -> np.ndarray:
    """Cut-off ratio: documents examined over the collection, min(k,N)/N (Keen Fig. 1).

    The k documents examined include ranks past the end of a short list. Needs N.
    """
    n, kk = _cut(r, k, "cutoff")
    return kk / n


@measure("adj_prec", params="cutoffs", default=CUTOFFS, origin="smart", needs_num_docs=True)
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


@measure("sliding_ratio", params="cutoffs", default=CUTOFFS, origin="smart",
         micro=lambda r, k: _sliding_counts(r, k, Exact(r)),
         orders=True)
def sliding_ratio(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Normalized sliding ratio (Giuliano & Jones): gain in the top k over the ideal top k's.

    With binary relevance, relevant in the top k over min(k, R): precision up to k = R,
    recall after. With grades the gain of a relevant document is its grade (the ideal
    orders the relevant grades descending). Keen's Fig. 6 heads the columns f (ideal)
    and f* (actual) but divides actual by ideal, as here. R = 0 gives 0. Micro average
    pools both sums. --ties average: exact.
    Keen Fig. 6 (ranks 1,2,4,6,13): 1.00 1.00 0.67 0.75 0.60 0.80 0.80 at k=1..7, 1.00 at 13.
    """
    return safe_div(*_sliding_counts(r, k, order_of(r, o)))


def _relpoints_counts(r: Ranked, k: int, o: Exact):
    actual, qgain = _gain_top(r, k, o)
    return actual, segment_sum(qgain, r.qrel_offsets)


@measure("relpoints_recall", params="cutoffs", default=CUTOFFS, origin="smart",
         micro=lambda r, k: _relpoints_counts(r, k, Exact(r)),
         orders=True)
def relpoints_recall(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Recall over relevance points after k documents: grade points found over all points.

    Keen Fig. 26b: each relevant document scores its grade (Cran-1's four grades as
    4,3,2,1 points); recall is the points in the top k over the points of every relevant
    document. With binary grades this is recall.k. R = 0 gives 0. Micro average pools
    the points (Keen Fig. 30's micro recall, 63 relevant: .13 .27 .38 .40 .41 at k=1..5).
    --ties average: exact.
    """
    return safe_div(*_relpoints_counts(r, k, order_of(r, o)))


def _rel_recall_counts(r: Ranked, u: int):
    return np.minimum(r.num_rel_ret, u).astype(np.float64), np.full(r.num_queries, float(u))


@measure("rel_recall", params="cutoffs", default=WANTED, origin="smart",
         micro=_rel_recall_counts, order_free=True)
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


@measure("rank_first", origin="smart", orders=True)
def rank_first(r: Ranked, o: str = "exact") -> np.ndarray:
    """Rank of the first relevant document (Keen's high-precision user, Fig. 32-33).

    A retrieved document has its rank; unretrieved relevant documents are placed by
    --unranked (the j-th of m at mean rank L + j(N-L+1)/(m+1), at N-m+j under worst),
    which needs -N only when a query has nothing relevant retrieved. R = 0 gives 0,
    which the mean counts (use --average median, or read num_rel). Lower is better.
    --ties average: exact (the first relevant of a tied group of g documents holding h
    relevant has mean position (g+1)/(h+1) in it). No micro average.
    Keen Fig. 31, requests A-F: 1 3 7 (specific, mean 3.67) and 1 3 1 (general, 1.67).
    """
    return _rank_j("first")(r, order_of(r, o))


@measure("rank_second", origin="smart", orders=True)
def rank_second(r: Ranked, o: str = "exact") -> np.ndarray:
    """Rank of the second relevant document (Keen's high-precision user wanting two, Fig. 31-32).

    As rank_first, for the second relevant document (mean position 2(g+1)/(h+1) in a
    tied group when both fall in it). A query with fewer than two relevant documents
    scores 0. Keen Fig. 31: A 2, B 4, C 21, D 2, E 7, F 2 — "A, D and F are superior
    to B, E and C" for the user who wants two.
    """
    return _rank_j("second")(r, order_of(r, o))


@measure("rank_last", origin="smart", orders=True)
def rank_last(r: Ranked, o: str = "exact") -> np.ndarray:
    """Rank of the last relevant document: where a high-recall user reaches recall 1 (Keen Fig. 32).

    As rank_first, for the R-th relevant document; needs -N when a query has relevant
    documents the run did not retrieve. R = 0 gives 0. Keen Fig. 31: A 10, B 17, C 45,
    D 15, E 51, F 47 — "A, D and B are superior to C, F and E" for the high-recall user;
    specific mean 24, general 37.67.
    """
    return _rank_j("last")(r, order_of(r, o))


def _f_counts(r: Ranked, params: tuple, name: str, o: Exact):
    """(num, den) of F.beta[,k]: (1+β²)a and β²R + t, t the documents examined."""
    if not 1 <= len(params) <= 2:
        raise UsageError(f"{name} takes beta and at most one cut-off, e.g. {name}.1 or "
                         f"{name}.0.5,10")
    beta = float(params[0])
    if beta < 0:
        raise UsageError(f"{name}: beta must not be negative")
    a, t = _examined(r, params[1:], name, o)
    b2 = beta * beta
    # (1+b²)PR/(b²P+R) with P = a/t and R = a/num_rel is (1+b²)a/(b²·num_rel + t)
    return (1 + b2) * a, b2 * r.num_rel + t


def _examined(r: Ranked, cut: tuple, name: str, o: Exact):
    """Relevant documents found and documents examined: the whole list, or the first k."""
    if cut:
        k = int(cut[0])
        if k <= 0 or k != cut[0]:
            raise UsageError(f"{name}: the cut-off must be a positive integer")
        return o.top(r.is_rel, k), np.full(r.num_queries, float(k))
    return r.num_rel_ret.astype(np.float64), r.num_ret.astype(np.float64)


def _e_counts(r: Ranked, params: tuple, o: Exact):
    num, den = _f_counts(r, params, "E", o)
    return den - num, den


@measure("F", params="floats", default=(1.0,), origin="smart", orders=True,
         micro=lambda r, params: _f_counts(r, params, "F", Exact(r)))
def f_measure(r: Ranked, params: tuple, o: str = "exact") -> np.ndarray:
    """F measure (IIR 8.3): the weighted harmonic mean of precision and recall, (1+β²)PR/(β²P+R).

    ``F.beta`` on the whole retrieved list, ``F.beta,k`` after k documents (ranks past
    the end count as non-relevant, as P_k); β < 1 favours precision, β > 1 recall;
    β = 0 is precision. Equal to (1+β²)a/(β²R + k). P = R = 0 gives 0, so does R = 0.
    Micro average: a ratio of counts, Σ(1+β²)a / Σ(β²R + k), which is F of the micro
    precision Σa/Σk and the micro recall Σa/ΣR. --ties average: exact (linear in a).
    """
    return safe_div(*_f_counts(r, params, "F", order_of(r, o)))


@measure("E", params="floats", default=(1.0,), origin="smart", orders=True,
         micro=lambda r, params: _e_counts(r, params, Exact(r)))
def e_measure(r: Ranked, params: tuple, o: str = "exact") -> np.ndarray:
    """van Rijsbergen's E = 1 - F (IIR 8.3), with F's parameters: ``E.beta`` or ``E.beta,k``.

    Lower is better; a query with no relevant documents scores 1 (as 1 - F = 1 - 0).
    Micro average: 1 - micro F, Σ(β²R + k - (1+β²)a) / Σ(β²R + k).
    """
    num, den = _f_counts(r, params, "E", order_of(r, o))
    return 1.0 - safe_div(num, den)


def _f_alpha_counts(r: Ranked, params: tuple, o: Exact):
    """(num, den) of F_alpha.alpha[,k]: a and αt + (1-α)R, t the documents examined."""
    if not 1 <= len(params) <= 2:
        raise UsageError("F_alpha takes alpha and at most one cut-off, e.g. F_alpha.0.5 or "
                         "F_alpha.0.2,10")
    alpha = float(params[0])
    if not 0 <= alpha <= 1:
        raise UsageError(f"F_alpha: alpha must lie between 0 and 1, not {alpha:g}")
    a, t = _examined(r, params[1:], "F_alpha", o)
    return a, alpha * t + (1 - alpha) * r.num_rel


@measure("F_alpha", params="floats", default=(0.5,), origin="smart", orders=True,
         micro=lambda r, params: _f_alpha_counts(r, params, Exact(r)))
def f_alpha(r: Ranked, params: tuple, o: str = "exact") -> np.ndarray:
    """F in its α form (IIR 8.3): 1/(α/P + (1-α)/R), precision and recall weighted by α.

    ``F_alpha.alpha`` on the whole retrieved list, ``F_alpha.alpha,k`` after k documents
    (ranks past the end count as non-relevant, as P_k); α lies in [0, 1]: 1 is
    precision, 0 recall, 1/2 the balanced F1. The same measure as F.β with β² =
    (1-α)/α, "the formulation in terms of α more transparently exhibits the F measure as
    a weighted harmonic mean". Equal to a/(αk + (1-α)R); P = 0 or R = 0 gives 0, so does
    a query without relevant documents. Micro average: Σa / Σ(αk + (1-α)R), F_alpha of
    the micro precision and recall. --ties average: exact (linear in a).
    IIR: retrieving everything when 1 document in 10,000 is relevant gives F1 = 0.02%.
    """
    return safe_div(*_f_alpha_counts(r, params, order_of(r, o)))


def _accuracy_counts(r: Ranked, k: int, o: Exact):
    n, kk = _cut(r, k, "accuracy")
    R = r.num_rel
    a = o.top(r.is_rel, k)
    fp = np.minimum(kk - a, n - R)
    tn = n - R - fp
    return a + tn, n.astype(np.float64)


@measure("accuracy", params="cutoffs", default=CUTOFFS, origin="smart", needs_num_docs=True,
         micro=lambda r, k: _accuracy_counts(r, k, Exact(r)),
         orders=True)
def accuracy(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Accuracy after k documents (IIR 8.3): (tp + tn) / N, the first k taken as retrieved.

    IIR's point: dominated by the true negatives, it is close to 1 for any ranking
    when R is small (N=200, R=5, nothing relevant in the top 10: .925). Needs N. Not 0
    for R = 0 (it is (N-k)/N). Micro average pools tp+tn and N. --ties average: exact.
    """
    return safe_div(*_accuracy_counts(r, k, order_of(r, o)))


# =========================================================================== Joiner & Werner

def _stirlerr_small() -> np.ndarray:
    """stirlerr(n) for n = 0..15, from 50-digit decimal logarithms (0 at n = 0, unused)."""
    import math
    from decimal import Context, Decimal
    ctx = Context(prec=50)
    pi = Decimal("3.14159265358979323846264338327950288419716939937510")
    ln_sqrt_2pi = ctx.ln(2 * pi) / 2
    vals = [0.0]
    for n in range(1, 16):
        d = ctx.ln(Decimal(math.factorial(n))) - (n + Decimal("0.5")) * ctx.ln(Decimal(n)) \
            + n - ln_sqrt_2pi
        vals.append(float(d))
    return np.array(vals)


def _stirlerr(n: np.ndarray, small: np.ndarray) -> np.ndarray:
    """ln n! - ((n + 1/2) ln n - n + ln √(2π)): Stirling's error, accurate to the last bits.

    Loader's function for integer n >= 0: a table up to 15, the asymptotic series above
    (its terms past the first two fall below the last bit for large n).
    """
    n = np.asarray(n, dtype=np.float64)
    nn = n * n
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    with np.errstate(divide="ignore", invalid="ignore"):
        series = (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n
    return np.where(n <= 15, small[np.minimum(n, 15).astype(np.int64)], series)


def _bd0(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """x ln(x/m) + m - x without cancellation (Loader's deviance term), elementwise (x > 0)."""
    x, m = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(m, dtype=np.float64))
    close = np.abs(x - m) < 0.1 * (x + m)
    out = np.empty(x.shape)
    far = ~close
    with np.errstate(divide="ignore", invalid="ignore"):
        out[far] = x[far] * libm.log(x[far] / m[far]) + m[far] - x[far]
    xc, mc = x[close], m[close]
    v = (xc - mc) / (xc + mc)
    s = (xc - mc) * v
    ej = 2 * xc * v
    v2 = v * v
    for j in range(1, 60):                  # |v| < 0.1: each term 100 times smaller
        ej = ej * v2
        term = ej / (2 * j + 1)
        s = s + term
        if not np.any(np.abs(term) > 1e-17 * np.abs(s)):
            break
    out[close] = s
    return out


def _log_binom(x, n, p, q, small) -> np.ndarray:
    """ln of the binomial probability C(n,x) p^x q^(n-x), by Loader's saddle point.

    x, n, p, q are arrays of one shape; 0 <= x <= n and 0 < p, q < 1 are the caller's.
    """
    out = np.empty(x.shape)
    zero, full = x == 0, x == n
    mid = ~zero & ~full
    xm, nm, pm, qm = x[mid], n[mid], p[mid], q[mid]
    lc = (_stirlerr(nm, small) - _stirlerr(xm, small) - _stirlerr(nm - xm, small)
          - _bd0(xm, nm * pm) - _bd0(nm - xm, nm * qm))
    out[mid] = lc - 0.5 * (math.log(2 * math.pi) + libm.log(xm) + libm.log1p(-xm / nm))
    for edge, a, b in ((zero, p, q), (full & ~zero, q, p)):
        # all n trials fail (x = 0), or all succeed: n ln b, through bd0 when a is small
        ne, ae, be = n[edge], a[edge], b[edge]
        res = ne * libm.log(be)
        tiny = (ae < 0.1) & (ne > 0)
        res[tiny] = -_bd0(ne[tiny], ne[tiny] * be[tiny]) - ne[tiny] * ae[tiny]
        out[edge] = np.where(ne == 0, 0.0, res)
    return out


def log_hypergeom(x, N, R, k) -> np.ndarray:
    """ln P(X = x) for X ~ Hypergeometric(N documents, R relevant, k drawn), elementwise.

    C(R,x)C(N-R,k-x)/C(N,k) written as three binomial probabilities at p = k/N (Loader,
    "Fast and accurate computation of binomial probabilities", 2000; R's dhyper), each
    from Stirling's error and the deviance term: relative accuracy about 1e-13 for
    every N, where differences of log-gamma functions lose log10(N) digits. x must lie
    in the support, max(0, k-N+R) .. min(k, R).
    """
    x, N, R, k = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (x, N, R, k)))
    small = _stirlerr_small()
    out = np.zeros(x.shape)
    # k = 0 or k = N draw nothing or everything: X is certain (p or q would be 0)
    some = (k > 0) & (k < N)
    x, N, R, k = x[some], N[some], R[some], k[some]
    p = k / N
    q = (N - k) / N
    out[some] = (_log_binom(x, R, p, q, small) + _log_binom(k - x, N - R, p, q, small)
                 - _log_binom(k, N, p, q, small))
    return out


def hypergeom_below(a: np.ndarray, N: np.ndarray, R: np.ndarray, k: np.ndarray) -> np.ndarray:
    """P(X < a) for X ~ Hypergeometric(N documents, R relevant, k drawn), elementwise.

    The sum of the probabilities P(X = x) (:func:`log_hypergeom`) over one tail: below a
    when that tail is the shorter or a - 1 lies under the mean kR/N (the sum is then
    small and summed directly, to full relative accuracy), else 1 minus the upper tail
    (the value is then at least about 1/2). What scipy.stats.hypergeom.cdf(a - 1, N, R,
    k) gives, to 1e-12 relative, for N up to 10^9 and beyond, much faster on arrays.
    """
    a, N, R, k = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (a, N, R, k)))
    shape = a.shape
    a, N, R, k = (x.ravel() for x in (a, N, R, k))
    lo = np.maximum(0, k - (N - R))                 # support of X: lo .. hi
    hi = np.minimum(k, R)
    below = np.clip(a, lo, hi + 1)                  # x < below are summed
    small_tail = (below - 1) * N < k * R            # a - 1 under the mean: a small value
    lower = ((below - lo) <= (hi + 1 - below)) | small_tail
    first = np.where(lower, lo, below)
    count = np.where(lower, below - lo, hi + 1 - below)
    cell = np.repeat(np.arange(len(a)), count)
    off = np.concatenate(([0], np.cumsum(count))).astype(np.int64)
    step = np.arange(int(off[-1])) - off[:-1][cell]
    x = step + first[cell]
    # the tail's first term by Loader's method, the next ones by the ratio
    # P(X = y+1) / P(X = y) = (R-y)(k-y) / ((y+1)(N-R-k+y+1)), summed as logarithms
    has = count > 0
    log_first = np.zeros(len(a))
    log_first[has] = log_hypergeom(first[has], N[has], R[has], k[has])
    y = (x - 1).astype(np.float64)
    Rc, kc, bc = R[cell], k[cell], (N - R)[cell]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (Rc - y) * (kc - y) / ((y + 1) * (bc - kc + y + 1))
    log_ratio = np.where(step > 0, libm.log(np.where(step > 0, ratio, 1.0)), 0.0)
    terms = libm.exp(log_first[cell] + seg_cumsum(log_ratio, off))
    tail = np.bincount(cell, weights=terms, minlength=len(a))
    out = np.where(lower, tail, 1.0 - tail)
    return np.clip(out, 0.0, 1.0).reshape(shape)


def _jw(r: Ranked, ks: np.ndarray) -> np.ndarray:
    """(Q, len(ks)) Pr_H(X < a_k), X hypergeometric: k drawn from N holding R relevant."""
    n = num_docs(r, "jw_prob")
    R = r.num_rel
    ks = np.asarray(ks, dtype=np.int64)
    start = r.offsets[:-1]
    a = r.rel_before(start[:, None] + np.minimum(ks[None, :], r.num_ret[:, None])) \
        - r.rel_before(start)[:, None]
    kk = np.minimum(ks[None, :], n[:, None])
    shape = a.shape
    val = hypergeom_below(a, np.broadcast_to(n[:, None], shape),
                          np.broadcast_to(R[:, None], shape), kk).reshape(shape)
    return np.where(R[:, None] == 0, 0.0, val)


@measure("jw_prob", params="cutoffs", default=SHORT_CUTOFFS, origin="smart",
         needs_num_docs=True)
def jw_prob(r: Ranked, k: int) -> np.ndarray:
    """Joiner & Werner's Pr_H(P < a/k): chance that k random documents hold fewer relevant
    than the run's a.

    X ~ Hypergeometric(N documents, R relevant, k drawn); the measure is P(X < a_k) =
    P(X <= a_k - 1), which grows with both precision and recall and accounts for the
    generality R/N. Needs N; k is capped at N; ranks past the end of the list count as
    non-relevant. R = 0 gives 0. No micro, no --ties average. Computed as a sum of
    hypergeometric terms, each by Loader's saddle-point method (as R's dhyper), over
    the tail that keeps full relative accuracy: scipy.stats.hypergeom.cdf agrees within
    1e-12 relative for N up to 10^9 (with 3 relevant and the first at rank 1, jw_prob.1
    is (N-3)/N) and is hundreds of times slower on arrays.
    Their Table 1 (N=200, R=12, ranks 1,2,3,10,11,14,15,20,40,50,69,78): k=1 .94000,
    k=2 .99668, k=10 .99868, k=14 .99997 ... every printed value for k = 1..19 within
    1e-5 of the exact one (most truncated, k=5 and k=11 rounded). From k = 20 the
    printed table departs from the exact value by up to 1.2e-4 (k=30: printed .99985,
    exact .999966); these rows are taken to be errors of the original computation.
    """
    return _jw(r, np.array([k]))[:, 0]


@measure("jw_avg", params="int", default=(30,), origin="smart", needs_num_docs=True)
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

@measure("esl", params="cutoffs", default=(1, 2, 5, 10), origin="smart",
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


def cnr_counts(r: Ranked, n: int):
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
    rel = r.rel_before(upto) - r.rel_before(r.offsets[:-1])
    return rel.astype(np.float64), examined.astype(np.float64)


def _check_n(n: int, name: str) -> None:
    if n <= 0:
        raise UsageError(f"{name}: the number of consecutive non-relevant documents "
                         "must be positive")


@measure("cnr_recall", params="cutoffs", default=CNR, origin="smart",
         micro=lambda r, n: (cnr_counts(r, n)[0], r.num_rel.astype(np.float64)))
def cnr_recall(r: Ranked, n: int) -> np.ndarray:
    """Recall when the user stops after n consecutive non-relevant documents (Rocchio).

    The user examines the list until n non-relevant documents in a row have been seen
    (they are examined too), or the list ends. R = 0 gives 0. Micro average pools the
    relevant found and R (Rocchio Table 2: micro .31 / macro .43 at his cutoff 1,
    .62 / .63 at cutoff 2). No --ties average.
    """
    _check_n(n, "cnr_recall")
    rel, _ = cnr_counts(r, n)
    return safe_div(rel, r.num_rel)


@measure("cnr_prec", params="cutoffs", default=CNR, origin="smart",
         micro=lambda r, n: cnr_counts(r, n))
def cnr_prec(r: Ranked, n: int) -> np.ndarray:
    """Precision when the user stops after n consecutive non-relevant documents (Rocchio).

    Relevant found over documents examined (the n non-relevant included); an empty
    list gives 0. Micro average pools both counts (Rocchio Table 2: micro .66 and .10,
    macro .66 and .17 at his cutoffs 1 and 2; he prints 2/3 truncated). No --ties average.
    """
    _check_n(n, "cnr_prec")
    return safe_div(*cnr_counts(r, n))
