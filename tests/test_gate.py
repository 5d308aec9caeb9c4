"""The gate of a CI job: a stored baseline (--baseline-results) read back exactly,
compare and report --fail-if, evaluate --require; exit status 3, one line per failure on
standard error, the output written as without the gate."""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
import pytest
from fixtures import examples, invoke
from hypothesis import given, settings
from hypothesis import strategies as st

import smarteval
from smarteval.errors import BAD_INPUT, BAD_USAGE, EXIT_STATUSES, REGRESSED, SUCCESS
from smarteval.read.results import read_per_query

MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]


@pytest.fixture(scope="module")
def stored(tmp_path_factory, sample):
    """Each sample run's per-query results as evaluate -q writes them, in json, tsv, csv,
    and the trec text; and both bm25 runs in one file."""
    d = tmp_path_factory.mktemp("stored")
    files = {}
    for run in sample.runs:
        for fmt in ("json", "tsv", "csv", "trec"):
            res = invoke("evaluate", "-q", "-f", fmt, MEASURES, sample.qrels, run)
            assert res.exit_code == 0, res.output
            files[run.stem, fmt] = d / f"{run.stem}.{fmt}"
            files[run.stem, fmt].write_text(res.stdout)
    res = invoke("evaluate", "-q", "-f", "json", MEASURES, sample.qrels, *sample.runs[::2])
    files["two"] = d / "two.json"
    files["two"].write_text(res.stdout)
    return files


# =========================================================================== read back exactly

@pytest.mark.parametrize("fmt", ["json", "tsv", "csv"])
def test_stored_values_are_the_evaluations_own(stored, sample, fmt):
    (ev,) = smarteval.evaluate(sample.qrels, sample.runs[0], ["map", "P.10", "ndcg_cut.10"])
    (back,) = read_per_query(str(stored["bm25", fmt]))
    assert back.name == "bm25" and back.qids.tolist() == ev.qids.tolist()
    for name in ("map", "P_10", "ndcg_cut_10"):
        assert back.per_query[name].tobytes() == ev.per_query[name].astype(float).tobytes()
        assert back.summary[name] == ev.summary[name]


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, width=64),
                min_size=2, max_size=12),
       st.sampled_from(["json", "tsv", "csv"]))
def test_any_scores_come_back_bit_for_bit(scores, fmt):
    """Whatever digits the values need (map, ndcg, bpref of any scores and judgements),
    what evaluate -q writes reads back as the same doubles."""
    run = {f"q{i}": {f"d{j}": s for j, s in enumerate(scores)} for i in range(3)}
    qrels = {f"q{i}": {f"d{j}": int(j % (i + 2) == 0) for j in range(len(scores))}
             for i in range(3)}
    results = smarteval.evaluate(qrels, {"r": run}, ["map", "ndcg", "bpref", "P.3"])
    text = results.render(fmt, per_query=True)
    with tempfile.NamedTemporaryFile("w", suffix="." + fmt, delete=False) as f:
        f.write(text)
    try:
        (back,) = read_per_query(f.name)
    finally:
        os.unlink(f.name)
    ev = results[0]
    for name, values in back.per_query.items():
        assert values.tobytes() == ev.per_query[name].astype(float).tobytes(), name


def test_a_stored_baseline_gives_the_numbers_of_its_run(stored, sample):
    """compare against the stored results is compare against the run, value for value."""
    bm25, dense = sample.runs[0], sample.runs[1]
    by_run = invoke("compare", "-f", "json", MEASURES, sample.qrels, dense, bm25)
    for fmt in ("json", "tsv", "csv"):
        by_file = invoke("compare", "-f", "json", MEASURES, "--baseline-results",
                         stored["dense", fmt], sample.qrels, bm25)
        assert by_file.exit_code == 0, by_file.output
        assert by_file.stdout == by_run.stdout


def test_report_takes_every_stored_run_as_a_baseline(stored, sample):
    t = smarteval.report(sample.qrels, [sample.runs[1]], ["map"],
                         baseline_results=stored["two"])
    assert t.table.runs == ["bm25", "bm25_rm3", "dense"]
    assert t.table.baselines == [0, 1]
    # the run of a stored baseline is named apart from it, and equals it exactly
    t = smarteval.report(sample.qrels, [sample.runs[0]], ["map"],
                         baseline_results=stored["bm25", "tsv"])
    assert t.table.runs == ["bm25 (baseline)", "bm25"]
    assert t.table.diff.tolist() == [[0.0]]
    assert t.failures("worse") == []


# =========================================================================== exit statuses

def _lines(*texts: str) -> str:
    return "".join(f"smarteval: regression: {t}\n" for t in texts)


WORSE_MAP = ("bm25 is worse than the baseline dense on map: 0.1569 against 0.2658 (-0.1089, "
             "--tolerance 0)")
