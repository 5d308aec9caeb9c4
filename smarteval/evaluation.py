"""The one evaluation path: read the qrels and each run, rank it, compute the requested measures.

Every command goes through :func:`rankings` (``curve`` and ``plot`` stop there) or
:func:`evaluate` (which builds on it), so the same input gives the same error and exit
status everywhere.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import field, replace
from functools import partial
from typing import TYPE_CHECKING, cast

import numpy as np

from smarteval.aggregate import (
    averaged_over,
    complete_values,
    standardized,
    summarize,
)
from smarteval.columns import Qrels, Ranked, Run
from smarteval.errors import UsageError
from smarteval.measures.bounds import bounds
from smarteval.measures.grammar import (
    OWN_MEASURES,
    Output,
    Request,
    parse_measures,
    printed_as,
    unjudged_range,
)
from smarteval.memory import give_back
from smarteval.ranking.programs import needs_file_order
from smarteval.ranking.ranker import GATHERED, BlockRankings, Ranker, gathered
from smarteval.ranking.unjudged import counted_relevant
from smarteval.read import read_qrels, read_run
from smarteval.read.source import text_size
from smarteval.records import record
from smarteval.settings import Settings, distinct_names

if TYPE_CHECKING:       # cwl_eval's gains are imported only when its measures or inputs are
    from smarteval.ranking.cwl import Keyed
    from smarteval.read.blocks import Block  # runs evaluated in blocks
    from smarteval.read.zscores import ZScores  # and the z-score reader when -Z is given


@record
class Evaluation:
    """The result of evaluating one run: per-query values and summary values.

    ``per_query[name]`` is a (Q,) array aligned with ``qids``; ``summary[name]`` is the
    value trec_eval prints on its ``all`` line (None for per-query-only measures such
    as relstring). ``in_run`` is False for queries added by ``complete`` (-c); their
    values are what trec_eval averages in for them (0 under 9.0.8; under 10.0 the
    placeholder ranking's, see :func:`smarteval.aggregate.complete_values`).
    ``zscores`` is the z-score file the values were standardized against (trec_eval's
    ``-Z``), None for raw values: then every value but text is a z-score (a float),
    named with a ``Z`` in front wherever it is printed (:meth:`label`).
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
    run_info: RunInfo = field(repr=False, compare=False)
    #: the number of queries the averages divide by: len(qids), or under -c every query
    #: of the qrels (even when -D evaluates one); None means len(qids)
    averaged_over: int | None = None
    zscores: str | None = None
    #: the settings the run was evaluated under (what -c did, which version's output)
    settings: Settings = field(default_factory=Settings, repr=False, compare=False)
    #: what the evaluation of this run has to say on standard error (a run read whole
    #: because its lines are not grouped by query)
    notes: list[str] = field(default_factory=list, repr=False, compare=False)

    @property
    def added_by_complete(self) -> int:
        """How many evaluated queries of the qrels had no results (-c)."""
        return int((~self.in_run).sum())

    @property
    def num_averaged(self) -> int:
        """The number of queries the averages divide by (see ``averaged_over``)."""
        return len(self.qids) if self.averaged_over is None else self.averaged_over

    @property
    def names(self) -> list[str]:
        return [o.name for o in self.outputs]

    def label(self, out: Output) -> str:
        """The name ``out``'s values are printed under: ``Zmap`` for z-scores, as
        trec_eval's ``-Z`` prints them (text values keep their names), else its name."""
        return f"Z{out.name}" if self.zscores is not None and out.measure.value != "str" \
            else out.name

    def value(self, name: str, qid: str | None = None):
        """The summary value of ``name``, or its value for query ``qid``."""
        if qid is None:
            return self.summary[name]
        where = np.flatnonzero(self.qids == qid)
        if len(where) == 0:
            raise KeyError(qid)
        return self.per_query[name][where[0]]


@record(frozen=True)
class RunInfo:
    """What naming and progress need of a run once its columns are released."""

    path: str
    tag: str


def as_qrels(qrels) -> Qrels:
    """``qrels`` read, unless it already is :class:`Qrels`."""
    return qrels if isinstance(qrels, Qrels) else read_qrels(qrels)


def read_relevance(qrels, requests: Sequence[Request] = (), settings: Settings | None = None):
    """The judgements of ``qrels`` (a path, an ir_datasets id, or already read) in the
    format asked for.

    trec_eval's qrels (:class:`Qrels`), or ndeval's diversity qrels
    (:class:`~smarteval.read.diversity.DiversityQrels`) under ``-R qrels_diversity``,
    or when a diversity measure is asked for and the file's second field varies within
    a query (then a warning says so: plain qrels repeat one iteration number).
    """
    settings = settings or Settings()
    fmt = settings.qrels_format
    diversity = fmt == "qrels_diversity"
    if fmt == "qrels":
        from smarteval.read.datasets import dataset_qrels
        qrels = dataset_qrels(qrels)    # an ir_datasets id that is no file: its qrels
    if fmt in OWN_MEASURES:
        return _read_trec_format(qrels, fmt)
    if isinstance(qrels, Qrels):
        if diversity:
            raise UsageError("-R qrels_diversity needs diversity qrels (QUERY SUBTOPIC DOCNO "
                             "REL), not qrels already read as trec_eval's")
        return qrels
    if not isinstance(qrels, (str, os.PathLike)):
        if hasattr(qrels, "as_qrels"):
            return qrels                # diversity qrels already read
        return read_qrels(qrels)        # a DataFrame, a dict, records
    wants_subtopics = any(rq.measure.reads_subtopics for rq in requests)
    cwl = [rq.measure.name for rq in requests if rq.measure.reads_gains]
    if cwl and not diversity:
        # cwl_eval's gains may be fractional: taken where only C/W/L measures read them
        from smarteval.read.cwl import read_gain_qrels
        others = [rq.measure.name for rq in requests if not rq.measure.reads_gains]
        return read_gain_qrels(qrels, refuse=None if not others else (
            f"gains that are not whole numbers are read for the C/W/L measures alone, and "
            f"{', '.join(others[:3])}{' ...' if len(others) > 3 else ''} "
            f"{'is' if len(others) == 1 else 'are'} asked for"))
    if not (diversity or wants_subtopics):
        return read_qrels(qrels)
    from smarteval.read.diversity import looks_like_diversity, read_qrels_diversity
    if diversity:
        return read_qrels_diversity(qrels)
    if looks_like_diversity(qrels):
        import warnings
        warnings.warn(f"{qrels}: read as diversity qrels (QUERY SUBTOPIC DOCNO REL), since "
                      "its second field varies within a query", stacklevel=2)
        return read_qrels_diversity(qrels)
    return read_qrels(qrels)


def _read_trec_format(qrels, fmt: str):
    """trec_eval's preference judgements or qrels with judgement groups, or sample_eval's
    sampled judgements (``-R``)."""
    if isinstance(qrels, (str, os.PathLike)):
        if fmt == "sample_qrels":
            from smarteval.read.sample import read_sample_qrels
            return read_sample_qrels(qrels)
        from smarteval.read import prefs
        read = {"prefs": prefs.read_prefs, "qrels_prefs": prefs.read_qrels_prefs,
                "qrels_jg": prefs.read_qrels_jg}[fmt]
        return read(qrels)
    if getattr(qrels, "format", None) == fmt:
        return qrels                    # already read in this format
    raise UsageError(f"-R {fmt} needs judgements read as {fmt} (a file), not "
                     f"{type(qrels).__name__}")


def judgements(relevance) -> tuple[Qrels, object | None]:
    """What :func:`read_relevance` gives as the qrels every stage reads, and the subtopic
    judgements (None for trec_eval's qrels and cwl_eval's gains)."""
    if isinstance(relevance, Qrels):
        return relevance, None
    return relevance.as_qrels(), None if hasattr(relevance, "gains") else relevance


def as_zscores(zscores) -> ZScores | None:
    """A z-score file (a path) read, unless it already is :class:`ZScores` (or None)."""
    if zscores is None:
        return None
    from smarteval.read.zscores import ZScores, read_zscores
    if isinstance(zscores, ZScores):
        return zscores
    if not isinstance(zscores, (str, os.PathLike)):
        raise UsageError(f"zscores must be the path of a z-score file (QUERY MEASURE MEAN "
                         f"STDDEV lines), not {type(zscores).__name__}")
    return read_zscores(zscores)


def cwl_gains(relevance) -> Keyed | None:
    """cwl_eval's fractional gains of what :func:`read_relevance` gives, keyed by query and
    docno (None: the qrels' whole grades are the gains)."""
    gains = getattr(relevance, "gains", None)
    if gains is None:
        return None
    from smarteval.ranking.cwl import Keyed
    q = relevance.as_qrels()
    return Keyed(q.qids, q.offsets, q.docnos, gains)


def as_run(run, element_types: bool = False, ranks: bool = False) -> Run:
    """``run`` read, unless it already is a :class:`Run` (``element_types``: with its second
    field, cwl_eval's element types; ``ranks``: with its rank field)."""
    return run if isinstance(run, Run) else read_run(run, element_types=element_types,
                                                      ranks=ranks)


def check_runs(runs: Sequence) -> list:
    """The runs as a list (one run in any form, or several); standard input (``-``) may be
    only one of them."""
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    elif not (isinstance(runs, (list, tuple))
              and all(isinstance(r, (str, os.PathLike)) for r in runs)):
        from smarteval.read.frames import split_runs  # runs in other forms
        runs = [run for _, run in split_runs(runs)]
    runs = list(runs)
    if sum(isinstance(r, str) and r == "-" for r in runs) > 1:
        raise UsageError("standard input ('-') can be given as only one run")
    return runs


def run_names(runs: Sequence) -> list[str]:
    """Each run's display name: its tag, or its file name where two runs share a tag; a
    name that still comes again (the same file twice) gets ``#2``, ``#3`` (every command
    names runs here, so no two print under one name)."""
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
    return distinct_names(names)


def rankings(qrels, runs, settings: Settings | None = None, *, frozen=None,
             frozen_depth: int | None = None,
             require_common: bool = True) -> Iterator[tuple[RunInfo, Ranked]]:
    """Each run read and ranked against ``qrels``, one at a time (a run is released after).

    ``qrels`` and each run may be a path or already read. The qrels are read once.
    """
    ranker = Ranker(as_qrels(qrels), settings or Settings(), frozen, frozen_depth,
                    require_common)
    for given in check_runs(runs):
        run = as_run(given, **ranker.read_options)
        info, ranked = RunInfo(run.path, run.tag), ranker(
            run, owned=isinstance(given, (str, os.PathLike)))   # read from a file here
        del run                 # the ranking keeps what is needed: free the rest
        yield info, ranked


@record(eq=False, repr=False)
class Job:
    """Everything needed to evaluate one run; picklable, so it can go to a worker process.

    A run file of :data:`BLOCKED_BYTES` or more (or any, given ``block_rows``) is
    evaluated in blocks of whole queries where nothing asked for reads more than one
    query at a time (:meth:`evaluate_blocks`).
    """

    ranker: Ranker
    requests: list[Request]
    keep_ranked: bool
    zscores: ZScores | None = None
    #: rows of a block (None: :data:`~smarteval.read.blocks.BLOCK_ROWS` for long runs)
    block_rows: int | None = None

    def outputs(self) -> list[Output]:
        """What each evaluation gives values of, in order (under ``--unjudged range`` each
        number followed by its bounds over the gradings of the unjudged documents, or its
        value with them counted relevant, and the judged share of its documents)."""
        outputs = [o for rq in self.requests for o in rq.outputs()]
        settings = self.ranker.settings
        return unjudged_range(outputs, settings) if settings.unjudged == "range" \
            else outputs

    def evaluate(self, run, on_block: Callable[[Block], None] | None = None) -> Evaluation:
        """``run``'s evaluation; ``on_block`` is told of each block of a run evaluated
        in blocks (progress)."""
        notes = []
        if self.in_blocks(run):
            from smarteval.read.blocks import NotBlockable
            try:
                return self.evaluate_blocks(os.fspath(run), on_block)
            except NotBlockable as why:
                if why.query is not None:
                    notes.append(read_whole_note(os.fspath(run), why.query))
        ev = self._evaluate(run)
        ev.notes = notes
        return ev

    def _evaluate(self, run) -> Evaluation:
        read_here = isinstance(run, (str, os.PathLike))    # a file read here: no one else's
        run = as_run(run, **self.ranker.read_options)
        info = RunInfo(run.path, run.tag)
        ranked = self.ranker(run, owned=read_here)
        del run                 # the ranking keeps what the measures need: free the rest
        outputs = self.outputs()
        per_query = {}
        summary = {}
        located = None if self.zscores is None else self.zscores.locate(ranked.qids)
        for out, r, values in self._each_value(ranked, outputs):
            values = complete_values(out, values, r)
            if self.zscores is not None:
                values = standardized(out, values, r, self.zscores, located)
            per_query[out.name] = values
            summary[out.name] = summarize(out, values, r, zscores=self.zscores is not None)
        return Evaluation(name=info.tag, path=info.path, tag=info.tag, qids=ranked.qids,
                          in_run=ranked.in_run, outputs=outputs, per_query=per_query,
                          summary=summary, ranked=ranked if self.keep_ranked else None,
                          run_info=info, averaged_over=averaged_over(ranked),
                          zscores=None if self.zscores is None else self.zscores.path,
                          settings=self.ranker.settings)

    @property
    def blockable(self) -> bool:
        """Whether runs may be evaluated in blocks of whole queries: every value asked
        for is one query's alone (no fractional gains, subtopics, preferences, strata,
        residual collection, z-scores, settings the blocks do not serve, plugin, total
        over the qrels) and the rankings are not kept."""
        return (not self.keep_ranked and self.zscores is None and self.ranker.blockable
                and all(rq.measure.blockable for rq in self.requests))

    def in_blocks(self, run) -> bool:
        """Whether ``run`` is evaluated in blocks: a file that can be read again (not
        standard input), long enough, when every value asked for allows it."""
        return self.blockable and long_file(run, self.block_rows)

    def evaluate_blocks(self, path: str,
                        on_block: Callable[[Block], None] | None = None) -> Evaluation:
        """``path`` evaluated a block of whole queries at a time (:class:`BlockRankings`):
        each block ranked and measured, the per-query values kept and the block released;
        then the queries of the qrels without results added (-c), every query put in
        trec_eval's order and the values summarized, as :meth:`evaluate` does for the
        whole run. Raises :class:`~smarteval.read.blocks.NotBlockable` where the whole
        run must be read instead (an error to word as the whole run's, or a run not
        grouped by query)."""
        ranker, settings = self.ranker, self.ranker.settings
        qrels = ranker.qrels
        outputs = self.outputs()
        parts: dict[str, list[np.ndarray]] = {o.name: [] for o in outputs}
        blocks = BlockRankings(ranker, path, self.block_rows, on_block)
        for ranked, added in blocks:
            self._measured(ranked, outputs, parts, complete=added)
            del ranked
            if len(parts[outputs[0].name]) >= GATHERED:
                for values in parts.values():  # the values so far as one array each
                    values[:] = gathered(values)
                give_back()
        qids, in_run, order, tag = blocks.qids, blocks.in_run, blocks.order, blocks.tag
        per_query = {}
        for o in outputs:               # one output at a time: the others' parts wait
            per_query[o.name] = np.concatenate(parts.pop(o.name))[order]
        give_back()
        summary_of = Ranked(qids=qids, offsets=np.zeros(len(qids) + 1, dtype=np.int64),
                            rel=np.zeros(0, dtype=np.int64), score=np.zeros(0),
                            docno=np.zeros(0, dtype="S1"),
                            qrel_offsets=np.zeros(len(qids) + 1, dtype=np.int64),
                            qrel_grades=np.zeros(0, dtype=np.int64), in_run=in_run,
                            rel_level=settings.rel_level, run_tag=tag, settings=settings,
                            qrels_num_queries=qrels.num_queries,
                            qrels_positive_lines=qrels.num_positive_lines)
        summary = {o.name: summarize(o, per_query[o.name], summary_of) for o in outputs}
        info = RunInfo(blocks.name, tag)
        return Evaluation(name=tag, path=blocks.name, tag=tag, qids=qids, in_run=in_run,
                          outputs=outputs, per_query=per_query, summary=summary, ranked=None,
                          run_info=info, averaged_over=averaged_over(summary_of),
                          settings=settings)

    def _measured(self, ranked: Ranked, outputs: list[Output],
                  parts: dict[str, list[np.ndarray]], complete: bool = False) -> None:
        """Each output's values of the queries of ``ranked`` appended to ``parts``
        (``complete``: with -c's rule for queries without results)."""
        for out, r, values in self._each_value(ranked, outputs):
            parts[out.name].append(complete_values(out, values, r) if complete else values)

    def _each_value(self, ranked: Ranked, outputs: list[Output]):
        """Each output, the ranking it reads (under ``--unjudged range``, its values with
        the unjudged documents counted relevant read a ranking of their own) and its values
        of the queries of ``ranked``; a bound's least and greatest values computed once."""
        counted: list[Ranked] = []
        grade = self.ranker.unjudged_grade if self.ranker.settings.unjudged == "range" else 0

        def relevant() -> Ranked:
            if not counted:
                counted.append(counted_relevant(ranked, grade))
            return counted[0]

        def on_relevant(out: Output) -> np.ndarray:
            return out.compute(relevant())

        both: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for out in outputs:
            if out.unjudged == "relevant":
                yield out, relevant(), out.compute(relevant())
            elif out.unjudged in ("min", "max"):
                key = out.name[:-4]
                if key not in both:
                    both[key] = bounds(out.measure.name, out.param, out.view(ranked), grade,
                                       partial(out.compute, ranked),
                                       partial(on_relevant, out))
                yield out, ranked, both[key][out.unjudged == "max"]
            else:
                yield out, ranked, out.compute(ranked)


#: Run text from which a run file is evaluated in blocks of whole queries (where what is
#: asked for allows it, :attr:`Job.blockable`): 64 MiB, some 1.6 million lines. Shorter
#: runs are read whole, which costs little memory and no thread.
BLOCKED_BYTES = 64 << 20


def long_file(run, block_rows: int | None = None) -> bool:
    """Whether ``run`` is a run file read in blocks when what is asked allows it: a file
    that can be read again (not standard input, not a table), of :data:`BLOCKED_BYTES`
    of text or more (any, given ``block_rows``)."""
    if not isinstance(run, (str, os.PathLike)):
        return False
    path = os.fspath(run)
    from smarteval.read.source import is_stream, table_format
    if is_stream(path) or table_format(path):
        return False
    return block_rows is not None or text_size(path) >= BLOCKED_BYTES


def read_whole_note(path: str, query: str) -> str:
    """The note of a run read whole because its lines are not grouped by query."""
    size = text_size(path)
    return (f"{path}: its lines are not grouped by query (query {query} comes again after "
            f"other queries), so it is read whole, in memory (about "
            f"{max(1, size >> 19):,} MiB for its {size / (1 << 20):,.0f} MiB of text); "
            "sort it by query (sort -s -k1,1) to evaluate it a block at a time")


def requests_for(measures: Iterable[str] | Sequence[Request], settings: Settings) -> list[Request]:
    """The requests for ``measures``, checked against ``settings`` before any run is read."""
    given = list(measures)
    if given and all(isinstance(m, Request) for m in given):
        requests = cast(list[Request], given)
    else:
        requests = parse_measures(cast(list[str], given), settings.trec_version)
    needs_n = [rq.measure.name for rq in requests if rq.measure.needs_num_docs]
    if needs_n and settings.num_docs is None:
        raise UsageError(f"{', '.join(needs_n)} need{'s' if len(needs_n) == 1 else ''} the "
                         "number of documents in the collection: give -N/--num-docs")
    for rq in requests:
        rq.measure.check_ties(settings.ties)
    own = OWN_MEASURES.get(settings.qrels_format)
    if own is not None:         # their names as their program prints them
        requests = printed_as(requests, own)
    for rq in requests:
        m = rq.measure
        if m.name in ("runid", "num_q"):
            continue
        if own is not None and m.rel_info != own:
            hint = "all_prefs" if own == "prefs" else own
            raise UsageError(f"{m.name} is not computed from -R {settings.qrels_format} "
                             f"judgements (their measures: -m {hint})")
    if settings.order_by == "rank":
        other = [rq.measure.name for rq in requests
                 if not rq.measure.reads_subtopics and not rq.measure.order_free]
        if other:
            raise UsageError(f"--order-by rank (ndeval's order) is for the diversity measures "
                             f"(alpha-nDCG, ERR-IA...), not {', '.join(other)}: trec_eval "
                             "and the others order each query by score")
    return requests


def evaluate(qrels, runs, measures: Iterable[str] | Sequence[Request] = ("official",),
             settings: Settings | None = None, *, frozen=None,
             frozen_depth: int | None = None, require_common: bool = True,
             on_run: Callable[[RunInfo], None] | None = None, jobs: int | None = 1,
             keep_ranked: bool = True, zscores=None, block_rows: int | None = None,
             on_block: Callable[[Block], None] | None = None) -> list[Evaluation]:
    """Evaluate each run against ``qrels``; see :func:`smarteval.api.evaluate`, which
    refuses what z-scores cannot do first (:func:`~smarteval.aggregate.check_zscores_average`).

    ``jobs`` processes evaluate the runs (never more than there are runs); None chooses
    (:func:`default_jobs`). ``block_rows`` evaluates every run file in blocks of that
    many rows where it can (:meth:`Job.evaluate_blocks`; by default, the long ones),
    each block told to ``on_block`` when this process evaluates it.
    """
    settings = settings or Settings()
    runs = check_runs(runs)
    requests = requests_for(measures, settings)
    documents = any(rq.measure.name not in ("num_q", "runid") for rq in requests)
    trec_names = any(rq.measure.name not in ("num_q", "runid") and rq.label is None
                     and rq.measure.trec_eval_rules for rq in requests)
    relevance = read_relevance(qrels, requests, settings)
    plain, subtopics = judgements(relevance)
    table = as_zscores(zscores)
    costs = None
    if settings.cwl_costs is not None:
        from smarteval.read.cwl import read_costs
        costs = read_costs(settings.cwl_costs)
    file_order = needs_file_order(o.program for rq in requests for o in rq.outputs())
    job = Job(Ranker(plain, settings, frozen, frozen_depth, require_common, documents,
                     subtopics, cwl_gains(relevance), costs, trec_names, file_order),
              requests, keep_ranked, table, block_rows)
    processes = min(default_jobs(runs) if jobs is None else jobs, len(runs))
    forks = len(runs) > 1 and _can_fork()     # one run: no process module imported
    if processes > 1 and forks:
        results = _evaluate_forked(job, runs, processes, on_run)
    elif processes > 1:
        results = _evaluate_in_processes(job, runs, processes, on_run)
    elif jobs is None and not keep_ranked and forks \
            and max(map(_text_bytes, runs)) >= ISOLATED \
            and not all(map(job.in_blocks, runs)):   # blocks: memory bounded already
        results = _evaluate_forked(job, runs, 1, on_run)
    else:
        results = []
        for run in runs:
            ev = job.evaluate(run, on_block)
            results.append(ev)
            if on_run is not None:      # progress reporting (the CLI's bar)
                on_run(ev.run_info)
    # display names need every run's tag: a tag two runs share gives way to file names
    for ev, name in zip(results, run_names([ev.run_info for ev in results])):
        ev.name = name
    return results


#: Run text (decompressed, as its size suggests) that the processes of :func:`default_jobs`
#: may have in hand at once: 256 MiB, some 6 million lines, about 350 MiB of memory
IN_HAND = 256 << 20


def default_jobs(runs: Sequence) -> int:
    """How many processes evaluate ``runs`` unless told: one per CPU this process may
    use, no more than there are runs, and only as many as have :data:`IN_HAND` bytes of
    run text between them (runs of 7 million lines are evaluated one at a time); one
    where processes cannot be forked (they would start afresh and read everything again).
    """
    if len(runs) < 2 or not _can_fork():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:          # macOS: no affinity mask
        cpus = os.cpu_count() or 1
    largest = max(map(_text_bytes, runs))
    return max(1, min(cpus, len(runs), IN_HAND // max(largest, 1)))


def _can_fork() -> bool:
    from smarteval.workers import can_fork
    return can_fork()


#: Run text from which several runs evaluated one at a time are each evaluated in a
#: process of its own (when the number of processes is not given): 32 MiB, some 800,000
#: lines. After a long run, the allocator's free lists would have the next one take
#: a quarter more memory than the first; in a fresh process each takes what one takes.
ISOLATED = 32 << 20


def _text_bytes(run) -> int:
    """The bytes of text of a run file (guessed), or of an already read run as a text of
    some 40 bytes a line."""
    if isinstance(run, (str, os.PathLike)):
        return text_size(run)
    return 40 * len(getattr(run, "docnos", ()))


def _evaluate_forked(job: Job, runs: list, processes: int, on_run) -> list[Evaluation]:
    """Evaluate runs in ``processes`` processes forked from this one (which evaluates
    too), or with one process, each run in a process forked for it alone; each sends
    back the evaluation without its outputs (the same here) and, unless kept, its
    ranking. Standard input is read here."""
    from smarteval.workers import run_forked, run_isolated
    job.ranker.initial()                # the --frozen ranking, once for every process

    def received(ev: Evaluation) -> Evaluation:
        ev.outputs = job.outputs()
        return ev

    def work(i: int) -> Evaluation:
        return job.evaluate(runs[i])

    def shipped(ev: Evaluation) -> Evaluation:
        return replace(ev, outputs=[])

    stdin = [i for i, r in enumerate(runs) if r == "-"]
    done = None if on_run is None else lambda _, ev: on_run(ev.run_info)
    if processes == 1:
        return run_isolated(len(runs), work, shipped=shipped, received=received,
                            parent_only=stdin, on_result=done)
    return run_forked(len(runs), work, processes, shipped=shipped, received=received,
                      parent_only=stdin, on_result=done)


_WORKER_JOB: Job | None = None     # set in each worker process only, by its initializer


def _init_worker(job: Job) -> None:
    global _WORKER_JOB
    _WORKER_JOB = job


def _work(run) -> Evaluation:
    assert _WORKER_JOB is not None
    return _WORKER_JOB.evaluate(run)


def _evaluate_in_processes(job: Job, runs: list, jobs: int, on_run) -> list[Evaluation]:
    """Evaluate runs in ``jobs`` processes started afresh (where processes cannot be
    forked); results come back in the order of ``runs``.

    The job (with the qrels) goes to each worker once, by its initializer.
    """
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
