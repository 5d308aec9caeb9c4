"""``smarteval discpower``: how many pairs of runs each measure tells apart (Sakai 2006's
discriminative power, by his bootstrap tests or his Discpower tool's randomised Tukey HSD)."""

from __future__ import annotations

import click

from smarteval.cli.edge import evaluating, note, reports_errors
from smarteval.cli.options import CONTEXT, output_options, takes_settings, trec_options
from smarteval.cli.types import StrictFloat, StrictInt, input_path
from smarteval.memory import reuse_freed_memory
from smarteval.output import write_text
from smarteval.render.discpower import FORMATS
from smarteval.render.formats import is_table
from smarteval.render.formats import words as format_words
from smarteval.stats.discpower import DISCPOWER_TESTS
from smarteval.stats.significance import CORRECTIONS

F = format_words()


@click.command("discpower", context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("runs", nargs=-1, required=True, type=input_path())
@trec_options(measure_help="Measure whose discriminative power to give, trec_eval style (map, "
                           "P.10) or ir_measures style (AP, P@10). Repeatable. Default: map, "
                           "P.10 and ndcg_cut.10.")
@click.option("-t", "--test", type=click.Choice(list(DISCPOWER_TESTS)),
              default="randomized-tukey", show_default=True,
              help="Test of every pair: " + ", ".join(f"{k} ({v})"
                                                      for k, v in DISCPOWER_TESTS.items())
                   + ".")
@click.option("--correction", type=click.Choice(CORRECTIONS), default=None,
              help="Correction over the pairs of each measure, for the paired tests. Default: "
                   "holm (t, randomization); none for bootstrap (as Sakai 2006) and for the "
                   "Tukey tests, which adjust for every pair themselves.")
@click.option("--alpha", type=StrictFloat(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True,
              help="Significance level: a pair counts when its ASL is below it.")
@click.option("--samples", type=StrictInt(), default=10000, show_default=True, metavar="N",
              help="Permutations of the randomised Tukey HSD (every one when (runs!)^queries "
                   "<= N), resamples of the bootstrap test (Sakai 2006 used 1000), sign "
                   "assignments of the randomization test (every one when 2^queries <= N).")
@click.option("--seed", type=StrictInt(min=0), default=0, show_default=True,
              help="Seed of the permutations, resamples and sign assignments (0 or more).")
@click.option("--label", "labels", multiple=True, metavar="RUN=NAME",
              help="Name RUN (its path or tag) NAME; repeatable. Default: the run's tag.")
@click.option("--pairs", is_flag=True,
              help=f"Add every pair's difference and ASL; with -f {F['one_table_or']}, that "
                   f"table instead of the measures' ({F['typed']} always has both).")
@click.option("--digits", type=StrictInt(0, 15), default=4, show_default=True, metavar="N",
              help="Decimal places of the differences.")
@output_options(FORMATS, format_more=f"{F['one_table']} give one table: the measures, or "
                                     f"every pair with --pairs; {F['typed']} gives both.",
                header_help=f"Leave out the header lines of {F['one_table']} output.")
@reports_errors
@takes_settings
def discpower(qrels, runs, measures, settings, test, correction, alpha, samples, seed, labels,
              pairs, digits, fmt, output, no_header):
    """Discriminative power (Sakai, SIGIR 2006): how many pairs of RUNS each measure (-m)
    tells apart.

    Every pair of runs is tested (-t) on the queries every run has a value for; each
    pair's achieved significance level (ASL) is its p-value, adjusted for the pairs of
    the measure. The table gives, for each measure, the pairs with ASL below --alpha,
    their share, and the estimated difference of means a pair needs to be significant:
    for randomized-tukey (Sakai's Discpower) the range of means the permutations exceed
    in a share alpha of them, for bootstrap Sakai 2006's estimated difference required
    (see STATISTICAL TESTS), for tukey the honestly significant difference, for the t and
    randomization tests the largest of the pairs' critical differences at alpha (or
    alpha over the pairs, with a correction). The caption names the test that ran and
    its source. plot -k asl draws the ASLs, sorted, one line per measure.
    """
    from smarteval.api import discpower as measure_discpower
    from smarteval.stats.table import DEFAULT_MEASURES, parse_label

    for text in labels:
        parse_label(text)                       # a malformed --label, before any work
    reuse_freed_memory([qrels, *runs])
    with evaluating(runs, noted=runs) as (_, finished):
        result = measure_discpower(qrels, list(runs), list(measures) or list(DEFAULT_MEASURES),
                                   settings=settings, test=test, correction=correction,
                                   alpha=alpha, samples=samples, seed=seed,
                                   labels=list(labels), on_run=finished)
    write_text(result.render(fmt, pairs=pairs, digits=digits, header=not no_header), output)
    if not is_table(fmt) and fmt != "json":
        for n in result.notes:
            note(f"smarteval: {n}")
