"""In CI a skip fails unless the test marks why it may skip there (tests/conftest.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CASES = '''
import pytest

def test_passes():
    pass

def test_bare_skip():
    pytest.skip("the frobnicator is not installed")

@pytest.mark.skipif(True, reason="frob is not installed")
def test_bare_skipif():
    pass

def test_bare_importorskip():
    pytest.importorskip("no_such_module_here")

@pytest.mark.ci_skip_ok("only Linux has /dev/frob")
def test_marked_skip():
    pytest.skip("only Linux has /dev/frob")

@pytest.mark.ci_skip_ok("only Linux has /dev/frob")
@pytest.mark.skipif(True, reason="only Linux has /dev/frob")
def test_marked_skipif():
    pass

@pytest.mark.ci_skip_ok("only Linux has /dev/frob")
def test_marked_but_skipped_for_another_reason():
    pytest.importorskip("no_such_module_here")

@pytest.mark.ci_skip_ok("")
def test_marked_without_a_reason():
    pytest.skip("")

@pytest.mark.xfail(strict=True, reason="a known fault")
def test_expected_failure():
    assert False
'''

SKIPPED_WHOLE = '''
import pytest

pytest.importorskip("no_such_module_here")

def test_never_collected():
    pass
'''


def outcomes(tmp_path: Path, ci: str | None) -> tuple[dict[str, str], str]:
    """Each case's outcome (ERROR: failed while set up) in a run under tests/conftest.py
    with CI set to `ci` (None: unset), and the run's output."""
    for name in ("conftest.py", "fixtures.py"):         # the conftest and what it imports
        shutil.copy(Path(__file__).with_name(name), tmp_path / name)
    (tmp_path / "test_cases.py").write_text(CASES)
    (tmp_path / "test_skipped_whole.py").write_text(SKIPPED_WHOLE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    res = subprocess.run([sys.executable, "-m", "pytest", "-v", "-rA", "-p", "no:cacheprovider",
                          "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    seen = dict(re.findall(r"^\S*::(\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL)", res.stdout, re.M))
    return seen, res.stdout


def test_in_ci_a_skip_fails_unless_the_test_marks_why(tmp_path):
    seen, out = outcomes(tmp_path, "true")
    assert seen == {"test_passes": "PASSED", "test_bare_skip": "FAILED",
                    "test_bare_skipif": "ERROR", "test_bare_importorskip": "FAILED",
                    "test_marked_skip": "SKIPPED", "test_marked_skipif": "SKIPPED",
                    "test_marked_but_skipped_for_another_reason": "FAILED",
                    "test_marked_without_a_reason": "FAILED",
                    "test_expected_failure": "XFAIL", "skipped-in-CI": "FAILED"}, out
    assert "skipped in CI (the frobnicator is not installed)" in out
    assert "test_skipped_whole.py skipped in CI (could not import 'no_such_module_here'" in out


@pytest.mark.parametrize("ci", [None, "false"])
def test_outside_ci_a_skip_is_a_skip(tmp_path, ci):
    seen, out = outcomes(tmp_path, ci)
    assert seen == {"test_passes": "PASSED", "test_bare_skip": "SKIPPED",
                    "test_bare_skipif": "SKIPPED", "test_bare_importorskip": "SKIPPED",
                    "test_marked_skip": "SKIPPED", "test_marked_skipif": "SKIPPED",
                    "test_marked_but_skipped_for_another_reason": "SKIPPED",
                    "test_marked_without_a_reason": "SKIPPED",
                    "test_expected_failure": "XFAIL"}, out
    assert "SKIPPED [1] test_skipped_whole.py:4: could not import 'no_such_module_here'" in out
