"""The C/W/L oracle: cwl_eval's own classes on one query's gains, in rank order."""

from __future__ import annotations

import functools
import logging
import math


def cwl_query(codes: list, kind: str, params: tuple, quantity: str = "EU",
              residuals: bool = False, costs: list | None = None,
              default_cost: float = 1.0) -> float:
    """cwl_eval's ``quantity`` (EU, ETU, EC, ETC, ED, or ResEU ...) for one ranking.

    ``codes`` are the retrieved documents' grades or gains in rank order (the integer -1:
    not in the qrels; another negative one: a negative grade); ``params`` the measure's
    parameters, optionally then min_rel and max_rel. Gains as ir_measures' cwl_eval
    provider makes them (a negative grade 0, clipped to [min_rel, max_rel], scaled to
    [0, 1]). ``costs`` holds each document's cost (NaN: its element type has none; by
    default every one), ``default_cost`` cwl_eval's ``max_cost`` and ``min_cost``.
    The last rankings measured are kept: asking for another quantity of one is free.
    """
    key = (tuple((type(c), c) for c in codes), kind, tuple(params), residuals,
           None if costs is None else tuple(None if math.isnan(c) else c for c in costs),
           default_cost)
    values = _measured(*key)
    return values[quantity]


@functools.lru_cache(maxsize=64)
def _measured(typed_codes: tuple, kind: str, params: tuple, residuals: bool,
              cost_key: tuple | None, default_cost: float) -> dict[str, float]:
    """Every quantity of :func:`cwl_query`, from its key (NaN costs as None)."""
    import numpy as np
    codes = [c for _, c in typed_codes]
    costs = None if cost_key is None else [math.nan if c is None else c for c in cost_key]
    from cwl.ruler.cwl_ruler import (
        APCWLMetric,
        BPMCWLMetric,
        BPMDCWLMetric,
        IFTGoalCWLMetric,
        IFTGoalRateCWLMetric,
        IFTRateCWLMetric,
        INSQCWLMetric,
        INSTCWLMetric,
        NDCGCWLMetric,
        NERReq8CWLMetric,
        NERReq9CWLMetric,
        NERReq10CWLMetric,
        NERReq11CWLMetric,
        PrecisionCWLMetric,
        RBPCWLMetric,
        RRCWLMetric,
        TBGCWLMetric,
        UMeasureCWLMetric,
    )
    from cwl.ruler.ranking import Ranking
    logging.getLogger("cwl").disabled = True
    defaults = {"INST": (1.0,), "INSQ": (1.0,), "TBG": (224.0,), "U-measure": (1000.0,),
                "BPM": (1.0, 10.0), "NERR8": (10.0,), "NERR9": (10.0,), "NERR10": (0.9,),
                "NERR11": (1.0,), "RBP": (0.9,), "BPM-Dynamic": (1.0, 10.0, 1.0, 1.0, 0.5),
                "IFT-C1": (2.0, 0.9, 10.0), "IFT-C2": (0.2, 0.9, 10.0),
                "IFT-C1-C2": (2.0, 0.9, 10.0, 2.0, 0.9, 10.0), "P": (10.0,),
                "NDCG": (10.0,), "RR": (), "AP": ()}[kind]
    p = [float(v) for v in params]
    n = len(defaults)
    if len(p) <= n:
        p = p + list(defaults[len(p):]) + [0.0, 1.0]
    own, lo, hi = p[:n], p[n], p[n + 1]
    gains = [math.nan if c == -1 and isinstance(c, int)
             else (min(max(max(c, 0), lo), hi) - lo) / (hi - lo) for c in codes]
    cls = {"INST": INSTCWLMetric, "INSQ": INSQCWLMetric, "TBG": TBGCWLMetric,
           "U-measure": UMeasureCWLMetric, "BPM": BPMCWLMetric, "NERR8": NERReq8CWLMetric,
           "NERR9": NERReq9CWLMetric, "NERR10": NERReq10CWLMetric,
           "NERR11": NERReq11CWLMetric, "RBP": RBPCWLMetric, "BPM-Dynamic": BPMDCWLMetric,
           "IFT-C1": IFTGoalCWLMetric, "IFT-C2": IFTRateCWLMetric,
           "IFT-C1-C2": IFTGoalRateCWLMetric, "P": PrecisionCWLMetric, "NDCG": NDCGCWLMetric,
           "RR": RRCWLMetric, "AP": APCWLMetric}[kind]
    m = cls(*([int(v) for v in own] if kind == "P" else own))
    m.residuals = residuals
    cost = np.full(len(codes), np.nan) if costs is None else np.array(costs, dtype=float)
    m.measure(Ranking("q", np.array(gains, dtype=float), cost, max_cost=default_cost,
                      min_cost=default_cost, max_n=1000))
    names = {"EU": "expected_utility", "ETU": "expected_total_utility",
             "EC": "expected_cost", "ETC": "expected_total_cost", "ED": "expected_items"}
    out = {q: float(getattr(m, attr)) for q, attr in names.items()}
    if residuals:
        out.update({f"Res{q}": float(getattr(m, "residual_" + attr))
                    for q, attr in names.items()})
    return out
