"""The compare and correlate commands: which run is better, by how much, and how sure we are."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass, field

import click
import numpy as np

# cli.py imports this module at its end to register the commands, after the shared pieces
# below are defined; import smarteval.cli (or the smarteval entry point) first
from smarteval.cli import (CONTEXT, TABLE_FORMATS, output_options, reports_errors,
                           trec_options, write_output)
from smarteval.compare import CORRECTIONS, TESTS

FORMATS = TABLE_FORMATS

#: The columns of ``-f tsv``/``csv``: one row per (run, measure, test).
COLUMNS = ("baseline", "run", "measure", "n", "better", "worse", "equal", "mean_diff",
           "ci_low", "ci_high", "effect", "test", "statistic", "p_value", "p_adjusted",
           "significant")


# --------------------------------------------------------------------------- option parsing

def _parse_tests(values: tuple[str, ...]) -> list[str]:
    from smarteval.errors import UsageError
    out: list[str] = []
    bad: list[str] = []
    for v in values:
        for t in v.replace(",", " ").split():
            if t not in TESTS:
                bad.append(t)
            elif t not in out:
                out.append(t)
    if bad:
        raise UsageError(f"unknown test{'s' if len(bad) > 1 else ''} {', '.join(map(repr, bad))}: "
                         f"--test takes {', '.join(TESTS)}")
    return out


def _select_request(name: str, depth: int):
    """The request for the --select measure at every cut-off 1..depth."""
    from smarteval.errors import UsageError
    from smarteval.registry import ALIASES, Request, all_measures
    measures = all_measures()
    m = measures.get(name)
    if m is None and name in ALIASES and ALIASES[name][1] in measures:
        m = measures[ALIASES[name][1]]
    if m is None:
        raise UsageError(f"unknown --select-measure {name!r}: give a measure with cut-offs, "
                         "such as jw_prob, P or recall ('smarteval measures' lists them)")
    if m.params != "cutoffs":
        raise UsageError(f"--select-measure {name!r} has no document cut-offs: give one that "
                         "does, such as jw_prob, P or recall (the cut-offs are 1..--depth)")
    return Request(m, tuple(range(1, depth + 1)))


def _comparable(out) -> bool:
    m = out.measure
    return m.value != "str" and m.per_query and m.average not in ("tag", "count", "none")


# --------------------------------------------------------------------------- the comparison

@dataclass
class Report:
    """Everything ``compare`` found, ready for rendering."""

    baseline: str
    measures: list[str]
    tests: list[str]
    correction: str
    alpha: float
    confidence: float
    rows: list[dict] = field(default_factory=list)
    merit: list[dict] = field(default_factory=list)
    magnitudes: list[dict] = field(default_factory=list)
    mags: list = field(default_factory=list)          # compare.Magnitudes, for --plot
    selection: dict | None = None
    correlation: list[dict] | None = None
    notes: list[str] = field(default_factory=list)


def build_report(evaluations, names: list[str], *, tests: list[str], correction: str,
                 alpha: float, confidence: float, samples: int, seed: int | None,
                 tolerance: float, complete: bool, select_names: list[str] | None = None,
                 select_name: str = "", theta: float = 1.5, tau: bool = False) -> Report:
    """Compare every evaluation after the first against the first (the baseline)."""
    from smarteval import compare as C
    from smarteval.errors import UsageError

    base, runs = evaluations[0], evaluations[1:]
    rep = Report(baseline=base.name, measures=list(names), tests=list(tests),
                 correction=correction, alpha=alpha, confidence=confidence)
    pairs = []                                     # (run, measure, base values, run values, qids)
    for ev in runs:
        ids, bi, ri = C.align(base.qids, ev.qids)
        if len(ids) == 0:
            raise UsageError(f"run {ev.name} ({ev.path}) shares no query with the baseline "
                             f"{base.name} ({base.path})")
        left_b, left_r = len(base.qids) - len(ids), len(ev.qids) - len(ids)
        if left_b or left_r:
            rep.notes.append(
                f"{ev.name}: {len(ids)} queries paired; left out {left_b} only in the baseline"
                f" and {left_r} only in {ev.name}"
                + ("" if complete else " (-c scores a query missing from a run as 0)"))
        for name in names:
            pairs.append((ev.name, name, base.per_query[name][bi], ev.per_query[name][ri], ids))

    for run, name, b, r, ids in pairs:
        mt = C.merit(b, r, tolerance)
        rep.merit.append({"baseline": base.name, "run": run, "measure": name, "n": mt.n,
                          "better": mt.better, "worse": mt.worse, "equal": mt.equal,
                          "mean_baseline": float(np.mean(b)), "mean_run": float(np.mean(r)),
                          "percentages": mt.percentages()})
        mg = C.magnitudes(b, r, ids, tolerance)
        rep.mags.append(mg)
        rep.magnitudes.append({"baseline": base.name, "run": run, "measure": name,
                               "better": [(q, float(v)) for q, v in zip(mg.better_qids, mg.better)],
                               "worse": [(q, float(v)) for q, v in zip(mg.worse_qids, mg.worse)]})

    for test in tests:
        results = [C.paired_test(test, b, r, tolerance=tolerance, confidence=confidence,
                                 samples=samples, seed=seed) for _, _, b, r, _ in pairs]
        adjusted = C.adjust([res.p_value for res in results], correction)
        for (run, name, b, r, _), res, padj, mt in zip(pairs, results, adjusted, rep.merit):
            rep.rows.append({
                "baseline": base.name, "run": run, "measure": name, "n": res.n,
                "better": mt["better"], "worse": mt["worse"], "equal": mt["equal"],
                "mean_diff": res.mean_diff, "ci_low": res.ci_low, "ci_high": res.ci_high,
                "effect": res.effect, "test": test, "statistic": res.statistic,
                "p_value": res.p_value, "p_adjusted": float(padj),
                "significant": bool(padj < alpha) if not math.isnan(padj) else False,
                "mean_baseline": mt["mean_baseline"], "mean_run": mt["mean_run"],
                "exact": res.exact})
    # one row per (run, measure, test), grouped by comparison
    order = {t: i for i, t in enumerate(tests)}
    pair_index = {(r, n): i for i, (r, n, *_rest) in enumerate(pairs)}
    rep.rows.sort(key=lambda row: (pair_index[(row["run"], row["measure"])], order[row["test"]]))
    if any(res_row["test"] == "randomization" and res_row["exact"] is False for res_row in rep.rows):
        rep.notes.append(f"randomization: {samples} random sign assignments (exact when "
                         f"2^n <= --samples)")

    if select_names is not None:
        rep.selection = _selection(evaluations, select_names, select_name, tolerance=tolerance,
                                   theta=theta, seed=seed, samples=samples, complete=complete)
    if tau:
        rep.correlation = []
        for ev in runs:
            rc = C.rank_correlation(base.ranked, ev.ranked)
            rep.correlation.append({"baseline": base.name, "run": ev.name, **rc.means()})
    return rep


def _selection(evaluations, select_names, select_name, *, tolerance, theta, seed, samples,
               complete) -> dict:
    from smarteval import compare as C
    from smarteval.errors import UsageError
    ids = evaluations[0].qids.astype(str)
    for ev in evaluations[1:]:
        ids = np.intersect1d(ids, ev.qids.astype(str))
    if len(ids) == 0:
        raise UsageError("--select: the runs share no query")
    values = np.empty((len(evaluations), len(ids), len(select_names)))
    for i, ev in enumerate(evaluations):
        rows = np.searchsorted(ev.qids.astype(str), ids) if _is_sorted(ev.qids) else \
            _positions(ev.qids.astype(str), ids)
        for j, nm in enumerate(select_names):
            values[i, :, j] = ev.per_query[nm][rows]
    sel = C.select_best(values, tolerance=tolerance, theta=theta, seed=seed,
                        samples=max(samples, 10000))
    names = [ev.name for ev in evaluations]
    top2 = np.sort(sel.points)[::-1][:2]
    ratio = float(top2[0] / top2[1]) if top2[1] else math.inf
    return {
        "measure": select_name, "depth": len(select_names), "queries": len(ids),
        "total": sel.total, "theta": theta, "pcs": sel.pcs, "pcs_method": sel.pcs_method,
        "pcs_se": sel.pcs_se, "best": names[sel.best], "observed_ratio": ratio,
        "runs": [{"run": n, "points": int(p), "p": float(ph)}
                 for n, p, ph in zip(names, sel.points, sel.p_hat)],
        "per_cutoff": {n: sel.per_cutoff[:, i].tolist() for i, n in enumerate(names)},
        "caveat": C.CAVEAT,
    }


def _is_sorted(a: np.ndarray) -> bool:
    a = a.astype(str)
    return bool(np.all(a[:-1] < a[1:])) if len(a) > 1 else True


def _positions(hay: np.ndarray, needles: np.ndarray) -> np.ndarray:
    order = np.argsort(hay, kind="stable")
    return order[np.searchsorted(hay[order], needles)]


# --------------------------------------------------------------------------- rendering

def _num(v, digits: int = 4) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else ""
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return ""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.{digits}f}"


def _p(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


def _pct(v) -> str:
    return "-" if v is None else f"{v:.0f}"


def _tab(rows, headers, fmt: str, colalign=None) -> str:
    from tabulate import tabulate
    tablefmt = {"smart": "simple", "markdown": "github", "latex": "latex_booktabs"}[fmt]
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                    colalign=colalign)


def render_report(rep: Report, fmt: str, *, show_magnitudes: bool = False,
                  header: bool = True) -> str:
    """The report in one of :data:`FORMATS`."""
    if fmt == "json":
        return _render_json(rep)
    if fmt in ("tsv", "csv"):
        return _render_delimited(rep, fmt, show_magnitudes, header)
    return _render_table(rep, fmt, show_magnitudes)


def _render_table(rep: Report, fmt: str, show_magnitudes: bool) -> str:
    out = []
    corr = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
            "none": "no"}[rep.correction]
    if rep.rows:
        n_pairs = len(rep.merit)
        out.append(f"Baseline {rep.baseline}: differences are run - baseline; {corr} correction"
                   f" over {n_pairs} comparison{'s' if n_pairs != 1 else ''} per test; "
                   f"* adjusted p < {rep.alpha:g}; {rep.confidence:.0%} confidence interval")
        out.append("")
        rows = [[r["run"], r["measure"], str(r["n"]), _num(r["mean_baseline"]), _num(r["mean_run"]),
                 _num(r["mean_diff"]), f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]",
                 _num(r["effect"], 2), r["test"], _num(r["statistic"], 3), _p(r["p_value"]),
                 _p(r["p_adjusted"]) + (" *" if r["significant"] else "")]
                for r in rep.rows]
        out.append(_tab(rows, ["run", "measure", "n", "baseline", "run", "diff", "CI", "effect",
                               "test", "statistic", "p", "p adjusted"], fmt,
                        ("left", "left") + ("right",) * 6 + ("left",) + ("right",) * 3))
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
                     f"{_pct(inc['better'])}/{_pct(inc['worse'])}/{_pct(inc['equal'])} ({_sup(inc)})",
                     f"{_pct(add['better'])}/{_pct(add['worse'])} ({_sup(add)})"])
    out.append(_tab(rows, ["run", "measure", "better", "worse", "equal", "ignoring equal",
                           "including equal", "equal added to both"], fmt,
                    ("left", "left", "right", "right", "right", "right", "right", "right")))
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
                rows.append([str(i + 1), b[0], _num(b[1]), w[0], _num(w[1])])
            out.append(_tab(rows, ["#", f"{mg['run']} better", "by", f"{rep.baseline} better",
                                   "by"], fmt, ("right", "left", "right", "left", "right")))
    if rep.selection is not None:
        s = rep.selection
        out.append("")
        out.append(f"Selection of the best run (Joiner & Werner): one point per query at each "
                   f"cut-off 1..{s['depth']} of {s['measure']} over {s['queries']} queries, "
                   f"{s['total']} points")
        out.append("")
        rows = [[r["run"], str(r["points"]), f"{r['p']:.3f}",
                 "best" if r["run"] == s["best"] else ""] for r in s["runs"]]
        out.append(_tab(rows, ["run", "points", "p", ""], fmt,
                        ("left", "right", "right", "left")))
        out.append("")
        how = "exact" if s["pcs_method"] == "exact" else \
            f"simulated, standard error {s['pcs_se']:.4f}"
        out.append(f"Probability of correct selection (Bechhofer) when p_best/p_second >= "
                   f"{s['theta']:g}: {_prob(s['pcs'])} ({how})")
        out.append(f"Observed p_best/p_second: {_num(s['observed_ratio'], 2)}")
        out.append(f"Caveat: {s['caveat']}")
    if rep.correlation is not None:
        out.append("")
        out.append(f"Rank correlation with {rep.baseline}'s ordering of the documents both "
                   "retrieved, averaged over queries")
        out.append("")
        rows = [[c["run"], str(c["queries"]), _num(c["common"], 1), _num(c["kendall"]),
                 _num(c["spearman"]), _num(c["pearson"]), _num(c["tau_ap"])]
                for c in rep.correlation]
        out.append(_tab(rows, ["run", "queries", "shared docs", "Kendall tau", "Spearman",
                               "Pearson", "tau-AP"], fmt,
                        ("left",) + ("right",) * 6))
    if rep.notes:
        out.append("")
        out.extend(f"Note: {n}" for n in rep.notes)
    return "\n".join(out) + "\n"


def _prob(p: float) -> str:
    """A probability to four places; one within 1e-4 of 1 also shows how far it is from 1."""
    if p >= 0.9999 and p < 1.0:
        return f"{p:.4f} (1 - {1.0 - p:.1e})"
    return f"{p:.4f}"


def _sup(row) -> str:
    s = row["superiority"]
    return "-" if s is None else f"{s:+.0f}"


def _cell(v) -> str:
    """A value at full precision for TSV/CSV (empty when undefined)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return ""
        return repr(v)
    return str(v)


