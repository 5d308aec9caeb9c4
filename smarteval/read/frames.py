"""In-memory and table inputs: DataFrames, dicts, records, Parquet and JSON Lines into columns.

A run or qrels may be given as a pandas DataFrame or a pyarrow Table with PyTerrier's
column names (``qid, docno, score`` / ``qid, docno, label``), ir_measures' (``query_id,
doc_id, score`` / ``relevance``) or names the caller gives (``columns=``); as a
``{qid: {docno: value}}`` dict (pytrec_eval, BEIR, MTEB); as an iterable of ir_datasets
or ir_measures namedtuples (``Qrel``, ``ScoredDoc``, ``TrecQrel``...) or of plain
``(qid, docno, value)`` tuples; or as a Parquet or JSON Lines file (by extension or
magic bytes). Every one becomes the same :class:`~smarteval.columns.Run` or
:class:`~smarteval.columns.Qrels` columns the text readers give: queries in the order of
their ids, a run's rows in the order given within each query, qrels rows by docno, ids as
text (docnos as UTF-8 bytes), scores float64, grades int64, and a document given twice
recorded for the ranking stage to refuse where trec_eval would.

Conversion is columnar (Arrow buffers and numpy arrays; no Python loop over rows). Rows
are numbered from 1, as lines are, in every message. pandas and pyarrow are optional (the
``frames`` extra): a Parquet or JSON Lines file needs pyarrow; a DataFrame is read through
pyarrow where it is installed (the faster route) and with pandas alone where it is not;
dicts and records need neither.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from itertools import chain
from typing import Any

import numpy as np

from smarteval.columns import Qrels, Run
from smarteval.errors import InputError, UsageError, quoted
from smarteval.read.keys import (
    IS_SEPARATOR,
    SEPARATORS,
    compact_ids,
    encode_ids,
    is_varlen,
)
from smarteval.read.plain import (
    ID_ERRORS,
    naming_the_file_out_of_memory,
    qrels_columns,
    repeated_docnos,
)
from smarteval.read.source import display, is_in_memory, read_bytes, table_format

#: Column names tried, in order, for each field (PyTerrier's, then ir_measures').
QID_NAMES = ("qid", "query_id")
DOCNO_NAMES = ("docno", "doc_id")
SCORE_NAMES = ("score",)
LABEL_NAMES = ("label", "relevance")
#: A run's tag, when the table has one of these columns (its last row's value, as trec_eval).
TAG_NAMES = ("tag", "run_id", "runid")

EXTRA = "pip install 'smarteval[frames]'"
#: Where :func:`read_table` keeps the tag of a Parquet run (read from its last row group).
_TAG_KEY = b"smarteval.tag"
RUN_EXPECTED = "columns qid, docno, score (or query_id, doc_id, score)"
QRELS_EXPECTED = "columns qid, docno, label (or query_id, doc_id, relevance)"



def _pyarrow(what: str):
    """The pyarrow module, or a one-line UsageError naming the extra that brings it."""
    try:
        import pyarrow
    except ImportError:
        raise UsageError(f"reading {what} needs pyarrow: {EXTRA}") from None
    return pyarrow


# --------------------------------------------------------------------------- what a source is

@naming_the_file_out_of_memory
def read_table(path: str | os.PathLike, kind: str, wanted: Iterable[str] | None = None):
    """A Parquet or JSON Lines file as a pyarrow Table; errors name the file.

    ``wanted``: the column names that may be used; a Parquet file's other columns are not
    read (a run's rank and Q0, say). A tag column is read from the last row group alone.
    """
    name = display(str(path))
    pa = _pyarrow("Parquet" if kind == "parquet" else "JSON Lines")
    if kind == "parquet":
        import pyarrow.parquet as pq
        try:
            if wanted is None:
                return pq.read_table(name)
            f = pq.ParquetFile(name)
            have = f.schema_arrow.names
            table = f.read(columns=[c for c in have if c in set(wanted)])
            tag = next((c for c in TAG_NAMES if c in have), None)
            if tag is not None and f.num_row_groups:
                last = f.read_row_group(f.num_row_groups - 1, columns=[tag]).column(0)
                if len(last) and last[len(last) - 1].as_py() is not None:
                    value = str(last[len(last) - 1].as_py()).encode("utf-8", ID_ERRORS)
                    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                                           _TAG_KEY: value})
            return table
        except FileNotFoundError:
            raise InputError(name, None, "no such file") from None
        except (OSError, pa.ArrowException) as exc:
            raise InputError(name, None, f"cannot read as Parquet: {exc}") from None
    import io

    import pyarrow.json as pj
    data = read_bytes(path, what="a JSON Lines file")
    _refuse_deep_nesting(data, name)
    try:
        return pj.read_json(io.BytesIO(data))
    except (OSError, pa.ArrowException) as exc:
        raise _jsonl_problem(data, name, exc) from None


def _jsonl_problem(data: bytes, name: str, exc: Exception) -> InputError:
    """pyarrow's refusal of a JSON Lines file as one message naming the line: the first
    line that is no JSON object as Python's json reads it (with its reason), else the line
    of the row pyarrow names (its rows count from 0 and pass over blank lines)."""
    import json
    rows = [(number, line) for number, line in enumerate(data.split(b"\n"), start=1)
            if line.strip()]
    for number, line in rows:
        try:
            row = json.loads(line)
        except ValueError as bad:
            why = f"{bad.msg}, column {bad.colno}" if isinstance(bad, json.JSONDecodeError) \
                else "not UTF-8"
            return InputError(name, number, f"not a JSON object ({why})",
                              line.decode("utf-8", ID_ERRORS))
        if not isinstance(row, dict):
            return InputError(name, number, "not a JSON object: a JSON Lines row is one",
                              line.decode("utf-8", ID_ERRORS))
    found = re.search(r" in row ([0-9]+)$", str(exc))
    if found and int(found.group(1)) < len(rows):
        number, line = rows[int(found.group(1))]
        what = str(exc)[:found.start()].removeprefix("JSON parse error: ")
        return InputError(name, number, f"cannot read as JSON Lines: {what}",
                          line.decode("utf-8", ID_ERRORS))
    return InputError(name, None, f"cannot read as JSON Lines: {exc}")


#: The deepest nesting of arrays and objects a JSON Lines line may have (pyarrow's parser
#: recurses, and crashes the process on a line nested some 20,000 deep).
MAX_NESTING = 500


def _refuse_deep_nesting(data: bytes, name: str) -> None:
    """Refuse a JSON Lines line nested deeper than :data:`MAX_NESTING`, before pyarrow's
    parser sees it. Only a line with more opening brackets than that can be (found a block
    of lines at a time, all rows at once); each such line's depth is measured outside its
    strings (:func:`_nesting`)."""
    if data.count(b"[") + data.count(b"{") <= MAX_NESTING:
        return
    buf = np.frombuffer(data, dtype=np.uint8)
    block = 1 << 22
    start = 0                                   # of the line being counted
    while start < len(buf):
        stop = data.rfind(b"\n", start, start + block) + 1
        if stop <= start:                       # a line longer than a block
            stop = data.find(b"\n", start + block) + 1 or len(buf)
        part = buf[start:stop]
        ends = np.flatnonzero(part == 10)
        bounds = np.concatenate(([0], ends + 1, [len(part)] if not len(ends) or
                                 ends[-1] != len(part) - 1 else []))
        opening = np.cumsum((part == 91) | (part == 123), dtype=np.int64)
        before = np.concatenate(([0], opening))[bounds.astype(np.int64)]
        for i in np.flatnonzero(np.diff(before) > MAX_NESTING).tolist():
            if _nesting(part[int(bounds[i]):int(bounds[i + 1])]) > MAX_NESTING:
                number = data.count(b"\n", 0, start + int(bounds[i])) + 1
                raise InputError(name, number, f"nested deeper than {MAX_NESTING} arrays and "
                                 "objects: not a run or qrels row")
        start = stop


def _nesting(line: np.ndarray) -> int:
    """How deep a line of JSON nests its arrays and objects, brackets within strings left
    out (a quote after an odd number of backslashes is escaped)."""
    slash = line == 92
    count = np.cumsum(slash)
    run = count - np.maximum.accumulate(np.where(slash, 0, count))   # backslashes ending here
    quotes = np.flatnonzero(line == 34)
    real = quotes[np.where(quotes > 0, run[quotes - 1], 0) % 2 == 0]
    toggles = np.zeros(len(line), dtype=np.int64)
    toggles[real] = 1
    in_string = np.cumsum(toggles) % 2 == 1
    step = ((line == 91) | (line == 123)).astype(np.int64) - ((line == 93) | (line == 125))
    step[in_string] = 0
    return int(np.cumsum(step).max(initial=0))


# --------------------------------------------------------------------------- entry points

def run_from(source: Any, *, name: str | None = None, tag: str | None = None,
             columns: Mapping[str, str] | None = None, default_tag: str = "run") -> Run:
    """A run given in memory (DataFrame, Table, dict, records) or as a Parquet/JSON Lines path.

    ``columns`` maps ``qid``, ``docno`` and ``score`` to the caller's column names; ``name``
    is how messages name the input; ``tag`` is the run's tag (default: a ``tag`` column's
    last value, else the file's name, else ``default_tag``).
    """
    _check_columns(columns)
    kind = _kind(source)
    name = name or _default_name(source, kind, "run")
    if kind == "path":
        wanted = {*QID_NAMES, *DOCNO_NAMES, *SCORE_NAMES, *(columns or {}).values()}
        table = read_table(source, table_format(source) or "jsonl", wanted)
        kind, source = "table", table
        default_tag = _stem(name)
    qid, docno, value, found_tag = _fields(source, kind, name, "score", SCORE_NAMES,
                                           RUN_EXPECTED, columns)
    if found_tag is not None:
        # a tag is a field of a TREC run's line as ids are, printed as one (-f tsv, csv)
        found_tag, row = found_tag
        _refuse_separators(np.array([found_tag], dtype=object), lambda i: row, name,
                           "run tag", RUN_EXPECTED)
    del source
    run = _run(name, qid, docno, value, tag or found_tag or default_tag)
    del qid, docno, value
    _release_arrow_memory()
    return run


def qrels_from(source: Any, *, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> Qrels:
    """Qrels given in memory (DataFrame, Table, dict, records) or as a Parquet/JSON Lines path.

    ``columns`` maps ``qid``, ``docno`` and ``label`` to the caller's column names.
    """
    _check_columns(columns)
    kind = _kind(source)
    name = name or _default_name(source, kind, "qrels")
    if kind == "path":
        wanted = {*QID_NAMES, *DOCNO_NAMES, *LABEL_NAMES, *(columns or {}).values()}
        source, kind = read_table(source, table_format(source) or "jsonl", wanted), "table"
    qid, docno, value, _ = _fields(source, kind, name, "label", LABEL_NAMES, QRELS_EXPECTED,
                                   columns)
    del source
    qrels = _qrels(name, qid, docno, value)
    del qid, docno, value
    _release_arrow_memory()
    return qrels


def _release_arrow_memory() -> None:
    """Give back to the system what pyarrow freed (a read table's buffers), so that the
    ranking's arrays do not come on top of them."""
    import sys
    if "pyarrow" in sys.modules and sys.modules["pyarrow"] is not None:
        sys.modules["pyarrow"].default_memory_pool().release_unused()


def split_runs(runs: Any) -> list[tuple[str | None, Any]]:
    """``runs`` as a list of (name or None, one run): one run in any form, a list of runs,
    or a ``{name: run}`` dict (a ``{qid: {docno: score}}`` dict is one run)."""
    if isinstance(runs, (str, bytes, os.PathLike, Run, Qrels)) or \
            _kind(runs) in ("frame", "table"):
        return [(None, runs)]
    if isinstance(runs, Mapping):
        for value in runs.values():
            if not isinstance(value, Mapping):
                return _named(runs)                                  # {name: run}
            for inner in value.values():
                return _named(runs) if isinstance(inner, Mapping) else [(None, runs)]
        return [(None, runs)]
    items = iter(runs)
    first = next(items, None)
    if first is None:
        return []
    if isinstance(first, tuple):                 # records: one run
        return [(None, chain([first], items))]
    return [(None, first)] + [(None, r) for r in items]


def _named(runs: Mapping) -> list[tuple[str | None, Any]]:
    """The (name, run) pairs of a ``{name: run}`` dict. A name is printed as one field
    (``-f tsv``, ``csv``, ``trec``'s runid): one holding a tab or a line end is refused."""
    names = [str(k) for k in runs]
    for name in names:
        check_field(name, "run name", "a run's name")
    return list(zip(names, runs.values()))


def check_field(text: str, what: str, whose: str) -> None:
    """Refuse ``text``, a name printed as one field of a line (a run's name, a --label),
    when it holds a tab or a line end (a space is fine): ``what`` names it in the message
    and ``whose`` says what is printed so."""
    bad = next((b for b in text.encode("utf-8", ID_ERRORS) if IS_SEPARATOR[b] and b != 32),
               None)
    if bad is not None:
        raise UsageError(f"{what} {_show(text)} holds {_SEPARATOR_NAMES[bad]}: {whose} is "
                         "printed as one field of a line (-f tsv, csv, trec)")


def _kind(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return "path"
    module = type(source).__module__.split(".")[0]
    if module == "pandas" and hasattr(source, "columns"):
        return "frame"
    if module == "pyarrow" and hasattr(source, "column_names"):
        return "table"
    if isinstance(source, Mapping):
        return "dict"
    if isinstance(source, Iterable) and not isinstance(source, bytes):
        return "records"
    raise UsageError(f"cannot read a {type(source).__name__} as a run or qrels: give a path, "
                     "a DataFrame, a {qid: {docno: value}} dict or (qid, docno, value) records")


def _default_name(source: Any, kind: str, what: str) -> str:
    if kind == "path":
        return display(str(source))
    label = {"frame": "DataFrame", "table": "Table", "dict": "dict", "records": "records"}[kind]
    return f"<{what} {label}>"


def _stem(name: str) -> str:
    base = os.path.basename(name)
    for suffix in ("." + c for c in ("gz", "bz2", "xz")):
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
    return os.path.splitext(base)[0] or base


# --------------------------------------------------------------------------- columns

def _check_columns(columns: Any) -> None:
    """Refuse a ``columns=`` that is not a ``{field: column name}`` mapping, or that gives
    one column for two fields (the docno would be the query id)."""
    if columns is None:
        return
    if not isinstance(columns, Mapping):
        raise UsageError(f"columns= maps fields to column names ({{'qid': 'query', ...}}), "
                         f"not {type(columns).__name__}")
    names = list(columns.values())
    twice = next((c for i, c in enumerate(names) if c in names[:i]), None)
    if twice is not None:
        fields = [f for f, c in columns.items() if c == twice]
        raise UsageError(f"columns= gives column {twice!r} for {' and '.join(fields)}: each "
                         "field is a column of its own")

class _Column:
    """One field of every row, as given: an Arrow array or a numpy array."""

    def __init__(self, label: str, values: Any, arrow: bool):
        self.label = label
        self.values = values
        self.arrow = arrow


def _fields(source: Any, kind: str, name: str, value_field: str, value_names: tuple,
            expected: str, columns: Mapping[str, str] | None):
    """The qid, docno and value columns of ``source`` (and a tag column's last value, with
    its row)."""
    if kind == "dict":
        return (*_from_dict(source, name, value_field), None)
    if kind == "records":
        return (*_from_records(source, name, value_field, value_names), None)
    have = list(source.columns) if kind == "frame" else list(source.column_names)
    wanted = {"qid": QID_NAMES, "docno": DOCNO_NAMES, value_field: value_names}
    picked = {}
    for field, names in wanted.items():
        given = (columns or {}).get(field)
        if given is not None:
            if given not in have:
                raise UsageError(f"{name}: no column {given!r} (given for {field}); it has "
                                 + ", ".join(map(str, have)))
            picked[field] = given
            continue
        found = next((n for n in names if n in have), None)
        if found is None:
            raise InputError(name, None, f"no {field} column ({' or '.join(names)}); it has "
                             + ", ".join(map(str, have)),
                             expected=expected + ", or name them with columns=")
        picked[field] = found
    unknown = set(columns or {}) - set(wanted)
    if unknown:
        raise UsageError(f"columns= names {', '.join(sorted(unknown))}: it takes "
                         + ", ".join(wanted))
    tag_col = next((n for n in TAG_NAMES if n in have), None)
    if kind == "frame" and not _has_pyarrow():
        return _frame_columns(source, {f: picked[f] for f in wanted}, tag_col, name,
                              expected)
    needed = list(dict.fromkeys([*picked.values(), *([tag_col] if tag_col else [])]))
    table = _arrow_table(source, kind, needed, name)
    if table.num_rows == 0:
        raise InputError(name, None, "no rows", expected=expected)
    tag = None
    kept = (table.schema.metadata or {}).get(_TAG_KEY)
    if kept is not None:
        tag = kept.decode("utf-8", ID_ERRORS)
    elif tag_col is not None:
        last = table.column(tag_col)[table.num_rows - 1].as_py()
        tag = None if last is None else str(last)
    return (*(_Column(picked[f], _one_chunk(table.column(picked[f])), True) for f in wanted),
            None if not tag else (tag, table.num_rows - 1))


def _has_pyarrow() -> bool:
    """Whether pyarrow can be imported (a DataFrame is read without it, by pandas alone)."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


#: How a missing value of each field is named (as the Arrow route names it).
_FIELD_WORDS = {"qid": "query id", "docno": "docno", "score": "score", "label": "relevance"}


def _frame_columns(source: Any, labels: dict[str, str], tag_col: str | None, name: str,
                   expected: str):
    """A DataFrame's columns (``labels``: field -> column) as numpy arrays, with pandas
    alone (PyTerrier installs pandas, not pyarrow): the numpy route of dicts and records,
    whose checks are the Arrow route's, value for value (a missing value, NaN included,
    is named as Arrow's null is)."""
    if len(source) == 0:
        raise InputError(name, None, "no rows", expected=expected)
    for field, label in labels.items():
        missing = source[label].isna().to_numpy()
        if missing.any():
            raise _bad_row(name, _first(missing), f"no {_FIELD_WORDS[field]} (missing value "
                           f"in column {label!r})", expected)
    columns = tuple(_Column(label, _frame_values(source[label]), False)
                    for label in labels.values())
    tag = None
    if tag_col is not None and len(source):
        last = source[tag_col].iloc[-1]
        if not (last is None or last != last):                          # (NaN, NA: none)
            tag = (str(last), len(source) - 1)      # its row, for a message, as Arrow's
    return (*columns, tag)


def _frame_values(col) -> np.ndarray:
    """A column (without missing values) as numpy: a nullable or extension column
    (``Int64``) in its numpy type, else as pandas gives it."""
    values = col.to_numpy()
    numpy_dtype = getattr(col.dtype, "numpy_dtype", None)
    if values.dtype == object and numpy_dtype is not None:
        values = col.to_numpy(dtype=numpy_dtype)
    return values


def _arrow_table(source: Any, kind: str, needed: list, name: str):
    """The ``needed`` columns of a DataFrame or Table as a pyarrow Table (only those are
    converted)."""
    if kind == "table":
        return source
    import pyarrow as pa
    try:
        return pa.Table.from_pandas(source[needed], preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError, OverflowError) as exc:
        raise InputError(name, None, f"cannot read its columns: {exc}") from None


def _one_chunk(col):
    """A ChunkedArray as one Array; strings keep 32-bit offsets unless their bytes need 64."""
    import pyarrow as pa
    if isinstance(col, pa.ChunkedArray):
        if (pa.types.is_string(col.type) or pa.types.is_binary(col.type)) and \
                col.num_chunks != 1 and col.nbytes >= 2**31 - 1:
            col = col.cast(pa.large_binary() if pa.types.is_binary(col.type)
                           else pa.large_string())
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    if str(col.type) in ("string_view", "binary_view"):
        col = col.cast(pa.large_string() if str(col.type) == "string_view"
                       else pa.large_binary())
    return col


def _from_dict(source: Mapping, name: str, value_field: str):
    """``{qid: {docno: value}}``: the inner dicts' keys and values chained (no row loop)."""
    inner = list(source.values())
    if not all(isinstance(v, Mapping) for v in inner):
        raise UsageError(f"{name}: a dict run or qrels maps each query id to a "
                         f"{{docno: {value_field}}} dict")
    counts = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    if not counts.sum():
        raise InputError(name, None, "no rows", expected=f"{{qid: {{docno: {value_field}}}}}")
    qids = _as_array(list(source.keys()))
    qid = _Column("qid", np.repeat(qids, counts), False)
    docno = _Column("docno", _as_array(list(chain.from_iterable(inner))), False)
    value = _Column(value_field, _as_array(list(chain.from_iterable(v.values()
                                                                     for v in inner))), False)
    return qid, docno, value


def _from_records(source: Iterable, name: str, value_field: str, value_names: tuple):
    """Namedtuples (by field name) or plain ``(qid, docno, value)`` tuples, transposed."""
    rows = source if isinstance(source, (list, tuple)) else list(source)
    if not len(rows):
        raise InputError(name, None, "no rows",
                         expected=f"(query_id, doc_id, {value_names[-1]}) records")
    first = rows[0]
    fields = getattr(first, "_fields", None)
    if fields is not None:
        where = []
        for field, names in (("qid", QID_NAMES), ("docno", DOCNO_NAMES),
                             (value_field, value_names)):
            at = next((fields.index(n) for n in names if n in fields), None)
            if at is None:
                raise InputError(name, None, f"records of {type(first).__name__} have no "
                                 f"{field} field ({' or '.join(names)})",
                                 expected=f"fields {', '.join(fields)}")
            where.append(at)
    elif isinstance(first, (tuple, list)) and len(first) >= 3:
        where = [0, 1, 2]
    else:
        raise UsageError(f"{name}: records are namedtuples (ir_measures' Qrel and ScoredDoc, "
                         "ir_datasets' TrecQrel...) or (qid, docno, value) tuples, not "
                         f"{type(first).__name__}")
    try:
        cols = list(zip(*rows, strict=True))
    except ValueError:
        raise InputError(name, None, "records of different lengths",
                         expected="every record with the same fields") from None
    return tuple(_Column(label, _as_array(cols[i]), False)
                 for label, i in zip(("qid", "docno", value_field), where))


def _as_array(values) -> np.ndarray:
    try:
        out = np.asarray(values)
    except (ValueError, TypeError):
        out = np.empty(len(values), dtype=object)
        out[:] = values
    return out if out.ndim == 1 else _objects(values)


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


# --------------------------------------------------------------------------- conversion

def _show(value) -> str:
    """A value as a message quotes it (numpy scalars as the Python values they hold)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _bad_row(name: str, row: int, problem: str, expected: str) -> InputError:
    """The error for the 0-based ``row``, numbered from 1 as lines are."""
    return InputError(name, row + 1, problem, expected=expected)


def _id_text(col: _Column, name: str, what: str, expected: str) -> tuple[np.ndarray, np.ndarray]:
    """Each row's code into the distinct ids, and those ids as text (in no order)."""
    if col.arrow:
        import pyarrow as pa
        import pyarrow.compute as pc
        values = col.values
        if values.null_count:
            raise _bad_row(name, _first(values.is_null().to_numpy(zero_copy_only=False)),
                           f"no {what} (missing value in column {col.label!r})", expected)
        values = _whole_or_text(values, name, what, col.label, expected)
        encoded = pc.dictionary_encode(values)
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        uniq = encoded.dictionary
        texts = np.empty(len(uniq), dtype=object)
        if pa.types.is_large_binary(uniq.type) or pa.types.is_binary(uniq.type):
            texts[:] = [b.decode("utf-8", ID_ERRORS) for b in uniq.to_pylist()]
        else:
            texts[:] = uniq.cast(pa.large_string()).to_pylist()
        return codes, compact_ids(texts) if len(texts) else texts.astype(str)
    values = _numpy_ids(col, name, what, expected)
    uniq, codes = np.unique(values, return_inverse=True)
    return codes.astype(np.int64).ravel(), uniq


def _whole_or_text(values, name: str, what: str, label: str, expected: str):
    """Ids that are numbers as whole numbers (``401.0`` is query ``401``); text stays."""
    import pyarrow as pa
    import pyarrow.compute as pc
    t = values.type
    if pa.types.is_floating(t):
        arr = values.to_numpy(zero_copy_only=False)
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            row = _first(bad)
            raise _bad_row(name, row, f"{what} {_show(arr[row])} is not text or a whole number "
                           f"(column {label!r})", expected)
        return pc.cast(values, pa.int64())
    if pa.types.is_boolean(t) or not (pa.types.is_integer(t) or pa.types.is_string(t)
                                      or pa.types.is_large_string(t)
                                      or pa.types.is_binary(t) or pa.types.is_large_binary(t)):
        raise InputError(name, None, f"column {label!r} holds {t}, not {what}s (text or "
                         "whole numbers)", expected=expected)
    return values


def _numpy_ids(col: _Column, name: str, what: str, expected: str) -> np.ndarray:
    """Ids from a numpy column as text: str, bytes (UTF-8, else kept as surrogates), ints."""
    v = col.values
    kind = v.dtype.kind
    if kind == "U":
        return v
    if kind == "S":
        return np.char.decode(v, "utf-8", ID_ERRORS)
    if kind in "iu":
        return v.astype(str)
    if kind == "O":                     # mixed types: each value looked at (the rare case)
        is_text = np.frompyfunc(lambda x: isinstance(x, (str, bytes, int, np.integer))
                                and not isinstance(x, bool), 1, 1)(v).astype(bool)
        if not is_text.all():
            row = _first(~is_text)
            raise _bad_row(name, row, f"{what} {_show(v[row])} is not text or a whole number",
                           expected)
        texts = np.frompyfunc(_text, 1, 1)(v)
        return texts if not len(texts) or is_varlen(compact_ids(texts)) else texts.astype(str)
    bad = 0
    if kind == "f":
        bad = _first(~np.isfinite(v) | (v != np.round(v))) if \
            (~np.isfinite(v) | (v != np.round(v))).any() else -1
        if bad < 0:
            return v.astype(np.int64).astype(str)
    raise _bad_row(name, bad, f"{what} {_show(v[bad])} is not text or a whole number", expected)


def _text(value) -> str:
    return value.decode("utf-8", ID_ERRORS) if isinstance(value, bytes) else str(value)


#: How a refusal names a byte that separates fields in a text file.
_SEPARATOR_NAMES = {9: "a tab", 10: "a line feed", 11: "a vertical tab", 12: "a form feed",
                    13: "a carriage return", 32: "a space"}


def _refuse_separators(ids: np.ndarray, rows, name: str, what: str, expected: str) -> None:
    """Refuse an id (bytes or text) that is empty or holds a byte that separates fields
    in a text file (:data:`~smarteval.read.keys.SEPARATORS`): no TREC file can hold it, and
    written out (``-f trec``, ``tsv``, ``csv``) it would split its line or field.
    ``rows(i)`` is the first row holding ``ids[i]``."""
    if not len(ids):
        return
    if ids.dtype.kind == "S":
        width = ids.dtype.itemsize
        grid = ids.view(np.uint8).reshape(len(ids), width)
        bad = IS_SEPARATOR[grid].any(axis=1) | (grid[:, 0] == 0) if width \
            else np.ones(len(ids), dtype=bool)
    else:
        odd = np.frompyfunc(lambda v: not v or _SEPARATOR_RE.search(
            v if isinstance(v, bytes) else v.encode("utf-8", ID_ERRORS)) is not None, 1, 1)
        bad = odd(ids).astype(bool)
    if not bad.any():
        return
    i = _first(bad)
    value = ids[i]
    raw = value if isinstance(value, bytes) else str(value).encode("utf-8", ID_ERRORS)
    if not raw:
        raise _bad_row(name, rows(i), f"empty {what}", expected)
    held = _SEPARATOR_NAMES[next(b for b in raw if IS_SEPARATOR[b])]
    text = _text(raw)
    shown = _show(text) if len(text) <= 60 else f"{_show(text[:60])}... ({len(raw)} bytes)"
    raise _bad_row(name, rows(i), f"{what} {shown} holds {held}, which no id "
                   "in a TREC file can hold (it would split the id's line or field when "
                   "written out)", expected)


_SEPARATOR_RE = re.compile(b"[" + re.escape(SEPARATORS) + b"]")


def _docnos(col: _Column, name: str, expected: str) -> np.ndarray:
    """Each row's docno as UTF-8 bytes (a fixed-width 'S' array, or variable-length);
    one that no TREC file could hold is refused (:func:`_refuse_separators`)."""
    docnos = _docno_bytes(col, name, expected)
    _refuse_separators(docnos, lambda i: i, name, "docno", expected)
    return docnos


def _docno_bytes(col: _Column, name: str, expected: str) -> np.ndarray:
    if not col.arrow:
        text = _numpy_ids(col, name, "docno", expected)
        if not len(text):
            return np.zeros(0, "S1")
        if is_varlen(text):                 # a few ids far longer than the rest
            return compact_ids(encode_ids(text, ID_ERRORS))
        if int(text.view(np.uint32).max()) < 0x80:
            return text.astype(f"S{max(text.dtype.itemsize // 4, 1)}")
        return np.char.encode(text, "utf-8", ID_ERRORS)
    import pyarrow as pa
    values = col.values
    if values.null_count:
        raise _bad_row(name, _first(values.is_null().to_numpy(zero_copy_only=False)),
                       f"no docno (missing value in column {col.label!r})", expected)
    values = _whole_or_text(values, name, "docno", col.label, expected)
    if pa.types.is_integer(values.type):
        values = values.cast(pa.large_string())
    large = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
    values = values.cast(pa.large_binary() if large else pa.binary())     # the same buffers
    return _gather(values, name, expected)


def _gather(values, name: str, expected: str) -> np.ndarray:
    """An Arrow binary array's values as one 'S' array, from its two buffers."""
    import pyarrow as pa

    from smarteval.read.fast import PAD, gather_ids
    n = len(values)
    _, offsets_buf, data_buf = values.buffers()
    width = np.int64 if pa.types.is_large_binary(values.type) else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=width)[values.offset:values.offset + n + 1]
    base = int(offsets[0])
    data = np.frombuffer(data_buf, dtype=np.uint8)[base:int(offsets[-1])] \
        if data_buf is not None else np.zeros(0, np.uint8)
    start = offsets[:-1] - base if base else offsets[:-1]
    length = np.diff(offsets)
    if len(data) and data.min() == 0:
        nul = int(np.argmin(data))
        row = int(np.searchsorted(offsets - base, nul, side="right")) - 1
        raise _bad_row(name, row, "docno holds a NUL byte", expected)
    if length.min() == 0:
        raise _bad_row(name, int(np.argmin(length)), "empty docno", expected)
    padded = bytearray(len(data) + 2 * PAD)
    np.frombuffer(padded, dtype=np.uint8)[:len(data)] = data
    return gather_ids(padded, start, length)


def _scores(col: _Column, name: str, expected: str) -> np.ndarray:
    values = _numbers(col, name, "score", expected)
    finite = np.isfinite(values)
    if not finite.all():
        row = _first(~finite)
        raise _bad_row(name, row, f"score {_show(values[row])} is not a finite number", expected)
    return values


def _numbers(col: _Column, name: str, what: str, expected: str) -> np.ndarray:
    """A column as float64; a value that is not a number is named with its row."""
    values = col.values
    if col.arrow:
        import pyarrow as pa
        if values.null_count:
            raise _bad_row(name, _first(values.is_null().to_numpy(zero_copy_only=False)),
                           f"no {what} (missing value in column {col.label!r})", expected)
        _refuse_nested(values, name, what, col.label, expected)
        if pa.types.is_integer(values.type) or pa.types.is_boolean(values.type):
            # rounded to the nearest double, as the text readers round its digits
            return values.to_numpy(zero_copy_only=False).astype(np.float64)
        if pa.types.is_floating(values.type) or pa.types.is_decimal(values.type):
            return np.asarray(values.cast(pa.float64(), safe=False)
                              .to_numpy(zero_copy_only=False), dtype=np.float64)
        values = np.asarray(values.to_pylist(), dtype=object) \
            if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)) \
            else values.to_numpy(zero_copy_only=False)
    if values.dtype.kind in "fiub":
        return values.astype(np.float64)
    if values.dtype.kind == "c":            # astype would drop the imaginary part
        row = _first(values.imag != 0) if (values.imag != 0).any() else 0
        raise _bad_row(name, row, f"{what} {_show(values[row])} is not a real number",
                       expected)
    try:
        out = values.astype(np.float64)
    except (ValueError, TypeError, OverflowError):
        ok = np.frompyfunc(_is_number, 1, 1)(values).astype(bool)
        row = _first(~ok) if not ok.all() else 0
        bad = values[row]
        kind = "finite number" if isinstance(bad, int) else "number"   # past a double
        raise _bad_row(name, row, f"{what} {quoted(_show(bad))} is not a {kind}", expected) \
            from None
    text = values.astype(str)
    odd = (np.char.find(text, "_") >= 0) | (np.char.find(text, "x") >= 0)
    if odd.any():                       # '1_000' and '0x10' as the text readers refuse them
        row = _first(odd)
        raise _bad_row(name, row, f"{what} {_show(values[row])} is not a number", expected)
    return out


