"""Ids of any length: a long docno or query id takes a variable-length column, and every
number is the one the same input with short ids gives (and trec_eval's)."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from test_conformance import CASES as CONFORMANCE
from test_conformance import DATA as CONFORMANCE_DATA
from test_conformance import case_flags
from test_golden import CASES as GOLDEN
from test_golden import KNOWN, case_argv

from smarteval.cli import main
from smarteval.read import fast, keys
from smarteval.read.plain import read_qrels, read_run

LONG = "L" * 20_000


def _evaluate(qrels, run, *args) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["evaluate", "-f", "trec", *args, str(qrels), str(run)])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.stdout


@pytest.fixture
def every_id_variable_length(monkeypatch):
    """Every id column variable-length, however short its ids."""
    for module in (keys, fast):
        monkeypatch.setattr(module, "fixed_width_pays", lambda *args: False)


def test_golden_cases_with_every_id_variable_length(every_id_variable_length, tmp_path):
    """The golden corpus (trec_eval 9.0.8's and 10.0's output) read with variable-length
    id columns only: the same output byte for byte, the same refusals."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    checked = 0
    for version, case in GOLDEN:
        if case["id"] in KNOWN:
            continue
        qrels.write_text(case["qrels"])
        run.write_text(case["run"])
        status, out = _evaluate(qrels, run, "--trec-version", version,
                                *case_argv(case, tmp_path))
        if not checked and status == 0:
            assert keys.is_varlen(read_run(run).docnos) and keys.is_varlen(read_qrels(qrels).qids)
        if case["status"]:
            assert status != 0, case["id"]
        else:
            assert (status, out) == (0, case["stdout"]), case["id"]
            checked += 1
    assert checked > 500


def test_trec_eval_suite_with_every_id_variable_length(every_id_variable_length):
    for name, flags, rel, res in CONFORMANCE:
        expected = (CONFORMANCE_DATA / "expected-10.0" / f"out.{name}").read_text()
        status, out = _evaluate(CONFORMANCE_DATA / "inputs" / rel,
                                CONFORMANCE_DATA / "inputs" / res, "--trec-version", "10",
                                *case_flags(flags))
        assert (status, out) == (0, expected), name


def _qrels_lines(long_docno: str = "") -> list[str]:
    lines = [f"{401 + q} 0 FT9{q:02d}-{d:05d} {d % 3}\n" for q in range(15)
             for d in range(0, 1000, 7)]
    if long_docno:
        lines.insert(300, f"403 0 {long_docno} 2\n")
    return lines


def _run_lines(docno: str, qid: str = "406") -> list[str]:
    lines = [f"{401 + q} Q0 FT9{q:02d}-{d:05d} {d + 1} {1000 - d}.5 tag\n"
             for q in range(15) for d in range(1000)]
    lines[5000] = f"406 Q0 {docno} 1 9999.5 tag\n"       # first in query 406
    lines[2500] = f"403 Q0 {docno} 501 500.5 tag\n"      # tied with FT902-00499
    return [line.replace("406 ", f"{qid} ", 1) if line.startswith("406 ") else line
            for line in lines]


@pytest.mark.parametrize("judged", [False, True], ids=["unjudged", "judged"])
def test_one_long_docno_gives_the_numbers_of_a_short_one(tmp_path, judged):
    """A run with one 20,000-byte docno (retrieved twice, once tied), judged in the qrels
    or not: the numbers of the same files with a short docno in its place (one that
    sorts among the others as the long one does)."""
    out = {}
    for name, docno in (("long", LONG), ("short", "LSHORT")):
        (tmp_path / f"{name}.qrels").write_text("".join(_qrels_lines(docno if judged else "")))
        (tmp_path / f"{name}.run").write_text("".join(_run_lines(docno)))
        out[name] = _evaluate(tmp_path / f"{name}.qrels", tmp_path / f"{name}.run",
                              "-m", "all_trec", "-q")
    assert out["long"][0] == 0
    assert out["long"] == out["short"]
    run = read_run(tmp_path / "long.run")
    assert keys.is_varlen(run.docnos)
    assert run.docnos[run.offsets[5]] == LONG.encode()


def test_a_judged_long_docno_not_retrieved(tmp_path):
    """The qrels hold the long docno (a variable-length column), the run does not."""
    out = {}
    for name, docno in (("long", LONG), ("short", "LSHORT")):
        (tmp_path / f"{name}.qrels").write_text("".join(_qrels_lines(docno)))
        (tmp_path / f"{name}.run").write_text("".join(_run_lines("FT999-00001")))
        out[name] = _evaluate(tmp_path / f"{name}.qrels", tmp_path / f"{name}.run",
                              "-m", "all_trec", "-q", "-c")
    assert out["long"][0] == 0
    assert out["long"] == out["short"]
    assert keys.is_varlen(read_qrels(tmp_path / "long.qrels").docnos)


