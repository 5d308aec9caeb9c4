"""The numbers each kind of plot shows, and their titles: everything but matplotlib.

Each kind has a function from ranked runs (or, for ``diff``, from the qrels and two runs)
to a small record of what :mod:`smarteval.plot.draw` needs, its automatic title included.
Option checks that need no run (``check_*``) raise :class:`UsageError` before any file
is read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from smarteval.columns import Ranked
from smarteval.curves import METHOD, Curve, Point, check_options, method_levels, precision_curve
from smarteval.errors import UsageError
from smarteval.numerals import pieces, whole
from smarteval.settings import Settings

if TYPE_CHECKING:
    from smarteval.evaluation import RunInfo
    from smarteval.measures.swets import OperatingCharacteristic
    from smarteval.stats import Magnitudes

# --------------------------------------------------------------------------- precision-recall


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


def list_reach(r: Ranked, average: str, points: bool = False) -> float:
    """The recall each query's own list reaches (its relevant documents retrieved over
    its relevant documents; with ``points``, their relevance points), averaged as the
    curve is (macro: the mean, micro: pooled, median), over the queries with any.

    A curve's points past it are not the run's: with N known, its unretrieved relevant
    documents are placed by ``--unranked`` (expected: uniformly over the ranks past the
    list; worst: at the last ranks); without N they are never found (precision 0)."""
    from smarteval.columns import segment_sum
    from smarteval.measures.gains import relevant_gains
    if points:
        row, qrel, _ = relevant_gains(r)
        found = segment_sum(row, r.offsets)
        total = np.bincount(r.qrel_qindex, weights=qrel, minlength=r.num_queries)
    else:
        found = segment_sum(r.is_rel, r.offsets).astype(np.float64)
        total = r.num_rel.astype(np.float64)
    some = total > 0
    if not some.any():
        return 0.0
    if average == "micro":
        return float(found[some].sum() / total[some].sum())
    share = found[some] / total[some]
    return float(np.median(share) if average == "median" else share.mean())


@dataclass(frozen=True)
class Reach:
    """Where each run's curve stops being the run's own (:func:`list_reach`, one per
    curve) and what lies past it, in words for the figure's legend."""

    recall: list[float]
    words: str


def reach_of(ranked: Sequence[Ranked], method: str, average: str) -> Reach | None:
    """The :class:`Reach` of ``ranked``'s curves by ``method`` (None for the methods whose
    points are not read along a list's recall: the precision levels, Rocchio's curve)."""
    if method in ("precision", "cnr", "cluster") or not ranked:
        return None
    from smarteval.curves.base import known_n
    recall = [list_reach(r, average, points=method == "points") for r in ranked]
    r = ranked[0]
    if known_n(r):
        n = f"N = {r.num_docs}" if r.num_docs is not None else "each query's N"
        words = f"past the recall of the run's lists:\n--unranked {r.settings.unranked}, {n}"
    else:
        words = "past the recall of the run's lists:\nnot found without -N"
    return Reach(recall, words)


def curve_method(curve: Curve) -> str:
    """The curve method in words: "Quasi-Cranfield (highest point of each step, ...)"."""
    m = METHOD.get(curve.method)
    method = m.title if m is not None else curve.method
    if curve.method == "quasi":
        method += f" ({curve.step} point of each step, left end {curve.left})"
    elif curve.method == "cluster":
        end = {"extrapolate": "extrapolated", "join": "joined to the full search",
               "none": "left out"}[curve.end]
        method += (f", Quasi-Cranfield ({curve.step} point of each step, left end "
                   f"{curve.left}; {end} past the ceiling)")
    elif m is not None and (curve.method != "pseudo" and m.title == "Pseudo-Cranfield"):
        method += {"points": " over relevance points", "fallout": " fallout",
                   "adjusted": f" precision adjusted to generality {curve.generality:g}"
                   if curve.generality is not None else ""}.get(curve.method, "")
    return method


def curve_title(curve: Curve, queries: int | None = None) -> str:
    """Method, averaging and query count of a curve, as a figure title."""
    avg = {"macro": "macro average (mean)", "micro": "micro average",
           "median": "median"}[curve.average]
    over = f" of {queries} queries" if queries is not None else ""
    return f"{curve_method(curve)}: {avg}{over}"


@dataclass(frozen=True)
class CurveOptions:
    """How the curves of ``pr`` and ``pr-queries`` are made (as ``smarteval curve``)."""

    method: str = "semi"
    average: str = "macro"
    step: str | None = None
    left: str | None = None
    levels: str | Sequence[float] | None = None
    full: object = None              # cluster: the full-search run
    end: str | None = None           # cluster: --cluster-end
    cutoffs_from: object = None      # Keen part 7: the set-retrieval run


