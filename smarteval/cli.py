"""The command line: click wiring over the library (readers, ranking, measures, renderers)."""

from __future__ import annotations

import functools
import os
import sys
import tempfile

import click

from smarteval import __version__
from smarteval.errors import SmartevalError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class CliError(click.ClickException):
    """A user's mistake reported as one message, never a traceback."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file=None):
        click.echo(f"Error: {self.format_message()}", err=True)


def reports_errors(func):
    """Turn smarteval's exceptions into click errors with their exit status."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except SmartevalError as exc:
            raise CliError(str(exc), exc.exit_code) from None
        except MemoryError:
            raise CliError("out of memory", 1) from None
    return wrapper


def write_output(text: str, path: str | None) -> None:
    """Write to standard output, or atomically to ``path`` (temporary file, then rename)."""
    if path is None or path == "-":
        stream = sys.stdout
        try:
            stream.write(text)
            stream.flush()
        except BrokenPipeError:  # `smarteval ... | head` is fine
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".smarteval-", dir=directory)
    except OSError as exc:
        raise CliError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        mask = os.umask(0)              # mkstemp makes 0600; give the file 0666 - umask
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CliError(f"{path}: cannot write: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- shared options

def complete_measures(ctx, param, incomplete: str):
    """Shell completion of -m: measure names, nicknames and ir_measures names."""
    from smarteval.registry import ALIASES, all_measures, nicknames
    names = [*all_measures(), *nicknames(10), *ALIASES]
    return sorted(n for n in dict.fromkeys(names) if n.startswith(incomplete))


def trec_options(func):
    """trec_eval's evaluation flags, shared by every command that evaluates."""
    options = [
        click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
                     shell_complete=complete_measures,
                     help="Measure to compute, trec_eval style (map, P.5,10, ndcg_cut.10, "
                          "official, all_trec) or ir_measures style (AP, P@10, nDCG@10). "
                          "Repeatable. Default: official."),
        click.option("-c", "--complete", is_flag=True,
                     help="Average over every query of the qrels; queries without results "
                          "count as 0."),
        click.option("-l", "--level", "rel_level", type=int, default=1, show_default=True,
                     metavar="N", help="Lowest grade that counts as relevant."),
        click.option("-M", "--max-docs", type=click.IntRange(min=0), default=None,
                     metavar="N", help="Evaluate only the first N documents of each query."),
        click.option("-J", "--judged-only", is_flag=True,
                     help="Drop retrieved documents without a judgement before evaluating."),
        click.option("-N", "--num-docs", type=click.IntRange(min=1), default=None,
                     metavar="N", help="Number of documents in the collection."),
        click.option("--trec-version", type=click.Choice(["9", "10"]), default="9",
                     show_default=True,
                     help="trec_eval version to match: 9 (9.0.8) or 10 (10.0)."),
    ]
    for opt in reversed(options):
        func = opt(func)
    return func


#: Formats of the commands that print tables (compare, correlate, curve).
TABLE_FORMATS = ("smart", "markdown", "latex", "tsv", "csv", "json")


def output_options(formats=("smart", "trec", "tsv", "csv", "json", "markdown", "latex"), *,
                   format_help: str = "Output format.",
                   output_help: str = "Write to FILE (atomically) instead of standard output.",
                   header_help: str = "Leave out the header line of tsv and csv output."):
    """``-f/--format``, ``-o/--output`` and ``--no-header``, shared by every printing command."""
    options = [
        click.option("-f", "--format", "fmt", type=click.Choice(list(formats)),
                     default="smart", show_default=True, help=format_help),
        click.option("-o", "--output", "output", type=click.Path(dir_okay=False),
                     default=None, help=output_help),
        click.option("--no-header", is_flag=True, help=header_help),
    ]

    def apply(func):
        for opt in reversed(options):
            func = opt(func)
        return func
    return apply


# --------------------------------------------------------------------------- commands

class LazyGroup(click.Group):
    """A group whose larger commands are imported only when they are used or listed.

    ``smarteval evaluate`` then starts without loading the statistics, curves and
    plotting modules.
    """

    lazy = {"curve": "smarteval.cli_curve", "compare": "smarteval.cli_compare",
            "correlate": "smarteval.cli_compare", "plot": "smarteval.cli_plot"}

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is None and name in self.lazy:
            import importlib
            cmd = getattr(importlib.import_module(self.lazy[name]), name)
            self.add_command(cmd)
        return cmd


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="smarteval")
def main():
    """Evaluate information-retrieval runs: every trec_eval number, and the SMART methods.

    \b
    smarteval evaluate QRELS RUN...    per-query and averaged measures
    smarteval measures                 list every measure
    """


@main.command(context_settings=CONTEXT)
@click.argument("qrels", type=click.Path(dir_okay=False, allow_dash=False))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@trec_options
@click.option("-q", "--per-query", is_flag=True, help="Also print each query's values.")
@click.option("-n", "--no-summary", is_flag=True, help="Leave out the summary (all) values.")
@click.option("--ties", type=click.Choice(["docno", "random", "average"]), default="docno",
              show_default=True,
              help="Order of documents with equal scores: trec_eval's docno order, a seeded "
                   "random order, or the exact average over every order.")
@click.option("--seed", type=int, default=None, help="Seed for --ties random.")
@click.option("--unranked", type=click.Choice(["expected", "worst"]), default="expected",
              show_default=True,
              help="Ranks given to relevant documents the run did not retrieve (SMART "
                   "measures that need them).")
@click.option("--target-generality", type=float, default=None,
              help="Target generality for adj_prec.")
