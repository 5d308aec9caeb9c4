"""The golden corpus: smarteval prints what the real trec_eval 9.0.8 and 10.0 printed.

``tests/data/golden/trec_eval-9.0.8.jsonl`` and ``trec_eval-10.0.jsonl`` hold seeded random
cases (argv, qrels, run) with trec_eval's stdout and status class, recorded by
``tools/golden.py``; no binary is needed here (the ``*.picked.jsonl`` files hold cases
picked by hand, ``tools/golden_picked.py``, recorded by ``tools/golden.py --picked``). To
regenerate them (deterministic; needs both binaries, and gdb and valgrind, see the tool's
docstring):

    python tools/golden.py --trec-eval-9 PATH --trec-eval-10 PATH

Each case runs in-process as ``smarteval evaluate -f trec [--trec-version 10] ARGV QRELS
RUN``: where trec_eval exited 0, smarteval must exit 0 with the same stdout byte for byte;
where it exited non-zero (bad input or usage), smarteval must exit non-zero too (without a
traceback), whatever it prints.

``known_differences.json`` maps the ids of cases that differ today to a short class label;
they run as strict xfails, so a fix makes them XPASS and fail until their entries go.
``python tools/golden.py --check`` lists what differs (``--prune`` drops the entries that
now pass, ``--add`` adds the new ones, to be labelled by hand).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from smarteval.cli import main

DATA = Path(__file__).parent / "data" / "golden"
#: (version, file): the qrels corpus, the one of trec_eval's other relevance formats
#: (-R prefs, qrels_prefs, qrels_jg) and of -Z, and the cases picked by hand
#: (tools/golden_picked.py: inputs where smarteval once differed)
CORPORA = [("9", DATA / "trec_eval-9.0.8.jsonl"), ("10", DATA / "trec_eval-10.0.jsonl"),
           ("9", DATA / "trec_eval-9.0.8.formats.jsonl"),
           ("10", DATA / "trec_eval-10.0.formats.jsonl"),
           ("9", DATA / "trec_eval-9.0.8.picked.jsonl"),
           ("10", DATA / "trec_eval-10.0.picked.jsonl")]
KNOWN = json.loads((DATA / "known_differences.json").read_text())


def _load() -> list[tuple[str, dict]]:
    cases = []
    for version, path in CORPORA:
        with open(path) as fh:
            cases += [(version, json.loads(line)) for line in fh]
    return cases


CASES = _load()


def _params():
    for version, case in CASES:
        marks = ()
        if case["id"] in KNOWN:
            marks = (pytest.mark.xfail(strict=True, reason=KNOWN[case["id"]]),)
        yield pytest.param(version, case, id=case["id"], marks=marks)


def case_argv(case: dict, workdir: Path) -> list[str]:
    """The case's trec_eval arguments, its -Z means file (if any) written in ``workdir``."""
    argv = list(case["argv"])
    if "zscores" in case:                       # -Z zscores: the means file of the case
        zscores = workdir / "zscores"
        zscores.write_text(case["zscores"])
        argv = [str(zscores) if a == "zscores" else a for a in argv]
    return argv


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("golden")


@pytest.mark.parametrize("version, case", list(_params()))
def test_golden(version, case, workdir):
    qrels, run = workdir / "qrels", workdir / "run"
    qrels.write_text(case["qrels"])
    run.write_text(case["run"])
    argv = case_argv(case, workdir)
    args = ["evaluate", "-f", "trec"] + (["--trec-version", "10"] if version == "10" else [])
    res = CliRunner().invoke(main, [*args, *argv, str(qrels), str(run)])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    argv = " ".join(case["argv"])
    if case["status"] != 0:
        head = "".join(res.stdout.splitlines(keepends=True)[:10])
        assert res.exit_code != 0, f"`{argv}`: trec_eval said {case['stderr']!r}; " \
                                   f"smarteval exits 0:\n{head}"
        return
    assert res.exit_code == 0, f"`{argv}`: exit {res.exit_code}\n{res.stderr}"
    assert res.stdout == case["stdout"], f"`{argv}`"


def test_corpus():
    ids = [c["id"] for _, c in CASES]
    assert len(ids) == len(set(ids))
    for version in ("9", "10"):
        assert sum(v == version and "-f" not in c["id"] for v, c in CASES) >= 500
        formats = [c for v, c in CASES if v == version and "-f" in c["id"]]
        assert len(formats) >= 200
        for kind in ("prefs", "qrels_prefs", "qrels_jg"):
            assert sum(kind in c["argv"] for c in formats) >= 30, kind
        assert sum("zscores" in c for c in formats) >= 30
    assert set(KNOWN) <= set(ids), sorted(set(KNOWN) - set(ids))
    picked = [c for _, c in CASES if "-p_" in c["id"]]
    assert len(picked) >= 24 and all(c.get("why") for c in picked)
    assert all(isinstance(v, str) and v for v in KNOWN.values())
