"""Evaluation results read back: summaries for correlate (trec_eval's text, evaluate's tsv,
csv or json), and per-query values, exactly as written, for a stored baseline
(``--baseline-results``: evaluate -q's tsv, csv or json)."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smarteval.errors import InputError
from smarteval.numerals import NUMBER, is_decimal
from smarteval.read import read_bytes
from smarteval.read.plain import ID_ERRORS, naming_the_file_out_of_memory

#: The formats of smarteval evaluate these readers read back (each told apart by its
#: text): the summaries of each, and the per-query values, every digit, of those that
#: are exact. tests/test_formats.py checks them against the registry's
#: ``Format.reads_back`` and ``Format.exact`` and reads each back.
READ_BACK = ("trec", "tsv", "csv", "json")
READ_EXACTLY = ("tsv", "csv", "json")


def _named(names: tuple[str, ...]) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}"


#: What a results file should hold, for error messages.
RESULTS_EXPECTED = ("evaluation results: trec_eval output (MEASURE QUERY VALUE) or "
                    f"smarteval evaluate -f {_named(tuple(f for f in READ_BACK if f != 'trec'))}")


@naming_the_file_out_of_memory
def read_results(path: str) -> list[tuple[str, dict[str, float]]]:
    """Summary values from an evaluation's output: [(run, {measure: value})].

    Reads trec_eval's text (``-f trec``, or trec_eval itself) and smarteval evaluate's
    ``-f tsv``, ``csv`` and ``json``; the ``all`` rows are the summaries.
    """
    data = read_bytes(path, what="evaluation results", expected=RESULTS_EXPECTED)
    name = "<stdin>" if path == "-" else path
    # run names and query ids keep their bytes, as the readers of runs keep them
    text = data.decode("utf-8", ID_ERRORS)
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _results_json(name, text)
    first = stripped.split("\n", 1)[0].strip()
    if first.replace(",", "\t").split("\t")[:4] == ["run", "query", "measure", "value"]:
        return _results_delimited(name, text, "," if "," in first else "\t")
    return _results_trec(name, text, os.path.basename(name))


@contextmanager
def _json_output(name: str, expected: str) -> Iterator[None]:
    """What goes wrong reading evaluate's JSON output, as one message naming the file."""
    try:
        yield
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(name, None, f"not smarteval evaluate -f json output ({exc})",
                         expected=expected) from None
    except RecursionError:
        raise InputError(name, None, "not smarteval evaluate -f json output (nested too "
                         "deeply)", expected=expected) from None


def _results_json(name: str, text: str) -> list[tuple[str, dict[str, float]]]:
    with _json_output(name, RESULTS_EXPECTED):
        out: list[tuple[str, dict[str, float]]] = []
        for item in json.loads(text, object_pairs_hook=_unique(name, RESULTS_EXPECTED)):
            # a whole number past a float's range is an infinity, and so are "inf" and
            # "-inf" (the writers' infinities); null (undefined) is left out
            summary = {k: float(v) if isinstance(v, (float, str)) or
                       abs(v) <= sys.float_info.max else math.inf if v > 0 else -math.inf
                       for k, v in item["summary"].items()
                       if isinstance(v, (int, float)) and not isinstance(v, bool) or
                       v in ("inf", "-inf")}
            run = str(item["run"])
            if any(run == seen for seen, _ in out):
                raise InputError(name, None, f"run {run} is given twice",
                                 expected=RESULTS_EXPECTED)
            out.append((run, summary))
        return out


def _results_delimited(name: str, text: str, delim: str) -> list[tuple[str, dict[str, float]]]:
    out: dict[str, dict[str, float]] = {}
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    for lineno, row in enumerate(reader, start=1):
        if lineno == 1 or not row:
            continue
        if len(row) != 4:
            raise InputError(name, lineno, f"results line has {len(row)} fields, not 4",
                             delim.join(row), "run, query, measure, value")
        run, qid, measure, value = row
        if qid != "all":
            continue
        if measure in out.get(run, {}):
            raise InputError(name, lineno, f"run {run}'s {measure} of query all is given "
                             "twice", delim.join(row), RESULTS_EXPECTED)
        if _NUMBER.fullmatch(value):               # not runid or another text value
            out.setdefault(run, {})[measure] = float(value)
    return list(out.items())


