"""Evaluations into trec_eval's text, TSV, CSV, JSON and SMART-style tables.

The contract between measures and renderers: a measure returns the value trec_eval
computes, NaN included where trec_eval divides 0 by 0 (iprec_at_recall with ``-M 0``,
Rndcg without positive gain...); no renderer turns NaN into a number. Each format shows
an undefined value its own way:

- ``trec`` prints what glibc's ``printf("%6.4f")`` prints: ``  -nan`` for a NaN with the
  sign bit set, which is the NaN an x86-64 CPU gives for 0.0/0.0 (in C and in numpy
  alike), and ``   nan`` for one with the sign bit clear (``np.nan``, ``float("nan")``,
  or a NaN parameter such as ``set_F.nan``, which trec_eval's C carries as it is). A
  measure that means trec_eval's 0/0 or the log of a negative number returns
  :data:`smarteval.libm.C_NAN`, made deliberately (``libm.divide``, ``libm.log``), never
  a NaN whose sign a numpy kernel or the CPU chose. A summary over a NaN is NaN (the
  sum carries it), as in trec_eval; infinities print ``   inf`` and ``  -inf``, as glibc
  does.
- ``json`` writes null, and ``"inf"`` and ``"-inf"`` for the infinities (JSON has
  neither: every command's rule, :func:`~smarteval.render.formats.json_number`);
  ``tsv`` and ``csv`` write ``nan`` (``inf``, ``-inf``); the tables leave the cell empty
  (:func:`smarteval.render.formats.fixed`'s undefined marker).

A query a measure has no value for (:func:`smarteval.aggregate.has_value`: ir_measures'
Accuracy without a relevant document retrieved) is not printed for that measure in any
per-query output, as its program prints nothing for it.

``trec`` used to print NaN as 0.0000, a guard from the first renderer that no measure
relied on (each guards its own divisions, with ``safe_div``), while trec_eval prints
``-nan``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from smarteval.errors import UsageError
from smarteval.render.formats import (
    delimited_pieces,
    fixed,
    having,
    is_table,
    json_number,
    readable,
    tabulate_table,
    writable,
    written,
)

if TYPE_CHECKING:
    import numpy as np

#: The formats of ``evaluate``: every one.
FORMATS = writable()


def _trec_value(kind: str, name: str, value, z: bool = False) -> str:
    if kind == "int" and not z:
        return str(int(value))
    if kind == "str":
        return f"'{value}'" if name.startswith("relstring") else str(value)
    v = float(value)
    if math.isnan(v):
        # Python drops a NaN's sign; glibc prints it
        return f"{'-nan' if math.copysign(1.0, v) < 0 else 'nan':>6}"
    return f"{v:6.4f}"


def _trec_name(ev, out) -> str:
    """The name column of trec_eval's lines: padded to 22, after the ``Z`` of z-scores."""
    return f"Z{out.name:<22}" if ev.label(out) != out.name else f"{out.name:<22}"


def _sample_line(out, qid: str, value) -> str:
    """A line as sample_eval.pl prints it: the name tabbed to column 16, the topic, then
    a count (%9d) or an estimated count (%14.4f) after a tab, any other value (%6.4f)
    after two."""
    name = out.name
    lead = "\t" if len(name) >= 8 else "\t\t"
    if out.measure.value == "int":
        return f"{name}{lead}{qid}\t{int(value):9d}\n"
    if out.measure.average == "sum":
        return f"{name}{lead}{qid}\t{float(value):14.4f}\n"
    return f"{name}{lead}{qid}\t\t{float(value):6.4f}\n"


def render_trec(evaluations, *, per_query: bool = False, summary: bool = True) -> str:
    """trec_eval's output, byte for byte: ``name<pad 22>\tqid\tvalue`` lines.

    Per-query lines come query by query (queries added by -c only under 10.0: each
    evaluation's settings say), then the
    ``all`` lines; several runs give one such block each. Z-scores (``-Z``) print as
    trec_eval prints them: ``Z`` before the padded name, every value with 4 decimals.
    sample_eval's measures print as sample_eval prints them (:func:`_sample_line`).
    """
    return "".join(trec_pieces(evaluations, per_query=per_query, summary=summary))


#: Queries whose per-query lines are made into one piece of text at a time
#: (:func:`render_pieces`): the text in hand at once, whatever the number of queries.
PIECE_QUERIES = 4096


