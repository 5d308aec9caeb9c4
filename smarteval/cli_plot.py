"""The ``plot`` command: reads and evaluates as ``evaluate`` does, then draws with smarteval.plot."""

from __future__ import annotations

import click

from smarteval.cli import CONTEXT, CliError, reports_errors, trec_options
from smarteval.errors import UsageError
from smarteval.plot import KINDS

CURVE_METHODS = ("semi", "quasi", "pseudo")
CURVE_STEPS = ("highest", "lowest", "middle", "mean", "ends")
CURVE_LEFTS = ("none", "zero", "one", "hybrid", "constant")
CURVE_AVERAGES = ("macro", "micro", "median")

#: Options that mean something for some kinds only, and the kinds they belong to.
KIND_OPTIONS = {
    "measures": ("-m/--measure", ("diff",)),
    "tolerance": ("--tolerance", ("diff",)),
    "method": ("--method", ("pr", "pr-queries")),
    "step": ("--step", ("pr", "pr-queries")),
    "left": ("--left", ("pr", "pr-queries")),
    "levels": ("--levels", ("pr", "pr-queries")),
    "best": ("--best", ("pr",)),
    "examined": ("--examined/--no-examined", ("pr",)),
    "scale": ("--scale", ("oc",)),
    "ranges": ("--ranges", ("first-rel",)),
}

_KIND_HELP = ("What to draw: pr (precision against recall, one line per run), pr-queries "
              "(every query's curve behind the mean and the median), oc (Swets' operating "
              "characteristic, recall against fallout; needs -N), diff (Keen's "
              "magnitude-difference plot of two runs on one measure), first-rel (histogram of "
              "the rank of the first relevant document).")


def _size(text: str | None):
    if text is None:
        return None
    try:
        w, h = (float(x) for x in text.lower().replace("x", ",").split(","))
        if w <= 0 or h <= 0 or w > 50 or h > 50:
            raise ValueError
    except ValueError:
        raise UsageError(f"--size takes WIDTH,HEIGHT in inches, e.g. 5,3.8; not {text!r}") \
            from None
    return (w, h)


def _check_kind_options(ctx: click.Context, kind: str) -> None:
    """An option given for a kind that ignores it is a usage error, not silently dropped."""
    for param, (flag, kinds) in KIND_OPTIONS.items():
        source = ctx.get_parameter_source(param)
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP") \
                and kind not in kinds:
            raise UsageError(f"{flag} applies to --kind {' and '.join(kinds)}, "
                             f"not to --kind {kind}")


@click.command("plot", context_settings=CONTEXT)
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-k", "--kind", type=click.Choice(KINDS), default="pr", show_default=True,
              help=_KIND_HELP)
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              metavar="FILE", help="Image to write: FILE.png, FILE.svg or FILE.pdf (the "
                                   "suffix names the format; written atomically).")
@trec_options
@click.option("--method", type=click.Choice(CURVE_METHODS), default="semi", show_default=True,
              help="pr, pr-queries: the curve method, as smarteval curve: semi (best "
                   "precision at or beyond each recall level), quasi (a point on each "
                   "vertical step, joined by lines), pseudo (recall and precision averaged "
                   "at every document cut-off).")
@click.option("--average", type=click.Choice(CURVE_AVERAGES), default="macro",
              show_default=True,
              help="pr, oc: averaging over queries (Rocchio's macro: mean of each query's "
                   "values; micro: pooled counts; median). oc takes macro or micro.")
@click.option("--step", type=click.Choice(CURVE_STEPS), default=None,
              help="pr, pr-queries with --method quasi: the point chosen on each vertical "
                   "step (Keen Fig. 15). Default: highest.")
@click.option("--left", type=click.Choice(CURVE_LEFTS), default=None,
              help="pr, pr-queries with --method quasi: extrapolation left of the first "
                   "point (Keen's methods; default constant).")
@click.option("--levels", default=None, metavar="LEVELS",
              help="pr, pr-queries: recall levels, a count n (1/n .. 1) or a list "
                   "(0.1,0.5,1). Default: 0.1 .. 1.0 in steps of 0.1.")
@click.option("--best", is_flag=True,
              help="pr: add the best possible curve of the (first run's) queries, dotted "
                   "(Keen Fig. 14a).")
@click.option("--examined/--no-examined", default=None,
              help="pr with --method pseudo: write the number of documents examined beside "
                   "each point. Default: for up to three runs.")
@click.option("--scale", type=click.Choice(["normal", "linear"]), default="normal",
              show_default=True,
              help="oc: normal-deviate axes (with each run's fitted line, its slope s and "
                   "Swets' E) or linear axes.")
