"""The table of a paper as text: LaTeX (booktabs), markdown, HTML, a plain table, and the
marks as data (TSV, CSV, JSON)."""

from __future__ import annotations

import re

import numpy as np

from smarteval.errors import UsageError
from smarteval.render.compare import UNDEFINED, p_text
from smarteval.render.formats import (
    Rows,
    chosen_table,
    escaped,
    fixed,
    full,
    is_table,
    named,
    tabulate_table,
    writable,
    written,
)
from smarteval.stats.merit import UNJUDGED_COLUMNS
from smarteval.stats.significance import (
    ALL_PAIRS_TESTS,
    CORRECTION_NAMES,
    TEST_HELP,
    WILCOXON_EXACT_BELOW,
)
from smarteval.stats.table import Table

#: The columns of each data table of ``-f tsv``/``csv`` (and the keys of ``-f json``).
CELL_COLUMNS = ("run", "measure", "n", "mean", "ci_low", "ci_high", "rank", "best", "second",
                "marks", "better_than")
COMPARISON_COLUMNS = ("measure", "run", "other", "n", "mean_run", "mean_other", "diff",
                      "ci_low", "ci_high", "es_e", "test", "statistic", "p_value", "p_adjusted",
                      "significant", "better")
ANOVA_COLUMNS = ("measure", "source", "ss", "df", "ms", "f", "p", "eta2", "partial_eta2",
                 "omega2", "partial_omega2")
WIN_COLUMNS = ("run", "other", "measure", "better", "equal", "worse")
DELTA_COLUMNS = ("baseline", "run", "measure", "query", "delta")
#: The formats of ``report``: every one but trec_eval's (it has no such output).
FORMATS = writable(but=("trec",))


def render_table(t: Table, fmt: str, *, second: bool = False, wins: bool = False,
                 deltas: bool = False, digits: int = 4, header: bool = True,
                 standalone: bool = False, anova: bool = False, pairs: bool = False) -> str:
    """The table in one of report's formats; ``second`` underlines each column's second
    best, ``pairs`` adds every comparison, ``wins`` the win/tie/loss counts, ``deltas``
    the per-query differences from each baseline, ``anova`` each measure's two-way ANOVA
    without replication; ``standalone`` makes LaTeX or HTML a whole document. TSV and CSV
    write one table: the cells (run x measure), or the one ``pairs``, ``anova``, ``wins``
    or ``deltas`` asks for."""
    check_options(fmt, deltas=deltas, standalone=standalone, baselines=len(t.baselines),
                  pairs=pairs, anova=anova, wins=wins)
    return written(fmt, header=header, json=lambda: _json(t, second, wins, deltas, anova),
                   tables=lambda: [_data(t, fmt, pairs, wins, deltas, anova)],
                   table=lambda f: _styled(t, STYLES[f], second, wins, deltas, digits,
                                           standalone, anova, pairs))


def _styled(t: Table, style: Style, second: bool, wins: bool, deltas: bool, digits: int,
            standalone: bool, anova: bool, pairs: bool = False) -> str:
    """The table and its companions in a format for people, as ``style`` writes them."""
    out = [style.table(t, _main(t, style, second, digits), caption(t, style, second))]
    if pairs and len(t.pairs):
        out.append(style.table(t, _pairs(t, style, digits), _pairs_caption(t, style)))
    if anova and any(a is not None for a in t.anovas):
        out.append(style.table(t, _anova(t, style, digits), _anova_caption(t, style)))
    if wins and len(t.pairs):
        out.append(style.table(t, _wins(t, style), _wins_caption(t, style)))
    if deltas and t.baselines:
        for b in t.baselines:
            out.append(style.table(t, _deltas(t, b, style, digits),
                                   style.text(f"Per-query differences from {t.runs[b]} "
                                              "(run - baseline)")))
    out += [style.note(n) for n in t.notes]
    text = style.join(out)
    return style.document(text) if standalone else text


#: The tables of a format of one table, by the option that asks for each (the cells without one).
DATA_TABLES = {"--pairs": "comparisons", "--anova": "anova", "--wins": "wins",
               "--deltas": "deltas"}


def check_options(fmt: str, *, deltas: bool, standalone: bool, baselines: int,
                  pairs: bool = False, anova: bool = False, wins: bool = False) -> None:
    """Refuse rendering options that cannot apply (before any work, on the command line)."""
    chosen_table(fmt, {"--pairs": pairs, "--anova": anova, "--wins": wins,
                       "--deltas": deltas}, "cells")
    if deltas and not baselines:
        raise UsageError("--deltas are the differences from each --baseline: give one")
    if standalone and fmt not in STANDALONE:
        raise UsageError(f"--standalone makes a whole document of {' or '.join(STANDALONE)} "
                         f"output, not of {fmt}")


