"""The option groups the commands share, declared once: click's settings, the options that
set a field of :class:`Settings` (:func:`setting`) and the one ``settings`` they make."""

from __future__ import annotations

import functools
import signal
from collections.abc import Callable
from typing import Any

import click

from smarteval.cli.edge import CliError, interrupted
from smarteval.cli.types import Numbers, StrictFloat, StrictInt, input_path, output_path
from smarteval.errors import BAD_USAGE, SIGNALLED, SmartevalError
from smarteval.numerals import is_whole, pieces
from smarteval.settings import (
    AVERAGES,
    ORDERS,
    QRELS_FORMATS,
    RESULTS_FORMATS,
    TIES,
    TREC_VERSIONS,
    UNJUDGED,
    UNRANKED,
    Settings,
)

CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def group(*options: Decorator) -> Decorator:
    """Several click options applied as one decorator, in the order given."""
    def apply(func):
        for opt in reversed(options):
            func = opt(func)
        return func
    return apply


#: The settings of a command that is given none: their defaults are the options' defaults.
DEFAULTS = Settings()


class SettingOption(click.Option):
    """An option that sets the field of :class:`Settings` of its name (:func:`setting`)."""


def setting(*decls: str, **attrs: Any) -> Decorator:
    """A click option that sets the field of :class:`Settings` its parameter is named after:
    a command under :func:`takes_settings` gets it inside its one ``settings`` argument."""
    return click.option(*decls, cls=SettingOption, **attrs)


def takes_settings(func):
    """Give the command one ``settings`` argument, the :class:`Settings` made of all its
    options declared with :func:`setting`, instead of each of them (the one place options
    become settings: a new setting is a field of Settings and an option in a group, and
    every command that takes the group passes it on). Settings refuses what cannot work,
    as a usage error (under :func:`reports_errors`)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        params = click.get_current_context().command.params
        given = {p.name: kwargs.pop(p.name) for p in params
                 if isinstance(p, SettingOption) and p.name in kwargs}
        return func(*args, settings=Settings(**given), **kwargs)
    return wrapper


def complete_measures(ctx, param, incomplete: str):
    """Shell completion of -m: measure names, nicknames and ir_measures names; a name
    that takes parameters (``ndcg_cut``, ``P``, ``nDCG``) without a space after it, so
    that ``.10`` or ``@10`` follows it (:mod:`smarteval.cli.complete`)."""
    from smarteval.cli.complete import item
    from smarteval.measures import ALIASES, all_measures, nicknames
    from smarteval.measures.grammar import IR_NAMES
    measures = all_measures()
    names = [*measures, *nicknames(10), *ALIASES]

    def takes_parameters(name: str) -> bool:
        if name in measures:
            return measures[name].params != "none"
        entry = IR_NAMES.get(name)
        return entry is not None and (entry.cut is not None or bool(entry.params))
    return [item(n, takes_parameters(n)) for n in sorted(dict.fromkeys(names))
            if n.startswith(incomplete)]


def measure_option(help: str = "Measure to compute, trec_eval style (map, P.5,10, ndcg_cut.10, "
                                "official, all_trec) or ir_measures style (AP, P@10, nDCG@10). "
                                "Repeatable. Default: official.") -> Decorator:
    return click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
                        shell_complete=complete_measures, help=help)


#: What ``trec_eval -v`` prints after "trec_eval version " (9.0.8 calls itself 9.0.7).
TREC_EVAL_VERSION_TEXT = {9: "9.0.7", 10: "10.0-rc3"}
_VERSION_WANTED = "smarteval.trec_eval_version"      # ctx.meta key: -v seen, version unknown


def _print_trec_eval_version(ctx: click.Context, trec_version: int) -> None:
    click.echo(f"trec_eval version {TREC_EVAL_VERSION_TEXT[trec_version]}", err=True)
    ctx.exit(0)


def _trec_version_seen(ctx: click.Context, param, value: str | None) -> int | None:
    """The version as a number (the one place it becomes one); eager, like -v: whichever
    of the two comes second prints (see :func:`trec_eval_version_option`)."""
    version = None if value is None else int(value)
    if ctx.meta.get(_VERSION_WANTED) and not ctx.resilient_parsing:
        _print_trec_eval_version(ctx, version if version is not None else DEFAULTS.trec_version)
    return version


def trec_version_option(help: str = "trec_eval version to match: 9 (9.0.8) or 10 (10.0).",
                        default: int | None = DEFAULTS.trec_version,
                        show_default: bool = True) -> Decorator:
    """``--trec-version 9|10``, given to the command as a number (None: not given, where
    ``default`` is None)."""
    return setting("--trec-version", type=click.Choice([str(v) for v in TREC_VERSIONS]),
                   default=None if default is None else str(default),
                   show_default=show_default, help=help, is_eager=True,
                   callback=_trec_version_seen)


def _trec_eval_version_wanted(ctx: click.Context, param, value):
    if not value or ctx.resilient_parsing:
        return value
    if "trec_version" in ctx.params:
        _print_trec_eval_version(ctx, ctx.params["trec_version"])
    ctx.meta[_VERSION_WANTED] = True
    return value


def trec_eval_version_option() -> Decorator:
    """``-v``: print what ``trec_eval -v`` prints for the --trec-version matched, and exit.

    Both options are eager, so this works before the files are checked and whatever
    their order on the command line.
    """
    return click.option("-v", "--trec-eval-version", is_flag=True, expose_value=False,
                        is_eager=True, callback=_trec_eval_version_wanted,
                        help="Print what trec_eval -v prints for the --trec-version matched "
                             "('trec_eval version 9.0.7' for 9.0.8, which calls itself "
                             "9.0.7; '10.0-rc3' for 10.0) on standard error, and exit.")


def _debug_query(ctx: click.Context, param, value: str | None) -> str | None:
    """trec_eval's -D LEVEL[.QUERY] into QUERY (None without one); LEVEL is ignored."""
    if value is None:
        return None
    level, dot, query = value.partition(".")
    if not is_whole(level):
        raise click.BadParameter(f"{value!r}: expected LEVEL or LEVEL.QUERY, LEVEL an integer "
                                 "(0.401 evaluates query 401 only)", ctx, param)
    return query if dot else None


