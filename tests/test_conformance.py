"""trec_eval's own test suite: smarteval must print every line exactly as trec_eval does."""

from __future__ import annotations

import csv
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from smarteval.cli import main

DATA = Path(__file__).parent / "data" / "trec_eval"
#: every case of trec_eval's suite runs
SKIPPED: set[str] = set()
#: flags whose value names a file of inputs/ (as trec_eval's test suite runs from there)
FILE_FLAGS = {"-Z"}


def _cases():
    with open(DATA / "cases.tsv", newline="") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if not row or row[0].startswith("#") or row[0] in SKIPPED:
                continue
            yield row[0], row[1], row[2], row[3]


CASES = list(_cases())


def case_flags(flags: str) -> list[str]:
    """The case's flags, a file named after one of :data:`FILE_FLAGS` found in inputs/."""
    words = shlex.split(flags)
    return [str(DATA / "inputs" / w) if i and words[i - 1] in FILE_FLAGS else w
            for i, w in enumerate(words)]


def _run(flags: str, rel: str, res: str, version: str) -> str:
    args = ["evaluate", "-f", "trec", "--trec-version", version, *case_flags(flags),
            str(DATA / "inputs" / rel), str(DATA / "inputs" / res)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name,flags,rel,res", [c for c in CASES if c[0] != "comment.test"],
                         ids=lambda v: v if isinstance(v, str) else None)
def test_matches_trec_eval_9(name, flags, rel, res):
    expected = (DATA / "expected-9.0" / f"out.{name}").read_text()
    assert _run(flags, rel, res, "9") == expected


@pytest.mark.parametrize("name,flags,rel,res", CASES,
                         ids=lambda v: v if isinstance(v, str) else None)
def test_matches_trec_eval_10(name, flags, rel, res):
    expected = (DATA / "expected-10.0" / f"out.{name}").read_text()
    assert _run(flags, rel, res, "10") == expected


def test_suite_is_complete():
    names = {c[0] for c in CASES}
    assert {"test", "test.a", "test.aq", "test.aqc", "test.aqcM", "test.aql",
            "test.meas_params", "comment.test", "test.prefs", "test.qrels_prefs",
            "test.qrels_jg", "test.aqZ"} <= names
