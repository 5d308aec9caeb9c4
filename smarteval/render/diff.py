"""The diff of two runs as text: the triage table, TSV/CSV rows, JSON, or a self-contained page."""

from __future__ import annotations

import math

from smarteval.render.formats import (
    Rows,
    escaped,
    fixed,
    full,
    readable,
    tabulate_table,
    writable,
    written,
)
from smarteval.stats.diff import RunDiff, Side

#: The formats of ``diff``: all but trec_eval's (it has no such output); html is the page.
FORMATS = writable(but=("trec",))

#: The columns of ``-f tsv``/``csv``: one row per query (documents space-separated).
COLUMNS = ("query", "a", "b", "delta", "tau", "rbo", "first_rel_a", "first_rel_b", "rel_in",
           "rel_out", "unjudged_in")
#: The height of a document's row on the page, in pixels: the moves are drawn to it.
ROW = 22
#: The width of the moves drawn between the two lists, in pixels.
GAP = 64


def render_diff(d: RunDiff, fmt: str, *, header: bool = True) -> str:
    """The diff in one of diff's formats (:data:`FORMATS`)."""
    rows = d.rows()
    return written(fmt, header=header, json=lambda: _json(d, rows),
                   tables=lambda: _tables(rows),
                   table=lambda f: page(d, rows) if f == "html" else _text(d, rows, f))


def _json(d: RunDiff, rows: list[dict]) -> dict:
    def side(s: Side, i: int, other: str) -> list[dict]:
        return [{"docno": s.docno[r].decode("utf-8", "replace"), "grade": _grade(s, r),
                 f"rank_{other}": int(s.other[r]) or None} for r in s.rows(i)]
    return {"run_a": d.name_a, "run_b": d.name_b, "measure": d.measure, "depth": d.depth,
            "order": d.order, "rbo_p": d.rbo_p,
            "queries": [{**row, "top_a": side(d.a, i, "b"), "top_b": side(d.b, i, "a")}
                        for i, row in enumerate(rows)],
            "notes": d.notes}


def _grade(s: Side, r: int) -> int | None:
    """A document's grade; None when the qrels do not judge it (or judge it below 0)."""
    g = int(s.grade[r])
    return g if g >= 0 else None


def _tables(rows: list[dict]) -> list[Rows]:
    return [(COLUMNS, [[" ".join(v) if isinstance(v, list) else full(v)
                        for v in (row[c] for c in COLUMNS)] for row in rows])]


def summary(d: RunDiff) -> str:
    better, worse, equal = d.counts()
    n = len(d.qids)
    return (f"{d.name_b} (B) against {d.name_a} (A) on {d.measure}, {n} "
            f"{'query' if n == 1 else 'queries'}: B better on {better}, worse on {worse}, "
            f"equal on {equal}; means A {fixed(float(d.value_a.mean()) if n else math.nan)}, "
            f"B {fixed(float(d.value_b.mean()) if n else math.nan)}")


def _order(d: RunDiff) -> str:
    return {"delta": "by |B - A|, largest first",
            "tau": f"by Kendall's tau between the top {d.depth} lists, lowest first",
            "rbo": f"by RBO between the top {d.depth} lists, lowest first"}[d.order]


def _text(d: RunDiff, rows: list[dict], fmt: str) -> str:
    out = [summary(d), f"Queries {_order(d)}; tau and RBO (p = {d.rbo_p:g}) compare the top "
                       f"{d.depth} lists; documents counted came into (in) or left (out) "
                       f"the top {d.depth}", ""]
    body = [[r["query"], fixed(r["a"]), fixed(r["b"]), _signed(r["delta"]), fixed(r["tau"]),
             fixed(r["rbo"]), str(r["first_rel_a"] or "-"), str(r["first_rel_b"] or "-"),
             str(len(r["rel_in"])), str(len(r["rel_out"])), str(len(r["unjudged_in"]))]
            for r in rows]
    out.append(tabulate_table(body, ["query", "A", "B", "B - A", "tau", "RBO", "1st rel A",
                                     "1st rel B", "rel in", "rel out", "unjudged in"], fmt,
                              ("left",) + ("right",) * 10))
    if d.notes:
        out += [""] + [f"Note: {n}" for n in d.notes]
    return readable(fmt, out)


def _signed(v: float) -> str:
    return fixed(v) if math.isnan(v) or v <= 0 else "+" + fixed(v)


# --------------------------------------------------------------------------- the page

