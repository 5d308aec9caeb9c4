"""The fast run reader (files) against the plain one (bytes): same columns, bit for bit."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smarteval.errors import InputError
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


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


@pytest.mark.parametrize("chunk", [48, 64, 100, 4096])
@pytest.mark.parametrize("workers", [0, 2])
def test_a_byte_order_mark_in_a_file_of_many_chunks(tmp_path, chunk, workers):
    """A UTF-8 BOM before the first line is left out, and the chunk it shortened is not
    taken for the file's end: a run of many chunks is read whole (the first chunk's
    end, 3 bytes short of the chunk once the BOM was dropped, read as the end of the
    file, and the next chunk's first line came without its start)."""
    lines = "".join(f"{1 + i // 20} Q0 D{i} {i} {1000 - i}.5 t\n" for i in range(300))
    bom, plain = tmp_path / "bom.run", tmp_path / "plain.run"
    bom.write_bytes(b"\xef\xbb\xbf" + lines.encode())
    plain.write_bytes(lines.encode())
    got = fastrun.read_run(str(bom), chunk_bytes=chunk, workers=workers)
    want = fastrun.read_run(str(plain), chunk_bytes=chunk, workers=workers)
    assert _columns(got) == _columns(want)
    assert len(want.docnos) == 300


def _columns(cols) -> tuple:
    return (list(cols.qids), cols.offsets.tolist(), cols.docnos.tolist(),
            cols.scores.view(np.int64).tolist(),
            None if cols.lines is None else cols.lines.tolist(), cols.tag)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_files(), chunk=st.sampled_from([48, 100, 333, 4096]),
       keep_lines=st.booleans())
def test_parser_threads_read_what_one_thread_reads(tmp_path_factory, data, chunk, keep_lines):
    path = tmp_path_factory.mktemp("runs") / "run.txt"
    path.write_bytes(data)
    one = _columns(fastrun.read_run(str(path), chunk_bytes=chunk, workers=0))
    for workers in (1, 2, 3):
        got = _columns(fastrun.read_run(str(path), chunk_bytes=chunk, workers=workers,
                                        keep_lines=keep_lines))
        assert got[:4] == one[:4] and got[5] == one[5]
        assert got[4] == (one[4] if keep_lines else None)


def _late_error_file(tmp_path, bad: bytes):
    # queries out of byte order, a comment and a blank line early, the bad line late
    lines = [b"# a comment", b""]
    lines += [b"%d Q0 d%d 1 %d.25 tag" % (q, i, 1000 - i) for i in range(400) for q in (10, 9)]
    lines.insert(700, bad)
    path = tmp_path / "run.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, 701


@pytest.mark.parametrize("bad", [b"9 Q0 dx 1", b"9 Q0 dx 1 1.0e400 tag",
                                 b"9 Q0 dx 1 zero tag"], ids=["short", "inf", "text"])
def test_an_error_in_a_late_chunk_names_its_line_whatever_the_threads(tmp_path, bad):
    path, line = _late_error_file(tmp_path, bad)
    seen = set()
    for workers in (0, 1, 2):
        for keep_lines in (True, False):
            with pytest.raises(InputError) as err:
                fastrun.read_run(str(path), chunk_bytes=512, workers=workers,
                                 keep_lines=keep_lines)
            seen.add((err.value.line, str(err.value)))
    assert len(seen) == 1 and seen.pop()[0] == line
    # the reader everyone calls words it through the plain reader: the same line
    with pytest.raises(InputError) as err:
        read_run(path)
    assert err.value.line == line


def test_a_query_id_that_is_not_utf8_is_kept_as_the_checked_tokenizer_keeps_it(tmp_path):
    """Its bytes as lone surrogates: the fast reader takes the run (no second reading)."""
    path, _ = _late_error_file(tmp_path, b"\xff\xfe Q0 dx 1 1.5 tag")
    for workers in (0, 2):
        for keep_lines in (True, False):
            cols = fastrun.read_run(str(path), chunk_bytes=512, workers=workers,
                                    keep_lines=keep_lines)
            assert cols.qids.tolist() == ["10", "9", "\udcff\udcfe"]
    assert read_run(path).qids.tolist() == ["10", "9", "\udcff\udcfe"]


