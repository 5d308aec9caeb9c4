"""The one way into the ranking: a run, whole or a block of whole queries at a time, ranked.

:class:`Ranker` holds what every ranking of one evaluation shares (the qrels, the
:class:`~smarteval.settings.Settings`, the residual collection's initial run, the
judgements the plain qrels leave out) and makes each ranking through the same steps
(:meth:`Ranker._ranked`): a whole run (:meth:`Ranker.__call__`) or one block of a run
file grouped by query (:meth:`Ranker.block`, which :class:`BlockRankings` iterates). A
step a setting adds goes there, so both ways take it; which settings the blocks serve,
each setting says itself (:func:`smarteval.settings.policy`, :attr:`Ranker.blockable`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field, replace
from typing import TYPE_CHECKING, cast

import numpy as np

from smarteval.columns import Qrels, Ranked, Run
from smarteval.errors import InputError, UsageError
from smarteval.memory import give_back
from smarteval.ranking.checks import judged_only_below_zero
from smarteval.ranking.join import concat_ranges, rank
from smarteval.ranking.residual import residual
from smarteval.ranking.unjudged import counted_relevant, unjudged_grade
from smarteval.read import read_run
from smarteval.records import record
from smarteval.settings import Settings

if TYPE_CHECKING:
    from smarteval.ranking.cwl import CwlInputs, Keyed
    from smarteval.read.blocks import Block
    from smarteval.read.sample import SampleQrels


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
    gains: Keyed | None = None          # cwl_eval's fractional gains
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
            frozen = self.frozen if isinstance(self.frozen, Run) else read_run(self.frozen)
            self._initial = rank(frozen, self.qrels, settings,
                                 trec_names=self.trec_names, cuts=False)
        return self._initial

    def __call__(self, run: Run, owned: bool = False) -> Ranked:
        """``run`` ranked against the qrels (``owned``: the caller has no further use for
        ``run``, whose columns may then be reordered in place)."""
        return self._ranked(run, self.qrels, self.settings, owned=owned, whole=True)

    def block(self, run: Run, settings: Settings, qrels: Qrels | None = None) -> Ranked:
        """One block of whole queries of a run file ranked as :meth:`__call__` ranks a
        whole run (its columns reordered in place) under ``settings``, but what needs
        every query is left to :class:`BlockRankings`: the queries ``-c`` adds (the
        blocks are ranked without ``-c``, those queries with it against their ``qrels``),
        a query shared with the qrels, ``-D``'s query, the first query trec_eval ranks.
        An error is :class:`~smarteval.read.blocks.NotBlockable`: the whole run's reading
        words it (and finds a bad line before it)."""
        from smarteval.read.blocks import NotBlockable
        try:
            return self._ranked(run, qrels or self.qrels, settings, owned=True, whole=False)
        except InputError as bad:
            raise NotBlockable(str(bad)) from None

    def _ranked(self, run: Run, qrels: Qrels, settings: Settings, *, owned: bool,
                whole: bool) -> Ranked:
        """Every step of a ranking, in order; ``whole``: ``run`` is a whole run, checked
        for what needs every query."""
        if settings.order_by == "rank":
            from smarteval.ranking.order import by_rank_column  # ndeval's order only
            run = by_rank_column(run)
        fmt = getattr(self.subtopics, "format", None)   # an -R format's own judgements
        if fmt == "sample_qrels":       # sample_eval reads run topics without leading zeros
            from smarteval.ranking.sample import without_leading_zeros
            run = without_leading_zeros(run)
        # trec_eval 10.0's -c evaluates every query of the qrels on its placeholder
        # document even when the run has none of them (9.0.8 finds nothing to evaluate)
        if whole and self.require_common and not _shares_a_query(run, qrels) and not (
                settings.placeholders):
            raise InputError(run.path, None,
                             f"no query of this run has judgements in {qrels.path}",
                             expected="query ids shared by the run and the qrels")
        if fmt == "sample_qrels" and self.documents:
            from smarteval.ranking.sample import rank_sample
            ranked = rank_sample(run, cast("SampleQrels", self.subtopics), qrels, settings)
        elif fmt is not None and self.documents:    # -R prefs, qrels_prefs, qrels_jg
            from smarteval.ranking import prefs
            rank_for = prefs.rank_groups if fmt == "qrels_jg" else prefs.rank_preferences
            ranked = rank_for(run, self.subtopics, qrels, settings)
        else:                   # the C/W/L inputs read the run in its own order afterwards
            ranked = rank(run, qrels, settings, documents=self.documents,
                          trec_names=whole and self.trec_names,
                          owned=owned and not self.cwl, file_order=self.file_order)
        if whole and settings.query is not None and not _evaluated(ranked):
            self._no_query(run)
        initial = self.initial()
        if initial is not None:
            assert self.frozen_depth is not None
            ranked = residual(ranked, initial, self.frozen_depth)
        if self.subtopics is not None and fmt is None:
            ranked = replace(ranked, subtopics=self.subtopics)
        if self.cwl:
            ranked = replace(ranked, cwl=self._cwl_inputs(run))
        if settings.unjudged in ("relevant", "range"):
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
        (:class:`BlockRankings`): plain qrels and no residual collection or cwl_eval's
        inputs, under settings the blocks serve (:attr:`Settings.blockable`)."""
        return (self.frozen is None and self.subtopics is None and self.gains is None
                and self.costs is None and self.settings.blockable)

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
        """cwl_eval's gains and costs for ``run``'s ranking (:mod:`smarteval.ranking.cwl`)."""
        from smarteval.ranking.cwl import CwlInputs, element_costs
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


