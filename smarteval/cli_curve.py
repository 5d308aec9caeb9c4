"""The curve command: precision at recall levels by Keen's Semi-, Quasi- or Pseudo-Cranfield method."""

from __future__ import annotations

import json
import math

import click

# cli.py imports this module at its end to register the command, after the shared pieces
# below are defined; import smarteval.cli (or the smarteval entry point) first
from smarteval.cli import (CONTEXT, TABLE_FORMATS, CliError, output_options, reports_errors,
                           write_output)

FORMATS = TABLE_FORMATS
METHOD_NAMES = {"semi": "Semi-Cranfield", "quasi": "Quasi-Cranfield",
                "pseudo": "Pseudo-Cranfield"}
#: The columns of ``-f tsv``/``csv``: one row per (run, level).
COLUMNS = ("run", "level", "precision", "real", "extrapolated", "excluded", "examined")


def _num(v, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{float(v):.{digits}f}"


def _level(x: float) -> str:
    return f"{x:.1f}" if round(x * 10, 9) % 1 == 0 else f"{x:.2f}" if round(x * 100, 9) % 1 == 0 \
        else f"{x:.4f}"


def _title(curves, names, nq) -> str:
    c = curves[0]
    how = METHOD_NAMES[c.method]
    detail = []
    if c.method == "quasi":
        detail.append(f"step {c.step}, left end {c.left}")
    text = f"{how} precision at {len(c.levels)} recall levels"
    if detail:
        text += f" ({', '.join(detail)})"
    queries = sorted(set(nq))
    qs = f"{queries[0]} queries" if len(queries) == 1 else \
        ", ".join(f"{n}: {q}" for n, q in zip(names, nq)) + " queries"
    return f"{text}, {c.average} average over {qs}"


def render_curves(curves, names, nq, fmt: str, header: bool = True) -> str:
    """Runs side by side: precision at each level, then per run how each level was averaged."""
    if fmt == "json":
        out = []
        for name, c, q in zip(names, curves, nq):
            out.append({
                "run": name, "method": c.method, "step": c.step, "left": c.left,
                "average": c.average, "queries": int(q),
                "levels": [{"level": float(x),
                            "precision": None if math.isnan(p) else float(p),
                            "real": int(re), "extrapolated": int(ex), "excluded": int(xc),
                            **({"examined": None if math.isnan(e) else float(e)}
                               if c.examined is not None else {})}
                           for x, p, re, ex, xc, e in zip(
                               c.levels, c.precision, c.real, c.extrapolated, c.excluded,
                               c.examined if c.examined is not None
                               else [math.nan] * len(c.levels))]})
        return json.dumps(out, indent=2) + "\n"
    if fmt in ("tsv", "csv"):
        rows = []
        for name, c in zip(names, curves):
            ex = c.examined if c.examined is not None else [math.nan] * len(c.levels)
            for x, p, re, et, xc, e in zip(c.levels, c.precision, c.real, c.extrapolated,
                                           c.excluded, ex):
                rows.append([name, repr(float(x)), "" if math.isnan(p) else repr(float(p)),
                             int(re), int(et), int(xc), "" if math.isnan(e) else repr(float(e))])
        from smarteval.render import delimited
        return delimited(COLUMNS, ([str(v) for v in row] for row in rows), fmt, header)
    from tabulate import tabulate
    levels = curves[0].levels
    tablefmt = {"smart": "simple", "markdown": "github", "latex": "latex_booktabs"}[fmt]
    head = ["REC." if fmt == "smart" else "recall", *names]
    body = [[_level(x), *[_num(c.precision[k]) for c in curves]] for k, x in enumerate(levels)]
    align = ("left", *["right"] * len(names))
    parts = [_title(curves, names, nq), "",
             tabulate(body, headers=head, tablefmt=tablefmt, disable_numparse=True,
                      colalign=align)]
    if curves[0].method == "pseudo":
        docs = [[_level(x), *[_num(c.examined[k], 1) for c in curves]]
                for k, x in enumerate(levels)]
        parts += ["", "Documents examined (cut-off where the averaged recall reaches the level):",
                  "", tabulate(docs, headers=head, tablefmt=tablefmt, disable_numparse=True,
                               colalign=align)]
    counts = [[_level(x), *[_counts(c, k) for c in curves]] for k, x in enumerate(levels)]
    parts += ["", "Queries averaged from real points + by extrapolation (- left out):", "",
              tabulate(counts, headers=head, tablefmt=tablefmt, disable_numparse=True,
                       colalign=align)]
    return "\n".join(parts) + "\n"


def _counts(c, k: int) -> str:
    text = f"{int(c.real[k])}+{int(c.extrapolated[k])}"
    if c.excluded[k]:
        text += f" -{int(c.excluded[k])}"
    return text


@click.command(context_settings=CONTEXT)
@click.argument("qrels", type=click.Path(dir_okay=False, allow_dash=False))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--method", type=click.Choice(["semi", "quasi", "pseudo"]), default="quasi",
              show_default=True,
              help="semi: best precision at or above each recall level; quasi: a point "
                   "chosen on each step, joined by lines (SMART's usual curve); pseudo: "
                   "recall and precision averaged at each document cut-off.")
