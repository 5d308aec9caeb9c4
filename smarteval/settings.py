"""Evaluation settings: every policy (ties, N, trec_version, averaging...) decided once, here."""

from __future__ import annotations

from dataclasses import dataclass

from smarteval.errors import UsageError

#: trec_eval versions whose numbers smarteval reproduces.
TREC_VERSIONS = (9, 10)
#: Orders of documents with equal scores: trec_eval's docno order, a seeded random order,
#: or the exact average over every order.
TIES = ("docno", "random", "average")
#: Ranks given to relevant documents the run did not retrieve (SMART measures that need them).
UNRANKED = ("expected", "worst")
#: How per-query values are averaged.
AVERAGES = ("macro", "micro", "median")


@dataclass(frozen=True)
class Settings:
    """How runs are ranked and evaluated: the one object every stage consults.

    ``complete``, ``rel_level``, ``max_docs`` and ``judged_only`` are trec_eval's ``-c``,
    ``-l``, ``-M`` and ``-J``; ``num_docs`` is N (``-N``); ``trec_version`` picks 9.0.8's
    or 10.0's float precision and rounding, and how ``-c`` treats a query without
    results (9.0.8: it counts 0 in every average; 10.0: it is evaluated on a one-document
    placeholder ranking). ``query`` is the query of trec_eval's ``-D LEVEL.QUERY``: only
    that query is evaluated, while ``-c`` still averages over every query of the qrels.
    Invalid combinations are refused when the object is made, so no later stage checks
    them again.
    """

    complete: bool = False
    rel_level: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    num_docs: int | None = None          # N, collection size (-N)
    trec_version: int = 9                # 9 or 10: rounding and float precision of trec_eval
    unranked: str = "expected"           # where unretrieved relevant documents go (SMART)
    target_generality: float | None = None
    ties: str = "docno"                  # docno | random | average
    seed: int | None = None
    average: str = "macro"               # macro | micro | median
    query: str | None = None             # -D LEVEL.QUERY: evaluate this query only

    def __post_init__(self) -> None:
        if self.trec_version not in TREC_VERSIONS:
            raise UsageError(f"--trec-version must be 9 or 10, not {self.trec_version!r}")
        for name, value, allowed in (("--ties", self.ties, TIES),
                                     ("--unranked", self.unranked, UNRANKED),
                                     ("--average", self.average, AVERAGES)):
            if value not in allowed:
                raise UsageError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        if self.num_docs is not None and self.num_docs < 1:
            raise UsageError(f"-N/--num-docs must be at least 1, not {self.num_docs}")
        if self.max_docs is not None and self.max_docs < 0:
            raise UsageError(f"-M/--max-docs must not be negative, not {self.max_docs}")
