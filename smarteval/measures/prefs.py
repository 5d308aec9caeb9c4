"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``) and its judgement-group
measures (``-R qrels_jg``).

**Preferences** (``form_prefs_counts.c`` and the ``m_prefs_*.c`` files). Each judgement
group (JG) of a query states preferences between documents: with one sub-group (JSG),
every document is preferred to every document of a lower level in the group (the
"equivalence classes" form); with several, each sub-group states such preferences and
the group's preferences are their transitive closure (the "preference array" form; a
contradiction, A > B and B > A, is refused, where trec_eval aborts). A preference
A > B counts as

- *fulfilled, retrieved* when both are retrieved and A ranks above B;
- *possible, retrieved* when both are retrieved (fulfilled or not);
- *fulfilled, implied* when only A is retrieved; *possible, implied* when only one is;
- *not occurring* when neither is (a failure for the measures that count it).

The ranking is trec_eval's for preferences: ties by docno ascending, ``-M`` applied,
``-J`` without effect (:mod:`smarteval.ranking.prefs`). A document is relevant in a
group when its level is above 0 and non-relevant when it is 0 (and, in the
equivalence-classes form, when it is below 0). Under trec_eval 9 levels compare as
32-bit floats, under 10 as doubles. Without preference judgements (``-R qrels``, the
default) the measures read the qrels as one judgement group per query, each judged
document at its grade (negative grades left out), ranked as the qrels measures rank.

**Judgement groups** (``form_res_rels_jg.c``, ``m_map_avgjg.c``, ``m_P_avgjg.c``,
``m_Rprec_mult_avgjg.c``): each group of a query is a qrels of its own; the measure is
computed against each as ``map``, ``P`` or ``Rprec_mult`` are and averaged over the
query's groups. Against plain qrels (one group) they equal those measures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smarteval import libm
from smarteval.columns import Ranked, run_starts
from smarteval.errors import InputError
from smarteval.measures.closure import BIT_BYTES, Closure
from smarteval.measures.registry import measure
from smarteval.measures.trec import (
    RPREC_MULTS,
    TREC_CUTOFFS,
    average_precision,
    precision,
    rprec_mult,
)
from smarteval.ranking.join import concat_ranges, offsets_from_counts
from smarteval.ranking.prefs import GroupRanking, PrefRanking

#: the work of one block: so many (row, level) pairs, preference pairs or cells at most
_BLOCK = 1 << 20


