"""The qrels reader's quick paths (clean lines; clean lines with one-digit grades) give the
columns of its general path."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smarteval.errors import InputError
from smarteval.read import plain

SEP = st.sampled_from([" ", "\t", "  ", " \t"])
LINE = st.tuples(st.sampled_from(["1", "2", "10", "007"]), st.sampled_from(["0", "Q0", "1"]),
                 st.sampled_from([f"d{i}" for i in range(8)] + ["LA010189-0001", "x"]),
                 st.integers(-2, 12), SEP, SEP, SEP,
                 st.sampled_from(["\n", "\n", "\n", "\r\n", "  \n"]))


def _read(data: bytes, general: bool, one_digit: bool = True):
    with pytest.MonkeyPatch.context() as m:
        if general:
            m.setattr(plain._Lines, "_clean_chunk", staticmethod(lambda b, sep, n: None))
        if general or not one_digit:
            m.setattr(plain, "_clean_qrels", lambda buf, size, name: None)
        try:
            q = plain.read_qrels("q", data=data)
        except InputError as exc:
            return str(exc)
    return (q.qids.tolist(), q.offsets.tolist(), q.docnos.tolist(), q.grades.tolist(),
            q.lines.tolist(), q.repeated.tolist(), q.duplicate_grades.tolist())


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=30), tail=st.booleans(),
       chunk=st.sampled_from([7, 64, 1 << 24]))
def test_quick_path_equals_general_path(monkeypatch, lines, tail, chunk):
    text = "".join(f"{q}{s1}{it}{s2}{d}{s3}{g}{end}" for q, it, d, g, s1, s2, s3, end in lines)
    if not tail:
        text = text.rstrip("\r\n ")
    monkeypatch.setattr(plain, "_CHUNK", chunk)
    general = _read(text.encode(), True)
    assert _read(text.encode(), False) == general
    assert _read(text.encode(), False, one_digit=False) == general


@pytest.mark.parametrize("data, one_digit, clean", [
    (b"1 0 a 1\n1 0 b 0\n2 0 a 2\n", [True], []),
    (b"1 0 a 1\n1 0 b 0\n2 0 a 12\n", [False], [True]),
    (b"1 0 a 1\n1 0 b 0\n2 0 a -1\n", [False], [True]),
    (b"1 0 a 1\n# note\n2 0 a 2\n", [False], [False]),
])
def test_quick_paths_are_taken_on_clean_lines(monkeypatch, data, one_digit, clean):
    calls: dict[str, list[bool]] = {"one_digit": [], "clean": []}
    real_qrels, real_chunk = plain._clean_qrels, plain._Lines._clean_chunk

    def spy_qrels(buf, size, name):
        out = real_qrels(buf, size, name)
        calls["one_digit"].append(out is not None)
        return out

    def spy_chunk(b, sep, n):
        out = real_chunk(b, sep, n)
        calls["clean"].append(out is not None)
        return out
    monkeypatch.setattr(plain, "_clean_qrels", spy_qrels)
    monkeypatch.setattr(plain._Lines, "_clean_chunk", staticmethod(spy_chunk))
    q = plain.read_qrels("q", data=data)
    assert calls == {"one_digit": one_digit, "clean": clean}
    assert q.grades.tolist()[0] == 1
    np.testing.assert_array_equal(q.lines, [1, 2, 3] if clean != [False] else [1, 3])


def _columns(q):
    return (q.qids.tolist(), q.offsets.tolist(), q.docnos.tolist(), q.grades.tolist(),
            q.lines.tolist(), q.repeated.tolist(), q.duplicate_grades.tolist())


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=12), last=st.sampled_from(
    ["d1", "x" * 9, "y" * 17, "z" * 300]), tail=st.booleans())
def test_a_file_is_read_as_its_bytes_are(tmp_path, lines, last, tail):
    """A regular file is read into a padded buffer of its own (the fields gathered from
    it in place, the last line's docno of any width at the buffer's end): the columns
    are those of its bytes given in memory."""
    text = "".join(f"{q}{s1}{it}{s2}{d}{s3}{g}{end}" for q, it, d, g, s1, s2, s3, end in lines)
    text += f"1 0 {last} 1" + ("\n" if tail else "")
    path = tmp_path / "qrels"
    path.write_bytes(text.encode())
    try:
        want = _columns(plain.read_qrels("q", data=text.encode()))
    except InputError as exc:
        with pytest.raises(InputError) as got:
            plain.read_qrels(path)
        assert str(got.value) == str(exc).replace("q:", f"{path}:", 1)
        return
    assert _columns(plain.read_qrels(path)) == want
