"""NTCIREVAL's measures (Sakai): Q-measure, nDCG and MSnDCG, nERR, P-measure, P+, O-measure,
RBP, ERR, NCU, AP, RR, Hit, precision and recall, as NTCIREVAL and pyNTCIREVAL give them.

NTCIREVAL evaluates one ranked list a topic: the run's documents in the order of its
lines (its ``TRECsplitruns`` ignores ranks and scores), each at a relevance level from its
rel file (L0 judged non-relevant, L1, L2... relevant; a document the file lacks is
unjudged, which counts as L0). A level's gain is given per level, ``-g 1:2:3``; here
``NAME.L1=1,L2=3`` (or ``1=1,2=3``), a level left out keeping its number as its gain.
NTCIREVAL's ``-g`` also declares the highest level, whose gain scales RBP and ERR: here
the highest level given a gain, or the topic's highest judged level if that is higher.
With R the judged relevant documents, ``g(r)`` the gain at rank r, ``cg(r)`` the gains and
``C(r)`` the relevant documents up to r, and ``cig(r)`` the sum of the r highest gains of
the topic's relevant documents (the ideal ranking's), the blended ratio is

    BR(r) = (C(r) + beta cg(r)) / (r + beta cig(r))         (beta: ``beta=``, default 1)

and Q-measure averages it over the relevant documents retrieved (divided by R, or by
min(R, k) with a cut-off ``k=``), AP the same with beta 0 (precision). Every measure
takes ``j=1``, NTCIREVAL's ``-j``: the condensed list (Sakai, SIGIR 2007), unjudged
documents removed before anything is counted. Each asked set of parameters is printed,
named by it (``ntcir_Q``, ``ntcir_Q_beta=0.5,k=10``).

Where NTCIREVAL divides by zero (a topic without a relevant document, which it refuses),
the value is 0. So it is for the two topics pyNTCIREVAL gives no value: an empty
condensed list (``j=1``, every retrieved document unjudged; it fails on the empty list
for every measure), nothing relevant retrieved; and a topic whose levels present all
have gain 0, where nDCG, MSnDCG, nERR, RBP and the graded-uniform NCUs divide by the
ideal ranking's gain or the highest level's (0/0; nERR's NaN in pyNTCIREVAL); the
measures that count relevant documents (AP, Q, RR, O, P, P+, the rank-biased NCUs, ERR,
Prec, Hit, Recall) keep their values. ``-l`` has no effect: a level above 0 is relevant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from smarteval import libm
from smarteval.columns import Ranked
from smarteval.errors import UsageError
from smarteval.measures.registry import measure
from smarteval.measures.segments import (
    first_true_rank,
    positions,
    safe_div,
    seg_cumsum,
    seg_exclusive_cumprod,
    seg_sum,
)
from smarteval.settings import LONG_MAX

#: NTCIREVAL's default cut-off (its ``-cutoffs``) for the measures it gives at cut-offs only
CUTOFF = 1000


# =========================================================================== parameters

@dataclass(frozen=True)
class _Options:
    """One measure's parameters: per-level gains, and NTCIREVAL's options."""

    gains: tuple            # ((level, gain), ...) as given
    beta: float = 1.0       # --beta
    gamma: float = 0.95     # --gamma (rank-biased NCU)
    logb: float = 2.0       # --logb (nDCG's log base; 0 for e)
    p: float = 0.95         # --rbp (persistence)
    k: int | None = None    # a cut-off (--cutoffs)
    condensed: bool = False  # -j


def _options(name: str, pairs: tuple, k: int | None = None) -> _Options:
    """The parameters of ``pairs`` (grade=gain pairs and NTCIREVAL's keys), checked."""
    gains = tuple((g, v) for g, v in pairs if not isinstance(g, str))
    keys = {g: v for g, v in pairs if isinstance(g, str)}
    if any(g < 1 for g, _ in gains):
        raise UsageError(f"{name}: NTCIREVAL's gains are per relevance level, L1 and above")
    if any(v < 0 for _, v in gains):
        raise UsageError(f"{name}: a gain is 0 or more (NTCIREVAL's -g)")
    checks = {"beta": (0, math.inf), "gamma": (0, 1), "logb": (0, math.inf), "p": (0, 1),
              "k": (1, math.inf), "j": (0, 1)}
    for key, v in keys.items():
        lo, hi = checks[key]
        if not lo <= v <= hi or not math.isfinite(v) or \
                (key in ("k", "j") and not float(v).is_integer()):
            raise UsageError(f"{name}: {key}={v:g} is out of range")
    cut = keys.get("k", k)
    if cut is not None:
        cut = min(cut, LONG_MAX)            # past every rank: the same as no larger one
    return _Options(gains, keys.get("beta", 1.0), keys.get("gamma", 0.95),
                    keys.get("logb", 2.0), keys.get("p", 0.95),
                    None if cut is None else int(cut), bool(keys.get("j", 0)))


@dataclass(frozen=True, eq=False)
class _List:
    """Each topic's ranked list as NTCIREVAL reads it, and its ideal rankings."""

    offsets: np.ndarray     # (Q+1,)
    rank: np.ndarray        # (n,) 1-based
    level: np.ndarray       # (n,) the level (0 for an unjudged document)
    gain: np.ndarray        # (n,)
    relevant: np.ndarray    # (n,) bool: level above 0
    so_far: np.ndarray      # (n,) C(r): relevant documents up to each row
    num_rel: np.ndarray     # (Q,) R: judged relevant documents
    max_gain: np.ndarray    # (Q,) the highest level's gain (RBP's and ERR's scale)
    ideal_offsets: np.ndarray   # (Q+1,) every judged document, by level descending
    ideal_gain: np.ndarray
    by_gain: np.ndarray     # (m,) the relevant documents' gains, highest first (BR's ideal)
    by_gain_offsets: np.ndarray


def _list(r: Ranked, o: _Options) -> _List:
    key = ("ntcireval list", o.gains, o.condensed)
    if key in r.memo:
        return r.memo[key]
    view = r.subset(r.rel >= 0) if o.condensed else r
    given = max((g for g, _ in o.gains), default=0)
    gain = _gain_of(o.gains)
    level = np.maximum(view.rel, 0)
    relevant = level > 0
    offsets = view.offsets
    seen = np.zeros(len(relevant) + 1, dtype=np.int64)
    np.cumsum(relevant, out=seen[1:])
    so_far = seen[1:] - seen[offsets[:-1]][_row_query(offsets)]
    grades = r.qrel_grades
    q = r.qrel_qindex
    rel = grades > 0
    order = np.lexsort((-gain(grades[rel]), q[rel]))
    by_gain = gain(grades[rel])[order]
    counts = np.bincount(q[rel], minlength=r.num_queries)
    # the highest level: the highest given a gain, or the topic's highest judged one
    highest = np.full(r.num_queries, given, dtype=np.int64)
    np.maximum.at(highest, q, grades)
    out = _List(offsets=offsets, rank=positions(offsets), level=level, gain=gain(level),
                relevant=relevant, so_far=so_far, num_rel=counts.astype(np.int64),
                max_gain=gain(highest), ideal_offsets=r.qrel_offsets,
                ideal_gain=gain(grades), by_gain=by_gain,
                by_gain_offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64))
    r.memo[key] = out
    return out