def _results_trec(name: str, text: str, default_run: str) -> list[tuple[str, dict[str, float]]]:
    blocks: list[tuple[str | None, dict[str, float]]] = [(None, {})]
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 3:
            raise InputError(name, lineno, f"results line has {len(fields)} fields, not 3", line,
                             RESULTS_EXPECTED)
        measure, qid, value = fields
        if qid != "all":
            continue
        tag, vals = blocks[-1]
        if measure in vals or (measure == "runid" and tag is not None):
            blocks.append((None, {}))            # a second run's block starts
            tag, vals = blocks[-1]
        if measure == "runid":
            blocks[-1] = (value, vals)
            continue
        if not _NUMBER.fullmatch(value):
            raise InputError(name, lineno, f"value {value!r} of {measure} is not a number",
                             line, RESULTS_EXPECTED)
        vals[measure] = float(value)
    blocks = [(t, v) for t, v in blocks if v]
    if not blocks:
        raise InputError(name, None, "no summary ('all') lines", expected=RESULTS_EXPECTED)
    if len(blocks) == 1:
        return [(blocks[0][0] or default_run, blocks[0][1])]
    return [(t or f"{default_run}#{i + 1}", v) for i, (t, v) in enumerate(blocks)]


# --------------------------------------------------------------------------- per-query values

#: What a stored baseline should hold, for error messages.
PER_QUERY_EXPECTED = (f"per-query results: smarteval evaluate -q -f {READ_EXACTLY[-1]} (or "
                      f"{', '.join(READ_EXACTLY[:-1])}) output, run, query, measure, value")


@dataclass
class StoredRun:
    """A run's per-query values as ``evaluate -q`` wrote them: what a comparison needs of an
    evaluation (``name``, ``path``, ``qids``, ``per_query``) without its run file.

    ``qids`` are sorted as an evaluation's are; ``per_query[measure]`` is aligned with
    them, NaN where the file has no value of the measure for the query (null, ``nan``, or
    no row); ``summary`` holds the ``all`` values written, if any. Measures are named as
    printed (``P_10``, ``nDCG@10``); those whose values are text are left out.
    """

    name: str
    path: str
    qids: np.ndarray
    per_query: dict[str, np.ndarray]
    summary: dict[str, float] = field(default_factory=dict)

    @property
    def tag(self) -> str:
        return self.name


