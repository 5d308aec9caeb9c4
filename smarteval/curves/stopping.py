"""Rocchio's curve: recall and precision as the stopping rule n varies.

"Let the user examine the retrieved list in order until he encounters n consecutive
nonrelevant documents; this defines a cutoff point; by varying n, a series of points on
the precision vs. recall curve can be produced" (Rocchio, section 4, Fig. 1). The user
also stops at the end of the list. Each level is one n; the curve's points are the
averaged (recall, precision) there: macro the means of each query's found/R and
found/examined, micro the pooled Σfound/ΣR and Σfound/Σexamined (Rocchio's Table 2),
median the medians.
"""

from __future__ import annotations

import numpy as np

from smarteval.columns import Ranked
from smarteval.curves.base import REAL, Curve, counts


def stopping(r: Ranked, levels: np.ndarray, average: str) -> Curve:
    """Averaged precision, recall and documents examined for each stopping rule n."""
    from smarteval.measures.smart import cnr_counts
    Q, K = r.num_queries, len(levels)
    found = np.zeros((Q, K))
    seen = np.zeros((Q, K))
    for k, n in enumerate(levels):                  # a loop over levels, not queries
        found[:, k], seen[:, k] = cnr_counts(r, int(n))
    R = r.num_rel.astype(np.float64)[:, None]
    rec = np.where(R > 0, found / np.maximum(R, 1), 0.0)
    prec = np.where(seen > 0, found / np.maximum(seen, 1), 0.0)
    if Q == 0:
        value = recall = examined = np.full(K, np.nan)
    elif average == "micro":
        tot = R.sum()
        recall = found.sum(axis=0) / tot if tot > 0 else np.zeros(K)
        den = seen.sum(axis=0)
        value = np.where(den > 0, found.sum(axis=0) / np.maximum(den, 1), 0.0)
        examined = seen.mean(axis=0)
    elif average == "median":
        value, recall = np.median(prec, axis=0), np.median(rec, axis=0)
        examined = np.median(seen, axis=0)
    else:
        value, recall, examined = prec.mean(axis=0), rec.mean(axis=0), seen.mean(axis=0)
    return Curve(method="cnr", step="highest", left="none", average=average, levels=levels,
                 value=value, recall=recall, examined=examined, per_query=prec,
                 **counts(np.full((Q, K), REAL)))
