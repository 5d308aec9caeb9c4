"""Measures ir_measures users expect that trec_eval 9 lacks: RR@k and Judged@k."""

from __future__ import annotations

import numpy as np

from smarteval.columns import Ranked
from smarteval.measures.segments import first_true_rank, in_top, safe_div
from smarteval.registry import measure


@measure("recip_rank_cut", params="cutoffs", default=(10,), family="ir")
def recip_rank_cut(r: Ranked, k: int) -> np.ndarray:
    """Reciprocal rank of the first relevant document if it is among the first k, else 0 (RR@k).

    ir_measures' ``RR@10`` (MRR@10 of MS MARCO); without a cutoff it is trec_eval's
    recip_rank.
    """
    first = first_true_rank(r.is_rel, r.offsets)
    hit = (first > 0) & (first <= k)
    return safe_div(hit.astype(np.float64), first)


def _judged_tied(r: Ranked, k: int) -> np.ndarray:
    from smarteval.measures.tied import Expected
    return Expected(r).top(r.rel >= 0, k) / k


@measure("judged", params="cutoffs", default=(10,), family="ir", ties=_judged_tied)
def judged(r: Ranked, k: int) -> np.ndarray:
    """Fraction of the first k ranks holding a judged document (ir_measures' Judged@k).

    A document is judged when the qrels give it a grade of 0 or more (a negative grade
    marks it unusable). The fraction is over k, as trec_eval 10's unj is: ranks past the
    end of a short list count in neither, so judged + unj = min(k, retrieved) / k.
    """
    return in_top(r.rel >= 0, r.offsets, k) / k
