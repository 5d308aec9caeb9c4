"""Discriminative power as text: a table of measures (readable formats), and every pair's
achieved significance level as data (TSV, CSV, JSON)."""

from __future__ import annotations

from collections.abc import Sequence

from smarteval.render.compare import p_text
from smarteval.render.formats import (
    Rows,
    fixed,
    full,
    readable,
    tabulate_table,
    writable,
    written,
)
from smarteval.stats.discpower import DISCPOWER_TESTS, Discpower
from smarteval.stats.significance import CORRECTION_NAMES

#: The formats of ``discpower``: not trec_eval's (it has no such output).
FORMATS = writable(but=("trec",))
#: The columns of the summary (one row a measure) and of the pairs (one row a pair).
SUMMARY_COLUMNS = ("measure", "test", "correction", "alpha", "queries", "pairs", "significant",
                   "share", "needed")
PAIR_COLUMNS = ("measure", "run", "other", "diff", "asl", "significant")


def describe(results: Sequence[Discpower]) -> str:
    """The caption: the test, the correction, alpha, how many runs and pairs."""
    first = results[0]
    how = DISCPOWER_TESTS[first.test].split(", then")[0]
    if first.test == "randomized-tukey":
        how += ", every permutation" if first.exact else f", {first.samples} permutations"
    elif first.test == "bootstrap":
        how += f", {first.samples} resamples of the queries"
    elif first.test == "randomization":
        how += ", every sign assignment" if first.exact else \
            f", {first.samples} random sign assignments"
    if first.correction != "none":
        how += f", {CORRECTION_NAMES[first.correction]} correction over the pairs"
    runs, pairs = len(first.runs), len(first.asl)
    return (f"Discriminative power: the pairs of {runs} runs ({pairs} pair"
            f"{'s' if pairs != 1 else ''}) each measure tells apart, {how}, "
            f"\u03b1 = {first.alpha:g}; needed: the estimated difference of means a pair "
            "needs to be significant")


def render_discpower(results: Sequence[Discpower], fmt: str, *, pairs: bool = False,
                     digits: int = 4, header: bool = True) -> str:
    """The results in one of discpower's formats (:data:`FORMATS`); ``pairs`` adds every
    pair's ASL to the readable formats, and is the one table of TSV and CSV instead of
    the measures' (JSON always has both)."""
    return written(fmt, header=header, json=lambda: _json(results),
                   tables=lambda: _tables(results, pairs),
                   table=lambda f: _table(results, f, pairs, digits))


def _json(results: Sequence[Discpower]) -> dict:
    return {"caption": describe(results),
            "measures": [{**r.summary(), "exact": r.exact, "samples": r.samples,
                          "pairs": r.rows(), "notes": r.notes} for r in results]}


def _tables(results: Sequence[Discpower], pairs: bool) -> list[Rows]:
    """The one table of ``-f tsv``/``csv``, at full precision: the measures, or with
    ``pairs`` every pair."""
    cols: tuple[str, ...] = PAIR_COLUMNS if pairs else SUMMARY_COLUMNS
    table = [row for r in results for row in r.rows()] if pairs else \
        [r.summary() for r in results]
    return [(cols, [[full(x[c]) for c in cols] for x in table])]


def _table(results: Sequence[Discpower], fmt: str, pairs: bool, digits: int) -> str:
    summaries = [r.summary() for r in results]
    out = [describe(results), "",
           tabulate_table([[s["measure"], str(s["queries"]),
                            f"{s['significant']} of {s['pairs']}",
                            fixed(100 * s["share"], 1) + "%", fixed(s["needed"], digits)]
                           for s in summaries],
                          ["measure", "queries", "significant", "share", "needed"], fmt,
                          ("left", "right", "right", "right", "right"))]
    if pairs:
        rows = [row for r in results for row in r.rows()]
        out += ["", "Achieved significance level of every pair (diff: run - other)", "",
                tabulate_table([[r["measure"], r["run"], r["other"], fixed(r["diff"], digits),
                                 p_text(r["asl"]) + (" *" if r["significant"] else "")]
                                for r in rows], ["measure", "run", "other", "diff", "ASL"],
                               fmt, ("left", "left", "left", "right", "right"))]
    notes = [n for r in results for n in r.notes]
    if notes:
        out += [""] + [f"Note: {n}" for n in notes]
    return readable(fmt, out)