@click.option("--average", type=click.Choice(["macro", "micro", "median"]), default="macro",
              show_default=True, help="How query values are averaged.")
@click.option("--frozen", type=click.Path(dir_okay=False), default=None, metavar="RUN",
              help="Feedback evaluation on the residual collection: the first "
                   "--frozen-depth documents of this initial RUN are taken out of every "
                   "run, the qrels and N.")
@click.option("--frozen-depth", type=click.IntRange(min=0), default=None, metavar="K",
              help="How many documents of the --frozen run the user has already seen.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              metavar="N", help="Evaluate the runs in N processes.")
@output_options()
@reports_errors
def evaluate(qrels, runs, measures, complete, rel_level, max_docs, judged_only, num_docs,
             trec_version, per_query, no_summary, ties, seed, unranked, target_generality,
             average, frozen, frozen_depth, jobs, fmt, output, no_header):
    """Evaluate RUNS against QRELS and print per-query and averaged measures.

    QRELS holds judgements (QUERY ITER DOCNO REL); each RUN holds ranked results
    (QUERY Q0 DOCNO RANK SCORE TAG). Files may be gzip, bzip2 or xz compressed; a RUN
    of '-' is read from standard input.
    """
    from smarteval.api import evaluate as run_evaluation
    from smarteval.columns import Settings
    from smarteval.progress import Progress
    from smarteval.readers import read_qrels
    from smarteval.render import render

    version = int(trec_version)
    if sum(r == "-" for r in runs) > 1:
        raise CliError("standard input ('-') can be given as only one run", 2)
    if not measures:
        measures = ("official",) if fmt not in ("smart", "markdown", "latex") else \
            ("num_q", "num_ret", "num_rel", "num_rel_ret",
             "iprec_at_recall.0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
             "map", "Rprec", "P.5,10,20", "recip_rank", "bpref", "ndcg")
        if num_docs is not None and fmt in ("smart", "markdown", "latex"):
            # Keen Fig. 5: the table gains the normalized measures when N is known
            measures = measures + ("rank_recall", "log_prec", "norm_recall", "norm_prec")
        if ties == "average":
            # the default table keeps the measures that have an exact average over ties
            from smarteval.registry import parse_measures
            requests = parse_measures(list(measures), version)
            dropped = [rq.measure.name for rq in requests
                       if rq.measure.ties is None and not rq.measure.order_free]
            measures = tuple(rq for rq in requests if rq.measure.name not in dropped)
            if dropped:
                click.echo("smarteval: --ties average: left out " + ", ".join(dropped)
                           + " (no exact average over tied orders)", err=True)
    settings = Settings(num_docs=num_docs, trec_version=version, unranked=unranked,
                        target_generality=target_generality, ties=ties, seed=seed)
    qrels_data = read_qrels(qrels)              # read once, whatever the number of runs
    with Progress(runs, "smarteval") as bar:    # only on a terminal, only for long work
        pending = iter(runs)

        def finished(_info) -> None:            # runs finish in the order given
            path = next(pending)
            bar.done(path)                      # its reading and its evaluation
            bar.done(path)

        bar.doing("evaluating")
        evaluations = run_evaluation(qrels_data, list(runs), list(measures),
                                     complete=complete, rel_level=rel_level,
                                     max_docs=max_docs, judged_only=judged_only,
                                     trec_version=version, settings=settings,
                                     average=average,
                                     frozen=frozen,
                                     frozen_depth=frozen_depth, on_run=finished,
                                     jobs=jobs, keep_ranked=False)
    if complete:
        for ev in evaluations:
            missing = int((~ev.in_run).sum())
            if missing:
                click.echo(f"smarteval: {ev.path}: {missing} quer{'y' if missing == 1 else 'ies'} "
                           f"of the qrels without results, averaged in as 0 (-c)", err=True)
    text = render(evaluations, fmt, per_query=per_query, summary=not no_summary,
                  trec_version=version, header=not no_header)
    write_output(text, output)


@main.command(context_settings=CONTEXT)
@click.option("--trec-version", type=click.Choice(["9", "10"]), default="10",
              show_default=True, help="Include the measures of this trec_eval version.")
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "tsv", "markdown"]),
              default="text", show_default=True,
              help="Output format: text (one measure a line), tsv, or markdown (README's "
                   "table).")
@click.option("--nicknames", is_flag=True, help="List the nicknames (official, all_trec, set).")
def measures(trec_version, fmt, nicknames):
    """List every measure with its parameters and one line of help."""
    from smarteval.registry import all_measures, nicknames as nick
    version = int(trec_version)
    if nicknames:
        for name, members in nick(version).items():
            click.echo(f"{name}: {' '.join(members)}")
        return
    rows = []
    for m in all_measures().values():
        if version not in m.versions and m.family == "trec":
            continue
        params = m.default_string if m.params != "none" else ""
        rows.append((m.name, params, m.help))
    if fmt == "tsv":
        click.echo("measure\tdefault_parameters\thelp")
        for r in rows:
            click.echo("\t".join(r))
        return
    if fmt == "markdown":
        from tabulate import tabulate
        click.echo(tabulate(rows, headers=["measure", "default parameters", "definition"],
                            tablefmt="github"))
        return
    width = max(len(r[0]) + (len(r[1]) + 1 if r[1] else 0) for r in rows)
    for name, params, help_ in rows:
        label = f"{name}.{params}" if params else name
        if len(label) > 28:
            click.echo(label)
            click.echo(f"{'':28}  {help_}")
        else:
            click.echo(f"{label:<28}  {help_}")
    del width
