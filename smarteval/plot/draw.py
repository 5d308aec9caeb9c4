"""Pictures of an evaluation (the ``plot`` extra): precision-recall curves, Swets' operating
characteristic, Keen's magnitude-difference plot and the rank of the first relevant document.

Drawing only: every ``*_figure`` function takes numbers already computed (by
:mod:`smarteval.plot.data`: curves, per-query arrays) and returns a
:class:`matplotlib.figure.Figure`; :func:`image` turns it into PNG, SVG or PDF bytes (which
:mod:`smarteval.output` writes). matplotlib is imported only inside these functions, and
figures are built with the object-oriented API on an Agg canvas, never through pyplot: no
global backend is switched and nothing is shown on a screen.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from smarteval.errors import UsageError

FORMATS = ("png", "svg", "pdf")
INSTALL_HINT = "pip install 'smarteval[plot]' (or pip install matplotlib)"

#: Colour-blind-safe colours (Okabe & Ito; grey for their yellow, faint on white), each run
#: also with its own dash and marker so that a greyscale print still tells the runs apart.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#8C8C8C")
DASHES = ("-", "--", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (3, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

STYLE: dict[str, Any] = {
    "text.parse_math": False,       # a run's name is text: "$" opens no formula
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#d9d9d9",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "lines.linewidth": 1.6,
    "lines.markersize": 4.5,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.04,
    "svg.hashsalt": "smarteval",     # the same input gives the same SVG
    "svg.fonttype": "none",          # text stays text, editable in a paper's figure
    "pdf.fonttype": 42,              # TrueType: what publishers ask for
}

# --------------------------------------------------------------------------- matplotlib

def require_matplotlib():
    """The matplotlib module, or a UsageError (exit 2) naming the package to install."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError(f"plotting needs matplotlib, which is not installed: {INSTALL_HINT}") \
            from None
    return matplotlib


def _new_figure(size: tuple[float, float]):
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _style():
    import matplotlib
    return matplotlib.rc_context(STYLE)


def _look(i: int) -> dict:
    return {"color": COLOURS[i % len(COLOURS)], "linestyle": DASHES[i % len(DASHES)],
            "marker": MARKERS[i % len(MARKERS)]}


def output_format(path: str) -> str:
    """The image format named by ``path``'s suffix (png, svg or pdf)."""
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise UsageError(f"{path}: the output's suffix names the image format, one of "
                         f"{', '.join('.' + f for f in FORMATS)}")
    return ext


#: The most pixels a PNG image holds (its raster takes 4 bytes a pixel, and as much again
#: while it is encoded): 100 million, 10,000 x 10,000.
MAX_PIXELS = 100_000_000


def image(fig, fmt: str, *, dpi: int = 200) -> bytes:
    """``fig`` as the bytes of a ``fmt`` image, without timestamps (same figure, same bytes).
    A PNG image of more than :data:`MAX_PIXELS` is refused before it is drawn (--size 50,50
    at --dpi 1200 ran out of memory)."""
    metadata = {"png": {"Software": None}, "svg": {"Date": None},
                "pdf": {"CreationDate": None, "Producer": None}}[fmt]
    width, height = (round(x * dpi) for x in fig.get_size_inches())
    if fmt == "png" and width * height > MAX_PIXELS:
        raise UsageError(f"the image would be {width} x {height} pixels (--size in inches "
                         f"times --dpi {dpi}): a PNG image holds at most {MAX_PIXELS:,} "
                         "pixels; give a smaller --size or --dpi, or write .svg or .pdf")
    buf = io.BytesIO()
    with _style():
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
    return buf.getvalue()


def _wrap(fig, title: str, fontsize: float) -> str:
    """The title broken into lines no wider than the figure (about 0.55 em a character)."""
    import textwrap
    width = max(20, int(fig.get_figwidth() * 72 / (0.55 * fontsize)) - 4)
    return textwrap.fill(title, width)


def _title(fig, ax, title: str | None) -> None:
    if title:
        ax.set_title(_wrap(fig, title, STYLE["axes.titlesize"]))


#: More legend entries than this go beside the axes instead of over the lines.
LEGEND_INSIDE = 7


