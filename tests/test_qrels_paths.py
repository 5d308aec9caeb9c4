"""The qrels reader's quick path (clean lines) gives the columns of its general path."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smarteval.errors import InputError
from smarteval.read import plain

SEP = st.sampled_from([" ", "\t", "  ", " \t"])
LINE = st.tuples(st.sampled_from(["1", "2", "10", "007"]), st.sampled_from(["0", "Q0", "1"]),
                 st.sampled_from([f"d{i}" for i in range(8)] + ["LA010189-0001", "x"]),
                 st.integers(-2, 12), SEP, SEP, SEP,
                 st.sampled_from(["\n", "\n", "\n", "\r\n", "  \n"]))


def _read(data: bytes, general: bool):
    with pytest.MonkeyPatch.context() as m:
        if general:
            m.setattr(plain._Lines, "_clean_chunk", staticmethod(lambda b, sep, n: None))
        try:
            q = plain.read_qrels("q", data=data)
        except InputError as exc:
            return str(exc)
    return (q.qids.tolist(), q.offsets.tolist(), q.docnos.tolist(), q.grades.tolist(),
            q.lines.tolist(), q.repeated.tolist(), q.duplicate_grades.tolist())


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=30), tail=st.booleans(),
       chunk=st.sampled_from([7, 64, 1 << 24]))
def test_quick_path_equals_general_path(monkeypatch, lines, tail, chunk):
    text = "".join(f"{q}{s1}{it}{s2}{d}{s3}{g}{end}" for q, it, d, g, s1, s2, s3, end in lines)
    if not tail:
        text = text.rstrip("\r\n ")
    monkeypatch.setattr(plain, "_CHUNK", chunk)
    assert _read(text.encode(), False) == _read(text.encode(), True)


def test_quick_path_is_taken_on_clean_lines(monkeypatch):
    calls = []
    real = plain._Lines._clean_chunk

    def spy(b, sep, n):
        out = real(b, sep, n)
        calls.append(out is not None)
        return out
    monkeypatch.setattr(plain._Lines, "_clean_chunk", staticmethod(spy))
    q = plain.read_qrels("q", data=b"1 0 a 1\n1 0 b 0\n2 0 a 2\n")
    assert calls == [True]
    assert q.grades.tolist() == [1, 0, 2]
    np.testing.assert_array_equal(q.lines, [1, 2, 3])
