"""Reading runs and qrels: formats, compression, ranking order."""

from __future__ import annotations

import bz2
import gzip
import lzma

import numpy as np
import pytest
from click.testing import CliRunner

import smarteval
from smarteval.cli import main
from smarteval.columns import NONPOOL, UNJUDGED
from smarteval.ranking.join import rank
from smarteval.read.plain import read_qrels, read_run
from smarteval.settings import Settings

RUN = b"301 Q0 D1 1 2.5 tag\n301 Q0 D2 2 2.1 tag\n302 Q0 D9 1 1.0 tag\n"


def test_run_columns():
    run = read_run("r", data=RUN)
    assert list(run.qids) == ["301", "302"]
    assert run.offsets.tolist() == [0, 2, 3]
    assert run.docnos.tolist() == [b"D1", b"D2", b"D9"]
    assert run.scores.tolist() == [2.5, 2.1, 1.0]
    assert run.lines.tolist() == [1, 2, 3]
    assert run.tag == "tag"


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_by_magic_bytes(tmp_path, compress):
    path = tmp_path / "run.txt"          # the name says nothing of the compression
    path.write_bytes(compress(RUN))
    assert read_run(path).docnos.tolist() == [b"D1", b"D2", b"D9"]


def test_lenient_whitespace_bom_crlf_comments_extra_fields():
    data = (b"\xef\xbb\xbf# a comment\r\n\r\n301\tQ0\tD1  1 2.5 tag extra fields\r\n"
            b"   \n301 Q0 D2 2 2.1 tag\r\n")
    run = read_run("r", data=data)
    assert run.docnos.tolist() == [b"D1", b"D2"]
    assert run.lines.tolist() == [3, 5]
    assert run.tag == "tag"


def test_last_line_without_newline():
    assert len(read_run("r", data=RUN.rstrip(b"\n"))) == 3


def test_queries_regrouped_in_byte_order():
    run = read_run("r", data=b"b Q0 x 1 1 t\na Q0 y 1 1 t\nb Q0 z 2 0 t\n10 Q0 w 1 1 t\n")
    assert list(run.qids) == ["10", "a", "b"]
    assert run.docnos[run.offsets[2]:run.offsets[3]].tolist() == [b"x", b"z"]


def test_qrels_equal_duplicates_accepted_and_negative_grades_kept():
    q = read_qrels("q", data=b"1 0 b 1\n1 0 a -1\n1 0 b 1\n")
    assert q.docnos.tolist() == [b"a", b"b"]
    assert q.grades.tolist() == [-1, 1]


def test_ranking_matches_trec_eval_order():
    # ties broken by docno descending; scores compared as float32 under trec_eval 9
    run = read_run("r", data=b"1 Q0 a 1 1.0 t\n1 Q0 c 2 1.0 t\n1 Q0 b 3 2.0 t\n"
                              b"1 Q0 d 4 1.00000001 t\n")
    qrels = read_qrels("q", data=b"1 0 a 1\n1 0 c -1\n")
    r9 = rank(run, qrels)
    assert r9.docno.tolist() == [b"b", b"d", b"c", b"a"]
    assert r9.rel.tolist() == [NONPOOL, NONPOOL, UNJUDGED, 1]
    r10 = rank(run, qrels, settings=Settings(trec_version=10))
    assert r10.docno.tolist() == [b"b", b"d", b"c", b"a"][:1] + [b"d", b"c", b"a"]


def test_max_docs_and_judged_only():
    run = read_run("r", data=b"1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2 t\n1 Q0 d 4 1 t\n")
    qrels = read_qrels("q", data=b"1 0 b 1\n1 0 d 0\n")
    assert rank(run, qrels, Settings(max_docs=2)).docno.tolist() == [b"a", b"b"]
    assert rank(run, qrels, Settings(judged_only=True)).docno.tolist() == [b"b", b"d"]


def test_complete_adds_missing_queries():
    run = read_run("r", data=b"1 Q0 a 1 4 t\n")
    qrels = read_qrels("q", data=b"1 0 a 1\n2 0 b 1\n2 0 c 1\n")
    ev = smarteval.evaluate(qrels, run, ["map", "num_rel", "num_q"], complete=True)[0]
    assert list(ev.qids) == ["1", "2"]
    assert ev.in_run.tolist() == [True, False]
    assert ev.summary == {"map": 0.5, "num_rel": 3, "num_q": 2}


def test_run_from_stdin(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels").write_bytes(b"301 0 D1 1\n")
    result = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-m", "P.1", "qrels", "-"],
                                input=RUN)
    assert result.exit_code == 0, result.output
    assert result.stdout == "run\tquery\tmeasure\tvalue\ntag\tall\tP_1\t1.0\n"


def test_api_values():
    qrels = read_qrels("q", data=b"301 0 D1 1\n301 0 D3 1\n302 0 D9 0\n")
    run = read_run("r", data=RUN)
    ev = smarteval.evaluate(qrels, run, ["map", "P@2", "nDCG@10"])[0]
    assert ev.names == ["map", "P@2", "nDCG@10"]     # ir_measures names as asked for
    np.testing.assert_allclose(ev.per_query["map"], [0.5, 0.0])
    np.testing.assert_allclose(ev.per_query["P@2"], [0.5, 0.0])
    assert ev.value("map") == 0.25
    assert ev.value("P@2", "301") == 0.5


def test_rel_level_of_ir_measures_names_on_graded_qrels():
    # D1 has grade 1, D2 grade 2: at rel=2 only D2 counts, at the default level both
    qrels = read_qrels("q", data=b"301 0 D1 1\n301 0 D2 2\n301 0 D3 2\n302 0 D9 2\n")
    run = read_run("r", data=RUN)
    ev = smarteval.evaluate(qrels, run, ["P@1", "P@2", "P(rel=2)@1", "P(rel=2)@2",
                                         "AP", "AP(rel=2)", "R(rel=2)@2"])[0]
    np.testing.assert_allclose(ev.per_query["P@1"], [1.0, 1.0])
    np.testing.assert_allclose(ev.per_query["P(rel=2)@1"], [0.0, 1.0])
    np.testing.assert_allclose(ev.per_query["P@2"], [1.0, 0.5])
    np.testing.assert_allclose(ev.per_query["P(rel=2)@2"], [0.5, 0.5])
    # AP: relevant at ranks 1, 2 of 3 -> (1 + 1) / 3; at rel=2 rank 2 of 2 -> (1/2) / 2
    np.testing.assert_allclose(ev.per_query["AP"], [2 / 3, 1.0])
    np.testing.assert_allclose(ev.per_query["AP(rel=2)"], [0.25, 1.0])
    np.testing.assert_allclose(ev.per_query["R(rel=2)@2"], [0.5, 1.0])
    # the same as evaluating everything at -l 2
    at2 = smarteval.evaluate(qrels, run, ["P.1,2", "map"], rel_level=2)[0]
    np.testing.assert_array_equal(at2.per_query["P_1"], ev.per_query["P(rel=2)@1"])
    np.testing.assert_array_equal(at2.per_query["map"], ev.per_query["AP(rel=2)"])
