"""The output formats: one registry for every ``--format`` choice, the man page and renderers."""

from __future__ import annotations

import io
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from smarteval.errors import printable
from smarteval.records import record


@record(frozen=True)
class Format:
    """An output format: its ``--format`` name and, in a few words, what it is (``--help``
    of every command lists each of its formats so), and what it can do: every renderer,
    reader and help text asks these instead of naming formats."""

    name: str
    help: str
    table: bool          # a table for people (smart, markdown, latex) rather than data
    tablefmt: str = ""   # tabulate's name for it, for tables
    #: data of one table only (columns, then rows of text cells): a renderer whose
    #: options ask for two tables refuses it (:func:`chosen_table`)
    one_table: bool = False
    #: written as it comes, a few thousand queries at a time (evaluate's long outputs)
    streams: bool = False
    #: its values keep their types (numbers, null, text) and nest: one output holds
    #: every table a renderer has
    typed: bool = False
    #: read back as evaluation results: the summaries ``correlate`` reads
    reads_back: bool = False
    #: read back to the last digit: per-query values a stored baseline
    #: (``--baseline-results``) is compared as
    exact: bool = False


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("smart", "plain text", True, "simple"),
    Format("trec", "trec_eval's own output, byte for byte", False, streams=True,
           reads_back=True),
    Format("tsv", "tab-separated, nothing quoted", False, one_table=True, streams=True,
           reads_back=True, exact=True),
    Format("csv", "comma-separated, quoted as needed", False, one_table=True, streams=True,
           reads_back=True, exact=True),
    Format("json", 'full precision, null where undefined, "inf" and "-inf" for infinities',
           False, typed=True, reads_back=True, exact=True),
    Format("markdown", "GitHub's tables", True, "github"),
    Format("latex", "booktabs", True, "latex_booktabs"),
    Format("html", "self-contained", True, "html"),
)}


def having(capability: str, among: Iterable[str] | None = None) -> tuple[str, ...]:
    """The formats (of ``among``, else of the registry) that have ``capability``, a
    field of :class:`Format`, in the registry's order."""
    names = FORMATS if among is None else among
    return tuple(n for n in names if getattr(FORMATS[n], capability))


def words() -> dict[str, str]:
    """The formats of each capability in words, for help texts (:func:`described`):
    ``one_table`` "tsv and csv", ``one_table_or`` "tsv or csv", ``one_table_list``
    "tsv, csv", ``typed`` "json", ``exact`` "tsv, csv or json", ``reads_back``
    "trec, tsv, csv or json", ``data`` every data format but trec's own, "tsv, csv and
    json"."""
    one = having("one_table")
    data = tuple(n for n, f in FORMATS.items() if not f.table and (f.one_table or f.typed))
    return {"one_table": named(one), "one_table_or": named(one, "or"),
            "one_table_list": named(one, ","), "typed": named(having("typed"), "or"),
            "exact": named(having("exact"), "or"), "reads_back": named(having("reads_back"), "or"),
            "data": named(data)}


def described(func: Callable) -> Callable:
    """``func`` (a command) with the ``{capability}`` fields of its docstring filled in
    from :func:`words`: its help names the registry's formats."""
    func.__doc__ = (func.__doc__ or "").format(**words())
    return func


def named(names: Sequence[str], last: str = "and") -> str:
    """Format names in words, ``last`` before the last: "tsv and csv", "tsv, csv or
    json"; ``last=","`` lists them all with commas ("tsv, csv")."""
    names = list(names)
    if last == "," or len(names) < 2:
        return ", ".join(names)
    return f"{', '.join(names[:-1])} {last} {names[-1]}"


