"""A run ranked for sample_eval's sampled judgements (-R sample_qrels), as sample_eval.pl ranks.

``sample_eval.pl`` strips the leading zeros of the run's topic ids (run topic ``007`` is
qrels topic ``7``, and run topics ``07`` and ``7`` are one topic; the qrels' ids are
matched as written), evaluates the topics of both the run and the qrels in the numeric
order of their ids (as Perl reads a number at the start of a string: ``12abc`` is 12,
``abc`` 0; equal numbers here by their bytes, where Perl leaves its hash order), and
sorts each topic's documents by score descending, compared as doubles, ties by docno
descending (:data:`~smarteval.ranking.programs.PROGRAMS`). Its measures read the first
1,000 documents (:mod:`smarteval.measures.sample` cuts there).

A docno retrieved twice for one topic is refused, as for trec_eval (sample_eval keeps the
last line's score and counts both lines in num_ret). ``-M`` keeps each topic's first
documents in sample_eval's order and ``-J`` its sampled ones (sample_eval has neither).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from smarteval.columns import Ranked, Run
from smarteval.ranking.join import (
    _lookup,
    _positions,
    concat_ranges,
    cut,
    in_byte_order,
    offsets_from_counts,
    rank,
)
from smarteval.ranking.programs import ordered_as
from smarteval.read.plain import repeated_rows
from smarteval.read.sample import SampleQrels
from smarteval.settings import Settings


@dataclass(frozen=True, eq=False)
class SampleRanking:
    """The strata of a ranking's documents and the sampled judgements they come from.

    ``stratum[i]`` is the place of row ``i``'s stratum among its topic's strata (sorted
    by their bytes; :attr:`~smarteval.read.sample.SampleQrels.slot`), -1 for a document
    outside the pool, and ``grade[i]`` its grade as read (-1 outside the pool). They
    belong to the ranking whose docno column is ``docno`` (a ranking put in another order
    has to look its rows up again). ``query[q]`` is the index of evaluated query ``q`` in
    ``qrels.qids``.
    """

    stratum: np.ndarray       # (n,) int64
    grade: np.ndarray         # (n,) float64
    docno: np.ndarray         # (n,) the ranking's docnos the strata are aligned with
    qrels: SampleQrels        # every topic of the file
    query: np.ndarray         # (Q,) int64


def rank_sample(run: Run, sample: SampleQrels, plain, settings: Settings) -> Ranked:
    """``run`` ranked for the sampled judgements ``sample``
    (:class:`~smarteval.read.sample.SampleQrels`; ``plain`` its :meth:`as_qrels` view),
    with :class:`SampleRanking` attached as ``sample``."""
    run = without_leading_zeros(run)
    # a topic whose pooled documents were none of them sampled is evaluated (trec_eval
    # refuses a first query judged only below 0); -M and -J cut sample_eval's order
    r = rank(run, plain, settings, trec_names=False, cuts=False)
    r = ordered_as(r, "sample_eval")
    r = cut(replace(r, tie_key=r.score))    # compared as sample_eval compares them
    order = numeric_order(r.qids)
    if (order != np.arange(len(order))).any():
        r = queries_in(r, order)
    return replace(r, sample=SampleRanking(*judgements_of(r, sample), r.docno, sample,
                                           _positions(sample.qids, r.qids)))


def without_leading_zeros(run: Run) -> Run:
    """``run`` with its topic ids' leading zeros stripped, as sample_eval reads them
    (``007`` is ``7``, ``0`` the empty id, which no qrels topic has): topics that then
    share an id are one, their lines in the order of the ids they had."""
    ids = run.qids
    if not len(ids):
        return run
    stripped = (np.char.lstrip(ids, "0") if ids.dtype.kind == "U"
                else np.array([q.lstrip("0") for q in ids.tolist()], dtype=object))
    if (stripped == ids).all():
        return run
    new_ids = in_byte_order(np.unique(stripped))
    place = {q: i for i, q in enumerate(new_ids.tolist())}
    code = np.array([place[q] for q in stripped.tolist()], dtype=np.int64)
    counts = np.diff(run.offsets)
    row_code = np.repeat(code, counts)
    order = np.argsort(row_code, kind="stable")
    docnos = run.docnos[order]

    def moved(col):
        return None if col is None else col[order]

    return replace(run, qids=new_ids,
                   offsets=offsets_from_counts(np.bincount(code, weights=counts,
                                                           minlength=len(new_ids))
                                               .astype(np.int64)),
                   docnos=docnos, scores=run.scores[order], lines=moved(run.lines),
                   docno_hash=moved(run.docno_hash), element_types=moved(run.element_types),
                   ranks=moved(run.ranks),
                   repeated=repeated_rows(row_code[order], docnos))


#: A number at the start of a string, as Perl reads one (``12abc`` is 12, ``abc`` 0)
_NUMBER = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def perl_number(text: str) -> float:
    """The number Perl's ``<=>`` compares a string as (0 when it starts with none)."""
    m = _NUMBER.match(text)
    return float(m.group(1)) if m else 0.0


def numeric_order(qids: np.ndarray) -> np.ndarray:
    """The order of ``qids`` (in byte order) by the number each starts with, as
    sample_eval's ``sort {$a <=> $b}``; equal numbers keep their byte order."""
    values = np.array([perl_number(q) for q in qids.tolist()], dtype=np.float64)
    return np.argsort(values, kind="stable")


def queries_in(r: Ranked, order: np.ndarray) -> Ranked:
    """``r`` with its queries in ``order`` (each query's rows as they were)."""
    rows = concat_ranges(r.offsets[:-1][order], r.num_ret[order])
    qrows = concat_ranges(r.qrel_offsets[:-1][order], r.num_judged[order])

    def moved(col, at):
        return None if col is None else col[at]

    return replace(
        r, qids=r.qids[order], offsets=offsets_from_counts(r.num_ret[order]),
        rel=r.rel[rows], score=r.score[rows], docno=r.docno[rows],
        tie_key=moved(r.tie_key, rows), file_row=moved(r.file_row, rows),
        qrel_offsets=offsets_from_counts(r.num_judged[order]),
        qrel_grades=r.qrel_grades[qrows], qrel_lines=moved(r.qrel_lines, qrows),
        qrel_docnos=moved(r.qrel_docnos, qrows), in_run=r.in_run[order],
        num_docs_q=moved(r.num_docs_q, order))


def judgements_of(r: Ranked, sample: SampleQrels) -> tuple[np.ndarray, np.ndarray]:
    """(n,) the stratum slot and (n,) the grade of each row of ``r`` in ``sample`` (-1
    and -1.0 outside the pool).

    The lookup takes the queries in the qrels' order: the rows are put so for it.
    """
    view = sample.row_view
    pos = _positions(view.qids, r.qids)
    order = np.argsort(pos, kind="stable")
    rows = concat_ranges(r.offsets[:-1][order], r.num_ret[order])
    place = np.empty(len(rows), dtype=np.int64)
    place[rows] = _lookup(view, pos[order], r.docno[rows],
                          offsets_from_counts(r.num_ret[order]))
    row_q = np.repeat(pos, r.num_ret)
    pooled = place >= 0
    at = np.where(pooled, sample.offsets[:-1][np.maximum(row_q, 0)] + place, 0)
    slot = np.where(pooled, sample.slot[at] if len(sample) else -1, -1)
    grade = np.where(pooled, sample.rel[at] if len(sample) else -1.0, -1.0)
    return slot.astype(np.int64), grade.astype(np.float64)