def _gain_of(gains: tuple):
    """Each level's gain, looked up among the levels given: a level's number unless given,
    0 for level 0 and below. Memory grows with the levels given, never with a level's
    value (a table indexed by level would hold 10**8 gains for one grade of 10**8)."""
    table = dict(gains)
    levels = np.array(sorted(table), dtype=np.int64)
    values = np.array([table[g] for g in levels.tolist()], dtype=np.float64)

    def gain(level: np.ndarray) -> np.ndarray:
        level = np.asarray(level, dtype=np.int64)
        out = np.maximum(level, 0).astype(np.float64)
        if len(levels):
            at = np.minimum(np.searchsorted(levels, level), len(levels) - 1)
            hit = levels[at] == level
            out[hit] = values[at[hit]]
        out[level <= 0] = 0.0
        return out
    return gain


def _row_query(offsets: np.ndarray) -> np.ndarray:
    """(n,) the query of each row."""
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def _within(lst: _List, k: int | None) -> np.ndarray:
    """(n,) bool: the rows at rank k or above (every row without a cut-off)."""
    return np.ones(len(lst.rank), dtype=bool) if k is None else lst.rank <= k


def _ideal_cumulated(lst: _List) -> np.ndarray:
    """(n,) cig(r): the sum of the topic's r highest relevant gains, at each row's rank."""
    cum = seg_cumsum(lst.by_gain, lst.by_gain_offsets)
    q = _row_query(lst.offsets)
    take = np.minimum(lst.rank, lst.num_rel[q])
    at = lst.by_gain_offsets[:-1][q] + take - 1
    return np.where(take > 0, cum[np.maximum(at, 0)] if len(cum) else 0.0, 0.0)


