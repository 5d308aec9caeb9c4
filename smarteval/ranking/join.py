"""Ranking: join a run with the qrels and put every query's documents in trec_eval's order."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from smarteval.columns import (
    NONPOOL,
    PLACEHOLDER,
    UNJUDGED,
    Qrels,
    Ranked,
    Run,
    block_query_index,
    distinct,
    segment_sum,
    straddling,
    tie_groups,
    tied_pairs,
)
from smarteval.ranking.checks import check_ranked_queries, score_key
from smarteval.read.keys import (
    descending_keys,
    docno_hash,
    encode_ids,
    find_keys,
    fits,
    fitted,
    is_varlen,
    key_table,
)
from smarteval.settings import Settings
from smarteval.threads import PARALLEL_ROWS, beside


def concat_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices ``starts[i]:starts[i]+lengths[i]`` for every i, concatenated.

    By example: starts=[5, 0], lengths=[2, 3]  ->  [5, 6, 0, 1, 2]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift


def index_dtype(n: int):
    """The narrowest integer type that indexes ``n`` rows (a permutation of 7 million rows
    in int32 is half the memory)."""
    return np.int32 if n < 2**31 else np.int64


def offsets_from_counts(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def evaluated_queries(run: Run, qrels: Qrels, settings: Settings) -> np.ndarray:
    """Query ids evaluated, in output (byte) order: run ∩ qrels, or all qrels queries under -c.

    ``settings.query`` (trec_eval's ``-D LEVEL.QUERY``) keeps that query only, if it is
    one of them.
    """
    qids = qrels.qids if settings.complete else _shared(run.qids, qrels)
    if settings.query is not None:
        qids = qids[qids == settings.query]
    return in_byte_order(qids)


def _shared(run_qids: np.ndarray, qrels: Qrels) -> np.ndarray:
    """The query ids of the run and the qrels, sorted. A run of a few queries (a block of
    a long run) is looked up in the qrels' ids, sorted once, without sorting them again."""
    qrels_qids = qrels.qids
    if len(run_qids) * 8 < len(qrels_qids):
        tables = qrels.lookup_tables
        if "sorted_qids" not in tables:     # in numpy's order (byte order may differ)
            tables["sorted_qids"] = qrels_qids if bool(
                (qrels_qids[1:] > qrels_qids[:-1]).all()) else np.sort(qrels_qids)
        known = tables["sorted_qids"]
        at = np.minimum(np.searchsorted(known, run_qids), len(known) - 1)
        return np.sort(run_qids[known[at] == run_qids])
    return np.intersect1d(run_qids, qrels_qids, assume_unique=True)


def in_byte_order(qids: np.ndarray) -> np.ndarray:
    """``qids`` ordered by their bytes, as trec_eval's strcmp orders them.

    Ids are text, a byte that is not UTF-8 kept as a lone surrogate; the text order is
    the bytes' order unless such an id sits among ids with characters above U+007F.
    """
    if len(qids) < 2 or qids.dtype.kind not in "UO":
        return qids
    if qids.dtype.kind == "U" and int(qids.view(np.uint32).max()) < 0x80 \
            or is_varlen(qids) and all(q.isascii() for q in qids.tolist()):
        return qids
    raw = encode_ids(qids, "surrogateescape")
    return qids if (raw[1:] > raw[:-1]).all() else qids[np.argsort(raw, kind="stable")]


def rank(run: Run, qrels: Qrels, settings: Settings | None = None, *,
         documents: bool = True, trec_names: bool = True, owned: bool = False,
         file_order: bool = False, cuts: bool = True) -> Ranked:
    """Sort each query by score descending, ties by docno descending (byte order), as trec_eval.

    Scores compare as 32-bit floats under trec_eval 9 (``settings.float32_scores``)
    and as doubles under 10. ``settings.ties == "random"`` orders tied documents by a
    seeded random permutation instead (SMART). The qrels give each document its grade;
    then (``cuts``, the default) :func:`cut` applies ``settings.max_docs`` (-M: each
    query's first documents) and ``settings.judged_only`` (-J: documents without a
    non-negative judgement dropped, ranks closing up). ``settings.complete`` (-c)
    evaluates every query of the qrels; under trec_eval 10 a query without results gets
    trec_eval's placeholder document (:data:`~smarteval.columns.PLACEHOLDER`, score
    1.0). ``settings.query`` (-D) keeps one query.

    ``documents`` (the default) says the measures look at the documents: then what
    trec_eval refuses in a query it ranks is refused (:mod:`smarteval.ranking.checks`);
    a first query judged only below 0 only when ``trec_names`` says a trec_eval measure
    is asked (the others evaluate it).
    ``owned`` says the caller has no further use for ``run``: its score and docno columns
    are then put in rank order in place instead of in copies. ``file_order`` keeps each
    row's place in the run (``Ranked.file_row``), for the programs that read a run in the
    order of its lines (:mod:`smarteval.ranking.programs`).
    """
    settings = settings or Settings()
    qids = evaluated_queries(run, qrels, settings)
    run_q = _positions(run.qids, qids)      # run query index of each evaluated query or -1
    qrels_q = _positions(qrels.qids, qids)
    if documents:
        check_ranked_queries(run, qrels, settings, qids, run_q, qrels_q,
                             negative_first=trec_names)

    # rows of the evaluated queries, grouped in output order
    has_run = run_q >= 0
    at = np.maximum(run_q, 0)           # offsets index even a run without queries (-c)
    starts = np.where(has_run, run.offsets[at], 0)
    counts = np.where(has_run, run.offsets[np.minimum(at + 1, run.num_queries)] - starts, 0)
    offsets = offsets_from_counts(counts)
    # the score and docno columns are the run's own (not to be changed) or new copies
    whole = len(qids) == run.num_queries and bool(has_run.all())
    shared = whole and not (owned and run.scores.flags.writeable
                            and run.docnos.flags.writeable)    # Arrow's buffers are not
    if whole:
        # every query of the run is evaluated, in order
        scores, docnos, hashes = run.scores, run.docnos, run.docno_hash
    else:
        rows = concat_ranges(starts, counts)
        scores = run.scores[rows]
        docnos = run.docnos[rows]
        hashes = None if run.docno_hash is None else run.docno_hash[rows]
        del rows
    if settings.placeholders and not has_run.all():
        counts, offsets, scores, docnos, hashes = _with_placeholders(
            ~has_run, counts, offsets, scores, docnos, hashes)
        shared = False
    key = score_key(scores, settings)
    file_row = np.arange(len(scores), dtype=index_dtype(len(scores))) if file_order else None

    # grades are looked up in file order (the lookup does not care), so that only the
    # grades, not the docno hashes, follow the ranking permutation; a long run's grades
    # are looked up in a second thread while this one finds the rank order
    with beside(len(docnos) >= PARALLEL_ROWS) as run_beside:
        grades = run_beside(_lookup, qrels, qrels_q, docnos, offsets, hashes)
        del hashes
        moved = _rank_order(key, docnos, offsets, settings)
        rel = grades()
        if moved is not None:
            at, src = moved
            del moved
            # the run's own columns are copied (a long run's docnos in the second thread)
            new_docnos = run_beside(_moved, docnos, at, src, not shared)
            rel = _moved(rel, at, src, in_place=True)
            key_is_scores = key is scores             # trec_eval 10 compares the doubles
            if not key_is_scores:
                key = _moved(key, at, src, in_place=True)
            scores = _moved(scores, at, src, in_place=not shared)
            if file_row is not None:
                file_row = _moved(file_row, at, src, in_place=True)
            if key_is_scores:
                key = scores
            docnos = new_docnos()
            del at, src

    qrel_offsets, qrel_grades, qrel_lines, qrel_docnos = _ideal(qrels, qrels_q)
    ranked = Ranked(qids=np.asarray(qids), offsets=offsets, rel=rel, score=scores,
                    docno=docnos, qrel_offsets=qrel_offsets, qrel_grades=qrel_grades,
                    qrel_lines=qrel_lines, qrel_docnos=qrel_docnos, in_run=has_run,
                    rel_level=settings.rel_level, run_tag=run.tag, tie_key=key,
                    settings=settings, file_row=file_row,
                    qrels_num_queries=qrels.num_queries,
                    qrels_positive_lines=qrels.num_positive_lines)
    del rel, scores, docnos, key, file_row
    return cut(ranked) if cuts else ranked


def cut(r: Ranked, max_docs: int | None = None, judged_only: bool | None = None) -> Ranked:
    """``r`` (in rank order) with ``-M`` and ``-J`` applied: each query's first
    ``max_docs`` rows, then only the rows the qrels judge (grade >= 0), ranks closing up.
    Both default to the ranking's own settings.

    By example: ranks a b c d with b unjudged, -M 3 -J  ->  a c
    """
    max_docs = r.settings.max_docs if max_docs is None else max_docs
    judged_only = r.settings.judged_only if judged_only is None else judged_only
    if max_docs is not None:
        kept = np.minimum(r.num_ret, max_docs)
        if np.any(kept < r.num_ret):
            r = _rows(r, concat_ranges(r.offsets[:-1], kept), offsets_from_counts(kept))
    if judged_only:
        keep = r.rel >= 0
        if not keep.all():
            r = _rows(r, keep, offsets_from_counts(segment_sum(keep, r.offsets)))
    return r


def _rows(r: Ranked, rows: np.ndarray, offsets: np.ndarray) -> Ranked:
    """``r``'s ``rows`` (indices or a mask, in rank order), grouped by ``offsets``."""
    score = r.score[rows]
    return replace(r, offsets=offsets, rel=r.rel[rows], score=score, docno=r.docno[rows],
                   tie_key=(score if r.tie_key is r.score else
                            None if r.tie_key is None else r.tie_key[rows]),
                   file_row=None if r.file_row is None else r.file_row[rows])


def _with_placeholders(missing, counts, offsets, scores, docnos, hashes):
    """The rows with trec_eval 10.0's placeholder document added to every ``missing`` query.

    By example: counts=[2, 0, 1], missing=[F, T, F]  ->  counts [2, 1, 1], the new row
    third. The columns widen to the placeholder's length when they are narrower.
    """
    new_counts = counts + missing
    new_offsets = offsets_from_counts(new_counts)
    at = np.arange(len(scores), dtype=np.int64) + np.repeat(new_offsets[:-1] - offsets[:-1],
                                                             counts)
    slots = new_offsets[:-1][missing]
    n = int(new_offsets[-1])
    dtype = docnos.dtype if is_varlen(docnos) else \
        np.dtype(f"S{max(docnos.dtype.itemsize, len(PLACEHOLDER))}")
    new_scores = np.empty(n, dtype=np.float64)
    new_scores[at] = scores
    new_scores[slots] = 1.0
    new_docnos = np.empty(n, dtype=dtype)
    new_docnos[at] = docnos
    new_docnos[slots] = PLACEHOLDER
    new_hashes = None
    if hashes is not None and dtype == docnos.dtype:
        new_hashes = np.empty(n, dtype=hashes.dtype)
        new_hashes[at] = hashes
        new_hashes[slots] = docno_hash(new_docnos[slots[:1]], dtype.itemsize)[0]
    return new_counts, new_offsets, new_scores, new_docnos, new_hashes


def _positions(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """Index of each needle in the sorted ``haystack``, or -1."""
    if len(haystack) == 0:
        return np.full(len(needles), -1, dtype=np.int64)
    pos = np.searchsorted(haystack, needles)
    pos = np.minimum(pos, len(haystack) - 1)
    return np.where(haystack[pos] == needles, pos, -1).astype(np.int64)


def _moved(col: np.ndarray, at: np.ndarray | None, src: np.ndarray,
           in_place: bool) -> np.ndarray:
    """``col`` with rows ``at`` taken from rows ``src`` (``at`` None: every row, ``src``
    a whole permutation): in place when the column may be changed, else in a copy."""
    if at is None:
        return col[src]
    out = col if in_place else col.copy()
    out[at] = col[src]             # the rows to move are gathered first, then written
    return out


def _rank_order(key, docnos, offsets, settings: Settings):
    """The rows that move to put each query in rank order, as ``(at, src)``: row ``at[i]``
    of the ranking is row ``src[i]`` of the input, every other row stays (``at`` None:
    ``src`` is a whole permutation). None when every row already is in place.

    Runs are nearly always written in score order already, so one vectorised pass
    finds the queries whose scores are out of order (sorted whole) and the groups of
    tied scores; only the rows of those groups are ordered by docno (or shuffled for
    random ties). A group of tied rows whose docnos already descend stays; one whose
    docnos strictly ascend (as many writers put them: two rows, say) is turned around;
    only the rest are sorted (:func:`_tie_order`).
    """
    n = len(key)
    if n < 2:
        return None
    higher = key[1:] > key[:-1]
    higher[straddling(offsets, n)] = False
    order = None
    if higher.any():
        bad_q = distinct(np.searchsorted(offsets, np.flatnonzero(higher) + 1, side="right") - 1)
        del higher
        lengths = np.diff(offsets)[bad_q]
        sel = concat_ranges(offsets[:-1][bad_q], lengths)
        # stable: ties keep file order for now
        sub = np.lexsort((-key[sel], np.repeat(bad_q, lengths)))
        order = np.arange(n, dtype=index_dtype(n))
        order[sel] = sel[sub]
        key, docnos = key[order], docnos[order]
    else:
        del higher
    tied = tied_pairs(key, offsets)
    if not tied.any():
        return None if order is None else (None, order)
    # rows belonging to a group of equal scores, and where each group starts
    rows, starts = tie_groups(tied)
    del tied
    if settings.ties == "random":
        rng = np.random.default_rng(settings.seed)
        sub = np.lexsort((rng.random(len(rows)), np.cumsum(starts)))
        at, src = rows, rows[sub]
    else:
        moves = _tie_order(docnos[rows], rows, starts)
        if moves is None:
            return None if order is None else (None, order)
        at, src = moves
    if order is None:
        return at, src
    whole = order.copy()
    whole[at] = order[src]
    return None, whole


def _tie_order(d: np.ndarray, rows: np.ndarray, starts: np.ndarray):
    """The rows that move to put groups of tied rows in docno descending order (byte
    order; equal docnos keep their order), as ``(at, src)``, or None when none moves.

    ``rows`` are the tied rows (each group's rows consecutive), ``d`` their docnos and
    ``starts`` True at each group's first row. Groups whose docnos never ascend from one
    row to the next stay; groups whose docnos strictly ascend all the way are reversed;
    the rest are sorted with ``np.lexsort``, as a stable sort of the whole would order
    them.
    """
    within = ~starts[1:]                              # pair (j, j + 1) in one group
    up = (d[1:] > d[:-1]) & within
    if not up.any():
        return None                                   # every tie already in docno order
    group = np.cumsum(starts) - 1
    ngroups = int(group[-1]) + 1
    rises = np.zeros(ngroups, dtype=bool)
    rises[group[1:][up]] = True
    flat = np.zeros(ngroups, dtype=bool)              # some pair that does not rise
    flat[group[1:][within & ~up]] = True
    del up, within
    first = np.flatnonzero(starts)
    last = np.append(first[1:], len(rows)) - 1
    turned = (rises & ~flat)[group]
    at = rows[turned]
    g = group[turned]
    src = rows[first[g]] + (rows[last[g]] - at)       # the group's rows are consecutive
    mixed = (rises & flat)[group]
    if mixed.any():
        m = rows[mixed]
        sub = np.lexsort(descending_keys(d[mixed]) + (group[mixed],))
        at = np.concatenate((at, m))
        src = np.concatenate((src, m[sub]))
    return at, src


def _judged_vocab(qrels: Qrels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct judged docnos (in hash order), each judgement's index among them, and
    the judgements sorted by (query, that index).

    Found by sorting 64-bit docno hashes, not the docnos themselves; should two docnos
    share a hash, by sorting the docnos. Kept on the qrels for every run.
    """
    tables = qrels.lookup_tables
    if "vocab" not in tables:
        docnos = qrels.docnos
        h = docno_hash(docnos, docnos.dtype.itemsize)
        order = np.argsort(h)
        hs, ds = h[order], docnos[order]
        same = hs[1:] == hs[:-1]
        if (same & (ds[1:] != ds[:-1])).any():
            vocab, code = np.unique(docnos, return_inverse=True)
        else:
            new = np.ones(len(order), dtype=bool)
            new[1:] = ~same
            vocab = ds[new]
            code = np.empty(len(order), dtype=np.int64)
            code[order] = np.cumsum(new) - 1
        # the judgements of each query in the order of their codes, for the lookup
        query = np.repeat(np.arange(qrels.num_queries, dtype=np.int64), np.diff(qrels.offsets))
        by_code = np.argsort(query * max(len(vocab), 1) + code)    # keys are distinct
        tables["vocab"] = (vocab, code, by_code)
    return tables["vocab"]


def _vocab_table(vocab: np.ndarray, like: np.dtype):
    """A direct-address table from docno hash to index in ``vocab`` (judged docnos), for
    retrieved docnos of type ``like`` (a fixed width, or variable-length).

    Slots holding two judged docnos are marked -2 and resolved by binary search. When
    two judged docnos share the whole hash at this width (``exact`` False), lookups
    compare the docnos themselves instead.
    """
    # a judged docno longer than any retrieved one can never match: b""
    vocab_w = fitted(vocab, like)
    vh = docno_hash(vocab_w, like.itemsize)
    bits = min(24, max(12, (max(len(vocab), 1) - 1).bit_length() + 4))
    mask = np.uint64((1 << bits) - 1)
    slot = (vh & mask).view(np.int64)
    uniq, counts = np.unique(slot, return_counts=True)
    table = np.full(1 << bits, -1, dtype=np.int32)
    table[slot] = np.arange(len(vocab))
    table[uniq[counts > 1]] = -2
    order = np.argsort(vh)
    real = np.sort(vh[vocab_w != b""])          # b"": too long to match at this width
    exact = not (real[1:] == real[:-1]).any()
    return vocab_w, vh, table, mask, order, vh[order], exact


def _vocab_codes(qrels: Qrels, docnos: np.ndarray, hashes=None) -> np.ndarray:
    """Index of each docno in ``qrels.vocab`` (the judged docnos), -1 when absent.

    Seven million run docnos are looked up by hash in the few thousand judged ones,
    through a direct-address table on the hash's low bits; matches are then confirmed
    byte for byte. The table is built once per qrels and type of docnos.
    """
    width = docnos.dtype.itemsize
    tables = qrels.lookup_tables
    name = ("table", docnos.dtype.str)
    if name not in tables:
        tables[name] = _vocab_table(_judged_vocab(qrels)[0], docnos.dtype)
    vocab_w, vh, table, mask, order, vh_sorted, exact = tables[name]
    if not exact:
        by_bytes = np.argsort(vocab_w)
        at = np.minimum(np.searchsorted(vocab_w[by_bytes], docnos), len(by_bytes) - 1)
        return np.where(vocab_w[by_bytes][at] == docnos, by_bytes[at], -1).astype(np.int32)
    h = hashes if hashes is not None else docno_hash(docnos, width)
    cand = table[np.bitwise_and(h, mask).view(np.int64)]
    shared = np.flatnonzero(cand == -2)
    if len(shared):
        at = np.searchsorted(vh_sorted, h[shared])
        np.minimum(at, len(vh_sorted) - 1, out=at)
        cand[shared] = order[at]
    hit = np.flatnonzero(cand >= 0)
    hit = hit[vh[cand[hit]] == h[hit]]
    codes = np.full(len(docnos), -1, dtype=np.int32)
    same = vocab_w[cand[hit]] == docnos[hit]
    codes[hit[same]] = cand[hit[same]]
    return codes


#: Runs with at most this many rows per judgement join the qrels on (query, docno hash)
#: keys; longer runs look docnos up in a table of the judged docnos, built once.
KEY_JOIN_ROWS = 8
_MIX = np.uint64(0x9E3779B97F4A7C15)


#: Rows looked up at a time: bounds the temporaries (hashes, slots, codes) of a long run.
LOOKUP_BLOCK = 1 << 17


def _lookup(qrels: Qrels, qrels_q: np.ndarray, docnos: np.ndarray, offsets: np.ndarray,
            hashes=None):
    """Each row's grade in its query's qrels: the grade, NONPOOL or UNJUDGED (int32 when
    every grade fits, as nearly always; int64 otherwise)."""
    grades = qrels.grades
    narrow = not len(grades) or (int(grades.min()) > -2**31 and int(grades.max()) < 2**31)
    rel = np.full(len(docnos), NONPOOL, dtype=np.int32 if narrow else np.int64)
    if len(docnos) == 0 or len(qrels.docnos) == 0:
        return rel
    keys = None
    if 4 * int(np.count_nonzero(qrels_q >= 0)) < qrels.num_queries:
        # a few of the qrels' queries (a block of a long run): their judgements alone
        keys = _some_judgement_keys(qrels, docnos.dtype, qrels_q)
    elif len(docnos) <= KEY_JOIN_ROWS * len(qrels.docnos):
        keys = _judgement_keys(qrels, docnos.dtype)
    for lo in range(0, len(docnos), LOOKUP_BLOCK):
        block = slice(lo, lo + LOOKUP_BLOCK)
        h = None if hashes is None else hashes[block]
        qindex = block_query_index(offsets, lo, min(lo + LOOKUP_BLOCK, len(docnos)), np.int32)
        if keys is not None:
            _lookup_by_key(qrels, keys, qrels_q, docnos[block], qindex, h, rel[block])
        else:
            _lookup_by_vocab(qrels, qrels_q, docnos[block], qindex, h, rel[block])
    return rel


def _lookup_by_vocab(qrels: Qrels, qrels_q, docnos, qindex, hashes, rel) -> None:
    """:func:`_lookup` through the table of judged docnos, into ``rel``: for long runs."""
    vocab, vocab_code, by_code = _judged_vocab(qrels)
    code = _vocab_codes(qrels, docnos, hashes)
    found = code >= 0
    nv = len(vocab)
    # qrels rows of evaluated queries, keyed (evaluated query, docno code): sorted
    eval_of_qrels_query = np.full(qrels.num_queries, -1, dtype=np.int64)
    ok = qrels_q >= 0
    eval_of_qrels_query[qrels_q[ok]] = np.flatnonzero(ok)
    qq = np.repeat(eval_of_qrels_query, np.diff(qrels.offsets))[by_code]
    qkeep = qq >= 0
    qkeys = qq[qkeep] * nv + vocab_code[by_code][qkeep]
    qgrades = qrels.grades[by_code][qkeep]
    keys = qindex[found].astype(np.int64) * nv + code[found]
    at = np.searchsorted(qkeys, keys)
    np.minimum(at, max(len(qkeys) - 1, 0), out=at)
    hit = qkeys[at] == keys if len(qkeys) else np.zeros(len(keys), dtype=bool)
    g = np.where(hit, qgrades[at] if len(qkeys) else NONPOOL, NONPOOL)
    g = np.where(hit & (g < 0), UNJUDGED, g)
    rel[found] = g


def _judgement_keys(qrels: Qrels, like: np.dtype):
    """Every judgement's key, hash(docno as a docno of type ``like``) + query x a
    constant, in a hash table (:func:`~smarteval.read.keys.key_table`), with its docno
    (of type ``like``) and its row of the qrels; None when two keys collide. Kept on the
    qrels.
    """
    tables = qrels.lookup_tables
    name = ("keys", like.str)
    if name not in tables:
        query = np.repeat(np.arange(qrels.num_queries, dtype=np.uint64), np.diff(qrels.offsets))
        rows, judged, key = _judged(qrels, like)
        if rows is not None:
            query = query[rows]
        with np.errstate(over="ignore"):
            query *= _MIX
            key += query
        del query
        table = key_table(key)
        tables[name] = None if table is None else (key, table, judged, rows)
    return tables[name]


def _judged(qrels: Qrels, like: np.dtype):
    """The qrels rows whose docno a docno of type ``like`` may equal (None: every row),
    and of those rows, in the qrels' order, the docno as such a docno and its hash."""
    docnos = qrels.docnos
    rows = None
    can_match = fits(docnos, like)
    if can_match is not None:
        # a judged docno longer than every retrieved one can never match
        rows = np.flatnonzero(can_match)
        docnos = docnos[rows]
    judged = docnos if like.kind == "S" and docnos.dtype == like else fitted(docnos, like)
    return rows, judged, docno_hash(judged, like.itemsize)


def _some_judgement_keys(qrels: Qrels, like: np.dtype, qrels_q: np.ndarray):
    """:func:`_judgement_keys` of the queries ``qrels_q`` (qrels query indices; -1 for
    none) alone: for a block of a long run, a small table that stays in the CPU's caches
    (one of every judgement would be missed in them row after row). None when two keys
    collide."""
    tables = qrels.lookup_tables
    name = ("judged", like.str)
    if name not in tables:          # kept for every block
        tables[name] = _judged(qrels, like)
    rows, judged, hashes = tables[name]
    queries = qrels_q[qrels_q >= 0]
    counts = qrels.offsets[queries + 1] - qrels.offsets[queries]
    at = concat_ranges(qrels.offsets[queries], counts)      # qrels rows of the queries
    query = np.repeat(queries.astype(np.uint64), counts)
    if rows is not None:            # those that may match, by their place among ``rows``
        keep = np.searchsorted(rows, at)
        found = keep < len(rows)
        found[found] = rows[keep[found]] == at[found]
        query, at = query[found], at[found]
        keep = keep[found]
    else:
        keep = at
    with np.errstate(over="ignore"):
        key = hashes[keep] + query * _MIX
    table = key_table(key)
    return None if table is None else (key, table, judged[keep], at)


def _lookup_by_key(qrels: Qrels, keys, qrels_q, docnos, qindex, hashes, rel) -> None:
    """:func:`_lookup` through (query, docno hash) keys: each row's key is looked up in
    the judgements' hash table, every match confirmed byte for byte.

    The docnos' bytes and the keys agreeing, so do the queries: a docno's hash is the
    same, and ``query x`` the odd constant differs for every query (modulo 2**64).
    """
    key, table, judged, rows = keys
    if len(key) == 0:
        return
    h = hashes if hashes is not None else docno_hash(docnos, docnos.dtype.itemsize)
    with np.errstate(over="ignore"):
        probe = (np.maximum(qrels_q, 0).astype(np.uint64) * _MIX)[qindex]
        probe += h
    at = find_keys(table, key, probe)
    del probe
    hit = np.flatnonzero(at >= 0)
    at = at[hit]
    same = _same_ids(judged[at], docnos[hit])
    if (qrels_q < 0).any():                 # a query without judgements matches nothing
        same &= qrels_q[qindex[hit]] >= 0
    if not same.all():
        hit, at = hit[same], at[same]
    grades = qrels.grades[at if rows is None else rows[at]]
    rel[hit] = np.where(grades < 0, UNJUDGED, grades)


def _same_ids(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a == b`` for two id columns of one type: word by word for a fixed width of a
    few words (the ids' bytes, NUL-padded alike), faster than numpy's string compare."""
    width = a.dtype.itemsize
    if a.dtype != b.dtype or a.dtype.kind != "S" or width % 8 or width > 32 or not len(a):
        return np.asarray(a == b, dtype=bool)
    wa = np.ascontiguousarray(a).view(np.uint64).reshape(len(a), -1)
    wb = np.ascontiguousarray(b).view(np.uint64).reshape(len(b), -1)
    same = wa[:, 0] == wb[:, 0]
    for i in range(1, wa.shape[1]):
        same &= wa[:, i] == wb[:, i]
    return same


def _ideal(qrels: Qrels, qrels_q: np.ndarray):
    """Per evaluated query: its judged (>= 0) grades, descending, with the qrels line and
    docno of each (kept on the qrels for the next run that evaluates the same queries)."""
    name = ("ideal", qrels_q.tobytes())
    if name not in qrels.lookup_tables:
        qrels.lookup_tables[name] = _ideal_grades(qrels, qrels_q)
    return qrels.lookup_tables[name]


def _ideal_grades(qrels: Qrels, qrels_q: np.ndarray):
    has = qrels_q >= 0
    counts = np.where(has, np.diff(qrels.offsets)[np.maximum(qrels_q, 0)], 0)
    if len(qrels_q) == qrels.num_queries and bool((qrels_q == np.arange(len(qrels_q))).all()):
        rows = np.arange(len(qrels.grades), dtype=np.int64)     # every query, in order
    else:
        starts = np.where(has, qrels.offsets[:-1][np.maximum(qrels_q, 0)], 0)
        rows = concat_ranges(starts, counts)
    grades = qrels.grades[rows]
    q = np.repeat(np.arange(len(qrels_q), dtype=np.int64), counts)
    judged = grades >= 0
    if not judged.all():
        grades, q, rows = grades[judged], q[judged], rows[judged]
    top = int(grades.max(initial=0)) + 1
    if len(qrels_q) * top <= 1 << 16:
        # (query, grade descending) in one 16-bit key: numpy sorts it stably by radix
        key = q * top
        key += top - 1
        key -= grades
        order = np.argsort(key.astype(np.uint16), kind="stable")
    else:
        order = np.lexsort((-grades, q))
    rows = rows[order]
    return (offsets_from_counts(np.bincount(q, minlength=len(qrels_q))), grades[order],
            qrels.lines[rows], qrels.docnos[rows])