def _render_delimited(rep: Report, fmt: str, show_magnitudes: bool, header: bool = True) -> str:
    """The comparison rows; --magnitudes, --select and --tau tables follow after a blank line."""
    tables: list[tuple[list[str], list[list]]] = []
    tables.append((list(COLUMNS), [[r[c] for c in COLUMNS] for r in rep.rows]))
    if show_magnitudes:
        rows = []
        for mg in rep.magnitudes:
            for side in ("better", "worse"):
                for i, (q, v) in enumerate(mg[side]):
                    rows.append([rep.baseline, mg["run"], mg["measure"], side, i + 1, q, v])
        tables.append((["baseline", "run", "measure", "side", "position", "query",
                        "difference"], rows))
    if rep.selection is not None:
        s = rep.selection
        tables.append((["run", "points", "p", "best", "measure", "depth", "total", "theta",
                        "pcs", "pcs_method"],
                       [[r["run"], r["points"], r["p"], r["run"] == s["best"], s["measure"],
                         s["depth"], s["total"], s["theta"], s["pcs"], s["pcs_method"]]
                        for r in s["runs"]]))
    if rep.correlation is not None:
        cols = ["baseline", "run", "queries", "common", "kendall", "spearman", "pearson", "tau_ap"]
        tables.append((cols, [[c[k] for k in cols] for c in rep.correlation]))
    return "\n".join(_delimited(h, rows, fmt, header) for h, rows in tables)