@click.option("--ranges", default="1,3,10,30,100", show_default=True, metavar="R1,R2,...",
              help="first-rel: upper ends of the rank ranges (1 | 2-3 | 4-10 | ...); queries "
                   "past the last and those with nothing relevant retrieved get a bar each.")
@click.option("--tolerance", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="diff: differences at most this large count as equal.")
@click.option("--unranked", type=click.Choice(["expected", "worst"]), default="expected",
              show_default=True,
              help="Ranks given to relevant documents the run did not retrieve, when -N is "
                   "given (curves, measures that need them).")
@click.option("--ties", type=click.Choice(["docno", "random"]), default="docno",
              show_default=True,
              help="Order of documents with equal scores: trec_eval's docno order or a "
                   "seeded random order.")
@click.option("--seed", type=int, default=None, help="Seed for --ties random.")
@click.option("--title", default=None,
              help="Title above the plot; default a description of what is drawn, '' for none.")
@click.option("--size", default=None, metavar="W,H",
              help="Figure size in inches, e.g. 5,3.8 (the default for one panel).")
@click.option("--dpi", type=click.IntRange(30, 1200), default=200, show_default=True,
              help="Resolution of PNG output.")
@click.pass_context
@reports_errors
def plot(ctx, qrels, runs, kind, output, measures, complete, rel_level, max_docs, judged_only,
         num_docs, trec_version, method, average, step, left, levels, best, examined, scale,
         ranges, tolerance, unranked, ties, seed, title, size, dpi):
    """Draw RUNS against QRELS as an image: precision-recall curves (the default), every
    query's curve, Swets' operating characteristic, Keen's magnitude differences, or the
    rank of the first relevant document.

    Needs matplotlib: pip install 'smarteval[plot]'.

    \b
    smarteval plot qrels.txt a.run b.run -o pr.png
    smarteval plot qrels.txt a.run b.run -o pr.pdf --method pseudo --best
    smarteval plot qrels.txt a.run -k pr-queries -o queries.svg
    smarteval plot qrels.txt a.run b.run -k oc -N 528155 -o oc.png
    smarteval plot qrels.txt a.run b.run -k diff -m ndcg_cut.10 -o diff.png
    smarteval plot qrels.txt a.run b.run -k first-rel -o first.png
    """
    from smarteval import plot as P

    P.require_matplotlib()
    P.output_format(output)
    _check_kind_options(ctx, kind)
    fig_size = _size(size)
    if sum(r == "-" for r in runs) > 1:
        raise CliError("standard input ('-') can be given as only one run", 2)
    if kind == "diff" and len(runs) != 2:
        raise UsageError(f"--kind diff compares two runs; {len(runs)} given")

    from smarteval.api import run_names
    from smarteval.columns import Settings
    from smarteval.ranking import rank
    from smarteval.readers import read_qrels, read_run

    version = int(trec_version)
    settings = Settings(num_docs=num_docs, trec_version=version, unranked=unranked,
                        ties=ties, seed=seed)
    qrels_data = read_qrels(qrels)
    run_data = [read_run(r) for r in runs]
    names = run_names(run_data)
    kw = {} if fig_size is None else {"size": fig_size}

    if kind == "diff":
        fig = _diff(qrels_data, run_data, names, measures, complete, rel_level, max_docs,
                    judged_only, version, settings, tolerance, title, kw)
    else:
        ranked = [rank(r, qrels_data, complete=complete, rel_level=rel_level,
                       max_docs=max_docs, judged_only=judged_only, settings=settings)
                  for r in run_data]
        for r, run in zip(ranked, run_data):
            if not r.in_run.any():
                raise UsageError(f"{run.path}: no query of this run has judgements in {qrels}")
        if kind in ("pr", "pr-queries"):
            fig = _pr(kind, ranked, names, method, average, step, left, levels, best,
                      examined, title, kw)
        elif kind == "oc":
            fig = _oc(ranked, names, average, scale, title, kw)
        else:
            fig = _first_rel(ranked, names, ranges, title, kw)
    P.save(fig, output, dpi=dpi)


