"""The curves of the SMART evaluation, averaged over queries: Keen's Cranfield curves and
the others his report, Rocchio and Joiner & Werner describe; the one list of methods.

Pure functions of a :class:`~smarteval.columns.Ranked`, all queries at once. A query's
*points* are (i/R, precision) after its i-th relevant document, i = 1..R. Relevant
documents the run did not retrieve get ranks from ``--unranked`` when N is known
(``expected``: the j-th of m at its mean rank L + j(N-L+1)/(m+1) under a uniform random
placement among L+1..N; ``worst``: N-m+j) and precision 0 otherwise, as trec_eval.

* ``semi`` — the best precision at any recall at or above the level (Keen part 4B: a line
  of constant precision to the highest later peak). Recall is compared with the level in
  exact rational arithmetic (i/R >= p/q as i·q >= p·R); trec_eval's iprec_at_recall
  compares rounded counts and so differs only where its rounding does.
* ``quasi`` — one point chosen on each vertical step (``--step``), the points joined by
  straight lines. A step at recall i/R runs from the i-th relevant document (rank s) to
  the document before the next relevant one (rank e; the last step ends at N when N is
  known, else at the end of the list): highest i/s, lowest i/e, middle i/(s+⌊(e-s)/2⌋)
  (the earlier of the two middle documents when there are two), mean the average of
  i/t for t = s..e, ends (i/s + i/e)/2. A placed rank may be fractional; the step's
  documents are then s, s+1, ... up to e. Below the first point (recall 1/R) the curve
  is extrapolated by ``--left`` (Keen's methods 1-5): ``none`` leaves the query out,
  ``zero`` draws a line to precision 0 at recall 0, ``one`` to precision 1, ``hybrid``
  to 1 when the first document is relevant (the first relevant one, retrieved or placed,
  is at rank 1) and 0 when it is not, ``constant`` holds the first point's precision
  (Keen's recommendation, the default).
* ``cluster`` — a cluster search (Keen 4D): only some clusters are searched, so some
  relevant documents get no rank and the curve stops at the *recall ceiling* a/R. Its
  quasi curve (``--step``, ``--left``) goes on past the last point by ``--cluster-end``:
  ``extrapolate`` (what SMART used, Fig. 25) a straight line to recall 1 at the
  precision of the full search's last relevant document (its quasi point there; a
  query with nothing relevant found is all extrapolation, from that point),
  ``join`` straight on to the full search's next point and along its curve, ``none``
  nothing (the query is left out past its ceiling: Keen's first solution). The full
  search is ``--full RUN`` (a query it lacks is an empty full search); the averaged
  ceiling is reported. Keen's two other suggestions, the unfound relevant documents at
  random ranks between the cluster search's last document and N or at the worst ranks,
  are the quasi curve of the cluster run with ``-N`` and ``--unranked expected`` or
  ``worst``.
* ``pseudo`` — recall and precision averaged over queries at every document cut-off
  n = 1..D (D = N when N is known, else the longest list), the averaged points joined by
  straight lines and read at the levels, with the number of documents examined there.
  Ranks past a list's end hold non-relevant documents, or the placed unretrieved
  relevant ones when N is known. A level above the last averaged recall is not reached.
* ``points``, ``fallout``, ``adjusted`` — the pseudo curve with recall over relevance
  points (each relevant document scores its grade; Keen Fig. 26b), with fallout in
  place of precision (Fig. 28b), or with precision adjusted to a constant generality G
  (``--target-generality``): R₁G / (R₁G + F₁(1000 - G)) of the averaged recall and
  fallout (Fig. 28c; at the queries' own generality it is micro precision).
* ``characteristic`` — Giuliano & Jones' performance characteristic (Fig. 26a): the
  relevance points found over all points, at document cut-offs (the levels).
* ``precision`` — recall at precision levels (Keen 4B's untested second technique): the
  cut-off for level p is the deepest relevant document where precision is still at
  least p (see :mod:`smarteval.curves.precision`).
* ``cnr`` — Rocchio's curve: recall and precision when the user stops after n
  consecutive non-relevant documents, one point per n (the levels).

Averaging (Rocchio): ``macro`` the mean over queries, ``median`` their median, ``micro``
pooled counts — for pseudo Σa/ΣR and Σa/Σn at each cut-off; for semi Σi/Σr at each
query's best cut-off at or above the level (the earliest when several give the best
precision, precisions compared exactly as ratios, so 3/36.6 and 4/48.8 tie; a query
whose best is past its list adds its whole list and nothing relevant; a query without
relevant documents adds nothing). Quasi and cluster interpolate between cut-offs and
have no micro average.

Per level the curve counts the queries averaged from real points, those averaged by
extrapolation (left of the first point — for semi too, though the precision held there
is a real peak —, past the last retrieved relevant document, or a query without
relevant documents, which scores 0) and those left out (Keen Fig. 18).

Keen part 7's comparison with a set-retrieval system (``--cutoffs-from RUN``, one
precision-recall pair per run at the other system's per-query set sizes) is
:func:`run_points` (:mod:`smarteval.curves.matched`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from smarteval.columns import Qrels, Ranked
from smarteval.curves.base import OUT, REAL, Curve, average_cells, parse_levels
from smarteval.curves.matched import Point
from smarteval.curves.points import STEPS, first_best, relevant_points, step_precision
from smarteval.curves.recall import CLUSTER_ENDS, LEFTS
from smarteval.errors import UsageError
from smarteval.settings import AVERAGES, Settings

if TYPE_CHECKING:
    from smarteval.evaluation import RunInfo

#: The recall (or precision) levels when none are given: 0.1, 0.2, ..., 1.0.
LEVELS = tuple(i / 10 for i in range(1, 11))
#: The document cut-offs of the performance characteristic when none are given.
CUTOFF_LEVELS = (1.0, 2.0, 3.0, 5.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0)
#: Rocchio's stopping rules n when none are given.
STOP_LEVELS = tuple(float(n) for n in range(1, 11))


@dataclass(frozen=True)
class Method:
    """A curve method: what its levels and its value are, and what it takes."""

    name: str
    title: str                   # the method's name in titles: "Semi-Cranfield"
    level: str                   # recall | points recall | precision | cut-off | stop
    value: str                   # precision | fallout | adjusted precision | recall | ...
    averages: tuple[str, ...]
    options: frozenset[str]      # of step, left, full, end
    default_levels: tuple[float, ...]
    help: str                    # one clause for --method's help

    @property
    def level_kind(self) -> str:
        """How --levels is read: ratio (between 0 and 1) or count (whole numbers)."""
        return "count" if self.level in ("cut-off", "stop") else "ratio"


_ALL = tuple(AVERAGES)
_NO_MICRO = ("macro", "median")
_METHODS = (
    Method("semi", "Semi-Cranfield", "recall", "precision", _ALL, frozenset(), LEVELS,
           "best precision at or above each recall level (Keen Fig. 17)"),
    Method("quasi", "Quasi-Cranfield", "recall", "precision", _NO_MICRO,
           frozenset({"step", "left"}), LEVELS,
           "a point chosen on each step, joined by lines (SMART's usual curve, Fig. 16)"),
    Method("pseudo", "Pseudo-Cranfield", "recall", "precision", _ALL, frozenset(), LEVELS,
           "recall and precision averaged at each document cut-off (Fig. 14)"),
    Method("cluster", "Cluster search", "recall", "precision", _NO_MICRO,
           frozenset({"step", "left", "full", "end"}), LEVELS,
           "a cluster search's quasi curve to its recall ceiling, then extrapolated to the "
           "full search's last point (--full RUN; Keen 4D, Fig. 25)"),
    Method("points", "Pseudo-Cranfield", "points recall", "precision", _ALL, frozenset(),
           LEVELS, "precision against recall over relevance points, each relevant document "
           "scoring its grade, at document cut-offs (Fig. 26b)"),
    Method("characteristic", "Performance characteristic", "cut-off", "points recall", _ALL,
           frozenset(), CUTOFF_LEVELS, "relevance points found over all points at each "
           "document cut-off (the levels; Giuliano & Jones, Fig. 26a)"),
    Method("fallout", "Pseudo-Cranfield", "recall", "fallout", _ALL, frozenset(), LEVELS,
           "fallout at each recall level, by document cut-offs (needs -N; Fig. 28b)"),
    Method("adjusted", "Pseudo-Cranfield", "recall", "adjusted precision", _ALL, frozenset(),
           LEVELS, "precision adjusted to the generality --target-generality G by document "
           "cut-offs, RG/(RG + F(1000-G)) (needs -N; Fig. 28c)"),
    Method("precision", "Precision-level cut-off", "precision", "recall", _ALL, frozenset(), LEVELS,
           "recall at precision levels: the deepest relevant document where precision is "
           "still at least the level (Keen 4B)"),
    Method("cnr", "Rocchio's stopping rule", "stop", "precision", _ALL, frozenset(), STOP_LEVELS,
           "recall and precision when the user stops after n consecutive non-relevant "
           "documents, n the levels (Rocchio)"),
)
#: Every curve method by name, in the order of the choices.
METHOD = {m.name: m for m in _METHODS}
#: The methods, the choices of every command that draws or prints curves.
METHODS = tuple(METHOD)
#: Each method's name in titles.
METHOD_NAMES = {m.name: m.title for m in _METHODS}
#: --method's help, one clause per method.
METHOD_HELP = "; ".join(f"{m.name}: {m.help}" for m in _METHODS) + "."

__all__ = ["LEVELS", "CUTOFF_LEVELS", "STOP_LEVELS", "METHODS", "METHOD", "METHOD_NAMES",
           "METHOD_HELP", "STEPS", "LEFTS", "CLUSTER_ENDS", "AVERAGES", "Method", "Curve",
           "Point", "RunCurves", "RunPoints", "parse_levels", "check_options",
           "method_levels", "relevant_points", "step_precision", "first_best",
           "precision_curve", "curve_rankings", "run_curves", "run_points"]


def check_options(method: str = "quasi", step: str | None = "highest", left: str | None = None,
                  average: str = "macro", *, full: object = None, end: str | None = None,
                  generality: float | None = None,
                  needs_generality: bool = True) -> tuple[str, str, str, str]:
    """``(method, step, left, average)`` checked together, ``step`` and ``left`` defaulted.

    ``full`` (the full search), ``end`` (--cluster-end) and ``generality``
    (--target-generality) are checked against the method too: each is taken by one
    method only. Raises :class:`UsageError` before any run is read.
    """
    step = step or "highest"
    if method not in METHOD:
        raise UsageError(f"--method must be one of {', '.join(METHODS)}, not {method!r}")
    m = METHOD[method]
    if average not in AVERAGES:
        raise UsageError(f"--average must be one of {', '.join(AVERAGES)}, not {average!r}")
    if left is not None and "left" not in m.options:
        raise UsageError(f"--left extrapolates the quasi and cluster curves below a query's "
                         f"first point; the {method} curve takes no --left")
    if step != "highest" and "step" not in m.options:
        raise UsageError(f"--step chooses the point on each vertical step of the quasi and "
                         f"cluster curves; the {method} curve takes no --step")
    left = left or "constant"
    if left not in LEFTS:
        raise UsageError(f"--left must be one of {', '.join(LEFTS)}, not {left!r}")
    if step not in STEPS:
        raise UsageError(f"--step must be one of {', '.join(STEPS)}, not {step!r}")
    if average not in m.averages:
        raise UsageError(f"the {method} curve interpolates between cut-offs, so it has no "
                         "pooled counts to micro-average: use --method semi or pseudo with "
                         "micro")
    if method == "cluster" and full is None:
        raise UsageError("--method cluster needs --full RUN: the full search of the same "
                         "queries, whose last point ends each cluster curve")
    if full is not None and method != "cluster":
        raise UsageError(f"--full gives the cluster curve its full search; the {method} "
                         "curve takes none")
    if end is not None:
        if "end" not in m.options:
            raise UsageError(f"--cluster-end applies to --method cluster, not {method}")
        if end not in CLUSTER_ENDS:
            raise UsageError(f"--cluster-end must be one of {', '.join(CLUSTER_ENDS)}, "
                             f"not {end!r}")
    if method == "adjusted" and needs_generality:
        if generality is None:
            raise UsageError("--method adjusted needs --target-generality G: the generality "
                             "(relevant documents per thousand) to adjust precision to")
        if not 0 < float(generality) < 1000:
            raise UsageError(f"--target-generality must lie between 0 and 1000, not "
                             f"{float(generality):g}")
    return method, step, left, average


def method_levels(method: str, levels: str | Sequence[float] | None) -> tuple[float, ...]:
    """The levels of ``method`` from ``--levels`` (its default when None)."""
    m = METHOD[method]
    return parse_levels(levels, m.level_kind, m.default_levels)


def precision_curve(r: Ranked, levels: str | Sequence[float] | None = None, *,
                    method: str = "quasi", step: str = "highest", left: str | None = None,
                    average: str = "macro", full: Ranked | None = None,
                    end: str | None = None) -> Curve:
    """The averaged curve of one run at each level, by ``method``.

    ``full`` is the full search of the cluster method; ``end`` how its curves go past
    their ceiling (default extrapolate). The adjusted method reads its target generality
    from the run's settings (--target-generality).
    """
    G = r.settings.target_generality
    method, step, left, average = check_options(method, step, left, average, full=full,
                                                end=end, generality=G)
    lv = np.asarray(method_levels(method, levels if levels is None or isinstance(levels, str)
                                  else list(levels)), dtype=np.float64)
    if method in ("pseudo", "points", "fallout", "adjusted"):
        from smarteval.curves.cutoffs import pseudo
        return pseudo(r, lv, method, average, None if G is None else float(G))
    if method == "characteristic":
        from smarteval.curves.cutoffs import characteristic
        return characteristic(r, lv, average)
    if method == "precision":
        from smarteval.curves.precision import precision_levels
        return precision_levels(r, lv, average)
    if method == "cnr":
        from smarteval.curves.stopping import stopping
        return stopping(r, lv, average)
    from smarteval.curves import recall
    if method == "semi":
        return recall.semi(r, lv, average)
    if method == "quasi":
        return recall.quasi(r, lv, step, left, average)
    assert full is not None
    return recall.cluster(r, full, lv, step, left, end or "extrapolate", average)


# --------------------------------------------------------------------------- runs

def curve_rankings(qrels, runs, settings: Settings):
    """Each run's (info, ranking) by the one evaluation path, as the curves see it: a
    query without results under ``-c`` is an empty ranking (never trec_eval 10.0's
    placeholder document)."""
    from smarteval.aggregate import without_placeholders
    from smarteval.evaluation import rankings
    for info, ranked in rankings(qrels, runs, settings):
        yield info, without_placeholders(ranked)


@dataclass(frozen=True, eq=False)
class RunCurves:
    """One curve per run, with the runs' display names and query counts."""

    curves: list[Curve]
    names: list[str]
    queries: list[int]
    full: Curve | None = None        # cluster: the full search's own quasi curve
    full_name: str = ""
    qids: tuple[np.ndarray, ...] = ()    # each run's queries evaluated
    qrels: Qrels | None = None           # the judgements, as read


