"""Runs and qrels given as DataFrames, dicts, records, Parquet and JSON Lines files read into
the same columns as the text readers, evaluate to the same numbers, and fail clearly."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from fixtures import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.errors import InputError, UsageError
from smarteval.read import plain, read_qrels, read_run

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
ir_measures = pytest.importorskip("ir_measures")

ROOT = Path(__file__).resolve().parent.parent
QRELS = ROOT / "sample_data" / "qrels.txt"
RUN = ROOT / "sample_data" / "bm25.run"
MEASURES = ["official", "ndcg_cut.10", "recall.100"]


def run_frame(path=RUN, names=("qid", "docno", "score")) -> pd.DataFrame:
    rows = list(ir_measures.read_trec_run(str(path)))
    df = pd.DataFrame(rows)
    return df.rename(columns=dict(zip(("query_id", "doc_id", "score"), names)))


def qrels_frame(path=QRELS, names=("qid", "docno", "label")) -> pd.DataFrame:
    df = pd.DataFrame(list(ir_measures.read_trec_qrels(str(path))))
    return df.rename(columns=dict(zip(("query_id", "doc_id", "relevance"), names)))


def same_columns(a, b, fields):
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        assert x.shape == y.shape and (x == y).all(), f


def summary(qrels, run, **kw):
    ev = smarteval.evaluate(qrels, run, MEASURES, **kw)[0]
    return {k: v for k, v in ev.summary.items() if k != "runid"}


EXPECTED = summary(str(QRELS), str(RUN))


# --------------------------------------------------------------------------- every form

def test_columns_equal_the_text_readers():
    text_run, text_qrels = plain.read_run(str(RUN)), plain.read_qrels(str(QRELS))
    for run in (read_run(run_frame()), read_run(run_frame(names=("query_id", "doc_id",
                                                                   "score")))):
        same_columns(text_run, run, ("qids", "offsets", "docnos", "scores"))
        assert run.scores.dtype == np.float64 and run.qids.dtype.kind == "U"
    for qrels in (read_qrels(qrels_frame()), read_qrels(qrels_frame(names=(
            "query_id", "doc_id", "relevance")))):
        same_columns(text_qrels, qrels, ("qids", "offsets", "docnos", "grades"))
        assert qrels.grades.dtype == np.int64


@pytest.mark.parametrize("form", ["pyterrier", "ir_measures", "named", "dict", "namedtuples",
                                  "iterator", "tuples", "arrow"])
def test_every_form_gives_the_same_numbers(form):
    if form == "pyterrier":
        q, r = qrels_frame(), run_frame()
    elif form == "ir_measures":
        q = qrels_frame(names=("query_id", "doc_id", "relevance"))
        r = run_frame(names=("query_id", "doc_id", "score"))
    elif form == "named":
        q = qrels_frame(names=("topic", "doc", "grade"))
        r = run_frame(names=("topic", "doc", "sim"))
        q = smarteval.read_qrels(q, columns={"qid": "topic", "docno": "doc", "label": "grade"})
        r = smarteval.read_run(r, columns={"qid": "topic", "docno": "doc", "score": "sim"})
    elif form == "dict":
        q = {}
        for row in ir_measures.read_trec_qrels(str(QRELS)):
            q.setdefault(row.query_id, {})[row.doc_id] = row.relevance
        r = {}
        for row in ir_measures.read_trec_run(str(RUN)):
            r.setdefault(row.query_id, {})[row.doc_id] = row.score
    elif form == "namedtuples":
        q = list(ir_measures.read_trec_qrels(str(QRELS)))
        r = list(ir_measures.read_trec_run(str(RUN)))
    elif form == "iterator":
        q = ir_measures.read_trec_qrels(str(QRELS))
        r = ir_measures.read_trec_run(str(RUN))
    elif form == "tuples":
        q = [tuple(x)[:3] for x in ir_measures.read_trec_qrels(str(QRELS))]
        r = [tuple(x) for x in ir_measures.read_trec_run(str(RUN))]
        q, r = smarteval.read_qrels(q), smarteval.read_run(r)
    else:
        q = pa.Table.from_pandas(qrels_frame())
        r = pa.Table.from_pandas(run_frame())
        # several chunks, 32-bit offsets, a dictionary column
        r = pa.concat_tables([r.slice(0, 700), r.slice(700)]).cast(pa.schema([
            ("qid", pa.dictionary(pa.int32(), pa.string())), ("docno", pa.string()),
            ("score", pa.float64())]))
    assert summary(q, r) == EXPECTED


def test_parquet_and_jsonl_files(tmp_path):
    frame = run_frame()
    frame["tag"] = "bm25"
    frame.to_parquet(tmp_path / "run.parquet")
    frame.to_parquet(tmp_path / "run.bin")                      # by its magic bytes
    frame.to_json(tmp_path / "run.jsonl", orient="records", lines=True)
    with gzip.open(tmp_path / "run.jsonl.gz", "wt") as f:
        f.write(frame.to_json(orient="records", lines=True))
    qrels_frame().to_json(tmp_path / "qrels.data", orient="records", lines=True)   # magic
    qrels_frame().to_parquet(tmp_path / "qrels.parquet")
    for q in ("qrels.data", "qrels.parquet"):
        for r in ("run.parquet", "run.bin", "run.jsonl", "run.jsonl.gz"):
            assert summary(str(tmp_path / q), str(tmp_path / r)) == EXPECTED, (q, r)
    assert read_run(str(tmp_path / "run.parquet")).tag == "bm25"
    frame.drop(columns="tag").to_parquet(tmp_path / "dense.parquet")
    assert read_run(str(tmp_path / "dense.parquet")).tag == "dense"    # the file's name


def test_cli_reads_parquet_and_jsonl(tmp_path):
    from smarteval.cli import main
    run_frame().to_parquet(tmp_path / "run.parquet")
    qrels_frame().to_json(tmp_path / "qrels.jsonl", orient="records", lines=True)
    args = ["evaluate", "-f", "tsv", "-q", "-m", "map", "-m", "P.10"]
    text = CliRunner().invoke(main, [*args, str(QRELS), str(RUN)])
    table = CliRunner().invoke(main, [*args, str(tmp_path / "qrels.jsonl"),
                                      str(tmp_path / "run.parquet")])
    assert text.exit_code == table.exit_code == 0
    assert text.output.replace("bm25", "run") == table.output


@st.composite
def collections(draw):
    qids = draw(st.lists(st.sampled_from(["1", "2", "10", "q\u00e9", "7"]), min_size=1,
                         max_size=4, unique=True))
    docs = [f"d{i}" for i in range(8)]
    run, qrels = [], []
    for q in qids:
        for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True)):
            run.append((q, d, float(draw(st.sampled_from([0.5, 1.0, 2.0, 3.25])))))
        for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True)):
            qrels.append((q, d, draw(st.integers(-1, 3))))
    extra = draw(st.lists(st.tuples(st.sampled_from(["5", "1"]), st.sampled_from(docs),
                                    st.integers(0, 2)), max_size=3, unique_by=lambda t: t[:2]))
    qrels += [t for t in extra if (t[0], t[1]) not in {(a, b) for a, b, _ in qrels}]
    order = draw(st.permutations(range(len(run))))
    return [run[i] for i in order], qrels


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_generated_inputs_agree_in_every_form(tmp_path_factory, data):
    run, qrels = data
    tmp = tmp_path_factory.mktemp("gen")
    (tmp / "run").write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, d, s in run))
    (tmp / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    forms = {
        "frame": (pd.DataFrame(qrels, columns=["qid", "docno", "label"]),
                  pd.DataFrame(run, columns=["qid", "docno", "score"])),
        "dict": ({q: {d: g for q2, d, g in qrels if q2 == q} for q, _, _ in qrels},
                 {q: {d: s for q2, d, s in run if q2 == q} for q, _, _ in run}),
        "records": ([ir_measures.Qrel(*t) for t in qrels],
                    [ir_measures.ScoredDoc(*t) for t in run]),
    }
    forms["frame"][0].to_json(tmp / "qrels.jsonl", orient="records", lines=True)
    forms["frame"][1].to_parquet(tmp / "run.parquet")
    forms["files"] = (str(tmp / "qrels.jsonl"), str(tmp / "run.parquet"))
    try:
        want = smarteval.evaluate(str(tmp / "qrels"), str(tmp / "run"), ["all_trec"],
                                  complete=True)[0]
    except InputError as exc:
        for q, r in forms.values():
            with pytest.raises(InputError) as got:
                smarteval.evaluate(q, r, ["all_trec"], complete=True)
            assert got.value.problem == exc.problem
        return
    for name, (q, r) in forms.items():
        ev = smarteval.evaluate(q, r, ["all_trec"], complete=True)[0]
        assert (ev.qids == want.qids).all(), name
        for out in want.per_query:
            if out != "runid":
                np.testing.assert_array_equal(ev.per_query[out], want.per_query[out],
                                              err_msg=f"{name} {out}")


# --------------------------------------------------------------------------- names and shapes

def test_runs_as_a_named_dict_and_lists():
    frame = run_frame()
    res = smarteval.evaluate(qrels_frame(), {"bm25": frame, "again": str(RUN)}, "map")
    assert [ev.name for ev in res] == ["bm25", "again"]
    assert res[0].summary["map"] == res[1].summary["map"] == EXPECTED["map"]
    res = smarteval.evaluate(str(QRELS), [frame, frame], "map")
    assert [ev.name for ev in res] == ["run1", "run2"]
    assert [ev.name for ev in smarteval.evaluate(str(QRELS), frame, "map")] == ["run"]


# --------------------------------------------------------------------------- refusals

def test_duplicates_are_refused_where_trec_eval_refuses_them():
    frame = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "a"],
                          "score": [3.0, 2.0, 1.0]})
    qrels = {"1": {"a": 1}}
    run = read_run(frame)
    assert run.repeated.tolist() == [[0, 2]] and run.lines is not None
    with pytest.raises(InputError, match=r"<run DataFrame>:3: document a appears again in "
                                         r"query 1 \(first at line 1\)"):
        smarteval.evaluate(qrels, frame, "map")
    assert smarteval.evaluate(qrels, frame, "map", max_docs=2)[0].summary["map"] == 1.0
    twice = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "label": [1, 0]})
    with pytest.raises(InputError, match=r"<qrels DataFrame>:2: document a is judged again"):
        smarteval.evaluate(twice, {"1": {"a": 1.0}}, "map")


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("inf")]}),
     r"<run DataFrame>:2: score inf is not a finite number"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]}),
     r"<run DataFrame>:2: no score \(missing value in column 'score'\)"),
    ({"1": {"a": 1.0, "b": float("nan")}}, r"<run dict>:2: score nan is not a finite number"),
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["1", "x"]}),
     r"<run DataFrame>:2: score 'x' is not a number"),
    (pd.DataFrame({"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]}),
     r"<run DataFrame>:2: no query id"),
    (pd.DataFrame({"query": ["1"], "docno": ["a"], "score": [1.0]}),
     r"<run DataFrame>: no qid column \(qid or query_id\); it has query, docno, score"),
    (pd.DataFrame({"qid": [], "docno": [], "score": []}), r"<run DataFrame>: no rows"),
])
def test_bad_runs_are_named_with_their_row(frame, message):
    with pytest.raises(InputError, match=message):
        read_run(frame)


@pytest.mark.parametrize("qrels, message", [
    (pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, 1.5]}),
     r"<qrels DataFrame>:2: relevance 1.5 is not an integer"),
    ({"1": {"a": 1, "b": "1.0"}}, r"<qrels dict>:2: relevance '1.0' is not an integer"),
    ([ir_measures.Qrel("1", "a", 0.5)], r"<qrels records>:1: relevance 0.5 is not an integer"),
])
def test_bad_qrels_are_named_with_their_row(qrels, message):
    with pytest.raises(InputError, match=message):
        read_qrels(qrels)


def test_integral_float_grades_and_numeric_ids_are_read():
    q = read_qrels(pd.DataFrame({"qid": [401, 401], "docno": [7, 8], "label": [1.0, 0.0]}))
    assert q.qids.tolist() == ["401"] and q.docnos.tolist() == [b"7", b"8"]
    assert q.grades.tolist() == [1, 0]


def test_caller_columns_must_exist():
    with pytest.raises(UsageError, match="no column 'x'"):
        read_run(run_frame(), columns={"score": "x"})


# --------------------------------------------------------------------------- without the extra

def test_missing_pyarrow_is_one_line_naming_the_extra_for_files(monkeypatch, tmp_path):
    run_frame().to_parquet(tmp_path / "run.parquet")
    with_arrow = read_run(run_frame())
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    # a DataFrame is read with pandas alone (tests/test_notebook.py), a Parquet file not
    alone = read_run(run_frame())
    assert alone.qids.tolist() == with_arrow.qids.tolist()
    assert alone.docnos.tolist() == with_arrow.docnos.tolist()
    assert alone.scores.tobytes() == with_arrow.scores.tobytes()
    with pytest.raises(UsageError, match=r"reading Parquet needs pyarrow: pip install "
                                         r"'smarteval\[frames\]'"):
        read_run(str(tmp_path / "run.parquet"))
    # dicts and records need neither
    assert read_run({"1": {"a": 1.0}}).qids.tolist() == ["1"]
    from smarteval.cli import main
    out = CliRunner().invoke(main, ["evaluate", str(QRELS), str(tmp_path / "run.parquet")])
    assert out.exit_code == 2
    (line,) = out.output.strip().splitlines()
    assert line.endswith("reading Parquet needs pyarrow: pip install 'smarteval[frames]'")


def test_missing_pandas_is_one_line_naming_the_extra(monkeypatch):
    res = smarteval.evaluate(str(QRELS), str(RUN), "map")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(UsageError, match=r"DataFrames need pandas: pip install "
                                         r"'smarteval\[frames\]'"):
        res.frame()
    assert res.to_dict() == {"bm25": {"map": EXPECTED["map"]}}


def test_import_and_cli_never_import_pandas():
    code = ("import sys, smarteval\n"
            "from smarteval.cli import main\n"
            "smarteval.evaluate('sample_data/qrels.txt', {'1': {'a': 1.0}}, 'map',"
            " require_common=False)\n"
            "try:\n    main(['compare', 'sample_data/qrels.txt', 'sample_data/bm25.run',"
            " 'sample_data/dense.run'])\nexcept SystemExit:\n    pass\n"
            "assert 'pandas' not in sys.modules and 'pyarrow' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)


def test_a_pipe_is_read_once_as_text():
    from smarteval.cli import main
    script = (f"exec 3< <(cat {RUN}); "
              f"{sys.executable} -m smarteval evaluate -f tsv -m map {QRELS} /dev/fd/3")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=ROOT)
    want = CliRunner().invoke(main, ["evaluate", "-f", "tsv", "-m", "map", str(QRELS),
                                     str(RUN)]).output
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1:] == want.splitlines()[1:]


def test_the_evaluation_stage_takes_one_frame_as_one_run():
    from smarteval import evaluation
    evs = evaluation.evaluate(str(QRELS), run_frame(), ["map"])
    assert len(evs) == 1 and evs[0].summary["map"] == EXPECTED["map"]
    ((_, ranked),) = evaluation.rankings(str(QRELS), run_frame())
    assert ranked.num_queries == 15
    evs = evaluation.evaluate(qrels_frame(), run_frame(), ["map"])
    assert evs[0].summary["map"] == EXPECTED["map"]


def test_ids_that_are_not_utf8_match_the_text_reader(tmp_path):
    (tmp_path / "run").write_bytes(b"\xff1 Q0 d\xfe 1 1.0 t\n\xff1 Q0 \xc3\xa9 2 0.5 t\n")
    text = plain.read_run(str(tmp_path / "run"))
    from_dict = read_run({b"\xff1": {b"d\xfe": 1.0, "\u00e9": 0.5}})
    table = pa.table({"qid": pa.array([b"\xff1", b"\xff1"]),
                      "docno": pa.array([b"d\xfe", "\u00e9".encode()]), "score": [1.0, 0.5]})
    for run in (from_dict, read_run(table)):
        same_columns(text, run, ("qids", "offsets", "docnos", "scores"))


def test_a_frame_is_never_changed_by_its_evaluation(tmp_path):
    """A run given as a DataFrame is ranked in copies: the frame's own columns (which the
    columns may share memory with) keep their order and values."""
    pd = pytest.importorskip("pandas")
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    frame = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["b", "a", "c"],
                          "score": [1.0, 3.0, 2.0]})
    before = frame.copy(deep=True)
    smarteval.evaluate(str(qrels), frame, ["map"])
    pd.testing.assert_frame_equal(frame, before)
