"""``smarteval evaluate``: per-query and averaged measures of runs against qrels."""

from __future__ import annotations

import click

from smarteval.cli.edge import evaluating, note, reports_errors
from smarteval.cli.options import (
    CONTEXT,
    average_option,
    cwl_options,
    debug_option,
    order_by_option,
    output_options,
    rel_info_format_option,
    require_option,
    results_format_option,
    risk_options,
    seed_option,
    takes_settings,
    target_generality_option,
    ties_option,
    trec_eval_version_option,
    trec_options,
    unranked_option,
    zscores_option,
)
from smarteval.cli.types import StrictInt, input_path
from smarteval.errors import Regressed
from smarteval.memory import reuse_freed_memory
from smarteval.render.evaluation import FORMATS


@click.command(context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("runs", nargs=-1, required=True, type=input_path(allow_dash=True))
@trec_options()
@rel_info_format_option()
@results_format_option()
@zscores_option()
@order_by_option()
@cwl_options()
@risk_options()
@click.option("-q", "--per-query", is_flag=True, help="Also print each query's values.")
@click.option("-n", "--no-summary", is_flag=True, help="Leave out the summary (all) values.")
@debug_option()
@trec_eval_version_option()
@ties_option()
@seed_option()
@unranked_option()
@target_generality_option(help="adj_prec: the generality G (relevant documents per "
                               "thousand) precision is adjusted to.")
@average_option()
@click.option("--frozen", type=input_path(), default=None, metavar="RUN",
              help="Feedback evaluation on the residual collection: the first "
                   "--frozen-depth documents of this initial RUN are taken out of every "
                   "run, the qrels and N.")
@click.option("--frozen-depth", type=StrictInt(min=0), default=None, metavar="K",
              help="How many documents of the --frozen run the user has already seen.")
@click.option("-j", "--jobs", type=StrictInt(min=1), default=None, metavar="N",
              help="Evaluate the runs in N processes; -j 1 evaluates them all in this one. "
                   "Default: one per CPU and run, fewer for long runs (some 6 million lines "
                   "in hand at once at most), and runs of 800,000 lines or more one at a "
                   "time, each in a process of its own (processes forked from this one, "
                   "which has read the qrels); off Linux, where processes are not forked, "
                   "one.")
@click.option("--block-rows", type=StrictInt(min=1), default=None, metavar="N",
              help="Evaluate each run file grouped by query (as TREC runs are) N rows of "
                   "whole queries at a time, in memory bounded by a block (some 150 bytes "
                   "a row) and the per-query values, where every measure asked for allows "
                   "it. Default: runs of 64 MiB of text or more, about a million rows a block.")
@require_option()
@output_options(FORMATS)
@reports_errors
@takes_settings
def evaluate(qrels, runs, measures, settings, per_query, no_summary, frozen, frozen_depth, jobs,
             fmt, output, no_header, zscores, risk_baseline, risk_alpha, requirements,
             block_rows):
    """Evaluate RUNS against QRELS and print per-query and averaged measures.

    QRELS holds judgements (QUERY ITER DOCNO REL); each RUN holds ranked results
    (QUERY Q0 DOCNO RANK SCORE TAG). Files may be gzip, bzip2 or xz compressed; a RUN
    of '-' is read from standard input.
    """
    from smarteval.api import evaluate as evaluate_runs
    from smarteval.output import write_text
    from smarteval.render.evaluation import check_options
    from smarteval.render.formats import is_table
    check_options(fmt, per_query=per_query, summary=not no_summary)
    required = []
    if requirements:                # the statistics stage only for a gate
        from smarteval.stats.gate import parse_requirement
        required = [parse_requirement(text, settings.trec_version) for text in requirements]
    reuse_freed_memory([qrels, *runs])
    told: list[str] = []

    def tell(text: str) -> None:
        told.append(text)
        note(f"smarteval: {text}")

    given = runs if risk_baseline is None else [risk_baseline, *runs]
    with evaluating(given) as (bar, finished):
        result = evaluate_runs(qrels, list(runs), list(measures) or None, settings=settings,
                               frozen=frozen, frozen_depth=frozen_depth, on_run=finished,
                               jobs=jobs, keep_ranked=False, zscores=zscores,
                               risk_baseline=risk_baseline, risk_alpha=risk_alpha,
                               table=is_table(fmt), on_note=tell, block_rows=block_rows,
                               on_block=bar.block)
    failures = []
    if required:
        from smarteval.stats.gate import requirement_failures
        failures = requirement_failures(result, required)   # (a measure not evaluated: refused)
    for text in result.notes[len(told):]:        # those of the results, once the bar is gone
        note(f"smarteval: {text}")
    write_text(result.pieces(fmt, per_query=per_query, summary=not no_summary,
                             header=not no_header), output)
    if failures:
        raise Regressed(failures)