def debug_option() -> Decorator:
    """``-D LEVEL.QUERY``: trec_eval's debug level, whose query part restricts evaluation."""
    return setting("-D", "--debug-level", "query", default=None, metavar="LEVEL[.QUERY]",
                   callback=_debug_query,
                   help="trec_eval's -D: evaluate QUERY only (0.401: query 401); -c still "
                        "averages over every query of the qrels. The debug LEVEL is accepted "
                        "and ignored (no debug output).")


def evaluation_flags(*, metavar: str | None = "N",
                     complete_help: str = "Average over every query of the qrels: one "
                                          "without results scores 0 on trec_eval's measures "
                                          "(10.0: its placeholder document's values) and its "
                                          "empty ranking on the SMART measures.",
                     max_docs_help: str = "Evaluate only the first N documents of each query.",
                     judged_help: str = "Drop retrieved documents without a judgement before "
                                        "evaluating.",
                     num_docs_help: str = "Number of documents in the collection (0, "
                                          "trec_eval's default, leaves it unknown).",
                     min_num_docs: int = 0) -> Decorator:
    """The ranking flags every command that ranks runs takes: trec_eval's ``-c``, ``-l``,
    ``-M``, ``-J`` and ``-N`` (the fields of :class:`Settings` they set), with the help a
    command gives them.

    A new ranking option is a field of Settings and one :func:`setting` here: every such
    command then takes it and hands it to the library in its ``settings``
    (tests/test_formats.py checks so).
    """
    return group(
        setting("-c", "--complete", is_flag=True, help=complete_help),
        setting("-l", "--level", "rel_level", type=StrictInt(), default=DEFAULTS.rel_level,
                show_default=True, metavar=metavar, help="Lowest grade that counts as relevant."),
        setting("-M", "--max-docs", type=StrictInt(min=0), default=None,
                metavar=metavar, help=max_docs_help),
        setting("-J", "--judged-only", is_flag=True, help=judged_help),
        setting("-N", "--num-docs", type=StrictInt(min=min_num_docs), default=None,
                metavar=metavar, help=num_docs_help, callback=_unknown_if_zero),
        setting("--unjudged", type=click.Choice(UNJUDGED), default=DEFAULTS.unjudged,
                show_default=True,
                help="What a retrieved document without a judgement of 0 or more (absent "
                     "from the qrels, or judged below 0) counts as: nonrelevant "
                     "(trec_eval's); drop: removed before ranking, the condensed list (-J); "
                     "relevant: judged at --unjudged-grade, added to its query's "
                     "judgements (R grows); range: every measure NAME printed as it is, "
                     "then NAME_min and NAME_max, its least and greatest value over every "
                     "grading of the unjudged documents (each as it is or at "
                     "--unjudged-grade), for the measures the man page's UNJUDGED "
                     "DOCUMENTS names (else NAME_if_relevant: a second reading, not a "
                     "bound), and NAME_judged, the judged share of the documents it reads "
                     "(its first k for a cut-off)."),
        setting("--unjudged-grade", type=StrictInt(min=0), default=None, metavar="G",
                help="The grade --unjudged relevant and range give an unjudged document "
                     "(default: the highest grade of the qrels, at least -l)."),
    )


