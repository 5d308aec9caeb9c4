"""``smarteval plot``: click wiring over :func:`smarteval.plot.build.image`."""

from __future__ import annotations

import click

from smarteval.cli.edge import note, reports_errors
from smarteval.cli.options import (
    CONTEXT,
    cluster_options,
    curve_options,
    cutoffs_from_option,
    given_options,
    seed_option,
    takes_settings,
    target_generality_option,
    ties_option,
    trec_options,
    unranked_option,
)
from smarteval.cli.types import Numbers, StrictFloat, StrictInt, input_path, output_path
from smarteval.curves import METHOD_HELP
from smarteval.plot import KINDS
from smarteval.stats.discpower import DISCPOWER_TESTS

_KIND_HELP = ("What to draw: pr (precision against recall, one line per run), pr-queries "
              "(every query's curve behind the mean and the median), oc (Swets' operating "
              "characteristic, recall against fallout; needs -N), diff (Keen's "
              "magnitude-difference plot of two runs on one measure), first-rel (histogram of "
              "the rank of the first relevant document), characteristic (Giuliano & Jones' "
              "performance characteristic: relevance points found against documents examined, "
              "Keen Fig. 26a), fallout (fallout against recall by document cut-offs, Keen Fig. "
              "28b; needs -N), asl (Sakai's ASL curves: every pair of runs' achieved "
              "significance level, sorted, one line per measure; see smarteval discpower).")

@click.command("plot", context_settings=CONTEXT)
@click.argument("qrels", type=input_path())
@click.argument("runs", nargs=-1, required=True, type=input_path(allow_dash=True))
@click.option("-k", "--kind", type=click.Choice(KINDS), default="pr", show_default=True,
              help=_KIND_HELP)
@click.option("-o", "--output", required=True, type=output_path(),
              metavar="FILE", help="Image to write: FILE.png, FILE.svg or FILE.pdf (the "
                                   "suffix names the format; written atomically).")
@trec_options(measure_help="diff: the measure compared, one output (map, P.10, ndcg_cut.10, "
                           "nDCG@10). Default: map. asl: the measures, a line each; default map, "
                           "P.10 and ndcg_cut.10.")
@curve_options(
    order=("method", "average", "step", "left", "levels"), method_default="semi",
    method_help="pr, pr-queries: the curve method, one of smarteval curve's (the default "
                "here is semi, Keen's precision-recall figures; curve's is quasi). "
                + METHOD_HELP + " "
                "characteristic and fallout are kinds of their own; pr-queries takes semi, "
                "quasi and cluster.",
    average_help="pr, oc, characteristic, fallout: averaging over queries (Rocchio's macro: "
                 "mean of each query's values; micro: pooled counts; median). oc takes macro "
                 "or micro.",
    step_help="pr, pr-queries with --method quasi or cluster: the point chosen on each "
              "vertical step (Keen Fig. 15). Default: highest.",
    left_help="pr, pr-queries with --method quasi or cluster: extrapolation left of the "
              "first point (Keen's methods; default constant).",
    levels_help="pr, pr-queries, fallout: the method's levels, a count n or a list (recall "
                "levels 1/n .. 1 or 0.1,0.5,1; for cnr stopping rules 1 .. n or 1,2,5). "
                "Default: 0.1 .. 1.0 in steps of 0.1 (cnr: 1 .. 10).")
@cluster_options(prefix="pr, pr-queries with ")
@target_generality_option(help="pr with --method adjusted: the generality G (relevant "
                               "documents per thousand) precision is adjusted to (Keen Fig. "
                               "28c).")
@cutoffs_from_option(help="pr: mark on each run's curve its precision-recall pair when cut, "
                          "query by query, at the size of the set this RUN retrieved, and "
                          "that RUN's own pair (Keen part 7).")
@click.option("--best", is_flag=True,
              help="pr, characteristic, fallout: add the best possible curve of the (first "
                   "run's) queries, dotted (Keen Fig. 14a, 26a).")
@click.option("--examined/--no-examined", default=None,
              help="pr with a cut-off method (pseudo, points, adjusted; cnr: its n), fallout: "
                   "write the number of documents examined beside each point. Default: for "
                   "up to three runs.")
@click.option("--scale", type=click.Choice(["normal", "linear"]), default="normal",
              show_default=True,
              help="oc: normal-deviate axes (with each run's fitted line, its slope s and "
                   "Swets' E) or linear axes.")
@click.option("--ranges", type=Numbers(integers=True), default="1,3,10,30,100",
              show_default=True, metavar="R1,R2,...",
              help="first-rel: upper ends of the rank ranges (1 | 2-3 | 4-10 | ...); queries "
                   "past the last and those with nothing relevant retrieved get a bar each.")
