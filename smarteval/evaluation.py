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
    accumulated,
    averaged_over,
    complete_values,
    standardized,
    summarize,
)
from smarteval.columns import Qrels, Ranked, Run
from smarteval.errors import InputError, UsageError
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
from smarteval.ranking import rank, residual
from smarteval.ranking.checks import judged_only_below_zero
from smarteval.ranking.join import concat_ranges
from smarteval.ranking.programs import needs_file_order
from smarteval.ranking.unjudged import counted_relevant, unjudged_grade
from smarteval.read import read_qrels, read_run
from smarteval.read.source import text_size
from smarteval.records import record
from smarteval.settings import Settings, distinct_names

if TYPE_CHECKING:       # the C/W/L module is imported only when its measures or inputs are
    from smarteval.measures.cwl import CwlInputs, Keyed
    from smarteval.read.blocks import Block  # runs evaluated in blocks
    from smarteval.read.sample import SampleQrels  # -R sample_qrels
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
    from smarteval.measures.cwl import Keyed
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


@record(eq=False, repr=False)       # internal: fewer generated methods at start-up
class Ranker:
    """Ranks runs against one qrels under one :class:`Settings`; picklable for workers.

    ``frozen`` (a run) with ``frozen_depth`` k ranks every run on the residual collection
    without the first k documents of ``frozen`` (Joiner & Werner). ``require_common``
    refuses a run that shares no query with the qrels (except under trec_eval 10.0's
    ``-c``, which evaluates the qrels' queries all the same). ``documents`` is False when no
    measure asked for looks at the documents (only ``num_q`` and ``runid``): trec_eval
    then never ranks a query, and accepts what it would refuse in one. ``trec_names`` is
    False when no trec_eval measure is asked (only ir_measures names, gdeval's, ranx's,
    ndeval's, cwl_eval's, SMART's): a first query judged only below 0, which trec_eval
    alone cannot evaluate, is then evaluated.
    """

    qrels: Qrels
    settings: Settings
    frozen: object = None
    frozen_depth: int | None = None
    require_common: bool = True
    documents: bool = True
    #: what the plain qrels leave out, given to every ranking: diversity qrels, or
    #: preferences or judgement groups (-R prefs, qrels_prefs, qrels_jg)
    subtopics: object | None = None
    gains: Keyed | None = None          # cwl_eval's fractional gains (:func:`cwl_gains`)
    costs: dict[bytes, float] | None = None   # cwl_eval's cost file, read
    trec_names: bool = True
    #: the rankings keep each row's place in the run, for a program that reads the run's
    #: line order (:func:`smarteval.ranking.programs.needs_file_order`)
    file_order: bool = False
    _initial: Ranked | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if (self.frozen is None) != (self.frozen_depth is None):
            raise UsageError("--frozen RUN and --frozen-depth K go together: the feedback "
                             "run is evaluated without the first K documents of RUN")

    def initial(self) -> Ranked | None:
        if self.frozen is None:
            return None
        if self._initial is None:
            # the user saw the initial run in one order: trec_eval's, unless random; only
            # what it retrieved (no -c placeholder, which would leave the feedback run
            # too), neither -M nor -J cut
            ties = "docno" if self.settings.ties == "average" else self.settings.ties
            settings = replace(self.settings, ties=ties, complete=False)
            self._initial = rank(as_run(self.frozen), self.qrels, settings,
                                 trec_names=self.trec_names, cuts=False)
        return self._initial

    def __call__(self, run: Run, owned: bool = False) -> Ranked:
        """``run`` ranked against the qrels (``owned``: the caller has no further use for
        ``run``, whose columns may then be reordered in place)."""
        if self.settings.order_by == "rank":
            from smarteval.ranking.order import by_rank_column  # ndeval's order only
            run = by_rank_column(run)
        fmt = getattr(self.subtopics, "format", None)
        if fmt == "sample_qrels":       # sample_eval reads run topics without leading zeros
            from smarteval.ranking.sample import without_leading_zeros
            run = without_leading_zeros(run)
        # trec_eval 10.0's -c evaluates every query of the qrels on its placeholder
        # document even when the run has none of them (9.0.8 finds nothing to evaluate)
        if self.require_common and not _shares_a_query(run, self.qrels) and not (
                self.settings.placeholders):
            raise InputError(run.path, None,
                             f"no query of this run has judgements in {self.qrels.path}",
                             expected="query ids shared by the run and the qrels")
        if fmt == "sample_qrels" and self.documents:
            from smarteval.ranking.sample import rank_sample
            ranked = rank_sample(run, cast("SampleQrels", self.subtopics), self.qrels,
                                 self.settings)
        elif fmt in OWN_MEASURES and self.documents:
            from smarteval.ranking import prefs
            rank_for = prefs.rank_groups if fmt == "qrels_jg" else prefs.rank_preferences
            ranked = rank_for(run, self.subtopics, self.qrels, self.settings)
        else:                   # the C/W/L inputs read the run in its own order afterwards
            ranked = rank(run, self.qrels, self.settings, documents=self.documents,
                          trec_names=self.trec_names,
                          owned=owned and not self.cwl, file_order=self.file_order)
        if self.settings.query is not None and not accumulated(ranked).any():
            self._no_query(run)
        initial = self.initial()
        if initial is not None:
            assert self.frozen_depth is not None
            ranked = residual(ranked, initial, self.frozen_depth)
        if self.subtopics is not None and fmt is None:
            ranked = replace(ranked, subtopics=self.subtopics)
        if self.cwl:
            ranked = replace(ranked, cwl=self._cwl_inputs(run))
        if self.settings.unjudged in ("relevant", "range"):
            self._check_unjudged()
        return self.counted(ranked)

    def counted(self, ranked: Ranked) -> Ranked:
        """``ranked`` with its unjudged documents counted relevant under ``--unjudged
        relevant``; as it is otherwise."""
        if self.settings.unjudged == "relevant":
            return counted_relevant(ranked, self.unjudged_grade)
        return ranked

    @property
    def blockable(self) -> bool:
        """Whether a run's rankings may be made a block of whole queries at a time
        (:class:`BlockRankings`): plain qrels, no residual collection, the score order,
        no random tie order (drawn over the whole run)."""
        s = self.settings
        return (self.frozen is None and self.subtopics is None and not self.cwl
                and s.qrels_format == "qrels" and s.order_by != "rank" and s.ties != "random")

    @property
    def unjudged_grade(self) -> int:
        """The grade ``--unjudged relevant`` and ``range`` give an unjudged document."""
        return unjudged_grade(self.qrels, self.settings)

    def _check_unjudged(self) -> None:
        """Refuse counting unjudged documents relevant where the measures read judgements
        of their own (subtopics, preferences, strata, fractional gains), which a grade in
        the ranking does not reach."""
        if self.subtopics is not None or self.gains is not None:
            raise UsageError(f"--unjudged {self.settings.unjudged} gives unjudged documents a "
                             "grade in plain qrels; these measures read judgements of their "
                             f"own (-R {self.settings.qrels_format}, subtopics or fractional "
                             "gains): use --unjudged nonrelevant or drop")

    @property
    def cwl(self) -> bool:
        """Whether the rankings carry cwl_eval's inputs (gains, costs)."""
        return self.gains is not None or self.costs is not None \
            or self.settings.cwl_default_cost != 1.0

    @property
    def read_options(self) -> dict[str, bool]:
        """What runs are read with: their element types when a cost file is given, their
        rank column for ndeval's rank order."""
        return {"element_types": self.costs is not None,
                "ranks": self.settings.order_by == "rank"}

    def _cwl_inputs(self, run: Run) -> CwlInputs:
        """cwl_eval's gains and costs for ``run``'s ranking (:mod:`smarteval.measures.cwl`)."""
        from smarteval.measures.cwl import CwlInputs, element_costs
        costs = None
        if self.costs is not None:
            if run.element_types is None:
                raise UsageError(f"--cwl-costs: the run {run.path} has no element types (the "
                                 "second field of a TREC run file): give it as a file")
            costs = element_costs(run.qids, run.offsets, run.docnos, run.element_types,
                                  self.costs)
        return CwlInputs(self.gains, costs, self.settings.cwl_default_cost)

    def _no_query(self, run: Run) -> None:
        """-D names a query trec_eval would not evaluate: it finds nothing to average."""
        s = self.settings
        if s.placeholders:
            raise InputError(self.qrels.path, None,
                             f"query {s.query!r} (-D) has no judgements in these qrels",
                             expected="a query of the qrels")
        raise InputError(run.path, None,
                         f"query {s.query!r} (-D) is not a query of both this run and "
                         f"{self.qrels.path}",
                         expected="a query with results and judgements")


