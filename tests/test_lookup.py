"""Grades are looked up by docno hash, through a table of the judged docnos or a join on
(query, hash) keys; docnos that share a hash still get their own grade."""

from __future__ import annotations

import numpy as np
import pytest

import smarteval
from smarteval.ranking import join
from smarteval.read.plain import read_qrels, read_run

QRELS = b"".join(b"%d 0 doc%d %d\n" % (q, d, (q + d) % 3 - (d % 7 == 0))
                 for q in (1, 2, 3) for d in range(0, 60, 2))
RUN = b"".join(b"%d Q0 doc%d %d %d r\n" % (q, d, d, 100 - d) for q in (1, 2, 4)
               for d in range(40)) + b"3 Q0 averyverylongdocnumber7 1 1 r\n"


def _values(measures=("official", "ndcg", "bpref", "relstring.30")):
    qrels, run = read_qrels("q", data=QRELS), read_run("r", data=RUN)
    ev = smarteval.evaluate(qrels, run, list(measures))[0]
    return {k: np.asarray(v).tolist() for k, v in ev.per_query.items()}


@pytest.mark.parametrize("block", [7, 1 << 20])             # rows looked up at a time
@pytest.mark.parametrize("key_join_rows", [-1, 10**6])    # the table, the key join
def test_shared_hashes_fall_back_to_comparing_docnos(monkeypatch, key_join_rows, block):
    want = _values()
    monkeypatch.setattr(join, "KEY_JOIN_ROWS", key_join_rows)
    monkeypatch.setattr(join, "LOOKUP_BLOCK", block)
    assert _values() == want
    # every docno hashes alike: the vocabulary and every lookup table must notice
    monkeypatch.setattr(join, "docno_hash", lambda d, w: np.zeros(len(d), dtype=np.uint64))
    assert _values() == want
    # a few hashes shared: 0..3
    monkeypatch.setattr(join, "docno_hash",
                        lambda d, w: np.frombuffer(np.ascontiguousarray(d).tobytes(),
                                                   np.uint8)[::max(w, 1)][:len(d)]
                        .astype(np.uint64) % 4)
    assert _values() == want


@pytest.mark.parametrize("n, spread", [(0, 64), (1, 64), (5000, 64), (5000, 8), (70000, 64)])
def test_the_key_table_finds_every_key_and_no_other(n, spread):
    """Keys crowded into few slots (``spread`` top bits vary) land in the side list, and
    are found there as well as the others; an absent key is -1; equal keys: None."""
    from smarteval.read.keys import find_keys, key_table
    rng = np.random.default_rng(n + spread)
    keys = np.unique(rng.integers(0, 2**63, size=2 * n + 1, dtype=np.uint64))[:n]
    keys = rng.permutation(keys) >> np.uint64(64 - spread) << np.uint64(64 - spread) | \
        rng.integers(0, 2**20, size=n, dtype=np.uint64)
    keys = np.unique(keys)
    table = key_table(keys)
    assert table is not None
    absent = rng.integers(0, 2**63, size=1000, dtype=np.uint64)
    absent = absent[~np.isin(absent, keys)]
    probe = np.concatenate([keys[::-1], absent])
    want = np.concatenate([np.arange(len(keys))[::-1], np.full(len(absent), -1)])
    np.testing.assert_array_equal(find_keys(table, keys, probe), want)
    if len(keys) > 1:
        assert key_table(np.append(keys, keys[len(keys) // 2])) is None