CASES = [
    # (command and options, the files of its arguments, exit status, standard error)
    (["compare", "--fail-if", "worse", "-m", "map", "--baseline-results", ("dense", "json")],
     ["bm25"], REGRESSED, _lines(WORSE_MAP)),
    (["compare", "--fail-if", "worse", "-m", "map", "--tolerance", "0.2",
      "--baseline-results", ("dense", "json")], ["bm25"], SUCCESS, ""),
    (["compare", "--fail-if", "worse", "-m", "map", "--tolerance", "0.1",
      "--baseline-results", ("dense", "tsv")], ["bm25", "bm25_rm3"], REGRESSED, _lines(
          "bm25 is worse than the baseline dense on map: 0.1569 against 0.2658 (-0.1089, "
          "more than --tolerance 0.1)")),
    (["compare", "--fail-if", "significantly-worse", "-m", "map", "-m", "P.10"],
     ["dense", "bm25_rm3", "bm25"], REGRESSED, _lines(
         "bm25 is significantly worse (t, adjusted p 0.00062 < 0.05) than the baseline dense "
         "on map: 0.1569 against 0.2658 (-0.1089, --tolerance 0)",
         "bm25 is significantly worse (t, adjusted p 0.047 < 0.05) than the baseline dense "
         "on P_10: 0.3533 against 0.5200 (-0.1667, --tolerance 0)")),
    # the stored results of the run itself: equal to the digit, no regression
    (["compare", "--fail-if", "worse", "--baseline-results", ("bm25", "csv")] + MEASURES,
     ["bm25"], SUCCESS, ""),
    (["compare", "--fail-if", "worse", "-m", "map"], ["bm25", "dense"], SUCCESS, ""),
    (["report", "--fail-if", "worse", "-m", "map", "-b", "dense"],
     ["bm25", "dense", "bm25_rm3"], REGRESSED, _lines(
         WORSE_MAP, "bm25_rm3 is worse than the baseline dense on map: 0.2119 against 0.2658 "
         "(-0.05384, --tolerance 0)")),
    (["report", "--fail-if", "significantly-worse", "-m", "map", "--baseline-results",
      ("dense", "json")], ["bm25", "bm25_rm3"], REGRESSED, _lines(
          "bm25 is significantly worse (t, adjusted p 0.00031 < 0.05) than the baseline dense "
          "on map: 0.1569 against 0.2658 (-0.1089, --tolerance 0)",
          "bm25_rm3 is significantly worse (t, adjusted p 0.028 < 0.05) than the baseline "
          "dense on map: 0.2119 against 0.2658 (-0.05384, --tolerance 0)")),
    # no query with a value in both: the gate cannot tell, and fails, as --require fails
    # an undefined value (it passed, exit 0)
    *[([command, "--fail-if", how, "-M", "0", "-m", "iprec_at_recall.0", *baseline], runs,
       REGRESSED, _lines("bm25 cannot be compared with the baseline dense on "
                         "iprec_at_recall_0.00: undefined against undefined (no query has a "
                         "value in both)"))
      for how in ("worse", "significantly-worse")
      for command, baseline, runs in (("compare", [], ["dense", "bm25"]),
                                      ("report", ["-b", "dense"], ["bm25", "dense"]))],
    (["evaluate", "-m", "map", "--require", "map>=0.2"], ["bm25", "dense", "bm25_rm3"],
     REGRESSED, _lines("bm25 fails --require 'map>=0.2': its map is 0.1569")),
    (["evaluate", "-m", "map", "-m", "P.10", "--require", "map>=0.25", "--require",
      "P.10 < 0.5"], ["dense"], REGRESSED,
     _lines("dense fails --require 'P.10 < 0.5': its P_10 is 0.5200")),
    (["evaluate", "--require", "map>=0.15", "--require", "AP>0.1", "-m", "AP", "-m", "map"],
     ["bm25"],
     SUCCESS, ""),
    # every name the evaluation prints is one --require takes (map_if_relevant was an
    # unknown measure); a name neither a measure's nor printed is refused as unknown
    (["evaluate", "--unjudged", "range", "-m", "map", "--require", "map_max>=0.3",
      "--require", "map_judged>0.5"], ["bm25"], REGRESSED,
     _lines("bm25 fails --require 'map_judged>0.5': its map_judged is 0.3000")),
    (["evaluate", "-m", "map", "--require", "map_if_relevant>=0.7"], ["bm25"], BAD_USAGE,
     "Error: --require 'map_if_relevant>=0.7': map_if_relevant is not among the measures "
     "evaluated: add -m map --unjudged range (which gives NAME_min and NAME_max of the "
     "measures it bounds, NAME_if_relevant of the others: the man page's UNJUDGED "
     "DOCUMENTS)\n"),
    # usage: nothing evaluated, nothing printed
    (["evaluate", "--require", "map=0.2"], ["bm25"], BAD_USAGE,
     "Error: --require 'map=0.2': expected MEASURE>=NUMBER (or >, <=, <), such as "
     "map>=0.25\n"),
    (["evaluate", "--require", "map>=x"], ["bm25"], BAD_USAGE,
     "Error: --require 'map>=x': 'x' is not a finite number\n"),
    (["evaluate", "--require", "P>=0.1"], ["bm25"], BAD_USAGE,
     "Error: --require 'P>=0.1': P gives 9 values (P_5, P_10, P_15, P_20, P_30, P_100, "
     "P_200, P_500, P_1000): name one (P.10, not P)\n"),
    (["evaluate", "-m", "map", "--require", "ndcg>=0"], ["bm25"], BAD_USAGE,
     "Error: --require 'ndcg>=0': ndcg is not among the measures evaluated: add -m ndcg\n"),
    (["report", "--fail-if", "worse", "-m", "map"], ["bm25", "dense"], BAD_USAGE,
     "Error: --fail-if compares runs with a baseline: give --baseline RUN or "
     "--baseline-results FILE\n"),
    (["compare", "--tau", "--baseline-results", ("dense", "json")], ["bm25"], BAD_USAGE,
     "Error: --tau reads the baseline's ranking: it needs the baseline's run, not its "
     "stored results (--baseline-results)\n"),
    (["compare"], ["bm25"], BAD_USAGE, None),
    # bad input
    (["compare", "--baseline-results", "two"], ["bm25_rm3"], BAD_INPUT,
     "Error: {two}: holds 2 runs (bm25, bm25_rm3): a stored baseline is one\n"
     "  expected: the output of smarteval evaluate -q for the baseline's run alone\n"),
    (["compare", "-m", "recip_rank", "--baseline-results", ("dense", "json")], ["bm25"],
     BAD_INPUT, "Error: {dense.json}: run dense has no per-query values of recip_rank\n"
     "  it has: map P_10 ndcg_cut_10\n"
     "  expected: results written by smarteval evaluate -q with these measures (-m)\n"),
    (["compare", "--baseline-results", ("dense", "trec")], ["bm25"], BAD_INPUT,
     "Error: {dense.trec}: not the per-query output of smarteval evaluate -q -f json, tsv or "
     "csv (trec_eval's text has four decimals: it would not give the baseline's values "
     "back)\n  expected: per-query results: smarteval evaluate -q -f json (or tsv, csv) "
     "output, run, query, measure, value\n"),
]


