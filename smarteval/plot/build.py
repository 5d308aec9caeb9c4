"""One call from a kind of plot, the qrels and the runs to a figure or an image file.

:func:`figure` checks the options (before any file is read), ranks the runs by the one
evaluation path (:func:`smarteval.curves.curve_rankings`, or
:func:`~smarteval.evaluation.evaluate` for ``diff``), computes the numbers with
:mod:`smarteval.plot.data` and draws them with :mod:`smarteval.plot.draw`;
:func:`image` gives the figure as the bytes of an image file (written by
:mod:`smarteval.output`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from smarteval.curves import curve_rankings
from smarteval.errors import UsageError
from smarteval.evaluation import as_qrels, check_runs, run_names
from smarteval.numerals import decimal, pieces
from smarteval.plot import KINDS, draw
from smarteval.plot import data as D
from smarteval.settings import Settings

if TYPE_CHECKING:
    from smarteval.columns import Qrels
    from smarteval.evaluation import RunInfo

#: Options that mean something for some kinds only: option -> (its flags, those kinds).
KIND_OPTIONS = {
    "measures": ("-m/--measure", ("diff", "asl")),
    "test": ("--test", ("asl",)),
    "alpha": ("--alpha", ("asl",)),
    "samples": ("--samples", ("asl",)),
    "tolerance": ("--tolerance", ("diff",)),
    "method": ("--method", ("pr", "pr-queries")),
    "step": ("--step", ("pr", "pr-queries")),
    "left": ("--left", ("pr", "pr-queries")),
    "levels": ("--levels", ("pr", "pr-queries", "fallout")),
    "full": ("--full", ("pr", "pr-queries")),
    "cluster_end": ("--cluster-end", ("pr", "pr-queries")),
    "cutoffs_from": ("--cutoffs-from", ("pr",)),
    "target_generality": ("--target-generality", ("pr",)),
    "best": ("--best", ("pr", "characteristic", "fallout")),
    "examined": ("--examined/--no-examined", ("pr", "fallout")),
    "scale": ("--scale", ("oc",)),
    "ranges": ("--ranges", ("first-rel",)),
}


@dataclass(frozen=True)
class PlotOptions:
    """What to draw and how: ``smarteval plot``'s options, by their parameter names."""

    kind: str = "pr"
    measures: Sequence[str] = ()            # diff: the one measure compared (default map);
    #                                         asl: the measures (default map, P.10, ndcg_cut.10)
    test: str = "randomized-tukey"          # asl: discriminative power's test
    alpha: float = 0.05                     # asl
    samples: int = 10000                    # asl: permutations or sign assignments
    method: str = "semi"                    # pr, pr-queries: as smarteval curve
    average: str = "macro"                  # pr, oc, characteristic, fallout
    step: str | None = None
    left: str | None = None
    levels: str | Sequence[float] | None = None
    full: object = None                     # pr, pr-queries with --method cluster
    cluster_end: str | None = None          # the same: past the recall ceiling
    cutoffs_from: object = None             # pr: Keen part 7's set-retrieval run
    best: bool = False                      # pr, characteristic, fallout: the best curve
    examined: bool | None = None            # pr, cut-off methods: labels beside points
    scale: str = "normal"                   # oc: normal-deviate or linear axes
    ranges: str | Sequence[int] = "1,3,10,30,100"     # first-rel
    tolerance: float = 0.0                  # diff: differences this small count as equal
    title: str | None = None                # None: a description of what is drawn
    size: str | tuple[float, float] | None = None     # inches, "5,3.8" or (5, 3.8)

    @property
    def curve(self) -> D.CurveOptions:
        return D.CurveOptions(method=self.method, average=self.average, step=self.step,
                              left=self.left, levels=self.levels, full=self.full,
                              end=self.cluster_end, cutoffs_from=self.cutoffs_from)


