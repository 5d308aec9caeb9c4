"""Sweeps of many runs on a Dask cluster: ``smarteval.evaluate`` mapped over a bag of run files.

Runs are independent, so a sweep of thousands of them scales out with Dask (an optional
extra: ``pip install 'smarteval[dask]'``), which does all the scheduling::

    from dask.distributed import Client
    from smarteval import sweep

    client = Client("scheduler:8786")                 # or Client() for a local cluster
    evaluations = sweep.evaluate("qrels.txt", run_paths, ["official"])
    open("all.tsv", "w").write(sweep.tsv(evaluations))

The qrels are read once, here, and broadcast to every worker once
(``Client.scatter(..., broadcast=True)``): a bad qrels line fails before any work is sent,
the workers need not see the qrels file, and no task reads it again. The read
:class:`~smarteval.columns.Qrels` are a few numpy arrays (pickled, one to three times the
file's size: 32 MB for a qrels of a million lines) that each worker holds in memory for
every run it evaluates; sending the path instead would have every task read and parse the
file again (a third of a second for a million lines). Each partition of the bag
of runs is one call of :func:`smarteval.evaluate` on a worker, which reads each of its
runs there (run files must be readable on the workers: a shared file system or object
store) and sends back its :class:`~smarteval.evaluation.Evaluation`, without the ranking.
The display names of the runs are settled over the whole sweep, as one local call
settles them, so :func:`tsv` gives the bytes ``smarteval evaluate -f tsv`` gives.

Without a distributed client, Dask's local scheduler runs the bag (the qrels then go
with each task); on one machine ``smarteval evaluate -j N`` does the same with less.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from smarteval import api
from smarteval.columns import Run
from smarteval.errors import UsageError
from smarteval.evaluation import Evaluation, as_qrels, run_names
from smarteval.measures.grammar import Request
from smarteval.render.evaluation import render

__all__ = ["bag", "evaluate", "table", "tsv"]

INSTALL_HINT = "pip install 'smarteval[dask]'"

#: smarteval.evaluate's keywords that have no meaning in a sweep (Dask runs the processes)
_NOT_IN_A_SWEEP = ("jobs", "on_run")


def _dask_bag():
    """The ``dask.bag`` module, or a one-line UsageError naming the extra to install."""
    try:
        import dask.bag
    except ImportError:
        raise UsageError(f"smarteval.sweep needs dask, which is not installed: {INSTALL_HINT}") \
            from None
    return dask.bag


def _default_client(client):
    """``client``, else the distributed client in use (None: Dask's local scheduler)."""
    if client is not None:
        return client
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:              # no client made in this process
        return None


def _evaluate_partition(runs, qrels, measures, options) -> list[Evaluation]:
    """One partition of the bag, on a worker: one call of smarteval.evaluate."""
    return api.evaluate(qrels, list(runs), measures, **options)


def bag(qrels, runs, measures: Iterable[str] | Sequence[Request] = ("official",), *,
        client=None, partition_size: int | None = None, **options: Any):
    """A lazy ``dask.bag.Bag`` of each run's :class:`~smarteval.evaluation.Evaluation`.

    ``qrels`` is a path or read :class:`~smarteval.columns.Qrels`; it is read (once, here)
    and broadcast to the workers of ``client`` (default: the distributed client in use).
    ``runs`` is a list of run paths or a ``dask.bag.Bag`` of them; a list is cut into
    partitions of ``partition_size`` runs (Dask's choice when None). ``measures`` and
    ``options`` (any keyword of :func:`smarteval.evaluate` but ``jobs`` and ``on_run``;
    ``keep_ranked`` is False unless given) are checked here, before anything is computed.

    Each element is named by its run's tag, as within its partition; :func:`evaluate`
    computes the bag and names the runs over the whole sweep.
    """
    db = _dask_bag()
    given = sorted(set(options) & set(_NOT_IN_A_SWEEP))
    if given:
        raise TypeError(f"sweep: {', '.join(given)} cannot be given: Dask runs the sweep")
    options.setdefault("keep_ranked", False)
    wanted: list = [measures] if isinstance(measures, (str, Request)) else list(measures)
    qrels = as_qrels(qrels)
    api.evaluate(qrels, [], wanted, **options)      # every measure and setting checked now
    if isinstance(runs, db.Bag):
        paths = runs
    else:
        runs = [runs] if isinstance(runs, (str, os.PathLike, Run)) else list(runs)
        if any(isinstance(r, str) and r == "-" for r in runs):
            raise UsageError("a sweep reads its runs on the workers: standard input ('-') "
                             "cannot be one of them")
        paths = db.from_sequence(runs, partition_size=partition_size)
    client = _default_client(client)
    if client is not None:
        shared = client.scatter(qrels, broadcast=True, hash=False)
    else:
        import dask
        shared = dask.delayed(qrels, traverse=False)
    return paths.map_partitions(_evaluate_partition, shared, wanted, options)


def evaluate(qrels, runs, measures: Iterable[str] | Sequence[Request] = ("official",), *,
             client=None, partition_size: int | None = None,
             **options: Any) -> list[Evaluation]:
    """Evaluate ``runs`` against ``qrels`` on a Dask cluster; the evaluations, in run order.

    The arguments are :func:`bag`'s. The result is what :func:`smarteval.evaluate` gives
    for the same runs in one process, names included (a tag two runs share gives way to
    their file names; a name that comes again gets ``#2``). A bad run raises
    :class:`~smarteval.errors.InputError` naming its file and line, as it does locally.
    """
    client = _default_client(client)
    lazy = bag(qrels, runs, measures, client=client, partition_size=partition_size,
               **options)
    results: list[Evaluation] = (client.compute(lazy, sync=True) if client is not None
                                 else lazy.compute())
    for ev, name in zip(results, run_names([ev.run_info for ev in results])):
        ev.name = name              # names settled over the whole sweep, as locally
    return results


def tsv(evaluations: Sequence[Evaluation], *, per_query: bool = False, summary: bool = True,
        header: bool = True) -> str:
    """The evaluations as ``smarteval evaluate -f tsv`` prints them (``run, query, measure,
    value``; ``per_query`` is ``-q``, ``header=False`` is ``--no-header``)."""
    return render(evaluations, "tsv", per_query=per_query, summary=summary, header=header)


def table(evaluations: Sequence[Evaluation]) -> dict[str, list]:
    """The summary values as columns: ``run``, then one column per measure, one row per run
    (``pandas.DataFrame(table(evaluations))``); a value a run lacks is None."""
    names: dict[str, None] = {}
    for ev in evaluations:
        names.update((o.name, None) for o in ev.outputs if ev.summary[o.name] is not None)
    columns: dict[str, list] = {"run": [ev.name for ev in evaluations]}
    for name in names:
        columns.setdefault(name, [ev.summary.get(name) for ev in evaluations])
    return columns
