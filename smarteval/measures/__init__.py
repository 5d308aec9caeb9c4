"""The measures: importing this package fills the registry (trec_eval first, then the others)."""

from __future__ import annotations

import importlib

from smarteval.measures.registry import REGISTRY, Measure

#: The measure modules, in the order their measures are listed (trec_eval's first).
FAMILIES = ("trec", "smart", "extra", "swets", "web", "diversity", "cwl")
for _family in FAMILIES:
    importlib.import_module(f"smarteval.measures.{_family}")    # the decorators register

from smarteval.measures.grammar import ALIASES, nicknames, parse_measures  # noqa: E402

__all__ = ["ALIASES", "Measure", "all_measures", "lookup", "nicknames", "parse_measures"]


def all_measures() -> dict[str, Measure]:
    """Every registered measure by name, in registry order (trec_eval's first)."""
    return REGISTRY


def lookup(name: str) -> Measure:
    """The registry entry of ``name`` (also how a pickled measure is restored)."""
    return REGISTRY[name]