def writable(*, but: Iterable[str] = ()) -> tuple[str, ...]:
    """The formats a renderer writes: every format of :data:`FORMATS` but those it names.

    Each renderer declares its formats so, and a command's ``--format`` choices are its
    renderer's: a format added to the registry is offered by every command at once, and
    tests/test_formats.py, which runs every command in every format it offers, fails
    until each renderer writes it (or names it here, saying why not).
    """
    but = tuple(but)
    unknown = sorted(set(but) - set(FORMATS))
    if unknown:
        raise ValueError(f"not formats of the registry: {', '.join(unknown)}")
    return tuple(name for name in FORMATS if name not in but)


def format_help(formats: Sequence[str], more: str = "") -> str:
    """The help of a command's ``--format``: each of ``formats`` with the registry's words
    for it, then ``more`` (what the command writes in one of them)."""
    text = "Output format: " + ", ".join(f"{n} ({FORMATS[n].help})" for n in formats) + "."
    return f"{text} {more}" if more else text


def is_table(fmt: str) -> bool:
    return FORMATS[fmt].table


#: The rows of one table of text cells, and its column names (for TSV and CSV).
Rows = tuple[Sequence[str], Iterable[Sequence[str]]]


def written(fmt: str, *, json: Callable[[], Any], tables: Callable[[], Iterable[Rows]],
            table: Callable[[str], str], header: bool = True, json_ready: bool = False
            ) -> str:
    """A result in ``fmt``: the dispatch every renderer shares, so that each writes only
    its own pieces.

    ``json()`` is the object of ``-f json`` (made JSON-safe by :func:`json_safe` unless
    ``json_ready``: then it holds only Python numbers, finite floats, None, strings,
    lists and dicts, its non-finite floats written by :func:`json_number`); ``tables()``
    the table of a format of one table (:attr:`Format.one_table`: column names and rows
    of text cells), which pandas, a database or ``sort`` reads as it comes (a
    renderer whose options ask for another table gives that one instead);
    ``table(fmt)`` the text of a format for people (:attr:`Format.table`).
    """
    f = FORMATS[fmt]
    if f.typed and fmt == "json":
        import json as _json
        obj = json()
        return _json.dumps(obj if json_ready else json_safe(obj), indent=2,
                           allow_nan=False) + "\n"
    if f.one_table:
        given = list(tables())
        if len(given) != 1:
            raise ValueError(f"-f {fmt} writes one table, not {len(given)}")
        (columns, rows), = given
        return delimited(columns, rows, fmt, header)
    if FORMATS[fmt].table:
        return table(fmt)
    raise ValueError(f"-f {fmt}: no writer for this format here")


#: What each format escapes in text: a character (or its context) and what stands for it.
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}"}
_LATEX_SYMBOLS = {"\u2020": r"\textdagger{}", "\u2021": r"\textdaggerdbl{}", "\u00a7": r"\S{}",
                  "\u00b6": r"\P{}", "\u2016": r"\textbardbl{}", "\u00b1": r"$\pm$",
                  "\u2013": "--", "\u03b1": r"$\alpha$"}
#: Markdown's characters that would make markup: backslash, code, emphasis, a table's
#: cell rule, links, strikethrough, math; ``<`` opening a tag or an autolink, ``&`` an
#: entity, ``>`` or ``#`` opening a line (a quote, a heading); ``_`` but inside a word
#: (where it never emphasizes).
_MARKDOWN = re.compile(r"[\\`*|\[\]~$]|<(?=[A-Za-z/!?])|&(?=[A-Za-z#])|^[>#]"
                       r"|(?<![^\W_])_|_(?![^\W_])")


def _latex(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(c, _LATEX_SYMBOLS.get(c, c)) for c in text)


def _markdown(text: str) -> str:
    return _MARKDOWN.sub(lambda m: "\\" + m.group(), text)


def _html(text: str) -> str:
    import html
    return html.escape(text, quote=True)


#: The one escaping of each format for people that has markup (``smart`` has none): every
#: renderer writes text (a run's name, a query id, a docno, a caption) through it, by
#: :func:`escaped`.
ESCAPES: dict[str, Callable[[str], str]] = {"latex": _latex, "markdown": _markdown,
                                             "html": _html}


