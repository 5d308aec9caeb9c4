"""The measures: importing this package fills the registry (trec_eval first, then the others);
the plugins of the installed packages' ``smarteval.measures`` entry points join when a name
is not found among these or every measure is listed (looking them up scans every installed
distribution, which a run of built-in measures need not pay for)."""

from __future__ import annotations

import importlib

from smarteval.measures.registry import REGISTRY, Measure

#: The measure modules, in the order their measures are listed (trec_eval's first).
FAMILIES = ("trec", "prefs", "smart", "extra", "swets", "web", "diversity", "cwl")
for _family in FAMILIES:
    importlib.import_module(f"smarteval.measures.{_family}")    # the decorators register

from smarteval.measures.grammar import ALIASES, nicknames, parse_measures  # noqa: E402
from smarteval.measures.plugins import load_entry_points, load_plugin, measure  # noqa: E402

__all__ = ["ALIASES", "Measure", "all_measures", "load_plugin", "lookup", "measure",
           "nicknames", "parse_measures"]


def all_measures() -> dict[str, Measure]:
    """Every registered measure by name, in registry order (trec_eval's first), the
    installed plugins' included."""
    load_entry_points()
    return REGISTRY


def lookup(name: str) -> Measure:
    """The registry entry of ``name`` (also how a pickled measure is restored)."""
    if name not in REGISTRY:
        load_entry_points()
    return REGISTRY[name]
