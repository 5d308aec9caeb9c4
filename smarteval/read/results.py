"""Evaluation results read back for correlate: trec_eval's text, evaluate's tsv, csv or json."""

from __future__ import annotations

import csv
import io
import json
import os

from smarteval.errors import InputError
from smarteval.read import read_bytes
from smarteval.read.plain import ID_ERRORS

#: What a results file should hold, for error messages.
RESULTS_EXPECTED = ("evaluation results: trec_eval output (MEASURE QUERY VALUE) or "
                    "smarteval evaluate -f tsv, csv or json")


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


def _results_json(name: str, text: str) -> list[tuple[str, dict[str, float]]]:
    try:
        obj = json.loads(text)
        out = []
        for item in obj:
            summary = {k: float(v) for k, v in item["summary"].items()
                       if isinstance(v, (int, float)) and not isinstance(v, bool)}
            out.append((str(item["run"]), summary))
        return out
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(name, None, f"not smarteval evaluate -f json output ({exc})",
                         expected=RESULTS_EXPECTED) from None
    except RecursionError:
        raise InputError(name, None, "not smarteval evaluate -f json output (nested too "
                         "deeply)", expected=RESULTS_EXPECTED) from None


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
        try:
            out.setdefault(run, {})[measure] = float(value)
        except ValueError:
            continue                               # runid and other text values
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
        try:
            vals[measure] = float(value)
        except ValueError:
            raise InputError(name, lineno, f"value {value!r} of {measure} is not a number",
                             line, RESULTS_EXPECTED) from None
    blocks = [(t, v) for t, v in blocks if v]
    if not blocks:
        raise InputError(name, None, "no summary ('all') lines", expected=RESULTS_EXPECTED)
    if len(blocks) == 1:
        return [(blocks[0][0] or default_run, blocks[0][1])]
    return [(t or f"{default_run}#{i + 1}", v) for i, (t, v) in enumerate(blocks)]
