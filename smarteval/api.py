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
    ranked: Ranked | None = field(repr=False)
    run_info: object = field(default=None, repr=False, compare=False)

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
    bases = Counter(os.path.basename(r.path) for r in runs)
    names = []
    for r in runs:
        if tags[r.tag] == 1:
            names.append(r.tag)
        elif bases[os.path.basename(r.path)] == 1:
            names.append(os.path.basename(r.path) or r.path)
        else:                       # same tag and same file name: the path as given
            names.append(r.path)
    return names


def evaluate(qrels, runs, measures: Iterable[str] | Sequence[Request] = ("official",), *,
             complete: bool = False, rel_level: int = 1, max_docs: int | None = None,
             judged_only: bool = False, trec_version: int = 9,
             settings: Settings | None = None, average: str = "macro",
             require_common: bool = True, frozen=None,
             frozen_depth: int | None = None,
             on_run: Callable[[Run], None] | None = None,
             jobs: int = 1, keep_ranked: bool = True) -> list[Evaluation]:
    """Evaluate one or more runs against qrels.

    ``qrels`` and each run may be a path or an already-read :class:`Qrels` /
    :class:`Run`; ``runs`` may be a single run. ``measures`` takes trec_eval's
    ``-m`` syntax (``"P.5,10"``, ``"official"``) or ir_measures names (``"nDCG@10"``).
    The remaining arguments are trec_eval's ``-c``, ``-l``, ``-M``, ``-J`` and the
    version switch; ``frozen`` (a run) with ``frozen_depth`` k evaluates every run on the
    residual collection without the first k documents of ``frozen`` (Joiner & Werner).

    Runs given as paths are read one at a time and released once evaluated; ``jobs`` > 1
    evaluates them in that many processes (the qrels are read once and handed to each).
    ``keep_ranked=False`` drops each :class:`Evaluation`'s ranking to save memory.

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
    runs = list(runs)
    if measures and all(isinstance(m, Request) for m in measures):
        requests = list(measures)
    else:
        requests = parse_measures(list(measures), trec_version)
    needs_n = [rq.measure.name for rq in requests if rq.measure.needs_num_docs]
    if needs_n and settings.num_docs is None:
        raise UsageError(f"{', '.join(needs_n)} need{'s' if len(needs_n) == 1 else ''} the "
                         "number of documents in the collection: give -N/--num-docs")
    if (frozen is None) != (frozen_depth is None):
        raise UsageError("--frozen RUN and --frozen-depth K go together: the feedback "
                         "run is evaluated without the first K documents of RUN")
    job = _Job(qrels=qrels, requests=requests, complete=complete, rel_level=rel_level,
               max_docs=max_docs, judged_only=judged_only, settings=settings,
               average=average, require_common=require_common, frozen=frozen,
               frozen_depth=frozen_depth, keep_ranked=keep_ranked)
    if jobs > 1 and len(runs) > 1:
        results = _evaluate_in_processes(job, runs, jobs, on_run)
    else:
        results = []
        for run in runs:
            ev = job.evaluate(run)
            results.append(ev)
            if on_run is not None:      # progress reporting (the CLI's bar)
                on_run(ev.run_info)
    # display names need every run's tag: a tag two runs share gives way to file names
    for ev, name in zip(results, run_names([ev.run_info for ev in results])):
        ev.name = name
    return results


@dataclass
class _RunInfo:
    """What naming and progress need of a run once its columns are released."""

    path: str
    tag: str


@dataclass
class _Job:
    """Everything needed to evaluate one run; picklable, so it can go to a worker process."""

    qrels: Qrels
    requests: list
    complete: bool
    rel_level: int
    max_docs: int | None
    judged_only: bool
    settings: Settings
    average: str
    require_common: bool
    frozen: object
    frozen_depth: int | None
    keep_ranked: bool
    _initial: Ranked | None = None

    def initial(self) -> Ranked | None:
        if self.frozen is None:
            return None
        if self._initial is None:
            settings = self.settings
            if settings.ties == "average":
                settings = replace(settings, ties="docno")
            self._initial = rank(_as_run(self.frozen), self.qrels, complete=self.complete,
                                 rel_level=self.rel_level, settings=settings)
        return self._initial

    def evaluate(self, run) -> Evaluation:
        run = _as_run(run)
        ranked = rank(run, self.qrels, complete=self.complete, rel_level=self.rel_level,
                      max_docs=self.max_docs, judged_only=self.judged_only,
                      settings=self.settings)
        initial = self.initial()
        if initial is not None:
            from smarteval.residual import residual
            ranked = residual(ranked, initial, self.frozen_depth)
        if self.require_common and not ranked.in_run.any():
            raise InputError(run.path, None,
                             f"no query of this run has judgements in {self.qrels.path}",
                             expected="query ids shared by the run and the qrels")
        outputs = [o for rq in self.requests for o in rq.outputs()]
        per_query = {}
        summary = {}
        for out in outputs:
            values = out.compute(ranked)
            per_query[out.name] = values
            summary[out.name] = summarize(out, values, ranked, average=self.average)
        ev = Evaluation(name=run.tag, path=run.path, tag=run.tag, qids=ranked.qids,
                        in_run=ranked.in_run, outputs=outputs, per_query=per_query,
                        summary=summary, ranked=ranked if self.keep_ranked else None)
        ev.run_info = _RunInfo(run.path, run.tag)
        return ev


_WORKER_JOB: _Job | None = None


def _init_worker(job: _Job) -> None:
    global _WORKER_JOB
    _WORKER_JOB = job


def _work(run) -> Evaluation:
    assert _WORKER_JOB is not None
    return _WORKER_JOB.evaluate(run)


def _evaluate_in_processes(job: _Job, runs: list, jobs: int, on_run) -> list[Evaluation]:
    """Evaluate runs in ``jobs`` processes; results come back in the order of ``runs``."""
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=min(jobs, len(runs)), initializer=_init_worker,
                             initargs=(job,)) as pool:
        futures = [pool.submit(_work, r) for r in runs]
        results = []
        for fut in futures:
            ev = fut.result()
            results.append(ev)
            if on_run is not None:
                on_run(ev.run_info)
    return results