def _unknown_if_zero(ctx: click.Context, param, value: int | None) -> int | None:
    """-N 0, trec_eval's default: the number of documents is unknown."""
    return value or None


def trec_options(measure_help: str | None = None) -> Decorator:
    """trec_eval's evaluation flags, shared by every command that evaluates measures, and
    ``--plugin``."""
    return group(
        measure_option() if measure_help is None else measure_option(measure_help),
        evaluation_flags(),
        trec_version_option(),
        plugin_option(),
    )


def _load_plugins(ctx: click.Context, param, value) -> None:
    """Load each ``--plugin`` before the other options are read (while completing a shell
    word, a plugin that fails is left out without a word)."""
    for spec in value or ():
        try:
            from smarteval.measures import load_plugin
            load_plugin(spec)
        except SmartevalError as exc:
            if ctx.resilient_parsing:
                continue
            raise CliError(str(exc), exc.exit_code) from None
        except KeyboardInterrupt:
            # Ctrl-C while a plugin loads (before the command's handler is in place): as
            # anywhere else, not click's "Aborted!" and exit 1
            raise CliError(interrupted(signal.SIGINT), SIGNALLED + signal.SIGINT) from None


def plugin_option() -> Decorator:
    """``--plugin MODULE``: measures of one's own (:mod:`smarteval.measures.plugins`),
    loaded first, so that every other option sees them."""
    return click.option("--plugin", multiple=True, metavar="MODULE", is_eager=True,
                        expose_value=False, callback=_load_plugins,
                        help="Load measures of your own from MODULE, a module name or the "
                             "path of a .py file (repeatable): -m then takes them like "
                             "smarteval's own. Installed packages' smarteval.measures entry "
                             "points are loaded without it.")


def ties_option(choices=TIES, help: str | None = None) -> Decorator:
    return setting("--ties", type=click.Choice(list(choices)), default=DEFAULTS.ties,
                   show_default=True, help=help or (
                       "Order of documents with equal scores: trec_eval's docno order, "
                       "a seeded random order, or the exact average over every order."))


def seed_option() -> Decorator:
    return setting("--seed", type=StrictInt(min=0), default=None,
                   help="Seed for --ties random (0 or more).")


def _levels_bounded(ctx: click.Context, param, value: str | None) -> str | None:
    """--levels asking for more than :data:`~smarteval.curves.base.MAX_LEVELS` levels is
    refused before any work."""
    from smarteval.curves.base import MAX_LEVELS, is_count, levels_limit
    if value is None:
        return value
    items = [x for x in pieces(value) if x]
    count = len(items)
    if count == 1 and is_count(items[0]):
        count = int(items[0])
    if count > MAX_LEVELS:
        raise CliError(levels_limit(value, count), BAD_USAGE)
    return value


