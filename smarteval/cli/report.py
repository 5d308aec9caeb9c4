"""``smarteval report``: the table of a paper, runs x measures with significance marks."""

from __future__ import annotations

import click

from smarteval.cli.edge import evaluating, note, reports_errors
from smarteval.cli.options import (
    CONTEXT,
    comparison_options,
    gate_options,
    output_options,
    takes_settings,
    trec_options,
)
from smarteval.cli.types import StrictInt, input_path
from smarteval.errors import Regressed, UsageError
from smarteval.memory import reuse_freed_memory
from smarteval.output import write_text
from smarteval.render.formats import described, is_table
from smarteval.render.formats import words as format_words
from smarteval.render.table import FORMATS
from smarteval.stats.table import INTERVALS

F = format_words()


@click.command("report", context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("runs", nargs=-1, required=True, type=input_path())
@trec_options(measure_help="Measure of a column, trec_eval style (map, P.10, ndcg_cut.10) or "
                           "ir_measures style (AP, P@10, nDCG@10). Repeatable. Default: map, "
                           "P.10 and ndcg_cut.10.")
@click.option("-b", "--baseline", "baselines", multiple=True, metavar="RUN",
              help="Mark the runs significantly better than RUN (its path, tag or --label "
                   "name) with its symbol (dagger, double dagger, section, pilcrow, double "
                   "bar); repeatable. Without it every pair of runs is compared and marked "
                   "with the letters of the runs a run beats.")
@comparison_options(
    all_pairs=True,
    correction_help="Multiple-comparison correction over every comparison of the table "
                    "(pairs x measures). Default: holm; for tukey, none beyond its own "
                    "adjustment over the pairs of each measure.",
    samples_help="Random sign assignments of the randomization test (exact when 2^queries "
                 "<= N), bootstrap resamples of the test and of --ci bootstrap",
    tolerance_help="Differences of at most X count as equal: --wins counts, sign and "
                   "Wilcoxon tests.")
@click.option("--ci", "interval", type=click.Choice(INTERVALS), default=None,
              help="Give each mean's confidence interval at --confidence: t (± half of "
                   "Student's t interval) or bootstrap (the percentile interval, --samples "
                   "resamples).")
@click.option("--second", is_flag=True, help="Underline the second best of each column.")
@click.option("--pairs", is_flag=True,
              help="Add every comparison: each pair's difference, (Tukey's) interval, "
                   f"effect size ES_E, raw and adjusted p. With -f {F['one_table_or']}: that "
                   "table instead of the cells.")
@click.option("--wins", is_flag=True,
              help="Add a table of wins, ties and losses of each pair on each measure (Keen's "
                   f"Fig. 35 counts). With -f {F['one_table_or']}: that table instead of the "
                   "cells.")
@click.option("--deltas", is_flag=True,
              help="Add each run's per-query differences from each --baseline. With -f "
                   f"{F['one_table_or']}: that table instead of the cells.")
@click.option("--anova", is_flag=True,
              help="Add each measure's two-way ANOVA without replication (runs x queries): "
                   "sums of squares, df, mean squares, F and p of the runs and the queries, "
                   "and the size of the runs' effect (eta- and omega-squared). With -f "
                   f"{F['one_table_or']}: that table instead of the cells.")
@click.option("--standalone", is_flag=True,
              help="-f latex: a whole document (article class, booktabs) that pdflatex "
                   "compiles as it is; -f html: a whole page. Without it: the table alone, "
                   "to paste.")
@click.option("--label", "labels", multiple=True, metavar="RUN=NAME",
              help="Name RUN (its path or tag) NAME in the table; repeatable. Default: the "
                   "run's tag. A measure is renamed so too (--label ndcg_cut_10=nDCG@10, "
                   "or ndcg_cut.10=...), in every format.")
@click.option("--digits", type=StrictInt(0, 15), default=4, show_default=True, metavar="N",
              help="Decimal places of the means and intervals.")
@gate_options(baseline_help="Stored baselines: each run of FILE, the per-query values "
                            f"smarteval evaluate -q -f {F['exact']} wrote, joins the "
                            "table as a --baseline, its values as read (every digit); one "
                            "whose name a RUN has is named 'NAME (baseline)'. A CI job keeps "
                            "this small file instead of the runs.")
@output_options(FORMATS, format_more=f"{F['one_table']} give one table, a row per run and "
                                     "measure (its mean, place and marks), or the one "
                                     "--pairs, --anova, --wins or --deltas asks for; "
                                     f"{F['typed']} holds them all.",
                header_help=f"Leave out the header lines of {F['one_table']} output.")
@reports_errors
@takes_settings
@described
def report(qrels, runs, measures, settings, baselines, test, correction, alpha, confidence,
           samples, seed, tie_tolerance, interval, second, pairs, wins, deltas, anova,
           standalone,
           labels, digits, baseline_results, fail_if, tolerance, fmt, output, no_header):
    """The table of a paper: each RUN's mean on each measure (-m), the best of each column
    in bold, and a mark where a run is significantly better than another.

    Without --baseline every pair of runs is compared, and each mean carries the letters
    of the runs it is significantly better than (ranx's style); with --baseline, a
    symbol for each baseline the run beats. The p-values of every comparison in the
    table (pairs x measures) are corrected together (--correction), and the caption says
    which test, correction, alpha and number of queries. Only the queries every run has
    are averaged and compared (-c: every query of the qrels); a query without a value
    (NaN: -J with nothing judged) leaves that measure, and a note names it. Higher values
    count as better on every measure.

    -t tukey is Tukey's HSD blocked by query: the studentized range on the residual
    variance of the two-way ANOVA without replication (runs x queries), the test IR papers
    use; randomized-tukey permutes each query's scores across the runs instead
    (--samples, --seed); tukey-independent treats the runs as independent groups, which
    they are not. -f {data} give every pair's difference, Tukey's simultaneous
    interval, Sakai's effect size ES_E (the difference over the root of the residual
    variance) and raw and adjusted p.
    """
    from smarteval.api import report as make_report
    from smarteval.render.table import check_options
    from smarteval.stats.gate import check_gate, table_failures
    from smarteval.stats.table import parse_label

    for text in labels:
        parse_label(text)                       # a malformed --label, before any work
    check_gate(fail_if, tolerance)
    if fail_if is not None and not baselines and baseline_results is None:
        raise UsageError("--fail-if compares runs with a baseline: give --baseline RUN or "
                         "--baseline-results FILE")
    check_options(fmt, deltas=deltas, standalone=standalone,
                  baselines=len(baselines) + (baseline_results is not None), pairs=pairs,
                  anova=anova, wins=wins)
    reuse_freed_memory([qrels, *runs])
    with evaluating(runs, noted=runs) as (_, finished):
        result = make_report(qrels, list(runs), list(measures) or None, settings=settings,
                             baselines=list(baselines), baseline_results=baseline_results,
                             labels=list(labels), test=test,
                             correction=correction, alpha=alpha, confidence=confidence,
                             interval=interval, samples=samples, seed=seed,
                             tie_tolerance=tie_tolerance, on_run=finished)
    write_text(result.render(fmt, second=second, wins=wins, deltas=deltas, digits=digits,
                             header=not no_header, standalone=standalone, anova=anova,
                             pairs=pairs), output)
    if not is_table(fmt):
        for n in result.notes:
            note(f"smarteval: {n}")
    failures = table_failures(result.table, fail_if, tolerance)
    if failures:
        raise Regressed(failures)
