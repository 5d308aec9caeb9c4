"""Aggregation: per-query values into the summary value, as each measure's entry says."""

from __future__ import annotations

import math

import numpy as np

from smarteval.errors import UsageError
from smarteval.registry import GMEAN_FLOOR, Output


def sequential_sum(values: np.ndarray) -> float:
    """Sum in query order, one addition at a time, as trec_eval accumulates."""
    if len(values) == 0:
        return 0.0
    return float(np.cumsum(np.asarray(values, dtype=np.float64))[-1])


def summarize(out: Output, values: np.ndarray, ranked, *, average: str = "macro"):
    """The summary value of one output over all evaluated queries.

    ``average`` is ``macro`` (trec_eval's: each query counts once), ``median``, or
    ``micro`` (pool the counts of every query first; only for measures that are a
    ratio of counts, whose entry gives a ``micro`` function).
    """
    m = out.measure
    n_q = len(values)
    if m.average == "tag":
        return ranked.run_tag
    if m.average == "count":
        return n_q
    if m.average == "none":
        return None
    if m.average == "sum":
        return int(np.sum(values))
    if average == "median" and m.average in ("mean", "gmean"):
        return float(np.median(values)) if n_q else 0.0
    if average == "micro" and m.average in ("mean", "gmean"):
        if m.micro is None:
            raise UsageError(f"{out.name} is not a ratio of counts, so it has no micro "
                             "average; use --average macro or median")
        r = ranked if out.rel_level is None else ranked.at_level(out.rel_level)
        num, den = (m.micro(r) if m.params == "none" else m.micro(r, out.param))
        tot = float(np.sum(den))
        return float(np.sum(num)) / tot if tot else 0.0
    if m.average == "gmean":
        # queries added by -c are accumulated after the others, as trec_eval 9 does
        in_run = ranked.in_run
        logs = np.log(np.maximum(np.asarray(values, dtype=np.float64)[in_run], GMEAN_FLOOR))
        total = sequential_sum(logs) + (n_q - int(in_run.sum())) * math.log(GMEAN_FLOOR)
        return math.exp(total / n_q) if n_q else 0.0
    # mean
    return sequential_sum(values) / n_q if n_q else 0.0