def unranked_option(help: str = "Ranks given to relevant documents the run did not retrieve "
                                "(SMART measures that need them).") -> Decorator:
    return setting("--unranked", type=click.Choice(list(UNRANKED)), default=DEFAULTS.unranked,
                   show_default=True, help=help)


def average_option(help: str = "How query values are averaged.") -> Decorator:
    return setting("--average", type=click.Choice(list(AVERAGES)), default=DEFAULTS.average,
                   show_default=True, help=help)


def output_options(formats: tuple[str, ...], *, format_more: str = "",
                   output_help: str = "Write to FILE (atomically) instead of standard output.",
                   header_help: str = "") -> Decorator:
    """``-f/--format``, ``-o/--output`` and ``--no-header``, shared by every printing command.

    ``formats`` are those of the command's renderer (its ``FORMATS``, from
    :func:`smarteval.render.formats.writable`); the help names each with the registry's
    words, then ``format_more``; ``header_help`` is that of ``--no-header`` (by default
    it names the formats of one table).
    """
    if not header_help:
        from smarteval.render.formats import words
        header_help = f"Leave out the header line of {words()['one_table']} output."
    return group(
        format_option(formats, format_more),
        click.option("-o", "--output", "output", type=output_path(), metavar="FILE",
                     default=None, help=output_help),
        click.option("--no-header", is_flag=True, help=header_help),
    )


def format_option(formats: tuple[str, ...], more: str = "") -> Decorator:
    """``-f/--format``: one of the renderer's ``formats``, smart by default."""
    from smarteval.render.formats import format_help
    return click.option("-f", "--format", "fmt", type=click.Choice(list(formats)),
                        default="smart", show_default=True, help=format_help(formats, more))


def _file_and_number(file: tuple[str, str, str],
                     number: tuple[str, click.ParamType, float, str, str],
                     option: Callable[..., Decorator] = click.option) -> Decorator:
    """An input file option (name, metavar, help) and the number that goes with it
    (name, type, default, metavar, help), each made by ``option``."""
    name, metavar, text = file
    num_name, num_type, default, num_metavar, num_text = number
    return group(
        option(name, type=input_path(), default=None, metavar=metavar, help=text),
        option(num_name, type=num_type, default=default, show_default=True,
               metavar=num_metavar, help=num_text))


def risk_options() -> Decorator:
    """ndeval's ``-baseline RUN`` and ``-riskAlpha A``: risk-sensitive values against a run."""
    return _file_and_number(
        ("--risk-baseline", "RUN",
         "ndeval's -baseline: print each run's risk-sensitive values against RUN, query by "
         "query the difference run - RUN, a loss weighted by 1 + --risk-alpha, over the "
         "queries of either run (one a run lacks counts 0 for it), and their mean."),
        ("--risk-alpha", StrictFloat(min=0), 0.0, "A",
         "ndeval's -riskAlpha: the weight 1 + A of a loss against --risk-baseline (0: the "
         "plain difference)."))


def cwl_options() -> Decorator:
    """cwl_eval's ``-c COSTS`` and its default cost, for the C/W/L measures."""
    return _file_and_number(
        ("--cwl-costs", "FILE",
         "cwl_eval's cost file (its -c): ELEMENT_TYPE COST a line, the element type being a "
         "run's second field (Q0). The C/W/L measures (INST, TBG, BPM...) and their EC, ETC "
         "quantities then cost each document so."),
        ("--cwl-default-cost", StrictFloat(min=0, min_open=True),
         DEFAULTS.cwl_default_cost, "COST",
         "The cost of a document whose element type the --cwl-costs file lacks, of every "
         "document without it, and of the ranks cwl_eval pads a list with (its --max_cost "
         "and --min_cost)."), option=setting)


def order_by_option() -> Decorator:
    """How each query's documents are ordered: by score, or by the rank column (ndeval)."""
    return setting(
        "--order-by", type=click.Choice(list(ORDERS)), default=DEFAULTS.order_by,
        show_default=True,
        help="Order of each query's documents: by score, ties by docno (trec_eval's, and "
             "ndeval's -traditional), or by the run's rank column (ndeval's default; for "
             "the diversity measures alone, a rank twice in a query refused).")


