"""The deliberate differences from trec_eval, one test each (README, "Where smarteval differs").

Everything else trec_eval prints, refuses or accepts is pinned by the golden corpus
(tests/test_golden.py) and tests/test_trec_exact.py, tests/test_trec_refusals.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures import invoke

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n"
RUN = "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n2 Q0 a 1 1 r\n"


def _evaluate(tmp_path, qrels, run, *args, version="9"):
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run)
    return invoke(["evaluate", "-f", "trec", "--trec-version", version, *args,
                                     str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")])


@pytest.mark.parametrize("version", ["9", "10"])
def test_comment_lines_are_skipped_under_both_versions(tmp_path, version):
    plain = _evaluate(tmp_path, QRELS, RUN, "-q", "-m", "all_trec", version=version)
    commented = _evaluate(tmp_path, "# qrels of the test\n" + QRELS,
                          "# a run\n" + RUN.replace("2 Q0", "# 9 Q0 z 1 1 r\n2 Q0"),
                          "-q", "-m", "all_trec", version=version)
    assert plain.exit_code == commented.exit_code == 0
    assert commented.stdout == plain.stdout


@pytest.mark.parametrize("args, qrels, run, status, says", [
    (["-m", "P.1e1"], QRELS, RUN, 2, "P.1e1"),
    (["-m", "ndcg.=2"], QRELS, RUN, 2, "ndcg.=2"),
    (["-l", "1.5"], QRELS, RUN, 2, "1.5"),
    ([], QRELS, RUN.replace(" 3 r", " 1.5abc r"), 1, "1.5abc"),
    ([], QRELS, RUN.replace(" 3 r", " 0x10 r"), 1, "0x10"),
    ([], QRELS, RUN.replace(" 3 r", " 1e400 r"), 1, "1e400"),
    ([], QRELS.replace("c 2", "c 1.0"), RUN, 1, "1.0"),
])
def test_numbers_read_loosely_by_trec_eval_are_refused(tmp_path, args, qrels, run, status, says):
    res = _evaluate(tmp_path, qrels, run, *args)
    assert res.exit_code == status
    assert says in res.stderr
    assert res.stdout == ""


@pytest.mark.parametrize("version", ["9", "10"])
def test_query_judged_only_below_minus_one_gets_the_definitions_values(tmp_path, version):
    # trec_eval crashes here (a table indexed with -1) unless the query comes first
    res = _evaluate(tmp_path, "1 0 a 1\n1 0 b 0\n2 0 a -2\n", "1 Q0 a 1 3 r\n2 Q0 a 1 3 r\n",
                    "-q", "-m", "map", "-m", "num_rel", "-m", "P.1", version=version)
    assert res.exit_code == 0, res.output
    assert res.stdout == (
        "num_rel               \t1\t1\nmap                   \t1\t1.0000\n"
        "P_1                   \t1\t1.0000\n"
        "num_rel               \t2\t0\nmap                   \t2\t0.0000\n"
        "P_1                   \t2\t0.0000\n"
        "num_rel               \tall\t1\nmap                   \tall\t0.5000\n"
        "P_1                   \tall\t0.5000\n")


def test_bpref_with_a_level_above_every_grade(tmp_path):
    # trec_eval reads past its table of grades here; by definition nothing is relevant
    res = _evaluate(tmp_path, QRELS, RUN, "-q", "-l", "5", "-m", "bpref", "-m", "num_rel")
    assert res.exit_code == 0, res.output
    assert "bpref                 \tall\t0.0000\n" in res.stdout
    assert "num_rel               \tall\t0\n" in res.stdout


def test_10_evaluates_queries_of_both_files_without_c(tmp_path):
    # trec_eval 10.0 stops with "result qid '3' not found in qrels" (status 4) here
    res = _evaluate(tmp_path, QRELS + "3 0 x 1\n", RUN, "-m", "num_q", "-m", "map",
                    version="10")
    nine = _evaluate(tmp_path, QRELS + "3 0 x 1\n", RUN, "-m", "num_q", "-m", "map")
    assert res.exit_code == nine.exit_code == 0
    assert res.stdout == nine.stdout == ("num_q                 \tall\t2\n"
                                         "map                   \tall\t0.9167\n")


def _documented(sentence: str) -> None:
    """``sentence`` is in README's list of differences and in the man page (spaces and
    line breaks aside, the man page's escapes removed)."""
    root = Path(__file__).parent.parent
    readme = " ".join((root / "README.md").read_text().split())
    man = " ".join((root / "man" / "smarteval.1").read_text().replace("\\-", "-").split())
    assert sentence in readme and sentence in man, sentence


@pytest.mark.parametrize("version", ["9", "10"])
def test_parameters_on_a_measure_without_any_are_refused(tmp_path, version):
    # trec_eval ignores them: `trec_eval -m map.5` prints map (0.9167 here)
    res = _evaluate(tmp_path, QRELS, RUN, "-m", "map.5", version=version)
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr == "Error: measure 'map' takes no parameters (got 'map.5')\n"
    _documented("trec_eval ignores them")


# q2 is judged only below 0 and comes after q1: trec_eval keeps q1's table of grades
GRADES_BEFORE = "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 1\nq2 0 e1 -1\nq2 0 e2 -1\n"
RUN_BEFORE = "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 e1 1 1 r\nq2 Q0 x 2 0.5 r\n"


@pytest.mark.parametrize("version, measure, trec_eval_q2", [
    ("10", "ideal_dcg", "4.7619"),           # trec_eval 10.0 prints q1's ideal DCG
    ("9", "ndcg.-1=5", "0.6625"),            # 9.0.8: e1's gain 5 over q1's ideal DCG
    ("10", "ndcg.-1=5", "0.6625"),
])
def test_query_judged_only_below_0_has_its_own_relevance_levels(tmp_path, version, measure,
                                                                trec_eval_q2):
    res = _evaluate(tmp_path, GRADES_BEFORE, RUN_BEFORE, "-q", "-m", measure,
                    version=version)
    assert res.exit_code == 0, res.output
    lines = [line.split("\t") for line in res.stdout.splitlines()]
    q2 = [value for _, qid, value in lines if qid == "q2"]
    assert q2 == ["0.0000"] != [trec_eval_q2]
    _documented("smarteval gives the definition's value from the query's own judgements "
                "(0 for both)")


def test_rnonrel_reading_past_trec_eval_s_buffer(tmp_path):
    # R = 3 ranks from the lowest class (g, -1), which holds one: trec_eval reads two
    # past its buffer (9.0.8 prints 0.2424 with glibc's malloc, 0.1818 under valgrind);
    # smarteval takes them as documents ranked after every judged one: 8/33
    res = _evaluate(tmp_path, "q 0 a 3\nq 0 b 2\nq 0 c 1\nq 0 d 0\nq 0 e 0\nq 0 f 0\n"
                              "q 0 g -1\n", "q Q0 a 1 1 r\n", "-R", "qrels_prefs", "-m",
                    "prefs_avgjg_Rnonrel")
    assert res.exit_code == 0, res.output
    assert res.stdout == "prefs_avgjg_Rnonrel   \tall\t0.2424\n"
    _documented("where trec_eval reads memory it never wrote, a document ranked after "
                "every judged one")