def _evaluated(ranked: Ranked) -> bool:
    """Whether trec_eval evaluates a query of ``ranked``: any, but under 9.0.8's ``-c``
    only one of the run's (it never evaluates a query ``-c`` adds)."""
    s = ranked.settings
    if s.complete and not s.evaluates_added:
        return bool(np.asarray(ranked.in_run, dtype=bool).any())
    return ranked.num_queries > 0


#: Blocks whose per-query values are kept apart before they are put into one array per
#: output: the parts of a million queries would otherwise leave freed memory scattered.
GATHERED = 16


def gathered(parts: list[np.ndarray]) -> list[np.ndarray]:
    """``parts`` as one array (in a list, to be added to)."""
    return [np.concatenate(parts)] if len(parts) > 1 else parts


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
            ranked = ranker.block(run, each)
            del run
            qid_parts.append(ranked.qids)
            yield ranked, False
            del ranked
            if self.on_block is not None:
                self.on_block(block)
            del block
            if len(qid_parts) == GATHERED:
                qid_parts = gathered(qid_parts)
        qids = np.concatenate(qid_parts) if qid_parts else np.zeros(0, dtype="U1")
        if not len(qids):               # nothing shared with the qrels: the whole run's words
            raise NotBlockable("no query of the run is evaluated")
        in_run = np.ones(len(qids), dtype=bool)
        if settings.complete:
            added = self._added(qids)
            if added is not None:
                qids = np.concatenate([qids, added.qids])
                in_run = np.concatenate([in_run, np.zeros(len(added.qids), dtype=bool)])
                yield added, True
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
        return replace(ranker.block(none, settings, some), qrels_num_queries=qrels.num_queries,
                       qrels_positive_lines=qrels.num_positive_lines)


def _byte_order(qids: np.ndarray) -> np.ndarray:
    """The permutation that puts ``qids`` in trec_eval's order (their bytes')."""
    if qids.dtype.kind == "U" and (not len(qids) or int(qids.view(np.uint32).max()) < 0x80):
        return np.argsort(qids, kind="stable")
    from smarteval.read.keys import encode_ids
    return np.argsort(encode_ids(qids, "surrogateescape"), kind="stable")


