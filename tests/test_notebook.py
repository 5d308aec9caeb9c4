"""In the notebook: results show themselves (print, HTML, the other formats), every result's
.frame() is its -f tsv, dir(smarteval) lists the public API, a DataFrame is read with
pandas alone, and qrels come by ir_datasets id."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fixtures import ROOT, invoke

import smarteval

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def results(sample):
    """One result of each kind, as a notebook makes it."""
    qrels, runs = str(sample.qrels), [str(p) for p in sample.runs]
    return {
        "evaluate": smarteval.evaluate(qrels, runs, ["map", "P.10"]),
        "compare": smarteval.compare(qrels, runs[0], runs[1:], ["map", "P.10"]),
        "report": smarteval.report(qrels, runs, ["map", "P.10"]),
        "curve": smarteval.curve(qrels, runs[:2]),
        "correlate": smarteval.correlate(smarteval.evaluate(qrels, runs, ["map", "P.10",
                                                                         "recip_rank"])),
        "discpower": smarteval.discpower(qrels, runs, ["map"], samples=200),
        "topics": smarteval.topics([0.05, 0.1], 0.01),
    }


KINDS = ["evaluate", "compare", "report", "curve", "correlate", "discpower", "topics"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_result_shows_itself(results, kind):
    result = results[kind]
    text = str(result)
    assert text == result.render("smart") and repr(result) == text.rstrip("\n")
    assert "dataclass" not in text and "=" not in text.splitlines()[0][:20]
    html = result._repr_html_()
    assert "<table" in html and html == result.to_html()
    assert result.to_markdown() == result.render("markdown")
    assert result.to_latex() == result.render("latex")
    pretty = []

    class Printer:                      # IPython's console calls _repr_pretty_
        def text(self, s):
            pretty.append(s)
    result._repr_pretty_(Printer(), False)
    assert pretty == [text]


@pytest.mark.parametrize("kind", KINDS)
def test_every_result_has_frame_and_it_is_its_tsv(results, kind):
    result = results[kind]
    tsv = pd.read_csv(io.StringIO(result.to_tsv()), sep="\t", keep_default_na=False,
                      na_values=[""])
    frame = result.frame()
    assert list(frame.columns) == list(tsv.columns)
    assert len(frame) == len(tsv)
    numeric = [c for c in tsv.columns if tsv[c].dtype.kind == "f"]
    for column in numeric:
        assert frame[column].astype(float).tolist() == pytest.approx(
            tsv[column].tolist(), nan_ok=True), column


def test_the_html_of_a_notebook_is_the_commands(results, sample):
    """What a cell shows is what -f html writes."""
    html = invoke("report", "-f", "html", "-m", "map", "-m", "P.10", sample.qrels,
                  *sample.runs).stdout
    assert results["report"]._repr_html_() == html
    html = invoke("evaluate", "-f", "html", "-m", "map", "-m", "P.10", sample.qrels,
                  *sample.runs).stdout
    assert results["evaluate"]._repr_html_() == html
    assert html.startswith("<p>Averages over 15 queries</p>\n<table>")


def test_the_old_frame_names_stay(results):
    report = results["report"]
    assert report.to_frame().equals(report.wide())
    assert report.comparisons_frame().equals(report.pairs_frame())
    assert list(report.wide().columns) == ["map", "P_10"]


def test_dir_lists_the_public_api():
    names = dir(smarteval)
    for name in ("evaluate", "compare", "report", "curve", "correlate", "read_run",
                 "read_qrels", "Results", "ReportTable", "stats", "__version__"):
        assert name in names, name
    assert not {"Any", "TYPE_CHECKING", "annotations"} & set(names)
    assert set(smarteval.__all__) <= set(names)
    assert sorted(smarteval.__all__) == sorted(["__version__", *smarteval._HOMES,
                                                *smarteval._SUBPACKAGES])
    for name in smarteval.__all__:
        assert getattr(smarteval, name) is not None, name


# =========================================================================== pandas alone

NO_PYARROW = textwrap.dedent("""
    import json, sys
    sys.modules["pyarrow"] = None        # pyarrow cannot be imported, as where PyTerrier
    import pandas as pd                  # installed pandas alone
    import ir_measures
    import smarteval

    names = ["qid", "Q0", "docno", "rank", "score", "tag"]
    run = pd.read_csv("sample_data/bm25.run", sep=" ", names=names, dtype={"qid": str})
    qrels = pd.read_csv("sample_data/qrels.txt", sep=" ", names=["qid", "iter", "docno",
                        "label"], dtype={"qid": str})
    out = {"values": smarteval.evaluate(qrels, {"bm25": run}, ["map", "ndcg", "P.10"]
                                        ).to_dict(per_query=True)}
    # pt.Experiment(..., eval_metrics=[AP, smarteval.ir_measure(...)]) with pandas alone
    m = smarteval.ir_measure("norm_recall", num_docs=4000)
    ir_run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
    ir_qrels = qrels.rename(columns={"qid": "query_id", "docno": "doc_id",
                                     "label": "relevance"})
    out["ir"] = {str(k): v for k, v in ir_measures.calc_aggregate([ir_measures.AP, m],
                                                                  ir_qrels, ir_run).items()}
    # a bad value is refused with its row, as with pyarrow
    out["errors"] = []
    for frame in ({"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]},
                  {"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]},
                  {"qid": ["1", "1"], "docno": ["a", ""], "score": [1.0, 2.0]},
                  {"qid": [1, 2], "docno": ["a", "b"], "score": ["1", "x"]}):
        try:
            smarteval.read_run(pd.DataFrame(frame))
        except smarteval.SmartevalError as exc:
            out["errors"].append(str(exc))
    out["pyarrow"] = sys.modules.get("pyarrow") is not None
    print(json.dumps(out))
""")

BAD_FRAMES = [{"qid": ["1", None], "docno": ["a", "b"], "score": [1.0, 2.0]},
              {"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, float("nan")]},
              {"qid": ["1", "1"], "docno": ["a", ""], "score": [1.0, 2.0]},
              {"qid": [1, 2], "docno": ["a", "b"], "score": ["1", "x"]}]


def test_a_dataframe_is_read_with_pandas_alone(sample):
    """With pyarrow unimportable, DataFrames give the numbers, the ir_measures measure and
    the refusals they give with it."""
    pytest.importorskip("ir_measures")
    import json
    res = subprocess.run([sys.executable, "-c", NO_PYARROW], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["pyarrow"] is False
    want = smarteval.evaluate(sample.qrels, {"bm25": sample.runs[0]}, ["map", "ndcg", "P.10"]
                              ).to_dict(per_query=True)
    assert got["values"] == want
    ap = smarteval.evaluate(sample.qrels, sample.runs[0], "map")[0].summary["map"]
    assert got["ir"]["AP"] == pytest.approx(ap, rel=1e-12)
    norm = smarteval.evaluate(sample.qrels, sample.runs[0], "norm_recall", num_docs=4000,
                              complete=True)[0].summary["norm_recall"]
    assert got["ir"]["norm_recall"] == pytest.approx(norm, rel=1e-12)
    errors = []
    for frame in BAD_FRAMES:
        with pytest.raises(smarteval.SmartevalError) as exc:
            smarteval.read_run(pd.DataFrame(frame))
        errors.append(str(exc.value))
    assert got["errors"] == errors


# =========================================================================== ir_datasets ids

def _offline(home: Path, code: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter whose ir_datasets reads its files from ``home``
    (where a test placed them: nothing is downloaded)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "IR_DATASETS_HOME": str(home)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=env)


@pytest.fixture
def irds_home(tmp_path, sample):
    """An ir_datasets home holding antique/test's qrels file, as ir_datasets keeps it once
    downloaded (the sample qrels in its place)."""
    pytest.importorskip("ir_datasets")
    home = tmp_path / "irds"
    (home / "antique" / "test").mkdir(parents=True)
    (home / "antique" / "test" / "qrels").write_bytes(Path(sample.qrels).read_bytes())
    return home


def test_qrels_by_ir_datasets_id(irds_home, sample, tmp_path):
    run = str(sample.runs[0])
    code = ("from smarteval.cli import main; "
            f"main(['evaluate', '-f', 'tsv', '-m', 'map', 'antique/test', {run!r}])")
    res = _offline(irds_home, code, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    want = invoke("evaluate", "-f", "tsv", "-m", "map", sample.qrels, sample.runs[0]).stdout
    assert res.stdout == want
    # the library takes the id too
    code = ("import smarteval; q = smarteval.read_qrels('antique/test'); "
            "print(q.path, len(q.qids))")
    res = _offline(irds_home, code, cwd=tmp_path)
    assert res.stdout == "antique/test (ir_datasets) 15\n", res.stderr


def test_a_path_wins_over_an_id(irds_home, sample, tmp_path):
    (tmp_path / "antique").mkdir()
    (tmp_path / "antique" / "test").write_text("401 0 nothing-retrieved 1\n")
    run = str(sample.runs[0])
    code = ("from smarteval.cli import main; "
            f"main(['evaluate', '-f', 'tsv', '-m', 'num_rel', 'antique/test', {run!r}])")
    res = _offline(irds_home, code, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[1] == "bm25\tall\tnum_rel\t1"


def test_a_dataset_that_cannot_be_had_is_one_message(monkeypatch, cli, sample):
    ir_datasets = pytest.importorskip("ir_datasets")

    class Unreachable:
        def has_qrels(self):
            return True

        def qrels_iter(self):
            raise OSError("Name or service not known\nmore detail")

    monkeypatch.setattr(ir_datasets, "load", lambda name: Unreachable())
    res = cli("evaluate", "antique/train", sample.runs[0])
    assert res.exit_code == 1
    assert res.stderr == (
        "Error: antique/train: ir_datasets cannot give its qrels: Name or service not known\n"
        "  ir_datasets downloads a dataset's files on first use into IR_DATASETS_HOME "
        "(default ~/.ir_datasets), and reads them from there afterwards\n")
    # an id ir_datasets does not know is a missing file; so is a name with an extension
    assert cli("evaluate", "nope/nothing", sample.runs[0]).stderr == \
        "Error: nope/nothing: no such file\n"


def test_without_ir_datasets_an_id_names_the_extra(monkeypatch, cli, sample):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    res = cli("evaluate", "msmarco-passage/dev/small", sample.runs[0])
    assert res.exit_code == 1
    assert res.stderr == ("Error: msmarco-passage/dev/small: no such file; as an ir_datasets "
                          "id it needs the datasets extra: pip install 'smarteval[datasets]'\n")
    assert cli("evaluate", "qrels.txt", sample.runs[0]).stderr == \
        "Error: qrels.txt: no such file\n"
