"""Topic set sizes as text: Sakai's tables (a variance a row, a difference a column) in the
readable formats, one row per design as data (TSV, CSV, JSON)."""

from __future__ import annotations

from collections.abc import Sequence

from smarteval.render.formats import Rows, full, readable, tabulate_table, writable, written
from smarteval.stats.topicsets import Design

#: The formats of ``topics``: not trec_eval's (it has no such output).
FORMATS = writable(but=("trec",))

#: The columns of ``-f tsv``/``csv``: one row per design.
COLUMNS = ("label", "method", "variance", "diff", "alpha", "beta", "systems", "topics",
           "reached")

_WHAT = {"t": ("paired t-test", "minimum detectable difference"),
         "anova": ("one-way ANOVA", "minimum detectable range"),
         "ci": ("confidence interval of a difference", "expected width at most")}


def caption(designs: Sequence[Design], systems: int) -> str:
    d = designs[0]
    test, diff = _WHAT[d.method]
    words = f"Topics needed (Sakai 2016), {test}"
    if d.method == "anova":
        words += f" over {systems} systems"
    if d.method == "ci":
        words += f" at {1 - d.alpha:.0%} confidence"
    else:
        words += f", \u03b1 = {d.alpha:g}, \u03b2 = {d.beta:g} (power {1 - d.beta:g})"
    var = "\u03c3\u00b2 (the differences' variance taken as 2\u03c3\u00b2)" \
        if d.method != "anova" else "\u03c3\u00b2"
    return f"{words}; rows: the within-system variance {var}; columns: the {diff}"


def render_topics(designs: Sequence[Design], fmt: str, *, header: bool = True) -> str:
    """The designs in one of topics' formats (:data:`FORMATS`)."""
    return written(fmt, header=header, json=lambda: [d.row() for d in designs],
                   tables=lambda: _tables(designs),
                   table=lambda f: _sakai(designs, f))


def _tables(designs: Sequence[Design]) -> list[Rows]:
    """One row per design, at full precision."""
    return [(COLUMNS, [[full(d.row()[c]) for c in COLUMNS] for d in designs])]


def _sakai(designs: Sequence[Design], fmt: str) -> str:
    """Sakai's tables: one per number of systems, a variance a row, a difference a column."""
    out: list[str] = []
    for m in dict.fromkeys(d.systems for d in designs):
        group = [d for d in designs if d.systems == m]
        labels = list(dict.fromkeys(d.label for d in group))
        diffs = list(dict.fromkeys(d.diff for d in group))
        cell = {(d.label, d.diff): d.topics for d in group}
        named = any(d.label != f"{d.variance:g}" for d in group)
        head = ["measure", "\u03c3\u00b2"] if named else ["\u03c3\u00b2"]
        rows = []
        for label in labels:
            variance = next(d.variance for d in group if d.label == label)
            rows.append(([label, f"{variance:.4g}"] if named else [f"{variance:.4g}"])
                        + [str(cell[(label, x)]) for x in diffs])
        out += [*([""] if out else []), caption(group, m), "", tabulate_table(
            rows, head + [f"{x:g}" for x in diffs], fmt,
            ["left"] * len(head) + ["right"] * len(diffs))]
    return readable(fmt, out)
