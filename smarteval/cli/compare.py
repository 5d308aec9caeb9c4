"""``smarteval compare``: which run is better, by how much, and how sure we are."""

from __future__ import annotations

import click

from smarteval.cli.edge import evaluating, note, reports_errors
from smarteval.cli.options import (
    CONTEXT,
    comparison_options,
    gate_options,
    output_options,
    rel_info_format_option,
    takes_settings,
    trec_options,
    zscores_option,
)
from smarteval.cli.types import StrictFloat, StrictInt, input_path, output_path
from smarteval.errors import Regressed, UsageError
from smarteval.memory import reuse_freed_memory
from smarteval.output import write_bytes, write_text
from smarteval.render.compare import FORMATS
from smarteval.render.formats import is_table
from smarteval.render.formats import words as format_words
from smarteval.stats.report import MAX_DEPTH

F = format_words()


@click.command("compare", context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("baseline", type=input_path())
@click.argument("runs", nargs=-1, type=input_path(), metavar="RUNS...")
@trec_options(measure_help="Measure to compare, trec_eval style (map, P.10, ndcg_cut.10) or "
                           "ir_measures style (AP, P@10, nDCG@10). Repeatable. Default: map.")
@zscores_option(refused=True)
@comparison_options(
    samples_help="Random sign assignments of the randomization test (exact when 2^queries "
                 "<= N), bootstrap resamples, and simulations of P(CS) (at least 10000)",
    seed_help="Seed of every random choice: resampling, --select tie splits, simulation "
              "(0 or more).",
    tolerance_help="Differences of at most X count as equal: merit counts, sign and Wilcoxon "
                   "tests, --select ties.")
@click.option("--magnitudes", is_flag=True,
              help="Also print Keen's Fig. 36 data: each side's per-query differences, "
                   f"largest first (-f {F['one_table_list']}: that table instead of the "
                   "comparisons).")
@click.option("--plot", type=output_path(), default=None, metavar="FILE",
              help="Draw Keen's Fig. 36 magnitude-difference plots to FILE (.png, .pdf, .svg); "
                   "needs smarteval[plot].")
@click.option("--select", is_flag=True,
              help="Select the best of all the runs, baseline included (Joiner & Werner), with "
                   "Bechhofer's probability of correct selection "
                   f"(-f {F['one_table_list']}: that table instead of the comparisons).")
@click.option("--select-measure", default="jw_prob", show_default=True, metavar="MEASURE",
              help="Cut-off measure (jw_prob, P, recall...) whose best run on a query wins "
                   "that query's point at each cut-off.")
@click.option("--depth", type=StrictInt(), default=200, show_default=True,
              metavar="D", help=f"--select scores the cut-offs 1..D (at most {MAX_DEPTH}).")
@click.option("--theta", type=StrictFloat(min=1), default=1.5, show_default=True,
              help="--select: the ratio p_best/p_second for which the probability of correct "
                   "selection is given.")
@click.option("--tau", is_flag=True,
              help="Correlate each run's document ordering with the baseline's, query by "
                   "query: Kendall's tau, Spearman, Pearson, tau-AP "
                   f"(-f {F['one_table_list']}: that table instead of the comparisons).")
@rel_info_format_option()
@gate_options(baseline_help="A stored baseline instead of BASELINE's run: the per-query "
                            f"values smarteval evaluate -q -f {F['exact']} wrote for "
                            "it, compared as read (every digit). BASELINE is then not "
                            "given: every RUN is compared with it. A CI job keeps this "
                            "small file instead of a run.")
@output_options(FORMATS,
                header_help=f"Leave out the header lines of {F['one_table']} output.")
@reports_errors
@takes_settings
def compare(qrels, baseline, runs, measures, settings, tests, correction, alpha, confidence,
            samples, seed, tie_tolerance, magnitudes, plot, select, select_measure, depth,
            theta, tau, baseline_results, fail_if, tolerance, fmt, output, no_header):
    """Compare each RUN with BASELINE query by query: is the difference real?

    For each run and measure (-m, default map): the queries better, worse and equal
    (Keen's Fig. 35), the mean difference with its confidence interval and effect size,
    and paired significance tests (--test) corrected for the number of comparisons.
    Queries are paired by id; without -c a query missing from either run is left out.
    --select picks the best of all the runs (Joiner & Werner); --tau compares the
    runs' document orderings.

    With --baseline-results FILE no BASELINE is given (every RUN is compared with the
    stored baseline); --fail-if makes a regression exit with status 3, for CI.
    """
    if baseline_results is not None:
        runs, baseline = (baseline, *runs), None
    elif not runs:
        raise click.UsageError("Missing argument 'RUNS...': give a baseline and one run or "
                               "more (or --baseline-results FILE and the runs).")
    given_runs = [*([] if baseline is None else [baseline]), *runs]
    reuse_freed_memory([qrels, *given_runs])
    from smarteval.api import compare as compare_runs
    from smarteval.read.source import same_file
    from smarteval.render.compare import check_options
    from smarteval.stats.gate import check_gate, comparison_failures

    check_gate(fail_if, tolerance)
    check_options(fmt, magnitudes=magnitudes, select=select, tau=tau)
    if baseline is not None and any(same_file(baseline, run) for run in runs):
        raise UsageError(f"the baseline {baseline} is also given as a run: a run compared "
                         "with itself differs on no query")
    with evaluating(given_runs, noted=runs) as (bar, finished):
        result = compare_runs(qrels, baseline, list(runs), list(measures), settings=settings,
                              baseline_results=baseline_results, tests=list(tests),
                              correction=correction, alpha=alpha,
                              confidence=confidence, samples=samples, seed=seed,
                              tie_tolerance=tie_tolerance,
                              select=select_measure if select else None, depth=depth,
                              theta=theta, tau=tau, on_run=finished,
                              on_samples=bar.sampling("testing"))
    rep = result.report
    if plot:
        import os

        from smarteval.plot.compare import magnitude_images
        for path, data in magnitude_images(rep, plot):
            write_bytes(data, path, suffix=os.path.splitext(path)[1])
            note(f"smarteval: wrote {path}")
    write_text(result.render(fmt, magnitudes=magnitudes, header=not no_header), output)
    if not is_table(fmt):
        for n in rep.notes:
            note(f"smarteval: {n}")
    failures = comparison_failures(rep, fail_if, tolerance)
    if failures:
        raise Regressed(failures)
