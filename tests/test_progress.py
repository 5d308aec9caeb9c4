"""The progress bar: on a terminal and for long work only; silent in pipes and for short work."""

from __future__ import annotations

import io
from pathlib import Path

from click.testing import CliRunner

from smarteval import progress as P
from smarteval.cli import main

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"
RUNS = [str(SAMPLE / f"{n}.run") for n in ("bm25", "bm25_rm3", "dense")]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def big_file(tmp_path, name: str, lines: int) -> str:
    path = tmp_path / name
    with open(path, "wb") as fh:               # sparse: a size without the bytes
        fh.truncate(lines * P.BYTES_PER_LINE)
    return str(path)


def test_what_counts_as_long(tmp_path):
    small = RUNS[0]
    assert not P.is_long([small])
    assert not P.is_long([small, small])
    assert P.is_long([small, small, small])                      # several runs
    assert P.is_long([big_file(tmp_path, "big.run", 1_100_000)])  # over a million lines
    assert not P.is_long([big_file(tmp_path, "mid.run", 900_000)])
    assert P.is_long([big_file(tmp_path, "big.run.gz", 300_000)])  # compressed: ~1.5M lines
    assert not P.is_long(["-"]) and P.estimated_lines("missing.run") == 0


def test_bar_on_a_terminal_for_long_work():
    term = Terminal()
    with P.Progress(RUNS, "smarteval", stream=term) as bar:
        assert bar.shown
        for r in RUNS:
            bar.doing(f"reading {r}")
            bar.done(r)
        for r in RUNS:
            bar.done(r)
    out = term.getvalue()
    assert "smarteval" in out and "100%" in out


def test_silent_when_not_a_terminal_or_short():
    pipe = io.StringIO()
    with P.Progress(RUNS, "smarteval", stream=pipe) as bar:
        assert not bar.shown
        bar.doing("reading")
        bar.done(RUNS[0])
    assert pipe.getvalue() == ""
    term = Terminal()
    with P.Progress(RUNS[:1], "smarteval", stream=term) as bar:
        assert not bar.shown
        bar.done(RUNS[0])
    assert term.getvalue() == ""


def test_evaluate_writes_nothing_to_a_non_terminal_stderr():
    res = CliRunner().invoke(main, ["evaluate", "-m", "map", "-f", "tsv",
                                    str(SAMPLE / "qrels.txt"), *RUNS])
    assert res.exit_code == 0
    assert res.stderr == ""
    assert res.stdout.count("\tmap\t") == 3
