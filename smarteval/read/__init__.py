"""Reading: runs, qrels and results files (plain or compressed, or standard input) into columns.

:func:`read_run` and :func:`read_qrels` also take a Parquet or JSON Lines file, and a run
or qrels given in memory (a DataFrame, a dict, records: :mod:`smarteval.read.frames`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smarteval.columns import Qrels, Run
from smarteval.read import plain
from smarteval.read.plain import read_bytes
from smarteval.read.source import is_in_memory, table_format

__all__ = ["read_bytes", "read_qrels", "read_run"]


def read_run(source: Any, *, data: bytes | None = None, name: str | None = None,
             tag: str | None = None, columns: Mapping[str, str] | None = None,
             element_types: bool = False, ranks: bool = False) -> Run:
    """Read a run: a TREC run file (plain or compressed, ``-`` for standard input), a
    Parquet or JSON Lines file, a DataFrame, a ``{qid: {docno: score}}`` dict or records.

    ``name``, ``tag`` and ``columns`` apply to the tables and in-memory forms (see
    :func:`smarteval.read.frames.run_from`). ``element_types`` keeps a TREC run file's
    second field (cwl_eval's element types) and ``ranks`` its rank field (ndeval's
    order); the other forms have neither.

    >>> run = read_run({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 0.5}})
    >>> run.qids.tolist(), run.docnos.tolist(), run.scores.tolist()
    (['q1', 'q2'], [b'd1', b'd2', b'd3'], [2.0, 1.0, 0.5])
    """
    if data is None and (is_in_memory(source) or table_format(source)):
        from smarteval.read import frames
        return frames.run_from(source, name=name, tag=tag, columns=columns)
    return plain.read_run(source, data=data, element_types=element_types, ranks=ranks)


def read_qrels(source: Any, *, data: bytes | None = None, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> Qrels:
    """Read qrels: a TREC qrels file (plain or compressed), a Parquet or JSON Lines file,
    an ir_datasets id that names no file (``antique/test``: the ``datasets`` extra), a
    DataFrame, a ``{qid: {docno: grade}}`` dict or records.

    >>> qrels = read_qrels({"q1": {"d1": 1, "d9": 0}})
    >>> qrels.qids.tolist(), qrels.docnos.tolist(), qrels.grades.tolist()
    (['q1'], [b'd1', b'd9'], [1, 0])
    """
    if data is None:
        from smarteval.read.datasets import dataset_qrels
        source = dataset_qrels(source)       # an ir_datasets id that is no file: its qrels
        if isinstance(source, Qrels):
            return source
    if data is None and (is_in_memory(source) or table_format(source)):
        from smarteval.read import frames
        return frames.qrels_from(source, name=name, columns=columns)
    return plain.read_qrels(source, data=data)