def _blended(lst: _List, beta: float) -> np.ndarray:
    """(n,) BR(r) at every row."""
    cg = seg_cumsum(lst.gain, lst.offsets)
    return (lst.so_far + beta * cg) / (lst.rank + beta * _ideal_cumulated(lst))


def _over_relevant(lst: _List, terms: np.ndarray, k: int | None) -> np.ndarray:
    """(Q,) the sum of ``terms`` at the relevant rows within the cut-off."""
    return seg_sum(np.where(lst.relevant & _within(lst, k), terms, 0.0), lst.offsets)


def _ncu(lst: _List, ratio: np.ndarray, stop: np.ndarray) -> np.ndarray:
    return seg_sum(np.where(lst.relevant, ratio * stop, 0.0), lst.offsets)


# =========================================================================== the measures,
# in the order NTCIREVAL prints them

_NTCIR = ("L", "j")


@measure("ntcir_RR", params="gains", origin="ntcir", keys=_NTCIR)
def ntcir_rr(r: Ranked, pairs: tuple) -> np.ndarray:
    """Reciprocal rank of the first relevant document (NTCIREVAL's RR)."""
    lst = _list(r, _options("ntcir_RR", pairs))
    first = first_true_rank(lst.relevant, lst.offsets)
    return safe_div(first > 0, first)


@measure("ntcir_O", params="gains", origin="ntcir", keys=(*_NTCIR, "beta"))
def ntcir_o(r: Ranked, pairs: tuple) -> np.ndarray:
    """O-measure: the blended ratio at the first relevant document, its own gain alone
    counted (NTCIREVAL's O-measure; Sakai 2006).

    (1 + beta g(r1)) / (r1 + beta cig(r1)), r1 the rank of the first relevant document.
    """
    o = _options("ntcir_O", pairs)
    lst = _list(r, o)
    value = (1 + o.beta * lst.gain) / (lst.rank + o.beta * _ideal_cumulated(lst))
    first = lst.relevant & (lst.so_far == 1)
    return seg_sum(np.where(first, value, 0.0), lst.offsets)


def _first_best(lst: _List) -> np.ndarray:
    """(Q,) the rank of the first document of the list's highest level, 0 when no
    document of the list is relevant."""
    nq = len(lst.offsets) - 1
    q = _row_query(lst.offsets)
    best = np.zeros(nq, dtype=np.int64)
    np.maximum.at(best, q, lst.level)
    return first_true_rank((lst.level == best[q]) & (best[q] > 0), lst.offsets)


@measure("ntcir_P", params="gains", origin="ntcir", keys=(*_NTCIR, "beta"))
def ntcir_p(r: Ranked, pairs: tuple) -> np.ndarray:
    """P-measure: the blended ratio at the first document of the list's highest level
    (NTCIREVAL's P-measure; Sakai 2006)."""
    o = _options("ntcir_P", pairs)
    lst = _list(r, o)
    at = _first_best(lst)
    q = _row_query(lst.offsets)
    return seg_sum(np.where(lst.rank == at[q], _blended(lst, o.beta), 0.0), lst.offsets)