# --------------------------------------------------------------------------- styles

class Style:
    """How one readable format writes emphasis, marks, escapes and a whole table: the
    templates below take the text; each format sets its own, and its ``table``."""

    name = "smart"
    BOLD, UNDER, SUP, PM, NOTE = "*{}*", "_{}_", "^{}", " \u00b1 ", "Note: {}"

    def text(self, s: str) -> str:
        """``s`` as this format writes it to mean itself (:func:`escaped`)."""
        return escaped(self.name, s)

    def bold(self, s: str) -> str:
        return self.BOLD.format(s)

    def under(self, s: str) -> str:
        return self.UNDER.format(s)

    def sup(self, s: str) -> str:
        return self.SUP.format(s)

    def symbol(self, s: str) -> str:
        return s

    def marked(self, cell: str, mark: str, widest: str) -> str:
        """A mean followed by its superscript ``mark`` (empty: none), in a column whose
        widest mark is ``widest``: where a format can, the means stay aligned whatever
        their marks (:class:`Latex`, :class:`Html`)."""
        return cell + mark

    def note(self, s: str) -> str:
        return self.NOTE.format(self.text(s))

    def table(self, t: Table, rows: tuple[list[str], list[list[str]], list[str]],
              caption_text: str) -> str:
        headers, body, align = rows
        return caption_text + "\n\n" + tabulate_table(body, headers, self.name, align,
                                                      wrap=True, markup=True)

    def join(self, parts: list[str]) -> str:
        return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"

    def document(self, body: str) -> str:
        return body


class Plain(Style):
    """Words alone (the caption of ``-f json``)."""

    BOLD = UNDER = SUP = "{}"


class Markdown(Style):
    name = "markdown"
    BOLD, UNDER, SUP = "**{}**", "<ins>{}</ins>", "<sup>{}</sup>"


