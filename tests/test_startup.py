"""What start-up loads: ``--help``, ``--version``, the help of the commands whose options
name no statistics or curves, and shell completion of command and option names import
neither numpy nor scipy (nor pandas, matplotlib), each checked in a process of its own
through ``sys.modules``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from smarteval.cli import LazyGroup, main

#: What a start-up that prints help or completes a name has no use for.
HEAVY = ("numpy", "scipy", "pandas", "matplotlib")

PROBE = """
import json, sys
sys.argv = ["smarteval", *json.loads(sys.argv[1])]
from smarteval.cli import main
try:
    main()
except SystemExit:
    pass
print(json.dumps([m for m in {heavy!r} if m in sys.modules]), file=sys.stderr)
"""


def loaded(args: list[str], env: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """Standard output of ``smarteval ARGS`` and the heavy modules it imported."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), json.dumps(args)],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})})
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [
    ["--help"], ["-h"], ["--version"], ["evaluate", "--help"], ["measures", "--help"],
    ["correlate", "--help"],
])
def test_help_and_version_import_no_numpy(args):
    out, heavy = loaded(args)
    assert out
    assert heavy == []


@pytest.mark.parametrize(("shell", "words", "expected"), [
    ("bash", "smarteval ", "evaluate"),
    ("bash", "smarteval ev", "evaluate"),
    ("zsh", "smarteval co", "compare"),
    ("bash", "smarteval re", "report"),
    ("bash", "smarteval -", "--version"),
    ("bash", "smarteval evaluate --per", "--per-query"),
    ("zsh", "smarteval evaluate -f ", "json"),
    ("bash", "smarteval measures --format ", "tsv"),
])
def test_completion_of_names_imports_no_numpy(shell, words, expected):
    env = {"_SMARTEVAL_COMPLETE": f"{shell}_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split(" ")) - 1)}
    out, heavy = loaded([], env)
    assert expected in re.split(r"[\s,]+", out)
    assert heavy == []


def test_a_command_s_summary_is_its_own_short_help():
    """--help and completion list each command with its summary, read from its source
    without importing it: click's short help of the command itself."""
    group = main
    assert isinstance(group, LazyGroup)
    for name, module in LazyGroup.lazy.items():
        fresh = LazyGroup(commands={})
        fresh.lazy = {name: module}
        for limit in (45, 80):
            unloaded = fresh.summary(name, limit)
            command = group.get_command(None, name)
            assert command is not None
            assert unloaded == command.get_short_help_str(limit), name
