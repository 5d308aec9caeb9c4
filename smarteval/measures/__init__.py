"""Measure modules; importing this package fills the registry (trec_eval first, then SMART)."""

import importlib

from smarteval.measures import trec  # noqa: F401

for _name in ("smarteval.measures.smart", "smarteval.measures.extra", "smarteval.measures.swets"):
    try:
        importlib.import_module(_name)
    except ModuleNotFoundError as exc:  # pragma: no cover - only while a module is absent
        if exc.name != _name:
            raise
