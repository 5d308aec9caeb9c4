"""The golden corpus of sample_eval: smarteval prints what NIST's sample_eval.pl printed.

``tests/data/golden/sample_eval.jsonl`` holds seeded random cases (qrels with strata,
run, sample_eval's arguments and smarteval's) with the script's stdout and status class,
recorded by ``tools/sample_golden.py``; no script is needed here. To regenerate them
(deterministic; needs perl and a copy of sample_eval.pl, never kept in the repository):

    python tools/sample_golden.py --sample-eval PATH

Each case runs in-process as ``smarteval evaluate -f trec ARGV QRELS RUN`` (ARGV: ``-R
sample_qrels``, ``-q``, and sample_eval's ``-G`` as infNDCG's gains): where the script
exited 0, smarteval must exit 0 with the same stdout byte for byte; where it died (no
topic of the run judged), smarteval must exit non-zero too, without a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from smarteval.cli import main

CORPUS = Path(__file__).parent / "data" / "golden" / "sample_eval.jsonl"
CASES = [json.loads(line) for line in CORPUS.read_text().splitlines()]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("sample_golden")


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_sample_golden(case, workdir):
    qrels, run = workdir / "qrels", workdir / "run"
    qrels.write_text(case["qrels"])
    run.write_text(case["run"])
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", *case["argv"], str(qrels),
                                    str(run)])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    script = " ".join(case["sample_eval"])
    if case["status"] != 0:
        assert res.exit_code != 0, f"`{script}`: sample_eval died ({case['stderr']!r}); " \
                                   f"smarteval exits 0:\n{res.stdout[:500]}"
        return
    assert res.exit_code == 0, f"`{script}`: exit {res.exit_code}\n{res.stderr}"
    assert res.stdout == case["stdout"], f"`{script}`"


def test_corpus():
    """The corpus holds what it says: 300 cases or more, per-query output in most, -G
    mappings, run ids with leading zeros, unsampled documents, several strata, topics on
    one side only, lists past 1,000 documents, cases where the script died, and cases
    with fractional grades."""
    assert len(CASES) >= 300
    fractional = [c for c in CASES if c["id"].startswith("f")]
    assert len(fractional) >= 30 and all(any("." in ln.split()[4] for ln in
                                             c["qrels"].splitlines()) for c in fractional)
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert sum("-q" in c["argv"] for c in CASES) >= 200
    assert sum("-G" in c["sample_eval"] for c in CASES) >= 30
    assert sum(c["status"] != 0 for c in CASES) >= 3

    def topics(text, field=0):
        return {line.split()[field] for line in text.splitlines()}

    assert sum(any(t.startswith("0") for t in topics(c["run"])) for c in CASES) >= 100
    assert sum("\t-1\n" in c["qrels"] or " -1\n" in c["qrels"] for c in CASES) >= 300
    assert sum(len({(ln.split()[0], ln.split()[3]) for ln in c["qrels"].splitlines()})
               > len(topics(c["qrels"])) for c in CASES) >= 200
    assert sum(bool({t.lstrip("0") for t in topics(c["run"])} ^ topics(c["qrels"]))
               for c in CASES) >= 100
    assert sum(len(c["run"].splitlines()) > 1000 for c in CASES) >= 10
