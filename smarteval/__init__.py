"""smarteval: evaluate information-retrieval runs, trec_eval-exact and SMART-complete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:       # what type checkers see; at run time each name comes on first use
    from smarteval import read, stats, sweep
    from smarteval.api import (
        Comparison,
        Correlation,
        Curves,
        Diff,
        DiscriminativePower,
        RelevanceEvaluator,
        ReportTable,
        Repro,
        Results,
        TopicSets,
        calc_aggregate,
        compare,
        correlate,
        curve,
        diff,
        discpower,
        evaluate,
        ir_measure,
        iter_calc,
        report,
        repro,
        topics,
    )
    from smarteval.errors import InputError, SmartevalError, UsageError
    from smarteval.evaluation import Evaluation
    from smarteval.measures import measure
    from smarteval.read import read_qrels, read_run
    from smarteval.settings import Settings

__version__ = "0.1.0"

# what each public name is imported from, on first use (``import smarteval`` stays cheap)
_HOMES = {
    "evaluate": "smarteval.api", "compare": "smarteval.api", "curve": "smarteval.api",
    "correlate": "smarteval.api", "report": "smarteval.api", "discpower": "smarteval.api",
    "topics": "smarteval.api", "diff": "smarteval.api", "repro": "smarteval.api",
    "calc_aggregate": "smarteval.api",
    "iter_calc": "smarteval.api", "ir_measure": "smarteval.api",
    "RelevanceEvaluator": "smarteval.api",
    "Results": "smarteval.api", "Comparison": "smarteval.api",
    "ReportTable": "smarteval.api", "Curves": "smarteval.api",
    "Correlation": "smarteval.api", "DiscriminativePower": "smarteval.api",
    "TopicSets": "smarteval.api", "Diff": "smarteval.api", "Repro": "smarteval.api",
    "Evaluation": "smarteval.evaluation",
    "Settings": "smarteval.settings", "read_qrels": "smarteval.read",
    "read_run": "smarteval.read", "measure": "smarteval.measures",
    "SmartevalError": "smarteval.errors",
    "InputError": "smarteval.errors", "UsageError": "smarteval.errors",
}
#: The subpackages a user reaches as ``smarteval.NAME`` without importing them first.
_SUBPACKAGES = ("stats", "sweep", "read")

#: What ``from smarteval import *``, ``dir(smarteval)`` and static tools see: every name of
#: :data:`_HOMES` and :data:`_SUBPACKAGES` (a test checks so).
__all__ = [
    "__version__", "evaluate", "compare", "curve", "correlate", "report", "discpower",
    "topics", "diff", "repro", "calc_aggregate", "iter_calc", "ir_measure",
    "RelevanceEvaluator", "Results", "Comparison", "ReportTable", "Curves", "Correlation",
    "DiscriminativePower", "TopicSets", "Diff", "Repro", "Evaluation", "Settings",
    "read_qrels", "read_run", "measure", "SmartevalError", "InputError", "UsageError",
    "stats", "sweep", "read",
]


def __getattr__(name: str) -> Any:
    import importlib
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    if name in _SUBPACKAGES:
        return importlib.import_module(f"smarteval.{name}")
    raise AttributeError(f"module 'smarteval' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API (what tab completion offers), and the module's own dunder names."""
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