#: Methods the pr kind cannot draw, and the kind that does.
_OTHER_KIND = {"characteristic": "characteristic", "fallout": "fallout"}


def check_pr(opts: CurveOptions, generality: float | None = None) -> tuple[float, ...]:
    """The levels of a ``pr`` plot, its options checked."""
    if opts.method in _OTHER_KIND:
        raise UsageError(f"--kind pr draws precision against recall; the {opts.method} curve "
                         f"is --kind {_OTHER_KIND[opts.method]}")
    if opts.cutoffs_from is not None and opts.method == "cluster":
        raise UsageError("--cutoffs-from marks each run's pair on its curve; the cluster "
                         "curve's runs are cluster searches: draw the pairs over another method")
    check_options(opts.method, opts.step, opts.left, opts.average, full=opts.full,
                  end=opts.end, generality=generality)
    return method_levels(opts.method, opts.levels)


def check_pr_queries(opts: CurveOptions, generality: float | None = None) -> tuple[float, ...]:
    """The recall levels of a ``pr-queries`` plot, its options checked."""
    if opts.method not in ("semi", "quasi", "cluster"):
        raise UsageError(f"--kind pr-queries draws each query's curve at the recall levels, "
                         f"which the {opts.method} method does not keep (it averages first, "
                         "or has other levels): use --method semi, quasi or cluster")
    if opts.average != "macro":
        raise UsageError("--kind pr-queries draws both the mean and the median; "
                         "--average does not apply")
    if opts.cutoffs_from is not None:
        raise UsageError("--cutoffs-from applies to --kind pr")
    return check_pr(opts, generality)


def _curve(r: Ranked, levels, opts: CurveOptions, average: str | None = None,
           full: Ranked | None = None, method: str | None = None) -> Curve:
    return precision_curve(r, levels, method=method or opts.method,
                           step=opts.step or "highest", left=opts.left,
                           average=average or opts.average, full=full,
                           end=opts.end if (method or opts.method) == "cluster" else None)


@dataclass(frozen=True, eq=False)
class PrData:
    """One averaged curve per run, the best possible curve if asked for, and a title.

    For the cluster method, the full search's own quasi curve (``full``); with
    ``--cutoffs-from``, each run's pair at the other system's set sizes (``points``)
    and that system's own pair (``other``), Keen part 7.
    """

    curves: list[Curve]
    names: list[str]
    best: Curve | None
    title: str
    full: Curve | None = None
    full_name: str = ""
    points: list[Point] | None = None
    other: Point | None = None
    other_name: str = ""
    reach: Reach | None = None


def pr_data(ranked: Sequence[Ranked], names: Sequence[str], opts: CurveOptions, *,
            best: bool = False, full: Ranked | None = None, full_name: str = "",
            other: Ranked | None = None, other_name: str = "") -> PrData:
    """The curves of a ``pr`` plot; ``best`` adds the first run's best possible curve.

    ``full`` is the ranked full search of the cluster method, ``other`` the ranked
    set-retrieval run of ``--cutoffs-from``.
    """
    from smarteval.curves.matched import matched, own_point, set_sizes
    G = ranked[0].settings.target_generality if ranked else None
    levels = check_pr(opts, G)
    curves = [_curve(r, levels, opts, full=full) for r in ranked]
    if best:
        # the best ranking of every query is its own full search: a cluster curve's best
        # is the quasi curve of the ideal ranking
        method = "quasi" if opts.method == "cluster" else None
        ideal = _curve(best_possible(ranked[0]), levels, opts, method=method)
    else:
        ideal = None
    full_curve = _curve(full, levels, opts, method="quasi") if full is not None else None
    nq = {r.num_queries for r in ranked}
    title = curve_title(curves[0], nq.pop() if len(nq) == 1 else None)
    points = own = None
    if other is not None:
        points = [matched(r, set_sizes(r, other), opts.average) for r in ranked]
        own = own_point(ranked[0], other, opts.average)
    return PrData(curves=curves, names=list(names), best=ideal, title=title, full=full_curve,
                  full_name=full_name, points=points, other=own, other_name=other_name,
                  reach=reach_of(ranked, opts.method, opts.average))


@dataclass(frozen=True, eq=False)
class PrQueriesData:
    """Per run ``(name, mean curve, median curve)``; the mean carries every query's curve."""

    panels: list[tuple[str, Curve, Curve]]
    title: str


