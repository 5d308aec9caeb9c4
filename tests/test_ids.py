"""Ids are bytes: query ids, docnos and run tags that are not UTF-8 stay distinct, match
byte for byte and are printed back as read; long ids and numbers at the edge of their
range read exactly, or are refused naming file and line.

The property tests read generated files with both readers and compare them with a plain
Python reading of the bytes.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from fixtures import examples, invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.errors import InputError
from smarteval.read import plain

# trec_eval 9.0.8's output on these files (10.0 stops: "result qid '401\xff' not found")
QRELS = b"\xff401 0 D1 1\n\xfe401 0 D1 0\n401\xfe 0 D1 1\n"
RUN = b"\xff401 Q0 D1 1 1 t\n\xfe401 Q0 D1 1 1 t\n401\xff Q0 D1 1 1 t\n"
TREC_EVAL_9 = (b"map                   \t\xfe401\t0.0000\nmap                   \t\xff401\t1.0000\n"
               b"num_q                 \tall\t2\nmap                   \tall\t0.5000\n")


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    return tmp_path


def test_query_ids_that_are_not_utf8_stay_distinct_and_print_as_read(files):
    res = invoke(["evaluate", "-f", "trec", "-q", "-m", "map", "-m", "num_q", "q", "r"])
    assert res.exit_code == 0, res.output
    assert res.stdout_bytes == TREC_EVAL_9


@pytest.mark.parametrize("fmt,expected", [
    ("tsv", b"t\t\xfe401\tmap\t0.0\nt\t\xff401\tmap\t1.0\nt\tall\tmap\t0.5\n"),
    ("csv", b"t,\xfe401,map,0.0\nt,\xff401,map,1.0\nt,all,map,0.5\n"),
])
def test_delimited_output_keeps_the_bytes(files, fmt, expected):
    res = invoke(["evaluate", "-f", fmt, "--no-header", "-q", "-m", "map", "q", "r"])
    assert res.stdout_bytes == expected


def test_json_output_escapes_the_bytes_and_reads_back(files):
    res = invoke(["evaluate", "-f", "json", "-q", "-m", "map", "q", "r"])
    queries = json.loads(res.stdout_bytes)[0]["queries"]
    assert {q.encode("utf-8", "surrogateescape"): v["map"] for q, v in queries.items()} == \
        {b"\xfe401": 0.0, b"\xff401": 1.0}


def test_debug_query_names_an_id_that_is_not_utf8(files):
    query = b"0.\xff401".decode("utf-8", "surrogateescape")    # as the shell hands it over
    res = invoke(["evaluate", "-f", "trec", "-q", "-m", "map", "-D", query, "q", "r"])
    assert res.stdout_bytes == (b"map                   \t\xff401\t1.0000\n"
                                b"map                   \tall\t1.0000\n")


def test_tags_and_docnos_that_are_not_utf8(files):
    (files / "q").write_bytes(b"1 0 D\xe9 1\n1 0 D\xc3\xa9 0\n")
    (files / "r").write_bytes(b"1 Q0 D\xc3\xa9 1 2 caf\xe9\n1 Q0 D\xe9 2 1 caf\xe9\n")
    res = invoke(["evaluate", "-f", "trec", "-m", "runid", "-m", "P.1,2", "q", "r"])
    assert res.stdout_bytes == (b"runid                 \tall\tcaf\xe9\n"
                                b"P_1                   \tall\t0.0000\n"
                                b"P_2                   \tall\t0.5000\n")


def test_error_messages_keep_the_bytes(files):
    (files / "r").write_bytes(b"\xff401 Q0 D1 1 1 t\n\xff401 Q0 D1 2 0 t\n")
    res = invoke(["evaluate", "-m", "map", "q", "r"])
    assert res.exit_code == 1
    assert res.stderr_bytes.startswith(b"Error: r:2: document D1 appears again in query "
                                       b"\xff401 (first at line 1)\n")


def test_correlate_reads_back_results_that_are_not_utf8(files):
    for name, tag in (("a", b"r\xe9a"), ("b", b"r\xe9b"), ("c", b"r\xe9c")):
        (files / name).write_bytes(RUN.replace(b" t\n", b" " + tag + b"\n"))
        res = invoke(["evaluate", "-f", "trec", "-m", "runid", "-m", "map", "-m", "P.1", "-o",
                      f"{name}.eval", "q", name])
        assert res.exit_code == 0
    res = invoke(["correlate", "-f", "json", "a.eval", "b.eval", "c.eval"])
    assert res.exit_code == 0, res.output
    assert [r.encode("utf-8", "surrogateescape") for r in json.loads(res.stdout)["runs"]] == \
        [b"r\xe9a", b"r\xe9b", b"r\xe9c"]


def test_query_order_is_byte_order_when_ids_mix_encodings(files):
    (files / "q").write_bytes(b"\x80 0 D1 1\n\xc3\xa9 0 D1 1\n")
    (files / "r").write_bytes(b"\x80 Q0 D1 1 1 t\n\xc3\xa9 Q0 D1 1 1 t\n")
    res = invoke(["evaluate", "-f", "trec", "-q", "-m", "num_ret", "q", "r"])
    assert res.stdout_bytes == (b"num_ret               \t\x80\t1\n"
                                b"num_ret               \t\xc3\xa9\t1\n"
                                b"num_ret               \tall\t2\n")


# =========================================================================== properties

#: query ids: ASCII, UTF-8, bytes that are not UTF-8, ids that differ only there
QIDS = [b"1", b"10", b"401", b"\xff401", b"\xfe401", b"401\xff", b"401\xfe", b"caf\xc3\xa9",
        b"caf\xe9", b"\xe2\x82\xac1"]
DOCNO = st.one_of(
    st.sampled_from([b"D1", b"D2", b"d\xe9", b"d\xc3\xa9", b"\xff", b"LA010189-0001"]),
    st.binary(min_size=1, max_size=12).map(lambda b: re.sub(rb"[\x00-\x20#]", b"x", b)),
    st.integers(9, 600).map(lambda n: b"L" * n),                     # long docnos
)
SCORE = st.one_of(
    st.sampled_from([b"1", b"-0", b"1e308", b"-1.7976931348623157e308", b"4.9e-324",
                     b"123456789012345678901234567890", b"0.1000000000000000055511151231257827",
                     b"+.5", b"7."]),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: repr(x).encode()),
)
GRADE = st.one_of(st.integers(-3, 3), st.sampled_from([2**63 - 1, -(2**63)]))


@st.composite
def run_and_qrels(draw):
    rows = draw(st.lists(st.tuples(st.sampled_from(QIDS), DOCNO, SCORE), min_size=1,
                         max_size=25, unique_by=lambda t: (t[0], t[1])))
    tag = draw(st.sampled_from([b"tag", b"t\xe9", b"\xff"]))
    run = b"".join(b"%s Q0 %s %d %s %s\n" % (q, d, i, s, tag) for i, (q, d, s) in enumerate(rows))
    judged = draw(st.lists(st.tuples(st.sampled_from(QIDS), DOCNO, GRADE), min_size=1,
                           max_size=25, unique_by=lambda t: (t[0], t[1])))
    qrels = b"".join(b"%s 0 %s %d\n" % j for j in judged)
    return rows, tag, run, judged, qrels


def _by_query(run) -> dict:
    out = {}
    for i, q in enumerate(run.qids.tolist()):
        o0, o1 = run.offsets[i], run.offsets[i + 1]
        out[q.encode("utf-8", "surrogateescape")] = list(zip(run.docnos[o0:o1].tolist(),
                                                             run.scores[o0:o1].tolist()))
    return out


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=run_and_qrels())
def test_readers_keep_the_bytes(tmp_path_factory, case):
    rows, tag, run_bytes, judged, qrels_bytes = case
    path = tmp_path_factory.mktemp("ids") / "run"
    path.write_bytes(run_bytes)
    want: dict[bytes, list] = {}
    for q, d, s in rows:
        want.setdefault(q, []).append((d, float(s)))
    for run in (plain.read_run(path), plain.read_run("r", data=run_bytes)):   # fast, plain
        assert _by_query(run) == want
        assert run.tag.encode("utf-8", "surrogateescape") == tag
        assert (run.qids[1:] > run.qids[:-1]).all()           # the order ids are matched in
    qrels = plain.read_qrels("q", data=qrels_bytes)
    got = {(qrels.qids[i].encode("utf-8", "surrogateescape"), d): g
           for i in range(len(qrels.qids))
           for d, g in zip(qrels.docnos[qrels.offsets[i]:qrels.offsets[i + 1]].tolist(),
                           qrels.grades[qrels.offsets[i]:qrels.offsets[i + 1]].tolist())}
    assert got == {(q, d): g for q, d, g in judged}
    # the join matches bytes with bytes: relevant retrieved documents per query
    grade = {(q, d): g for q, d, g in judged}
    shared = sorted(set(want) & {q for q, _, _ in judged})
    if not shared:
        return
    try:
        ev = smarteval.evaluate(qrels, plain.read_run(path), ["num_rel_ret", "num_ret"])[0]
    except InputError as exc:                  # as trec_eval: see tests/test_errors.py
        assert "is judged only with negative grades" in str(exc)
        return
    values = {q.encode("utf-8", "surrogateescape"): (int(a), int(b)) for q, a, b in
              zip(ev.qids.tolist(), ev.per_query["num_rel_ret"], ev.per_query["num_ret"])}
    assert values == {q: (sum(grade.get((q, d), -1) >= 1 for d, _ in want[q]), len(want[q]))
                      for q in shared}


@pytest.mark.parametrize("grade", [b"9223372036854775808", b"-9223372036854775809",
                                   b"99999999999999999999999999", b"1_0", b"0x1", b"1e3"])
def test_grades_past_the_range_or_not_integers_are_refused(grade):
    with pytest.raises(InputError) as exc:
        plain.read_qrels("q", data=b"1 0 a 1\n1 0 b " + grade + b"\n")
    assert str(exc.value).startswith(f"q:2: relevance {grade.decode()!r} is ")


@pytest.mark.parametrize("score", [b"1_000", b"0x10", b"1e", b"--1", b"1.2.3", b"inf", b"nan",
                                   b"1e999"])
def test_scores_outside_the_grammar_are_refused(score):
    with pytest.raises(InputError) as exc:
        plain.read_run("r", data=b"1 Q0 a 1 1 t\n1 Q0 b 2 " + score + b" t\n")
    assert str(exc.value).startswith(f"r:2: score {score.decode()!r} is not a")


def test_long_docnos_read_exactly():
    long = b"L" * 20_000
    run = plain.read_run("r", data=b"1 Q0 a 1 2 t\n1 Q0 " + long + b" 2 1 t\n")
    assert run.docnos.tolist() == [b"a", long]
    assert np.array_equal(run.scores, [2.0, 1.0])
