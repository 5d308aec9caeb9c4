"""The progress bar: on a terminal once the work takes a second; silent in pipes, short work."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from fixtures import SAMPLE

from smarteval import progress as P
from smarteval.cli import main

RUNS = [str(SAMPLE / f"{n}.run") for n in ("bm25", "bm25_rm3", "dense")]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def big_file(tmp_path, name: str, lines: int) -> str:
    path = tmp_path / name
    with open(path, "wb") as fh:               # sparse: a size without the bytes
        fh.truncate(lines * P.BYTES_PER_LINE)
    return str(path)


def test_estimated_lines(tmp_path):
    assert P.estimated_lines(big_file(tmp_path, "big.run", 1_100_000)) == 1_100_000
    assert P.estimated_lines(big_file(tmp_path, "big.run.gz", 300_000)) == 1_500_000
    assert P.estimated_lines("-") == 0 and P.estimated_lines("missing.run") == 0


def test_bar_on_a_terminal_once_the_work_takes_long():
    term = Terminal()
    with P.Progress(RUNS, "smarteval", stream=term, delay=0) as bar:
        assert bar.shown
        for r in RUNS:
            bar.doing(f"reading {r}")
            bar.done(r)
        for r in RUNS:
            bar.done(r)
    out = term.getvalue()
    assert "smarteval" in out and "100%" in out


def test_work_done_before_the_delay_shows_nothing():
    term = Terminal()
    with P.Progress(RUNS, "smarteval", stream=term, delay=3600) as bar:
        for r in RUNS:
            bar.doing(f"reading {r}")
            bar.done(r)
            bar.done(r)
        assert not bar.shown
    assert term.getvalue() == ""


def test_silent_when_not_a_terminal():
    pipe = io.StringIO()
    with P.Progress(RUNS, "smarteval", stream=pipe, delay=0) as bar:
        assert not bar.shown
        bar.doing("reading")
        bar.done(RUNS[0])
    assert pipe.getvalue() == ""


def test_evaluate_writes_nothing_to_a_non_terminal_stderr():
    res = CliRunner().invoke(main, ["evaluate", "-m", "map", "-f", "tsv",
                                    str(SAMPLE / "qrels.txt"), *RUNS])
    assert res.exit_code == 0
    assert res.stderr == ""
    assert res.stdout.count("\tmap\t") == 3


#: (command, its arguments before the qrels and runs): every command that reads runs at length
LONG_COMMANDS = [
    ("evaluate", ["evaluate", "-m", "map", "-f", "tsv"]),
    ("compare", ["compare", "-f", "tsv"]),
    ("curve", ["curve", "-f", "tsv"]),
    ("curve --cutoffs-from", ["curve", "-f", "tsv", "--cutoffs-from", RUNS[0]]),
    ("plot", ["plot", "-o", "{out}"]),
    ("plot diff", ["plot", "-k", "diff", "-o", "{out}"]),
]


@pytest.mark.parametrize("name,args", LONG_COMMANDS, ids=[c[0] for c in LONG_COMMANDS])
def test_every_long_command_has_the_bar(tmp_path, monkeypatch, name, args):
    """On a terminal, past the delay, the bar runs to its end on every such command."""
    if args[0] == "plot":
        pytest.importorskip("matplotlib")
    term = Terminal()

    class Shown(P.Progress):
        def __init__(self, paths, label, **_):
            super().__init__(paths, label, stream=term, force=True, delay=0)

    monkeypatch.setattr(P, "Progress", Shown)
    runs = RUNS[:2] if name == "plot diff" else RUNS
    res = CliRunner().invoke(main, [a.format(out=tmp_path / "p.png") for a in args]
                             + [str(SAMPLE / "qrels.txt"), *runs])
    assert res.exit_code == 0, res.output
    assert "smarteval" in term.getvalue() and "100%" in term.getvalue()


def test_the_bar_moves_with_each_block_of_a_long_run(tmp_path):
    """A run evaluated in blocks moves the bar as its bytes are read and its queries
    evaluated (never to 100% before the run is done), and names the queries so far."""
    from smarteval.api import evaluate
    run = tmp_path / "long.run"
    run.write_text("".join(f"q{q} Q0 d{d} {d} {1.0 / (d + 1)} t\n"
                           for q in range(300) for d in range(20)))
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{q} 0 d{q % 20} 1\n" for q in range(300)))
    term = Terminal()
    seen = []
    with P.Progress([str(run)], "smarteval", stream=term, delay=0) as bar:
        def told(block) -> None:
            bar.block(block)
            seen.append((bar._done, bar._current))
        evaluate(str(qrels), str(run), ["map"], keep_ranked=False, block_rows=500,
                 on_block=told, on_run=bar.each_run([str(run)]))
        total = 2 * P.estimated_lines(str(run))
        assert bar._done == total
    steps = [done for done, _ in seen]
    assert len(steps) >= 10 and steps == sorted(steps) and steps[-1] < total
    assert steps[len(steps) // 2] >= total // 4              # moved along the way
    assert seen[-1][1] == "300 queries evaluated"
    assert "300 queries evaluated" in term.getvalue() and "100%" in term.getvalue()


def test_the_bar_leaves_100_percent_while_the_tests_draw_their_samples():
    """compare's randomization test adds its samples to the bar once it starts: the bar
    is not full while they are drawn, and moves with them to the end."""
    from smarteval.api import compare
    term = Terminal()
    seen = []
    with P.Progress(RUNS[:2], "smarteval", stream=term, delay=0) as bar:
        sampled = bar.sampling("testing")

        def told(done: int, total: int) -> None:
            sampled(done, total)
            seen.append((bar._done, bar._length))
        compare(str(SAMPLE / "qrels.txt"), RUNS[0], [RUNS[1]], ["map", "P.10"],
                tests=["randomization"], samples=40_000, on_run=bar.each_run(RUNS[:2]),
                on_samples=told)
        assert bar._done == bar._length
    runs = 2 * sum(P.estimated_lines(r) for r in RUNS[:2])
    assert len(seen) >= 4 and seen[-1][1] > runs
    assert seen[0][0] < seen[0][1]               # not full while a test draws its samples
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert "testing" in term.getvalue()