def trec_pieces(evaluations, *, per_query: bool = False,
                summary: bool = True) -> Iterator[str]:
    """:func:`render_trec`'s text, :data:`PIECE_QUERIES` queries at a time."""
    import numpy as np

    from smarteval.aggregate import has_value
    for ev in evaluations:
        z = ev.zscores is not None
        if per_query:
            q_outputs = [o for o in ev.outputs if o.measure.per_query]
            has = {o.name: has_value(o, ev.per_query[o.name]) for o in q_outputs}
            show = np.flatnonzero(np.ones(len(ev.qids), dtype=bool)
                                  if ev.settings.evaluates_added else ev.in_run)
            for lo in range(0, len(show), PIECE_QUERIES):
                qi = show[lo:lo + PIECE_QUERIES]
                qids = ev.qids[qi].tolist()
                cols = [_trec_column(ev, o, qids, ev.per_query[o.name][qi], has[o.name][qi],
                                     z) for o in q_outputs]
                yield "".join(itertools.chain.from_iterable(zip(*cols)))
        if summary:
            lines = []
            for o in ev.outputs:
                v = ev.summary[o.name]
                if v is None:
                    continue
                lines.append(_sample_line(o, "all", v) if o.program == "sample_eval" and not z
                             else f"{_trec_name(ev, o)}\tall\t"
                                  f"{_trec_value(o.measure.value, o.name, v, z)}\n")
            yield "".join(lines)


def _trec_column(ev, o, qids: list, vals: np.ndarray, has: np.ndarray, z: bool) -> list[str]:
    """One output's per-query lines of some queries ('' where it has no value), each
    value as :func:`_trec_value` prints it."""
    import numpy as np
    if o.program == "sample_eval" and not z:
        lines = [_sample_line(o, q, v) for q, v in zip(qids, vals)]
    else:
        name = _trec_name(ev, o)
        kind = o.measure.value
        if kind == "int" and not z:
            texts = [str(int(v)) for v in vals.tolist()]
        elif kind == "str":
            texts = [_trec_value(kind, o.name, v, z) for v in vals.tolist()]
        else:
            v = np.asarray(vals, dtype=np.float64)
            texts = [f"{x:6.4f}" for x in v.tolist()]
            for i in np.flatnonzero(np.isnan(v)).tolist():     # glibc's sign of a NaN
                texts[i] = _trec_value(kind, o.name, v[i], z)
        lines = [f"{name}\t{q}\t{t}\n" for q, t in zip(qids, texts)]
    if not has.all():
        lines = [line if h else "" for line, h in zip(lines, has.tolist())]
    return lines


def _full(value):
    """A value at full precision for machine-readable output."""
    if isinstance(value, float):        # numpy's float64 too: no numpy asked for it
        value = float(value)
        return None if math.isnan(value) else value    # an undefined value: none
    import numpy as np
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, np.floating):
        value = float(value)
        return None if math.isnan(value) else value
    return value


def _json_value(value):
    """A value for JSON, which has neither NaN nor infinities: null for NaN, "inf" and
    "-inf" (:func:`~smarteval.render.formats.json_number`)."""
    value = _full(value)
    return json_number(value) if isinstance(value, float) else value


def printed(ev, *, numbers_only: bool = False) -> list:
    """The outputs of ``ev`` that every format but trec_eval's prints, in the order the -m
    arguments asked for them; ``numbers_only``: without those whose values are text
    (``runid``, ``relstring``), as TSV, CSV and the DataFrames (one number a value)."""
    from smarteval.measures.grammar import in_asked_order
    return [o for o in in_asked_order(ev.outputs)
            if not numbers_only or o.measure.value != "str"]