def run_curves(qrels, runs, settings: Settings | None = None,
               levels: str | Sequence[float] | None = None, *, method: str = "quasi",
               step: str | None = None, left: str | None = None, average: str = "macro",
               full=None, end: str | None = None,
               on_run: Callable[[RunInfo], None] | None = None,
               block_rows: int | None = None, on_block=None) -> RunCurves:
    """The curve of each run against ``qrels`` (paths or read), by the one evaluation path.

    The options are checked before any file is read; a run sharing no query with the
    qrels is an input error, as in every command. ``full`` is the full-search run (a
    path or read) of the cluster method; its own quasi curve comes back too.
    ``on_run`` is called with each run's info once its curve is computed (progress).
    The semi- and quasi-Cranfield curves of a long run file (as :func:`smarteval.evaluate`
    takes it, or any with ``block_rows``) are made a block of whole queries at a time
    (each query's values are its own; the average is taken over them all at the end),
    ``on_block`` told of each block.
    """
    from smarteval.evaluation import as_qrels, run_names
    settings = settings or Settings()
    method, step, _, average = check_options(method, step, left, average, full=full, end=end,
                                             generality=settings.target_generality)
    lv = method_levels(method, levels)
    qrels = as_qrels(qrels)
    full_ranked = full_curve = None
    full_name = ""
    if full is not None:
        ((info, full_ranked),) = curve_rankings(qrels, [full], settings)
        full_name = run_names([info])[0]
        full_curve = precision_curve(full_ranked, lv, method="quasi", step=step, left=left,
                                     average=average)
    curves, queries, infos, qids = [], [], [], []
    options = {"method": method, "step": step, "left": left, "average": average, "end": end}
    for info, curve, evaluated in _each_curve(qrels, runs, settings, lv, options, full_ranked,
                                              block_rows, on_block):
        curves.append(curve)
        queries.append(len(evaluated))
        infos.append(info)
        qids.append(evaluated)
        if on_run is not None:
            on_run(info)
    return RunCurves(curves=curves, names=run_names(infos), queries=queries, full=full_curve,
                     full_name=full_name, qids=tuple(qids), qrels=qrels)


