"""The Python API: evaluate, compare, curve and correlate runs, with results as data.

Everything the command line does, a notebook can do through the same library code: a
qrels or a run may be a path (TREC text, plain or compressed; Parquet; JSON Lines), a
pandas DataFrame (PyTerrier's or ir_measures' column names), a ``{qid: {docno: value}}``
dict or an iterable of ir_datasets / ir_measures namedtuples. Results become tidy or wide
DataFrames, plain dicts, or the tables the commands print. ``calc_aggregate``,
``iter_calc`` and :class:`RelevanceEvaluator` give ir_measures' and pytrec_eval's faces.

>>> import smarteval
>>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.5, "d5": 0.4}}
>>> results = smarteval.evaluate(qrels, {"mine": run}, ["map", "P.2"])
>>> results.to_dict()
{'mine': {'map': 0.9166666666666666, 'P_2': 0.5}}
>>> results.to_dict(per_query=True)["mine"]["q1"]
{'map': 0.8333333333333333, 'P_2': 0.5}
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from smarteval import evaluation
from smarteval.aggregate import check_zscores_average, has_value
from smarteval.columns import Qrels, Run
from smarteval.errors import UsageError
from smarteval.evaluation import Evaluation, RunInfo, run_names
from smarteval.measures.grammar import Request, measure_specs
from smarteval.read.source import is_in_memory, read_once
from smarteval.records import record
from smarteval.settings import Settings, distinct_names

if TYPE_CHECKING:
    import pandas

    from smarteval.curves import RunCurves, RunPoints
    from smarteval.read.blocks import Block
    from smarteval.read.zscores import ZScores
    from smarteval.stats.discpower import Discpower
    from smarteval.stats.report import Leaderboards, Report
    from smarteval.stats.table import Table
    from smarteval.stats.topicsets import Design

__all__ = ["Comparison", "Correlation", "Curves", "Diff", "DiscriminativePower", "Evaluation",
           "Metric", "RelevanceEvaluator", "ReportTable", "Repro", "Results", "TopicSets",
           "calc_aggregate", "compare", "correlate", "curve", "diff", "discpower", "evaluate",
           "ir_measure", "iter_calc", "report", "repro", "run_names", "topics"]

_SETTING_NAMES = {f.name for f in fields(Settings)}

#: What a qrels or a run may be given as: a path, read columns, a DataFrame, a dict, records.
Source = Any


def _pandas():
    try:
        import pandas
    except ImportError:
        raise UsageError("DataFrames need pandas: pip install 'smarteval[frames]'") from None
    return pandas


# --------------------------------------------------------------------------- results as data

class Shown:
    """What every result of this module shows of itself: ``print()`` gives the text the
    command prints (``-f smart``), a notebook shows its HTML table (``_repr_html_``;
    IPython's console the text), and ``to_markdown``, ``to_latex``, ``to_html`` and
    ``to_tsv`` give the other formats; ``frame()`` is ``-f tsv`` as a DataFrame. Keyword
    arguments go to :meth:`render` (``per_query=True``, ``pairs=True``...)."""

    #: the text of ``fmt`` (each result's own, with its options)
    render: Callable[..., str]

    def __str__(self) -> str:
        return self.render("smart")

    def __repr__(self) -> str:
        return str(self).rstrip("\n")

    def _repr_html_(self) -> str:
        return self.render("html")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def to_markdown(self, **kw: Any) -> str:
        return self.render("markdown", **kw)

    def to_latex(self, **kw: Any) -> str:
        return self.render("latex", **kw)

    def to_html(self, **kw: Any) -> str:
        return self.render("html", **kw)

    def to_tsv(self, **kw: Any) -> str:
        return self.render("tsv", **kw)


class Results(Shown, list):
    """The evaluations of one call, in run order (a list of :class:`Evaluation`), with
    their values as DataFrames and dicts.

    Measures whose values are text (``runid``, ``relstring``) are left out of the frames
    and dicts; they stay in each evaluation's ``summary`` and ``per_query``. Z-scores
    (``zscores=``) are named there as ``evaluate -Z`` prints them (``Zmap``). A query a
    measure has no value for (ir_measures' Accuracy without a relevant document
    retrieved) has no row and no key, as ``evaluate -q`` prints none; ``per_query``
    keeps NaN there. ``notes`` are what ``smarteval evaluate`` says of the call on
    standard error (an option that changes nothing, a measure ignored, what ``complete``
    did...); ``settings`` are those the runs were evaluated under.
    """

    def __init__(self, evaluations: Iterable[Evaluation] = (), notes: Iterable[str] = (),
                 settings: Settings | None = None):
        super().__init__(evaluations)
        self.notes = list(notes)
        self.settings = settings or Settings()

    def rows(self, per_query: bool = False) -> Iterator[tuple[str, str, str, float]]:
        """``(run, query, measure, value)`` rows: summary rows have query ``all``; with
        ``per_query``, each query's rows come first, as ``evaluate -f tsv -q`` prints them."""
        for ev in self:
            yield from _rows(ev, per_query)

    def frame(self, per_query: bool = False) -> pandas.DataFrame:
        """The tidy DataFrame: columns ``run, query, measure, value`` (summary: query ``all``)."""
        pd = _pandas()
        runs, queries, names, values = _columns(self, per_query)
        return pd.DataFrame({"run": runs, "query": queries, "measure": names,
                             "value": values})

    def wide(self) -> pandas.DataFrame:
        """The summary values as a DataFrame: one row per run, one column per measure."""
        pd = _pandas()
        table = self.to_dict()
        return pd.DataFrame.from_dict(table, orient="index").rename_axis("run")

    def to_dict(self, per_query: bool = False) -> dict[str, dict[str, Any]]:
        """``{run: {measure: value}}``, or with ``per_query`` ``{run: {qid: {measure: value}}}``
        (pytrec_eval's shape, one level up)."""
        from smarteval.render.evaluation import printed
        out: dict[str, dict[str, Any]] = {}
        for ev in self:
            numeric = printed(ev, numbers_only=True)
            if per_query:
                cols = {ev.label(o): (ev.per_query[o.name].tolist(),
                                      has_value(o, ev.per_query[o.name]))
                        for o in numeric if o.measure.per_query}
                out[ev.name] = {q: {n: v[i] for n, (v, has) in cols.items() if has[i]}
                                for i, q in enumerate(ev.qids.tolist())}
            else:
                out[ev.name] = {ev.label(o): _plain(ev.summary[o.name]) for o in numeric
                                if ev.summary[o.name] is not None}
        return out

    def per_query(self, measure: str) -> dict[str, np.ndarray]:
        """``{run: (Q,) values}`` of one measure (each run's ``qids`` give the queries),
        named as asked for (``map``, z-scores included)."""
        return {ev.name: ev.per_query[measure] for ev in self}

    def render(self, fmt: str = "smart", *, per_query: bool = False, summary: bool = True,
               header: bool = True) -> str:
        """The text ``smarteval evaluate -f FMT`` prints for these evaluations (``-q``,
        ``-n``, ``--no-header``)."""
        from smarteval.render.evaluation import check_options, render
        check_options(fmt, per_query=per_query, summary=summary)
        if not self:
            return "" if fmt not in ("smart", "markdown", "latex", "html") else \
                "No run evaluated\n"
        return render(list(self), fmt, per_query=per_query, summary=summary, header=header)

    def pieces(self, fmt: str = "smart", *, per_query: bool = False, summary: bool = True,
               header: bool = True) -> Iterator[str]:
        """:meth:`render`'s text in pieces, a few thousand queries at a time for
        trec_eval's format, TSV and CSV (what ``smarteval evaluate`` writes as it comes)."""
        from smarteval.render.evaluation import check_options, render_pieces
        check_options(fmt, per_query=per_query, summary=summary)
        if not self:
            return iter([self.render(fmt, per_query=per_query, summary=summary,
                                     header=header)])
        return render_pieces(list(self), fmt, per_query=per_query, summary=summary,
                             header=header)


def _numeric(out) -> bool:
    return out.measure.value != "str"


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return v


def _rows(ev: Evaluation, per_query: bool):
    runs, queries, names, values = _columns([ev], per_query)
    yield from zip(runs.tolist(), queries.tolist(), names.tolist(), values.tolist())


def _columns(evaluations, per_query: bool):
    """The tidy columns of ``evaluations``, built per measure (no loop over rows): the
    rows ``evaluate -f tsv`` prints, in its order."""
    from smarteval.render.evaluation import printed
    runs, queries, names, values = [], [], [], []
    for ev in evaluations:
        numeric = printed(ev, numbers_only=True)
        if per_query:
            nq = len(ev.qids)
            cols = [o for o in numeric if o.measure.per_query]
            if nq and cols:
                block = np.column_stack([ev.per_query[o.name].astype(np.float64)
                                         for o in cols])
                has = np.column_stack([has_value(o, ev.per_query[o.name])
                                       for o in cols]).ravel()
                values.append(block.ravel()[has])
                queries.append(np.repeat(ev.qids.astype(object), len(cols))[has])
                names.append(np.tile(np.array([ev.label(o) for o in cols], dtype=object),
                                     nq)[has])
                runs.append(np.full(int(has.sum()), ev.name, dtype=object))
        summary = [o for o in numeric if ev.summary[o.name] is not None]
        values.append(np.array([float(ev.summary[o.name]) for o in summary],
                               dtype=np.float64))
        queries.append(np.full(len(summary), "all", dtype=object))
        names.append(np.array([ev.label(o) for o in summary], dtype=object))
        runs.append(np.full(len(summary), ev.name, dtype=object))

    def cat(parts, dtype):
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    return cat(runs, object), cat(queries, object), cat(names, object), \
        cat(values, np.float64)


# --------------------------------------------------------------------------- evaluate

def _check_options(options: dict, settings: Settings | None, what: str) -> Settings:
    unknown = sorted(set(options) - _SETTING_NAMES)
    if unknown:
        raise TypeError(f"{what}() got unexpected keyword arguments: {', '.join(unknown)}")
    if settings is not None and not isinstance(settings, Settings):
        raise UsageError(f"settings must be a Settings, not {type(settings).__name__}")
    return replace(settings or Settings(), **options)


def _qrels_source(qrels: Source) -> Source:
    if isinstance(qrels, Run):
        raise UsageError(f"qrels: {qrels.path} was read as a run (Run), not as qrels: read "
                         "it with smarteval.read.read_qrels, or give its path")
    return evaluation.as_qrels(qrels) if is_in_memory(qrels) else qrels


def _split_runs(runs: Source) -> list[tuple[str | None, Any]]:
    """:func:`smarteval.read.frames.split_runs`, which a path or a list of paths (the
    command line's runs) need not import."""
    if isinstance(runs, (str, os.PathLike)):
        return [(None, runs)]
    if isinstance(runs, (list, tuple)) and all(isinstance(r, (str, os.PathLike)) for r in runs):
        return [(None, r) for r in runs]
    from smarteval.read.frames import split_runs
    return split_runs(runs)


def _run_sources(runs: Source, *, eager_names: bool = False,
                 first_tag: str | None = None) -> tuple[list, list[str | None]]:
    """The runs (in-memory ones read, with a tag), and the name a ``{name: run}`` gave each."""
    entries = _split_runs(runs)
    given, names = [], []
    for i, (name, src) in enumerate(entries):
        if isinstance(src, Qrels):
            raise UsageError(f"runs: {src.path} was read as qrels (Qrels), not as a run")
        default = first_tag if (i == 0 and first_tag) else \
            (f"run{i + 1}" if len(entries) > 1 else "run")
        if is_in_memory(src):
            from smarteval.read.frames import run_from
            src = run_from(src, tag=name, default_tag=default,
                           name=f"<run {name}>" if name else None)
        elif name is not None and eager_names:
            src = replace(evaluation.as_run(src), tag=name)
        given.append(src)
        names.append(name)
    return given, names


def evaluate(qrels: Source, runs: Source,
             measures: str | Request | Iterable[str] | Sequence[Request] | None = ("official",),
             *, settings: Settings | None = None, frozen: Source = None,
             frozen_depth: int | None = None, require_common: bool = True,
             on_run: Callable[[RunInfo], None] | None = None, jobs: int | None = 1,
             keep_ranked: bool = True, zscores: str | os.PathLike | ZScores | None = None,
             risk_baseline: Source = None, risk_alpha: float = 0.0, table: bool = False,
             on_note: Callable[[str], None] | None = None, block_rows: int | None = None,
             on_block: Callable[[Block], None] | None = None, **options: Any) -> Results:
    """Evaluate one or more runs against qrels, as ``smarteval evaluate`` does.

    ``qrels`` and each run may be a path (TREC text, plain or compressed, Parquet or JSON
    Lines), an already-read :class:`~smarteval.columns.Qrels` / :class:`~smarteval.columns.Run`,
    a pandas DataFrame (``qid, docno, score``/``label`` or ``query_id, doc_id,
    score``/``relevance``), a ``{qid: {docno: value}}`` dict or an iterable of
    ir_datasets / ir_measures namedtuples. ``runs`` may be a single run, a list of runs or
    a ``{name: run}`` dict (the names become the runs' names). ``measures`` takes
    trec_eval's ``-m`` syntax (``"P.5,10"``, ``"official"``) or ir_measures names
    (``"nDCG@10"``), one string or several; None takes what the command prints without
    ``-m``: ``official``, SMART's table (Keen Fig. 5) when ``table``, or the measures of
    a ``qrels_format`` read for its own (``prefs``, ``qrels_jg``). Any field of
    :class:`~smarteval.settings.Settings` may be given as a keyword (``complete=True``,
    ``rel_level=2``, ``max_docs``, ``judged_only``, ``trec_version=10``, ``num_docs``,
    ``ties``, ``average``...); it overrides ``settings``.
    ``frozen`` (a run) with ``frozen_depth`` k evaluates every run on the residual
    collection without the first k documents of ``frozen`` (Joiner & Werner).
    ``risk_baseline`` (a run) gives each run's risk-sensitive values against it instead
    of its own (ndeval's ``-baseline``), losses weighted by 1 + ``risk_alpha``.

    Runs given as paths are read one at a time and released once evaluated; ``jobs`` > 1
    evaluates them in that many processes (this one among them; the qrels are read once
    and shared), ``jobs=None`` in as many as pay (:func:`smarteval.evaluation.default_jobs`:
    one per CPU for several runs of modest size). Off Linux, where processes are not
    forked, ``jobs=None`` is one process and ``jobs`` > 1 starts fresh processes, each
    handed the qrels.
    ``keep_ranked=False`` drops each :class:`Evaluation`'s ranking to save memory; then
    a long run file (64 MiB of text or more, or any with ``block_rows``) grouped by query,
    as TREC runs are, is read and evaluated a block of whole queries at a time (about
    ``block_rows`` rows, a million by default), in memory bounded by a block and the
    per-query values, where every measure asked for allows it (one query's values
    alone: trec_eval's, SMART's, ir_measures', NTCIREVAL's, without ``-Z``, a micro
    average or random tie order). A run whose lines are not grouped is read whole, with
    a note of what it costs. ``on_block`` is told of each block (how far into the file).
    Runs that would print under one name (the same file twice) get distinct names.
    ``zscores`` (a z-score file's path, or one read by
    :func:`smarteval.read.zscores.read_zscores`) turns every value into a z-score, as
    ``evaluate -Z`` does (converted all queries at once, before each measure's average).

    What cannot work is refused at once with :class:`~smarteval.errors.UsageError`, before
    anything is read (a setting out of its range, ``jobs=0``, a run given as the qrels);
    a bad input raises :class:`~smarteval.errors.InputError`, naming the file (or the
    in-memory input) and the line (or row, counted from 1).

    The result is a list of :class:`Evaluation` (:class:`Results`), which also gives the
    values as DataFrames (``.frame()``, ``.wide()``) and dicts (``.to_dict()``), and the
    notes of the call (``.notes``). ``on_note`` is called with each note about the call
    itself (an option that changes nothing, a measure ignored) as soon as it is found,
    before anything is read; the notes about the results follow them in ``.notes``.

    >>> ev = evaluate("sample_data/qrels.txt", "sample_data/bm25.run", ["map", "P.10"])[0]
    >>> round(ev.summary["map"], 4), ev.per_query["P_10"][:3].tolist()
    (0.1569, [0.3, 0.6, 0.0])
    """
    settings = _check_options(options, settings, "evaluate")
    notes: list[str] = []

    def tell(text: str) -> None:
        notes.append(text)
        if on_note is not None:
            on_note(text)

    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise UsageError(f"jobs must be a whole number, 1 or more, or None, not {jobs!r}")
    if block_rows is not None and (isinstance(block_rows, bool)
                                   or not isinstance(block_rows, int) or block_rows < 1):
        raise UsageError(f"block_rows must be a whole number, 1 or more, or None, not "
                         f"{block_rows!r}")
    read_once({"qrels": qrels, "runs": runs, "frozen": frozen, "zscores": zscores,
               "risk_baseline": risk_baseline, "cwl_costs": settings.cwl_costs})
    qrels = _qrels_source(qrels)
    given, names = _run_sources(runs)
    evaluation.check_runs(given)
    if zscores is not None:
        check_zscores_average(settings.average)
    requests = _requests(measures, settings, table, tell)
    if risk_baseline is not None or risk_alpha:     # the statistics stage only then
        from smarteval.stats.baseline_risk import check_risk_alpha, check_risk_measures
        check_risk_alpha(risk_alpha)
        if risk_baseline is not None:
            check_risk_measures([rq.measure for rq in requests])
        else:
            tell(f"--risk-alpha {risk_alpha:g} has no effect without --risk-baseline")
    for text in unused_notes(settings, requests) + repeated_notes(given):
        tell(text)
    if settings.unjudged == "range":
        from smarteval.measures.grammar import readings_note, unjudged_range
        note = readings_note(unjudged_range([o for rq in requests for o in rq.outputs()],
                                            settings))
        if note:
            tell(note)
    # read once, whatever the number of runs; in the format asked for (-R)
    relevance = evaluation.read_relevance(qrels, requests, settings)
    if risk_baseline is not None:
        (base,), _ = _run_sources([risk_baseline])
        given, names = [base, *given], [None, *names]
    results = evaluation.evaluate(relevance, given, requests, settings, frozen=frozen,
                                  frozen_depth=frozen_depth, require_common=require_common,
                                  on_run=on_run, jobs=jobs, keep_ranked=keep_ranked,
                                  zscores=zscores, block_rows=block_rows, on_block=on_block)
    for ev in results:
        notes.extend(ev.notes)
    chosen = [name if name is not None else ev.name for ev, name in zip(results, names)]
    for ev, name in zip(results, distinct_names(chosen)):
        ev.name = name
    if settings.complete:
        from smarteval.render.evaluation import complete_notes
        for ev in results:
            notes.extend(complete_notes(ev))
    from smarteval.render.evaluation import relevance_notes
    notes.extend(relevance_notes(evaluation.judgements(relevance)[0], results, requests,
                                 settings))
    if risk_baseline is not None:
        from smarteval.stats.baseline_risk import risk_evaluations
        results = risk_evaluations(results[1:], results[0], risk_alpha)
    return Results(results, notes, settings)


def _no_measures(measures) -> bool:
    """Whether ``measures`` asks for the defaults: None, or an empty list (every call takes
    ``[]`` as the command line takes no -m)."""
    return measures is None or isinstance(measures, (list, tuple)) and not measures


def _or_defaults(measures: str | Sequence[str] | None,
                 defaults: Sequence[str]) -> str | Sequence[str]:
    """``measures``, or ``defaults`` where they ask for them (:func:`_no_measures`)."""
    return defaults if measures is None or _no_measures(measures) else measures


def _requests(measures, settings: Settings, table: bool,
              tell: Callable[[str], None]) -> list[Request]:
    """The requests for ``measures`` (None or none: the defaults), each note told."""
    from smarteval.measures.grammar import default_requests, parse_measures
    if _no_measures(measures):
        requests, dropped = default_requests(table=table, num_docs=settings.num_docs,
                                             ties=settings.ties, version=settings.trec_version,
                                             qrels_format=settings.qrels_format)
        if dropped:
            tell("--ties average: left out " + ", ".join(dropped)
                 + " (no exact average over tied orders)")
        return requests
    wanted = measure_specs(measures)
    # (one measure, not a string of one-letter names)
    if wanted and all(isinstance(m, Request) for m in wanted):
        return wanted
    return parse_measures(wanted, settings.trec_version, on_note=tell)


def unused_notes(settings: Settings, requests: Sequence[Request] | None = None,
                 method: str | None = None) -> list[str]:
    """What the user asked for that changes nothing, in words (for standard error).

    ``requests`` are the measures evaluated, when the call evaluates measures;
    ``method`` the curve method, when it computes curves.
    """
    notes = []
    if settings.seed is not None and settings.ties != "random":
        notes.append(f"--seed {settings.seed} has no effect without --ties random "
                     f"(--ties {settings.ties})")
    if requests is not None and settings.target_generality is not None \
            and not any(rq.measure.name == "adj_prec" for rq in requests):
        notes.append("--target-generality has no effect: only adj_prec reads it, and it "
                     "is not asked for (-m adj_prec.K)")
    if requests is not None and not any(rq.measure.reads_gains for rq in requests):
        for given, option in ((settings.cwl_costs is not None, "--cwl-costs"),
                              (settings.cwl_default_cost != 1.0, "--cwl-default-cost")):
            if given:
                notes.append(f"{option} has no effect: only the C/W/L measures (INST, TBG, "
                             "BPM...) read it, and none is asked for")
    if method is not None and settings.target_generality is not None and method != "adjusted":
        notes.append(f"--target-generality has no effect: only --method adjusted reads it "
                     f"(--method {method})")
    return notes


def repeated_notes(paths: Iterable, what: str = "run") -> list[str]:
    """A note for each file given more than once among ``paths`` (other inputs: none)."""
    from smarteval.read.source import same_file
    notes: list[str] = []
    seen: list[str] = []
    for path in paths:
        if not isinstance(path, str) or path == "-":
            continue
        if any(same_file(path, other) for other in seen):
            if path not in notes:
                notes.append(path)
            continue
        seen.append(path)
    return [f"{path}: this {what} is given more than once (each is evaluated, under "
            "distinct names)" for path in notes]


# --------------------------------------------------------------------------- compare

@record(repr=False)
class Comparison(Shown):
    """What ``compare`` found (:class:`~smarteval.stats.report.Report`), as data and text."""

    report: Report

    def frame(self) -> pandas.DataFrame:
        """One row per (run, measure, test): the columns of ``compare -f tsv``."""
        from smarteval.render.compare import COLUMNS
        pd = _pandas()
        return pd.DataFrame([{c: r[c] for c in COLUMNS} for r in self.report.rows],
                            columns=list(COLUMNS))

    def render(self, fmt: str = "smart", *, magnitudes: bool = False,
               header: bool = True) -> str:
        """The text ``smarteval compare -f FMT`` prints."""
        from smarteval.render.compare import render_report
        return render_report(self.report, fmt, show_magnitudes=magnitudes, header=header)

    def failures(self, fail_if: str = "worse", tolerance: float = 0.0) -> list[str]:
        """What ``compare --fail-if FAIL_IF --tolerance X`` says of these runs: one line per
        run and measure that regressed (``worse``: the mean below the baseline's by more
        than ``tolerance``; ``significantly-worse``: so, and significantly); empty when
        none did."""
        from smarteval.stats.gate import comparison_failures
        return comparison_failures(self.report, fail_if, tolerance)

    @property
    def notes(self) -> list[str]:
        return self.report.notes


def compare(qrels: Source, baseline: Source, runs: Source,
            measures: str | Sequence[str] | None = ("map",), *,
            baseline_results: str | os.PathLike | None = None,
            tests: str | Sequence[str] = ("t",),
            correction: str = "holm", alpha: float = 0.05, confidence: float = 0.95,
            samples: int = 10000, seed: int | None = 0, tie_tolerance: float = 0.0,
            select: str | None = None, depth: int = 200, theta: float = 1.5,
            tau: bool = False, settings: Settings | None = None,
            on_run: Callable[[RunInfo], None] | None = None,
            on_samples: Callable[[int, int], None] | None = None,
            **options: Any) -> Comparison:
    """Compare each run with ``baseline`` query by query, as ``smarteval compare`` does.

    Inputs take every form :func:`evaluate` takes; ``tests`` (``t``, ``wilcoxon``, ``sign``,
    ``randomization``, ``bootstrap``) and ``correction`` (``holm``, ``bonferroni``,
    ``bh``, ``none``) as ``--test`` and ``--correction``; ``select`` names the cut-off
    measure of Joiner & Werner's selection (``--select --select-measure``); keywords
    that are :class:`~smarteval.settings.Settings` fields set the evaluation (``complete``,
    ``rel_level``...).

    ``baseline_results`` (the path of what ``evaluate -q -f json``, ``tsv`` or ``csv``
    wrote for the baseline's run, with ``baseline`` None) is a stored baseline: its
    per-query values are compared as read, and its run is not needed (what a CI job
    keeps). The runs should be evaluated under the settings the baseline was.
    ``on_run`` is told of each run evaluated, ``on_samples(done, total)`` of the samples
    the randomization and bootstrap tests have drawn (samples x queries; progress).

    >>> cmp = compare("sample_data/qrels.txt", "sample_data/bm25.run",
    ...               ["sample_data/dense.run"], "map", tests="t")
    >>> row = cmp.report.rows[0]
    >>> row["run"], row["better"], row["worse"], round(row["p_value"], 4)
    ('dense', 13, 2, 0.0002)
    """
    from smarteval.stats.report import compare_runs
    settings = _check_options(options, settings, "compare")
    measures = _or_defaults(measures, ("map",))
    measures = measure_specs(measures)
    if isinstance(tests, str):
        tests = [tests]
    read_once({"qrels": qrels, "baseline": baseline, "runs": runs,
               "cwl_costs": settings.cwl_costs})
    qrels = _qrels_source(qrels)
    if baseline_results is not None:
        if baseline is not None:
            raise UsageError("give the baseline's run or its stored results "
                             "(baseline_results), not both")
        from smarteval.read.results import read_baseline
        base = read_baseline(os.fspath(baseline_results))
    elif baseline is None:
        raise UsageError("give a baseline: its run, or its stored results (baseline_results)")
    else:
        (base,), _ = _run_sources([baseline] if not isinstance(baseline, Mapping)
                                  or _split_runs(baseline)[0][0] is None
                                  else baseline, eager_names=True, first_tag="baseline")
    given, _ = _run_sources(runs, eager_names=True)
    rep = compare_runs(qrels, base, given, list(measures), settings, tests=list(tests),
                       correction=correction, alpha=alpha, confidence=confidence,
                       samples=samples, seed=seed, tolerance=tie_tolerance, select=select,
                       depth=depth, theta=theta, tau=tau, on_run=on_run,
                       on_samples=on_samples)
    return Comparison(rep)


# --------------------------------------------------------------------------- report

@record(repr=False)
class ReportTable(Shown):
    """The table of a paper (:class:`~smarteval.stats.table.Table`), as data and as text."""

    table: Table

    def render(self, fmt: str = "smart", *, second: bool = False, wins: bool = False,
               deltas: bool = False, digits: int = 4, header: bool = True,
               standalone: bool = False, anova: bool = False, pairs: bool = False) -> str:
        """The text ``smarteval report -f FMT`` prints (``--second``, ``--pairs``,
        ``--wins``, ``--deltas``, ``--digits``, ``--no-header``, ``--standalone``,
        ``--anova``)."""
        from smarteval.render.table import render_table
        return render_table(self.table, fmt, second=second, wins=wins, deltas=deltas,
                            digits=digits, header=header, standalone=standalone, anova=anova,
                            pairs=pairs)

    def frame(self) -> pandas.DataFrame:
        """One row per (run, measure), its mean, interval, place and marks: the table of
        ``report -f tsv`` (:meth:`pairs_frame`, :meth:`anova_frame`, :meth:`wins_frame`
        and :meth:`deltas_frame` are those of ``--pairs``, ``--anova``, ``--wins`` and
        ``--deltas``)."""
        return self._frame([{**c, "better_than": ";".join(c["better_than"])}
                            for c in self.table.cells()], "CELL_COLUMNS")

    def wide(self) -> pandas.DataFrame:
        """Runs x measures: each run's mean (index: the run labels); the marks, intervals
        and caption are in ``.attrs``."""
        from smarteval.render.table import Plain, caption
        pd = _pandas()
        t = self.table
        frame = pd.DataFrame(t.means, index=pd.Index(t.runs, name="run"), columns=t.measures)
        cells = t.cells()
        frame.attrs.update(caption=caption(t, Plain()), test=t.test, correction=t.correction,
                           alpha=t.alpha, queries=len(t.qids),
                           marks={(c["run"], c["measure"]): c["better_than"] for c in cells},
                           ci={(c["run"], c["measure"]): (c["ci_low"], c["ci_high"])
                               for c in cells})
        return frame

    def to_frame(self) -> pandas.DataFrame:
        """:meth:`wide`, under the name of earlier versions (``.frame()`` is every result's
        table of ``-f tsv``)."""
        return self.wide()

    def cells_frame(self) -> pandas.DataFrame:
        """One row per (run, measure), ``better_than`` a list: :meth:`frame`'s rows."""
        return self._frame(self.table.cells(), "CELL_COLUMNS")

    def pairs_frame(self) -> pandas.DataFrame:
        """One row per comparison: the pair, the difference (with Tukey's simultaneous
        interval), Sakai's ES_E, raw and adjusted p, which run is better (``report -f tsv
        --pairs``)."""
        return self._frame(self.table.comparisons(), "COMPARISON_COLUMNS")

    def comparisons_frame(self) -> pandas.DataFrame:
        """:meth:`pairs_frame`, under the name of earlier versions."""
        return self.pairs_frame()

    def anova_frame(self) -> pandas.DataFrame:
        """Each measure's two-way ANOVA without replication (runs x queries): sums of
        squares, df, mean squares, F, p and the runs' effect size, one row per source."""
        return self._frame(self.table.anova_rows(), "ANOVA_COLUMNS")

    def wins_frame(self) -> pandas.DataFrame:
        """Keen's Fig. 35 counts: one row per pair and measure."""
        return self._frame(self.table.win_counts(), "WIN_COLUMNS")

    def deltas_frame(self, baseline: str | None = None) -> pandas.DataFrame:
        """Per-query differences from each baseline (or from the run labelled ``baseline``)."""
        return self._frame(self.table.deltas(baseline), "DELTA_COLUMNS")

    @staticmethod
    def _frame(rows: list[dict], columns: str) -> pandas.DataFrame:
        from smarteval.render import table as render
        pd = _pandas()
        return pd.DataFrame(rows, columns=list(getattr(render, columns)))

    def failures(self, fail_if: str = "worse", tolerance: float = 0.0) -> list[str]:
        """What ``report --fail-if FAIL_IF --tolerance X`` says: one line per run, baseline
        and measure where the run regressed (as :meth:`Comparison.failures`)."""
        from smarteval.stats.gate import table_failures
        return table_failures(self.table, fail_if, tolerance)

    @property
    def notes(self) -> list[str]:
        return self.table.notes


def report(qrels: Source, runs: Source, measures: str | Sequence[str] | None = None, *,
           baselines: str | Sequence[str] = (),
           baseline_results: str | os.PathLike | None = None,
           labels: Mapping[str, str] | Sequence[str] | None = None,
           test: str = "t", correction: str | None = None, alpha: float = 0.05,
           confidence: float = 0.95, interval: str | None = None, samples: int = 10000,
           seed: int | None = 0, tie_tolerance: float = 0.0,
           settings: Settings | None = None, on_run: Callable[[RunInfo], None] | None = None,
           **options: Any) -> ReportTable:
    """The table of a paper, as ``smarteval report`` makes it: runs x measures, each
    mean (with its ``interval``, ``t`` or ``bootstrap``), and marks where a run is
    significantly better than another (every pair) or than each of ``baselines``.

    Inputs take every form :func:`evaluate` takes (a ``{name: run}`` dict names the runs);
    ``measures`` default to map, P.10 and ndcg_cut.10; ``labels`` maps a run's path or
    tag to its name in the table (or lists ``RUN=NAME`` strings); ``baselines`` are
    labels, tags or paths. ``baseline_results`` (what ``evaluate -q -f json``, ``tsv`` or
    ``csv`` wrote) adds each run of the file to the table as a baseline, its per-query
    values as read (a stored baseline whose name a run has is named ``NAME (baseline)``).
    ``test`` is one of compare's tests or, every pair only,
    ``tukey`` (Tukey's HSD blocked by query), ``randomized-tukey`` or
    ``tukey-independent``; ``correction`` (``holm``, ``bonferroni``, ``bh``, ``none``;
    None: holm, and nothing beyond Tukey's own adjustment for the Tukey tests) applies
    over every comparison of the table.

    >>> t = report("sample_data/qrels.txt", ["sample_data/bm25.run",
    ...            "sample_data/dense.run"], "map")
    >>> t.table.runs, t.table.cells()[1]["better_than"]
    (['bm25', 'dense'], ['bm25'])
    """
    from smarteval.stats.table import DEFAULT_MEASURES, table_runs
    settings = _check_options(options, settings, "report")
    measures = _or_defaults(measures, DEFAULT_MEASURES)
    measures = measure_specs(measures)
    if isinstance(baselines, str):
        baselines = [baselines]
    read_once({"qrels": qrels, "runs": runs, "cwl_costs": settings.cwl_costs})
    qrels = _qrels_source(qrels)
    given, _ = _run_sources(runs, eager_names=True)
    stored = []
    if baseline_results is not None:
        from smarteval.read.results import read_per_query
        stored = read_per_query(os.fspath(baseline_results))
    return ReportTable(table_runs(
        qrels, given, list(measures), settings, on_run=on_run, baselines=list(baselines),
        stored=stored,
        labels=labels, test=test, correction=correction, alpha=alpha, confidence=confidence,
        interval=interval, samples=samples, seed=seed, tolerance=tie_tolerance))


# --------------------------------------------------------------------------- discriminative power

@record(repr=False)
class DiscriminativePower(Shown):
    """Each measure's discriminative power (:class:`~smarteval.stats.discpower.Discpower`),
    as data and as text."""

    results: list[Discpower]

    def render(self, fmt: str = "smart", *, pairs: bool = False, digits: int = 4,
               header: bool = True) -> str:
        """The text ``smarteval discpower -f FMT`` prints (``--pairs``, ``--digits``,
        ``--no-header``)."""
        from smarteval.render.discpower import render_discpower
        return render_discpower(self.results, fmt, pairs=pairs, digits=digits, header=header)

    def frame(self) -> pandas.DataFrame:
        """One row per measure: pairs, significant pairs, their share, the difference needed."""
        from smarteval.render.discpower import SUMMARY_COLUMNS
        return _pandas().DataFrame([r.summary() for r in self.results],
                                   columns=list(SUMMARY_COLUMNS))

    def pairs_frame(self) -> pandas.DataFrame:
        """One row per (measure, pair): the difference of means and its ASL."""
        from smarteval.render.discpower import PAIR_COLUMNS
        return _pandas().DataFrame([row for r in self.results for row in r.rows()],
                                   columns=list(PAIR_COLUMNS))

    @property
    def notes(self) -> list[str]:
        return [n for r in self.results for n in r.notes]


def discpower(qrels: Source, runs: Source, measures: str | Sequence[str] | None = None, *,
              test: str = "randomized-tukey", correction: str | None = None,
              alpha: float = 0.05, samples: int = 10000, seed: int | None = 0,
              labels: Mapping[str, str] | Sequence[str] | None = None,
              settings: Settings | None = None, on_run: Callable[[RunInfo], None] | None = None,
              **options: Any) -> DiscriminativePower:
    """The discriminative power of each measure over every pair of ``runs`` (Sakai, SIGIR
    2006), as ``smarteval discpower`` gives it: each pair's achieved significance level
    under ``test`` (``randomized-tukey``, the randomised Tukey HSD of Sakai's Discpower;
    ``bootstrap``, Sakai 2006's studentized paired bootstrap tests; ``tukey``,
    ``randomization`` or ``t``, the paired ones corrected by ``correction``), the share
    of pairs below ``alpha``, and the estimated difference a pair needs. ``measures``
    default to map, P.10 and ndcg_cut.10.

    >>> d = discpower("sample_data/qrels.txt", ["sample_data/bm25.run",
    ...               "sample_data/dense.run"], "map", test="tukey")
    >>> d.results[0].significant, len(d.results[0].asl)
    (1, 1)
    """
    from smarteval.stats.discpower import discpower_runs
    from smarteval.stats.table import DEFAULT_MEASURES
    settings = _check_options(options, settings, "discpower")
    measures = _or_defaults(measures, DEFAULT_MEASURES)
    if isinstance(measures, str):
        measures = [measures]
    read_once({"qrels": qrels, "runs": runs, "cwl_costs": settings.cwl_costs})
    qrels = _qrels_source(qrels)
    given, _ = _run_sources(runs, eager_names=True)
    return DiscriminativePower(discpower_runs(
        qrels, given, list(measures), settings, on_run=on_run, labels=labels, test=test,
        correction=correction, alpha=alpha, samples=samples, seed=seed))


# --------------------------------------------------------------------------- topic set sizes

@record(repr=False)
class TopicSets(Shown):
    """Topic set sizes (:class:`~smarteval.stats.topicsets.Design`, one per cell of
    Sakai's tables), as data and as text."""

    designs: list[Design]
    notes: list[str]

    def render(self, fmt: str = "smart", *, header: bool = True) -> str:
        """The text ``smarteval topics -f FMT`` prints."""
        from smarteval.render.topicsets import render_topics
        return render_topics(self.designs, fmt, header=header)

    def frame(self) -> pandas.DataFrame:
        """One row per design: the variance (and its measure), difference, alpha, beta,
        systems, the topics needed and the power (or width) they reach."""
        from smarteval.render.topicsets import COLUMNS
        return _pandas().DataFrame([d.row() for d in self.designs], columns=list(COLUMNS))


def topics(diffs: float | Sequence[float], variances: float | Sequence[float] | None = None,
           *, method: str = "t", systems: int | Sequence[int] = 2, alpha: float = 0.05,
           beta: float = 0.20, qrels: Source | None = None, runs: Source | None = None,
           measures: str | Sequence[str] | None = None, estimate: str = "residual",
           settings: Settings | None = None, on_run: Callable[[RunInfo], None] | None = None,
           **options: Any) -> TopicSets:
    """Topic set size design (Sakai, Information Retrieval Journal 2016), as ``smarteval
    topics`` gives it: the topics ``method`` needs (``t``: a paired t-test's power 1 -
    ``beta`` against a difference; ``anova``: one-way ANOVA's over ``systems`` systems
    against a range; ``ci``: a confidence interval's expected width at most the
    difference), for each difference of ``diffs`` and each within-system variance: those
    of ``variances``, or each measure's estimate over ``runs`` (``estimate``: residual,
    V_E of the two-way ANOVA without replication; within, one-way ANOVA's).

    >>> t = topics([0.05, 0.1], 0.05)
    >>> [d.topics for d in t.designs]
    [316, 81]
    """
    from smarteval.stats.topicsets import table, variances_from_runs
    settings = _check_options(options, settings, "topics")
    read_once({"qrels": qrels, "runs": runs})
    diffs = [diffs] if isinstance(diffs, (int, float)) else list(diffs)
    sizes = [systems] if isinstance(systems, int) else list(systems)
    notes: list[str] = []
    if runs is not None:
        if variances is not None:
            raise UsageError("give variances or runs to estimate them from, not both")
        if qrels is None:
            raise UsageError("runs need their qrels to estimate a variance")
        from smarteval.stats.report import evaluate_comparable
        from smarteval.stats.table import DEFAULT_MEASURES
        measures = _or_defaults(measures, DEFAULT_MEASURES)
        if isinstance(measures, str):
            measures = [measures]
        given, _ = _run_sources(runs, eager_names=True)
        evs, names, _ = evaluate_comparable(_qrels_source(qrels), given, list(measures),
                                            settings, "no measure to estimate a variance of",
                                            on_run)
        found, notes = variances_from_runs(evs, names, estimate)
        return TopicSets(table(method, found, diffs, alpha=alpha, beta=beta, systems=sizes),
                         notes)
    if variances is None:
        raise UsageError("give a variance, or runs to estimate it from")
    given_v = [variances] if isinstance(variances, (int, float)) else list(variances)
    return TopicSets(table(method, given_v, diffs, alpha=alpha, beta=beta, systems=sizes),
                     notes)


# --------------------------------------------------------------------------- curves

@record(repr=False)
class Curves(Shown):
    """Each run's curve (``smarteval curve``), or with ``cutoffs_from`` each run's point."""

    result: RunCurves | RunPoints
    rel_level: int = 1              # -l: the grade from which a document is relevant

    def render(self, fmt: str = "smart", *, header: bool = True) -> str:
        """The text ``smarteval curve -f FMT`` prints."""
        from smarteval.curves import RunCurves
        from smarteval.render.curves import render_curves, render_points
        r = self.result
        if isinstance(r, RunCurves):
            return render_curves(r.curves, r.names, r.queries, fmt, header=header,
                                 full_curve=r.full, full_name=r.full_name)
        return render_points(r.points, r.names, r.other, r.other_name, fmt, header=header)

    def notes(self) -> list[str]:
        """What standard error should say of the curves: that no judgement of the queries
        evaluated reaches ``-l``, when none does (every curve is then 0)."""
        from smarteval.render.evaluation import nothing_relevant
        r = self.result
        return [] if r.qrels is None else nothing_relevant(r.qrels, list(r.qids),
                                                            self.rel_level)

    def frame(self) -> pandas.DataFrame:
        """The rows of ``curve -f tsv`` as a DataFrame (one row per run and level)."""
        return _tsv_frame(self.render("tsv"), ("run",))


def _tsv_frame(text: str, names: Sequence[str]) -> pandas.DataFrame:
    import io
    pd = _pandas()
    return pd.read_csv(io.StringIO(text), sep="\t", dtype={n: str for n in names},
                       keep_default_na=False, na_values=[""])


def curve(qrels: Source, runs: Source, levels: str | Sequence[float] | None = None, *,
          method: str = "quasi", step: str | None = None, left: str | None = None,
          average: str = "macro", full: Source = None, end: str | None = None,
          cutoffs_from: Source = None, settings: Settings | None = None,
          on_run: Callable[[RunInfo], None] | None = None, block_rows: int | None = None,
          on_block: Callable[[Block], None] | None = None, **options: Any) -> Curves:
    """Each run's averaged curve at its levels, as ``smarteval curve`` computes it.

    ``method`` is one of the curve methods (``quasi``, ``semi``, ``pseudo``, ``cluster``,
    ``characteristic``, ``points``, ``fallout``, ``adjusted``, ``precision``, ``cnr``);
    ``cutoffs_from`` (a run) gives instead each run's precision-recall pair at that
    system's set sizes (Keen part 7). ``on_run`` is called with each run's info once its
    curve is computed (progress). The semi- and quasi-Cranfield curves (macro or median)
    of a long run file are made a block of whole queries at a time, as :func:`evaluate`
    evaluates it (``block_rows``, ``on_block``).

    >>> c = curve("sample_data/qrels.txt", "sample_data/bm25.run", "0.1,0.5")
    >>> c.result.curves[0].value.round(4).tolist()
    [0.4926, 0.0814]
    """
    from smarteval.curves import run_curves, run_points
    settings = _check_options(options, settings, "curve")
    read_once({"qrels": qrels, "runs": runs, "full": full, "cutoffs_from": cutoffs_from,
               "cwl_costs": settings.cwl_costs})
    qrels = _qrels_source(qrels)
    given, _ = _run_sources(runs, eager_names=True)
    if cutoffs_from is not None:
        (other,), _ = _run_sources([cutoffs_from], first_tag="cutoffs")
        return Curves(run_points(qrels, given, other, settings, average, on_run=on_run),
                      settings.rel_level)
    if full is not None:
        (full,), _ = _run_sources([full], first_tag="full")
    return Curves(run_curves(qrels, given, settings, levels, method=method, step=step,
                             left=left, average=average, full=full, end=end,
                             on_run=on_run, block_rows=block_rows, on_block=on_block),
                  settings.rel_level)


# --------------------------------------------------------------------------- correlate

@record(repr=False)
class Correlation(Shown):
    """How much the choice of measure changes the leaderboard (``smarteval correlate``)."""

    board: Leaderboards

    def render(self, fmt: str = "smart", *, header: bool = True) -> str:
        """The text ``smarteval correlate -f FMT`` prints."""
        from smarteval.render.correlate import render_leaderboards
        return render_leaderboards(self.board, fmt, header=header)

    def frame(self) -> pandas.DataFrame:
        """One row per pair of measures: the columns of ``correlate -f tsv``."""
        return _tsv_frame(self.render("tsv"), ("measure_a", "measure_b"))

    def leaderboard(self) -> pandas.DataFrame:
        """Each run's summary value under each measure (runs x measures)."""
        pd = _pandas()
        return pd.DataFrame(self.board.table, index=pd.Index(self.board.runs, name="run"),
                            columns=self.board.measures)


def correlate(results: str | os.PathLike | Sequence[Any], measures: str | Sequence[str] = (),
              trec_version: int = 9) -> Correlation:
    """Correlate the leaderboards that ``measures`` give (default: every shared measure).

    ``results`` are evaluation outputs as ``smarteval correlate`` reads them (paths), or
    evaluations (what :func:`evaluate` returns).

    >>> res = evaluate("sample_data/qrels.txt", ["sample_data/bm25.run",
    ...                "sample_data/dense.run", "sample_data/bm25_rm3.run"], ["map", "P.10"])
    >>> correlate(res).board.pairs[0].kendall
    1.0
    """
    from smarteval.stats.report import correlate_results, leaderboards
    measures = measure_specs(measures)
    if isinstance(results, (str, os.PathLike)):
        results = [results]
    items = list(results)
    read_once({"results": items})
    if items and all(isinstance(r, Evaluation) for r in items):
        systems = [(ev.name, {o.name: float(ev.summary[o.name]) for o in ev.outputs
                              if _numeric(o) and ev.summary[o.name] is not None}, ev.path)
                   for ev in items]
        return Correlation(leaderboards(systems, list(measures), trec_version))
    return Correlation(correlate_results([str(r) for r in items], list(measures),
                                         trec_version))


# --------------------------------------------------------------------------- ir_measures face

class Metric(NamedTuple):
    """One per-query value, as ir_measures' ``iter_calc`` gives it."""

    query_id: str
    measure: Any
    value: float


def _ir_measures(measures: Any) -> list[tuple[Any, str]]:
    """Each measure as (key to return it under, name smarteval reads)."""
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    out = []
    for m in measures:
        key = m
        if isinstance(m, str):
            try:
                import ir_measures
                key = ir_measures.parse_measure(m)
            except Exception:           # not an ir_measures name (a trec_eval one): the string
                key = m
        out.append((key, "".join(str(m).split())))
    return out


def _output_names(specs: list[str], settings: Settings) -> list[str]:
    from smarteval.measures.grammar import parse_measures
    names = []
    for spec in specs:
        outs = [o.name for rq in parse_measures([spec], settings.trec_version)
                for o in rq.outputs()]
        if len(outs) != 1:
            raise UsageError(f"{spec} gives {len(outs)} values ({', '.join(outs)}): give one "
                             "measure with one cut-off each")
        names.append(outs[0])
    return names


def _ir_evaluation(measures: Any, qrels: Source, run: Source, options: dict):
    wanted = _ir_measures(measures)
    settings = _check_options({"complete": True, **options}, None, "calc_aggregate")
    specs = [spec for _, spec in wanted]
    names = _output_names(specs, settings)
    (ev,) = evaluate(qrels, [run], specs, settings=settings)
    return wanted, names, ev


def calc_aggregate(measures: Any, qrels: Source, run: Source, **options: Any) -> dict[Any, float]:
    """ir_measures' ``calc_aggregate``: ``{measure: value}`` over every query of the qrels.

    ``measures`` are ir_measures measure objects or names (``nDCG@10``, ``AP``,
    ``P(rel=2)@10``; trec_eval names work too); the result is keyed by them as
    ir_measures keys it. A query of the qrels without results counts 0, as in
    ir_measures (smarteval's ``complete=True``).

    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    >>> run = {"q1": {"d1": 0.3, "d2": 0.9}}
    >>> {str(m): v for m, v in calc_aggregate(["AP", "P@1"], qrels, run).items()}
    {'AP': 0.25, 'P@1': 0.0}
    """
    wanted, names, ev = _ir_evaluation(measures, qrels, run, options)
    return {key: _plain(ev.summary[name]) for (key, _), name in zip(wanted, names)}


def iter_calc(measures: Any, qrels: Source, run: Source, **options: Any) -> Iterator[Metric]:
    """ir_measures' ``iter_calc``: a ``Metric(query_id, measure, value)`` per query of the
    qrels and measure (a query without results counts 0, as in ir_measures; Accuracy
    reports none there, nor where no relevant document is retrieved, as its provider).

    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    >>> run = {"q1": {"d1": 0.3, "d2": 0.9}}
    >>> [(m.query_id, str(m.measure), m.value) for m in iter_calc(["AP"], qrels, run)]
    [('q1', 'AP', 0.5), ('q2', 'AP', 0.0)]
    """
    wanted, names, ev = _ir_evaluation(measures, qrels, run, options)
    metric: Callable[..., Any] = Metric
    try:
        import ir_measures
        metric = ir_measures.Metric
    except ImportError:
        pass
    outputs = {o.name: o for o in ev.outputs}
    columns = [(ev.per_query[name].tolist(), has_value(outputs[name], ev.per_query[name]))
               for name in names]
    for i, q in enumerate(ev.qids.tolist()):
        for (key, _), (values, has) in zip(wanted, columns):
            if has[i]:
                yield metric(q, key, values[i])


def ir_measure(measure: str, **options: Any) -> Any:
    """``measure`` (any name smarteval reads, one value a query) as an ir_measures measure,
    computed by smarteval query by query; what PyTerrier's ``pt.Experiment`` takes in
    ``eval_metrics``, beside ir_measures' own.

    >>> import ir_measures
    >>> m = ir_measure("norm_recall", num_docs=100)
    >>> qrels = [ir_measures.Qrel("q1", "d1", 1)]
    >>> run = [ir_measures.ScoredDoc("q1", "d1", 1.0), ir_measures.ScoredDoc("q1", "d2", 0.5)]
    >>> ir_measures.calc_aggregate([m], qrels, run)[m]
    1.0
    """
    import ir_measures
    settings = _check_options(options, None, "ir_measure")
    (name,) = _output_names([measure], settings)

    def per_query(qrels: Any, run: Any) -> float:
        if not len(run) or not len(qrels):
            return 0.0
        (ev,) = evaluate(qrels, [run], [measure], settings=settings, require_common=False)
        return float(ev.per_query[name][0]) if len(ev.qids) else 0.0

    return ir_measures.define_byquery(per_query, name=name, support_cutoff=False)


class RelevanceEvaluator:
    """pytrec_eval's ``RelevanceEvaluator``: ``evaluate(run)`` gives ``{qid: {measure: value}}``
    for the queries of the run that the qrels judge, with trec_eval's measure names.

    >>> ev = RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "P.1"})
    >>> ev.evaluate({"q1": {"d1": 0.3, "d2": 0.9}})
    {'q1': {'map': 0.5, 'P_1': 0.0}}
    """

    def __init__(self, query_relevance: Source, measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False):
        self.settings = replace(Settings(), rel_level=relevance_level,
                                judged_only=judged_docs_only_flag)
        self.qrels = evaluation.as_qrels(query_relevance)
        unordered = isinstance(measures, (set, frozenset))
        names = sorted(measures) if unordered else list(measures)
        requests = evaluation.requests_for(names, self.settings)    # refused now, if at all
        if unordered:                   # a set asks in no order: trec_eval's
            for rq in requests:
                rq.asked = 0
        self.measures: list[str] | list[Request] = requests if unordered else names

    def evaluate(self, scores: Source) -> dict[str, dict[str, float]]:
        (ev,) = evaluate(self.qrels, [scores], self.measures, settings=self.settings,
                         require_common=False)
        return Results([ev]).to_dict(per_query=True)[ev.name]


# --------------------------------------------------------------------------- repro

@record
class Repro:
    """How well a reproduction reproduced a run (``smarteval repro``), as data and text:
    :class:`~smarteval.stats.repro.Reproduction`."""

    result: Any

    def render(self, fmt: str = "smart", *, header: bool = True, ranking: bool = False,
               overall: bool = False) -> str:
        """The text ``smarteval repro -f FMT`` prints (``--ranking``, ``--overall``)."""
        from smarteval.render.repro import render_reproduction
        return render_reproduction(self.result, fmt, header=header, ranking=ranking,
                                   overall=overall)

    def frame(self) -> pandas.DataFrame:
        """The effectiveness level: one row per pair of runs and measure (means, RMSE,
        nRMSE, p-value), the columns of ``repro -f tsv``."""
        from smarteval.render.repro import EFFECT_COLUMNS, effect_rows
        return _pandas().DataFrame(effect_rows(self.result), columns=list(EFFECT_COLUMNS))

    def ranking_frame(self) -> pandas.DataFrame:
        """The ranking level: KTU and RBO per pair, query (``all``: the mean) and cut-off."""
        from smarteval.render.repro import RANKING_COLUMNS, ranking_rows
        return _pandas().DataFrame(ranking_rows(self.result), columns=list(RANKING_COLUMNS))

    def overall_frame(self) -> pandas.DataFrame:
        """ER and DeltaRI per measure (empty without baselines)."""
        from smarteval.render.repro import OVERALL_COLUMNS, overall_rows
        return _pandas().DataFrame(overall_rows(self.result), columns=list(OVERALL_COLUMNS))

    def to_markdown(self) -> str:
        return self.render("markdown")

    def to_latex(self) -> str:
        return self.render("latex")

    @property
    def notes(self) -> list[str]:
        return self.result.notes


def repro(qrels: Source, orig: Source, reproduction: Source,
          measures: str | Sequence[str] | None = None, *, baseline_orig: Source = None,
          baseline_repro: Source = None, replicability: Source = None,
          cutoffs: Sequence[int] | None = None, rbo_p: float | None = None,
          rbo_depth: int | None = None, settings: Settings | None = None,
          on_run: Callable[[RunInfo], None] | None = None, **options: Any) -> Repro:
    """How well ``reproduction`` reproduces ``orig``, as ``smarteval repro`` and repro_eval
    measure it (:mod:`smarteval.stats.repro`): KTU and RBO per query and cut-off, RMSE,
    nRMSE and the paired t test of each measure (default map, P.10, ndcg_cut.10), and with both
    baselines ER and DeltaRI. ``replicability`` (the other collection's qrels) makes it a
    replication: the reproduction and its baseline are evaluated against those qrels,
    and compared by an unpaired t test.

    >>> r = repro("sample_data/qrels.txt", "sample_data/bm25.run",
    ...           "sample_data/bm25_rm3.run", "map", cutoffs=[10])
    >>> row = r.result.effects[0]
    >>> row["measure"], round(row["rmse"], 4), round(row["nrmse"], 4), round(row["p_value"], 4)
    ('map', 0.093, 0.11, 0.0158)
    """
    from smarteval.stats.repro import CUTOFFS, DEFAULT_MEASURES, RBO_DEPTH, RBO_P, reproduce
    settings = _check_options(options, settings, "repro")
    if isinstance(measures, str):
        measures = [measures]
    qrels = _qrels_source(qrels)
    if replicability is not None:
        replicability = _qrels_source(replicability)
    named = {"orig": orig, "repro": reproduction, "baseline_orig": baseline_orig,
             "baseline_repro": baseline_repro}
    read = {k: _run_sources([v], first_tag=k)[0][0] for k, v in named.items() if v is not None}
    return Repro(reproduce(qrels, read["orig"], read["repro"], list(measures or DEFAULT_MEASURES),
                           settings, baseline_orig=read.get("baseline_orig"),
                           baseline_repro=read.get("baseline_repro"),
                           replicability=replicability,
                           cutoffs=CUTOFFS if cutoffs is None else cutoffs,
                           rbo_p=RBO_P if rbo_p is None else rbo_p,
                           rbo_depth=RBO_DEPTH if rbo_depth is None else rbo_depth,
                           on_run=on_run))


# --------------------------------------------------------------------------- diff

@record
class Diff:
    """Two runs side by side, query by query (``smarteval diff``), as data and text:
    :class:`~smarteval.stats.diff.RunDiff`."""

    result: Any

    def render(self, fmt: str = "smart", *, header: bool = True) -> str:
        """The text ``smarteval diff -f FMT`` prints (``html``: the page)."""
        from smarteval.render.diff import render_diff
        return render_diff(self.result, fmt, header=header)

    def frame(self) -> pandas.DataFrame:
        """One row per query, in the diff's order: the columns of ``diff -f tsv`` (the
        documents that moved as lists)."""
        from smarteval.render.diff import COLUMNS
        return _pandas().DataFrame(self.result.rows(), columns=list(COLUMNS))

    def to_html(self) -> str:
        return self.render("html")

    def to_markdown(self) -> str:
        return self.render("markdown")

    @property
    def notes(self) -> list[str]:
        return self.result.notes


def diff(qrels: Source, run_a: Source, run_b: Source, measure: str | None = None, *,
         by: str = "delta", depth: int | None = None, rbo_p: float | None = None,
         limit: int | None = None, docs: str | os.PathLike | None = None,
         settings: Settings | None = None, on_run: Callable[[RunInfo], None] | None = None,
         **options: Any) -> Diff:
    """``run_b`` against ``run_a`` query by query, as ``smarteval diff`` sets them side by
    side (:mod:`smarteval.stats.diff`): the queries ordered ``by`` the difference on
    ``measure`` (default ndcg_cut.10) or by the change of the top-``depth`` lists (``tau``,
    ``rbo``), with what moved in and out of the top k. ``docs`` (a DOCNO TAB TEXT file, or
    an ir_datasets id with the ``datasets`` extra) adds the texts of the documents shown
    to the page (``.to_html()``).

    >>> d = diff("sample_data/qrels.txt", "sample_data/bm25.run", "sample_data/dense.run")
    >>> d.result.counts()
    (12, 3, 0)
    """
    from smarteval.stats.diff import DEFAULT_MEASURE, DEPTH, RBO_P, diff_runs
    settings = _check_options(options, settings, "diff")
    qrels = _qrels_source(qrels)
    (a,), _ = _run_sources([run_a], first_tag="A")
    (b,), _ = _run_sources([run_b], first_tag="B")
    return Diff(diff_runs(qrels, a, b, measure or DEFAULT_MEASURE, settings, order=by,
                          depth=DEPTH if depth is None else depth,
                          rbo_p=RBO_P if rbo_p is None else rbo_p, limit=limit,
                          docs=None if docs is None else os.fspath(docs), on_run=on_run))
