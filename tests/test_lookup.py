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
