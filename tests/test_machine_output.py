"""Machine-readable output is one clean table: -f tsv and csv are numbers only and equal
.frame(); every data format prints one table; measures come in the order asked for in
every format but trec_eval's; compare gives its means; report's --label names measures."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from fixtures import invoke

import smarteval

pd = pytest.importorskip("pandas")


def _read(text: str, fmt: str = "tsv", **kw):
    return pd.read_csv(io.StringIO(text), sep="\t" if fmt == "tsv" else ",",
                       dtype={"run": str, "query": str, "measure": str}, **kw)


# =========================================================================== tsv == .frame()

@pytest.mark.parametrize("measures", [[], ["-m", "all_trec"], ["-m", "relstring", "-m", "map"],
                                      ["-m", "nDCG@10", "-m", "P.5", "-m", "Rprec"]],
                         ids=["default", "all_trec", "text", "ir_measures"])
@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_tsv_is_the_frame_and_pandas_reads_numbers(sample, measures, per_query, fmt):
    flags = ["-q"] if per_query else []
    res = invoke("evaluate", "-f", fmt, *flags, *measures, sample.qrels, *sample.runs)
    assert res.exit_code == 0, res.output
    got = _read(res.stdout, fmt)
    assert got["value"].dtype == np.float64            # numbers only: no runid, no relstring
    assert "runid" not in set(got["measure"]) and "relstring" not in set(got["measure"])
    names = [m for m in measures if m != "-m"] or ["official"]
    frame = smarteval.evaluate(sample.qrels, [str(p) for p in sample.runs], names
                               ).frame(per_query=per_query)
    pd.testing.assert_frame_equal(got, frame, check_dtype=False)


def test_runid_stays_in_trec_and_json(sample):
    trec = invoke("evaluate", "-f", "trec", sample.qrels, sample.runs[0]).stdout
    assert trec.startswith("runid                 \tall\tbm25\n")
    obj = json.loads(invoke("evaluate", "-f", "json", sample.qrels, sample.runs[0]).stdout)
    assert obj[0]["summary"]["runid"] == "bm25"


# =========================================================================== one table

ONE_TABLE = [
    ["report", "-m", "map"], ["report", "-m", "map", "--no-header"],
    ["report", "-m", "map", "--pairs"], ["report", "-m", "map", "--anova"],
    ["report", "-m", "map", "--wins"], ["report", "-m", "map", "-b", "bm25", "--deltas"],
    ["compare", "-m", "map"], ["compare", "-m", "map", "--magnitudes"],
    ["compare", "-m", "map", "--tau"], ["compare", "-m", "P.5", "--select",
                                        "--select-measure", "P", "--depth", "5"],
    ["discpower", "-m", "map", "--samples", "50"],
    ["discpower", "-m", "map", "--samples", "50", "--pairs"],
]


@pytest.mark.parametrize("args", ONE_TABLE, ids=[" ".join(a) for a in ONE_TABLE])
@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_each_data_output_is_one_table(sample, args, fmt):
    res = invoke(args[0], "-f", fmt, *args[1:], sample.qrels, *sample.runs)
    assert res.exit_code == 0, res.output
    assert "\n\n" not in res.stdout
    table = _read(res.stdout, fmt, header=None if "--no-header" in args else "infer")
    assert len(table) >= 1 and table.shape[1] > 2


@pytest.mark.parametrize("args, given", [
    (["report", "--pairs", "--wins"], "--pairs and --wins"),
    (["report", "--anova", "-b", "bm25", "--deltas"], "--anova and --deltas"),
    (["compare", "--magnitudes", "--tau"], "--magnitudes and --tau"),
])
def test_two_tables_asked_of_tsv_are_refused_before_any_work(sample, args, given):
    res = invoke(args[0], "-f", "tsv", *args[1:], sample.qrels, *sample.runs)
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr == (f"Error: {given}: -f tsv writes one table; give one of them (or -f "
                          "json, which holds every table)\n")
    assert invoke(args[0], "-f", "json", *args[1:], sample.qrels, *sample.runs).exit_code == 0


def test_report_frame_is_its_tsv(sample):
    t = smarteval.report(sample.qrels, [str(p) for p in sample.runs], ["map", "P.10"])
    tsv = _read(t.render("tsv"))
    frame = t.frame()
    assert list(frame.columns) == list(tsv.columns)
    assert frame["mean"].tolist() == tsv["mean"].tolist()
    pairs = _read(t.render("tsv", pairs=True))
    assert t.pairs_frame()["p_value"].tolist() == pairs["p_value"].tolist()


# =========================================================================== compare's means

def test_compare_tsv_and_frame_give_the_means(sample):
    res = invoke("compare", "-f", "tsv", "-m", "map", sample.qrels, *sample.runs[:2])
    row = _read(res.stdout).iloc[0]
    cmp = smarteval.compare(sample.qrels, sample.runs[0], [sample.runs[1]], "map")
    (want,) = cmp.report.rows
    assert row["mean_baseline"] == want["mean_baseline"] and row["mean_run"] == want["mean_run"]
    assert row["mean_run"] - row["mean_baseline"] == pytest.approx(row["mean_diff"])
    frame = cmp.frame()
    assert frame.loc[0, "mean_baseline"] == want["mean_baseline"]
    obj = json.loads(invoke("compare", "-f", "json", "-m", "map", sample.qrels,
                            *sample.runs[:2]).stdout)
    assert list(obj["comparisons"][0]) == list(frame.columns)       # one set of columns


# =========================================================================== order asked for

ASKED = ["ndcg_cut.10", "recip_rank", "map"]
PRINTED = ["ndcg_cut_10", "recip_rank", "map"]


def _m(names):
    return [a for n in names for a in ("-m", n)]


def test_measures_print_in_the_order_asked_for(sample):
    runs = sample.runs
    # evaluate: tsv, csv, json, the tables
    for fmt in ("tsv", "csv"):
        got = _read(invoke("evaluate", "-f", fmt, *_m(ASKED), sample.qrels, runs[0]).stdout,
                    fmt)
        assert got["measure"].tolist() == PRINTED
    obj = json.loads(invoke("evaluate", "-f", "json", "-q", *_m(ASKED), sample.qrels,
                            runs[0]).stdout)[0]
    assert list(obj["summary"]) == PRINTED and list(obj["queries"]["401"]) == PRINTED
    for fmt in ("smart", "markdown", "latex"):
        text = invoke("evaluate", "-f", fmt, *_m(ASKED), sample.qrels, runs[0]).stdout
        assert [text.index(n.replace("_", "\\_") if fmt == "latex" else n)
                for n in PRINTED] == sorted(text.index(n.replace("_", "\\_") if fmt == "latex"
                                                       else n) for n in PRINTED)
    # trec keeps trec_eval's order
    trec = invoke("evaluate", "-f", "trec", *_m(ASKED), sample.qrels, runs[0]).stdout
    assert [line.split()[0] for line in trec.splitlines()] == ["map", "recip_rank",
                                                               "ndcg_cut_10"]
    # compare, report, discpower; the library
    cmp = _read(invoke("compare", "-f", "tsv", *_m(ASKED), sample.qrels, *runs[:2]).stdout)
    assert cmp["measure"].tolist() == PRINTED
    rep = json.loads(invoke("report", "-f", "json", *_m(ASKED), sample.qrels, *runs).stdout)
    assert rep["measures"] == PRINTED
    disc = _read(invoke("discpower", "-f", "tsv", "--samples", "20", *_m(ASKED), sample.qrels,
                        *runs).stdout)
    assert disc["measure"].tolist() == PRINTED
    results = smarteval.evaluate(sample.qrels, runs[0], ASKED)
    assert list(results.wide().columns) == PRINTED
    assert list(results.to_dict()["bm25"]) == PRINTED


def test_a_nickname_keeps_trec_evals_order_within_it(sample):
    got = _read(invoke("evaluate", "-f", "tsv", "-m", "P.5", "-m", "official", sample.qrels,
                       sample.runs[0]).stdout)
    names = got["measure"].tolist()
    assert names[0] == "P_5" and names[1:5] == ["num_q", "num_ret", "num_rel", "num_rel_ret"]


def test_label_names_measures(sample):
    res = invoke("report", "-f", "csv", "-m", "ndcg_cut.10", "-m", "map",
                 "--label", "ndcg_cut_10=nDCG@10", "--label", "map=MAP", "--label", "bm25=BM25",
                 sample.qrels, *sample.runs)
    got = _read(res.stdout, "csv")
    assert got["measure"].tolist()[:2] == ["nDCG@10", "MAP"]
    assert got["run"].tolist()[0] == "BM25"
    md = invoke("report", "-f", "markdown", "-m", "ndcg_cut.10", "--label",
                "ndcg_cut.10=nDCG@10", sample.qrels, *sample.runs).stdout
    assert "nDCG@10" in md and "ndcg_cut_10" not in md
    res = invoke("report", "-m", "map", "-m", "P.10", "--label", "P_10=map", sample.qrels,
                 *sample.runs)
    assert res.exit_code == 2
    assert res.stderr == "Error: --label: several measures are named 'map': give each its own\n"
