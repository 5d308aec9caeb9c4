"""Hostile input to the readers: never a wrong number, never a hang, never more memory than
the input holds, and one message with its exact text and exit status for each.

Line ends other than LF and CRLF, bytes C's isspace takes as separators (as trec_eval
does), ids that no text file could hold, binary and endless inputs, compressions not
read, FIFOs read once, long quoted lines.
"""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner
from fixtures import files_in, linux

from smarteval.cli import main
from smarteval.errors import InputError, UsageError
from smarteval.numerals import NUMBER
from smarteval.read import read_qrels, read_run, source
from smarteval.read.sample import SAMPLE_EXPECTED

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 a 0\n2 0 d 1\n"
RUN = b"1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n2 Q0 d 1 5.0 tag\n2 Q0 a 2 4.0 tag\n"
RUN_EXPECTED = ("  expected: QUERY_ID Q0 DOC_ID RANK SCORE RUN_TAG (6 fields, "
                "whitespace-separated)\n")
QRELS_EXPECTED = ("  expected: QUERY_ID ITERATION DOC_ID RELEVANCE (4 fields, "
                  "whitespace-separated)\n")
BARE_CR = ("a carriage return (CR) not followed by a line feed: lines end in LF or CRLF "
           "(a file with CR line ends: tr '\\r' '\\n' < FILE)")


def invoke(args, input=None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return result


def smarteval(*args, **kw):
    kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "timeout": 120, **kw}
    return subprocess.run([sys.executable, "-m", "smarteval", *map(str, args)], **kw)


@pytest.fixture
def files(tmp_path, monkeypatch):
    return files_in(tmp_path, monkeypatch, q=QRELS, r=RUN)


def _zip(name: str, data: bytes) -> bytes:
    import zipfile
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(name, data)
    return out.getvalue()


LONG = b"1 0 " + b"a" * 1000 + b" 1 extra\n"

#: (name, qrels bytes, run bytes, extra options, exit status, exact standard error,
#: what standard output holds): each evaluated as `evaluate -f trec -m num_ret -m
#: num_rel_ret OPTIONS qrels run`
CASES = [
    ("a run with CR line ends", QRELS, RUN.replace(b"\n", b"\r"), [], 1,
     f"Error: run:1: {BARE_CR}\n    1 Q0 a 1 3.0 tag\\r1 Q0 b 2 2.0 tag\\r2 Q0 d 1 5.0 "
     "tag\\r2 Q0 a 2 4.0 tag\n" + RUN_EXPECTED, ""),
    ("qrels with CR line ends", QRELS.replace(b"\n", b"\r"), RUN, [], 1,
     f"Error: qrels:1: {BARE_CR}\n    1 0 a 1\\r1 0 b 0\\r2 0 a 0\\r2 0 d 1\n"
     + QRELS_EXPECTED, ""),
    ("a CR inside a late run line", QRELS, RUN.replace(b"2 Q0 d 1 5.0 tag", b"2 Q0 d\r1 5.0 tag"),
     [], 1, f"Error: run:3: {BARE_CR}\n    2 Q0 d\\r1 5.0 tag\n" + RUN_EXPECTED, ""),
    ("a CR ending the last line without LF", QRELS, RUN[:-1] + b"\r", [], 0, "",
     "num_ret               \tall\t4\n"),
    ("CRLF line ends", QRELS.replace(b"\n", b"\r\n"), RUN.replace(b"\n", b"\r\n"), [], 0, "",
     "num_ret               \tall\t4\nnum_rel_ret           \tall\t2\n"),
    # trec_eval 9.0.8 and 10.0 print num_rel_ret 1: a vertical tab and a form feed
    # separate fields (isspace), so the docno is a and the rank z
    ("a vertical tab separates fields", QRELS, b"1 Q0 a\x0bz 1 3.0 tag\n1 Q0 b 2 2.0 tag\n", [],
     0, "", "num_ret               \tall\t2\nnum_rel_ret           \tall\t1\n"),
    ("a form feed separates fields", QRELS, b"1 Q0 a\x0cz 1 3.0 tag\n1 Q0 b 2 2.0 tag\n", [],
     0, "", "num_ret               \tall\t2\nnum_rel_ret           \tall\t1\n"),
    # ... and other control bytes are part of a field (trec_eval: num_rel_ret 1 here)
    ("a control byte belongs to its qrels docno", b"1 0 a\x01z 1\n1 0 b 0\n",
     b"1 Q0 a\x01z 1 3.0 tag\n1 Q0 b 2 2.0 tag\n", [], 0, "",
     "num_ret               \tall\t2\nnum_rel_ret           \tall\t1\n"),
    ("a long line is cut in the message", LONG, RUN, [], 1,
     "Error: qrels:1: qrels line has 5 fields, not 4 (sample_eval's sampled judgements, "
     "QUERY ITER DOCNO STRATUM REL, are read with -R sample_qrels; the Million Query track's "
     "prels, QUERY DOCNO REL METHOD PROB, are not read)\n    1 0 " + "a" * 196
     + " [... 1012 bytes in all]\n"
     + QRELS_EXPECTED, ""),
    ("an escape sequence is shown, not obeyed", QRELS, RUN + b"3 Q0 \x1b[2J 1\n", [], 1,
     "Error: run:5: run line has 4 fields, not 6\n    3 Q0 \\x1b[2J 1\n" + RUN_EXPECTED, ""),
    ("a zip archive", QRELS, _zip("r", RUN), [], 1,
     "Error: run: a zip archive: smarteval reads plain text, gzip, bzip2, xz and zstd "
     "files; extract or decompress it first\n", ""),
    ("lz4", b"\x04\x22\x4d\x18" + QRELS, RUN, [], 1,
     "Error: qrels: lz4-compressed: smarteval reads plain text, gzip, bzip2, xz and zstd "
     "files; extract or decompress it first\n", ""),
    ("a NUL byte in the qrels", QRELS + b"3 0 \x00 1\n", RUN, [], 1,
     "Error: qrels:5: binary file (NUL byte), not a qrels file\n" + QRELS_EXPECTED, ""),
    ("a NUL byte in a compressed run", QRELS, gzip.compress(RUN + b"\x00"), [], 1,
     "Error: run:5: binary file (NUL byte), not a run file\n" + RUN_EXPECTED, ""),
]