class Latex(Style):
    name = "latex"
    BOLD, UNDER, SUP = r"\textbf{{{}}}", r"\underline{{{}}}", r"\textsuperscript{{{}}}"
    PM, NOTE = r"\,$\pm$\,", "% Note: {}"

    def symbol(self, s: str) -> str:
        return self.text(s)

    def note(self, s: str) -> str:
        return super().note(s.replace("\n", " "))

    def table(self, t: Table, rows, caption_text: str) -> str:
        headers, body, align = rows
        spec = "".join("l" if a == "left" else "r" for a in align)
        lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{caption_text}}}", r"\smallskip",
                 rf"\begin{{tabular}}{{@{{}}{spec}@{{}}}}", r"\toprule",
                 " & ".join(headers) + r" \\", r"\midrule"]
        lines += [" & ".join(row) + r" \\" for row in body]
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines)

    def marked(self, cell: str, mark: str, widest: str) -> str:
        """The mark set over the room of the column's widest (``\\rlap`` over
        ``\\hphantom``): every mean of the column ends at one place."""
        if not widest:
            return cell
        return cell + (rf"\rlap{{{mark}}}" if mark else "") + rf"\hphantom{{{widest}}}"

    def join(self, parts: list[str]) -> str:
        return self.NEEDS + super().join(parts)

    #: What the table alone says it needs (a whole document has it, and says nothing).
    NEEDS = "% needs \\usepackage{booktabs}\n"

    def document(self, body: str) -> str:
        return ("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                + body.removeprefix(self.NEEDS) + "\\end{document}\n")


class Html(Style):
    name = "html"
    BOLD, UNDER, SUP = "<b>{}</b>", "<u>{}</u>", "<sup>{}</sup>"
    _RULE = "border-bottom:1px solid"

    def note(self, s: str) -> str:
        return f"<!-- Note: {self.text(s).replace('--', '- -')} -->"

    def table(self, t: Table, rows, caption_text: str) -> str:
        headers, body, align = _marks_apart(*rows)

        def cells(tag: str, row: list[str]) -> str:
            out = []
            for c, a in zip(row, align, strict=True):
                # a mean and its marks: two cells that touch, the mean's right edge the
                # column's whatever the marks (numbers align as in the LaTeX)
                pad = {"mean": "2px 0 2px 8px", "marks": "2px 8px 2px 1px"}.get(a, "2px 8px")
                side = {"mean": "right", "marks": "left"}.get(a, a)
                out.append(f'<{tag} style="padding:{pad};text-align:{side}">{c}</{tag}>')
            return "".join(out)
        lines = ['<table style="border-collapse:collapse;border-top:2px solid;'
                 'border-bottom:2px solid;font-variant-numeric:tabular-nums">',
                 f'<caption style="caption-side:top;text-align:left">{caption_text}</caption>',
                 f'<thead><tr style="{self._RULE}">{cells("th", headers)}</tr></thead>',
                 "<tbody>"]
        lines += [f"<tr>{cells('td', row)}</tr>" for row in body]
        lines += ["</tbody>", "</table>"]
        return "\n".join(lines)

    def document(self, body: str) -> str:
        return ('<!DOCTYPE html>\n<html>\n<head><meta charset="utf-8"><title>smarteval report'
                '</title></head>\n<body style="font-family:serif">\n' + body
                + "</body>\n</html>\n")


_MARK = re.compile(r"^(?P<cell>.*?)(?P<mark>(?:<sup>[^<]*</sup>)+)$", re.S)


def _marks_apart(headers: list[str], body: list[list[str]], align: list[str]):
    """The HTML table's columns whose means carry marks, each as two columns, the means
    (aligned right, ``mean``) and their marks (``marks``); the heading above the means."""
    split = [a == "right" and any(_MARK.match(row[j]) for row in body)
             for j, a in enumerate(align)]
    if not any(split):
        return headers, body, align

    def apart(row: list[str], heading: bool = False) -> list[str]:
        out = []
        for j, c in enumerate(row):
            if not split[j]:
                out.append(c)
                continue
            found = None if heading else _MARK.match(c)
            out += [found.group("cell"), found.group("mark")] if found else [c, ""]
        return out
    new_align = []
    for j, a in enumerate(align):
        new_align += ["mean", "marks"] if split[j] else [a]
    return apart(headers, True), [apart(row) for row in body], new_align


#: The formats ``--standalone`` makes a whole document of.
STANDALONE = ("latex", "html")

STYLES: dict[str, Style] = {"smart": Style(), "markdown": Markdown(), "latex": Latex(),
                            "html": Html()}


# --------------------------------------------------------------------------- tables

def _main(t: Table, s: Style, second: bool, digits: int):
    marks = t.marks()
    seconds = t.second

    def sup(m: list[int]) -> str:
        if not m:
            return ""
        sep = "," if any(len(t.symbols[i]) > 1 for i in m) and t.all_pairs else ""
        return s.sup(sep.join(s.symbol(t.symbols[i]) for i in m))
    shown = [[sup(marks[r][m]) for m in range(len(t.measures))] for r in range(len(t.runs))]
    # each column's widest mark (the one of most symbols) holds the room of every mark
    widest = []
    for m in range(len(t.measures)):
        sizes = [sum(len(t.symbols[i]) for i in marks[r][m]) for r in range(len(t.runs))]
        widest.append(shown[int(np.argmax(sizes))][m] if sizes else "")
    labels = [s.text(r) for r in t.runs]
    headers = ([""] if t.all_pairs else []) + [s.text("run")] + [s.text(m) for m in t.measures]
    body = []
    for r in range(len(t.runs)):
        row = [s.text(t.symbols[r])] if t.all_pairs else []
        row.append(labels[r])
        for m in range(len(t.measures)):
            cell = fixed(t.means[r, m], digits)
            if t.best[r, m]:
                cell = s.bold(cell)
            elif second and seconds[r, m]:
                cell = s.under(cell)
            if t.interval == "t":
                cell += s.PM + fixed((t.ci_high[r, m] - t.ci_low[r, m]) / 2, digits)
            elif t.interval == "bootstrap":
                cell += (" " + s.text(f"[{fixed(t.ci_low[r, m], digits)}, "
                                      f"{fixed(t.ci_high[r, m], digits)}]"))
            row.append(s.marked(cell, shown[r][m], widest[m]))
        body.append(row)
    align = (["left"] if t.all_pairs else []) + ["left"] + ["right"] * len(t.measures)
    return headers, body, align


def _pairs(t: Table, s: Style, digits: int):
    """Every comparison: the pair, the difference, Tukey's interval, ES_E, p (the
    statistic is in the data formats)."""
    tukey = t.test in ("tukey", "tukey-independent")
    headers = [s.text(h) for h in ("measure", "run", "other", "diff",
                                   *(["CI"] if tukey else []), "ES_E", "p", "p adjusted")]
    body = []
    for r in t.comparisons():
        body.append([s.text(r["measure"]), s.text(r["run"]), s.text(r["other"]),
                     fixed(r["diff"], digits),
                     *([s.text(f"[{fixed(r['ci_low'], digits)}, {fixed(r['ci_high'], digits)}]")]
                       if tukey else []),
                     fixed(r["es_e"], 2, UNDEFINED), p_text(r["p_value"], UNDEFINED),
                     p_text(r["p_adjusted"], UNDEFINED) + (" *" if r["significant"] else "")])
    return headers, body, ["left"] * 3 + ["right"] * (len(headers) - 3)


def _pairs_caption(t: Table, s: Style) -> str:
    return s.text(f"Every comparison: the difference of the means, run - other, over the "
                  f"queries of each measure; * where the adjusted p is below {t.alpha:g} "
                  f"({test_words(t)})")


def _wins(t: Table, s: Style):
    headers = [s.text("run"), s.text("against")] + [s.text(m) for m in t.measures]
    body = [[s.text(t.runs[a]), s.text(t.runs[b])]
            + [f"{t.wins[k, m, 0]}/{t.wins[k, m, 1]}/{t.wins[k, m, 2]}"
               for m in range(len(t.measures))]
            for k, (a, b) in enumerate(t.pairs.tolist())]
    return headers, body, ["left", "left"] + ["right"] * len(t.measures)


def _wins_caption(t: Table, s: Style) -> str:
    within = f" (within {t.tolerance:g})" if t.tolerance else ""
    return s.text(f"Queries where the run is better / equal{within} / worse than the one it "
                  f"is against, of {len(t.qids)} (Keen's Fig. 35)")


def _anova(t: Table, s: Style, digits: int):
    headers = [s.text(h) for h in ("measure", "source", "SS", "df", "MS", "F", "p",
                                   "\u03b7\u00b2", "\u03c9\u00b2")]
    def undefined(r: dict) -> str:      # an effect's F and p (the others have none)
        return UNDEFINED if r["source"] in ("system", "topic") else ""

    body = [[s.text(r["measure"]) if r["source"] == "system" else "", s.text(r["source"]),
             fixed(r["ss"], digits), str(r["df"]), fixed(r["ms"], digits),
             fixed(r["f"], 3, undefined(r)), p_text(r["p"], undefined(r)),
             fixed(r["eta2"], 3), fixed(r["omega2"], 3)]
            for r in t.anova_rows()]
    return headers, body, ["left", "left"] + ["right"] * 7


def _anova_caption(t: Table, s: Style) -> str:
    return s.text("Two-way ANOVA without replication of each measure, system (run) x topic "
                  "(query); "
                  "\u03b7\u00b2 and \u03c9\u00b2: the size of the runs' effect (eta- and "
                  "omega-squared; partial ones in -f "
                  f"{named([f for f in FORMATS if not is_table(f)], ',')})")


def _deltas(t: Table, b: int, s: Style, digits: int):
    others = [r for r in range(len(t.runs)) if r != b]
    headers = [s.text("query")] + [s.text(f"{t.runs[r]} {m}") for r in others
                                   for m in t.measures]
    body = [[s.text(q)] + [fixed(t.values[r, m, i] - t.values[b, m, i], digits)
                           for r in others for m in range(len(t.measures))]
            for i, q in enumerate(t.qids.tolist())]
    return headers, body, ["left"] + ["right"] * (len(headers) - 1)


# --------------------------------------------------------------------------- caption

def test_words(t: Table) -> str:
    """The test, its correction, the family and alpha, in words."""
    if t.test in ALL_PAIRS_TESTS:
        pairs = len(t.runs) * (len(t.runs) - 1) // 2
        over = f"over the {pairs} pair{'s' if pairs != 1 else ''} of each measure"
        how = {"tukey": f"Tukey's HSD on the residual variance of the two-way ANOVA, "
                        f"blocked by query, {over}",
               "randomized-tukey": f"randomised Tukey HSD {over}, "
                                   + ("every permutation of each query's scores" if t.exact
                                      else f"{t.samples} permutations of each query's "
                                           "scores"),
               "tukey-independent": f"Tukey's HSD over the runs as independent groups, "
                                    f"which ignores the pairing by query, {over}"}[t.test]
        if t.correction != "none":
            how += (f", then {CORRECTION_NAMES[t.correction]} correction over all "
                    f"{t.family} comparisons")
    else:
        how = f"two-sided {TEST_HELP[t.test]}"
        if t.test == "randomization":
            how += (", every sign assignment" if t.exact else
                    f", {t.samples} random sign assignments")
        elif t.test == "bootstrap":
            how += f", {t.samples} resamples"
        elif t.test == "wilcoxon":
            how += (f", differences within {t.tolerance:g} dropped, p exact below "
                    f"{WILCOXON_EXACT_BELOW} nonzero differences without ties, else normal "
                    "with tie and continuity corrections")
        how += (f", {CORRECTION_NAMES[t.correction]} correction over {t.family} comparison"
                + ("s" if t.family != 1 else ""))
    return f"{how}, \u03b1 = {t.alpha:g}"


def caption(t: Table, s: Style = STYLES["smart"], second: bool = False) -> str:
    """The caption line: what the numbers are, what each mark says, the test, correction,
    alpha and number of queries."""
    n = len(t.qids)
    parts = [s.text(f"Mean over {n} quer{'y' if n == 1 else 'ies'}")]
    fewer = [f"{m} {t.queries(i)}" for i, m in enumerate(t.measures) if t.queries(i) < n]
    if fewer:
        parts.append(s.text(" (fewer where a run has no value: " + ", ".join(fewer) + ")"))
    if t.interval == "t":
        parts.append(s.text(f" \u00b1 half the {t.confidence:.0%} t confidence interval"))
    elif t.interval == "bootstrap":
        parts.append(s.text(f" [{t.confidence:.0%} bootstrap percentile interval, "
                            f"{t.samples} resamples]"))
    parts.append(s.text("; best of each column ") + s.bold(s.text("in bold")))
    if second:
        parts.append(s.text(", second ") + s.under(s.text("underlined")))
    parts.append(s.text(". "))
    if len(t.runs) > 1:
        if t.all_pairs:
            parts.append(s.text("Superscript letters: the runs a run is significantly "
                                "better than"))
        else:
            parts.append("; ".join(s.sup(s.symbol(t.symbols[i])) + s.text(
                f": significantly better than {t.runs[b]}")
                for i, b in enumerate(t.baselines)))
        parts.append(s.text(f" ({test_words(t)})."))
    return "".join(parts).rstrip()


# --------------------------------------------------------------------------- data

def _data(t: Table, fmt: str, pairs: bool, wins: bool, deltas: bool, anova: bool) -> Rows:
    """The one table of ``-f tsv``/``csv``: the cells, or the table an option asks for."""
    chosen = chosen_table(fmt, {"--pairs": pairs, "--anova": anova, "--wins": wins,
                                "--deltas": deltas}, "cells")
    cols, rows = {
        "cells": (CELL_COLUMNS, [{**c, "better_than": ";".join(c["better_than"])}
                                 for c in t.cells()]),
        "--pairs": (COMPARISON_COLUMNS + (UNJUDGED_COLUMNS if t.unjudged else ()),
                    t.comparisons()),
        "--anova": (ANOVA_COLUMNS, t.anova_rows()),
        "--wins": (WIN_COLUMNS, t.win_counts()),
        "--deltas": (DELTA_COLUMNS, t.deltas())}[chosen]
    return cols, [[full(r[c]) for c in cols] for r in rows]


def _json(t: Table, second: bool, wins: bool, deltas: bool, anova: bool) -> dict:
    obj: dict = {
        "runs": [{"run": r, "path": p, **({"letter": t.symbols[i]} if t.all_pairs else {})}
                 for i, (r, p) in enumerate(zip(t.runs, t.paths, strict=True))],
        "measures": t.measures, "queries": len(t.qids), "test": t.test,
        "correction": t.correction, "alpha": t.alpha, "family": t.family,
        "interval": t.interval, "confidence": t.confidence,
        "baselines": [{"run": t.runs[b], "symbol": t.symbols[i]}
                      for i, b in enumerate(t.baselines)],
        "caption": caption(t, Plain(), second),
        "cells": t.cells(), "comparisons": t.comparisons()}
    if t.test in ("tukey", "randomized-tukey"):
        obj["needed"] = {m: float(c) for m, c in zip(t.measures, t.critical, strict=True)}
    if anova:
        obj["anova"] = t.anova_rows()
    if wins:
        obj["wins"] = t.win_counts()
    if deltas:
        obj["deltas"] = t.deltas()
    obj["notes"] = t.notes
    return obj
