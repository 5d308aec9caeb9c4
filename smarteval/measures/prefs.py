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

from smarteval.columns import Ranked, run_starts
from smarteval.errors import InputError
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

#: entries of one preference-array block are matrices of this many cells at most
_BLOCK_CELLS = 1 << 24


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


def _level_pairs(key: np.ndarray, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs (a, b) of sorted rows with the same ``key`` where a's level is above b's
    (rows sorted by key, then level descending)."""
    n = len(key)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    new_key = run_starts(key)
    new_level = run_starts(key, level)
    key_start = np.flatnonzero(new_key)
    key_end = np.append(key_start[1:], n)[np.cumsum(new_key) - 1]
    level_start = np.flatnonzero(new_level)
    level_end = np.append(level_start[1:], n)[np.cumsum(new_level) - 1]
    next_start = np.minimum(level_end, key_end)
    count = key_end - next_start
    a = np.repeat(np.arange(n, dtype=np.int64), count)
    b = concat_ranges(next_start, count)
    return a, b


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
    #: the preferences of the preference-array groups: group, preferred, other
    pa_pairs: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: per (group, document) of the preference-array groups: group, internal rank, level
    pa_docs: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: the pairs of the queries where one may be preferred twice (see _gathered_pairs)
    listed: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


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
    counted by a binary search in each higher level's ranks (one per row and level)."""
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
    b = np.repeat(rr, levels_above)
    s = concat_ranges(first_seg[g_idx[rr]], levels_above)
    width = int(d.max()) + 1 if k else 1
    key = seg * width + d                                        # sorted: (level, rank)
    before = np.searchsorted(key, s * width + d[b]) - seg_start[s]
    fulfilled = np.bincount(b, weights=before, minlength=k).astype(np.int64)
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

    # preference arrays: each sub-group's pairs, closed transitively per group
    pa_rows = np.flatnonzero(row_pa)
    sa, sb = _level_pairs(t.subgroup[pa_rows], t.level[pa_rows])
    sa, sb = pa_rows[sa], pa_rows[sb]
    docs_g, docs_id, docs_level = _pa_documents(t, pa_rows)
    drel = docs_level > 0
    dzero = docs_level == 0
    dret = docs_id < t.num_judged_ret[gquery[docs_g]] if len(docs_g) else drel
    counts["num_rel"] += np.bincount(docs_g, weights=drel, minlength=ng)
    counts["num_rel_ret"] += np.bincount(docs_g, weights=drel & dret, minlength=ng)
    counts["num_nonrel"] += np.bincount(docs_g, weights=dzero, minlength=ng)
    counts["num_nonrel_ret"] += np.bincount(docs_g, weights=dzero & dret, minlength=ng)
    pg, a, b = _closure(t, docs_g, docs_id, t.group[sa], t.docid[sa], t.docid[sb])
    n = t.num_judged_ret[gquery[pg]] if len(pg) else a
    a_ret, b_ret = a < n, b < n
    fwd = a < b

    def per_group(rows_mask, pair_mask):
        return (np.bincount(t.group, weights=rows_mask, minlength=ng)
                + np.bincount(pg[pair_mask], minlength=ng)).astype(np.int64)

    ful_ret = per_group(fr, fwd & b_ret)
    ful_imp = per_group(fi, fwd & ~b_ret & a_ret)
    back_ret = per_group(br, ~fwd & a_ret)
    back_imp = per_group(bi, ~fwd & ~a_ret & b_ret)
    notoccur = per_group(no, ~a_ret & ~b_ret)
    return _Counts(query=gquery, ful_ret=ful_ret, poss_ret=ful_ret + back_ret, ful_imp=ful_imp,
                   poss_imp=ful_imp + back_imp, notoccur=notoccur,
                   num_rel=counts["num_rel"].astype(np.int64),
                   num_rel_ret=counts["num_rel_ret"].astype(np.int64),
                   num_nonrel=counts["num_nonrel"].astype(np.int64),
                   num_nonrel_ret=counts["num_nonrel_ret"].astype(np.int64), pa=pa, table=t,
                   row_fr=fr, row_br=br, row_fi=fi, row_bi=bi, row_no=no, row_last=last,
                   pa_pairs=(pg, a, b), pa_docs=(docs_g, docs_id, docs_level))


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


def _closure(t: PrefRanking, docs_g, docs_id, eg, ea, eb):
    """The transitive closure of each preference-array group's preferences ``ea > eb``
    (internal ranks, group ``eg``): every pair (group, a, b) with a preferred to b.

    Boolean matrices over each group's documents, squared until nothing changes,
    groups of similar size stacked (padded to a power of two) so one matrix product
    serves many groups."""
    empty = np.zeros(0, np.int64)
    if len(docs_g) == 0:
        return empty, empty, empty
    ng = int(docs_g.max()) + 1
    size = np.bincount(docs_g, minlength=ng)
    first = offsets_from_counts(size)
    width = max(int(docs_id.max()) + 1, 1)
    key = docs_g * width + docs_id
    ia = np.searchsorted(key, eg * width + ea) - first[eg]
    ib = np.searchsorted(key, eg * width + eb) - first[eg]
    groups = np.flatnonzero(size)
    side = 1 << np.ceil(np.log2(np.maximum(size[groups], 1))).astype(np.int64)
    out_g, out_a, out_b = [], [], []
    for s in np.unique(side):                 # one pass per size class, not per group
        s = int(s)
        members = groups[side == s]
        per_block = max(1, _BLOCK_CELLS // (s * s))
        for lo in range(0, len(members), per_block):
            block = members[lo:lo + per_block]
            slot = np.full(ng, -1, dtype=np.int64)
            slot[block] = np.arange(len(block))
            mats = np.zeros((len(block), s, s), dtype=np.float32)
            on = slot[eg] >= 0
            mats[slot[eg[on]], ia[on], ib[on]] = 1.0
            diag = np.arange(s)
            mats[:, diag, diag] = 1.0
            reach = mats > 0
            while True:
                nxt = np.matmul(mats, mats) > 0
                if (nxt == reach).all():
                    break
                reach = nxt
                mats = nxt.astype(np.float32)
            reach[:, diag, diag] = False
            both = reach & reach.transpose(0, 2, 1)
            if both.any():
                at = [int(v[0]) for v in np.nonzero(both)]
                gi = int(block[at[0]])
                raise _contradiction(t, gi, int(docs_id[first[gi] + at[1]]),
                                     int(docs_id[first[gi] + at[2]]))
            k, i, j = np.nonzero(reach)
            gk = block[k]
            out_g.append(gk)
            out_a.append(docs_id[first[gk] + i])
            out_b.append(docs_id[first[gk] + j])
    return (np.concatenate(out_g).astype(np.int64), np.concatenate(out_a).astype(np.int64),
            np.concatenate(out_b).astype(np.int64))


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
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(ful, poss, dtype=np.float64)


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

    # preference arrays: the non-relevant documents past the first num_rel left out
    pa_groups = again & c.pa
    if pa_groups.any():
        dg, did, dlv = c.pa_docs
        zero = (dlv == 0) & pa_groups[dg] if len(dg) else np.zeros(0, bool)
        if retrieved:
            zero &= did < nret[dg]
        zg = dg[zero]
        nth = np.arange(len(zg)) - offsets_from_counts(np.bincount(zg, minlength=ng))[zg]
        # documents (group, internal rank) left out: level 0, past the first num_rel
        cut = np.flatnonzero(zero)[nth >= c.num_rel[zg]]
        first_out = np.full(ng, np.iinfo(np.int64).max)
        if len(cut):
            np.minimum.at(first_out, dg[cut], did[cut])
        out_doc = (dlv == 0) & (did >= first_out[dg])
        width = int(did.max()) + 2 if len(did) else 1
        out_keys = np.sort(dg[out_doc] * width + did[out_doc])
        pg, pa_, pb = c.pa_pairs
        on = pa_groups[pg] if len(pg) else np.zeros(0, bool)
        pg, pa_, pb = pg[on], pa_[on], pb[on]

        def left_out(doc):
            k = pg * width + doc
            at = np.minimum(np.searchsorted(out_keys, k), max(len(out_keys) - 1, 0))
            return (out_keys[at] == k) if len(out_keys) else np.zeros(len(k), bool)

        kept = ~left_out(pa_) & ~left_out(pb)
        pg, pa_, pb = pg[kept], pa_[kept], pb[kept]
        n = nret[pg]
        if retrieved:
            both = (pa_ < n) & (pb < n)
            pg, pa_, pb = pg[both], pa_[both], pb[both]
            ful += np.bincount(pg, weights=pa_ < pb, minlength=ng).astype(np.int64)
        else:
            ful += np.bincount(pg, weights=(pa_ < n) & (pa_ < pb), minlength=ng).astype(np.int64)
        poss += np.bincount(pg, minlength=ng)
    return ful, poss


# --------------------------------------------------------------------------- document pairs

def _pairs(r: Ranked, blocks: int) -> np.ndarray:
    """The average over document pairs with a preference of the share of that pair's
    preferences (over all groups) that the ranking fulfils; ``blocks`` 1: both retrieved,
    2: and one retrieved, 3: and neither (these count as 0).

    Where each pair is preferred once (a query whose documents each come once, in
    equivalence-classes groups), a pair's share is 1 or 0 and the counts give the sums.
    The other queries' pairs are listed and gathered."""
    c = _counts(r)
    nq = r.num_queries
    sums = [_per_query(r, c, c.ful_ret), _per_query(r, c, c.ful_imp), np.zeros(nq)]
    counts = [_per_query(r, c, c.poss_ret), _per_query(r, c, c.poss_imp),
              _per_query(r, c, c.notoccur)]
    total = sum(sums[:min(blocks, 2)])
    count = sum(counts[:blocks])
    listed = _listed_queries(c)
    if listed.any():
        lt, lc = _listed_pairs(c, listed, blocks, nq)
        total = np.where(listed, lt, total)
        count = np.where(listed, lc, count)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


def _listed_queries(c: _Counts) -> np.ndarray:
    """(Q,) bool: queries with a preference-array group or a document in two rows (two
    groups, or a line repeated), where a pair may be preferred more than once."""
    t = c.table
    nq = len(t.num_judged_ret)
    listed = np.zeros(nq, dtype=bool)
    listed[c.query[c.pa]] = True
    order = np.lexsort((t.docid, t.query))
    q, d = t.query[order], t.docid[order]
    again = (q[1:] == q[:-1]) & (d[1:] == d[:-1])
    listed[q[1:][again]] = True
    return listed


def _listed_pairs(c: _Counts, listed: np.ndarray, blocks: int, nq: int):
    """Per query of ``listed``: the shares summed over its pairs of the first ``blocks``
    blocks, and the number of those pairs."""
    if c.listed is None:
        c.listed = _gathered_pairs(c, listed)
    pq, block, share = c.listed
    keep = block < blocks
    return (np.bincount(pq[keep], weights=share[keep], minlength=nq),
            np.bincount(pq[keep], minlength=nq))


def _gathered_pairs(c: _Counts, listed: np.ndarray):
    """Every document pair of the ``listed`` queries with a preference, once, in
    trec_eval's order of summing (query; both retrieved, one, neither; lower internal rank;
    higher): its query, block and share of fulfilled preferences."""
    t = c.table
    rows = np.flatnonzero(listed[t.query] & ~c.pa[t.group])
    ea, eb = _level_pairs(t.group[rows], t.level[rows])
    pg, pa_, pb = c.pa_pairs
    group = np.concatenate([t.group[rows[ea]], pg])
    a = np.concatenate([t.docid[rows[ea]], pa_])
    b = np.concatenate([t.docid[rows[eb]], pb])
    q = c.query[group] if len(group) else group
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    n = t.num_judged_ret[q] if len(q) else q
    block = np.where(hi < n, 0, np.where(lo < n, 1, 2))
    width = int(t.num_judged.max(initial=0)) + 1
    # one integer key: query, block, lo, hi, and whether lo is the preferred one
    key = (((q * 3 + block) * width + lo) * width + hi) * 2 + (a < b)
    key.sort()
    pair_key = key >> 1
    new = run_starts(pair_key)
    pair = np.cumsum(new) - 1
    npairs = int(new.sum())
    c_lo = np.bincount(pair, weights=key & 1, minlength=npairs)
    c_all = np.bincount(pair, minlength=npairs)
    first = pair_key[new]
    pblock = (first // (width * width)) % 3
    share = np.where(pblock < 2, c_lo / np.maximum(c_all, 1), 0.0)
    return first // (width * width * 3), pblock, share


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

