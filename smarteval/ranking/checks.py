"""What trec_eval refuses when it ranks a query: a document twice, a first query judged below 0.

trec_eval reads any number of lines for one (query, docno) and only complains when it
ranks a query (``form_res_rels.c``): a docno retrieved twice among the documents it keeps
(the first ``-M``), a docno judged twice in the query's qrels, or, for the first query it
ranks, no judgement of 0 or more (its table of relevance levels is then never
allocated, "Can't calculate measure"; a limit of trec_eval alone, so refused only when
a trec_eval measure is asked: ir_measures, gdeval, ranx, ndeval, cwl_eval and SMART
evaluate the query, and a request that mixes them with a trec_eval measure is refused,
as trec_eval would refuse it). It ranks a query when it evaluates it with a
measure that looks at documents (every measure but ``num_q`` and ``runid``): under 9.0.8
the queries of both the run and the qrels; under 10.0 also, with ``-c``, the queries of the
qrels without results (they get a placeholder document). Queries it never ranks may hold
anything. The same rules hold here for every command, so the same input fails alike.
"""

from __future__ import annotations

import numpy as np

from smarteval.columns import Qrels, Run, distinct
from smarteval.errors import InputError, quoted
from smarteval.read.keys import descending_keys
from smarteval.read.plain import line_texts
from smarteval.settings import Settings


def check_ranked_queries(run: Run, qrels: Qrels, settings: Settings, qids: np.ndarray,
                         run_q: np.ndarray, qrels_q: np.ndarray, *,
                         negative_first: bool = True) -> None:
    """Raise :class:`InputError` where trec_eval would refuse one of the ranked queries.

    ``qids`` are the evaluated queries in order, ``run_q``/``qrels_q`` the index of each
    in the run and the qrels (-1 when absent). Problems are looked for query by query in
    trec_eval's order, and the first one found is reported. ``negative_first`` (a
    trec_eval measure is asked) refuses a first query judged only below 0.
    """
    ranked = run_q >= 0
    if settings.placeholders:
        ranked = ranked | (qrels_q >= 0)
    where = np.flatnonzero(ranked)
    if len(where) == 0:
        return
    problems: list[tuple[int, InputError]] = []
    if len(run.repeated):
        problems += _run_repeats(run, settings, run_q, ranked)
    if len(qrels.repeated):
        problems += _qrels_repeats(qrels, qrels_q, ranked)
    first = int(where[0])
    if negative_first and judged_only_below_zero(qrels, int(qrels_q[first])):
        problems.append((first, InputError(
            qrels.path, None,
            f"query {qids[first]} is judged only with negative grades and is the first "
            "query evaluated: trec_eval cannot evaluate it (\"Can't calculate measure\")",
            expected="a judgement of 0 or more in the first query evaluated (or leave the "
                     "query out, or ask no trec_eval measure)")))
    if problems:
        raise min(problems, key=lambda p: p[0])[1]


def judged_only_below_zero(qrels: Qrels, q: int) -> bool:
    """Whether query ``q`` of ``qrels`` has no judgement of 0 or more (its repeated lines
    counted): trec_eval cannot evaluate it as the first query it ranks."""
    lo, hi = qrels.offsets[q], qrels.offsets[q + 1]
    return max(int(qrels.grades[lo:hi].max()),
               int(_repeat_grades(qrels, q).max(initial=-3))) < 0


def _repeat_grades(qrels: Qrels, q: int) -> np.ndarray:
    return qrels.duplicate_grades[qrels.repeated[:, 0] == q] if len(qrels.repeated) else \
        np.zeros(0, np.int64)


def _qrels_repeats(qrels: Qrels, qrels_q: np.ndarray, ranked: np.ndarray):
    evaluated_of = np.full(qrels.num_queries, -1, dtype=np.int64)
    ok = (qrels_q >= 0) & ranked
    evaluated_of[qrels_q[ok]] = np.flatnonzero(ok)
    at = evaluated_of[qrels.repeated[:, 0]]
    hits = np.flatnonzero(at >= 0)
    if len(hits) == 0:
        return []
    i = int(hits[np.argmin(at[hits] * (1 << 40) + qrels.repeated[hits, 2])])
    q, first, again = (int(v) for v in qrels.repeated[i])
    row = int(np.flatnonzero(qrels.lines == first)[0])
    doc = qrels.docnos[row].decode("utf-8", "replace")
    return [(int(at[i]), _twice(qrels.path, first, again,
                                f"document {doc} is judged again in query {qrels.qids[q]}",
                                "each document judged once in a query that is evaluated"))]