@pytest.mark.parametrize("name,qrels,run,options,status,stderr,stdout", CASES,
                         ids=[c[0] for c in CASES])
def test_hostile_text(files, name, qrels, run, options, status, stderr, stdout):
    (files / "qrels").write_bytes(qrels)
    (files / "run").write_bytes(run)
    for args in (["qrels", "run"], ["qrels", "-"]):
        res = invoke(["evaluate", "-f", "trec", "-m", "num_ret", "-m", "num_rel_ret",
                      *options, *args], input=run if args[1] == "-" else None)
        assert res.exit_code == status
        expected = stderr.replace("Error: run", "Error: <stdin>") if args[1] == "-" \
            else stderr
        assert res.stderr == expected
        assert res.stdout.startswith(stdout)


def test_the_checked_tokenizer_is_given_the_bad_line_alone(files, monkeypatch):
    """A late bad line of a large run is worded from its own bytes: the file is neither
    read again nor held whole (a 2M-line run whose last line is bad needs no more memory
    than a clean one)."""
    from smarteval.read import plain
    given = []
    real = plain._read_run_data

    def recording(data, *args, **kwargs):
        given.append(bytes(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(plain, "_read_run_data", recording)
    (files / "r").write_bytes(RUN * 5000 + b"9 Q0 x 1 nan tag\n")
    with pytest.raises(InputError) as err:
        read_run("r")
    assert err.value.line == 20001
    assert str(err.value) == ("r:20001: score 'nan' is not a finite number\n"
                              "    9 Q0 x 1 nan tag\n" + RUN_EXPECTED.rstrip("\n"))
    assert given == [b"9 Q0 x 1 nan tag\n"]


#: 20,000 lines of two queries, each document once
LONG_RUN = b"".join(b"%d Q0 d%d %d %d tag\n" % (q, i, i, 20000 - i)
                    for i in range(10000) for q in (1, 2))
LATE_QRELS = b"1 0 d1 1\n1 0 b 0\n2 0 d2 0\n2 0 d5 1\n"

#: (name, the run's last line, options, exit status, exact standard error, exact standard
#: output of `evaluate -f tsv -m num_ret OPTIONS`): a last line the fast reader cannot
#: take as it takes the others
LATE_LINES = [
    ("a document again in its query", b"2 Q0 d5 1 0.5 tag\n", [], 1,
     "Error: r:20001: document d5 appears again in query 2 (first at line 12)\n"
     "    2 Q0 d5 1 0.5 tag\n    line 12: 2 Q0 d5 5 19995 tag\n"
     "  expected: each document at most once per query (among the first -M)\n", ""),
    ("a document again past -M", b"2 Q0 d5 1 0.5 tag\n", ["-M", "9000"], 0, "",
     "run\tquery\tmeasure\tvalue\ntag\tall\tnum_ret\t18000\n"),
    ("a tag that is not UTF-8", b"2 Q0 e 1 0.5 t\xffg\n", [], 0, "",
     "run\tquery\tmeasure\tvalue\nt\udcffg\tall\tnum_ret\t20001\n"),
    ("a query id that is not UTF-8", b"\xff2 Q0 e 1 0.5 tag\n", ["-c"], 0, "",
     "run\tquery\tmeasure\tvalue\ntag\tall\tnum_ret\t20000\n"),
]


@pytest.mark.parametrize("name,last,options,status,stderr,stdout", LATE_LINES,
                         ids=[c[0] for c in LATE_LINES])
def test_a_late_line_costs_no_second_reader(files, monkeypatch, name, last, options,
                                            status, stderr, stdout):
    """The checked tokenizer never holds the whole file for such a line (a 2M-line run
    whose last line repeats a document took 5.5 times the memory of a clean one, out of
    memory under 512 MiB): a repeat has the fast reader read the lines' numbers again; a
    tag or query id that is not UTF-8 keeps its bytes as lone surrogates."""
    from smarteval.read import plain
    monkeypatch.setattr(plain, "_read_run_data", lambda *a, **k: pytest.fail("read whole"))
    (files / "r").write_bytes(LONG_RUN + last)
    (files / "q").write_bytes(LATE_QRELS)
    res = invoke(["evaluate", "-f", "tsv", "-m", "num_ret", *options, "q", "r"])
    assert (res.exit_code, res.stderr, res.stdout) == (
        status, stderr, stdout.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_line_past_the_limit_stops_the_reading(files, monkeypatch, kind):
    monkeypatch.setattr(source, "MAX_LINE", 1 << 12)
    (files / "r").write_bytes(RUN + b"1 Q0 " + b"x" * 8192 + b" 1 1 t\n")
    (files / "q").write_bytes(QRELS + b"1 0 " + b"x" * 8192 + b" 1\n")
    with pytest.raises(InputError) as err:
        (read_run if kind == "run" else read_qrels)(kind[0])
    expected = RUN_EXPECTED if kind == "run" else QRELS_EXPECTED
    assert str(err.value) == (f"{kind[0]}:5: a line longer than 0 MiB: not a {kind} file\n"
                              + expected.rstrip("\n"))


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_bomb_of_blank_lines_stops_the_reading(files, monkeypatch, kind):
    """A gzip file of blank lines is refused once the blank space passes the limit, not
    read whole and blamed on long ids."""
    monkeypatch.setattr(source, "MAX_LINE", 1 << 16)
    data = gzip.compress((RUN if kind == "run" else QRELS) + b"\n" * (1 << 20))
    (files / "bomb.gz").write_bytes(data)
    with pytest.raises(InputError) as err:
        (read_run if kind == "run" else read_qrels)("bomb.gz")
    expected = RUN_EXPECTED if kind == "run" else QRELS_EXPECTED
    assert str(err.value) == (f"bomb.gz:5: more than 0 MiB of blank lines and spaces from "
                              f"this line on: not a {kind} file\n" + expected.rstrip("\n"))


def test_zstd_is_read(files):
    zstandard = pytest.importorskip("zstandard")
    (files / "r.zst").write_bytes(zstandard.ZstdCompressor().compress(RUN))
    (files / "q.zst").write_bytes(zstandard.ZstdCompressor().compress(QRELS))
    res = invoke(["evaluate", "-f", "trec", "-m", "num_ret", "q.zst", "r.zst"])
    assert (res.exit_code, res.stdout) == (0, "num_ret               \tall\t4\n")
    (files / "bad.zst").write_bytes(b"\x28\xb5\x2f\xfd" + b"garbage" * 10)
    res = invoke(["evaluate", "q", "bad.zst"])
    assert res.exit_code == 1
    assert res.stderr.startswith("Error: bad.zst: corrupt compressed file: zstd ")



def _damaged_gzip() -> bytes:
    data = bytearray(gzip.compress(RUN * 100))
    data[30] ^= 0xFF            # a bad code inside the deflate stream: zlib.error
    return bytes(data)


#: (name, the damaged archive, exact message after the file's name): a file that ends
#: inside a zstd frame is refused as gzip, bzip2 and xz refuse theirs (zstandard's reader
#: took it for a clean end: a run cut after whole lines lost its last queries silently)
DAMAGED = [
    ("a gzip stream with a bad code", _damaged_gzip,
     "corrupt compressed file: Error -3 while decompressing data: invalid bit length "
     "repeat"),
    ("zstd cut inside its second frame",
     lambda: (lambda z: z.compress(RUN[:34]) + z.compress(RUN[34:])[:-6])(
         pytest.importorskip("zstandard").ZstdCompressor()),
     "corrupt compressed file: Compressed file ended before the end-of-stream marker was "
     "reached"),
    ("zstd cut inside a block's header",
     lambda: pytest.importorskip("zstandard").ZstdCompressor().compress(RUN)[:7],
     "corrupt compressed file: Compressed file ended before the end-of-stream marker was "
     "reached"),
]


@pytest.mark.parametrize("name,archive,message", DAMAGED, ids=[c[0] for c in DAMAGED])
@pytest.mark.parametrize("role", ["run", "qrels", "run on standard input"])
def test_a_damaged_archive_is_refused_by_every_reader(files, name, archive, message, role):
    data = archive()
    (files / "bad").write_bytes(data)
    (files / "s").write_bytes(RUN.replace(b"tag", b"other"))
    qrels, run = {"run": ("q", "bad"), "qrels": ("bad", "r"),
                  "run on standard input": ("q", "-")}[role]
    shown = "<stdin>" if run == "-" else "bad"
    for argv in (["evaluate", qrels, run], ["compare", qrels, "s", run],
                 ["report", qrels, "s", run]):
        res = invoke(argv, input=data if run == "-" else None)
        assert (res.exit_code, res.stderr, res.stdout) == (1, f"Error: {shown}: {message}\n",
                                                           ""), argv
    if role == "run":
        with pytest.raises(InputError) as err:
            read_run("bad")
        assert str(err.value) == f"bad: {message}"


def test_zstd_frames_of_every_kind_are_read_whole(files):
    """The frame walk that finds a cut file reads every well-formed one: frames with and
    without a checksum, a content size or a dictionary id, one block or many, a
    skippable frame between two, a streamed file flushed in many blocks."""
    zstandard = pytest.importorskip("zstandard")
    text = RUN * 40000 + bytes(range(1, 256)) * 4000
    skippable = b"\x50\x2a\x4d\x18" + (5).to_bytes(4, "little") + b"hello"
    for options in ({}, {"write_checksum": True}, {"write_content_size": False},
                    {"level": 19, "write_dict_id": True}, {"level": -5}):
        frame = zstandard.ZstdCompressor(**options).compress(text)
        flushed = io.BytesIO()
        with zstandard.ZstdCompressor(**options).stream_writer(flushed, closefd=False) as w:
            for i in range(0, len(text), 50000):
                w.write(text[i:i + 50000])
                w.flush()
        for archive, whole in ((frame, text), (frame + skippable + frame, text + text),
                               (flushed.getvalue(), text)):
            (files / "z").write_bytes(archive)
            with source.open_binary("z") as stream:
                assert stream.read() == whole
            (files / "z").write_bytes(archive[:-1])
            with pytest.raises(InputError, match="Compressed file ended before"):
                source.read_bytes("z")


#: A skippable frame, as pzstd opens its files with one (they were read as plain text,
#: "binary file (NUL byte)")
SKIPPABLE = b"\x50\x2a\x4d\x18" + (4).to_bytes(4, "little") + b"\x45\x00\x00\x00"


@pytest.mark.parametrize("head", [b"", SKIPPABLE], ids=["a frame", "a skippable frame"])
@pytest.mark.parametrize("args", [["evaluate", "q", "r.zst"], ["evaluate", "r.zst", "r"],
                                  ["compare", "-m", "map", "q", "r", "r.zst"],
                                  ["evaluate", "-R", "sample_qrels", "r.zst", "r"]])
def test_zstd_without_its_package_is_named(files, monkeypatch, head, args):
    monkeypatch.setitem(sys.modules, "zstandard", None)      # import fails
    (files / "r.zst").write_bytes(head + b"\x28\xb5\x2f\xfd" + b"\x00" * 16)
    res = invoke(args)
    assert res.exit_code == 1
    assert res.stderr == ("Error: r.zst: zstd-compressed: reading it needs the zstandard "
                          "package (pip install 'smarteval[zstd]'), or decompress it first "
                          "(zstd -d)\n")


def test_a_file_opening_with_a_skippable_frame_is_zstd(files):
    zstandard = pytest.importorskip("zstandard")
    (files / "r.zst").write_bytes(SKIPPABLE + zstandard.ZstdCompressor().compress(RUN))
    assert invoke(["evaluate", "-f", "tsv", "q", "r.zst"]).stdout == \
        invoke(["evaluate", "-f", "tsv", "q", "r"]).stdout


def _blank_gzip(lead: bytes, unit: bytes, size: int) -> bytes:
    """A gzip file of ``lead``, then ``size`` bytes of ``unit`` again and again."""
    import zlib
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = unit * ((1 << 22) // len(unit))
    parts = [z.compress(lead)] + [z.compress(chunk) for _ in range(size // len(chunk))]
    return b"".join(parts) + z.flush()


#: (name, what the gzip file holds before its blank space, that space's unit, the lines
#: of the file it is, the file's name in the refusal): a blank stretch longer than a line
#: may be is refused at the line it starts on (a tail longer than 4 KiB was placed
#: inside itself: line 1044469 for line 2) and only as much of it is read
BLANK = [
    ("newlines", RUN[:17], b"\n", ["evaluate", "q", "b.gz"], 2, "a run file", RUN_EXPECTED),
    ("spaces and newlines", RUN, b" \n", ["evaluate", "q", "b.gz"], 5, "a run file",
     RUN_EXPECTED),
    ("CRLF", RUN, b"\r\n", ["evaluate", "q", "b.gz"], 5, "a run file", RUN_EXPECTED),
    ("in the qrels", QRELS, b"\n\n \t", ["evaluate", "b.gz", "r"], 5, "a qrels file",
     QRELS_EXPECTED),
    ("in sample qrels", b"1 0 a 1 1\n", b"\n", ["evaluate", "-R", "sample_qrels", "b.gz", "r"],
     2, "a sample qrels file", "  expected: " + SAMPLE_EXPECTED + "\n"),
]


@pytest.mark.parametrize("name,lead,unit,args,line,what,expected", BLANK,
                         ids=[c[0] for c in BLANK])
def test_blank_space_in_a_gzip_is_refused_where_it_starts(files, name, lead, unit, args,
                                                          line, what, expected):
    import tracemalloc
    (files / "b.gz").write_bytes(_blank_gzip(lead, unit, 100 << 20))
    tracemalloc.start()
    try:
        res = invoke(args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (res.exit_code, res.stderr) == (
        1, f"Error: b.gz:{line}: more than 32 MiB of blank lines and spaces from this line "
           f"on: not {what}\n{expected}")
    assert peak < 80 << 20


# =========================================================================== read once

def _through_fifo(path, data: bytes, args):
    os.mkfifo(path)
    writer = threading.Thread(target=lambda: path.write_bytes(data), daemon=True)
    writer.start()
    res = smarteval(*args)
    writer.join(60)
    return res


#: (name, run bytes, exit status, exact standard error, standard output)
FIFO_CASES = [
    ("a valid run", RUN, 0, b"", b"num_ret               \tall\t4\n"),
    ("a malformed line", RUN + b"2 Q0 x 3\n", 1,
     b"Error: fifo:5: run line has 4 fields, not 6\n    2 Q0 x 3\n"
     + RUN_EXPECTED.encode(), b""),
    ("a docno twice", RUN + b"2 Q0 d 3 1.0 tag\n", 1,
     b"Error: fifo:5: document d appears again in query 2 (first at line 3)\n"
     b"  expected: each document at most once per query (among the first -M)\n", b""),
    ("a tag that is not UTF-8", RUN + b"2 Q0 x 3 1.0 \xff\n", 0, b"",
     b"num_ret               \tall\t5\n"),
]


@linux
@pytest.mark.parametrize("name,run,status,stderr,stdout", FIFO_CASES,
                         ids=[c[0] for c in FIFO_CASES])
def test_a_fifo_is_read_once(files, name, run, status, stderr, stdout):
    """Through a FIFO (and so `<(cat run)`) a run is read once, whatever the reader that
    takes it: no hang, no "empty run"."""
    res = _through_fifo(files / "fifo", run, ["evaluate", "-f", "trec", "-m", "num_ret", "q",
                                              "fifo"])
    assert (res.returncode, res.stderr, res.stdout) == (status, stderr, stdout)


@linux
def test_qrels_through_a_fifo_are_read_once(files):
    """Qrels through a FIFO are read as they come, once: the reader that reads a regular
    file in place leaves it alone (opening and closing it would lose the writer)."""
    res = _through_fifo(files / "qfifo", QRELS, ["evaluate", "-f", "trec", "-m", "num_rel",
                                                 "qfifo", "r"])
    assert (res.returncode, res.stderr, res.stdout) == (0, b"", b"num_rel               \tall\t2\n")


@linux
@pytest.mark.parametrize("device,kind,args", [
    ("/dev/zero", "run", ["q", "/dev/zero"]),
    ("/dev/zero", "qrels", ["/dev/zero", "r"]),
    ("/dev/urandom", "run", ["q", "/dev/urandom"]),
    ("/dev/urandom", "qrels", ["/dev/urandom", "r"]),
])
def test_an_endless_device_is_refused_at_once(files, device, kind, args):
    res = smarteval("evaluate", *args, timeout=60)
    expected = (RUN_EXPECTED if kind == "run" else QRELS_EXPECTED).encode()
    assert res.returncode == 1
    assert res.stderr.startswith(f"Error: {device}:".encode())
    assert res.stderr.endswith(f": binary file (NUL byte), not a {kind} file\n".encode()
                               + expected)
    if device == "/dev/zero":
        assert res.stderr.startswith(f"Error: {device}:1:".encode())


@linux
def test_standard_input_closed(files):
    res = subprocess.run(["bash", "-c", f"'{sys.executable}' -m smarteval evaluate q - <&-"],
                         capture_output=True, timeout=120)
    assert (res.returncode, res.stderr, res.stdout) == (
        1, b"Error: <stdin>: standard input is closed: give a file, or redirect it "
           b"(< FILE)\n", b"")


# =========================================================================== ids from tables

SPLIT = ("which no id in a TREC file can hold (it would split the id's line or field when "
         "written out)")
FRAME_RUN = "  expected: columns qid, docno, score (or query_id, doc_id, score)"
FRAME_QRELS = "  expected: columns qid, docno, label (or query_id, doc_id, relevance)"

#: (name, reader, source, exact message)
ID_CASES = [
    ("a tab in a docno", read_run, {"1": {"a": 1.0, "b\tc": 2.0}},
     f"<run dict>:2: docno 'b\\tc' holds a tab, {SPLIT}\n{FRAME_RUN}"),
    ("a line feed in a query id", read_run, {"1\n": {"a": 1.0}},
     f"<run dict>:1: query id '1\\n' holds a line feed, {SPLIT}\n{FRAME_RUN}"),
    ("a CR in a qrels docno", read_qrels, {"1": {"a": 1, "b\r": 0}},
     f"<qrels dict>:2: docno 'b\\r' holds a carriage return, {SPLIT}\n{FRAME_QRELS}"),
    ("a space in a query id", read_qrels, [("4 01", "a", 1)],
     f"<qrels records>:1: query id '4 01' holds a space, {SPLIT}\n{FRAME_QRELS}"),
    ("an empty query id", read_run, [("1", "a", 1.0), ("", "b", 2.0)],
     f"<run records>:2: empty query id\n{FRAME_RUN}"),
    ("a long id is cut", read_run, {"1": {"x" * 100 + "\n": 1.0}},
     f"<run dict>:1: docno '{'x' * 60}'... (101 bytes) holds a line feed, {SPLIT}\n"
     f"{FRAME_RUN}"),
]


#: (name, source, exact message): a score from memory is a real number a double holds
#: (a whole number past a double's range was an OverflowError, an imaginary part dropped)
SCORE_CASES = [
    ("a whole number past a double", {"1": {"a": 1.0, "b": 10**400}},
     f"<run dict>:2: score {'1' + '0' * 199} [... 401 bytes in all] is not a finite "
     f"number\n{FRAME_RUN}"),
    ("a negative one in records", [("1", "a", -(10**400))],
     f"<run records>:1: score -{'1' + '0' * 198} [... 402 bytes in all] is not a finite "
     f"number\n{FRAME_RUN}"),
    ("a complex score", {"1": {"a": 1.0, "b": 2j}},
     f"<run dict>:2: score 2j is not a real number\n{FRAME_RUN}"),
]


@pytest.mark.parametrize("name,given,message", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_scores_from_memory_are_real_numbers(name, given, message):
    with pytest.raises(InputError) as err:
        read_run(given)
    assert str(err.value) == message


def test_a_data_frame_score_past_a_double_is_refused():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [10**400]})
    with pytest.raises(InputError) as err:
        read_run(frame)
    assert str(err.value) == ("<run DataFrame>: cannot read its columns: Python int too "
                              "large to convert to C long")


@pytest.mark.parametrize("name,reader,given,message", ID_CASES, ids=[c[0] for c in ID_CASES])
def test_ids_no_text_file_could_hold_are_refused(name, reader, given, message):
    with pytest.raises(InputError) as err:
        reader(given)
    assert str(err.value) == message


def _refused_from_a_table(tmp_path, form: str, columns: dict) -> tuple[str, str]:
    """The name of the run read from ``columns`` as a DataFrame, a Parquet or a JSON Lines
    file (``form``), and the message of the InputError refusing it."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(columns)
    path = tmp_path / f"run.{form}"
    if form == "parquet":
        frame.to_parquet(path)
    elif form == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    with pytest.raises(InputError) as err:
        read_run(frame if form == "frame" else path)
    return ("<run DataFrame>" if form == "frame" else str(path)), str(err.value)


@pytest.mark.parametrize("form", ["frame", "parquet", "jsonl"])
def test_ids_with_a_tab_from_tables(tmp_path, form):
    name, message = _refused_from_a_table(tmp_path, form, {
        "qid": ["1", "1"], "docno": ["a", "b\tc"], "score": [2.0, 1.0]})
    assert message == f"{name}:2: docno 'b\\tc' holds a tab, {SPLIT}\n{FRAME_RUN}"


#: (name, the run's tag column, how the tag is named): a tag read from a table is one
#: field of a TREC run's line, as ids are
TAG_CASES = [
    ("a tab", "tab\there", "'tab\\there' holds a tab"),
    ("a line feed", 'we,ird\n"tag', "'we,ird\\n\"tag' holds a line feed"),
    ("a carriage return", "cr\rhere", "'cr\\rhere' holds a carriage return"),
    ("a space", "sp ace", "'sp ace' holds a space"),
]


@pytest.mark.parametrize("form", ["frame", "parquet", "jsonl"])
@pytest.mark.parametrize("name,tag,held", TAG_CASES, ids=[c[0] for c in TAG_CASES])
def test_a_tag_from_a_table_that_no_run_file_could_hold(tmp_path, form, name, tag, held):
    """Refused where it is read (it corrupted -f tsv, and -f csv left a CR unquoted), with
    the row it is taken from (the last)."""
    source, message = _refused_from_a_table(tmp_path, form, {
        "qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0], "tag": ["ok", tag]})
    assert message == f"{source}:2: run tag {held}, {SPLIT}\n{FRAME_RUN}"


def test_a_tag_with_a_comma_is_quoted_in_csv(tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [2.0], "tag": ['a,"b']})
    frame.to_parquet(tmp_path / "run.parquet")
    (tmp_path / "q").write_bytes(QRELS)
    res = invoke(["evaluate", "-f", "csv", "-m", "map", tmp_path / "q",
                  tmp_path / "run.parquet"])
    assert res.stdout == 'run,query,measure,value\n"a,""b",all,map,1.0\n'


@pytest.mark.parametrize("name,held", [("a\tb", "'a\\tb' holds a tab"),
                                       ("a\nb", "'a\\nb' holds a line feed"),
                                       ("a\rb", "'a\\rb' holds a carriage return")])
def test_a_run_name_with_a_tab_or_a_line_end(files, name, held):
    """A ``{name: run}`` name is printed as one field; a space is fine in it."""
    import smarteval
    with pytest.raises(smarteval.UsageError) as err:
        smarteval.evaluate("q", {name: "r"}, ["map"])
    assert str(err.value) == (f"run name {held}: a run's name is printed as one field of a "
                              "line (-f tsv, csv, trec)")
    assert smarteval.evaluate("q", {"BM25 + RM3": "r"}, ["map"])[0].name == "BM25 + RM3"


# =========================================================================== tables' types

def _parquet(path, columns: dict):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    pq.write_table(pa.table(columns), path)
    return path


def test_a_parquet_integer_score_past_2_53_is_rounded_as_its_text_would_be(tmp_path):
    pa = pytest.importorskip("pyarrow")
    path = _parquet(tmp_path / "run.parquet", {"qid": ["1", "1"], "docno": ["a", "b"],
                                               "score": pa.array([2**53 + 1, 3], pa.int64())})
    assert read_run(path).scores.tolist() == [float("9007199254740993"), 3.0]


def _typed(name):
    import pyarrow as pa
    return {
        "uint64 label": (read_qrels, {"label": pa.array([2, 2**64 - 1], pa.uint64())},
                         "{path}:2: relevance 18446744073709551615 is out of range: a grade "
                         "lies between -9223372036854775808 and 9223372036854775807\n"
                         + FRAME_QRELS),
        "list scores": (read_run, {"score": pa.array([[1.0], [2.0]])},
                        "{path}: column 'score' holds list<element: double>, not a score a "
                        "row\n" + FRAME_RUN),
        "list labels": (read_qrels, {"label": pa.array([[1], [2]])},
                        "{path}: column 'label' holds list<element: int64>, not a relevance a "
                        "row\n" + FRAME_QRELS),
        "struct scores": (read_run, {"score": pa.array([{"x": 1.0}, {"x": 2.0}])},
                          "{path}: column 'score' holds struct<x: double>, not a score a row\n"
                          + FRAME_RUN),
    }[name]


@pytest.mark.parametrize("name", ["uint64 label", "list scores", "list labels",
                                  "struct scores"])
def test_parquet_columns_of_the_wrong_type(tmp_path, name):
    pytest.importorskip("pyarrow")
    reader, column, message = _typed(name)
    path = _parquet(tmp_path / "t.parquet", {"qid": ["1", "1"], "docno": ["a", "b"], **column})
    with pytest.raises(InputError) as err:
        reader(path)
    assert str(err.value) == message.format(path=path)


@pytest.mark.parametrize("depth,refused", [(400, False), (501, True), (30000, True)])
def test_json_lines_nested_too_deeply_are_refused_before_pyarrow(tmp_path, depth, refused):
    """pyarrow's parser crashes the process on a line nested some 20,000 deep; brackets
    inside strings do not count."""
    pytest.importorskip("pyarrow")
    path = tmp_path / "run.jsonl"
    path.write_text('{"qid": "1", "docno": "a", "score": 1.0, "x": "' + "[" * 30000 + '\\\\"}\n'
                    '{"qid": "1", "docno": "b", "score": 2.0, "x": "\\"["}\n'
                    '{"qid": "1", "docno": "c", "score": 3.0, "x": '
                    + "[" * depth + "]" * depth + "}\n")
    with pytest.raises(InputError) as err:
        read_run(path)              # (x changes type: pyarrow refuses it when it reads)
    if not refused:
        assert "nested deeper" not in str(err.value)
        return
    assert str(err.value) == (f"{path}:3: nested deeper than 500 arrays and objects: not a "
                              "run or qrels row")


def _jsonl_rows(n: int) -> str:
    return "".join(f'{{"qid": "1", "docno": "d{i}", "score": {i}.0}}\n' for i in range(n))


#: (name, the line after 700 good rows, exact message): the line is the file's, counted
#: from 1 with its blank lines (pyarrow's rows count from 0 and pass over them), and a
#: line cut short is said to be so (pyarrow: "Invalid encoding in string")
JSON_LINES = [
    ("a column changing type", '{"qid": "1", "docno": {"x": 1}, "score": 1.0}',
     "{path}:701: cannot read as JSON Lines: Column(/docno) changed from string to object\n"
     '    {{"qid": "1", "docno": {{"x": 1}}, "score": 1.0}}'),
    ("after blank lines", '\n\n{"qid": "1", "docno": 5, "score": 1.0}',
     "{path}:703: cannot read as JSON Lines: Column(/docno) changed from string to number\n"
     '    {{"qid": "1", "docno": 5, "score": 1.0}}'),
    ("a line cut short", '{"qid": "1", "docno": "x", "sc',
     "{path}:701: not a JSON object (Unterminated string starting at, column 28)\n"
     '    {{"qid": "1", "docno": "x", "sc'),
    ("an array", "[1, 2]",
     "{path}:701: not a JSON object: a JSON Lines row is one\n    [1, 2]"),
]


@pytest.mark.parametrize("name,line,message", JSON_LINES, ids=[c[0] for c in JSON_LINES])
def test_json_lines_refused_at_their_line(tmp_path, name, line, message):
    pytest.importorskip("pyarrow")
    path = tmp_path / "run.jsonl"
    path.write_text(_jsonl_rows(700) + line + "\n" + _jsonl_rows(2).replace('"d', '"e'))
    with pytest.raises(InputError) as err:
        read_run(path)
    assert str(err.value) == message.format(path=path)


# =========================================================================== results read back

def test_correlate_leaves_out_a_measure_that_is_nan(files):
    """The tool's own output, where iprec_at_recall_0.00 is nan (-M 0), correlated."""
    (files / "res.tsv").write_text("run\tquery\tmeasure\tvalue\na\tall\tmap\t0.5\n"
                                   "a\tall\tP_5\t0.2\na\tall\tiprec_at_recall_0.00\tnan\n"
                                   "b\tall\tmap\t0.4\nb\tall\tP_5\t0.4\n"
                                   "b\tall\tiprec_at_recall_0.00\tnan\n")
    res = invoke(["correlate", "-f", "tsv", "res.tsv"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[1].startswith("map\tP_5\t2\t")
    res = invoke(["correlate", "-m", "map", "-m", "iprec_at_recall.0", "res.tsv"])
    assert (res.exit_code, res.stderr) == (
        1, "Error: res.tsv: run a's iprec_at_recall_0.00 is nan: a value that is not a finite "
           "number ranks no run\n")


def test_correlate_refuses_json_nested_too_deeply(files):
    (files / "deep.json").write_text("[" * 100000 + "]" * 100000)
    res = invoke(["correlate", "deep.json", "deep.json"])
    assert (res.exit_code, res.stderr) == (
        1, "Error: deep.json: not smarteval evaluate -f json output (nested too deeply)\n"
           "  expected: evaluation results: trec_eval output (MEASURE QUERY VALUE) or "
           "smarteval evaluate -f tsv, csv or json\n")


PER_QUERY = "run\tquery\tmeasure\tvalue\ntag\t1\tmap\t0.5\ntag\t2\tmap\t1.0\ntag\tall\tmap\t0.75\n"
PER_QUERY_JSON = '[{"run": "tag", "queries": {"1": {"map": 0.5}, "2": {"map": %s}}}]'
STORED = ("  expected: per-query results: smarteval evaluate -q -f json (or tsv, csv) output, "
          "run, query, measure, value\n")
NOT_FINITE = "is not a finite number (a value is a finite number, or nan where it is undefined)"

#: (name, the stored baseline's text, exact standard error of compare and report): a value
#: that is no measure's is refused where it was read as one (an infinity gave a mean of
#: inf and a difference of -inf; a number's text value made its query NaN; a key twice
#: kept the last; Python's own number syntax read 1_0 as 10; a whole number past a
#: float's range was a traceback)
STORED_BASELINES = [
    ("an infinity", PER_QUERY.replace("1.0", "inf"),
     f"Error: b.tsv:3: value 'inf' of map {NOT_FINITE}\n" + STORED),
    ("past a float's range", PER_QUERY.replace("1.0", "1e400"),
     f"Error: b.tsv:3: value '1e400' of map {NOT_FINITE}\n" + STORED),
    *[(f"{what} in tsv", PER_QUERY.replace("1.0", value),
       f"Error: b.tsv:3: value {value!r} of map is not a number: a value is {NUMBER}, or nan "
       "where it is undefined\n" + STORED)
      for what, value in [("text where numbers are", "abc"), ("Python's underscores", "1_0"),
                          ("a hexadecimal float", "0x1p-3"), ("spaces around", "  0.5  "),
                          ("Arabic-Indic digits", "\u0661"), ("bytes not UTF-8", "\udcff\udcfe")]],
    ("a hexadecimal float its only value", "run\tquery\tmeasure\tvalue\ntag\t1\tmap\t0x1p-3\n",
     f"Error: b.tsv:2: value '0x1p-3' of map is not a number: a value is {NUMBER}, or nan "
     "where it is undefined\n" + STORED),
    ("a value no measure takes", PER_QUERY.replace("1.0", "1e308"),
     "Error: b.tsv:3: value 1e+308 of map is out of range: no measure's value is larger than "
     "1e+150 in size (the statistics square each value)\n" + STORED),
    ("a JSON value no measure takes", PER_QUERY_JSON % "1e308",
     "Error: b.tsv: value 1e+308 of map is out of range: no measure's value is larger than "
     "1e+150 in size (the statistics square each value)\n" + STORED),
    ("a JSON string where numbers are", PER_QUERY_JSON % '"0.5"',
     "Error: b.tsv: value '0.5' of map (run tag, query 2) is not a number, as its other "
     "values are\n" + STORED),
    ("a JSON boolean", PER_QUERY_JSON % "true",
     "Error: b.tsv: value True of map is not a number\n" + STORED),
    ("the same run twice in JSON",
     f"[{PER_QUERY_JSON[1:-1] % '1.0'}, {PER_QUERY_JSON[1:-1] % '0.99'}]",
     "Error: b.tsv: run tag's map of query 1 is given twice\n" + STORED),
    ("the same run twice in tsv", PER_QUERY + "tag\t1\tmap\t0.99\n",
     "Error: b.tsv:5: run tag's map of query 1 is given twice\n    tag\t1\tmap\t0.99\n"
     + STORED),
    ("JSON Infinity", PER_QUERY_JSON % "Infinity",
     f"Error: b.tsv: value inf of map {NOT_FINITE}\n" + STORED),
    ("a JSON whole number past a float's range", PER_QUERY_JSON % ("1" + "0" * 400),
     f"Error: b.tsv: value 1{'0' * 400} of map {NOT_FINITE}\n" + STORED),
    ("a JSON key twice", PER_QUERY_JSON % '1.0, "map": 0.0',
     "Error: b.tsv: key 'map' is given twice in one object\n" + STORED),
]


@pytest.mark.parametrize("name,text,stderr", STORED_BASELINES,
                         ids=[c[0] for c in STORED_BASELINES])
def test_a_stored_baseline_holds_numbers(files, name, text, stderr):
    (files / "b.tsv").write_bytes(text.encode("utf-8", "surrogateescape"))
    for command in ("compare", "report"):
        res = invoke([command, "-m", "map", "--baseline-results", "b.tsv", "q", "r"])
        assert (res.exit_code, res.stderr, res.stdout) == (1, stderr, ""), command


@pytest.mark.parametrize("reader,args", [
    ("_per_query_json", ["compare", "-m", "map", "--baseline-results", "b.json", "q", "r"]),
    ("_per_query_json", ["report", "-m", "map", "--baseline-results", "b.json", "q", "r"]),
    ("_results_json", ["correlate", "b.json", "b.json"])])
def test_out_of_memory_names_the_results_file(files, monkeypatch, reader, args):
    """A stored baseline or results too large for the memory free (a 1 GB JSON under a
    2 GB limit said "out of memory" alone)."""
    (files / "b.json").write_text(PER_QUERY_JSON % "1.0")

    def exhausted(*args):
        raise MemoryError
    monkeypatch.setattr(f"smarteval.read.results.{reader}", exhausted)
    res = invoke(args)
    size = (files / "b.json").stat().st_size / (1 << 20)
    assert (res.exit_code, res.stderr, res.stdout) == (
        1, f"Error: b.json: out of memory while reading it ({size:,.0f} MiB of text): give "
           "smarteval more memory, or evaluate the file in parts\n", "")


def test_a_stored_baseline_keeps_nan_and_null_as_undefined(files):
    (files / "b.tsv").write_text(PER_QUERY.replace("1.0", "nan"))
    (files / "b.json").write_text(PER_QUERY_JSON % "null")
    for stored in ("b.tsv", "b.json"):
        res = invoke(["compare", "-f", "tsv", "-m", "map", "--baseline-results", stored,
                      "q", "r"])
        assert res.exit_code == 0, res.output
        assert "1 query without a value (NaN)" in res.stderr


RESULTS = ("  expected: evaluation results: trec_eval output (MEASURE QUERY VALUE) or smarteval "
           "evaluate -f tsv, csv or json\n")


#: (name, one results file's text, exit status, exact standard error of correlate): a
#: value read as no number is left out, as NaN is (the measure is then not shared)
CORRELATED = [
    ("Python's underscores in trec_eval's text", "map all 1_0\nP_10 all 0.1\n",
     1, "Error: a:1: value '1_0' of map is not a number\n    map all 1_0\n" + RESULTS),
    ("Python's underscores in tsv", "run\tquery\tmeasure\tvalue\nx\tall\tmap\t1_0\n"
     "x\tall\tP_10\t0.1\n", 2, "Error: correlate needs two or more measures shared by every "
     "result (found P_10)\n"),
    ("a JSON key twice", '[{"run": "x", "summary": {"map": 0.1, "map": 0.2, "P_10": 0.1}}]',
     1, "Error: a: key 'map' is given twice in one object\n" + RESULTS),
    ("a run twice in JSON", '[{"run": "x", "summary": {"map": 0.1, "P_10": 0.1}}, '
     '{"run": "x", "summary": {"map": 0.9, "P_10": 0.1}}]', 1,
     "Error: a: run x is given twice\n" + RESULTS),
    ("a run's value twice in tsv", "run\tquery\tmeasure\tvalue\nx\tall\tmap\t0.1\n"
     "x\tall\tP_10\t0.1\nx\tall\tmap\t0.9\n", 1,
     "Error: a:4: run x's map of query all is given twice\n    x\tall\tmap\t0.9\n" + RESULTS),
    ("a JSON whole number past a float's range",
     '[{"run": "x", "summary": {"map": 1%s, "P_10": 0.1}}]' % ("0" * 400),
     2, "Error: correlate needs two or more measures shared by every result (found "
     "P_10)\n"),
]


@pytest.mark.parametrize("name,text,status,stderr", CORRELATED,
                         ids=[c[0] for c in CORRELATED])
def test_correlated_results_hold_numbers(files, name, text, status, stderr):
    (files / "a").write_text(text)
    (files / "b").write_text("map all 0.3\nP_10 all 0.2\n")
    (files / "c").write_text("map all 0.2\nP_10 all 0.3\n")
    res = invoke(["correlate", "a", "b", "c"])
    assert (res.exit_code, res.stderr, res.stdout) == (status, stderr, "")


DOCS = "  expected: DOCNO TAB TEXT (the text up to the end of the line)\n"


#: (name, the --docs file's bytes or a device, exact standard error of diff -f html): the
#: texts are read as every input is (/dev/zero, one endless line, ran out of memory; a
#: damaged archive was a traceback)
DOCS_CASES = [
    ("/dev/zero", "/dev/zero",
     "Error: /dev/zero:1: binary file (NUL byte), not a --docs file\n" + DOCS),
    ("a damaged gzip file", _damaged_gzip(),
     "Error: d: corrupt compressed file: Error -3 while decompressing data: invalid bit "
     "length repeat\n"),
    ("a NUL byte", b"a\ttext\nb\x00\n", "Error: d:2: binary file (NUL byte), not a --docs "
                                         "file\n" + DOCS),
]


@linux
@pytest.mark.parametrize("name,docs,stderr", DOCS_CASES, ids=[c[0] for c in DOCS_CASES])
def test_document_texts_are_read_as_every_input(files, name, docs, stderr):
    (files / "s").write_bytes(RUN.replace(b"tag", b"other"))
    if isinstance(docs, bytes):
        (files / "d").write_bytes(docs)
    res = invoke(["diff", "--docs", docs if isinstance(docs, str) else "d", "-f", "html",
                  "-o", "page.html", "q", "s", "r"])
    assert (res.exit_code, res.stderr) == (1, stderr)
    assert not (files / "page.html").exists()


def test_document_texts_in_blocks_keep_every_line(files, monkeypatch):
    """Lines across block boundaries, a CRLF end and a last line without one."""
    from smarteval.read import docs
    monkeypatch.setattr(docs, "_READ", 7)
    (files / "d").write_bytes(b"a\tthe text of a\nb\tb's\r\n\nd\tno line end")
    assert docs.read_texts("d", ["a", "b", "d", "x"]) == {
        "a": "the text of a", "b": "b's", "d": "no line end"}


@pytest.mark.parametrize("columns,message", [
    ("qid docno score", "columns= maps fields to column names ({'qid': 'query', ...}), not "
                        "str"),
    (["a", "b", "c"], "columns= maps fields to column names ({'qid': 'query', ...}), not "
                      "list"),
    ({"qid": "a", "docno": "a", "score": "c"},
     "columns= gives column 'a' for qid and docno: each field is a column of its own"),
])
def test_columns_given_as_no_mapping_or_one_column_twice(columns, message):
    """A string or a list was an AttributeError; one column for two fields made every
    docno its query id."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": ["1"], "b": ["x"], "c": [1.0]})
    for reader in (read_run, read_qrels):
        with pytest.raises(UsageError) as err:
            reader(frame, columns=columns)
        assert str(err.value) == message


@linux
def test_a_socket_is_named_as_an_input_that_cannot_be_read(files):
    """Opening a socket fails (ENXIO): that was taken for standard output failing."""
    import socket
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(files / "sock"))
    try:
        for args in (["evaluate", "q", "sock"], ["evaluate", "sock", "r"],
                     ["compare", "q", "r", "sock"], ["correlate", "sock", "sock"],
                     ["compare", "--baseline-results", "sock", "q", "r"]):
            res = invoke(args)
            assert (res.exit_code, res.stderr) == (
                1, "Error: sock: cannot read: No such device or address\n"), args
    finally:
        listener.close()


@linux
@pytest.mark.parametrize("args", [["evaluate", "q", "/proc/self/mem"],
                                  ["evaluate", "/proc/self/mem", "r"],
                                  ["correlate", "/proc/self/mem", "r"],
                                  ["compare", "--baseline-results", "/proc/self/mem", "q", "r"]])
def test_an_input_that_fails_while_read_is_named(files, args):
    """/proc/self/mem opens, and its first read fails (EIO): that was taken for standard
    output failing."""
    res = smarteval(*args, cwd=files)
    assert (res.returncode, res.stderr) == (
        1, b"Error: /proc/self/mem: cannot read: Input/output error\n")


def test_a_query_named_all_in_a_stored_baseline(files):
    """JSON keeps a query named all apart from the summary (it was taken for the summary,
    the query left out of the comparison); tsv cannot, and says so."""
    (files / "qa").write_text("all 0 a 1\nall 0 b 0\n2 0 d 1\n")
    (files / "ra").write_text("all Q0 b 1 3 t\nall Q0 a 2 2 t\n2 Q0 d 1 1 t\n")
    for fmt in ("json", "tsv"):
        res = invoke(["evaluate", "-q", "-f", fmt, "-m", "map", "-o", f"b.{fmt}", "qa", "ra"])
        assert res.exit_code == 0, res.output
    res = invoke(["compare", "-f", "tsv", "-m", "map", "--baseline-results", "b.json", "qa",
                  "ra"])
    assert res.exit_code == 0, res.output
    row = dict(zip(*(line.split("\t") for line in res.stdout.splitlines())))
    assert (row["n"], row["mean_baseline"], row["mean_run"]) == ("2", "0.75", "0.75")
    res = invoke(["compare", "-m", "map", "--baseline-results", "b.tsv", "qa", "ra"])
    assert (res.exit_code, res.stderr) == (
        1, "Error: b.tsv:4: run t's map of query all is given twice (a query named all cannot "
           "be told from the summary in tsv or csv: store the baseline with -f json)\n"
           "    t\tall\tmap\t0.75\n" + STORED)