def escaped(fmt: str, text: str) -> str:
    """``text`` as ``fmt`` writes it to mean itself: a control character shown, never
    obeyed by the terminal (as a message shows it, :func:`smarteval.errors.printable`),
    then the format's markup characters escaped."""
    escape = ESCAPES.get(fmt)
    return escape(printable(text)) if escape else printable(text)


class Markup(str):
    """Text already in a format's markup (a table :func:`tabulate_table` wrote, a
    renderer's own piece): :func:`readable` writes it as it is."""


def readable(fmt: str, parts: Iterable[str]) -> str:
    """The text of a format for people from a renderer's pieces, one line of text each
    (escaped by :func:`escaped`), or :class:`Markup` (written as it is), an empty piece a
    blank line. Under ``html`` each paragraph (the lines between blank lines) of text
    becomes a ``<p>`` (its lines kept apart), so the page reads as the plain text does."""
    if fmt != "html":
        return "".join((p if isinstance(p, Markup) else "\n".join(
            escaped(fmt, line) for line in p.split("\n"))) + "\n" for p in parts)
    out: list[str] = []
    paragraph: list[str] = []
    for p in [*parts, ""]:
        if isinstance(p, Markup) or not p.strip():
            if paragraph:
                out.append("<p>" + "<br>\n".join(paragraph) + "</p>")
            paragraph = []
            if isinstance(p, Markup) and p.strip():
                out.append(p.strip("\n"))
        else:
            paragraph += [escaped(fmt, line) for line in p.split("\n")]
    return "\n".join(out) + "\n"


#: The width a plain-text table is wrapped at when the terminal's is unknown (a file, a pipe).
WIDTH = 100


def table_width() -> int:
    """The width plain-text tables wrap at: ``COLUMNS``, the terminal's, or :data:`WIDTH`."""
    import shutil
    return max(shutil.get_terminal_size((WIDTH, 24)).columns, 40)


def tabulate_table(rows: Sequence[Sequence[str]], headers: Sequence[str], fmt: str,
                   colalign: Sequence[str] | None = None, *, wrap: bool = False,
                   keep: int = 1, width: int | None = None, markup: bool = False) -> Markup:
    """Text cells as a table in a table format (smart, markdown, latex, html), each cell
    and heading escaped by :func:`escaped` (``markup``: they are in the format's markup
    already).

    With ``wrap`` (tables with a column per run or per measure, which grow with the
    input), a ``smart`` (plain text) table wider than ``width`` (default
    :func:`table_width`) has its columns cut into blocks that fit, one below the other,
    each repeating the first ``keep`` columns (the row labels). Markdown and LaTeX tables
    are never wrapped (their readers lay them out).
    """
    from tabulate import tabulate
    if not markup:
        rows = [[escaped(fmt, c) for c in row] for row in rows]
        headers = [escaped(fmt, h) for h in headers]
    tablefmt = _unescaping(FORMATS[fmt].tablefmt)

    def table(cols: Sequence[int]) -> str:
        return tabulate([[row[c] for c in cols] for row in rows],
                        headers=[headers[c] for c in cols], tablefmt=tablefmt,
                        disable_numparse=True,
                        colalign=None if colalign is None else [colalign[c] for c in cols])

    def wide(cols: Sequence[int]) -> int:
        return max((len(line) for line in table(cols).splitlines()), default=0)

    every = list(range(len(headers)))
    width = table_width() if width is None else width
    if not wrap or fmt != "smart" or len(every) <= keep + 1 or wide(every) <= width:
        return Markup(table(every))
    labels = every[:keep]
    blocks: list[list[int]] = [[]]
    for c in every[keep:]:              # as many columns a block as fit (at least one)
        if blocks[-1] and wide(labels + blocks[-1] + [c]) > width:
            blocks.append([])
        blocks[-1].append(c)
    return Markup("\n\n".join(table(labels + block) for block in blocks))


