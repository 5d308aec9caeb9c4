"""The table of a paper as text: LaTeX (booktabs), markdown, HTML, a plain table, and the
marks as data (TSV, CSV, JSON)."""

from __future__ import annotations

import html
import re

from smarteval.errors import UsageError
from smarteval.render.formats import Rows, fixed, full, tabulate_table, writable, written
from smarteval.stats.significance import ALL_PAIRS_TESTS, CORRECTION_NAMES, TEST_HELP
from smarteval.stats.table import Table

#: The columns of each data table of ``-f tsv``/``csv`` (and the keys of ``-f json``).
CELL_COLUMNS = ("run", "measure", "n", "mean", "ci_low", "ci_high", "rank", "best", "second",
                "marks", "better_than")
COMPARISON_COLUMNS = ("measure", "run", "other", "mean_run", "mean_other", "diff", "test",
                      "statistic", "p_value", "p_adjusted", "significant", "better")
WIN_COLUMNS = ("run", "other", "measure", "better", "equal", "worse")
DELTA_COLUMNS = ("baseline", "run", "measure", "query", "delta")
#: The formats of ``report``: every one but trec_eval's (it has no such output).
FORMATS = writable(but=("trec",))


def render_table(t: Table, fmt: str, *, second: bool = False, wins: bool = False,
                 deltas: bool = False, digits: int = 4, header: bool = True,
                 standalone: bool = False) -> str:
    """The table in one of report's formats; ``second`` underlines each column's second
    best, ``wins`` adds the win/tie/loss counts, ``deltas`` the per-query differences from
    each baseline; ``standalone`` makes LaTeX or HTML a whole document."""
    check_options(fmt, deltas=deltas, standalone=standalone, baselines=len(t.baselines))
    return written(fmt, header=header, json=lambda: _json(t, second, wins, deltas),
                   tables=lambda: _tables(t, wins, deltas),
                   table=lambda f: _styled(t, STYLES[f], second, wins, deltas, digits,
                                           standalone))


def _styled(t: Table, style: Style, second: bool, wins: bool, deltas: bool, digits: int,
            standalone: bool) -> str:
    """The table and its companions in a format for people, as ``style`` writes them."""
    out = [style.table(t, _main(t, style, second, digits), caption(t, style, second))]
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


def check_options(fmt: str, *, deltas: bool, standalone: bool, baselines: int) -> None:
    """Refuse rendering options that cannot apply (before any work, on the command line)."""
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
        return s

    def bold(self, s: str) -> str:
        return self.BOLD.format(s)

    def under(self, s: str) -> str:
        return self.UNDER.format(s)

    def sup(self, s: str) -> str:
        return self.SUP.format(s)

    def symbol(self, s: str) -> str:
        return s

    def note(self, s: str) -> str:
        return self.NOTE.format(s)

    def table(self, t: Table, rows: tuple[list[str], list[list[str]], list[str]],
              caption_text: str) -> str:
        headers, body, align = rows
        return caption_text + "\n\n" + tabulate_table(body, headers, self.name, align,
                                                      wrap=True)

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

    def text(self, s: str) -> str:
        return re.sub(r"([\\`*<>|])", r"\\\1", s)


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}"}
_LATEX_SYMBOLS = {"\u2020": r"\textdagger{}", "\u2021": r"\textdaggerdbl{}", "\u00a7": r"\S{}",
                  "\u00b6": r"\P{}", "\u2016": r"\textbardbl{}", "\u00b1": r"$\pm$",
                  "\u2013": "--", "\u03b1": r"$\alpha$"}


class Latex(Style):
    name = "latex"
    BOLD, UNDER, SUP = r"\textbf{{{}}}", r"\underline{{{}}}", r"\textsuperscript{{{}}}"
    PM, NOTE = r"\,$\pm$\,", "% Note: {}"

    def text(self, s: str) -> str:
        return "".join(_LATEX_ESCAPES.get(c, _LATEX_SYMBOLS.get(c, c)) for c in s)

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

    def join(self, parts: list[str]) -> str:
        return "% needs \\usepackage{booktabs}\n" + super().join(parts)

    def document(self, body: str) -> str:
        return ("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                + body + "\\end{document}\n")


class Html(Style):
    name = "html"
    BOLD, UNDER, SUP = "<b>{}</b>", "<u>{}</u>", "<sup>{}</sup>"
    _RULE = "border-bottom:1px solid"

    def text(self, s: str) -> str:
        return html.escape(s, quote=False)

    def note(self, s: str) -> str:
        return f"<!-- Note: {html.escape(s).replace('--', '- -')} -->"

    def table(self, t: Table, rows, caption_text: str) -> str:
        headers, body, align = rows

        def cells(tag: str, row: list[str]) -> str:
            return "".join(f'<{tag} style="padding:2px 8px;text-align:{a}">{c}</{tag}>'
                           for c, a in zip(row, align, strict=True))
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


#: The formats ``--standalone`` makes a whole document of.
STANDALONE = ("latex", "html")

STYLES: dict[str, Style] = {"smart": Style(), "markdown": Markdown(), "latex": Latex(),
                            "html": Html()}


# --------------------------------------------------------------------------- tables

def _main(t: Table, s: Style, second: bool, digits: int):
    marks = t.marks()
    seconds = t.second
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
            if marks[r][m]:
                sep = "," if any(len(t.symbols[i]) > 1 for i in marks[r][m]) and \
                    t.all_pairs else ""
                cell += s.sup(sep.join(s.symbol(t.symbols[i]) for i in marks[r][m]))
            row.append(cell)
        body.append(row)
    align = (["left"] if t.all_pairs else []) + ["left"] + ["right"] * len(t.measures)
    return headers, body, align


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
        how = f"Tukey's HSD over the {pairs} pairs of each measure"
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
        how += (f", {CORRECTION_NAMES[t.correction]} correction over {t.family} comparison"
                + ("s" if t.family != 1 else ""))
    return f"{how}, \u03b1 = {t.alpha:g}"


def caption(t: Table, s: Style = STYLES["smart"], second: bool = False) -> str:
    """The caption line: what the numbers are, what each mark says, the test, correction,
    alpha and number of queries."""
    n = len(t.qids)
    parts = [s.text(f"Mean over {n} quer{'y' if n == 1 else 'ies'}")]
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

def _tables(t: Table, wins: bool, deltas: bool) -> list[Rows]:
    tables: list[tuple[tuple[str, ...], list[dict]]] = [
        (CELL_COLUMNS, [{**c, "better_than": ";".join(c["better_than"])} for c in t.cells()]),
        (COMPARISON_COLUMNS, t.comparisons())]
    if wins:
        tables.append((WIN_COLUMNS, t.win_counts()))
    if deltas:
        tables.append((DELTA_COLUMNS, t.deltas()))
    return [(cols, [[full(r[c]) for c in cols] for r in rows]) for cols, rows in tables]


def _json(t: Table, second: bool, wins: bool, deltas: bool) -> dict:
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
    if wins:
        obj["wins"] = t.win_counts()
    if deltas:
        obj["deltas"] = t.deltas()
    obj["notes"] = t.notes
    return obj
