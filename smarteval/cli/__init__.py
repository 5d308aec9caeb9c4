"""The command line: click wiring over the library, one module per command."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os

# smarteval does no linear algebra: a single BLAS thread keeps numpy's start-up from
# spinning up (and busy-waiting) one thread per core, unless the user chose otherwise.
# Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click  # noqa: E402

from smarteval import __version__  # noqa: E402
from smarteval.cli.edge import did_you_mean, option_names  # noqa: E402
from smarteval.cli.options import CONTEXT  # noqa: E402


class LazyGroup(click.Group):
    """A group whose commands are imported only when they are used or listed.

    ``smarteval evaluate`` then starts without loading the statistics, curves and
    plotting modules.
    """

    #: command name -> the module that defines it (a click command of the same name)
    lazy = {"evaluate": "smarteval.cli.evaluate", "measures": "smarteval.cli.measures",
            "curve": "smarteval.cli.curve", "compare": "smarteval.cli.compare",
            "correlate": "smarteval.cli.correlate", "plot": "smarteval.cli.plot",
            "report": "smarteval.cli.report", "discpower": "smarteval.cli.discpower",
            "topics": "smarteval.cli.topics", "diff": "smarteval.cli.diff",
            "repro": "smarteval.cli.repro"}

    def main(self, *args, **kwargs):
        if any(k.endswith("_COMPLETE") for k in os.environ):
            # a shell asks for completions or its script: smarteval's (cli.complete)
            from smarteval.cli.complete import register
            register()
        return super().main(*args, **kwargs)

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def resolve_command(self, ctx, args):
        """A mistyped command is refused with the one it resembles (``evaluat``:
        evaluate), the lazy commands among those compared."""
        name = click.utils.make_str(args[0])
        if self.get_command(ctx, name) is None and not ctx.resilient_parsing \
                and not name.startswith("-"):
            raise click.UsageError(f"No such command {name!r}."
                                   + did_you_mean(name, self.list_commands(ctx)), ctx)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as exc:
            # click's guesses come from every spelling, trec_eval's aliases
            # (--Results_format) first among them: ours, from each option's own name
            command = exc.ctx.command if exc.ctx is not None else self
            raise click.NoSuchOption(
                exc.option_name, f"No such option {exc.option_name!r}."
                + did_you_mean(exc.option_name, option_names(command)), ctx=exc.ctx) from None

    def format_commands(self, ctx, formatter):
        """``--help``'s list of commands, each with its summary (:meth:`summary`): no
        command's module is imported for it."""
        names = self.visible(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        with formatter.section("Commands"):
            formatter.write_dl([(name, self.summary(name, limit)) for name in names])

    def shell_complete(self, ctx, incomplete):
        """The commands starting with ``incomplete``, each with its summary, then the
        group's options: no command's module is imported to complete a command's name."""
        from click.shell_completion import CompletionItem
        commands = [CompletionItem(name, help=self.summary(name))
                    for name in self.visible(ctx) if name.startswith(incomplete)]
        return commands + click.Command.shell_complete(self, ctx, incomplete)

    def visible(self, ctx) -> list[str]:
        """The commands --help lists: all but a loaded command marked hidden."""
        return [name for name in self.list_commands(ctx)
                if not getattr(self.commands.get(name), "hidden", False)]

    def summary(self, name: str, limit: int = 45) -> str:
        """The short help of command ``name``, as click shortens its help: a command not
        yet imported has it from its function's docstring, read from its module's source
        (importing a command loads the library its options name, numpy among it)."""
        command = self.commands.get(name)
        if command is None:
            command = click.Command(name, help=_docstring(self.lazy[name], name))
        return command.get_short_help_str(limit)

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is None and name in self.lazy:
            cmd = getattr(importlib.import_module(self.lazy[name]), name)
            self.add_command(cmd)
        return cmd


def _docstring(module: str, function: str) -> str | None:
    """The docstring of ``function`` in ``module``'s source, the module not imported."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    with open(spec.origin, encoding="utf-8") as source:
        tree = ast.parse(source.read(), spec.origin)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return ast.get_docstring(node, clean=False)
    return None


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="smarteval")
def main():
    """Evaluate information-retrieval runs: every trec_eval number, and the SMART methods.

    \b
    smarteval evaluate QRELS RUN...    per-query and averaged measures
    smarteval measures                 list every measure
    smarteval report QRELS RUN...      the table of a paper, with significance marks
    smarteval discpower QRELS RUN...   how many pairs of runs each measure tells apart
    smarteval topics --diff D ...      how many topics a test collection needs
    """
