"""The SMART options of ``smarteval evaluate`` and the ``smarteval curve`` command, end to end."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from smarteval.cli import main

DATA = os.path.join(os.path.dirname(__file__), "data", "smart")


def data(name: str) -> str:
    return os.path.join(DATA, name)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def tsv(result) -> dict:
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.output.splitlines()[1:]]
    return {(r[1], r[2]): r[3] for r in rows}


def test_smart_table_gains_the_normalized_measures_with_n():
    # Keen Fig. 3 and Fig. 5: RNK REC, LOG PRE, NOR REC, NOR PRE under the curve
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-N", 200, "-f", "smart")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    labels = [line.split()[0] for line in lines if line and line[0].isalpha()]
    at = labels.index("RNK")
    assert labels[at:at + 4] == ["RNK", "LOG", "NOR", "NOR"]
    rows = {line[:11].strip(): line.split()[-1] for line in lines if line[:3] in
            ("RNK", "LOG", "NOR", "1.0", "0.8")}
    assert rows["NOR REC"] == "0.9887"
    assert rows["NOR PRE"] == "0.9239"        # .92386: Keen prints it truncated, .9238
    assert rows["RNK REC"] == "0.5769"
    assert rows["0.8"] == "0.6667" and rows["1.0"] == "0.3846"
    # without N the table has no normalized measures
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-f", "smart")
    assert "NOR REC" not in out.output


def test_measure_needing_n_without_it():
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-m", "norm_recall")
    assert out.exit_code == 2
    assert out.output == ("Error: norm_recall needs the number of documents in the "
                          "collection: give -N/--num-docs\n")


def test_n_too_small_is_an_input_error():
    out = run("evaluate", data("jw.qrels"), data("jw.run"), "-m", "norm_recall", "-N", 150)
    assert out.exit_code == 1
    assert "collection of 150 documents is smaller than query 1's 200 retrieved" in out.output


def test_micro_average_refused_for_non_ratio():
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-m", "map",
              "--average", "micro")
    assert out.exit_code == 2
    assert "map is not a ratio of counts, so it has no micro average" in out.output


def test_ties_average_refusal_and_value(tmp_path):
    out = run("evaluate", data("q268.qrels"), data("q268.run"), "-m", "bpref",
              "--ties", "average")
    assert out.exit_code == 2
    assert "--ties average: bpref has no exact average" in out.output
    # two tied documents at ranks 1-2, one relevant: P_1 averages to 1/2
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 5 t\n1 Q0 b 2 5 t\n")
    vals = tsv(run("evaluate", tmp_path / "q", tmp_path / "r", "-m", "P.1", "-m", "recip_rank",
                   "--ties", "average", "-f", "tsv"))
    assert float(vals[("all", "P_1")]) == 0.5
    assert float(vals[("all", "recip_rank")]) == 0.75


def test_frozen_residual_collection():
    # Joiner & Werner: 4 relevant in the first 10 of 200 leave n = 190 and 8 relevant
    vals = tsv(run("evaluate", data("jw.qrels"), data("jw_feedback.run"), "-N", 200,
                   "-m", "num_rel", "-m", "num_ret", "-m", "generality", "-m", "jw_prob.1",
                   "--frozen", data("jw.run"), "--frozen-depth", 10, "-f", "tsv"))
    assert vals[("all", "num_rel")] == "8"
    assert vals[("all", "num_ret")] == "190"
    assert float(vals[("all", "generality")]) == pytest.approx(1000 * 8 / 190)
    assert float(vals[("all", "jw_prob_1")]) == pytest.approx(182 / 190)   # P(X = 0)
    out = run("evaluate", data("jw.qrels"), data("jw.run"), "--frozen", data("jw.run"))
    assert out.exit_code == 2 and "go together" in out.output


def test_jw_table_through_the_cli():
    vals = tsv(run("evaluate", data("jw.qrels"), data("jw.run"), "-N", 200,
                   "-m", "jw_prob.1,2,10,14", "-f", "tsv"))
    assert float(vals[("all", "jw_prob_1")]) == pytest.approx(0.94)
    assert abs(float(vals[("all", "jw_prob_10")]) - 0.99868) < 1e-5
    assert abs(float(vals[("all", "jw_prob_14")]) - 0.99997) < 1e-5


CURVE_Q268 = """\
Quasi-Cranfield precision at 10 recall levels (step middle, left end constant), macro average over 1 queries

REC.      thesaurus2
------  ------------
0.1           1.0000
0.2           1.0000
0.3           1.0000
0.4           1.0000
0.5           0.8750
0.6           0.7500
0.7           0.5972
0.8           0.4444
0.9           0.4145
1.0           0.3846

Queries averaged from real points + by extrapolation (- left out):