def _unescaping(tablefmt: str):
    """Tabulate's format ``tablefmt`` leaving its cells as given (they are escaped by
    :func:`escaped`, not by tabulate's own rules): ``html``'s unescaped twin, and
    booktabs' lines around the rows of ``latex_raw``."""
    if tablefmt == "html":
        return "unsafehtml"
    if tablefmt.startswith("latex"):
        from tabulate import _table_formats
        raw = _table_formats["latex_raw"]
        return _table_formats[tablefmt]._replace(headerrow=raw.headerrow, datarow=raw.datarow)
    return tablefmt


def delimited(columns: Sequence[str], rows: Iterable[Sequence[str]], fmt: str,
              header: bool = True) -> str:
    """Rows of text cells as TSV (tab-joined, nothing quoted) or CSV (quoted as needed)."""
    return "".join(delimited_pieces(columns, rows, fmt, header))


#: Rows of TSV or CSV made into one piece of text at a time (:func:`delimited_pieces`).
PIECE_ROWS = 1 << 16


def delimited_pieces(columns: Sequence[str], rows: Iterable[Sequence[str]], fmt: str,
                     header: bool = True) -> Iterator[str]:
    """:func:`delimited`'s text, :data:`PIECE_ROWS` rows at a time."""
    rows = iter(rows)
    first = True
    while True:
        block = list(itertools.islice(rows, PIECE_ROWS))
        if not block and not first:
            return
        buf = io.StringIO()
        if fmt == "tsv":
            if header and first:
                buf.write("\t".join(columns) + "\n")
            buf.writelines("\t".join(row) + "\n" for row in block)
        elif fmt == "csv":
            import csv  # CSV alone needs it
            writer = csv.writer(buf, lineterminator="\n")
            if header and first:
                writer.writerow(columns)
            writer.writerows(block)
        else:
            raise ValueError(f"-f {fmt}: no writer for this format's table here")
        first = False
        yield buf.getvalue()
        if not block:
            return


def fixed(v, digits: int = 4, undefined: str = "") -> str:
    """A number for a table: integers as they are, floats to ``digits`` places."""
    import numpy as np
    if v is None:
        return undefined
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else ""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return undefined
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}f}"
    return str(v)


def full(v, undefined: str = "") -> str:
    """A value at full precision for TSV and CSV (``undefined`` for None or NaN)."""
    import numpy as np
    if v is None:
        return undefined
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return undefined if math.isnan(v) else repr(v)
    return str(v)


#: How JSON, which has neither NaN nor infinities, writes them: every command's rule.
JSON_INFINITIES = {math.inf: "inf", -math.inf: "-inf"}


def json_number(v: float) -> float | str | None:
    """A float as every command's JSON writes it: itself where finite, null where
    undefined (NaN), and the strings ``"inf"`` and ``"-inf"`` for the infinities (as TSV
    and CSV write them), so that a reader tells +inf from -inf and both from undefined."""
    v = float(v)
    if math.isfinite(v):
        return v
    return None if math.isnan(v) else JSON_INFINITIES[v]


def json_safe(obj):
    """JSON has no NaN or inf: :func:`json_number`'s rule; numpy scalars become Python
    ones."""
    import numpy as np
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return json_number(obj)
    if isinstance(obj, np.str_):
        return str(obj)
    return obj


def chosen_table(fmt: str, asked: dict[str, bool], default: str) -> str:
    """Which one table a format of one table (:attr:`Format.one_table`) writes: the one
    an option asks for (``asked``: option -> given), else ``default``; two options asking
    for two tables are refused (:func:`written` writes one)."""
    given = [option for option, on in asked.items() if on]
    if FORMATS[fmt].one_table and len(given) > 1:
        from smarteval.errors import UsageError
        every = " or ".join(f"-f {n}" for n in having("typed"))
        raise UsageError(f"{' and '.join(given)}: -f {fmt} writes one table; give one of "
                         f"them (or {every}, which holds every table)")
    return given[0] if given else default