def _per_query_columns(ev, numbers_only: bool = False
                       ) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(label, values, which queries have a value) of each output printed per query."""
    from smarteval.aggregate import has_value
    return [(ev.label(o), vals, has_value(o, vals)) for o in printed(ev, numbers_only=numbers_only)
            if o.measure.per_query for vals in [ev.per_query[o.name]]]


def _rows(evaluations, per_query: bool, summary: bool):
    """The rows of TSV and CSV: numbers only (a run's tag is in its run column)."""
    for ev in evaluations:
        if per_query:
            cols = _per_query_columns(ev, numbers_only=True)
            for qi, qid in enumerate(ev.qids.tolist()):
                for label, vals, has in cols:
                    if has[qi]:
                        yield ev.name, qid, label, _full(vals[qi])
        if summary:
            for o in printed(ev, numbers_only=True):
                v = ev.summary[o.name]
                if v is not None:
                    yield ev.name, "all", ev.label(o), _full(v)


#: The columns of ``-f tsv``/``csv``: ``run, query, measure, value``; summary rows have
#: query ``all`` (z-scores: the measure named ``Zmap``, as trec_eval's ``-Z`` names it).
#: Every value is a number (``nan`` where undefined): the measures whose values are text
#: (``runid``, ``relstring``) are printed by ``-f trec`` and ``json``; the rows are those
#: of ``Results.frame()``.
COLUMNS = ("run", "query", "measure", "value")


def _text_rows(evaluations, per_query: bool, summary: bool):
    return ([run, qid, name, _text(value)]
            for run, qid, name, value in _rows(evaluations, per_query, summary))


def _text(value) -> str:
    if value is None:
        return "nan"          # an undefined value (null in JSON)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _json(evaluations, per_query: bool, summary: bool) -> list[dict]:
    out = []
    for ev in evaluations:
        obj = {"run": ev.name, "file": ev.path, "tag": ev.tag}
        if ev.zscores is not None:
            obj["zscores"] = ev.zscores
        if summary:
            obj["summary"] = {ev.label(o): _json_value(ev.summary[o.name]) for o in printed(ev)
                              if ev.summary[o.name] is not None}
        if per_query:
            cols = _per_query_columns(ev)
            obj["queries"] = {
                qid: {label: _json_value(vals[qi]) for label, vals, has in cols if has[qi]}
                for qi, qid in enumerate(ev.qids.tolist())}
        out.append(obj)
    return out


def render_json(evaluations, *, per_query: bool = False, summary: bool = True) -> str:
    """A JSON array, one object per run: its name, file, summary and per-query values.

    Z-scores (``-Z``) are keyed ``Zmap``, as trec_eval names them, and the run's object
    names the z-score file (``"zscores"``).
    """
    return written("json", json=lambda: _json(evaluations, per_query, summary),
                   tables=list, table=str, json_ready=True)


# --------------------------------------------------------------------------- SMART table

#: SMART's own labels for measures shown in its tables (Keen, Fig. 5).
SMART_LABELS = {
    "rank_recall": "RNK REC",
    "log_prec": "LOG PRE",
    "norm_recall": "NOR REC",
    "norm_prec": "NOR PRE",
}


def smart_table(evaluations) -> tuple[list[str], list[list]]:
    """Rows of the SMART table: precision at the recall levels, then single numbers.

    The precision-recall block is every ``iprec_at_recall_L`` output with L > 0 (labelled
    by L); every other summary value follows, with SMART's labels where it has them.
    Z-scores (``-Z``) say so in the corner cell, and their rows are named as trec_eval
    names them (``Zmap``).
    """
    first = evaluations[0]
    header = ["z-score" if first.zscores is not None else "", *[ev.name for ev in evaluations]]
    rows: list[list] = []
    for o in first.outputs:
        if o.measure.name == "iprec_at_recall" and float(o.param) > 0:
            rows.append([f"{float(o.param):.1f}" if float(o.param) * 10 % 1 == 0
                         else f"{float(o.param):.2f}",
                         *[ev.summary[o.name] for ev in evaluations]])
    # then SMART's single numbers in Fig. 5's order (RNK REC, LOG PRE, NOR REC, NOR PRE)
    by_name = {o.name: o for o in first.outputs}
    for name, label in SMART_LABELS.items():
        if name in by_name and first.summary[name] is not None:
            rows.append([label, *[ev.summary[name] for ev in evaluations]])
    for o in printed(first):
        if o.measure.name == "iprec_at_recall" or o.name in SMART_LABELS:
            continue
        if first.summary[o.name] is None or o.measure.name == "runid":
            continue
        rows.append([first.label(o), *[ev.summary[o.name] for ev in evaluations]])
    return header, rows


def render_table(evaluations, fmt: str) -> str:
    """The SMART table as plain text (``smart``, wrapped past the terminal's width),
    ``markdown``, ``latex`` or ``html`` (its title above it), numbers aligned right."""
    header, rows = smart_table(evaluations)
    nq = sorted({ev.num_averaged for ev in evaluations})
    title = f"Averages over {_queries(nq[0])}" if len(nq) == 1 else \
        "Averages over " + ", ".join(f"{ev.name}: {ev.num_averaged}" for ev in evaluations) \
        + f" {'query' if nq == [1] else 'queries'}"
    cells = [[r[0], *[fixed(v) for v in r[1:]]] for r in rows]
    align = ("left", *["right"] * (len(header) - 1))          # numbers to the right
    if fmt in ("markdown", "latex"):
        return readable(fmt, [tabulate_table(cells, header, fmt, align)])
    if fmt == "html":
        return readable(fmt, [title, "", tabulate_table(cells, header, fmt, align)])
    # SMART's REC. heads the recall levels: over measures alone, the column is "measure"
    levels = any(o.measure.name == "iprec_at_recall" and float(o.param) > 0
                 for o in evaluations[0].outputs)
    hdr = [("REC." if levels else "measure") if h == "" else h for h in header]
    return readable(fmt, [title, "", tabulate_table(cells, hdr, fmt, align, wrap=True)])


def _queries(n: int) -> str:
    return f"{n} quer{'y' if n == 1 else 'ies'}"


def render_pieces(evaluations: Sequence, fmt: str, *, per_query: bool = False,
                  summary: bool = True, header: bool = True) -> Iterator[str]:
    """:func:`render`'s text in pieces: trec_eval's lines, TSV and CSV a few thousand
    queries at a time (the text of a million queries is never in hand at once); the
    other formats in one piece."""
    if fmt == "trec":
        yield from trec_pieces(evaluations, per_query=per_query, summary=summary)
    elif fmt in having("streams") and fmt in having("one_table"):
        yield from delimited_pieces(COLUMNS, _text_rows(evaluations, per_query, summary), fmt,
                                    header)
    else:
        yield render(evaluations, fmt, per_query=per_query, summary=summary, header=header)


def render(evaluations: Sequence, fmt: str, *, per_query: bool = False, summary: bool = True,
           header: bool = True) -> str:
    """The evaluations in one of ``evaluate``'s formats (:data:`FORMATS`)."""
    if fmt == "trec":
        return render_trec(evaluations, per_query=per_query, summary=summary)
    return written(fmt, header=header, json_ready=True,
                   json=lambda: _json(evaluations, per_query, summary),
                   tables=lambda: [(COLUMNS, _text_rows(evaluations, per_query, summary))],
                   table=lambda f: render_table(evaluations, f))


def check_options(fmt: str, *, per_query: bool, summary: bool) -> None:
    """Refuse what a format cannot show (before any work, on the command line): the tables
    show the averages only."""
    if is_table(fmt) and (per_query or not summary):
        flags = " and ".join(f for f, given in (("-q/--per-query", per_query),
                                                 ("-n/--no-summary", not summary)) if given)
        data = [n for n in FORMATS if not is_table(n)]
        raise UsageError(f"{flags}: the {fmt} table prints the averages only; per-query "
                         f"values are printed by -f {', '.join(data[:-1])} and {data[-1]}")


def complete_notes(ev) -> list[str]:
    """What -c did with the queries of the qrels the run has no results for, in words."""
    settings = ev.settings
    def queries(n: int) -> str:
        return f"{n} quer{'y' if n == 1 else 'ies'} of the qrels"

    v10 = settings.evaluates_added
    placeholder = ev.added_by_complete if v10 else 0
    zero = ev.num_averaged - (len(ev.qids) if v10 else int(ev.in_run.sum()))
    # the SMART measures score a query without results on its empty ranking
    smart = "; the SMART measures score their empty ranking" \
        if any(o.measure.scores_empty_ranking for o in ev.outputs) else ""
    notes = []
    if zero:
        what = "without results" if settings.query is None else "not evaluated (-D)"
        tail = smart if settings.query is None and not v10 else ""
        notes.append(f"{ev.path}: {queries(zero)} {what}, averaged in as 0 (-c){tail}")
    if placeholder:
        none = " (no query of the run is in the qrels)" if not ev.in_run.any() else ""
        notes.append(f"{ev.path}: {queries(placeholder)} without results{none}, evaluated "
                     f"on trec_eval 10.0's placeholder document (-c){smart}")
    return notes


#: Measures that do not look at relevance: no note when nothing is relevant.
_NOT_RELEVANCE = ("runid", "num_q", "num_ret")


def relevance_notes(qrels, evaluations, requests, settings) -> list[str]:
    """A note when no judgement of the queries evaluated reaches ``-l``: every measure of
    relevant documents is then 0, which is rarely what was meant (``-l`` above every grade).
    """
    if not evaluations or all(rq.rel_level is not None or rq.measure.name in _NOT_RELEVANCE
                              or rq.measure.rel_info == "prefs"      # levels above 0, not -l
                              for rq in requests):
        return []
    return nothing_relevant(qrels, [ev.qids for ev in evaluations], settings.rel_level)


def nothing_relevant(qrels, qids, level: int) -> list[str]:
    """The note of :func:`relevance_notes` for the queries ``qids`` (arrays of ids, one per
    run), if no judgement of theirs has a grade of ``level`` or more; for every command
    that evaluates at a relevance level (``curve``, ``plot``)."""
    import numpy as np

    from smarteval.columns import distinct
    evaluated = distinct(np.concatenate([np.asarray(q) for q in qids])) if len(qids) \
        else np.zeros(0, dtype=str)
    at = np.minimum(np.searchsorted(evaluated, qrels.qids), max(len(evaluated) - 1, 0))
    shared = evaluated[at] == qrels.qids if len(evaluated) else np.zeros(len(qrels.qids), bool)
    rows = np.repeat(shared, np.diff(qrels.offsets))
    grades = qrels.grades[rows]
    if (grades >= level).any():
        return []
    highest = f"the highest is {int(grades.max())}" if len(grades) else "none is judged"
    return [f"nothing is relevant at -l {level}: no judgement of the queries evaluated has a "
            f"grade of {level} or more ({highest}), so every measure of relevant documents "
            "is 0"]
