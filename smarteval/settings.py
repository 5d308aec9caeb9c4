"""Evaluation settings: every policy (ties, N, trec_version, averaging...) decided once, here."""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from typing import Any

from smarteval.errors import UsageError
from smarteval.records import record

#: trec_eval versions whose numbers smarteval reproduces.
TREC_VERSIONS = (9, 10)
#: Orders of documents with equal scores: trec_eval's docno order, a seeded random order,
#: or the exact average over every order.
TIES = ("docno", "random", "average")
#: Ranks given to relevant documents the run did not retrieve (SMART measures that need them).
UNRANKED = ("expected", "worst")
#: What a retrieved document without a judgement of 0 or more (absent from the qrels, or
#: judged below 0) counts as (--unjudged): non-relevant (trec_eval's), dropped from the
#: ranking (the condensed list, -J), relevant at --unjudged-grade, or both ways side by side.
UNJUDGED = ("nonrelevant", "drop", "relevant", "range")
#: How per-query values are averaged.
AVERAGES = ("macro", "micro", "median")
#: Formats of the relevance file (-R): trec_eval's qrels, ndeval's diversity qrels
#: (QUERY SUBTOPIC DOCNO REL), and trec_eval's preferences (QUERY JG JSG DOCNO LEVEL),
#: qrels read as preferences (the second field the judgement group) and qrels with
#: judgement groups (QUERY JG DOCNO REL), and sample_eval's sampled judgements (QUERY ITER
#: DOCNO STRATUM REL).
QRELS_FORMATS = ("qrels", "qrels_diversity", "prefs", "qrels_prefs", "qrels_jg", "sample_qrels")
#: Formats of the run files (trec_eval's -T): trec_eval has only its own, trec_results.
RESULTS_FORMATS = ("trec_results",)
#: How each query's documents are put in order: by score (trec_eval's, and ndeval's
#: -traditional), or by the run's rank column (ndeval's default).
ORDERS = ("score", "rank")
#: The largest and smallest counts and levels (a C long: trec_eval reads -M, -N, -l and
#: cut-offs with atol, which saturates here; smarteval takes a larger number as this one).
LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)


def policy(default: Any, *, blocks: bool | tuple = True) -> Any:
    """A field of :class:`Settings` with its ``default`` and what the blocks serve of it.

    ``blocks`` True: a run ranked a block of whole queries at a time
    (:class:`smarteval.ranking.ranker.BlockRankings`) gives every value of it what the
    whole run gives; a tuple: only those values; False: the default alone (any other value
    reads the whole run). ``tests/test_blocks.py`` compares the two for every field.
    """
    return dataclasses.field(default=default, metadata={"blocks": blocks})


def blocks_serve(field: dataclasses.Field, value: Any) -> bool:
    """Whether the blocks serve ``value`` of ``field`` (its :func:`policy`'s ``blocks``)."""
    blocks = field.metadata.get("blocks", False)
    if blocks is True:
        return True
    if blocks is False:
        return value == field.default
    return value in blocks


