"""smarteval: evaluate information-retrieval runs, trec_eval-exact and SMART-complete."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "evaluate",
    "Evaluation",
    "Settings",
    "read_qrels",
    "read_run",
    "SmartevalError",
    "InputError",
    "UsageError",
]

# what each public name is imported from, on first use (``import smarteval`` stays cheap)
_HOMES = {
    "evaluate": "smarteval.api", "Evaluation": "smarteval.evaluation",
    "Settings": "smarteval.settings", "read_qrels": "smarteval.read",
    "read_run": "smarteval.read", "SmartevalError": "smarteval.errors",
    "InputError": "smarteval.errors", "UsageError": "smarteval.errors",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'smarteval' has no attribute {name!r}")