@measure("ntcir_Pplus", params="gains", origin="ntcir", keys=(*_NTCIR, "beta"))
def ntcir_pplus(r: Ranked, pairs: tuple) -> np.ndarray:
    """P+-measure: BR averaged over the relevant documents down to the first of the
    highest level (NTCIREVAL's P-plus)."""
    o = _options("ntcir_Pplus", pairs)
    lst = _list(r, o)
    upto = (lst.rank <= _first_best(lst)[_row_query(lst.offsets)]) & lst.relevant
    total = seg_sum(np.where(upto, _blended(lst, o.beta), 0.0), lst.offsets)
    return safe_div(total, seg_sum(upto.astype(np.float64), lst.offsets))


@measure("ntcir_AP", params="gains", origin="ntcir", keys=(*_NTCIR, "k"))
def ntcir_ap(r: Ranked, pairs: tuple) -> np.ndarray:
    """Average precision (NTCIREVAL's AP; AP@k with ``k=``, over min(R, k)).

    Q-measure with beta 0: precision at each relevant document within the cut-off,
    summed, over R (min(R, k) with a cut-off).
    """
    o = _options("ntcir_AP", pairs)
    lst = _list(r, o)
    total = _over_relevant(lst, lst.so_far / lst.rank, o.k)
    return safe_div(total, _denominator(lst, o.k))


def _denominator(lst: _List, k: int | None) -> np.ndarray:
    return lst.num_rel if k is None else np.minimum(lst.num_rel, k)


@measure("ntcir_Q", params="gains", origin="ntcir", keys=(*_NTCIR, "beta", "k"))
def ntcir_q(r: Ranked, pairs: tuple) -> np.ndarray:
    """Q-measure: the blended ratio averaged over the relevant documents (NTCIREVAL's
    Q-measure; Q@k with ``k=``; Sakai 2004).

    The sum of BR(r) at the relevant documents within the cut-off, over R (min(R, k)).
    """
    o = _options("ntcir_Q", pairs)
    lst = _list(r, o)
    total = _over_relevant(lst, _blended(lst, o.beta), o.k)
    return safe_div(total, _denominator(lst, o.k))


def _graded_stop(lst: _List) -> np.ndarray:
    """(n,) the graded-uniform stopping probability: a level's gain over the sum of the
    topic's relevant gains (NTCIREVAL's stop values default to its gains)."""
    total = seg_sum(lst.by_gain, lst.by_gain_offsets)
    return safe_div(lst.gain, total[_row_query(lst.offsets)])


def _rank_biased_stop(lst: _List, gamma: float) -> np.ndarray:
    """(n,) the rank-biased stopping probability at a relevant document:
    gamma^(C(r) - 1) over the sum of gamma^i for i below R."""
    powers = _geometric_sums(gamma, lst.num_rel)
    return safe_div(libm.power_at(gamma, np.maximum(lst.so_far - 1, 0)),
                    powers[_row_query(lst.offsets)])


def _geometric_sums(gamma: float, counts: np.ndarray) -> np.ndarray:
    """(Q,) sum(gamma^i for i < n), added term by term as Python's sum does."""
    top = int(counts.max(initial=0))
    terms = libm.power_at(gamma, np.arange(top))
    cum = np.concatenate(([0.0], np.cumsum(terms)))
    return cum[counts]


@measure("ntcir_NCUguP", params="gains", origin="ntcir", keys=_NTCIR)
def ntcir_ncu_gu_p(r: Ranked, pairs: tuple) -> np.ndarray:
    """NCU with graded-uniform stopping and precision (NTCIREVAL's NCUgu,P).

    Precision at each relevant document, weighted by its gain's share of the topic's
    relevant gains (Sakai & Robertson 2008).
    """
    lst = _list(r, _options("ntcir_NCUguP", pairs))
    return _ncu(lst, lst.so_far / lst.rank, _graded_stop(lst))


