"""``smarteval measures``: list every measure of the registry with one line of help."""

from __future__ import annotations

import click

from smarteval.cli.options import CONTEXT, plugin_option, reports_errors
from smarteval.settings import TREC_VERSIONS, Settings


@click.command(context_settings=CONTEXT)
@click.option("--trec-version", type=click.Choice([str(v) for v in TREC_VERSIONS]),
              default=None, help="List only what -m accepts under this trec_eval version. "
                                 "Default: every measure.")
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "tsv", "markdown"]),
              default="text", show_default=True,
              help="Output format: text (one measure a line), tsv, or markdown (README's "
                   "table).")
@click.option("--nicknames", is_flag=True,
              help="List the nicknames (official, all_trec, set) and what they stand for "
                   f"under --trec-version (default {Settings().trec_version}, as for every "
                   "command that evaluates).")
@plugin_option()
@reports_errors
def measures(trec_version, fmt, nicknames):
    """List every measure with its parameters and one line of help."""
    from smarteval.output import write_text
    from smarteval.render.measures import render_measures, render_nicknames
    version = None if trec_version is None else int(trec_version)
    if nicknames:
        write_text(render_nicknames(Settings().trec_version if version is None else version),
                   None)
    else:
        write_text(render_measures(fmt, version), None)
