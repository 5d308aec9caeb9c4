"""``smarteval evaluate``: per-query and averaged measures of runs against qrels."""

from __future__ import annotations

import click

from smarteval.cli.options import (
    CONTEXT,
    average_option,
    cwl_options,
    debug_option,
    input_path,
    note,
    order_by_option,
    output_options,
    rel_info_format_option,
    repeated_notes,
    reports_errors,
    results_format_option,
    reuse_freed_memory,
    risk_options,
    seed_option,
    settings_from,
    target_generality_option,
    ties_option,
    trec_eval_version_option,
    trec_options,
    unranked_option,
    unused_notes,
    zscores_option,
)
from smarteval.errors import UsageError


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
@click.option("--frozen-depth", type=click.IntRange(min=0), default=None, metavar="K",
              help="How many documents of the --frozen run the user has already seen.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Evaluate the runs in N processes; -j 1 evaluates them all in this one. "
                   "Default: one per CPU and run, fewer for long runs (some 6 million lines "
                   "in hand at once at most), and runs of 800,000 lines or more one at a "
                   "time, each in a process of its own (processes forked from this one, "
                   "which has read the qrels); off Linux, where processes are not forked, "
                   "one.")
@output_options()
@reports_errors
def evaluate(qrels, runs, measures, per_query, no_summary, frozen, frozen_depth, jobs, fmt,
             output, no_header, zscores, risk_baseline, risk_alpha, **options):
    """Evaluate RUNS against QRELS and print per-query and averaged measures.

    QRELS holds judgements (QUERY ITER DOCNO REL); each RUN holds ranked results
    (QUERY Q0 DOCNO RANK SCORE TAG). Files may be gzip, bzip2 or xz compressed; a RUN
    of '-' is read from standard input.
    """
    from smarteval.aggregate import check_zscores_average
    from smarteval.evaluation import check_runs, judgements, read_relevance
    from smarteval.evaluation import evaluate as run_evaluation
    from smarteval.measures.grammar import default_requests, parse_measures
    from smarteval.output import write_text
    from smarteval.progress import Progress
    from smarteval.render.evaluation import complete_notes, relevance_notes, render
    from smarteval.render.formats import is_table

    settings = settings_from(**options)
    runs = check_runs(runs)
    if zscores is not None:
        check_zscores_average(settings.average)
        if zscores == "-" and "-" in runs:
            raise UsageError("standard input ('-') can be either a run or the -Z file, "
                             "not both")
    reuse_freed_memory([qrels, *runs])
    if is_table(fmt) and (per_query or no_summary):
        flags = " and ".join(f for f, given in (("-q/--per-query", per_query),
                                                 ("-n/--no-summary", no_summary)) if given)
        raise UsageError(f"{flags}: the {fmt} table prints the averages only; per-query "
                         "values are printed by -f trec, tsv, csv and json")
    requests = parse_measures(list(measures), settings.trec_version,
                              on_note=lambda text: note(f"smarteval: {text}"))
    if not requests:
        requests, dropped = default_requests(table=is_table(fmt), num_docs=settings.num_docs,
                                             ties=settings.ties, version=settings.trec_version,
                                             qrels_format=settings.qrels_format)
        if dropped:
            note("smarteval: --ties average: left out " + ", ".join(dropped)
                 + " (no exact average over tied orders)")
    if risk_baseline is not None:
        from smarteval.stats.baseline_risk import check_risk_measures
        check_risk_measures([rq.measure for rq in requests])
    elif risk_alpha:
        note(f"smarteval: --risk-alpha {risk_alpha:g} has no effect without --risk-baseline")
    for text in unused_notes(settings, requests) + repeated_notes(runs):
        note(f"smarteval: {text}")
    # read once, whatever the number of runs; in the format asked for (-R)
    relevance = read_relevance(qrels, requests, settings)
    table = None
    if zscores is not None:
        from smarteval.read.zscores import read_zscores
        table = read_zscores(zscores)
    qrels_data = judgements(relevance)[0]
    given = runs if risk_baseline is None else [risk_baseline, *runs]
    with Progress(given, "smarteval") as bar:   # only on a terminal, only for long work
        finished = bar.each_run(given)

        bar.doing("evaluating")
        evaluations = run_evaluation(relevance, given, requests, settings, frozen=frozen,
                                     frozen_depth=frozen_depth, on_run=finished, jobs=jobs,
                                     keep_ranked=False, zscores=table)
    if settings.complete:
        for ev in evaluations:
            for text in complete_notes(ev, settings):
                note(f"smarteval: {text}")
    for text in relevance_notes(qrels_data, evaluations, requests, settings):
        note(f"smarteval: {text}")
    if risk_baseline is not None:
        from smarteval.stats.baseline_risk import risk_evaluations
        evaluations = risk_evaluations(evaluations[1:], evaluations[0], risk_alpha)
    write_text(render(evaluations, fmt, per_query=per_query, summary=not no_summary,
                      trec_version=settings.trec_version, header=not no_header), output)
