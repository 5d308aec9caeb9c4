"""Retrieved documents nobody judged, counted relevant (--unjudged relevant and range).

A retrieved document without a judgement of 0 or more (absent from the qrels, or judged
below 0) counts as non-relevant in trec_eval's measures (``--unjudged nonrelevant``,
the default) and is dropped by ``-J`` (``--unjudged drop``). :func:`counted_relevant`
gives the third reading: each such document among those ranked (after ``-M``) is judged
at a grade, as if the qrels held it at that grade. Its row takes the grade, and the
query's judgements gain one of that grade, so R (the relevant documents) grows when the
grade reaches ``-l``: exactly the ranking of qrels to which those documents were added.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from smarteval.columns import Qrels, Ranked
from smarteval.read.keys import sort_key_words


def unjudged_grade(qrels: Qrels, settings) -> int:
    """The grade ``--unjudged relevant`` gives: ``--unjudged-grade``, else the highest
    grade of the qrels (at least ``-l``, so that the documents count as relevant)."""
    if settings.unjudged_grade is not None:
        return int(settings.unjudged_grade)
    top = int(qrels.grades.max()) if len(qrels.grades) else settings.rel_level
    return max(top, settings.rel_level)


def counted_relevant(r: Ranked, grade: int) -> Ranked:
    """``r`` with every ranked document without a judgement of 0 or more judged at
    ``grade`` (0 or more). A query ``-c`` adds without results keeps its rows (trec_eval
    10.0's placeholder is no document of the run)."""
    unjudged = (r.rel < 0) & np.asarray(r.in_run, dtype=bool)[r.qindex]
    if not unjudged.any():
        return r
    # the grades' column widened where the grade does not fit it (grades of 0 and 1 are
    # held in a narrow type)
    rel = r.rel.astype(np.promote_types(r.rel.dtype, np.min_scalar_type(grade)))
    rel[unjudged] = grade
    added = r.qindex[unjudged]
    qindex = np.concatenate([r.qrel_qindex, added])
    grades = np.concatenate([r.qrel_grades, np.full(len(added), grade, dtype=np.int64)])
    docnos = lines = None
    keys: tuple = ()
    if r.qrel_docnos is not None:       # each query's equal grades in docno order, as read
        docnos = np.concatenate([r.qrel_docnos, r.docno[unjudged]])
        keys = tuple(reversed(sort_key_words(docnos)))
    if r.qrel_lines is not None:        # the added judgements after the qrels' last line
        top = int(r.qrel_lines.max(initial=0))
        lines = np.concatenate([r.qrel_lines, top + 1 + np.arange(len(added))])
    order = np.lexsort((*keys, -grades, qindex))
    offsets = np.zeros(r.num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(qindex, minlength=r.num_queries), out=offsets[1:])
    positive = r.qrels_positive_lines
    if positive is not None and grade > 0:
        positive += len(added)
    return replace(r, rel=rel, qrel_grades=grades[order], qrel_offsets=offsets,
                   qrel_docnos=None if docnos is None else docnos[order],
                   qrel_lines=None if lines is None else lines[order],
                   qrels_positive_lines=positive)
