"""``smarteval diff``: where run B wins and loses against run A, query by query, and why."""

from __future__ import annotations

import click

from smarteval.cli.edge import evaluating, note, reports_errors
from smarteval.cli.options import CONTEXT, output_options, takes_settings, trec_options
from smarteval.cli.types import StrictFloat, StrictInt, input_path
from smarteval.output import write_text
from smarteval.render.diff import FORMATS
from smarteval.render.formats import is_table
from smarteval.render.formats import words as format_words
from smarteval.stats.diff import DEPTH, ORDERS, RBO_P

F = format_words()


@click.command("diff", context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("run_a", type=input_path())
@click.argument("run_b", type=input_path())
@trec_options(measure_help="Measure whose difference B - A orders the queries, trec_eval "
                           "style (ndcg_cut.10, map) or ir_measures style (nDCG@10): one "
                           "value a query. Default: ndcg_cut.10.")
@click.option("--by", type=click.Choice(list(ORDERS)), default="delta", show_default=True,
              help="Order of the queries: delta, the size of B - A on the measure, largest "
                   "first (wins and losses alike); tau or rbo, how little the two top-k "
                   "lists agree (Kendall's tau over their union, rank-biased overlap), "
                   "least first.")
@click.option("-k", "--depth", type=StrictInt(min=1), default=DEPTH, show_default=True,
              metavar="K", help="The top K documents compared and shown of each run.")
@click.option("--rbo-p", type=StrictFloat(0, 1, min_open=True), default=RBO_P,
              show_default=True, metavar="P",
              help="RBO's persistence: the weight of depth d is P^(d-1).")
@click.option("--limit", type=StrictInt(min=1), default=None, metavar="N",
              help="Show only the first N queries of the order.")
@click.option("--docs", default=None, metavar="FILE|ID",
              help="Document texts for the html page, shown on a click: a file of DOCNO TAB "
                   "TEXT lines (plain or compressed), or an ir_datasets id "
                   "(msmarco-passage) with the datasets extra.")
@output_options(FORMATS, format_more="html writes one self-contained page: the table, then "
                                     "each query's two top-k lists side by side.",
                header_help=f"Leave out the header line of {F['one_table']} output.")
@reports_errors
@takes_settings
def diff(qrels, run_a, run_b, measures, settings, by, depth, rbo_p, limit, docs, fmt,
         output, no_header):
    """Where RUN_B wins and loses against RUN_A, query by query, and why.

    The queries both runs have (-c: every query of the qrels), ordered by the
    difference B - A on the measure (-m, default ndcg_cut.10) or by how much the top K
    lists changed (--by tau|rbo). For each: both values, the rank of the first relevant
    document in each run, the relevant documents that came into or left the top K, and
    the unjudged documents that came into it (a common cause of an apparent loss). -f
    html writes one page that opens from a file in any browser, nothing fetched: the
    table, then each query's two lists side by side, grades coloured, unjudged
    documents marked, each document's move drawn, and with --docs its text.
    """
    from smarteval.api import diff as diff_runs
    from smarteval.errors import UsageError

    if len(measures) > 1:
        raise UsageError("diff compares one measure: give -m once")
    with evaluating([run_a, run_b]) as (_, finished):
        result = diff_runs(qrels, run_a, run_b, measures[0] if measures else None, by=by,
                           depth=depth, rbo_p=rbo_p, limit=limit, docs=docs,
                           settings=settings, on_run=finished)
    write_text(result.render(fmt, header=not no_header), output)
    if not is_table(fmt) or fmt == "html":
        for n in result.notes:
            note(f"smarteval: {n}")