def _delimited(columns, rows, fmt: str, header: bool = True) -> str:
    from smarteval.render import delimited
    return delimited(columns, ([_cell(v) for v in row] for row in rows), fmt, header)


def _finite(obj):
    """JSON has no nan or inf: they become null."""
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.str_):
        return str(obj)
    return obj


def _render_json(rep: Report) -> str:
    obj = {
        "baseline": rep.baseline, "measures": rep.measures, "tests": rep.tests,
        "correction": rep.correction, "alpha": rep.alpha, "confidence": rep.confidence,
        "comparisons": [{k: r[k] for k in (*COLUMNS, "mean_baseline", "mean_run")}
                        for r in rep.rows],
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
    return json.dumps(_finite(obj), indent=2, allow_nan=False) + "\n"


def draw_magnitudes(rep: Report, path: str) -> list[str]:
    """Keen's Fig. 36 for each comparison, drawn by :func:`smarteval.plot.diff_figure`.

    One comparison is written to ``path``; several go to ``path`` with
    ``-RUN-MEASURE`` before the suffix. Returns the files written.
    """
    from smarteval import plot as P
    P.output_format(path)                       # a bad suffix fails before any drawing
    P.require_matplotlib()
    stem, ext = os.path.splitext(path)
    written = []
    for mg, mt in zip(rep.mags, rep.merit):
        target = path if len(rep.mags) == 1 else \
            f"{stem}-{_slug(mt['run'])}-{_slug(mt['measure'])}{ext}"
        title = f"{mt['run']} vs {rep.baseline}: {mt['measure']}, {mt['n']} queries"
        fig = P.diff_figure(mg, rep.baseline, mt["run"], mt["measure"], equal=mt["equal"],
                            title=title)
        P.save(fig, target)
        written.append(target)
    return written


def _slug(text: str) -> str:
    import re
    return re.sub(r"[^\w.+-]+", "_", str(text))


# --------------------------------------------------------------------------- commands

_TEST_HELP = ("Significance test, repeatable or comma-separated: t (paired t-test), wilcoxon "
              "(signed-rank), sign, randomization (Fisher's paired randomization), bootstrap "
              "(percentile interval of the mean difference). Default: t.")


@click.command("compare", context_settings=CONTEXT)
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("baseline", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@trec_options
@click.option("-t", "--test", "tests", multiple=True, metavar="TEST", help=_TEST_HELP)
@click.option("--correction", type=click.Choice(CORRECTIONS), default="holm", show_default=True,
              help="Multiple-comparison correction over every (run, measure) pair, for each "
                   "test separately.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True,
              help="Significance level the adjusted p-values are held to.")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.95, show_default=True, help="Level of the confidence intervals.")
@click.option("--samples", type=click.IntRange(min=1), default=10000, show_default=True,
              metavar="N",
              help="Random sign assignments of the randomization test (exact when 2^queries "
                   "<= N), bootstrap resamples, and simulations of P(CS) (at least 10000).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every random choice: resampling, --select tie splits, simulation.")
@click.option("--tie-tolerance", type=click.FloatRange(min=0), default=0.0, show_default=True,
              metavar="X",
              help="Differences of at most X count as equal: merit counts, sign and Wilcoxon "
                   "tests, --select ties.")
@click.option("--magnitudes", is_flag=True,
              help="Also print Keen's Fig. 36 data: each side's per-query differences, "
                   "largest first.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Draw Keen's Fig. 36 magnitude-difference plots to FILE (.png, .pdf, .svg); "
                   "needs smarteval[plot].")
@click.option("--select", is_flag=True,
              help="Select the best of all the runs, baseline included (Joiner & Werner), with "
                   "Bechhofer's probability of correct selection.")
@click.option("--select-measure", default="jw_prob", show_default=True, metavar="MEASURE",
              help="Cut-off measure (jw_prob, P, recall...) whose best run on a query wins "
                   "that query's point at each cut-off.")
@click.option("--depth", type=click.IntRange(min=1), default=200, show_default=True,
              metavar="D", help="--select scores the cut-offs 1..D.")
@click.option("--theta", type=click.FloatRange(min=1), default=1.5, show_default=True,
              help="--select: the ratio p_best/p_second for which the probability of correct "
                   "selection is given.")
@click.option("--tau", is_flag=True,
              help="Correlate each run's document ordering with the baseline's, query by "
                   "query: Kendall's tau, Spearman, Pearson, tau-AP.")
@output_options(FORMATS, format_help="Output format: smart (readable tables), markdown, "
                                      "latex, tsv, csv, json.",
                header_help="Leave out the header lines of tsv and csv output.")
@reports_errors
def compare(qrels, baseline, runs, measures, complete, rel_level, max_docs, judged_only,
            num_docs, trec_version, tests, correction, alpha, confidence, samples, seed,
            tie_tolerance, magnitudes, plot, select, select_measure, depth, theta, tau, fmt,
            output, no_header):
    """Compare each RUN with BASELINE query by query: is the difference real?

    For each run and measure (-m, default map): the queries better, worse and equal
    (Keen's Fig. 35), the mean difference with its confidence interval and effect size,
    and paired significance tests (--test) corrected for the number of comparisons.
    Queries are paired by id; without -c a query missing from either run is left out.
    --select picks the best of all the runs (Joiner & Werner); --tau compares the
    runs' document orderings.
    """
    from smarteval.api import evaluate
    from smarteval.columns import Settings
    from smarteval.errors import UsageError
    from smarteval.readers import read_qrels
    from smarteval.registry import parse_measures

    version = int(trec_version)
    test_list = _parse_tests(tests or ("t",))
    requests = parse_measures(list(measures or ("map",)), version)
    names, skipped = [], []
    for rq in requests:
        for o in rq.outputs():
            (names if _comparable(o) else skipped).append(o.name)
    if not names:
        raise UsageError("no measure to compare: " + ", ".join(skipped)
                         + " have no per-query numbers")
    all_requests = list(requests)
    select_names = None
    if select:
        srq = _select_request(select_measure, depth)
        if srq.measure.needs_num_docs and num_docs is None:
            raise UsageError(f"--select scores {srq.measure.name}, which needs the number of "
                             "documents in the collection: give -N/--num-docs, or another "
                             "cut-off measure with --select-measure (P, recall)")
        all_requests.append(srq)
        select_names = [o.name for o in srq.outputs()]
    q = read_qrels(qrels)
    # runs are read one at a time; their rankings are kept only for --tau
    evs = evaluate(q, [baseline, *runs], all_requests, complete=complete, rel_level=rel_level,
                   max_docs=max_docs, judged_only=judged_only, trec_version=version,
                   settings=Settings(num_docs=num_docs, trec_version=version),
                   keep_ranked=tau)
    rep = build_report(evs, names, tests=test_list, correction=correction, alpha=alpha,
                       confidence=confidence, samples=samples, seed=seed,
                       tolerance=tie_tolerance, complete=complete, select_names=select_names,
                       select_name=select_measure, theta=theta, tau=tau)
    if skipped:
        rep.notes.append("not compared (no per-query numbers): " + ", ".join(skipped))
    if plot:
        for path in draw_magnitudes(rep, plot):
            click.echo(f"smarteval: wrote {path}", err=True)
    write_output(render_report(rep, fmt, show_magnitudes=magnitudes, header=not no_header),
                 output)
    if fmt in ("tsv", "csv", "json"):
        for n in rep.notes:
            click.echo(f"smarteval: {n}", err=True)


# --------------------------------------------------------------------------- correlate

def read_results(path: str) -> list[tuple[str, dict[str, float]]]:
    """Summary values from an evaluation's output: [(run, {measure: value})].

    Reads trec_eval's text (``-f trec``, or trec_eval itself) and smarteval evaluate's
    ``-f tsv``, ``csv`` and ``json``; the ``all`` rows are the summaries.
    """
    from smarteval.errors import InputError
    from smarteval.readers import read_bytes
    data = read_bytes(path)
    name = "<stdin>" if path == "-" else path
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(name, None, "not UTF-8 text", expected=_RESULTS_EXPECTED) from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _results_json(name, text)
    first = stripped.split("\n", 1)[0].strip()
    if first.replace(",", "\t").split("\t")[:4] == ["run", "query", "measure", "value"]:
        return _results_delimited(name, text, "," if "," in first else "\t")
    return _results_trec(name, text, os.path.basename(name))


_RESULTS_EXPECTED = ("evaluation results: trec_eval output (MEASURE QUERY VALUE) or "
                     "smarteval evaluate -f tsv, csv or json")


def _results_json(name, text):
    from smarteval.errors import InputError
    try:
        obj = json.loads(text)
        out = []
        for item in obj:
            summary = {k: float(v) for k, v in item["summary"].items()
                       if isinstance(v, (int, float)) and not isinstance(v, bool)}
            out.append((str(item["run"]), summary))
        return out
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(name, None, f"not smarteval evaluate -f json output ({exc})",
                         expected=_RESULTS_EXPECTED) from None


def _results_delimited(name, text, delim):
    from smarteval.errors import InputError
    out: dict[str, dict[str, float]] = {}
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    for lineno, row in enumerate(reader, start=1):
        if lineno == 1 or not row:
            continue
        if len(row) != 4:
            raise InputError(name, lineno, f"results line has {len(row)} fields, not 4",
                             delim.join(row), "run, query, measure, value")
        run, qid, measure, value = row
        if qid != "all":
            continue
        try:
            out.setdefault(run, {})[measure] = float(value)
        except ValueError:
            continue                               # runid and other text values
    return list(out.items())


def _results_trec(name, text, default_run):
    from smarteval.errors import InputError
    blocks: list[tuple[str | None, dict[str, float]]] = [(None, {})]
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 3:
            raise InputError(name, lineno, f"results line has {len(fields)} fields, not 3", line,
                             _RESULTS_EXPECTED)
        measure, qid, value = fields
        if qid != "all":
            continue
        tag, vals = blocks[-1]
        if measure in vals or (measure == "runid" and tag is not None):
            blocks.append((None, {}))            # a second run's block starts
            tag, vals = blocks[-1]
        if measure == "runid":
            blocks[-1] = (value, vals)
            continue
        try:
            vals[measure] = float(value)
        except ValueError:
            raise InputError(name, lineno, f"value {value!r} of {measure} is not a number",
                             line, _RESULTS_EXPECTED) from None
    blocks = [(t, v) for t, v in blocks if v]
    if not blocks:
        raise InputError(name, None, "no summary ('all') lines", expected=_RESULTS_EXPECTED)
    if len(blocks) == 1:
        return [(blocks[0][0] or default_run, blocks[0][1])]
    return [(t or f"{default_run}#{i + 1}", v) for i, (t, v) in enumerate(blocks)]


def _measure_names(specs, version: int) -> list[str]:
    """Output names for -m specs (P.10 -> P_10); names that are not measures stay as given."""
    from smarteval.errors import UsageError
    from smarteval.registry import parse_measures
    out = []
    for s in specs:
        for spec in s.split():
            try:
                out.extend(o.name for rq in parse_measures([spec], version) for o in rq.outputs())
            except UsageError:
                out.append(spec)
    return list(dict.fromkeys(out))


_SKIP = {"runid", "num_q"}


@click.command("correlate", context_settings=CONTEXT)
@click.argument("results", nargs=-1, required=True, metavar="RESULTS...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure whose leaderboard to correlate, as named in the results (map, "
                   "P_10) or trec_eval style (P.10). Repeatable, two or more. Default: every "
                   "measure all the results share.")
@click.option("--trec-version", type=click.Choice(["9", "10"]), default="9", show_default=True,
              help="trec_eval version whose measure names -m reads.")
@output_options(FORMATS, format_help="Output format: smart (readable tables), markdown, "
                                      "latex, tsv, csv, json.",
                header_help="Leave out the header lines of tsv and csv output.")
@reports_errors
def correlate(results, measures, trec_version, fmt, output, no_header):
    """How much the choice of measure changes the leaderboard.

    RESULTS are evaluation outputs (trec_eval's text, or smarteval evaluate -f trec, tsv,
    csv or json), one or several runs each. For every pair of measures: Kendall's tau,
    Spearman, Pearson and tau-AP between the orders of the systems, and the number of
    pairs of systems the two measures order differently.
    """
    from smarteval import compare as C
    from smarteval.errors import InputError, UsageError
    systems: list[tuple[str, dict[str, float], str]] = []
    for path in results:
        for run, vals in read_results(path):
            systems.append((run, vals, path))
    seen: dict[str, int] = {}
    for run, _, _ in systems:
        seen[run] = seen.get(run, 0) + 1
    systems = [(f"{run} ({path})" if seen[run] > 1 else run, vals, path)
               for run, vals, path in systems]
    if len(systems) < 2:
        raise UsageError("correlate needs the results of at least two runs")
    if measures:
        names = _measure_names(measures, int(trec_version))
        for run, vals, path in systems:
            missing = [n for n in names if n not in vals]
            if missing:
                raise InputError(path, None, f"run {run} has no summary value of "
                                 + ", ".join(missing), extra="  it has: " + " ".join(vals))
    else:
        common = set(systems[0][1])
        for _, vals, _ in systems[1:]:
            common &= set(vals)
        names = [n for n in systems[0][1] if n in common and n not in _SKIP]
    if len(names) < 2:
        raise UsageError("correlate needs two or more measures shared by every result"
                         + (f" (found {', '.join(names)})" if names else ""))
    table = np.array([[vals[n] for n in names] for _, vals, _ in systems])
    pairs = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            pairs.append(C.leaderboard_correlation(names[i], table[:, i], names[j],
                                                   table[:, j]))
    runs = [s[0] for s in systems]
    write_output(_render_correlate(runs, names, table, pairs, fmt, header=not no_header), output)


def _render_correlate(runs, names, table, pairs, fmt, header: bool = True) -> str:
    cols = ["measure_a", "measure_b", "systems", "kendall", "spearman", "pearson", "tau_ap",
            "swaps"]
    rows = [[p.measure_a, p.measure_b, p.systems, p.kendall, p.spearman, p.pearson, p.tau_ap,
             p.swaps] for p in pairs]
    if fmt == "json":
        obj = {"runs": runs, "measures": names,
               "summary": {r: dict(zip(names, map(float, table[i]))) for i, r in enumerate(runs)},
               "correlations": [dict(zip(cols, row)) for row in rows]}
        return json.dumps(_finite(obj), indent=2, allow_nan=False) + "\n"
    if fmt in ("tsv", "csv"):
        return _delimited(cols, rows, fmt, header)
    from scipy import stats
    out = [f"Leaderboards of {len(runs)} runs (rank under each measure in brackets)", ""]
    ranks = np.column_stack([stats.rankdata(-table[:, j], method="min")
                             for j in range(len(names))])
    order = np.lexsort((np.arange(len(runs)), ranks[:, 0]))
    lb = [[runs[i], *[f"{table[i, j]:.4f} ({int(ranks[i, j])})" for j in range(len(names))]]
          for i in order]
    out.append(_tab(lb, ["run", *names], fmt, ("left",) + ("right",) * len(names)))
    out += ["", "Correlation of the system orderings (tau-AP takes the first measure as "
                "the reference; swaps: pairs of runs ordered differently)", ""]
    body = [[r[0], r[1], str(r[2]), _num(r[3]), _num(r[4]), _num(r[5]), _num(r[6]), str(r[7])]
            for r in rows]
    out.append(_tab(body, ["measure A", "measure B", "runs", "Kendall tau", "Spearman",
                           "Pearson", "tau-AP", "swaps"], fmt,
                    ("left", "left") + ("right",) * 6))
    return "\n".join(out) + "\n"


# trec_options' -m reads "Default: official"; compare's default is map
for _param in compare.params:
    if _param.name == "measures":
        _param.help = ("Measure to compare, trec_eval style (map, P.10, ndcg_cut.10) or "
                       "ir_measures style (AP, P@10, nDCG@10). Repeatable. Default: map.")