def test_a_query_id_that_sorts_otherwise_as_text_names_its_line_without_the_line_column(
        tmp_path):
    """\\x80 sorts before 'é' (\\xc3\\xa9) as bytes, after it as text (U+DC80): the fast
    reader names the line, and the plain reader takes the run."""
    path, line = _late_error_file(tmp_path, b"\x80 Q0 dx 1 1.5 tag\n\xc3\xa9 Q0 dy 1 1 tag")
    for workers in (0, 2):
        for keep_lines in (True, False):
            with pytest.raises(InputError) as err:
                fastrun.read_run(str(path), chunk_bytes=512, workers=workers,
                                 keep_lines=keep_lines)
            assert err.value.line == line
    assert read_run(path).qids.tolist() == ["10", "9", "\xe9", "\udc80"]


def test_parser_threads_by_size(monkeypatch):
    chunk = 4 << 20
    monkeypatch.setattr(fastrun, "spare_cpus", lambda: 2)
    assert fastrun.parser_threads(2 << 20, chunk) == 0       # one chunk: no thread
    assert fastrun.parser_threads(12 << 20, chunk) == 1      # a few chunks: one
    assert fastrun.parser_threads(0, chunk) == 2             # size unknown: two
    assert fastrun.parser_threads(280 << 20, chunk) == 2     # many chunks: two
    assert fastrun.parser_threads(80 << 20, chunk, compressed=True) == 1
    monkeypatch.setattr(fastrun, "spare_cpus", lambda: 1)   # a busy CPU: none
    assert fastrun.parser_threads(280 << 20, chunk) == 0
    assert fastrun.parser_threads(80 << 20, chunk, compressed=True) == 0


def test_repeats_are_found_in_either_half_of_a_large_run(monkeypatch):
    from smarteval import threads
    from smarteval.read import plain
    from smarteval.read.keys import docno_hash
    monkeypatch.setattr(plain, "_THREADED_SORT_ROWS", 4)
    monkeypatch.setattr(threads, "spare_cpus", lambda: 2)
    offsets = np.arange(0, 41, 5)
    docnos = np.array([b"d%d" % i for i in range(40)])
    assert not plain._may_have_duplicates(docno_hash(docnos), offsets)
    for first, again in ((1, 3), (36, 39)):                  # the first half, the second
        twice = docnos.copy()
        twice[again] = twice[first]
        assert plain._may_have_duplicates(docno_hash(twice), offsets)
    across = docnos.copy()
    across[7] = across[3]                                    # two queries: not a repeat
    assert not plain._may_have_duplicates(docno_hash(across), offsets)


@pytest.mark.parametrize("runs_max", [100_000, 0])         # concatenation, or a gather
@pytest.mark.parametrize("width", [8, 100])                 # wide docnos: grouped in place
def test_queries_out_of_byte_order_are_grouped(tmp_path, monkeypatch, width, runs_max):
    monkeypatch.setattr(fastrun, "_SLICE_RUNS_MAX", runs_max)
    lines = [b"%d Q0 %s 1 %d.5 t" % (q, b"d%d" % i + b"w" * (width - 8), 500 - i)
             for i in range(300) for q in (10, 9, 8)]
    path = tmp_path / "run.txt"
    path.write_bytes(b"\n".join(lines) + b"\n")
    cols = _columns(fastrun.read_run(str(path), chunk_bytes=2048, workers=0))
    assert cols[0] == ["10", "8", "9"] and cols[1] == [0, 300, 600, 900]
    assert cols[4][:3] == [1, 4, 7] and cols[4][300:302] == [3, 6]
    assert cols[2][:2] == [b"d0" + b"w" * (width - 8), b"d1" + b"w" * (width - 8)]
    scores = np.array(cols[3], dtype=np.int64).view(np.float64)
    assert scores.tolist() == [500.5 - i for _ in range(3) for i in range(300)]
