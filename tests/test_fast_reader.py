"""The fast run reader (files) against the plain one (bytes): same columns, bit for bit."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smarteval.read import fast as fastrun
from smarteval.read.plain import _read_run_fast, read_run

ws = st.sampled_from([" ", "\t", "  ", " \t "])
number = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.6f}"),
    st.floats(1e-9, 1e9).map(lambda x: f"{x:.3e}"),
)
docno = st.one_of(st.integers(0, 9_000_000).map(str),
                  st.text("abcXYZ-_.#0123456789", min_size=1, max_size=30),
                  st.text("abL", min_size=250, max_size=1200))     # wider than the padding
qid = st.sampled_from(["1", "2", "10", "q7", "301"])


@st.composite
def run_files(draw):
    lines = []
    seen = set()
    for _ in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["row"] * 8 + ["blank", "comment"]))
        if kind == "blank":
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
            continue
        if kind == "comment":
            lines.append("# " + draw(st.text("abc 123", max_size=10)))
            continue
        q, d = draw(qid), draw(docno)
        if (q, d) in seen:
            continue
        seen.add((q, d))
        sep = [draw(ws) for _ in range(5)]
        fields = [q, "Q0", d, str(draw(st.integers(0, 999))), draw(number), "tag"]
        text = fields[0] + "".join(s + f for s, f in zip(sep, fields[1:]))
        if draw(st.booleans()):
            text += " extra fields"
        lines.append(text)
    if not seen:
        lines.append("1 Q0 x 1 1.0 tag")
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    body = eol.join(lines) + (eol if draw(st.booleans()) else "")
    return body.encode()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_files(), compress=st.booleans())
def test_fast_reader_matches_plain_reader(tmp_path_factory, data, compress):
    path = tmp_path_factory.mktemp("runs") / "run.txt"
    path.write_bytes(gzip.compress(data) if compress else data)
    fast = _read_run_fast(str(path), str(path))
    assert fast is not None                    # well-formed: the fast reader must take it
    assert read_run(path).docnos.tolist() == fast.docnos.tolist()
    plain = read_run(str(path), data=data)
    assert list(fast.qids) == list(plain.qids)
    assert fast.offsets.tolist() == plain.offsets.tolist()
    assert fast.docnos.tolist() == plain.docnos.tolist()
    assert fast.scores.view(np.int64).tolist() == plain.scores.view(np.int64).tolist()
    # the tokenizer numbers lines as the plain reader does; a run without repeats keeps none
    assert fastrun.read_run(str(path)).lines.tolist() == plain.lines.tolist()
    assert fast.lines is None and not len(fast.repeated)
    assert fast.tag == plain.tag


def test_mostly_whitespace_goes_to_the_plain_reader(tmp_path):
    # a line of spaces longer than a chunk: the tokenizer hands it over rather than hold
    # an int64 position per space; the plain reader reads the same columns
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 d1 1 1.0 t\n" + b" " * 300_000 + b"\n1 Q0 d2 2 0.5 t\n")
    assert _read_run_fast(str(path), str(path)) is None
    run = read_run(str(path))
    assert run.docnos.tolist() == [b"d1", b"d2"]
    assert run.lines.tolist() == [1, 3]


@pytest.mark.parametrize("chunk", [64, 4096, 1 << 20])
@pytest.mark.parametrize("where", [0, 57, 199], ids=["first", "middle", "last"])
@pytest.mark.parametrize("queries", ["grouped", "interleaved"])
def test_a_long_docno_anywhere_in_any_chunk(tmp_path, chunk, where, queries):
    """One docno far wider than the others, in the first, a middle or the last chunk, in
    a file grouped by query or not: the columns are the plain reader's, byte for byte."""
    def query(i: int) -> int:
        return 1 + (i // 50 if queries == "grouped" else i % 7)

    lines = [f"{query(i)} Q0 D{i:04d}-{'x' * (i % 13)} {i} {1000 - i}.5 t\n"
             for i in range(200)]
    lines[where] = f"{query(where)} Q0 {'L' * 5000}{where} {where} 9.5 t\n"
    data = "".join(lines).encode()
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    cols = fastrun.read_run(str(path), chunk_bytes=chunk, workers=0)
    plain = read_run(str(path), data=data)
    assert cols.docnos.tolist() == plain.docnos.tolist()
    assert cols.offsets.tolist() == plain.offsets.tolist()
    assert cols.lines.tolist() == plain.lines.tolist()
