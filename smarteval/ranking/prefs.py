"""A run ranked for preference judgements and for judgement groups, as trec_eval ranks for them.

**Preferences** (``form_prefs_counts.c``): each query's documents are sorted by score
(32-bit floats under trec_eval 9, doubles under 10), ties by docno *ascending* (the
qrels measures break ties by docno descending), cut to ``-M``; a document retrieved twice
among those is refused; ``-J`` has no effect. Every judged document then gets an internal
rank: the judged retrieved ones 0, 1, ... in rank order, the judged unretrieved ones
after them in docno order. :class:`PrefRanking` holds the judgements of the evaluated
queries in those terms, sorted as trec_eval sorts them (judgement group, sub-group, level
descending, internal rank).

**Judgement groups** (``form_res_rels_jg.c``): each (query, group) is ranked as trec_eval
ranks any query against its qrels, the group's judgements as the qrels.
:class:`GroupRanking` holds that ranking, one "query" per group.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from smarteval.columns import Ranked, Run, run_starts, ties_reversed
from smarteval.errors import InputError
from smarteval.ranking.checks import as_float32
from smarteval.ranking.join import concat_ranges, cut, offsets_from_counts, rank
from smarteval.read.keys import dictionary_codes
from smarteval.settings import Settings


@dataclass(frozen=True, eq=False)
class PrefRanking:
    """The preference judgements of the evaluated queries, in trec_eval's internal ranks.

    One row per judgement line of an evaluated query, sorted by (query, group, sub-group,
    level descending, internal rank). ``group`` numbers the (query, judgement group)
    pairs 0, 1, ... in that order; ``subgroup`` the (group, sub-group) pairs likewise.
    ``docid`` is the internal rank (below ``num_judged_ret[query]``: retrieved).
    ``level`` is as trec_eval compares it (rounded to a 32-bit float under 9).
    """

    query: np.ndarray           # (m,) int64 index of the evaluated query
    group: np.ndarray           # (m,) int64
    subgroup: np.ndarray        # (m,) int64
    level: np.ndarray           # (m,) float64
    docid: np.ndarray           # (m,) int64
    num_judged_ret: np.ndarray  # (Q,) int64
    num_judged: np.ndarray      # (Q,) int64
    #: (m,) docno and 1-based line of each row (for messages); None when derived from qrels
    docnos: np.ndarray | None = None
    lines: np.ndarray | None = None
    path: str | None = None


@dataclass(frozen=True, eq=False)
class GroupRanking:
    """Every (query, judgement group) ranked against the group's judgements.

    ``ranked`` has one query per group; ``query[g]`` is the evaluated query of group
    ``g`` (an index into the outer ranking's queries).
    """

    ranked: Ranked
    query: np.ndarray           # (G,) int64


def _refuse_repeats(r: Ranked, run: Run) -> None:
    """trec_eval refuses a document retrieved twice among the ranked (``-M``) documents."""
    n = len(r.docno)
    if n < 2:
        return
    order = np.lexsort((dictionary_codes(r.docno), r.qindex))
    twice = (r.docno[order[1:]] == r.docno[order[:-1]]) & \
        (r.qindex[order[1:]] == r.qindex[order[:-1]])
    if not twice.any():
        return
    at = order[int(np.flatnonzero(twice)[0])]
    qid, docno = r.qids[r.qindex[at]], r.docno[at].decode("utf-8", "replace")
    lines = ""
    if run.lines is not None and len(run.repeated):
        rows = run.repeated
        q_of = np.searchsorted(run.offsets, rows[:, 0], side="right") - 1
        hit = (run.docnos[rows[:, 0]] == r.docno[at]) & (run.qids[q_of] == qid)
        if hit.any():
            first, again = rows[int(np.flatnonzero(hit)[0])]
            lines = f" (lines {int(run.lines[first])} and {int(run.lines[again])})"
    raise InputError(run.path, None, f"document {docno} is retrieved twice for query "
                     f"{qid}{lines}", expected="each document once in a query's ranking")


def rank_preferences(run: Run, prefs, plain, settings: Settings) -> Ranked:
    """``run`` ranked for the preference judgements ``prefs``
    (:class:`~smarteval.read.prefs.Preferences`; ``plain`` its :meth:`as_qrels` view),
    with :class:`PrefRanking` attached as ``prefs``."""
    whole = rank(run, plain, settings, documents=False, cuts=False)
    # ties by docno ascending: trec_eval's ranking turned around (a random order as drawn)
    order = None if settings.ties == "random" else ties_reversed(whole)
    if order is not None:
        whole = replace(whole, rel=whole.rel[order], score=whole.score[order],
                        docno=whole.docno[order],
                        tie_key=None if whole.tie_key is None else whole.tie_key[order])
    r = cut(whole, judged_only=False)         # -M only: trec_eval's -J leaves preferences
    del whole
    _refuse_repeats(r, run)
    return replace(r, prefs=_pref_ranking(r, prefs, plain, settings))


def _pref_ranking(r: Ranked, prefs, plain, settings: Settings) -> PrefRanking:
    nq = r.num_queries
    pq = np.searchsorted(prefs.qids, r.qids)          # every evaluated query is judged
    n_docs = np.diff(plain.offsets)[pq]               # distinct judged docnos per query
    base = offsets_from_counts(n_docs)
    # internal ranks: judged retrieved documents in rank order, then the others by docno
    judged = r.rel >= 0
    jq = r.qindex[judged]
    njr = np.bincount(jq, minlength=nq).astype(np.int64)
    docid = np.full(int(base[-1]), -1, dtype=np.int64)
    jstart = offsets_from_counts(njr)
    docid[base[jq] + r.rel[judged]] = np.arange(len(jq)) - jstart[jq]
    unret = docid < 0
    uq = np.repeat(np.arange(nq), n_docs)[unret]
    ustart = offsets_from_counts(np.bincount(uq, minlength=nq))
    docid[unret] = njr[uq] + np.arange(len(uq)) - ustart[uq]
    # the judgement lines of the queries trec_eval ranks, with their internal ranks (under
    # 9.0.8 a query -c adds is not ranked: it counts 0, and its judgements are not looked at)
    counts = np.diff(prefs.offsets)[pq]
    if not settings.evaluates_added:
        counts = np.where(r.in_run, counts, 0)
    rows = concat_ranges(prefs.offsets[:-1][pq], counts)
    query = np.repeat(np.arange(nq, dtype=np.int64), counts)
    docnos = prefs.docnos[rows]
    ids = docid[base[query] + prefs.doc[rows]]
    level = prefs.level[rows]
    if settings.float32_scores:                 # a level kept as a C float
        level = as_float32(level).astype(np.float64)
    jg, jsg = prefs.jg[rows], prefs.jsg[rows]
    order = np.lexsort((ids, -level, jsg, jg, query))
    query, jg, jsg, level, ids = query[order], jg[order], jsg[order], level[order], ids[order]
    return PrefRanking(query=query, group=_numbered(query, jg), subgroup=_numbered(query, jg, jsg),
                       level=level, docid=ids, num_judged_ret=njr,
                       num_judged=n_docs.astype(np.int64), docnos=docnos[order],
                       lines=prefs.lines[rows][order], path=prefs.path)


def _numbered(*keys: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... numbering the runs of equal key tuples of sorted rows."""
    return np.cumsum(run_starts(*keys)) - 1


def rank_groups(run: Run, jgs, plain, settings: Settings) -> Ranked:
    """``run`` ranked for qrels with judgement groups ``jgs``
    (:class:`~smarteval.read.prefs.JudgementGroups`; ``plain`` its :meth:`as_qrels`
    view): the queries evaluated, with :class:`GroupRanking` attached as ``groups``."""
    outer = cut(rank(run, plain, settings, documents=False, cuts=False), judged_only=False)
    # the run again under each group of its queries ("QID JG", in the groups' order)
    gq = jgs.group_query
    at = np.searchsorted(run.qids, jgs.qids[gq])
    at = np.minimum(at, max(len(run.qids) - 1, 0))
    has = (run.qids[at] == jgs.qids[gq]) if len(run.qids) else np.zeros(len(gq), bool)
    sel = np.flatnonzero(has)
    counts = np.diff(run.offsets)[at[sel]]
    rows = concat_ranges(run.offsets[:-1][at[sel]], counts)
    pseudo = Run(path=run.path, qids=jgs.groups.qids[sel], offsets=offsets_from_counts(counts),
                 docnos=run.docnos[rows], scores=run.scores[rows], lines=None, tag=run.tag)
    inner = rank(pseudo, jgs.groups, replace(settings, query=None), documents=False)
    group = np.searchsorted(jgs.groups.qids, inner.qids)
    query = np.searchsorted(outer.qids, jgs.qids[gq[group]])
    query = np.minimum(query, max(outer.num_queries - 1, 0))
    keep = (outer.qids[query] == jgs.qids[gq[group]]) if outer.num_queries else \
        np.zeros(len(group), bool)
    if not keep.all():          # -D: the groups of the one query evaluated
        inner = _queries(inner, keep)
        query = query[keep]
    _refuse_repeats(outer, run)     # among the first -M documents, before -J drops any
    return replace(outer, groups=GroupRanking(ranked=inner, query=query.astype(np.int64)))


def _queries(r: Ranked, keep: np.ndarray) -> Ranked:
    """``r`` with only the queries where ``keep`` is True."""
    rows = concat_ranges(r.offsets[:-1][keep], r.num_ret[keep])
    qrows = concat_ranges(r.qrel_offsets[:-1][keep], r.num_judged[keep])
    return replace(
        r, qids=r.qids[keep], offsets=offsets_from_counts(r.num_ret[keep]), rel=r.rel[rows],
        score=r.score[rows], docno=r.docno[rows],
        tie_key=None if r.tie_key is None else r.tie_key[rows],
        qrel_offsets=offsets_from_counts(r.num_judged[keep]), qrel_grades=r.qrel_grades[qrows],
        qrel_lines=None if r.qrel_lines is None else r.qrel_lines[qrows],
        qrel_docnos=None if r.qrel_docnos is None else r.qrel_docnos[qrows],
        in_run=r.in_run[keep])
