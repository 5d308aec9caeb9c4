"""The diversity oracle: ndeval's own C code (pyndeval) on one query, documents in a given order.

pyndeval sorts a query's documents by score, then docno ascending; each document is
given a distinct score here, so it reads them in exactly the order given (the ranking's).
"""

from __future__ import annotations

import math


def ndeval_query(qrels: list[tuple[str, str, int]], docs: list[str], measure: str, *,
                 k: int | None = None, alpha: float = 0.5, beta: float = 0.5,
                 level: int = 1) -> float:
    """ndeval's ``measure`` (pyndeval's name: ``alpha-nDCG``, ``NRBP`` ...) for one query.

    ``qrels`` holds (subtopic, docno, grade) triples, ``docs`` the ranking, best first.
    A query without documents is what ndeval's arithmetic gives an empty list: 0, and
    nNRBP 0 over the ideal's NRBP (NaN when nothing is relevant).
    """
    import pyndeval
    name = f"{measure}@{k}" if k is not None else measure
    judged = [("q", s, d, g) for s, d, g in qrels]
    if docs and judged:
        ev = pyndeval.RelevanceEvaluator(judged, [name], relevance_level=level, alpha=alpha,
                                         beta=beta)
        run = [("q", d, float(len(docs) - i)) for i, d in enumerate(docs)]
        return float(ev.evaluate(run)["q"][name])
    if measure != "nNRBP":
        return 0.0
    relevant = {d for _, d, g in qrels if g >= level}
    if not relevant or (alpha == 0.0 and beta == 1.0):
        return math.nan
    return 0.0


def plain_query(codes: list[int], grades: list[int], measure: str, p, level: int) -> float:
    """ndeval's value on plain qrels (one subtopic) from an oracle Query's codes and grades.

    ``codes`` are the retrieved documents' grades in rank order (-1: not judged, -2: a
    negative grade); the judged documents not retrieved are the rest of ``grades``.
    """
    qrels, docs = [], []
    left = sorted(g for g in grades if g >= 0)
    for i, c in enumerate(codes):
        docs.append(f"r{i:03d}")
        if c >= 0:
            qrels.append(("0", f"r{i:03d}", c))
            left.remove(c)
        elif c == -2:
            qrels.append(("0", f"r{i:03d}", -1))
    qrels += [("0", f"u{j:03d}", g) for j, g in enumerate(left)]
    if isinstance(p, tuple):
        v = [float(x) for x in p]
        return ndeval_query(qrels, docs, measure, alpha=v[0] if v else 0.5,
                            beta=v[1] if len(v) > 1 else 0.5, level=level)
    return ndeval_query(qrels, docs, measure, k=p, level=level)
