"""The collection beyond the run: N per query, and the ranks of relevant documents never retrieved.

SMART measures over the ranks of *all* relevant documents place the m unretrieved ones
with ``--unranked``: ``expected`` (default) as a uniform random placement among ranks
L+1..N would in expectation, ``worst`` at ranks N-m+1..N. N < L + m is an input error.
"""

from __future__ import annotations

import numpy as np

from smarteval.columns import Ranked
from smarteval.errors import InputError, UsageError
from smarteval.measures.segments import safe_div
from smarteval.measures.tied import Exact
from smarteval.settings import UNRANKED


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
