"""smarteval: evaluate information-retrieval runs, trec_eval-exact and SMART-complete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:       # what type checkers see; at run time each name comes on first use
    from smarteval.api import (
        RelevanceEvaluator,
        Results,
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

__all__ = [
    "__version__",
    "evaluate",
    "compare",
    "curve",
    "correlate",
    "report",
    "diff",
    "discpower",
    "repro",
    "topics",
    "calc_aggregate",
    "iter_calc",
    "ir_measure",
    "RelevanceEvaluator",
    "Results",
    "Evaluation",
    "Settings",
    "read_qrels",
    "read_run",
    "measure",
    "SmartevalError",
    "InputError",
    "UsageError",
]

# what each public name is imported from, on first use (``import smarteval`` stays cheap)
_HOMES = {
    "evaluate": "smarteval.api", "compare": "smarteval.api", "curve": "smarteval.api",
    "correlate": "smarteval.api", "report": "smarteval.api", "calc_aggregate": "smarteval.api",
    "discpower": "smarteval.api", "topics": "smarteval.api",
    "iter_calc": "smarteval.api", "ir_measure": "smarteval.api",
    "RelevanceEvaluator": "smarteval.api", "diff": "smarteval.api", "repro": "smarteval.api",
    "Results": "smarteval.api", "Evaluation": "smarteval.evaluation",
    "Settings": "smarteval.settings", "read_qrels": "smarteval.read",
    "read_run": "smarteval.read", "measure": "smarteval.measures",
    "SmartevalError": "smarteval.errors",
    "InputError": "smarteval.errors", "UsageError": "smarteval.errors",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'smarteval' has no attribute {name!r}")