def rel_info_format_option() -> Decorator:
    """trec_eval's ``-R``: the format of the relevance file."""
    return setting(
        "-R", "--rel-info-format", "qrels_format", type=click.Choice(list(QRELS_FORMATS)),
        default=DEFAULTS.qrels_format, show_default=True,
        help="Format of the relevance file: trec_eval's qrels; ndeval's diversity qrels "
             "(QUERY SUBTOPIC DOCNO REL) for the diversity measures (asked for a diversity "
             "measure, a qrels file whose second field varies within a query is read so, "
             "and said); trec_eval's preferences, prefs (QUERY JG JSG DOCNO LEVEL), or "
             "qrels_prefs (a qrels file read as preferences, its second field the judgement "
             "group), for the prefs_* measures (default -m prefs); qrels_jg (QUERY JG DOCNO "
             "REL, a qrels per judgement group) for map_avgjg, P_avgjg and Rprec_mult_avgjg "
             "(default -m qrels_jg). Without prefs or judgement groups those measures read "
             "the qrels as one judgement group per query. sample_qrels: sample_eval's "
             "sampled judgements (QUERY ITER DOCNO STRATUM REL, REL -1 for a pooled document "
             "not sampled, a fraction allowed as sample_eval reads one: 1.5 is relevant and "
             "gains 1.5 in infNDCG) for its measures, printed under its names (default -m "
             "sample_eval).")


def results_format_option() -> Decorator:
    """trec_eval's ``-T``: the format of the runs, of which it has one."""
    return click.option(
        "-T", "--results-format", "--Results_format", type=click.Choice(list(RESULTS_FORMATS)),
        default=RESULTS_FORMATS[0], show_default=True, expose_value=False,
        help="Format of the runs, as trec_eval's -T: trec_results (QUERY Q0 DOCNO RANK "
             "SCORE TAG), the only one trec_eval has; accepted so that its command lines "
             "run unchanged (Parquet and JSON Lines runs are told by their names or first "
             "bytes whatever -T says).")


#: Why ``compare`` has no z-scores.
_COMPARE_ZSCORES = ("-Z/--zscores: compare tests the per-query differences of raw values; "
                    "z-scores would weigh each query's difference by the reference runs' "
                    "spread, and a query missing from the file would count -1000000. "
                    "Standardize with evaluate -Z -q instead")


def _refuse_zscores(ctx: click.Context, param, value):
    if value is not None and not ctx.resilient_parsing:
        raise click.UsageError(_COMPARE_ZSCORES, ctx)
    return value


def zscores_option(*, refused: bool = False) -> Decorator:
    """trec_eval's ``-Z ZMEAN_FILE`` (also ``--Zscore``, its own long name): print z-scores.

    ``refused``: the command does not standardize, and says why when ``-Z`` is given.
    """
    if refused:
        return click.option("-Z", "--zscores", "--Zscore", "zscores", default=None,
                            metavar="ZMEAN_FILE", expose_value=False,
                            callback=_refuse_zscores,
                            help="Not for compare: see evaluate -Z.")
    return click.option(
        "-Z", "--zscores", "--Zscore", "zscores", type=input_path(), default=None,
        metavar="ZMEAN_FILE",
        help="Print z-scores instead of raw values, as trec_eval's -Z: each query's value "
             "less the mean over reference runs, in their standard deviations, from "
             "ZMEAN_FILE's lines QUERY MEASURE MEAN STDDEV (measures named as printed: "
             "P_5, not P.5). -1000000 where the file has no mean for the query and "
             "measure, or a standard deviation of 0 and a value other than the mean. Each "
             "summary is the measure's own average of the z-scores (the counts' sum; "
             "num_q stays the number of queries). Names print with a Z (Zmap) in every "
             "format; JSON also names the file. A query's measure given twice is "
             "refused.")


