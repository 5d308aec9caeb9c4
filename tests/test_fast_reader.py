"""The fast run reader (files) against the plain one (bytes): same columns, bit for bit."""

from __future__ import annotations

import gzip

import numpy as np
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
                  st.text("abcXYZ-_.#0123456789", min_size=1, max_size=30))
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
