"""Tables for people: cut into blocks past the terminal's width, numbers aligned right in
every table format, and a library's warning in one line of its own words."""

from __future__ import annotations

import warnings

import pytest
from click.testing import CliRunner

from smarteval.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 0\n2 0 d 1\n"
RUN = "1 Q0 a 1 3.0 {tag}\n1 Q0 b 2 2.0 {tag}\n2 Q0 d 1 5.0 {tag}\n2 Q0 a 2 4.0 {tag}\n"
RUNS = [f"run{i:02d}" for i in range(30)]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text(QRELS)
    for name in RUNS:
        (tmp_path / name).write_text(RUN.format(tag=f"tag_{name}"))
    return tmp_path


@pytest.mark.parametrize("columns", [60, 100, 200])
def test_a_wide_smart_table_is_cut_into_blocks(files, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    res = CliRunner().invoke(main, ["evaluate", "-m", "map", "-m", "P.1", "q", *RUNS])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert max(map(len, lines)) <= columns
    headers = [line.split() for line in lines if line.startswith("measure ")]
    assert len(headers) > 1
    assert [name for h in headers for name in h[1:]] == [f"tag_{r}" for r in RUNS]
    assert sum(line.startswith("map ") for line in lines) == len(headers)  # labels repeated


#: (curve method and options, how many tables it prints: values, then the others)
CURVES = [
    (["--method", "quasi"], 2),
    (["--method", "pseudo"], 3),
    (["--method", "cnr", "--levels", "1,2"], 4),
    (["--method", "characteristic", "--levels", "1,2"], 2),
]


@pytest.mark.parametrize("args,tables", CURVES, ids=[c[0][1] for c in CURVES])
def test_a_wide_curve_table_is_cut_into_blocks(files, monkeypatch, args, tables):
    monkeypatch.setenv("COLUMNS", "60")
    res = CliRunner().invoke(main, ["curve", *args, "q", *RUNS])
    assert res.exit_code == 0, res.output
    blocks = [b.splitlines() for b in res.stdout.split("\n\n")]
    tabled = [b for b in blocks if len(b) > 1 and b[1].startswith("---")]
    assert max(len(line) for b in tabled for line in b) <= 60
    heads = [b[0].split() for b in tabled]
    assert len(heads) > tables
    assert [n for h in heads for n in h[1:]] == [f"tag_{r}" for r in RUNS] * tables


def test_a_narrow_table_is_one_block(files, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    res = CliRunner().invoke(main, ["evaluate", "-m", "map", "q", *RUNS[:3]])
    assert sum(line.startswith("measure ") for line in res.stdout.splitlines()) == 1


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_document_tables_are_never_cut_and_align_numbers_right(files, monkeypatch, fmt):
    monkeypatch.setenv("COLUMNS", "60")
    res = CliRunner().invoke(main, ["evaluate", "-f", fmt, "-m", "map", "q", *RUNS[:12]])
    assert res.exit_code == 0, res.output
    if fmt == "latex":
        assert res.stdout.startswith("\\begin{tabular}{l" + "r" * 12 + "}\n")
    else:
        row = next(line for line in res.stdout.splitlines() if line.startswith("| map"))
        cells = row.strip("|").split("|")[1:]
        assert all(c.startswith(" ") and c.strip() == "1.0000" for c in cells)
    assert sum("map" in line for line in res.stdout.splitlines()) == 1


def test_correlate_leaderboard_is_cut_into_blocks(files, monkeypatch):
    monkeypatch.setenv("COLUMNS", "70")
    measures = ["map", "P.1", "P.2", "recip_rank", "Rprec", "bpref", "ndcg", "num_rel_ret"]
    results = []
    for name in RUNS[:4]:
        res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-o", f"{name}.eval",
                                        *[a for m in measures for a in ("-m", m)], "q", name])
        assert res.exit_code == 0, res.output
        results.append(f"{name}.eval")
    res = CliRunner().invoke(main, ["correlate", *results])
    assert res.exit_code == 0, res.output
    board = res.stdout.split("\n\nCorrelation")[0].splitlines()
    assert max(map(len, board)) <= 70
    assert sum(line.startswith("run ") for line in board) > 1


def test_a_library_warning_is_one_line(files, monkeypatch):
    from smarteval.render import evaluation

    real = evaluation.render_pieces

    def render_pieces(*args, **kwargs):       # warned while the output is written
        warnings.warn("something odd\nwith details", UserWarning, stacklevel=1)
        warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=1)
        yield from real(*args, **kwargs)
    monkeypatch.setattr(evaluation, "render_pieces", render_pieces)
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-m", "map", "q", RUNS[0]])
    assert res.exit_code == 0, res.output
    assert res.stderr == "smarteval: warning: something odd\n"