def check_kind_options(kind: str, given: Collection[str]) -> None:
    """An option ``given`` for a kind that ignores it is a usage error, not silently dropped."""
    if kind not in KINDS:
        raise UsageError(f"--kind must be one of {', '.join(KINDS)}, not {kind!r}")
    for param, (flag, kinds) in KIND_OPTIONS.items():
        if param in given and kind not in kinds:
            listed = kinds[0] if len(kinds) == 1 else \
                f"{', '.join(kinds[:-1])} and {kinds[-1]}"
            raise UsageError(f"{flag} applies to --kind {listed}, not to --kind {kind}")


def parse_size(size: str | Sequence[float] | None) -> tuple[float, float] | None:
    """``--size 5,3.8`` (or ``5x3.8``) as (width, height) in inches, each in (0, 50]."""
    if size is None:
        return None
    try:
        if isinstance(size, str):
            w, h = (decimal(x) for x in pieces(size, ",xX"))
        else:
            w, h = (float(x) for x in size)
        if w <= 0 or h <= 0 or w > 50 or h > 50:
            raise ValueError
    except ValueError:
        raise UsageError(f"--size takes WIDTH,HEIGHT in inches, e.g. 5,3.8; not {size!r}") \
            from None
    return (w, h)


def _check(opts: PlotOptions, runs: list, given: Collection[str], settings: Settings) -> dict:
    """Every option checked before a file is read; the figure's size keyword."""
    check_kind_options(opts.kind, given)
    size = parse_size(opts.size)
    if opts.kind == "diff":
        D.check_diff(opts.measures, len(runs))
        if not opts.tolerance >= 0:                 # NaN too
            raise UsageError(f"--tolerance must be a number of 0 or more, not {opts.tolerance}")
    check_runs(runs)
    G = settings.target_generality
    if opts.kind == "pr":
        D.check_pr(opts.curve, G)
    elif opts.kind == "pr-queries":
        D.check_pr_queries(opts.curve, G)
    elif opts.kind == "oc":
        D.check_oc(opts.average)
    elif opts.kind in ("characteristic", "fallout"):
        from smarteval.curves import check_options, method_levels
        check_options(opts.kind, None, None, opts.average)
        if opts.kind == "fallout":
            method_levels("fallout", opts.levels)
    elif opts.kind == "first-rel" and isinstance(opts.ranges, str):
        D.parse_ranges(opts.ranges)
    return {} if size is None else {"size": size}


def _one(qrels, run, settings: Settings):
    """A single extra run (the full search, the set-retrieval run) ranked, and its name."""
    ((info, ranked),) = curve_rankings(qrels, [run], settings)
    return ranked, run_names([info])[0]


#: The pr curve methods that write numbers beside their points (documents examined;
#: Rocchio's curve its n): what --examined switches.
EXAMINED_METHODS = ("pseudo", "points", "adjusted", "cnr")


@dataclass(frozen=True, eq=False)
class Drawn:
    """A figure, with what it was drawn from: the qrels read and each run's queries
    evaluated (those whose judgements count at ``-l``; none for a measure that does not
    look at relevance)."""

    figure: Any
    qrels: Qrels
    qids: tuple[np.ndarray, ...]


def figure(qrels, runs, settings: Settings | None = None, options: PlotOptions | None = None,
           *, given: Collection[str] = ()):
    """The matplotlib figure of ``options.kind`` for ``runs`` (paths or read) against ``qrels``.

    ``given`` names the options the user set: one that ``options.kind`` ignores is a
    :class:`UsageError` (see :data:`KIND_OPTIONS`).
    """
    return drawn(qrels, runs, settings, options, given=given).figure


