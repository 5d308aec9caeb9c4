"""The Python API: evaluate runs against qrels and get per-query and summary values back."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, replace

from smarteval import evaluation
from smarteval.columns import Qrels, Run
from smarteval.errors import UsageError
from smarteval.evaluation import Evaluation, RunInfo, run_names
from smarteval.measures.grammar import Request
from smarteval.settings import Settings, distinct_names

__all__ = ["Evaluation", "evaluate", "run_names"]

_SETTING_NAMES = {f.name for f in fields(Settings)}


def evaluate(qrels, runs, measures: Iterable[str] | Sequence[Request] = ("official",), *,
             settings: Settings | None = None, frozen=None,
             frozen_depth: int | None = None, require_common: bool = True,
             on_run: Callable[[RunInfo], None] | None = None, jobs: int = 1,
             keep_ranked: bool = True, **options) -> list[Evaluation]:
    """Evaluate one or more runs against qrels.

    ``qrels`` and each run may be a path or an already-read :class:`~smarteval.columns.Qrels`
    / :class:`~smarteval.columns.Run`; ``runs`` may be a single run. ``measures`` takes
    trec_eval's ``-m`` syntax (``"P.5,10"``, ``"official"``) or ir_measures names
    (``"nDCG@10"``), one string or several. Any field of
    :class:`~smarteval.settings.Settings` may be given as a keyword (``complete=True``,
    ``rel_level=2``, ``max_docs``, ``judged_only``, ``trec_version=10``, ``num_docs``,
    ``ties``, ``average``...); it overrides ``settings``.
    ``frozen`` (a run) with ``frozen_depth`` k evaluates every run on the residual
    collection without the first k documents of ``frozen`` (Joiner & Werner).

    Runs given as paths are read one at a time and released once evaluated; ``jobs`` > 1
    evaluates them in that many processes (the qrels are read once and handed to each).
    ``keep_ranked=False`` drops each :class:`Evaluation`'s ranking to save memory.
    Runs that would print under one name (the same file twice) get distinct names.

    What cannot work is refused at once with :class:`~smarteval.errors.UsageError`, before
    anything is read (a setting out of its range, ``jobs=0``, a run given as the qrels);
    a bad file raises :class:`~smarteval.errors.InputError`, naming the file and line.

    >>> ev = evaluate("qrels.txt", "bm25.run", ["map", "P.10"])[0]   # doctest: +SKIP
    >>> ev.summary["map"], ev.per_query["P_10"]                      # doctest: +SKIP
    """
    unknown = sorted(set(options) - _SETTING_NAMES)
    if unknown:
        raise TypeError(f"evaluate() got unexpected keyword arguments: {', '.join(unknown)}")
    if settings is not None and not isinstance(settings, Settings):
        raise UsageError(f"settings must be a Settings, not {type(settings).__name__}")
    settings = replace(settings or Settings(), **options)
    if isinstance(measures, (str, Request)):
        measures = [measures]           # one measure, not a string of one-letter names
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise UsageError(f"jobs must be a whole number, 1 or more, not {jobs!r}")
    if isinstance(qrels, Run):
        raise UsageError(f"qrels: {qrels.path} was read as a run (Run), not as qrels: read "
                         "it with smarteval.read.read_qrels, or give its path")
    given = [runs] if isinstance(runs, (str, os.PathLike, Run, Qrels)) else list(runs)
    for run in given:
        if isinstance(run, Qrels):
            raise UsageError(f"runs: {run.path} was read as qrels (Qrels), not as a run")
    results = evaluation.evaluate(qrels, given, measures, settings, frozen=frozen,
                                  frozen_depth=frozen_depth, require_common=require_common,
                                  on_run=on_run, jobs=jobs, keep_ranked=keep_ranked)
    for ev, name in zip(results, distinct_names([ev.name for ev in results])):
        ev.name = name
    return results