def curve_options(*, method_default: str = "quasi",
                  method_help: str = "semi: best precision at or above each recall level; "
                                     "quasi: a point chosen on each step, joined by lines "
                                     "(SMART's usual curve); pseudo: recall and precision "
                                     "averaged at each document cut-off.",
                  levels_help: str = "Recall levels: a count n (levels 1/n .. 1; default 10) "
                                     "or a list such as 0,0.1,0.5,1.",
                  step_help: str = "Quasi: which point of each vertical step (Keen Fig. 15). "
                                   "Default: highest.",
                  left_help: str = "Quasi: left-end extrapolation below a query's first point "
                                   "(Keen's methods 1-5). Default: constant.",
                  average_help: str = "How queries are averaged (micro: semi and pseudo).",
                  order: tuple[str, ...] = ("method", "levels", "step", "left", "average")
                  ) -> Decorator:
    """``--method``, ``--levels``, ``--step``, ``--left`` and ``--average`` of the curve methods.

    The choices are :mod:`smarteval.curves`' own, imported only by the commands that draw
    or print curves. ``order`` is the order the options are listed in ``--help``.
    """
    from smarteval.curves import AVERAGES, LEFTS, METHODS, STEPS
    options: dict[str, Decorator] = {
        "method": click.option("--method", type=click.Choice(list(METHODS)),
                               default=method_default, show_default=True, help=method_help),
        "levels": click.option("--levels", type=Numbers(), default=None, metavar="LEVELS",
                               help=levels_help,
                               callback=_levels_bounded),
        "step": click.option("--step", type=click.Choice(list(STEPS)), default=None,
                             help=step_help),
        "left": click.option("--left", type=click.Choice(list(LEFTS)), default=None,
                             help=left_help),
        "average": click.option("--average", type=click.Choice(list(AVERAGES)),
                                default="macro", show_default=True, help=average_help),
    }
    if sorted(order) != sorted(options):
        raise ValueError(f"curve_options: order must list each of {', '.join(options)}")
    return group(*(options[name] for name in order))


def given_options(ctx: click.Context) -> frozenset[str]:
    """The parameters of a command that the user gave (not left to their defaults)."""
    defaults = (click.core.ParameterSource.DEFAULT, click.core.ParameterSource.DEFAULT_MAP)
    return frozenset(name for name in ctx.params
                     if ctx.get_parameter_source(name) not in (None, *defaults))


def cluster_options(prefix: str = "") -> Decorator:
    """``--full RUN`` and ``--cluster-end``: the cluster curve's full search and its end
    (Keen 4D). The choices are :mod:`smarteval.curves`' own."""
    from smarteval.curves import CLUSTER_ENDS
    return group(
        click.option("--full", type=input_path(), default=None, metavar="RUN",
                     help=f"{prefix}--method cluster: the full search of the same queries, "
                          "whose last relevant document's precision ends each cluster curve "
                          "(Keen Fig. 25)."),
        click.option("--cluster-end", type=click.Choice(list(CLUSTER_ENDS)), default=None,
                     help=f"{prefix}--method cluster: past the recall ceiling, extrapolate "
                          "(SMART's: a line to recall 1 at the full search's last point), "
                          "join (on to the full search's next point and along its curve) or "
                          "none (the query is left out). Default: extrapolate."))


def target_generality_option(help: str = "--method adjusted: the generality G (relevant "
                                         "documents per thousand) precision is adjusted to, "
                                         "as Keen's Fig. 28c (Cran-1: 23.16).") -> Decorator:
    return setting("--target-generality", type=StrictFloat(), default=None, metavar="G", help=help)


def cutoffs_from_option(help: str = "Keen part 7: cut each run, query by query, at the size "
                                    "of the set this RUN (a Boolean system's, say) retrieved, "
                                    "and print one precision-recall pair per run, that RUN's "
                                    "own first.") -> Decorator:
    return click.option("--cutoffs-from", type=input_path(), default=None,
                        metavar="RUN", help=help)