#: The methods whose curve is the average of each query's values alone (macro or median):
#: a long run's is made a block of whole queries at a time.
BLOCKED_METHODS = ("semi", "quasi")


def _each_curve(qrels: Qrels, runs, settings: Settings, lv, options: dict, full_ranked,
                block_rows: int | None, on_block):
    """Each run's (info, curve, queries evaluated): a long run file's a block at a time
    where its method allows (:func:`_blocked_curve`), the others' from the whole run."""
    from smarteval.evaluation import check_runs, long_file
    from smarteval.ranking.ranker import Ranker
    ranker = Ranker(qrels, settings)
    blocked = (full_ranked is None and options["method"] in BLOCKED_METHODS
               and options["average"] in ("macro", "median") and ranker.blockable)
    for run in check_runs(runs):
        if blocked and long_file(run, block_rows):
            got = _blocked_curve(ranker, os.fspath(run), lv, options, block_rows, on_block)
            if got is not None:
                yield got
                continue
        for info, ranked in curve_rankings(qrels, [run], settings):
            yield info, precision_curve(ranked, lv, full=full_ranked, **options), ranked.qids


def _blocked_curve(ranker, path: str, lv, options: dict, block_rows: int | None, on_block):
    """The curve of a run file made a block of whole queries at a time: each block's
    per-query values and counts, then every query's values in trec_eval's order averaged
    as the whole run's are (the same array, so the same sums); None where the run must
    be read whole (the caller reads it, and words what is wrong with it)."""
    from smarteval.aggregate import without_placeholders
    from smarteval.evaluation import RunInfo, read_whole_note
    from smarteval.ranking.ranker import BlockRankings
    from smarteval.read.blocks import NotBlockable
    blocks = BlockRankings(ranker, path, block_rows, on_block)
    per_query: list[np.ndarray] = []
    total = c = None
    try:
        for ranked, _ in blocks:
            c = precision_curve(without_placeholders(ranked), lv, **options)
            assert c.per_query is not None      # the semi and quasi curves keep them
            per_query.append(c.per_query)
            counted = np.stack([c.real, c.extrapolated, c.excluded])
            total = counted if total is None else total + counted
    except NotBlockable as why:
        if why.query is not None:
            import warnings
            warnings.warn(read_whole_note(path, why.query), stacklevel=2)
        return None
    assert total is not None and c is not None
    values = np.concatenate(per_query)[blocks.order]
    use = ~np.isnan(values)
    klass = np.where(use, REAL, OUT)            # what average_cells reads of the classes
    curve = replace(c, value=average_cells(values, klass, options["average"]),
                    per_query=values, real=total[0], extrapolated=total[1],
                    excluded=total[2])
    return RunInfo(blocks.name, blocks.tag), curve, blocks.qids


