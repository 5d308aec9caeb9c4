"""cwl_eval's inputs beside a ranking: fractional gains and element costs keyed by query and docno.

The ranking carries them (``Ranked.cwl``) to the C/W/L measures
(:mod:`smarteval.measures.cwl`), which read them at each ranked document.
"""

from __future__ import annotations

import math

import numpy as np


class Keyed:
    """Values keyed by (query id, docno): ``values[offsets[q]:offsets[q+1]]`` are those of
    query ``qids[q]``'s ``docnos`` (each docno once in a query).

    (A plain class, as :class:`CwlInputs`: a dataclass costs every start-up its making.)
    """

    __slots__ = ("qids", "offsets", "docnos", "values")

    def __init__(self, qids: np.ndarray, offsets: np.ndarray, docnos: np.ndarray,
                 values: np.ndarray):
        self.qids, self.offsets, self.docnos, self.values = qids, offsets, docnos, values


class CwlInputs:
    """What cwl_eval reads besides the qrels' whole grades, for one run.

    ``gains``: the qrels' gains when some are not whole numbers (cwl_eval's gain file;
    None: the grades are the gains). ``costs``: each retrieved document's cost, by its
    element type and the cost file (None: every document costs ``default_cost``).
    ``default_cost`` is also the cost of a document whose element type the file lacks.
    """

    __slots__ = ("gains", "costs", "default_cost")

    def __init__(self, gains: Keyed | None = None, costs: Keyed | None = None,
                 default_cost: float = 1.0):
        self.gains, self.costs, self.default_cost = gains, costs, default_cost


def element_costs(qids: np.ndarray, offsets: np.ndarray, docnos: np.ndarray,
                  types: np.ndarray, table: dict[bytes, float]) -> Keyed:
    """The cost of each row of a run, by its element type (NaN: a type ``table`` lacks)."""
    kinds, code = np.unique(types, return_inverse=True) if len(types) else (types, types)
    cost = np.array([table.get(bytes(k), math.nan) for k in kinds.tolist()], dtype=np.float64)
    return Keyed(qids, offsets, docnos, cost[np.asarray(code, dtype=np.int64).reshape(-1)]
                 if len(types) else np.zeros(0))