def pr_queries_data(ranked: Sequence[Ranked], names: Sequence[str],
                    opts: CurveOptions, full: Ranked | None = None) -> PrQueriesData:
    """Every query's curve behind the mean and the median, one panel per run."""
    G = ranked[0].settings.target_generality if ranked else None
    levels = check_pr_queries(opts, G)
    panels = [(name, _curve(r, levels, opts, "macro", full=full),
               _curve(r, levels, opts, "median", full=full))
              for r, name in zip(ranked, names, strict=True)]
    title = f"Each query's curve: {curve_method(panels[0][1])}"
    if len(panels) == 1:
        title = f"{names[0]}, {ranked[0].num_queries} queries: {curve_method(panels[0][1])}"
    return PrQueriesData(panels=panels, title=title)


# --------------------------------------------------------------------------- Keen Fig. 26a, 28b

@dataclass(frozen=True, eq=False)
class CutoffData:
    """The performance characteristic (or the fallout curve) of each run, and a title."""

    curves: list[Curve]
    names: list[str]
    best: Curve | None
    title: str
    num_docs: int | None = None      # characteristic: N, for the cut-off ratio axis
    reach: Reach | None = None       # fallout: where each run's own recall ends


def characteristic_data(ranked: Sequence[Ranked], names: Sequence[str], average: str = "macro",
                        *, best: bool = False) -> CutoffData:
    """Relevance points found at every cut-off 1..D (Keen Fig. 26a), D the longest list
    (or the largest R, so that the best possible curve reaches 1)."""
    from smarteval.curves.cutoffs import characteristic
    check_options("characteristic", None, None, average)
    depth = max(max(int(r.num_ret.max(initial=0)), int(r.num_rel.max(initial=0)))
                for r in ranked)
    if ranked[0].num_docs is not None:
        depth = min(depth, int(ranked[0].num_docs))
    n = np.arange(1, max(depth, 1) + 1)
    curves = [characteristic(r, n, average) for r in ranked]
    ideal = characteristic(best_possible(ranked[0]), n, average) if best else None
    nq = {r.num_queries for r in ranked}
    avg = {"macro": "macro average (mean)", "micro": "micro average",
           "median": "median"}[average]
    over = f" of {nq.pop()} queries" if len(nq) == 1 else ""
    title = f"Performance characteristic (relevance points found): {avg}{over}"
    return CutoffData(curves=curves, names=list(names), best=ideal, title=title,
                      num_docs=ranked[0].num_docs)


def fallout_data(ranked: Sequence[Ranked], names: Sequence[str], opts: CurveOptions, *,
                 best: bool = False) -> CutoffData:
    """Fallout at the recall levels by document cut-offs (Keen Fig. 28b)."""
    check_options("fallout", None, None, opts.average)
    levels = method_levels("fallout", opts.levels)
    curves = [precision_curve(r, levels, method="fallout", average=opts.average)
              for r in ranked]
    ideal = precision_curve(best_possible(ranked[0]), levels, method="fallout",
                            average=opts.average) if best else None
    nq = {r.num_queries for r in ranked}
    title = curve_title(curves[0], nq.pop() if len(nq) == 1 else None)
    return CutoffData(curves=curves, names=list(names), best=ideal, title=title,
                      reach=reach_of(ranked, "fallout", opts.average))


# --------------------------------------------------------------------------- operating char.

def check_oc(average: str) -> None:
    if average == "median":
        raise UsageError("--kind oc averages by macro or micro (pooled counts), not median")


@dataclass(frozen=True, eq=False)
class OcData:
    """Swets' operating characteristic of each run."""

    ocs: list[OperatingCharacteristic]
    names: list[str]
    title: str


def oc_data(ranked: Sequence[Ranked], names: Sequence[str], average: str = "macro") -> OcData:
    """Recall and fallout at every cut-off, averaged by ``average`` (macro or micro)."""
    from smarteval.measures.swets import operating_characteristic
    check_oc(average)
    ocs = [operating_characteristic(r, average) for r in ranked]
    nq = {oc.queries for oc in ocs}
    over = f" of {nq.pop()} queries" if len(nq) == 1 else ""
    title = f"Operating characteristic: {average} average{over} at every cut-off"
    return OcData(ocs=ocs, names=list(names), title=title)


# --------------------------------------------------------------------------- first relevant rank

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
        edges = tuple(whole(x) for x in pieces(text) if x)
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


@dataclass(frozen=True, eq=False)
class FirstRelData:
    """Queries by the rank of their first relevant document: runs × ranges."""

    counts: np.ndarray
    labels: list[str]
    names: list[str]
    queries: list[int]          # per run, the queries with a relevant document
    title: str