def drawn(qrels, runs, settings: Settings | None = None, options: PlotOptions | None = None,
          *, given: Collection[str] = (),
          on_run: Callable[[RunInfo], None] | None = None) -> Drawn:
    """:func:`figure` with the qrels and queries it was drawn from; ``on_run`` is called
    with each of ``runs``' info once it is ranked (progress)."""
    draw.require_matplotlib()
    opts = options or PlotOptions()
    settings = settings or Settings()
    runs = list(runs) if isinstance(runs, (list, tuple)) else [runs]
    kw = _check(opts, runs, given, settings)

    def titled(auto: str) -> str:
        return auto if opts.title is None else opts.title

    qrels = as_qrels(qrels)
    if opts.kind == "asl":
        a = D.asl_data(qrels, runs, opts.measures, settings, test=opts.test, alpha=opts.alpha,
                       samples=opts.samples, seed=settings.seed, on_run=on_run)
        return Drawn(draw.asl_figure(a.results, title=titled(a.title), **kw), qrels, ())
    if opts.kind == "diff":
        d = D.diff_data(qrels, runs, opts.measures, settings, opts.tolerance, on_run=on_run)
        return Drawn(draw.diff_figure(d.mag, d.name_a, d.name_b, d.measure, equal=d.equal,
                                      title=titled(d.title), **kw), qrels, d.qids)
    infos, ranked = [], []
    for info, r in curve_rankings(qrels, runs, settings):
        infos.append(info)
        ranked.append(r)
        if on_run is not None:
            on_run(info)
    qids = tuple(r.qids for r in ranked)
    return Drawn(_curves_figure(qrels, ranked, run_names(infos), settings, opts, titled, kw),
                 qrels, qids)


def _curves_figure(qrels, ranked: list, names: list[str], settings: Settings,
                   opts: PlotOptions, titled, kw: dict):
    """The figure of every kind but ``diff``, from the ranked runs."""
    full, full_name = _one(qrels, opts.full, settings) if opts.full is not None else (None, "")
    if opts.kind == "pr":
        other, other_name = _one(qrels, opts.cutoffs_from, settings) \
            if opts.cutoffs_from is not None else (None, "")
        pr = D.pr_data(ranked, names, opts.curve, best=opts.best, full=full,
                       full_name=full_name, other=other, other_name=other_name)
        return draw.pr_figure(pr.curves, pr.names, best=pr.best, examined=opts.examined,
                              title=titled(pr.title), full=pr.full, full_name=pr.full_name,
                              points=pr.points, other=pr.other, other_name=pr.other_name,
                              reach=pr.reach, **kw)
    if opts.kind == "pr-queries":
        pq = D.pr_queries_data(ranked, names, opts.curve, full=full)
        return draw.pr_queries_figure(pq.panels, title=titled(pq.title), **kw)
    if opts.kind == "characteristic":
        ch = D.characteristic_data(ranked, names, opts.average, best=opts.best)
        return draw.characteristic_figure(ch.curves, ch.names, best=ch.best,
                                          num_docs=ch.num_docs, title=titled(ch.title), **kw)
    if opts.kind == "fallout":
        fo = D.fallout_data(ranked, names, opts.curve, best=opts.best)
        # the documents examined crowd where the curves meet near fallout 1: asked for only
        return draw.pr_figure(fo.curves, fo.names, best=fo.best, examined=bool(opts.examined),
                              title=titled(fo.title), reach=fo.reach, **kw)
    if opts.kind == "oc":
        oc = D.oc_data(ranked, names, opts.average)
        return draw.oc_figure(oc.ocs, oc.names, scale=opts.scale, title=titled(oc.title), **kw)
    fr = D.first_rel_data(ranked, names, opts.ranges)
    return draw.first_rel_figure(fr.counts, fr.labels, fr.names, queries=fr.queries,
                                 title=titled(fr.title), **kw)


def image(path: str, qrels, runs, settings: Settings | None = None,
          options: PlotOptions | None = None, *, given: Collection[str] = (),
          dpi: int = 200) -> bytes:
    """:func:`figure` as the bytes of the image file ``path`` names (.png, .svg or .pdf).

    matplotlib and the image format are checked first, before any file is read.
    """
    return picture(path, qrels, runs, settings, options, given=given, dpi=dpi)[0]


def picture(path: str, qrels, runs, settings: Settings | None = None,
            options: PlotOptions | None = None, *, given: Collection[str] = (),
            dpi: int = 200, on_run: Callable[[RunInfo], None] | None = None
            ) -> tuple[bytes, Drawn]:
    """:func:`image`'s bytes and the :class:`Drawn` figure they show (``on_run`` as in
    :func:`drawn`)."""
    draw.require_matplotlib()
    fmt = draw.output_format(path)
    d = drawn(qrels, runs, settings, options, given=given, on_run=on_run)
    return draw.image(d.figure, fmt, dpi=dpi), d
