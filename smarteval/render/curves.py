"""Text output of ``smarteval curve``: runs' curves side by side, and Keen part 7's points."""

from __future__ import annotations

import math
from collections.abc import Sequence

from smarteval.render.formats import fixed, full, readable, tabulate_table, writable, written

#: The formats of ``curve``: not trec_eval's (it has no curve output).
FORMATS = writable(but=("trec",))
#: The columns of ``-f tsv``/``csv`` for a curve: one row per (run, level); the third is
#: named after the method's value (precision, fallout, ...); cnr adds recall, cluster
#: the recall ceiling.
COLUMNS = ("run", "level", "precision", "real", "extrapolated", "excluded", "examined")
#: The columns of ``-f tsv``/``csv`` for Keen part 7's points: one row per run.
POINT_COLUMNS = ("run", "queries", "examined", "recall", "precision")

#: The level column's heading: (smart table, other formats).
_LEVEL_HEAD = {"recall": ("REC.", "recall"), "points recall": ("REC.PTS", "points recall"),
               "precision": ("PREC.", "precision"), "cut-off": ("DOCS", "cut-off"),
               "stop": ("STOP", "stop after n")}
#: The levels in words, for titles.
_LEVEL_NOUN = {"recall": "recall levels", "points recall": "relevance-points recall levels",
               "precision": "precision levels", "cut-off": "document cut-offs",
               "stop": "stopping rules (n consecutive non-relevant documents)"}


#: What a cluster curve does past its recall ceiling, in words.
_END = {"extrapolate": "extrapolated past the ceiling to the full search's last point",
        "join": "joined past the ceiling to the full search's curve",
        "none": "nothing past the ceiling"}


def _method(c):
    from smarteval.curves import METHOD  # loaded by then: the curves were computed
    return METHOD[c.method]


def _value_name(c) -> str:
    return _method(c).value.replace(" ", "_")


def _digits(c) -> int:
    return 5 if c.method == "fallout" else 4


def _columns(c) -> tuple[str, ...]:
    cols: tuple[str, ...] = ("run", "level", _value_name(c), *COLUMNS[3:])
    if c.method == "cnr":
        cols += ("recall",)
    if c.method == "cluster":
        cols += ("ceiling",)
    return cols


def render_curves(curves: Sequence, names: Sequence[str], nq: Sequence[int], fmt: str,
                  header: bool = True, *, full_curve=None, full_name: str = "") -> str:
    """Runs side by side: the value at each level, then per run how each level was averaged.

    ``curves`` are :class:`smarteval.curves.Curve` of one method, one per run, with the
    runs' display ``names`` and their numbers of queries ``nq``. ``full_curve`` (the
    cluster method's full search, a quasi curve) is shown beside them as
    "``full_name`` (full search)".
    """
    if not curves:
        raise ValueError("render_curves needs at least one curve")
    shown = list(zip(names, curves, strict=True))
    if full_curve is not None:
        shown.append((f"{full_name} (full search)", full_curve))

    def runs() -> list[dict]:
        out = [_json(c, name, q) for name, c, q in zip(names, curves, nq, strict=True)]
        if full_curve is not None:
            out.append(_json(full_curve, f"{full_name} (full search)", nq[0]))
        return out

    cols = _columns(curves[0])
    return written(fmt, header=header, json=runs,
                   tables=lambda: [(cols, (_row(name, c, k, cols) for name, c in shown
                                           for k in range(len(c.levels))))],
                   table=lambda f: _table(curves, names, nq, f, full_curve, full_name))


def _row(name: str, c, k: int, cols) -> list[str]:
    row = [name, full(float(c.levels[k])), full(c.value[k]), full(c.real[k]),
           full(c.extrapolated[k]), full(c.excluded[k]), full(_examined(c)[k])]
    if "recall" in cols:
        row.append(full(c.recall[k] if c.recall is not None else math.nan))
    if "ceiling" in cols:
        row.append(full(c.ceiling if c.ceiling is not None else math.nan))
    return row


def _examined(c) -> Sequence[float]:
    return c.examined if c.examined is not None else [math.nan] * len(c.levels)


def _json(c, name: str, queries: int) -> dict:
    value = _value_name(c)
    pseudo = c.examined is not None
    cnr = c.method == "cnr"
    out = {"run": name, "method": c.method, "step": c.step, "left": c.left,
           "average": c.average, "queries": int(queries)}
    if c.method == "cluster":
        out.update(ceiling=c.ceiling, end=c.end)
    if c.generality is not None:
        out["generality"] = c.generality
    out["levels"] = [
        {"level": float(x), value: float(v), "real": int(re), "extrapolated": int(et),
         "excluded": int(xc), **({"examined": float(e)} if pseudo else {}),
         **({"recall": float(c.recall[k])} if cnr else {})}
        for k, (x, v, re, et, xc, e) in enumerate(zip(c.levels, c.value, c.real,
                                                      c.extrapolated, c.excluded,
                                                      _examined(c), strict=True))]
    return out


