"""What every test module may take (loaded by conftest.py): the command line run in this
process, the sample data, hypothesis' profiles, and what the per-measure instances of a
property test share.

    def test_map_is_printed(cli, sample):
        res = cli("evaluate", "-m", "map", sample.qrels, sample.runs[0])
        assert res.exit_code == 0 and "map" in res.stdout

Hypothesis runs its "ci" profile where ``CI=true`` (a quarter of each test's examples,
derandomized, no example database), else its default one; a test asks for
``examples(N)`` examples, N being what it wants under the default profile.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from smarteval.cli import main

__all__ = ["cli", "sample", "shared", "pytest_report_header"]   # what conftest.py gives

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data"

settings.register_profile("ci", max_examples=25, derandomize=True, database=None,
                          deadline=None, print_blob=True)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")


def examples(n: int) -> int:
    """``n`` examples under hypothesis' default profile (100 a test), as many in proportion
    under the profile loaded (the "ci" profile's 25: a quarter)."""
    return max(1, n * settings.default.max_examples // 100)


#: The seed of the examples :meth:`Shared.cases` draws: one a session (the same for every
#: measure; always 0 under a derandomized profile), ``SMARTEVAL_TEST_SEED`` to draw a
#: session's examples again.
SEED = int(os.environ.get("SMARTEVAL_TEST_SEED")
           or (0 if settings.default.derandomize else random.SystemRandom().randrange(2**32)))
# the processes pytest-xdist starts draw the same examples: they inherit the seed
os.environ["SMARTEVAL_TEST_SEED"] = str(SEED)


def pytest_report_header(config) -> str:
    return (f"hypothesis profile: {settings.get_current_profile_name()}; examples shared by "
            f"the measures: SMARTEVAL_TEST_SEED={SEED}")


# =========================================================================== the command line

def invoke(*args, input: str | bytes | None = None, catch_exceptions: bool = False,
           **kwargs) -> Result:
    """``smarteval ARGS...`` in this process, as click's :class:`~click.testing.Result`
    (``exit_code``, ``stdout``, ``stderr``, ``exception``).

    An argument may be a path or a number, or a list or tuple of them (spliced in). An
    exception other than the command's exit is raised, as a traceback a user would see
    (``catch_exceptions=True``: kept in the result instead).
    """
    argv = [str(a) for arg in args
            for a in (arg if isinstance(arg, (list, tuple)) else (arg,))]
    return CliRunner().invoke(main, argv, input=input, catch_exceptions=catch_exceptions,
                              prog_name="smarteval", **kwargs)


@pytest.fixture
def cli() -> Callable[..., Result]:
    """:func:`invoke`: ``cli("evaluate", qrels, run)``."""
    return invoke


@dataclass(frozen=True)
class Sample:
    """sample_data/: TREC-style qrels of 15 queries and three runs of them."""

    qrels: Path
    runs: tuple[Path, ...]      # bm25, dense, bm25_rm3


@pytest.fixture(scope="session")
def sample() -> Sample:
    return Sample(SAMPLE / "qrels.txt",
                  tuple(SAMPLE / f"{n}.run" for n in ("bm25", "dense", "bm25_rm3")))


# =========================================================================== per measure

class Shared:
    """What the per-measure instances of a property test share, so that ``pytest -k NAME``
    runs one measure's checks and the whole suite evaluates each example once.

    A test parametrized by measure ``name`` checks the examples :meth:`cases` drew for it
    (hypothesis draws them once a session), each evaluated by :meth:`value` once for every
    measure of :meth:`selected` (those the session runs the test for). A failing check
    names its example: hypothesis does not shrink it.
    """

    def __init__(self, items):
        self._items = items
        self._cases: dict[Hashable, list] = {}
        self._values: dict[Hashable, Any] = {}
        self._selected: dict[str, frozenset[str]] = {}

    def cases(self, key: Hashable, strategy: st.SearchStrategy, n: int) -> list:
        """``examples(n)`` examples of ``strategy``, the same for every call with ``key``."""
        if key not in self._cases:
            found: list = []

            @seed(SEED)
            @settings(max_examples=examples(n), database=None, phases=[Phase.generate],
                      deadline=None, suppress_health_check=list(HealthCheck))
            @given(strategy)
            def draw(case):
                found.append(case)
            draw()
            self._cases[key] = found
        return self._cases[key]

    def value(self, key: Hashable, compute: Callable[..., Any], *args, **kwargs) -> Any:
        """``compute(*args, **kwargs)``, once for ``key``."""
        if key not in self._values:
            self._values[key] = compute(*args, **kwargs)
        return self._values[key]

    def selected(self, test: str) -> frozenset[str]:
        """The measures (parameter ``name``) the session runs test function ``test`` for."""
        if test not in self._selected:
            self._selected[test] = frozenset(
                item.callspec.params["name"] for item in self._items
                if getattr(item, "originalname", None) == test
                and "name" in getattr(getattr(item, "callspec", None), "params", {}))
        return self._selected[test]


@pytest.fixture(scope="module")
def shared(request) -> Shared:
    """:class:`Shared`, for the tests of one module."""
    return Shared(request.session.items)


# =========================================================================== a test's files

LINUX_ONLY = "Linux /proc and /dev"


def linux(test):
    """``test`` skipped where there is no Linux ``/proc`` (in CI too, for that reason)."""
    skip = pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason=LINUX_ONLY)
    return pytest.mark.ci_skip_ok(LINUX_ONLY)(skip(test))


def files_in(tmp_path: Path, monkeypatch, **contents: str | bytes) -> Path:
    """``tmp_path``, made the working directory, holding a file of each name given with
    its text (or bytes)."""
    monkeypatch.chdir(tmp_path)
    for name, text in contents.items():
        path = tmp_path / name.replace("__", ".")
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
    return tmp_path
