"""Pictures of an evaluation (the ``plot`` extra), in three steps.

* :mod:`smarteval.plot.data` — the numbers each kind of picture shows (curves, first
  relevant ranks, magnitude differences, titles), computed without matplotlib;
* :mod:`smarteval.plot.draw` — matplotlib figures of those numbers, and their image bytes;
* :mod:`smarteval.plot.build` — one call from a kind, the qrels and the runs to a figure
  (:func:`~smarteval.plot.build.figure`) or to the bytes of an image file
  (:func:`~smarteval.plot.build.image`), which :mod:`smarteval.output` writes.

This package imports nothing heavy: a command may read :data:`KINDS` without loading
numpy's users or matplotlib.
"""

from __future__ import annotations

#: What ``smarteval plot --kind`` draws.
KINDS = ("pr", "pr-queries", "oc", "diff", "first-rel", "characteristic", "fallout", "asl")
