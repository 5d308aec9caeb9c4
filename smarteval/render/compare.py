"""The compare report as text: readable tables (smart, markdown, latex), TSV/CSV rows or JSON."""

from __future__ import annotations

import math

from smarteval.render.formats import (
    Rows,
    chosen_table,
    fixed,
    full,
    readable,
    tabulate_table,
    writable,
    written,
)
from smarteval.stats.merit import UNJUDGED_COLUMNS
from smarteval.stats.report import Report
from smarteval.stats.significance import CORRECTION_NAMES

#: The formats of ``compare``: not trec_eval's (it has no such output).
FORMATS = writable(but=("trec",))

#: The columns of ``-f tsv``/``csv`` (and of each comparison of ``-f json``): one row per
#: (run, measure, test). ``mean_baseline`` and ``mean_run`` are the means over the queries
#: compared; ``effect`` is Cohen's d_z, ``g_av`` Hedges' g_av; ``method`` how the p-value was
#: computed where a test has more than one way (wilcoxon: exact or normal; else empty).
COLUMNS = ("baseline", "run", "measure", "n", "better", "worse", "equal", "mean_baseline",
           "mean_run", "mean_diff", "ci_low", "ci_high", "effect", "g_av", "test",
           "method", "statistic", "p_value", "p_adjusted", "significant")


def render_report(rep: Report, fmt: str, *, show_magnitudes: bool = False,
                  header: bool = True) -> str:
    """The report in one of compare's formats (:data:`FORMATS`)."""
    return written(fmt, header=header, json=lambda: _json(rep),
                   tables=lambda: _tables(rep, fmt, show_magnitudes),
                   table=lambda f: _render_table(rep, f, show_magnitudes))


def _render_table(rep: Report, fmt: str, show_magnitudes: bool) -> str:
    out = []
    corr = CORRECTION_NAMES[rep.correction]
    if rep.rows:
        n_pairs = len(rep.merit)
        out.append(f"Baseline {rep.baseline}: differences are run - baseline; {corr} correction"
                   f" over {n_pairs} comparison{'s' if n_pairs != 1 else ''} per test; "
                   f"* adjusted p < {rep.alpha:g}; {rep.confidence:.0%} confidence interval")
        out.append("")
        rows = [[r["run"], r["measure"], str(r["n"]), fixed(r["mean_baseline"]),
                 fixed(r["mean_run"]), fixed(r["mean_diff"]),
                 f"[{fixed(r['ci_low'])}, {fixed(r['ci_high'])}]",
                 fixed(r["effect"], 2, UNDEFINED),
                 r["test"] + (f" ({r['method']})" if r.get("method") else ""),
                 fixed(r["statistic"], 3, UNDEFINED), p_text(r["p_value"], UNDEFINED),
                 p_text(r["p_adjusted"], UNDEFINED) + (" *" if r["significant"] else "")]
                for r in rep.rows]
        out.append(tabulate_table(rows, ["run", "measure", "n", "baseline", "run", "diff", "CI",
                                         "effect", "test", "statistic", "p", "p adjusted"], fmt,
                                  ("left", "left") + ("right",) * 6 + ("left",)
                                  + ("right",) * 3))
        out.append("")
    out.append("Queries better / worse / equal for the run (Keen Fig. 35: percentages, "
               "superiority in brackets)")
    out.append("")
    rows = []
    for m in rep.merit:
        p = m["percentages"]
        ig, inc, add = p["ignoring_equal"], p["including_equal"], p["adding_equal"]
        rows.append([m["run"], m["measure"], str(m["better"]), str(m["worse"]), str(m["equal"]),
                     f"{_pct(ig['better'])}/{_pct(ig['worse'])} ({_sup(ig)})",
                     f"{_pct(inc['better'])}/{_pct(inc['worse'])}/{_pct(inc['equal'])} "
                     f"({_sup(inc)})",
                     f"{_pct(add['better'])}/{_pct(add['worse'])} ({_sup(add)})"])
    out.append(tabulate_table(rows, ["run", "measure", "better", "worse", "equal",
                                     "ignoring equal", "including equal", "equal added to both"],
                              fmt, ("left", "left") + ("right",) * 6))
    if show_magnitudes:
        for mg in rep.magnitudes:
            out.append("")
            out.append(f"Magnitudes of the differences, {mg['run']} vs {rep.baseline} on "
                       f"{mg['measure']} (Keen Fig. 36), largest first")
            out.append("")
            rows = []
            for i in range(max(len(mg["better"]), len(mg["worse"]))):
                b = mg["better"][i] if i < len(mg["better"]) else ("", None)
                w = mg["worse"][i] if i < len(mg["worse"]) else ("", None)
                rows.append([str(i + 1), b[0], fixed(b[1]), w[0], fixed(w[1])])
            out.append(tabulate_table(rows, ["#", f"{mg['run']} better", "by",
                                             f"{rep.baseline} better", "by"], fmt,
                                      ("right", "left", "right", "left", "right")))
    if rep.selection is not None:
        s = rep.selection
        out.append("")
        out.append(f"Selection of the best run (Joiner & Werner): one point per query at each "
                   f"cut-off 1..{s['depth']} of {s['measure']} over {s['queries']} queries, "
                   f"{s['total']} points")
        out.append("")
        rows = [[r["run"], str(r["points"]), f"{r['p']:.3f}",
                 "best" if r["run"] == s["best"] else ""] for r in s["runs"]]
        out.append(tabulate_table(rows, ["run", "points", "p", ""], fmt,
                                  ("left", "right", "right", "left")))
        out.append("")
        how = "exact" if s["pcs_method"] == "exact" else \
            f"simulated, standard error {s['pcs_se']:.4f}"
        out.append(f"Probability of correct selection (Bechhofer) when p_best/p_second >= "
                   f"{s['theta']:g}: {_prob(s['pcs'])} ({how})")
        out.append(f"Observed p_best/p_second: {fixed(s['observed_ratio'], 2)}")
        out.append(f"Caveat: {s['caveat']}")
    if rep.correlation is not None:
        out.append("")
        out.append(f"Rank correlation with {rep.baseline}'s ordering of the documents both "
                   "retrieved, averaged over queries")
        out.append("")
        rows = [[c["run"], str(c["queries"]), fixed(c["common"], 1), fixed(c["kendall"]),
                 fixed(c["spearman"]), fixed(c["pearson"]), fixed(c["tau_ap"])]
                for c in rep.correlation]
        out.append(tabulate_table(rows, ["run", "queries", "shared docs", "Kendall tau",
                                         "Spearman", "Pearson", "tau-AP"], fmt,
                                  ("left",) + ("right",) * 6))
    if rep.notes:
        out.append("")
        out.extend(f"Note: {n}" for n in rep.notes)
    return readable(fmt, out)


