"""Pictures of an evaluation (the ``plot`` extra): precision-recall curves, Swets' operating
characteristic, Keen's magnitude-difference plot and the rank of the first relevant document.

Every ``*_figure`` function takes numbers already computed (curves, per-query arrays)
and returns a :class:`matplotlib.figure.Figure`; :func:`save` writes it as PNG, SVG or
PDF. matplotlib is imported only inside these functions, and figures are built with the
object-oriented API on an Agg canvas, never through pyplot: no global backend is
switched and nothing is shown on a screen.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from typing import Sequence

import numpy as np

from smarteval.columns import Ranked
from smarteval.errors import SmartevalError, UsageError

KINDS = ("pr", "pr-queries", "oc", "diff", "first-rel")
FORMATS = ("png", "svg", "pdf")
INSTALL_HINT = "pip install 'smarteval[plot]' (or pip install matplotlib)"

#: Colour-blind-safe colours (Okabe & Ito; grey for their yellow, faint on white), each run
#: also with its own dash and marker so that a greyscale print still tells the runs apart.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#8C8C8C")
DASHES = ("-", "--", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (3, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

STYLE = {
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

METHOD_TITLES = {"semi": "Semi-Cranfield", "quasi": "Quasi-Cranfield",
                 "pseudo": "Pseudo-Cranfield"}


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


def save(fig, path: str, *, dpi: int = 200) -> None:
    """Write ``fig`` to ``path`` atomically (temporary file, then rename), without timestamps."""
    fmt = output_format(path)
    metadata = {"png": {"Software": None}, "svg": {"Date": None},
                "pdf": {"CreationDate": None, "Producer": None}}[fmt]
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".smarteval-", suffix="." + fmt, dir=directory)
    except OSError as exc:
        raise SmartevalError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())    # mkstemp makes 0600; a new file gets 0666 - umask
        with os.fdopen(fd, "wb") as fh, _style():
            fig.savefig(fh, format=fmt, dpi=dpi, metadata=metadata)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise SmartevalError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


def _wrap(fig, title: str, fontsize: float) -> str:
    """The title broken into lines no wider than the figure (about 0.55 em a character)."""
    import textwrap
    width = max(20, int(fig.get_figwidth() * 72 / (0.55 * fontsize)) - 4)
    return textwrap.fill(title, width)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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


# --------------------------------------------------------------------------- data

def best_possible(r: Ranked) -> Ranked:
    """The same queries ranked perfectly: every relevant document first, best grade first.

    Its curve is Keen's "theoretical best possible curve for a given set of requests"
    (Fig. 14a): with the Pseudo-Cranfield method a query with 3 relevant documents
    cannot keep precision 1 past 3 documents, so the best curve falls below 1.
    """
    keep = r.qrel_grades >= r.rel_level          # relevant grades open each query's segment
    counts = r.num_rel.astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    grades = r.qrel_grades[keep]
    score = -np.arange(len(grades), dtype=np.float64)
    docno = np.array([b"ideal"] * len(grades), dtype="S5")
    return replace(r, offsets=offsets, rel=grades, score=score, docno=docno, tie_key=None)


def first_relevant_ranks(r: Ranked) -> np.ndarray:
    """(Q,) rank of each query's first relevant document; inf if none retrieved, NaN if R = 0."""
    out = np.full(r.num_queries, np.inf)
    rows = np.flatnonzero(r.is_rel & (r.rel_so_far == 1))
    out[r.qindex[rows]] = r.rank[rows]
    out[r.num_rel == 0] = np.nan
    return out


def parse_ranges(text: str) -> tuple[int, ...]:
    """``--ranges 1,3,10`` -> the upper ends of the rank ranges 1, 2-3, 4-10 (increasing)."""
    try:
        edges = tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        edges = ()
    if not edges or any(e <= 0 for e in edges) or list(edges) != sorted(set(edges)):
        raise UsageError(f"--ranges takes increasing positive ranks, e.g. 1,3,10,30,100; "
                         f"not {text!r}")
    return edges


def range_labels(edges: Sequence[int]) -> list[str]:
    """Labels of the ranges ending at ``edges``, then ``over`` the last and ``none``."""
    labels, lo = [], 1
    for e in edges:
        labels.append(str(e) if e == lo else f"{lo}\u2013{e}")
        lo = e + 1
    return labels + [f"> {edges[-1]}", "none\nretrieved"]