REC.      thesaurus2
------  ------------
0.1              0+1
0.2              1+0
0.3              1+0
0.4              1+0
0.5              1+0
0.6              1+0
0.7              1+0
0.8              1+0
0.9              1+0
1.0              1+0
"""


def test_curve_golden_quasi_middle():
    # middle documents of the steps (by hand): ranks 1, 2 (of 2-3), 4 (of 4-5), 9 (of 6-12,
    # Fig. 15's .4444) and 13 (of 13-14, the end of the list): 1, 1, .75, 4/9, 5/13, joined
    # by straight lines (.5: (1 + .75)/2, .7: (.75 + 4/9)/2, .9: (4/9 + 5/13)/2)
    out = run("curve", data("q268.qrels"), data("q268.run"), "--step", "middle")
    assert out.exit_code == 0, out.output
    assert out.output == CURVE_Q268


def test_curve_json_and_pseudo():
    out = run("curve", data("q268.qrels"), data("q268.run"), "--method", "pseudo",
              "--levels", "0.2,0.4,0.6,0.8,1", "-f", "json")
    assert out.exit_code == 0, out.output
    (obj,) = json.loads(out.output)
    assert [lv["examined"] for lv in obj["levels"]] == [1, 2, 4, 6, 13]
    assert [round(lv["precision"], 4) for lv in obj["levels"]] == [1, 1, 0.75, 0.6667, 0.3846]


def test_curve_semi_matches_iprec():
    out = run("curve", data("q268.qrels"), data("q268.run"), data("q268.run"), "--method",
              "semi", "-f", "tsv")
    semi = [line.split("\t") for line in out.output.splitlines()[1:]]
    vals = tsv(run("evaluate", data("q268.qrels"), data("q268.run"),
                   "-m", "iprec_at_recall.0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1", "-f", "tsv"))
    for row in semi[:10]:
        assert float(row[2]) == pytest.approx(
            float(vals[("all", f"iprec_at_recall_{float(row[1]):.2f}")]))


@pytest.mark.parametrize("args, message", [
    (["--method", "semi", "--left", "one"], "--left extrapolates the quasi curve"),
    (["--method", "pseudo", "--step", "lowest"], "takes no --step"),
    (["--average", "micro"], "the quasi curve interpolates between cut-offs"),
    (["--levels", "1.5"], "--levels takes recall levels between 0 and 1"),
])
def test_curve_usage_errors(args, message):
    out = run("curve", data("q268.qrels"), data("q268.run"), *args)
    assert out.exit_code == 2
    assert message in out.output


def test_smart_measures_listed_with_help():
    out = run("measures")
    assert out.exit_code == 0
    for name in ("norm_recall", "norm_prec", "rank_recall", "log_prec", "wnorm_recall",
                 "fallout", "generality", "cutoff", "adj_prec", "sliding_ratio",
                 "relpoints_recall", "rel_recall", "rank_first", "rank_second", "rank_last",
                 "F", "E", "accuracy", "jw_prob", "jw_avg", "esl", "cnr_recall", "cnr_prec"):
        assert f"\n{name}" in "\n" + out.output, name


@pytest.mark.parametrize("average, printed", [
    # Rocchio Table 2: cutoff 1 / cutoff 2, recall and precision
    ("micro", {"cnr_recall_1": .31, "cnr_prec_1": .66, "cnr_recall_100": .62,
               "cnr_prec_100": .10, "P_3": .66, "set_P": .10, "set_recall": .62}),
    ("macro", {"cnr_recall_1": .43, "cnr_prec_1": .66, "cnr_recall_100": .63,
               "cnr_prec_100": .17, "P_3": .66, "set_P": .17, "set_recall": .63}),
])
def test_rocchio_table2_through_the_cli(average, printed):
    vals = tsv(run("evaluate", data("rocchio.qrels"), data("rocchio.run"), "-m",
                   "cnr_recall.1,100", "-m", "cnr_prec.1,100", "-m", "P.3", "-m", "set_P",
                   "-m", "set_recall", "--average", average, "-f", "tsv"))
    for name, p in printed.items():
        assert abs(float(vals[("all", name)]) - p) < 0.01, name


def test_ties_random_is_seeded_and_averages_to_ties_average(tmp_path):
    # SMART's random order within tied scores: reproducible by seed, and over many seeds
    # its mean approaches the exact --ties average
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 0\n1 0 d 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 5 t\n1 Q0 b 2 5 t\n1 Q0 c 3 5 t\n1 Q0 d 4 1 t\n")
    from smarteval.api import evaluate
    from smarteval.columns import Settings

    def value(**kw):
        (ev,) = evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["recip_rank"],
                         settings=Settings(**kw))
        return ev.summary["recip_rank"]
    assert value(ties="random", seed=3) == value(ties="random", seed=3)
    draws = [value(ties="random", seed=s) for s in range(300)]
    assert set(draws) == {1.0, 0.5, 1 / 3}
    exact = value(ties="average")
    assert exact == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert abs(np.mean(draws) - exact) < 0.05
