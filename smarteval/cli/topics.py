"""``smarteval topics``: how many topics a test collection needs (topic set size design)."""

from __future__ import annotations

import click

from smarteval.cli.edge import note, reports_errors
from smarteval.cli.options import CONTEXT, output_options, takes_settings, trec_options
from smarteval.cli.types import Numbers, StrictFloat, input_path
from smarteval.errors import UsageError
from smarteval.numerals import decimal, pieces, whole
from smarteval.output import write_text
from smarteval.render.formats import having, is_table, named
from smarteval.render.topicsets import FORMATS
from smarteval.stats.topicsets import METHODS

DATA = named([f for f in FORMATS if not is_table(f)])
ONE_TABLE = named(having("one_table", FORMATS))


def _numbers(text: str, option: str, kind=decimal) -> list:
    """``0.05,0.1`` (or repeated options joined) as numbers, or a usage error."""
    try:
        out = [kind(x) for x in pieces(text, ", ") if x]
    except ValueError:
        raise UsageError(f"{option} {text!r}: expected numbers separated by commas") from None
    if not out:
        raise UsageError(f"{option}: give at least one number")
    return out


@click.command("topics", context_settings=CONTEXT)
@click.argument("qrels", required=False, type=input_path())
@click.argument("runs", nargs=-1, type=input_path())
@click.option("-d", "--design", type=click.Choice(list(METHODS)), default="t",
              show_default=True,
              help="What the topics must give: " + "; ".join(f"{k}: {v}"
                                                           for k, v in METHODS.items()) + ".")
@click.option("--diff", "diffs", type=Numbers(", "), required=True, multiple=True,
              metavar="D,...",
              help="The difference of means to detect (t), the range of means to detect "
                   "(anova) or the largest expected width of the interval (ci): one or more, "
                   "comma-separated; a column each.")
@click.option("--variance", "variances", type=Numbers(", "), multiple=True, metavar="V,...",
              help="The within-system variance of the scores, one or more (a row each); "
                   "without it, each measure's is estimated from QRELS and RUNS.")
@trec_options(measure_help="With QRELS and RUNS: the measure whose variance to estimate "
                           "(map, P.10, nDCG@10...), a row each. Repeatable. Default: map, "
                           "P.10 and ndcg_cut.10.")
@click.option("--estimate", type=click.Choice(["residual", "within"]), default="residual",
              show_default=True,
              help="The variance estimated from RUNS: residual, V_E of the two-way ANOVA "
                   "without replication (runs x queries); within, the one-way ANOVA's "
                   "within-run variance (Sakai 2016's; it keeps the queries' difficulty, so "
                   "it is larger).")
@click.option("--systems", type=Numbers(", ", integers=True), default="2", show_default=True,
              metavar="M,...",
              help="anova: the number of systems compared, one or more (a table each).")
@click.option("--alpha", type=StrictFloat(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True,
              help="Significance level (ci: 1 - the interval's confidence).")
@click.option("--beta", type=StrictFloat(0, 1, min_open=True, max_open=True),
              default=0.20, show_default=True,
              help="t, anova: the chance of missing the difference (the power is 1 - beta).")
@output_options(FORMATS, format_more="smart, markdown and latex give Sakai's tables (a "
                                     f"variance a row, a difference a column); {DATA} "
                                     "one row per design.",
                header_help=f"Leave out the header line of {ONE_TABLE} output.")
@reports_errors
@takes_settings
def topics(qrels, runs, design, diffs, variances, measures, settings, estimate, systems, alpha,
           beta, fmt, output, no_header):
    """Topic set size design (Sakai, Information Retrieval Journal 2016): the number of
    topics a test collection needs, from a variance estimate.

    For each within-system variance (--variance, or each measure's estimated from QRELS
    and RUNS, the runs of an existing collection) and each difference (--diff): the
    smallest number of topics with which a paired t-test detects the difference with
    probability 1 - beta at level alpha (-d t), one-way ANOVA over --systems systems
    detects that range of means (-d anova), or the confidence interval of a difference
    is expected to be no wider (-d ci). The paired designs take the variance of a
    difference as twice the variance, which assumes no covariance and errs on the safe
    side. Powers are exact (noncentral t and F), the interval's width uses the expected
    standard deviation.

    \b
    smarteval topics --diff 0.05,0.1 --variance 0.02,0.05
    smarteval topics qrels.txt a.run b.run c.run -m map -m nDCG@10 --diff 0.02,0.05,0.1
    smarteval topics -d anova --systems 2,10 --diff 0.1,0.2 --variance 0.05
    """
    from smarteval.api import topics as design_topics
    from smarteval.stats.table import DEFAULT_MEASURES

    # QRELS and RUNS are arguments of their own: the checks every command shares know
    # them as the qrels and the runs (-o onto one of them, standard input twice)
    inputs = (qrels, *runs) if qrels is not None else ()
    differences = _numbers(",".join(diffs), "--diff")
    sizes = _numbers(systems, "--systems", whole)
    given = _numbers(",".join(variances), "--variance") if variances else None
    if inputs and given is not None:
        raise UsageError("--variance is given: QRELS and RUNS would only estimate it again")
    if not inputs and given is None:
        raise UsageError("give --variance, or QRELS and two or more RUNS to estimate it from")
    if inputs and len(inputs) < 3:
        raise UsageError("estimating a variance needs QRELS and two or more RUNS")
    result = design_topics(differences, given, method=design, systems=sizes, alpha=alpha,
                           beta=beta, qrels=inputs[0] if inputs else None,
                           runs=list(inputs[1:]) if inputs else None,
                           measures=list(measures) or list(DEFAULT_MEASURES),
                           estimate=estimate, settings=settings)
    write_text(result.render(fmt, header=not no_header), output)
    for n in result.notes:
        note(f"smarteval: {n}")
