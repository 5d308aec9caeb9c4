"""What trec_eval refuses, and what it accepts, when a document is listed twice or a line is odd.

The expected outputs were printed by trec_eval 9.0.8 and 10.0 on the same inputs; where
trec_eval refused (non-zero exit), smarteval must exit 1 with one message and print
nothing on standard output.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from fixtures import invoke

from smarteval.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n"
# query 1 lists a at ranks 1 and 4; query 3 (not judged) lists z twice
RUN_TWICE = ("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n1 Q0 a 4 0.5 r\n2 Q0 a 1 1 r\n"
             "3 Q0 z 1 1 r\n3 Q0 z 2 1 r\n")
# b twice with one score: the two copies take ranks 2 and 3
RUN_TIED_TWICE = "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 b 3 2 r\n"
# query 3 judges x twice, and has no results
QRELS_TWICE = "1 0 a 1\n1 0 b 0\n2 0 a 1\n3 0 x 1\n3 0 x 1\n3 0 y 2\n"
RUN = "1 Q0 a 1 3 r\n2 Q0 a 1 1 r\n"

NOT_FIRST = ("num_rel               \t1\t1\nmap                   \t1\t1.0000\n"
             "P_1                   \t1\t1.0000\n"
             "num_rel               \t2\t0\nmap                   \t2\t0.0000\n"
             "P_1                   \t2\t0.0000\n"
             "num_rel               \tall\t1\nmap                   \tall\t0.5000\n"
             "P_1                   \tall\t0.5000\n")

ACCEPTED = [
    # a repeat beyond -M is never seen
    ("9", QRELS, RUN_TWICE, ["-q", "-M", "3", "-m", "map", "-m", "P.2"],
     "map                   \t1\t0.8333\nP_2                   \t1\t0.5000\n"
     "map                   \t2\t1.0000\nP_2                   \t2\t0.5000\n"
     "map                   \tall\t0.9167\nP_2                   \tall\t0.5000\n"),
    ("9", QRELS, RUN_TIED_TWICE, ["-M", "2", "-m", "map"], "map                   \tall\t0.5000\n"),
    # runid and num_q never rank a query
    ("9", QRELS, RUN_TWICE, ["-m", "runid", "-m", "num_q"],
     "runid                 \tall\tr\nnum_q                 \tall\t2\n"),
    # a query judged twice but never evaluated (no results; 9.0.8's -c does not rank it):
    # -c's num_rel counts both lines
    ("9", QRELS_TWICE, RUN, ["-c", "-m", "num_rel", "-m", "map"],
     "num_rel               \tall\t5\nmap                   \tall\t0.6667\n"),
    # a query judged only -1 that is not the first evaluated
    ("9", "1 0 a 1\n1 0 b 0\n2 0 a -1\n", "1 Q0 a 1 3 r\n2 Q0 a 1 1 r\n",
     ["-q", "-m", "map", "-m", "num_rel", "-m", "P.1"],
     NOT_FIRST),
    ("10", "1 0 a 1\n1 0 b 0\n2 0 a -1\n", "1 Q0 a 1 3 r\n2 Q0 a 1 1 r\n",
     ["-q", "-m", "map", "-m", "num_rel", "-m", "P.1"],
     NOT_FIRST),
    # blank lines in a run are skipped
    ("9", QRELS, "1 Q0 a 1 3 r\n\n1 Q0 b 2 1 r\n", ["-m", "map"],
     "map                   \tall\t0.5000\n"),
]

REFUSED = [
    # (version, qrels, run, args, what the message says)
    ("9", QRELS, RUN_TWICE, ["-M", "4", "-m", "map"], "run.txt:4: document a appears again"),
    ("9", QRELS, RUN_TIED_TWICE, ["-M", "3", "-m", "map"],
     "run.txt:3: document b appears again"),
    ("10", QRELS, RUN_TWICE, ["-m", "P.1"], "run.txt:4: document a appears again"),
    # 10.0's -c ranks the query without results on its placeholder document
    ("10", QRELS_TWICE, RUN, ["-c", "-m", "num_rel", "-m", "map"],
     "qrels.txt:5: document x is judged again in query 3 (first at line 4)"),
    ("9", "1 0 a 1\n1 0 a 0\n", RUN, ["-m", "map"],
     "qrels.txt:2: document a is judged again in query 1"),
    # the first query evaluated has no judgement of 0 or more
    ("9", "0 0 a -1\n1 0 a 1\n1 0 b 0\n", "0 Q0 a 1 3 r\n1 Q0 a 1 3 r\n", ["-m", "map"],
     "qrels.txt: query 0 is judged only with negative grades"),
    ("10", "0 0 a -1\n1 0 a 1\n1 0 b 0\n", "0 Q0 a 1 3 r\n1 Q0 a 1 3 r\n", ["-m", "map"],
     "qrels.txt: query 0 is judged only with negative grades"),
    # qrels lines hold exactly four fields, and none is blank
    ("9", "1 0 a 1\n\n1 0 b 0\n", RUN, ["-m", "map"], "qrels.txt:2: blank line"),
    ("10", "1 0 a 1\n   \n1 0 b 0\n", RUN, ["-m", "map"], "qrels.txt:2: blank line"),
    ("9", "1 0 a 1 x\n", RUN, ["-m", "map"], "qrels.txt:1: qrels line has 5 fields, not 4"),
]


def _run(tmp_path, version, qrels, run, args):
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run)
    return invoke(["evaluate", "-f", "trec", "--trec-version", version, *args,
                                     str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")])


@pytest.mark.parametrize("version, qrels, run, args, want", ACCEPTED)
def test_accepted_as_trec_eval_accepts(tmp_path, version, qrels, run, args, want):
    res = _run(tmp_path, version, qrels, run, args)
    assert res.exit_code == 0, res.output
    assert res.stdout == want


@pytest.mark.parametrize("version, qrels, run, args, says", REFUSED)
def test_refused_as_trec_eval_refuses(tmp_path, version, qrels, run, args, says):
    res = _run(tmp_path, version, qrels, run, args)
    assert res.exit_code == 1
    assert res.stdout == ""
    assert says in res.stderr
    assert "Traceback" not in res.output


@pytest.mark.parametrize("command", ["evaluate", "curve", "compare"])
def test_every_command_refuses_alike(tmp_path, command):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN_TWICE)
    runs = [str(tmp_path / "run.txt")] * (2 if command == "compare" else 1)
    if command == "compare":
        (tmp_path / "base.txt").write_text(RUN)
        runs = [str(tmp_path / "base.txt"), str(tmp_path / "run.txt")]
    res = CliRunner().invoke(main, [command, str(tmp_path / "qrels.txt"), *runs])
    assert res.exit_code == 1
    assert "run.txt:4: document a appears again in query 1 (first at line 1)" in res.stderr