@click.option("--levels", default=None, metavar="LEVELS",
              help="Recall levels: a count n (levels 1/n .. 1; default 10) or a list "
                   "such as 0,0.1,0.5,1.")
@click.option("--step", type=click.Choice(["highest", "lowest", "middle", "mean", "ends"]),
              default=None,
              help="Quasi: which point of each vertical step (Keen Fig. 15). "
                   "Default: highest.")
@click.option("--left", type=click.Choice(["none", "zero", "one", "hybrid", "constant"]),
              default=None,
              help="Quasi: left-end extrapolation below a query's first point (Keen's "
                   "methods 1-5). Default: constant.")
@click.option("--average", type=click.Choice(["macro", "micro", "median"]), default="macro",
              show_default=True, help="How queries are averaged (micro: semi and pseudo).")
@click.option("-c", "--complete", is_flag=True,
              help="Average over every query of the qrels; queries without results count.")
@click.option("-l", "--level", "rel_level", type=int, default=1, show_default=True,
              help="Lowest grade that counts as relevant.")
@click.option("-M", "--max-docs", type=click.IntRange(min=0), default=None,
              help="Evaluate only the first M documents of each query.")
@click.option("-J", "--judged-only", is_flag=True,
              help="Drop documents without a judgement before evaluating.")
@click.option("-N", "--num-docs", type=click.IntRange(min=1), default=None,
              help="Documents in the collection: places the unretrieved relevant documents "
                   "(--unranked) and lets the pseudo curve run to N.")
@click.option("--unranked", type=click.Choice(["expected", "worst"]), default="expected",
              show_default=True,
              help="Ranks of relevant documents the run did not retrieve (with -N).")
@click.option("--ties", type=click.Choice(["docno", "random"]), default="docno",
              show_default=True, help="Order of documents with equal scores.")
@click.option("--seed", type=int, default=None, help="Seed for --ties random.")
@click.option("--trec-version", type=click.Choice(["9", "10"]), default="9",
              show_default=True, help="Score comparison of trec_eval 9 (float) or 10 (double).")
@output_options(FORMATS, output_help="Write to this file (atomically) instead of standard output.",
                header_help="Leave out the header line (tsv, csv).")
@reports_errors
def curve(qrels, runs, method, levels, step, left, average, complete, rel_level, max_docs,
          judged_only, num_docs, unranked, ties, seed, trec_version, fmt, output, no_header):
    """Precision at recall levels for RUNS side by side (Keen's Cranfield curves).

    Prints the averaged precision at each level, the documents examined (pseudo), and per
    level how many queries were averaged from real points, how many by extrapolation and
    how many were left out (Keen Fig. 18).
    """
    from smarteval.columns import Settings
    from smarteval.curves import parse_levels, precision_curve
    from smarteval.ranking import rank
    from smarteval.readers import read_qrels, read_run
    from smarteval.api import run_names

    if sum(r == "-" for r in runs) > 1:
        raise CliError("standard input ('-') can be given as only one run", 2)
    lv = parse_levels(levels)
    settings = Settings(num_docs=num_docs, trec_version=int(trec_version), unranked=unranked,
                        ties=ties, seed=seed)
    qrels_data = read_qrels(qrels)
    run_data = [read_run(r) for r in runs]
    curves, nq = [], []
    for run in run_data:
        ranked = rank(run, qrels_data, complete=complete, rel_level=rel_level,
                      max_docs=max_docs, judged_only=judged_only, settings=settings)
        curves.append(precision_curve(ranked, lv, method=method, step=step or "highest",
                                      left=left, average=average))
        nq.append(ranked.num_queries)
    names = run_names(run_data)
    write_output(render_curves(curves, names, nq, fmt, header=not no_header), output)

