"""The compare and correlate reports built as data: what the commands found, before any rendering.

:func:`compare_runs` evaluates a baseline and runs and compares them (merit, magnitudes,
significance tests, selection of the best run, rank correlation) into a :class:`Report`;
:func:`correlate_results` reads evaluation results and correlates the leaderboards their
measures give into :class:`Leaderboards`. The measures package and the evaluation are
imported inside the functions that need them: ``smarteval --help`` must stay fast.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from smarteval.errors import InputError, RefusedMeasure, UsageError
from smarteval.settings import Settings
from smarteval.stats.correlation import (
    LeaderboardCorrelation,
    leaderboard_correlation,
    rank_correlation,
)
from smarteval.stats.merit import (
    Magnitudes,
    align,
    magnitudes,
    merit,
    shared_values,
    unbounded_note,
    undefined_note,
    unjudged_interval,
    unjudged_note,
)
from smarteval.stats.selection import CAVEAT, select_best
from smarteval.stats.significance import (
    TESTS,
    UNDEFINED,
    UNDEFINED_EFFECT,
    WILCOXON_METHODS,
    adjust,
    paired_test,
)

# --------------------------------------------------------------------------- requests

#: The deepest cut-off --select scores (--depth): one output a cut-off and query.
MAX_DEPTH = 10_000
#: The most resamples a test draws (--samples): each holds a value per query.
MAX_SAMPLES = 1_000_000


def check_parameters(*, alpha: float, confidence: float, samples: int, seed: int | None,
                     tolerance: float, depth: int, theta: float) -> None:
    """Refuse, before any work, a comparison parameter out of its range (NaN included)."""
    def number(value) -> bool:
        return isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, bool) and math.isfinite(value)

    def whole(value) -> bool:
        return isinstance(value, (int, np.integer)) and not isinstance(value, bool)

    for name, value, ok, what in (
            ("--alpha", alpha, number(alpha) and 0 < alpha < 1, "a number between 0 and 1"),
            ("--confidence", confidence, number(confidence) and 0 < confidence < 1,
             "a number between 0 and 1"),
            ("--tie-tolerance", tolerance, number(tolerance) and tolerance >= 0,
             "a number, 0 or more"),
            ("--theta", theta, number(theta) and theta >= 1, "a number, 1 or more"),
            ("--samples", samples, whole(samples) and 1 <= samples <= MAX_SAMPLES,
             f"a whole number from 1 to {MAX_SAMPLES}"),
            ("--seed", seed, seed is None or (whole(seed) and seed >= 0),
             "a whole number, 0 or more"),
            ("--depth", depth, whole(depth) and 1 <= depth <= MAX_DEPTH,
             f"a whole number from 1 to {MAX_DEPTH}")):
        if not ok:
            raise UsageError(f"{name} must be {what}, not {value!r}")

def parse_tests(values: Iterable[str]) -> list[str]:
    """The tests named in ``--test`` values (repeated or comma-separated), each once, in order."""
    out: list[str] = []
    bad: list[str] = []
    for v in values:
        for t in v.replace(",", " ").split():
            if t not in TESTS:
                bad.append(t)
            elif t not in out:
                out.append(t)
    if bad:
        raise UsageError(f"unknown test{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))}: "
                         f"--test takes {', '.join(TESTS)}")
    return out


def select_request(name: str, depth: int):
    """The request for the --select measure at every cut-off 1..depth."""
    from smarteval.measures import ALIASES, all_measures
    from smarteval.measures.grammar import Request
    measures = all_measures()
    m = measures.get(name)
    if m is None and name in ALIASES:
        target = ALIASES[name][1]                  # the cut-off measure the name stands for
        m = measures.get(target) if target is not None else None
    if m is None:
        raise UsageError(f"unknown --select-measure {name!r}: give a measure with cut-offs, "
                         "such as jw_prob, P or recall ('smarteval measures' lists them)")
    if m.params != "cutoffs":
        raise UsageError(f"--select-measure {name!r} has no document cut-offs: give one that "
                         "does, such as jw_prob, P or recall (the cut-offs are 1..--depth)")
    return Request(m, tuple(range(1, depth + 1)))


def comparable(out) -> bool:
    """Whether an output has a number for each query, to compare query by query (not
    text, not only a summary; not ir_measures' Accuracy, which has none for the queries
    without a relevant document retrieved, a set that differs from run to run)."""
    m = out.measure
    return m.value != "str" and m.per_query and m.average not in ("tag", "count", "none",
                                                                   "reported")


def comparable_requests(measures: Sequence[str], version: int, nothing: str):
    """The requests of ``-m`` specs, the names of their outputs that have per-query numbers
    to compare (in the order the specs ask for them), and the names of those that have
    none; ``nothing`` starts the message
    refusing specs that give no comparable output."""
    from smarteval.measures import parse_measures
    from smarteval.measures.grammar import in_asked_order
    requests = parse_measures(list(measures), version)
    names: list[str] = []
    skipped: list[str] = []
    for rq in in_asked_order(requests):         # the order asked for
        for o in rq.outputs():
            (names if comparable(o) else skipped).append(o.name)
    if not names:
        raise UsageError(f"{nothing}: " + ", ".join(skipped) + " have no number for each query")
    return requests, names, skipped


def evaluate_comparable(qrels, runs: Sequence, measures: Sequence[str], settings: Settings,
                        nothing: str, on_run=None) -> tuple[list, list[str], list[str]]:
    """Evaluate ``runs`` on the outputs of ``measures`` that can be compared query by
    query: the evaluations, those output names (each once) and the names left out
    (``nothing`` starts the message refusing measures with none)."""
    from smarteval.evaluation import as_qrels, evaluate
    requests, names, skipped = comparable_requests(measures, settings.trec_version, nothing)
    evs = evaluate(as_qrels(qrels), list(runs), requests, settings, keep_ranked=False,
                   on_run=on_run)
    return evs, list(dict.fromkeys(names)), skipped


def measure_names(specs: Iterable[str], version: int) -> list[str]:
    """Output names for -m specs (P.10 -> P_10); names that are not measures stay as given,
    a measure asked for as it cannot be computed (P@0) is refused as evaluate refuses it."""
    from smarteval.measures import parse_measures
    out: list[str] = []
    for s in specs:
        for spec in s.split():
            try:
                out.extend(o.name for rq in parse_measures([spec], version) for o in rq.outputs())
            except RefusedMeasure:
                raise
            except UsageError:
                out.append(spec)
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------- the comparison

@dataclass
class Report:
    """Everything ``compare`` found, ready for rendering."""

    baseline: str
    measures: list[str]
    tests: list[str]
    correction: str
    alpha: float
    confidence: float
    rows: list[dict] = field(default_factory=list)
    merit: list[dict] = field(default_factory=list)
    magnitudes: list[dict] = field(default_factory=list)
    mags: list[Magnitudes] = field(default_factory=list)     # for --plot
    selection: dict | None = None
    correlation: list[dict] | None = None
    notes: list[str] = field(default_factory=list)
    #: whether the rows hold :data:`~smarteval.stats.merit.UNJUDGED_COLUMNS`
    #: (``--unjudged range``)
    unjudged: bool = False


def compare_runs(qrels, baseline, runs: Sequence, measures: Sequence[str] = ("map",),
                 settings: Settings | None = None, *, tests: Sequence[str] = ("t",),
                 correction: str = "holm", alpha: float = 0.05, confidence: float = 0.95,
                 samples: int = 10000, seed: int | None = 0, tolerance: float = 0.0,
                 select: str | None = None, depth: int = 200, theta: float = 1.5,
                 tau: bool = False, on_run=None, on_samples=None) -> Report:
    """Evaluate ``baseline`` and ``runs`` against ``qrels`` and compare each run with the baseline.

    ``measures`` and ``tests`` are as ``-m`` and ``--test`` give them (empty: map and t);
    ``baseline`` may be a stored baseline instead of a run (a
    :class:`~smarteval.read.results.StoredRun`: per-query values ``evaluate -q`` wrote),
    whose values are compared as read; ``select`` names the cut-off measure of Joiner &
    Werner's selection at cut-offs 1..``depth`` (None: no selection); ``tau`` adds the
    rank correlation of the document orderings. ``on_run`` is called as each run is
    evaluated, ``on_samples(done, total)`` as the randomization and bootstrap tests draw
    their samples (progress). Runs that would print under one name (the same file twice) get
    distinct names.
    """
    from smarteval.evaluation import evaluate, read_relevance
    from smarteval.read.results import StoredRun

    check_parameters(alpha=alpha, confidence=confidence, samples=samples, seed=seed,
                     tolerance=tolerance, depth=depth, theta=theta)
    stored = baseline if isinstance(baseline, StoredRun) else None
    if stored is not None and (select is not None or tau):
        raise UsageError(("--select" if select is not None else "--tau") + " reads the "
                         "baseline's ranking: it needs the baseline's run, not its stored "
                         "results (--baseline-results)")
    settings = settings or Settings()
    version = settings.trec_version
    test_list = parse_tests(tests or ("t",))
    requests, names, skipped = comparable_requests(measures or ("map",), version,
                                                   "no measure to compare")
    all_requests = list(requests)
    select_names = None
    if select is not None:
        srq = select_request(select, depth)
        if srq.measure.needs_num_docs and settings.num_docs is None:
            raise UsageError(f"--select scores {srq.measure.name}, which needs the number of "
                             "documents in the collection: give -N/--num-docs, or another "
                             "cut-off measure with --select-measure (P, recall)")
        all_requests.append(srq)
        select_names = [o.name for o in srq.outputs()]
    if stored is not None:
        check_stored(stored, names)
    q = read_relevance(qrels, all_requests, settings)       # in the format of -R
    # the runs in as many processes as pay (evaluation.default_jobs), their rankings
    # kept only for --tau
    evs = evaluate(q, [*([] if stored else [baseline]), *runs], all_requests, settings,
                   keep_ranked=tau, on_run=on_run, jobs=None)
    if stored is not None:
        evs = [stored, *evs]        # type: ignore[list-item]  # what build_report reads
    rep = build_report(evs, names, tests=test_list, correction=correction, alpha=alpha,
                       confidence=confidence, samples=samples, seed=seed,
                       tolerance=tolerance, complete=settings.complete,
                       select_names=select_names, select_name=select or "", theta=theta,
                       tau=tau, on_samples=on_samples)
    if skipped:
        rep.notes.append("not compared (no number for each query): " + ", ".join(skipped))
    return rep


def undefined_notes(rows: Sequence[dict], baseline: str) -> list[str]:
    """Why a comparison's statistic, p-value or effect sizes are undefined (0/0), one note
    for each (run, measure) and test of two queries or more."""
    notes: dict[str, None] = {}
    for r in rows:
        if r["n"] < 2:
            continue
        pair = f"{r['run']} against {baseline} on {r['measure']}"
        if math.isnan(r["p_value"]) and r["test"] in UNDEFINED:
            notes[f"{pair}: the {r['test']} test is undefined: {UNDEFINED[r['test']]}"] = None
        if math.isnan(r["effect"]):
            notes[f"{pair}: {UNDEFINED_EFFECT}"] = None
    return list(notes)


def check_stored(stored, names: Sequence[str]) -> None:
    """Refuse a stored baseline that lacks per-query values of a measure of ``names``."""
    missing = [n for n in names if n not in stored.per_query]
    if missing:
        raise InputError(stored.path, None, f"run {stored.name} has no per-query values of "
                         + ", ".join(missing),
                         extra="  it has: " + (" ".join(stored.per_query) or "none"),
                         expected="results written by smarteval evaluate -q with these "
                                  "measures (-m)")


def build_report(evaluations, names: list[str], *, tests: list[str], correction: str,
                 alpha: float, confidence: float, samples: int, seed: int | None,
                 tolerance: float, complete: bool, select_names: list[str] | None = None,
                 select_name: str = "", theta: float = 1.5, tau: bool = False,
                 on_samples=None) -> Report:
    """Compare every evaluation after the first against the first (the baseline);
    ``on_samples`` as in :func:`compare_runs`."""
    base, runs = evaluations[0], evaluations[1:]
    rep = Report(baseline=base.name, measures=list(names), tests=list(tests),
                 correction=correction, alpha=alpha, confidence=confidence)
    pairs = []                                     # (run, measure, base values, run values, qids)
    bounds: dict[tuple[str, str], tuple[float, float]] = {}    # --unjudged range
    for ev in runs:
        ids, bi, ri = align(base.qids, ev.qids)
        if len(ids) == 0:
            raise UsageError(f"run {ev.name} ({ev.path}) shares no query with the baseline "
                             f"{base.name} ({base.path})")
        left_b, left_r = len(base.qids) - len(ids), len(ev.qids) - len(ids)
        if left_b or left_r:
            rep.notes.append(
                f"{ev.name}: {len(ids)} queries paired; left out {left_b} only in the baseline"
                f" and {left_r} only in {ev.name}"
                + ("" if complete else " (-c scores a query missing from a run as 0)"))
        for name in names:
            b = np.asarray(base.per_query[name], dtype=np.float64)[bi]
            r = np.asarray(ev.per_query[name], dtype=np.float64)[ri]
            defined = ~(np.isnan(b) | np.isnan(r))
            if not defined.all():
                # a NaN is no value: it is never a difference, a win or a test's datum
                rep.notes.append(f"{ev.name}: " + undefined_note(
                    name, ids[~defined], [base.name, ev.name],
                    np.isnan(np.vstack([b, r])[:, ~defined])))
                b, r = b[defined], r[defined]
            pairs.append((ev.name, name, b, r, ids[defined]))
            least, most = f"{name}_min", f"{name}_max"
            if least in base.per_query and least in ev.per_query:
                bounds[(ev.name, name)] = unjudged_interval(
                    *(np.asarray(e.per_query[n], dtype=np.float64)[rows][defined]
                      for e, rows in ((ev, ri), (base, bi)) for n in (least, most)))
            elif f"{name}_if_relevant" in base.per_query:
                bounds[(ev.name, name)] = (math.nan, math.nan)
                if ev is runs[0]:
                    rep.notes.append(unbounded_note(name))

    for run, name, b, r, ids in pairs:
        counts = merit(b, r, tolerance)
        rep.merit.append({"baseline": base.name, "run": run, "measure": name, "n": counts.n,
                          "better": counts.better, "worse": counts.worse,
                          "equal": counts.equal,
                          "mean_baseline": float(np.mean(b)) if len(b) else math.nan,
                          "mean_run": float(np.mean(r)) if len(r) else math.nan,
                          "percentages": counts.percentages()})
        mg = magnitudes(b, r, ids, tolerance)
        rep.mags.append(mg)
        rep.magnitudes.append({
            "baseline": base.name, "run": run, "measure": name,
            "better": [(q, float(v)) for q, v in zip(mg.better_qids, mg.better, strict=True)],
            "worse": [(q, float(v)) for q, v in zip(mg.worse_qids, mg.worse, strict=True)]})

    for test in tests:
        results = [paired_test(test, b, r, tolerance=tolerance, confidence=confidence,
                               samples=samples, seed=seed, on_samples=on_samples)
                   for _, _, b, r, _ in pairs]
        adjusted = adjust([res.p_value for res in results], correction)
        for (run, name, *_values), res, padj, merit_row in zip(pairs, results, adjusted,
                                                               rep.merit, strict=True):
            rep.rows.append({
                "baseline": base.name, "run": run, "measure": name, "n": res.n,
                "better": merit_row["better"], "worse": merit_row["worse"],
                "equal": merit_row["equal"],
                "mean_diff": res.mean_diff, "ci_low": res.ci_low, "ci_high": res.ci_high,
                "effect": res.effect, "g_av": res.g_av, "test": test,
                "statistic": res.statistic,
                "p_value": res.p_value, "p_adjusted": float(padj),
                "significant": bool(padj < alpha) if not math.isnan(padj) else False,
                "mean_baseline": merit_row["mean_baseline"], "mean_run": merit_row["mean_run"],
                "exact": res.exact, "method": res.method or None})
    rep.notes.extend(undefined_notes(rep.rows, base.name))
    methods = dict.fromkeys(r["method"] for r in rep.rows
                            if r["test"] == "wilcoxon" and r["method"])
    if methods:
        rep.notes.append("wilcoxon: differences within --tie-tolerance dropped; p "
                         + "; ".join(f"{m}: {WILCOXON_METHODS[m]}" for m in methods))
    if bounds:
        rep.unjudged = True
        for row in rep.rows:
            low, high = bounds[(row["run"], row["measure"])]
            row.update(unjudged_low=low, unjudged_high=high,
                       within_unjudged=bool(low <= 0 <= high))
        for m in rep.merit:
            low, high = bounds[(m["run"], m["measure"])]
            if low <= 0 <= high:
                rep.notes.append(unjudged_note(m["run"], base.name, m["measure"],
                                               m["mean_run"] - m["mean_baseline"], low, high))
    # one row per (run, measure, test), grouped by comparison
    order = {t: i for i, t in enumerate(tests)}
    pair_index = {(r, n): i for i, (r, n, *_rest) in enumerate(pairs)}
    rep.rows.sort(key=lambda row: (pair_index[(row["run"], row["measure"])], order[row["test"]]))
    if any(row["test"] == "randomization" and row["exact"] is False for row in rep.rows):
        rep.notes.append(f"randomization: {samples} random sign assignments (exact when "
                         f"2^n <= --samples)")

    if select_names is not None:
        rep.selection = _selection(evaluations, select_names, select_name, tolerance=tolerance,
                                   theta=theta, seed=seed, samples=samples)
    if tau:
        rep.correlation = []
        for ev in runs:
            rc = rank_correlation(base.ranked, ev.ranked)
            rep.correlation.append({"baseline": base.name, "run": ev.name, **rc.means()})
    return rep


def _selection(evaluations, select_names: list[str], select_name: str, *, tolerance: float,
               theta: float, seed: int | None, samples: int) -> dict:
    """Joiner & Werner's selection over every evaluation, on the queries they all share."""
    ids, values = shared_values(evaluations, select_names, "--select: the runs share no query")
    sel = select_best(values.transpose(0, 2, 1), tolerance=tolerance, theta=theta, seed=seed,
                      samples=max(samples, 10000))
    names = [ev.name for ev in evaluations]
    top2 = np.sort(sel.points)[::-1][:2]
    ratio = float(top2[0] / top2[1]) if top2[1] else math.inf
    return {
        "measure": select_name, "depth": len(select_names), "queries": len(ids),
        "total": sel.total, "theta": theta, "pcs": sel.pcs, "pcs_method": sel.pcs_method,
        "pcs_se": sel.pcs_se, "best": names[sel.best], "observed_ratio": ratio,
        "runs": [{"run": n, "points": int(p), "p": float(ph)}
                 for n, p, ph in zip(names, sel.points, sel.p_hat, strict=True)],
        "per_cutoff": {n: sel.per_cutoff[:, i].tolist() for i, n in enumerate(names)},
        "caveat": CAVEAT,
    }