@naming_the_file_out_of_memory
def read_per_query(path: str) -> list[StoredRun]:
    """Each run's per-query values in a file ``smarteval evaluate -q`` wrote (``-f json``,
    ``tsv`` or ``csv``), every digit as written: the float a value was printed from is the
    float read back (JSON and the delimited formats print the shortest text that reads
    back as that float). trec_eval's text (four decimals) is refused: it is not exact."""
    data = read_bytes(path, what="per-query results", expected=PER_QUERY_EXPECTED)
    name = "<stdin>" if path == "-" else path
    text = data.decode("utf-8", ID_ERRORS)
    stripped = text.lstrip()
    if stripped.startswith("["):
        rows = _per_query_json(name, text)
    else:
        first = stripped.split("\n", 1)[0].strip()
        if first.replace(",", "\t").split("\t")[:4] != ["run", "query", "measure", "value"]:
            exact = _named((READ_EXACTLY[-1], *READ_EXACTLY[:-1]))     # json first
            raise InputError(name, None, "not the per-query output of smarteval evaluate -q "
                             f"-f {exact} (trec_eval's text has four decimals: it "
                             "would not give the baseline's values back)",
                             expected=PER_QUERY_EXPECTED)
        rows = _per_query_delimited(name, text, "," if "," in first else "\t")
    runs: dict[str, tuple[dict[str, dict[str, float]], dict[str, float]]] = {}
    texts = []
    for run, qid, measure, value, line, shown in rows:
        if value is None:
            texts.append((run, measure, line, shown, qid))
            continue
        per_query, summary = runs.setdefault(run, ({}, {}))
        if qid is None:                         # the summary's (a query may be named all)
            summary[measure] = value
        else:
            per_query.setdefault(measure, {})[qid] = value
    numeric = {(run, m) for run, (per_query, summary) in runs.items() for m in
               (*per_query, *summary)}
    for run, measure, line, shown, qid in texts:    # relstring's are text, a number's never
        if (run, measure) in numeric:
            raise InputError(name, line, f"value {shown} of {measure} (run {run}, query "
                             f"{qid or 'all'}) is not a number, as its other values are",
                             expected=PER_QUERY_EXPECTED)
    if not runs:
        raise InputError(name, None, "no results", expected=PER_QUERY_EXPECTED)
    out = []
    for run, (per_query, summary) in runs.items():
        qids = np.array(sorted({q for values in per_query.values() for q in values}), dtype=str)
        if not len(qids):
            raise InputError(name, None, f"run {run} has summary values only (query all): "
                             "a stored baseline needs each query's values",
                             expected="the output of smarteval evaluate -q (-q: per query)")
        columns = {}
        for measure, values in per_query.items():
            column = np.full(len(qids), math.nan)
            at = np.searchsorted(qids, np.array(list(values), dtype=str))
            column[at] = np.fromiter(values.values(), dtype=np.float64, count=len(values))
            columns[measure] = column
        out.append(StoredRun(run, name, qids, columns, summary))
    return out


def read_baseline(path: str) -> StoredRun:
    """The one run of a stored baseline's file (:func:`read_per_query`); a file of several
    runs is refused, naming them."""
    runs = read_per_query(path)
    if len(runs) > 1:
        shown = "<stdin>" if path == "-" else path
        raise InputError(shown, None, f"holds {len(runs)} runs ("
                         + ", ".join(r.name for r in runs[:5])
                         + (", ..." if len(runs) > 5 else "") + "): a stored baseline is one",
                         expected="the output of smarteval evaluate -q for the baseline's "
                                  "run alone")
    return runs[0]


def _value(name: str, line: int | None, measure: str, value, text: bool) -> float | None:
    """A written value as a float (None: a text value, such as relstring's, which only a
    JSON string is); null and ``nan`` are NaN, as the writers print an undefined value.
    A number is one of :mod:`smarteval.numerals`' grammar (in TSV and CSV) or a JSON
    number, finite and at most :data:`LARGEST` in size; a boolean, an infinity and text
    that Python alone reads as a number (``1_0``, `` 1``, ``0x1p-3``, ``١``) are refused."""
    if value is None:
        return math.nan
    if isinstance(value, str):
        if text:
            return None
        if value == "nan":
            return math.nan
        if not is_decimal(value) and value.lower().lstrip("+-") not in ("inf", "infinity"):
            raise InputError(name, line, f"value {value!r} of {measure} is not a number: a "
                             f"value is {NUMBER}, or nan where it is undefined",
                             expected=PER_QUERY_EXPECTED)
        if math.isinf(float(value)):
            raise _not_finite(name, line, measure, value)
        value = float(value)
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(name, line, f"value {value!r} of {measure} is not a number",
                         expected=PER_QUERY_EXPECTED)
    elif isinstance(value, int) and abs(value) > sys.float_info.max or math.isinf(value):
        raise _not_finite(name, line, measure, value)
    if math.isnan(value):
        return math.nan
    if abs(value) > LARGEST:
        raise InputError(name, line, f"value {value!r} of {measure} is out of range: no "
                         f"measure's value is larger than {LARGEST:g} in size (the "
                         "statistics square each value)", expected=PER_QUERY_EXPECTED)
    return float(value)


