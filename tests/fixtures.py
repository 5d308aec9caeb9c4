"""Fixtures every test module may take (loaded by conftest.py): the command line run in this
process, and the sample data.

    def test_map_is_printed(cli, sample):
        res = cli("evaluate", "-m", "map", sample.qrels, sample.runs[0])
        assert res.exit_code == 0 and "map" in res.stdout
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from smarteval.cli import main

__all__ = ["cli", "sample"]         # what conftest.py gives every test module

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data"


def invoke(*args, input: str | bytes | None = None, catch_exceptions: bool = True,
           **kwargs) -> Result:
    """``smarteval ARGS...`` in this process (arguments may be paths or numbers), as click's
    :class:`~click.testing.Result`: ``exit_code``, ``stdout``, ``stderr``, ``exception``."""
    return CliRunner().invoke(main, [str(a) for a in args], input=input,
                              catch_exceptions=catch_exceptions, prog_name="smarteval",
                              **kwargs)


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