def _refuse_nested(values, name: str, what: str, label: str, expected: str) -> None:
    """Refuse an Arrow column of lists, structs, maps...: one value a row, or none."""
    import pyarrow as pa
    t = values.type
    if pa.types.is_nested(t) or pa.types.is_dictionary(t) and pa.types.is_nested(t.value_type):
        raise InputError(name, None, f"column {label!r} holds {t}, not a {what} a row",
                         expected=expected)


def _is_number(x) -> bool:
    try:
        float(x)
    except (ValueError, TypeError, OverflowError):
        return False
    return not isinstance(x, str) or "_" not in x


def _grades(col: _Column, name: str, expected: str) -> np.ndarray:
    """Whole-number grades as int64; ``1.5`` (or ``1.0`` given as text) is refused."""
    values = col.values
    if col.arrow:
        import pyarrow as pa
        t = values.type
        if values.null_count:
            raise _bad_row(name, _first(values.is_null().to_numpy(zero_copy_only=False)),
                           f"no relevance (missing value in column {col.label!r})", expected)
        _refuse_nested(values, name, "relevance", col.label, expected)
        if pa.types.is_integer(t) or pa.types.is_boolean(t):
            grades = values.to_numpy(zero_copy_only=False)
            if grades.dtype == np.uint64 and (grades > np.iinfo(np.int64).max).any():
                row = _first(grades > np.iinfo(np.int64).max)
                raise _bad_row(name, row, f"relevance {_show(grades[row])} is out of range: a "
                               "grade lies between -9223372036854775808 and "
                               "9223372036854775807", expected)
            return grades.astype(np.int64)
        values = values.to_numpy(zero_copy_only=False)
    kind = values.dtype.kind
    if kind in "iub":
        return values.astype(np.int64)
    if kind == "f":
        bad = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) > 2.0**63)
        if bad.any():
            row = _first(bad)
            raise _bad_row(name, row, f"relevance {_show(values[row])} is not an integer", expected)
        return values.astype(np.int64)
    text = values.astype(str) if kind != "U" else values
    stripped = np.char.lstrip(text, "-+")
    ok = np.char.isdigit(stripped) & (np.char.str_len(text) - np.char.str_len(stripped) <= 1)
    if not ok.all():
        row = _first(~ok)
        raise _bad_row(name, row, f"relevance {_show(values[row])} is not an integer", expected)
    try:
        return text.astype(np.int64)
    except OverflowError:
        raise InputError(name, None, "a relevance is out of range: a grade lies between "
                         "-9223372036854775808 and 9223372036854775807",
                         expected=expected) from None


