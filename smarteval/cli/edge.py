"""The error edge: the one place exceptions, Ctrl-C and signals become messages and exit
statuses, the checks of output paths before any work, and what commands say on standard error."""

from __future__ import annotations

import functools
import gc
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from smarteval.errors import BAD_INPUT, SIGNALLED, Regressed, SmartevalError, UsageError, printable


class CliError(click.ClickException):
    """A user's mistake reported as one message, never a traceback."""

    def __init__(self, message: str, exit_code: int = BAD_INPUT):
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it on the class

    def show(self, file=None) -> None:
        note(f"Error: {self.format_message()}")


def note(text: str) -> None:
    """One line (or a few) on standard error, ids and paths in the bytes they were read as,
    control characters escaped (an escape sequence in a name is shown, not obeyed)."""
    from smarteval.output import encode
    click.echo(encode(printable(text)), err=True)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM, raised where the program was, so that every cleanup runs."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _on_signal(main_pid: int, signum, frame) -> None:
    if os.getpid() != main_pid:
        # a worker process of -j: it stops without a word; the main process reports
        os._exit(SIGNALLED + signum)
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None:         # SIGTERM reaches this process only
        for child in multiprocessing.active_children():
            child.terminate()
    raise Interrupted(signum)


#: The signals that end the process by default and that a command turns into
#: :class:`Interrupted`, so that its temporary files go with it (a spool of standard
#: input, an output being written): besides Ctrl-C and SIGTERM, a closed terminal
#: (SIGHUP), Ctrl-\\ (SIGQUIT) and the others a user or a scheduler sends.
TERMINATING = tuple(getattr(signal, name) for name in (
    "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGXCPU", "SIGXFSZ", "SIGVTALRM",
    "SIGPROF") if hasattr(signal, name))


def _handle_signals() -> dict:
    """Ctrl-C, SIGTERM and the other terminating signals raise :class:`Interrupted` (main
    thread only); the old handlers. A signal ignored when the command starts (``nohup``
    ignores SIGHUP) stays ignored, but for SIGINT and SIGTERM.

    The handler knows this process as the main one: the worker processes of ``-j``,
    forked with it, stop without a word."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handler = functools.partial(_on_signal, os.getpid())
    wanted = [signal.SIGINT, signal.SIGTERM]
    wanted += [sig for sig in TERMINATING if signal.getsignal(sig) == signal.SIG_DFL]
    return {sig: signal.signal(sig, handler) for sig in wanted}


def interrupted(signum: int) -> str:
    """How a command stopped by signal ``signum`` says so."""
    if signum == signal.SIGINT:
        return "interrupted"
    if signum == signal.SIGTERM:
        return "terminated"
    return f"terminated by {signal.Signals(signum).name}"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A library's warning as one line of its own words (no file, line or source)."""
    note(f"smarteval: warning: {str(message).strip().splitlines()[0]}")


#: the parameters that name files written, and their option
OUTPUTS = {"output": "-o", "plot": "--plot"}


def _given_paths(kwargs: dict, names, dash: bool = False) -> Iterator[tuple[str, str]]:
    """(parameter, path) of every path given to ``names`` (``-`` too when ``dash``)."""
    for name in names:
        value = kwargs.get(name)
        for path in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(path, str) and (dash or path != "-"):
                yield name, path


@contextmanager
def evaluating(paths: Sequence, noted: Sequence = ()) -> Iterator[tuple[Any, Any]]:
    """How every command evaluates its runs: a note for each run of ``noted`` given
    twice, then the progress bar of the run files ``paths`` (on a terminal, for long
    work only) saying "evaluating"; yields the bar and the callback that moves it as
    each run is done (``on_run``)."""
    from smarteval.api import repeated_notes
    from smarteval.progress import Progress
    for text in repeated_notes(list(noted)):
        note(f"smarteval: {text}")
    paths = list(paths)
    with Progress(paths, "smarteval") as bar:   # only on a terminal, only for long work
        finished = bar.each_run(paths)
        bar.doing("evaluating")
        yield bar, finished