def _run_repeats(run: Run, settings: Settings, run_q: np.ndarray, ranked: np.ndarray):
    """Repeated docnos both among the first ``-M`` documents of an evaluated query."""
    evaluated_of = np.full(run.num_queries, -1, dtype=np.int64)
    ok = (run_q >= 0) & ranked
    evaluated_of[run_q[ok]] = np.flatnonzero(ok)
    qcode = np.repeat(np.arange(run.num_queries, dtype=np.int64), np.diff(run.offsets))
    pairs = run.repeated[evaluated_of[qcode[run.repeated[:, 0]]] >= 0]
    if len(pairs) == 0:
        return []
    if settings.max_docs is not None:
        pos = _positions_in_query(run, settings, qcode, distinct(qcode[pairs[:, 0]]))
        a, b = pos[pairs[:, 0]], pos[pairs[:, 1]]
        # two rows of one docno and one score share a position: the second takes the next
        later = np.maximum(a, b) + (a == b)
        pairs = pairs[later < settings.max_docs]
        if len(pairs) == 0:
            return []
    at = evaluated_of[qcode[pairs[:, 0]]]
    # a run with repeats keeps its line numbers (else, rows counted from 1)
    lines = run.lines if run.lines is not None else np.arange(1, len(run.docnos) + 1)
    i = int(np.argmin(at * (1 << 40) + lines[pairs[:, 1]]))
    first, again = int(lines[pairs[i, 0]]), int(lines[pairs[i, 1]])
    doc = run.docnos[pairs[i, 0]].decode("utf-8", "replace")
    return [(int(at[i]), _twice(run.path, first, again,
                                f"document {doc} appears again in query "
                                f"{run.qids[qcode[pairs[i, 0]]]}",
                                "each document at most once per query (among the first -M)"))]


def _twice(path: str, first: int, again: int, problem: str, expected: str) -> InputError:
    """The error for a line ``again`` repeating line ``first``, quoting both when readable."""
    texts = line_texts(path, (first, again))
    return InputError(path, again, f"{problem} (first at line {first})",
                      text=texts.get(again),
                      extra=f"    line {first}: {quoted(texts[first])}" if first in texts else None,
                      expected=expected)


def _positions_in_query(run: Run, settings: Settings, qcode: np.ndarray,
                        queries: np.ndarray) -> np.ndarray:
    """For rows of ``queries``: how many rows of the query trec_eval ranks strictly above.

    Strictly above: a higher score (float32 under 9.0.8), or an equal score and a later
    docno. Rows of other queries get 0.
    """
    pos = np.zeros(len(run.scores), dtype=np.int64)
    rows = np.flatnonzero(np.isin(qcode, queries))
    key = score_key(run.scores[rows], settings)
    docnos = run.docnos[rows]
    q = qcode[rows]
    order = np.lexsort(descending_keys(docnos) + (-key, q))
    q, key, docnos = q[order], key[order], docnos[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = ~((q[1:] == q[:-1]) & (key[1:] == key[:-1]) & (docnos[1:] == docnos[:-1]))
    qstart = np.ones(len(order), dtype=bool)
    qstart[1:] = q[1:] != q[:-1]
    index = np.arange(len(order), dtype=np.int64)
    start_of_query = np.maximum.accumulate(np.where(qstart, index, 0))
    start_of_group = np.maximum.accumulate(np.where(new, index, 0))
    pos[rows[order]] = start_of_group - start_of_query
    return pos


def score_key(scores: np.ndarray, settings: Settings) -> np.ndarray:
    """Scores as trec_eval compares them: 32-bit floats under 9.0.8, doubles under 10.0
    (ties among equal keys go by docno descending, :func:`~smarteval.read.keys.descending_keys`)."""
    return as_float32(scores) if settings.float32_scores else scores


def as_float32(scores: np.ndarray) -> np.ndarray:
    """Scores as a C ``float`` keeps them (beyond float32's range: inf, as C's cast)."""
    with np.errstate(over="ignore"):
        return scores.astype(np.float32)
