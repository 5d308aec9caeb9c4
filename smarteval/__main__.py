"""Entry point for ``python -m smarteval`` and the ``smarteval`` command."""

import gc


def run() -> None:
    """Start the command line.

    What start-up loads lives as long as the process, and the garbage collector's passes
    over it are most of its work: the collector is off while the modules load, and what
    they made is frozen out of its passes when the command starts
    (:func:`smarteval.cli.options.reports_errors`).
    """
    gc.disable()
    from smarteval.cli import main
    main()


if __name__ == "__main__":
    run()
