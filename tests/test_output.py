"""The one writer under failure, for every command that prints: a full disk behind standard
output or behind -o, and a reader that has gone away (a closed pipe)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest
from click.testing import CliRunner

from smarteval.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 0\n2 0 d 1\n3 0 e 1\n3 0 f 1\n"
RUNS = {
    "a.run": "1 Q0 a 1 3.0 a\n1 Q0 b 2 2.0 a\n2 Q0 d 1 5.0 a\n2 Q0 a 2 4.0 a\n3 Q0 f 1 1.0 a\n",
    "b.run": "1 Q0 b 1 3.0 b\n1 Q0 c 2 2.0 b\n2 Q0 a 1 5.0 b\n3 Q0 e 1 2.0 b\n3 Q0 f 2 1.0 b\n",
    "c.run": "1 Q0 c 1 3.0 c\n1 Q0 a 2 2.0 c\n2 Q0 d 1 5.0 c\n3 Q0 x 1 2.0 c\n3 Q0 e 2 1.0 c\n",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("output")
    (d / "qrels").write_text(QRELS)
    for name, text in RUNS.items():
        (d / name).write_text(text)
    for name in RUNS:                       # evaluation results, for correlate
        res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-m", "map", "-m", "P.2",
                                        "-m", "recip_rank", str(d / "qrels"), str(d / name)])
        assert res.exit_code == 0, res.output
        (d / f"{name}.eval").write_text(res.stdout)
    return d


#: every command that prints, as arguments (files relative to the fixture's directory)
PRINTING = {
    "evaluate": ["evaluate", "-f", "trec", "-q", "-m", "all_trec", "qrels", "a.run", "b.run"],
    "measures": ["measures"],
    "measures --nicknames": ["measures", "--nicknames"],
    "curve": ["curve", "qrels", "a.run", "b.run"],
    "compare": ["compare", "qrels", "a.run", "b.run", "c.run"],
    "correlate": ["correlate", "a.run.eval", "b.run.eval", "c.run.eval"],
}
NO_DEV_FULL = "needs /dev/full (Linux)"
WRITING = {name: args for name, args in PRINTING.items() if not name.startswith("measures")}


def _args(args, d):
    return [str(d / a) if (d / a).exists() else a for a in args]


def _run(args, d, stdout):
    return subprocess.run([sys.executable, "-m", "smarteval", *_args(args, d)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=120, cwd=d)


@pytest.mark.ci_skip_ok(NO_DEV_FULL)
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason=NO_DEV_FULL)
@pytest.mark.parametrize("command", list(PRINTING))
def test_full_disk_behind_standard_output(files, command):
    with open("/dev/full", "w") as full:
        res = _run(PRINTING[command], files, full)
    assert res.returncode == 1, res.stderr
    assert res.stderr == "Error: standard output: cannot write: No space left on device\n"


@pytest.mark.parametrize("command", list(PRINTING))
def test_closed_pipe_is_not_an_error(files, command):
    """The reader is gone before anything is written: exit 0, nothing on standard error."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        res = _run(PRINTING[command], files, write_end)
    finally:
        os.close(write_end)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""


def test_the_commands_print_when_nothing_fails(files):
    """The cases above write something: each command prints when it can."""
    for command, args in PRINTING.items():
        res = CliRunner().invoke(main, _args(args, files))
        assert res.exit_code == 0 and res.stdout and res.stderr == "", (command, res.output)


@pytest.mark.ci_skip_ok(NO_DEV_FULL)
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason=NO_DEV_FULL)
@pytest.mark.parametrize("command", [*WRITING, "plot", "compare --plot"])
def test_full_disk_behind_an_output_file(files, tmp_path, monkeypatch, command):
    """-o (and compare --plot) onto a full disk: the temporary file beside the output is
    real, but its bytes go to /dev/full. The error names the file, nothing is left behind
    and an older file of that name is untouched."""
    if "plot" in command:
        pytest.importorskip("matplotlib")

    real_mkstemp = tempfile.mkstemp

    def full_temporary(prefix="", suffix="", dir=None):
        fd, path = real_mkstemp(prefix=prefix, suffix=suffix, dir=dir)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), path
    monkeypatch.setattr(tempfile, "mkstemp", full_temporary)
    out = tmp_path / ("out.png" if "plot" in command else "out.txt")
    out.write_bytes(b"older\n")
    if command == "plot":
        args = ["plot", "-o", out, "qrels", "a.run"]
    elif command == "compare --plot":
        args = ["compare", "--plot", out, "-f", "tsv", "qrels", "a.run", "b.run"]
    else:
        args = [*WRITING[command][:1], "-o", out, *WRITING[command][1:]]
    res = CliRunner().invoke(main, [str(a) for a in _args(args, files)])
    assert isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == 1, res.output
    assert res.stderr == f"Error: {out}: cannot write: No space left on device\n"
    assert sorted(os.listdir(tmp_path)) == ["out.png" if "plot" in command else "out.txt"]
    assert out.read_bytes() == b"older\n"