@measure("ntcir_NCUguBR", params="gains", origin="ntcir", keys=(*_NTCIR, "beta"))
def ntcir_ncu_gu_br(r: Ranked, pairs: tuple) -> np.ndarray:
    """NCU with graded-uniform stopping and the blended ratio (NTCIREVAL's NCUgu,BR)."""
    o = _options("ntcir_NCUguBR", pairs)
    lst = _list(r, o)
    return _ncu(lst, _blended(lst, o.beta), _graded_stop(lst))


@measure("ntcir_NCUrbP", params="gains", origin="ntcir", keys=(*_NTCIR, "gamma"))
def ntcir_ncu_rb_p(r: Ranked, pairs: tuple) -> np.ndarray:
    """NCU with rank-biased stopping (gamma, default 0.95) and precision (NTCIREVAL's
    NCUrb,P)."""
    o = _options("ntcir_NCUrbP", pairs)
    lst = _list(r, o)
    return _ncu(lst, lst.so_far / lst.rank, _rank_biased_stop(lst, o.gamma))


@measure("ntcir_NCUrbBR", params="gains", origin="ntcir", keys=(*_NTCIR, "gamma", "beta"))
def ntcir_ncu_rb_br(r: Ranked, pairs: tuple) -> np.ndarray:
    """NCU with rank-biased stopping and the blended ratio (NTCIREVAL's NCUrb,BR)."""
    o = _options("ntcir_NCUrbBR", pairs)
    lst = _list(r, o)
    return _ncu(lst, _blended(lst, o.beta), _rank_biased_stop(lst, o.gamma))


@measure("ntcir_RBP", params="gains", origin="ntcir", keys=(*_NTCIR, "p", "k"))
def ntcir_rbp(r: Ranked, pairs: tuple) -> np.ndarray:
    """Rank-biased precision, gains over the highest level's (NTCIREVAL's RBP; RBP@k).

    Persistence ``p=`` (default 0.95); a cut-off with ``k=``.
    """
    o = _options("ntcir_RBP", pairs)
    lst = _list(r, o)
    scaled = safe_div(lst.gain, lst.max_gain[_row_query(lst.offsets)])
    weight = (1 - o.p) * libm.power_at(o.p, lst.rank - 1)
    return seg_sum(np.where(_within(lst, o.k), scaled * weight, 0.0), lst.offsets)


def _err(gain: np.ndarray, offsets: np.ndarray, rank: np.ndarray, scale: np.ndarray,
         within: np.ndarray) -> np.ndarray:
    """(Q,) ERR with a document's chance of satisfying gain / (scale + 1), ``scale`` the
    topic's highest gain."""
    chance = gain / (scale[_row_query(offsets)] + 1.0)
    below = seg_exclusive_cumprod(1.0 - chance, offsets)
    return seg_sum(np.where(within, chance * (1.0 / rank * below), 0.0), offsets)


@measure("ntcir_ERR", params="gains", origin="ntcir", keys=(*_NTCIR, "k"))
def ntcir_err(r: Ranked, pairs: tuple) -> np.ndarray:
    """Expected reciprocal rank with linear gains (NTCIREVAL's ERR; ERR@k with ``k=``).

    A level's chance to satisfy is its gain over the highest level's gain plus 1.
    """
    o = _options("ntcir_ERR", pairs)
    lst = _list(r, o)
    return _err(lst.gain, lst.offsets, lst.rank, lst.max_gain, _within(lst, o.k))


def _ideal_rank(lst: _List) -> np.ndarray:
    return positions(lst.ideal_offsets)


