"""Paths through the command line and the readers that no other test takes.

--average median, compressed and corrupt inputs, the plain reader's chunk boundaries,
parameter-error hints, failed writes, broken pipes, and a run that shares no query
with the qrels, for every command.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from fixtures import examples, invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.errors import InputError
from smarteval.measures import all_measures
from smarteval.read import plain

QRELS = ("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 0\n2 0 d 1\n3 0 e 1\n3 0 f 1\n3 0 g 0\n"
         "4 0 a 2\n4 0 h 1\n")
RUN = ("1 Q0 a 1 3.0 tag\n1 Q0 b 2 2.0 tag\n1 Q0 x 3 1.0 tag\n"
       "2 Q0 d 1 5.0 tag\n2 Q0 a 2 4.0 tag\n2 Q0 y 3 4.0 tag\n"
       "3 Q0 g 1 1.0 tag\n3 Q0 f 2 0.5 tag\n"
       "4 Q0 z 1 9.0 tag\n4 Q0 h 2 8.0 tag\n4 Q0 a 3 7.0 tag\n")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "run2.txt").write_text(RUN.replace(" tag", " other"))
    return tmp_path


# =========================================================================== --average median

@pytest.mark.parametrize("queries", [["1", "2", "3", "4"], ["1", "2", "4"]],
                         ids=["even", "odd"])
def test_average_median_is_the_median_of_query_values(files, queries):
    """Every measure averaged by the median: numpy's median of its per-query values."""
    run = "".join(line + "\n" for line in RUN.splitlines() if line.split()[0] in queries)
    (files / "run.txt").write_text(run)
    names = [n for n, m in all_measures().items() if 10 in m.versions]
    opts = ["-N", 40, "--target-generality", 20, "--trec-version", 10]
    res = invoke(["evaluate", "-f", "json", "--average", "median", *opts,
                  *[a for n in names for a in ("-m", n)], files / "qrels.txt",
                  files / "run.txt"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)[0]["summary"]
    ev = smarteval.evaluate(files / "qrels.txt", files / "run.txt", names, num_docs=40,
                            target_generality=20.0, trec_version=10)[0]
    assert len(ev.qids) == len(queries)
    checked = 0
    for out in ev.outputs:
        m, values = out.measure, ev.per_query[out.name]
        if m.average in ("mean", "gmean"):
            want = float(np.median(values.astype(float)))
            checked += 1
        elif m.average == "reported":       # over the queries that have a value
            kept = values[~np.isnan(values.astype(float))].astype(float)
            want = float(np.median(kept)) if len(kept) else math.nan
            if math.isnan(want):
                assert summary[out.name] is None, out.name      # null in JSON
                continue
        elif m.average == "sum":
            want = int(values.sum())
        elif m.average == "count":
            want = len(queries)
        elif m.average == "tag":
            assert summary[out.name] == "tag"
            continue
        else:
            assert out.name not in summary
            continue
        assert summary[out.name] == pytest.approx(want, rel=1e-12, abs=1e-15), out.name
    assert checked > 50


def test_average_median_through_the_api(files):
    ev = smarteval.evaluate(files / "qrels.txt", files / "run.txt", ["map", "P.2", "num_ret"],
                            average="median")[0]
    assert ev.summary["map"] == float(np.median(ev.per_query["map"]))
    assert ev.summary["P_2"] == float(np.median(ev.per_query["P_2"]))
    assert ev.summary["num_ret"] == 11


# =========================================================================== compression

COMPRESS = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("kind", list(COMPRESS))
def test_compressed_qrels_give_the_plain_output(files, kind):
    plain_out = invoke(["evaluate", "-f", "tsv", "-q", "-m", "all_trec", files / "qrels.txt",
                        files / "run.txt"])
    assert plain_out.exit_code == 0
    packed = files / f"qrels.{kind}"       # any name: compression is read from magic bytes
    packed.write_bytes(COMPRESS[kind](QRELS.encode()))
    run_packed = files / f"run.{kind}"
    run_packed.write_bytes(COMPRESS[kind](RUN.encode()))
    for qrels, run in ((packed, files / "run.txt"), (packed, run_packed)):
        res = invoke(["evaluate", "-f", "tsv", "-q", "-m", "all_trec", qrels, run])
        assert res.exit_code == 0, res.output
        assert res.stdout == plain_out.stdout.replace(str(files / "run.txt"), str(run))


@pytest.mark.parametrize("kind", list(COMPRESS))
@pytest.mark.parametrize("which", ["run", "qrels"])
def test_truncated_archive_is_reported_not_raised(files, kind, which):
    data = COMPRESS[kind]((QRELS if which == "qrels" else RUN).encode() * 20)
    bad = files / f"{which}.broken"
    bad.write_bytes(data[: len(data) // 2])
    args = [bad, files / "run.txt"] if which == "qrels" else [files / "qrels.txt", bad]
    res = invoke(["evaluate", *args])
    assert res.exit_code == 1
    assert res.stderr.startswith(f"Error: {bad}: corrupt compressed file")
    assert res.stdout == ""


def test_garbage_after_gzip_magic(files):
    bad = files / "run.gz"
    bad.write_bytes(b"\x1f\x8b" + b"not a deflate stream at all" * 3)
    res = invoke(["evaluate", files / "qrels.txt", bad])
    assert res.exit_code == 1
    assert res.stderr.startswith(f"Error: {bad}: corrupt compressed file")


# =========================================================================== chunk boundaries

def _columns(run):
    return (list(run.qids), run.offsets.tolist(), run.docnos.tolist(), run.scores.tolist(),
            run.lines.tolist(), run.tag)


line_st = st.one_of(
    st.builds(lambda q, d, s, sep, extra: sep.join([q, "Q0", d, "0", s, "tag"]) + extra,
              st.sampled_from(["1", "2", "10"]), st.sampled_from([f"doc{i}" for i in range(30)]),
              st.sampled_from(["1", "0.5", "-2e3", "17.25"]),
              st.sampled_from([" ", "\t", "   "]), st.sampled_from(["", " extra words"])),
    st.sampled_from(["", "   ", "# a comment line", "\t"]))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(line_st, min_size=1, max_size=30), chunk=st.integers(1, 48),
       eol=st.sampled_from(["\n", "\r\n"]), final=st.booleans())
def test_plain_reader_across_chunk_boundaries(lines, chunk, eol, final):
    """Any chunk size reads what one chunk reads: lines cut by a boundary are whole."""
    seen, kept = set(), []
    for line in lines:                       # one docno a query
        key = tuple(line.split()[:3:2])
        if line.strip() and not line.startswith("#") and key in seen:
            continue
        seen.add(key)
        kept.append(line)
    kept.append("1 Q0 last 0 1 tag")
    data = (eol.join(kept) + (eol if final else "")).encode()
    whole = _columns(plain.read_run("r", data=data))
    old = plain._CHUNK
    try:
        plain._CHUNK = chunk
        assert _columns(plain.read_run("r", data=data)) == whole
    finally:
        plain._CHUNK = old


@pytest.mark.parametrize("chunk", [1, 7, 16, 23, 64, 1 << 24])
def test_error_line_numbers_after_a_chunk_boundary(monkeypatch, chunk):
    monkeypatch.setattr(plain, "_CHUNK", chunk)
    good = [f"1 Q0 d{i} {i} {10 - i * 0.5} tag" for i in range(20)]
    # too few fields on line 15 (after a blank and a comment line)
    lines = good[:12] + ["", "# comment", "1 Q0 short 1 2.0"] + good[12:]
    with pytest.raises(InputError) as exc:
        plain.read_run("r", data="\n".join(lines).encode())
    assert str(exc.value).startswith("r:15: run line has 5 fields, not 6\n    1 Q0 short 1 2.0")
    # a bad score on line 18
    lines = good[:17] + ["1 Q0 bad 1 x1 tag"] + good[17:]
    with pytest.raises(InputError, match=r"^r:18: score 'x1' is not a number"):
        plain.read_run("r", data="\n".join(lines).encode())
    # the same document twice: lines 3 and 19, recorded as rows 2 and 18
    lines = good[:18] + ["1 Q0 d2 9 0.1 tag"] + good[18:]
    run = plain.read_run("r", data="\n".join(lines).encode())
    assert run.repeated.tolist() == [[2, 18]]
    assert run.lines[run.repeated].tolist() == [[3, 19]]
    # qrels: a relevance that is not an integer on line 11
    qrels = [f"1 0 d{i} 1" for i in range(10)] + ["1 0 bad one"]
    with pytest.raises(InputError, match=r"^q:11: relevance 'one' is not an integer"):
        plain.read_qrels("q", data="\n".join(qrels).encode())


def test_line_longer_than_a_chunk(monkeypatch):
    monkeypatch.setattr(plain, "_CHUNK", 8)
    data = b"1 Q0 " + b"x" * 100 + b" 1 2.0 tag\n1 Q0 y 2 1.0 tag\n"
    run = plain.read_run("r", data=data)
    assert run.docnos.tolist() == [b"x" * 100, b"y"]
    assert run.lines.tolist() == [1, 2]


# =========================================================================== measure arguments

#: one bad parameter string for each parameter shape, and the hint the error gives
HINTS = {
    "cutoffs": ("x", "expected positive integers, e.g. P.5,10"),
    "levels": ("high", "expected numbers, e.g. iprec_at_recall..1,.5"),
    "floats": ("a,b", "expected numbers separated by commas"),
    "gains": ("1:3", "expected rel=gain pairs, e.g. ndcg.1=3,2=9"),
    "int": ("ten", "expected one integer, e.g. relstring.20"),
}


def test_every_parameter_shape_has_a_hint():
    shapes = {m.params for m in all_measures().values()}
    assert shapes - {"none"} == set(HINTS)


@pytest.mark.parametrize("name", [n for n, m in all_measures().items() if m.params != "none"])
def test_bad_parameters_exit_2_with_the_hint(files, name):
    raw, hint = HINTS[all_measures()[name].params]
    res = invoke(["evaluate", "--trec-version", "10", "-m", f"{name}.{raw}",
                  files / "qrels.txt", files / "run.txt"])
    assert res.exit_code == 2
    assert res.stderr == f"Error: bad parameters in measure '{name}.{raw}': {hint}\n"
    assert res.stdout == ""


def test_parameters_given_to_a_measure_without_any(files):
    res = invoke(["evaluate", "-m", "map.5", files / "qrels.txt", files / "run.txt"])
    assert res.exit_code == 2
    assert res.stderr == "Error: measure 'map' takes no parameters (got 'map.5')\n"


def test_p_dot_x_hint(files):
    res = invoke(["evaluate", "-m", "P.x", files / "qrels.txt", files / "run.txt"])
    assert res.exit_code == 2
    assert "expected positive integers, e.g. P.5,10" in res.stderr


@pytest.mark.parametrize("typo,suggested", [
    ("ndgc", "ndcg"), ("mapp", "map"), ("norm_recal", "norm_recall"), ("Rprec_mul", "Rprec_mult"),
    ("precision", "Precision"), ("xyzzy", None)])
def test_unknown_measure_suggestions(files, typo, suggested):
    res = invoke(["evaluate", "-m", typo, files / "qrels.txt", files / "run.txt"])
    assert res.exit_code == 2
    lines = res.stderr.splitlines()
    assert lines[0] == "Error: unknown measure:"
    if suggested is None:
        assert lines[1] == f"  {typo}"
    else:
        assert lines[1].startswith(f"  {typo} (did you mean ")
        assert suggested in lines[1].split("did you mean ")[1].rstrip("?)").split(", ")
    assert lines[-1] == "  'smarteval measures' lists them all"


# =========================================================================== failed writes

ROOT_WRITES = "root writes into read-only directories"
WRITERS = {
    "evaluate": lambda d, out: ["evaluate", "-f", "tsv", "-o", out, d / "qrels.txt",
                                d / "run.txt"],
    "curve": lambda d, out: ["curve", "-f", "tsv", "-o", out, d / "qrels.txt", d / "run.txt"],
    "compare": lambda d, out: ["compare", "-f", "tsv", "-o", out, d / "qrels.txt",
                               d / "run.txt", d / "run2.txt"],
    "plot": lambda d, out: ["plot", "-o", out, d / "qrels.txt", d / "run.txt"],
}


def _needs(command):
    if command == "plot":
        pytest.importorskip("matplotlib")


@pytest.mark.parametrize("command", list(WRITERS))
def test_output_into_a_missing_directory(files, command):
    _needs(command)
    out = files / "missing" / ("out.png" if command == "plot" else "out.tsv")
    res = invoke(WRITERS[command](files, out))
    assert res.exit_code == 1
    assert res.stderr == f"Error: {out}: cannot write: No such file or directory\n"
    assert not (files / "missing").exists()


def test_output_below_a_file(files):
    out = files / "run.txt" / "out.tsv"
    res = invoke(WRITERS["evaluate"](files, out))
    assert res.exit_code == 1
    assert res.stderr == f"Error: {out}: cannot write: Not a directory\n"


@pytest.mark.ci_skip_ok(ROOT_WRITES)
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason=ROOT_WRITES)
@pytest.mark.parametrize("command", list(WRITERS))
def test_output_into_a_read_only_directory(files, command):
    _needs(command)
    ro = files / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    out = ro / ("out.png" if command == "plot" else "out.tsv")
    try:
        res = invoke(WRITERS[command](files, out))
        assert res.exit_code == 1
        assert res.stderr == f"Error: {out}: cannot write: Permission denied\n"
        assert os.listdir(ro) == []
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("command", list(WRITERS))
def test_failed_rename_leaves_no_partial_file(files, monkeypatch, command):
    """The last step of an atomic write fails (as in a read-only directory): nothing is
    left behind and an older file of that name is untouched."""
    _needs(command)
    from smarteval import output

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(output.os, "replace", refuse)
    out = files / ("out.png" if command == "plot" else "out.tsv")
    out.write_bytes(b"older\n")
    before = sorted(os.listdir(files))
    res = invoke(WRITERS[command](files, out))
    assert res.exit_code == 1
    assert res.stderr == f"Error: {out}: cannot write: Permission denied\n"
    assert sorted(os.listdir(files)) == before
    assert out.read_bytes() == b"older\n"


# =========================================================================== broken pipes

@pytest.mark.parametrize("fmt", ["trec", "tsv", "json"])
def test_broken_pipe_is_not_an_error(tmp_path, fmt):
    """``smarteval evaluate ... | head -1`` with megabytes of output: exit 0, no traceback."""
    rng = np.random.default_rng(3)
    qrels = "".join(f"{q} 0 d{d} {rng.integers(0, 3)}\n" for q in range(1500) for d in range(5))
    run = "".join(f"{q} Q0 d{d} {d} {rng.random()!r} tag\n" for q in range(1500)
                  for d in range(10))
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    proc = subprocess.Popen(
        [sys.executable, "-m", "smarteval", "evaluate", "-f", fmt, "-q", "-m", "all_trec",
         str(tmp_path / "qrels"), str(tmp_path / "run")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()                         # what head does after its line
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 0, err
    assert first
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception" not in err


# =========================================================================== no shared query

NO_SHARED = "9 Q0 a 1 1.0 other\n9 Q0 b 2 0.5 other\n"
COMMANDS = {
    "evaluate": lambda d: ["evaluate", d / "qrels.txt", d / "none.txt"],
    "curve": lambda d: ["curve", d / "qrels.txt", d / "none.txt"],
    "compare-run": lambda d: ["compare", d / "qrels.txt", d / "run.txt", d / "none.txt"],
    "compare-baseline": lambda d: ["compare", d / "qrels.txt", d / "none.txt", d / "run.txt"],
    "plot": lambda d: ["plot", "-o", d / "x.png", d / "qrels.txt", d / "none.txt"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_run_sharing_no_query_with_the_qrels(files, command):
    if command == "plot":
        pytest.importorskip("matplotlib")
    (files / "none.txt").write_text(NO_SHARED)
    res = invoke(COMMANDS[command](files))
    assert res.exit_code == 1
    assert res.stderr == (f"Error: {files / 'none.txt'}: no query of this run has judgements "
                          f"in {files / 'qrels.txt'}\n"
                          "  expected: query ids shared by the run and the qrels\n")
    assert res.stdout == ""
    assert not (files / "x.png").exists()


# =========================================================================== table formats

@pytest.mark.parametrize("fmt", ["smart", "markdown", "latex"])
@pytest.mark.parametrize("flags", [["-q"], ["-n"], ["-q", "-n"]])
def test_per_query_flag_is_not_silently_ignored(files, fmt, flags):
    """The tables print averages only: -q and -n are refused with them, not ignored."""
    res = invoke(["evaluate", "-f", fmt, *flags, "-m", "map", files / "qrels.txt",
                  files / "run.txt"])
    named = " and ".join({"-q": "-q/--per-query", "-n": "-n/--no-summary"}[f] for f in flags)
    assert res.exit_code == 2
    assert res.stderr == (f"Error: {named}: the {fmt} table prints the averages only; "
                          "per-query values are printed by -f trec, tsv, csv and json\n")
    assert res.stdout == ""