def _query_codes(qid: _Column, name: str, expected: str) -> tuple[np.ndarray, np.ndarray]:
    """Each row's query code, codes in the text order of the ids, and the sorted ids (an
    id no TREC file could hold refused: :func:`_refuse_separators`)."""
    codes, texts = _id_text(qid, name, "query id", expected)
    _refuse_separators(texts, lambda i: _first(codes == i), name, "query id", expected)
    qids, inverse = np.unique(texts, return_inverse=True)   # ids that are equal as text merge
    return inverse.astype(np.int64).ravel()[codes], qids


def _run(name: str, qid: _Column, docno: _Column, score: _Column, tag: str) -> Run:
    codes, qids = _query_codes(qid, name, RUN_EXPECTED)
    docnos = _docnos(docno, name, RUN_EXPECTED)
    scores = _scores(score, name, RUN_EXPECTED)
    rows = None
    if len(codes) > 1 and (codes[1:] < codes[:-1]).any():
        rows = np.argsort(codes, kind="stable")       # group by query, rows in order given
        codes, docnos, scores = codes[rows], docnos[rows], scores[rows]
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(qids)), out=offsets[1:])
    lines = None
    repeated = repeated_docnos(docnos, offsets, codes)
    if len(repeated):
        lines = (rows if rows is not None else np.arange(len(codes))) + 1
    return Run(path=name, qids=qids, offsets=offsets, docnos=docnos, scores=scores,
               lines=lines, tag=tag, repeated=repeated)


def _qrels(name: str, qid: _Column, docno: _Column, label: _Column) -> Qrels:
    codes, qids = _query_codes(qid, name, QRELS_EXPECTED)
    docnos = _docnos(docno, name, QRELS_EXPECTED)
    grades = _grades(label, name, QRELS_EXPECTED)
    return qrels_columns(name, qids, codes, docnos, grades,
                         np.arange(1, len(codes) + 1, dtype=np.int64))


__all__ = ["is_in_memory", "qrels_from", "read_table", "run_from", "split_runs", "table_format"]
