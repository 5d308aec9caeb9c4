"""Entry point for ``python -m smarteval`` and the ``smarteval`` command."""

import gc
import os
import sys


def run() -> None:
    """Start the command line.

    What start-up loads lives as long as the process, and the garbage collector's passes
    over it are most of its work: the collector is off while the modules load, and what
    they made is frozen out of its passes when the command starts
    (:func:`smarteval.cli.edge.reports_errors`). The command's end leaves at once
    (:func:`_leave`).
    """
    gc.disable()
    from smarteval.cli import main
    try:
        main()
    except SystemExit as exc:
        _leave(exc)
        raise
    except OSError as exc:
        _unwritable(exc)


def _unwritable(exc: OSError) -> None:
    """What click printed itself (``--help``, ``--version``) could not be written: a reader
    that went away is not an error; anything else (a full disk, ``/dev/full``) is one
    line and exit 1, never a traceback. Either way what is still buffered is dropped."""
    status = 0
    if not isinstance(exc, BrokenPipeError):
        status = 1
        try:
            sys.stderr.write(f"Error: standard output: cannot write: {exc.strerror or exc}\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(status)


def _leave(exc: SystemExit) -> None:
    """End the process with the command's exit status without tearing the interpreter
    down: every file is closed or flushed by then, and unloading numpy and the modules
    (and stopping BLAS's threads) would take a tenth of a small run's time. Only when
    standard output and error flush cleanly; otherwise (a closed pipe, a full disk)
    returns, and Python's own exit reports it as it always has."""
    code = exc.code
    if code is None:
        code = 0
    if not isinstance(code, int) or isinstance(code, bool):
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


if __name__ == "__main__":
    run()
