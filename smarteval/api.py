"""The Python API: evaluate runs against qrels and get per-query and summary values back."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Sequence

import numpy as np

from smarteval.aggregate import summarize
from smarteval.columns import Qrels, Ranked, Run, Settings
from smarteval.errors import InputError, UsageError
from smarteval.ranking import rank
from smarteval.readers import read_qrels, read_run
from smarteval.registry import Output, Request, parse_measures


@dataclass
class Evaluation:
    """The result of evaluating one run: per-query values and summary values.

    ``per_query[name]`` is a (Q,) array aligned with ``qids``; ``summary[name]`` is the
    value trec_eval prints on its ``all`` line (None for per-query-only measures such
    as relstring). ``in_run`` is False for queries added by ``complete`` (-c).
    """

    name: str
    path: str
    tag: str
    qids: np.ndarray
    in_run: np.ndarray
    outputs: list[Output]
    per_query: dict[str, np.ndarray]
    summary: dict[str, object]
    ranked: Ranked = field(repr=False)

    @property
    def names(self) -> list[str]:
        return [o.name for o in self.outputs]

    def value(self, name: str, qid: str | None = None):
        """The summary value of ``name``, or its value for query ``qid``."""
        if qid is None:
            return self.summary[name]
        where = np.flatnonzero(self.qids == qid)
        if len(where) == 0:
            raise KeyError(qid)
        return self.per_query[name][where[0]]


def _as_qrels(qrels) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    return read_qrels(qrels)


def _as_run(run) -> Run:
    if isinstance(run, Run):
        return run
    return read_run(run)


def run_names(runs: Sequence[Run]) -> list[str]:
    """Each run's display name: its tag, or its file name where two runs share a tag."""
    tags = Counter(r.tag for r in runs)
    names = []
    for r in runs:
        names.append(r.tag if tags[r.tag] == 1 else os.path.basename(r.path) or r.path)
    return names


def evaluate(qrels, runs, measures: Iterable[str] | Sequence[Request] = ("official",), *,
             complete: bool = False, rel_level: int = 1, max_docs: int | None = None,
             judged_only: bool = False, trec_version: int = 9,
             settings: Settings | None = None, average: str = "macro",
             require_common: bool = True, frozen=None,
             frozen_depth: int | None = None,
             on_run: Callable[[Run], None] | None = None) -> list[Evaluation]:
    """Evaluate one or more runs against qrels.

    ``qrels`` and each run may be a path or an already-read :class:`Qrels` /
    :class:`Run`; ``runs`` may be a single run. ``measures`` takes trec_eval's
    ``-m`` syntax (``"P.5,10"``, ``"official"``) or ir_measures names (``"nDCG@10"``).
    The remaining arguments are trec_eval's ``-c``, ``-l``, ``-M``, ``-J`` and the
    version switch; ``frozen`` (a run) with ``frozen_depth`` k evaluates every run on the
    residual collection without the first k documents of ``frozen`` (Joiner & Werner).

    >>> ev = evaluate("qrels.txt", "bm25.run", ["map", "P.10"])[0]   # doctest: +SKIP
    >>> ev.summary["map"], ev.per_query["P_10"]                      # doctest: +SKIP
    """
    if trec_version not in (9, 10):
        raise UsageError("--trec-version must be 9 or 10")
    settings = settings or Settings()
    settings = replace(settings, trec_version=trec_version)
    qrels = _as_qrels(qrels)
    if isinstance(runs, (str, os.PathLike, Run)):
        runs = [runs]
    runs = [_as_run(r) for r in runs]
    if measures and all(isinstance(m, Request) for m in measures):
        requests = list(measures)
    else:
        requests = parse_measures(list(measures), trec_version)
    needs_n = [rq.measure.name for rq in requests if rq.measure.needs_num_docs]
    if needs_n and settings.num_docs is None:
        raise UsageError(f"{', '.join(needs_n)} need{'s' if len(needs_n) == 1 else ''} the "
                         "number of documents in the collection: give -N/--num-docs")
    outputs = [o for rq in requests for o in rq.outputs()]
    # --frozen: evaluate on the residual collection left by the initial run's first k
    initial = None
    if (frozen is None) != (frozen_depth is None):
        raise UsageError("--frozen RUN and --frozen-depth K go together: the feedback "
                         "run is evaluated without the first K documents of RUN")
    if frozen is not None:
        from smarteval.residual import residual
        initial = rank(_as_run(frozen), qrels, complete=complete, rel_level=rel_level,
                       settings=replace(settings, ties="docno") if settings.ties == "average"
                       else settings)
    names = run_names(runs)
    results = []
    for run, name in zip(runs, names):
        ranked = rank(run, qrels, complete=complete, rel_level=rel_level, max_docs=max_docs,
                      judged_only=judged_only, settings=settings)
        if initial is not None:
            ranked = residual(ranked, initial, frozen_depth)
        if require_common and not ranked.in_run.any():
            raise InputError(run.path, None,
                             f"no query of this run has judgements in {qrels.path}",
                             expected="query ids shared by the run and the qrels")
        per_query = {}
        summary = {}
        for out in outputs:
            values = out.compute(ranked)
            per_query[out.name] = values
            summary[out.name] = summarize(out, values, ranked, average=average)
        results.append(Evaluation(name=name, path=run.path, tag=run.tag, qids=ranked.qids,
                                  in_run=ranked.in_run, outputs=outputs, per_query=per_query,
                                  summary=summary, ranked=ranked))
        if on_run is not None:      # progress reporting (the CLI's bar)
            on_run(run)
    return results