def _blocks(weight: np.ndarray, budget: int | None = None) -> list[tuple[int, int]]:
    """Ranges ``lo:hi`` of consecutive items whose ``weight`` adds up to about ``budget``
    (an item heavier than that alone): the pieces of bounded work a long task is cut
    into, between which signals (Ctrl-C, SIGTERM) are taken."""
    if len(weight) == 0:
        return []
    cum = np.cumsum(weight)
    starts = np.flatnonzero(run_starts((cum - weight) // max(budget or _BLOCK, 1)))
    return list(zip(starts.tolist(), np.append(starts[1:], len(weight)).tolist()))


# --------------------------------------------------------------------------- the judgements

def _table(r: Ranked) -> PrefRanking:
    """The preference judgements of ``r``: attached by the ranking stage, or its qrels as
    one judgement group per query (each judged document at its grade)."""
    if r.prefs is not None:
        return r.prefs  # type: ignore[return-value]
    nq = r.num_queries
    judged = r.rel >= 0
    jq = r.qindex[judged]
    njr = np.bincount(jq, minlength=nq).astype(np.int64)
    ret_id = np.arange(len(jq)) - offsets_from_counts(njr)[jq]
    top = int(max(r.qrel_grades.max(initial=0), r.rel.max(initial=0))) + 1
    all_keys, all_counts = np.unique(r.qrel_qindex * top + r.qrel_grades, return_counts=True)
    ret_keys = jq * top + r.rel[judged]
    found = np.bincount(np.searchsorted(all_keys, ret_keys), minlength=len(all_keys))
    missing = np.maximum(all_counts - found[:len(all_keys)], 0)
    uq = np.repeat(all_keys // top, missing)
    un_id = njr[uq] + np.arange(len(uq)) - offsets_from_counts(np.bincount(uq, minlength=nq))[uq]
    query = np.concatenate([jq, uq]).astype(np.int64)
    level = np.concatenate([r.rel[judged], np.repeat(all_keys % top, missing)]).astype(float)
    docid = np.concatenate([ret_id, un_id]).astype(np.int64)
    order = np.lexsort((docid, -level, query))
    query = query[order]
    # one group a query that has judgements (0, 1, ... in order: a query judged only
    # below 0 has none)
    group = np.cumsum(run_starts(query)) - 1 if len(query) else query
    return PrefRanking(query=query, group=group, subgroup=group, level=level[order],
                       docid=docid[order], num_judged_ret=njr,
                       num_judged=np.diff(r.qrel_offsets).astype(np.int64))


@dataclass
class _Counts:
    """Per judgement group: preference counts and relevant/non-relevant documents."""

    query: np.ndarray           # (G,) query of each group
    ful_ret: np.ndarray
    poss_ret: np.ndarray
    ful_imp: np.ndarray
    poss_imp: np.ndarray
    notoccur: np.ndarray
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonrel: np.ndarray
    num_nonrel_ret: np.ndarray
    pa: np.ndarray              # (G,) bool: the preference-array form
    table: PrefRanking
    #: per row of an equivalence-classes group (0 elsewhere), the preferences it is the
    #: lower document of: fulfilled retrieved, not fulfilled retrieved, fulfilled implied,
    #: not fulfilled implied, not occurring
    row_fr: np.ndarray
    row_br: np.ndarray
    row_fi: np.ndarray
    row_bi: np.ndarray
    row_no: np.ndarray
    row_last: np.ndarray        # (m,) bool: in the lowest level of its (classes) group
    #: the documents of the preference-array groups (group, internal rank, level)
    pa_docs: _PADocuments
    #: per preference-array group, trec_eval's ``recalculate`` (see _recount): the
    #: preferences fulfilled and possible without the non-relevant documents past the
    #: first num_rel, of every document (index 0) and of the retrieved ones (index 1)
    pa_again: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
    #: per query, the document pairs summed as prefs_pair sums them (see _gathered)
    gathered: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def _counts(r: Ranked) -> _Counts:
    memo = r.memo
    if "prefs" not in memo:
        memo["prefs"] = _count(_table(r))
    return memo["prefs"]


def _class_rows(t: PrefRanking, rows: np.ndarray, m: int):
    """The equivalence-classes groups' preferences, counted from each row's side without
    listing the pairs: a row's preferences are with the rows of the higher levels of its
    group, retrieved (internal rank below the query's judged retrieved) or not; of the
    retrieved ones, those ranked above it (a smaller internal rank) fulfil them. Those are
    counted by a binary search in each higher level's ranks (one per row and level, so
    never more than the preferences; in blocks of bounded size)."""
    g, lv, d = t.group[rows], t.level[rows], t.docid[rows]
    n = t.num_judged_ret[t.query[rows]] if len(rows) else d
    ret = d < n
    k = len(rows)
    seg_new = run_starts(g, lv)
    grp_new = run_starts(g)
    seg = np.cumsum(seg_new) - 1
    seg_start = np.flatnonzero(seg_new)
    grp_of_seg = np.cumsum(grp_new)[seg_start] - 1
    grp_start = np.flatnonzero(grp_new)
    first_seg = np.searchsorted(seg_start, grp_start)
    g_idx = np.cumsum(grp_new) - 1
    cr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(ret, out=cr[1:])
    above = seg_start[seg] - grp_start[g_idx]                    # rows of higher levels
    above_ret = cr[seg_start[seg]] - cr[grp_start[g_idx]]
    # retrieved rows of higher levels ranked above each retrieved row
    rr = np.flatnonzero(ret)
    levels_above = seg[rr] - first_seg[g_idx[rr]]
    width = int(d.max()) + 1 if k else 1
    key = seg * width + d                                        # sorted: (level, rank)
    fulfilled = np.zeros(k, dtype=np.int64)
    for lo, hi in _blocks(levels_above):
        b, la = rr[lo:hi], levels_above[lo:hi]
        s = concat_ranges(first_seg[g_idx[b]], la)
        before = np.searchsorted(key, s * width + np.repeat(d[b], la)) - seg_start[s]
        fulfilled[b] = np.bincount(np.repeat(np.arange(hi - lo), la), weights=before,
                                   minlength=hi - lo).astype(np.int64)
    out = [np.zeros(m, dtype=np.int64) for _ in range(5)]
    out[0][rows] = np.where(ret, fulfilled, 0)
    out[1][rows] = np.where(ret, above_ret - fulfilled, 0)
    out[2][rows] = np.where(ret, 0, above_ret)
    out[3][rows] = np.where(ret, above - above_ret, 0)
    out[4][rows] = np.where(ret, 0, above - above_ret)
    last = np.zeros(m, dtype=bool)
    if k:
        last_seg = np.append(first_seg[1:], len(seg_start)) - 1
        last[rows] = seg == last_seg[grp_of_seg[seg]]
    return out, last


def _count(t: PrefRanking) -> _Counts:
    m = len(t.query)
    ng = int(t.group[-1]) + 1 if m else 0
    starts = np.flatnonzero(run_starts(t.group))
    gquery = t.query[starts]
    pa = np.bincount(t.group[run_starts(t.subgroup)], minlength=ng) > 1
    n_row = t.num_judged_ret[t.query]
    row_pa = pa[t.group] if m else np.zeros(0, bool)

    # equivalence classes: each row against the higher levels of its group
    ec_rows = np.flatnonzero(~row_pa)
    _refuse_two_levels(t, ec_rows)
    (fr, br, fi, bi, no), last = _class_rows(t, ec_rows, m)
    rel = t.level > 0
    ret = t.docid < n_row
    ec = ~row_pa
    counts = {
        "num_rel": np.bincount(t.group, weights=ec & rel, minlength=ng),
        "num_rel_ret": np.bincount(t.group, weights=ec & rel & ret, minlength=ng),
        "num_nonrel": np.bincount(t.group, weights=ec & ~rel, minlength=ng),
        "num_nonrel_ret": np.bincount(t.group, weights=ec & ~rel & ret, minlength=ng),
    }

    # preference arrays: each group's preferences closed transitively, counted in blocks
    pa_rows = np.flatnonzero(row_pa)
    docs_g, docs_id, docs_level = _pa_documents(t, pa_rows)
    drel = docs_level > 0
    dzero = docs_level == 0
    dret = docs_id < t.num_judged_ret[gquery[docs_g]] if len(docs_g) else drel
    counts["num_rel"] += np.bincount(docs_g, weights=drel, minlength=ng)
    counts["num_rel_ret"] += np.bincount(docs_g, weights=drel & dret, minlength=ng)
    counts["num_nonrel"] += np.bincount(docs_g, weights=dzero, minlength=ng)
    counts["num_nonrel_ret"] += np.bincount(docs_g, weights=dzero & dret, minlength=ng)
    num_rel = counts["num_rel"].astype(np.int64)
    docs = _PADocuments(t, pa_rows, docs_g, docs_id, docs_level, gquery)
    pair = _pa_counts(t, docs, num_rel, ng)

    def per_group(rows_mask, pairs):
        return (np.bincount(t.group, weights=rows_mask, minlength=ng).astype(np.int64)
                + pairs)

    ful_ret = per_group(fr, pair[0])
    ful_imp = per_group(fi, pair[1])
    back_ret = per_group(br, pair[2])
    back_imp = per_group(bi, pair[3])
    notoccur = per_group(no, pair[4])
    return _Counts(query=gquery, ful_ret=ful_ret, poss_ret=ful_ret + back_ret, ful_imp=ful_imp,
                   poss_imp=ful_imp + back_imp, notoccur=notoccur, num_rel=num_rel,
                   num_rel_ret=counts["num_rel_ret"].astype(np.int64),
                   num_nonrel=counts["num_nonrel"].astype(np.int64),
                   num_nonrel_ret=counts["num_nonrel_ret"].astype(np.int64), pa=pa, table=t,
                   row_fr=fr, row_br=br, row_fi=fi, row_bi=bi, row_no=no, row_last=last,
                   pa_docs=docs,
                   pa_again=((pair[5], pair[6]), (pair[7], pair[8])))


def _refuse_two_levels(t: PrefRanking, rows: np.ndarray) -> None:
    """trec_eval refuses a document at two levels of one equivalence-classes group."""
    g, d, lv = t.group[rows], t.docid[rows], t.level[rows]
    order = np.lexsort((rows, lv, d, g))
    g, d, lv = g[order], d[order], lv[order]
    two = (g[1:] == g[:-1]) & (d[1:] == d[:-1]) & (lv[1:] != lv[:-1])
    if two.any():
        i = int(np.flatnonzero(two)[0])
        raise _judgement_error(t, int(rows[order[i]]), int(rows[order[i + 1]]),
                               "judged at two levels in one judgement group")


def _judgement_error(t: PrefRanking, i: int, j: int, problem: str) -> InputError:
    if t.docnos is None or t.lines is None or t.path is None:
        raise AssertionError("judgements derived from qrels hold no such problem")
    docno = t.docnos[i].decode("utf-8", "replace")
    lines = sorted({int(t.lines[i]), int(t.lines[j])})
    return InputError(t.path, lines[-1], f"document {docno} {problem} (lines "
                      f"{' and '.join(map(str, lines))})",
                      expected="one level for a document within a judgement sub-group, "
                               "0 or above 0 alike across the sub-groups of a group")


def _pa_documents(t: PrefRanking, rows: np.ndarray):
    """Each document of a preference-array group once: group, internal rank and the level
    trec_eval keeps for it (the last of its rows in trec_eval's order). A document at 0
    in one row and above 0 in the next is refused, as trec_eval refuses it."""
    g, d = t.group[rows], t.docid[rows]
    order = np.lexsort((rows, d, g))
    g, d, lv, rr = g[order], d[order], t.level[rows][order], rows[order]
    again = (g[1:] == g[:-1]) & (d[1:] == d[:-1])
    flip = again & (((lv[:-1] > 0) & (lv[1:] == 0)) | ((lv[:-1] == 0) & (lv[1:] > 0)))
    if flip.any():
        i = int(np.flatnonzero(flip)[0])
        raise _judgement_error(t, int(rr[i]), int(rr[i + 1]),
                               "has both 0 and a level above 0 in one judgement group")
    last = np.r_[~again, True] if len(g) else np.zeros(0, bool)
    return g[last].astype(np.int64), d[last].astype(np.int64), lv[last]


class _PADocuments:
    """The documents of the preference-array groups (sorted by group, internal rank) and
    each judgement line of those groups as an index among them."""

    def __init__(self, t: PrefRanking, rows, group, docid, level, gquery):
        self.rows, self.group, self.docid, self.level = rows, group, docid, level
        self.query = gquery[group] if len(group) else group
        self.n = t.num_judged_ret[self.query] if len(group) else group
        self.width = int(docid.max()) + 1 if len(docid) else 1
        self.key = group * self.width + docid
        g = t.group[rows]
        self.of_row = np.searchsorted(self.key, g * self.width + t.docid[rows])
        self.first_of_row = np.searchsorted(self.key, g * self.width)
        self.size_of_row = np.searchsorted(self.key, (g + 1) * self.width) - self.first_of_row

    def closure(self, t: PrefRanking, rows: np.ndarray) -> Closure:
        """The closure of the groups of ``rows`` (positions in :attr:`rows`, whole groups,
        in order); a contradiction refused, naming its documents and lines."""
        at = self.rows[rows]
        c = Closure(t.subgroup[at], t.level[at], self.of_row[rows], self.first_of_row[rows],
                    self.size_of_row[rows])
        if c.contradiction is not None:
            a, b = c.contradiction
            raise _contradiction(t, int(self.group[a]), int(self.docid[a]),
                                 int(self.docid[b]))
        return c

    def windows(self, c: Closure, lo: np.ndarray, hi: np.ndarray):
        """Local windows ``w0, w1`` per document node of ``c`` for the internal ranks
        ``lo .. hi - 1`` (per document node; ``hi`` at most :attr:`width`), cut so that their
        bits fit."""
        g = self.group[c.docs]
        w0 = np.searchsorted(self.key, g * self.width + lo) - c.first
        w1 = np.searchsorted(self.key, g * self.width + hi) - c.first
        step = c.window()
        for s in range(0, int((w1 - w0).max(initial=0)), step):
            yield w0 + s, np.minimum(w0 + s + step, w1)


def _pa_counts(t: PrefRanking, docs: _PADocuments, num_rel: np.ndarray, ng: int):
    """Per preference-array group, from its preferences closed transitively (listed in
    blocks, never all at once): fulfilled retrieved, fulfilled implied, not fulfilled
    retrieved, not fulfilled implied, not occurring; and for ``recalculate``, fulfilled
    and possible of every document, then of the retrieved ones (see _recount)."""
    acc = np.zeros((9, ng), dtype=np.int64)
    if len(docs.rows) == 0:
        return acc
    out = [_left_out(docs, num_rel, ng, retrieved) for retrieved in (False, True)]
    # groups in blocks of similar sizes (their bits padded to the widest of the block)
    g = t.group[docs.rows]
    starts = run_starts(g)
    size = docs.size_of_row[starts]
    nodes = 2 * np.bincount(np.cumsum(starts) - 1) + size     # at most, of the closure
    width_class = libm.ceil_log2(np.maximum(size, 1))
    by = np.argsort(width_class, kind="stable")
    weight = nodes[by] * (((1 << width_class[by]) + 7) // 8)
    cum = np.cumsum(weight)
    unit = np.zeros(len(size), dtype=np.int64)
    unit[by] = np.cumsum(run_starts(width_class[by], (cum - weight) // BIT_BYTES)) - 1
    unit_row = np.repeat(unit, np.diff(np.append(np.flatnonzero(starts), len(g))))
    order = np.argsort(unit_row, kind="stable")
    for lo, hi in _runs(unit_row[order]):
        c = docs.closure(t, order[lo:hi])
        every = np.zeros(c.num_docs, np.int64), np.full(c.num_docs, docs.width)
        for w0, w1 in docs.windows(c, *every):
            for a, b in c.pairs(w0, w1):
                _tally(acc, docs, out, a, b, ng)
    return acc


def _runs(values: np.ndarray) -> list[tuple[int, int]]:
    """Ranges ``lo:hi`` of the runs of equal sorted ``values``."""
    starts = np.flatnonzero(run_starts(values)) if len(values) else values
    return list(zip(starts.tolist(), np.append(starts[1:], len(values)).tolist()))


def _left_out(docs: _PADocuments, num_rel: np.ndarray, ng: int, retrieved: bool):
    """(documents,) bool: the non-relevant documents trec_eval's ``recalculate`` leaves out
    of a preference-array group, from the first past its num_rel (retrieved ones only,
    ``retrieved``) on."""
    zero = docs.level == 0
    if retrieved:
        zero = zero & (docs.docid < docs.n)
    zg = docs.group[zero]
    nth = np.arange(len(zg)) - offsets_from_counts(np.bincount(zg, minlength=ng))[zg]
    cut = np.flatnonzero(zero)[nth >= num_rel[zg]]
    first_out = np.full(ng, np.iinfo(np.int64).max)
    np.minimum.at(first_out, docs.group[cut], docs.docid[cut])
    return (docs.level == 0) & (docs.docid >= first_out[docs.group])


def _tally(acc: np.ndarray, docs: _PADocuments, out, a: np.ndarray, b: np.ndarray, ng: int):
    """Add the preferences ``a`` > ``b`` (document indices) to the counts of their groups."""
    g = docs.group[a]
    n = docs.n[a]
    da, db = docs.docid[a], docs.docid[b]
    a_ret, b_ret, fwd = da < n, db < n, da < db
    del n, da, db
    # one of five: fulfilled retrieved, fulfilled implied, not fulfilled retrieved, not
    # fulfilled implied, not occurring
    kind = np.where(fwd, np.where(b_ret, 0, np.where(a_ret, 1, 4)),
                    np.where(a_ret, 2, np.where(b_ret, 3, 4)))
    acc[:5] += np.bincount(kind * ng + g, minlength=5 * ng).reshape(5, ng)
    kept = ~out[0][a] & ~out[0][b]
    acc[5] += np.bincount(g[kept & a_ret & fwd], minlength=ng)
    acc[6] += np.bincount(g[kept], minlength=ng)
    kept = ~out[1][a] & ~out[1][b] & a_ret & b_ret
    acc[7] += np.bincount(g[kept & fwd], minlength=ng)
    acc[8] += np.bincount(g[kept], minlength=ng)


def _contradiction(t: PrefRanking, group: int, a: int, b: int) -> InputError:
    rows = np.flatnonzero(t.group == group)
    ra = rows[t.docid[rows] == a][0]
    rb = rows[t.docid[rows] == b][0]
    if t.docnos is None or t.lines is None or t.path is None:
        raise AssertionError("judgements derived from qrels hold no contradiction")
    da, db = (t.docnos[x].decode("utf-8", "replace") for x in (ra, rb))
    return InputError(t.path, int(max(t.lines[ra], t.lines[rb])),
                      f"the judgement group prefers {da} to {db} and {db} to {da} "
                      "(through its sub-groups)",
                      expected="consistent preferences within a judgement group "
                               "(contradicting users go in different groups)")


# --------------------------------------------------------------------------- sums over groups

def _per_query(r: Ranked, c: _Counts, values) -> np.ndarray:
    """Per query: the sum over its judgement groups, in trec_eval's order."""
    return np.bincount(c.query, weights=values, minlength=r.num_queries)


def _ratio(ful, poss) -> np.ndarray:
    return libm.divide(ful, poss)


def _share(ful, poss) -> np.ndarray:
    """ful / poss, 0 where nothing is possible."""
    return np.where(poss > 0, _ratio(ful, np.maximum(poss, 1)), 0.0)


def _simple(r: Ranked, ful, poss) -> np.ndarray:
    c = _counts(r)
    return _share(_per_query(r, c, ful), _per_query(r, c, poss))


def _avg_over_groups(r: Ranked, ratio) -> np.ndarray:
    """trec_eval's average over groups: the ratios summed (in group order), divided by the
    number of groups when the sum is above 0 (so NaN, from 0/0, makes it 0)."""
    c = _counts(r)
    total = _per_query(r, c, ratio)
    groups = np.bincount(c.query, minlength=r.num_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, total / np.maximum(groups, 1), 0.0)


def _rnonrel(r: Ranked, retrieved: bool) -> np.ndarray:
    c = _counts(r)
    if retrieved:
        big_r, big_n = c.num_rel_ret, c.num_nonrel_ret
        ful = c.ful_ret + c.num_rel_ret * (big_r - big_n)
        poss = c.poss_ret + c.num_rel * (big_r - big_n)
    else:
        big_r, big_n = c.num_rel, c.num_nonrel
        ful = c.ful_ret + c.ful_imp + c.num_rel_ret * (big_r - big_n)
        poss = c.poss_ret + c.poss_imp + c.notoccur + c.num_rel * (big_r - big_n)
    again = big_r < big_n
    if again.any():
        f2, p2 = _recount(c, again, big_r, retrieved)
        ful = np.where(again, f2, ful)
        poss = np.where(again, p2, poss)
    return _avg_over_groups(r, _ratio(ful, poss))


def _slots(c: _Counts, grp: np.ndarray, start: np.ndarray, count: np.ndarray):
    """The ``count[i]`` internal ranks trec_eval's ``recalculate`` reads as group
    ``grp[i]``'s new last class, from row ``start[i]`` (where that class starts): per
    slot its group, the rank read, and whether it reads nothing trec_eval wrote.

    trec_eval keeps the internal ranks of a query's equivalence-classes groups one after
    the other (each group's rows in level, then rank order) in a buffer it reuses from
    query to query (``rank_pool``, grown to the sum of the line counts that outgrew it).
    R ranks from the start of the last class are that class's first R documents when it
    holds R or more, which it always does unless levels below 0 leave other non-relevant
    classes above it. When it holds fewer, the reading goes on into the next groups'
    ranks, then into what an earlier query left in the buffer (the last one whose ranks
    reached that far since the buffer was allocated), all of which this follows. Past
    that, trec_eval reads memory it never wrote, or past the buffer (valgrind flags the
    read): taken as documents ranked after every judged one, which is what trec_eval
    reads with glibc's malloc in the first place past the buffer."""
    t = c.table
    nq = len(t.num_judged_ret)
    ec_rows = np.flatnonzero(~c.pa[t.group]) if len(t.group) else t.group
    wlen = np.bincount(t.query[ec_rows], minlength=nq)
    ec_first = offsets_from_counts(wlen)
    size, made = _pool_sizes(np.bincount(t.query, minlength=nq))
    q = np.repeat(c.query[grp], count)
    pos = concat_ranges(np.searchsorted(ec_rows, start), count) - ec_first[q]
    # where the position is not the query's own: the last query before it since the
    # buffer was made whose ranks reached it
    other = (pos >= wlen[q]) & (pos < size[q])
    src = q.copy()
    src[other] = _last_reaching(wlen, made[q[other]], q[other], pos[other])
    beyond = (src < 0) | (pos >= wlen[np.maximum(src, 0)])
    at = ec_first[np.where(beyond, 0, src)] + pos
    bd = t.docid[ec_rows[np.where(beyond, 0, at)]] if len(at) else at
    return np.repeat(grp, count), np.where(beyond, 0, bd), beyond


def _pool_sizes(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval's ``rank_pool`` as the queries with ``lines`` judgement lines (0: not
    looked at) come in order: per query its size and the first query to use it (the one
    that made it). It grows (a new allocation) when a query has more lines than it
    holds, to its size plus that query's lines, so it more than doubles each time: one
    step per allocation, not per query."""
    n = len(lines)
    size = np.zeros(n, dtype=np.int64)
    made = np.zeros(n, dtype=np.int64)
    at, bound = 0, 0
    while at < n:
        grows = np.flatnonzero(lines[at:] > bound)
        nxt = at + int(grows[0]) if len(grows) else n
        size[at:nxt], made[at:nxt] = bound, made[at - 1] if at else 0
        if nxt < n:
            bound += int(lines[nxt])
            size[nxt], made[nxt] = bound, nxt
        at = nxt + 1
    return size, made


def _last_reaching(length: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                   pos: np.ndarray) -> np.ndarray:
    """For each i, the last k in ``[lo[i], hi[i])`` with ``length[k] > pos[i]``, or -1:
    a binary lifting over the range maxima of ``length`` (log steps, all i at once)."""
    n = len(length)
    if len(pos) == 0 or n == 0:
        return np.full(len(pos), -1, dtype=np.int64)
    maxima = [length]
    while (1 << len(maxima)) <= n:
        prev, half = maxima[-1], 1 << (len(maxima) - 1)
        maxima.append(np.maximum(prev, np.append(prev[half:], np.zeros(half, prev.dtype))))
    end = hi.astype(np.int64).copy()
    for k in range(len(maxima) - 1, -1, -1):
        cand = end - (1 << k)
        skip = (cand >= lo) & (maxima[k][np.maximum(cand, 0)] <= pos)
        end = np.where(skip, cand, end)
    last = end - 1
    found = (last >= lo) & (length[np.maximum(last, 0)] > pos)
    return np.where(found, last, -1)


def _recount(c: _Counts, again: np.ndarray, keep: np.ndarray, retrieved: bool):
    """trec_eval's ``recalculate``: the preferences of the groups ``again`` counted with
    only the first ``keep`` (R) non-relevant documents; (fulfilled, possible) per group."""
    t = c.table
    ng = len(c.query)
    nret = t.num_judged_ret[c.query]
    ful = np.zeros(ng, dtype=np.int64)
    poss = np.zeros(ng, dtype=np.int64)

    # equivalence classes
    ec_groups = again & ~c.pa
    if ec_groups.any():
        m = len(t.query)
        row_g = t.group
        # the lowest level of each group: where it starts; the rows of the other levels
        # against those of the levels above them, from each row's counts
        is_last = c.row_last
        first_of_last = np.flatnonzero(is_last & run_starts(row_g, t.level))
        last_start = np.zeros(ng, dtype=np.int64)
        last_start[row_g[first_of_last]] = first_of_last
        sel = ec_groups[row_g] & ~is_last if m else np.zeros(0, bool)
        if retrieved:
            f1, p1 = c.row_fr, c.row_fr + c.row_br
        else:
            f1 = c.row_fr + c.row_fi
            p1 = f1 + c.row_br + c.row_bi + c.row_no
        ful += np.bincount(row_g, weights=np.where(sel, f1, 0), minlength=ng).astype(np.int64)
        poss += np.bincount(row_g, weights=np.where(sel, p1, 0), minlength=ng).astype(np.int64)
        # every row of the group against R "documents" read from where its last class
        # starts (trec_eval's new last class: R ranks from its buffer, see _slots)
        grp = np.flatnonzero(ec_groups)
        bg, bd, beyond = _slots(c, grp, last_start[grp], keep[grp])
        rows_of = np.flatnonzero(ec_groups[row_g])
        order = np.lexsort((t.docid[rows_of], row_g[rows_of]))
        width = int(t.docid.max()) + 2 if m else 1
        skey = row_g[rows_of][order] * width + t.docid[rows_of][order]
        gstart = np.searchsorted(skey, bg * width)
        n = nret[bg]
        if retrieved:
            # the reading stops at the first one not retrieved (or past the buffer)
            stop = beyond | (bd >= n)
            seg = np.repeat(np.arange(len(grp)), keep[grp])
            cs = np.cumsum(stop)
            ok = cs == (cs - stop)[offsets_from_counts(keep[grp])[seg]]
            bg, bd, gstart, n = bg[ok], bd[ok], gstart[ok], n[ok]
            before = np.searchsorted(skey, bg * width + bd) - gstart
            total = np.searchsorted(skey, bg * width + n) - gstart
        else:
            upto = np.where(beyond, n, np.minimum(bd, n))
            before = np.searchsorted(skey, bg * width + upto) - gstart
            total = np.searchsorted(skey, bg * width + width) - gstart
        ful += np.bincount(bg, weights=before, minlength=ng).astype(np.int64)
        poss += np.bincount(bg, weights=total, minlength=ng).astype(np.int64)

    # preference arrays: counted with the closure (_pa_counts), the non-relevant documents
    # past the first num_rel left out
    pa_groups = again & c.pa
    if pa_groups.any():
        f, p = c.pa_again[1 if retrieved else 0]
        ful += np.where(pa_groups, f, 0)
        poss += np.where(pa_groups, p, 0)
    return ful, poss


# --------------------------------------------------------------------------- document pairs

def _pairs(r: Ranked, blocks: int) -> np.ndarray:
    """The average over document pairs with a preference of the share of that pair's
    preferences (over all groups) that the ranking fulfils; ``blocks`` 1: both retrieved,
    2: and one retrieved, 3: and neither (these count as 0).

    Where each pair is preferred once (a query whose documents are each in one group,
    once), a pair's share is 1 or 0 and the counts give the sums. The other queries'
    pairs are gathered (:func:`_gathered`)."""
    c = _counts(r)
    nq = r.num_queries
    sums = [_per_query(r, c, c.ful_ret), _per_query(r, c, c.ful_imp), np.zeros(nq)]
    counts = [_per_query(r, c, c.poss_ret), _per_query(r, c, c.poss_imp),
              _per_query(r, c, c.notoccur)]
    total = sum(sums[:min(blocks, 2)])
    count = sum(counts[:blocks])
    listed = _listed_queries(c)
    if listed.any():
        if c.gathered is None:
            c.gathered = _gathered(c, listed)
        sum_ret, sum_all, num = c.gathered
        total = np.where(listed, sum_ret if blocks == 1 else sum_all, total)
        count = np.where(listed, num[:blocks].sum(axis=0), count)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


def _listed_queries(c: _Counts) -> np.ndarray:
    """(Q,) bool: queries where a pair may be preferred more than once: a document in two
    groups, or twice in an equivalence-classes group (a line repeated). A preference-array
    group states each of its pairs once, whatever sub-groups its documents are in."""
    t = c.table
    nq = len(t.num_judged_ret)
    ec = np.flatnonzero(~c.pa[t.group]) if len(t.group) else t.group
    q = np.concatenate([t.query[ec], c.pa_docs.query])
    d = np.concatenate([t.docid[ec], c.pa_docs.docid])
    order = np.lexsort((d, q))
    q, d = q[order], d[order]
    again = (q[1:] == q[:-1]) & (d[1:] == d[:-1])
    listed = np.zeros(nq, dtype=bool)
    listed[q[1:][again]] = True
    return listed


def _gathered(c: _Counts, listed: np.ndarray):
    """Per query of ``listed``: every document pair with a preference once, summed as
    ``m_prefs_pair.c`` sums them. First the pairs of two retrieved documents, by lower
    internal rank then higher, each adding the share of its preferences (over all groups)
    that its lower-ranked document wins; then, the sum going on, those of one retrieved
    document; then those of two unretrieved ones, counted only. Returns the sum of the
    first kind, the sum of the first two kinds (added in that order, as trec_eval adds
    them) and the number of pairs of each kind, (3, Q).

    The pairs are never listed all at once: three sweeps (one per kind) over the
    lower-ranked documents take them in blocks of bounded work, each block gathering the
    preferences of its lower documents from every group of their query (see
    :class:`_PairSource`) and reducing them to pairs."""
    nq = len(c.table.num_judged_ret)
    source = _PairSource(c, listed)
    running = np.zeros(nq)
    num = np.zeros((3, nq), dtype=np.int64)
    sum_ret = running
    for kind in range(3):
        for k0, k1 in source.blocks(kind):
            q, lo, hi, lower_wins = source.preferences(kind, k0, k1)
            pq, share = source.reduced(q, lo, hi, lower_wins, k0, k1)
            num[kind] += np.bincount(pq, minlength=nq)
            if kind < 2 and len(pq):
                # each query's sum goes on from where the last block left it, in order
                on = np.unique(pq)
                running[on] = np.bincount(np.concatenate([on, pq]), minlength=nq,
                                          weights=np.concatenate([running[on], share]))[on]
        if kind == 0:
            sum_ret = running.copy()
    return sum_ret, running, num


class _PairSource:
    """The preferences of the queries of ``listed`` by lower-ranked document: each
    (query, internal rank) has a position in one key space; a sweep of one kind of pairs
    (0: both retrieved, 1: the lower only, 2: neither) takes the positions of its lower
    documents in blocks of bounded work, and a block's preferences are those of its
    positions' documents with a higher-ranked document of that kind."""

    def __init__(self, c: _Counts, listed: np.ndarray):
        t = c.table
        self.c, self.t, self.listed = c, t, listed
        self.n, self.num = t.num_judged_ret, t.num_judged
        self.offset = offsets_from_counts(np.where(listed, t.num_judged, 0))
        self.width = int(t.docid.max(initial=0)) + 2
        # equivalence-classes rows of these queries (in the table's order) and their
        # levels' segments
        ec = np.flatnonzero(listed[t.query] & ~c.pa[t.group]) if len(t.query) else t.query
        g = t.group[ec]
        seg_new = run_starts(g, t.level[ec])
        seg = np.cumsum(seg_new) - 1
        seg_start = np.flatnonzero(seg_new)
        self.seg_level = t.level[ec][seg_start]
        grp_new = run_starts(g[seg_start])
        grp_first = np.flatnonzero(grp_new)
        of_seg = np.cumsum(grp_new) - 1
        self.ec, self.seg = ec, seg
        self.seg_first = grp_first[of_seg][seg] if len(ec) else seg
        self.seg_count = np.diff(np.append(grp_first, len(seg_start)))[of_seg][seg] \
            if len(ec) else seg
        self.seg_key = seg * self.width + t.docid[ec]
        self.ec_pos = self.offset[t.query[ec]] + t.docid[ec]
        self.ec_order = np.argsort(self.ec_pos, kind="stable")
        self.ec_sorted = self.ec_pos[self.ec_order]
        self.ec_group_key = np.sort(g * self.width + t.docid[ec])
        # the preference-array groups' documents and lines of these queries
        docs = c.pa_docs
        self.docs = docs
        self.pa_doc = np.flatnonzero(listed[docs.query]) if len(docs.query) else docs.query
        self.pa_row_query = t.query[docs.rows]
        self._closure: tuple | None = None

    def _hi_range(self, kind, q, lo):
        """The internal ranks a pair of ``kind`` may have as its higher document."""
        n, end = self.n[q], np.full(len(q), self.width)
        start = np.maximum(lo + 1, n) if kind == 1 else lo + 1
        return start, (n if kind == 0 else end)

    def _lower_range(self, kind):
        """Per query: the internal ranks a pair of ``kind`` may have as its lower one."""
        return (np.zeros_like(self.n), self.n) if kind < 2 else (self.n, self.num)

    def blocks(self, kind: int) -> list[tuple[int, int]]:
        """Ranges ``k0 .. k1 - 1`` of positions whose preferences of ``kind`` are about
        a block's work (at most the documents of the group in the higher document's
        range, and a step per level for each equivalence-classes row)."""
        t = self.t
        qs = np.flatnonzero(self.listed)
        start, end = self._lower_range(kind)
        keys = concat_ranges(self.offset[qs] + start[qs], (end - start)[qs])
        weight = np.zeros(int(self.offset[-1]), dtype=np.int64)
        if len(self.ec):
            q, d = t.query[self.ec], t.docid[self.ec]
            hs, he = self._hi_range(kind, q, d)
            g = t.group[self.ec] * self.width
            partners = np.searchsorted(self.ec_group_key, g + he) - \
                np.searchsorted(self.ec_group_key, g + np.minimum(hs, he))
            weight += np.bincount(self.ec_pos, weights=partners + self.seg_count,
                                  minlength=len(weight)).astype(np.int64)
        docs, at = self.docs, self.pa_doc
        if len(at):
            q, d = docs.query[at], docs.docid[at]
            hs, he = self._hi_range(kind, q, d)
            g = docs.group[at] * docs.width
            partners = np.searchsorted(docs.key, g + np.minimum(he, docs.width)) - \
                np.searchsorted(docs.key, g + np.minimum(np.minimum(hs, he), docs.width))
            weight += np.bincount(self.offset[q] + d, weights=partners,
                                  minlength=len(weight)).astype(np.int64)
        return [(int(keys[lo]), int(keys[hi - 1]) + 1)
                for lo, hi in _blocks(weight[keys] + 1)]

    def preferences(self, kind: int, k0: int, k1: int):
        """The preferences between a document of positions ``k0 .. k1 - 1`` and a
        higher-ranked one of ``kind``: query, lower and higher internal ranks, whether the
        lower one is preferred."""
        t = self.t
        start, end = self._lower_range(kind)
        parts = []
        # equivalence classes: each row against the rows of its group's other levels
        # in the higher document's range (a binary search per row and level)
        at = self.ec_order[np.searchsorted(self.ec_sorted, k0):
                           np.searchsorted(self.ec_sorted, k1)]
        x = self.ec[at]
        q, d = t.query[x], t.docid[x]
        ok = (d >= start[q]) & (d < end[q])
        at, q, d = at[ok], q[ok], d[ok]
        own = np.repeat(self.seg[at], self.seg_count[at])
        s = concat_ranges(self.seg_first[at], self.seg_count[at])
        other = s != own
        rep = np.repeat(np.arange(len(at)), self.seg_count[at])[other]
        own, s = own[other], s[other]
        hs, he = self._hi_range(kind, q[rep], d[rep])
        first = np.searchsorted(self.seg_key, s * self.width + hs)
        count = np.maximum(np.searchsorted(self.seg_key, s * self.width + he) - first, 0)
        parts.append((np.repeat(q[rep], count), np.repeat(d[rep], count),
                      t.docid[self.ec[concat_ranges(first, count)]],
                      np.repeat(self.seg_level[own] > self.seg_level[s], count)))
        # preference arrays: the closure's pairs whose lower document is in the block
        qa = int(np.searchsorted(self.offset, k0, side="right")) - 1
        qb = int(np.searchsorted(self.offset, k1 - 1, side="right")) - 1
        docs = self.docs
        if self._closure is None or self._closure[0] != (qa, qb):
            rows = np.arange(np.searchsorted(self.pa_row_query, qa),
                             np.searchsorted(self.pa_row_query, qb, side="right"))
            rows = rows[self.listed[self.pa_row_query[rows]]]
            self._closure = ((qa, qb), docs.closure(t, rows) if len(rows) else None)
        closure = self._closure[1]
        if closure is not None:
            nq = docs.query[closure.docs]
            lo = np.clip(k0 - self.offset[nq], start[nq], end[nq])
            hi = np.clip(k1 - self.offset[nq], start[nq], end[nq])
            for w0, w1 in docs.windows(closure, lo, hi):
                for a, b in closure.pairs(w0, w1, lower_in=True):
                    da, db = docs.docid[a], docs.docid[b]
                    pq = docs.query[a]
                    low, high = np.minimum(da, db), np.maximum(da, db)
                    hs, he = self._hi_range(kind, pq, low)
                    keep = (high >= hs) & (high < he)
                    parts.append((pq[keep], low[keep], high[keep], (da < db)[keep]))
        return tuple(np.concatenate(p) for p in zip(*parts))

    def reduced(self, q, lo, hi, lower_wins, k0: int, k1: int):
        """Each distinct pair once, in (query, lower, higher) order: its query and the share
        of its preferences its lower document wins."""
        width = int(hi.max(initial=0)) + 1
        key = (self.offset[q] + lo - k0) * width + hi
        size = (k1 - k0) * width
        if size <= max(2 * len(key), 1 << 20):
            counts = np.bincount(key, minlength=size)
            pairs = np.flatnonzero(counts)
            wins: np.ndarray = np.bincount(key, weights=lower_wins, minlength=size)[pairs]
            every = counts[pairs]
        else:
            order = np.argsort(key, kind="stable")
            key = key[order]
            new = np.flatnonzero(run_starts(key))
            pairs = key[new]
            every = np.diff(np.append(new, len(key)))
            wins = np.add.reduceat(lower_wins[order].astype(np.float64), new) \
                if len(new) else np.zeros(0)
        pq = np.searchsorted(self.offset, k0 + pairs // width, side="right") - 1
        return pq, wins / every


# ------------------------------------------------------ the measures, in trec_eval's order

@measure("prefs_num_prefs_poss", average="sum", value="int", order_free=True, rel_info="prefs")
def prefs_num_prefs_poss(r: Ranked) -> np.ndarray:
    """Number of preferences possible, whether or not their documents are retrieved.

    The summary is the sum over queries (``m_prefs_num_prefs_poss.c``).
    """
    c = _counts(r)
    return _per_query(r, c, c.poss_ret + c.poss_imp + c.notoccur).astype(np.int64)


@measure("prefs_num_prefs_ful", average="sum", value="int", rel_info="prefs")
def prefs_num_prefs_ful(r: Ranked) -> np.ndarray:
    """Number of preferences fulfilled, implied ones (only the preferred document
    retrieved) included.

    The summary is the sum over queries (``m_prefs_num_prefs_ful.c``).
    """
    c = _counts(r)
    return _per_query(r, c, c.ful_ret + c.ful_imp).astype(np.int64)


@measure("prefs_num_prefs_ful_ret", average="sum", value="int", rel_info="prefs")
def prefs_num_prefs_ful_ret(r: Ranked) -> np.ndarray:
    """Number of preferences fulfilled with both documents retrieved.

    The summary is the sum over queries (``m_prefs_num_prefs_ful_ret.c``).
    """
    c = _counts(r)
    return _per_query(r, c, c.ful_ret).astype(np.int64)


@measure("prefs_simp", rel_info="prefs")
def prefs_simp(r: Ranked) -> np.ndarray:
    """Preferences fulfilled over preferences possible (a pair neither retrieved is a failure).

    Every preference counts once per judgement group that states it, conflicting ones
    too (so the best value may be below 1). 0 without preferences (``m_prefs_simp.c``).
    """
    c = _counts(r)
    return _simple(r, c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp + c.notoccur)


@measure("prefs_pair", rel_info="prefs")
def prefs_pair(r: Ranked) -> np.ndarray:
    """Average over document pairs of the share of their preferences fulfilled.

    A pair preferred one way by 3 groups and the other way by 2 scores 3/5 when the
    ranking follows the 3; a pair of two unretrieved documents scores 0. Equal to
    prefs_simp when no pair is judged in two groups (``m_prefs_pair.c``).
    """
    return _pairs(r, 3)


@measure("prefs_avgjg", rel_info="prefs")
def prefs_avgjg(r: Ranked) -> np.ndarray:
    """prefs_simp within each judgement group, averaged over the groups (every user counts
    alike, however many preferences they stated).

    A group without possible preferences adds 0 but still counts in the average; the
    value is 0 unless the sum is above 0 (``m_prefs_avgjg.c``).
    """
    c = _counts(r)
    return _avg_over_groups(r, _share(c.ful_ret + c.ful_imp,
                                      c.poss_ret + c.poss_imp + c.notoccur))


@measure("prefs_avgjg_Rnonrel", rel_info="prefs")
def prefs_avgjg_Rnonrel(r: Ranked) -> np.ndarray:
    """prefs_avgjg with each group's non-relevant documents counted as if there were R of
    them, R its relevant documents (akin to bpref).

    With N non-relevant documents (level 0; below 0 too in the equivalence-classes form):
    N <= R adds R*(R-N) possible preferences, of which num_rel_ret*(R-N) fulfilled;
    N > R keeps only the first R non-relevant documents (internal rank order) and counts
    again, as trec_eval's ``recalculate`` does (``m_prefs_avgjg_Rnonrel.c``: there a
    preference counts as fulfilled when the preferred document is retrieved and ranks
    above the other, and in the equivalence-classes form the last class, the lowest
    level, is the one cut to R, pairs within it included). A group whose count comes to
    0/0 makes the query's value 0, as in trec_eval.

    Levels below 0 make non-relevant classes of their own, and the lowest may hold fewer
    than R documents: trec_eval then reads R ranks anyway, from where that class starts,
    on into the next groups' ranks and into what earlier queries left in its buffer, and
    smarteval reads the same ones. Where trec_eval reads memory it never wrote, or past
    its buffer (valgrind flags those reads, and the value depends on the memory), each
    rank read counts as a document ranked after every judged one.
    """
    return _rnonrel(r, retrieved=False)


@measure("prefs_simp_ret", rel_info="prefs")
def prefs_simp_ret(r: Ranked) -> np.ndarray:
    """prefs_simp over the preferences between two retrieved documents only.

    ``m_prefs_simp_ret.c``; suits dynamic collections.
    """
    c = _counts(r)
    return _simple(r, c.ful_ret, c.poss_ret)


@measure("prefs_pair_ret", rel_info="prefs")
def prefs_pair_ret(r: Ranked) -> np.ndarray:
    """prefs_pair over the pairs of two retrieved documents only (``m_prefs_pair_ret.c``)."""
    return _pairs(r, 1)


@measure("prefs_avgjg_ret", rel_info="prefs")
def prefs_avgjg_ret(r: Ranked) -> np.ndarray:
    """prefs_avgjg over the preferences between two retrieved documents only.

    ``m_prefs_avgjg_ret.c``.
    """
    c = _counts(r)
    return _avg_over_groups(r, _share(c.ful_ret, c.poss_ret))


@measure("prefs_avgjg_Rnonrel_ret", rel_info="prefs")
def prefs_avgjg_Rnonrel_ret(r: Ranked) -> np.ndarray:
    """prefs_avgjg_Rnonrel over the preferences between two retrieved documents, R the
    group's relevant retrieved documents.

    As ``m_prefs_avgjg_Rnonrel_ret.c``: with N <= R the added possible preferences are
    num_rel*(R-N) (all relevant documents, retrieved or not); with N > R, in the
    preference-array form, the non-relevant documents kept are the first num_rel (not
    num_rel_ret) retrieved ones. The R ranks of the new lowest class are read as
    prefs_avgjg_Rnonrel reads them, up to the first of an unretrieved document.
    """
    return _rnonrel(r, retrieved=True)


@measure("prefs_simp_imp", rel_info="prefs")
def prefs_simp_imp(r: Ranked) -> np.ndarray:
    """prefs_simp without the preferences whose documents are both unretrieved.

    ``m_prefs_simp_imp.c``.
    """
    c = _counts(r)
    return _simple(r, c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp)


@measure("prefs_pair_imp", rel_info="prefs")
def prefs_pair_imp(r: Ranked) -> np.ndarray:
    """prefs_pair without the pairs of two unretrieved documents (``m_prefs_pair_imp.c``)."""
    return _pairs(r, 2)


@measure("prefs_avgjg_imp", rel_info="prefs")
def prefs_avgjg_imp(r: Ranked) -> np.ndarray:
    """prefs_avgjg without the preferences whose documents are both unretrieved.

    ``m_prefs_avgjg_imp.c``.
    """
    c = _counts(r)
    return _avg_over_groups(r, _share(c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp))


# --------------------------------------------------------------------------- judgement groups

def _grouped(r: Ranked) -> GroupRanking:
    if r.groups is not None:
        return r.groups  # type: ignore[return-value]
    return GroupRanking(ranked=r, query=np.arange(r.num_queries, dtype=np.int64))


def _over_groups(r: Ranked, g: GroupRanking, values: np.ndarray) -> np.ndarray:
    """Per query: the values of its groups summed (in group order), divided by their
    number when more than one, as trec_eval averages over judgement groups."""
    total = np.bincount(g.query, weights=values, minlength=r.num_queries)
    groups = np.bincount(g.query, minlength=r.num_queries)
    return np.where(groups > 1, total / np.maximum(groups, 1), total)


@measure("map_avgjg", rel_info="qrels_jg")
def map_avgjg(r: Ranked) -> np.ndarray:
    """map against each judgement group's judgements, averaged over the query's groups.

    ``m_map_avgjg.c``; against plain qrels (one group) it is map.
    """
    g = _grouped(r)
    return _over_groups(r, g, average_precision(g.ranked.at_level(r.rel_level)))


@measure("P_avgjg", params="cutoffs", default=TREC_CUTOFFS, rel_info="qrels_jg")
def p_avgjg(r: Ranked, k: int) -> np.ndarray:
    """P at cutoff k against each judgement group, averaged over the query's groups.

    ``m_P_avgjg.c``; against plain qrels (one group) it is P.
    """
    g = _grouped(r)
    return _over_groups(r, g, precision(g.ranked.at_level(r.rel_level), k))


@measure("Rprec_mult_avgjg", params="levels", default=RPREC_MULTS, rel_info="qrels_jg")
def rprec_mult_avgjg(r: Ranked, mult: float) -> np.ndarray:
    """Rprec_mult against each judgement group, averaged over the query's groups.

    ``m_Rprec_mult_avgjg.c``; against plain qrels (one group) it is Rprec_mult.
    """
    g = _grouped(r)
    return _over_groups(r, g, rprec_mult(g.ranked.at_level(r.rel_level), mult))

