"""smarteval plot: every kind rendered to PNG (Agg), the other formats, the errors, the numbers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from fixtures import SAMPLE, invoke
from smart_helpers import make_ranked

from smarteval.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
QRELS = str(SAMPLE / "qrels.txt")
RUNS = [str(SAMPLE / f"{n}.run") for n in ("bm25", "bm25_rm3", "dense")]

needs_mpl = pytest.mark.skipif(
    __import__("importlib").util.find_spec("matplotlib") is None,
    reason="matplotlib (the plot extra) is not installed")


def plot(*args):
    return invoke(["plot", *args])


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
    "characteristic": [*RUNS, "--best", "-N", "4000"],
    "fallout": [*RUNS, "--best", "-N", "4000", "--average", "micro"],
    "asl": [*RUNS, "-m", "map", "-m", "P.10", "--samples", "2000"],
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
def test_cluster_curves_with_the_full_search(tmp_path):
    from smarteval.plot.build import PlotOptions, figure
    fig = figure(QRELS, RUNS[:2], options=PlotOptions(method="cluster", full=RUNS[2],
                                                      cluster_end="join"))
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "dense (full search)" in labels
    assert any(label.startswith("bm25 (ceiling ") for label in labels)
    assert "joined to the full search past the ceiling" in ax.get_title().replace("\n", " ")
    # Keen Fig. 25: the curve past the ceiling is drawn apart, open markers, thin
    assert "past the ceiling: joined to the full search" in labels
    ceilings = [float(label.split("ceiling ")[1].rstrip(")")) for label in labels
                if "(ceiling " in label]
    dashed = [line for line in ax.get_lines() if line.get_markerfacecolor() == "white"
              and len(line.get_xdata())]
    assert len(dashed) == len(ceilings) == 2
    for line, ceiling in zip(dashed, ceilings):
        x = np.asarray(line.get_xdata())
        assert x[0] <= ceiling + 0.005 < x[1] and x[-1] == 1.0     # from the ceiling on


@needs_mpl
def test_pseudo_curves_with_best_and_examined(tmp_path):
    out = tmp_path / "pseudo.png"
    res = plot(QRELS, *RUNS, "--method", "pseudo", "--best", "-o", str(out), "--dpi", "60")
    assert res.exit_code == 0, res.output
    png_size(out)


@needs_mpl
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_run_named_as_a_formula_is_drawn_as_text(kind, tmp_path):
    """A run tag of matplotlib's mathtext (``$\\frac{$``) is its name, in every kind: it
    was parsed as a formula, a traceback."""
    tag = "$\\frac{$_<b>&"
    runs = []
    for path in RUNS:
        renamed = tmp_path / Path(path).name
        renamed.write_text("".join(line.rsplit(" ", 1)[0] + f" {tag}{Path(path).stem}\n"
                                   for line in Path(path).read_text().splitlines()))
        runs.append(str(renamed))
    args = [runs[RUNS.index(a)] if a in RUNS else a for a in KINDS[kind]]
    out = tmp_path / "p.svg"
    res = plot(QRELS, *args, "-k", kind, "-o", str(out))
    assert res.exit_code == 0, res.output
    assert (b"frac" in out.read_bytes()) == (kind != "asl")     # asl names the measures


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
     "--best applies to --kind pr, characteristic and fallout, not to --kind oc"),
    (["-k", "pr", "-m", "map", "-o", "x.png"], "-m/--measure applies to --kind diff"),
    (["-k", "pr-queries", "--method", "pseudo", "-o", "x.png"],
     "use --method semi, quasi or cluster"),
    (["-k", "first-rel", "--ranges", "5,3", "-o", "x.png"], "--ranges takes increasing"),
    (["--size", "big", "-o", "x.png"], "Invalid value for '--size': 'big' is not a finite "
                                       "number"),
    (["--size", "5,0", "-o", "x.png"], "--size takes WIDTH,HEIGHT in inches"),
    (["--method", "semi", "--left", "zero", "-o", "x.png"],
     "--left extrapolates the quasi and cluster curves"),
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
            "print('matplotlib' in sys.modules, 'smarteval.cli.plot' in sys.modules); "
            "c.main.get_command(click.Context(c.main), 'plot'); "
            "print('matplotlib' in sys.modules, 'smarteval.cli.plot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False", "False", "True"]



@needs_mpl
def test_run_sharing_no_query_is_exit_1_as_in_evaluate(tmp_path):
    other = tmp_path / "other.run"
    other.write_text("no-such-query Q0 d1 1 1.0 other\n")
    for kind in ("pr", "diff"):
        out = tmp_path / f"{kind}.png"
        res = plot(QRELS, RUNS[0], str(other), "-k", kind, "-o", str(out))
        assert res.exit_code == 1, res.output
        assert "no query of this run has judgements in" in res.output
        assert not out.exists()


def test_data_and_build_do_not_import_matplotlib():
    import subprocess
    code = ("import sys, smarteval.plot.build, smarteval.plot.data; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False"]


def test_kind_options_and_size_are_library_checks():
    from smarteval.plot.build import check_kind_options, parse_size
    check_kind_options("pr", {"method", "best", "levels"})
    with pytest.raises(UsageError, match="--best applies to --kind pr, characteristic and "
                                         "fallout, not to --kind oc"):
        check_kind_options("oc", {"best"})
    with pytest.raises(UsageError, match="--method applies to --kind pr and pr-queries"):
        check_kind_options("first-rel", {"method"})
    assert parse_size("5x3.8") == (5.0, 3.8) and parse_size((4, 3)) == (4.0, 3.0)
    assert parse_size(None) is None
    for bad in ("big", "0,3", "60,3", "1,2,3"):
        with pytest.raises(UsageError, match="--size takes WIDTH,HEIGHT"):
            parse_size(bad)


@needs_mpl
def test_figure_is_one_library_call():
    from smarteval.plot.build import PlotOptions, figure
    from smarteval.settings import Settings
    fig = figure(QRELS, RUNS[:2], Settings(num_docs=4000),
                 PlotOptions(kind="oc", scale="linear", title="t"))
    assert fig.axes[0].get_title() == "t"
    fig = figure(QRELS, RUNS, options=PlotOptions(kind="pr", method="quasi", step="middle"))
    assert fig.axes[0].get_title().startswith("Quasi-Cranfield (middle point of each step")


# --------------------------------------------------------------------------- the numbers drawn

def test_first_relevant_ranks_and_counts():
    from smarteval.plot import data as P
    r = make_ranked([[0, 1, 1], [1], [0, 0, 0, 0, 0, 0, 1], [0, 0], [0]],
                    [[0, 1, 1], [1], [0] * 6 + [1], [0, 0, 2], [0]])
    ranks = P.first_relevant_ranks(r)
    assert ranks[:4].tolist() == [2, 1, 7, np.inf] and np.isnan(ranks[4])
    assert P.first_relevant_counts(ranks, (1, 5)).tolist() == [1, 1, 1, 1]
    assert P.range_labels((1, 3, 10)) == ["1", "2\u20133", "4\u201310", "> 10", "none\nretrieved"]


def test_parse_ranges():
    from smarteval.plot import data as P
    assert P.parse_ranges("1, 3,10") == (1, 3, 10)
    for bad in ("", "0,3", "3,3", "a"):
        with pytest.raises(UsageError):
            P.parse_ranges(bad)


def test_best_possible_is_keens_curve():
    """Pseudo-Cranfield best curve: precision mean(min(n, R)/n) at recall mean(min(n, R)/R)."""
    from smarteval.curves import precision_curve
    from smarteval.plot import data as P
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
    from smarteval.curves import precision_curve
    from smarteval.plot import draw as P
    from smarteval.ranking.join import rank
    from smarteval.read.plain import read_qrels, read_run
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
def test_crowded_labels_are_left_out():
    # with -N the cut-off curves run to N and meet near recall 1: the numbers there
    # would cover each other, so some are left out, and no two that are drawn overlap
    from smarteval.curves import precision_curve
    from smarteval.plot import draw as P
    from smarteval.ranking.join import rank
    from smarteval.read.plain import read_qrels, read_run
    from smarteval.settings import Settings
    qrels = read_qrels(QRELS)
    ranked = [rank(read_run(p), qrels, Settings(num_docs=4000)) for p in RUNS]
    curves = [precision_curve(r, method="pseudo") for r in ranked]
    fig = P.pr_figure(curves, ["a", "b", "c"], examined=True)
    ax = fig.axes[0]
    boxes = [t.get_window_extent() for t in ax.texts]
    assert 10 < len(boxes) < sum(int(np.isfinite(c.value).sum()) for c in curves)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b)


@needs_mpl
def test_cutoffs_from_marks_each_runs_pair(tmp_path):
    from smarteval.plot.build import PlotOptions, figure
    boolean = tmp_path / "boolean.run"
    lines = [line.split() for line in Path(RUNS[0]).read_text().splitlines()]
    boolean.write_text("".join(f"{q} Q0 {d} 1 1.0 boolean\n" for q, _, d, r, *_ in lines
                               if int(r) <= 10))
    fig = figure(QRELS, RUNS[1:], options=PlotOptions(method="pseudo", cutoffs_from=boolean))
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "boolean (set)" in labels
    assert "cut at boolean's set sizes (10.0 documents a query)" in labels
    res = plot(QRELS, RUNS[0], "-k", "oc", "-N", "4000", "--cutoffs-from", str(boolean),
               "-o", str(tmp_path / "x.png"))
    assert res.exit_code == 2 and "--cutoffs-from applies to --kind pr" in res.output


@needs_mpl
def test_stopping_rule_curve_is_labelled_with_n():
    from smarteval.plot.build import PlotOptions, figure
    fig = figure(QRELS, RUNS[:1], options=PlotOptions(method="cnr", levels="1,2,5"))
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["1", "2", "5"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "numbers: n non-relevant in a row" in labels


@needs_mpl
def test_precision_levels_go_on_the_precision_axis():
    from smarteval.plot.build import PlotOptions, figure
    fig = figure(QRELS, RUNS[:1], options=PlotOptions(method="precision", levels="0.5,1"))
    ax = fig.axes[0]
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == "bm25"]
    assert list(line.get_ydata()) == [0.5, 1.0] and ax.get_ylabel() == "Precision (level)"


@needs_mpl
def test_fallout_axis_is_logarithmic_and_adjusted_is_labelled():
    from smarteval.plot.build import PlotOptions, figure
    from smarteval.settings import Settings
    fig = figure(QRELS, RUNS, Settings(num_docs=4000), PlotOptions(kind="fallout", best=True))
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "Fallout"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(label.startswith("best possible (fallout 0 up to recall ") for label in labels)
    # a log axis has no 0: a run's zeros are left off and said in its label, and the
    # axis reaches down to every point drawn, the best possible curve's too
    low, _ = ax.get_ylim()
    for line in ax.get_lines():
        y = np.asarray(line.get_ydata(), dtype=float)
        assert (y[np.isfinite(y)] > 0).all() and (y >= low).all(), line.get_label()
    # both first documents relevant: recall 2/5 with fallout 0 after one document
    r = make_ranked([[1, 1, 0], [1, 0]], [[1, 1, 1], [1, 1]], num_docs=50)
    from smarteval.plot import data as P
    from smarteval.plot import draw as W
    fo = P.fallout_data([r], ["run"], P.CurveOptions(average="micro"))
    fig = W.pr_figure(fo.curves, fo.names, examined=False)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["run (fallout 0 up to recall 0.40)"]
    fig = figure(QRELS, RUNS[:1], Settings(num_docs=4000, target_generality=23.16),
                 PlotOptions(method="adjusted"))
    assert fig.axes[0].get_ylabel() == "Precision adjusted to generality 23.16"


@needs_mpl
def test_oc_legend_reports_the_fitted_line(tmp_path):
    from smarteval.measures.swets import operating_characteristic
    from smarteval.plot import draw as P
    from smarteval.ranking.join import rank
    from smarteval.read.plain import read_qrels, read_run
    from smarteval.settings import Settings
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


def test_first_rel_data_leaves_out_a_range_no_list_reaches():
    from smarteval.plot import data as P
    r = make_ranked([[0, 1], [1, 0, 0]], [[1], [1]])
    fr = P.first_rel_data([r], ["a"], "1,5")       # lists end at rank 3: no "> 5"
    assert fr.labels == ["1", "2\u20135", "none\nretrieved"]
    assert fr.counts.tolist() == [[1, 1, 0]]
    assert fr.queries == [2]
    fr = P.first_rel_data([r], ["a"], (1, 2))
    assert fr.labels[-2:] == ["> 2", "none\nretrieved"]
    assert fr.counts.tolist() == [[1, 1, 0, 0]]


def test_curve_titles():
    from smarteval.curves import precision_curve
    from smarteval.plot import data as P
    r = make_ranked([[0, 1, 1]], [[0, 1, 1]])
    quasi = precision_curve(r, method="quasi", step="lowest", left="zero")
    assert P.curve_title(quasi, 1) == ("Quasi-Cranfield (lowest point of each step, left end "
                                       "zero): macro average (mean) of 1 queries")
    semi = precision_curve(r, method="semi", average="micro")
    assert P.curve_title(semi) == "Semi-Cranfield: micro average"
