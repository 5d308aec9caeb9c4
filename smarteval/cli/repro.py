"""``smarteval repro``: did a reproduction reproduce the original run (repro_eval's measures)."""

from __future__ import annotations

import click

from smarteval.cli.edge import evaluating, note, reports_errors
from smarteval.cli.options import CONTEXT, output_options, takes_settings, trec_options
from smarteval.cli.types import Numbers, StrictFloat, StrictInt, input_path
from smarteval.numerals import is_whole, pieces
from smarteval.output import write_text
from smarteval.render.formats import described, is_table
from smarteval.render.formats import words as format_words
from smarteval.render.repro import FORMATS
from smarteval.stats.repro import CUTOFFS, RBO_DEPTH, RBO_P

F = format_words()


def _cutoffs(ctx: click.Context, param, value: str) -> list[int]:
    # digits alone, as -m P.5,10 takes them (no sign, no empty item)
    items = pieces(value)
    cuts = [int(v) for v in items] if all(is_whole(v) and v[0].isdigit() for v in items) \
        else []
    if not cuts or min(cuts) < 1:
        raise click.BadParameter(f"{value!r}: expected whole numbers of 1 or more, separated "
                                 "by commas (5,10,100)", ctx, param)
    return cuts


@click.command("repro", context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("orig_run", type=input_path())
@click.argument("repro_run", type=input_path())
@trec_options(measure_help="Measure whose per-query values are compared, trec_eval style "
                           "(map, P.10) or ir_measures style (AP, P@10). Repeatable. "
                           "Default: map, P.10 and ndcg_cut.10.")
@click.option("--baseline-orig", type=input_path(), default=None, metavar="RUN",
              help="The original experiment's baseline run: with --baseline-repro, the "
                   "baselines are compared too, and the effect ratio (ER) and delta relative "
                   "improvement (DeltaRI) of the run over its baseline are given.")
@click.option("--baseline-repro", type=input_path(), default=None, metavar="RUN",
              help="The reproduction of the baseline (with --baseline-orig).")
@click.option("--replicability", type=input_path(), default=None, metavar="QRELS",
              help="A replication on another collection: the reproduced runs are evaluated "
                   "against QRELS (that collection's), compared by an unpaired t test, with "
                   "no KTU, RBO, RMSE or nRMSE (the queries are others).")
@click.option("--cutoffs", default=",".join(map(str, CUTOFFS)), show_default=True,
              metavar="K,...", callback=_cutoffs, type=Numbers(integers=True),
              help="Cut-offs of the ranking level: KTU and RBO of each query's lists cut "
                   "at each K.")
@click.option("--rbo-p", type=StrictFloat(0, 1, min_open=True), default=RBO_P,
              show_default=True, metavar="P",
              help="RBO's persistence: the weight of depth d is P^(d-1).")
@click.option("--rbo-depth", type=StrictInt(min=1), default=RBO_DEPTH,
              show_default=True, metavar="D",
              help="RBO sums the overlaps at depths 1..D (repro_eval's depth).")
@click.option("--ranking", is_flag=True,
              help=f"-f {F['one_table']}: write the ranking level (KTU and RBO per pair, query and "
                   "cut-off) instead of the effectiveness level.")
@click.option("--overall", is_flag=True,
              help=f"-f {F['one_table']}: write the overall effects (ER, DeltaRI per measure) "
                   "instead of the effectiveness level.")
@output_options(FORMATS,
                header_help=f"Leave out the header lines of {F['one_table']} output.")
@reports_errors
@takes_settings
@described
def repro(qrels, orig_run, repro_run, measures, settings, baseline_orig, baseline_repro,
          replicability, cutoffs, rbo_p, rbo_depth, ranking, overall, fmt, output, no_header):
    """Did REPRO_RUN reproduce ORIG_RUN? repro_eval's measures (Breuer et al., SIGIR 2020).

    At the ranking level, per query and cut-off (--cutoffs), Kendall's tau Union (KTU)
    and rank-biased overlap (RBO, --rbo-p, --rbo-depth) between the two runs' lists; at
    the effectiveness level, for each measure (-m), the runs' means, the root mean square
    error (RMSE) of their per-query values, the RMSE normalised by the largest possible
    (nRMSE) and the p-value of a paired t test; with
    --baseline-orig and --baseline-repro the same for the baselines, and the effect
    ratio (ER) and delta relative improvement (DeltaRI). --replicability QRELS: a
    replication on another collection (unpaired t test). Every number is repro_eval's,
    its quirks included (see REPRODUCIBILITY in the man page): a list is the run's lines
    as written, equal neighbouring scores docno descending; KTU compares the docno order
    of the documents at each pair of ranks. -f {typed} gives every level, KTU and RBO per
    query too; -f {one_table} write one table: the effectiveness level, or --ranking or
    --overall.
    """
    from smarteval.api import repro as reproduce
    from smarteval.render.formats import chosen_table

    chosen_table(fmt, {"--ranking": ranking, "--overall": overall}, "")   # before any work
    paths = [p for p in (orig_run, repro_run, baseline_orig, baseline_repro) if p]
    with evaluating(paths) as (_, finished):
        result = reproduce(qrels, orig_run, repro_run, list(measures),
                           baseline_orig=baseline_orig, baseline_repro=baseline_repro,
                           replicability=replicability, cutoffs=cutoffs, rbo_p=rbo_p,
                           rbo_depth=rbo_depth, settings=settings, on_run=finished)
    write_text(result.render(fmt, header=not no_header, ranking=ranking, overall=overall),
               output)
    if not is_table(fmt):
        for n in result.notes:
            note(f"smarteval: {n}")