_STYLE = """
:root{--w:#1a7f37;--l:#cf222e;--u:#bf8700;font-family:system-ui,-apple-system,"Segoe UI",
Roboto,sans-serif;font-size:14px;color:#1f2328;background:#fff}
body{margin:1.5em auto;max-width:72em;padding:0 1em}h1{font-size:1.4em;margin:0 0 .3em}
h2{font-size:1.1em;margin:1.6em 0 .3em;border-top:1px solid #d0d7de;padding-top:.8em}
p{margin:.3em 0}a{color:#0969da}.win{color:var(--w)}.loss{color:var(--l)}
table{border-collapse:collapse;margin:.8em 0}th,td{padding:2px 8px;text-align:right;
border-bottom:1px solid #eaeef2;white-space:nowrap}th{background:#f6f8fa;position:sticky;top:0}
td:first-child,th:first-child{text-align:left}td.bar{position:relative;min-width:9em}
td.bar span{position:absolute;top:4px;bottom:4px;opacity:.25}tr.win td.bar span{
background:var(--w);left:50%}tr.loss td.bar span{background:var(--l);right:50%}
.pair{display:grid;grid-template-columns:minmax(0,1fr) """ + str(GAP) + """px minmax(0,1fr);
align-items:start;max-width:60em}.head{font-weight:600;margin:.4em 0}
ol{list-style:none;margin:0;padding:0;counter-reset:r}li{height:""" + str(ROW) + """px;
line-height:""" + str(ROW) + """px;box-sizing:border-box;padding:0 6px;border-left:6px solid;
white-space:nowrap;overflow:visible;position:relative;counter-increment:r;
border-bottom:1px solid #fff}li::before{content:counter(r);display:inline-block;width:2em;
color:#57606a;font-size:.85em}li i{font-style:normal;color:#57606a;font-size:.85em;
margin-left:.6em}li b{color:#fff;background:var(--u);border-radius:3px;padding:0 4px;
margin-left:.4em;font-size:.8em}
.g0{background:#f6f8fa;border-color:#d0d7de}.g1{background:#dafbe1;border-color:#4ac26b}
.g2{background:#aceebb;border-color:#1a7f37}.g3{background:#6fdd8b;border-color:#116329}
.gn,.gu{background:#fff8c5;border-color:var(--u)}svg{display:block;overflow:visible}
path{fill:none;stroke-width:1.5}.m0{stroke:#8c959f}.m1{stroke:#1a7f37;stroke-width:2.5}
.mu{stroke:var(--u);stroke-dasharray:3 2}.out{stroke-dasharray:4 3}
details{display:inline}summary{cursor:pointer;display:inline;list-style:none}
summary::-webkit-details-marker{display:none}details[open] .t{position:absolute;left:0;
top:""" + str(ROW) + """px;z-index:2;width:34em;max-height:20em;overflow:auto;
white-space:normal;line-height:1.4;background:#fff;color:#1f2328;border:1px solid #d0d7de;
box-shadow:0 4px 12px rgba(0,0,0,.15);padding:.6em;font-size:.95em}
.legend span{display:inline-block;padding:0 6px;margin-right:.4em;border-left:6px solid}
section.q{content-visibility:auto;contain-intrinsic-size:auto 24em}
"""


def _e(text: str) -> str:
    return escaped("html", text)


def _class(grade: int, rel_level: int) -> str:
    if grade == -1:
        return "gn"                     # not in the qrels
    if grade < 0:
        return "gu"                     # judged below 0: unjudged for trec_eval
    return f"g{min(grade, 3)}" if grade >= rel_level or grade == 0 else "g0"


def _items(d: RunDiff, s: Side, i: int, other: str) -> str:
    out = []
    for r in s.rows(i):
        docno = s.docno[r].decode("utf-8", "replace")
        grade = int(s.grade[r])
        rank = int(s.other[r])
        where = f"{other} {rank}" if rank else f"not in {other}"
        text = d.texts.get(docno)
        doc = _e(docno) if text is None else \
            f"<details><summary>{_e(docno)}</summary><div class=t>{_e(text)}</div></details>"
        mark = "<b title=\"not judged\">?</b>" if grade < 0 else ""
        out.append(f"<li class={_class(grade, d.rel_level)}>{doc}{mark}<i>{where}</i></li>")
    return "".join(out)