# --------------------------------------------------------------------------- leaderboards

#: Summary lines of an evaluation that are not measures of a leaderboard.
_NOT_MEASURES = {"runid", "num_q"}


@dataclass(frozen=True)
class Leaderboards:
    """Each system's summary value under each measure, and how the measures' orders agree.

    ``table[i, j]`` is system ``runs[i]``'s value of ``measures[j]``; ``ranks[i, j]`` its
    place under that measure (1 is best, equal values share the better place); ``pairs``
    correlates every pair of measures, in the order of ``measures``.
    """

    runs: list[str]
    measures: list[str]
    table: np.ndarray
    ranks: np.ndarray
    pairs: list[LeaderboardCorrelation]


def correlate_results(paths: Sequence[str], measures: Sequence[str] = (),
                      trec_version: int = 9) -> Leaderboards:
    """Read evaluation results (one or several runs per file) and correlate their leaderboards.

    ``measures`` as ``-m`` gives them (P.10 or P_10); empty: every measure all the
    results share.
    """
    from smarteval.read.results import read_results
    systems = [(run, vals, path) for path in paths for run, vals in read_results(path)]
    return leaderboards(systems, measures, trec_version)


def leaderboards(systems: Sequence[tuple[str, dict[str, float], str]],
                 measures: Sequence[str] = (), trec_version: int = 9) -> Leaderboards:
    """Correlate the leaderboards of ``systems``: (run, {measure: summary value}, file).

    A run name that several systems share is qualified with its file.
    """
    seen: dict[str, int] = {}
    for run, _, _ in systems:
        seen[run] = seen.get(run, 0) + 1
    systems = [(f"{run} ({path})" if seen[run] > 1 else run, vals, path)
               for run, vals, path in systems]
    if len(systems) < 2:
        raise UsageError("correlate needs the results of at least two runs")
    if measures:
        names = measure_names(measures, trec_version)
        for run, vals, path in systems:
            missing = [n for n in names if n not in vals]
            if missing:
                raise InputError(path, None, f"run {run} has no summary value of "
                                 + ", ".join(missing), extra="  it has: " + " ".join(vals))
            for n in names:
                if not math.isfinite(vals[n]):
                    raise InputError(path, None, f"run {run}'s {n} is {vals[n]}: a value "
                                     "that is not a finite number ranks no run")
    else:
        # a measure that is not a finite number for some run (trec_eval's nan) ranks nothing
        common = {n for n, v in systems[0][1].items() if math.isfinite(v)}
        for _, vals, _ in systems[1:]:
            common &= {n for n, v in vals.items() if math.isfinite(v)}
        names = [n for n in systems[0][1] if n in common and n not in _NOT_MEASURES]
    if len(names) < 2:
        raise UsageError("correlate needs two or more measures shared by every result"
                         + (f" (found {', '.join(names)})" if names else ""))
    table = np.array([[vals[n] for n in names] for _, vals, _ in systems])
    pairs = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            pairs.append(leaderboard_correlation(names[i], table[:, i], names[j], table[:, j]))
    return Leaderboards(runs=[s[0] for s in systems], measures=names, table=table,
                        ranks=_ranks(table), pairs=pairs)


def _ranks(table: np.ndarray) -> np.ndarray:
    """Each system's place under each measure (column), highest value first."""
    from scipy import stats
    return np.column_stack([stats.rankdata(-table[:, j], method="min")
                            for j in range(table.shape[1])])