def first_rel_data(ranked: Sequence[Ranked], names: Sequence[str],
                   ranges: str | Sequence[int] = "1,3,10,30,100") -> FirstRelData:
    """Each run's queries counted by the range of their first relevant rank.

    A range past every list's end would stay empty for every run, so it is left out.
    """
    edges = parse_ranges(ranges) if isinstance(ranges, str) else tuple(ranges)
    labels = range_labels(edges)
    counts = np.array([first_relevant_counts(first_relevant_ranks(r), edges) for r in ranked])
    queries = [int((r.num_rel > 0).sum()) for r in ranked]
    longest = max(int(r.num_ret.max(initial=0)) for r in ranked)
    if longest <= edges[-1]:
        counts = np.delete(counts, len(edges), axis=1)
        labels = labels[:len(edges)] + labels[len(edges) + 1:]
    return FirstRelData(counts=counts, labels=labels, names=list(names), queries=queries,
                        title="Queries by the rank of their first relevant document")


# --------------------------------------------------------------------------- magnitude differences

def check_diff(measures: Sequence[str], runs: int) -> str:
    """The one measure a ``diff`` plot compares (default map), given ``runs`` runs."""
    if runs != 2:
        raise UsageError(f"--kind diff compares two runs; {runs} given")
    if len(measures) > 1:
        raise UsageError("--kind diff plots one measure; give -m once")
    return measures[0] if measures else "map"


@dataclass(frozen=True, eq=False)
class DiffData:
    """Keen's magnitude differences of run B against run A on one measure."""

    mag: Magnitudes              # run A the baseline, run B the run
    name_a: str
    name_b: str
    measure: str
    equal: int                   # queries whose difference is within the tolerance
    title: str
    qids: tuple[np.ndarray, ...] = ()    # each run's queries evaluated, if the measure
    #                                      looks at relevance at -l


def diff_data(qrels, runs: Sequence, measures: Sequence[str] = (),
              settings: Settings | None = None, tolerance: float = 0.0,
              on_run: Callable[[RunInfo], None] | None = None) -> DiffData:
    """Evaluate two runs on one measure and order their per-query differences by size.

    ``on_run`` is called with each run's info once it is evaluated (progress).
    """
    from smarteval.evaluation import evaluate, requests_for
    from smarteval.stats import align, magnitudes

    settings = settings or Settings()
    spec = check_diff(measures, len(runs))
    requests = requests_for([spec], settings)
    outputs = [o for rq in requests for o in rq.outputs()]
    numeric = [o for o in outputs if o.measure.average in ("mean", "gmean")
               and o.measure.value != "str"]
    if len(outputs) != 1 or len(numeric) != 1:
        got = ", ".join(o.name for o in outputs)
        raise UsageError(f"--kind diff plots one numeric measure; -m {spec} gives {got}: "
                         f"choose one, e.g. -m P.10 or -m ndcg_cut.10")
    name = numeric[0].name
    a, b = evaluate(qrels, runs, requests, settings, on_run=on_run)
    ids, ia, ib = align(a.qids, b.qids)
    if not len(ids):
        raise UsageError(f"{a.name} and {b.name} share no evaluated query")
    mag = magnitudes(a.per_query[name][ia], b.per_query[name][ib], ids, tolerance=tolerance)
    equal = len(ids) - len(mag.better) - len(mag.worse)
    title = f"Magnitude of the per-query differences in {name} ({len(ids)} queries)"
    at_level = all(rq.rel_level is None and rq.measure.name not in ("num_q", "num_ret")
                   for rq in requests)
    return DiffData(mag=mag, name_a=a.name, name_b=b.name, measure=name, equal=equal,
                    title=title, qids=(a.qids, b.qids) if at_level else ())


# --------------------------------------------------------------------------- ASL curves

@dataclass(frozen=True, eq=False)
class AslData:
    """Sakai's ASL curves: each measure's achieved significance levels over every pair of
    runs, sorted (:class:`smarteval.stats.discpower.Discpower`)."""

    results: list
    title: str


def asl_data(qrels, runs: Sequence, measures: Sequence[str] = (),
             settings: Settings | None = None, *, test: str = "randomized-tukey",
             alpha: float = 0.05, samples: int = 10000, seed: int | None = 0,
             on_run: Callable[[RunInfo], None] | None = None) -> AslData:
    """Evaluate the runs and measure each measure's discriminative power (default map,
    P.10 and ndcg_cut.10)."""
    from smarteval.render.discpower import describe
    from smarteval.stats.discpower import discpower_runs
    from smarteval.stats.table import DEFAULT_MEASURES
    results = discpower_runs(qrels, list(runs), list(measures) or list(DEFAULT_MEASURES),
                             settings, on_run=on_run, test=test, alpha=alpha,
                             samples=samples, seed=0 if seed is None else seed)
    pairs = len(results[0].asl)
    how = describe(results).split(" each measure tells apart, ")[1].split("; needed")[0]
    return AslData(results=results,
                   title=f"ASL curves of {pairs} pair{'s' if pairs != 1 else ''} of runs: {how}")