@pytest.mark.parametrize("args, runs, status, stderr", CASES,
                         ids=[f"{c[0][0]}-{i}" for i, c in enumerate(CASES)])
def test_exit_status_and_messages(stored, sample, args, runs, status, stderr):
    files = {p.stem: p for p in sample.runs}
    given = [stored[a] if isinstance(a, tuple) else stored["two"] if a == "two" else a
             for a in args]
    res = invoke(*given, sample.qrels, *(files[r] for r in runs))
    assert res.exit_code == status, res.output
    if stderr is not None:
        shown = {"{two}": str(stored["two"]), "{dense.json}": str(stored["dense", "json"]),
                 "{dense.trec}": str(stored["dense", "trec"])}
        for key, value in shown.items():
            stderr = stderr.replace(key, value)
        assert res.stderr == stderr
    # the output is what the command prints without its gate
    ungated = []
    skip = False
    for a in given:
        if skip:
            skip = False
            continue
        if a in ("--fail-if", "--tolerance", "--require"):
            skip = True
            continue
        ungated.append(a)
    if status in (SUCCESS, REGRESSED):
        plain = invoke(*ungated, sample.qrels, *(files[r] for r in runs))
        assert res.stdout == plain.stdout and res.stdout
    else:
        assert res.stdout == ""


def test_the_output_file_is_written_when_the_gate_fails(sample, tmp_path):
    out = tmp_path / "out.tsv"
    res = invoke("evaluate", "-f", "tsv", "-m", "map", "--require", "map>0.9", "-o", out,
                 sample.qrels, sample.runs[0])
    assert res.exit_code == REGRESSED
    assert out.read_text().startswith("run\tquery\tmeasure\tvalue\n")


def test_the_library_says_the_same(sample):
    cmp = smarteval.compare(sample.qrels, sample.runs[1], [sample.runs[0]], "map")
    assert cmp.failures("worse") == [WORSE_MAP]
    assert cmp.failures("worse", tolerance=0.2) == []
    with pytest.raises(smarteval.UsageError, match="--fail-if 'better'"):
        cmp.failures("better")
    with pytest.raises(smarteval.UsageError, match="--tolerance must be"):
        cmp.failures("worse", tolerance=math.nan)


def test_the_exit_statuses_have_one_home():
    """The man page's EXIT STATUS is written from errors.EXIT_STATUSES (docgen checks it),
    and each status a command exits with is one of them."""
    assert {SUCCESS, BAD_INPUT, BAD_USAGE, REGRESSED} <= {int(c) for c in EXIT_STATUSES}
    assert smarteval.UsageError.exit_code == BAD_USAGE
    assert smarteval.InputError("f", 1, "x").exit_code == BAD_INPUT
    from smarteval.errors import Regressed
    assert Regressed(["a"]).exit_code == REGRESSED == 3
    assert np.unique(list(EXIT_STATUSES)).size == len(EXIT_STATUSES)
