"""The command's end: the exit status leaves at once when the output is flushed, and
through Python's own exit otherwise."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from smarteval import __main__ as entry


class _Stream:
    def __init__(self, fails: bool):
        self.fails, self.flushed = fails, False

    def flush(self):
        if self.fails:
            raise OSError(28, "No space left on device")
        self.flushed = True


def test_leaves_at_once_with_the_status_once_flushed(monkeypatch):
    left = []
    monkeypatch.setattr(entry.os, "_exit", left.append)
    out, err = _Stream(False), _Stream(False)
    monkeypatch.setattr(entry.sys, "stdout", out)
    monkeypatch.setattr(entry.sys, "stderr", err)
    entry._leave(SystemExit(2))
    entry._leave(SystemExit(None))
    assert left == [2, 0] and out.flushed and err.flushed


@pytest.mark.parametrize("code", ["a message", True])
def test_other_exits_go_the_usual_way(monkeypatch, code):
    left = []
    monkeypatch.setattr(entry.os, "_exit", left.append)
    entry._leave(SystemExit(code))
    assert left == []


def test_an_output_that_cannot_be_flushed_goes_the_usual_way(monkeypatch):
    left = []
    monkeypatch.setattr(entry.os, "_exit", left.append)
    monkeypatch.setattr(entry.sys, "stdout", _Stream(True))
    entry._leave(SystemExit(0))
    assert left == []


NO_DEV_FULL = "needs /dev/full (Linux)"


@pytest.mark.ci_skip_ok(NO_DEV_FULL)
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason=NO_DEV_FULL)
def test_a_full_standard_output_is_still_reported(tmp_path):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 1.0 t\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "smarteval", "evaluate", "-f", "trec",
                               str(qrels), str(run)], stdout=full, stderr=subprocess.PIPE,
                              text=True)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "Error: standard output: cannot write: No space left on device"]


def test_everything_written_arrives(tmp_path):
    """A long per-query output through a pipe arrives whole before the process leaves."""
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("".join(f"{q} 0 d{q} 1\n" for q in range(1, 2001)))
    run.write_text("".join(f"{q} Q0 d{q} 1 1.0 t\n" for q in range(1, 2001)))
    done = subprocess.run([sys.executable, "-m", "smarteval", "evaluate", "-f", "trec", "-q",
                           "-m", "map", str(qrels), str(run)], capture_output=True, text=True)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == 2001 and lines[-1].split() == ["map", "all", "1.0000"]