@record(frozen=True)
class Settings:
    """How runs are ranked and evaluated: the one object every stage consults.

    ``complete``, ``rel_level``, ``max_docs`` and ``judged_only`` are trec_eval's ``-c``,
    ``-l``, ``-M`` and ``-J``; ``num_docs`` is N (``-N``); ``trec_version`` picks 9.0.8's
    or 10.0's float precision and rounding, and how ``-c`` treats a query without
    results (9.0.8: it counts 0 in every average; 10.0: it is evaluated on a one-document
    placeholder ranking). ``query`` is the query of trec_eval's ``-D LEVEL.QUERY``: only
    that query is evaluated, while ``-c`` still averages over every query of the qrels.
    ``cwl_costs`` is cwl_eval's cost file (``-c``: an element type and its cost a line,
    the element type being a run's second field) and ``cwl_default_cost`` the cost of a
    document whose element type the file lacks (or of every document, without the file),
    as cwl_eval's ``--max_cost`` and ``--min_cost`` (both 1 by default). ``order_by``
    "rank" orders each query by the run's rank column, as ndeval does without
    ``-traditional`` (:mod:`smarteval.ranking.order`). ``unjudged`` says what a retrieved
    document without a judgement of 0 or more counts as (:data:`UNJUDGED`; "drop" is
    ``judged_only``, which it becomes), ``unjudged_grade`` the grade it is given under
    "relevant" and "range" (None: the highest grade of the qrels, at least ``rel_level``).
    Invalid combinations are refused when the object is made, so no later stage checks
    them again.

    Each field is a :func:`policy`, which says whether a run evaluated a block of whole
    queries at a time can serve its values (:attr:`blockable`).
    """

    complete: bool = policy(False)
    rel_level: int = policy(1)
    max_docs: int | None = policy(None)
    judged_only: bool = policy(False)
    num_docs: int | None = policy(None)                 # N, collection size (-N)
    trec_version: int = policy(9)        # 9 or 10: rounding and float precision of trec_eval
    unranked: str = policy("expected")   # where unretrieved relevant documents go (SMART)
    target_generality: float | None = policy(None)
    #: docno | random | average; a random order is drawn over the whole run
    ties: str = policy("docno", blocks=("docno", "average"))
    seed: int | None = policy(None)
    #: macro | micro | median; micro sums over every query at once
    average: str = policy("macro", blocks=("macro", "median"))
    query: str | None = policy(None)     # -D LEVEL.QUERY: evaluate this query only
    #: -R: one of QRELS_FORMATS; the blocks rank plain qrels alone
    qrels_format: str = policy("qrels", blocks=False)
    #: cwl_eval's cost file (-c): element type -> cost
    cwl_costs: str | None = policy(None, blocks=False)
    cwl_default_cost: float = policy(1.0, blocks=False)  # the cost of a type it lacks
    order_by: str = policy("score", blocks=False)       # score | rank (ndeval's default order)
    unjudged: str = policy("nonrelevant")  # --unjudged: one of UNJUDGED ("drop" is -J)
    unjudged_grade: int | None = policy(None)  # --unjudged-grade (None: the qrels' highest)

    @property
    def blockable(self) -> bool:
        """Whether runs ranked a block of whole queries at a time give what the whole run
        gives under these settings: every field's value is one its :func:`policy` says
        the blocks serve (of a field that does not say, its default alone)."""
        return all(blocks_serve(f, getattr(self, f.name)) for f in dataclasses.fields(self))

    # ---- the rules of the two trec_eval versions, each named once ----
    @property
    def float32_scores(self) -> bool:
        """trec_eval 9.0.8 keeps a score (and a preference level) as a C ``float``: scores
        equal in 32 bits tie. 10.0 compares doubles."""
        return self.trec_version < 10

    @property
    def evaluates_added(self) -> bool:
        """Whether a query ``-c`` adds (judged, no results) is evaluated: 10.0 ranks it on a
        placeholder document and prints its per-query values; 9.0.8 never evaluates it
        (it adds nothing to the sums and counts in the divisor only)."""
        return self.trec_version >= 10

    @property
    def placeholders(self) -> bool:
        """Whether the ranking gives each query ``-c`` adds 10.0's placeholder document."""
        return self.complete and self.evaluates_added

    @property
    def rounds_to_nearest(self) -> bool:
        """10.0 rounds a fraction of num_rel to the nearest count (half away from zero)
        in the interpolated-precision measures; 9.0.8 adds 0.9 and truncates."""
        return self.trec_version >= 10

    def __post_init__(self) -> None:
        for name, flag in (("complete", self.complete), ("judged_only", self.judged_only)):
            if not isinstance(flag, bool):
                raise UsageError(f"{name} must be True or False, not {flag!r}")
        for name, value, optional in (("rel_level", self.rel_level, False),
                                      ("max_docs", self.max_docs, True),
                                      ("num_docs", self.num_docs, True),
                                      ("seed", self.seed, True),
                                      ("unjudged_grade", self.unjudged_grade, True),
                                      ("trec_version", self.trec_version, False)):
            if optional and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise UsageError(f"{name} must be a whole number, not {value!r}")
            object.__setattr__(self, name, int(value))
        # as trec_eval's atol: a level, -M and N beyond a C long are that long's bounds
        object.__setattr__(self, "rel_level", min(max(self.rel_level, LONG_MIN), LONG_MAX))
        for name in ("max_docs", "num_docs"):
            value = getattr(self, name)
            if value is not None and value > LONG_MAX:
                object.__setattr__(self, name, LONG_MAX)
        if self.trec_version not in TREC_VERSIONS:
            raise UsageError(f"--trec-version must be 9 or 10, not {self.trec_version!r}")
        for name, choice, allowed in (("--ties", self.ties, TIES),
                                      ("--unranked", self.unranked, UNRANKED),
                                      ("--average", self.average, AVERAGES),
                                      ("-R/--rel-info-format", self.qrels_format,
                                       QRELS_FORMATS),
                                      ("--order-by", self.order_by, ORDERS),
                                      ("--unjudged", self.unjudged, UNJUDGED)):
            if choice not in allowed:
                raise UsageError(f"{name} must be one of {', '.join(allowed)}, not {choice!r}")
        if self.unjudged == "drop":         # -J by another name: kept as -J alone
            object.__setattr__(self, "judged_only", True)
            object.__setattr__(self, "unjudged", "nonrelevant")
        elif self.judged_only and self.unjudged != "nonrelevant":
            raise UsageError(f"-J drops the unjudged documents (--unjudged drop), which "
                             f"--unjudged {self.unjudged} counts: give one of them")
        if self.unjudged_grade is not None and not 0 <= self.unjudged_grade <= LONG_MAX:
            raise UsageError(f"--unjudged-grade must be a grade from 0 to {LONG_MAX}, not "
                             f"{self.unjudged_grade}")
        if self.unjudged_grade is not None and self.unjudged not in ("relevant", "range"):
            raise UsageError("--unjudged-grade is the grade --unjudged relevant or range "
                             "gives an unjudged document: give one of those")
        if self.num_docs is not None and self.num_docs < 1:
            raise UsageError(f"-N/--num-docs must be at least 1, not {self.num_docs}")
        if self.max_docs is not None and self.max_docs < 0:
            raise UsageError(f"-M/--max-docs must not be negative, not {self.max_docs}")
        if self.seed is not None and self.seed < 0:
            raise UsageError(f"--seed must be 0 or more, not {self.seed}")
        G = self.target_generality
        if G is not None:
            if isinstance(G, bool) or not isinstance(G, numbers.Real):
                raise UsageError(f"--target-generality must be a number, not {G!r}")
            if not (math.isfinite(G) and 0 < G < 1000):     # NaN too
                raise UsageError(f"--target-generality must lie between 0 and 1000, not {G:g}")
        if self.cwl_costs is not None:
            if not isinstance(self.cwl_costs, (str, os.PathLike)):
                raise UsageError(f"cwl_costs must be the path of a cost file, not "
                                 f"{self.cwl_costs!r}")
            object.__setattr__(self, "cwl_costs", os.fspath(self.cwl_costs))
        c = self.cwl_default_cost
        if isinstance(c, bool) or not isinstance(c, numbers.Real) or not (
                math.isfinite(c) and c > 0):
            raise UsageError(f"--cwl-default-cost must be a number above 0, not {c!r}")
        object.__setattr__(self, "cwl_default_cost", float(c))
        if self.query is not None and not isinstance(self.query, str):
            raise UsageError(f"query must be a query id (a string), not {self.query!r}")


def distinct_names(names: list[str]) -> list[str]:
    """``names`` with each name that comes again made distinct: ``r``, ``r#2``, ``r#3``.

    No two runs print under one name (the same file given twice, say).
    """
    taken = set(names)
    seen: dict[str, int] = {}
    out = []
    for name in names:
        k = seen.get(name, 0) + 1
        seen[name] = k
        if k > 1:
            while f"{name}#{k}" in taken:
                k += 1
            seen[name] = k
            taken.add(f"{name}#{k}")
            name = f"{name}#{k}"
        out.append(name)
    return out
