"""NTCIREVAL's measures of one topic, computed by pyNTCIREVAL itself (the reference).

``query(codes, grades, name, pairs)`` gives smarteval measure ``name``'s value with the
parameters ``pairs`` (grade=gain pairs and NTCIREVAL's keys, as the grammar reads them)
for a topic whose retrieved documents, in the run's line order, have relevance codes
``codes`` (a grade; -1 outside the qrels and -2 judged below 0: both unjudged for
NTCIREVAL) and whose qrels hold ``grades``. pyNTCIREVAL's ``-g`` is the given gains, a
level left out gaining its number, up to the highest level given or judged for the
topic; ``ntcir_Recall``, which NTCIREVAL lacks, is counted here.
"""

from __future__ import annotations

import math

from pyNTCIREVAL import Labeler
from pyNTCIREVAL.metrics import (
    AP,
    ERR,
    RBP,
    RR,
    Hit,
    MSnDCG,
    NCUguBR,
    NCUguP,
    NCUrbBR,
    NCUrbP,
    OMeasure,
    PMeasure,
    PPlusMeasure,
    Precision,
    QMeasure,
    nDCG,
    nERR,
)

DEFAULT_CUT = {"ntcir_nDCG", "ntcir_MSnDCG", "ntcir_nERR", "ntcir_Prec", "ntcir_Hit",
               "ntcir_Recall"}


def query(codes: list, grades: list, name: str, pairs, *, strict: bool = False) -> float:
    """The value, 0 where pyNTCIREVAL gives none (an empty list, an ideal ranking worth
    nothing) as smarteval's is; ``strict``: pyNTCIREVAL's own failure raised, its NaN
    returned."""
    pairs = tuple(pairs or ())
    gains = {g: v for g, v in pairs if not isinstance(g, str)}
    keys = {g: v for g, v in pairs if isinstance(g, str)}
    beta, gamma = keys.get("beta", 1.0), keys.get("gamma", 0.95)
    logb, p = keys.get("logb", 2.0), keys.get("p", 0.95)
    k = keys.get("k", 1000 if name in DEFAULT_CUT else None)
    k = None if k is None else int(k)
    judged = {f"r{i}": g for i, g in enumerate(codes) if g >= 0}
    rest = [g for g in grades if g >= 0]
    for g in judged.values():
        rest.remove(g)
    judged.update({f"u{i}": g for i, g in enumerate(rest)})
    top = max([*judged.values(), *gains, 0])
    if not any(g > 0 for g in judged.values()):
        return 0.0                       # NTCIREVAL refuses a topic without relevant ones
    levels = [gains.get(level, float(level)) for level in range(1, top + 1)]
    labeler = Labeler(judged, is_condensed=bool(keys.get("j", 0)))
    ranked = labeler.label([f"r{i}" for i in range(len(codes))])
    xrelnum = labeler.compute_per_level_doc_num(top + 1)
    if not ranked and not strict:
        return 0.0                       # pyNTCIREVAL fails on an empty list (max of nothing)
    if name == "ntcir_Recall":
        return sum(1 for _, g in ranked[:k] if g) / sum(xrelnum[1:])
    metric = {
        "ntcir_RR": lambda: RR(),
        "ntcir_O": lambda: OMeasure(xrelnum, levels, beta),
        "ntcir_P": lambda: PMeasure(xrelnum, levels, beta),
        "ntcir_Pplus": lambda: PPlusMeasure(xrelnum, levels, beta),
        "ntcir_AP": lambda: AP(xrelnum, levels, k),
        "ntcir_Q": lambda: QMeasure(xrelnum, levels, beta, k),
        "ntcir_NCUguP": lambda: NCUguP(xrelnum, levels, levels),
        "ntcir_NCUguBR": lambda: NCUguBR(xrelnum, levels, levels, beta),
        "ntcir_NCUrbP": lambda: NCUrbP(xrelnum, levels, gamma),
        "ntcir_NCUrbBR": lambda: NCUrbBR(xrelnum, levels, gamma, beta),
        "ntcir_RBP": lambda: RBP(xrelnum, levels, p),
        "ntcir_ERR": lambda: ERR(xrelnum, levels),
        "ntcir_nDCG": lambda: nDCG(xrelnum, levels, math.e if logb == 0 else logb, k),
        "ntcir_MSnDCG": lambda: MSnDCG(xrelnum, levels, k),
        "ntcir_nERR": lambda: nERR(xrelnum, levels, k),
        "ntcir_Prec": lambda: Precision(k),
        "ntcir_Hit": lambda: Hit(k),
    }[name]()
    if name in ("ntcir_RBP", "ntcir_ERR") and k is not None:
        ranked = ranked[:k]              # NTCIREVAL's RBP@k and ERR@k, which pyNTCIREVAL lacks
    try:
        value = float(metric.compute(ranked))
    except ZeroDivisionError:            # an ideal ranking worth nothing (gains of 0)
        if strict:
            raise
        return 0.0
    return 0.0 if math.isnan(value) and not strict else value