@click.option("--tolerance", type=StrictFloat(min=0), default=0.0, show_default=True,
              help="diff: differences at most this large count as equal.")
@click.option("--test", type=click.Choice(list(DISCPOWER_TESTS)), default="randomized-tukey",
              show_default=True, help="asl: the test of every pair (as smarteval discpower).")
@click.option("--alpha", type=StrictFloat(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="asl: the significance level marked.")
@click.option("--samples", type=StrictInt(1, 1_000_000), default=10000,
              show_default=True, metavar="N",
              help="asl: permutations (randomized-tukey), resamples (bootstrap) or sign "
                   "assignments (randomization); "
                   "--seed seeds them (default 0).")
@unranked_option(help="Ranks given to relevant documents the run did not retrieve, when -N "
                      "is given (curves, measures that need them).")
@ties_option(("docno", "random"), help="Order of documents with equal scores: trec_eval's "
                                       "docno order or a seeded random order.")
@seed_option()
@click.option("--title", default=None,
              help="Title above the plot; default a description of what is drawn, '' for none.")
@click.option("--size", type=Numbers(",xX"), default=None, metavar="W,H",
              help="Figure size in inches, e.g. 5,3.8 (the default for one panel).")
@click.option("--dpi", type=StrictInt(30, 1200), default=200, show_default=True,
              help="Resolution of PNG output.")
@click.pass_context
@reports_errors
@takes_settings
def plot(ctx, qrels, runs, output, dpi, settings, **options):
    """Draw RUNS against QRELS as an image: precision-recall curves (the default), every
    query's curve, Swets' operating characteristic, Keen's magnitude differences, the
    rank of the first relevant document, the performance characteristic, or fallout
    against recall.

    Needs matplotlib: pip install 'smarteval[plot]'.

    \b
    smarteval plot qrels.txt a.run b.run -o pr.png
    smarteval plot qrels.txt a.run b.run -o pr.pdf --method pseudo --best
    smarteval plot qrels.txt a.run -k pr-queries -o queries.svg
    smarteval plot qrels.txt a.run b.run -k oc -N 528155 -o oc.png
    smarteval plot qrels.txt a.run b.run -k diff -m ndcg_cut.10 -o diff.png
    smarteval plot qrels.txt a.run b.run -k first-rel -o first.png
    smarteval plot qrels.txt cluster.run --method cluster --full full.run -o cluster.png
    smarteval plot qrels.txt a.run b.run -k characteristic --best -o fig26a.png
    smarteval plot qrels.txt a.run b.run -k fallout -N 1400 --average micro -o fig28b.png
    smarteval plot qrels.txt a.run --method adjusted -N 82 --target-generality 23.16 -o a.png
    smarteval plot qrels.txt a.run --method pseudo --cutoffs-from boolean.run -o part7.png
    smarteval plot qrels.txt a.run b.run c.run -k asl -m map -m nDCG@10 -o asl.png
    """
    import os

    from smarteval.api import unused_notes
    from smarteval.output import write_bytes
    from smarteval.plot.build import EXAMINED_METHODS, PlotOptions, picture
    from smarteval.progress import Progress
    from smarteval.render.evaluation import nothing_relevant

    opts = PlotOptions(**options)
    # --seed without --ties random, --target-generality without --method adjusted
    notes = unused_notes(settings, method=opts.method if opts.kind == "pr" else None)
    if opts.kind == "asl":                      # --seed seeds the permutations as well
        notes = [n for n in notes if not n.startswith("--seed")]
    if opts.kind == "pr" and opts.examined is not None and opts.method not in EXAMINED_METHODS:
        flag = "--examined" if opts.examined else "--no-examined"
        notes.append(f"{flag} has no effect: only the cut-off methods "
                     f"({', '.join(EXAMINED_METHODS)}) write numbers beside their points "
                     f"(--method {opts.method})")
    for text in notes:
        note(f"smarteval: {text}")
    with Progress(runs, "smarteval") as bar:    # only on a terminal, only for long work
        finished = bar.each_run(runs)

        bar.doing("drawing")
        data, drawn = picture(output, qrels, runs, settings, opts, given=given_options(ctx),
                              dpi=dpi, on_run=finished)
    for text in nothing_relevant(drawn.qrels, list(drawn.qids), settings.rel_level) \
            if drawn.qids else []:
        note(f"smarteval: {text}")
    write_bytes(data, output, suffix=os.path.splitext(output)[1])
