"""Keen's Fig. 36 for ``compare --plot``: one magnitude-difference plot per comparison."""

from __future__ import annotations

import os
import re

from smarteval.plot import draw
from smarteval.stats.report import Report


def magnitude_images(rep: Report, path: str) -> list[tuple[str, bytes]]:
    """Keen's Fig. 36 for each comparison, drawn by :func:`smarteval.plot.draw.diff_figure`:
    (file, image bytes) pairs for :mod:`smarteval.output` to write.

    One comparison goes to ``path``; several go to ``path`` with ``-RUN-MEASURE`` before
    the suffix.
    """
    fmt = draw.output_format(path)              # a bad suffix fails before any drawing
    draw.require_matplotlib()
    stem, ext = os.path.splitext(path)
    images = []
    for mg, mt in zip(rep.mags, rep.merit, strict=True):
        target = path if len(rep.mags) == 1 else \
            f"{stem}-{_slug(mt['run'])}-{_slug(mt['measure'])}{ext}"
        title = f"{mt['run']} vs {rep.baseline}: {mt['measure']}, {mt['n']} queries"
        fig = draw.diff_figure(mg, rep.baseline, mt["run"], mt["measure"], equal=mt["equal"],
                               title=title)
        images.append((target, draw.image(fig, fmt)))
    return images


def _slug(text: str) -> str:
    """Text safe in a file name: runs of other characters become one underscore."""
    return re.sub(r"[^\w.+-]+", "_", str(text))
