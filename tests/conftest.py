"""Shared test setup: the developer tools in tools/ are importable (docgen)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fixtures import *  # noqa: E402, F403  (tests/fixtures.py: the fixtures every module may take)