def _shares_a_query(run: Run, qrels: Qrels) -> bool:
    if not len(run.qids) or not len(qrels.qids):
        return False
    at = np.minimum(np.searchsorted(qrels.qids, run.qids), len(qrels.qids) - 1)
    return bool((qrels.qids[at] == run.qids).any())


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
        residual collection, z-scores, micro average, random tie order, plugin, total
        over the qrels) and the rankings are not kept."""
        return (not self.keep_ranked and self.zscores is None
                and self.ranker.blockable and self.ranker.settings.average != "micro"
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
                    values[:] = _gathered(values)
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


class BlockRankings:
    """The rankings of a run file grouped by query, a block of whole queries at a time:
    iterating gives each block's ranking (``added`` False), then, under -c, the ranking
    of the qrels' queries the run has no results for (``added`` True); once it is
    over, ``qids`` are every query evaluated in trec_eval's order, ``in_run`` which of
    them the run holds, and ``order`` the permutation that takes the rankings' queries,
    as they came, into that order.

    Raises :class:`~smarteval.read.blocks.NotBlockable` where the whole run must be read
    instead (an error to word as the whole run's, a run not grouped by query), at the
    latest when the iteration ends: whatever was made of the blocks is then dropped.
    """

    def __init__(self, ranker: Ranker, path: str, block_rows: int | None = None,
                 on_block: Callable[[Block], None] | None = None):
        self.ranker, self.path = ranker, path
        self.block_rows, self.on_block = block_rows, on_block
        self.name, self.tag = path, ""
        self.qids = self.in_run = self.order = np.zeros(0, dtype=np.int64)

    def __iter__(self) -> Iterator[tuple[Ranked, bool]]:
        from smarteval.read.blocks import BLOCK_ROWS, NOT_GROUPED, NotBlockable, run_blocks
        ranker, settings = self.ranker, self.ranker.settings
        qrels = ranker.qrels
        each = replace(settings, complete=False)    # -c's queries once, at the end
        give_back()                     # what reading the qrels left
        qid_parts: list[np.ndarray] = []
        for block in run_blocks(self.path, self.block_rows or BLOCK_ROWS):
            run = block.run
            self.name, self.tag = run.path, run.tag
            try:
                # the first query trec_eval ranks is checked once every query is known
                ranked = rank(run, qrels, each, documents=ranker.documents,
                              trec_names=False, owned=True, file_order=ranker.file_order)
            except InputError as bad:   # the whole run's reading words it (and finds
                raise NotBlockable(str(bad)) from None      # a bad line before it)
            del run
            qid_parts.append(ranked.qids)
            yield ranker.counted(ranked), False
            del ranked
            if self.on_block is not None:
                self.on_block(block)
            del block
            if len(qid_parts) == GATHERED:
                qid_parts = _gathered(qid_parts)
        qids = np.concatenate(qid_parts) if qid_parts else np.zeros(0, dtype="U1")
        if not len(qids):               # nothing shared with the qrels: the whole run's words
            raise NotBlockable("no query of the run is evaluated")
        in_run = np.ones(len(qids), dtype=bool)
        if settings.complete:
            added = self._added(qids)
            if added is not None:
                qids = np.concatenate([qids, added.qids])
                in_run = np.concatenate([in_run, np.zeros(len(added.qids), dtype=bool)])
                yield ranker.counted(added), True
        order = _byte_order(qids)
        qids, in_run = qids[order], in_run[order]
        again = np.flatnonzero(qids[1:] == qids[:-1])
        if len(again):                  # a query in two blocks (not in blocks side by side)
            raise NotBlockable(NOT_GROUPED, query=str(qids[again[0]]))
        first = np.searchsorted(qrels.qids, qids[:1])   # (every query is the qrels')
        if ranker.documents and ranker.trec_names and (in_run[0] or settings.placeholders) \
                and len(first) and judged_only_below_zero(qrels, int(first[0])):
            raise NotBlockable("the first query is judged only below 0")
        self.qids, self.in_run, self.order = qids, in_run, order

    def _added(self, qids: np.ndarray) -> Ranked | None:
        """The ranking of -c's queries of the qrels that have no results among ``qids``
        (None: there are none)."""
        from smarteval.read.blocks import NotBlockable
        ranker, settings, qrels = self.ranker, self.ranker.settings, self.ranker.qrels
        wanted = qrels.qids if settings.query is None else \
            qrels.qids[qrels.qids == settings.query]
        missing = np.flatnonzero(~np.isin(qrels.qids, qids) & np.isin(qrels.qids, wanted))
        if not len(missing):
            return None
        counts = np.diff(qrels.offsets)[missing]
        rows = concat_ranges(qrels.offsets[missing], counts)
        offsets = np.zeros(len(missing) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        repeated = qrels.repeated[np.isin(qrels.repeated[:, 0], missing)] \
            if len(qrels.repeated) else qrels.repeated
        if len(repeated):               # trec_eval 10.0 ranks them: the whole run's words
            raise NotBlockable("a document judged twice in a query -c adds")
        some = Qrels(path=qrels.path, qids=qrels.qids[missing], offsets=offsets,
                     docnos=qrels.docnos[rows], grades=qrels.grades[rows],
                     lines=qrels.lines[rows])
        none = Run(path=self.name, qids=np.zeros(0, dtype=qids.dtype),
                   offsets=np.zeros(1, dtype=np.int64), docnos=np.zeros(0, dtype="S8"),
                   scores=np.zeros(0), lines=None, tag=self.tag)
        return replace(rank(none, some, settings, documents=ranker.documents,
                            trec_names=False, owned=True, file_order=ranker.file_order),
                       qrels_num_queries=qrels.num_queries,
                       qrels_positive_lines=qrels.num_positive_lines)


#: Run text from which a run file is evaluated in blocks of whole queries (where what is
#: asked for allows it, :attr:`Job.blockable`): 64 MiB, some 1.6 million lines. Shorter
#: runs are read whole, which costs little memory and no thread.
BLOCKED_BYTES = 64 << 20


#: Blocks whose per-query values are kept apart before they are put into one array per
#: output: the parts of a million queries would otherwise leave freed memory scattered.
GATHERED = 16


def _gathered(parts: list[np.ndarray]) -> list[np.ndarray]:
    """``parts`` as one array (in a list, to be added to)."""
    return [np.concatenate(parts)] if len(parts) > 1 else parts


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


def _byte_order(qids: np.ndarray) -> np.ndarray:
    """The permutation that puts ``qids`` in trec_eval's order (their bytes')."""
    if qids.dtype.kind == "U" and (not len(qids) or int(qids.view(np.uint32).max()) < 0x80):
        return np.argsort(qids, kind="stable")
    from smarteval.read.keys import encode_ids
    return np.argsort(encode_ids(qids, "surrogateescape"), kind="stable")


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
