"""``smarteval correlate``: how much the choice of measure changes the leaderboard."""

from __future__ import annotations

import click

from smarteval.cli.edge import reports_errors
from smarteval.cli.options import CONTEXT, output_options, trec_version_option
from smarteval.output import write_text
from smarteval.render.correlate import FORMATS
from smarteval.render.formats import described
from smarteval.render.formats import words as format_words


@click.command("correlate", context_settings=CONTEXT)
@click.argument("results", nargs=-1, required=True, metavar="RESULTS...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure whose leaderboard to correlate, as named in the results (map, "
                   "P_10) or trec_eval style (P.10). Repeatable, two or more. Default: every "
                   "measure all the results share.")
@trec_version_option(help="trec_eval version whose measure names -m reads.")
@output_options(FORMATS, header_help="Leave out the header lines of "
                                     f"{format_words()['one_table']} output.")
@reports_errors
@described
def correlate(results, measures, trec_version, fmt, output, no_header):
    """How much the choice of measure changes the leaderboard.

    RESULTS are evaluation outputs (trec_eval's text, or smarteval evaluate -f
    {reads_back}), one or several runs each. For every pair of measures: Kendall's tau,
    Spearman, Pearson and tau-AP between the orders of the systems, and the number of
    pairs of systems the two measures order differently.
    """
    from smarteval.api import correlate as correlate_results

    board = correlate_results(list(results), list(measures), trec_version)
    write_text(board.render(fmt, header=not no_header), output)
