"""``smarteval curve``: a run's curve at levels (Keen's Cranfield curves and the other SMART
curves), or Keen part 7's pairs at another system's set sizes."""

from __future__ import annotations

import click

from smarteval.cli.edge import note, reports_errors
from smarteval.cli.options import (
    CONTEXT,
    cluster_options,
    curve_options,
    cutoffs_from_option,
    evaluation_flags,
    given_options,
    output_options,
    seed_option,
    takes_settings,
    target_generality_option,
    ties_option,
    trec_version_option,
    unranked_option,
)
from smarteval.cli.types import input_path
from smarteval.curves import METHOD_HELP
from smarteval.errors import UsageError
from smarteval.memory import reuse_freed_memory
from smarteval.render.curves import FORMATS
from smarteval.render.formats import words as format_words

_LEVELS_HELP = ("Levels: recall levels (precision levels for --method precision), a count "
                "n (1/n .. 1; default 10) or a list such as 0,0.1,0.5,1; for characteristic "
                "document cut-offs and for cnr stopping rules n, a count n (1 .. n) or a "
                "list such as 1,2,5,10.")


@click.command(context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("runs", nargs=-1, required=True, type=input_path(allow_dash=True))
@curve_options(method_help=METHOD_HELP, levels_help=_LEVELS_HELP,
               step_help="quasi, cluster: which point of each vertical step (Keen Fig. 15). "
                         "Default: highest.",
               left_help="quasi, cluster: left-end extrapolation below a query's first point "
                         "(Keen's methods 1-5). Default: constant.",
               average_help="How queries are averaged (Rocchio); quasi and cluster have no "
                            "micro average.")
@cluster_options()
@target_generality_option()
@cutoffs_from_option()
@evaluation_flags(
    metavar=None,
    complete_help="Average over every query of the qrels; a query without results is an "
                  "empty ranking.",
    max_docs_help="Evaluate only the first M documents of each query.",
    judged_help="Drop documents without a judgement before evaluating.",
    num_docs_help="Documents in the collection: places the unretrieved relevant documents "
                  "(--unranked), lets the cut-off curves run to N, and gives fallout.",
    min_num_docs=1)
@unranked_option(help="Ranks of relevant documents the run did not retrieve (with -N).")
@ties_option(("docno", "random"), help="Order of documents with equal scores.")
@seed_option()
@trec_version_option(help="Score comparison of trec_eval 9 (float) or 10 (double).")
@output_options(FORMATS, output_help="Write to this file (atomically) instead of standard output.",
                header_help=f"Leave out the header line ({format_words()['one_table_list']}).")
@click.pass_context
@reports_errors
@takes_settings
def curve(ctx, qrels, runs, settings, method, levels, step, left, average, full, cluster_end,
          cutoffs_from, fmt, output, no_header):
    """The curve of RUNS side by side at its levels (Keen's Cranfield curves and the others).

    Prints the averaged value at each level (precision at recall levels for semi, quasi,
    pseudo and cluster), the documents examined (cut-off methods), and per level how many
    queries were averaged from real points, how many by extrapolation and how many were
    left out (Keen Fig. 18). With --cutoffs-from, one precision-recall pair per run
    instead, each run cut where the other system stopped (Keen part 7).
    """
    reuse_freed_memory([qrels, *runs])
    from smarteval.api import curve as run_curve
    from smarteval.api import unused_notes
    from smarteval.output import write_text
    from smarteval.progress import Progress

    # --seed without --ties random, --target-generality without --method adjusted
    for text in unused_notes(settings, method=method):
        note(f"smarteval: {text}")
    if cutoffs_from is not None:
        ignored = sorted({"method", "levels", "step", "left", "full", "cluster_end"}
                         & given_options(ctx))
        if ignored:
            flags = ", ".join("--" + name.replace("_", "-") for name in ignored)
            raise UsageError(f"--cutoffs-from prints one precision-recall pair per run at the "
                             f"other system's set sizes; {flags} do not apply")
    with Progress(runs, "smarteval") as bar:    # only on a terminal, only for long work
        finished = bar.each_run(runs)

        bar.doing("computing curves")
        if cutoffs_from is not None:
            result = run_curve(qrels, list(runs), cutoffs_from=cutoffs_from, settings=settings,
                               average=average, on_run=finished)
        else:
            result = run_curve(qrels, list(runs), levels, settings=settings, method=method,
                               step=step, left=left, average=average, full=full,
                               end=cluster_end, on_run=finished, on_block=bar.block)
    for text in result.notes():                 # nothing relevant at -l
        note(f"smarteval: {text}")
    write_text(result.render(fmt, header=not no_header), output)