def comparison_options(*, all_pairs: bool = False,
                       correction_help: str = "Multiple-comparison correction over every "
                                              "(run, measure) pair, for each test separately.",
                       samples_help: str = "Random sign assignments of the randomization test "
                                           "(exact when 2^queries <= N) and bootstrap "
                                           "resamples",
                       seed_help: str = "Seed of every random choice: resampling (0 or more).",
                       tolerance_help: str = "Differences of at most X count as equal: merit "
                                             "counts, sign and Wilcoxon tests.") -> Decorator:
    """``-t``, ``--correction``, ``--alpha``, ``--confidence``, ``--samples``, ``--seed`` and
    ``--tie-tolerance`` of the commands that test differences between runs. The tests and
    corrections are :mod:`smarteval.stats.significance`'s own; ``all_pairs``: one test,
    Tukey's HSD among them, and the correction's default depends on the test."""
    from smarteval.stats.report import MAX_SAMPLES
    from smarteval.stats.significance import ALL_PAIRS_TESTS, CORRECTIONS, TEST_HELP
    named = {**TEST_HELP, **(ALL_PAIRS_TESTS if all_pairs else {})}
    listed = ", ".join(f"{k} ({v})" for k, v in named.items())
    if all_pairs:
        test = click.option("-t", "--test", type=click.Choice(list(named)), default="t",
                            show_default=True, help=f"Significance test: {listed}.")
        correction = click.option("--correction", type=click.Choice(CORRECTIONS),
                                  default=None, help=correction_help)
    else:
        test = click.option("-t", "--test", "tests", multiple=True, metavar="TEST",
                            help=f"Significance test, repeatable or comma-separated: {listed}. "
                                 "Default: t.")
        correction = click.option("--correction", type=click.Choice(CORRECTIONS),
                                  default="holm", show_default=True, help=correction_help)
    return group(
        test, correction,
        click.option("--alpha", type=StrictFloat(0, 1, min_open=True, max_open=True),
                     default=0.05, show_default=True,
                     help="Significance level the adjusted p-values are held to."),
        click.option("--confidence", type=StrictFloat(0, 1, min_open=True, max_open=True),
                     default=0.95, show_default=True, help="Level of the confidence intervals."),
        click.option("--samples", type=StrictInt(), default=10000, show_default=True, metavar="N",
                     help=f"{samples_help}; at most {MAX_SAMPLES}."),
        click.option("--seed", type=StrictInt(min=0), default=0, show_default=True,
                     help=seed_help),
        click.option("--tie-tolerance", type=StrictFloat(min=0), default=0.0,
                     show_default=True, metavar="X", help=tolerance_help),
    )


def gate_options(baseline_help: str) -> Decorator:
    """``--baseline-results``, ``--fail-if`` and ``--tolerance``: a stored baseline and the
    gate of a CI job (:mod:`smarteval.stats.gate`), for compare and report."""
    from smarteval.stats.gate import FAIL_IF
    listed = "; ".join(f"{k}: {v}" for k, v in FAIL_IF.items())
    return group(
        click.option("--baseline-results", type=input_path(), default=None, metavar="FILE",
                     help=baseline_help),
        click.option("--fail-if", type=click.Choice(list(FAIL_IF)), default=None,
                     help=f"Exit with status 3, the output written, when a run regresses "
                          f"({listed}), one line per failing run and measure on standard "
                          f"error: the gate of a CI job."),
        click.option("--tolerance", type=StrictFloat(min=0), default=0.0,
                     show_default=True, metavar="X",
                     help="--fail-if: how far a run's mean may fall below its baseline's "
                          "before it fails."),
    )


def require_option() -> Decorator:
    """``--require "map>=0.25"``: a floor (or ceiling) every run's summary value keeps."""
    return click.option(
        "--require", "requirements", multiple=True, metavar="MEASURE>=X",
        help="Exit with status 3, the output written, when a run's summary value of MEASURE "
             "is not >= X (or >, <=, < as written; undefined fails too), one line per "
             "failing run and measure on standard error: a floor for a CI job. "
             "Repeatable; MEASURE names one value (map, P.10, nDCG@10) among those "
             "evaluated.")


