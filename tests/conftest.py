"""Shared test setup: the developer tools in tools/ are importable (docgen); in CI a skip
is a failure unless the test writes why it may skip there.

CI (``CI`` set to anything but "", "0", "false" or "no"; ``.ci/run`` sets ``CI=true``) has
every test dependency, reference program and system program the tests use, so a test
skipped there for want of one (``pytest.importorskip``, ``skipif`` on ``shutil.which``,
``pytest.skip``) fails instead, with its reason. A skip that stays legitimate in CI, where
the machine itself decides (not Linux, run as root), is allowed by a mark on the test that
writes the skip's reason, word for word::

    NO_DEV_FULL = "needs /dev/full (Linux)"

    @pytest.mark.ci_skip_ok(NO_DEV_FULL)
    @pytest.mark.skipif(not os.path.exists("/dev/full"), reason=NO_DEV_FULL)

Any other skip of that test (a dependency missing) still fails in CI. A skip while the test
is set up (``skipif``, a fixture's skip) fails as an error of its setup. A module skipped
whole while it is collected cannot carry the mark: in CI it becomes one failing test named
``skipped-in-CI``. Expected failures (``xfail``) are not skips and are left alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from fixtures import *  # noqa: E402, F403  (tests/fixtures.py: the fixtures every module may take)


def in_ci() -> bool:
    """Whether the environment says this is CI."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "ci_skip_ok(reason, ...): the test may skip in CI too, for these reasons only")


def _reason(longrepr) -> str:
    """A skip report's reason (its longrepr is (path, line, "Skipped: reason") or text)."""
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = _reason(report.longrepr)
    if reason and any(reason in mark.args for mark in item.iter_markers("ci_skip_ok")):
        return
    report.outcome = "failed"
    report.longrepr = (f"skipped in CI ({reason}); CI must have what this test needs, or "
                       "the test marks this reason as one it may skip for there: "
                       "@pytest.mark.ci_skip_ok(reason)")


class SkippedInCI(pytest.Item):
    """The failure that stands for a module skipped whole in CI."""

    def __init__(self, *, reason: str, **kwargs):
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self):
        pytest.fail(f"{self.path.name} skipped in CI ({self.reason}); CI must have what "
                    "it needs (a module skipped whole cannot be marked)", pytrace=False)

    def reportinfo(self):
        return self.path, None, self.name


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    report = (yield).get_result()
    if report.skipped and in_ci():
        reason = _reason(report.longrepr)
        report.outcome = "passed"
        report.longrepr = None
        report.result = [SkippedInCI.from_parent(collector, name="skipped-in-CI",
                                                 reason=reason)]