#: The largest size of a stored value: its square, which the variances and tests sum over
#: the queries, stays finite (no measure comes near: counts are below 2**63).
LARGEST = 1e150


def _not_finite(name: str, line: int | None, measure: str, value) -> InputError:
    return InputError(name, line, f"value {value!r} of {measure} is not a finite number (a "
                      "value is a finite number, or nan where it is undefined)",
                      expected=PER_QUERY_EXPECTED)


#: A value as the writers print one: a decimal number, or nan or an infinity in any case
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|"
                     r"infinity)", re.IGNORECASE)


def _unique(name: str, expected: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """json's object_pairs_hook: a key given twice in one object is refused (json keeps
    the last, and a stored value would be replaced silently)."""
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise InputError(name, None, f"key {key!r} is given twice in one object",
                                     expected=expected)
                seen.add(key)
        return out
    return hook


#: A stored value as read: run, query id (None: the summary's), measure, value (None:
#: text), line (None in JSON) and the value as written.
_Row = tuple[str, str | None, str, float | None, int | None, str]


def _per_query_json(name: str, text: str) -> list[_Row]:
    with _json_output(name, PER_QUERY_EXPECTED):
        stored: list[tuple[str, str | None, str, Any, int | None]] = []
        for item in json.loads(text, object_pairs_hook=_unique(name, PER_QUERY_EXPECTED)):
            run = str(item["run"])
            for qid, values in (item.get("queries") or {}).items():
                stored += [(run, str(qid), measure, value, None)
                           for measure, value in values.items()]
            stored += [(run, None, measure, value, None)
                       for measure, value in (item.get("summary") or {}).items()]
    return _checked(name, stored, text=True)


def _per_query_delimited(name: str, text: str, delim: str) -> list[_Row]:
    stored: list[tuple[str, str | None, str, Any, int | None]] = []
    # tsv quotes nothing: a quote is part of an id there
    reader = csv.reader(io.StringIO(text), delimiter=delim,
                        quoting=csv.QUOTE_NONE if delim == "\t" else csv.QUOTE_MINIMAL)
    lines: dict[int, str] = {}
    for lineno, row in enumerate(reader, start=1):
        if not row or (lineno > 1 and row == ["run", "query", "measure", "value"]):
            continue
        if lineno == 1:
            continue
        if len(row) != 4:
            raise InputError(name, lineno, f"results line has {len(row)} fields, not 4",
                             delim.join(row), "run, query, measure, value")
        run, qid, measure, value = row
        lines[lineno] = delim.join(row)
        stored.append((run, None if qid == "all" else qid, measure, value, lineno))
    return _checked(name, stored, text=False, lines=lines)


def _checked(name: str, stored, *, text: bool, lines: dict[int, str] | None = None
             ) -> list[_Row]:
    """The stored values of every format (run, query id or None for the summary, measure,
    value as read, line or None), each checked once: a value given twice for a run's
    measure and query is refused, naming the run, and each value is read by
    :func:`_value` (``text``: a string is a text value, as JSON writes one)."""
    rows: list[_Row] = []
    seen: set[tuple[str, str | None, str]] = set()
    for run, qid, measure, value, line in stored:
        shown = None if lines is None else lines[line]
        if (run, qid, measure) in seen:
            # READ_EXACTLY: the delimited formats, then JSON's, which tells them apart
            why = (" (a query named all cannot be told from the summary in "
                   f"{' or '.join(READ_EXACTLY[:-1])}: store the baseline with -f "
                   f"{READ_EXACTLY[-1]})") if qid is None and not text else ""
            raise InputError(name, line, f"run {run}'s {measure} of query {qid or 'all'} is "
                             f"given twice{why}", shown, PER_QUERY_EXPECTED)
        seen.add((run, qid, measure))
        rows.append((run, qid, measure, _value(name, line, measure, value, text), line,
                     repr(value)))
    return rows