#: A statistic, an effect size or a p-value that is undefined (0/0), as the tables print it
#: (the notes say why).
UNDEFINED = "undefined"


def p_text(v, undefined: str = "") -> str:
    """A p-value to four places, or in scientific notation below 1e-4; ``undefined`` if
    undefined."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return undefined
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


def _pct(v) -> str:
    return "-" if v is None else f"{v:.0f}"


def _prob(p: float) -> str:
    """A probability to four places; one within 1e-4 of 1 also shows how far it is from 1."""
    if p >= 0.9999 and p < 1.0:
        return f"{p:.4f} (1 - {1.0 - p:.1e})"
    return f"{p:.4f}"


def _sup(row) -> str:
    s = row["superiority"]
    if s is None:
        return "-"
    whole = round(s)
    return "0" if whole == 0 else f"{whole:+d}"     # no "-0" (nor "+0") for a rounded 0


def _columns(rep: Report) -> tuple[str, ...]:
    """The comparison columns, with the unjudged documents' interval under --unjudged range."""
    return COLUMNS + UNJUDGED_COLUMNS if rep.unjudged else COLUMNS


def check_options(fmt: str, *, magnitudes: bool, select: bool, tau: bool) -> None:
    """Refuse, before any work, two options that each ask -f tsv or csv for a table of
    their own (those formats write one table)."""
    chosen_table(fmt, {"--magnitudes": magnitudes, "--select": select, "--tau": tau},
                 "comparisons")


def _tables(rep: Report, fmt: str, show_magnitudes: bool) -> list[Rows]:
    """The one table of ``-f tsv``/``csv``: the comparison rows, or the table of
    --magnitudes, --select or --tau."""
    chosen = chosen_table(fmt, {"--magnitudes": show_magnitudes,
                                "--select": rep.selection is not None,
                                "--tau": rep.correlation is not None}, "comparisons")
    tables: list[tuple[list[str], list[list]]] = []
    if chosen == "comparisons":
        tables.append((list(_columns(rep)), [[r[c] for c in _columns(rep)] for r in rep.rows]))
    if chosen == "--magnitudes":
        rows = []
        for mg in rep.magnitudes:
            for side in ("better", "worse"):
                for i, (q, v) in enumerate(mg[side]):
                    rows.append([rep.baseline, mg["run"], mg["measure"], side, i + 1, q, v])
        tables.append((["baseline", "run", "measure", "side", "position", "query",
                        "difference"], rows))
    if chosen == "--select" and rep.selection is not None:
        s = rep.selection
        tables.append((["run", "points", "p", "best", "measure", "depth", "total", "theta",
                        "pcs", "pcs_method"],
                       [[r["run"], r["points"], r["p"], r["run"] == s["best"], s["measure"],
                         s["depth"], s["total"], s["theta"], s["pcs"], s["pcs_method"]]
                        for r in s["runs"]]))
    if chosen == "--tau" and rep.correlation is not None:
        cols = ["baseline", "run", "queries", "common", "kendall", "spearman", "pearson", "tau_ap"]
        tables.append((cols, [[c[k] for k in cols] for c in rep.correlation]))
    # values at full precision
    return [(h, [[full(v) for v in row] for row in rows]) for h, rows in tables]


def _json(rep: Report) -> dict:
    obj = {
        "baseline": rep.baseline, "measures": rep.measures, "tests": rep.tests,
        "correction": rep.correction, "alpha": rep.alpha, "confidence": rep.confidence,
        "comparisons": [{k: r[k] for k in _columns(rep)} for r in rep.rows],
        "merit": rep.merit,
        "magnitudes": [{**m, "better": [{"query": q, "difference": v} for q, v in m["better"]],
                        "worse": [{"query": q, "difference": v} for q, v in m["worse"]]}
                       for m in rep.magnitudes],
    }
    if rep.selection is not None:
        obj["selection"] = rep.selection
    if rep.correlation is not None:
        obj["correlation"] = rep.correlation
    obj["notes"] = rep.notes
    return obj