def check_paths(kwargs: dict) -> None:
    """Before any work: no output names an input file, standard input or a plugin's
    source, no two outputs name one file, standard input is not read twice (exit 2);
    every output can be written (its directory exists and is writable; exit 1)."""
    from smarteval.output import check_writable, target
    from smarteval.read.source import INPUTS, read_once, same_file
    outputs = list(_given_paths(kwargs, OUTPUTS))
    given = {name: kwargs[name] for name in INPUTS if name in kwargs}
    if given.get("baseline_results") is not None and given.get("baseline") is not None:
        # compare --baseline-results takes no BASELINE: its first argument is a run
        given["runs"] = (given.pop("baseline"), *(given.get("runs") or ()))
    inputs = list(_given_paths(given, INPUTS, dash=True))
    read_once(given)
    plugins = sys.modules.get("smarteval.measures.plugins")     # loaded with a plugin only
    inputs += [("plugin", path) for path in (plugins.plugin_files() if plugins else [])]
    for i, (name, out) in enumerate(outputs):
        for other, again in outputs[:i]:
            if target(out).kind == "file" and same_file(out, again):
                raise UsageError(f"{OUTPUTS[other]} {again} and {OUTPUTS[name]} {out} name one "
                                 "file: the second would replace the first; give two")
    for name, out in outputs:
        if target(out).kind != "file":
            continue                    # /dev/null, a FIFO, standard output: not replaced
        for kind, path in inputs:
            if same_file(out, path):
                what = INPUTS.get(kind, "a --plugin module's source")
                also = "" if path == out else \
                    " (standard input)" if path == "-" else f" ({path})"
                raise UsageError(f"{OUTPUTS[name]} {out}: this file is {what}{also}, "
                                 "and smarteval never writes over its input: give another "
                                 "output file")
    for _, out in outputs:
        check_writable(out)


def reports_errors(func):
    """Turn smarteval's exceptions into click errors with their exit status (the one place).

    Also the checks every command shares before any work (:func:`check_paths`); Ctrl-C
    and SIGTERM become one line and exit 130 and 143, after every cleanup (no temporary
    file is left); a library's warning becomes one line. A gate that failed
    (:class:`~smarteval.errors.Regressed`, raised once the output is written) is one line
    per failure and exit 3.
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not gc.isenabled():      # turned off for start-up by smarteval.__main__.run
            gc.freeze()
            gc.enable()
        previous = _handle_signals()
        try:
            with warnings.catch_warnings():
                # floating-point warnings of numpy: the measures return NaN where trec_eval
                # does, on purpose; other warnings are worded in one line
                warnings.simplefilter("ignore", RuntimeWarning)
                warnings.showwarning = _show_warning
                check_paths(kwargs)
                return func(*args, **kwargs)
        except Regressed as exc:
            # the output stands; each failure is a line of its own, not an error message
            for line in exc.failures:
                note(f"smarteval: regression: {line}")
            raise click.exceptions.Exit(exc.exit_code) from None
        except SmartevalError as exc:
            raise CliError(str(exc), exc.exit_code) from None
        except MemoryError:
            raise CliError("out of memory", 1) from None
        except OSError as exc:
            # a failure no reader or writer worded (they raise InputError and OutputError):
            # its file named, never taken for standard output's (smarteval.__main__)
            where = f"{exc.filename}: " if exc.filename is not None else ""
            raise CliError(f"{where}{exc.strerror or exc}", BAD_INPUT) from None
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", signal.SIGINT)
            raise CliError(interrupted(signum), SIGNALLED + signum) from None
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    return wrapper


def option_names(command: click.Command) -> list[str]:
    """The name each option of ``command`` goes by: its first long name (``--format``, not
    trec_eval's ``--Results_format`` beside ``--results-format``), else its short one."""
    names = []
    for param in command.params:
        if isinstance(param, click.Option):
            spelled = [*param.opts, *param.secondary_opts]
            names.append(next((o for o in spelled if o.startswith("--")), spelled[0]))
    return names


def did_you_mean(name: str, candidates) -> str:
    """`` Did you mean X?`` for the candidate ``name`` is closest to (those as close as
    it, too), case aside; empty when none is close."""
    import difflib

    def score(candidate: str) -> float:
        return difflib.SequenceMatcher(None, name.lower(), candidate.lower()).ratio()
    scored = sorted(((score(c), c) for c in dict.fromkeys(candidates)), key=lambda x: -x[0])
    close = [c for s, c in scored if s >= 0.6 and s >= scored[0][0] - 0.05]
    if not close:
        return ""
    return " Did you mean " + " or ".join(repr(c) for c in close[:3]) + "?"
