"""The Python API: evaluate runs against qrels and get per-query and summary values back."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, replace

from smarteval import evaluation
from smarteval.evaluation import Evaluation, RunInfo, run_names
from smarteval.measures.grammar import Request
from smarteval.settings import Settings

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
    (``"nDCG@10"``). Any field of :class:`~smarteval.settings.Settings` may be given as a
    keyword (``complete=True``, ``rel_level=2``, ``max_docs``, ``judged_only``,
    ``trec_version=10``, ``num_docs``, ``ties``, ``average``...); it overrides ``settings``.
    ``frozen`` (a run) with ``frozen_depth`` k evaluates every run on the residual
    collection without the first k documents of ``frozen`` (Joiner & Werner).

    Runs given as paths are read one at a time and released once evaluated; ``jobs`` > 1
    evaluates them in that many processes (the qrels are read once and handed to each).
    ``keep_ranked=False`` drops each :class:`Evaluation`'s ranking to save memory.

    >>> ev = evaluate("qrels.txt", "bm25.run", ["map", "P.10"])[0]   # doctest: +SKIP
    >>> ev.summary["map"], ev.per_query["P_10"]                      # doctest: +SKIP
    """
    unknown = sorted(set(options) - _SETTING_NAMES)
    if unknown:
        raise TypeError(f"evaluate() got unexpected keyword arguments: {', '.join(unknown)}")
    settings = replace(settings or Settings(), **options)
    return evaluation.evaluate(qrels, runs, measures, settings, frozen=frozen,
                               frozen_depth=frozen_depth, require_common=require_common,
                               on_run=on_run, jobs=jobs, keep_ranked=keep_ranked)
