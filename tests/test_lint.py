"""The tree is clean under the linters configured in pyproject.toml (ruff and mypy)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("tool, args", [("ruff", ["check", "."]), ("mypy", [])])
def test_clean(tool, args):
    pytest.importorskip(tool)
    res = subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, f"{tool} {' '.join(args)}:\n{res.stdout}{res.stderr}"