@dataclass(frozen=True, eq=False)
class RunPoints:
    """Keen part 7: each run's pair at the set sizes of ``other``, and ``other``'s own."""

    points: list[Point]
    names: list[str]
    other: Point
    other_name: str
    qids: tuple[np.ndarray, ...] = ()    # each run's queries evaluated
    qrels: Qrels | None = None           # the judgements, as read


def run_points(qrels, runs, cutoffs_from, settings: Settings | None = None,
               average: str = "macro",
               on_run: Callable[[RunInfo], None] | None = None) -> RunPoints:
    """Each run cut, query by query, at the size of the set ``cutoffs_from`` retrieved.

    ``other``'s own pair is taken over the queries of the first run; ``on_run`` as in
    :func:`run_curves`.
    """
    from smarteval.curves.matched import matched, own_point, set_sizes
    from smarteval.evaluation import as_qrels, run_names
    settings = settings or Settings()
    if average not in AVERAGES:
        raise UsageError(f"--average must be one of {', '.join(AVERAGES)}, not {average!r}")
    qrels = as_qrels(qrels)
    ((oinfo, other),) = curve_rankings(qrels, [cutoffs_from], settings)
    points, infos, qids = [], [], []
    own = None
    for info, ranked in curve_rankings(qrels, runs, settings):
        points.append(matched(ranked, set_sizes(ranked, other), average))
        if own is None:
            own = own_point(ranked, other, average)
        infos.append(info)
        qids.append(ranked.qids)
        if on_run is not None:
            on_run(info)
    assert own is not None
    return RunPoints(points=points, names=run_names(infos), other=own,
                     other_name=run_names([oinfo])[0], qids=tuple(qids), qrels=qrels)