def first_relevant_counts(ranks: np.ndarray, edges: Sequence[int]) -> np.ndarray:
    """Number of queries whose first relevant rank falls in each range (NaN ranks skipped).

    By example: ranks=[1, 2, 7, inf, nan], edges=(1, 5)  ->  [1, 1, 1, 1]
    (1 | 2-5 | over 5 | none retrieved).
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    ranks = ranks[~np.isnan(ranks)]
    finite = ranks[np.isfinite(ranks)]
    idx = np.searchsorted(np.asarray(edges, dtype=np.float64), finite, side="left")
    counts = np.bincount(idx, minlength=len(edges) + 1)[:len(edges) + 1]
    return np.concatenate((counts, [np.count_nonzero(np.isinf(ranks))])).astype(np.int64)


# --------------------------------------------------------------------------- figures

def _curve_x(curve) -> np.ndarray:
    return curve.recall if curve.recall is not None else curve.levels


def _pr_axes(ax) -> None:
    ax.set_xlim(0, 1.0)
    ax.set_ylim(0, 1.02)
    ax.set_xticks(np.linspace(0, 1, 6))
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_xlabel("Recall")
    ax.set_ylabel("Precision")


def curve_method(curve) -> str:
    """The curve method in words: "Quasi-Cranfield (highest point of each step, ...)"."""
    method = METHOD_TITLES.get(curve.method, curve.method)
    if curve.method == "quasi":
        method += f" ({curve.step} point of each step, left end {curve.left})"
    return method


def curve_title(curve, queries: int | None = None) -> str:
    """Method, averaging and query count of a curve, as a figure title."""
    avg = {"macro": "macro average (mean)", "micro": "micro average",
           "median": "median"}[curve.average]
    over = f" of {queries} queries" if queries is not None else ""
    return f"{curve_method(curve)}: {avg}{over}"


#: Up to this many runs, Pseudo-Cranfield curves carry their documents examined by default.
EXAMINED_RUNS = 3


def pr_figure(curves: Sequence, names: Sequence[str], *, best=None,
              examined: bool | None = None,
              title: str | None = None, size: tuple[float, float] = (5.0, 3.8)):
    """Precision against recall, one line per run (``curves`` from :mod:`smarteval.curves`).

    ``best`` is the curve of :func:`best_possible`, drawn dotted. On Pseudo-Cranfield
    curves ``examined`` writes beside each point the number of documents examined to
    reach it (Keen Fig. 14a's x^L); by default (None) for up to three runs, past which the
    numbers would crowd each other.
    """
    if examined is None:
        examined = len(curves) <= EXAMINED_RUNS
    fig = _new_figure(size)
    with _style():
        ax = fig.add_subplot()
        labels = []
        for i, (curve, name) in enumerate(zip(curves, names)):
            x, y = _curve_x(curve), curve.precision
            ok = np.isfinite(x) & np.isfinite(y)
            ax.plot(x[ok], y[ok], label=name, **_look(i))
            if examined and curve.examined is not None:
                for xi, yi, ni in zip(x[ok], y[ok], curve.examined[ok]):
                    labels.append((xi, yi, _count(ni), COLOURS[i % len(COLOURS)]))
        if best is not None:
            x, y = _curve_x(best), best.precision
            ok = np.isfinite(x) & np.isfinite(y)
            ax.plot(x[ok], y[ok], color="black", linestyle=":", linewidth=1.4,
                    label="best possible")
        _pr_axes(ax)
        if labels:
            ax.plot([], [], " ", label="numbers: documents examined")
        _legend(ax, loc="best")
        _title(fig, ax, title)
        if labels:
            place_labels(fig, ax, labels)
    return fig


def _count(n: float) -> str:
    """Documents examined, as Keen writes them: whole numbers, one decimal below 10."""
    return f"{n:.0f}" if n >= 9.95 else f"{n:.1f}".rstrip("0").rstrip(".")


def place_labels(fig, ax, labels, fontsize: float = 6.5) -> None:
    """Write small labels beside points where they cover no line, marker, legend or label.

    ``labels`` holds (x, y, text, colour) in data coordinates. Each label tries eight
    positions around its point, near then far, and takes the one covering the fewest
    obstacles; the figure is laid out first so that the positions are final.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData
    pts_per_px = 72.0 / fig.dpi
    # obstacles: the drawn lines sampled every few pixels, the legend box, the axes edge
    obstacles = []
    for line in ax.get_lines():
        xy = line.get_xydata()
        if len(xy) == 0 or line.get_linestyle() in ("None", " ", ""):
            if len(xy):
                obstacles.append(to_px.transform(xy))
            continue
        px = to_px.transform(xy)
        for a, b in zip(px[:-1], px[1:]):
            k = max(2, int(np.hypot(*(b - a)) / 2))
            obstacles.append(a + (b - a) * np.linspace(0, 1, k)[:, None])
        obstacles.append(px)
    obstacles = np.concatenate(obstacles) if obstacles else np.zeros((0, 2))
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
        best = None
        for reach in (1.0, 2.2):
            for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1), (0, 1), (0, -1), (1, 0), (-1, 0)):
                cx = px + dx * (gap * reach + w / 2)
                cy = py + dy * (gap * reach + h / 2)
                box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
                inside = ((obstacles[:, 0] > box[0] - 1) & (obstacles[:, 0] < box[2] + 1)
                          & (obstacles[:, 1] > box[1] - 1) & (obstacles[:, 1] < box[3] + 1))
                cost = int(inside.sum())
                cost += 1000 * sum(_overlap(box, o) for o in boxes)
                if box[0] < frame.x0 or box[2] > frame.x1 or box[1] < frame.y0 \
                        or box[3] > frame.y1:
                    cost += 10_000
                cost += 0.5 * (reach > 1)             # prefer near when equally clear
                if best is None or cost < best[0]:
                    best = (cost, box, cx, cy)
        _, box, cx, cy = best
        boxes.append(box)
        ax.annotate(text, (x, y), xytext=((cx - px) * pts_per_px, (cy - py) * pts_per_px),
                    textcoords="offset points", ha="center", va="center", fontsize=fontsize,
                    color=colour)


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
        for ax, (name, mean, median) in zip(axes.flat, panels):
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
        for i, (oc, name) in enumerate(zip(ocs, names)):
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

    ``mag`` is :func:`smarteval.compare.magnitudes` with run A as the baseline and run B
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

    ``counts`` is runs × ranges (:func:`first_relevant_counts`); bars of one range stand
    side by side, one per run, each with its count above it.
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