@measure("ntcir_nDCG", params="gains", origin="ntcir", keys=(*_NTCIR, "logb", "k"))
def ntcir_ndcg(r: Ranked, pairs: tuple) -> np.ndarray:
    """nDCG as Järvelin and Kekäläinen first defined it (NTCIREVAL's nDCG@k, k=1000).

    Gains undiscounted down to rank b (the log base ``logb=``, default 2; 0 for e), then
    divided by log_b(rank); over the ideal ranking's.
    """
    o = _options("ntcir_nDCG", pairs, CUTOFF)
    lst = _list(r, o)
    base = math.e if o.logb == 0 else o.logb

    def dcg(gain, rank, offsets):
        disc = np.where((rank == 1) | (rank < base), 1.0,
                        libm.log(np.maximum(rank, 1)) / math.log(base))
        return seg_sum(np.where(rank <= o.k, gain / disc, 0.0), offsets)

    ideal_rank = _ideal_rank(lst)
    return safe_div(dcg(lst.gain, lst.rank, lst.offsets),
                    dcg(lst.ideal_gain, ideal_rank, lst.ideal_offsets))


@measure("ntcir_MSnDCG", params="gains", origin="ntcir", keys=(*_NTCIR, "k"))
def ntcir_msndcg(r: Ranked, pairs: tuple) -> np.ndarray:
    """Microsoft nDCG: gains over log(rank + 1) (NTCIREVAL's MSnDCG@k, k=1000 by
    default; Burges et al. 2005)."""
    o = _options("ntcir_MSnDCG", pairs, CUTOFF)
    lst = _list(r, o)

    def dcg(gain, rank, offsets):
        return seg_sum(np.where(rank <= o.k, gain / libm.log(rank + 1), 0.0), offsets)

    return safe_div(dcg(lst.gain, lst.rank, lst.offsets),
                    dcg(lst.ideal_gain, _ideal_rank(lst), lst.ideal_offsets))


@measure("ntcir_nERR", params="gains", origin="ntcir", keys=(*_NTCIR, "k"))
def ntcir_nerr(r: Ranked, pairs: tuple) -> np.ndarray:
    """ERR over the ideal ranking's ERR (NTCIREVAL's nERR@k, k=1000 by default)."""
    o = _options("ntcir_nERR", pairs, CUTOFF)
    lst = _list(r, o)
    ideal_rank = _ideal_rank(lst)
    return safe_div(_err(lst.gain, lst.offsets, lst.rank, lst.max_gain, _within(lst, o.k)),
                    _err(lst.ideal_gain, lst.ideal_offsets, ideal_rank, lst.max_gain,
                         ideal_rank <= o.k))


@measure("ntcir_Prec", params="gains", origin="ntcir", keys=(*_NTCIR, "k"))
def ntcir_prec(r: Ranked, pairs: tuple) -> np.ndarray:
    """Precision after k documents (NTCIREVAL's P@k, k=1000 by default)."""
    o = _options("ntcir_Prec", pairs, CUTOFF)
    lst = _list(r, o)
    assert o.k is not None
    return seg_sum((lst.relevant & _within(lst, o.k)).astype(np.float64), lst.offsets) / o.k


@measure("ntcir_Hit", params="gains", origin="ntcir", keys=(*_NTCIR, "k"))
def ntcir_hit(r: Ranked, pairs: tuple) -> np.ndarray:
    """1 when a relevant document is among the first k, else 0 (NTCIREVAL's Hit@k, k=1000
    by default)."""
    o = _options("ntcir_Hit", pairs, CUTOFF)
    lst = _list(r, o)
    hits = seg_sum((lst.relevant & _within(lst, o.k)).astype(np.float64), lst.offsets)
    return (hits > 0).astype(np.float64)


@measure("ntcir_Recall", params="gains", origin="ntcir", keys=(*_NTCIR, "k"))
def ntcir_recall(r: Ranked, pairs: tuple) -> np.ndarray:
    """Recall after k documents, over R (k=1000; at NTCIREVAL's conventions).

    NTCIREVAL prints no recall: this is smarteval's, with its conventions (a level above
    0 relevant, the run's line order).
    """
    o = _options("ntcir_Recall", pairs, CUTOFF)
    lst = _list(r, o)
    hits = seg_sum((lst.relevant & _within(lst, o.k)).astype(np.float64), lst.offsets)
    return safe_div(hits, lst.num_rel)
