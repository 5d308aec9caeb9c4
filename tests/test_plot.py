"""smarteval plot: every kind rendered to PNG (Agg), the other formats, the errors, and the numbers drawn."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from smarteval.cli import main
from smarteval.errors import UsageError
from smart_helpers import make_ranked

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data"
QRELS = str(SAMPLE / "qrels.txt")
RUNS = [str(SAMPLE / f"{n}.run") for n in ("bm25", "bm25_rm3", "dense")]

needs_mpl = pytest.mark.skipif(
    __import__("importlib").util.find_spec("matplotlib") is None,
    reason="matplotlib (the plot extra) is not installed")


def plot(*args):
    return CliRunner().invoke(main, ["plot", *args])


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


KINDS = {
    "pr": [*RUNS],
    "pr-queries": [RUNS[0]],
    "oc": [*RUNS, "-N", "4000"],
    "diff": [RUNS[0], RUNS[2], "-m", "P.10"],
    "first-rel": [*RUNS],
}


@needs_mpl
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_renders_a_png(kind, tmp_path):
    out = tmp_path / f"{kind}.png"
    res = plot(QRELS, *KINDS[kind], "-k", kind, "-o", str(out), "--dpi", "80")
    assert res.exit_code == 0, res.output
    w, h = png_size(out)
    # 5 x 3.8 inches at 80 dpi, give or take the tight bounding box
    assert 250 < w < 900 and 200 < h < 600, (w, h)
    import matplotlib.image
    pixels = matplotlib.image.imread(str(out))
    assert pixels.std() > 0.05                     # something is drawn, not a blank page
    assert len(list(tmp_path.iterdir())) == 1     # no temporary file left behind


@needs_mpl
def test_pseudo_curves_with_best_and_examined(tmp_path):
    out = tmp_path / "pseudo.png"
    res = plot(QRELS, *RUNS, "--method", "pseudo", "--best", "-o", str(out), "--dpi", "60")
    assert res.exit_code == 0, res.output
    png_size(out)


@needs_mpl
@pytest.mark.parametrize("suffix, magic", [("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_svg_and_pdf(suffix, magic, tmp_path):
    out = tmp_path / f"pr.{suffix}"
    res = plot(QRELS, *RUNS, "-o", str(out))
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert data.startswith(magic)
    if suffix == "svg":
        assert b"bm25_rm3" in data                 # fonts kept as text
        again = tmp_path / "again.svg"
        plot(QRELS, *RUNS, "-o", str(again))
        assert again.read_bytes() == data          # no date, fixed ids: same input, same file


@needs_mpl
@pytest.mark.parametrize("args, message", [
    (["-o", "x.jpg"], "the output's suffix names the image format, one of .png, .svg, .pdf"),
    (["-k", "diff", "-o", "x.png"], "--kind diff compares two runs; 3 given"),
    (["-k", "oc", "-o", "x.png"], "needs the number of documents in the collection"),
    (["-k", "oc", "-N", "4000", "--scale", "linear", "--best", "-o", "x.png"],
     "--best applies to --kind pr, not to --kind oc"),
    (["-k", "pr", "-m", "map", "-o", "x.png"], "-m/--measure applies to --kind diff"),
    (["-k", "pr-queries", "--method", "pseudo", "-o", "x.png"], "use --method semi or quasi"),
    (["-k", "first-rel", "--ranges", "5,3", "-o", "x.png"], "--ranges takes increasing"),
    (["--size", "big", "-o", "x.png"], "--size takes WIDTH,HEIGHT in inches"),
    (["--method", "semi", "--left", "zero", "-o", "x.png"], "--left extrapolates the quasi curve"),
])
def test_usage_errors_exit_2(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = plot(QRELS, *RUNS, *args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "x.png").exists()


@needs_mpl
def test_diff_needs_one_measure(tmp_path):
    res = plot(QRELS, RUNS[0], RUNS[1], "-k", "diff", "-m", "P", "-o", str(tmp_path / "d.png"))
    assert res.exit_code == 2
    assert "-m P gives P_5, P_10" in res.output


def test_without_matplotlib_names_the_package(monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import matplotlib fails
    res = plot(QRELS, *RUNS, "-o", str(tmp_path / "x.png"))
    assert res.exit_code == 2
    assert "pip install 'smarteval[plot]'" in res.output
    assert not (tmp_path / "x.png").exists()


def test_cli_start_up_does_not_import_matplotlib():
    import subprocess
    # the plot command itself loads only when used or listed, and matplotlib only to draw
    code = ("import sys, click, smarteval.cli as c; "
            "print('matplotlib' in sys.modules, 'smarteval.cli_plot' in sys.modules); "
            "c.main.get_command(click.Context(c.main), 'plot'); "
            "print('matplotlib' in sys.modules, 'smarteval.cli_plot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False", "False", "True"]


# --------------------------------------------------------------------------- the numbers drawn

def test_first_relevant_ranks_and_counts():
    from smarteval import plot as P
    r = make_ranked([[0, 1, 1], [1], [0, 0, 0, 0, 0, 0, 1], [0, 0], [0]],
                    [[0, 1, 1], [1], [0] * 6 + [1], [0, 0, 2], [0]])
    ranks = P.first_relevant_ranks(r)
    assert ranks[:4].tolist() == [2, 1, 7, np.inf] and np.isnan(ranks[4])
    assert P.first_relevant_counts(ranks, (1, 5)).tolist() == [1, 1, 1, 1]
    assert P.range_labels((1, 3, 10)) == ["1", "2\u20133", "4\u201310", "> 10", "none\nretrieved"]


def test_parse_ranges():
    from smarteval import plot as P
    assert P.parse_ranges("1, 3,10") == (1, 3, 10)
    for bad in ("", "0,3", "3,3", "a"):
        with pytest.raises(UsageError):
            P.parse_ranges(bad)


def test_best_possible_is_keens_curve():
    """Pseudo-Cranfield best curve: precision mean(min(n, R)/n) at recall mean(min(n, R)/R)."""
    from smarteval import plot as P
    from smarteval.curves import precision_curve
    R = [1, 3, 4]
    r = make_ranked([[0, 1], [1, 0, 0, 1], [0, 0, 1]], [[1], [1, 1, 1], [1, 1, 1, 1]])
    best = P.best_possible(r)
    assert best.num_rel.tolist() == R
    assert best.num_rel_ret.tolist() == R
    assert best.num_ret.tolist() == R
    curve = precision_curve(best, [0.5, 1.0], method="pseudo")
    n = np.arange(1, 5)
    rec = np.mean([np.minimum(n, k) / k for k in R], axis=0)
    prec = np.mean([np.minimum(n, k) / n for k in R], axis=0)
    # recall 1 is first reached after max(R) = 4 documents
    assert curve.examined[-1] == pytest.approx(4)
    assert curve.precision[-1] == pytest.approx(prec[3])
    assert rec[3] == pytest.approx(1.0)


@needs_mpl
def test_examined_labels_neither_overlap_nor_leave_the_axes():
    from smarteval import plot as P
    from smarteval.curves import precision_curve
    from smarteval.ranking import rank
    from smarteval.readers import read_qrels, read_run
    qrels = read_qrels(QRELS)
    ranked = [rank(read_run(p), qrels) for p in RUNS]
    curves = [precision_curve(r, method="pseudo") for r in ranked]
    fig = P.pr_figure(curves, ["a", "b", "c"], best=None, examined=True)
    fig.canvas.draw()
    ax = fig.axes[0]
    frame = ax.get_window_extent()
    boxes = [t.get_window_extent() for t in ax.texts]
    assert len(boxes) == sum(int(np.isfinite(c.precision).sum()) for c in curves)
    for i, a in enumerate(boxes):
        assert frame.x0 <= a.x0 and a.x1 <= frame.x1 and frame.y0 <= a.y0 and a.y1 <= frame.y1
        for b in boxes[i + 1:]:
            assert not a.overlaps(b)


@needs_mpl
def test_oc_legend_reports_the_fitted_line(tmp_path):
    from smarteval import plot as P
    from smarteval.measures.swets import operating_characteristic
    from smarteval.columns import Settings
    from smarteval.ranking import rank
    from smarteval.readers import read_qrels, read_run
    qrels = read_qrels(QRELS)
    r = rank(read_run(RUNS[2]), qrels, settings=Settings(num_docs=4000))
    oc = operating_characteristic(r)
    fig = P.oc_figure([oc], ["dense"])
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    line = oc.line
    assert f"dense: E = {line.E:.2f}, s = {line.slope:.2f}" in labels
    assert line.points > 10 and 1 < line.E < 4


@needs_mpl
def test_unwritable_output_is_exit_1(tmp_path):
    out = tmp_path / "missing-dir" / "x.png"
    res = plot(QRELS, RUNS[0], "-o", str(out))
    assert res.exit_code == 1
    assert f"Error: {out}: cannot write: No such file or directory" in res.output
