"""cwl_eval's inputs: qrels whose gains may be fractional (its gain file), and its cost file.

cwl_eval (``cwl/cwl_eval.py``) reads the fourth field of its gain file as a number (a
gain, 0 to 1 by default) and, with ``-c``, a cost file of ``ELEMENT_TYPE COST`` lines,
the element type being a run's second field. :func:`read_gain_qrels` reads such qrels
with the checked tokenizer of :mod:`smarteval.read.plain` (every error names file and
line): whole grades give the usual :class:`~smarteval.columns.Qrels`, anything else a
:class:`GainQrels`. :func:`read_costs` reads the cost file.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace

import numpy as np

from smarteval.columns import Qrels
from smarteval.errors import InputError
from smarteval.read.plain import (
    QRELS_EXPECTED,
    _decode_ids,
    _group_queries,
    _parse_ints,
    _parse_scores,
    naming_the_file_out_of_memory,
    qrels_columns,
    read_lines,
)
from smarteval.read.source import display, read_bytes


@dataclass(frozen=True, eq=False)
class GainQrels:
    """Qrels whose fourth field holds gains, some not whole numbers (cwl_eval's gain file).

    ``qrels`` is the view every other stage reads: each gain g as the whole grade
    ceil(g) (0.25 is judged and counts as grade 1; -0.5 as grade 0), rows sorted by
    (query, docno) as :class:`~smarteval.columns.Qrels` keeps them. ``gains`` holds the
    gains as read, aligned with those rows; only the C/W/L measures read them.
    """

    qrels: Qrels
    gains: np.ndarray          # (m,) float64

    def as_qrels(self) -> Qrels:
        return self.qrels


#: What a line of cwl_eval's cost file holds.
COSTS_EXPECTED = "ELEMENT_TYPE COST"


@naming_the_file_out_of_memory
def read_gain_qrels(path: str | os.PathLike, *, data: bytes | None = None,
                    refuse: str | None = None) -> Qrels | GainQrels:
    """Read qrels whose fourth field is a whole grade or a gain (cwl_eval's gain file).

    Qrels of whole grades read as :func:`smarteval.read.plain.read_qrels` reads them.
    Otherwise every gain must be a finite number and the result is a :class:`GainQrels`;
    ``refuse``, when given, says why gains that are not whole numbers cannot be taken
    here, and the first such line is refused with it.
    """
    name = display(str(path))
    lines = read_lines(path, data, 4, QRELS_EXPECTED, "qrels")
    rel_bytes = lines.field(3)
    try:
        grades = _parse_ints(rel_bytes, lines)
        gains = None
    except InputError as whole:
        if refuse is not None:
            raise InputError(whole.path, whole.line, f"{whole.problem} ({refuse})",
                             whole.text, whole.expected) from None
        gains = _parse_scores(rel_bytes, lines, "gain", QRELS_EXPECTED)
        grades = np.ceil(gains).astype(np.int64)
    uniq, codes, grouped = _group_queries(lines.field(0))
    qids, codes, _ = _decode_ids(uniq, codes, grouped)
    # rows numbered 0.. go in as line numbers: what comes out says where each row went
    row = np.arange(len(codes), dtype=np.int64)
    qrels = qrels_columns(name, qids, codes, lines.field(2), grades, row)
    picked = qrels.lines
    qrels = replace(qrels, lines=lines.lines[picked],
                    repeated=_lines_of(qrels.repeated, lines.lines))
    return qrels if gains is None else GainQrels(qrels=qrels, gains=gains[picked])


def _lines_of(repeated: np.ndarray, line_no: np.ndarray) -> np.ndarray:
    """``repeated`` (query, first row, row again) with its rows as physical lines."""
    out = repeated.copy()
    if len(out):
        out[:, 1:] = line_no[out[:, 1:]]
    return out


@naming_the_file_out_of_memory
def read_costs(path: str | os.PathLike) -> dict[bytes, float]:
    """cwl_eval's cost file: ``ELEMENT_TYPE COST`` a line, COST a number above 0.

    Blank lines are skipped. A line with another number of fields, a cost that is not
    a finite number above 0 (cwl_eval's "no free lunches"), or an element type given
    twice is refused in one line naming the file and line.
    """
    name = display(str(path))
    data = read_bytes(path, what="a cost file", expected=COSTS_EXPECTED)
    costs: dict[bytes, float] = {}
    first: dict[bytes, int] = {}
    for number, raw in enumerate(data.split(b"\n"), 1):
        fields = raw.split()
        if not fields:
            continue
        shown = raw.strip().decode("utf-8", "replace")
        if len(fields) != 2:
            raise InputError(name, number, f"{shown!r}: {len(fields)} field"
                             f"{'s' if len(fields) != 1 else ''}, not 2 "
                             f"(expected {COSTS_EXPECTED})")
        kind, text = fields
        try:
            cost = float(text) if b"_" not in text else math.nan
        except ValueError:
            cost = math.nan
        if not (math.isfinite(cost) and cost > 0):
            raise InputError(name, number, f"{shown!r}: the cost is not a number above 0 "
                             f"(expected {COSTS_EXPECTED})")
        if kind in first:
            raise InputError(name, number, f"{shown!r}: element type "
                             f"{kind.decode('utf-8', 'replace')!r} given again (first at "
                             f"line {first[kind]})")
        first[kind] = number
        costs[kind] = cost
    return costs


__all__ = ["COSTS_EXPECTED", "GainQrels", "read_costs", "read_gain_qrels"]