def _legend(ax, **kw) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    if len(handles) > LEGEND_INSIDE:
        # beside the axes, the figure widened by about the legend's width
        kw = {**kw, "loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}
        width = max(len(label) for label in labels) * 0.075 + 0.6
        ax.figure.set_figwidth(ax.figure.get_figwidth() + width)
    ax.legend(**kw)


# --------------------------------------------------------------------------- figures

def curve_xy(curve) -> tuple[np.ndarray, np.ndarray]:
    """Where a curve's points go on a precision-recall (or fallout-recall) plot.

    Recall levels against the value; the cut-off methods at the recall they read; the
    precision-level curve at its averaged recall against the levels; Rocchio's curve at
    its averaged recall against its precision.
    """
    if curve.method == "precision":
        return np.asarray(curve.value), np.asarray(curve.levels)
    x = curve.recall if curve.recall is not None else curve.levels
    return np.asarray(x), np.asarray(curve.value)


def _labels_of(curve):
    """Numbers written beside a curve's points: documents examined, or Rocchio's n."""
    if curve.method == "cnr":
        return [f"{int(n)}" for n in curve.levels], "numbers: n non-relevant in a row"
    if curve.examined is not None and curve.method != "precision":
        return [_count(n) for n in curve.examined], "numbers: documents examined"
    return None, ""


def _axes_of(curve) -> tuple[str, str, bool]:
    """x label, y label, and whether y runs 0..1 (fallout does not)."""
    x = "Recall (relevance points)" if curve.method == "points" else "Recall"
    if curve.method == "fallout":
        return x, "Fallout", False
    if curve.method == "adjusted":
        G = curve.generality
        return x, "Precision adjusted to generality " + (f"{G:g}" if G is not None else "G"), \
            True
    if curve.method == "precision":
        return x, "Precision (level)", True
    return x, "Precision", True


def _pr_axes(ax, xlabel: str = "Recall", ylabel: str = "Precision", unit: bool = True) -> None:
    ax.set_xlim(0, 1.0)
    ax.set_xticks(np.linspace(0, 1, 6))
    if unit:
        ax.set_ylim(0, 1.02)
        ax.set_yticks(np.linspace(0, 1, 6))
    else:
        _fallout_axis(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def _fallout_axis(ax) -> None:
    """A logarithmic y axis for fallout, which spans decades (Keen Fig. 30: .003 to .02
    in the first five documents, 1 at the end of the collection); zeros are left off
    (:func:`_without_zeros`), the best possible curve included."""
    from matplotlib.ticker import FuncFormatter, LogLocator
    ys = np.concatenate([np.asarray(line.get_ydata(), dtype=np.float64)
                         for line in ax.get_lines() if len(line.get_ydata())]
                        or [np.ones(1)])
    ys = ys[np.isfinite(ys) & (ys > 0)]
    low = float(ys.min()) if len(ys) else 1e-3
    high = float(ys.max()) if len(ys) else 1.0
    ax.set_yscale("log")
    ax.set_ylim(10 ** math.floor(math.log10(low) - 0.05), min(1.0, high) * 1.3)
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _without_zeros(x: np.ndarray, y: np.ndarray, ok: np.ndarray, label: str):
    """A fallout curve's points without its zeros, which a logarithmic axis cannot show,
    and its label saying how far it holds fallout 0 (Keen Fig. 28b's curves start there)."""
    zero = x[ok & (y == 0)]
    if len(zero):
        label = f"{label} (fallout 0 up to recall {zero.max():.2f})"
    return ok & (y > 0), label


#: Up to this many runs, cut-off curves carry their documents examined by default.
EXAMINED_RUNS = 3


def pr_figure(curves: Sequence, names: Sequence[str], *, best=None,
              examined: bool | None = None, title: str | None = None,
              size: tuple[float, float] = (5.0, 3.8), full=None, full_name: str = "",
              points: Sequence | None = None, other=None, other_name: str = "",
              reach=None):
    """Precision against recall, one line per run (``curves`` from :mod:`smarteval.curves`).

    ``best`` is the curve of :func:`smarteval.plot.data.best_possible`, drawn dotted. On
    the cut-off curves ``examined`` writes beside each point the number of documents
    examined to reach it (Keen Fig. 14a's x^L; on Rocchio's curve its n); by default
    (None) for up to three runs, past which the numbers would crowd each other. A
    fallout curve (Keen Fig. 28b) is drawn the same way, fallout on the y axis.

    The cluster method (Keen Fig. 24-25) adds the full search's curve ``full`` (grey,
    dashed) and each run's recall ceiling (a short vertical mark at the top).
    ``points`` (Keen part 7) are each run's pair at the set sizes of ``other_name``,
    drawn as large markers on the run's colour, ``other`` that system's own pair (a
    black star). ``reach`` (:class:`smarteval.plot.data.Reach`): each curve is solid up
    to the recall its run's lists reach, then thin, dashed and with open markers, the
    points of ``--unranked``'s placement (or 0 without N), as the legend says; a fallout
    and a precision-recall plot of the same runs so show one range alike.
    """
    if examined is None:
        examined = len(curves) <= EXAMINED_RUNS
    fig = _new_figure(size)
    with _style():
        ax = fig.add_subplot()
        labels = []
        note = ""
        for i, (curve, name) in enumerate(zip(curves, names, strict=True)):
            x, y = curve_xy(curve)
            ok = np.isfinite(x) & np.isfinite(y)
            label = name
            if curve.ceiling is not None:
                label += f" (ceiling {curve.ceiling:.2f})"
            if curve.method == "fallout":
                ok, label = _without_zeros(x, y, ok, label)
            if curve.ceiling is not None and np.isfinite(curve.ceiling):
                _cluster_line(ax, x[ok], y[ok], curve.ceiling, label, i)
            elif reach is not None and (x[ok] > reach.recall[i] + 1e-9).any():
                _cluster_line(ax, x[ok], y[ok], reach.recall[i], label, i)
            else:
                ax.plot(x[ok], y[ok], label=label, **_look(i))
            texts, what = _labels_of(curve)
            if examined and texts is not None:
                note = what
                previous = None
                for xi, yi, ti in zip(x[ok], y[ok], np.asarray(texts, dtype=object)[ok],
                                      strict=True):
                    # levels reached at one cut-off (the first document) say it once
                    if ti != previous:
                        labels.append((xi, yi, ti, COLOURS[i % len(COLOURS)]))
                    previous = ti
            if curve.ceiling is not None and np.isfinite(curve.ceiling):
                ax.axvline(curve.ceiling, ymin=0.0, ymax=1.0, color=COLOURS[i % len(COLOURS)],
                           linewidth=0.9, linestyle=(0, (1, 1.5)), alpha=0.9)
        if full is not None:
            x, y = curve_xy(full)
            ok = np.isfinite(x) & np.isfinite(y)
            ax.plot(x[ok], y[ok], color="#555555", linestyle=(0, (6, 2)), linewidth=1.3,
                    marker="none", label=f"{full_name} (full search)")
            ax.plot([], [], color="#555555", linewidth=0.9, linestyle=(0, (1, 1.5)),
                    label="recall ceiling of the cluster search")
            if any(c.ceiling is not None and c.end != "none" for c in curves):
                what = "joined to the full search" if curves[0].end == "join" else \
                    "extrapolated"
                ax.plot([], [], color="#555555", linewidth=1.0, linestyle=(0, (2, 1.5)),
                        marker="o", markerfacecolor="white", markersize=3.5,
                        label=f"past the ceiling: {what}")
        if reach is not None and any((curve_xy(c)[0] > at + 1e-9).any()
                                     for c, at in zip(curves, reach.recall, strict=True)):
            ax.plot([], [], color="#555555", linewidth=1.0, linestyle=(0, (2, 1.5)),
                    marker="o", markerfacecolor="white", markersize=3.5, label=reach.words)
        if best is not None:
            x, y = curve_xy(best)
            ok = np.isfinite(x) & np.isfinite(y)
            label = "best possible"
            if best.method == "fallout":
                ok, label = _without_zeros(x, y, ok, label)
            # a curve of one point (Rocchio's, where the best ranking never stops short
            # of recall 1) is drawn as that point
            single = len({(float(a), float(b)) for a, b in zip(x[ok], y[ok])}) == 1
            ax.plot(x[ok], y[ok], color="black", linestyle=":", linewidth=1.4, label=label,
                    marker="o" if single else "none", markerfacecolor="white", markersize=6,
                    clip_on=not single, zorder=4)
        if points is not None:
            for i, p in enumerate(points):
                ax.plot([p.recall], [p.precision], linestyle="none", marker=_look(i)["marker"],
                        markersize=9, markerfacecolor="white", markeredgewidth=1.8,
                        color=COLOURS[i % len(COLOURS)], zorder=5)
            mean = points[0].examined if points else float("nan")
            ax.plot([], [], linestyle="none", marker="o", markersize=7,
                    markerfacecolor="white", markeredgewidth=1.5, color="#555555",
                    label=f"cut at {other_name}'s set sizes ({mean:.1f} documents a query)")
        if other is not None:
            ax.plot([other.recall], [other.precision], linestyle="none", marker="*",
                    markersize=12, color="black", zorder=6, label=f"{other_name} (set)")
        _pr_axes(ax, *_axes_of(curves[0]))
        if labels:
            ax.plot([], [], " ", label=note)
        _legend(ax, loc="best")
        _title(fig, ax, title)
        if labels:
            place_labels(fig, ax, labels)
    return fig


def _cluster_line(ax, x: np.ndarray, y: np.ndarray, ceiling: float, label: str,
                  i: int) -> None:
    """A curve solid up to ``ceiling``, where the queries' own points carry it, then thin,
    dashed and with open markers: a cluster search's past its recall ceiling, where
    extrapolation or the full search does (Keen Fig. 25's "result" and "extrapolation"),
    or any curve past its run's reach, where ``--unranked`` does."""
    look = _look(i)
    inside = x <= ceiling + 1e-12
    ax.plot(x[inside], y[inside], label=label, **look)
    # the line past the ceiling starts at the last point below it
    at = max(int(inside.sum()) - 1, 0)
    if at < len(x) - 1 or not inside.any():
        ax.plot(x[at:], y[at:], color=look["color"], linewidth=1.0,
                linestyle=(0, (2, 1.5)), marker=look["marker"], markerfacecolor="white",
                markersize=3.5, markevery=list(range(1 if inside.any() else 0,
                                                     len(x) - at)))


def characteristic_figure(curves: Sequence, names: Sequence[str], *, best=None,
                          num_docs: int | None = None, title: str | None = None,
                          size: tuple[float, float] = (5.0, 3.8)):
    """Giuliano & Jones' performance characteristic (Keen Fig. 26a): the share of the
    relevance points found against the documents examined, one line per run.

    ``curves`` are :func:`smarteval.curves.cutoffs.characteristic` at every cut-off; with
    ``num_docs`` (N) a top axis gives the cut-off ratio n/N, Keen's x axis. Every curve
    starts at the origin (nothing examined, nothing found).
    """
    fig = _new_figure(size)
    right = max(float(np.max(c.levels)) for c in curves)
    with _style():
        ax = fig.add_subplot()
        for i, (curve, name) in enumerate(zip(curves, names, strict=True)):
            x = np.concatenate(([0.0], np.asarray(curve.levels, dtype=np.float64)))
            y = np.concatenate(([0.0], np.asarray(curve.value, dtype=np.float64)))
            look = _look(i)
            shown = int(np.searchsorted(x, right, side="right"))
            # about ten markers over the part shown, each run's at other cut-offs
            every = max(1, shown // 10)
            marks = list(range(every * (i + 1) // (len(curves) + 1) or every, shown, every))
            ax.plot(x, y, label=name, color=look["color"], linestyle=look["linestyle"],
                    marker=look["marker"], markevery=marks, markersize=3.5)
        if best is not None:
            ax.plot(np.concatenate(([0.0], best.levels)), np.concatenate(([0.0], best.value)),
                    color="black", linestyle=":", linewidth=1.4, label="best possible")
        ax.set_xlim(0, right)
        ax.set_ylim(0, 1.02)
        ax.set_yticks(np.linspace(0, 1, 6))
        ax.set_xlabel("Documents examined (rank position)")
        ax.set_ylabel("Relevance points found (share)")
        if num_docs:
            top = ax.secondary_xaxis("top", functions=(lambda n: n / num_docs,
                                                       lambda c: c * num_docs))
            top.set_xlabel(f"Cut-off ratio (n / N, N = {num_docs:,})", fontsize=8)
            top.tick_params(labelsize=7)
        _legend(ax, loc="lower right")
        _title(fig, ax, title)
    return fig


def _count(n: float) -> str:
    """Documents examined, as Keen writes them: whole numbers, one decimal below 10."""
    return f"{n:.0f}" if n >= 9.95 else f"{n:.1f}".rstrip("0").rstrip(".")


#: A label covering more drawn samples than this (about 2 pixels apart) is left out.
LABEL_CLUTTER = 6


def place_labels(fig, ax, labels, fontsize: float = 6.5) -> int:
    """Write small labels beside points where they cover no line, marker, legend or label.

    ``labels`` holds (x, y, text, colour) in data coordinates. Each label tries eight
    positions around its point, near then far, and takes the one covering the fewest
    obstacles; a label that would cover another label, the legend or a stretch of a
    curve wherever it went (where curves meet) is left out. The figure is laid out first
    so that the positions are final. Returns the number of labels written.
    """
    boxes_drawn = 0
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData
    pts_per_px = 72.0 / fig.dpi
    # obstacles: the drawn lines sampled every few pixels, the legend box, the axes edge
    samples = []
    for line in ax.get_lines():
        xy = line.get_xydata()
        if len(xy) == 0 or line.get_linestyle() in ("None", " ", ""):
            if len(xy):
                samples.append(to_px.transform(xy))
            continue
        px = to_px.transform(xy)
        for a, b in zip(px[:-1], px[1:], strict=True):
            k = max(2, int(math.hypot(*(b - a)) / 2))
            samples.append(a + (b - a) * np.linspace(0, 1, k)[:, None])
        samples.append(px)
    obstacles = np.concatenate(samples) if samples else np.zeros((0, 2))
    boxes = []
    legend = ax.get_legend()
    if legend is not None:
        lb = legend.get_window_extent(renderer)
        boxes.append((lb.x0, lb.y0, lb.x1, lb.y1))
    frame = ax.get_window_extent(renderer)
    gap = 3.0 / pts_per_px                          # 3 points between point and label
    for x, y, text, colour in labels:
        t = ax.text(0, 0, text, fontsize=fontsize, color=colour)
        ext = t.get_window_extent(renderer)
        t.remove()
        w, h = ext.width, ext.height
        px, py = to_px.transform((x, y))
        best: tuple | None = None
        for reach in (1.0, 2.2):
            for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1), (0, 1), (0, -1), (1, 0), (-1, 0)):
                cx = px + dx * (gap * reach + w / 2)
                cy = py + dy * (gap * reach + h / 2)
                box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
                inside = ((obstacles[:, 0] > box[0] - 1) & (obstacles[:, 0] < box[2] + 1)
                          & (obstacles[:, 1] > box[1] - 1) & (obstacles[:, 1] < box[3] + 1))
                cost = float(inside.sum())
                cost += 1000 * sum(_overlap(box, o) for o in boxes)
                if box[0] < frame.x0 or box[2] > frame.x1 or box[1] < frame.y0 \
                        or box[3] > frame.y1:
                    cost += 10_000
                cost += 0.5 * (reach > 1)             # prefer near when equally clear
                if best is None or cost < best[0]:
                    best = (cost, box, cx, cy)
        assert best is not None
        cost, box, cx, cy = best
        if cost > LABEL_CLUTTER:
            continue          # every place covers a label, a curve or leaves the axes
        boxes_drawn += 1
        boxes.append(box)
        ax.annotate(text, (x, y), xytext=((cx - px) * pts_per_px, (cy - py) * pts_per_px),
                    textcoords="offset points", ha="center", va="center", fontsize=fontsize,
                    color=colour)
    return boxes_drawn


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def pr_queries_figure(panels: Sequence[tuple], *, title: str | None = None,
                      size: tuple[float, float] | None = None):
    """Every query's curve faint behind the mean and the median (Keen Fig. 12 and 13).

    ``panels`` holds one ``(name, mean_curve, median_curve)`` per run; the mean curve must
    carry its ``per_query`` table (Semi- or Quasi-Cranfield).
    """
    n = len(panels)
    cols = min(n, 3)
    rows = -(-n // cols)
    if size is None:
        size = (4.2 * cols if n > 1 else 5.0, 3.6 * rows if n > 1 else 3.8)
    fig = _new_figure(size)
    with _style():
        axes = fig.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)
        for ax, (name, mean, median) in zip(axes.flat, panels, strict=False):
            x = mean.levels
            table = mean.per_query
            shown = 0
            for row in table:
                ok = np.isfinite(row)
                if ok.any():
                    ax.plot(x[ok], row[ok], color="#7f7f7f", alpha=0.35, linewidth=0.7,
                            marker="none")
                    shown += 1
            ax.plot([], [], color="#7f7f7f", alpha=0.6, linewidth=0.7,
                    label=f"each query ({shown})")
            ok = np.isfinite(mean.precision)
            ax.plot(x[ok], mean.precision[ok], color=COLOURS[0], linewidth=2.2, marker="o",
                    label="mean")
            ok = np.isfinite(median.precision)
            ax.plot(x[ok], median.precision[ok], color=COLOURS[1], linewidth=2.2,
                    linestyle="--", marker="s", label="median")
            _pr_axes(ax)
            if n > 1:
                ax.set_title(name)
            if ax is not axes[-1][0]:
                ax.label_outer()
            _legend(ax, loc="upper right")
        for ax in list(axes.flat)[n:]:
            ax.set_visible(False)
        if title:
            if n == 1:
                _title(fig, axes[0][0], title)
            else:
                fig.suptitle(_wrap(fig, title, STYLE["axes.titlesize"]),
                             fontsize=STYLE["axes.titlesize"])
    return fig


def _probability_ticks(lo: float, hi: float, length: float, across: bool,
                       fontsize: float = 8.0) -> list[float]:
    """Round probabilities between lo and hi, powers of ten first, whose labels do not touch.

    ``length`` is the axis length in points; ``across`` is True for an x axis, where the
    labels sit side by side and need their width, False for a y axis (their height).
    """
    from scipy.special import ndtri
    tiers = ([0.0001, 0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999],
             [0.3, 0.7, 0.05, 0.95, 0.005, 0.995, 0.0005, 0.9995],
             [0.2, 0.8, 0.02, 0.98, 0.002, 0.998, 0.0002, 0.9998])
    z0, z1 = float(ndtri(lo)), float(ndtri(hi))
    scale = length / max(z1 - z0, 1e-9)                 # points per unit of z

    def room(p: float, q: float) -> float:
        if not across:
            return 1.8 * fontsize
        return 0.64 * fontsize * (len(_fmt_p(p)) + len(_fmt_p(q))) / 2 + 0.8 * fontsize

    chosen: list[float] = []
    for tier in tiers:
        for p in tier:
            if lo <= p <= hi and all(abs(float(ndtri(p)) - float(ndtri(c))) * scale
                                     >= room(p, c) for c in chosen):
                chosen.append(p)
    return sorted(chosen)


def _fmt_p(p: float) -> str:
    return f"{p:g}"


def oc_figure(ocs: Sequence, names: Sequence[str], *, scale: str = "normal",
              title: str | None = None, size: tuple[float, float] = (5.0, 3.8)):
    """Swets' operating characteristic: recall against fallout, one curve per run (Keen Fig. 7).

    ``ocs`` come from :func:`smarteval.measures.swets.operating_characteristic`. On
    ``normal`` (normal-deviate) axes each run's fitted line z(recall) = a + b·z(fallout)
    is drawn thin behind its points, and the legend gives its slope s and E = 2a/(1+b).
    ``linear`` axes show the raw proportions, the chance line R = F dotted.
    """
    if scale not in ("normal", "linear"):
        raise UsageError(f"--scale must be normal or linear, not {scale!r}")
    from scipy.special import ndtr, ndtri
    fig = _new_figure(size)
    with _style():
        ax = fig.add_subplot()
        xs, ys = [], []
        for i, (oc, name) in enumerate(zip(ocs, names, strict=True)):
            f, r = np.asarray(oc.fallout), np.asarray(oc.recall)
            line = oc.line
            label = f"{name}: E = {line.E:.2f}, s = {line.slope:.2f}" if line.points \
                else f"{name}: no line (fewer than 2 points inside (0, 1))"
            look = _look(i)
            every = max(1, len(f) // 12)
            if scale == "normal":
                ok = (f > 0) & (f < 1) & (r > 0) & (r < 1)
                x, y = ndtri(f[ok]), ndtri(r[ok])
                ax.plot(x, y, color=look["color"], linestyle="none", marker=look["marker"],
                        markersize=3.2, markevery=every, alpha=0.9)
                ax.plot(x, y, color=look["color"], linestyle=look["linestyle"], linewidth=1.3,
                        label=label)
                if line.points and len(x):
                    gx = np.array([x.min(), x.max()])
                    pad = 0.15 * (gx[1] - gx[0] + 0.2)
                    gx = gx + np.array([-pad, pad])
                    ax.plot(gx, line.a + line.b * gx, color=look["color"], linewidth=0.8,
                            linestyle=":", alpha=0.9)
                xs.append(x)
                ys.append(y)
            else:
                ax.plot(f, r, color=look["color"], linestyle=look["linestyle"], label=label,
                        marker=look["marker"], markevery=every, markersize=3.2)
                xs.append(f)
                ys.append(r)
        xall = np.concatenate(xs) if xs else np.zeros(0)
        yall = np.concatenate(ys) if ys else np.zeros(0)
        if scale == "normal":
            if len(xall):
                x0, x1 = xall.min() - 0.25, xall.max() + 0.25
                y0, y1 = yall.min() - 0.25, yall.max() + 0.25
            else:
                x0, x1, y0, y1 = -3, 0, -3, 0
            d = np.array([min(x0, y0), max(x1, y1)])
            ax.plot(d, d, color="#8c8c8c", linewidth=0.9, linestyle=(0, (1, 2)),
                    label="chance (recall = fallout)")
            ax.set_xlim(x0, x1)
            ax.set_ylim(y0, y1)
            fig.canvas.draw()                           # lay out: the axes' final size
            box = ax.get_window_extent()
            pts = 72.0 / fig.dpi
            for axis, lo, hi, length, across in ((ax.xaxis, x0, x1, box.width * pts, True),
                                                 (ax.yaxis, y0, y1, box.height * pts, False)):
                ticks = _probability_ticks(float(ndtr(lo)), float(ndtr(hi)), length, across,
                                           STYLE["xtick.labelsize"])
                axis.set_ticks(ndtri(np.array(ticks)), labels=[_fmt_p(p) for p in ticks])
            ax.set_xlabel("Fallout (normal-deviate scale)")
            ax.set_ylabel("Recall (normal-deviate scale)")
            ax.plot([], [], color="#555555", linewidth=0.8, linestyle=":",
                    label="fitted line z(R) = a + s\u00b7z(F)")
        else:
            hi = float(xall.max()) if len(xall) else 1.0
            d = np.array([0.0, max(hi, 1e-9)])
            ax.plot(d, d, color="#8c8c8c", linewidth=0.9, linestyle=(0, (1, 2)),
                    label="chance (recall = fallout)")
            ax.set_xlim(0, max(hi * 1.05, 1e-9))
            ax.set_ylim(0, 1.02)
            ax.set_xlabel("Fallout")
            ax.set_ylabel("Recall")
        _legend(ax, loc="lower right")
        _title(fig, ax, title)
    return fig


def diff_figure(mag, name_a: str, name_b: str, measure: str, *, equal: int = 0,
                title: str | None = None, size: tuple[float, float] = (5.0, 3.6)):
    """Keen's magnitude-difference plot (Fig. 36) of two runs on one measure.

    ``mag`` is :func:`smarteval.stats.merit.magnitudes` with run A as the baseline and run B
    as the run: ``mag.worse`` are the queries A wins, ``mag.better`` those B wins, each
    largest first. Each side is drawn as a line over its queries 1, 2, ...; the areas
    under the two lines are the two sides' summed differences, so equal areas mean equal
    means, and the longer line is the run more queries prefer.
    """
    fig = _new_figure(size)
    sides = ((name_a, np.asarray(mag.worse)), (name_b, np.asarray(mag.better)))
    n = len(sides[0][1]) + len(sides[1][1]) + equal
    with _style():
        ax = fig.add_subplot()
        for i, (name, vals) in enumerate(sides):
            look = _look(i)
            share = 100.0 * len(vals) / n if n else 0.0
            noun = "query" if len(vals) == 1 else "queries"
            label = f"{len(vals)} {noun} better on {name} ({share:.1f}%)"
            x = np.arange(1, len(vals) + 1)
            if len(vals):
                ax.fill_between(x, vals, color=look["color"], alpha=0.12, linewidth=0,
                                step=None)
            ax.plot(x, vals, label=label, markersize=3.5 if len(vals) <= 60 else 0, **look)
        if equal:
            ax.plot([], [], " ", label=f"{equal} {'query' if equal == 1 else 'queries'} equal")
        ax.set_xlim(left=0.5 if n else 0, right=max(len(sides[0][1]), len(sides[1][1]), 1) + 0.5)
        ax.set_ylim(bottom=0)
        ax.margins(y=0.05)
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("Queries favouring each run, largest difference first")
        ax.set_ylabel(f"Difference in {measure}")
        means = f"mean {measure}: {name_a} {mag.mean_base:.4f}, {name_b} {mag.mean_run:.4f}"
        _legend(ax, loc="upper right", title=means, title_fontsize=8, alignment="right")
        _title(fig, ax, title)
    return fig


def first_rel_figure(counts: np.ndarray, labels: Sequence[str], names: Sequence[str], *,
                     queries: Sequence[int] | None = None, title: str | None = None,
                     size: tuple[float, float] | None = None):
    """Number of queries by the rank of their first relevant document (Keen Fig. 33).

    ``counts`` is runs × ranges (:func:`smarteval.plot.data.first_rel_data`); bars of one
    range stand side by side, one per run, each with its count above it.
    """
    counts = np.asarray(counts)
    runs, bins = counts.shape
    if size is None:
        size = (min(7.5, max(4.6, 1.6 + 0.22 * bins * runs)), 3.6)
    fig = _new_figure(size)
    hatches = ("", "////", "....", "xxxx", "\\\\\\\\", "oo", "++", "--")
    with _style():
        ax = fig.add_subplot()
        width = 0.8 / max(runs, 1)
        centres = np.arange(bins)
        for i in range(runs):
            x = centres - 0.4 + width * (i + 0.5)
            bars = ax.bar(x, counts[i], width=width * 0.92, color=COLOURS[i % len(COLOURS)],
                          hatch=hatches[i % len(hatches)], edgecolor="white", linewidth=0.5,
                          label=names[i])
            ax.bar_label(bars, labels=[str(int(c)) for c in counts[i]], fontsize=6.5,
                         padding=1.5)
        ax.set_xticks(centres, labels=list(labels))
        ax.set_xlabel("Rank of the first relevant document")
        ax.set_ylabel("Queries")
        ax.grid(axis="x", visible=False)
        from matplotlib.ticker import MaxNLocator
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, max(int(counts.max(initial=0)), 1) * 1.15)
        if queries is not None and len(set(queries)) == 1:
            ax.plot([], [], " ", label=f"{queries[0]} queries with a relevant document")
        _legend(ax, loc="upper right")
        _title(fig, ax, title)
    return fig


def asl_figure(results: Sequence, *, title: str | None = None,
               size: tuple[float, float] = (5.0, 3.6)):
    """Sakai's ASL curves: each measure's achieved significance levels over the pairs of
    runs, sorted, one line per measure, with alpha marked; the further a curve stays below
    alpha, the more pairs the measure tells apart."""
    fig = _new_figure(size)
    with _style():
        ax = fig.add_subplot()
        for i, r in enumerate(results):
            asl = r.curve()
            x = np.arange(1, len(asl) + 1)
            ax.plot(x, asl, label=f"{r.measure} ({r.significant} of {len(asl)} below "
                                  f"\u03b1)", markersize=3 if len(asl) <= 60 else 0,
                    **_look(i))
        if results:
            alpha = results[0].alpha
            ax.axhline(alpha, color="0.4", linewidth=0.8, linestyle=":")
            ax.annotate(f"\u03b1 = {alpha:g}", (1, alpha), xytext=(2, 2),
                        textcoords="offset points", fontsize=7, color="0.3")
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(left=0.5)
        ax.set_ylim(0, 1)
        ax.set_xlabel("Pairs of runs, by ASL")
        ax.set_ylabel("Achieved significance level")
        _legend(ax, loc="upper left")
        _title(fig, ax, title)
    return fig