def test_a_long_query_id(tmp_path):
    """A 5,000-byte query id (in the run and the qrels, beside a long docno): the numbers
    of a short id in its place, the id printed whole."""
    qid = "406" + "q" * 5000                            # sorts where 406 does
    qrels = "".join(line.replace("406 ", f"{qid} ", 1) if line.startswith("406 ") else line
                    for line in _qrels_lines())
    (tmp_path / "long.qrels").write_text(qrels)
    (tmp_path / "long.run").write_text("".join(_run_lines(LONG, qid)))
    (tmp_path / "short.qrels").write_text("".join(_qrels_lines()))
    (tmp_path / "short.run").write_text("".join(_run_lines(LONG)))
    status, long_out = _evaluate(tmp_path / "long.qrels", tmp_path / "long.run",
                                 "-m", "official", "-q")
    assert status == 0
    assert f"\t{qid}\t" in long_out
    assert long_out.replace(qid, "406") == _evaluate(tmp_path / "short.qrels",
                                                     tmp_path / "short.run",
                                                     "-m", "official", "-q")[1]
    assert keys.is_varlen(read_run(tmp_path / "long.run").qids)


def test_gather_ids_keeps_the_bytes():
    """Variable-length when one id is far longer than the rest, fixed width otherwise;
    either way the bytes of every id."""
    ids = [b"a", b"bb" * 20, b"c" * 300, b"d" * 5, b"e" * 70_000, b"f" * 9]
    buf = bytearray(b" " * fast.PAD + b" ".join(ids) + b" " * fast.PAD)
    length = np.array([len(i) for i in ids])
    start = fast.PAD + np.concatenate(([0], np.cumsum(length + 1)[:-1]))
    got = fast.gather_ids(buf, start, length)
    assert keys.is_varlen(got)
    assert got.tolist() == ids
    short = fast.gather_ids(buf, start[:2], length[:2])
    assert not keys.is_varlen(short) and short.tolist() == ids[:2]


def test_sort_keys_and_hashes_agree_across_representations():
    ids = np.array([b"b", b"a" * 300, b"a", b"ab", b"b", b"a" * 299], dtype=object)
    fixed = ids.astype("S304")
    for words in (keys.sort_key_words(ids), keys.sort_key_words(fixed)):
        order = np.lexsort(tuple(reversed(words)))
        assert [ids[i] for i in order] == sorted(ids.tolist())
    desc = np.lexsort(keys.descending_keys(ids))
    assert [ids[i] for i in desc] == sorted(ids.tolist(), reverse=True)
    h = keys.docno_hash(ids)
    assert h[0] == h[4] and len(set(h.tolist())) == 5
    assert keys.fitted(ids, np.dtype("S8")).tolist() == [b"b", b"", b"a", b"ab", b"b", b""]
    assert keys.fits(ids, np.dtype("S8")).tolist() == [True, False, True, True, True, False]


def test_a_long_docno_in_an_arrow_table():
    """The columnar reader of Tables and Parquet keeps a long docno as the text reader does."""
    pa = pytest.importorskip("pyarrow")
    from smarteval.read.frames import run_from
    docnos = [f"FT{d:05d}" for d in range(2000)]
    docnos[700] = LONG
    table = pa.table({"qid": ["401"] * 1000 + ["402"] * 1000, "docno": docnos,
                      "score": [float(2000 - d) for d in range(2000)]})
    run = run_from(table)
    assert keys.is_varlen(run.docnos)
    assert run.docnos.tolist() == [d.encode() for d in docnos]


def test_a_long_docno_and_query_id_in_a_data_frame():
    """A DataFrame's object columns: the long ids kept variable-length, the numbers those
    of the text files."""
    pd = pytest.importorskip("pandas")
    import smarteval
    from smarteval.read.frames import qrels_from, run_from
    qid = "406" + "q" * 5000
    rows = [line.split() for line in _run_lines(LONG, qid)]
    frame = pd.DataFrame({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                          "score": [float(r[4]) for r in rows]})
    judged = [line.split() for line in _qrels_lines(LONG)]
    qframe = pd.DataFrame({"qid": [qid if r[0] == "406" else r[0] for r in judged],
                           "docno": [r[2] for r in judged], "label": [int(r[3]) for r in judged]})
    run, qrels = run_from(frame), qrels_from(qframe)
    assert keys.is_varlen(run.docnos) and keys.is_varlen(run.qids)
    assert keys.is_varlen(qrels.docnos) and keys.is_varlen(qrels.qids)
    short = run_from(frame.assign(docno=frame.docno.str.replace(LONG, "LSHORT"),
                                  qid=frame.qid.str.replace(qid, "406")))
    short_qrels = qrels_from(qframe.assign(docno=qframe.docno.str.replace(LONG, "LSHORT"),
                                           qid=qframe.qid.str.replace(qid, "406")))
    assert not keys.is_varlen(short.docnos) and not keys.is_varlen(short.qids)
    got = smarteval.evaluate(qrels, run, ["official"])[0]
    want = smarteval.evaluate(short_qrels, short, ["official"])[0]
    assert got.per_query.keys() == want.per_query.keys()
    for name, values in want.per_query.items():
        assert np.array_equal(np.asarray(got.per_query[name]), np.asarray(values)), name


def test_qrels_with_a_five_megabyte_docno(tmp_path):
    """Read without a column as wide as the longest docno (7,500 rows of 5 MB would not fit)."""
    huge = "H" * 5_000_000
    lines = _qrels_lines()
    lines[100] = f"401 0 {huge} 1\n"
    (tmp_path / "qrels").write_text("".join(lines))
    qrels = read_qrels(tmp_path / "qrels")
    assert keys.is_varlen(qrels.docnos)
    first = qrels.docnos[qrels.offsets[0]:qrels.offsets[1]].tolist()   # query 401's
    assert first == sorted(f"FT900-{d:05d}".encode() for d in range(0, 1000, 7)
                           if d != 700) + [huge.encode()]
    assert len(qrels) == len(lines)
