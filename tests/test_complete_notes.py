"""What ``evaluate -c`` says on standard error about the queries of the qrels a run has no
results for: averaged in as 0 (trec_eval 9, and queries -D leaves out), or evaluated on
trec_eval 10's placeholder document."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from smarteval.cli import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 1\n3 0 c 1\n4 0 d 0\n"
RUN = "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 x 1 1 t\n"


@pytest.mark.parametrize("flags, notes", [
    ([], []),
    (["--trec-version", "10"], []),
    (["-c"], ["2 queries of the qrels without results, averaged in as 0 (-c)"]),
    (["-c", "--trec-version", "10"],
     ["2 queries of the qrels without results, evaluated on trec_eval 10.0's placeholder "
      "document (-c)"]),
    (["-c", "-D", "0.1"], ["3 queries of the qrels not evaluated (-D), averaged in as 0 (-c)"]),
    (["-c", "-D", "0.2", "--trec-version", "10"],
     ["3 queries of the qrels not evaluated (-D), averaged in as 0 (-c)"]),
])
def test_complete_notes(tmp_path, flags, notes):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    run = str(tmp_path / "run")
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", "-m", "num_q", *flags,
                                    str(tmp_path / "qrels"), run])
    assert res.exit_code == 0, res.output
    assert res.stderr == "".join(f"smarteval: {run}: {n}\n" for n in notes)
    # the notes describe what the summary counts
    assert res.stdout.endswith(f"\t{4 if '-c' in flags else 1 if '-D' in flags else 2}\n")


def test_one_note_for_each_run(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "a").write_text(RUN)
    (tmp_path / "b").write_text("4 Q0 d 1 1 t\n")
    res = CliRunner().invoke(main, ["evaluate", "-c", "-m", "map", str(tmp_path / "qrels"),
                                    str(tmp_path / "a"), str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    assert res.stderr == (
        f"smarteval: {tmp_path / 'a'}: 2 queries of the qrels without results, averaged in "
        "as 0 (-c)\n"
        f"smarteval: {tmp_path / 'b'}: 3 queries of the qrels without results, averaged in "
        "as 0 (-c)\n")


def test_10_evaluates_the_qrels_queries_when_the_run_has_none_of_them(tmp_path):
    """trec_eval 10.0's -c prints the qrels' queries evaluated on its placeholder
    (tests/data/golden/*.picked.jsonl holds its output); 9.0.8 finds no query to
    evaluate ("No queries with both results and relevance info") and refuses."""
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "run").write_text("5 Q0 a 1 1 r\n5 Q0 b 2 0.5 r\n")
    run = str(tmp_path / "run")
    args = ["evaluate", "-f", "trec", "-c", "-m", "num_q", "-m", "map",
            str(tmp_path / "qrels"), run]
    res = CliRunner().invoke(main, [*args[:3], "--trec-version", "10", *args[3:]])
    assert res.exit_code == 0, res.output
    assert res.stdout == "num_q                 \tall\t2\nmap                   \tall\t0.0000\n"
    assert res.stderr == (f"smarteval: {run}: 2 queries of the qrels without results (no "
                          "query of the run is in the qrels), evaluated on trec_eval 10.0's "
                          "placeholder document (-c)\n")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1 and res.stdout == ""
    assert "no query of this run has judgements" in res.stderr