def _pr(kind, ranked, names, method, average, step, left, levels, best, examined, title, kw):
    from smarteval import plot as P
    from smarteval.curves import parse_levels, precision_curve

    lv = parse_levels(levels)
    opts = {"method": method, "step": step or "highest", "left": left}
    if kind == "pr":
        curves = [precision_curve(r, lv, average=average, **opts) for r in ranked]
        ideal = None
        if best:
            ideal = precision_curve(P.best_possible(ranked[0]), lv, average=average, **opts)
        nq = {r.num_queries for r in ranked}
        auto = P.curve_title(curves[0], nq.pop() if len(nq) == 1 else None)
        return P.pr_figure(curves, names, best=ideal, examined=examined,
                           title=auto if title is None else title, **kw)
    if method == "pseudo":
        raise UsageError("--kind pr-queries draws each query's curve at the recall levels, "
                         "which the pseudo method does not have (it averages cut-offs "
                         "first): use --method semi or quasi")
    if average != "macro":
        raise UsageError("--kind pr-queries draws both the mean and the median; "
                         "--average does not apply")
    panels = []
    for r, name in zip(ranked, names):
        mean = precision_curve(r, lv, average="macro", **opts)
        median = precision_curve(r, lv, average="median", **opts)
        panels.append((name, mean, median))
    auto = f"Each query's curve: {P.curve_method(panels[0][1])}"
    if len(panels) == 1:
        auto = f"{names[0]}, {ranked[0].num_queries} queries: {P.curve_method(panels[0][1])}"
    return P.pr_queries_figure(panels, title=auto if title is None else title, **kw)


def _oc(ranked, names, average, scale, title, kw):
    from smarteval import plot as P
    from smarteval.measures.swets import operating_characteristic

    if average == "median":
        raise UsageError("--kind oc averages by macro or micro (pooled counts), not median")
    ocs = [operating_characteristic(r, average) for r in ranked]
    nq = {oc.queries for oc in ocs}
    over = f" of {nq.pop()} queries" if len(nq) == 1 else ""
    auto = f"Operating characteristic: {average} average{over} at every cut-off"
    return P.oc_figure(ocs, names, scale=scale, title=auto if title is None else title, **kw)


def _first_rel(ranked, names, ranges, title, kw):
    from smarteval import plot as P

    edges = P.parse_ranges(ranges)
    labels = P.range_labels(edges)
    counts, queries = [], []
    for r in ranked:
        ranks = P.first_relevant_ranks(r)
        counts.append(P.first_relevant_counts(ranks, edges))
        queries.append(int((r.num_rel > 0).sum()))
    import numpy as np
    counts = np.array(counts)
    # a range past every list's end would stay empty for every run: leave it out
    longest = max(int(r.num_ret.max(initial=0)) for r in ranked)
    if longest <= edges[-1]:
        counts = np.delete(counts, len(edges), axis=1)
        labels = labels[:len(edges)] + labels[len(edges) + 1:]
    auto = "Queries by the rank of their first relevant document"
    return P.first_rel_figure(counts, labels, names, queries=queries,
                              title=auto if title is None else title, **kw)


def _diff(qrels, runs, names, measures, complete, rel_level, max_docs, judged_only, version,
          settings, tolerance, title, kw):
    from smarteval import plot as P
    from smarteval.api import evaluate
    from smarteval.compare import align, magnitudes

    if len(measures) > 1:
        raise UsageError("--kind diff plots one measure; give -m once")
    spec = measures[0] if measures else "map"
    evs = evaluate(qrels, runs, [spec], complete=complete, rel_level=rel_level,
                   max_docs=max_docs, judged_only=judged_only, trec_version=version,
                   settings=settings)
    outs = [o for o in evs[0].outputs if o.measure.average in ("mean", "gmean")
            and o.measure.value != "str"]
    if len(evs[0].outputs) != 1 or len(outs) != 1:
        got = ", ".join(evs[0].names)
        raise UsageError(f"--kind diff plots one numeric measure; -m {spec} gives {got}: "
                         f"choose one, e.g. -m P.10 or -m ndcg_cut.10")
    name = outs[0].name
    a, b = evs
    ids, ia, ib = align(a.qids, b.qids)
    if not len(ids):
        raise UsageError(f"{names[0]} and {names[1]} share no evaluated query")
    va, vb = a.per_query[name][ia], b.per_query[name][ib]
    mag = magnitudes(va, vb, ids, tolerance=tolerance)
    equal = len(ids) - len(mag.better) - len(mag.worse)
    auto = f"Magnitude of the per-query differences in {name} ({len(ids)} queries)"
    return P.diff_figure(mag, names[0], names[1], name, equal=equal,
                         title=auto if title is None else title, **kw)


# trec_options' -m reads "Default: official"; here it names diff's one measure
for _param in plot.params:
    if _param.name == "measures":
        _param.help = ("diff: the measure compared, one output (map, P.10, ndcg_cut.10, "
                       "nDCG@10). Default: map.")
