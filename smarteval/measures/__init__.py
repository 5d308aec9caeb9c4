"""The measures: importing this package registers trec_eval's measures; the other measure
modules join when a name is not found among those or every measure is listed
(:func:`~smarteval.measures.registry.load_modules`), and the plugins of the installed
packages' ``smarteval.measures`` entry points after them (looking them up scans every
installed distribution, which a run of built-in measures need not pay for)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import smarteval.measures.trec  # noqa: F401  (the decorators register)
from smarteval.measures.grammar import ALIASES, nicknames, parse_measures
from smarteval.measures.registry import LOADERS, MODULES, REGISTRY, Measure, load_modules

if TYPE_CHECKING:       # at run time imported on first use (a run of built-in measures
    from smarteval.measures.plugins import load_entry_points, load_plugin, measure  # skips it)

__all__ = ["ALIASES", "MODULES", "Measure", "all_measures", "load_entry_points", "load_plugin",
           "lookup", "measure", "nicknames", "parse_measures"]


_PLUGIN_NAMES = ("load_entry_points", "load_plugin", "measure")


def __getattr__(name: str) -> Any:
    if name in _PLUGIN_NAMES:
        from smarteval.measures import plugins
        return getattr(plugins, name)
    raise AttributeError(f"module 'smarteval.measures' has no attribute {name!r}")


def _load_entry_points() -> None:
    from smarteval.measures.plugins import load_entry_points
    load_entry_points()


LOADERS.append(_load_entry_points)


def all_measures() -> dict[str, Measure]:
    """Every registered measure by name, in registry order (trec_eval's first), the
    installed plugins' included."""
    load_modules()
    _load_entry_points()
    return REGISTRY


def lookup(name: str) -> Measure:
    """The registry entry of ``name`` (also how a pickled measure is restored)."""
    if name not in REGISTRY:
        load_modules()
    if name not in REGISTRY:
        _load_entry_points()
    return REGISTRY[name]
