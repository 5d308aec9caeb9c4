"""Residual collection: evaluate a feedback run without the documents the user has already seen.

Joiner & Werner's "frozen" evaluation of feedback: the first k documents of the initial
run of each query are taken out of the feedback run (its ranks close up), out of the
qrels (so R drops by the relevant ones among them) and out of the collection (N drops by
the documents removed). With 200 documents, 12 relevant and 4 of them in the initial
run's first 10, the feedback run is evaluated on 190 documents with 8 relevant. The
frozen pass only removes: a seen top that no qrels line judges leaves the qrels as they
are, and depth 0 removes nothing.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from smarteval.columns import Ranked
from smarteval.errors import UsageError


def residual(feedback: Ranked, initial: Ranked, depth: int) -> Ranked:
    """``feedback`` on the residual collection left by the first ``depth`` documents of ``initial``.

    Both rankings must come from the same qrels and relevance level. A query missing from
    the initial run loses nothing. The per-query collection size goes to ``num_docs_q``
    when N is known.
    """
    if depth < 0:
        raise UsageError(f"--frozen-depth must not be negative, not {depth}")
    Q = feedback.num_queries
    # the initial run's query of every feedback query, or -1
    pos = np.searchsorted(initial.qids, feedback.qids) if initial.num_queries else \
        np.zeros(Q, dtype=np.int64)
    pos = np.minimum(pos, max(initial.num_queries - 1, 0))
    match = (initial.qids[pos] == feedback.qids) if initial.num_queries else \
        np.zeros(Q, dtype=bool)
    iq = np.where(match, pos, -1)

    # frozen rows: the first `depth` rows of each matched initial query
    keep0 = initial.rank <= depth
    frozen_rows = np.flatnonzero(keep0)
    to_feedback = np.full(initial.num_queries, -1, dtype=np.int64)
    to_feedback[iq[match]] = np.flatnonzero(match)
    fq = to_feedback[initial.qindex[frozen_rows]]
    ok = fq >= 0
    frozen_rows, fq = frozen_rows[ok], fq[ok]
    removed = np.bincount(fq, minlength=Q)

    # 1. the feedback run without the frozen documents
    vocab = np.unique(np.concatenate((feedback.docno, initial.docno[frozen_rows])))
    V = len(vocab) + 1
    fkeys = feedback.qindex * V + np.searchsorted(vocab, feedback.docno)
    zkeys = fq * V + np.searchsorted(vocab, initial.docno[frozen_rows])
    out = feedback.subset(~np.isin(fkeys, zkeys))

    # 2. the qrels without the frozen judged documents (one grade each)
    grades = initial.rel[frozen_rows]
    judged = grades >= 0
    top = int(max(feedback.qrel_grades.max(initial=0), grades.max(initial=0))) + 1
    gone_keys, gone = np.unique(fq[judged] * top + grades[judged], return_counts=True)
    qkeys = feedback.qrel_qindex * top + feedback.qrel_grades
    kept = np.ones(len(qkeys), dtype=bool)
    if len(gone_keys):      # a frozen top may hold no judged document (or be empty)
        at = np.minimum(np.searchsorted(gone_keys, qkeys), len(gone_keys) - 1)
        hit = gone_keys[at] == qkeys
        # occurrence of each grade within its (query, grade) run of the sorted qrels
        idx = np.arange(len(qkeys))
        new_run = np.ones(len(qkeys), dtype=bool)
        new_run[1:] = qkeys[1:] != qkeys[:-1]
        run_start = np.maximum.accumulate(np.where(new_run, idx, 0)) if len(idx) else idx
        kept = ~(hit & (idx - run_start < np.where(hit, gone[at], 0)))
    qrel_counts = np.bincount(feedback.qrel_qindex[kept], minlength=Q)
    qrel_offsets = np.concatenate(([0], np.cumsum(qrel_counts))).astype(np.int64)

    # 3. the collection without the frozen documents
    n_q = None
    if feedback.num_docs_q is not None:
        n_q = np.asarray(feedback.num_docs_q, dtype=np.int64) - removed
    elif feedback.num_docs is not None:
        n_q = int(feedback.num_docs) - removed
    # which judged document of a grade goes is not tracked: the lines and docnos go too
    return replace(out, qrel_offsets=qrel_offsets, qrel_grades=feedback.qrel_grades[kept],
                   qrel_lines=None, qrel_docnos=None, num_docs_q=n_q)
