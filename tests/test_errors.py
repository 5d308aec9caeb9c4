"""Every kind of bad input gives one message naming file, line and problem; exit 1 or 2."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from smarteval.cli import main

QRELS = "301 0 D1 1\n301 0 D2 0\n"
RUN = "301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 2.1 tag\n"

RUN_EXPECTED = "  expected: QUERY_ID Q0 DOC_ID RANK SCORE RUN_TAG (6 fields, whitespace-separated)"
QRELS_EXPECTED = "  expected: QUERY_ID ITERATION DOC_ID RELEVANCE (4 fields, whitespace-separated)"

# (name, qrels bytes, run bytes, extra args, exit status, exact stderr)
CASES = [
    ("run too few fields", QRELS, "301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 2.1\n", [], 1,
     "Error: run.txt:2: run line has 5 fields, not 6\n    301 Q0 D2 2 2.1\n"
     + RUN_EXPECTED + "\n"),
    ("score not a number", QRELS, "# header\n301 Q0 D1 1 abc tag\n", [], 1,
     "Error: run.txt:2: score 'abc' is not a number\n    301 Q0 D1 1 abc tag\n"
     + RUN_EXPECTED + "\n"),
    ("score not finite", QRELS, "301 Q0 D1 1 inf tag\n", [], 1,
     "Error: run.txt:1: score 'inf' is not a finite number\n    301 Q0 D1 1 inf tag\n"
     + RUN_EXPECTED + "\n"),
    ("duplicate docno in a run", QRELS,
     "301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 2.1 tag\n\n301 Q0 D1 3 1.0 tag\n", [], 1,
     "Error: run.txt:4: document D1 appears again in query 301 (first at line 1)\n"
     "    301 Q0 D1 3 1.0 tag\n    line 1: 301 Q0 D1 1 2.5 tag\n"
     "  expected: each document at most once per query (among the first -M)\n"),
    ("rel not an integer", "301 0 D1 1\n301 0 D2 yes\n", RUN, [], 1,
     "Error: qrels.txt:2: relevance 'yes' is not an integer\n    301 0 D2 yes\n"
     + QRELS_EXPECTED + "\n"),
    ("rel a decimal", "301 0 D1 1.0\n", RUN, [], 1,
     "Error: qrels.txt:1: relevance '1.0' is not an integer\n    301 0 D1 1.0\n"
     + QRELS_EXPECTED + "\n"),
    ("rel with an underscore", "301 0 D1 1_0\n", RUN, [], 1,
     "Error: qrels.txt:1: relevance '1_0' is not an integer\n    301 0 D1 1_0\n"
     + QRELS_EXPECTED + "\n"),
    ("qrels too few fields", "301 0 D1\n", RUN, [], 1,
     "Error: qrels.txt:1: qrels line has 3 fields, not 4\n    301 0 D1\n"
     + QRELS_EXPECTED + "\n"),
    ("conflicting judgements", "301 0 D1 1\n301 0 D2 0\n301 0 D1 2\n", RUN, [], 1,
     "Error: qrels.txt:3: document D1 is judged again in query 301 (first at line 1)\n"
     "    301 0 D1 2\n    line 1: 301 0 D1 1\n"
     "  expected: each document judged once in a query that is evaluated\n"),
    ("blank line in qrels", "301 0 D1 1\n\n301 0 D2 0\n", RUN, [], 1,
     "Error: qrels.txt:2: blank line: every qrels line holds 4 fields\n    \n"
     + QRELS_EXPECTED + "\n"),
    ("run given as qrels", RUN, RUN, [], 1,
     "Error: qrels.txt:1: qrels line has 6 fields, not 4 (this looks like a run file)\n"
     "    301 Q0 D1 1 2.5 tag\n" + QRELS_EXPECTED + "\n"),
    ("prels given as qrels (5 fields)", "301 D1 1 mtc 0.5\n", RUN, [], 1,
     "Error: qrels.txt:1: qrels line has 5 fields, not 4 (sample_eval's sampled judgements, "
     "QUERY ITER DOCNO STRATUM REL, are read with -R sample_qrels; the Million Query track's "
     "prels, QUERY DOCNO REL METHOD PROB, are not read)\n    301 D1 1 mtc 0.5\n"
     + QRELS_EXPECTED + "\n"),
    ("grade past a C long", "301 0 D1 99999999999999999999\n", RUN, [], 1,
     "Error: qrels.txt:1: relevance '99999999999999999999' is out of range: a grade lies "
     "between -9223372036854775808 and 9223372036854775807\n"
     "    301 0 D1 99999999999999999999\n" + QRELS_EXPECTED + "\n"),
    ("negative grade past a C long", "301 0 D1 1\n301 0 D2 -9223372036854775809\n", RUN, [], 1,
     "Error: qrels.txt:2: relevance '-9223372036854775809' is out of range: a grade lies "
     "between -9223372036854775808 and 9223372036854775807\n"
     "    301 0 D2 -9223372036854775809\n" + QRELS_EXPECTED + "\n"),
    ("score with an underscore", QRELS, "301 Q0 D1 1 1_000 tag\n301 Q0 D2 2 2 tag\n", [],
     1, "Error: run.txt:1: score '1_000' is not a number\n    301 Q0 D1 1 1_000 tag\n"
     + RUN_EXPECTED + "\n"),
    ("score in hexadecimal", QRELS, "301 Q0 D1 1 0x10 tag\n", [], 1,
     "Error: run.txt:1: score '0x10' is not a number\n    301 Q0 D1 1 0x10 tag\n"
     + RUN_EXPECTED + "\n"),
    ("first query judged only below 0", "301 0 D1 -1\n302 0 D1 1\n",
     RUN + "302 Q0 D1 1 1 tag\n", [], 1,
     "Error: qrels.txt: query 301 is judged only with negative grades and is the first query"
     " evaluated: trec_eval cannot evaluate it (\"Can't calculate measure\")\n"
     "  expected: a judgement of 0 or more in the first query evaluated (or leave the query"
     " out, or ask no trec_eval measure)\n"),
    ("empty run", QRELS, "# nothing here\n\n", [], 1,
     "Error: run.txt: no run lines (empty, or only blank and comment lines)\n"
     + RUN_EXPECTED + "\n"),
    ("empty qrels", "", RUN, [], 1,
     "Error: qrels.txt: no qrels lines (empty, or only blank and comment lines)\n"
     + QRELS_EXPECTED + "\n"),
    ("binary run", QRELS, "301 Q0 D1 1 2.5 tag\n\x00\x01\x02\n", [], 1,
     "Error: run.txt:2: binary file (NUL byte), not a run file\n" + RUN_EXPECTED + "\n"),
    ("no shared query", "999 0 D1 1\n", RUN, [], 1,
     "Error: run.txt: no query of this run has judgements in qrels.txt\n"
     "  expected: query ids shared by the run and the qrels\n"),
    ("unknown measures listed at once", QRELS, RUN, ["-m", "map", "-m", "mapp", "-m", "ndgc"], 2,
     "Error: unknown measures:\n  mapp (did you mean map, gm_map?)\n"
     "  ndgc (did you mean ndcg, Rndcg?)\n  'smarteval measures' lists them all\n"),
    ("bad measure parameters", QRELS, RUN, ["-m", "P.five"], 2,
     "Error: bad parameters in measure 'P.five': expected positive integers, e.g. P.5,10\n"),
    ("empty measure", QRELS, RUN, ["-m", ""], 2,
     "Error: measure '' is empty (trec_eval refuses it too): name a measure, e.g. -m map\n"),
    ("blank measure", QRELS, RUN, ["-m", "map", "-m", " "], 2,
     "Error: measure ' ' is empty (trec_eval refuses it too): name a measure, e.g. -m map\n"),
    ("a 10.0 measure under 9.0.8", QRELS, RUN, ["-m", "rbp"], 2,
     "Error: unknown measure:\n  rbp (a measure of trec_eval 10.0 only: give --trec-version "
     "10)\n  'smarteval measures' lists them all\n"),
    ("a 10.0 measure under 9.0.8, with @", QRELS, RUN, ["-m", "unj@5"], 2,
     "Error: unknown measure:\n  unj@5 (a measure of trec_eval 10.0 only: give "
     "--trec-version 10)\n  'smarteval measures' lists them all\n"),
    *[(f"{spec} {' '.join(more)}".strip(), QRELS, RUN, ["-m", spec, *more], 2,
       f"Error: unknown measure:\n  {spec} (did you mean {meant}?)\n"
       "  'smarteval measures' lists them all\n")
      for spec, more, meant in [
          ("ndcg@10", [], "ndcg_cut.10, nDCG@10"),
          ("ndcg@10", ["--trec-version", "9"], "ndcg_cut.10, nDCG@10"),
          ("ndcg@10", ["--trec-version", "10"], "ndcg_cut.10, nDCG@10"),
          ("ndcg_cut@10", [], "ndcg_cut.10, nDCG@10"),
          ("map@5", [], "map_cut.5, AP@5"),
          ("mrr@10", [], "recip_rank_cut.10, RR@10"),
          ("p@10", [], "P.10, P@10"),
          ("recall@100", [], "recall.100, R@100"),
          ("iprec_at_recall@0.5", [], "iprec_at_recall.0.5, IPrec@0.5"),
          ("P_10", [], "P.10"),
          ("ndcg_cut_10", [], "ndcg_cut.10"),
          ("map(rel=2)", [], "AP(rel=2)"),
          ("map(rel=2)@5", [], "AP(rel=2)@5"),
      ]],
    ("a directory as the qrels", QRELS, RUN, ["."], 1,
     "Error: .: is a directory, not a file\n"),
]


@pytest.mark.parametrize("name,qrels,run,args,status,message", CASES,
                         ids=[(c.values if hasattr(c, "values") else c)[0] for c in CASES])
def test_bad_input(tmp_path, monkeypatch, name, qrels, run, args, status, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_bytes(qrels.encode())
    (tmp_path / "run.txt").write_bytes(run.encode())
    result = CliRunner().invoke(main, ["evaluate", *args, "qrels.txt", "run.txt"])
    assert result.exit_code == status
    assert result.stderr == message
    assert result.stdout == ""
    assert "Traceback" not in result.output


@pytest.mark.parametrize("version", ["9", "10"])
def test_require_suggests_the_spelling(tmp_path, monkeypatch, version):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    result = CliRunner().invoke(main, ["evaluate", "--trec-version", version, "--require",
                                       "ndcg@10>=0.4", "qrels.txt", "run.txt"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("Error: unknown measure:\n  ndcg@10 (did you mean ndcg_cut.10, "
                             "nDCG@10?)\n  'smarteval measures' lists them all\n")


def test_missing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    result = CliRunner().invoke(main, ["evaluate", "qrels.txt", "nope.run"])
    assert result.exit_code == 1
    assert result.stderr == "Error: nope.run: no such file\n"


def test_output_file_not_written_on_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text("301 Q0 D1 1 oops tag\n")
    (tmp_path / "out.tsv").write_text("previous\n")
    result = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-o", "out.tsv",
                                       "qrels.txt", "run.txt"])
    assert result.exit_code == 1
    assert (tmp_path / "out.tsv").read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv", "qrels.txt", "run.txt"]


def test_output_file_written_atomically(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    result = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-m", "map", "-o", "out.tsv",
                                       "qrels.txt", "run.txt"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out.tsv").read_text() == "run\tquery\tmeasure\tvalue\ntag\tall\tmap\t1.0\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv", "qrels.txt", "run.txt"]


def test_bad_usage_exits_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["evaluate", "-f", "xml", "a", "b"])
    assert result.exit_code == 2


def test_out_of_memory_names_the_file(tmp_path, monkeypatch):
    """A file too large to read in memory is one message naming it, not a traceback."""
    from smarteval.read import plain

    def exhausted(*args, **kwargs):
        raise MemoryError
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    monkeypatch.setattr(plain, "_read_run_fast", exhausted)
    result = CliRunner().invoke(main, ["evaluate", "qrels.txt", "run.txt"])
    assert result.exit_code == 1
    assert result.stderr == ("Error: run.txt: out of memory while reading it (0 MiB of text): "
                             "give smarteval more memory, or evaluate the file in parts\n")
