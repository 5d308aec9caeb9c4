"""Build Ranked objects for the SMART tests straight from lists of grades (no files)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from smarteval.columns import Ranked, Settings


def make_ranked(lists: Sequence[Sequence[int]], qrels: Sequence[Sequence[int]] | None = None,
                scores: Sequence[Sequence[float]] | None = None, *, rel_level: int = 1,
                qids: Sequence[str] | None = None, **settings) -> Ranked:
    """A Ranked from each query's retrieved grades in rank order.

    ``lists[q]`` holds the grade of each retrieved document (-1: not in the qrels).
    ``qrels[q]`` holds every judged grade of the query; by default the judged grades of
    its retrieved documents. ``scores[q]`` sets the scores (ties for --ties average and
    esl); by default every document has its own score. ``settings`` go to Settings
    (num_docs, unranked, target_generality, ties).
    """
    nq = len(lists)
    if qrels is None:
        qrels = [[g for g in lst if g >= 0] for lst in lists]
    if scores is None:
        scores = [[float(len(lst) - i) for i in range(len(lst))] for lst in lists]
    counts = [len(x) for x in lists]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    rel = np.array([g for lst in lists for g in lst], dtype=np.int64)
    score = np.array([s for lst in scores for s in lst], dtype=np.float64)
    grades = [sorted((g for g in qr if g >= 0), reverse=True) for qr in qrels]
    qrel_offsets = np.concatenate(([0], np.cumsum([len(g) for g in grades]))).astype(np.int64)
    qrel_grades = np.array([g for gs in grades for g in gs], dtype=np.int64)
    docno = np.array([f"D{i}".encode() for i in range(len(rel))], dtype="S")
    if qids is None:
        qids = [f"q{i:03d}" for i in range(nq)]
    return Ranked(qids=np.array(qids), offsets=offsets, rel=rel, score=score, docno=docno,
                  qrel_offsets=qrel_offsets, qrel_grades=qrel_grades,
                  in_run=np.ones(nq, dtype=bool), rel_level=rel_level, run_tag="test",
                  tie_key=score, settings=Settings(**settings))


def from_ranks(ranks: Sequence[Sequence[int]], *, R: Sequence[int] | None = None,
               L: Sequence[int] | None = None, grades: Sequence[Sequence[int]] | None = None,
               **settings) -> Ranked:
    """A Ranked where query q has relevant documents at ``ranks[q]`` (1-based).

    The list is ``L[q]`` long (default: the last relevant rank), the other documents
    judged non-relevant; ``R[q]`` relevant documents in all (default: those ranked),
    the extra ones unretrieved with grade 1 (or the remaining ``grades``). ``grades[q]``
    gives the grade of each ranked relevant document, in the order of ``ranks[q]``,
    followed by the grades of the unretrieved ones.
    """
    lists, qrels = [], []
    for q, rk in enumerate(ranks):
        n = L[q] if L is not None else (max(rk) if rk else 0)
        total = R[q] if R is not None else len(rk)
        g = list(grades[q]) if grades is not None else [1] * total
        lst = [0] * n
        for i, p in enumerate(rk):
            lst[p - 1] = g[i]
        lists.append(lst)
        qrels.append([0] * (n - len(rk)) + g[:total])
    return make_ranked(lists, qrels, **settings)