def _table(curves, names, nq, fmt: str, full_curve, full_name: str) -> str:
    c0 = curves[0]
    levels = c0.levels
    shown, labels = list(curves), list(names)
    if full_curve is not None:
        shown.append(full_curve)
        labels.append(f"{full_name} (full search)")
    head = [_LEVEL_HEAD[_method(c0).level][0 if fmt == "smart" else 1], *labels]
    align = ("left", *["right"] * len(labels))
    kind = _method(c0).level_kind

    def table(cell) -> str:
        body = [[_level(x, kind), *[cell(c, k) for c in shown]] for k, x in enumerate(levels)]
        return tabulate_table(body, head, fmt, colalign=align, wrap=True)   # a column a run

    parts = [_title(curves, names, nq)]
    if c0.method == "cluster":
        ceilings = ", ".join(f"{n} {_num(c.ceiling)}" for n, c in zip(names, curves,
                                                                       strict=True))
        parts.append(f"Recall ceiling of the cluster search ({c0.average}): {ceilings}")
    parts += ["", table(lambda c, k: _num(c.value[k], _digits(c)))]
    if c0.method == "cnr":
        parts += ["", "Recall at each stopping rule:", "",
                  table(lambda c, k: _num(c.recall[k]))]
    if c0.examined is not None and c0.method != "characteristic":
        where = {"precision": "mean rank of the cut-off", "cnr": "mean per query"}.get(
            c0.method, "cut-off where the averaged recall reaches the level")
        parts += ["", f"Documents examined ({where}):", "",
                  table(lambda c, k: _num(_examined(c)[k], 1))]
    parts += ["", "Queries averaged from real points + by extrapolation (- left out):", "",
              table(_counts)]
    return readable(fmt, parts)


def _num(v, digits: int = 4) -> str:
    return fixed(float(v) if v is not None else math.nan, digits, undefined="-")


def _level(x: float, kind: str = "ratio") -> str:
    if kind == "count":
        return str(int(x))
    return f"{x:.1f}" if round(x * 10, 9) % 1 == 0 else f"{x:.2f}" if round(x * 100, 9) % 1 == 0 \
        else f"{x:.4f}"


def _title(curves, names, nq) -> str:
    c = curves[0]
    m = _method(c)
    value = m.value
    if c.method == "adjusted" and c.generality is not None:
        value = f"precision adjusted to generality {c.generality:g}"
    value = {"points recall": "relevance-points recall"}.get(value, value)
    joint = " " if m.title.endswith(("Cranfield", "search")) else ": "
    text = f"{m.title}{joint}{value} at {len(c.levels)} {_LEVEL_NOUN[m.level]}"
    if c.method == "quasi":
        text += f" (step {c.step}, left end {c.left})"
    elif c.method == "cluster":
        text += f" (Quasi-Cranfield: step {c.step}, left end {c.left}; {_END[c.end]})"
    queries = sorted(set(nq))
    qs = f"{queries[0]} queries" if len(queries) == 1 else \
        ", ".join(f"{n}: {q}" for n, q in zip(names, nq, strict=True)) + " queries"
    return f"{text}, {c.average} average over {qs}"


def _counts(c, k: int) -> str:
    text = f"{int(c.real[k])}+{int(c.extrapolated[k])}"
    if c.excluded[k]:
        text += f" -{int(c.excluded[k])}"
    return text


# --------------------------------------------------------------------------- Keen part 7

def render_points(points: Sequence, names: Sequence[str], other, other_name: str, fmt: str,
                  header: bool = True) -> str:
    """Keen part 7: each run cut at the set sizes of ``other_name``, and that system's own
    pair first (``points`` are :class:`smarteval.curves.Point`)."""
    rows = [(f"{other_name} (set sizes)", other)] + list(zip(names, points, strict=True))
    return written(
        fmt, header=header,
        json=lambda: [{"run": n, "cutoffs_from": other_name, "average": p.average,
                       "queries": p.queries, "examined": p.examined, "recall": p.recall,
                       "precision": p.precision} for n, p in rows],
        tables=lambda: [(POINT_COLUMNS, ([n, full(p.queries), full(p.examined),
                                          full(p.recall), full(p.precision)]
                                         for n, p in rows))],
        table=lambda f: _points_table(rows, other, other_name, f))


def _points_table(rows, other, other_name: str, fmt: str) -> str:
    body = [[n, str(p.queries), _num(p.examined, 1), _num(p.recall), _num(p.precision)]
            for n, p in rows]
    head = ["run", "queries", "examined", "recall", "precision"]
    title = (f"Each run cut where {other_name} stopped: at the size of the set it retrieved "
             f"for each query (Keen part 7), {other.average} average")
    return readable(fmt, [title, "", tabulate_table(body, head, fmt,
                                                    colalign=("left", "right", "right",
                                                              "right", "right"))])
