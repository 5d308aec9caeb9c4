"""Measures behind ir_measures names that trec_eval lacks: RR@k, Judged, NumQ and RBP(rel=r).

Each computes what ir_measures 0.4.3 computes for its name (the provider that computes
it is named in the docstring), and reads the ranking in that provider's order
(:data:`smarteval.ranking.programs.PROGRAMS`): the msmarco and judged providers sort a
run by score as a double, then by docno *ascending*, where trec_eval breaks ties by docno
descending, so tied documents straddling the cut-off count as ir_measures counts them.
"""

from __future__ import annotations

import numpy as np

from smarteval.columns import NONPOOL, UNJUDGED, Ranked
from smarteval.errors import UsageError
from smarteval.measures.registry import measure
from smarteval.measures.segments import first_true_rank, prefix, safe_div, seg_sum
from smarteval.measures.tied import order_of, tie_groups

#: How many ranks ir_measures' RBP provider (cwl_eval) reads: its rankings are this long.
CWL_DEPTH = 1000


@measure("recip_rank_cut", params="cutoffs", default=(10,), origin="ir", program="msmarco")
def recip_rank_cut(r: Ranked, k: int) -> np.ndarray:
    """Reciprocal rank of the first relevant document if it is among the first k, else 0 (RR@k).

    ir_measures' ``RR@10`` (MRR@10 of MS MARCO), as its msmarco provider computes it:
    under --ties docno, tied documents in docno ascending order, where trec_eval's are
    descending. Without a cut-off it is trec_eval's recip_rank.
    """
    first = first_true_rank(r.is_rel, r.offsets)
    hit = (first > 0) & (first <= k)
    return safe_div(hit.astype(np.float64), first)


@measure("judged", params="cutoffs", default=(10,), origin="ir", orders=True,
         program="judged")
def judged(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Fraction of the first k retrieved documents that the qrels judge (ir_measures' Judged@k).

    As ir_measures' judged provider computes it: a document is judged when the qrels
    list it, whatever its grade (a negative one too); the fraction is over min(k,
    retrieved), so a short list is not penalised (and judged + unj need not be 1); under
    --ties docno, tied documents in docno ascending order, where trec_eval's are
    descending. ``Judged`` without a cut-off is the fraction over the whole list (k = 0
    in the library). 0 for an empty list.
    """
    depth = r.num_ret if k <= 0 else np.minimum(k, r.num_ret)
    return safe_div(order_of(r, o).top(r.rel != NONPOOL, depth), depth)


@measure("judged_share", params="cutoffs", default=(10,), origin="smart", orders=True)
def judged_share(r: Ranked, k: int, o: str = "exact") -> np.ndarray:
    """Fraction of the first k retrieved documents judged 0 or more: those -J keeps.

    What ``--unjudged range`` prints beside a measure as ``NAME_judged`` (k its cut-off,
    or the whole list, k = 0 in the library): the share of its documents whose grade is
    known. Unlike ir_measures' Judged@k (``judged``), a document judged below 0 counts
    as unjudged, as -J counts it. Over min(k, retrieved); 0 for an empty list.
    """
    depth = r.num_ret if k <= 0 else np.minimum(k, r.num_ret)
    return safe_div(order_of(r, o).top(r.rel >= 0, depth), depth)


@measure("num_q_ret", average="sum", value="int", origin="ir", order_free=True,
         program="pytrec_eval")
def num_q_ret(r: Ranked) -> np.ndarray:
    """Number of queries with results: 1 for a query with ranked documents, else 0 (NumQ).

    ir_measures' ``NumQ`` (pytrec_eval's num_q): summed over the queries, it counts
    those of the qrels the run has results for, also when ``-c`` averages over every
    query of the qrels (where num_q counts them all). A query left empty by ``-M`` or
    ``-J``, or given only trec_eval 10.0's placeholder document by ``-c``, counts 0.
    """
    return ((r.num_ret > 0) & np.asarray(r.in_run, dtype=bool)).astype(np.int64)


def _rbp_weights(p: float, length: int) -> np.ndarray:
    """The weight of ranks 1, 2, ... (at least ``length`` of them): cwl_eval's, 0 past 1000.

    cwl_eval continues from each rank with probability p, so rank i is examined with
    weight p^(i-1) / (1 + p + ... + p^999), computed as it computes it.
    """
    cont = np.cumprod(np.full(CWL_DEPTH - 1, p, dtype=np.float64))
    examined = np.concatenate(([1.0], cont))
    first = 1.0 / np.sum(examined)
    w = np.concatenate(([first], examined[1:] * first))
    out = np.zeros(max(length, CWL_DEPTH))
    out[:CWL_DEPTH] = w
    return out


def _rbp_gains(r: Ranked) -> np.ndarray:
    """Binary gains at the relevance level; cwl_eval reads a negative grade as 0."""
    gain = r.is_rel
    if r.rel_level <= 0:
        gain = gain | (r.rel == UNJUDGED)
    return gain.astype(np.float64)


def _persistence(params: tuple) -> float:
    if len(params) != 1 or not 0.0 <= float(params[0]) <= 1.0:
        raise UsageError("rbp_bin takes one persistence p between 0 and 1, e.g. rbp_bin.0.8")
    return float(params[0])


def _rbp_bin_average(r: Ranked, params: tuple) -> np.ndarray:
    """rbp_bin's mean over every order of each group of tied scores (``--ties average``).

    Linear in the weight of each rank: a document of a tied group gets the mean weight
    of the group's ranks.
    """
    p = _persistence(params)
    g = tie_groups(r)
    longest = int(r.num_ret.max()) if r.num_queries else 0
    cum = prefix(_rbp_weights(p, longest))
    mean_w = (cum[g.before + g.size] - cum[g.before]) / np.maximum(g.size, 1)
    return seg_sum(_rbp_gains(r) * mean_w, r.offsets)


@measure("rbp_bin", params="floats", default=(0.8,), origin="ir", ties=_rbp_bin_average,
         program="ir_measures.cwl_eval")
def rbp_bin(r: Ranked, params: tuple) -> np.ndarray:
    """Rank-biased precision of binary relevance over the first 1000 ranks (RBP(rel=r, p=...)).

    What ir_measures computes for ``RBP(rel=r)`` (its cwl_eval provider): gain 1 for a
    document graded at or above the relevance level (-l, or rel=), else 0, and rank i
    weighted p^(i-1) / (1 + p + ... + p^999), so the weights of the 1000 ranks sum to 1
    (trec_eval 10.0's rbp weighs (1 - p) p^(i-1) over the whole list and grades gains).
    The parameter is p, default 0.8 (ir_measures'). The provider sorts by score as a
    double and takes tied documents in the order the run lists them, as smarteval does.
    """
    p = _persistence(params)
    longest = int(r.num_ret.max()) if r.num_queries else 0
    w = _rbp_weights(p, longest)
    return seg_sum(_rbp_gains(r) * w[r.rank - 1], r.offsets)


__all__ = ["CWL_DEPTH"]
