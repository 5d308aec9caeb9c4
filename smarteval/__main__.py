"""Entry point for ``python -m smarteval``."""

from smarteval.cli import main

main()