def _moves(d: RunDiff, i: int) -> str:
    """The SVG between the lists: a line from each document's row in A to its row in B;
    one going down out of the picture for a document leaving the top k, one coming up
    for a document coming in."""
    k = d.depth
    rows_a, rows_b = d.a.rows(i), d.b.rows(i)
    height = ROW * max(len(rows_a), len(rows_b), 1)

    def y(rank: int) -> float:
        return (rank - 0.5) * ROW

    def css(grade: int) -> str:
        return "mu" if grade < 0 else ("m1" if grade >= d.rel_level else "m0")
    paths: dict[str, list[str]] = {}
    for n, r in enumerate(rows_a, 1):
        other, c = int(d.a.other[r]), css(int(d.a.grade[r]))
        if 0 < other <= k:
            paths.setdefault(c, []).append(f"M0 {y(n):g}L{GAP} {y(other):g}")
        else:
            paths.setdefault(c + " out", []).append(f"M0 {y(n):g}L{GAP // 2} {height}")
    for n, r in enumerate(rows_b, 1):
        other, c = int(d.b.other[r]), css(int(d.b.grade[r]))
        if not 0 < other <= k:
            paths.setdefault(c + " out", []).append(f"M{GAP // 2} {height}L{GAP} {y(n):g}")
    drawn = "".join(f"<path class=\"{c}\" d=\"{''.join(p)}\"/>" for c, p in paths.items())
    return (f"<svg width={GAP} height={height} viewBox=\"0 0 {GAP} {height}\" "
            f"aria-hidden=true>{drawn}</svg>")


def _section(d: RunDiff, row: dict, i: int) -> str:
    q = row["query"]
    delta = row["delta"]
    kind = "win" if delta > 0 else ("loss" if delta < 0 else "tie")
    facts = (f"A {fixed(row['a'])} · B {fixed(row['b'])} · first relevant A "
             f"{row['first_rel_a'] or '-'}, B {row['first_rel_b'] or '-'} · tau "
             f"{fixed(row['tau'])} · RBO {fixed(row['rbo'])}")
    moved = []
    for key, words in (("rel_in", "relevant in"), ("rel_out", "relevant out"),
                       ("unjudged_in", "unjudged in")):
        if row[key]:
            moved.append(f"{words}: {_e(' '.join(row[key]))}")
    return (f"<section class=q id=\"q-{_e(q)}\"><h2>Query {_e(q)} <span class={kind}>"
            f"{_signed(delta)}</span></h2><p>{facts}</p>"
            + (f"<p>{' · '.join(moved)}</p>" if moved else "")
            + f"<div class=pair><div class=head>A: {_e(d.name_a)}</div><div></div>"
              f"<div class=head>B: {_e(d.name_b)}</div><ol class=a>{_items(d, d.a, i, 'B')}"
              f"</ol>{_moves(d, i)}<ol class=b>{_items(d, d.b, i, 'A')}</ol></div></section>")


def page(d: RunDiff, rows: list[dict]) -> str:
    """One self-contained HTML page (no script, no font, nothing fetched): the summary
    table, then each query's two top-k lists side by side, grades coloured, unjudged
    documents marked, the moves drawn, and with texts each document's on a click."""
    top = max((abs(r["delta"]) for r in rows if not math.isnan(r["delta"])), default=0) or 1
    body = []
    for r in rows:
        delta = r["delta"]
        kind = "win" if delta > 0 else ("loss" if delta < 0 else "tie")
        width = 0 if math.isnan(delta) else 50 * abs(delta) / top
        body.append(
            f"<tr class={kind}><td><a href=\"#q-{_e(r['query'])}\">{_e(r['query'])}</a>"
            f"<td>{fixed(r['a'])}<td>{fixed(r['b'])}<td class=bar>"
            f"<span style=\"width:{width:.1f}%\"></span>{_signed(delta)}<td>{fixed(r['tau'])}"
            f"<td>{fixed(r['rbo'])}<td>{r['first_rel_a'] or '-'}<td>{r['first_rel_b'] or '-'}"
            f"<td>{len(r['rel_in'])}<td>{len(r['rel_out'])}<td>{len(r['unjudged_in'])}</tr>")
    legend = ("<p class=legend><span class=g0>not relevant</span><span class=g1>grade 1"
              "</span><span class=g2>2</span><span class=g3>3 and up</span><span class=gn>"
              "not judged <b>?</b></span> Lines: a document's move between the lists; "
              f"dashed: into or out of the top {d.depth}.</p>")
    notes = "".join(f"<p>Note: {_e(n)}</p>" for n in d.notes)
    title = f"{d.name_b} against {d.name_a} on {d.measure}"
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
            f"<title>{_e(title)} - smarteval diff</title><style>{_STYLE}</style></head>\n"
            f"<body><header><h1>{_e(title)}</h1><p>{_e(summary(d))}</p><p>Queries "
            f"{_e(_order(d))}; tau and RBO (p = {d.rbo_p:g}) compare the top {d.depth} lists."
            f"</p>{legend}{notes}</header>\n<table id=summary><thead><tr><th>query<th>A<th>B"
            "<th>B - A<th>tau<th>RBO<th>1st rel A<th>1st rel B<th>rel in<th>rel out"
            f"<th>unjudged in</tr></thead><tbody>\n{''.join(body)}</tbody></table>\n<main>\n"
            + "\n".join(_section(d, r, i) for i, r in enumerate(rows))
            + "\n</main></body></html>\n")
