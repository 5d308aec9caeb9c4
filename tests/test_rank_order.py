"""The ranking permutation: every shape of tied group (already descending, strictly
ascending, mixed, equal docnos, two rows) and queries out of score order give exactly
one stable sort of (query, score descending, docno descending)."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from smarteval.columns import block_query_index
from smarteval.ranking import join
from smarteval.read.keys import descending_keys
from smarteval.settings import Settings


def _reference(key: np.ndarray, docnos: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    query = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.lexsort(descending_keys(docnos) + (-key, query))


def _permutation(key: np.ndarray, docnos: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    moved = join._rank_order(key, docnos, offsets, Settings())
    rows = np.arange(len(key))
    if moved is None:
        return rows
    at, src = moved
    return join._moved(rows, at, src, in_place=True)


def _check(key, docnos, offsets):
    key = np.asarray(key, dtype=np.float32)
    offsets = np.asarray(offsets, dtype=np.int64)
    assert _permutation(key, docnos, offsets).tolist() == \
        _reference(key, docnos, offsets).tolist()


@pytest.mark.parametrize("docnos", [
    [b"a", b"b"],                         # two rows, ascending: swapped
    [b"b", b"a"],                         # two rows, descending: stay
    [b"a", b"a"],                         # the same docno twice: file order
    [b"a", b"b", b"c", b"d"],             # strictly ascending: reversed
    [b"d", b"c", b"c", b"a"],             # never ascending (one pair equal): stay
    [b"a", b"b", b"b", b"c"],             # ascending with an equal pair: sorted, stable
    [b"b", b"a", b"c", b"d"],             # mixed
    [b"c", b"d", b"a", b"b"],             # mixed
])
def test_one_tied_group_of_each_shape(docnos):
    n = len(docnos)
    _check([1.0] * n, np.array(docnos, dtype="S8"), [0, n])
    _check([1.0] * n, np.array(docnos, dtype=object), [0, n])


def test_ties_do_not_cross_queries_and_unsorted_queries_are_sorted():
    docnos = np.array([b"a", b"b", b"c", b"d", b"e", b"f", b"g"], dtype="S8")
    # query 0: a b tied; query 1: c (alone, same score as the last of query 0), then
    # d e f g out of score order with ties among them
    key = [2.0, 2.0, 2.0, 1.0, 3.0, 1.0, 3.0]
    _check(key, docnos, [0, 2, 3, 7])
    _check(key, docnos, [0, 0, 2, 2, 3, 7, 7])     # empty queries among them


ids = st.one_of(
    st.integers(0, 30).map(lambda i: b"d%d" % i),
    st.binary(min_size=1, max_size=20).map(lambda b: b.replace(b"\x00", b"x")),
    st.integers(0, 5).map(lambda i: b"L" * 100 + b"%d" % i),
)


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), varlen=st.booleans())
def test_random_ties_match_one_stable_sort(data, varlen):
    counts = data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
    n = sum(counts)
    key = data.draw(st.lists(st.sampled_from([0.5, 1.0, 1.0, 2.0, 2.0, 2.0]),
                             min_size=n, max_size=n))
    docnos = data.draw(st.lists(ids, min_size=n, max_size=n))
    docnos = np.array(docnos, dtype=object) if varlen or not n else np.array(docnos)
    _check(key, docnos, np.concatenate(([0], np.cumsum(counts))))


def test_moved_changes_a_shared_column_only_in_a_copy():
    col = np.arange(5.0)
    out = join._moved(col, np.array([0, 1]), np.array([1, 0]), in_place=False)
    assert out.tolist() == [1.0, 0.0, 2.0, 3.0, 4.0] and col.tolist() == [0, 1, 2, 3, 4]
    assert join._moved(col, None, np.array([4, 3, 2, 1, 0]), in_place=True).tolist() == \
        [4, 3, 2, 1, 0]


@given(counts=st.lists(st.integers(0, 5), min_size=1, max_size=8), data=st.data())
def test_block_query_index_is_a_slice_of_the_whole_index(counts, data):
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    n = int(offsets[-1])
    whole = np.repeat(np.arange(len(counts)), counts)
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    if hi > lo:
        assert block_query_index(offsets, lo, hi).tolist() == whole[lo:hi].tolist()


@pytest.mark.parametrize("block", [1, 3, 1 << 15])        # rows hashed at a time
def test_docno_hashes_are_equal_exactly_for_equal_ids_at_any_width(block, monkeypatch):
    from smarteval.read import keys
    monkeypatch.setattr(keys, "HASH_BLOCK", block)
    _hashes_of_any_width()


@settings(max_examples=examples(100), deadline=None)
@given(ids=st.lists(st.binary(min_size=1, max_size=24).map(lambda b: b.replace(b"\x00", b"y")),
                    min_size=1, max_size=40))
def _hashes_of_any_width(ids):
    from smarteval.read import keys
    fixed = np.array(ids)
    width = fixed.dtype.itemsize
    same = fixed[:, None] == fixed[None, :]
    # hashed as ids of a wider width (the qrels' docnos fitted to a run's, say): as the
    # wider ids themselves; the same within a whole word of NUL padding
    for wider in (width, width + 3, 8 * ((width + 7) // 8) + 8):
        h = keys.docno_hash(fixed, wider)
        assert keys.docno_hash(fixed.astype(f"S{wider}")).tolist() == h.tolist()
        assert ((h[:, None] == h[None, :]) == same).all()
    assert keys.docno_hash(fixed, 8 * ((width + 7) // 8)).tolist() == \
        keys.docno_hash(fixed).tolist()


def _ranked_columns(ranked) -> tuple:
    return (ranked.offsets.tolist(), ranked.rel.tolist(), ranked.docno.tolist(),
            ranked.score.tolist(), ranked.tie_key.tolist())


@pytest.mark.parametrize("version", [9, 10])
def test_a_second_thread_ranks_as_one(monkeypatch, version):
    from smarteval.read.plain import read_qrels, read_run
    rng = np.random.default_rng(7)
    lines = [b"%d Q0 d%d %d %.1f t" % (q, d, i, rng.integers(0, 4))
             for q in (3, 1, 2) for i, d in enumerate(rng.permutation(60))]
    run = read_run("r", data=b"\n".join(lines) + b"\n")
    qrels = read_qrels("q", data=b"".join(b"%d 0 d%d %d\n" % (q, d, d % 3)
                                          for q in (1, 2, 3) for d in range(0, 60, 3)))
    settings = Settings(trec_version=version)
    one = _ranked_columns(join.rank(run, qrels, settings))
    from smarteval import threads
    monkeypatch.setattr(join, "PARALLEL_ROWS", 1)
    monkeypatch.setattr(threads, "spare_cpus", lambda: 2)
    assert _ranked_columns(join.rank(run, qrels, settings)) == one
    assert run.docnos.tolist() == [ln.split()[2] for ln in sorted(
        lines, key=lambda ln: ln.split()[0])]           # the run itself is left alone

    def failing(*args):
        raise MemoryError
    monkeypatch.setattr(join, "_lookup", failing)
    with pytest.raises(MemoryError):                       # raised where it is asked for
        join.rank(run, qrels, settings)


@given(st.integers(0, 2**32 - 1), st.sampled_from([9, 10]))
@settings(max_examples=examples(40), deadline=None)
def test_an_owned_run_ranks_the_same_in_place(seed, version):
    """rank(owned=True) reorders the run's own columns and gives the ranking rank() gives
    on a run it must leave alone, which keeps its columns."""
    from smarteval.read.plain import read_qrels, read_run
    rng = np.random.default_rng(seed)
    lines, judged = [], []
    for q in range(1, 4):
        for i in range(int(rng.integers(1, 30))):
            lines.append(f"{q} Q0 d{int(rng.integers(0, 20))}x{i} {i} "
                         f"{float(rng.integers(0, 4)) / 2} t\n")
            if rng.random() < 0.5:
                judged.append(f"{q} 0 {lines[-1].split()[2]} {int(rng.integers(0, 3))}\n")
    qrels = read_qrels("q", data="".join(judged or ["1 0 none 1\n"]).encode())
    data = "".join(lines).encode()
    s = Settings(trec_version=version)
    kept = read_run("r", data=data)
    before = (kept.scores.copy(), kept.docnos.copy())
    want = join.rank(kept, qrels, s)
    assert (kept.scores == before[0]).all() and (kept.docnos == before[1]).all()
    got = join.rank(read_run("r", data=data), qrels, s, owned=True)
    for name in ("offsets", "rel", "score", "docno", "tie_key"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
