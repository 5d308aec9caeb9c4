"""The measures: importing this package registers trec_eval's measures; the other measure
modules join when a name is not found among those or every measure is listed
(:func:`~smarteval.measures.registry.load_families`), and the plugins of the installed
packages' ``smarteval.measures`` entry points after them (looking them up scans every
installed distribution, which a run of built-in measures need not pay for)."""

from __future__ import annotations

import smarteval.measures.trec  # noqa: F401  (the decorators register)
from smarteval.measures.grammar import ALIASES, nicknames, parse_measures
from smarteval.measures.plugins import load_entry_points, load_plugin, measure
from smarteval.measures.registry import FAMILIES, REGISTRY, Measure, load_families

__all__ = ["ALIASES", "FAMILIES", "Measure", "all_measures", "load_plugin", "lookup", "measure",
           "nicknames", "parse_measures"]


def all_measures() -> dict[str, Measure]:
    """Every registered measure by name, in registry order (trec_eval's first), the
    installed plugins' included."""
    load_families()
    load_entry_points()
    return REGISTRY


def lookup(name: str) -> Measure:
    """The registry entry of ``name`` (also how a pickled measure is restored)."""
    if name not in REGISTRY:
        load_families()
    if name not in REGISTRY:
        load_entry_points()
    return REGISTRY[name]
