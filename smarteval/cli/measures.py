"""``smarteval measures``: list every measure of the registry with one line of help."""

from __future__ import annotations

import click

from smarteval.cli.edge import reports_errors
from smarteval.cli.options import (
    CONTEXT,
    DEFAULTS,
    format_option,
    plugin_option,
    trec_version_option,
)
from smarteval.render.measures import FORMATS


@click.command(context_settings=CONTEXT)
@trec_version_option(help="List only what -m accepts under this trec_eval version. "
                          "Default: every measure.", default=None, show_default=False)
@format_option(FORMATS, "smart lists one measure a line; markdown is README's table.")
@click.option("--nicknames", is_flag=True,
              help="List the nicknames (official, all_trec, set) and what they stand for "
                   f"under --trec-version (default {DEFAULTS.trec_version}, as for every "
                   "command that evaluates).")
@plugin_option()
@reports_errors
def measures(trec_version, fmt, nicknames):
    """List every measure with its parameters and one line of help."""
    from smarteval.output import write_text
    from smarteval.render.measures import render_measures, render_nicknames
    if nicknames:
        write_text(render_nicknames(DEFAULTS.trec_version if trec_version is None
                                    else trec_version), None)
    else:
        write_text(render_measures(fmt, trec_version), None)
